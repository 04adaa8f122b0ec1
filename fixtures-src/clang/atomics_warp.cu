// fixture: min_sm=70 variants=O0
// clang CUDA: atomics (gen/cta/sys scopes, CAS loops), warp shuffles, votes, match.
#include "nvptx_min.h"

extern "C" __global__ void atomics(int* g, unsigned* u, float* f, double* d, u64* l, int v) {
    atomicAdd(&g[0], v);
    atomicExch(&g[1], v);
    atomicMax(&g[2], v);
    atomicMin(&g[3], v);
    atomicAnd(&g[4], v);
    atomicOr(&g[5], v);
    atomicXor(&g[6], v);
    atomicCAS(&g[7], 0, v);
    atomicInc(&u[0], 10u);
    atomicDec(&u[1], 10u);
    atomicMax(&u[2], (unsigned)v);
    atomicAdd(&f[0], (float)v);
    atomicAdd(&d[0], (double)v);
    atomicAdd(&l[0], (u64)v);
    atomicCAS(&l[1], 0ull, (u64)v);
    atomicAdd_block(&g[8], 1);
    atomicAdd_system(&g[9], 1);
}

__device__ float atomic_max_f(float* a, float v) {
    int* ia = (int*)a;
    int old = *ia, assumed;
    do {
        assumed = old;
        if (__builtin_bit_cast(float, assumed) >= v) break;
        old = atomicCAS(ia, assumed, __builtin_bit_cast(int, v));
    } while (old != assumed);
    return __builtin_bit_cast(float, old);
}

extern "C" __global__ void cas_max(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomic_max_f(out, in[i]);
}

extern "C" __global__ void shared_atomics_hist(const unsigned char* d, unsigned* hist, int n) {
    __shared__ unsigned h[256];
    for (int k = threadIdx.x; k < 256; k += blockDim.x) h[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&h[d[i]], 1u);
    __syncthreads();
    for (int k = threadIdx.x; k < 256; k += blockDim.x) atomicAdd(&hist[k], h[k]);
}

extern "C" __global__ void shuffles(const int* in, const float* fin, const double* din, int* out, float* fout, double* dout) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    float f = fin[t];
    double d = din[t];
    v += __shfl_sync(0xffffffffu, v, 3) + __shfl_up_sync(0xffffffffu, v, 1) + __shfl_down_sync(0xffffffffu, v, 2) + __shfl_xor_sync(0xffffffffu, v, 1, 16);
    for (int o = 16; o; o >>= 1) { f += __shfl_xor_sync(0xffffffffu, f, o); d += __shfl_xor_sync(0xffffffffu, d, o); }
    f += __shfl_down_sync(0xffffffffu, f, 1, 8) + __shfl_up_sync(0xffffffffu, f, 4);
    out[t] = v; fout[t] = f; dout[t] = d;
}

extern "C" __global__ void votes(const int* in, unsigned* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    unsigned b = __ballot_sync(0xffffffffu, v > 0);
    int all = __all_sync(0xffffffffu, v != 0), any = __any_sync(0xffffffffu, v < 0), uni = __uni_sync(0xffffffffu, v == 1);
    unsigned m = __match_any_sync(0xffffffffu, v & 7);
    __syncwarp();
    out[t] = __popc(b) + all * 100 + any * 1000 + uni * 10000 + m + __activemask() + __clz(b) + __ffs(m);
}

extern "C" __global__ void warp_reduce_atomic(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.f;
    for (int o = 16; o; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}
