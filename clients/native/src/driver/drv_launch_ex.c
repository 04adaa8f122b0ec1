/* drv_launch_ex: cuLaunchKernelEx with a CUlaunchConfig: grid/block dimensions, dynamic
 * shared memory (the kernel declares `extern __shared__ int seg[]`), a stream, and
 * attributes: none, then CU_LAUNCH_ATTRIBUTE_PRIORITY (accepted on every device). Each
 * block reverses its segment through shared memory. */
#include "drv_check.h"
#include "kernels_ptx.h"

static int check_reversed(const int *h, int blocks, int bs, int rounds) {
    int b, t;
    for (b = 0; b < blocks; b++)
        for (t = 0; t < bs; t++) {
            int i = b * bs + t;
            /* an even number of reversals restores the input */
            int want = (rounds % 2) ? b * bs + (bs - 1 - t) : i;
            if (h[i] != want) {
                printf("mismatch at %d: got %d, expected %d\n", i, h[i], want);
                return 0;
            }
        }
    return 1;
}

int main(void) {
    CUcontext ctx = setup_context(NULL);
    CUmodule mod;
    CUfunction f;
    CUstream stream;
    CUdeviceptr d;
    const int blocks = 6, bs = 192, n = blocks * bs;
    int h[6 * 192], i;
    for (i = 0; i < n; i++) h[i] = i;
    CK(cuModuleLoadData(&mod, kernels_ptx));
    CK(cuModuleGetFunction(&f, mod, "dyn_reverse"));
    CK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CK(cuMemAlloc(&d, sizeof(h)));
    CK(cuMemcpyHtoD(d, h, sizeof(h)));
    void *args[] = {&d};

    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.gridDimX = blocks;
    cfg.gridDimY = 1;
    cfg.gridDimZ = 1;
    cfg.blockDimX = bs;
    cfg.blockDimY = 1;
    cfg.blockDimZ = 1;
    cfg.sharedMemBytes = bs * sizeof(int);
    cfg.hStream = stream;
    cfg.attrs = NULL;
    cfg.numAttrs = 0;
    CK(cuLaunchKernelEx(&cfg, f, args, NULL));
    CK(cuStreamSynchronize(stream));
    CK(cuMemcpyDtoH(h, d, sizeof(h)));
    int ok1 = check_reversed(h, blocks, bs, 1);
    printf("cuLaunchKernelEx, %u bytes dynamic shared memory, no attributes: %s\n", cfg.sharedMemBytes,
           ok1 ? "ok" : "WRONG");

    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    attr.value.priority = 0;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CK(cuLaunchKernelEx(&cfg, f, args, NULL));
    CK(cuStreamSynchronize(stream));
    CK(cuMemcpyDtoH(h, d, sizeof(h)));
    int ok2 = check_reversed(h, blocks, bs, 2);
    printf("cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_PRIORITY: %s\n", ok2 ? "ok" : "WRONG");

    /* on the NULL stream, twice in a row */
    cfg.hStream = NULL;
    CK(cuLaunchKernelEx(&cfg, f, args, NULL));
    CK(cuLaunchKernelEx(&cfg, f, args, NULL));
    CK(cuCtxSynchronize());
    CK(cuMemcpyDtoH(h, d, sizeof(h)));
    int ok3 = check_reversed(h, blocks, bs, 4);
    printf("cuLaunchKernelEx twice on the NULL stream: %s\n", ok3 ? "ok" : "WRONG");
    REQUIRE(ok1 && ok2 && ok3);

    CK(cuMemFree(d));
    CK(cuStreamDestroy(stream));
    CK(cuModuleUnload(mod));
    CK(cuCtxDestroy(ctx));
    printf("PASSED\n");
    return 0;
}
