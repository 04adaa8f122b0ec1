// fixture: min_sm=70 variants=lineinfo
// Prefix sums: Blelloch work-efficient scan in shared memory (bank-conflict avoidance), warp-shuffle block scan,
// stream compaction.
#define LOG_BANKS 5
#define CF(n) ((n) >> LOG_BANKS)
extern "C" __global__ void blelloch_scan(const int* in, int* out, int n) {
    extern __shared__ int temp[];
    int t = threadIdx.x, off = 1;
    int ai = t, bi = t + n / 2;
    temp[ai + CF(ai)] = in[ai];
    temp[bi + CF(bi)] = in[bi];
    for (int d = n >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int a = off * (2 * t + 1) - 1, b = off * (2 * t + 2) - 1;
            temp[b + CF(b)] += temp[a + CF(a)];
        }
        off *= 2;
    }
    if (t == 0) temp[n - 1 + CF(n - 1)] = 0;
    for (int d = 1; d < n; d *= 2) {
        off >>= 1;
        __syncthreads();
        if (t < d) {
            int a = off * (2 * t + 1) - 1, b = off * (2 * t + 2) - 1;
            int x = temp[a + CF(a)];
            temp[a + CF(a)] = temp[b + CF(b)];
            temp[b + CF(b)] += x;
        }
    }
    __syncthreads();
    out[ai] = temp[ai + CF(ai)];
    out[bi] = temp[bi + CF(bi)];
}

__device__ float warp_incl_scan(float v) {
    int lane = threadIdx.x & 31;
    for (int o = 1; o < 32; o <<= 1) {
        float n = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += n;
    }
    return v;
}
extern "C" __global__ void block_scan_shfl(const float* in, float* out, float* block_sums, int n) {
    __shared__ float warp_tot[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.f;
    v = warp_incl_scan(v);
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (lane == 31) warp_tot[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float w = lane < (blockDim.x >> 5) ? warp_tot[lane] : 0.f;
        warp_tot[lane] = warp_incl_scan(w);
    }
    __syncthreads();
    if (warp > 0) v += warp_tot[warp - 1];
    if (i < n) out[i] = v;
    if (threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = v;
}

extern "C" __global__ void compact_positive(const float* in, float* out, unsigned* count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool keep = i < n && in[i] > 0.f;
    unsigned mask = __ballot_sync(0xffffffffu, keep);
    unsigned lane = threadIdx.x & 31;
    unsigned base = 0;
    if (lane == 0 && mask) base = atomicAdd(count, __popc(mask));
    base = __shfl_sync(0xffffffffu, base, 0);
    if (keep) out[base + __popc(mask & ((1u << lane) - 1))] = in[i];
}
