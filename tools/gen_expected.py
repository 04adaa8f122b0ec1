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


# ----------------------------------------------------------------------------------------------
# case table


class Case:
    def __init__(self, name, fixture, kernel, grid, block, args, outputs, shared=0, xfail=None,
                 note="", source=None):
        self.name, self.fixture, self.kernel = name, fixture, kernel
        self.grid = list(grid) + [1] * (3 - len(grid))
        self.block = list(block) + [1] * (3 - len(block))
        self.args, self.outputs, self.shared, self.xfail, self.note = args, outputs, shared, xfail, note
        self.source = source


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


class H:  # raw parameter bytes
    def __init__(self, b):
        self.b = bytes(b)


def out(expected, mode="exact", why="integer/exactly rounded arithmetic, reproduced op by op", as_=None):
    d = {"expected": np.ascontiguousarray(expected), "mode": mode, "why": why}
    if as_:
        d["as"] = as_
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
        for st in (128, 64):
            sd[:st] = sd[:st] + sd[st:2 * st]
        for st in (32, 16, 8, 4, 2, 1):  # warp-synchronous volatile steps (lockstep)
            sd[:32] = sd[:32] + sd[st:st + 32]
        res[blk] = sd[0]
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
XFAIL = {
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "debug", "ptxvm"))
    o = ap.parse_args()
    cases_cuda()
    cases_group_a()
    cases_clang()
    cases_numba()
    cases_triton()
    cases_math()
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
        else:
            arr = np.ascontiguousarray(a)
            if arr.dtype.kind == "V" or arr.dtype == np.bool_:
                raise TypeError(f"{c.name}: arg {i} dtype {arr.dtype}")
            np.save(os.path.join(d, f"in{i}.npy"), arr.reshape(-1) if arr.ndim != 1 else arr)
            args.append({"npy": f"in{i}.npy"})
    outs = []
    for i, spec in sorted(c.outputs.items()):
        e = np.ascontiguousarray(spec["expected"]).reshape(-1)
        np.save(os.path.join(d, f"expected{i}.npy"), e)
        od = {"arg": i, "expected": f"expected{i}.npy", "mode": spec["mode"], "why": spec["why"]}
        if "as" in spec:
            od["as"] = spec["as"]
        if "skip" in spec:
            od["skip"] = spec["skip"]
        outs.append(od)
    j = {"fixture": f"{FIX}/{c.fixture}", "kernel": c.kernel, "grid": c.grid, "block": c.block, "shared_mem": c.shared,
         "args": args, "outputs": outs}
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


def compare(got, exp, mode, as_=None):
    if got.shape != exp.shape or got.dtype != exp.dtype:
        return f"shape/dtype {got.dtype}{got.shape} vs expected {exp.dtype}{exp.shape}"
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
        for a in j["args"]:
            if "npy" in a:
                cmd += ["--arg", os.path.join(d, a["npy"])]
            elif "scalar" in a:
                cmd += ["--arg", a["scalar"]]
            elif "zeros" in a:
                cmd += ["--arg", "zeros:" + a["zeros"]]
            else:
                cmd += ["--arg", "hex:" + a["hex"]]
        import time
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True)
        dt = time.time() - t0
        if p.returncode != 0:
            return False, f"exit {p.returncode} ({dt:.2f}s): {p.stderr.strip()[:300]}"
        msgs = []
        for od in j["outputs"]:
            got = np.load(os.path.join(td, f"arg{od['arg']}.npy"))
            exp = np.load(os.path.join(d, od["expected"]))
            if od.get("skip"):
                keep = np.ones(exp.size, bool)
                keep[od["skip"]] = False
                got, exp = got[keep], exp[keep]
            m = compare(got, exp, od["mode"], od.get("as"))
            if m:
                msgs.append(f"arg{od['arg']} ({od['mode']}): {m}")
        return not msgs, (f"{dt:.2f}s " + "; ".join(msgs)) if msgs else f"{dt:.2f}s"


def entry_name(fixture):
    t = open(os.path.join(ROOT, FIX, fixture)).read()
    names = re.findall(r"\.entry\s+([\w$]+)\s*\(", t)
    assert len(names) == 1, (fixture, names)
    return names[0]


def cases_group_a():
    """Group A: real-compiler kernels that had no numpy case yet (rng seeds 200..299)."""
    # ---------------- reduce_shared: reduce_sum<128>, reduce_sum<512> ----------------
    def reduce_sum_ref(x, n, B, G):
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


if __name__ == "__main__":
    main()
