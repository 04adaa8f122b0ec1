// fixture: min_sm=70 variants=lineinfo
// Warp votes, ballot, activemask, match.any/all, and popc/ffs helpers.
extern "C" __global__ void votes(const int* in, int* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    int all = __all_sync(0xffffffffu, v > 0);
    int any = __any_sync(0xffffffffu, v > 100);
    unsigned ballot = __ballot_sync(0xffffffffu, v & 1);
    int uni = __uni_sync(0xffffffffu, v == 7);
    out[4 * t + 0] = all;
    out[4 * t + 1] = any;
    out[4 * t + 2] = __popc(ballot);
    out[4 * t + 3] = uni + __ffs(ballot);
}

extern "C" __global__ void active_mask_divergent(const int* in, unsigned* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned m = 0;
    if (in[t] & 2) {
        m = __activemask();
        m ^= __ballot_sync(m, in[t] & 4);
    } else {
        m = __activemask() << 1;
    }
    out[t] = m;
}

extern "C" __global__ void match_sync(const int* keys, const long long* keys64, unsigned* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int k = keys[t];
    unsigned any = __match_any_sync(0xffffffffu, k);
    int pred;
    unsigned all = __match_all_sync(0xffffffffu, k, &pred);
    unsigned any64 = __match_any_sync(0xffffffffu, keys64[t]);
    out[3 * t] = any;
    out[3 * t + 1] = pred ? all : 0u;
    out[3 * t + 2] = any64;
}

// Aggregate atomics: one atomic per group of lanes with the same key (warp-aggregated).
extern "C" __global__ void warp_aggregated_inc(const int* bins, int* counters, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int key = bins[t];
    unsigned peers = __match_any_sync(__activemask(), key);
    int leader = __ffs(peers) - 1;
    unsigned lane = threadIdx.x & 31;
    if ((int)lane == leader) atomicAdd(&counters[key], __popc(peers));
}

extern "C" __global__ void lane_masks(unsigned* out) {
    unsigned lt, le, gt, ge, eq;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
    asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = lt + le * 3 + gt * 5 + ge * 7 + eq * 11;
}
