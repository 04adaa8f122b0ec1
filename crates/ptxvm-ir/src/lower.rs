//! Lowering and checking: turns a parsed AST into the typed IR ([`crate::ir`]) while
//! applying ptxas's rules — directives, declarations, scopes, name resolution, and each
//! instruction against the instruction table (modifiers, operand count, kinds, §9.4 types,
//! `.version`/`.target` gating). Every problem becomes a diagnostic; checking goes on after
//! an error so one run reports them all.

use crate::ir::*;
use crate::isa::{Bindings, Form, Gate, Kind, Slot, Table, TyRef, primary_type};
use crate::types::{Class, Space, Type, agrees};
use ptxvm_syntax::ast::{self, DirArg, Expr, Operand};
use ptxvm_syntax::{DiagKind, Diagnostic, Span};
use std::collections::HashMap;

/// Lowers and checks a module. Returns the IR and every diagnostic (the IR is complete
/// only when there are no errors).
pub fn lower(m: &ast::Module, src: &str) -> (Module, Vec<Diagnostic>) {
    let mut cx = Cx {
        src,
        table: Table::get(),
        diags: Vec::new(),
        out: Module {
            address_size: 64,
            ..Module::default()
        },
        globals: HashMap::new(),
        funcs: HashMap::new(),
        gate_ok: true,
    };
    cx.module(m);
    (cx.out, cx.diags)
}

struct Cx<'a> {
    src: &'a str,
    table: &'static Table,
    diags: Vec<Diagnostic>,
    out: Module,
    /// Module-scope variable name → index.
    globals: HashMap<&'a str, u32>,
    /// Function name → index.
    funcs: HashMap<&'a str, u32>,
    /// Whether `.version`/`.target` are known well enough to gate instructions.
    gate_ok: bool,
}

/// Per-function resolution state.
struct Fx<'a> {
    /// Scopes of names: each maps a name to what it denotes.
    scopes: Vec<HashMap<&'a str, Local>>,
    /// Register ranges visible per scope: prefix → (first id, count, type, vector).
    ranges: Vec<HashMap<&'a str, (u32, u32)>>,
    labels: HashMap<&'a str, u32>,
    /// Labels of `.callprototype`, `.branchtargets`, `.calltargets`.
    specials: HashMap<&'a str, &'a str>,
    func: Func,
    loc: Option<(u32, u32, u32)>,
    /// Whether the next instruction starts a new block.
    new_block: bool,
}

#[derive(Clone, Copy)]
enum Local {
    Reg(u32),
    Var(VarRef),
}

fn err(kind: DiagKind, span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(kind, span, msg)
}

impl<'a> Cx<'a> {
    fn t(&self, s: Span) -> &'a str {
        s.text(self.src)
    }

    fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    // ---------------------------------------------------------------- module

    fn module(&mut self, m: &ast::Module) {
        let mut seen_version = false;
        let mut seen_target = false;
        let mut seen_other = false;
        let mut seen_address_size = false;
        for (idx, it) in m.items.iter().enumerate() {
            match it {
                ast::Item::Directive(d) => {
                    let name = self.t(d.name);
                    match name {
                        ".version" => {
                            if seen_version {
                                self.push(err(
                                    DiagKind::Directive,
                                    d.span,
                                    "duplicate `.version` directive",
                                ));
                            } else if idx != 0 {
                                self.push(err(
                                    DiagKind::Directive,
                                    d.span,
                                    "`.version` must be the first directive of the module",
                                ));
                            }
                            seen_version = true;
                            self.version(d);
                        }
                        ".target" => {
                            if !seen_version && !seen_other {
                                self.push(err(
                                    DiagKind::Directive,
                                    d.span,
                                    "missing `.version` directive before `.target`",
                                ));
                                seen_other = true;
                            }
                            if seen_target {
                                self.push(err(
                                    DiagKind::Directive,
                                    d.span,
                                    "duplicate `.target` directive",
                                ));
                            }
                            if seen_other && seen_version {
                                self.push(err(
                                    DiagKind::Directive,
                                    d.span,
                                    "`.target` must directly follow `.version`",
                                ));
                            }
                            seen_target = true;
                            self.target(d);
                        }
                        ".address_size" => {
                            if seen_address_size {
                                self.push(err(
                                    DiagKind::Directive,
                                    d.span,
                                    "duplicate `.address_size` directive",
                                ));
                            }
                            seen_address_size = true;
                            if !seen_target {
                                self.push(err(
                                    DiagKind::Directive,
                                    d.span,
                                    "`.address_size` must follow `.target`",
                                ));
                            }
                            if let Some(DirArg::Expr(e)) = d.args.first() {
                                match const_int(e) {
                                    Some(32) => self.out.address_size = 32,
                                    Some(64) => self.out.address_size = 64,
                                    _ => self.push(err(
                                        DiagKind::Directive,
                                        e.span(),
                                        format!(
                                            "`.address_size` must be 32 or 64, found `{}`",
                                            self.t(e.span())
                                        ),
                                    )),
                                }
                            }
                        }
                        ".file" => {
                            if let (Some(DirArg::Expr(e)), Some(DirArg::Str(s))) =
                                (d.args.first(), d.args.get(1))
                            {
                                let n = const_int(e).unwrap_or(0) as u32;
                                let name = self.t(*s).trim_matches('"').to_string();
                                self.out.files.push((n, name));
                            }
                        }
                        ".alias" => {
                            self.gate(
                                Gate {
                                    ptx: 63,
                                    sm: 30,
                                    arch_specific: false,
                                },
                                d.name,
                                ".alias",
                            );
                        }
                        _ => {}
                    }
                    if !matches!(name, ".version") {
                        self.missing_header(
                            &mut seen_version,
                            &mut seen_target,
                            &mut seen_other,
                            d.span,
                            name,
                        );
                    }
                }
                ast::Item::Var(v) => {
                    self.missing_header(
                        &mut seen_version,
                        &mut seen_target,
                        &mut seen_other,
                        v.span,
                        "",
                    );
                    self.module_var(v);
                }
                ast::Item::Func(f) => {
                    self.missing_header(
                        &mut seen_version,
                        &mut seen_target,
                        &mut seen_other,
                        f.span,
                        "",
                    );
                    self.declare_func(f);
                }
            }
        }
        if m.items.is_empty() {
            self.push(err(
                DiagKind::Directive,
                Span::default(),
                "empty module: missing `.version` directive",
            ));
            self.gate_ok = false;
        }
        // Bodies are checked after every function is declared (calls may go forward).
        let mut fi = 0;
        for it in &m.items {
            if let ast::Item::Func(f) = it {
                self.func_body(f, fi);
                fi += 1;
            }
        }
    }

    fn missing_header(
        &mut self,
        seen_version: &mut bool,
        seen_target: &mut bool,
        seen_other: &mut bool,
        span: Span,
        name: &str,
    ) {
        if !*seen_version && !*seen_other {
            self.push(err(
                DiagKind::Directive,
                span,
                "missing `.version` directive: a module must start with `.version`",
            ));
            self.gate_ok = false;
        }
        if name != ".target" && !*seen_target && !*seen_other {
            self.push(err(
                DiagKind::Directive,
                span,
                "missing `.target` directive after `.version`",
            ));
            self.gate_ok = false;
        }
        *seen_other = true;
    }

    fn version(&mut self, d: &ast::Directive) {
        let text = d.args.first().map(|a| match a {
            DirArg::Expr(e) => self.t(e.span()),
            _ => "",
        });
        let parsed = text.and_then(|t| {
            let (a, b) = t.split_once('.')?;
            Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?))
        });
        match parsed {
            Some((maj, min)) if is_known_version(maj, min) => self.out.version = (maj, min),
            _ => {
                self.push(err(
                    DiagKind::Directive,
                    d.span,
                    format!("unsupported PTX version `{}`", text.unwrap_or("")),
                ));
                self.gate_ok = false;
            }
        }
    }

    fn target(&mut self, d: &ast::Directive) {
        let mut sm = None;
        for a in &d.args {
            let DirArg::Name(s) = a else { continue };
            let t = self.t(*s);
            self.out.targets.push(t.to_string());
            let num = t.strip_prefix("sm_").or_else(|| t.strip_prefix("compute_"));
            match num {
                Some(n) => {
                    let (digits, arch) = match n.strip_suffix('a').or_else(|| n.strip_suffix('f')) {
                        Some(x) => (x, true),
                        None => (n, false),
                    };
                    match digits.parse::<u32>() {
                        Ok(v) if is_known_sm(v) => {
                            if sm.is_some() {
                                self.push(err(
                                    DiagKind::Directive,
                                    *s,
                                    "more than one architecture in `.target`",
                                ));
                            }
                            sm = Some(v);
                            self.out.arch_specific = arch;
                        }
                        _ => {
                            self.push(err(
                                DiagKind::Directive,
                                *s,
                                format!("unknown target `{t}`"),
                            ));
                            self.gate_ok = false;
                        }
                    }
                }
                None => match t {
                    "texmode_unified" | "texmode_independent" | "debug" | "map_f64_to_f32" => {}
                    _ => {
                        self.push(err(
                            DiagKind::Directive,
                            *s,
                            format!("unknown target `{t}`"),
                        ));
                        self.gate_ok = false;
                    }
                },
            }
        }
        match sm {
            Some(v) => {
                self.out.sm = v;
                let need = target_min_ptx(v, self.out.arch_specific);
                let have = self.out.version.0 * 10 + self.out.version.1;
                if have > 0 && need > have {
                    self.push(err(DiagKind::Version, d.span, format!("target `sm_{v}{}` requires PTX ISA version {}.{} or later (module has `.version {}.{}`)", if self.out.arch_specific { "a" } else { "" }, need / 10, need % 10, self.out.version.0, self.out.version.1)));
                }
            }
            None => {
                self.push(err(
                    DiagKind::Directive,
                    d.span,
                    "`.target` names no architecture (like `sm_80`)",
                ));
                self.gate_ok = false;
            }
        }
    }

    // ---------------------------------------------------------------- declarations

    /// Checks a declaration's specifiers and builds one [`Var`] per declarator.
    fn var(&mut self, v: &ast::VarDecl, scope: Scope) -> Vec<(Var, Span)> {
        let mut out = Vec::new();
        for x in &v.extra {
            self.push(err(
                DiagKind::Declaration,
                *x,
                format!("unexpected `{}` in a declaration", self.t(*x)),
            ));
        }
        let space_txt = v.space.map(|s| self.t(s));
        let space = space_txt.and_then(Space::from_dot);
        let Some(space) = space else {
            let sp = v.span;
            self.push(err(
                DiagKind::Declaration,
                sp,
                "declaration without a state space (`.reg`, `.param`, `.global`, ...)",
            ));
            return out;
        };
        let space_qual = space_txt
            .and_then(|s| s.split_once("::"))
            .map(|(_, q)| format!("::{q}"))
            .unwrap_or_default();
        let ty = match v.ty.map(|t| (t, Type::from_dot(self.t(t)))) {
            Some((_, Some(t))) => t,
            Some((s, None)) => {
                self.push(err(
                    DiagKind::Declaration,
                    s,
                    format!("unknown type `{}`", self.t(s)),
                ));
                return out;
            }
            None => {
                if space == Space::Tex {
                    Type::TexRef
                } else {
                    self.push(err(
                        DiagKind::Declaration,
                        v.span,
                        "declaration without a type",
                    ));
                    return out;
                }
            }
        };
        // State-space rules by scope.
        match (scope, space) {
            (Scope::Module, Space::Reg | Space::Sreg | Space::Param) => {
                self.push(err(
                    DiagKind::StateSpace,
                    v.space.unwrap_or(v.span),
                    format!(
                        "`{}` variables cannot be declared at module scope",
                        space.name()
                    ),
                ));
            }
            (Scope::Body, Space::Global | Space::Tex | Space::Sreg) => {
                self.push(err(
                    DiagKind::StateSpace,
                    v.space.unwrap_or(v.span),
                    format!(
                        "`{}` variables cannot be declared inside a function",
                        space.name()
                    ),
                ));
            }
            (Scope::EntryParam, s) if s != Space::Param => {
                self.push(err(
                    DiagKind::StateSpace,
                    v.space.unwrap_or(v.span),
                    "kernel parameters must be in the `.param` state space",
                ));
            }
            (Scope::FuncParam, s) if s != Space::Param && s != Space::Reg => {
                self.push(err(
                    DiagKind::StateSpace,
                    v.space.unwrap_or(v.span),
                    "function parameters must be `.param` or `.reg`",
                ));
            }
            _ => {}
        }
        if ty == Type::Pred && space != Space::Reg {
            self.push(err(
                DiagKind::Declaration,
                v.ty.unwrap_or(v.span),
                "`.pred` variables must be in the `.reg` state space",
            ));
        }
        let vector = match v.vector {
            None => 1,
            Some(s) => match self.t(s) {
                ".v2" => 2,
                ".v4" => 4,
                ".v8" if space != Space::Reg => 8,
                t => {
                    self.push(err(
                        DiagKind::Declaration,
                        s,
                        format!("invalid vector size `{t}`: variables may be `.v2` or `.v4`"),
                    ));
                    1
                }
            },
        };
        if vector > 1 && ty.bits() * vector > 128 && space != Space::Reg {
            self.push(err(
                DiagKind::Declaration,
                v.vector.unwrap_or(v.span),
                format!(
                    "vector type `.v{vector} {ty}` is {} bits, over the 128-bit limit",
                    ty.bits() * vector
                ),
            ));
        }
        if vector > 1 && (ty == Type::Pred || ty.class() == Class::Opaque) {
            self.push(err(
                DiagKind::Declaration,
                v.vector.unwrap_or(v.span),
                "vectors of this type are not allowed",
            ));
        }
        let elem = ty.bytes() * vector;
        let mut align = elem;
        if let Some((s, e)) = &v.align {
            match const_int(e) {
                Some(a) if a > 0 && (a as u64).is_power_of_two() && a <= 1 << 20 => {
                    align = a as u32
                }
                _ => self.push(err(
                    DiagKind::Declaration,
                    s.to(e.span()),
                    format!(
                        "`.align {}`: alignment must be a power of two",
                        self.t(e.span())
                    ),
                )),
            }
        }
        let linkage = match v.linkage.map(|l| self.t(l)) {
            Some(".visible") => Linkage::Visible,
            Some(".extern") => Linkage::Extern,
            Some(".weak") => Linkage::Weak,
            Some(".common") => Linkage::Common,
            _ => Linkage::Internal,
        };
        if linkage != Linkage::Internal
            && scope != Scope::Module
            && !(scope == Scope::Body && linkage == Linkage::Extern && space == Space::Shared)
        {
            self.push(err(
                DiagKind::Declaration,
                v.linkage.unwrap_or(v.span),
                "linkage directives are only allowed at module scope",
            ));
        }
        let ptr = v.ptr.as_ref().map(|p| {
            if scope != Scope::EntryParam {
                self.push(err(
                    DiagKind::Declaration,
                    p.span,
                    "`.ptr` is only allowed on kernel parameters",
                ));
            }
            let sp = p.space.and_then(|s| Space::from_dot(self.t(s)));
            let al = p
                .align
                .as_ref()
                .and_then(|(_, e)| const_int(e))
                .unwrap_or(0) as u32;
            (sp, al)
        });
        let attributes = v
            .attributes
            .iter()
            .map(|s| self.t(*s).to_string())
            .collect();
        for d in &v.declarators {
            let mut dims = Vec::new();
            for (sp, e) in &d.dims {
                match e {
                    None => dims.push(0),
                    Some(e) => match const_int(e) {
                        Some(n) if n > 0 => dims.push(n as u64),
                        _ => {
                            self.push(err(
                                DiagKind::Declaration,
                                *sp,
                                "array dimension must be a positive constant",
                            ));
                            dims.push(1);
                        }
                    },
                }
            }
            if dims.iter().skip(1).any(|&x| x == 0) {
                self.push(err(
                    DiagKind::Declaration,
                    d.span,
                    "only the first array dimension may be left unsized",
                ));
            }
            let mut init = None;
            if let Some(i) = &d.init {
                if !matches!(space, Space::Global | Space::Const) {
                    let kind = if space == Space::Reg {
                        DiagKind::Declaration
                    } else {
                        DiagKind::StateSpace
                    };
                    self.push(err(
                        kind,
                        i.span(),
                        format!("variables in `{}` cannot have initialisers", space.name()),
                    ));
                } else if vector > 1 && matches!(i, ast::Init::Expr(_)) {
                    self.push(err(
                        DiagKind::Declaration,
                        i.span(),
                        format!("a `.v{vector}` variable needs a braced initialiser `{{...}}`"),
                    ));
                } else if linkage == Linkage::Extern {
                    self.push(err(
                        DiagKind::Declaration,
                        i.span(),
                        "`.extern` variables cannot have initialisers",
                    ));
                } else {
                    let n_elems = dims.iter().product::<u64>().max(1);
                    let mut data = InitData::default();
                    let mut count = 0u64;
                    self.init(i, ty, &mut data, &mut count, dims.len());
                    if dims.first() == Some(&0) {
                        // `[]` sized by the initialiser.
                        let inner: u64 = dims.iter().skip(1).product::<u64>().max(1);
                        dims[0] = count.div_ceil(inner * vector as u64).max(1);
                    } else if count > n_elems * vector as u64 {
                        self.push(err(
                            DiagKind::Declaration,
                            i.span(),
                            format!(
                                "initialiser has {count} elements but the variable holds {}",
                                n_elems * vector as u64
                            ),
                        ));
                    }
                    init = Some(data);
                }
            } else if dims.first() == Some(&0)
                && linkage != Linkage::Extern
                && !(space == Space::Shared)
                && scope != Scope::EntryParam
                && scope != Scope::FuncParam
            {
                self.push(err(
                    DiagKind::Declaration,
                    d.span,
                    "an unsized array `[]` needs an initialiser or `.extern`",
                ));
            }
            let size = dims.iter().product::<u64>() * elem as u64;
            out.push((
                Var {
                    name: self.t(d.name).to_string(),
                    space,
                    space_qual: space_qual.clone(),
                    ty,
                    vector,
                    dims,
                    align,
                    linkage,
                    size,
                    init,
                    ptr,
                    attributes: std::mem::take(&mut Vec::<String>::clone(&attributes)),
                },
                d.name,
            ));
        }
        out
    }

    fn init(
        &mut self,
        i: &ast::Init,
        ty: Type,
        data: &mut InitData,
        count: &mut u64,
        depth: usize,
    ) {
        match i {
            ast::Init::List(_, v) => {
                for e in v {
                    self.init(e, ty, data, count, depth.saturating_sub(1));
                }
            }
            ast::Init::Named(..) => {
                *count += 1;
            }
            ast::Init::Expr(e) => {
                *count += 1;
                let off = data.bytes.len() as u64;
                match (eval(e), ty.class()) {
                    (Some(Val::Int(v)), Class::Float) => push_float(data, ty, v as i64 as f64),
                    (Some(Val::Int(v)), _) => data
                        .bytes
                        .extend_from_slice(&v.to_le_bytes()[..ty.bytes() as usize]),
                    (Some(Val::Float(f)), Class::Float) => push_float(data, ty, f),
                    (Some(Val::Float(_)), _) => {
                        self.push(err(
                            DiagKind::Declaration,
                            e.span(),
                            format!("floating-point initialiser for a `{ty}` variable"),
                        ));
                    }
                    (None, _) => {
                        // A symbol: `sym`, `sym+off`, `generic(sym)`.
                        match sym_expr(e, self.src) {
                            Some((name, _, _))
                                if !self.globals.contains_key(name)
                                    && !self.funcs.contains_key(name) =>
                            {
                                self.push(err(
                                    DiagKind::Declaration,
                                    e.span(),
                                    format!("initialiser names `{name}`, which is not declared"),
                                ));
                            }
                            Some((name, addend, generic)) => {
                                data.relocs.push((off, name.to_string(), addend, generic));
                                data.bytes
                                    .extend(std::iter::repeat_n(0, ty.bytes() as usize));
                            }
                            None => self.push(err(
                                DiagKind::Declaration,
                                e.span(),
                                "initialiser is not a constant expression",
                            )),
                        }
                    }
                }
            }
        }
    }

    fn module_var(&mut self, v: &ast::VarDecl) {
        for (var, span) in self.var(v, Scope::Module) {
            let name = self.t(span);
            if let Some(&prev) = self.globals.get(name) {
                let pv = &self.out.vars[prev as usize];
                if pv.linkage == Linkage::Extern || var.linkage == Linkage::Extern {
                    continue;
                }
                let d = err(
                    DiagKind::Duplicate,
                    span,
                    format!("`{name}` is already declared"),
                )
                .with_note(
                    Some(self.out.var_spans[prev as usize]),
                    "first declared here",
                );
                self.push(d);
                continue;
            }
            if self.funcs.contains_key(name) {
                self.push(err(
                    DiagKind::Duplicate,
                    span,
                    format!("`{name}` is already declared as a function"),
                ));
                continue;
            }
            self.globals.insert(name, self.out.vars.len() as u32);
            self.out.vars.push(var);
            self.out.var_spans.push(span);
        }
    }

    // ---------------------------------------------------------------- functions

    fn declare_func(&mut self, f: &ast::Function) {
        let name = self.t(f.name);
        let kind = match f.kind {
            ast::FuncKind::Entry => FuncKind::Entry,
            ast::FuncKind::Func => FuncKind::Func,
        };
        let pscope = if kind == FuncKind::Entry {
            Scope::EntryParam
        } else {
            Scope::FuncParam
        };
        let mut func = Func {
            name: name.to_string(),
            kind: Some(kind),
            linkage: f.linkage.map(|l| match self.t(l) {
                ".visible" => Linkage::Visible,
                ".extern" => Linkage::Extern,
                ".weak" => Linkage::Weak,
                _ => Linkage::Common,
            }),
            defined: f.body.is_some(),
            span: f.span,
            ..Func::default()
        };
        if kind == FuncKind::Entry && f.rets.is_some() {
            self.push(err(
                DiagKind::Declaration,
                f.name,
                "a kernel (`.entry`) cannot have return parameters",
            ));
        }
        for p in f.params.iter().flatten() {
            func.params
                .extend(self.var(p, pscope).into_iter().map(|x| x.0));
        }
        for p in f.rets.iter().flatten() {
            func.rets
                .extend(self.var(p, Scope::FuncParam).into_iter().map(|x| x.0));
        }
        self.tuning(f, &mut func);
        let idx = self.out.funcs.len() as u32;
        if let Some(&prev) = self.funcs.get(name) {
            let pf = &self.out.funcs[prev as usize];
            if pf.defined && func.defined {
                let d = err(
                    DiagKind::Duplicate,
                    f.name,
                    format!("function `{name}` is defined twice"),
                )
                .with_note(Some(pf.span), "first defined here");
                self.push(d);
            } else if pf.kind != func.kind
                || pf.params.len() != func.params.len()
                || pf.rets.len() != func.rets.len()
            {
                self.push(err(
                    DiagKind::Duplicate,
                    f.name,
                    format!("`{name}` is redeclared with a different signature"),
                ));
            }
            if func.defined {
                self.funcs.insert(name, idx);
            }
        } else if self.globals.contains_key(name) {
            self.push(err(
                DiagKind::Duplicate,
                f.name,
                format!("`{name}` is already declared as a variable"),
            ));
        } else {
            self.funcs.insert(name, idx);
        }
        self.out.funcs.push(func);
    }

    fn tuning(&mut self, f: &ast::Function, func: &mut Func) {
        let is_entry = f.kind == ast::FuncKind::Entry;
        for d in &f.directives {
            let name = self.t(d.name);
            let nums: Vec<u32> = d
                .args
                .iter()
                .filter_map(|a| match a {
                    DirArg::Expr(e) => Some(const_int(e).unwrap_or(0) as u32),
                    _ => None,
                })
                .collect();
            let entry_only = matches!(
                name,
                ".maxnreg"
                    | ".maxntid"
                    | ".reqntid"
                    | ".minnctapersm"
                    | ".maxnctapersm"
                    | ".reqnctapercluster"
                    | ".explicitcluster"
                    | ".maxclusterrank"
                    | ".blocksareclusters"
            );
            if entry_only && !is_entry {
                self.push(err(
                    DiagKind::Directive,
                    d.span,
                    format!("`{name}` is only allowed on a kernel (`.entry`)"),
                ));
                continue;
            }
            let dim3 = |cx: &mut Self, nums: &[u32]| -> Option<[u32; 3]> {
                if nums.is_empty() || nums.len() > 3 || nums.contains(&0) {
                    cx.push(err(
                        DiagKind::Directive,
                        d.span,
                        format!("`{name}` takes one to three positive numbers"),
                    ));
                    return None;
                }
                Some([
                    nums[0],
                    *nums.get(1).unwrap_or(&1),
                    *nums.get(2).unwrap_or(&1),
                ])
            };
            let one = |cx: &mut Self, nums: &[u32]| -> Option<u32> {
                if nums.len() != 1 {
                    cx.push(err(
                        DiagKind::Directive,
                        d.span,
                        format!("`{name}` takes one number"),
                    ));
                    return None;
                }
                Some(nums[0])
            };
            match name {
                ".maxntid" => func.tuning.maxntid = dim3(self, &nums),
                ".reqntid" => func.tuning.reqntid = dim3(self, &nums),
                ".reqnctapercluster" => func.tuning.reqnctapercluster = dim3(self, &nums),
                ".minnctapersm" => func.tuning.minnctapersm = one(self, &nums),
                ".maxnctapersm" => func.tuning.maxnctapersm = one(self, &nums),
                ".maxnreg" => func.tuning.maxnreg = one(self, &nums),
                ".maxclusterrank" => func.tuning.maxclusterrank = one(self, &nums),
                ".explicitcluster" => func.tuning.explicitcluster = true,
                ".noreturn" => {
                    if is_entry {
                        self.push(err(
                            DiagKind::Directive,
                            d.span,
                            "`.noreturn` is only allowed on a `.func`",
                        ));
                    }
                    func.tuning.noreturn = true;
                }
                ".pragma" => func
                    .tuning
                    .pragmas
                    .extend(d.args.iter().filter_map(|a| match a {
                        DirArg::Str(s) => Some(self.t(*s).trim_matches('"').to_string()),
                        _ => None,
                    })),
                _ => {}
            }
            let gate = match name {
                ".reqnctapercluster" | ".explicitcluster" | ".maxclusterrank" => Gate {
                    ptx: 78,
                    sm: 90,
                    arch_specific: false,
                },
                ".noreturn" => Gate {
                    ptx: 64,
                    sm: 30,
                    arch_specific: false,
                },
                ".maxnctapersm" | ".minnctapersm" => Gate {
                    ptx: 20,
                    sm: 20,
                    arch_specific: false,
                },
                _ => Gate::default(),
            };
            self.gate(gate, d.name, name);
        }
        if func.tuning.maxntid.is_some() && func.tuning.reqntid.is_some() {
            let sp = f
                .directives
                .iter()
                .find(|d| self.t(d.name) == ".reqntid")
                .map_or(f.name, |d| d.span);
            self.push(err(
                DiagKind::Directive,
                sp,
                "`.reqntid` cannot be combined with `.maxntid`",
            ));
        }
    }

    /// Reports a version/target gate violation.
    fn gate(&mut self, g: Gate, span: Span, what: &str) -> bool {
        match self.gate_err(g, span, what) {
            Some(d) => {
                self.push(d);
                false
            }
            None => true,
        }
    }

    /// The diagnostic for a version/target gate the module does not meet.
    fn gate_err(&self, g: Gate, span: Span, what: &str) -> Option<Diagnostic> {
        if !self.gate_ok {
            return None;
        }
        let v = self.out.version.0 * 10 + self.out.version.1;
        if g.ptx > v {
            let (a, b) = self.out.version;
            return Some(err(
                DiagKind::Version,
                span,
                format!(
                    "`{what}` requires PTX ISA version {}.{} or later (module has `.version {a}.{b}`)",
                    g.ptx / 10,
                    g.ptx % 10
                ),
            ));
        }
        if g.sm > self.out.sm || (g.arch_specific && !self.out.arch_specific) {
            let need = format!("sm_{}{}", g.sm, if g.arch_specific { "a" } else { "" });
            let have = format!(
                "sm_{}{}",
                self.out.sm,
                if self.out.arch_specific { "a" } else { "" }
            );
            return Some(err(
                DiagKind::Target,
                span,
                format!("`{what}` requires target `{need}` or later (module targets `{have}`)"),
            ));
        }
        None
    }

    fn func_body(&mut self, f: &ast::Function, fi: usize) {
        let Some(body) = &f.body else { return };
        let mut fx = Fx {
            scopes: vec![HashMap::new()],
            ranges: vec![HashMap::new()],
            labels: HashMap::new(),
            specials: HashMap::new(),
            func: std::mem::take(&mut self.out.funcs[fi]),
            loc: None,
            new_block: true,
        };
        // Parameters are the outermost scope.
        for (i, p) in f
            .params
            .iter()
            .flatten()
            .flat_map(|p| p.declarators.iter())
            .enumerate()
        {
            let n = self.t(p.name);
            let is_reg = fx.func.params.get(i).is_some_and(|v| v.space == Space::Reg);
            if is_reg {
                let v = &fx.func.params[i];
                let id = fx.func.regs.len() as u32;
                fx.func.regs.push(Reg {
                    name: n.to_string(),
                    ty: v.ty,
                    vector: v.vector,
                });
                fx.scopes[0].insert(n, Local::Reg(id));
            } else if fx.scopes[0]
                .insert(n, Local::Var(VarRef::Param(i as u32)))
                .is_some()
            {
                self.push(err(
                    DiagKind::Duplicate,
                    p.name,
                    format!("parameter `{n}` is declared twice"),
                ));
            }
        }
        for (i, p) in f
            .rets
            .iter()
            .flatten()
            .flat_map(|p| p.declarators.iter())
            .enumerate()
        {
            let n = self.t(p.name);
            let is_reg = fx.func.rets.get(i).is_some_and(|v| v.space == Space::Reg);
            if is_reg {
                let v = &fx.func.rets[i];
                let id = fx.func.regs.len() as u32;
                fx.func.regs.push(Reg {
                    name: n.to_string(),
                    ty: v.ty,
                    vector: v.vector,
                });
                fx.scopes[0].insert(n, Local::Reg(id));
            } else if fx.scopes[0]
                .insert(n, Local::Var(VarRef::Ret(i as u32)))
                .is_some()
            {
                self.push(err(
                    DiagKind::Duplicate,
                    p.name,
                    format!("parameter `{n}` is declared twice"),
                ));
            }
        }
        self.collect_labels(body, &mut fx);
        self.block(body, &mut fx);
        self.out.funcs[fi] = fx.func;
    }

    fn collect_labels(&mut self, b: &ast::Block, fx: &mut Fx<'a>) {
        for s in &b.stmts {
            match s {
                ast::Stmt::Label(l) => {
                    let n = self.t(*l);
                    if fx.labels.contains_key(n) {
                        self.push(err(
                            DiagKind::Duplicate,
                            *l,
                            format!("label `{n}` is defined twice"),
                        ));
                    } else {
                        let id = fx.labels.len() as u32;
                        fx.labels.insert(n, id);
                    }
                }
                ast::Stmt::Special(sp) => {
                    let n = self.t(sp.label);
                    if fx.specials.insert(n, self.t(sp.directive)).is_some()
                        || fx.labels.contains_key(n)
                    {
                        self.push(err(
                            DiagKind::Duplicate,
                            sp.label,
                            format!("label `{n}` is defined twice"),
                        ));
                    }
                    for name in &sp.names {
                        let t = self.t(sp.directive);
                        let nm = self.t(*name);
                        if t == ".calltargets" && !self.funcs.contains_key(nm) {
                            self.push(err(
                                DiagKind::Undeclared,
                                *name,
                                format!("undeclared function `{nm}`"),
                            ));
                        }
                    }
                }
                ast::Stmt::Block(inner) => self.collect_labels(inner, fx),
                _ => {}
            }
        }
        // Block ids are assigned in label order later; reserve nothing here.
    }

    fn block(&mut self, b: &ast::Block, fx: &mut Fx<'a>) {
        // Declarations of this block are visible to the whole block.
        fx.scopes.push(HashMap::new());
        fx.ranges.push(HashMap::new());
        for s in &b.stmts {
            if let ast::Stmt::Var(v) = s {
                self.local_decl(v, fx);
            }
        }
        for s in &b.stmts {
            match s {
                ast::Stmt::Var(_) => {}
                ast::Stmt::Label(l) => {
                    let n = self.t(*l);
                    fx.func.blocks.push(fx.func.insts.len() as u32);
                    fx.func.block_labels.push(n.to_string());
                    fx.new_block = false;
                }
                ast::Stmt::Block(inner) => self.block(inner, fx),
                ast::Stmt::Directive(d) => {
                    if self.t(d.name) == ".loc" {
                        let nums: Vec<u32> = d
                            .args
                            .iter()
                            .take(3)
                            .filter_map(|a| match a {
                                DirArg::Expr(e) => const_int(e).map(|v| v as u32),
                                _ => None,
                            })
                            .collect();
                        if nums.len() == 3 {
                            fx.loc = Some((nums[0], nums[1], nums[2]));
                        }
                    }
                }
                ast::Stmt::Special(sp) => {
                    if self.t(sp.directive) == ".branchtargets" {
                        for n in &sp.names {
                            let nm = self.t(*n);
                            if !fx.labels.contains_key(nm) {
                                self.push(err(
                                    DiagKind::UndefinedLabel,
                                    *n,
                                    format!("undefined label `{nm}`"),
                                ));
                            }
                        }
                    }
                    if let Some(ps) = &sp.params {
                        for p in ps {
                            let _ = self.var(p, Scope::FuncParam);
                        }
                    }
                }
                ast::Stmt::Instr(i) => {
                    if fx.new_block {
                        fx.func.blocks.push(fx.func.insts.len() as u32);
                        fx.func.block_labels.push(String::new());
                        fx.new_block = false;
                    }
                    if let Some(inst) = self.instr(i, fx) {
                        let ends_block = matches!(
                            inst.opcode.as_str(),
                            "bra" | "brx" | "ret" | "exit" | "trap"
                        );
                        fx.func.insts.push(inst);
                        fx.func.inst_spans.push(i.span);
                        fx.func.inst_locs.push(fx.loc);
                        if ends_block {
                            fx.new_block = true;
                        }
                    }
                }
            }
        }
        fx.scopes.pop();
        fx.ranges.pop();
    }

    fn local_decl(&mut self, v: &ast::VarDecl, fx: &mut Fx<'a>) {
        let is_reg = v
            .space
            .is_some_and(|s| matches!(Space::from_dot(self.t(s)), Some(Space::Reg)));
        let vars = self.var(v, Scope::Body);
        for ((var, span), d) in vars.into_iter().zip(&v.declarators) {
            let name = self.t(span);
            let scope = fx.scopes.len() - 1;
            let dup = fx.scopes[scope].contains_key(name)
                || fx.ranges[scope].contains_key(name)
                || range_member(&fx.ranges[scope], name).is_some()
                || (d.range.is_some() && {
                    let n = d
                        .range
                        .as_ref()
                        .and_then(|(_, e)| const_int(e))
                        .unwrap_or(0)
                        .clamp(0, 1 << 20) as u32;
                    fx.scopes[scope].keys().any(|k| {
                        k.strip_prefix(name).is_some_and(|num| {
                            num.parse::<u32>()
                                .is_ok_and(|v| v < n && (num == "0" || !num.starts_with('0')))
                        })
                    })
                });
            if dup {
                self.push(err(
                    DiagKind::Duplicate,
                    span,
                    format!("`{name}` is already declared in this scope"),
                ));
                continue;
            }
            if is_reg {
                if !var.ty.is_reg_type() {
                    self.push(err(
                        DiagKind::Declaration,
                        v.ty.unwrap_or(span),
                        format!("registers cannot have type `{}`", var.ty),
                    ));
                }
                if !var.dims.is_empty() {
                    self.push(err(
                        DiagKind::Declaration,
                        span,
                        "registers cannot be arrays",
                    ));
                }
                let first = fx.func.regs.len() as u32;
                match &d.range {
                    Some((_, e)) => {
                        let n = const_int(e).unwrap_or(0);
                        if !(0..=1 << 20).contains(&n) {
                            self.push(err(
                                DiagKind::Declaration,
                                e.span(),
                                "parameterised register count out of range",
                            ));
                            continue;
                        }
                        for k in 0..n {
                            fx.func.regs.push(Reg {
                                name: format!("{name}{k}"),
                                ty: var.ty,
                                vector: var.vector,
                            });
                        }
                        fx.ranges[scope].insert(name, (first, n as u32));
                    }
                    None => {
                        fx.func.regs.push(Reg {
                            name: name.to_string(),
                            ty: var.ty,
                            vector: var.vector,
                        });
                        fx.scopes[scope].insert(name, Local::Reg(first));
                    }
                }
            } else {
                if d.range.is_some() {
                    self.push(err(
                        DiagKind::Declaration,
                        span,
                        "only registers can be parameterised (`<N>`)",
                    ));
                }
                let idx = fx.func.locals.len() as u32;
                fx.func.locals.push(var);
                fx.scopes[scope].insert(name, Local::Var(VarRef::Local(idx)));
            }
        }
    }

    // ---------------------------------------------------------------- name resolution

    fn lookup(&self, fx: &Fx<'a>, name: &str) -> Option<Res> {
        for k in (0..fx.scopes.len()).rev() {
            if let Some(l) = fx.scopes[k].get(name) {
                return Some(match *l {
                    Local::Reg(r) => Res::Reg(r),
                    Local::Var(v) => Res::Var(v),
                });
            }
            if let Some(r) = range_member(&fx.ranges[k], name) {
                return Some(Res::Reg(r));
            }
        }
        if let Some(&g) = self.globals.get(name) {
            return Some(Res::Var(VarRef::Global(g)));
        }
        if let Some(&f) = self.funcs.get(name) {
            return Some(Res::Func(f));
        }
        if let Some(&l) = fx.labels.get(name) {
            return Some(Res::Label(l));
        }
        if fx.specials.contains_key(name) {
            return Some(Res::Special);
        }
        if let Some((id, ty, comps)) = sreg_lookup(name) {
            return Some(Res::SReg(id, ty, comps));
        }
        None
    }

    // ---------------------------------------------------------------- instructions

    fn instr(&mut self, i: &ast::Instr, fx: &mut Fx<'a>) -> Option<Inst> {
        let opcode = self.t(i.opcode);
        let mods: Vec<&str> = i.mods.iter().map(|m| self.t(*m)).collect();
        let mut guard = None;
        if let Some((neg, p)) = i.guard {
            let n = self.t(p);
            match self.lookup(fx, n) {
                Some(Res::Reg(r)) if fx.func.regs[r as usize].ty == Type::Pred => {
                    guard = Some((r, neg))
                }
                Some(Res::Reg(_)) => self.push(err(
                    DiagKind::OperandType,
                    p,
                    format!("guard `{n}` is not a `.pred` register"),
                )),
                Some(_) => self.push(err(
                    DiagKind::OperandKind,
                    p,
                    format!("guard `{n}` is not a predicate register"),
                )),
                None if self.table.has_opcode(n) => {
                    self.push(err(DiagKind::Syntax, p, format!("`@` must be followed by a predicate register, found the instruction `{n}`")));
                    return None;
                }
                None => self.push(err(
                    DiagKind::Undeclared,
                    p,
                    format!("undeclared predicate `{n}`"),
                )),
            }
        }
        let table = self.table;
        let forms = table.forms_of(opcode);
        if forms.is_empty() {
            self.push(err(
                DiagKind::UnknownInstruction,
                i.opcode,
                format!("unknown instruction `{opcode}`"),
            ));
            return None;
        }
        let mod_span = i.mods.first().map_or(i.opcode, |m| {
            i.opcode.to(i.mods.last().copied().unwrap_or(*m))
        });
        let whole = self.t(i.opcode.to(mod_span));
        // Stage 1: modifiers.
        let matched: Vec<(usize, Bindings)> = forms
            .iter()
            .filter_map(|&fi| table.match_mods(&table.forms[fi], &mods).map(|b| (fi, b)))
            .collect();
        if matched.is_empty() {
            // A state space the instruction cannot use (`st.const`) is a state-space error.
            for (k, m) in mods.iter().enumerate() {
                if Space::from_dot(m).is_some() && !m.contains("::") {
                    let mut alt = mods.clone();
                    alt[k] = ".global";
                    if forms
                        .iter()
                        .any(|&fi| table.match_mods(&table.forms[fi], &alt).is_some())
                    {
                        self.push(err(
                            DiagKind::StateSpace,
                            i.mods[k],
                            format!("`{opcode}` cannot access the `{m}` state space"),
                        ));
                        return None;
                    }
                }
            }
            let mut d = err(
                DiagKind::Modifier,
                mod_span,
                format!("`{whole}` is not a valid form of `{opcode}`"),
            );
            for &fi in best_forms(table, forms, &mods).iter().take(3) {
                d = d.with_note(
                    None,
                    format!("a valid form is `{}`", table.forms[fi].syntax()),
                );
            }
            self.push(d);
            // Undeclared operands are still worth reporting.
            for o in &i.operands {
                self.check_names(o, fx);
            }
            return None;
        }
        // Stage 2: operand count.
        let n = i.operands.len();
        let counted: Vec<&(usize, Bindings)> = matched
            .iter()
            .filter(|(fi, _)| {
                let f = &table.forms[*fi];
                n >= f.min_operands() && n <= f.operands.len()
            })
            .collect();
        if counted.is_empty() {
            let f = &table.forms[matched[0].0];
            let (lo, hi) = matched.iter().fold((usize::MAX, 0), |(lo, hi), (fi, _)| {
                let f = &table.forms[*fi];
                (lo.min(f.min_operands()), hi.max(f.operands.len()))
            });
            let want = if lo == hi {
                format!("{lo}")
            } else {
                format!("{lo} to {hi}")
            };
            let sp = i.operands.first().map_or(i.span, |o| {
                o.span()
                    .to(i.operands.last().map_or(o.span(), |l| l.span()))
            });
            self.push(
                err(
                    DiagKind::OperandCount,
                    sp,
                    format!("`{whole}` takes {want} operands, found {n}"),
                )
                .with_note(None, format!("form: `{}`", f.syntax())),
            );
            for o in &i.operands {
                self.check_names(o, fx);
            }
            return None;
        }
        // Stage 3: operand kinds and types. Pick the first form that passes; otherwise
        // report the errors of the form with the fewest.
        let mut best: Option<(usize, Vec<Diagnostic>)> = None;
        let mut passing: Vec<(usize, &Bindings, Vec<Op>)> = Vec::new();
        for (fi, b) in counted {
            let f = &table.forms[*fi];
            let mut errs = Vec::new();
            let ops = self.operands(i, f, b, fx, &mut errs);
            if errs.is_empty() {
                passing.push((*fi, b, ops));
            } else if best.as_ref().is_none_or(|(_, e)| {
                errs.len() < e.len() || (errs.len() == e.len() && rank(&errs) < rank(e))
            }) {
                best = Some((*fi, errs));
            }
        }
        if passing.is_empty() {
            if let Some((_, errs)) = best {
                // Name errors first: an undeclared register explains the rest.
                let mut errs = errs;
                errs.sort_by_key(|d| {
                    d.kind != DiagKind::Undeclared && d.kind != DiagKind::UndefinedLabel
                });
                self.diags.push(errs.swap_remove(0));
            }
            return None;
        }
        // Stage 4: gating. The first passing form whose gate the module meets wins.
        let gate_of = |fi: usize, b: &Bindings| {
            let f = &table.forms[fi];
            let groups = table.groups(f);
            b.iter()
                .fold(f.gate, |g, (gi, vi)| g.max(groups[*gi].values[*vi].gate))
        };
        let v = self.out.version.0 * 10 + self.out.version.1;
        let pick = passing.iter().position(|(fi, b, _)| {
            let g = gate_of(*fi, b);
            !self.gate_ok
                || (g.ptx <= v
                    && g.sm <= self.out.sm
                    && (!g.arch_specific || self.out.arch_specific))
        });
        let k = match pick {
            Some(k) => k,
            None => {
                let (fi, b, _) = &passing[0];
                let g = gate_of(*fi, b);
                self.gate(g, mod_span, whole);
                0
            }
        };
        let (fi, b, ops) = passing.swap_remove(k);
        let f = &table.forms[fi];
        self.space_checks(opcode, &mods, i, &ops, fx);
        if opcode == "call" {
            self.call_checks(i, &ops, fx);
        }
        Some(Inst {
            form: fi as u32,
            opcode: opcode.to_string(),
            mods: mods.iter().map(|m| m.to_string()).collect(),
            ty: primary_type(table, f, b),
            guard,
            operands: ops,
        })
    }

    /// The space of a variable reference.
    fn var_space(&self, v: VarRef, fx: &Fx<'a>) -> Option<Space> {
        match v {
            VarRef::Global(g) => self.out.vars.get(g as usize).map(|x| x.space),
            VarRef::Local(l) => fx.func.locals.get(l as usize).map(|x| x.space),
            VarRef::Param(p) => fx.func.params.get(p as usize).map(|x| x.space),
            VarRef::Ret(p) => fx.func.rets.get(p as usize).map(|x| x.space),
        }
    }

    /// An address naming a variable must use the variable's state space.
    fn space_checks(
        &mut self,
        opcode: &str,
        mods: &[&str],
        i: &ast::Instr,
        ops: &[Op],
        fx: &Fx<'a>,
    ) {
        let Some(space) = mods.iter().find_map(|m| Space::from_dot(m)) else {
            return;
        };
        for (o, op) in i.operands.iter().zip(ops) {
            let Op::Addr {
                base: Base::Var(v), ..
            } = op
            else {
                continue;
            };
            let Some(vs) = self.var_space(*v, fx) else {
                continue;
            };
            if vs != space {
                self.push(err(
                    DiagKind::StateSpace,
                    o.span(),
                    format!(
                        "`{}` is a `{}` variable but `{opcode}` accesses `{}`",
                        self.t(o.span()).trim_matches(['[', ']']),
                        vs.name(),
                        space.name()
                    ),
                ));
            } else if opcode == "st"
                && space == Space::Param
                && matches!(v, VarRef::Param(_))
                && fx.func.kind == Some(FuncKind::Entry)
            {
                self.push(err(
                    DiagKind::StateSpace,
                    o.span(),
                    "kernel parameters are read-only: `st.param` cannot write them",
                ));
            }
        }
    }

    /// A direct call must pass as many arguments and returns as the callee declares.
    fn call_checks(&mut self, i: &ast::Instr, ops: &[Op], fx: &Fx<'a>) {
        let Some(ci) = ops.iter().position(|o| !matches!(o, Op::List(_))) else {
            return;
        };
        let Op::Func(f) = ops[ci] else { return };
        // The function being checked has been taken out of `self.out.funcs`.
        let callee = if self.out.funcs[f as usize].name.is_empty() {
            &fx.func
        } else {
            &self.out.funcs[f as usize]
        };
        let (np, nr) = (callee.params.len(), callee.rets.len());
        let rets = if ci > 0 {
            if let Op::List(v) = &ops[0] {
                v.len()
            } else {
                0
            }
        } else {
            0
        };
        let args = match ops.get(ci + 1) {
            Some(Op::List(v)) => v.len(),
            _ => 0,
        };
        let name = callee.name.clone();
        if args != np {
            let sp = i.operands.get(ci + 1).map_or(i.span, |o| o.span());
            self.push(err(
                DiagKind::OperandCount,
                sp,
                format!(
                    "`{name}` takes {np} argument{}, found {args}",
                    if np == 1 { "" } else { "s" }
                ),
            ));
        } else if rets != nr {
            let sp = i.operands.first().map_or(i.span, |o| o.span());
            self.push(err(
                DiagKind::OperandCount,
                sp,
                format!(
                    "`{name}` returns {nr} value{}, the call receives {rets}",
                    if nr == 1 { "" } else { "s" }
                ),
            ));
        }
    }

    /// Reports undeclared names inside an operand (used when the form is unknown).
    fn check_names(&mut self, o: &Operand, fx: &Fx<'a>) {
        match o {
            Operand::Name { name, .. } => {
                let n = self.t(*name);
                if self.lookup(fx, n).is_none() {
                    self.push(err(
                        DiagKind::Undeclared,
                        *name,
                        format!("undeclared identifier `{n}`"),
                    ));
                }
            }
            Operand::Addr { parts: v, .. }
            | Operand::Vector { elems: v, .. }
            | Operand::List { elems: v, .. } => {
                for x in v {
                    self.check_names(x, fx);
                }
            }
            Operand::Pair { a, b, .. } => {
                self.check_names(a, fx);
                self.check_names(b, fx);
            }
            _ => {}
        }
    }

    /// Resolves and checks the operands of an instruction against one form.
    fn operands(
        &self,
        i: &ast::Instr,
        f: &Form,
        b: &Bindings,
        fx: &Fx<'a>,
        errs: &mut Vec<Diagnostic>,
    ) -> Vec<Op> {
        let table = self.table;
        let groups = table.groups(f);
        let prim = primary_type(table, f, b);
        let vec_len = b
            .iter()
            .find_map(|(g, v)| vec_count(&groups[*g].values[*v].text))
            .or_else(|| {
                f.slots.iter().find_map(|s| match s {
                    Slot::Lit { text, .. } if i.mods.iter().any(|m| self.t(*m) == text) => {
                        vec_count(text)
                    }
                    _ => None,
                })
            });
        let mut out = Vec::with_capacity(i.operands.len());
        // A group bound more than once (`cvt.itype.itype`) gives its k-th binding to the
        // k-th operand that names it.
        let mut uses: Vec<(usize, usize)> = Vec::new();
        for (k, o) in i.operands.iter().enumerate() {
            let spec = &f.operands[k];
            let ty = match spec.ty {
                TyRef::Primary => prim,
                TyRef::Fixed(t) => Some(t),
                TyRef::Group(g) => {
                    let nth = match uses.iter_mut().find(|(gi, _)| *gi == g) {
                        Some((_, n)) => {
                            *n += 1;
                            *n
                        }
                        None => {
                            uses.push((g, 0));
                            0
                        }
                    };
                    let bound: Vec<usize> = b
                        .iter()
                        .filter(|(gi, _)| *gi == g)
                        .map(|(_, v)| *v)
                        .collect();
                    bound
                        .get(nth.min(bound.len().saturating_sub(1)))
                        .and_then(|v| Type::from_dot(&groups[g].values[*v].text))
                }
            };
            let is_dest = k == 0;
            out.push(self.operand(o, spec.kind, ty, f.relaxed, vec_len, is_dest, fx, errs));
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn operand(
        &self,
        o: &Operand,
        kind: Kind,
        ty: Option<Type>,
        relaxed: bool,
        vec_len: Option<u32>,
        is_dest: bool,
        fx: &Fx<'a>,
        errs: &mut Vec<Diagnostic>,
    ) -> Op {
        let bad_kind = |errs: &mut Vec<Diagnostic>| {
            errs.push(err(
                DiagKind::OperandKind,
                o.span(),
                format!("expected {}, found `{}`", kind.describe(), self.t(o.span())),
            ));
            Op::Sink
        };
        match kind {
            Kind::Any => self.any_operand(o, fx, errs),
            Kind::R
            | Kind::RSink
            | Kind::RI
            | Kind::RIS
            | Kind::RV
            | Kind::RP
            | Kind::FR
            | Kind::I => {
                match o {
                    // ptxas takes a one-element vector `{ %r1 }` as the scalar (Triton emits it).
                    Operand::Vector { elems, .. } if elems.len() == 1 && kind != Kind::RV => {
                        self.operand(&elems[0], kind, ty, relaxed, vec_len, is_dest, fx, errs)
                    }
                    Operand::Sink(_)
                        if matches!(kind, Kind::RSink) || (is_dest && kind != Kind::I) =>
                    {
                        Op::Sink
                    }
                    Operand::Name { name, comp } if kind != Kind::I => {
                        self.reg_operand(*name, *comp, kind, ty, relaxed, fx, errs)
                    }
                    Operand::Expr(e) if matches!(kind, Kind::RI | Kind::RIS | Kind::I) => {
                        self.imm(e, kind, ty, fx, errs)
                    }
                    Operand::Vector { elems, .. } if kind == Kind::RV => {
                        self.vector(elems, o.span(), ty, relaxed, vec_len, fx, errs)
                    }
                    Operand::Pair { a, b, .. } if kind == Kind::RP => {
                        let a2 = self.operand(a, Kind::R, ty, relaxed, None, true, fx, errs);
                        let b2 = self.operand(b, Kind::PSink, None, false, None, true, fx, errs);
                        Op::Pair(Box::new(a2), Box::new(b2))
                    }
                    _ => bad_kind(errs),
                }
            }
            Kind::P | Kind::PSink | Kind::NP | Kind::PQ | Kind::PI => match o {
                Operand::Sink(_) if matches!(kind, Kind::PSink | Kind::PQ) => Op::Sink,
                Operand::Name { name, .. } => self.pred(*name, false, fx, errs),
                Operand::Not { name, .. } if matches!(kind, Kind::NP | Kind::PI) => {
                    self.pred(*name, true, fx, errs)
                }
                Operand::Pair { a, b, .. } if kind == Kind::PQ => {
                    let a2 = self.operand(a, Kind::PSink, None, false, None, true, fx, errs);
                    let b2 = self.operand(b, Kind::PSink, None, false, None, true, fx, errs);
                    Op::Pair(Box::new(a2), Box::new(b2))
                }
                Operand::Expr(e) if kind == Kind::PI => match eval(e) {
                    Some(Val::Int(v)) => Op::Imm(v),
                    _ => bad_kind(errs),
                },
                _ => bad_kind(errs),
            },
            Kind::A => match o {
                Operand::Addr { parts, span } => self.address(parts, *span, fx, errs),
                _ => bad_kind(errs),
            },
            Kind::V | Kind::VN(_) => match o {
                Operand::Vector { elems, .. } => {
                    let want = if let Kind::VN(n) = kind {
                        Some(n)
                    } else {
                        vec_len
                    };
                    self.vector(elems, o.span(), ty, relaxed, want, fx, errs)
                }
                _ => bad_kind(errs),
            },
            Kind::L => match o {
                Operand::Name { name, comp: None } => {
                    let n = self.t(*name);
                    match self.lookup(fx, n) {
                        Some(Res::Label(l)) => Op::Label(l),
                        Some(Res::Special) => Op::Target(n.to_string()),
                        Some(_) => bad_kind(errs),
                        None => {
                            errs.push(err(
                                DiagKind::UndefinedLabel,
                                *name,
                                format!("undefined label `{n}`"),
                            ));
                            Op::Sink
                        }
                    }
                }
                _ => bad_kind(errs),
            },
            Kind::F => match o {
                Operand::Name { name, comp: None } => {
                    let n = self.t(*name);
                    match self.lookup(fx, n) {
                        Some(Res::Func(f)) => Op::Func(f),
                        Some(_) => bad_kind(errs),
                        None => {
                            errs.push(err(
                                DiagKind::Undeclared,
                                *name,
                                format!("undeclared function `{n}`"),
                            ));
                            Op::Sink
                        }
                    }
                }
                _ => bad_kind(errs),
            },
            Kind::S => match o {
                Operand::Name { name, comp: None } => {
                    let n = self.t(*name);
                    match self.lookup(fx, n) {
                        Some(Res::Var(v)) => Op::Sym {
                            var: v,
                            offset: 0,
                            generic: false,
                        },
                        Some(Res::Special) => Op::Target(n.to_string()),
                        Some(Res::Func(f)) => Op::Func(f),
                        Some(_) => bad_kind(errs),
                        None => {
                            errs.push(err(
                                DiagKind::Undeclared,
                                *name,
                                format!("undeclared identifier `{n}`"),
                            ));
                            Op::Sink
                        }
                    }
                }
                _ => bad_kind(errs),
            },
            Kind::List => match o {
                Operand::List { elems, .. } => Op::List(
                    elems
                        .iter()
                        .map(|e| self.any_operand(e, fx, errs))
                        .collect(),
                ),
                _ => bad_kind(errs),
            },
        }
    }

    /// An operand accepted without kind/type rules (names are still resolved).
    fn any_operand(&self, o: &Operand, fx: &Fx<'a>, errs: &mut Vec<Diagnostic>) -> Op {
        match o {
            Operand::Name { name, comp } => {
                self.reg_operand(*name, *comp, Kind::RIS, None, true, fx, errs)
            }
            Operand::Expr(e) => self.imm(e, Kind::RIS, None, fx, errs),
            Operand::Addr { parts, span } => self.address(parts, *span, fx, errs),
            Operand::Vector { elems, .. } => Op::Vector(
                elems
                    .iter()
                    .map(|e| self.any_operand(e, fx, errs))
                    .collect(),
            ),
            Operand::List { elems, .. } => Op::List(
                elems
                    .iter()
                    .map(|e| self.any_operand(e, fx, errs))
                    .collect(),
            ),
            Operand::Not { name, .. } => self.pred(*name, true, fx, errs),
            Operand::Pair { a, b, .. } => Op::Pair(
                Box::new(self.any_operand(a, fx, errs)),
                Box::new(self.any_operand(b, fx, errs)),
            ),
            Operand::Sink(_) => Op::Sink,
        }
    }

    fn pred(&self, name: Span, neg: bool, fx: &Fx<'a>, errs: &mut Vec<Diagnostic>) -> Op {
        let n = self.t(name);
        match self.lookup(fx, n) {
            Some(Res::Reg(r)) if fx.func.regs[r as usize].ty == Type::Pred => {
                Op::Pred { reg: r, neg }
            }
            Some(Res::Reg(r)) => {
                errs.push(err(
                    DiagKind::OperandType,
                    name,
                    format!(
                        "`{n}` is a `{}` register, expected a `.pred`",
                        fx.func.regs[r as usize].ty
                    ),
                ));
                Op::Sink
            }
            Some(Res::SReg(id, Type::Pred, _)) => Op::SReg(SReg { id, comp: 0 }),
            Some(_) => {
                errs.push(err(
                    DiagKind::OperandKind,
                    name,
                    format!("expected a predicate register, found `{n}`"),
                ));
                Op::Sink
            }
            None => {
                errs.push(err(
                    DiagKind::Undeclared,
                    name,
                    format!("undeclared identifier `{n}`"),
                ));
                Op::Sink
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn reg_operand(
        &self,
        name: Span,
        comp: Option<Span>,
        kind: Kind,
        ty: Option<Type>,
        relaxed: bool,
        fx: &Fx<'a>,
        errs: &mut Vec<Diagnostic>,
    ) -> Op {
        let n = self.t(name);
        let res = self.lookup(fx, n);
        let comp_txt = comp.map(|c| self.t(c));
        match res {
            Some(Res::Reg(r)) => {
                let reg = &fx.func.regs[r as usize];
                if reg.ty == Type::Pred {
                    errs.push(err(
                        DiagKind::OperandType,
                        name,
                        format!(
                            "`{n}` is a `.pred` register, expected {}",
                            ty.map_or("a data register".to_string(), |t| format!(
                                "a `{t}` operand"
                            ))
                        ),
                    ));
                    return Op::Sink;
                }
                if let Some(c) = comp_txt {
                    if let Some(k) = comp_index(c).filter(|_| reg.vector > 1) {
                        return Op::RegComp(r, k);
                    }
                    if matches!(
                        c,
                        ".b0" | ".b1" | ".b2" | ".b3" | ".h0" | ".h1" | ".b" | ".h"
                    ) {
                        return Op::Select(r, c.to_string());
                    }
                    errs.push(err(
                        DiagKind::OperandKind,
                        comp.unwrap_or(name),
                        format!("`{n}{c}`: invalid register component"),
                    ));
                    return Op::Sink;
                }
                if let Some(t) = ty
                    && !agrees(t, reg.ty, relaxed)
                {
                    errs.push(self.type_error(name, n, reg.ty, t));
                }
                Op::Reg(r)
            }
            Some(Res::SReg(id, sty, comps)) => {
                let c = match (comps, comp_txt) {
                    (true, Some(c)) => match comp_index(c) {
                        Some(k) if k < 3 => k,
                        _ => {
                            errs.push(err(
                                DiagKind::OperandKind,
                                name,
                                format!("`{n}{c}`: invalid component"),
                            ));
                            return Op::Sink;
                        }
                    },
                    (false, None) => 0,
                    (true, None) => {
                        errs.push(err(
                            DiagKind::OperandKind,
                            name,
                            format!("`{n}` needs a component (`.x`, `.y` or `.z`)"),
                        ));
                        return Op::Sink;
                    }
                    (false, Some(c)) => {
                        errs.push(err(
                            DiagKind::OperandKind,
                            name,
                            format!("`{n}` has no component `{c}`"),
                        ));
                        return Op::Sink;
                    }
                };
                if let Some(t) = ty
                    && !agrees(t, sty, true)
                    && !(t.class() != Class::Float && sty.bits() >= t.bits())
                {
                    errs.push(self.type_error(name, n, sty, t));
                }
                if let Some(d) = self.gate_err(sreg_gate(n), name, n) {
                    errs.push(d);
                }
                Op::SReg(SReg { id, comp: c })
            }
            Some(Res::Var(v)) if matches!(kind, Kind::RIS) => Op::Sym {
                var: v,
                offset: 0,
                generic: false,
            },
            Some(Res::Func(f)) if matches!(kind, Kind::RIS | Kind::FR) => Op::Func(f),
            Some(Res::Label(l)) if matches!(kind, Kind::RIS) => Op::Label(l),
            Some(_) => {
                errs.push(err(
                    DiagKind::OperandKind,
                    name,
                    format!("expected {}, found `{n}`", kind.describe()),
                ));
                Op::Sink
            }
            None => {
                errs.push(err(
                    DiagKind::Undeclared,
                    name,
                    format!("undeclared identifier `{n}`"),
                ));
                Op::Sink
            }
        }
    }

    fn type_error(&self, span: Span, n: &str, have: Type, want: Type) -> Diagnostic {
        let msg = if have.class() == want.class() && have.bits() > want.bits() {
            format!(
                "operand `{n}` of type `{have}`: operand size exceeding instruction-type size (`{want}`)"
            )
        } else {
            format!("operand `{n}` has type `{have}`, which does not agree with `{want}`")
        };
        err(DiagKind::OperandType, span, msg)
    }

    fn imm(
        &self,
        e: &Expr,
        kind: Kind,
        ty: Option<Type>,
        fx: &Fx<'a>,
        errs: &mut Vec<Diagnostic>,
    ) -> Op {
        match eval(e) {
            Some(Val::Int(v)) => Op::Imm(v),
            Some(Val::Float(f)) => {
                if let Some(t) = ty
                    && matches!(t.class(), Class::Signed | Class::Unsigned | Class::Pred)
                {
                    errs.push(err(
                        DiagKind::OperandType,
                        e.span(),
                        format!(
                            "floating-point constant `{}` for a `{t}` operand",
                            self.t(e.span())
                        ),
                    ));
                }
                let single = matches!(e, Expr::Float { single: true, .. });
                Op::FImm {
                    bits: f.to_bits(),
                    single,
                }
            }
            None => {
                if kind == Kind::RIS
                    && let Some((name, off, generic)) = sym_expr(e, self.src)
                {
                    return match self.lookup(fx, name) {
                        Some(Res::Var(v)) => Op::Sym {
                            var: v,
                            offset: off,
                            generic,
                        },
                        Some(Res::Func(f)) => Op::Func(f),
                        Some(_) => {
                            errs.push(err(
                                DiagKind::OperandKind,
                                e.span(),
                                format!("`{name}` is not a variable"),
                            ));
                            Op::Sink
                        }
                        None => {
                            errs.push(err(
                                DiagKind::Undeclared,
                                e.span(),
                                format!("undeclared identifier `{name}`"),
                            ));
                            Op::Sink
                        }
                    };
                }
                if let Some((name, _, _)) = sym_expr(e, self.src)
                    && self.lookup(fx, name).is_none()
                {
                    errs.push(err(
                        DiagKind::Undeclared,
                        e.span(),
                        format!("undeclared identifier `{name}`"),
                    ));
                    return Op::Sink;
                }
                errs.push(err(
                    DiagKind::OperandKind,
                    e.span(),
                    format!("`{}` is not a constant expression", self.t(e.span())),
                ));
                Op::Sink
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn vector(
        &self,
        elems: &[Operand],
        span: Span,
        ty: Option<Type>,
        relaxed: bool,
        want: Option<u32>,
        fx: &Fx<'a>,
        errs: &mut Vec<Diagnostic>,
    ) -> Op {
        if let Some(n) = want
            && elems.len() as u32 != n
        {
            errs.push(err(
                DiagKind::OperandKind,
                span,
                format!("vector operand has {} elements, expected {n}", elems.len()),
            ));
        }
        Op::Vector(
            elems
                .iter()
                .map(|e| match e {
                    Operand::Sink(_) => Op::Sink,
                    Operand::Expr(x) => self.imm(x, Kind::RI, ty, fx, errs),
                    Operand::Name { name, comp } => {
                        // Predicate elements appear in some vector forms.
                        let n = self.t(*name);
                        if let Some(Res::Reg(r)) = self.lookup(fx, n)
                            && fx.func.regs[r as usize].ty == Type::Pred
                        {
                            return Op::Pred { reg: r, neg: false };
                        }
                        self.reg_operand(*name, *comp, Kind::R, ty, relaxed, fx, errs)
                    }
                    _ => {
                        errs.push(err(
                            DiagKind::OperandKind,
                            e.span(),
                            "vector elements must be registers, constants or `_`",
                        ));
                        Op::Sink
                    }
                })
                .collect(),
        )
    }

    fn address(
        &self,
        parts: &[Operand],
        span: Span,
        fx: &Fx<'a>,
        errs: &mut Vec<Diagnostic>,
    ) -> Op {
        if parts.len() > 1 {
            return Op::TexAddr(
                parts
                    .iter()
                    .map(|p| self.any_operand(p, fx, errs))
                    .collect(),
            );
        }
        let addr_reg = |r: RegId, errs: &mut Vec<Diagnostic>, s: Span| {
            let t = fx.func.regs[r as usize].ty;
            if !matches!(
                t,
                Type::U32 | Type::U64 | Type::S32 | Type::S64 | Type::B32 | Type::B64
            ) {
                errs.push(err(
                    DiagKind::OperandType,
                    s,
                    format!("address register has type `{t}`; it must be a 32- or 64-bit integer"),
                ));
            }
        };
        match &parts[0] {
            Operand::Name { name, comp: None } => {
                let n = self.t(*name);
                match self.lookup(fx, n) {
                    Some(Res::Reg(r)) => {
                        addr_reg(r, errs, *name);
                        Op::Addr {
                            base: Base::Reg(r),
                            offset: 0,
                        }
                    }
                    Some(Res::Var(v)) => Op::Addr {
                        base: Base::Var(v),
                        offset: 0,
                    },
                    Some(Res::Func(f)) => Op::Func(f),
                    Some(_) => {
                        errs.push(err(
                            DiagKind::OperandKind,
                            *name,
                            format!("`{n}` cannot be used as an address"),
                        ));
                        Op::Sink
                    }
                    None => {
                        errs.push(err(
                            DiagKind::Undeclared,
                            *name,
                            format!("undeclared identifier `{n}`"),
                        ));
                        Op::Sink
                    }
                }
            }
            Operand::Expr(e) => {
                if let Some(Val::Int(v)) = eval(e) {
                    return Op::Addr {
                        base: Base::Abs,
                        offset: v as i64,
                    };
                }
                match sym_expr(e, self.src) {
                    Some((n, off, _)) => match self.lookup(fx, n) {
                        Some(Res::Reg(r)) => {
                            addr_reg(r, errs, e.span());
                            Op::Addr {
                                base: Base::Reg(r),
                                offset: off,
                            }
                        }
                        Some(Res::Var(v)) => Op::Addr {
                            base: Base::Var(v),
                            offset: off,
                        },
                        Some(_) => {
                            errs.push(err(
                                DiagKind::OperandKind,
                                e.span(),
                                format!("`{n}` cannot be used as an address"),
                            ));
                            Op::Sink
                        }
                        None => {
                            errs.push(err(
                                DiagKind::Undeclared,
                                e.span(),
                                format!("undeclared identifier `{n}`"),
                            ));
                            Op::Sink
                        }
                    },
                    None => {
                        errs.push(err(DiagKind::OperandKind, span, "an address must be `[reg]`, `[reg+imm]`, `[var]`, `[var+imm]` or `[imm]`"));
                        Op::Sink
                    }
                }
            }
            _ => {
                errs.push(err(
                    DiagKind::OperandKind,
                    span,
                    "an address must be `[reg]`, `[reg+imm]`, `[var]`, `[var+imm]` or `[imm]`",
                ));
                Op::Sink
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    Module,
    Body,
    EntryParam,
    FuncParam,
}

enum Res {
    Reg(RegId),
    Var(VarRef),
    Func(FuncId),
    Label(BlockId),
    Special,
    SReg(u16, Type, bool),
}

/// Version and target requirements of special registers.
fn sreg_gate(name: &str) -> Gate {
    let (ptx, sm) = match name {
        "%clusterid"
        | "%nclusterid"
        | "%cluster_ctaid"
        | "%cluster_nctaid"
        | "%cluster_ctarank"
        | "%cluster_nctarank"
        | "%is_explicit_cluster" => (78, 90),
        "%aggr_smem_size" => (81, 90),
        "%current_graph_exec" => (80, 50),
        "%reserved_smem_offset_begin"
        | "%reserved_smem_offset_end"
        | "%reserved_smem_offset_cap" => (76, 80),
        "%dynamic_smem_size" | "%total_smem_size" => (41, 20),
        "%globaltimer" | "%globaltimer_lo" | "%globaltimer_hi" => (31, 20),
        "%clock_hi" => (50, 20),
        "%nwarpid" | "%nsmid" => (20, 20),
        _ => (10, 10),
    };
    Gate {
        ptx,
        sm,
        arch_specific: false,
    }
}

/// The register a name like `%r12` denotes within declared ranges (`%r<100>`).
fn range_member(ranges: &HashMap<&str, (u32, u32)>, name: &str) -> Option<RegId> {
    if ranges.is_empty() {
        return None;
    }
    let digits = name.len() - name.bytes().rev().take_while(u8::is_ascii_digit).count();
    if digits == name.len() {
        return None;
    }
    let (prefix, num) = name.split_at(digits);
    let &(first, count) = ranges.get(prefix)?;
    let n = num.parse::<u32>().ok()?;
    (n < count && (num == "0" || !num.starts_with('0'))).then_some(first + n)
}

/// The lowest PTX ISA version (major*10+minor) that knows a target.
fn target_min_ptx(sm: u32, arch: bool) -> u32 {
    let base = match sm {
        10..=13 => 10,
        20 | 21 => 20,
        30 => 30,
        32 => 40,
        35 => 31,
        37 => 41,
        50 => 40,
        52 => 41,
        53 => 42,
        60..=62 => 50,
        70 => 60,
        72 => 61,
        75 => 63,
        80 => 70,
        86 => 71,
        87 => 74,
        88 => 90,
        89 => 78,
        90 => 78,
        100 | 101 => 86,
        103 => 88,
        110 => 90,
        120 => 87,
        121 => 88,
        _ => 10,
    };
    if arch && sm == 90 { 80 } else { base }
}

/// PTX ISA versions that exist (major*10+minor), up to the newest the fixtures use.
fn is_known_version(maj: u32, min: u32) -> bool {
    match maj {
        1 => min <= 5,
        2 => min <= 3,
        3 => min <= 2,
        4 => min <= 3,
        5 => min == 0,
        6 => min <= 5,
        7 => min <= 8,
        8 => min <= 8,
        9 => min <= 5,
        _ => false,
    }
}

fn is_known_sm(v: u32) -> bool {
    matches!(
        v,
        10 | 11
            | 12
            | 13
            | 20
            | 21
            | 30
            | 32
            | 35
            | 37
            | 50
            | 52
            | 53
            | 60
            | 61
            | 62
            | 70
            | 72
            | 75
            | 80
            | 86
            | 87
            | 88
            | 89
            | 90
            | 100
            | 101
            | 103
            | 110
            | 120
            | 121
    )
}

fn comp_index(c: &str) -> Option<u8> {
    match c {
        ".x" | ".r" => Some(0),
        ".y" | ".g" => Some(1),
        ".z" | ".b" => Some(2),
        ".w" | ".a" => Some(3),
        _ => None,
    }
}

fn vec_count(t: &str) -> Option<u32> {
    match t {
        ".v2" => Some(2),
        ".v4" => Some(4),
        ".v8" => Some(8),
        ".v16" => Some(16),
        _ => None,
    }
}

/// Orders error sets so the more specific explanation wins ties.
fn rank(e: &[Diagnostic]) -> u8 {
    match e.first().map(|d| d.kind) {
        Some(DiagKind::Undeclared) | Some(DiagKind::UndefinedLabel) => 0,
        Some(DiagKind::OperandType) => 1,
        _ => 2,
    }
}

/// Forms sharing the most modifiers with the instruction, for "a valid form is" notes.
fn best_forms(t: &Table, forms: &[usize], mods: &[&str]) -> Vec<usize> {
    // Score: modifiers the form knows, minus required slots left unfilled, plus a bonus when
    // a type slot can take a type of the same size and family as one written.
    let family = |ty: Type| (ty.bits(), ty.class() == Class::Float);
    let mut scored: Vec<(i64, usize)> = forms
        .iter()
        .map(|&fi| {
            let f = &t.forms[fi];
            let groups = t.groups(f);
            let accepts = |s: &Slot, m: &str| match s {
                Slot::Lit { text, .. } => text == m,
                Slot::Group { group, .. } => groups[*group].values.iter().any(|v| v.text == m),
            };
            let values = |s: &Slot| -> Vec<String> {
                match s {
                    Slot::Lit { text, .. } => vec![text.clone()],
                    Slot::Group { group, .. } => groups[*group]
                        .values
                        .iter()
                        .map(|v| v.text.clone())
                        .collect(),
                }
            };
            let known = mods
                .iter()
                .filter(|m| f.slots.iter().any(|s| accepts(s, m)))
                .count() as i64;
            let unfilled = f
                .slots
                .iter()
                .filter(|s| {
                    !matches!(
                        s,
                        Slot::Lit { optional: true, .. } | Slot::Group { optional: true, .. }
                    )
                })
                .filter(|s| !mods.iter().any(|m| accepts(s, m)))
                .count() as i64;
            let bonus = mods
                .iter()
                .filter_map(|m| Type::from_dot(m))
                .filter(|ty| {
                    f.slots.iter().any(|s| {
                        values(s)
                            .iter()
                            .filter_map(|v| Type::from_dot(v))
                            .any(|v| family(v) == family(*ty))
                    })
                })
                .count() as i64;
            (-(2 * known - unfilled + bonus), fi)
        })
        .collect();
    scored.sort();
    scored.into_iter().map(|x| x.1).collect()
}

/// The value of a constant expression.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Val {
    Int(u64),
    Float(f64),
}

/// Evaluates a constant expression (§4.5.4): 64-bit integer arithmetic with wrapping,
/// floats for float literals. Names other than `WARP_SZ` make it non-constant.
pub fn eval(e: &Expr) -> Option<Val> {
    use ptxvm_syntax::ast::{BinOp, UnOp};
    Some(match e {
        Expr::Int { value, .. } => Val::Int(*value),
        Expr::Float { bits, .. } => Val::Float(f64::from_bits(*bits)),
        Expr::Name(_) => return None,
        Expr::Paren { e, .. } => eval(e)?,
        Expr::Unary { op, e, .. } => match (op, eval(e)?) {
            (UnOp::Neg, Val::Int(v)) => Val::Int(v.wrapping_neg()),
            (UnOp::Neg, Val::Float(f)) => Val::Float(-f),
            (UnOp::Plus, v) => v,
            (UnOp::Not, Val::Int(v)) => Val::Int((v == 0) as u64),
            (UnOp::BitNot, Val::Int(v)) => Val::Int(!v),
            _ => return None,
        },
        Expr::Binary { op, l, r, .. } => {
            let (a, b) = (eval(l)?, eval(r)?);
            match (a, b) {
                (Val::Int(a), Val::Int(b)) => Val::Int(match op {
                    BinOp::Mul => a.wrapping_mul(b),
                    BinOp::Div => (a as i64).checked_div(b as i64)? as u64,
                    BinOp::Rem => (a as i64).checked_rem(b as i64)? as u64,
                    BinOp::Add => a.wrapping_add(b),
                    BinOp::Sub => a.wrapping_sub(b),
                    BinOp::Shl => a.wrapping_shl(b as u32),
                    BinOp::Shr => ((a as i64).wrapping_shr(b as u32)) as u64,
                    BinOp::Lt => ((a as i64) < (b as i64)) as u64,
                    BinOp::Gt => ((a as i64) > (b as i64)) as u64,
                    BinOp::Le => ((a as i64) <= (b as i64)) as u64,
                    BinOp::Ge => ((a as i64) >= (b as i64)) as u64,
                    BinOp::Eq => (a == b) as u64,
                    BinOp::Ne => (a != b) as u64,
                    BinOp::BitAnd => a & b,
                    BinOp::BitXor => a ^ b,
                    BinOp::BitOr => a | b,
                    BinOp::And => (a != 0 && b != 0) as u64,
                    BinOp::Or => (a != 0 || b != 0) as u64,
                }),
                (a, b) => {
                    let f = |v: Val| match v {
                        Val::Int(i) => i as i64 as f64,
                        Val::Float(x) => x,
                    };
                    let (a, b) = (f(a), f(b));
                    match op {
                        BinOp::Mul => Val::Float(a * b),
                        BinOp::Div => Val::Float(a / b),
                        BinOp::Add => Val::Float(a + b),
                        BinOp::Sub => Val::Float(a - b),
                        BinOp::Lt => Val::Int((a < b) as u64),
                        BinOp::Gt => Val::Int((a > b) as u64),
                        BinOp::Le => Val::Int((a <= b) as u64),
                        BinOp::Ge => Val::Int((a >= b) as u64),
                        BinOp::Eq => Val::Int((a == b) as u64),
                        BinOp::Ne => Val::Int((a != b) as u64),
                        _ => return None,
                    }
                }
            }
        }
        Expr::Cond { c, t, f, .. } => match eval(c)? {
            Val::Int(0) => eval(f)?,
            Val::Int(_) => eval(t)?,
            Val::Float(x) => {
                if x != 0.0 {
                    eval(t)?
                } else {
                    eval(f)?
                }
            }
        },
        Expr::Call { .. } => return None,
    })
}

/// `WARP_SZ` is the one predefined constant name.
fn const_int(e: &Expr) -> Option<i64> {
    match eval(e)? {
        Val::Int(v) => Some(v as i64),
        Val::Float(_) => None,
    }
}

/// Recognises `sym`, `sym+off`, `sym-off`, `off+sym`, `generic(sym)` (+off).
fn sym_expr<'s>(e: &Expr, src: &'s str) -> Option<(&'s str, i64, bool)> {
    use ptxvm_syntax::ast::BinOp;
    match e {
        Expr::Name(s) => Some((s.text(src), 0, false)),
        Expr::Paren { e, .. } => sym_expr(e, src),
        Expr::Call { name, args, .. } if name.text(src) == "generic" && args.len() == 1 => {
            let (n, o, _) = sym_expr(&args[0], src)?;
            Some((n, o, true))
        }
        Expr::Binary {
            op: BinOp::Add,
            l,
            r,
            ..
        } => match (sym_expr(l, src), eval(r), eval(l), sym_expr(r, src)) {
            (Some((n, o, g)), Some(Val::Int(v)), _, _) => Some((n, o.wrapping_add(v as i64), g)),
            (_, _, Some(Val::Int(v)), Some((n, o, g))) => Some((n, o.wrapping_add(v as i64), g)),
            _ => None,
        },
        Expr::Binary {
            op: BinOp::Sub,
            l,
            r,
            ..
        } => match (sym_expr(l, src), eval(r)) {
            (Some((n, o, g)), Some(Val::Int(v))) => Some((n, o.wrapping_sub(v as i64), g)),
            _ => None,
        },
        _ => None,
    }
}

fn push_float(data: &mut InitData, ty: Type, f: f64) {
    match ty {
        Type::F64 => data.bytes.extend_from_slice(&f.to_le_bytes()),
        Type::F32 => data.bytes.extend_from_slice(&(f as f32).to_le_bytes()),
        _ => data
            .bytes
            .extend(std::iter::repeat_n(0, ty.bytes() as usize)),
    }
}
