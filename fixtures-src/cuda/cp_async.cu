// fixture: min_sm=80 variants=lineinfo
// Asynchronous global->shared copies: inline cp.async (ca/cg, zfill), commit/wait groups,
// the cuda_pipeline.h primitives, cooperative_groups::memcpy_async and cuda::barrier (mbarrier).
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
namespace cg = cooperative_groups;

__device__ __forceinline__ unsigned smem_u32(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

extern "C" __global__ void cp_async_inline(const float4* g, const float* g1, float* out, int n_valid) {
    __shared__ __align__(16) float4 s16[256];
    __shared__ float s4[256];
    __shared__ __align__(8) float2 s8[256];
    int t = threadIdx.x;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(smem_u32(&s16[t])), "l"(&g[blockIdx.x * 256 + t]));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" :: "r"(smem_u32(&s4[t])), "l"(&g1[blockIdx.x * 256 + t]));
    asm volatile("cp.async.commit_group;\n" ::);
    int src_bytes = t < n_valid ? 8 : 0;  // zero-fill beyond the valid range
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" :: "r"(smem_u32(&s8[t])), "l"(&g1[2 * t]), "r"(src_bytes));
    asm volatile("cp.async.commit_group;\n" ::);
    asm volatile("cp.async.wait_group 1;\n" ::);
    __syncthreads();
    float a = s16[255 - t].x + s16[t].w + s4[(t + 1) & 255];
    asm volatile("cp.async.wait_all;\n" ::);
    __syncthreads();
    out[blockIdx.x * 256 + t] = a + s8[t].x + s8[t].y;
}

// Double-buffered pipeline using the cuda_pipeline.h primitives.
extern "C" __global__ void pipeline_primitives_sum(const float* in, float* out, int tiles) {
    __shared__ __align__(16) float buf[2][256];
    int t = threadIdx.x;
    float acc = 0.f;
    __pipeline_memcpy_async(&buf[0][t], &in[t], sizeof(float));
    __pipeline_commit();
    for (int k = 0; k < tiles; ++k) {
        if (k + 1 < tiles) __pipeline_memcpy_async(&buf[(k + 1) & 1][t], &in[(k + 1) * 256 + t], sizeof(float));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        acc += buf[k & 1][(t * 7) & 255];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = acc;
}

extern "C" __global__ void cg_memcpy_async(const int* in, int* out, int n) {
    extern __shared__ int smem[];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, smem, in + blockIdx.x * n, sizeof(int) * n);
    cg::wait(block);
    int s = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) s += smem[i];
    atomicAdd(out, s);
}

extern "C" __global__ void cuda_barrier_memcpy(const float* in, float* out, int n) {
    __shared__ __align__(16) float tile[1024];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, tile, in + blockIdx.x * 1024, cuda::aligned_size_t<16>(sizeof(float) * 1024), bar);
    bar.arrive_and_wait();
    float s = 0.f;
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s += tile[i] * tile[1023 - i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Raw mbarrier PTX with cp.async.mbarrier.arrive.
extern "C" __global__ void mbarrier_raw(const float* in, float* out) {
    __shared__ __align__(8) unsigned long long mbar;
    __shared__ __align__(16) float s[128];
    int t = threadIdx.x;
    if (t == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(smem_u32(&mbar)), "r"((int)blockDim.x));
    __syncthreads();
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(smem_u32(&s[t])), "l"(&in[t]));
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" :: "r"(smem_u32(&mbar)));
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(smem_u32(&mbar)));
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.shared.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done) : "r"(smem_u32(&mbar)), "l"(state));
    }
    out[t] = s[127 - t];
}
