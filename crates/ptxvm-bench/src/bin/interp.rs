//! Interpreter benchmark: four real NVRTC kernels (vector add, shared-memory reduction,
//! warp-shuffle scan, tiled matrix multiply) run by ptxvm at 1 and 2 host threads, beside
//! the same computation written natively in Rust, in the same process.
//!
//! `cargo run --release -p ptxvm-bench --bin interp -- [--runs N]`
//!
//! Reports per kernel: thread-instructions executed, median wall time and
//! thread-instructions per second at each thread count, the native median, and the
//! slowdown ratio (interpreter / native). Each interpreter result is checked against the
//! native one, so the benchmark cannot measure a wrong run.

use ptxvm_vm::{Device, LaunchConfig};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Deterministic inputs (small integers so float sums are exact in any order).
fn data(n: usize, seed: u32) -> Vec<f32> {
    let mut x = seed.wrapping_mul(2_654_435_761).max(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            ((x % 17) as f32) - 8.0
        })
        .collect()
}

struct Case {
    name: &'static str,
    fixture: &'static str,
    kernel: &'static str,
    grid: [u32; 3],
    block: [u32; 3],
    /// Buffers (bytes) and scalar parameters, in order; `true` marks a buffer.
    args: Vec<(bool, Vec<u8>)>,
    /// Index of the output buffer among the args and its length in bytes.
    out: usize,
    native: Box<dyn Fn() -> Vec<u8>>,
}

fn cases() -> Vec<Case> {
    let n = 1 << 18;
    let a = data(n, 1);
    let b = data(n, 2);
    let (a1, b1) = (a.clone(), b.clone());
    let vec_add = Case {
        name: "vector add (f32, 262144)",
        fixture: "tests/fixtures/nvrtc12/vector_add.sm_80.ptx",
        kernel: "vec_add_f32",
        grid: [(n / 256) as u32, 1, 1],
        block: [256, 1, 1],
        args: vec![
            (true, f32s(&a)),
            (true, f32s(&b)),
            (true, vec![0; n * 4]),
            (false, (n as u32).to_le_bytes().to_vec()),
        ],
        out: 2,
        native: Box::new(move || {
            let c: Vec<f32> = a1.iter().zip(&b1).map(|(x, y)| x + y).collect();
            f32s(black_box(&c))
        }),
    };
    // reduce_sum<256>: 64 CTAs each reduce 2*256 elements per grid stride.
    let rn = 1 << 18;
    let ra = data(rn, 3);
    let ctas = 64usize;
    let ra1 = ra.clone();
    let reduce = Case {
        name: "shared-memory reduction (f32, 262144)",
        fixture: "tests/fixtures/nvrtc12/reduce_shared.sm_80.ptx",
        kernel: "_Z10reduce_sumILj256EEvPKfPfj",
        grid: [ctas as u32, 1, 1],
        block: [256, 1, 1],
        args: vec![
            (true, f32s(&ra)),
            (true, vec![0; ctas * 4]),
            (false, (rn as u32).to_le_bytes().to_vec()),
        ],
        out: 1,
        native: Box::new(move || {
            // Same partition as the kernel: CTA c sums elements i with (i / 512) % 64 == c.
            // The inputs are small integers, so every summation order gives the same value.
            let mut parts = vec![0f32; ctas];
            for (i, x) in ra1.iter().enumerate() {
                parts[(i / 512) % ctas] += x;
            }
            f32s(black_box(&parts))
        }),
    };
    // inclusive_scan_warp: every warp scans its 32 ints.
    let sn = 1 << 18;
    let si: Vec<i32> = data(sn, 4).iter().map(|x| *x as i32).collect();
    let si1 = si.clone();
    let scan = Case {
        name: "warp-shuffle scan (i32, 262144)",
        fixture: "tests/fixtures/nvrtc12/warp_shuffle.sm_80.ptx",
        kernel: "inclusive_scan_warp",
        grid: [(sn / 256) as u32, 1, 1],
        block: [256, 1, 1],
        args: vec![(true, i32s(&si)), (true, vec![0; sn * 4])],
        out: 1,
        native: Box::new(move || {
            let mut out = vec![0i32; si1.len()];
            for (w, chunk) in si1.chunks(32).enumerate() {
                let mut acc = 0i32;
                for (l, v) in chunk.iter().enumerate() {
                    acc = acc.wrapping_add(*v);
                    out[w * 32 + l] = acc;
                }
            }
            i32s(black_box(&out))
        }),
    };
    // sgemm_tiled<16>: C = alpha*A*B + beta*C, 128x128x128.
    let m = 128usize;
    let ma = data(m * m, 5);
    let mb = data(m * m, 6);
    let mc = data(m * m, 7);
    let (ma1, mb1, mc1) = (ma.clone(), mb.clone(), mc.clone());
    let (alpha, beta) = (1.5f32, -0.5f32);
    let gemm = Case {
        name: "tiled matmul (f32, 128x128x128)",
        fixture: "tests/fixtures/nvrtc12/matmul_tiled.sm_80.ptx",
        kernel: "_Z11sgemm_tiledILi16EEvPKfS1_Pfiiiff",
        grid: [(m / 16) as u32, (m / 16) as u32, 1],
        block: [16, 16, 1],
        args: vec![
            (true, f32s(&ma)),
            (true, f32s(&mb)),
            (true, f32s(&mc)),
            (false, (m as i32).to_le_bytes().to_vec()),
            (false, (m as i32).to_le_bytes().to_vec()),
            (false, (m as i32).to_le_bytes().to_vec()),
            (false, alpha.to_le_bytes().to_vec()),
            (false, beta.to_le_bytes().to_vec()),
        ],
        out: 2,
        native: Box::new(move || {
            let mut c = mc1.clone();
            for r in 0..m {
                for col in 0..m {
                    let mut acc = 0f32;
                    for k in 0..m {
                        acc = ma1[r * m + k].mul_add(mb1[k * m + col], acc);
                    }
                    c[r * m + col] = alpha * acc + beta * c[r * m + col];
                }
            }
            f32s(black_box(&c))
        }),
    };
    vec![vec_add, reduce, scan, gemm]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    println!(
        "| kernel | thread insts | 1 thread: median | 1 thread: Minst/s | 2 threads: median | 2 threads: Minst/s | native (Rust): median | slowdown 1T / 2T |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for c in cases() {
        let text = std::fs::read_to_string(root().join(c.fixture)).expect("fixture");
        let native_out = (c.native)();
        let native = median(
            (0..runs.max(3))
                .map(|_| {
                    let t = Instant::now();
                    black_box((c.native)());
                    t.elapsed()
                })
                .collect(),
        );
        let mut row = Vec::new();
        let mut insts = 0;
        for threads in [1usize, 2] {
            let mut times = Vec::new();
            for _ in 0..runs {
                let dev = Device::new();
                let m = dev.load_ptx(c.fixture, &text).expect("load");
                let mut params: Vec<Vec<u8>> = Vec::new();
                let mut addrs = Vec::new();
                for (is_buf, bytes) in &c.args {
                    if *is_buf {
                        let a = dev.malloc(bytes.len() as u64).expect("malloc");
                        dev.write(a, bytes).expect("write");
                        addrs.push(a);
                        params.push(a.to_le_bytes().to_vec());
                    } else {
                        addrs.push(0);
                        params.push(bytes.clone());
                    }
                }
                let refs: Vec<&[u8]> = params.iter().map(|p| p.as_slice()).collect();
                let cfg = LaunchConfig {
                    grid: c.grid,
                    block: c.block,
                    threads,
                    ..LaunchConfig::default()
                };
                let t = Instant::now();
                let mut st = ptxvm_vm::Stats::default();
                dev.launch(m, c.kernel, &cfg, &refs, &mut st)
                    .expect("launch");
                times.push(t.elapsed());
                insts = st.thread_insts;
                let got = dev
                    .read(addrs[c.out], c.args[c.out].1.len() as u64)
                    .expect("read");
                assert!(
                    got == native_out,
                    "{}: interpreter result differs from the native one",
                    c.name
                );
            }
            row.push(median(times));
        }
        let mips = |d: Duration| insts as f64 / d.as_secs_f64() / 1e6;
        println!(
            "| {} | {} | {:.1} ms | {:.1} | {:.1} ms | {:.1} | {:.3} ms | {:.0}x / {:.0}x |",
            c.name,
            insts,
            row[0].as_secs_f64() * 1e3,
            mips(row[0]),
            row[1].as_secs_f64() * 1e3,
            mips(row[1]),
            native.as_secs_f64() * 1e3,
            row[0].as_secs_f64() / native.as_secs_f64(),
            row[1].as_secs_f64() / native.as_secs_f64()
        );
    }
}
