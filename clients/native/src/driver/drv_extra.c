/* drv_extra: cuLaunchKernel with `extra` = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf,
 * CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END} for
 *   params_probe(int a, char c, double d, short s, double *out, int n)
 * whose parameters sit at offsets 0, 4, 8, 16, 24, 32 (each aligned to its size), 36
 * bytes in all: once from a C struct with the same layout, once from a byte buffer
 * packed by hand (the CUDA samples' ALIGN_UP way); then the same launch with
 * kernelParams, which must give identical results. */
#include <stddef.h>
#include "drv_check.h"
#include "kernels_ptx.h"

struct probe_params {
    int a;       /* 0 */
    char c;      /* 4 */
    double d;    /* 8 */
    short s;     /* 16 */
    double *out; /* 24: a device pointer */
    int n;       /* 32 */
};

#define ALIGN_UP(off, al) (((off) + (al) - 1) & ~((size_t)(al) - 1))

static const int A = -7, N = 64;
static const char C = 'A';
static const double D = 1.5;
static const short S = -300;

static int check(const char *label, CUdeviceptr out) {
    double h[64];
    int i;
    CK(cuMemcpyDtoH(h, out, sizeof(h)));
    int ok = h[0] == A && h[1] == C && h[2] == D && h[3] == S && h[4] == N;
    for (i = 5; i < N && ok; i++) ok = h[i] == D * i + A;
    printf("%s: a=%g c=%g d=%g s=%g n=%g tail %s\n", label, h[0], h[1], h[2], h[3], h[4], ok ? "ok" : "WRONG");
    return ok;
}

int main(void) {
    CUcontext ctx = setup_context(NULL);
    CUmodule mod;
    CUfunction f;
    CUdeviceptr out;
    CK(cuModuleLoadData(&mod, kernels_ptx));
    CK(cuModuleGetFunction(&f, mod, "params_probe"));
    CK(cuMemAlloc(&out, 64 * sizeof(double)));

    /* 1. a struct whose natural layout matches the kernel's parameter layout */
    printf("struct offsets: a=%zu c=%zu d=%zu s=%zu out=%zu n=%zu\n", offsetof(struct probe_params, a),
           offsetof(struct probe_params, c), offsetof(struct probe_params, d), offsetof(struct probe_params, s),
           offsetof(struct probe_params, out), offsetof(struct probe_params, n));
    struct probe_params p;
    memset(&p, 0xcd, sizeof(p)); /* padding holds garbage, as it may in real programs */
    p.a = A;
    p.c = C;
    p.d = D;
    p.s = S;
    p.out = (double *)(uintptr_t)out;
    p.n = N;
    size_t size = offsetof(struct probe_params, n) + sizeof(int); /* 36 */
    void *extra1[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &p, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    CK(cuMemsetD8(out, 0, 64 * sizeof(double)));
    CK(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, NULL, extra1));
    CK(cuCtxSynchronize());
    int ok1 = check("extra (struct, 36 bytes)", out);

    /* 2. hand-packed buffer */
    unsigned char buf[64];
    size_t off = 0;
    memset(buf, 0xee, sizeof(buf));
    off = ALIGN_UP(off, __alignof__(int));    memcpy(buf + off, &A, sizeof(int));      off += sizeof(int);
    off = ALIGN_UP(off, __alignof__(char));   memcpy(buf + off, &C, sizeof(char));     off += sizeof(char);
    off = ALIGN_UP(off, __alignof__(double)); memcpy(buf + off, &D, sizeof(double));   off += sizeof(double);
    off = ALIGN_UP(off, __alignof__(short));  memcpy(buf + off, &S, sizeof(short));    off += sizeof(short);
    off = ALIGN_UP(off, __alignof__(void *)); memcpy(buf + off, &out, sizeof(void *)); off += sizeof(void *);
    off = ALIGN_UP(off, __alignof__(int));    memcpy(buf + off, &N, sizeof(int));      off += sizeof(int);
    printf("hand-packed buffer size: %zu\n", off);
    REQUIRE(off == 36);
    void *extra2[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &off, CU_LAUNCH_PARAM_END};
    CK(cuMemsetD8(out, 0, 64 * sizeof(double)));
    CK(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, NULL, extra2));
    CK(cuCtxSynchronize());
    int ok2 = check("extra (packed buffer)", out);

    /* 3. the same through kernelParams */
    int a = A, n = N;
    char c = C;
    double d = D;
    short s = S;
    void *args[] = {&a, &c, &d, &s, &out, &n};
    CK(cuMemsetD8(out, 0, 64 * sizeof(double)));
    CK(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    CK(cuCtxSynchronize());
    int ok3 = check("kernelParams", out);
    REQUIRE(ok1 && ok2 && ok3);

    CK(cuMemFree(out));
    CK(cuModuleUnload(mod));
    CK(cuCtxDestroy(ctx));
    printf("PASSED\n");
    return 0;
}
