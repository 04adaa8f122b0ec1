/* drv_memset: cuMemsetD8/D16/D32 on unaligned-length and offset ranges, cuMemsetD2D8/
 * D2D16/D2D32 on a pitched allocation (cuMemAllocPitch) touching only the rectangle,
 * and the Async variants on a stream; every byte is read back and compared with a host
 * model. */
#include "drv_check.h"

#define NB 4096
#define NB2 65536
static unsigned char model[NB2];
static unsigned char h2[NB2];

static void model_d8(size_t off, unsigned char v, size_t n) { memset(model + off, v, n); }
static void model_d16(size_t off, unsigned short v, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) memcpy(model + off + 2 * i, &v, 2);
}
static void model_d32(size_t off, unsigned int v, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) memcpy(model + off + 4 * i, &v, 4);
}

static void compare(const char *label, CUdeviceptr d) {
    unsigned char h[NB];
    size_t i;
    CK(cuMemcpyDtoH(h, d, NB));
    for (i = 0; i < NB; i++)
        if (h[i] != model[i]) {
            printf("FAILED: %s: byte %zu is 0x%02x, expected 0x%02x\n", label, i, h[i], model[i]);
            exit(1);
        }
    printf("%s: ok\n", label);
}

int main(void) {
    CUcontext ctx = setup_context(NULL);
    CUdeviceptr d;
    CUstream s;
    CK(cuMemAlloc(&d, NB));
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

    CK(cuMemsetD8(d, 0x00, NB));
    model_d8(0, 0x00, NB);
    CK(cuMemsetD8(d + 3, 0xab, 1001));
    model_d8(3, 0xab, 1001);
    compare("cuMemsetD8", d);
    CK(cuMemsetD16(d + 1024, 0xbeef, 333));
    model_d16(1024, 0xbeef, 333);
    compare("cuMemsetD16", d);
    CK(cuMemsetD32(d + 2048, 0xdeadbeef, 257));
    model_d32(2048, 0xdeadbeef, 257);
    compare("cuMemsetD32", d);

    CK(cuMemsetD8Async(d + 7, 0x5a, 100, s));
    CK(cuMemsetD16Async(d + 300, 0x1234, 50, s));
    CK(cuMemsetD32Async(d + 3500, 0xcafef00d, 100, s));
    CK(cuStreamSynchronize(s));
    model_d8(7, 0x5a, 100);
    model_d16(300, 0x1234, 50);
    model_d32(3500, 0xcafef00d, 100);
    compare("cuMemsetD8/D16/D32Async", d);

    /* 2D: 16 rows of a pitched allocation; widths in elements */
    CUdeviceptr p;
    size_t pitch = 0;
    const size_t W = 200, H = 16;
    CK(cuMemAllocPitch(&p, &pitch, W, H, 4));
    printf("cuMemAllocPitch: pitch>=200: %s, pitch multiple of 4: %s\n", yesno(pitch >= W), yesno(pitch % 4 == 0));
    REQUIRE(pitch >= W && pitch % 4 == 0 && pitch * H <= NB2);
    /* the whole pitched area is cleared with a linear memset, then rectangles are set */
    CK(cuMemsetD8(p, 0x11, pitch * H));
    memset(model, 0, sizeof(model));
    model_d8(0, 0x11, pitch * H);
    size_t r;
    CK(cuMemsetD2D8(p + 1, pitch, 0x22, 10, 3));
    for (r = 0; r < 3; r++) model_d8(r * pitch + 1, 0x22, 10);
    CK(cuMemsetD2D16(p + 4 * pitch + 20, pitch, 0x3344, 7, 4));
    for (r = 4; r < 8; r++) model_d16(r * pitch + 20, 0x3344, 7);
    CK(cuMemsetD2D32(p + 9 * pitch + 40, pitch, 0x55667788, 5, 2));
    for (r = 9; r < 11; r++) model_d32(r * pitch + 40, 0x55667788, 5);
    CK(cuMemsetD2D8Async(p + 12 * pitch + 100, pitch, 0x99, 33, 2, s));
    for (r = 12; r < 14; r++) model_d8(r * pitch + 100, 0x99, 33);
    CK(cuMemsetD2D16Async(p + 14 * pitch + 2, pitch, 0xaabb, 3, 1, s));
    model_d16(14 * pitch + 2, 0xaabb, 3);
    CK(cuMemsetD2D32Async(p + 15 * pitch + 160, pitch, 0xccddeeff, 10, 1, s));
    model_d32(15 * pitch + 160, 0xccddeeff, 10);
    CK(cuStreamSynchronize(s));
    {
        size_t i;
        CK(cuMemcpyDtoH(h2, p, pitch * H));
        for (i = 0; i < pitch * H; i++)
            if (h2[i] != model[i]) {
                printf("FAILED: 2D memset: byte %zu (row %zu, column %zu) is 0x%02x, expected 0x%02x\n", i, i / pitch,
                       i % pitch, h2[i], model[i]);
                return 1;
            }
        printf("cuMemsetD2D8/D2D16/D2D32 and their Async variants: ok\n");
    }
    CK(cuMemFree(p));
    CK(cuMemFree(d));
    CK(cuStreamDestroy(s));
    CK(cuCtxDestroy(ctx));
    printf("PASSED\n");
    return 0;
}
