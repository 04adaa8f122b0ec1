//! Parse / check throughput of ptxvm on a PTX corpus, with the `ptx-syntax` crate
//! (a peer PTX parser) measured on the same files in the same run.
//!
//! ```text
//! cargo run --release -p ptxvm-bench -- [--iters N] [--only a,b,c] [DIR]
//! ```
//!
//! Every `.ptx` under `DIR` (default `tests/fixtures`) is read into memory first; the
//! timed region holds no I/O. Three measurements, each over the whole corpus per
//! iteration, single thread:
//!
//! - (a) `ptxvm parse`: `ptxvm_syntax::parser::parse(&text)` (lex + parse only);
//! - (b) `ptxvm check`: `ptxvm_ir::check(&source)` (parse + lower + check), with the
//!   `Source`s (preprocessing, line index) built outside the timed region;
//! - (c) `ptx-syntax`: `ptx_syntax::parse_ptx(&text)` (lex + parse).
//!
//! One untimed warm-up pass decides which files each parser accepts. Then each of the
//! N iterations runs (a), (b), (c) in turn over the corpus (interleaved, so machine
//! noise spreads over all three), timing each file; throughput is reported over all
//! files attempted and over only the files both ptxvm (check) and the peer accept.
//! Results (ASTs, diagnostics, errors) are dropped inside the timed region.

use std::hint::black_box;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ptxvm_syntax::Source;

struct File {
    name: String,
    text: String,
    source: Source,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    Parse,
    Check,
    Peer,
}

impl Which {
    const ALL: [Which; 3] = [Which::Parse, Which::Check, Which::Peer];
    fn label(self) -> &'static str {
        match self {
            Which::Parse => "(a) ptxvm lex+parse",
            Which::Check => "(b) ptxvm parse+check",
            Which::Peer => "(c) ptx-syntax 0.5.0 parse",
        }
    }
    fn key(self) -> &'static str {
        match self {
            Which::Parse => "a",
            Which::Check => "b",
            Which::Peer => "c",
        }
    }
}

/// Runs one parser on one file; returns whether it accepted the file.
#[inline(never)]
fn run(which: Which, f: &File) -> bool {
    match which {
        Which::Parse => {
            let (m, d) = ptxvm_syntax::parser::parse(black_box(&f.text));
            let ok = !d.iter().any(|d| d.is_error());
            black_box(m);
            ok
        }
        Which::Check => {
            let c = ptxvm_ir::check(black_box(&f.source));
            let ok = !c.has_errors();
            black_box(c);
            ok
        }
        Which::Peer => {
            // The peer may panic on inputs it does not handle: that counts as a failure.
            catch_unwind(AssertUnwindSafe(|| {
                ptx_syntax::parse_ptx(black_box(&f.text))
                    .map(black_box)
                    .is_ok()
            }))
            .unwrap_or_default()
        }
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            collect(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "ptx") {
            out.push(p);
        }
    }
    Ok(())
}

fn mbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / 1e6 / d.as_secs_f64()
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2
    }
}

fn usage() -> ! {
    eprintln!("usage: ptxvm-bench [--iters N] [--only a,b,c] [DIR]");
    std::process::exit(2)
}

fn main() {
    // Both parsers recurse; give them the same large stack (the peer's own CLI does the
    // same in debug builds). Everything, timed or not, runs on this one thread.
    let h = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(real_main)
        .expect("spawn bench thread");
    if h.join().is_err() {
        std::process::exit(1);
    }
}

fn real_main() {
    let mut iters = 10usize;
    let mut dir = PathBuf::from("tests/fixtures");
    let mut only: Vec<Which> = Which::ALL.to_vec();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--iters" | "-n" => {
                iters = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or_else(|| usage());
                if iters == 0 {
                    usage();
                }
            }
            "--only" => {
                let s = args.next().unwrap_or_else(|| usage());
                only = Which::ALL
                    .into_iter()
                    .filter(|w| s.split(',').any(|k| k == w.key()))
                    .collect();
                if only.is_empty() {
                    usage();
                }
            }
            "-h" | "--help" => usage(),
            _ if a.starts_with('-') => usage(),
            _ => dir = PathBuf::from(a),
        }
    }

    // ---- Load (untimed) ----
    let mut paths = Vec::new();
    if let Err(e) = collect(&dir, &mut paths) {
        eprintln!("error: reading {}: {e}", dir.display());
        std::process::exit(1);
    }
    paths.sort();
    if paths.is_empty() {
        eprintln!("error: no .ptx files under {}", dir.display());
        std::process::exit(1);
    }
    let files: Vec<File> = paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p)
                .unwrap_or_else(|e| panic!("reading {}: {e}", p.display()));
            let name = p.strip_prefix(&dir).unwrap_or(p).display().to_string();
            let source = Source::new(&name, text.clone(), p.parent()).0;
            File { name, text, source }
        })
        .collect();
    let total_bytes: usize = files.iter().map(|f| f.text.len()).sum();

    // Silence panic messages from the peer (counted as failures).
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));

    // ---- Warm-up (untimed): acceptance per parser ----
    let mut accepted: Vec<Vec<bool>> = vec![vec![false; files.len()]; 3];
    for (i, w) in Which::ALL.into_iter().enumerate() {
        if !only.contains(&w) {
            continue;
        }
        for (j, f) in files.iter().enumerate() {
            accepted[i][j] = run(w, f);
        }
    }
    let both: Vec<bool> = (0..files.len())
        .map(|j| accepted[1][j] && accepted[2][j])
        .collect();
    let both_run = only.contains(&Which::Check) && only.contains(&Which::Peer);
    let both_bytes: usize = files
        .iter()
        .zip(&both)
        .filter(|(_, b)| **b)
        .map(|(f, _)| f.text.len())
        .sum();
    let both_count = both.iter().filter(|b| **b).count();

    // ---- Timed iterations ----
    // times[w][iter] = (all files, files both accept)
    let mut t_all: Vec<Vec<Duration>> = vec![Vec::new(); 3];
    let mut t_both: Vec<Vec<Duration>> = vec![Vec::new(); 3];
    for it in 0..iters {
        for (i, w) in Which::ALL.into_iter().enumerate() {
            if !only.contains(&w) {
                continue;
            }
            let mut all = Duration::ZERO;
            let mut sub = Duration::ZERO;
            for (j, f) in files.iter().enumerate() {
                let t0 = Instant::now();
                black_box(run(w, f));
                let d = t0.elapsed();
                all += d;
                if both[j] {
                    sub += d;
                }
            }
            t_all[i].push(all);
            t_both[i].push(sub);
        }
        eprint!("\riteration {}/{iters}", it + 1);
    }
    eprintln!();
    std::panic::set_hook(default_hook);

    // ---- Report ----
    println!(
        "corpus: {} ({} files, {} bytes = {:.2} MB)",
        dir.display(),
        files.len(),
        total_bytes,
        total_bytes as f64 / 1e6
    );
    println!("iterations: {iters} (after 1 untimed warm-up pass), single thread");
    if both_run {
        println!(
            "files both ptxvm (check) and ptx-syntax accept: {both_count} ({both_bytes} bytes = {:.2} MB)",
            both_bytes as f64 / 1e6
        );
    }
    println!();
    println!(
        "| {:<28} | {:>8} | {:>8} | {:>13} | {:>13} | {:>15} | {:>15} |",
        "measurement",
        "accepted",
        "rejected",
        "all: med MB/s",
        "all: max MB/s",
        "both: med MB/s",
        "both: max MB/s"
    );
    println!(
        "|{:-<30}|{:->10}|{:->10}|{:->15}|{:->15}|{:->17}|{:->17}|",
        "", "", "", "", "", "", ""
    );
    let mut med_all = [0.0f64; 3];
    let mut med_both = [0.0f64; 3];
    for (i, w) in Which::ALL.into_iter().enumerate() {
        if !only.contains(&w) {
            continue;
        }
        let acc = accepted[i].iter().filter(|b| **b).count();
        let mut a = t_all[i].clone();
        let ma = median(&mut a);
        let mina = a[0];
        med_all[i] = mbps(total_bytes, ma);
        let (bm, bx) = if both_run && both_bytes > 0 {
            let mut b = t_both[i].clone();
            let mb = median(&mut b);
            med_both[i] = mbps(both_bytes, mb);
            (
                format!("{:.2}", med_both[i]),
                format!("{:.2}", mbps(both_bytes, b[0])),
            )
        } else {
            ("-".into(), "-".into())
        };
        println!(
            "| {:<28} | {:>8} | {:>8} | {:>13.2} | {:>13.2} | {:>15} | {:>15} |",
            w.label(),
            acc,
            files.len() - acc,
            med_all[i],
            mbps(total_bytes, mina),
            bm,
            bx
        );
    }
    println!();
    println!(
        "(\"max MB/s\" is the throughput of the fastest iteration, i.e. of the minimum time.)"
    );
    if both_run {
        println!(
            "ratio ptxvm/peer (median MB/s): parse/peer all {:.2}x, both {:.2}x; check/peer all {:.2}x, both {:.2}x",
            med_all[0] / med_all[2],
            med_both[0] / med_both[2],
            med_all[1] / med_all[2],
            med_both[1] / med_both[2]
        );
    }
    if only.contains(&Which::Peer) {
        let rejected: Vec<&str> = files
            .iter()
            .zip(&accepted[2])
            .filter(|(_, a)| !**a)
            .map(|(f, _)| f.name.as_str())
            .collect();
        if !rejected.is_empty() {
            println!();
            println!("ptx-syntax rejected {} file(s):", rejected.len());
            for n in rejected.iter().take(20) {
                println!("  {n}");
            }
            if rejected.len() > 20 {
                println!("  ... and {} more", rejected.len() - 20);
            }
        }
    }
    for (i, w) in [(0, Which::Parse), (1, Which::Check)] {
        if !only.contains(&w) {
            continue;
        }
        let rejected: Vec<&str> = files
            .iter()
            .zip(&accepted[i])
            .filter(|(_, a)| !**a)
            .map(|(f, _)| f.name.as_str())
            .collect();
        if !rejected.is_empty() {
            println!(
                "{} rejected {} file(s): {}",
                w.label(),
                rejected.len(),
                rejected.join(", ")
            );
        }
    }
}
