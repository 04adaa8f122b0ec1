// fixture: min_sm=70 variants=lineinfo
// Bitonic sort in shared memory, odd-even merge step on global memory, and radix-sort digit counting.
extern "C" __global__ void bitonic_sort_shared(float* data) {
    __shared__ float s[1024];
    unsigned t = threadIdx.x;
    s[t] = data[blockIdx.x * 1024 + t];
    s[t + 512] = data[blockIdx.x * 1024 + t + 512];
    __syncthreads();
    for (unsigned size = 2; size <= 1024; size <<= 1) {
        for (unsigned stride = size >> 1; stride > 0; stride >>= 1) {
            unsigned pos = 2 * t - (t & (stride - 1));
            bool dir = ((pos & size) == 0);
            float a = s[pos], b = s[pos + stride];
            if ((a > b) == dir) { s[pos] = b; s[pos + stride] = a; }
            __syncthreads();
        }
    }
    data[blockIdx.x * 1024 + t] = s[t];
    data[blockIdx.x * 1024 + t + 512] = s[t + 512];
}

extern "C" __global__ void bitonic_step_global(unsigned* keys, unsigned* vals, unsigned j, unsigned k) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned ixj = i ^ j;
    if (ixj > i) {
        bool up = (i & k) == 0;
        unsigned a = keys[i], b = keys[ixj];
        if ((a > b) == up) {
            keys[i] = b; keys[ixj] = a;
            unsigned va = vals[i]; vals[i] = vals[ixj]; vals[ixj] = va;
        }
    }
}

extern "C" __global__ void radix_count(const unsigned* keys, unsigned* counts, int n, int shift) {
    __shared__ unsigned local[16];
    if (threadIdx.x < 16) local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[(keys[i] >> shift) & 15], 1u);
    __syncthreads();
    if (threadIdx.x < 16) counts[blockIdx.x * 16 + threadIdx.x] = local[threadIdx.x];
}

// Warp-level sorting network on registers via shuffles.
extern "C" __global__ void warp_sort32(int* data) {
    int lane = threadIdx.x & 31;
    int v = data[blockIdx.x * blockDim.x + threadIdx.x];
    for (int k = 2; k <= 32; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1) {
            int o = __shfl_xor_sync(0xffffffffu, v, j);
            bool up = ((lane & k) == 0);
            bool lower = (lane & j) == 0;
            v = (lower == up) ? min(v, o) : max(v, o);
        }
    data[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
