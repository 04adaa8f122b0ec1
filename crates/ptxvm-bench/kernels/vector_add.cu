// Engines benchmark: vector add, c[i] = a[i] + b[i] (f32), one element per thread.
// The C reference is vec_add_c in ../c/engines.c.
extern "C" __global__ void vec_add(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
