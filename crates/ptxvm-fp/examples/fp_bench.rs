//! Micro-benchmark: ns/op of the round-to-nearest and directed-rounding paths of
//! add/mul/fma/div/sqrt (`.f32` and `.f64`), beside plain host arithmetic. Each figure is the
//! median of several runs over a 4096-element working set; `std::hint::black_box` keeps
//! the compiler from folding the work away.
//!
//! `cargo run --release -p ptxvm-fp --example fp_bench`

use ptxvm_fp::Rnd;
use ptxvm_fp::arith as ar;
use std::hint::black_box;
use std::time::Instant;

const N: usize = 4096;
const REPS: usize = 200;
const RUNS: usize = 7;

fn median_ns(mut f: impl FnMut() -> f64) -> f64 {
    let mut v: Vec<f64> = (0..RUNS).map(|_| f()).collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[RUNS / 2]
}

fn time<T: Copy>(xs: &[T], f: impl Fn(T) -> f64) -> f64 {
    median_ns(|| {
        let t = Instant::now();
        let mut acc = 0.0;
        for _ in 0..REPS {
            for &x in xs {
                acc += f(black_box(x));
            }
        }
        black_box(acc);
        t.elapsed().as_nanos() as f64 / (REPS * N) as f64
    })
}

fn main() {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let v32: Vec<(f32, f32, f32)> = (0..N)
        .map(|_| {
            let mut g = || f32::from_bits((rnd() as u32 & 0x00ff_ffff) | 0x3f00_0000);
            (g(), g(), g())
        })
        .collect();
    let v64: Vec<(f64, f64, f64)> = (0..N)
        .map(|_| {
            let mut g = || f64::from_bits((rnd() & 0x001f_ffff_ffff_ffff) | 0x3fe0_0000_0000_0000);
            (g(), g(), g())
        })
        .collect();
    println!("avx512f: {}", ar::has_avx512());
    println!("| op | host | ptxvm .rn | ptxvm .rz (dispatch) | ptxvm .rz (soft path) |");
    println!("| --- | --- | --- | --- | --- |");
    let row = |name: &str, host: f64, rn: f64, rz: f64, soft: f64| {
        println!("| {name} | {host:.2} | {rn:.2} | {rz:.2} | {soft:.2} |");
    };
    let f = |x: f32| x as f64;
    row(
        "add.f32",
        time(&v32, |(a, b, _)| f(a + b)),
        time(&v32, |(a, b, _)| {
            f(ar::add_f32(a, b, Rnd::Rn, false, false))
        }),
        time(&v32, |(a, b, _)| {
            f(ar::add_f32(a, b, Rnd::Rz, false, false))
        }),
        time(&v32, |(a, b, _)| f(ar::add_f32_soft(a, b, Rnd::Rz))),
    );
    row(
        "mul.f32",
        time(&v32, |(a, b, _)| f(a * b)),
        time(&v32, |(a, b, _)| {
            f(ar::mul_f32(a, b, Rnd::Rn, false, false))
        }),
        time(&v32, |(a, b, _)| {
            f(ar::mul_f32(a, b, Rnd::Rz, false, false))
        }),
        time(&v32, |(a, b, _)| f(ar::mul_f32_soft(a, b, Rnd::Rz))),
    );
    row(
        "fma.f32",
        time(&v32, |(a, b, c)| f(a.mul_add(b, c))),
        time(&v32, |(a, b, c)| {
            f(ar::fma_f32(a, b, c, Rnd::Rn, false, false))
        }),
        time(&v32, |(a, b, c)| {
            f(ar::fma_f32(a, b, c, Rnd::Rz, false, false))
        }),
        time(&v32, |(a, b, c)| f(ar::fma_f32_soft(a, b, c, Rnd::Rz))),
    );
    row(
        "div.f32",
        time(&v32, |(a, b, _)| f(a / b)),
        time(&v32, |(a, b, _)| f(ar::div_f32(a, b, Rnd::Rn, false))),
        time(&v32, |(a, b, _)| f(ar::div_f32(a, b, Rnd::Rz, false))),
        time(&v32, |(a, b, _)| f(ar::div_f32_soft(a, b, Rnd::Rz))),
    );
    row(
        "sqrt.f32",
        time(&v32, |(a, _, _)| f(a.sqrt())),
        time(&v32, |(a, _, _)| f(ar::sqrt_f32(a, Rnd::Rn, false))),
        time(&v32, |(a, _, _)| f(ar::sqrt_f32(a, Rnd::Rz, false))),
        time(&v32, |(a, _, _)| f(ar::sqrt_f32_soft(a, Rnd::Rz))),
    );
    row(
        "add.f64",
        time(&v64, |(a, b, _)| a + b),
        time(&v64, |(a, b, _)| ar::add_f64(a, b, Rnd::Rn)),
        time(&v64, |(a, b, _)| ar::add_f64(a, b, Rnd::Rz)),
        time(&v64, |(a, b, _)| ar::add_f64_soft(a, b, Rnd::Rz)),
    );
    row(
        "mul.f64",
        time(&v64, |(a, b, _)| a * b),
        time(&v64, |(a, b, _)| ar::mul_f64(a, b, Rnd::Rn)),
        time(&v64, |(a, b, _)| ar::mul_f64(a, b, Rnd::Rz)),
        time(&v64, |(a, b, _)| ar::mul_f64_soft(a, b, Rnd::Rz)),
    );
    row(
        "fma.f64",
        time(&v64, |(a, b, c)| a.mul_add(b, c)),
        time(&v64, |(a, b, c)| ar::fma_f64(a, b, c, Rnd::Rn)),
        time(&v64, |(a, b, c)| ar::fma_f64(a, b, c, Rnd::Rz)),
        time(&v64, |(a, b, c)| ar::fma_f64_soft(a, b, c, Rnd::Rz)),
    );
    row(
        "div.f64",
        time(&v64, |(a, b, _)| a / b),
        time(&v64, |(a, b, _)| ar::div_f64(a, b, Rnd::Rn)),
        time(&v64, |(a, b, _)| ar::div_f64(a, b, Rnd::Rz)),
        time(&v64, |(a, b, _)| ar::div_f64_soft(a, b, Rnd::Rz)),
    );
    row(
        "sqrt.f64",
        time(&v64, |(a, _, _)| a.sqrt()),
        time(&v64, |(a, _, _)| ar::sqrt_f64(a, Rnd::Rn)),
        time(&v64, |(a, _, _)| ar::sqrt_f64(a, Rnd::Rz)),
        time(&v64, |(a, _, _)| ar::sqrt_f64_soft(a, Rnd::Rz)),
    );
}
