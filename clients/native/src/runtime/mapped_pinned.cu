// mapped_pinned: zero-copy host memory. cudaHostAlloc(cudaHostAllocMapped) +
// cudaHostGetDevicePointer + cudaHostGetFlags, a kernel writing through the device
// pointer; cudaHostRegister(cudaHostRegisterMapped) of a malloc'd buffer, a kernel
// updating it in place through its device pointer, cudaHostUnregister.
#include "check.h"
#include <cstdlib>

__global__ void squares(int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i * i;
}

__global__ void add_index(long long *buf, int n, long long k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) buf[i] += k * i;
}

int main() {
    const int n = 5000;
    CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));

    // 1. cudaHostAlloc, mapped
    int *h = nullptr, *d = nullptr;
    CHECK(cudaHostAlloc(&h, n * sizeof(int), cudaHostAllocMapped));
    for (int i = 0; i < n; i++) h[i] = -1;
    unsigned int flags = 0;
    CHECK(cudaHostGetFlags(&flags, h));
    printf("cudaHostGetFlags has cudaHostAllocMapped: %s\n", yesno(flags & cudaHostAllocMapped));
    REQUIRE(flags & cudaHostAllocMapped);
    CHECK(cudaHostGetDevicePointer((void **)&d, h, 0));
    REQUIRE(d != nullptr);
    squares<<<(n + 127) / 128, 128>>>(d, n);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < n; i++)
        if (h[i] != i * i) fail_mismatch_ll("mapped cudaHostAlloc buffer", i, h[i], (long long)i * i);
    printf("kernel wrote cudaHostAlloc'd memory through its device pointer: ok\n");
    CHECK(cudaFreeHost(h));

    // 2. cudaHostRegister of ordinary malloc'd memory
    const int m = 3000;
    long long *buf = (long long *)malloc(m * sizeof(long long));
    REQUIRE(buf != nullptr);
    for (int i = 0; i < m; i++) buf[i] = 1000000LL * i;
    CHECK(cudaHostRegister(buf, m * sizeof(long long), cudaHostRegisterMapped));
    long long *dbuf = nullptr;
    CHECK(cudaHostGetDevicePointer((void **)&dbuf, buf, 0));
    REQUIRE(dbuf != nullptr);
    add_index<<<(m + 127) / 128, 128>>>(dbuf, m, 3);
    CHECK_LAUNCH();
    add_index<<<(m + 127) / 128, 128>>>(dbuf, m, 4);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < m; i++) {
        long long want = 1000000LL * i + 7LL * i;
        if (buf[i] != want) fail_mismatch_ll("registered buffer", i, buf[i], want);
    }
    printf("kernels updated cudaHostRegister'd memory in place: ok\n");
    // cudaMemcpy between registered host memory and device memory also works
    long long *dev = nullptr;
    CHECK(cudaMalloc(&dev, m * sizeof(long long)));
    CHECK(cudaMemcpy(dev, buf, m * sizeof(long long), cudaMemcpyHostToDevice));
    add_index<<<(m + 127) / 128, 128>>>(dev, m, -7);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(buf, dev, m * sizeof(long long), cudaMemcpyDeviceToHost));
    for (int i = 0; i < m; i++)
        if (buf[i] != 1000000LL * i) fail_mismatch_ll("copy back", i, buf[i], 1000000LL * i);
    printf("cudaMemcpy to and from registered memory: ok\n");
    CHECK(cudaHostUnregister(buf));
    printf("cudaHostUnregister: ok\n");
    buf[0] = 42;  // still ordinary host memory
    free(buf);
    CHECK(cudaFree(dev));
    printf("PASSED\n");
    return 0;
}
