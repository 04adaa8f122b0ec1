// symbols: __constant__ and __device__ arrays and scalars (with and without
// initializers), cudaMemcpyToSymbol (whole and at an offset), cudaMemcpyFromSymbol,
// cudaGetSymbolAddress + plain cudaMemcpy, cudaGetSymbolSize.
#include "check.h"

__constant__ float c_coeffs[16];
__constant__ int c_scale;
__constant__ int c_init[4] = {11, 22, 33, 44};
__device__ int d_table[256];
__device__ unsigned long long d_counter;
__device__ int d_init[4] = {1, 2, 3, 4};

__global__ void use_symbols(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = d_table[i] * (float)c_scale + c_coeffs[i % 16] + c_init[i % 4] + d_init[i % 4];
        d_table[i] = -d_table[i];
        atomicAdd(&d_counter, (unsigned long long)(i + 1));
    }
}

int main() {
    const int n = 256;
    size_t sz = 0;
    CHECK(cudaGetSymbolSize(&sz, c_coeffs));
    printf("cudaGetSymbolSize(c_coeffs)=%zu\n", sz);
    REQUIRE(sz == 64);
    CHECK(cudaGetSymbolSize(&sz, c_scale));
    printf("cudaGetSymbolSize(c_scale)=%zu\n", sz);
    REQUIRE(sz == 4);
    CHECK(cudaGetSymbolSize(&sz, d_table));
    printf("cudaGetSymbolSize(d_table)=%zu\n", sz);
    REQUIRE(sz == 1024);
    CHECK(cudaGetSymbolSize(&sz, d_counter));
    printf("cudaGetSymbolSize(d_counter)=%zu\n", sz);
    REQUIRE(sz == 8);

    // initialized symbols hold their initial values before anything is copied
    int init[4] = {0, 0, 0, 0};
    CHECK(cudaMemcpyFromSymbol(init, d_init, sizeof(init)));
    printf("d_init=%d,%d,%d,%d\n", init[0], init[1], init[2], init[3]);
    REQUIRE(init[0] == 1 && init[1] == 2 && init[2] == 3 && init[3] == 4);
    CHECK(cudaMemcpyFromSymbol(init, c_init, sizeof(init)));
    printf("c_init=%d,%d,%d,%d\n", init[0], init[1], init[2], init[3]);
    REQUIRE(init[0] == 11 && init[1] == 22 && init[2] == 33 && init[3] == 44);

    float coeffs[16];
    for (int i = 0; i < 16; i++) coeffs[i] = 0.5f * i;
    CHECK(cudaMemcpyToSymbol(c_coeffs, coeffs, 8 * sizeof(float)));  // first half
    CHECK(cudaMemcpyToSymbol(c_coeffs, coeffs + 8, 8 * sizeof(float), 8 * sizeof(float),
                             cudaMemcpyHostToDevice));  // second half, at an offset
    int scale = 3;
    CHECK(cudaMemcpyToSymbol(c_scale, &scale, sizeof(int)));
    int table[n];
    for (int i = 0; i < n; i++) table[i] = i - 100;
    CHECK(cudaMemcpyToSymbol(d_table, table, sizeof(table)));
    unsigned long long zero = 0;
    CHECK(cudaMemcpyToSymbol(d_counter, &zero, sizeof(zero)));

    float *dout;
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    use_symbols<<<2, 128>>>(dout, n);
    CHECK_LAUNCH();
    float out[n];
    CHECK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
    const int ci[4] = {11, 22, 33, 44};
    for (int i = 0; i < n; i++) {
        float want = table[i] * 3.0f + coeffs[i % 16] + ci[i % 4] + (i % 4 + 1);
        if (out[i] != want) fail_mismatch_d("out", i, out[i], want);
    }
    printf("kernel read __constant__ and __device__ symbols: ok\n");

    // read back through cudaMemcpyFromSymbol (whole, and at an offset)
    int back[n];
    CHECK(cudaMemcpyFromSymbol(back, d_table, sizeof(back)));
    for (int i = 0; i < n; i++)
        if (back[i] != 100 - i) fail_mismatch_ll("d_table via cudaMemcpyFromSymbol", i, back[i], 100 - i);
    int tail[4];
    CHECK(cudaMemcpyFromSymbol(tail, d_table, sizeof(tail), 252 * sizeof(int), cudaMemcpyDeviceToHost));
    printf("d_table[252..255]=%d,%d,%d,%d\n", tail[0], tail[1], tail[2], tail[3]);
    REQUIRE(tail[0] == -152 && tail[3] == -155);
    unsigned long long counter = 0;
    CHECK(cudaMemcpyFromSymbol(&counter, d_counter, sizeof(counter)));
    printf("d_counter=%llu\n", counter);
    REQUIRE(counter == (unsigned long long)n * (n + 1) / 2);

    // cudaGetSymbolAddress: the symbol is ordinary device memory
    int *ptable = nullptr;
    CHECK(cudaGetSymbolAddress((void **)&ptable, d_table));
    REQUIRE(ptable != nullptr);
    CHECK(cudaMemset(ptable + 10, 0, 5 * sizeof(int)));
    CHECK(cudaMemcpy(back, ptable, sizeof(back), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        int want = (i >= 10 && i < 15) ? 0 : 100 - i;
        if (back[i] != want) fail_mismatch_ll("d_table via cudaGetSymbolAddress", i, back[i], want);
    }
    printf("cudaGetSymbolAddress + cudaMemset/cudaMemcpy: ok\n");
    float *pcoeffs = nullptr;
    CHECK(cudaGetSymbolAddress((void **)&pcoeffs, c_coeffs));
    float c15 = 0;
    CHECK(cudaMemcpy(&c15, pcoeffs + 15, sizeof(float), cudaMemcpyDeviceToHost));
    printf("c_coeffs[15] via its address=%.1f\n", c15);
    REQUIRE(c15 == 7.5f);
    CHECK(cudaFree(dout));
    printf("PASSED\n");
    return 0;
}
