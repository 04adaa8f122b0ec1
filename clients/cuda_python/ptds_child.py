"""Run by test_streams_events.py with CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM=1: every
entry point is then looked up with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM (the
_ptsz/_ptds variants), and stream 0 is each host thread's own default stream. Two threads
launch and copy on "stream 0" and check their own results; prints one line per thread."""

import ctypes
import threading

import numpy as np
from cuda.bindings import driver as cu
from helpers import DeviceBuffer, check, load_module

KERNEL = r"""
extern "C" __global__ void accumulate(long long* acc, long long v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += v * (i + 1);
}
"""


def main():
    check(cu.cuInit(0))
    dev = check(cu.cuDeviceGet(0))
    pctx = check(cu.cuDevicePrimaryCtxRetain(dev))
    check(cu.cuCtxSetCurrent(pctx))
    f = check(cu.cuModuleGetFunction(load_module(KERNEL), b"accumulate"))
    results = {}

    def worker(k):
        check(cu.cuCtxSetCurrent(pctx))
        n = 5000
        acc = DeviceBuffer(np.zeros(n, np.int64))
        for r in range(20):
            check(cu.cuLaunchKernel(f, (n + 255) // 256, 1, 1, 256, 1, 1, 0, 0,
                                    ((acc.ptr, k * 100 + r, n),
                                     (None, ctypes.c_longlong, ctypes.c_int)), 0))
        out = np.empty(n, np.int64)
        check(cu.cuMemcpyDtoHAsync(out, acc.ptr, out.nbytes, 0))
        check(cu.cuStreamSynchronize(0))
        want = sum(k * 100 + r for r in range(20)) * np.arange(1, n + 1, dtype=np.int64)
        results[k] = bool((out == want).all())

    threads = [threading.Thread(target=worker, args=(k,)) for k in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in sorted(results):
        print(f"thread {k}: {'ok' if results[k] else 'WRONG'}")


if __name__ == "__main__":
    main()
