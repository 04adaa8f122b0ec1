//! The PTX parser: recursive descent over the token vector from [`crate::lexer`], building
//! the [`crate::ast`]. Parsing never fails: syntax errors become diagnostics and the
//! parser resynchronises at the next statement (`;`, `}`) or top-level directive, so one
//! run reports every error.
//!
//! Instructions are parsed generically (`[@p] opcode{.mod} operand, ...;`); which
//! modifiers and operands an opcode takes is the instruction table's business
//! (`ptxvm-ir`), not the parser's.

use crate::ast::*;
use crate::diag::{DiagKind, Diagnostic};
use crate::lexer::{Tok, Token, lex};
use crate::span::Span;

/// Parses a preprocessed PTX text. Returns the module and every syntax diagnostic.
pub fn parse(src: &str) -> (Module, Vec<Diagnostic>) {
    let mut p = Parser {
        src,
        toks: lex(src),
        pos: 0,
        diags: Vec::new(),
        depth: 0,
        too_deep: false,
    };
    let m = p.module();
    (m, p.diags)
}

/// A parse failure that has already been reported.
struct Fail;
type PResult<T> = Result<T, Fail>;

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    diags: Vec<Diagnostic>,
    /// Current nesting: blocks, parentheses, unary operators, conditional expressions,
    /// initialiser braces, address and vector operands.
    depth: u32,
    /// Set once the nesting limit has been reported (one diagnostic per statement).
    too_deep: bool,
}

/// Deepest nesting the parser accepts (blocks, parentheses, unary operators, `?:`,
/// initialiser braces, bracketed operands). Deeper input is a syntax error, never a stack
/// overflow: every later stage (lowering, constant evaluation, printing) recurses over the
/// tree the parser built, so this bound is theirs too.
pub const MAX_NESTING: u32 = 256;

const LINKAGES: [&str; 4] = [".visible", ".extern", ".weak", ".common"];

/// Whether a `.x` token names a state space (with or without a `::` sub-qualifier).
pub fn is_space(t: &str) -> bool {
    let base = t.split("::").next().unwrap_or(t);
    matches!(
        base,
        ".reg" | ".sreg" | ".const" | ".global" | ".local" | ".param" | ".shared" | ".tex"
    )
}

/// Whether a `.x` token names a type usable in a declaration.
pub fn is_decl_type(t: &str) -> bool {
    matches!(
        t,
        ".b8"
            | ".b16"
            | ".b32"
            | ".b64"
            | ".b128"
            | ".u8"
            | ".u16"
            | ".u32"
            | ".u64"
            | ".s8"
            | ".s16"
            | ".s32"
            | ".s64"
            | ".f16"
            | ".f16x2"
            | ".f32"
            | ".f64"
            | ".bf16"
            | ".bf16x2"
            | ".tf32"
            | ".e4m3"
            | ".e5m2"
            | ".e4m3x2"
            | ".e5m2x2"
            | ".pred"
            | ".texref"
            | ".samplerref"
            | ".surfref"
            | ".u16x2"
            | ".s16x2"
            | ".f32x2"
    )
}

/// Directives that may follow a function signature.
fn is_func_directive(t: &str) -> bool {
    matches!(
        t,
        ".maxntid"
            | ".reqntid"
            | ".minnctapersm"
            | ".maxnctapersm"
            | ".maxnreg"
            | ".noreturn"
            | ".pragma"
            | ".reqnctapercluster"
            | ".explicitcluster"
            | ".maxclusterrank"
            | ".blocksareclusters"
            | ".abi_preserve"
            | ".abi_preserve_control"
    )
}

impl<'a> Parser<'a> {
    // ---------------------------------------------------------------- token helpers

    fn peek(&self) -> Tok {
        self.toks[self.pos].tok
    }

    fn peek_at(&self, n: usize) -> Tok {
        self.toks
            .get(self.pos + n)
            .map_or(Tok::Eof, |t: &Token| t.tok)
    }

    fn span(&self) -> Span {
        self.toks[self.pos].span
    }

    fn span_at(&self, n: usize) -> Span {
        self.toks
            .get(self.pos + n)
            .map_or(self.toks[self.toks.len() - 1].span, |t| t.span)
    }

    fn prev_span(&self) -> Span {
        self.toks[self.pos.saturating_sub(1)].span
    }

    fn text(&self, s: Span) -> &'a str {
        s.text(self.src)
    }

    fn peek_text(&self) -> &'a str {
        self.text(self.span())
    }

    fn bump(&mut self) -> Span {
        let s = self.span();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        s
    }

    fn eat(&mut self, t: Tok) -> Option<Span> {
        if self.peek() == t {
            Some(self.bump())
        } else {
            None
        }
    }

    fn describe(&self) -> String {
        match self.peek() {
            Tok::Eof => "end of file".to_string(),
            _ => format!("`{}`", self.peek_text()),
        }
    }

    #[cold]
    fn error(&mut self, span: Span, msg: impl Into<String>) -> Fail {
        self.diags
            .push(Diagnostic::error(DiagKind::Syntax, span, msg));
        Fail
    }

    /// Runs `f` one nesting level deeper; past [`MAX_NESTING`] it is a syntax error.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_NESTING {
            if !self.too_deep {
                self.too_deep = true;
                let sp = self.span();
                self.error(
                    sp,
                    format!(
                        "nesting deeper than {MAX_NESTING} levels (blocks, parentheses, unary operators, `?:`, braces or brackets): ptxvm's limit"
                    ),
                );
            }
            return Err(Fail);
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn expect(&mut self, t: Tok, what: &str) -> PResult<Span> {
        if let Some(s) = self.eat(t) {
            Ok(s)
        } else {
            let msg = format!("expected {what}, found {}", self.describe());
            // A missing terminator or closer is reported right after the previous token, on
            // its line, as rustc does.
            let sp = if matches!(
                t,
                Tok::Semi | Tok::RParen | Tok::RBracket | Tok::RBrace | Tok::Comma
            ) && self.pos > 0
            {
                let p = self.prev_span();
                Span {
                    start: p.end,
                    end: p.end,
                }
            } else {
                self.span()
            };
            Err(self.error(sp, msg))
        }
    }

    /// Skips to just after the next `;` at this nesting level, or to (not past) a `}`
    /// closing the current block.
    fn recover_stmt(&mut self) {
        self.too_deep = false;
        let mut depth = 0i32;
        loop {
            match self.peek() {
                Tok::Eof => return,
                Tok::Semi if depth <= 0 => {
                    self.bump();
                    return;
                }
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    if depth <= 0 {
                        return;
                    }
                    depth -= 1;
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips to the next token that can start a top-level item.
    fn recover_top(&mut self) {
        self.too_deep = false;
        let mut depth = 0i32;
        loop {
            match self.peek() {
                Tok::Eof => return,
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth -= 1;
                    if depth <= 0 {
                        self.bump();
                        return;
                    }
                }
                Tok::Semi if depth <= 0 => {
                    self.bump();
                    return;
                }
                Tok::Dot if depth <= 0 => {
                    let t = self.peek_text();
                    if t == ".entry" || t == ".func" || LINKAGES.contains(&t) || t == ".version" {
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    // ---------------------------------------------------------------- module level

    fn module(&mut self) -> Module {
        let mut items = Vec::new();
        while self.peek() != Tok::Eof {
            let start = self.pos;
            match self.item() {
                Ok(Some(it)) => items.push(it),
                Ok(None) => {}
                Err(Fail) => self.recover_top(),
            }
            if self.pos == start {
                // Guarantee progress on any input.
                self.bump();
            }
        }
        Module { items }
    }

    fn item(&mut self) -> PResult<Option<Item>> {
        match self.peek() {
            Tok::Dwarf => {
                self.bump();
                Ok(None)
            }
            Tok::Hash => {
                let sp = self.bump();
                self.diags.push(Diagnostic::error(
                    DiagKind::Preprocessor,
                    sp,
                    "unsupported preprocessor directive",
                ));
                Ok(None)
            }
            Tok::Dot => {
                let t = self.peek_text();
                match t {
                    ".version" | ".target" | ".address_size" | ".file" | ".loc" | ".pragma"
                    | ".section" | ".alias" => Ok(Some(Item::Directive(self.directive()?))),
                    ".entry" | ".func" => Ok(Some(Item::Func(Box::new(self.function(None)?)))),
                    _ if LINKAGES.contains(&t) => {
                        // A linkage may precede a function or a variable.
                        match self.peek_at(1) {
                            Tok::Dot
                                if matches!(self.text(self.span_at(1)), ".entry" | ".func") =>
                            {
                                let l = self.bump();
                                Ok(Some(Item::Func(Box::new(self.function(Some(l))?))))
                            }
                            _ => {
                                let d = self.var_decl()?;
                                self.expect(Tok::Semi, "`;` after a declaration")?;
                                Ok(Some(Item::Var(d)))
                            }
                        }
                    }
                    _ if is_space(t) || t == ".attribute" || t == ".align" => {
                        let d = self.var_decl()?;
                        self.expect(Tok::Semi, "`;` after a declaration")?;
                        Ok(Some(Item::Var(d)))
                    }
                    _ => {
                        let sp = self.span();
                        Err(self.error(sp, format!("unknown directive `{t}`")))
                    }
                }
            }
            _ => {
                let sp = self.span();
                let msg = format!(
                    "expected a directive or declaration, found {}",
                    self.describe()
                );
                Err(self.error(sp, msg))
            }
        }
    }

    /// Parses a non-declaration directive starting at its `.name` token.
    fn directive(&mut self) -> PResult<Directive> {
        let name = self.bump();
        let n = self.text(name);
        let mut args = Vec::new();
        let mut body = None;
        match n {
            ".version" => {
                let sp = self.span();
                match self.peek() {
                    Tok::DecFloat if self.peek_text().contains('.') => {
                        let e = self.expr_primary()?;
                        args.push(DirArg::Expr(e));
                    }
                    _ => return Err(self.error(sp, "expected a version number like `8.0`")),
                }
            }
            ".target" => loop {
                let s = self.expect(Tok::Ident, "a target name like `sm_80`")?;
                args.push(DirArg::Name(s));
                if let Some(c) = self.eat(Tok::Comma) {
                    args.push(DirArg::Comma(c));
                } else {
                    break;
                }
            },
            ".address_size" | ".maxnreg" | ".minnctapersm" | ".maxnctapersm"
            | ".maxclusterrank" | ".maxntid" | ".reqntid" | ".reqnctapercluster" => loop {
                let e = self.expr_primary()?;
                args.push(DirArg::Expr(e));
                if let Some(c) = self.eat(Tok::Comma) {
                    args.push(DirArg::Comma(c));
                } else {
                    break;
                }
            },
            ".noreturn" | ".explicitcluster" | ".blocksareclusters" => {}
            ".abi_preserve" | ".abi_preserve_control" => {
                let e = self.expr_primary()?;
                args.push(DirArg::Expr(e));
            }
            ".file" => {
                let e = self.expr_primary()?;
                args.push(DirArg::Expr(e));
                let s = self.expect(Tok::Str, "a file name string")?;
                args.push(DirArg::Str(s));
                while let Some(c) = self.eat(Tok::Comma) {
                    args.push(DirArg::Comma(c));
                    let e = self.expr_primary()?;
                    args.push(DirArg::Expr(e));
                }
            }
            ".loc" => {
                for _ in 0..3 {
                    let e = self.expr_primary()?;
                    args.push(DirArg::Expr(e));
                }
                // `, function_name $L__info_string0, inlined_at 1 2 3`
                while let Some(c) = self.eat(Tok::Comma) {
                    args.push(DirArg::Comma(c));
                    let s = self.expect(Tok::Ident, "a `.loc` attribute name")?;
                    args.push(DirArg::Name(s));
                    if self.text(s) == "function_name" {
                        let f = self.expect(Tok::Ident, "a function-name label")?;
                        args.push(DirArg::Name(f));
                    } else {
                        while matches!(self.peek(), Tok::Dec | Tok::Hex | Tok::Oct | Tok::Bin) {
                            let e = self.expr_primary()?;
                            args.push(DirArg::Expr(e));
                        }
                    }
                }
            }
            ".pragma" => {
                loop {
                    let s = self.expect(Tok::Str, "a pragma string")?;
                    args.push(DirArg::Str(s));
                    if let Some(c) = self.eat(Tok::Comma) {
                        args.push(DirArg::Comma(c));
                    } else {
                        break;
                    }
                }
                self.expect(Tok::Semi, "`;` after `.pragma`")?;
            }
            ".alias" => {
                let a = self.expect(Tok::Ident, "an alias name")?;
                args.push(DirArg::Name(a));
                let c = self.expect(Tok::Comma, "`,`")?;
                args.push(DirArg::Comma(c));
                let b = self.expect(Tok::Ident, "the aliased function name")?;
                args.push(DirArg::Name(b));
                self.expect(Tok::Semi, "`;` after `.alias`")?;
            }
            ".section" => {
                let s = self.expect(Tok::Dot, "a section name like `.debug_info`")?;
                args.push(DirArg::Dot(s));
                let open = self.expect(Tok::LBrace, "`{` opening the section")?;
                let mut depth = 1;
                let mut end = open;
                while depth > 0 {
                    match self.peek() {
                        Tok::Eof => {
                            return Err(self.error(open, "unterminated `.section`: missing `}`"));
                        }
                        Tok::LBrace => depth += 1,
                        Tok::RBrace => depth -= 1,
                        _ => {}
                    }
                    end = self.bump();
                }
                body = Some(open.to(end));
            }
            _ => {
                return Err(self.error(name, format!("unknown directive `{n}`")));
            }
        }
        let span = name.to(self.prev_span());
        Ok(Directive {
            name,
            args,
            body,
            span,
        })
    }

    // ---------------------------------------------------------------- declarations

    /// Parses the `.x` specifiers of a declaration, then its declarators (several when
    /// `multi`), stopping before `;`, `,` or `)`.
    fn decl_specs(&mut self) -> PResult<VarDecl> {
        let start = self.span();
        let mut d = VarDecl {
            span: start,
            ..VarDecl::default()
        };
        while self.peek() == Tok::Dot {
            let s = self.span();
            let t = self.text(s);
            if LINKAGES.contains(&t) && d.linkage.is_none() && d.space.is_none() {
                d.linkage = Some(self.bump());
            } else if is_space(t) && d.space.is_none() {
                d.space = Some(self.bump());
            } else if t == ".align" {
                self.bump();
                let e = self.expr_primary()?;
                if d.ptr.is_some() {
                    if let Some(p) = d.ptr.as_mut() {
                        p.align = Some((s, e));
                    }
                } else {
                    d.align = Some((s, e));
                }
            } else if t == ".ptr" {
                self.bump();
                d.ptr = Some(PtrAttr {
                    span: s,
                    space: None,
                    align: None,
                });
            } else if is_space(t) && d.ptr.as_ref().is_some_and(|p| p.space.is_none()) {
                self.bump();
                if let Some(p) = d.ptr.as_mut() {
                    p.space = Some(s);
                }
            } else if t == ".attribute" {
                self.bump();
                self.expect(Tok::LParen, "`(` after `.attribute`")?;
                let mut depth = 1;
                while depth > 0 {
                    match self.peek() {
                        Tok::Eof => return Err(self.error(s, "unterminated `.attribute(`")),
                        Tok::LParen => depth += 1,
                        Tok::RParen => depth -= 1,
                        _ => {}
                    }
                    let x = self.bump();
                    if depth > 0 {
                        d.attributes.push(x);
                    }
                }
            } else if t.len() > 2
                && t.starts_with(".v")
                && t[2..].bytes().all(|b| b.is_ascii_digit())
            {
                if d.vector.is_some() {
                    d.extra.push(self.bump());
                } else {
                    d.vector = Some(self.bump());
                }
            } else if d.ty.is_none() && is_decl_type(t) {
                d.ty = Some(self.bump());
            } else {
                d.extra.push(self.bump());
            }
        }
        Ok(d)
    }

    fn declarator(&mut self) -> PResult<Declarator> {
        let name = match self.peek() {
            Tok::Ident | Tok::Underscore => self.bump(),
            _ => {
                let sp = self.span();
                let msg = format!(
                    "expected a name in a declaration, found {}",
                    self.describe()
                );
                return Err(self.error(sp, msg));
            }
        };
        let mut dcl = Declarator {
            name,
            range: None,
            dims: Vec::new(),
            init: None,
            span: name,
        };
        if self.peek() == Tok::Lt {
            let lt = self.bump();
            let e = self.expr_primary()?;
            let gt = self.expect(Tok::Gt, "`>` closing a parameterised register count")?;
            dcl.range = Some((lt.to(gt), e));
        }
        while self.peek() == Tok::LBracket {
            let lb = self.bump();
            if let Some(rb) = self.eat(Tok::RBracket) {
                dcl.dims.push((lb.to(rb), None));
            } else {
                let e = self.expr()?;
                let rb = self.expect(Tok::RBracket, "`]` closing an array dimension")?;
                dcl.dims.push((lb.to(rb), Some(e)));
            }
        }
        if self.eat(Tok::Eq).is_some() {
            dcl.init = Some(self.init()?);
        }
        dcl.span = name.to(self.prev_span());
        Ok(dcl)
    }

    fn init(&mut self) -> PResult<Init> {
        self.nested(Self::init_inner)
    }

    fn init_inner(&mut self) -> PResult<Init> {
        if self.peek() == Tok::LBrace {
            let lb = self.bump();
            let mut elems = Vec::new();
            if self.peek() != Tok::RBrace {
                loop {
                    elems.push(self.init()?);
                    if self.eat(Tok::Comma).is_none() {
                        break;
                    }
                }
            }
            let rb = self.expect(Tok::RBrace, "`}` closing an initialiser list")?;
            return Ok(Init::List(lb.to(rb), elems));
        }
        if self.peek() == Tok::Ident && self.peek_at(1) == Tok::Eq {
            let n = self.bump();
            self.bump();
            let v = self.init()?;
            return Ok(Init::Named(n, Box::new(v)));
        }
        Ok(Init::Expr(self.expr()?))
    }

    /// A full declaration with one or more declarators (no trailing `;`).
    fn var_decl(&mut self) -> PResult<VarDecl> {
        let mut d = self.decl_specs()?;
        loop {
            d.declarators.push(self.declarator()?);
            if self.eat(Tok::Comma).is_none() {
                break;
            }
        }
        d.span = d.span.to(self.prev_span());
        Ok(d)
    }

    /// `( decl, decl )` parameter list of a function or prototype.
    fn param_list(&mut self) -> PResult<Vec<VarDecl>> {
        self.expect(Tok::LParen, "`(`")?;
        let mut v = Vec::new();
        if self.eat(Tok::RParen).is_some() {
            return Ok(v);
        }
        loop {
            let mut d = self.decl_specs()?;
            d.declarators.push(self.declarator()?);
            d.span = d.span.to(self.prev_span());
            v.push(d);
            if self.eat(Tok::Comma).is_none() {
                break;
            }
        }
        self.expect(Tok::RParen, "`)` closing the parameter list")?;
        Ok(v)
    }

    // ---------------------------------------------------------------- functions

    fn function(&mut self, linkage: Option<Span>) -> PResult<Function> {
        let kind_span = self.bump();
        let kind = if self.text(kind_span) == ".entry" {
            FuncKind::Entry
        } else {
            FuncKind::Func
        };
        let mut rets = None;
        if kind == FuncKind::Func && self.peek() == Tok::LParen {
            rets = Some(self.param_list()?);
        }
        let name = self.expect(Tok::Ident, "a function name")?;
        let mut params = None;
        if self.peek() == Tok::LParen {
            params = Some(self.param_list()?);
        }
        let mut directives = Vec::new();
        while self.peek() == Tok::Dot && is_func_directive(self.peek_text()) {
            directives.push(self.directive()?);
        }
        let body = match self.peek() {
            Tok::LBrace => Some(self.block()),
            Tok::Semi => {
                self.bump();
                None
            }
            _ => {
                let sp = self.span();
                let msg = format!(
                    "expected `{{` or `;` after the function signature, found {}",
                    self.describe()
                );
                return Err(self.error(sp, msg));
            }
        };
        let start = linkage.unwrap_or(kind_span);
        Ok(Function {
            linkage,
            kind,
            kind_span,
            rets,
            name,
            params,
            directives,
            body,
            span: start.to(self.prev_span()),
        })
    }

    /// `{ stmts }`; never fails (errors inside are recovered).
    fn block(&mut self) -> Block {
        let lb = self.bump();
        let mut stmts = Vec::new();
        loop {
            match self.peek() {
                Tok::RBrace => {
                    let rb = self.bump();
                    return Block {
                        stmts,
                        span: lb.to(rb),
                    };
                }
                Tok::Eof => {
                    self.diags.push(Diagnostic::error(
                        DiagKind::Syntax,
                        lb,
                        "unclosed `{`: the function body has no closing `}`",
                    ));
                    return Block {
                        stmts,
                        span: lb.to(self.span()),
                    };
                }
                _ => {
                    let start = self.pos;
                    match self.stmt() {
                        Ok(Some(s)) => stmts.push(s),
                        Ok(None) => {}
                        Err(Fail) => self.recover_stmt(),
                    }
                    if self.pos == start {
                        self.bump();
                    }
                }
            }
        }
    }

    fn stmt(&mut self) -> PResult<Option<Stmt>> {
        match self.peek() {
            Tok::LBrace => Ok(Some(Stmt::Block(self.nested(|p| Ok(p.block()))?))),
            Tok::Dwarf => {
                self.bump();
                Ok(None)
            }
            Tok::Hash => {
                let sp = self.bump();
                self.diags.push(Diagnostic::error(
                    DiagKind::Preprocessor,
                    sp,
                    "unsupported preprocessor directive",
                ));
                Ok(None)
            }
            Tok::Dot => {
                let t = self.peek_text();
                if is_space(t) || t == ".align" || LINKAGES.contains(&t) {
                    let d = self.var_decl()?;
                    self.expect(Tok::Semi, "`;` after a declaration")?;
                    Ok(Some(Stmt::Var(d)))
                } else if matches!(t, ".loc" | ".pragma" | ".file" | ".section") {
                    Ok(Some(Stmt::Directive(self.directive()?)))
                } else {
                    let sp = self.span();
                    Err(self.error(sp, format!("unexpected directive `{t}` in a function body")))
                }
            }
            Tok::Ident | Tok::Underscore if self.peek_at(1) == Tok::Colon => {
                let label = self.bump();
                self.bump();
                if self.peek() == Tok::Dot
                    && matches!(
                        self.peek_text(),
                        ".callprototype" | ".branchtargets" | ".calltargets"
                    )
                {
                    return Ok(Some(Stmt::Special(self.special(label)?)));
                }
                Ok(Some(Stmt::Label(label)))
            }
            Tok::At | Tok::Ident => Ok(Some(Stmt::Instr(self.instr()?))),
            _ => {
                let sp = self.span();
                let msg = format!(
                    "expected an instruction, label or declaration, found {}",
                    self.describe()
                );
                Err(self.error(sp, msg))
            }
        }
    }

    fn special(&mut self, label: Span) -> PResult<Special> {
        let directive = self.bump();
        let mut sp = Special {
            label,
            directive,
            rets: None,
            params: None,
            attrs: Vec::new(),
            names: Vec::new(),
            span: label,
        };
        if self.text(directive) == ".callprototype" {
            // `.callprototype [(rets)] _ (params) [.noreturn];`
            if self.peek() == Tok::LParen {
                sp.rets = Some(self.param_list()?);
            }
            match self.peek() {
                Tok::Underscore | Tok::Ident => {
                    self.bump();
                }
                _ => {
                    let s = self.span();
                    return Err(self.error(s, "expected `_` in a `.callprototype`"));
                }
            }
            if self.peek() == Tok::LParen {
                sp.params = Some(self.param_list()?);
            }
            while self.peek() == Tok::Dot {
                sp.attrs.push(self.bump());
            }
        } else {
            loop {
                sp.names
                    .push(self.expect(Tok::Ident, "a label or function name")?);
                if self.eat(Tok::Comma).is_none() {
                    break;
                }
            }
        }
        self.expect(Tok::Semi, "`;`")?;
        sp.span = label.to(self.prev_span());
        Ok(sp)
    }

    // ---------------------------------------------------------------- instructions

    fn instr(&mut self) -> PResult<Instr> {
        let start = self.span();
        let mut guard = None;
        if self.eat(Tok::At).is_some() {
            let neg = self.eat(Tok::Bang).is_some();
            let p = self.expect(Tok::Ident, "a predicate register after `@`")?;
            guard = Some((neg, p));
        }
        let opcode = self.expect(Tok::Ident, "an instruction opcode")?;
        let mut mods = Vec::new();
        while self.peek() == Tok::Dot {
            mods.push(self.bump());
        }
        let is_call = self.text(opcode) == "call";
        let mut operands = Vec::new();
        if self.peek() != Tok::Semi {
            loop {
                operands.push(self.operand(is_call)?);
                if self.eat(Tok::Comma).is_none() {
                    break;
                }
            }
        }
        self.expect(Tok::Semi, "`;` or `,` after an operand")?;
        Ok(Instr {
            guard,
            opcode,
            mods,
            operands,
            span: start.to(self.prev_span()),
        })
    }

    fn operand_list(
        &mut self,
        close: Tok,
        what: &str,
        is_call: bool,
    ) -> PResult<(Vec<Operand>, Span)> {
        let mut elems = Vec::new();
        if let Some(c) = self.eat(close) {
            return Ok((elems, c));
        }
        loop {
            elems.push(self.operand(is_call)?);
            if self.eat(Tok::Comma).is_none() {
                break;
            }
        }
        let c = self.expect(close, what)?;
        Ok((elems, c))
    }

    fn operand(&mut self, is_call: bool) -> PResult<Operand> {
        self.nested(|p| p.operand_inner(is_call))
    }

    fn operand_inner(&mut self, is_call: bool) -> PResult<Operand> {
        let first = match self.peek() {
            Tok::LBracket => {
                let lb = self.bump();
                let (parts, rb) =
                    self.operand_list(Tok::RBracket, "`]` closing an address", false)?;
                if parts.is_empty() {
                    return Err(self.error(lb.to(rb), "empty address operand `[]`"));
                }
                return Ok(Operand::Addr {
                    span: lb.to(rb),
                    parts,
                });
            }
            Tok::LBrace => {
                let lb = self.bump();
                let (elems, rb) =
                    self.operand_list(Tok::RBrace, "`}` closing a vector operand", false)?;
                Operand::Vector {
                    span: lb.to(rb),
                    elems,
                }
            }
            Tok::LParen if is_call => {
                let lp = self.bump();
                let (elems, rp) =
                    self.operand_list(Tok::RParen, "`)` closing a call list", false)?;
                return Ok(Operand::List {
                    span: lp.to(rp),
                    elems,
                });
            }
            Tok::Bang if self.peek_at(1) == Tok::Ident => {
                let b = self.bump();
                let n = self.bump();
                return Ok(Operand::Not {
                    span: b.to(n),
                    name: n,
                });
            }
            // `-%r1{.sel}` not followed by more expression: a negated register operand.
            Tok::Minus
                if self.peek_at(1) == Tok::Ident
                    && self.text(self.span_at(1)).starts_with('%')
                    && self.span_at(1).start == self.span().end =>
            {
                let m = self.bump();
                let name = self.bump();
                let mut comp = None;
                if self.peek() == Tok::Dot && self.span().start == name.end {
                    comp = Some(self.bump());
                }
                if comp.is_none() && is_binop_start(self.peek()) {
                    // `-%x + 1`: an ordinary expression after all.
                    self.pos -= 2;
                    Operand::Expr(self.expr()?)
                } else {
                    let span = m.to(comp.unwrap_or(name));
                    Operand::Neg { span, name, comp }
                }
            }
            Tok::Underscore => Operand::Sink(self.bump()),
            Tok::Ident if self.peek_text() == "WARP_SZ" => Operand::Expr(self.expr()?),
            Tok::Ident => {
                let name = self.bump();
                if self.peek() == Tok::LParen {
                    // `generic(sym)` and friends: an expression.
                    self.pos -= 1;
                    Operand::Expr(self.expr()?)
                } else {
                    let mut comp = None;
                    if self.peek() == Tok::Dot && self.span().start == name.end {
                        comp = Some(self.bump());
                    }
                    if comp.is_none() && is_binop_start(self.peek()) {
                        let l = Expr::Name(name);
                        Operand::Expr(self.expr_bin(l, 0)?)
                    } else {
                        Operand::Name { name, comp }
                    }
                }
            }
            Tok::Dec
            | Tok::Hex
            | Tok::Oct
            | Tok::Bin
            | Tok::HexFloat
            | Tok::DecFloat
            | Tok::Minus
            | Tok::Plus
            | Tok::Tilde
            | Tok::Bang
            | Tok::LParen => Operand::Expr(self.expr()?),
            _ => {
                let sp = self.span();
                let msg = format!("expected an operand, found {}", self.describe());
                return Err(self.error(sp, msg));
            }
        };
        // `p|q`, and `{d0, ..}|p` (the destination and residency predicate of `tex`/`tld4`).
        if matches!(
            first,
            Operand::Name { .. } | Operand::Sink(_) | Operand::Vector { .. }
        ) && self.peek() == Tok::Pipe
        {
            self.bump();
            let b = self.operand(false)?;
            let span = first.span().to(b.span());
            return Ok(Operand::Pair {
                span,
                a: Box::new(first),
                b: Box::new(b),
            });
        }
        Ok(first)
    }

    // ---------------------------------------------------------------- constant expressions

    /// A full constant expression (§4.5.4), including `?:`.
    fn expr(&mut self) -> PResult<Expr> {
        self.nested(Self::expr_inner)
    }

    fn expr_inner(&mut self) -> PResult<Expr> {
        let l = self.expr_unary()?;
        let c = self.expr_bin(l, 0)?;
        if self.peek() == Tok::Question {
            self.bump();
            let t = self.expr()?;
            self.expect(Tok::Colon, "`:` in a conditional expression")?;
            let f = self.expr()?;
            let span = c.span().to(f.span());
            return Ok(Expr::Cond {
                span,
                c: Box::new(c),
                t: Box::new(t),
                f: Box::new(f),
            });
        }
        Ok(c)
    }

    /// Precedence climbing from an already-parsed left operand.
    fn expr_bin(&mut self, mut l: Expr, min_prec: u8) -> PResult<Expr> {
        while let Some((op, prec)) = binop(self.peek()) {
            if prec < min_prec {
                break;
            }
            self.bump();
            let mut r = self.expr_unary()?;
            while let Some((_, p2)) = binop(self.peek()) {
                if p2 <= prec {
                    break;
                }
                r = self.expr_bin(r, p2)?;
            }
            let span = l.span().to(r.span());
            l = Expr::Binary {
                span,
                op,
                l: Box::new(l),
                r: Box::new(r),
            };
        }
        Ok(l)
    }

    fn expr_unary(&mut self) -> PResult<Expr> {
        let op = match self.peek() {
            Tok::Minus => UnOp::Neg,
            Tok::Plus => UnOp::Plus,
            Tok::Bang => UnOp::Not,
            Tok::Tilde => UnOp::BitNot,
            _ => return self.expr_primary(),
        };
        let s = self.bump();
        let e = self.nested(Self::expr_unary)?;
        Ok(Expr::Unary {
            span: s.to(e.span()),
            op,
            e: Box::new(e),
        })
    }

    fn expr_primary(&mut self) -> PResult<Expr> {
        let s = self.span();
        let t = self.text(s);
        match self.peek() {
            Tok::Dec | Tok::Hex | Tok::Oct | Tok::Bin => {
                self.bump();
                let unsigned_suffix = t.ends_with('U');
                let digits = t.trim_end_matches('U');
                let parsed = if let Some(h) = digits
                    .strip_prefix("0x")
                    .or_else(|| digits.strip_prefix("0X"))
                {
                    u64::from_str_radix(h, 16)
                } else if let Some(b) = digits
                    .strip_prefix("0b")
                    .or_else(|| digits.strip_prefix("0B"))
                {
                    u64::from_str_radix(b, 2)
                } else if digits.len() > 1 && digits.starts_with('0') {
                    u64::from_str_radix(&digits[1..], 8)
                } else {
                    digits.parse::<u64>()
                };
                match parsed {
                    Ok(value) => Ok(Expr::Int {
                        span: s,
                        value,
                        unsigned: unsigned_suffix || value > i64::MAX as u64,
                    }),
                    Err(_) => {
                        Err(self
                            .error(s, format!("integer constant `{t}` does not fit in 64 bits")))
                    }
                }
            }
            Tok::HexFloat => {
                self.bump();
                let single = matches!(t.as_bytes()[1], b'f' | b'F');
                let digits = &t[2..];
                let want = if single { 8 } else { 16 };
                if digits.len() != want {
                    return Err(self.error(
                        s,
                        format!(
                            "`{t}`: a `0{}` floating-point constant needs exactly {want} hex digits, found {}",
                            if single { 'f' } else { 'd' },
                            digits.len()
                        ),
                    ));
                }
                let raw = u64::from_str_radix(digits, 16).unwrap_or(0);
                let bits = if single {
                    (f32::from_bits(raw as u32) as f64).to_bits()
                } else {
                    raw
                };
                Ok(Expr::Float {
                    span: s,
                    bits,
                    single,
                })
            }
            Tok::DecFloat => {
                self.bump();
                match t.parse::<f64>() {
                    Ok(v) => Ok(Expr::Float {
                        span: s,
                        bits: v.to_bits(),
                        single: false,
                    }),
                    Err(_) => {
                        Err(self.error(s, format!("malformed floating-point constant `{t}`")))
                    }
                }
            }
            Tok::Ident if t == "WARP_SZ" => {
                self.bump();
                Ok(Expr::Int {
                    span: s,
                    value: 32,
                    unsigned: false,
                })
            }
            Tok::Ident => {
                self.bump();
                if self.peek() == Tok::LParen {
                    self.bump();
                    let mut args = Vec::new();
                    if self.peek() != Tok::RParen {
                        loop {
                            args.push(self.expr()?);
                            if self.eat(Tok::Comma).is_none() {
                                break;
                            }
                        }
                    }
                    let rp = self.expect(Tok::RParen, "`)`")?;
                    return Ok(Expr::Call {
                        span: s.to(rp),
                        name: s,
                        args,
                    });
                }
                Ok(Expr::Name(s))
            }
            Tok::LParen => {
                self.bump();
                let e = self.expr()?;
                let rp = self.expect(Tok::RParen, "`)` closing a parenthesised expression")?;
                Ok(Expr::Paren {
                    span: s.to(rp),
                    e: Box::new(e),
                })
            }
            _ => {
                let msg = format!("expected a constant, found {}", self.describe());
                Err(self.error(s, msg))
            }
        }
    }
}

fn is_binop_start(t: Tok) -> bool {
    binop(t).is_some() && t != Tok::Pipe
}

/// Binary operator and precedence (higher binds tighter), per C as §4.5.4 says.
fn binop(t: Tok) -> Option<(BinOp, u8)> {
    Some(match t {
        Tok::Star => (BinOp::Mul, 10),
        Tok::Slash => (BinOp::Div, 10),
        Tok::Percent => (BinOp::Rem, 10),
        Tok::Plus => (BinOp::Add, 9),
        Tok::Minus => (BinOp::Sub, 9),
        Tok::Shl => (BinOp::Shl, 8),
        Tok::Shr => (BinOp::Shr, 8),
        Tok::Lt => (BinOp::Lt, 7),
        Tok::Gt => (BinOp::Gt, 7),
        Tok::Le => (BinOp::Le, 7),
        Tok::Ge => (BinOp::Ge, 7),
        Tok::EqEq => (BinOp::Eq, 6),
        Tok::Ne => (BinOp::Ne, 6),
        Tok::Amp => (BinOp::BitAnd, 5),
        Tok::Caret => (BinOp::BitXor, 4),
        Tok::Pipe => (BinOp::BitOr, 3),
        Tok::AndAnd => (BinOp::And, 2),
        Tok::OrOr => (BinOp::Or, 1),
        _ => return None,
    })
}
