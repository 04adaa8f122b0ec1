// fixture: archs=90a variants=O0
// clang CUDA for sm_90a: inline wgmma (fence/mma_async/commit/wait) with shared-memory descriptors, mbarrier,
// cluster special registers through clang builtins.
#include "nvptx_min.h"

__device__ __forceinline__ u64 desc(const void* p) {
    u64 a = smem_u32(p);
    return ((a & 0x3FFFF) >> 4) | ((u64)(128 >> 4) << 16) | ((u64)(256 >> 4) << 32);
}

extern "C" __global__ void __launch_bounds__(128) wgmma_f16(const unsigned short* A, const unsigned short* B, float* C) {
    __shared__ __attribute__((aligned(128))) unsigned short As[64 * 16];
    __shared__ __attribute__((aligned(128))) unsigned short Bs[16 * 16];
    for (int i = threadIdx.x; i < 64 * 16; i += 128) As[i] = A[i];
    for (int i = threadIdx.x; i < 16 * 16; i += 128) Bs[i] = B[i];
    __syncthreads();
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    float d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, 1, 1, 1, 0, 0;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                 : "l"(desc(As)), "l"(desc(Bs)));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    for (int i = 0; i < 8; ++i) C[threadIdx.x * 8 + i] = d[i];
}

extern "C" __global__ void mbarrier_cluster(const float* in, float* out) {
    __shared__ __attribute__((aligned(8))) long bar;
    if (threadIdx.x == 0) __nvvm_mbarrier_init(&bar, blockDim.x);
    __syncthreads();
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    long long tok = __nvvm_mbarrier_arrive(&bar);
    while (!__nvvm_mbarrier_test_wait(&bar, tok)) { }
    unsigned rank = __nvvm_read_ptx_sreg_cluster_ctarank();
    unsigned nrank = __nvvm_read_ptx_sreg_cluster_nctarank();
    out[blockIdx.x * blockDim.x + threadIdx.x] = v * rank + nrank;
}
