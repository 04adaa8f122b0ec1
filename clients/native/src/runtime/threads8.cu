// threads8: 8 host threads, each with its own stream and buffer, each enqueueing 200
// launches of an accumulate kernel and one copy back, concurrently. Totals are exact:
// element i of thread t ends as sum_{l<200} (1000*t + l + i) = 200*(1000*t + i) + 19900.
#include "check.h"
#include <thread>
#include <vector>

#define NTHREADS 8
#define LAUNCHES 200
#define N 256

__global__ void accumulate(long long *acc, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) acc[i] += v + i;
}

struct Result {
    int ok;
    int first_bad;
    cudaError_t err;
};

static void worker(int t, Result *r) {
    r->ok = 0;
    r->first_bad = -1;
    r->err = cudaSuccess;
    cudaStream_t s;
    long long *d = nullptr;
    std::vector<long long> h(N, -1);
#define TRY(call)                                   \
    do {                                            \
        if ((r->err = (call)) != cudaSuccess) return; \
    } while (0)
    TRY(cudaSetDevice(0));
    TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    TRY(cudaMalloc(&d, N * sizeof(long long)));
    TRY(cudaMemsetAsync(d, 0, N * sizeof(long long), s));
    for (int l = 0; l < LAUNCHES; l++) {
        accumulate<<<N / 64, 64, 0, s>>>(d, 1000 * t + l);
        TRY(cudaGetLastError());
    }
    TRY(cudaMemcpyAsync(h.data(), d, N * sizeof(long long), cudaMemcpyDeviceToHost, s));
    TRY(cudaStreamSynchronize(s));
    for (int i = 0; i < N; i++)
        if (h[i] != 200LL * (1000 * t + i) + 19900) {
            r->first_bad = i;
            return;
        }
    TRY(cudaFree(d));
    TRY(cudaStreamDestroy(s));
    r->ok = 1;
}

int main() {
    Result r[NTHREADS];
    std::vector<std::thread> threads;
    for (int t = 0; t < NTHREADS; t++) threads.emplace_back(worker, t, &r[t]);
    for (auto &th : threads) th.join();
    long long grand = 0;
    for (int t = 0; t < NTHREADS; t++) {
        printf("thread %d: %d launches on its own stream: %s\n", t, LAUNCHES, r[t].ok ? "ok" : "FAILED");
        if (!r[t].ok) {
            printf("FAILED: thread %d: %s, first mismatch at %d\n", t, cudaGetErrorName(r[t].err), r[t].first_bad);
            return 1;
        }
        for (int i = 0; i < N; i++) grand += 200LL * (1000 * t + i) + 19900;
    }
    printf("grand total over all threads: %lld\n", grand);
    printf("PASSED\n");
    return 0;
}
