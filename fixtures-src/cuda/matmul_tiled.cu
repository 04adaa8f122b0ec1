// fixture: min_sm=70 variants=lineinfo
// Shared-memory tiled SGEMM/DGEMM with templated tile sizes and register blocking.
template <int TILE>
__global__ void sgemm_tiled(const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.f;
        Bs[threadIdx.y][threadIdx.x] = (col < N && bk < K) ? B[bk * N + col] : 0.f;
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
template __global__ void sgemm_tiled<8>(const float*, const float*, float*, int, int, int, float, float);
template __global__ void sgemm_tiled<16>(const float*, const float*, float*, int, int, int, float, float);
template __global__ void sgemm_tiled<32>(const float*, const float*, float*, int, int, int, float, float);

// 64x64 block tile, each thread computes a 4x4 micro-tile (256 threads).
extern "C" __global__ void sgemm_register_blocked(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
    constexpr int BM = 64, BN = 64, BK = 16, TM = 4, TN = 4;
    __shared__ float As[BK][BM];
    __shared__ float Bs[BK][BN];
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int l = threadIdx.x; l < BM * BK; l += 256) {
            int m = l / BK, k = l % BK;
            As[k][m] = (bm + m < M && k0 + k < K) ? A[(bm + m) * K + k0 + k] : 0.f;
            int kk = l / BN, nn = l % BN;
            Bs[kk][nn] = (k0 + kk < K && bn + nn < N) ? B[(k0 + kk) * N + bn + nn] : 0.f;
        }
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            #pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = As[k][ty * TM + i];
            #pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Bs[k][tx * TN + j];
            #pragma unroll
            for (int i = 0; i < TM; ++i)
                #pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    #pragma unroll
    for (int i = 0; i < TM; ++i)
        #pragma unroll
        for (int j = 0; j < TN; ++j) {
            int r = bm + ty * TM + i, c = bn + tx * TN + j;
            if (r < M && c < N) C[r * N + c] = acc[i][j];
        }
}

extern "C" __global__ void dgemm_tiled16(const double* A, const double* B, double* C, int n) {
    __shared__ double As[16][16], Bs[16][16];
    int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
    double acc = 0.0;
    for (int t = 0; t < n; t += 16) {
        As[threadIdx.y][threadIdx.x] = A[r * n + t + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + c];
        __syncthreads();
        for (int k = 0; k < 16; ++k) acc = fma(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
        __syncthreads();
    }
    C[r * n + c] = acc;
}

extern "C" __global__ void sgemv(const float* A, const float* x, float* y, int rows, int cols) {
    int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    float acc = 0.f;
    for (int c = lane; c < cols; c += 32) acc += A[(size_t)r * cols + c] * __ldg(&x[c]);
    for (int o = 16; o; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) y[r] = acc;
}
