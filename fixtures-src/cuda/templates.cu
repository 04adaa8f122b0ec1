// fixture: min_sm=70
// Templates, functors, lambdas, constexpr and explicit instantiations (mangled C++ names in PTX).
#include <cuda_fp16.h>
template <typename T> struct Add { __device__ T operator()(T a, T b) const { return a + b; } };
template <typename T> struct Max { __device__ T operator()(T a, T b) const { return a > b ? a : b; } };
template <typename T> struct Mul { __device__ T operator()(T a, T b) const { return a * b; } };

template <typename T, typename Op, int BLOCK>
__global__ void block_reduce(const T* in, T* out, int n, T identity) {
    __shared__ T s[BLOCK];
    Op op;
    T acc = identity;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x) acc = op(acc, in[i]);
    s[threadIdx.x] = acc;
    __syncthreads();
    #pragma unroll
    for (int st = BLOCK / 2; st > 0; st >>= 1) {
        if (threadIdx.x < st) s[threadIdx.x] = op(s[threadIdx.x], s[threadIdx.x + st]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
template __global__ void block_reduce<float, Add<float>, 256>(const float*, float*, int, float);
template __global__ void block_reduce<double, Max<double>, 128>(const double*, double*, int, double);
template __global__ void block_reduce<int, Mul<int>, 64>(const int*, int*, int, int);
template __global__ void block_reduce<unsigned long long, Add<unsigned long long>, 256>(const unsigned long long*, unsigned long long*, int, unsigned long long);

template <typename F>
__device__ void for_each_index(int n, F f) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) f(i);
}

template <typename T>
__global__ void axpby_lambda(int n, T a, const T* x, T b, T* y) {
    for_each_index(n, [=] (int i) { y[i] = a * x[i] + b * y[i]; });
}
template __global__ void axpby_lambda<float>(int, float, const float*, float, float*);
template __global__ void axpby_lambda<double>(int, double, const double*, double, double*);
template __global__ void axpby_lambda<int>(int, int, const int*, int, int*);

template <int N>
struct Poly { static constexpr __device__ float eval(float x) { return x * Poly<N - 1>::eval(x) + (float)N; } };
template <> struct Poly<0> { static constexpr __device__ float eval(float) { return 1.f; } };

template <int DEG>
__global__ void horner(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = Poly<DEG>::eval(x[i]);
}
template __global__ void horner<3>(const float*, float*, int);
template __global__ void horner<9>(const float*, float*, int);

template <typename To, typename From>
__global__ void convert(const From* in, To* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = static_cast<To>(in[i]);
}
template __global__ void convert<float, int>(const int*, float*, int);
template __global__ void convert<double, float>(const float*, double*, int);
template __global__ void convert<int, double>(const double*, int*, int);
template __global__ void convert<unsigned char, float>(const float*, unsigned char*, int);
template __global__ void convert<long long, unsigned>(const unsigned*, long long*, int);
template __global__ void convert<__half, float>(const float*, __half*, int);
template __global__ void convert<float, __half>(const __half*, float*, int);

namespace ns { namespace inner {
__global__ void namespaced_kernel(int* p) { p[threadIdx.x] = threadIdx.x * 2; }
} }
