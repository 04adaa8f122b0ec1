// vector_add: cudaMalloc, cudaMemcpy H2D/D2H, one <<<grid, block>>> launch with a
// bounds check (n is not a multiple of the block size), cudaFree.
// Every sum is exact in float: a[i] = i/2 and b[i] = (n-i)/4 need at most 17 bits.
#include "check.h"
#include <vector>

__global__ void vector_add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    const int n = 50000;
    const int block = 256;
    const int grid = (n + block - 1) / block;
    std::vector<float> a(n), b(n), c(n, -1.0f);
    for (int i = 0; i < n; i++) {
        a[i] = i * 0.5f;
        b[i] = (n - i) * 0.25f;
    }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, n * sizeof(float)));
    CHECK(cudaMalloc(&db, n * sizeof(float)));
    CHECK(cudaMalloc(&dc, n * sizeof(float)));
    CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    printf("vector_add: n=%d grid=%d block=%d\n", n, grid, block);
    vector_add<<<grid, block>>>(da, db, dc, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float want = a[i] + b[i];
        if (c[i] != want) fail_mismatch_d("c", i, c[i], want);
    }
    printf("result: %d/%d correct\n", n, n);
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    printf("PASSED\n");
    return 0;
}
