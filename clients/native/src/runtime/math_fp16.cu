// math_fp16: cuda_fp16 (__half, __half2) and cuda_bf16 (__nv_bfloat16, __nv_bfloat162)
// arithmetic, comparisons and conversions. Operands are chosen so every exact result is
// representable (half: at most 11 significant bits, bf16: at most 8), so the device
// results must equal the host's float arithmetic exactly. Float->half/bf16 rounding
// (round to nearest even, overflow to infinity, subnormals) is checked bit for bit
// against constants.
#include "check.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define NV 256
#define NOUT 20

__global__ void half_ops(float *out) {
    int i = threadIdx.x;
    __half a = __float2half(i * 0.25f - 32.0f);
    __half b = __float2half((float)(i % 16 - 8));
    __half c = __float2half(0.25f * (i % 4));
    float *o = out + i * NOUT;
    o[0] = __half2float(__hadd(a, b));
    o[1] = __half2float(__hsub(a, b));
    o[2] = __half2float(__hmul(a, b));
    o[3] = __half2float(__hfma(a, b, c));
    o[4] = __half2float(__hneg(a));
    o[5] = __half2float(__habs(a));
    o[6] = __half2float(__hmax(a, b));
    o[7] = __half2float(__hmin(a, b));
    o[8] = __hlt(a, b) ? 1.0f : 0.0f;
    o[9] = __heq(a, b) ? 1.0f : 0.0f;
    __half2 h2 = __halves2half2(a, b);
    __half2 cc = __half2half2(c);
    __half2 s2 = __hadd2(h2, h2);
    __half2 m2 = __hmul2(h2, cc);
    __half2 f2 = __hfma2(h2, cc, h2);
    o[10] = __low2float(s2);
    o[11] = __high2float(s2);
    o[12] = __low2float(m2);
    o[13] = __high2float(m2);
    o[14] = __low2float(f2);
    o[15] = __high2float(f2);
    o[16] = (float)__half2int_rz(a);
    o[17] = __half2float(__int2half_rn(i - 128));
    __nv_bfloat16 x = __float2bfloat16(i * 0.25f - 32.0f);
    __nv_bfloat16 y = __float2bfloat16((float)(i % 4 - 2));
    o[18] = __bfloat162float(__hadd(x, __float2bfloat16((float)(i % 16 - 8))));
    o[19] = __bfloat162float(__hmul(x, y));
}

__global__ void bf16x2_ops(float *out) {
    int i = threadIdx.x;
    __nv_bfloat162 p = __floats2bfloat162_rn((i % 64) * 0.5f, -(float)i);
    __nv_bfloat162 q = __floats2bfloat162_rn(1.0f, (float)(i % 8));
    __nv_bfloat162 s = __hadd2(p, q);
    out[2 * i] = __low2float(s);
    out[2 * i + 1] = __high2float(s);
}

__global__ void rounding(const float *in, unsigned short *h, unsigned short *bf, int n) {
    int i = threadIdx.x;
    if (i < n) {
        h[i] = __half_as_ushort(__float2half_rn(in[i]));
        bf[i] = __bfloat16_as_ushort(__float2bfloat16_rn(in[i]));
    }
}

static float expect(int k, int i) {
    float a = i * 0.25f - 32.0f, b = (float)(i % 16 - 8), c = 0.25f * (i % 4);
    float x = a, y = (float)(i % 4 - 2);
    switch (k) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a * b + c;
    case 4: return -a;
    case 5: return a < 0 ? -a : a;
    case 6: return a > b ? a : b;
    case 7: return a < b ? a : b;
    case 8: return a < b ? 1.0f : 0.0f;
    case 9: return a == b ? 1.0f : 0.0f;
    case 10: return 2 * a;
    case 11: return 2 * b;
    case 12: return a * c;
    case 13: return b * c;
    case 14: return a * c + a;
    case 15: return b * c + b;
    case 16: return (float)(int)a;
    case 17: return (float)(i - 128);
    case 18: return x + b;
    case 19: return x * y;
    }
    return 0;
}

int main() {
    float *d;
    CHECK(cudaMalloc(&d, NV * NOUT * sizeof(float)));
    half_ops<<<1, NV>>>(d);
    CHECK_LAUNCH();
    static float h[NV * NOUT];
    CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
    for (int k = 0; k < NOUT; k++)
        for (int i = 0; i < NV; i++)
            if (h[i * NOUT + k] != expect(k, i)) {
                printf("FAILED: result %d, thread %d: got %.9g, expected %.9g\n", k, i, h[i * NOUT + k], expect(k, i));
                return 1;
            }
    printf("half add/sub/mul/fma/neg/abs/max/min/lt/eq: %d values ok\n", NV);
    printf("half2 add/mul/fma: %d pairs ok\n", NV);
    printf("half<->int conversions: ok\n");
    printf("bf16 add/mul: %d values ok\n", NV);

    bf16x2_ops<<<1, NV>>>(d);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(h, d, 2 * NV * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < NV; i++) {
        float lo = (i % 64) * 0.5f + 1.0f, hi = -(float)i + (float)(i % 8);
        if (h[2 * i] != lo) fail_mismatch_d("bf16x2 low", i, h[2 * i], lo);
        if (h[2 * i + 1] != hi) fail_mismatch_d("bf16x2 high", i, h[2 * i + 1], hi);
    }
    printf("bf16x2 add: %d pairs ok\n", NV);

    // rounding of float -> half / bf16, bit for bit
    const int n = 11;
    const float in[n] = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 65504.0f, 65520.0f, 0x1p-24f, 0x1p-25f,
                         3 * 0x1p-26f,    -0.0f,             0.1f,     65519.0f, 3.0e38f};
    const unsigned short want_h[n] = {0x3c00, 0x3c02, 0x7bff, 0x7c00, 0x0001, 0x0000,
                                      0x0001, 0x8000, 0x2e66, 0x7bff, 0x7c00};
    // bf16 keeps float's exponent range: only the significand is rounded
    const float in_b[n] = {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, 3.0e38f, 0.1f, -2.5f, 1.0f + 0x1p-8f + 0x1p-20f,
                           0x1p-133f,      -0.0f,              1.0f,    0.0f, 65504.0f};
    const unsigned short want_b[n] = {0x3f80, 0x3f82, 0x7f62, 0x3dcd, 0xc020, 0x3f81,
                                      0x0001, 0x8000, 0x3f80, 0x0000, 0x4780};
    float *din;
    unsigned short *dh, *db, hh[n], hb[n];
    CHECK(cudaMalloc(&din, n * sizeof(float)));
    CHECK(cudaMalloc(&dh, n * sizeof(unsigned short)));
    CHECK(cudaMalloc(&db, n * sizeof(unsigned short)));
    CHECK(cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice));
    rounding<<<1, 32>>>(din, dh, db, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hh, dh, sizeof(hh), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(din, in_b, sizeof(in_b), cudaMemcpyHostToDevice));
    rounding<<<1, 32>>>(din, dh, db, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hb, db, sizeof(hb), cudaMemcpyDeviceToHost));
    printf("float->half:");
    for (int i = 0; i < n; i++) printf(" %04x", hh[i]);
    printf("\nfloat->bf16:");
    for (int i = 0; i < n; i++) printf(" %04x", hb[i]);
    printf("\n");
    for (int i = 0; i < n; i++) {
        if (hh[i] != want_h[i]) fail_mismatch_ll("float->half bits", i, hh[i], want_h[i]);
        if (hb[i] != want_b[i]) fail_mismatch_ll("float->bf16 bits", i, hb[i], want_b[i]);
    }
    CHECK(cudaFree(d));
    CHECK(cudaFree(din));
    CHECK(cudaFree(dh));
    CHECK(cudaFree(db));
    printf("PASSED\n");
    return 0;
}
