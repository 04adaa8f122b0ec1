// Engines benchmark: a dependent FMA chain per thread. Each iteration evaluates a
// degree-4 polynomial by Horner's rule (4 dependent fmaf), whose constant term depends on
// the thread's input, so every thread converges to its own fixed point; |x| <= 1 stays
// within [-0.97, 0.97]. The C references are poly_c (same loop per element) and
// poly_blocked_c (128 elements at a time, the "best simple C") in ../c/engines.c.
extern "C" __global__ void poly(const float* __restrict__ in, float* __restrict__ out, int n,
                                int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    float c0 = x * 0.25f;
    for (int k = 0; k < iters; ++k)
        x = fmaf(fmaf(fmaf(fmaf(-0.03125f, x, 0.0625f), x, -0.125f), x, 0.5f), x, c0);
    out[i] = x;
}
