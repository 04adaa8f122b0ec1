// Engines benchmark: C = A * B (f32, row-major, n x n, n a multiple of 16) with 16x16
// shared-memory tiles; one thread per element of C, blocks of 16x16 threads. Every
// element accumulates acc = fmaf(a, b, acc) over k = 0, 1, ..., n-1 in order, so the C
// references in ../c/engines.c (sgemm_tiled_c: the same tiling; sgemm_ikj_c: the naive
// i-k-j loop) give the same bits.
#define T 16
extern "C" __global__ void sgemm_tiled16(const float* __restrict__ A,
                                         const float* __restrict__ B, float* __restrict__ C,
                                         int n) {
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += T) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < T; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    C[row * n + col] = acc;
}
