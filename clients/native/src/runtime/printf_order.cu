// printf_order: device printf from several blocks and launches, interleaved with host
// printf. The device output of a launch must appear at the next synchronization point,
// after everything the host printed before that point and before what it prints after.
// Within one launch only one thread prints per printf site unless the order is fixed by
// the program (a single thread printing several lines), so the transcript is exact.
// (CUDA also flushes the device printf buffer at the start of a launch, so the host
// prints nothing between queued launches and their synchronization.)
// No fflush anywhere: the driver must keep device output ordered with the process's
// buffered stdout (stdout is a pipe under the test harness).
#include "check.h"

// Only thread `t` of block `b` prints.
__global__ void hello(int launch, int b, int t) {
    if (blockIdx.x == b && threadIdx.x == t)
        printf("device: launch %d block %d thread %d of %d blocks x %d threads\n", launch, (int)blockIdx.x,
               (int)threadIdx.x, (int)gridDim.x, (int)blockDim.x);
}

// One thread, many formats.
__global__ void formats(int i, unsigned u, long long ll, float f, double d, char c) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    printf("device: %%d=%d %%i=%i %%u=%u %%x=%x %%X=%X %%o=%o\n", i, i, u, u, u, u);
    printf("device: %%lld=%lld %%llu=%llu %%llx=%llx\n", ll, (unsigned long long)ll, (unsigned long long)ll);
    printf("device: %%f=%f %%.3f=%.3f %%e=%e %%g=%g %%10.2f=[%10.2f] %%-8d=[%-8d]\n", f, d, d, d, f, i);
    printf("device: %%c=%c %%s=%s %%5s=[%5s] %%%%\n", c, "str", "ab");
    printf("device: no arguments\n");
}

// Several threads of one warp print, in a loop ordered by a per-warp barrier: one line
// per step, from the lane whose turn it is.
__global__ void turns(int steps) {
    for (int k = 0; k < steps; k++) {
        if ((int)threadIdx.x == k) printf("device: turn %d taken by thread %d\n", k, (int)threadIdx.x);
        __syncthreads();
    }
}

int main() {
    printf("host: before first launch\n");
    hello<<<4, 32>>>(1, 2, 5);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    printf("host: after first sync\n");

    // several launches before one sync: their output appears in launch order
    hello<<<4, 32>>>(2, 3, 0);
    hello<<<4, 32>>>(3, 0, 31);
    hello<<<8, 64>>>(4, 7, 63);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    printf("host: after second sync\n");

    formats<<<1, 1>>>(-42, 3735928559u, -1234567890123LL, 3.5f, 2.0 / 3.0, 'Z');
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    printf("host: after formats\n");

    turns<<<1, 64>>>(6);
    CHECK_LAUNCH();
    // a blocking cudaMemcpy is a synchronization point too
    int *d;
    int h = 0;
    CHECK(cudaMalloc(&d, sizeof(int)));
    CHECK(cudaMemcpy(d, &h, sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost));
    printf("host: after memcpy\n");

    // a stream synchronization
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    hello<<<2, 16, 0, s>>>(5, 1, 15);
    CHECK_LAUNCH();
    CHECK(cudaStreamSynchronize(s));
    printf("host: after stream sync\n");
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    printf("PASSED\n");
    return 0;
}
