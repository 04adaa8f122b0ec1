//! Approximate functions (`.approx`, §9.7.3): sin, cos, lg2, ex2, tanh, rcp, rsqrt, sqrt and
//! div for `.f32`, plus `rcp.approx.ftz.f64`, `rsqrt.approx.f64` and `rsqrt.approx.ftz.f64`.
//!
//! Algorithm: each `.f32` function is evaluated in `f64` (host libm for sin, cos, log2,
//! exp2, tanh; IEEE division/square root for rcp, rsqrt, sqrt) and rounded once to `f32`,
//! so the result is within about 0.5 ulp — far inside every bound the spec states
//! (docs/numerics-arith.md has the measured worst cases). The special-value tables of the
//! spec hold exactly. `.ftz` flushes subnormal inputs and results to sign-preserving zero;
//! without `.ftz` subnormals are ordinary numbers (sm_20+), so e.g. `lg2.approx.f32` of
//! `2^-149` is `-149`. The spec's tables list the flushed (`.ftz`/sm_1x) behaviour for
//! subnormal inputs. NaN results are the canonical NaN.

use crate::arith::{canon_f32, ftz_f32, ftz_f64, nan_f64};

const NAN_HI_F64: u64 = 0x7fff_ffff_0000_0000;

#[inline]
fn unary(a: f32, ftz: bool, f: impl Fn(f64) -> f64) -> f32 {
    let a = if ftz { ftz_f32(a) } else { a };
    let r = canon_f32(f(a as f64) as f32);
    if ftz { ftz_f32(r) } else { r }
}

/// `sin.approx{.ftz}.f32 d, a`.
#[inline]
pub fn sin_approx_f32(a: f32, ftz: bool) -> f32 {
    unary(a, ftz, f64::sin)
}

/// `cos.approx{.ftz}.f32 d, a`.
#[inline]
pub fn cos_approx_f32(a: f32, ftz: bool) -> f32 {
    unary(a, ftz, f64::cos)
}

/// `lg2.approx{.ftz}.f32 d, a`: `lg2(±0) = -inf`, negative gives NaN.
#[inline]
pub fn lg2_approx_f32(a: f32, ftz: bool) -> f32 {
    unary(a, ftz, f64::log2)
}

/// `ex2.approx{.ftz}.f32 d, a`: `ex2(-inf) = +0`.
#[inline]
pub fn ex2_approx_f32(a: f32, ftz: bool) -> f32 {
    unary(a, ftz, f64::exp2)
}

/// `tanh.approx.f32 d, a` (subnormals supported; a subnormal input is returned as is).
#[inline]
pub fn tanh_approx_f32(a: f32) -> f32 {
    unary(a, false, f64::tanh)
}

/// `rcp.approx{.ftz}.f32 d, a`: the correctly rounded `1/a` (spec bound: absolute error
/// `2^-23` on `[1, 2)`).
#[inline]
pub fn rcp_approx_f32(a: f32, ftz: bool) -> f32 {
    let a = if ftz { ftz_f32(a) } else { a };
    let r = canon_f32(1.0 / a);
    if ftz { ftz_f32(r) } else { r }
}

/// `sqrt.approx{.ftz}.f32 d, a`: the correctly rounded square root.
#[inline]
pub fn sqrt_approx_f32(a: f32, ftz: bool) -> f32 {
    let a = if ftz { ftz_f32(a) } else { a };
    let r = canon_f32(a.sqrt());
    if ftz { ftz_f32(r) } else { r }
}

/// `rsqrt.approx{.ftz}.f32 d, a`: `1/sqrt(a)` computed in `f64`, rounded once (spec bound:
/// absolute error `2^-22.4` on `[1, 4)`). `rsqrt(-0) = -inf`.
#[inline]
pub fn rsqrt_approx_f32(a: f32, ftz: bool) -> f32 {
    unary(a, ftz, |x| 1.0 / x.sqrt())
}

/// `div.approx{.ftz}.f32 d, a, b`: `a * rcp.approx(b)` with subnormal inputs and results
/// flushed (always, per the spec's note). So for `2^126 < |b| < 2^128` the result is 0, or
/// NaN when `a` is infinite; division by zero gives infinity with the sign of `a` (`0/0` and
/// `NaN/0` give NaN). Error at most 1.5 ulp (spec: 2 ulp for `|b|` in `[2^-126, 2^126]`).
#[inline]
pub fn div_approx_f32(a: f32, b: f32, _ftz: bool) -> f32 {
    let (a, b) = (ftz_f32(a), ftz_f32(b));
    if b == 0.0 {
        if a.is_nan() || a == 0.0 {
            return f32::from_bits(crate::CANONICAL_NAN_F32);
        }
        return if a.is_sign_negative() {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        };
    }
    let r = ftz_f32(1.0 / b);
    ftz_f32(canon_f32(a * r))
}

/// Rounds `r` to a 20-bit mantissa (upper word) to nearest-even, flushing subnormals.
#[inline]
fn hi_word(r: f64) -> f64 {
    let r = ftz_f64(r);
    let b = r.to_bits();
    if b & !(1 << 63) > 0x7ff0_0000_0000_0000 {
        return f64::from_bits(NAN_HI_F64);
    }
    if r.is_infinite() {
        return r;
    }
    let low = b & 0xffff_ffff;
    let mut hi = b >> 32;
    if low > 0x8000_0000 || (low == 0x8000_0000 && hi & 1 == 1) {
        hi += 1;
    }
    f64::from_bits(hi << 32)
}

/// `rcp.approx.ftz.f64 d, a` (§9.7.3.14): the reciprocal of `a`'s upper word (1.11.20
/// format; the low 32 bits of `a` are ignored), rounded to nearest to a 20-bit mantissa,
/// low word of `d` zero. Subnormal inputs/results flush to sign-preserving zero; NaN gives
/// `0x7fffffff00000000`.
#[inline]
pub fn rcp_approx_ftz_f64(a: f64) -> f64 {
    let t = ftz_f64(f64::from_bits(a.to_bits() & 0xffff_ffff_0000_0000));
    hi_word(1.0 / t)
}

/// `rsqrt.approx.ftz.f64 d, a` (§9.7.3.17): `1/sqrt` of `a`'s upper word, rounded to a
/// 20-bit mantissa, low word zero; NaN (also from negative inputs) is `0x7fffffff00000000`.
#[inline]
pub fn rsqrt_approx_ftz_f64(a: f64) -> f64 {
    let t = ftz_f64(f64::from_bits(a.to_bits() & 0xffff_ffff_0000_0000));
    hi_word(1.0 / t.sqrt())
}

/// `rsqrt.approx.f64 d, a`: `1/sqrt(a)` (two IEEE operations, error < 1.5 ulp); NaN
/// payloads propagate.
#[inline]
pub fn rsqrt_approx_f64(a: f64) -> f64 {
    nan_f64(1.0 / a.sqrt(), &[a])
}
