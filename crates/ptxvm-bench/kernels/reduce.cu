// Engines benchmark: shared-memory tree reduction (f32). Each CTA of 256 threads sums 512
// consecutive elements: thread t adds in[base + t] and in[base + t + 256], then a tree over
// shared memory with __syncthreads() at every level (no warp-synchronous tail), and thread
// 0 writes the CTA's sum. The C reference reduce_c in ../c/engines.c adds in the same
// order, so its results are bit for bit the kernel's.
#define BLOCK 256
extern "C" __global__ void reduce_sum(const float* __restrict__ in, float* __restrict__ out,
                                      unsigned n) {
    __shared__ float s[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * BLOCK) + tid;
    float acc = 0.0f;
    if (i < n) acc += in[i];
    if (i + BLOCK < n) acc += in[i + BLOCK];
    s[tid] = acc;
    __syncthreads();
    for (unsigned st = BLOCK / 2; st > 0; st >>= 1) {
        if (tid < st) s[tid] += s[tid + st];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
