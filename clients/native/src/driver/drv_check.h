/* Shared helpers for the driver-API client programs of ptxvm's libcuda test suite.
 * Every program prints deterministic lines, ends with "PASSED" and exit status 0; on the
 * first failure it prints one "FAILED: ..." line and exits with status 1. */
#pragma once
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline const char *errname(CUresult r) {
    const char *s = NULL;
    if (cuGetErrorName(r, &s) != CUDA_SUCCESS || s == NULL) return "(no name)";
    return s;
}

#define CK(call)                                                                              \
    do {                                                                                      \
        CUresult ck_r_ = (call);                                                              \
        if (ck_r_ != CUDA_SUCCESS) {                                                          \
            printf("FAILED: %s (line %d) returned %s (%d)\n", #call, __LINE__, errname(ck_r_), \
                   (int)ck_r_);                                                               \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

/* Run CALL, print "LABEL: NAME", fail unless it returned WANT. */
#define EXPECT(label, call, want)                                                             \
    do {                                                                                      \
        CUresult ex_r_ = (call);                                                              \
        printf("%s: %s\n", label, errname(ex_r_));                                            \
        if (ex_r_ != (want)) {                                                                \
            printf("FAILED: %s (line %d): expected %s (%d), got %d\n", #call, __LINE__,       \
                   errname(want), (int)(want), (int)ex_r_);                                   \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

#define REQUIRE(cond)                                                                         \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            printf("FAILED: requirement %s (line %d)\n", #cond, __LINE__);                    \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

static inline const char *yesno(int b) { return b ? "yes" : "no"; }

/* cuInit + device 0 + a new context made current. */
static inline CUcontext setup_context(CUdevice *pdev) {
    CUdevice dev;
    CUcontext ctx;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuCtxCreate(&ctx, NULL, 0, dev));
    if (pdev) *pdev = dev;
    return ctx;
}

/* Launch vadd from MOD on n elements and check c = a + b exactly. Returns 1 if correct. */
static inline int run_vadd(CUmodule mod, int n) {
    CUfunction f;
    CUdeviceptr da, db, dc;
    float *a = (float *)malloc(n * sizeof(float)), *b = (float *)malloc(n * sizeof(float)),
          *c = (float *)malloc(n * sizeof(float));
    int i, ok = 1;
    for (i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)(n - i);
        c[i] = -1.0f;
    }
    CK(cuModuleGetFunction(&f, mod, "vadd"));
    CK(cuMemAlloc(&da, n * sizeof(float)));
    CK(cuMemAlloc(&db, n * sizeof(float)));
    CK(cuMemAlloc(&dc, n * sizeof(float)));
    CK(cuMemcpyHtoD(da, a, n * sizeof(float)));
    CK(cuMemcpyHtoD(db, b, n * sizeof(float)));
    void *args[] = {&da, &db, &dc, &n};
    CK(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    CK(cuCtxSynchronize());
    CK(cuMemcpyDtoH(c, dc, n * sizeof(float)));
    for (i = 0; i < n; i++)
        if (c[i] != a[i] + b[i]) {
            printf("vadd mismatch at %d: got %g, expected %g\n", i, c[i], a[i] + b[i]);
            ok = 0;
            break;
        }
    CK(cuMemFree(da));
    CK(cuMemFree(db));
    CK(cuMemFree(dc));
    free(a);
    free(b);
    free(c);
    return ok;
}
