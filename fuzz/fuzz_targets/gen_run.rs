//! Structure-aware generation for `run`: the input bytes choose a kernel built from the
//! instruction table (`ptxvm_ir::isa::Table`): each instruction a table form with its
//! modifiers chosen from the form's groups and operands of the types its bindings require
//! (registers, immediates, addresses into a global buffer, shared and local arrays,
//! labels). The kernel is checked; when it checks, it is launched as in the `run` target.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../src/generate.rs"]
mod generate;
#[path = "../src/launch.rs"]
mod launch;

fuzz_target!(|data: &[u8]| {
    let text = generate::kernel(data);
    launch::run_all(&text, data.len() as u32);
});
