// fixture: min_sm=70 variants=lineinfo,debug
// Device printf (vprintf with a packed argument buffer) and assert (__assertfail).
// NVRTC has no <assert.h>; this is the same expansion nvcc's assert() uses.
extern "C" __device__ void __assertfail(const char* msg, const char* file, unsigned line, const char* fn, size_t size);
#define assert(e) ((e) ? (void)0 : __assertfail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof(char)))

extern "C" __global__ void printf_kinds(const float* f, const double* d, const int* i, const long long* ll, const char* s) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    printf("hello from block %d thread %d\n", blockIdx.x, threadIdx.x);
    printf("float %f double %.10e int %d ll %lld hex %x\n", f[t], d[t], i[t], ll[t], (unsigned)i[t]);
    printf("ptr %p char %c string %s\n", (void*)f, 'A' + (t % 26), s);
    if (t == 0) printf("no args\n");
    printf("%u %hd %lu %g %5.2f%%\n", (unsigned)t, (short)t, (unsigned long)t, f[t] * 2.0, (double)f[t]);
}

extern "C" __global__ void checked_divide(const int* a, const int* b, int* c, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) {
        assert(b[t] != 0);
        assert(a[t] >= 0 && "negative numerator");
        c[t] = a[t] / b[t];
    }
}

__device__ void trap_if(bool bad) { if (bad) __trap(); }
extern "C" __global__ void trap_and_brkpt(const int* v, int* out) {
    int t = threadIdx.x;
    trap_if(v[t] < 0);
    if (v[t] == 12345) __brkpt();
    out[t] = v[t] * 2;
}
