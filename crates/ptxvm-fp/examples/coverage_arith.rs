//! Prints the coverage-table rows (`| form | reference | cases |`) of the `.f32`/`.f64`
//! arithmetic conformance suite by running the very checks `tests/arith.rs` runs.
//!
//! `cargo run --release -p ptxvm-fp --example coverage_arith`

#[path = "../tests/gen_arith/mod.rs"]
mod gen_arith;

fn main() {
    println!("| form | reference | cases |");
    println!("| --- | --- | --- |");
    for (form, reference, check) in gen_arith::rows() {
        let n = check();
        println!("| `{form}` | {reference} | {n} |");
    }
}
