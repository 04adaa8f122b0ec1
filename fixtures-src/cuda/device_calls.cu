// fixture: min_sm=70 variants=lineinfo,debug
// Non-inlined device functions (.func + call), function pointers (indirect calls), virtual dispatch,
// by-value struct arguments/returns and multiple return paths.
struct Vec3 { float x, y, z; };

__device__ __noinline__ Vec3 cross(Vec3 a, Vec3 b) {
    return Vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
__device__ __noinline__ float dot3(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
__device__ __noinline__ int clamp_i(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
__device__ __noinline__ double poly(double x, const double* c, int n) {
    double r = 0.0;
    for (int k = n - 1; k >= 0; --k) r = r * x + c[k];
    return r;
}
__device__ __noinline__ void write_pair(float* out, int i, float a, float b) { out[2 * i] = a; out[2 * i + 1] = b; }

extern "C" __global__ void call_noinline(const Vec3* a, const Vec3* b, float* out, const double* coef, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        Vec3 c = cross(a[i], b[i]);
        float d = dot3(c, a[i]);
        int k = clamp_i(i * 3 - 7, 0, n - 1);
        write_pair(out, k, d, (float)poly((double)d, coef, 5));
    }
}

typedef float (*unary_fn)(float);
__device__ float f_sq(float x) { return x * x; }
__device__ float f_neg(float x) { return -x; }
__device__ float f_half(float x) { return 0.5f * x; }
__device__ float f_exp(float x) { return expf(x); }
__device__ unary_fn g_table[4] = {f_sq, f_neg, f_half, f_exp};

extern "C" __global__ void call_indirect(const float* x, const int* sel, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unary_fn f = g_table[sel[i] & 3];
        y[i] = f(x[i]);
    }
}

struct Shape {
    __device__ virtual float area() const = 0;
    __device__ virtual ~Shape() {}
};
struct Circle : Shape { float r; __device__ Circle(float r) : r(r) {} __device__ float area() const override { return 3.14159265f * r * r; } };
struct Rect : Shape { float w, h; __device__ Rect(float w, float h) : w(w), h(h) {} __device__ float area() const override { return w * h; } };

extern "C" __global__ void call_virtual(const float* p, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        Circle c(p[i]);
        Rect r(p[i], 2.f);
        const Shape* s = (i & 1) ? (const Shape*)&c : (const Shape*)&r;
        out[i] = s->area();
    }
}

struct Params { int n; float scale; float bias; int flags; double extra[3]; };
__device__ __noinline__ float apply(Params p, float v) {
    float r = v * p.scale + p.bias;
    if (p.flags & 1) r = fabsf(r);
    if (p.flags & 2) r += (float)(p.extra[0] + p.extra[1] * p.extra[2]);
    return r;
}
extern "C" __global__ void call_struct_byval(Params p, const float* in, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) out[i] = apply(p, in[i]);
}
