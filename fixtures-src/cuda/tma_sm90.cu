// fixture: archs=90
// TMA from CUDA C++ with inline PTX: tensor maps passed as `const __grid_constant__` kernel
// parameters (128 bytes, 64-byte aligned; `&map` is a generic address of the parameter), a
// 2D box loaded with cp.async.bulk.tensor into shared memory completing on an mbarrier, then
// written back with a tensor store or a cp.reduce.async.bulk.tensor add (bulk groups).
struct alignas(64) TensorMap { unsigned long long bytes[16]; };

__device__ __forceinline__ unsigned smem_u32(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void load_box(float* tile, unsigned long long* bar, const TensorMap* map, int x, int y,
                                         unsigned bytes) {
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(bar)) : "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem_u32(bar)), "r"(bytes) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(smem_u32(tile)), "l"(map), "r"(x), "r"(y), "r"(smem_u32(bar)) : "memory");
    }
    __syncthreads();
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(smem_u32(bar)) : "memory");
    }
}

// out[tile] = in[tile] * scale, tile of 32 x 16 floats (box {32, 16}) per CTA.
extern "C" __global__ void tma_scale_tile(const __grid_constant__ TensorMap in_map,
                                          const __grid_constant__ TensorMap out_map, float scale) {
    __shared__ alignas(1024) float tile[16 * 32];
    __shared__ alignas(8) unsigned long long bar;
    int x = blockIdx.x * 32, y = blockIdx.y * 16;
    load_box(tile, &bar, &in_map, x, y, sizeof(tile));
    for (int i = threadIdx.x; i < 16 * 32; i += blockDim.x) tile[i] *= scale;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                     :: "l"(&out_map), "r"(x), "r"(y), "r"(smem_u32(tile)) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

// acc[tile] += in[tile] through cp.reduce.async.bulk.tensor .add (f32).
extern "C" __global__ void tma_accumulate_tile(const __grid_constant__ TensorMap in_map,
                                               const __grid_constant__ TensorMap acc_map) {
    __shared__ alignas(1024) float tile[16 * 32];
    __shared__ alignas(8) unsigned long long bar;
    int x = blockIdx.x * 32, y = blockIdx.y * 16;
    load_box(tile, &bar, &in_map, x, y, sizeof(tile));
    if (threadIdx.x == 0) {
        asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];"
                     :: "l"(&acc_map), "r"(x), "r"(y), "r"(smem_u32(tile)) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}
