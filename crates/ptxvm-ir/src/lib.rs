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

/// Options of a check.
#[derive(Debug, Clone, Copy, Default)]
pub struct CheckOptions {
    /// The architecture compiled for, like ptxas's `-arch`: `(sm, arch_specific)`. A module
    /// whose `.target` is newer (or arch-specific for another architecture) is rejected.
    pub arch: Option<(u32, bool)>,
}

impl CheckOptions {
    /// Parses `sm_80`, `sm_90a`, `compute_75`.
    pub fn parse_arch(s: &str) -> Option<(u32, bool)> {
        let n = s
            .strip_prefix("sm_")
            .or_else(|| s.strip_prefix("compute_"))?;
        let (digits, arch) = match n.strip_suffix('a').or_else(|| n.strip_suffix('f')) {
            Some(d) => (d, true),
            None => (n, false),
        };
        Some((digits.parse().ok()?, arch))
    }
}

/// Parses, lowers and checks a source. Semantic checks run even when there are syntax
/// errors (on what did parse), so one run reports as much as possible.
pub fn check(src: &Source) -> Checked {
    check_with(src, &CheckOptions::default())
}

/// [`check`] with options.
pub fn check_with(src: &Source, opts: &CheckOptions) -> Checked {
    let (ast, mut diags) = ptxvm_syntax::parse(src);
    let (module, more) = lower::lower(&ast, &src.text, opts);
    diags.extend(more);
    diags.sort_by_key(|d| (d.span.start, d.kind));
    Checked { ast, module, diags }
}
