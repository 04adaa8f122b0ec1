// Mipmapped textures through the runtime: cudaMallocMipmappedArray (16x16 floats, 5 levels:
// 16, 8, 4, 2, 1), each level filled through cudaGetMipmappedArrayLevel +
// cudaMemcpy2DToArray, then sampled by tex2DLod, tex2DGrad and tex2D with point filtering
// inside a level, normalized coordinates and clamp, under linear mipmap filtering and under
// point mipmap filtering with a bias and clamps. The expected values follow ptxvm's
// documented level-of-detail rule (docs/textures.md, "Mipmaps"), written independently here:
// LOD + bias, clamped to [min, max] and to the levels, held with 8 fractional bits
// q = floor(LOD * 256 + 0.5); point: level (q + 127) >> 8; linear: levels q >> 8 and the next
// blended with weights (256 - k)/256 and k/256, k = q & 255; tex2DGrad's LOD is
// log2(max(|dPdx * 16|, |dPdy * 16|)). The texel values (1000 * level + 16y + x) keep every
// blend exact in f32. The number of levels is clamped to floor(log2(16)) + 1 = 5 (cuda.h).
#include "check.h"
#include <cmath>
#include <cstring>

__global__ void sample(cudaTextureObject_t t, const float* in, float* out, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    float u = in[5 * i], v = in[5 * i + 1], lod = in[5 * i + 2], dx = in[5 * i + 3], dy = in[5 * i + 4];
    out[3 * i] = tex2DLod<float>(t, u, v, lod);
    out[3 * i + 1] = tex2DGrad<float>(t, u, v, make_float2(dx, 0.0f), make_float2(0.0f, dy));
    out[3 * i + 2] = tex2D<float>(t, u, v);
}

static const int N0 = 16, LEVELS = 5, CASES = 48;

static float texel(int level, float u, float v) {  // point, normalized, clamp
    int n = N0 >> level;
    int x = (int)floorf(u * (float)n), y = (int)floorf(v * (float)n);
    x = x < 0 ? 0 : (x >= n ? n - 1 : x);
    y = y < 0 ? 0 : (y >= n ? n - 1 : y);
    return (float)(1000 * level + 16 * y + x);
}

struct Mip {
    bool linear;
    float bias, lo, hi;
};

static float lookup(const Mip& m, float u, float v, float lod) {
    float l = lod + m.bias;
    if (std::isnan(l)) l = m.lo;
    l = fminf(fmaxf(l, m.lo), m.hi);
    l = fminf(fmaxf(l, 0.0f), (float)(LEVELS - 1));
    unsigned q = (unsigned)floor((double)l * 256.0 + 0.5);
    if (!m.linear) {
        unsigned lv = (q + 127) >> 8;
        return texel(lv > LEVELS - 1 ? LEVELS - 1 : lv, u, v);
    }
    unsigned lv = q >> 8, k = q & 255;
    if (lv >= LEVELS - 1 || k == 0) return texel(lv >= LEVELS - 1 ? LEVELS - 1 : lv, u, v);
    float wa = (256 - k) / 256.0f, wb = k / 256.0f;
    return wa * texel(lv, u, v) + wb * texel(lv + 1, u, v);
}

static float grad_lod(float dx, float dy) {
    double a = fabs((double)dx * N0), b = fabs((double)dy * N0);
    return (float)log2(a > b ? a : b);
}

int main() {
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaMipmappedArray_t mip;
    CHECK(cudaMallocMipmappedArray(&mip, &fd, make_cudaExtent(N0, N0, 0), 9));
    for (int l = 0; l < LEVELS; l++) {
        cudaArray_t a;
        CHECK(cudaGetMipmappedArrayLevel(&a, mip, l));
        int n = N0 >> l;
        float host[N0 * N0];
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) host[y * n + x] = (float)(1000 * l + 16 * y + x);
        CHECK(cudaMemcpy2DToArray(a, 0, 0, host, n * sizeof(float), n * sizeof(float), n,
                                  cudaMemcpyHostToDevice));
    }
    cudaArray_t past;
    EXPECT_ERR(cudaGetMipmappedArrayLevel(&past, mip, LEVELS), cudaErrorInvalidValue);
    REQUIRE(cudaGetLastError() == cudaErrorInvalidValue);  // reported once, then cleared
    printf("levels: %d (16x16 down to 1x1)\n", LEVELS);

    float in[5 * CASES], out[3 * CASES];
    for (int i = 0; i < CASES; i++) {
        in[5 * i] = (float)((i * 37) % 64) / 64.0f + 1.0f / 128.0f;
        in[5 * i + 1] = (float)((i * 23) % 64) / 64.0f + 1.0f / 256.0f;
        in[5 * i + 2] = -0.75f + (float)i * 0.1171875f;  // -0.75 .. 4.76, steps of 30/256
        in[5 * i + 3] = ldexpf(1.0f + (float)(i % 7) / 7.0f, i % 6 - 5);
        in[5 * i + 4] = ldexpf(1.0f + (float)(i % 5) / 5.0f, (i * 3) % 6 - 5);
    }
    float *din, *dout;
    CHECK(cudaMalloc(&din, sizeof(in)));
    CHECK(cudaMalloc(&dout, sizeof(out)));
    CHECK(cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice));

    const Mip modes[2] = {{true, 0.0f, 0.0f, (float)(LEVELS - 1)}, {false, 0.5f, 1.0f, 3.0f}};
    const char* names[2] = {"linear mipmap filter", "point mipmap filter, bias 0.5, clamp [1, 3]"};
    for (int m = 0; m < 2; m++) {
        cudaResourceDesc rd = {};
        rd.resType = cudaResourceTypeMipmappedArray;
        rd.res.mipmap.mipmap = mip;
        cudaTextureDesc td = {};
        td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
        td.filterMode = cudaFilterModePoint;
        td.readMode = cudaReadModeElementType;
        td.normalizedCoords = 1;
        td.mipmapFilterMode = modes[m].linear ? cudaFilterModeLinear : cudaFilterModePoint;
        td.mipmapLevelBias = modes[m].bias;
        td.minMipmapLevelClamp = modes[m].lo;
        td.maxMipmapLevelClamp = modes[m].hi;
        cudaTextureObject_t tex;
        CHECK(cudaCreateTextureObject(&tex, &rd, &td, nullptr));
        cudaTextureDesc back;
        CHECK(cudaGetTextureObjectTextureDesc(&back, tex));
        REQUIRE(back.mipmapFilterMode == td.mipmapFilterMode && back.mipmapLevelBias == td.mipmapLevelBias &&
                back.minMipmapLevelClamp == td.minMipmapLevelClamp &&
                back.maxMipmapLevelClamp == td.maxMipmapLevelClamp);
        cudaResourceDesc rback;
        CHECK(cudaGetTextureObjectResourceDesc(&rback, tex));
        REQUIRE(rback.resType == cudaResourceTypeMipmappedArray && rback.res.mipmap.mipmap == mip);
        sample<<<1, 64>>>(tex, din, dout, CASES);
        CHECK_LAUNCH();
        CHECK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
        int ok = 0;
        for (int i = 0; i < CASES; i++) {
            float u = in[5 * i], v = in[5 * i + 1];
            float want[3] = {lookup(modes[m], u, v, in[5 * i + 2]),
                             lookup(modes[m], u, v, grad_lod(in[5 * i + 3], in[5 * i + 4])),
                             texel(0, u, v)};
            for (int k = 0; k < 3; k++) {
                if (memcmp(&want[k], &out[3 * i + k], 4) != 0) {
                    printf("FAILED: %s, %s, case %d: got %a, expected %a\n", names[m],
                           k == 0 ? "tex2DLod" : (k == 1 ? "tex2DGrad" : "tex2D"), i, out[3 * i + k], want[k]);
                    return 1;
                }
                ok++;
            }
        }
        printf("%s: %d/%d exact (tex2DLod, tex2DGrad, tex2D)\n", names[m], ok, 3 * CASES);
        CHECK(cudaDestroyTextureObject(tex));
    }
    CHECK(cudaFreeMipmappedArray(mip));
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    printf("PASSED\n");
    return 0;
}
