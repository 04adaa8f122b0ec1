// fixture: min_sm=80 variants=lineinfo
// Warp-level tensor core PTX via inline asm: ldmatrix (x1/x2/x4, .trans), movmatrix,
// mma.sync for f16/bf16/tf32/f64/s8/s4 shapes.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
typedef unsigned long long uint64_t;

__device__ __forceinline__ unsigned smem_u32(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

// One m16n8k16 tile: A 16x16 (row) and B 16x8 (col) loaded from shared memory with ldmatrix.
extern "C" __global__ void mma_m16n8k16_f16_ldmatrix(const half* A, const half* B, float* C) {
    __shared__ __align__(16) half As[16 * 16];
    __shared__ __align__(16) half Bs[8 * 16];
    int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) As[i] = A[i];
    for (int i = lane; i < 128; i += 32) Bs[i] = B[i];
    __syncwarp();
    unsigned a0, a1, a2, a3, b0, b1;
    const half* ap = &As[(lane % 16) * 16 + (lane / 16) * 8];
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(smem_u32(ap)));
    const half* bp = &Bs[(lane % 8) * 16 + ((lane / 8) % 2) * 8];
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
                 : "=r"(b0), "=r"(b1) : "r"(smem_u32(bp)));
    float c0 = 0.f, c1 = 0.f, c2 = 0.f, c3 = 0.f;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    int g = lane / 4, t = lane % 4;
    C[g * 8 + 2 * t] = c0; C[g * 8 + 2 * t + 1] = c1;
    C[(g + 8) * 8 + 2 * t] = c2; C[(g + 8) * 8 + 2 * t + 1] = c3;
}

extern "C" __global__ void ldmatrix_variants(const half* src, unsigned* out) {
    __shared__ __align__(16) half S[32 * 8 * 4];
    int lane = threadIdx.x & 31;
    for (int i = lane; i < 32 * 8 * 4; i += 32) S[i] = src[i];
    __syncwarp();
    unsigned r0, r1, r2, r3, r4, r5, r6, r7, m0;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(smem_u32(&S[lane * 8])));
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r1) : "r"(smem_u32(&S[lane * 8])));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r2), "=r"(r3) : "r"(smem_u32(&S[lane * 8])));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r4), "=r"(r5), "=r"(r6), "=r"(r7) : "r"(smem_u32(&S[lane * 8])));
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(m0) : "r"(r0));
    out[lane] = r0 ^ r1 ^ r2 ^ r3 ^ r4 ^ r5 ^ r6 ^ r7 ^ m0;
}

extern "C" __global__ void mma_bf16_tf32(const unsigned* a, const unsigned* b, float* c) {
    int lane = threadIdx.x & 31;
    unsigned a0 = a[lane * 4], a1 = a[lane * 4 + 1], a2 = a[lane * 4 + 2], a3 = a[lane * 4 + 3];
    unsigned b0 = b[lane * 2], b1 = b[lane * 2 + 1];
    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(b0));
    unsigned t0, t1, t2, t3;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t0) : "f"(__uint_as_float(a0)));
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t1) : "f"(__uint_as_float(a1)));
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t2) : "f"(__uint_as_float(a2)));
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t3) : "f"(__uint_as_float(a3)));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(t0), "r"(t1), "r"(t2), "r"(t3), "r"(b0), "r"(b1));
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(t0), "r"(t1), "r"(b0));
    c[lane * 4] = d0; c[lane * 4 + 1] = d1; c[lane * 4 + 2] = d2; c[lane * 4 + 3] = d3;
}

extern "C" __global__ void mma_f16_acc_and_m8n8k4(const unsigned* a, const unsigned* b, unsigned* c, float* cf) {
    int lane = threadIdx.x & 31;
    unsigned a0 = a[lane * 4], a1 = a[lane * 4 + 1], a2 = a[lane * 4 + 2], a3 = a[lane * 4 + 3];
    unsigned b0 = b[lane * 2], b1 = b[lane * 2 + 1];
    unsigned d0 = 0, d1 = 0;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
                 : "+r"(d0), "+r"(d1) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%0,%1};"
                 : "+r"(d0), "+r"(d1) : "r"(a0), "r"(a1), "r"(b0));
    float f[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%0,%1,%2,%3,%4,%5,%6,%7};"
                 : "+f"(f[0]), "+f"(f[1]), "+f"(f[2]), "+f"(f[3]), "+f"(f[4]), "+f"(f[5]), "+f"(f[6]), "+f"(f[7])
                 : "r"(a0), "r"(a1), "r"(b0), "r"(b1));
    c[lane * 2] = d0; c[lane * 2 + 1] = d1;
    for (int i = 0; i < 8; ++i) cf[lane * 8 + i] = f[i];
}

extern "C" __global__ void mma_f64_int(const double* a, const double* b, double* c, const int* ia, const int* ib, int* ic) {
    int lane = threadIdx.x & 31;
    double d0 = c[lane * 2], d1 = c[lane * 2 + 1];
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
                 : "+d"(d0), "+d"(d1) : "d"(a[lane]), "d"(b[lane]));
    c[lane * 2] = d0; c[lane * 2 + 1] = d1;
    int e0 = 0, e1 = 0, e2 = 0, e3 = 0;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+r"(e0), "+r"(e1), "+r"(e2), "+r"(e3)
                 : "r"(ia[lane * 4]), "r"(ia[lane * 4 + 1]), "r"(ia[lane * 4 + 2]), "r"(ia[lane * 4 + 3]), "r"(ib[lane * 2]), "r"(ib[lane * 2 + 1]));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                 : "+r"(e0), "+r"(e1), "+r"(e2), "+r"(e3) : "r"(ia[lane]), "r"(ia[lane + 32]), "r"(ib[lane]));
    asm volatile("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+r"(e0), "+r"(e1), "+r"(e2), "+r"(e3)
                 : "r"(ia[lane]), "r"(ia[lane + 1]), "r"(ia[lane + 2]), "r"(ia[lane + 3]), "r"(ib[lane]), "r"(ib[lane + 1]));
    asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+r"(e0), "+r"(e1), "+r"(e2), "+r"(e3)
                 : "r"(ia[lane]), "r"(ia[lane + 1]), "r"(ia[lane + 2]), "r"(ia[lane + 3]), "r"(ib[lane]), "r"(ib[lane + 1]));
    ic[lane * 4] = e0; ic[lane * 4 + 1] = e1; ic[lane * 4 + 2] = e2; ic[lane * 4 + 3] = e3;
}

// A complete 64x64 tile GEMM (4 warps, 2x2 warp grid of 32x32, each 2x4 mma tiles) using ldmatrix + mma.sync.
extern "C" __global__ void hgemm_mma_64x64(const half* __restrict__ A, const half* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
    __shared__ __align__(16) half As[64][32 + 8];
    __shared__ __align__(16) half Bs[64][32 + 8];   // stored N-major (B^T tile)
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
    int bm = blockIdx.y * 64, bn = blockIdx.x * 64;
    float acc[2][4][4] = {};
    for (int k0 = 0; k0 < K; k0 += 32) {
        for (int i = threadIdx.x; i < 64 * 32; i += blockDim.x) {
            int r = i / 32, c = i % 32;
            As[r][c] = A[(bm + r) * K + k0 + c];
            Bs[r][c] = B[(k0 + c) * N + bn + r];
        }
        __syncthreads();
        #pragma unroll
        for (int kk = 0; kk < 32; kk += 16) {
            unsigned af[2][4], bf[4][2];
            #pragma unroll
            for (int mi = 0; mi < 2; ++mi) {
                const half* p = &As[wm + mi * 16 + (lane % 16)][kk + (lane / 16) * 8];
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                             : "=r"(af[mi][0]), "=r"(af[mi][1]), "=r"(af[mi][2]), "=r"(af[mi][3]) : "r"(smem_u32(p)));
            }
            #pragma unroll
            for (int ni = 0; ni < 4; ++ni) {
                const half* p = &Bs[wn + ni * 8 + (lane % 8)][kk + ((lane / 8) % 2) * 8];
                asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
                             : "=r"(bf[ni][0]), "=r"(bf[ni][1]) : "r"(smem_u32(p)));
            }
            #pragma unroll
            for (int mi = 0; mi < 2; ++mi)
                #pragma unroll
                for (int ni = 0; ni < 4; ++ni)
                    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                                 : "+f"(acc[mi][ni][0]), "+f"(acc[mi][ni][1]), "+f"(acc[mi][ni][2]), "+f"(acc[mi][ni][3])
                                 : "r"(af[mi][0]), "r"(af[mi][1]), "r"(af[mi][2]), "r"(af[mi][3]), "r"(bf[ni][0]), "r"(bf[ni][1]));
        }
        __syncthreads();
    }
    int g = lane / 4, t = lane % 4;
    #pragma unroll
    for (int mi = 0; mi < 2; ++mi)
        #pragma unroll
        for (int ni = 0; ni < 4; ++ni) {
            int r = bm + wm + mi * 16 + g, c = bn + wn + ni * 8 + 2 * t;
            if (r < M && c + 1 < N) {
                *(float2*)&C[r * N + c] = make_float2(acc[mi][ni][0], acc[mi][ni][1]);
                *(float2*)&C[(r + 8) * N + c] = make_float2(acc[mi][ni][2], acc[mi][ni][3]);
            }
        }
}
