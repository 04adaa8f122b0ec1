/* drv_pointer_attrs: cuPointerGetAttribute (MEMORY_TYPE, DEVICE_POINTER, HOST_POINTER,
 * CONTEXT, RANGE_START_ADDR, RANGE_SIZE, IS_MANAGED) for device memory (cuMemAlloc),
 * an interior pointer into it, pinned host memory (cuMemAllocHost) and managed memory
 * (cuMemAllocManaged); cuPointerGetAttributes for several at once; cuMemGetAddressRange.
 * Host pointers of device memory do not exist (CUDA_ERROR_INVALID_VALUE); managed memory
 * reports MEMORY_TYPE device with IS_MANAGED 1. A kernel then uses the managed and the
 * pinned memory directly. */
#include "drv_check.h"
#include "kernels_ptx.h"

static const char *memtype(unsigned int t) {
    switch (t) {
    case CU_MEMORYTYPE_HOST: return "host";
    case CU_MEMORYTYPE_DEVICE: return "device";
    case CU_MEMORYTYPE_ARRAY: return "array";
    case CU_MEMORYTYPE_UNIFIED: return "unified";
    }
    return "?";
}

int main(void) {
    CUcontext ctx = setup_context(NULL);
    const size_t MiB = 1 << 20;
    CUdeviceptr d, m, dp = 0, start = 0, base = 0;
    void *h = NULL, *hp = NULL;
    unsigned int type = 0, managed = 7;
    size_t size = 0;
    CUcontext owner = NULL;

    CK(cuMemAlloc(&d, MiB));
    CK(cuMemAllocHost(&h, 65536));
    CK(cuMemAllocManaged(&m, 65536, CU_MEM_ATTACH_GLOBAL));

    /* device memory */
    CK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
    CK(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, d));
    CK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, d));
    CK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, d));
    printf("cuMemAlloc: type %s, device pointer is itself: %s, context is ours: %s, managed %u\n", memtype(type),
           yesno(dp == d), yesno(owner == ctx), managed);
    REQUIRE(type == CU_MEMORYTYPE_DEVICE && dp == d && owner == ctx && managed == 0);
    EXPECT("cuMemAlloc: HOST_POINTER", cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, d),
           CUDA_ERROR_INVALID_VALUE);

    /* interior pointer */
    CUdeviceptr inner = d + 4096 + 100;
    CK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, inner));
    CK(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, inner));
    CK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, inner));
    CK(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, inner));
    printf("interior pointer (+4196): type %s, device pointer is itself: %s, range start is the allocation: %s, "
           "range size %zu\n",
           memtype(type), yesno(dp == inner), yesno(start == d), size);
    REQUIRE(type == CU_MEMORYTYPE_DEVICE && dp == inner && start == d && size == MiB);
    CK(cuMemGetAddressRange(&base, &size, inner));
    printf("cuMemGetAddressRange(interior): base is the allocation: %s, size %zu\n", yesno(base == d), size);
    REQUIRE(base == d && size == MiB);
    CUdeviceptr last = d + MiB - 1;
    CK(cuMemGetAddressRange(&base, &size, last));
    printf("cuMemGetAddressRange(last byte): base is the allocation: %s\n", yesno(base == d));
    REQUIRE(base == d);

    /* pinned host memory */
    CK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)h));
    CK(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, (CUdeviceptr)(uintptr_t)h));
    CK(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, (CUdeviceptr)(uintptr_t)h));
    CK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, (CUdeviceptr)(uintptr_t)h));
    CK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)(uintptr_t)h));
    printf("cuMemAllocHost: type %s, host pointer is itself: %s, device pointer equals host pointer: %s, "
           "context is ours: %s, managed %u\n",
           memtype(type), yesno(hp == h), yesno(dp == (CUdeviceptr)(uintptr_t)h), yesno(owner == ctx), managed);
    REQUIRE(type == CU_MEMORYTYPE_HOST && hp == h && dp == (CUdeviceptr)(uintptr_t)h && owner == ctx && managed == 0);

    /* managed memory */
    CK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, m));
    CK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m));
    CK(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, m));
    CK(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, m));
    printf("cuMemAllocManaged: type %s, managed %u, device pointer is itself: %s, host pointer is itself: %s\n",
           memtype(type), managed, yesno(dp == m), yesno(hp == (void *)(uintptr_t)m));
    REQUIRE(type == CU_MEMORYTYPE_DEVICE && managed == 1 && dp == m && hp == (void *)(uintptr_t)m);

    /* several attributes at once */
    CUpointer_attribute attrs[4] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                    CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    unsigned int t2 = 0, man2 = 7;
    CUdeviceptr st2 = 0;
    size_t sz2 = 0;
    void *data[4] = {&t2, &man2, &st2, &sz2};
    CK(cuPointerGetAttributes(4, attrs, data, d + 12345));
    printf("cuPointerGetAttributes(device + 12345): type %s, managed %u, range start ok: %s, range size %zu\n",
           memtype(t2), man2, yesno(st2 == d), sz2);
    REQUIRE(t2 == CU_MEMORYTYPE_DEVICE && man2 == 0 && st2 == d && sz2 == MiB);

    /* managed and pinned memory are directly usable by kernels and the host */
    CUmodule mod;
    CUfunction f;
    int *mh = (int *)(uintptr_t)m, *ph = (int *)h, i, n = 4096, factor = 3;
    for (i = 0; i < n; i++) mh[i] = ph[i] = i - 2000;
    CK(cuModuleLoadData(&mod, kernels_ptx));
    CK(cuModuleGetFunction(&f, mod, "scale_i32"));
    void *args1[] = {&m, &n, &factor};
    CK(cuLaunchKernel(f, n / 256, 1, 1, 256, 1, 1, 0, NULL, args1, NULL));
    CUdeviceptr hdev = (CUdeviceptr)(uintptr_t)h;
    void *args2[] = {&hdev, &n, &factor};
    CK(cuLaunchKernel(f, n / 256, 1, 1, 256, 1, 1, 0, NULL, args2, NULL));
    CK(cuCtxSynchronize());
    for (i = 0; i < n; i++) {
        if (mh[i] != 3 * (i - 2000)) {
            printf("FAILED: managed[%d]=%d\n", i, mh[i]);
            return 1;
        }
        if (ph[i] != 3 * (i - 2000)) {
            printf("FAILED: pinned[%d]=%d\n", i, ph[i]);
            return 1;
        }
    }
    printf("kernel on managed and on pinned memory, host reads back: ok\n");

    CK(cuModuleUnload(mod));
    CK(cuMemFree(d));
    CK(cuMemFreeHost(h));
    CK(cuMemFree(m));
    CK(cuCtxDestroy(ctx));
    printf("PASSED\n");
    return 0;
}
