// fixture: min_sm=70 variants=O0,g
// clang CUDA: vector add, saxpy, shared-memory reduction, dynamic shared memory, 2D indexing.
#include "nvptx_min.h"

extern "C" __global__ void vec_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = fmaf(a, x[i], y[i]);
}

template <int BLOCK>
__global__ void reduce(const float* in, float* out, int n) {
    __shared__ float s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0.f;
    __syncthreads();
    for (int st = BLOCK / 2; st > 0; st >>= 1) {
        if (t < st) s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, s[0]);
}
template __global__ void reduce<256>(const float*, float*, int);
template __global__ void reduce<128>(const float*, float*, int);

extern "C" __global__ void dyn_shared_reverse(const double* in, double* out) {
    extern __shared__ double sd[];
    int t = threadIdx.x;
    sd[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = sd[blockDim.x - 1 - t];
}

extern "C" __global__ void transpose(const float* in, float* out, int w, int h) {
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
    if (x < h && y < w) out[y * h + x] = tile[threadIdx.x][threadIdx.y];
}

__constant__ float c_coef[16];
extern "C" __global__ void const_poly(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float r = 0.f;
        for (int k = 15; k >= 0; --k) r = r * x[i] + c_coef[k];
        y[i] = r;
    }
}
