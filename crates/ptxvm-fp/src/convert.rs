//! `cvt` (§9.7.8.x): every conversion between integer and floating-point types, with
//! rounding, saturation, `.ftz`, `.relu`, `.satfinite`, and the packed narrow formats.
//!
//! Every narrowing conversion goes through one exact routine, [`round_pack`]: the exact input
//! value is written as `(sign, integer significand, binary exponent)` and rounded once to the
//! destination [`Format`] (precision, exponent range, special-value encoding) under a
//! [`Rnd`] mode, with IEEE or saturating (`.satfinite`) overflow. Half-precision arithmetic
//! (`crate::half`) uses the same routine.
//!
//! Conventions (shared with the rest of the crate):
//! * `.f16`, `.bf16` are raw `u16` bits; `.f32`/`.f64` are Rust floats (bits preserved);
//!   packed `x2` results are `u32`/`u16` with the element from `a` in the **upper** half
//!   (the `cvt` layout rule, §cvt "Semantics").
//! * Every NaN a conversion produces is the destination format's canonical NaN
//!   (`0x7fff` for f16/bf16, `0x7fffffff` for f32/tf32, `0x7fff_ffff_ffff_ffff` for f64,
//!   `0x7f` for e4m3/e5m2, `0xff` for ue8m0).
//! * `.sat` on a float destination clamps to `[+0.0, 1.0]`; NaN and negative values
//!   (including `-0.0`) become `+0.0`.
//! * `.relu` turns every result whose sign bit is set (negative values and `-0.0`) into
//!   `+0.0` and NaN into the canonical NaN.
//! * `.ftz` flushes `.f32` subnormal inputs and `.f32` subnormal results (after rounding)
//!   to sign-preserving zero.

use crate::Rnd;

/// Encoding of the non-finite values of a [`Format`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    /// IEEE 754: all-ones exponent is infinity (zero fraction) or NaN.
    Ieee,
    /// No infinity; only the all-ones exponent *and* fraction pattern is NaN (`.e4m3`).
    NanOnly,
    /// Finite values only (`.e2m1`, `.e2m3`, `.e3m2`).
    FiniteOnly,
}

/// A signed binary floating-point storage format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    /// Exponent field width.
    pub exp_bits: u32,
    /// Fraction (stored mantissa) width; precision is `man_bits + 1`.
    pub man_bits: u32,
    /// How infinities and NaNs are encoded.
    pub special: Special,
}

impl Format {
    /// IEEE binary16 (`.f16`).
    pub const F16: Format = Format {
        exp_bits: 5,
        man_bits: 10,
        special: Special::Ieee,
    };
    /// bfloat16 (`.bf16`).
    pub const BF16: Format = Format {
        exp_bits: 8,
        man_bits: 7,
        special: Special::Ieee,
    };
    /// TensorFloat-32 as a value set (1-8-10); stored in a `.b32` container (low 13 bits 0).
    pub const TF32: Format = Format {
        exp_bits: 8,
        man_bits: 10,
        special: Special::Ieee,
    };
    /// IEEE binary32 (`.f32`).
    pub const F32: Format = Format {
        exp_bits: 8,
        man_bits: 23,
        special: Special::Ieee,
    };
    /// IEEE binary64 (`.f64`).
    pub const F64: Format = Format {
        exp_bits: 11,
        man_bits: 52,
        special: Special::Ieee,
    };
    /// `.e4m3` (OCP FP8 E4M3: no infinities, NaN = `S.1111.111`, max 448).
    pub const E4M3: Format = Format {
        exp_bits: 4,
        man_bits: 3,
        special: Special::NanOnly,
    };
    /// `.e5m2` (OCP FP8 E5M2: IEEE-like, max 57344).
    pub const E5M2: Format = Format {
        exp_bits: 5,
        man_bits: 2,
        special: Special::Ieee,
    };
    /// `.e2m1` (FP4: finite only, max 6).
    pub const E2M1: Format = Format {
        exp_bits: 2,
        man_bits: 1,
        special: Special::FiniteOnly,
    };
    /// `.e2m3` (FP6: finite only, max 7.5).
    pub const E2M3: Format = Format {
        exp_bits: 2,
        man_bits: 3,
        special: Special::FiniteOnly,
    };
    /// `.e3m2` (FP6: finite only, max 28).
    pub const E3M2: Format = Format {
        exp_bits: 3,
        man_bits: 2,
        special: Special::FiniteOnly,
    };

    /// Total encoding width in bits (sign + exponent + fraction).
    #[inline]
    pub const fn width(self) -> u32 {
        1 + self.exp_bits + self.man_bits
    }
    /// Exponent bias.
    #[inline]
    pub const fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }
    /// Unbiased exponent of the smallest normal number.
    #[inline]
    pub const fn emin(self) -> i32 {
        1 - self.bias()
    }
    /// Unbiased exponent of the largest finite number.
    #[inline]
    pub const fn emax(self) -> i32 {
        let top = (1 << self.exp_bits) - 1;
        match self.special {
            Special::Ieee => top - 1 - self.bias(),
            _ => top - self.bias(),
        }
    }
    /// Largest significand (with the hidden bit) allowed at exponent `emax`.
    #[inline]
    const fn max_sig(self) -> u128 {
        let all = (1u128 << (self.man_bits + 1)) - 1;
        match self.special {
            Special::NanOnly => all - 1,
            _ => all,
        }
    }
    #[inline]
    const fn sign_bit(self) -> u64 {
        1u64 << (self.exp_bits + self.man_bits)
    }
    /// The canonical NaN encoding (`0` for formats without NaN).
    #[inline]
    pub const fn canonical_nan(self) -> u64 {
        match self.special {
            Special::FiniteOnly => 0,
            _ => self.sign_bit() - 1,
        }
    }
    /// Encoding of the largest finite magnitude with the given sign.
    #[inline]
    pub const fn max_finite(self, neg: bool) -> u64 {
        let e = (self.emax() + self.bias()) as u64;
        let m = (self.max_sig() as u64) & ((1u64 << self.man_bits) - 1);
        (e << self.man_bits) | m | if neg { self.sign_bit() } else { 0 }
    }
    /// Encoding of infinity with the given sign (IEEE formats only).
    #[inline]
    const fn inf(self, neg: bool) -> u64 {
        (((1u64 << self.exp_bits) - 1) << self.man_bits) | if neg { self.sign_bit() } else { 0 }
    }
    #[inline]
    const fn zero(self, neg: bool) -> u64 {
        if neg { self.sign_bit() } else { 0 }
    }
    /// `.f16`/`.f32`/`.f64` value 1.0.
    #[inline]
    const fn one(self) -> u64 {
        (self.bias() as u64) << self.man_bits
    }
    /// True when `bits` is a NaN of this format.
    #[inline]
    pub const fn is_nan(self, bits: u64) -> bool {
        let mag = bits & (self.sign_bit() - 1);
        match self.special {
            Special::Ieee => mag > self.inf(false),
            Special::NanOnly => mag == self.sign_bit() - 1,
            Special::FiniteOnly => false,
        }
    }
    /// True when `bits` is a (nonzero) subnormal of this format.
    #[inline]
    pub const fn is_subnormal(self, bits: u64) -> bool {
        let mag = bits & (self.sign_bit() - 1);
        mag != 0 && mag < (1u64 << self.man_bits)
    }
    /// True when the sign bit of `bits` is set.
    #[inline]
    pub const fn is_neg(self, bits: u64) -> bool {
        bits & self.sign_bit() != 0
    }
    /// Flush a subnormal encoding to the zero of the same sign.
    #[inline]
    pub const fn flush(self, bits: u64) -> u64 {
        if self.is_subnormal(bits) {
            bits & self.sign_bit()
        } else {
            bits
        }
    }
}

/// A decoded floating-point value; finite values are exactly `sig * 2^exp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Val {
    Nan,
    Inf(bool),
    Zero(bool),
    Fin { neg: bool, sig: u64, exp: i32 },
}

/// Decode `bits` of format `f`.
#[inline]
pub(crate) fn unpack(f: Format, bits: u64) -> Val {
    let neg = bits & f.sign_bit() != 0;
    let emask = (1u64 << f.exp_bits) - 1;
    let mmask = (1u64 << f.man_bits) - 1;
    let e = (bits >> f.man_bits) & emask;
    let m = bits & mmask;
    if e == emask {
        match f.special {
            Special::Ieee => return if m == 0 { Val::Inf(neg) } else { Val::Nan },
            Special::NanOnly if m == mmask => return Val::Nan,
            _ => {}
        }
    }
    if e == 0 {
        if m == 0 {
            Val::Zero(neg)
        } else {
            Val::Fin {
                neg,
                sig: m,
                exp: f.emin() - f.man_bits as i32,
            }
        }
    } else {
        Val::Fin {
            neg,
            sig: m | (1u64 << f.man_bits),
            exp: e as i32 - f.bias() - f.man_bits as i32,
        }
    }
}

/// Round the exact value `(-1)^neg * (sig + d) * 2^exp` once to format `f` and encode it,
/// where `d = 0` when `sticky` is false and `0 < d < 1` when it is true (the caller must keep
/// `sig < 2^127` and, when `sticky` is set, make `sig` wide enough that the rounding point
/// lies above bit 0). Overflow follows IEEE 754 for the rounding mode (infinity or the
/// largest finite number), or gives the largest finite number when `satfinite` is set or
/// the format has no infinity (`.e4m3` without `.satfinite` overflows to NaN). A zero
/// significand gives a zero with sign `neg`.
pub fn round_pack(
    f: Format,
    neg: bool,
    sig: u128,
    exp: i32,
    sticky: bool,
    rnd: Rnd,
    satfinite: bool,
) -> u64 {
    let (sig, exp) = if sticky {
        ((sig << 1) | 1, exp - 1)
    } else {
        (sig, exp)
    };
    if sig == 0 {
        return f.zero(neg);
    }
    let p = f.man_bits as i32 + 1;
    let l = 128 - sig.leading_zeros() as i32;
    let top = exp + l - 1;
    let mut q = top.max(f.emin()) - (p - 1);
    let mut kept: u128;
    if q <= exp {
        kept = sig << (exp - q) as u32;
    } else {
        let s = (q - exp) as u32;
        let (k, above_half, at_half, inexact) = if s >= 128 {
            (0, false, false, true)
        } else {
            let rem = sig & ((1u128 << s) - 1);
            let half = 1u128 << (s - 1);
            (sig >> s, rem > half, rem == half, rem != 0)
        };
        kept = k;
        let inc = match rnd {
            Rnd::Rn => above_half || (at_half && kept & 1 == 1),
            Rnd::Rna => above_half || at_half,
            Rnd::Rz => false,
            Rnd::Rp => inexact && !neg,
            Rnd::Rm => inexact && neg,
        };
        kept += inc as u128;
        if kept == 1u128 << p {
            kept >>= 1;
            q += 1;
        }
    }
    if kept == 0 {
        return f.zero(neg);
    }
    let sbit = if neg { f.sign_bit() } else { 0 };
    if kept >> (p - 1) != 0 {
        let e = q + p - 1;
        if e > f.emax() || (e == f.emax() && kept > f.max_sig()) {
            return overflow(f, neg, rnd, satfinite);
        }
        let biased = (e + f.bias()) as u64;
        sbit | (biased << f.man_bits) | (kept as u64 & ((1u64 << f.man_bits) - 1))
    } else {
        sbit | kept as u64
    }
}

#[inline]
fn overflow(f: Format, neg: bool, rnd: Rnd, satfinite: bool) -> u64 {
    let to_max = satfinite
        || f.special == Special::FiniteOnly
        || match rnd {
            Rnd::Rz => true,
            Rnd::Rp => neg,
            Rnd::Rm => !neg,
            Rnd::Rn | Rnd::Rna => false,
        };
    if to_max {
        f.max_finite(neg)
    } else if f.special == Special::Ieee {
        f.inf(neg)
    } else {
        f.canonical_nan()
    }
}

/// Round a finite magnitude `sig * 2^exp` to an integer magnitude under `rnd` (the sign
/// `neg` matters for `.rm`/`.rp`). Returns `None` when the result would not fit in 127 bits.
#[inline]
fn round_int_mag(neg: bool, sig: u64, exp: i32, rnd: Rnd) -> Option<u128> {
    if exp >= 0 {
        let l = 64 - sig.leading_zeros() as i32;
        if l + exp > 127 {
            return None;
        }
        return Some((sig as u128) << exp);
    }
    let s = (-exp) as u32;
    let (kept, rem_gt, rem_eq, inexact) = if s >= 65 {
        (0u128, false, false, sig != 0)
    } else {
        let sig = sig as u128;
        let rem = sig & ((1u128 << s) - 1);
        let half = 1u128 << (s - 1);
        (sig >> s, rem > half, rem == half, rem != 0)
    };
    let inc = match rnd {
        Rnd::Rn => rem_gt || (rem_eq && kept & 1 == 1),
        Rnd::Rna => rem_gt || rem_eq,
        Rnd::Rz => false,
        Rnd::Rp => inexact && !neg,
        Rnd::Rm => inexact && neg,
    };
    Some(kept + inc as u128)
}

/// Convert an exact decoded value to format `f` (no NaN handling).
#[inline]
fn val_to(f: Format, v: Val, rnd: Rnd, satfinite: bool) -> u64 {
    match v {
        Val::Nan => f.canonical_nan(),
        Val::Inf(n) => {
            if satfinite || f.special != Special::Ieee {
                if f.special == Special::NanOnly && !satfinite {
                    f.canonical_nan()
                } else {
                    f.max_finite(n)
                }
            } else {
                f.inf(n)
            }
        }
        Val::Zero(n) => f.zero(n),
        Val::Fin { neg, sig, exp } => round_pack(f, neg, sig as u128, exp, false, rnd, satfinite),
    }
}

/// Apply `.sat` (clamp to `[+0, 1]`, NaN → +0) to an encoding of an IEEE format.
#[inline]
pub(crate) fn sat_bits(f: Format, bits: u64) -> u64 {
    if f.is_nan(bits) || f.is_neg(bits) {
        0
    } else if bits > f.one() {
        f.one()
    } else {
        bits
    }
}

/// Apply `.relu` (negative and `-0` → `+0`, NaN → canonical NaN).
#[inline]
pub(crate) fn relu_bits(f: Format, bits: u64) -> u64 {
    if f.is_nan(bits) {
        f.canonical_nan()
    } else if f.is_neg(bits) {
        0
    } else {
        bits
    }
}

// ---------------------------------------------------------------------------------------
// Types and modifiers
// ---------------------------------------------------------------------------------------

/// A `cvt` integer type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntType {
    /// `.u8`
    U8,
    /// `.u16`
    U16,
    /// `.u32`
    U32,
    /// `.u64`
    U64,
    /// `.s8`
    S8,
    /// `.s16`
    S16,
    /// `.s32`
    S32,
    /// `.s64`
    S64,
}

impl IntType {
    /// Every integer type, unsigned first.
    pub const ALL: [IntType; 8] = [
        IntType::U8,
        IntType::U16,
        IntType::U32,
        IntType::U64,
        IntType::S8,
        IntType::S16,
        IntType::S32,
        IntType::S64,
    ];
    /// Width in bits.
    #[inline]
    pub const fn bits(self) -> u32 {
        match self {
            IntType::U8 | IntType::S8 => 8,
            IntType::U16 | IntType::S16 => 16,
            IntType::U32 | IntType::S32 => 32,
            IntType::U64 | IntType::S64 => 64,
        }
    }
    /// True for the `.s*` types.
    #[inline]
    pub const fn signed(self) -> bool {
        matches!(
            self,
            IntType::S8 | IntType::S16 | IntType::S32 | IntType::S64
        )
    }
    /// Smallest representable value.
    #[inline]
    pub const fn min(self) -> i128 {
        if self.signed() {
            -(1i128 << (self.bits() - 1))
        } else {
            0
        }
    }
    /// Largest representable value.
    #[inline]
    pub const fn max(self) -> i128 {
        if self.signed() {
            (1i128 << (self.bits() - 1)) - 1
        } else {
            (1i128 << self.bits()) - 1
        }
    }
    /// Interpret the low `bits()` bits of `raw` as a value of this type.
    #[inline]
    pub const fn value(self, raw: u64) -> i128 {
        let b = self.bits();
        if self.signed() {
            ((raw << (64 - b)) as i64 >> (64 - b)) as i128
        } else {
            (raw & (u64::MAX >> (64 - b))) as i128
        }
    }
    /// Encode `v` (already in range, or wrapping) as raw bits, zero-extended to 64 bits.
    #[inline]
    pub const fn encode(self, v: i128) -> u64 {
        (v as u64) & (u64::MAX >> (64 - self.bits()))
    }
}

/// A `cvt` floating-point type (source or destination).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FloatType {
    /// `.f16` (raw bits in the low 16 bits).
    F16,
    /// `.bf16` (raw bits in the low 16 bits).
    BF16,
    /// `.f32` (raw bits in the low 32 bits).
    F32,
    /// `.f64`.
    F64,
}

impl FloatType {
    /// Every floating-point type.
    pub const ALL: [FloatType; 4] = [
        FloatType::F16,
        FloatType::BF16,
        FloatType::F32,
        FloatType::F64,
    ];
    /// The storage format.
    #[inline]
    pub const fn format(self) -> Format {
        match self {
            FloatType::F16 => Format::F16,
            FloatType::BF16 => Format::BF16,
            FloatType::F32 => Format::F32,
            FloatType::F64 => Format::F64,
        }
    }
}

/// Optional `cvt` modifiers for floating-point destinations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CvtMods {
    /// `.ftz`: flush `.f32` subnormal inputs and results to sign-preserving zero.
    pub ftz: bool,
    /// `.sat`: clamp to `[0.0, 1.0]`, NaN → `+0.0`.
    pub sat: bool,
    /// `.relu`: negative → `+0.0`, NaN → canonical NaN.
    pub relu: bool,
    /// `.satfinite`: NaN → NaN, magnitudes beyond the largest finite → ±largest finite.
    pub satfinite: bool,
}

// ---------------------------------------------------------------------------------------
// Integer <-> integer
// ---------------------------------------------------------------------------------------

/// `cvt{.sat}.dtype.atype d, a` for integer `dtype`/`atype`: the source value (sign- or
/// zero-extended per `src`) is truncated to `dst`'s width, or clamped to `dst`'s range with
/// `.sat`. Result bits are zero-extended to 64 bits.
#[inline]
pub fn cvt_int_to_int(a: u64, src: IntType, dst: IntType, sat: bool) -> u64 {
    let v = src.value(a);
    let v = if sat {
        v.clamp(dst.min(), dst.max())
    } else {
        v
    };
    dst.encode(v)
}

/// `cvt.pack.sat.{u16,s16}.s32 d, a, b`: `d = sat16(a) << 16 | sat16(b)`.
#[inline]
pub fn cvt_pack_sat_16(a: i32, b: i32, dst_signed: bool) -> u32 {
    let (lo, hi) = if dst_signed {
        (i16::MIN as i32, i16::MAX as i32)
    } else {
        (0, u16::MAX as i32)
    };
    let ta = a.clamp(lo, hi) as u32 & 0xffff;
    let tb = b.clamp(lo, hi) as u32 & 0xffff;
    (ta << 16) | tb
}

/// `cvt.pack.sat.{u2,s2,u4,s4,u8,s8}.s32.b32 d, a, b, c`: `a` and `b` are clamped to the
/// `size`-bit range (`size` ∈ {2, 4, 8}) and packed as `d = c << 2*size | a << size | b`.
#[inline]
pub fn cvt_pack_sat(a: i32, b: i32, c: u32, size: u32, dst_signed: bool) -> u32 {
    debug_assert!(matches!(size, 2 | 4 | 8));
    let (lo, hi) = if dst_signed {
        (-(1i32 << (size - 1)), (1i32 << (size - 1)) - 1)
    } else {
        (0, (1i32 << size) - 1)
    };
    let mask = (1u32 << size) - 1;
    let ta = a.clamp(lo, hi) as u32 & mask;
    let tb = b.clamp(lo, hi) as u32 & mask;
    (c << (2 * size)) | (ta << size) | tb
}

// ---------------------------------------------------------------------------------------
// Float -> integer
// ---------------------------------------------------------------------------------------

/// `cvt.irnd{.ftz}{.sat}.itype.ftype d, a` — float to integer with `.rni .rzi .rmi .rpi`
/// (`irnd` = [`Rnd::Rn`], [`Rnd::Rz`], [`Rnd::Rm`], [`Rnd::Rp`]). Saturates to `dst`'s range
/// (PTX float-to-integer conversions always saturate; `.sat` is redundant). A NaN gives
/// [`nan_to_int`]: 0, or `1 << (bits(dst) - 1)` from an `.f64` or into a 64-bit type. `.ftz`
/// flushes an `.f32` subnormal input to zero first. `a` holds the source bits (low bits).
/// Result bits are zero-extended to 64 bits.
#[inline]
pub fn cvt_float_to_int(a: u64, src: FloatType, dst: IntType, irnd: Rnd, ftz: bool) -> u64 {
    match src {
        FloatType::F32 => cvt_f32_to_int(f32::from_bits(a as u32), dst, irnd, ftz),
        FloatType::F64 => cvt_f64_to_int(f64::from_bits(a), dst, irnd),
        _ => match unpack(src.format(), a) {
            Val::Nan => nan_to_int(false, dst),
            v => dst.encode(val_to_int(v, dst, irnd)),
        },
    }
}

/// What a float-to-integer conversion gives for a NaN (PTX ISA 9.0, `cvt`): zero if the
/// source is not `.f64` and the destination is not `.s64`/`.u64`; otherwise
/// `1 << (bits(dst) - 1)` — `MININT` for a signed destination, `(MAXINT >> 1) + 1` for an
/// unsigned one. (Earlier ISA versions said 0 in every case; the hardware never did.)
#[inline]
pub fn nan_to_int(src_f64: bool, dst: IntType) -> u64 {
    if src_f64 || dst.bits() == 64 {
        1u64 << (dst.bits() - 1)
    } else {
        0
    }
}

#[inline]
fn val_to_int(v: Val, dst: IntType, irnd: Rnd) -> i128 {
    match v {
        // NaN is answered by the caller (`nan_to_int`).
        Val::Nan | Val::Zero(_) => 0,
        Val::Inf(n) => {
            if n {
                dst.min()
            } else {
                dst.max()
            }
        }
        Val::Fin { neg, sig, exp } => match round_int_mag(neg, sig, exp, irnd) {
            None => {
                if neg {
                    dst.min()
                } else {
                    dst.max()
                }
            }
            Some(m) => {
                let m = m as i128;
                (if neg { -m } else { m }).clamp(dst.min(), dst.max())
            }
        },
    }
}

#[inline]
fn round_f64_int(x: f64, irnd: Rnd) -> f64 {
    match irnd {
        Rnd::Rn => x.round_ties_even(),
        Rnd::Rna => x.round(),
        Rnd::Rz => x.trunc(),
        Rnd::Rm => x.floor(),
        Rnd::Rp => x.ceil(),
    }
}

#[inline]
fn round_f32_int(x: f32, irnd: Rnd) -> f32 {
    match irnd {
        Rnd::Rn => x.round_ties_even(),
        Rnd::Rna => x.round(),
        Rnd::Rz => x.trunc(),
        Rnd::Rm => x.floor(),
        Rnd::Rp => x.ceil(),
    }
}

#[inline]
fn sat_float_to_int(r: f64, dst: IntType) -> u64 {
    // `as` saturates, PTX's float-to-int rule (NaN never gets here).
    let v: i128 = if dst.signed() {
        (r as i64) as i128
    } else {
        (r as u64) as i128
    };
    dst.encode(v.clamp(dst.min(), dst.max()))
}

/// `cvt.irnd{.ftz}{.sat}.itype.f32 d, a` (see [`cvt_float_to_int`]).
#[inline]
pub fn cvt_f32_to_int(a: f32, dst: IntType, irnd: Rnd, ftz: bool) -> u64 {
    if a.is_nan() {
        return nan_to_int(false, dst);
    }
    let a = if ftz && a.is_subnormal() { 0.0 } else { a };
    sat_float_to_int(round_f32_int(a, irnd) as f64, dst)
}

/// `cvt.irnd{.sat}.itype.f64 d, a` (see [`cvt_float_to_int`]).
#[inline]
pub fn cvt_f64_to_int(a: f64, dst: IntType, irnd: Rnd) -> u64 {
    if a.is_nan() {
        return nan_to_int(true, dst);
    }
    sat_float_to_int(round_f64_int(a, irnd), dst)
}

// ---------------------------------------------------------------------------------------
// Integer -> float
// ---------------------------------------------------------------------------------------

/// `cvt.frnd{.sat}.ftype.itype d, a` — integer to `.f16 .bf16 .f32 .f64` with `.rn .rz .rm
/// .rp`, correctly rounded (overflow to `.f16`/`.bf16` follows IEEE rules for the mode);
/// `.sat` clamps to `[0, 1]`. Returns the destination bits (low bits of the `u64`).
#[inline]
pub fn cvt_int_to_float(a: u64, src: IntType, dst: FloatType, rnd: Rnd, sat: bool) -> u64 {
    let v = src.value(a);
    let bits = match (dst, rnd) {
        (FloatType::F32, Rnd::Rn) => (v as f32).to_bits() as u64,
        (FloatType::F64, Rnd::Rn) => (v as f64).to_bits(),
        _ => {
            let f = dst.format();
            round_pack(f, v < 0, v.unsigned_abs(), 0, false, rnd, false)
        }
    };
    if sat {
        sat_bits(dst.format(), bits)
    } else {
        bits
    }
}

// ---------------------------------------------------------------------------------------
// Float -> float
// ---------------------------------------------------------------------------------------

/// `cvt{.frnd}{.ftz}{.sat}{.relu}{.satfinite}.ftype.ftype d, a` for `.f16 .bf16 .f32 .f64`
/// in any direction. Narrowing rounds once with `rnd` (`.rn .rz .rm .rp`, and `.rna`);
/// widening is exact and ignores `rnd`. Same-type is the identity (plus `.ftz`/`.sat`).
/// NaN → destination canonical NaN (or `+0` with `.sat`). `.ftz` applies to `.f32`
/// sources and results. `.sat` clamps to `[0, 1]`; `.relu` and `.satfinite` as in the
/// module doc. `a` and the result are raw bits in the low bits of a `u64`.
pub fn cvt_float_to_float(a: u64, src: FloatType, dst: FloatType, rnd: Rnd, m: CvtMods) -> u64 {
    let sf = src.format();
    let df = dst.format();
    let mut a = a;
    if m.ftz && src == FloatType::F32 {
        a = sf.flush(a);
    }
    let mut r = match (src, dst, rnd) {
        (FloatType::F32, FloatType::F64, _) => {
            let x = f32::from_bits(a as u32);
            if x.is_nan() {
                df.canonical_nan()
            } else {
                (x as f64).to_bits()
            }
        }
        (FloatType::F64, FloatType::F32, Rnd::Rn) if !m.satfinite => {
            let x = f64::from_bits(a);
            if x.is_nan() {
                df.canonical_nan()
            } else {
                (x as f32).to_bits() as u64
            }
        }
        _ if src == dst => {
            if sf.is_nan(a) {
                sf.canonical_nan()
            } else {
                a
            }
        }
        _ => val_to(df, unpack(sf, a), rnd, m.satfinite),
    };
    if m.ftz && dst == FloatType::F32 {
        r = df.flush(r);
    }
    if m.relu {
        r = relu_bits(df, r);
    }
    if m.sat {
        r = sat_bits(df, r);
    }
    r
}

/// `cvt.irnd{.ftz}{.sat}.ftype.ftype d, a` — round to an integral value in the same format
/// (`.rni .rzi .rmi .rpi`); the sign of zero results is kept. NaN → canonical NaN.
pub fn cvt_float_round_int(a: u64, ty: FloatType, irnd: Rnd, ftz: bool, sat: bool) -> u64 {
    let f = ty.format();
    let mut r = match ty {
        FloatType::F32 => {
            let mut x = f32::from_bits(a as u32);
            if ftz && x.is_subnormal() {
                x = 0.0 * x.signum();
            }
            if x.is_nan() {
                f.canonical_nan()
            } else {
                round_f32_int(x, irnd).to_bits() as u64
            }
        }
        FloatType::F64 => {
            let x = f64::from_bits(a);
            if x.is_nan() {
                f.canonical_nan()
            } else {
                round_f64_int(x, irnd).to_bits()
            }
        }
        _ => match unpack(f, a) {
            Val::Nan => f.canonical_nan(),
            Val::Fin { neg, sig, exp } if exp < 0 => {
                let m = round_int_mag(neg, sig, exp, irnd).unwrap_or(0);
                round_pack(f, neg, m, 0, false, Rnd::Rn, false)
            }
            _ => a,
        },
    };
    if sat {
        r = sat_bits(f, r);
    }
    r
}

/// `cvt.frnd{.ftz}{.sat}{.relu}{.satfinite}.f16.f32 d, a` (`.frnd` = `.rn .rz .rm .rp`).
#[inline]
pub fn cvt_f32_to_f16(a: f32, rnd: Rnd, ftz: bool, sat: bool, relu: bool, satfinite: bool) -> u16 {
    let m = CvtMods {
        ftz,
        sat,
        relu,
        satfinite,
    };
    cvt_float_to_float(a.to_bits() as u64, FloatType::F32, FloatType::F16, rnd, m) as u16
}

/// `cvt.frnd{.relu}{.satfinite}.bf16.f32 d, a` (`.frnd` = `.rn .rz`; `.rm .rp` also work).
#[inline]
pub fn cvt_f32_to_bf16(a: f32, rnd: Rnd, relu: bool, satfinite: bool) -> u16 {
    let m = CvtMods {
        relu,
        satfinite,
        ..CvtMods::default()
    };
    cvt_float_to_float(a.to_bits() as u64, FloatType::F32, FloatType::BF16, rnd, m) as u16
}

/// `cvt{.ftz}{.sat}.f32.f16 d, a` (exact widening).
#[inline]
pub fn cvt_f16_to_f32(a: u16, ftz: bool, sat: bool) -> f32 {
    let m = CvtMods {
        ftz,
        sat,
        ..CvtMods::default()
    };
    f32::from_bits(cvt_float_to_float(a as u64, FloatType::F16, FloatType::F32, Rnd::Rn, m) as u32)
}

/// `cvt{.ftz}{.sat}.f32.bf16 d, a` (exact widening).
#[inline]
pub fn cvt_bf16_to_f32(a: u16, ftz: bool, sat: bool) -> f32 {
    let m = CvtMods {
        ftz,
        sat,
        ..CvtMods::default()
    };
    f32::from_bits(cvt_float_to_float(a as u64, FloatType::BF16, FloatType::F32, Rnd::Rn, m) as u32)
}

/// One element of `cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32`: stochastic rounding of `a`
/// to `.bf16` (`bf16`) or `.f16` with the random bits `rbits` (16 of them for `.bf16`, the 13
/// low ones for `.f16`): the random bits are added to the discarded bits of the magnitude,
/// below the result's last place, and the sum is truncated (rounded up when it carries). For
/// `.bf16` that is `(|a| bits + rbits) >> 16` exactly; for `.f16` the 13 bits are the first 13
/// discarded ones (all of them for normal results; for subnormal results ptxvm's choice, the
/// manual does not say). A magnitude beyond the largest finite value carries into infinity.
/// NaN → `0x7fff`; `.satfinite`: infinities → ±MAX; `.relu`: a negative result → `+0`.
pub fn cvt_f32_to_half_rs(a: f32, bf16: bool, rbits: u32, relu: bool, satfinite: bool) -> u16 {
    if a.is_nan() {
        return 0x7fff;
    }
    let (to, mant, bias, nbits, inf, max) = if bf16 {
        (FloatType::BF16, 7, 127, 16, 0x7f80u16, 0x7f7fu16)
    } else {
        (FloatType::F16, 10, 15, 13, 0x7c00u16, 0x7bffu16)
    };
    let r = u64::from(rbits) & ((1u64 << nbits) - 1);
    let neg = a.is_sign_negative();
    let mag = a.abs();
    let t = cvt_float_to_float(
        mag.to_bits() as u64,
        FloatType::F32,
        to,
        Rnd::Rz,
        CvtMods::default(),
    ) as u16;
    let widen = |h: u16| {
        f32::from_bits(
            cvt_float_to_float(h as u64, to, FloatType::F32, Rnd::Rn, CvtMods::default()) as u32,
        )
    };
    let mut res = if t == inf {
        inf
    } else {
        let e = i32::from(t >> mant).max(1);
        let ulp = 2f64.powi(e - bias - mant);
        let frac = (f64::from(mag) - f64::from(widen(t))) / ulp;
        if frac >= 1.0 {
            inf
        } else {
            let q = (frac * (1u64 << nbits) as f64) as u64;
            if q + r >= 1u64 << nbits { t + 1 } else { t }
        }
    };
    if satfinite && res == inf {
        res = max;
    }
    if neg {
        if relu {
            return 0;
        }
        res |= 0x8000;
    }
    res
}

/// `cvt.frnd{.relu}{.satfinite}.f16x2.f32 d, a, b`: `d[31:16] = cvt(a)`, `d[15:0] = cvt(b)`.
#[inline]
pub fn cvt_f32x2_to_f16x2(a: f32, b: f32, rnd: Rnd, relu: bool, satfinite: bool) -> u32 {
    let hi = cvt_f32_to_f16(a, rnd, false, false, relu, satfinite) as u32;
    let lo = cvt_f32_to_f16(b, rnd, false, false, relu, satfinite) as u32;
    (hi << 16) | lo
}

/// `cvt.frnd{.relu}{.satfinite}.bf16x2.f32 d, a, b`: `d[31:16] = cvt(a)`, `d[15:0] = cvt(b)`.
#[inline]
pub fn cvt_f32x2_to_bf16x2(a: f32, b: f32, rnd: Rnd, relu: bool, satfinite: bool) -> u32 {
    let hi = cvt_f32_to_bf16(a, rnd, relu, satfinite) as u32;
    let lo = cvt_f32_to_bf16(b, rnd, relu, satfinite) as u32;
    (hi << 16) | lo
}

/// `cvt.rna{.satfinite}.tf32.f32 d, a` and `cvt.frnd2{.satfinite}{.relu}.tf32.f32 d, a`
/// (`.rn .rz`; `.rm .rp` also work): round `a` to 10 fraction bits (at the same bit
/// position for subnormals, since tf32 has f32's exponent range) and return the `.b32`
/// container with the low 13 bits zero. NaN → `0x7fffffff` (canonical f32 NaN). Overflow
/// gives ±infinity, or ±`0x7f7fe000` (largest tf32) with `.satfinite` or under `.rz`.
#[inline]
pub fn cvt_f32_to_tf32(a: f32, rnd: Rnd, relu: bool, satfinite: bool) -> u32 {
    let f = Format::TF32;
    let b = a.to_bits();
    let neg = b >> 31 != 0;
    let r = if a.is_nan() {
        crate::CANONICAL_NAN_F32
    } else {
        let mag = b & 0x7fff_ffff;
        if a.is_infinite() {
            if satfinite {
                (b & 0x8000_0000) | 0x7f7f_e000
            } else {
                b
            }
        } else if mag == 0 {
            b
        } else {
            // tf32 shares f32's exponent field; rounding at bit 13 works for subnormals too.
            let e = mag >> 23;
            let (sig, exp) = if e == 0 {
                (mag, -149)
            } else {
                ((mag & 0x7f_ffff) | 0x80_0000, e as i32 - 150)
            };
            let t16 = round_pack(f, neg, sig as u128, exp, false, rnd, satfinite);
            // TF32 (1-8-10) bits -> f32 container.
            (((t16 >> 18) & 1) << 31 | (t16 & 0x3_ffff) << 13) as u32
        }
    };
    if relu {
        relu_bits(Format::F32, r as u64) as u32
    } else {
        r
    }
}

// ---------------------------------------------------------------------------------------
// Narrow formats: e4m3 / e5m2 / e2m1 / e2m3 / e3m2 / ue8m0
// ---------------------------------------------------------------------------------------

/// A narrow (packed-only) `cvt` element format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NarrowType {
    /// `.e4m3` (in `.e4m3x2`).
    E4M3,
    /// `.e5m2` (in `.e5m2x2`).
    E5M2,
    /// `.e2m1` (in `.e2m1x2`; 4-bit elements).
    E2M1,
    /// `.e2m3` (in `.e2m3x2`; 6-bit elements in 8-bit slots, top 2 bits 0).
    E2M3,
    /// `.e3m2` (in `.e3m2x2`; 6-bit elements in 8-bit slots, top 2 bits 0).
    E3M2,
}

impl NarrowType {
    /// The element format.
    #[inline]
    pub const fn format(self) -> Format {
        match self {
            NarrowType::E4M3 => Format::E4M3,
            NarrowType::E5M2 => Format::E5M2,
            NarrowType::E2M1 => Format::E2M1,
            NarrowType::E2M3 => Format::E2M3,
            NarrowType::E3M2 => Format::E3M2,
        }
    }
    /// Slot width of one element in the packed register (4 or 8 bits).
    #[inline]
    pub const fn slot(self) -> u32 {
        match self {
            NarrowType::E2M1 => 4,
            _ => 8,
        }
    }
}

/// Convert one finite-or-special value to a narrow format with `.rn.satfinite{.relu}`.
/// For formats without NaN (e2m1/e2m3/e3m2) a NaN input gives `+MAX_NORM` (PTX leaves
/// this unspecified; documented choice).
#[inline]
fn to_narrow(f: Format, v: Val, relu: bool) -> u64 {
    let v = match v {
        Val::Nan if f.special == Special::FiniteOnly => return f.max_finite(false),
        Val::Nan => return f.canonical_nan(),
        v => v,
    };
    let r = val_to(f, v, Rnd::Rn, true);
    if relu && f.is_neg(r) { 0 } else { r }
}

/// Decode one narrow element to `.f16` bits (exact), with `.relu`.
#[inline]
fn narrow_to_f16(f: Format, bits: u64, relu: bool) -> u16 {
    let r = val_to(Format::F16, unpack(f, bits), Rnd::Rn, false);
    if relu {
        relu_bits(Format::F16, r) as u16
    } else {
        r as u16
    }
}

/// `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2,e2m1x2,e2m3x2,e3m2x2}.f32 d, a, b`: `a` goes to
/// the upper element, `b` to the lower. Returns `d` (`.b16`, or `.b8` for e2m1x2).
#[inline]
pub fn cvt_f32x2_to_narrow(a: f32, b: f32, dst: NarrowType, relu: bool) -> u16 {
    let f = dst.format();
    let hi = to_narrow(f, unpack(Format::F32, a.to_bits() as u64), relu) as u16;
    let lo = to_narrow(f, unpack(Format::F32, b.to_bits() as u64), relu) as u16;
    (hi << dst.slot()) | lo
}

/// One element of `cvt.rs{.relu}.satfinite.{e4m3x4,e5m2x4,e2m3x4,e3m2x4,e2m1x4}.f32`:
/// stochastic rounding of `a` to `dst` with the `nbits` low bits of `rbits` (16 for the 8- and
/// 6-bit formats, 8 for `.e2m1`), by the rule of [`cvt_f32_to_half_rs`]: the magnitude is
/// truncated to `dst`, its discarded fraction of a unit in the last place is cut to its first
/// `nbits` bits `q`, and the result is rounded up when `q + r` carries out of `nbits` bits.
/// `.satfinite` (mandatory): infinities and magnitudes beyond the largest finite value give
/// ±MAX, and a carry never passes MAX. NaN gives the format's NaN (`.e4m3`/`.e5m2`) or `+MAX`
/// for the formats without one (as `.rn`, [`cvt_f32x2_to_narrow`]). `.relu`: a negative
/// result (`-0` too) is `+0`. The element's code (4 or 6 bits, 8 for the f8 formats).
pub fn cvt_f32_to_narrow_rs(a: f32, dst: NarrowType, rbits: u32, nbits: u32, relu: bool) -> u8 {
    let f = dst.format();
    let max = f.max_finite(false);
    let mag = match unpack(Format::F32, a.abs().to_bits() as u64) {
        Val::Nan if f.special == Special::FiniteOnly => return max as u8,
        Val::Nan => return f.canonical_nan() as u8,
        Val::Inf(_) => max,
        v => {
            let t = val_to(f, v, Rnd::Rz, true);
            if t >= max {
                max
            } else {
                let value = |bits: u64| match unpack(f, bits) {
                    Val::Fin { sig, exp, .. } => sig as f64 * 2f64.powi(exp),
                    _ => 0.0,
                };
                let (lo, hi) = (value(t), value(t + 1));
                // Exact: |a| and the two neighbours are close multiples of one power of two.
                let frac = (f64::from(a.abs()) - lo) / (hi - lo);
                let nbits = nbits.min(32);
                let q = (frac * 2f64.powi(nbits as i32)) as u64;
                let r = u64::from(rbits) & ((1u64 << nbits) - 1);
                if q + r >= 1u64 << nbits { t + 1 } else { t }
            }
        }
    };
    if a.is_sign_negative() {
        if relu {
            return 0;
        }
        return (mag | f.sign_bit()) as u8;
    }
    mag as u8
}

/// `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a`: the upper `.f16` of `a` goes to the
/// upper byte of `d`, the lower to the lower byte.
#[inline]
pub fn cvt_f16x2_to_narrow(a: u32, dst: NarrowType, relu: bool) -> u16 {
    let f = dst.format();
    let hi = to_narrow(f, unpack(Format::F16, (a >> 16) as u64), relu) as u16;
    let lo = to_narrow(f, unpack(Format::F16, (a & 0xffff) as u64), relu) as u16;
    (hi << dst.slot()) | lo
}

/// `cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2,e2m1x2,e2m3x2,e3m2x2} d, a`: the upper element of `a`
/// goes to `d[31:16]`, the lower to `d[15:0]`. Exact; NaN → `0x7fff`.
#[inline]
pub fn cvt_narrow_to_f16x2(a: u16, src: NarrowType, relu: bool) -> u32 {
    let f = src.format();
    let s = src.slot();
    let emask = (1u64 << f.width()) - 1;
    let hi = narrow_to_f16(f, ((a >> s) as u64) & emask, relu) as u32;
    let lo = narrow_to_f16(f, (a as u64) & emask, relu) as u32;
    (hi << 16) | lo
}

/// One `.ue8m0` element (value `2^(e-127)`, `0xff` = NaN) from an exact value, with `.rz`
/// or `.rp`. Zero and negative inputs give `0x00` (the smallest value, `2^-127`; PTX leaves
/// them unspecified); NaN → `0xff`; +inf and values above `2^127` → `0xff` (NaN), or `0xfe`
/// with `.satfinite`.
fn to_ue8m0(v: Val, rnd: Rnd, satfinite: bool) -> u8 {
    let over = if satfinite { 0xfe } else { 0xff };
    match v {
        Val::Nan => 0xff,
        Val::Inf(false) => over,
        Val::Inf(true) | Val::Zero(_) | Val::Fin { neg: true, .. } => 0,
        Val::Fin {
            neg: false,
            sig,
            exp,
        } => {
            let l = 64 - sig.leading_zeros() as i32;
            let mut e = exp + l - 1; // floor(log2 x)
            let exact_pow2 = sig.is_power_of_two();
            if rnd == Rnd::Rp && !exact_pow2 {
                e += 1;
            }
            if e > 127 {
                over
            } else {
                (e.max(-127) + 127) as u8
            }
        }
    }
}

/// `cvt.frnd3{.satfinite}.ue8m0x2.f32 d, a, b` (`.frnd3` = `.rz .rp`): `d[15:8] = cvt(a)`,
/// `d[7:0] = cvt(b)`. See `to_ue8m0` rules in the module docs.
#[inline]
pub fn cvt_f32x2_to_ue8m0x2(a: f32, b: f32, rnd: Rnd, satfinite: bool) -> u16 {
    let hi = to_ue8m0(unpack(Format::F32, a.to_bits() as u64), rnd, satfinite) as u16;
    let lo = to_ue8m0(unpack(Format::F32, b.to_bits() as u64), rnd, satfinite) as u16;
    (hi << 8) | lo
}

/// `cvt.frnd3{.satfinite}.ue8m0x2.bf16x2 d, a`: upper `.bf16` → `d[15:8]`, lower → `d[7:0]`.
#[inline]
pub fn cvt_bf16x2_to_ue8m0x2(a: u32, rnd: Rnd, satfinite: bool) -> u16 {
    let hi = to_ue8m0(unpack(Format::BF16, (a >> 16) as u64), rnd, satfinite) as u16;
    let lo = to_ue8m0(unpack(Format::BF16, (a & 0xffff) as u64), rnd, satfinite) as u16;
    (hi << 8) | lo
}

/// `cvt.rn.bf16x2.ue8m0x2 d, a`: each byte `e` becomes the `.bf16` `2^(e-127)` (exact; `e =
/// 0` is the bf16 subnormal `0x0040`), `0xff` → `0x7fff`. Upper byte → `d[31:16]`.
#[inline]
pub fn cvt_ue8m0x2_to_bf16x2(a: u16) -> u32 {
    let one = |e: u16| -> u32 {
        if e == 0xff {
            0x7fff
        } else if e == 0 {
            0x0040
        } else {
            (e as u32) << 7
        }
    };
    (one(a >> 8) << 16) | one(a & 0xff)
}
