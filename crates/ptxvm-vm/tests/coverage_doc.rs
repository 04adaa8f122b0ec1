//! `docs/coverage.md` is what `cargo run --release -p ptxvm-vm --example coverage` prints now: the
//! instruction table, the fixture corpus and the decoder have not moved on without it.

use std::path::Path;

#[test]
fn coverage_doc_is_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let spec = root.join("../shared/spec/instructions");
    if !spec.is_dir() {
        // The spec directory sits beside the repository in the workplace, not in a clone:
        // without it the report's spec line would differ; the rest is still compared.
        eprintln!(
            "note: {} not found; comparing without the spec line",
            spec.display()
        );
    }
    let want = ptxvm_vm::coverage::report(&root, &spec);
    let have = std::fs::read_to_string(root.join("docs/coverage.md")).expect("docs/coverage.md");
    let strip = |s: &str| -> String {
        s.lines()
            .filter(|l| !l.starts_with("Spec instruction files"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        strip(&want) == strip(&have),
        "docs/coverage.md is stale: regenerate it with `cargo run --release -p ptxvm-vm --example coverage > docs/coverage.md`"
    );
}
