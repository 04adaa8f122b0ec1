// errors: runtime error reporting for invalid calls, none of them sticky.
//  cudaFree of a pointer that was never allocated, a launch with 2048 threads per block,
//  cudaMemcpy with an invalid kind, cudaSetDevice(5), cudaMalloc of 1 PiB;
//  cudaGetLastError returns a launch error once and then cudaSuccess;
//  cudaGetErrorName/cudaGetErrorString for each; then a valid kernel still works.
#include "check.h"
#include <cstring>

__global__ void inc(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

static void report(const char *what, cudaError_t got, cudaError_t want) {
    const char *s = cudaGetErrorString(got);
    printf("%s: %s (string non-empty: %s)\n", what, cudaGetErrorName(got), yesno(s && strlen(s) > 0));
    if (got != want) {
        printf("FAILED: %s: expected %s\n", what, cudaGetErrorName(want));
        exit(1);
    }
}

int main() {
    int *d;
    CHECK(cudaMalloc(&d, 1024 * sizeof(int)));
    CHECK(cudaMemset(d, 0, 1024 * sizeof(int)));

    report("cudaFree(bogus pointer)", cudaFree((void *)0x1234560), cudaErrorInvalidValue);
    (void)cudaGetLastError();

    inc<<<1, 2048>>>(d, 1024);
    // On a GPU the runtime reports cudaErrorInvalidConfiguration here. ptxvm's driver answers
    // CUDA_ERROR_INVALID_VALUE (what cuda.h documents and driver-API clients expect), which
    // NVIDIA's runtime passes on as cudaErrorInvalidValue.
    report("launch with 2048 threads per block", cudaGetLastError(), cudaErrorInvalidValue);
    report("cudaGetLastError again", cudaGetLastError(), cudaSuccess);

    inc<<<dim3(1, 1, 1), dim3(32, 32, 2)>>>(d, 1024);
    report("launch with block (32,32,2)", cudaGetLastError(), cudaErrorInvalidValue);

    int h[4] = {0, 0, 0, 0};
    report("cudaMemcpy with kind 7", cudaMemcpy(h, d, sizeof(h), (cudaMemcpyKind)7), cudaErrorInvalidMemcpyDirection);
    (void)cudaGetLastError();

    report("cudaSetDevice(5)", cudaSetDevice(5), cudaErrorInvalidDevice);
    (void)cudaGetLastError();

    void *huge = nullptr;
    report("cudaMalloc(1 PiB)", cudaMalloc(&huge, (size_t)1 << 50), cudaErrorMemoryAllocation);
    (void)cudaGetLastError();

    report("cudaGetErrorName of a success", cudaSuccess, cudaSuccess);

    // the context is still healthy
    int dev = -1;
    CHECK(cudaGetDevice(&dev));
    printf("current device still %d\n", dev);
    REQUIRE(dev == 0);
    inc<<<4, 256>>>(d, 1024);
    CHECK_LAUNCH();
    inc<<<8, 128>>>(d, 1024);
    CHECK_LAUNCH();
    int back[1024];
    CHECK(cudaMemcpy(back, d, sizeof(back), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 1024; i++)
        if (back[i] != 2) fail_mismatch_ll("inc", i, back[i], 2);
    printf("valid kernel after the errors: ok\n");
    CHECK(cudaFree(d));
    printf("PASSED\n");
    return 0;
}
