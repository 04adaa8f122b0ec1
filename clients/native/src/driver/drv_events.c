/* drv_events: cuEventCreate with CU_EVENT_DEFAULT and CU_EVENT_DISABLE_TIMING,
 * cuEventRecord on streams around a copy and kernels, cuEventSynchronize, cuEventQuery
 * (never recorded, and after completion: CUDA_SUCCESS), cuStreamWaitEvent across streams
 * on the timing-disabled event, cuEventElapsedTime (> 0 between two timing events;
 * CUDA_ERROR_INVALID_HANDLE when either event has timing disabled), re-recording on the
 * NULL stream. (Querying an event whose work is still running is timing dependent and
 * not tested.) */
#include "drv_check.h"
#include "kernels_ptx.h"

int main(void) {
    CUcontext ctx = setup_context(NULL);
    CUmodule mod;
    CUfunction f;
    CUstream s1, s2;
    CUevent start, stop, notime, fresh;
    CUdeviceptr d;
    int n = 65536, factor = 3, i;
    int *h = (int *)malloc(n * sizeof(int));
    for (i = 0; i < n; i++) h[i] = i % 1000;
    CK(cuModuleLoadData(&mod, kernels_ptx));
    CK(cuModuleGetFunction(&f, mod, "scale_i32"));
    CK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    CK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    CK(cuEventCreate(&start, CU_EVENT_DEFAULT));
    CK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
    CK(cuEventCreate(&notime, CU_EVENT_DISABLE_TIMING));
    CK(cuEventCreate(&fresh, CU_EVENT_DEFAULT));
    CK(cuMemAlloc(&d, n * sizeof(int)));

    /* a never-recorded event is complete */
    EXPECT("cuEventQuery(never recorded)", cuEventQuery(fresh), CUDA_SUCCESS);

    CK(cuEventRecord(start, s1));
    CK(cuMemcpyHtoDAsync(d, h, n * sizeof(int), s1));
    void *args[] = {&d, &n, &factor};
    CK(cuLaunchKernel(f, n / 256, 1, 1, 256, 1, 1, 0, s1, args, NULL));
    CK(cuEventRecord(notime, s1));
    /* s2 waits for s1's kernel, then scales again */
    CK(cuStreamWaitEvent(s2, notime, 0));
    CK(cuLaunchKernel(f, n / 256, 1, 1, 256, 1, 1, 0, s2, args, NULL));
    CK(cuEventRecord(stop, s2));
    CK(cuEventSynchronize(stop));
    EXPECT("cuEventQuery(stop) after cuEventSynchronize", cuEventQuery(stop), CUDA_SUCCESS);
    CK(cuEventSynchronize(notime));
    EXPECT("cuEventQuery(timing-disabled event)", cuEventQuery(notime), CUDA_SUCCESS);

    float ms = -1.0f;
    CK(cuEventElapsedTime(&ms, start, stop));
    printf("elapsed>0: %s\n", yesno(ms > 0.0f));
    REQUIRE(ms > 0.0f);
    EXPECT("cuEventElapsedTime(start, timing-disabled)", cuEventElapsedTime(&ms, start, notime),
           CUDA_ERROR_INVALID_HANDLE);
    EXPECT("cuEventElapsedTime(timing-disabled, stop)", cuEventElapsedTime(&ms, notime, stop),
           CUDA_ERROR_INVALID_HANDLE);

    CK(cuMemcpyDtoH(h, d, n * sizeof(int)));
    for (i = 0; i < n; i++)
        if (h[i] != 9 * (i % 1000)) {
            printf("FAILED: h[%d]=%d, expected %d\n", i, h[i], 9 * (i % 1000));
            return 1;
        }
    printf("cross-stream wait on the timing-disabled event: ok\n");

    /* record again: the event now stands for the new work */
    CK(cuEventRecord(start, NULL));
    CK(cuLaunchKernel(f, n / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    CK(cuEventRecord(stop, NULL));
    CK(cuEventSynchronize(stop));
    CK(cuEventElapsedTime(&ms, start, stop));
    printf("re-recorded on the NULL stream: elapsed>=0: %s\n", yesno(ms >= 0.0f));
    REQUIRE(ms >= 0.0f);

    CK(cuEventDestroy(start));
    CK(cuEventDestroy(stop));
    CK(cuEventDestroy(notime));
    CK(cuEventDestroy(fresh));
    CK(cuStreamDestroy(s1));
    CK(cuStreamDestroy(s2));
    CK(cuMemFree(d));
    CK(cuModuleUnload(mod));
    CK(cuCtxDestroy(ctx));
    free(h);
    printf("PASSED\n");
    return 0;
}
