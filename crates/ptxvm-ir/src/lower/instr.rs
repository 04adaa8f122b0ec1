//! Instructions: matching against the instruction table, operand kinds and types,
//! gating, and the state-space and call checks.

use super::*;

impl<'a> Cx<'a> {
    pub(super) fn instr(&mut self, i: &ast::Instr, fx: &mut Fx<'a>) -> Option<Inst> {
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
        if let Some(&fi) = forms.first() {
            self.opcode.set(table.forms[fi].opcode.as_str());
        }
        let spelling = match self.matches.get(whole) {
            Some(m) => m.clone(),
            None => {
                let sp = spelling(table, whole, forms, &mods);
                self.matches.insert(whole, sp.clone());
                sp
            }
        };
        let matched = spelling.matched;
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
        self.video_checks(opcode, &mods, i, &ops);
        if matches!(opcode, "bar" | "barrier")
            && let Some(Op::Imm(id)) = ops.first()
            && *id > 15
            && !mods.contains(&".warp")
        {
            self.push(err(
                DiagKind::OperandKind,
                i.operands[0].span(),
                format!("barrier number {} is out of range 0..15", *id as i64),
            ));
        }
        if opcode == "call" {
            self.call_checks(i, &ops, fx);
        }
        // mma.sp: ptxas bounds the sparsity selector to 0..3, and to 0 where all four threads of
        // a group hold metadata (8-bit types at k64, 4-bit at k128). wgmma.mma_async.sp: to the
        // ISA's 0..1 (f16, bf16, tf32: a thread pair) or 0 (8-bit types: all four threads).
        let sparse_sel = match opcode {
            "mma" if mods.iter().any(|m| m.starts_with(".sp")) => Some(5),
            "wgmma" if mods.contains(&".sp") => Some(4),
            _ => None,
        };
        if let Some(at) = sparse_sel
            && let Some(Op::Imm(sel)) = ops.get(at)
        {
            let all4 = if opcode == "wgmma" {
                !mods
                    .iter()
                    .any(|m| matches!(*m, ".f16" | ".bf16" | ".tf32"))
                    || mods.iter().any(|m| matches!(*m, ".e4m3" | ".e5m2"))
            } else {
                (mods.contains(&".m16n8k64") && !mods.iter().any(|m| matches!(*m, ".s4" | ".u4")))
                    || mods.contains(&".m16n8k128")
            };
            let max = match (all4, opcode) {
                (true, _) => 0,
                (false, "wgmma") => 1,
                _ => 3,
            };
            if *sel > max {
                self.push(err(
                    DiagKind::OperandKind,
                    i.operands[at].span(),
                    format!(
                        "sparsity selector {} is out of range 0..{max} for this shape and type",
                        *sel as i64
                    ),
                ));
            }
        }
        Some(Inst {
            form: fi as u32,
            opcode: f.opcode.as_str(),
            mods: spelling.mods,
            ty: primary_type(table, f, b),
            guard,
            operands: ops,
        })
    }

    /// The space of a variable reference.
    pub(super) fn var_space(&self, v: VarRef, fx: &Fx<'a>) -> Option<Space> {
        match v {
            VarRef::Global(g) => self.out.vars.get(g as usize).map(|x| x.space),
            VarRef::Local(l) => fx.func.locals.get(l as usize).map(|x| x.space),
            VarRef::Param(p) => fx.func.params.get(p as usize).map(|x| x.space),
            VarRef::Ret(p) => fx.func.rets.get(p as usize).map(|x| x.space),
        }
    }

    /// An address naming a variable must use the variable's state space.
    pub(super) fn space_checks(
        &mut self,
        opcode: &str,
        mods: &[&str],
        i: &ast::Instr,
        ops: &[Op],
        fx: &Fx<'a>,
    ) {
        let space = mods.iter().find_map(|m| Space::from_dot(m));
        // A copy between two spaces (`cp.async.ca.shared.global`,
        // `cp.reduce.async.bulk.global.shared::cta`, …) names the destination's space, then
        // the source's: its second operand is in the second space. (A tensor load's second
        // operand is the `[tensorMap, {coords}]` pair, in whatever space holds the map, and
        // its first the shared destination; a tensor store's or reduction's second is its
        // shared source, in the second space as for the others; so is
        // `tensormap.cp_fenceproxy.global.shared::cta`'s.)
        let tensor_load = mods.contains(&".tensor") && !mods.contains(&".bulk_group");
        let two_space = (opcode == "cp" && !tensor_load)
            || (opcode == "tensormap" && mods.contains(&".cp_fenceproxy"));
        let src_space = if two_space {
            mods.iter().filter_map(|m| Space::from_dot(m)).nth(1)
        } else {
            None
        };
        if space == Some(Space::Param)
            && let Some(k) = mods
                .iter()
                .position(|m| m.starts_with(".L1::") || m.starts_with(".L2::"))
        {
            self.push(err(
                DiagKind::Modifier,
                i.mods[k],
                format!("`{}` cannot be applied to the `.param` space", mods[k]),
            ));
        }
        for (k, (o, op)) in i.operands.iter().zip(ops).enumerate() {
            let space = if k == 1 { src_space.or(space) } else { space };
            // ptxas allows absolute addresses (`[16]`) only in the local space.
            if let Op::Addr {
                base: Base::Abs, ..
            } = op
                && space != Some(Space::Local)
                && matches!(
                    opcode,
                    "ld" | "st"
                        | "ldu"
                        | "atom"
                        | "red"
                        | "wmma"
                        | "prefetch"
                        | "cp"
                        | "ldmatrix"
                        | "stmatrix"
                )
            {
                self.push(err(
                    DiagKind::OperandKind,
                    o.span(),
                    "absolute addresses are allowed only in the `.local` state space",
                ));
                continue;
            }
            // A generic access cannot name a `.param` variable.
            if space.is_none()
                && let Op::Addr {
                    base: Base::Var(v), ..
                } = op
                && self.var_space(*v, fx) == Some(Space::Param)
                && matches!(opcode, "ld" | "st")
            {
                self.push(err(DiagKind::StateSpace, o.span(), format!("`{}` is a `.param` variable; `{opcode}` without `.param` uses generic addresses", self.t(o.span()).trim_matches(['[', ']']))));
                continue;
            }
            let Some(space) = space else { continue };
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
    pub(super) fn call_checks(&mut self, i: &ast::Instr, ops: &[Op], fx: &Fx<'a>) {
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
    pub(super) fn check_names(&mut self, o: &Operand, fx: &Fx<'a>) {
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
    pub(super) fn operands(
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
                // An untyped immediate-only operand (a count, a scale, a flag) is unchecked.
                TyRef::Primary if spec.kind == Kind::I => None,
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
            let is_dest = k == 0 && !f.first_is_source;
            if is_dest
                && let Operand::Name { name, .. } = o
                && let Some(Res::SReg(..)) = self.lookup(fx, self.t(*name))
            {
                errs.push(err(
                    DiagKind::OperandKind,
                    *name,
                    format!(
                        "read-only special register `{}` cannot be a destination",
                        self.t(*name)
                    ),
                ));
            }
            // The `.v4` of `tex`/`tld4` is the result's length; their offset and gradient
            // vectors have the geometry's length (ptxas takes `{dx, dy}` for a `.2d` offset).
            let vec_len = if k > 0 && matches!(self.t(i.opcode), "tex" | "tld4") {
                None
            } else {
                vec_len
            };
            out.push(self.operand(o, spec.kind, ty, f.relaxed, vec_len, is_dest, fx, errs));
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn operand(
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
            | Kind::RReg
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
                    // `-%r` (vmad's operand negates; `video_checks` rejects it elsewhere).
                    Operand::Neg { name, comp, .. } if kind != Kind::I && !is_dest => Op::Neg(
                        Box::new(self.reg_operand(*name, *comp, kind, ty, relaxed, fx, errs)),
                    ),
                    // ptxas also takes a constant where the manual says register, in source
                    // positions (`cvta.to.global.u64 %rd1, 255`, `shfl.sync... d, 1, ...`).
                    Operand::Expr(e)
                        if matches!(kind, Kind::RI | Kind::RIS | Kind::I)
                            || (!is_dest && kind == Kind::R) =>
                    {
                        self.imm(e, kind, ty, fx, errs)
                    }
                    Operand::Vector { elems, .. } if kind == Kind::RV => {
                        self.vector(is_dest, elems, o.span(), ty, relaxed, vec_len, fx, errs)
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
                    // `{d0, ..}|p`: a vector destination with a predicate (`tex`, `tld4`,
                    // whose `.v4`/`.v2` gives the length).
                    let a2 = if matches!(**a, Operand::Vector { .. }) && vec_len.is_some() {
                        self.operand(a, Kind::V, ty, relaxed, vec_len, true, fx, errs)
                    } else {
                        self.operand(a, Kind::PSink, None, false, None, true, fx, errs)
                    };
                    let b2 = self.operand(b, Kind::PSink, None, false, None, true, fx, errs);
                    Op::Pair(Box::new(a2), Box::new(b2))
                }
                // Source predicates also take integer constants, as in ptxas.
                Operand::Expr(e)
                    if kind == Kind::PI || (!is_dest && matches!(kind, Kind::P | Kind::NP)) =>
                {
                    match eval(e) {
                        Some(Val::Int(v)) => Op::Imm(v),
                        _ => bad_kind(errs),
                    }
                }
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
                    self.vector(is_dest, elems, o.span(), ty, relaxed, want, fx, errs)
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
    pub(super) fn any_operand(&self, o: &Operand, fx: &Fx<'a>, errs: &mut Vec<Diagnostic>) -> Op {
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
            Operand::Neg { name, comp, .. } => Op::Neg(Box::new(self.reg_operand(
                *name,
                *comp,
                Kind::RIS,
                None,
                true,
                fx,
                errs,
            ))),
            Operand::Pair { a, b, .. } => Op::Pair(
                Box::new(self.any_operand(a, fx, errs)),
                Box::new(self.any_operand(b, fx, errs)),
            ),
            Operand::Sink(_) => Op::Sink,
        }
    }

    pub(super) fn pred(
        &self,
        name: Span,
        neg: bool,
        fx: &Fx<'a>,
        errs: &mut Vec<Diagnostic>,
    ) -> Op {
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
    pub(super) fn reg_operand(
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
                    // Which selectors a position takes is checked per instruction
                    // (`video_checks`); here only the spelling.
                    if let Some(sel) = VSel::parse(c) {
                        return Op::Select(r, sel);
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

    pub(super) fn type_error(&self, span: Span, n: &str, have: Type, want: Type) -> Diagnostic {
        let msg = if have.class() == want.class() && have.bits() > want.bits() {
            format!(
                "operand `{n}` of type `{have}`: operand size exceeding instruction-type size (`{want}`)"
            )
        } else {
            format!("operand `{n}` has type `{have}`, which does not agree with `{want}`")
        };
        err(DiagKind::OperandType, span, msg)
    }

    pub(super) fn imm(
        &self,
        e: &Expr,
        kind: Kind,
        ty: Option<Type>,
        fx: &Fx<'a>,
        errs: &mut Vec<Diagnostic>,
    ) -> Op {
        match eval(e) {
            Some(Val::Int(v)) => {
                // ptxas takes no integer constants for floating-point operands.
                if let Some(t) = ty
                    && t.class() == Class::Float
                {
                    errs.push(err(
                        DiagKind::OperandType,
                        e.span(),
                        format!(
                            "integer constant `{}` for a `{t}` operand (write floating-point constants as `0f...`, `0d...` or `1.0`)",
                            self.t(e.span())
                        ),
                    ));
                }
                Op::Imm(v)
            }
            Some(Val::Float(f)) => {
                let hex_bits = match e {
                    Expr::Float { single: true, .. } => Some(32),
                    Expr::Float { span, .. }
                        if span.text(self.src).starts_with(['0'])
                            && span.text(self.src)[1..].starts_with(['d', 'D']) =>
                    {
                        Some(64)
                    }
                    _ => None,
                };
                let half = matches!(
                    ty,
                    Some(Type::F16 | Type::Bf16 | Type::F16x2 | Type::Bf16x2)
                );
                if let Some(t) = ty
                    && (half
                        || (t.class() == Class::Bit
                            && (hex_bits.is_none() || self.opcode.get() == "shfl")))
                {
                    // ptxas takes no floating-point constants for half types, no decimal
                    // ones for bit types, and hex ones (`0f...`) for bit types except in `shfl`.
                    errs.push(err(
                        DiagKind::OperandType,
                        e.span(),
                        format!(
                            "floating-point constant `{}` for a `{t}` operand of `{}`",
                            self.t(e.span()),
                            self.opcode.get()
                        ),
                    ));
                } else if let (Some(t), Some(bits)) = (ty, hex_bits)
                    && t.class() != Class::Float
                    && t.bits() != bits
                {
                    errs.push(err(
                        DiagKind::OperandType,
                        e.span(),
                        format!(
                            "{bits}-bit floating-point constant `{}` for a `{t}` operand",
                            self.t(e.span())
                        ),
                    ));
                } else if let Some(t) = ty
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
    #[allow(clippy::too_many_arguments)]
    pub(super) fn vector(
        &self,
        is_dest: bool,
        elems: &[Operand],
        span: Span,
        ty: Option<Type>,
        relaxed: bool,
        want: Option<u32>,
        fx: &Fx<'a>,
        errs: &mut Vec<Diagnostic>,
    ) -> Op {
        if is_dest && let Some(e) = elems.iter().find(|e| matches!(e, Operand::Expr(_))) {
            errs.push(err(
                DiagKind::OperandKind,
                e.span(),
                "a destination vector must hold registers or `_`, not constants",
            ));
        }
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

    pub(super) fn address(
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

/// Version and target requirements of special registers.
pub(super) fn sreg_gate(name: &str) -> Gate {
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

pub(super) fn comp_index(c: &str) -> Option<u8> {
    match c {
        ".x" | ".r" => Some(0),
        ".y" | ".g" => Some(1),
        ".z" | ".b" => Some(2),
        ".w" | ".a" => Some(3),
        _ => None,
    }
}

pub(super) fn vec_count(t: &str) -> Option<u32> {
    match t {
        ".v2" => Some(2),
        ".v4" => Some(4),
        ".v8" => Some(8),
        ".v16" => Some(16),
        _ => None,
    }
}

/// Orders error sets so the more specific explanation wins ties.
pub(super) fn rank(e: &[Diagnostic]) -> u8 {
    match e.first().map(|d| d.kind) {
        Some(DiagKind::Undeclared) | Some(DiagKind::UndefinedLabel) => 0,
        Some(DiagKind::OperandType) => 1,
        _ => 2,
    }
}

/// Forms sharing the most modifiers with the instruction, for "a valid form is" notes.
/// Matches an instruction spelling (`ld.global.nc.f32`) against its opcode's forms, through
/// a process-wide cache: the set of spellings real compilers emit is small.
fn spelling(table: &'static Table, whole: &str, forms: &[usize], mods: &[&str]) -> Spelling {
    use std::sync::{Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<HashMap<Box<str>, Spelling>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(sp) = cache.lock().ok().and_then(|c| c.get(whole).cloned()) {
        return sp;
    }
    let matched: std::sync::Arc<[(usize, Bindings)]> = table.match_forms(forms, mods).into();
    let statics: Vec<&'static str> = match matched.first() {
        Some((fi, _)) => {
            let f = &table.forms[*fi];
            let groups = table.groups(f);
            mods.iter()
                .filter_map(|m| {
                    f.slots.iter().find_map(|s| match s {
                        Slot::Lit { text, .. } if text == m => Some(text.as_str()),
                        Slot::Group { group, .. } => groups[*group]
                            .values
                            .iter()
                            .find(|v| v.text == *m)
                            .map(|v| v.text.as_str()),
                        _ => None,
                    })
                })
                .collect()
        }
        None => Vec::new(),
    };
    let sp = Spelling {
        matched,
        mods: statics.into(),
    };
    if let Ok(mut c) = cache.lock()
        && c.len() < 1 << 16
    {
        c.insert(whole.into(), sp.clone());
    }
    sp
}

pub(super) fn best_forms(t: &Table, forms: &[usize], mods: &[&str]) -> Vec<usize> {
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
