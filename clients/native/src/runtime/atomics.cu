// atomics: every global atomic the runtime headers offer on sm_80, with results that
// do not depend on the order in which 16384 threads run:
//  atomicAdd (int, unsigned long long, float over dyadic values, double), atomicSub,
//  a 64-bit atomicCAS add loop, atomicCAS float-max loop, atomicExch (conservation of
//  the exchanged values), atomicMin/atomicMax (signed and unsigned), atomicInc/atomicDec
//  with wrap-around, atomicAnd/atomicOr/atomicXor; plus shared-memory atomics.
// Float sums are exact in any order: every addend is a multiple of 1/8 and every partial
// sum stays below 2^21, within float's 24-bit significand.
#include "check.h"

#define BLOCKS 64
#define THREADS 256
#define N (BLOCKS * THREADS)

struct Acc {
    int add_i;
    int sub_i;
    unsigned long long add_u64;
    float add_f;
    double add_d;
    unsigned long long cas_sum;
    float cas_fmax;
    int exch_slot;
    long long exch_returned;  // sum of values atomicExch returned
    int min_i, max_i;
    unsigned min_u, max_u;
    unsigned inc, dec;
    unsigned and_u, or_u, xor_u;
    int smem_total;
};

__device__ float atomic_max_float(float *addr, float v) {
    int *ia = (int *)addr;
    int old = *ia, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(ia, assumed, __float_as_int(v));
    } while (old != assumed);
    return __int_as_float(old);
}

__global__ void all_atomics(Acc *a) {
    __shared__ int block_count;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) block_count = 0;
    __syncthreads();
    atomicAdd(&block_count, i % 5);
    atomicAdd(&a->add_i, i % 7);
    atomicSub(&a->sub_i, i % 3);
    atomicAdd(&a->add_u64, (unsigned long long)i * 1000003ULL);
    atomicAdd(&a->add_f, (float)(i % 8) * 0.125f);
    atomicAdd(&a->add_d, i * 0.25);
    // 64-bit add built from atomicCAS
    unsigned long long old = a->cas_sum, assumed;
    do {
        assumed = old;
        old = atomicCAS(&a->cas_sum, assumed, assumed + (unsigned long long)(i % 11));
    } while (old != assumed);
    atomic_max_float(&a->cas_fmax, (float)((i * 7919) % 10007) * 0.5f);
    int got = atomicExch(&a->exch_slot, i + 1);
    atomicAdd((unsigned long long *)&a->exch_returned, (unsigned long long)(long long)got);
    int v = (i * 7919) % 10007 - 5000;
    atomicMin(&a->min_i, v);
    atomicMax(&a->max_i, v);
    atomicMin(&a->min_u, (unsigned)((i * 104729) % 65521) + 17u);
    atomicMax(&a->max_u, (unsigned)((i * 104729) % 65521) + 17u);
    atomicInc(&a->inc, 1000u);
    atomicDec(&a->dec, 1000u);
    atomicAnd(&a->and_u, ~(1u << (i % 31)));
    atomicOr(&a->or_u, 1u << (i % 29));
    atomicXor(&a->xor_u, (unsigned)i * 2654435761u);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(&a->smem_total, block_count);
}

int main() {
    Acc init = {};
    init.sub_i = 1000000;
    init.cas_fmax = -1.0f;
    init.exch_slot = 0;
    init.min_i = 0x7fffffff;
    init.max_i = -0x7fffffff - 1;
    init.min_u = 0xffffffffu;
    init.max_u = 0;
    init.and_u = 0xffffffffu;
    init.or_u = 0;
    init.xor_u = 0;
    Acc *d;
    CHECK(cudaMalloc(&d, sizeof(Acc)));
    CHECK(cudaMemcpy(d, &init, sizeof(Acc), cudaMemcpyHostToDevice));
    all_atomics<<<BLOCKS, THREADS>>>(d);
    CHECK_LAUNCH();
    Acc r;
    CHECK(cudaMemcpy(&r, d, sizeof(Acc), cudaMemcpyDeviceToHost));

    // host model
    long long add_i = 0, sub_i = 1000000, smem = 0;
    unsigned long long add_u64 = 0, cas_sum = 0;
    double add_f = 0, add_d = 0;
    float fmax = -1.0f;
    long long written = 0;
    int mn = 0x7fffffff, mx = -0x7fffffff - 1;
    unsigned mnu = 0xffffffffu, mxu = 0, and_u = 0xffffffffu, or_u = 0, xor_u = 0;
    for (long long i = 0; i < N; i++) {
        add_i += i % 7;
        sub_i -= i % 3;
        smem += i % 5;
        add_u64 += (unsigned long long)i * 1000003ULL;
        add_f += (double)(i % 8) * 0.125;
        add_d += i * 0.25;
        cas_sum += i % 11;
        float f = (float)((i * 7919) % 10007) * 0.5f;
        if (f > fmax) fmax = f;
        written += i + 1;
        int v = (int)((i * 7919) % 10007) - 5000;
        if (v < mn) mn = v;
        if (v > mx) mx = v;
        unsigned u = (unsigned)((i * 104729) % 65521) + 17u;
        if (u < mnu) mnu = u;
        if (u > mxu) mxu = u;
        and_u &= ~(1u << (i % 31));
        or_u |= 1u << (i % 29);
        xor_u ^= (unsigned)i * 2654435761u;
    }
    // atomicInc wraps to 0 after reaching 1000: N increments from 0 give N mod 1001;
    // atomicDec wraps from 0 to 1000: N decrements from 0 give (-N) mod 1001.
    unsigned inc = N % 1001, dec = (1001 - N % 1001) % 1001;

    int fails = 0;
#define CMP(name, got, want)                                                                    \
    do {                                                                                        \
        bool same = (got) == (want);                                                            \
        printf("%-13s %s\n", name, same ? "ok" : "MISMATCH");                                   \
        if (!same) {                                                                            \
            printf("FAILED: %s got %.17g expected %.17g\n", name, (double)(got), (double)(want)); \
            fails++;                                                                            \
        }                                                                                       \
    } while (0)
    CMP("add int", r.add_i, add_i);
    CMP("sub int", r.sub_i, sub_i);
    CMP("add u64", r.add_u64, add_u64);
    CMP("add float", (double)r.add_f, add_f);
    CMP("add double", r.add_d, add_d);
    CMP("cas u64 add", r.cas_sum, cas_sum);
    CMP("cas float max", r.cas_fmax, fmax);
    // atomicExch: the final value plus everything returned equals the initial value
    // plus everything written, whatever the order
    CMP("exch conserve", (long long)r.exch_slot + r.exch_returned, 0 + written);
    CMP("exch final>0", r.exch_slot > 0 && r.exch_slot <= N, true);
    CMP("min int", r.min_i, mn);
    CMP("max int", r.max_i, mx);
    CMP("min unsigned", r.min_u, mnu);
    CMP("max unsigned", r.max_u, mxu);
    CMP("inc wrap", r.inc, inc);
    CMP("dec wrap", r.dec, dec);
    CMP("and", r.and_u, and_u);
    CMP("or", r.or_u, or_u);
    CMP("xor", r.xor_u, xor_u);
    CMP("shared add", r.smem_total, smem);
    if (fails) return 1;
    printf("add float=%.3f add double=%.2f inc=%u dec=%u and=0x%08x or=0x%08x\n", r.add_f, r.add_d, r.inc, r.dec,
           r.and_u, r.or_u);
    CHECK(cudaFree(d));
    printf("PASSED\n");
    return 0;
}
