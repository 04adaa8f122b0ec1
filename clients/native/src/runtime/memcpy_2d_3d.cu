// memcpy_2d_3d: pitched allocations and strided copies.
//  * cudaMallocPitch; cudaMemcpy2D H2D from a host buffer with its own (larger) pitch;
//    a kernel indexing rows by pitch; cudaMemcpy2D D2D into a second pitched buffer;
//    cudaMemset2D of a sub-rectangle; cudaMemcpy2D D2H into a host buffer whose
//    padding bytes must stay untouched; cudaMemcpy2DAsync on a stream.
//  * cudaMalloc3D, cudaMemset3D of the whole volume, cudaMemcpy3D H2D of a sub-box at
//    an offset, cudaMemcpy3D D2H of the whole volume.
#include "check.h"
#include <cstring>
#include <vector>

__global__ void add_coords(int *base, size_t pitch, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        int *row = (int *)((char *)base + y * pitch);
        row[x] += 1000 * y + x;
    }
}

int main() {
    // ---------------- 2D ----------------
    const int W = 70, H = 33;                 // ints
    const size_t wbytes = W * sizeof(int);    // 280 bytes per row
    const size_t hpitch = 96 * sizeof(int);   // host pitch: 384 bytes
    const size_t hpitch2 = 80 * sizeof(int);  // second host pitch: 320 bytes
    int *d1 = nullptr, *d2 = nullptr;
    size_t p1 = 0, p2 = 0;
    CHECK(cudaMallocPitch((void **)&d1, &p1, wbytes, H));
    CHECK(cudaMallocPitch((void **)&d2, &p2, wbytes, H));
    printf("cudaMallocPitch: pitch>=row bytes: %s, pitch multiple of 4: %s\n", yesno(p1 >= wbytes && p2 >= wbytes),
           yesno(p1 % 4 == 0 && p2 % 4 == 0));
    REQUIRE(p1 >= wbytes && p2 >= wbytes && p1 % 4 == 0 && p2 % 4 == 0);

    std::vector<int> src(96 * H, -7);  // padding columns hold -7 and are never copied
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) src[y * 96 + x] = y * W + x;
    CHECK(cudaMemcpy2D(d1, p1, src.data(), hpitch, wbytes, H, cudaMemcpyHostToDevice));
    dim3 block(32, 8), grid((W + 31) / 32, (H + 7) / 8);
    add_coords<<<grid, block>>>(d1, p1, W, H);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy2D(d2, p2, d1, p1, wbytes, H, cudaMemcpyDeviceToDevice));
    // 0x01010101 over columns 10..19 of rows 5..9
    CHECK(cudaMemset2D((char *)d2 + 5 * p2 + 10 * sizeof(int), p2, 0x01, 10 * sizeof(int), 5));
    std::vector<int> dst(80 * H, 0x5a5a5a5a);
    CHECK(cudaMemcpy2D(dst.data(), hpitch2, d2, p2, wbytes, H, cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < 80; x++) {
            int want;
            if (x >= W) want = 0x5a5a5a5a;  // host padding untouched
            else if (y >= 5 && y < 10 && x >= 10 && x < 20) want = 0x01010101;
            else want = y * W + x + 1000 * y + x;
            if (dst[y * 80 + x] != want) fail_mismatch_ll("2D result", y * 80 + x, dst[y * 80 + x], want);
        }
    printf("cudaMemcpy2D H2D/D2D/D2H + cudaMemset2D + pitched kernel: ok\n");

    // cudaMemcpy2DAsync: copy rows 1..4, columns 2..5 of d1 to a tight host array
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    int *pinned = nullptr;
    CHECK(cudaMallocHost(&pinned, 4 * 4 * sizeof(int)));
    CHECK(cudaMemcpy2DAsync(pinned, 4 * sizeof(int), (char *)d1 + 1 * p1 + 2 * sizeof(int), p1, 4 * sizeof(int), 4,
                            cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            int y = r + 1, x = c + 2;
            int want = y * W + x + 1000 * y + x;
            if (pinned[r * 4 + c] != want) fail_mismatch_ll("cudaMemcpy2DAsync", r * 4 + c, pinned[r * 4 + c], want);
        }
    printf("cudaMemcpy2DAsync sub-rectangle: ok\n");

    // ---------------- 3D ----------------
    const int X = 20, Y = 6, Z = 5;  // X in bytes (unsigned char elements)
    cudaExtent ext = make_cudaExtent(X, Y, Z);
    cudaPitchedPtr vol;
    CHECK(cudaMalloc3D(&vol, ext));
    printf("cudaMalloc3D: pitch>=width: %s, xsize=%zu ysize=%zu\n", yesno(vol.pitch >= (size_t)X), vol.xsize,
           vol.ysize);
    REQUIRE(vol.pitch >= (size_t)X && vol.xsize == (size_t)X && vol.ysize == (size_t)Y);
    CHECK(cudaMemset3D(vol, 0x11, ext));
    // host box of 8 x 3 x 2 bytes, copied to offset (4, 2, 1)
    const int BX = 8, BY = 3, BZ = 2;
    unsigned char box[BZ][BY][BX];
    for (int z = 0; z < BZ; z++)
        for (int y = 0; y < BY; y++)
            for (int x = 0; x < BX; x++) box[z][y][x] = (unsigned char)(100 + z * 40 + y * 10 + x);
    cudaMemcpy3DParms up = {};
    up.srcPtr = make_cudaPitchedPtr(box, BX, BX, BY);
    up.dstPtr = vol;
    up.dstPos = make_cudaPos(4, 2, 1);
    up.extent = make_cudaExtent(BX, BY, BZ);
    up.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&up));
    std::vector<unsigned char> whole(X * Y * Z, 0);
    cudaMemcpy3DParms down = {};
    down.srcPtr = vol;
    down.dstPtr = make_cudaPitchedPtr(whole.data(), X, X, Y);
    down.extent = ext;
    down.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&down));
    int boxed = 0;
    for (int z = 0; z < Z; z++)
        for (int y = 0; y < Y; y++)
            for (int x = 0; x < X; x++) {
                int bz = z - 1, by = y - 2, bx = x - 4;
                bool inside = bz >= 0 && bz < BZ && by >= 0 && by < BY && bx >= 0 && bx < BX;
                int want = inside ? 100 + bz * 40 + by * 10 + bx : 0x11;
                boxed += inside;
                int idx = (z * Y + y) * X + x;
                if (whole[idx] != want) fail_mismatch_ll("3D volume", idx, whole[idx], want);
            }
    printf("cudaMemset3D + cudaMemcpy3D H2D sub-box (%d bytes) + D2H volume: ok\n", boxed);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFree(d1));
    CHECK(cudaFree(d2));
    CHECK(cudaFree(vol.ptr));
    printf("PASSED\n");
    return 0;
}
