// fixture: min_sm=70 variants=lineinfo
// Irregular access: CSR SpMV (scalar and vector/warp), BFS frontier expansion with atomics, gather/scatter.
extern "C" __global__ void spmv_csr_scalar(const int* rowptr, const int* cols, const float* vals, const float* x, float* y, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float s = 0.f;
        for (int k = rowptr[r]; k < rowptr[r + 1]; ++k) s += vals[k] * x[cols[k]];
        y[r] = s;
    }
}

extern "C" __global__ void spmv_csr_vector(const int* rowptr, const int* cols, const double* vals, const double* x, double* y, int rows) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    if (warp >= rows) return;
    double s = 0.0;
    for (int k = rowptr[warp] + lane; k < rowptr[warp + 1]; k += 32) s += vals[k] * __ldg(&x[cols[k]]);
    for (int o = 16; o; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) y[warp] = s;
}

extern "C" __global__ void bfs_expand(const int* rowptr, const int* cols, const int* frontier, int fsize,
                                      int* dist, int* next, int* next_size, int level) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= fsize) return;
    int u = frontier[i];
    for (int k = rowptr[u]; k < rowptr[u + 1]; ++k) {
        int v = cols[k];
        if (atomicCAS(&dist[v], -1, level + 1) == -1) next[atomicAdd(next_size, 1)] = v;
    }
}

extern "C" __global__ void gather_scatter(const float* src, const int* gidx, const int* sidx, float* dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = src[gidx[i]];
        atomicAdd(&dst[sidx[i]], v);
    }
}
