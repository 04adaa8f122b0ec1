// assert_fail: a device assert() that fails in exactly one thread. The launch itself
// succeeds; the next synchronization returns cudaErrorAssert, and the error is sticky:
// every later call that touches the context returns it too. (The driver prints the
// assertion diagnostic, naming the kernel, on stderr.)
#include "check.h"
#include <cassert>

__global__ void check_positive(const int *data, int n, int *checked) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(data[i] > 0);
        atomicAdd(checked, 1);
    }
}

int main() {
    const int n = 1000;
    int h[n];
    for (int i = 0; i < n; i++) h[i] = i + 1;
    int *d, *checked;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    CHECK(cudaMalloc(&checked, sizeof(int)));
    CHECK(cudaMemset(checked, 0, sizeof(int)));
    CHECK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));

    // 1. all values positive: the assertion holds everywhere
    check_positive<<<(n + 127) / 128, 128>>>(d, n, checked);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    int count = 0;
    CHECK(cudaMemcpy(&count, checked, sizeof(int), cudaMemcpyDeviceToHost));
    printf("passing launch: %d values checked\n", count);
    REQUIRE(count == n);

    // 2. one zero at index 777: exactly one thread fails its assertion
    h[777] = 0;
    CHECK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
    check_positive<<<(n + 127) / 128, 128>>>(d, n, checked);
    cudaError_t launch = cudaGetLastError();
    printf("failing launch accepted: %s\n", cudaGetErrorName(launch));
    REQUIRE(launch == cudaSuccess);
    cudaError_t sync = cudaDeviceSynchronize();
    printf("cudaDeviceSynchronize: %s\n", cudaGetErrorName(sync));
    REQUIRE(sync == cudaErrorAssert);

    // 3. sticky: the context is unusable from now on
    void *p = nullptr;
    cudaError_t e1 = cudaMalloc(&p, 256);
    printf("cudaMalloc after assert: %s\n", cudaGetErrorName(e1));
    cudaError_t e2 = cudaMemcpy(&count, checked, sizeof(int), cudaMemcpyDeviceToHost);
    printf("cudaMemcpy after assert: %s\n", cudaGetErrorName(e2));
    check_positive<<<1, 32>>>(d, 32, checked);
    cudaError_t e3 = cudaGetLastError();
    printf("launch after assert: %s\n", cudaGetErrorName(e3));
    cudaError_t e4 = cudaDeviceSynchronize();
    printf("cudaDeviceSynchronize again: %s\n", cudaGetErrorName(e4));
    cudaError_t e5 = cudaGetLastError();
    printf("cudaGetLastError: %s\n", cudaGetErrorName(e5));
    REQUIRE(e1 == cudaErrorAssert && e2 == cudaErrorAssert && e3 == cudaErrorAssert && e4 == cudaErrorAssert &&
            e5 == cudaErrorAssert);
    printf("PASSED\n");
    return 0;
}
