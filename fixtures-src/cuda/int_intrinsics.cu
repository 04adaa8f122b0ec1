// fixture: min_sm=70 variants=lineinfo
// Integer intrinsics: popc, clz, ffs, brev, byte_perm, funnel shifts, mulhi, mul24, sad, dp4a/dp2a, hadd,
// 64-bit division and remainder, bit-field extract/insert via inline asm, SIMD video intrinsics.
extern "C" __global__ void bit_ops(const unsigned* a, const unsigned long long* b, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i];
    unsigned long long y = b[i];
    unsigned r = __popc(x) + __popcll(y) + __clz(x) + __clzll(y) + __ffs(x) + __ffsll(y);
    r ^= __brev(x) ^ (unsigned)__brevll(y);
    r += __byte_perm(x, (unsigned)y, 0x5140);
    r += __funnelshift_l(x, (unsigned)y, 7) + __funnelshift_r(x, (unsigned)(y >> 32), x & 31) + __funnelshift_lc(x, x, 40);
    r += __umulhi(x, 0x9E3779B9u) + (unsigned)__umul64hi(y, 0x9E3779B97F4A7C15ull) + __mulhi((int)x, -7);
    r += __umul24(x, 3) + __mul24((int)x, -3) + __sad((int)x, 17, 5u) + __usad(x, 99u, 1u);
    r += __uhadd(x, 5u) + __urhadd(x, 9u) + __hadd((int)x, -1) + __rhadd((int)x, 3);
    unsigned bfe, bfi;
    asm("bfe.u32 %0, %1, 4, 8;" : "=r"(bfe) : "r"(x));
    asm("bfi.b32 %0, %1, %2, 8, 4;" : "=r"(bfi) : "r"(x), "r"(r));
    out[i] = r + bfe + bfi;
}

extern "C" __global__ void dot_products(const int* a, const int* b, const unsigned* ua, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int r = __dp4a(a[i], b[i], 0);
        r = __dp4a((unsigned)a[i], ua[i], (unsigned)r);
        r += __dp2a_lo(a[i], b[i], 1) + __dp2a_hi(a[i], b[i], 2);
        out[i] = r;
    }
}

extern "C" __global__ void div_rem_64(const long long* a, const long long* b, const unsigned long long* ua, const unsigned long long* ub, long long* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        long long q = a[i] / b[i], r = a[i] % b[i];
        unsigned long long uq = ua[i] / ub[i], ur = ua[i] % ub[i];
        out[4 * i] = q; out[4 * i + 1] = r; out[4 * i + 2] = (long long)uq; out[4 * i + 3] = (long long)ur;
    }
}

extern "C" __global__ void div_rem_32_const(const int* a, const unsigned* u, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] / 7 + a[i] % 13 + (int)(u[i] / 10u) + (int)(u[i] % 1000u) + a[i] / -3 + (a[i] >> 2) + (int)(u[i] >> 5);
}

extern "C" __global__ void simd_video(const unsigned* a, const unsigned* b, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned x = a[i], y = b[i];
        out[i] = __vadd4(x, y) ^ __vsub2(x, y) ^ __vabsdiffu4(x, y) ^ __vmaxu4(x, y) ^ __vmins2(x, y) ^ __vcmpeq4(x, y) ^ __vsads2(x, y) ^ __vavgu4(x, y);
    }
}

extern "C" __global__ void saturating_and_min_max(const int* a, const long long* b, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int x = a[i];
        long long y = b[i];
        int s;
        asm("add.sat.s32 %0, %1, %2;" : "=r"(s) : "r"(x), "r"(0x7ffffff0));
        out[i] = s + min(x, 5) + max(x, -5) + (int)llmin(y, 100LL) + (int)llmax(y, -100LL) + (int)umin((unsigned)x, 9u) + abs(x) + (int)llabs(y);
    }
}
