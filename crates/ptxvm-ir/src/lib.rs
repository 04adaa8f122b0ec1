//! `ptxvm-ir`: the instruction table ([`isa`]), PTX types ([`types`]), the typed IR
//! ([`ir`]), and lowering with checking from the AST ([`lower`]).
//!
//! The usual entry point is [`check`]: parse, lower and check one source, collecting
//! every diagnostic.

pub mod ir;
pub mod isa;
pub mod lower;
pub mod types;

use ptxvm_syntax::{Diagnostic, Source, ast};

/// The result of checking one source.
pub struct Checked {
    pub ast: ast::Module,
    pub module: ir::Module,
    /// Syntax and semantic diagnostics, in source order.
    pub diags: Vec<Diagnostic>,
}

impl Checked {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(Diagnostic::is_error)
    }
}

/// Parses, lowers and checks a source. Semantic checks run even when there are syntax
/// errors (on what did parse), so one run reports as much as possible.
pub fn check(src: &Source) -> Checked {
    let (ast, mut diags) = ptxvm_syntax::parse(src);
    let (module, more) = lower::lower(&ast, &src.text);
    diags.extend(more);
    diags.sort_by_key(|d| (d.span.start, d.kind));
    Checked { ast, module, diags }
}
