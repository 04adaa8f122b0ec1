"""Triton's tutorial kernels (vector add, fused softmax, layer norm, low-memory dropout, a
libdevice math call), written as in Triton's tutorials, compiled by the unmodified Triton
from pip (its LLVM makes PTX; ptxvm's ptxas drop-in makes the "cubin"), launched through
ptxvm's driver, and compared with numpy. The tensor-core matmul (tl.dot) is in
test_matmul.py; attention and the sm_90 (wgmma) lowering are a later step."""

import numpy as np
import pytest
import triton
import triton.language as tl

rng = np.random.default_rng(1234)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@pytest.mark.parametrize("n", [1, 1000, 98432])
def test_vector_add(dev, n):
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    out = dev(np.zeros(n, np.float32))
    add_kernel[(triton.cdiv(n, 1024),)](dev(x), dev(y), out, n, BLOCK=1024)
    np.testing.assert_array_equal(out.numpy(), x + y)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * in_stride + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + offs, num / tl.sum(num, axis=0), mask=mask)


@pytest.mark.parametrize("rows,cols", [(32, 128), (64, 781), (7, 1823)])
def test_fused_softmax(dev, rows, cols):
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    out = dev(np.zeros_like(x))
    softmax_kernel[(rows,)](out, dev(x), cols, cols, cols, BLOCK=triton.next_power_of_2(cols))
    ref = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    ref /= ref.sum(1, keepdims=True)
    # tl.exp is ex2.approx-based: a few ulp (documented bound 2^-22 relative per exp).
    np.testing.assert_allclose(out.numpy(), ref, rtol=2e-6, atol=1e-9)


@triton.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        _mean += tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(Y + cols, (x - mean) * rstd * w + b, mask=mask)


@pytest.mark.parametrize("M,N,dtype", [(16, 512, np.float32), (32, 1151, np.float32), (8, 2048, np.float16)])
def test_layer_norm(dev, M, N, dtype):
    x = rng.standard_normal((M, N)).astype(dtype)
    w = rng.random(N).astype(dtype)
    b = rng.random(N).astype(dtype)
    y = dev(np.zeros_like(x))
    mean = dev(np.zeros(M, np.float32))
    rstd = dev(np.zeros(M, np.float32))
    block = min(1024, triton.next_power_of_2(N))
    layer_norm_fwd[(M,)](dev(x), y, dev(w), dev(b), mean, rstd, N, N, 1e-5, BLOCK_SIZE=block, num_warps=8)
    xf = x.astype(np.float64)
    mu = xf.mean(1, keepdims=True)
    var = ((xf - mu) ** 2).mean(1, keepdims=True)
    ref = (xf - mu) / np.sqrt(var + 1e-5) * w.astype(np.float64) + b.astype(np.float64)
    tol = 1e-4 if dtype == np.float32 else 2e-2
    np.testing.assert_allclose(y.numpy().astype(np.float64), ref, atol=tol, rtol=tol)
    np.testing.assert_allclose(mean.numpy(), mu[:, 0], rtol=1e-5, atol=1e-6)


@triton.jit
def dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


def test_low_memory_dropout_is_deterministic_and_fair(dev):
    n = 20000
    x = np.ones(n, np.float32)
    a, b = dev(np.zeros(n, np.float32)), dev(np.zeros(n, np.float32))
    dropout_kernel[(triton.cdiv(n, 1024),)](dev(x), a, n, 0.5, 123, BLOCK=1024)
    dropout_kernel[(triton.cdiv(n, 1024),)](dev(x), b, n, 0.5, 123, BLOCK=1024)
    ra, rb = a.numpy(), b.numpy()
    np.testing.assert_array_equal(ra, rb)
    assert set(np.unique(ra)) <= {0.0, 2.0}
    kept = (ra == 2.0).mean()
    assert 0.48 < kept < 0.52, kept


@triton.jit
def sin_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.extra.cuda.libdevice.sin(x), mask=mask)


def test_libdevice_sin(dev):
    n = 4096
    x = rng.uniform(-100, 100, n).astype(np.float64)
    out = dev(np.zeros(n, np.float64))
    sin_kernel[(4,)](dev(x), out, n, BLOCK=1024)
    # libdevice's __nv_sin (double) is within 1 ulp (CUDA math guide).
    np.testing.assert_allclose(out.numpy(), np.sin(x), rtol=4e-16, atol=1e-300)
