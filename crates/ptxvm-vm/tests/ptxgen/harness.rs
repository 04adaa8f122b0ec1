//! Running a generated case on every engine, comparing the results with the reference's,
//! minimizing a mismatch and writing it as a `tests/run` file.

use super::{ATM_BYTES, Case, SCR_BYTES, SCR_PAD};
use ptxvm_vm::{Device, Engine, LaunchConfig, ModuleId, Stats, VmError};
use std::fmt::Write as _;

/// Everything a launch produced that must be the same on every engine (with one host
/// thread).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The launch's error (`Debug` of the `VmError`: fault kind, message and site).
    pub error: Option<String>,
    pub out: Vec<u8>,
    pub scr: Vec<u8>,
    pub atm: Vec<u8>,
    pub warp_insts: u64,
    pub thread_insts: u64,
    pub printf: Vec<u8>,
    pub printf_dropped: u64,
    pub printf_dropped_calls: u64,
    /// Why the JIT did not compile the kernel, when that is a JIT bug (anything but "no
    /// instruction compiles", e.g. a Cranelift verifier error): the JIT then falls back to
    /// the warp engine with the same results, so only this field shows it.
    pub jit_failure: Option<String>,
}

/// The engines compared with the reference: every one that is available in this build.
pub fn engines() -> Vec<Engine> {
    [Engine::Interp, Engine::Jit]
        .into_iter()
        .filter(|e| e.resolve().is_ok())
        .collect()
}

/// A device with the case's module loaded and its buffers allocated.
pub struct Loaded {
    dev: Device,
    module: ModuleId,
    bufs: [u64; 4],
}

/// Loads the case; `Err` holds the checker's diagnostics (a generator bug).
pub fn load(case: &Case) -> Result<Loaded, String> {
    let dev = Device::new();
    let text = case.text();
    let module = match dev.load_ptx("gen.ptx", &text) {
        Ok(m) => m,
        Err(e) => return Err(format!("{e}")),
    };
    let sizes = [
        case.out_bytes().max(4),
        case.input.len(),
        SCR_BYTES + SCR_PAD,
        ATM_BYTES,
    ];
    let mut bufs = [0u64; 4];
    for (b, n) in bufs.iter_mut().zip(sizes) {
        *b = dev.malloc(n as u64).map_err(|e| format!("malloc: {e}"))?;
    }
    Ok(Loaded { dev, module, bufs })
}

/// Runs the case on `engine` (one host thread) with fresh buffer contents.
pub fn run_on(l: &Loaded, case: &Case, engine: Engine) -> Outcome {
    let dev = &l.dev;
    let [out, inp, scr, atm] = l.bufs;
    dev.write(out, &vec![0u8; case.out_bytes().max(4)]).unwrap();
    dev.write(inp, &case.input).unwrap();
    dev.write(scr, &case.scratch).unwrap();
    dev.write(atm, &case.atom).unwrap();
    let cfg = LaunchConfig {
        grid: case.grid,
        block: case.block,
        max_steps: case.max_steps,
        threads: 1,
        engine,
        ..LaunchConfig::default()
    };
    let mut stats = Stats::default();
    let r = dev.launch(
        l.module,
        "k",
        &cfg,
        &[
            &out.to_le_bytes(),
            &inp.to_le_bytes(),
            &scr.to_le_bytes(),
            &atm.to_le_bytes(),
            &case.uparam.to_le_bytes(),
        ],
        &mut stats,
    );
    let error = r.err().map(|e: VmError| match e {
        VmError::Fault(f) => format!("{f:?}"),
        e => format!("{e:?}"),
    });
    Outcome {
        error,
        out: dev.read(out, case.out_bytes() as u64).unwrap(),
        scr: dev.read(scr, (SCR_BYTES + SCR_PAD) as u64).unwrap(),
        atm: dev.read(atm, ATM_BYTES as u64).unwrap(),
        warp_insts: stats.warp_insts,
        thread_insts: stats.thread_insts,
        printf: stats.printf,
        printf_dropped: stats.printf_dropped,
        printf_dropped_calls: stats.printf_dropped_calls,
        jit_failure: stats
            .jit_error
            .filter(|e| {
                e != ptxvm_vm::exec::NOTHING_COMPILES && !e.starts_with(ptxvm_vm::exec::TOO_LARGE)
            })
            .map(|e| e.chars().take(2000).collect()),
    }
}

/// How the launch's warp instructions ran on `engine` (`Stats::tiers`: the warp engine's
/// lane loops, per-lane reference semantics inside it, reference steps, native code) and why
/// the JIT did not compile the kernel, if it did not.
pub fn tiers(case: &Case, engine: Engine) -> Option<([u64; 4], Option<String>)> {
    let l = load(case).ok()?;
    let [out, inp, scr, atm] = l.bufs;
    l.dev.write(inp, &case.input).ok()?;
    l.dev.write(scr, &case.scratch).ok()?;
    l.dev.write(atm, &case.atom).ok()?;
    let cfg = LaunchConfig {
        grid: case.grid,
        block: case.block,
        max_steps: case.max_steps,
        threads: 1,
        engine,
        ..LaunchConfig::default()
    };
    let mut stats = Stats::default();
    let _ = l.dev.launch(
        l.module,
        "k",
        &cfg,
        &[
            &out.to_le_bytes(),
            &inp.to_le_bytes(),
            &scr.to_le_bytes(),
            &atm.to_le_bytes(),
            &case.uparam.to_le_bytes(),
        ],
        &mut stats,
    );
    Some((stats.tiers, stats.jit_error))
}

/// The result of comparing the engines on one case.
#[derive(Debug)]
pub enum Verdict {
    /// Every engine produced the reference's outcome (which is returned).
    Same(Box<Outcome>),
    /// An engine differs: the report.
    Differ(String),
    /// The kernel does not check (a generator bug): the diagnostics.
    Invalid(String),
}

pub fn compare(case: &Case) -> Verdict {
    let l = match load(case) {
        Ok(l) => l,
        Err(e) => return Verdict::Invalid(e),
    };
    let reference = run_on(&l, case, Engine::Reference);
    for engine in engines() {
        let got = run_on(&l, case, engine);
        if got != reference {
            return Verdict::Differ(report(case, engine, &reference, &got));
        }
    }
    Verdict::Same(Box::new(reference))
}

fn words(b: &[u8], off: usize) -> u32 {
    let mut w = [0u8; 4];
    for (i, x) in w.iter_mut().enumerate() {
        *x = b.get(off + i).copied().unwrap_or(0);
    }
    u32::from_le_bytes(w)
}

/// A readable account of where `got` differs from `reference`.
pub fn report(case: &Case, engine: Engine, reference: &Outcome, got: &Outcome) -> String {
    let mut m = format!(
        "engine {} differs from the reference (grid {:?}, block {:?}, max_steps {}):",
        engine.name(),
        case.grid,
        case.block,
        case.max_steps
    );
    if let Some(e) = &reference.error {
        let _ = write!(m, "\n  (the reference faults: {e})");
    }
    if reference.error != got.error {
        let _ = write!(
            m,
            "\n  error:\n    reference: {:?}\n    {}: {:?}",
            reference.error,
            engine.name(),
            got.error
        );
    }
    for (what, a, b) in [
        ("warp_insts", reference.warp_insts, got.warp_insts),
        ("thread_insts", reference.thread_insts, got.thread_insts),
        (
            "printf_dropped",
            reference.printf_dropped,
            got.printf_dropped,
        ),
    ] {
        if a != b {
            let _ = write!(m, "\n  {what}: reference {a}, {} {b}", engine.name());
        }
    }
    if let Some(e) = &got.jit_failure {
        let _ = write!(m, "\n  the JIT failed to compile the kernel: {e}");
    }
    if reference.printf != got.printf {
        let _ = write!(
            m,
            "\n  printf:\n    reference: {:?}\n    {}: {:?}",
            String::from_utf8_lossy(&reference.printf),
            engine.name(),
            String::from_utf8_lossy(&got.printf)
        );
    }
    for (what, a, b) in [
        ("out", &reference.out, &got.out),
        ("scr", &reference.scr, &got.scr),
        ("atm", &reference.atm, &got.atm),
    ] {
        let diffs: Vec<usize> = (0..a.len().max(b.len()))
            .step_by(4)
            .filter(|&o| words(a, o) != words(b, o))
            .collect();
        if diffs.is_empty() {
            continue;
        }
        let _ = write!(m, "\n  {what}: {} words differ", diffs.len());
        for &o in diffs.iter().take(8) {
            let at = if what == "out" {
                format!(" ({})", case.describe_out(o))
            } else {
                String::new()
            };
            let _ = write!(
                m,
                "\n    byte {o}{at}: reference {:#010x}, {} {:#010x}",
                words(a, o),
                engine.name(),
                words(b, o)
            );
        }
    }
    m
}

/// Whether the case still shows an engine mismatch.
pub fn differs(case: &Case) -> bool {
    matches!(compare(case), Verdict::Differ(_))
}

/// What kind of mismatch a case shows: which parts of the outcome differ, and how the
/// reference's launch ended (`None` when the engines agree or the case does not load).
pub fn signature(case: &Case) -> Option<String> {
    let l = load(case).ok()?;
    let r = run_on(&l, case, Engine::Reference);
    for engine in engines() {
        let g = run_on(&l, case, engine);
        if g != r {
            let kind = |o: &Outcome| {
                o.error
                    .as_deref()
                    .map(|e| e.split(',').next().unwrap_or(e).to_string())
            };
            return Some(format!(
                "{} ref={:?} got={:?} err={} out={} scr={} atm={} warp={} thread={} printf={} jit={}",
                engine.name(),
                kind(&r),
                kind(&g),
                r.error != g.error,
                r.out != g.out,
                r.scr != g.scr,
                r.atm != g.atm,
                r.warp_insts != g.warp_insts,
                r.thread_insts != g.thread_insts,
                r.printf != g.printf,
                g.jit_failure.is_some()
            ));
        }
    }
    None
}

/// A smaller case that still satisfies `keep`: one CTA, fewer threads, fewer lines (delta
/// debugging over the kernel's lines), zeroed inputs.
pub fn minimize(case: &Case, keep: &dyn Fn(&Case) -> bool) -> Case {
    let mut best = case.clone();
    let attempt = |c: Case, best: &mut Case| -> bool {
        if keep(&c) {
            *best = c;
            true
        } else {
            false
        }
    };
    // The launch shape.
    if best.grid != [1, 1, 1] {
        let c = Case {
            grid: [1, 1, 1],
            ..best.clone()
        };
        attempt(c, &mut best);
    }
    for bx in [1u32, 2, 8, 32, 64] {
        let n = best.threads_per_cta() as u32;
        if bx < n {
            let c = Case {
                block: [bx, 1, 1],
                ..best.clone()
            };
            if attempt(c, &mut best) {
                break;
            }
        }
    }
    // The lines, in chunks from large to single.
    loop {
        let before = best.lines.len();
        let mut chunk = (best.lines.len() / 2).max(1);
        while chunk >= 1 {
            let mut i = 0;
            while i < best.lines.len() {
                let mut c = best.clone();
                let end = (i + chunk).min(c.lines.len());
                c.lines.drain(i..end);
                if !attempt(c, &mut best) {
                    i += chunk;
                }
            }
            if chunk == 1 {
                break;
            }
            chunk /= 2;
        }
        if best.lines.len() == before {
            break;
        }
    }
    // The inputs: zero them wholly, else by halves.
    for which in 0..3 {
        let get = |c: &Case| -> usize {
            match which {
                0 => c.input.len(),
                1 => c.scratch.len(),
                _ => c.atom.len(),
            }
        };
        let zero = |c: &mut Case, lo: usize, hi: usize| {
            let b = match which {
                0 => &mut c.input,
                1 => &mut c.scratch,
                _ => &mut c.atom,
            };
            b[lo..hi].iter_mut().for_each(|x| *x = 0);
        };
        let n = get(&best);
        let mut chunk = n;
        while chunk >= 4 {
            let mut i = 0;
            while i < n {
                let mut c = best.clone();
                zero(&mut c, i, (i + chunk).min(n));
                let changed = match which {
                    0 => c.input != best.input,
                    1 => c.scratch != best.scratch,
                    _ => c.atom != best.atom,
                };
                if changed {
                    attempt(c, &mut best);
                }
                i += chunk;
            }
            chunk /= 4;
        }
    }
    if best.uparam != 0 {
        let c = Case {
            uparam: 0,
            ..best.clone()
        };
        attempt(c, &mut best);
    }
    best
}

/// `u32` words of a byte buffer.
fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| words(c, 0)).collect()
}

/// `expect argI...` lines for a buffer: zero runs as ranges, the rest as lists.
fn expect_lines(i: usize, b: &[u8]) -> String {
    let w = u32s(b);
    let mut s = String::new();
    let mut k = 0;
    while k < w.len() {
        let zero = w[k] == 0;
        let mut e = k;
        // A run of zeros (at least 4, or up to the end), or of anything else.
        while e < w.len() && (w[e] == 0) == zero {
            e += 1;
        }
        if !zero {
            // Take short zero gaps into the list.
            loop {
                let mut z = e;
                while z < w.len() && w[z] == 0 {
                    z += 1;
                }
                if z < w.len() && z - e < 4 && z > e {
                    e = z;
                    while e < w.len() && w[e] != 0 {
                        e += 1;
                    }
                } else {
                    break;
                }
            }
            for c in (k..e).collect::<Vec<_>>().chunks(16) {
                let (a, z) = (c[0], c[c.len() - 1] + 1);
                let vals: Vec<String> = w[a..z].iter().map(|v| format!("{v:#x}")).collect();
                let _ = writeln!(s, "// expect arg{i}[{a}..{z}]: [{}]", vals.join(", "));
            }
        } else {
            let _ = writeln!(s, "// expect arg{i}[{k}..{e}]: 0");
        }
        k = e;
    }
    s
}

fn arg_buffer(b: &[u8]) -> String {
    let w = u32s(b);
    if w.iter().all(|&x| x == 0) {
        format!("zeros:u32:{}", w.len())
    } else {
        let vals: Vec<String> = w.iter().map(|v| format!("{v:#x}")).collect();
        format!("u32[{}] = [{}]", w.len(), vals.join(", "))
    }
}

/// The case as a `tests/run` file: the launch, the inputs, and the reference's outputs as
/// the expectations (`note` goes into the header comment, `xfail` into an `xfail:` line).
pub fn to_runtest(case: &Case, note: &str, xfail: Option<&str>) -> String {
    let l = load(case).expect("the case loads");
    let r = run_on(&l, case, Engine::Reference);
    let mut s = String::new();
    for line in note.lines() {
        let _ = writeln!(s, "// {line}");
    }
    let _ = writeln!(
        s,
        "// (Generated by the engines differential fuzzer and minimized; the expectations are the\n\
         // reference engine's results. Arguments: out, inp, scr, atm, u.)"
    );
    let steps = if case.max_steps != 1_000_000 {
        format!(" --max-steps {}", case.max_steps)
    } else {
        String::new()
    };
    let dims = |d: [u32; 3]| {
        if d[1] == 1 && d[2] == 1 {
            format!("{}", d[0])
        } else {
            format!("{},{},{}", d[0], d[1], d[2])
        }
    };
    let _ = writeln!(
        s,
        "// run: --grid {} --block {}{steps}",
        dims(case.grid),
        dims(case.block)
    );
    let _ = writeln!(s, "// arg: zeros:u32:{}", case.out_bytes().max(4) / 4);
    let _ = writeln!(s, "// arg: {}", arg_buffer(&case.input));
    let _ = writeln!(s, "// arg: {}", arg_buffer(&case.scratch));
    let _ = writeln!(s, "// arg: {}", arg_buffer(&case.atom));
    let _ = writeln!(s, "// arg: u32:{}", case.uparam);
    if let Some(x) = xfail {
        let _ = writeln!(s, "// xfail: {x}");
    }
    match &r.error {
        Some(e) => {
            // The fault message: its first line is enough to identify it.
            let _ = writeln!(s, "// expect error: {}", error_fragment(e));
        }
        None => {
            s.push_str(&expect_lines(0, &r.out));
            s.push_str(&expect_lines(2, &r.scr));
            s.push_str(&expect_lines(3, &r.atm));
        }
    }
    s.push_str(&case.text());
    s
}

/// The message of a `Debug`-formatted fault, for an `expect error:` line.
fn error_fragment(e: &str) -> String {
    match e.split("message: \"").nth(1) {
        Some(rest) => rest.split('"').next().unwrap_or(rest).to_string(),
        None => e.chars().take(60).collect(),
    }
}
