"""Half-precision arithmetic, bit-exact against numpy float16.

numpy computes a float16 +, -, * or / in float32 and rounds once to float16; float32 has
more than 2*11+2 significand bits, so that double rounding is harmless and numpy's results
are the correctly rounded ones, which is what the GPU's add.rn.f16, sub.rn.f16, mul.rn.f16
and CUDA's __hdiv (documented round-to-nearest-even) give. The fma operands are chosen so
that a*b+c is exact in float64 before numpy's single rounding to float16. NaN results are
compared as NaN (payloads differ between implementations), everything else bit for bit.
"""

import numpy as np
import pytest
from numba import cuda
from numba.cuda.types import float16

N = 4096


def random_halves(rng, n, finite_only=False):
    """Random float16 bit patterns: normals, subnormals, zeros, infinities (and NaNs)."""
    bits = rng.integers(0, 1 << 16, size=n, dtype=np.uint32).astype(np.uint16)
    x = bits.view(np.float16)
    special = np.array([0.0, -0.0, np.inf, -np.inf, 65504, -65504, 6e-8, 1, -1, 0.5],
                       np.float16)
    x[: special.size] = special
    if finite_only:
        x[~np.isfinite(x)] = np.float16(1.5)
    return x


def assert_same_halves(got, want):
    got = np.asarray(got, np.float16)
    want = np.asarray(want, np.float16)
    assert got.shape == want.shape
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    bad = np.flatnonzero(got.view(np.uint16)[~nan] != want.view(np.uint16)[~nan])
    assert bad.size == 0, (
        f"{bad.size} mismatches, first at {bad[0]}: got {got[~nan][bad[0]]!r}, "
        f"want {want[~nan][bad[0]]!r}"
    )


@cuda.jit
def half_ops(a, b, add, sub, mul, div, neg, ab):
    i = cuda.grid(1)
    if i < a.size:
        add[i] = cuda.fp16.hadd(a[i], b[i])
        sub[i] = cuda.fp16.hsub(a[i], b[i])
        mul[i] = cuda.fp16.hmul(a[i], b[i])
        div[i] = cuda.fp16.hdiv(a[i], b[i])
        neg[i] = cuda.fp16.hneg(a[i])
        ab[i] = cuda.fp16.habs(a[i])


def test_hadd_hsub_hmul_hdiv_hneg_habs():
    rng = np.random.default_rng(16)
    a = random_halves(rng, N)
    b = random_halves(rng, N)[::-1].copy()
    outs = [np.zeros(N, np.float16) for _ in range(6)]
    half_ops[N // 128, 128](a, b, *outs)
    add, sub, mul, div, neg, ab = outs
    with np.errstate(all="ignore"):
        assert_same_halves(add, a + b)
        assert_same_halves(sub, a - b)
        assert_same_halves(mul, a * b)
        assert_same_halves(div, a / b)
    assert_same_halves(neg, -a)
    assert_same_halves(ab, np.abs(a))


@cuda.jit
def half_operators(a, b, add, sub, mul, lt, eq):
    """The same through Python operators on float16 array elements."""
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        add[i] = x + y
        sub[i] = x - y
        mul[i] = x * y
        lt[i] = x < y
        eq[i] = x == y


def test_float16_operators():
    rng = np.random.default_rng(17)
    a = random_halves(rng, N)
    b = random_halves(rng, N)
    b[::7] = a[::7]  # some equal pairs
    add, sub, mul = (np.zeros(N, np.float16) for _ in range(3))
    lt, eq = np.zeros(N, np.bool_), np.zeros(N, np.bool_)
    half_operators[N // 256, 256](a, b, add, sub, mul, lt, eq)
    with np.errstate(all="ignore"):
        assert_same_halves(add, a + b)
        assert_same_halves(sub, a - b)
        assert_same_halves(mul, a * b)
        np.testing.assert_array_equal(lt, a < b)
        np.testing.assert_array_equal(eq, a == b)


@cuda.jit
def half_fma(a, b, c, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = cuda.fp16.hfma(a[i], b[i], c[i])


def test_hfma_single_rounding():
    rng = np.random.default_rng(18)
    # |values| in [2**-6, 2**6): a*b+c is exact in float64 (< 53 significant bits).
    def draw():
        m = rng.uniform(1, 2, N) * np.exp2(rng.integers(-6, 6, N))
        return (m * rng.choice([-1, 1], N)).astype(np.float16)

    a, b, c = draw(), draw(), draw()
    out = np.zeros(N, np.float16)
    half_fma[N // 128, 128](a, b, c, out)
    exact = a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)
    assert_same_halves(out, exact.astype(np.float16))
    # A case where fma differs from a rounded multiply followed by an add:
    x = np.array([1 + 2**-10], np.float16)
    y = np.array([1 - 2**-11], np.float16)
    z = np.array([-1], np.float16)
    o = np.zeros(1, np.float16)
    half_fma[1, 1](x, y, z, o)
    assert o[0] == np.float16(2**-10 - 2**-11 - 2**-21)


@cuda.jit
def half_minmax_cmp(a, b, mx, mn, ge, ne):
    i = cuda.grid(1)
    if i < a.size:
        mx[i] = cuda.fp16.hmax(a[i], b[i])
        mn[i] = cuda.fp16.hmin(a[i], b[i])
        ge[i] = cuda.fp16.hge(a[i], b[i])
        ne[i] = cuda.fp16.hne(a[i], b[i])


def test_hmax_hmin_comparisons():
    rng = np.random.default_rng(19)
    a = random_halves(rng, N)
    b = random_halves(rng, N)
    b[::5] = a[::5]
    mx, mn = np.zeros(N, np.float16), np.zeros(N, np.float16)
    ge, ne = np.zeros(N, np.bool_), np.zeros(N, np.bool_)
    half_minmax_cmp[N // 128, 128](a, b, mx, mn, ge, ne)
    # __hmax/__hmin return the other operand when one is NaN (numpy's fmax/fmin); the
    # sign of a zero result is not compared (+0 and -0 are equal here).
    with np.errstate(all="ignore"):
        for got, want in ((mx, np.fmax(a, b)), (mn, np.fmin(a, b))):
            nan = np.isnan(want)
            np.testing.assert_array_equal(np.isnan(got), nan)
            np.testing.assert_array_equal(got[~nan], want[~nan])
        np.testing.assert_array_equal(ge, a >= b)
        # hne is the ordered not-equal: false when either operand is NaN.
        np.testing.assert_array_equal(ne, (a != b) & ~np.isnan(a) & ~np.isnan(b))


@cuda.jit
def conversions(f, h, back):
    i = cuda.grid(1)
    if i < f.size:
        h[i] = np.float16(f[i])
        back[i] = np.float32(h[i])


def test_float32_half_conversions():
    rng = np.random.default_rng(20)
    f = np.concatenate([
        rng.standard_normal(2048).astype(np.float32) * np.float32(1000),
        (rng.standard_normal(1024) * 1e-5).astype(np.float32),  # subnormal halves
        np.array([65519.99, 65520, 1e6, -1e6, 2.0**-25, 2.0**-26, 0.0], np.float32),
    ]).astype(np.float32)
    h = np.zeros(f.size, np.float16)
    back = np.zeros(f.size, np.float32)
    conversions[(f.size + 255) // 256, 256](f, h, back)
    assert_same_halves(h, f.astype(np.float16))
    np.testing.assert_array_equal(back, h.astype(np.float32))


@pytest.mark.parametrize("op", ["add", "mul"])
def test_half_array_reduction_in_shared_memory(op):
    """A float16 tree reduction whose every partial result is exact."""

    @cuda.jit
    def reduce_half(x, out):
        s = cuda.shared.array(128, float16)
        t = cuda.threadIdx.x
        s[t] = x[cuda.grid(1)]
        cuda.syncthreads()
        step = 64
        while step > 0:
            if t < step:
                if op == "add":
                    s[t] = s[t] + s[t + step]
                else:
                    s[t] = s[t] * s[t + step]
            cuda.syncthreads()
            step //= 2
        if t == 0:
            out[cuda.blockIdx.x] = s[0]

    if op == "add":
        x = (np.arange(256) % 8).astype(np.float16)  # sums stay below 2048
        want = x.reshape(2, 128).sum(axis=1)
    else:
        x = np.ones(256, np.float16)
        x[::16] = 2  # 8 doublings per block
        want = np.array([256, 256], np.float16)
    out = np.zeros(2, np.float16)
    reduce_half[2, 128](x, out)
    assert_same_halves(out, want)
