"""Run by test_errors.py in its own process: a kernel fault makes the context unusable
(CUDA documents such errors as sticky: the process must restart), so it must not share a
process with other tests. Prints one `name=result` line per step."""

import ctypes
import sys

import numpy as np
from cuda.bindings import driver as cu
from helpers import compile_ptx

FAULT = r"""
extern "C" __global__ void poke(int* p, long long offset) {
    if (blockIdx.x == 1 && threadIdx.x == 5) p[offset] = 1;  // far outside any allocation
    else p[threadIdx.x] = threadIdx.x;
}
"""


def name(res):
    err = res[0] if isinstance(res, tuple) else res
    return err.name


def main():
    cu.cuInit(0)
    _, dev = cu.cuDeviceGet(0)
    _, ctx = cu.cuCtxCreate(None, 0, dev)
    _, mod = cu.cuModuleLoadData(compile_ptx(FAULT))
    _, f = cu.cuModuleGetFunction(mod, b"poke")
    _, buf = cu.cuMemAlloc(4096)
    params = ((buf, 1 << 38), (None, ctypes.c_longlong))
    steps = [
        ("launch", cu.cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, 0, params, 0)),
        ("sync", cu.cuCtxSynchronize()),
        ("sync_again", cu.cuCtxSynchronize()),
        ("malloc", cu.cuMemAlloc(16)),
        ("memcpy", cu.cuMemcpyDtoH(np.zeros(4, np.int32), buf, 16)),
        ("launch_after", cu.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0,
                                           ((buf, 0), (None, ctypes.c_longlong)), 0)),
        ("stream_sync", cu.cuStreamSynchronize(0)),
        ("error_name", cu.cuGetErrorName(cu.CUresult.CUDA_ERROR_ILLEGAL_ADDRESS)),
    ]
    for k, res in steps:
        print(f"{k}={name(res)}")
    print(f"error_name_value={steps[-1][1][1].decode()}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
