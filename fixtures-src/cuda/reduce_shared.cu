// fixture: min_sm=70 variants=lineinfo,debug
// Classic shared-memory tree reductions (several variants from the CUDA samples style).
template <unsigned BLOCK>
__device__ void warp_reduce_volatile(volatile float* s, unsigned tid) {
    if (BLOCK >= 64) s[tid] += s[tid + 32];
    if (BLOCK >= 32) s[tid] += s[tid + 16];
    if (BLOCK >= 16) s[tid] += s[tid + 8];
    if (BLOCK >= 8) s[tid] += s[tid + 4];
    if (BLOCK >= 4) s[tid] += s[tid + 2];
    if (BLOCK >= 2) s[tid] += s[tid + 1];
}

template <unsigned BLOCK>
__global__ void reduce_sum(const float* in, float* out, unsigned n) {
    __shared__ float sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (BLOCK * 2) + tid;
    unsigned grid = BLOCK * 2 * gridDim.x;
    float acc = 0.0f;
    while (i < n) {
        acc += in[i];
        if (i + BLOCK < n) acc += in[i + BLOCK];
        i += grid;
    }
    sdata[tid] = acc;
    __syncthreads();
    if (BLOCK >= 512) { if (tid < 256) sdata[tid] += sdata[tid + 256]; __syncthreads(); }
    if (BLOCK >= 256) { if (tid < 128) sdata[tid] += sdata[tid + 128]; __syncthreads(); }
    if (BLOCK >= 128) { if (tid < 64) sdata[tid] += sdata[tid + 64]; __syncthreads(); }
    if (tid < 32) warp_reduce_volatile<BLOCK>(sdata, tid);
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
template __global__ void reduce_sum<128>(const float*, float*, unsigned);
template __global__ void reduce_sum<256>(const float*, float*, unsigned);
template __global__ void reduce_sum<512>(const float*, float*, unsigned);

extern "C" __global__ void reduce_max_int(const int* in, int* out, int n) {
    __shared__ int s[256];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? in[i] : -2147483647 - 1;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] = max(s[tid], s[tid + stride]);
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce_sum_f64_interleaved(const double* in, double* out, int n) {
    __shared__ double s[256];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? in[i] : 0.0;
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void block_count_positive(const float* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int pred = i < n && in[i] > 0.0f;
    int cnt = __syncthreads_count(pred);
    int any = __syncthreads_or(pred);
    int all = __syncthreads_and(pred);
    if (threadIdx.x == 0) { out[3 * blockIdx.x] = cnt; out[3 * blockIdx.x + 1] = any; out[3 * blockIdx.x + 2] = all; }
}
