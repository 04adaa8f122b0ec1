//! Engines benchmark: five NVRTC kernels (vector add, a dependent FMA chain "poly", a
//! shared-memory reduction, a warp-shuffle scan, a 16x16-tiled SGEMM) run by every ptxvm
//! engine this build has, beside C references of the same kernels compiled with
//! `-O3 -march=native -fopenmp` (plus a blocked C poly and a naive i-k-j SGEMM as the
//! "best simple C"), in the same process, at equal thread counts.
//!
//! ```text
//! cargo build --release -p ptxvm -p ptxvm-bench
//! ./target/release/engines [--runs N] [--reference-runs N] [--only NAME,...]
//!                          [--threads 1,2] [--no-e2e] [--no-compile-times] [--ptxvm PATH]
//! ```
//!
//! For each kernel and thread count, each round runs the reference engine (first
//! `--reference-runs` rounds only), then each C reference, then every other engine, one
//! after the other; the median over the rounds (`--runs`, default 5) is reported, with the
//! process CPU time (getrusage) per run. The first reference run is the oracle: every
//! engine's output of every run must equal it bit for bit (a mismatch fails the benchmark
//! with a non-zero exit). The C references compute in the kernels' order of operations
//! and are checked against the oracle too (exactly, or within a relative 1e-5 if not).
//!
//! The reference engine runs at the same sizes as the others (so every output is compared
//! at the sizes that are timed) but only in the first `--reference-runs` rounds of each
//! thread count (default: one): its row is labelled with its run count, and it costs
//! about 40 s of the run on a 2-core machine.
//!
//! Engines are listed dynamically: every engine of `[Reference, Interp, Jit]` whose
//! `resolve()` succeeds runs. Per kernel and engine the report gives the warp
//! instructions by tier (`Stats::tiers`: lane loops, per lane, reference steps, native
//! code), and for the JIT its compile time or why it did not compile the kernel. Then,
//! unless disabled: the first-launch cost of every kernel of `tests/fixtures` per engine
//! and the JIT's own compile time (`Stats::jit_compile`) of every fixture kernel it
//! compiles (with the kernels it did not compile, by kind of error), and the end to end run
//! of the poly kernel as a whole `ptxvm run` process (median of 5; build `-p ptxvm` first,
//! the binary next to this one is used). Targets (issue 11) are printed with pass/miss at
//! the end.

use ptxvm_vm::{Device, Engine, LaunchConfig, Stats};
use std::ffi::{c_int, c_uint};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

unsafe extern "C" {
    fn bench_set_threads(n: c_int);
    fn vec_add_c(a: *const f32, b: *const f32, c: *mut f32, n: c_int);
    fn poly_c(input: *const f32, out: *mut f32, n: c_int, iters: c_int);
    fn poly_blocked_c(input: *const f32, out: *mut f32, n: c_int, iters: c_int);
    fn reduce_c(input: *const f32, out: *mut f32, n: c_uint);
    fn scan_c(input: *const i32, out: *mut i32, n: c_int);
    fn sgemm_tiled_c(a: *const f32, b: *const f32, c: *mut f32, n: c_int);
    fn sgemm_ikj_c(a: *const f32, b: *const f32, c: *mut f32, n: c_int);
}

const C_COMPILER: &str = env!("BENCH_C_COMPILER");
const C_FLAGS: &str = env!("BENCH_C_FLAGS");

fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels")
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

// ---------------------------------------------------------------------------- inputs

fn xorshift(seed: u32) -> impl FnMut() -> u32 {
    let mut x = seed.wrapping_mul(2_654_435_761).max(1);
    move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    }
}

/// Floats in [-1, 1) with full mantissas.
fn floats(n: usize, seed: u32) -> Vec<f32> {
    let mut r = xorshift(seed);
    (0..n)
        .map(|_| (r() >> 8) as f32 / (1u32 << 23) as f32 - 1.0)
        .collect()
}

/// Small integers in [-8, 8].
fn small_ints(n: usize, seed: u32) -> Vec<i32> {
    let mut r = xorshift(seed);
    (0..n).map(|_| (r() % 17) as i32 - 8).collect()
}

fn bytes_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn bytes_i32(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn words_to_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

// ---------------------------------------------------------------------------- cases

enum Arg {
    /// An input buffer.
    In(Vec<u8>),
    /// An output buffer of this many bytes (filled with 0xff before every run).
    Out(usize),
    /// A scalar parameter.
    Scalar(Vec<u8>),
}

/// The role of a C reference in the targets.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The same algorithm as the kernel (the same tiling for SGEMM).
    Same,
    /// The "best simple C".
    Best,
}

/// A C reference's entry: runs once, writing the output (4-byte elements) to the slice.
type CFn = Box<dyn Fn(&mut [u32])>;

struct CRef {
    label: &'static str,
    role: Role,
    run: CFn,
}

struct Case {
    name: &'static str,
    title: String,
    ptx: &'static str,
    kernel: &'static str,
    grid: [u32; 3],
    block: [u32; 3],
    args: Vec<Arg>,
    /// Elements (4 bytes each) of the output.
    out_words: usize,
    cref: Vec<CRef>,
    /// Whether the C references must match the kernel exactly (all of them here).
    exact_c: bool,
}

const POLY_N: usize = 1 << 18;
const POLY_ITERS: i32 = 256;

fn cases() -> Vec<Case> {
    let mut v = Vec::new();

    let n = 1usize << 22;
    let (a, b) = (floats(n, 1), floats(n, 2));
    let (a1, b1) = (a.clone(), b.clone());
    v.push(Case {
        name: "vecadd",
        title: "vector add (f32, 2^22)".into(),
        ptx: "vector_add.ptx",
        kernel: "vec_add",
        grid: [(n / 256) as u32, 1, 1],
        block: [256, 1, 1],
        args: vec![
            Arg::In(bytes_f32(&a)),
            Arg::In(bytes_f32(&b)),
            Arg::Out(n * 4),
            Arg::Scalar((n as i32).to_le_bytes().to_vec()),
        ],
        out_words: n,
        cref: vec![CRef {
            label: "C",
            role: Role::Same,
            run: Box::new(move |out| unsafe {
                vec_add_c(
                    a1.as_ptr(),
                    b1.as_ptr(),
                    out.as_mut_ptr().cast(),
                    n as c_int,
                )
            }),
        }],
        exact_c: true,
    });

    let x = floats(POLY_N, 3);
    let (x1, x2) = (x.clone(), x.clone());
    v.push(Case {
        name: "poly",
        title: format!("poly: FMA chain (f32, 2^18 threads x {POLY_ITERS})"),
        ptx: "poly.ptx",
        kernel: "poly",
        grid: [(POLY_N / 256) as u32, 1, 1],
        block: [256, 1, 1],
        args: vec![
            Arg::In(bytes_f32(&x)),
            Arg::Out(POLY_N * 4),
            Arg::Scalar((POLY_N as i32).to_le_bytes().to_vec()),
            Arg::Scalar(POLY_ITERS.to_le_bytes().to_vec()),
        ],
        out_words: POLY_N,
        cref: vec![
            CRef {
                label: "C (per element)",
                role: Role::Same,
                run: Box::new(move |out| unsafe {
                    poly_c(
                        x1.as_ptr(),
                        out.as_mut_ptr().cast(),
                        POLY_N as c_int,
                        POLY_ITERS,
                    )
                }),
            },
            CRef {
                label: "C blocked (best simple)",
                role: Role::Best,
                run: Box::new(move |out| unsafe {
                    poly_blocked_c(
                        x2.as_ptr(),
                        out.as_mut_ptr().cast(),
                        POLY_N as c_int,
                        POLY_ITERS,
                    )
                }),
            },
        ],
        exact_c: true,
    });

    let n = 1usize << 22;
    let ctas = n / 512;
    let r = floats(n, 4);
    let r1 = r.clone();
    v.push(Case {
        name: "reduce",
        title: "shared-memory reduction (f32, 2^22)".into(),
        ptx: "reduce.ptx",
        kernel: "reduce_sum",
        grid: [ctas as u32, 1, 1],
        block: [256, 1, 1],
        args: vec![
            Arg::In(bytes_f32(&r)),
            Arg::Out(ctas * 4),
            Arg::Scalar((n as u32).to_le_bytes().to_vec()),
        ],
        out_words: ctas,
        cref: vec![CRef {
            label: "C",
            role: Role::Same,
            run: Box::new(move |out| unsafe {
                reduce_c(r1.as_ptr(), out.as_mut_ptr().cast(), n as c_uint)
            }),
        }],
        exact_c: true,
    });

    let n = 1usize << 22;
    let s = small_ints(n, 5);
    let s1 = s.clone();
    v.push(Case {
        name: "scan",
        title: "warp-shuffle scan (i32, 2^22)".into(),
        ptx: "scan.ptx",
        kernel: "scan_inclusive",
        grid: [(n / 256) as u32, 1, 1],
        block: [256, 1, 1],
        args: vec![
            Arg::In(bytes_i32(&s)),
            Arg::Out(n * 4),
            Arg::Scalar((n as i32).to_le_bytes().to_vec()),
        ],
        out_words: n,
        cref: vec![CRef {
            label: "C",
            role: Role::Same,
            run: Box::new(move |out| unsafe {
                scan_c(s1.as_ptr(), out.as_mut_ptr().cast(), n as c_int)
            }),
        }],
        exact_c: true,
    });

    let m = 256usize;
    let (ga, gb) = (floats(m * m, 6), floats(m * m, 7));
    let (ga1, gb1, ga2, gb2) = (ga.clone(), gb.clone(), ga.clone(), gb.clone());
    v.push(Case {
        name: "sgemm",
        title: "tiled SGEMM 16x16 (f32, 256^3)".into(),
        ptx: "sgemm.ptx",
        kernel: "sgemm_tiled16",
        grid: [(m / 16) as u32, (m / 16) as u32, 1],
        block: [16, 16, 1],
        args: vec![
            Arg::In(bytes_f32(&ga)),
            Arg::In(bytes_f32(&gb)),
            Arg::Out(m * m * 4),
            Arg::Scalar((m as i32).to_le_bytes().to_vec()),
        ],
        out_words: m * m,
        cref: vec![
            CRef {
                label: "C (same 16x16 tiling)",
                role: Role::Same,
                run: Box::new(move |out| unsafe {
                    sgemm_tiled_c(
                        ga1.as_ptr(),
                        gb1.as_ptr(),
                        out.as_mut_ptr().cast(),
                        m as c_int,
                    )
                }),
            },
            CRef {
                label: "C naive i-k-j (best simple)",
                role: Role::Best,
                run: Box::new(move |out| unsafe {
                    sgemm_ikj_c(
                        ga2.as_ptr(),
                        gb2.as_ptr(),
                        out.as_mut_ptr().cast(),
                        m as c_int,
                    )
                }),
            },
        ],
        exact_c: true,
    });
    v
}

// ---------------------------------------------------------------------------- machine

fn cpu_time() -> Duration {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn cpu_description() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    };
    let model = field("model name").unwrap_or_else(|| "unknown".into());
    let cpus = info.lines().filter(|l| l.starts_with("processor")).count();
    let flags = field("flags").unwrap_or_default();
    let have: Vec<&str> = ["avx2", "fma", "avx512f"]
        .into_iter()
        .filter(|f| flags.split_whitespace().any(|x| x == *f))
        .collect();
    let avail = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!(
        "{model}; {cpus} logical CPUs ({avail} available to this process); flags: {}",
        if have.is_empty() {
            "none of avx2 fma avx512f".to_string()
        } else {
            have.join(" ")
        }
    )
}

// ---------------------------------------------------------------------------- measuring

#[derive(Default, Clone)]
struct Series {
    wall: Vec<Duration>,
    cpu: Vec<Duration>,
    thread_insts: u64,
    warp_insts: u64,
    tiers: [u64; 4],
    /// The JIT's compile time (the launch that compiled the kernel), the kernel's
    /// instructions it compiled, and why it did not compile the kernel.
    jit_compile: Option<Duration>,
    jit_compiled: usize,
    jit_error: Option<String>,
}

fn median(v: &[Duration]) -> Option<Duration> {
    if v.is_empty() {
        return None;
    }
    let mut v = v.to_vec();
    v.sort();
    Some(v[v.len() / 2])
}

/// One implementation's results at each thread count.
struct Row {
    label: String,
    /// `None` for a C reference.
    engine: Option<Engine>,
    role: Option<Role>,
    by_threads: Vec<Series>,
    check: String,
}

struct CaseResult {
    name: &'static str,
    title: String,
    /// Thread instructions of the reference engine.
    thread_insts: u64,
    rows: Vec<Row>,
}

/// Describes how `got` differs from `want` (4-byte elements), or `None` when equal.
fn diff(want: &[u8], got: &[u8], float: bool) -> Option<String> {
    if want == got {
        return None;
    }
    if want.len() != got.len() {
        return Some(format!("{} bytes, expected {}", got.len(), want.len()));
    }
    let w = want.chunks_exact(4);
    let g = got.chunks_exact(4);
    let mut count = 0usize;
    let mut first = None;
    for (i, (a, b)) in w.zip(g).enumerate() {
        if a != b {
            count += 1;
            first.get_or_insert((i, a.to_vec(), b.to_vec()));
        }
    }
    let (i, a, b) = first?;
    let a = u32::from_le_bytes(a.try_into().unwrap());
    let b = u32::from_le_bytes(b.try_into().unwrap());
    Some(if float {
        format!(
            "{count} elements differ; first at [{i}]: {:e} (0x{b:08x}), expected {:e} (0x{a:08x})",
            f32::from_bits(b),
            f32::from_bits(a)
        )
    } else {
        format!(
            "{count} elements differ; first at [{i}]: {} (0x{b:08x}), expected {} (0x{a:08x})",
            b as i32, a as i32
        )
    })
}

/// Largest relative difference of two f32 arrays (bytes).
fn max_rel_err(want: &[u8], got: &[u8]) -> f64 {
    want.chunks_exact(4)
        .zip(got.chunks_exact(4))
        .map(|(a, b)| {
            let a = f32::from_le_bytes(a.try_into().unwrap()) as f64;
            let b = f32::from_le_bytes(b.try_into().unwrap()) as f64;
            if a == b {
                0.0
            } else {
                (a - b).abs() / a.abs().max(1e-30)
            }
        })
        .fold(0.0, f64::max)
}

struct Opts {
    runs: usize,
    reference_runs: usize,
    only: Option<Vec<String>>,
    /// The fast engines to time (the reference always runs: it is the oracle).
    engines: Option<Vec<String>>,
    threads: Vec<usize>,
    e2e: bool,
    compile_times: bool,
    ptxvm: Option<PathBuf>,
}

fn parse_opts() -> Opts {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut o = Opts {
        runs: 5,
        reference_runs: 1,
        only: None,
        engines: None,
        threads: vec![1, 2],
        e2e: true,
        compile_times: true,
        ptxvm: None,
    };
    let mut i = 0;
    let value = |i: usize| -> &str {
        args.get(i + 1).map(String::as_str).unwrap_or_else(|| {
            eprintln!("{} needs a value", args[i]);
            std::process::exit(2)
        })
    };
    let number = |s: &str| -> usize {
        s.parse().unwrap_or_else(|_| {
            eprintln!("`{s}` is not a number");
            std::process::exit(2)
        })
    };
    while i < args.len() {
        match args[i].as_str() {
            "--runs" => {
                o.runs = number(value(i)).max(1);
                i += 1;
            }
            "--reference-runs" => {
                o.reference_runs = number(value(i)).max(1);
                i += 1;
            }
            "--only" => {
                o.only = Some(value(i).split(',').map(str::to_string).collect());
                i += 1;
            }
            "--engines" => {
                o.engines = Some(value(i).split(',').map(str::to_string).collect());
                i += 1;
            }
            "--threads" => {
                o.threads = value(i).split(',').map(number).collect();
                i += 1;
            }
            "--ptxvm" => {
                o.ptxvm = Some(PathBuf::from(value(i)));
                i += 1;
            }
            "--no-e2e" => o.e2e = false,
            "--no-compile-times" => o.compile_times = false,
            "-h" | "--help" => {
                println!(
                    "engines [--runs N] [--reference-runs N] [--only vecadd,poly,reduce,scan,sgemm] [--engines interp,jit] [--threads 1,2] [--no-e2e] [--no-compile-times] [--ptxvm PATH]"
                );
                std::process::exit(0);
            }
            a => {
                eprintln!("unknown argument `{a}` (see --help)");
                std::process::exit(2);
            }
        }
        i += 1;
    }
    o
}

/// A kernel's device state: the module, its buffers and the parameters.
struct Setup {
    dev: Device,
    module: ptxvm_vm::ModuleId,
    params: Vec<Vec<u8>>,
    outs: Vec<(u64, usize)>,
}

fn setup(c: &Case) -> Setup {
    let path = kernels_dir().join(c.ptx);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let dev = Device::new();
    let module = dev
        .load_ptx(&path.display().to_string(), &text)
        .unwrap_or_else(|e| panic!("{}: {e}", c.ptx));
    let mut params = Vec::new();
    let mut outs = Vec::new();
    for a in &c.args {
        match a {
            Arg::In(bytes) => {
                let addr = dev.malloc(bytes.len() as u64).expect("malloc");
                dev.write(addr, bytes).expect("write");
                params.push(addr.to_le_bytes().to_vec());
            }
            Arg::Out(len) => {
                let addr = dev.malloc(*len as u64).expect("malloc");
                outs.push((addr, *len));
                params.push(addr.to_le_bytes().to_vec());
            }
            Arg::Scalar(bytes) => params.push(bytes.clone()),
        }
    }
    Setup {
        dev,
        module,
        params,
        outs,
    }
}

/// Launches once with `engine` on `threads` host threads: wall time, CPU time, stats and
/// the output bytes.
fn launch(
    c: &Case,
    s: &Setup,
    engine: Engine,
    threads: usize,
) -> Result<(Duration, Duration, Stats, Vec<u8>), String> {
    for &(addr, len) in &s.outs {
        s.dev.memset(addr, 0xff, len as u64).expect("memset");
    }
    let refs: Vec<&[u8]> = s.params.iter().map(Vec::as_slice).collect();
    let cfg = LaunchConfig {
        grid: c.grid,
        block: c.block,
        threads,
        engine,
        max_steps: 1 << 40,
        ..LaunchConfig::default()
    };
    let mut st = Stats::default();
    let c0 = cpu_time();
    let t = Instant::now();
    let r = s.dev.launch(s.module, c.kernel, &cfg, &refs, &mut st);
    let wall = t.elapsed();
    let cpu = cpu_time().saturating_sub(c0);
    r.map_err(|e| format!("{} ({}): launch failed: {e}", c.name, engine.name()))?;
    let mut out = Vec::new();
    for &(addr, len) in &s.outs {
        out.extend(s.dev.read(addr, len as u64).expect("read"));
    }
    Ok((wall, cpu, st, out))
}

fn run_c(r: &CRef, buf: &mut [u32]) -> (Duration, Duration, Vec<u8>) {
    buf.fill(u32::MAX);
    let c0 = cpu_time();
    let t = Instant::now();
    (r.run)(buf);
    let wall = t.elapsed();
    let cpu = cpu_time().saturating_sub(c0);
    (wall, cpu, words_to_bytes(buf))
}

/// Lets OpenMP's spinning workers go to sleep and the previous run's threads exit before
/// the next timed run.
fn settle() {
    std::thread::sleep(Duration::from_millis(20));
}

fn bench_case(c: &Case, o: &Opts, engines: &[Engine], failures: &mut Vec<String>) -> CaseResult {
    let s = setup(c);
    let nt = o.threads.len();
    let mut rows: Vec<Row> = Vec::new();
    for e in engines {
        rows.push(Row {
            label: if *e == Engine::Reference && o.reference_runs < o.runs {
                format!(
                    "reference ({} run{}: the oracle)",
                    o.reference_runs,
                    if o.reference_runs == 1 { "" } else { "s" }
                )
            } else {
                e.name().to_string()
            },
            engine: Some(*e),
            role: None,
            by_threads: vec![Series::default(); nt],
            check: String::new(),
        });
    }
    for r in &c.cref {
        rows.push(Row {
            label: r.label.to_string(),
            engine: None,
            role: Some(r.role),
            by_threads: vec![Series::default(); nt],
            check: String::new(),
        });
    }
    let float = c.name != "scan";
    let mut oracle: Option<Vec<u8>> = None;
    let mut c_buf = vec![0u32; c.out_words];
    let mut mismatched = vec![false; rows.len()];
    for (ti, &threads) in o.threads.iter().enumerate() {
        unsafe { bench_set_threads(threads as c_int) };
        for round in 0..o.runs {
            // The reference first (the oracle), then the C references, then the engines.
            let mut order: Vec<usize> = Vec::new();
            if round < o.reference_runs {
                order
                    .extend((0..rows.len()).filter(|&i| rows[i].engine == Some(Engine::Reference)));
            }
            order.extend((0..rows.len()).filter(|&i| rows[i].engine.is_none()));
            order.extend((0..rows.len()).filter(|&i| {
                rows[i].engine.is_some() && rows[i].engine != Some(Engine::Reference)
            }));
            for i in order {
                settle();
                let (wall, cpu, out) = match rows[i].engine {
                    Some(e) => match launch(c, &s, e, threads) {
                        Ok((wall, cpu, st, out)) => {
                            let ser = &mut rows[i].by_threads[ti];
                            ser.thread_insts = st.thread_insts;
                            ser.warp_insts = st.warp_insts;
                            ser.tiers = st.tiers;
                            if !st.jit_compile.is_zero() {
                                ser.jit_compile = Some(st.jit_compile);
                            }
                            ser.jit_compiled = st.jit_compiled;
                            ser.jit_error = st.jit_error.clone();
                            if st.engine != Some(e) {
                                failures.push(format!(
                                    "{}: asked for engine {}, the launch reports {:?}",
                                    c.name,
                                    e.name(),
                                    st.engine
                                ));
                            }
                            (wall, cpu, out)
                        }
                        Err(m) => {
                            eprintln!("FAIL: {m}");
                            failures.push(m);
                            mismatched[i] = true;
                            continue;
                        }
                    },
                    None => {
                        let cr = &c.cref[i - engines.len()];
                        run_c(cr, &mut c_buf)
                    }
                };
                rows[i].by_threads[ti].wall.push(wall);
                rows[i].by_threads[ti].cpu.push(cpu);
                let Some(want) = &oracle else {
                    assert_eq!(rows[i].engine, Some(Engine::Reference));
                    oracle = Some(out);
                    rows[i].check = "oracle".into();
                    continue;
                };
                match (rows[i].engine, diff(want, &out, float)) {
                    (Some(e), Some(d)) => {
                        let m = format!(
                            "MISMATCH: {} engine {} at {threads} threads (run {}) differs from the reference engine: {d}",
                            c.name,
                            e.name(),
                            round + 1
                        );
                        eprintln!("{m}");
                        failures.push(m);
                        mismatched[i] = true;
                    }
                    (Some(_), None) => {}
                    (None, Some(d)) => {
                        let err = if float {
                            max_rel_err(want, &out)
                        } else {
                            f64::INFINITY
                        };
                        if c.exact_c && err > 1e-5 || !err.is_finite() {
                            let m = format!(
                                "C MISMATCH: {} {} at {threads} threads differs from the reference engine: {d}",
                                c.name, rows[i].label
                            );
                            eprintln!("{m}");
                            failures.push(m);
                            mismatched[i] = true;
                        } else if !mismatched[i] {
                            rows[i].check = format!("within {err:.1e} of the reference");
                        }
                    }
                    (None, None) => {}
                }
            }
        }
    }
    for (i, r) in rows.iter_mut().enumerate() {
        if mismatched[i] {
            r.check = "MISMATCH".into();
        } else if r.check.is_empty() {
            r.check = if r.engine.is_some() {
                "= reference, bit for bit".into()
            } else {
                "= reference, bit for bit (C)".into()
            };
        }
    }
    let thread_insts = rows
        .iter()
        .find(|r| r.engine == Some(Engine::Reference))
        .and_then(|r| r.by_threads.iter().map(|s| s.thread_insts).max())
        .unwrap_or(0);
    CaseResult {
        name: c.name,
        title: c.title.clone(),
        thread_insts,
        rows,
    }
}

// ---------------------------------------------------------------------------- compile times

/// First-launch cost of every kernel of the fixture corpus per engine: on a fresh device,
/// a 1x1 launch with zeroed parameters (it faults at its first access through a null
/// pointer or returns early) is timed twice; cold minus warm is what the engine does once
/// per kernel (a JIT's compilation). Returns (engine, kernels measured, skipped, the
/// estimates).
fn compile_times(engine: Engine) -> CompileTimes {
    let mut files = Vec::new();
    let mut stack = vec![repo_root().join("tests/fixtures")];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ptx") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut times = CompileTimes::default();
    let mut skipped = 0;
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            skipped += 1;
            continue;
        };
        let dev = Device::new();
        let Ok(m) = dev.load_ptx(&f.display().to_string(), &text) else {
            skipped += 1;
            continue;
        };
        let Ok(names) = dev.kernels(m) else {
            skipped += 1;
            continue;
        };
        for name in names {
            let Ok(k) = dev.kernel(m, &name) else {
                skipped += 1;
                continue;
            };
            let block = k.attrs(dev.props.model).reqntid.unwrap_or([1, 1, 1]);
            let cfg = LaunchConfig {
                grid: [1, 1, 1],
                block,
                threads: 1,
                engine,
                max_steps: 100_000,
                ..LaunchConfig::default()
            };
            if dev.check_launch(&k, &cfg).is_err() {
                skipped += 1;
                continue;
            }
            let once = || {
                let mut st = Stats::default();
                let t = Instant::now();
                let _ = dev.launch_kernel(&k, &cfg, Vec::new(), &mut st);
                (t.elapsed(), st)
            };
            let (cold, st) = once();
            let (warm, _) = once();
            times.first_launch.push(cold.saturating_sub(warm));
            if engine == Engine::Jit {
                match st.jit_error {
                    Some(e) => {
                        *times.jit_errors.entry(error_kind(&e)).or_insert(0) += 1;
                    }
                    None => {
                        times.jit_compile.push(st.jit_compile);
                        if times
                            .slowest
                            .as_ref()
                            .is_none_or(|(d, _)| st.jit_compile > *d)
                        {
                            let rel = f.strip_prefix(repo_root()).unwrap_or(f);
                            times.slowest =
                                Some((st.jit_compile, format!("{}:{name}", rel.display())));
                        }
                    }
                }
            }
        }
    }
    times.skipped = skipped;
    times
}

/// The kind of a JIT error: its text up to the first parenthesis or colon, and for a
/// Cranelift verifier error the first error's context opcode and message, without value
/// numbers (`shuffle: arg 0 has type i32x4, expected i8x16`).
fn error_kind(e: &str) -> String {
    let head: String = e
        .split(['(', ':'])
        .next()
        .unwrap_or("")
        .trim()
        .chars()
        .take(60)
        .collect();
    let Some(m) = e.split_once("message: \"").map(|(_, r)| r) else {
        return head;
    };
    let msg = m.split('"').next().unwrap_or("");
    // Drop "(v123) " value names.
    let mut clean = String::new();
    let mut rest = msg;
    while let Some(i) = rest.find("(v") {
        clean.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(") ") {
            rest = &after[digits + 2..];
        } else {
            clean.push_str("(v");
            rest = after;
        }
    }
    clean.push_str(rest);
    // The opcode of the first error's context (`v1 = shuffle v2, ...` → `shuffle`).
    let op = e
        .split_once("context: Some(\"")
        .and_then(|(_, r)| r.split('"').next())
        .map(|c| c.split_once(" = ").map_or(c, |(_, r)| r))
        .and_then(|c| c.split_whitespace().next())
        .unwrap_or("");
    format!("{head} (verifier: {op}: {clean})")
}

/// First-launch costs of the fixture kernels for one engine.
#[derive(Default)]
struct CompileTimes {
    /// Cold minus warm launch, per kernel launched.
    first_launch: Vec<Duration>,
    /// Kernels not launched (load or launch-configuration errors).
    skipped: usize,
    /// The JIT's own compile time (`Stats::jit_compile`) per kernel it compiled.
    jit_compile: Vec<Duration>,
    /// Kernels the JIT did not compile, by the kind of error.
    jit_errors: std::collections::BTreeMap<String, usize>,
    /// The kernel the JIT took longest to compile.
    slowest: Option<(Duration, String)>,
}

// ---------------------------------------------------------------------------- end to end

fn npy_f32(v: &[f32]) -> Vec<u8> {
    let dict = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({},), }}",
        v.len()
    );
    let mut header = dict.into_bytes();
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(b' ');
    }
    header.push(b'\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header);
    out.extend(bytes_f32(v));
    out
}

struct E2e {
    command: String,
    walls: Vec<Duration>,
    thread_insts: u64,
    engine: String,
    checked: Result<(), String>,
}

fn e2e(ptxvm: &Path, runs: usize) -> Result<E2e, String> {
    let dir = std::env::temp_dir().join(format!("ptxvm-bench-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let input = floats(POLY_N, 3);
    let inpath = dir.join("poly_in.npy");
    std::fs::write(&inpath, npy_f32(&input)).map_err(|e| e.to_string())?;
    let ptx = kernels_dir().join("poly.ptx");
    let args: Vec<String> = vec![
        "run".into(),
        ptx.display().to_string(),
        "--kernel".into(),
        "poly".into(),
        "--grid".into(),
        (POLY_N / 256).to_string(),
        "--block".into(),
        "256".into(),
        "--arg".into(),
        inpath.display().to_string(),
        "--arg".into(),
        format!("zeros:f32:{POLY_N}"),
        "--arg".into(),
        format!("s32:{POLY_N}"),
        "--arg".into(),
        format!("s32:{POLY_ITERS}"),
        "--engine".into(),
        "auto".into(),
        "--stats".into(),
    ];
    let command = format!("{} {}", ptxvm.display(), args.join(" "));
    let mut walls = Vec::new();
    let mut thread_insts = 0;
    let mut engine = String::new();
    for _ in 0..runs {
        settle();
        let t = Instant::now();
        let out = std::process::Command::new(ptxvm)
            .args(&args)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", ptxvm.display()))?;
        let wall = t.elapsed();
        let err = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            return Err(format!("`{command}` failed: {err}"));
        }
        walls.push(wall);
        for l in err.lines() {
            if let Some(rest) = l.strip_prefix("stats: ") {
                let w: Vec<&str> = rest.split_whitespace().collect();
                thread_insts = w.get(3).and_then(|x| x.parse().ok()).unwrap_or(0);
            }
            if let Some(rest) = l.strip_prefix("engine: ") {
                engine = rest.split_whitespace().next().unwrap_or("").to_string();
            }
        }
    }
    // One more run with --out, checked against the C poly (itself checked against the
    // reference engine by the in-process benchmark).
    let outdir = dir.join("out");
    let checked = std::process::Command::new(ptxvm)
        .args(&args)
        .arg("--out")
        .arg(&outdir)
        .output()
        .map_err(|e| e.to_string())
        .and_then(|o| {
            if o.status.success() {
                std::fs::read(outdir.join("arg1.npy")).map_err(|e| e.to_string())
            } else {
                Err(String::from_utf8_lossy(&o.stderr).into_owned())
            }
        })
        .and_then(|npy| {
            let mut want = vec![0u32; POLY_N];
            unsafe {
                bench_set_threads(2);
                poly_blocked_c(
                    input.as_ptr(),
                    want.as_mut_ptr().cast(),
                    POLY_N as c_int,
                    POLY_ITERS,
                )
            };
            let want = words_to_bytes(&want);
            let got = &npy[npy.len().saturating_sub(want.len())..];
            match diff(&want, got, true) {
                None => Ok(()),
                Some(d) => Err(format!("the output of `ptxvm run` differs: {d}")),
            }
        });
    let _ = std::fs::remove_dir_all(&dir);
    Ok(E2e {
        command,
        walls,
        thread_insts,
        engine,
        checked,
    })
}

// ---------------------------------------------------------------------------- report

fn ms(d: Duration) -> String {
    let v = d.as_secs_f64() * 1e3;
    if v >= 100.0 {
        format!("{v:.0} ms")
    } else if v >= 10.0 {
        format!("{v:.1} ms")
    } else {
        format!("{v:.2} ms")
    }
}

fn gips(insts: u64, d: Duration) -> f64 {
    insts as f64 / d.as_secs_f64() / 1e9
}

struct Target {
    what: String,
    measured: String,
    pass: Option<bool>,
}

fn main() {
    let o = parse_opts();
    let start_load = loadavg();
    let mut report = String::new();
    let _ = writeln!(report, "# ptxvm engines benchmark\n");
    let _ = writeln!(report, "- CPU: {}", cpu_description());
    let _ = writeln!(report, "- C compiler: {C_COMPILER}");
    let _ = writeln!(report, "- C flags: `{C_FLAGS}`");
    let _ = writeln!(report, "- load average at start: {start_load}");
    let mut engines = Vec::new();
    let mut unavailable = Vec::new();
    for e in [Engine::Reference, Engine::Interp, Engine::Jit] {
        if e != Engine::Reference
            && o.engines
                .as_ref()
                .is_some_and(|only| !only.iter().any(|n| n == e.name()))
        {
            continue;
        }
        match e.resolve() {
            Ok(_) => engines.push(e),
            Err(why) => unavailable.push((e, why)),
        }
    }
    let _ = writeln!(
        report,
        "- engines: {} (auto resolves to {})",
        engines
            .iter()
            .map(|e| e.name())
            .collect::<Vec<_>>()
            .join(", "),
        Engine::Auto.resolve().map_or("nothing", |e| e.name())
    );
    for (e, why) in &unavailable {
        let _ = writeln!(
            report,
            "- {}: not available in this build ({why})",
            e.name()
        );
    }
    let _ = writeln!(
        report,
        "- runs: median of {} per implementation and thread count (reference engine: {}); thread counts {:?}",
        o.runs, o.reference_runs, o.threads
    );
    print!("{report}");

    let mut failures = Vec::new();
    let mut results = Vec::new();
    for c in cases() {
        if o.only
            .as_ref()
            .is_some_and(|only| !only.iter().any(|n| n == c.name))
        {
            continue;
        }
        eprintln!("running {} ...", c.title);
        results.push(bench_case(&c, &o, &engines, &mut failures));
    }

    // The table.
    let nt = o.threads.len();
    let ts = |f: &dyn Fn(usize) -> String| (0..nt).map(f).collect::<Vec<_>>().join(" / ");
    let tl = o
        .threads
        .iter()
        .map(|t| format!("{t}T"))
        .collect::<Vec<_>>()
        .join(" / ");
    let mut table = String::new();
    let _ = writeln!(
        table,
        "\n| kernel | implementation | median wall {tl} | speedup {} | CPU per run {tl} | G thread-inst/s {tl} | ÷ C (same algorithm) {tl} | ÷ best simple C {tl} | warp insts in native code | output |",
        if nt >= 2 {
            format!("{}T→{}T", o.threads[0], o.threads[nt - 1])
        } else {
            "—".into()
        }
    );
    let _ = writeln!(table, "|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for r in &results {
        let cref = |role: Role, ti: usize| {
            r.rows
                .iter()
                .find(|x| x.role == Some(role))
                .and_then(|x| median(&x.by_threads[ti].wall))
        };
        for (ri, row) in r.rows.iter().enumerate() {
            let med = |ti: usize| median(&row.by_threads[ti].wall);
            let cell =
                |f: &dyn Fn(usize) -> Option<String>| ts(&|ti| f(ti).unwrap_or_else(|| "—".into()));
            let speed = if nt >= 2 {
                match (med(0), med(nt - 1)) {
                    (Some(a), Some(b)) => format!("{:.2}x", a.as_secs_f64() / b.as_secs_f64()),
                    _ => "—".into(),
                }
            } else {
                "—".into()
            };
            let insts = |ti: usize| row.by_threads[ti].thread_insts;
            let ratio = |role: Role| {
                cell(&|ti| {
                    row.engine?;
                    Some(format!(
                        "{:.1}x",
                        med(ti)?.as_secs_f64() / cref(role, ti)?.as_secs_f64()
                    ))
                })
            };
            let _ = writeln!(
                table,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                if ri == 0 {
                    format!("{} ({} thread insts)", r.title, r.thread_insts)
                } else {
                    String::new()
                },
                row.label,
                cell(&|ti| med(ti).map(ms)),
                speed,
                cell(&|ti| median(&row.by_threads[ti].cpu).map(ms)),
                cell(&|ti| {
                    row.engine?;
                    Some(format!("{:.2}", gips(insts(ti), med(ti)?)))
                }),
                ratio(Role::Same),
                if r.rows.iter().any(|x| x.role == Some(Role::Best)) {
                    ratio(Role::Best)
                } else {
                    "—".into()
                },
                match row.engine {
                    Some(_) => {
                        let s = row.by_threads.last().unwrap();
                        if s.warp_insts == 0 {
                            "—".into()
                        } else if s.jit_error.is_some() {
                            "0% (not compiled)".into()
                        } else {
                            format!("{:.1}%", s.tiers[3] as f64 * 100.0 / s.warp_insts as f64)
                        }
                    }
                    None => "—".into(),
                },
                row.check
            );
        }
    }
    print!("{table}");

    // Thread-instruction counts and tiers per engine (they may differ between engines).
    println!();
    for r in &results {
        for row in r.rows.iter().filter(|x| x.engine.is_some()) {
            let s = row.by_threads.last().unwrap();
            let pct = |n: u64| {
                if s.warp_insts == 0 {
                    0.0
                } else {
                    n as f64 * 100.0 / s.warp_insts as f64
                }
            };
            let mut line = format!(
                "- {} / {}: {} thread instructions, {} warp instructions: in lane loops {} ({:.1}%), per lane {} ({:.1}%), reference steps {} ({:.1}%), native code {} ({:.1}%)",
                r.name,
                row.label,
                s.thread_insts,
                s.warp_insts,
                s.tiers[0],
                pct(s.tiers[0]),
                s.tiers[1],
                pct(s.tiers[1]),
                s.tiers[2],
                pct(s.tiers[2]),
                s.tiers[3],
                pct(s.tiers[3]),
            );
            if row.engine == Some(Engine::Jit) {
                let compile = row.by_threads.iter().find_map(|s| s.jit_compile);
                match &s.jit_error {
                    Some(e) => {
                        let e: String = e.chars().take(300).collect();
                        let _ = write!(
                            line,
                            "; JIT did NOT compile the kernel (the warp engine ran it): {e}"
                        );
                    }
                    None => {
                        let _ = write!(
                            line,
                            "; JIT compiled {} of the kernel's instructions in {}",
                            s.jit_compiled,
                            compile.map_or("—".into(), ms)
                        );
                    }
                }
            }
            println!("{line}");
        }
    }

    // First-launch cost (cold minus warm launch) per fixture kernel and engine, and the
    // JIT's own compile time (Stats::jit_compile).
    let mut compile: Vec<(Engine, CompileTimes)> = Vec::new();
    if o.compile_times {
        for &e in engines.iter().filter(|e| **e != Engine::Reference) {
            eprintln!(
                "first-launch cost of the fixture kernels ({}) ...",
                e.name()
            );
            compile.push((e, compile_times(e)));
        }
        println!();
        let summary = |v: &[Duration]| {
            let mut s = v.to_vec();
            s.sort();
            format!(
                "median {}, max {}",
                median(&s).map_or("—".into(), ms),
                s.last().map_or("—".into(), |d| ms(*d))
            )
        };
        for (e, t) in &compile {
            println!(
                "- first-launch cost minus warm launch, {}: {} fixture kernels ({} skipped: load or launch-configuration errors): {}",
                e.name(),
                t.first_launch.len(),
                t.skipped,
                summary(&t.first_launch)
            );
            if *e == Engine::Jit {
                let failed: usize = t.jit_errors.values().sum();
                println!(
                    "- JIT compile time (Stats::jit_compile) of the {} fixture kernels it compiled: {}{}; {} not compiled (the warp engine ran them){}",
                    t.jit_compile.len(),
                    summary(&t.jit_compile),
                    t.slowest
                        .as_ref()
                        .map_or(String::new(), |(_, k)| format!(" (slowest: {k})")),
                    failed,
                    if failed == 0 {
                        String::new()
                    } else {
                        format!(
                            ": {}",
                            t.jit_errors
                                .iter()
                                .map(|(k, n)| format!("{n} × {k}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    }
                );
            }
        }
    }

    // End to end.
    let mut e2e_result = None;
    if o.e2e {
        let exe = o.ptxvm.clone().unwrap_or_else(|| {
            std::env::current_exe()
                .ok()
                .and_then(|p| p.parent().map(|d| d.join("ptxvm")))
                .unwrap_or_else(|| PathBuf::from("ptxvm"))
        });
        eprintln!("end to end: {} ...", exe.display());
        match e2e(&exe, 5) {
            Ok(r) => {
                let med = median(&r.walls).unwrap();
                println!(
                    "\n- end to end (`{}`), median of {} process runs: {} wall, {} thread instructions, {:.2} G thread-inst/s, engine {}; output {}",
                    r.command,
                    r.walls.len(),
                    ms(med),
                    r.thread_insts,
                    gips(r.thread_insts, med),
                    r.engine,
                    match &r.checked {
                        Ok(()) => "= C poly (= reference), bit for bit".to_string(),
                        Err(e) => format!("MISMATCH: {e}"),
                    }
                );
                if let Err(e) = &r.checked {
                    failures.push(format!("end to end: {e}"));
                }
                e2e_result = Some(r);
            }
            Err(e) => println!("\n- end to end: not measured: {e}"),
        }
    }

    // Targets.
    let find = |name: &str| results.iter().find(|r| r.name == name);
    let ti_of = |t: usize| o.threads.iter().position(|&x| x == t);
    let t1 = ti_of(1);
    let t2 = ti_of(2);
    let wall = |name: &str, pick: &dyn Fn(&Row) -> bool, ti: Option<usize>| {
        let r = find(name)?;
        let row = r.rows.iter().find(|x| pick(x))?;
        Some((
            median(&row.by_threads[ti?].wall)?,
            row.by_threads[ti?].thread_insts,
        ))
    };
    let mut targets: Vec<Target> = Vec::new();
    for (e, lim) in [
        (Engine::Interp, [4.0, 15.0, 10.0, 5.0, 1.0]),
        (Engine::Jit, [30.0, 3.0, 3.0, 1.5, 5.0]),
    ] {
        let en = e.name();
        if !engines.contains(&e) {
            targets.push(Target {
                what: format!("{en}: every target"),
                measured: "not available in this build".into(),
                pass: None,
            });
            continue;
        }
        let is_e = |r: &Row| r.engine == Some(e);
        let rate = |name: &str, lim: f64, what: String, targets: &mut Vec<Target>| {
            let m = wall(name, &is_e, t2).map(|(d, n)| gips(n, d));
            targets.push(Target {
                what,
                measured: m.map_or("not measured".into(), |g| format!("{g:.2} G/s")),
                pass: m.map(|g| g >= lim),
            });
        };
        let ratio = |name: &str, role: Role, lim: f64, what: String, targets: &mut Vec<Target>| {
            let is_c = |r: &Row| r.role == Some(role);
            let m = (|| {
                let (a, _) = wall(name, &is_e, t2)?;
                let (b, _) = wall(name, &is_c, t2)?;
                Some(a.as_secs_f64() / b.as_secs_f64())
            })();
            targets.push(Target {
                what,
                measured: m.map_or("not measured".into(), |x| format!("{x:.1}x")),
                pass: m.map(|x| x <= lim),
            });
        };
        rate(
            "poly",
            lim[0],
            format!(
                "{en}: poly 2^18 x 256, 2 threads, thread-inst/s ≥ {} G/s",
                lim[0]
            ),
            &mut targets,
        );
        ratio(
            "poly",
            Role::Best,
            lim[1],
            format!("{en}: poly time ÷ blocked C (2 threads) ≤ {}x", lim[1]),
            &mut targets,
        );
        ratio(
            "sgemm",
            Role::Same,
            lim[2],
            format!(
                "{en}: tiled SGEMM 256³ ÷ the same tiling in C (2 threads) ≤ {}x",
                lim[2]
            ),
            &mut targets,
        );
        ratio(
            "vecadd",
            Role::Same,
            lim[3],
            format!("{en}: vector add 2^22 f32 ÷ C (2 threads) ≤ {}x", lim[3]),
            &mut targets,
        );
        for k in ["reduce", "scan"] {
            rate(
                k,
                lim[4],
                format!("{en}: {k}, 2 threads, thread-inst/s ≥ {} G/s", lim[4]),
                &mut targets,
            );
        }
        for r in &results {
            let w1 = wall(r.name, &is_e, t1);
            let w2 = wall(r.name, &is_e, t2);
            let row = r.rows.iter().find(|x| is_e(x));
            let sp = w1
                .zip(w2)
                .map(|(a, b)| a.0.as_secs_f64() / b.0.as_secs_f64());
            targets.push(Target {
                what: format!("{en}: {}, 1 → 2 threads wall speedup ≥ 1.8x", r.name),
                measured: sp.map_or("not measured".into(), |x| format!("{x:.2}x")),
                pass: sp.map(|x| x >= 1.8),
            });
            let cpu = row.and_then(|row| {
                let c1 = median(&row.by_threads[t1?].cpu)?;
                let c2 = median(&row.by_threads[t2?].cpu)?;
                Some(c2.as_secs_f64() / c1.as_secs_f64())
            });
            targets.push(Target {
                what: format!("{en}: {}, CPU time at 2T ≤ 1.05 × 1T", r.name),
                measured: cpu.map_or("not measured".into(), |x| format!("{x:.3}x")),
                pass: cpu.map(|x| x <= 1.05),
            });
        }
        if e == Engine::Jit {
            // The JIT's own compile time of the kernels it compiled.
            let c = compile.iter().find(|c| c.0 == e);
            let (med, max) = c
                .map(|c| {
                    let mut s = c.1.jit_compile.clone();
                    s.sort();
                    (median(&s), s.last().copied())
                })
                .unwrap_or((None, None));
            targets.push(Target {
                what: "jit: compile time per fixture kernel, median ≤ 10 ms".into(),
                measured: med.map_or("not measured".into(), ms),
                pass: med.map(|d| d <= Duration::from_millis(10)),
            });
            targets.push(Target {
                what: "jit: compile time per fixture kernel, max ≤ 100 ms".into(),
                measured: max.map_or("not measured".into(), ms),
                pass: max.map(|d| d <= Duration::from_millis(100)),
            });
        }
    }
    let e2e_rate = e2e_result
        .as_ref()
        .and_then(|r| median(&r.walls).map(|d| gips(r.thread_insts, d)));
    targets.push(Target {
        what: format!(
            "end to end: `ptxvm run` poly (2^18 x 256), default engine ({}), ≥ 10 G thread-inst/s",
            e2e_result.as_ref().map_or("auto", |r| r.engine.as_str())
        ),
        measured: e2e_rate.map_or("not measured".into(), |g| format!("{g:.2} G/s")),
        pass: e2e_rate.map(|g| g >= 10.0),
    });
    println!("\n## Targets\n");
    for t in &targets {
        println!(
            "- {}: {} — {}",
            t.what,
            t.measured,
            match t.pass {
                Some(true) => "met",
                Some(false) => "MISSED",
                None => "n/a",
            }
        );
    }
    println!("\n- load average at end: {}", loadavg());
    if !failures.is_empty() {
        eprintln!("\n{} FAILURES:", failures.len());
        for f in &failures {
            eprintln!("  {f}");
        }
        std::process::exit(1);
    }
}
