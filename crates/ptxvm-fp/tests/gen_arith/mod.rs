//! Case generators and reference checks for the `.f32`/`.f64` arithmetic conformance suite.
//! Shared by `tests/arith.rs` and `examples/coverage_arith.rs` (which prints the number of
//! cases each check runs). References share no code with `ptxvm-fp`: rustc_apfloat for
//! rounded add/sub/mul/fma/div/rcp, exact integer arithmetic for sqrt, host arithmetic and
//! the spec's tables for the rest.
#![allow(dead_code, clippy::type_complexity)]

use ptxvm_fp::Rnd;
use ptxvm_fp::approx as ap;
use ptxvm_fp::arith::{self as ar, CmpOp, MinMax, TestpOp};
use rustc_apfloat::ieee::{Double, Single};
use rustc_apfloat::{Float, Round};
use std::cmp::Ordering;

/// Small seeded PRNG (xorshift64*).
pub struct XorShift(pub u64);
impl XorShift {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// A random f32 bit pattern, biased so that special exponents show up often.
    pub fn f32(&mut self) -> f32 {
        let r = self.next();
        let bits = r as u32;
        match (r >> 32) % 8 {
            0 => f32::from_bits(bits & 0x807f_ffff), // subnormal/zero
            1 => f32::from_bits((bits & 0x80ff_ffff) | 0x3f00_0000), // around 1
            2 => f32::from_bits(bits | 0x7f00_0000 & !0x0080_0000 | 0x7e80_0000), // huge
            _ => f32::from_bits(bits),
        }
    }
    pub fn f64(&mut self) -> f64 {
        let r = self.next();
        match self.next() % 8 {
            0 => f64::from_bits(r & 0x800f_ffff_ffff_ffff),
            1 => f64::from_bits((r & 0x801f_ffff_ffff_ffff) | 0x3fe0_0000_0000_0000),
            2 => f64::from_bits(r | 0x7fd0_0000_0000_0000 & !0x0020_0000_0000_0000),
            _ => f64::from_bits(r),
        }
    }
}

pub const RNDS: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];

/// Spec edge cases for f32: ±0, ±inf, NaNs with payloads, subnormal extremes, normal
/// extremes, values next to rounding ties and to overflow.
pub fn edges_f32() -> Vec<f32> {
    let bits: [u32; 22] = [
        0x0000_0000,
        0x0000_0001,
        0x0000_0002,
        0x007f_ffff,
        0x0080_0000,
        0x0080_0001,
        0x3f80_0000,
        0x3f80_0001,
        0x3fff_ffff,
        0x4000_0000,
        0x3f7f_ffff,
        0x7f7f_ffff,
        0x7f7f_fffe,
        0x7f00_0000,
        0x7f80_0000,
        0x7fc0_0000,
        0x7f80_0001,
        0x7fab_cdef,
        0x3400_0000,
        0x3380_0000,
        0x4b80_0000,
        0x3eaa_aaab,
    ];
    let mut v: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
    let n = v.len();
    for i in 0..n {
        v.push(-v[i]);
    }
    v
}

pub fn edges_f64() -> Vec<f64> {
    let bits: [u64; 20] = [
        0,
        1,
        2,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x0010_0000_0000_0001,
        0x3ff0_0000_0000_0000,
        0x3ff0_0000_0000_0001,
        0x3fef_ffff_ffff_ffff,
        0x7fef_ffff_ffff_ffff,
        0x7fe0_0000_0000_0000,
        0x7ff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        0x7ff4_5678_9abc_def0,
        0x3ca0_0000_0000_0000,
        0x3cb0_0000_0000_0000,
        0x4340_0000_0000_0000,
        0x3fd5_5555_5555_5555,
        0x4000_0000_0000_0000,
    ];
    let mut v: Vec<f64> = bits.iter().map(|&b| f64::from_bits(b)).collect();
    let n = v.len();
    for i in 0..n {
        v.push(-v[i]);
    }
    v
}

/// Pairs: every edge pair, then `n` seeded random pairs, then `n/4` pairs built next to
/// ties (b tiny relative to a, so a+b lands near a midpoint).
pub fn pairs_f32(n: usize, seed: u64) -> Vec<(f32, f32)> {
    let e = edges_f32();
    let mut v: Vec<(f32, f32)> = e
        .iter()
        .flat_map(|&a| e.iter().map(move |&b| (a, b)))
        .collect();
    let mut r = XorShift(seed | 1);
    for _ in 0..n {
        v.push((r.f32(), r.f32()));
    }
    for _ in 0..n / 4 {
        let a = r.f32();
        let k = (r.next() % 30) as i32;
        let b = a * f32::powi(2.0, -24 - (k % 3)) * if r.next() & 1 == 0 { 1.0 } else { -1.0 };
        v.push((a, b));
    }
    v
}

pub fn pairs_f64(n: usize, seed: u64) -> Vec<(f64, f64)> {
    let e = edges_f64();
    let mut v: Vec<(f64, f64)> = e
        .iter()
        .flat_map(|&a| e.iter().map(move |&b| (a, b)))
        .collect();
    let mut r = XorShift(seed | 1);
    for _ in 0..n {
        v.push((r.f64(), r.f64()));
    }
    for _ in 0..n / 4 {
        let a = r.f64();
        let k = (r.next() % 3) as i32;
        let b = a * f64::powi(2.0, -53 - k) * if r.next() & 1 == 0 { 1.0 } else { -1.0 };
        v.push((a, b));
    }
    v
}

/// Triples for fma: a small edge cube, random triples, and cancellation cases `c ≈ -a*b`.
pub fn triples_f32(n: usize, seed: u64) -> Vec<(f32, f32, f32)> {
    let e = edges_f32();
    let es: Vec<f32> = e.iter().step_by(2).copied().collect();
    let mut v = Vec::new();
    for &a in &es {
        for &b in &es {
            for &c in &es {
                v.push((a, b, c));
            }
        }
    }
    let mut r = XorShift(seed | 1);
    for _ in 0..n {
        v.push((r.f32(), r.f32(), r.f32()));
    }
    for _ in 0..n / 2 {
        let (a, b) = (r.f32(), r.f32());
        let c = -(a * b);
        let c = f32::from_bits(
            c.to_bits()
                .wrapping_add((r.next() % 5) as u32)
                .wrapping_sub(2),
        );
        v.push((a, b, c));
    }
    v
}

pub fn triples_f64(n: usize, seed: u64) -> Vec<(f64, f64, f64)> {
    let e = edges_f64();
    let es: Vec<f64> = e.iter().step_by(2).copied().collect();
    let mut v = Vec::new();
    for &a in &es {
        for &b in &es {
            for &c in &es {
                v.push((a, b, c));
            }
        }
    }
    let mut r = XorShift(seed | 1);
    for _ in 0..n {
        v.push((r.f64(), r.f64(), r.f64()));
    }
    for _ in 0..n / 2 {
        let (a, b) = (r.f64(), r.f64());
        let c = -(a * b);
        let c = f64::from_bits(c.to_bits().wrapping_add(r.next() % 5).wrapping_sub(2));
        v.push((a, b, c));
    }
    v
}

pub fn singles_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut v = edges_f32();
    let mut r = XorShift(seed | 1);
    for _ in 0..n {
        v.push(r.f32());
    }
    v
}

pub fn singles_f64(n: usize, seed: u64) -> Vec<f64> {
    let mut v = edges_f64();
    let mut r = XorShift(seed | 1);
    for _ in 0..n {
        v.push(r.f64());
    }
    v
}

pub fn round(r: Rnd) -> Round {
    match r {
        Rnd::Rn => Round::NearestTiesToEven,
        Rnd::Rz => Round::TowardZero,
        Rnd::Rm => Round::TowardNegative,
        Rnd::Rp => Round::TowardPositive,
        Rnd::Rna => Round::NearestTiesToAway,
    }
}

fn s(x: f32) -> Single {
    Single::from_bits(x.to_bits() as u128)
}
fn d(x: f64) -> Double {
    Double::from_bits(x.to_bits() as u128)
}
fn us(x: Single) -> f32 {
    f32::from_bits(x.to_bits() as u32)
}
fn ud(x: Double) -> f64 {
    f64::from_bits(x.to_bits() as u64)
}

#[derive(Clone, Copy, Debug)]
pub enum Op2 {
    Add,
    Sub,
    Mul,
    Div,
}

/// rustc_apfloat reference for a binary op.
pub fn ref2_f32(op: Op2, a: f32, b: f32, r: Rnd) -> f32 {
    let (x, y, m) = (s(a), s(b), round(r));
    us(match op {
        Op2::Add => x.add_r(y, m).value,
        Op2::Sub => x.sub_r(y, m).value,
        Op2::Mul => x.mul_r(y, m).value,
        Op2::Div => x.div_r(y, m).value,
    })
}
pub fn ref2_f64(op: Op2, a: f64, b: f64, r: Rnd) -> f64 {
    let (x, y, m) = (d(a), d(b), round(r));
    ud(match op {
        Op2::Add => x.add_r(y, m).value,
        Op2::Sub => x.sub_r(y, m).value,
        Op2::Mul => x.mul_r(y, m).value,
        Op2::Div => x.div_r(y, m).value,
    })
}
pub fn ref_fma_f32(a: f32, b: f32, c: f32, r: Rnd) -> f32 {
    us(s(a).mul_add_r(s(b), s(c), round(r)).value)
}
pub fn ref_fma_f64(a: f64, b: f64, c: f64, r: Rnd) -> f64 {
    ud(d(a).mul_add_r(d(b), d(c), round(r)).value)
}

fn same32(got: f32, want: f32) -> bool {
    if want.is_nan() {
        got.is_nan()
    } else {
        got.to_bits() == want.to_bits()
    }
}
fn same64(got: f64, want: f64) -> bool {
    if want.is_nan() {
        got.is_nan()
    } else {
        got.to_bits() == want.to_bits()
    }
}

fn flush32(x: f32) -> f32 {
    if x != 0.0 && x.abs() < f32::MIN_POSITIVE {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// Expected PTX `.f32` result from a reference IEEE result and modifiers.
fn ptx32(want: f32, ftz: bool, sat: bool) -> f32 {
    let mut w = if want.is_nan() {
        f32::from_bits(0x7fff_ffff)
    } else {
        want
    };
    if ftz {
        w = flush32(w);
    }
    if sat {
        w = if w.is_nan() || w <= 0.0 {
            0.0
        } else if w > 1.0 {
            1.0
        } else {
            w
        };
    }
    w
}

fn pathname(soft: bool) -> &'static str {
    if soft { "soft" } else { "dispatch" }
}

/// Raw kernels (soft and dispatching) for add/sub/mul/div f32 against apfloat: returns cases.
pub fn check_binary_f32(op: Op2, n: usize) -> usize {
    let cases = pairs_f32(n, 0x1234 + op as u64);
    let mut count = 0;
    for &rnd in &RNDS {
        for soft in [true, false] {
            for &(a, b) in &cases {
                let got = match (op, soft) {
                    (Op2::Add, true) => ar::add_f32_soft(a, b, rnd),
                    (Op2::Sub, true) => ar::sub_f32_soft(a, b, rnd),
                    (Op2::Mul, true) => ar::mul_f32_soft(a, b, rnd),
                    (Op2::Div, true) => ar::div_f32_soft(a, b, rnd),
                    (Op2::Add, false) => ar::add_rnd_f32(a, b, rnd),
                    (Op2::Sub, false) => ar::sub_rnd_f32(a, b, rnd),
                    (Op2::Mul, false) => ar::mul_rnd_f32(a, b, rnd),
                    (Op2::Div, false) => ar::div_rnd_f32(a, b, rnd),
                };
                let want = ref2_f32(op, a, b, rnd);
                assert!(
                    same32(got, want),
                    "{op:?}.{rnd:?}.f32 {} ({a:e} [{:#x}], {b:e} [{:#x}]): got {got:e} [{:#x}] want {want:e} [{:#x}]",
                    pathname(soft),
                    a.to_bits(),
                    b.to_bits(),
                    got.to_bits(),
                    want.to_bits()
                );
                count += 1;
            }
        }
    }
    count
}

pub fn check_binary_f64(op: Op2, n: usize) -> usize {
    let cases = pairs_f64(n, 0x5678 + op as u64);
    let mut count = 0;
    for &rnd in &RNDS {
        for soft in [true, false] {
            for &(a, b) in &cases {
                let got = match (op, soft) {
                    (Op2::Add, true) => ar::add_f64_soft(a, b, rnd),
                    (Op2::Sub, true) => ar::sub_f64_soft(a, b, rnd),
                    (Op2::Mul, true) => ar::mul_f64_soft(a, b, rnd),
                    (Op2::Div, true) => ar::div_f64_soft(a, b, rnd),
                    (Op2::Add, false) => ar::add_rnd_f64(a, b, rnd),
                    (Op2::Sub, false) => ar::sub_rnd_f64(a, b, rnd),
                    (Op2::Mul, false) => ar::mul_rnd_f64(a, b, rnd),
                    (Op2::Div, false) => ar::div_rnd_f64(a, b, rnd),
                };
                let want = ref2_f64(op, a, b, rnd);
                assert!(
                    same64(got, want),
                    "{op:?}.{rnd:?}.f64 {} ({a:e} [{:#x}], {b:e} [{:#x}]): got {got:e} [{:#x}] want {want:e} [{:#x}]",
                    pathname(soft),
                    a.to_bits(),
                    b.to_bits(),
                    got.to_bits(),
                    want.to_bits()
                );
                count += 1;
            }
        }
    }
    count
}

pub fn check_fma_f32(n: usize) -> usize {
    let cases = triples_f32(n, 0x9abc);
    let mut count = 0;
    for &rnd in &RNDS {
        for soft in [true, false] {
            for &(a, b, c) in &cases {
                let got = if soft {
                    ar::fma_f32_soft(a, b, c, rnd)
                } else {
                    ar::fma_rnd_f32(a, b, c, rnd)
                };
                let want = ref_fma_f32(a, b, c, rnd);
                assert!(
                    same32(got, want),
                    "fma.{rnd:?}.f32 {} ({a:e}, {b:e}, {c:e}): got {got:e} want {want:e}",
                    pathname(soft)
                );
                count += 1;
            }
        }
    }
    count
}

pub fn check_fma_f64(n: usize) -> usize {
    let cases = triples_f64(n, 0xdef0);
    let mut count = 0;
    for &rnd in &RNDS {
        for soft in [true, false] {
            for &(a, b, c) in &cases {
                let got = if soft {
                    ar::fma_f64_soft(a, b, c, rnd)
                } else {
                    ar::fma_rnd_f64(a, b, c, rnd)
                };
                let want = ref_fma_f64(a, b, c, rnd);
                assert!(
                    same64(got, want),
                    "fma.{rnd:?}.f64 {} ({a:e} [{:#x}], {b:e} [{:#x}], {c:e} [{:#x}]): got {got:e} want {want:e}",
                    pathname(soft),
                    a.to_bits(),
                    b.to_bits(),
                    c.to_bits()
                );
                count += 1;
            }
        }
    }
    count
}

/// PTX `.f32` forms with `.ftz`/`.sat` (add sub mul fma mad div rcp) against apfloat with
/// the modifiers applied by the reference (inputs flushed, result canonical/flushed/clamped).
pub fn check_ptx_f32_forms(n: usize) -> usize {
    let cases = pairs_f32(n, 0x4242);
    let tri = triples_f32(n / 4, 0x4343);
    let mut count = 0;
    for &rnd in &RNDS {
        for ftz in [false, true] {
            for sat in [false, true] {
                let fi = |x: f32| if ftz { flush32(x) } else { x };
                for &(a, b) in &cases {
                    for (op, got) in [
                        (Op2::Add, ar::add_f32(a, b, rnd, ftz, sat)),
                        (Op2::Sub, ar::sub_f32(a, b, rnd, ftz, sat)),
                        (Op2::Mul, ar::mul_f32(a, b, rnd, ftz, sat)),
                    ] {
                        let want = ptx32(ref2_f32(op, fi(a), fi(b), rnd), ftz, sat);
                        assert_eq!(
                            got.to_bits(),
                            want.to_bits(),
                            "{op:?}.{rnd:?} ftz={ftz} sat={sat} ({a:e},{b:e})"
                        );
                        count += 1;
                    }
                    if !sat {
                        let want = ptx32(ref2_f32(Op2::Div, fi(a), fi(b), rnd), ftz, false);
                        assert_eq!(
                            ar::div_f32(a, b, rnd, ftz).to_bits(),
                            want.to_bits(),
                            "div.{rnd:?} ftz={ftz} ({a:e},{b:e})"
                        );
                        let want = ptx32(ref2_f32(Op2::Div, 1.0, fi(a), rnd), ftz, false);
                        assert_eq!(
                            ar::rcp_f32(a, rnd, ftz).to_bits(),
                            want.to_bits(),
                            "rcp.{rnd:?} ftz={ftz} ({a:e})"
                        );
                        count += 2;
                    }
                }
                for &(a, b, c) in &tri {
                    let want = ptx32(ref_fma_f32(fi(a), fi(b), fi(c), rnd), ftz, sat);
                    assert_eq!(
                        ar::fma_f32(a, b, c, rnd, ftz, sat).to_bits(),
                        want.to_bits(),
                        "fma.{rnd:?} ftz={ftz} sat={sat}"
                    );
                    assert_eq!(
                        ar::mad_f32(a, b, c, Some(rnd), ftz, sat).to_bits(),
                        want.to_bits()
                    );
                    count += 2;
                }
            }
        }
    }
    // div.full: correctly rounded .rn with flushing.
    for &(a, b) in &cases {
        let want = ptx32(
            ref2_f32(Op2::Div, flush32(a), flush32(b), Rnd::Rn),
            true,
            false,
        );
        assert_eq!(
            ar::div_full_f32(a, b, false).to_bits(),
            want.to_bits(),
            "div.full ({a:e},{b:e})"
        );
        count += 1;
    }
    count
}

/// PTX `.f64` forms: result bits equal apfloat's; NaN results carry the first NaN operand's
/// quieted payload, or are canonical.
pub fn check_ptx_f64_forms(n: usize) -> usize {
    let cases = pairs_f64(n, 0x4444);
    let mut count = 0;
    let nan_rule = |r: f64, ops: &[f64]| -> u64 {
        match ops.iter().find(|x| x.is_nan()) {
            Some(x) => x.to_bits() | (1 << 51),
            None => {
                if r.is_nan() {
                    0x7fff_ffff_ffff_ffff
                } else {
                    r.to_bits()
                }
            }
        }
    };
    for &rnd in &RNDS {
        for &(a, b) in &cases {
            for (op, got) in [
                (Op2::Add, ar::add_f64(a, b, rnd)),
                (Op2::Sub, ar::sub_f64(a, b, rnd)),
                (Op2::Mul, ar::mul_f64(a, b, rnd)),
                (Op2::Div, ar::div_f64(a, b, rnd)),
            ] {
                let want = nan_rule(ref2_f64(op, a, b, rnd), &[a, b]);
                assert_eq!(got.to_bits(), want, "{op:?}.{rnd:?}.f64 ({a:e},{b:e})");
                count += 1;
            }
            let want = nan_rule(ref2_f64(Op2::Div, 1.0, a, rnd), &[a]);
            assert_eq!(ar::rcp_f64(a, rnd).to_bits(), want);
            let want = nan_rule(ref_fma_f64(a, b, a, rnd), &[a, b, a]);
            assert_eq!(ar::fma_f64(a, b, a, rnd).to_bits(), want);
            count += 2;
        }
    }
    count
}

// ---- exact square-root checks -----------------------------------------------------------

/// `(m, e)` with `x = m * 2^e`, `x` finite and non-negative.
pub fn me32(x: f32) -> (u128, i32) {
    let b = x.to_bits() & 0x7fff_ffff;
    let e = (b >> 23) as i32;
    let f = (b & 0x7f_ffff) as u128;
    if e == 0 {
        (f, -149)
    } else {
        (f | 1 << 23, e - 150)
    }
}
pub fn me64(x: f64) -> (u128, i32) {
    let b = x.to_bits() & !(1 << 63);
    let e = (b >> 52) as i32;
    let f = (b & ((1 << 52) - 1)) as u128;
    if e == 0 {
        (f, -1074)
    } else {
        (f | 1 << 52, e - 1075)
    }
}

/// Compares `m1 * 2^e1` with `m2 * 2^e2` exactly.
pub fn cmp_me(m1: u128, e1: i32, m2: u128, e2: i32) -> Ordering {
    if m1 == 0 || m2 == 0 {
        return m1.cmp(&m2);
    }
    if e1 >= e2 {
        let d = (e1 - e2) as u32;
        if d >= m1.leading_zeros() {
            Ordering::Greater
        } else {
            (m1 << d).cmp(&m2)
        }
    } else {
        let d = (e2 - e1) as u32;
        if d >= m2.leading_zeros() {
            Ordering::Less
        } else {
            m1.cmp(&(m2 << d))
        }
    }
}

/// Checks that `r` (non-negative, finite) is `sqrt(a)` rounded by `rnd`, exactly.
/// `lo`/`hi` are the neighbours of `r` as `(m, e)`.
pub fn sqrt_ok(a: (u128, i32), r: (u128, i32), lo: (u128, i32), hi: (u128, i32), rnd: Rnd) -> bool {
    let sq = |(m, e): (u128, i32)| cmp_me(m * m, 2 * e, a.0, a.1);
    let mid = |(m1, e1): (u128, i32), (m2, e2): (u128, i32)| {
        let e = e1.min(e2);
        ((m1 << (e1 - e)) + (m2 << (e2 - e)), e - 1)
    };
    match rnd {
        Rnd::Rz | Rnd::Rm => sq(r) != Ordering::Greater && sq(hi) == Ordering::Greater,
        Rnd::Rp => sq(lo) == Ordering::Less && sq(r) != Ordering::Less,
        _ => sq(mid(lo, r)) == Ordering::Less && sq(mid(r, hi)) == Ordering::Greater,
    }
}

pub fn sqrt_ok_f32(a: f32, r: f32, rnd: Rnd) -> bool {
    if a.is_nan() || a < 0.0 {
        return r.is_nan();
    }
    if a == 0.0 || a.is_infinite() {
        return r.to_bits() == a.to_bits();
    }
    if !(r > 0.0 && r.is_finite()) {
        return false;
    }
    sqrt_ok(
        me32(a),
        me32(r),
        me32(f32::from_bits(r.to_bits() - 1)),
        me32(f32::from_bits(r.to_bits() + 1)),
        rnd,
    )
}

pub fn sqrt_ok_f64(a: f64, r: f64, rnd: Rnd) -> bool {
    if a.is_nan() || a < 0.0 {
        return r.is_nan();
    }
    if a == 0.0 || a.is_infinite() {
        return r.to_bits() == a.to_bits();
    }
    if !(r > 0.0 && r.is_finite()) {
        return false;
    }
    sqrt_ok(
        me64(a),
        me64(r),
        me64(f64::from_bits(r.to_bits() - 1)),
        me64(f64::from_bits(r.to_bits() + 1)),
        rnd,
    )
}

pub fn check_sqrt(n: usize) -> usize {
    let mut count = 0;
    let s32 = singles_f32(n, 0x5151);
    let s64 = singles_f64(n, 0x5252);
    for &rnd in &RNDS {
        for &a in &s32 {
            for (name, got) in [
                ("soft", ar::sqrt_f32_soft(a, rnd)),
                ("dispatch", ar::sqrt_rnd_f32(a, rnd)),
            ] {
                assert!(
                    sqrt_ok_f32(a, got, rnd),
                    "sqrt.{rnd:?}.f32 {name} {a:e} -> {got:e}"
                );
                count += 1;
            }
            for ftz in [false, true] {
                let got = ar::sqrt_f32(a, rnd, ftz);
                let a2 = if ftz { flush32(a) } else { a };
                assert!(sqrt_ok_f32(a2, got, rnd), "sqrt.{rnd:?} ftz={ftz} {a:e}");
                if got.is_nan() {
                    assert_eq!(got.to_bits(), 0x7fff_ffff);
                }
                count += 1;
            }
        }
        for &a in &s64 {
            for (name, got) in [
                ("soft", ar::sqrt_f64_soft(a, rnd)),
                ("dispatch", ar::sqrt_rnd_f64(a, rnd)),
                ("ptx", ar::sqrt_f64(a, rnd)),
            ] {
                assert!(
                    sqrt_ok_f64(a, got, rnd),
                    "sqrt.{rnd:?}.f64 {name} {a:e} -> {got:e}"
                );
                count += 1;
            }
        }
    }
    count
}

// ---- abs neg min max copysign testp setp -------------------------------------------------

pub fn check_misc_f32(n: usize) -> usize {
    let pairs = pairs_f32(n, 0x7777);
    let mut count = 0;
    let canon = 0x7fff_ffffu32;
    for &(a, b) in &pairs {
        for ftz in [false, true] {
            let fa = if ftz { flush32(a) } else { a };
            let fb = if ftz { flush32(b) } else { b };
            assert_eq!(ar::abs_f32(a, ftz).to_bits(), fa.to_bits() & 0x7fff_ffff);
            assert_eq!(ar::neg_f32(a, ftz).to_bits(), fa.to_bits() ^ 0x8000_0000);
            count += 2;
            for nan in [false, true] {
                for xs in [false, true] {
                    let m = MinMax {
                        ftz,
                        nan,
                        xorsign_abs: xs,
                    };
                    for max in [false, true] {
                        let got = if max {
                            ar::max_f32(a, b, m)
                        } else {
                            ar::min_f32(a, b, m)
                        };
                        // Reference: the spec's pseudo-code, with host comparisons.
                        let (mut x, mut y) = (fa, fb);
                        let sign = (fa.to_bits() ^ fb.to_bits()) & 0x8000_0000;
                        if xs {
                            x = x.abs();
                            y = y.abs();
                        }
                        let want: u32 =
                            if x.is_nan() && y.is_nan() || nan && (x.is_nan() || y.is_nan()) {
                                canon
                            } else if x.is_nan() {
                                y.to_bits()
                            } else if y.is_nan() {
                                x.to_bits()
                            } else if x == 0.0 && y == 0.0 {
                                let neg = if max {
                                    x.is_sign_negative() && y.is_sign_negative()
                                } else {
                                    x.is_sign_negative() || y.is_sign_negative()
                                };
                                if neg { 0x8000_0000 } else { 0 }
                            } else if max {
                                (if x > y { x } else { y }).to_bits()
                            } else {
                                (if x < y { x } else { y }).to_bits()
                            };
                        let want = if xs && want != canon {
                            (want & 0x7fff_ffff) | sign
                        } else {
                            want
                        };
                        assert_eq!(got.to_bits(), want, "max={max} {m:?} ({a:e},{b:e})");
                        count += 1;
                    }
                }
            }
            for op in CMPS {
                assert_eq!(
                    ar::cmp_f32(op, a, b, ftz),
                    ref_cmp(op, fa as f64, fb as f64),
                    "{op:?} ftz={ftz} ({a:e},{b:e})"
                );
                count += 1;
            }
        }
        assert_eq!(
            ar::copysign_f32(a, b).to_bits(),
            (b.to_bits() & 0x7fff_ffff) | (a.to_bits() & 0x8000_0000)
        );
        count += 1;
        for op in TESTPS {
            assert_eq!(
                ar::testp_f32(op, a),
                ref_testp(
                    op,
                    a.is_nan(),
                    a.is_infinite(),
                    a != 0.0 && a.abs() < f32::MIN_POSITIVE
                )
            );
            count += 1;
        }
    }
    count
}

pub fn check_misc_f64(n: usize) -> usize {
    let pairs = pairs_f64(n, 0x8888);
    let mut count = 0;
    for &(a, b) in &pairs {
        assert_eq!(ar::abs_f64(a).to_bits(), a.to_bits() & !(1 << 63));
        assert_eq!(ar::neg_f64(a).to_bits(), a.to_bits() ^ (1 << 63));
        assert_eq!(
            ar::copysign_f64(a, b).to_bits(),
            (b.to_bits() & !(1 << 63)) | (a.to_bits() & (1 << 63))
        );
        count += 3;
        for max in [false, true] {
            let got = if max {
                ar::max_f64(a, b)
            } else {
                ar::min_f64(a, b)
            };
            let want = if a.is_nan() && b.is_nan() {
                0x7fff_ffff_ffff_ffff
            } else if a.is_nan() {
                b.to_bits()
            } else if b.is_nan() {
                a.to_bits()
            } else if a == 0.0 && b == 0.0 {
                let neg = if max {
                    a.is_sign_negative() && b.is_sign_negative()
                } else {
                    a.is_sign_negative() || b.is_sign_negative()
                };
                if neg { 1 << 63 } else { 0 }
            } else if max == (a > b) {
                a.to_bits()
            } else {
                b.to_bits()
            };
            assert_eq!(got.to_bits(), want, "max={max} ({a:e},{b:e})");
            count += 1;
        }
        for op in CMPS {
            assert_eq!(ar::cmp_f64(op, a, b), ref_cmp(op, a, b));
            count += 1;
        }
        for op in TESTPS {
            assert_eq!(
                ar::testp_f64(op, a),
                ref_testp(
                    op,
                    a.is_nan(),
                    a.is_infinite(),
                    a != 0.0 && a.abs() < f64::MIN_POSITIVE
                )
            );
            count += 1;
        }
    }
    count
}

pub const CMPS: [CmpOp; 14] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::Lt,
    CmpOp::Le,
    CmpOp::Gt,
    CmpOp::Ge,
    CmpOp::Equ,
    CmpOp::Neu,
    CmpOp::Ltu,
    CmpOp::Leu,
    CmpOp::Gtu,
    CmpOp::Geu,
    CmpOp::Num,
    CmpOp::Nan,
];
pub const TESTPS: [TestpOp; 6] = [
    TestpOp::Finite,
    TestpOp::Infinite,
    TestpOp::Number,
    TestpOp::NotANumber,
    TestpOp::Normal,
    TestpOp::Subnormal,
];

/// The spec's Tables 20-22, written with `partial_cmp`.
pub fn ref_cmp(op: CmpOp, a: f64, b: f64) -> bool {
    let o = a.partial_cmp(&b);
    let nan = o.is_none();
    let t = |f: fn(Ordering) -> bool| o.is_some_and(f);
    match op {
        CmpOp::Eq => t(|o| o == Ordering::Equal),
        CmpOp::Ne => t(|o| o != Ordering::Equal),
        CmpOp::Lt => t(|o| o == Ordering::Less),
        CmpOp::Le => t(|o| o != Ordering::Greater),
        CmpOp::Gt => t(|o| o == Ordering::Greater),
        CmpOp::Ge => t(|o| o != Ordering::Less),
        CmpOp::Equ => nan || t(|o| o == Ordering::Equal),
        CmpOp::Neu => nan || t(|o| o != Ordering::Equal),
        CmpOp::Ltu => nan || t(|o| o == Ordering::Less),
        CmpOp::Leu => nan || t(|o| o != Ordering::Greater),
        CmpOp::Gtu => nan || t(|o| o == Ordering::Greater),
        CmpOp::Geu => nan || t(|o| o != Ordering::Less),
        CmpOp::Num => !nan,
        CmpOp::Nan => nan,
    }
}

pub fn ref_testp(op: TestpOp, nan: bool, inf: bool, sub: bool) -> bool {
    match op {
        TestpOp::Finite => !nan && !inf,
        TestpOp::Infinite => inf,
        TestpOp::Number => !nan,
        TestpOp::NotANumber => nan,
        TestpOp::Normal => !nan && !inf && !sub,
        TestpOp::Subnormal => sub,
    }
}

// ---- approximate functions ----------------------------------------------------------------

/// ulp of the f32 nearest to `x` (at least the subnormal ulp).
pub fn ulp32(x: f64) -> f64 {
    let a = (x.abs() as f32).abs();
    if a < f32::MIN_POSITIVE {
        return f64::powi(2.0, -149);
    }
    let e = ((a.to_bits() >> 23) as i32) - 150;
    f64::powi(2.0, e)
}

/// Error of `got` against `want` in ulps of `want`'s f32 precision.
pub fn ulp_err(got: f32, want: f64) -> f64 {
    if got as f64 == want {
        return 0.0;
    }
    if !want.is_finite() || !got.is_finite() {
        return f64::INFINITY;
    }
    (got as f64 - want).abs() / ulp32(want)
}

/// The spec's special-value tables (flushed behaviour with `.ftz`), then a ≤ 1 ulp bound vs
/// an f64 evaluation (bounds of the spec are all looser). Returns cases.
pub fn check_approx_f32(n: usize) -> usize {
    let xs = singles_f32(n, 0xa0a0);
    let mut count = 0;
    let tables: [(&str, fn(f32, bool) -> f32, fn(f64) -> f64); 7] = [
        ("sin", ap::sin_approx_f32, f64::sin),
        ("cos", ap::cos_approx_f32, f64::cos),
        ("lg2", ap::lg2_approx_f32, f64::log2),
        ("ex2", ap::ex2_approx_f32, f64::exp2),
        ("rcp", ap::rcp_approx_f32, |x| 1.0 / x),
        ("rsqrt", ap::rsqrt_approx_f32, |x| 1.0 / x.sqrt()),
        ("sqrt", ap::sqrt_approx_f32, f64::sqrt),
    ];
    for (name, f, reff) in tables {
        for &a in &xs {
            for ftz in [false, true] {
                let got = f(a, ftz);
                let ai = if ftz { flush32(a) } else { a };
                let want = reff(ai as f64);
                if want.is_nan() {
                    assert_eq!(got.to_bits(), 0x7fff_ffff, "{name} ftz={ftz} {a:e}");
                } else if ftz && want != 0.0 && want.abs() < f32::MIN_POSITIVE as f64 * (1.0 - 1e-9)
                {
                    assert_eq!(got, 0.0, "{name} ftz result {a:e}");
                    assert_eq!(got.is_sign_negative(), want < 0.0);
                } else if want.is_infinite() || want == 0.0 {
                    assert_eq!(got as f64, want, "{name} {a:e}");
                    assert_eq!(
                        got.is_sign_negative(),
                        want.is_sign_negative(),
                        "{name} sign {a:e}"
                    );
                } else {
                    let e = ulp_err(got, want);
                    // Results at the overflow edge may round to inf.
                    assert!(
                        e <= 1.0 || (got.is_infinite() && want.abs() > f32::MAX as f64 * 0.99),
                        "{name} ftz={ftz} {a:e}: {got:e} vs {want:e} ({e} ulp)"
                    );
                }
                count += 1;
            }
        }
    }
    // Spec tables, verbatim (ftz: subnormal rows).
    let sub = f32::from_bits(1);
    let inf = f32::INFINITY;
    let rows: [(&str, fn(f32, bool) -> f32, [f32; 7]); 7] = [
        // -inf, -sub, -0, +0, +sub, +inf  (-normal as 7th, checked for NaN where listed)
        (
            "sin",
            ap::sin_approx_f32,
            [f32::NAN, -0.0, -0.0, 0.0, 0.0, f32::NAN, -2.0f32.sin()],
        ),
        (
            "cos",
            ap::cos_approx_f32,
            [f32::NAN, 1.0, 1.0, 1.0, 1.0, f32::NAN, 2.0f32.cos()],
        ),
        (
            "lg2",
            ap::lg2_approx_f32,
            [f32::NAN, -inf, -inf, -inf, -inf, inf, f32::NAN],
        ),
        (
            "ex2",
            ap::ex2_approx_f32,
            [0.0, 1.0, 1.0, 1.0, 1.0, inf, 0.25],
        ),
        (
            "rcp",
            ap::rcp_approx_f32,
            [-0.0, -inf, -inf, inf, inf, 0.0, -0.5],
        ),
        (
            "rsqrt",
            ap::rsqrt_approx_f32,
            [f32::NAN, -inf, -inf, inf, inf, 0.0, f32::NAN],
        ),
        (
            "sqrt",
            ap::sqrt_approx_f32,
            [f32::NAN, -0.0, -0.0, 0.0, 0.0, inf, f32::NAN],
        ),
    ];
    for (name, f, want) in rows {
        for (i, x) in [-inf, -sub, -0.0, 0.0, sub, inf, -2.0]
            .into_iter()
            .enumerate()
        {
            let got = f(x, true);
            let w = want[i];
            if w.is_nan() {
                assert_eq!(got.to_bits(), 0x7fff_ffff, "{name} table {x:e}");
            } else {
                assert!(
                    (got == w || (got - w).abs() <= w.abs() * 2e-7)
                        && got.is_sign_negative() == w.is_sign_negative(),
                    "{name} table {x:e}: {got:e} vs {w:e}"
                );
            }
            count += 1;
        }
        assert_eq!(f(f32::from_bits(0x7fab_cdef), true).to_bits(), 0x7fff_ffff);
        count += 1;
    }
    // tanh table: subnormals returned as is, ±inf -> ±1.
    for (x, w) in [
        (-inf, -1.0),
        (inf, 1.0),
        (-0.0, -0.0),
        (0.0, 0.0),
        (sub, sub),
        (-sub, -sub),
    ] {
        let got = ap::tanh_approx_f32(x);
        assert_eq!(got.to_bits(), f32::to_bits(w), "tanh {x:e}");
        count += 1;
    }
    for &a in &xs {
        let got = ap::tanh_approx_f32(a);
        let want = (a as f64).tanh();
        if want.is_nan() {
            assert_eq!(got.to_bits(), 0x7fff_ffff);
        } else {
            assert!(ulp_err(got, want) <= 1.0, "tanh {a:e}");
        }
        count += 1;
    }
    // div.approx: within 2 ulp of a/b for |b| in [2^-126, 2^126]; the spec's rules outside.
    for &(a, b) in &pairs_f32(n, 0xb0b0) {
        let got = ap::div_approx_f32(a, b, false);
        let (fa, fb) = (flush32(a), flush32(b));
        if fb.abs() > f32::powi(2.0, 126) && fb.is_finite() {
            if fa.is_infinite() || fa.is_nan() {
                assert!(got.is_nan());
            } else {
                assert_eq!(got, 0.0, "div.approx ({a:e},{b:e})");
            }
        } else if fb == 0.0 {
            if fa.is_nan() || fa == 0.0 {
                assert!(got.is_nan());
            } else {
                assert_eq!(got, if fa > 0.0 { inf } else { -inf });
            }
        } else {
            let want = fa as f64 / fb as f64;
            if want.is_nan() {
                assert_eq!(got.to_bits(), 0x7fff_ffff);
            } else if want.is_infinite()
                || want.abs() > f32::MAX as f64 * (1.0 - f64::powi(2.0, -22))
                || want.abs() < f32::MIN_POSITIVE as f64
            {
                // overflow/underflow region: only the sign and class matter.
                assert!(
                    got.is_infinite()
                        || got == 0.0
                        || got.abs() >= f32::MAX * 0.999
                        || got.abs() <= f32::MIN_POSITIVE * 1.001,
                    "div.approx ({a:e},{b:e}) -> {got:e}"
                );
            } else {
                assert!(
                    ulp_err(got, want) <= 2.0,
                    "div.approx ({a:e},{b:e}) -> {got:e} vs {want:e}"
                );
            }
        }
        count += 1;
    }
    count
}

/// `rcp.approx.ftz.f64`, `rsqrt.approx.ftz.f64` (§9.7.3.14/17) and `rsqrt.approx.f64`.
pub fn check_approx_f64(n: usize) -> usize {
    let xs = singles_f64(n, 0xc0c0);
    let mut count = 0;
    for &a in &xs {
        let hi = f64::from_bits(a.to_bits() & 0xffff_ffff_0000_0000);
        let t = if hi != 0.0 && hi.abs() < f64::MIN_POSITIVE {
            0.0f64.copysign(hi)
        } else {
            hi
        };
        for (name, got, want) in [
            ("rcp", ap::rcp_approx_ftz_f64(a), 1.0 / t),
            ("rsqrt", ap::rsqrt_approx_ftz_f64(a), 1.0 / t.sqrt()),
        ] {
            assert_eq!(
                got.to_bits() & 0xffff_ffff,
                0,
                "{name}.ftz.f64 low word {a:e}"
            );
            if want.is_nan() {
                assert_eq!(got.to_bits(), 0x7fff_ffff_0000_0000, "{name} nan {a:e}");
            } else if want.is_infinite() || want == 0.0 || want.abs() < f64::MIN_POSITIVE {
                assert!(
                    got == 0.0 && want.abs() < f64::MIN_POSITIVE || got == want,
                    "{name} {a:e}: {got:e} vs {want:e}"
                );
                assert_eq!(got.is_sign_negative(), want.is_sign_negative());
            } else {
                // 20-bit mantissa: relative error at most 2^-21.
                assert!(
                    ((got - want) / want).abs() <= f64::powi(2.0, -21) * (1.0 + 1e-9),
                    "{name} {a:e}: {got:e} vs {want:e}"
                );
            }
            count += 1;
        }
        let got = ap::rsqrt_approx_f64(a);
        let want = 1.0 / a.sqrt();
        if want.is_nan() {
            assert!(got.is_nan());
            if a.is_nan() {
                assert_eq!(got.to_bits(), a.to_bits() | (1 << 51));
            }
        } else if want.is_finite() && want != 0.0 {
            assert!(
                ((got - want) / want).abs() <= f64::powi(2.0, -51),
                "rsqrt.f64 {a:e}"
            );
        } else {
            assert_eq!(got, want);
        }
        count += 1;
    }
    count
}

// ---- the table of checks (shared by tests/arith.rs and examples/coverage_arith.rs) ----------

/// Random-sample sizes used by the test suite.
pub const N_BIN: usize = 20_000;
/// Random triples for fma.
pub const N_FMA: usize = 20_000;
/// Random single inputs for unary forms.
pub const N_UNARY: usize = 50_000;

/// One row of the coverage table: `(forms, reference, check)`; the check panics on a
/// mismatch and returns the number of cases it compared.
pub type Row = (&'static str, &'static str, fn() -> usize);

/// Every check, in table order.
pub fn rows() -> Vec<Row> {
    vec![
        (
            "add.{rn,rz,rm,rp}.f32 (soft + dispatch)",
            "rustc_apfloat add_r",
            || check_binary_f32(Op2::Add, N_BIN),
        ),
        (
            "sub.{rn,rz,rm,rp}.f32 (soft + dispatch)",
            "rustc_apfloat sub_r",
            || check_binary_f32(Op2::Sub, N_BIN),
        ),
        (
            "mul.{rn,rz,rm,rp}.f32 (soft + dispatch)",
            "rustc_apfloat mul_r",
            || check_binary_f32(Op2::Mul, N_BIN),
        ),
        (
            "div.{rn,rz,rm,rp}.f32 (soft + dispatch)",
            "rustc_apfloat div_r",
            || check_binary_f32(Op2::Div, N_BIN),
        ),
        (
            "add.{rn,rz,rm,rp}.f64 (soft + dispatch)",
            "rustc_apfloat add_r",
            || check_binary_f64(Op2::Add, N_BIN),
        ),
        (
            "sub.{rn,rz,rm,rp}.f64 (soft + dispatch)",
            "rustc_apfloat sub_r",
            || check_binary_f64(Op2::Sub, N_BIN),
        ),
        (
            "mul.{rn,rz,rm,rp}.f64 (soft + dispatch)",
            "rustc_apfloat mul_r",
            || check_binary_f64(Op2::Mul, N_BIN),
        ),
        (
            "div.{rn,rz,rm,rp}.f64 (soft + dispatch)",
            "rustc_apfloat div_r",
            || check_binary_f64(Op2::Div, N_BIN),
        ),
        (
            "fma.{rn,rz,rm,rp}.f32 (soft + dispatch)",
            "rustc_apfloat mul_add_r",
            || check_fma_f32(N_FMA),
        ),
        (
            "fma.{rn,rz,rm,rp}.f64 (soft + dispatch)",
            "rustc_apfloat mul_add_r",
            || check_fma_f64(N_FMA),
        ),
        (
            "add/sub/mul/fma/mad{.rnd}{.ftz}{.sat}.f32, div/rcp.rnd{.ftz}.f32, div.full.f32",
            "rustc_apfloat + spec ftz/sat/NaN rules",
            || check_ptx_f32_forms(N_BIN / 4),
        ),
        (
            "add/sub/mul/div/rcp/fma.rnd.f64 (NaN payloads)",
            "rustc_apfloat + spec NaN rule",
            || check_ptx_f64_forms(N_BIN / 2),
        ),
        (
            "sqrt.{rn,rz,rm,rp}{.ftz}.f32, sqrt.rnd.f64 (soft + dispatch)",
            "exact integer bracket (s^2 vs a)",
            || check_sqrt(N_UNARY),
        ),
        (
            "abs neg min max{.ftz}{.NaN}{.xorsign.abs} copysign testp setp/set{.ftz} .f32",
            "spec pseudo-code, host compare",
            || check_misc_f32(N_BIN / 4),
        ),
        (
            "abs neg min max copysign testp setp/set .f64",
            "spec pseudo-code, host compare",
            || check_misc_f64(N_BIN / 4),
        ),
        (
            "{sin,cos,lg2,ex2,rcp,rsqrt,sqrt}.approx{.ftz}.f32, tanh.approx.f32, div.approx.f32",
            "spec tables + f64 libm (<= 1 ulp; div 2 ulp)",
            || check_approx_f32(N_UNARY),
        ),
        (
            "rcp.approx.ftz.f64, rsqrt.approx{.ftz}.f64",
            "spec §9.7.3.14/17 + f64 (2^-21 rel)",
            || check_approx_f64(N_UNARY),
        ),
    ]
}
