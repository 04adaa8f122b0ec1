// drv_link, first module: calls a device function and reads a device variable that are
// both defined in link_lib.cu (compiled separately with nvcc -rdc=true -ptx).
extern __device__ int link_bias;
extern __device__ int link_combine(int a, int b);

extern "C" __global__ void link_kernel(int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = link_combine(i, 3) + link_bias;
}
