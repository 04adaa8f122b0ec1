// ptds: built with --default-stream per-thread. Two host threads each use "the default
// stream" (<<<g, b>>> without a stream, cudaMemcpyAsync/cudaStreamSynchronize on stream
// 0 and on cudaStreamPerThread), which is a different stream in each thread. Each
// thread checks its own results; the main thread prints them in a fixed order.
#include "check.h"
#include <thread>

#ifndef CUDA_API_PER_THREAD_DEFAULT_STREAM
#error "build ptds.cu with --default-stream per-thread"
#endif

__global__ void accumulate(int *x, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v * (i + 1);
}

struct Result {
    int id;
    int ok;
    long long first_bad;
    cudaError_t err;
};

static void worker(Result *r) {
    const int n = 4096;
    int *d = nullptr, *h = nullptr;
    r->ok = 0;
    r->first_bad = -1;
    if ((r->err = cudaSetDevice(0)) != cudaSuccess) return;
    if ((r->err = cudaMalloc(&d, n * sizeof(int))) != cudaSuccess) return;
    if ((r->err = cudaMallocHost(&h, n * sizeof(int))) != cudaSuccess) return;
    if ((r->err = cudaMemsetAsync(d, 0, n * sizeof(int), 0)) != cudaSuccess) return;
    for (int k = 1; k <= 20; k++) {
        accumulate<<<n / 256, 256>>>(d, n, r->id * 100 + k);
        if ((r->err = cudaGetLastError()) != cudaSuccess) return;
    }
    accumulate<<<n / 256, 256, 0, cudaStreamPerThread>>>(d, n, 1);
    if ((r->err = cudaGetLastError()) != cudaSuccess) return;
    if ((r->err = cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, 0)) != cudaSuccess) return;
    if ((r->err = cudaStreamSynchronize(cudaStreamPerThread)) != cudaSuccess) return;
    // sum over k=1..20 of (id*100+k) = 2000*id + 210, plus 1
    long long per = 2000LL * r->id + 210 + 1;
    for (int i = 0; i < n; i++)
        if (h[i] != per * (i + 1)) {
            r->first_bad = i;
            return;
        }
    if ((r->err = cudaStreamQuery(0)) != cudaSuccess) return;
    cudaFree(d);
    cudaFreeHost(h);
    r->ok = 1;
}

int main() {
    Result r[2] = {{1, 0, -1, cudaSuccess}, {2, 0, -1, cudaSuccess}};
    std::thread t0(worker, &r[0]);
    std::thread t1(worker, &r[1]);
    t0.join();
    t1.join();
    for (int k = 0; k < 2; k++) {
        printf("thread %d: %s (%s, first mismatch %lld)\n", r[k].id, r[k].ok ? "ok" : "FAILED",
               cudaGetErrorName(r[k].err), r[k].first_bad);
        if (!r[k].ok) return 1;
    }
    CHECK(cudaDeviceSynchronize());
    printf("PASSED\n");
    return 0;
}
