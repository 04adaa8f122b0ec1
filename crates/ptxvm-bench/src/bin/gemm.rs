//! Tensor-core GEMM benchmark (issue 12): a 256³ f16 GEMM through Triton's `tl.dot` kernel
//! (f16 inputs, f32 accumulation, f16 output, 128×128×64 tiles, 8 warps, 3 stages) compiled
//! twice: for sm_80 (`tests/fixtures/triton/matmul.fp16_128x128x64_w8_s3.sm_80.ptx`:
//! `mma.sync`, `cp.async`) on the emulated A100, and for sm_90 (`….sm_90.ptx`: `wgmma` with
//! shared-memory descriptors) on the emulated H100 (`sm_90a`), each with its device's
//! tensor-core arithmetic — against numpy's float32 matmul of the same size.
//!
//! Every engine's output is compared bit for bit with the reference engine's (which runs
//! once, as the oracle); the output is also compared with an f32 matmul of the same inputs
//! (the largest difference is printed: f16 rounding of the result). numpy runs in a child
//! process (`$PYTHON`, default `python3`); without numpy its row says so.
//!
//! `cargo run --release -p ptxvm-bench --bin gemm -- [--runs N] [--threads 1,2] [--arch sm_80|sm_90a]`

use ptxvm_fp::Rnd;
use ptxvm_fp::convert::{cvt_f16_to_f32, cvt_f32_to_f16};
use ptxvm_vm::{Device, DeviceProps, Engine, LaunchConfig, Stats};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const N: usize = 256;
const KERNEL: &str = "matmul_kernel";
/// The kernel per device model: `mma.sync` on sm_80, `wgmma` on sm_90a.
const FIXTURES: [(&str, &str); 2] = [
    (
        "sm_80",
        "tests/fixtures/triton/matmul.fp16_128x128x64_w8_s3.sm_80.ptx",
    ),
    (
        "sm_90a",
        "tests/fixtures/triton/matmul.fp16_128x128x64_w8_s3.sm_90.ptx",
    ),
];
/// The kernel's tile (BLOCK_M = BLOCK_N) and its launch: one CTA per output tile.
const TILE: usize = 128;
const THREADS_PER_CTA: u32 = 256;
/// Triton's dynamic shared memory for this kernel (its `shared` metadata, the same for both).
const SHARED: u32 = 131072;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// f16 bits of `k / 64` for `k` in -32..32: exact in f16, so every model agrees on products.
fn f16_bits(k: i32) -> u16 {
    cvt_f32_to_f16(k as f32 / 64.0, Rnd::Rn, false, false, false, false)
}

fn f16_to_f32(h: u16) -> f32 {
    cvt_f16_to_f32(h, false, false)
}

fn inputs(seed: u32) -> Vec<u16> {
    let mut x = seed;
    (0..N * N)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            f16_bits((x % 64) as i32 - 32)
        })
        .collect()
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

struct Opts {
    runs: usize,
    threads: Vec<usize>,
    /// The device models to run (default: both).
    archs: Vec<String>,
}

fn opts() -> Opts {
    let mut o = Opts {
        runs: 5,
        threads: vec![1, 2],
        archs: FIXTURES.iter().map(|(a, _)| a.to_string()).collect(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--runs" => {
                o.runs = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|&n| n > 0)
                    .expect("--runs N")
            }
            "--threads" => {
                o.threads = args
                    .next()
                    .expect("--threads 1,2")
                    .split(',')
                    .map(|t| t.parse().expect("--threads: a list of numbers"))
                    .collect()
            }
            "--arch" => {
                let a = args.next().expect("--arch sm_80|sm_90a");
                assert!(
                    FIXTURES.iter().any(|(x, _)| *x == a),
                    "--arch: sm_80 or sm_90a"
                );
                o.archs = vec![a];
            }
            _ => panic!("usage: gemm [--runs N] [--threads 1,2] [--arch sm_80|sm_90a]"),
        }
    }
    o
}

/// numpy's float32 256³ matmul: the median of 50 timed products after a warm-up, in the
/// child's own clock; `Err` when numpy is not there.
fn numpy_time() -> Result<Duration, String> {
    let py = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let script = format!(
        "import numpy as np, time\n\
         r = np.random.default_rng(0)\n\
         a = r.random(({N}, {N}), dtype=np.float32); b = r.random(({N}, {N}), dtype=np.float32)\n\
         a @ b\n\
         t = []\n\
         for _ in range(50):\n\
         \x20   s = time.perf_counter(); a @ b; t.append(time.perf_counter() - s)\n\
         t.sort(); print(t[25], np.__version__)\n"
    );
    let out = std::process::Command::new(&py)
        .args(["-c", &script])
        .output()
        .map_err(|e| format!("{py}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{py} -c 'import numpy' failed: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut it = text.split_whitespace();
    let secs: f64 = it
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or("numpy: no timing printed")?;
    eprintln!("numpy {} ({py})", it.next().unwrap_or("?"));
    Ok(Duration::from_secs_f64(secs))
}

fn main() {
    let o = opts();
    println!("# ptxvm tensor-core GEMM benchmark");
    let numpy = numpy_time();
    let mut failed = false;
    for (arch, fixture) in FIXTURES {
        if o.archs.iter().any(|a| a == arch) {
            failed |= bench(&o, arch, fixture, &numpy);
        }
    }
    if failed {
        std::process::exit(1);
    }
}

/// One kernel on one device model; true when an engine's output differs from the oracle's.
fn bench(o: &Opts, arch: &str, fixture: &str, numpy: &Result<Duration, String>) -> bool {
    let path = repo_root().join(fixture);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let model = ptxvm_vm::arch::model(arch).expect("a device model");
    let dev = Device::with_props(DeviceProps::for_model(model));
    let module = dev.load_ptx(fixture, &text).expect("load");
    let (a, b) = (inputs(1), inputs(2));
    let bytes = |v: &[u16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let pa = dev.malloc((N * N * 2) as u64).expect("malloc");
    let pb = dev.malloc((N * N * 2) as u64).expect("malloc");
    let pc = dev.malloc((N * N * 2) as u64).expect("malloc");
    dev.write(pa, &bytes(&a)).expect("write");
    dev.write(pb, &bytes(&b)).expect("write");
    let s32 = |v: usize| (v as i32).to_le_bytes().to_vec();
    // (a, b, c, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    // and Triton's two scratch pointers, unused here).
    let params: Vec<Vec<u8>> = vec![
        pa.to_le_bytes().to_vec(),
        pb.to_le_bytes().to_vec(),
        pc.to_le_bytes().to_vec(),
        s32(N),
        s32(N),
        s32(N),
        s32(N),
        s32(1),
        s32(N),
        s32(1),
        s32(N),
        s32(1),
        0u64.to_le_bytes().to_vec(),
        0u64.to_le_bytes().to_vec(),
    ];
    let refs: Vec<&[u8]> = params.iter().map(Vec::as_slice).collect();
    let ctas = ((N / TILE) * (N / TILE)) as u32;
    let launch = |engine: Engine, threads: usize| -> (Duration, Stats, Vec<u8>) {
        dev.memset(pc, 0xff, (N * N * 2) as u64).expect("memset");
        let cfg = LaunchConfig {
            grid: [ctas, 1, 1],
            block: [THREADS_PER_CTA, 1, 1],
            shared_mem: SHARED,
            threads,
            engine,
            max_steps: 1 << 40,
            ..LaunchConfig::default()
        };
        let mut st = Stats::default();
        let t = Instant::now();
        dev.launch(module, KERNEL, &cfg, &refs, &mut st)
            .unwrap_or_else(|e| panic!("{} launch: {e}", engine.name()));
        let wall = t.elapsed();
        (wall, st, dev.read(pc, (N * N * 2) as u64).expect("read"))
    };

    println!(
        "\n## {arch}\n\n- kernel: `{fixture}` (`{KERNEL}`), {N}x{N}x{N}, {ctas} CTAs x \
         {THREADS_PER_CTA} threads, {SHARED} B dynamic shared memory, device model {arch}"
    );
    println!(
        "- runs: median of {} per engine and thread count (reference: 1)",
        o.runs
    );
    let (ref_wall, ref_st, oracle) = launch(Engine::Reference, 1);
    // The oracle against an f32 matmul of the same inputs.
    let fa: Vec<f32> = a.iter().map(|&h| f16_to_f32(h)).collect();
    let fb: Vec<f32> = b.iter().map(|&h| f16_to_f32(h)).collect();
    let mut max_err = 0f32;
    for i in 0..N {
        for j in 0..N {
            let want: f32 = (0..N).map(|k| fa[i * N + k] * fb[k * N + j]).sum();
            let got = f16_to_f32(u16::from_le_bytes([
                oracle[2 * (i * N + j)],
                oracle[2 * (i * N + j) + 1],
            ]));
            max_err = max_err.max((want - got).abs());
        }
    }
    println!(
        "- the oracle against an f32 matmul of the same inputs: largest difference {max_err} \
         (the f16 rounding of results up to 256 x 0.25)"
    );
    let macs = (N * N * N) as f64;
    println!(
        "\n| implementation | threads | median wall | G thread-inst/s | G MAC/s | ÷ numpy f32 | output |"
    );
    println!("|---|---:|---:|---:|---:|---:|---|");
    let row = |name: &str, t: usize, wall: Duration, st: Option<&Stats>, out: &str| {
        let gips = st.map_or("—".into(), |s| {
            format!("{:.3}", s.thread_insts as f64 / wall.as_secs_f64() / 1e9)
        });
        let ratio = numpy.as_ref().map_or("—".into(), |n| {
            format!("{:.0}x", wall.as_secs_f64() / n.as_secs_f64())
        });
        println!(
            "| {name} | {t} | {:.2} ms | {gips} | {:.3} | {ratio} | {out} |",
            wall.as_secs_f64() * 1e3,
            macs / wall.as_secs_f64() / 1e9
        );
    };
    row("reference (1 run)", 1, ref_wall, Some(&ref_st), "oracle");
    let mut failed = false;
    for engine in [Engine::Interp, Engine::Jit] {
        for &t in &o.threads {
            let mut walls = Vec::new();
            let mut last = None;
            for _ in 0..o.runs {
                let (w, st, out) = launch(engine, t);
                if out != oracle {
                    failed = true;
                    eprintln!(
                        "{} at {t} threads: output differs from the reference",
                        engine.name()
                    );
                }
                walls.push(w);
                last = Some(st);
            }
            let st = last.expect("runs > 0");
            let tiers = format!(
                "= reference; native {:.1}% of warp insts",
                100.0 * st.tiers[3] as f64 / st.warp_insts.max(1) as f64
            );
            row(engine.name(), t, median(&mut walls), Some(&st), &tiers);
        }
    }
    match numpy {
        Ok(d) => row("numpy float32 `a @ b`", 0, *d, None, "—"),
        Err(e) => println!("| numpy float32 | — | not run: {e} | | | | |"),
    }
    println!(
        "\n(thread count 0: numpy's own, OpenBLAS. {} thread instructions, {} warp instructions per launch.)",
        ref_st.thread_insts, ref_st.warp_insts
    );
    failed
}
