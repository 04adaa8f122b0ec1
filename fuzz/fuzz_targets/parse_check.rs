//! Full front end: preprocess, parse, lower and check; render every diagnostic as the CLI
//! does (rustc style and JSON); then print the AST canonically and reparse the printed
//! text. Nothing here may panic, whatever the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxvm_syntax::Source;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let (src, _pp_diags) = Source::new("fuzz.ptx", text, None);
    let checked = ptxvm_ir::check(&src);
    let _ = checked.has_errors();
    for d in _pp_diags.iter().chain(&checked.diags) {
        let _ = ptxvm::render_human(&src, d);
        let _ = ptxvm::render_json(&src, d);
    }
    let printed = ptxvm_syntax::printer::print(&checked.ast, &src.text);
    let _ = ptxvm_syntax::parser::parse(&printed);
});
