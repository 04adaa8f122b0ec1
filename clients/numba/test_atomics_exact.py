"""Atomics on global and shared memory, integer and floating point, with exact results.

Every float atomic adds values whose partial sums are exactly representable, so the
result does not depend on the order the threads get in.
"""

import numpy as np
import pytest
from numba import cuda, int32, uint32, float32


@cuda.jit
def histogram(x, bins):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(bins, x[i] % bins.size, 1)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_int_add_histogram(dtype):
    x = ((np.arange(20000) * 2654435761) % 1009).astype(dtype)
    bins = np.zeros(37, dtype)
    histogram[(x.size + 255) // 256, 256](x, bins)
    np.testing.assert_array_equal(bins, np.bincount(x % 37, minlength=37).astype(dtype))


@cuda.jit
def int_ops(x, res):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        cuda.atomic.add(res, 0, v)
        cuda.atomic.sub(res, 1, v)
        cuda.atomic.max(res, 2, v)
        cuda.atomic.min(res, 3, v)
        cuda.atomic.and_(res, 4, v | 0x10000)
        cuda.atomic.or_(res, 5, v & 0xFF)
        cuda.atomic.xor(res, 6, v)


def test_int32_add_sub_max_min_and_or_xor():
    x = (((np.arange(5000, dtype=np.int64) * 7919) % 20011) - 10000).astype(np.int32)
    res = np.array([0, 0, -(2**31), 2**31 - 1, -1, 0, 0], np.int32)
    int_ops[(x.size + 127) // 128, 128](x, res)
    expected = [
        x.sum(),
        -x.sum(),
        x.max(),
        x.min(),
        np.bitwise_and.reduce(x | 0x10000),
        np.bitwise_or.reduce(x & 0xFF),
        np.bitwise_xor.reduce(x),
    ]
    np.testing.assert_array_equal(res, np.array(expected, np.int32))


@cuda.jit
def exch_cas(slots, winners, cas_out):
    i = cuda.grid(1)
    # Every thread tries to claim slot i % 8; exactly one per slot wins.
    old = cuda.atomic.cas(slots, i % slots.size, -1, i)
    if old == -1:
        cuda.atomic.add(winners, 0, 1)
    cas_out[i] = old
    cuda.atomic.exch(winners, 1, 12345)


def test_cas_and_exch():
    n = 256
    slots = np.full(8, -1, np.int32)
    winners = np.zeros(2, np.int32)
    cas_out = np.zeros(n, np.int32)
    exch_cas[2, 128](slots, winners, cas_out)
    assert winners[0] == 8
    assert winners[1] == 12345
    # Each slot holds one of the threads that map to it, and that thread saw -1.
    for s in range(8):
        assert slots[s] % 8 == s
        assert cas_out[slots[s]] == -1
    # Every loser saw the winner of its slot.
    losers = np.flatnonzero(cas_out != -1)
    np.testing.assert_array_equal(cas_out[losers], slots[losers % 8])


@cuda.jit
def inc_dec(res, n):
    cuda.atomic.inc(res, 0, uint32(n - 1))  # wraps to 0 after n-1
    cuda.atomic.dec(res, 1, uint32(n - 1))


def test_inc_dec_wrap():
    res = np.array([0, 0], np.uint32)
    inc_dec[4, 250](res, 300)  # 1000 increments modulo 300
    assert res[0] == 1000 % 300
    # dec: 0 -> n-1, then counts down; 1000 decrements from 0 modulo 300.
    assert res[1] == (-1000) % 300


@cuda.jit
def float_ops(x, res):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(res, 0, x[i])
        cuda.atomic.sub(res, 1, x[i])
        cuda.atomic.max(res, 2, x[i])
        cuda.atomic.min(res, 3, x[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_add_sub_max_min(dtype):
    # Multiples of 1/8 below 2**10: all partial sums below 2**20 are exact in float32.
    x = ((np.arange(4096) * 37) % 1021 - 510).astype(dtype) / 8
    res = np.array([0, 0, -np.inf, np.inf], dtype)
    float_ops[32, 128](x, res)
    np.testing.assert_array_equal(res, np.array([x.sum(), -x.sum(), x.max(), x.min()], dtype))


@cuda.jit
def nan_max(x, res):
    i = cuda.grid(1)
    cuda.atomic.nanmax(res, 0, x[i])
    cuda.atomic.nanmin(res, 1, x[i])
    cuda.atomic.max(res, 2, x[i])
    cuda.atomic.min(res, 3, x[i])


def test_float_nan_semantics():
    """nanmax/nanmin treat NaN as missing on either side; max/min keep the stored
    value when either side is NaN (numba's documented semantics)."""
    x = np.arange(64, dtype=np.float64)
    x[17] = np.nan
    res = np.array([np.nan, np.nan, -1, np.nan], np.float64)
    nan_max[1, 64](x, res)
    assert res[0] == 63 and res[1] == 0
    assert res[2] == 63  # max ignores the NaN operand
    assert np.isnan(res[3])  # min keeps the NaN already stored


@cuda.jit
def shared_histogram(x, out):
    """Per-block histogram in shared memory, merged with global atomics."""
    h = cuda.shared.array(16, int32)
    f = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    if t < 16:
        h[t] = 0
    if t == 0:
        f[0] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(h, x[i] & 15, 1)
        cuda.atomic.add(f, 0, float32(0.25))
    cuda.syncthreads()
    if t < 16:
        cuda.atomic.add(out, t, h[t])
    if t == 0:
        cuda.atomic.add(out, 16, int32(f[0] * 4))


def test_shared_memory_atomics():
    x = (np.arange(3000, dtype=np.int32) * 31) % 97
    out = np.zeros(17, np.int32)
    shared_histogram[(x.size + 255) // 256, 256](x, out)
    np.testing.assert_array_equal(out[:16], np.bincount(x & 15, minlength=16))
    assert out[16] == x.size
