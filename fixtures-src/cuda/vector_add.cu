// fixture: min_sm=70 variants=lineinfo,debug
// Elementwise kernels: vector add, grid-stride loops, mixed types.
extern "C" __global__ void vec_add_f32(const float* __restrict__ a, const float* __restrict__ b,
                                        float* __restrict__ c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void vec_add_i32_grid_stride(const int* a, const int* b, int* c, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x) {
        c[i] = a[i] + b[i];
    }
}

extern "C" __global__ void vec_add_u8_saturate(const unsigned char* a, const unsigned char* b,
                                                unsigned char* c, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned s = (unsigned)a[i] + (unsigned)b[i];
        c[i] = s > 255u ? 255u : (unsigned char)s;
    }
}

extern "C" __global__ void vec_add_f64(const double* a, const double* b, double* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void vec_fma_i64(const long long* a, const long long* b, long long* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] * b[i] + c[i] - (a[i] >> 3) + (b[i] / 7) + (a[i] % 5);
}
