// fixture: min_sm=70 variants=lineinfo
// Special registers (clock, globaltimer, smid, warpid, nsmid), __nanosleep, memory fences,
// named barriers (bar.sync id,count / bar.arrive), __syncwarp with masks, cache-hinted loads/stores.
extern "C" __global__ void timing_and_ids(unsigned long long* out) {
    long long c0 = clock64();
    unsigned c32 = clock();
    unsigned long long gt;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
    unsigned smid, warpid, nsmid, laneid;
    asm("mov.u32 %0, %%smid;" : "=r"(smid));
    asm("mov.u32 %0, %%warpid;" : "=r"(warpid));
    asm("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
    asm("mov.u32 %0, %%laneid;" : "=r"(laneid));
    __nanosleep(100);
    long long c1 = clock64();
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t * 4] = c1 - c0 + c32;
    out[t * 4 + 1] = gt;
    out[t * 4 + 2] = smid | ((unsigned long long)nsmid << 32);
    out[t * 4 + 3] = warpid + laneid;
}

extern "C" __global__ void fences_and_barriers(int* data, volatile int* flags, int n) {
    int t = threadIdx.x;
    data[t] = t;
    __threadfence_block();
    __threadfence();
    __threadfence_system();
    // producer warps 0-1 arrive on barrier 1, consumer warps 2-3 sync on it
    if (t < 64) {
        data[n + t] = t * 3;
        asm volatile("bar.arrive 1, 128;" ::: "memory");
    } else if (t < 128) {
        asm volatile("bar.sync 1, 128;" ::: "memory");
        data[t] = data[n + t - 64];
    }
    __syncthreads();
    if (t < 32) {
        unsigned m = 0x0000ffffu;
        if ((t & 31) < 16) { data[t] += 1; __syncwarp(m); }
        __syncwarp();
    }
    if (t == 0) { flags[0] = 1; __threadfence(); flags[1] = 2; }
}

extern "C" __global__ void cache_hints(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = __ldg(in + i);
    float b = __ldca(in + i);
    float c = __ldcg(in + i);
    float d = __ldcs(in + i);
    float e = __ldlu(in + i);
    float f = __ldcv(in + i);
    __stwb(out + i, a + b);
    __stcg(out + i + n, c + d);
    __stcs(out + i + 2 * n, e + f);
    __stwt(out + i + 3 * n, a * f);
    float4 v4 = __ldg((const float4*)in + (i / 4));
    out[i + 4 * n] = v4.x + v4.y + v4.z + v4.w;
}

extern "C" __global__ void prefetch_and_discard(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1024 < n) asm volatile("prefetch.global.L2 [%0];" :: "l"(in + i + 1024));
    asm volatile("prefetch.global.L1 [%0];" :: "l"(in + i));
    if (i < n) out[i] = in[i] * 2.f;
}
