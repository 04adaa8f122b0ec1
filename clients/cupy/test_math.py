"""Elementwise arithmetic (exact) and math functions (within documented ulp bounds).

Exact: +, -, *, integer // and %, bitwise ops and shifts, comparisons, IEEE division and
sqrt (NVRTC's defaults are -prec-div=true -prec-sqrt=true: correctly rounded), min/max,
floor/ceil/trunc/rint, abs, negative, float<->float conversions. These are compared with
numpy bit for bit.

Transcendental functions are compared with a float64 (for float32) or numpy float64 (for
float64) reference; the tolerance is the maximum ulp error documented in the CUDA Math API
(CUDA C++ Programming Guide, "Mathematical Functions") plus one ulp: for float32 the
measure counts up to twice the error near powers of two (see conftest.ulp_error), for
float64 numpy's own result is off by up to ~1 ulp.
"""

import cupy as cp
import numpy as np
import pytest
from helpers import ulp_error

INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_TYPES = [np.float16, np.float32, np.float64]


def rand_ints(rng, t, n):
    info = np.iinfo(t)
    return rng.integers(info.min, info.max, n, dtype=np.int64 if info.min < 0 else np.uint64,
                        endpoint=True).astype(t)


@pytest.mark.parametrize("t", INT_TYPES)
def test_integer_arithmetic_exact(rng, t):
    n = 20_000
    a, b = rand_ints(rng, t, n), rand_ints(rng, t, n)
    b = np.where(b == 0, t(1), b)
    if np.issubdtype(t, np.signedinteger):  # MIN // -1 overflows (UB in C, numpy warns)
        b = np.where((a == np.iinfo(t).min) & (b == t(-1)), t(1), b)
    da, db = cp.asarray(a), cp.asarray(b)
    with np.errstate(over="ignore"):
        for op in ("add", "subtract", "multiply", "floor_divide", "remainder", "bitwise_and",
                   "bitwise_or", "bitwise_xor", "maximum", "minimum", "greater", "less_equal",
                   "equal", "not_equal"):
            got = getattr(cp, op)(da, db).get()
            np.testing.assert_array_equal(got, getattr(np, op)(a, b), err_msg=op)
    shift = (rng.integers(0, np.dtype(t).itemsize * 8, n)).astype(t)
    np.testing.assert_array_equal(cp.left_shift(da, cp.asarray(shift)).get(), np.left_shift(a, shift))
    np.testing.assert_array_equal(cp.right_shift(da, cp.asarray(shift)).get(), np.right_shift(a, shift))
    np.testing.assert_array_equal(cp.invert(da).get(), np.invert(a))
    if np.issubdtype(t, np.signedinteger):
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(cp.negative(da).get(), np.negative(a))
            np.testing.assert_array_equal(cp.abs(da).get(), np.abs(a))


def special_floats(t):
    info = np.finfo(t)
    return np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, info.max, -info.max,
                     info.tiny, -info.tiny, info.smallest_subnormal, -info.smallest_subnormal,
                     info.eps, 0.5, 1.5, 2.5, -2.5], dtype=t)


def rand_floats(rng, t, n):
    """Random bit patterns (all exponents, subnormals, inf, nan) plus special values."""
    bits = {np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}[t]
    raw = rng.integers(0, np.iinfo(bits).max, n, dtype=np.uint64, endpoint=True).astype(bits)
    return np.concatenate([raw.view(t), special_floats(t)])


def assert_same(got, want, what, zero_sign=True):
    """Equal values, NaN where NaN, and the same sign of every non-NaN (so -0.0 != 0.0).
    NaN payloads and signs are not compared: a GPU returns its canonical NaN."""
    assert got.dtype == want.dtype, what
    np.testing.assert_array_equal(got, want, err_msg=what)
    nan = np.isnan(want) | ((not zero_sign) & (want == 0))
    np.testing.assert_array_equal(np.signbit(got)[~nan], np.signbit(want)[~nan], err_msg=what)


def ftz(x):
    """Flushes float32 subnormals to zero of the same sign."""
    x = np.asarray(x)
    if x.dtype != np.float32:
        return x
    return np.where(np.abs(x) < np.finfo(np.float32).tiny, np.copysign(np.float32(0), x), x)


@pytest.mark.parametrize("t", [np.float32, np.float64])
def test_float_arithmetic_exact(rng, t):
    """CuPy compiles every kernel with -ftz=true: float32 subnormal inputs and results are
    flushed to zero (as on a GPU); float64 keeps subnormals. The reference does the same."""
    a, b = rand_floats(rng, t, 30_000), rand_floats(rng, t, 30_000)
    rng.shuffle(b)
    da, db = cp.asarray(a), cp.asarray(b)
    fa, fb = ftz(a), ftz(b)
    with np.errstate(all="ignore"):
        for op in ("add", "subtract", "multiply", "true_divide", "maximum", "minimum",
                   "fmax", "fmin"):
            got = getattr(cp, op)(da, db).get()
            want = ftz(getattr(np, op)(fa, fb))
            # PTX min/max order -0.0 below +0.0; numpy returns either operand
            assert_same(got, want, op, zero_sign="m" not in op)
        for op in ("greater", "less", "equal", "not_equal"):
            np.testing.assert_array_equal(getattr(cp, op)(da, db).get(),
                                          getattr(np, op)(fa, fb), err_msg=op)
        np.testing.assert_array_equal(cp.copysign(da, db).get(), np.copysign(a, b))
        for op in ("sqrt", "negative", "absolute", "floor", "ceil", "trunc", "rint",
                   "square", "reciprocal"):
            assert_same(getattr(cp, op)(da).get(), ftz(getattr(np, op)(fa)), op)
        for op in ("isnan", "isinf", "isfinite", "signbit"):
            np.testing.assert_array_equal(getattr(cp, op)(da).get(), getattr(np, op)(a),
                                          err_msg=op)


def test_float16_arithmetic_exact(rng):
    # float16 ops compute in float32 and round once: exact for +, -, *, / and sqrt
    a, b = rand_floats(rng, np.float16, 20_000), rand_floats(rng, np.float16, 20_000)
    rng.shuffle(b)
    da, db = cp.asarray(a), cp.asarray(b)
    with np.errstate(all="ignore"):
        for op in ("add", "subtract", "multiply", "true_divide", "maximum", "minimum"):
            np.testing.assert_array_equal(getattr(cp, op)(da, db).get(), getattr(np, op)(a, b),
                                          err_msg=op)
        np.testing.assert_array_equal(cp.sqrt(da).get(), np.sqrt(a))


def test_mixed_type_promotion(rng):
    a = rng.integers(-1000, 1000, 1000).astype(np.int16)
    b = rng.integers(0, 255, 1000).astype(np.uint8)
    c = rng.integers(-1000, 1000, 1000).astype(np.float32)
    got = cp.asarray(a) * cp.asarray(b) + cp.asarray(c)
    want = a * b + c
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)
    got = cp.asarray(a) / cp.asarray(b.astype(np.int32) + 1)  # int/int -> float64
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got.get(), a / (b.astype(np.int32) + 1))


def test_complex_arithmetic(rng):
    a = (rng.integers(-100, 100, 2000) + 1j * rng.integers(-100, 100, 2000)).astype(np.complex128)
    b = (rng.integers(-100, 100, 2000) + 1j * rng.integers(-100, 100, 2000)).astype(np.complex128)
    da, db = cp.asarray(a), cp.asarray(b)
    np.testing.assert_array_equal((da + db).get(), a + b)
    np.testing.assert_array_equal((da * db).get(), a * b)  # small integers: exact
    np.testing.assert_array_equal(cp.conj(da).get(), np.conj(a))
    np.testing.assert_array_equal(cp.real(da * db).get(), (a * b).real)
    assert ulp_error(cp.abs(da).get(), np.abs(a)) <= 2 + 1  # hypot: 2 ulp (CUDA Math API)


# (function, float32 domain, CUDA max ulp error float32, float64)
UNARY = [
    ("exp", (-80, 80), 2, 1),
    ("exp2", (-120, 120), 2, 1),
    ("expm1", (-20, 20), 1, 1),
    ("log", (1e-30, 1e30), 1, 1),
    ("log2", (1e-30, 1e30), 1, 1),
    ("log10", (1e-30, 1e30), 2, 1),
    ("log1p", (-0.99, 1e6), 1, 1),
    ("sin", (-100, 100), 2, 2),
    ("cos", (-100, 100), 2, 2),
    ("tan", (-1.5, 1.5), 4, 2),
    ("sinh", (-80, 80), 3, 2),
    ("cosh", (-80, 80), 2, 1),
    ("tanh", (-20, 20), 2, 1),
    ("arcsin", (-1, 1), 2, 2),
    ("arccos", (-1, 1), 2, 2),
    ("arctan", (-1e4, 1e4), 2, 2),
    ("arcsinh", (-1e4, 1e4), 3, 2),
    ("arccosh", (1, 1e4), 4, 2),
    ("arctanh", (-0.999, 0.999), 3, 2),
    ("cbrt", (-1e30, 1e30), 1, 1),
]


@pytest.mark.parametrize("name,domain,ulp32,ulp64", UNARY, ids=[u[0] for u in UNARY])
def test_unary_math_ulp(rng, name, domain, ulp32, ulp64):
    lo, hi = domain
    x64 = rng.uniform(lo, hi, 50_000)
    if lo > 0 and hi / lo > 1e6:  # log-uniform over wide positive ranges
        x64 = np.exp(rng.uniform(np.log(lo), np.log(hi), 50_000))
    x32 = x64.astype(np.float32)
    ref32 = getattr(np, name)(x32.astype(np.float64))
    got32 = getattr(cp, name)(cp.asarray(x32)).get()
    assert got32.dtype == np.float32
    err = ulp_error(got32, ref32)
    assert err <= ulp32 + 1, f"{name} float32: {err:.2f} ulp"
    got64 = getattr(cp, name)(cp.asarray(x64)).get()
    err = ulp_error(got64, getattr(np, name)(x64))
    assert err <= ulp64 + 1, f"{name} float64: {err:.2f} ulp"


def test_sin_cos_large_arguments(rng):
    """|x| up to 1e30 takes libdevice's slow (Payne-Hanek) argument reduction."""
    x32 = (rng.uniform(-1, 1, 20_000) * 10.0 ** rng.uniform(3, 30, 20_000)).astype(np.float32)
    for name in ("sin", "cos"):
        ref = getattr(np, name)(x32.astype(np.float64))
        assert ulp_error(getattr(cp, name)(cp.asarray(x32)).get(), ref) <= 3, name


def test_binary_math_ulp(rng):
    x = rng.uniform(1e-3, 100, 50_000)
    y = rng.uniform(-8, 8, 50_000)
    x32, y32 = x.astype(np.float32), y.astype(np.float32)
    cases = [("power", 4, 2), ("arctan2", 3, 2), ("hypot", 3, 2)]
    for name, ulp32, ulp64 in cases:
        ref = getattr(np, name)(x32.astype(np.float64), y32.astype(np.float64))
        err = ulp_error(getattr(cp, name)(cp.asarray(x32), cp.asarray(y32)).get(), ref)
        assert err <= ulp32 + 1, f"{name} float32: {err:.2f} ulp"
        err = ulp_error(getattr(cp, name)(cp.asarray(x), cp.asarray(y)).get(),
                        getattr(np, name)(x, y))
        assert err <= ulp64 + 1, f"{name} float64: {err:.2f} ulp"
    # fmod is exact
    np.testing.assert_array_equal(cp.fmod(cp.asarray(y), cp.asarray(x)).get(), np.fmod(y, x))


def test_special_values_of_math_functions():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], np.float64)
    with np.errstate(all="ignore"):
        for name in ("exp", "log", "sqrt", "sin", "tanh", "arctan", "log1p", "expm1"):
            for t in (np.float32, np.float64):
                got = getattr(cp, name)(cp.asarray(x.astype(t))).get()
                want = getattr(np, name)(x.astype(t))
                np.testing.assert_array_equal(got, want, err_msg=f"{name} {t.__name__}")
                # (the sign of a NaN is not specified: CUDA's is +, x86's often -)
                np.testing.assert_array_equal(np.signbit(got) & ~np.isnan(got),
                                              np.signbit(want) & ~np.isnan(want),
                                              err_msg=f"{name} {t.__name__} sign")


def test_float16_math(rng):
    x = rng.uniform(-4, 4, 20_000).astype(np.float16)
    for name in ("exp", "sin", "tanh"):
        got = getattr(cp, name)(cp.asarray(x)).get()
        assert got.dtype == np.float16
        ref = getattr(np, name)(x.astype(np.float64))
        assert ulp_error(got, ref) <= 1, name  # float32 math rounded once to float16


@pytest.mark.parametrize("t", [np.complex64, np.complex128])
def test_complex_math_functions(rng, t):
    """CuPy's complex functions (thrust-derived cupy/complex.cuh) have no documented ulp
    bounds; their real and imaginary parts can cancel, so the check is normwise:
    |got - exact| / |exact| <= 8 eps (measured on this input: at most ~2 eps, tanh ~4 eps),
    and 32 eps for z**w, where exp(w log z) amplifies the error of log z (measured ~9 eps)."""
    eps = np.finfo(np.float32 if t == np.complex64 else np.float64).eps
    z = (rng.uniform(-5, 5, 20_000) + 1j * rng.uniform(-5, 5, 20_000)).astype(t)
    z128 = z.astype(np.complex128)
    for name in ("exp", "log", "sqrt", "sin", "cos", "tanh", "arctan", "arcsinh"):
        got = getattr(cp, name)(cp.asarray(z)).get()
        assert got.dtype == t
        exact = getattr(np, name)(z128)
        err = float(np.max(np.abs(got - exact) / np.abs(exact))) / eps
        assert err <= 8, f"{name}: {err:.2f} eps"
    w = (z[::-1] * t(0.3)).astype(t)
    got = (cp.asarray(z) ** cp.asarray(w)).get()
    exact = z128 ** w.astype(np.complex128)
    err = float(np.max(np.abs(got - exact) / np.abs(exact))) / eps
    assert err <= 32, f"power: {err:.2f} eps"


def test_integer_division_by_zero():
    """numpy and CuPy both define x // 0 == 0 and x % 0 == 0 for integers."""
    a = np.array([7, -7, 0, 5, -2**31], np.int32)
    b = np.array([0, 0, 0, -2, 0], np.int32)
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal((cp.asarray(a) // cp.asarray(b)).get(), a // b)
        np.testing.assert_array_equal((cp.asarray(a) % cp.asarray(b)).get(), a % b)
