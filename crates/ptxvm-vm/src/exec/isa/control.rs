//! Control flow: `bra`, `brx.idx`, `call` (direct, indirect and the built-in functions),
//! `ret`, `exit`, `trap`, `brkpt`, and the instructions with no effect here (fences,
//! `nanosleep`, `pmevent`, `griddepcontrol`, `setmaxnreg`).
//!
//! Decoding (`Dx::decode_control`, called by `program.rs`) and the reference engine's
//! execution (`Cta::exec_control`).

use crate::exec::*;
use ptxvm_ir::ir::{self, Op};

impl Dx<'_> {
    /// Decodes the control family's instructions (`None`: a form the engines do not run).
    pub(crate) fn decode_control(&self, inst: &ir::Inst, blocks: &[u32]) -> Option<Exec> {
        let ops = &inst.operands;
        let op = |k: usize| ops.get(k);
        Some(match inst.opcode {
            "brx" => {
                let Op::Target(name) = op(1)? else {
                    return None;
                };
                let targets = self.targets.iter().find(|(n, _)| n == name)?.1.clone();
                Exec::BrxIdx {
                    index: self.src(op(0)?)?,
                    targets,
                }
            }
            // No observable effect in the interpreter: sleeping and performance-monitor
            // events.
            "nanosleep" | "pmevent" => Exec::Fence,
            "brkpt" => Exec::Brkpt,
            "bra" => match op(0)? {
                Op::Label(b) => Exec::Bra {
                    target: blocks[*b as usize],
                },
                _ => return None,
            },
            "ret" => Exec::Ret,
            "exit" => Exec::Exit,
            "trap" => Exec::Trap,
            "membar" | "fence" | "griddepcontrol" | "setmaxnreg" => Exec::Fence,
            "call" => {
                // `call (rets), target, (args)`: the return and argument lists hold `.param`
                // variables; the target is a function or a register (indirect call).
                let ci = ops.iter().position(|o| !matches!(o, Op::List(_)))?;
                let list = |o: Option<&Op>| -> Option<Vec<VarLoc>> {
                    match o {
                        None => Some(Vec::new()),
                        Some(Op::List(v)) => v
                            .iter()
                            .map(|x| match x {
                                Op::Sym { var, offset: 0, .. } => Some(self.var(*var)),
                                _ => None,
                            })
                            .collect(),
                        _ => None,
                    }
                };
                let rets = if ci > 0 {
                    list(ops.first())?
                } else {
                    Vec::new()
                };
                // No argument list before a `.callprototype`/`.calltargets` name: none.
                let args = match ops.get(ci + 1) {
                    Some(Op::Target(_)) => Vec::new(),
                    o => list(o)?,
                };
                if let Op::Reg(r) = ops[ci] {
                    return Some(Exec::CallIndirect {
                        target: Src::Reg(r),
                        args,
                        rets,
                    });
                }
                let Op::Func(fi) = ops[ci] else { return None };
                let fi = self.canon[fi as usize];
                let callee = self.m.funcs.get(fi as usize)?;
                if args.len() != callee.params.len() || rets.len() != callee.rets.len() {
                    return None;
                }
                if !callee.defined
                    && let Some(which) = Builtin::named(&callee.name)
                {
                    return Some(Exec::Builtin { which, args, rets });
                }
                // A call to a function without a body that is not a builtin faults when it
                // runs, naming the function.
                Exec::Call {
                    func: fi,
                    args,
                    rets,
                }
            }
            _ => return None,
        })
    }
}

impl Cta<'_> {
    /// Runs one thread's step of a control-family instruction (the reference engine's step).
    pub(in crate::exec) fn exec_control(
        &mut self,
        t: usize,
        inst: &DInst,
        mem: &AddressSpace,
        budget: &mut Budget,
    ) -> Result<(), Box<Fault>> {
        let mut next = self.sched[t].pc + 1;
        match &inst.exec {
            Exec::Builtin { which, args, rets } => {
                self.builtin(t, *which, args, rets, mem, budget)?;
            }
            Exec::BrxIdx { index, targets } => {
                let i = self.src(t, *index) as u32 as usize;
                let Some(&target) = targets.get(i) else {
                    return Err(self.fault(
                        t,
                        FaultKind::OutOfBounds,
                        format!(
                            "brx.idx index {i} is out of range: the target list has {} labels",
                            targets.len()
                        ),
                    ));
                };
                let th = &mut self.sched[t];
                if target <= th.pc {
                    th.spins += 1;
                } else {
                    th.spins = 0;
                }
                next = target;
            }
            Exec::Bra { target } => {
                let th = &mut self.sched[t];
                if *target <= th.pc {
                    th.spins += 1;
                } else {
                    th.spins = 0;
                }
                next = *target;
            }
            Exec::Ret => {
                self.ret(t);
                return Ok(());
            }
            Exec::Exit => {
                self.exit_thread(t);
                return Ok(());
            }
            Exec::Trap => return Err(self.fault(t, FaultKind::Trap, "`trap` executed")),
            Exec::Brkpt => {
                return Err(self.fault(
                    t,
                    FaultKind::Breakpoint,
                    "`brkpt` executed: execution is suspended at a breakpoint and no debugger is \
                     attached, so the launch cannot complete",
                ));
            }
            Exec::Fence => {}
            Exec::Call { func, args, rets } => return self.call(t, *func, args, rets, next),
            Exec::CallIndirect { target, args, rets } => {
                let v = self.src(t, *target);
                let fi = v.wrapping_sub(FUNC_BASE) / 16;
                let ok = v >= FUNC_BASE
                    && (v - FUNC_BASE).is_multiple_of(16)
                    && (fi as usize) < self.prog.funcs.len();
                if !ok {
                    return Err(self.fault(
                        t,
                        FaultKind::OutOfBounds,
                        format!(
                            "indirect call through {v:#x}, which is not the address of a function"
                        ),
                    ));
                }
                let callee = &self.prog.funcs[fi as usize];
                if callee.is_entry
                    || callee.param_offsets.len() != args.len()
                    || callee.ret_offsets.len() != rets.len()
                {
                    return Err(self.fault(
                        t,
                        FaultKind::Unsupported,
                        format!(
                            "indirect call to `{}` with {} arguments and {} returns, but it takes {} and returns {}",
                            callee.name,
                            args.len(),
                            rets.len(),
                            callee.param_offsets.len(),
                            callee.ret_offsets.len()
                        ),
                    ));
                }
                return self.call(t, fi as u32, args, rets, next);
            }
            other => return Err(self.misrouted(t, other)),
        }
        self.sched[t].pc = next;
        Ok(())
    }

    /// Thread `t` exits (blocked barriers and warp syncs are re-checked after the step).
    pub(in crate::exec) fn exit_thread(&mut self, t: usize) {
        self.sched[t].state = TState::Exited;
        if let Some(m) = self.live.get_mut(t / 32) {
            *m &= !(1 << (t % 32));
        }
        self.exits_dirty = true;
    }

    /// The lanes `mask` of warp `w`, all at `pc`, exit at once (one update of the warp's
    /// live mask).
    pub(in crate::exec) fn exit_lanes(&mut self, w: usize, mask: u32, pc: u32) {
        crate::exec::fast::each_sched(&mut self.sched, w, mask, |s| {
            s.pc = pc;
            s.state = TState::Exited;
        });
        if let Some(m) = self.live.get_mut(w) {
            *m &= !mask;
        }
        self.exits_dirty = true;
    }

    pub(in crate::exec) fn ret(&mut self, t: usize) {
        if self.threads[t].frames.len() <= 1 {
            self.exit_thread(t);
            return;
        }
        self.touched = true;
        let th = &mut self.threads[t];
        let Some(fr) = th.frames.pop() else {
            self.exit_thread(t);
            return;
        };
        let frame = fr.regs.len() as u64 * 8;
        th.frame_bytes = th.frame_bytes.saturating_sub(frame);
        // Copy return values back into the caller's variables.
        for (loc, off, size) in &fr.rets {
            let caller_base = th.frames.last().map_or(0, |f| f.param_base);
            let src = fr.param_base as usize + *off as usize;
            if let VarLoc::FrameParam(o) = loc {
                let dst = caller_base as usize + *o as usize;
                let n = *size as usize;
                if src + n <= th.params.len() && dst + n <= th.params.len() {
                    th.params.copy_within(src..src + n, dst);
                }
            }
        }
        th.local_sp = fr.local_base;
        th.param_sp = fr.param_base;
        let depth = th.frames.len() as u32;
        let sc = &mut self.sched[t];
        sc.pc = fr.ret_pc;
        sc.depth = depth;
        self.credit(frame);
    }

    /// Calls a defined function: pushes a frame, copies the arguments into its parameters.
    pub(in crate::exec) fn call(
        &mut self,
        t: usize,
        func: u32,
        args: &[VarLoc],
        rets: &[VarLoc],
        next: u32,
    ) -> Result<(), Box<Fault>> {
        let func = &func;
        let prog = self.prog;
        let callee = &prog.funcs[*func as usize];
        if !callee.defined {
            return Err(self.fault(
                t,
                FaultKind::Unsupported,
                format!(
                    "call to `{}`, which is declared but not defined in the module (an `.extern .func` without a body): link the module that defines it",
                    callee.name
                ),
            ));
        }
        self.touched = true;
        let th = &self.threads[t];
        if th.frames.len() >= MAX_DEPTH {
            return Err(self.fault(
                t,
                FaultKind::StackOverflow,
                format!("call depth exceeds {MAX_DEPTH}"),
            ));
        }
        let caller_base = th.frames.last().map_or(0, |f| f.param_base);
        let local_base = th.local_sp;
        let param_base = th.param_sp;
        let need_local = local_base as u64 + callee.local_size as u64;
        let need_param = param_base as u64 + callee.param_size as u64;
        let frame = callee.reg_types.len() as u64 * 8;
        if !self.stack_fits(t, need_local, need_param, frame) {
            let have = self.launch.local_size;
            let th = &self.threads[t];
            return Err(self.fault(
                t,
                FaultKind::StackOverflow,
                format!(
                    "stack exhausted calling `{}` at depth {}: {} bytes of local variables, {} of parameters and {} of saved registers needed, {have} bytes of local memory per thread (--local-memory)",
                    callee.name,
                    th.frames.len(),
                    need_local,
                    need_param,
                    th.frame_bytes + frame
                ),
            ));
        }
        let grow = need_param.saturating_sub(self.threads[t].params.len() as u64);
        if !self.charge(frame + grow) {
            return Err(self.out_of_memory(t, "a call frame", frame + grow));
        }
        let (need_local, need_param) = (need_local as usize, need_param as usize);
        let th = &mut self.threads[t];
        th.frame_bytes += frame;
        th.local.reserve(need_local as u32);
        if th.params.len() < need_param {
            th.params.resize(need_param, 0);
        }
        // Copy arguments into the callee's parameters.
        for (k, loc) in args.iter().enumerate() {
            let (off, size) = (callee.param_offsets[k], callee.param_sizes[k]);
            if let VarLoc::FrameParam(o) = loc {
                let src = caller_base as usize + *o as usize;
                let dst = param_base as usize + off as usize;
                let n = size as usize;
                if src + n <= th.params.len() && dst + n <= th.params.len() {
                    th.params.copy_within(src..src + n, dst);
                }
            }
        }
        let ret_info = rets
            .iter()
            .enumerate()
            .map(|(k, loc)| (*loc, callee.ret_offsets[k], callee.ret_sizes[k]))
            .collect();
        th.frames.push(Frame {
            func: *func,
            regs: vec![0; callee.reg_types.len()],
            local_base,
            param_base,
            ret_pc: next,
            rets: ret_info,
        });
        th.local_sp = need_local as u32;
        th.param_sp = need_param as u32;
        let depth = th.frames.len() as u32;
        let sc = &mut self.sched[t];
        sc.pc = 0;
        sc.depth = depth;

        Ok(())
    }

    /// Whether thread `t`'s stack fits in its local memory with `local` bytes of local
    /// variables, `param` bytes of parameter area and `more` bytes of saved registers on
    /// top of the frames it has.
    pub(in crate::exec) fn stack_fits(&self, t: usize, local: u64, param: u64, more: u64) -> bool {
        let th = &self.threads[t];
        local
            .saturating_add(param)
            .saturating_add(th.frame_bytes)
            .saturating_add(more)
            <= self.launch.local_size as u64
    }

    /// Reads `size` bytes (≤ 8) of a parameter variable of the current frame.
    pub(in crate::exec) fn param_value(&self, t: usize, loc: VarLoc, size: usize) -> u64 {
        let a = self.var_addr(t, loc);
        let mut buf = [0u8; 8];
        let n = size.min(8);
        let _ = slice_read(&self.threads[t].params, a, &mut buf[..n], "parameter space");
        u64::from_le_bytes(buf)
    }

    /// Runs a builtin external function (`vprintf`, `__assertfail`, `malloc`, `free`).
    pub(in crate::exec) fn builtin(
        &mut self,
        t: usize,
        which: Builtin,
        args: &[VarLoc],
        rets: &[VarLoc],
        mem: &AddressSpace,
        budget: &mut Budget,
    ) -> Result<(), Box<Fault>> {
        let arg = |k: usize, size: usize| -> u64 {
            args.get(k).map_or(0, |l| self.param_value(t, *l, size))
        };
        let ret: Option<(u64, usize)> = match which {
            Builtin::Vprintf => {
                let (fmt_addr, argbuf) = (arg(0, 8), arg(1, 8));
                let fmt = self.read_cstr(t, fmt_addr, mem).map_err(|e| {
                    self.fault(
                        t,
                        FaultKind::OutOfBounds,
                        format!("vprintf format string: {e}"),
                    )
                })?;
                // Output beyond what the FIFO can still take is dropped, so formatting
                // stops there (a `%65536d` repeated a thousand times costs no more).
                let room = self.grid.printf_left();
                let mut bytes_read = 0u64;
                let mut read = |a: u64, b: &mut [u8]| {
                    bytes_read += b.len() as u64;
                    self.read_generic(t, a, b, mem)
                };
                let r = crate::ops::printf::format(
                    fmt.as_bytes(),
                    argbuf,
                    &mut read,
                    room.min(usize::MAX as u64) as usize,
                );
                // At least one step per call, however short.
                let work = (fmt.len() as u64 + bytes_read).max(1);
                let (text, n, complete) =
                    r.map_err(|e| self.fault(t, FaultKind::OutOfBounds, e))?;
                self.charge_work(t, budget, work + text.len() as u64)?;
                if complete && self.grid.printf_room(text.len() as u64) {
                    self.threads[t].out.extend_from_slice(&text);
                    self.printed = true;
                } else if !complete {
                    // The FIFO had no room for the whole call: dropped.
                    self.grid.drop_printf(text.len() as u64);
                }
                Some((n as u64, 4))
            }
            Builtin::AssertFail => {
                let s = |k: usize| -> String {
                    self.read_cstr(t, arg(k, 8), mem)
                        .unwrap_or_else(|e| format!("<unreadable: {e}>"))
                };
                let (msg, file, func) = (s(0), s(1), s(3));
                let line = arg(2, 4) as u32;
                return Err(self.fault(
                    t,
                    FaultKind::Trap,
                    format!("assertion failed: {msg} at {file}:{line} in {func}"),
                ));
            }
            Builtin::Malloc => {
                let size = arg(0, 8);
                // Allocation maps host pages: work worth a few steps.
                self.charge_work(t, budget, HEAP_CALL_WORK)?;
                Some((mem.heap_alloc(size).unwrap_or(0), 8))
            }
            Builtin::Free => {
                let p = arg(0, 8);
                self.charge_work(t, budget, HEAP_CALL_WORK)?;
                mem.heap_free(p).map_err(|e| {
                    let (kind, m) = fault_of(e);
                    self.fault(t, kind, format!("invalid device free: {m}"))
                })?;
                None
            }
        };
        if let (Some((v, size)), Some(loc)) = (ret, rets.first()) {
            self.touched = true;
            let a = self.var_addr(t, *loc);
            let bytes = v.to_le_bytes();
            let n = size.min(8);
            slice_write(
                &mut self.threads[t].params,
                a,
                &bytes[..n],
                "parameter space",
            )
            .map_err(|e| self.access_fault(t, "write", MemSpace::Param, a, n, e))?;
        }
        Ok(())
    }
}
