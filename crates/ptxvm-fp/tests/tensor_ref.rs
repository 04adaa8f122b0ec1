//! `ptxvm_fp::tensor` against an independent reference of the same model:
//! `tools/tc_ref.py` (exact rational arithmetic, written from the spec note and sharing no
//! code with the Rust) computed D for 1000 pseudo-random dot products per model row — every
//! generation, instruction path (mma, m8n8k4, wgmma; fp8 interleave; E8M13; f16/f32 out;
//! mixed C/D types) and operand type. The operands are random bit patterns (a quarter of the
//! vectors raw bits, so NaN/inf/subnormal/zero everywhere; the rest values in a narrow
//! exponent band with rare zeros, subnormals and specials, so cancellation, alignment and
//! truncation are exercised); this file regenerates them from the same SplitMix64 stream.
//! Expected outputs: `tests/data/tc_ref.txt` (`tools/tc_ref.py vectors`).
//!
//! Also here: the exceptional cases of the model stated directly, and the integer and
//! single-bit forms against exact arithmetic.

use ptxvm_fp::tensor::*;

struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn seed_of(name: &str) -> u64 {
    name.bytes().fold(0xCBF2_9CE4_8422_2325u64, |h, c| {
        (h ^ c as u64).wrapping_mul(0x100_0000_01B3)
    })
}

/// (exponent bits, fraction bits) of the operand formats.
fn fmt(name: &str) -> (u32, u32) {
    match name {
        "f16" => (5, 10),
        "bf16" => (8, 7),
        "tf32" => (8, 10),
        "f32" => (8, 23),
        "e4m3" => (4, 3),
        "e5m2" => (5, 2),
        "e3m2" => (3, 2),
        "e2m3" => (2, 3),
        "e2m1" => (2, 1),
        n => panic!("format {n}"),
    }
}

/// `gen_bits` of tools/tc_ref.py.
fn gen_bits(f: &str, r: u64, mode: u64, center: u64, reference: Option<&str>) -> u64 {
    let (e, m) = fmt(f);
    let w = 1 + e + m;
    let mut bits = if mode == 0 {
        r & ((1 << w) - 1)
    } else {
        let sel = r & 255;
        let s = (r >> 8) & 1;
        let top = (1u64 << e) - 1;
        let mmask = (1u64 << m) - 1;
        match sel {
            0 => s << (e + m),
            1 => (s << (e + m)) | ((r >> 9) & mmask),
            2 => (s << (e + m)) | (top << m) | ((r >> 9) & mmask),
            _ => {
                let span = (top - 1).max(1);
                let ef: i64 = match reference {
                    None => {
                        let ce = 1 + center % span;
                        ce as i64 + ((r >> 9) % 7) as i64 - 3
                    }
                    Some(rf) => {
                        let (ie, _) = fmt(rf);
                        let ibias = (1i64 << (ie - 1)) - 1;
                        let ice = 1 + center % ((1u64 << ie) - 2).max(1);
                        let bias = (1i64 << (e - 1)) - 1;
                        2 * (ice as i64 - ibias) + bias + ((r >> 9) % 9) as i64 - 4
                    }
                };
                let ef = if top > 1 {
                    ef.clamp(1, top as i64 - 1) as u64
                } else {
                    1
                };
                (s << (e + m)) | (ef << m) | ((r >> 20) & mmask)
            }
        }
    };
    if f == "tf32" {
        bits = (bits << 13) | ((r >> 40) & 0x1fff);
    }
    bits
}

fn tc_type(t: &str) -> TcType {
    match t {
        "f16" => TcType::F16,
        "bf16" => TcType::Bf16,
        "tf32" => TcType::Tf32,
        "e4m3" => TcType::E4m3,
        "e5m2" => TcType::E5m2,
        "e3m2" => TcType::E3m2,
        "e2m3" => TcType::E2m3,
        "e2m1" => TcType::E2m1,
        t => panic!("type {t}"),
    }
}

fn acc(t: &str) -> AccType {
    match t {
        "f16" => AccType::F16,
        "f32" => AccType::F32,
        t => panic!("acc {t}"),
    }
}

fn arch(g: &str) -> TcArch {
    match g {
        "volta" => TcArch::Volta,
        "turing" => TcArch::Turing,
        "ampere" => TcArch::Ampere,
        "ada" => TcArch::Ada,
        "hopper" => TcArch::Hopper,
        "blackwell" => TcArch::Blackwell,
        "rtx-blackwell" => TcArch::RtxBlackwell,
        g => panic!("gen {g}"),
    }
}

#[test]
fn independent_reference_on_random_bit_patterns() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tc_ref.txt"),
    )
    .unwrap();
    let mut rows: Vec<(Vec<String>, Vec<u32>)> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        if let Some(r) = line.strip_prefix("row: ") {
            rows.push((r.split_whitespace().map(String::from).collect(), Vec::new()));
        } else if let Some(last) = rows.last_mut() {
            last.1.extend(
                line.split_whitespace()
                    .map(|h| u32::from_str_radix(h, 16).unwrap()),
            );
        }
    }
    assert_eq!(rows.len(), 36);
    let mut failures = Vec::new();
    let mut total = 0;
    for (row, expected) in &rows {
        let [name, g, inst, k, at, bt, ct, d] = &row[..] else {
            panic!("row {row:?}")
        };
        let k: usize = k.parse().unwrap();
        let inst = match inst.as_str() {
            "mma" => TcInst::Mma,
            "m8n8k4" => TcInst::MmaM8n8k4,
            "wgmma" => TcInst::Wgmma,
            i => panic!("inst {i}"),
        };
        let p = arch(g).fdpa(inst, k, tc_type(at), acc(d));
        let mut rng = SplitMix64(seed_of(name));
        let mut bad = 0;
        for (v, &want) in expected.iter().enumerate() {
            let mode = rng.next() % 4;
            let center = rng.next();
            let a: Vec<u32> = (0..k)
                .map(|_| gen_bits(at, rng.next(), mode, center, None) as u32)
                .collect();
            let b: Vec<u32> = (0..k)
                .map(|_| gen_bits(bt, rng.next(), mode, center, None) as u32)
                .collect();
            let c = gen_bits(ct, rng.next(), mode, center, Some(at)) as u32;
            let got = mma_dot(&p, tc_type(at), &a, tc_type(bt), &b, acc(ct), c);
            total += 1;
            if got != want {
                bad += 1;
                if bad <= 3 {
                    failures.push(format!(
                        "{name} #{v}: a={a:08x?} b={b:08x?} c={c:08x}: got {got:08x}, reference {want:08x}"
                    ));
                }
            }
        }
        if bad > 0 {
            failures.push(format!("{name}: {bad}/{} differ", expected.len()));
        }
    }
    assert_eq!(total, 36_000);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------
// Exceptional cases, stated directly from the model's rules (spec §0 "Common to every row").

const ONE_H: u32 = 0x3c00;
const INF_H: u32 = 0x7c00;
const NINF_H: u32 = 0xfc00;
const NAN_H: u32 = 0x7e01;
const ZERO_H: u32 = 0;

fn f16_dot(a: &[u32], b: &[u32], c: f32, arch: TcArch) -> u32 {
    let p = arch.fdpa(TcInst::Mma, a.len(), TcType::F16, AccType::F32);
    mma_dot(
        &p,
        TcType::F16,
        a,
        TcType::F16,
        b,
        AccType::F32,
        c.to_bits(),
    )
}

#[test]
fn exceptional_values() {
    for arch in [TcArch::Ampere, TcArch::Hopper, TcArch::Volta] {
        let k = 16;
        let ones = vec![ONE_H; k];
        let mut a = vec![ZERO_H; k];
        // NaN operand -> canonical NaN, whatever its payload.
        a[3] = NAN_H;
        assert_eq!(f16_dot(&a, &ones, 1.0, arch), 0x7fff_ffff);
        // inf * 0 -> NaN.
        let mut a = vec![ONE_H; k];
        a[0] = INF_H;
        let mut b = ones.clone();
        b[0] = ZERO_H;
        assert_eq!(f16_dot(&a, &b, 0.0, arch), 0x7fff_ffff);
        // +inf and -inf among the products -> NaN; only +inf -> +inf; inf with C -inf -> NaN.
        let mut a = vec![ZERO_H; k];
        a[0] = INF_H;
        a[1] = NINF_H;
        assert_eq!(f16_dot(&a, &ones, 0.0, arch), 0x7fff_ffff);
        a[1] = ONE_H;
        assert_eq!(f16_dot(&a, &ones, 0.0, arch), 0x7f80_0000);
        assert_eq!(f16_dot(&a, &ones, f32::NEG_INFINITY, arch), 0x7fff_ffff);
        // C = NaN with a payload -> canonical NaN.
        assert_eq!(
            f16_dot(&ones, &ones, f32::from_bits(0x7fc0_1234), arch),
            0x7fff_ffff
        );
        // inf in C only -> that inf.
        assert_eq!(f16_dot(&ones, &ones, f32::NEG_INFINITY, arch), 0xff80_0000);
        // Exact cancellation to zero is +0, also for -0 inputs and a -0 C.
        let mut a = vec![ZERO_H; k];
        a[0] = ONE_H;
        let mut b = vec![ZERO_H | 0x8000; k];
        b[0] = ONE_H;
        assert_eq!(f16_dot(&a, &b, -1.0, arch), 0);
        assert_eq!(f16_dot(&vec![0x8000; k], &ones, -0.0, arch), 0);
    }
    // Overflow gives inf although f32 output rounds toward zero: 2^127 + 2^127.
    let p = TcArch::Ampere.fdpa(TcInst::Mma, 2, TcType::Bf16, AccType::F32);
    let big = 0x7f00; // bf16 2^127
    let one = 0x3f80;
    assert_eq!(
        mma_dot(
            &p,
            TcType::Bf16,
            &[big, big],
            TcType::Bf16,
            &[one, one],
            AccType::F32,
            0
        ),
        0x7f80_0000
    );
    // Just below: 2^127 * (2 - 2^-7) rounds toward zero and stays finite.
    assert_eq!(
        mma_dot(
            &p,
            TcType::Bf16,
            &[big, 0x7eff],
            TcType::Bf16,
            &[one, one],
            AccType::F32,
            0
        ),
        0x7f7f_8000
    );
    // f16 output overflows to inf under round to nearest: 65504 + 16 = 65520 -> inf.
    let p = TcArch::Hopper.fdpa(TcInst::Mma, 2, TcType::F16, AccType::F16);
    assert_eq!(
        mma_dot(
            &p,
            TcType::F16,
            &[0x7bff, 0x4c00],
            TcType::F16,
            &[ONE_H, ONE_H],
            AccType::F16,
            0
        ),
        0x7c00
    );
    // Subnormal inputs are used as they are: 2^-24 * 2^-24 * 2^...; a subnormal f16 times
    // 1 gives its exact value in f32 (no flush).
    let p = TcArch::Ampere.fdpa(TcInst::Mma, 1, TcType::F16, AccType::F32);
    assert_eq!(
        mma_dot(
            &p,
            TcType::F16,
            &[0x0001],
            TcType::F16,
            &[ONE_H],
            AccType::F32,
            0
        ),
        (2.0f32).powi(-24).to_bits()
    );
    // Subnormal f32 outputs are produced: 2^-24 * 2^-120 (bf16) = 2^-144.
    let p = TcArch::Ampere.fdpa(TcInst::Mma, 1, TcType::Bf16, AccType::F32);
    let r = mma_dot(
        &p,
        TcType::Bf16,
        &[0x3380],
        TcType::Bf16,
        &[0x0380],
        AccType::F32,
        0,
    );
    assert_eq!(r, 1 << 5, "2^-144 is f32 subnormal 32 * 2^-149");
    // Below e0 - F everything is truncated: with C = 0, products of 2^-150 vanish (+0).
    let r = mma_dot(
        &p,
        TcType::Bf16,
        &[0x0080],
        TcType::Bf16,
        &[0x0d80],
        AccType::F32,
        0,
    );
    assert_eq!(
        r, 0,
        "2^-126 * 2^-100 = 2^-226 is below the truncation grid"
    );
    // The truncation is sign-magnitude: products 1 and -2^-33 (A100, F = 24) give 1 (the
    // small negative addend truncates to 0), not 1 - 2^-24 (flooring it to -2^-24).
    let p = TcArch::Ampere.fdpa(TcInst::Mma, 2, TcType::F16, AccType::F32);
    let r = mma_dot(
        &p,
        TcType::F16,
        &[ONE_H, 0x8001], // -2^-24
        TcType::F16,
        &[ONE_H, 0x1800], // 2^-9
        AccType::F32,
        0,
    );
    assert_eq!(r, 1.0f32.to_bits());
    // tf32 ignores the low 13 bits of its register.
    let p = TcArch::Ampere.fdpa(TcInst::Mma, 1, TcType::Tf32, AccType::F32);
    assert_eq!(
        mma_dot(
            &p,
            TcType::Tf32,
            &[0x3f80_1fff],
            TcType::Tf32,
            &[0x3f80_0000],
            AccType::F32,
            0
        ),
        0x3f80_0000
    );
    // e4m3 has no infinity: S.1111.111 is NaN, S.1111.110 = 448.
    let p = TcArch::Ada.fdpa(TcInst::Mma, 1, TcType::E4m3, AccType::F32);
    assert_eq!(
        mma_dot(
            &p,
            TcType::E4m3,
            &[0x7f],
            TcType::E4m3,
            &[0x38],
            AccType::F32,
            0
        ),
        0x7fff_ffff
    );
    assert_eq!(
        mma_dot(
            &p,
            TcType::E4m3,
            &[0x7e],
            TcType::E4m3,
            &[0x38],
            AccType::F32,
            0
        ),
        448.0f32.to_bits()
    );
    // E8M13: fp8 on sm_89 keeps 13 fraction bits of the f32 result (1 + 2^-20 -> 1).
    let r = mma_dot(
        &p,
        TcType::E4m3,
        &[0x38],
        TcType::E4m3,
        &[0x38],
        AccType::F32,
        0x3f80_0008,
    );
    assert_eq!(r, 0x4000_0000, "1 + (1 + 2^-20) = 2 + 2^-20 truncates to 2");
}

// ---------------------------------------------------------------------------------------
// Integer and single-bit forms against exact arithmetic.

#[test]
fn integer_forms_exact() {
    let mut rng = SplitMix64(7);
    for t in [IntType::S8, IntType::U8, IntType::S4, IntType::U4] {
        for _ in 0..2000 {
            let k = 1 + (rng.next() % 64) as usize;
            let word = |r: u64| r as u32;
            let a: Vec<i32> = (0..k).map(|_| t.elem(word(rng.next()), 1)).collect();
            let b: Vec<i32> = (0..k).map(|_| t.elem(word(rng.next()), 0)).collect();
            let c = match rng.next() % 3 {
                0 => i32::MAX - (rng.next() % 1000) as i32,
                1 => i32::MIN + (rng.next() % 1000) as i32,
                _ => rng.next() as i32,
            };
            let exact: i128 = c as i128
                + a.iter()
                    .zip(&b)
                    .map(|(&x, &y)| x as i128 * y as i128)
                    .sum::<i128>();
            let wrapped = (exact as i64 as u64 & 0xffff_ffff) as u32 as i32;
            let sat = exact.clamp(i32::MIN as i128, i32::MAX as i128) as i32;
            assert_eq!(dot_int(&a, &b, c, false), wrapped);
            assert_eq!(dot_int(&a, &b, c, true), sat);
            // Element ranges.
            for &x in &a {
                let ok = match t {
                    IntType::S8 => (-128..=127).contains(&x),
                    IntType::U8 => (0..=255).contains(&x),
                    IntType::S4 => (-8..=7).contains(&x),
                    IntType::U4 => (0..=15).contains(&x),
                };
                assert!(ok, "{t:?} element {x}");
            }
        }
    }
    assert_eq!(IntType::S4.elem(0x0000_00f0, 1), -1);
    assert_eq!(IntType::U4.elem(0x0000_00f0, 1), 15);
    assert_eq!(IntType::S8.elem(0x8000_0000, 3), -128);
    assert_eq!(IntType::S8.elem(0x8000_0000, 4), 0, "past the register");
}

#[test]
fn single_bit_forms_exact() {
    let mut rng = SplitMix64(11);
    for _ in 0..2000 {
        let n = 1 + (rng.next() % 8) as usize;
        let a: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
        let b: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
        let c = rng.next() as i32;
        let bits = |op: fn(bool, bool) -> bool| -> i64 {
            (0..n * 32)
                .filter(|&i| {
                    op(
                        a[i / 32] >> (i % 32) & 1 == 1,
                        b[i / 32] >> (i % 32) & 1 == 1,
                    )
                })
                .count() as i64
        };
        let xor = bits(|x, y| x != y);
        let and = bits(|x, y| x && y);
        assert_eq!(dot_b1(&a, &b, c, BitOp::Xor), (c as i64 + xor) as i32);
        assert_eq!(dot_b1(&a, &b, c, BitOp::And), (c as i64 + and) as i32);
    }
    assert_eq!(
        dot_b1(&[u32::MAX], &[0], i32::MAX, BitOp::Xor),
        i32::MIN + 31
    );
}

#[test]
fn f64_is_sequential_fma() {
    // k ascending from C, one rounding per step: 1 + 2^-53 + 2^-53 rounds (ties to even) to
    // 1 at each step, while the exact sum 1 + 2^-52 is representable.
    let h = 2f64.powi(-53);
    let rn = ptxvm_fp::Rnd::Rn;
    assert_eq!(dot_f64(&[1.0, h, h], &[1.0, 1.0, 1.0], 0.0, rn), 1.0);
    assert_eq!(
        dot_f64(&[h, h, 1.0], &[1.0, 1.0, 1.0], 0.0, rn),
        1.0 + 2.0 * h
    );
    // Each step is a fused multiply-add: (1 + 2^-52)^2 - (1 + 2^-51) = 2^-104 exactly.
    let e = 2f64.powi(-52);
    assert_eq!(
        dot_f64(&[1.0 + e], &[1.0 + e], -(1.0 + 2.0 * e), rn),
        2f64.powi(-104)
    );
}

/// Block-scaled kinds (`mma_dot_mx`, `mma_dot_mxf4`), values derived by hand.
#[test]
fn block_scaled_by_hand() {
    use ptxvm_fp::tensor::{ScaleType, TcType, mma_dot_mx, mma_dot_mxf4};
    let one = TcType::E4m3.decode(0x38); // e4m3 1.0
    let a = vec![one; 32];
    // 32 products of 1 * 2^1 (ue8m0 128) * 2^-1 (ue8m0 126) = 32.0 = 0x42000000.
    let sa = ScaleType::Ue8m0.decode(128);
    let sb = ScaleType::Ue8m0.decode(126);
    assert_eq!(mma_dot_mx(&a, &a, sa, sb, 0), 0x4200_0000);
    // ... plus C = -32.0 is +0.
    assert_eq!(mma_dot_mx(&a, &a, sa, sb, 0xc200_0000), 0);
    // A NaN scale factor (ue8m0 0xff) gives the canonical NaN.
    assert_eq!(
        mma_dot_mx(&a, &a, ScaleType::Ue8m0.decode(0xff), sb, 0),
        0x7fff_ffff
    );
    // mxf4nvf4 4X ue4m3: e2m1 1.0 (code 2) everywhere; every chunk of 16 scaled by
    // 1.5 (ue4m3 0x3c) * 2.0 (0x40): 4 * 16 * 3 = 192, + C 1.0 = 193.0 = 0x43410000.
    let codes = vec![2u32; 64];
    let s15 = vec![ScaleType::Ue4m3.decode(0x3c); 4];
    let s2 = vec![ScaleType::Ue4m3.decode(0x40); 4];
    assert_eq!(
        mma_dot_mxf4(&codes, &codes, &s15, &s2, 0x3f80_0000),
        0x4341_0000
    );
    // 2X ue8m0 with chunk scales 2^0 and 2^10: 32 * 1 + 32 * 1024 = 32800 = 0x47002000.
    let s = vec![ScaleType::Ue8m0.decode(127), ScaleType::Ue8m0.decode(137)];
    let u = vec![ScaleType::Ue8m0.decode(127); 2];
    assert_eq!(mma_dot_mxf4(&codes, &codes, &s, &u, 0), 0x4700_2000);
    // Groups are aligned at their scales' exponents (here 2^0) even when their sums are
    // zero (B alternates +1, -1): C = 2^-37 lies below the F = 35 bits kept and is
    // truncated to +0, while C = 2^-30 survives exactly.
    let alt: Vec<u32> = (0..64).map(|i| if i % 2 == 0 { 2 } else { 10 }).collect();
    assert_eq!(mma_dot_mxf4(&codes, &alt, &u, &u, 0x2d00_0000), 0);
    assert_eq!(mma_dot_mxf4(&codes, &alt, &u, &u, 0x3080_0000), 0x3080_0000);
    // A NaN C is NaN.
    assert_eq!(
        mma_dot_mxf4(&codes, &codes, &u, &u, 0x7fc0_0000),
        0x7fff_ffff
    );
}

/// The block-scaled kinds (`mma_dot_mx`, `mma_dot_mxf4`) against `tools/tc_ref.py`'s
/// block-scale model on random bit patterns (`tests/data/tc_ref_bscale.txt`): every element
/// pattern of the element types (NaN, inf, subnormal, zero), scale bytes near 2^0 and, a
/// quarter of the time, any byte (the ue8m0 NaN, huge and tiny factors).
#[test]
fn block_scaled_reference_on_random_bit_patterns() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tc_ref_bscale.txt"),
    )
    .unwrap();
    let mut rows: Vec<(Vec<String>, Vec<u32>)> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        if let Some(r) = line.strip_prefix("row: ") {
            rows.push((r.split_whitespace().map(String::from).collect(), Vec::new()));
        } else if let Some(last) = rows.last_mut() {
            last.1.extend(
                line.split_whitespace()
                    .map(|h| u32::from_str_radix(h, 16).unwrap()),
            );
        }
    }
    assert_eq!(rows.len(), 6);
    let mut failures = Vec::new();
    let mut total = 0;
    for (row, expected) in &rows {
        let [name, kind, at, bt, st, nv] = &row[..] else {
            panic!("row {row:?}")
        };
        let mxf4 = kind == "mxf4";
        let k = if mxf4 { 64 } else { 32 };
        let nv: usize = nv.parse().unwrap();
        let stype = if st == "ue8m0" {
            ScaleType::Ue8m0
        } else {
            ScaleType::Ue4m3
        };
        let width = |t: &str| {
            let (e, m) = fmt(t);
            1 + e + m
        };
        let mut rng = SplitMix64(seed_of(name));
        let mut bad = 0;
        for (v, &want) in expected.iter().enumerate() {
            let mode = rng.next() % 4;
            let center = rng.next();
            let a: Vec<u32> = (0..k)
                .map(|_| (rng.next() & ((1 << width(at)) - 1)) as u32)
                .collect();
            let b: Vec<u32> = (0..k)
                .map(|_| (rng.next() & ((1 << width(bt)) - 1)) as u32)
                .collect();
            let mut sc = || {
                let r = rng.next();
                if mode == 0 {
                    (r & 0xff) as u32
                } else if st == "ue8m0" {
                    (127 + r % 17 - 8) as u32
                } else {
                    (r & 0x7f) as u32
                }
            };
            let sa: Vec<Num> = (0..nv).map(|_| stype.decode(sc())).collect();
            let sb: Vec<Num> = (0..nv).map(|_| stype.decode(sc())).collect();
            let c = gen_bits(
                "f32",
                rng.next(),
                if mode == 0 { 0 } else { 1 },
                center,
                None,
            ) as u32;
            let got = if mxf4 {
                mma_dot_mxf4(&a, &b, &sa, &sb, c)
            } else {
                let an: Vec<Num> = a.iter().map(|&x| tc_type(at).decode(x)).collect();
                let bn: Vec<Num> = b.iter().map(|&x| tc_type(bt).decode(x)).collect();
                mma_dot_mx(&an, &bn, sa[0], sb[0], c)
            };
            total += 1;
            if got != want {
                bad += 1;
                if bad <= 3 {
                    failures.push(format!(
                        "{name} #{v}: a={a:02x?} b={b:02x?} c={c:08x}: got {got:08x}, reference {want:08x}"
                    ));
                }
            }
        }
        if bad > 0 {
            failures.push(format!("{name}: {bad}/{} differ", expected.len()));
        }
    }
    assert_eq!(total, 6_000);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
