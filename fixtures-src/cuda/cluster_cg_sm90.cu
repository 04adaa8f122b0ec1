// fixture: min_sm=90
// cooperative_groups::cluster_group in a kernel without __cluster_dims__: the cluster shape
// comes with the launch (cudaLaunchKernelEx's cluster attribute, ptxvm run --cluster). A
// distributed shared memory reduction: every CTA stores its slice of `in` in shared memory,
// cluster.sync(), and rank 0 sums each element over every rank through map_shared_rank; a
// second cluster.sync() keeps the other CTAs' shared memory alive until it has read it.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_cluster_reduce(const int* in, int* out, unsigned* ranks) {
    __shared__ int s[256];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    unsigned n = cluster.num_blocks();
    s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    cluster.sync();
    if (rank == 0) {
        int acc = 0;
        for (unsigned r = 0; r < n; r++) acc += cluster.map_shared_rank(s, r)[threadIdx.x];
        out[blockIdx.x / cluster.dim_blocks().x * blockDim.x + threadIdx.x] = acc;
    }
    if (threadIdx.x == 0) ranks[blockIdx.x] = rank + 100 * n + 10000 * cluster.block_index().x;
    cluster.sync();
}
