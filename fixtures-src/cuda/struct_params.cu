// fixture: min_sm=70 variants=lineinfo,debug
// Kernel parameters: structs by value (aligned, packed, nested, with arrays), many scalars, vector types.
struct __align__(16) Mat4 { float m[16]; };
struct Packed { char c; short s; int i; double d; };
struct Inner { int a; float b; };
struct Outer { Inner in[3]; long long tag; unsigned char flags[5]; };
struct Big { float data[64]; int n; };

extern "C" __global__ void param_mat4(Mat4 m, const float4* in, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = in[i];
        out[i] = make_float4(m.m[0] * v.x + m.m[1] * v.y + m.m[2] * v.z + m.m[3] * v.w,
                             m.m[4] * v.x + m.m[5] * v.y + m.m[6] * v.z + m.m[7] * v.w,
                             m.m[8] * v.x + m.m[9] * v.y + m.m[10] * v.z + m.m[11] * v.w,
                             m.m[12] * v.x + m.m[13] * v.y + m.m[14] * v.z + m.m[15] * v.w);
    }
}

extern "C" __global__ void param_packed_nested(Packed p, Outer o, double* out) {
    int t = threadIdx.x;
    out[t] = p.c + p.s + p.i + p.d + o.in[t % 3].a * o.in[(t + 1) % 3].b + (double)o.tag + o.flags[t % 5];
}

extern "C" __global__ void param_big(Big b, float* out) {
    int t = threadIdx.x;
    out[t] = b.data[t % 64] * (float)b.n;
}

extern "C" __global__ void param_many_scalars(char a, unsigned char b, short c, unsigned short d, int e, unsigned f,
                                              long long g, unsigned long long h, float i, double j, bool k,
                                              float2 l, int4 m, double2 nn, long long* out) {
    out[threadIdx.x] = a + b + c + d + e + f + g + (long long)h + (long long)i + (long long)j + k +
                       (long long)(l.x * l.y) + m.x + m.y + m.z + m.w + (long long)(nn.x + nn.y);
}

// A struct returned by value from a noinline function and written back.
struct Stats { float mean, var; int n; };
__device__ __noinline__ Stats stats_of(const float* p, int n) {
    Stats s{0.f, 0.f, n};
    for (int i = 0; i < n; ++i) s.mean += p[i];
    s.mean /= n;
    for (int i = 0; i < n; ++i) s.var += (p[i] - s.mean) * (p[i] - s.mean);
    s.var /= n;
    return s;
}
extern "C" __global__ void struct_return(const float* rows, Stats* out, int cols) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = stats_of(rows + (blockIdx.x * blockDim.x + threadIdx.x) * cols, cols);
}
