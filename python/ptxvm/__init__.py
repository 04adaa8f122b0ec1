"""ptxvm: run CUDA programs on the CPU.

ptxvm implements NVIDIA's PTX virtual machine and ships a drop-in ``libcuda.so.1`` (the CUDA
driver API). This package installs the ``ptxvm`` command (``ptxvm exec -- python script.py``)
and the driver library, and offers:

- :func:`driver_path` -- the directory holding ``libcuda.so.1``;
- :func:`enable` -- make numba-cuda, cuda-python and CuPy in *this* process use ptxvm
  (call it before they load the driver);
- :func:`run` -- run one kernel of a PTX module on numpy arrays.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import sysconfig
from typing import Iterable, Sequence

__all__ = ["driver_path", "enable", "run", "CudaError"]


def _candidates() -> Iterable[str]:
    env = os.environ.get("PTXVM_DRIVER_DIR")
    if env:
        yield env
    for scheme_dir in {sysconfig.get_path("data"), sys.prefix, sys.base_prefix}:
        if scheme_dir:
            yield os.path.join(scheme_dir, "lib", "ptxvm")
    exe = shutil.which("ptxvm")
    if exe:
        yield os.path.join(os.path.dirname(os.path.realpath(exe)), "..", "lib", "ptxvm")


def driver_path() -> str:
    """The directory that holds ptxvm's ``libcuda.so.1``."""
    for d in _candidates():
        if os.path.isfile(os.path.join(d, "libcuda.so.1")):
            return os.path.realpath(d)
    exe = shutil.which("ptxvm")
    if exe:
        out = subprocess.run([exe, "driver-path"], capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    raise FileNotFoundError(
        "ptxvm's libcuda.so.1 was not found (reinstall the ptxvm package, or set PTXVM_DRIVER_DIR)"
    )


_driver: ctypes.CDLL | None = None


def _load() -> ctypes.CDLL:
    global _driver
    if _driver is None:
        d = driver_path()
        path = os.path.join(d, "libcuda.so.1")
        # Loaded globally under its SONAME: later dlopen("libcuda.so.1") calls in this
        # process (NVIDIA's runtime, cuda-python, numba-cuda, CuPy) get this library.
        _driver = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
        # ptxvm's nvJitLink likewise: cuda-pathfinder (numba-cuda, cuda.core) takes an
        # already-loaded libnvJitLink.so.13/.12 before NVIDIA's in site-packages, so kernels
        # linked with nvJitLink become ptxvm containers rather than SASS.
        for name in ("libnvJitLink.so.13", "libnvJitLink.so.12"):
            lib = os.path.join(d, name)
            if os.path.isfile(lib):
                ctypes.CDLL(lib, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
    return _driver


def enable(*, arch: str | None = None) -> str:
    """Makes CUDA clients in this process use ptxvm; returns the driver directory.

    Call it before numba-cuda, cuda-python or CuPy first touch the driver. It loads ptxvm's
    ``libcuda.so.1`` and nvJitLink (clients find an already-loaded library by its SONAME) and
    sets what
    ``ptxvm exec`` sets: ``CUPY_COMPILE_WITH_PTX=1``, ``CUPY_ACCELERATORS=`` and
    ``NUMBA_CUDA_DRIVER`` (variables already set are kept), and ``PTXVM_ARCH`` if given.
    """
    d = driver_path()
    if arch is not None:
        os.environ["PTXVM_ARCH"] = arch
    os.environ.setdefault("CUPY_COMPILE_WITH_PTX", "1")
    os.environ.setdefault("CUPY_ACCELERATORS", "")
    os.environ.setdefault("NUMBA_CUDA_DRIVER", os.path.join(d, "libcuda.so.1"))
    _load()
    return d


class CudaError(RuntimeError):
    """A driver call failed: ``code`` is the CUresult, ``name`` its ``CUDA_ERROR_*`` name."""

    def __init__(self, call: str, code: int, name: str):
        super().__init__(f"{call} failed: {name} ({code})")
        self.call, self.code, self.name = call, code, name


def _check(lib: ctypes.CDLL, call: str, r: int) -> None:
    if r != 0:
        s = ctypes.c_char_p()
        lib.cuGetErrorName(r, ctypes.byref(s))
        raise CudaError(call, r, (s.value or b"?").decode())


_ctx: ctypes.c_void_p | None = None


def _context(lib: ctypes.CDLL) -> ctypes.c_void_p:
    global _ctx
    if _ctx is None:
        _check(lib, "cuInit", lib.cuInit(0))
        ctx = ctypes.c_void_p()
        _check(lib, "cuDevicePrimaryCtxRetain", lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0))
        _ctx = ctx
    _check(lib, "cuCtxSetCurrent", lib.cuCtxSetCurrent(_ctx))
    return _ctx


def _dims(v) -> tuple[int, int, int]:
    t = (v,) if isinstance(v, int) else tuple(v)
    if not 1 <= len(t) <= 3:
        raise ValueError(f"a grid or block is 1 to 3 integers, not {v!r}")
    return tuple(int(x) for x in t) + (1,) * (3 - len(t))


def run(
    ptx: str | bytes,
    kernel: str,
    grid,
    block,
    args: Sequence,
    *,
    shared_mem: int = 0,
) -> list:
    """Runs ``kernel`` of a PTX module with ``args``; returns the array arguments after it.

    Each argument is a numpy array (copied to a device buffer; the kernel parameter gets its
    address, and the array's contents after the launch are returned) or a scalar passed by
    value: a numpy scalar (its bytes, which must fill the parameter) or a Python int/float
    (converted to the parameter's size: ints as two's complement, floats as f32 or f64).
    Returns the arrays, after the launch, in argument order. A fault in the kernel raises
    :class:`CudaError` and ptxvm's diagnostic goes to stderr.
    """
    import numpy as np

    lib = _load()
    _context(lib)
    text = ptx.encode() if isinstance(ptx, str) else bytes(ptx)
    image = ctypes.create_string_buffer(text + b"\0")
    mod = ctypes.c_void_p()
    _check(lib, "cuModuleLoadData", lib.cuModuleLoadData(ctypes.byref(mod), image))
    bufs: list[int] = []
    try:
        fn = ctypes.c_void_p()
        _check(lib, "cuModuleGetFunction", lib.cuModuleGetFunction(ctypes.byref(fn), mod, kernel.encode()))
        count = ctypes.c_size_t()
        _check(lib, "cuFuncGetParamCount", lib.cuFuncGetParamCount(fn, ctypes.byref(count)))
        if count.value != len(args):
            raise TypeError(f"kernel `{kernel}` takes {count.value} parameters, {len(args)} given")
        holders, arrays = [], []
        for i, a in enumerate(args):
            off, size = ctypes.c_size_t(), ctypes.c_size_t()
            _check(lib, "cuFuncGetParamInfo", lib.cuFuncGetParamInfo(fn, i, ctypes.byref(off), ctypes.byref(size)))
            n = size.value
            if isinstance(a, np.ndarray):
                if n != 8:
                    raise TypeError(f"parameter {i} ({n} bytes) cannot hold a 64-bit address for an array")
                arr = np.ascontiguousarray(a)
                dptr = ctypes.c_uint64()
                _check(lib, "cuMemAlloc_v2", lib.cuMemAlloc_v2(ctypes.byref(dptr), max(arr.nbytes, 1)))
                bufs.append(dptr.value)
                _check(lib, "cuMemcpyHtoD_v2", lib.cuMemcpyHtoD_v2(dptr, arr.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(arr.nbytes)))
                arrays.append((arr, dptr.value))
                raw = dptr.value.to_bytes(8, "little")
            elif isinstance(a, np.generic):
                raw = a.tobytes()
                if len(raw) != n:
                    raise TypeError(f"parameter {i} has {n} bytes; {a.dtype} has {len(raw)}")
            elif isinstance(a, bool) or isinstance(a, int):
                raw = int(a).to_bytes(n, "little", signed=int(a) < 0)
            elif isinstance(a, float):
                if n == 4:
                    raw = np.float32(a).tobytes()
                elif n == 8:
                    raw = np.float64(a).tobytes()
                else:
                    raise TypeError(f"parameter {i} has {n} bytes: not a float")
            else:
                raise TypeError(f"argument {i}: {type(a).__name__} is neither a numpy array nor a scalar")
            holders.append(ctypes.create_string_buffer(raw, len(raw)))
        params = (ctypes.c_void_p * max(len(holders), 1))(*[ctypes.cast(h, ctypes.c_void_p) for h in holders])
        g, b = _dims(grid), _dims(block)
        _check(lib, "cuLaunchKernel", lib.cuLaunchKernel(fn, *g, *b, ctypes.c_uint(shared_mem), None, params, None))
        _check(lib, "cuCtxSynchronize", lib.cuCtxSynchronize())
        out = []
        for arr, dptr in arrays:
            res = np.empty_like(arr)
            _check(lib, "cuMemcpyDtoH_v2", lib.cuMemcpyDtoH_v2(res.ctypes.data_as(ctypes.c_void_p), ctypes.c_uint64(dptr), ctypes.c_size_t(res.nbytes)))
            out.append(res)
        return out
    finally:
        for p in bufs:
            lib.cuMemFree_v2(ctypes.c_uint64(p))
        lib.cuModuleUnload(mod)
