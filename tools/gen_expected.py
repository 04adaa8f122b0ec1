#!/usr/bin/env python3
"""Generate the "real kernels vs numpy" cases in tests/expected/.

Each case launches one kernel of one real-compiler fixture (tests/fixtures/**) with seeded,
deterministic inputs and states, per output buffer, the numpy-computed expected contents and how
to compare them. Run from the repository root:

    python3 tools/gen_expected.py            # rewrite tests/expected/<case>/ for every case
    python3 tools/gen_expected.py --check    # also run each case through target/debug/ptxvm
    python3 tools/gen_expected.py --only NAME[,NAME...] [--check]

Layout written per case (read by crates/ptxvm/tests/fixture_runs.rs):

    tests/expected/<case>/case.json   fixture, kernel, grid, block, shared_mem, args, outputs
    tests/expected/<case>/in<i>.npy   buffer argument i (input, or input/output)
    tests/expected/<case>/expected<i>.npy   expected contents of buffer argument i after the run

Comparison modes (see tests/expected/README.md): "exact" (bit for bit), "ulp:N" (float ulp
distance), "rel:X" (|got-exp| <= X*|exp|), "abs:X" (|got-exp| <= X), "rel:X,abs:Y" (either).
bf16 buffers travel as u16 arrays; an output with "as": "bf16" is compared as bf16 values.

The expected values mirror the kernels' arithmetic: the order of operations and every fma the
compiler contracted (read off the PTX) are reproduced with exact helpers (fma32/fma64 below),
so that integer kernels and correctly rounded float kernels compare bit for bit.
"""
import argparse
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from fractions import Fraction

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = "tests/fixtures"
OUT = os.path.join(ROOT, "tests", "expected")

f16, f32, f64 = np.float16, np.float32, np.float64
i8, i16, i32, i64 = np.int8, np.int16, np.int32, np.int64
u8, u16, u32, u64 = np.uint8, np.uint16, np.uint32, np.uint64


# ----------------------------------------------------------------------------------------------
# exact arithmetic helpers


def fma32(a, b, c):
    """Correctly rounded f32 fma, elementwise (numpy has none).

    a*b is exact in f64 (48 bits). s = RN64(a*b + c) with TwoSum error e, so v = s + e exactly.
    RN32(v) differs from RN32(s) only when s is exactly an f32 rounding midpoint (any other
    midpoint between v and s would be a closer f64 to v than s); then the sign of e decides.
    """
    a, b, c = (np.asarray(x, dtype=f32).astype(f64) for x in (a, b, c))
    a, b, c = np.broadcast_arrays(a, b, c)
    p = a * b
    s = p + c
    bb = s - p
    e = (p - (s - bb)) + (c - bb)
    r = s.astype(f32)
    lo = np.where(r.astype(f64) > s, np.nextafter(r, f32(-np.inf)), r)
    hi = np.nextafter(lo, f32(np.inf))
    mid = (lo.astype(f64) + hi.astype(f64)) / 2
    at_mid = (s == mid) & (e != 0) & np.isfinite(s)
    r = np.where(at_mid & (e > 0), hi, np.where(at_mid & (e < 0), lo, r))
    return r.astype(f32)


def _fma64_1(a, b, c):
    v = Fraction(a) * Fraction(b) + Fraction(c)
    if v == 0:
        return 0.0  # an exact zero sum of nonzero terms is +0 under round-to-nearest
    return v.numerator / v.denominator  # int / int true division is correctly rounded


def fma64(a, b, c):
    """Correctly rounded f64 fma, elementwise (exact rational arithmetic)."""
    a, b, c = np.broadcast_arrays(np.asarray(a, f64), np.asarray(b, f64), np.asarray(c, f64))
    out = np.empty(a.shape, f64)
    for idx in np.ndindex(a.shape):
        x, y, z = float(a[idx]), float(b[idx]), float(c[idx])
        if x * y == 0 or z == 0:
            out[idx] = x * y + z  # one rounding only
        else:
            out[idx] = _fma64_1(x, y, z)
    return out


def rnd_bits(x, p):
    """Round f64 values to a p-bit significand, ties to even (normal range only)."""
    x = np.asarray(x, f64)
    m, e = np.frexp(x)
    return np.ldexp(np.rint(np.ldexp(m, p)), e - p)


def to_bf16_bits(x):
    """f64/f32 -> bf16 bits, round to nearest even (values in the normal range)."""
    v = rnd_bits(np.asarray(x, f64), 8).astype(f32)
    return (v.view(u32) >> 16).astype(u16)


def bf16_val(bits):
    return (np.asarray(bits, u16).astype(u32) << 16).view(f32)


def f16_directed(x, mode):
    """f32 -> f16 with rounding mode rn/rz/rd/ru (finite values in the f16 range)."""
    x = np.asarray(x, f32)
    r = x.astype(f16)
    rv, xv = r.astype(f64), x.astype(f64)
    if mode == "rn":
        return r
    up, dn = np.nextafter(r, f16(np.inf)), np.nextafter(r, f16(-np.inf))
    if mode == "rd":
        return np.where(rv > xv, dn, r).astype(f16)
    if mode == "ru":
        return np.where(rv < xv, up, r).astype(f16)
    if mode == "rz":
        return np.where(np.abs(rv) > np.abs(xv), np.where(xv > 0, dn, up), r).astype(f16)
    raise ValueError(mode)


def c_div(a, b):
    """C integer division (truncates toward zero) on int64 arrays."""
    a, b = np.asarray(a, i64), np.asarray(b, i64)
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def c_rem(a, b):
    return np.asarray(a, i64) - c_div(a, b) * np.asarray(b, i64)


def rng(seed):
    return np.random.default_rng(seed)


def canon_nan(a):
    """NaNs replaced by the canonical NaN GPUs produce for arithmetic results (docs/numerics-arith.md):
    0x7fffffff (f32), 0x7fff (f16), 0x7fffffffffffffff (f64)."""
    a = np.array(a)
    nan = np.isnan(a)
    if a.dtype == f32:
        a.view(u32)[nan] = 0x7fffffff
    elif a.dtype == f16:
        a.view(u16)[nan] = 0x7fff
    elif a.dtype == f64:
        a.view(u64)[nan] = 0x7fffffffffffffff
    return a


# ----------------------------------------------------------------------------------------------
# a-priori error bounds for kernels built from library math (comparison mode "bound")
#
# A kernel that sums many libdevice functions has no single rel/abs tolerance that is both safe
# and tight (the terms differ in size by orders of magnitude and partial sums cancel). Such an
# output is compared per element against a bound derived from the documented accuracy: each
# library call contributes (N + 1/2) ulp of its result (CUDA C++ Programming Guide, "Mathematical
# Functions" appendix: N ulp from the correctly rounded result), each correctly rounded op 1/2 ulp
# of its result, and errors of operands propagate through the ops (|d(a+b)| <= ea + eb, ...).
# Reference values are the exact real results, evaluated with mpmath at 50 digits.

FMT = {"f64": (53, -1022), "f32": (24, -126), "f16": (11, -14), "bf16": (8, -126), "e4m3": (4, -6), "e5m2": (3, -14)}
SLACK = 2.0 ** -52  # relative, per op: covers rounding the reference values (and their sums/products) to f64


def ulp_of(x, fmt):
    """ulp of a `fmt` number of magnitude |x| (spacing above |x|'s binade start; subnormal floor)."""
    p, emin = FMT[fmt]
    a = np.abs(np.asarray(x, f64))
    _, e = np.frexp(np.where(np.isfinite(a), a, 0.0))
    e = np.where(a == 0, emin + 1, e)
    return np.ldexp(1.0, np.maximum(e - 1, emin) - (p - 1))


def ulp_up(x, n, fmt):
    """ulp at the largest magnitude a result within n ulp of x can have (next binade if crossed)."""
    a = np.abs(np.asarray(x, f64))
    return ulp_of(a + (n + 1) * ulp_of(a, fmt), fmt)


_MP = None


def mp():
    global _MP
    if _MP is None:
        try:
            import mpmath
        except ImportError:
            sys.exit("tools/gen_expected.py needs mpmath for the library-math reference values (pip install mpmath)")
        mpmath.mp.dps = 50
        _MP = mpmath
    return _MP


def mpv(fn, *args):
    """Elementwise fn(mpf(x), ...) -> f64 array (NaN where fn raises or is complex)."""
    m = mp()
    args = np.broadcast_arrays(*(np.asarray(a, f64) for a in args))
    out_ = np.empty(args[0].shape, f64)
    for idx in np.ndindex(args[0].shape):
        xs = [m.mpf(float(a[idx])) for a in args]
        try:
            y = fn(m, *xs)
            out_[idx] = float(y) if not isinstance(y, m.mpc) else math.nan
        except (ValueError, ZeroDivisionError):
            out_[idx] = math.nan
    return out_


class Eb:
    """A kernel value known up to an error: `v` the exact real result (f64), `e` a bound on
    |kernel value - v|, `fmt` the kernel's number format."""

    def __init__(self, v, e, fmt):
        self.v = np.asarray(v, f64)
        self.e = np.broadcast_to(np.asarray(e, f64), self.v.shape).copy()
        self.fmt = fmt

    @staticmethod
    def exact(x, fmt):
        """A value the kernel holds exactly (an input, or a correctly rounded result reproduced bit for bit)."""
        return Eb(np.asarray(x).astype(f64), 0.0, fmt)

    @staticmethod
    def lib(fn, args, ulps, fmt):
        """A library call on exact operands, N ulp from the correctly rounded result."""
        v = mpv(fn, *args)
        return Eb(v, (ulps + 0.5) * ulp_up(v, ulps, fmt) + SLACK * np.abs(v), fmt)

    def _rnd(self, v, e):
        # the kernel rounds a value within e of v: half an ulp at the largest such magnitude
        with np.errstate(over="ignore", invalid="ignore"):
            return Eb(v, e + 0.5 * ulp_of(np.abs(v) + e, self.fmt) + SLACK * np.abs(v), self.fmt)

    def _dir(self, v, e):
        # directed rounding (.rz/.rm/.rp): up to one ulp
        return Eb(v, e + ulp_of(np.abs(v) + e, self.fmt) + SLACK * np.abs(v), self.fmt)

    def __add__(a, b):
        b = b if isinstance(b, Eb) else Eb.exact(b, a.fmt)
        with np.errstate(over="ignore", invalid="ignore"):
            return a._rnd(a.v + b.v, a.e + b.e)

    def div_err(a, b):
        """(exact quotient of the references, propagated error bound of a/b from a.e and b.e)."""
        b = b if isinstance(b, Eb) else Eb.exact(b, a.fmt)
        with np.errstate(divide="ignore", invalid="ignore"):
            q = a.v / b.v
            den = np.abs(b.v) - b.e
            prop = np.where(den > 0, (a.e + np.abs(q) * b.e) / np.where(den > 0, den, 1), np.inf)
        return q, np.where((a.e == 0) & (b.e == 0), 0.0, prop)

    def __sub__(a, b):
        b = b if isinstance(b, Eb) else Eb.exact(b, a.fmt)
        return a._rnd(a.v - b.v, a.e + b.e)

    def __mul__(a, b):
        b = b if isinstance(b, Eb) else Eb.exact(b, a.fmt)
        return a._rnd(a.v * b.v, np.abs(a.v) * b.e + np.abs(b.v) * a.e + a.e * b.e)

    def fma(a, b, c):
        """fma(a, b, c): one rounding."""
        b = b if isinstance(b, Eb) else Eb.exact(b, a.fmt)
        c = c if isinstance(c, Eb) else Eb.exact(c, a.fmt)
        return a._rnd(a.v * b.v + c.v, np.abs(a.v) * b.e + np.abs(b.v) * a.e + a.e * b.e + c.e)

    def result(self, dtype, nan_where=None, as_bf16=False):
        """(expected array rounded to `dtype`, per-element bound). Non-finite references must match
        exactly (bound 0); `nan_where` marks elements whose result is NaN (domain errors)."""
        v = self.v.copy()
        if nan_where is not None:
            v[nan_where] = np.nan
        if as_bf16:
            bits = to_bf16_bits(np.where(np.isfinite(v), v, 0.0))
            bits = np.where(np.isnan(v), u16(0x7fff), np.where(v == np.inf, u16(0x7f80), np.where(v == -np.inf, u16(0xff80), bits)))
            exp_ = bits.astype(u16)
            ev = bf16_val(exp_).astype(f64)
        else:
            exp_ = canon_nan(v.astype(dtype))
            ev = exp_.astype(f64)
        with np.errstate(invalid="ignore"):
            b = np.where(np.isfinite(v), self.e + np.abs(ev - v), 0.0)
        return exp_, b


# ----------------------------------------------------------------------------------------------
# case table


class Case:
    def __init__(self, name, fixture, kernel, grid, block, args, outputs, shared=0, xfail=None,
                 note="", source=None, symbols=None, stdout=None, error=None, cluster=None):
        self.name, self.fixture, self.kernel = name, fixture, kernel
        self.grid = list(grid) + [1] * (3 - len(grid))
        self.block = list(block) + [1] * (3 - len(block))
        self.args, self.outputs, self.shared, self.xfail, self.note = args, outputs, shared, xfail, note
        self.source = source
        # Module .global/.const variables filled before the launch (`ptxvm run --symbol`):
        # name -> array or Z. Outputs keyed by a name check the variable after the launch.
        self.symbols = symbols or {}
        # Expected device printf output (text; `<PTR>` matches any `%p` value), and for a launch
        # that must fail, the fragments its diagnostic must contain.
        self.stdout, self.error = stdout, error
        # A cluster shape given at launch (`ptxvm run --cluster X,Y,Z`).
        self.cluster = cluster


CASES = []


def case(name, fixture, kernel, grid, block, args, outputs, **kw):
    assert not any(c.name == name for c in CASES), name
    CASES.append(Case(name, fixture, kernel, grid, block, args, outputs, **kw))


class S:  # scalar TYPE:VALUE
    def __init__(self, ty, v):
        self.spec = f"{ty}:{v}"


class Z:  # zero-filled buffer
    def __init__(self, dt, n):
        self.spec = f"{dt}:{n}"


class TM:  # a TMA tensor map over a new buffer holding `arr` (`ptxvm run --arg tmap:PATH.npy:REST`)
    def __init__(self, arr, rest):
        self.arr, self.rest = np.ascontiguousarray(arr), rest


class H:  # raw parameter bytes
    def __init__(self, b):
        self.b = bytes(b)


class T:  # a texture (`tex`, with `,options`) or surface (`surf`) object over an array
    def __init__(self, kind, arr, opts=""):
        self.kind, self.arr, self.opts = kind, np.ascontiguousarray(arr), opts


def out(expected, mode="exact", why="integer/exactly rounded arithmetic, reproduced op by op", as_=None, bound=None):
    d = {"expected": np.ascontiguousarray(expected), "mode": mode, "why": why}
    if as_:
        d["as"] = as_
    if bound is not None:
        assert mode == "bound"
        d["bound"] = np.ascontiguousarray(bound, f64)
    return d


def U64(v):
    return S("u64", int(v))


def numba_array(a):
    """numba's flattened array argument: meminfo, parent, nitems, itemsize, data, shape..., strides..."""
    a = np.ascontiguousarray(a)
    strides = [int(s) for s in a.strides]
    return [U64(0), U64(0), U64(a.size), U64(a.itemsize), a.reshape(-1)] + \
        [U64(s) for s in a.shape] + [U64(s) for s in strides]


def numba_zeros(dt, shape):
    a = np.zeros(shape, dtype=dt)
    return numba_array(a)


TRITON_SCRATCH = [U64(0), U64(0)]  # global_scratch, profile_scratch pointers Triton 3.x appends


# ----------------------------------------------------------------------------------------------
# shared expectation functions

WHY_FMA = "correctly rounded f32/f64 ops; the compiler's fma contractions (from the PTX) reproduced with an exact fma"
WHY_INT = "integer arithmetic"
WHY_TREE = "f32/f64 adds in the kernel's exact reduction order (tree simulated in numpy), each correctly rounded"
WHY_DYADIC = "inputs are small dyadic values, so every partial sum is exact and atomic ordering cannot change the result"


def reduce_sum_ref(x, n, B, G):
    """reduce_shared.cu `reduce_sum<B>` over G CTAs: grid-stride pairs, the __syncthreads tree,
    then the warp-synchronous volatile steps, in the kernel's order."""
    acc = np.zeros(G * B, f32)
    for blk in range(G):
        for t in range(B):
            i = blk * 2 * B + t
            s = f32(0)
            while i < n:
                s = f32(s + x[i])
                if i + B < n:
                    s = f32(s + x[i + B])
                i += 2 * B * G
            acc[blk * B + t] = s
    res = np.zeros(G, f32)
    for blk in range(G):
        sd = acc[blk * B:(blk + 1) * B].copy()
        for st in (256, 128, 64):  # __syncthreads tree steps that exist for this BLOCK
            if B >= 2 * st:
                sd[:st] = sd[:st] + sd[st:2 * st]
        for st in (32, 16, 8, 4, 2, 1):  # warp-synchronous volatile steps (lockstep: read before write)
            sd[:32] = sd[:32] + sd[st:st + 32]
        res[blk] = sd[0]
    return res

def cases_cuda():
    # ---------------- vector_add ----------------
    r = rng(1)
    n = 1000
    a = r.standard_normal(n).astype(f32)
    b = r.standard_normal(n).astype(f32)
    for comp, arch in [("nvrtc12", "sm_80"), ("nvrtc13", "sm_120"), ("nvrtc12", "sm_80.G")]:
        case(f"{comp}_vector_add_f32_{arch.replace('.', '_')}", f"{comp}/vector_add.{arch}.ptx", "vec_add_f32",
             [4], [256], [a, b, Z("f32", n), S("s32", n)], {2: out(a + b, why="f32 add, correctly rounded")})
    n = 3000
    a = r.integers(-2**31, 2**31, n, dtype=i64).astype(i32)
    b = r.integers(-2**31, 2**31, n, dtype=i64).astype(i32)
    case("nvrtc12_vec_add_i32_grid_stride", "nvrtc12/vector_add.sm_70.ptx", "vec_add_i32_grid_stride", [3], [128],
         [a, b, Z("i32", n), S("s64", n)], {2: out((a.astype(i64) + b).astype(i32), why="wrapping i32 add; grid-stride loop covers n > threads")})
    n = 777
    a = r.integers(0, 256, n, dtype=u8)
    b = r.integers(0, 256, n, dtype=u8)
    case("nvrtc13_vec_add_u8_saturate", "nvrtc13/vector_add.sm_90.ptx", "vec_add_u8_saturate", [4], [256],
         [a, b, Z("u8", n), S("u32", n)], {2: out(np.minimum(a.astype(u32) + b, 255).astype(u8), why=WHY_INT)})
    n = 500
    a = r.standard_normal(n)
    b = r.standard_normal(n)
    case("nvrtc12_vec_add_f64_debug", "nvrtc12/vector_add.sm_80.G.ptx", "vec_add_f64", [2], [256],
         [a, b, Z("f64", n), S("s32", n)], {2: out(a + b, why="f64 add, correctly rounded")})
    n = 600
    a = r.integers(-2**40, 2**40, n, dtype=i64)
    b = r.integers(-2**20, 2**20, n, dtype=i64)
    c = r.integers(-2**40, 2**40, n, dtype=i64)
    with np.errstate(over="ignore"):
        e = a * b + c - (a >> 3) + c_div(b, 7) + c_rem(a, 5)
    case("nvrtc12_vec_fma_i64", "nvrtc12/vector_add.sm_90.ptx", "vec_fma_i64", [3], [256],
         [a, b, c, S("s32", n)], {2: out(e, why="i64 mul/add, arithmetic shift, C truncating / and %")})

    # ---------------- saxpy ----------------
    r = rng(2)
    n = 1000
    x = r.standard_normal(n).astype(f32)
    y = r.standard_normal(n).astype(f32)
    alpha = f32(1.7)
    case("nvrtc12_saxpy", "nvrtc12/saxpy.sm_80.ptx", "saxpy", [4], [256],
         [S("s32", n), S("f32", "1.7"), x, y.copy()], {3: out(fma32(alpha, x, y), why=WHY_FMA)})
    xd = r.standard_normal(n)
    yd = r.standard_normal(n)
    case("nvrtc13_daxpy", "nvrtc13/saxpy.sm_80.ptx", "daxpy", [4], [256],
         [S("s32", n), S("f64", "-0.3"), xd, yd.copy()], {3: out(fma64(-0.3, xd, yd), why=WHY_FMA)})
    n, incx, incy = 700, 2, 3
    x = r.standard_normal(n * incx).astype(f32)
    y = r.standard_normal(n * incy).astype(f32)
    ye = y.copy()
    ye[::incy][:n] = fma32(f32(0.5), x[::incx][:n], y[::incy][:n])
    case("nvrtc12_saxpy_strided", "nvrtc12/saxpy.sm_70.ptx", "saxpy_strided", [2], [128],
         [S("s32", n), S("f32", "0.5"), x, S("s32", incx), y.copy(), S("s32", incy)], {4: out(ye, why=WHY_FMA)})
    n = 1024
    x = r.standard_normal(n).astype(f32)
    y = r.standard_normal(n).astype(f32)
    case("nvrtc12_saxpy_unrolled4_lineinfo", "nvrtc12/saxpy.sm_80.lineinfo.ptx", "saxpy_unrolled4", [2], [128],
         [S("s32", n), S("f32", "-2.25"), x, y.copy()], {3: out(fma32(f32(-2.25), x, y), why=WHY_FMA + "; float4 vector loads/stores")})

    # ---------------- reduce_shared ----------------
    r = rng(3)
    n, B, G = 4096, 256, 4
    x = r.standard_normal(n).astype(f32)
    res = reduce_sum_ref(x, n, B, G)
    for comp, arch in [("nvrtc12", "sm_80"), ("nvrtc13", "sm_80.G")]:
        case(f"{comp}_reduce_sum256_{arch.replace('.', '_')}", f"{comp}/reduce_shared.{arch}.ptx", "_Z10reduce_sumILj256EEvPKfPfj",
             [G], [B], [x, Z("f32", G), S("u32", n)], {1: out(res, why=WHY_TREE + "; volatile warp steps read before write (lockstep)")})
    n = 1000
    xi = r.integers(-10**9, 10**9, n).astype(i32)
    G = 4
    pad = np.full(G * 256, -2**31, i64)
    pad[:n] = xi
    case("nvrtc13_reduce_max_int", "nvrtc13/reduce_shared.sm_90.ptx", "reduce_max_int", [G], [256],
         [xi, Z("i32", G), S("s32", n)], {1: out(pad.reshape(G, 256).max(axis=1).astype(i32), why=WHY_INT)})
    n, G = 700, 3
    xd = r.standard_normal(n)
    s = np.zeros(G * 256)
    s[:n] = xd
    s = s.reshape(G, 256)
    st = 1
    while st < 256:
        idx = np.arange(0, 256, 2 * st)
        s[:, idx] = s[:, idx] + s[:, idx + st]
        st *= 2
    case("nvrtc12_reduce_sum_f64_interleaved_debug", "nvrtc12/reduce_shared.sm_80.G.ptx", "reduce_sum_f64_interleaved",
         [G], [256], [xd, Z("f64", G), S("s32", n)], {1: out(s[:, 0].copy(), why=WHY_TREE)})
    n, G = 900, 4
    x = r.standard_normal(n).astype(f32)
    x[512:768] = np.abs(x[512:768]) + 1  # one block where all are positive
    pred = np.zeros(G * 256, bool)
    pred[:n] = x > 0
    pred = pred.reshape(G, 256)
    o = np.stack([pred.sum(1), pred.any(1), pred.all(1)], 1).astype(i32).reshape(-1)
    case("nvrtc12_block_count_positive", "nvrtc12/reduce_shared.sm_80.ptx", "block_count_positive", [G], [256],
         [x, Z("i32", 3 * G), S("s32", n)], {1: out(o, why="bar.red.popc/or/and counts")})

    # ---------------- scan ----------------
    r = rng(4)
    n = 512
    xi = r.integers(-1000, 1000, n).astype(i32)
    ex = np.concatenate([[0], np.cumsum(xi)[:-1]]).astype(i32)
    case("nvrtc12_blelloch_scan", "nvrtc12/scan.sm_80.ptx", "blelloch_scan", [1], [n // 2],
         [xi, Z("i32", n), S("s32", n)], {1: out(ex, why="exclusive integer prefix sum")}, shared=(n + n // 32) * 4)
    n, B, G = 1000, 256, 4
    x = r.standard_normal(n).astype(f32)

    def warp_scan(v):  # v: (..., 32) f32, Hillis-Steele with shfl.up
        v = v.copy()
        o = 1
        while o < 32:
            sh = np.zeros_like(v)
            sh[..., o:] = v[..., :-o]
            v[..., o:] = v[..., o:] + sh[..., o:]
            o *= 2
        return v
    xv = np.zeros(G * B, f32)
    xv[:n] = x
    v = warp_scan(xv.reshape(G, B // 32, 32))
    tot = v[:, :, 31]
    w = np.zeros((G, 32), f32)
    w[:, :B // 32] = tot
    wt = warp_scan(w)
    v2 = v.copy()
    for wi in range(1, B // 32):
        v2[:, wi, :] = v[:, wi, :] + wt[:, wi - 1][:, None]
    v2 = v2.reshape(G * B)
    case("nvrtc13_block_scan_shfl", "nvrtc13/scan.sm_80.ptx", "block_scan_shfl", [G], [B],
         [x, Z("f32", n), Z("f32", G), S("s32", n)],
         {1: out(v2[:n], why=WHY_TREE + " (shfl.up warp scans)"), 2: out(v2.reshape(G, B)[:, -1].copy(), why=WHY_TREE)})

    # ---------------- histogram ----------------
    r = rng(5)
    n = 5000
    d = r.integers(0, 256, n, dtype=u8)
    d[:300] = 7
    case("nvrtc12_histogram256_shared", "nvrtc12/histogram.sm_80.ptx", "histogram256_shared", [4], [256],
         [d, Z("u32", 256), S("s32", n)], {1: out(np.bincount(d, minlength=256).astype(u32), why="atomic counts (order-independent)")})
    n4 = 1500
    w = r.integers(0, 2**32, n4, dtype=u64).astype(u32)
    h = np.bincount(w.view(u8), minlength=256).astype(u32)
    case("nvrtc13_histogram_packed_u32", "nvrtc13/histogram.sm_90.ptx", "histogram_packed_u32", [2], [256],
         [w, Z("u32", 256), S("s32", n4)], {1: out(h, why="atomic counts on per-warp shared sub-histograms")})
    n, nb, lo, hi = 2000, 37, f32(-2.0), f32(3.0)
    x = (r.standard_normal(n) * 2).astype(f32)
    t = ((x - lo) / f32(hi - lo)).astype(f32)
    bidx = np.floor((t * f32(nb)).astype(f32)).astype(np.int64)
    bidx = np.clip(bidx, 0, nb - 1)
    case("nvrtc12_float_histogram", "nvrtc12/histogram.sm_70.ptx", "float_histogram", [8], [256],
         [x, Z("i32", nb), S("s32", nb), S("f32", "-2.0"), S("f32", "3.0"), S("s32", n)],
         {1: out(np.bincount(bidx, minlength=nb).astype(i32), why="div.rn/mul/floor in f32 then atomic counts")})

    # ---------------- matmul_tiled ----------------
    r = rng(6)

    def sgemm_ref(A, Bm, C, alpha, beta, tile):
        M, K = A.shape
        N = Bm.shape[1]
        acc = np.zeros((M, N), f32)
        Kp = (K + tile - 1) // tile * tile
        for k in range(Kp):
            if k < K:
                acc = fma32(A[:, k][:, None], Bm[k][None, :], acc)
            else:
                acc = fma32(f32(0), f32(0), acc)
        return fma32(acc, f32(alpha), (f32(beta) * C).astype(f32))
    M = N = K = 32
    A = r.standard_normal((M, K)).astype(f32)
    Bm = r.standard_normal((K, N)).astype(f32)
    C = r.standard_normal((M, N)).astype(f32)
    case("nvrtc12_sgemm_tiled16", "nvrtc12/matmul_tiled.sm_80.ptx", "_Z11sgemm_tiledILi16EEvPKfS1_Pfiiiff", [2, 2], [16, 16],
         [A, Bm, C.copy(), S("s32", M), S("s32", N), S("s32", K), S("f32", "1.5"), S("f32", "-0.5")],
         {2: out(sgemm_ref(A, Bm, C, 1.5, -0.5, 16), why=WHY_FMA + "; k-sequential fma chain")})
    M, N, K = 20, 12, 13
    A = r.standard_normal((M, K)).astype(f32)
    Bm = r.standard_normal((K, N)).astype(f32)
    C = r.standard_normal((M, N)).astype(f32)
    case("nvrtc13_sgemm_tiled8_ragged", "nvrtc13/matmul_tiled.sm_70.ptx" if os.path.exists(os.path.join(ROOT, FIX, "nvrtc13/matmul_tiled.sm_70.ptx")) else "nvrtc13/matmul_tiled.sm_80.ptx",
         "_Z11sgemm_tiledILi8EEvPKfS1_Pfiiiff", [2, 3], [8, 8],
         [A, Bm, C.copy(), S("s32", M), S("s32", N), S("s32", K), S("f32", "1.0"), S("f32", "0.25")],
         {2: out(sgemm_ref(A, Bm, C, 1.0, 0.25, 8), why=WHY_FMA + "; ragged edges zero-padded")})
    M = N = 64
    K = 32
    A = r.standard_normal((M, K)).astype(f32)
    Bm = r.standard_normal((K, N)).astype(f32)
    acc = np.zeros((M, N), f32)
    for k in range(K):
        acc = fma32(A[:, k][:, None], Bm[k][None, :], acc)
    case("nvrtc12_sgemm_register_blocked", "nvrtc12/matmul_tiled.sm_80.ptx", "sgemm_register_blocked", [1, 1], [256],
         [A, Bm, Z("f32", M * N), S("s32", M), S("s32", N), S("s32", K)], {2: out(acc, why=WHY_FMA + "; 4x4 register micro-tiles")})
    n = 32
    A = r.standard_normal((n, n))
    Bm = r.standard_normal((n, n))
    acc = np.zeros((n, n))
    for k in range(n):
        acc = fma64(A[:, k][:, None], Bm[k][None, :], acc)
    case("nvrtc12_dgemm_tiled16", "nvrtc12/matmul_tiled.sm_90.ptx", "dgemm_tiled16", [2, 2], [16, 16],
         [A, Bm, Z("f64", n * n), S("s32", n)], {2: out(acc, why=WHY_FMA + " (explicit fma())")})
    rows, cols = 16, 100
    A = r.standard_normal((rows, cols)).astype(f32)
    xv = r.standard_normal(cols).astype(f32)
    lanes = np.zeros((rows, 32), f32)
    for c0 in range(0, cols, 32):
        cc = np.arange(c0, min(c0 + 32, cols))
        lanes[:, cc - c0] = fma32(A[:, cc], xv[cc][None, :], lanes[:, cc - c0])
    for o in (16, 8, 4, 2, 1):
        lanes = lanes + lanes[:, np.arange(32) ^ o]
    case("nvrtc13_sgemv_shfl_xor", "nvrtc13/matmul_tiled.sm_80.ptx", "sgemv", [4], [128],
         [A, xv, Z("f32", rows), S("s32", rows), S("s32", cols)], {2: out(lanes[:, 0].copy(), why=WHY_FMA + "; shfl.bfly butterfly order")})

    # ---------------- grids_2d3d ----------------
    r = rng(7)
    w, h = 64, 48
    img = r.standard_normal((h, w)).astype(f32)
    case("nvrtc12_transpose_padded", "nvrtc12/grids_2d3d.sm_80.ptx", "transpose_padded", [2, 2], [32, 8],
         [img, Z("f32", w * h), S("s32", w), S("s32", h)], {1: out(img.T.copy(), why="data movement")})
    nx = ny = nz = 8
    vol = r.standard_normal((nz, ny, nx)).astype(f32)
    c0, c1 = f32(0.5), f32(0.125)
    o = np.zeros_like(vol)
    ctr = vol[1:-1, 1:-1, 1:-1]
    s = vol[1:-1, 1:-1, :-2] + vol[1:-1, 1:-1, 2:]
    s = (s + vol[1:-1, :-2, 1:-1]).astype(f32)
    s = (s + vol[1:-1, 2:, 1:-1]).astype(f32)
    s = (s + vol[:-2, 1:-1, 1:-1]).astype(f32)
    s = (s + vol[2:, 1:-1, 1:-1]).astype(f32)
    o[1:-1, 1:-1, 1:-1] = fma32(c0, ctr, (s * c1).astype(f32))
    case("nvrtc13_stencil7_3d", "nvrtc13/grids_2d3d.sm_80.ptx", "stencil7_3d", [1, 2, 4], [8, 4, 2],
         [vol, Z("f32", vol.size), S("s32", nx), S("s32", ny), S("s32", nz), S("f32", "0.5"), S("f32", "0.125")],
         {1: out(o, why=WHY_FMA + "; 3-D grid and block")})
    w, h, rad = 40, 24, 2
    im = r.integers(0, 256, (h, w), dtype=u8)
    acc = np.zeros((h, w), i64)
    for dy in range(-rad, rad + 1):
        for dx in range(-rad, rad + 1):
            yy = np.clip(np.arange(h) + dy, 0, h - 1)
            xx = np.clip(np.arange(w) + dx, 0, w - 1)
            acc += im[yy][:, xx]
    case("nvrtc12_box_blur_2d", "nvrtc12/grids_2d3d.sm_90.ptx", "box_blur_2d", [3, 2], [16, 16],
         [im, Z("u8", w * h), S("s32", w), S("s32", h), S("s32", rad)], {1: out((acc // 25).astype(u8), why=WHY_INT)})
    grid, block = (2, 3, 2), (4, 2, 3)
    nb_, nt = 12, 24
    o = np.zeros((nb_ * nt, 4), u32)
    for bz in range(2):
        for by in range(3):
            for bx in range(2):
                bid = bx + 2 * (by + 3 * bz)
                for tz in range(3):
                    for ty in range(2):
                        for tx in range(4):
                            tid = tx + 4 * (ty + 2 * tz)
                            o[bid * nt + tid] = [bid, tid, 12, 32]
    case("nvrtc12_index_dump_3d", "nvrtc12/grids_2d3d.sm_70.ptx", "index_dump", grid, block,
         [Z("u32", o.size)], {0: out(o.reshape(-1), why="special registers %ctaid/%tid/%nctaid/WARP_SZ")})

    # ---------------- int_intrinsics ----------------
    r = rng(8)
    n = 256
    a = r.integers(-2**31, 2**31, n).astype(i32)
    b = r.integers(-2**31, 2**31, n).astype(i32)
    ua = r.integers(0, 2**32, n, dtype=u64).astype(u32)

    def dp4a(x, y, c, xs, ys):
        out_ = c.astype(i64)
        for k in range(4):
            xb = (x.view(u32) >> (8 * k)) & 0xff
            yb = (y.view(u32) >> (8 * k)) & 0xff
            xb = xb.astype(i64) - (256 * (xb >= 128) if xs else 0)
            yb = yb.astype(i64) - (256 * (yb >= 128) if ys else 0)
            out_ = out_ + xb * yb
        return out_

    def dp2a(x, y, c, hi):
        out_ = c.astype(i64)
        for k in range(2):
            xh = ((x.view(u32) >> (16 * k)) & 0xffff).astype(i64)
            xh = xh - 65536 * (xh >= 32768)
            yb = ((y.view(u32) >> (8 * (k + (2 if hi else 0)))) & 0xff).astype(i64)
            yb = yb - 256 * (yb >= 128)
            out_ = out_ + xh * yb
        return out_
    wrap = lambda v: (np.asarray(v, i64) & 0xffffffff).astype(u32).view(i32)
    r1 = wrap(dp4a(a, b, np.zeros(n, i64), True, True))
    r2 = wrap(dp4a(a.view(u32).astype(i64).astype(u32).view(i32), ua.view(i32), r1.view(u32).astype(i64), False, False))
    r3 = wrap(r2.astype(i64) + dp2a(a, b, np.ones(n, i64), False) + dp2a(a, b, np.full(n, 2, i64), True))
    case("nvrtc12_dot_products_dp4a", "nvrtc12/int_intrinsics.sm_80.ptx", "dot_products", [1], [256],
         [a, b, ua, Z("i32", n), S("s32", n)], {3: out(r3, why="dp4a/dp2a integer dot products")})
    n = 200
    a64 = r.integers(-2**62, 2**62, n, dtype=i64)
    b64 = r.integers(-2**31, 2**31, n, dtype=i64)
    b64[b64 == 0] = 3
    b64[:20] = r.integers(-2**62, 2**62, 20)
    ua64 = r.integers(0, 2**64, n, dtype=u64)
    ub64 = r.integers(1, 2**40, n, dtype=u64)
    o = np.zeros((n, 4), i64)
    for k in range(n):
        x, y = int(a64[k]), int(b64[k])
        q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
        o[k] = [q, x - q * y, np.uint64(int(ua64[k]) // int(ub64[k])).view(i64) if False else 0, 0]
        uq, ur = int(ua64[k]) // int(ub64[k]), int(ua64[k]) % int(ub64[k])
        o[k, 2] = uq - (1 << 64) if uq >= 1 << 63 else uq
        o[k, 3] = ur - (1 << 64) if ur >= 1 << 63 else ur
    case("nvrtc13_div_rem_64", "nvrtc13/int_intrinsics.sm_90.ptx", "div_rem_64", [1], [256],
         [a64, b64, ua64, ub64, Z("i64", 4 * n), S("s32", n)], {4: out(o.reshape(-1), why="64-bit div/rem, signed truncating and unsigned")})
    n = 256
    a = r.integers(-2**31, 2**31, n).astype(i32)
    uu = r.integers(0, 2**32, n, dtype=u64).astype(u32)
    a_ = a.astype(i64)
    u_ = uu.astype(i64)
    e = c_div(a_, 7) + c_rem(a_, 13) + (u_ // 10) + (u_ % 1000) + c_div(a_, -3) + (a_ >> 2) + (u_ >> 5)
    case("nvrtc12_div_rem_32_const", "nvrtc12/int_intrinsics.sm_70.ptx", "div_rem_32_const", [1], [256],
         [a, uu, Z("i32", n), S("s32", n)], {2: out(wrap(e), why="division by constants (mul.hi magic numbers)")})
    a = r.integers(-2**31, 2**31, n).astype(i32)
    a[:4] = [2**31 - 1, -2**31, 0x7ffffff0, 100]
    bl = r.integers(-2**40, 2**40, n, dtype=i64)
    sat = np.clip(a.astype(i64) + 0x7ffffff0, -2**31, 2**31 - 1)
    e = sat + np.minimum(a_ := a.astype(i64), 5) + np.maximum(a_, -5) + wrap(np.minimum(bl, 100)) + wrap(np.maximum(bl, -100)) \
        + wrap(np.minimum(a.view(u32).astype(i64), 9)) + wrap(np.abs(a_)) + wrap(np.abs(bl))
    case("nvrtc12_saturating_and_min_max", "nvrtc12/int_intrinsics.sm_80.ptx", "saturating_and_min_max", [1], [256],
         [a, bl, Z("i32", n), S("s32", n)], {2: out(wrap(e), why="add.sat.s32, min/max, abs (wrapping sum)")})

    # SIMD video intrinsics (CUDA 12 lowers __vsadu4-style sums to vabsdiff4 ... .add); the
    # expected values follow the CUDA Math API's per-lane definitions.
    r = rng(80)
    n = 256
    x = r.integers(0, 2**32, n, dtype=u64).astype(u32)
    y = r.integers(0, 2**32, n, dtype=u64).astype(u32)
    keep = r.integers(0, 16, n)  # make some bytes equal so __vcmpeq4 sees both outcomes
    for k in range(4):
        m = u32(0xff << (8 * k))
        y = np.where((keep >> k) & 1 == 1, (y & ~m) | (x & m), y).astype(u32)
    x[:4] = [0, 0xffffffff, 0x80808080, 0x7fff8000]
    y[:4] = [0xffffffff, 0xffffffff, 0x7f7f7f7f, 0x80007fff]
    xb, yb = x.view(u8).reshape(n, 4).astype(i64), y.view(u8).reshape(n, 4).astype(i64)
    xh, yh = x.view(u16).reshape(n, 2).astype(i64), y.view(u16).reshape(n, 2).astype(i64)
    xs, ys = x.view(i16).reshape(n, 2).astype(i64), y.view(i16).reshape(n, 2).astype(i64)
    pack4 = lambda v: ((v & 0xff).astype(u32) << (8 * np.arange(4, dtype=u32))).sum(axis=1, dtype=u64).astype(u32)
    pack2 = lambda v: ((v & 0xffff).astype(u32) << (16 * np.arange(2, dtype=u32))).sum(axis=1, dtype=u64).astype(u32)
    e = (pack4(xb + yb)                                   # __vadd4
         ^ pack2(xh - yh)                                 # __vsub2
         ^ pack4(np.abs(xb - yb))                         # __vabsdiffu4
         ^ pack4(np.maximum(xb, yb))                      # __vmaxu4
         ^ pack2(np.minimum(xs, ys))                      # __vmins2
         ^ pack4(np.where(xb == yb, 0xff, 0))             # __vcmpeq4
         ^ np.abs(xs - ys).sum(axis=1).astype(u32)        # __vsads2
         ^ pack4((xb + yb + 1) >> 1))                     # __vavgu4
    case("nvrtc12_simd_video", "nvrtc12/int_intrinsics.sm_80.ptx", "simd_video", [1], [256],
         [x, y, Z("u32", n), S("s32", n)], {2: out(e, why="SIMD video intrinsics (vabsdiff4 .add, per-lane arithmetic), CUDA Math API definitions")})

    # ---------------- cp_async (sm_90: cuda::barrier over an mbarrier, cp.async.bulk) ----------------
    r = rng(81)
    g, bd = 2, 128
    x = r.standard_normal(g * 1024).astype(f32)
    o = np.zeros(g * bd, f32)
    for b in range(g):
        tile = x[b * 1024:(b + 1) * 1024]
        acc = np.zeros(bd, f32)
        for i0 in range(0, 1024, bd):  # thread t takes i = t, t+bd, ...: one fma.rn per step
            i = i0 + np.arange(bd)
            acc = fma32(tile[i], tile[1023 - i], acc)
        o[b * bd:(b + 1) * bd] = acc
    case("nvrtc12_cuda_barrier_memcpy", "nvrtc12/cp_async.sm_90.ptx", "cuda_barrier_memcpy", [g], [bd],
         [x, Z("f32", g * bd), S("s32", 1024)],
         {1: out(o, why="cp.async.bulk + mbarrier expect_tx/try_wait, then an fma.rn chain per thread")})

    # ---------------- local_arrays ----------------
    r = rng(9)
    nthr, n = 128, 1000
    x = r.standard_normal(n).astype(f32)
    idx = (np.arange(nthr)[:, None] * 16 + np.arange(16)[None, :]) % n
    for comp, arch in [("nvrtc12", "sm_80.G"), ("nvrtc13", "sm_90")]:
        case(f"{comp}_local_bubble_sort_{arch.replace('.', '_')}", f"{comp}/local_arrays.{arch}.ptx", "local_bubble_sort", [2], [64],
             [x, Z("f32", nthr * 16), S("s32", n)], {1: out(np.sort(x[idx], axis=1).reshape(-1), why="per-thread .local array sort")})
    nthr, n = 64, 40
    ids = r.integers(-100, 100, n).astype(i32)
    vals = r.standard_normal(n)
    o = np.zeros(nthr)
    for t in range(nthr):
        table = [0.0] * 24
        cnt = [0] * 24
        for k in range(n):
            j = int(ids[(t + k) % n])
            j = j - int(j / 24) * 24
            if j < 0:
                j += 24
            table[j] += float(vals[k])
            cnt[j] += 1
        s = 0.0
        for k in range(24):
            s += table[k] / cnt[k] if cnt[k] else 0.0
        o[t] = s
    case("nvrtc13_local_dynamic_index", "nvrtc13/local_arrays.sm_80.ptx", "local_dynamic_index", [2], [32],
         [ids, vals, Z("f64", nthr), S("s32", n)], {2: out(o, why="f64 adds/divs in source order, dynamically indexed .local")})
    nthr = 64
    pdt = np.dtype([("pos", f32, 3), ("vel", f32, 3), ("id", i32)])
    ps = np.zeros(nthr * 4, pdt)
    ps["pos"] = r.standard_normal((nthr * 4, 3))
    ps["vel"] = r.standard_normal((nthr * 4, 3))
    ps["id"] = r.integers(-50, 50, nthr * 4)
    sel = 7
    p = ps.reshape(nthr, 4)[:, sel & 3]
    e = ((p["pos"][:, sel % 3] + p["vel"][:, (sel + 1) % 3]).astype(f32) + p["id"].astype(f32)).astype(f32)
    case("nvrtc12_local_struct_array", "nvrtc12/local_arrays.sm_70.ptx", "local_struct_array", [2], [32],
         [ps.view(u8), Z("f32", nthr), S("s32", sel)], {1: out(e, why="struct copy through .local; f32 adds in source order")})
    nthr, ln = 64, 24
    code = r.integers(0, 256, ln, dtype=u8)
    code[:4] = [0, 8, 1, 4]
    consts = r.standard_normal(32).astype(f32)
    o = np.zeros(nthr, f32)
    for t in range(nthr):
        stack = [f32(0)] * 32
        sp = 0
        for pc in range(ln):
            op = int(code[pc])
            k = op & 7
            if k == 0:
                stack[sp & 31] = consts[op >> 3]; sp += 1
            elif k in (1, 2):
                if sp >= 2:
                    sp -= 1; bb = stack[sp & 31]; sp -= 1; aa = stack[sp & 31]
                    stack[sp & 31] = f32(aa + bb) if k == 1 else f32(aa * bb); sp += 1
            elif k == 3:
                if sp >= 1:
                    stack[(sp - 1) & 31] = -stack[(sp - 1) & 31]
            elif k == 4:
                if sp >= 1:
                    stack[sp & 31] = stack[(sp - 1) & 31]; sp += 1
            else:
                stack[sp & 31] = f32(t % 32); sp += 1
        o[t] = stack[(sp - 1) & 31] if sp > 0 else f32(0)
    case("nvrtc12_local_stack_machine", "nvrtc12/local_arrays.sm_90.ptx", "local_stack_machine", [2], [32],
         [code, consts, Z("f32", nthr), S("s32", ln)], {2: out(o, why="f32 add/mul interpreter on a .local stack")})

    # ---------------- struct_params ----------------
    r = rng(10)
    n = 256
    m = r.standard_normal(16).astype(f32)
    v = r.standard_normal((n, 4)).astype(f32)
    rows = []
    for rr in range(4):
        mm = m[4 * rr:4 * rr + 4]
        t_ = fma32(mm[2], v[:, 2], fma32(mm[0], v[:, 0], (mm[1] * v[:, 1]).astype(f32)))
        rows.append(fma32(mm[3], v[:, 3], t_))
    case("nvrtc12_param_mat4_struct", "nvrtc12/struct_params.sm_80.ptx", "param_mat4", [1], [256],
         [H(m.tobytes()), v, Z("f32", 4 * n), S("s32", n)], {2: out(np.stack(rows, 1).reshape(-1), why=WHY_FMA + "; 64-byte struct by value")})
    bigd = r.standard_normal(64).astype(f32)
    bn = 3
    case("nvrtc13_param_big_struct", "nvrtc13/struct_params.sm_80.ptx", "param_big", [1], [128],
         [H(bigd.tobytes() + struct.pack("<i", bn)), Z("f32", 128)], {1: out((bigd[np.arange(128) % 64] * f32(bn)).astype(f32), why="260-byte struct by value")})
    # Packed {char c; short s; int i; double d}, Outer {Inner{int a; float b}[3]; long long tag; uchar flags[5]}
    pc_, ps_, pi_, pd_ = -5, 1234, -70000, 2.5
    inner = [(3, 0.5), (-7, 1.25), (11, -2.0)]
    tag = 1 << 40
    flags = [1, 2, 250, 4, 5]
    pk = struct.pack("<bxhid", pc_, ps_, pi_, pd_)
    ou = b"".join(struct.pack("<if", a_, b_) for a_, b_ in inner) + struct.pack("<q", tag) + bytes(flags) + b"\0" * 3
    nt = 64
    o = np.zeros(nt)
    for t in range(nt):
        v0 = float(pc_ + ps_ + pi_) + pd_
        prod = float(f32(f32(inner[t % 3][0]) * f32(inner[(t + 1) % 3][1])))
        o[t] = (v0 + prod) + float(tag) + flags[t % 5]
    case("nvrtc12_param_packed_nested", "nvrtc12/struct_params.sm_80.ptx", "param_packed_nested", [1], [nt],
         [H(pk), H(ou), Z("f64", nt)], {2: out(o, why="nested/packed struct params, int->double conversions")})
    # many scalars
    vals_ = dict(a=-3, b=200, c=-300, d=60000, e=-100000, f=4000000000, g=-(1 << 40), h=(1 << 62) + 5, i=-7.75, j=1e6 + 0.5, k=1)
    l2 = np.array([1.5, -4.0], f32)
    m4 = np.array([1, -2, 3, -4], i32)
    nn = np.array([10.25, -3.5], f64)
    tot = vals_["a"] + vals_["b"] + vals_["c"] + vals_["d"] + vals_["e"] + vals_["f"] + vals_["g"] + vals_["h"] \
        + math.trunc(vals_["i"]) + math.trunc(vals_["j"]) + vals_["k"] + math.trunc(float(f32(l2[0] * l2[1]))) + int(m4.sum()) + math.trunc(nn[0] + nn[1])
    tot = (tot + (1 << 63)) % (1 << 64) - (1 << 63)
    nt = 32
    case("nvrtc12_param_many_scalars", "nvrtc12/struct_params.sm_90.ptx", "param_many_scalars", [1], [nt],
         [S("s8", -3), S("u8", 200), S("s16", -300), S("u16", 60000), S("s32", -100000), S("u32", 4000000000), S("s64", -(1 << 40)),
          S("u64", (1 << 62) + 5), S("f32", "-7.75"), S("f64", "1000000.5"), S("u8", 1), H(l2.tobytes()), H(m4.tobytes()), H(nn.tobytes()),
          Z("i64", nt)], {14: out(np.full(nt, tot, i64), why="every scalar param type incl. vector types as byte arrays")})
    cols, nt = 9, 64
    rowsd = r.standard_normal(nt * cols).astype(f32).reshape(nt, cols)
    sdt = np.dtype([("mean", f32), ("var", f32), ("n", i32)])
    o = np.zeros(nt, sdt)
    for t in range(nt):
        mean = f32(0)
        for k in range(cols):
            mean = f32(mean + rowsd[t, k])
        mean = f32(mean / f32(cols))
        var = f32(0)
        for k in range(cols):
            d_ = f32(rowsd[t, k] - mean)
            var = fma32(d_, d_, var)[()]
        o[t] = (mean, f32(var / f32(cols)), cols)
    case("nvrtc12_struct_return_noinline", "nvrtc12/struct_params.sm_80.ptx", "struct_return", [2], [32],
         [rowsd, Z("u8", nt * 12), S("s32", cols)], {1: out(o.view(u8), why=WHY_FMA + "; struct returned by value from a .func")})

    # ---------------- device_calls ----------------
    r = rng(11)
    n = 64
    av = r.standard_normal((n, 3)).astype(f32)
    bv = r.standard_normal((n, 3)).astype(f32)
    hi_ = (n + 6 + 2) // 3
    av[:3] = av[0]; bv[:3] = bv[0]
    av[hi_ - 1:] = av[hi_ - 1]; bv[hi_ - 1:] = bv[hi_ - 1]  # threads writing the same slot write equal values
    coef = r.standard_normal(5)
    ax, ay, az = av[:, 0], av[:, 1], av[:, 2]
    bx, by, bz = bv[:, 0], bv[:, 1], bv[:, 2]
    ok = True
    case_note = ""
    # cross/dot contraction pattern read from PTX below (see cross_dot())
    cx, cy, cz, d = cross_dot(ax, ay, az, bx, by, bz)
    pv = np.zeros(n)
    for k in range(4, -1, -1):
        pv = fma64(pv, d.astype(f64), np.full(n, coef[k]))
    o = np.zeros(2 * n, f32)
    for i in range(n):
        k = min(max(i * 3 - 7, 0), n - 1)
        o[2 * k] = d[i]
        o[2 * k + 1] = f32(pv[i])
    case("nvrtc12_call_noinline", "nvrtc12/device_calls.sm_80.ptx", "call_noinline", [1], [64],
         [av, bv, Z("f32", 2 * n), coef, S("s32", n)], {2: out(o, why=WHY_FMA + "; .func calls with struct args/returns")})
    n = 256
    x = r.uniform(-3, 3, n).astype(f32)
    sel = r.integers(0, 100, n).astype(i32)
    e = np.select([sel % 4 == 0, sel % 4 == 1, sel % 4 == 2], [(x * x).astype(f32), -x, (f32(0.5) * x).astype(f32)], np.exp(x.astype(f64)).astype(f32))
    case("nvrtc13_call_indirect", "nvrtc13/device_calls.sm_80.ptx", "call_indirect", [1], [256],
         [x, sel, Z("f32", n), S("s32", n)], {2: out(e, "ulp:2", "function pointers from a global table; expf (libdevice) is within 2 ulp (CUDA Programming Guide), the others exact")})
    p = r.uniform(0.1, 3, n).astype(f32)
    e = np.where(np.arange(n) & 1, ((f32(3.14159265) * p).astype(f32) * p).astype(f32), (p * f32(2)).astype(f32))
    case("nvrtc12_call_virtual", "nvrtc12/device_calls.sm_80.ptx", "call_virtual", [1], [256],
         [p, Z("f32", n), S("s32", n)], {1: out(e, why="virtual dispatch through vtables in .global; two f32 muls")})
    nn_ = 200
    scale, bias, flags = f32(1.5), f32(-0.75), 3
    extra = np.array([0.25, 2.0, -0.125])
    prm = struct.pack("<iffi", nn_, scale, bias, flags) + extra.tobytes()
    x = r.standard_normal(256).astype(f32)
    rr_ = np.abs(fma32(x, scale, bias))
    e = (rr_ + f32(fma64(extra[1], extra[2], extra[0])[()])).astype(f32)
    e = np.concatenate([e[:nn_], np.zeros(256 - nn_, f32)])
    case("nvrtc12_call_struct_byval", "nvrtc12/device_calls.sm_80.ptx", "call_struct_byval", [1], [256],
         [H(prm), x, Z("f32", 256)], {2: out(e, why=WHY_FMA + "; struct param passed on to a .func by value")})

    # ---------------- recursion ----------------
    r = rng(12)
    n = 32
    inp = r.integers(0, 11, n).astype(i32)
    inp[:4] = [0, 1, 7, 10]
    nodes = np.zeros(7, np.dtype([("l", i32), ("r", i32), ("v", f32)]))
    nodes["l"] = [1, 3, 5, -1, -1, -1, -1]
    nodes["r"] = [2, 4, 6, -1, -1, -1, -1]
    nodes["v"] = r.standard_normal(7)

    def tree(i):
        if i < 0:
            return f32(0)
        return f32(f32(nodes["v"][i] + tree(int(nodes["l"][i]))) + tree(int(nodes["r"][i])))

    def fib(k):
        return k if k < 2 else fib(k - 1) + fib(k - 2)
    o = np.zeros((n, 4), i64)
    ts = np.zeros(n, f32)
    for t in range(n):
        v = int(inp[t]) & 15
        o[t] = [fib(v), 2 * (v & 7) + 3, math.factorial(v) if v > 1 else 1, int(v % 2 == 0)]
        ts[t] = tree(t % 7)
    for comp, arch in [("nvrtc12", "sm_80"), ("nvrtc13", "sm_80.G")]:
        case(f"{comp}_recursive_kernels_{arch.replace('.', '_')}", f"{comp}/recursion.{arch}.ptx", "recursive_kernels", [1], [n],
             [inp, Z("i64", 4 * n), nodes.view(u8), Z("f32", n), S("s32", n)],
             {1: out(o.reshape(-1), why="fib/ackermann/factorial/mutual recursion on the call stack"),
              3: out(ts, why="recursive tree sum, f32 adds in source order")})
    n, nt = 100, 32
    xi = r.integers(-1000, 1000, n).astype(i32)
    idx = (np.arange(nt)[:, None] * 32 + np.arange(32)[None, :]) % n
    case("nvrtc13_local_quicksort", "nvrtc13/recursion.sm_90.ptx", "local_quicksort", [1], [nt],
         [xi, Z("i32", nt * 32), S("s32", n)], {1: out(np.sort(xi[idx], axis=1).reshape(-1), why="recursive quicksort on a .local array")})

    # ---------------- dynamic_shared ----------------
    r = rng(13)
    n = 1024  # the kernel's store is guarded by j < n only, so n must be a multiple of the block
    xi = r.integers(-10**6, 10**6, n).astype(i32)
    o = np.zeros(n, i32)
    for blk in range(4):
        for t in range(256):
            i = blk * 256 + t
            j = blk * 256 + 255 - t
            if i < n and j < n:
                o[i] = xi[j]
    case("nvrtc12_dyn_smem_reverse", "nvrtc12/dynamic_shared.sm_80.ptx", "dyn_smem_reverse", [4], [256],
         [xi, Z("i32", n), S("s32", n)], {1: out(o, why="extern __shared__ sized at launch")}, shared=1024)
    n, B = 300, 128
    a = r.standard_normal(n).astype(f32)
    bd = r.standard_normal(n)
    cs = r.integers(-100, 100, n).astype(i16)
    pa = np.zeros(3 * B, f32); pa[:n] = a
    pb = np.zeros(3 * B); pb[:n] = bd
    pc = np.zeros(3 * B, i16); pc[:n] = cs
    i_ = np.arange(3 * B)
    oi = (i_ // B) * B + (i_ % B + 1) % B
    e = fma32(pa[oi], pc[oi].astype(f32), pb[oi].astype(f32))[:n]
    case("nvrtc13_dyn_smem_multi_array", "nvrtc13/dynamic_shared.sm_80.ptx", "dyn_smem_multi_array", [3], [B],
         [a, bd, cs, Z("f32", n), S("s32", n)], {3: out(e, why=WHY_FMA + "; f64/f32/s16 views of one dynamic buffer")}, shared=B * 14)
    nt = 128
    x = r.standard_normal(2 * nt).astype(f32)
    o = np.zeros(2 * nt, f32)
    for blk in range(2):
        dyn = x[blk * nt:(blk + 1) * nt]
        for t in range(nt):
            s1 = f32(0)
            for k in range(t):
                s1 = f32(s1 + dyn[k])
            s2 = f32(0)
            for k in range(t & 31):
                s2 = f32(s2 + f32(k))
            o[blk * nt + t] = f32(s1 + s2)
    case("nvrtc12_static_plus_dynamic_smem", "nvrtc12/dynamic_shared.sm_90.ptx", "static_plus_dynamic", [2], [nt],
         [x, Z("f32", 2 * nt)], {1: out(o, why="shared pointers passed to a .func (generic addressing of shared), f32 adds in order")}, shared=nt * 4)

    # ---------------- templates ----------------
    r = rng(14)
    n = 3000
    xi = r.integers(-2**62, 2**62, n, dtype=i64).view(u64)
    G = 4
    with np.errstate(over="ignore"):
        part = np.zeros(G * 256, u64)
        for j in range(n):
            part[j % (G * 256)] += xi[j]
        part = part.reshape(G, 256)
        st = 128
        while st:
            part[:, :st] = part[:, :st] + part[:, st:2 * st]
            st //= 2
    case("nvrtc12_block_reduce_u64_add", "nvrtc12/templates.sm_80.ptx", "_Z12block_reduceIy3AddIyELi256EEvPKT_PS2_iS2_", [G], [256],
         [xi, Z("u64", G), S("s32", n), S("u64", 0)], {1: out(part[:, 0].copy(), why="wrapping u64 adds (associative)")})
    n = 1000
    xd = r.standard_normal(n)
    case("nvrtc13_block_reduce_f64_max", "nvrtc13/templates.sm_90.ptx", "_Z12block_reduceId3MaxIdELi128EEvPKT_PS2_iS2_", [2], [128],
         [xd, Z("f64", 2), S("s32", n), S("f64", "-1e300")],
         {1: out(np.array([xd[np.arange(n) % 256 < 128].max(), xd[np.arange(n) % 256 >= 128].max()]), why="max is exact")})
    n = 1000
    x = r.standard_normal(n).astype(f32)
    y = r.standard_normal(n).astype(f32)
    case("nvrtc12_axpby_lambda_f32", "nvrtc12/templates.sm_70.ptx", "_Z12axpby_lambdaIfEviT_PKS0_S0_PS0_", [2], [128],
         [S("s32", n), S("f32", "0.75"), x, S("f32", "-1.25"), y.copy()],
         {4: out(fma32(f32(0.75), x, (f32(-1.25) * y).astype(f32)), why=WHY_FMA + "; lambda in a template")})
    x = r.uniform(-1.5, 1.5, 512).astype(f32)
    pv = np.ones(512, f32)
    for k in range(1, 10):
        pv = fma32(x, pv, f32(k))
    case("nvrtc12_horner9_template", "nvrtc12/templates.sm_80.ptx", "_Z6hornerILi9EEvPKfPfi", [2], [256],
         [x, Z("f32", 512), S("s32", 512)], {1: out(pv, why=WHY_FMA + "; constexpr recursion unrolled to an fma chain")})
    x = (r.standard_normal(512) * 1000).astype(f32)
    case("nvrtc13_convert_f32_to_f16", "nvrtc13/templates.sm_80.ptx", "_Z7convertI6__halffEvPKT0_PT_i", [2], [256],
         [x, Z("f16", 512), S("s32", 512)], {1: out(x.astype(f16), why="cvt.rn.f16.f32")})
    xd = r.standard_normal(512) * 1e6
    case("nvrtc12_convert_f64_to_s32", "nvrtc12/templates.sm_80.ptx", "_Z7convertIidEvPKT0_PT_i", [2], [256],
         [xd, Z("i32", 512), S("s32", 512)], {1: out(np.trunc(xd).astype(i32), why="cvt.rzi.s32.f64")})

    # ---------------- warp shuffles / votes ----------------
    r = rng(15)
    nt = 64
    v = r.integers(-2**20, 2**20, nt).astype(i32)
    lane_src, delta = 5, 3
    o = np.zeros(nt, i64)
    for t in range(nt):
        L, base = t % 32, t - t % 32
        W = v[base:base + 32].astype(i64)
        def seg(width, lane):
            return (L // width) * width + lane
        a_ = W[lane_src]
        b_ = W[L - delta] if L >= delta else W[L]
        c_ = W[L + delta] if L + delta < 32 else W[L]
        d_ = W[L ^ 1]
        e_ = W[seg(16, lane_src % 16)]
        # __shfl_up_sync(0xffff, v, 2, 8): lanes >= 16 are not in the mask (undefined); only lanes < 16 checked below
        f_ = W[L - 2] if L % 8 >= 2 else W[L]
        g_ = W[L + 3] if L % 4 + 3 < 4 else W[L]
        h_ = W[(L ^ 5)] if (L ^ 5) // 16 == L // 16 else W[L]
        o[t] = a_ ^ (b_ << 1) ^ (c_ << 2) ^ (d_ << 3) ^ (e_ << 4) ^ (f_ << 5) ^ (g_ << 6) ^ (h_ << 7)
    ev = wrap(o)
    if False:  # kernel is UB for every launch (see README "Not cases"); the VM rightly faults
      case("nvrtc12_shfl_all_modes_i32", "nvrtc12/warp_shuffle.sm_80.ptx", "shfl_all_modes_i32", [2], [32],
         [v, Z("i32", nt), S("s32", lane_src), S("s32", delta)],
         {1: out(ev, why="shfl.sync idx/up/down/bfly with widths (c = segment mask)")},
         note="lanes 16..31 execute __shfl_up_sync(0x0000ffff, ...) outside its mask; PTX leaves that undefined, the expected value assumes they read their own value like an out-of-range source")
    fin = r.standard_normal(nt).astype(f32)
    din = r.standard_normal(nt)
    fv = fin.reshape(2, 32).copy()
    dv = din.reshape(2, 32).copy()
    for off in (16, 8, 4, 2, 1):
        fv = fv + fv[:, np.arange(32) ^ off]
        src = np.arange(32) + off
        sh = dv[:, np.minimum(src, 31)]
        sh = np.where(src[None, :] < 32, sh, dv)
        dv = dv + sh
    case("nvrtc13_shfl_f32_f64", "nvrtc13/warp_shuffle.sm_90.ptx", "shfl_f32_f64", [1], [nt],
         [fin, din, Z("f32", nt), Z("f64", nt)],
         {2: out(fv.reshape(-1), why=WHY_TREE + " (butterfly)"), 3: out(dv.reshape(-1), why=WHY_TREE + " (shfl.down of both 32-bit halves)")})
    v = r.integers(-1000, 1000, 96).astype(i32)
    case("nvrtc12_inclusive_scan_warp", "nvrtc12/warp_shuffle.sm_70.ptx", "inclusive_scan_warp", [1], [96],
         [v, Z("i32", 96)], {1: out(np.cumsum(v.reshape(3, 32), axis=1).astype(i32).reshape(-1), why=WHY_INT)})
    fin = r.standard_normal(64).astype(f32)
    W = fin.reshape(2, 32)
    e = np.concatenate([np.repeat(W[:, :1], 16, 1), np.repeat(W[:, 16:17], 16, 1)], 1).reshape(-1)
    case("nvrtc13_broadcast_partial_mask", "nvrtc13/warp_shuffle.sm_80.ptx", "broadcast_partial_mask", [1], [64],
         [fin, Z("f32", 64)], {1: out(e, why="shfl.sync with half-warp member masks in divergent branches")})
    v = r.integers(-5, 200, 64).astype(i32)
    v[32:64] = np.abs(v[32:64]) + 1
    v[40] = 7
    o = np.zeros((64, 4), i32)
    for wi in range(2):
        W = v[32 * wi:32 * wi + 32]
        ballot = sum(1 << l for l in range(32) if W[l] & 1)
        allv = int((W > 0).all())
        anyv = int((W > 100).any())
        uni = int((W == 7).all() or (W != 7).all())
        ffs = (ballot & -ballot).bit_length()
        o[32 * wi:32 * wi + 32] = [allv, anyv, bin(ballot).count("1"), uni + ffs]
    case("nvrtc12_votes", "nvrtc12/warp_vote_match.sm_80.ptx", "votes", [1], [64],
         [v, Z("i32", 256)], {1: out(o.reshape(-1), why="vote.all/any/uni, ballot")})
    v = r.integers(0, 8, 64).astype(i32)
    o = np.zeros(64, u32)
    for wi in range(2):
        W = v[32 * wi:32 * wi + 32]
        m2 = sum(1 << l for l in range(32) if W[l] & 2)
        m0 = sum(1 << l for l in range(32) if not W[l] & 2)
        b4 = sum(1 << l for l in range(32) if (W[l] & 2) and (W[l] & 4))
        for l in range(32):
            o[32 * wi + l] = (m2 ^ b4) if W[l] & 2 else (m0 << 1) & 0xffffffff
    case("nvrtc13_active_mask_divergent", "nvrtc13/warp_vote_match.sm_90.ptx", "active_mask_divergent", [1], [64],
         [v, Z("u32", 64)], {1: out(o, why="activemask in divergent branches; assumes the branch sides are not reconverged before activemask (as on hardware)")})
    k = r.integers(0, 4, 64).astype(i32)
    k[32:] = 9
    k64 = r.integers(0, 3, 64).astype(i64) << 40
    o = np.zeros((64, 3), u32)
    for wi in range(2):
        W, W64 = k[32 * wi:32 * wi + 32], k64[32 * wi:32 * wi + 32]
        full = 0xffffffff if (W == W[0]).all() else 0
        for l in range(32):
            o[32 * wi + l] = [sum(1 << j for j in range(32) if W[j] == W[l]), full, sum(1 << j for j in range(32) if W64[j] == W64[l])]
    case("nvrtc12_match_sync", "nvrtc12/warp_vote_match.sm_70.ptx", "match_sync", [1], [64],
         [k, k64, Z("u32", 192)], {2: out(o.reshape(-1), why="match.any/all.sync b32 and b64")})
    L = np.arange(64) % 32
    lt = ((1 << L) - 1).astype(i64)
    le = ((1 << (L + 1)) - 1).astype(i64)
    gt = (0xffffffff ^ le) & 0xffffffff
    ge = (0xffffffff ^ lt) & 0xffffffff
    eq = (1 << L).astype(i64)
    case("nvrtc13_lane_masks", "nvrtc13/warp_vote_match.sm_80.ptx", "lane_masks", [2], [32],
         [Z("u32", 64)], {0: out(((lt + le * 3 + gt * 5 + ge * 7 + eq * 11) & 0xffffffff).astype(u32), why="%lanemask_* special registers")})
    v = r.integers(0, 2**32, 64, dtype=u64).astype(u32)
    sv = r.integers(-2**31, 2**31, 64).astype(i32)
    o = np.zeros((64, 5), u32)
    so = np.zeros((64, 2), i32)
    for wi in range(2):
        W = v[32 * wi:32 * wi + 32].astype(np.uint64)
        SW = sv[32 * wi:32 * wi + 32]
        andv = orv = xorv = None
        andv = int(np.bitwise_and.reduce(W)); orv = int(np.bitwise_or.reduce(W)); xorv = int(np.bitwise_xor.reduce(W))
        o[32 * wi:32 * wi + 32] = [int(W.sum()) & 0xffffffff, int(W.min()), int(W.max()), andv, orv ^ xorv]
        so[32 * wi:32 * wi + 32] = [SW.min(), SW.max()]
    case("nvrtc12_redux_ops_sm80", "nvrtc12/warp_reduce_sm80.sm_80.ptx", "redux_ops", [1], [64],
         [v, Z("u32", 320), sv, Z("i32", 128)], {1: out(o.reshape(-1), why="redux.sync add/min/max/and/or/xor"), 3: out(so.reshape(-1), why="redux.sync signed min/max")})
    v = r.integers(-10**6, 10**6, 128).astype(i32)
    case("nvrtc13_warp_sort32", "nvrtc13/sorting.sm_80.ptx", "warp_sort32", [2], [64],
         [v.copy(), ], {0: out(np.sort(v.reshape(4, 32), axis=1).reshape(-1), why="bitonic network over shfl.bfly")})
    x = r.standard_normal(2048).astype(f32)
    case("nvrtc12_bitonic_sort_shared", "nvrtc12/sorting.sm_80.ptx", "bitonic_sort_shared", [2], [512],
         [x.copy()], {0: out(np.sort(x.reshape(2, 1024), axis=1).reshape(-1), why="shared-memory bitonic sort, 512 threads, many barriers")})
    n = 3000
    keys = r.integers(0, 2**32, n, dtype=u64).astype(u32)
    G, shift = 3, 8
    o = np.zeros((G, 16), u32)
    for i in range(n):
        o[(i % (G * 256)) // 256, (int(keys[i]) >> shift) & 15] += 1
    case("nvrtc12_radix_count", "nvrtc12/sorting.sm_90.ptx", "radix_count", [G], [256],
         [keys, Z("u32", G * 16), S("s32", n), S("s32", shift)], {1: out(o.reshape(-1), why="shared atomics, per-block digit counts")})

    # ---------------- sparse ----------------
    r = rng(16)
    rows_, ncol = 100, 80
    nnz_per = r.integers(0, 12, rows_)
    rowptr = np.concatenate([[0], np.cumsum(nnz_per)]).astype(i32)
    colsi = r.integers(0, ncol, rowptr[-1]).astype(i32)
    valsf = r.standard_normal(rowptr[-1]).astype(f32)
    xv = r.standard_normal(ncol).astype(f32)
    yv = np.zeros(rows_, f32)
    for rr in range(rows_):
        s = f32(0)
        for k in range(rowptr[rr], rowptr[rr + 1]):
            s = fma32(valsf[k], xv[colsi[k]], s)[()]
        yv[rr] = s
    case("nvrtc12_spmv_csr_scalar", "nvrtc12/sparse_graph.sm_80.ptx", "spmv_csr_scalar", [1], [128],
         [rowptr, colsi, valsf, xv, Z("f32", rows_), S("s32", rows_)], {4: out(yv, why=WHY_FMA + "; data-dependent trip counts")})
    n = 500
    src = (r.integers(-64, 64, 200) / 8).astype(f32)
    gidx = r.integers(0, 200, n).astype(i32)
    sidx = r.integers(0, 50, n).astype(i32)
    dst = np.zeros(50, f64)
    np.add.at(dst, sidx, src[gidx].astype(f64))
    case("nvrtc13_gather_scatter_atomic", "nvrtc13/sparse_graph.sm_80.ptx", "gather_scatter", [2], [256],
         [src, gidx, sidx, Z("f32", 50), S("s32", n)], {3: out(dst.astype(f32), why=WHY_DYADIC)})

    # ---------------- atomics ----------------
    r = rng(17)
    n = 600
    xi = r.integers(-1000, 1000, n).astype(i32)
    pad = xi
    o = np.zeros(8, i32)
    o[1] = 0x7fffffff
    o[2] = -2**31
    nb = 3
    sums, mins, maxs, ors, fs, u64s = [], [], [], [], [], []
    tot = np.array([0, 0x7fffffff, -0x7fffffff, 0, 0, 0, 0, 0], i64)
    acc_f = f32(0)
    acc_u = 0
    for blk in range(nb):
        W = xi[blk * 256:(blk + 1) * 256].astype(i64)
        tot[0] += W.sum()
        tot[1] = min(tot[1], W.min())
        tot[2] = max(tot[2], W.max())
        tot[3] |= int(np.bitwise_or.reduce(W.astype(u32).astype(i64)))
        acc_f = f32(acc_f + f32((W * 0.5).sum()))
        acc_u += int((W.astype(i64) & 0xffffffff).sum())
    init = np.array([0, 0x7fffffff, -2**31, 0, 0, 0, 0, 0], i64)
    e = np.zeros(8, i32)
    e[0] = tot[0]
    e[1] = min(init[1], tot[1])
    e[2] = max(init[2], tot[2])
    e[3] = tot[3] & 0xffffffff if tot[3] < 2**31 else tot[3] - 2**32
    e[4] = np.array([acc_f], f32).view(i32)[0]
    e[6:8] = np.array([acc_u], u64).view(i32)
    inb = np.zeros(8, i32)
    inb[1] = 0x7fffffff
    inb[2] = -2**31
    case("nvrtc12_atomics_shared", "nvrtc12/atomics.sm_80.ptx", "atomics_shared", [nb], [256],
         [xi, inb, S("s32", n)], {1: out(e, why="shared then global atomics: int add/min/max/or, f32 add of half-integers (exact in any order), u64 add")})
    nt = 96
    g = np.array([10, 20, 0, 50, -50, 7, 0x0ff0, 0x100, 0x55, 0], i32)
    ug = np.array([0, 0], u32)
    g64 = np.array([1, 2, 0, 2**40, 0, 0xffff, 0, 0xf0], u64)
    vv = 37
    eg = g.copy().astype(i64)
    eg[0] += nt * vv; eg[1] -= nt * vv; eg[2] = vv; eg[3] = min(eg[3], vv); eg[4] = max(eg[4], vv)
    eg[5] = vv + 1 if g[5] == vv else g[5]
    eg[6] &= vv; eg[7] |= vv; eg[8] ^= (vv if nt % 2 else 0)
    eug = np.array([0, 0], np.int64)
    a_, d_ = 0, 0
    for _ in range(nt):
        a_ = 0 if a_ >= 1000 else a_ + 1
        d_ = 1000 if (d_ == 0 or d_ > 1000) else d_ - 1
    eug[:] = [a_, d_]
    e64 = [int(x) for x in g64]
    e64[0] += nt * vv; e64[1] = vv; e64[2] = vv if e64[2] == 0 else e64[2]; e64[3] = min(e64[3], vv); e64[4] = max(e64[4], vv)
    e64[5] &= vv; e64[6] |= vv; e64[7] ^= (vv if nt % 2 else 0)
    case("nvrtc13_atomics_int", "nvrtc13/atomics.sm_80.ptx", "atomics_int", [1], [nt],
         [g.copy(), ug.copy(), g64.copy(), S("s32", vv)],
         {0: out(eg.astype(i32), why="every atom op on b32/u32/s32"), 1: out(eug.astype(u32), why="atom.inc/dec wrap rules"), 2: out(np.array(e64, u64), why="64-bit atomics")})

    # ---------------- double precision ----------------
    r = rng(18)
    n = 1000
    x = (r.integers(-512, 512, n) / 64.0)
    y = (r.integers(-512, 512, n) / 64.0)
    case("nvrtc12_ddot_atomic", "nvrtc12/double_math.sm_80.ptx", "ddot", [2], [256],
         [x, y, Z("f64", 1), S("s32", n)], {2: out(np.array([float(np.dot(x, y))]), why=WHY_DYADIC)})
    nt, n = 64, 1000
    x = r.standard_normal(n) * 10
    x[5] = 1e300
    o = np.zeros(nt)
    for t in range(nt):
        s_, c_ = 0.0, 0.0
        for i in range(t, n, nt):
            yy = x[i] - c_
            tt = s_ + yy
            c_ = (tt - s_) - yy
            s_ = tt
        if math.isnan(s_):
            s_ = 0.0
        if math.isinf(s_):
            s_ = 1.7976931348623157e308
        o[t] = s_ + (1.0 if math.copysign(1.0, c_) < 0 else 0.0)
    case("nvrtc12_kahan_sum", "nvrtc12/double_math.sm_70.ptx", "kahan_sum", [1], [nt],
         [x, Z("f64", nt), S("s32", n)], {1: out(o, why="compensated summation: correctly rounded f64 adds in source order")})


def cross_dot(ax, ay, az, bx, by, bz):
    """cross() then dot3() with the contractions NVRTC emitted (see PTX of call_noinline's .funcs)."""
    cx = ((ay * bz).astype(f32) - (az * by).astype(f32)).astype(f32)  # cross: plain mul/mul/sub
    cy = ((az * bx).astype(f32) - (ax * bz).astype(f32)).astype(f32)
    cz = ((ax * by).astype(f32) - (ay * bx).astype(f32)).astype(f32)
    d = fma32(cz, az, fma32(cx, ax, (cy * ay).astype(f32)))  # dot3: mul.y, fma.x, fma.z
    return cx, cy, cz, d


SHFL = "unsupported instruction: the interpreter does not implement shfl.sync yet (Unsupported fault on `shfl.sync.{mode}.b32`)"
def cases_tensor():
    """Tensor-core fixture kernels (ldmatrix + mma.sync, wmma) whose results do not depend on the
    GPU generation: small-integer inputs make every product and partial sum exact in every
    tensor-core model (and in numpy), f64 is a sequential fma, integers are exact. The
    per-generation rounding is tested by tests/run/warp/mma_* and the recorded hardware data
    (crates/ptxvm-fp/tests/tensor_km25.rs, crates/ptxvm-vm/tests/tensor_km25.rs)."""
    why = "tensor-core products and sums of small integers: exact in every generation's model"
    r = rng(71)

    def si(shape, lo=-4, hi=5, dt=f16):
        return r.integers(lo, hi, shape).astype(dt)

    for comp in ("nvrtc12", "nvrtc13"):
        A, Bt = si((16, 16)), si((8, 16))  # B given as N x K (the kernel's column-major B)
        case(f"{comp}_mma_m16n8k16_f16_ldmatrix", f"{comp}/mma_ldmatrix.sm_80.ptx", "mma_m16n8k16_f16_ldmatrix",
             [1], [32], [A, Bt, Z("f32", 128)], {2: out(A.astype(f32) @ Bt.astype(f32).T, why=why)})
    M, N, K = 128, 128, 96
    A, B = si((M, K)), si((K, N))
    case("nvrtc13_hgemm_mma_64x64", "nvrtc13/mma_ldmatrix.sm_80.ptx", "hgemm_mma_64x64", [N // 64, M // 64], [128],
         [A, B, Z("f32", M * N), S("s32", M), S("s32", N), S("s32", K)],
         {2: out(A.astype(f32) @ B.astype(f32), why=why + "; ldmatrix.x4/.x2 fragments, 2x4 mma tiles per warp")})
    # wmma, f16
    M, N, K = 32, 32, 48
    A, Bt = si((M, K)), si((N, K))
    case("nvrtc12_wmma_gemm_f16_f32_sm70", "nvrtc12/wmma_f16.sm_70.ptx", "wmma_gemm_f16_f32", [1, 1, 1], [64, 2, 1],
         [A, Bt, Z("f32", M * N), S("s32", M), S("s32", N), S("s32", K)],
         {2: out(A.astype(f32) @ Bt.astype(f32).T, why=why)})
    A = si(640)
    B = si(1024)
    C = si(1536)
    a1, b1 = A[:512].reshape(32, 16).astype(f32), B[:128].reshape(16, 8).astype(f32)
    d1 = ((a1 @ b1 + 1) * 0.5).astype(f16)
    a2 = np.array([[A[512 + c * 8 + rr] for c in range(16)] for rr in range(8)], f32)
    b2 = np.array([[B[512 + n * 16 + k] for n in range(32)] for k in range(16)], f32)
    c2 = np.array([[C[512 + c * 32 + rr] for c in range(32)] for rr in range(8)], f32)
    d2 = (a2 @ b2 + c2).astype(f16)
    exp = C.copy()
    exp[:256] = d1.reshape(-1)
    for rr in range(8):
        for c in range(32):
            exp[512 + c * 32 + rr] = d2[rr, c]
    case("nvrtc13_wmma_shapes_f16_acc", "nvrtc13/wmma_f16.sm_80.ptx", "wmma_shapes_f16_acc", [1], [32],
         [A, B, C], {2: out(exp, why=why + "; m32n8k16 (fill, element-wise half multiply) and m8n32k16 column-major, f16 accumulators")})
    gx, gy, K = 2, 2, 48
    A, B = si((gy * 32, K)), si((K, gx * 32))
    case("nvrtc13_wmma_shared_staged", "nvrtc13/wmma_f16.sm_80.ptx", "wmma_shared_staged", [gx, gy], [128],
         [A, B, Z("f32", gx * gy * 1024), S("s32", K)], {2: out(A.astype(f32) @ B.astype(f32), why=why + "; padded shared tiles (ldm 24/40)")})
    # wmma, sm_80 types
    A, Bt = si((16, 16), dt=f32), si((16, 16), dt=f32)
    case("nvrtc13_wmma_bf16", "nvrtc13/wmma_sm80.sm_80.ptx", "wmma_bf16", [1], [32],
         [to_bf16_bits(A), to_bf16_bits(Bt), Z("f32", 256)], {2: out(A @ Bt.T, why=why)})
    A, B = si((16, 32), dt=f32), si((32, 16), dt=f32)
    case("nvrtc13_wmma_tf32", "nvrtc13/wmma_sm80.sm_80.ptx", "wmma_tf32", [1], [32],
         [A, B, Z("f32", 256)], {2: out(A @ B, why=why + "; four k8 steps, __float_to_tf32 on the fragments")})
    A, Bt = si((16, 16), -128, 128, i8), si((16, 16), -128, 128, i8)
    d = A.astype(i32) @ Bt.astype(i32).T
    case("nvrtc13_wmma_int8", "nvrtc13/wmma_sm80.sm_80.ptx", "wmma_int8", [1], [32],
         [A, Bt, Z("i32", 256)], {2: out(d.T.copy(), why="exact s8 dot products (.satfinite cannot trigger), column-major store")})
    A, B, C = r.standard_normal((8, 4)), r.standard_normal((4, 8)), r.standard_normal((8, 8))
    d = C.copy()
    for k in range(4):
        d = fma64(A[:, k:k + 1], B[k:k + 1, :], d)
    case("nvrtc13_wmma_f64", "nvrtc13/wmma_sm80.sm_80.ptx", "wmma_f64", [1], [32],
         [A, B, C], {2: out(d, why="f64 wmma: a fused multiply-add per k, k ascending from C (each correctly rounded)")})
    a4, b4t = r.integers(0, 16, (8, 32)), r.integers(0, 16, (8, 32))
    a1b, b1bt = r.integers(0, 2, (8, 128)), r.integers(0, 2, (8, 128))

    def nib(m):  # rows of 4-bit elements, low nibble first
        m = m.astype(u8)
        return (m[:, 0::2] | (m[:, 1::2] << 4)).astype(u8)
    case("nvrtc13_wmma_u4_b1", "nvrtc13/wmma_sm80.sm_80.ptx", "wmma_u4_b1", [1], [32],
         [nib(a4), nib(b4t), Z("i32", 64), np.packbits(a1b.astype(u8), axis=1, bitorder="little"),
          np.packbits(b1bt.astype(u8), axis=1, bitorder="little"), Z("i32", 64)],
         {2: out((a4 @ b4t.T).astype(i32), why="exact u4 dot products (a common order of the k elements of A rows and B columns cannot change them)"),
          5: out((a1b @ b1bt.T).astype(i32), why="b1 AND + popc (invariant under a common bit order of A rows and B columns)")})

    _cases_tensor_fragments(r, why)

    _cases_tensor_wgmma(why)

    _cases_tensor_attention()

    _cases_tensor_triton(r, why)


def _wg_d_pos(t, e):
    """wgmma D fragment: (row, column) of element e of thread t (PTX ISA; CUTLASS CLayout_64xN)."""
    lane = t % 32
    return 16 * (t // 32) + lane // 4 + 8 * ((e >> 1) & 1), 8 * (e >> 2) + 2 * (lane % 4) + (e & 1)


def _wg_k_major(m, k, ebytes, lbo=128, sbo=256):
    """Byte offset of element (m, k) in the no-swizzle K-major canonical layout (core matrices of
    8 rows x 16 bytes; SBO between groups of 8 rows, LBO between the 16-byte columns)."""
    t = 16 // ebytes
    return (m % 8) * 16 + (m // 8) * sbo + (k // t) * lbo + (k % t) * ebytes


def _wg_mn_major(n, k, ebytes, lbo=128, sbo=256):
    """Byte offset of element (n, k) in the no-swizzle MN-major layout (8 k-rows of 16 bytes of n;
    SBO between 16-byte groups of n, LBO between groups of 8 k)."""
    t = 16 // ebytes
    return (n // t) * sbo + (k % 8) * 16 + (k // 8) * lbo + (n % t) * ebytes


def _cases_tensor_wgmma(why):
    """The wgmma fixtures (nvrtc 12/13 `wgmma_sm90a.cu`, clang's `wgmma_sm90a.cu`): the matrices the
    descriptors (no swizzle, LBO 128, SBO 256) and register fragments describe are rebuilt from
    the kernels' flat arrays by the PTX ISA's canonical layouts; small integers keep every product
    and sum exact in the tensor-core model (f16 D: one round-to-nearest of the exact sum)."""
    r = rng(91)
    why = why + "; wgmma (sm_90a), layouts from the PTX ISA's canonical shared-memory layouts"
    for comp in ("nvrtc12", "nvrtc13"):
        fx = f"{comp}/wgmma_sm90a.sm_90a.ptx"
        # 64x8x16 f16 -> f32, both from descriptors.
        A = r.integers(-4, 5, (64, 16)).astype(f16)
        B = r.integers(-4, 5, (8, 16)).astype(f16)  # B[n][k]
        fa, fb = np.zeros(1024, f16), np.zeros(128, f16)
        for m in range(64):
            for k in range(16):
                fa[_wg_k_major(m, k, 2) // 2] = A[m, k]
        for n in range(8):
            for k in range(16):
                fb[_wg_k_major(n, k, 2) // 2] = B[n, k]
        D = A.astype(f32) @ B.astype(f32).T
        e = np.array([D[_wg_d_pos(t, j)] for t in range(128) for j in range(4)], f32)
        case(f"{comp}_wgmma_m64n8k16_ss", fx, "wgmma_m64n8k16_ss", [1], [128],
             [fa, fb, Z("f32", 512)], {2: out(e, why=why)})
        # 64x32x16 bf16, A from registers, B N-major (imm-trans-b 1), 3 k-tiles, wait_group 1.
        kt = 3
        A = r.integers(-4, 5, (kt, 64, 16)).astype(f32)
        B = r.integers(-4, 5, (kt, 32, 16)).astype(f32)  # B[t][n][k]
        ab, bb = to_bf16_bits(A), to_bf16_bits(B)
        frag = np.zeros(kt * 128 * 4, np.uint32)
        for q in range(kt):
            for t in range(128):
                lane, w = t % 32, t // 32
                for i in range(8):  # mma.m16n8k16 A fragment of the warp's 16 rows
                    row = 16 * w + lane // 4 + 8 * ((i >> 1) & 1)
                    col = 2 * (lane % 4) + (i & 1) + 8 * (i >> 2)
                    frag[(q * 128 + t) * 4 + i // 2] |= np.uint32(ab[q, row, col]) << np.uint32(16 * (i % 2))
        fbb = np.zeros(kt * 512, np.uint16)
        for q in range(kt):
            for n in range(32):
                for k in range(16):
                    fbb[q * 512 + _wg_mn_major(n, k, 2) // 2] = bb[q, n, k]
        D = sum(A[q] @ B[q].T for q in range(kt))
        e = np.array([D[_wg_d_pos(t, j)] for t in range(128) for j in range(16)], f32)
        case(f"{comp}_wgmma_m64n32k16_rs_bf16", fx, "wgmma_m64n32k16_rs_bf16", [1], [128],
             [frag, fbb, Z("f32", 2048), S("s32", kt)],
             {2: out(e, why=why + "; A fragments in registers, two groups in flight (wait_group 1), chained accumulators")})
        # tf32, e4m3 x e5m2 (imm-scale-b -1) chained on the same f32 accumulators, f16 with N-major
        # B, s8: all read the same float buffer (A at 0, B at 2048 bytes) as their element types.
        buf = r.integers(-4, 5, 576).astype(f32)
        raw = buf.view(u8)
        As, Bs = raw[:2048], raw[2048:2304]

        def el(mem, off, t):
            b = mem[off:off + {"tf32": 4, "f16": 2}.get(t, 1)].tobytes()
            if t == "tf32":
                return float(np.frombuffer(b, f32)[0])
            if t == "f16":
                return float(np.frombuffer(b, f16)[0])
            if t == "s8":
                return int(np.frombuffer(b, i8)[0])
            return fp8_dec(b[0], t)
        acc = np.zeros((64, 8))
        for m in range(64):
            for n in range(8):
                acc[m, n] = sum(el(As, _wg_k_major(m, k, 4), "tf32") * el(Bs, _wg_k_major(n, k, 4), "tf32") for k in range(8))
                acc[m, n] -= sum(el(As, _wg_k_major(m, k, 1), "e4m3") * el(Bs, _wg_k_major(n, k, 1), "e5m2") for k in range(32))
        h = np.array([[sum(el(As, _wg_k_major(m, k, 2), "f16") * el(Bs, _wg_mn_major(n, k, 2), "f16") for k in range(16))
                       for n in range(8)] for m in range(64)]).astype(f16)
        iv = np.array([[sum(el(As, _wg_k_major(m, k, 1), "s8") * el(Bs, _wg_k_major(n, k, 1), "s8") for k in range(32))
                        for n in range(8)] for m in range(64)], np.int64)
        ec = np.array([acc[_wg_d_pos(t, j)] for t in range(128) for j in range(4)], f32)
        eh = np.array([h[_wg_d_pos(t, j)] for t in range(128) for j in range(4)], f16).view(np.uint32)
        ei = np.zeros(512, i32)  # Ci[t * 4] = i0 + i1 + i2 + i3
        ei[::4] = np.array([sum(iv[_wg_d_pos(t, j)] for j in range(4)) for t in range(128)], np.int64).astype(i32)
        case(f"{comp}_wgmma_dtypes", fx, "wgmma_dtypes", [1], [128],
             [buf, Z("f32", 512), Z("u32", 256), Z("i32", 512)],
             {1: out(ec, why=why + "; tf32 then e4m3 x (-e5m2) chained onto it (F = 13: the exact sums of these values fit)"),
              2: out(eh, why=why + "; f16 D: one round to nearest of the exact sum; N-major B"),
              3: out(ei, why="exact s8 dot products, summed per thread (s32) into every fourth element")})
    # clang: 64x16x16 f16 -> f32; the -O0 build stores the accumulators before the wait.
    A = r.integers(-4, 5, (64, 16)).astype(f16)
    B = r.integers(-4, 5, (16, 16)).astype(f16)
    fa, fb = np.zeros(1024, f16), np.zeros(256, f16)
    for m in range(64):
        for k in range(16):
            fa[_wg_k_major(m, k, 2) // 2] = A[m, k]
    for n in range(16):
        for k in range(16):
            fb[_wg_k_major(n, k, 2) // 2] = B[n, k]
    D = A.astype(f32) @ B.astype(f32).T
    e = np.array([D[_wg_d_pos(t, j)] for t in range(128) for j in range(8)], f32)
    case("clang19_wgmma_f16", "clang19/wgmma_sm90a.sm_90a.ptx", "wgmma_f16", [1], [128],
         [fa, fb, Z("f32", 1024)], {2: out(e, why=why)})
    case("clang19_wgmma_f16_O0_early_read", "clang19/wgmma_sm90a.sm_90a.O0.ptx", "wgmma_f16", [1], [128],
         [fa, fb, Z("f32", 1024)], {},
         error=["an accumulator of the `wgmma.mma_async` at line 162 that is still in flight", "in kernel `wgmma_f16`"],
         note="clang -O0 spills the accumulators right after wgmma.mma_async, before commit_group/wait_group: "
              "undefined in the PTX ISA (ptxas serialises it on hardware); ptxvm reports the early read")


def _cases_tensor_attention():
    """Triton's flash-attention forward (`attention_misc.py`: online softmax with exp2, p rounded to
    f16 before the PV product; sm_80 through mma.sync, sm_90 through wgmma with A from registers)
    against float64 softmax attention. Not exact: exp2.approx, the f16 p and the f16 output."""
    r = rng(92)
    for name, d, bm, n_ctx, causal in [("flash_attn_fwd_d64", 64, 128, 256, False),
                                        ("flash_attn_fwd_causal_d32", 32, 64, 128, True)]:
        for cc in ("sm_80", "sm_90"):
            zh = 2
            q, k, v = (r.uniform(-1, 1, (zh, n_ctx, d)).astype(f16) for _ in range(3))
            sm_scale = 0.5
            s_ = np.einsum("zmd,znd->zmn", q.astype(f64), k.astype(f64)) * sm_scale
            if causal:
                s_ = np.where(np.arange(n_ctx)[:, None] >= np.arange(n_ctx)[None, :], s_, -np.inf)
            p_ = np.exp(s_ - s_.max(-1, keepdims=True))
            o = np.einsum("zmn,znd->zmd", p_ / p_.sum(-1, keepdims=True), v.astype(f64)).astype(f16)
            case(f"triton_{name}_{cc.replace('_', '')}", f"triton/attention_misc.{name}.{cc}.ptx", "attn_fwd_kernel",
                 [n_ctx // bm, zh], [128],
                 [q, k, v, Z("f16", zh * n_ctx * d), S("f32", sm_scale)] + [S("s32", x) for x in (d, d, d, d, n_ctx)] + TRITON_SCRATCH,
                 {3: out(o, "rel:1e-2,abs:2e-3", "softmax(q k^T sm_scale) v in f64; the kernel rounds p to f16 (2^-11 relative), "
                         "uses ex2.approx (2 ulp) and stores f16: well inside 1e-2 relative or 2e-3 absolute")},
                 shared=131072)


def _cases_tensor_triton(r, why):
    """Triton `tl.dot` fixtures on sm_80 (ldmatrix + mma.sync behind cp.async pipelines)."""
    def mm(name, M, N, K, bm, bn, warps, dt_in, dt_out, lo=-4, hi=5, act=None, shared=65536, cc="sm_80", g=None):
        g = g or r
        A = g.integers(lo, hi, (M, K))
        B = g.integers(lo, hi, (K, N))
        d = A.astype(np.int64) @ B.astype(np.int64)
        if dt_in == "bf16":
            ai, bi = to_bf16_bits(A.astype(f32)), to_bf16_bits(B.astype(f32))
        elif dt_in == "e4m3":
            enc = np.vectorize(lambda v: fp8_enc(float(v), "e4m3", True))
            ai, bi = enc(A).astype(u8), enc(B).astype(u8)
        else:
            ai, bi = A.astype(dt_in), B.astype(dt_in)
        if dt_out == i32:
            e = d.astype(i32)
        else:
            e = d.astype(f32)
            if act == "leaky_relu":
                e = np.where(e >= 0, e, f32(0.01) * e).astype(f32)
        if dt_out == "bf16":
            ez, as_ = to_bf16_bits(e), "bf16"
            zout = Z("u16", M * N)
        else:
            ez, as_ = e.astype(dt_out), None
            zout = Z({f16: "f16", f32: "f32", i32: "i32"}[dt_out], M * N)
        grid = [-(-M // bm) * -(-N // bn)]
        cname = f"triton_{name}" + ("" if cc == "sm_80" else "_" + cc.replace("_", ""))
        case(cname, f"triton/matmul.{name}.{cc}.ptx", "matmul_kernel", grid, [warps * 32],
             [ai, bi, zout] + [S("s32", v) for v in (M, N, K, K, 1, N, 1, N, 1)] + TRITON_SCRATCH,
             {2: out(ez, why=why + (" (leaky_relu: one f32 multiply)" if act else ""), as_=as_)}, shared=shared)
    mm("fp16_64x64x32_w4_s2_leaky", 128, 128, 96, 64, 64, 4, f16, f32, act="leaky_relu")
    mm("fp16_128x128x64_w8_s3", 128, 128, 128, 128, 128, 8, f16, f16, shared=131072)
    mm("bf16_128x64x32_w4_s4", 128, 128, 64, 128, 64, 4, "bf16", "bf16", shared=131072)
    mm("tf32_64x64x32_w4_s3", 128, 128, 96, 64, 64, 4, f32, f32)
    mm("int8_64x64x64_w4_s3", 128, 128, 128, 64, 64, 4, i8, i32, lo=-128, hi=128)
    mm("fp16_unaligned_32x64x32_w2", 50, 70, 40, 32, 64, 2, f16, f16)
    # input_precision="ieee": no tensor cores, an f32 FMA chain per element (exact on small
    # integers in any order); sizes that are not multiples of the tile exercise the masks.
    mm("fp32_ieee_32x32x16_w4", 96, 80, 40, 32, 32, 4, f32, f32)
    # sm_90: the same kernels compiled to wgmma (shared-memory descriptors, swizzled layouts,
    # pipelined wait_group); fp8 exists only there. Their own seed keeps the other cases' inputs.
    r90 = rng(90)
    for args in [("fp16_64x64x32_w4_s2_leaky", 128, 128, 96, 64, 64, 4, f16, f32, -4, 5, "leaky_relu", 65536),
                 ("fp16_128x128x64_w8_s3", 128, 128, 128, 128, 128, 8, f16, f16, -4, 5, None, 131072),
                 ("bf16_128x64x32_w4_s4", 128, 128, 64, 128, 64, 4, "bf16", "bf16", -4, 5, None, 131072),
                 ("tf32_64x64x32_w4_s3", 128, 128, 96, 64, 64, 4, f32, f32, -4, 5, None, 65536),
                 ("int8_64x64x64_w4_s3", 128, 128, 128, 64, 64, 4, i8, i32, -128, 128, None, 65536),
                 ("fp8e4m3_128x128x64_w8_s3", 128, 128, 128, 128, 128, 8, "e4m3", f16, -4, 5, None, 131072),
                 ("fp32_ieee_32x32x16_w4", 96, 80, 40, 32, 32, 4, f32, f32, -4, 5, None, 65536)]:
        mm(*args[:9], lo=args[9], hi=args[10], act=args[11], shared=args[12], cc="sm_90", g=r90)
    nb, blk = 3, 32
    a = r.integers(-4, 5, (nb, blk, blk)).astype(f16)
    b = r.integers(-4, 5, (nb, blk, blk)).astype(f16)
    e = np.einsum("bij,bkj->bik", a.astype(f32), b.astype(f32)).astype(f32)
    case("triton_batched_dot_fp16_32", "triton/matmul.batched_dot_fp16_32.sm_80.ptx", "batched_dot_kernel", [nb], [128],
         [a, b, Z("f32", nb * blk * blk)] + TRITON_SCRATCH, {2: out(e, why=why + "; tl.dot(a, tl.trans(b))")}, shared=32768)

    _cases_tensor_clang(r, why)


def _cases_tensor_clang(r, why):
    """clang's WMMA builtins and inline mma.sync/ldmatrix (tensor_async.cu)."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import tc_ref
    fx = "clang19/tensor_async.sm_80.ptx"
    A, B = r.integers(-4, 5, (16, 16)).astype(f16), r.integers(-4, 5, (16, 16)).astype(f16)
    Ab, Bb = r.integers(-4, 5, (16, 16)).astype(f32), r.integers(-4, 5, (16, 16)).astype(f32)
    case("clang19_wmma_builtins", fx, "wmma_builtins", [1], [32],
         [A, B, Z("f32", 256), to_bf16_bits(Ab), to_bf16_bits(Bb), Z("f32", 256)],
         {2: out(A.astype(f32) @ B.astype(f32), why=why + "; __hmma_m16n16k16 (row, row)"),
          5: out(Ab @ Bb, why=why + "; __mma_bf16_m16n16k16")})
    At, Bt = r.integers(-4, 5, (16, 8)).astype(f32), r.integers(-4, 5, (8, 16)).astype(f32)
    dA, dB = r.standard_normal((8, 4)), r.standard_normal((4, 8))
    dd = np.zeros((8, 8))
    for k in range(4):
        dd = fma64(dA[:, k:k + 1], dB[k:k + 1, :], dd)
    case("clang19_wmma_tf32_f64", fx, "wmma_tf32_f64", [1], [32],
         [At, Bt, Z("f32", 256), dA, dB, Z("f64", 64)],
         {2: out(At @ Bt, why=why + "; __mma_tf32_m16n16k8"),
          5: out(dd, why="__dmma_m8n8k4: a fused multiply-add per k, k ascending from C = 0")})
    A, B = r.integers(-4, 5, (16, 16)).astype(f16), r.integers(-4, 5, (16, 8)).astype(f16)
    D = A.astype(f32) @ B.astype(f32)
    e = np.zeros(128, f32)
    for lane in range(32):
        for i in range(4):
            _, rr, cc = tc_ref.frag((16, 8, 16), "c", "f32", lane, i)
            e[lane * 4 + i] = D[rr, cc]
    case("clang19_mma_sync_ldmatrix", fx, "mma_sync_ldmatrix", [1], [32],
         [A.view(u16), B.view(u16), Z("f32", 128)],
         {2: out(e, why=why + "; ldmatrix.x4 (A) and .x2.trans (B, K x N row-major), D stored per lane in fragment order")})


def _tc_mma(shape, at, bt, ct, dt, ra, rb, rc, sat=False, bop=None):
    """One warp's mma.sync on per-lane register lists (ra[lane], rb[lane], rc[lane]), for inputs
    whose results are exact (every generation's model agrees): fragments placed by the PTX
    ISA's layouts (tools/tc_ref.py `frag`), D = A.B + C exactly, returned as per-lane registers."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import tc_ref
    m, n, k = shape

    def val(t, bits):
        if t in ("s8", "u8", "s4", "u4"):
            return tc_ref.int_val(t, bits)
        if t in ("s32", "b1"):
            return bits - (1 << 32) if t == "s32" and bits >> 31 else bits
        if t == "f64":
            return struct.unpack("<d", struct.pack("<Q", bits))[0]
        d = tc_ref.decode(t, bits)
        assert d[0] == "num", (t, hex(bits))
        return float(-d[2] if d[1] else d[2])

    def elems(t, regs, count):
        w = tc_ref.ELEM_BITS[t]
        per = tc_ref.reg_bits(t) // w
        return [(regs[i // per] >> ((i % per) * w)) & ((1 << w) - 1) for i in range(count)]
    na_el, nb_el, nc_el = (tc_ref.per_lane(shape, at, "a"), tc_ref.per_lane(shape, bt, "b"),
                           tc_ref.per_lane(shape, ct, "c"))
    groups = 4 if shape == (8, 8, 4) and at == "f16" else 1  # m8n8k4.f16: four 8x8x4 products
    A = [[[0] * k for _ in range(m)] for _ in range(groups)]
    B = [[[0] * n for _ in range(k)] for _ in range(groups)]
    C = [[[0] * n for _ in range(m)] for _ in range(groups)]
    for lane in range(32):
        for i, x in enumerate(elems(at, ra[lane], na_el)):
            g, rr, cc = tc_ref.frag(shape, "a", at, lane, i)
            A[g][rr][cc] = val(at, x)
        for i, x in enumerate(elems(bt, rb[lane], nb_el)):
            g, rr, cc = tc_ref.frag(shape, "b", bt, lane, i)
            B[g][rr][cc] = val(bt, x)
        for i, x in enumerate(elems(ct, rc[lane], nc_el)):
            g, rr, cc = tc_ref.frag(shape, "c", ct, lane, i)
            C[g][rr][cc] = val(ct, x)
    D = [[[0] * n for _ in range(m)] for _ in range(groups)]
    for g in range(groups):
        for i in range(m):
            for j in range(n):
                if bop == "and":
                    v = C[g][i][j] + sum(A[g][i][x] & B[g][x][j] for x in range(k))
                else:
                    v = C[g][i][j] + sum(A[g][i][x] * B[g][x][j] for x in range(k))
                D[g][i][j] = v
    out_regs = []
    for lane in range(32):
        ev = []
        for i in range(tc_ref.per_lane(shape, dt, "c")):
            g, rr, cc = tc_ref.frag(shape, "c", dt, lane, i)
            v = D[g][rr][cc]
            if dt == "s32":
                v = max(-(1 << 31), min((1 << 31) - 1, v)) if sat else v
                ev.append(v & 0xFFFFFFFF)
            elif dt == "f32":
                assert float(f32(v)) == v
                ev.append(int(np.array([v], f32).view(u32)[0]))
            elif dt == "f16":
                assert float(f16(v)) == v
                ev.append(int(np.array([v], f16).view(u16)[0]))
        out_regs.append(tc_ref.pack(dt, ev))
    return out_regs


def _cases_tensor_fragments(r, why):
    """The fixture kernels that feed mma.sync registers straight from global memory."""
    def f16bits(v):
        return np.asarray(v, f16).view(u16).astype(np.int64)

    def bf16bits(v):
        return (np.asarray(v, f32).view(u32) >> 16).astype(np.int64)
    # mma_bf16_tf32: a/b registers hold bf16 pairs whose low element is 0, so that the same
    # words read as f32 (the tf32 path, after cvt.rna.tf32.f32) are the high element exactly.
    hi_a = r.integers(-4, 5, (32, 4)).astype(f32)
    hi_b = r.integers(-4, 5, (32, 2)).astype(f32)
    a = (bf16bits(hi_a) << 16).astype(u32)
    b = (bf16bits(hi_b) << 16).astype(u32)
    ra = [[int(x) for x in a[l]] for l in range(32)]
    rb = [[int(x) for x in b[l]] for l in range(32)]
    zero = [[0] * 4 for _ in range(32)]
    d = _tc_mma((16, 8, 16), "bf16", "bf16", "f32", "f32", ra, rb, zero)
    d = _tc_mma((16, 8, 8), "bf16", "bf16", "f32", "f32", [x[:2] for x in ra], [x[:1] for x in rb], d)
    d = _tc_mma((16, 8, 8), "tf32", "tf32", "f32", "f32", ra, rb, d)
    d = _tc_mma((16, 8, 4), "tf32", "tf32", "f32", "f32", [x[:2] for x in ra], [x[:1] for x in rb], d)
    case("nvrtc13_mma_bf16_tf32", "nvrtc13/mma_ldmatrix.sm_80.ptx", "mma_bf16_tf32", [1], [32],
         [a.reshape(-1), b.reshape(-1), Z("f32", 128)],
         {2: out(np.array(d, u32).reshape(-1).view(f32), why=why + "; four chained mma (bf16 k16/k8, tf32 k8/k4) on the ISA's fragment layouts")})
    # mma_f16_acc_and_m8n8k4
    a = (f16bits(r.integers(-4, 5, (32, 8))).reshape(32, 4, 2) * np.array([1, 1 << 16])).sum(2).astype(u32)
    b = (f16bits(r.integers(-4, 5, (32, 4))).reshape(32, 2, 2) * np.array([1, 1 << 16])).sum(2).astype(u32)
    ra = [[int(x) for x in a[l]] for l in range(32)]
    rb = [[int(x) for x in b[l]] for l in range(32)]
    d = _tc_mma((16, 8, 16), "f16", "f16", "f16", "f16", ra, rb, [[0, 0] for _ in range(32)])
    d = _tc_mma((16, 8, 8), "f16", "f16", "f16", "f16", [x[:2] for x in ra], [x[:1] for x in rb], d)
    f = _tc_mma((8, 8, 4), "f16", "f16", "f32", "f32", [x[:2] for x in ra], rb, [[0] * 8 for _ in range(32)])
    case("nvrtc13_mma_f16_acc_and_m8n8k4", "nvrtc13/mma_ldmatrix.sm_80.ptx", "mma_f16_acc_and_m8n8k4", [1], [32],
         [a.reshape(-1), b.reshape(-1), Z("u32", 64), Z("f32", 256)],
         {2: out(np.array(d, u32).reshape(-1), why=why + "; f16 accumulators (m16n8k16 then m16n8k8)"),
          3: out(np.array(f, u32).reshape(-1).view(f32), why=why + "; m8n8k4 (four 8x8x4 products on lane quads 0-3/16-19, ...)")})
    # mma_f64_int
    fa, fb, fc = r.standard_normal(32), r.standard_normal(32), r.standard_normal(64)
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import tc_ref
    bits = lambda x: struct.unpack("<Q", struct.pack("<d", float(x)))[0]
    A = [[0.0] * 4 for _ in range(8)]
    B = [[0.0] * 8 for _ in range(4)]
    C = [[0.0] * 8 for _ in range(8)]
    for lane in range(32):
        _, rr, cc = tc_ref.frag((8, 8, 4), "a", "f64", lane, 0)
        A[rr][cc] = fa[lane]
        _, rr, cc = tc_ref.frag((8, 8, 4), "b", "f64", lane, 0)
        B[rr][cc] = fb[lane]
        for i in range(2):
            _, rr, cc = tc_ref.frag((8, 8, 4), "c", "f64", lane, i)
            C[rr][cc] = fc[lane * 2 + i]
    dc = np.zeros(64)
    for lane in range(32):
        for i in range(2):
            _, rr, cc = tc_ref.frag((8, 8, 4), "c", "f64", lane, i)
            dc[lane * 2 + i] = struct.unpack("<d", struct.pack("<Q", tc_ref.dot_f64(
                [bits(A[rr][x]) for x in range(4)], [bits(B[x][cc]) for x in range(4)], bits(C[rr][cc]))))[0]
    ia = r.integers(-2**31, 2**31, 128, dtype=i64).astype(i32)
    ib = r.integers(-2**31, 2**31, 64, dtype=i64).astype(i32)
    ua = [int(x) for x in ia.view(u32)]
    ub = [int(x) for x in ib.view(u32)]
    e = [[0] * 4 for _ in range(32)]
    e = _tc_mma((16, 8, 32), "s8", "s8", "s32", "s32", [ua[l * 4:l * 4 + 4] for l in range(32)],
                [ub[l * 2:l * 2 + 2] for l in range(32)], e, sat=True)
    e = _tc_mma((16, 8, 16), "u8", "s8", "s32", "s32", [[ua[l], ua[l + 32]] for l in range(32)],
                [[ub[l]] for l in range(32)], e)
    e = _tc_mma((16, 8, 64), "s4", "s4", "s32", "s32", [ua[l:l + 4] for l in range(32)],
                [ub[l:l + 2] for l in range(32)], e)
    e = _tc_mma((16, 8, 256), "b1", "b1", "s32", "s32", [ua[l:l + 4] for l in range(32)],
                [ub[l:l + 2] for l in range(32)], e, bop="and")
    case("nvrtc13_mma_f64_int", "nvrtc13/mma_ldmatrix.sm_80.ptx", "mma_f64_int", [1], [32],
         [fa, fb, fc, ia, ib, Z("i32", 128)],
         {2: out(dc, why="m8n8k4.f64: a fused multiply-add per k, k ascending from C"),
          5: out(np.array(e, u32).reshape(-1).view(i32), why="exact integer mma chain: s8 k32 .satfinite, u8.s8 k16, s4 k64, b1 k256 .and.popc (wrapping)")})
    # ldmatrix_variants: pure data movement.
    src = r.integers(0, 1 << 16, 1024).astype(u16)
    rows = src.reshape(128, 8).astype(np.int64)  # row l = the 16 bytes at lane l's address

    def ld(mi, lane, trans):
        M = rows[8 * mi:8 * mi + 8]
        if trans:
            lo, hi = M[2 * (lane % 4)][lane // 4], M[2 * (lane % 4) + 1][lane // 4]
        else:
            lo, hi = M[lane // 4][2 * (lane % 4)], M[lane // 4][2 * (lane % 4) + 1]
        return int(lo) | int(hi) << 16
    res = np.zeros(32, u32)
    for lane in range(32):
        v = ld(0, lane, False) ^ ld(0, lane, True) ^ ld(0, lane, True) ^ ld(1, lane, True)
        for mi in range(4):
            v ^= ld(mi, lane, True)
        v ^= ld(0, lane, True)  # movmatrix.trans of the x1 fragment = the x1.trans fragment
        res[lane] = v
    case("nvrtc13_ldmatrix_variants", "nvrtc13/mma_ldmatrix.sm_80.ptx", "ldmatrix_variants", [1], [32],
         [src, Z("u32", 32)], {1: out(res, why="ldmatrix .x1/.x2/.x4 (.trans) and movmatrix: bit movement, XOR-combined per lane")})


XFAIL = {
}


def cases_textures():
    """fixtures-src/cuda/textures.cu: texture and surface objects made by `ptxvm run --arg tex:/surf:`.
    The filtering is tools/tex_ref.py's implementation of the CUDA Programming Guide's formula
    (9-bit fixed-point weights, address modes on texel indices), independent of ptxvm's code."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import tex_ref
    why = "texture filtering by the documented fixed-point formula (tools/tex_ref.py); coordinates by the PTX's fma.rn/add/mul"
    fx = "nvrtc12/textures.sm_80.ptx"
    src = "fixtures-src/cuda/textures.cu"

    # tex1Dfetch on a border-addressed 1D texture (out-of-range indices read 0, as tex1Dfetch of
    # linear memory does); out = fma.rn(t[i-2], 0.5, t[3i % n]).
    r = rng(131)
    n = 40
    t = (r.integers(-64, 64, n) / 8).astype(f32)
    tx = tex_ref.Tex(t.reshape(n, 1), "point", "border")
    a = np.array([tx.fetch_int([(3 * i) % n, 0, 0])[0] for i in range(n)], f32)
    b = np.array([tx.fetch_int([i - 2, 0, 0])[0] for i in range(n)], f32)
    case("nvrtc12_tex1dfetch", fx, "fetch1d", [1], [64], [T("tex", t, ",address=border"), Z("f32", n), S("s32", n)],
         {1: out(fma32(b, f32(0.5), a), why=why)}, source=src)

    # tex2D<float>, linear: unnormalized with clamp, and normalized with wrap.
    def sample2d(name, tex_arr, opts, tex, w, h, sx, sy):
        o = np.zeros((h, w), f32)
        for y in range(h):
            for x in range(w):
                u = fma32(f32(x) + f32(0.25), sx, f32(-0.5))
                v = fma32(f32(y) + f32(0.75), sy, f32(-0.5))
                o[y, x] = tex.sample([u, v, 0])[0]
        case(name, fx, "sample2d", [2, 2], [8, 8],
             [T("tex", tex_arr, opts), Z("f32", w * h), S("s32", w), S("s32", h), S("f32", repr(float(sx))), S("f32", repr(float(sy)))],
             {1: out(o, why=why)}, source=src)

    arr = (r.integers(-40, 40, (6, 7, 1)) / 4).astype(f32)
    sample2d("nvrtc12_tex2d_linear_clamp", arr, ",filter=linear", tex_ref.Tex(arr, "linear", "clamp"), 10, 9, f32(0.8), f32(0.7))
    arr = (r.integers(-40, 40, (5, 4, 1)) / 4).astype(f32)
    sample2d("nvrtc12_tex2d_linear_wrap_norm", arr, ",filter=linear,address=wrap,normalized",
             tex_ref.Tex(arr, "linear", "wrap", normalized=True), 12, 11, f32(0.1), f32(0.15))

    # tex2D<float4> of u8 RGBA read as normalized floats, linear, mirror, normalized coordinates.
    arr = r.integers(0, 256, (4, 8, 4)).astype(u8)
    tx = tex_ref.Tex(arr, "linear", "mirror", normalized=True, read_float=True)
    w, h, sx, sy = 12, 6, f32(0.125), f32(0.25)
    o = np.zeros((h, w, 4), f32)
    for y in range(h):
        for x in range(w):
            o[y, x] = tx.sample([(f32(x) + f32(0.5)) * sx, (f32(y) + f32(0.5)) * sy, 0])
    case("nvrtc12_tex2d_rgba_u8_mirror", fx, "sample2d_rgba", [2, 1], [8, 8],
         [T("tex", arr, ",filter=linear,address=mirror,normalized,read=float"), Z("f32", w * h * 4), S("s32", w), S("s32", h),
          S("f32", "0.125"), S("f32", "0.25")], {1: out(o, why=why)}, source=src)

    # tex3D<float>, trilinear, clamp.
    arr = (r.integers(-32, 32, (3, 4, 5, 1)) / 8).astype(f32)
    tx = tex_ref.Tex(arr, "linear", "clamp")
    n, s = 60, f32(0.9)
    o = np.zeros(n, f32)
    for i in range(n):
        c = [fma32(f32(i % 5), s, f32(0.1)), fma32(f32(i // 5 % 4), s, f32(0.3)), fma32(f32(i // 20), s, f32(-0.2))]
        o[i] = tx.sample(c)[0]
    case("nvrtc12_tex3d_linear", fx, "sample3d", [1], [64], [T("tex", arr, ",filter=linear"), Z("f32", n), S("s32", n), S("f32", "0.9")],
         {1: out(o, why=why)}, source=src)

    # surf2Dread/surf2Dwrite: out = 2 in(x, y) + in(x-1, y), the left read with cudaBoundaryModeClamp.
    inp = (r.integers(-50, 50, (5, 6, 1)) / 4).astype(f32)
    left = np.concatenate([inp[:, :1], inp[:, :-1]], axis=1)
    o = (f32(2) * inp + left).astype(f32)
    case("nvrtc12_surf2d_blur", fx, "surf_blur", [1, 1], [8, 8], [T("surf", inp), T("surf", np.zeros_like(inp)), S("s32", 6), S("s32", 5)],
         {0: out(inp, why="the input surface is only read"), 1: out(o, why="2*v + l exactly rounded (fma.rn of an exact product)")},
         source=src)
    # The same kernel told the surface is wider than it is: surf2Dread's default mode is trap.
    case("nvrtc12_surf2d_trap", fx, "surf_blur", [1, 1], [8, 8], [T("surf", inp), T("surf", np.zeros_like(inp)), S("s32", 7), S("s32", 5)],
         {}, source=src, error=["suld.b.2d.b32.trap", "surface access out of range at byte x=24", "surf_blur"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--check", action="store_true")
    # the binary: --bin, else $CARGO_TARGET_DIR/debug/ptxvm when that is set, else target/debug/ptxvm
    tdir = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
    ap.add_argument("--bin", default=os.path.join(os.path.join(ROOT, tdir), "debug", "ptxvm"))
    o = ap.parse_args()
    cases_cuda()
    cases_group_a()
    cases_group_c()
    cases_group_d()
    cases_group_b()
    cases_symbols()
    cases_clang()
    cases_numba()
    cases_triton()
    cases_math()
    cases_libmath()
    cases_printf_trap()
    cases_triton_more()
    cases_numba_more()
    cases_tensor()
    cases_tma()
    cases_textures()
    for c in CASES:
        if c.name in XFAIL:
            c.xfail = XFAIL[c.name]
    assert set(XFAIL) <= {c.name for c in CASES}, set(XFAIL) - {c.name for c in CASES}
    only = set(filter(None, o.only.split(",")))
    sel = [c for c in CASES if not only or c.name in only or any(c.name.startswith(p.rstrip("*")) for p in only if p.endswith("*"))]
    if not only and os.path.isdir(OUT):
        for d in os.listdir(OUT):
            if os.path.isdir(os.path.join(OUT, d)):
                shutil.rmtree(os.path.join(OUT, d))
    for c in sel:
        write_case(c)
    print(f"wrote {len(sel)} cases to {os.path.relpath(OUT, ROOT)}")
    if o.check:
        fails = 0
        for c in sel:
            ok, msg = check_case(c, o.bin)
            fails += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {c.name}{' [xfail]' if c.xfail else ''}: {msg}")
            if ok and c.xfail:
                print(f"     ^ STALE XFAIL: {c.name} passes")
        print(f"{len(sel) - fails} ok, {fails} failing")


def write_case(c):
    d = os.path.join(OUT, c.name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    args = []
    for i, a in enumerate(c.args):
        if isinstance(a, S):
            args.append({"scalar": a.spec})
        elif isinstance(a, Z):
            args.append({"zeros": a.spec})
        elif isinstance(a, H):
            args.append({"hex": a.b.hex()})
        elif isinstance(a, (T, TM)):
            if isinstance(a, TM):
                np.save(os.path.join(d, f"in{i}.npy"), a.arr.reshape(-1))
                args.append({"tmap": f"in{i}.npy:{a.rest}"})
            else:
                # The array keeps its shape: it gives the object's extents and channels.
                np.save(os.path.join(d, f"in{i}.npy"), a.arr)
                args.append({a.kind: f"in{i}.npy{a.opts}"})
        else:
            arr = np.ascontiguousarray(a)
            if arr.dtype.kind == "V" or arr.dtype == np.bool_:
                raise TypeError(f"{c.name}: arg {i} dtype {arr.dtype}")
            np.save(os.path.join(d, f"in{i}.npy"), arr.reshape(-1) if arr.ndim != 1 else arr)
            args.append({"npy": f"in{i}.npy"})
    syms = []
    for name, a in c.symbols.items():
        if isinstance(a, Z):
            syms.append({"name": name, "zeros": a.spec})
        else:
            np.save(os.path.join(d, f"sym_{name}.npy"), np.ascontiguousarray(a).reshape(-1))
            syms.append({"name": name, "npy": f"sym_{name}.npy"})
    outs = []
    for i, spec in sorted(c.outputs.items(), key=lambda kv: (isinstance(kv[0], str), kv[0] if isinstance(kv[0], int) else 0, str(kv[0]))):
        e = np.ascontiguousarray(spec["expected"]).reshape(-1)
        np.save(os.path.join(d, f"expected{i}.npy"), e)
        od = {"symbol": i} if isinstance(i, str) else {"arg": i}
        od.update({"expected": f"expected{i}.npy", "mode": spec["mode"], "why": spec["why"]})
        if "bound" in spec:
            b = np.ascontiguousarray(spec["bound"], f64).reshape(-1)
            assert b.shape == e.shape and not np.isnan(b).any() and (b >= 0).all(), c.name
            np.save(os.path.join(d, f"bound{i}.npy"), b)
            od["bound"] = f"bound{i}.npy"
        if "as" in spec:
            od["as"] = spec["as"]
        if "skip" in spec:
            od["skip"] = spec["skip"]
        outs.append(od)
    j = {"fixture": f"{FIX}/{c.fixture}", "kernel": c.kernel, "grid": c.grid, "block": c.block, "shared_mem": c.shared,
         "args": args, "outputs": outs}
    if c.cluster:
        j["cluster"] = list(c.cluster)
    if syms:
        j["symbols"] = syms
    if c.stdout is not None:
        with open(os.path.join(d, "stdout.txt"), "w") as f:
            f.write(c.stdout)
        j["stdout"] = "stdout.txt"
    if c.error is not None:
        assert not outs and c.error, c.name
        j["error"] = list(c.error)
    if c.source:
        j["source"] = c.source
    if c.note:
        j["note"] = c.note
    if c.xfail:
        j["xfail"] = c.xfail
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump(j, f, indent=1)
        f.write("\n")


# ----------------------------------------------------------------------------------------------
# --check: a Python twin of the Rust runner, for iterating on the table


def _as_f64(a, as_):
    if as_ == "bf16":
        return bf16_val(a.view(u16)).astype(f64)
    return a.astype(f64)


def _ord(a, as_):
    if as_ == "bf16" or a.dtype == f16:
        b = a.view(u16).astype(i64); sign = b >> 15; mag = b & 0x7fff
    elif a.dtype == f32:
        b = a.view(u32).astype(i64); sign = b >> 31; mag = b & 0x7fffffff
    elif a.dtype == f64:
        b = a.view(u64); sign = (b >> np.uint64(63)).astype(i64); mag = (b & np.uint64(2**63 - 1)).astype(object)
        return np.where(sign == 1, -mag, mag)
    else:
        return a.astype(object)
    return np.where(sign == 1, -mag, mag).astype(object)


def compare(got, exp, mode, as_=None, bound=None):
    if got.shape != exp.shape or got.dtype != exp.dtype:
        return f"shape/dtype {got.dtype}{got.shape} vs expected {exp.dtype}{exp.shape}"
    if mode == "bound":
        g, e = _as_f64(got, as_), _as_f64(exp, as_)
        with np.errstate(invalid="ignore"):
            bad = ~((g == e) | (np.isnan(g) & np.isnan(e)) | (np.abs(g - e) <= bound))
        if not bad.any():
            return None
        i = int(np.argmax(bad))
        return (f"{int(bad.sum())}/{bad.size} mismatches, first at [{i}]: got {got[i]!r} expected {exp[i]!r} "
                f"(|diff| {abs(g[i] - e[i]):.3g} > bound {bound[i]:.3g}); worst diff/bound {np.nanmax(np.abs(g - e) / np.maximum(bound, 1e-300)):.3g}")
    if mode == "exact":
        bad = got.view(np.uint8).reshape(got.size, -1) != exp.view(np.uint8).reshape(exp.size, -1)
        bad = bad.any(axis=1) if got.size else bad
    elif mode.startswith("ulp:"):
        nulp = int(mode[4:])
        g, e = _ord(got, as_), _ord(exp, as_)
        bad = np.array([abs(int(x) - int(y)) > nulp for x, y in zip(g, e)], bool)
        ge, ee = _as_f64(got, as_), _as_f64(exp, as_)
        bad &= ~(np.isnan(ge) & np.isnan(ee))
    else:
        rel = ab = 0.0
        for part in mode.split(","):
            k, v = part.split(":")
            if k == "rel":
                rel = float(v)
            elif k == "abs":
                ab = float(v)
            else:
                raise ValueError(mode)
        g, e = _as_f64(got, as_), _as_f64(exp, as_)
        with np.errstate(invalid="ignore"):
            bad = ~((np.abs(g - e) <= ab + rel * np.abs(e)) | (g == e) | (np.isnan(g) & np.isnan(e)))
    if not bad.any():
        return None
    i = int(np.argmax(bad))
    return f"{int(bad.sum())}/{bad.size} mismatches, first at [{i}]: got {got[i]!r} expected {exp[i]!r}"


def check_case(c, binary):
    d = os.path.join(OUT, c.name)
    j = json.load(open(os.path.join(d, "case.json")))
    with tempfile.TemporaryDirectory() as td:
        cmd = [binary, "run", os.path.join(ROOT, j["fixture"]), "--kernel", j["kernel"], "--grid", ",".join(map(str, j["grid"])),
               "--block", ",".join(map(str, j["block"])), "--shared-mem", str(j["shared_mem"]), "--out", td]
        if "cluster" in j:
            cmd += ["--cluster", ",".join(map(str, j["cluster"]))]
        for a in j["args"]:
            if "npy" in a:
                cmd += ["--arg", os.path.join(d, a["npy"])]
            elif "scalar" in a:
                cmd += ["--arg", a["scalar"]]
            elif "zeros" in a:
                cmd += ["--arg", "zeros:" + a["zeros"]]
            elif "tmap" in a:
                cmd += ["--arg", "tmap:" + os.path.join(d, a["tmap"])]
            elif "tex" in a or "surf" in a:
                kind = "tex" if "tex" in a else "surf"
                cmd += ["--arg", f"{kind}:" + os.path.join(d, a[kind])]
            else:
                cmd += ["--arg", "hex:" + a["hex"]]
        for sy in j.get("symbols", []):
            spec = os.path.join(d, sy["npy"]) if "npy" in sy else "zeros:" + sy["zeros"]
            cmd += ["--symbol", f"{sy['name']}={spec}"]
        import time
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True)
        dt = time.time() - t0
        msgs, msgs_ok = [], []
        if "stdout" in j:  # line by line; <PTR> matches any %p value
            gl, el = p.stdout.split("\n"), open(os.path.join(d, j["stdout"])).read().split("\n")
            line_ok = lambda g, e: re.fullmatch("0x[0-9a-f]+".join(map(re.escape, e.split("<PTR>"))), g)
            k = next((i for i, (g, e) in enumerate(zip(gl, el)) if not line_ok(g, e)), None)
            if k is None and len(gl) != len(el):
                k = min(len(gl), len(el))
            if k is not None:
                msgs.append(f"stdout line {k + 1}: got {gl[k] if k < len(gl) else None!r}, expected {el[k] if k < len(el) else None!r}")
        if "error" in j:
            if p.returncode == 0:
                msgs.append("the launch succeeded, but the case expects it to fail")
            msgs += [f"diagnostic lacks {fr!r}: {p.stderr.strip()[:300]}" for fr in j["error"] if fr not in p.stderr]
            return not msgs, f"{dt:.2f}s " + "; ".join(msgs)
        if p.returncode != 0:
            return False, f"exit {p.returncode} ({dt:.2f}s): {p.stderr.strip()[:300]}"
        for od in j["outputs"]:
            # Expected arrays are flat; a surface's array keeps its shape (as the Rust runner, compare elements).
            got = np.load(os.path.join(td, f"{od['symbol']}.npy" if "symbol" in od else f"arg{od['arg']}.npy")).reshape(-1)
            exp = np.load(os.path.join(d, od["expected"]))
            bnd = np.load(os.path.join(d, od["bound"])) if "bound" in od else None
            if od.get("skip"):
                keep = np.ones(exp.size, bool)
                keep[od["skip"]] = False
                got, exp = got[keep], exp[keep]
                bnd = bnd[keep] if bnd is not None else None
            m = compare(got, exp, od["mode"], od.get("as"), bnd)
            if m is None and od["mode"] == "bound":
                g, e = _as_f64(got, od.get("as")), _as_f64(exp, od.get("as"))
                with np.errstate(invalid="ignore"):
                    rat = np.abs(g - e) / np.maximum(bnd, 1e-300)
                rat = rat[np.isfinite(rat)]
                msgs_ok.append(f"{od.get('symbol', 'arg' + str(od.get('arg')))} worst diff/bound {rat.max() if rat.size else 0:.3g}")
            if m:
                msgs.append(f"{od.get('symbol', 'arg' + str(od.get('arg')))} ({od['mode']}): {m}")
        return not msgs, (f"{dt:.2f}s " + "; ".join(msgs)) if msgs else f"{dt:.2f}s " + "; ".join(msgs_ok)


def entry_name(fixture):
    t = open(os.path.join(ROOT, FIX, fixture)).read()
    names = re.findall(r"\.entry\s+([\w$]+)\s*\(", t)
    assert len(names) == 1, (fixture, names)
    return names[0]


def cases_group_a():
    """Group A: real-compiler kernels that had no numpy case yet (rng seeds 200..299)."""
    # ---------------- reduce_shared: reduce_sum<128>, reduce_sum<512> ----------------
    r = rng(200)
    n, B, G = 3000, 128, 5  # 3000 is not a multiple of 2*B*G: the grid-stride loop's `i + BLOCK < n` tail is hit
    x = r.standard_normal(n).astype(f32)
    x[:8] = [1e7, -1e7, 3.5e-3, -0.0, 65504.0, 1e-30, -2.5, 7.0]
    case("nvrtc12_reduce_sum128", "nvrtc12/reduce_shared.sm_80.ptx", "_Z10reduce_sumILj128EEvPKfPfj",
         [G], [B], [x, Z("f32", G), S("u32", n)], {1: out(reduce_sum_ref(x, n, B, G), why=WHY_TREE + "; volatile warp steps read before write (lockstep)")})
    n, B, G = 5000, 512, 3
    x = r.standard_normal(n).astype(f32)
    x[100:110] *= f32(1e6)
    case("nvrtc12_reduce_sum512", "nvrtc12/reduce_shared.sm_80.ptx", "_Z10reduce_sumILj512EEvPKfPfj",
         [G], [B], [x, Z("f32", G), S("u32", n)], {1: out(reduce_sum_ref(x, n, B, G), why=WHY_TREE + "; volatile warp steps read before write (lockstep)")})

    # ---------------- matmul_tiled: sgemm_tiled<32> (1024-thread blocks, ragged edges) ----------------
    r = rng(201)
    M, N, K = 40, 50, 45
    A = r.standard_normal((M, K)).astype(f32)
    Bm = r.standard_normal((K, N)).astype(f32)
    C = r.standard_normal((M, N)).astype(f32)
    acc = np.zeros((M, N), f32)
    for k in range(64):  # two 32-wide tiles; k >= K reads zero-padded tiles: fma(0, 0, acc)
        if k < K:
            acc = fma32(A[:, k][:, None], Bm[k][None, :], acc)
        else:
            acc = fma32(f32(0), f32(0), acc)
    e = fma32(acc, f32(0.75), (f32(-1.5) * C).astype(f32))  # mul.f32 C*beta; fma.rn(acc, alpha, .)
    case("nvrtc12_sgemm_tiled32_ragged", "nvrtc12/matmul_tiled.sm_80.ptx", "_Z11sgemm_tiledILi32EEvPKfS1_Pfiiiff", [2, 2], [32, 32],
         [A, Bm, C.copy(), S("s32", M), S("s32", N), S("s32", K), S("f32", "0.75"), S("f32", "-1.5")],
         {2: out(e, why=WHY_FMA + "; k-sequential fma chain over zero-padded 32x32 tiles, 1024-thread blocks")})

    # ---------------- templates ----------------
    r = rng(202)
    fx = "nvrtc12/templates.sm_80.ptx"
    n = 1000
    x = r.standard_normal(n)
    y = r.standard_normal(n)
    x[:4] = [0.0, -0.0, 1e308, 5e-324]
    y[:4] = [-0.0, -0.0, 1e308, 1.0]
    with np.errstate(over="ignore"):
        e = fma64(0.75, x, (-1.25 * y))  # mul.f64 y*b; fma.rn.f64(x, a, .)
    case("nvrtc12_axpby_lambda_f64", fx, "_Z12axpby_lambdaIdEviT_PKS0_S0_PS0_", [2], [128],
         [S("s32", n), S("f64", "0.75"), x, S("f64", "-1.25"), y.copy()],
         {4: out(e, why=WHY_FMA + "; lambda in a template, grid-stride loop; edge rows: signed zeros, overflow to -inf, subnormal")})
    xi = r.integers(-2**31, 2**31, n, dtype=i64).astype(i32)
    yi = r.integers(-2**31, 2**31, n, dtype=i64).astype(i32)
    xi[:3] = [2**31 - 1, -2**31, 0]
    yi[:3] = [2**31 - 1, -2**31, -1]
    e = wrap32(xi.astype(i64) * 7 + yi.astype(i64) * -3)
    case("nvrtc12_axpby_lambda_i32", fx, "_Z12axpby_lambdaIiEviT_PKS0_S0_PS0_", [2], [128],
         [S("s32", n), S("s32", 7), xi, S("s32", -3), yi.copy()],
         {4: out(e, why="wrapping i32 mul.lo/mad.lo")})
    n, B, G = 3000, 256, 3
    x = r.standard_normal(n).astype(f32)
    part = np.full(G * B, f32(0))
    for j in range(n):  # acc = acc + in[i] starting from identity, i = tid, tid + B*G, ...
        part[j % (G * B)] = f32(part[j % (G * B)] + x[j])
    part = part.reshape(G, B)
    st = B // 2
    while st:
        part[:, :st] = part[:, :st] + part[:, st:2 * st]
        st //= 2
    case("nvrtc12_block_reduce_f32_add", fx, "_Z12block_reduceIf3AddIfELi256EEvPKT_PS2_iS2_", [G], [B],
         [x, Z("f32", G), S("s32", n), S("f32", "0.0")], {1: out(part[:, 0].copy(), why=WHY_TREE + " (__syncthreads tree)")})
    n, B, G = 700, 64, 4
    xi = (r.integers(-40, 40, n) * 2 + 1).astype(i32)  # odd factors keep the wrapped product nonzero
    xi[5] = -1
    xi[7] = 2**31 - 1
    part = np.ones(G * B, i64)
    for j in range(n):
        part[j % (G * B)] = (part[j % (G * B)] * int(xi[j])) & 0xffffffff
    prod = [1] * G
    for blk in range(G):
        for v in part[blk * B:(blk + 1) * B]:
            prod[blk] = (prod[blk] * int(v)) & 0xffffffff
    case("nvrtc12_block_reduce_i32_mul", fx, "_Z12block_reduceIi3MulIiELi64EEvPKT_PS2_iS2_", [G], [B],
         [xi, Z("i32", G), S("s32", n), S("s32", 1)], {1: out(wrap32(prod), why="wrapping i32 mul.lo (associative and commutative mod 2^32, so the tree order does not matter)")})
    x = r.uniform(-3, 3, 512).astype(f32)
    x[:3] = [0.0, -1.0, 1e10]
    p = (x + f32(1)).astype(f32)  # Poly<1> folded to add.f32 x + 1
    p = fma32(x, p, f32(2))
    p = fma32(x, p, f32(3))
    case("nvrtc12_horner3_template", fx, "_Z6hornerILi3EEvPKfPfi", [2], [256],
         [x, Z("f32", 500), S("s32", 500)], {1: out(p[:500], why=WHY_FMA + "; add.f32 then two fma.rn")})
    # convert<To, From>
    xf = (r.standard_normal(512) * 100).astype(f32)
    xf[:10] = [0.0, -0.0, np.inf, -np.inf, 1e-45, -1.1754942e-38, 3.4028235e38, 1.17549435e-38, 1e-40, -7.25]
    case("nvrtc12_convert_f32_to_f64", fx, "_Z7convertIdfEvPKT0_PT_i", [2], [256],
         [xf, Z("f64", 512), S("s32", 512)], {1: out(xf.astype(f64), why="cvt.f64.f32 is exact (subnormals kept: no .ftz), infinities and signed zeros")})
    xf = (r.standard_normal(512) * 3000).astype(f32)
    edge = [0.0, -0.0, 65504.0, 65519.996, 65520.0, -65520.0, 1e9, np.inf, -np.inf,
            5.9604645e-08, 2.9802322e-08, 2.9802326e-08, 8.940697e-08, 6.097555e-05, 1.0009765625, 1.00146484375, 2049.0, 2051.0, -3e-9]
    xf[:len(edge)] = edge
    with np.errstate(over="ignore"):
        h = xf.astype(f16)
    case("nvrtc12_convert_f32_to_f16", fx, "_Z7convertI6__halffEvPKT0_PT_i", [2], [256],
         [xf, Z("f16", 512), S("s32", 512)], {1: out(h, why="cvt.rn.f16.f32: ties to even, overflow to inf, f16 subnormals and underflow to signed zero")})
    xi = r.integers(-2**31, 2**31, 512, dtype=i64).astype(i32)
    xi[:8] = [2**31 - 1, -2**31, 16777217, 16777219, -16777219, 33554435, 0, -1]
    case("nvrtc12_convert_s32_to_f32", fx, "_Z7convertIfiEvPKT0_PT_i", [2], [256],
         [xi, Z("f32", 512), S("s32", 512)], {1: out(xi.astype(f64).astype(f32), why="cvt.rn.f32.s32: one rounding (s32 -> f64 is exact), ties to even above 2^24")},
         note="the brief's convert<int,float> has no instantiation; templates.cu instantiates convert<float,int> (int -> float), covered here")
    xf = r.uniform(-20, 300, 512).astype(f32)
    edge = [0.0, -0.0, 0.999, 255.9, 256.0, 300.7, -0.5, -3.5, np.nan, np.inf, -np.inf, 1e10, 4294967040.0, 65791.0]
    xf[:len(edge)] = edge
    v = np.nan_to_num(xf.astype(f64), nan=0.0, posinf=2**32 - 1, neginf=0.0)
    v = np.clip(np.trunc(v), 0, 2**32 - 1).astype(np.uint64)
    case("nvrtc12_convert_f32_to_u8", fx, "_Z7convertIhfEvPKT0_PT_i", [2], [256],
         [xf, Z("u8", 512), S("s32", 512)], {1: out((v & 0xff).astype(u8), why="cvt.rzi.u32.f32 (truncates; saturates: negative and NaN -> 0, >= 2^32 -> 0xffffffff) then st.global.u8 keeps the low byte")},
         note="out-of-range float -> unsigned char is undefined in C++; the expected values follow the PTX NVRTC emitted (cvt.rzi.u32.f32 + st.u8)")
    xu = r.integers(0, 2**32, 512, dtype=u64).astype(u32)
    xu[:4] = [0, 0xffffffff, 0x80000000, 0x7fffffff]
    case("nvrtc12_convert_u32_to_s64", fx, "_Z7convertIxjEvPKT0_PT_i", [2], [256],
         [xu, Z("i64", 512), S("s32", 512)], {1: out(xu.astype(i64), why="ld.global.u32 zero-extends into a 64-bit register")})
    case("nvrtc12_namespaced_kernel", fx, "_ZN2ns5inner17namespaced_kernelEPi", [1], [96],
         [Z("i32", 96)], {0: out((np.arange(96) * 2).astype(i32), why=WHY_INT + "; nested-namespace mangled entry")})

    # ---------------- atomics ----------------
    r = rng(210)
    fx = "nvrtc12/atomics.sm_80.ptx"
    G, B = 2, 128
    nt = G * B
    f0 = np.array([1.5, -7.0, 3.0], f32)
    d0 = np.array([-2.0, 0.5])
    ef = np.array([1.5 + 0.375 * nt, 0.375, 3.0 + nt], f32)  # add, exch (every thread writes fv), counter
    olds = 3.0 + np.arange(nt)  # atom.add 1.0 returns 3, 4, ..., in some order: the set is fixed
    ed = np.array([-2.0 + 0.0625 * nt, 0.5 + olds[olds > 10].sum()])
    case("nvrtc12_atomics_float", fx, "atomics_float", [G], [B],
         [f0.copy(), d0.copy(), S("f32", "0.375"), S("f64", "0.0625")],
         {0: out(ef, why=WHY_DYADIC + "; exch slot: every thread stores the same fv"),
          1: out(ed, why=WHY_DYADIC + "; d[1] sums the returned counter values > 10 (integers 11..258, a fixed set in any order)")})
    B = 200
    g0 = np.array([10, -5, 150, 0, 77], i32)
    case("nvrtc12_atomics_scoped", fx, "atomics_scoped", [1], [B],
         [g0.copy(), np.array([0.25, -1.0], f32)],
         {0: out(np.array([10 + B, -5 + B, B - 1, 1, 5], i32), why="atom.cta/.sys add, max.s32 of threadIdx.x, cas 0->1, exch"),
          1: out(np.array([0.25 + 0.5 * B, -1.0 + 0.25 * B], f32), why=WHY_DYADIC)},
         note="one CTA: .cta-scoped atomics from different CTAs on one address would race under the PTX memory model")
    G, B = 3, 40
    u0 = np.array([(1 << 63) | (1 << 50) | 2], u64)
    case("nvrtc12_reductions_no_return", fx, "reductions_no_return", [G], [B],
         [np.array([-100], i32), np.array([0.5], f32), u0.copy()],
         {0: out(np.array([-100 + G * B], i32), why="atom.add.u32 with unused result"),
          1: out(np.array([0.5 + 2.0 * G * B], f32), why=WHY_DYADIC),
          2: out(u0 | u64((1 << B) - 1), why="atom.or.b64 of 1 << (tid & 63)")},
         note="NVRTC 12 emits atom.* (result unused), not red.*, for this kernel")

    # ---------------- atomic_cas_loops ----------------
    r = rng(211)
    fx = "nvrtc12/atomic_cas_loops.sm_80.ptx"
    nt = 128
    init = r.integers(0, 2**16, nt, dtype=u64).astype(u16)
    cmp, val = 0x1234, 0xbeef
    init[r.random(nt) < 0.4] = cmp
    init[:3] = [cmp, val, 0]
    case("nvrtc12_cas16", fx, "cas16", [1], [nt], [init.copy(), S("u16", cmp), S("u16", val)],
         {0: out(np.where(init == cmp, u16(val), init).astype(u16), why="atom.global.cas.b16, one slot per thread")})
    n, B = 200, 64
    ks = np.zeros(n, i64)
    nz = [4, -2, -2, 1, 2, 3, -1, 5, 4, -2, 6, 1]  # factors 1 + k/4 (k = -3 would round: 0.25 + 1 ulp): small odd parts, so every partial product is exact
    ks[r.choice(n, len(nz), replace=False)] = nz
    x = (ks * 250000).astype(f32)
    fac = fma64(x.astype(f64), 1e-6, 1.0)  # cvt.f64.f32; fma.rn.f64(x, 1e-6, 1.0)
    assert np.array_equal(fac, 1 + ks / 4), "factors must be exact dyadics"
    prod = Fraction(3)
    for v in fac:
        prod *= Fraction(float(v))
    assert prod.numerator < 2**53 and Fraction(float(prod)) == prod
    fmax0, fmin0 = np.array([-np.inf], f32), np.array([np.inf], f32)
    case("nvrtc12_cas_loops", fx, "cas_loops", [4], [B],
         [fmax0.copy(), np.array([3.0]), fmin0.copy(), x, S("s32", n)],
         {0: out(np.array([x.max()], f32), why="float max by a CAS loop: exact, order-independent"),
          1: out(np.array([float(prod)]), why="f64 product by a CAS loop; factors 1 + k/4 with small odd parts, so every partial product is exact and the schedule cannot change the bits"),
          2: out(np.array([x.min()], f32), why="float min via atom.min.s32 (x >= 0) / atom.max.u32 (x < 0): exact, order-independent")},
         note="inputs are k*250000 so fma(x, 1e-6, 1) = 1 + k/4 exactly; most are +0 (factor 1, no signed-zero ties in max/min)")
    G, B = 2, 64
    nt = G * B
    k = r.integers(-3, 4, nt)
    x = (k / 4).astype(f32)
    h20 = np.array([0.5, -1.25], f16)
    h0 = np.array([2.0], f16)
    b20 = np.array([1.0, -0.5])
    b0 = np.array([0.25])
    worst = max(x[x > 0].sum(), -x[x < 0].sum())
    assert worst + 2 < 64  # bf16 (8-bit significand): multiples of 1/4 are exact below 64; 2v multiples of 1/2 below 128
    xs = x.astype(f64)
    case("nvrtc12_half_atomics", fx, "half_atomics", [G], [B],
         [h20.copy(), h0.copy(), to_bf16_bits(b20), to_bf16_bits(b0), x],
         {0: out(np.array([0.5 + xs.sum(), -1.25 - xs.sum()], f16), why=WHY_DYADIC + "; atom.add.noftz.f16x2 of (v, -v)"),
          1: out(np.array([2.0 + xs.sum()], f16), why=WHY_DYADIC + "; atom.add.noftz.f16"),
          2: out(to_bf16_bits([1.0 + xs.sum(), -0.5 + 2 * xs.sum()]), why=WHY_DYADIC + "; bf16x2 add by a CAS loop (fma.rn.bf16x2 x*1+old, atom.cas.b32)", as_="bf16"),
          3: out(to_bf16_bits([0.25 + xs.sum()]), why=WHY_DYADIC + "; bf16 add by a 16-bit CAS loop (fma.rn.bf16, atom.cas.b16)", as_="bf16")},
         note="v = k/4 with |k| <= 3: all partial sums stay exact in f16 and bf16 whatever the order")

    # ---------------- int_intrinsics: bit_ops ----------------
    r = rng(220)
    n = 300
    xa = r.integers(0, 2**32, n, dtype=u64).astype(u32)
    yb = r.integers(0, 2**64, n, dtype=u64)
    xa[:8] = [0, 0xffffffff, 0x80000000, 1, 0x7fffffff, 0x00ff0000, 17, 99]
    yb[:8] = [0, 2**64 - 1, 1 << 63, 1, 0x00000000ffffffff, 0xffffffff00000000, 0x0000000100000000, 0x8000000000000001]
    M32, M64 = 0xffffffff, 2**64 - 1

    def s32(v):
        v &= M32
        return v - 2**32 if v >= 2**31 else v

    def brev(v, bits):
        return int(format(v, f"0{bits}b")[::-1], 2)

    def ffs(v):
        return (v & -v).bit_length()

    def byte_perm(x, y, s):
        src = x | (y << 32)
        return sum(((src >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k) for k in range(4))

    def fsl(lo, hi, sh):
        return (((hi << 32) | lo) << sh >> 32) & M32

    def fsr(lo, hi, sh):
        return (((hi << 32) | lo) >> sh) & M32

    def s24(v):
        v &= 0xffffff
        return v - 2**24 if v >= 2**23 else v
    o = np.zeros(n, u32)
    for idx in range(n):
        x, y = int(xa[idx]), int(yb[idx])
        xs = s32(x)
        rr = bin(x).count("1") + bin(y).count("1") + (32 - x.bit_length()) + (64 - y.bit_length()) + ffs(x) + ffs(y)
        rr ^= brev(x, 32) ^ (brev(y, 64) & M32)
        rr += byte_perm(x, y & M32, 0x5140)
        rr += fsl(x, y & M32, 7) + fsr(x, y >> 32, x & 31) + fsl(x, x, min(40, 32))  # shf.l.clamp: shift clamped to 32
        rr += (x * 0x9E3779B9 >> 32) + ((y * 0x9E3779B97F4A7C15 >> 64) & M32) + ((xs * -7) >> 32)
        rr += (x & 0xffffff) * 3 + s24(x) * -3 + abs(xs - 17) + 5 + abs(x - 99) + 1
        rr += ((x + 5) >> 1) + ((x + 9 + 1) >> 1) + ((xs - 1) >> 1) + ((xs + 3 + 1) >> 1)  # (r)hadd: 33-bit sums, floor shifts
        rr &= M32
        bfe = (x >> 4) & 0xff
        bfi = (rr & ~(0xf << 8)) | ((x & 0xf) << 8)
        o[idx] = (rr + bfe + bfi) & M32
    case("nvrtc12_bit_ops", "nvrtc12/int_intrinsics.sm_80.ptx", "bit_ops", [2], [256],
         [xa, yb, Z("u32", n), S("s32", n)],
         {2: out(o, why="popc/clz/ffs/brev (32 and 64 bit), byte_perm, funnel shifts (wrap and clamp), mulhi 32/64/signed, mul24, sad, (r)hadd, bfe/bfi; CUDA Math API definitions in Python integers, wrapping u32 sum")})

    # ---------------- sparse_graph: spmv_csr_vector, bfs_expand ----------------
    r = rng(221)
    rows_, ncol = 37, 300
    nnz_per = r.integers(0, 90, rows_)
    nnz_per[:3] = [0, 1, 64]  # empty row, single entry, exactly two passes of 32 lanes
    rowptr = np.concatenate([[0], np.cumsum(nnz_per)]).astype(i32)
    colsi = r.integers(0, ncol, rowptr[-1]).astype(i32)
    vals = r.standard_normal(rowptr[-1])
    xv = r.standard_normal(ncol)
    yv = np.zeros(rows_)
    for rr_ in range(rows_):
        lanes = np.zeros(32)
        for k in range(rowptr[rr_], rowptr[rr_ + 1]):  # lane k % 32 accumulates k, k+32, ... in order
            ln = (k - rowptr[rr_]) % 32
            lanes[ln] = fma64(vals[k], xv[colsi[k]], lanes[ln])[()]
        for off in (16, 8, 4, 2, 1):  # shfl.down: lanes whose source is >= 32 add their own value
            src = np.arange(32) + off
            lanes = lanes + np.where(src < 32, lanes[np.minimum(src, 31)], lanes)
        yv[rr_] = lanes[0]
    case("nvrtc12_spmv_csr_vector", "nvrtc12/sparse_graph.sm_80.ptx", "spmv_csr_vector", [5], [256],
         [rowptr, colsi, vals, xv, Z("f64", rows_), S("s32", rows_)],
         {4: out(yv, why=WHY_FMA + "; warp per row, lane-strided fma.rn.f64 chains, shfl.down tree (both 32-bit halves) in its order")})
    nv = 400
    deg = r.integers(0, 9, nv)
    g_rowptr = np.concatenate([[0], np.cumsum(deg)]).astype(i32)
    g_cols = r.integers(0, nv, g_rowptr[-1]).astype(i32)
    dist = np.full(nv, -1, i32)
    visited = r.choice(nv, 120, replace=False)
    dist[visited] = r.integers(0, 3, 120)
    level = 2
    frontier = visited[dist[visited] == level].astype(i32)
    fsize = len(frontier)
    ed = dist.copy()
    found = set()
    for u in frontier:
        for k in range(g_rowptr[u], g_rowptr[u + 1]):
            v = int(g_cols[k])
            if ed[v] == -1:
                ed[v] = level + 1
                found.add(v)
    ns0 = 3
    nxt = np.full(nv, -7, i32)
    case("nvrtc12_bfs_expand", "nvrtc12/sparse_graph.sm_80.ptx", "bfs_expand", [1], [64],
         [g_rowptr, g_cols, frontier, S("s32", fsize), dist.copy(), nxt.copy(), np.array([ns0], i32), S("s32", level)],
         {4: out(ed, why="atom.cas -1 -> level+1: every unvisited neighbour of the frontier gets level+1 whichever thread wins"),
          5: dict(out(nxt, why="slots [next_size0, next_size) hold the discovered vertices in atomicAdd order (schedule-dependent, skipped); the untouched sentinels before and after are compared"),
                  skip=list(range(ns0, ns0 + len(found)))),
          6: out(np.array([ns0 + len(found)], i32), why="one atomicAdd per newly discovered vertex")},
         note=f"frontier has {fsize} vertices (one thread each); the order of next[] is schedule-dependent, so only dist, next_size and the untouched part of next are compared")

    # ---------------- sorting: bitonic_step_global ----------------
    r = rng(222)
    n, B = 1024, 128
    keys = r.integers(0, 200, n, dtype=u64).astype(u32)  # many equal keys: equal pairs swap when the direction is descending
    keys[:2] = [0xffffffff, 0]
    valsu = np.arange(n, dtype=u32) * 7 + 1
    j, kk = 256, 512  # partner i ^ 256 lies in another CTA
    ek, ev = keys.copy(), valsu.copy()
    for i in range(n):
        ixj = i ^ j
        if ixj > i:
            up = (i & kk) == 0
            a_, b_ = int(keys[i]), int(keys[ixj])
            if (a_ > b_) == up:
                ek[i], ek[ixj] = b_, a_
                ev[i], ev[ixj] = valsu[ixj], valsu[i]
    case("nvrtc12_bitonic_step_global", "nvrtc12/sorting.sm_80.ptx", "bitonic_step_global", [n // B], [B],
         [keys.copy(), valsu.copy(), S("u32", j), S("u32", kk)],
         {0: out(ek, why="one compare-exchange step on disjoint pairs (cross-CTA partners)"), 1: out(ev, why="payload follows the keys")})

    # ---------------- scan: compact_positive ----------------
    r = rng(223)
    n = 110  # 4 warps, last one partial (i >= n is not kept)
    x = -np.abs(r.standard_normal(n)).astype(f32)  # warps 0, 2, 3 keep nothing: only warp 1 calls atomicAdd
    x[0] = 0.0
    x[1] = np.nan
    w1 = r.standard_normal(32).astype(f32)
    w1[:6] = [0.0, -0.0, 1e-45, np.nan, np.inf, -np.inf]  # setp.gt.f32 (no .ftz): only the subnormal and +inf are kept
    x[32:64] = w1
    c0 = 5
    keep = x > 0
    eo = np.zeros(n + c0, f32)
    eo[c0:c0 + keep.sum()] = x[keep]
    case("nvrtc12_compact_positive", "nvrtc12/scan.sm_80.ptx", "compact_positive", [1], [128],
         [x, Z("f32", n + c0), np.array([c0], u32), S("s32", n)],
         {1: out(eo, why="ballot + popc ranks, one atomicAdd per warp, base broadcast by shfl.idx"),
          2: out(np.array([c0 + keep.sum()], u32), why=WHY_INT)},
         note="only one warp has positive values, so the output order does not depend on the order of the warps' atomicAdds")

    # ---------------- convolution_const: globals_and_volatile ----------------
    tbl = np.array([1, 2, 3, 5, 8, 13, 21, 34], f32)
    case("nvrtc12_globals_and_volatile", "nvrtc12/convolution_const.sm_80.ptx", "globals_and_volatile", [1], [64],
         [Z("f32", 64)], {0: out((f32(2.5) * tbl[np.arange(64) & 7]).astype(f32), why="initialised __device__ globals (g_scale, g_table); other warps spin on a volatile flag set by thread 0")},
         note="one CTA: the spin on g_flag needs the setting CTA to be co-resident")

    # ---------------- dynamic_shared: dyn_smem_vec4 ----------------
    r = rng(224)
    B, G = 64, 3
    n4 = 2 * B + 40
    x = r.standard_normal((n4, 4)).astype(f32)
    eo = np.zeros((n4, 4), f32)
    skip = []
    for i in range(n4):
        t, base = i % B, i - i % B
        src = base + (t + 3) % B
        if src < n4:
            eo[i] = x[src][::-1]
        else:
            skip += list(range(4 * i, 4 * i + 4))
    case("nvrtc12_dyn_smem_vec4", "nvrtc12/dynamic_shared.sm_80.ptx", "dyn_smem_vec4", [G], [B],
         [x, Z("f32", 4 * n4), S("s32", n4)],
         {1: dict(out(eo, why="float4 through dynamic shared memory (v4 loads/stores), rotated and reversed; the skipped elements read shared slots no thread of the partial last CTA wrote (undefined)"), skip=skip)},
         shared=B * 16)


def cases_symbols():
    """Kernels that read or write module variables: `ptxvm run --symbol NAME=SPEC` fills
    `__constant__`/`__device__` variables before the launch (cudaMemcpyToSymbol) and dumps
    them after it."""
    r = rng(600)
    # conv1d_const: acc = fma(c_kernel[k], tile[t+k], acc) for k < klen, from 0 (PTX order).
    n, B, klen = 1000, 128, 7
    x = r.standard_normal(n).astype(f32)
    ck = np.zeros(31, f32)
    ck[:klen] = r.standard_normal(klen).astype(f32)
    rr = klen // 2
    xp = np.concatenate([np.zeros(rr, f32), x, np.zeros(rr + B, f32)])
    acc = np.zeros(n, f32)
    for k in range(klen):
        acc = fma32(np.full(n, ck[k]), xp[np.arange(n) + k], acc)
    G = (n + B - 1) // B
    case("nvrtc12_conv1d_const", "nvrtc12/convolution_const.sm_80.ptx", "conv1d_const", [G], [B],
         [x, Z("f32", n), S("s32", n), S("s32", klen)],
         {1: out(acc, why="fma.rn chain over a __constant__ kernel set with --symbol, zero-padded halo")},
         shared=(B + 2 * rr) * 4, symbols={"c_kernel": ck})
    # conv2d_5x5_const: clamped 5x5 window, row-major fma chain from 0, then
    # fma(acc, (float)c_params[0], (float)c_params[1]).
    w, h = 37, 21
    img = r.standard_normal((h, w)).astype(f32)
    k2 = r.standard_normal((5, 5)).astype(f32)
    params = np.array([3, -2, 0, 0], i32)
    ys, xs = np.mgrid[0:h, 0:w]
    acc = np.zeros((h, w), f32)
    for ky in range(5):
        for kx in range(5):
            t = img[np.clip(ys + ky - 2, 0, h - 1), np.clip(xs + kx - 2, 0, w - 1)]
            acc = fma32(np.full((h, w), k2[ky, kx]), t, acc)
    o = fma32(acc, np.full((h, w), f32(params[0])), np.full((h, w), f32(params[1])))
    case("nvrtc12_conv2d_5x5_const", "nvrtc12/convolution_const.sm_80.ptx", "conv2d_5x5_const",
         [(w + 15) // 16, (h + 15) // 16], [16, 16],
         [img.reshape(-1), Z("f32", w * h), S("s32", w), S("s32", h)],
         {1: out(o.reshape(-1), why="clamped 5x5 stencil: fma.rn chain over __constant__ weights and params set with --symbol")},
         symbols={"c_kernel2d": k2.reshape(-1), "c_params": params})
    # spin_lock_increment: lane 0 of every warp takes a global spin lock `iters` times and
    # increments g_counter under it: g_counter = warps * iters, g_lock released (0).
    G, B, iters = 3, 96, 5
    case("nvrtc12_spin_lock_increment", "nvrtc12/atomic_cas_loops.sm_80.ptx", "spin_lock_increment", [G], [B],
         [S("s32", iters)],
         {"g_counter": out(np.array([G * (B // 32) * iters], i32), why="critical section under an atomicCAS spin lock across CTAs"),
          "g_lock": out(np.array([0], i32), why="the lock is released")},
         symbols={"g_counter": np.array([0], i32), "g_lock": np.array([0], i32)})

def cases_clang():
    r = rng(20)
    n = 1000
    a = r.standard_normal(n).astype(f32)
    b = r.standard_normal(n).astype(f32)
    case("clang19_vec_add", "clang19/basics.sm_80.ptx", "vec_add", [4], [256], [a, b, Z("f32", n), S("s32", n)],
         {2: out(a + b, why="f32 add")})
    case("clang19_saxpy_O0", "clang19/basics.sm_80.O0.ptx", "saxpy", [2], [128], [S("s32", n), S("f32", "0.625"), a, b.copy()],
         {3: out(fma32(f32(0.625), a, b), why=WHY_FMA + " (explicit fmaf, -O0 code)")})
    x = (r.integers(-1000, 1000, 700) / 16).astype(f32)
    case("clang19_reduce256_atomic", "clang19/basics.sm_90.ptx", "_Z6reduceILi256EEvPKfPfi", [3], [256],
         [x, Z("f32", 1), S("s32", 700)], {1: out(np.array([x.astype(f64).sum()], f32), why=WHY_DYADIC)})
    xd = r.standard_normal(512)
    case("clang19_dyn_shared_reverse", "clang19/basics.sm_70.ptx", "dyn_shared_reverse", [4], [128],
         [xd, Z("f64", 512)], {1: out(xd.reshape(4, 128)[:, ::-1].reshape(-1).copy(), why="dynamic shared f64")}, shared=128 * 8)
    w, h = 50, 70
    im = r.standard_normal((h, w)).astype(f32)
    case("clang19_transpose_g", "clang19/basics.sm_80.g.ptx", "transpose", [2, 3], [32, 32],
         [im, Z("f32", w * h), S("s32", w), S("s32", h)], {1: out(im.T.copy(), why="data movement, ragged edges, -g code")})
    n = 64
    inp = r.integers(0, 1000, n).astype(i32)

    def fib(k):
        return k if k < 2 else fib(k - 1) + fib(k - 2)
    e = np.array([fib(int(v) & 15) + math.factorial(int(v) & 7) for v in inp], i64)
    case("clang19_recursion", "clang19/calls_recursion.sm_80.ptx", "recursion", [2], [32],
         [inp, Z("i64", n), S("s32", n)], {1: out(e, why="recursive .func calls (fib up to 15)")})
    nt = 32
    xi = r.integers(-500, 500, nt * 24).astype(i32)
    case("clang19_local_sort_O0", "clang19/calls_recursion.sm_80.O0.ptx", "local_sort", [1], [nt],
         [xi, Z("i32", nt * 24)], {1: out(np.sort(xi.reshape(nt, 24), axis=1).reshape(-1), why="recursive quicksort on a local array, -O0 code")})
    n = 256
    a = r.standard_normal(n).astype(f32)
    b = r.standard_normal(n).astype(f32)
    sel = r.integers(0, 100, n).astype(i32)
    e = np.select([sel % 3 == 0, sel % 3 == 1], [a + b, a * b], np.fmax(a, b)).astype(f32)
    case("clang19_indirect_calls", "clang19/calls_recursion.sm_90.ptx", "indirect_calls", [1], [256],
         [a, b, sel, Z("f32", n), S("s32", n)], {3: out(e, why="calls through a global function-pointer table")})
    idx = r.integers(0, 1000, 100).astype(i32)
    hist = np.bincount(idx & 31, minlength=32).astype(f32)
    case("clang19_local_dynamic", "clang19/calls_recursion.sm_70.ptx", "local_dynamic", [1], [64],
         [idx, Z("f32", 64), S("s32", 100)], {1: out(np.tile(hist, 2), why="dynamically indexed local array, f32 counts (exact)")})
    n = 1000
    a = r.standard_normal(n).astype(f32)
    b = r.standard_normal(n).astype(f32)
    case("clang19_c_vec_add_O0", "clang19/c_kernels.sm_80.O0.ptx", "c_vec_add", [4], [256],
         [a, b, Z("f32", n), S("s32", n)], {2: out(a + b, why="plain C kernel (nvptx_kernel), -O0")})
    x = r.integers(-256, 256, n) / 16.0
    y = r.integers(-256, 256, n) / 16.0
    case("clang19_c_dot_atomic", "clang19/c_kernels.sm_80.ptx", "c_dot_atomic", [4], [256],
         [x, y, Z("f64", 1), S("s32", n)], {2: out(np.array([float(np.dot(x, y))]), why=WHY_DYADIC)})
    n = 200

    def collatz(v):
        s = 0
        while v != 1 and s < 1000:
            v = 3 * v + 1 if v & 1 else v // 2
            s += 1
        return s
    case("clang19_c_collatz", "clang19/c_kernels.sm_90.ptx", "c_collatz", [2], [128],
         [Z("i32", n), S("s32", n)], {0: out(np.array([collatz(i + 1) for i in range(n)], i32), why="data-dependent loop in a noinline C function")})
    pa, pb = f32(1.25), 3
    loc = (pa * np.arange(8, dtype=f32)).astype(f32)
    case("clang19_c_struct", "clang19/c_kernels.sm_70.ptx", "c_struct", [2], [64],
         [H(struct.pack("<fi", pa, pb)), Z("f32", 128)], {1: out(loc[(np.arange(128) + pb) & 7], why="struct param by value, local array")})


def _f64_dir(fr, mode):
    """Exact rational -> f64 rounded with mode rn/rz/rm/rp (finite, normal range)."""
    v = round_frac(fr, "f64")
    if mode == "rn":
        return v
    fv = Fraction(v)
    if mode == "rm" and fv > fr:
        v = math.nextafter(v, -math.inf)
    elif mode == "rp" and fv < fr:
        v = math.nextafter(v, math.inf)
    elif mode == "rz" and abs(fv) > abs(fr):
        v = math.nextafter(v, 0.0)
    return v


def f64_ops_ref(x, y):
    """fp_types.cu f64_ops, in the PTX's order (sm_80): returns (c, l)."""
    c = np.empty(x.size, f64)
    l = np.empty(x.size, i64)
    for k in range(x.size):
        a, b = float(x[k]), float(y[k])
        A, B = Fraction(a), Fraction(b)
        r = (f64(a) / f64(b)) + np.sqrt(f64(abs(a)))                   # div.rn, sqrt.rn, add
        r = f64(_f64_dir(A * B + 1, "rn")) + r                         # fma.rn(x, y, 1)
        r = f64(1.0) / f64(b) + r                                      # rcp.rn
        r = np.sqrt(f64(abs(b))) + r
        r = f64(_f64_dir(A / B, "rz")) + r                             # div.rz; r = %fd15
        t = f64(_f64_dir(A + B, "rm")) + f64(_f64_dir(A * B, "rp"))    # add.rm + mul.rp
        t = t + f64(_f64_dir(A * B + Fraction(float(r)), "rz"))        # fma.rz(x, y, r)
        t = f64(math.floor(a)) + t
        t = f64(math.ceil(b)) + t
        t = f64(math.trunc(float(r))) + t
        res = r + t
        c[k] = res
        lv = math.trunc(float(res)) + math.trunc(a) + math.floor(b) + math.trunc(float(f32(res)))
        l[k] = lv
    return c, l


def int_bits_ref(x, y):
    res = []
    for a, b in zip(x.tolist(), y.tolist()):
        ao = a | 1
        rot = ((a << 7) | (a >> 25)) & 0xffffffff
        v = (bin(a).count("1") + bin(b).count("1") + (32 - ao.bit_length()) + ((b | 1) & -(b | 1)).bit_length() - 1
             + int(f"{a:032b}"[::-1], 2) + (int(f"{b:064b}"[::-1], 2) & 0xffffffff) + a
             + ((b // ao) & 0xffffffff) + (b % 10) + ((a * 0x9e3779b9) >> 32) + (((b * 12345) >> 64) & 0xffffffff) + rot)
        res.append(v & 0xffffffff)
    return np.array(res, u32)


def _f32_dir(fr, mode):
    """Exact rational -> f32 rounded with mode rz/rm (finite, normal range), as float."""
    v = round_frac(fr, "f32")
    fv = Fraction(v)
    if (mode == "rm" and fv > fr) or (mode == "rz" and abs(fv) > abs(fr)):
        v = float(np.nextafter(f32(v), f32(-np.inf) if (mode == "rm" or v > 0) else f32(np.inf)))
    return v


def f32_intrinsics_ref(x):
    """Eb of fp_types.cu f32_intrinsics (x normal, 0 < |x| <= pi), op by op in the PTX's order (sm_80)."""
    F = "f32"
    X = lambda a: Eb.exact(np.asarray(a, f32), F)
    ax = np.abs(x)
    a1 = (ax + f32(1)).astype(f32)                                         # %f5 = |x| + 1
    r = lg2_approx(a1).fma(X(f32(0.6931471805599453)), ex2_approx(X((x * f32(1.4426950408889634)).astype(f32))))  # __logf + __expf (fma)
    sn, cs = sincos_approx(x)
    r = sn + r
    r = cs + r
    iv = mpv(lambda m, t: 1 / m.sqrt(t), a1)
    r = Eb(iv, 2.5 * ulp_up(iv, 2, F) + SLACK * iv, F) + r                 # rsqrtf: rsqrt.approx.f32, 2 ulp (CUDA guide)
    f16_ = div_approx(X(x), X(f32(3))) + r                                 # __fdividef(x, 3) + ...
    rcz = np.array([_f32_dir(Fraction(1) / Fraction(float(t)), "rz") for t in x], f32)
    ex = ((x / f32(7)).astype(f32) + np.sqrt(ax)).astype(f32)              # div.rn, sqrt.rn, add: exact mirror
    ex = (ex + rcz).astype(f32)                                            # + rcp.rz
    mn = Eb(np.minimum(x.astype(f64), f16_.v), f16_.e, F)                  # min/max are 1-Lipschitz: no new error
    mx = Eb(np.maximum(x.astype(f64), f16_.v), f16_.e, F)
    f27 = f16_ + (mx + (mn + X(ex)))
    t = X(np.clip(x, 0, 1)) + f27._dir(x + f27.v, f27.e)                  # __saturatef + add.rz.ftz(x, r)
    t = ex2_approx(X(x)) + t                                               # ex2.approx.ftz(x)
    mrm = np.array([_f32_dir(Fraction(float(v)) ** 2, "rm") for v in x], f32)
    t = X(mrm) + t                                                         # mul.rm(x, x)
    av = np.abs(f27.v)
    sv = np.sqrt(av)
    se = f27.e / (np.sqrt(np.maximum(av - f27.e, 0)) + sv)                 # |sqrt a - sqrt b| <= |a - b| / (sqrt a + sqrt b)
    t = f27._rnd(sv, se) + t                                               # sqrt.rn(|r|)
    r = f27 + t
    r = r + X(np.rint(x))                                                  # cvt.rni.s32 -> f32
    r = r + X(np.trunc(x))                                                 # cvt.rzi.s32 -> f32
    return X(np.ceil(ax)) + r                                              # cvt.rpi.u64(|x|) -> f32


def cases_group_d():
    """Group D: clang 19 fixtures (atomics_warp, basics, fp_types, calls_recursion, tensor_async)."""
    # ---------------- atomics_warp: atomics (every thread, same v) ----------------
    r = rng(500)
    N, v = 128, -7
    g0 = r.integers(-1000, 1000, 10).astype(i32)
    g0[7] = 0  # atomicCAS(&g[7], 0, v): the first thread swaps, the others see v
    u0 = np.array([3, 8, 5], u32)
    f0 = np.array([2.5], f32)
    d0 = np.array([-1.25], f64)
    l0 = np.array([2**40 + 5, 0], u64)
    eg = g0.astype(i64)
    eg[0] += N * v
    eg[1] = v
    eg[2] = max(eg[2], v)
    eg[3] = min(eg[3], v)
    eg[4] &= v
    eg[5] |= v
    eg[6] ^= 0 if N % 2 == 0 else v  # xor N times
    eg[7] = v
    eg[8] += N
    eg[9] += N
    inc, dec = int(u0[0]), int(u0[1])
    for _ in range(N):
        inc = 0 if inc >= 10 else inc + 1
        dec = 10 if dec == 0 or dec > 10 else dec - 1
    eu = np.array([inc, dec, max(int(u0[2]), v & 0xffffffff)], u32)
    el = np.array([(int(l0[0]) + N * (v & (2**64 - 1))) & (2**64 - 1), v & (2**64 - 1)], u64)
    case("clang19_atomics", "clang19/atomics_warp.sm_80.ptx", "atomics", [1], [N],
         [g0, u0, f0, d0, l0, S("s32", v)],
         {0: out(eg.astype(i32), why="add/exch/max/min/and/or/xor/cas (+ .cta and .sys add) from 128 threads with one v: order-independent"),
          1: out(eu, why="atom.inc/dec with limit 10 applied 128 times (each step the same function, so any order gives the same value); max.u32"),
          2: out(np.array([f0[0] + f32(N * v)], f32), why="f32 add of an integer 128 times: every partial sum exact"),
          3: out(np.array([d0[0] + N * v], f64), why="f64 add of an integer 128 times: every partial sum exact"),
          4: out(el, why="u64 add of sign-extended v (wrapping), cas(0, v)")},
         note="one CTA: atomicAdd_block (atom.cta) is only atomic among threads of one CTA")
    # ---------------- atomics_warp: cas_max ----------------
    n = 1000
    x = r.standard_normal(n).astype(f32)
    x[17] = f32(7.5)
    case("clang19_cas_max", "clang19/atomics_warp.sm_70.ptx", "cas_max", [4], [256],
         [x, np.array([-100.0], f32), S("s32", n)],
         {1: out(np.array([x.max()], f32), why="float max through an atom.cas loop: the maximum is order-independent (no ties of +-0, no NaN)")})
    # ---------------- atomics_warp: shared_atomics_hist ----------------
    n = 5000
    d = r.integers(0, 256, n).astype(u8)
    d[:300] = 42  # a hot bin
    h0 = r.integers(0, 10000, 256).astype(u32)
    case("clang19_shared_atomics_hist", "clang19/atomics_warp.sm_90.ptx", "shared_atomics_hist", [3], [128],
         [d, h0.copy(), S("s32", n)],
         {1: out(h0 + np.bincount(d, minlength=256).astype(u32), why="shared-memory atom.add histogram (grid-stride), merged with global atom.add: integer, order-independent")})
    # ---------------- atomics_warp: shuffles ----------------
    nt = 64
    iv = r.integers(-2**31, 2**31, nt, dtype=i64).astype(i32)
    fv = r.standard_normal(nt).astype(f32)
    dv = r.standard_normal(nt)
    L = np.arange(nt) % 32
    base = np.arange(nt) - L
    idx3 = base + 3
    up1 = np.where(L >= 1, np.arange(nt) - 1, np.arange(nt))
    dn2 = np.where(L + 2 <= 31, np.arange(nt) + 2, np.arange(nt))
    x1 = np.arange(nt) ^ 1
    iw = iv.astype(i64)
    eo = wrap32(iw[idx3] + iw + iw[up1] + iw[dn2] + iw[x1]).astype(i32)

    def bfly(a):
        a = a.copy()
        for o in (16, 8, 4, 2, 1):
            a = (a + a[base + (L ^ o)]).astype(a.dtype)
        return a
    fs, ds = bfly(fv), bfly(dv)
    dn1w8 = np.where(L + 1 <= (L & 24) | 7, np.arange(nt) + 1, np.arange(nt))  # width 8: c = 0x181f
    up4 = np.where(L >= 4, np.arange(nt) - 4, np.arange(nt))
    ef = (fs + (fs[dn1w8] + fs[up4]).astype(f32)).astype(f32)
    case("clang19_shuffles", "clang19/atomics_warp.sm_80.ptx", "shuffles", [2], [32],
         [iv, fv, dv, Z("i32", nt), Z("f32", nt), Z("f64", nt)],
         {3: out(eo, why="shfl idx(3)/up(1)/down(2)/bfly(1, width 16, c=0x101f); wrapping s32 adds"),
          4: out(ef, why=WHY_TREE + " (shfl.bfly 16..1, then down(1, width 8, c=0x181f) + up(4), added as in the PTX)"),
          5: out(ds, why="f64 shfl.bfly butterfly as two 32-bit halves, f64 adds in the butterfly order")})
    # ---------------- atomics_warp: warp_reduce_atomic ----------------
    n = 450
    x = (r.integers(-512, 512, n) / 16).astype(f32)
    o0 = np.array([0.75], f32)
    case("clang19_warp_reduce_atomic", "clang19/atomics_warp.sm_80.O0.ptx", "warp_reduce_atomic", [4], [128],
         [x, o0, S("s32", n)],
         {1: out(np.array([o0[0] + x.astype(f64).sum()], f32), why=WHY_DYADIC + "; shfl.down tree, lanes past n add 0, -O0 code")})
    # ---------------- basics: const_poly (c_coef set with --symbol) ----------------
    n = 300
    x = (r.standard_normal(n) * 4).astype(f32)
    x[:4] = [np.inf, -np.inf, -0.0, 1e30]
    coef = (rng(601).standard_normal(16) / 4).astype(f32)  # own stream: group_d's draws stay put
    e = np.zeros(n, f32)
    with np.errstate(invalid="ignore", over="ignore"):
        for k in range(15, -1, -1):  # r = fma(r, x, c_coef[k]) from r = 0 (fma(x, 0, c15) first)
            e = fma32(e, x, np.full(n, coef[k]))
    case("clang19_const_poly", "clang19/basics.sm_80.ptx", "const_poly", [2], [256],
         [x, Z("f32", n), S("s32", n)],
         {1: out(canon_nan(e), why="Horner with fma.rn over 16 __constant__ coefficients set with --symbol; "
                                   "inf*0 in the first step and overflow give the canonical NaN / inf")},
         symbols={"c_coef": coef})
    # ---------------- basics: reduce<128> (one block, non-dyadic: the tree order is checked) ----------------
    n = 100
    x = r.standard_normal(n).astype(f32)
    s = np.zeros(128, f32)
    s[:n] = x
    st = 64
    while st > 0:
        s[:st] = (s[:st] + s[st:2 * st]).astype(f32)
        st //= 2
    o0 = np.array([0.5], f32)
    case("clang19_reduce128", "clang19/basics.sm_80.ptx", "_Z6reduceILi128EEvPKfPfi", [1], [128],
         [x, o0, S("s32", n)],
         {1: out(np.array([o0[0] + s[0]], f32), why=WHY_TREE + "; one block, so the single atom.add.f32 onto 0.5 is ordered")})
    # ---------------- fp_types: half_ops ----------------
    n = 400
    a = (r.standard_normal(n) * 3).astype(f16)
    b = (r.standard_normal(n) * 3).astype(f16)
    b[:3] = [f16(-1.0), f16(0.0), f16(-0.0)]  # y + 1 = 0: division by zero -> +-inf
    a[:3] = [f16(2.0), f16(1.5), f16(-3.0)]
    A, B = a.astype(f64), b.astype(f64)
    fm = hfma_exact(A, B, A)
    den = rn(B + 1.0, "f16")
    with np.errstate(all="ignore"):
        q = (B.astype(f32) / den.astype(f32)).astype(f32).astype(f64)  # div.rn.f32 of the f16 values
    q = rn(q, "f16")  # cvt.rn.f16.f32
    with np.errstate(invalid="ignore"):
        rr = rn(fm - q, "f16")
    sel = np.where(rr > A, rr, A)  # setp.gt.f16 (false on NaN) ; selp
    f2 = hfma_exact(A, B, sel)
    ef = (sel.astype(f32) + f2.astype(f32)).astype(f32)
    case("clang19_half_ops", "clang19/fp_types.sm_80.ptx", "half_ops", [2], [256],
         [a, b, Z("f16", n), Z("f32", n), S("s32", n)],
         {2: out(canon_nan(h16(sel)), why="fma.rn.f16, add/sub.f16 correctly rounded, y/(y+1) as div.rn.f32 of the f16 values + cvt.rn.f16 (PTX), max by setp.gt/selp"),
          3: out(canon_nan(ef), why="cvt.f32.f16 exact, fma.rn.f16, one add.f32")})
    # ---------------- fp_types: half2_ops ----------------
    n = 300
    a = (r.standard_normal(2 * n) * 16).astype(f16)
    b = (r.standard_normal(2 * n) * 16).astype(f16)
    a[:2] = [f16(300), f16(-300)]
    b[:2] = [f16(300), f16(300)]  # overflow to +-inf
    with np.errstate(over="ignore"):
        e = h16(hfma_exact(a.astype(f64), b.astype(f64), a.astype(f64)))
    case("clang19_half2_ops", "clang19/fp_types.sm_90.ptx", "half2_ops", [2], [256],
         [a, b, Z("f16", 2 * n), S("s32", n)],
         {2: out(e, why="a*b + a contracted to fma.rn.f16x2 (PTX), correctly rounded per half; overflow to inf")})
    # ---------------- fp_types: bf16_ops ----------------
    n = 400
    xb = to_bf16_bits(r.standard_normal(n) * 5)
    yb = to_bf16_bits(r.standard_normal(n) * 5)
    X, Y = bf16_val(xb), bf16_val(yb)
    t = (fma32(X, Y, X) - Y).astype(f32)  # fma.rn.f32, sub.f32
    e = b16(t.astype(f64))  # cvt.rn.bf16.f32
    case("clang19_bf16_ops", "clang19/fp_types.sm_80.ptx", "bf16_ops", [2], [256],
         [xb, yb, Z("u16", n), S("s32", n)],
         {2: out(e, as_="bf16", why="sm_80 code: cvt.f32.bf16, fma.rn.f32(x, y, x), sub.f32, cvt.rn.bf16.f32 (PTX), reproduced exactly")})
    # ---------------- fp_types: f64_ops ----------------
    n = 200
    x = r.uniform(-50, 50, n)
    y = r.uniform(0.5, 20, n) * np.where(r.random(n) < 0.5, -1, 1)
    x[:3] = [3.0, -2.5, 7.0]
    y[:3] = [-1.5, 4.0, 2.0]  # integral / halfway operands for floor/ceil/trunc and exact quotients
    ec, el = f64_ops_ref(x, y)
    case("clang19_f64_ops", "clang19/fp_types.sm_80.ptx", "f64_ops", [1], [256],
         [x, y, Z("f64", n), Z("i64", n), S("s32", n)],
         {2: out(ec, why="div/sqrt/rcp/fma .rn and div.rz/add.rm/mul.rp/fma.rz, cvt.rmi/rpi/rzi, reproduced with exact rationals in the PTX's order"),
          3: out(el, why="cvt.rzi.s64.f64, cvt.rmi.s32.f64 (sign-extended), cvt.rn.f32.f64 + cvt.rzi.s64.f32, wrapping s64 adds")})
    # ---------------- fp_types: f32_intrinsics (bound) ----------------
    n = 300
    x = r.uniform(-math.pi, math.pi, n).astype(f32)
    x = np.clip(x, f32(-3.1415925), f32(3.1415925))
    x[:8] = [1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.1415925, 1e-3]  # cvt.rni ties (to even), the range ends
    x[np.abs(x) < 1e-6] = f32(1e-3)
    e, b = f32_intrinsics_ref(x).result(f32)
    assert np.isfinite(b).all()
    case("clang19_f32_intrinsics", "clang19/fp_types.sm_80.ptx", "f32_intrinsics", [2], [256],
         [x, Z("f32", n), S("s32", n)],
         {1: out(e, "bound", "mirrors the PTX op by op; ex2.approx rel 2^-22.5, lg2.approx abs 2^-22.6, sin/cos.approx abs 2^-20.9 on [-pi, pi], "
                 "div.approx 2 ulp (PTX ISA), rsqrtf (rsqrt.approx.f32) 2 ulp (CUDA guide); .rn ops 1/2 ulp, .rz/.rm 1 ulp; operand errors "
                 "propagated through min/max.NaN/sqrt; exact steps (div.rn, sqrt.rn, rcp.rz, mul.rm, cvt) reproduced; per-element bound", bound=b)},
         note="inputs normal and nonzero in [-pi, pi] (the sin/cos.approx bound's range; rcp.rz(0) would be inf)")
    # ---------------- fp_types: int_bits ----------------
    n = 300
    xa = r.integers(0, 2**32, n, dtype=u64).astype(u32)
    yb = r.integers(0, 2**63, n, dtype=u64) * u64(2) + r.integers(0, 2, n, dtype=u64)
    yb[: n // 3] >>= u64(32)  # high word zero: the div.u32 fast path
    xa[:4] = [0, 1, 0xffffffff, 0x80000000]
    yb[:4] = [0, 2**64 - 1, 1, 2**63]
    case("clang19_int_bits", "clang19/fp_types.sm_90.ptx", "int_bits", [2], [256],
         [xa, yb, Z("u32", n), S("s32", n)],
         {2: out(int_bits_ref(xa, yb), why="popc/clz/ctz/brev/prmt/div/rem/mul.hi/rotate, wrapping u32 sum")})
    # ---------------- calls_recursion: heap ----------------
    B, n = 64, 50
    case("clang19_heap", "clang19/calls_recursion.sm_80.ptx", "heap", [1], [B],
         [Z("i32", B), S("s32", n)],
         {0: out(wrap32(np.arange(B, dtype=i64) * (n * (n - 1) // 2)).astype(i32), why="per-thread malloc of n ints, p[k] = k*t summed, free")})
    # ---------------- calls_recursion: printer (buffers only) ----------------
    n = 40
    fp = r.standard_normal(n).astype(f32)
    dp = r.standard_normal(n)
    case("clang19_printer", "clang19/calls_recursion.sm_70.ptx", "printer", [2], [32],
         [fp, dp, S("s32", n)],
         {0: out(fp, why="printf (vprintf) only reads its arguments: the buffers come back unchanged"),
          1: out(dp, why="printf only reads its arguments: the buffers come back unchanged")},
         note="the harness does not capture stdout; the formatted text is not compared, the case checks that the vprintf calls run")
    # ---------------- tensor_async: cp_async_double_buffer ----------------
    tiles, G = 5, 2
    xin = r.standard_normal(tiles * 512).astype(f32)
    tt = np.arange(128)
    acc = np.zeros(128, f32)
    for k in range(tiles):
        acc = (acc + xin[k * 512 + ((tt * 5) & 511)]).astype(f32)
    case("clang19_cp_async_double_buffer", "clang19/tensor_async.sm_80.ptx", "cp_async_double_buffer", [G], [128],
         [xin, Z("f32", G * 128), S("s32", tiles)],
         {1: out(np.tile(acc, G), why="cp.async.cg 16-byte copies, double-buffered with commit/wait_group 1; per-thread f32 sum over tiles in order (every block reads the same input)")})


def cases_group_b():
    """Group B: warp primitives, DL normalizations, special registers/heap/cp.async, Triton and clang kernels."""
    # ---------------- warp_shuffle: shfl_half ----------------
    r = rng(300)
    nt = 64
    h = (r.standard_normal(nt) * 8).astype(f16)
    h[[0, 2]] = f16(65504)  # lanes 0 and 2 exchange: 65504 + 65504 -> inf
    h[[1, 3]] = f16(-0.0)  # -0 + -0 = -0
    h[[5, 7]] = f16(6e-8)  # subnormals
    h2 = (r.standard_normal(2 * nt) * 8).astype(f16)
    L = np.arange(nt) % 32
    base = np.arange(nt) - L
    with np.errstate(over="ignore"):
        eh = (h.astype(f64) + h[base + (L ^ 2)].astype(f64)).astype(f16)
    src = np.where(L + 4 < 32, np.arange(nt) + 4, np.arange(nt))
    H2 = h2.reshape(nt, 2)
    eh2 = (H2.astype(f64) + H2[src].astype(f64)).astype(f16).reshape(-1)
    case("nvrtc12_shfl_half", "nvrtc12/warp_shuffle.sm_80.ptx", "shfl_half", [2], [32],
         [h, Z("f16", nt), h2, Z("f16", 2 * nt)],
         {1: out(eh, why="add.f16 of shfl.bfly(2) partner, correctly rounded (f64 sum of two f16 is exact, rounded once); overflow to inf"),
          3: out(eh2, why="add.f16x2 of shfl.down(4) partner (out-of-range lanes keep their own value), correctly rounded")})
    # ---------------- warp_shuffle: shfl_i64_u64 ----------------
    v = r.integers(-2**63, 2**63 - 1, nt, dtype=i64)
    v[:3] = [-1, 2**63 - 1, -2**63]
    vu = v.view(u64)
    with np.errstate(over="ignore"):
        u3 = vu * u64(3)
        up = np.where(L >= 1, np.arange(nt) - 1, np.arange(nt))
        rev = base + 31 - L
        e = vu[up] + u3[rev]
    case("nvrtc12_shfl_i64_u64", "nvrtc12/warp_shuffle.sm_80.ptx", "shfl_i64_u64", [2], [32],
         [v, Z("u64", nt)], {1: out(e, why="64-bit shfl.up(1)/shfl.idx(31-lane) as two 32-bit halves; wrapping u64 mul/add")})
    # ---------------- warp_vote_match: warp_aggregated_inc ----------------
    n = 300
    bins = r.integers(0, 16, n).astype(i32)
    bins[:32] = 3  # one warp with a single key: one leader adds 32
    cnt0 = r.integers(0, 1000, 16).astype(i32)
    case("nvrtc12_warp_aggregated_inc", "nvrtc12/warp_vote_match.sm_80.ptx", "warp_aggregated_inc", [3], [128],
         [bins, cnt0.copy(), S("s32", n)],
         {1: out(cnt0 + np.bincount(bins, minlength=16).astype(i32), why="match.any.sync peers, leader = ffs, atomicAdd of popc (integer, order-independent); last warp partially active")})
    # ---------------- warp_reduce_sm80: cg_tile_reduce ----------------
    n = 200
    x = (r.integers(-400, 400, n) / 8).astype(f32)
    x[5] = f32(-0.875)  # truncates to 0
    o0 = np.array([0, 0], f32)
    o0.view(i32)[1] = -2**31
    e = np.array([x.astype(f64).sum(), 0], f32)
    e.view(i32)[1] = int(np.trunc(x).astype(i32).max())
    case("nvrtc12_cg_tile_reduce", "nvrtc12/warp_reduce_sm80.sm_80.ptx", "cg_tile_reduce", [2], [128],
         [x, o0, S("s32", n)],
         {1: out(e, why=WHY_DYADIC + "; slot 1 holds atom.max.s32 of redux.sync.max.s32 over cvt.rzi.s32.f32 (initial INT_MIN)")},
         note="threads past n contribute 0.0 / 0 (the out-of-range lanes still shuffle)")

    # ---------------- softmax_layernorm (nvrtc12 sm_80, no fast-math) ----------------
    def bfly_sum(v):  # (..., 32) f32 -> every lane holds the shfl.bfly 16,8,4,2,1 sum
        v = np.asarray(v, f32).copy()
        for o in (16, 8, 4, 2, 1):
            v = (v + v[..., np.arange(32) ^ o]).astype(f32)
        return v

    def block_sum(v):  # per-thread f32 values (B,) -> block_sum() of the kernel
        B = v.size
        w = bfly_sum(v.reshape(B // 32, 32))[:, 0]
        s = np.zeros(32, f32)
        s[:B // 32] = w
        return bfly_sum(s)[0]

    def strided_acc(vals, nthr, step):  # per-thread loop c = t, t + nthr, ...: acc = step(acc, vals[c])
        acc = [f32(0)] * nthr
        for c in range(vals.size):
            acc[c % nthr] = step(acc[c % nthr], vals[c])
        return np.array(acc, f32)

    RSQRT_REL = 2.0 ** -21.4  # PTX ISA: rsqrt.approx.f32 abs error 2^-22.4 for inputs in [1, 4) (results in (0.5, 1])
    r = rng(301)
    rows, cols, B = 10, 200, 128
    x = (r.standard_normal((rows, cols)) * 3).astype(f32)
    x[1, :] = f32(0.75)  # a constant row: uniform 1/200
    x[2, 7] = -np.inf  # exp(-inf) = 0
    x[3, 11] = f32(60.0)  # one dominant element (others underflow relative to it)
    y = np.zeros((rows, cols), f32)
    for i in range(rows):
        m = x[i].max()
        e = np.exp((x[i] - m).astype(f32).astype(f64)).astype(f32)  # expf
        s = bfly_sum(strided_acc(e, 32, lambda a, b: f32(a + b)))[0]
        y[i] = (f32(1) / s * e).astype(f32)
    case("nvrtc12_softmax_warp_per_row", "nvrtc12/softmax_layernorm.sm_80.ptx", "softmax_warp_per_row", [3], [B],
         [x, Z("f32", rows * cols), S("s32", rows), S("s32", cols)],
         {1: out(y, "rel:2e-6", "expf <= 2 ulp (CUDA guide); the per-lane sum adds 7 terms then 5 butterfly adds (fma-contracted "
                  "into the expf scaling, so up to 1 ulp per add differs from the mirror), rcp.rn and one mul: <= 2+2+12+1 = 17 ulp = 2e-6 relative")},
         note="4 rows per 128-thread block, 12 row slots for 10 rows (the last warps return)")
    # log_softmax_block: f16 in/out, __expf = ex2.approx(x * log2e), logf
    rows, cols, B = 4, 300, 128
    xh = (r.standard_normal((rows, cols)) * 3).astype(f16)
    xh[1, :] = f16(-2.5)
    xh[2, 5] = f16(20.0)
    xv = xh.astype(f64)
    lse = xv.max(axis=1) + np.log(np.exp(xv - xv.max(axis=1, keepdims=True)).sum(axis=1))
    yh = (xv - lse[:, None]).astype(f16)
    case("nvrtc12_log_softmax_block", "nvrtc12/softmax_layernorm.sm_80.ptx", "log_softmax_block", [rows], [B],
         [xh, Z("f16", rows * cols), S("s32", cols)],
         {1: out(yh, "rel:1e-3,abs:1e-5", "f16 output of x - lse: lse carries __expf (2 + 1.173|x| ulp, CUDA guide, |x| <= 14 -> 2e-6 rel per term), "
                  "f32 sums (<= 2e-6 rel), logf (1 ulp) and adds: < 1e-5 absolute; that can move the cvt.rn.f16 by one f16 ulp (2^-10 relative)")})
    # layernorm_fwd
    rows, cols, B = 4, 500, 128
    x = (r.standard_normal((rows, cols)) * 2 + 0.5).astype(f32)
    gamma = r.uniform(0.5, 1.5, cols).astype(f32)
    beta = r.uniform(-1, 1, cols).astype(f32)
    eps = f32(1e-5)
    y = np.zeros((rows, cols), f32)
    means = np.zeros(rows, f32)
    rstds = np.zeros(rows, f32)
    tmax = 0.0
    for i in range(rows):
        mean = f32(block_sum(strided_acc(x[i], B, lambda a, b: f32(a + b))) / f32(cols))
        var = f32(block_sum(strided_acc(x[i], B, lambda a, b: fma32(f32(b - mean), f32(b - mean), a)[()])) / f32(cols))
        rstd = f32(1 / math.sqrt(float(f32(var + eps))))
        t = (rstd * (x[i] - mean).astype(f32)).astype(f32)
        tmax = max(tmax, float(np.abs(gamma * t).max()))
        y[i] = fma32(gamma, t, beta)
        means[i], rstds[i] = mean, rstd
    ab = (RSQRT_REL + 2.0 ** -23) * tmax
    assert ab < 4e-6, ab
    case("nvrtc12_layernorm_fwd", "nvrtc12/softmax_layernorm.sm_80.ptx", "layernorm_fwd", [rows], [B],
         [x, gamma, beta, Z("f32", rows * cols), Z("f32", rows), Z("f32", rows), S("s32", cols), S("f32", "1e-5")],
         {3: out(y, "rel:1.2e-7,abs:4e-6", f"block sums, div.rn and fma(d,d,v) mirrored exactly; rstd = rsqrt.approx.f32 (PTX ISA 2^-22.4 abs on [1,4) -> 2^-21.4 rel) "
                  f"scales gamma*rstd*(x-mean) (max {tmax:.2f}): abs (2^-21.4 + 2^-23) x {tmax:.2f} < 4e-6, plus 1 ulp for the final fma rounding"),
          4: out(means, why="mean: f32 adds in the kernel's block_sum order (per-thread strides, two butterfly levels), div.rn"),
          5: out(rstds, f"rel:{RSQRT_REL * 1.01:.3g}", "rsqrt.approx.f32 of an exactly mirrored var+eps: PTX ISA abs 2^-22.4 on [1,4) = 2^-21.4 relative")})
    # layernorm_welford: one warp per row, f64 Welford + pairwise merges over shfl.bfly
    rows, cols, B = 5, 100, 64
    x = (r.standard_normal((rows, cols)) * 4 - 1).astype(f32)
    x[2, :] = f32(3.0)  # zero variance: rstd = rsqrt(eps)
    eps = f32(1e-3)
    y = np.zeros((rows, cols), f32)
    for i in range(rows):
        st = []
        for lane in range(32):
            mean = m2 = n_ = 0.0
            for c in range(lane, cols, 32):
                v = float(x[i, c])
                n_ += 1.0
                d = v - mean
                mean += d / n_
                m2 = float(fma64(d, v - mean, m2))
            st.append((n_, mean, m2))
        for o in (16, 8, 4, 2, 1):
            ns = []
            for lane in range(32):
                n_, mean, m2 = st[lane]
                nb, mb, m2b = st[lane ^ o]
                nn = n_ + nb
                if nn > 0:
                    d = mb - mean
                    mean = mean + (nb * d) / nn
                    m2 = m2 + (m2b + (nb * (n_ * (d * d))) / nn)
                ns.append((nn, mean, m2))
            st = ns
        n_, mean, m2 = st[0]
        rstd = f32(1 / math.sqrt(m2 / n_ + float(eps)))
        y[i] = ((x[i] - f32(mean)).astype(f32) * rstd).astype(f32)
    case("nvrtc12_layernorm_welford", "nvrtc12/softmax_layernorm.sm_80.ptx", "layernorm_welford", [3], [B],
         [x, Z("f32", rows * cols), S("s32", rows), S("s32", cols), S("f32", "1e-3")],
         {1: out(y, "rel:6e-7", "f64 Welford updates and butterfly merges mirrored op by op (div.rn/fma.rn.f64); rsqrt.approx.f64 "
                  "(taken at 2^-21 relative, the coarsest f64 rsqrt form) then cvt.rn.f32 and one f32 mul: 2^-21 + 2 x 2^-24 < 6e-7")},
         note="2 rows per 64-thread block, 6 row slots for 5 rows; row 2 is constant (variance 0)")
    # rmsnorm_half2
    rows, cols2, B = 4, 150, 64
    xh = (r.standard_normal((rows, 2 * cols2)) * 2).astype(f16)
    wh = r.uniform(0.5, 2, 2 * cols2).astype(f16)
    y = np.zeros((rows, 2 * cols2), f16)
    for i in range(rows):
        fx, fy = xh[i, 0::2].astype(f32), xh[i, 1::2].astype(f32)
        sq = fma32(fx, fx, (fy * fy).astype(f32))
        s = block_sum(strided_acc(sq, B, lambda a, b: f32(a + b)))
        arg = float(f32(f32(s / f32(2 * cols2)) + f32(1e-6)))
        rr = 1 / math.sqrt(arg)
        lo, hi = f32(rr * (1 - RSQRT_REL)), f32(rr * (1 + RSQRT_REL))
        assert f16(lo) == f16(hi) == f16(f32(rr)), (i, rr)  # every rsqrt within the PTX bound rounds to the same half
        rh = f16(f32(rr))
        y[i] = ((xh[i].astype(f32) * f32(rh)).astype(f16).astype(f32) * wh.astype(f32)).astype(f16)
    case("nvrtc12_rmsnorm_half2", "nvrtc12/softmax_layernorm.sm_80.ptx", "rmsnorm_half2", [rows], [B],
         [xh, wh, Z("f16", rows * 2 * cols2), S("s32", cols2), S("f32", "1e-6")],
         {2: out(y, why="sum of squares (fma(x.x,x.x,y.y*y.y)) in block_sum order, div.rn; rsqrt.approx.f32 is inexact (2^-21.4 rel) but the generator "
                  "asserts every value within that bound rounds to the same __float2half2_rn, so the mul.f16x2 chain compares exactly")})

    # ---------------- special_regs_sync ----------------
    r = rng(302)
    G, B = 2, 64
    nt = G * B
    t = np.arange(nt)
    e = np.zeros((nt, 4), u64)
    e[:, 2] = 0 | (1 << 32)  # %smid | %nsmid << 32
    e[:, 3] = (t % B) // 32 + t % 32  # %warpid + %laneid
    case("nvrtc12_timing_and_ids", "nvrtc12/special_regs_sync.sm_80.ptx", "timing_and_ids", [G], [B],
         [Z("u64", 4 * nt)],
         {0: dict(out(e.reshape(-1), why="slots 4t+2 (%smid | %nsmid<<32) and 4t+3 (%warpid + %laneid) under ptxvm's documented model "
                                        "(one SM: smid 0, nsmid 1; warpid = tid/32); slots 4t+0 (clock64 delta + clock) and 4t+1 (%globaltimer) "
                                        "hold raw counter values with no meaningful expected value and are skipped"),
                  skip=sorted(list(range(0, 4 * nt, 4)) + list(range(1, 4 * nt, 4))))},
         note="PTX only guarantees %laneid; smid < nsmid and a warpid in range hold for the compared model values")
    n = 128
    d = np.zeros(n + 64, i32)
    d[:64] = np.arange(64)
    d[64:128] = (np.arange(64, 128) - 64) * 3
    d[:16] += 1
    d[n:n + 64] = np.arange(64) * 3
    case("nvrtc12_fences_and_barriers", "nvrtc12/special_regs_sync.sm_80.ptx", "fences_and_barriers", [1], [128],
         [Z("i32", n + 64), Z("i32", 2), S("s32", n)],
         {0: out(d, why="membar/fence no-ops on results; bar.arrive 1,128 by warps 0-1 releases bar.sync 1,128 in warps 2-3 after the producers' stores; __syncwarp(0xffff) in a divergent half-warp"),
          1: out(np.array([1, 2], i32), why="volatile flag stores around __threadfence")})
    n = 1000  # multiple of 4: the float4 __ldg reads in[4*(i/4) .. +3]
    x = r.standard_normal(n).astype(f32)
    x[:4] = [np.inf, -0.0, 3e38, 1e-45]
    with np.errstate(over="ignore", invalid="ignore"):
        x2 = (x + x).astype(f32)
        v4 = x.reshape(-1, 4)
        s4 = (v4[:, 3] + (v4[:, 2] + (v4[:, 0] + v4[:, 1]).astype(f32)).astype(f32)).astype(f32)
        e = np.concatenate([x2, x2, x2, (x * x).astype(f32), np.repeat(s4, 4)])
    case("nvrtc12_cache_hints", "nvrtc12/special_regs_sync.sm_80.ptx", "cache_hints", [4], [256],
         [x, Z("f32", 5 * n), S("s32", n)],
         {1: out(e, why="ld.global.{nc,ca,cg,cs,lu,cv} / st.global.{wb,cg,cs,wt} and ld.global.nc.v4 are plain loads/stores; f32 adds in the PTX order w+(z+(x+y)); inf/overflow/subnormal edges")})
    n = 1500
    x = r.standard_normal(n).astype(f32)
    case("nvrtc12_prefetch_and_discard", "nvrtc12/special_regs_sync.sm_80.ptx", "prefetch_and_discard", [6], [256],
         [x, Z("f32", n), S("s32", n)],
         {1: out((x * f32(2)).astype(f32), why="prefetch.global.L1/L2 have no architectural effect (threads past n prefetch past the buffer); f32 mul by 2 is exact")})
    # ---------------- device_malloc ----------------
    G, B, n = 2, 64, 50
    t = np.arange(G * B, dtype=i64)
    case("nvrtc12_heap_alloc", "nvrtc12/device_malloc.sm_80.ptx", "heap_alloc", [G], [B],
         [Z("i32", G * B), S("s32", n)], {0: out(wrap32(t * (n * (n - 1) // 2)), why="malloc/free of n ints per thread, sum of i*t (wrapping i32)")})
    B, ln = 96, 20
    case("nvrtc12_linked_list", "nvrtc12/device_malloc.sm_80.ptx", "linked_list", [1], [B],
         [Z("i32", B), S("s32", ln)], {0: out(wrap32(np.arange(B, dtype=i64) * (ln * (ln - 1) // 2)), why="per-thread malloc'd list of len nodes, summed and freed")})
    G, B, n = 3, 32, 40
    src = r.integers(0, 256, G * n).astype(u8)
    dst = np.zeros((G, B, 64), u8)
    for b in range(G):
        for th in range(B):
            dst[b, th, :] = th & 0x7f
            dst[b, th, :n] = src[b * n:(b + 1) * n]
    case("nvrtc12_memcpy_memset", "nvrtc12/device_malloc.sm_80.ptx", "memcpy_memset", [G], [B],
         [src, Z("u8", G * B * 64), S("s32", n)], {1: out(dst.reshape(-1), why="memset(local, tid & 0x7f) then memcpy of n=40 < 64 bytes, copied out whole")})

    # ---------------- cp_async (sm_80: cp.async groups, pipeline primitives, cg::memcpy_async) ----------------
    r = rng(303)
    G, nv = 2, 200
    g = r.standard_normal((G * 256, 4)).astype(f32)
    g1 = r.standard_normal(G * 256).astype(f32)
    e = np.zeros((G, 256), f32)
    for b in range(G):
        tt = np.arange(256)
        s16 = g[b * 256:(b + 1) * 256]
        s4 = g1[b * 256:(b + 1) * 256]
        s8 = np.where((tt < nv)[:, None], g1[:512].reshape(256, 2), f32(0)).astype(f32)
        a = ((s16[255 - tt, 0] + s16[tt, 3]).astype(f32) + s4[(tt + 1) & 255]).astype(f32)
        e[b] = ((a + s8[:, 0]).astype(f32) + s8[:, 1]).astype(f32)
    case("nvrtc12_cp_async_inline", "nvrtc12/cp_async.sm_80.ptx", "cp_async_inline", [G], [256],
         [g, g1, Z("f32", G * 256), S("s32", nv)],
         {2: out(e.reshape(-1), why="cp.async.cg 16 B / .ca 4 B / .ca 8 B with src-size (zero fill for t >= n_valid), commit/wait_group; f32 adds in source order")})
    tiles, G = 5, 2
    x = r.standard_normal(tiles * 256).astype(f32)
    acc = np.zeros(256, f32)
    for k in range(tiles):
        acc = (acc + x[k * 256 + ((np.arange(256) * 7) & 255)]).astype(f32)
    case("nvrtc12_pipeline_primitives_sum", "nvrtc12/cp_async.sm_80.ptx", "pipeline_primitives_sum", [G], [256],
         [x, Z("f32", G * 256), S("s32", tiles)],
         {1: out(np.tile(acc, G), why="double-buffered __pipeline_memcpy_async/commit/wait_prior(1); f32 accumulation in tile order")})
    G, B, n = 3, 128, 300
    xi = r.integers(-10**6, 10**6, G * n).astype(i32)
    case("nvrtc12_cg_memcpy_async", "nvrtc12/cp_async.sm_80.ptx", "cg_memcpy_async", [G], [B],
         [xi, np.array([5], i32), S("s32", n)],
         {1: out(np.array([5 + int(xi.sum())], i32), why="cg::memcpy_async of n ints into dynamic shared, cg::wait, integer atomicAdd (order-independent)")},
         shared=4 * n)


def cases_numba():
    r = rng(30)
    n = 1000
    a = r.standard_normal(n).astype(f32)
    b = r.standard_normal(n).astype(f32)
    for fx in ["numba/basics.vec_add_f32.sm_80.ptx", "numba/basics.vec_add_f32.sm_75.ptx"]:
        nm = "numba_vec_add_f32_" + fx.split(".")[-2]
        case(nm, fx, entry_name(fx), [4], [256], numba_array(a) + numba_array(b) + numba_zeros(f32, n),
             {18: out(a + b, why="f32 add; numba array args flattened to (meminfo, parent, nitems, itemsize, data, shape, strides)")})
    ai = r.integers(-2**62, 2**62, n, dtype=i64)
    bi = r.integers(-2**62, 2**62, n, dtype=i64)
    fx = "numba/basics.vec_add_i64.sm_80.ptx"
    with np.errstate(over="ignore"):
        case("numba_vec_add_i64", fx, entry_name(fx), [4], [256], numba_array(ai) + numba_array(bi) + numba_zeros(i64, n),
             {18: out(ai + bi, why="wrapping i64 add")})
    x = r.standard_normal(n).astype(f32)
    y = r.standard_normal(n).astype(f32)
    fx = "numba/basics.saxpy_stride.sm_90.ptx"
    case("numba_saxpy_stride", fx, entry_name(fx), [2], [128], [S("f32", "2.5")] + numba_array(x) + numba_array(y.copy()),
         {12: out(fma32(f32(2.5), x, y), why=WHY_FMA + "; grid-stride loop")})
    m = r.standard_normal((20, 30))
    rr, cc = np.meshgrid(np.arange(20), np.arange(30), indexing="ij")
    e = (fma64(m, 1.5, rr.astype(f64)) - cc).astype(f64)
    fx = "numba/basics.matrix_scale_2d.sm_80.ptx"
    case("numba_matrix_scale_2d", fx, entry_name(fx), [2, 2], [16, 16], numba_array(m) + [S("f64", "1.5")] + numba_zeros(f64, (20, 30)),
         {14: out(e, why=WHY_FMA + "; 2-D arrays with shape/stride params and a 2-D grid")},
         note="expected assumes NVVM contracts m*s + r into fma; see the PTX")
    x = r.uniform(-8, 8, 500)
    pv = ((0.5 * x + 1.25) * x - 3.0) * x + 7.0
    pv = fma64(fma64(fma64(np.full(500, 0.5), x, np.full(500, 1.25)), x, np.full(500, -3.0)), x, np.full(500, 7.0))
    fx = "numba/basics.device_calls.sm_80.ptx"
    case("numba_device_calls", fx, entry_name(fx), [2], [256], numba_array(x) + numba_zeros(f64, 500),
         {11: out(np.clip(pv, -100, 100), why=WHY_FMA + "; non-inlined device function")})
    a = r.integers(-2**20, 2**20, 256).astype(i32)
    b = r.integers(-2**20, 2**20, 256).astype(i32)
    a_, b_ = a.astype(i64), b.astype(i64)
    d = b_ | 1
    pyfloordiv = a_ // d
    pymod = a_ % d
    clz = np.array([32 - int(v).bit_length() if v >= 0 else 0 for v in b_.astype(i64) & 0xffffffff], i64)
    clz = np.array([32 - (int(v) & 0xffffffff).bit_length() for v in b_], i64)
    brev = np.array([int(format(int(v) & 0xffffffff, "032b")[::-1], 2) for v in a_], i64)
    popc = np.array([bin(int(v) & 0xffffffff).count("1") for v in a_], i64)
    e = pyfloordiv + pymod + (a_ << 3) + (a_ >> 2) + (a_ & b_) + (a_ | b_) + (a_ ^ b_) + popc + clz + brev
    fx = "numba/basics.int_ops.sm_80.ptx"
    case("numba_int_ops", fx, entry_name(fx), [1], [256], numba_array(a) + numba_array(b) + numba_zeros(i32, 256),
         {18: out(wrap32(e), why="Python floor division/modulo semantics, popc/clz/brev")},
         note="numba computes in int64 then stores to int32 (wraps)")
    fx = "numba/basics.grid3d.sm_80.ptx"
    sh = (8, 6, 4)
    xs, ys, zs = np.meshgrid(np.arange(8), np.arange(6), np.arange(4), indexing="ij")
    grid, block = (2, 3, 2), (4, 2, 2)
    nx, ny = 8, 6
    e = (xs + nx * (ys + ny * zs) + zs // 2).astype(i32)
    case("numba_grid3d", fx, entry_name(fx), grid, block, numba_zeros(i32, sh),
         {4: out(e, why="cuda.grid(3)/gridsize(3) with a 3-D array")})
    x = (r.integers(-100, 100, 1000) / 4).astype(f32)
    fx = "numba/sync_atomics.shared_reduce.sm_80.ptx"
    case("numba_shared_reduce", fx, entry_name(fx), [4], [256], numba_array(x) + numba_zeros(f32, 1),
         {11: out(np.array([x.astype(f64).sum()], f32), why=WHY_DYADIC)})
    xd = r.standard_normal(512)
    fx = "numba/sync_atomics.dynamic_shared.sm_80.ptx"
    case("numba_dynamic_shared", fx, entry_name(fx), [4], [128], numba_array(xd) + numba_zeros(f64, 512),
         {11: out(xd.reshape(4, 128)[:, ::-1].reshape(-1).copy(), why="cuda.shared.array(0) = dynamic shared")}, shared=128 * 8)
    xi = r.integers(-1000, 1000, 300).astype(i32)
    nt = 64
    o = np.zeros(nt * 16, i32)
    for i in range(nt):
        buf = np.sort(xi[(i * 16 + np.arange(16)) % 300])
        for k in range(16):
            o[i * 16 + k] = buf[(k * 7 + i) % 16]
    fx = "numba/sync_atomics.local_sort.sm_80.ptx"
    case("numba_local_sort", fx, entry_name(fx), [2], [32], numba_array(xi) + numba_zeros(i32, nt * 16),
         {11: out(o, why="cuda.local.array bubble sort")})
    a = (r.standard_normal(500) * 4).astype(f16)
    b = (r.standard_normal(500) * 4).astype(f16)
    e = fma32(a.astype(f32), b.astype(f32), f32(0.5)).astype(f16)
    fx = "numba/sync_atomics.fp16_ops.sm_80.ptx"
    case("numba_fp16_ops", fx, entry_name(fx), [2], [256], numba_array(a) + numba_array(b) + numba_zeros(f16, 500),
         {18: out(e, why="cvt.f32.f16, f32 fma (contracted), cvt.rn.f16.f32")},
         note="expected assumes NVVM contracts x*y + 0.5 into fma.rn.f32; see the PTX")
    vals = r.integers(-50, 50, 200).astype(i32)
    ints = np.array([0, 0, -10**6, 10**6, -1, 0, 0x0f0f, 0, 0, 0], i32)
    fl = np.array([0, -1e9], f32)
    dbl = np.array([0, np.inf])
    vv = vals.astype(i64)
    ei = ints.astype(i64).copy()
    ei[0] += vv.sum(); ei[1] -= vv.sum(); ei[2] = max(ei[2], vv.max()); ei[3] = min(ei[3], vv.min())
    ei[4] = int(np.bitwise_and.reduce(vv)) & ei[4]; ei[5] |= int(np.bitwise_or.reduce(vv)); ei[6] ^= int(np.bitwise_xor.reduce(vv))
    ef = np.array([(vv * 0.5).sum(), vv.max()], f32)
    ed = np.array([float(vv.sum()), float(vv.min())])
    fx = "numba/sync_atomics.atomics.sm_80.ptx"
    outs = {0: out(None, why="")}
    # exch / cas / inc results depend on thread order: only order-independent slots are compared
    e_ints = ints.copy()
    case_ints = None
    cnt = 200
    inc = 0
    for _ in range(cnt):
        inc = 0 if inc >= 100 else inc + 1
    ei[9] = inc  # 200 x atom.inc(100) from 0 gives the same count in any order
    e_ints = ei.astype(i32)
    case("numba_atomics", fx, entry_name(fx), [1], [256],
         numba_array(ints) + numba_array(fl) + numba_array(dbl) + numba_array(vals),
         {4: dict(out(e_ints, why="int atomics; slots 7 (exch) and 8 (cas) hold whichever thread came last/first, so they are skipped"), skip=[7, 8]),
          11: out(ef, why=WHY_DYADIC + "; float max"),
          18: out(ed, why=WHY_DYADIC + "; nanmin")},
         note="slots 7 (exch) and 8 (cas) depend on thread order and are not compared")


def wrap32(v):
    return (np.asarray(v, i64) & 0xffffffff).astype(u32).view(i32)


def cases_group_c():
    WHY_POW2 = "inputs are signed powers of two, so every partial product is exact and the scan's combine order cannot change the result"
    # sum_rows_kernel: 16 rows per program, acc += tl.sum over 256-column chunks (N divisible by 16)
    r = rng(400)
    M, N = 40, 528
    x = (r.integers(-1000, 1000, (M, N)) / 8).astype(f32)
    case("triton_sum_rows_f32", "triton/reductions.sum_rows_f32.sm_80.ptx", "sum_rows_kernel", [3], [128],
         [x, Z("f32", M), S("s32", M), S("s32", N)] + TRITON_SCRATCH,
         {1: out(x.astype(f64).sum(axis=1).astype(f32), why=WHY_DYADIC + " (k/8 values, row sums < 2^17: every partial sum exact, so the tree order cannot matter)")},
         shared=32768, note="M = 40 masks the last program's rows 40..47; N = 528 = 2 full 256-chunks + a masked one")
    # reduce_f64_kernel: per-block sum of x*x, atomically added into out[0]
    r = rng(401)
    n = 1500
    x = r.integers(-4096, 4096, n) / 64.0
    case("triton_sumsq_f64", "triton/reductions.sumsq_f64.sm_80.ptx", "reduce_f64_kernel", [3], [128],
         [x, np.zeros(1, f64), S("s32", n)] + TRITON_SCRATCH,
         {1: out(np.array([(x * x).sum()], f64), why=WHY_DYADIC + " (x = k/64, x*x = k^2/4096, total < 2^35: exact in f64 for any block/atomic order)")},
         shared=32768)
    # cumprod_scan_kernel: tl.associative_scan(mul) over 256-element rows
    r = rng(402)
    rows = 4
    k = r.integers(-1, 2, (rows, 256))
    x = (np.ldexp(1.0, k) * r.choice([-1.0, 1.0], (rows, 256))).astype(f32)
    case("triton_cumprod_f32", "triton/reductions.cumprod_f32.sm_80.ptx", "cumprod_scan_kernel", [rows], [64],
         [x, Z("f32", x.size)] + TRITON_SCRATCH,
         {1: out(np.cumprod(x.astype(f64), axis=1).astype(f32), why=WHY_POW2)}, shared=32768)
    # softmax_kernel (f32, BLOCK 1024, 4 warps): max, (x-m)*log2e (mul.f32) -> ex2.approx.f32, f32 sum tree, div.full.f32
    r = rng(403)
    rows, ncol, stride = 6, 1000, 1024
    x = (r.standard_normal((rows, stride)) * 2).astype(f32)
    t = ((x[:, :ncol] - x[:, :ncol].max(axis=1, keepdims=True)).astype(f32) * f32(1.4426950408889634)).astype(f32)  # mirrored exactly
    num = np.exp2(t.astype(f64))
    sm = np.zeros((rows, stride), f32)
    sm[:, :ncol] = (num / num.sum(axis=1, keepdims=True)).astype(f32)
    case("triton_softmax_f32_1024", "triton/softmax_norm.softmax_f32_1024.sm_80.ptx", "softmax_kernel", [rows], [128],
         [Z("f32", rows * stride), x, S("s32", stride), S("s32", stride), S("s32", ncol)] + TRITON_SCRATCH,
         {0: out(sm, "rel:1.2e-6", why="x-max and *log2e mirrored in f32; ex2.approx.f32 rel 2^-22.5 (PTX ISA) in numerator and in every term of the "
                 "positive-term sum; the sum's 10-level tree (3 in-thread, 5 shfl.bfly, 2 cross-warp) <= 10*2^-24; div.full.f32 2 ulp (PTX ISA) "
                 "-> 2*1.69e-7 + 5.96e-7 + 2.38e-7 = 1.17e-6 relative")},
         shared=32768, note="n_cols = 1000 < BLOCK: columns 1000..1023 are masked (load -inf, not stored; expected 0)")
    # rmsnorm_kernel (bf16, BLOCK 2048, 8 warps): sum x*x (mul + fma, tree), div.full by N, + eps, rsqrt.approx.ftz, (r*x)*w -> cvt.rn.bf16
    r = rng(404)
    rows, N = 5, 1500
    xb = to_bf16_bits(r.standard_normal((rows, N)))
    wb = to_bf16_bits(r.uniform(0.5, 1.5, N))
    xv, wv = bf16_val(xb).astype(f64), bf16_val(wb).astype(f64)
    eps = f32(1e-5)
    ms = (xv * xv).sum(axis=1, keepdims=True) / N + float(eps)
    y = xv / np.sqrt(ms) * wv
    case("triton_rmsnorm_bf16", "triton/softmax_norm.rmsnorm_bf16.sm_80.ptx", "rmsnorm_kernel", [rows], [256],
         [xb, wb, Z("u16", rows * N), S("s32", N), S("s32", N), S("f32", "1e-5")] + TRITON_SCRATCH,
         {2: out(to_bf16_bits(y), "rel:7.9e-3", as_="bf16",
                 why="y = x*r*w is a product, so the f32 error is relative: sum of squares <= 12 roundings (2^-24 each, positive terms), div.full 2 ulp, "
                     "rsqrt.approx.ftz 2^-21.4 rel (PTX ISA abs 2^-22.4 on [1,4)), 2 muls -> ~1.5e-6; both sides round to bf16 (<= 1 bf16 ulp = 2^-7 rel apart)")},
         shared=32768, note="expected is the exactly rounded bf16 of the real x/sqrt(mean(x^2)+eps)*w; eps is the f32 nearest 1e-5")
    # gelu_fp16_kernel: 0.5*x*(1 + erf(x*0.70710677)) with libdevice erff, cvt.rn.f16
    r = rng(405)
    n = 2048 + 512
    xh = np.clip(r.standard_normal(n) * 1.5, -4, 4).astype(f16)
    xf = xh.astype(f32)
    arg = (xf * f32(0.7071067811865476)).astype(f32)  # mul.f32 by 0f3F3504F3, mirrored
    erf = np.array([math.erf(float(v)) for v in arg.astype(f64)])
    gy = 0.5 * xf.astype(f64) * (1.0 + erf)
    case("triton_gelu_fp16", "triton/vector_ops.gelu_fp16.sm_80.ptx", "gelu_fp16_kernel", [3], [128],
         [xh, Z("f16", n), S("s32", n)] + TRITON_SCRATCH,
         {1: out(gy.astype(f16), "rel:9.77e-4,abs:1e-6",
                 why="erff <= 2 ulp (CUDA guide; libdevice inlined, ex2.approx.ftz inside) -> |d(1+erf)| <= 2.5*2^-24 + 2^-24, times 0.5|x| <= 2, "
                     "plus 2 muls: f32 error <= |x|*1.75*2^-24 + 1.2e-7|y| < 1e-6 abs; both sides round to f16 (<= 1 f16 ulp = 2^-10 rel apart)")},
         note="n = 2560 leaves the third block half masked; x*0.70710677 is mirrored in f32, erf from math.erf in f64")
    # layernorm_fwd_kernel (f16 X/Y/W/B, f32 Mean/Rstd; BLOCK 1024, 8 warps, two loop trips with N = 1536)
    r = rng(406)
    rows, N = 4, 1536
    xh = (r.integers(-1024, 1024, (rows, N)) / 256).astype(f16)  # k/256: the f32 row sums are exact
    wh = r.uniform(0.5, 1.5, N).astype(f16)
    bh = (r.standard_normal(N) * 0.5).astype(f16)
    xv = xh.astype(f64)
    mean = xv.sum(axis=1) / N
    var = ((xv - mean[:, None]) ** 2).sum(axis=1) / N
    rstd = 1.0 / np.sqrt(var + float(f32(1e-5)))
    yv = (xv - mean[:, None]) * rstd[:, None] * wh.astype(f64) + bh.astype(f64)
    case("triton_layernorm_fwd_f16", "triton/softmax_norm.layernorm_fwd_f16.sm_80.ptx", "layernorm_fwd_kernel", [rows], [256],
         [xh, Z("f16", rows * N), wh, bh, Z("f32", rows), Z("f32", rows), S("s32", N), S("s32", N), S("f32", "1e-5")] + TRITON_SCRATCH,
         {1: out(yv.astype(f16), "rel:9.77e-4,abs:1.2e-5",
                 why="f32 y = fma((x-mean)*rstd, w, b): rstd rel <= 1e-6 (below) times |t*w| <= 8, plus 3 roundings of values <= 10 -> < 1.2e-5 abs; "
                     "both sides round to f16 (<= 1 f16 ulp = 2^-10 rel apart)"),
          4: out(mean.astype(f32), "rel:3e-7", why="inputs k/256, so the row sum is exact; div.full.f32 by N within 2 ulp (PTX ISA), + 0.5 ulp rounding of the reference"),
          5: out(rstd.astype(f32), "rel:1e-6",
                 why="var: fma-squares and a 10-level tree of positive terms (<= 11*2^-24), div.full 2^-22, +eps; sqrt.approx.ftz taken at 2 ulp "
                     "(PTX ISA states none; CUDA's non-IEEE sqrtf), 1/sqrt by div.full 2 ulp -> ~8e-7 relative")},
         shared=32768)
    # fused_math_kernel: ten math functions summed, sign flip, clamp to [-10, 10], then x/alpha (div.full), div_rn, floor, ceil
    r = rng(407)
    n, alpha = 1200, 0.75
    x = r.uniform(-2, 2, n).astype(f32)
    xd, ax = x.astype(f64), np.abs(x)
    a1 = (ax + f32(1)).astype(f32).astype(f64)  # |x| + 1.0 and |x| + 2.0 are f32 adds, mirrored
    a2 = (ax + f32(2)).astype(f32).astype(f64)
    erf = np.array([math.erf(v) for v in xd])
    y = np.exp(xd) + np.log(a1) + np.sin(xd) * np.cos(xd) + np.sqrt(ax.astype(f64))
    y = y + 1.0 / (1.0 + np.exp(-xd)) * alpha + 1.0 / np.sqrt(a1) + erf + np.exp2(xd) + np.log2(a2)
    y = np.where(xd > 0, y, -y)
    y = np.minimum(np.maximum(y, -10.0), 10.0)
    y = y + xd / alpha + xd / (alpha + 1.0) + np.floor(xd) + np.ceil(xd)
    case("triton_fused_math", "triton/vector_ops.fused_math.sm_80.ptx", "fused_math_kernel", [3], [128],
         [x, Z("f32", n), S("s32", n), S("f32", alpha)] + TRITON_SCRATCH,
         {1: out(y.astype(f32), "abs:2e-5",
                 why="|x| <= 2: function errors (ex2.approx 2^-22.5 rel in exp/exp2/sigmoid, logf/log2f 1 ulp, sinf/cosf/erff 2 ulp (CUDA guide), "
                     "rsqrt.approx 2^-21.4 rel, sqrt.approx 2 ulp, div.full 2 ulp) sum to < 6e-6; 13 f32 adds of partials < 32 at 2^-20 each "
                     "-> < 1.8e-5 absolute; the clamp is 1-Lipschitz, floor/ceil/div_rn exact")},
         note="reference is the exact real result in f64 with the kernel's f32 arguments |x|+1, |x|+2 mirrored")


def cases_triton():
    r = rng(40)
    n = 3000
    a = r.standard_normal(n).astype(f32)
    b = r.standard_normal(n).astype(f32)
    for cc in ("sm_80", "sm_90"):
        case(f"triton_add_f32_b1024_{cc}", f"triton/vector_ops.add_f32_b1024.{cc}.ptx", "add_kernel", [3], [128],
             [a[:3072 - 72], b[:3072 - 72], Z("f32", 3000), S("s32", 3000)] + TRITON_SCRATCH,
             {2: out(a[:3000] + b[:3000], why="f32 add, 1024-element blocks over 128 threads (vectorized ld.global.v4)")})
    n = 1000
    ah = (r.standard_normal(n) * 8).astype(f16)
    bh = (r.standard_normal(n) * 8).astype(f16)
    case("triton_add_f16_b256", "triton/vector_ops.add_f16_b256.sm_80.ptx", "add_kernel", [4], [64],
         [ah, bh, Z("f16", n), S("s32", n)] + TRITON_SCRATCH, {2: out((ah.astype(f32) + bh.astype(f32)).astype(f16), why="f16 add (correctly rounded), masked tail")})
    ai = r.integers(-2**62, 2**62, 300, dtype=i64)
    bi = r.integers(-2**62, 2**62, 300, dtype=i64)
    with np.errstate(over="ignore"):
        case("triton_add_i64_b128", "triton/vector_ops.add_i64_b128.sm_90.ptx", "add_kernel", [3], [32],
             [ai, bi, Z("i64", 300), S("s32", 300)] + TRITON_SCRATCH, {2: out(ai + bi, why="wrapping i64 add")})
    x = r.standard_normal(700)
    y = r.standard_normal(700)
    case("triton_axpy_f64", "triton/vector_ops.axpy_f64.sm_80.ptx", "fp64_axpy_kernel", [3], [128],
         [x, y.copy(), S("f64", "0.3"), S("s32", 700)] + TRITON_SCRATCH, {1: out(fma64(0.3, x, y), why=WHY_FMA)},
         note="expected assumes the a*x + y is contracted to fma.rn.f64 (see PTX)")
    a = (r.standard_normal(600) * 50).astype(f32)
    bf = to_bf16_bits(a)
    case("triton_casts", "triton/vector_ops.casts.sm_80.ptx", "cast_kernel", [3], [128],
         [a, Z("u16", 600), Z("i32", 600), Z("f64", 600), S("s32", 600)] + TRITON_SCRATCH,
         {1: out(bf, why="cvt.rn.bf16.f32", as_="bf16"), 2: out(np.trunc((a * f32(100)).astype(f32)).astype(i32), why="f32 mul then cvt.rzi.s32.f32"),
          3: out(a.astype(f64) * 3.0, why="cvt.f64.f32 then f64 mul")})
    M, N = 96, 80  # the fixture was compiled assuming M and N divisible by 16 (vectorized, unmasked-within-16 stores)
    x = r.standard_normal((M, N)).astype(f32)
    case("triton_transpose_f32_64", "triton/attention_misc.transpose_f32_64.sm_80.ptx", "transpose_kernel", [2, 2], [128],
         [x, Z("f32", M * N), S("s32", M), S("s32", N)] + TRITON_SCRATCH, {1: out(x.T.copy(), why="data movement through shared memory, masked edges")},
         shared=32768)
    xi = r.integers(-1000, 1000, (4, 512)).astype(i32)
    case("triton_cumsum_i32", "triton/reductions.cumsum_i32.sm_80.ptx", "cumsum_kernel", [4], [128],
         [xi, Z("i32", xi.size)] + TRITON_SCRATCH, {1: out(np.cumsum(xi, axis=1).astype(i32), why="integer scan (shfl + shared)")}, shared=32768)
    xi = r.integers(0, 64, 3000).astype(i32)
    case("triton_histogram_64", "triton/reductions.histogram_64.sm_80.ptx", "histogram_kernel", [3], [128],
         [xi, Z("i32", 64), S("s32", 3000)] + TRITON_SCRATCH,
         {1: out(np.bincount(xi, minlength=64).astype(i32) + np.array([72] + [0] * 63, i32), why="atomic counts; masked lanes load 0 (other=0) and are counted in bin 0")},
         shared=32768, note="tl.histogram counts the masked-off tail as value 0 (3072 - 3000 = 72 extra in bin 0)")
    x = r.standard_normal((8, 1000)).astype(f32)
    x[3, 17] = 9.0
    mx = x.max(axis=1)
    am = x.argmax(axis=1).astype(i32)
    amin = np.full(8, 1000, i32)  # masked lanes load other=-inf, so argmin is the first masked column
    idxbuf = np.zeros(4096 + 8, i32)
    idxbuf[:8] = am
    idxbuf[4096:4096 + 8] = amin
    case("triton_max_argmax_f32", "triton/reductions.max_argmax_f32.sm_80.ptx", "max_argmax_kernel", [8], [128],
         [x, Z("f32", 8), Z("i32", 4096 + 8), S("s32", 1000)] + TRITON_SCRATCH,
         {1: out(mx, why="max is exact"), 2: out(idxbuf, why="argmax indices (distinct values); argmin finds the -inf padding at column N")}, shared=32768)
    x = (r.integers(-1000, 1000, 5000) / 8).astype(f32)
    case("triton_global_sum_atomic", "triton/reductions.global_sum_atomic.sm_80.ptx", "global_sum_atomic_kernel", [3], [256],
         [x, np.array([0, -1e30], f32), S("s32", 5000)] + TRITON_SCRATCH,
         {1: out(np.array([x.astype(f64).sum(), x.max()], f32), why=WHY_DYADIC + "; atomic max")}, shared=32768)


def cases_printf_trap():
    """printf output, assert/trap/brkpt diagnostics, sm_90 fences and f16 -> f32 (rng seeds 4200..4299)."""
    fx = "nvrtc12/printf_assert.sm_80.ptx"
    # ---------------- printf_kinds: every conversion nvcc's vprintf buffer carries ----------------
    r = rng(4200)
    G, B = 2, 40
    n = G * B
    f = (r.standard_normal(n) * 1000).astype(f32)
    f[:8] = [0.0, -0.0, np.inf, -np.inf, 1e-45, 3.4028235e38, 0.125, -2.5]
    d = r.standard_normal(n) * 1e5
    d[:6] = [0.0, -0.0, 5e-324, 1.7976931348623157e308, 1 / 3, -np.inf]
    iv = r.integers(-2**31, 2**31, n, dtype=i64).astype(i32)
    iv[:3] = [0, -2**31, 2**31 - 1]
    ll = r.integers(-2**63, 2**63 - 1, n, dtype=i64)
    ll[:3] = [0, -2**63, 2**63 - 1]
    s = np.frombuffer(b"ptx % string\0", u8)
    lines = []
    for blk in range(G):  # ptxvm's documented order: CTAs, then threads by index, each in program order
        for tid in range(B):
            t = blk * B + tid
            fv = float(f[t])
            lines.append("hello from block %d thread %d" % (blk, tid))
            lines.append("float %f double %.10e int %d ll %d hex %x" % (fv, float(d[t]), int(iv[t]), int(ll[t]), int(iv[t]) & 0xffffffff))
            lines.append("ptr <PTR> char %c string %s" % (chr(65 + t % 26), "ptx % string"))
            if t == 0:
                lines.append("no args")
            lines.append("%u %hd %lu %g %5.2f%%" % (t, t, t, fv * 2.0, fv))
    case("nvrtc12_printf_kinds", fx, "printf_kinds", [G], [B], [f, d, iv, ll, s], {},
         stdout="\n".join(lines) + "\n",
         note="expected text from Python's %-formatting (C printf semantics: correctly rounded %f/%e/%g, inf, -0); "
              "%p prints a device address, matched as any 0x... value; order: CTAs in launch order, threads by "
              "linear index, each thread's lines in program order (ptxvm's documented deterministic order)")

    # ---------------- checked_divide: assert() passes, then fails in two ways ----------------
    n = 200
    a = r.integers(0, 2**31, n, dtype=i64).astype(i32)
    b = r.integers(-2**31, 2**31, n, dtype=i64).astype(i32)
    b[b == 0] = 7
    a[:4], b[:4] = [2**31 - 1, 0, 7, 7], [-1, -5, 2, -2]
    q = (np.trunc(a.astype(f64) / b.astype(f64))).astype(i32)  # |a|, |b| < 2^31: the f64 quotient truncates exactly
    case("nvrtc12_checked_divide", fx, "checked_divide", [2], [128], [a, b, Z("i32", n), S("s32", n)],
         {2: out(q, why="div.s32 truncates toward zero (no overflow: the asserts keep a >= 0 and b != 0)")},
         note="threads t >= n do nothing; the last 56 of 256 threads test the bound check")
    bz = b.copy()
    bz[77] = 0
    case("nvrtc12_checked_divide_assert_zero", fx, "checked_divide", [2], [128], [a, bz, Z("i32", n), S("s32", n)], {},
         error=["assertion failed: b[t] != 0", "printf_assert.cu:19", "in void checked_divide(", "in kernel `checked_divide`",
                "CTA (0, 0, 0), thread (77, 0, 0), lane 13"],
         note="assert(b[t] != 0) fails in thread 77 only: __assertfail ends the launch with the message, file, line and function")
    an = a.copy()
    an[130] = -3
    case("nvrtc12_checked_divide_assert_negative", "nvrtc12/printf_assert.sm_80.lineinfo.ptx", "checked_divide", [2], [128],
         [an, b, Z("i32", n), S("s32", n)], {},
         error=['assertion failed: a[t] >= 0 && "negative numerator"', "printf_assert.cu:20", "in kernel `checked_divide`",
                "CTA (1, 0, 0), thread (2, 0, 0), lane 2", "printf_assert.cu:20)"],
         note="the -lineinfo build: the diagnostic also names the .loc source line")

    # ---------------- trap_and_brkpt ----------------
    v = r.integers(-2**31, 2**31, 96, dtype=i64)
    v = np.abs(v).clip(0, 2**31 - 1).astype(i32)
    v[v == 12345] = 1
    v[:3] = [0, 2**31 - 1, 12344]
    case("nvrtc12_trap_and_brkpt", fx, "trap_and_brkpt", [1], [96], [v, Z("i32", 96)],
         {1: out((v.astype(i64) * 2).astype(np.uint64).astype(u32).view(i32), why=WHY_INT + " (wrapping mul by 2); no trap, no breakpoint")})
    vt = v.copy()
    vt[50] = -1
    case("nvrtc12_trap_and_brkpt_trap", fx, "trap_and_brkpt", [1], [96], [vt, Z("i32", 96)], {},
         error=["`trap` executed", "in kernel `trap_and_brkpt`", "CTA (0, 0, 0), thread (50, 0, 0), lane 18"],
         note="v[50] < 0: __trap() in the inlined trap_if ends the launch")
    vb = v.copy()
    vb[33] = 12345
    case("nvrtc12_trap_and_brkpt_brkpt", fx, "trap_and_brkpt", [1], [96], [vb, Z("i32", 96)], {},
         error=["`brkpt` executed", "no debugger is attached", "CTA (0, 0, 0), thread (33, 0, 0), lane 1"],
         note="v[33] == 12345: __brkpt() suspends the thread at a breakpoint; with no debugger the launch stops there")

    # ---------------- fences_sm90: fence.acq_rel.cluster, fence.proxy.async, st.release / ld.acquire ----------------
    B = 96
    data = np.arange(B, dtype=i32)
    data[0] = 1
    case("nvrtc12_fences_sm90", "nvrtc12/cluster_sm90.sm_90.ptx", "fences_sm90", [1], [B], [Z("i32", 1), Z("i32", B)],
         {0: out(np.array([1], i32), why="st.release.gpu of 1 by thread 0"),
          1: out(data, why="data[t] = t, then thread 0 overwrites data[0] with the flag it reads back with ld.acquire.sys")})

    # ---------------- convert<float, __half>: cvt.f32.f16 ----------------
    hb = r.integers(0, 2**16, 1024, dtype=i64).astype(u16)
    hb[:12] = [0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7d01]
    h = hb.view(f16)
    e = h.astype(f32)
    e.view(u32)[np.isnan(h)] = 0x7fffffff
    case("nvrtc12_convert_f16_to_f32", "nvrtc12/templates.sm_80.ptx", "_Z7convertIf6__halfEvPKT0_PT_i", [4], [256],
         [h, Z("f32", 1024), S("s32", 1024)],
         {1: out(e, why="cvt.f32.f16 is exact (subnormals, infinities, signed zeros); every f16 NaN becomes the canonical "
                        "f32 NaN 0x7fffffff, ptxvm's documented NaN rule (docs/numerics-half-convert.md)")})


def numba_warp_ops_ref(x):
    """sync_atomics.warp_ops per 32-lane warp, in the PTX's widths: the first shfl.down moves the
    int32 input, then numba's int64 sum travels as two 32-bit shuffles; votes on the int64 value."""
    outv = np.zeros(x.size, i64)
    lanes = np.arange(32)
    for w in range(x.size // 32):
        v = x[w * 32:(w + 1) * 32].astype(i64)
        v = v + v[np.where(lanes + 16 < 32, lanes + 16, lanes)]  # shfl.down 16, clamp 31
        v = v + v[np.where(lanes >= 1, lanes - 1, lanes)]       # shfl.up 1 (two halves, same lanes)
        v = v + v[lanes ^ 4]                                     # shfl.bfly 4
        v = v + v[0]                                             # shfl.idx 0
        ballot = sum(1 << int(k) for k in lanes if v[k] > 0)
        all_ = int((v > -1000).all())
        any_ = int((v > 1000).any())
        match = np.array([sum(1 << k for k in range(32) if (k & 3) == (l & 3)) for l in range(32)], i64)
        outv[w * 32:(w + 1) * 32] = v + bin(ballot).count("1") + all_ + any_ + match + 0xffffffff
    return wrap32(outv)


def cases_numba_more():
    """numba warp intrinsics, print() and thread fences; kernels on the implicit 1x1x1 cluster (rng seeds 4300..4399)."""
    r = rng(4300)
    G, B = 2, 64
    x = r.integers(-2**31, 2**31, G * B, dtype=i64).astype(i32)
    x[64:] = r.integers(-300, 300, 64)  # the second CTA: small values, so all/any/ballot vary by warp
    x[96:128] = np.abs(x[96:128]) // 8   # one warp all positive: all() true, ballot full
    fx = "numba/sync_atomics.warp_ops.sm_80.ptx"
    case("numba_warp_ops", fx, entry_name(fx), [G], [B], numba_array(x) + numba_zeros(i32, G * B),
         {11: out(numba_warp_ops_ref(x), why=WHY_INT + ": shfl down/up/bfly/idx (64-bit values as two 32-bit shuffles), "
                  "ballot/all/any, match.any, activemask, int64 sum wrapped to int32 at the store")})
    xf = np.array([1.5, -0.0, 3.25e10, -1e-3, 7.0, 8.0], f32)
    fx = "numba/sync_atomics.printf.sm_80.ptx"
    case("numba_print", fx, entry_name(fx), [2], [32], numba_array(xf),
         {}, stdout="".join("%s %d %s %f\n" % ("thread", i, "value", float(xf[i])) for i in range(2)),
         note="print(\"thread\", i, \"value\", x[i]) becomes vprintf(\"%s %lld %s %f\\n\"); only i < 2 print")
    G, B = 2, 64
    fx = "numba/sync_atomics.fences.sm_80.ptx"
    case("numba_fences", fx, entry_name(fx), [G], [B], numba_zeros(i32, 1) + numba_zeros(i32, G * B),
         {4: out(np.array([B - 1], i32), why="thread 0 reads data[blockDim - 1] after the fences and syncthreads"),
          11: out(np.arange(G * B, dtype=i32), why="data[i] = i")})

    # ---------------- kernels on the implicit 1x1x1 cluster (no __cluster_dims__) ----------------
    G, B = 3, 64
    e = np.repeat(0 + 1 * 10 + np.arange(G) * 100 + G * 1000 + 0, B).astype(u32)
    case("nvrtc12_cluster_sregs", "nvrtc12/cluster_sm90.sm_90.ptx", "cluster_sregs", [G], [B], [Z("u32", G * B)],
         {0: out(e, why="implicit 1x1x1 clusters: %cluster_ctarank 0, %cluster_nctarank 1, %clusterid.x = %ctaid.x, "
                        "%nclusterid.x = %nctaid.x, %is_explicit_cluster false; barrier.cluster and griddepcontrol complete")})
    # The same kernel launched with clusters of 2 (ptxvm run --cluster 2): rank = ctaid % 2, two
    # CTAs per cluster, %clusterid.x = ctaid / 2 of G / 2 clusters, %is_explicit_cluster true.
    G2 = 4
    ctaid = np.repeat(np.arange(G2), B)
    e = (ctaid % 2 + 2 * 10 + (ctaid // 2) * 100 + (G2 // 2) * 1000 + 1).astype(u32)
    case("nvrtc12_cluster_sregs_cluster2", "nvrtc12/cluster_sm90.sm_90.ptx", "cluster_sregs", [G2], [B], [Z("u32", G2 * B)],
         {0: out(e, why="clusters of 2 given at launch: %cluster_ctarank = ctaid % 2, %cluster_nctarank 2, "
                        "%clusterid.x = ctaid / 2, %nclusterid.x = G / 2, %is_explicit_cluster true; "
                        "barrier.cluster completes across both CTAs")}, cluster=[2, 1, 1])

    # ---------------- multi-CTA clusters (__cluster_dims__: .explicitcluster .reqnctapercluster) ----------------
    # cluster_histogram: clusters of 2; each cluster's two shared halves hold bins [0, 32) and
    # [32, 64); every thread adds 1 to bin in[i] % 64 in the CTA that owns it (map_shared_rank +
    # atomicAdd on shared::cluster), then each CTA adds its half into the global bins. Every cluster
    # adds its counts, so the result is the histogram of the whole input.
    rc = rng(4390)
    nb, n = 64, 1000
    hin = rc.integers(0, 1 << 20, n).astype(i32)
    case("nvrtc12_cluster_histogram", "nvrtc12/cluster_sm90.sm_90.ptx", "cluster_histogram", [4], [64],
         [hin, Z("i32", nb), S("s32", nb), S("s32", n)],
         {1: out(np.bincount(hin % nb, minlength=nb).astype(i32), why=WHY_INT + ": a histogram (counts in "
                 "distributed shared memory, by cluster.map_shared_rank and atomicAdd)")},
         shared=(nb + 1) // 2 * 4)
    # cluster_neighbor_sum: clusters of 4 CTAs of 128 threads; v = s[t] + (rank (r+1)%4's s[t]),
    # then out = v + 4.0 (cluster.dim_blocks().x), each add an f32 rounding.
    G4 = 8
    xs = (rc.standard_normal(G4 * 128) * 100).astype(f32)
    blk = np.arange(G4)
    nbr = (blk // 4) * 4 + (blk % 4 + 1) % 4
    own = xs.reshape(G4, 128)
    v = (own + own[nbr]).astype(f32)
    ens = (v + f32(4.0)).astype(f32).reshape(-1)
    case("nvrtc12_cluster_neighbor_sum", "nvrtc12/cluster_sm90.sm_90.ptx", "cluster_neighbor_sum", [G4], [128],
         [xs, Z("f32", G4 * 128)],
         {1: out(ens, why="two correctly rounded f32 adds per element: own + the next rank's shared value (read "
                          "through cluster.map_shared_rank), then + 4.0 (the cluster's width)")})

    # cg_cluster_reduce (cooperative_groups, no __cluster_dims__): launched with clusters of 2,
    # 4 and 8 over 8 CTAs of 64 threads; rank 0 of cluster c sums in[(c*n + r)*64 + t] over the
    # ranks r through map_shared_rank (generic mapa); ranks[b] = block_rank + 100 * num_blocks +
    # 10000 * block_index().x, with block_rank = block_index().x = b % n.
    xr = rc.integers(-2**20, 2**20, 8 * 64).astype(i32)
    for ncl in (2, 4, 8):
        sums = xr.reshape(8 // ncl, ncl, 64).astype(i64).sum(axis=1).reshape(-1)
        b = np.arange(8)
        case(f"nvrtc12_cg_cluster_reduce_{ncl}", "nvrtc12/cluster_cg_sm90.sm_90.ptx", "cg_cluster_reduce", [8], [64],
             [xr, Z("i32", 8 // ncl * 64), Z("u32", 8)],
             {1: out(wrap32(sums).astype(i32), why=WHY_INT + ": each cluster's sum over its ranks' shared copies, read "
                     "through cluster.map_shared_rank after cluster.sync()"),
              2: out((b % ncl + 100 * ncl + 10000 * (b % ncl)).astype(u32),
                     why="cluster.block_rank(), num_blocks() and block_index().x of a 1-D cluster")},
             cluster=[ncl, 1, 1])

    # warp_specialized_bulk (one CTA of two warpgroups): warpgroup 0 (setmaxnreg.dec, elect.sync)
    # bulk-copies the CTA's 1024 floats of g into shared memory with mbarrier complete_tx;
    # warpgroup 1 (setmaxnreg.inc) waits for the mbarrier's phase 0, sums tile[t], tile[t+128], ...
    # in order from 0.0 (8 f32 adds) into out[t], and its first warp stores the sums' bits with
    # stmatrix.x4 (lane l gives row l%8 of matrix l/8): mat_out[t] = st[t] | st[t+32] << 16, where
    # half-word h of matrix 0 (row h/8, column h%8) is half h%2 of the sum of lane 4(h/8) + (h%8)/2.
    rw = rng(4391)
    gws = (rw.standard_normal(1024) * 10).astype(f32)
    sws = np.zeros(128, f32)
    for j in range(8):
        sws = (sws + gws[j * 128:(j + 1) * 128]).astype(f32)
    bws = sws.view(u32)

    def ws_half(h):
        return (int(bws[4 * (h // 8) + (h % 8) // 2]) >> (16 * (h % 2))) & 0xFFFF
    mws = np.array([ws_half(t) | (ws_half(t + 32) << 16) for t in range(32)], u32)
    for comp in ("nvrtc12", "nvrtc13"):
        case(f"{comp}_warp_specialized_bulk", f"{comp}/wgmma_sm90a.sm_90a.ptx", "warp_specialized_bulk", [1], [256],
             [gws, Z("f32", 128), Z("u32", 32)],
             {1: out(sws, why="8 correctly rounded f32 adds per thread, in the kernel's order, over the tile the "
                              "producer warpgroup's bulk copy delivered"),
              2: out(mws, why="the stmatrix.x4 layout of the PTX ISA: row r of matrix m is lanes 4r..4r+3's "
                              "register m, low half first")})

    xin = (r.standard_normal(G * B) * 100).astype(f32)
    xin[:3] = [-0.0, -5.0, 3.4028235e38]
    case("clang19_mbarrier_cluster", "clang19/wgmma_sm90a.sm_90a.ptx", "mbarrier_cluster", [G], [B], [xin, Z("f32", G * B)],
         {1: out(np.full(G * B, 1.0, f32), why="an mbarrier for the whole CTA (arrive, test_wait spin), then v * ctarank + nctarank "
                                               "= v * 0 + 1 = 1 for every finite v (a negative v gives -0 + 1 = 1)")})


def cases_math():
    """Math-library kernels compared with tolerances (documented in tests/expected/README.md)."""
    r = rng(50)
    n = 512
    x = r.uniform(-6, 6, n).astype(f32)
    v = x.astype(f64)
    gelu = 0.5 * v * (1 + np.tanh(0.7978845608 * (v + 0.044715 * v ** 3)))
    sg = 1 / (1 + np.exp(-v))
    erf = np.vectorize(math.erf)
    sig = sg + 0.5 * v * (1 + erf(v * 0.70710678))
    why = ("tanhf/expf/erff are within 2 ulp (CUDA Programming Guide, single-precision table); the surrounding f32 "
           "mul/add/div each add 0.5 ulp and cancellation in v*(1+tanh) / 1+exp(-v) near the tails; "
           "bound = 8 ulp relative plus 2^-20 absolute near zero")
    for comp, arch in [("nvrtc13", "sm_80"), ("nvrtc12", "sm_80.fastmath")]:
        tol = "rel:1e-6,abs:1e-6" if "fast" not in arch else "rel:2e-5,abs:2e-5"
        w = why if "fast" not in arch else ("-use_fast_math: expf -> ex2.approx.ftz (rel 2^-22.5 per PTX ISA), tanhf -> "
                                            "its fast path, 1/x -> rcp.approx/div.approx (2 ulp); bound = 2^-15.6 relative/absolute")
        case(f"{comp}_gelu_silu_{arch.replace('.', '_')}", f"{comp}/float_math.{arch}.ptx", "gelu_silu", [2], [256],
             [x, Z("f32", n), Z("f32", n), Z("f32", n), S("s32", n)],
             {1: out(gelu.astype(f32), tol, w), 2: out((v * sg).astype(f32), tol, w), 3: out(sig.astype(f32), tol, w)})
    # numba f64 math: libdevice f64 functions are within 1-2 ulp (CUDA guide, double-precision table)
    x = r.uniform(-4, 4, 300)
    ex = (np.sqrt(np.abs(x)) + np.exp(x) + np.log(np.abs(x) + 1.0) + np.sin(x) * np.cos(x) + np.abs(x) ** 1.5 + np.tanh(x)
          + np.arctan2(x, 2.0) + erf(x) + np.floor(x) + x / 3.0)
    fx = "numba/basics.f64_math.sm_80.ptx"
    case("numba_f64_math", fx, entry_name(fx), [2], [256], numba_array(x) + numba_zeros(f64, 300),
         {11: out(ex, "rel:1e-14,abs:1e-14", "10 libdevice f64 functions, each <= 2 ulp (CUDA guide; pow <= 2, exp/log/sin/cos/tanh/atan2 <= 2, erf <= 2, sqrt exact), summed: bound 10 x 2 ulp of the largest term (exp(4) ~ 55) ~ 2.4e-14 absolute on sums of that size")})
    x = r.uniform(-8, 8, 300).astype(f32)
    v = x.astype(f64)
    ex = np.exp(v) + np.log(np.abs(v) + 1) + np.sin(v) + np.sqrt(np.abs(v)) + np.hypot(v, 2) + v / 7
    for fx, tol, w in [("numba/basics.f32_math.sm_80.ptx", "rel:2e-6,abs:4e-6",
                        "expf/logf/sinf/hypotf <= 2-3 ulp (CUDA guide), sqrt and / correctly rounded, 5 f32 adds: bound ~16 ulp relative, 4e-6 absolute for sums near zero"),
                       ("numba/basics.f32_math_fastmath.sm_80.ptx", "rel:2e-5,abs:4e-5",
                        "fastmath: ex2.approx (2^-22.5 rel), lg2.approx (2^-22.6 abs), sin.approx (2^-20.9 abs, PTX ISA), rcp/div approx 2 ulp; exp(8)~3000 carries 2 + 1.16*8 ulp (CUDA guide __expf)")]:
        nm = "numba_" + fx.split(".")[1]
        case(nm, fx, entry_name(fx), [2], [256], numba_array(x) + numba_zeros(f32, 300), {11: out(ex.astype(f32), tol, w)})
    # half conversions: every cvt with an explicit rounding mode is exact
    n = 256
    fv = (r.standard_normal(n) * 300).astype(f32)
    ints = r.integers(-2000, 2000, n).astype(i32)
    dv = r.standard_normal(n) * 100
    a_ = f16_directed(fv, "rn"); b_ = f16_directed(fv, "rz"); c_ = f16_directed(fv, "rd"); e_ = f16_directed(fv, "ru")
    g_ = ints.astype(f64).astype(f16)
    k_ = dv.astype(f16)
    add = lambda p, q: (p.astype(f32) + q.astype(f32)).astype(f16)
    h = add(add(a_, b_), add(add(c_, e_), add(g_, k_)))
    sh = (np.trunc(a_.astype(f64)).astype(i64) + np.rint(e_.astype(f64)).astype(i64)
          + np.maximum(np.floor(c_.astype(f64)), 0).astype(i64))
    sh = sh.astype(i16).astype(i64) + (a_ < b_) + 2 * (c_ >= e_)  # __hisnan/__hisinf are 0 here
    sh = sh.astype(i16)
    case("nvrtc12_half_conversions", "nvrtc12/half_math.sm_80.ptx", "half_conversions", [1], [256],
         [fv, ints, dv, Z("f16", n), Z("i16", n), S("s32", n)],
         {3: out(h, why="cvt.{rn,rz,rm,rp}.f16.f32, cvt.rn.f16.s32/.f64 and f16 adds, all correctly rounded"),
          4: out(sh, why="cvt.rzi/rni/rmi to integers, f16 compares")})


# ----------------------------------------------------------------------------------------------
# library-math kernels of float_math / double_math / half_math / bf16_math / fp8 / complex / nbody

# CUDA C++ Programming Guide, "Mathematical Functions" appendix: maximum ulp error (from the
# correctly rounded result) of the single- and double-precision standard library functions.
ULP_F32 = dict(exp=2, log=1, sin=2, cos=2, tan=4, pow=4, rsqrt=2, cbrt=1, exp2=2, log2=1, log10=2, exp10=2,
               tanh=2, atan=2, asin=2, acos=2, atan2=3, erf=2, erfc=4, lgamma=6, tgamma=5, sinh=3, cosh=2,
               asinh=3, normcdf=5, erfinv=2, sincos=2, sinpi=1, cospi=1, sincospi=1)
ULP_F64 = dict(exp=1, log=1, sin=2, cos=2, pow=2, tanh=1, atan2=2, cbrt=1, erf=2, rsqrt=1, log1p=1, expm1=1,
               hypot=2)


def _sgn_cbrt(m, x):
    return m.sign(x) * m.cbrt(abs(x))


def f32_precise_ref(v):
    """Eb of f32_precise's y[i] for f32 inputs v (finite, |v| <= 10), in the kernel's order of adds."""
    L = lambda fn, args, k: Eb.lib(fn, args, ULP_F32[k], "f32")
    X = lambda a: Eb.exact(a, "f32")
    a = np.abs(v)
    a1 = (a + f32(1)).astype(f32)
    v01 = (v * f32(0.1)).astype(f32)
    r = L(lambda m, x: m.exp(x), [v], "exp") + L(lambda m, x: m.log(x), [a1], "log")
    r = r + L(lambda m, x: m.sin(x), [v], "sin")
    r = r + L(lambda m, x: m.cos(x), [v], "cos")
    r = r + L(lambda m, x: m.tan(x), [v], "tan")
    t = L(lambda m, x: m.power(x, m.mpf(0.75)), [a], "pow") + X(np.sqrt(a))
    t = t + L(lambda m, x: 1 / m.sqrt(x), [a1], "rsqrt")
    t = t + L(_sgn_cbrt, [v], "cbrt")
    r = r + t
    t = L(lambda m, x: m.power(2, x), [v], "exp2") + L(lambda m, x: m.log(x, 2), [a1], "log2")
    t = t + L(lambda m, x: m.log10(x), [a1], "log10")
    t = t + L(lambda m, x: m.power(10, x), [v01], "exp10")
    r = r + t
    t = L(lambda m, x: m.tanh(x), [v], "tanh") + L(lambda m, x: m.atan(x), [v], "atan")
    t = t + L(lambda m, x: m.asin(x), [v01], "asin")
    t = t + L(lambda m, x: m.acos(x), [v01], "acos")
    # atan2f(v, r) takes the running sum r, itself inexact: |d atan2(v, r)/dr| = |v| / (v^2 + r^2)
    at = L(lambda m, x, y: m.atan2(x, y), [v, r.v], "atan2")
    rmin = np.maximum(np.abs(r.v) - r.e, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        lip = np.where(v == 0, 0.0, np.abs(v) / (v.astype(f64) ** 2 + rmin ** 2))
    at.e = at.e + lip * r.e
    r = r + (t + at)
    gam_arg = fma32(a, f32(0.1), f32(1))  # fabsf(v) * 0.1f + 1.f contracted to fma.rn.f32 (PTX)
    t = L(lambda m, x: m.erf(x), [v], "erf") + L(lambda m, x: m.erfc(x), [v], "erfc")
    t = t + L(lambda m, x: m.loggamma(x), [a1], "lgamma")
    t = t + L(lambda m, x: m.gamma(x), [gam_arg], "tgamma")
    r = r + t
    t = L(lambda m, x: m.sinh(x), [v01], "sinh") + L(lambda m, x: m.cosh(x), [v01], "cosh")
    t = t + L(lambda m, x: m.asinh(x), [v], "asinh")
    t = t + L(lambda m, x: m.ncdf(x), [v], "normcdf")
    t = t + L(lambda m, x: m.erfinv(x), [(v * f32(0.01)).astype(f32)], "erfinv")
    r = r + t
    sc = L(lambda m, x: m.sin(x), [v], "sincos") * L(lambda m, x: m.cos(x), [v], "sincos")  # mul.f32, not contracted
    t = sc + L(lambda m, x: m.sinpi(x), [v], "sinpi")
    t = t + L(lambda m, x: m.cospi(x), [v], "cospi")
    return r + t


# PTX ISA bounds of the .approx instructions (the comparison allows the hardware's error, not just
# the interpreter's, which evaluates them in f64 and rounds once)
def ex2_approx(t):
    """ex2.approx.f32 of an Eb argument: relative error 2^-22.5 (PTX ISA), plus the argument's error
    propagated (2^(t+dt) = 2^t * 2^dt) and half the smallest subnormal for results below the f32 range."""
    with np.errstate(over="ignore", invalid="ignore"):
        val = np.exp2(t.v)
        grow = np.exp2(t.e)
        e = np.where(np.isfinite(t.v), val * (grow - 1) + 2 ** -22.5 * val * grow, 0.0)
    return Eb(val, e + 2.0 ** -150 + SLACK * val, "f32")


def lg2_approx(x):
    """lg2.approx.f32 of an exact positive f32 x: absolute error 2^-22.6 (PTX ISA)."""
    x = np.asarray(x, f64)
    with np.errstate(divide="ignore"):
        val = np.log2(x)  # numpy log2 on f64 is accurate to < 1 f64 ulp, far below the bound
    return Eb(val, np.where(np.isfinite(val), 2 ** -22.6 + SLACK * np.abs(val), 0.0), "f32")


def sincos_approx(x):
    """sin/cos.approx.f32 on [-pi, pi]: absolute error 2^-20.9 (PTX ISA)."""
    x = np.asarray(x, f64)
    assert (np.abs(x) <= math.pi).all()
    return Eb(np.sin(x), 2 ** -20.9, "f32"), Eb(np.cos(x), 2 ** -20.9, "f32")


def div_approx(a, b):
    """div.approx.f32: 2 ulp of the quotient of its actual operands for |b| in [2^-126, 2^126] (PTX ISA)."""
    q, prop = a.div_err(b)
    return Eb(q, prop + 2 * ulp_up(np.abs(q) + prop, 2, "f32") + SLACK * np.abs(q), "f32")


def f32_fast_intrinsics_ref(v):
    """Eb of f32_fast_intrinsics' y[i] (v normal, 0 < |v| <= pi), in the order of the PTX."""
    X = lambda a: Eb.exact(np.asarray(a, f32), "f32")
    av = np.abs(v)
    a1 = (av + f32(1)).astype(f32)
    ex = ex2_approx(X((v * f32(1.4426950)).astype(f32)))                  # __expf: ex2(v * log2 e)
    r = lg2_approx(a1).fma(X(np.float32(0.6931472)), ex)                   # __logf(|v|+1) + ... : fma(lg2, ln2, expf)
    sn, cs = sincos_approx(v)
    r = sn + r
    r = cs + r
    r = r + div_approx(sn, cs)                                             # __tanf = div.approx(sin, cos)
    t = ex2_approx(lg2_approx(av) * X(f32(1.3)))                           # __powf(|v|, 1.3f)
    t = t + div_approx(X(v), r + X(f32(1)))                                # __fdividef(v, r + 1)
    t = t + X(np.clip(v, 0, 1))                                            # __saturatef
    t = t + ex2_approx(X((v * f32(3.321928)).astype(f32)))                  # __exp10f: ex2(v * log2 10)
    t = t + lg2_approx((av + f32(2)).astype(f32))                          # __log2f(|v| + 2)
    r = r + t
    r = r + (sn - cs)                                                      # __sincosf: the same sin/cos.approx
    q, prop = X(v).div_err(r)
    t = r._dir(v + r.v, r.e)                                               # __fadd_rd(v, r)
    t = t + r._dir(v * r.v, np.abs(v) * r.e)                               # __fmul_ru(v, r)
    t = t + r._dir(q, prop)                                                # __fdiv_rz(v, r)
    t = t + X(np.sqrt(av))                                                 # __fsqrt_rn
    t = t + X(f32(1) / v)                                                  # __frcp_rn
    r = r + t
    rs = mpv(lambda m, x: 1 / m.sqrt(x), a1).astype(f32)                   # __frsqrt_rn: correctly rounded
    t = r._dir(v * r.v + 1, np.abs(v) * r.e) + X(rs)                       # __fmaf_rz(v, r, 1) + __frsqrt_rn(|v|+1)
    t = r._dir(r.v - v, r.e) + t                                           # __fsub_ru(r, v) + ...
    return r + t


def _f32_div_round_one(x, y):
    """f32_division_and_rounding for one (x, y): (c[i], k[i]), mirroring the PTX's order of adds."""
    F = np.float32
    x, y = F(x), F(y)
    fx, fy = float(x), float(y)
    nan = math.nan
    with np.errstate(all="ignore"):
        q = x / y
        rc = F(1) / y

        def fmod_(a, b):
            try:
                return math.fmod(a, b)
            except ValueError:
                return nan

        def rem_(a, b):
            try:
                return math.remainder(a, b)
            except ValueError:
                return nan
        fm, rm = F(fmod_(fx, fy)), F(rem_(fx, fy))  # exact (representable) results
        m = F(F(fm + rm) + rm)                      # fmodf + remainderf, + remquof
        if math.isnan(float(rm)):
            quo = 0
        elif math.isinf(fy):
            quo = 0 if math.copysign(1, fx) == math.copysign(1, fy) else -0
        else:
            nq = (Fraction(fx) - Fraction(float(rm))) / Fraction(fy)
            assert nq.denominator == 1
            quo = abs(nq.numerator) & 7
            if math.copysign(1, fx) != math.copysign(1, fy):
                quo = -quo

        def trunc_(a):
            return F(math.trunc(float(a))) if math.isfinite(a) else a

        def floor_(a):
            return F(math.floor(float(a))) if math.isfinite(a) else a

        def ceil_(a):
            return F(math.ceil(float(a))) if math.isfinite(a) else a

        def rint_(a):
            return F(np.rint(a))

        def roundf_(a):  # half away from zero (the kernel: trunc(a + copysign(0.5, a)) with add.rz)
            if not math.isfinite(a):
                return a
            return F(math.copysign(math.floor(abs(float(a)) + 0.5), float(a)))
        c = F(q + rc)
        c = F(c + m)
        for t in (floor_(x), ceil_(y), trunc_(q), roundf_(rc), rint_(x), rint_(y)):
            c = F(c + t)
        c1 = c
        mn = F(np.fmin(x, y)); mx = F(np.fmax(x, y))
        fdim = F(0) if x <= y else F(x - y)
        t = fma32(mn, mx, fdim)[()]
        t = F(F(math.copysign(abs(fx), fy)) + t)

        def ldexp_(a, k):
            return F(a + a) if (a == 0 or math.isinf(a)) else F(a * F(2.0 ** k))
        t = F(t + ldexp_(x, 3))
        t = F(t + ldexp_(y, -2))
        c2 = F(c1 + t)
        # frexpf(x, &e) + (float)ilogbf(y) + logbf(x) + modff(x, &r) + r
        if fx == 0 or not math.isfinite(fx):
            fr, e = F(x + x), 0
        else:
            mm, e = math.frexp(fx)
            fr = F(mm)
        if math.isnan(fy) or fy == 0:
            ilogb = -2 ** 31
        elif math.isinf(fy):
            ilogb = 2 ** 31 - 1
        else:
            ilogb = math.frexp(fy)[1] - 1
        if fx == 0:
            logb = F(-np.inf)
        elif not math.isfinite(fx):
            logb = F(x * x)
        else:
            logb = F(math.frexp(fx)[1] - 1)
        if math.isnan(fx):
            ip = fp = F(x + x)
        elif math.isinf(fx):
            ip, fp = x, F(math.copysign(0.0, fx))
        else:
            ip = F(math.trunc(fx))
            fp = F(math.copysign(abs(fx - float(ip)), fx))
        t = F(F(fr + F(ilogb)) + logb)
        t = F(t + fp)
        t = F(ip + t)
        c3 = F(c2 + t)

        # k[i]
        def sat(v, lo, hi):
            return lo if v < lo else hi if v > hi else v

        def cvt_int(a, mode, lo, hi):  # cvt.{rni,rmi,rpi,rzi}.intN.f32: saturating, NaN -> 0
            if math.isnan(a):
                return 0
            if math.isinf(a):
                return lo if a < 0 else hi
            a = float(a)
            v = {"rn": round(a), "rm": math.floor(a), "rp": math.ceil(a), "rz": math.trunc(a)}[mode]  # round(): half-even
            return sat(v, lo, hi)
        if math.isnan(fy):
            llr = -2 ** 63
        elif fy >= 2.0 ** 63:
            llr = 2 ** 63 - 1
        elif fy <= -2.0 ** 63:
            llr = -2 ** 63
        else:
            llr = int(math.copysign(math.floor(abs(fy) + 0.5), fy))
        k = cvt_int(x, "rn", -2 ** 63, 2 ** 63 - 1) + (e + quo) + llr
        k += cvt_int(x, "rm", -2 ** 31, 2 ** 31 - 1) + cvt_int(y, "rp", -2 ** 31, 2 ** 31 - 1) + cvt_int(q, "rz", 0, 2 ** 32 - 1)
        k += int(math.isnan(q)) + 2 * int(math.isinf(ip)) + 4 * int(math.isfinite(m)) + 8 * int(math.copysign(1, fx) < 0)
        k = (k + 2 ** 31) % 2 ** 32 - 2 ** 31
    return c3, k


def f32_div_round_ref(a, b):
    cs, ks = zip(*(_f32_div_round_one(x, y) for x, y in zip(a, b)))
    return canon_nan(np.array(cs, f32)), np.array(ks, i32)


def cvt_f64_to_f32(v, mode):
    """cvt.{rn,rz}.f32.f64 for one f64 (exact: Fraction comparison)."""
    with np.errstate(over="ignore"):
        r = f32(v)
    if mode == "rn" or not math.isfinite(v) or math.isnan(float(r)):
        return r
    if math.isinf(float(r)):  # overflowed under RN; RZ gives the largest finite
        return f32(math.copysign(float(np.finfo(f32).max), v))
    if abs(Fraction(float(r))) > abs(Fraction(v)):
        r = np.nextafter(r, f32(0))
    return r


def int_to_f64_rz(k):
    d = float(k)  # int -> float is correctly rounded (RN)
    if abs(Fraction(d)) > abs(k):
        d = float(np.nextafter(d, 0.0))
    return d


def cvt_f_int(a, mode, lo, hi, src_f64=False):
    """cvt.{rni,rzi,rmi,rpi}.intN.fM: saturating; a NaN gives 0 unless the source is .f64 or
    the destination is 64-bit, then 1 << (N - 1) as the destination's bits (PTX ISA 9.0)."""
    a = float(a)
    if math.isnan(a):
        bits = (hi - lo).bit_length()
        if not src_f64 and bits < 64:
            return 0
        return lo if lo < 0 else 1 << (bits - 1)
    if math.isinf(a):
        return lo if a < 0 else hi
    v = {"rn": round(a), "rm": math.floor(a), "rp": math.ceil(a), "rz": math.trunc(a)}[mode]
    return min(max(v, lo), hi)


def wrapn(k, bits):
    return (k + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1)


def f64_arith_ref(a, b):
    """f64_arith, one element at a time, in the PTX's order (only inputs with non-NaN results)."""
    out_ = []
    for x, y in zip(a.tolist(), b.tolist()):
        X, Y = Fraction(x), (Fraction(y) if math.isfinite(y) else None)

        def rnd_dir(fr, mode):  # directed rounding of an exact rational to f64
            if fr == 0:
                return 0.0
            try:
                d = fr.numerator / fr.denominator
            except OverflowError:  # |fr| beyond the f64 range: inf, or the largest finite toward zero
                big = float(np.finfo(f64).max)
                toward_zero = mode == "rz" or (mode == "rp" and fr < 0) or (mode == "rm" and fr > 0)
                return math.copysign(big if toward_zero else math.inf, 1 if fr > 0 else -1)
            if mode == "rz" and abs(Fraction(d)) > abs(fr):
                d = float(np.nextafter(d, 0.0))
            if mode == "rp" and Fraction(d) < fr:
                d = float(np.nextafter(d, math.inf))
            if mode == "rm" and Fraction(d) > fr:
                d = float(np.nextafter(d, -math.inf))
            return d
        q = x / y if y != 0 else math.copysign(math.inf, x) * math.copysign(1, y)
        rx = 1 / x if x != 0 else math.copysign(math.inf, x)
        f = _fma64_1(x, y, q) if math.isfinite(q) and math.isfinite(y) else x * y + q
        mx, mn = max(x, y), min(x, y)
        s = f + (rx + q)
        s = s + (mn + mx)
        if math.isinf(y):
            drz, mrp, arm = 0.0 * math.copysign(1, x) * math.copysign(1, y), x * y, x + y
        else:
            drz, mrp, arm = rnd_dir(X / Y, "rz"), rnd_dir(X * Y, "rp"), rnd_dir(X + Y, "rm")
        t = arm + mrp
        t = t + drz
        t = t + math.sqrt(abs(x))
        t = t + (1 / y if not math.isinf(y) else math.copysign(0.0, y))
        s = s + t

        def rnd_half_away(v):
            return v if not math.isfinite(v) else math.copysign(math.floor(abs(v) + 0.5), v)

        def fl(v, fn):
            return v if not math.isfinite(v) else float(fn(v))
        s = fl(x, math.floor) + s
        s = fl(y, math.ceil) + s
        s = fl(q, math.trunc) + s
        s = s + rnd_half_away(rx)
        s = s + math.fmod(x, y)
        s = math.copysign(abs(x), y) + s
        out_.append(s)
    return np.array(out_, f64)


def f64_math_ref(v):
    L = lambda fn, args, k: Eb.lib(fn, args, ULP_F64[k], "f64")
    X = lambda a: Eb.exact(a, "f64")
    a = np.abs(v)
    a1 = a + 1.0
    r = X(np.sqrt(a)) + L(lambda m, x: m.exp(x), [v], "exp")
    r = r + L(lambda m, x: m.log(x), [a1], "log")
    r = r + L(lambda m, x: m.sin(x), [v], "sin")
    r = r + L(lambda m, x: m.cos(x), [v], "cos")
    t = L(lambda m, x: m.power(x, 1.5), [a], "pow") + L(lambda m, x: m.tanh(x), [v], "tanh")
    t = t + L(lambda m, x: m.atan2(x, 2), [v], "atan2")
    t = t + L(_sgn_cbrt, [v], "cbrt")
    t = t + L(lambda m, x: m.erf(x), [v], "erf")
    r = r + t
    t = L(lambda m, x: 1 / m.sqrt(x), [a1], "rsqrt") + L(lambda m, x: m.log1p(x), [a], "log1p")
    t = t + L(lambda m, x: m.expm1(x), [v], "expm1")
    hy = L(lambda m, x, y: m.hypot(x, y), [v, r.v], "hypot")
    hy.e = hy.e + r.e  # |d hypot(v, r) / dr| <= 1
    t = t + hy
    return r + t


def f64_conversions_ref(d):
    fo, i3, i6, u3 = [], [], [], []
    for v in d.tolist():
        f = f32(cvt_f64_to_f32(v, "rz") + cvt_f64_to_f32(v, "rn"))
        k32 = wrapn(cvt_f_int(v, "rz", -2 ** 31, 2 ** 31 - 1, True) + cvt_f_int(v, "rm", -2 ** 31, 2 ** 31 - 1, True)
                    + cvt_f_int(v, "rp", -2 ** 31, 2 ** 31 - 1, True), 32)
        bits = int(np.array([v], f64).view(i64)[0])
        k64 = wrapn(cvt_f_int(v, "rz", -2 ** 63, 2 ** 63 - 1, True) + bits + cvt_f_int(v, "rn", -2 ** 63, 2 ** 63 - 1, True), 64)
        ub = int(np.array([v], f64).view(u64)[0])
        ku = (cvt_f_int(v, "rz", 0, 2 ** 32 - 1, True) + (ub >> 32) + (ub & 0xffffffff)) % 2 ** 32
        w = float(k32) + float(k64)
        w = 5 * 2.0 ** -1074 + 3 * 2.0 ** -1042 + w if False else float(np.array([(3 << 32) | 5], u64).view(f64)[0]) + w
        w = int_to_f64_rz(k64) + w
        f = f32(f + f32(w))
        fo.append(f); i3.append(k32); i6.append(k64); u3.append(ku)
    return canon_nan(np.array(fo, f32)), np.array(i3, i32), np.array(i6, i64), np.array(u3, u32)


def round_frac(fr, fmt):
    """Exact rational (Fraction) -> nearest value of `fmt` (ties to even, subnormals, overflow to inf) as float."""
    p, emin = FMT[fmt]
    emax = {"f64": 1023, "f32": 127, "f16": 15, "bf16": 127, "e4m3": 1000, "e5m2": 1000}[fmt]  # fp8: overflow by the caller
    if fr == 0:
        return 0.0
    s = -1.0 if fr < 0 else 1.0
    a = abs(fr)
    e = a.numerator.bit_length() - a.denominator.bit_length()  # floor(log2 a) is e or e-1
    if Fraction(2) ** e > a:
        e -= 1
    q = max(e, emin) - (p - 1)
    n = a / (Fraction(2) ** q)
    k = math.floor(n)
    rem = n - k
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and k % 2 == 1):
        k += 1
    v = Fraction(k) * Fraction(2) ** q
    if v >= Fraction(2) ** (emax + 1):
        return s * math.inf
    return s * float(v)


def rn(x, fmt):
    """Correctly rounded `fmt` value of finite floats (elementwise, exact via Fraction); NaN/inf pass through."""
    x = np.asarray(x, f64)
    out_ = np.empty(x.shape, f64)
    for idx in np.ndindex(x.shape):
        v = float(x[idx])
        out_[idx] = v if not math.isfinite(v) or v == 0 else round_frac(Fraction(v), fmt)  # +-0 keep their sign
    return out_


def mp_rn(fn, args, fmt):
    """Correctly rounded `fmt` value of fn(args) (mpmath at 50 digits; NaN where undefined, +-inf kept)."""
    m = mp()
    p, emin = FMT[fmt]
    args = np.broadcast_arrays(*(np.asarray(a, f64) for a in args))
    out_ = np.empty(args[0].shape, f64)
    for idx in np.ndindex(args[0].shape):
        try:
            y = fn(m, *[m.mpf(float(a[idx])) for a in args])
        except (ValueError, ZeroDivisionError):
            out_[idx] = math.nan
            continue
        if isinstance(y, m.mpc) or m.isnan(y):
            out_[idx] = math.nan
        elif m.isinf(y):
            out_[idx] = float(y)
        else:
            mant, ex = m.frexp(y)  # exact: y = mant * 2^ex
            out_[idx] = round_frac(Fraction(int(m.ldexp(mant, 200))) / Fraction(2) ** (200 - int(ex)), fmt)
    return out_


def h16(x):
    """f64 values already representable in f16 -> f16 array (asserts exactness)."""
    x = np.asarray(x, f64)
    h = x.astype(f16)
    assert np.array_equal(h.astype(f64), x, equal_nan=True)
    return h


def hadd(a, b):  # add.f16 of f16 arrays (the f64 sum is exact, rn() rounds once)
    with np.errstate(invalid="ignore"):
        return h16(rn(a.astype(f64) + b.astype(f64), "f16"))


def hmul(a, b):
    with np.errstate(invalid="ignore"):
        return h16(rn(a.astype(f64) * b.astype(f64), "f16"))


def hfma_exact(a, b, c, fmt="f16"):
    """Correctly rounded fma of f16/bf16 values (exact rationals)."""
    a, b, c = np.broadcast_arrays(np.asarray(a, f64), np.asarray(b, f64), np.asarray(c, f64))
    out_ = np.empty(a.shape, f64)
    for idx in np.ndindex(a.shape):
        x, y, z = float(a[idx]), float(b[idx]), float(c[idx])
        if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
            out_[idx] = x * y + z
        else:
            fr = Fraction(x) * Fraction(y) + Fraction(z)
            out_[idx] = round_frac(fr, fmt) if fr != 0 else (x * y + z)
    return out_


def hdiv_exact(a, b, fmt="f16"):
    a, b = np.broadcast_arrays(np.asarray(a, f64), np.asarray(b, f64))
    out_ = np.empty(a.shape, f64)
    for idx in np.ndindex(a.shape):
        x, y = float(a[idx]), float(b[idx])
        if not (math.isfinite(x) and math.isfinite(y)) or y == 0 or x == 0:
            with np.errstate(all="ignore"):
                out_[idx] = np.float64(x) / np.float64(y)
        else:
            out_[idx] = round_frac(Fraction(x) / Fraction(y), fmt)
    return out_


def near_midpoint(fr_vals, fmt, rel):
    """True where an exact value lies within `rel` (relative) of a rounding boundary of `fmt`: a result
    computed through an approximate f32 step (rcp.approx, ...) may round either way there."""
    out_ = []
    for fr in fr_vals:
        if fr == 0:
            out_.append(False)
            continue
        lo = round_frac(fr * (1 - Fraction(rel)), fmt)
        hi = round_frac(fr * (1 + Fraction(rel)), fmt)
        out_.append(lo != hi)
    return np.array(out_, bool)




def half_arith_ref(x, y):
    X, Y = x.astype(f64), y.astype(f64)
    s, d, m = hadd(x, y), hadd(x, -y), hmul(x, y)
    q = h16(hdiv_exact(X, Y))
    f = h16(hfma_exact(X, Y, s.astype(f64)))
    rr = hfma_exact(X, Y, d.astype(f64))
    rr = h16(np.where(np.isnan(rr), np.nan, np.maximum(rr, 0.0)))  # fma.rn.relu: NaN stays NaN, negatives -> +0
    neg = -m
    ab = np.abs(q)
    mx = np.where(np.isnan(f), rr, np.where(np.isnan(rr), f, np.fmax(f, rr)))  # max: one NaN operand ignored
    mx = np.where((f == 0) & (rr == 0), np.where(np.signbit(f) & np.signbit(rr), f, np.abs(f)), mx).astype(f16)
    mn = np.where(np.isnan(f) | np.isnan(neg), np.nan, np.minimum(f, neg))  # min.NaN
    mn = np.where((f == 0) & (neg == 0), np.where(np.signbit(f) | np.signbit(neg), -0.0, 0.0), mn).astype(f16)
    t = hadd(mn, -ab)
    return h16(_hsat(hadd(mx, t).astype(f64)))


def _hsat(x):
    x = np.asarray(x, f64)
    return np.where(np.isnan(x) | (x <= 0), 0.0, np.minimum(x, 1.0))


def h_lib(fn, x):
    """Correctly rounded f16 result of a half math function (the cuda_fp16 functions round to nearest)."""
    return h16(mp_rn(fn, [np.asarray(x, f16).astype(f64)], "f16"))


def half_math_fns_ref(x):
    ax = np.abs(x)
    E = lambda m, t: m.exp(t)
    r = hadd(h_lib(E, x), h_lib(lambda m, t: m.log(t) if t != 0 else -m.inf, ax))
    r = hadd(r, h_lib(lambda m, t: m.sqrt(t), ax))
    r = hadd(r, h_lib(lambda m, t: 1 / m.sqrt(t), hadd(ax, np.ones_like(x))))
    r = hadd(r, h_lib(lambda m, t: m.sin(t), x))
    r = hadd(r, h_lib(lambda m, t: m.cos(t), x))
    r = hadd(r, h_lib(lambda m, t: m.power(2, t), x))
    r = hadd(r, h_lib(lambda m, t: m.log(t, 2) if t != 0 else -m.inf, ax))
    rc = h_lib(lambda m, t: 1 / t if t != 0 else m.inf, x)
    r = hadd(r, h16(np.where(x == 0, np.copysign(np.inf, x.astype(f64)), rc.astype(f64))))  # mpmath has no -0: 1/-0 = -inf
    X = x.astype(f64)
    for t in (np.floor(X), np.ceil(X), np.trunc(X), np.rint(X)):
        r = hadd(r, h16(np.copysign(t, X)))  # cvt.rmi/rpi/rzi/rni.f16.f16 keep the sign of zero
    return canon_nan(r)


def half2_ops_ref(x, y):
    """x, y: f16 arrays of 2n (lane 0 = even index). Returns (c f16[2n], dot f32[n])."""
    X = x.astype(f64)
    r = h16(hfma_exact(X, y.astype(f64), hmul(x, x).astype(f64)))
    r = hadd(r, hadd(y, -x))
    den = hadd(np.abs(y), np.ones_like(y))
    r = h16(hdiv_exact(r.astype(f64), den.astype(f64)))
    nx = -x
    R = r.astype(f64)
    mx = np.where(np.isnan(R), -X, np.where(np.isnan(-X), R, np.maximum(R, -X)))
    mx = np.where((R == 0) & (X == 0), np.where(np.signbit(R) & np.signbit(nx), -0.0, 0.0), mx)
    r = h16(mx)
    e = h_lib(lambda m, t: m.exp(t), r)
    with np.errstate(invalid="ignore"):
        cmp = np.where(x.astype(f64) <= y.astype(f64), 1.0, 0.0)
    c = canon_nan(hmul(e, h16(cmp)))
    rl, rh = r[0::2].astype(f32), r[1::2].astype(f32)
    with np.errstate(invalid="ignore"):
        dot = (fma32(rl, rh, x[0::2].astype(f32)) + y[1::2].astype(f32)).astype(f32)
    return c, canon_nan(dot), r


def b16bits(v):
    """f64 values representable in bf16 -> u16 bits (NaN -> 0x7fff canonical, infinities kept)."""
    v = np.asarray(v, f64)
    f = v.astype(f32)
    assert np.array_equal(f.astype(f64), v, equal_nan=True)
    bits = (f.view(u32) >> 16).astype(u16)
    assert np.array_equal(bf16_val(bits).astype(f64), v, equal_nan=True)
    return np.where(np.isnan(v), u16(0x7fff), bits).astype(u16)


def b16(v):
    """Nearest bf16 bits of any f64 values."""
    return b16bits(rn(np.asarray(v, f64), "bf16"))


def bv(bits):
    return bf16_val(bits).astype(f64)


def b_rn(x):
    """Correctly rounded bf16 of exact f64 sums/products (values of f64 arrays)."""
    return rn(x, "bf16")


def straddles(v, e, fmt):
    """True where [v - e, v + e] contains a rounding boundary of `fmt`, i.e. a kernel value within e of the
    exact v may round to either neighbour; such inputs are dropped from exact comparisons."""
    v, e = np.broadcast_arrays(np.asarray(v, f64), np.asarray(e, f64))
    with np.errstate(invalid="ignore"):
        lo, hi = rn(v - e, fmt), rn(v + e, fmt)
        return np.isfinite(v) & (lo != hi)


def bf16_arith_ref(xb, yb):
    X, Y = bv(xb), bv(yb)
    s = b_rn(X + Y)
    r = hfma_exact(X, Y, s, "bf16")
    with np.errstate(invalid="ignore"):
        r = b_rn(r - b_rn(X * X))
    den = b_rn(np.abs(Y) + 1)
    with np.errstate(all="ignore"):
        q = hdiv_exact(r, den, "bf16")
    mx = np.where(np.isnan(q), -X, np.where(np.isnan(-X), q, np.maximum(q, -X)))
    mx = np.where((q == 0) & (X == 0), np.where(np.signbit(q) & np.signbit(-X), -0.0, 0.0), mx)
    rl = hfma_exact(X, Y, mx, "bf16")
    rl = np.where(np.isnan(rl), np.nan, np.where(rl <= 0, 0.0, rl))  # .relu: negative (and -0) -> +0
    mn = np.where(np.isnan(mx), rl, np.where(np.isnan(rl), mx, np.minimum(mx, rl)))
    mn = np.where((mx == 0) & (rl == 0), np.where(np.signbit(mx) | np.signbit(rl), -0.0, 0.0), mn)
    return b16bits(mn), (r, den)


def bf16_fn_parts(xb):
    """(exact value, kernel error bound) of each bf16_math_fns term before its cvt.rn.bf16.f32, mirroring the PTX's f32
    arguments; the bounds are the PTX ISA / CUDA ones quoted in the case's note."""
    X = bv(xb)
    A = np.abs(X)
    with np.errstate(all="ignore"):
        t = bf16_val(xb) * np.array([0x3FB8AA3C], u32).view(f32)[0]  # mul.f32 by 0x3FB8AA3C (log2 e rounded up)
        t = t.astype(f32).astype(f64)
        ve = mpv(lambda m, z: m.power(2, z), t)
        parts = [(ve, 2 ** -22.5 * np.abs(ve))]                                      # ex2.approx: rel 2^-22.5
        l2 = mpv(lambda m, z: m.log(z, 2) if z != 0 else -m.inf, A)
        c2 = float(np.array([0x3F317218], u32).view(f32)[0])
        e_l2 = 2 ** -22.6
        vl = l2 * c2
        parts.append((vl, e_l2 * c2 + ulp_of(np.abs(vl) + 1e-300, "f32")))          # lg2.approx then mul.f32
        vs = np.sqrt(A)
        parts.append((vs, 1.5 * ulp_up(vs, 1, "f32")))                               # sqrt.approx: 1 ulp (CUDA sqrtf, -prec-sqrt=false)
        vsin = mpv(lambda m, z: m.sin(z), X)
        parts.append((vsin, 2.5 * ulp_up(vsin, 2, "f32")))                           # libdevice sinf algorithm: 2 ulp
        vcos = mpv(lambda m, z: m.cos(z), X)
        parts.append((vcos, 2.5 * ulp_up(vcos, 2, "f32")))
        vr = 1 / X
        parts.append((vr, 2 ** -22 * np.abs(vr)))                                    # rcp.approx: abs 2^-23 on [1, 2)
        vt = np.tanh(X)
        parts.append((vt, 2 ** -10 * np.abs(vt)))                                    # tanh.approx: see note
    return parts


def bf16_math_fns_ref(xb):
    parts = bf16_fn_parts(xb)
    terms = [b_rn(v) for v, _ in parts]
    X = bv(xb)
    terms[5] = np.where(X == 0, np.copysign(np.inf, X), terms[5])  # rcp(+-0) = +-inf (mpmath/numpy agree, kept explicit)
    r = b_rn(terms[0] + terms[1])
    for t in terms[2:]:
        with np.errstate(invalid="ignore"):
            r = b_rn(r + t)
    return b16bits(r)


def bf162_ops_ref(xb, yb):
    X, Y = bv(xb), bv(yb)
    m = b_rn(X * Y)
    r = hfma_exact(X, Y, m, "bf16")
    r = b_rn(r + b_rn(X - Y))
    mn = np.minimum(X, Y)
    mn = np.where((X == 0) & (Y == 0), np.where(np.signbit(X) | np.signbit(Y), -0.0, 0.0), mn)
    o = np.maximum(r, mn)
    o = np.where((r == 0) & (mn == 0), np.where(np.signbit(r) & np.signbit(mn), -0.0, 0.0), o)
    ob = b16bits(o)
    lo, hi = bf16_val(ob[0::2]), bf16_val(ob[1::2])
    with np.errstate(invalid="ignore"):
        f = fma32(bf16_val(xb[0::2]), bf16_val(yb[1::2]), (lo - hi).astype(f32))
    return ob, f


def bf16_conversions_ref(fv, dv, kv):
    a = rn(fv.astype(f64), "bf16")
    F = fv.astype(f64)
    b = bf16_val((fv.view(u32) >> 16).astype(u16)).astype(f64)  # cvt.rz.bf16.f32: truncate the low 16 bits
    c = rn(dv, "bf16")
    e = rn(kv.astype(f64), "bf16")
    o = b_rn(b_rn(a + b) + b_rn(c + e))
    back = (a.astype(f32) + np.array([float(cvt_f_int(v, "rz", -2 ** 31, 2 ** 31 - 1)) for v in c], f64).astype(f32)).astype(f32)
    return b16bits(o), back


FP8 = {"e4m3": dict(bias=7, mbits=3, maxv=448.0), "e5m2": dict(bias=15, mbits=2, maxv=57344.0)}


def fp8_enc(v, fmt, sat):
    """Round one float to e4m3 (FN: no inf, NaN 0x7f) / e5m2 bits, nearest-even. Overflow: MAX_NORM with
    satfinite (also for +-inf), else inf (e5m2 only). NaN -> 0x7f."""
    d = FP8[fmt]
    v = float(v)
    if math.isnan(v):
        return 0x7f
    s = 0x80 if math.copysign(1, v) < 0 else 0
    a = abs(v)
    r = math.inf if math.isinf(a) else round_frac(Fraction(a), fmt)
    if r > d["maxv"]:
        if sat:
            r = d["maxv"]
        else:
            assert fmt == "e5m2"
            return s | 0x7c
    if r == 0:
        return s
    p = d["mbits"] + 1
    emin = 1 - d["bias"]
    e = math.frexp(r)[1] - 1
    if e < emin:
        return s | int(r / 2.0 ** (emin - d["mbits"]))
    return s | ((e + d["bias"]) << d["mbits"]) | int(r / 2.0 ** (e - d["mbits"]) - 2 ** d["mbits"])


def fp8_dec(b, fmt):
    d = FP8[fmt]
    b = int(b)
    s = -1.0 if b & 0x80 else 1.0
    e, m = (b & 0x7f) >> d["mbits"], b & ((1 << d["mbits"]) - 1)
    if fmt == "e4m3" and (b & 0x7f) == 0x7f:
        return math.nan
    if fmt == "e5m2" and e == 31:
        return s * math.inf if m == 0 else math.nan
    if e == 0:
        return s * m * 2.0 ** (1 - d["bias"] - d["mbits"])
    return s * (1 + m / 2 ** d["mbits"]) * 2.0 ** (e - d["bias"])


def fp8_roundtrip_ref(v):
    e4 = np.array([fp8_enc(x, "e4m3", True) for x in v], u8)
    e5 = np.array([fp8_enc(x, "e5m2", True) for x in v], u8)
    with np.errstate(invalid="ignore", over="ignore"):
        back = (np.array([fp8_dec(b, "e4m3") for b in e4], f32) + np.array([fp8_dec(b, "e5m2") for b in e5], f32)).astype(f32)
    return e4, e5, canon_nan(back)


def fp8x2_quantize_ref(xy, scale, h):
    sx = (xy * f32(scale)).astype(f32)
    q = np.array([fp8_enc(a, "e4m3", True) | fp8_enc(b, "e4m3", True) << 8 for a, b in zip(sx[0::2], sx[1::2])], u16)
    hq = np.array([fp8_enc(a, "e5m2", True) | fp8_enc(b, "e5m2", True) << 8 for a, b in zip(h[0::2], h[1::2])], u16)
    return q, hq


def fp8_raw_cvt_ref(v):
    bfv = bv(b16(v.astype(f64)))  # cvt.rn.bf16x2.f32 (NaN -> NaN)
    s = [fp8_enc(x, "e4m3", True) | fp8_enc(-x, "e4m3", True) << 8 for x in v]
    t = [fp8_enc(b, "e5m2", False) | fp8_enc(1.0, "e5m2", False) << 8 for b in bfv]
    o = np.array([a ^ b for a, b in zip(s, t)], u16)
    hv = np.array([[fp8_dec(a & 0xff, "e4m3"), fp8_dec(a >> 8, "e4m3")] for a in s], f64).reshape(-1)
    return o, canon_nan(hv.astype(f16))


def mandelbrot_ref(w, h, x0, y0, dx, dy, max_iter):
    px, py = np.meshgrid(np.arange(w), np.arange(h))
    cr = fma32(px.astype(f32), dx, x0)  # fma.rn.f32(float(px), dx, x0) (PTX)
    ci = fma32(py.astype(f32), dy, y0)
    zr = np.zeros_like(cr); zi = np.zeros_like(cr); zr2 = np.zeros_like(cr); zi2 = np.zeros_like(cr)
    it = np.zeros(cr.shape, np.int64)
    live = np.ones(cr.shape, bool)
    for _ in range(max_iter):
        t = (cr + (zr2 - zi2).astype(f32)).astype(f32)
        nzi = fma32((zr + zr).astype(f32), zi, ci)
        zr = np.where(live, t, zr); zi = np.where(live, nzi, zi)
        zr2 = np.where(live, (zr * zr).astype(f32), zr2); zi2 = np.where(live, (zi * zi).astype(f32), zi2)
        it += live
        live &= ((zr2 + zi2).astype(f32) < f32(4)) & (it < max_iter)
    return (it * 255 // max_iter).astype(u8).reshape(-1)


def julia_ref(w, h, c, max_iter):
    px, py = np.meshgrid(np.arange(w), np.arange(h))
    zr = px * 3.0 / w + -1.5  # mul.f64 by 3, div.rn.f64 by w, add -1.5 (all correctly rounded in numpy f64)
    zi = py * 3.0 / h + -1.5
    it = np.zeros(zr.shape, np.int64)
    live = np.ones(zr.shape, bool)
    for _ in range(max_iter):
        a, b = np.abs(zr), np.abs(zi)
        v, wv = np.where(a > b, a, b), np.where(a > b, b, a)
        with np.errstate(invalid="ignore", divide="ignore"):
            t = wv / v
        t = np.where(np.isnan(t), 0.0, t)  # v = 0: replaced by v + w below
        t = np.sqrt(fma64(t, t, 1.0)) * v  # cuCabs: v * sqrt(fma(t, t, 1))
        t = np.where((v == 0) | (v > np.finfo(f64).max) | (wv > np.finfo(f64).max), v + wv, t)
        live &= t < 2.0
        if not live.any():
            break
        nr = c[0] + (zr * zr - zi * zi)
        ni = c[1] + fma64(zr, zi, zr * zi)  # cuCmul imaginary part contracted to fma (PTX)
        zr, zi = np.where(live, nr, zr), np.where(live, ni, zi)
        it += live
        live &= it < max_iter
    return it.astype(i32).reshape(-1)


def dft_ref(x):
    """Eb of dft's X (n a power of two: arguments -2m/n and the final cuCdivf by n are exact)."""
    n = x.size // 2
    xr, xi = x[0::2].astype(f64), x[1::2].astype(f64)
    F = "f32"
    res = []
    for k in range(n):
        m_ = (k * np.arange(n)) % n
        arg = (-2.0 * m_) / n
        s = Eb.lib(lambda mm, t: mm.sinpi(t), [arg], ULP_F32["sincospi"], F)
        c = Eb.lib(lambda mm, t: mm.cospi(t), [arg], ULP_F32["sincospi"], F)
        are, aim = Eb.exact(0.0, F), Eb.exact(0.0, F)
        for j in range(n):
            cj = Eb(c.v[j], c.e[j], F); sj = Eb(s.v[j], s.e[j], F)
            re = (cj * xr[j]) - (sj * xi[j])
            im = sj.fma(xr[j], cj * xi[j])
            are, aim = are + re, aim + im
        res += [Eb(are.v / n, are.e / n, F), Eb(aim.v / n, aim.e / n, F)]
    return Eb(np.array([q.v for q in res]), np.array([q.e for q in res]), F)


def nbody_ref(pos, soft2, block):
    """Eb of nbody_forces' acc (n x 4 f32): the pair terms mirrored op by op (from the PTX: dy*dy, fma dx, fma dz, add
    soft2; rsqrt.approx; s = inv*(inv*(w*inv)); a = fma(d, s, a) in j order); rsqrtf is the only inexact step."""
    n = pos.shape[0]
    F = "f32"
    pad = -(-n // block) * block
    q = np.zeros((pad, 4), f32)
    q[:n] = pos
    px, py, pz = pos[:, 0], pos[:, 1], pos[:, 2]
    ax, ay, az = (Eb.exact(np.zeros(n), F) for _ in range(3))
    for j in range(pad):
        dx = (q[j, 0] - px).astype(f32); dy = (q[j, 1] - py).astype(f32); dz = (q[j, 2] - pz).astype(f32)
        d2 = (fma32(dz, dz, fma32(dx, dx, (dy * dy).astype(f32))) + soft2).astype(f32)
        iv = 1.0 / np.sqrt(d2.astype(f64))
        inv = Eb(iv, 2.5 * ulp_up(iv, 2, F) + SLACK * iv, F)  # rsqrtf: 2 ulp (CUDA guide)
        s = inv * (inv * (inv * q[j, 3].astype(f64)))
        ax = Eb.exact(dx, F).fma(s, ax)
        ay = Eb.exact(dy, F).fma(s, ay)
        az = Eb.exact(dz, F).fma(s, az)
    v = np.stack([ax.v, ay.v, az.v, np.zeros(n)], 1)
    e = np.stack([ax.e, ay.e, az.e, np.zeros(n)], 1)
    return Eb(v.reshape(-1), e.reshape(-1), F)


def cases_libmath():
    r = rng(60)
    # ---------------- float_math: f32_precise ----------------
    n = 300
    v = r.uniform(-10, 10, n).astype(f32)
    edge = np.array([0.0, -0.0, 1e-40, -1e-40, 1e-30, -3e-8, 1.0, -1.0, 0.5, 10.0, -10.0, 9.999999, 1.5707964, -1.5707964,
                     3.1415927, -2.5, 7.25, 0.1], f32)
    v[:edge.size] = edge
    bad = np.array([np.nan, np.inf, -np.inf, 10.000001, -11.0, 1e30], f32)  # NaN results: NaN/inf input, |v*0.1| > 1
    v[edge.size:edge.size + bad.size] = bad
    isbad = ~np.isfinite(v) | (np.abs((v * f32(0.1)).astype(f32)) > 1)
    vv = np.where(isbad, f32(0.5), v).astype(f32)
    e, b = f32_precise_ref(vv).result(f32, nan_where=isbad)
    why = ("sum of 31 libdevice f32 functions, each within (N + 1/2) ulp of its exact value with N from the CUDA guide's "
           "single-precision table (expf 2, logf 1, sinf/cosf 2, tanf 4, powf 4, rsqrtf 2, cbrtf 1, exp2f/exp10f 2, log2f 1, "
           "log10f 2, tanhf/atanf/asinf/acosf 2, atan2f 3, erff 2, erfcf 4, lgammaf 6, tgammaf 5, sinhf 3, coshf 2, asinhf 3, "
           "normcdff 5, erfinvf 2, sincosf 2, sinpif/cospif 1), plus 1/2 ulp per f32 add in the kernel's order and the "
           "running sum's error propagated through atan2f(v, r); per-element bound")
    case("nvrtc12_f32_precise", "nvrtc12/float_math.sm_80.ptx", "f32_precise", [2], [256], [v, Z("f32", n), S("s32", n)],
         {1: out(e, "bound", why, bound=b)},
         note="inputs in [-10, 10] (asinf/acosf(v*0.1f) defined) plus +-0, subnormals, pi/2 (tanf large), and NaN/inf/|v|>10 giving NaN")

    # ---------------- float_math: f32_fast_intrinsics ----------------
    n = 300
    v = r.uniform(-math.pi, math.pi, n).astype(f32)
    v = np.clip(v, f32(-3.1415925), f32(3.1415925))
    edge = np.array([0.0, -0.0, np.nan, 1e-30, -1e-30, 1.0, -1.0, 0.5, 2.0, 3.1415925, -3.1415925, 1.5, -1.5, 1e-3], f32)
    v[:edge.size] = edge
    isnan_ = (v == 0) | np.isnan(v)   # __frcp_rn(+-0) = +-inf, then fma.rz(+-0, +-inf, 1) = NaN
    vv = np.where(isnan_, f32(0.5), v).astype(f32)
    e, b = f32_fast_intrinsics_ref(vv).result(f32, nan_where=isnan_)
    assert np.isfinite(b).all()  # no operand interval of a division contains 0 (v = pi/2 would: cos.approx ~ 0)
    why = ("mirrors the PTX op by op; ex2.approx rel 2^-22.5, lg2.approx abs 2^-22.6, "
           "sin/cos.approx abs 2^-20.9 on [-pi, pi], div.approx 2 ulp (PTX ISA); .rn ops 1/2 ulp, .rz/.rm/.rp ops 1 ulp, "
           "operand errors propagated; per-element bound")
    for fx in ("nvrtc12/float_math.sm_80.ptx", "nvrtc12/float_math.sm_80.fastmath.ptx"):
        nm = "nvrtc12_f32_fast_intrinsics" + ("_fastmath" if "fast" in fx else "")
        case(nm, fx, "f32_fast_intrinsics", [2], [256], [v, Z("f32", n), S("s32", n)], {1: out(e, "bound", why, bound=b)},
             note="inputs normal, in [-pi, pi] (the range of the sin/cos.approx bound), plus +-0 and NaN giving NaN; "
                  "the .fastmath PTX is the same sequence with .ftz (no subnormal operands here)")

    # ---------------- float_math: f32_division_and_rounding ----------------
    n = 300
    a = (r.standard_normal(n) * 10.0 ** r.uniform(-3, 4, n)).astype(f32)
    b = (r.standard_normal(n) * 10.0 ** r.uniform(-3, 3, n)).astype(f32)
    a[40:80] = np.round(a[40:80] * 4) / 4  # quarter-integers: rint/roundf/remainder ties
    b[40:80] = np.where(np.round(b[40:80] * 2) == 0, 0.5, np.round(b[40:80] * 2) / 2)
    inf, nan = np.inf, np.nan
    pairs = [(0, 1), (-0.0, 1), (1, 0), (-1, 0), (0, 0), (inf, 2), (-inf, 2), (3, inf), (-3, -inf), (nan, 1), (1, nan),
             # no pair with both |x| >= |y| subnormal: fmodf's short path then runs div.approx.f32 on subnormals,
             # which the PTX ISA flushes to zero (0/0 = NaN), so the library result there is not defined by the spec
             (1e-40, 1e-38), (-5e-39, 1e-38), (1e30, 3.3), (-1e30, 3.3e-3), (1e38, 1e-38), (7.5, 2.5), (7.5, 5), (-7.5, 5),
             (2.5, 1), (-2.5, 3), (0.5, 2), (-0.5, -2), (1e10, 3e-5), (3e9, 1e19), (-3e9, -1e19), (8388609, 0.75),
             (-16777216, 3), (6e9, 1.5), (5, 1e-45), (2.0 ** 100, -3), (1.5, 2.0 ** -130), (-1, 2.5), (4.5, -4.5)]
    for k_, (x_, y_) in enumerate(pairs):
        a[k_], b[k_] = x_, y_
    ce, ke = f32_div_round_ref(a, b)
    case("nvrtc12_f32_division_and_rounding", "nvrtc12/float_math.sm_80.ptx", "f32_division_and_rounding", [2], [256],
         [a, b, Z("f32", n), Z("i32", n), S("s32", n)],
         {2: out(ce, why="div.rn/rcp.rn and f32 adds (in the PTX's order) of exact functions: fmodf/remainderf/remquof, "
                         "floor/ceil/trunc/roundf/rint, fmin/fmax/fdim (fma-contracted), copysign, ldexp/scalbn, frexp/ilogb/logb/modf; "
                         "NaN results are the canonical 0x7fffffff"),
          3: out(ke, why="remquof quotient bits, frexpf exponent, lrintf/llroundf/__float2int_rd/_ru/__float2uint_rz (saturating, "
                         "NaN -> 0, llroundf NaN -> INT64_MIN as the PTX computes it), isnan/isinf/isfinite/signbit; i32 wrapping sum")},
         note="edge pairs: zeros, infinities, NaN, subnormals, huge quotients (fmodf's long-division loop), .5 ties, saturating conversions")

    # ---------------- double_math ----------------
    n = 300
    a = r.standard_normal(n) * 10.0 ** r.uniform(-3, 5, n)
    b = r.standard_normal(n) * 10.0 ** r.uniform(-3, 3, n)
    a[40:80] = np.round(a[40:80] * 4) / 4
    b[40:80] = np.where(np.round(b[40:80] * 2) == 0, 0.5, np.round(b[40:80] * 2) / 2)
    pairs = [(0.0, 3.0), (-0.0, 3.0), (2.0, np.inf), (1e-310, 3.0), (2.5e-312, 7e-311), (5.0, 1e-310), (1e300, 1e-10),
             (1e200, -3.0), (2.5, 1.0), (-2.5, 1.0), (0.5, 2.0), (-1.5, -0.5), (7.5, 2.5), (1e17, 3.0), (-2.0 ** 60 - 1024, 3.5),
             (3.0, 2.0 ** -1022), (1.0, -1.0), (4.5, -4.5), (2.0 ** 1000, 2.0 ** -60)]
    for k_, (x_, y_) in enumerate(pairs):
        a[k_], b[k_] = x_, y_
    case("nvrtc12_f64_arith", "nvrtc12/double_math.sm_80.ptx", "f64_arith", [2], [256], [a, b, Z("f64", n), S("s32", n)],
         {2: out(f64_arith_ref(a, b), why="div.rn/rcp.rn/fma/sqrt.rn and .rz/.rm/.rp add/mul/div (exact rationals), floor/ceil/"
                                          "trunc/round, fmod (exact), copysign, summed in the PTX's order")},
         note="no input gives a NaN result: f64 NaN payload propagation is left to ptxvm-fp's tests")
    v = r.standard_normal(n) * 10.0 ** r.uniform(-2, 2, n)
    edge = [0.0, -0.0, 1e-310, -1e-310, 1.0, -1.0, 0.5, -700.0, 700.0, 709.7, 710.0, -1e100, 1e-8, -3.0, 2.0,
            np.nan, np.inf, -np.inf]
    v[:len(edge)] = edge
    bad = ~np.isfinite(v)
    vv = np.where(bad, 0.5, v)
    e, bnd = f64_math_ref(vv).result(f64, nan_where=bad)
    case("nvrtc12_f64_math", "nvrtc12/double_math.sm_80.ptx", "f64_math", [2], [256], [v, Z("f64", n), S("s32", n)],
         {1: out(e, "bound", "13 libdevice f64 functions summed, each within (N + 1/2) ulp (CUDA guide double-precision table: "
                 "exp/log/tanh/cbrt/rsqrt/log1p/expm1 1, sin/cos/pow/atan2/erf/hypot 2; sqrt exact) plus 1/2 ulp per add and "
                 "the running sum's error through hypot(v, r); per-element bound", bound=bnd)},
         note="inputs up to +-1e100 (sin/cos argument reduction), exp overflow at 710 (inf), NaN/inf giving NaN")
    d = r.standard_normal(n) * 10.0 ** r.uniform(-3, 12, n)
    d[40:80] = np.round(d[40:80] * 2) / 2
    edge = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, -1.0, 3e9, 5e9, -3e9, 1e20, -1e20, 2.0 ** 31, -2.0 ** 31 - 0.5, 2.0 ** 32 - 0.5,
            1e39, -3.5e38, 3.4028235677973366e38, 1e-310, 2.0 ** 63, -2.0 ** 63, 9007199254740993.0, np.nan, np.inf, -np.inf,
            1.0000000596046448, 16777217.0]
    d[:len(edge)] = edge
    fo, i3, i6, u3 = f64_conversions_ref(d)
    case("nvrtc12_f64_conversions", "nvrtc12/double_math.sm_80.ptx", "f64_conversions", [2], [256],
         [d, Z("f32", n), Z("i32", n), Z("i64", n), Z("u32", n), S("s32", n)],
         {1: out(fo, why="cvt.rn/.rz.f32.f64, cvt.rn/.rz.f64.s64, cvt.rn.f64.s32 and f64/f32 adds in the PTX's order (exact)"),
          2: out(i3, why="cvt.rzi/rmi/rpi.s32.f64, saturating, NaN -> INT_MIN (from .f64)"),
          3: out(i6, why="cvt.rzi/rni.s64.f64 (saturating, NaN -> INT64_MIN) plus the raw bits (__double_as_longlong), wrapping"),
          4: out(u3, why="cvt.rzi.u32.f64 (saturating) plus __double2hiint/__double2loint, wrapping")},
         note="edges: .5 ties, int32/uint32/int64 saturation, f32 overflow under RN and RZ, NaN and infinities")

    # ---------------- half_math ----------------
    HB = lambda bits: np.array(bits, u16).view(f16)
    n = 400
    x = (r.standard_normal(n) * 4).astype(f16)
    y = (r.standard_normal(n) * 4).astype(f16)
    ex = [(0.0, 1.0), (-0.0, 0.0), (1.0, 0.0), (-2.0, 0.0), (np.inf, 2.0), (3.0, -np.inf), (np.nan, 1.0), (1.0, np.nan),
          (6e-8, 3.0), (-1e-5, 7e-3), (300.0, 250.0), (60000.0, 2.0), (-60000.0, 0.5), (0.5, 0.5), (2.5, -0.75)]
    for k_, (x_, y_) in enumerate(ex):
        x[k_], y[k_] = x_, y_
    # __hdiv is x * rcp.approx(y) in f32 (relative error <= 2^-21.7 on hardware), then cvt.rn.f16: keep only quotients at
    # least 2^-21 from an f16 rounding boundary, where every rcp.approx within the PTX ISA bound rounds the same way
    fin = np.isfinite(x) & np.isfinite(y) & (y != 0) & (x != 0)
    idx = np.where(fin)[0]
    near = near_midpoint([Fraction(float(x[i])) / Fraction(float(y[i])) for i in idx], "f16", Fraction(1, 2 ** 21))
    keep = np.ones(n, bool)
    keep[idx[near]] = False
    x, y = x[keep], y[keep]
    n = x.size
    case("nvrtc12_half_arith", "nvrtc12/half_math.sm_80.ptx", "half_arith", [2], [256], [x, y, Z("f16", n), S("s32", n)],
         {2: out(half_arith_ref(x, y), why="add/sub/mul/fma/fma.relu.f16 correctly rounded (exact rationals), __hdiv correctly "
                                           "rounded for the kept inputs, max/min.NaN/neg/abs, add.sat (NaN -> 0)")},
         note="inputs whose quotient x/y lies within 2^-21 (relative) of an f16 rounding boundary are dropped (see generator)")
    # half_math_fns: every cuda_fp16 math function rounds to nearest (the library adds one-ulp fix-ups for the inputs where
    # the f32 approximation misrounds); the inputs listed in those fix-ups are a separate case below
    n = 400
    x = r.uniform(-10, 10, n).astype(f16)
    edge = [1.0, -1.0, 0.5, 2.0, 6e-8, -3e-6, 0.0999, 3.1406, 1.5703, -7.25, 10.0, 11.0, 0.0, -0.0, np.inf, -np.inf, np.nan]
    x[:len(edge)] = edge
    FIX_EXP, FIX_LOG, FIX_SIN, FIX_COS = [0x1F79, 0x25CF, 0xC13B, 0xC1EF], [0x160D, 0x3BFE, 0x3C0B, 0x6051], [0x32B3, 0x5CB0], [0x2B7C]
    fixups = set(FIX_EXP) | set(FIX_LOG) | set(FIX_SIN) | set(FIX_COS)
    fixups |= {b | 0x8000 for b in FIX_LOG + FIX_SIN + FIX_COS}  # hlog/hsin/hcos fix-ups test |x|
    allh = np.arange(0x10000, dtype=np.uint32).astype(u16).view(f16)
    lg = np.array([0xA2E2, 0xBF46], u16).view(f16).astype(f64)
    pos = allh[np.isfinite(allh) & (allh > 0)]
    cand = pos[(np.abs(np.log2(pos.astype(f64))[:, None] - lg[None, :]) < 0.01).any(1)]
    l2 = h_lib(lambda m, t: m.log(t, 2), np.abs(cand))
    fix_lg2 = cand[np.isin(l2.view(u16), [0xA2E2, 0xBF46])]
    fixups |= set(int(b) for b in fix_lg2.view(u16)) | set(int(b) ^ 0x8000 for b in fix_lg2.view(u16))
    x = x[~np.isin(x.view(u16), list(fixups))]
    n = x.size
    case("nvrtc12_half_math_fns", "nvrtc12/half_math.sm_80.ptx", "half_math_fns", [2], [256], [x, Z("f16", n), S("s32", n)],
         {1: out(half_math_fns_ref(x), why="hexp/hlog/hsqrt/hrsqrt/hsin/hcos/hexp2/hlog2/hrcp correctly rounded to f16 "
                                           "(cuda_fp16: round-to-nearest), hfloor/hceil/htrunc/hrint exact, f16 adds in order")},
         note="x = 0 gives hlog = -inf and hrcp = +inf, so NaN; the fix-up inputs of the library are in nvrtc12_half_math_fns_fixups")
    xf = np.array(sorted(fixups), u16).view(f16)
    case("nvrtc12_half_math_fns_fixups", "nvrtc12/half_math.sm_80.ptx", "half_math_fns", [1], [32], [xf, Z("f16", xf.size), S("s32", xf.size)],
         {1: out(half_math_fns_ref(xf), why="as nvrtc12_half_math_fns, at the inputs where cuda_fp16 corrects the f32 "
                                            "approximation by one f16 ulp (hexp, hlog, hsin, hcos, hlog2 fix-up tables)")})
    n = 300
    x = (r.standard_normal(2 * n) * 2).astype(f16)
    y = (r.standard_normal(2 * n) * 2).astype(f16)
    ex = [(0.0, 1.0), (-0.0, 0.0), (1.0, 1.0), (2.0, -3.0), (np.inf, 2.0), (1.0, np.nan), (6e-8, 3.0), (5.0, 5.0), (-3.0, 4.0), (0.25, 8.0)]
    for k_, (x_, y_) in enumerate(ex):
        x[k_], y[k_] = x_, y_
    # the division r / (|y| + 1) goes through rcp.approx like __hdiv: drop pairs with a quotient near an f16 boundary
    for _ in range(3):
        _, _, rr_ = half2_ops_ref(x, y)
        R = h16(hfma_exact(x.astype(f64), y.astype(f64), hmul(x, x).astype(f64)))
        R = hadd(R, hadd(y, -x))
        den = hadd(np.abs(y), np.ones_like(y))
        bad = np.zeros(2 * n, bool)
        fi = np.where(np.isfinite(R) & (R != 0))[0]
        bad[fi] = near_midpoint([Fraction(float(R[i])) / Fraction(float(den[i])) for i in fi], "f16", Fraction(1, 2 ** 21))
        pairs_bad = bad[0::2] | bad[1::2]
        if not pairs_bad.any():
            break
        keep = np.repeat(~pairs_bad, 2)
        x, y = x[keep], y[keep]
        n = x.size // 2
    c, dot, _ = half2_ops_ref(x, y)
    case("nvrtc12_half2_ops", "nvrtc12/half_math.sm_80.ptx", "half2_ops", [2], [256], [x, y, Z("f16", 2 * n), Z("f32", n), S("s32", n)],
         {2: out(c, why="f16x2 mul/fma/add/sub/abs correctly rounded, __h2div correctly rounded for the kept inputs, max, "
                        "h2exp correctly rounded, set.le (1.0/0.0) times exp"),
          3: out(dot, why="cvt.f32.f16 (exact), f32 fma (contracted, from the PTX) and add")},
         note="pairs whose quotient is within 2^-21 (relative) of an f16 rounding boundary are dropped (see generator)")

    # ---------------- bf16_math ----------------
    n = 400
    x = to_bf16_bits(r.standard_normal(n) * 4)
    y = to_bf16_bits(r.standard_normal(n) * 4)
    ex = [(0.0, 1.0), (-0.0, 0.0), (1.0, 0.0), (-2.0, -1.0), (3.0, -0.5), (1e-39, 2.0), (1e30, 1e30), (-1e38, 3.0), (0.5, 0.5)]
    for k_, (x_, y_) in enumerate(ex):
        x[k_], y[k_] = b16(x_), b16(y_)
    _, (rr_, den_) = bf16_arith_ref(x, y)
    # __hdiv for bf16 is div.approx.f32 (2 ulp, PTX ISA) then cvt.rn.bf16: drop quotients within 2^-21 of a bf16 boundary
    with np.errstate(all="ignore"):
        qv = rr_ / den_
    keep = ~straddles(qv, 2 ** -21 * np.abs(qv), "bf16")
    x, y = x[keep], y[keep]
    n = x.size
    e, _ = bf16_arith_ref(x, y)
    case("nvrtc12_bf16_arith", "nvrtc12/bf16_math.sm_80.ptx", "bf16_arith", [2], [256], [x, y, Z("u16", n), S("s32", n)],
         {2: out(e, why="fma.rn.bf16 (add/sub/mul/fma as fma) correctly rounded, __hdiv correctly rounded for the kept inputs, "
                        "max/min/neg/abs, fma.rn.relu", as_="bf16")},
         note="bf16 as u16 bits; inputs whose quotient is within 2^-21 of a bf16 rounding boundary are dropped")
    n = 600
    x = to_bf16_bits(r.uniform(-10, 10, n))
    edge = [1.0, -1.0, 0.5, 2.0, 1e-39, -3e-5, 0.0, -0.0, 3.140625, 1.5703125, 9.9375, np.inf, -np.inf]
    x[:len(edge)] = b16(np.array(edge))
    parts = bf16_fn_parts(x)
    bad = np.zeros(n, bool)
    for v_, e_ in parts:
        bad |= straddles(v_, e_, "bf16")
    x = x[~bad]
    n = x.size
    case("nvrtc12_bf16_math_fns", "nvrtc12/bf16_math.sm_80.ptx", "bf16_math_fns", [2], [256], [x, Z("u16", n), S("s32", n)],
         {1: out(bf16_math_fns_ref(x), why="each function's f32 value (ex2.approx rel 2^-22.5, lg2.approx abs 2^-22.6 then "
                 "mul, sqrt.approx 1 ulp, libdevice sinf/cosf polynomial 2 ulp, rcp.approx 2^-22 rel, tanh.approx 2^-10 rel) is "
                 "far enough from a bf16 rounding boundary that cvt.rn.bf16 gives the correctly rounded value; bf16 adds "
                 "(fma.rn.bf16 x*1+y) reproduced", as_="bf16")},
         note="inputs where any term's error interval straddles a bf16 rounding boundary are dropped; tanh.approx has no "
              "bound in the PTX ISA 7.8 text, so a 2^-10 relative margin (twice the 2^-11 of later PTX ISA versions) is used; "
              "x = 0 gives hlog = -inf and hrcp = +inf, so NaN; +-inf give NaN (sin/cos)")
    n = 300
    x = to_bf16_bits(r.standard_normal(2 * n) * 3)
    y = to_bf16_bits(r.standard_normal(2 * n) * 3)
    x[:6] = b16(np.array([0.0, -0.0, 1.0, 1e-39, 1e38, -2.5]))
    y[:6] = b16(np.array([-0.0, 0.0, 1.0, 3e-39, 1e38, 2.5]))
    cb, fb = bf162_ops_ref(x, y)
    case("nvrtc12_bf162_ops", "nvrtc12/bf16_math.sm_80.ptx", "bf162_ops", [2], [256], [x, y, Z("u16", 2 * n), Z("f32", n), S("s32", n)],
         {2: out(cb, why="fma.rn.bf16x2 (mul/fma/sub/add as fma) correctly rounded, min/max.bf16x2", as_="bf16"),
          3: out(canon_nan(fb), why="bf16 -> f32 (exact), f32 sub and fma (contracted, from the PTX)")})
    n = 300
    fv = (r.standard_normal(n) * 10.0 ** r.uniform(-3, 6, n)).astype(f32)
    dv = r.standard_normal(n) * 10.0 ** r.uniform(-3, 6, n)
    kv = r.integers(-2 ** 31, 2 ** 31, n).astype(i32)
    kv[:100] = r.integers(-70000, 70000, 100)
    # round-to-odd matters: d just above a bf16 midpoint whose f32 rounding would land on it
    dv[:6] = [1.0 + 2 ** -9 + 2 ** -40, 1.0 + 2 ** -9, 1.0 + 3 * 2 ** -9, -(1.0 + 2 ** -9 + 2 ** -30), 3e38, 1e-40]
    fv[:6] = [1.0 + 2 ** -9, 1.0 + 3 * 2 ** -9, -(1.0 + 2 ** -9 + 2 ** -20), 3.3e38, 1e-40, np.inf]
    kv[:4] = [2 ** 31 - 1, -2 ** 31, 16777217, 257]
    ob, back = bf16_conversions_ref(fv, dv, kv)
    case("nvrtc12_bf16_conversions", "nvrtc12/bf16_math.sm_80.ptx", "bf16_conversions", [2], [256],
         [fv, dv, kv, Z("u16", n), Z("f32", n), S("s32", n)],
         {3: out(ob, why="cvt.rn/.rz.bf16.f32, double -> bf16 (round-to-odd to f32, then rn: correctly rounded), int -> bf16 rn, "
                         "bf16 adds", as_="bf16"),
          4: out(canon_nan(back), why="bf16 -> f32 exact, cvt.rzi.s32.f32 (saturating), cvt.rn.f32.s32, f32 add")})
    n, G, B = 4096, 4, 256
    x = b16bits(r.integers(-16, 17, n) / 8.0)
    y = b16bits(r.integers(-16, 17, n) / 8.0)
    tot = float((bv(x) * bv(y)).sum())
    case("nvrtc12_bf16_dot", "nvrtc12/bf16_math.sm_80.ptx", "bf16_dot", [G], [B], [x, y, Z("f32", 1), S("s32", n)],
         {2: out(np.array([tot], f32), why=WHY_DYADIC + "; grid-stride f32 fma, shfl.down tree, one atomicAdd per warp")})

    # ---------------- fp8_sm90 ----------------
    n = 400
    v = (r.standard_normal(n) * 10.0 ** r.uniform(-4, 5, n)).astype(f32)
    edge = [0.0, -0.0, np.nan, np.inf, -np.inf, 448, 449, 463.9, 464, 479, 480, 500, -1e9, 57344, 61439, 61440, -70000,
            2.0 ** -9, 2.0 ** -10, 3 * 2.0 ** -10, -5 * 2.0 ** -11, 2.0 ** -16, 2.0 ** -17, 1.5 * 2.0 ** -17, 2.0 ** -17 * 1.0001,
            1.0625, 1.1875, 0.9375, 1e-40, 240.0, 248.0, 56.0, 58.0]
    v[:len(edge)] = edge
    e4, e5, back = fp8_roundtrip_ref(v)
    case("nvrtc12_fp8_roundtrip", "nvrtc12/fp8_sm90.sm_90.ptx", "fp8_roundtrip", [2], [256],
         [v, Z("u8", n), Z("u8", n), Z("f32", n), S("s32", n)],
         {1: out(e4, why="cvt.rn.satfinite.e4m3x2.f32: nearest-even, saturating to +-448, NaN 0x7f (encoder from the format definition)"),
          2: out(e5, why="cvt.rn.satfinite.e5m2x2.f32: nearest-even, saturating to +-57344 (also +-inf), NaN 0x7f"),
          3: out(back, why="fp8 -> f16 -> f32 decodes (exact) and an f32 add")},
         note="edges: saturation thresholds, midpoint ties, subnormals of both formats, NaN/inf")
    n = 300
    xy = (r.standard_normal(2 * n) * 30).astype(f32)
    xy[:8] = [1.0, -1.0, 0.0, np.nan, 100.0, -1e6, 2.0 ** -12, 3.0]
    h = (r.standard_normal(2 * n) * 10.0 ** r.uniform(-3, 4.5, 2 * n)).astype(f16)
    h[:8] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 65504, 2.0 ** -24, 61440], f16)
    q, hq = fp8x2_quantize_ref(xy, 2.5, h)
    case("nvrtc12_fp8x2_quantize", "nvrtc12/fp8_sm90.sm_90.ptx", "fp8x2_quantize", [2], [256],
         [xy, Z("u16", n), h, Z("u16", n), S("f32", "2.5"), S("s32", n)],
         {1: out(q, why="f32 mul by scale, then cvt.rn.satfinite.e4m3x2.f32 (x in the low byte)"),
          3: out(hq, why="cvt.rn.satfinite.e5m2x2.f16x2 (lane 0 in the low byte)")})
    n = 300
    v = (r.standard_normal(n) * 10.0 ** r.uniform(-5, 5, n)).astype(f32)
    v[:len(edge)] = edge
    o, hv = fp8_raw_cvt_ref(v)
    case("nvrtc12_fp8_raw_cvt", "nvrtc12/fp8_sm90.sm_90.ptx", "fp8_raw_cvt", [2], [256], [v, Z("u16", n), Z("f16", 2 * n), S("s32", n)],
         {1: out(o, why="e4m3x2 (satfinite) of (v, -v) XOR the library's software bf16x2 -> e5m2x2 (no saturation: "
                        "overflow -> inf 0x7c) of (bf16(v), 1.0)"),
          2: out(hv, why="cvt.rn.f16x2.e4m3x2 decode (exact)")})

    # ---------------- complex_mandelbrot ----------------
    w, h, mi = 64, 48, 100
    img = mandelbrot_ref(w, h, f32(-2.25), f32(-1.125), f32(0.046875), f32(0.046875), mi)
    case("nvrtc12_mandelbrot", "nvrtc12/complex_mandelbrot.sm_80.ptx", "mandelbrot", [4, 3], [16, 16],
         [Z("u8", w * h), S("s32", w), S("s32", h), S("f32", "-2.25"), S("f32", "-1.125"), S("f32", "0.046875"),
          S("f32", "0.046875"), S("s32", mi)],
         {0: out(img, why="f32 escape-time iteration mirrored op by op (fma-contracted c and 2*zr*zi + ci, from the PTX); "
                          "integer 255*it/max_iter")})
    w, h, mi = 40, 32, 80
    cj = (-0.8, 0.156)
    case("nvrtc12_julia_double", "nvrtc12/complex_mandelbrot.sm_80.ptx", "julia_double", [3, 2], [16, 16],
         [H(struct.pack("<dd", *cj)), Z("i32", w * h), S("s32", w), S("s32", h), S("s32", mi)],
         {1: out(julia_ref(w, h, cj, mi), why="f64 iteration mirrored op by op: cuCabs (scaled hypot with fma), cuCmul with "
                                              "the imaginary part fma-contracted, correctly rounded f64 ops; iteration counts")},
         note="cuDoubleComplex passed by value as 16 raw bytes")
    n = 64
    x = r.standard_normal(2 * n).astype(f32)
    x[:4] = [1.0, 0.0, 0.0, -0.0]
    e, b = dft_ref(x).result(f32)
    case("nvrtc12_dft", "nvrtc12/complex_mandelbrot.sm_80.ptx", "dft", [1], [64], [x, Z("f32", 2 * n), S("s32", n)],
         {1: out(e, "bound", "sincospif within 1 ulp (+1/2) of sinpi/cospi (CUDA guide), complex mul (mul, mul, sub; "
                 "mul then fma for the imaginary part, from the PTX) and 64 adds each 1/2 ulp with errors propagated; the "
                 "arguments -2m/64 and the final cuCdivf by 64 are exact; per-element bound", bound=b)},
         note="n = 64 (a power of two) so the sincospif arguments and the division by n are exact")

    # ---------------- nbody_vector ----------------
    n, B = 200, 64
    pos = np.zeros((n, 4), f32)
    pos[:, :3] = r.standard_normal((n, 3)) * 2
    pos[:, 3] = r.uniform(0.5, 2.0, n)
    pos[5] = pos[6]  # two bodies at the same place: d2 = soft2 only
    e, b = nbody_ref(pos, f32(0.015625), B).result(f32)
    case("nvrtc12_nbody_forces", "nvrtc12/nbody_vector.sm_80.ptx", "nbody_forces", [4], [B],
         [pos, Z("f32", 4 * n), S("s32", n), S("f32", "0.015625")],
         {1: out(e, "bound", "float4 tiles through shared memory; every op but rsqrtf (rsqrt.approx.f32, 2 ulp per the CUDA "
                 "guide) is correctly rounded and mirrored from the PTX (fma contractions, j order); the rsqrtf errors "
                 "propagate through s = w*inv^3 and the 200 fma accumulations; per-element bound", bound=b)},
         shared=B * 16, note="n = 200 is not a multiple of the block, so the last tile is zero-padded")
    n = 300
    c4 = r.integers(-128, 128, (n, 4)).astype(i8)
    s2 = r.integers(-32768, 32768, (n, 2)).astype(i16)
    i4 = r.integers(-2 ** 31, 2 ** 31, (n, 4)).astype(i32)
    d2 = r.standard_normal((n, 2)) * 1e3
    l2 = r.integers(-2 ** 62, 2 ** 62, (n, 2), dtype=i64)
    l2[:50] = r.integers(-2 ** 40, 2 ** 40, (50, 2))
    u2 = r.integers(0, 256, (n, 2)).astype(u8)
    f2 = r.standard_normal((n, 2)).astype(f32)
    C, S_, I = c4.astype(i64), s2.astype(i64), i4.astype(i64)
    o4 = wrap32(np.stack([C[:, 0] + S_[:, 0] + I[:, 0], C[:, 1] + S_[:, 1] + I[:, 1], C[:, 2] + I[:, 2] + u2[:, 0],
                          C[:, 3] + I[:, 3] + u2[:, 1]], 1))
    od = np.stack([d2[:, 0] + l2[:, 0].astype(f64), d2[:, 1] * l2[:, 1].astype(f64)], 1)
    case("nvrtc12_vector_widths", "nvrtc12/nbody_vector.sm_80.ptx", "vector_widths", [2], [256],
         [c4, s2, i4, d2, l2, u2, f2, Z("i32", 4 * n), Z("f64", 2 * n), Z("f32", 2 * n), S("s32", n)],
         {7: out(o4, why="char4/short2/int4/uchar2 loads (v4.u8, v2.u16, v4.u32, v2.u8), sign extension, wrapping i32 adds"),
          8: out(od, why="double2/long2 loads, cvt.rn.f64.s64, f64 add/mul (correctly rounded)"),
          9: out(f2[:, ::-1].copy(), why="float2 swap")})
    n = 300
    p2 = r.standard_normal((n, 2)) * 10
    v2 = r.standard_normal((n, 2))
    a4 = r.standard_normal((n, 4)).astype(f32)
    dt = 0.01
    vn = fma64(a4[:, :2].astype(f64), dt, v2)
    pn = fma64(vn, dt, p2)
    case("nvrtc12_integrate", "nvrtc12/nbody_vector.sm_80.ptx", "integrate", [2], [256], [p2.copy(), v2.copy(), a4, S("f64", "0.01"), S("s32", n)],
         {0: out(pn, why=WHY_FMA + " (v += a*dt, p += v*dt as fma.rn.f64, a widened from f32)"),
          1: out(vn, why=WHY_FMA)})


# ----------------------------------------------------------------------------------------------
# Triton kernels with a spin lock (layernorm backward) and Philox random numbers (tl.rand/randn/randint)

PHILOX_ROUND_A, PHILOX_ROUND_B = 0xD2511F53, 0xCD9E8D57  # triton/language/random.py (mul.hi/lo.u32 by these in the PTX)
PHILOX_KEY_A, PHILOX_KEY_B = 0x9E3779B9, 0xBB67AE85


def philox4x32(c0, seed, rounds=10):
    """Triton's philox(seed, c0, 0, 0, 0): key (k0, k1) = (low, high) 32 bits of the seed as u64, counters (c0, 0, 0, 0),
    `rounds` rounds of philox_impl; returns the four u32 outputs as uint64 arrays."""
    M = 0xFFFFFFFF
    s = int(seed) & 0xFFFFFFFFFFFFFFFF
    k0, k1 = s & M, s >> 32
    c0 = np.asarray(c0, u64) & u64(M)
    c1 = np.zeros_like(c0); c2 = np.zeros_like(c0); c3 = np.zeros_like(c0)
    A, B = u64(PHILOX_ROUND_A), u64(PHILOX_ROUND_B)
    for _ in range(rounds):
        p0, p2 = A * c0, B * c2  # < 2^64: exact in u64
        c0, c1, c2, c3 = ((p2 >> u64(32)) ^ c1 ^ u64(k0), p2 & u64(M), (p0 >> u64(32)) ^ c3 ^ u64(k1), p0 & u64(M))
        k0, k1 = (k0 + PHILOX_KEY_A) & M, (k1 + PHILOX_KEY_B) & M
    return c0, c1, c2, c3


def triton_uniform(x):
    """uint_to_uniform_float for 32-bit x, as the PTX does it: v = x as i32, v ^ (v >> 31) (= -v-1 for v < 0),
    cvt.rn.f32.s32, mul.f32 by 0f2FFFFFFF (4.6566127342e-10 as f32)."""
    v = np.asarray(x, u64).astype(u32).view(i32).astype(i64)
    v = np.where(v < 0, -v - 1, v)
    return (v.astype(f64).astype(f32) * np.array([0x2FFFFFFF], u32).view(f32)[0]).astype(f32)


def _f32c(h):
    return np.array([h], u32).view(f32)[0]


def _no_subnormal(*vals):
    # the .ftz ops below are mirrored without flushing: assert nothing they see or make is subnormal
    for v in vals:
        a = np.abs(np.asarray(v, f32))
        assert not ((a > 0) & (a < np.finfo(f32).tiny)).any()


def libdevice_logf(u):
    """__nv_logf as inlined in the Triton PTX, op by op (normal positive finite u): integer split at 2/3, polynomial
    in f = m - 1 by fma.rn.ftz, + e*ln2."""
    b = np.asarray(u, f32).view(u32).astype(i64)
    assert ((b > 0) & (b < 0x7F800000)).all()
    e = (b - 0x3F2AAAAB) & -8388608                       # add.s32 -1059760811; and.b32 -8388608
    m = ((b - e) & 0xFFFFFFFF).astype(u32).view(f32)    # sub.s32
    ef = fma32(e.astype(f64).astype(f32), _f32c(0x34000000), f32(0))
    f = (m - f32(1)).astype(f32)                        # add.f32 -1
    p = fma32(_f32c(0xBE055027), f, _f32c(0x3E1039F6))
    for c in (0xBDF8CDCC, 0x3E0F2955, 0xBE2AD8B9, 0x3E4CED0B, 0xBE7FFF22, 0x3EAAAA78, 0xBF000000):
        p = fma32(p, f, _f32c(c))
        _no_subnormal(p)
    q = (f * p).astype(f32)                             # mul.f32
    q = fma32(q, f, f)
    r = fma32(ef, _f32c(0x3F317218), q)
    _no_subnormal(f, q, r)
    return r


def libdevice_cosf(x):
    """__nv_cosf as inlined in the Triton PTX for |x| < 105615 (the Payne-Hanek path is not taken): quadrant
    q = rni(x * 2/pi), 3-term Cody-Waite reduction, sin or cos polynomial by q's parity, sign by (q + 1) & 2."""
    x = np.asarray(x, f32)
    assert (np.abs(x) < _f32c(0x47CE4780)).all()
    q = np.rint((x * _f32c(0x3F22F983)).astype(f32)).astype(i64)  # mul.f32; cvt.rni.s32.f32 (ties to even)
    qf = q.astype(f64).astype(f32)
    j = fma32(qf, _f32c(0xBFC90FDA), x)
    j = fma32(qf, _f32c(0xB3A22168), j)
    j = fma32(qf, _f32c(0xA7C234C5), j)
    j2 = (j * j).astype(f32)
    odd = (q & 1) != 0
    base = np.where(odd, j, f32(1)).astype(f32)
    t = fma32(j2, base, f32(0))
    c2 = np.where(odd, _f32c(0xB94D4153), fma32(_f32c(0x37CBAC00), j2, _f32c(0xBAB607ED)))
    c1 = np.where(odd, _f32c(0x3C0885E4), _f32c(0x3D2AAABB))
    c0 = np.where(odd, _f32c(0xBE2AAAA8), _f32c(0xBEFFFFFF))
    p = fma32(fma32(fma32(c2, j2, c1), j2, c0), t, base)
    _no_subnormal(j, j2, t, p)
    return np.where(((q + 1) & 2) != 0, -p, p).astype(f32)   # fma(p, -1, 0)


def f32_within(q, n):
    """(lo, hi): the smallest and largest f32 within n ulp of the real value q (f64), ulp taken at the larger
    magnitude (ulp_up); a 2^-50 relative margin covers q itself being an f64 rounding of the exact quotient."""
    q = np.asarray(q, f64)
    d = n * ulp_up(q, n, "f32") + 2.0 ** -50 * np.abs(q)
    lo = hi = q.astype(f32)
    for _ in range(4 * n + 4):
        dn, up = np.nextafter(lo, f32(-np.inf)), np.nextafter(hi, f32(np.inf))
        lo = np.where(dn.astype(f64) >= q - d, dn, lo)
        hi = np.where(up.astype(f64) <= q + d, up, hi)
    assert (lo.astype(f64) >= q - d).all() and (hi.astype(f64) <= q + d).all()
    return lo.astype(f32), hi.astype(f32)


def cases_triton_more():
    """layernorm_bwd_dx_kernel (spin lock across CTAs), dropout_kernel (tl.rand), randn_kernel (tl.randn + tl.randint).
    The only approximate instructions are div.full.f32 (PTX ISA: 2 ulp over the full range) and sqrt.approx.ftz.f32
    (the CUDA guide's 1-ulp sqrtf without -prec-sqrt; the PTX ISA states no bound). The kernels' results are monotone
    in those values, so each bound is the largest distance from the expected value that the extreme admissible
    values of the approximate op produce through the rest of the kernel, mirrored op by op."""
    # ---------------- layernorm_bwd_dx_kernel (f32, BLOCK_N 512, GROUP_SIZE_M 64, 4 warps) ----------------
    r = rng(4100)
    M, N, stride, G = 100, 400, 416, 64
    x = (r.integers(-64, 65, (M, stride)) / 16).astype(f32)
    x[:, N:] = 1e30                                       # beyond N in each row: never loaded
    dy = (r.integers(-64, 65, (M, stride)) / 16).astype(f32)
    dy[:, N:] = -1e30
    w = r.standard_normal(N).astype(f32)
    mean = (r.integers(-16, 17, M) / 16).astype(f32)
    rstd = (r.integers(1, 9, M) / 4).astype(f32)          # j/4: xhat = (x - mean) * rstd = k*j/64 exactly
    dx0 = np.full((M, stride), -3.0, f32)                 # sentinel: columns >= N are not stored
    dw0 = np.full((G, N), 99.0, f32)                      # first arrival per group overwrites (count == 0)
    db0 = np.full((G, N), -99.0, f32)
    xs, dys = x[:, :N], dy[:, :N]
    xhat = ((xs - mean[:, None]).astype(f32) * rstd[:, None]).astype(f32)   # sub.f32, mul.f32
    wdy = (dys * w[None, :]).astype(f32)                                    # mul.f32 (w * dy)
    # thread t holds columns t + 128k (k = 0..3); columns >= N are zeros (selp)
    pad = lambda a: np.concatenate([a, np.zeros((M, 512 - N), f32)], axis=1).reshape(M, 4, 128)
    X4, W4 = pad(xhat), pad(wdy)

    def block_sum(v):  # per-thread (M, 128) -> shfl.bfly 16, 8, 4, 2, 1 in each warp, then (s0 + s2) + (s1 + s3)
        v = v.reshape(M, 4, 32)
        for m in (16, 8, 4, 2, 1):
            v = (v + v[:, :, np.arange(32) ^ m]).astype(f32)
        s = v[:, :, 0]
        return ((s[:, 0] + s[:, 2]).astype(f32) + (s[:, 1] + s[:, 3]).astype(f32)).astype(f32)

    s1 = (fma32(W4[:, 0], X4[:, 0], (W4[:, 1] * X4[:, 1]).astype(f32))
          + fma32(W4[:, 2], X4[:, 2], (W4[:, 3] * X4[:, 3]).astype(f32))).astype(f32)
    s2 = ((W4[:, 0] + W4[:, 1]).astype(f32) + (W4[:, 2] + W4[:, 3]).astype(f32)).astype(f32)
    S1, S2 = block_sum(s1), block_sum(s2)
    q1, q2 = S1.astype(f64) / N, S2.astype(f64) / N       # div.full.f32 by cvt.rn.f32.s32(N) (exact)

    def dx_of(c1, c2):
        t = fma32(xhat, c1[:, None], c2[:, None])         # fma.rn(xhat, c1, c2)
        return ((wdy - t).astype(f32) * rstd[:, None]).astype(f32)   # sub.f32, mul.f32 by rstd

    dx_e = dx_of(q1.astype(f32), q2.astype(f32))
    (l1, h1), (l2, h2) = f32_within(q1, 2), f32_within(q2, 2)
    bnd = np.zeros((M, stride))
    for c1 in (l1, h1):
        for c2 in (l2, h2):
            bnd[:, :N] = np.maximum(bnd[:, :N], np.abs(dx_of(c1, c2).astype(f64) - dx_e.astype(f64)))
    dx = dx0.copy()
    dx[:, :N] = dx_e
    pdw = (xhat * dys).astype(f32)                        # mul.f32 xhat * dy
    dw, db = pdw[:G].astype(f64), dys[:G].astype(f64)    # the first holder stores its partials as they are (-0 stays -0)
    for row in range(G, M):
        dw[row % G] += pdw[row]
        db[row % G] += dys[row]
    assert (dw.astype(f32).astype(f64) == dw).all() and np.abs(np.round(dw * 1024) - dw * 1024).max() == 0
    lock = np.zeros(2 * G, i32)
    lock_e = np.concatenate([np.zeros(G, i32), np.ones(G, i32)])
    case("triton_layernorm_bwd_dx_f32", "triton/softmax_norm.layernorm_bwd_dx_f32.sm_80.ptx", "layernorm_bwd_dx_kernel", [M], [128],
         [dx0, dy, dw0, db0, x, w, mean, rstd, lock, S("s32", stride), S("s32", N)] + TRITON_SCRATCH,
         {0: out(dx, "bound", "c1 = sum(xhat*wdy)/N and c2 = sum(wdy)/N: the row sums (mul + fma per thread, shfl.bfly 16..1, "
                 "(s0+s2)+(s1+s3) across warps) mirrored exactly; div.full.f32 within 2 ulp (PTX ISA), so the bound is the largest "
                 "change of the mirrored (wdy - fma(xhat, c1, c2)) * rstd over the extreme admissible c1, c2 (monotone in each); "
                 "columns >= N keep the sentinel", bound=bnd),
          2: out(dw.astype(f32), why=WHY_DYADIC + " (xhat*dy = (k/16)(j/4)(d/16) = m/1024, at most 2 rows per lock group: any lock order gives these bits; "
                 "the first holder of each group overwrites the 99.0 fill)"),
          3: out(db.astype(f32), why=WHY_DYADIC + " (dy = k/16)"),
          8: out(lock_e, why="every lock released (0); every group's count set to 1 by its first holder")},
         shared=32768,
         note="M = 100 rows over 64 lock groups (36 groups get 2 rows, 28 get 1); N = 400 < BLOCK_N = 512 (masked tail), "
              "row stride 416; mean = k/16 and rstd = j/4 are inputs, so xhat is exact")

    # Random123's known answer for philox4x32-10 (counter 0, key 0), the generator's Philox against the reference
    assert [int(v[0]) for v in philox4x32(np.array([0]), 0)] == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
    # ---------------- dropout_kernel (f32, BLOCK 1024, 4 warps): tl.rand = Philox4x32-10 c0 -> uniform ----------------
    r = rng(4101)
    n, nbuf = 2500, 3072
    seed = -1234567                                       # i32 seed: the PTX sign-extends it (k1 = 0xffffffff)
    p = f32(0.3)
    xin = np.zeros(nbuf, f32)
    xin[:n] = (r.standard_normal(n) * 4).astype(f32)
    o0 = np.full(nbuf, -7.0, f32)                         # sentinel: offsets >= n are not stored
    u = triton_uniform(philox4x32(np.arange(nbuf), seed)[0])
    keep = u > p                                          # setp.gt.f32
    dvs = (f32(1) - p).astype(f32)                        # sub.f32
    q = xin.astype(f64) / float(dvs)
    lo, hi = f32_within(q, 2)                             # div.full.f32: 2 ulp (PTX ISA)
    qe = q.astype(f32)
    exp_ = np.where(keep, qe, f32(0)).astype(f32)
    bd = np.where(keep, np.maximum(hi.astype(f64) - qe, qe - lo.astype(f64)), 0.0)
    exp_[n:], bd[n:] = o0[n:], 0.0
    assert 0.6 < keep[:n].mean() < 0.8
    case("triton_dropout_f32", "triton/attention_misc.dropout_f32.sm_80.ptx", "dropout_kernel", [3], [128],
         [xin, o0, S("s32", n), S("f32", repr(float(p))), S("s32", seed)] + TRITON_SCRATCH,
         {1: out(exp_, "bound", "keep mask exact: Philox4x32-10 (triton/language/random.py constants and key schedule, as in the PTX) "
                 "-> xor-fold, cvt.rn.f32.s32, mul by 0f2FFFFFFF, > p; dropped elements are +0 (bound 0); kept ones x / (1 - p) by "
                 "div.full.f32, 2 ulp (PTX ISA): bound = distance to the farthest f32 within 2 ulp of the exact quotient; "
                 "offsets >= n keep the sentinel", bound=bd)},
         note="n = 2500 leaves the third block partly masked; p = 0.3 as f32; the negative seed exercises the sign-extended key high word")

    # ---------------- randn_kernel (BLOCK 256, 2 warps): tl.randn(seed, offs) + tl.randint(seed, offs) ----------------
    G2 = 64
    seed = 0x0123456789ABCDEF                             # i64 seed: key = (0x89ABCDEF, 0x01234567)
    offs = np.arange(G2 * 256)
    c0, c1, _, _ = philox4x32(offs, seed)
    u1 = np.maximum(triton_uniform(c0), _f32c(0x33D6BF95))           # max.f32 with 1e-7
    u2 = triton_uniform(c1)
    L = (libdevice_logf(u1) * f32(-2)).astype(f32)                      # mul.f32 by -2.0 (exact)
    cs = libdevice_cosf((u2 * _f32c(0x40C90FDB)).astype(f32))          # mul.f32 by 2*pi as f32
    sq = np.sqrt(L.astype(f64)).astype(f32)                            # sqrt.approx.ftz: correctly rounded +- 1 ulp
    R = c0.astype(f64).astype(f32)                                     # randint as f32: cvt.rn.f32.u32
    e = fma32(sq, cs, R)                                               # fma.rn.f32(r, cos, randint)
    bd = np.zeros(e.size)
    for s_ in (np.nextafter(sq, f32(0)), np.nextafter(sq, f32(np.inf))):
        bd = np.maximum(bd, np.abs(fma32(s_, cs, R).astype(f64) - e.astype(f64)))
    mx = np.abs(fma32(sq, cs, f32(0)).astype(f64) - np.sqrt(-2 * np.log(u1.astype(f64))) * np.cos(2 * np.pi * u2.astype(f64)))
    assert mx.max() < 1e-5, mx.max()                      # sanity: the mirrored Box-Muller is the real one
    assert bd.max() == 0                                  # no element's result depends on the root's last bit
    vis = int((e != R).sum())
    case("triton_randn", "triton/attention_misc.randn.sm_80.ptx", "randn_kernel", [G2], [64],
         [Z("f32", G2 * 256), S("u64", seed)] + TRITON_SCRATCH,
         {0: out(e, "exact", "Philox4x32-10 outputs c0 (randint, u1) and c1 (u2) exact; libdevice logf and cosf are inlined as "
                 "correctly rounded fma.rn.ftz/mul/cvt sequences, mirrored op by op (no subnormal operands, asserted); the only "
                 "approximate op, sqrt.approx.ftz.f32, is allowed 1 ulp from the correctly rounded root (CUDA guide sqrtf without "
                 "-prec-sqrt; the PTX ISA states no bound), and the generator checks that r +- 1 ulp changes no "
                 "fma.rn(r, cos, f32(randint)) here, so the comparison is exact")},
         note=f"out = randn + float(randint) with the same Philox c0: the u32 randint dominates the sum, so the normal sample "
              f"changes the f32 result for {vis} of {e.size} elements (those with small randints); the rest check Philox and "
              f"cvt.rn.f32.u32")



def cases_tma():
    """Triton sm_90 kernels fed by TMA (fixtures-src/triton/tma.py). Host-side descriptors: each
    `tensordesc` parameter is a tensor map (`T`: `--arg tmap:` over a new buffer, written back as
    arg<i>.npy) followed by the shape (i32) and the strides (i64, elements); the box and the
    swizzle are Triton's compile metadata for the fixture (`tensordesc_meta`: block_size, reversed
    to innermost-first, and swizzle 2 = 64 B, 3 = 128 B). Device-side descriptors
    (`tl.make_tensor_descriptor`) are built in the global scratch buffer, `global_scratch_size`
    bytes per CTA (256 for the copy, 384 for the GEMM). Sizes are not multiples of the blocks, so
    loads fill out-of-bounds elements with zero and stores skip them."""
    r = rng(130)
    why = "integer-valued data: every product and partial sum is exact in f32"
    # copy: out = x * 2 + 1 (f32, exact for these small integers), host descriptors
    m, n = 40, 72
    x = r.integers(-1000, 1000, (m, n)).astype(f32)
    rest = f"{n},{m}:{n * 4}:32,16:swizzle=128"
    case("triton_tma_copy_host_desc", "triton/tma.copy_host_desc_f32_16x32.sm_90.ptx", "tma_copy_kernel",
         [-(-m // 16), -(-n // 32)], [128],
         [TM(x, "f32:" + rest), S("s32", m), S("s32", n), S("s64", n), S("s64", 1),
          TM(np.zeros((m, n), f32), "f32:" + rest), S("s32", m), S("s32", n), S("s64", n), S("s64", 1)] + TRITON_SCRATCH,
         {5: out(x * f32(2) + f32(1), why=why + " (x * 2 + 1, fused to fma.rn: exact)")}, shared=2056)
    # copy: out = x - 3, device descriptors
    grid = [-(-m // 16), -(-n // 32)]
    case("triton_tma_copy_dev_desc", "triton/tma.copy_dev_desc_f32_16x32.sm_90.ptx", "dev_desc_copy_kernel",
         grid, [128], [x, Z("f32", m * n), S("s32", m), S("s32", n), Z("u8", 256 * grid[0] * grid[1]), U64(0)],
         {1: out(x - f32(3), why=why + " (x - 3)")}, shared=2056)
    # GEMM: C = A @ B, fp16 inputs, f32 accumulation through wgmma, M/N/K not multiples of the blocks
    M, N, K = 100, 96, 80
    A = r.integers(-4, 5, (M, K)).astype(f16)
    B = r.integers(-4, 5, (K, N)).astype(f16)
    C = (A.astype(f32) @ B.astype(f32)).astype(f32)
    grid = [-(-M // 64), -(-N // 64)]
    case("triton_tma_matmul_host_desc", "triton/tma.matmul_host_desc_fp16_64x64x32_s3.sm_90.ptx", "tma_matmul_kernel",
         grid, [128],
         [TM(A, f"f16:{K},{M}:{K * 2}:32,64:swizzle=64"), S("s32", M), S("s32", K), S("s64", K), S("s64", 1),
          TM(B, f"f16:{N},{K}:{N * 2}:64,32:swizzle=128"), S("s32", K), S("s32", N), S("s64", N), S("s64", 1),
          TM(np.zeros((M, N), f32), f"f32:{N},{M}:{N * 4}:32,64:swizzle=128"), S("s32", M), S("s32", N), S("s64", N),
          S("s64", 1), S("s32", K)] + TRITON_SCRATCH,
         {10: out(C, why=why + "; TMA-fed wgmma (K tail and M/N edges out of bounds: zero fill, skipped stores)")},
         shared=24600)
    case("triton_tma_matmul_dev_desc", "triton/tma.matmul_dev_desc_fp16_64x64x32.sm_90.ptx", "dev_desc_matmul_kernel",
         grid, [128], [A, B, Z("f32", M * N), S("s32", M), S("s32", N), S("s32", K),
                       Z("u8", 384 * grid[0] * grid[1]), U64(0)],
         {2: out(C, why=why + "; descriptors built with tensormap.replace, TMA-fed wgmma")}, shared=16400)

    # persistent: 2 programs loop over the 2 x 2 output tiles (dynamic shared memory: more than
    # the kernel's 3-stage pipeline needs)
    case("triton_tma_matmul_persistent", "triton/tma.matmul_persistent_fp16_64x64x32_s3.sm_90.ptx",
         "persistent_matmul_kernel", [2], [128],
         [TM(A, f"f16:{K},{M}:{K * 2}:32,64:swizzle=64"), S("s32", M), S("s32", K), S("s64", K), S("s64", 1),
          TM(B, f"f16:{N},{K}:{N * 2}:64,32:swizzle=128"), S("s32", K), S("s32", N), S("s64", N), S("s64", 1),
          TM(np.zeros((M, N), f32), f"f32:{N},{M}:{N * 4}:32,64:swizzle=128"), S("s32", M), S("s32", N), S("s64", N),
          S("s64", 1), S("s32", M), S("s32", N), S("s32", K)] + TRITON_SCRATCH,
         {10: out(C, why=why + "; persistent TMA-fed wgmma, mbarrier phases carried across tiles")}, shared=65536)
    # Gluon im2col: a host-side im2col descriptor over an NHWC [2, 4, 4, 32] f32 tensor with the
    # pixel box corners (-1, -1), (-1, -1) (window [-1, 3) per image, as in Triton's tutorial
    # 13-tma-im2col example 3); the load at (n, h, w, c) = (1, -1, -1, 0) with the compiled
    # offsets (1, 1) reads all 16 pixels of image 1, and a tiled store writes the [16, 32] block.
    # The four values after each map (the descriptor's block shape and strides) are unused by
    # the kernel (not loaded in the PTX).
    img = (np.arange(2 * 4 * 4)[:, None] + 1 + np.arange(32)[None, :] / 64).astype(f32).reshape(2, 4, 4, 32)
    case("triton_tma_gluon_im2col", "triton/tma.gluon_im2col_f32_16x32.sm_90.ptx", "gluon_im2col_kernel", [1], [32],
         [TM(img, "f32:32,4,4,2:128,512,2048:32:pixels=16:lower=-1,-1:upper=-1,-1:swizzle=128"),
          S("s32", 16), S("s32", 32), S("s64", 32), S("s64", 1),
          TM(np.zeros((16, 32), f32), "f32:32,16:128:32,16:swizzle=128"), S("s32", 16), S("s32", 32), S("s64", 32),
          S("s64", 1), S("s32", 1), S("s32", -1), S("s32", -1), S("s32", 0)] + TRITON_SCRATCH,
         {5: out(img[1].reshape(16, 32), why="data movement: image 1's 16 pixels in im2col order (row-major H, W)")},
         shared=2056)
    # CUDA C++ with inline PTX (fixtures-src/cuda/tma_sm90.cu): maps as __grid_constant__
    # parameters over buffers the kernel never names; box {32, 16} f32, no swizzle; a 40 x 72
    # tensor (3 x 3 CTAs: the last row and column of boxes hang past the edges).
    m, n = 40, 72
    x = r.integers(-1000, 1000, (m, n)).astype(f32)
    acc = r.integers(-1000, 1000, (m, n)).astype(f32)
    rest = f"f32:{n},{m}:{n * 4}:32,16"
    for nv in ("nvrtc12", "nvrtc13"):
        case(f"{nv}_tma_scale_tile", f"{nv}/tma_sm90.sm_90.ptx", "tma_scale_tile", [3, 3], [128],
             [TM(x, rest), TM(np.zeros((m, n), f32), rest), S("f32", "0.5")],
             {1: out(x * f32(0.5), why=why + " (x * 0.5); the tensor store skips elements past the edges")})
        case(f"{nv}_tma_accumulate_tile", f"{nv}/tma_sm90.sm_90.ptx", "tma_accumulate_tile", [3, 3], [128],
             [TM(x, rest), TM(acc, rest)],
             {1: out(acc + x, why=why + " (acc + x through cp.reduce.async.bulk.tensor .add.f32)")})


if __name__ == "__main__":
    main()
