// fixture: min_sm=70 variants=lineinfo
// 256-bin histograms: privatized shared-memory bins, then merge into global.
extern "C" __global__ void histogram256_shared(const unsigned char* data, unsigned* hist, int n) {
    __shared__ unsigned local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b]) atomicAdd(&hist[b], local[b]);
}

extern "C" __global__ void histogram_packed_u32(const unsigned* data, unsigned* hist, int n4) {
    __shared__ unsigned local[8][256];   // per-warp sub-histograms
    unsigned warp = threadIdx.x >> 5;
    for (int b = threadIdx.x; b < 8 * 256; b += blockDim.x) (&local[0][0])[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x) {
        unsigned w = data[i];
        atomicAdd(&local[warp & 7][w & 0xff], 1u);
        atomicAdd(&local[warp & 7][(w >> 8) & 0xff], 1u);
        atomicAdd(&local[warp & 7][(w >> 16) & 0xff], 1u);
        atomicAdd(&local[warp & 7][w >> 24], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        unsigned s = 0;
        for (int w = 0; w < 8; ++w) s += local[w][b];
        atomicAdd(&hist[b], s);
    }
}

extern "C" __global__ void float_histogram(const float* x, int* bins, int nbins, float lo, float hi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float t = (x[i] - lo) / (hi - lo);
        int b = (int)floorf(t * nbins);
        b = min(max(b, 0), nbins - 1);
        atomicAdd(&bins[b], 1);
    }
}
