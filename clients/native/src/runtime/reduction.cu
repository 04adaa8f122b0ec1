// reduction: integer sum of 131072 values, two ways, both exact:
//  * reduce_smem: grid-stride accumulation, shared-memory tree with __syncthreads down
//    to one warp, then __shfl_down_sync, then one atomicAdd per block;
//  * reduce_warp: grid-stride accumulation, __shfl_xor_sync butterfly, one atomicAdd
//    per warp.
// Also a min/max pass with atomicMin/atomicMax on the per-block results.
#include "check.h"
#include <vector>

#define BLOCK 256

__global__ void reduce_smem(const int *in, int n, int *sum) {
    __shared__ int s[BLOCK];
    int tid = threadIdx.x;
    int acc = 0;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) acc += in[i];
    s[tid] = acc;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride >= 32; stride /= 2) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid < 32) {
        int v = s[tid];
        for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
        if (tid == 0) atomicAdd(sum, v);
    }
}

__global__ void reduce_warp(const int *in, int n, int *sum, int *mn, int *mx) {
    int acc = 0, lo = 0x7fffffff, hi = -0x7fffffff - 1;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int v = in[i];
        acc += v;
        lo = min(lo, v);
        hi = max(hi, v);
    }
    for (int mask = 16; mask > 0; mask /= 2) {
        acc += __shfl_xor_sync(0xffffffffu, acc, mask);
        lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, mask));
        hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, mask));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(sum, acc);
        atomicMin(mn, lo);
        atomicMax(mx, hi);
    }
}

int main() {
    const int n = 1 << 17;
    std::vector<int> h(n);
    long long host_sum = 0;
    int host_min = 0x7fffffff, host_max = -0x7fffffff - 1;
    for (int i = 0; i < n; i++) {
        h[i] = (int)(((long long)i * 7919) % 2003) - 1000;
        host_sum += h[i];
        if (h[i] < host_min) host_min = h[i];
        if (h[i] > host_max) host_max = h[i];
    }
    printf("reduction: n=%d host sum=%lld min=%d max=%d\n", n, host_sum, host_min, host_max);
    int *din, *dres;
    CHECK(cudaMalloc(&din, n * sizeof(int)));
    CHECK(cudaMalloc(&dres, 4 * sizeof(int)));
    CHECK(cudaMemcpy(din, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    int init[4] = {0, 0, 0x7fffffff, -0x7fffffff - 1};
    CHECK(cudaMemcpy(dres, init, sizeof(init), cudaMemcpyHostToDevice));
    reduce_smem<<<64, BLOCK>>>(din, n, dres);
    CHECK_LAUNCH();
    reduce_warp<<<48, 128>>>(din, n, dres + 1, dres + 2, dres + 3);
    CHECK_LAUNCH();
    int res[4];
    CHECK(cudaMemcpy(res, dres, sizeof(res), cudaMemcpyDeviceToHost));
    if (res[0] != host_sum) fail_mismatch_ll("reduce_smem sum", 0, res[0], host_sum);
    printf("reduce_smem: sum=%d ok\n", res[0]);
    if (res[1] != host_sum) fail_mismatch_ll("reduce_warp sum", 0, res[1], host_sum);
    if (res[2] != host_min) fail_mismatch_ll("reduce_warp min", 0, res[2], host_min);
    if (res[3] != host_max) fail_mismatch_ll("reduce_warp max", 0, res[3], host_max);
    printf("reduce_warp: sum=%d min=%d max=%d ok\n", res[1], res[2], res[3]);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dres));
    printf("PASSED\n");
    return 0;
}
