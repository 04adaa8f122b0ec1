//! `ptxvm-syntax`: the PTX front end's syntactic layer — source loading and
//! preprocessing, the lexer, the parser into a span-carrying AST, and the canonical
//! printer. Parsing never fails: it returns the module together with its diagnostics.

pub mod ast;
pub mod diag;
pub mod lexer;
pub mod parser;
pub mod printer;
pub mod source;
pub mod span;

pub use diag::{DiagKind, Diagnostic, Severity};
pub use source::{Location, Source};
pub use span::{LineIndex, Span};

/// Parses a loaded source: returns the AST and the syntax diagnostics.
pub fn parse(src: &Source) -> (ast::Module, Vec<Diagnostic>) {
    parser::parse(&src.text)
}
