"""RawKernel and RawModule: user CUDA C++ compiled by NVRTC (to PTX, because of
CUPY_COMPILE_WITH_PTX=1) and run by the driver."""

import os
import subprocess
import sys

import cupy as cp
import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

SAXPY = r"""
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
"""

MODULE = r"""
__constant__ double coeffs[3];
__device__ unsigned long long calls;

extern "C" __global__ void poly(const double* x, double* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = (coeffs[2] * x[i] + coeffs[1]) * x[i] + coeffs[0];
        atomicAdd(&calls, 1ULL);
    }
}

template <typename T>
__global__ void axpby(T a, const T* x, T b, T* y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + b * y[i];
}

extern "C" __global__ void block_sum(const int* x, long long* out) {
    extern __shared__ long long partial[];
    int t = threadIdx.x;
    partial[t] = x[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}
"""

SCALARS = r"""
#include <cuda_fp16.h>
extern "C" __global__ void scalars(double* out, signed char a, short b, int c, long long d,
                                   unsigned char e, unsigned short f, unsigned int g,
                                   unsigned long long h, float i, double j, bool k, __half l) {
    out[0] = a; out[1] = b; out[2] = c; out[3] = (double)d; out[4] = e; out[5] = f;
    out[6] = g; out[7] = (double)h; out[8] = i; out[9] = j; out[10] = k;
    out[11] = __half2float(l);
}
"""


def test_raw_kernel_saxpy(rng):
    k = cp.RawKernel(SAXPY, "saxpy")
    n = 100_003
    x = rng.integers(-2**12, 2**12, n).astype(np.float32)
    y = rng.integers(-2**12, 2**12, n).astype(np.float32)
    out = cp.empty(n, cp.float32)
    k(((n + 255) // 256,), (256,), (np.float32(-3.0), cp.asarray(x), cp.asarray(y), out,
                                      np.int32(n)))
    np.testing.assert_array_equal(out.get(), np.float32(-3.0) * x + y)


def test_raw_kernel_scalar_types():
    k = cp.RawModule(code=SCALARS).get_function("scalars")
    out = cp.zeros(12, cp.float64)
    args = (out, np.int8(-100), np.int16(-30000), np.int32(-2**31), np.int64(-2**53),
            np.uint8(255), np.uint16(65535), np.uint32(2**32 - 1), np.uint64(2**53),
            np.float32(1.5), np.float64(-2.25e300), np.bool_(True), np.float16(-0.125))
    k((1,), (1,), args)
    expected = [-100, -30000, -2**31, -2**53, 255, 65535, 2**32 - 1, 2**53, 1.5, -2.25e300, 1,
                -0.125]
    np.testing.assert_array_equal(out.get(), np.array(expected, np.float64))


def test_raw_kernel_attributes():
    k = cp.RawKernel(SAXPY, "saxpy")
    assert k.max_threads_per_block == 1024
    assert k.shared_size_bytes == 0
    assert k.local_size_bytes == 0
    assert k.ptx_version == 80
    assert 0 < k.num_regs <= 255
    attrs = k.attributes
    assert attrs["max_threads_per_block"] == 1024


def test_raw_module_get_function_and_globals(rng):
    mod = cp.RawModule(code=MODULE, options=("-std=c++17",),
                       name_expressions=["axpby<float>", "axpby<double>", "axpby<int>"])
    coeffs = cp.ndarray((3,), cp.float64, mod.get_global("coeffs"))
    coeffs[...] = cp.asarray([0.5, -2.0, 0.25])
    calls = cp.ndarray((1,), cp.uint64, mod.get_global("calls"))
    calls[...] = 7
    n = 5000
    x = (np.arange(n) - 2500) / 4.0  # exact in float64; results exact too
    y = cp.empty(n, cp.float64)
    mod.get_function("poly")(((n + 127) // 128,), (128,), (cp.asarray(x), y, np.int32(n)))
    np.testing.assert_array_equal(y.get(), (0.25 * x - 2.0) * x + 0.5)
    assert int(calls.get()[0]) == 7 + n

    for t in (np.float32, np.float64, np.int32):
        f = mod.get_function(f"axpby<{ {np.float32: 'float', np.float64: 'double', np.int32: 'int'}[t] }>")
        xs = rng.integers(-1000, 1000, n).astype(t)
        ys = rng.integers(-1000, 1000, n).astype(t)
        dy = cp.asarray(ys)
        f((8,), (256,), (t(3), cp.asarray(xs), t(-2), dy, np.int32(n)))
        np.testing.assert_array_equal(dy.get(), t(3) * xs + t(-2) * ys)


def test_raw_module_dynamic_shared_memory(rng):
    mod = cp.RawModule(code=MODULE, options=("-std=c++17",))
    f = mod.get_function("block_sum")
    for block in (64, 512, 1024):
        x = rng.integers(-2**31, 2**31 - 1, 7 * block, dtype=np.int64).astype(np.int32)
        out = cp.empty(7, cp.int64)
        f((7,), (block,), (cp.asarray(x), out), shared_mem=block * 8)
        np.testing.assert_array_equal(out.get(), x.reshape(7, block).astype(np.int64).sum(1))


def test_raw_module_from_ptx_file(tmp_path):
    """RawModule(path=...) loads a PTX file with cuModuleLoad."""
    ptx, _ = cp.cuda.compiler.compile_using_nvrtc(SAXPY)  # PTX: CUPY_COMPILE_WITH_PTX=1
    assert b".entry saxpy" in ptx
    path = tmp_path / "saxpy.ptx"
    path.write_bytes(ptx)
    k = cp.RawModule(path=str(path)).get_function("saxpy")
    x = cp.arange(1000, dtype=cp.float32)
    out = cp.empty_like(x)
    k((4,), (256,), (np.float32(2), x, x, out, np.int32(1000)))
    np.testing.assert_array_equal(out.get(), np.arange(1000, dtype=np.float32) * 3)


def test_device_printf(capfd):
    k = cp.RawKernel(r"""
    extern "C" __global__ void hello(int v) {
        if (threadIdx.x == 3) printf("block %d thread %d v=%d f=%.2f\n", blockIdx.x, threadIdx.x, v, 1.5);
    }""", "hello")
    k((2,), (32,), (np.int32(42),))
    cp.cuda.Device().synchronize()
    out = capfd.readouterr().out
    assert sorted(out.splitlines()) == ["block 0 thread 3 v=42 f=1.50",
                                        "block 1 thread 3 v=42 f=1.50"]


def test_compile_error_is_reported():
    with pytest.raises(cp.cuda.compiler.CompileException, match="undefined"):
        cp.RawKernel('extern "C" __global__ void bad() { undefined_thing(); }', "bad").compile()


def test_missing_kernel_name():
    mod = cp.RawModule(code=SAXPY)
    with pytest.raises(cp.cuda.driver.CUDADriverError, match="CUDA_ERROR_NOT_FOUND"):
        mod.get_function("nope")


def test_illegal_address_in_subprocess():
    env = dict(os.environ)
    proc = subprocess.run([sys.executable, os.path.join(HERE, "fault_child.py")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines == [
        "launch: ok",
        "synchronize: cudaErrorIllegalAddress",
        "synchronize again: cudaErrorIllegalAddress",
        "allocation: cudaErrorIllegalAddress",
    ], proc.stdout + proc.stderr
