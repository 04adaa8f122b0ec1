// matmul_tiled: C = A * B with 16x16 shared-memory tiles and __syncthreads, as in the
// CUDA samples' matrixMul, for a tile-multiple size and for a size that is not a
// multiple of the tile in any dimension (edge tiles are zero-padded).
// Inputs are small integers, so every product and partial sum is exact in float.
#include "check.h"
#include <vector>

#define TILE 16

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; t++) {
        int ka = t * TILE + threadIdx.x;
        int kb = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

static void run(int M, int N, int K) {
    std::vector<float> A((size_t)M * K), B((size_t)K * N), C((size_t)M * N, -1.0f);
    for (int i = 0; i < M * K; i++) A[i] = (float)((i * 7) % 11 - 5);
    for (int i = 0; i < K * N; i++) B[i] = (float)((i * 5) % 13 - 6);
    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
    CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
    CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
    CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dC, 0xff, C.size() * sizeof(float)));
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul_tiled<<<grid, block>>>(dA, dB, dC, M, N, K);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
    long long checksum = 0;
    for (int r = 0; r < M; r++)
        for (int c = 0; c < N; c++) {
            long long want = 0;
            for (int k = 0; k < K; k++) want += (long long)A[r * K + k] * (long long)B[k * N + c];
            if (C[r * N + c] != (float)want) fail_mismatch_d("C", (long long)r * N + c, C[r * N + c], (double)want);
            checksum += want;
        }
    printf("matmul_tiled: M=%d N=%d K=%d tile=%d grid=(%u,%u) checksum=%lld ok\n", M, N, K, TILE, grid.x, grid.y,
           checksum);
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
}

int main() {
    run(48, 48, 48);
    run(37, 45, 53);
    printf("PASSED\n");
    return 0;
}
