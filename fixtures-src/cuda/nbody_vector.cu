// fixture: min_sm=70 variants=lineinfo,fastmath
// N-body force computation with float4 tiles in shared memory; vectorized loads/stores of every width.
extern "C" __global__ void nbody_forces(const float4* __restrict__ pos, float4* __restrict__ acc, int n, float soft2) {
    extern __shared__ float4 sh[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 p = i < n ? pos[i] : make_float4(0, 0, 0, 0);
    float3 a = make_float3(0, 0, 0);
    for (int tile = 0; tile < (n + blockDim.x - 1) / blockDim.x; ++tile) {
        int j = tile * blockDim.x + threadIdx.x;
        sh[threadIdx.x] = j < n ? pos[j] : make_float4(0, 0, 0, 0);
        __syncthreads();
        #pragma unroll 8
        for (int k = 0; k < blockDim.x; ++k) {
            float4 q = sh[k];
            float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
            float d2 = dx * dx + dy * dy + dz * dz + soft2;
            float inv = rsqrtf(d2);
            float s = q.w * inv * inv * inv;
            a.x += dx * s; a.y += dy * s; a.z += dz * s;
        }
        __syncthreads();
    }
    if (i < n) acc[i] = make_float4(a.x, a.y, a.z, 0.f);
}

extern "C" __global__ void vector_widths(const char4* c4, const short2* s2, const int4* i4, const double2* d2, const long2* l2,
                                         const uchar2* u2, const float2* f2, int4* o4, double2* od, float2* of, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    char4 a = c4[i]; short2 b = s2[i]; int4 c = i4[i]; double2 d = d2[i]; long2 e = l2[i]; uchar2 u = u2[i]; float2 f = f2[i];
    o4[i] = make_int4(a.x + b.x + c.x, a.y + b.y + c.y, a.z + c.z + u.x, a.w + c.w + u.y);
    od[i] = make_double2(d.x + (double)e.x, d.y * (double)e.y);
    of[i] = make_float2(f.y, f.x);
}

// Integrator with double2 positions.
extern "C" __global__ void integrate(double2* p, double2* v, const float4* a, double dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double2 vv = v[i];
        vv.x += a[i].x * dt; vv.y += a[i].y * dt;
        v[i] = vv;
        p[i].x += vv.x * dt; p[i].y += vv.y * dt;
    }
}
