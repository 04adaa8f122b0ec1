//! The in-flight guard of `wgmma` accumulators (`ptxvm_vm::ops::wgmma::guard_in_flight`) on
//! real compilers' code: in every fixture kernel with `wgmma.mma_async` (nvrtc 12/13, clang,
//! Triton sm_90 matmuls and attention) no instruction besides the `wgmma`s themselves may
//! name an accumulator between an `mma_async` and the `wait_group` that completes it, so
//! nothing is wrapped (the check costs nothing there). The exception is clang's `-O0` build,
//! which spills the accumulators right after `mma_async`, before `commit_group`/`wait_group`
//! (undefined in the ISA; ptxas serialises such code): those 8 stores are wrapped, and a
//! launch of that kernel reports the early read. A kernel that reads one early has exactly
//! that instruction wrapped.

use ptxvm_vm::memory::AddressSpace;
use ptxvm_vm::program::{Exec, MatrixOp, decode};
use std::path::{Path, PathBuf};

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ptx") {
            out.push(p);
        }
    }
}

/// (wgmma.mma_async count, wrapped instruction count) of a module.
fn counts(name: &str, text: &str) -> (usize, usize) {
    let checked =
        ptxvm_vm::device::check_ptx(name, text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let mem = AddressSpace::new(1 << 30);
    let prog = decode(&checked.module, &|_| 0, &mem).unwrap_or_else(|e| panic!("{name}: {e}"));
    let (mut mma, mut wrapped) = (0, 0);
    for f in &prog.funcs {
        for i in &f.code {
            match &i.exec {
                Exec::Matrix {
                    op: MatrixOp::Wgmma(ptxvm_vm::ops::wgmma::WgOp::Mma(_)),
                    ..
                } => mma += 1,
                Exec::WgmmaChecked(_) => wrapped += 1,
                _ => {}
            }
        }
    }
    (mma, wrapped)
}

#[test]
fn compiled_wgmma_code_has_nothing_to_check() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut files = Vec::new();
    ptx_files(&root, &mut files);
    files.sort();
    let mut kernels = 0;
    for p in &files {
        let text = std::fs::read_to_string(p).unwrap();
        if !text.contains("wgmma.mma_async") {
            continue;
        }
        let name = p.display().to_string();
        let (mma, wrapped) = counts(&name, &text);
        assert!(mma > 0, "{name}: no mma_async decoded");
        let expect = if name.ends_with(".O0.ptx") { 8 } else { 0 };
        assert_eq!(wrapped, expect, "{name}: {wrapped} instructions wrapped");
        kernels += 1;
    }
    assert!(kernels >= 10, "only {kernels} fixtures with wgmma");
}

#[test]
fn an_early_read_is_wrapped() {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/run/errors/wgmma_early_read.ptx");
    let text = std::fs::read_to_string(&p).unwrap();
    assert_eq!(counts("wgmma_early_read.ptx", &text), (1, 1));
}
