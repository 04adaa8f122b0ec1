// fixture: min_sm=70 variants=lineinfo
// Every shuffle mode (idx/up/down/bfly) across types and widths.
#include <cuda_fp16.h>

extern "C" __global__ void shfl_all_modes_i32(const int* in, int* out, int lane_src, int delta) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    int a = __shfl_sync(0xffffffffu, v, lane_src);
    int b = __shfl_up_sync(0xffffffffu, v, delta);
    int c = __shfl_down_sync(0xffffffffu, v, delta);
    int d = __shfl_xor_sync(0xffffffffu, v, 1);
    int e = __shfl_sync(0xffffffffu, v, lane_src, 16);
    int f = __shfl_up_sync(0x0000ffffu, v, 2, 8);
    int g = __shfl_down_sync(0xffffffffu, v, 3, 4);
    int h = __shfl_xor_sync(0xffffffffu, v, 5, 16);
    out[t] = a ^ (b << 1) ^ (c << 2) ^ (d << 3) ^ (e << 4) ^ (f << 5) ^ (g << 6) ^ (h << 7);
}

extern "C" __global__ void shfl_f32_f64(const float* fin, const double* din, float* fout, double* dout) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float f = fin[t];
    double d = din[t];
    for (int off = 16; off > 0; off >>= 1) {
        f += __shfl_xor_sync(0xffffffffu, f, off);
        d += __shfl_down_sync(0xffffffffu, d, off);
    }
    fout[t] = f;
    dout[t] = d;
}

extern "C" __global__ void shfl_i64_u64(const long long* in, unsigned long long* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    long long v = in[t];
    unsigned long long u = (unsigned long long)v * 3u;
    v = __shfl_up_sync(0xffffffffu, v, 1);
    u = __shfl_sync(0xffffffffu, u, 31 - (threadIdx.x & 31));
    out[t] = (unsigned long long)v + u;
}

extern "C" __global__ void shfl_half(const __half* in, __half* out, const __half2* in2, __half2* out2) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    __half h = in[t];
    __half2 h2 = in2[t];
    h = __hadd(h, __shfl_xor_sync(0xffffffffu, h, 2));
    h2 = __hadd2(h2, __shfl_down_sync(0xffffffffu, h2, 4));
    out[t] = h;
    out2[t] = h2;
}

extern "C" __global__ void inclusive_scan_warp(const int* in, int* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[t];
    #pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        int n = __shfl_up_sync(0xffffffffu, v, off);
        if (lane >= off) v += n;
    }
    out[t] = v;
}

extern "C" __global__ void broadcast_partial_mask(const float* in, float* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    float v = in[t];
    if (lane < 16) {
        v = __shfl_sync(0x0000ffffu, v, 0);
    } else {
        v = __shfl_sync(0xffff0000u, v, 16);
    }
    __syncwarp();
    out[t] = v;
}
