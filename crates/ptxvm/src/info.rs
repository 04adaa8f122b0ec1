//! `ptxvm info`: a human summary of a checked module, and of an emulated GPU (`--arch`).

use ptxvm_ir::ir::{FuncKind, Module, Var};
use std::collections::BTreeMap;
use std::fmt::Write;

fn var_type(v: &Var) -> String {
    let mut s = String::new();
    if v.vector > 1 {
        let _ = write!(s, ".v{} ", v.vector);
    }
    s.push_str(v.ty.name());
    for d in &v.dims {
        if *d == 0 {
            s.push_str("[]");
        } else {
            let _ = write!(s, "[{d}]");
        }
    }
    s
}

/// Renders the summary.
pub fn render(m: &Module) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "version: {}.{}", m.version.0, m.version.1);
    let _ = writeln!(s, "target: {}", m.targets.join(", "));
    let _ = writeln!(s, "address_size: {}", m.address_size);
    if !m.vars.is_empty() {
        let _ = writeln!(s, "\nmodule variables:");
        for v in &m.vars {
            let _ = writeln!(
                s,
                "  {}{} {} {}  size {} align {}{}",
                v.space.name(),
                v.space_qual,
                var_type(v),
                v.name,
                v.size,
                v.align,
                if v.init.is_some() {
                    "  (initialised)"
                } else {
                    ""
                }
            );
        }
    }
    for f in &m.funcs {
        let kind = match f.kind {
            Some(FuncKind::Entry) => "entry",
            _ => "func",
        };
        let _ = writeln!(
            s,
            "\n{kind} {}{}",
            f.name,
            if f.defined { "" } else { " (declaration)" }
        );
        let mut off = 0u64;
        if !f.rets.is_empty() {
            let _ = writeln!(s, "  returns:");
            for p in &f.rets {
                let _ = writeln!(
                    s,
                    "    {} {} {}  size {} align {}",
                    p.space.name(),
                    var_type(p),
                    p.name,
                    p.size,
                    p.align
                );
            }
        }
        let _ = writeln!(
            s,
            "  params:{}",
            if f.params.is_empty() { " none" } else { "" }
        );
        for p in &f.params {
            let al = p.align.max(1) as u64;
            off = off.div_ceil(al) * al;
            let mut line = format!(
                "    {} {} {}  size {} align {} offset {}",
                p.space.name(),
                var_type(p),
                p.name,
                p.size,
                p.align,
                off
            );
            if let Some((sp, a)) = p.ptr {
                let _ = write!(
                    line,
                    "  .ptr{}{}",
                    sp.map_or(String::new(), |x| format!(" {}", x.name())),
                    if a > 0 {
                        format!(" .align {a}")
                    } else {
                        String::new()
                    }
                );
            }
            let _ = writeln!(s, "{line}");
            off += p.size;
        }
        if f.defined {
            let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
            for r in &f.regs {
                *counts.entry(r.ty.name()).or_default() += 1;
            }
            let regs: Vec<String> = counts.iter().map(|(t, n)| format!("{t} {n}")).collect();
            let _ = writeln!(
                s,
                "  registers: {}",
                if regs.is_empty() {
                    "none".to_string()
                } else {
                    regs.join(", ")
                }
            );
            let _ = writeln!(
                s,
                "  instructions: {}  blocks: {}",
                f.insts.len(),
                f.blocks.len()
            );
            for v in &f.locals {
                let _ = writeln!(
                    s,
                    "  local {}{} {} {}  size {} align {}",
                    v.space.name(),
                    v.space_qual,
                    var_type(v),
                    v.name,
                    v.size,
                    v.align
                );
            }
        }
        let t = &f.tuning;
        let mut dirs = Vec::new();
        let dim = |d: [u32; 3]| format!("{}, {}, {}", d[0], d[1], d[2]);
        if let Some(d) = t.maxntid {
            dirs.push(format!(".maxntid {}", dim(d)));
        }
        if let Some(d) = t.reqntid {
            dirs.push(format!(".reqntid {}", dim(d)));
        }
        if let Some(d) = t.reqnctapercluster {
            dirs.push(format!(".reqnctapercluster {}", dim(d)));
        }
        if let Some(n) = t.minnctapersm {
            dirs.push(format!(".minnctapersm {n}"));
        }
        if let Some(n) = t.maxnctapersm {
            dirs.push(format!(".maxnctapersm {n}"));
        }
        if let Some(n) = t.maxnreg {
            dirs.push(format!(".maxnreg {n}"));
        }
        if let Some(n) = t.maxclusterrank {
            dirs.push(format!(".maxclusterrank {n}"));
        }
        if t.explicitcluster {
            dirs.push(".explicitcluster".into());
        }
        if t.noreturn {
            dirs.push(".noreturn".into());
        }
        for p in &t.pragmas {
            dirs.push(format!(".pragma \"{p}\""));
        }
        if !dirs.is_empty() {
            let _ = writeln!(s, "  directives: {}", dirs.join("; "));
        }
    }
    s
}

/// Renders an emulated GPU model (`ptxvm info --arch`).
pub fn render_model(m: &ptxvm_vm::arch::GpuModel) -> String {
    let mut s = String::new();
    let kib = |b: u32| format!("{} KiB", b / 1024);
    let _ = writeln!(s, "arch: {} ({})", m.arch, m.board);
    let _ = writeln!(
        s,
        "compute capability: {}.{}{}",
        m.major,
        m.minor,
        if m.arch_specific {
            " (arch-specific features)"
        } else {
            ""
        }
    );
    let _ = writeln!(s, "SMs: {}", m.sm_count);
    let _ = writeln!(
        s,
        "per SM: {} threads, {} warps, {} blocks, {} registers, {} shared memory",
        m.max_threads_per_sm,
        m.max_warps_per_sm,
        m.max_blocks_per_sm,
        m.regs_per_sm,
        kib(m.shared_per_sm)
    );
    let _ = writeln!(
        s,
        "per block: {} registers, {} shared memory ({} opt-in, {} reserved)",
        m.regs_per_block,
        kib(m.shared_per_block),
        kib(m.shared_per_block_optin),
        kib(m.shared_reserved_per_block)
    );
    let _ = writeln!(
        s,
        "registers per thread: {} (allocated in units of {} per warp)",
        m.regs_per_thread, m.reg_alloc_unit
    );
    let _ = writeln!(s, "L2: {} MiB", m.l2_bytes / (1024 * 1024));
    let _ = writeln!(
        s,
        "clocks: {} kHz core, {} kHz memory, {}-bit bus",
        m.clock_khz, m.mem_clock_khz, m.mem_bus_bits
    );
    let _ = writeln!(s, "clusters: {}", if m.clusters { "yes" } else { "no" });
    let _ = writeln!(s, "tensor cores: {:?}", m.tensor);
    let _ = writeln!(s, "tcgen05: {}", if m.has_tcgen05() { "yes" } else { "no" });
    s
}
