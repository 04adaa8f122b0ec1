/* drv_errors: driver error codes and their names. cuGetErrorName must give NVIDIA's
 * names (the description strings from cuGetErrorString are the driver's own, so only
 * their presence is checked):
 *   CUDA_SUCCESS; CUDA_ERROR_NOT_INITIALIZED (calls before cuInit);
 *   CUDA_ERROR_INVALID_VALUE (cuMemAlloc of 0 bytes, NULL output pointer,
 *   cuGetErrorName of an unknown code); CUDA_ERROR_OUT_OF_MEMORY (cuMemAlloc of 1 PiB);
 *   CUDA_ERROR_INVALID_DEVICE (cuDeviceGet(99)); CUDA_ERROR_INVALID_HANDLE (a destroyed
 *   stream, event and module); CUDA_ERROR_NOT_FOUND (missing kernel and global names).
 * None of them is sticky: a kernel runs correctly at the end. */
#include "drv_check.h"
#include "kernels_ptx.h"

static void show(const char *label, CUresult got, CUresult want) {
    const char *s = NULL;
    CUresult rs = cuGetErrorString(got, &s);
    printf("%s: %s (description present: %s)\n", label, errname(got),
           yesno(rs == CUDA_SUCCESS && s != NULL && s[0] != 0));
    if (got != want || rs != CUDA_SUCCESS || s == NULL || s[0] == 0) {
        printf("FAILED: %s: expected %s (%d), got %d\n", label, errname(want), (int)want, (int)got);
        exit(1);
    }
}

int main(void) {
    int count = -1;
    CUdevice dev;
    CUcontext ctx;
    const char *name = NULL;

    /* name lookups work before cuInit */
    CK(cuGetErrorName(CUDA_SUCCESS, &name));
    printf("cuGetErrorName(0) before cuInit: %s\n", name);
    REQUIRE(strcmp(name, "CUDA_SUCCESS") == 0);
    show("cuDeviceGetCount before cuInit", cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
    show("cuDeviceGet before cuInit", cuDeviceGet(&dev, 0), CUDA_ERROR_NOT_INITIALIZED);

    CK(cuInit(0));
    show("cuInit", CUDA_SUCCESS, CUDA_SUCCESS);
    show("cuDeviceGet(99)", cuDeviceGet(&dev, 99), CUDA_ERROR_INVALID_DEVICE);
    CK(cuDeviceGet(&dev, 0));
    CK(cuCtxCreate(&ctx, NULL, 0, dev));

    CUdeviceptr p = 0;
    show("cuMemAlloc(0 bytes)", cuMemAlloc(&p, 0), CUDA_ERROR_INVALID_VALUE);
    show("cuMemAlloc(NULL, 16)", cuMemAlloc(NULL, 16), CUDA_ERROR_INVALID_VALUE);
    show("cuMemAlloc(1 PiB)", cuMemAlloc(&p, (size_t)1 << 50), CUDA_ERROR_OUT_OF_MEMORY);
    name = "untouched";
    CUresult r = cuGetErrorName((CUresult)987654, &name);
    printf("cuGetErrorName(987654): %s, name set to NULL: %s\n", errname(r), yesno(name == NULL));
    REQUIRE(r == CUDA_ERROR_INVALID_VALUE && name == NULL);

    CUstream s;
    CK(cuStreamCreate(&s, 0));
    CK(cuStreamDestroy(s));
    show("cuStreamQuery(destroyed stream)", cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
    CUevent e;
    CK(cuEventCreate(&e, 0));
    CK(cuEventDestroy(e));
    show("cuEventQuery(destroyed event)", cuEventQuery(e), CUDA_ERROR_INVALID_HANDLE);

    CUmodule mod, gone;
    CUfunction f;
    CK(cuModuleLoadData(&gone, kernels_ptx));
    CK(cuModuleUnload(gone));
    show("cuModuleGetFunction(unloaded module)", cuModuleGetFunction(&f, gone, "vadd"), CUDA_ERROR_INVALID_HANDLE);

    CK(cuModuleLoadData(&mod, kernels_ptx));
    show("cuModuleGetFunction(\"no_such_kernel\")", cuModuleGetFunction(&f, mod, "no_such_kernel"),
         CUDA_ERROR_NOT_FOUND);
    CUdeviceptr g;
    size_t gsize;
    show("cuModuleGetGlobal(\"no_such_global\")", cuModuleGetGlobal(&g, &gsize, mod, "no_such_global"),
         CUDA_ERROR_NOT_FOUND);

    /* all of the above left the context healthy */
    CK(cuCtxSynchronize());
    int ok = run_vadd(mod, 2000);
    printf("kernel after the errors: %s\n", ok ? "ok" : "WRONG");
    REQUIRE(ok);
    CK(cuModuleUnload(mod));
    CK(cuCtxDestroy(ctx));
    printf("PASSED\n");
    return 0;
}
