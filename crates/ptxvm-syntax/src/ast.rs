//! The PTX abstract syntax tree. Every node carries the span of the text it came from;
//! names, modifiers and types are spans into the source (no copies), so the AST of a
//! module is only valid together with the [`crate::Source`] it was parsed from.
//! Invariant: the AST is purely syntactic — nothing here is resolved or type checked;
//! that is `ptxvm-ir`'s job.

use crate::span::Span;

/// A parsed module: top-level items in source order.
#[derive(Debug, Clone, Default)]
pub struct Module {
    pub items: Vec<Item>,
}

/// A top-level item.
#[derive(Debug, Clone)]
pub enum Item {
    Directive(Directive),
    Var(VarDecl),
    Func(Box<Function>),
}

/// A directive other than a declaration: `.version`, `.target`, `.address_size`, `.file`,
/// `.loc`, `.pragma`, `.section`, `.alias`, and performance-tuning directives.
#[derive(Debug, Clone)]
pub struct Directive {
    /// The `.name` token.
    pub name: Span,
    pub args: Vec<DirArg>,
    /// For `.section`: the span of the braced contents, kept verbatim.
    pub body: Option<Span>,
    pub span: Span,
}

/// One argument of a directive.
#[derive(Debug, Clone)]
pub enum DirArg {
    /// A number or constant expression.
    Expr(Expr),
    /// A string literal (quotes included in the span).
    Str(Span),
    /// An identifier.
    Name(Span),
    /// A `.name` token.
    Dot(Span),
    /// A comma separating argument groups (kept so `.loc` extras print back faithfully).
    Comma(Span),
}

/// A variable, parameter or register declaration: `[link] .space [.align N] [.vN] .type`
/// followed by one or more declarators.
#[derive(Debug, Clone, Default)]
pub struct VarDecl {
    /// `.visible`, `.extern`, `.weak`, `.common`.
    pub linkage: Option<Span>,
    /// `.reg`, `.sreg`, `.const`, `.global`, `.local`, `.param`, `.shared`, `.tex` (with
    /// sub-qualifiers like `.shared::cta`, `.param::entry`).
    pub space: Option<Span>,
    /// `.align N` (span of the number).
    pub align: Option<(Span, Expr)>,
    /// `.v2`, `.v4`, `.v8`.
    pub vector: Option<Span>,
    /// The fundamental or opaque type.
    pub ty: Option<Span>,
    /// `.ptr` kernel parameter attribute with its optional space and alignment.
    pub ptr: Option<PtrAttr>,
    /// `.attribute(.managed)`, `.attribute(.unified(...))`: the inner tokens.
    pub attributes: Vec<Span>,
    /// Other `.x` tokens the parser did not place (reported by the checker).
    pub extra: Vec<Span>,
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

/// `.ptr [.space] [.align N]` on a kernel parameter.
#[derive(Debug, Clone)]
pub struct PtrAttr {
    pub span: Span,
    pub space: Option<Span>,
    pub align: Option<(Span, Expr)>,
}

/// One declared name with its array dimensions, parameterised count and initialiser.
#[derive(Debug, Clone)]
pub struct Declarator {
    pub name: Span,
    /// `%r<100>`: declares `%r0` .. `%r99`.
    pub range: Option<(Span, Expr)>,
    /// `[N]` or `[]` per dimension.
    pub dims: Vec<(Span, Option<Expr>)>,
    pub init: Option<Init>,
    pub span: Span,
}

/// An initialiser.
#[derive(Debug, Clone)]
pub enum Init {
    Expr(Expr),
    List(Span, Vec<Init>),
    /// `name = value` inside a sampler/texture initialiser.
    Named(Span, Box<Init>),
}

impl Init {
    pub fn span(&self) -> Span {
        match self {
            Init::Expr(e) => e.span(),
            Init::List(s, _) => *s,
            Init::Named(n, v) => n.to(v.span()),
        }
    }
}

/// `.entry` or `.func`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FuncKind {
    Entry,
    Func,
}

/// A kernel or function, declared or defined.
#[derive(Debug, Clone)]
pub struct Function {
    pub linkage: Option<Span>,
    pub kind: FuncKind,
    /// The `.entry`/`.func` token.
    pub kind_span: Span,
    /// Return parameters (`.func` only); `None` when there is no return list.
    pub rets: Option<Vec<VarDecl>>,
    pub name: Span,
    /// `None` when the parameter list is absent.
    pub params: Option<Vec<VarDecl>>,
    /// Directives between the signature and the body (`.maxntid`, `.noreturn`, `.pragma`...).
    pub directives: Vec<Directive>,
    /// `None` for a declaration (`;` instead of a body).
    pub body: Option<Block>,
    pub span: Span,
}

/// `{ statements }`.
#[derive(Debug, Clone, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

/// A statement of a function body.
#[derive(Debug, Clone)]
pub enum Stmt {
    Var(VarDecl),
    Label(Span),
    Instr(Instr),
    Block(Block),
    Directive(Directive),
    /// `name: .callprototype ...;`, `name: .branchtargets ...;`, `name: .calltargets ...;`
    Special(Special),
}

/// Labelled directives inside a body.
#[derive(Debug, Clone)]
pub struct Special {
    pub label: Span,
    /// The `.callprototype`/`.branchtargets`/`.calltargets` token.
    pub directive: Span,
    /// For `.callprototype`: return params (if any) and params; the name `_` stands for the
    /// function. For the others: empty.
    pub rets: Option<Vec<VarDecl>>,
    pub params: Option<Vec<VarDecl>>,
    /// `.noreturn` and friends after a prototype.
    pub attrs: Vec<Span>,
    /// For `.branchtargets`/`.calltargets`: the listed names.
    pub names: Vec<Span>,
    pub span: Span,
}

/// An instruction statement.
#[derive(Debug, Clone)]
pub struct Instr {
    /// `@p` / `@!p`: (negated, predicate name).
    pub guard: Option<(bool, Span)>,
    pub opcode: Span,
    /// Modifier tokens (`.s32`, `.rn`, `.shared::cta`) in order.
    pub mods: Vec<Span>,
    pub operands: Vec<Operand>,
    pub span: Span,
}

/// An instruction operand.
#[derive(Debug, Clone)]
pub enum Operand {
    /// A register, special register, variable, label or function name, with an optional
    /// component/selector written right after it (`%tid.x`, `%r1.b0`).
    Name { name: Span, comp: Option<Span> },
    /// A constant expression (or an expression involving a symbol, `sym+4`).
    Expr(Expr),
    /// `[expr]` or, for texture and surface instructions, `[a, b, {c}]`.
    Addr { span: Span, parts: Vec<Operand> },
    /// `{a, b, _, d}`.
    Vector { span: Span, elems: Vec<Operand> },
    /// `(a, b)` in a call.
    List { span: Span, elems: Vec<Operand> },
    /// `!p`.
    Not { span: Span, name: Span },
    /// `-%r1` or `-%r1.h0`: a negated register (the source negates of `vmad`).
    Neg {
        span: Span,
        name: Span,
        comp: Option<Span>,
    },
    /// `a|b`.
    Pair {
        span: Span,
        a: Box<Operand>,
        b: Box<Operand>,
    },
    /// `_`.
    Sink(Span),
}

impl Operand {
    pub fn span(&self) -> Span {
        match self {
            Operand::Name { name, comp } => comp.map_or(*name, |c| name.to(c)),
            Operand::Expr(e) => e.span(),
            Operand::Addr { span, .. }
            | Operand::Vector { span, .. }
            | Operand::List { span, .. }
            | Operand::Not { span, .. }
            | Operand::Neg { span, .. }
            | Operand::Pair { span, .. }
            | Operand::Sink(span) => *span,
        }
    }
}

/// Unary operators of constant expressions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
}

/// Binary operators of constant expressions (§4.5.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

impl BinOp {
    pub fn as_str(self) -> &'static str {
        use BinOp::*;
        match self {
            Mul => "*",
            Div => "/",
            Rem => "%",
            Add => "+",
            Sub => "-",
            Shl => "<<",
            Shr => ">>",
            Lt => "<",
            Gt => ">",
            Le => "<=",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            BitAnd => "&",
            BitXor => "^",
            BitOr => "|",
            And => "&&",
            Or => "||",
        }
    }
}

/// A constant expression.
#[derive(Debug, Clone)]
pub enum Expr {
    /// An integer literal: value (two's complement bits) and whether it is `.u64`-typed
    /// (`U` suffix, or too large for `.s64`).
    Int {
        span: Span,
        value: u64,
        unsigned: bool,
    },
    /// A floating-point literal as f64 bits; `single` for `0f` hex literals.
    Float {
        span: Span,
        bits: u64,
        single: bool,
    },
    /// A name (symbol, `WARP_SZ`, label).
    Name(Span),
    Unary {
        span: Span,
        op: UnOp,
        e: Box<Expr>,
    },
    Binary {
        span: Span,
        op: BinOp,
        l: Box<Expr>,
        r: Box<Expr>,
    },
    Cond {
        span: Span,
        c: Box<Expr>,
        t: Box<Expr>,
        f: Box<Expr>,
    },
    /// `generic(sym)` and other function-like forms in initialisers.
    Call {
        span: Span,
        name: Span,
        args: Vec<Expr>,
    },
    /// A parenthesised expression (kept so printing is faithful).
    Paren {
        span: Span,
        e: Box<Expr>,
    },
}

impl Expr {
    pub fn span(&self) -> Span {
        match self {
            Expr::Int { span, .. }
            | Expr::Float { span, .. }
            | Expr::Name(span)
            | Expr::Unary { span, .. }
            | Expr::Binary { span, .. }
            | Expr::Cond { span, .. }
            | Expr::Call { span, .. }
            | Expr::Paren { span, .. } => *span,
        }
    }
}
