// fixture: min_sm=90
// FP8 (e4m3/e5m2) conversions from cuda_fp8.h (native cvt on sm_89+), packed x2 conversions and scaling.
#include <cuda_fp8.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void fp8_roundtrip(const float* in, __nv_fp8_e4m3* e4, __nv_fp8_e5m2* e5, float* back, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_fp8_e4m3 a(in[i]);
        __nv_fp8_e5m2 b(in[i]);
        e4[i] = a;
        e5[i] = b;
        back[i] = float(a) + float(b);
    }
}

extern "C" __global__ void fp8x2_quantize(const float2* in, __nv_fp8x2_e4m3* out, const __half2* hin, __nv_fp8x2_e5m2* hout, float scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float2 v = in[i];
        v.x *= scale; v.y *= scale;
        out[i] = __nv_fp8x2_e4m3(v);
        hout[i] = __nv_fp8x2_e5m2(hin[i]);
    }
}

extern "C" __global__ void fp8_raw_cvt(const float* in, unsigned short* out, __half2* hout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_fp8x2_storage_t s = __nv_cvt_float2_to_fp8x2(make_float2(in[i], -in[i]), __NV_SATFINITE, __NV_E4M3);
        __nv_fp8x2_storage_t t = __nv_cvt_bfloat16raw2_to_fp8x2(__nv_bfloat162_raw(__floats2bfloat162_rn(in[i], 1.f)), __NV_NOSAT, __NV_E5M2);
        out[i] = s ^ t;
        hout[i] = __half2(__nv_cvt_fp8x2_to_halfraw2(s, __NV_E4M3));
    }
}
