//! The reference interpreter: runs one kernel launch over its grid with the PTX machine
//! model — CTAs of warps of 32 threads, independent thread scheduling (§3.2), barriers —
//! executing the decoded [`crate::program`] instructions through the shared numerics of
//! `ptxvm-fp`.
//!
//! Scheduling: each warp runs the group of its threads that share the lowest PC (so
//! diverged paths reconverge where they meet); a group that keeps branching backwards is
//! made to yield to the warp's other groups after [`SPIN_YIELD`] iterations, so a lane
//! spinning on a lock held by another lane of its warp cannot starve it. Warps of a CTA
//! take turns in quanta; barriers are scheduler state.
//!
//! Special registers with no CPU counterpart: every CTA runs on "SM 0" of one (`%smid` 0,
//! `%nsmid` 1), `%gridid` is 0, the cluster registers describe an implicit 1×1×1 cluster,
//! `%pm0..7` and `%envreg0..31` read 0. `%clock`, `%clock_hi`, `%clock64` and `%globaltimer`
//! (`_lo`/`_hi`) count the warp-instructions the CTA has issued (the timer at 1 ns per
//! instruction): monotonic and deterministic, so timing loops end and runs repeat exactly.
//!
//! Invariant: every guest memory access is bounds-checked (global through
//! [`GlobalMemory`], shared/local/param against their buffers); a failure becomes a
//! [`Fault`] naming kernel, line, CTA, thread and lane.

use crate::error::{Fault, FaultKind, Site};
use crate::memory::{
    AccessError, AddressSpace, FUNC_BASE, LOCAL_WINDOW, LOCAL_WINDOW_SIZE, SHARED_WINDOW,
    SHARED_WINDOW_SIZE,
};
use crate::ops::mbarrier::MBar;
use crate::program::*;
use ptxvm_fp::Rnd;
use ptxvm_fp::arith as fa;
use ptxvm_ir::types::{Class, Type};

/// Named barriers 0..15, then the cluster barrier (`barrier.cluster`).
const NBAR: usize = 17;
/// The slot of `barrier.cluster.arrive`/`.wait`: with a 1×1×1 cluster it spans the CTA.
const CLUSTER_BAR: usize = 16;
/// Consecutive backward branches after which a group yields to its warp's other groups.
pub const SPIN_YIELD: u32 = 64;
/// Instructions a warp runs before the next warp of its CTA gets a turn.
const QUANTUM: u32 = 256;
/// Maximum call depth per thread.
const MAX_DEPTH: usize = 1024;
/// The unit in which a GPU allocates a CTA's shared memory (bytes): accesses past the
/// requested size but inside the last unit do not fault.
const SHARED_ALLOC_UNIT: usize = 128;

/// A kernel launch's configuration and limits.
#[derive(Debug, Clone)]
pub struct Launch {
    pub kernel: u32,
    /// The emulated GPU (the arithmetic of the matrix instructions).
    pub model: &'static crate::arch::GpuModel,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dyn_shared: u32,
    /// The kernel parameter buffer, laid out per the `.param` declarations.
    pub params: Vec<u8>,
    /// Warp-instruction budget for the whole launch.
    pub max_steps: u64,
    /// Local memory per thread in bytes.
    pub local_size: u32,
    /// Host threads running CTAs in parallel (1 = sequential).
    pub threads: usize,
}

/// Counters and device-side output of a launch.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Warp-level instructions issued (one per group step).
    pub warp_insts: u64,
    /// Thread-level instructions executed (active threads per step, summed).
    pub thread_insts: u64,
    /// Text written by device-side `printf` (`vprintf`). Deterministic order: CTAs in
    /// launch order (x fastest, then y, then z), within a CTA by linear thread index, and
    /// each thread's output in its program order. A CTA's output is appended when the CTA
    /// finishes (or faults).
    pub printf: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TState {
    Ready,
    Barrier(u8),
    /// Arrived at a `.sync` warp instruction (at its `pc`); waits until every non-exited
    /// lane of its membermask has arrived at the same instruction.
    WarpSync,
    Exited,
}

#[derive(Debug)]
struct Frame {
    func: u32,
    regs: Vec<u64>,
    local_base: u32,
    param_base: u32,
    /// Where to continue in the caller.
    ret_pc: u32,
    /// The caller's return-variable locations and this callee's return offsets.
    rets: Vec<(VarLoc, u32, u32)>,
}

#[derive(Debug)]
struct Thread {
    pc: u32,
    state: TState,
    tid: [u32; 3],
    lane: u32,
    frames: Vec<Frame>,
    local: Vec<u8>,
    local_sp: u32,
    params: Vec<u8>,
    param_sp: u32,
    /// Consecutive backward branches taken.
    spins: u32,
    /// The carry flag `CC.CF` of the extended-precision instructions.
    cf: bool,
    /// The membermask of the `.sync` instruction the thread waits at.
    sync_mask: u32,
    /// Destination of a pending `bar.red` result.
    red_dst: Option<Dst>,
    /// Arrived at `barrier.cluster` and not yet waited.
    cluster_arrived: bool,
    /// Output of `vprintf`.
    out: Vec<u8>,
}

/// The reduction state of one named barrier.
#[derive(Debug, Clone, Copy, Default)]
struct BarRedState {
    op: Option<BarRedOp>,
    popc: u32,
    all: bool,
    any: bool,
}

struct Cta<'a> {
    prog: &'a Program,
    launch: &'a Launch,
    /// The device's memory (also passed to the per-thread paths; the warp-collective
    /// paths read it here).
    mem: &'a AddressSpace,
    ctaid: [u32; 3],
    shared: Vec<u8>,
    threads: Vec<Thread>,
    nwarps: u32,
    /// Per barrier, per warp: the lanes that have arrived.
    bar_lanes: [Vec<u32>; NBAR],
    /// Per barrier: the expected thread count of the current phase (`None`: all threads).
    bar_expected: [Option<u32>; NBAR],
    bar_red: [BarRedState; NBAR],
    /// Set when a thread exits, so blocked barriers and warp syncs are re-checked.
    exits_dirty: bool,
    /// Warp-instructions issued in this CTA so far: the CTA's `%clock64`, and its
    /// `%globaltimer` at one nanosecond per instruction (deterministic, monotonic).
    clock: u64,
}

/// Runs a launch to completion (or to its first fault).
pub fn run(
    prog: &Program,
    launch: &Launch,
    mem: &AddressSpace,
    stats: &mut Stats,
) -> Result<(), Box<Fault>> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
    let [gx, gy, gz] = launch.grid;
    let total = gx as usize * gy as usize * gz as usize;
    let pool = AtomicU64::new(launch.max_steps);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // Per CTA (in launch order): printf output, counters, fault.
    type Done = (Vec<u8>, u64, u64, Option<Box<Fault>>);
    let results: Mutex<Vec<(usize, Done)>> = Mutex::new(Vec::new());
    let workers = launch.threads.clamp(1, total.max(1));
    let work = || {
        let mut budget = Budget {
            local: 0,
            pool: &pool,
        };
        loop {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= total {
                return;
            }
            let ctaid = [
                (i % gx as usize) as u32,
                ((i / gx as usize) % gy as usize) as u32,
                (i / (gx as usize * gy as usize)) as u32,
            ];
            let mut cta = Cta::new(prog, launch, mem, ctaid);
            let mut st = Stats::default();
            let r = cta.run(mem, &mut st, &mut budget);
            let mut out = Vec::new();
            for th in &mut cta.threads {
                out.append(&mut th.out);
            }
            let fault = r.err();
            if fault.is_some() {
                stop.store(true, Ordering::Relaxed);
            }
            if let Ok(mut v) = results.lock() {
                v.push((i, (out, st.warp_insts, st.thread_insts, fault)));
            }
        }
    };
    if workers <= 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(work);
            }
        });
    }
    let mut v = results.into_inner().unwrap_or_else(|e| e.into_inner());
    v.sort_by_key(|(i, _)| *i);
    let mut first_fault = None;
    for (_, (mut out, w, t, f)) in v {
        stats.printf.append(&mut out);
        stats.warp_insts += w;
        stats.thread_insts += t;
        if first_fault.is_none() {
            first_fault = f;
        }
    }
    match first_fault {
        Some(f) => Err(f),
        None => Ok(()),
    }
}

/// The launch's instruction budget, drawn from a shared pool in chunks.
struct Budget<'p> {
    local: u64,
    pool: &'p std::sync::atomic::AtomicU64,
}

impl Budget<'_> {
    /// Takes one step; false when the whole launch's budget is used up.
    fn take(&mut self) -> bool {
        use std::sync::atomic::Ordering;
        if self.local == 0 {
            let want = 4096u64;
            let got = self
                .pool
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |p| {
                    Some(p - p.min(want))
                })
                .map_or(0, |p| p.min(want));
            if got == 0 {
                return false;
            }
            self.local = got;
        }
        self.local -= 1;
        true
    }
}

impl<'a> Cta<'a> {
    fn new(
        prog: &'a Program,
        launch: &'a Launch,
        mem: &'a AddressSpace,
        ctaid: [u32; 3],
    ) -> Cta<'a> {
        let [bx, by, bz] = launch.block;
        let n = bx * by * bz;
        let f = &prog.funcs[launch.kernel as usize];
        let mut threads = Vec::with_capacity(n as usize);
        for i in 0..n {
            let tid = [i % bx, (i / bx) % by, i / (bx * by)];
            let mut t = Thread {
                pc: 0,
                state: TState::Ready,
                tid,
                lane: i % 32,
                frames: Vec::new(),
                // Local memory grows on demand (calls, alloca) up to `launch.local_size`.
                local: vec![0; f.local_size.min(launch.local_size) as usize],
                local_sp: 0,
                params: Vec::new(),
                param_sp: 0,
                spins: 0,
                cf: false,
                sync_mask: 0,
                red_dst: None,
                cluster_arrived: false,
                out: Vec::new(),
            };
            t.frames.push(Frame {
                func: launch.kernel,
                regs: vec![0; f.reg_types.len()],
                local_base: 0,
                param_base: 0,
                ret_pc: u32::MAX,
                rets: Vec::new(),
            });
            t.local_sp = f.local_size;
            t.params = vec![0; f.param_size as usize];
            t.param_sp = f.param_size;
            threads.push(t);
        }
        Cta {
            prog,
            launch,
            mem,
            ctaid,
            // A GPU allocates a CTA's shared memory in 128-byte units and faults only outside
            // them: compilers widen loads up to that boundary (NVVM's LTO turns the last
            // elements of a small dynamic shared array into one 16-byte `ld.shared.v4`).
            shared: vec![
                0;
                (f.dyn_base as usize + launch.dyn_shared as usize)
                    .next_multiple_of(SHARED_ALLOC_UNIT)
            ],
            nwarps: n.div_ceil(32),
            threads,
            bar_lanes: std::array::from_fn(|_| vec![0; n.div_ceil(32) as usize]),
            bar_expected: [None; NBAR],
            bar_red: [BarRedState::default(); NBAR],
            exits_dirty: false,
            clock: 0,
        }
    }

    /// The launched kernel's code.
    fn kernel(&self) -> &FuncCode {
        &self.prog.funcs[self.launch.kernel as usize]
    }

    fn site(&self, t: usize) -> Site {
        let th = &self.threads[t];
        let func = th.frames.last().map_or(self.launch.kernel, |f| f.func);
        let fc = &self.prog.funcs[func as usize];
        // A thread waiting at a barrier has already moved past it: report the barrier.
        let pc = if matches!(th.state, TState::Barrier(_)) {
            th.pc.saturating_sub(1)
        } else {
            th.pc
        };
        let inst = fc.code.get(pc as usize);
        Site {
            kernel: self.prog.funcs[self.launch.kernel as usize].name.clone(),
            function: fc.name.clone(),
            line: inst.map_or(0, |i| i.line),
            loc: inst.and_then(|i| i.loc).map(|(f, l)| {
                (
                    self.prog
                        .files
                        .get(&f)
                        .cloned()
                        .unwrap_or_else(|| format!("file {f}")),
                    l,
                )
            }),
            cta: self.ctaid,
            tid: th.tid,
            lane: th.lane,
        }
    }

    fn fault(&self, t: usize, kind: FaultKind, message: impl Into<String>) -> Box<Fault> {
        Box::new(Fault {
            kind,
            message: message.into(),
            site: self.site(t),
        })
    }

    fn run(
        &mut self,
        mem: &AddressSpace,
        stats: &mut Stats,
        budget: &mut Budget,
    ) -> Result<(), Box<Fault>> {
        loop {
            let mut progressed = false;
            for w in 0..self.nwarps {
                let mut n = 0;
                while n < QUANTUM {
                    match self.step_warp(w, mem, stats, budget)? {
                        true => {
                            progressed = true;
                            n += 1;
                        }
                        false => break,
                    }
                }
            }
            if self.threads.iter().all(|t| t.state == TState::Exited) {
                return Ok(());
            }
            if !progressed {
                if self.recheck_blocked()? {
                    continue;
                }
                return Err(self.deadlock());
            }
        }
    }

    fn deadlock(&self) -> Box<Fault> {
        if let Some(t) =
            (0..self.threads.len()).find(|&i| self.threads[i].state == TState::WarpSync)
        {
            let missing = self.sync_missing(t);
            let what = self.sync_lane_states(t, missing);
            return self.fault(
                t,
                FaultKind::MemberMask,
                format!(
                    "deadlock: lane {} waits at a `.sync` warp instruction with membermask {:#010x}, but lanes {} can never arrive ({what})",
                    self.threads[t].lane,
                    self.threads[t].sync_mask,
                    lanes_text(missing)
                ),
            );
        }
        let waiting: Vec<usize> = (0..self.threads.len())
            .filter(|&i| matches!(self.threads[i].state, TState::Barrier(_)))
            .collect();
        let exited = self
            .threads
            .iter()
            .filter(|t| t.state == TState::Exited)
            .count();
        let first = waiting.first().copied().unwrap_or(0);
        let mut warps: Vec<String> = Vec::new();
        for w in 0..self.nwarps {
            let ws: Vec<&Thread> = self
                .threads
                .iter()
                .skip((w * 32) as usize)
                .take(32)
                .collect();
            if let Some(t) = ws.iter().find(|t| matches!(t.state, TState::Barrier(_))) {
                let TState::Barrier(id) = t.state else {
                    continue;
                };
                let func = t.frames.last().map_or(0, |f| f.func);
                let line = self.prog.funcs[func as usize]
                    .code
                    .get(t.pc.saturating_sub(1) as usize)
                    .map_or(0, |i| i.line);
                warps.push(format!("warp {w} waits at {} (line {line})", bar_name(id)));
            }
        }
        let id = match self.threads[first].state {
            TState::Barrier(id) => id,
            _ => 0,
        };
        self.fault(
            first,
            FaultKind::Deadlock,
            format!(
                "deadlock: {} can never complete: {} of {} threads arrived, {} expected; {} threads have exited; {}",
                bar_name(id),
                self.bar_arrived(id as usize),
                self.threads.len(),
                self.bar_expected[id as usize].unwrap_or(self.threads.len() as u32),
                exited,
                warps.join(", ")
            ),
        )
    }

    /// Runs one instruction for one group of warp `w`. Returns false when the warp has no
    /// runnable thread.
    fn step_warp(
        &mut self,
        w: u32,
        mem: &AddressSpace,
        stats: &mut Stats,
        budget: &mut Budget,
    ) -> Result<bool, Box<Fault>> {
        let lo = (w * 32) as usize;
        let hi = (lo + 32).min(self.threads.len());
        // Pick the group: lowest (depth, pc) among ready threads, unless it has spun too long.
        let mut best: Option<(usize, u32, usize)> = None;
        let mut spinner: Option<(usize, u32, usize)> = None;
        for i in lo..hi {
            let t = &self.threads[i];
            if t.state != TState::Ready {
                continue;
            }
            let key = (usize::MAX - t.frames.len(), t.pc, i);
            if t.spins >= SPIN_YIELD {
                if spinner.is_none_or(|s| key < s) {
                    spinner = Some(key);
                }
                continue;
            }
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        let Some((_, pc, leader)) = best.or(spinner) else {
            return Ok(false);
        };
        if best.is_none() {
            // Only spinning groups are left: let them go on.
            for i in lo..hi {
                self.threads[i].spins = 0;
            }
        }
        let depth = self.threads[leader].frames.len();
        let func = self.threads[leader].frames.last().map_or(0, |f| f.func);
        let mut group: [usize; 32] = [0; 32];
        let mut n = 0;
        for i in lo..hi {
            let t = &self.threads[i];
            if t.state == TState::Ready
                && t.pc == pc
                && t.frames.len() == depth
                && t.frames.last().map_or(0, |f| f.func) == func
                && (t.spins >= SPIN_YIELD) == (self.threads[leader].spins >= SPIN_YIELD)
            {
                group[n] = i;
                n += 1;
            }
        }
        if !budget.take() {
            return Err(self.fault(
                leader,
                FaultKind::StepLimit,
                format!(
                    "instruction budget exhausted ({} warp instructions): a runaway loop? raise --max-steps",
                    self.launch.max_steps
                ),
            ));
        }
        stats.warp_insts += 1;
        self.clock += 1;
        let prog = self.prog;
        let Some(inst) = prog.funcs[func as usize].code.get(pc as usize) else {
            // Falling off the end of a function body returns.
            for &i in &group[..n] {
                self.ret(i);
            }
            return Ok(true);
        };
        if let Exec::Warp { .. } | Exec::Matrix { .. } = inst.exec {
            let mut active = [0usize; 32];
            let mut na = 0;
            for &i in &group[..n] {
                if self.guard_passes(i, inst) {
                    active[na] = i;
                    na += 1;
                } else {
                    self.threads[i].pc += 1;
                }
            }
            stats.thread_insts += na as u64;
            self.warp_inst(w, &active[..na], inst)?;
            return Ok(true);
        }
        for &i in &group[..n] {
            if !self.guard_passes(i, inst) {
                self.threads[i].pc += 1;
                continue;
            }
            stats.thread_insts += 1;
            self.exec(i, inst, mem)?;
        }
        if self.exits_dirty {
            self.recheck_blocked()?;
        }
        Ok(true)
    }

    fn guard_passes(&self, t: usize, inst: &DInst) -> bool {
        match inst.guard {
            Some((p, neg)) => (self.reg(t, p) != 0) != neg,
            None => true,
        }
    }

    fn reg(&self, t: usize, r: u32) -> u64 {
        self.threads[t]
            .frames
            .last()
            .and_then(|f| f.regs.get(r as usize).copied())
            .unwrap_or(0)
    }

    /// Reads a source as raw bits.
    fn src(&self, t: usize, s: Src) -> u64 {
        match s {
            Src::Reg(r) => self.reg(t, r),
            Src::Imm(v) => v,
            Src::Pred(r, neg) => ((self.reg(t, r) != 0) != neg) as u64,
            Src::SReg(id, comp) => self.sreg(t, id, comp),
            Src::Var(loc, off) => self.var_addr(t, loc).wrapping_add(off as u64),
        }
    }

    /// The address of a variable in its own space.
    fn var_addr(&self, t: usize, loc: VarLoc) -> u64 {
        let th = &self.threads[t];
        let fr = th.frames.last();
        match loc {
            VarLoc::Global(a) => a,
            VarLoc::Shared(DYN_SHARED) => self.kernel().dyn_base as u64,
            VarLoc::Shared(slot) => self
                .kernel()
                .shared_layout
                .get(slot as usize)
                .copied()
                .unwrap_or(u32::MAX) as u64,
            VarLoc::Local(o) => fr.map_or(0, |f| f.local_base) as u64 + o as u64,
            // Kernel parameter addresses carry their tag, so an address taken with
            // `mov %rd, param` still reads the kernel parameters through `ld.param [%rd]`.
            VarLoc::KernelParam(o) => KPARAM_TAG | o as u64,
            VarLoc::FrameParam(o) => fr.map_or(0, |f| f.param_base) as u64 + o as u64,
        }
    }

    fn sreg(&self, t: usize, id: u16, comp: u8) -> u64 {
        use ptxvm_ir::ir::SREGS;
        let th = &self.threads[t];
        let c = comp as usize;
        let block = self.launch.block;
        let name = SREGS.get(id as usize).map_or("", |s| s.0);
        let lanemask = |f: &dyn Fn(u32) -> bool| -> u64 {
            (0..32).filter(|&l| f(l)).fold(0u64, |m, l| m | (1 << l))
        };
        let lane = th.lane;
        match name {
            "%tid" => th.tid.get(c).copied().unwrap_or(0) as u64,
            "%ntid" => block.get(c).copied().unwrap_or(1) as u64,
            "%laneid" => lane as u64,
            "%warpid" => (t / 32) as u64,
            "%nwarpid" => self.nwarps as u64,
            "%ctaid" | "%clusterid" => self.ctaid.get(c).copied().unwrap_or(0) as u64,
            "%nctaid" | "%nclusterid" => self.launch.grid.get(c).copied().unwrap_or(1) as u64,
            "%smid"
            | "%gridid"
            | "%cluster_ctarank"
            | "%is_explicit_cluster"
            | "%cluster_ctaid" => 0,
            "%nsmid" | "%cluster_nctarank" | "%cluster_nctaid" => 1,
            "%lanemask_eq" => lanemask(&|l| l == lane),
            "%lanemask_le" => lanemask(&|l| l <= lane),
            "%lanemask_lt" => lanemask(&|l| l < lane),
            "%lanemask_ge" => lanemask(&|l| l >= lane),
            "%lanemask_gt" => lanemask(&|l| l > lane),
            "%dynamic_smem_size" => self.launch.dyn_shared as u64,
            "%total_smem_size" | "%aggr_smem_size" => {
                (self.kernel().dyn_base + self.launch.dyn_shared) as u64
            }
            // Clocks and timers count this CTA's issued warp-instructions, so runs are
            // deterministic and timing loops terminate.
            "%clock64" | "%globaltimer" => self.clock,
            "%clock" | "%globaltimer_lo" => self.clock & 0xffff_ffff,
            "%clock_hi" | "%globaltimer_hi" => self.clock >> 32,
            // %pm0..7 (performance-monitor counters) and %envreg0..31 read as zero.
            _ => 0,
        }
    }

    fn write(&mut self, t: usize, d: Dst, v: u64) {
        if let Dst::Reg(r) = d {
            let prog = self.prog;
            if let Some(f) = self.threads[t].frames.last_mut() {
                f.regs[r as usize] = v & prog.funcs[f.func as usize].reg_masks[r as usize];
            }
        }
    }

    /// Resolves an address operand to (space, address) for thread `t`.
    fn resolve(&self, t: usize, space: MemSpace, a: Addr) -> (MemSpace, u64) {
        let (base_space, addr) = match a {
            Addr::Reg(r, off) => (space, self.reg(t, r).wrapping_add(off as u64)),
            Addr::Abs(off) => (space, off as u64),
            Addr::Var(loc, off) => {
                let s = match loc {
                    VarLoc::Global(_) => {
                        if space == MemSpace::Const {
                            MemSpace::Const
                        } else {
                            MemSpace::Global
                        }
                    }
                    VarLoc::Shared(_) => MemSpace::Shared,
                    VarLoc::Local(_) => MemSpace::Local,
                    VarLoc::KernelParam(_) | VarLoc::FrameParam(_) => MemSpace::Param,
                };
                let kernel_param = matches!(loc, VarLoc::KernelParam(_));
                let addr = self.var_addr(t, loc).wrapping_add(off as u64);
                if kernel_param {
                    return (MemSpace::Param, addr | KPARAM_TAG);
                }
                (s, addr)
            }
        };
        if base_space == MemSpace::Generic {
            if (SHARED_WINDOW..SHARED_WINDOW + SHARED_WINDOW_SIZE).contains(&addr) {
                return (MemSpace::Shared, addr - SHARED_WINDOW);
            }
            if (LOCAL_WINDOW..LOCAL_WINDOW + LOCAL_WINDOW_SIZE).contains(&addr) {
                return (MemSpace::Local, addr - LOCAL_WINDOW);
            }
            return (MemSpace::Global, addr);
        }
        (base_space, addr)
    }

    fn access_fault(
        &self,
        t: usize,
        what: &str,
        space: MemSpace,
        addr: u64,
        len: usize,
        e: AccessError,
    ) -> Box<Fault> {
        let (kind, msg) = fault_of(e);
        // Addresses in the first page are almost always a null pointer plus a field offset.
        let null = if matches!(space, MemSpace::Global | MemSpace::Generic) && addr < 4096 {
            format!(" (null pointer dereference: {len}-byte {what} at {addr:#x})")
        } else {
            String::new()
        };
        self.fault(
            t,
            kind,
            format!("invalid {} {what}{null}: {msg}", space_name(space)),
        )
    }

    fn load(
        &self,
        t: usize,
        space: MemSpace,
        addr: u64,
        buf: &mut [u8],
        mem: &AddressSpace,
    ) -> Result<(), Box<Fault>> {
        let len = buf.len();
        if len.is_power_of_two() && !(addr & !KPARAM_TAG).is_multiple_of(len as u64) {
            return Err(self.fault(
                t,
                FaultKind::Misaligned,
                format!(
                    "misaligned {} read of {len} bytes at {addr:#x}{}",
                    space_name(space),
                    where_in(space, addr, mem)
                ),
            ));
        }
        let r = match space {
            MemSpace::Global | MemSpace::Const | MemSpace::Generic => mem.read_guest(addr, buf),
            MemSpace::Shared => slice_read(&self.shared, addr, buf, "shared memory"),
            MemSpace::Local => slice_read(&self.threads[t].local, addr, buf, "local memory"),
            MemSpace::Param => {
                if addr & KPARAM_TAG != 0 {
                    slice_read(
                        &self.launch.params,
                        addr & !KPARAM_TAG,
                        buf,
                        "kernel parameters",
                    )
                } else {
                    slice_read(&self.threads[t].params, addr, buf, "parameter space")
                }
            }
        };
        r.map_err(|e| self.access_fault(t, "read", space, addr, len, e))
    }

    fn store(
        &mut self,
        t: usize,
        space: MemSpace,
        addr: u64,
        data: &[u8],
        mem: &AddressSpace,
    ) -> Result<(), Box<Fault>> {
        let len = data.len();
        if len.is_power_of_two() && !addr.is_multiple_of(len as u64) {
            return Err(self.fault(
                t,
                FaultKind::Misaligned,
                format!(
                    "misaligned {} write of {len} bytes at {addr:#x}{}",
                    space_name(space),
                    where_in(space, addr, mem)
                ),
            ));
        }
        let r = match space {
            MemSpace::Global | MemSpace::Generic => mem.write_guest(addr, data),
            MemSpace::Const => Err(AccessError::ReadOnly("constant memory is read-only".into())),
            MemSpace::Shared => slice_write(&mut self.shared, addr, data, "shared memory"),
            MemSpace::Local => slice_write(&mut self.threads[t].local, addr, data, "local memory"),
            MemSpace::Param => {
                if addr & KPARAM_TAG != 0 {
                    Err(AccessError::ReadOnly(
                        "kernel parameters are read-only".into(),
                    ))
                } else {
                    slice_write(&mut self.threads[t].params, addr, data, "parameter space")
                }
            }
        };
        r.map_err(|e| self.access_fault(t, "write", space, addr, len, e))
    }

    fn unsupported(&self, t: usize, what: &str) -> Box<Fault> {
        self.fault(
            t,
            FaultKind::Unsupported,
            format!(
                "unsupported instruction `{what}`: the interpreter does not implement this form yet"
            ),
        )
    }

    fn ret(&mut self, t: usize) {
        let th = &mut self.threads[t];
        if th.frames.len() <= 1 {
            th.state = TState::Exited;
            self.exits_dirty = true;
            return;
        }
        let fr = th.frames.pop().expect("frame");
        // Copy return values back into the caller's variables.
        for (loc, off, size) in &fr.rets {
            let caller_base = th.frames.last().map_or(0, |f| f.param_base);
            let src = (fr.param_base + off) as usize;
            if let VarLoc::FrameParam(o) = loc {
                let dst = (caller_base + o) as usize;
                let n = *size as usize;
                if src + n <= th.params.len() && dst + n <= th.params.len() {
                    th.params.copy_within(src..src + n, dst);
                }
            }
        }
        th.local_sp = fr.local_base;
        th.param_sp = fr.param_base;
        th.pc = fr.ret_pc;
    }

    fn exec(&mut self, t: usize, inst: &DInst, mem: &AddressSpace) -> Result<(), Box<Fault>> {
        let mut next = self.threads[t].pc + 1;
        match &inst.exec {
            Exec::Mov { d, a, bits } => {
                let v = mask(self.src(t, *a), *bits);
                self.write(t, *d, v);
            }
            Exec::Pack { d, parts, bits } => {
                let mut v = 0u64;
                for (k, p) in parts.iter().enumerate() {
                    v |= mask(self.src(t, *p), *bits) << (k as u32 * bits);
                }
                self.write(t, *d, v);
            }
            Exec::Unpack { ds, a, bits } => {
                let v = self.src(t, *a);
                for (k, d) in ds.iter().enumerate() {
                    self.write(t, *d, mask(v >> (k as u32 * bits), *bits));
                }
            }
            Exec::Int { op, ty, d, a, b } => {
                let (a, b) = (self.src(t, *a), self.src(t, *b));
                self.write(t, *d, int_bin(*op, *ty, a, b));
            }
            Exec::IntUn { op, ty, d, a } => {
                let a = self.src(t, *a);
                self.write(t, *d, int_un(*op, *ty, a));
            }
            Exec::Mad {
                mode,
                ty,
                sat,
                d,
                a,
                b,
                c,
            } => {
                let (a, b, c) = (self.src(t, *a), self.src(t, *b), self.src(t, *c));
                let p = int_bin(*mode, *ty, a, b);
                let v = if *sat && *mode == IntOp::MulHi {
                    let s = (sext(p, 32) as i64).saturating_add(sext(c, 32) as i64);
                    s.clamp(i32::MIN as i64, i32::MAX as i64) as u64
                } else {
                    p.wrapping_add(c)
                };
                let bits = if *mode == IntOp::MulWide {
                    ty.bits() * 2
                } else {
                    ty.bits()
                };
                self.write(t, *d, mask(v, bits));
            }
            Exec::Float {
                op,
                ty,
                rnd,
                ftz,
                sat,
                nan,
                xorsign,
                d,
                a,
                b,
            } => {
                let (a, b) = (self.src(t, *a), self.src(t, *b));
                self.write(
                    t,
                    *d,
                    float_bin(*op, *ty, *rnd, *ftz, *sat, *nan, *xorsign, a, b),
                );
            }
            Exec::FloatUn {
                op,
                ty,
                rnd,
                ftz,
                d,
                a,
            } => {
                let a = self.src(t, *a);
                self.write(t, *d, float_un(*op, *ty, *rnd, *ftz, a));
            }
            Exec::Fma {
                ty,
                rnd,
                ftz,
                sat,
                d,
                a,
                b,
                c,
            } => {
                let (a, b, c) = (self.src(t, *a), self.src(t, *b), self.src(t, *c));
                let v = if *ty == Type::F32 {
                    fa::fma_f32(
                        f32::from_bits(a as u32),
                        f32::from_bits(b as u32),
                        f32::from_bits(c as u32),
                        *rnd,
                        *ftz,
                        *sat,
                    )
                    .to_bits() as u64
                } else {
                    fa::fma_f64(
                        f64::from_bits(a),
                        f64::from_bits(b),
                        f64::from_bits(c),
                        *rnd,
                    )
                    .to_bits()
                };
                self.write(t, *d, v);
            }
            Exec::Setp {
                cmp,
                ty,
                ftz,
                p,
                q,
                a,
                b,
                bop,
            } => {
                let (a, b) = (self.src(t, *a), self.src(t, *b));
                let (mut r, mut nr) = match (cmp, ty) {
                    (Cmp::Float(op), Type::F16x2 | Type::Bf16x2) => {
                        crate::ops::half::compare(*op, *ty, *ftz, a, b)
                    }
                    _ => {
                        let r = compare(*cmp, *ty, *ftz, a, b);
                        (r, !r)
                    }
                };
                if let Some((op, c)) = bop {
                    let c = self.src(t, *c) != 0;
                    r = bool_op(*op, r, c);
                    nr = bool_op(*op, nr, c);
                }
                self.write(t, *p, r as u64);
                self.write(t, *q, nr as u64);
            }
            Exec::Set {
                cmp,
                ty,
                dty,
                ftz,
                d,
                a,
                b,
                bop,
            } => {
                let (a, b) = (self.src(t, *a), self.src(t, *b));
                let (mut lo, mut hi) = match (cmp, ty) {
                    (Cmp::Float(op), Type::F16x2 | Type::Bf16x2) => {
                        crate::ops::half::compare(*op, *ty, *ftz, a, b)
                    }
                    _ => {
                        let r = compare(*cmp, *ty, *ftz, a, b);
                        (r, r)
                    }
                };
                if let Some((op, c)) = bop {
                    let c = self.src(t, *c) != 0;
                    lo = bool_op(*op, lo, c);
                    hi = bool_op(*op, hi, c);
                }
                let v = if matches!(ty, Type::F16x2 | Type::Bf16x2) {
                    // Per-half results: 1.0 in the destination's half format, or 0xffff.
                    let one = match dty {
                        Type::F16x2 | Type::Bf16x2 => crate::ops::half::set_true(*dty),
                        _ => 0xffff,
                    };
                    (if lo { one } else { 0 }) | (if hi { one << 16 } else { 0 })
                } else if lo {
                    mask(crate::ops::half::set_true(*dty), dty.bits())
                } else {
                    0
                };
                self.write(t, *d, v);
            }
            Exec::Selp { d, a, b, c, bits } => {
                let v = if self.src(t, *c) != 0 {
                    self.src(t, *a)
                } else {
                    self.src(t, *b)
                };
                self.write(t, *d, mask(v, *bits));
            }
            Exec::Video(x) => {
                let (a, b, c) = (self.src(t, x.a), self.src(t, x.b), self.src(t, x.c));
                let r = x.v.eval(a as u32, b as u32, c as u32);
                self.write(t, x.d, r as u64);
            }
            Exec::IntX {
                op,
                ty,
                d,
                s: srcs,
                pred,
            } => {
                let v = [
                    self.src(t, srcs[0]),
                    self.src(t, srcs[1]),
                    self.src(t, srcs[2]),
                    self.src(t, srcs[3]),
                ];
                let r = int_x(*op, *ty, v);
                self.write(t, *d, r);
                if let Some((p, bop, q)) = pred {
                    let q = self.src(t, *q) != 0;
                    self.write(t, *p, bool_op(*bop, r != 0, q) as u64);
                }
            }
            Exec::Carry {
                op,
                ty,
                cin,
                cout,
                d,
                a,
                b,
                c,
            } => {
                let (a, b, c) = (self.src(t, *a), self.src(t, *b), self.src(t, *c));
                let cf = *cin && self.threads[t].cf;
                let (r, co) = crate::ops::int::carry(
                    *op,
                    a,
                    b,
                    c,
                    ty.bits(),
                    ty.class() == Class::Signed,
                    cf,
                );
                self.write(t, *d, r);
                if *cout {
                    self.threads[t].cf = co;
                }
            }
            Exec::Half {
                op,
                ty,
                m,
                d,
                a,
                b,
                c,
            } => {
                let (a, b, c) = (self.src(t, *a), self.src(t, *b), self.src(t, *c));
                self.write(t, *d, crate::ops::half::eval(*op, *ty, *m, a, b, c));
            }
            Exec::Testp { op, ty, d, a } => {
                let a = self.src(t, *a);
                let r = if *ty == Type::F64 {
                    fa::testp_f64(*op, f64::from_bits(a))
                } else {
                    fa::testp_f32(*op, f32::from_bits(a as u32))
                };
                self.write(t, *d, r as u64);
            }
            Exec::CvtX { op, d, a, b, c } => {
                let (a, b, c) = (self.src(t, *a), self.src(t, *b), self.src(t, *c));
                self.write(t, *d, cvt_x(*op, a, b, c));
            }
            Exec::Nop => {}
            Exec::Discard { addr, size } => {
                let (sp, at) = self.resolve(t, MemSpace::Global, *addr);
                let n = (*size).min(4096) as usize;
                let zeros = vec![0u8; n];
                self.store(t, sp, at, &zeros, mem)?;
            }
            Exec::Isspacep { space, d, a } => {
                let a = self.src(t, *a);
                let in_shared = (SHARED_WINDOW..SHARED_WINDOW + SHARED_WINDOW_SIZE).contains(&a);
                let in_local = (LOCAL_WINDOW..LOCAL_WINDOW + LOCAL_WINDOW_SIZE).contains(&a);
                let r = match space {
                    MemSpace::Shared => in_shared,
                    MemSpace::Local => in_local,
                    MemSpace::Global => !in_shared && !in_local && mem.contains(a),
                    MemSpace::Const => {
                        !in_shared && !in_local && mem.contains(a) && mem.is_const(a)
                    }
                    MemSpace::Param => false,
                    MemSpace::Generic => true,
                };
                self.write(t, *d, r as u64);
            }
            Exec::Alloca { d, size, align } => {
                let size = self.src(t, *size);
                let th = &self.threads[t];
                let al = (*align).clamp(1, 1 << 23);
                let base = (th.local_sp as u64).div_ceil(al) * al;
                let end = base.checked_add(size);
                let limit = self.launch.local_size as u64;
                match end {
                    Some(e) if e <= limit => {
                        let th = &mut self.threads[t];
                        if th.local.len() < e as usize {
                            th.local.resize(e as usize, 0);
                        }
                        th.local_sp = e as u32;
                        self.write(t, *d, base);
                    }
                    _ => {
                        let have = limit;
                        return Err(self.fault(
                            t,
                            FaultKind::StackOverflow,
                            format!(
                                "alloca of {size} bytes exhausts local memory ({have} bytes per thread)"
                            ),
                        ));
                    }
                }
            }
            Exec::StackSave { d } => {
                let sp = self.threads[t].local_sp as u64;
                self.write(t, *d, sp);
            }
            Exec::StackRestore { a } => {
                let v = self.src(t, *a);
                let th = &self.threads[t];
                let floor = th.frames.last().map_or(0, |f| f.local_base) as u64;
                if v < floor || v > th.local.len() as u64 {
                    return Err(self.fault(
                        t,
                        FaultKind::StackOverflow,
                        format!(
                            "stackrestore to {v:#x}, outside the current frame's stack ({floor:#x}..{:#x})",
                            th.local.len()
                        ),
                    ));
                }
                self.threads[t].local_sp = v as u32;
            }
            Exec::Builtin { which, args, rets } => {
                self.builtin(t, *which, args, rets, mem)?;
            }
            Exec::Warp { .. } | Exec::Matrix { .. } => {
                return Err(self.unsupported(t, "warp instruction outside the warp scheduler"));
            }
            Exec::PredOp { op, d, a, b } => {
                let a = self.src(t, *a) != 0;
                let v = match op {
                    None => !a,
                    Some(o) => bool_op(*o, a, self.src(t, *b) != 0),
                };
                self.write(t, *d, v as u64);
            }
            Exec::Cvt {
                dty,
                aty,
                rnd,
                irnd,
                sat,
                ftz,
                relu,
                satfinite,
                d,
                a,
            } => {
                let a = self.src(t, *a);
                match cvt(*dty, *aty, *rnd, *irnd, *sat, *ftz, *relu, *satfinite, a) {
                    // A destination register wider than a signed integer type gets the value
                    // sign-extended (ISA "Operand Size Exceeding Instruction-Type Size").
                    Some(v) if dty.class() == Class::Signed && dty.bits() < 64 => {
                        let s = 64 - dty.bits();
                        self.write(t, *d, (((v << s) as i64) >> s) as u64)
                    }
                    Some(v) => self.write(t, *d, v),
                    None => {
                        return Err(
                            self.unsupported(t, &format!("cvt{}{}", dty.name(), aty.name()))
                        );
                    }
                }
            }
            Exec::Cvta {
                to,
                space,
                d,
                a,
                addr,
            } => {
                let v = match addr {
                    Some(Addr::Var(loc, off)) => self.var_addr(t, *loc).wrapping_add(*off as u64),
                    _ => self.src(t, *a),
                };
                let base = match space {
                    MemSpace::Shared => SHARED_WINDOW,
                    MemSpace::Local => LOCAL_WINDOW,
                    _ => 0,
                };
                let r = if *to {
                    v.wrapping_sub(base)
                } else {
                    v.wrapping_add(base)
                };
                self.write(t, *d, r);
            }
            Exec::Ld {
                space,
                ty,
                ds,
                addr,
            } => {
                let (sp, at) = self.resolve(t, *space, *addr);
                let w = ty.bytes() as usize;
                let mut buf = [0u8; 128];
                let n = w * ds.len();
                if n > buf.len() {
                    return Err(self.unsupported(t, "ld wider than 128 bytes"));
                }
                self.load(t, sp, at, &mut buf[..n], mem)?;
                for (k, d) in ds.iter().enumerate() {
                    let mut v = 0u64;
                    for (j, byte) in buf[k * w..k * w + w.min(8)].iter().enumerate() {
                        v |= (*byte as u64) << (8 * j);
                    }
                    if ty.class() == Class::Signed {
                        v = sext(v, ty.bits());
                    }
                    self.write(t, *d, v);
                }
            }
            Exec::St {
                space,
                ty,
                srcs,
                addr,
            } => {
                let (sp, at) = self.resolve(t, *space, *addr);
                let w = ty.bytes() as usize;
                let mut buf = [0u8; 128];
                let n = w * srcs.len();
                if n > buf.len() {
                    return Err(self.unsupported(t, "st wider than 128 bytes"));
                }
                for (k, s) in srcs.iter().enumerate() {
                    let v = self.src(t, *s);
                    buf[k * w..k * w + w.min(8)].copy_from_slice(&v.to_le_bytes()[..w.min(8)]);
                }
                self.store(t, sp, at, &buf[..n], mem)?;
            }
            Exec::Atom {
                space,
                op,
                ty,
                d,
                addr,
                b,
                c,
            } => {
                let (sp, at) = self.resolve(t, *space, *addr);
                let w = ty.bytes() as usize;
                let mut buf = [0u8; 8];
                // Atomic across the host threads running other CTAs.
                let _guard = mem.atomic();
                self.load(t, sp, at, &mut buf[..w], mem)?;
                let old = u64::from_le_bytes(buf);
                let (b, c) = (self.src(t, *b), self.src(t, *c));
                let new = atom_op(*op, *ty, old, b, c);
                self.store(t, sp, at, &new.to_le_bytes()[..w], mem)?;
                self.write(t, *d, old);
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
                let th = &mut self.threads[t];
                if target <= th.pc {
                    th.spins += 1;
                } else {
                    th.spins = 0;
                }
                next = target;
            }
            Exec::Slct {
                d,
                a,
                b,
                c,
                bits,
                float_c,
                ftz,
            } => {
                let cv = self.src(t, *c);
                let pick = if *float_c {
                    let x = f32::from_bits(cv as u32);
                    let x = if *ftz { fa::ftz_f32(x) } else { x };
                    x >= 0.0
                } else {
                    cv as u32 as i32 >= 0
                };
                let v = if pick {
                    self.src(t, *a)
                } else {
                    self.src(t, *b)
                };
                self.write(t, *d, mask(v, *bits));
            }
            Exec::Bra { target } => {
                let th = &mut self.threads[t];
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
                self.threads[t].state = TState::Exited;
                self.exits_dirty = true;
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
            Exec::CpAsync {
                dst,
                src,
                size,
                src_size,
                ignore,
            } => {
                let n = *size as usize;
                let mut read = match src_size {
                    Some(s) => (self.src(t, *s) as usize).min(n),
                    None => n,
                };
                if ignore.is_some_and(|p| self.src(t, p) != 0) {
                    read = 0;
                }
                let mut buf = [0u8; 16];
                let (ss, sa) = self.resolve(t, MemSpace::Global, *src);
                if read > 0 {
                    // Alignment is the copy size's; a partial read keeps the source address.
                    if !sa.is_multiple_of(n as u64) {
                        return Err(self.fault(
                            t,
                            FaultKind::Misaligned,
                            format!("misaligned cp.async source {sa:#x} for a {n}-byte copy"),
                        ));
                    }
                    self.load(t, ss, sa, &mut buf[..read], mem)?;
                }
                let (ds, da) = self.resolve(t, MemSpace::Shared, *dst);
                self.store(t, ds, da, &buf[..n], mem)?;
            }
            Exec::Bar { id, count, arrive } => {
                let (id, count) = (self.src(t, *id), count.map(|c| self.src(t, c)));
                self.threads[t].pc = next;
                return self.bar_arrive(t, id, count, !*arrive, None);
            }
            Exec::BarRed {
                op,
                d,
                id,
                count,
                pred,
            } => {
                let (id, count) = (self.src(t, *id), count.map(|c| self.src(t, c)));
                let p = self.src(t, *pred) != 0;
                self.threads[t].pc = next;
                self.threads[t].red_dst = Some(*d);
                return self.bar_arrive(t, id, count, true, Some((*op, p)));
            }
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
            Exec::MBar {
                op,
                space,
                addr,
                d,
                a,
            } => {
                let (sp, at) = self.resolve(t, *space, *addr);
                let (op, d, av) = (*op, *d, self.src(t, *a));
                let n32 = av & 0xffff_ffff;
                self.mbar_update(t, sp, at, mem, |vm, w| {
                    Ok(match op {
                        MBarOp::Init => Some(MBar::init(n32)?),
                        MBarOp::Inval => Some(0),
                        MBarOp::Arrive { drop, no_complete } => {
                            let (nw, st) = MBar::arrive(w, n32, drop, no_complete)?;
                            vm.write(t, d, st);
                            Some(nw)
                        }
                        MBarOp::ArriveTx { drop } => {
                            let (nw, st) = MBar::arrive(MBar::tx(w, n32 as i64)?, 1, drop, false)?;
                            vm.write(t, d, st);
                            Some(nw)
                        }
                        MBarOp::ExpectTx => Some(MBar::tx(w, n32 as i64)?),
                        MBarOp::CompleteTx => Some(MBar::tx(w, -(n32 as i64))?),
                        MBarOp::Wait { parity } => {
                            let done = if parity {
                                MBar::parity_done(w, av)
                            } else {
                                MBar::phase_done(w, av)
                            };
                            vm.write(t, d, done as u64);
                            None
                        }
                        MBarOp::CpAsyncArrive { noinc: true } => {
                            Some(MBar::arrive(w, 1, false, false)?.0)
                        }
                        MBarOp::CpAsyncArrive { noinc: false } => None,
                    })
                })?;
            }
            Exec::MBarPending { d, state } => {
                let v = MBar::pending_of(self.src(t, *state));
                self.write(t, *d, v);
            }
            Exec::CpBulk {
                dst,
                dst_space,
                src,
                src_space,
                size,
                mbar,
            } => {
                let n = self.src(t, *size) & 0xffff_ffff;
                let (ss, sa) = self.resolve(t, *src_space, *src);
                let (ds, da) = self.resolve(t, *dst_space, *dst);
                if !n.is_multiple_of(16) || !sa.is_multiple_of(16) || !da.is_multiple_of(16) {
                    return Err(self.fault(
                        t,
                        FaultKind::Misaligned,
                        format!(
                            "cp.async.bulk needs 16-byte aligned addresses and a size that is a multiple of 16: source {sa:#x}, destination {da:#x}, size {n}"
                        ),
                    ));
                }
                // In 16-byte pieces (each access is checked at its own natural alignment).
                let mut piece = [0u8; 16];
                for off in (0..n).step_by(16) {
                    self.load(t, ss, sa + off, &mut piece, mem)?;
                    self.store(t, ds, da + off, &piece, mem)?;
                }
                if let Some(m) = mbar {
                    let (ms, ma) = self.resolve(t, MemSpace::Shared, *m);
                    self.mbar_update(t, ms, ma, mem, |_, w| MBar::tx(w, -(n as i64)).map(Some))?;
                }
            }
            Exec::ClusterBar { wait } => {
                let arrived = self.threads[t].cluster_arrived;
                if !*wait {
                    if arrived {
                        return Err(self.fault(
                            t,
                            FaultKind::Barrier,
                            "barrier.cluster.arrive twice without a barrier.cluster.wait in between",
                        ));
                    }
                    self.threads[t].pc = next;
                    self.threads[t].cluster_arrived = true;
                    return self.bar_join(t, CLUSTER_BAR, None, false, None);
                }
                if !arrived {
                    return Err(self.fault(
                        t,
                        FaultKind::Barrier,
                        "barrier.cluster.wait without a preceding barrier.cluster.arrive",
                    ));
                }
                self.threads[t].pc = next;
                self.threads[t].cluster_arrived = false;
                // Still marked as arrived: the phase has not completed yet, so wait for it.
                let (w, lane) = (t / 32, self.threads[t].lane);
                if self.bar_lanes[CLUSTER_BAR]
                    .get(w)
                    .is_some_and(|m| m >> lane & 1 != 0)
                {
                    self.threads[t].state = TState::Barrier(CLUSTER_BAR as u8);
                    self.check_barrier(CLUSTER_BAR);
                }
                return Ok(());
            }
            Exec::Mapa { d, a, rank } => {
                let r = self.src(t, *rank) & 0xffff_ffff;
                if r != 0 {
                    return Err(self.fault(
                        t,
                        FaultKind::OutOfBounds,
                        format!(
                            "mapa to CTA rank {r}: the cluster has one CTA (rank 0); ptxvm runs 1x1x1 clusters"
                        ),
                    ));
                }
                let v = self.src(t, *a);
                self.write(t, *d, v);
            }
            Exec::Unsupported(what) => return Err(self.unsupported(t, what)),
        }
        self.threads[t].pc = next;
        Ok(())
    }

    /// Reads the 8-byte mbarrier object at `addr` in `space`, applies `f` (the new word, or
    /// `None` to leave it) and writes it back; `f`'s errors are [`FaultKind::Barrier`] faults.
    fn mbar_update(
        &mut self,
        t: usize,
        space: MemSpace,
        addr: u64,
        mem: &AddressSpace,
        f: impl FnOnce(&mut Self, u64) -> Result<Option<u64>, String>,
    ) -> Result<(), Box<Fault>> {
        if !addr.is_multiple_of(8) {
            return Err(self.fault(
                t,
                FaultKind::Misaligned,
                format!("mbarrier object at {addr:#x} is not 8-byte aligned"),
            ));
        }
        let mut buf = [0u8; 8];
        self.load(t, space, addr, &mut buf, mem)?;
        match f(self, u64::from_le_bytes(buf)) {
            Ok(Some(nw)) => self.store(t, space, addr, &nw.to_le_bytes(), mem),
            Ok(None) => Ok(()),
            Err(msg) => Err(self.fault(t, FaultKind::Barrier, msg)),
        }
    }

    /// Calls a defined function: pushes a frame, copies the arguments into its parameters.
    fn call(
        &mut self,
        t: usize,
        func: u32,
        args: &[VarLoc],
        rets: &[VarLoc],
        next: u32,
    ) -> Result<(), Box<Fault>> {
        let func = &func;

        let callee = &self.prog.funcs[*func as usize];
        if !callee.defined {
            return Err(
                self.unsupported(t, &format!("call to external function `{}`", callee.name))
            );
        }
        let th = &mut self.threads[t];
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
        let need_local = local_base as usize + callee.local_size as usize;
        if need_local <= self.launch.local_size as usize && th.local.len() < need_local {
            th.local.resize(need_local, 0);
        }
        if need_local > th.local.len() {
            let have = self.launch.local_size;
            return Err(self.fault(
                t,
                FaultKind::StackOverflow,
                format!("local memory exhausted: {need_local} bytes needed, {have} per thread"),
            ));
        }
        let need_param = param_base as usize + callee.param_size as usize;
        if th.params.len() < need_param {
            th.params.resize(need_param, 0);
        }
        // Copy arguments into the callee's parameters.
        for (k, loc) in args.iter().enumerate() {
            let (off, size) = (callee.param_offsets[k], callee.param_sizes[k]);
            if let VarLoc::FrameParam(o) = loc {
                let src = (caller_base + o) as usize;
                let dst = (param_base + off) as usize;
                let n = size as usize;
                if src + n <= th.params.len() {
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
        th.pc = 0;

        Ok(())
    }

    /// Reads `size` bytes (≤ 8) of a parameter variable of the current frame.
    fn param_value(&self, t: usize, loc: VarLoc, size: usize) -> u64 {
        let a = self.var_addr(t, loc);
        let mut buf = [0u8; 8];
        let n = size.min(8);
        let _ = slice_read(&self.threads[t].params, a, &mut buf[..n], "parameter space");
        u64::from_le_bytes(buf)
    }

    /// Reads guest memory at a generic address for the builtins (no alignment rule).
    fn read_generic(
        &self,
        t: usize,
        addr: u64,
        buf: &mut [u8],
        mem: &AddressSpace,
    ) -> Result<(), String> {
        let (sp, a) = self.resolve(t, MemSpace::Generic, Addr::Abs(addr as i64));
        let r = match sp {
            MemSpace::Shared => slice_read(&self.shared, a, buf, "shared memory"),
            MemSpace::Local => slice_read(&self.threads[t].local, a, buf, "local memory"),
            _ => mem.read_guest(a, buf),
        };
        r.map_err(|e| e.message().to_string())
    }

    fn read_cstr(&self, t: usize, addr: u64, mem: &AddressSpace) -> Result<String, String> {
        let mut read = |a: u64, b: &mut [u8]| self.read_generic(t, a, b, mem);
        let v = crate::ops::printf::read_cstr(&mut read, addr, crate::ops::printf::MAX_STR)?;
        Ok(String::from_utf8_lossy(&v).into_owned())
    }

    /// Runs a builtin external function (`vprintf`, `__assertfail`, `malloc`, `free`).
    fn builtin(
        &mut self,
        t: usize,
        which: Builtin,
        args: &[VarLoc],
        rets: &[VarLoc],
        mem: &AddressSpace,
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
                let mut read = |a: u64, b: &mut [u8]| self.read_generic(t, a, b, mem);
                let (text, n) = crate::ops::printf::format(fmt.as_bytes(), argbuf, &mut read)
                    .map_err(|e| self.fault(t, FaultKind::OutOfBounds, e))?;
                self.threads[t].out.extend_from_slice(&text);
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
                Some((mem.heap_alloc(size).unwrap_or(0), 8))
            }
            Builtin::Free => {
                let p = arg(0, 8);
                mem.heap_free(p).map_err(|e| {
                    let (kind, m) = fault_of(e);
                    self.fault(t, kind, format!("invalid device free: {m}"))
                })?;
                None
            }
        };
        if let (Some((v, size)), Some(loc)) = (ret, rets.first()) {
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

    /// The `(function, depth, pc)` a thread is at.
    fn site_of(&self, t: usize) -> (u32, usize, u32) {
        let th = &self.threads[t];
        (
            th.frames.last().map_or(0, |f| f.func),
            th.frames.len(),
            th.pc,
        )
    }

    /// Lanes of `t`'s membermask that have not exited and are not waiting at `t`'s
    /// `.sync` instruction (lanes beyond the CTA's last thread do not exist and count as
    /// exited).
    fn sync_missing(&self, t: usize) -> u32 {
        let lo = t / 32 * 32;
        let site = self.site_of(t);
        let mut missing = 0u32;
        for lane in 0..32usize {
            if self.threads[t].sync_mask >> lane & 1 == 0 {
                continue;
            }
            let Some(u) = self.threads.get(lo + lane) else {
                continue;
            };
            match u.state {
                TState::Exited => {}
                TState::WarpSync if self.site_of(lo + lane) == site => {}
                _ => missing |= 1 << lane,
            }
        }
        missing
    }

    /// Where the lanes in `m` of `t`'s warp are, for diagnostics.
    fn sync_lane_states(&self, t: usize, m: u32) -> String {
        let lo = t / 32 * 32;
        let mut parts = Vec::new();
        for lane in 0..32usize {
            if m >> lane & 1 == 0 {
                continue;
            }
            let Some(u) = self.threads.get(lo + lane) else {
                continue;
            };
            let (func, _, pc) = self.site_of(lo + lane);
            let line = self
                .prog
                .funcs
                .get(func as usize)
                .and_then(|f| f.code.get(pc as usize))
                .map_or(0, |i| i.line);
            let st = match u.state {
                TState::Barrier(id) => format!("at {}", bar_name(id)),
                TState::WarpSync => "at another `.sync` instruction".into(),
                TState::Ready => "not arrived".into(),
                TState::Exited => "exited".into(),
            };
            parts.push(format!("lane {lane} {st} (line {line})"));
            if parts.len() >= 4 {
                parts.push("...".into());
                break;
            }
        }
        parts.join("; ")
    }

    /// Executes a warp-level instruction for the active threads of a group.
    fn warp_inst(&mut self, w: u32, active: &[usize], inst: &DInst) -> Result<(), Box<Fault>> {
        if let Exec::Matrix { .. } = &inst.exec {
            // `.sync.aligned`: the whole warp takes part; lanes wait until every existing,
            // non-exited lane of the warp has arrived at this instruction.
            let all = self.live_lanes(w as usize);
            for &i in active {
                self.threads[i].sync_mask = all;
                self.threads[i].state = TState::WarpSync;
            }
            self.release_warp_syncs(w as usize)?;
            return Ok(());
        }
        let Exec::Warp { op, mask, .. } = &inst.exec else {
            return Ok(());
        };
        match mask {
            None => {
                let lanes = active
                    .iter()
                    .fold(0u32, |m, &i| m | 1 << self.threads[i].lane);
                for &i in active {
                    self.threads[i].sync_mask = lanes;
                }
                self.warp_exec(active, inst);
                for &i in active {
                    self.threads[i].pc += 1;
                }
            }
            Some(m) => {
                for &i in active {
                    let mv = self.src(i, *m) as u32;
                    let lane = self.threads[i].lane;
                    if mv >> lane & 1 == 0 {
                        return Err(self.fault(
                            i,
                            FaultKind::MemberMask,
                            format!(
                                "lane {lane} executes `{}` with membermask {mv:#010x}, which does not include the lane itself",
                                warp_op_name(*op)
                            ),
                        ));
                    }
                    self.threads[i].sync_mask = mv;
                    self.threads[i].state = TState::WarpSync;
                }
                self.release_warp_syncs(w as usize)?;
            }
        }
        Ok(())
    }

    /// Completes every `.sync` instruction of warp `w` whose member lanes have all arrived.
    fn release_warp_syncs(&mut self, w: usize) -> Result<bool, Box<Fault>> {
        let lo = w * 32;
        let hi = (lo + 32).min(self.threads.len());
        let mut done: Vec<usize> = Vec::new();
        for i in lo..hi {
            if self.threads[i].state == TState::WarpSync && self.sync_missing(i) == 0 {
                done.push(i);
            }
        }
        if done.is_empty() {
            return Ok(false);
        }
        // Execute per site, in lane order.
        while let Some(&first) = done.first() {
            let site = self.site_of(first);
            let (group, rest): (Vec<usize>, Vec<usize>) =
                done.iter().partition(|&&i| self.site_of(i) == site);
            done = rest;
            let (func, _, pc) = site;
            let prog = self.prog;
            let Some(inst) = prog
                .funcs
                .get(func as usize)
                .and_then(|f| f.code.get(pc as usize))
            else {
                continue;
            };
            if let Exec::Matrix { .. } = &inst.exec {
                self.matrix_exec(&group, inst)?;
            } else {
                self.warp_exec(&group, inst);
            }
            for &i in &group {
                let th = &mut self.threads[i];
                th.state = TState::Ready;
                th.pc += 1;
            }
        }
        Ok(true)
    }

    /// Computes and writes the results of a warp instruction for the participating
    /// threads `part` (each sees the participants within its own membermask).
    fn warp_exec(&mut self, part: &[usize], inst: &DInst) {
        let Exec::Warp {
            op, d, p, a, b, c, ..
        } = &inst.exec
        else {
            return;
        };
        let lo = part.first().map_or(0, |&i| i / 32 * 32);
        let mut vals = [0u64; 32];
        let mut present = 0u32;
        for &i in part {
            let lane = self.threads[i].lane as usize;
            vals[lane] = self.src(i, *a);
            present |= 1 << lane;
        }
        let mut results: Vec<(usize, u64, bool)> = Vec::with_capacity(part.len());
        for &i in part {
            let lane = self.threads[i].lane;
            let m = self.threads[i].sync_mask & present;
            let members = || (0..32usize).filter(move |l| m >> l & 1 == 1);
            let own = vals[lane as usize];
            let r = match op {
                WarpOp::ActiveMask => (m as u64, false),
                WarpOp::Sync => (0, false),
                WarpOp::VoteAll => (members().all(|l| vals[l] != 0) as u64, false),
                WarpOp::VoteAny => (members().any(|l| vals[l] != 0) as u64, false),
                WarpOp::VoteUni => {
                    let all = members().all(|l| vals[l] != 0);
                    let none = members().all(|l| vals[l] == 0);
                    ((all || none) as u64, false)
                }
                WarpOp::Ballot => (
                    members()
                        .filter(|&l| vals[l] != 0)
                        .fold(0u64, |acc, l| acc | 1 << l),
                    false,
                ),
                WarpOp::Shfl(mode) => {
                    let (bv, cv) = (self.src(i, *b), self.src(i, *c));
                    let (j, pval) = shfl_lane(*mode, lane, bv as u32, cv as u32);
                    let v = if present >> j & 1 == 1 {
                        vals[j as usize]
                    } else {
                        own
                    };
                    (v, pval)
                }
                WarpOp::MatchAny => (
                    members()
                        .filter(|&l| vals[l] == own)
                        .fold(0u64, |acc, l| acc | 1 << l),
                    false,
                ),
                WarpOp::MatchAll => {
                    if members().all(|l| vals[l] == own) {
                        (m as u64, true)
                    } else {
                        (0, false)
                    }
                }
                WarpOp::Redux(rop) => (redux(*rop, members().map(|l| vals[l])), false),
                WarpOp::Elect => {
                    let leader = m.trailing_zeros();
                    (leader as u64, leader == lane)
                }
            };
            results.push((i, r.0, r.1));
        }
        let _ = lo;
        for (i, v, pv) in results {
            if *op != WarpOp::Sync {
                self.write(i, *d, v);
            }
            self.write(i, *p, pv as u64);
        }
    }

    /// Executes `ldmatrix`/`stmatrix`/`movmatrix` for the warp's threads `part` (all of its
    /// live lanes, in lane order). 8x8 matrices of 16-bit elements: lane `l` holds, in each
    /// 32-bit register, the two elements of row `l / 4`, columns `2 * (l % 4)` and `+ 1`
    /// (low half first); with `.trans` the fragment is of the transposed matrix. Rows are
    /// 16 bytes at the address lane `8m + r` provides for row `r` of matrix `m`.
    #[allow(clippy::needless_range_loop)] // lane and row indices are the point here
    fn matrix_exec(&mut self, part: &[usize], inst: &DInst) -> Result<(), Box<Fault>> {
        let Exec::Matrix {
            op,
            dsts,
            srcs,
            addr,
        } = &inst.exec
        else {
            return Ok(());
        };
        let mut by_lane: [Option<usize>; 32] = [None; 32];
        for &i in part {
            by_lane[self.threads[i].lane as usize] = Some(i);
        }
        let need = |this: &Self, lane: usize| -> Result<usize, Box<Fault>> {
            by_lane[lane].ok_or_else(|| {
                let any = part.first().copied().unwrap_or(0);
                this.fault(
                    any,
                    FaultKind::MemberMask,
                    format!(
                        "a warp-collective matrix instruction needs lane {lane}, which does not exist or has exited"
                    ),
                )
            })
        };
        let half = |w: u32, j: usize| -> u16 { (w >> (16 * j)) as u16 };
        match *op {
            MatrixOp::Ld { n, trans } => {
                let (space, a) = addr.ok_or_else(|| self.unsupported(part[0], "ldmatrix"))?;
                // rows[m][r]: the 8 half-words of row r of matrix m.
                let mut rows = [[[0u16; 8]; 8]; 4];
                for m in 0..n as usize {
                    for r in 0..8 {
                        let t = need(self, 8 * m + r)?;
                        let (sp, at) = self.resolve(t, space, a);
                        let mut buf = [0u8; 16];
                        let mem = self.mem;
                        self.load(t, sp, at, &mut buf, mem)?;
                        for c in 0..8 {
                            rows[m][r][c] = u16::from_le_bytes([buf[2 * c], buf[2 * c + 1]]);
                        }
                    }
                }
                for &i in part {
                    let l = self.threads[i].lane as usize;
                    for (m, d) in dsts.iter().enumerate().take(n as usize) {
                        let (lo, hi) = if trans {
                            (rows[m][2 * (l % 4)][l / 4], rows[m][2 * (l % 4) + 1][l / 4])
                        } else {
                            (rows[m][l / 4][2 * (l % 4)], rows[m][l / 4][2 * (l % 4) + 1])
                        };
                        self.write(i, *d, lo as u64 | (hi as u64) << 16);
                    }
                }
            }
            MatrixOp::St { n, trans } => {
                let (space, a) = addr.ok_or_else(|| self.unsupported(part[0], "stmatrix"))?;
                for (m, src) in srcs.iter().enumerate().take(n as usize) {
                    let mut frag = [0u32; 32];
                    for l in 0..32 {
                        let t = need(self, l)?;
                        frag[l] = self.src(t, *src) as u32;
                    }
                    for r in 0..8 {
                        let mut buf = [0u8; 16];
                        for c in 0..8 {
                            let v = if trans {
                                half(frag[4 * c + r / 2], r % 2)
                            } else {
                                half(frag[4 * r + c / 2], c % 2)
                            };
                            buf[2 * c..2 * c + 2].copy_from_slice(&v.to_le_bytes());
                        }
                        let t = need(self, 8 * m + r)?;
                        let (sp, at) = self.resolve(t, space, a);
                        let mem = self.mem;
                        self.store(t, sp, at, &buf, mem)?;
                    }
                }
            }
            MatrixOp::Mma(spec) => {
                let mut regs: [Vec<u64>; 32] = std::array::from_fn(|_| Vec::new());
                for (l, r) in regs.iter_mut().enumerate() {
                    let t = need(self, l)?;
                    *r = srcs.iter().map(|s| self.src(t, *s)).collect();
                }
                let out = crate::ops::tensor::mma(&spec, self.launch.model, &regs)
                    .map_err(|m| self.fault(part[0], FaultKind::Unsupported, m))?;
                for &i in part {
                    let l = self.threads[i].lane as usize;
                    for (d, v) in dsts.iter().zip(&out[l]) {
                        self.write(i, *d, *v);
                    }
                }
            }
            MatrixOp::WmmaMma(w) => {
                let mut regs: [Vec<u64>; 32] = std::array::from_fn(|_| Vec::new());
                for (l, r) in regs.iter_mut().enumerate() {
                    let t = need(self, l)?;
                    *r = srcs.iter().map(|s| self.src(t, *s)).collect();
                }
                let out = crate::ops::tensor::wmma_mma(&w, self.launch.model, &regs)
                    .map_err(|m| self.fault(part[0], FaultKind::Unsupported, m))?;
                for &i in part {
                    let l = self.threads[i].lane as usize;
                    for (d, v) in dsts.iter().zip(&out[l]) {
                        self.write(i, *d, *v);
                    }
                }
            }
            MatrixOp::WmmaLoad(mv) | MatrixOp::WmmaStore(mv) => {
                let store = matches!(op, MatrixOp::WmmaStore(_));
                let (space, a) = addr.ok_or_else(|| self.unsupported(part[0], "wmma"))?;
                let nregs = mv.regs as usize;
                for &i in part {
                    let lane = self.threads[i].lane as usize;
                    let stride = if mv.has_stride {
                        srcs.last().map_or(0, |s| self.src(i, *s) as u32 as u64)
                    } else {
                        mv.default_stride()
                    };
                    let (sp, base) = self.resolve(i, space, a);
                    if let Err(m) = mv.check_align(base, stride) {
                        let what = if store { "store" } else { "load" };
                        return Err(self.fault(
                            i,
                            FaultKind::Misaligned,
                            format!("wmma.{what}: {m}"),
                        ));
                    }
                    let mem = self.mem;
                    let mut regs: Vec<u64> = if store {
                        srcs[..nregs.min(srcs.len())]
                            .iter()
                            .map(|s| self.src(i, *s))
                            .collect()
                    } else {
                        vec![0; nregs]
                    };
                    // A store writes each element once (the canonical slots).
                    let slots = if store { mv.need() } else { mv.slots() };
                    for j in 0..slots {
                        let (off, bit, w) = mv.locate(lane, j, stride);
                        let at = base.wrapping_add(off);
                        let mut buf = [0u8; 8];
                        let nb = mv.elem_bytes();
                        if store {
                            let v = mv.get(&regs, j);
                            if w < 8 {
                                // Sub-byte elements: read-modify-write their byte.
                                self.load(i, sp, at, &mut buf[..1], mem)?;
                                let mask = (((1u16 << w) - 1) << bit) as u8;
                                buf[0] = (buf[0] & !mask) | (((v as u8) << bit) & mask);
                            } else {
                                buf[..nb].copy_from_slice(&v.to_le_bytes()[..nb]);
                            }
                            self.store(i, sp, at, &buf[..nb], mem)?;
                        } else {
                            self.load(i, sp, at, &mut buf[..nb], mem)?;
                            let v = u64::from_le_bytes(buf) >> bit;
                            mv.put(&mut regs, j, v);
                        }
                    }
                    if !store {
                        for (d, v) in dsts.iter().zip(&regs) {
                            self.write(i, *d, *v);
                        }
                    }
                }
            }
            MatrixOp::MovTrans => {
                let (Some(src), Some(d)) = (srcs.first(), dsts.first()) else {
                    return Ok(());
                };
                let mut frag = [0u32; 32];
                for l in 0..32 {
                    let t = need(self, l)?;
                    frag[l] = self.src(t, *src) as u32;
                }
                for &i in part {
                    let l = self.threads[i].lane as usize;
                    // Element (row, col) of A is in lane 4*row + col/2, half col%2; lane l
                    // receives A^T[l/4][2(l%4)+j] = A[2(l%4)+j][l/4].
                    let mut out = 0u32;
                    for j in 0..2 {
                        let row = 2 * (l % 4) + j;
                        let col = l / 4;
                        out |= (half(frag[4 * row + col / 2], col % 2) as u32) << (16 * j);
                    }
                    self.write(i, *d, out as u64);
                }
            }
        }
        Ok(())
    }

    /// Threads that have arrived at barrier `id` in its current phase.
    fn bar_arrived(&self, id: usize) -> u32 {
        self.bar_lanes[id].iter().map(|m| m.count_ones()).sum()
    }

    /// A thread arrives at barrier `id` (`wait`: `.sync`/`.red`; `red`: the reduction and
    /// this thread's predicate).
    fn bar_arrive(
        &mut self,
        t: usize,
        id: u64,
        count: Option<u64>,
        wait: bool,
        red: Option<(BarRedOp, bool)>,
    ) -> Result<(), Box<Fault>> {
        if id > 15 {
            return Err(self.fault(
                t,
                FaultKind::Deadlock,
                format!("barrier id {id} is out of range 0..15"),
            ));
        }
        self.bar_join(t, id as usize, count, wait, red)
    }

    /// Arrival at barrier slot `id` (a named barrier, or [`CLUSTER_BAR`]).
    fn bar_join(
        &mut self,
        t: usize,
        id: usize,
        count: Option<u64>,
        wait: bool,
        red: Option<(BarRedOp, bool)>,
    ) -> Result<(), Box<Fault>> {
        if let Some(c) = count
            && (c == 0 || c % 32 != 0 || c > self.nwarps as u64 * 32)
        {
            return Err(self.fault(
                    t,
                    FaultKind::Deadlock,
                    format!(
                        "barrier {id}: thread count {c} must be a non-zero multiple of the warp size (32) and at most the CTA's {} warps × 32",
                        self.nwarps
                    ),
                ));
        }
        let fresh = self.bar_arrived(id) == 0;
        if fresh {
            self.bar_expected[id] = count.map(|c| c as u32);
            self.bar_red[id] = BarRedState {
                op: None,
                popc: 0,
                all: true,
                any: false,
            };
        }
        if let Some((op, p)) = red {
            let r = &mut self.bar_red[id];
            r.op = Some(op);
            r.popc += p as u32;
            r.all &= p;
            r.any |= p;
        }
        let (w, lane) = (t / 32, self.threads[t].lane);
        if let Some(m) = self.bar_lanes[id].get_mut(w) {
            *m |= 1 << lane;
        }
        if wait {
            self.threads[t].state = TState::Barrier(id as u8);
        }
        // Only an arrival that completes its warp's arrival can complete the barrier (exits
        // are rechecked by `recheck_blocked`); checking on every thread made a 1024-thread
        // `bar.sync` cost O(threads^2).
        let live = self.live_lanes(w);
        if self.bar_lanes[id].get(w).is_some_and(|&m| m & live == live) {
            self.check_barrier(id);
        }
        Ok(())
    }

    /// Lanes of warp `w` that exist and have not exited.
    fn live_lanes(&self, w: usize) -> u32 {
        let lo = w * 32;
        let hi = (lo + 32).min(self.threads.len());
        (lo..hi)
            .filter(|&i| self.threads[i].state != TState::Exited)
            .fold(0u32, |m, i| m | 1 << (i - lo))
    }

    /// Completes barrier `id` if enough warps have arrived: a warp has arrived when all of
    /// its non-exited threads have (§9.7.13.1); the count is in threads, a multiple of the
    /// warp size, so `count / 32` arrived warps complete it; without a count every warp
    /// with a non-exited thread must arrive.
    fn check_barrier(&mut self, id: usize) -> bool {
        if self.bar_arrived(id) == 0 {
            return false;
        }
        let mut warps_arrived = 0u32;
        let mut live_warps = 0u32;
        let mut all_live_arrived = true;
        for w in 0..self.nwarps as usize {
            let live = self.live_lanes(w);
            let lanes = self.bar_lanes[id].get(w).copied().unwrap_or(0);
            if live != 0 {
                live_warps += 1;
            }
            if lanes != 0 && lanes & live == live {
                warps_arrived += 1;
            } else if live != 0 {
                all_live_arrived = false;
            }
        }
        let done = match self.bar_expected[id] {
            Some(c) => warps_arrived * 32 >= c,
            None => all_live_arrived && live_warps > 0,
        };
        if !done {
            return false;
        }
        let r = self.bar_red[id];
        for th in &mut self.threads {
            if th.state == TState::Barrier(id as u8) {
                th.state = TState::Ready;
                if let (Some(d), Some(op)) = (th.red_dst.take(), r.op) {
                    let v = match op {
                        BarRedOp::Popc => r.popc as u64,
                        BarRedOp::And => r.all as u64,
                        BarRedOp::Or => r.any as u64,
                    };
                    if let (Dst::Reg(reg), Some(f)) = (d, th.frames.last_mut())
                        && let Some(slot) = f.regs.get_mut(reg as usize)
                    {
                        *slot = v;
                    }
                }
            }
        }
        for m in &mut self.bar_lanes[id] {
            *m = 0;
        }
        self.bar_expected[id] = None;
        true
    }

    /// Re-checks barriers and warp syncs after threads exited. Returns whether anything
    /// was released.
    fn recheck_blocked(&mut self) -> Result<bool, Box<Fault>> {
        self.exits_dirty = false;
        let mut any = false;
        for id in 0..NBAR {
            any |= self.check_barrier(id);
        }
        for w in 0..self.nwarps as usize {
            any |= self.release_warp_syncs(w)?;
        }
        Ok(any)
    }
}

/// How diagnostics name barrier slot `id`.
fn bar_name(id: u8) -> String {
    if id as usize == CLUSTER_BAR {
        "the cluster barrier (barrier.cluster)".into()
    } else {
        format!("barrier {id}")
    }
}

fn warp_op_name(op: WarpOp) -> &'static str {
    match op {
        WarpOp::ActiveMask => "activemask",
        WarpOp::Sync => "bar.warp.sync",
        WarpOp::VoteAll | WarpOp::VoteAny | WarpOp::VoteUni | WarpOp::Ballot => "vote.sync",
        WarpOp::Shfl(_) => "shfl.sync",
        WarpOp::MatchAny | WarpOp::MatchAll => "match.sync",
        WarpOp::Redux(_) => "redux.sync",
        WarpOp::Elect => "elect.sync",
    }
}

/// The source lane and validity of `shfl` (§9.7.8.6).
fn shfl_lane(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let bval = b & 0x1f;
    let cval = c & 0x1f;
    let segmask = (c >> 8) & 0x1f;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, pval) = match mode {
        ShflMode::Up => {
            let j = lane as i32 - bval as i32;
            (j, j >= max_lane as i32)
        }
        ShflMode::Down => {
            let j = (lane + bval) as i32;
            (j, j <= max_lane as i32)
        }
        ShflMode::Bfly => {
            let j = (lane ^ bval) as i32;
            (j, j <= max_lane as i32)
        }
        ShflMode::Idx => {
            let j = (min_lane | (bval & !segmask)) as i32;
            (j, j <= max_lane as i32)
        }
    };
    if pval && (0..32).contains(&j) {
        (j as u32, true)
    } else {
        (lane, false)
    }
}

/// `redux.sync` over the members' values.
fn redux(op: ReduxOp, vals: impl Iterator<Item = u64>) -> u64 {
    let vals: Vec<u32> = vals.map(|v| v as u32).collect();
    let fl = |abs: bool, nan: bool, max: bool| -> u64 {
        let m = fa::MinMax {
            ftz: false,
            nan,
            xorsign_abs: false,
        };
        let mut it = vals.iter().map(|&v| {
            let x = f32::from_bits(v);
            if abs { fa::abs_f32(x, false) } else { x }
        });
        let Some(first) = it.next() else { return 0 };
        it.fold(first, |acc, x| {
            if max {
                fa::max_f32(acc, x, m)
            } else {
                fa::min_f32(acc, x, m)
            }
        })
        .to_bits() as u64
    };
    match op {
        ReduxOp::Add => vals.iter().fold(0u32, |a, &v| a.wrapping_add(v)) as u64,
        ReduxOp::And => vals.iter().fold(u32::MAX, |a, &v| a & v) as u64,
        ReduxOp::Or => vals.iter().fold(0, |a, &v| a | v) as u64,
        ReduxOp::Xor => vals.iter().fold(0, |a, &v| a ^ v) as u64,
        ReduxOp::Min { signed: true } => {
            vals.iter().map(|&v| v as i32).min().unwrap_or(0) as u32 as u64
        }
        ReduxOp::Max { signed: true } => {
            vals.iter().map(|&v| v as i32).max().unwrap_or(0) as u32 as u64
        }
        ReduxOp::Min { signed: false } => vals.iter().copied().min().unwrap_or(0) as u64,
        ReduxOp::Max { signed: false } => vals.iter().copied().max().unwrap_or(0) as u64,
        ReduxOp::FMin { abs, nan } => fl(abs, nan, false),
        ReduxOp::FMax { abs, nan } => fl(abs, nan, true),
    }
}

fn lanes_text(m: u32) -> String {
    let v: Vec<String> = (0..32)
        .filter(|l| m >> l & 1 == 1)
        .map(|l| l.to_string())
        .collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// Tag bit marking kernel-parameter addresses within the param space. It fits in 32 bits so
/// that an address taken with `mov.b32 %r, param` (LLVM's NVPTX backend emits this when it
/// selects between two kernel parameters, e.g. Triton's `tl.where(c, a_ptr, b_ptr)`) keeps its
/// tag; per-thread frame param space is far smaller than 2^31 bytes.
const KPARAM_TAG: u64 = 1 << 31;

fn space_name(s: MemSpace) -> &'static str {
    match s {
        MemSpace::Generic => "generic",
        MemSpace::Global => "global",
        MemSpace::Shared => "shared",
        MemSpace::Local => "local",
        MemSpace::Const => "const",
        MemSpace::Param => "param",
    }
}

/// " (offset N in <allocation>)" for a global address inside an allocation.
fn where_in(space: MemSpace, addr: u64, mem: &AddressSpace) -> String {
    if !matches!(
        space,
        MemSpace::Global | MemSpace::Generic | MemSpace::Const
    ) {
        return String::new();
    }
    match mem.lookup(addr) {
        Some(a) => format!(
            " (offset {} in {:?} allocation {:#x}, {} bytes)",
            addr - a.base,
            a.kind,
            a.base,
            a.size
        ),
        None => String::new(),
    }
}

/// The fault kind of a failed access.
fn fault_of(e: AccessError) -> (FaultKind, String) {
    match e {
        AccessError::OutOfBounds(m) => (FaultKind::OutOfBounds, m),
        AccessError::UseAfterFree(m) => (FaultKind::UseAfterFree, m),
        AccessError::ReadOnly(m) => (FaultKind::ReadOnly, m),
    }
}

fn slice_read(s: &[u8], addr: u64, buf: &mut [u8], what: &str) -> Result<(), AccessError> {
    let n = buf.len() as u64;
    if addr.checked_add(n).is_some_and(|e| e <= s.len() as u64) {
        buf.copy_from_slice(&s[addr as usize..(addr + n) as usize]);
        Ok(())
    } else {
        Err(AccessError::OutOfBounds(format!(
            "{n}-byte access at offset {addr:#x} is outside {what} ({} bytes)",
            s.len()
        )))
    }
}

fn slice_write(s: &mut [u8], addr: u64, data: &[u8], what: &str) -> Result<(), AccessError> {
    let n = data.len() as u64;
    if addr.checked_add(n).is_some_and(|e| e <= s.len() as u64) {
        s[addr as usize..(addr + n) as usize].copy_from_slice(data);
        Ok(())
    } else {
        Err(AccessError::OutOfBounds(format!(
            "{n}-byte access at offset {addr:#x} is outside {what} ({} bytes)",
            s.len()
        )))
    }
}

#[inline]
fn mask(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

#[inline]
fn sext(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        (((v << (64 - bits)) as i64) >> (64 - bits)) as u64
    }
}

fn bool_op(op: BoolOp, a: bool, b: bool) -> bool {
    match op {
        BoolOp::And => a && b,
        BoolOp::Or => a || b,
        BoolOp::Xor => a ^ b,
    }
}

/// Integer binary operations on the low `ty.bits()` bits.
fn int_bin(op: IntOp, ty: Type, a: u64, b: u64) -> u64 {
    let bits = ty.bits();
    let signed = ty.class() == Class::Signed;
    let (ua, ub) = (mask(a, bits), mask(b, bits));
    let (sa, sb) = (sext(a, bits) as i64, sext(b, bits) as i64);
    let r = match op {
        IntOp::Add => ua.wrapping_add(ub),
        IntOp::Sub => ua.wrapping_sub(ub),
        IntOp::AddSat => (sa as i128 + sb as i128).clamp(i32::MIN as i128, i32::MAX as i128) as u64,
        IntOp::SubSat => (sa as i128 - sb as i128).clamp(i32::MIN as i128, i32::MAX as i128) as u64,
        IntOp::MulLo => ua.wrapping_mul(ub),
        IntOp::MulHi => {
            let p = if signed {
                (sa as i128 * sb as i128) as u128
            } else {
                ua as u128 * ub as u128
            };
            (p >> bits) as u64
        }
        IntOp::MulWide => {
            let p = if signed {
                (sa as i128 * sb as i128) as u128
            } else {
                ua as u128 * ub as u128
            };
            return mask(p as u64, bits * 2);
        }
        // Division by zero: PTX leaves the result unspecified; ptxvm gives all ones
        // (as GPUs do) for the quotient and the dividend for the remainder.
        IntOp::Div => {
            if ub == 0 {
                u64::MAX
            } else if signed {
                sa.wrapping_div(sb) as u64
            } else {
                ua / ub
            }
        }
        IntOp::Rem => {
            if ub == 0 {
                ua
            } else if signed {
                sa.wrapping_rem(sb) as u64
            } else {
                ua % ub
            }
        }
        IntOp::Min => {
            if signed {
                sa.min(sb) as u64
            } else {
                ua.min(ub)
            }
        }
        IntOp::Max => {
            if signed {
                sa.max(sb) as u64
            } else {
                ua.max(ub)
            }
        }
        IntOp::And => ua & ub,
        IntOp::Or => ua | ub,
        IntOp::Xor => ua ^ ub,
        // Shift amounts are unsigned 32-bit and clamp at the type width.
        IntOp::Shl => {
            let s = mask(b, 32);
            if s >= bits as u64 { 0 } else { ua << s }
        }
        IntOp::Shr => {
            let s = mask(b, 32).min(bits as u64);
            if signed {
                (sa >> s.min(63)) as u64
            } else if s >= bits as u64 {
                0
            } else {
                ua >> s
            }
        }
    };
    mask(r, bits)
}

fn int_un(op: IntUn, ty: Type, a: u64) -> u64 {
    let bits = ty.bits();
    let ua = mask(a, bits);
    let r = match op {
        IntUn::Not => !ua,
        IntUn::Cnot => (ua == 0) as u64,
        IntUn::Neg => ua.wrapping_neg(),
        IntUn::Abs => (sext(a, bits) as i64).wrapping_abs() as u64,
        IntUn::Popc => ua.count_ones() as u64,
        IntUn::Clz => (ua.leading_zeros() - (64 - bits)) as u64,
        IntUn::Brev => ua.reverse_bits() >> (64 - bits),
    };
    mask(r, bits)
}

#[allow(clippy::too_many_arguments)]
fn float_bin(
    op: FOp,
    ty: Type,
    rnd: Rnd,
    ftz: bool,
    sat: bool,
    nan: bool,
    xorsign: bool,
    a: u64,
    b: u64,
) -> u64 {
    if ty == Type::F32 {
        let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        let mm = fa::MinMax {
            ftz,
            nan,
            xorsign_abs: xorsign,
        };
        let r = match op {
            FOp::Add => fa::add_f32(x, y, rnd, ftz, sat),
            FOp::Sub => fa::sub_f32(x, y, rnd, ftz, sat),
            FOp::Mul => fa::mul_f32(x, y, rnd, ftz, sat),
            FOp::Div => fa::div_f32(x, y, rnd, ftz),
            FOp::DivFull => fa::div_full_f32(x, y, ftz),
            FOp::DivApprox => ptxvm_fp::approx::div_approx_f32(x, y, ftz),
            FOp::Min => fa::min_f32(x, y, mm),
            FOp::Max => fa::max_f32(x, y, mm),
            FOp::Copysign => fa::copysign_f32(x, y),
        };
        r.to_bits() as u64
    } else {
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        let r = match op {
            FOp::Add => fa::add_f64(x, y, rnd),
            FOp::Sub => fa::sub_f64(x, y, rnd),
            FOp::Mul => fa::mul_f64(x, y, rnd),
            FOp::Div | FOp::DivFull | FOp::DivApprox => fa::div_f64(x, y, rnd),
            FOp::Min => fa::min_f64(x, y),
            FOp::Max => fa::max_f64(x, y),
            FOp::Copysign => fa::copysign_f64(x, y),
        };
        r.to_bits()
    }
}

fn float_un(op: FUn, ty: Type, rnd: Rnd, ftz: bool, a: u64) -> u64 {
    use ptxvm_fp::approx as ap;
    if ty == Type::F32 {
        let x = f32::from_bits(a as u32);
        let r = match op {
            FUn::Neg => fa::neg_f32(x, ftz),
            FUn::Abs => fa::abs_f32(x, ftz),
            FUn::Sqrt => fa::sqrt_f32(x, rnd, ftz),
            FUn::SqrtApprox => ap::sqrt_approx_f32(x, ftz),
            FUn::Rcp => fa::rcp_f32(x, rnd, ftz),
            FUn::RcpApprox => ap::rcp_approx_f32(x, ftz),
            FUn::Rsqrt => ap::rsqrt_approx_f32(x, ftz),
            FUn::Sin => ap::sin_approx_f32(x, ftz),
            FUn::Cos => ap::cos_approx_f32(x, ftz),
            FUn::Lg2 => ap::lg2_approx_f32(x, ftz),
            FUn::Ex2 => ap::ex2_approx_f32(x, ftz),
            FUn::Tanh => ap::tanh_approx_f32(x),
        };
        r.to_bits() as u64
    } else {
        let x = f64::from_bits(a);
        let r = match op {
            FUn::Neg => fa::neg_f64(x),
            FUn::Abs => fa::abs_f64(x),
            FUn::Sqrt | FUn::SqrtApprox => fa::sqrt_f64(x, rnd),
            FUn::Rcp => fa::rcp_f64(x, rnd),
            FUn::RcpApprox => ap::rcp_approx_ftz_f64(x),
            FUn::Rsqrt if ftz => ap::rsqrt_approx_ftz_f64(x),
            FUn::Rsqrt => ap::rsqrt_approx_f64(x),
            _ => f64::NAN,
        };
        r.to_bits()
    }
}

fn compare(cmp: Cmp, ty: Type, ftz: bool, a: u64, b: u64) -> bool {
    use fa::CmpOp::*;
    match cmp {
        Cmp::Float(op) if crate::ops::half::is_half(ty) => {
            crate::ops::half::compare(op, ty, ftz, a, b).0
        }
        Cmp::Float(op) => {
            if ty == Type::F32 {
                fa::cmp_f32(op, f32::from_bits(a as u32), f32::from_bits(b as u32), ftz)
            } else {
                fa::cmp_f64(op, f64::from_bits(a), f64::from_bits(b))
            }
        }
        Cmp::Int(op, unsigned) => {
            let bits = ty.bits();
            let ord = if unsigned {
                mask(a, bits).cmp(&mask(b, bits))
            } else {
                (sext(a, bits) as i64).cmp(&(sext(b, bits) as i64))
            };
            match op {
                Eq => ord.is_eq(),
                Ne => ord.is_ne(),
                Lt => ord.is_lt(),
                Le => ord.is_le(),
                Gt => ord.is_gt(),
                Ge => ord.is_ge(),
                _ => false,
            }
        }
    }
}

fn int_type(t: Type) -> Option<ptxvm_fp::convert::IntType> {
    use ptxvm_fp::convert::IntType as I;
    Some(match t {
        Type::U8 | Type::B8 => I::U8,
        Type::U16 | Type::B16 => I::U16,
        Type::U32 | Type::B32 => I::U32,
        Type::U64 | Type::B64 => I::U64,
        Type::S8 => I::S8,
        Type::S16 => I::S16,
        Type::S32 => I::S32,
        Type::S64 => I::S64,
        _ => return None,
    })
}

fn float_type(t: Type) -> Option<ptxvm_fp::convert::FloatType> {
    use ptxvm_fp::convert::FloatType as F;
    Some(match t {
        Type::F16 => F::F16,
        Type::Bf16 => F::BF16,
        Type::F32 => F::F32,
        Type::F64 => F::F64,
        _ => return None,
    })
}

#[allow(clippy::too_many_arguments)]
fn cvt(
    dty: Type,
    aty: Type,
    rnd: Option<Rnd>,
    irnd: Option<Rnd>,
    sat: bool,
    ftz: bool,
    relu: bool,
    satfinite: bool,
    a: u64,
) -> Option<u64> {
    use ptxvm_fp::convert as cv;
    match (
        int_type(dty),
        float_type(dty),
        int_type(aty),
        float_type(aty),
    ) {
        (Some(di), _, Some(ai), _) => Some(cv::cvt_int_to_int(a, ai, di, sat)),
        (Some(di), _, _, Some(af)) => Some(cv::cvt_float_to_int(
            a,
            af,
            di,
            irnd.unwrap_or(Rnd::Rz),
            ftz,
        )),
        (_, Some(df), Some(ai), _) => {
            Some(cv::cvt_int_to_float(a, ai, df, rnd.unwrap_or(Rnd::Rn), sat))
        }
        (_, Some(df), _, Some(af)) => {
            if df == af && irnd.is_some() {
                return Some(cv::cvt_float_round_int(a, af, irnd?, ftz, sat));
            }
            let m = cv::CvtMods {
                ftz,
                sat,
                relu,
                satfinite,
            };
            Some(cv::cvt_float_to_float(a, af, df, rnd.unwrap_or(Rnd::Rn), m))
        }
        _ => None,
    }
}

fn atom_op(op: AtomOp, ty: Type, old: u64, b: u64, c: u64) -> u64 {
    let bits = ty.bits();
    match (op, ty) {
        // `atom.add.f32` rounds to nearest even and flushes subnormal inputs and results.
        (AtomOp::Add, Type::F32) => fa::add_f32(
            f32::from_bits(old as u32),
            f32::from_bits(b as u32),
            Rnd::Rn,
            true,
            false,
        )
        .to_bits() as u64,
        (AtomOp::Add, Type::F64) => {
            fa::add_f64(f64::from_bits(old), f64::from_bits(b), Rnd::Rn).to_bits()
        }
        // `.noftz` half adds: round to nearest even, subnormals preserved.
        (AtomOp::Add, Type::F16 | Type::Bf16 | Type::F16x2 | Type::Bf16x2) => {
            crate::ops::half::eval(
                crate::ops::half::HOp::Add,
                ty,
                crate::ops::half::HMods {
                    rnd: Rnd::Rn,
                    ftz: false,
                    sat: false,
                    relu: false,
                    nan: false,
                    xorsign_abs: false,
                },
                old,
                b,
                0,
            )
        }
        (AtomOp::Add, _) => mask(old.wrapping_add(b), bits),
        (AtomOp::Min, _) => int_bin(IntOp::Min, ty, old, b),
        (AtomOp::Max, _) => int_bin(IntOp::Max, ty, old, b),
        (AtomOp::Inc, _) => {
            if mask(old, bits) >= mask(b, bits) {
                0
            } else {
                mask(old + 1, bits)
            }
        }
        (AtomOp::Dec, _) => {
            if mask(old, bits) == 0 || mask(old, bits) > mask(b, bits) {
                mask(b, bits)
            } else {
                mask(old - 1, bits)
            }
        }
        (AtomOp::And, _) => old & b,
        (AtomOp::Or, _) => old | b,
        (AtomOp::Xor, _) => old ^ b,
        (AtomOp::Exch, _) => mask(b, bits),
        (AtomOp::Cas, _) => {
            if mask(old, bits) == mask(b, bits) {
                mask(c, bits)
            } else {
                mask(old, bits)
            }
        }
    }
}

fn int_x(op: IntX, ty: Type, v: [u64; 4]) -> u64 {
    use crate::ops::int as ix;
    let [a, b, c, d] = v;
    let bits = ty.bits();
    let signed = ty.class() == Class::Signed;
    match op {
        IntX::Mul24 { hi } => ix::mul24(a, b, hi, signed),
        IntX::Mad24 { hi, sat } => ix::mad24(a, b, c, hi, signed, sat),
        IntX::Sad => ix::sad(a, b, c, bits, signed),
        IntX::Bfe => ix::bfe(a, b, c, bits, signed),
        IntX::Bfi => ix::bfi(a, b, c, d, bits),
        IntX::Bfind { shiftamt } => ix::bfind(a, bits, signed, shiftamt),
        IntX::Fns => ix::fns(a, b, c),
        IntX::Szext { clamp } => ix::szext(a, b, clamp, signed),
        IntX::Bmsk { clamp } => ix::bmsk(a, b, clamp),
        IntX::Prmt(m) => ix::prmt(a, b, c, m),
        IntX::Lop3 => ix::lop3(a, b, c, d),
        IntX::Shf { left, clamp } => ix::shf(a, b, c, left, clamp),
        IntX::Dp4a { sa, sb } => ix::dp4a(a, b, c, sa, sb),
        IntX::Dp2a { hi, sa, sb } => ix::dp2a(a, b, c, hi, sa, sb),
        IntX::Packed { op, relu } => ix::packed16(op, a, b, ty == Type::S16x2, relu),
        IntX::MinMaxRelu { max } => ix::minmax_relu_s32(a, b, max),
    }
}

fn cvt_x(op: CvtX, a: u64, b: u64, c: u64) -> u64 {
    use ptxvm_fp::convert as cv;
    let (fa_, fb) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
    match op {
        CvtX::Half2F32 {
            bf,
            rnd,
            relu,
            satfinite,
        } => {
            if bf {
                cv::cvt_f32x2_to_bf16x2(fa_, fb, rnd, relu, satfinite) as u64
            } else {
                cv::cvt_f32x2_to_f16x2(fa_, fb, rnd, relu, satfinite) as u64
            }
        }
        CvtX::Tf32 {
            rnd,
            relu,
            satfinite,
        } => cv::cvt_f32_to_tf32(fa_, rnd, relu, satfinite) as u64,
        CvtX::NarrowF32 { ty, relu } => cv::cvt_f32x2_to_narrow(fa_, fb, ty, relu) as u64,
        CvtX::NarrowF16x2 { ty, relu } => cv::cvt_f16x2_to_narrow(a as u32, ty, relu) as u64,
        CvtX::F16x2Narrow { ty, relu } => cv::cvt_narrow_to_f16x2(a as u16, ty, relu) as u64,
        CvtX::Ue8m0F32 { rnd, satfinite } => {
            cv::cvt_f32x2_to_ue8m0x2(fa_, fb, rnd, satfinite) as u64
        }
        CvtX::Ue8m0Bf16x2 { rnd, satfinite } => {
            cv::cvt_bf16x2_to_ue8m0x2(a as u32, rnd, satfinite) as u64
        }
        CvtX::Bf16x2Ue8m0 => cv::cvt_ue8m0x2_to_bf16x2(a as u16) as u64,
        CvtX::PackSat16 { signed } => {
            cv::cvt_pack_sat_16(a as u32 as i32, b as u32 as i32, signed) as u64
        }
        CvtX::PackSat { size, signed } => {
            cv::cvt_pack_sat(a as u32 as i32, b as u32 as i32, c as u32, size, signed) as u64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_edge_cases() {
        assert_eq!(int_bin(IntOp::Div, Type::S32, 7, 0), u32::MAX as u64);
        assert_eq!(
            int_bin(IntOp::Div, Type::S32, 0x8000_0000, u32::MAX as u64),
            0x8000_0000
        );
        assert_eq!(int_bin(IntOp::Shr, Type::S32, 0x8000_0000, 40), 0xffff_ffff);
        assert_eq!(int_bin(IntOp::Shl, Type::B32, 1, 32), 0);
        assert_eq!(
            int_bin(IntOp::MulWide, Type::S32, u32::MAX as u64, 2),
            (-2i64) as u64
        );
        assert_eq!(int_bin(IntOp::MulHi, Type::U32, 0x8000_0000, 4), 2);
        assert_eq!(
            int_bin(IntOp::AddSat, Type::S32, i32::MAX as u64, 1),
            i32::MAX as u64
        );
        assert_eq!(int_un(IntUn::Clz, Type::B32, 1), 31);
        assert_eq!(int_un(IntUn::Brev, Type::B32, 1), 0x8000_0000);
        assert_eq!(atom_op(AtomOp::Inc, Type::U32, 5, 5, 0), 0);
        assert_eq!(atom_op(AtomOp::Dec, Type::U32, 0, 5, 0), 5);
    }
}
