//! The canonical printer: renders an AST back to PTX text in one fixed layout (one
//! statement per line, tab indentation, `op, op` spacing). Literals and names are printed
//! exactly as written, so re-parsing the output gives the same module.
//! Invariant: `parse(print(parse(x)))` has the same structure as `parse(x)`.

use crate::ast::*;
use std::fmt::Write;

/// Prints a module in canonical form.
pub fn print(m: &Module, src: &str) -> String {
    let mut p = Printer {
        src,
        out: String::with_capacity(src.len()),
    };
    let mut prev_fn = false;
    for it in &m.items {
        match it {
            Item::Directive(d) => {
                if prev_fn {
                    p.out.push('\n');
                }
                p.directive(d);
                p.out.push('\n');
                prev_fn = false;
            }
            Item::Var(v) => {
                if prev_fn {
                    p.out.push('\n');
                }
                p.var_decl(v);
                p.out.push_str(";\n");
                prev_fn = false;
            }
            Item::Func(f) => {
                p.out.push('\n');
                p.function(f);
                prev_fn = true;
            }
        }
    }
    p.out
}

struct Printer<'a> {
    src: &'a str,
    out: String,
}

impl Printer<'_> {
    fn t(&mut self, s: crate::Span) {
        let text = s.text(self.src);
        self.out.push_str(text);
    }

    fn directive(&mut self, d: &Directive) {
        self.t(d.name);
        for a in &d.args {
            match a {
                DirArg::Comma(_) => {
                    self.out.push(',');
                    continue;
                }
                _ => self.out.push(' '),
            }
            match a {
                DirArg::Expr(e) => self.expr(e),
                DirArg::Str(s) | DirArg::Name(s) | DirArg::Dot(s) => self.t(*s),
                DirArg::Comma(_) => {}
            }
        }
        if let Some(b) = d.body {
            self.out.push(' ');
            self.t(b);
        }
        let name = d.name.text(self.src);
        if matches!(name, ".pragma" | ".alias") {
            self.out.push(';');
        }
    }

    fn var_decl(&mut self, v: &VarDecl) {
        let mut parts: Vec<crate::Span> = Vec::new();
        parts.extend(v.linkage);
        if !v.attributes.is_empty() {
            self.out.push_str(".attribute(");
            for a in &v.attributes {
                self.t(*a);
            }
            self.out.push_str(") ");
        }
        parts.extend(v.space);
        for s in parts {
            self.t(s);
            self.out.push(' ');
        }
        if let Some((_, e)) = &v.align {
            self.out.push_str(".align ");
            self.expr(e);
            self.out.push(' ');
        }
        if let Some(s) = v.vector {
            self.t(s);
            self.out.push(' ');
        }
        if let Some(s) = v.ty {
            self.t(s);
            self.out.push(' ');
        }
        for s in &v.extra {
            self.t(*s);
            self.out.push(' ');
        }
        if let Some(p) = &v.ptr {
            self.out.push_str(".ptr ");
            if let Some(s) = p.space {
                self.t(s);
                self.out.push(' ');
            }
            if let Some((_, e)) = &p.align {
                self.out.push_str(".align ");
                self.expr(e);
                self.out.push(' ');
            }
        }
        for (i, d) in v.declarators.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.t(d.name);
            if let Some((_, e)) = &d.range {
                self.out.push('<');
                self.expr(e);
                self.out.push('>');
            }
            for (_, dim) in &d.dims {
                self.out.push('[');
                if let Some(e) = dim {
                    self.expr(e);
                }
                self.out.push(']');
            }
            if let Some(init) = &d.init {
                self.out.push_str(" = ");
                self.init(init);
            }
        }
    }

    fn init(&mut self, i: &Init) {
        match i {
            Init::Expr(e) => self.expr(e),
            Init::List(_, v) => {
                self.out.push('{');
                for (k, e) in v.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(", ");
                    }
                    self.init(e);
                }
                self.out.push('}');
            }
            Init::Named(n, v) => {
                self.t(*n);
                self.out.push_str(" = ");
                self.init(v);
            }
        }
    }

    fn params(&mut self, ps: &[VarDecl], multiline: bool) {
        self.out.push('(');
        for (i, p) in ps.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            if multiline {
                self.out.push_str("\n\t");
            } else if i > 0 {
                self.out.push(' ');
            }
            self.var_decl(p);
        }
        if multiline && !ps.is_empty() {
            self.out.push('\n');
        }
        self.out.push(')');
    }

    fn function(&mut self, f: &Function) {
        if let Some(l) = f.linkage {
            self.t(l);
            self.out.push(' ');
        }
        self.t(f.kind_span);
        self.out.push(' ');
        if let Some(r) = &f.rets {
            self.params(r, false);
            self.out.push(' ');
        }
        self.t(f.name);
        if let Some(ps) = &f.params {
            self.params(ps, true);
        }
        for d in &f.directives {
            self.out.push('\n');
            self.directive(d);
        }
        match &f.body {
            None => self.out.push_str(";\n"),
            Some(b) => {
                self.out.push('\n');
                self.block(b, 0);
                self.out.push('\n');
            }
        }
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push('\t');
        }
    }

    fn block(&mut self, b: &Block, depth: usize) {
        self.indent(depth);
        self.out.push_str("{\n");
        for s in &b.stmts {
            match s {
                Stmt::Label(l) => {
                    self.t(*l);
                    self.out.push_str(":\n");
                }
                Stmt::Var(v) => {
                    self.indent(depth + 1);
                    self.var_decl(v);
                    self.out.push_str(";\n");
                }
                Stmt::Directive(d) => {
                    self.indent(depth + 1);
                    self.directive(d);
                    self.out.push('\n');
                }
                Stmt::Block(inner) => {
                    self.block(inner, depth + 1);
                    self.out.push('\n');
                }
                Stmt::Instr(i) => {
                    self.indent(depth + 1);
                    self.instr(i);
                    self.out.push('\n');
                }
                Stmt::Special(sp) => {
                    self.t(sp.label);
                    self.out.push_str(": ");
                    self.t(sp.directive);
                    if let Some(r) = &sp.rets {
                        self.out.push(' ');
                        self.params(r, false);
                    }
                    if sp.rets.is_some() || sp.params.is_some() {
                        self.out.push_str(" _ ");
                    }
                    if let Some(p) = &sp.params {
                        self.params(p, false);
                    }
                    for a in &sp.attrs {
                        self.out.push(' ');
                        self.t(*a);
                    }
                    for (k, n) in sp.names.iter().enumerate() {
                        self.out.push_str(if k == 0 { " " } else { ", " });
                        self.t(*n);
                    }
                    self.out.push_str(";\n");
                }
            }
        }
        self.indent(depth);
        self.out.push('}');
    }

    fn instr(&mut self, i: &Instr) {
        if let Some((neg, p)) = i.guard {
            self.out.push('@');
            if neg {
                self.out.push('!');
            }
            self.t(p);
            self.out.push(' ');
        }
        self.t(i.opcode);
        for m in &i.mods {
            self.t(*m);
        }
        for (k, o) in i.operands.iter().enumerate() {
            self.out.push_str(if k == 0 { " \t" } else { ", " });
            self.operand(o);
        }
        self.out.push(';');
    }

    fn operand(&mut self, o: &Operand) {
        match o {
            Operand::Name { name, comp } => {
                self.t(*name);
                if let Some(c) = comp {
                    self.t(*c);
                }
            }
            Operand::Expr(e) => self.expr(e),
            Operand::Addr { parts, .. } => {
                self.out.push('[');
                self.list(parts);
                self.out.push(']');
            }
            Operand::Vector { elems, .. } => {
                self.out.push('{');
                self.list(elems);
                self.out.push('}');
            }
            Operand::List { elems, .. } => {
                self.out.push('(');
                self.list(elems);
                self.out.push(')');
            }
            Operand::Not { name, .. } => {
                self.out.push('!');
                self.t(*name);
            }
            Operand::Neg { name, comp, .. } => {
                self.out.push('-');
                self.t(*name);
                if let Some(c) = comp {
                    self.t(*c);
                }
            }
            Operand::Pair { a, b, .. } => {
                self.operand(a);
                self.out.push('|');
                self.operand(b);
            }
            Operand::Sink(_) => self.out.push('_'),
        }
    }

    fn list(&mut self, v: &[Operand]) {
        for (k, o) in v.iter().enumerate() {
            if k > 0 {
                self.out.push_str(", ");
            }
            self.operand(o);
        }
    }

    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Int { span, .. } | Expr::Float { span, .. } | Expr::Name(span) => self.t(*span),
            Expr::Unary { op, e, .. } => {
                self.out.push(match op {
                    UnOp::Neg => '-',
                    UnOp::Plus => '+',
                    UnOp::Not => '!',
                    UnOp::BitNot => '~',
                });
                self.expr(e);
            }
            Expr::Binary { op, l, r, .. } => {
                self.expr(l);
                let _ = write!(self.out, "{}", op.as_str());
                self.expr(r);
            }
            Expr::Cond { c, t, f, .. } => {
                self.expr(c);
                self.out.push_str(" ? ");
                self.expr(t);
                self.out.push_str(" : ");
                self.expr(f);
            }
            Expr::Call { name, args, .. } => {
                self.t(*name);
                self.out.push('(');
                for (k, a) in args.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(", ");
                    }
                    self.expr(a);
                }
                self.out.push(')');
            }
            Expr::Paren { e, .. } => {
                self.out.push('(');
                self.expr(e);
                self.out.push(')');
            }
        }
    }
}
