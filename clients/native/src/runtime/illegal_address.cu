// illegal_address: one thread of one block stores far outside any allocation (1 TiB
// past a 4 KiB buffer); every other thread stores in bounds. The launch is accepted;
// the next synchronization returns cudaErrorIllegalAddress, and the error is sticky.
// (The driver prints a diagnostic naming the kernel on stderr.)
#include "check.h"

__global__ void oob_store(int *buf, int n, long long bad_index) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) buf[i] = i;
    if (blockIdx.x == 1 && threadIdx.x == 3) buf[bad_index] = 12345;
}

int main() {
    const int n = 1024;
    int *d;
    CHECK(cudaMalloc(&d, (n + 1) * sizeof(int)));

    // a good launch first: bad_index = n, the spare last element
    oob_store<<<n / 256, 256>>>(d, n, n);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    int h[n + 1];
    CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
    for (int i = 0; i <= n; i++) {
        int want = i == n ? 12345 : i;
        if (h[i] != want) fail_mismatch_ll("in-bounds launch", i, h[i], want);
    }
    printf("in-bounds launch: ok\n");

    const long long bad = (1LL << 40) / (long long)sizeof(int);
    oob_store<<<n / 256, 256>>>(d, n, bad);
    cudaError_t launch = cudaGetLastError();
    printf("faulting launch accepted: %s\n", cudaGetErrorName(launch));
    REQUIRE(launch == cudaSuccess);
    cudaError_t sync = cudaDeviceSynchronize();
    printf("cudaDeviceSynchronize: %s\n", cudaGetErrorName(sync));
    REQUIRE(sync == cudaErrorIllegalAddress);

    void *p = nullptr;
    cudaError_t e1 = cudaMalloc(&p, 256);
    printf("cudaMalloc after fault: %s\n", cudaGetErrorName(e1));
    cudaError_t e2 = cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
    printf("cudaMemcpy after fault: %s\n", cudaGetErrorName(e2));
    oob_store<<<1, 32>>>(d, 32, n);
    cudaError_t e3 = cudaGetLastError();
    printf("launch after fault: %s\n", cudaGetErrorName(e3));
    cudaError_t e4 = cudaDeviceSynchronize();
    printf("cudaDeviceSynchronize again: %s\n", cudaGetErrorName(e4));
    REQUIRE(e1 == cudaErrorIllegalAddress && e2 == cudaErrorIllegalAddress && e3 == cudaErrorIllegalAddress &&
            e4 == cudaErrorIllegalAddress);
    printf("PASSED\n");
    return 0;
}
