//! `.f32`/`.f64` arithmetic (§9.7.3): add, sub, mul, fma, mad, div, rcp, sqrt with every
//! rounding mode, `.ftz` and `.sat`; abs, neg, min, max, copysign, testp and comparisons.
//!
//! Round-to-nearest-even goes through host arithmetic. The directed modes (`.rz .rm .rp`)
//! have two implementations chosen at run time, with identical results:
//!
//! * AVX-512 embedded rounding (`vaddss {rz-sae}` …), used when the CPU has `avx512f`
//!   (detected once, cached in an atomic): see the `*_avx512` functions;
//! * a portable software path (the `*_soft` functions): the host computes the
//!   round-to-nearest result `r`, an exact error term gives the sign of `exact - r`, and `r`
//!   is moved by one ulp when the directed mode demands it. The sign comes from TwoSum (add),
//!   an FMA remainder on operands scaled into `[1, 4)` (mul, div, sqrt: no underflow can hide
//!   the sign), or an exact fixed-point accumulator (fma).
//!
//! No global FPU mode is ever switched. `Rnd::Rna` is not a PTX arithmetic rounding mode;
//! these functions treat it as `Rnd::Rn`.
//!
//! NaN results: every `.f32` NaN result is the canonical NaN `0x7fffffff`. `.f64` results
//! carry the payload of the first NaN operand (quieted), as the spec says NaN payloads are
//! supported for double precision; NaNs created from numbers (`inf - inf`, `0 * inf`,
//! `sqrt(-1)`) are the canonical `0x7fffffffffffffff`.

use crate::{CANONICAL_NAN_F32, CANONICAL_NAN_F64, Rnd};
use std::sync::atomic::{AtomicU8, Ordering};

static AVX512: AtomicU8 = AtomicU8::new(0);

/// True when the directed-rounding fast path (AVX-512F embedded rounding) is usable on this
/// CPU. Detected once and cached.
#[inline]
pub fn has_avx512() -> bool {
    match AVX512.load(Ordering::Relaxed) {
        2 => true,
        1 => false,
        _ => detect_avx512(),
    }
}

#[cold]
fn detect_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    let yes = std::is_x86_feature_detected!("avx512f");
    #[cfg(not(target_arch = "x86_64"))]
    let yes = false;
    AVX512.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
    yes
}

// ---------------------------------------------------------------------------------------
// Exact fixed-point accumulator (software fma): sums of ±m·2^e exactly, two's complement.

const ACC_LIMBS: usize = 56;
const ACC_BASE: i32 = -2240;

struct Acc([u64; ACC_LIMBS]);

impl Acc {
    fn add(&mut self, neg: bool, m: u128, e: i32) {
        if m == 0 {
            return;
        }
        let off = (e - ACC_BASE) as u32;
        let limb = (off / 64) as usize;
        let sh = off % 64;
        let lo = m as u64;
        let hi = (m >> 64) as u64;
        let parts = if sh == 0 {
            [lo, hi, 0]
        } else {
            [lo << sh, (lo >> (64 - sh)) | (hi << sh), hi >> (64 - sh)]
        };
        let mut carry = false;
        for i in limb..ACC_LIMBS {
            let p = if i - limb < 3 { parts[i - limb] } else { 0 };
            if i - limb >= 3 && !carry {
                break;
            }
            if neg {
                let (v, b1) = self.0[i].overflowing_sub(p);
                let (v, b2) = v.overflowing_sub(carry as u64);
                self.0[i] = v;
                carry = b1 || b2;
            } else {
                let (v, c1) = self.0[i].overflowing_add(p);
                let (v, c2) = v.overflowing_add(carry as u64);
                self.0[i] = v;
                carry = c1 || c2;
            }
        }
    }

    fn sign(&self) -> i32 {
        if (self.0[ACC_LIMBS - 1] as i64) < 0 {
            -1
        } else if self.0.iter().any(|&l| l != 0) {
            1
        } else {
            0
        }
    }
}

// ---------------------------------------------------------------------------------------
// Generic soft-path kernels for f32 and f64.

macro_rules! soft_kernels {
    ($f:ident, $u:ident, $mbits:expr, $bias:expr, $sub_scale:expr, $unit_exp_bits:expr,
     $add:ident, $sub:ident, $mul:ident, $fma:ident, $div:ident, $sqrt:ident,
     $adjust:ident, $unit:ident, $pow2:ident, $decomp:ident) => {
        /// Moves the round-to-nearest result `r` one ulp as `rnd` demands, given the sign of
        /// `exact - r`.
        #[inline]
        fn $adjust(r: $f, err: i32, rnd: Rnd) -> $f {
            if err == 0 {
                return r;
            }
            let up = |x: $f| {
                let b = x.to_bits();
                if x == 0.0 {
                    <$f>::from_bits(1)
                } else if x.is_sign_positive() {
                    <$f>::from_bits(b + 1)
                } else {
                    <$f>::from_bits(b - 1)
                }
            };
            let down = |x: $f| -up(-x);
            match rnd {
                Rnd::Rn | Rnd::Rna => r,
                Rnd::Rm if err < 0 => down(r),
                Rnd::Rp if err > 0 => up(r),
                Rnd::Rz if err < 0 && r.is_sign_positive() && r != 0.0 => down(r),
                Rnd::Rz if err > 0 && r.is_sign_negative() && r != 0.0 => up(r),
                _ => r,
            }
        }

        /// `x = unit * 2^k` with `|unit|` in `[1, 2)`; `x` finite and non-zero.
        #[inline]
        fn $unit(x: $f) -> ($f, i32) {
            let (x, k0) = if x.is_subnormal() { (x * $sub_scale, -($unit_exp_bits)) } else { (x, 0) };
            let b = x.to_bits();
            let e = ((b >> $mbits) & ((1 << (<$u>::BITS - 1 - $mbits)) - 1)) as i32;
            let m = b & !(((1 << (<$u>::BITS - 1 - $mbits)) - 1) << $mbits);
            (<$f>::from_bits(m | (($bias as $u) << $mbits)), e - $bias + k0)
        }

        /// `2^k` for a small `k`.
        #[inline]
        fn $pow2(k: i32) -> $f {
            <$f>::from_bits(((k + $bias) as $u) << $mbits)
        }

        /// `(negative, integer mantissa, exponent)` with `x = ±m·2^e`; `x` finite.
        #[inline]
        fn $decomp(x: $f) -> (bool, u128, i32) {
            let b = x.to_bits();
            let e = ((b >> $mbits) & ((1 << (<$u>::BITS - 1 - $mbits)) - 1)) as i32;
            let frac = (b & ((1 << $mbits) - 1)) as u128;
            let neg = x.is_sign_negative();
            if e == 0 { (neg, frac, 1 - $bias - $mbits) } else { (neg, frac | (1 << $mbits), e - $bias - $mbits) }
        }

        #[doc = concat!("Software-path `add.rnd.", stringify!($f), "` (no `.ftz`/`.sat`, NaNs not canonicalised).")]
        pub fn $add(a: $f, b: $f, rnd: Rnd) -> $f {
            let s = a + b;
            if matches!(rnd, Rnd::Rn | Rnd::Rna) {
                return s;
            }
            let err = if s.is_finite() {
                let bb = s - a;
                let e = (a - (s - bb)) + (b - bb);
                if e == 0.0 {
                    if s == 0.0 && rnd == Rnd::Rm && (a.is_sign_negative() || b.is_sign_negative()) {
                        return -0.0;
                    }
                    return s;
                }
                if e > 0.0 { 1 } else { -1 }
            } else if s.is_nan() || !a.is_finite() || !b.is_finite() {
                return s;
            } else if s > 0.0 {
                -1
            } else {
                1
            };
            $adjust(s, err, rnd)
        }

        #[doc = concat!("Software-path `sub.rnd.", stringify!($f), "`.")]
        pub fn $sub(a: $f, b: $f, rnd: Rnd) -> $f {
            if b.is_nan() {
                return a - b;
            }
            $add(a, -b, rnd)
        }

        #[doc = concat!("Software-path `mul.rnd.", stringify!($f), "`.")]
        pub fn $mul(a: $f, b: $f, rnd: Rnd) -> $f {
            let p = a * b;
            if matches!(rnd, Rnd::Rn | Rnd::Rna) || !a.is_finite() || !b.is_finite() || a == 0.0 || b == 0.0 {
                return p;
            }
            let err = if p.is_infinite() {
                if p > 0.0 { -1 } else { 1 }
            } else if p == 0.0 {
                if p.is_sign_negative() { -1 } else { 1 }
            } else {
                let (ua, ka) = $unit(a);
                let (ub, kb) = $unit(b);
                let (up, kp) = $unit(p);
                let ps = up * $pow2(kp - ka - kb);
                let e = ua.mul_add(ub, -ps);
                if e > 0.0 { 1 } else if e < 0.0 { -1 } else { 0 }
            };
            $adjust(p, err, rnd)
        }

        #[doc = concat!("Software-path `div.rnd.", stringify!($f), "`.")]
        pub fn $div(a: $f, b: $f, rnd: Rnd) -> $f {
            let q = a / b;
            if matches!(rnd, Rnd::Rn | Rnd::Rna) || !a.is_finite() || !b.is_finite() || a == 0.0 || b == 0.0 {
                return q;
            }
            let err = if q.is_infinite() {
                if q > 0.0 { -1 } else { 1 }
            } else if q == 0.0 {
                if q.is_sign_negative() { -1 } else { 1 }
            } else {
                let (ua, ka) = $unit(a);
                let (ub, kb) = $unit(b);
                let (uq, kq) = $unit(q);
                let qs = uq * $pow2(kq - ka + kb);
                let rem = (-qs).mul_add(ub, ua);
                let s = if rem > 0.0 { 1 } else if rem < 0.0 { -1 } else { 0 };
                if b < 0.0 { -s } else { s }
            };
            $adjust(q, err, rnd)
        }

        #[doc = concat!("Software-path `sqrt.rnd.", stringify!($f), "`.")]
        pub fn $sqrt(a: $f, rnd: Rnd) -> $f {
            let s = a.sqrt();
            if matches!(rnd, Rnd::Rn | Rnd::Rna) || a.is_nan() || a <= 0.0 || a.is_infinite() {
                return s;
            }
            let (mut ua, mut ka) = $unit(a);
            if ka & 1 != 0 {
                ua *= 2.0;
                ka -= 1;
            }
            let (us, ks) = $unit(s);
            let ss = us * $pow2(ks - ka / 2);
            let rem = (-ss).mul_add(ss, ua);
            let err = if rem > 0.0 { 1 } else if rem < 0.0 { -1 } else { 0 };
            $adjust(s, err, rnd)
        }

        #[doc = concat!("Software-path `fma.rnd.", stringify!($f), "`.")]
        pub fn $fma(a: $f, b: $f, c: $f, rnd: Rnd) -> $f {
            let r = a.mul_add(b, c);
            if matches!(rnd, Rnd::Rn | Rnd::Rna) || !a.is_finite() || !b.is_finite() || !c.is_finite() {
                return r;
            }
            let err = if r.is_infinite() {
                if r > 0.0 { -1 } else { 1 }
            } else {
                let mut acc = Acc([0; ACC_LIMBS]);
                let (na, ma, ea) = $decomp(a);
                let (nb, mb, eb) = $decomp(b);
                let (nc, mc, ec) = $decomp(c);
                let (nr, mr, er) = $decomp(r);
                acc.add(na ^ nb, ma * mb, ea + eb);
                acc.add(nc, mc, ec);
                acc.add(!nr, mr, er);
                acc.sign()
            };
            if err == 0 && r == 0.0 && rnd == Rnd::Rm {
                let ab_neg = a.is_sign_negative() ^ b.is_sign_negative();
                return if ab_neg || c.is_sign_negative() { -0.0 } else { 0.0 };
            }
            $adjust(r, err, rnd)
        }
    };
}

soft_kernels!(
    f32,
    u32,
    23,
    127,
    4294967296.0f32,
    32,
    add_f32_soft,
    sub_f32_soft,
    mul_f32_soft,
    fma_f32_soft,
    div_f32_soft,
    sqrt_f32_soft,
    adjust_f32,
    unit_f32,
    pow2_f32,
    decomp_f32
);
soft_kernels!(
    f64,
    u64,
    52,
    1023,
    18446744073709551616.0f64,
    64,
    add_f64_soft,
    sub_f64_soft,
    mul_f64_soft,
    fma_f64_soft,
    div_f64_soft,
    sqrt_f64_soft,
    adjust_f64,
    unit_f64,
    pow2_f64,
    decomp_f64
);

// ---------------------------------------------------------------------------------------
// AVX-512 embedded rounding.

#[cfg(target_arch = "x86_64")]
mod avx {
    use core::arch::x86_64::*;

    pub const RN: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    pub const RZ: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
    pub const RM: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
    pub const RP: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;

    macro_rules! bin {
        ($name:ident, $intr:ident, $set:ident, $get:ident, $t:ty) => {
            #[target_feature(enable = "avx512f")]
            pub fn $name<const R: i32>(a: $t, b: $t) -> $t {
                $get($intr::<R>($set(a), $set(b)))
            }
        };
    }
    bin!(add_ss, _mm_add_round_ss, _mm_set_ss, _mm_cvtss_f32, f32);
    bin!(sub_ss, _mm_sub_round_ss, _mm_set_ss, _mm_cvtss_f32, f32);
    bin!(mul_ss, _mm_mul_round_ss, _mm_set_ss, _mm_cvtss_f32, f32);
    bin!(div_ss, _mm_div_round_ss, _mm_set_ss, _mm_cvtss_f32, f32);
    bin!(sqrt_ss, _mm_sqrt_round_ss, _mm_set_ss, _mm_cvtss_f32, f32);
    bin!(add_sd, _mm_add_round_sd, _mm_set_sd, _mm_cvtsd_f64, f64);
    bin!(sub_sd, _mm_sub_round_sd, _mm_set_sd, _mm_cvtsd_f64, f64);
    bin!(mul_sd, _mm_mul_round_sd, _mm_set_sd, _mm_cvtsd_f64, f64);
    bin!(div_sd, _mm_div_round_sd, _mm_set_sd, _mm_cvtsd_f64, f64);
    bin!(sqrt_sd, _mm_sqrt_round_sd, _mm_set_sd, _mm_cvtsd_f64, f64);

    #[target_feature(enable = "avx512f")]
    pub fn fma_ss<const R: i32>(a: f32, b: f32, c: f32) -> f32 {
        _mm_cvtss_f32(_mm_fmadd_round_ss::<R>(
            _mm_set_ss(a),
            _mm_set_ss(b),
            _mm_set_ss(c),
        ))
    }
    #[target_feature(enable = "avx512f")]
    pub fn fma_sd<const R: i32>(a: f64, b: f64, c: f64) -> f64 {
        _mm_cvtsd_f64(_mm_fmadd_round_sd::<R>(
            _mm_set_sd(a),
            _mm_set_sd(b),
            _mm_set_sd(c),
        ))
    }
}

macro_rules! avx_binary {
    ($(#[$doc:meta])* $name:ident, $k:ident, $t:ty) => {
        $(#[$doc])*
        /// Returns `None` when the CPU lacks AVX-512F. NaNs are not canonicalised.
        #[inline]
        pub fn $name(a: $t, b: $t, rnd: Rnd) -> Option<$t> {
            #[cfg(target_arch = "x86_64")]
            if has_avx512() {
                // SAFETY: avx512f is present (checked above).
                return Some(unsafe {
                    match rnd {
                        Rnd::Rn | Rnd::Rna => avx::$k::<{ avx::RN }>(a, b),
                        Rnd::Rz => avx::$k::<{ avx::RZ }>(a, b),
                        Rnd::Rm => avx::$k::<{ avx::RM }>(a, b),
                        Rnd::Rp => avx::$k::<{ avx::RP }>(a, b),
                    }
                });
            }
            let _ = (a, b, rnd);
            None
        }
    };
}

avx_binary!(
    /// AVX-512 embedded-rounding `add.rnd.f32`.
    add_f32_avx512, add_ss, f32
);
avx_binary!(
    /// AVX-512 embedded-rounding `sub.rnd.f32`.
    sub_f32_avx512, sub_ss, f32
);
avx_binary!(
    /// AVX-512 embedded-rounding `mul.rnd.f32`.
    mul_f32_avx512, mul_ss, f32
);
avx_binary!(
    /// AVX-512 embedded-rounding `div.rnd.f32`.
    div_f32_avx512, div_ss, f32
);
avx_binary!(
    /// AVX-512 embedded-rounding `add.rnd.f64`.
    add_f64_avx512, add_sd, f64
);
avx_binary!(
    /// AVX-512 embedded-rounding `sub.rnd.f64`.
    sub_f64_avx512, sub_sd, f64
);
avx_binary!(
    /// AVX-512 embedded-rounding `mul.rnd.f64`.
    mul_f64_avx512, mul_sd, f64
);
avx_binary!(
    /// AVX-512 embedded-rounding `div.rnd.f64`.
    div_f64_avx512, div_sd, f64
);

/// AVX-512 embedded-rounding `sqrt.rnd.f32`; `None` without AVX-512F.
#[inline]
pub fn sqrt_f32_avx512(a: f32, rnd: Rnd) -> Option<f32> {
    sqrt_avx_impl32(a, rnd)
}

/// AVX-512 embedded-rounding `sqrt.rnd.f64`; `None` without AVX-512F.
#[inline]
pub fn sqrt_f64_avx512(a: f64, rnd: Rnd) -> Option<f64> {
    sqrt_avx_impl64(a, rnd)
}

avx_binary!(sqrt_avx_pair32, sqrt_ss, f32);
avx_binary!(sqrt_avx_pair64, sqrt_sd, f64);

#[inline]
fn sqrt_avx_impl32(a: f32, rnd: Rnd) -> Option<f32> {
    // _mm_sqrt_round_ss(a, b) takes the square root of b's low element.
    sqrt_avx_pair32(a, a, rnd)
}
#[inline]
fn sqrt_avx_impl64(a: f64, rnd: Rnd) -> Option<f64> {
    sqrt_avx_pair64(a, a, rnd)
}

/// AVX-512 embedded-rounding `fma.rnd.f32`; `None` without AVX-512F.
#[inline]
pub fn fma_f32_avx512(a: f32, b: f32, c: f32, rnd: Rnd) -> Option<f32> {
    #[cfg(target_arch = "x86_64")]
    if has_avx512() {
        // SAFETY: avx512f is present.
        return Some(unsafe {
            match rnd {
                Rnd::Rn | Rnd::Rna => avx::fma_ss::<{ avx::RN }>(a, b, c),
                Rnd::Rz => avx::fma_ss::<{ avx::RZ }>(a, b, c),
                Rnd::Rm => avx::fma_ss::<{ avx::RM }>(a, b, c),
                Rnd::Rp => avx::fma_ss::<{ avx::RP }>(a, b, c),
            }
        });
    }
    let _ = (a, b, c, rnd);
    None
}

/// AVX-512 embedded-rounding `fma.rnd.f64`; `None` without AVX-512F.
#[inline]
pub fn fma_f64_avx512(a: f64, b: f64, c: f64, rnd: Rnd) -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    if has_avx512() {
        // SAFETY: avx512f is present.
        return Some(unsafe {
            match rnd {
                Rnd::Rn | Rnd::Rna => avx::fma_sd::<{ avx::RN }>(a, b, c),
                Rnd::Rz => avx::fma_sd::<{ avx::RZ }>(a, b, c),
                Rnd::Rm => avx::fma_sd::<{ avx::RM }>(a, b, c),
                Rnd::Rp => avx::fma_sd::<{ avx::RP }>(a, b, c),
            }
        });
    }
    let _ = (a, b, c, rnd);
    None
}

// ---------------------------------------------------------------------------------------
// Dispatching raw kernels (IEEE result in the given rounding; NaNs not canonicalised).

macro_rules! dispatch2 {
    ($(#[$doc:meta])* $name:ident, $t:ty, $op:tt, $avx:ident, $soft:ident) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(a: $t, b: $t, rnd: Rnd) -> $t {
            if matches!(rnd, Rnd::Rn | Rnd::Rna) {
                return a $op b;
            }
            if has_avx512() {
                if let Some(r) = $avx(a, b, rnd) {
                    return r;
                }
            }
            $soft(a, b, rnd)
        }
    };
}

dispatch2!(
    /// IEEE `a + b` rounded by `rnd` (AVX-512 or software path for directed modes).
    add_rnd_f32, f32, +, add_f32_avx512, add_f32_soft
);
dispatch2!(
    /// IEEE `a - b` rounded by `rnd`.
    sub_rnd_f32, f32, -, sub_f32_avx512, sub_f32_soft
);
dispatch2!(
    /// IEEE `a * b` rounded by `rnd`.
    mul_rnd_f32, f32, *, mul_f32_avx512, mul_f32_soft
);
dispatch2!(
    /// IEEE `a / b` rounded by `rnd`.
    div_rnd_f32, f32, /, div_f32_avx512, div_f32_soft
);
dispatch2!(
    /// IEEE `a + b` rounded by `rnd`.
    add_rnd_f64, f64, +, add_f64_avx512, add_f64_soft
);
dispatch2!(
    /// IEEE `a - b` rounded by `rnd`.
    sub_rnd_f64, f64, -, sub_f64_avx512, sub_f64_soft
);
dispatch2!(
    /// IEEE `a * b` rounded by `rnd`.
    mul_rnd_f64, f64, *, mul_f64_avx512, mul_f64_soft
);
dispatch2!(
    /// IEEE `a / b` rounded by `rnd`.
    div_rnd_f64, f64, /, div_f64_avx512, div_f64_soft
);

/// IEEE `sqrt(a)` rounded by `rnd`.
#[inline]
pub fn sqrt_rnd_f32(a: f32, rnd: Rnd) -> f32 {
    if matches!(rnd, Rnd::Rn | Rnd::Rna) {
        return a.sqrt();
    }
    match sqrt_f32_avx512(a, rnd) {
        Some(r) => r,
        None => sqrt_f32_soft(a, rnd),
    }
}

/// IEEE `sqrt(a)` rounded by `rnd`.
#[inline]
pub fn sqrt_rnd_f64(a: f64, rnd: Rnd) -> f64 {
    if matches!(rnd, Rnd::Rn | Rnd::Rna) {
        return a.sqrt();
    }
    match sqrt_f64_avx512(a, rnd) {
        Some(r) => r,
        None => sqrt_f64_soft(a, rnd),
    }
}

/// IEEE fused `a * b + c` rounded once by `rnd`. Round-to-nearest is the host's fused
/// multiply-add (`f32::mul_add`: one `vfmadd` where the caller is compiled with FMA, as the
/// fast engine's lane loops are; libm's `fmaf` otherwise), with no run-time feature check,
/// so a loop over lanes vectorises.
#[inline]
pub fn fma_rnd_f32(a: f32, b: f32, c: f32, rnd: Rnd) -> f32 {
    if matches!(rnd, Rnd::Rn | Rnd::Rna) {
        return a.mul_add(b, c);
    }
    match fma_f32_avx512(a, b, c, rnd) {
        Some(r) => r,
        None => fma_f32_soft(a, b, c, rnd),
    }
}

/// IEEE fused `a * b + c` rounded once by `rnd` (round-to-nearest: the host's, as for
/// [`fma_rnd_f32`]).
#[inline]
pub fn fma_rnd_f64(a: f64, b: f64, c: f64, rnd: Rnd) -> f64 {
    if matches!(rnd, Rnd::Rn | Rnd::Rna) {
        return a.mul_add(b, c);
    }
    match fma_f64_avx512(a, b, c, rnd) {
        Some(r) => r,
        None => fma_f64_soft(a, b, c, rnd),
    }
}

// ---------------------------------------------------------------------------------------
// Modifiers.

/// `.ftz` on an `.f32` value: a subnormal becomes a zero of the same sign.
#[inline]
pub fn ftz_f32(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// Flush-to-zero for `.f64` (used only by the `.approx.ftz.f64` forms).
#[inline]
pub fn ftz_f64(x: f64) -> f64 {
    if x.is_subnormal() {
        f64::from_bits(x.to_bits() & (1 << 63))
    } else {
        x
    }
}

/// `.sat`: clamp to `[0.0, 1.0]`; NaN and `-0.0` give `+0.0`.
#[inline]
pub fn sat_f32(x: f32) -> f32 {
    if x > 0.0 {
        if x > 1.0 { 1.0 } else { x }
    } else {
        0.0
    }
}

/// A NaN `.f32` result becomes the canonical NaN `0x7fffffff`.
#[inline]
pub fn canon_f32(x: f32) -> f32 {
    // Decided on the bits: LLVM may treat any NaN as interchangeable with another, so a
    // float-typed `if x.is_nan() { NAN } else { x }` can be folded to `x`.
    let b = x.to_bits();
    f32::from_bits(if b & 0x7fff_ffff > 0x7f80_0000 {
        CANONICAL_NAN_F32
    } else {
        b
    })
}

#[inline]
fn isnan32(x: f32) -> bool {
    x.to_bits() & 0x7fff_ffff > 0x7f80_0000
}

#[inline]
fn isnan64(x: f64) -> bool {
    x.to_bits() & !(1 << 63) > 0x7ff0_0000_0000_0000
}

/// The `.f64` NaN rule: a NaN result takes the (quieted) payload of the first NaN operand,
/// or is the canonical NaN when no operand was NaN.
#[inline]
pub fn nan_f64(r: f64, ops: &[f64]) -> f64 {
    if !isnan64(r) {
        return r;
    }
    nan_f64_slow(ops)
}

#[cold]
fn nan_f64_slow(ops: &[f64]) -> f64 {
    for &x in ops {
        if isnan64(x) {
            return f64::from_bits(x.to_bits() | (1 << 51));
        }
    }
    f64::from_bits(CANONICAL_NAN_F64)
}

#[inline]
fn fin32(r: f32, ftz: bool, sat: bool) -> f32 {
    let r = canon_f32(r);
    let r = if ftz { ftz_f32(r) } else { r };
    if sat { sat_f32(r) } else { r }
}

#[inline]
fn inp32(a: f32, ftz: bool) -> f32 {
    if ftz { ftz_f32(a) } else { a }
}

// ---------------------------------------------------------------------------------------
// PTX forms.

/// `add{.rnd}{.ftz}{.sat}.f32 d, a, b`. `.ftz` flushes inputs, then the rounded result.
#[inline]
pub fn add_f32(a: f32, b: f32, rnd: Rnd, ftz: bool, sat: bool) -> f32 {
    fin32(add_rnd_f32(inp32(a, ftz), inp32(b, ftz), rnd), ftz, sat)
}

/// `sub{.rnd}{.ftz}{.sat}.f32 d, a, b`.
#[inline]
pub fn sub_f32(a: f32, b: f32, rnd: Rnd, ftz: bool, sat: bool) -> f32 {
    fin32(sub_rnd_f32(inp32(a, ftz), inp32(b, ftz), rnd), ftz, sat)
}

/// `mul{.rnd}{.ftz}{.sat}.f32 d, a, b`.
#[inline]
pub fn mul_f32(a: f32, b: f32, rnd: Rnd, ftz: bool, sat: bool) -> f32 {
    fin32(mul_rnd_f32(inp32(a, ftz), inp32(b, ftz), rnd), ftz, sat)
}

/// `fma.rnd{.ftz}{.sat}.f32 d, a, b, c` (also `mad.rnd{.ftz}{.sat}.f32`).
#[inline]
pub fn fma_f32(a: f32, b: f32, c: f32, rnd: Rnd, ftz: bool, sat: bool) -> f32 {
    fin32(
        fma_rnd_f32(inp32(a, ftz), inp32(b, ftz), inp32(c, ftz), rnd),
        ftz,
        sat,
    )
}

/// `mad{.rnd}{.ftz}{.sat}.f32 d, a, b, c`: on sm_20+ `mad.f32` is `fma.f32`; without a
/// rounding modifier (legacy PTX) it is `mad.rn`.
#[inline]
pub fn mad_f32(a: f32, b: f32, c: f32, rnd: Option<Rnd>, ftz: bool, sat: bool) -> f32 {
    fma_f32(a, b, c, rnd.unwrap_or(Rnd::Rn), ftz, sat)
}

/// `fma.rnd{.ftz}.f32x2 d, a, b, c`: two `.f32` lanes packed in a `.b64` (lane 0 = bits
/// 0..32).
#[inline]
pub fn fma_f32x2(a: u64, b: u64, c: u64, rnd: Rnd, ftz: bool) -> u64 {
    let lane = |x: u64, i: u32| f32::from_bits((x >> (32 * i)) as u32);
    let r0 = fma_f32(lane(a, 0), lane(b, 0), lane(c, 0), rnd, ftz, false);
    let r1 = fma_f32(lane(a, 1), lane(b, 1), lane(c, 1), rnd, ftz, false);
    r0.to_bits() as u64 | ((r1.to_bits() as u64) << 32)
}

/// `div.rnd{.ftz}.f32 d, a, b` (IEEE-compliant division).
#[inline]
pub fn div_f32(a: f32, b: f32, rnd: Rnd, ftz: bool) -> f32 {
    fin32(div_rnd_f32(inp32(a, ftz), inp32(b, ftz), rnd), ftz, false)
}

/// `div.full{.ftz}.f32 d, a, b`. The spec allows 2 ulp; this returns the correctly rounded
/// quotient (0 ulp). Subnormal inputs and results are flushed to sign-preserving zero
/// whether or not `.ftz` is given (the spec's note for the fast divides).
#[inline]
pub fn div_full_f32(a: f32, b: f32, _ftz: bool) -> f32 {
    fin32(ftz_f32(a) / ftz_f32(b), true, false)
}

/// `add.rnd.f64 d, a, b`.
#[inline]
pub fn add_f64(a: f64, b: f64, rnd: Rnd) -> f64 {
    nan_f64(add_rnd_f64(a, b, rnd), &[a, b])
}

/// `sub.rnd.f64 d, a, b`.
#[inline]
pub fn sub_f64(a: f64, b: f64, rnd: Rnd) -> f64 {
    nan_f64(sub_rnd_f64(a, b, rnd), &[a, b])
}

/// `mul.rnd.f64 d, a, b`.
#[inline]
pub fn mul_f64(a: f64, b: f64, rnd: Rnd) -> f64 {
    nan_f64(mul_rnd_f64(a, b, rnd), &[a, b])
}

/// `fma.rnd.f64 d, a, b, c` (= `mad.rnd.f64`).
#[inline]
pub fn fma_f64(a: f64, b: f64, c: f64, rnd: Rnd) -> f64 {
    nan_f64(fma_rnd_f64(a, b, c, rnd), &[a, b, c])
}

/// `div.rnd.f64 d, a, b`.
#[inline]
pub fn div_f64(a: f64, b: f64, rnd: Rnd) -> f64 {
    nan_f64(div_rnd_f64(a, b, rnd), &[a, b])
}

/// `rcp.rnd{.ftz}.f32 d, a` (= `div.rnd 1.0, a`).
#[inline]
pub fn rcp_f32(a: f32, rnd: Rnd, ftz: bool) -> f32 {
    div_f32(1.0, a, rnd, ftz)
}

/// `rcp.rnd.f64 d, a`.
#[inline]
pub fn rcp_f64(a: f64, rnd: Rnd) -> f64 {
    nan_f64(div_rnd_f64(1.0, a, rnd), &[a])
}

/// `sqrt.rnd{.ftz}.f32 d, a`. `sqrt(-0) = -0`; negative numbers give the canonical NaN.
#[inline]
pub fn sqrt_f32(a: f32, rnd: Rnd, ftz: bool) -> f32 {
    fin32(sqrt_rnd_f32(inp32(a, ftz), rnd), ftz, false)
}

/// `sqrt.rnd.f64 d, a`.
#[inline]
pub fn sqrt_f64(a: f64, rnd: Rnd) -> f64 {
    nan_f64(sqrt_rnd_f64(a, rnd), &[a])
}

/// `abs{.ftz}.f32 d, a`: clears the sign bit (a NaN keeps its payload, as the spec's
/// "future implementations" note describes; the spec leaves `.f32` NaN results unspecified).
#[inline]
pub fn abs_f32(a: f32, ftz: bool) -> f32 {
    f32::from_bits(inp32(a, ftz).to_bits() & 0x7fff_ffff)
}

/// `abs.f64 d, a`: clears the sign bit (NaN passes through with its payload).
#[inline]
pub fn abs_f64(a: f64) -> f64 {
    f64::from_bits(a.to_bits() & !(1 << 63))
}

/// `neg{.ftz}.f32 d, a`: flips the sign bit (NaN payload kept).
#[inline]
pub fn neg_f32(a: f32, ftz: bool) -> f32 {
    f32::from_bits(inp32(a, ftz).to_bits() ^ 0x8000_0000)
}

/// `neg.f64 d, a`: flips the sign bit.
#[inline]
pub fn neg_f64(a: f64) -> f64 {
    f64::from_bits(a.to_bits() ^ (1 << 63))
}

/// Modifiers of `min`/`max.f32`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MinMax {
    /// `.ftz`: flush subnormal inputs (and so results) to sign-preserving zero.
    pub ftz: bool,
    /// `.NaN`: a NaN operand gives the canonical NaN.
    pub nan: bool,
    /// `.xorsign.abs`: compare magnitudes; the result's sign is the XOR of the input signs.
    pub xorsign_abs: bool,
}

#[inline]
fn minmax_f32(a: f32, b: f32, m: MinMax, max: bool) -> f32 {
    let (mut a, mut b) = (inp32(a, m.ftz), inp32(b, m.ftz));
    let xs = (a.to_bits() ^ b.to_bits()) & 0x8000_0000;
    if m.xorsign_abs {
        a = f32::from_bits(a.to_bits() & 0x7fff_ffff);
        b = f32::from_bits(b.to_bits() & 0x7fff_ffff);
    }
    let d = match (isnan32(a), isnan32(b)) {
        (true, true) => return f32::from_bits(CANONICAL_NAN_F32),
        (true, false) | (false, true) if m.nan => return f32::from_bits(CANONICAL_NAN_F32),
        (true, false) => b,
        (false, true) => a,
        (false, false) => pick_f32(a, b, max),
    };
    if m.xorsign_abs {
        f32::from_bits((d.to_bits() & 0x7fff_ffff) | xs)
    } else {
        d
    }
}

#[inline]
fn pick_f32(a: f32, b: f32, max: bool) -> f32 {
    if a == b {
        // ±0: +0 > -0.
        let neg = if max {
            a.is_sign_negative() && b.is_sign_negative()
        } else {
            a.is_sign_negative() || b.is_sign_negative()
        };
        return if neg { -a.abs() } else { a.abs() };
    }
    if (a < b) != max { a } else { b }
}

/// `min{.ftz}{.NaN}{.xorsign.abs}.f32 d, a, b`: a NaN operand is ignored (both NaN, or
/// `.NaN` with either: canonical NaN); `-0 < +0`.
#[inline]
pub fn min_f32(a: f32, b: f32, m: MinMax) -> f32 {
    minmax_f32(a, b, m, false)
}

/// `max{.ftz}{.NaN}{.xorsign.abs}.f32 d, a, b`.
#[inline]
pub fn max_f32(a: f32, b: f32, m: MinMax) -> f32 {
    minmax_f32(a, b, m, true)
}

#[inline]
fn minmax_f64(a: f64, b: f64, max: bool) -> f64 {
    match (isnan64(a), isnan64(b)) {
        (true, true) => f64::from_bits(CANONICAL_NAN_F64),
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            if a == b {
                let neg = if max {
                    a.is_sign_negative() && b.is_sign_negative()
                } else {
                    a.is_sign_negative() || b.is_sign_negative()
                };
                return if neg { -a.abs() } else { a.abs() };
            }
            if (a < b) != max { a } else { b }
        }
    }
}

/// `min.f64 d, a, b`.
#[inline]
pub fn min_f64(a: f64, b: f64) -> f64 {
    minmax_f64(a, b, false)
}

/// `max.f64 d, a, b`.
#[inline]
pub fn max_f64(a: f64, b: f64) -> f64 {
    minmax_f64(a, b, true)
}

/// `copysign.f32 d, a, b`: `b`'s value (payload included) with `a`'s sign bit.
#[inline]
pub fn copysign_f32(a: f32, b: f32) -> f32 {
    f32::from_bits((b.to_bits() & 0x7fff_ffff) | (a.to_bits() & 0x8000_0000))
}

/// `copysign.f64 d, a, b`.
#[inline]
pub fn copysign_f64(a: f64, b: f64) -> f64 {
    f64::from_bits((b.to_bits() & !(1 << 63)) | (a.to_bits() & (1 << 63)))
}

/// The property a `testp` tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TestpOp {
    /// `.finite`: not infinite and not NaN.
    Finite,
    /// `.infinite`: ±inf.
    Infinite,
    /// `.number`: not NaN.
    Number,
    /// `.notanumber`: NaN.
    NotANumber,
    /// `.normal`: a normal number; ±0 counts as normal.
    Normal,
    /// `.subnormal`: a subnormal number.
    Subnormal,
}

/// `testp.op.f32 p, a`.
#[inline]
pub fn testp_f32(op: TestpOp, a: f32) -> bool {
    match op {
        TestpOp::Finite => a.is_finite(),
        TestpOp::Infinite => a.is_infinite(),
        TestpOp::Number => !a.is_nan(),
        TestpOp::NotANumber => a.is_nan(),
        TestpOp::Normal => a.is_normal() || a == 0.0,
        TestpOp::Subnormal => a.is_subnormal(),
    }
}

/// `testp.op.f64 p, a`.
#[inline]
pub fn testp_f64(op: TestpOp, a: f64) -> bool {
    match op {
        TestpOp::Finite => a.is_finite(),
        TestpOp::Infinite => a.is_infinite(),
        TestpOp::Number => !a.is_nan(),
        TestpOp::NotANumber => a.is_nan(),
        TestpOp::Normal => a.is_normal() || a == 0.0,
        TestpOp::Subnormal => a.is_subnormal(),
    }
}

/// A floating-point comparison of `setp`/`set` (§9.3.1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `eq`: ordered `a == b`.
    Eq,
    /// `ne`: ordered `a != b` (false when either is NaN).
    Ne,
    /// `lt`.
    Lt,
    /// `le`.
    Le,
    /// `gt`.
    Gt,
    /// `ge`.
    Ge,
    /// `equ`: `a == b` or either NaN.
    Equ,
    /// `neu`.
    Neu,
    /// `ltu`.
    Ltu,
    /// `leu`.
    Leu,
    /// `gtu`.
    Gtu,
    /// `geu`.
    Geu,
    /// `num`: neither is NaN.
    Num,
    /// `nan`: either is NaN.
    Nan,
}

#[inline]
fn cmp_generic<T: PartialOrd>(op: CmpOp, a: T, b: T, unordered: bool) -> bool {
    use CmpOp::*;
    match op {
        Eq => !unordered && a == b,
        Ne => !unordered && a != b,
        Lt => !unordered && a < b,
        Le => !unordered && a <= b,
        Gt => !unordered && a > b,
        Ge => !unordered && a >= b,
        Equ => unordered || a == b,
        Neu => unordered || a != b,
        Ltu => unordered || a < b,
        Leu => unordered || a <= b,
        Gtu => unordered || a > b,
        Geu => unordered || a >= b,
        Num => !unordered,
        Nan => unordered,
    }
}

/// `setp.op{.ftz}.f32` / `set.op{.ftz}.*.f32` comparison: `.ftz` flushes subnormal inputs
/// first (so `setp.eq.ftz` finds a subnormal equal to zero).
#[inline]
pub fn cmp_f32(op: CmpOp, a: f32, b: f32, ftz: bool) -> bool {
    let (a, b) = (inp32(a, ftz), inp32(b, ftz));
    cmp_generic(op, a, b, a.is_nan() || b.is_nan())
}

/// `setp.op.f64` / `set.op.*.f64` comparison.
#[inline]
pub fn cmp_f64(op: CmpOp, a: f64, b: f64) -> bool {
    cmp_generic(op, a, b, a.is_nan() || b.is_nan())
}
