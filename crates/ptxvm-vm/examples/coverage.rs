//! Prints `docs/coverage.md`: `cargo run -p ptxvm-vm --example coverage > docs/coverage.md`
//! (see [`ptxvm_vm::coverage`]).
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    print!(
        "{}",
        ptxvm_vm::coverage::report(&root, &root.join("../shared/spec/instructions"))
    );
}
