//! Prints `docs/coverage.md`: `cargo run -p ptxvm-vm --example coverage > docs/coverage.md`
//! (see [`ptxvm_vm::coverage`]). With `--no-sample`, lists the forms no sample uses instead.
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if std::env::args().any(|a| a == "--no-sample") {
        for (file, line, syntax) in ptxvm_vm::coverage::no_sample_forms(&root) {
            println!("{file}:{line}\t{syntax}");
        }
        return;
    }
    print!(
        "{}",
        ptxvm_vm::coverage::report(&root, &root.join("../shared/spec/instructions"))
    );
}
