// fixture: min_sm=80 variants=O0
// clang CUDA: _Float16 / __bf16 / double arithmetic, fast-math builtins, rounding-mode intrinsics, conversions.
#include "nvptx_min.h"

extern "C" __global__ void half_ops(const _Float16* a, const _Float16* b, _Float16* c, float* f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        _Float16 x = a[i], y = b[i];
        _Float16 r = x * y + x - y / (y + (_Float16)1.0f);
        r = r > x ? r : x;
        c[i] = r;
        f[i] = (float)r + (float)__builtin_fmaf16(x, y, r);
    }
}

typedef _Float16 half2_t __attribute__((ext_vector_type(2)));
extern "C" __global__ void half2_ops(const half2_t* a, const half2_t* b, half2_t* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] * b[i] + a[i];
}

extern "C" __global__ void bf16_ops(const __bf16* a, const __bf16* b, __bf16* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __bf16 x = a[i], y = b[i];
        c[i] = x * y + x - y;
    }
}

extern "C" __global__ void f64_ops(const double* a, const double* b, double* c, long long* l, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = a[i], y = b[i];
        double r = x / y + sqrt(fabs(x)) + fma(x, y, 1.0) + __nvvm_rcp_rn_d(y) + __nvvm_sqrt_rn_d(fabs(y)) + __nvvm_div_rz_d(x, y);
        r += __nvvm_add_rm_d(x, y) + __nvvm_mul_rp_d(x, y) + __nvvm_fma_rz_d(x, y, r) + __builtin_floor(x) + __builtin_ceil(y) + __builtin_trunc(r);
        c[i] = r;
        l[i] = (long long)r + __nvvm_d2ll_rz(x) + __nvvm_d2i_rm(y) + (long long)(float)r;
    }
}

extern "C" __global__ void f32_intrinsics(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = a[i];
        float r = __expf(x) + __logf(fabsf(x) + 1.f) + __sinf(x) + __cosf(x) + rsqrtf(fabsf(x) + 1.f) + __fdividef(x, 3.f);
        r += __nvvm_div_rn_f(x, 7.f) + __nvvm_sqrt_rn_f(fabsf(x)) + __nvvm_rcp_rz_f(x) + __nvvm_fmin_f(x, r) + __nvvm_fmax_nan_f(x, r);
        r += __nvvm_saturate_f(x) + __nvvm_add_rz_ftz_f(x, r) + __nvvm_ex2_approx_ftz_f(x) + __nvvm_mul_rm_f(x, x) + sqrtf(fabsf(r));
        out[i] = r + (float)__nvvm_f2i_rn(x) + __nvvm_i2f_rz(__nvvm_f2i_rz(x)) + __nvvm_ull2f_rn(__nvvm_f2ull_rp(fabsf(x)));
    }
}

extern "C" __global__ void int_bits(const unsigned* a, const u64* b, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned x = a[i];
        u64 y = b[i];
        out[i] = __builtin_popcount(x) + __builtin_popcountll(y) + __builtin_clz(x | 1) + __builtin_ctzll(y | 1) + __builtin_bitreverse32(x) +
                 (unsigned)__builtin_bitreverse64(y) + __nvvm_prmt(x, (unsigned)y, 0x3210) + (unsigned)(y / (x | 1)) + (unsigned)(y % 10) +
                 __nvvm_mulhi_ui(x, 0x9e3779b9u) + (unsigned)__nvvm_mulhi_ull(y, 12345) + __builtin_rotateleft32(x, 7);
    }
}
