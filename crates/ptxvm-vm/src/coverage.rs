//! The instruction coverage report, `docs/coverage.md`
//! (`cargo run --release -p ptxvm-vm --example coverage > docs/coverage.md`; a test keeps the
//! committed file equal to what this makes).
//!
//! For every block of the instruction table: the spec files it covers, the forms declared
//! (each is parsed and checked), how many instructions of the real-compiler fixture corpus
//! matched them, and whether the engines execute each form — derived from the decoder:
//! every instruction of the sample corpus (the fixtures, the run tests and the hostile
//! suite, every file that checks) is decoded as the VM loads it; a form *executes* when a
//! sample of it decodes to an operation, is *unsupported* when every sample decodes to
//! [`crate::program::Exec::Unsupported`] (a launch reaching one faults, naming it), and has
//! *no sample* when the corpus has none (nothing is claimed for it).

use crate::memory::AddressSpace;
use crate::program::{Exec, decode};
use ptxvm_ir::isa::Table;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                ptx_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "ptx") {
                out.push(p);
            }
        }
    }
}

/// What the samples of one form decoded to.
#[derive(Default, Clone, Copy)]
struct Seen {
    executes: bool,
    unsupported: bool,
}

/// What the sample corpus says about every form of the table.
struct Samples {
    fixtures: usize,
    sample_files: usize,
    /// Fixture instructions per form.
    uses: Vec<u64>,
    seen: Vec<Seen>,
}

fn samples(root: &Path) -> Samples {
    let t = Table::get();
    let mut fixtures = Vec::new();
    ptx_files(&root.join("tests/fixtures"), &mut fixtures);
    fixtures.sort();
    let mut samples = fixtures.clone();
    ptx_files(&root.join("tests/run"), &mut samples);
    ptx_files(&root.join("tests/hostile"), &mut samples);
    samples.sort();
    let mut uses = vec![0u64; t.forms.len()];
    let mut seen = vec![Seen::default(); t.forms.len()];
    let mut sample_files = 0usize;
    for path in &samples {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let name = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        // Every fixture is accepted (a test asserts it), so the checked module also gives
        // the fixture uses.
        let Ok(checked) = crate::device::check_ptx(&name, &text) else {
            continue;
        };
        if fixtures.binary_search(path).is_ok() {
            for func in &checked.module.funcs {
                for i in &func.insts {
                    uses[i.form as usize] += 1;
                }
            }
        }
        let mem = AddressSpace::new(1 << 30);
        let Ok(prog) = decode(&checked.module, &|_| 0, &mem) else {
            continue;
        };
        sample_files += 1;
        for (f, fc) in checked.module.funcs.iter().zip(&prog.funcs) {
            if f.insts.len() != fc.code.len() {
                continue;
            }
            for (i, d) in f.insts.iter().zip(&fc.code) {
                let s = &mut seen[i.form as usize];
                match d.exec {
                    Exec::Unsupported(_) => s.unsupported = true,
                    _ => s.executes = true,
                }
            }
        }
    }
    Samples {
        fixtures: fixtures.len(),
        sample_files,
        uses,
        seen,
    }
}

/// The forms no sample of the corpus uses (`file`, `line`, syntax), in table order: the
/// forms for which nothing is claimed (`cargo run -p ptxvm-vm --example coverage -- --no-sample`).
pub fn no_sample_forms(root: &Path) -> Vec<(&'static str, u32, String)> {
    let s = samples(root);
    Table::get()
        .forms
        .iter()
        .zip(&s.seen)
        .filter(|(_, seen)| !seen.executes && !seen.unsupported)
        .map(|(f, _)| (f.file, f.line, f.syntax()))
        .collect()
}

/// The report for the repository at `root` (the workspace directory); `spec_dir` holds the
/// spec's instruction files (`shared/spec/instructions`), if present.
pub fn report(root: &Path, spec_dir: &Path) -> String {
    let t = Table::get();
    let Samples {
        fixtures,
        sample_files,
        uses,
        seen,
    } = samples(root);
    let spec: BTreeSet<String> = std::fs::read_dir(spec_dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .trim_end_matches(".md")
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default();

    let mut o = String::new();
    let _ = writeln!(o, "# Instruction coverage\n");
    let _ = writeln!(
        o,
        "Generated by `cargo run --release -p ptxvm-vm --example coverage > docs/coverage.md` from the\n\
         instruction table (`crates/ptxvm-ir/isa/*.isa`), the fixture corpus ({} files) and the\n\
         VM's decoder (a test fails when this file is stale). Every form listed is parsed and\n\
         checked (modifiers, operand count, operand kinds and §9.4 types, `.version`/`.target`\n\
         gating). *Fixture uses* counts instructions of the real-compiler corpus that matched\n\
         the block's forms; *forms used* how many distinct forms.\n",
        fixtures
    );
    let _ = writeln!(
        o,
        "Whether the engines execute a form is derived from the decoder, on samples: every\n\
         instruction of the {sample_files} files of `tests/fixtures`, `tests/run` and\n\
         `tests/hostile` that load is decoded as a launch would decode it. *Executes*: forms\n\
         with a sample that decodes to an operation (every engine runs it; a modifier\n\
         combination the operation does not implement still faults at run time, naming the\n\
         instruction). *Unsupported*: forms whose every sample decodes as unsupported (a\n\
         launch that reaches one faults, naming it; listed below). *No sample*: forms the\n\
         corpus does not use; nothing is claimed for them.\n"
    );
    let _ = writeln!(
        o,
        "| block | file | forms | executes | unsupported | no sample | fixture uses | forms used |"
    );
    let _ = writeln!(o, "|---|---|---:|---:|---:|---:|---:|---:|");
    #[derive(Default, Clone, Copy)]
    struct Row {
        forms: usize,
        uses: u64,
        used: usize,
        executes: usize,
        unsupported: usize,
        none: usize,
    }
    let mut per_block: BTreeMap<usize, Row> = BTreeMap::new();
    let mut unsupported_forms = Vec::new();
    for (fi, f) in t.forms.iter().enumerate() {
        let r = per_block.entry(f.block).or_default();
        r.forms += 1;
        r.uses += uses[fi];
        r.used += (uses[fi] > 0) as usize;
        match (seen[fi].executes, seen[fi].unsupported) {
            (true, _) => r.executes += 1,
            (false, true) => {
                r.unsupported += 1;
                unsupported_forms.push((f.file, f.line, f.syntax()));
            }
            (false, false) => r.none += 1,
        }
    }
    let mut named = BTreeSet::new();
    let mut total = Row::default();
    for (bi, b) in t.blocks.iter().enumerate() {
        let r = per_block.get(&bi).copied().unwrap_or_default();
        total.forms += r.forms;
        total.uses += r.uses;
        total.executes += r.executes;
        total.unsupported += r.unsupported;
        total.none += r.none;
        named.extend(b.names.iter().cloned());
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            b.names.join(" "),
            b.file,
            r.forms,
            r.executes,
            r.unsupported,
            r.none,
            r.uses,
            r.used
        );
    }
    let _ = writeln!(
        o,
        "| **total** | | **{}** | **{}** | **{}** | **{}** | **{}** | |\n",
        total.forms, total.executes, total.unsupported, total.none, total.uses
    );
    let missing: Vec<&str> = spec
        .iter()
        .filter(|s| !named.contains(*s))
        .map(|s| s.as_str())
        .collect();
    let _ = writeln!(
        o,
        "Spec instruction files (`shared/spec/instructions/`): {}; without a block: {}.\n",
        spec.len(),
        if missing.is_empty() {
            "none".to_string()
        } else {
            missing.join(", ")
        }
    );
    let _ = writeln!(
        o,
        "## Forms with samples that the engines do not execute ({})\n",
        unsupported_forms.len()
    );
    for (file, line, syntax) in &unsupported_forms {
        let _ = writeln!(o, "- `{syntax}` ({file}:{line})");
    }
    o
}
