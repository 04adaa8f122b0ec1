// Shared helpers for the runtime-API client programs of ptxvm's libcuda test suite.
// Every program prints deterministic lines, ends with "PASSED" and exit status 0;
// on the first failure it prints one "FAILED: ..." line and exits with status 1.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t check_err_ = (call);                                               \
        if (check_err_ != cudaSuccess) {                                               \
            printf("FAILED: %s (line %d) returned %s\n", #call, __LINE__,              \
                   cudaGetErrorName(check_err_));                                      \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

// After a <<<...>>> launch: the launch itself must have been accepted.
#define CHECK_LAUNCH() CHECK(cudaGetLastError())

// Expect a specific error code from a call (used by the error-path programs).
#define EXPECT_ERR(call, expected)                                                     \
    do {                                                                               \
        cudaError_t expect_err_ = (call);                                              \
        if (expect_err_ != (expected)) {                                               \
            printf("FAILED: %s (line %d) returned %s, expected %s\n", #call, __LINE__, \
                   cudaGetErrorName(expect_err_), cudaGetErrorName(expected));         \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

#define REQUIRE(cond)                                                                  \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            printf("FAILED: requirement %s (line %d)\n", #cond, __LINE__);             \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

static inline void fail_mismatch_ll(const char *what, long long index, long long got, long long want) {
    printf("FAILED: %s mismatch at %lld: got %lld, expected %lld\n", what, index, got, want);
    exit(1);
}

static inline void fail_mismatch_d(const char *what, long long index, double got, double want) {
    printf("FAILED: %s mismatch at %lld: got %.17g, expected %.17g\n", what, index, got, want);
    exit(1);
}

static inline const char *yesno(bool b) { return b ? "yes" : "no"; }
