//! Load and launch: the input is PTX text (mutated fixture kernels). Every kernel of a
//! module that checks is launched (at most three) with a small grid, a 4 KiB device buffer
//! for every 8-byte parameter and zeros for the others, under a step budget of 50,000 and a
//! memory budget (256 MiB of device memory and of launch memory), on one host thread.
//! Whatever the kernel does — fault, loop, print, recurse, allocate — the launch must return
//! (an error is fine); a panic, hang or memory blow-up is a finding.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../src/launch.rs"]
mod launch;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    launch::run_all(
        &text,
        data.iter()
            .fold(0u32, |h, &b| h.wrapping_mul(31) ^ b as u32),
    );
});
