/* drv_vector_add: the classic driver-API sequence. cuInit, cuDriverGetVersion,
 * cuDeviceGetCount/Get/GetName/GetAttribute/TotalMem, cuCtxCreate, cuModuleLoadData
 * with PTX text, cuModuleGetFunction, cuMemAlloc, cuMemcpyHtoD, cuLaunchKernel with
 * kernelParams, cuCtxSynchronize, cuMemcpyDtoH, cuMemFree, cuModuleUnload,
 * cuCtxDestroy. */
#include "drv_check.h"
#include "kernels_ptx.h"

int main(void) {
    int version = 0, count = 0, major = 0, minor = 0, i;
    char name[256];
    size_t total = 0;
    CUdevice dev;
    CUcontext ctx, cur;
    CUmodule mod;
    CUfunction f;
    CK(cuInit(0));
    CK(cuDriverGetVersion(&version));
    printf("cuDriverGetVersion>=12000: %s\n", yesno(version >= 12000));
    CK(cuDeviceGetCount(&count));
    printf("device count>=1: %s\n", yesno(count >= 1));
    REQUIRE(version >= 12000 && count >= 1);
    CK(cuDeviceGet(&dev, 0));
    CK(cuDeviceGetName(name, sizeof(name), dev));
    printf("device name non-empty: %s\n", yesno(name[0] != 0));
    CK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    printf("compute capability: %d.%d\n", major, minor);
    CK(cuDeviceTotalMem(&total, dev));
    printf("total memory>0: %s\n", yesno(total > 0));
    REQUIRE(name[0] != 0 && total > 0);

    CK(cuCtxCreate(&ctx, NULL, 0, dev));
    CK(cuCtxGetCurrent(&cur));
    REQUIRE(cur == ctx);
    CK(cuModuleLoadData(&mod, kernels_ptx));
    CK(cuModuleGetFunction(&f, mod, "vadd"));

    const int n = 10007;
    const size_t bytes = n * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
    for (i = 0; i < n; i++) {
        a[i] = 0.25f * (float)i;
        b[i] = (float)(3 * i - 7);
        c[i] = 0.0f;
    }
    CUdeviceptr da, db, dc;
    CK(cuMemAlloc(&da, bytes));
    CK(cuMemAlloc(&db, bytes));
    CK(cuMemAlloc(&dc, bytes));
    CK(cuMemcpyHtoD(da, a, bytes));
    CK(cuMemcpyHtoD(db, b, bytes));
    int threads = 256, blocks = (n + threads - 1) / threads;
    void *args[] = {&da, &db, &dc, (void *)&n};
    CK(cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, NULL, args, NULL));
    CK(cuCtxSynchronize());
    CK(cuMemcpyDtoH(c, dc, bytes));
    for (i = 0; i < n; i++)
        if (c[i] != a[i] + b[i]) {
            printf("FAILED: c[%d]=%g, expected %g\n", i, c[i], a[i] + b[i]);
            return 1;
        }
    printf("vadd n=%d grid=%d block=%d: ok\n", n, blocks, threads);
    CK(cuMemFree(da));
    CK(cuMemFree(db));
    CK(cuMemFree(dc));
    CK(cuModuleUnload(mod));
    CK(cuCtxDestroy(ctx));
    free(a);
    free(b);
    free(c);
    printf("PASSED\n");
    return 0;
}
