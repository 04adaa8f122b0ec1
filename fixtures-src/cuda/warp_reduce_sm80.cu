// fixture: min_sm=80
// sm_80 warp-wide integer reductions (redux.sync) and cooperative_groups reduce.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void redux_ops(const unsigned* in, unsigned* out, const int* sin, int* sout) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[t];
    int s = sin[t];
    out[5 * t + 0] = __reduce_add_sync(0xffffffffu, v);
    out[5 * t + 1] = __reduce_min_sync(0xffffffffu, v);
    out[5 * t + 2] = __reduce_max_sync(0xffffffffu, v);
    out[5 * t + 3] = __reduce_and_sync(0xffffffffu, v);
    out[5 * t + 4] = __reduce_or_sync(0xffffffffu, v) ^ __reduce_xor_sync(0xffffffffu, v);
    sout[2 * t] = __reduce_min_sync(0xffffffffu, s);
    sout[2 * t + 1] = __reduce_max_sync(0xffffffffu, s);
}

extern "C" __global__ void cg_tile_reduce(const float* in, float* out, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    float s = cg::reduce(warp, v, cg::plus<float>());
    int m = cg::reduce(warp, (int)v, cg::greater<int>());
    if (warp.thread_rank() == 0) {
        atomicAdd(out, s);
        atomicMax((int*)(out + 1), m);
    }
}
