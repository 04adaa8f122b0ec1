//! Conformance of `ptxvm_fp::half` (half-precision arithmetic) and `ptxvm_fp::convert`
//! (`cvt`) against references that share no code with `ptxvm-fp`:
//! * `rustc_apfloat` (Half, BFloat, Single, Double, Float8E4M3FN, Float8E5M2) for every
//!   rounding mode of arithmetic and conversions, integer conversions and integral rounding;
//! * the `half` crate for round-to-nearest f16/bf16 conversions;
//! * host `f64` arithmetic (ex2/tanh, min/max ordering);
//! * exact `i128` arithmetic and small independent decoders written here from the format
//!   definitions (tf32, e2m1, e2m3, e3m2, ue8m0, cvt.pack).
//!
//! Each `check_*` function runs one family of forms and returns the number of cases
//! checked; `CHECKS` lists them with their reference so that
//! `examples/coverage_half_convert.rs` prints the coverage table from the same generators.
#![allow(
    dead_code,
    clippy::type_complexity,
    clippy::should_implement_trait,
    clippy::if_same_then_else,
    clippy::needless_range_loop
)]

use ptxvm_fp::Rnd;
use ptxvm_fp::convert::*;
use ptxvm_fp::half::*;
use rustc_apfloat::ieee::{BFloat, Double, Float8E4M3FN, Float8E5M2, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

// ------------------------------------------------------------------------------------------
// Case generators
// ------------------------------------------------------------------------------------------

/// Deterministic SplitMix64.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

pub const RNDS: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];

/// Interesting 16-bit encodings for a format with `man` fraction bits: zeros, subnormal
/// extremes, normal extremes, one, infinities, NaNs with payloads, and neighbours.
pub fn edge16(man: u32) -> Vec<u16> {
    let inf: u16 = !0u16 << man & 0x7fff;
    let mut v = vec![
        0,
        1,
        2,
        3,
        (1 << man) - 1,
        1 << man,
        (1 << man) + 1,
        inf - 1,
        inf - 2,
        inf,
        inf + 1,
        0x7fff,
        inf | (1 << (man - 1)),
    ];
    let one: u16 = if man == 10 { 0x3c00 } else { 0x3f80 };
    v.extend([one - 1, one, one + 1, one + 2, one * 2 - 1]);
    let n = v.len();
    for i in 0..n {
        v.push(v[i] | 0x8000);
    }
    v
}

/// Seeded 16-bit patterns biased to exponent-adjacent values (so sums cancel and tie).
pub fn pairs16(seed: u64, n: usize, man: u32) -> Vec<(u16, u16, u16)> {
    let mut r = Rng(seed);
    let e = edge16(man);
    let mut out = Vec::with_capacity(n + e.len() * e.len());
    for &a in &e {
        for &b in &e {
            out.push((a, b, e[(a ^ b) as usize % e.len()]));
        }
    }
    while out.len() < n {
        let x = r.next();
        let a = x as u16;
        let b = match (x >> 60) & 3 {
            // Nearby exponent: exercises cancellation and ties.
            0 => a.wrapping_add((x >> 16) as u16 & 0x0fff) ^ ((x >> 40) as u16 & 0x8000),
            _ => (x >> 16) as u16,
        };
        let c = match (x >> 62) & 1 {
            0 => (x >> 32) as u16,
            _ => a.wrapping_add((x >> 48) as u16 & 0x07ff) ^ 0x8000,
        };
        out.push((a, b, c));
    }
    out
}

/// Interesting f32 bit patterns: specials, subnormals, boundaries of f16/bf16/tf32/fp8
/// ranges and of integer ranges, with neighbours and exact rounding ties.
pub fn edge_f32() -> Vec<u32> {
    let mut base: Vec<u32> = vec![
        0,
        1,
        2,
        0x007f_ffff,
        0x0080_0000,
        0x0080_0001,
        0x3f80_0000,
        0x3f00_0000,
        0x3fc0_0000,
        0x7f7f_ffff,
        0x7f80_0000,
        0x7f80_0001,
        0x7fc0_0000,
        0x7fff_ffff,
        0x7fa0_0000,
    ];
    let specials: [f32; 26] = [
        65504.0,
        65520.0,
        65519.99,
        6.103_515_6e-5,
        5.960_464_5e-8,
        2.980_232_2e-8,
        448.0,
        464.0,
        480.0,
        57344.0,
        61440.0,
        6.0,
        7.5,
        28.0,
        0.5,
        1.5,
        2.5,
        127.5,
        128.0,
        255.5,
        32767.5,
        65535.5,
        2147483648.0,
        4294967296.0,
        9.223_372e18,
        1.844_674_4e19,
    ];
    for s in specials {
        let b = s.to_bits();
        base.extend([b - 1, b, b + 1]);
    }
    // Ties for f16/bf16/tf32 rounding: low bits exactly half.
    for e in [
        0x3f80_0000u32,
        0x4780_0000,
        0x3380_0000,
        0x0080_0000,
        0x0000_0000,
    ] {
        for low in [
            0x1000u32, 0x3000, 0x0fff, 0x1001, 0x8000, 0x18000, 0x7fff, 0x8001,
        ] {
            base.push(e | low);
        }
    }
    let n = base.len();
    for i in 0..n {
        base.push(base[i] | 0x8000_0000);
    }
    base
}

pub fn f32_cases(seed: u64, n: usize) -> Vec<u32> {
    let mut v = edge_f32();
    let mut r = Rng(seed);
    while v.len() < n {
        let x = r.next();
        v.push(x as u32);
        v.push((x >> 32) as u32);
    }
    v
}

pub fn f64_cases(seed: u64, n: usize) -> Vec<u64> {
    let mut v: Vec<u64> = edge_f32()
        .iter()
        .map(|&b| (f32::from_bits(b) as f64).to_bits())
        .collect();
    v.extend([
        0x7ff8_0000_0000_0001u64,
        0x0000_0000_0000_0001,
        0x000f_ffff_ffff_ffff,
        0x7fef_ffff_ffff_ffff,
    ]);
    // Doubles near f32 ties.
    let mut r = Rng(seed);
    while v.len() < n {
        let x = r.next();
        v.push(match x & 3 {
            0 => (f32::from_bits((x >> 32) as u32) as f64).to_bits() ^ (1u64 << (x >> 2 & 31)),
            1 => {
                // Exponent in the f16/f32 range with random fraction.
                let e = 1023 - 160 + ((x >> 2) % 320);
                (e << 52) | (x >> 12) | (x & (1 << 63))
            }
            _ => x,
        });
    }
    v
}

pub fn int_cases(seed: u64, n: usize) -> Vec<u64> {
    let mut v = vec![
        0u64,
        1,
        2,
        3,
        u64::MAX,
        u64::MAX - 1,
        1 << 63,
        (1 << 63) - 1,
    ];
    for k in [8, 11, 12, 16, 24, 25, 31, 32, 53, 54, 63] {
        let p = 1u64 << k;
        v.extend([
            p - 1,
            p,
            p + 1,
            p.wrapping_neg(),
            (p + 1).wrapping_neg(),
            p | (p >> 11),
            p | (p >> 12),
        ]);
    }
    let mut r = Rng(seed);
    while v.len() < n {
        let x = r.next();
        let sh = (x >> 58) as u32; // random magnitude
        v.push((x >> sh) ^ if x & 1 == 1 { u64::MAX } else { 0 });
    }
    v
}

// ------------------------------------------------------------------------------------------
// Reference helpers
// ------------------------------------------------------------------------------------------

fn rr(r: Rnd) -> Round {
    match r {
        Rnd::Rn => Round::NearestTiesToEven,
        Rnd::Rz => Round::TowardZero,
        Rnd::Rm => Round::TowardNegative,
        Rnd::Rp => Round::TowardPositive,
        Rnd::Rna => Round::NearestTiesToAway,
    }
}

fn fail(what: &str, inputs: String, got: u64, want: u64) -> ! {
    panic!("{what}: inputs {inputs}: got {got:#x}, want {want:#x}");
}

macro_rules! expect {
    ($what:expr, $got:expr, $want:expr, $($fmt:tt)*) => {{
        let (g, w) = ($got as u64, $want as u64);
        if g != w {
            fail(&$what, format!($($fmt)*), g, w);
        }
    }};
}

/// Canonicalize a reference result of width `w` bits: NaN → `0x7f..f`.
fn canon<F: Float>(x: F, w: u32) -> u64 {
    if x.is_nan() {
        (1u64 << (w - 1)) - 1
    } else {
        x.to_bits() as u64
    }
}

fn is_sub16(b: u16, man: u32) -> bool {
    let m = b & 0x7fff;
    m != 0 && m < (1 << man)
}
fn flush16(b: u16, man: u32) -> u16 {
    if is_sub16(b, man) { b & 0x8000 } else { b }
}
fn is_nan16(b: u16, man: u32) -> bool {
    (b & 0x7fff) > (!0u16 << man & 0x7fff)
}
/// `.sat` on 16-bit results from its definition (1.0 encodings: 0x3c00 / 0x3f80).
fn sat16(b: u16, man: u32) -> u16 {
    let one = if man == 10 { 0x3c00 } else { 0x3f80 };
    if is_nan16(b, man) || b & 0x8000 != 0 {
        0
    } else if b > one {
        one
    } else {
        b
    }
}
fn relu16(b: u16, man: u32) -> u16 {
    if is_nan16(b, man) {
        0x7fff
    } else if b & 0x8000 != 0 {
        0
    } else {
        b
    }
}

// ------------------------------------------------------------------------------------------
// Half-precision arithmetic
// ------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Fma,
}

fn ref_arith<F: Float>(op: Op, a: u16, b: u16, c: u16, rnd: Rnd) -> u16 {
    let (x, y, z) = (
        F::from_bits(a as u128),
        F::from_bits(b as u128),
        F::from_bits(c as u128),
    );
    let r = match op {
        Op::Add => x.add_r(y, rr(rnd)).value,
        Op::Sub => x.sub_r(y, rr(rnd)).value,
        Op::Mul => x.mul_r(y, rr(rnd)).value,
        Op::Fma => x.mul_add_r(y, z, rr(rnd)).value,
    };
    canon(r, 16) as u16
}

/// f16 add/sub/mul/fma (+ x2) with every rounding mode and `.ftz`/`.sat`/`.relu`,
/// against `rustc_apfloat::Half` with the modifiers applied from their definitions.
pub fn check_f16_arith(op: Op, n: usize) -> u64 {
    let mut count = 0;
    for (i, &(a, b, c)) in pairs16(0xf16 + op as u64, n, 10).iter().enumerate() {
        let rnd = RNDS[i % 4];
        let ftz = i & 4 != 0;
        let (sat, relu) = match (i >> 3) % 3 {
            0 => (false, false),
            1 => (true, false),
            _ => (false, op == Op::Fma),
        };
        let (ia, ib, ic) = if ftz {
            (flush16(a, 10), flush16(b, 10), flush16(c, 10))
        } else {
            (a, b, c)
        };
        let mut want = ref_arith::<Half>(op, ia, ib, ic, rnd);
        if ftz {
            want = flush16(want, 10);
        }
        if relu {
            want = relu16(want, 10);
        }
        if sat {
            want = sat16(want, 10);
        }
        let m = HalfMods { ftz, sat, relu };
        let got = match op {
            Op::Add => add_f16(a, b, rnd, ftz, sat),
            Op::Sub => sub_f16(a, b, rnd, ftz, sat),
            Op::Mul => mul_f16(a, b, rnd, ftz, sat),
            Op::Fma => fma_f16(a, b, c, rnd, m),
        };
        expect!(
            format!("{op:?}.f16"),
            got,
            want,
            "{a:#x} {b:#x} {c:#x} {rnd:?} {m:?}"
        );
        // Packed: element 0 in the low half.
        let (pa, pb, pc) = (
            (a as u32) | (b as u32) << 16,
            (b as u32) | (c as u32) << 16,
            (c as u32) | (a as u32) << 16,
        );
        let got2 = match op {
            Op::Add => add_f16x2(pa, pb, rnd, ftz, sat),
            Op::Sub => sub_f16x2(pa, pb, rnd, ftz, sat),
            Op::Mul => mul_f16x2(pa, pb, rnd, ftz, sat),
            Op::Fma => fma_f16x2(pa, pb, pc, rnd, m),
        };
        let lo = match op {
            Op::Add => add_f16(a, b, rnd, ftz, sat),
            Op::Sub => sub_f16(a, b, rnd, ftz, sat),
            Op::Mul => mul_f16(a, b, rnd, ftz, sat),
            Op::Fma => fma_f16(a, b, c, rnd, m),
        };
        let hi = match op {
            Op::Add => add_f16(b, c, rnd, ftz, sat),
            Op::Sub => sub_f16(b, c, rnd, ftz, sat),
            Op::Mul => mul_f16(b, c, rnd, ftz, sat),
            Op::Fma => fma_f16(b, c, a, rnd, m),
        };
        expect!(
            format!("{op:?}.f16x2"),
            got2,
            (hi as u32) << 16 | lo as u32,
            "{pa:#x} {pb:#x} {pc:#x}"
        );
        count += 2;
    }
    count
}

/// bf16 add/sub/mul/fma (+ x2, `.relu` for fma) with every rounding mode, against
/// `rustc_apfloat::BFloat`.
pub fn check_bf16_arith(op: Op, n: usize) -> u64 {
    let mut count = 0;
    for (i, &(a, b, c)) in pairs16(0xbf16 + op as u64, n, 7).iter().enumerate() {
        let rnd = RNDS[i % 4];
        let relu = op == Op::Fma && i & 4 != 0;
        let mut want = ref_arith::<BFloat>(op, a, b, c, rnd);
        if relu {
            want = relu16(want, 7);
        }
        let got = match op {
            Op::Add => add_bf16(a, b, rnd),
            Op::Sub => sub_bf16(a, b, rnd),
            Op::Mul => mul_bf16(a, b, rnd),
            Op::Fma => fma_bf16(a, b, c, rnd, relu),
        };
        expect!(
            format!("{op:?}.bf16"),
            got,
            want,
            "{a:#x} {b:#x} {c:#x} {rnd:?} relu={relu}"
        );
        let (pa, pb, pc) = (
            (a as u32) << 16 | c as u32,
            (b as u32) << 16 | a as u32,
            (c as u32) << 16 | b as u32,
        );
        let got2 = match op {
            Op::Add => add_bf16x2(pa, pb, rnd),
            Op::Sub => sub_bf16x2(pa, pb, rnd),
            Op::Mul => mul_bf16x2(pa, pb, rnd),
            Op::Fma => fma_bf16x2(pa, pb, pc, rnd, relu),
        };
        expect!(
            format!("{op:?}.bf16x2 hi"),
            got2 >> 16,
            got,
            "{pa:#x} {pb:#x} {pc:#x}"
        );
        count += 2;
    }
    count
}

/// `fma.rn.oob{.relu}` (f16, bf16, x2): OOB-NaN operand → +0, otherwise plain fma.
pub fn check_fma_oob(n: usize) -> u64 {
    let mut count = 0;
    for (i, &(a, b, c)) in pairs16(0x00b, n, 10).iter().enumerate() {
        let relu = i & 1 == 1;
        let (a, b, c) = match i % 5 {
            0 => (0x7fff, b, c),
            1 => (a, 0x7fff, c),
            2 => (a, b, 0x7fff),
            _ => (a, b, c),
        };
        let oob = a == 0x7fff || b == 0x7fff || c == 0x7fff;
        let want = if oob {
            0
        } else {
            relu_or(ref_arith::<Half>(Op::Fma, a, b, c, Rnd::Rn), relu, 10)
        };
        expect!(
            "fma.oob.f16",
            fma_oob_f16(a, b, c, relu),
            want,
            "{a:#x} {b:#x} {c:#x}"
        );
        let want = if oob {
            0
        } else {
            relu_or(ref_arith::<BFloat>(Op::Fma, a, b, c, Rnd::Rn), relu, 7)
        };
        expect!(
            "fma.oob.bf16",
            fma_oob_bf16(a, b, c, relu),
            want,
            "{a:#x} {b:#x} {c:#x}"
        );
        let x2 = fma_oob_f16x2(
            (a as u32) << 16 | 0x3c00,
            (b as u32) << 16 | 0x7fff,
            (c as u32) << 16,
            relu,
        );
        expect!(
            "fma.oob.f16x2",
            x2,
            (fma_oob_f16(a, b, c, relu) as u32) << 16,
            "{a:#x} {b:#x} {c:#x}"
        );
        let x2 = fma_oob_bf16x2((a as u32) << 16, (b as u32) << 16, (c as u32) << 16, relu);
        expect!(
            "fma.oob.bf16x2",
            x2,
            (fma_oob_bf16(a, b, c, relu) as u32) << 16 | fma_oob_bf16(0, 0, 0, relu) as u32,
            "{a:#x}"
        );
        count += 4;
    }
    count
}

fn relu_or(x: u16, relu: bool, man: u32) -> u16 {
    if relu { relu16(x, man) } else { x }
}

/// Reference min/max from the §9.7.3.11 pseudo-code using host f32 comparisons.
fn ref_minmax(a: u16, b: u16, man: u32, is_max: bool, m: MinMaxMods) -> u16 {
    let to = |x: u16| {
        if man == 10 {
            half::f16::from_bits(x).to_f32()
        } else {
            half::bf16::from_bits(x).to_f32()
        }
    };
    let (mut a, mut b) = (a, b);
    if m.ftz {
        a = flush16(a, man);
        b = flush16(b, man);
    }
    let xs = (a ^ b) & 0x8000;
    if m.xorsign_abs {
        a &= 0x7fff;
        b &= 0x7fff;
    }
    let (fa, fb) = (to(a), to(b));
    let d = if fa.is_nan() && fb.is_nan() {
        return 0x7fff;
    } else if m.nan && (fa.is_nan() || fb.is_nan()) {
        return 0x7fff;
    } else if fa.is_nan() {
        b
    } else if fb.is_nan() {
        a
    } else if fa == fb {
        // ±0: +0 > -0.
        let a_pos = a & 0x8000 == 0;
        if is_max == a_pos { a } else { b }
    } else if is_max == (fa > fb) {
        a
    } else {
        b
    };
    let d = if m.xorsign_abs { (d & 0x7fff) | xs } else { d };
    if m.ftz { flush16(d, man) } else { d }
}

/// min/max `.f16 .f16x2 .bf16 .bf16x2` with `.ftz .NaN .xorsign.abs`.
pub fn check_minmax(n: usize) -> u64 {
    let mut count = 0;
    for man in [10u32, 7] {
        for (i, &(a, b, _)) in pairs16(0x313 + man as u64, n, man).iter().enumerate() {
            let m = MinMaxMods {
                ftz: man == 10 && i & 1 != 0,
                nan: i & 2 != 0,
                xorsign_abs: i & 4 != 0,
            };
            for is_max in [false, true] {
                let want = ref_minmax(a, b, man, is_max, m);
                let got = match (man, is_max) {
                    (10, false) => min_f16(a, b, m),
                    (10, true) => max_f16(a, b, m),
                    (_, false) => min_bf16(a, b, m),
                    (_, true) => max_bf16(a, b, m),
                };
                expect!(
                    format!("min/max man={man} max={is_max}"),
                    got,
                    want,
                    "{a:#x} {b:#x} {m:?}"
                );
                let (pa, pb) = ((a as u32) << 16 | b as u32, (b as u32) << 16 | a as u32);
                let got2 = match (man, is_max) {
                    (10, false) => min_f16x2(pa, pb, m),
                    (10, true) => max_f16x2(pa, pb, m),
                    (_, false) => min_bf16x2(pa, pb, m),
                    (_, true) => max_bf16x2(pa, pb, m),
                };
                let w2 = (want as u32) << 16 | ref_minmax(b, a, man, is_max, m) as u32;
                expect!(
                    format!("min/max x2 man={man} max={is_max}"),
                    got2,
                    w2,
                    "{pa:#x} {pb:#x} {m:?}"
                );
                count += 2;
            }
        }
    }
    count
}

/// neg/abs `.f16{.ftz}` `.bf16` and x2, exhaustive over all 65,536 inputs.
pub fn check_neg_abs_exhaustive() -> u64 {
    let mut count = 0;
    for a in 0..=u16::MAX {
        let h = half::f16::from_bits(a);
        expect!("neg.f16", neg_f16(a, false), (-h).to_bits(), "{a:#x}");
        let fa = if is_sub16(a, 10) { a & 0x8000 } else { a };
        expect!("neg.ftz.f16", neg_f16(a, true), fa ^ 0x8000, "{a:#x}");
        expect!("abs.f16", abs_f16(a, false), a & 0x7fff, "{a:#x}");
        expect!("abs.ftz.f16", abs_f16(a, true), fa & 0x7fff, "{a:#x}");
        let b = half::bf16::from_bits(a);
        expect!("neg.bf16", neg_bf16(a), (-b).to_bits(), "{a:#x}");
        expect!("abs.bf16", abs_bf16(a), a & 0x7fff, "{a:#x}");
        let p = (a as u32) << 16 | (a ^ 0x8000) as u32;
        expect!("neg.f16x2", neg_f16x2(p, false), p ^ 0x8000_8000, "{a:#x}");
        expect!("abs.bf16x2", abs_bf16x2(p), p & 0x7fff_7fff, "{a:#x}");
        expect!("neg.bf16x2", neg_bf16x2(p), p ^ 0x8000_8000, "{a:#x}");
        expect!("abs.f16x2", abs_f16x2(p, false), p & 0x7fff_7fff, "{a:#x}");
        count += 10;
    }
    count
}

/// Max relative error seen (as -log2) for normal results, and count.
pub struct ApproxStats {
    pub cases: u64,
    pub max_rel_err: f64,
    pub max_ulp: f64,
}

/// ex2.approx / tanh.approx for `.f16 .bf16` (and x2), exhaustive: the result must be the
/// correctly rounded host-f64 value (half crate's f64→f16/bf16), within the spec bound.
pub fn check_ex2_tanh_exhaustive() -> (u64, [ApproxStats; 4]) {
    let mut stats: [ApproxStats; 4] = std::array::from_fn(|_| ApproxStats {
        cases: 0,
        max_rel_err: 0.0,
        max_ulp: 0.0,
    });
    let mut count = 0;
    for a in 0..=u16::MAX {
        for k in 0..4 {
            let is_f16 = k % 2 == 0;
            let man = if is_f16 { 10 } else { 7 };
            let x = if is_f16 {
                half::f16::from_bits(a).to_f64()
            } else {
                half::bf16::from_bits(a).to_f64()
            };
            let ftz = !is_f16; // ex2.approx.ftz.bf16 is the only bf16 form.
            let (exact, got) = if k < 2 {
                let xin = if ftz && is_sub16(a, man) { 0.0 } else { x };
                let e = xin.exp2();
                (
                    e,
                    if is_f16 {
                        ex2_f16(a)
                    } else {
                        ex2_bf16(a, true)
                    },
                )
            } else {
                (x.tanh(), if is_f16 { tanh_f16(a) } else { tanh_bf16(a) })
            };
            // (half::f16::from_f64 double-rounds through f32 on some targets; apfloat rounds once.)
            let ed = Double::from_bits(exact.to_bits() as u128);
            let mut want = if is_f16 {
                canon::<Half>(ed.convert(&mut false).value, 16) as u16
            } else {
                canon::<BFloat>(ed.convert(&mut false).value, 16) as u16
            };
            if k < 2 && ftz {
                want = flush16(want, man);
            }
            if is_nan16(want, man) {
                want = 0x7fff;
            }
            expect!(
                format!(
                    "{}.approx.{}",
                    if k < 2 { "ex2" } else { "tanh" },
                    if is_f16 { "f16" } else { "bf16" }
                ),
                got,
                want,
                "{a:#x}"
            );
            let g = if is_f16 {
                half::f16::from_bits(got).to_f64()
            } else {
                half::bf16::from_bits(got).to_f64()
            };
            if exact.is_finite() && !is_sub16(got, man) && got & 0x7fff != 0 && g.is_finite() {
                let rel = ((g - exact) / exact).abs();
                let s = &mut stats[k];
                s.max_rel_err = s.max_rel_err.max(rel);
                let ulp = (2f64).powi(exact.abs().log2().floor() as i32 - man as i32);
                s.max_ulp = s.max_ulp.max((g - exact).abs() / ulp);
            }
            stats[k].cases += 1;
            count += 1;
        }
        let p = (a as u32) << 16 | 0x3c00;
        expect!(
            "ex2.f16x2",
            ex2_f16x2(p),
            (ex2_f16(a) as u32) << 16 | 0x4000,
            "{a:#x}"
        );
        expect!(
            "tanh.f16x2",
            tanh_f16x2(p),
            (tanh_f16(a) as u32) << 16 | tanh_f16(0x3c00) as u32,
            "{a:#x}"
        );
        let p = (a as u32) | 0x3f80 << 16;
        expect!(
            "ex2.bf16x2",
            ex2_bf16x2(p, true),
            0x4000 << 16 | ex2_bf16(a, true) as u32,
            "{a:#x}"
        );
        expect!(
            "tanh.bf16x2",
            tanh_bf16x2(p),
            (tanh_bf16(0x3f80) as u32) << 16 | tanh_bf16(a) as u32,
            "{a:#x}"
        );
        count += 4;
    }
    (count, stats)
}

// ------------------------------------------------------------------------------------------
// cvt from 16-bit sources (exhaustive)
// ------------------------------------------------------------------------------------------

/// `cvt{.ftz}{.sat}.f32.f16`, `.f64.f16`, `.f32.bf16`, `.f64.bf16`: exhaustive vs half crate
/// and apfloat.
pub fn check_cvt_from16_widen_exhaustive() -> u64 {
    let mut count = 0;
    for a in 0..=u16::MAX {
        for (ty, man) in [(FloatType::F16, 10u32), (FloatType::BF16, 7)] {
            let (h32, h64) = if man == 10 {
                let h = half::f16::from_bits(a);
                (h.to_f32(), h.to_f64())
            } else {
                let h = half::bf16::from_bits(a);
                (h.to_f32(), h.to_f64())
            };
            let ap32: u64 = if man == 10 {
                canon::<Single>(Half::from_bits(a as u128).convert(&mut false).value, 32)
            } else {
                canon::<Single>(BFloat::from_bits(a as u128).convert(&mut false).value, 32)
            };
            let w32 = if h32.is_nan() {
                0x7fff_ffff
            } else {
                h32.to_bits()
            };
            assert_eq!(ap32, w32 as u64);
            for rnd in RNDS {
                let got = cvt_float_to_float(a as u64, ty, FloatType::F32, rnd, CvtMods::default());
                expect!("cvt.f32.f16/bf16", got, w32, "{a:#x}");
            }
            let got = cvt_float_to_float(a as u64, ty, FloatType::F64, Rnd::Rn, CvtMods::default());
            let w64 = if h64.is_nan() {
                0x7fff_ffff_ffff_ffff
            } else {
                h64.to_bits()
            };
            expect!("cvt.f64.f16/bf16", got, w64, "{a:#x}");
            // .ftz (on the f32 result) and .sat.
            let wf = if f32::from_bits(w32).is_subnormal() {
                w32 & 0x8000_0000
            } else {
                w32
            };
            let m = CvtMods {
                ftz: true,
                ..Default::default()
            };
            expect!(
                "cvt.ftz.f32.f16",
                cvt_float_to_float(a as u64, ty, FloatType::F32, Rnd::Rn, m),
                wf,
                "{a:#x}"
            );
            let ws = if h32.is_nan() || h32.is_sign_negative() {
                0
            } else {
                h32.min(1.0).to_bits()
            };
            let m = CvtMods {
                sat: true,
                ..Default::default()
            };
            expect!(
                "cvt.sat.f32.f16",
                cvt_float_to_float(a as u64, ty, FloatType::F32, Rnd::Rn, m),
                ws,
                "{a:#x}"
            );
            let ws64 = if h64.is_nan() || h64.is_sign_negative() {
                0
            } else {
                h64.min(1.0).to_bits()
            };
            expect!(
                "cvt.sat.f64.f16",
                cvt_float_to_float(a as u64, ty, FloatType::F64, Rnd::Rn, m),
                ws64,
                "{a:#x}"
            );
            if man == 10 {
                expect!(
                    "cvt_f16_to_f32",
                    cvt_f16_to_f32(a, false, false).to_bits(),
                    w32,
                    "{a:#x}"
                );
            } else {
                expect!(
                    "cvt_bf16_to_f32",
                    cvt_bf16_to_f32(a, false, false).to_bits(),
                    w32,
                    "{a:#x}"
                );
            }
            count += 9;
        }
    }
    count
}

/// `cvt.frnd.bf16.f16` / `cvt.frnd.f16.bf16` (all four modes, `.sat` on f16) exhaustive vs
/// apfloat; plus `cvt.irnd.f16.f16` / `cvt.irnd.bf16.bf16` (integral rounding) vs apfloat.
pub fn check_cvt_16_to_16_exhaustive() -> u64 {
    let mut count = 0;
    for a in 0..=u16::MAX {
        for rnd in RNDS {
            let w: u64 = canon::<BFloat>(
                Half::from_bits(a as u128)
                    .convert_r(rr(rnd), &mut false)
                    .value,
                16,
            );
            let got = cvt_float_to_float(
                a as u64,
                FloatType::F16,
                FloatType::BF16,
                rnd,
                CvtMods::default(),
            );
            expect!("cvt.frnd.bf16.f16", got, w, "{a:#x} {rnd:?}");
            let w: u64 = canon::<Half>(
                BFloat::from_bits(a as u128)
                    .convert_r(rr(rnd), &mut false)
                    .value,
                16,
            );
            let got = cvt_float_to_float(
                a as u64,
                FloatType::BF16,
                FloatType::F16,
                rnd,
                CvtMods::default(),
            );
            expect!("cvt.frnd.f16.bf16", got, w, "{a:#x} {rnd:?}");
            let m = CvtMods {
                sat: true,
                ..Default::default()
            };
            let got = cvt_float_to_float(a as u64, FloatType::BF16, FloatType::F16, rnd, m);
            expect!(
                "cvt.frnd.sat.f16.bf16",
                got,
                sat16(w as u16, 10),
                "{a:#x} {rnd:?}"
            );
            // integral rounding
            let w = canon::<Half>(
                Half::from_bits(a as u128).round_to_integral(rr(rnd)).value,
                16,
            );
            expect!(
                "cvt.irnd.f16.f16",
                cvt_float_round_int(a as u64, FloatType::F16, rnd, false, false),
                w,
                "{a:#x} {rnd:?}"
            );
            let w = canon::<BFloat>(
                BFloat::from_bits(a as u128)
                    .round_to_integral(rr(rnd))
                    .value,
                16,
            );
            expect!(
                "cvt.irnd.bf16.bf16",
                cvt_float_round_int(a as u64, FloatType::BF16, rnd, false, false),
                w,
                "{a:#x} {rnd:?}"
            );
            count += 5;
        }
        // Same-type identity with .sat / NaN canonicalisation.
        let m = CvtMods {
            sat: true,
            ..Default::default()
        };
        expect!(
            "cvt.sat.f16.f16",
            cvt_float_to_float(a as u64, FloatType::F16, FloatType::F16, Rnd::Rn, m),
            sat16(a, 10),
            "{a:#x}"
        );
        count += 1;
    }
    count
}

/// The float-to-integer conversion by rustc_apfloat (which saturates, as PTX does), with
/// PTX ISA 9.0's NaN rule written out: 0 unless the source is `.f64` or the destination is
/// 64 bits wide, then `1 << (bits - 1)`.
fn ref_to_int<F: Float>(x: F, dst: IntType, rnd: Rnd) -> u64 {
    if x.is_nan() {
        let from_f64 = F::BITS == 64;
        return if from_f64 || dst.bits() == 64 {
            1u64 << (dst.bits() - 1)
        } else {
            0
        };
    }
    let v: i128 = if dst.signed() {
        x.to_i128_r(dst.bits() as usize, rr(rnd), &mut false).value
    } else {
        x.to_u128_r(dst.bits() as usize, rr(rnd), &mut false).value as i128
    };
    (v as u64) & (u64::MAX >> (64 - dst.bits()))
}

/// `cvt.irnd.{u8..s64}.{f16,bf16}`: exhaustive × 8 types × 4 modes vs apfloat.
pub fn check_cvt_16_to_int_exhaustive() -> u64 {
    let mut count = 0;
    for a in 0..=u16::MAX {
        for dst in IntType::ALL {
            for rnd in RNDS {
                let w = ref_to_int(Half::from_bits(a as u128), dst, rnd);
                expect!(
                    "cvt.irnd.int.f16",
                    cvt_float_to_int(a as u64, FloatType::F16, dst, rnd, false),
                    w,
                    "{a:#x} {dst:?} {rnd:?}"
                );
                let w = ref_to_int(BFloat::from_bits(a as u128), dst, rnd);
                expect!(
                    "cvt.irnd.int.bf16",
                    cvt_float_to_int(a as u64, FloatType::BF16, dst, rnd, false),
                    w,
                    "{a:#x} {dst:?} {rnd:?}"
                );
                count += 2;
            }
        }
    }
    count
}

fn sat_fp8<F: Float>(x: F, max_bits: u64) -> u64 {
    // .satfinite: NaN → 0x7f; |x| > MAX_NORM (including inf) → ±MAX_NORM.
    let _ = x;
    max_bits
}

/// Reference f8 conversion with `.rn.satfinite{.relu}`.
fn ref_to_f8<S: Float + FloatConvert<Float8E4M3FN> + FloatConvert<Float8E5M2>>(
    x: S,
    e4m3: bool,
    relu: bool,
) -> u16 {
    if x.is_nan() {
        return 0x7f;
    }
    let neg = x.is_negative();
    let (r, max): (u64, u64) = if e4m3 {
        let r: Float8E4M3FN = x.convert(&mut false).value;
        (
            if r.is_nan() {
                0x7e | (neg as u64) << 7
            } else {
                r.to_bits() as u64
            },
            0x7e,
        )
    } else {
        let r: Float8E5M2 = x.convert(&mut false).value;
        (
            if r.is_infinite() {
                0x7b | (neg as u64) << 7
            } else {
                r.to_bits() as u64
            },
            0x7b,
        )
    };
    let _ = sat_fp8(x, max);
    let r = r as u16;
    if relu && r & 0x80 != 0 { 0 } else { r }
}

/// `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2` exhaustive over every f16 lane value, and
/// `cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}` exhaustive over all 65,536 packed inputs; vs apfloat.
pub fn check_fp8_exhaustive() -> u64 {
    let mut count = 0;
    for a in 0..=u16::MAX {
        for (ty, e4) in [(NarrowType::E4M3, true), (NarrowType::E5M2, false)] {
            for relu in [false, true] {
                // decode: pair (hi byte, lo byte)
                let dec = |b: u16| -> u16 {
                    let r: u64 = if e4 {
                        canon::<Half>(
                            Float8E4M3FN::from_bits(b as u128).convert(&mut false).value,
                            16,
                        )
                    } else {
                        canon::<Half>(
                            Float8E5M2::from_bits(b as u128).convert(&mut false).value,
                            16,
                        )
                    };
                    relu_or(r as u16, relu, 10)
                };
                let want = (dec(a >> 8) as u32) << 16 | dec(a & 0xff) as u32;
                expect!(
                    "cvt.rn.f16x2.f8x2",
                    cvt_narrow_to_f16x2(a, ty, relu),
                    want,
                    "{a:#x} {ty:?} relu={relu}"
                );
                // encode f16 lanes.
                let x = Half::from_bits(a as u128);
                let w = ref_to_f8(x, e4, relu);
                let p = (a as u32) << 16 | 0x3c00;
                let one = if e4 { 0x38 } else { 0x3c };
                expect!(
                    "cvt.rn.satfinite.f8x2.f16x2",
                    cvt_f16x2_to_narrow(p, ty, relu),
                    w << 8 | one,
                    "{a:#x} {ty:?} relu={relu}"
                );
                count += 2;
            }
        }
    }
    count
}

// ------------------------------------------------------------------------------------------
// cvt from f32 / f64
// ------------------------------------------------------------------------------------------

/// Independent tf32 reference from bit manipulation (1-8-10 with f32 exponent range).
pub fn ref_tf32(b: u32, rnd: Rnd, relu: bool, satfinite: bool) -> u32 {
    let x = f32::from_bits(b);
    let r = if x.is_nan() {
        0x7fff_ffff
    } else if x.is_infinite() {
        if satfinite {
            (b & 0x8000_0000) | 0x7f7f_e000
        } else {
            b
        }
    } else {
        let neg = b >> 31 == 1;
        let low = b & 0x1fff;
        let t = b & !0x1fff;
        let up = match rnd {
            Rnd::Rn => low > 0x1000 || (low == 0x1000 && t & 0x2000 != 0),
            Rnd::Rna => low >= 0x1000,
            Rnd::Rz => false,
            Rnd::Rp => low != 0 && !neg,
            Rnd::Rm => low != 0 && neg,
        };
        let r = if up { t + 0x2000 } else { t };
        if (r & 0x7fff_ffff) >= 0x7f80_0000 && satfinite {
            (r & 0x8000_0000) | 0x7f7f_e000
        } else {
            r
        }
    };
    if relu && f32::from_bits(r).is_nan() {
        0x7fff_ffff
    } else if relu && r >> 31 == 1 {
        0
    } else {
        r
    }
}

/// Reference f32 → integer: exact from apfloat `Single::to_i128_r`.
/// Every f32 → {f16, bf16, tf32, e4m3x2, e5m2x2, u8..s64} form over `n` seeded patterns plus
/// edge cases, with all modes/modifiers, vs apfloat, the half crate and `ref_tf32`.
pub fn check_cvt_from_f32(n: usize) -> u64 {
    let mut count = 0;
    let cases = f32_cases(0xc0f32, n);
    for (i, &b) in cases.iter().enumerate() {
        let x = f32::from_bits(b);
        let s = Single::from_bits(b as u128);
        let rnd = RNDS[i % 4];
        // f16 / bf16 with all modes, and rn against the half crate.
        let wh: u64 = canon::<Half>(s.convert_r(rr(rnd), &mut false).value, 16);
        let wb: u64 = canon::<BFloat>(s.convert_r(rr(rnd), &mut false).value, 16);
        expect!(
            "cvt.frnd.f16.f32",
            cvt_f32_to_f16(x, rnd, false, false, false, false),
            wh,
            "{b:#x} {rnd:?}"
        );
        expect!(
            "cvt.frnd.bf16.f32",
            cvt_f32_to_bf16(x, rnd, false, false),
            wb,
            "{b:#x} {rnd:?}"
        );
        let hr = half::f16::from_f32(x).to_bits();
        let hr = if is_nan16(hr, 10) { 0x7fff } else { hr };
        expect!(
            "cvt.rn.f16.f32 (half)",
            cvt_f32_to_f16(x, Rnd::Rn, false, false, false, false),
            hr,
            "{b:#x}"
        );
        let br = half::bf16::from_f32(x).to_bits();
        let br = if is_nan16(br, 7) { 0x7fff } else { br };
        expect!(
            "cvt.rn.bf16.f32 (half)",
            cvt_f32_to_bf16(x, Rnd::Rn, false, false),
            br,
            "{b:#x}"
        );
        // Modifiers: .relu, .satfinite, .ftz, .sat.
        let relu = i & 4 != 0;
        let satf = i & 8 != 0;
        let fin = |w: u64, max: u16| -> u16 {
            let w = w as u16;
            if satf && !is_nan16(w, if max == 0x7bff { 10 } else { 7 }) && (w & 0x7fff) > max {
                (w & 0x8000) | max
            } else {
                w
            }
        };
        let mut w = fin(wh, 0x7bff);
        if relu {
            w = relu16(w, 10);
        }
        expect!(
            "cvt.frnd.relu.satfinite.f16.f32",
            cvt_f32_to_f16(x, rnd, false, false, relu, satf),
            w,
            "{b:#x} {rnd:?} {relu} {satf}"
        );
        let mut w = fin(wb, 0x7f7f);
        if relu {
            w = relu16(w, 7);
        }
        expect!(
            "cvt.frnd.relu.satfinite.bf16.f32",
            cvt_f32_to_bf16(x, rnd, relu, satf),
            w,
            "{b:#x} {rnd:?} {relu} {satf}"
        );
        let xf = if x.is_subnormal() {
            0.0f32.copysign(x)
        } else {
            x
        };
        let wf: u64 = canon::<Half>(
            Single::from_bits(xf.to_bits() as u128)
                .convert_r(rr(rnd), &mut false)
                .value,
            16,
        );
        expect!(
            "cvt.frnd.ftz.sat.f16.f32",
            cvt_f32_to_f16(x, rnd, true, true, false, false),
            sat16(wf as u16, 10),
            "{b:#x} {rnd:?}"
        );
        // Packed x2: a → upper half.
        let y = f32::from_bits(cases[(i + 1) % cases.len()]);
        let p = cvt_f32x2_to_f16x2(x, y, rnd, relu, satf);
        expect!(
            "cvt.f16x2.f32",
            p >> 16,
            cvt_f32_to_f16(x, rnd, false, false, relu, satf),
            "{b:#x}"
        );
        expect!(
            "cvt.f16x2.f32 lo",
            p & 0xffff,
            cvt_f32_to_f16(y, rnd, false, false, relu, satf),
            "{b:#x}"
        );
        let p = cvt_f32x2_to_bf16x2(x, y, rnd, relu, satf);
        expect!(
            "cvt.bf16x2.f32",
            p,
            (cvt_f32_to_bf16(x, rnd, relu, satf) as u32) << 16
                | cvt_f32_to_bf16(y, rnd, relu, satf) as u32,
            "{b:#x}"
        );
        // tf32: .rna/.rn/.rz (and .rm/.rp) with .relu/.satfinite.
        let trnd = [Rnd::Rna, Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp][i % 5];
        expect!(
            "cvt.tf32.f32",
            cvt_f32_to_tf32(x, trnd, relu, satf),
            ref_tf32(b, trnd, relu, satf),
            "{b:#x} {trnd:?} {relu} {satf}"
        );
        // fp8 pairs.
        let w8 = ref_to_f8(s, true, relu) << 8
            | ref_to_f8(Single::from_bits(y.to_bits() as u128), true, relu);
        expect!(
            "cvt.rn.satfinite.e4m3x2.f32",
            cvt_f32x2_to_narrow(x, y, NarrowType::E4M3, relu),
            w8,
            "{b:#x} {:#x}",
            y.to_bits()
        );
        let w8 = ref_to_f8(s, false, relu) << 8
            | ref_to_f8(Single::from_bits(y.to_bits() as u128), false, relu);
        expect!(
            "cvt.rn.satfinite.e5m2x2.f32",
            cvt_f32x2_to_narrow(x, y, NarrowType::E5M2, relu),
            w8,
            "{b:#x} {:#x}",
            y.to_bits()
        );
        // Integers: one type per case (rotating), every mode.
        let dst = IntType::ALL[(i / 4) % 8];
        let ftz = i & 32 != 0;
        let w = ref_to_int(
            Single::from_bits(if ftz { xf.to_bits() } else { b } as u128),
            dst,
            rnd,
        );
        expect!(
            "cvt.irnd.int.f32",
            cvt_f32_to_int(x, dst, rnd, ftz),
            w,
            "{b:#x} {dst:?} {rnd:?} ftz={ftz}"
        );
        expect!(
            "cvt.irnd.int.f32 (generic)",
            cvt_float_to_int(b as u64, FloatType::F32, dst, rnd, ftz),
            w,
            "{b:#x}"
        );
        // Integral rounding within f32, and f32 -> f64.
        let w = canon::<Single>(s.round_to_integral(rr(rnd)).value, 32);
        expect!(
            "cvt.irnd.f32.f32",
            cvt_float_round_int(b as u64, FloatType::F32, rnd, false, false),
            w,
            "{b:#x} {rnd:?}"
        );
        let w = canon::<Double>(s.convert(&mut false).value, 64);
        expect!(
            "cvt.f64.f32",
            cvt_float_to_float(
                b as u64,
                FloatType::F32,
                FloatType::F64,
                rnd,
                CvtMods::default()
            ),
            w,
            "{b:#x}"
        );
        count += 18;
    }
    count
}

/// f64 → f16/bf16/f32 (every mode), integral rounding, and f64 → integers, vs apfloat.
pub fn check_cvt_from_f64(n: usize) -> u64 {
    let mut count = 0;
    for (i, &b) in f64_cases(0xc0f64, n).iter().enumerate() {
        let d = Double::from_bits(b as u128);
        for rnd in RNDS {
            let w: u64 = canon::<Half>(d.convert_r(rr(rnd), &mut false).value, 16);
            expect!(
                "cvt.frnd.f16.f64",
                cvt_float_to_float(b, FloatType::F64, FloatType::F16, rnd, CvtMods::default()),
                w,
                "{b:#x} {rnd:?}"
            );
            let w: u64 = canon::<BFloat>(d.convert_r(rr(rnd), &mut false).value, 16);
            expect!(
                "cvt.frnd.bf16.f64",
                cvt_float_to_float(b, FloatType::F64, FloatType::BF16, rnd, CvtMods::default()),
                w,
                "{b:#x} {rnd:?}"
            );
            let w: u64 = canon::<Single>(d.convert_r(rr(rnd), &mut false).value, 32);
            expect!(
                "cvt.frnd.f32.f64",
                cvt_float_to_float(b, FloatType::F64, FloatType::F32, rnd, CvtMods::default()),
                w,
                "{b:#x} {rnd:?}"
            );
            let wf = if f32::from_bits(w as u32).is_subnormal() {
                w & 0x8000_0000
            } else {
                w
            };
            let m = CvtMods {
                ftz: true,
                ..Default::default()
            };
            expect!(
                "cvt.frnd.ftz.f32.f64",
                cvt_float_to_float(b, FloatType::F64, FloatType::F32, rnd, m),
                wf,
                "{b:#x} {rnd:?}"
            );
            let w = canon::<Double>(d.round_to_integral(rr(rnd)).value, 64);
            expect!(
                "cvt.irnd.f64.f64",
                cvt_float_round_int(b, FloatType::F64, rnd, false, false),
                w,
                "{b:#x} {rnd:?}"
            );
            let dst = IntType::ALL[i % 8];
            expect!(
                "cvt.irnd.int.f64",
                cvt_f64_to_int(f64::from_bits(b), dst, rnd),
                ref_to_int(d, dst, rnd),
                "{b:#x} {dst:?} {rnd:?}"
            );
            count += 6;
        }
    }
    count
}

/// Integer → f16/bf16/f32/f64 (every mode, `.sat`) vs apfloat; integer → integer (with and
/// without `.sat`) vs exact i128 arithmetic; `cvt.pack.sat` vs its definition.
pub fn check_cvt_int_sources(n: usize) -> u64 {
    let mut count = 0;
    for (i, &raw) in int_cases(0x1e7, n).iter().enumerate() {
        let src = IntType::ALL[i % 8];
        let v = src.value(raw);
        for rnd in RNDS {
            for dst in FloatType::ALL {
                let w: u64 = match dst {
                    FloatType::F16 => Half::from_i128_r(v, rr(rnd)).value.to_bits() as u64,
                    FloatType::BF16 => BFloat::from_i128_r(v, rr(rnd)).value.to_bits() as u64,
                    FloatType::F32 => Single::from_i128_r(v, rr(rnd)).value.to_bits() as u64,
                    FloatType::F64 => Double::from_i128_r(v, rr(rnd)).value.to_bits() as u64,
                };
                expect!(
                    "cvt.frnd.float.int",
                    cvt_int_to_float(raw, src, dst, rnd, false),
                    w,
                    "{raw:#x} {src:?} {dst:?} {rnd:?}"
                );
                count += 1;
            }
        }
        let w = Single::from_i128_r(v, Round::NearestTiesToEven).value;
        let ws = if w.is_negative() || w.is_zero() {
            0
        } else if w.to_bits() > 0x3f80_0000 {
            0x3f80_0000
        } else {
            w.to_bits() as u64
        };
        expect!(
            "cvt.rn.sat.f32.int",
            cvt_int_to_float(raw, src, FloatType::F32, Rnd::Rn, true),
            ws,
            "{raw:#x} {src:?}"
        );
        for dst in IntType::ALL {
            let trunc = (v as u64) & (u64::MAX >> (64 - dst.bits()));
            expect!(
                "cvt.int.int",
                cvt_int_to_int(raw, src, dst, false),
                trunc,
                "{raw:#x} {src:?} {dst:?}"
            );
            let lo = if dst.signed() {
                -(1i128 << (dst.bits() - 1))
            } else {
                0
            };
            let hi = if dst.signed() {
                (1i128 << (dst.bits() - 1)) - 1
            } else {
                (1i128 << dst.bits()) - 1
            };
            let s = (v.clamp(lo, hi) as u64) & (u64::MAX >> (64 - dst.bits()));
            expect!(
                "cvt.sat.int.int",
                cvt_int_to_int(raw, src, dst, true),
                s,
                "{raw:#x} {src:?} {dst:?}"
            );
            count += 2;
        }
        // cvt.pack.sat
        let (a, b, c) = (raw as i32, (raw >> 32) as i32, (raw >> 16) as u32);
        for signed in [false, true] {
            let cl = |x: i32, bits: u32| -> u32 {
                let (lo, hi) = if signed {
                    (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
                } else {
                    (0, (1i64 << bits) - 1)
                };
                ((x as i64).clamp(lo, hi) as u32) & ((1u64 << bits) - 1) as u32
            };
            expect!(
                "cvt.pack.sat.16.s32",
                cvt_pack_sat_16(a, b, signed),
                cl(a, 16) << 16 | cl(b, 16),
                "{a} {b}"
            );
            for size in [2u32, 4, 8] {
                let w = ((c as u64) << (2 * size)) as u32 | cl(a, size) << size | cl(b, size);
                expect!(
                    "cvt.pack.sat.s32.b32",
                    cvt_pack_sat(a, b, c, size, signed),
                    w,
                    "{a} {b} {c} {size}"
                );
            }
            count += 4;
        }
    }
    count
}

// ------------------------------------------------------------------------------------------
// Formats without an apfloat model: independent decoders
// ------------------------------------------------------------------------------------------

/// Value of an `e{E}m{M}` finite-only (FP4/FP6) code from the format definition.
fn small_value(code: u16, e_bits: u32, m_bits: u32) -> f64 {
    let bias = (1i32 << (e_bits - 1)) - 1;
    let s = if code >> (e_bits + m_bits) & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let e = (code >> m_bits) as i32 & ((1 << e_bits) - 1);
    let m = (code & ((1 << m_bits) - 1)) as f64 / (1u32 << m_bits) as f64;
    if e == 0 {
        s * m * 2f64.powi(1 - bias)
    } else {
        s * (1.0 + m) * 2f64.powi(e - bias)
    }
}

/// `.e2m1x2 .e2m3x2 .e3m2x2` both directions and `.ue8m0x2`: decode exhaustively against the
/// definition, check encode of every decoded value round-trips, encode of seeded f32
/// values is the nearest code (ties to even code) with satfinite, monotonicity; ue8m0
/// decode of all 256 codes and encode of all bf16 values (.rz/.rp, .satfinite).
pub fn check_small_formats(n: usize) -> u64 {
    let mut count = 0;
    for (ty, e, m) in [
        (NarrowType::E2M1, 2u32, 1u32),
        (NarrowType::E2M3, 2, 3),
        (NarrowType::E3M2, 3, 2),
    ] {
        let w = 1 + e + m;
        let ncodes = 1u16 << w;
        let codes: Vec<(u16, f64)> = (0..ncodes).map(|c| (c, small_value(c, e, m))).collect();
        let maxv = codes.iter().map(|c| c.1).fold(0.0, f64::max);
        // Decode every packed pair.
        for hi in 0..ncodes {
            for lo in 0..ncodes {
                let packed = hi << ty.slot() | lo;
                let d = cvt_narrow_to_f16x2(packed, ty, false);
                let want =
                    |c: u16| half::f16::from_f32(small_value(c, e, m) as f32).to_bits() as u32;
                expect!(
                    format!("cvt.rn.f16x2.{ty:?}x2"),
                    d,
                    want(hi) << 16 | want(lo),
                    "{packed:#x}"
                );
                let dr = cvt_narrow_to_f16x2(packed, ty, true);
                let wr = |c: u16| relu16(want(c) as u16, 10) as u32;
                expect!(
                    format!("cvt.rn.relu.f16x2.{ty:?}x2"),
                    dr,
                    wr(hi) << 16 | wr(lo),
                    "{packed:#x}"
                );
                count += 2;
            }
        }
        // Round trip and nearest-code encode.
        let mut r = Rng(0x5a11 + w as u64);
        let mut prev = f64::NEG_INFINITY;
        let mut xs: Vec<f32> = codes.iter().map(|c| c.1 as f32).collect();
        while xs.len() < n / 4 {
            let x = r.next();
            xs.push(
                ((x as u32 as f64 / u32::MAX as f64) * 2.0 - 1.0) as f32 * (maxv as f32 * 1.25),
            );
        }
        xs.extend([f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -0.0, 1e-30]);
        xs.sort_by(|a, b| a.total_cmp(b));
        for &x in &xs {
            let got = cvt_f32x2_to_narrow(x, 1.0, ty, false) >> ty.slot();
            let want = if x.is_nan() {
                codes.iter().find(|c| c.1 == maxv).unwrap().0 // documented: NaN → +MAX_NORM
            } else {
                let xc = (x as f64).clamp(-maxv, maxv);
                // Nearest code, ties to the code with even fraction LSB; keep the sign of x.
                let mut best: Option<(u16, f64)> = None;
                for &(c, v) in &codes {
                    if (v < 0.0) != x.is_sign_negative() && v != 0.0 {
                        continue;
                    }
                    if v == 0.0 && ((c >> (w - 1)) == 1) != x.is_sign_negative() {
                        continue;
                    }
                    let dist = (v - xc).abs();
                    best = match best {
                        None => Some((c, dist)),
                        Some((bc, bd))
                            if dist < bd || (dist == bd && c & 1 == 0 && bc & 1 == 1) =>
                        {
                            Some((c, dist))
                        }
                        b => b,
                    };
                }
                best.unwrap().0
            };
            expect!(format!("cvt.rn.satfinite.{ty:?}x2.f32"), got, want, "{x:e}");
            if !x.is_nan() {
                let v = small_value(got, e, m);
                assert!(v >= prev, "{ty:?} not monotone at {x}");
                prev = v;
            }
            count += 1;
        }
        let both = cvt_f32x2_to_narrow(1.0, -0.5, ty, true);
        let one = cvt_f32x2_to_narrow(1.0, 1.0, ty, false) & ((1 << ty.slot()) - 1);
        expect!(
            format!("cvt.relu.{ty:?}x2 layout"),
            both,
            one << ty.slot(),
            ""
        );
    }
    // ue8m0
    for code in 0..=255u16 {
        let d = cvt_ue8m0x2_to_bf16x2(code << 8 | 127);
        let want = if code == 255 {
            0x7fff
        } else {
            half::bf16::from_f32(2f32.powi(code as i32 - 127)).to_bits() as u32
        };
        expect!("cvt.rn.bf16x2.ue8m0x2", d, want << 16 | 0x3f80, "{code}");
        count += 1;
    }
    for a in 0..=u16::MAX {
        let x = half::bf16::from_bits(a).to_f64();
        for rnd in [Rnd::Rz, Rnd::Rp] {
            for satf in [false, true] {
                let want = if x.is_nan() {
                    0xff
                } else if x <= 0.0 {
                    0
                } else if x.is_infinite() {
                    if satf { 0xfe } else { 0xff }
                } else {
                    let mut e = x.log2().floor() as i32;
                    if 2f64.powi(e) > x {
                        e -= 1;
                    }
                    if rnd == Rnd::Rp && 2f64.powi(e) < x {
                        e += 1;
                    }
                    if e > 127 {
                        if satf { 0xfe } else { 0xff }
                    } else {
                        (e.max(-127) + 127) as u16
                    }
                };
                let got = cvt_bf16x2_to_ue8m0x2((a as u32) << 16 | 0x3f80, rnd, satf);
                expect!(
                    "cvt.frnd3.ue8m0x2.bf16x2",
                    got,
                    want << 8 | 127,
                    "{a:#x} {rnd:?} {satf}"
                );
                let got = cvt_f32x2_to_ue8m0x2(1.0, x as f32, rnd, satf);
                expect!(
                    "cvt.frnd3.ue8m0x2.f32",
                    got,
                    127 << 8 | want,
                    "{a:#x} {rnd:?} {satf}"
                );
                count += 2;
            }
        }
    }
    count
}

// ------------------------------------------------------------------------------------------
// Registry (used by the coverage example) and tests
// ------------------------------------------------------------------------------------------

/// Value of a finite `e4m3` (NaN only at S.1111.111) or `e5m2` (IEEE specials) code from the
/// format definitions; `None` for NaN and infinities.
fn f8_value(code: u16, e5m2: bool) -> Option<f64> {
    let (e_bits, m_bits, bias) = if e5m2 { (5u32, 2u32, 15) } else { (4, 3, 7) };
    let e = (code >> m_bits) as i32 & ((1 << e_bits) - 1);
    let m = code & ((1 << m_bits) - 1);
    if e5m2 && e == 31 || !e5m2 && e == 15 && m == 7 {
        return None;
    }
    let s = if code >> 7 & 1 == 1 { -1.0 } else { 1.0 };
    let f = m as f64 / (1u32 << m_bits) as f64;
    Some(if e == 0 {
        s * f * 2f64.powi(1 - bias)
    } else {
        s * (1.0 + f) * 2f64.powi(e - bias)
    })
}

/// `cvt.rs{.relu}.satfinite.<narrow>x4.f32` per element (`cvt_f32_to_narrow_rs`) against a
/// bracket search over the format's codes: `lo <= |x| < hi` the neighbouring magnitudes, up
/// when `floor((|x| - lo) / (hi - lo) · 2^n) + r >= 2^n` (`n` random bits: 16, 8 for e2m1);
/// `|x| >= MAX` and infinities give MAX; NaN the format's NaN (`0x7f`) or `+MAX`; `.relu`
/// makes a negative result `+0`, otherwise the sign is kept (`-0` too).
pub fn check_narrow_rs(n: usize) -> u64 {
    let mut count = 0;
    for (ty, bits, nbits, f8) in [
        (NarrowType::E4M3, 8u32, 16u32, Some(false)),
        (NarrowType::E5M2, 8, 16, Some(true)),
        (NarrowType::E2M3, 6, 16, None),
        (NarrowType::E3M2, 6, 16, None),
        (NarrowType::E2M1, 4, 8, None),
    ] {
        let (e, m) = match ty {
            NarrowType::E2M3 => (2, 3),
            NarrowType::E3M2 => (3, 2),
            _ => (2, 1),
        };
        // Non-negative finite magnitudes, ascending, with their codes.
        let mut mags: Vec<(f64, u16)> = (0..1u16 << (bits - 1))
            .filter_map(|c| match f8 {
                Some(e5) => f8_value(c, e5).map(|v| (v, c)),
                None => Some((small_value(c, e, m), c)),
            })
            .collect();
        mags.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (maxv, maxc) = *mags.last().unwrap();
        let sign = 1u16 << (bits - 1);
        let mut r = Rng(0x5eed_0000 + bits as u64 * 7 + nbits as u64);
        let mut xs: Vec<f32> = mags.iter().map(|c| c.0 as f32).collect();
        xs.extend([
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -0.0,
            0.0,
            1e-30,
            -1e-30,
        ]);
        while xs.len() < n {
            let v = r.next();
            // Magnitudes from far below the smallest subnormal to 4x MAX, both signs.
            let scale = 2f64.powi((v >> 40) as i32 % 24 - 20);
            let x = (v as u32 as f64 / u32::MAX as f64) * maxv * 4.0 * scale;
            xs.push(if v >> 63 == 1 { -x } else { x } as f32);
        }
        for &x in &xs {
            for relu in [false, true] {
                let rb = r.next() as u32;
                let got = cvt_f32_to_narrow_rs(x, ty, rb, nbits, relu);
                let want = if x.is_nan() {
                    if f8.is_some() { 0x7f } else { maxc }
                } else {
                    let ax = (x as f64).abs();
                    let mag = if ax >= maxv {
                        maxc
                    } else {
                        let i = mags.iter().rposition(|c| c.0 <= ax).unwrap();
                        let ((lo, c), (hi, c_up)) = (mags[i], mags[i + 1]);
                        let q = ((ax - lo) / (hi - lo) * 2f64.powi(nbits as i32)).floor() as u64;
                        let rr = (rb as u64) & ((1u64 << nbits) - 1);
                        if q + rr >= 1u64 << nbits { c_up } else { c }
                    };
                    match (x.is_sign_negative(), relu) {
                        (true, true) => 0,
                        (true, false) => mag | sign,
                        _ => mag,
                    }
                };
                expect!(
                    format!(
                        "cvt.rs{}.satfinite.{ty:?}x4.f32",
                        if relu { ".relu" } else { "" }
                    ),
                    got,
                    want,
                    "{x:e} rbits {rb:#x}"
                );
                count += 1;
            }
        }
    }
    count
}

pub const N_BIN: usize = 200_000;
pub const N_F32: usize = 1_000_000;
pub const N_F64: usize = 200_000;
pub const N_INT: usize = 100_000;

pub fn checks() -> Vec<(&'static str, &'static str, Box<dyn Fn() -> u64>)> {
    vec![
        (
            "add/sub/mul/fma{.rnd}{.ftz}{.sat}{.relu}.f16, .f16x2",
            "rustc_apfloat Half (+ modifiers from their definitions)",
            Box::new(|| {
                [Op::Add, Op::Sub, Op::Mul, Op::Fma]
                    .iter()
                    .map(|&o| check_f16_arith(o, N_BIN))
                    .sum()
            }),
        ),
        (
            "add/sub/mul/fma{.rnd}{.relu}.bf16, .bf16x2",
            "rustc_apfloat BFloat",
            Box::new(|| {
                [Op::Add, Op::Sub, Op::Mul, Op::Fma]
                    .iter()
                    .map(|&o| check_bf16_arith(o, N_BIN))
                    .sum()
            }),
        ),
        (
            "fma.rn.oob{.relu}.{f16,f16x2,bf16,bf16x2}",
            "rustc_apfloat Half/BFloat",
            Box::new(|| check_fma_oob(N_BIN / 4)),
        ),
        (
            "min/max{.ftz}{.NaN}{.xorsign.abs}.{f16,f16x2,bf16,bf16x2}",
            "spec pseudo-code on host f32",
            Box::new(|| check_minmax(N_BIN)),
        ),
        (
            "neg/abs{.ftz}.{f16,f16x2,bf16,bf16x2} (exhaustive)",
            "half crate / sign bit",
            Box::new(check_neg_abs_exhaustive),
        ),
        (
            "ex2.approx{.ftz}, tanh.approx .{f16,f16x2,bf16,bf16x2} (exhaustive)",
            "host f64 exp2/tanh, rounded by rustc_apfloat",
            Box::new(|| check_ex2_tanh_exhaustive().0),
        ),
        (
            "cvt{.ftz}{.sat}.{f32,f64}.{f16,bf16} (exhaustive)",
            "half crate + rustc_apfloat",
            Box::new(check_cvt_from16_widen_exhaustive),
        ),
        (
            "cvt.frnd{.sat}.{f16,bf16}.{bf16,f16}, cvt.irnd.{f16,bf16} same type (exhaustive)",
            "rustc_apfloat convert_r / round_to_integral",
            Box::new(check_cvt_16_to_16_exhaustive),
        ),
        (
            "cvt.irnd.{u8..s64}.{f16,bf16} (exhaustive)",
            "rustc_apfloat to_i128_r/to_u128_r",
            Box::new(check_cvt_16_to_int_exhaustive),
        ),
        (
            "cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}, cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 (exhaustive)",
            "rustc_apfloat Float8E4M3FN/Float8E5M2",
            Box::new(check_fp8_exhaustive),
        ),
        (
            "cvt from .f32: f16/bf16/x2/tf32/e4m3x2/e5m2x2/int/f64/irnd.f32 (all modifiers)",
            "rustc_apfloat Single, half crate, bit-level tf32",
            Box::new(|| check_cvt_from_f32(N_F32)),
        ),
        (
            "cvt from .f64: f16/bf16/f32 (.ftz), irnd.f64, int",
            "rustc_apfloat Double",
            Box::new(|| check_cvt_from_f64(N_F64)),
        ),
        (
            "cvt int→float (all modes, .sat), int→int (.sat), cvt.pack.sat",
            "rustc_apfloat from_i128_r, exact i128",
            Box::new(|| check_cvt_int_sources(N_INT)),
        ),
        (
            "cvt e2m1x2/e2m3x2/e3m2x2 ↔ f16x2/f32, ue8m0x2 ↔ bf16x2/f32",
            "independent decoders from the format definitions",
            Box::new(|| check_small_formats(N_BIN)),
        ),
        (
            "cvt.rs{.relu}.satfinite.{e4m3,e5m2,e2m3,e3m2,e2m1}x4.f32 (per element, random rbits)",
            "bracket search over the codes of independent decoders",
            Box::new(|| check_narrow_rs(N_BIN)),
        ),
    ]
}

#[test]
fn f16_add() {
    check_f16_arith(Op::Add, N_BIN);
}
#[test]
fn f16_sub() {
    check_f16_arith(Op::Sub, N_BIN);
}
#[test]
fn f16_mul() {
    check_f16_arith(Op::Mul, N_BIN);
}
#[test]
fn f16_fma() {
    check_f16_arith(Op::Fma, N_BIN);
}
#[test]
fn bf16_add() {
    check_bf16_arith(Op::Add, N_BIN);
}
#[test]
fn bf16_sub() {
    check_bf16_arith(Op::Sub, N_BIN);
}
#[test]
fn bf16_mul() {
    check_bf16_arith(Op::Mul, N_BIN);
}
#[test]
fn bf16_fma() {
    check_bf16_arith(Op::Fma, N_BIN);
}
#[test]
fn fma_oob() {
    check_fma_oob(N_BIN / 4);
}
#[test]
fn min_max() {
    check_minmax(N_BIN);
}
#[test]
fn neg_abs_exhaustive() {
    check_neg_abs_exhaustive();
}
#[test]
fn ex2_tanh_exhaustive() {
    let (_, s) = check_ex2_tanh_exhaustive();
    // Spec bounds (PTX ISA 8.x): ex2 f16 rel 2^-9.9, bf16 2^-7; tanh f16 2^-10.987 (abs),
    // bf16 2^-8. Correct rounding gives ≤ half an ulp.
    for st in &s {
        assert!(st.max_ulp <= 0.5 + 1e-12, "max ulp {}", st.max_ulp);
    }
    assert!(s[0].max_rel_err <= 2f64.powf(-9.9));
    assert!(s[1].max_rel_err <= 2f64.powf(-7.0));
}
#[test]
fn cvt_widen_exhaustive() {
    check_cvt_from16_widen_exhaustive();
}
#[test]
fn cvt_16_to_16_exhaustive() {
    check_cvt_16_to_16_exhaustive();
}
#[test]
fn cvt_16_to_int_exhaustive() {
    check_cvt_16_to_int_exhaustive();
}
#[test]
fn cvt_fp8_exhaustive() {
    check_fp8_exhaustive();
}
#[test]
fn cvt_from_f32() {
    check_cvt_from_f32(N_F32);
}
#[test]
fn cvt_from_f64() {
    check_cvt_from_f64(N_F64);
}
#[test]
fn cvt_int_sources() {
    check_cvt_int_sources(N_INT);
}
#[test]
fn cvt_small_formats() {
    check_small_formats(N_BIN);
}

#[test]
fn cvt_narrow_rs() {
    check_narrow_rs(N_BIN);
}

#[test]
fn layouts_and_spec_examples() {
    // cvt.rn.f16x2.f32 d, a, b: a in the upper half.
    assert_eq!(
        cvt_f32x2_to_f16x2(1.0, 2.0, Rnd::Rn, false, false),
        0x3c00_4000
    );
    assert_eq!(
        cvt_f32x2_to_bf16x2(1.0, 2.0, Rnd::Rn, false, false),
        0x3f80_4000
    );
    assert_eq!(
        cvt_f32x2_to_narrow(1.0, 2.0, NarrowType::E4M3, false),
        0x3840
    );
    assert_eq!(cvt_f32x2_to_narrow(1.0, 2.0, NarrowType::E2M1, false), 0x24);
    assert_eq!(
        cvt_narrow_to_f16x2(0x3840, NarrowType::E4M3, false),
        0x3c00_4000
    );
    // add.f16x2: element 0 is the low half.
    assert_eq!(
        add_f16x2(0x3c00_0000, 0x3c00_3c00, Rnd::Rn, false, false),
        0x4000_3c00
    );
    // e4m3 saturation, NaN.
    assert_eq!(
        cvt_f32x2_to_narrow(1e9, f32::NAN, NarrowType::E4M3, false),
        0x7e7f
    );
    assert_eq!(
        cvt_f32x2_to_narrow(-1e9, f32::INFINITY, NarrowType::E5M2, false),
        0xfb7b
    );
    // tf32
    assert_eq!(
        cvt_f32_to_tf32(f32::from_bits(0x3f80_1000), Rnd::Rna, false, false),
        0x3f80_2000
    );
    assert_eq!(
        cvt_f32_to_tf32(f32::from_bits(0x3f80_1000), Rnd::Rn, false, false),
        0x3f80_0000
    );
    // Float-to-int saturates; NaN → 0.
    assert_eq!(
        cvt_f32_to_int(1e10, IntType::S32, Rnd::Rz, false),
        0x7fff_ffff
    );
    assert_eq!(cvt_f32_to_int(-1.0, IntType::U32, Rnd::Rz, false), 0);
    // NaN (PTX ISA 9.0): 0 from f32/f16/bf16 into at most 32 bits, else 1 << (bits - 1).
    assert_eq!(cvt_f32_to_int(f32::NAN, IntType::S32, Rnd::Rn, false), 0);
    assert_eq!(cvt_f32_to_int(-f32::NAN, IntType::U16, Rnd::Rz, false), 0);
    assert_eq!(
        cvt_f32_to_int(f32::NAN, IntType::S64, Rnd::Rn, false),
        0x8000_0000_0000_0000
    );
    assert_eq!(
        cvt_f32_to_int(f32::NAN, IntType::U64, Rnd::Rz, false),
        0x8000_0000_0000_0000
    );
    assert_eq!(cvt_f64_to_int(f64::NAN, IntType::S32, Rnd::Rz), 0x8000_0000);
    assert_eq!(cvt_f64_to_int(f64::NAN, IntType::U32, Rnd::Rm), 0x8000_0000);
    assert_eq!(cvt_f64_to_int(f64::NAN, IntType::U8, Rnd::Rp), 0x80);
    assert_eq!(cvt_f64_to_int(-f64::NAN, IntType::S16, Rnd::Rn), 0x8000);
    assert_eq!(
        cvt_float_to_int(0x7e00, FloatType::F16, IntType::U64, Rnd::Rz, false),
        0x8000_0000_0000_0000
    );
    assert_eq!(
        cvt_float_to_int(0x7fc0, FloatType::BF16, IntType::S32, Rnd::Rz, false),
        0
    );
    assert_eq!(
        cvt_f32_to_int(f32::from_bits(1), IntType::S32, Rnd::Rp, false),
        1
    );
    assert_eq!(
        cvt_f32_to_int(f32::from_bits(1), IntType::S32, Rnd::Rp, true),
        0
    );
    // sat / relu
    assert_eq!(add_f16(0x3c00, 0x3c00, Rnd::Rn, false, true), 0x3c00);
    assert_eq!(add_f16(0x7c00, 0xfc00, Rnd::Rn, false, true), 0);
    assert_eq!(
        fma_f16(
            0xbc00,
            0x3c00,
            0x0000,
            Rnd::Rn,
            HalfMods {
                relu: true,
                ..Default::default()
            }
        ),
        0
    );
    assert_eq!(fma_bf16(0x7fc1, 0x3f80, 0, Rnd::Rn, true), 0x7fff);
}

/// `cvt.rs` (stochastic rounding) against the definition written on the bits: the random
/// bits are added to the discarded bits of the magnitude and the sum is truncated. For bf16
/// that is `(|a| + r) >> 16` on the f32 encoding (every finite input); for f16 the exponent is
/// re-biased and the 13 discarded bits taken (inputs whose result is an f16 normal number).
#[test]
fn stochastic_rounding_matches_add_and_truncate() {
    use ptxvm_fp::convert::cvt_f32_to_half_rs;
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..200_000 {
        let v = next();
        let bits = v as u32;
        let r = (v >> 32) as u32 & 0xffff;
        let a = f32::from_bits(bits);
        if !a.is_finite() {
            continue;
        }
        let sign = ((bits >> 16) & 0x8000) as u16;
        // bf16: every finite input (a carry past the largest finite value gives infinity).
        let want = ((((bits & 0x7fff_ffff) as u64 + r as u64) >> 16) as u16) | sign;
        assert_eq!(
            cvt_f32_to_half_rs(a, true, r, false, false),
            want,
            "bf16 {bits:#x} {r:#x}"
        );
        // f16: exponents whose result is normal (2^-14 <= |a| < 2^16).
        let e = (bits >> 23) & 0xff;
        if (113..143).contains(&e) {
            let r13 = r & 0x1fff;
            let m = bits & 0x7f_ffff;
            let base = ((e - 112) << 10) | (m >> 13);
            let up = ((m & 0x1fff) + r13) >> 13;
            let want = (base + up) as u16 | sign;
            assert_eq!(
                cvt_f32_to_half_rs(a, false, r, false, false),
                want,
                "f16 {bits:#x} {r:#x}"
            );
        }
    }
    // The upper 3 of an f16 element's 16 random bits are ignored.
    assert_eq!(
        cvt_f32_to_half_rs(f32::from_bits(0x3f80_1000), false, 0xe000, false, false),
        0x3c00
    );
}
