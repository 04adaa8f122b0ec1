// warp_intrinsics: warp-level primitives on sm_80 PTX, every lane's result checked
// against a host model:
//  __shfl_sync/__shfl_up_sync/__shfl_down_sync/__shfl_xor_sync (also with width 8/16),
//  __ballot_sync (full and partial member masks), __any_sync/__all_sync, __activemask
//  (full and partial warps), __syncwarp (exchange through shared memory),
//  __match_any_sync (32- and 64-bit), __match_all_sync, __reduce_{add,min,max,and,or,xor}_sync.
#include "check.h"

#define NRES 26
#define FULL 0xffffffffu

__global__ void full_warps(unsigned *res) {
    __shared__ unsigned s[64];
    unsigned tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    unsigned v = tid * 3 + 1;
    unsigned *r = res + tid * NRES;
    __syncwarp();
    r[12] = __activemask();
    r[0] = __shfl_sync(FULL, v, (lane + 5) & 31);
    r[1] = __shfl_up_sync(FULL, v, 2);
    r[2] = __shfl_down_sync(FULL, v, 3);
    r[3] = __shfl_xor_sync(FULL, v, 7);
    r[4] = __shfl_sync(FULL, v, 2, 8);
    r[5] = __shfl_down_sync(FULL, v, 1, 16);
    r[6] = __ballot_sync(FULL, lane % 3 == 0);
    if (lane & 1)
        r[7] = __ballot_sync(0xaaaaaaaau, lane % 3 == 0);
    else
        r[7] = 0x12345678u;
    __syncwarp();
    r[8] = __any_sync(FULL, lane == 17);
    r[9] = __all_sync(FULL, lane < 31);
    r[10] = __all_sync(FULL, v > 0);
    r[11] = __any_sync(FULL, lane > 40);
    s[tid] = v;
    __syncwarp();
    r[13] = s[warp * 32 + 31 - lane];
    r[14] = __match_any_sync(FULL, lane % 5);
    int pred = -1;
    r[15] = __match_all_sync(FULL, warp, &pred);
    r[16] = (unsigned)pred;
    pred = -1;
    r[17] = __match_all_sync(FULL, lane / 16, &pred);
    r[18] = (unsigned)pred;
    r[19] = __reduce_add_sync(FULL, lane + 1 + warp);
    r[20] = __reduce_min_sync(FULL, (lane * 7) % 32 + 100 * warp);
    r[21] = __reduce_max_sync(FULL, (lane * 7) % 32 + 100 * warp);
    r[22] = __reduce_and_sync(FULL, 0xf0u | lane);
    r[23] = __reduce_or_sync(FULL, 1u << (lane % 8));
    r[24] = __reduce_xor_sync(FULL, lane * lane + warp);
    r[25] = __match_any_sync(FULL, (unsigned long long)(lane / 8) << 40);
}

#define NRES_B 5
__global__ void partial_warp(unsigned *res) {
    unsigned tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    unsigned count = min(32u, blockDim.x - warp * 32);
    unsigned mask = count == 32 ? FULL : (1u << count) - 1;
    unsigned *r = res + tid * NRES_B;
    __syncwarp(mask);
    r[0] = __activemask();
    r[1] = __ballot_sync(mask, lane & 1);
    r[2] = __reduce_add_sync(mask, lane);
    r[3] = __shfl_sync(mask, tid, 0);
    r[4] = __all_sync(mask, 1);
}

static unsigned V(unsigned warp, unsigned lane) { return (warp * 32 + lane) * 3 + 1; }

static unsigned expect_full(int k, unsigned warp, unsigned lane) {
    unsigned m = 0;
    switch (k) {
    case 0: return V(warp, (lane + 5) & 31);
    case 1: return lane >= 2 ? V(warp, lane - 2) : V(warp, lane);
    case 2: return lane + 3 < 32 ? V(warp, lane + 3) : V(warp, lane);
    case 3: return V(warp, lane ^ 7);
    case 4: return V(warp, (lane & ~7u) + 2);
    case 5: return (lane % 16) + 1 < 16 ? V(warp, lane + 1) : V(warp, lane);
    case 6:
        for (unsigned l = 0; l < 32; l++) m |= (unsigned)(l % 3 == 0) << l;
        return m;
    case 7:
        if (!(lane & 1)) return 0x12345678u;
        for (unsigned l = 1; l < 32; l += 2) m |= (unsigned)(l % 3 == 0) << l;
        return m;
    case 8: return 1;
    case 9: return 0;
    case 10: return 1;
    case 11: return 0;
    case 12: return FULL;
    case 13: return V(warp, 31 - lane);
    case 14:
        for (unsigned l = 0; l < 32; l++) m |= (unsigned)(l % 5 == lane % 5) << l;
        return m;
    case 15: return FULL;
    case 16: return 1;
    case 17: return 0;
    case 18: return 0;
    case 19: return 528 + 32 * warp;
    case 20: return 100 * warp;
    case 21: return 31 + 100 * warp;
    case 22: return 0xf0;
    case 23: return 0xff;
    case 24:
        for (unsigned l = 0; l < 32; l++) m ^= l * l + warp;
        return m;
    case 25:
        for (unsigned l = 0; l < 32; l++) m |= (unsigned)(l / 8 == lane / 8) << l;
        return m;
    }
    return 0xdeadbeef;
}

static const char *names[NRES] = {"shfl idx",       "shfl up 2",      "shfl down 3",    "shfl xor 7",
                                  "shfl width 8",   "shfl down w16",  "ballot full",    "ballot odd lanes",
                                  "any true",       "all false",      "all true",       "any false",
                                  "activemask",     "syncwarp smem",  "match_any",      "match_all mask",
                                  "match_all pred", "match_all mask0", "match_all pred0", "reduce_add",
                                  "reduce_min",     "reduce_max",     "reduce_and",     "reduce_or",
                                  "reduce_xor",     "match_any 64-bit"};

int main() {
    unsigned *d;
    CHECK(cudaMalloc(&d, 64 * NRES * sizeof(unsigned)));
    CHECK(cudaMemset(d, 0xee, 64 * NRES * sizeof(unsigned)));
    full_warps<<<1, 64>>>(d);
    CHECK_LAUNCH();
    unsigned h[64 * NRES];
    CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
    for (int k = 0; k < NRES; k++) {
        for (unsigned t = 0; t < 64; t++) {
            unsigned want = expect_full(k, t / 32, t % 32);
            if (h[t * NRES + k] != want) {
                printf("FAILED: %s, thread %u: got 0x%08x, expected 0x%08x\n", names[k], t, h[t * NRES + k], want);
                return 1;
            }
        }
        printf("%s: ok\n", names[k]);
    }
    printf("ballot(lane%%3==0)=0x%08x match_any(lane%%5) lane 0=0x%08x\n", h[6], h[14]);

    unsigned hb[48 * NRES_B];
    CHECK(cudaMemset(d, 0xee, 48 * NRES_B * sizeof(unsigned)));
    partial_warp<<<1, 48>>>(d);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hb, d, sizeof(hb), cudaMemcpyDeviceToHost));
    for (unsigned t = 0; t < 48; t++) {
        unsigned warp = t / 32, lane = t % 32;
        unsigned mask = warp == 0 ? FULL : 0xffffu;
        unsigned want[NRES_B] = {mask, 0xaaaaaaaau & mask, warp == 0 ? 496u : 120u, warp * 32, 1};
        for (int k = 0; k < NRES_B; k++)
            if (hb[t * NRES_B + k] != want[k]) {
                printf("FAILED: partial warp result %d, thread %u (lane %u): got 0x%08x, expected 0x%08x\n", k, t,
                       lane, hb[t * NRES_B + k], want[k]);
                return 1;
            }
    }
    printf("partial warp (48 threads): activemask=0x%08x/0x%08x ballot=0x%08x/0x%08x reduce_add=%u/%u: ok\n", hb[0],
           hb[32 * NRES_B], hb[1], hb[32 * NRES_B + 1], hb[2], hb[32 * NRES_B + 2]);
    CHECK(cudaFree(d));
    printf("PASSED\n");
    return 0;
}
