/* drv_fatbin: PTX-only fatbins made by `nvcc -fatbin -gencode arch=compute_80,code=compute_80`,
 * embedded in the executable, in three encodings: nvcc 13's default (PTX entry zstd-
 * compressed, flag 0x8000), --compress-mode=speed (LZ4 block, flag 0x2000) and
 * --no-compress. Each is loaded with cuModuleLoadData, cuModuleLoadDataEx (no options)
 * and cuModuleLoadFatBinary, and a kernel from each module is run and checked. */
#include "drv_check.h"
#include "kernels_fatbin_lz4.h"
#include "kernels_fatbin_plain.h"
#include "kernels_fatbin_zstd.h"

static int run_scale(CUmodule mod) {
    CUfunction f;
    CUdeviceptr d;
    int h[300], i, n = 300, factor = -3;
    for (i = 0; i < n; i++) h[i] = i + 1;
    CK(cuModuleGetFunction(&f, mod, "scale_i32"));
    CK(cuMemAlloc(&d, sizeof(h)));
    CK(cuMemcpyHtoD(d, h, sizeof(h)));
    void *args[] = {&d, &n, &factor};
    CK(cuLaunchKernel(f, 3, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    CK(cuMemcpyDtoH(h, d, sizeof(h)));
    CK(cuMemFree(d));
    for (i = 0; i < n; i++)
        if (h[i] != -3 * (i + 1)) return 0;
    return 1;
}

static void check_image(const char *label, const unsigned char *image) {
    const unsigned int *w = (const unsigned int *)image;
    CUmodule m1, m2, m3;
    printf("%s: fatbin magic 0x%08x\n", label, w[0]);
    REQUIRE(w[0] == 0xba55ed50u);
    CK(cuModuleLoadData(&m1, image));
    int ok1 = run_vadd(m1, 5000);
    printf("%s: cuModuleLoadData + vadd: %s\n", label, ok1 ? "ok" : "WRONG");
    CK(cuModuleLoadDataEx(&m2, image, 0, NULL, NULL));
    int ok2 = run_scale(m2);
    printf("%s: cuModuleLoadDataEx + scale_i32: %s\n", label, ok2 ? "ok" : "WRONG");
    CK(cuModuleLoadFatBinary(&m3, image));
    int ok3 = run_vadd(m3, 777) && run_scale(m3);
    printf("%s: cuModuleLoadFatBinary + vadd + scale_i32: %s\n", label, ok3 ? "ok" : "WRONG");
    CK(cuModuleUnload(m1));
    CK(cuModuleUnload(m2));
    CK(cuModuleUnload(m3));
    REQUIRE(ok1 && ok2 && ok3);
}

/* Flags of the first entry (the PTX) in the fatbin: which compression was used. */
static const char *entry_compression(const unsigned char *image) {
    unsigned long long flags;
    memcpy(&flags, image + 16 + 40, sizeof(flags));
    if (flags & 0x8000) return "zstd";
    if (flags & 0x2000) return "lz4";
    return "none";
}

int main(void) {
    CUcontext ctx = setup_context(NULL);
    printf("zstd image PTX entry compression: %s\n", entry_compression(kernels_fatbin_zstd));
    printf("lz4 image PTX entry compression: %s\n", entry_compression(kernels_fatbin_lz4));
    printf("plain image PTX entry compression: %s\n", entry_compression(kernels_fatbin_plain));
    check_image("zstd", kernels_fatbin_zstd);
    check_image("lz4", kernels_fatbin_lz4);
    check_image("plain", kernels_fatbin_plain);
    CK(cuCtxDestroy(ctx));
    printf("PASSED\n");
    return 0;
}
