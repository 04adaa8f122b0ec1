// fixture: min_sm=70 variants=lineinfo
// __constant__ memory (ld.const), __ldg / read-only loads, 1D and 2D convolution with halos in shared memory.
#define MAX_K 31
__constant__ float c_kernel[MAX_K];
__constant__ float c_kernel2d[5][5];
__constant__ int c_params[4];

extern "C" __global__ void conv1d_const(const float* __restrict__ in, float* __restrict__ out, int n, int klen) {
    extern __shared__ float tile[];
    int r = klen / 2;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x + r;
    tile[t] = i < n ? __ldg(&in[i]) : 0.f;
    if (threadIdx.x < r) {
        int l = i - r, h = i + blockDim.x;
        tile[threadIdx.x] = l >= 0 ? in[l] : 0.f;
        tile[t + blockDim.x] = h < n ? in[h] : 0.f;
    }
    __syncthreads();
    float acc = 0.f;
    for (int k = 0; k < klen; ++k) acc += c_kernel[k] * tile[threadIdx.x + k];
    if (i < n) out[i] = acc;
}

extern "C" __global__ void conv2d_5x5_const(const float* __restrict__ img, float* out, int w, int h) {
    __shared__ float tile[16 + 4][16 + 4];
    int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
    for (int dy = threadIdx.y; dy < 20; dy += 16)
        for (int dx = threadIdx.x; dx < 20; dx += 16) {
            int gx = min(max((int)(blockIdx.x * 16) + dx - 2, 0), w - 1);
            int gy = min(max((int)(blockIdx.y * 16) + dy - 2, 0), h - 1);
            tile[dy][dx] = img[gy * w + gx];
        }
    __syncthreads();
    if (x >= w || y >= h) return;
    float acc = 0.f;
    #pragma unroll
    for (int ky = 0; ky < 5; ++ky)
        #pragma unroll
        for (int kx = 0; kx < 5; ++kx) acc += c_kernel2d[ky][kx] * tile[threadIdx.y + ky][threadIdx.x + kx];
    out[y * w + x] = acc * (float)c_params[0] + (float)c_params[1];
}

__device__ float g_scale = 2.5f;
__device__ int g_table[8] = {1, 2, 3, 5, 8, 13, 21, 34};
__device__ volatile int g_flag;
extern "C" __global__ void globals_and_volatile(float* out) {
    int t = threadIdx.x;
    out[t] = g_scale * g_table[t & 7];
    if (t == 0) g_flag = 1;
    while (g_flag == 0) { }
}
