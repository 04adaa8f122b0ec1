// fixture: min_sm=70 variants=debug,lineinfo
// Recursive device functions: needs a call stack (.local frames, %SP/%SPL).
__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ unsigned ackermann(unsigned m, unsigned n) {
    if (m == 0) return n + 1;
    if (n == 0) return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

__device__ long long factorial(int n) { return n <= 1 ? 1 : n * factorial(n - 1); }

__device__ void quicksort(int* a, int lo, int hi) {
    if (lo >= hi) return;
    int p = a[(lo + hi) / 2], i = lo, j = hi;
    while (i <= j) {
        while (a[i] < p) ++i;
        while (a[j] > p) --j;
        if (i <= j) { int t = a[i]; a[i] = a[j]; a[j] = t; ++i; --j; }
    }
    quicksort(a, lo, j);
    quicksort(a, i, hi);
}

// Mutual recursion.
__device__ bool is_odd(unsigned n);
__device__ bool is_even(unsigned n) { return n == 0 ? true : is_odd(n - 1); }
__device__ bool is_odd(unsigned n) { return n == 0 ? false : is_even(n - 1); }

struct Node { int left, right; float value; };
__device__ float tree_sum(const Node* nodes, int idx, int depth) {
    if (idx < 0 || depth > 64) return 0.f;
    const Node& nd = nodes[idx];
    return nd.value + tree_sum(nodes, nd.left, depth + 1) + tree_sum(nodes, nd.right, depth + 1);
}

extern "C" __global__ void recursive_kernels(const int* in, long long* out, const Node* nodes, float* tsum, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int v = in[t] & 15;
    out[4 * t] = fib(v);
    out[4 * t + 1] = ackermann(2, v & 7);
    out[4 * t + 2] = factorial(v);
    out[4 * t + 3] = is_even(v);
    tsum[t] = tree_sum(nodes, t % 7, 0);
}

extern "C" __global__ void local_quicksort(const int* in, int* out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int buf[32];
    for (int k = 0; k < 32; ++k) buf[k] = in[(t * 32 + k) % n];
    quicksort(buf, 0, 31);
    for (int k = 0; k < 32; ++k) out[t * 32 + k] = buf[k];
}
