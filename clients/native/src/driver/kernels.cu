// Kernels shared by the driver-API programs. build.sh turns this file into PTX text and
// into fatbins (zstd, LZ4, uncompressed, and an sm_90 SASS-only one) embedded in the
// programs. extern "C" keeps the names unmangled for cuModuleGetFunction.

extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void scale_i32(int *x, int n, int factor) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}

// Parameters of mixed size and alignment, for cuLaunchKernel's `extra` buffer:
// PTX offsets a:0 c:4 d:8 s:16 out:24 n:32 (36 bytes).
extern "C" __global__ void params_probe(int a, char c, double d, short s, double *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) {
        out[0] = a;
        out[1] = c;
        out[2] = d;
        out[3] = s;
        out[4] = n;
    } else if (i >= 5 && i < n) {
        out[i] = d * i + a;
    }
}

// Each block reverses its blockDim.x-element segment through dynamic shared memory.
extern "C" __global__ void dyn_reverse(int *x) {
    extern __shared__ int seg[];
    int base = blockIdx.x * blockDim.x;
    seg[threadIdx.x] = x[base + threadIdx.x];
    __syncthreads();
    x[base + threadIdx.x] = seg[blockDim.x - 1 - threadIdx.x];
}

// Module-scope variables for cuModuleGetGlobal / cuLibraryGetGlobal.
__device__ float lib_table[64];
__device__ int lib_factor = 3;
__device__ unsigned int lib_hits;

extern "C" __global__ void lib_scale(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = lib_table[i % 64] * lib_factor;
        atomicAdd(&lib_hits, 1u);
    }
}
