//! Long-run sweep of every `.f32` input (2^32 bit patterns, or every `--step`-th one) through
//! the unary `.f32` forms: `sqrt.{rn,rz,rm,rp}` and `rcp.{rn,rz,rm,rp}` (dispatching path and
//! software path, checked exactly with integer arithmetic) and every `.approx` op (sin cos lg2
//! ex2 tanh rcp rsqrt sqrt), measured against an f64 evaluation: pass counts, max ulp error
//! and the absolute error on the ranges where the spec states its bound.
//!
//! Full run: `cargo run --release -p ptxvm-fp --example sweep_f32`
//! Sampled:  `cargo run --release -p ptxvm-fp --example sweep_f32 -- --step 97`
//! In parts: `... -- --part K/N > part-K.txt` runs the K-th of N contiguous slices of the
//! inputs and prints, besides its table, one `ROW` line per form with the raw statistics;
//! `... -- --merge part-*.txt` combines the parts' `ROW` lines into the full table (it
//! checks that every part 0..N-1 is present exactly once).

#[path = "../tests/gen_arith/mod.rs"]
mod gen_arith;

use gen_arith::{cmp_me, me32, sqrt_ok_f32, ulp_err};
use ptxvm_fp::Rnd;
use ptxvm_fp::approx as ap;
use ptxvm_fp::arith as ar;
use std::cmp::Ordering;

const RNDS: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];

/// Exact check that `r` is `1/a` rounded by `rnd`.
fn rcp_ok(a: f32, r: f32, rnd: Rnd) -> bool {
    if a.is_nan() {
        return r.to_bits() == 0x7fff_ffff;
    }
    if a == 0.0 {
        return r.is_infinite() && r.is_sign_negative() == a.is_sign_negative();
    }
    if a.is_infinite() {
        return r == 0.0 && r.is_sign_negative() == a.is_sign_negative();
    }
    if r.is_sign_negative() != a.is_sign_negative() || r.is_nan() {
        return false;
    }
    // Work with |a|, |r|: negating swaps .rm and .rp.
    let rnd = if a < 0.0 {
        match rnd {
            Rnd::Rm => Rnd::Rp,
            Rnd::Rp => Rnd::Rm,
            x => x,
        }
    } else {
        rnd
    };
    let (ma, ea) = me32(a.abs());
    let g = |(m, e): (u128, i32)| cmp_me(m * ma, e + ea, 1, 0); // v*|a| vs 1
    let r = r.abs();
    let top = (1u128, 128); // 2^128, just past f32::MAX
    let mid = |(m1, e1): (u128, i32), (m2, e2): (u128, i32)| {
        let e = e1.min(e2);
        ((m1 << (e1 - e)) + (m2 << (e2 - e)), e - 1)
    };
    let max = me32(f32::MAX);
    if r.is_infinite() {
        return match rnd {
            Rnd::Rp => g(max) == Ordering::Less,
            Rnd::Rn => g(mid(max, top)) != Ordering::Greater,
            _ => false,
        };
    }
    let rv = me32(r);
    let hi = if r == f32::MAX {
        top
    } else {
        me32(f32::from_bits(r.to_bits() + 1))
    };
    let lo = if r == 0.0 {
        (0, 0)
    } else {
        me32(f32::from_bits(r.to_bits() - 1))
    };
    match rnd {
        Rnd::Rz | Rnd::Rm => {
            g(rv) != Ordering::Greater && (r == f32::MAX || g(hi) == Ordering::Greater)
        }
        Rnd::Rp => g(lo) == Ordering::Less && g(rv) != Ordering::Less,
        _ => g(mid(lo, rv)) != Ordering::Greater && g(mid(rv, hi)) != Ordering::Less,
    }
}

type Approx = (&'static str, fn(f32) -> f32, fn(f64) -> f64, f64, f64, f64);

/// name, op, f64 reference, spec range lo/hi for the absolute-error bound, log2 of bound.
fn approx_ops() -> Vec<Approx> {
    let pi = std::f64::consts::PI;
    vec![
        (
            "sin.approx.f32",
            |x| ap::sin_approx_f32(x, false),
            f64::sin,
            -pi,
            pi,
            -20.9,
        ),
        (
            "cos.approx.f32",
            |x| ap::cos_approx_f32(x, false),
            f64::cos,
            -pi,
            pi,
            -20.9,
        ),
        (
            "lg2.approx.f32",
            |x| ap::lg2_approx_f32(x, false),
            f64::log2,
            1.0,
            2.0,
            -22.6,
        ),
        (
            "ex2.approx.f32",
            |x| ap::ex2_approx_f32(x, false),
            f64::exp2,
            0.0,
            1.0,
            -22.5,
        ),
        (
            "tanh.approx.f32",
            ap::tanh_approx_f32,
            f64::tanh,
            0.0,
            0.0,
            0.0,
        ),
        (
            "rcp.approx.f32",
            |x| ap::rcp_approx_f32(x, false),
            |x| 1.0 / x,
            1.0,
            2.0,
            -23.0,
        ),
        (
            "rsqrt.approx.f32",
            |x| ap::rsqrt_approx_f32(x, false),
            |x| 1.0 / x.sqrt(),
            1.0,
            4.0,
            -22.4,
        ),
        (
            "sqrt.approx.f32",
            |x| ap::sqrt_approx_f32(x, false),
            f64::sqrt,
            0.0,
            0.0,
            0.0,
        ),
    ]
}

#[derive(Clone, Default)]
struct Stats {
    cases: u64,
    pass: u64,
    max_ulp: f64,
    max_ulp_at: u32,
    max_abs: f64,
}

fn merge(a: &mut Stats, b: &Stats) {
    a.cases += b.cases;
    a.pass += b.pass;
    if b.max_ulp > a.max_ulp {
        a.max_ulp = b.max_ulp;
        a.max_ulp_at = b.max_ulp_at;
    }
    a.max_abs = a.max_abs.max(b.max_abs);
}

fn main() {
    let mut step: u64 = 1;
    let mut part: (u64, u64) = (0, 1);
    let mut merge_files: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--step" => step = args.next().and_then(|s| s.parse().ok()).expect("--step N"),
            "--part" => {
                let v = args.next().expect("--part K/N");
                let (k, n) = v.split_once('/').expect("--part K/N");
                part = (k.parse().expect("K"), n.parse().expect("N"));
                assert!(part.0 < part.1, "--part K/N needs K < N");
            }
            "--merge" => merge_files.extend(args.by_ref()),
            _ => panic!("unknown argument {a}"),
        }
    }
    if !merge_files.is_empty() {
        return merge_parts(&merge_files);
    }
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2) as u64;
    let all = (1u64 << 32).div_ceil(step);
    let (first, end) = (all * part.0 / part.1, all * (part.0 + 1) / part.1);
    let total = end - first;
    let ops = approx_ops();
    let nrows = 16 + ops.len();
    let t0 = std::time::Instant::now();
    let results: Vec<Vec<Stats>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                let ops = &ops;
                s.spawn(move || {
                    let mut st = vec![Stats::default(); nrows];
                    let (lo, hi) = (
                        first + total * t / threads,
                        first + total * (t + 1) / threads,
                    );
                    for i in lo..hi {
                        let bits = (i * step) as u32;
                        let a = f32::from_bits(bits);
                        for (k, &rnd) in RNDS.iter().enumerate() {
                            let checks = [
                                sqrt_ok_f32(a, ar::sqrt_f32(a, rnd, false), rnd),
                                sqrt_ok_f32(a, ar::sqrt_f32_soft(a, rnd), rnd),
                                rcp_ok(a, ar::rcp_f32(a, rnd, false), rnd),
                                rcp_ok(a, ar::canon_f32(ar::div_f32_soft(1.0, a, rnd)), rnd),
                            ];
                            if std::env::var("SWEEP_DEBUG").is_ok() && !checks[2] {
                                eprintln!(
                                    "rcp fail {bits:#x} {rnd:?} -> {:#x}",
                                    ar::rcp_f32(a, rnd, false).to_bits()
                                );
                            }
                            for (j, ok) in checks.into_iter().enumerate() {
                                let row = &mut st[j * 4 + k];
                                row.cases += 1;
                                row.pass += ok as u64;
                            }
                        }
                        for (j, &(_, f, reff, rlo, rhi, _)) in ops.iter().enumerate() {
                            let row = &mut st[16 + j];
                            row.cases += 1;
                            let got = f(a);
                            let want = reff(a as f64);
                            let ok = if want.is_nan() {
                                got.to_bits() == 0x7fff_ffff
                            } else {
                                let e = ulp_err(got, want);
                                let e = if e.is_infinite()
                                    && (want.abs() >= f32::MAX as f64)
                                    && got.is_infinite()
                                {
                                    0.0
                                } else {
                                    e
                                };
                                if e > row.max_ulp {
                                    row.max_ulp = e;
                                    row.max_ulp_at = bits;
                                }
                                let x = a as f64;
                                if x >= rlo && x < rhi {
                                    row.max_abs = row.max_abs.max((got as f64 - want).abs());
                                }
                                e <= 1.0
                            };
                            row.pass += ok as u64;
                        }
                    }
                    st
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut st = vec![Stats::default(); nrows];
    for r in &results {
        for (a, b) in st.iter_mut().zip(r) {
            merge(a, b);
        }
    }
    println!(
        "sweep_f32: step {step}, part {}/{}, {total} inputs, {threads} threads, {:.1} s",
        part.0,
        part.1,
        t0.elapsed().as_secs_f64()
    );
    for (i, r) in st.iter().enumerate() {
        println!(
            "ROW\t{}/{}\t{i}\t{}\t{}\t{:e}\t{}\t{:e}",
            part.0, part.1, r.cases, r.pass, r.max_ulp, r.max_ulp_at, r.max_abs
        );
    }
    if !print_table(&st, &ops) {
        println!("FAILURES present");
        std::process::exit(1);
    }
}

/// Prints the result table; false when any form failed.
fn print_table(st: &[Stats], ops: &[Approx]) -> bool {
    println!(
        "| form | cases | pass | max ulp err (at input) | max abs err on spec range | spec bound |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    let names = ["sqrt", "sqrt (soft path)", "rcp", "rcp (soft path)"];
    let mut all_ok = true;
    for (j, name) in names.iter().enumerate() {
        for (k, rnd) in ["rn", "rz", "rm", "rp"].iter().enumerate() {
            let r = &st[j * 4 + k];
            all_ok &= r.pass == r.cases;
            println!(
                "| {name} .{rnd}.f32 | {} | {} | 0 (exact check) | - | correctly rounded |",
                r.cases, r.pass
            );
        }
    }
    for (j, &(name, _, _, lo, hi, b)) in ops.iter().enumerate() {
        let r = &st[16 + j];
        all_ok &= r.pass == r.cases;
        let (abs, bound) = if lo < hi {
            (
                format!("2^{:.2} on [{lo:.4}, {hi:.4})", r.max_abs.log2()),
                format!("2^{b}"),
            )
        } else {
            ("-".into(), "none stated".into())
        };
        println!(
            "| {name} | {} | {} | {:.3} ({:#010x}) | {abs} | {bound} |",
            r.cases, r.pass, r.max_ulp, r.max_ulp_at
        );
    }
    all_ok
}

/// `--merge`: combines the `ROW` lines of part outputs.
fn merge_parts(files: &[String]) {
    let ops = approx_ops();
    let mut st = vec![Stats::default(); 16 + ops.len()];
    let mut seen: Vec<(u64, u64)> = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{f}: {e}"));
        let mut part = None;
        for line in text.lines().filter(|l| l.starts_with("ROW\t")) {
            let v: Vec<&str> = line.split('\t').collect();
            let (k, n) = v[1].split_once('/').expect("K/N");
            part = Some((k.parse::<u64>().unwrap(), n.parse::<u64>().unwrap()));
            let i: usize = v[2].parse().unwrap();
            let r = Stats {
                cases: v[3].parse().unwrap(),
                pass: v[4].parse().unwrap(),
                max_ulp: v[5].parse().unwrap(),
                max_ulp_at: v[6].parse().unwrap(),
                max_abs: v[7].parse().unwrap(),
            };
            merge(&mut st[i], &r);
        }
        seen.push(part.unwrap_or_else(|| panic!("{f}: no ROW lines")));
    }
    seen.sort();
    let n = seen[0].1;
    assert!(
        seen.iter().enumerate().all(|(k, p)| *p == (k as u64, n)) && seen.len() as u64 == n,
        "parts must be 0/N..N-1/N exactly once, got {seen:?}"
    );
    println!("sweep_f32 merged: {n} parts, {} inputs", st[16].cases);
    if !print_table(&st, &ops) {
        println!("FAILURES present");
        std::process::exit(1);
    }
}
