// Engines benchmark: inclusive scan (i32) of each CTA's 256 elements with warp shuffles:
// every warp scans its 32 values with __shfl_up_sync, warp 0 scans the 8 warp totals the
// same way, and every warp adds the total of the warps before it. The C reference scan_c
// in ../c/engines.c is the sequential prefix sum of each 256-element block.
#define BLOCK 256
extern "C" __global__ void scan_inclusive(const int* __restrict__ in, int* __restrict__ out,
                                          int n) {
    __shared__ int warp_sums[BLOCK / 32];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int v = i < n ? in[i] : 0;
    #pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        int t = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += t;
    }
    if (lane == 31) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int w = lane < BLOCK / 32 ? warp_sums[lane] : 0;
        #pragma unroll
        for (int d = 1; d < BLOCK / 32; d <<= 1) {
            int t = __shfl_up_sync(0xffffffffu, w, d);
            if (lane >= d) w += t;
        }
        if (lane < BLOCK / 32) warp_sums[lane] = w;
    }
    __syncthreads();
    if (warp > 0) v += warp_sums[warp - 1];
    if (i < n) out[i] = v;
}
