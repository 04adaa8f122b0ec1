//! The `.npy` reader of `ptxvm run`: any bytes either parse or are an error (`parse` and
//! `parse_vec` agree); what parses writes back to a file that parses to the same array.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxvm::npy;

fuzz_target!(|data: &[u8]| {
    let owned = npy::parse_vec(data.to_vec());
    if let Ok(a) = npy::parse(data) {
        assert_eq!(owned.as_ref(), Ok(&a), "parse and parse_vec agree");
        let bytes = npy::write(&a);
        let b = npy::parse(&bytes).expect("a written .npy parses");
        assert_eq!(a, b, "round trip");
    }
});
