// fixture: min_sm=70 variants=lineinfo
// Complex arithmetic (cuComplex.h), Mandelbrot/Julia iteration with data-dependent loops, and DFT.
#include <cuComplex.h>
extern "C" __global__ void mandelbrot(unsigned char* img, int w, int h, float x0, float y0, float dx, float dy, int max_iter) {
    int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    float cr = x0 + px * dx, ci = y0 + py * dy, zr = 0.f, zi = 0.f;
    int it = 0;
    while (zr * zr + zi * zi < 4.f && it < max_iter) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.f * zr * zi + ci;
        zr = t;
        ++it;
    }
    img[py * w + px] = (unsigned char)(255 * it / max_iter);
}

extern "C" __global__ void julia_double(const cuDoubleComplex c, int* iters, int w, int h, int max_iter) {
    int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    cuDoubleComplex z = make_cuDoubleComplex(-1.5 + 3.0 * px / w, -1.5 + 3.0 * py / h);
    int it = 0;
    for (; it < max_iter && cuCabs(z) < 2.0; ++it) z = cuCadd(cuCmul(z, z), c);
    iters[py * w + px] = it;
}

extern "C" __global__ void dft(const cuFloatComplex* x, cuFloatComplex* X, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    cuFloatComplex acc = make_cuFloatComplex(0.f, 0.f);
    for (int j = 0; j < n; ++j) {
        float s, c;
        sincospif(-2.f * (float)((long long)k * j % n) / n, &s, &c);
        acc = cuCaddf(acc, cuCmulf(x[j], make_cuFloatComplex(c, s)));
    }
    X[k] = cuCdivf(acc, make_cuFloatComplex((float)n, 0.f));
}
