// occupancy: cudaOccupancyMaxActiveBlocksPerMultiprocessor and
// cudaOccupancyMaxPotentialBlockSize for a plain kernel and for one with 16 KiB of
// static shared memory. Only plausibility is checked (the numbers depend on the
// device's register file and shared memory): results are > 0 and within the
// architectural limits; then the kernel is launched with the suggested block size.
#include "check.h"

__global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void smem_heavy(int *out, int n) {
    __shared__ int buf[4096];  // 16 KiB
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) buf[i] = i;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = buf[(i * 7) % 4096];
}

int main() {
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    int maxBlocksSM = 0;
    CHECK(cudaDeviceGetAttribute(&maxBlocksSM, cudaDevAttrMaxBlocksPerMultiprocessor, 0));
    REQUIRE(maxBlocksSM > 0);

    int nb = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, saxpy, 256, 0));
    bool ok1 = nb > 0 && nb <= p.maxThreadsPerMultiProcessor / 256 && nb <= maxBlocksSM;
    printf("saxpy, 256 threads: active blocks per SM plausible: %s\n", yesno(ok1));
    REQUIRE(ok1);
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, saxpy, 32, 0));
    bool ok2 = nb > 0 && nb <= maxBlocksSM;
    printf("saxpy, 32 threads: active blocks per SM plausible: %s\n", yesno(ok2));
    REQUIRE(ok2);
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, smem_heavy, 128, 0));
    bool ok3 = nb > 0 && (size_t)nb * 16384 <= p.sharedMemPerMultiprocessor && nb <= maxBlocksSM;
    printf("smem_heavy, 128 threads: active blocks per SM plausible: %s\n", yesno(ok3));
    REQUIRE(ok3);

    int minGrid = 0, blockSize = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &blockSize, saxpy, 0, 0));
    bool ok4 = blockSize >= 32 && blockSize <= 1024 && blockSize % 32 == 0 && minGrid > 0;
    printf("cudaOccupancyMaxPotentialBlockSize(saxpy) plausible: %s\n", yesno(ok4));
    REQUIRE(ok4);

    const int n = 20000;
    float *x, *y;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    float *h = new float[n];
    for (int i = 0; i < n; i++) h[i] = (float)i;
    CHECK(cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice));
    for (int i = 0; i < n; i++) h[i] = 1.0f;
    CHECK(cudaMemcpy(y, h, n * sizeof(float), cudaMemcpyHostToDevice));
    saxpy<<<(n + blockSize - 1) / blockSize, blockSize>>>(2.0f, x, y, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(h, y, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        if (h[i] != 2.0f * i + 1.0f) fail_mismatch_d("saxpy", i, h[i], 2.0 * i + 1.0);
    printf("saxpy with the suggested block size: ok\n");

    int bs2 = 0, mg2 = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&mg2, &bs2, smem_heavy, 0, 0));
    REQUIRE(bs2 >= 32 && bs2 <= 1024 && mg2 > 0);
    int *out;
    CHECK(cudaMalloc(&out, n * sizeof(int)));
    const int n2 = 4096;  // each block fills all 16 KiB first: keep the grid small
    smem_heavy<<<(n2 + bs2 - 1) / bs2, bs2>>>(out, n2);
    CHECK_LAUNCH();
    int *ho = new int[n2];
    CHECK(cudaMemcpy(ho, out, n2 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n2; i++)
        if (ho[i] != (i * 7) % 4096) fail_mismatch_ll("smem_heavy", i, ho[i], (i * 7) % 4096);
    printf("smem_heavy with the suggested block size: ok\n");
    delete[] h;
    delete[] ho;
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(out));
    printf("PASSED\n");
    return 0;
}
