//! The JIT compiles every kernel of the repository's PTX — the run tests (`tests/run`) and
//! the real-compiler fixtures (`tests/fixtures`: NVRTC, clang, Triton, numba) — or leaves
//! it to the warp engine for the one legitimate reason, that none of its instructions is
//! one the native code handles. Any other outcome (Cranelift's verifier rejecting the code
//! we generate, an operand the JIT did not expect) is a JIT bug: launches would still give
//! the right bits on the warp engine, so the engine-comparing tests cannot see it.
//! A kernel whose native code would be too large to compile quickly stays on the warp
//! engine too (`TOO_LARGE`), as long as that is rare. Prints the compile times.

use ptxvm_vm::Device;
use ptxvm_vm::exec::{NOTHING_COMPILES, TOO_LARGE};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "ptx") {
            out.push(p);
        }
    }
}

#[test]
fn every_kernel_compiles_or_has_nothing_to_compile() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    ptx_files(&root.join("tests/run"), &mut files);
    ptx_files(&root.join("tests/fixtures"), &mut files);
    assert!(files.len() > 500, "found only {} PTX files", files.len());
    let (mut kernels, mut compiled, mut nothing, mut too_large) = (0, 0, 0, 0);
    let mut times: Vec<(Duration, String)> = Vec::new();
    let mut bugs = Vec::new();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let dev = Device::new();
        // Files that do not load (negative run tests, other targets) are not kernels here.
        let Ok(m) = dev.load_ptx(&path.display().to_string(), &text) else {
            continue;
        };
        for name in dev.kernels(m).unwrap_or_default() {
            let Ok(k) = dev.kernel(m, &name) else {
                continue;
            };
            kernels += 1;
            match k.jit_compile() {
                Ok((n, t)) => {
                    compiled += 1;
                    times.push((t, format!("{}:{name} ({n} instructions)", path.display())));
                }
                Err(e) if e == NOTHING_COMPILES => nothing += 1,
                Err(e) if e.starts_with(TOO_LARGE) => too_large += 1,
                Err(e) => bugs.push(format!("{}: kernel `{name}`: {e}", path.display())),
            }
        }
    }
    times.sort();
    for (t, k) in times.iter().rev().take(8) {
        eprintln!("slowest: {:.1} ms {k}", t.as_secs_f64() * 1e3);
    }
    if let (Some(med), Some(max)) = (times.get(times.len() / 2), times.last()) {
        eprintln!(
            "{kernels} kernels in {} files: {compiled} compiled, {nothing} with nothing to compile, {too_large} too large, {} JIT errors; compile time median {:.2} ms, max {:.1} ms ({})",
            files.len(),
            bugs.len(),
            med.0.as_secs_f64() * 1e3,
            max.0.as_secs_f64() * 1e3,
            max.1
        );
    }
    assert!(kernels > 1000, "only {kernels} kernels loaded");
    // The size limit is for outliers: the native code of nearly every kernel fits.
    assert!(
        too_large * 20 < kernels,
        "{too_large} of {kernels} kernels too large for the JIT"
    );
    assert!(
        bugs.is_empty(),
        "{} kernels the JIT fails to compile:\n{}",
        bugs.len(),
        bugs.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}
