// cooperative_groups: thread_block and tiled_partition<32>/<8> groups (no grid sync):
// cg::reduce with plus/greater/bit_xor on 32-thread tiles, cg::reduce on 8-thread tiles,
// tile.shfl_down, thread_rank/meta_group_rank/meta_group_size/num_threads, block.sync(),
// one atomicAdd per tile.
#include "check.h"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

#define BLOCK 256
#define BLOCKS 16

struct Out {
    int total;
    int tile_max[BLOCKS * BLOCK / 32];
    unsigned tile_xor[BLOCKS * BLOCK / 32];
    int tile8_sum[BLOCKS * BLOCK / 8];
    int shfl_sum[BLOCKS * BLOCK / 32];
    int rank_errors;
};

__global__ void cg_reduce(const int *in, Out *out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(block);
    int gid = blockIdx.x * BLOCK + block.thread_rank();
    int v = in[gid];
    int tile_id = blockIdx.x * (BLOCK / 32) + tile.meta_group_rank();
    int tile8_id = blockIdx.x * (BLOCK / 8) + tile8.meta_group_rank();

    int errors = 0;
    if (block.thread_rank() != threadIdx.x || block.num_threads() != BLOCK) errors++;
    if (tile.thread_rank() != threadIdx.x % 32 || tile.meta_group_size() != BLOCK / 32 || tile.num_threads() != 32)
        errors++;
    if (tile8.thread_rank() != threadIdx.x % 8 || tile8.meta_group_rank() != threadIdx.x / 8) errors++;
    if (errors) atomicAdd(&out->rank_errors, errors);

    int sum = cg::reduce(tile, v, cg::plus<int>());
    int mx = cg::reduce(tile, v, cg::greater<int>());
    unsigned x = cg::reduce(tile, (unsigned)v * 2654435761u, cg::bit_xor<unsigned>());
    int s8 = cg::reduce(tile8, v, cg::plus<int>());

    int manual = v;  // the same sum by hand, with the tile's shuffles
    for (int off = tile.num_threads() / 2; off > 0; off /= 2) manual += tile.shfl_down(manual, off);

    if (tile.thread_rank() == 0) {
        atomicAdd(&out->total, sum);
        out->tile_max[tile_id] = mx;
        out->tile_xor[tile_id] = x;
        out->shfl_sum[tile_id] = manual;
    }
    if (tile8.thread_rank() == 0) out->tile8_sum[tile8_id] = s8;
    block.sync();
}

int main() {
    const int n = BLOCKS * BLOCK;
    static int h[n];
    for (int i = 0; i < n; i++) h[i] = (i * 37 + 11) % 1009 - 500;
    int *din;
    Out *dout;
    CHECK(cudaMalloc(&din, sizeof(h)));
    CHECK(cudaMalloc(&dout, sizeof(Out)));
    CHECK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0, sizeof(Out)));
    cg_reduce<<<BLOCKS, BLOCK>>>(din, dout);
    CHECK_LAUNCH();
    static Out r;
    CHECK(cudaMemcpy(&r, dout, sizeof(Out), cudaMemcpyDeviceToHost));

    long long total = 0;
    for (int t = 0; t < n / 32; t++) {
        int s = 0, mx = -1000000;
        unsigned x = 0;
        for (int k = 0; k < 32; k++) {
            int v = h[t * 32 + k];
            s += v;
            mx = v > mx ? v : mx;
            x ^= (unsigned)v * 2654435761u;
        }
        total += s;
        if (r.tile_max[t] != mx) fail_mismatch_ll("tile max", t, r.tile_max[t], mx);
        if (r.tile_xor[t] != x) fail_mismatch_ll("tile xor", t, r.tile_xor[t], x);
        if (r.shfl_sum[t] != s) fail_mismatch_ll("tile shfl_down sum", t, r.shfl_sum[t], s);
    }
    for (int t = 0; t < n / 8; t++) {
        int s = 0;
        for (int k = 0; k < 8; k++) s += h[t * 8 + k];
        if (r.tile8_sum[t] != s) fail_mismatch_ll("tile<8> sum", t, r.tile8_sum[t], s);
    }
    printf("group ranks and sizes: %s\n", r.rank_errors == 0 ? "ok" : "wrong");
    REQUIRE(r.rank_errors == 0);
    printf("tile<32> reduce plus/greater/bit_xor and shfl_down: %d tiles ok\n", n / 32);
    printf("tile<8> reduce plus: %d tiles ok\n", n / 8);
    printf("total=%d (host %lld)\n", r.total, total);
    REQUIRE(r.total == total);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    printf("PASSED\n");
    return 0;
}
