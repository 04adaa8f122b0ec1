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
use rustc_hash::FxHashMap as HashMap;

mod body;
mod eval;
mod instr;
mod video;

pub use eval::{Val, eval};
use eval::{const_int, push_float, sym_expr};

/// Lowers and checks a module. Returns the IR and every diagnostic (the IR is complete
/// only when there are no errors).
pub fn lower(m: &ast::Module, src: &str, opts: &crate::CheckOptions) -> (Module, Vec<Diagnostic>) {
    let mut cx = Cx {
        src,
        arch: opts.arch,
        opcode: std::cell::Cell::new(""),
        table: Table::get(),
        diags: Vec::new(),
        out: Module {
            address_size: 64,
            ..Module::default()
        },
        globals: HashMap::default(),
        funcs: HashMap::default(),
        gate_ok: true,
        matches: HashMap::default(),
        module_regs: 0,
    };
    cx.module(m);
    (cx.out, cx.diags)
}

struct Cx<'a> {
    src: &'a str,
    /// The opcode of the instruction being checked (ptxas's constant rules depend on it).
    opcode: std::cell::Cell<&'static str>,
    /// The architecture compiled for (`--arch`), if given.
    arch: Option<(u32, bool)>,
    table: &'static Table,
    diags: Vec<Diagnostic>,
    out: Module,
    /// Module-scope variable name → index.
    globals: HashMap<&'a str, u32>,
    /// Function name → index.
    funcs: HashMap<&'a str, u32>,
    /// Whether `.version`/`.target` are known well enough to gate instructions.
    gate_ok: bool,
    /// Modifier-match results per instruction spelling (`ld.global.nc.f32`): real code
    /// repeats a few hundred spellings thousands of times.
    matches: HashMap<&'a str, Spelling>,
    /// Registers declared in the module so far (all functions).
    module_regs: u64,
}

/// Most virtual registers one function may declare (each `%r<N>` member counts): 2^20.
pub const MAX_REGS_PER_FUNC: u64 = 1 << 20;
/// Most virtual registers a whole module may declare: 2^22. Both bound the memory the
/// checker and the interpreter's register files use; real PTX stays far below them.
pub const MAX_REGS_PER_MODULE: u64 = 1 << 22;

/// The cached match of one instruction spelling.
#[derive(Clone)]
struct Spelling {
    /// Forms whose modifier slots the spelling fills, with their bindings.
    matched: std::sync::Arc<[(usize, Bindings)]>,
    /// The modifiers as `'static` text from the table (empty when nothing matched).
    mods: std::sync::Arc<[&'static str]>,
}

/// Per-function resolution state.
struct Fx<'a> {
    /// Scopes of names: each maps a name to what it denotes.
    scopes: Vec<HashMap<&'a str, Local>>,
    /// The names of each scope, sorted (for range-member queries).
    sorted: Vec<std::collections::BTreeSet<&'a str>>,
    /// Register ranges visible per scope: prefix → (first id, count, type, vector).
    ranges: Vec<HashMap<&'a str, (u32, u32)>>,
    labels: HashMap<&'a str, u32>,
    /// Labels of `.callprototype`, `.branchtargets`, `.calltargets`.
    specials: HashMap<&'a str, &'a str>,
    func: Func,
    loc: Option<(u32, u32, u32)>,
    /// Whether the next instruction starts a new block.
    new_block: bool,
    /// Block index of each label id (labels are numbered in source order; blocks also
    /// include unlabelled fall-through blocks).
    label_blocks: Vec<u32>,
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

                            // ptxas accepts a repeated `.target` anywhere.
                            if seen_other && seen_version && !seen_target {
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
                                    Some(32) => {
                                        self.out.address_size = 32;
                                        self.push(err(
                                            DiagKind::Directive,
                                            e.span(),
                                            "`.address_size 32`: 32-bit compilation is not supported by current toolchains (ptxas rejects it)",
                                        ));
                                    }
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
        // `.target debug` promises DWARF sections.
        if self.out.targets.iter().any(|t| t == "debug")
            && !m
                .items
                .iter()
                .any(|it| matches!(it, ast::Item::Directive(d) if self.t(d.name) == ".section"))
            && let Some(ast::Item::Directive(d)) = m
                .items
                .iter()
                .find(|it| matches!(it, ast::Item::Directive(d) if self.t(d.name) == ".target"))
        {
            self.push(err(DiagKind::Directive, d.span, "`.target ... debug` requires debug information (`.section .debug_*`), and the module has none"));
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
                    let cut = n.find(|c: char| !c.is_ascii_digit()).unwrap_or(n.len());
                    let (digits, suffix) = n.split_at(cut);
                    let arch = matches!(suffix, "a" | "f");
                    if !arch && !suffix.is_empty() && suffix.bytes().all(|b| b.is_ascii_lowercase())
                    {
                        // ptxas ignores unknown suffixes; say so without failing.
                        self.push(Diagnostic::warning(
                            DiagKind::Directive,
                            *s,
                            format!("unknown suffix `{suffix}` in target `{t}` is ignored"),
                        ));
                    }
                    let digits = if suffix.bytes().all(|b| b.is_ascii_lowercase()) {
                        digits
                    } else {
                        n
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
                if let Some((a, a_spec)) = self.arch {
                    let spec = self.out.arch_specific;
                    if v > a || (spec && (!a_spec || v != a)) {
                        let s = if spec { "a" } else { "" };
                        let aa = if a_spec { "a" } else { "" };
                        self.push(err(
                            DiagKind::Target,
                            d.span,
                            format!("`.target sm_{v}{s}` cannot be compiled for architecture `sm_{a}{aa}`"),
                        ));
                    }
                }
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
        if space == Space::Param
            && matches!(
                ty,
                Type::F16x2
                    | Type::Bf16x2
                    | Type::E4m3
                    | Type::E5m2
                    | Type::E4m3x2
                    | Type::E5m2x2
                    | Type::U16x2
                    | Type::S16x2
                    | Type::F32x2
                    | Type::Tf32
            )
        {
            self.push(err(
                DiagKind::Declaration,
                v.ty.unwrap_or(v.span),
                format!("`{ty}` variables cannot be allocated in the `.param` state space"),
            ));
        } else if space != Space::Reg
            && matches!(
                ty,
                Type::E4m3x2 | Type::E5m2x2 | Type::U16x2 | Type::S16x2 | Type::F32x2 | Type::Tf32
            )
        {
            self.push(err(
                DiagKind::Declaration,
                v.ty.unwrap_or(v.span),
                format!("`{ty}` may only be used as an instruction type"),
            ));
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
            if ty.class() == Class::Float {
                self.push(err(
                    DiagKind::Declaration,
                    p.span,
                    format!("`.ptr` cannot apply to a floating-point parameter (`{ty}`)"),
                ));
            }
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
                    let n_elems = checked_product(dims.iter().copied())
                        .unwrap_or(u64::MAX)
                        .max(1);
                    let mut data = InitData::default();
                    let mut count = 0u64;
                    self.init(i, ty, &mut data, &mut count, dims.len());
                    if dims.first() == Some(&0) {
                        // `[]` sized by the initialiser.
                        let inner = checked_product(dims.iter().skip(1).copied())
                            .and_then(|x| x.checked_mul(vector as u64))
                            .unwrap_or(u64::MAX)
                            .max(1);
                        dims[0] = count.div_ceil(inner).max(1);
                    } else if count > n_elems.saturating_mul(vector as u64) {
                        self.push(err(
                            DiagKind::Declaration,
                            i.span(),
                            format!(
                                "initialiser has {count} elements but the variable holds {}",
                                n_elems.saturating_mul(vector as u64)
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
            // Sizes are checked, never wrapped: a declaration whose size does not fit in
            // 64 bits (`.global .b8 g[1<<40][1<<40]`) is an error, not a small variable.
            let size = match checked_product(dims.iter().copied())
                .and_then(|n| n.checked_mul(elem as u64))
                .filter(|&n| n <= MAX_VAR_BYTES)
            {
                Some(n) => n,
                None => {
                    self.push(err(
                        DiagKind::Declaration,
                        d.span,
                        format!(
                            "`{}` is larger than {MAX_VAR_BYTES} bytes (2^48), more than any GPU can address",
                            self.t(d.name)
                        ),
                    ));
                    0
                }
            };
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

/// The product of `xs`, or `None` when it overflows `u64`.
fn checked_product(mut xs: impl Iterator<Item = u64>) -> Option<u64> {
    xs.try_fold(1u64, |acc, x| acc.checked_mul(x))
}

/// Largest variable the checker accepts: 2^48 bytes (the 48-bit virtual address space of
/// current GPUs). Smaller limits (device memory, shared memory per CTA, parameter space,
/// local memory per thread) are the runtime's and are enforced at load or launch.
pub const MAX_VAR_BYTES: u64 = 1 << 48;
