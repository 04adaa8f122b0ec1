// streams_events: 4 streams over pinned host memory (cudaMallocHost), each with
// cudaMemcpyAsync H2D -> kernel -> cudaMemcpyAsync D2H; events timing the whole batch
// (cudaEventRecord/Synchronize/ElapsedTime/Query); a cross-stream dependency through
// cudaStreamWaitEvent; host callbacks (cudaStreamAddCallback, cudaLaunchHostFunc) that
// must run in stream order and after the preceding copy; cudaStreamQuery on a stream
// held back by a host function (must be cudaErrorNotReady) and after synchronization.
#include "check.h"
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#define NSTREAMS 4
#define CHUNK 4096

__global__ void scale_add(int *x, int n, int mul, int add) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * mul + add;
}

__global__ void fill(int *x, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v + i;
}

__global__ void add_from(const int *src, int *dst, int n, int add) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i] + add;
}

// --- callbacks: all run on CUDA's callback thread, in stream order ---
struct Log {
    char order[8];
    int count;
    int saw_copy;  // did callback A see the D2H copy that precedes it?
    const int *pinned;  // chunk 2 of the pinned buffer
};

static void CUDART_CB callback_a(cudaStream_t, cudaError_t status, void *user) {
    Log *log = (Log *)user;
    // the D2H copy enqueued before this callback has completed: element 5 of chunk 2
    log->saw_copy = (status == cudaSuccess && log->pinned[5] == (2 * CHUNK + 5) * 3 + 2);
    log->order[log->count++] = 'A';
}
static void CUDART_CB hostfn_b(void *user) {
    Log *log = (Log *)user;
    log->order[log->count++] = 'B';
}
static void CUDART_CB callback_c(cudaStream_t, cudaError_t status, void *user) {
    Log *log = (Log *)user;
    log->order[log->count++] = status == cudaSuccess ? 'C' : 'x';
}

static std::atomic<int> release_flag(0);
static std::atomic<int> hold_timed_out(0);
static void CUDART_CB hold_stream(void *) {
    // Keeps its stream busy until the main thread has queried it (at most 5 s, so a
    // driver that runs host functions synchronously fails the check instead of hanging).
    auto start = std::chrono::steady_clock::now();
    while (!release_flag.load()) {
        if (std::chrono::steady_clock::now() - start > std::chrono::seconds(5)) {
            hold_timed_out = 1;
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

int main() {
    const int n = NSTREAMS * CHUNK;
    int *h, *d;
    CHECK(cudaMallocHost(&h, n * sizeof(int)));
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    for (int i = 0; i < n; i++) h[i] = i;
    cudaStream_t s[NSTREAMS];
    for (int k = 0; k < NSTREAMS; k++) CHECK(cudaStreamCreate(&s[k]));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    printf("streams_events: %d streams, %d chunks of %d ints\n", NSTREAMS, NSTREAMS, CHUNK);

    Log log;
    memset(&log, 0, sizeof(log));
    log.pinned = h + 2 * CHUNK;  // chunk 2, copied back just before callback A

    CHECK(cudaEventRecord(start, s[0]));
    for (int k = 0; k < NSTREAMS; k++) {
        int *hk = h + k * CHUNK, *dk = d + k * CHUNK;
        CHECK(cudaMemcpyAsync(dk, hk, CHUNK * sizeof(int), cudaMemcpyHostToDevice, s[k]));
        scale_add<<<CHUNK / 256, 256, 0, s[k]>>>(dk, CHUNK, 3, k);
        CHECK_LAUNCH();
        CHECK(cudaMemcpyAsync(hk, dk, CHUNK * sizeof(int), cudaMemcpyDeviceToHost, s[k]));
        if (k == 2) {
            CHECK(cudaStreamAddCallback(s[k], callback_a, &log, 0));
            CHECK(cudaLaunchHostFunc(s[k], hostfn_b, &log));
            CHECK(cudaStreamAddCallback(s[k], callback_c, &log, 0));
        }
    }
    // stop is recorded on stream 0 after it has waited for the other three streams
    cudaEvent_t done[NSTREAMS];
    for (int k = 1; k < NSTREAMS; k++) {
        CHECK(cudaEventCreateWithFlags(&done[k], cudaEventDisableTiming));
        CHECK(cudaEventRecord(done[k], s[k]));
        CHECK(cudaStreamWaitEvent(s[0], done[k], 0));
    }
    CHECK(cudaEventRecord(stop, s[0]));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventQuery(stop));
    for (int i = 0; i < n; i++) {
        int want = i * 3 + i / CHUNK;
        if (h[i] != want) fail_mismatch_ll("chunk result", i, h[i], want);
    }
    printf("chunk results: ok\n");
    // the callbacks on stream 2 precede done[2], which stop waited for
    log.order[log.count] = 0;
    printf("callback order on stream 2: %s\n", log.order);
    printf("callback saw completed copy: %s\n", yesno(log.saw_copy));
    REQUIRE(strcmp(log.order, "ABC") == 0 && log.saw_copy);
    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf("elapsed>0: %s\n", yesno(ms > 0.0f));
    REQUIRE(ms > 0.0f);

    // cross-stream dependency: stream 1 consumes what stream 0 produces
    int *x, *y;
    CHECK(cudaMalloc(&x, CHUNK * sizeof(int)));
    CHECK(cudaMalloc(&y, CHUNK * sizeof(int)));
    cudaEvent_t produced;
    CHECK(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming));
    fill<<<CHUNK / 256, 256, 0, s[0]>>>(x, CHUNK, 1000);
    CHECK_LAUNCH();
    CHECK(cudaEventRecord(produced, s[0]));
    CHECK(cudaStreamWaitEvent(s[1], produced, 0));
    add_from<<<CHUNK / 256, 256, 0, s[1]>>>(x, y, CHUNK, 7);
    CHECK_LAUNCH();
    CHECK(cudaMemcpyAsync(h, y, CHUNK * sizeof(int), cudaMemcpyDeviceToHost, s[1]));
    CHECK(cudaStreamSynchronize(s[1]));
    for (int i = 0; i < CHUNK; i++)
        if (h[i] != 1007 + i) fail_mismatch_ll("cross-stream", i, h[i], 1007 + i);
    printf("cross-stream wait (cudaStreamWaitEvent): ok\n");

    // cudaStreamQuery: not ready while a host function holds the stream back
    CHECK(cudaLaunchHostFunc(s[3], hold_stream, nullptr));
    scale_add<<<CHUNK / 256, 256, 0, s[3]>>>(d, CHUNK, 1, 1);
    CHECK_LAUNCH();
    cudaError_t q1 = cudaStreamQuery(s[3]);
    release_flag = 1;
    CHECK(cudaStreamSynchronize(s[3]));
    cudaError_t q2 = cudaStreamQuery(s[3]);
    printf("cudaStreamQuery while held: %s\n", cudaGetErrorName(q1));
    printf("cudaStreamQuery after sync: %s\n", cudaGetErrorName(q2));
    REQUIRE(q1 == cudaErrorNotReady && q2 == cudaSuccess && !hold_timed_out);

    for (int k = 1; k < NSTREAMS; k++) CHECK(cudaEventDestroy(done[k]));
    CHECK(cudaEventDestroy(produced));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    for (int k = 0; k < NSTREAMS; k++) CHECK(cudaStreamDestroy(s[k]));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    printf("PASSED\n");
    return 0;
}
