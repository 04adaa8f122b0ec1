//! Full front end: preprocess, parse, lower and check; then print the AST canonically
//! and reparse the printed text. Nothing here may panic, whatever the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxvm_syntax::Source;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let (src, _pp_diags) = Source::new("fuzz.ptx", text, None);
    let checked = ptxvm_ir::check(&src);
    let _ = checked.has_errors();
    let printed = ptxvm_syntax::printer::print(&checked.ast, &src.text);
    let _ = ptxvm_syntax::parser::parse(&printed);
});
