// fixture: min_sm=70 variants=lineinfo,fastmath
// __half / __half2 arithmetic, comparisons, conversions and math intrinsics.
#include <cuda_fp16.h>

extern "C" __global__ void half_arith(const __half* a, const __half* b, __half* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half x = a[i], y = b[i];
        __half s = __hadd(x, y), d = __hsub(x, y), m = __hmul(x, y);
        __half q = __hdiv(x, y);
        __half f = __hfma(x, y, s);
        __half r = __hfma_relu(x, y, d);
        __half neg = __hneg(m);
        __half ab = __habs(q);
        __half mx = __hmax(f, r), mn = __hmin_nan(f, neg);
        c[i] = __hadd_sat(mx, __hsub(mn, ab));
    }
}

extern "C" __global__ void half_math_fns(const __half* a, __half* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half x = a[i];
        __half r = __hadd(hexp(x), hlog(__habs(x)));
        r = __hadd(r, hsqrt(__habs(x)));
        r = __hadd(r, hrsqrt(__hadd(__habs(x), __float2half(1.0f))));
        r = __hadd(r, hsin(x));
        r = __hadd(r, hcos(x));
        r = __hadd(r, hexp2(x));
        r = __hadd(r, hlog2(__habs(x)));
        r = __hadd(r, hrcp(x));
        r = __hadd(r, hfloor(x));
        r = __hadd(r, hceil(x));
        r = __hadd(r, htrunc(x));
        r = __hadd(r, hrint(x));
        out[i] = r;
    }
}

extern "C" __global__ void half2_ops(const __half2* a, const __half2* b, __half2* c, float* dot, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half2 x = a[i], y = b[i];
        __half2 r = __hfma2(x, y, __hmul2(x, x));
        r = __hadd2(r, __hsub2(y, x));
        r = __h2div(r, __hadd2(__habs2(y), __float2half2_rn(1.0f)));
        r = __hmax2(r, __hneg2(x));
        __half2 e = h2exp(r);
        __half2 cmp = __hle2(x, y);
        c[i] = __hmul2(e, cmp);
        float2 f = __half22float2(r);
        dot[i] = f.x * f.y + __low2float(x) + __high2float(y);
    }
}

extern "C" __global__ void half_conversions(const float* f, const int* ints, const double* d, __half* h, short* s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half a = __float2half_rn(f[i]);
        __half b = __float2half_rz(f[i]);
        __half c = __float2half_rd(f[i]);
        __half e = __float2half_ru(f[i]);
        __half g = __int2half_rn(ints[i]);
        __half k = __double2half(d[i]);
        h[i] = __hadd(__hadd(a, b), __hadd(__hadd(c, e), __hadd(g, k)));
        s[i] = __half2short_rz(a) + (short)__half2int_rn(e) + (short)__half2uint_rd(c);
        bool lt = __hlt(a, b), ge = __hgeu(c, e), nn = __hisnan(g), in = __hisinf(k);
        s[i] += lt + 2 * ge + 4 * nn + 8 * in;
    }
}
