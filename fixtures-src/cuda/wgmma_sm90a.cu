// fixture: archs=90a variants=lineinfo
// Hopper warpgroup MMA via inline PTX (sm_90a only): wgmma.fence / mma_async (SS and RS forms) /
// commit_group / wait_group, shared-memory matrix descriptors, fence.proxy.async, setmaxnreg,
// stmatrix, elect.sync, and bulk async copies completing on an mbarrier.
#include <cuda_fp16.h>
typedef unsigned long long uint64_t;

__device__ __forceinline__ unsigned smem_u32(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ uint64_t make_desc(const void* smem, unsigned lbo, unsigned sbo, unsigned swizzle) {
    uint64_t addr = smem_u32(smem);
    uint64_t d = 0;
    d |= (addr & 0x3FFFF) >> 4;
    d |= (uint64_t)((lbo & 0x3FFFF) >> 4) << 16;
    d |= (uint64_t)((sbo & 0x3FFFF) >> 4) << 32;
    d |= (uint64_t)swizzle << 62;
    return d;
}

__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wg_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" :: "n"(N) : "memory"); }

// 64x8x16 f16 -> f32, both operands from shared memory descriptors.
extern "C" __global__ void __launch_bounds__(128) wgmma_m64n8k16_ss(const half* A, const half* B, float* C) {
    __shared__ __align__(128) half As[64 * 16];
    __shared__ __align__(128) half Bs[8 * 16];
    for (int i = threadIdx.x; i < 64 * 16; i += 128) As[i] = A[i];
    for (int i = threadIdx.x; i < 8 * 16; i += 128) Bs[i] = B[i];
    __syncthreads();
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    uint64_t da = make_desc(As, 128, 256, 0), db = make_desc(Bs, 128, 256, 0);
    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
    wg_fence();
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %6, 0;\n"
                 " wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db), "r"(0));
    wg_commit();
    wg_wait<0>();
    int t = threadIdx.x;
    C[t * 4] = d0; C[t * 4 + 1] = d1; C[t * 4 + 2] = d2; C[t * 4 + 3] = d3;
}

// 64x32x16 bf16 with A from registers (RS form) and a K loop with two groups in flight.
extern "C" __global__ void __launch_bounds__(128) wgmma_m64n32k16_rs_bf16(const unsigned* Afrag, const unsigned short* B, float* C, int ktiles) {
    __shared__ __align__(128) unsigned short Bs[2][32 * 16];
    float d[16];
    #pragma unroll
    for (int i = 0; i < 16; ++i) d[i] = 0.f;
    for (int kt = 0; kt < ktiles; ++kt) {
        unsigned short* bs = Bs[kt & 1];
        for (int i = threadIdx.x; i < 32 * 16; i += 128) bs[i] = B[kt * 512 + i];
        __syncthreads();
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        unsigned a0 = Afrag[(kt * 128 + threadIdx.x) * 4 + 0], a1 = Afrag[(kt * 128 + threadIdx.x) * 4 + 1];
        unsigned a2 = Afrag[(kt * 128 + threadIdx.x) * 4 + 2], a3 = Afrag[(kt * 128 + threadIdx.x) * 4 + 3];
        uint64_t db = make_desc(bs, 128, 256, 0);
        wg_fence();
        asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %21, 0;\n"
                     " wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 "
                     "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, p, 1, 1, 1;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                       "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(db), "r"(kt > 0 ? 1 : 0));
        wg_commit();
        wg_wait<1>();
    }
    wg_wait<0>();
    #pragma unroll
    for (int i = 0; i < 16; ++i) C[threadIdx.x * 16 + i] = d[i];
}

// tf32 and e4m3 shapes, f16 accumulators, and an int8 one.
extern "C" __global__ void __launch_bounds__(128) wgmma_dtypes(const float* A, float* C, unsigned* Ch, int* Ci) {
    __shared__ __align__(128) float As[64 * 8];
    __shared__ __align__(128) float Bs[8 * 8];
    for (int i = threadIdx.x; i < 64 * 8; i += 128) As[i] = A[i];
    for (int i = threadIdx.x; i < 64; i += 128) Bs[i] = A[512 + i];
    __syncthreads();
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    uint64_t da = make_desc(As, 128, 256, 0), db = make_desc(Bs, 128, 256, 0);
    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
    unsigned h0 = 0, h1 = 0;
    int i0 = 0, i1 = 0, i2 = 0, i3 = 0;
    wg_fence();
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%0,%1,%2,%3}, %4, %5, 1, 1, 1;\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db));
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2 {%0,%1,%2,%3}, %4, %5, 1, 1, -1;\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db));
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%0,%1}, %2, %3, 1, 1, 1, 0, 1;\n"
                 : "+r"(h0), "+r"(h1) : "l"(da), "l"(db));
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%0,%1,%2,%3}, %4, %5, 1;\n"
                 : "+r"(i0), "+r"(i1), "+r"(i2), "+r"(i3) : "l"(da), "l"(db));
    wg_commit();
    wg_wait<0>();
    int t = threadIdx.x;
    C[t * 4] = d0; C[t * 4 + 1] = d1; C[t * 4 + 2] = d2; C[t * 4 + 3] = d3;
    Ch[t * 2] = h0; Ch[t * 2 + 1] = h1;
    Ci[t * 4] = i0 + i1 + i2 + i3;
}

// Producer/consumer warpgroups: setmaxnreg, elect.sync, bulk copy with mbarrier complete_tx, stmatrix.
extern "C" __global__ void __launch_bounds__(256) warp_specialized_bulk(const float* __restrict__ g, float* out, unsigned* mat_out) {
    __shared__ __align__(128) float tile[1024];
    __shared__ __align__(8) unsigned long long full;
    __shared__ __align__(16) unsigned short st[8 * 8 * 4];
    int wg = threadIdx.x / 128;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem_u32(&full)), "r"(1));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        unsigned is_leader;
        asm volatile("{\n .reg .pred p;\n elect.sync _|p, 0xffffffff;\n selp.u32 %0, 1, 0, p;\n}\n" : "=r"(is_leader));
        if (threadIdx.x < 32 && is_leader) {
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem_u32(&full)), "r"(4096) : "memory");
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                         :: "r"(smem_u32(tile)), "l"(g + blockIdx.x * 1024), "r"(4096), "r"(smem_u32(&full)) : "memory");
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        unsigned done = 0;
        while (!done) {
            asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
                         : "=r"(done) : "r"(smem_u32(&full)), "r"(0) : "memory");
        }
        int t = threadIdx.x - 128;
        float s = 0.f;
        for (int i = t; i < 1024; i += 128) s += tile[i];
        out[blockIdx.x * 128 + t] = s;
        if (t < 32) {
            unsigned r0 = __float_as_uint(s), r1 = r0 * 3u, r2 = r0 ^ 0x5555u, r3 = r0 + 7u;
            asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};"
                         :: "r"(smem_u32(&st[(t % 8) * 8 + (t / 8) * 64])), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
            __syncwarp();
            mat_out[t] = st[t] | ((unsigned)st[t + 32] << 16);
        }
    }
}
