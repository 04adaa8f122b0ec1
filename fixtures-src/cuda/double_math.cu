// fixture: min_sm=70 variants=lineinfo,debug
// Double precision: libdevice math (sqrt/exp/log/sin/pow/...), division, fma, conversions.
extern "C" __global__ void f64_math(const double* x, double* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        double r = sqrt(fabs(v)) + exp(v) + log(fabs(v) + 1.0) + sin(v) + cos(v);
        r += pow(fabs(v), 1.5) + tanh(v) + atan2(v, 2.0) + cbrt(v) + erf(v);
        r += rsqrt(fabs(v) + 1.0) + log1p(fabs(v)) + expm1(v) + hypot(v, r);
        y[i] = r;
    }
}

extern "C" __global__ void f64_arith(const double* a, const double* b, double* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = a[i], y = b[i];
        double q = x / y;
        double r = 1.0 / x;
        double f = fma(x, y, q);
        double m = fmin(x, y) + fmax(x, y);
        double rd = __dadd_rd(x, y) + __dmul_ru(x, y) + __ddiv_rz(x, y) + __dsqrt_rn(fabs(x)) + __drcp_rn(y);
        c[i] = q + r + f + m + rd + floor(x) + ceil(y) + trunc(q) + round(r) + fmod(x, y) + copysign(x, y);
    }
}

extern "C" __global__ void f64_conversions(const double* d, float* f, int* i32, long long* i64, unsigned* u32, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = d[i];
        f[i] = (float)v + __double2float_rz(v);
        i32[i] = (int)v + __double2int_rd(v) + __double2int_ru(v);
        i64[i] = (long long)v + __double2ll_rn(v) + (long long)__double_as_longlong(v);
        u32[i] = (unsigned)v + __double2hiint(v) + __double2loint(v);
        double w = (double)i32[i] + (double)i64[i] + __hiloint2double(3, 5) + __ll2double_rz(i64[i]);
        f[i] += (float)w;
    }
}

// Double-precision dot product with shared reduction.
extern "C" __global__ void ddot(const double* x, const double* y, double* out, int n) {
    __shared__ double s[256];
    double acc = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        acc = fma(x[i], y[i], acc);
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

// Kahan summation + special values.
extern "C" __global__ void kahan_sum(const double* x, double* out, int n) {
    double sum = 0.0, c = 0.0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        double y = x[i] - c;
        double t = sum + y;
        c = (t - sum) - y;
        sum = t;
    }
    if (isnan(sum)) sum = 0.0;
    if (isinf(sum)) sum = 1.7976931348623157e308;
    out[threadIdx.x] = sum + signbit(c);
}
