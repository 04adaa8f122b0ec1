"""Buffers for Triton on ptxvm's driver: Triton takes any object with `data_ptr()` and a
`dtype`, so a tiny wrapper over driver allocations (through ctypes) is all the tests need —
no PyTorch."""

import ctypes

import numpy as np
import pytest

_cuda = None


def _driver():
    global _cuda
    if _cuda is None:
        _cuda = ctypes.CDLL("libcuda.so.1")
        assert _cuda.cuInit(0) == 0
        ctx = ctypes.c_void_p()
        assert _cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0) == 0
        assert _cuda.cuCtxSetCurrent(ctx) == 0
    return _cuda


class DeviceArray:
    """A numpy array copied into device memory."""

    def __init__(self, a):
        cuda = _driver()
        self.host = np.ascontiguousarray(a)
        p = ctypes.c_uint64()
        assert cuda.cuMemAlloc_v2(ctypes.byref(p), max(self.host.nbytes, 1)) == 0
        self.ptr = p.value
        assert cuda.cuMemcpyHtoD_v2(ctypes.c_uint64(self.ptr), self.host.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(self.host.nbytes)) == 0
        self.dtype = self.host.dtype
        self.shape = self.host.shape

    def data_ptr(self):
        return self.ptr

    def numpy(self):
        cuda = _driver()
        out = np.empty_like(self.host)
        assert cuda.cuCtxSynchronize() == 0
        assert cuda.cuMemcpyDtoH_v2(out.ctypes.data_as(ctypes.c_void_p), ctypes.c_uint64(self.ptr), ctypes.c_size_t(out.nbytes)) == 0
        return out

    def __del__(self):
        if _cuda is not None:
            _cuda.cuMemFree_v2(ctypes.c_uint64(self.ptr))


@pytest.fixture
def dev():
    return DeviceArray
