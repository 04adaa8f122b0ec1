#!/usr/bin/env python3
"""Independent reference for `cvt.rs{.relu}.satfinite.{e4m3x4,e5m2x4,e2m3x4,e3m2x4,e2m1x4}.f32`
(stochastic rounding of four f32 values with random bits) and generator of
`tests/run/float/cvt_rs_x4.ptx`.

The reference does not manipulate encodings: it lists every code of the format with its exact
value (`fractions.Fraction`, from the format definitions in the PTX ISA "Alternate
floating-point data formats"), brackets |x| between the two neighbouring representable
magnitudes lo <= |x| < hi, and rounds up when floor(frac * 2^n) + r >= 2^n, where
frac = (|x| - lo) / (hi - lo) and r the value's n random bits (the manual's rule for `.rs`:
the random bits are added to the discarded bits and the sum truncated). `.satfinite` gives
+-MAX for infinities and magnitudes at or beyond MAX; NaN gives 0x7f for e4m3/e5m2 and +MAX for
the formats without NaN (ptxvm's documented choice for `.rn`); `.relu` makes a negative result
+0; otherwise the sign bit is kept (-0 too).

Random bits (docs/numerics-half-convert.md): the 8- and 6-bit formats take 16 bits each: a the
upper half of rbits bit-reversed, b the upper half, e the lower half bit-reversed, f the lower
half (the manual assigns the upper half to a, b and the lower to e, f; the reversal is as
measured on sm_100a); e2m1 takes 8 bits each: a rbits[31:24], b [15:8], e [23:16], f [7:0].

Run: /work/venv/torch/bin/python tools/cvt_rs_ref.py  (rewrites the test file).
"""
from fractions import Fraction
import math
import os
import struct

import numpy as np

# name: (exponent bits, mantissa bits, bias, kind) kind: 'nan' (e4m3: only S.1111.111 is NaN),
# 'ieee' (e5m2: exponent all ones is inf/NaN), 'finite' (no specials)
FORMATS = {
    "e4m3x4": (4, 3, 7, "nan"),
    "e5m2x4": (5, 2, 15, "ieee"),
    "e2m3x4": (2, 3, 1, "finite"),
    "e3m2x4": (3, 2, 3, "finite"),
    "e2m1x4": (2, 1, 1, "finite"),
}


def magnitudes(name):
    """Sorted (value, code) of every finite non-negative code."""
    eb, mb, bias, kind = FORMATS[name]
    out = []
    for code in range(1 << (eb + mb)):
        e, m = code >> mb, code & ((1 << mb) - 1)
        if kind == "ieee" and e == (1 << eb) - 1:
            continue
        if kind == "nan" and code == (1 << (eb + mb)) - 1:
            continue
        if e == 0:
            v = Fraction(m, 1 << mb) * Fraction(2) ** (1 - bias)
        else:
            v = (1 + Fraction(m, 1 << mb)) * Fraction(2) ** (e - bias)
        out.append((v, code))
    out.sort()
    return out


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def convert(name, xbits, r, n, relu):
    eb, mb, _, kind = FORMATS[name]
    sign = 1 << (eb + mb)
    mags = magnitudes(name)
    maxv, maxc = mags[-1]
    x = f32(xbits)
    if math.isnan(x):
        return 0x7F if kind in ("nan", "ieee") else maxc
    neg = (xbits >> 31) == 1
    if math.isinf(x):
        code = maxc
    else:
        ax = abs(Fraction(x))
        if ax >= maxv:
            code = maxc
        else:
            i = max(k for k, (v, _) in enumerate(mags) if v <= ax)
            lo, c = mags[i]
            hi, c_up = mags[i + 1]
            q = math.floor((ax - lo) / (hi - lo) * (1 << n))
            code = c_up if q + (r & ((1 << n) - 1)) >= (1 << n) else c
    if neg:
        return 0 if relu else code | sign
    return code


def rev16(v):
    return int(f"{v & 0xffff:016b}"[::-1], 2)


def cvt_x4(name, vals, rbits, relu):
    if name == "e2m1x4":
        rs, n, slot = [rbits >> 24, (rbits >> 8) & 0xFF, (rbits >> 16) & 0xFF, rbits & 0xFF], 8, 4
    else:
        hi, lo = rbits >> 16, rbits & 0xFFFF
        rs, n, slot = [rev16(hi), hi, rev16(lo), lo], 16, 8
    d = 0
    for v, r in zip(vals, rs):
        d = (d << slot) | convert(name, v, r, n, relu)
    return d


def fbits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def cases():
    """(four f32 bit patterns, rbits, comment)."""
    out = [
        # exact values: no rounding whatever the bits
        ([fbits(1.0), fbits(-2.0), fbits(0.5), fbits(0.0)], 0xFFFFFFFF, "exact values"),
        # halfway between neighbours of every format, with random bits just below/at the carry
        ([fbits(1.0625), fbits(1.0625), fbits(1.0625), fbits(1.0625)], 0x00017FFF, "1.0625, rbits 0x0001_7fff"),
        ([fbits(1.0625), fbits(1.0625), fbits(1.0625), fbits(1.0625)], 0x80018000, "1.0625, rbits 0x8001_8000"),
        ([fbits(1.3), fbits(-1.3), fbits(2.7), fbits(-2.7)], 0x12345678, "mixed signs"),
        # saturation, infinities, NaN, signed zero
        ([fbits(1e6), fbits(-1e6), 0x7F800000, 0xFF800000], 0xFFFFFFFF, "overflow and infinities"),
        ([0x7FC00000, 0xFFC00001, 0x80000000, 0x00000000], 0xFFFFFFFF, "NaN and zeros"),
        # near the largest finite values: a carry never passes MAX
        ([fbits(447.9), fbits(57000.0), fbits(7.4), fbits(27.9)], 0xFFFFFFFF, "just below MAX of e4m3/e5m2/e2m3/e3m2"),
        # subnormal results
        ([fbits(2.0 ** -8), fbits(2.0 ** -15), fbits(0.1), fbits(0.3)], 0xA5A5C3C3, "subnormal range"),
        ([fbits(-2.0 ** -8), fbits(-(2.0 ** -17)), fbits(-0.01), fbits(-0.2)], 0x0F0FF0F0, "tiny negatives"),
    ]
    rng = np.random.default_rng(0x5EED)
    for k in range(7):
        mags = rng.uniform(-6.0, 6.0, 4) * (2.0 ** rng.integers(-3, 4, 4))
        vals = [fbits(float(np.float32(v))) for v in mags]
        out.append((vals, int(rng.integers(0, 1 << 32)), f"random {k}"))
    return out


KINDS = [(n, relu) for n in FORMATS for relu in (False, True)]


def main():
    cs = cases()
    lines = []
    expect = []
    for vals, r, what in cs:
        for name, relu in KINDS:
            expect.append(cvt_x4(name, vals, r, relu))
    hdr = [
        "// Generated by tools/cvt_rs_ref.py (do not edit): cvt.rs{.relu}.satfinite.{e4m3x4,e5m2x4,",
        "// e2m3x4,e3m2x4,e2m1x4}.f32 d, {a, b, e, f}, rbits, with the expected codes from the Python",
        "// reference (exact values of every code, bracketing, floor(frac * 2^n) + r carry).",
        "// Thread i converts in[4i..4i+4] with rbits rb[i] in every format, plain and .relu:",
        "// out[10i + 2k + relu], k over e4m3x4 e5m2x4 e2m3x4 e3m2x4 e2m1x4.",
    ]
    for i, (vals, r, what) in enumerate(cs):
        hdr.append(f"// case {i}: {what}: {[hex(v) for v in vals]} rbits {r:#010x}")
    hdr.append(f"// run: --grid 1 --block {len(cs)} --arch sm_100a")
    flat = [v for vals, _, _ in cs for v in vals]
    hdr.append("// arg: u32[%d] = [%s]" % (len(flat), ", ".join(hex(v) for v in flat)))
    hdr.append("// arg: u32[%d] = [%s]" % (len(cs), ", ".join(hex(r) for _, r, _ in cs)))
    hdr.append(f"// arg: zeros:u32:{len(expect)}")
    hdr.append("// expect arg2: [%s]" % ", ".join(hex(v) for v in expect))
    body = """.version 8.7
.target sm_100a
.address_size 64

.visible .entry k(.param .u64 pin, .param .u64 prb, .param .u64 pout)
{
	.reg .b32 %t, %r, %d<10>;
	.reg .f32 %f<4>;
	.reg .b16 %h<2>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd0, [pin];
	ld.param.u64 %rd1, [prb];
	ld.param.u64 %rd2, [pout];
	mov.u32 %t, %tid.x;
	mul.wide.u32 %rd3, %t, 16;
	add.s64 %rd3, %rd0, %rd3;
	ld.global.v4.f32 {%f0, %f1, %f2, %f3}, [%rd3];
	mul.wide.u32 %rd4, %t, 4;
	add.s64 %rd4, %rd1, %rd4;
	ld.global.b32 %r, [%rd4];
	cvt.rs.satfinite.e4m3x4.f32 %d0, {%f0, %f1, %f2, %f3}, %r;
	cvt.rs.relu.satfinite.e4m3x4.f32 %d1, {%f0, %f1, %f2, %f3}, %r;
	cvt.rs.satfinite.e5m2x4.f32 %d2, {%f0, %f1, %f2, %f3}, %r;
	cvt.rs.relu.satfinite.e5m2x4.f32 %d3, {%f0, %f1, %f2, %f3}, %r;
	cvt.rs.satfinite.e2m3x4.f32 %d4, {%f0, %f1, %f2, %f3}, %r;
	cvt.rs.relu.satfinite.e2m3x4.f32 %d5, {%f0, %f1, %f2, %f3}, %r;
	cvt.rs.satfinite.e3m2x4.f32 %d6, {%f0, %f1, %f2, %f3}, %r;
	cvt.rs.relu.satfinite.e3m2x4.f32 %d7, {%f0, %f1, %f2, %f3}, %r;
	cvt.rs.satfinite.e2m1x4.f32 %h0, {%f0, %f1, %f2, %f3}, %r;
	cvt.rs.relu.satfinite.e2m1x4.f32 %h1, {%f0, %f1, %f2, %f3}, %r;
	cvt.u32.u16 %d8, %h0;
	cvt.u32.u16 %d9, %h1;
	mul.wide.u32 %rd5, %t, 40;
	add.s64 %rd5, %rd2, %rd5;
	st.global.b32 [%rd5+0], %d0;
	st.global.b32 [%rd5+4], %d1;
	st.global.b32 [%rd5+8], %d2;
	st.global.b32 [%rd5+12], %d3;
	st.global.b32 [%rd5+16], %d4;
	st.global.b32 [%rd5+20], %d5;
	st.global.b32 [%rd5+24], %d6;
	st.global.b32 [%rd5+28], %d7;
	st.global.b32 [%rd5+32], %d8;
	st.global.b32 [%rd5+36], %d9;
	ret;
}
"""
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "run", "float", "cvt_rs_x4.ptx")
    with open(path, "w") as f:
        f.write("\n".join(hdr) + "\n" + body)
    print(path, len(expect), "values")


if __name__ == "__main__":
    main()
