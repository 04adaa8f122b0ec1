"""Regenerates kernel.ltoir: LTO-IR of a numba-cuda kernel, made by NVIDIA's NVVM (run it
under `ptxvm exec` in a venv with numba-cuda[cu13]; numba needs a driver even to compile).

The kernel adds 1 to each element of a float32 array (numba's ABI: 7 parameters for a 1-D
array). tests/ltoir.rs links it through NVIDIA's nvJitLink when PTXVM_REAL_NVJITLINK is set.
"""

import pathlib

from numba import cuda, float32


@cuda.jit(device=True)
def add1(x):
    return x + 1


def kern(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = add1(a[i])


lto, _ = cuda.compile(kern, (float32[:],), device=False, cc=(8, 0), output="ltoir", abi="numba")
pathlib.Path(__file__).with_name("kernel.ltoir").write_bytes(lto)
