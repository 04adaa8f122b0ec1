// fixture: min_sm=70 variants=lineinfo
// WMMA (nvcuda::wmma) half-precision fragments: wmma.load / wmma.mma / wmma.store.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_gemm_f16_f32(const half* A, const half* B, float* C, int M, int N, int K) {
    int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int warpN = blockIdx.y * blockDim.y + threadIdx.y;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < K; k += 16) {
        int ar = warpM * 16, bc = warpN * 16;
        if (ar < M && bc < N) {
            wmma::load_matrix_sync(a, A + ar * K + k, K);
            wmma::load_matrix_sync(b, B + bc * K + k, K);
            wmma::mma_sync(acc, a, b, acc);
        }
    }
    if (warpM * 16 < M && warpN * 16 < N)
        wmma::store_matrix_sync(C + warpM * 16 * N + warpN * 16, acc, N, wmma::mem_row_major);
}

extern "C" __global__ void wmma_shapes_f16_acc(const half* A, const half* B, half* C) {
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> a1;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> b1;
    wmma::fragment<wmma::accumulator, 32, 8, 16, half> c1;
    wmma::fragment<wmma::matrix_a, 8, 32, 16, half, wmma::col_major> a2;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, half, wmma::col_major> b2;
    wmma::fragment<wmma::accumulator, 8, 32, 16, half> c2;
    wmma::load_matrix_sync(a1, A, 16);
    wmma::load_matrix_sync(b1, B, 8);
    wmma::fill_fragment(c1, __float2half(1.0f));
    wmma::mma_sync(c1, a1, b1, c1);
    for (int i = 0; i < c1.num_elements; ++i) c1.x[i] = __hmul(c1.x[i], __float2half(0.5f));
    wmma::store_matrix_sync(C, c1, 8, wmma::mem_row_major);
    wmma::load_matrix_sync(a2, A + 512, 8);
    wmma::load_matrix_sync(b2, B + 512, 16);
    wmma::load_matrix_sync(c2, C + 512, 32, wmma::mem_col_major);
    wmma::mma_sync(c2, a2, b2, c2);
    wmma::store_matrix_sync(C + 512, c2, 32, wmma::mem_col_major);
}

// Shared-memory staged WMMA: 4 warps compute a 32x32 tile.
extern "C" __global__ void wmma_shared_staged(const half* A, const half* B, float* C, int K) {
    __shared__ half As[32][16 + 8];
    __shared__ half Bs[16][32 + 8];
    int warp = threadIdx.x / 32;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int l = threadIdx.x; l < 32 * 16; l += blockDim.x) {
            As[l / 16][l % 16] = A[(blockIdx.y * 32 + l / 16) * K + k0 + l % 16];
            Bs[l / 32][l % 32] = B[(k0 + l / 32) * (gridDim.x * 32) + blockIdx.x * 32 + l % 32];
        }
        __syncthreads();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
        wmma::load_matrix_sync(a, &As[(warp / 2) * 16][0], 16 + 8);
        wmma::load_matrix_sync(b, &Bs[0][(warp % 2) * 16], 32 + 8);
        wmma::mma_sync(acc, a, b, acc);
        __syncthreads();
    }
    int ldc = gridDim.x * 32;
    wmma::store_matrix_sync(C + (blockIdx.y * 32 + (warp / 2) * 16) * ldc + blockIdx.x * 32 + (warp % 2) * 16, acc, ldc, wmma::mem_row_major);
}
