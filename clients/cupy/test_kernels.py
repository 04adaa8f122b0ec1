"""CuPy's kernel generators: ElementwiseKernel, ReductionKernel, cupy.fuse."""

import cupy as cp
import numpy as np
import pytest


def test_elementwise_kernel_generic_types(rng):
    k = cp.ElementwiseKernel("T x, T y, raw T w", "T z",
                             "z = x * y + w[i % 3]", "mul_add_w")
    w = np.array([1, -2, 3])
    for t in (np.int32, np.int64, np.float32, np.float64):
        x = rng.integers(-1000, 1000, 10_001).astype(t)
        y = rng.integers(-1000, 1000, 10_001).astype(t)
        z = k(cp.asarray(x), cp.asarray(y), cp.asarray(w.astype(t))).get()
        assert z.dtype == t
        np.testing.assert_array_equal(z, x * y + w.astype(t)[np.arange(x.size) % 3])


def test_elementwise_kernel_broadcast_and_output(rng):
    k = cp.ElementwiseKernel("float64 x, float64 y", "float64 z, int32 sign",
                             "z = x - y; sign = (z > 0) - (z < 0)", "diff_sign")
    x = rng.integers(-50, 50, (40, 1)).astype(np.float64)
    y = rng.integers(-50, 50, (1, 30)).astype(np.float64)
    z, s = k(cp.asarray(x), cp.asarray(y))
    np.testing.assert_array_equal(z.get(), x - y)
    np.testing.assert_array_equal(s.get(), np.sign(x - y).astype(np.int32))


def test_elementwise_kernel_noncontiguous_and_preamble():
    k = cp.ElementwiseKernel("int64 x", "int64 y", "y = collatz_steps(x)", "collatz",
                             preamble="""
        __device__ long long collatz_steps(long long v) {
            long long n = 0;
            while (v > 1) { v = (v & 1) ? 3 * v + 1 : v / 2; n++; }
            return n;
        }""")
    x = np.arange(1, 2001, dtype=np.int64).reshape(40, 50)
    got = k(cp.asarray(x)[::-3, 1::2]).get()

    def steps(v):
        n = 0
        while v > 1:
            v = 3 * v + 1 if v & 1 else v // 2
            n += 1
        return n
    np.testing.assert_array_equal(got, np.vectorize(steps)(x[::-3, 1::2]))


def test_reduction_kernel_l2_norm_and_axis(rng):
    k = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
    x = rng.integers(-100, 100, (37, 1000)).astype(np.float64)
    # integer-valued squares summed below 2**53 are exact in any order; sqrt is correctly rounded
    np.testing.assert_array_equal(k(cp.asarray(x)).get(), np.sqrt((x * x).sum()))
    np.testing.assert_array_equal(k(cp.asarray(x), axis=1).get(), np.sqrt((x * x).sum(1)))
    np.testing.assert_array_equal(k(cp.asarray(x), axis=0).get(), np.sqrt((x * x).sum(0)))


def test_reduction_kernel_argmin_with_struct_type(rng):
    k = cp.ReductionKernel(
        "T x", "int64 idx",
        "thrust::make_pair(x, (long long)_j)",
        "(a.first < b.first || (a.first == b.first && a.second < b.second)) ? a : b",
        "idx = a.second",
        "thrust::make_pair((T)1e30, (long long)-1)",
        "argmin_pair", reduce_type="thrust::pair<T, long long>",
        preamble="#include <thrust/pair.h>")
    x = rng.integers(0, 50, 100_000).astype(np.float32)
    assert int(k(cp.asarray(x))) == int(np.argmin(x))


def test_reduction_kernel_integer_sum_large(rng):
    k = cp.ReductionKernel("int32 x", "int64 y", "x", "a + b", "y = a", "0", "isum",
                           reduce_type="long long")
    x = rng.integers(-2**31, 2**31 - 1, 1_000_003, dtype=np.int64).astype(np.int32)
    assert int(k(cp.asarray(x))) == int(x.astype(np.int64).sum())


def test_fuse_elementwise(rng):
    @cp.fuse()
    def fused(x, y, z):
        return cp.where(x > y, x * z - y, y + z * 2), x // (cp.absolute(y) + 1)

    x = rng.integers(-100, 100, 5000).astype(np.int64)
    y = rng.integers(-100, 100, 5000).astype(np.int64)
    z = rng.integers(-100, 100, 5000).astype(np.int64)
    a, b = fused(cp.asarray(x), cp.asarray(y), cp.asarray(z))
    np.testing.assert_array_equal(a.get(), np.where(x > y, x * z - y, y + z * 2))
    np.testing.assert_array_equal(b.get(), x // (np.abs(y) + 1))


def test_fuse_reduction(rng):
    """A fused reduction of an elementwise expression (one kernel, no grid-wide sync; a
    fusion that needs the reduced value inside the same kernel uses a cooperative grid
    sync, which ptxvm does not support: see README.md)."""
    @cp.fuse()
    def dot(x, y):
        return cp.sum(x * y)

    @cp.fuse()
    def row_sq(x):
        return cp.sum(x * x, axis=1)

    x = rng.integers(-1000, 1000, (60, 700)).astype(np.int64)
    y = rng.integers(-1000, 1000, (60, 700)).astype(np.int64)
    assert int(dot(cp.asarray(x), cp.asarray(y))) == int((x * y).sum())
    np.testing.assert_array_equal(row_sq(cp.asarray(x)).get(), (x * x).sum(1))


def test_kernel_compile_options_and_errors():
    k = cp.ElementwiseKernel("float32 x", "float32 y", "y = undefined_fn(x)", "broken")
    with pytest.raises(cp.cuda.compiler.CompileException):
        k(cp.ones(4, cp.float32))


def test_cupyx_jit_rawkernel(rng):
    """cupyx.jit: a Python function translated to CUDA C++ by CuPy, with shared memory,
    __syncthreads and an atomic."""
    import warnings

    from cupyx import jit

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # "cupyx.jit.rawkernel is experimental"

        @jit.rawkernel()
        def block_reverse_and_count(x, out, counter):
            tile = jit.shared_memory(cp.int32, 256)
            t = jit.threadIdx.x
            base = jit.blockIdx.x * jit.blockDim.x
            tile[t] = x[base + t]
            jit.syncthreads()
            out[base + t] = tile[jit.blockDim.x - 1 - t]
            if tile[t] % 2 == 0:
                jit.atomic_add(counter, 0, 1)

        x = rng.integers(-1000, 1000, 8 * 256).astype(np.int32)
        out = cp.empty(x.size, cp.int32)
        counter = cp.zeros(1, cp.int32)
        block_reverse_and_count((8,), (256,), (cp.asarray(x), out, counter))
    np.testing.assert_array_equal(out.get(), x.reshape(8, 256)[:, ::-1].ravel())
    assert int(counter[0]) == int((x % 2 == 0).sum())
