//! Diagnostics: what every stage of ptxvm reports about a module. A diagnostic has a
//! stable [`DiagKind`], a message, a primary span and optional notes. Library crates only
//! produce them; the CLI renders them (rustc style or JSON).

use crate::span::Span;

/// Error or warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
}

/// The stable kind of a diagnostic (documented in `docs/diagnostic-kinds.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DiagKind {
    Syntax,
    Preprocessor,
    Undeclared,
    Duplicate,
    UndefinedLabel,
    UnknownInstruction,
    Modifier,
    OperandCount,
    OperandKind,
    OperandType,
    StateSpace,
    Version,
    Target,
    Directive,
    Declaration,
}

impl DiagKind {
    /// All kinds, in documentation order.
    pub const ALL: [DiagKind; 15] = [
        DiagKind::Syntax,
        DiagKind::Preprocessor,
        DiagKind::Undeclared,
        DiagKind::Duplicate,
        DiagKind::UndefinedLabel,
        DiagKind::UnknownInstruction,
        DiagKind::Modifier,
        DiagKind::OperandCount,
        DiagKind::OperandKind,
        DiagKind::OperandType,
        DiagKind::StateSpace,
        DiagKind::Version,
        DiagKind::Target,
        DiagKind::Directive,
        DiagKind::Declaration,
    ];

    /// The kebab-case name used in JSON output and test expectations.
    pub fn as_str(self) -> &'static str {
        match self {
            DiagKind::Syntax => "syntax",
            DiagKind::Preprocessor => "preprocessor",
            DiagKind::Undeclared => "undeclared",
            DiagKind::Duplicate => "duplicate",
            DiagKind::UndefinedLabel => "undefined-label",
            DiagKind::UnknownInstruction => "unknown-instruction",
            DiagKind::Modifier => "modifier",
            DiagKind::OperandCount => "operand-count",
            DiagKind::OperandKind => "operand-kind",
            DiagKind::OperandType => "operand-type",
            DiagKind::StateSpace => "state-space",
            DiagKind::Version => "version",
            DiagKind::Target => "target",
            DiagKind::Directive => "directive",
            DiagKind::Declaration => "declaration",
        }
    }

    /// Parses a kind name.
    pub fn from_name(s: &str) -> Option<DiagKind> {
        DiagKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// One diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub kind: DiagKind,
    pub message: String,
    pub span: Span,
    /// Secondary remarks, each optionally pointing somewhere.
    pub notes: Vec<(Option<Span>, String)>,
}

impl Diagnostic {
    /// A new error.
    #[cold]
    pub fn error(kind: DiagKind, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            kind,
            message: message.into(),
            span,
            notes: Vec::new(),
        }
    }

    /// A new warning.
    #[cold]
    pub fn warning(kind: DiagKind, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(kind, span, message)
        }
    }

    /// Adds a note.
    pub fn with_note(mut self, span: Option<Span>, note: impl Into<String>) -> Diagnostic {
        self.notes.push((span, note.into()));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
