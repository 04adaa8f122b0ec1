"""Helpers for the cuda-python (cuda.bindings) client tests: result checking, NVRTC,
kernel parameters, device buffers."""

import functools

import numpy as np
from cuda.bindings import driver as cu
from cuda.bindings import nvrtc

ARCH = b"-arch=compute_80"


class CudaError(Exception):
    def __init__(self, code):
        self.code = code
        super().__init__(f"{code!r}")


def check(result):
    """Unpacks a cuda-bindings result tuple, raising CudaError on failure."""
    if isinstance(result, tuple):
        err, rest = result[0], result[1:]
    else:
        err, rest = result, ()
    if isinstance(err, nvrtc.nvrtcResult):
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise RuntimeError(f"NVRTC: {err!r}")
    elif err != cu.CUresult.CUDA_SUCCESS:
        raise CudaError(err)
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest


def expect(code, result):
    """Asserts that a driver call returned exactly `code`."""
    err = result[0] if isinstance(result, tuple) else result
    assert err == code, f"expected {code!r}, got {err!r}"


@functools.cache
def compile_ptx(source, opts=()):
    """CUDA C++ -> PTX text (bytes, NUL-terminated) with NVRTC for compute_80."""
    prog = check(nvrtc.nvrtcCreateProgram(source.encode(), b"test.cu", 0, [], []))
    try:
        options = [ARCH, b"-std=c++17", *opts]
        err = nvrtc.nvrtcCompileProgram(prog, len(options), options)[0]
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            size = check(nvrtc.nvrtcGetProgramLogSize(prog))
            log = b" " * size
            check(nvrtc.nvrtcGetProgramLog(prog, log))
            raise RuntimeError(f"NVRTC failed: {err!r}\n{log.decode(errors='replace')}")
        size = check(nvrtc.nvrtcGetPTXSize(prog))
        ptx = b" " * size
        check(nvrtc.nvrtcGetPTX(prog, ptx))
        return ptx
    finally:
        check(nvrtc.nvrtcDestroyProgram(prog))


def load_module(source, opts=()):
    return check(cu.cuModuleLoadData(compile_ptx(source, tuple(opts))))


def ptr_args(*values):
    """The `void*[]` form of kernelParams: keeps the argument storage alive.

    `values` are numpy scalars (their dtype is the parameter type) or CUdeviceptr.
    Returns (addresses array, storage list); pass `addresses.ctypes.data`.
    """
    storage = []
    for v in values:
        if isinstance(v, cu.CUdeviceptr):
            v = np.array([int(v)], dtype=np.uint64)
        else:
            v = np.array([v])
        storage.append(v)
    addrs = np.array([a.ctypes.data for a in storage], dtype=np.uint64)
    return addrs, storage


class DeviceBuffer:
    """cuMemAlloc'd memory that mirrors a numpy array."""

    def __init__(self, host):
        self.nbytes = host.nbytes
        self.ptr = check(cu.cuMemAlloc(max(self.nbytes, 1)))
        if self.nbytes:
            check(cu.cuMemcpyHtoD(self.ptr, host, self.nbytes))

    @classmethod
    def empty(cls, nbytes):
        buf = cls.__new__(cls)
        buf.nbytes = nbytes
        buf.ptr = check(cu.cuMemAlloc(nbytes))
        return buf

    def get(self, like):
        out = np.empty_like(like)
        assert out.nbytes == self.nbytes
        check(cu.cuMemcpyDtoH(out, self.ptr, self.nbytes))
        return out

    def free(self):
        check(cu.cuMemFree(self.ptr))
