/* drv_contexts: explicit contexts and the context stack, then the primary context.
 *  - cuCtxCreate twice (each becomes current, pushed on the stack), cuCtxGetCurrent,
 *    cuCtxGetDevice, cuCtxGetApiVersion, cuCtxPopCurrent/cuCtxPushCurrent/cuCtxSetCurrent;
 *  - a module per context; memory allocated in the first context is copied (unified
 *    addressing) while the second is current, and used by a kernel once the first is
 *    current again;
 *  - cuCtxDestroy of a context that is not current, then of the current one (the stack
 *    becomes empty);
 *  - primary context: cuDevicePrimaryCtxGetState/SetFlags/Retain (twice)/Release. */
#include "drv_check.h"
#include "kernels_ptx.h"

static void scale(CUmodule mod, CUdeviceptr d, int n, int factor) {
    CUfunction f;
    CK(cuModuleGetFunction(&f, mod, "scale_i32"));
    void *args[] = {&d, &n, &factor};
    CK(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    CK(cuCtxSynchronize());
}

static int check(CUdeviceptr d, int n, int mul) {
    int h[1000], i;
    CK(cuMemcpyDtoH(h, d, n * sizeof(int)));
    for (i = 0; i < n; i++)
        if (h[i] != (i + 1) * mul) return 0;
    return 1;
}

int main(void) {
    CUdevice dev, d2;
    CUcontext c1, c2, cur, popped, pc, pc2;
    CUmodule m1, m2, m3;
    CUdeviceptr a1, a2, a3;
    unsigned int api = 0, flags = 12345;
    int active = -1, i;
    const int n = 1000;
    int h[1000];
    for (i = 0; i < n; i++) h[i] = i + 1;

    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuCtxGetCurrent(&cur));
    printf("current context before any: %s\n", cur == NULL ? "none" : "SOME");
    REQUIRE(cur == NULL);

    /* primary context state before anyone retained it */
    CK(cuDevicePrimaryCtxGetState(dev, &flags, &active));
    printf("primary context active before retain: %d\n", active);
    REQUIRE(active == 0);

    CK(cuCtxCreate(&c1, NULL, 0, dev));
    CK(cuCtxGetCurrent(&cur));
    printf("after cuCtxCreate(c1): current is c1: %s\n", yesno(cur == c1));
    REQUIRE(cur == c1);
    CK(cuCtxGetDevice(&d2));
    CK(cuCtxGetApiVersion(c1, &api));
    printf("cuCtxGetDevice is device 0: %s, cuCtxGetApiVersion>=3020: %s\n", yesno(d2 == dev), yesno(api >= 3020));
    REQUIRE(d2 == dev && api >= 3020);
    CK(cuModuleLoadData(&m1, kernels_ptx));
    CK(cuMemAlloc(&a1, n * sizeof(int)));
    CK(cuMemcpyHtoD(a1, h, n * sizeof(int)));

    CK(cuCtxCreate(&c2, NULL, 0, dev));
    CK(cuCtxGetCurrent(&cur));
    printf("after cuCtxCreate(c2): current is c2: %s, c2 differs from c1: %s\n", yesno(cur == c2), yesno(c2 != c1));
    REQUIRE(cur == c2 && c2 != c1);
    CK(cuModuleLoadData(&m2, kernels_ptx));
    CK(cuMemAlloc(&a2, n * sizeof(int)));
    /* c1's memory read while c2 is current (unified addressing) */
    int ok = check(a1, n, 1);
    printf("c1 memory read while c2 current: %s\n", ok ? "ok" : "WRONG");
    REQUIRE(ok);
    CK(cuMemcpyHtoD(a2, h, n * sizeof(int)));
    scale(m2, a2, n, 5);
    ok = check(a2, n, 5);
    printf("kernel in c2: %s\n", ok ? "ok" : "WRONG");
    REQUIRE(ok);

    CK(cuCtxPopCurrent(&popped));
    CK(cuCtxGetCurrent(&cur));
    printf("cuCtxPopCurrent returned c2: %s, current is c1 again: %s\n", yesno(popped == c2), yesno(cur == c1));
    REQUIRE(popped == c2 && cur == c1);
    scale(m1, a1, n, -2);
    ok = check(a1, n, -2);
    printf("kernel in c1 on c1 memory: %s\n", ok ? "ok" : "WRONG");
    REQUIRE(ok);

    CK(cuCtxPushCurrent(c2));
    CK(cuCtxGetCurrent(&cur));
    printf("after cuCtxPushCurrent(c2): current is c2: %s\n", yesno(cur == c2));
    REQUIRE(cur == c2);
    CK(cuCtxSynchronize());
    CK(cuMemFree(a2));
    CK(cuModuleUnload(m2));
    CK(cuCtxPopCurrent(&popped));
    REQUIRE(popped == c2);
    CK(cuCtxDestroy(c2));
    CK(cuCtxGetCurrent(&cur));
    printf("after cuCtxDestroy(c2): current is still c1: %s\n", yesno(cur == c1));
    REQUIRE(cur == c1);

    /* primary context */
    CK(cuDevicePrimaryCtxSetFlags(dev, CU_CTX_SCHED_BLOCKING_SYNC));
    CK(cuDevicePrimaryCtxRetain(&pc, dev));
    CK(cuDevicePrimaryCtxRetain(&pc2, dev));
    CK(cuDevicePrimaryCtxGetState(dev, &flags, &active));
    printf("primary context: same handle on second retain: %s, active: %d, sched flags blocking sync: %s\n",
           yesno(pc == pc2), active, yesno((flags & CU_CTX_SCHED_MASK) == CU_CTX_SCHED_BLOCKING_SYNC));
    REQUIRE(pc == pc2 && active == 1 && (flags & CU_CTX_SCHED_MASK) == CU_CTX_SCHED_BLOCKING_SYNC);
    CK(cuCtxSetCurrent(pc));
    CK(cuCtxGetCurrent(&cur));
    REQUIRE(cur == pc);
    CK(cuModuleLoadData(&m3, kernels_ptx));
    CK(cuMemAlloc(&a3, n * sizeof(int)));
    CK(cuMemcpyHtoD(a3, h, n * sizeof(int)));
    scale(m3, a3, n, 9);
    ok = check(a3, n, 9);
    printf("kernel in the primary context: %s\n", ok ? "ok" : "WRONG");
    REQUIRE(ok);
    CK(cuMemFree(a3));
    CK(cuModuleUnload(m3));
    CK(cuCtxSetCurrent(c1));
    CK(cuDevicePrimaryCtxRelease(dev));
    CK(cuDevicePrimaryCtxGetState(dev, &flags, &active));
    printf("after one release: active: %d\n", active);
    REQUIRE(active == 1);
    CK(cuDevicePrimaryCtxRelease(dev));
    CK(cuDevicePrimaryCtxGetState(dev, &flags, &active));
    printf("after second release: active: %d\n", active);
    REQUIRE(active == 0);

    /* c1 is still fine; destroy it while current */
    ok = check(a1, n, -2);
    REQUIRE(ok);
    CK(cuMemFree(a1));
    CK(cuModuleUnload(m1));
    CK(cuCtxDestroy(c1));
    CK(cuCtxGetCurrent(&cur));
    printf("after cuCtxDestroy(c1): no current context: %s\n", yesno(cur == NULL));
    REQUIRE(cur == NULL);
    printf("PASSED\n");
    return 0;
}
