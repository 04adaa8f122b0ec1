// fixture: min_sm=70 variants=lineinfo
// The full atomic function family on global and shared memory, all scopes.
extern "C" __global__ void atomics_int(int* g, unsigned* ug, unsigned long long* g64, int v) {
    atomicAdd(&g[0], v);
    atomicSub(&g[1], v);
    atomicExch(&g[2], v);
    atomicMin(&g[3], v);
    atomicMax(&g[4], v);
    atomicInc(&ug[0], 1000u);
    atomicDec(&ug[1], 1000u);
    atomicCAS(&g[5], v, v + 1);
    atomicAnd(&g[6], v);
    atomicOr(&g[7], v);
    atomicXor(&g[8], v);
    atomicAdd(&g64[0], (unsigned long long)v);
    atomicExch(&g64[1], (unsigned long long)v);
    atomicCAS(&g64[2], 0ull, (unsigned long long)v);
    atomicMin(&g64[3], (unsigned long long)v);
    atomicMax((long long*)&g64[4], (long long)v);
    atomicAnd(&g64[5], (unsigned long long)v);
    atomicOr(&g64[6], (unsigned long long)v);
    atomicXor(&g64[7], (unsigned long long)v);
}

extern "C" __global__ void atomics_float(float* f, double* d, float fv, double dv) {
    atomicAdd(&f[0], fv);
    atomicExch(&f[1], fv);
    atomicAdd(&d[0], dv);
    float old = atomicAdd(&f[2], 1.0f);
    if (old > 10.0f) atomicAdd(&d[1], (double)old);
}

extern "C" __global__ void atomics_scoped(int* g, float* f) {
    atomicAdd_block(&g[0], 1);
    atomicAdd_system(&g[1], 1);
    atomicMax_block(&g[2], threadIdx.x);
    atomicCAS_system(&g[3], 0, 1);
    atomicExch_block(&g[4], 5);
    atomicAdd_block(&f[0], 0.5f);
    atomicAdd_system(&f[1], 0.25f);
}

extern "C" __global__ void atomics_shared(const int* in, int* out, int n) {
    __shared__ int s_sum, s_min, s_max, s_or;
    __shared__ float s_f;
    __shared__ unsigned long long s_u64;
    if (threadIdx.x == 0) { s_sum = 0; s_min = 0x7fffffff; s_max = -0x7fffffff; s_or = 0; s_f = 0.f; s_u64 = 0; }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = in[i];
        atomicAdd(&s_sum, v);
        atomicMin(&s_min, v);
        atomicMax(&s_max, v);
        atomicOr(&s_or, v);
        atomicAdd(&s_f, (float)v * 0.5f);
        atomicAdd(&s_u64, (unsigned long long)(unsigned)v);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(&out[0], s_sum);
        atomicMin(&out[1], s_min);
        atomicMax(&out[2], s_max);
        atomicOr(&out[3], s_or);
        atomicAdd((float*)&out[4], s_f);
        atomicAdd((unsigned long long*)&out[6], s_u64);
    }
}

// Results unused -> red.* instead of atom.*
extern "C" __global__ void reductions_no_return(int* g, float* f, unsigned long long* u) {
    atomicAdd(g, 1);
    atomicAdd(f, 2.0f);
    atomicOr(u, 1ull << (threadIdx.x & 63));
}
