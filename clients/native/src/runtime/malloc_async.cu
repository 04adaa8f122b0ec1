// malloc_async: stream-ordered allocation. cudaMallocAsync/cudaFreeAsync on a stream,
// cudaDeviceGetDefaultMemPool, cudaMemPoolSetAttribute/GetAttribute of the release
// threshold, cudaMallocFromPoolAsync, cudaMemPoolTrimTo; kernels use the memory
// between allocation and free on the same stream.
#include "check.h"
#include <cstdint>

__global__ void iota(int *x, int n, int base) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = base + i;
}

__global__ void add_arrays(const int *a, const int *b, int *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    const int n = 8192;
    int supported = 0;
    CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
    printf("cudaDevAttrMemoryPoolsSupported: %d\n", supported);
    REQUIRE(supported == 1);

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    uint64_t threshold = UINT64_MAX;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    uint64_t readback = 0;
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &readback));
    printf("release threshold reads back: %s\n", yesno(readback == UINT64_MAX));
    REQUIRE(readback == UINT64_MAX);

    int *h;
    CHECK(cudaMallocHost(&h, n * sizeof(int)));
    for (int round = 0; round < 3; round++) {
        int *a = nullptr, *b = nullptr, *c = nullptr;
        CHECK(cudaMallocAsync(&a, n * sizeof(int), s));
        CHECK(cudaMallocAsync(&b, n * sizeof(int), s));
        CHECK(cudaMallocFromPoolAsync(&c, n * sizeof(int), pool, s));
        iota<<<n / 256, 256, 0, s>>>(a, n, 1000 * round);
        CHECK_LAUNCH();
        iota<<<n / 256, 256, 0, s>>>(b, n, 7);
        CHECK_LAUNCH();
        add_arrays<<<n / 256, 256, 0, s>>>(a, b, c, n);
        CHECK_LAUNCH();
        CHECK(cudaFreeAsync(a, s));
        CHECK(cudaFreeAsync(b, s));
        CHECK(cudaMemcpyAsync(h, c, n * sizeof(int), cudaMemcpyDeviceToHost, s));
        CHECK(cudaFreeAsync(c, s));
        CHECK(cudaStreamSynchronize(s));
        for (int i = 0; i < n; i++) {
            int want = 1000 * round + 7 + 2 * i;
            if (h[i] != want) fail_mismatch_ll("c", i, h[i], want);
        }
        printf("round %d: cudaMallocAsync x2 + cudaMallocFromPoolAsync + kernels + cudaFreeAsync: ok\n", round);
    }
    CHECK(cudaMemPoolTrimTo(pool, 0));
    threshold = 0;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    // stream-ordered allocation is also usable from the legacy default stream
    int *z = nullptr;
    CHECK(cudaMallocAsync(&z, 1024, 0));
    CHECK(cudaMemsetAsync(z, 0x7f, 1024, 0));
    unsigned char back[1024];
    CHECK(cudaMemcpy(back, z, 1024, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 1024; i++)
        if (back[i] != 0x7f) fail_mismatch_ll("memset", i, back[i], 0x7f);
    CHECK(cudaFreeAsync(z, 0));
    CHECK(cudaDeviceSynchronize());
    printf("default-stream cudaMallocAsync + cudaMemsetAsync: ok\n");
    CHECK(cudaFreeHost(h));
    CHECK(cudaStreamDestroy(s));
    printf("PASSED\n");
    return 0;
}
