// fixture: min_sm=70 variants=lineinfo
// 2D/3D thread and grid indexing: matrix transpose (padded shared tile), 3D stencil, 2D image blur.
#define TILE 32
#define ROWS 8
extern "C" __global__ void transpose_padded(const float* in, float* out, int w, int h) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void stencil7_3d(const float* in, float* out, int nx, int ny, int nz, float c0, float c1) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
    size_t sx = 1, sy = nx, sz = (size_t)nx * ny;
    size_t i = x * sx + y * sy + z * sz;
    out[i] = c0 * in[i] + c1 * (in[i - sx] + in[i + sx] + in[i - sy] + in[i + sy] + in[i - sz] + in[i + sz]);
}

extern "C" __global__ void box_blur_2d(const unsigned char* img, unsigned char* out, int w, int h, int radius) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int sum = 0, cnt = 0;
    for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx) {
            int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1);
            sum += img[yy * w + xx];
            ++cnt;
        }
    out[y * w + x] = (unsigned char)(sum / cnt);
}

extern "C" __global__ void index_dump(unsigned* out) {
    unsigned bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned gid = bid * (blockDim.x * blockDim.y * blockDim.z) + tid;
    out[gid * 4 + 0] = bid;
    out[gid * 4 + 1] = tid;
    out[gid * 4 + 2] = gridDim.x * gridDim.y * gridDim.z;
    out[gid * 4 + 3] = warpSize;
}
