//! Differential testing of the execution engines: random well-formed PTX kernels
//! (`ptxgen/`: integer, floating-point and half arithmetic, conversions, predicates, divergent
//! branches and loops, global/shared/generic memory, barriers, warp collectives, atomics)
//! run on the reference interpreter and on every other engine whose `resolve()` works in
//! this build (`Engine::Interp`, `Engine::Jit`), with one host thread; device memory
//! (including every register, stored at the end of the kernel), the fault, instruction
//! counts and printf output must be identical, and the JIT must compile every kernel (a
//! compile failure other than "no instruction compiles" is a JIT bug). No mismatch is
//! tolerated. See docs/differential-testing.md.
//!
//! - `cargo test -p ptxvm-vm --test engines_differential` runs a fixed set of seeds
//!   (`DIFFTEST_SEEDS=A..B` or `DIFFTEST_SEEDS=N` for others).
//! - `DIFFTEST_CASE=seed:N` or `DIFFTEST_CASE=path/to/fuzz-artifact` with
//!   `cargo test -p ptxvm-vm --test engines_differential -- --ignored minimize --nocapture`
//!   minimizes a mismatch and prints it as a `tests/run` file (`DIFFTEST_OUT=file` writes
//!   it there).
//! - The cargo-fuzz target `engines` (`fuzz/fuzz_targets/engines.rs`) runs the same
//!   generator on fuzzer bytes.

mod ptxgen;

use ptxgen::harness::{Verdict, compare};
use std::time::Instant;

/// Seeds run by default: fewer in debug builds.
fn seeds() -> std::ops::Range<u64> {
    if let Ok(s) = std::env::var("DIFFTEST_SEEDS") {
        if let Some((a, b)) = s.split_once("..") {
            return a.parse().unwrap()..b.parse().unwrap();
        }
        return 0..s.parse().unwrap();
    }
    if cfg!(debug_assertions) {
        0..200
    } else {
        0..400
    }
}

#[test]
fn engines_agree_on_generated_kernels() {
    let t0 = Instant::now();
    let mut failures = Vec::new();
    let mut faults = 0;
    let seeds = seeds();
    let n = seeds.end - seeds.start;
    for seed in seeds {
        let case = ptxgen::from_seed(seed);
        match compare(&case) {
            Verdict::Same(o) => faults += o.error.is_some() as u32,
            Verdict::Differ(r) => failures.push(format!("seed {seed}: {r}")),
            Verdict::Invalid(e) => failures.push(format!(
                "seed {seed}: the generated kernel does not check (a generator bug):\n{e}\n{}",
                case.text()
            )),
        }
    }
    eprintln!(
        "{n} generated kernels ({faults} ending in a fault), {} mismatches, {:.1} s",
        failures.len(),
        t0.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} of {n} generated kernels fail (minimize one with DIFFTEST_CASE=seed:N -- --ignored minimize):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The case named by `DIFFTEST_CASE`: `seed:N` or a file of fuzzer bytes.
fn named_case() -> ptxgen::Case {
    let spec = std::env::var("DIFFTEST_CASE").expect("set DIFFTEST_CASE=seed:N or a file");
    match spec.strip_prefix("seed:") {
        Some(n) => ptxgen::from_seed(n.parse().expect("a seed number")),
        None => ptxgen::from_bytes(&std::fs::read(&spec).expect("a readable file")),
    }
}

/// Minimizes the mismatch of `DIFFTEST_CASE` and prints it as a `tests/run` file.
#[test]
#[ignore]
fn minimize() {
    let case = named_case();
    match compare(&case) {
        Verdict::Differ(r) => eprintln!("{r}"),
        v => panic!("the case shows no mismatch: {v:?}"),
    }
    // Keep the kind of mismatch while minimizing (`DIFFTEST_ANY=1`: any mismatch).
    let sig = ptxgen::harness::signature(&case);
    eprintln!("signature: {sig:?}");
    let any = std::env::var_os("DIFFTEST_ANY").is_some();
    let keep = move |c: &ptxgen::Case| {
        if any {
            ptxgen::harness::differs(c)
        } else {
            ptxgen::harness::signature(c) == sig
        }
    };
    let small = ptxgen::harness::minimize(&case, &keep);
    let report = match compare(&small) {
        Verdict::Differ(r) => r,
        v => panic!("minimized to a case without a mismatch: {v:?}"),
    };
    let note = std::env::var("DIFFTEST_NOTE").unwrap_or_else(|_| report.clone());
    let xfail = std::env::var("DIFFTEST_XFAIL").ok();
    let text = ptxgen::harness::to_runtest(&small, &note, xfail.as_deref());
    eprintln!("{report}");
    match std::env::var("DIFFTEST_OUT") {
        Ok(p) => std::fs::write(&p, &text).expect("writable"),
        Err(_) => println!("{text}"),
    }
}

/// Prints the case of `DIFFTEST_CASE` (kernel, launch) and the comparison.
#[test]
#[ignore]
fn show() {
    let case = named_case();
    println!("{}", case.text());
    println!(
        "grid {:?} block {:?} max_steps {} u {:#x}",
        case.grid, case.block, case.max_steps, case.uparam
    );
    for e in ptxgen::harness::engines() {
        println!(
            "tiers on {}: {:?}",
            e.name(),
            ptxgen::harness::tiers(&case, e)
        );
    }
    match compare(&case) {
        Verdict::Same(o) => println!("same; error {:?}", o.error),
        Verdict::Differ(r) => println!("{r}"),
        Verdict::Invalid(e) => println!("invalid: {e}"),
    }
}

/// How often each opcode and each outcome occurs over the default seeds (for the coverage
/// account in docs/differential-testing.md).
#[test]
#[ignore]
fn coverage() {
    let mut ops: std::collections::BTreeMap<String, u32> = Default::default();
    let mut outcomes: std::collections::BTreeMap<String, u32> = Default::default();
    for seed in seeds() {
        let case = ptxgen::from_seed(seed);
        for l in &case.lines {
            let l = l.trim();
            if l.ends_with(':') {
                continue;
            }
            let l = if l.starts_with('@') {
                l.split_once(' ').map_or(l, |x| x.1)
            } else {
                l
            };
            let op = l.split([' ', ';']).next().unwrap_or("");
            *ops.entry(op.to_string()).or_default() += 1;
        }
        let o = match compare(&case) {
            Verdict::Same(o) => match &o.error {
                None => "completed".to_string(),
                Some(e) => {
                    let kind = e
                        .split("kind: ")
                        .nth(1)
                        .and_then(|k| k.split(',').next())
                        .unwrap_or(e);
                    let msg = e.split("message: \"").nth(1).unwrap_or("");
                    let msg: String = msg.chars().take_while(|&c| c != ':' && c != '"').collect();
                    format!("{kind} ({msg})")
                }
            },
            Verdict::Differ(_) => "MISMATCH".to_string(),
            Verdict::Invalid(_) => "INVALID".to_string(),
        };
        if o.contains("deadlock") || o.contains("MISMATCH") {
            println!("seed {seed}: {o}");
        }
        *outcomes.entry(o).or_default() += 1;
    }
    for (k, v) in &outcomes {
        println!("outcome {k}: {v}");
    }
    for (k, v) in &ops {
        println!("{v:6} {k}");
    }
}
