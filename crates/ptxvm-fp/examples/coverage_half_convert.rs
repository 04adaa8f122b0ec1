//! Prints the coverage table rows (`| form | reference | cases |`) for the half-precision
//! and `cvt` forms by running the same case generators and checks as
//! `tests/half_convert.rs` (included below). Run:
//! `cargo run --release -p ptxvm-fp --example coverage_half_convert`
#[path = "../tests/half_convert.rs"]
mod half_convert;

fn main() {
    println!("| form | reference | cases |");
    println!("|---|---|---|");
    for (form, reference, run) in half_convert::checks() {
        let n = run();
        println!("| `{form}` | {reference} | {n} |");
    }
    let (_, stats) = half_convert::check_ex2_tanh_exhaustive();
    for (name, s) in [
        "ex2.approx.f16",
        "ex2.approx.ftz.bf16",
        "tanh.approx.f16",
        "tanh.approx.bf16",
    ]
    .iter()
    .zip(stats.iter())
    {
        eprintln!(
            "{name}: {} inputs, max rel err 2^{:.3}, max err {:.3} ulp",
            s.cases,
            s.max_rel_err.log2(),
            s.max_ulp
        );
    }
}
