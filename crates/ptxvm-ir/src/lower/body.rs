//! Function bodies: scopes, labels, register declarations and name resolution.

use super::*;

impl<'a> Cx<'a> {
    pub(super) fn func_body(&mut self, f: &ast::Function, fi: usize) {
        let Some(body) = &f.body else { return };
        let mut fx = Fx {
            scopes: vec![HashMap::default()],
            sorted: vec![Default::default()],
            ranges: vec![HashMap::default()],
            labels: HashMap::default(),
            specials: HashMap::default(),
            func: std::mem::take(&mut self.out.funcs[fi]),
            loc: None,
            new_block: true,
            label_blocks: Vec::new(),
        };
        // Parameters are the outermost scope.
        self.bind_params(f.params.as_deref(), false, &mut fx);
        self.bind_params(f.rets.as_deref(), true, &mut fx);
        self.collect_labels(body, &mut fx);
        fx.label_blocks = vec![0; fx.labels.len()];
        self.block(body, &mut fx);
        // Branch operands were resolved to label ids; bind them to their blocks.
        let lb = std::mem::take(&mut fx.label_blocks);
        for (_, ids) in &mut fx.func.branch_targets {
            for id in ids.iter_mut() {
                *id = lb.get(*id as usize).copied().unwrap_or(*id);
            }
        }
        for inst in &mut fx.func.insts {
            for op in &mut inst.operands {
                relabel(op, &lb);
            }
        }
        self.out.funcs[fi] = fx.func;
    }

    /// Puts a function's parameters (or return parameters) in the outermost scope: `.reg`
    /// parameters become registers, `.param` ones variables.
    fn bind_params(&mut self, decls: Option<&[ast::VarDecl]>, rets: bool, fx: &mut Fx<'a>) {
        let names = decls
            .into_iter()
            .flatten()
            .flat_map(|p| p.declarators.iter());
        for (i, p) in names.enumerate() {
            let n = self.t(p.name);
            let vars = if rets { &fx.func.rets } else { &fx.func.params };
            let reg = vars
                .get(i)
                .filter(|v| v.space == Space::Reg)
                .map(|v| (v.ty, v.vector));
            let local = match reg {
                Some((ty, vector)) => {
                    let id = fx.func.regs.len() as u32;
                    fx.func.regs.push(Reg {
                        name: n.to_string(),
                        ty,
                        vector,
                    });
                    Local::Reg(id)
                }
                None if rets => Local::Var(VarRef::Ret(i as u32)),
                None => Local::Var(VarRef::Param(i as u32)),
            };
            fx.sorted[0].insert(n);
            if fx.scopes[0].insert(n, local).is_some() {
                self.push(err(
                    DiagKind::Duplicate,
                    p.name,
                    format!("parameter `{n}` is declared twice"),
                ));
            }
        }
    }

    pub(super) fn collect_labels(&mut self, b: &ast::Block, fx: &mut Fx<'a>) {
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

    pub(super) fn block(&mut self, b: &ast::Block, fx: &mut Fx<'a>) {
        // Declarations of this block are visible to the whole block.
        fx.scopes.push(HashMap::default());
        fx.sorted.push(Default::default());
        fx.ranges.push(HashMap::default());
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
                    if let Some(&id) = fx.labels.get(n) {
                        let b = fx.func.blocks.len() as u32;
                        if let Some(slot) = fx.label_blocks.get_mut(id as usize) {
                            *slot = b;
                        }
                    }
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
                        // Label ids now; bound to blocks with the branch operands below.
                        let ids = sp
                            .names
                            .iter()
                            .filter_map(|n| fx.labels.get(self.t(*n)).copied())
                            .collect();
                        fx.func
                            .branch_targets
                            .push((self.t(sp.label).to_string(), ids));
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
                        let ends_block =
                            matches!(inst.opcode, "bra" | "brx" | "ret" | "exit" | "trap");
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
        fx.sorted.pop();
        fx.ranges.pop();
    }

    pub(super) fn local_decl(&mut self, v: &ast::VarDecl, fx: &mut Fx<'a>) {
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
                    // Only the names that continue `name` with a digit can be members: a
                    // range query, not a scan of the scope (which made many ranges among
                    // many names quadratic).
                    let lo = format!("{name}0");
                    let hi = format!("{name}:");
                    fx.sorted[scope]
                        .range::<str, _>((
                            std::ops::Bound::Included(lo.as_str()),
                            std::ops::Bound::Excluded(hi.as_str()),
                        ))
                        .any(|k| {
                            k.strip_prefix(name).is_some_and(|num| {
                                num.bytes().all(|b| b.is_ascii_digit())
                                    && num.parse::<u32>().is_ok_and(|v| {
                                        v < n && (num == "0" || !num.starts_with('0'))
                                    })
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
                let count = match &d.range {
                    Some((_, e)) => const_int(e).unwrap_or(0),
                    None => 1,
                };
                let func_total = fx.func.regs.len() as u64 + count.max(0) as u64;
                let module_total = self.module_regs + count.max(0) as u64;
                if count >= 0
                    && (func_total > super::MAX_REGS_PER_FUNC
                        || module_total > super::MAX_REGS_PER_MODULE)
                {
                    let (what, lim) = if func_total > super::MAX_REGS_PER_FUNC {
                        ("function", super::MAX_REGS_PER_FUNC)
                    } else {
                        ("module", super::MAX_REGS_PER_MODULE)
                    };
                    self.push(err(
                        DiagKind::Declaration,
                        d.span,
                        format!(
                            "too many registers: this declaration brings the {what} to {} registers, over ptxvm's limit of {lim}",
                            if what == "function" { func_total } else { module_total }
                        ),
                    ));
                    continue;
                }
                self.module_regs += count.max(0) as u64;
                match &d.range {
                    Some((_, e)) => {
                        let n = count;
                        if !(0..=1 << 20).contains(&n) {
                            self.push(err(
                                DiagKind::Declaration,
                                e.span(),
                                "parameterised register count out of range",
                            ));
                            continue;
                        }
                        // Members of a range are named by `Func::reg_name`, not stored.
                        fx.func.regs.extend((0..n).map(|_| Reg {
                            name: String::new(),
                            ty: var.ty,
                            vector: var.vector,
                        }));
                        fx.func.reg_ranges.push((name.to_string(), first, n as u32));
                        fx.ranges[scope].insert(name, (first, n as u32));
                    }
                    None => {
                        fx.func.regs.push(Reg {
                            name: name.to_string(),
                            ty: var.ty,
                            vector: var.vector,
                        });
                        fx.scopes[scope].insert(name, Local::Reg(first));
                        fx.sorted[scope].insert(name);
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
                fx.sorted[scope].insert(name);
            }
        }
    }

    // ---------------------------------------------------------------- name resolution

    pub(super) fn lookup(&self, fx: &Fx<'a>, name: &str) -> Option<Res> {
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
}

/// The register a name like `%r12` denotes within declared ranges (`%r<100>`).
pub(super) fn range_member(ranges: &HashMap<&str, (u32, u32)>, name: &str) -> Option<RegId> {
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

/// Rewrites label ids to block indices inside an operand.
fn relabel(op: &mut Op, lb: &[u32]) {
    match op {
        Op::Label(l) => *l = lb.get(*l as usize).copied().unwrap_or(*l),
        Op::Vector(v) | Op::List(v) | Op::TexAddr(v) => v.iter_mut().for_each(|o| relabel(o, lb)),
        Op::Pair(a, b) => {
            relabel(a, lb);
            relabel(b, lb);
        }
        _ => {}
    }
}
