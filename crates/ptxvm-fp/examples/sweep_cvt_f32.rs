//! Sweeps every f32 bit pattern (or every `--step N`-th) through the `cvt` forms that take
//! an `.f32` source and compares with `rustc_apfloat` (f16/bf16/f64/integers/integral
//! rounding, every mode) and an independent bit-level tf32 reference.
//! `cargo run --release -p ptxvm-fp --example sweep_cvt_f32 -- [--step N] [--threads T] [--part K/N]`
//! `--part K/N` checks the K-th of N contiguous slices of the inputs; the counts of the
//! parts 0..N-1 add up to the full run's.
use ptxvm_fp::Rnd;
use ptxvm_fp::convert::*;
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};
use std::sync::atomic::{AtomicU64, Ordering};

const RNDS: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];

fn rr(r: Rnd) -> Round {
    match r {
        Rnd::Rn => Round::NearestTiesToEven,
        Rnd::Rz => Round::TowardZero,
        Rnd::Rm => Round::TowardNegative,
        Rnd::Rp => Round::TowardPositive,
        Rnd::Rna => Round::NearestTiesToAway,
    }
}

fn canon<F: Float>(x: F, w: u32) -> u64 {
    if x.is_nan() {
        (1u64 << (w - 1)) - 1
    } else {
        x.to_bits() as u64
    }
}

fn tf32_ref(b: u32, rnd: Rnd) -> u32 {
    if f32::from_bits(b).is_nan() {
        return 0x7fff_ffff;
    }
    if f32::from_bits(b).is_infinite() {
        return b;
    }
    let (low, t, neg) = (b & 0x1fff, b & !0x1fff, b >> 31 == 1);
    let up = match rnd {
        Rnd::Rn => low > 0x1000 || (low == 0x1000 && t & 0x2000 != 0),
        Rnd::Rna => low >= 0x1000,
        Rnd::Rz => false,
        Rnd::Rp => low != 0 && !neg,
        Rnd::Rm => low != 0 && neg,
    };
    if up { t + 0x2000 } else { t }
}

fn to_int(s: Single, dst: IntType, rnd: Rnd) -> u64 {
    // PTX ISA 9.0: a NaN from `.f32` gives 0, or 1 << 63 into a 64-bit type.
    if s.is_nan() {
        return if dst.bits() == 64 { 1 << 63 } else { 0 };
    }
    let v: i128 = if dst.signed() {
        s.to_i128_r(dst.bits() as usize, rr(rnd), &mut false).value
    } else {
        s.to_u128_r(dst.bits() as usize, rr(rnd), &mut false).value as i128
    };
    (v as u64) & (u64::MAX >> (64 - dst.bits()))
}

/// Checks one input; returns the number of mismatching forms.
fn check(b: u32, checks: &AtomicU64) -> u64 {
    let x = f32::from_bits(b);
    let s = Single::from_bits(b as u128);
    let mut bad = 0;
    let mut n = 0;
    for rnd in RNDS {
        let w: u64 = canon::<Half>(s.convert_r(rr(rnd), &mut false).value, 16);
        bad += (cvt_f32_to_f16(x, rnd, false, false, false, false) as u64 != w) as u64;
        let w: u64 = canon::<BFloat>(s.convert_r(rr(rnd), &mut false).value, 16);
        bad += (cvt_f32_to_bf16(x, rnd, false, false) as u64 != w) as u64;
        bad += (cvt_f32_to_tf32(x, rnd, false, false) != tf32_ref(b, rnd)) as u64;
        let w = canon::<Single>(s.round_to_integral(rr(rnd)).value, 32);
        bad += (cvt_float_round_int(b as u64, FloatType::F32, rnd, false, false) != w) as u64;
        for dst in [
            IntType::S32,
            IntType::U32,
            IntType::S64,
            IntType::U8,
            IntType::S16,
        ] {
            bad += (cvt_f32_to_int(x, dst, rnd, false) != to_int(s, dst, rnd)) as u64;
            n += 1;
        }
        n += 4;
    }
    bad += (cvt_f32_to_tf32(x, Rnd::Rna, false, false) != tf32_ref(b, Rnd::Rna)) as u64;
    let w: u64 = canon::<Double>(s.convert(&mut false).value, 64);
    bad += (cvt_float_to_float(
        b as u64,
        FloatType::F32,
        FloatType::F64,
        Rnd::Rn,
        CvtMods::default(),
    ) != w) as u64;
    n += 2;
    checks.fetch_add(n, Ordering::Relaxed);
    bad
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let get = |k: &str, d: u64| {
        args.iter()
            .position(|a| a == k)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let step = get("--step", 1).max(1);
    let threads = get(
        "--threads",
        std::thread::available_parallelism()
            .map(|n| n.get() as u64)
            .unwrap_or(1),
    )
    .max(1);
    let part = args
        .iter()
        .position(|a| a == "--part")
        .and_then(|i| args.get(i + 1))
        .map(|v| {
            let (k, n) = v.split_once('/').expect("--part K/N");
            let p: (u64, u64) = (k.parse().expect("K"), n.parse().expect("N"));
            assert!(p.0 < p.1, "--part K/N needs K < N");
            p
        })
        .unwrap_or((0, 1));
    let (lo, hi) = (
        (1u64 << 32) * part.0 / part.1,
        (1u64 << 32) * (part.0 + 1) / part.1,
    );
    let inputs = AtomicU64::new(0);
    let checks = AtomicU64::new(0);
    let bad = AtomicU64::new(0);
    let t0 = std::time::Instant::now();
    std::thread::scope(|sc| {
        for t in 0..threads {
            let (inputs, checks, bad) = (&inputs, &checks, &bad);
            sc.spawn(move || {
                // Every step-th pattern of [lo, hi), interleaved over the threads.
                let mut i = lo.div_ceil(step) * step + t * step;
                let (mut ni, mut nb) = (0u64, 0u64);
                while i < hi {
                    let b = check(i as u32, checks);
                    if b != 0 && nb < 10 {
                        eprintln!("mismatch at {i:#010x}");
                    }
                    nb += b;
                    ni += 1;
                    i += step * threads;
                }
                inputs.fetch_add(ni, Ordering::Relaxed);
                bad.fetch_add(nb, Ordering::Relaxed);
            });
        }
    });
    println!(
        "sweep_cvt_f32: step {step}, part {}/{}, {} inputs, {} form checks, {} mismatches, {:.1} s",
        part.0,
        part.1,
        inputs.load(Ordering::Relaxed),
        checks.load(Ordering::Relaxed),
        bad.load(Ordering::Relaxed),
        t0.elapsed().as_secs_f64()
    );
    if bad.load(Ordering::Relaxed) != 0 {
        std::process::exit(1);
    }
}
