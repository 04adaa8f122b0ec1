// func_attributes: cudaFuncGetAttributes for
//  * a kernel with a 4 KiB static __shared__ array: sharedSizeBytes == 4096;
//  * a kernel with a large, dynamically indexed local array: localSizeBytes > 0
//    (>= 1024 bytes, the array's size);
//  * a __launch_bounds__(256) kernel: maxThreadsPerBlock == 256;
//  * a plain kernel: maxThreadsPerBlock == 1024, numRegs >= 0, ptxVersion == 80.
// Every kernel is launched once and its result checked.
#include "check.h"

__global__ void static_smem(float *out) {
    __shared__ float tile[1024];  // 4096 bytes
    tile[threadIdx.x] = (float)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = tile[1023 - threadIdx.x];
}

__global__ void big_local(const int *idx, int *out, int n) {
    int buf[256];  // 1 KiB of local memory: indexed by run-time values below
    for (int i = 0; i < 256; i++) buf[i] = i * i;
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) out[t] = buf[idx[t] & 255] + buf[(idx[t] * 7) & 255];
}

__global__ void __launch_bounds__(256) bounded(int *out) { out[threadIdx.x] = threadIdx.x * 2; }

__global__ void plain(int *out) { out[threadIdx.x] = threadIdx.x + 1; }

int main() {
    cudaFuncAttributes a;

    CHECK(cudaFuncGetAttributes(&a, static_smem));
    printf("static_smem: sharedSizeBytes=%zu numRegs>=0: %s\n", a.sharedSizeBytes, yesno(a.numRegs >= 0));
    REQUIRE(a.sharedSizeBytes == 4096 && a.numRegs >= 0);

    CHECK(cudaFuncGetAttributes(&a, big_local));
    printf("big_local: localSizeBytes>=1024: %s\n", yesno(a.localSizeBytes >= 1024));
    REQUIRE(a.localSizeBytes >= 1024);

    CHECK(cudaFuncGetAttributes(&a, bounded));
    printf("bounded: maxThreadsPerBlock=%d\n", a.maxThreadsPerBlock);
    REQUIRE(a.maxThreadsPerBlock == 256);

    CHECK(cudaFuncGetAttributes(&a, plain));
    printf("plain: maxThreadsPerBlock=%d sharedSizeBytes=%zu localSizeBytes=%zu ptxVersion=%d\n",
           a.maxThreadsPerBlock, a.sharedSizeBytes, a.localSizeBytes, a.ptxVersion);
    REQUIRE(a.maxThreadsPerBlock == 1024 && a.sharedSizeBytes == 0 && a.localSizeBytes == 0 && a.ptxVersion == 80);

    // and every kernel runs
    float *f;
    int *o, *idx;
    CHECK(cudaMalloc(&f, 1024 * sizeof(float)));
    CHECK(cudaMalloc(&o, 1024 * sizeof(int)));
    CHECK(cudaMalloc(&idx, 1024 * sizeof(int)));
    static_smem<<<1, 1024>>>(f);
    CHECK_LAUNCH();
    float hf[1024];
    CHECK(cudaMemcpy(hf, f, sizeof(hf), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 1024; i++)
        if (hf[i] != (float)(1023 - i)) fail_mismatch_d("static_smem", i, hf[i], 1023 - i);
    int hi[1024], ho[1024];
    for (int i = 0; i < 1024; i++) hi[i] = i * 13 + 5;
    CHECK(cudaMemcpy(idx, hi, sizeof(hi), cudaMemcpyHostToDevice));
    big_local<<<4, 64>>>(idx, o, 256);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(ho, o, 256 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 256; i++) {
        int a1 = hi[i] & 255, a2 = (hi[i] * 7) & 255;
        int want = a1 * a1 + a2 * a2;
        if (ho[i] != want) fail_mismatch_ll("big_local", i, ho[i], want);
    }
    bounded<<<1, 256>>>(o);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(ho, o, 256 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 256; i++)
        if (ho[i] != 2 * i) fail_mismatch_ll("bounded", i, ho[i], 2 * i);
    plain<<<1, 1024>>>(o);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(ho, o, sizeof(ho), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 1024; i++)
        if (ho[i] != i + 1) fail_mismatch_ll("plain", i, ho[i], i + 1);
    printf("all four kernels ran: ok\n");
    CHECK(cudaFree(f));
    CHECK(cudaFree(o));
    CHECK(cudaFree(idx));
    printf("PASSED\n");
    return 0;
}
