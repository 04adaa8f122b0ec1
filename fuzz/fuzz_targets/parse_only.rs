//! Lexer and parser only, on the raw (lossily decoded) text, no preprocessing.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = ptxvm_syntax::parser::parse(&text);
});
