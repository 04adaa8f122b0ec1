//! Differential fuzzing of the execution engines: the input bytes choose a random
//! well-formed PTX kernel, its launch shape and its inputs (the generator of
//! `crates/ptxvm-vm/tests/ptxgen/`, shared with the `engines_differential` test); the kernel
//! runs on the reference interpreter and on every other available engine (the warp engine,
//! and the JIT once it resolves), each with one host thread. Device memory (every register
//! is stored to it at the end), the fault, the instruction counts and printf output must
//! be identical: a difference panics with both results and the kernel. A kernel the
//! checker rejects is a generator bug and panics too.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/ptxvm-vm/tests/ptxgen/mod.rs"]
mod ptxgen;

use ptxgen::harness::{Verdict, compare};

fuzz_target!(|data: &[u8]| {
    let case = ptxgen::from_bytes(data);
    match compare(&case) {
        Verdict::Same(_) => {}
        Verdict::Differ(r) => panic!(
            "engine mismatch:\n{r}\n\n{}\n(grid {:?}, block {:?}, max_steps {}, u {:#x})",
            case.text(),
            case.grid,
            case.block,
            case.max_steps,
            case.uparam
        ),
        Verdict::Invalid(e) => panic!(
            "the generated kernel does not check (a generator bug):\n{e}\n\n{}",
            case.text()
        ),
    }
});
