// fixture: min_sm=70 variants=O0,g
// clang CUDA: noinline calls, recursion (call stack in .local), function pointers, local arrays, printf, malloc.
#include "nvptx_min.h"

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ long long fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
__device__ __noinline__ void qsort_rec(int* a, int lo, int hi) {
    if (lo >= hi) return;
    int p = a[(lo + hi) / 2], i = lo, j = hi;
    while (i <= j) {
        while (a[i] < p) ++i;
        while (a[j] > p) --j;
        if (i <= j) { int t = a[i]; a[i] = a[j]; a[j] = t; ++i; --j; }
    }
    qsort_rec(a, lo, j);
    qsort_rec(a, i, hi);
}

extern "C" __global__ void recursion(const int* in, long long* out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) out[t] = fib(in[t] & 15) + fact(in[t] & 7);
}

extern "C" __global__ void local_sort(const int* in, int* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int buf[24];
    for (int k = 0; k < 24; ++k) buf[k] = in[t * 24 + k];
    qsort_rec(buf, 0, 23);
    for (int k = 0; k < 24; ++k) out[t * 24 + k] = buf[k];
}

typedef float (*op_t)(float, float);
__device__ float op_add(float a, float b) { return a + b; }
__device__ float op_mul(float a, float b) { return a * b; }
__device__ float op_max(float a, float b) { return fmaxf(a, b); }
__device__ op_t ops[3] = {op_add, op_mul, op_max};

extern "C" __global__ void indirect_calls(const float* a, const float* b, const int* sel, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = ops[sel[i] % 3](a[i], b[i]);
}

extern "C" __global__ void local_dynamic(const int* idx, float* out, int n) {
    float hist[32];
    for (int k = 0; k < 32; ++k) hist[k] = 0.f;
    for (int k = 0; k < n; ++k) hist[idx[k] & 31] += 1.f;
    out[threadIdx.x] = hist[threadIdx.x & 31];
}

extern "C" __global__ void printer(const float* f, const double* d, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) printf("t=%d f=%f d=%e ll=%lld s=%s\n", t, (double)f[t], d[t], (long long)t * 3, "clang");
    if (t == 0) printf("done\n");
}

extern "C" __global__ void heap(int* out, int n) {
    int* p = (int*)malloc(n * sizeof(int));
    for (int k = 0; k < n; ++k) p[k] = k * threadIdx.x;
    int s = 0;
    for (int k = 0; k < n; ++k) s += p[k];
    free(p);
    out[threadIdx.x] = s;
}
