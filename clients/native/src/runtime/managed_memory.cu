// managed_memory: cudaMallocManaged memory written by the host, updated by a kernel,
// read by the host after cudaDeviceSynchronize; a __managed__ global variable used by
// host and device; cudaMemAdvise and cudaMemPrefetchAsync (to the device and back to
// the host) must succeed and must not change the data.
#include "check.h"

__device__ __managed__ int managed_total = 0;

__global__ void triple_plus_one(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = x[i] * 3 + 1;
        atomicAdd(&managed_total, 1);
    }
}

int main() {
    const int n = 10000;
    int dev = 0;
    CHECK(cudaSetDevice(dev));
    int *x = nullptr;
    CHECK(cudaMallocManaged(&x, n * sizeof(int), cudaMemAttachGlobal));
    for (int i = 0; i < n; i++) x[i] = i - 5000;
    managed_total = 100;  // host write to a __managed__ variable before any launch
    printf("managed_memory: n=%d\n", n);

    cudaMemLocation on_device = {};
    on_device.type = cudaMemLocationTypeDevice;
    on_device.id = dev;
    cudaMemLocation on_host = {};
    on_host.type = cudaMemLocationTypeHost;
    on_host.id = 0;
    CHECK(cudaMemAdvise(x, n * sizeof(int), cudaMemAdviseSetPreferredLocation, on_device));
    CHECK(cudaMemAdvise(x, n * sizeof(int), cudaMemAdviseSetAccessedBy, on_device));
    CHECK(cudaMemPrefetchAsync(x, n * sizeof(int), on_device, 0, 0));
    printf("cudaMemAdvise/cudaMemPrefetchAsync to device: ok\n");

    triple_plus_one<<<(n + 255) / 256, 256>>>(x, n);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < n; i++) {
        int want = (i - 5000) * 3 + 1;
        if (x[i] != want) fail_mismatch_ll("x after kernel", i, x[i], want);
    }
    printf("host reads kernel results: ok\n");
    printf("managed_total=%d\n", managed_total);
    REQUIRE(managed_total == 100 + n);

    CHECK(cudaMemPrefetchAsync(x, n * sizeof(int), on_host, 0, 0));
    CHECK(cudaMemAdvise(x, n * sizeof(int), cudaMemAdviseSetReadMostly, on_device));
    CHECK(cudaDeviceSynchronize());
    long long sum = 0;
    for (int i = 0; i < n; i++) sum += x[i];
    printf("after prefetch to host: sum=%lld\n", sum);
    REQUIRE(sum == 3LL * (-5000LL * n + (long long)n * (n - 1) / 2) + n);
    CHECK(cudaMemAdvise(x, n * sizeof(int), cudaMemAdviseUnsetReadMostly, on_device));

    // second round: host modifies, kernel runs again
    for (int i = 0; i < n; i++) x[i] = 7;
    triple_plus_one<<<(n + 255) / 256, 256>>>(x, n);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < n; i++)
        if (x[i] != 22) fail_mismatch_ll("x after second kernel", i, x[i], 22);
    printf("second round: ok, managed_total=%d\n", managed_total);
    REQUIRE(managed_total == 100 + 2 * n);
    CHECK(cudaFree(x));
    printf("PASSED\n");
    return 0;
}
