// fixture: min_sm=70 variants=lineinfo,fastmath,debug
// Single-precision math: precise libdevice functions, fast intrinsics, rounding modes, division.
extern "C" __global__ void f32_precise(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float r = expf(v) + logf(fabsf(v) + 1.f) + sinf(v) + cosf(v) + tanf(v);
        r += powf(fabsf(v), 0.75f) + sqrtf(fabsf(v)) + rsqrtf(fabsf(v) + 1.f) + cbrtf(v);
        r += exp2f(v) + log2f(fabsf(v) + 1.f) + log10f(fabsf(v) + 1.f) + exp10f(v * 0.1f);
        r += tanhf(v) + atanf(v) + asinf(v * 0.1f) + acosf(v * 0.1f) + atan2f(v, r);
        r += erff(v) + erfcf(v) + lgammaf(fabsf(v) + 1.f) + tgammaf(fabsf(v) * 0.1f + 1.f);
        r += sinhf(v * 0.1f) + coshf(v * 0.1f) + asinhf(v) + normcdff(v) + erfinvf(v * 0.01f);
        float s, c;
        sincosf(v, &s, &c);
        r += s * c + sinpif(v) + cospif(v);
        y[i] = r;
    }
}

extern "C" __global__ void f32_fast_intrinsics(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float r = __expf(v) + __logf(fabsf(v) + 1.f) + __sinf(v) + __cosf(v) + __tanf(v);
        r += __powf(fabsf(v), 1.3f) + __fdividef(v, r + 1.f) + __saturatef(v) + __exp10f(v) + __log2f(fabsf(v) + 2.f);
        float s, c;
        __sincosf(v, &s, &c);
        r += s - c;
        r += __fadd_rd(v, r) + __fmul_ru(v, r) + __fdiv_rz(v, r) + __fsqrt_rn(fabsf(v)) + __frcp_rn(v);
        r += __fmaf_rz(v, r, 1.f) + __frsqrt_rn(fabsf(v) + 1.f) + __fsub_ru(r, v);
        y[i] = r;
    }
}

extern "C" __global__ void f32_division_and_rounding(const float* a, const float* b, float* c, int* k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = a[i], y = b[i];
        float q = x / y;
        float r = 1.0f / y;
        float m = fmodf(x, y) + remainderf(x, y);
        int quo;
        m += remquof(x, y, &quo);
        c[i] = q + r + m + floorf(x) + ceilf(y) + truncf(q) + roundf(r) + rintf(x) + nearbyintf(y);
        c[i] += fminf(x, y) * fmaxf(x, y) + fdimf(x, y) + copysignf(x, y) + ldexpf(x, 3) + scalbnf(y, -2);
        int e;
        c[i] += frexpf(x, &e) + (float)ilogbf(y) + logbf(x) + modff(x, &r) + r;
        k[i] = e + quo + lrintf(x) + (int)llroundf(y) + __float2int_rd(x) + __float2int_ru(y) + (int)__float2uint_rz(q);
        k[i] += isnan(q) + isinf(r) * 2 + isfinite(m) * 4 + signbit(x) * 8;
    }
}

extern "C" __global__ void gelu_silu(const float* x, float* gelu, float* silu, float* sig, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        gelu[i] = 0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
        float s = 1.f / (1.f + expf(-v));
        silu[i] = v * s;
        sig[i] = s + 0.5f * v * (1.f + erff(v * 0.70710678f));
    }
}
