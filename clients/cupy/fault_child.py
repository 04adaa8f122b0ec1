"""Run by test_raw.py in its own process: a kernel fault leaves the CUDA context unusable
(CUDA's "sticky" errors: the process has to restart), so it must not share a process with
other tests."""

import cupy as cp
import numpy as np


def error_name(e):
    return str(e).split(":", 1)[0]  # "cudaErrorIllegalAddress: an illegal memory access ..."


def main():
    k = cp.RawKernel(r"""
    extern "C" __global__ void poke(int* p, long long far) {
        p[threadIdx.x == 7 ? far : threadIdx.x] = 1;
    }""", "poke")
    buf = cp.zeros(64, cp.int32)
    k((1,), (32,), (buf, np.int64(1 << 38)))
    print("launch: ok")
    for step in ("synchronize", "synchronize again"):
        try:
            cp.cuda.Device().synchronize()
            print(f"{step}: ok")
        except cp.cuda.runtime.CUDARuntimeError as e:
            print(f"{step}: {error_name(e)}")
    try:
        cp.cuda.runtime.malloc(1 << 20)
        print("allocation: ok")
    except cp.cuda.runtime.CUDARuntimeError as e:
        print(f"allocation: {error_name(e)}")


if __name__ == "__main__":
    main()
