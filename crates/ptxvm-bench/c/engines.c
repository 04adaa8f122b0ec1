/* C references of the engines benchmark's kernels (crates/ptxvm-bench/kernels/).
 *
 * Each function computes what its kernel computes, in the same order of floating-point
 * operations (explicit fmaf where the kernel has fmaf, the kernel's reduction tree), so
 * its results are bit for bit the kernel's. Parallel loops use OpenMP; the caller sets
 * the thread count (bench_set_threads) equal to the engine's for each comparison.
 * Compiled by build.rs with -O3 -march=native -fopenmp.
 */
#include <math.h>
#include <omp.h>
#include <string.h>

void bench_set_threads(int n) { omp_set_num_threads(n); }

/* vector_add.cu: c[i] = a[i] + b[i]. */
void vec_add_c(const float *restrict a, const float *restrict b, float *restrict c, int n) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

/* poly.cu, element by element as the kernel's threads do it. */
static inline float poly_step(float x, float c0) {
    return fmaf(fmaf(fmaf(fmaf(-0.03125f, x, 0.0625f), x, -0.125f), x, 0.5f), x, c0);
}

void poly_c(const float *restrict in, float *restrict out, int n, int iters) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) {
        float x = in[i];
        float c0 = x * 0.25f;
        for (int k = 0; k < iters; ++k) x = poly_step(x, c0);
        out[i] = x;
    }
}

/* poly.cu, the "best simple C": 128 elements at a time, the iteration loop outside the
 * element loop, so the compiler vectorises across elements (8 independent AVX-512 or 16
 * AVX2 chains of FMAs). */
#define POLY_BLOCK 128
void poly_blocked_c(const float *restrict in, float *restrict out, int n, int iters) {
    int blocks = (n + POLY_BLOCK - 1) / POLY_BLOCK;
#pragma omp parallel for schedule(static)
    for (int b = 0; b < blocks; ++b) {
        int base = b * POLY_BLOCK;
        int len = n - base < POLY_BLOCK ? n - base : POLY_BLOCK;
        float x[POLY_BLOCK], c0[POLY_BLOCK];
        for (int j = 0; j < POLY_BLOCK; ++j) {
            x[j] = j < len ? in[base + j] : 0.0f;
            c0[j] = x[j] * 0.25f;
        }
        for (int k = 0; k < iters; ++k)
            for (int j = 0; j < POLY_BLOCK; ++j) x[j] = poly_step(x[j], c0[j]);
        for (int j = 0; j < len; ++j) out[base + j] = x[j];
    }
}

/* reduce.cu: each block of 512 elements summed as the kernel's CTA of 256 threads does:
 * acc[t] = (0 + in[t]) + in[t + 256], then the tree s[t] += s[t + st] for st = 128 .. 1. */
#define RED_BLOCK 256
void reduce_c(const float *restrict in, float *restrict out, unsigned n) {
    unsigned ctas = (n + 2 * RED_BLOCK - 1) / (2 * RED_BLOCK);
#pragma omp parallel for schedule(static)
    for (unsigned c = 0; c < ctas; ++c) {
        float s[RED_BLOCK];
        unsigned base = c * 2 * RED_BLOCK;
        for (unsigned t = 0; t < RED_BLOCK; ++t) {
            unsigned i = base + t;
            float acc = 0.0f;
            if (i < n) acc += in[i];
            if (i + RED_BLOCK < n) acc += in[i + RED_BLOCK];
            s[t] = acc;
        }
        for (unsigned st = RED_BLOCK / 2; st > 0; st >>= 1)
            for (unsigned t = 0; t < st; ++t) s[t] += s[t + st];
        out[c] = s[0];
    }
}

/* scan.cu: inclusive prefix sum of each block of 256 ints (wrapping, as the kernel's
 * 32-bit adds). */
#define SCAN_BLOCK 256
void scan_c(const int *restrict in, int *restrict out, int n) {
    int blocks = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
#pragma omp parallel for schedule(static)
    for (int b = 0; b < blocks; ++b) {
        unsigned acc = 0;
        int end = (b + 1) * SCAN_BLOCK < n ? (b + 1) * SCAN_BLOCK : n;
        for (int i = b * SCAN_BLOCK; i < end; ++i) {
            acc += (unsigned)in[i];
            out[i] = (int)acc;
        }
    }
}

/* sgemm.cu with the kernel's tiling: a 16x16 tile of C per iteration of the parallel loop
 * (a CTA), the 16x16 tiles of A and B copied to local arrays (shared memory), and
 * acc[ty][tx] = fmaf(As[ty][k], Bs[k][tx], acc[ty][tx]) for k in order. n % 16 == 0. */
#define T 16
void sgemm_tiled_c(const float *restrict A, const float *restrict B, float *restrict C, int n) {
    int tiles = n / T;
#pragma omp parallel for schedule(static)
    for (int bt = 0; bt < tiles * tiles; ++bt) {
        int by = bt / tiles, bx = bt % tiles;
        float As[T][T], Bs[T][T], acc[T][T];
        memset(acc, 0, sizeof acc);
        for (int t = 0; t < n; t += T) {
            for (int ty = 0; ty < T; ++ty)
                for (int tx = 0; tx < T; ++tx) {
                    As[ty][tx] = A[(by * T + ty) * n + t + tx];
                    Bs[ty][tx] = B[(t + ty) * n + bx * T + tx];
                }
            for (int ty = 0; ty < T; ++ty)
                for (int k = 0; k < T; ++k) {
                    float a = As[ty][k];
#pragma omp simd
                    for (int tx = 0; tx < T; ++tx) acc[ty][tx] = fmaf(a, Bs[k][tx], acc[ty][tx]);
                }
        }
        for (int ty = 0; ty < T; ++ty)
            for (int tx = 0; tx < T; ++tx) C[(by * T + ty) * n + bx * T + tx] = acc[ty][tx];
    }
}

/* The "best simple C" SGEMM: the naive i-k-j loop (row i of C accumulates A[i][k] * row k
 * of B), which adds over k in the same order as the kernel. */
void sgemm_ikj_c(const float *restrict A, const float *restrict B, float *restrict C, int n) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) {
        float *restrict c = C + (long)i * n;
        for (int j = 0; j < n; ++j) c[j] = 0.0f;
        for (int k = 0; k < n; ++k) {
            float a = A[(long)i * n + k];
            const float *restrict b = B + (long)k * n;
            for (int j = 0; j < n; ++j) c[j] = fmaf(a, b[j], c[j]);
        }
    }
}
