// dynamic_smem: extern __shared__ arrays sized at launch.
//  * 32 KiB of dynamic shared memory works without any attribute;
//  * 64 KiB fails with cudaErrorInvalidValue (not sticky) until
//    cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize, 65536);
//  * after it, the 64 KiB launch works and cudaFuncGetAttributes reports 65536.
#include "check.h"
#include <vector>

// Reverses n ints within one block through shared memory.
__global__ void reverse_dyn(int *d, int n) {
    extern __shared__ int s[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = d[i];
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) d[i] = s[n - 1 - i];
}

static bool run(int n, int *dev, cudaError_t *launch_err) {
    std::vector<int> h(n);
    for (int i = 0; i < n; i++) h[i] = i * 3 + 1;
    CHECK(cudaMemcpy(dev, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    reverse_dyn<<<1, 1024, n * sizeof(int)>>>(dev, n);
    *launch_err = cudaGetLastError();
    if (*launch_err != cudaSuccess) return false;
    CHECK(cudaMemcpy(h.data(), dev, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        int want = (n - 1 - i) * 3 + 1;
        if (h[i] != want) fail_mismatch_ll("reversed", i, h[i], want);
    }
    return true;
}

int main() {
    int optin = 0;
    CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    printf("opt-in shared memory per block>=65536: %s\n", yesno(optin >= 65536));
    REQUIRE(optin >= 65536);
    int *dev;
    CHECK(cudaMalloc(&dev, 65536));
    cudaError_t e;

    bool ok = run(8192, dev, &e);  // 32 KiB
    printf("32 KiB dynamic shared memory, no attribute: %s\n", ok ? "ok" : cudaGetErrorName(e));
    REQUIRE(ok);

    ok = run(16384, dev, &e);  // 64 KiB, no opt-in yet
    printf("64 KiB dynamic shared memory, no attribute: %s\n", ok ? "ok" : cudaGetErrorName(e));
    REQUIRE(!ok && e == cudaErrorInvalidValue);
    CHECK(cudaGetLastError());  // not sticky
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaFuncSetAttribute(reverse_dyn, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, reverse_dyn));
    printf("maxDynamicSharedSizeBytes after cudaFuncSetAttribute: %d\n", fa.maxDynamicSharedSizeBytes);
    REQUIRE(fa.maxDynamicSharedSizeBytes == 65536);

    ok = run(16384, dev, &e);
    printf("64 KiB dynamic shared memory, after cudaFuncSetAttribute: %s\n", ok ? "ok" : cudaGetErrorName(e));
    REQUIRE(ok);
    CHECK(cudaFree(dev));
    printf("PASSED\n");
    return 0;
}
