//! Half precision (§9.7.4): `.f16`, `.f16x2`, `.bf16`, `.bf16x2` arithmetic.
//!
//! Values are raw bits: `u16` for one element, `u32` for a packed pair where element 0 is
//! bits `[15:0]` and element 1 is bits `[31:16]` (§9.7.4 "Semantics": `fA[0] = a[0:15]`).
//! The packed forms apply the scalar operation to each element independently.
//!
//! `add`, `sub`, `mul` and `fma` compute the exact result with integer arithmetic and round
//! it once ([`crate::convert::round_pack`]), so every rounding mode is correctly rounded
//! (PTX only defines `.rn` for these; the other modes are accepted for completeness).
//! Every NaN result is the canonical NaN `0x7fff`. `.ftz` (f16 only) flushes subnormal
//! inputs and subnormal results (after rounding) to sign-preserving zero. `.sat` clamps to
//! `[+0.0, 1.0]` with NaN → `+0.0`; `.relu` maps results with the sign bit set to `+0.0`
//! and NaN to the canonical NaN.

use crate::Rnd;
use crate::convert::{Format, Val, relu_bits, round_pack, sat_bits, unpack};

/// The canonical NaN PTX produces for `.f16` results.
pub const CANONICAL_NAN_F16: u16 = 0x7fff;
/// The canonical NaN produced for `.bf16` results.
pub const CANONICAL_NAN_BF16: u16 = 0x7fff;

/// Modifiers shared by the half-precision arithmetic operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HalfMods {
    /// `.ftz` (`.f16`/`.f16x2` only).
    pub ftz: bool,
    /// `.sat` (`.f16`/`.f16x2` only).
    pub sat: bool,
    /// `.relu` (`fma` only).
    pub relu: bool,
}

/// Modifiers of `min`/`max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MinMaxMods {
    /// `.ftz` (`.f16`/`.f16x2` only).
    pub ftz: bool,
    /// `.NaN`: any NaN input gives the canonical NaN.
    pub nan: bool,
    /// `.xorsign.abs`: compare magnitudes; result sign is the XOR of the input signs.
    pub xorsign_abs: bool,
}

#[inline]
fn lanes(a: u32, b: u32, f: impl Fn(u16, u16) -> u16) -> u32 {
    let lo = f(a as u16, b as u16) as u32;
    let hi = f((a >> 16) as u16, (b >> 16) as u16) as u32;
    (hi << 16) | lo
}

#[inline]
fn lanes3(a: u32, b: u32, c: u32, f: impl Fn(u16, u16, u16) -> u16) -> u32 {
    let lo = f(a as u16, b as u16, c as u16) as u32;
    let hi = f((a >> 16) as u16, (b >> 16) as u16, (c >> 16) as u16) as u32;
    (hi << 16) | lo
}

#[inline]
fn lanes1(a: u32, f: impl Fn(u16) -> u16) -> u32 {
    ((f((a >> 16) as u16) as u32) << 16) | f(a as u16) as u32
}

/// An exact intermediate: zero, infinity, NaN, or `(-1)^neg * (sig + sticky·δ) * 2^exp`.
#[derive(Clone, Copy)]
enum Ex {
    Nan,
    Inf(bool),
    Zero(bool),
    Fin {
        neg: bool,
        sig: u128,
        exp: i32,
        sticky: bool,
    },
}

#[inline]
fn to_ex(v: Val) -> Ex {
    match v {
        Val::Nan => Ex::Nan,
        Val::Inf(n) => Ex::Inf(n),
        Val::Zero(n) => Ex::Zero(n),
        Val::Fin { neg, sig, exp } => Ex::Fin {
            neg,
            sig: sig as u128,
            exp,
            sticky: false,
        },
    }
}

#[inline]
fn ex_mul(a: Ex, b: Ex) -> Ex {
    match (a, b) {
        (Ex::Nan, _) | (_, Ex::Nan) => Ex::Nan,
        (Ex::Inf(_), Ex::Zero(_)) | (Ex::Zero(_), Ex::Inf(_)) => Ex::Nan,
        (Ex::Inf(x), Ex::Inf(y)) => Ex::Inf(x ^ y),
        (Ex::Inf(x), Ex::Fin { neg: y, .. }) | (Ex::Fin { neg: y, .. }, Ex::Inf(x)) => {
            Ex::Inf(x ^ y)
        }
        (Ex::Zero(x), Ex::Zero(y) | Ex::Fin { neg: y, .. })
        | (Ex::Fin { neg: y, .. }, Ex::Zero(x)) => Ex::Zero(x ^ y),
        (
            Ex::Fin {
                neg: n1,
                sig: s1,
                exp: e1,
                ..
            },
            Ex::Fin {
                neg: n2,
                sig: s2,
                exp: e2,
                ..
            },
        ) => Ex::Fin {
            neg: n1 ^ n2,
            sig: s1 * s2,
            exp: e1 + e2,
            sticky: false,
        },
    }
}

/// Exact (up to a sticky bit far below any rounding point) sum. Inputs must have
/// `sig < 2^110` and no sticky.
#[inline]
fn ex_add(a: Ex, b: Ex, rnd: Rnd) -> Ex {
    match (a, b) {
        (Ex::Nan, _) | (_, Ex::Nan) => Ex::Nan,
        (Ex::Inf(x), Ex::Inf(y)) => {
            if x == y {
                Ex::Inf(x)
            } else {
                Ex::Nan
            }
        }
        (Ex::Inf(x), _) | (_, Ex::Inf(x)) => Ex::Inf(x),
        (Ex::Zero(x), Ex::Zero(y)) => Ex::Zero(if rnd == Rnd::Rm { x | y } else { x & y }),
        (Ex::Zero(_), f) | (f, Ex::Zero(_)) => f,
        (
            Ex::Fin {
                neg: an,
                sig: asig,
                exp: aexp,
                ..
            },
            Ex::Fin {
                neg: bn,
                sig: bsig,
                exp: bexp,
                ..
            },
        ) => {
            let la = 128 - asig.leading_zeros() as i32;
            let lb = 128 - bsig.leading_zeros() as i32;
            let (ta, tb) = (aexp + la - 1, bexp + lb - 1);
            // (x) is the operand with the larger leading-bit exponent.
            let (xn, xs, xl, xt, yn, ys, yl, yt) = if ta >= tb {
                (an, asig, la, ta, bn, bsig, lb, tb)
            } else {
                (bn, bsig, lb, tb, an, asig, la, ta)
            };
            // Put both leading bits at bit 125.
            let sx = xs << (126 - xl) as u32;
            let ex = xt - 125;
            let sy = ys << (126 - yl) as u32;
            let d = (xt - yt) as u32;
            let (sy, sticky) = if d >= 127 {
                (0, true)
            } else {
                (sy >> d, sy & ((1u128 << d) - 1) != 0)
            };
            if xn == yn {
                Ex::Fin {
                    neg: xn,
                    sig: sx + sy,
                    exp: ex,
                    sticky,
                }
            } else if sy > sx {
                // Only possible when d == 0 (no sticky).
                Ex::Fin {
                    neg: yn,
                    sig: sy - sx,
                    exp: ex,
                    sticky: false,
                }
            } else {
                let diff = sx - sy;
                if diff == 0 && !sticky {
                    Ex::Zero(rnd == Rnd::Rm)
                } else if sticky {
                    // x - (y + δ) = (diff - 1) + (1 - δ)
                    Ex::Fin {
                        neg: xn,
                        sig: diff - 1,
                        exp: ex,
                        sticky: true,
                    }
                } else {
                    Ex::Fin {
                        neg: xn,
                        sig: diff,
                        exp: ex,
                        sticky: false,
                    }
                }
            }
        }
    }
}

#[inline]
fn ex_round(f: Format, r: Ex, rnd: Rnd) -> u64 {
    match r {
        Ex::Nan => f.canonical_nan(),
        Ex::Inf(n) => {
            (((1u64 << f.exp_bits) - 1) << f.man_bits) | if n { 1u64 << (f.width() - 1) } else { 0 }
        }
        Ex::Zero(n) => {
            if n {
                1u64 << (f.width() - 1)
            } else {
                0
            }
        }
        Ex::Fin {
            neg,
            sig,
            exp,
            sticky,
        } => round_pack(f, neg, sig, exp, sticky, rnd, false),
    }
}

#[inline]
fn input(f: Format, bits: u16, ftz: bool) -> Ex {
    let b = if ftz {
        f.flush(bits as u64)
    } else {
        bits as u64
    };
    to_ex(unpack(f, b))
}

#[inline]
fn finish(f: Format, r: u64, m: HalfMods) -> u16 {
    let mut r = r;
    if m.ftz {
        r = f.flush(r);
    }
    if m.relu {
        r = relu_bits(f, r);
    }
    if m.sat {
        r = sat_bits(f, r);
    }
    r as u16
}

/// Generic exact `a * b + c` (with `mul_only`/`add_only` shortcuts) in format `f`.
#[inline]
fn op3(f: Format, a: u16, b: u16, c: Option<u16>, rnd: Rnd, m: HalfMods) -> u16 {
    let p = ex_mul(input(f, a, m.ftz), input(f, b, m.ftz));
    let r = match c {
        Some(c) => ex_add(p, input(f, c, m.ftz), rnd),
        None => p,
    };
    finish(f, ex_round(f, r, rnd), m)
}

#[inline]
fn op_add(f: Format, a: u16, b: u16, rnd: Rnd, m: HalfMods) -> u16 {
    let r = ex_add(input(f, a, m.ftz), input(f, b, m.ftz), rnd);
    finish(f, ex_round(f, r, rnd), m)
}

#[inline]
fn neg_bits(f: Format, b: u16) -> u16 {
    b ^ (1u16 << (f.width() - 1))
}

// ----- add / sub / mul / fma ---------------------------------------------------------------

/// `add{.rnd}{.ftz}{.sat}.f16 d, a, b` (`.rnd` = `.rn`).
#[inline]
pub fn add_f16(a: u16, b: u16, rnd: Rnd, ftz: bool, sat: bool) -> u16 {
    op_add(
        Format::F16,
        a,
        b,
        rnd,
        HalfMods {
            ftz,
            sat,
            relu: false,
        },
    )
}
/// `sub{.rnd}{.ftz}{.sat}.f16 d, a, b`: `a + (-b)` (exactly `a - b`).
#[inline]
pub fn sub_f16(a: u16, b: u16, rnd: Rnd, ftz: bool, sat: bool) -> u16 {
    op_add(
        Format::F16,
        a,
        neg_bits(Format::F16, b),
        rnd,
        HalfMods {
            ftz,
            sat,
            relu: false,
        },
    )
}
/// `mul{.rnd}{.ftz}{.sat}.f16 d, a, b`.
#[inline]
pub fn mul_f16(a: u16, b: u16, rnd: Rnd, ftz: bool, sat: bool) -> u16 {
    op3(
        Format::F16,
        a,
        b,
        None,
        rnd,
        HalfMods {
            ftz,
            sat,
            relu: false,
        },
    )
}
/// `fma.rnd{.ftz}{.sat}.f16 d, a, b, c` and `fma.rnd{.ftz}.relu.f16` (single rounding).
#[inline]
pub fn fma_f16(a: u16, b: u16, c: u16, rnd: Rnd, m: HalfMods) -> u16 {
    op3(Format::F16, a, b, Some(c), rnd, m)
}
/// `add{.rnd}.bf16 d, a, b` (subnormals supported, no `.ftz`/`.sat`).
#[inline]
pub fn add_bf16(a: u16, b: u16, rnd: Rnd) -> u16 {
    op_add(Format::BF16, a, b, rnd, HalfMods::default())
}
/// `sub{.rnd}.bf16 d, a, b`.
#[inline]
pub fn sub_bf16(a: u16, b: u16, rnd: Rnd) -> u16 {
    op_add(
        Format::BF16,
        a,
        neg_bits(Format::BF16, b),
        rnd,
        HalfMods::default(),
    )
}
/// `mul{.rnd}.bf16 d, a, b`.
#[inline]
pub fn mul_bf16(a: u16, b: u16, rnd: Rnd) -> u16 {
    op3(Format::BF16, a, b, None, rnd, HalfMods::default())
}
/// `fma.rnd{.relu}.bf16 d, a, b, c`.
#[inline]
pub fn fma_bf16(a: u16, b: u16, c: u16, rnd: Rnd, relu: bool) -> u16 {
    op3(
        Format::BF16,
        a,
        b,
        Some(c),
        rnd,
        HalfMods {
            relu,
            ..HalfMods::default()
        },
    )
}

/// The out-of-bounds NaN that `.oob` tests for (assumed to be the canonical 16-bit NaN
/// `0x7fff`; see docs/numerics-half-convert.md).
pub const OOB_NAN_16: u16 = 0x7fff;

/// `fma.rn.oob{.relu}.f16 d, a, b, c`: `+0.0` if any operand is the OOB NaN, else `fma`.
#[inline]
pub fn fma_oob_f16(a: u16, b: u16, c: u16, relu: bool) -> u16 {
    if a == OOB_NAN_16 || b == OOB_NAN_16 || c == OOB_NAN_16 {
        0
    } else {
        fma_f16(
            a,
            b,
            c,
            Rnd::Rn,
            HalfMods {
                relu,
                ..HalfMods::default()
            },
        )
    }
}
/// `fma.rn.oob{.relu}.bf16 d, a, b, c`.
#[inline]
pub fn fma_oob_bf16(a: u16, b: u16, c: u16, relu: bool) -> u16 {
    if a == OOB_NAN_16 || b == OOB_NAN_16 || c == OOB_NAN_16 {
        0
    } else {
        fma_bf16(a, b, c, Rnd::Rn, relu)
    }
}

/// `add{.rnd}{.ftz}{.sat}.f16x2 d, a, b`.
#[inline]
pub fn add_f16x2(a: u32, b: u32, rnd: Rnd, ftz: bool, sat: bool) -> u32 {
    lanes(a, b, |x, y| add_f16(x, y, rnd, ftz, sat))
}
/// `sub{.rnd}{.ftz}{.sat}.f16x2 d, a, b`.
#[inline]
pub fn sub_f16x2(a: u32, b: u32, rnd: Rnd, ftz: bool, sat: bool) -> u32 {
    lanes(a, b, |x, y| sub_f16(x, y, rnd, ftz, sat))
}
/// `mul{.rnd}{.ftz}{.sat}.f16x2 d, a, b`.
#[inline]
pub fn mul_f16x2(a: u32, b: u32, rnd: Rnd, ftz: bool, sat: bool) -> u32 {
    lanes(a, b, |x, y| mul_f16(x, y, rnd, ftz, sat))
}
/// `fma.rnd{.ftz}{.sat|.relu}.f16x2 d, a, b, c`.
#[inline]
pub fn fma_f16x2(a: u32, b: u32, c: u32, rnd: Rnd, m: HalfMods) -> u32 {
    lanes3(a, b, c, |x, y, z| fma_f16(x, y, z, rnd, m))
}
/// `fma.rn.oob{.relu}.f16x2 d, a, b, c` (the OOB test is per element).
#[inline]
pub fn fma_oob_f16x2(a: u32, b: u32, c: u32, relu: bool) -> u32 {
    lanes3(a, b, c, |x, y, z| fma_oob_f16(x, y, z, relu))
}
/// `add{.rnd}.bf16x2 d, a, b`.
#[inline]
pub fn add_bf16x2(a: u32, b: u32, rnd: Rnd) -> u32 {
    lanes(a, b, |x, y| add_bf16(x, y, rnd))
}
/// `sub{.rnd}.bf16x2 d, a, b`.
#[inline]
pub fn sub_bf16x2(a: u32, b: u32, rnd: Rnd) -> u32 {
    lanes(a, b, |x, y| sub_bf16(x, y, rnd))
}
/// `mul{.rnd}.bf16x2 d, a, b`.
#[inline]
pub fn mul_bf16x2(a: u32, b: u32, rnd: Rnd) -> u32 {
    lanes(a, b, |x, y| mul_bf16(x, y, rnd))
}
/// `fma.rnd{.relu}.bf16x2 d, a, b, c`.
#[inline]
pub fn fma_bf16x2(a: u32, b: u32, c: u32, rnd: Rnd, relu: bool) -> u32 {
    lanes3(a, b, c, |x, y, z| fma_bf16(x, y, z, rnd, relu))
}
/// `fma.rn.oob{.relu}.bf16x2 d, a, b, c`.
#[inline]
pub fn fma_oob_bf16x2(a: u32, b: u32, c: u32, relu: bool) -> u32 {
    lanes3(a, b, c, |x, y, z| fma_oob_bf16(x, y, z, relu))
}

// ----- neg / abs ----------------------------------------------------------------------------

/// `neg{.ftz}.f16 d, a`: flips the sign bit (NaN payloads preserved; `.ftz` flushes a
/// subnormal input to zero first).
#[inline]
pub fn neg_f16(a: u16, ftz: bool) -> u16 {
    let a = if ftz {
        Format::F16.flush(a as u64) as u16
    } else {
        a
    };
    a ^ 0x8000
}
/// `abs{.ftz}.f16 d, a`: clears the sign bit.
#[inline]
pub fn abs_f16(a: u16, ftz: bool) -> u16 {
    let a = if ftz {
        Format::F16.flush(a as u64) as u16
    } else {
        a
    };
    a & 0x7fff
}
/// `neg.bf16 d, a`.
#[inline]
pub fn neg_bf16(a: u16) -> u16 {
    a ^ 0x8000
}
/// `abs.bf16 d, a`.
#[inline]
pub fn abs_bf16(a: u16) -> u16 {
    a & 0x7fff
}
/// `neg{.ftz}.f16x2 d, a`.
#[inline]
pub fn neg_f16x2(a: u32, ftz: bool) -> u32 {
    lanes1(a, |x| neg_f16(x, ftz))
}
/// `abs{.ftz}.f16x2 d, a`.
#[inline]
pub fn abs_f16x2(a: u32, ftz: bool) -> u32 {
    lanes1(a, |x| abs_f16(x, ftz))
}
/// `neg.bf16x2 d, a`.
#[inline]
pub fn neg_bf16x2(a: u32) -> u32 {
    a ^ 0x8000_8000
}
/// `abs.bf16x2 d, a`.
#[inline]
pub fn abs_bf16x2(a: u32) -> u32 {
    a & 0x7fff_7fff
}

// ----- min / max ----------------------------------------------------------------------------

/// Total order key for non-NaN encodings: `-0 < +0`.
#[inline]
fn key(f: Format, b: u16) -> i32 {
    let s = 1u16 << (f.width() - 1);
    if b & s != 0 {
        -((b & !s) as i32) - 1
    } else {
        b as i32
    }
}

#[inline]
fn minmax(f: Format, a: u16, b: u16, is_max: bool, m: MinMaxMods) -> u16 {
    let s = 1u16 << (f.width() - 1);
    let (mut a, mut b) = (a, b);
    if m.ftz {
        a = f.flush(a as u64) as u16;
        b = f.flush(b as u64) as u16;
    }
    let xs = (a ^ b) & s;
    if m.xorsign_abs {
        a &= !s;
        b &= !s;
    }
    let (an, bn) = (f.is_nan(a as u64), f.is_nan(b as u64));
    if (an && bn) || (m.nan && (an || bn)) {
        return f.canonical_nan() as u16;
    }
    let d = if an {
        b
    } else if bn {
        a
    } else {
        let (ka, kb) = (key(f, a), key(f, b));
        if is_max == (ka > kb) { a } else { b }
    };
    let d = if m.xorsign_abs { (d & !s) | xs } else { d };
    if m.ftz { f.flush(d as u64) as u16 } else { d }
}

/// `min{.ftz}{.NaN}{.xorsign.abs}.f16 d, a, b`: one NaN input → the other input; two NaN
/// inputs (or any NaN with `.NaN`) → `0x7fff`; `-0 < +0`.
#[inline]
pub fn min_f16(a: u16, b: u16, m: MinMaxMods) -> u16 {
    minmax(Format::F16, a, b, false, m)
}
/// `max{.ftz}{.NaN}{.xorsign.abs}.f16 d, a, b`.
#[inline]
pub fn max_f16(a: u16, b: u16, m: MinMaxMods) -> u16 {
    minmax(Format::F16, a, b, true, m)
}
/// `min{.NaN}{.xorsign.abs}.bf16 d, a, b` (`m.ftz` must be false for PTX forms).
#[inline]
pub fn min_bf16(a: u16, b: u16, m: MinMaxMods) -> u16 {
    minmax(Format::BF16, a, b, false, m)
}
/// `max{.NaN}{.xorsign.abs}.bf16 d, a, b`.
#[inline]
pub fn max_bf16(a: u16, b: u16, m: MinMaxMods) -> u16 {
    minmax(Format::BF16, a, b, true, m)
}
/// `min{.ftz}{.NaN}{.xorsign.abs}.f16x2 d, a, b`.
#[inline]
pub fn min_f16x2(a: u32, b: u32, m: MinMaxMods) -> u32 {
    lanes(a, b, |x, y| min_f16(x, y, m))
}
/// `max{.ftz}{.NaN}{.xorsign.abs}.f16x2 d, a, b`.
#[inline]
pub fn max_f16x2(a: u32, b: u32, m: MinMaxMods) -> u32 {
    lanes(a, b, |x, y| max_f16(x, y, m))
}
/// `min{.NaN}{.xorsign.abs}.bf16x2 d, a, b`.
#[inline]
pub fn min_bf16x2(a: u32, b: u32, m: MinMaxMods) -> u32 {
    lanes(a, b, |x, y| min_bf16(x, y, m))
}
/// `max{.NaN}{.xorsign.abs}.bf16x2 d, a, b`.
#[inline]
pub fn max_bf16x2(a: u32, b: u32, m: MinMaxMods) -> u32 {
    lanes(a, b, |x, y| max_bf16(x, y, m))
}

// ----- ex2 / tanh ---------------------------------------------------------------------------

#[inline]
fn from_f64(f: Format, x: f64) -> u16 {
    match unpack(Format::F64, x.to_bits()) {
        Val::Nan => f.canonical_nan() as u16,
        Val::Inf(n) => {
            (((1u64 << f.exp_bits) - 1) << f.man_bits | if n { 1u64 << (f.width() - 1) } else { 0 })
                as u16
        }
        Val::Zero(n) => {
            if n {
                1u16 << (f.width() - 1)
            } else {
                0
            }
        }
        Val::Fin { neg, sig, exp } => {
            round_pack(f, neg, sig as u128, exp, false, Rnd::Rn, false) as u16
        }
    }
}

#[inline]
fn to_f64(f: Format, b: u16) -> f64 {
    f64::from_bits(crate::convert::cvt_float_to_float(
        b as u64,
        if f == Format::F16 {
            crate::convert::FloatType::F16
        } else {
            crate::convert::FloatType::BF16
        },
        crate::convert::FloatType::F64,
        Rnd::Rn,
        Default::default(),
    ))
}

#[inline]
fn ex2_fmt(f: Format, a: u16, ftz: bool) -> u16 {
    let a = if ftz { f.flush(a as u64) as u16 } else { a };
    let r = from_f64(f, to_f64(f, a).exp2());
    if ftz { f.flush(r as u64) as u16 } else { r }
}

#[inline]
fn tanh_fmt(f: Format, a: u16) -> u16 {
    from_f64(f, to_f64(f, a).tanh())
}

/// `ex2.approx.f16 d, a`: `2^a`, correctly rounded (`.rn`) from a double-precision
/// evaluation (error ≤ 0.5 ulp, far inside the spec bound). Subnormals supported;
/// `-inf → +0`, `+inf → +inf`, NaN → `0x7fff`.
#[inline]
pub fn ex2_f16(a: u16) -> u16 {
    ex2_fmt(Format::F16, a, false)
}
/// `ex2.approx.ftz.bf16 d, a`: as [`ex2_f16`]; `ftz` flushes subnormal inputs and results.
#[inline]
pub fn ex2_bf16(a: u16, ftz: bool) -> u16 {
    ex2_fmt(Format::BF16, a, ftz)
}
/// `ex2.approx.f16x2 d, a`.
#[inline]
pub fn ex2_f16x2(a: u32) -> u32 {
    lanes1(a, ex2_f16)
}
/// `ex2.approx.ftz.bf16x2 d, a`.
#[inline]
pub fn ex2_bf16x2(a: u32, ftz: bool) -> u32 {
    lanes1(a, |x| ex2_bf16(x, ftz))
}
/// `tanh.approx.f16 d, a`: correctly rounded `tanh(a)` (±inf → ±1, ±0 → ±0, subnormal →
/// itself, NaN → `0x7fff`).
#[inline]
pub fn tanh_f16(a: u16) -> u16 {
    tanh_fmt(Format::F16, a)
}
/// `tanh.approx.bf16 d, a`.
#[inline]
pub fn tanh_bf16(a: u16) -> u16 {
    tanh_fmt(Format::BF16, a)
}
/// `tanh.approx.f16x2 d, a`.
#[inline]
pub fn tanh_f16x2(a: u32) -> u32 {
    lanes1(a, tanh_f16)
}
/// `tanh.approx.bf16x2 d, a`.
#[inline]
pub fn tanh_bf16x2(a: u32) -> u32 {
    lanes1(a, tanh_bf16)
}
