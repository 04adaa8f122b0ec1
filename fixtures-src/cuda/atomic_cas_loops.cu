// fixture: min_sm=70 variants=debug
// Atomics synthesized with atomicCAS loops: float max/min, double mul, half2/bf16 adds, 16-bit CAS.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ float atomic_max_float(float* addr, float val) {
    int* ia = (int*)addr;
    int old = *ia, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= val) break;
        old = atomicCAS(ia, assumed, __float_as_int(val));
    } while (assumed != old);
    return __int_as_float(old);
}

__device__ double atomic_mul_double(double* addr, double val) {
    unsigned long long* a = (unsigned long long*)addr;
    unsigned long long old = *a, assumed;
    do {
        assumed = old;
        old = atomicCAS(a, assumed, __double_as_longlong(__longlong_as_double(assumed) * val));
    } while (assumed != old);
    return __longlong_as_double(old);
}

__device__ float atomic_min_float_signed(float* addr, float value) {
    return value >= 0 ? __int_as_float(atomicMin((int*)addr, __float_as_int(value)))
                      : __uint_as_float(atomicMax((unsigned*)addr, __float_as_uint(value)));
}

extern "C" __global__ void cas_loops(float* fmax_out, double* dmul_out, float* fmin_out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomic_max_float(fmax_out, in[i]);
        atomic_mul_double(dmul_out, 1.0 + in[i] * 1e-6);
        atomic_min_float_signed(fmin_out, in[i]);
    }
}

extern "C" __global__ void half_atomics(__half2* h2, __half* h, __nv_bfloat162* b2, __nv_bfloat16* b, const float* in) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    atomicAdd(h2, __floats2half2_rn(v, -v));
    atomicAdd(h, __float2half(v));
    atomicAdd(b2, __floats2bfloat162_rn(v, 2 * v));
    atomicAdd(b, __float2bfloat16(v));
}

extern "C" __global__ void cas16(unsigned short* p, unsigned short cmp, unsigned short val) {
    atomicCAS(p + threadIdx.x, cmp, val);
}

// Spin lock built from atomicCAS/atomicExch + __threadfence.
__device__ int g_lock;
__device__ int g_counter;
extern "C" __global__ void spin_lock_increment(int iters) {
    if ((threadIdx.x & 31) == 0) {
        for (int k = 0; k < iters; ++k) {
            while (atomicCAS(&g_lock, 0, 1) != 0) { }
            __threadfence();
            g_counter += 1;
            __threadfence();
            atomicExch(&g_lock, 0);
        }
    }
}
