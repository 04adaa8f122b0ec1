// fixture: min_sm=80 variants=O0
// clang CUDA: WMMA builtins (__hmma/__mma_bf16/__mma_tf32), inline mma.sync/ldmatrix, cp.async pipeline.
#include "nvptx_min.h"

extern "C" __global__ void wmma_builtins(const int* A, const int* B, float* C, const int* Abf, const int* Bbf, float* Cbf) {
    int a[8], b[8];
    float c[8] = {0, 0, 0, 0, 0, 0, 0, 0}, d[8];
    __hmma_m16n16k16_ld_a(a, A, 16, 0);
    __hmma_m16n16k16_ld_b(b, B, 16, 0);
    __hmma_m16n16k16_mma_f32f32(d, a, b, c, 0, 0);
    __hmma_m16n16k16_st_c_f32(C, d, 16, 0);
    int abf[4], bbf[4];
    __mma_bf16_m16n16k16_ld_a(abf, Abf, 16, 0);
    __mma_bf16_m16n16k16_ld_b(bbf, Bbf, 16, 0);
    __mma_bf16_m16n16k16_mma_f32(d, abf, bbf, c, 0, 0);
    __hmma_m16n16k16_st_c_f32(Cbf, d, 16, 0);
}

extern "C" __global__ void wmma_tf32_f64(const int* A, const int* B, float* C, const double* dA, const double* dB, double* dC) {
    int a[4], b[4];
    float c[8] = {0, 0, 0, 0, 0, 0, 0, 0}, d[8];
    __mma_tf32_m16n16k8_ld_a(a, A, 8, 0);
    __mma_tf32_m16n16k8_ld_b(b, B, 16, 0);
    __mma_tf32_m16n16k8_mma_f32(d, a, b, c, 0, 0);
    __mma_m16n16k8_st_c_f32(C, d, 16, 0);
    double da[1], db[1], dc[2] = {0, 0}, dd[2];
    __dmma_m8n8k4_ld_a(da, dA, 4, 0);
    __dmma_m8n8k4_ld_b(db, dB, 8, 0);
    __dmma_m8n8k4_mma_f64(dd, da, db, dc, 0, 0);
    __dmma_m8n8k4_st_c_f64(dC, dd, 8, 0);
}

extern "C" __global__ void mma_sync_ldmatrix(const unsigned short* A, const unsigned short* B, float* C) {
    __shared__ __attribute__((aligned(16))) unsigned short As[16 * 16];
    __shared__ __attribute__((aligned(16))) unsigned short Bs[8 * 16];
    int lane = threadIdx.x & 31;
    for (int i = lane; i < 256; i += 32) As[i] = A[i];
    for (int i = lane; i < 128; i += 32) Bs[i] = B[i];
    __syncwarp();
    unsigned a0, a1, a2, a3, b0, b1;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(smem_u32(&As[(lane % 16) * 16 + (lane / 16) * 8])));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(b0), "=r"(b1)
                 : "r"(smem_u32(&Bs[(lane % 16) * 8])));
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    C[lane * 4] = d0; C[lane * 4 + 1] = d1; C[lane * 4 + 2] = d2; C[lane * 4 + 3] = d3;
}

extern "C" __global__ void cp_async_double_buffer(const float* in, float* out, int tiles) {
    __shared__ __attribute__((aligned(16))) float buf[2][128 * 4];
    int t = threadIdx.x;
    float acc = 0.f;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem_u32(&buf[0][t * 4])), "l"(in + t * 4));
    asm volatile("cp.async.commit_group;");
    for (int k = 0; k < tiles; ++k) {
        if (k + 1 < tiles)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem_u32(&buf[(k + 1) & 1][t * 4])), "l"(in + (k + 1) * 512 + t * 4));
        asm volatile("cp.async.commit_group;");
        asm volatile("cp.async.wait_group 1;" ::: "memory");
        __syncthreads();
        acc += buf[k & 1][(t * 5) & 511];
        __syncthreads();
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    out[blockIdx.x * blockDim.x + t] = acc;
}
