// Texture and surface objects through the runtime: a cudaArray filled with
// cudaMemcpy2DToArray, sampled by tex2D<float> with linear filtering (clamp, unnormalized) and
// with point sampling and normalized wrap coordinates; tex1Dfetch on linear memory; a surface
// array written with surf2Dwrite and read back with cudaMemcpy2DFromArray. The expected
// values are computed on the host by the CUDA Programming Guide's formula (9-bit fixed-point
// weights), written independently here; every result is compared exactly.
#include "check.h"
#include <cmath>
#include <cstring>

__global__ void sample(cudaTextureObject_t t, float* out, int w, int h) {
    int x = threadIdx.x, y = threadIdx.y;
    if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x * 0.7f - 0.3f, y * 0.55f + 0.1f);
}

__global__ void fetch(cudaTextureObject_t t, int* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int>(t, n - 1 - i);
}

__global__ void write_surface(cudaSurfaceObject_t s, int w, int h) {
    int x = threadIdx.x, y = threadIdx.y;
    if (x < w && y < h) surf2Dwrite((float)(100 * y + x), s, x * (int)sizeof(float), y);
}

// The kernel's coordinates: nvcc contracts `x * 0.7f - 0.3f` into one fma.rn.f32.
static float cx(int x) { return fmaf((float)x, 0.7f, -0.3f); }
static float cy(int y) { return fmaf((float)y, 0.55f, 0.1f); }

static const int TW = 5, TH = 4;
static float texels[TH][TW];

static float texel(int i, int j) {  // clamp addressing
    i = i < 0 ? 0 : (i >= TW ? TW - 1 : i);
    j = j < 0 ? 0 : (j >= TH ? TH - 1 : j);
    return texels[j][i];
}

// One axis of linear filtering: the lower index and the weight k/256 of the upper one.
static void axis(float u, int* i, int* k) {
    float ub = u - 0.5f;
    float fl = floorf(ub);
    *i = (int)fl;
    *k = (int)floor((double)(ub - fl) * 256.0 + 0.5);
}

static float linear(float u, float v) {
    int i, j, a, b;
    axis(u, &i, &a);
    axis(v, &j, &b);
    float wa[2] = {(256 - a) / 256.0f, a / 256.0f}, wb[2] = {(256 - b) / 256.0f, b / 256.0f};
    float acc = 0.0f;
    int first = 1;
    for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {
            float term = (wa[dx] * wb[dy]) * texel(i + dx, j + dy);
            acc = first ? term : acc + term;
            first = 0;
        }
    return acc;
}

int main() {
    for (int j = 0; j < TH; j++)
        for (int i = 0; i < TW; i++) texels[j][i] = (float)((i * 7 + j * 13) % 17) - 8.0f;
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &fd, TW, TH));
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, texels, TW * sizeof(float), TW * sizeof(float), TH,
                              cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = arr;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex;
    CHECK(cudaCreateTextureObject(&tex, &rd, &td, nullptr));
    const int W = 9, H = 8;
    float* dout;
    CHECK(cudaMalloc(&dout, W * H * sizeof(float)));
    sample<<<1, dim3(W, H)>>>(tex, dout, W, H);
    CHECK_LAUNCH();
    float out[H][W];
    CHECK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
    int ok = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float e = linear(cx(x), cy(y));
            if (memcmp(&e, &out[y][x], 4) != 0) {
                printf("FAILED: tex2D linear at (%d, %d): got %a, expected %a\n", x, y, out[y][x], e);
                return 1;
            }
            ok++;
        }
    printf("tex2D linear clamp: %d/%d exact\n", ok, W * H);
    CHECK(cudaDestroyTextureObject(tex));

    // Point sampling, normalized coordinates, wrap.
    td.filterMode = cudaFilterModePoint;
    td.normalizedCoords = 1;
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeWrap;
    CHECK(cudaCreateTextureObject(&tex, &rd, &td, nullptr));
    sample<<<1, dim3(W, H)>>>(tex, dout, W, H);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
    ok = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float u = cx(x) * TW, v = cy(y) * TH;
            int i = ((int)floorf(u) % TW + TW) % TW, j = ((int)floorf(v) % TH + TH) % TH;
            REQUIRE(out[y][x] == texels[j][i]);
            ok++;
        }
    printf("tex2D point wrap normalized: %d/%d exact\n", ok, W * H);
    CHECK(cudaDestroyTextureObject(tex));

    // tex1Dfetch of linear memory.
    const int N = 37;
    int hin[N], hout[N];
    for (int i = 0; i < N; i++) hin[i] = i * i - 100;
    int *din, *dfo;
    CHECK(cudaMalloc(&din, sizeof(hin)));
    CHECK(cudaMalloc(&dfo, sizeof(hout)));
    CHECK(cudaMemcpy(din, hin, sizeof(hin), cudaMemcpyHostToDevice));
    cudaResourceDesc lr = {};
    lr.resType = cudaResourceTypeLinear;
    lr.res.linear.devPtr = din;
    lr.res.linear.desc = cudaCreateChannelDesc<int>();
    lr.res.linear.sizeInBytes = sizeof(hin);
    cudaTextureDesc ld = {};
    ld.readMode = cudaReadModeElementType;
    CHECK(cudaCreateTextureObject(&tex, &lr, &ld, nullptr));
    fetch<<<1, 64>>>(tex, dfo, N);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hout, dfo, sizeof(hout), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) REQUIRE(hout[i] == hin[N - 1 - i]);
    printf("tex1Dfetch: %d/%d exact\n", N, N);
    CHECK(cudaDestroyTextureObject(tex));

    // A surface array written by a kernel, read back with cudaMemcpy2DFromArray.
    cudaArray_t sarr;
    CHECK(cudaMallocArray(&sarr, &fd, W, H, cudaArraySurfaceLoadStore));
    cudaResourceDesc sr = {};
    sr.resType = cudaResourceTypeArray;
    sr.res.array.array = sarr;
    cudaSurfaceObject_t surf;
    CHECK(cudaCreateSurfaceObject(&surf, &sr));
    write_surface<<<1, dim3(W, H)>>>(surf, W, H);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy2DFromArray(out, W * sizeof(float), sarr, 0, 0, W * sizeof(float), H,
                                cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) REQUIRE(out[y][x] == (float)(100 * y + x));
    printf("surf2Dwrite: %d/%d exact\n", W * H, W * H);
    CHECK(cudaDestroySurfaceObject(surf));
    CHECK(cudaFreeArray(sarr));
    CHECK(cudaFreeArray(arr));
    CHECK(cudaFree(dout));
    CHECK(cudaFree(din));
    CHECK(cudaFree(dfo));
    printf("PASSED\n");
    return 0;
}
