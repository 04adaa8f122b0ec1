// fixture: min_sm=70 variants=lineinfo,fastmath
// Row softmax / log-softmax / layernorm / rmsnorm with warp and block reductions (typical DL kernels).
#include <cuda_fp16.h>
__device__ __forceinline__ float warp_max(float v) { for (int o = 16; o; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o)); return v; }
__device__ __forceinline__ float warp_sum(float v) { for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o); return v; }

template <typename T>
__device__ float block_sum(float v, T* smem) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0) smem[warp] = v;
    __syncthreads();
    v = threadIdx.x < (blockDim.x >> 5) ? smem[lane] : 0.f;
    if (warp == 0) v = warp_sum(v);
    if (threadIdx.x == 0) smem[0] = v;
    __syncthreads();
    float r = smem[0];
    __syncthreads();
    return r;
}

// One warp per row.
extern "C" __global__ void softmax_warp_per_row(const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float m = (-__int_as_float(0x7f800000));
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, xr[c]);
    m = warp_max(m);
    float s = 0.f;
    for (int c = lane; c < cols; c += 32) s += expf(xr[c] - m);
    s = warp_sum(s);
    float inv = 1.f / s;
    for (int c = lane; c < cols; c += 32) y[(size_t)row * cols + c] = expf(xr[c] - m) * inv;
}

extern "C" __global__ void log_softmax_block(const half* x, half* y, int cols) {
    __shared__ float red[32];
    const half* xr = x + (size_t)blockIdx.x * cols;
    float m = (-__int_as_float(0x7f800000));
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, __half2float(xr[c]));
    m = warp_max(m);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = m;
    __syncthreads();
    if (threadIdx.x < 32) { float v = threadIdx.x < (blockDim.x >> 5) ? red[threadIdx.x] : (-__int_as_float(0x7f800000)); v = warp_max(v); if (threadIdx.x == 0) red[0] = v; }
    __syncthreads();
    m = red[0];
    __syncthreads();
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(__half2float(xr[c]) - m);
    s = block_sum(s, red);
    float lse = m + logf(s);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) y[(size_t)blockIdx.x * cols + c] = __float2half(__half2float(xr[c]) - lse);
}

extern "C" __global__ void layernorm_fwd(const float* x, const float* gamma, const float* beta, float* y, float* mean_out, float* rstd_out, int cols, float eps) {
    __shared__ float red[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
    float mean = block_sum(s, red) / cols;
    float v = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) { float d = xr[c] - mean; v += d * d; }
    float var = block_sum(v, red) / cols;
    float rstd = rsqrtf(var + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        y[(size_t)blockIdx.x * cols + c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
    if (threadIdx.x == 0) { mean_out[blockIdx.x] = mean; rstd_out[blockIdx.x] = rstd; }
}

// Welford single pass, one warp per row, double accumulators.
extern "C" __global__ void layernorm_welford(const float* x, float* y, int rows, int cols, float eps) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    double mean = 0.0, m2 = 0.0, n = 0.0;
    for (int c = lane; c < cols; c += 32) {
        double v = x[(size_t)row * cols + c];
        n += 1.0;
        double d = v - mean;
        mean += d / n;
        m2 += d * (v - mean);
    }
    for (int o = 16; o; o >>= 1) {
        double nb = __shfl_xor_sync(0xffffffffu, n, o), mb = __shfl_xor_sync(0xffffffffu, mean, o), m2b = __shfl_xor_sync(0xffffffffu, m2, o);
        double nn = n + nb;
        if (nn > 0) {
            double d = mb - mean;
            mean += d * nb / nn;
            m2 += m2b + d * d * n * nb / nn;
        }
        n = nn;
    }
    float rstd = (float)rsqrt(m2 / n + eps);
    for (int c = lane; c < cols; c += 32) y[(size_t)row * cols + c] = (x[(size_t)row * cols + c] - (float)mean) * rstd;
}

extern "C" __global__ void rmsnorm_half2(const __half2* x, const __half2* w, __half2* y, int cols2, float eps) {
    __shared__ float red[32];
    const __half2* xr = x + (size_t)blockIdx.x * cols2;
    float s = 0.f;
    for (int c = threadIdx.x; c < cols2; c += blockDim.x) { float2 f = __half22float2(xr[c]); s += f.x * f.x + f.y * f.y; }
    float r = rsqrtf(block_sum(s, red) / (2 * cols2) + eps);
    __half2 rh = __float2half2_rn(r);
    for (int c = threadIdx.x; c < cols2; c += blockDim.x) y[(size_t)blockIdx.x * cols2 + c] = __hmul2(__hmul2(xr[c], rh), w[c]);
}
