#!/usr/bin/env python3
"""An independent reference of the tensor-core arithmetic model and the mma fragment layouts,
for ptxvm's tests. Written from `shared/spec/tensor-core-arithmetic.md` (§2 T-FDPA, §0 table,
§3 per architecture, §4 f64, §5 integer) and the PTX ISA's "Matrix Fragments for mma.*"
sections, with exact rational arithmetic (fractions.Fraction); it shares no code with
`ptxvm_fp::tensor` or `ptxvm_vm::ops::tensor`.

Usage:
  tools/tc_ref.py vectors   writes crates/ptxvm-fp/tests/data/tc_ref.txt (and tc_ref_bscale.txt,
                            the block-scaled kinds): for each model row,
                            the expected D of 1000 pseudo-random dot products (inputs from a
                            SplitMix64 stream that crates/ptxvm-fp/tests/tensor_ref.rs
                            regenerates bit for bit)
  tools/tc_ref.py runtests  writes tests/run/warp/mma_*.ptx: one warp runs one mma.sync with
                            per-lane fragments laid out by this file, expected D from this file;
                            wmma_*.ptx; mma_bscale_*.ptx (block-scaled mma.sync: scale-factor
                            selectors and the block-scale model); the b8 ldmatrix/stmatrix tests
"""

import os
import struct
import sys
from fractions import Fraction

MASK64 = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.s = seed & MASK64

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)


# name: (exponent bits, fraction bits, special-value encoding)
FMT = {
    "f16": (5, 10, "ieee"),
    "bf16": (8, 7, "ieee"),
    "tf32": (8, 10, "ieee"),
    "f32": (8, 23, "ieee"),
    "f64": (11, 52, "ieee"),
    "e4m3": (4, 3, "nan-only"),
    "e5m2": (5, 2, "ieee"),
    "e3m2": (3, 2, "finite"),
    "e2m3": (2, 3, "finite"),
    "e2m1": (2, 1, "finite"),
}


def p2(n):
    return Fraction(2) ** n


def width(f):
    e, m, _ = FMT[f]
    return 1 + e + m


def decode(f, bits):
    """-> ('nan',) | ('inf', neg) | ('num', neg, value >= 0, alignment exponent)"""
    E, M, kind = FMT[f]
    if f == "tf32":
        bits >>= 13
    bits &= (1 << (1 + E + M)) - 1
    neg = bool(bits >> (E + M))
    e = (bits >> M) & ((1 << E) - 1)
    m = bits & ((1 << M) - 1)
    bias = (1 << (E - 1)) - 1
    top = (1 << E) - 1
    if kind == "ieee" and e == top:
        return ("inf", neg) if m == 0 else ("nan",)
    if kind == "nan-only" and e == top and m == (1 << M) - 1:
        return ("nan",)
    emin = 1 - bias
    if e == 0:
        return ("num", neg, Fraction(m, 1 << M) * p2(emin), emin)
    return ("num", neg, Fraction((1 << M) + m, 1 << M) * p2(e - bias), e - bias)


def floor_log2(a):
    """floor(log2 a) for a Fraction a > 0."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if a < p2(e):
        e -= 1
    return e


def encode(f, neg, a, mode):
    """Round the non-negative Fraction a (sign neg) to format f (f16, f32, f64, or the
    E8M13 grid 'e8m13' stored as f32 bits) with mode 'rz', 'rne', 'rm' or 'rp'; overflow ->
    inf (for 'rm'/'rp' toward zero: the largest finite value)."""
    store = "f32" if f == "e8m13" else f
    E, M, _ = FMT[store]
    man = 13 if f == "e8m13" else M
    bias = (1 << (E - 1)) - 1
    emin, emax = 1 - bias, bias
    sbit = 1 << (E + M)
    if a == 0:
        return sbit if neg else 0
    e = floor_log2(a)
    q = max(e, emin) - man
    x = a / p2(q)
    n = x.numerator // x.denominator
    if mode == "rne":
        r = x - n
        if r > Fraction(1, 2) or (r == Fraction(1, 2) and n % 2 == 1):
            n += 1
    elif mode in ("rm", "rp") and x != n and neg == (mode == "rm"):
        n += 1  # away from zero: toward -inf for negative values, +inf for positive ones
    if n == 0:
        return sbit if neg else 0
    if n == 1 << (man + 1):
        n >>= 1
        q += 1
    if n >= 1 << man:
        er = q + man
        if er > emax:
            if mode in ("rm", "rp") and neg != (mode == "rm"):
                return (sbit if neg else 0) | ((((1 << E) - 1) << M) - 1)  # largest finite
            return (sbit if neg else 0) | (((1 << E) - 1) << M)
        bits = ((er + bias) << M) | ((n - (1 << man)) << (M - man))
    else:
        bits = n << (M - man)
    return (sbit if neg else 0) | bits


def canonical_nan(acc):
    return {"f16": 0x7FFF, "f32": 0x7FFFFFFF}[acc]


def inf_bits(acc, neg):
    return {"f16": 0x7C00 | (0x8000 if neg else 0), "f32": 0x7F800000 | (0x80000000 if neg else 0)}[acc]


def specials(pairs, c):
    """The §2 step-1 rules: returns None, 'nan', or ('inf', neg)."""
    nan = pinf = ninf = False
    terms = []
    for a, b in pairs:
        if a[0] == "nan" or b[0] == "nan":
            nan = True
        elif a[0] == "inf" or b[0] == "inf":
            other = b if a[0] == "inf" else a
            if other[0] == "num" and other[2] == 0:
                nan = True
            else:
                terms.append(a[1] != b[1])
    if c[0] == "nan":
        nan = True
    elif c[0] == "inf":
        terms.append(c[1])
    for t in terms:
        if t:
            ninf = True
        else:
            pinf = True
    if nan or (pinf and ninf):
        return "nan"
    if pinf or ninf:
        return ("inf", ninf)
    return None


def tfdpa(pairs, c, F, e0, out):
    """One block (§2). c is decoded; out is 'f32', 'e8m13' or 'f16'. Returns bits."""
    acc = "f16" if out == "f16" else "f32"
    sp = specials(pairs, c)
    if sp == "nan":
        return canonical_nan(acc)
    if sp is not None:
        return inf_bits(acc, sp[1])
    addends = []
    exps = []
    for a, b in pairs:
        v = a[2] * b[2]
        sgn = a[1] != b[1]
        if v == 0:
            exps.append(e0)
        else:
            exps.append(a[3] + b[3])
            addends.append((sgn, v))
    if c[2] == 0:
        exps.append(e0)
    else:
        exps.append(c[3])
        addends.append((c[1], c[2]))
    emax = max(exps)
    S = 0
    for sgn, v in addends:
        t = v * p2(F - emax)
        t = t.numerator // t.denominator  # floor of the magnitude = truncation toward zero
        S += -t if sgn else t
    if S == 0:
        return 0
    val = abs(S) * p2(emax - F)
    bits = encode(out, S < 0, val, "rne" if out == "f16" else "rz")
    sign = 0x8000 if acc == "f16" else 0x80000000
    return 0 if bits & ~sign == 0 else bits


def rn_add(acc, x, y):
    """IEEE x + y rounded to nearest even in acc (x, y decoded); NaN canonical."""
    if x[0] == "nan" or y[0] == "nan":
        return canonical_nan(acc)
    if x[0] == "inf" and y[0] == "inf":
        return inf_bits(acc, x[1]) if x[1] == y[1] else canonical_nan(acc)
    if x[0] == "inf":
        return inf_bits(acc, x[1])
    if y[0] == "inf":
        return inf_bits(acc, y[1])
    s = (-x[2] if x[1] else x[2]) + (-y[2] if y[1] else y[2])
    if s == 0:
        neg = x[1] and y[1] and x[2] == 0 and y[2] == 0
        return (0x8000 if acc == "f16" else 0x80000000) if neg else 0
    return encode(acc, s < 0, abs(s), "rne")


# The parameter table (§0 and §3), keyed by generation.
E0 = {"volta": (-19, -131), "turing": (-20, -132), "ampere": (-20, -132), "ada": (-20, -132),
      "hopper": (-21, -133), "blackwell": (-21, -133), "rtx-blackwell": (-21, -133)}
FP8 = ("e4m3", "e5m2", "e3m2", "e2m3", "e2m1")


def model(gen, inst, k, ab, d):
    """-> dict(F, L, e0, out, interleave)"""
    e0 = E0[gen][0 if d == "f16" else 1]
    out = d
    fp8 = ab in FP8
    elem_bytes = {"tf32": 4, "f16": 2, "bf16": 2}.get(ab, 1)
    il = False
    if inst == "wgmma":
        F, L = (13, k) if fp8 else (25, k)
        if fp8 and d == "f32":
            out = "e8m13"
    elif inst == "m8n8k4":
        if gen in ("volta", "turing"):
            F, L, e0 = 23, 4, E0["volta"][0 if d == "f16" else 1]
        elif gen in ("ampere", "ada"):
            F, L = 24, 4
        else:
            F, L = 25, 4
    elif gen == "volta":
        F, L = 23, 4
    elif gen == "turing":
        F, L = 24, 8
    elif gen in ("ampere", "ada"):
        if fp8:
            F, L = 13, 16
            if d == "f32":
                out = "e8m13"
        elif ab == "tf32":
            F, L = 24, 4
        else:
            F, L = 24, 8
    elif gen in ("hopper", "blackwell"):
        if fp8:
            F, L, il = 25, 16, True
        elif ab == "tf32":
            F, L = 25, 8
        else:
            F, L = 25, 16
    else:  # rtx-blackwell: one block per 32 bytes of A
        F, L = 25, 32 // elem_bytes
    return {"F": F, "L": L, "e0": e0, "out": out, "il": il}


def dot(gen, inst, at, bt, ct, d, a, b, c, c_scale=0):
    """One element of D (bits) for raw operand bits a[k], b[k] and C bits c. c_scale:
    tcgen05.mma's scale-input-d, C enters the sum as the exact value C * 2^-c_scale (its
    alignment exponent lowered by the scale; a zero C stays the zero addend)."""
    k = len(a)
    p = model(gen, inst, k, at, d)
    A = [decode(at, x) for x in a]
    B = [decode(bt, x) for x in b]
    C = decode(ct, c)
    if c_scale and C[0] == "num" and C[2] != 0:
        C = ("num", C[1], C[2] * p2(-c_scale), C[3] - c_scale)
    if p["il"]:
        lo = [(A[i], B[i]) for i in range(k) if i % 4 < 2]
        hi = [(A[i], B[i]) for i in range(k) if i % 4 >= 2]
        d1 = tfdpa(lo, ("num", False, Fraction(0), 0), p["F"], p["e0"], p["out"])
        d2 = tfdpa(hi, decode(d, d1), p["F"], p["e0"], p["out"])
        if ct != d:
            C = decode(d, encode(d, C[1], C[2], "rne")) if C[0] == "num" else C
        return rn_add(d, decode(d, d2), C)
    acc = C
    bits = None
    for j in range(0, max(k, 1), p["L"]):
        bits = tfdpa(list(zip(A[j:j + p["L"]], B[j:j + p["L"]])), acc, p["F"], p["e0"], p["out"])
        acc = decode(d, bits)
    return bits


def fma64(a, b, c, mode="rne"):
    """IEEE binary64 fma (round to nearest even, 'rz', 'rm' or 'rp'), for finite a, b, c given
    as bits."""
    da, db, dc = decode("f64", a), decode("f64", b), decode("f64", c)
    assert da[0] == db[0] == dc[0] == "num"
    pn = da[1] != db[1]
    pv = da[2] * db[2]
    s = (-pv if pn else pv) + (-dc[2] if dc[1] else dc[2])
    if s == 0:
        # Same-signed zeros keep their sign; otherwise (opposite zeros or exact
        # cancellation) +0, or -0 when rounding toward -inf (IEEE 754 6.3).
        if pv == 0 and dc[2] == 0 and pn == dc[1]:
            neg = pn
        else:
            neg = mode == "rm"
        return (1 << 63) if neg else 0
    return encode("f64", s < 0, abs(s), mode)


def dot_f64(a, b, c, mode="rne"):
    d = c
    for x, y in zip(a, b):
        d = fma64(x, y, d, mode)
    return d


def int_val(t, bits):
    w = {"s8": 8, "u8": 8, "s4": 4, "u4": 4}[t]
    bits &= (1 << w) - 1
    if t[0] == "s" and bits >> (w - 1):
        bits -= 1 << w
    return bits


def dot_int(at, bt, a, b, c, sat):
    s = c + sum(int_val(at, x) * int_val(bt, y) for x, y in zip(a, b))
    if sat:
        s = max(-(1 << 31), min((1 << 31) - 1, s))
    return s & 0xFFFFFFFF


def dot_b1(op, a, b, c):
    s = c + sum((x & y) if op == "and" else (x ^ y) for x, y in zip(a, b))
    return s & 0xFFFFFFFF


# ---------------------------------------------------------------------------------------
# Random operands.

def gen_bits(f, r, mode, center, ref=None):
    """Operand bits of format f from one random word r. ref = (input format, center) gives
    C an exponent near the products'."""
    fmt = "f32" if f == "tf32" else f
    E, M, _ = FMT[fmt if f != "tf32" else "tf32"]
    if f == "tf32":
        E, M = 8, 10
    W = 1 + E + M
    if mode == 0:
        bits = r & ((1 << W) - 1)
    else:
        sel = r & 255
        s = (r >> 8) & 1
        top = (1 << E) - 1
        if sel == 0:
            bits = s << (E + M)
        elif sel == 1:
            bits = (s << (E + M)) | ((r >> 9) & ((1 << M) - 1))
        elif sel == 2:
            bits = (s << (E + M)) | (top << M) | ((r >> 9) & ((1 << M) - 1))
        else:
            span = max(top - 1, 1)
            if ref is None:
                ce = 1 + center % span
                ef = ce + (r >> 9) % 7 - 3
            else:
                ie, im, _ = FMT[ref]
                ibias = (1 << (ie - 1)) - 1
                ice = 1 + center % max((1 << ie) - 2, 1)
                bias = (1 << (E - 1)) - 1
                ef = 2 * (ice - ibias) + bias + (r >> 9) % 9 - 4
            ef = max(1, min(top - 1, ef)) if top > 1 else 1
            bits = (s << (E + M)) | (ef << M) | ((r >> 20) & ((1 << M) - 1))
    if f == "tf32":
        bits = (bits << 13) | ((r >> 40) & 0x1FFF)
    return bits


def gen_vector(rng, k, at, bt, ct):
    mode = rng.next() % 4
    center = rng.next()
    a = [gen_bits(at, rng.next(), mode, center) for _ in range(k)]
    b = [gen_bits(bt, rng.next(), mode, center) for _ in range(k)]
    c = gen_bits(ct, rng.next(), mode, center, ref=at)
    return a, b, c


# Rows of the unit-level reference: name gen inst K a b c d.
ROWS = [
    ("volta_m8n8k4_f32", "volta", "m8n8k4", 4, "f16", "f16", "f32", "f32"),
    ("volta_m8n8k4_f16", "volta", "m8n8k4", 4, "f16", "f16", "f16", "f16"),
    ("volta_m8n8k4_f16c_f32d", "volta", "m8n8k4", 4, "f16", "f16", "f16", "f32"),
    ("volta_k16_f32", "volta", "mma", 16, "f16", "f16", "f32", "f32"),
    ("turing_k8_f32", "turing", "mma", 8, "f16", "f16", "f32", "f32"),
    ("turing_k8_f16", "turing", "mma", 8, "f16", "f16", "f16", "f16"),
    ("turing_m8n8k4_f32", "turing", "m8n8k4", 4, "f16", "f16", "f32", "f32"),
    ("ampere_f16_k16_f32", "ampere", "mma", 16, "f16", "f16", "f32", "f32"),
    ("ampere_f16_k16_f16", "ampere", "mma", 16, "f16", "f16", "f16", "f16"),
    ("ampere_bf16_k16_f32", "ampere", "mma", 16, "bf16", "bf16", "f32", "f32"),
    ("ampere_bf16_k8_f32", "ampere", "mma", 8, "bf16", "bf16", "f32", "f32"),
    ("ampere_tf32_k8_f32", "ampere", "mma", 8, "tf32", "tf32", "f32", "f32"),
    ("ampere_tf32_k4_f32", "ampere", "mma", 4, "tf32", "tf32", "f32", "f32"),
    ("ampere_m8n8k4_f32", "ampere", "m8n8k4", 4, "f16", "f16", "f32", "f32"),
    ("ada_e4m3_k32_f32", "ada", "mma", 32, "e4m3", "e4m3", "f32", "f32"),
    ("ada_e5m2_e4m3_k32_f16", "ada", "mma", 32, "e5m2", "e4m3", "f16", "f16"),
    ("ada_e4m3_k16_f32", "ada", "mma", 16, "e4m3", "e4m3", "f32", "f32"),
    ("hopper_f16_k16_f32", "hopper", "mma", 16, "f16", "f16", "f32", "f32"),
    ("hopper_f16_k16_f16", "hopper", "mma", 16, "f16", "f16", "f16", "f16"),
    ("hopper_bf16_k16_f32", "hopper", "mma", 16, "bf16", "bf16", "f32", "f32"),
    ("hopper_tf32_k8_f32", "hopper", "mma", 8, "tf32", "tf32", "f32", "f32"),
    ("hopper_e4m3_k32_f32", "hopper", "mma", 32, "e4m3", "e4m3", "f32", "f32"),
    ("hopper_e5m2_k32_f16", "hopper", "mma", 32, "e5m2", "e5m2", "f16", "f16"),
    ("hopper_e4m3_e5m2_k16_f32", "hopper", "mma", 16, "e4m3", "e5m2", "f32", "f32"),
    ("hopper_wgmma_e4m3_k32_f32", "hopper", "wgmma", 32, "e4m3", "e4m3", "f32", "f32"),
    ("hopper_wgmma_e5m2_k32_f16", "hopper", "wgmma", 32, "e5m2", "e5m2", "f16", "f16"),
    ("hopper_wgmma_f16_k16_f32", "hopper", "wgmma", 16, "f16", "f16", "f32", "f32"),
    ("hopper_wgmma_tf32_k8_f32", "hopper", "wgmma", 8, "tf32", "tf32", "f32", "f32"),
    ("blackwell_f16_k16_f32", "blackwell", "mma", 16, "f16", "f16", "f32", "f32"),
    ("blackwell_bf16_k16_f32", "blackwell", "mma", 16, "bf16", "bf16", "f32", "f32"),
    ("blackwell_e5m2_k32_f32", "blackwell", "mma", 32, "e5m2", "e5m2", "f32", "f32"),
    ("blackwell_e4m3_k32_f16", "blackwell", "mma", 32, "e4m3", "e4m3", "f16", "f16"),
    ("rtx_f16_k16_f32", "rtx-blackwell", "mma", 16, "f16", "f16", "f32", "f32"),
    ("rtx_tf32_k8_f32", "rtx-blackwell", "mma", 8, "tf32", "tf32", "f32", "f32"),
    ("rtx_e2m1_e3m2_k32_f32", "rtx-blackwell", "mma", 32, "e2m1", "e3m2", "f32", "f32"),
    ("rtx_e2m3_e4m3_k32_f16", "rtx-blackwell", "mma", 32, "e2m3", "e4m3", "f16", "f16"),
]
VECTORS = 1000


def seed_of(name):
    h = 0xCBF29CE484222325
    for ch in name.encode():
        h = ((h ^ ch) * 0x100000001B3) & MASK64
    return h


def cmd_vectors(path):
    lines = ["# Expected D bits of tools/tc_ref.py for each model row (see that file).",
             "# row: NAME GEN INST K A B C D, then the hex outputs, 8 per line."]
    for row in ROWS:
        name, gen, inst, k, at, bt, ct, d = row
        rng = SplitMix64(seed_of(name))
        outs = []
        for _ in range(VECTORS):
            a, b, c = gen_vector(rng, k, at, bt, ct)
            outs.append(dot(gen, inst, at, bt, ct, d, a, b, c))
        lines.append("row: " + " ".join(str(x) for x in row))
        for i in range(0, len(outs), 8):
            lines.append(" ".join("%08x" % x for x in outs[i:i + 8]))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(ROWS)} rows x {VECTORS} vectors -> {path}")


# ---------------------------------------------------------------------------------------
# Fragment layouts (PTX ISA "Matrix Fragments for mma.mMnNkK"): element i of lane l's
# fragment -> (group, row, column).

def frag(shape, op, t, lane, i, alay="row", blay="col"):
    g, tg = lane >> 2, lane % 4
    m, n, k = shape
    if shape == (8, 8, 4) and t in ("f16", "f32") and t != "f64":
        grp = (lane >> 2) & 3
        hi = 4 if lane >= 16 else 0
        q = lane % 4
        if op == "a":
            return (grp, q + hi, i) if alay == "row" else (grp, i + hi, q)
        if op == "b":
            return (grp, i, q + hi) if blay == "col" else (grp, q, i + hi)
        if t == "f16":
            return (grp, q + hi, i)
        x = (lane & 1) + (i & 2)
        return (grp, x + hi, (i & 4) + (lane & 2) + (i & 1))
    if op == "c":
        if m == 8:
            return (0, g, tg * 2 + i)
        return (0, g if i < 2 else g + 8, tg * 2 + (i & 1))
    A = op == "a"
    if shape == (8, 8, 4):  # f64
        return (0, g, tg) if A else (0, tg, g)
    if m == 8:
        per = k // 4
        return (0, g, tg * per + i) if A else (0, tg * per + i, g)
    if k == 4:
        return (0, g + 8 * i, tg) if A else (0, tg, g)
    if k == 8 and t in ("f16", "bf16"):
        return (0, g if i < 2 else g + 8, tg * 2 + (i & 1)) if A else (0, tg * 2 + i, g)
    if k == 8:  # tf32, f64
        if A:
            return (0, g + (8 if i in (1, 3) else 0), tg + (4 if i >= 2 else 0))
        return (0, tg + (4 if i == 1 else 0), g)
    if k == 16 and t in ("f16", "bf16"):
        if A:
            row = g if (i < 2 or 4 <= i < 6) else g + 8
            return (0, row, tg * 2 + (i & 1) + (8 if i >= 4 else 0))
        return (0, tg * 2 + (i & 1) + (8 if i >= 2 else 0), g)
    if k == 16 and t == "f64":
        if A:
            if i % 2 == 0:
                return (0, g, i * 2 + tg)
            return (0, g + 8, i * 2 - 2 + tg)
        return (0, tg + i * 4, g)
    if k == 16:  # 8-bit
        return (0, g if i < 4 else g + 8, tg * 4 + (i & 3)) if A else (0, tg * 4 + i, g)
    if k == 32 and t in ("s4", "u4"):
        return (0, g if i < 8 else g + 8, tg * 8 + (i & 7)) if A else (0, tg * 8 + (i & 7), g)
    if k == 32:
        if A:
            row = g if (i < 4 or 8 <= i < 12) else g + 8
            return (0, row, tg * 4 + (i & 3) + (16 if i >= 8 else 0))
        return (0, tg * 4 + (i & 3) + (16 if i >= 4 else 0), g)
    if k == 64:
        if A:
            row = g if (i < 8 or 16 <= i < 24) else g + 8
            return (0, row, tg * 8 + (i & 7) + (32 if i >= 16 else 0))
        return (0, tg * 8 + (i & 7) + (32 if i >= 8 else 0), g)
    if k == 128:
        return (0, g if i < 32 else g + 8, tg * 32 + (i & 31)) if A else (0, tg * 32 + i, g)
    if k == 256:
        if A:
            row = g if (i < 32 or 64 <= i < 96) else g + 8
            return (0, row, tg * 32 + (i & 31) + (128 if i >= 64 else 0))
        return (0, tg * 32 + (i & 31) + (128 if i >= 32 else 0), g)
    raise ValueError(shape)


ELEM_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "s32": 32,
             "e4m3": 8, "e5m2": 8, "e3m2": 8, "e2m3": 8, "e2m1": 8,
             "s8": 8, "u8": 8, "s4": 4, "u4": 4, "b1": 1}


def reg_bits(t):
    return 64 if t == "f64" else 32


def pack(t, elems):
    """Elements (low to high) -> registers."""
    w = ELEM_BITS[t]
    rb = reg_bits(t)
    per = rb // w
    regs = []
    for r in range(0, len(elems), per):
        v = 0
        for j, x in enumerate(elems[r:r + per]):
            v |= (x & ((1 << w) - 1)) << (j * w)
        regs.append(v)
    return regs


# VM run tests: (file, arch, target, shape, d, a, b, c, extra modifiers, alayout, blayout, gen)
RUNTESTS = [
    ("mma_m16n8k16_f16_f32_sm80", "sm_80", "sm_80", (16, 8, 16), "f32", "f16", "f16", "f32", "", "row", "col", "ampere"),
    ("mma_m16n8k16_f16_f32_sm90", "sm_90a", "sm_80", (16, 8, 16), "f32", "f16", "f16", "f32", "", "row", "col", "hopper"),
    ("mma_m16n8k16_f16_f16_sm80", "sm_80", "sm_80", (16, 8, 16), "f16", "f16", "f16", "f16", "", "row", "col", "ampere"),
    ("mma_m16n8k16_bf16_sm89", "sm_89", "sm_80", (16, 8, 16), "f32", "bf16", "bf16", "f32", "", "row", "col", "ada"),
    ("mma_m16n8k8_f16_f32_sm75", "sm_75", "sm_75", (16, 8, 8), "f32", "f16", "f16", "f32", "", "row", "col", "turing"),
    ("mma_m16n8k8_f16_f16_sm100", "sm_100a", "sm_75", (16, 8, 8), "f16", "f16", "f16", "f16", "", "row", "col", "blackwell"),
    ("mma_m16n8k8_bf16_sm80", "sm_80", "sm_80", (16, 8, 8), "f32", "bf16", "bf16", "f32", "", "row", "col", "ampere"),
    ("mma_m16n8k8_tf32_sm80", "sm_80", "sm_80", (16, 8, 8), "f32", "tf32", "tf32", "f32", "", "row", "col", "ampere"),
    ("mma_m16n8k8_tf32_sm90", "sm_90a", "sm_80", (16, 8, 8), "f32", "tf32", "tf32", "f32", "", "row", "col", "hopper"),
    ("mma_m16n8k4_tf32_sm86", "sm_86", "sm_80", (16, 8, 4), "f32", "tf32", "tf32", "f32", "", "row", "col", "ampere"),
    ("mma_m8n8k4_f16_f32_sm70", "sm_70", "sm_70", (8, 8, 4), "f32", "f16", "f16", "f32", "", "row", "col", "volta"),
    ("mma_m8n8k4_f16_f16_colrow_sm70", "sm_70", "sm_70", (8, 8, 4), "f16", "f16", "f16", "f16", "", "col", "row", "volta"),
    ("mma_m8n8k4_f16c_f32d_sm75", "sm_75", "sm_70", (8, 8, 4), "f32", "f16", "f16", "f16", "", "row", "row", "turing"),
    ("mma_m8n8k4_f64_sm80", "sm_80", "sm_80", (8, 8, 4), "f64", "f64", "f64", "f64", "", "row", "col", "ampere"),
    ("mma_m16n8k8_f64_sm90", "sm_90a", "sm_90", (16, 8, 8), "f64", "f64", "f64", "f64", "", "row", "col", "hopper"),
    ("mma_m16n8k16_f64_sm90", "sm_90a", "sm_90", (16, 8, 16), "f64", "f64", "f64", "f64", "", "row", "col", "hopper"),
    ("mma_m16n8k4_f64_sm90", "sm_90a", "sm_90", (16, 8, 4), "f64", "f64", "f64", "f64", "", "row", "col", "hopper"),
    ("mma_m16n8k32_e4m3_e5m2_f32_sm89", "sm_89", "sm_89", (16, 8, 32), "f32", "e4m3", "e5m2", "f32", "", "row", "col", "ada"),
    ("mma_m16n8k32_e4m3_f16_sm90", "sm_90a", "sm_89", (16, 8, 32), "f16", "e4m3", "e4m3", "f16", "", "row", "col", "hopper"),
    ("mma_m16n8k32_e5m2_f32_sm100", "sm_100a", "sm_89", (16, 8, 32), "f32", "e5m2", "e5m2", "f32", "", "row", "col", "blackwell"),
    ("mma_m16n8k16_e5m2_f32_sm89", "sm_89", "sm_89", (16, 8, 16), "f32", "e5m2", "e5m2", "f32", "", "row", "col", "ada"),
    ("mma_m16n8k32_f8f6f4_e2m1_e3m2_sm120", "sm_120a", "sm_120a", (16, 8, 32), "f32", "e2m1", "e3m2", "f32", ".kind::f8f6f4", "row", "col", "rtx-blackwell"),
    ("mma_m16n8k16_s8_u8_satfinite", "sm_80", "sm_80", (16, 8, 16), "s32", "s8", "u8", "s32", ".satfinite", "row", "col", None),
    ("mma_m16n8k32_s8_wrap", "sm_80", "sm_80", (16, 8, 32), "s32", "s8", "s8", "s32", "", "row", "col", None),
    ("mma_m8n8k16_u8_s8", "sm_75", "sm_75", (8, 8, 16), "s32", "u8", "s8", "s32", "", "row", "col", None),
    ("mma_m8n8k32_s4", "sm_75", "sm_75", (8, 8, 32), "s32", "s4", "s4", "s32", ".satfinite", "row", "col", None),
    ("mma_m16n8k32_u4_s4", "sm_80", "sm_80", (16, 8, 32), "s32", "u4", "s4", "s32", "", "row", "col", None),
    ("mma_m16n8k64_s4_satfinite", "sm_80", "sm_80", (16, 8, 64), "s32", "s4", "s4", "s32", ".satfinite", "row", "col", None),
    ("mma_m8n8k128_b1_xor", "sm_75", "sm_75", (8, 8, 128), "s32", "b1", "b1", "s32", ".xor.popc", "row", "col", None),
    ("mma_m16n8k128_b1_and", "sm_80", "sm_80", (16, 8, 128), "s32", "b1", "b1", "s32", ".and.popc", "row", "col", None),
    ("mma_m16n8k256_b1_xor", "sm_80", "sm_80", (16, 8, 256), "s32", "b1", "b1", "s32", ".xor.popc", "row", "col", None),
    ("mma_m16n8k16_e4m3_f16_sm89", "sm_89", "sm_89", (16, 8, 16), "f16", "e4m3", "e5m2", "f16", "", "row", "col", "ada"),
    ("mma_m16n8k32_f8f6f4_alt_e4m3_e2m3_sm120", "sm_120a", "sm_120a", (16, 8, 32), "f32", "e4m3", "e2m3", "f32", ".kind::f8f6f4@alt", "row", "col", "rtx-blackwell"),
    ("mma_m16n8k32_f8f6f4_f16_e5m2_e2m1_sm120", "sm_120a", "sm_120a", (16, 8, 32), "f16", "e5m2", "e2m1", "f16", ".kind::f8f6f4", "row", "col", "rtx-blackwell"),
    ("mma_m16n8k32_f8f6f4_alt_f16_e3m2_e4m3_sm120", "sm_120a", "sm_120a", (16, 8, 32), "f16", "e3m2", "e4m3", "f16", ".kind::f8f6f4@alt", "row", "col", "rtx-blackwell"),
    ("mma_m8n8k128_b1_and", "sm_80", "sm_80", (8, 8, 128), "s32", "b1", "b1", "s32", ".and.popc", "row", "col", None),
    ("mma_m16n8k128_b1_xor", "sm_80", "sm_80", (16, 8, 128), "s32", "b1", "b1", "s32", ".xor.popc", "row", "col", None),
]


SAME_INPUTS = {
    "mma_m16n8k16_f16_f32_sm80": "mma_m16n8k16_f16_f32",
    "mma_m16n8k16_f16_f32_sm90": "mma_m16n8k16_f16_f32",
    "mma_m16n8k8_tf32_sm80": "mma_m16n8k8_tf32",
    "mma_m16n8k8_tf32_sm90": "mma_m16n8k8_tf32",
}


def per_lane(shape, t, op):
    m, n, k = shape
    if shape == (8, 8, 4) and t not in ("f64",):
        return {"a": 4, "b": 4, "c": 8}[op]
    return {"a": m * k, "b": k * n, "c": m * n}[op] // 32


def rand_elem(rng, t, shape_sat=False):
    r = rng.next()
    if t in ("s8", "u8", "s4", "u4", "b1"):
        return r & ((1 << ELEM_BITS[t]) - 1)
    if t == "s32":
        sel = r & 7
        if shape_sat and sel == 0:
            return 0x7FFFFF00 + ((r >> 8) & 0xFF)  # near MAX_INT32: saturation/wrap visible
        if shape_sat and sel == 1:
            return 0x80000000 + ((r >> 8) & 0xFF)
        return (r >> 8) & 0xFFFFFFFF
    if t == "f64":
        # finite values with exponents in a narrow band, random signs; some zeros
        if r & 15 == 0:
            return ((r >> 4) & 1) << 63
        e = 1023 + ((r >> 4) % 9) - 4
        return (((r >> 13) & 1) << 63) | (e << 52) | ((r >> 14) & ((1 << 50) - 1)) << 2
    return None


def gen_frags(name, shape, d, at, bt, ct, alay, blay):
    # The same form on two generations shares its inputs (the expected outputs differ).
    rng = SplitMix64(seed_of(SAME_INPUTS.get(name, name)))
    m, n, k = shape
    groups = 4 if shape == (8, 8, 4) and at == "f16" else 1
    mm, nn, kk = (8, 8, 4) if groups == 4 else shape
    center = rng.next()
    mode = 1
    A = [[[0] * kk for _ in range(mm)] for _ in range(groups)]
    B = [[[0] * nn for _ in range(kk)] for _ in range(groups)]
    C = [[[0] * nn for _ in range(mm)] for _ in range(groups)]
    for g in range(groups):
        for r in range(mm):
            for c in range(kk):
                v = rand_elem(rng, at)
                A[g][r][c] = v if v is not None else gen_bits(at, rng.next(), mode, center)
        for r in range(kk):
            for c in range(nn):
                v = rand_elem(rng, bt)
                B[g][r][c] = v if v is not None else gen_bits(bt, rng.next(), mode, center)
        for r in range(mm):
            for c in range(nn):
                v = rand_elem(rng, ct, True)
                C[g][r][c] = v if v is not None else gen_bits(ct, rng.next(), mode, center, ref=at)
    return groups, (mm, nn, kk), A, B, C


def f8f6f4_place(t, v):
    """kind::f8f6f4: e2m1 sits in bits 5:2 of its byte, fp6 in bits 5:0."""
    if t == "e2m1":
        return (v & 0xF) << 2
    if t in ("e3m2", "e2m3"):
        return v & 0x3F
    return v


def cmd_runtests(outdir):
    for (name, arch, target, shape, d, at, bt, ct, extra, alay, blay, gen) in RUNTESTS:
        groups, (mm, nn, kk), A, B, C = gen_frags(name, shape, d, at, bt, ct, alay, blay)
        kind = ".kind::f8f6f4" in extra
        if kind:
            # fp6/fp4 codes in the element's own width; reference decodes them as such
            for g in range(groups):
                for r in range(mm):
                    for c in range(kk):
                        A[g][r][c] &= (1 << width(at)) - 1
                for r in range(kk):
                    for c in range(nn):
                        B[g][r][c] &= (1 << width(bt)) - 1
        # Expected D.
        D = [[[0] * nn for _ in range(mm)] for _ in range(groups)]
        for g in range(groups):
            for r in range(mm):
                arow = A[g][r]
                for c in range(nn):
                    bcol = [B[g][x][c] for x in range(kk)]
                    cv = C[g][r][c]
                    if at == "f64":
                        D[g][r][c] = dot_f64(arow, bcol, cv)
                    elif at in ("s8", "u8", "s4", "u4"):
                        sv = cv - (1 << 32) if cv >> 31 else cv
                        D[g][r][c] = dot_int(at, bt, arow, bcol, sv, "satfinite" in extra)
                    elif at == "b1":
                        sv = cv - (1 << 32) if cv >> 31 else cv
                        D[g][r][c] = dot_b1("and" if ".and" in extra else "xor", arow, bcol, sv)
                    else:
                        inst = "m8n8k4" if shape == (8, 8, 4) else "mma"
                        D[g][r][c] = dot(gen, inst, at, bt, ct, d, arow, bcol, cv)
        # Per-lane fragments.
        na = per_lane(shape, at, "a") * ELEM_BITS[at] // reg_bits(at)
        nb = per_lane(shape, bt, "b") * ELEM_BITS[bt] // reg_bits(bt)
        ncel = per_lane(shape, ct, "c")
        ndel = per_lane(shape, d, "c")
        nc = ncel * ELEM_BITS[ct] // reg_bits(ct)
        nd = ndel * ELEM_BITS[d] // reg_bits(d)
        fa, fb, fc, fd = [], [], [], []
        for lane in range(32):
            ea, eb, ec, ed = [], [], [], []
            for i in range(per_lane(shape, at, "a")):
                g, r, c = frag(shape, "a", at, lane, i, alay, blay)
                v = A[g][r][c]
                ea.append(f8f6f4_place(at, v) if kind else v)
            for i in range(per_lane(shape, bt, "b")):
                g, r, c = frag(shape, "b", bt, lane, i, alay, blay)
                v = B[g][r][c]
                eb.append(f8f6f4_place(bt, v) if kind else v)
            for i in range(ncel):
                g, r, c = frag(shape, "c", ct, lane, i, alay, blay)
                ec.append(C[g][r][c])
            for i in range(ndel):
                g, r, c = frag(shape, "c", d, lane, i, alay, blay)
                ed.append(D[g][r][c])
            fa += pack(at, ea)
            fb += pack(bt, eb)
            fc += pack(ct, ec)
            fd += pack(d, ed)
        write_runtest(outdir, name, arch, target, shape, d, at, bt, ct, extra, alay, blay,
                      (na, nb, nc, nd), (fa, fb, fc, fd), gen)
    print(f"{len(RUNTESTS)} run tests -> {outdir}")


def ptx_reg_type(t):
    return {"f32": ".f32", "f64": ".f64", "s32": ".s32"}.get(t, ".b32")


def write_runtest(outdir, name, arch, target, shape, d, at, bt, ct, extra, alay, blay,
                  counts, frags, gen):
    na, nb, nc, nd = counts
    fa, fb, fc, fd = frags
    m, n, k = shape
    if shape == (8, 8, 4) and at != "f64":
        lay = f".{alay}.{blay}"
    else:
        lay = ".row.col"
    if extra == ".kind::f8f6f4@alt":  # the order CUTLASS's sm_120 code writes
        extra = ".kind::f8f6f4"
        opname = f"mma.sync.aligned{extra}.m{m}n{n}k{k}{lay}.{d}.{at}.{bt}.{ct}"
    elif extra.startswith(".kind"):
        opname = f"mma.sync.aligned.m{m}n{n}k{k}{lay}{extra}.{d}.{at}.{bt}.{ct}"
    elif extra in (".xor.popc", ".and.popc"):
        opname = f"mma.sync.aligned.m{m}n{n}k{k}{lay}.{d}.{at}.{bt}.{ct}{extra}"
    else:
        opname = f"mma.sync.aligned.m{m}n{n}k{k}{lay}{extra}.{d}.{at}.{bt}.{ct}"
    w64 = lambda t: reg_bits(t) == 64
    dt = lambda t: "u64" if w64(t) else "u32"
    ra, rb, rc, rd = (ptx_reg_type(t) if t in ("f32", "f64", "s32") else ".b32" for t in (at, bt, ct, d))
    if at == "f64":
        ra = rb = ".f64"
    lines = []
    desc = {
        None: "exact integer arithmetic (wrap, or .satfinite\n// clamping of the exact sum)",
    }.get(gen, f"the {gen} generation's tensor-core model\n// (T-FDPA, "
               f"shared/spec/tensor-core-arithmetic.md)")
    if at == "f64":
        desc = "sequential IEEE fma in k order, round to nearest\n// even"
    lines.append(f"// `{opname}` on {arch}: one warp, random operands.")
    lines.append("// Generated by tools/tc_ref.py (an independent exact-rational reference): A, B, C")
    lines.append("// are laid out per lane by the PTX ISA's fragment tables (arg0 = A, arg1 = B,")
    lines.append("// arg2 = C, each lane's registers contiguous); arg3 = D per lane, expected from")
    lines.append(f"// {desc}.")
    if name in SAME_INPUTS:
        lines.append("// The same inputs run on another generation in the sibling file, with other results.")
    lines.append(f"// run: --grid 1 --block 32 --arch {arch}")

    def arg(t, vals):
        return f"// arg: {dt(t)}[{len(vals)}] = [" + ", ".join(hex(v) for v in vals) + "]"
    lines.append(arg(at, fa))
    lines.append(arg(bt, fb))
    lines.append(arg(ct, fc))
    lines.append(f"// arg: zeros:{dt(d)}:{len(fd)}")
    for i in range(0, len(fd), 16):
        chunk = fd[i:i + 16]
        lines.append(f"// expect arg3[{i}..{i + len(chunk)}]: {dt(d)} [" +
                     ", ".join(hex(v) for v in chunk) + "]")
    ver = "8.7" if ("e" in at and at.startswith("e")) or target.startswith("sm_12") else "8.0"
    lines.append(f".version {ver}")
    lines.append(f".target {target}")
    lines.append(".address_size 64")
    lines.append("")
    lines.append(".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)")
    lines.append("{")
    lines.append(f"\t.reg {ra} %a<{na}>;")
    lines.append(f"\t.reg {rb} %b<{nb}>;")
    lines.append(f"\t.reg {rc} %c<{nc}>;")
    lines.append(f"\t.reg {rd} %d<{nd}>;")
    lines.append("\t.reg .b32 %r<4>;")
    lines.append("\t.reg .b64 %rd<16>;")
    lines.append("\tmov.u32 %r1, %tid.x;")
    for idx, (p, cnt, t, reg) in enumerate((("pa", na, at, "a"), ("pb", nb, bt, "b"),
                                            ("pc", nc, ct, "c"))):
        size = 8 if w64(t) else 4
        lines.append(f"\tld.param.u64 %rd{idx * 3 + 1}, [{p}];")
        lines.append(f"\tmul.wide.u32 %rd{idx * 3 + 2}, %r1, {cnt * size};")
        lines.append(f"\tadd.u64 %rd{idx * 3 + 3}, %rd{idx * 3 + 1}, %rd{idx * 3 + 2};")
        rt = {"a": ra, "b": rb, "c": rc}[reg]
        for j in range(cnt):
            lines.append(f"\tld.global{rt.replace('.b32', '.b32')} %{reg}{j}, [%rd{idx * 3 + 3}+{j * size}];")
    vec = lambda r, c: "{" + ", ".join(f"%{r}{j}" for j in range(c)) + "}"
    lines.append(f"\t{opname} {vec('d', nd)}, {vec('a', na)}, {vec('b', nb)}, {vec('c', nc)};")
    size = 8 if w64(d) else 4
    lines.append("\tld.param.u64 %rd10, [pd];")
    lines.append(f"\tmul.wide.u32 %rd11, %r1, {nd * size};")
    lines.append("\tadd.u64 %rd12, %rd10, %rd11;")
    for j in range(nd):
        lines.append(f"\tst.global{rd} [%rd12+{j * size}], %d{j};")
    lines.append("\tret;")
    lines.append("}")
    with open(os.path.join(outdir, name + ".ptx"), "w") as f:
        f.write("\n".join(lines) + "\n")


# wmma run tests: layout-independent (A, B, C in memory -> D in memory).
# (file, arch, target, shape, d, a, b, c, alayout, blayout, clayout, dlayout, strides (a,b,c,d or
#  None = default), extra, gen)
WMMA_TESTS = [
    ("wmma_m16n16k16_f16_f32_sm80", "sm_80", "sm_70", (16, 16, 16), "f32", "f16", "f16", "f32",
     "row", "col", "row", "row", None, "", "ampere"),
    ("wmma_m16n16k16_f16_f32_sm70", "sm_70", "sm_70", (16, 16, 16), "f32", "f16", "f16", "f32",
     "row", "col", "row", "row", None, "", "volta"),
    ("wmma_m16n16k16_f16_f16_sm90", "sm_90a", "sm_70", (16, 16, 16), "f16", "f16", "f16", "f16",
     "col", "row", "col", "row", (32, 48, 24, 40), "", "hopper"),
    ("wmma_m32n8k16_f16_f32_strided_sm86", "sm_86", "sm_70", (32, 8, 16), "f32", "f16", "f16", "f32",
     "row", "row", "col", "col", (32, 16, 40, 48), "", "ampere"),
    ("wmma_m8n32k16_bf16_sm89", "sm_89", "sm_80", (8, 32, 16), "f32", "bf16", "bf16", "f32",
     "col", "col", "row", "col", None, "", "ada"),
    ("wmma_m16n16k8_tf32_sm100", "sm_100a", "sm_80", (16, 16, 8), "f32", "tf32", "tf32", "f32",
     "row", "col", "row", "row", None, "", "blackwell"),
    ("wmma_m8n8k4_f64_rz", "sm_80", "sm_80", (8, 8, 4), "f64", "f64", "f64", "f64",
     "row", "col", "row", "row", None, ".rz", None),
    ("wmma_m16n16k16_s8_satfinite", "sm_80", "sm_72", (16, 16, 16), "s32", "s8", "s8", "s32",
     "row", "col", "row", "row", None, ".satfinite", None),
    ("wmma_m32n8k16_u8", "sm_75", "sm_72", (32, 8, 16), "s32", "u8", "u8", "s32",
     "col", "row", "row", "col", None, "", None),
    ("wmma_m8n8k32_s4", "sm_75", "sm_75", (8, 8, 32), "s32", "s4", "s4", "s32",
     "row", "col", "row", "row", None, "", None),
    ("wmma_m8n8k128_b1_xor", "sm_80", "sm_75", (8, 8, 128), "s32", "b1", "b1", "s32",
     "row", "col", "row", "row", None, ".xor.popc", None),
]

F64_RND = {"": ("rne", "round to nearest"), ".rn": ("rne", "round to nearest"),
           ".rz": ("rz", "round toward zero"), ".rm": ("rm", "round toward -inf"),
           ".rp": ("rp", "round toward +inf")}


def wmma_regs(shape, t, mat):
    m, n, k = shape
    elems = {"a": m * k, "b": k * n, "c": m * n}[mat] // 32
    if t == "f16" and mat in ("a", "b"):
        return 8
    bits = ELEM_BITS[t]
    return max(1, elems * bits // reg_bits(t))


# Every wmma form (each spelling order of the table, crates/ptxvm-ir/isa/tensor.isa, and each
# shape/type combination): per combination three files, one per spelling order of
# wmma.load/wmma.store (`.layout.shape{.ss}`, `.shape{.ss}.layout`, `.shape.layout.ss`) with
# the two orders of wmma.mma, and the operands in global, shared or generic memory.
# (shape, d, a, b, c, extra, gen, arch, target)
WMMA_FORM_COMBOS = (
    [(sh, d, "f16", "f16", c, "", "ampere", "sm_80", "sm_70")
     for sh in ((16, 16, 16), (32, 8, 16), (8, 32, 16)) for d in ("f16", "f32") for c in ("f16", "f32")]
    + [(sh, "f32", "bf16", "bf16", "f32", "", "ampere", "sm_80", "sm_80")
       for sh in ((16, 16, 16), (32, 8, 16), (8, 32, 16))]
    + [(sh, "s32", t, t, "s32", sat, None, "sm_80", "sm_72")
       for sh in ((16, 16, 16), (32, 8, 16), (8, 32, 16)) for t in ("s8", "u8") for sat in ("", ".satfinite")]
    + [((16, 16, 8), "f32", "tf32", "tf32", "f32", "", "ampere", "sm_80", "sm_80")]
    + [((8, 8, 4), "f64", "f64", "f64", "f64", rnd, None, "sm_80", "sm_80")
       for rnd in ("", ".rn", ".rz", ".rm", ".rp")]
    + [((8, 8, 32), "s32", t, t, "s32", sat, None, "sm_80", "sm_75")
       for t in ("s4", "u4") for sat in ("", ".satfinite")]
    + [((8, 8, 128), "s32", "b1", "b1", "s32", op, None, "sm_80", tgt)
       for op, tgt in ((".xor.popc", "sm_75"), (".and.popc", "sm_80"))]
)
# Operand memory per order: (A, B, C, D) in "global", "shared" or "" (a generic address).
WMMA_FORM_SPACES = {0: ("global", "shared", "", "global"), 1: ("shared", "", "global", ""),
                    2: ("global", "shared", "shared", "shared")}


def wmma_form_tests():
    out = []
    for i, (shape, d, at, bt, ct, extra, gen, arch, target) in enumerate(WMMA_FORM_COMBOS):
        m, n, k = shape
        tys = f"{at}_{ct}_{d}" if at in ("f16",) else at
        ext = extra.replace(".popc", "").replace(".", "_")
        for order in (0, 1, 2):
            sub = at in ("s4", "u4", "b1")
            al, bl = ("row", "col") if sub else (("row", "col", "col", "row")[(i + order) % 4],
                                                  ("col", "row", "row", "col")[(i + 2 * order) % 4])
            cl, dl = ("row", "col")[(i + order) % 2], ("col", "row")[(i // 2 + order) % 2]
            strides = None
            if order == 1:
                # Strides in elements, padded by whole 16-byte units.
                strides = tuple(x + (128 // ELEM_BITS[t]) * (j + 1) for j, (x, t) in enumerate((
                    (k if al == "row" else m, at), (n if bl == "row" else k, bt),
                    (n if cl == "row" else m, ct), (n if dl == "row" else m, d))))
            name = f"wmma_forms_m{m}n{n}k{k}_{tys}{ext}_o{order}"
            out.append((name, arch, target, shape, d, at, bt, ct, al, bl, cl, dl, strides,
                        extra, gen, order, WMMA_FORM_SPACES[order]))
    return out


def cmd_wmmatests(outdir):
    tests = [t + (0, ("global",) * 4) for t in WMMA_TESTS] + wmma_form_tests()
    for (name, arch, target, shape, d, at, bt, ct, al, bl, cl, dl, strides, extra, gen, order,
         spaces) in tests:
        rng = SplitMix64(seed_of(name))
        m, n, k = shape
        center = rng.next()

        def rnd(t, ref=None):
            v = rand_elem(rng, t, True)
            return v if v is not None else gen_bits(t, rng.next(), 1, center, ref)
        A = [[rnd(at) for _ in range(k)] for _ in range(m)]
        B = [[rnd(bt) for _ in range(n)] for _ in range(k)]
        C = [[rnd(ct, at) for _ in range(n)] for _ in range(m)]
        D = [[0] * n for _ in range(m)]
        for r in range(m):
            for c in range(n):
                bcol = [B[x][c] for x in range(k)]
                cv = C[r][c]
                if at == "f64":
                    D[r][c] = dot_f64(A[r], bcol, cv, F64_RND[extra][0])
                elif at in ("s8", "u8", "s4", "u4"):
                    sv = cv - (1 << 32) if cv >> 31 else cv
                    D[r][c] = dot_int(at, bt, A[r], bcol, sv, "satfinite" in extra)
                elif at == "b1":
                    sv = cv - (1 << 32) if cv >> 31 else cv
                    D[r][c] = dot_b1("and" if ".and" in extra else "xor", A[r], bcol, sv)
                else:
                    D[r][c] = dot(gen, "mma", at, bt, ct, d, A[r], bcol, cv)
        defaults = {"a": (k if al == "row" else m), "b": (n if bl == "row" else k),
                    "c": (n if cl == "row" else m), "d": (n if dl == "row" else m)}
        st = dict(zip("abcd", strides)) if strides else defaults

        def lay(mat, t, rows, cols, layout, stride):
            """Memory image (elements) of a rows x cols matrix, with `stride` elements between
            consecutive rows (row-major) or columns (column-major)."""
            lead = rows if layout == "row" else cols
            size = stride * (lead - 1) + (cols if layout == "row" else rows)
            img = [0] * size
            for r in range(rows):
                for c in range(cols):
                    idx = r * stride + c if layout == "row" else c * stride + r
                    img[idx] = mat[r][c]
            return img

        imgs = {
            "a": (at, lay(A, at, m, k, al, st["a"])),
            "b": (bt, lay(B, bt, k, n, bl, st["b"])),
            "c": (ct, lay(C, ct, m, n, cl, st["c"])),
            "d": (d, lay(D, d, m, n, dl, st["d"])),
        }

        def words(t, img):
            """Element image -> u32/u64 words (sub-byte elements packed low bits first)."""
            bits = ELEM_BITS[t]
            wb = 64 if bits == 64 else 32
            per = wb // bits
            out = []
            for i in range(0, len(img), per):
                v = 0
                for j, x in enumerate(img[i:i + per]):
                    v |= (x & ((1 << bits) - 1)) << (j * bits)
                out.append(v)
            while len(out) % 8:
                out.append(0)
            return out

        na, nb = wmma_regs(shape, at, "a"), wmma_regs(shape, bt, "b")
        nc, nd = wmma_regs(shape, ct, "c"), wmma_regs(shape, d, "c")
        lines = []
        lines.append(f"// wmma.load (A {al}, B {bl}, C {cl}), wmma.mma and wmma.store (D {dl}) of a")
        lines.append(f"// m{m}n{n}k{k} {at} x {bt} + {ct} -> {d} tile on {arch}" +
                     (f", strides {strides}" if strides else ", default strides") + ".")
        lines.append("// Layout-independent: the fragments never leave the registers. Expected D from")
        lines.append("// tools/tc_ref.py (exact-rational reference of " +
                     ({None: "exact integer / IEEE fma arithmetic"}.get(gen, f"the {gen} tensor-core model") if at != "f64" else "sequential fma, " + F64_RND[extra][1]) + ").")
        lines.append(f"// run: --grid 1 --block 32 --arch {arch}")
        dtn = lambda t: "u64" if reg_bits(t) == 64 else "u32"
        for key in "abc":
            t, img = imgs[key]
            wv = words(t, img)
            lines.append(f"// arg: {dtn(t)}[{len(wv)}] = [" + ", ".join(hex(x) for x in wv) + "]")
        t, img = imgs["d"]
        wv = words(t, img)
        lines.append(f"// arg: zeros:{dtn(t)}:{len(wv)}")
        for i in range(0, len(wv), 16):
            chunk = wv[i:i + 16]
            lines.append(f"// expect arg3[{i}..{i + len(chunk)}]: {dtn(t)} [" + ", ".join(hex(x) for x in chunk) + "]")
        lines.append(".version 8.0")
        lines.append(f".target {target}")
        lines.append(".address_size 64")
        lines.append("")
        lines.append(".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)")
        lines.append("{")
        rt = lambda t: {"f32": ".f32", "f64": ".f64", "s32": ".s32"}.get(t, ".b32")
        lines.append(f"\t.reg {rt(at) if at == 'f64' else '.b32'} %a<{na}>;")
        lines.append(f"\t.reg {rt(bt) if bt == 'f64' else '.b32'} %b<{nb}>;")
        lines.append(f"\t.reg {rt(ct)} %c<{nc}>;")
        lines.append(f"\t.reg {rt(d)} %d<{nd}>;")
        lines.append("\t.reg .b64 %rd<8>;")
        shared = {key: len(words(imgs[key][0], imgs[key][1])) * (8 if dtn(imgs[key][0]) == "u64" else 4)
                  for key, sp in zip("abcd", spaces) if sp == "shared"}
        if shared:
            lines.append("\t.reg .b32 %r<8>;")
            lines.append("\t.reg .pred %p<2>;")
            for key, size in shared.items():
                lines.append(f"\t.shared .align 128 .b8 s{key}[{size}];")
        for i, p in enumerate(("pa", "pb", "pc", "pd")):
            lines.append(f"\tld.param.u64 %rd{i + 1}, [{p}];")
            lines.append(f"\tcvta.to.global.u64 %rd{i + 1}, %rd{i + 1};")

        def copy(key, to_shared):
            """The warp copies a buffer between global memory and its shared copy, 4 bytes a
            lane at a time."""
            i = "abcd".index(key)
            lab = f"L{key}{'in' if to_shared else 'out'}"
            lines.append("\tmov.u32 %r1, %tid.x;")
            lines.append(f"\tmov.u32 %r2, s{key};")
            lines.append(f"{lab}:")
            lines.append("\tshl.b32 %r3, %r1, 2;")
            lines.append("\tadd.u32 %r4, %r2, %r3;")
            lines.append("\tcvt.u64.u32 %rd5, %r3;")
            lines.append(f"\tadd.u64 %rd6, %rd{i + 1}, %rd5;")
            if to_shared:
                lines.append("\tld.global.u32 %r5, [%rd6];")
                lines.append("\tst.shared.u32 [%r4], %r5;")
            else:
                lines.append("\tld.shared.u32 %r5, [%r4];")
                lines.append("\tst.global.u32 [%rd6], %r5;")
            lines.append("\tadd.u32 %r1, %r1, 32;")
            lines.append(f"\tsetp.lt.u32 %p1, %r1, {shared[key] // 4};")
            lines.append(f"\t@%p1 bra {lab};")

        for key in "abc":
            if key in shared:
                copy(key, True)
        if shared:
            lines.append("\tbar.warp.sync -1;")

        def addr(key):
            i = "abcd".index(key)
            sp = spaces[i]
            if sp == "shared":
                return f".shared", f"[s{key}]"
            if sp == "":
                lines.append(f"\tcvta.global.u64 %rd{i + 1}, %rd{i + 1};")
            return ("." + sp if sp else ""), f"[%rd{i + 1}]"

        vec = lambda r, c: "{" + ", ".join(f"%{r}{j}" for j in range(c)) + "}"
        sh = f".m{m}n{n}k{k}"
        sarg = lambda key: f", {st[key]}" if strides else ""

        def spell(op, lay, key, t):
            ss, a = addr(key)
            if order == 0:
                mods = f"{lay}{sh}{ss}"
            elif order == 1:
                mods = f"{sh[1:]}{ss}.{lay}"
            else:
                mods = f"{sh[1:]}.{lay}{ss or '.global'}"
                if not ss:  # the third order needs a state space: keep the address global
                    i = "abcd".index(key)
                    lines.append(f"\tcvta.to.global.u64 %rd{i + 1}, %rd{i + 1};")
            return f"wmma.{op}.sync.aligned.{mods}.{t}", a

        for key, lay, t, cnt in (("a", al, at, na), ("b", bl, bt, nb), ("c", cl, ct, nc)):
            inst, a = spell(f"load.{key}", lay, key, t)
            lines.append(f"\t{inst} {vec(key, cnt)}, {a}{sarg(key)};")
        lays = f"{al}.{bl}{sh}" if order == 0 else f"{sh[1:]}.{al}.{bl}"
        if at == "f16":
            mma = f"wmma.mma.sync.aligned.{lays}.{d}.{ct}"
        elif at == "b1":
            mma = f"wmma.mma{extra}.sync.aligned.{lays}.{d}.{at}.{bt}.{ct}"
        elif at == "f64" and order == 2 and extra:
            mma = f"wmma.mma.sync.aligned.{al}.{bl}{sh}.{d}.{at}.{bt}.{ct}{extra}"
        elif at == "f64":
            mma = f"wmma.mma.sync.aligned.{lays}{extra}.{d}.{at}.{bt}.{ct}"
        else:
            mma = f"wmma.mma.sync.aligned.{lays}.{d}.{at}.{bt}.{ct}{extra}"
        lines.append(f"\t{mma} {vec('d', nd)}, {vec('a', na)}, {vec('b', nb)}, {vec('c', nc)};")
        inst, a = spell("store.d", dl, "d", d)
        lines.append(f"\t{inst} {a}, {vec('d', nd)}{sarg('d')};")
        if "d" in shared:
            lines.append("\tbar.warp.sync -1;")
            copy("d", False)
        lines.append("\tret;")
        lines.append("}")
        with open(os.path.join(outdir, name + ".ptx"), "w") as f:
            f.write("\n".join(lines) + "\n")
    print(f"{len(tests)} wmma run tests -> {outdir}")


# ---------------------------------------------------------------------------------------
# mma.sp / mma.sp::ordered_metadata (PTX ISA "Matrix multiply-accumulate operation using
# mma.sp instruction with sparse matrix A", "Sparse matrix storage"). Written from the ISA's
# text in the compressing direction (ptxvm decompresses): a dense A with the shape's
# structured sparsity is drawn, D is the dense product, and A is then compressed into the
# fragment of the M x K/2 matrix of its non-zero values plus the per-chunk metadata.
#   - 16-bit, 8-bit and fp8 types: 2:4, each 4-element chunk has two 2-bit indices;
#   - .tf32: 1:2, the 4-bit field is 0b0100 (element 0) or 0b1110 (element 1);
#   - 4-bit integers: 4:8 pair-wise, two 2-bit indices of the non-zero pairs.
# Fields of consecutive chunks of a row are 4 bits apart. With one thread or a pair per group,
# a contributing thread holds 4 chunks of row groupID in bits 15:0 and the same chunks of row
# groupID+8 in bits 31:16 (the ISA's f16 m16n8k32 metadata figure; MLIR's sm_80 integration
# test of mma.sp packs it so); the sparsity selector names the first contributing thread (or
# pair) of each group of four, and the j-th contributing thread holds chunks 4j..4j+3. With
# all four threads (64 bits per row), thread t holds the 8 chunks 8(t/2).. of row
# groupID + 8(t%2) (CUTLASS's ELayout_64x64: thread modes (2,2,8,4):(8,2048,1,16) over the
# column-major 64 x 64-bit metadata matrix; the ISA's figures for columns 0-31 and 32-63).
# Lanes that do not contribute get random metadata, which must be ignored.

SP_TESTS = [
    # (file, arch, target, shape, d, a, b, c, extra, ordered, selector, gen)
    ("mma_sp_m16n8k16_f16_f16_sel2_sm80", "sm_80", "sm_80", (16, 8, 16), "f16", "f16", "f16", "f16", "", False, 2, "ampere"),
    ("mma_sp_m16n8k16_f16_f32_ordered_sel0_sm90", "sm_90a", "sm_80", (16, 8, 16), "f32", "f16", "f16", "f32", "", True, 0, "hopper"),
    ("mma_sp_m16n8k16_f16_f32_sel3_sm80", "sm_80", "sm_80", (16, 8, 16), "f32", "f16", "f16", "f32", "", False, 3, "ampere"),
    ("mma_sp_m16n8k16_f16_f16_ordered_sel1_sm89", "sm_89", "sm_80", (16, 8, 16), "f16", "f16", "f16", "f16", "", True, 1, "ada"),
    ("mma_sp_m16n8k32_f16_f16_sel1_sm80", "sm_80", "sm_80", (16, 8, 32), "f16", "f16", "f16", "f16", "", False, 1, "ampere"),
    ("mma_sp_m16n8k32_f16_f32_ordered_sel0_sm89", "sm_89", "sm_80", (16, 8, 32), "f32", "f16", "f16", "f32", "", True, 0, "ada"),
    ("mma_sp_m16n8k32_f16_f32_sel1_sm100", "sm_100a", "sm_80", (16, 8, 32), "f32", "f16", "f16", "f32", "", False, 1, "blackwell"),
    ("mma_sp_m16n8k16_bf16_ordered_sel1_sm80", "sm_80", "sm_80", (16, 8, 16), "f32", "bf16", "bf16", "f32", "", True, 1, "ampere"),
    ("mma_sp_m16n8k32_bf16_sel1_sm90", "sm_90a", "sm_80", (16, 8, 32), "f32", "bf16", "bf16", "f32", "", False, 1, "hopper"),
    ("mma_sp_m16n8k32_bf16_ordered_sel0_sm80", "sm_80", "sm_80", (16, 8, 32), "f32", "bf16", "bf16", "f32", "", True, 0, "ampere"),
    ("mma_sp_m16n8k8_tf32_sel3_sm80", "sm_80", "sm_80", (16, 8, 8), "f32", "tf32", "tf32", "f32", "", False, 3, "ampere"),
    ("mma_sp_m16n8k16_tf32_ordered_sel1_sm90", "sm_90a", "sm_80", (16, 8, 16), "f32", "tf32", "tf32", "f32", "", True, 1, "hopper"),
    ("mma_sp_m16n8k16_tf32_sel0_sm80", "sm_80", "sm_80", (16, 8, 16), "f32", "tf32", "tf32", "f32", "", False, 0, "ampere"),
    ("mma_sp_m16n8k64_e4m3_e5m2_sm89", "sm_89", "sm_89", (16, 8, 64), "f32", "e4m3", "e5m2", "f32", "", False, 0, "ada"),
    ("mma_sp_m16n8k64_e5m2_ordered_sm90", "sm_90a", "sm_89", (16, 8, 64), "f32", "e5m2", "e5m2", "f32", "", True, 0, "hopper"),
    ("mma_sp_m16n8k64_f8f6f4_e2m1_e3m2_sm120", "sm_120a", "sm_120a", (16, 8, 64), "f32", "e2m1", "e3m2", "f32", ".kind::f8f6f4", True, 0, "rtx-blackwell"),
    ("mma_sp_m16n8k64_f8f6f4_alt_e4m3_e2m3_sm120", "sm_120a", "sm_120a", (16, 8, 64), "f32", "e4m3", "e2m3", "f32", ".kind::f8f6f4@alt", True, 0, "rtx-blackwell"),
    ("mma_sp_m16n8k64_f8f6f4_f16_e5m2_e2m1_sm120", "sm_120a", "sm_120a", (16, 8, 64), "f16", "e5m2", "e2m1", "f16", ".kind::f8f6f4", True, 0, "rtx-blackwell"),
    ("mma_sp_m16n8k64_f8f6f4_alt_f16_e3m2_e4m3_sm120", "sm_120a", "sm_120a", (16, 8, 64), "f16", "e3m2", "e4m3", "f16", ".kind::f8f6f4@alt", True, 0, "rtx-blackwell"),
    ("mma_sp_m16n8k32_s8_u8_satfinite_sel1", "sm_80", "sm_80", (16, 8, 32), "s32", "s8", "u8", "s32", ".satfinite", False, 1, None),
    ("mma_sp_m16n8k32_u8_ordered_sel0", "sm_90a", "sm_80", (16, 8, 32), "s32", "u8", "u8", "s32", "", True, 0, None),
    ("mma_sp_m16n8k64_s8", "sm_80", "sm_80", (16, 8, 64), "s32", "s8", "s8", "s32", "", False, 0, None),
    ("mma_sp_m16n8k64_u8_s8_ordered_satfinite", "sm_80", "sm_80", (16, 8, 64), "s32", "u8", "s8", "s32", ".satfinite", True, 0, None),
    ("mma_sp_m16n8k64_u4_s4_sel1", "sm_80", "sm_80", (16, 8, 64), "s32", "u4", "s4", "s32", "", False, 1, None),
    ("mma_sp_m16n8k64_s4_ordered_satfinite_sel0", "sm_80", "sm_80", (16, 8, 64), "s32", "s4", "s4", "s32", ".satfinite", True, 0, None),
    ("mma_sp_m16n8k128_s4_satfinite", "sm_80", "sm_80", (16, 8, 128), "s32", "s4", "s4", "s32", ".satfinite", False, 0, None),
    ("mma_sp_m16n8k128_u4_ordered", "sm_80", "sm_80", (16, 8, 128), "s32", "u4", "u4", "s32", "", True, 0, None),
]


def sp_chunk(t):
    """(chunk width in elements, index unit in elements, stored values per chunk)"""
    if t == "tf32":
        return 2, 1, 1
    if t in ("s4", "u4"):
        return 8, 2, 4
    return 4, 1, 2


def sp_b_frag(k, t, lane, i):
    """Row and column of element i of lane's B: the dense table where the ISA has the shape;
    the sparse sections' B figures continue the same pattern (register r one step of 4
    elements-per-register further in K) for the shapes only mma.sp has."""
    g, tg = lane >> 2, lane % 4
    dense = {("f16", 16), ("bf16", 16), ("tf32", 8), ("s8", 32), ("u8", 32), ("s4", 64),
             ("u4", 64)}
    if (t, k) in dense:
        _, r, c = frag((16, 8, k), "b", t, lane, i)
        return r, c
    if t in ("f16", "bf16"):  # m16n8k32
        return tg * 2 + (i & 1) + 8 * (i // 2), g
    if t == "tf32":  # m16n8k16
        return tg + 4 * i, g
    if t in ("s4", "u4"):  # m16n8k128
        return tg * 8 + (i & 7) + 32 * (i // 8), g
    return tg * 4 + (i & 3) + 16 * (i // 4), g  # 8-bit m16n8k64


def cmd_sptests(outdir):
    for (name, arch, target, shape, d, at, bt, ct, extra, ordered, sel, gen) in SP_TESTS:
        rng = SplitMix64(seed_of(name))
        m, n, k = shape
        kc = k // 2
        cw, unit, nz = sp_chunk(at)
        kind = ".kind::f8f6f4" in extra
        center = rng.next()

        def val(t):
            v = rand_elem(rng, t)
            if v is None:
                v = gen_bits(t, rng.next(), 1, center)
            return v & ((1 << width(t)) - 1) if kind else v
        # Dense sparse A, its compressed rows and the metadata fields.
        A = [[0] * k for _ in range(m)]
        comp = [[0] * kc for _ in range(m)]
        fields = [[0] * (k // cw) for _ in range(m)]
        for r in range(m):
            for ch in range(k // cw):
                if at == "tf32":
                    e = rng.next() & 1
                    fields[r][ch] = 0b1110 if e else 0b0100
                    idx = [e]
                else:
                    slots = cw // unit
                    i0 = rng.next() % slots
                    i1 = (i0 + 1 + rng.next() % (slots - 1)) % slots
                    if ordered and i0 > i1:
                        i0, i1 = i1, i0
                    fields[r][ch] = i0 | (i1 << 2)
                    idx = [i0, i1]
                stored = []
                for x in idx:
                    for u in range(unit):
                        v = val(at)
                        A[r][ch * cw + x * unit + u] = v
                        stored.append(v)
                comp[r][ch * nz:(ch + 1) * nz] = stored
        B = [[val(bt) for _ in range(n)] for _ in range(k)]
        C = [[0] * n for _ in range(m)]
        for r in range(m):
            for c in range(n):
                v = rand_elem(rng, ct, True)
                C[r][c] = v if v is not None else gen_bits(ct, rng.next(), 1, center, ref=at)
        D = [[0] * n for _ in range(m)]
        for r in range(m):
            for c in range(n):
                bcol = [B[x][c] for x in range(k)]
                cv = C[r][c]
                if at in ("s8", "u8", "s4", "u4"):
                    sv = cv - (1 << 32) if cv >> 31 else cv
                    D[r][c] = dot_int(at, bt, A[r], bcol, sv, "satfinite" in extra)
                else:
                    D[r][c] = dot(gen, "mma", at, bt, ct, d, A[r], bcol, cv)
        # Metadata registers.
        tpg = (k // cw) // 4
        meta = []
        for lane in range(32):
            g, tg = lane >> 2, lane % 4
            j = tg - sel * tpg
            if tpg == 4:  # 8 chunks of one row per thread
                r = g + 8 * (tg % 2)
                meta.append(sum(fields[r][8 * (tg // 2) + q] << (4 * q) for q in range(8)))
            elif 0 <= j < tpg:
                v = 0
                for hi in range(2):
                    for q in range(4):
                        v |= fields[g + 8 * hi][4 * j + q] << (16 * hi + 4 * q)
                meta.append(v)
            else:
                meta.append(rng.next() & 0xFFFFFFFF)
        # Fragments: A is the dense layout of the M x K/2 compressed matrix.
        cshape = (16, 8, kc)
        fa, fb, fc, fd = [], [], [], []
        for lane in range(32):
            ea = []
            for i in range(per_lane(cshape, at, "a")):
                _, r, c = frag(cshape, "a", at, lane, i)
                v = comp[r][c]
                ea.append(f8f6f4_place(at, v) if kind else v)
            eb = []
            for i in range(per_lane(shape, bt, "b")):
                r, c = sp_b_frag(k, bt, lane, i)
                eb.append(f8f6f4_place(bt, B[r][c]) if kind else B[r][c])
            ec = [C[r][c] for (_, r, c) in (frag(shape, "c", ct, lane, i)
                                             for i in range(per_lane(shape, ct, "c")))]
            ed = [D[r][c] for (_, r, c) in (frag(shape, "c", d, lane, i)
                                             for i in range(per_lane(shape, d, "c")))]
            fa += pack(at, ea)
            fb += pack(bt, eb)
            fc += pack(ct, ec)
            fd += pack(d, ed)
        write_sptest(outdir, name, arch, target, shape, d, at, bt, ct, extra, ordered, sel, gen,
                     (fa, fb, fc, meta, fd))
    print(f"{len(SP_TESTS)} mma.sp run tests -> {outdir}")


def sp_opname(shape, d, at, bt, ct, extra, ordered):
    m, n, k = shape
    sp = ".sp::ordered_metadata" if ordered else ".sp"
    if extra == ".kind::f8f6f4@alt":
        return f"mma{sp}.sync.aligned.kind::f8f6f4.m{m}n{n}k{k}.row.col.{d}.{at}.{bt}.{ct}"
    if extra.startswith(".kind"):
        return f"mma{sp}.sync.aligned.m{m}n{n}k{k}.row.col{extra}.{d}.{at}.{bt}.{ct}"
    return f"mma{sp}.sync.aligned.m{m}n{n}k{k}.row.col{extra}.{d}.{at}.{bt}.{ct}"


def write_sptest(outdir, name, arch, target, shape, d, at, bt, ct, extra, ordered, sel, gen,
                 frags, expect_error=None):
    fa, fb, fc, fe, fd = frags
    opname = sp_opname(shape, d, at, bt, ct, extra, ordered)
    na, nb, nc, nd = len(fa) // 32, len(fb) // 32, len(fc) // 32, len(fd) // 32
    rt = lambda t: {"f32": ".f32", "s32": ".s32"}.get(t, ".b32")
    desc = ("exact integer arithmetic (wrap, or .satfinite clamping of the exact sum)"
            if gen is None else
            f"the {gen} generation's tensor-core model (T-FDPA,\n// shared/spec/tensor-core-arithmetic.md) on the decompressed A")
    lines = [f"// `{opname}` with sparsity selector {sel} on {arch}: one warp, random operands.",
             "// Generated by tools/tc_ref.py from the PTX ISA's sparse storage text: a structured-",
             "// sparse A is drawn, compressed into A's fragment (arg0) and the metadata (arg3; lanes",
             "// the selector does not name hold random words, which must be ignored); arg1 = B,",
             "// arg2 = C, arg4 = D per lane, expected from",
             f"// {desc}."]
    if expect_error:
        lines = lines[:1] + [f"// The selector is outside the ISA's range for this shape: the launch must fail."]
    lines.append(f"// run: --grid 1 --block 32 --arch {arch}")
    arg = lambda vals: "// arg: u32[%d] = [" % len(vals) + ", ".join(hex(v) for v in vals) + "]"
    lines += [arg(fa), arg(fb), arg(fc), arg(fe), f"// arg: zeros:u32:{len(fd)}"]
    if expect_error:
        lines.append(f"// expect error: {expect_error}")
    else:
        for i in range(0, len(fd), 16):
            chunk = fd[i:i + 16]
            lines.append(f"// expect arg4[{i}..{i + len(chunk)}]: u32 [" +
                         ", ".join(hex(v) for v in chunk) + "]")
    lines += [".version 8.7", f".target {target}", ".address_size 64", "",
              ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pe, .param .u64 pd)",
              "{",
              f"\t.reg .b32 %a<{na}>;", f"\t.reg .b32 %b<{nb}>;", f"\t.reg {rt(ct)} %c<{nc}>;",
              f"\t.reg {rt(d)} %d<{nd}>;", "\t.reg .b32 %e;", "\t.reg .b32 %r<4>;",
              "\t.reg .b64 %rd<20>;", "\tmov.u32 %r1, %tid.x;"]
    for idx, (p, cnt, reg, ty) in enumerate((("pa", na, "a", ".b32"), ("pb", nb, "b", ".b32"),
                                             ("pc", nc, "c", rt(ct)), ("pe", 1, "e", ".b32"))):
        lines.append(f"\tld.param.u64 %rd{idx * 3 + 1}, [{p}];")
        lines.append(f"\tmul.wide.u32 %rd{idx * 3 + 2}, %r1, {cnt * 4};")
        lines.append(f"\tadd.u64 %rd{idx * 3 + 3}, %rd{idx * 3 + 1}, %rd{idx * 3 + 2};")
        for j in range(cnt):
            dst = "%e" if reg == "e" else f"%{reg}{j}"
            lines.append(f"\tld.global{ty} {dst}, [%rd{idx * 3 + 3}+{j * 4}];")
    vec = lambda r, c: "{" + ", ".join(f"%{r}{j}" for j in range(c)) + "}"
    lines.append(f"\t{opname} {vec('d', nd)}, {vec('a', na)}, {vec('b', nb)}, {vec('c', nc)}, %e, {sel};")
    lines += ["\tld.param.u64 %rd13, [pd];", f"\tmul.wide.u32 %rd14, %r1, {nd * 4};",
              "\tadd.u64 %rd15, %rd13, %rd14;"]
    for j in range(nd):
        lines.append(f"\tst.global{rt(d)} [%rd15+{j * 4}], %d{j};")
    lines += ["\tret;", "}"]
    with open(os.path.join(outdir, name + ".ptx"), "w") as f:
        f.write("\n".join(lines) + "\n")


def cmd_sperrors(outdir):
    """A selector ptxas accepts (0-3) but the ISA leaves undefined for the shape."""
    z = lambda c: [0] * (32 * c)
    write_sptest(outdir, "mma_sp_selector_undefined", "sm_80", "sm_80", (16, 8, 32), "f32",
                 "f16", "f16", "f32", "", False, 2, "ampere", (z(4), z(4), z(4), z(1), z(4)),
                 expect_error="sparsity selector 2 is undefined")
    write_sptest(outdir, "mma_sp_selector_undefined_k64", "sm_80", "sm_80", (16, 8, 64), "s32",
                 "s8", "s8", "s32", "", True, 1, None, (z(4), z(4), z(4), z(1), z(4)),
                 expect_error="sparsity selector 1 is undefined")
# Block-scaled mma.sync (PTX ISA §9.7.14.3 "Block Scaling for mma.sync"; the arithmetic is
# MMA-Sim's block-scale model, shared/spec/tensor-core-arithmetic.md §3):
# - mxf8f6f4 (m16n8k32, scale_vec::1X, ue8m0): one T-FDPA block of the 32 products and C,
#   every product multiplied by 2^(sa + sb) (its alignment exponent raised by both), F = 25,
#   e0 = -133, RZ to f32.
# - mxf4/mxf4nvf4 (m16n8k64 e2m1, 2X or 4X): each group of 16 products summed exactly, times
#   its chunk's two scale factors; groups aligned at the sum of the scales' exponents, C at
#   its own (e0 = -139 when zero); truncated to F = 35 bits below the largest, summed, RZ.
# Scale factors in the registers (ISA text): the quad's thread pair chosen by thread-id-a
# supplies SF_A (lower lane of the pair: row g, upper: row g + 8 of quad g), the lane with
# lane % 4 == thread-id-b of quad n supplies column n's SF_B; chunk j of a row/column is
# byte byte-id + j of the register.

def scale_decode(st, x):
    """-> ('nan',) | ('num', False, value, alignment exponent)"""
    if st == "ue8m0":
        if x == 0xFF:
            return ("nan",)
        return ("num", False, p2(x - 127), x - 127)
    return decode("e4m3", x & 0x7F)


def times_scale(d, s):
    if d[0] != "num":
        return d
    return ("num", d[1], d[2] * s[2], d[3] + s[3])


def dot_mx8(at, bt, arow, bcol, sa, sb, c):
    if sa[0] == "nan" or sb[0] == "nan":
        return canonical_nan("f32")
    pairs = [(times_scale(decode(at, x), sa), times_scale(decode(bt, y), sb))
             for x, y in zip(arow, bcol)]
    return tfdpa(pairs, decode("f32", c), 25, -133, "f32")


def dot_mxf4(arow, bcol, sas, sbs, c):
    F, E0m = 35, -139
    cd = decode("f32", c)
    if any(s[0] == "nan" for s in sas + sbs) or cd[0] == "nan":
        return canonical_nan("f32")
    if cd[0] == "inf":
        return inf_bits("f32", cd[1])
    chunk = len(arow) // len(sas)
    terms, exps = [], []
    for g in range(len(arow) // 16):
        s = 0
        for x, y in zip(arow[16 * g:16 * g + 16], bcol[16 * g:16 * g + 16]):
            a, b = decode("e2m1", x), decode("e2m1", y)
            v = a[2] * b[2]
            s += -v if a[1] != b[1] else v
        j = 16 * g // chunk
        sa, sb = sas[j], sbs[j]
        if sa[2] == 0 or sb[2] == 0:
            exps.append(E0m)
            continue
        terms.append(s * sa[2] * sb[2])
        exps.append(sa[3] + sb[3])
    if cd[2] == 0:
        exps.append(E0m)
    else:
        exps.append(cd[3])
        terms.append(-cd[2] if cd[1] else cd[2])
    emax = max(exps)
    S = 0
    for t in terms:
        m = abs(t) * p2(F - emax)
        m = m.numerator // m.denominator
        S += -m if t < 0 else m
    if S == 0:
        return 0
    bits = encode("f32", S < 0, abs(S) * p2(emax - F), "rz")
    return 0 if bits & 0x7FFFFFFF == 0 else bits


# (file, kind, scale_vec (None = omitted), a, b, stype, (byte-id-a, thread-id-a, byte-id-b,
#  thread-id-b), alt order, selectors in registers, ptx version, a NaN scale)
BSCALE_TESTS = [
    ("mma_bscale_mxf8f6f4_e4m3_e5m2", "mxf8f6f4", "1X", "e4m3", "e5m2", "ue8m0", (2, 1, 3, 2), False, False, "8.7", False),
    ("mma_bscale_mxf8f6f4_alt_e2m1_e3m2", "mxf8f6f4", None, "e2m1", "e3m2", "ue8m0", (0, 0, 1, 3), True, True, "8.7", True),
    ("mma_bscale_mxf8f6f4_e2m3_e4m3_default", "mxf8f6f4", None, "e2m3", "e4m3", "ue8m0", (3, 0, 0, 0), False, False, "8.7", False),
    ("mma_bscale_mxf4_2x", "mxf4", "2X", "e2m1", "e2m1", "ue8m0", (2, 1, 0, 1), False, False, "8.7", False),
    ("mma_bscale_mxf4_alt_default", "mxf4", None, "e2m1", "e2m1", "ue8m0", (0, 0, 2, 3), True, True, "8.7", False),
    ("mma_bscale_mxf4nvf4_2x_ue8m0", "mxf4nvf4", "2X", "e2m1", "e2m1", "ue8m0", (0, 1, 2, 0), False, False, "8.7", True),
    ("mma_bscale_mxf4nvf4_alt_2x_ue8m0", "mxf4nvf4", "2X", "e2m1", "e2m1", "ue8m0", (2, 0, 0, 2), True, False, "8.7", False),
    ("mma_bscale_mxf4nvf4_4x_ue4m3", "mxf4nvf4", "4X", "e2m1", "e2m1", "ue4m3", (0, 1, 0, 1), False, False, "8.7", False),
    ("mma_bscale_mxf4nvf4_alt_4x_ue4m3", "mxf4nvf4", "4X", "e2m1", "e2m1", "ue4m3", (0, 0, 0, 3), True, True, "8.7", False),
    ("mma_bscale_mxf4nvf4_4x_ue8m0", "mxf4nvf4", "4X", "e2m1", "e2m1", "ue8m0", (0, 1, 0, 2), False, False, "9.1", False),
    ("mma_bscale_mxf4nvf4_alt_4x_ue8m0", "mxf4nvf4", "4X", "e2m1", "e2m1", "ue8m0", (0, 0, 0, 0), True, False, "9.1", False),
]


def rand_scale(rng, st):
    r = rng.next()
    if st == "ue8m0":
        return 127 + (r % 17) - 8
    # positive e4m3 without NaN and zero: exponent field 4..11, any mantissa
    return ((4 + r % 8) << 3) | ((r >> 8) & 7)


def rand_c(rng, center):
    r = rng.next()
    if r % 32 == 0:
        return 0
    e = 127 + center + (r >> 5) % 9 - 4
    return (((r >> 20) & 1) << 31) | (e << 23) | ((r >> 21) & 0x7FFFFF)


def cmd_bscaletests(outdir):
    for (name, kind, vec, at, bt, st, sel, alt, selregs, ver, nan) in BSCALE_TESTS:
        rng = SplitMix64(seed_of(name))
        mxf4 = kind != "mxf8f6f4"
        k = 64 if mxf4 else 32
        nv = int((vec or ("2X" if mxf4 else "1X"))[0])
        shape = (16, 8, k)
        center = rng.next()
        if mxf4:
            A = [[rng.next() & 0xF for _ in range(k)] for _ in range(16)]
            B = [[rng.next() & 0xF for _ in range(8)] for _ in range(k)]
        else:
            A = [[gen_bits(at, rng.next(), 1, center) & ((1 << width(at)) - 1) for _ in range(k)]
                 for _ in range(16)]
            B = [[gen_bits(bt, rng.next(), 1, center) & ((1 << width(bt)) - 1) for _ in range(8)]
                 for _ in range(k)]
        SA = [[rand_scale(rng, st) for _ in range(nv)] for _ in range(16)]
        SB = [[rand_scale(rng, st) for _ in range(nv)] for _ in range(8)]
        if nan:
            SA[5][0] = 0xFF  # a NaN scale factor: row 5 of D is NaN
        cexp = 2 + (-2 if not mxf4 else 4)
        C = [[rand_c(rng, cexp + (SA[r][0] - 127 + SB[c][0] - 127 if st == "ue8m0" else 0))
              for c in range(8)] for r in range(16)]
        D = [[0] * 8 for _ in range(16)]
        for r in range(16):
            for c in range(8):
                bcol = [B[x][c] for x in range(k)]
                sas = [scale_decode(st, x) for x in SA[r]]
                sbs = [scale_decode(st, x) for x in SB[c]]
                if mxf4:
                    D[r][c] = dot_mxf4(A[r], bcol, sas, sbs, C[r][c])
                else:
                    D[r][c] = dot_mx8(at, bt, A[r], bcol, sas[0], sbs[0], C[r][c])
        # Scale registers: random bytes everywhere, the selected ones set.
        ba, ta, bb, tb = sel
        sra = [rng.next() & 0xFFFFFFFF for _ in range(32)]
        srb = [rng.next() & 0xFFFFFFFF for _ in range(32)]
        for r in range(16):
            lane = 4 * (r % 8) + 2 * ta + r // 8
            for j in range(nv):
                sh = 8 * (ba + j)
                sra[lane] = (sra[lane] & ~(0xFF << sh)) | (SA[r][j] << sh)
        for c in range(8):
            lane = 4 * c + tb
            for j in range(nv):
                sh = 8 * (bb + j)
                srb[lane] = (srb[lane] & ~(0xFF << sh)) | (SB[c][j] << sh)
        et = "u4" if mxf4 else at
        fa, fb, fc, fd = [], [], [], []
        for lane in range(32):
            ea = []
            for i in range(32 if mxf4 else 16):
                _, r, c = frag(shape, "a", et, lane, i)
                ea.append(A[r][c] if mxf4 else f8f6f4_place(at, A[r][c]))
            eb = []
            for i in range(16 if mxf4 else 8):
                _, r, c = frag(shape, "b", et, lane, i)
                eb.append(B[r][c] if mxf4 else f8f6f4_place(bt, B[r][c]))
            fa += pack("u4" if mxf4 else at, ea)
            fb += pack("u4" if mxf4 else bt, eb)
            for i in range(4):
                _, r, c = frag(shape, "c", "f32", lane, i)
                fc.append(C[r][c])
                fd.append(D[r][c])
        vq = f".scale_vec::{vec}" if vec else ""
        types = f".f32.{at}.{bt}.f32.{st}"
        if alt:
            opname = f"mma.sync.aligned.kind::{kind}.block_scale{vq}.m16n8k{k}.row.col{types}"
        else:
            opname = f"mma.sync.aligned.m16n8k{k}.row.col.kind::{kind}.block_scale{vq}{types}"
        lines = [f"// `{opname}` on sm_120a: one warp, random operands and scale factors.",
                 "// Generated by tools/tc_ref.py (an independent exact-rational reference): A, B, C",
                 "// laid out per lane by the PTX ISA's fragment tables (arg0 = A, arg1 = B, arg2 = C),",
                 "// arg3/arg4 = each lane's scale-a-data/scale-b-data (random bytes except the ones",
                 f"// the selectors {{{ba}, {ta}}}, {{{bb}, {tb}}} pick; ISA §9.7.14.3), arg5 = D per lane,",
                 "// expected from the block-scaled model (MMA-Sim's, shared/spec/tensor-core-arithmetic.md)."]
        if nan:
            lines.append("// Row 5's SF_A is the ue8m0 NaN (0xff): that row of D is the canonical NaN.")
        lines.append("// run: --grid 1 --block 32 --arch sm_120a")
        arg = lambda vals: "// arg: u32[" + str(len(vals)) + "] = [" + ", ".join(hex(v) for v in vals) + "]"
        lines += [arg(fa), arg(fb), arg(fc), arg(sra), arg(srb), "// arg: zeros:u32:128"]
        for i in range(0, 128, 16):
            lines.append(f"// expect arg5[{i}..{i + 16}]: u32 [" + ", ".join(hex(v) for v in fd[i:i + 16]) + "]")
        lines += [f".version {ver}", ".target sm_120a", ".address_size 64", "",
                  ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 psa,",
                  "\t.param .u64 psb, .param .u64 pd)", "{",
                  "\t.reg .b32 %a<4>;", "\t.reg .b32 %b<2>;", "\t.reg .f32 %c<4>;", "\t.reg .f32 %d<4>;",
                  "\t.reg .b32 %r<4>;", "\t.reg .b16 %h<4>;", "\t.reg .b64 %rd<20>;",
                  "\tmov.u32 %r1, %tid.x;"]
        for idx, (p, cnt, reg) in enumerate((("pa", 4, "a"), ("pb", 2, "b"), ("pc", 4, "c"))):
            lines.append(f"\tld.param.u64 %rd{idx * 3 + 1}, [{p}];")
            lines.append(f"\tmul.wide.u32 %rd{idx * 3 + 2}, %r1, {cnt * 4};")
            lines.append(f"\tadd.u64 %rd{idx * 3 + 3}, %rd{idx * 3 + 1}, %rd{idx * 3 + 2};")
            t = ".f32" if reg == "c" else ".b32"
            for j in range(cnt):
                lines.append(f"\tld.global{t} %{reg}{j}, [%rd{idx * 3 + 3}+{j * 4}];")
        lines += ["\tmul.wide.u32 %rd13, %r1, 4;",
                  "\tld.param.u64 %rd14, [psa];", "\tadd.u64 %rd15, %rd14, %rd13;",
                  "\tld.global.b32 %r2, [%rd15];",
                  "\tld.param.u64 %rd16, [psb];", "\tadd.u64 %rd17, %rd16, %rd13;",
                  "\tld.global.b32 %r3, [%rd17];"]
        if selregs:
            for j, v in enumerate(sel):
                lines.append(f"\tmov.b16 %h{j}, {v};")
            sela, selb = "{%h0, %h1}", "{%h2, %h3}"
            sa_op = "{%r2}"
        else:
            sela, selb = f"{{{ba}, {ta}}}", f"{{{bb}, {tb}}}"
            sa_op = "%r2"
        vec4 = lambda r, n: "{" + ", ".join(f"%{r}{j}" for j in range(n)) + "}"
        lines.append(f"\t{opname} {vec4('d', 4)}, {vec4('a', 4)}, {vec4('b', 2)}, {vec4('c', 4)}, "
                     f"{sa_op}, {sela}, %r3, {selb};")
        lines += ["\tld.param.u64 %rd10, [pd];", "\tmul.wide.u32 %rd11, %r1, 16;",
                  "\tadd.u64 %rd12, %rd10, %rd11;"]
        for j in range(4):
            lines.append(f"\tst.global.f32 [%rd12+{j * 4}], %d{j};")
        lines += ["\tret;", "}"]
        with open(os.path.join(outdir, name + ".ptx"), "w") as f:
            f.write("\n".join(lines) + "\n")
    print(f"{len(BSCALE_TESTS)} block-scaled mma run tests -> {outdir}")


# Block-scaled mma.sp::ordered_metadata (sm_120a): (file, kind, scale_vec (None = omitted),
# a, b, stype, (byte-id-a, thread-id-a, byte-id-b, thread-id-b), alt order, ptx version)
SP_BSCALE_TESTS = [
    ("mma_sp_bscale_mxf4_default", "mxf4", None, "e2m1", "e2m1", "ue8m0", (2, 1, 0, 3), False, "8.7"),
    ("mma_sp_bscale_mxf4_alt_2x", "mxf4", "2X", "e2m1", "e2m1", "ue8m0", (0, 0, 2, 1), True, "8.7"),
    ("mma_sp_bscale_mxf4nvf4_2x_ue8m0", "mxf4nvf4", "2X", "e2m1", "e2m1", "ue8m0", (2, 0, 2, 2), False, "8.7"),
    ("mma_sp_bscale_mxf4nvf4_alt_2x_ue8m0", "mxf4nvf4", "2X", "e2m1", "e2m1", "ue8m0", (0, 1, 0, 0), True, "8.7"),
    ("mma_sp_bscale_mxf4nvf4_4x_ue4m3", "mxf4nvf4", "4X", "e2m1", "e2m1", "ue4m3", (0, 1, 0, 2), False, "8.7"),
    ("mma_sp_bscale_mxf4nvf4_alt_4x_ue4m3", "mxf4nvf4", "4X", "e2m1", "e2m1", "ue4m3", (0, 0, 0, 1), True, "8.7"),
    ("mma_sp_bscale_mxf4nvf4_4x_ue8m0", "mxf4nvf4", "4X", "e2m1", "e2m1", "ue8m0", (0, 0, 0, 3), False, "9.1"),
    ("mma_sp_bscale_mxf4nvf4_alt_4x_ue8m0", "mxf4nvf4", "4X", "e2m1", "e2m1", "ue8m0", (0, 1, 0, 0), True, "9.1"),
    ("mma_sp_bscale_mxf8f6f4_e4m3_e2m1", "mxf8f6f4", "1X", "e4m3", "e2m1", "ue8m0", (3, 1, 1, 2), False, "8.7"),
    ("mma_sp_bscale_mxf8f6f4_alt_e3m2_e5m2_default", "mxf8f6f4", None, "e3m2", "e5m2", "ue8m0", (0, 0, 2, 0), True, "8.7"),
]


def cmd_spbscaletests(outdir):
    """Block-scaled mma.sp::ordered_metadata: the sparse fragments (A the compressed M x K/2
    matrix in the dense layout of that shape, B as sp_b_frag, the metadata of all four threads
    of a group, selector 0) of cmd_sptests combined with the scale registers of
    cmd_bscaletests; D from the block-scale model on the dense, structured-sparse A (mxf4:
    pair-wise 4:8, a field's two indices name the non-zero pairs; mxf8f6f4: 2:4)."""
    for (name, kind, vec, at, bt, st, sel, alt, ver) in SP_BSCALE_TESTS:
        rng = SplitMix64(seed_of(name))
        mxf4 = kind != "mxf8f6f4"
        k = 128 if mxf4 else 64
        kc = k // 2
        cw, unit, nz = (8, 2, 4) if mxf4 else (4, 1, 2)
        nv = int((vec or ("2X" if mxf4 else "1X"))[0])
        shape = (16, 8, k)
        center = rng.next()

        def val(t):
            if mxf4:
                return rng.next() & 0xF
            return gen_bits(t, rng.next(), 1, center) & ((1 << width(t)) - 1)
        A = [[0] * k for _ in range(16)]
        comp = [[0] * kc for _ in range(16)]
        fields = [[0] * (k // cw) for _ in range(16)]
        for r in range(16):
            for ch in range(k // cw):
                slots = cw // unit
                i0 = rng.next() % slots
                i1 = (i0 + 1 + rng.next() % (slots - 1)) % slots
                i0, i1 = min(i0, i1), max(i0, i1)  # ::ordered_metadata
                fields[r][ch] = i0 | (i1 << 2)
                stored = []
                for x in (i0, i1):
                    for u in range(unit):
                        v = val(at)
                        A[r][ch * cw + x * unit + u] = v
                        stored.append(v)
                comp[r][ch * nz:(ch + 1) * nz] = stored
        B = [[val(bt) for _ in range(8)] for _ in range(k)]
        SA = [[rand_scale(rng, st) for _ in range(nv)] for _ in range(16)]
        SB = [[rand_scale(rng, st) for _ in range(nv)] for _ in range(8)]
        cexp = 2 + (-2 if not mxf4 else 4)
        C = [[rand_c(rng, cexp + (SA[r][0] - 127 + SB[c][0] - 127 if st == "ue8m0" else 0))
              for c in range(8)] for r in range(16)]
        D = [[0] * 8 for _ in range(16)]
        for r in range(16):
            for c in range(8):
                bcol = [B[x][c] for x in range(k)]
                sas = [scale_decode(st, x) for x in SA[r]]
                sbs = [scale_decode(st, x) for x in SB[c]]
                if mxf4:
                    D[r][c] = dot_mxf4(A[r], bcol, sas, sbs, C[r][c])
                else:
                    D[r][c] = dot_mx8(at, bt, A[r], bcol, sas[0], sbs[0], C[r][c])
        # Metadata: all four threads of group g; thread t holds 8 chunks of row g + 8 (t % 2),
        # chunks 8 (t / 2) onwards (as cmd_sptests).
        meta = []
        for lane in range(32):
            g, tg = lane >> 2, lane % 4
            r = g + 8 * (tg % 2)
            meta.append(sum(fields[r][8 * (tg // 2) + q] << (4 * q) for q in range(8)))
        ba, ta, bb, tb = sel
        sra = [rng.next() & 0xFFFFFFFF for _ in range(32)]
        srb = [rng.next() & 0xFFFFFFFF for _ in range(32)]
        for r in range(16):
            lane = 4 * (r % 8) + 2 * ta + r // 8
            for j in range(nv):
                sh = 8 * (ba + j)
                sra[lane] = (sra[lane] & ~(0xFF << sh)) | (SA[r][j] << sh)
        for c in range(8):
            lane = 4 * c + tb
            for j in range(nv):
                sh = 8 * (bb + j)
                srb[lane] = (srb[lane] & ~(0xFF << sh)) | (SB[c][j] << sh)
        et = "u4" if mxf4 else None
        cshape = (16, 8, kc)
        fa, fb, fc, fd = [], [], [], []
        for lane in range(32):
            ea = []
            for i in range(per_lane(cshape, et or at, "a")):
                _, r, c = frag(cshape, "a", et or at, lane, i)
                ea.append(comp[r][c] if mxf4 else f8f6f4_place(at, comp[r][c]))
            eb = []
            for i in range(per_lane(shape, et or bt, "b")):
                r, c = sp_b_frag(k, et or bt, lane, i)
                eb.append(B[r][c] if mxf4 else f8f6f4_place(bt, B[r][c]))
            fa += pack(et or at, ea)
            fb += pack(et or bt, eb)
            for i in range(4):
                _, r, c = frag(shape, "c", "f32", lane, i)
                fc.append(C[r][c])
                fd.append(D[r][c])
        vq = f".scale_vec::{vec}" if vec else ""
        types = f".f32.{at}.{bt}.f32.{st}"
        sp = "mma.sp::ordered_metadata.sync.aligned"
        if alt:
            opname = f"{sp}.kind::{kind}.block_scale{vq}.m16n8k{k}.row.col{types}"
        else:
            opname = f"{sp}.m16n8k{k}.row.col.kind::{kind}.block_scale{vq}{types}"
        na, nb = len(fa) // 32, len(fb) // 32
        lines = [f"// `{opname}` on sm_120a: one warp, random operands and scale factors.",
                 "// Generated by tools/tc_ref.py (an independent exact-rational reference): a",
                 f"// structured-sparse A ({'pair-wise 4:8' if mxf4 else '2:4'}, increasing index pairs) compressed into the sparse",
                 "// fragment (the M x K/2 matrix in the dense layout of that shape), B per the sparse",
                 "// sections' B pattern, the metadata of all four threads of a group (selector 0), the",
                 f"// scale registers with the selectors {{{ba}, {ta}}}, {{{bb}, {tb}}} (random bytes elsewhere);",
                 "// arg0..2 = A, B, C, arg3 = metadata, arg4/arg5 = scale-a-data/scale-b-data, arg6 = D,",
                 "// expected from the block-scale model on the decompressed A with the full K."]
        lines.append("// run: --grid 1 --block 32 --arch sm_120a")
        arg = lambda vals: "// arg: u32[" + str(len(vals)) + "] = [" + ", ".join(hex(v) for v in vals) + "]"
        lines += [arg(fa), arg(fb), arg(fc), arg(meta), arg(sra), arg(srb), "// arg: zeros:u32:128"]
        for i in range(0, 128, 16):
            lines.append(f"// expect arg6[{i}..{i + 16}]: u32 [" + ", ".join(hex(v) for v in fd[i:i + 16]) + "]")
        lines += [f".version {ver}", ".target sm_120a", ".address_size 64", "",
                  ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pe,",
                  "\t.param .u64 psa, .param .u64 psb, .param .u64 pd)", "{",
                  f"\t.reg .b32 %a<{na}>;", f"\t.reg .b32 %b<{nb}>;", "\t.reg .f32 %c<4>;", "\t.reg .f32 %d<4>;",
                  "\t.reg .b32 %r<5>;", "\t.reg .b64 %rd<24>;",
                  "\tmov.u32 %r1, %tid.x;"]
        for idx, (p, cnt, reg) in enumerate((("pa", na, "a"), ("pb", nb, "b"), ("pc", 4, "c"))):
            lines.append(f"\tld.param.u64 %rd{idx * 3 + 1}, [{p}];")
            lines.append(f"\tmul.wide.u32 %rd{idx * 3 + 2}, %r1, {cnt * 4};")
            lines.append(f"\tadd.u64 %rd{idx * 3 + 3}, %rd{idx * 3 + 1}, %rd{idx * 3 + 2};")
            t = ".f32" if reg == "c" else ".b32"
            for j in range(cnt):
                lines.append(f"\tld.global{t} %{reg}{j}, [%rd{idx * 3 + 3}+{j * 4}];")
        lines += ["\tmul.wide.u32 %rd13, %r1, 4;",
                  "\tld.param.u64 %rd14, [psa];", "\tadd.u64 %rd15, %rd14, %rd13;",
                  "\tld.global.b32 %r2, [%rd15];",
                  "\tld.param.u64 %rd16, [psb];", "\tadd.u64 %rd17, %rd16, %rd13;",
                  "\tld.global.b32 %r3, [%rd17];",
                  "\tld.param.u64 %rd18, [pe];", "\tadd.u64 %rd19, %rd18, %rd13;",
                  "\tld.global.b32 %r4, [%rd19];"]
        vecr = lambda r, n: "{" + ", ".join(f"%{r}{j}" for j in range(n)) + "}"
        lines.append(f"\t{opname} {vecr('d', 4)}, {vecr('a', na)}, {vecr('b', nb)}, {vecr('c', 4)}, "
                     f"%r4, 0x0, %r2, {{{ba}, {ta}}}, %r3, {{{bb}, {tb}}};")
        lines += ["\tld.param.u64 %rd10, [pd];", "\tmul.wide.u32 %rd11, %r1, 16;",
                  "\tadd.u64 %rd12, %rd10, %rd11;"]
        for j in range(4):
            lines.append(f"\tst.global.f32 [%rd12+{j * 4}], %d{j};")
        lines += ["\tret;", "}"]
        with open(os.path.join(outdir, name + ".ptx"), "w") as f:
            f.write("\n".join(lines) + "\n")
    print(f"{len(SP_BSCALE_TESTS)} block-scaled mma.sp run tests -> {outdir}")


# ---------------------------------------------------------------------------------------
# b8 ldmatrix / stmatrix (sm_100a; the fragment placement is a figure in the ISA, Figures 105
# and 107; evaluated here from CUTLASS's copy-atom layouts SM100_U8x{8,16}_LDSM_T (whose
# copy() permutes the instruction's registers before its DstLayout) and
# SM100_U8x{4,8,16}_STSM_T, cf. docs/tensor-cores.md):
# - ldmatrix.m16n16.xN.trans.b8: matrix m has 16 rows of 16 bytes, row r's address from lane
#   16m + r; lane 4g + q receives in register 2m + j the bytes (g + 8j) of rows 4q .. 4q + 3
#   (lowest byte from row 4q).
# - stmatrix.m16n8.xN.trans.b8: matrix m has 8 rows of 16 bytes, row r's address from lane
#   8m + r; register m's byte i + 2j of lane 4g + q is byte g + 8j of row 2q + i.

def ldsm_b8_frag(rows, lane, j):
    """rows: 16 rows of 16 bytes -> register j (0, 1) of lane."""
    g, q = lane // 4, lane % 4
    return sum(rows[4 * q + b][g + 8 * j] << (8 * b) for b in range(4))


def stsm_b8_rows(regs):
    """regs[lane]: one register per lane -> 8 rows of 16 bytes."""
    rows = [[0] * 16 for _ in range(8)]
    for lane in range(32):
        g, q = lane // 4, lane % 4
        for i in range(2):
            for j in range(2):
                rows[2 * q + i][g + 8 * j] = (regs[lane] >> (8 * (i + 2 * j))) & 0xFF
    return rows


# (file, ldmatrix?, num, state-space qualifier)
LDST_B8_TESTS = [
    ("ldmatrix_m16n16_x1_trans_b8", True, 1, ".shared"),
    ("ldmatrix_m16n16_x2_trans_b8", True, 2, ".shared::cta"),
    ("stmatrix_m16n8_x1_trans_b8", False, 1, ".shared"),
    ("stmatrix_m16n8_x2_trans_b8", False, 2, ".shared::cta"),
    ("stmatrix_m16n8_x4_trans_b8", False, 4, ""),
]


def cmd_ldst_b8_tests(outdir):
    for (name, ld, num, ss) in LDST_B8_TESTS:
        rng = SplitMix64(seed_of(name))
        # Row slots: a 1024-byte shared buffer of 64 16-byte slots; lane l's row lives in slot
        # perm[l] (a permutation, so rows are not contiguous and not in lane order).
        perm = list(range(64))
        for i in range(63, 0, -1):
            j = rng.next() % (i + 1)
            perm[i], perm[j] = perm[j], perm[i]
        perm = perm[:32]
        lines = []
        if ld:
            image = [rng.next() & 0xFF for _ in range(1024)]
            words = [int.from_bytes(bytes(image[4 * i:4 * i + 4]), "little") for i in range(256)]
            out = []
            for lane in range(32):
                for m in range(num):
                    rows = [image[16 * perm[16 * m + r]:16 * perm[16 * m + r] + 16] for r in range(16)]
                    for j in range(2):
                        out.append(ldsm_b8_frag(rows, lane, j))
            nreg = 2 * num
            op = f"ldmatrix.sync.aligned.m16n16.x{num}.trans{ss}.b8"
            lines += [f"// `{op}`: a 1 KiB shared image (arg0) is loaded; lane l gives the address",
                      "// of 16-byte slot slots[l] (arg1, a random permutation) as its row; each lane",
                      f"// stores its {nreg} registers to arg2. Expected values from tools/tc_ref.py: matrix m's",
                      "// row r is the slot of lane 16m + r; lane 4g + q's register 2m + j holds byte g + 8j",
                      "// of rows 4q .. 4q + 3 (the layout of CUTLASS's SM100_U8x{8,16}_LDSM_T, see",
                      "// docs/tensor-cores.md).",
                      "// run: --grid 1 --block 32 --arch sm_100a",
                      "// arg: u32[256] = [" + ", ".join(hex(w) for w in words) + "]",
                      "// arg: u32[32] = [" + ", ".join(str(16 * x) for x in perm) + "]",
                      f"// arg: zeros:u32:{32 * nreg}"]
            for i in range(0, len(out), 16):
                lines.append(f"// expect arg2[{i}..{i + 16}]: u32 [" + ", ".join(hex(v) for v in out[i:i + 16]) + "]")
        else:
            regs = [[rng.next() & 0xFFFFFFFF for _ in range(num)] for _ in range(32)]
            image = [0] * 1024
            for m in range(num):
                rows = stsm_b8_rows([regs[l][m] for l in range(32)])
                for r in range(8):
                    slot = perm[8 * m + r]
                    image[16 * slot:16 * slot + 16] = rows[r]
            words = [int.from_bytes(bytes(image[4 * i:4 * i + 4]), "little") for i in range(256)]
            op = f"stmatrix.sync.aligned.m16n8.x{num}.trans{ss}.b8"
            lines += [f"// `{op}`: lane l's registers (arg0, {num} per lane) are stored to a",
                      "// zeroed 1 KiB shared buffer, lane l giving the address of slot slots[l] (arg1, a",
                      "// random permutation); the buffer is copied to arg2. Expected image from",
                      "// tools/tc_ref.py: register m's byte i + 2j of lane 4g + q is byte g + 8j of matrix m's",
                      "// row 2q + i, whose address lane 8m + 2q + i gives (the layout of CUTLASS's",
                      "// SM100_U8x{4,8,16}_STSM_T, see docs/tensor-cores.md).",
                      "// run: --grid 1 --block 32 --arch sm_100a",
                      "// arg: u32[" + str(32 * num) + "] = [" + ", ".join(hex(v) for l in range(32) for v in regs[l]) + "]",
                      "// arg: u32[32] = [" + ", ".join(str(16 * x) for x in perm) + "]",
                      "// arg: zeros:u32:256"]
            for i in range(0, 256, 16):
                lines.append(f"// expect arg2[{i}..{i + 16}]: u32 [" + ", ".join(hex(v) for v in words[i:i + 16]) + "]")
        lines += [".version 8.6", ".target sm_100a", ".address_size 64", "",
                  ".visible .entry k(.param .u64 pin, .param .u64 pslots, .param .u64 pout)", "{",
                  "\t.reg .b32 %r<16>;", "\t.reg .b32 %v<8>;", "\t.reg .b64 %rd<16>;",
                  "\t.shared .align 16 .b8 m[1024];",
                  "\tmov.u32 %r1, %tid.x;", "\tmov.u32 %r2, m;",
                  "\tld.param.u64 %rd1, [pslots];", "\tmul.wide.u32 %rd2, %r1, 4;",
                  "\tadd.u64 %rd3, %rd1, %rd2;", "\tld.global.u32 %r3, [%rd3];",
                  "\tadd.u32 %r4, %r2, %r3;",
                  "\tld.param.u64 %rd4, [pin];", "\tld.param.u64 %rd5, [pout];"]
        if ld:
            # Lane t copies words 8t .. 8t+7 of the image into shared memory.
            lines += ["\tmul.wide.u32 %rd6, %r1, 32;", "\tadd.u64 %rd7, %rd4, %rd6;",
                      "\tshl.b32 %r5, %r1, 5;", "\tadd.u32 %r6, %r2, %r5;"]
            for w in range(8):
                lines += [f"\tld.global.u32 %r7, [%rd7+{4 * w}];", f"\tst.shared.u32 [%r6+{4 * w}], %r7;"]
            lines.append("\tbar.sync 0;")
            vec = "{" + ", ".join(f"%v{j}" for j in range(2 * num)) + "}"
            lines.append(f"\t{op} {vec}, [%r4];")
            lines += [f"\tmul.wide.u32 %rd8, %r1, {8 * num};", "\tadd.u64 %rd9, %rd5, %rd8;"]
            for j in range(2 * num):
                lines.append(f"\tst.global.u32 [%rd9+{4 * j}], %v{j};")
        else:
            lines += ["\tshl.b32 %r5, %r1, 5;", "\tadd.u32 %r6, %r2, %r5;"]
            for w in range(8):
                lines.append(f"\tst.shared.u32 [%r6+{4 * w}], 0;")
            lines.append("\tbar.sync 0;")
            lines += [f"\tmul.wide.u32 %rd6, %r1, {4 * num};", "\tadd.u64 %rd7, %rd4, %rd6;"]
            for j in range(num):
                lines.append(f"\tld.global.u32 %v{j}, [%rd7+{4 * j}];")
            vec = "{" + ", ".join(f"%v{j}" for j in range(num)) + "}"
            if ss:
                lines.append(f"\t{op} [%r4], {vec};")
            else:  # generic addressing: the slot's generic address
                lines += ["\tmov.u64 %rd10, m;", "\tcvta.shared.u64 %rd11, %rd10;",
                          "\tcvt.u64.u32 %rd12, %r3;", "\tadd.u64 %rd13, %rd11, %rd12;",
                          f"\t{op} [%rd13], {vec};"]
            lines.append("\tbar.sync 0;")
            lines += ["\tmul.wide.u32 %rd8, %r1, 32;", "\tadd.u64 %rd9, %rd5, %rd8;"]
            for w in range(8):
                lines += [f"\tld.shared.u32 %r7, [%r6+{4 * w}];", f"\tst.global.u32 [%rd9+{4 * w}], %r7;"]
        lines += ["\tret;", "}"]
        with open(os.path.join(outdir, name + ".ptx"), "w") as f:
            f.write("\n".join(lines) + "\n")
    print(f"{len(LDST_B8_TESTS)} b8 ldmatrix/stmatrix run tests -> {outdir}")


# Decompressing ldmatrix (sm_100a): `.b8x16.b6x16_p32` / `.b8x16.b4x16_p64`. Each 16-byte row
# holds 16 packed unsigned elements of 6 (4) bits, lowest first, then 32 (64) bits of padding
# (PTX ISA "ldmatrix", "Optional Decompression"); each element becomes a byte with the element
# in its low bits (CUTLASS, mma_traits_sm120.hpp: "ld.matrix b4x16_p64 places FP4 data at the
# first four bits in each eight-bit container"; FP6 needs no shift for mma, whose container
# holds e2m3/e3m2 in "the lower 6 bits"). The ISA's text for the fragments: m8n16 "each thread
# in a warp loads 4 consecutive columns", a group of four threads a row: lane 4g + q receives
# bytes 4q .. 4q + 3 of row g (register m: matrix m, whose row r's address lane 8m + r gives);
# m16n16 (.trans) as the b8 form above.
LDMX_DECOMP_TESTS = [
    ("ldmatrix_m8n16_x1_b6x16_p32", False, 1, 6, ".shared"),
    ("ldmatrix_m8n16_x2_b4x16_p64", False, 2, 4, ".shared::cta"),
    ("ldmatrix_m8n16_x4_b6x16_p32", False, 4, 6, ""),
    ("ldmatrix_m16n16_x1_trans_b4x16_p64", True, 1, 4, ".shared"),
    ("ldmatrix_m16n16_x2_trans_b6x16_p32", True, 2, 6, ".shared::cta"),
]


def decomp_row(row, bits):
    v = int.from_bytes(bytes(row), "little")
    return [(v >> (bits * i)) & ((1 << bits) - 1) for i in range(16)]


def cmd_ldmatrix_decomp_tests(outdir):
    for (name, m16, num, bits, ss) in LDMX_DECOMP_TESTS:
        rng = SplitMix64(seed_of(name))
        perm = list(range(64))
        for i in range(63, 0, -1):
            j = rng.next() % (i + 1)
            perm[i], perm[j] = perm[j], perm[i]
        perm = perm[:32]
        # Random bytes everywhere, the padding included (it must not reach the registers).
        image = [rng.next() & 0xFF for _ in range(1024)]
        words = [int.from_bytes(bytes(image[4 * i:4 * i + 4]), "little") for i in range(256)]
        per = 16 if m16 else 8
        out = []
        for lane in range(32):
            g, q = lane // 4, lane % 4
            for m in range(num):
                rows = [decomp_row(image[16 * perm[per * m + r]:16 * perm[per * m + r] + 16], bits)
                        for r in range(per)]
                if m16:
                    for j in range(2):
                        out.append(ldsm_b8_frag(rows, lane, j))
                else:
                    out.append(sum(rows[g][4 * q + b] << (8 * b) for b in range(4)))
        nreg = num * (2 if m16 else 1)
        fmt = "b6x16_p32" if bits == 6 else "b4x16_p64"
        op = (f"ldmatrix.sync.aligned.m16n16.x{num}.trans{ss}.b8x16.{fmt}" if m16
              else f"ldmatrix.sync.aligned.m8n16.x{num}{ss}.b8x16.{fmt}")
        lines = [f"// `{op}`: a 1 KiB shared image of random bytes (arg0, the padding",
                 "// included) is loaded; lane l gives the address of 16-byte slot slots[l] (arg1, a random",
                 f"// permutation) as its row; each lane stores its {nreg} registers to arg2. Expected values from",
                 f"// tools/tc_ref.py: each row's 16 packed {bits}-bit elements (lowest first; then the padding)",
                 "// become 16 bytes, the element in the low bits (CUTLASS's statement for ld.matrix; the ISA's",
                 "// figures 194-198); "
                 + ("then as the b8 form: lane 4g + q's register 2m + j holds byte g + 8j of rows 4q .. 4q + 3,"
                    if m16 else "lane 4g + q's register m holds bytes 4q .. 4q + 3 of matrix m's row g (ISA text:"),
                 ("// matrix m's row r from lane 16m + r." if m16 else
                  "// a group of four threads loads a row, each thread 4 consecutive columns), row r from lane 8m + r."),
                 "// run: --grid 1 --block 32 --arch sm_100a",
                 "// arg: u32[256] = [" + ", ".join(hex(w) for w in words) + "]",
                 "// arg: u32[32] = [" + ", ".join(str(16 * x) for x in perm) + "]",
                 f"// arg: zeros:u32:{32 * nreg}"]
        for i in range(0, len(out), 16):
            lines.append(f"// expect arg2[{i}..{i + 16}]: u32 [" + ", ".join(hex(v) for v in out[i:i + 16]) + "]")
        lines += [".version 8.6", ".target sm_100a", ".address_size 64", "",
                  ".visible .entry k(.param .u64 pin, .param .u64 pslots, .param .u64 pout)", "{",
                  "\t.reg .b32 %r<16>;", "\t.reg .b32 %v<8>;", "\t.reg .b64 %rd<16>;",
                  "\t.shared .align 16 .b8 m[1024];",
                  "\tmov.u32 %r1, %tid.x;", "\tmov.u32 %r2, m;",
                  "\tld.param.u64 %rd1, [pslots];", "\tmul.wide.u32 %rd2, %r1, 4;",
                  "\tadd.u64 %rd3, %rd1, %rd2;", "\tld.global.u32 %r3, [%rd3];",
                  "\tadd.u32 %r4, %r2, %r3;",
                  "\tld.param.u64 %rd4, [pin];", "\tld.param.u64 %rd5, [pout];",
                  "\tmul.wide.u32 %rd6, %r1, 32;", "\tadd.u64 %rd7, %rd4, %rd6;",
                  "\tshl.b32 %r5, %r1, 5;", "\tadd.u32 %r6, %r2, %r5;"]
        for w in range(8):
            lines += [f"\tld.global.u32 %r7, [%rd7+{4 * w}];", f"\tst.shared.u32 [%r6+{4 * w}], %r7;"]
        lines.append("\tbar.sync 0;")
        vec = "{" + ", ".join(f"%v{j}" for j in range(nreg)) + "}"
        if ss:
            lines.append(f"\t{op} {vec}, [%r4];")
        else:  # generic addressing: the slot's generic address
            lines += ["\tmov.u64 %rd10, m;", "\tcvta.shared.u64 %rd11, %rd10;",
                      "\tcvt.u64.u32 %rd12, %r3;", "\tadd.u64 %rd13, %rd11, %rd12;",
                      f"\t{op} {vec}, [%rd13];"]
        lines += [f"\tmul.wide.u32 %rd8, %r1, {4 * nreg};", "\tadd.u64 %rd9, %rd5, %rd8;"]
        for j in range(nreg):
            lines.append(f"\tst.global.u32 [%rd9+{4 * j}], %v{j};")
        lines += ["\tret;", "}"]
        with open(os.path.join(outdir, name + ".ptx"), "w") as f:
            f.write("\n".join(lines) + "\n")
    print(f"{len(LDMX_DECOMP_TESTS)} decompressing ldmatrix run tests -> {outdir}")


# Block-scaled unit-level vectors: NAME KIND A B STYPE NSCALES, then the hex outputs. Inputs
# regenerated by crates/ptxvm-fp/tests/tensor_ref.rs from the same SplitMix64 stream: per
# vector mode = next % 4, center = next; the K codes of A then of B (raw random bits of the
# element width: every NaN/inf/subnormal pattern), then the scale bytes of A then of B (mode 0:
# any byte, NaN included; else ue8m0 127 + next % 17 - 8, ue4m3 next & 0x7f), then C =
# gen_bits("f32", next, mode, center).
BSCALE_ROWS = [
    ("bs_mx8_e4m3_e4m3", "mx8", "e4m3", "e4m3", "ue8m0", 1),
    ("bs_mx8_e5m2_e2m1", "mx8", "e5m2", "e2m1", "ue8m0", 1),
    ("bs_mx8_e3m2_e2m3", "mx8", "e3m2", "e2m3", "ue8m0", 1),
    ("bs_mxf4_2x_ue8m0", "mxf4", "e2m1", "e2m1", "ue8m0", 2),
    ("bs_mxf4_4x_ue4m3", "mxf4", "e2m1", "e2m1", "ue4m3", 4),
    ("bs_mxf4_4x_ue8m0", "mxf4", "e2m1", "e2m1", "ue8m0", 4),
]


def cmd_bscale_vectors(path):
    lines = ["# Expected D bits of tools/tc_ref.py's block-scale model (see BSCALE_ROWS there).",
             "# row: NAME KIND A B STYPE NSCALES, then the hex outputs, 8 per line."]
    for row in BSCALE_ROWS:
        name, kind, at, bt, st, nv = row
        k = 64 if kind == "mxf4" else 32
        rng = SplitMix64(seed_of(name))
        outs = []
        for _ in range(VECTORS):
            mode = rng.next() % 4
            center = rng.next()
            a = [rng.next() & ((1 << width(at)) - 1) for _ in range(k)]
            b = [rng.next() & ((1 << width(bt)) - 1) for _ in range(k)]

            def sc():
                r = rng.next()
                if mode == 0:
                    return r & 0xFF
                return 127 + r % 17 - 8 if st == "ue8m0" else r & 0x7F
            sa = [sc() for _ in range(nv)]
            sb = [sc() for _ in range(nv)]
            c = gen_bits("f32", rng.next(), 0 if mode == 0 else 1, center)
            sas = [scale_decode(st, x) for x in sa]
            sbs = [scale_decode(st, x) for x in sb]
            if kind == "mxf4":
                outs.append(dot_mxf4(a, b, sas, sbs, c))
            else:
                outs.append(dot_mx8(at, bt, a, b, sas[0], sbs[0], c))
        lines.append("row: " + " ".join(str(x) for x in row))
        for i in range(0, len(outs), 8):
            lines.append(" ".join("%08x" % x for x in outs[i:i + 8]))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(BSCALE_ROWS)} block-scale rows x {VECTORS} vectors -> {path}")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "vectors":
        cmd_vectors(sys.argv[2] if len(sys.argv) > 2 else "crates/ptxvm-fp/tests/data/tc_ref.txt")
        cmd_bscale_vectors("crates/ptxvm-fp/tests/data/tc_ref_bscale.txt")
    elif what == "runtests":
        cmd_runtests(sys.argv[2] if len(sys.argv) > 2 else "tests/run/warp")
        cmd_wmmatests(sys.argv[2] if len(sys.argv) > 2 else "tests/run/warp")
        cmd_sptests(sys.argv[2] if len(sys.argv) > 2 else "tests/run/warp")
        cmd_sperrors("tests/run/errors")
        cmd_bscaletests(sys.argv[2] if len(sys.argv) > 2 else "tests/run/warp")
        cmd_spbscaletests(sys.argv[2] if len(sys.argv) > 2 else "tests/run/warp")
        cmd_ldst_b8_tests(sys.argv[2] if len(sys.argv) > 2 else "tests/run/warp")
        cmd_ldmatrix_decomp_tests(sys.argv[2] if len(sys.argv) > 2 else "tests/run/warp")
    else:
        print(__doc__)
        sys.exit(2)
