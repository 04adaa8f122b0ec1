// fixture: min_sm=80 variants=lineinfo
// __nv_bfloat16 / __nv_bfloat162 arithmetic, math and conversions.
#include <cuda_bf16.h>

extern "C" __global__ void bf16_arith(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_bfloat16 x = a[i], y = b[i];
        __nv_bfloat16 r = __hfma(x, y, __hadd(x, y));
        r = __hsub(r, __hmul(x, x));
        r = __hdiv(r, __hadd(__habs(y), __float2bfloat16(1.0f)));
        r = __hmax(r, __hneg(x));
        r = __hmin(r, __hfma_relu(x, y, r));
        c[i] = r;
    }
}

extern "C" __global__ void bf16_math_fns(const __nv_bfloat16* a, __nv_bfloat16* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_bfloat16 x = a[i];
        __nv_bfloat16 r = __hadd(hexp(x), hlog(__habs(x)));
        r = __hadd(r, hsqrt(__habs(x)));
        r = __hadd(r, hsin(x));
        r = __hadd(r, hcos(x));
        r = __hadd(r, hrcp(x));
        r = __hadd(r, htanh(x));
        out[i] = r;
    }
}

extern "C" __global__ void bf162_ops(const __nv_bfloat162* a, const __nv_bfloat162* b, __nv_bfloat162* c, float* f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_bfloat162 x = a[i], y = b[i];
        __nv_bfloat162 r = __hfma2(x, y, __hmul2(x, y));
        r = __hadd2(r, __hsub2(x, y));
        r = __hmax2(r, __hmin2(x, y));
        c[i] = r;
        float2 ff = __bfloat1622float2(r);
        f[i] = ff.x - ff.y + __low2float(x) * __high2float(y);
    }
}

extern "C" __global__ void bf16_conversions(const float* f, const double* d, const int* k, __nv_bfloat16* out, float* back, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_bfloat16 a = __float2bfloat16_rn(f[i]);
        __nv_bfloat16 b = __float2bfloat16_rz(f[i]);
        __nv_bfloat16 c = __double2bfloat16(d[i]);
        __nv_bfloat16 e = __int2bfloat16_rn(k[i]);
        out[i] = __hadd(__hadd(a, b), __hadd(c, e));
        back[i] = __bfloat162float(a) + (float)__bfloat162int_rz(c);
    }
}

// Mixed-precision dot product, bf16 inputs, fp32 accumulate.
extern "C" __global__ void bf16_dot(const __nv_bfloat16* x, const __nv_bfloat16* y, float* out, int n) {
    float acc = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        acc += __bfloat162float(x[i]) * __bfloat162float(y[i]);
    for (int off = 16; off; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, acc);
}
