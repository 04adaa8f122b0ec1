// fixture: min_sm=70 lang=c variants=O0
// Plain C compiled with --target=nvptx64-nvidia-cuda -march=sm_XX: kernels marked with nvptx_kernel,
// special registers and synchronisation through the __nvvm builtins.
#define KERNEL __attribute__((nvptx_kernel))

static inline unsigned gid(void) {
    return __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
}

KERNEL void c_vec_add(const float* a, const float* b, float* c, int n) {
    unsigned i = gid();
    if (i < (unsigned)n) c[i] = a[i] + b[i];
}

KERNEL void c_dot_atomic(const double* x, const double* y, double* out, int n) {
    unsigned i = gid();
    double v = i < (unsigned)n ? x[i] * y[i] : 0.0;
    __nvvm_atom_add_gen_d(out, v);
}

static __attribute__((noinline)) int collatz_len(unsigned long long v) {
    int steps = 0;
    while (v != 1 && steps < 1000) { v = (v & 1) ? 3 * v + 1 : v / 2; ++steps; }
    return steps;
}

KERNEL void c_collatz(int* out, int n) {
    unsigned i = gid();
    if (i < (unsigned)n) out[i] = collatz_len(i + 1);
}

KERNEL void c_sregs(unsigned long long* out) {
    unsigned i = gid();
    __nvvm_bar_sync(0);
    out[4 * i] = __nvvm_read_ptx_sreg_clock64();
    out[4 * i + 1] = __nvvm_read_ptx_sreg_smid();
    out[4 * i + 2] = __nvvm_read_ptx_sreg_laneid() + __nvvm_read_ptx_sreg_warpid();
    out[4 * i + 3] = __nvvm_read_ptx_sreg_nctaid_y() * __nvvm_read_ptx_sreg_ctaid_z();
}

struct Pair { float a; int b; };
KERNEL void c_struct(struct Pair p, float* out) {
    float loc[8];
    unsigned i = gid();
    for (int k = 0; k < 8; ++k) loc[k] = p.a * k;
    out[i] = loc[(i + p.b) & 7];
}
