//! The `.npy` reader of `ptxvm run`: any bytes either parse or are an error; what parses
//! writes back to a file that parses to the same array.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxvm::npy;

fuzz_target!(|data: &[u8]| {
    if let Ok(a) = npy::parse(data) {
        let bytes = npy::write(&a);
        let b = npy::parse(&bytes).expect("a written .npy parses");
        assert_eq!(a, b, "round trip");
    }
});
