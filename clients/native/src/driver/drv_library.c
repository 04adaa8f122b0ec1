/* drv_library: the context-independent library API, as CUDA 12/13 runtimes use it.
 * Primary context (cuDevicePrimaryCtxRetain + cuCtxSetCurrent); cuLibraryLoadData of the
 * embedded PTX-only fatbin; cuLibraryGetKernel, cuKernelGetFunction, cuKernelGetAttribute;
 * cuLibraryGetGlobal of __device__ variables (initialized and not), written with
 * cuMemcpyHtoD; cuLaunchKernel given the CUkernel itself (cast to CUfunction, as
 * libcudart 13 does) and given the CUfunction; cuLibraryGetModule + cuModuleGetFunction
 * (the CUDA 12.9 runtime's path); cuLibraryUnload. The same with PTX text. */
#include "drv_check.h"
#include "kernels_fatbin_zstd.h"
#include "kernels_ptx.h"

static void exercise(const char *label, const void *image, CUdevice dev) {
    CUlibrary lib;
    CUkernel k;
    CUfunction f, f2;
    CUmodule m;
    CUdeviceptr table, factor, hits, out;
    size_t table_size = 0, factor_size = 0, hits_size = 0;
    int init_factor = 0, maxthreads = 0, i;
    unsigned int nhits = 0;
    const int n = 256;
    float ht[64], h[256];

    CK(cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0));
    CK(cuLibraryGetKernel(&k, lib, "lib_scale"));
    CK(cuKernelGetFunction(&f, k));
    CK(cuKernelGetAttribute(&maxthreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k, dev));
    CK(cuLibraryGetGlobal(&table, &table_size, lib, "lib_table"));
    CK(cuLibraryGetGlobal(&factor, &factor_size, lib, "lib_factor"));
    CK(cuLibraryGetGlobal(&hits, &hits_size, lib, "lib_hits"));
    CK(cuMemcpyDtoH(&init_factor, factor, sizeof(int)));
    printf("%s: lib_table %zu bytes, lib_factor %zu bytes = %d, lib_hits %zu bytes, max threads %d\n", label,
           table_size, factor_size, init_factor, hits_size, maxthreads);
    REQUIRE(table_size == 256 && factor_size == 4 && init_factor == 3 && hits_size == 4 && maxthreads > 0);

    for (i = 0; i < 64; i++) ht[i] = 0.5f * (float)i - 8.0f;
    CK(cuMemcpyHtoD(table, ht, sizeof(ht)));
    CK(cuMemsetD32(hits, 0, 1));
    CK(cuMemAlloc(&out, sizeof(h)));
    void *args[] = {&out, (void *)&n};

    /* launch with the CUkernel handle */
    CK(cuLaunchKernel((CUfunction)k, 2, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    CK(cuCtxSynchronize());
    CK(cuMemcpyDtoH(h, out, sizeof(h)));
    for (i = 0; i < n; i++) REQUIRE(h[i] == ht[i % 64] * 3.0f);
    printf("%s: cuLaunchKernel((CUfunction)CUkernel): ok\n", label);

    /* change lib_factor, launch with the CUfunction from cuKernelGetFunction */
    int seven = 7;
    CK(cuMemcpyHtoD(factor, &seven, sizeof(int)));
    CK(cuLaunchKernel(f, 2, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    CK(cuCtxSynchronize());
    CK(cuMemcpyDtoH(h, out, sizeof(h)));
    for (i = 0; i < n; i++) REQUIRE(h[i] == ht[i % 64] * 7.0f);
    printf("%s: cuLaunchKernel(cuKernelGetFunction): ok\n", label);

    /* the 12.9 runtime's path: module of the library, function by name */
    CK(cuLibraryGetModule(&m, lib));
    CK(cuModuleGetFunction(&f2, m, "lib_scale"));
    CK(cuLaunchKernel(f2, 1, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    CK(cuCtxSynchronize());
    CK(cuMemcpyDtoH(&nhits, hits, sizeof(nhits)));
    printf("%s: cuLibraryGetModule + cuModuleGetFunction: lib_hits=%u\n", label, nhits);
    REQUIRE(nhits == 3 * 256);

    CK(cuMemFree(out));
    CK(cuLibraryUnload(lib));
    printf("%s: cuLibraryUnload: ok\n", label);
}

int main(void) {
    CUdevice dev;
    CUcontext primary;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&primary, dev));
    CK(cuCtxSetCurrent(primary));
    exercise("fatbin", kernels_fatbin_zstd, dev);
    exercise("ptx", kernels_ptx, dev);
    CK(cuCtxSetCurrent(NULL));
    CK(cuDevicePrimaryCtxRelease(dev));
    printf("PASSED\n");
    return 0;
}
