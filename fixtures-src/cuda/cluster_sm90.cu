// fixture: min_sm=90 variants=lineinfo
// Thread block clusters: __cluster_dims__, distributed shared memory (mapa / ld.shared::cluster),
// barrier.cluster, cluster special registers, griddepcontrol and redux/fence variants of sm_90.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_histogram(const int* in, int* bins, int nbins, int n) {
    extern __shared__ int smem[];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    int per_block = (nbins + 1) / 2;
    for (int i = threadIdx.x; i < per_block; i += blockDim.x) smem[i] = 0;
    cluster.sync();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int b = in[i] % nbins;
        unsigned dst_rank = b / per_block;
        int* dst = cluster.map_shared_rank(smem, dst_rank);
        atomicAdd(dst + b % per_block, 1);
    }
    cluster.sync();
    int* lbins = bins + rank * per_block;
    for (int i = threadIdx.x; i < per_block; i += blockDim.x) atomicAdd(&lbins[i], smem[i]);
}

extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_neighbor_sum(const float* in, float* out) {
    __shared__ float s[128];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned r = cluster.block_rank();
    s[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
    cluster.sync();
    float* nb = cluster.map_shared_rank(s, (r + 1) % cluster.num_blocks());
    float v = s[threadIdx.x] + nb[threadIdx.x];
    cluster.sync();
    out[blockIdx.x * 128 + threadIdx.x] = v + (float)cluster.dim_blocks().x;
}

extern "C" __global__ void cluster_sregs(unsigned* out) {
    unsigned ctarank, nctarank, cid, nclus, isexp;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(ctarank));
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(nctarank));
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
    asm("mov.u32 %0, %%nclusterid.x;" : "=r"(nclus));
    asm("{\n .reg .pred p;\n mov.pred p, %%is_explicit_cluster;\n selp.u32 %0, 1, 0, p;\n}" : "=r"(isexp));
    asm volatile("barrier.cluster.arrive.relaxed;\nbarrier.cluster.wait;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
    out[blockIdx.x * blockDim.x + threadIdx.x] = ctarank + nctarank * 10 + cid * 100 + nclus * 1000 + isexp;
    asm volatile("griddepcontrol.launch_dependents;");
}

extern "C" __global__ void fences_sm90(int* flag, int* data) {
    data[threadIdx.x] = threadIdx.x;
    asm volatile("fence.acq_rel.cluster;" ::: "memory");
    asm volatile("fence.proxy.async;" ::: "memory");
    if (threadIdx.x == 0) {
        asm volatile("st.release.gpu.global.s32 [%0], %1;" :: "l"(flag), "r"(1) : "memory");
        int v;
        asm volatile("ld.acquire.sys.global.s32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
        data[0] = v;
    }
}
