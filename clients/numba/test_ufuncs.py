"""CUDA ufuncs (@vectorize), generalized ufuncs (@guvectorize) and cuda.reduce.

These allocate through cuda.core's stream-ordered memory pool (cuDeviceGetMemPool,
cuMemAllocFromPoolAsync, cuMemFreeAsync) and cuda.reduce passes interior pointers.
"""

import math

import numpy as np
import pytest
from numba import cuda, guvectorize, vectorize


@vectorize(["float32(float32, float32)", "float64(float64, float64)",
            "int64(int64, int64)"], target="cuda")
def poly(x, y):
    return x * x + 3 * y - 1


@vectorize(["float64(float64)"], target="cuda")
def gauss(x):
    return math.exp(-x * x)


def test_vectorize_exact_per_dtype():
    for dtype in (np.float32, np.float64, np.int64):
        x = (np.arange(10007) % 101 - 50).astype(dtype)
        y = (np.arange(10007) % 7).astype(dtype)
        got = poly(x, y)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, x * x + 3 * y - 1)


def test_vectorize_broadcast_device_array_and_out():
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    # Broadcast along the rows. (A 1-D y of shape (4,) would be broadcast wrongly by
    # numba-cuda 0.30.4 itself: UFuncMechanism._broadcast lines the axes up from the
    # left and gives every axis stride 0, a host-side bug whatever the driver.)
    y = np.array([[1.0, 2.0, 3.0, 4.0]])
    dx = cuda.to_device(x)
    out = cuda.device_array((3, 4), np.float64)
    r = poly(dx, y, out=out)
    assert isinstance(r, type(out))
    np.testing.assert_array_equal(out.copy_to_host(), x * x + 3 * y - 1)
    # a scalar operand
    np.testing.assert_array_equal(poly(x, 2.5), x * x + 3 * 2.5 - 1)


def test_vectorize_transcendental_close():
    x = np.linspace(-3, 3, 5001)
    np.testing.assert_allclose(gauss(x), np.exp(-x * x), rtol=1e-15, atol=1e-300)


@guvectorize(["void(float64[:,:], float64[:,:], float64[:,:])"],
             "(m,n),(n,p)->(m,p)", target="cuda")
def batched_matmul(a, b, out):
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            acc = 0.0
            for k in range(a.shape[1]):
                acc += a[i, k] * b[k, j]
            out[i, j] = acc


@guvectorize(["void(int32[:], int32[:])"], "(n)->(n)", target="cuda")
def running_sum(x, out):
    acc = 0
    for i in range(x.shape[0]):
        acc += x[i]
        out[i] = acc


def test_guvectorize_batched_matmul():
    rng = np.random.default_rng(5)
    a = rng.integers(-9, 10, size=(20, 4, 5)).astype(np.float64)
    b = rng.integers(-9, 10, size=(20, 5, 3)).astype(np.float64)
    np.testing.assert_array_equal(batched_matmul(a, b), a @ b)


def test_guvectorize_running_sum_with_out():
    x = (np.arange(64 * 33, dtype=np.int32) % 17).reshape(64, 33)
    out = np.zeros_like(x)
    running_sum(x, out=out)
    np.testing.assert_array_equal(out, np.cumsum(x, axis=1))


sum_reduce = cuda.reduce(lambda a, b: a + b)
max_reduce = cuda.reduce(lambda a, b: max(a, b))


@pytest.mark.parametrize("n", [1, 31, 1000, 100003])
def test_reduce_sum_int_exact(n):
    x = ((np.arange(n, dtype=np.int64) * 2654435761) % 10007) - 5000
    assert sum_reduce(x) == x.sum()


def test_reduce_sum_float_init_and_slice():
    x = (np.arange(50000) % 1024).astype(np.float64) * 0.5  # exact partial sums
    assert sum_reduce(x, init=10.0) == x.sum() + 10.0
    dx = cuda.to_device(x)
    res = cuda.device_array(1, np.float64)
    sum_reduce(dx[123:45678], res=res)  # interior pointer, result left on the device
    assert res.copy_to_host()[0] == x[123:45678].sum()


def test_reduce_max():
    x = np.sin(np.arange(77777, dtype=np.float64))
    x[40000] = 2.5
    assert max_reduce(x) == 2.5
