//! Lints instruction-table files: `cargo run -p ptxvm-ir --example isa_lint -- [FILE.isa...]`.
//! With no arguments, lints the embedded table. Reports format errors with line numbers
//! and the spec instruction files (`shared/spec/instructions/*.md`) no block names.
use ptxvm_ir::isa::{FILES, Table};
use std::collections::BTreeSet;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let files: Vec<(&'static str, &'static str)> = if args.is_empty() {
        FILES.to_vec()
    } else {
        args.iter()
            .map(|a| {
                let text = std::fs::read_to_string(a).unwrap_or_else(|e| panic!("{a}: {e}"));
                let name: &'static str = Box::leak(a.clone().into_boxed_str());
                (name, &*Box::leak(text.into_boxed_str()))
            })
            .collect()
    };
    let (t, errs) = Table::parse_files(&files);
    for e in &errs {
        println!("{}:{}: {}", e.file, e.line, e.message);
    }
    println!(
        "{} blocks, {} forms, {} errors",
        t.blocks.len(),
        t.forms.len(),
        errs.len()
    );
    let spec = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/spec/instructions"
    );
    if let Ok(rd) = std::fs::read_dir(spec) {
        let named: BTreeSet<String> = t
            .blocks
            .iter()
            .flat_map(|b| b.names.iter().cloned())
            .collect();
        let (all, _) = Table::parse_files(FILES);
        let all_named: BTreeSet<String> = all
            .blocks
            .iter()
            .flat_map(|b| b.names.iter().cloned())
            .collect();
        let mut missing = Vec::new();
        for e in rd.flatten() {
            let n = e
                .file_name()
                .to_string_lossy()
                .trim_end_matches(".md")
                .to_string();
            if !all_named.contains(&n) && !named.contains(&n) {
                missing.push(n);
            }
        }
        missing.sort();
        println!(
            "spec instructions with no block in the whole table: {}",
            missing.join(" ")
        );
    }
    if !errs.is_empty() {
        std::process::exit(1);
    }
}
