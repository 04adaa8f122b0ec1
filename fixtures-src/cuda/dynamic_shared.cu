// fixture: min_sm=70 variants=lineinfo
// extern __shared__ (dynamic shared memory) with several typed views and alignment.
extern "C" __global__ void dyn_smem_reverse(const int* in, int* out, int n) {
    extern __shared__ int s[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) s[t] = in[i];
    __syncthreads();
    int r = blockDim.x - 1 - t;
    int j = blockIdx.x * blockDim.x + r;
    if (j < n) out[i] = s[r];
}

extern "C" __global__ void dyn_smem_multi_array(const float* a, const double* b, const short* c, float* out, int n) {
    extern __shared__ __align__(16) unsigned char smem[];
    double* sd = (double*)smem;                    // n doubles
    float* sf = (float*)(sd + blockDim.x);         // n floats
    short* ss = (short*)(sf + blockDim.x);         // n shorts
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    sd[t] = i < n ? b[i] : 0.0;
    sf[t] = i < n ? a[i] : 0.f;
    ss[t] = i < n ? c[i] : 0;
    __syncthreads();
    int o = (t + 1) % blockDim.x;
    if (i < n) out[i] = (float)sd[o] + sf[o] * ss[o];
}

extern "C" __global__ void dyn_smem_vec4(const float4* in, float4* out, int n4) {
    extern __shared__ float4 s4[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (i < n4) s4[t] = in[i];
    __syncthreads();
    float4 v = s4[(t + 3) % blockDim.x];
    if (i < n4) out[i] = make_float4(v.w, v.z, v.y, v.x);
}

// Mixed static + dynamic shared memory and shared-memory pointers passed to a device function.
__device__ __noinline__ float smem_sum(const float* p, int n) {
    float s = 0.f;
    for (int k = 0; k < n; ++k) s += p[k];
    return s;
}
extern "C" __global__ void static_plus_dynamic(const float* in, float* out) {
    __shared__ float fixed[32];
    extern __shared__ float dyn[];
    int t = threadIdx.x;
    dyn[t] = in[blockIdx.x * blockDim.x + t];
    if (t < 32) fixed[t] = (float)t;
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = smem_sum(dyn, t) + smem_sum(fixed, t & 31);
}
