//! The JIT engine (`--engine jit`, and `auto`): a kernel's code compiled by Cranelift to
//! native code over the warp engine's state.
//!
//! One native function per kernel, `fn(&mut JitCtx, pc) -> exit`, runs the group the warp
//! engine selected from `pc` on, through as many of the kernel's basic blocks as it can: the
//! lane-major registers ([`super::WarpRegs`]) are read into SIMD values (`i32x4`/`f32x4` and
//! `i64x2`, eight or sixteen per register), computed with the same rules as
//! [`crate::ops::alu`] and `ptxvm-fp` (round-to-nearest float arithmetic on the host's own
//! instructions, NaN results canonicalised, `.ftz` and `.sat` as bit operations), and stored
//! back, blended with the group's lanes, when a block ends — only the registers live there
//! ([`Live`]); an `f32` result is canonicalised lazily, where it is stored or read as bits
//! ([`Regs::raw`]). Predicates are lane masks.
//!
//! The native code leaves (returns to the warp engine, which goes on exactly where it
//! stopped) wherever the reference would do something it does not: an instruction it does
//! not compile (the engine runs it and comes back), a divergent branch it cannot take on
//! itself (it takes one where the warp engine would go on with the lanes at the branch's
//! lower PC as the selected group: [`jit_diverge`], the others waiting until the two meet,
//! [`jit_merge`]), a group that has to be selected again (it reached another group's PC, or started spinning), the end of the
//! warp's quantum or of the launch's step budget (counted per block on entry, given back
//! for what a block did not run), or a memory access that some lane cannot make the quick
//! way (the engine makes it, faults included). So the scheduling, the counters and every
//! result are the reference's.
//!
//! Compiled code is kept per kernel in its [`crate::program::FuncCode`], so every launch of
//! the kernel in the module uses it.

use super::fast::SpanCache;
use super::*;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32X4, I8X16, I32, I32X4, I64, I64X2};
use cranelift_codegen::ir::{
    AbiParam, Block, ConstantData, Endianness, InstBuilder, JumpTableData, MemFlagsData, Signature,
    StackSlot, StackSlotData, StackSlotKind, UserFuncName, Value,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};
use ptxvm_fp::Rnd;
use ptxvm_fp::arith::CmpOp;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

/// What the native code works on (its layout is what the code reads: `repr(C)`).
#[repr(C)]
pub(super) struct JitCtx {
    r32: *mut [u32; 32],
    r64: *mut [u64; 32],
    pred: *mut u32,
    /// The group's lanes.
    act: u32,
    /// The lowest PC of the warp's other ready threads (see `Group::others`).
    others: u32,
    /// Warp instructions the code may still run (the launch budget's rest it reserved).
    room: u64,
    /// The turn's quantum is used up once `room` is down to this: the code then stops at the
    /// next yield point (see [`crate::program::yield_points`]).
    yield_below: u64,
    /// Thread instructions run (active lanes, summed).
    thread_insts: u64,
    /// The group's spin state (see `fast::Spin`): in and out.
    spin_max: u32,
    spin_taken: u32,
    spin_zeroed: u32,
    /// Where the group is when the code returns.
    exit_pc: u32,
    // For the memory helpers.
    spans: *mut SpanCache,
    shared: *mut u8,
    shared_len: u64,
    mem: *const AddressSpace,
    addr: [u64; 32],
    val: [u64; 32],
    /// This warp's `%tid.x/y/z` by lane (`[3][32]`).
    tid: *const u32,
    /// `%ntid`, `%ctaid`, `%nctaid` (x, y, z each).
    cta: [u32; 9],
    /// The kernel parameter buffer.
    kparams: *const u8,
    kparams_len: u64,
    /// The warp's lanes that exist and have not exited (for warp collectives).
    live: u32,
    /// A helper's second result (`jit_shfl`: the lanes whose source was in range).
    aux: u32,
    /// A divergent branch the code took on itself ([`jit_diverge`]): the lanes of `pend`
    /// wait at `pend_pc` while `act` runs on, until it reaches `pend_pc` and the two merge
    /// ([`jit_merge`]; `pend` 0 again). `0` on entry.
    pend: u32,
    pend_pc: u32,
    /// `others` before the divergence (while `pend` waits, `others` is `pend_pc`).
    orig_others: u32,
    /// The warp's scheduling records (`sched_n` of them), for [`jit_diverge`].
    sched: *mut Sched,
    sched_n: u32,
}

impl JitCtx {
    /// A context with no CTA in it yet (every pointer null): `jit_run` sets them all
    /// before each entry.
    pub(super) const EMPTY: JitCtx = JitCtx {
        r32: std::ptr::null_mut(),
        r64: std::ptr::null_mut(),
        pred: std::ptr::null_mut(),
        act: 0,
        others: 0,
        room: 0,
        yield_below: 0,
        thread_insts: 0,
        spin_max: 0,
        spin_taken: 0,
        spin_zeroed: 0,
        exit_pc: 0,
        spans: std::ptr::null_mut(),
        shared: std::ptr::null_mut(),
        shared_len: 0,
        mem: std::ptr::null(),
        addr: [0; 32],
        val: [0; 32],
        tid: std::ptr::null(),
        cta: [0; 9],
        kparams: std::ptr::null(),
        kparams_len: 0,
        live: 0,
        aux: 0,
        pend: 0,
        pend_pc: 0,
        orig_others: 0,
        sched: std::ptr::null_mut(),
        sched_n: 0,
    };
}

impl JitCtx {
    /// The group's spin state, as the code keeps it.
    fn spin(&self) -> super::fast::Spin {
        super::fast::Spin {
            max: self.spin_max,
            taken: self.spin_taken,
            zeroed: self.spin_zeroed != 0,
        }
    }

    fn set_spin(&mut self, spin: &super::fast::Spin) {
        self.spin_max = spin.max;
        self.spin_taken = spin.taken;
        self.spin_zeroed = spin.zeroed as u32;
    }
}

/// How a call of native code ended: warp instructions run, the exit code and PC, and the
/// group then (its lanes and the others' lowest PC), which a divergence the code took on
/// itself narrows.
pub(super) struct JitExit {
    pub(super) ran: u64,
    pub(super) code: u32,
    pub(super) pc: u32,
    pub(super) mask: u32,
    pub(super) others: u32,
}

/// Exit codes of the native code.
pub(super) const EXIT_AT: u32 = 0;
pub(super) const EXIT_RESELECT: u32 = 1;

type Entry = unsafe extern "C" fn(*mut JitCtx, u32) -> u32;

/// A kernel compiled to native code.
pub(crate) struct JitCode {
    entry: Entry,
    /// The PCs the code can start at (block starts).
    starts: Vec<bool>,
    /// Instructions compiled, of the kernel's.
    pub compiled: usize,
    pub compile_time: std::time::Duration,
    module: Mutex<Option<JITModule>>,
}

// SAFETY: after `finalize_definitions` the module's code is immutable; the function pointer
// may be called from any thread. The module is only freed (Drop) when no launch can use it.
unsafe impl Send for JitCode {}
unsafe impl Sync for JitCode {}

impl Drop for JitCode {
    fn drop(&mut self) {
        if let Ok(mut m) = self.module.lock()
            && let Some(m) = m.take()
        {
            // SAFETY: the code is owned by its `FuncCode`, which is being dropped: no launch
            // runs it any more.
            unsafe { m.free_memory() };
        }
    }
}

impl std::fmt::Debug for JitCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "JitCode({} instructions)", self.compiled)
    }
}

impl JitCode {
    #[inline(always)]
    pub(super) fn starts_at(&self, pc: u32) -> bool {
        self.starts.get(pc as usize).copied().unwrap_or(false)
    }
}

/// The kernel's compiled code, compiled on first use, or why it did not compile (it then
/// runs on the warp engine).
pub(crate) type JitSlot = OnceLock<Result<Arc<JitCode>, String>>;

/// The compiled code of `f`, compiling it if no launch did yet.
/// Runs `job` (a kernel's compile) on the process's background compiler thread, which
/// takes jobs in order; a job that panics is dropped (its kernel stays on the warp engine:
/// a later launch that waits for the JIT compiles it again and reports the failure).
/// Without a thread (it cannot be started), the job runs here.
pub(crate) fn compile_in_background(job: Box<dyn FnOnce() + Send>) {
    use std::sync::mpsc::{Sender, channel};
    use std::sync::{Mutex, OnceLock};
    type Job = Box<dyn FnOnce() + Send>;
    static QUEUE: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        let (tx, rx) = channel::<Job>();
        std::thread::Builder::new()
            .name("ptxvm-jit".into())
            .spawn(move || {
                while let Ok(job) = rx.recv() {
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                }
            })
            .ok()
            .map(|_| Mutex::new(tx))
    });
    let job = match queue {
        Some(tx) => match tx.lock().unwrap_or_else(|e| e.into_inner()).send(job) {
            Ok(()) => return,
            Err(e) => e.0,
        },
        None => job,
    };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
}

pub(crate) fn code_for(f: &FuncCode) -> Result<Arc<JitCode>, String> {
    f.jit
        .get_or_init(|| {
            let t = std::time::Instant::now();
            compile(f).map_err(|e| e.0).map(|mut c| {
                c.compile_time = t.elapsed();
                Arc::new(c)
            })
        })
        .clone()
}

impl Cta<'_> {
    /// Runs native code for group `g` from its PC; `None` when the code ran no instruction
    /// (the warp engine takes the step). Updates the counters and the group's spin state,
    /// and stores the PC of the lanes a divergence left waiting ([`Gen::diverge`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn jit_run(
        &mut self,
        code: &JitCode,
        w: u32,
        mask: u32,
        pc: u32,
        others: u32,
        spin: &mut super::fast::Spin,
        room: u64,
        quantum: u64,
        stats: &mut Stats,
        mem: &AddressSpace,
    ) -> Option<JitExit> {
        let wr = &mut self.wregs[w as usize];
        // The context is the CTA's, made once: an entry sets its fields, not its 512 bytes
        // of helper buffers (`addr`, `val`), which the code writes before a helper reads them.
        let ctx = self.jit_ctx.get_or_insert_with(|| Box::new(JitCtx::EMPTY));
        ctx.r32 = wr.r32.as_mut_ptr();
        ctx.r64 = wr.r64.as_mut_ptr();
        ctx.pred = wr.pred.as_mut_ptr();
        ctx.act = mask;
        ctx.others = others;
        ctx.room = room;
        ctx.yield_below = room.saturating_sub(quantum);
        ctx.thread_insts = 0;
        ctx.set_spin(spin);
        ctx.exit_pc = pc;
        ctx.spans = &mut self.spans;
        ctx.shared = self.shared.as_mut_ptr();
        ctx.shared_len = self.shared.len() as u64;
        ctx.mem = mem;
        ctx.tid = self.tid_lanes[w as usize].as_ptr();
        ctx.cta = {
            let (b, c, g) = (self.launch.block, self.ctaid, self.launch.grid);
            [b[0], b[1], b[2], c[0], c[1], c[2], g[0], g[1], g[2]]
        };
        ctx.kparams = self.launch.params.as_ptr();
        ctx.kparams_len = self.launch.params.len() as u64;
        ctx.live = self.live.get(w as usize).copied().unwrap_or(0);
        ctx.aux = 0;
        ctx.pend = 0;
        let lo = (w as usize * 32).min(self.sched.len());
        let hi = (lo + 32).min(self.sched.len());
        ctx.sched = self.sched[lo..hi].as_mut_ptr();
        ctx.sched_n = (hi - lo) as u32;
        // SAFETY: the code was compiled for this kernel; the context's pointers are this
        // warp's register banks (sized by the kernel's banks, which the code indexes within),
        // the CTA's shared memory and span cache, all alive and not otherwise used during the
        // call.
        let exit = unsafe { (code.entry)(&mut **ctx, pc) };
        let ran = room - ctx.room;
        if ran == 0 {
            return None;
        }
        stats.warp_insts += ran;
        stats.thread_insts += ctx.thread_insts;
        stats.tiers[3] += ran;
        // Lanes a divergence left waiting: one group with the group when it stopped where
        // they wait (`jit_merge`), else they wait there.
        let waiting = if ctx.pend != 0 && !(exit == EXIT_AT && merge_waiting(ctx, ctx.exit_pc)) {
            std::mem::take(&mut ctx.pend)
        } else {
            0
        };
        *spin = ctx.spin();
        let out = JitExit {
            ran,
            code: exit,
            pc: ctx.exit_pc,
            mask: ctx.act,
            others: ctx.others,
        };
        if waiting != 0 {
            let pend_pc = ctx.pend_pc;
            self.set_pcs(w, waiting, pend_pc);
        }
        self.clock += ran;
        Some(out)
    }
}

/// The warp's scheduling records from the context (see `JitCtx::sched`).
///
/// # Safety
/// `ctx.sched` points at `ctx.sched_n` records not otherwise used during the call.
unsafe fn ctx_sched<'x>(ctx: &JitCtx) -> &'x mut [Sched] {
    if ctx.sched_n == 0 {
        &mut [][..]
    } else {
        unsafe { std::slice::from_raw_parts_mut(ctx.sched, ctx.sched_n as usize) }
    }
}

/// A divergent `bra` at `pc` to `target` of the group `ctx.act`, the lanes of `taken`
/// jumping: taken on by the native code (1) when the warp engine would go on with the
/// lanes at the branch's lower PC — those that fall through a forward branch, those that
/// jump back — as the selected group: they are below every other group of the warp, and no
/// lane is spinning; and when the lanes left behind are the first to wait in this call, or
/// wait where those waiting already do (a loop's lanes leaving one by one). The spin counts
/// are stored as the warp engine's `branch` stores them; the group goes on with its lanes'
/// highest count; `others` becomes the waiting lanes' PC while they wait (`pend`,
/// `pend_pc`). Otherwise nothing changes (0) and the code leaves for the warp engine.
extern "C" fn jit_diverge(ctx: *mut JitCtx, taken: u32, pc: u32, target: u32) -> u32 {
    // SAFETY: called by the native code with the context the warp engine passed it.
    let ctx = unsafe { &mut *ctx };
    let back = target <= pc;
    let (act, next) = (ctx.act, pc.saturating_add(1));
    let (run, run_pc, wait, wait_pc) = if back {
        (taken, target, act & !taken, next)
    } else {
        (act & !taken, next, taken, target)
    };
    let orig = if ctx.pend != 0 {
        if ctx.pend_pc != wait_pc {
            return 0;
        }
        ctx.orig_others
    } else {
        ctx.others
    };
    let spin = ctx.spin();
    // After the branch no lane's count exceeds this: all below the yield, none spins.
    let highest = u64::from(spin.highest()) + u64::from(back);
    if run_pc >= orig || highest >= u64::from(SPIN_YIELD) {
        return 0;
    }
    // SAFETY: `sched` is the warp's records, as `jit_run` set it.
    let sched = unsafe { ctx_sched(ctx) };
    super::fast::diverge_spins(sched, 0, act, taken, &spin, back);
    let mut max = 0;
    super::fast::each_sched(sched, 0, run, |s| max = max.max(s.spins));
    ctx.set_spin(&super::fast::Spin {
        max,
        taken: 0,
        zeroed: false,
    });
    ctx.orig_others = orig;
    ctx.pend |= wait;
    ctx.pend_pc = wait_pc;
    ctx.others = orig.min(wait_pc);
    ctx.act = run;
    1
}

/// The group at `pc`, where lanes a divergence left wait ([`jit_diverge`]): when no other
/// group is there and the group is not spinning, both become one group as `select` would
/// make them (the group's spin counts stored, the merged group going on with its lanes'
/// highest count), 1; else 0.
extern "C" fn jit_merge(ctx: *mut JitCtx, pc: u32, _: u32) -> u32 {
    // SAFETY: called by the native code (or `jit_run`) with the warp engine's context.
    let ctx = unsafe { &mut *ctx };
    merge_waiting(ctx, pc) as u32
}

fn merge_waiting(ctx: &mut JitCtx, pc: u32) -> bool {
    let spin = ctx.spin();
    if ctx.pend == 0 || ctx.pend_pc != pc || ctx.orig_others <= pc || spin.highest() >= SPIN_YIELD {
        return false;
    }
    // SAFETY: `sched` is the warp's records, as `jit_run` set it.
    let sched = unsafe { ctx_sched(ctx) };
    super::fast::apply_spins(sched, 0, ctx.act, &spin);
    let all = ctx.act | ctx.pend;
    let mut max = 0;
    super::fast::each_sched(sched, 0, all, |s| max = max.max(s.spins));
    ctx.set_spin(&super::fast::Spin {
        max,
        taken: 0,
        zeroed: false,
    });
    ctx.act = all;
    ctx.pend = 0;
    ctx.others = ctx.orig_others;
    true
}

// ---------------------------------------------------------------------------------------
// Memory helpers called by the native code.

/// Loads `wd` bytes for every lane of the group from `ctx.addr` into `ctx.val` (zero
/// extended); 0 when some lane needs the careful path (nothing loaded).
extern "C" fn jit_gather(ctx: *mut JitCtx, space: u32, wd: u32) -> u32 {
    // SAFETY: called by the native code with the context the warp engine passed it.
    let ctx = unsafe { &mut *ctx };
    let (spans, shared, mem) = unsafe { helper_parts(ctx) };
    super::fast::gather(
        spans,
        shared,
        &ctx.addr,
        ctx.act,
        space_of(space),
        wd as usize,
        mem,
        &mut ctx.val,
    ) as u32
}

/// Stores `wd` bytes of `ctx.val` for every lane at `ctx.addr`, in lane order; 0 when some
/// lane needs the careful path (nothing stored).
extern "C" fn jit_scatter(ctx: *mut JitCtx, space: u32, wd: u32) -> u32 {
    // SAFETY: as in `jit_gather`.
    let ctx = unsafe { &mut *ctx };
    let (spans, shared, mem) = unsafe { helper_parts(ctx) };
    super::fast::scatter(
        spans,
        shared,
        &ctx.addr,
        ctx.act,
        space_of(space),
        wd as usize,
        &ctx.val,
        mem,
    ) as u32
}

/// The host address of a whole warp's `how & 0xff`-byte accesses (4 or 8) that form one
/// aligned run from `a0` (the native code checked that the 32 lanes' addresses do), when the
/// run lies inside one allocation (writable when `how >> 8` is set) or the CTA's shared
/// memory; 0 when the lane-by-lane path must decide (`fast::run_span`).
extern "C" fn jit_run_span(ctx: *mut JitCtx, space: u32, how: u32, a0: u64) -> u64 {
    // SAFETY: as in `jit_gather`.
    let ctx = unsafe { &mut *ctx };
    let (spans, shared, mem) = unsafe { helper_parts(ctx) };
    let (wd, write) = ((how & 0xff) as usize, how >> 8 != 0);
    super::fast::run_span(spans, shared, a0, space_of(space), wd, write, mem)
        .map_or(0, |p| p as usize as u64)
}

/// `shfl.sync` for the lanes in `ctx.act`, as the warp engine runs it when the reference
/// would complete it at once for exactly these lanes (see `Cta::collective_masks`): every
/// lane's membermask names itself and no live lane outside `act` (`has_mask` 0: no
/// membermask, the lanes are `act`). The native code stored `a` and `b` as the 64 32-bit
/// words of `ctx.addr`, `c` and the membermask as those of `ctx.val`; the results go to
/// `ctx.val`'s first 32 words and the predicate's lanes to `ctx.aux`. 0 when the warp engine
/// must take the instruction (nothing written).
extern "C" fn jit_shfl(ctx: *mut JitCtx, mode: u32, has_mask: u32) -> u32 {
    // SAFETY: called by the native code with the context the warp engine passed it.
    let ctx = unsafe { &mut *ctx };
    let word = |arr: &[u64; 32], k: usize| -> u32 {
        let w = arr[k / 2];
        if k.is_multiple_of(2) {
            w as u32
        } else {
            (w >> 32) as u32
        }
    };
    let (act, live) = (ctx.act, ctx.live);
    if has_mask != 0 {
        for l in super::fast::lanes(act) {
            let m = word(&ctx.val, 32 + l);
            if m >> l & 1 == 0 || m & live & !act != 0 {
                return 0;
            }
        }
    }
    let mode = match mode {
        0 => ShflMode::Up,
        1 => ShflMode::Down,
        2 => ShflMode::Bfly,
        _ => ShflMode::Idx,
    };
    let mut r = [0u32; 32];
    let mut pb = 0u32;
    for l in super::fast::lanes(act) {
        let (j, pv) =
            super::isa::warp::shfl_lane(mode, l as u32, word(&ctx.addr, 32 + l), word(&ctx.val, l));
        let src = if act >> j & 1 == 1 { j as usize } else { l };
        r[l] = word(&ctx.addr, src);
        pb |= (pv as u32) << l;
    }
    for k in 0..16 {
        ctx.val[k] = r[2 * k] as u64 | (r[2 * k + 1] as u64) << 32;
    }
    ctx.aux = pb;
    1
}

/// The pieces of the CTA a memory helper uses.
///
/// # Safety
/// `ctx` must be the context `jit_run` made (its pointers alive and unaliased).
unsafe fn helper_parts<'x>(ctx: &JitCtx) -> (&'x mut SpanCache, &'x mut [u8], &'x AddressSpace) {
    unsafe {
        let shared = if ctx.shared_len == 0 {
            &mut [][..]
        } else {
            std::slice::from_raw_parts_mut(ctx.shared, ctx.shared_len as usize)
        };
        (&mut *ctx.spans, shared, &*ctx.mem)
    }
}

fn space_of(s: u32) -> MemSpace {
    match s {
        0 => MemSpace::Global,
        1 => MemSpace::Generic,
        2 => MemSpace::Shared,
        _ => MemSpace::Const,
    }
}

fn space_code(s: MemSpace) -> Option<u32> {
    Some(match s {
        MemSpace::Global => 0,
        MemSpace::Generic => 1,
        MemSpace::Shared => 2,
        MemSpace::Const => 3,
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------
// Compilation.

/// Why a kernel did not compile (it then runs on the warp engine).
#[derive(Debug)]
pub(crate) struct NoJit(String);

fn isa(quick: bool) -> Result<Arc<dyn cranelift_codegen::isa::TargetIsa>, NoJit> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| {
        f.set(k, v)
            .map_err(|e| NoJit(format!("cranelift flag {k}: {e}")))
    };
    if quick {
        set(&mut flags, "opt_level", "none")?;
        set(&mut flags, "regalloc_algorithm", "single_pass")?;
    } else {
        set(&mut flags, "opt_level", "speed")?;
    }
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", "false")?;
    let builder = cranelift_native::builder().map_err(|e| NoJit(e.to_string()))?;
    builder
        .finish(settings::Flags::new(flags))
        .map_err(|e| NoJit(e.to_string()))
}

/// A register's SIMD pieces within a block: eight `i32x4` (32-bit bank), sixteen `i64x2`
/// (64-bit bank) or one `i32` lane mask (predicates).
#[derive(Clone)]
enum Pieces {
    W32([Value; 8]),
    W64([Value; 16]),
    Pred(Value),
}

impl Pieces {
    /// The Cranelift type of each piece.
    fn ty(&self) -> cranelift_codegen::ir::Type {
        match self {
            Pieces::W32(_) => I32X4,
            Pieces::W64(_) => I64X2,
            Pieces::Pred(_) => I32,
        }
    }

    /// The pieces, in order.
    fn values(&self) -> Vec<Value> {
        match self {
            Pieces::W32(v) => v.to_vec(),
            Pieces::W64(v) => v.to_vec(),
            Pieces::Pred(x) => vec![*x],
        }
    }

    /// A register of slot `s` from its pieces ([`Pieces::values`]).
    fn of(s: RegSlot, mut v: impl FnMut(usize) -> Value) -> Pieces {
        match s {
            RegSlot::B32(_) => Pieces::W32(std::array::from_fn(v)),
            RegSlot::B64(_) => Pieces::W64(std::array::from_fn(v)),
            RegSlot::Pred(_) => Pieces::Pred(v(0)),
        }
    }
}

/// The per-block register cache: values read or computed, and which are to be stored.
#[derive(Default, Clone)]
struct Regs {
    vals: HashMap<RegSlot, Pieces>,
    dirty: Vec<RegSlot>,
    /// 32-bit registers whose cached value is an `f32` result not yet NaN-canonicalised
    /// (the same bits but for a NaN's payload and sign): float arithmetic reads them as they
    /// are, since a NaN operand gives a NaN whatever its payload; every other reader and
    /// every store canonicalises first ([`Gen::get`], [`Gen::store_dirty`]).
    raw: Vec<RegSlot>,
    /// Registers known to hold one value in all the group's lanes, as that scalar (`I32`
    /// or `I64`); their `vals` entry is its splat ([`Uniform`], [`Gen::scalar`]).
    uni: HashMap<RegSlot, Value>,
}

struct Gen<'f, 'b> {
    b: &'b mut FunctionBuilder<'f>,
    f: &'f FuncCode,
    ctx: Value,
    act: Value,
    /// Per-lane masks of the group, built once.
    act32: [Value; 8],
    act64: [Value; 16],
    regs: Regs,
    thread_insts: Variable,
    gather: cranelift_codegen::ir::FuncRef,
    scatter: cranelift_codegen::ir::FuncRef,
    run_span: cranelift_codegen::ir::FuncRef,
    shfl: cranelift_codegen::ir::FuncRef,
    exit: Block,
    exit_code: Variable,
    /// Set when an operand was not of the bank `compiles` promised (then the kernel is
    /// not compiled at all).
    bad: bool,
    /// Which registers are live where ([`Live`]; `None`: every register everywhere).
    live: Option<Live>,
    /// The register of each slot.
    slot_reg: HashMap<RegSlot, u32>,
    /// The block being compiled, when it branches back to its own start ([`LoopBack`]).
    lp: Option<LoopBack>,
    /// Instructions run by the whole group not yet added to `thread_insts`: added as one
    /// multiple of the group's size where the code leaves the block ([`Gen::settle`]).
    pending: u32,
    /// The group's size (`I64`).
    act_count: Value,
    /// Which registers are uniform where ([`Uniform`]; `None`: none anywhere).
    uniform: Option<Uniform>,
    /// Which registers are lane-linear where ([`Affine`]; `None`: none anywhere).
    affine: Option<Affine>,
    /// Byte offsets of the group's first lane in a 32-bit and a 64-bit register (`I64`).
    lane_off: [Value; 2],
    /// A 256-byte stack slot, made when first needed ([`Gen::lane_scalar`]).
    scratch: Option<StackSlot>,
    /// The block that loads the group's lanes and dispatches on a PC (its parameter).
    dispatch: Block,
    /// Targets of the forward branches whose divergence the code takes on itself
    /// ([`merge_points`]): where the lanes that jumped merge again.
    merges: HashSet<u32>,
    diverge_fn: cranelift_codegen::ir::FuncRef,
    merge_fn: cranelift_codegen::ir::FuncRef,
    /// The lane routines ([`lane_routine`], [`lane_routines`]).
    lane_fns: Vec<cranelift_codegen::ir::FuncRef>,
}

/// Where the lanes of a divergent `bra` at `pc` to `target` that do not go on wait: at
/// the target of a forward branch (the lanes that fall through go on), after a backward
/// one (the lanes that jump go on, round the loop).
fn wait_pc(pc: u32, target: u32) -> u32 {
    if target > pc { target } else { pc + 1 }
}

/// Where the lanes of a divergent `bra` at `pc` to `target` that go on continue: the other
/// side of [`wait_pc`].
fn run_pc(pc: u32, target: u32) -> u32 {
    if target > pc { pc + 1 } else { target }
}

/// The PCs where lanes wait after a divergent `bra` ending a compiled block whose lanes
/// that go on continue at a compiled block ([`wait_pc`]): the code takes such a divergence
/// on itself ([`Gen::diverge`], [`jit_diverge`]) and the lanes merge again where they
/// meet — in the code when that PC starts a compiled block ([`Gen::merge`]), else where
/// the code leaves there (`jit_run`).
fn merge_points(
    f: &FuncCode,
    blocks: &[(u32, u32)],
    by_start: &HashMap<u32, usize>,
) -> HashSet<u32> {
    blocks
        .iter()
        .filter_map(|&(_, e)| {
            let pc = e - 1;
            let inst = f.code.get(pc as usize)?;
            match inst.exec {
                Exec::Bra { target } if inst.guard.is_some() => by_start
                    .contains_key(&run_pc(pc, target))
                    .then(|| wait_pc(pc, target)),
                _ => None,
            }
        })
        .collect()
}

/// A compiled block whose last instruction branches back to its start (a loop of one
/// block): the registers live at its start stay in Cranelift variables across the back
/// edge, so an iteration neither stores them (blended with the group's lanes) nor loads
/// them again. They are stored where the code leaves, as from any block.
struct LoopBack {
    start: u32,
    /// The loop's head: the entry checks, reached from the block's entry (after the
    /// registers are loaded) and from the back edge.
    hdr: Block,
    /// Each carried register's variables: one per piece, or one scalar for a register
    /// uniform at the start ([`Uniform`]; then `true`).
    vars: Vec<(RegSlot, Vec<Variable>, bool)>,
}

/// Flags of the code's own memory accesses (register banks, the context): valid addresses,
/// no alignment promised (the banks are 4- and 8-byte aligned).
const TRUSTED: MemFlagsData = MemFlagsData::new().with_notrap();

fn little() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// Offsets of `JitCtx` fields.
macro_rules! off {
    ($f:ident) => {
        std::mem::offset_of!(JitCtx, $f) as i32
    };
}

/// What one compiled instruction does to control.
enum Flow {
    Next,
    /// A conditional or unconditional branch to `target`, taken by the lanes in the value
    /// (a lane mask), the others falling through.
    Branch(u32, Value),
}

/// Whether an instruction compiles (decided before any code is made, so blocks can be
/// laid out).
fn compiles(f: &FuncCode, inst: &DInst) -> bool {
    let slot = |r: u32| f.reg_slots.get(r as usize).copied();
    let reg32 = |s: &Src| match s {
        Src::Reg(r) => matches!(slot(*r), Some(RegSlot::B32(_))),
        Src::Imm(_) => true,
        Src::SReg(id, comp) => sreg_slot(*id, *comp).is_some(),
        _ => false,
    };
    let reg64 = |s: &Src| match s {
        Src::Reg(r) => matches!(slot(*r), Some(RegSlot::B64(_))),
        Src::Imm(_) => true,
        _ => false,
    };
    let pred = |s: &Src| match s {
        Src::Reg(r) | Src::Pred(r, _) => matches!(slot(*r), Some(RegSlot::Pred(_))),
        Src::Imm(_) => true,
        _ => false,
    };
    let dst = |d: &Dst, want: fn(RegSlot) -> bool| match d {
        Dst::Reg(r) => slot(*r).is_some_and(want) && full_width(f, *r),
        Dst::Sink => true,
    };
    let d32 = |s: RegSlot| matches!(s, RegSlot::B32(_));
    let d64 = |s: RegSlot| matches!(s, RegSlot::B64(_));
    let dp = |s: RegSlot| matches!(s, RegSlot::Pred(_));
    if let Some((g, _)) = inst.guard
        && !matches!(slot(g), Some(RegSlot::Pred(_)))
    {
        return false;
    }
    use IntOp::*;
    match &inst.exec {
        Exec::Mov { d, a, bits } => match bits {
            32 => reg32(a) && dst(d, d32),
            64 => reg64(a) && dst(d, d64),
            _ => false,
        },
        Exec::Int { op, ty, d, a, b } => match (ty.bits(), op) {
            (32, Add | Sub | MulLo | And | Or | Xor) => reg32(a) && reg32(b) && dst(d, d32),
            (32, Min | Max) => reg32(a) && reg32(b) && dst(d, d32),
            (32, Shl | Shr) => reg32(a) && matches!(b, Src::Imm(_)) && dst(d, d32),
            (32, MulWide) => reg32(a) && reg32(b) && dst(d, d64),
            (64, Add | Sub | And | Or | Xor) => reg64(a) && reg64(b) && dst(d, d64),
            (64, Shl | Shr) => reg64(a) && matches!(b, Src::Imm(_)) && dst(d, d64),
            _ => false,
        },
        Exec::Mad {
            mode,
            ty,
            sat: false,
            d,
            a,
            b,
            c,
        } => match (ty.bits(), mode) {
            (32, MulLo) => reg32(a) && reg32(b) && reg32(c) && dst(d, d32),
            (32, MulWide) => reg32(a) && reg32(b) && reg64(c) && dst(d, d64),
            _ => false,
        },
        Exec::Float {
            op: FOp::Add | FOp::Sub | FOp::Mul,
            ty: Type::F32,
            rnd: Rnd::Rn,
            xorsign: false,
            d,
            a,
            b,
            ..
        } => reg32(a) && reg32(b) && dst(d, d32),
        Exec::Fma {
            ty: Type::F32,
            rnd: Rnd::Rn,
            d,
            a,
            b,
            c,
            ..
        } => reg32(a) && reg32(b) && reg32(c) && dst(d, d32),
        Exec::Setp {
            cmp,
            ty,
            p,
            q,
            a,
            b,
            bop,
            ..
        } => {
            let cmp_ok = match (cmp, ty) {
                (Cmp::Float(_), Type::F32) => reg32(a) && reg32(b),
                (Cmp::Int(op, _), t) if t.bits() == 32 && ordered(*op) => reg32(a) && reg32(b),
                (Cmp::Int(op, _), t) if t.bits() == 64 && ordered(*op) => reg64(a) && reg64(b),
                _ => false,
            };
            cmp_ok && dst(p, dp) && dst(q, dp) && bop.as_ref().is_none_or(|(_, c)| pred(c))
        }
        Exec::Selp { d, a, b, c, bits } => {
            pred(c)
                && match bits {
                    32 => reg32(a) && reg32(b) && dst(d, d32),
                    64 => reg64(a) && reg64(b) && dst(d, d64),
                    _ => false,
                }
        }
        Exec::PredOp { d, a, b, .. } => pred(a) && pred(b) && dst(d, dp),
        Exec::Warp {
            op: WarpOp::Shfl(_),
            d,
            p,
            a,
            b,
            c,
            mask,
        } => {
            reg32(a)
                && reg32(b)
                && reg32(c)
                && mask.as_ref().is_none_or(reg32)
                && dst(d, d32)
                && dst(p, dp)
        }
        Exec::Ld {
            space,
            ty,
            ds,
            addr: Addr::Reg(r, _),
        } => {
            space_code(*space).is_some()
                && matches!(slot(*r), Some(RegSlot::B64(_) | RegSlot::B32(_)))
                && ds.len() == 1
                && matches!(ty.bytes(), 4 | 8)
                && match ty.bytes() {
                    4 => dst(&ds[0], d32),
                    _ => dst(&ds[0], d64),
                }
        }
        Exec::St {
            space,
            ty,
            srcs,
            addr: Addr::Reg(r, _),
        } => {
            space_code(*space).is_some()
                && matches!(slot(*r), Some(RegSlot::B64(_) | RegSlot::B32(_)))
                && srcs.len() == 1
                && match ty.bytes() {
                    4 => reg32(&srcs[0]),
                    8 => reg64(&srcs[0]),
                    _ => false,
                }
        }
        Exec::Ld {
            space: MemSpace::Param,
            ty,
            ds,
            addr: Addr::Var(VarLoc::KernelParam(o), off),
        } => {
            let at = *o as i64 + off;
            ds.len() == 1
                && matches!(ty.bytes(), 4 | 8)
                && at >= 0
                && at % ty.bytes() as i64 == 0
                && match ty.bytes() {
                    4 => dst(&ds[0], d32),
                    _ => dst(&ds[0], d64),
                }
        }
        Exec::Cvta {
            space: MemSpace::Global,
            d,
            a,
            addr: None,
            ..
        } => reg64(a) && dst(d, d64),
        Exec::Bra { .. } => true,
        _ => false,
    }
}

/// Where native code finds special register `id` (component `comp`): `Some(None)` for
/// `%laneid` (a constant), `Some(Some(i))` for the others it reads from the context (`i` < 3:
/// `%tid`'s lanes, component `i`; 3.. the `cta` table); `None` for the rest (the warp engine
/// reads them).
fn sreg_slot(id: u16, comp: u8) -> Option<Option<usize>> {
    let name = ptxvm_ir::ir::SREGS.get(id as usize)?.0;
    let c = comp as usize;
    if c >= 3 {
        return None;
    }
    Some(match name {
        "%laneid" => None,
        "%tid" => Some(c),
        "%ntid" => Some(3 + c),
        "%ctaid" => Some(6 + c),
        "%nctaid" => Some(9 + c),
        _ => return None,
    })
}

/// Which registers are live before each PC: for the native code's register stores, which
/// skip a register no path from the PC where the code leaves (or makes an access) reads
/// before writing it again. A backward dataflow over the kernel's instructions, exact for
/// the instructions the JIT compiles ([`reg_io`]); every other instruction counts as reading
/// every register it names ([`Exec::each_reg`]: its destinations too, which it may write in
/// part) and writing none, and the registers a warp-collective or matrix instruction names
/// (it reads other lanes', which may be on another path) are live everywhere. So a register
/// is skipped only where no instruction of any engine can read its value.
struct Live {
    words: usize,
    n: usize,
    /// `(n + 1) * words` words: row `pc` is the set live before `pc` (row `n`, the end, is
    /// empty).
    bits: Vec<u64>,
}

/// Liveness sets larger than this (bits) are not computed: every register counts as live.
const MAX_LIVE_BITS: usize = 1 << 26;

impl Live {
    fn of(f: &FuncCode) -> Option<Live> {
        let n = f.code.len();
        let nregs = f.reg_slots.len();
        let words = nregs.div_ceil(64).max(1);
        if (n + 1).checked_mul(words)?.checked_mul(64)? > MAX_LIVE_BITS {
            return None;
        }
        let set = |v: &mut [u64], r: u32| {
            if let Some(w) = v.get_mut(r as usize / 64) {
                *w |= 1 << (r % 64);
            }
        };
        let mut always = vec![0u64; words];
        let mut uses = vec![0u64; n * words];
        let mut defs = vec![0u64; n * words];
        for (pc, inst) in f.code.iter().enumerate() {
            let row = pc * words..(pc + 1) * words;
            if let Exec::Warp { .. } | Exec::Matrix { .. } = inst.exec {
                inst.exec.each_reg(&mut |r| set(&mut always, r));
            }
            match reg_io(inst) {
                Some((u, d)) => {
                    for r in u {
                        set(&mut uses[row.clone()], r);
                    }
                    for r in d {
                        set(&mut defs[row.clone()], r);
                    }
                }
                None => {
                    // Every register it names counts as read (a destination may be written
                    // in part), and its guard.
                    let row = &mut uses[row.clone()];
                    inst.exec.each_reg(&mut |r| set(row, r));
                    if let Some((p, _)) = inst.guard {
                        set(row, p);
                    }
                }
            }
        }
        let succs = successors(f);
        let mut bits = vec![0u64; (n + 1) * words];
        let mut out = vec![0u64; words];
        loop {
            let mut changed = false;
            for pc in (0..n).rev() {
                let row = pc * words..(pc + 1) * words;
                out.iter_mut().for_each(|w| *w = 0);
                for &t in &succs[pc] {
                    for k in 0..words {
                        out[k] |= bits[t * words + k];
                    }
                }
                let new: Vec<u64> = (0..words)
                    .map(|k| uses[row.start + k] | (out[k] & !defs[row.start + k]) | always[k])
                    .collect();
                if bits[row.clone()] != new[..] {
                    bits[row].copy_from_slice(&new);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        Some(Live { words, n, bits })
    }

    /// Whether register `r` is live before `pc` (true for a PC it does not know).
    fn at(&self, pc: u32, r: u32) -> bool {
        let pc = pc as usize;
        if pc > self.n {
            return true;
        }
        self.bits
            .get(pc * self.words + r as usize / 64)
            .is_none_or(|w| w >> (r % 64) & 1 != 0)
    }
}

/// The register slots live at the first instruction of `f` (see [`Live`]): those a thread
/// may read before writing them, which a reused CTA's register file must zero; `None` when
/// the liveness is too large to compute (zero them all). Cached in the function.
pub(super) fn entry_live(f: &FuncCode) -> Option<Arc<[RegSlot]>> {
    f.entry_live
        .get_or_init(|| {
            let live = Live::of(f)?;
            Some(
                f.reg_slots
                    .iter()
                    .enumerate()
                    .filter(|&(r, _)| live.at(0, r as u32))
                    .map(|(_, s)| *s)
                    .collect(),
            )
        })
        .clone()
}

/// Each instruction's successors (PCs up to `n`, the end).
fn successors(f: &FuncCode) -> Vec<Vec<usize>> {
    let n = f.code.len();
    let succ = |pc: usize| -> Vec<usize> {
        let guarded = f.code[pc].guard.is_some();
        let mut v: Vec<usize> = match &f.code[pc].exec {
            Exec::Bra { target } => vec![*target as usize],
            Exec::BrxIdx { targets, .. } => targets.iter().map(|&t| t as usize).collect(),
            Exec::Ret | Exec::Exit | Exec::Trap => Vec::new(),
            _ => vec![pc + 1],
        };
        if guarded {
            v.push(pc + 1);
        }
        v.retain(|&t| t <= n);
        v.dedup();
        v
    };
    (0..n).map(succ).collect()
}

/// Which registers hold one value in all the lanes of a group (the lanes of a warp at one
/// PC together), before each PC: the JIT keeps those it reads or computes from such values
/// as scalars (loop counters, bounds, parameters), one operation for the group instead of
/// one per lane.
///
/// A forward dataflow over the function. A lane-local operation ([`lane_srcs`]) of uniform
/// sources (immediates, uniform registers, `%ntid`/`%ctaid`/`%nctaid`) makes its destination
/// uniform, and so does a kernel-parameter load; a guarded one keeps it uniform only if it
/// was and the guard is uniform (all lanes or none write). Every other instruction makes the
/// registers it names non-uniform: loads (another thread may write between two lanes'
/// reads), `%tid`, `%laneid`, warp collectives. Groups split only at a branch whose predicate
/// is not uniform (or any `brx.idx`); at every PC both sides reach, every register an
/// instruction after the branch names is non-uniform: the groups may meet there, and not
/// only where their paths first join (a barrier or a spin yield lets the group behind run
/// on, so they can meet iterations apart). A function with a call
/// has no uniform registers (lanes may return from it at different times), nor has a
/// function that is not a kernel.
struct Uniform {
    words: usize,
    n: usize,
    /// `(n + 1) * words` words: row `pc` is the set uniform before `pc`.
    bits: Vec<u64>,
    /// `(n + 1) * words` words: row `pc` is the set written past a divergent branch whose
    /// sides both reach `pc` (no longer one value, or one lane-linear value, there).
    kill: Vec<u64>,
}

/// The sources and register destinations of a lane-local operation the JIT compiles (its
/// result in a lane depends only on that lane's sources).
fn lane_srcs(e: &Exec) -> Option<(Vec<&Src>, Vec<u32>)> {
    let mut d = Vec::new();
    let mut dst = |x: &Dst| {
        if let Dst::Reg(r) = x {
            d.push(*r);
        }
    };
    let srcs = match e {
        Exec::Mov { d: x, a, .. } => {
            dst(x);
            vec![a]
        }
        Exec::Int { d: x, a, b, .. } | Exec::Float { d: x, a, b, .. } => {
            dst(x);
            vec![a, b]
        }
        Exec::PredOp { d: x, a, b, .. } => {
            dst(x);
            vec![a, b]
        }
        Exec::Mad { d: x, a, b, c, .. }
        | Exec::Fma { d: x, a, b, c, .. }
        | Exec::Selp { d: x, a, b, c, .. } => {
            dst(x);
            vec![a, b, c]
        }
        Exec::Setp {
            p, q, a, b, bop, ..
        } => {
            dst(p);
            dst(q);
            let mut v = vec![a, b];
            if let Some((_, c)) = bop {
                v.push(c);
            }
            v
        }
        _ => return None,
    };
    Some((srcs, d))
}

impl Uniform {
    fn of(f: &FuncCode) -> Option<Uniform> {
        let n = f.code.len();
        let words = f.reg_slots.len().div_ceil(64).max(1);
        if (n + 1).checked_mul(words)?.checked_mul(64)? > MAX_LIVE_BITS {
            return None;
        }
        // Kernels only: groups of a warp may enter a function at different times and meet
        // inside it.
        if !f.is_entry
            || f.code
                .iter()
                .any(|i| matches!(i.exec, Exec::Call { .. } | Exec::CallIndirect { .. }))
        {
            return None;
        }
        let succs = successors(f);
        let has = |v: &[u64], r: u32| {
            v.get(r as usize / 64)
                .is_some_and(|w| w >> (r % 64) & 1 != 0)
        };
        let clear = |v: &mut [u64], r: u32| {
            if let Some(w) = v.get_mut(r as usize / 64) {
                *w &= !(1 << (r % 64));
            }
        };
        let set = |v: &mut [u64], r: u32| {
            if let Some(w) = v.get_mut(r as usize / 64) {
                *w |= 1 << (r % 64);
            }
        };
        let src_uni = |v: &[u64], s: &Src| match s {
            Src::Imm(_) => true,
            Src::Reg(r) | Src::Pred(r, _) => has(v, *r),
            Src::SReg(id, comp) => matches!(sreg_slot(*id, *comp), Some(Some(i)) if i >= 3),
            Src::Var(..) => false,
        };
        // Registers killed where the sides of a divergent branch meet.
        let mut kill = vec![0u64; (n + 1) * words];
        let mut divergent = vec![false; n];
        let mut work = 0usize;
        loop {
            // The dataflow, given the kills so far.
            let mut bits = vec![u64::MAX; (n + 1) * words];
            bits[..words].iter_mut().for_each(|w| *w = 0);
            let mut changed = true;
            while changed {
                changed = false;
                for (pc, (inst, ss)) in f.code.iter().zip(&succs).enumerate() {
                    // Each successor's set: the meet of what its predecessors give, less
                    // its kills.
                    let out = Self::transfer(
                        inst,
                        &bits[pc * words..(pc + 1) * words],
                        &src_uni,
                        &has,
                        &set,
                        &clear,
                    );
                    for &t in ss {
                        if t == 0 {
                            continue;
                        }
                        let tr = t * words..(t + 1) * words;
                        for k in 0..words {
                            let new = bits[tr.start + k] & out[k] & !kill[tr.start + k];
                            if new != bits[tr.start + k] {
                                bits[tr.start + k] = new;
                                changed = true;
                            }
                        }
                    }
                }
            }
            // Branches that split a group, given these sets.
            let mut new_split = false;
            for pc in 0..n {
                if divergent[pc] {
                    continue;
                }
                let inst = &f.code[pc];
                let splits = match &inst.exec {
                    Exec::BrxIdx { .. } => true,
                    Exec::Bra { .. } => inst
                        .guard
                        .is_some_and(|(p, _)| !has(&bits[pc * words..(pc + 1) * words], p)),
                    _ => false,
                };
                if !splits || succs[pc].len() < 2 {
                    continue;
                }
                divergent[pc] = true;
                new_split = true;
                work = work.checked_add(n.checked_mul(succs[pc].len())?)?;
                if work > 1 << 26 {
                    return None;
                }
                // What each side reaches, the registers written there, and where sides
                // meet. (A register no instruction reachable from the sides writes holds,
                // in every group that meets, the value it had at the branch: uniform there,
                // uniform where they meet.)
                let mut sides = vec![0u8; n + 1];
                let mut named = vec![0u64; words];
                for &s0 in &succs[pc] {
                    let mut stack = vec![s0];
                    let mut mine = vec![false; n + 1];
                    while let Some(x) = stack.pop() {
                        if mine[x] {
                            continue;
                        }
                        mine[x] = true;
                        sides[x] = sides[x].saturating_add(1);
                        if x < n {
                            f.code[x].exec.each_reg_rw(&mut |r, written| {
                                if written {
                                    set(&mut named, r);
                                }
                            });
                            stack.extend(succs[x].iter().copied());
                        }
                    }
                }
                // The kills go everywhere both sides reach, not only where they first join:
                // groups of a warp merge at any PC they share (one may come round a loop's
                // back edge while the other arrives from before it), so a register written
                // on the way may differ within a group anywhere past the branch.
                for (x, &m) in sides.iter().enumerate() {
                    if m >= 2 {
                        for k in 0..words {
                            kill[x * words + k] |= named[k];
                        }
                    }
                }
            }
            if !new_split {
                return Some(Uniform {
                    words,
                    n,
                    bits,
                    kill,
                });
            }
        }
    }

    /// The set after `inst`, from the set before it.
    fn transfer(
        inst: &DInst,
        before: &[u64],
        src_uni: &dyn Fn(&[u64], &Src) -> bool,
        has: &dyn Fn(&[u64], u32) -> bool,
        set: &dyn Fn(&mut [u64], u32),
        clear: &dyn Fn(&mut [u64], u32),
    ) -> Vec<u64> {
        let mut out = before.to_vec();
        let guard_uni = inst.guard.is_none_or(|(p, _)| has(before, p));
        let (uni, dests) = match &inst.exec {
            Exec::Ld {
                space: MemSpace::Param,
                addr: Addr::Var(VarLoc::KernelParam(_), _),
                ds,
                ..
            } => (
                true,
                ds.iter()
                    .filter_map(|d| if let Dst::Reg(r) = d { Some(*r) } else { None })
                    .collect(),
            ),
            Exec::St { .. } | Exec::Bra { .. } | Exec::Ret | Exec::Exit => (true, Vec::new()),
            e => match lane_srcs(e) {
                Some((srcs, d)) => (srcs.iter().all(|s| src_uni(before, s)), d),
                None => {
                    // What it writes is no longer known to be uniform (its sources keep
                    // their values).
                    inst.exec.each_reg_rw(&mut |r, written| {
                        if written {
                            clear(&mut out, r);
                        }
                    });
                    return out;
                }
            },
        };
        for d in dests {
            if !uni || !guard_uni {
                clear(&mut out, d);
            } else if inst.guard.is_none() {
                set(&mut out, d);
            }
            // Guarded, all uniform: all lanes or none write; uniform iff it was.
        }
        out
    }

    /// Whether register `r` is uniform before `pc`.
    fn at(&self, pc: u32, r: u32) -> bool {
        let pc = pc as usize;
        pc < self.n
            && self
                .bits
                .get(pc * self.words + r as usize / 64)
                .is_some_and(|w| w >> (r % 64) & 1 != 0)
    }
}

/// What [`Affine`] knows of a register before a PC.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lin {
    /// Not reached yet (the dataflow's start).
    Top,
    /// In lane `l` of the group, `u + s * l` (modulo 2^width) with `u` one value for the
    /// group. `wrap`: a 64-bit value with one 32-bit lane-linear term widened in it (which
    /// may wrap between lanes; see [`Affine`]). `tid`: true only when `%ntid.x` is a
    /// multiple of 32 (it comes from `%tid.x`).
    Is { s: i32, wrap: bool, tid: bool },
    /// Anything.
    Bot,
}

/// The largest lane step [`Affine`] keeps (larger ones are [`Lin::Bot`]).
const MAX_STEP: i64 = 1 << 16;

impl Lin {
    fn is(s: i64, wrap: bool, tid: bool) -> Lin {
        if s.abs() > MAX_STEP {
            return Lin::Bot;
        }
        // A term of step 0 is one value (its widening is exact).
        Lin::Is {
            s: s as i32,
            wrap: wrap && s != 0,
            tid,
        }
    }

    /// The meet of the values two paths give.
    fn meet(self, o: Lin) -> Lin {
        match (self, o) {
            (Lin::Top, x) | (x, Lin::Top) => x,
            (
                Lin::Is { s, wrap, tid },
                Lin::Is {
                    s: s2,
                    wrap: w2,
                    tid: t2,
                },
            ) if s == s2 => Lin::Is {
                s,
                wrap: wrap || w2,
                tid: tid || t2,
            },
            _ => Lin::Bot,
        }
    }

    /// `self + k * o` (`k` is 1 or -1).
    fn add(self, o: Lin, k: i64) -> Lin {
        match (self, o) {
            (Lin::Bot, _) | (_, Lin::Bot) => Lin::Bot,
            (Lin::Top, _) | (_, Lin::Top) => Lin::Top,
            (
                Lin::Is { s, wrap, tid },
                Lin::Is {
                    s: s2,
                    wrap: w2,
                    tid: t2,
                },
            ) => {
                if wrap && w2 {
                    // Two widened terms could wrap at different lanes and cancel at the
                    // ends: the run check would not see it.
                    return Lin::Bot;
                }
                Lin::is(s as i64 + k * s2 as i64, wrap || w2, tid || t2)
            }
        }
    }

    /// `self * c`.
    fn mul(self, c: i64) -> Lin {
        match self {
            Lin::Is { s, wrap, tid } => match (s as i64).checked_mul(c) {
                Some(p) => Lin::is(p, wrap, tid),
                None => Lin::Bot,
            },
            x => x,
        }
    }

    /// A 32-bit value widened to 64 bits (zero- or sign-extended).
    fn widen(self) -> Lin {
        match self {
            Lin::Is { s, tid, .. } => Lin::is(s as i64, true, tid),
            x => x,
        }
    }
}

/// Which registers are *lane-linear* over a group before each PC: in lane `l` of the
/// group, `u + s * l` with `u` one value for the group and `s` a known constant (the
/// lane step). A 4- or 8-byte access of a whole warp whose address register steps by the
/// access size is one run of 32 lanes: the JIT then skips the per-lane run check
/// ([`Gen::memory`]).
///
/// A forward dataflow over the function, next to [`Uniform`] and on its results: the
/// sources are `%laneid` (step 1), `%tid.x` (step 1, only where `%ntid.x` is a multiple
/// of 32 — then the lanes of a warp are consecutive `%tid.x`; the code checks that at run
/// time, [`Lin::Is`]'s `tid`) and the uniform registers, immediates and addresses of
/// global and shared variables (step 0); `add`,
/// `sub`, `mul.lo`/`shl` by a constant, `mad.lo` and `mul.wide`/`mad.wide` with one
/// constant factor, integer `cvt` from 32 to 64 bits, `cvta` of a 64-bit register and
/// `mov` carry the form; every other write gives [`Lin::Bot`], and so does a write
/// guarded by a predicate that is not uniform. At every PC where [`Uniform`] kills a
/// register (written past a divergent branch, where the groups of its sides may meet),
/// it is `Bot` too, unless the register has one value for all groups
/// ([`Affine::one_value`]: written once, from such values).
///
/// Each width is exact modulo 2^width, so 32-bit arithmetic is. Widening is not: a
/// 32-bit `u + s * l` may wrap between two lanes, and its 64-bit extension is then not
/// lane-linear. Steps are kept small (at most [`MAX_STEP`]) and a 64-bit value may hold
/// at most one widened term (`wrap`), so that over 32 lanes such a term wraps at most
/// once and in one direction, which moves lane 31's value off `u + 31 * s`: an access
/// that checks its two ends (lane 0 and lane 31 `31 * s` apart, with no 64-bit overflow)
/// holds the form in every lane. A 32-bit address register (a window offset, widened
/// by the access) is such a term. Uses [`Uniform`]'s rules for calls and non-kernels
/// (none).
struct Affine {
    regs: usize,
    n: usize,
    /// `(n + 1) * regs` entries: row `pc` is the state before `pc`.
    lin: Vec<Lin>,
}

impl Affine {
    fn of(f: &FuncCode, u: &Uniform) -> Option<Affine> {
        let n = f.code.len();
        let regs = f.reg_slots.len().max(1);
        if (n + 1).checked_mul(regs)? > MAX_LIVE_BITS / 32 {
            return None;
        }
        let succs = successors(f);
        let mut lin = vec![Lin::Top; (n + 1) * regs];
        lin[..regs].iter_mut().for_each(|x| *x = Lin::Bot);
        let kill = |pc: usize, r: usize| {
            u.kill
                .get(pc * u.words + r / 64)
                .is_some_and(|w| w >> (r % 64) & 1 != 0)
        };
        let exempt = Self::one_value(f, &succs, &kill);
        let killed = |pc: usize, r: usize| kill(pc, r) && !exempt.get(r).copied().unwrap_or(false);
        let mut changed = true;
        while changed {
            changed = false;
            for (pc, (inst, ss)) in f.code.iter().zip(&succs).enumerate() {
                if ss.iter().all(|&t| t == 0) {
                    continue;
                }
                let mut out = lin[pc * regs..(pc + 1) * regs].to_vec();
                Self::transfer(f, u, pc, inst, &mut out);
                for &t in ss {
                    if t == 0 {
                        continue;
                    }
                    for (r, &x) in out.iter().enumerate() {
                        let x = if killed(t, r) { Lin::Bot } else { x };
                        let cur = &mut lin[t * regs + r];
                        let new = cur.meet(x);
                        if new != *cur {
                            *cur = new;
                            changed = true;
                        }
                    }
                }
            }
        }
        Some(Affine { regs, n, lin })
    }

    /// The registers [`Uniform`]'s kills need not apply to: written by one instruction
    /// only, unguarded, a lane-local one (`mov`, integer arithmetic, `cvt`, `cvta`) on no
    /// cycle, whose other sources every group reads alike (immediates, `%tid`, `%laneid`,
    /// `%ntid`, `%ctaid`, `%nctaid`, addresses of global and shared variables) and whose
    /// register sources are themselves such registers or not killed there.
    /// Each lane then writes it at most once, and any two groups that reach that
    /// instruction split after their sources were written (else the sources would be killed
    /// there), so they compute the same function of the lane; where the dataflow still has
    /// a form for it, every path from the entry passed that write (a path around it gives
    /// the entry's `Bot`). So the groups that meet anywhere agree on it: `u` is common.
    fn one_value(
        f: &FuncCode,
        succs: &[Vec<usize>],
        kill: &dyn Fn(usize, usize) -> bool,
    ) -> Vec<bool> {
        let n = f.code.len();
        let regs = f.reg_slots.len();
        let mut defs = vec![0u32; regs];
        let mut at = vec![usize::MAX; regs];
        for (pc, inst) in f.code.iter().enumerate() {
            inst.exec.each_reg_rw(&mut |r, w| {
                let r = r as usize;
                if w && r < regs && at[r] != pc {
                    defs[r] = defs[r].saturating_add(1);
                    at[r] = pc;
                }
            });
        }
        let mut work = 0usize;
        let mut on_cycle = HashMap::new();
        let mut one = vec![false; regs];
        for r in 0..regs {
            let x = at[r];
            if defs[r] != 1 || x >= n {
                continue;
            }
            let inst = &f.code[x];
            let srcs: Vec<&Src> = match &inst.exec {
                Exec::Mov { a, .. } | Exec::Cvt { a, .. } => vec![a],
                Exec::Cvta { a, addr: None, .. } => vec![a],
                Exec::Int { a, b, .. } => vec![a, b],
                Exec::Mad { a, b, c, .. } => vec![a, b, c],
                _ => continue,
            };
            // Sources every group reads alike (not `%clock`, say).
            let alike = srcs.iter().all(|s| match s {
                Src::Imm(_) | Src::Reg(_) => true,
                Src::SReg(id, comp) => sreg_slot(*id, *comp).is_some(),
                Src::Var(VarLoc::Global(_) | VarLoc::Shared(_), _) => true,
                _ => false,
            });
            if inst.guard.is_some() || !alike {
                continue;
            }
            let cyc = *on_cycle.entry(x).or_insert_with(|| {
                // Whether `x` reaches itself (too much work: assume so).
                let mut seen = vec![false; n + 1];
                let mut stack: Vec<usize> = succs[x].clone();
                while let Some(y) = stack.pop() {
                    work += 1;
                    if y == x || work > 1 << 24 {
                        return true;
                    }
                    if y < n && !seen[y] {
                        seen[y] = true;
                        stack.extend(succs[y].iter().copied());
                    }
                }
                false
            });
            one[r] = !cyc;
        }
        let mut changed = true;
        while changed {
            changed = false;
            for r in 0..regs {
                if !one[r] {
                    continue;
                }
                let x = at[r];
                let mut ok = true;
                f.code[x].exec.each_reg_rw(&mut |q, w| {
                    let q = q as usize;
                    if !w && kill(x, q) && !one.get(q).copied().unwrap_or(false) {
                        ok = false;
                    }
                });
                if !ok {
                    one[r] = false;
                    changed = true;
                }
            }
        }
        one
    }

    /// `out` (the state before `inst`) to the state after it.
    fn transfer(f: &FuncCode, u: &Uniform, pc: usize, inst: &DInst, out: &mut [Lin]) {
        let slot = |r: u32| f.reg_slots.get(r as usize).copied();
        let src = |s: &Src, bits: u32| -> Lin {
            match s {
                // Immediates, and the addresses of global and shared variables (the same
                // for every thread of a CTA).
                Src::Imm(_) | Src::Var(VarLoc::Global(_) | VarLoc::Shared(_), _) => {
                    Lin::is(0, false, false)
                }
                Src::Reg(r) if u.at(pc as u32, *r) => Lin::is(0, false, false),
                Src::Reg(r) => {
                    let ok = matches!(
                        (slot(*r), bits),
                        (Some(RegSlot::B32(_)), 32) | (Some(RegSlot::B64(_)), 64)
                    );
                    if ok {
                        out.get(*r as usize).copied().unwrap_or(Lin::Bot)
                    } else {
                        Lin::Bot
                    }
                }
                Src::SReg(id, comp) if bits == 32 => {
                    let name = ptxvm_ir::ir::SREGS.get(*id as usize).map(|x| x.0);
                    match (name, *comp, sreg_slot(*id, *comp)) {
                        (Some("%laneid"), _, _) => Lin::is(1, false, false),
                        (Some("%tid"), 0, _) => Lin::is(1, false, true),
                        (_, _, Some(Some(i))) if i >= 3 => Lin::is(0, false, false),
                        _ => Lin::Bot,
                    }
                }
                _ => Lin::Bot,
            }
        };
        // A constant factor: `(value, bits)` of an immediate.
        let imm = |s: &Src, bits: u32, signed: bool| -> Option<i64> {
            match s {
                Src::Imm(v) if bits == 32 && signed => Some(*v as u32 as i32 as i64),
                Src::Imm(v) if bits == 32 => Some(*v as u32 as i64),
                Src::Imm(v) => Some(*v as i64),
                _ => None,
            }
        };
        // `a * b` with one constant factor, `a` and `b` of `bits`, widened when `wide`:
        // `mul.wide` by `c` extends `c` as its type says; `mul.lo` is modulo 2^bits, where
        // any representative of `c` will do (the signed one is small for small negatives).
        let mul = |a: &Src, b: &Src, bits: u32, signed: bool, wide: bool| -> Lin {
            let sx = signed || !wide;
            let (x, c) = match (imm(a, bits, sx), imm(b, bits, sx)) {
                (_, Some(c)) => (a, c),
                (Some(c), None) => (b, c),
                // Two values of step 0: one value.
                _ => {
                    return match (src(a, bits), src(b, bits)) {
                        (Lin::Is { s: 0, tid, .. }, Lin::Is { s: 0, tid: t2, .. }) => {
                            Lin::is(0, false, tid || t2)
                        }
                        (Lin::Bot, _) | (_, Lin::Bot) => Lin::Bot,
                        (Lin::Top, _) | (_, Lin::Top) => Lin::Top,
                        _ => Lin::Bot,
                    };
                }
            };
            let v = src(x, bits);
            if wide { v.widen().mul(c) } else { v.mul(c) }
        };
        let width = |ty: Type| -> Option<u32> { matches!(ty.bits(), 32 | 64).then(|| ty.bits()) };
        let signed = |ty: Type| ty.class() == ptxvm_ir::types::Class::Signed;
        let res: Option<(u32, Lin, u32)> = match &inst.exec {
            Exec::Mov {
                d: Dst::Reg(d),
                a,
                bits,
            } if matches!(bits, 32 | 64) => Some((*d, src(a, *bits), *bits)),
            Exec::Int {
                op,
                ty,
                d: Dst::Reg(d),
                a,
                b,
            } => width(*ty).map(|w| {
                let v = match op {
                    IntOp::Add => src(a, w).add(src(b, w), 1),
                    IntOp::Sub => src(a, w).add(src(b, w), -1),
                    IntOp::MulLo => mul(a, b, w, signed(*ty), false),
                    IntOp::MulWide if w == 32 => mul(a, b, w, signed(*ty), true),
                    IntOp::Shl => match b {
                        Src::Imm(k) if *k < w as u64 && *k < 31 => src(a, w).mul(1 << *k),
                        _ => Lin::Bot,
                    },
                    _ => Lin::Bot,
                };
                let dw = if *op == IntOp::MulWide { 64 } else { w };
                (*d, v, dw)
            }),
            Exec::Mad {
                mode,
                ty,
                sat: false,
                d: Dst::Reg(d),
                a,
                b,
                c,
            } => width(*ty).map(|w| match mode {
                IntOp::MulLo => (*d, mul(a, b, w, signed(*ty), false).add(src(c, w), 1), w),
                IntOp::MulWide if w == 32 => {
                    (*d, mul(a, b, w, signed(*ty), true).add(src(c, 64), 1), 64)
                }
                _ => (*d, Lin::Bot, w),
            }),
            Exec::Cvt {
                dty,
                aty,
                rnd: None,
                irnd: None,
                sat: false,
                d: Dst::Reg(d),
                a,
                ..
            } if dty.bits() == 64
                && aty.bits() == 32
                && dty.class() != ptxvm_ir::types::Class::Float
                && aty.class() != ptxvm_ir::types::Class::Float =>
            {
                Some((*d, src(a, 32).widen(), 64))
            }
            Exec::Cvta {
                space: MemSpace::Global | MemSpace::Shared | MemSpace::Local,
                d: Dst::Reg(d),
                a,
                addr: None,
                ..
            } => Some((*d, src(a, 64), 64)),
            _ => None,
        };
        match res {
            Some((d, v, dw)) => {
                let ok = matches!(
                    (slot(d), dw),
                    (Some(RegSlot::B32(_)), 32) | (Some(RegSlot::B64(_)), 64)
                ) && full_width(f, d);
                let v = if ok { v } else { Lin::Bot };
                let Some(cur) = out.get_mut(d as usize) else {
                    return;
                };
                *cur = match inst.guard {
                    None => v,
                    // All lanes or none write: the same form if the step is.
                    Some((p, _)) if u.at(pc as u32, p) => match (*cur, v) {
                        (Lin::Is { s, .. }, Lin::Is { s: s2, .. }) if s == s2 => cur.meet(v),
                        (Lin::Top, _) | (_, Lin::Top) => Lin::Top,
                        _ => Lin::Bot,
                    },
                    Some(_) => Lin::Bot,
                };
            }
            None => inst.exec.each_reg_rw(&mut |r, written| {
                if written && let Some(x) = out.get_mut(r as usize) {
                    *x = Lin::Bot;
                }
            }),
        }
    }

    /// The lane step of register `r` before `pc`, and whether it holds only when
    /// `%ntid.x` is a multiple of 32; `None` when `r` is not known lane-linear there.
    fn at(&self, pc: u32, r: u32) -> Option<(i32, bool)> {
        let pc = pc as usize;
        if pc >= self.n || r as usize >= self.regs {
            return None;
        }
        match self.lin.get(pc * self.regs + r as usize)? {
            Lin::Is { s, tid, .. } => Some((*s, *tid)),
            _ => None,
        }
    }
}

/// The registers an instruction the JIT compiles reads and fully writes (`None` for the
/// others: see [`Live`]). A guarded write may not happen, so its
/// destination counts as read, not written.
fn reg_io(inst: &DInst) -> Option<(Vec<u32>, Vec<u32>)> {
    let mut u = Vec::new();
    let mut d = Vec::new();
    let src = |s: &Src, u: &mut Vec<u32>| {
        if let Src::Reg(r) | Src::Pred(r, _) = s {
            u.push(*r);
        }
    };
    let dst = |x: &Dst, d: &mut Vec<u32>| {
        if let Dst::Reg(r) = x {
            d.push(*r);
        }
    };
    match &inst.exec {
        Exec::Mov { d: x, a, .. } | Exec::Int { d: x, a, .. } => {
            src(a, &mut u);
            if let Exec::Int { b, .. } = &inst.exec {
                src(b, &mut u);
            }
            dst(x, &mut d);
        }
        Exec::Mad { d: x, a, b, c, .. } | Exec::Fma { d: x, a, b, c, .. } => {
            for s in [a, b, c] {
                src(s, &mut u);
            }
            dst(x, &mut d);
        }
        Exec::Float { d: x, a, b, .. } | Exec::PredOp { d: x, a, b, .. } => {
            src(a, &mut u);
            src(b, &mut u);
            dst(x, &mut d);
        }
        Exec::Setp {
            p, q, a, b, bop, ..
        } => {
            src(a, &mut u);
            src(b, &mut u);
            if let Some((_, c)) = bop {
                src(c, &mut u);
            }
            dst(p, &mut d);
            dst(q, &mut d);
        }
        Exec::Selp { d: x, a, b, c, .. } => {
            for s in [a, b, c] {
                src(s, &mut u);
            }
            dst(x, &mut d);
        }
        Exec::Ld { ds, addr, .. } => {
            if let Addr::Reg(r, _) = addr {
                u.push(*r);
            }
            for x in ds {
                dst(x, &mut d);
            }
        }
        Exec::St { srcs, addr, .. } => {
            if let Addr::Reg(r, _) = addr {
                u.push(*r);
            }
            for s in srcs {
                src(s, &mut u);
            }
        }
        Exec::Cvta { d: x, a, addr, .. } => {
            src(a, &mut u);
            if let Some(Addr::Reg(r, _)) = addr {
                u.push(*r);
            }
            dst(x, &mut d);
        }
        Exec::Bra { .. } => {}
        _ => return None,
    }
    if let Some((p, _)) = inst.guard {
        u.push(p);
        u.append(&mut d);
    }
    Some((u, d))
}

/// The comparisons integers have.
fn ordered(op: CmpOp) -> bool {
    matches!(
        op,
        CmpOp::Eq | CmpOp::Ne | CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge
    )
}

/// True when register `r` keeps every bit of its bank (a write needs no masking).
fn full_width(f: &FuncCode, r: u32) -> bool {
    match (f.reg_slots.get(r as usize), f.reg_masks.get(r as usize)) {
        (Some(RegSlot::B32(_)), Some(&m)) => m == u32::MAX as u64,
        (Some(RegSlot::B64(_)), Some(&m)) => m == u64::MAX,
        (Some(RegSlot::Pred(_)), _) => true,
        _ => false,
    }
}

/// Why a kernel with no instruction the native code handles has no native code (the one
/// reason that is not a bug of the JIT).
pub const NOTHING_COMPILES: &str = "no instruction compiles";

/// Why a kernel whose native code would take too long to compile has none (its error
/// message starts with this).
pub const TOO_LARGE: &str = "too large to compile quickly";

/// The most Cranelift instructions one kernel's native code may have.
const MAX_IR_INSTS: usize = 40_000;

/// Above this many Cranelift instructions a kernel is compiled the quick way (a single-pass
/// register allocator, no optimisation passes): Cranelift's usual pipeline grows faster
/// than the code, and a launch should not wait long for native code.
const QUICK_ABOVE: usize = 12_000;

/// Compiles a kernel.
pub(crate) fn compile(f: &FuncCode) -> Result<JitCode, NoJit> {
    match build(f, false)? {
        Some(code) => Ok(code),
        None => build(f, true)?.ok_or_else(|| NoJit("the quick compile asked for itself".into())),
    }
}

/// The lane routines ([`Gen::shared_lanes`]): one per address width (`wide`:
/// 64-bit address registers), access size (4 or 8) and direction.
const LANE_ROUTINES: usize = 8;
/// Where a lane routine finds what it works on in the kernel's scratch slot: the lanes'
/// addresses from offset 0 (4 or 8 bytes each), the values (4 or 8 bytes each) here, and it
/// writes whether it made the access (an `i32`) there.
const SCRATCH_VALS: i32 = 256;
const SCRATCH_OK: i32 = 512;

fn lane_routine(wide: bool, wd: u32, store: bool) -> usize {
    (wide as usize) << 2 | ((wd == 8) as usize) << 1 | store as usize
}

/// The signature of the lane routines: `(ctx, sa, off, lanes)`, `preserve_all`.
fn lane_sig(module: &JITModule) -> Signature {
    let ptr = module.target_config().pointer_type();
    let mut sig = module.make_signature();
    sig.call_conv = cranelift_codegen::isa::CallConv::PreserveAll;
    sig.params.push(AbiParam::new(ptr));
    sig.params.push(AbiParam::new(ptr));
    sig.params.push(AbiParam::new(I64));
    sig.params.push(AbiParam::new(I32));
    sig
}

/// The lane routines' code addresses, compiled once per process (a kernel's module
/// imports them: compiling them with every kernel cost 5% of the median compile time).
/// Their module is never freed, so the code stays.
fn lane_routines() -> Result<&'static [usize; LANE_ROUTINES], NoJit> {
    static CODE: OnceLock<Result<[usize; LANE_ROUTINES], String>> = OnceLock::new();
    CODE.get_or_init(|| {
        let build = || -> Result<[usize; LANE_ROUTINES], NoJit> {
            let module = Box::leak(Box::new(JITModule::new(JITBuilder::with_isa(
                isa(false)?,
                default_libcall_names(),
            ))));
            let sig = lane_sig(module);
            let mut fctx = FunctionBuilderContext::new();
            let mut ids = Vec::with_capacity(LANE_ROUTINES);
            for k in 0..LANE_ROUTINES {
                let id = module
                    .declare_function(&format!("lanes{k}"), Linkage::Local, &sig)
                    .map_err(|e| NoJit(e.to_string()))?;
                define_lane_routine(module, id, &sig, k, &mut fctx)?;
                ids.push(id);
            }
            module
                .finalize_definitions()
                .map_err(|e| NoJit(e.to_string()))?;
            let mut code = [0usize; LANE_ROUTINES];
            for (c, id) in code.iter_mut().zip(ids) {
                *c = module.get_finalized_function(id) as usize;
            }
            Ok(code)
        };
        build().map_err(|e| e.0)
    })
    .as_ref()
    .map_err(|e| NoJit(e.clone()))
}

/// Writes lane routine `key` ([`lane_routine`]): `(ctx, sa, off, lanes)`, `preserve_all`
/// (the caller's registers survive the call). The addresses of the lanes outside `lanes`
/// are taken as 0 (a load reads there, its value unused; a store writes back what is
/// there). Every lane's offset `a + off` (`a` a lane's address, a 32-bit one
/// zero-extended; `|off| <= 2^32`) must be aligned and inside
/// `[0, shared_len - wd]` — what `fast::whole_warp` checks for shared memory, found from
/// vector minima, maxima and the OR of the lanes; then the 32 accesses in lane order (for
/// a store a later lane's value wins, as in `fast::scatter`), and 1 at `sa + SCRATCH_OK`;
/// else nothing but 0 there. A load whose lanes share addresses reads each address once
/// (one for the warp, one per half warp, or the first half's 16 for both halves).
fn define_lane_routine(
    module: &mut JITModule,
    id: cranelift_module::FuncId,
    sig: &Signature,
    key: usize,
    fctx: &mut FunctionBuilderContext,
) -> Result<(), NoJit> {
    let (wide, wd, store) = (
        key & 4 != 0,
        if key & 2 != 0 { 8u32 } else { 4 },
        key & 1 != 0,
    );
    let tcfg = module.target_config();
    let mut cctx = module.make_context();
    cctx.func.signature = sig.clone();
    cctx.func.name = UserFuncName::user(0, id.as_u32());
    {
        let mut b = FunctionBuilder::new(&mut cctx.func, fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let (ctx, sa, off, lanes) = (
            b.block_params(entry)[0],
            b.block_params(entry)[1],
            b.block_params(entry)[2],
            b.block_params(entry)[3],
        );
        // A partial group: the other lanes' addresses made 0 first.
        let full = b.ins().icmp_imm_s(IntCC::Equal, lanes, -1);
        let mask = b.create_block();
        let check = b.create_block();
        b.ins().brif(full, check, &[], mask, &[]);
        b.switch_to_block(mask);
        for k in 0..if wide { 16 } else { 8 } {
            let (ty, m) = if wide {
                (I64X2, lane_mask64(&mut b, lanes, k))
            } else {
                (I32X4, lane_mask32(&mut b, lanes, k))
            };
            let x = b.ins().load(ty, TRUSTED, sa, 16 * k as i32);
            let x = b.ins().band(x, m);
            b.ins().store(TRUSTED, x, sa, 16 * k as i32);
        }
        b.ins().jump(check, &[]);
        b.switch_to_block(check);
        // The 32-bit addresses' vectors (for the shapes a load checks below).
        let mut narrow: Vec<Value> = Vec::new();
        let (lo, hi, ors) = if wide {
            let v: Vec<Value> = (0..16)
                .map(|k| b.ins().load(I64X2, TRUSTED, sa, 16 * k))
                .collect();
            let (mut mn, mut mx, mut or) = (v[0], v[0], v[0]);
            for x in &v[1..] {
                let lt = b.ins().icmp(IntCC::UnsignedLessThan, *x, mn);
                mn = b.ins().bitselect(lt, *x, mn);
                let gt = b.ins().icmp(IntCC::UnsignedGreaterThan, *x, mx);
                mx = b.ins().bitselect(gt, *x, mx);
                or = b.ins().bor(or, *x);
            }
            let mut two = |v: Value| (b.ins().extractlane(v, 0), b.ins().extractlane(v, 1));
            let ((p, q), (r, t), (u, w)) = (two(mn), two(mx), two(or));
            (b.ins().umin(p, q), b.ins().umax(r, t), b.ins().bor(u, w))
        } else {
            let v: Vec<Value> = (0..8)
                .map(|k| b.ins().load(I32X4, TRUSTED, sa, 16 * k))
                .collect();
            narrow = v.clone();
            let (mut mn, mut mx, mut or) = (v[0], v[0], v[0]);
            for x in &v[1..] {
                mn = b.ins().umin(mn, *x);
                mx = b.ins().umax(mx, *x);
                or = b.ins().bor(or, *x);
            }
            let lane = |b: &mut FunctionBuilder, v: Value, i: u8| {
                let x = b.ins().extractlane(v, i);
                b.ins().uextend(I64, x)
            };
            let (mut lo, mut hi, mut o) = (
                lane(&mut b, mn, 0),
                lane(&mut b, mx, 0),
                lane(&mut b, or, 0),
            );
            for i in 1..4 {
                let (p, q, r) = (
                    lane(&mut b, mn, i),
                    lane(&mut b, mx, i),
                    lane(&mut b, or, i),
                );
                lo = b.ins().umin(lo, p);
                hi = b.ins().umax(hi, q);
                o = b.ins().bor(o, r);
            }
            (lo, hi, o)
        };
        // `lo + off >= 0`, `hi + off <= len - wd` and `(ors | off) & (wd - 1) == 0` (an
        // `off` not a multiple of `wd` goes to the helpers, which decide); no sum
        // overflows: `|off| <= 2^32` and `hi < 2^62` (checked).
        let len = b.ins().load(I64, TRUSTED, ctx, off!(shared_len));
        let room = b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, len, wd as i64);
        let limit = b.ins().iadd_imm_s(len, -(wd as i64));
        let lo_at = b.ins().iadd(lo, off);
        let hi_at = b.ins().iadd(hi, off);
        let from0 = b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, lo_at, 0);
        let small = b.ins().icmp_imm_s(IntCC::UnsignedLessThan, hi, 1 << 62);
        let below = b.ins().icmp(IntCC::SignedLessThanOrEqual, hi_at, limit);
        let o = b.ins().bor(ors, off);
        let mis = b.ins().band_imm_s(o, wd as i64 - 1);
        let aligned = b.ins().icmp_imm_s(IntCC::Equal, mis, 0);
        let mut ok = room;
        for c in [from0, small, below, aligned] {
            ok = b.ins().band(ok, c);
        }
        let ok32 = b.ins().uextend(I32, ok);
        b.ins().store(TRUSTED, ok32, sa, SCRATCH_OK);
        let xfer = b.create_block();
        let done = b.create_block();
        b.ins().brif(ok, xfer, &[], done, &[]);
        b.switch_to_block(xfer);
        let sh = b.ins().load(I64, TRUSTED, ctx, off!(shared));
        let sh = b.ins().iadd(sh, off);
        // Guest memory: checked above, no alignment promised to Cranelift.
        let flags = MemFlagsData::new().with_notrap();
        let ty = if wd == 4 { I32 } else { I64 };
        // Lane `l`'s host address: its address from the scratch slot, from `sh`.
        let lane_at = |b: &mut FunctionBuilder, l: i32| {
            let a = if wide {
                b.ins().load(I64, TRUSTED, sa, 8 * l)
            } else {
                b.ins().uload32(TRUSTED, sa, 4 * l)
            };
            b.ins().iadd(sh, a)
        };
        // A partial group's store keeps the other lanes' bytes; a whole warp's store, and
        // every load, goes plainly.
        if store {
            let partial = b.create_block();
            let plain = b.create_block();
            b.ins().brif(full, plain, &[], partial, &[]);
            b.switch_to_block(partial);
            for l in 0..32i32 {
                let p = lane_at(&mut b, l);
                // A lane outside `lanes` (its address made 0 above) stores what is there
                // now, the earlier lanes' stores included: nothing changes.
                let x = b.ins().load(ty, TRUSTED, sa, SCRATCH_VALS + wd as i32 * l);
                let now = b.ins().load(ty, flags, p, 0);
                let on = b.ins().band_imm_s(lanes, 1 << l);
                let x = b.ins().select(on, x, now);
                b.ins().store(flags, x, p, 0);
            }
            b.ins().jump(done, &[]);
            b.switch_to_block(plain);
        }
        let vty = if wd == 4 { I32X4 } else { I64X2 };
        // The values' bytes per half warp, and their vectors (16 bytes each).
        let (half, per_half) = (16 * wd as i32, wd as i32);
        if !store {
            // Shapes of a load's addresses that need fewer accesses (checked in turn): every
            // lane at one address (a broadcast), each half warp at one address (a 16 x 16
            // tile's row read by a warp that spans two rows), the second half at the first
            // half's addresses (its column read).
            let splat_to = |b: &mut FunctionBuilder, a: Value, at: i32, n: i32| {
                let p = b.ins().iadd(sh, a);
                let x = b.ins().load(ty, flags, p, 0);
                let x = b.ins().splat(vty, x);
                for k in 0..n {
                    b.ins().store(TRUSTED, x, sa, at + 16 * k);
                }
            };
            let one = b.create_block();
            let rest = b.create_block();
            let same = b.ins().icmp(IntCC::Equal, lo, hi);
            b.ins().brif(same, one, &[], rest, &[]);
            b.switch_to_block(one);
            splat_to(&mut b, lo, SCRATCH_VALS, 2 * per_half);
            b.ins().jump(done, &[]);
            b.switch_to_block(rest);
            if !narrow.is_empty() {
                let first = |b: &mut FunctionBuilder, k: usize| {
                    let x = b.ins().extractlane(narrow[k], 0);
                    let a = b.ins().uextend(I64, x);
                    let v = b.ins().splat(I32X4, x);
                    let mut all: Option<Value> = None;
                    for x in &narrow[k..k + 4] {
                        let e = b.ins().icmp(IntCC::Equal, *x, v);
                        all = Some(all.map_or(e, |o| b.ins().band(o, e)));
                    }
                    (a, all.map_or(v, |x| x))
                };
                let (a0, u0) = first(&mut b, 0);
                let (a1, u1) = first(&mut b, 4);
                let both = b.ins().band(u0, u1);
                let uni = b.ins().vall_true(both);
                let rows = b.create_block();
                let next = b.create_block();
                b.ins().brif(uni, rows, &[], next, &[]);
                b.switch_to_block(rows);
                splat_to(&mut b, a0, SCRATCH_VALS, per_half);
                splat_to(&mut b, a1, SCRATCH_VALS + half, per_half);
                b.ins().jump(done, &[]);
                b.switch_to_block(next);
                let mut twice: Option<Value> = None;
                for k in 0..4 {
                    let e = b.ins().icmp(IntCC::Equal, narrow[k], narrow[k + 4]);
                    twice = Some(twice.map_or(e, |o| b.ins().band(o, e)));
                }
                if let Some(twice) = twice {
                    let twice = b.ins().vall_true(twice);
                    let cols = b.create_block();
                    let general = b.create_block();
                    b.ins().brif(twice, cols, &[], general, &[]);
                    b.switch_to_block(cols);
                    for l in 0..16i32 {
                        let p = lane_at(&mut b, l);
                        let x = b.ins().load(ty, flags, p, 0);
                        b.ins().store(TRUSTED, x, sa, SCRATCH_VALS + wd as i32 * l);
                    }
                    for k in 0..per_half {
                        let x = b.ins().load(vty, TRUSTED, sa, SCRATCH_VALS + 16 * k);
                        b.ins().store(TRUSTED, x, sa, SCRATCH_VALS + half + 16 * k);
                    }
                    b.ins().jump(done, &[]);
                    b.switch_to_block(general);
                }
            }
        }
        for l in 0..32i32 {
            let p = lane_at(&mut b, l);
            let at = SCRATCH_VALS + wd as i32 * l;
            if store {
                let x = b.ins().load(ty, TRUSTED, sa, at);
                b.ins().store(flags, x, p, 0);
            } else {
                let x = b.ins().load(ty, flags, p, 0);
                b.ins().store(TRUSTED, x, sa, at);
            }
        }
        b.ins().jump(done, &[]);
        b.switch_to_block(done);
        b.ins().return_(&[]);
        b.seal_all_blocks();
        b.finalize(tcfg);
    }
    module
        .define_function(id, &mut cctx)
        .map_err(|e| NoJit(format!("{e:?}")))?;
    module.clear_context(&mut cctx);
    Ok(())
}

/// Compiles a kernel with the usual pipeline or, when `quick`, the quick one; `None` when
/// the kernel is too large for the usual one ([`QUICK_ABOVE`]).
fn build(f: &FuncCode, quick: bool) -> Result<Option<JitCode>, NoJit> {
    let n = f.code.len();
    let ok: Vec<bool> = f.code.iter().map(|i| compiles(f, i)).collect();
    if !ok.iter().any(|&x| x) {
        return Err(NoJit(NOTHING_COMPILES.into()));
    }
    // Block starts: the yield points (PC 0, branch targets, after a branch), and compiled
    // instructions after one that is not.
    let mut start = f.yields.clone();
    start.resize(n + 1, false);
    start[0] = true;
    for pc in 0..n {
        if !ok[pc] {
            start[pc] = true;
            start[pc + 1] = true;
        }
    }
    // Compiled blocks: [s, e) of compiled instructions.
    let mut blocks: Vec<(u32, u32)> = Vec::new();
    let mut pc = 0;
    while pc < n {
        if !ok[pc] {
            pc += 1;
            continue;
        }
        let s = pc;
        pc += 1;
        while pc < n && ok[pc] && !start[pc] {
            pc += 1;
        }
        blocks.push((s as u32, pc as u32));
    }

    let isa = isa(quick)?;
    let lanes = lane_routines()?;
    let mut jb = JITBuilder::with_isa(isa, default_libcall_names());
    for (k, &a) in lanes.iter().enumerate() {
        jb.symbol(format!("ptxvm_lanes{k}"), a as *const u8);
    }
    jb.symbol("ptxvm_jit_gather", jit_gather as *const u8);
    jb.symbol("ptxvm_jit_scatter", jit_scatter as *const u8);
    jb.symbol("ptxvm_jit_shfl", jit_shfl as *const u8);
    jb.symbol("ptxvm_jit_run_span", jit_run_span as *const u8);
    jb.symbol("ptxvm_jit_diverge", jit_diverge as *const u8);
    jb.symbol("ptxvm_jit_merge", jit_merge as *const u8);
    let mut module = JITModule::new(jb);
    let tcfg = module.target_config();
    let ptr = tcfg.pointer_type();

    let mut helper_sig = module.make_signature();
    helper_sig.params.push(AbiParam::new(ptr));
    helper_sig.params.push(AbiParam::new(I32));
    helper_sig.params.push(AbiParam::new(I32));
    helper_sig.returns.push(AbiParam::new(I32));
    let gather_id = module
        .declare_function("ptxvm_jit_gather", Linkage::Import, &helper_sig)
        .map_err(|e| NoJit(e.to_string()))?;
    let scatter_id = module
        .declare_function("ptxvm_jit_scatter", Linkage::Import, &helper_sig)
        .map_err(|e| NoJit(e.to_string()))?;
    let shfl_id = module
        .declare_function("ptxvm_jit_shfl", Linkage::Import, &helper_sig)
        .map_err(|e| NoJit(e.to_string()))?;
    let merge_id = module
        .declare_function("ptxvm_jit_merge", Linkage::Import, &helper_sig)
        .map_err(|e| NoJit(e.to_string()))?;
    let mut diverge_sig = helper_sig.clone();
    diverge_sig.params.push(AbiParam::new(I32));
    let diverge_id = module
        .declare_function("ptxvm_jit_diverge", Linkage::Import, &diverge_sig)
        .map_err(|e| NoJit(e.to_string()))?;
    let mut span_sig = module.make_signature();
    span_sig.params.push(AbiParam::new(ptr));
    span_sig.params.push(AbiParam::new(I32));
    span_sig.params.push(AbiParam::new(I32));
    span_sig.params.push(AbiParam::new(I64));
    span_sig.returns.push(AbiParam::new(I64));
    let run_span_id = module
        .declare_function("ptxvm_jit_run_span", Linkage::Import, &span_sig)
        .map_err(|e| NoJit(e.to_string()))?;

    let lane_sig = lane_sig(&module);
    let mut lane_ids = Vec::with_capacity(LANE_ROUTINES);
    for k in 0..LANE_ROUTINES {
        lane_ids.push(
            module
                .declare_function(&format!("ptxvm_lanes{k}"), Linkage::Import, &lane_sig)
                .map_err(|e| NoJit(e.to_string()))?,
        );
    }

    let mut sig: Signature = module.make_signature();
    sig.params.push(AbiParam::new(ptr));
    sig.params.push(AbiParam::new(I32));
    sig.returns.push(AbiParam::new(I32));
    let fid = module
        .declare_function("kernel", Linkage::Local, &sig)
        .map_err(|e| NoJit(e.to_string()))?;
    let mut cctx = module.make_context();
    cctx.func.signature = sig;
    cctx.func.name = UserFuncName::user(0, fid.as_u32());
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut cctx.func, &mut fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let ctx = b.block_params(entry)[0];
        let entry_pc = b.block_params(entry)[1];
        let thread_insts = b.declare_var(I64);
        let zero64 = b.ins().iconst(I64, 0);
        b.def_var(thread_insts, zero64);
        let exit_code = b.declare_var(I32);
        let zero32 = b.ins().iconst(I32, 0);
        b.def_var(exit_code, zero32);
        let gather = module.declare_func_in_func(gather_id, b.func);
        let scatter = module.declare_func_in_func(scatter_id, b.func);
        let shfl = module.declare_func_in_func(shfl_id, b.func);
        let diverge_fn = module.declare_func_in_func(diverge_id, b.func);
        let merge_fn = module.declare_func_in_func(merge_id, b.func);
        let run_span = module.declare_func_in_func(run_span_id, b.func);
        let lane_fns: Vec<cranelift_codegen::ir::FuncRef> = lane_ids
            .iter()
            .map(|&id| module.declare_func_in_func(id, b.func))
            .collect();
        let exit = b.create_block();
        // The dispatch: the group's lanes and what is made of them, then on to the block
        // starting at its PC. Entered from the entry, and again where the group's lanes
        // change ([`Gen::diverge`], [`Gen::go_to`]'s merge).
        let dispatch = b.create_block();
        let start_pc = b.append_block_param(dispatch, I32);
        b.ins().jump(dispatch, &[entry_pc.into()]);
        b.switch_to_block(dispatch);
        let act = b.ins().load(I32, TRUSTED, ctx, off!(act));
        let act32: [Value; 8] = std::array::from_fn(|k| lane_mask32(&mut b, act, k));
        let act64: [Value; 16] = std::array::from_fn(|k| lane_mask64(&mut b, act, k));
        let act_count = b.ins().popcnt(act);
        let act_count = b.ins().uextend(I64, act_count);
        let first = b.ins().ctz(act);
        let first = b.ins().uextend(I64, first);
        let lane_off = [b.ins().ishl_imm_u(first, 2), b.ins().ishl_imm_u(first, 3)];
        let uniform = Uniform::of(f);
        let mut g = Gen {
            b: &mut b,
            f,
            ctx,
            act,
            act32,
            act64,
            regs: Regs::default(),
            thread_insts,
            gather,
            scatter,
            run_span,
            shfl,
            exit,
            exit_code,
            bad: false,
            live: Live::of(f),
            slot_reg: f
                .reg_slots
                .iter()
                .enumerate()
                .map(|(r, &sl)| (sl, r as u32))
                .collect(),
            lp: None,
            pending: 0,
            act_count,
            affine: uniform.as_ref().and_then(|u| Affine::of(f, u)),
            uniform,
            lane_off,
            scratch: None,
            dispatch,
            merges: HashSet::new(),
            diverge_fn,
            merge_fn,
            lane_fns,
        };
        // One Cranelift block per compiled block, entered with nothing in registers.
        let cblocks: Vec<Block> = blocks.iter().map(|_| g.b.create_block()).collect();
        let by_start: HashMap<u32, usize> = blocks
            .iter()
            .enumerate()
            .map(|(k, &(s, _))| (s, k))
            .collect();
        g.merges = merge_points(f, &blocks, &by_start);
        // Dispatch on the start PC; anything else leaves at once.
        let not_here = g.b.create_block();
        let default = g.b.func.dfg.block_call(not_here, &[]);
        let mut table = Vec::with_capacity(n);
        for pc in 0..n as u32 {
            let target = by_start.get(&pc).map_or(not_here, |&k| cblocks[k]);
            table.push(g.b.func.dfg.block_call(target, &[]));
        }
        let jt = g.b.create_jump_table(JumpTableData::new(default, &table));
        g.b.ins().br_table(start_pc, jt);
        g.b.switch_to_block(not_here);
        g.leave_at(start_pc);

        for (k, &(s, e)) in blocks.iter().enumerate() {
            g.b.switch_to_block(cblocks[k]);
            g.regs = Regs::default();
            g.pending = 0;
            g.block(s, e, &cblocks, &by_start);
        }

        // The exit: store the thread-instruction count, return the code.
        g.b.switch_to_block(exit);
        let ti = g.b.use_var(thread_insts);
        let old = g.b.ins().load(I64, TRUSTED, ctx, off!(thread_insts));
        let sum = g.b.ins().iadd(old, ti);
        g.b.ins().store(TRUSTED, sum, ctx, off!(thread_insts));
        let code = g.b.use_var(exit_code);
        g.b.ins().return_(&[code]);
        if g.bad {
            return Err(NoJit("an operand of an unexpected kind".into()));
        }
        b.seal_all_blocks();
        b.finalize(tcfg);
    }
    // Cranelift's time grows faster than the code: a kernel whose native code would be
    // this large (on this machine, a few hundred milliseconds of compiling) stays on the
    // warp engine, visibly.
    let size = cctx.func.dfg.num_insts();
    if !quick && size > QUICK_ABOVE {
        return Ok(None);
    }
    if size > MAX_IR_INSTS {
        return Err(NoJit(format!(
            "{TOO_LARGE} ({size} Cranelift instructions for {n} PTX instructions; the limit is {MAX_IR_INSTS})"
        )));
    }
    module
        .define_function(fid, &mut cctx)
        .map_err(|e| NoJit(format!("{e:?}")))?;
    module.clear_context(&mut cctx);
    module
        .finalize_definitions()
        .map_err(|e| NoJit(e.to_string()))?;
    let code = module.get_finalized_function(fid);
    // SAFETY: the function was defined with the `Entry` signature.
    let entry: Entry = unsafe { std::mem::transmute::<*const u8, Entry>(code) };
    let mut starts = vec![false; n];
    for &(s, _) in &blocks {
        starts[s as usize] = true;
    }
    Ok(Some(JitCode {
        entry,
        starts,
        compiled: ok.iter().filter(|&&x| x).count(),
        compile_time: std::time::Duration::ZERO,
        module: Mutex::new(Some(module)),
    }))
}

/// Lane-bit constants: lanes `4k..4k+4` as `i32x4`.
fn lane_bits32(b: &mut FunctionBuilder, k: usize) -> Value {
    let mut bytes = Vec::with_capacity(16);
    for l in 0..4 {
        bytes.extend_from_slice(&(1u32 << (4 * k + l)).to_le_bytes());
    }
    let c = b.func.dfg.constants.insert(ConstantData::from(bytes));
    b.ins().vconst(I32X4, c)
}

/// Lanes `2k, 2k+1` as `i64x2`.
fn lane_bits64(b: &mut FunctionBuilder, k: usize) -> Value {
    let mut bytes = Vec::with_capacity(16);
    for l in 0..2 {
        bytes.extend_from_slice(&(1u64 << (2 * k + l)).to_le_bytes());
    }
    let c = b.func.dfg.constants.insert(ConstantData::from(bytes));
    b.ins().vconst(I64X2, c)
}

/// All-ones in the lanes of piece `k` whose bit is set in `bits`.
fn lane_mask32(b: &mut FunctionBuilder, bits: Value, k: usize) -> Value {
    let s = b.ins().splat(I32X4, bits);
    let lb = lane_bits32(b, k);
    let m = b.ins().band(s, lb);
    let z = b.ins().iconst(I32, 0);
    let z = b.ins().splat(I32X4, z);
    b.ins().icmp(IntCC::NotEqual, m, z)
}

fn lane_mask64(b: &mut FunctionBuilder, bits: Value, k: usize) -> Value {
    let wide = b.ins().uextend(I64, bits);
    let s = b.ins().splat(I64X2, wide);
    let lb = lane_bits64(b, k);
    let m = b.ins().band(s, lb);
    let z = b.ins().iconst(I64, 0);
    let z = b.ins().splat(I64X2, z);
    b.ins().icmp(IntCC::NotEqual, m, z)
}

impl Gen<'_, '_> {
    fn slot(&mut self, r: u32) -> RegSlot {
        match self.f.reg_slots.get(r as usize) {
            Some(s) => *s,
            None => {
                self.bad = true;
                RegSlot::B32(0)
            }
        }
    }

    /// Notes an operand `compiles` should have refused; gives a placeholder.
    fn broken<T: Placeholder>(&mut self) -> T {
        self.bad = true;
        T::placeholder(self)
    }

    /// Address of a piece of a register in its bank.
    fn bank_addr(&mut self, s: RegSlot) -> (Value, i32) {
        match s {
            RegSlot::B32(i) => {
                let base = self.b.ins().load(I64, TRUSTED, self.ctx, off!(r32));
                (base, (i as i32) * 128)
            }
            RegSlot::B64(i) => {
                let base = self.b.ins().load(I64, TRUSTED, self.ctx, off!(r64));
                (base, (i as i32) * 256)
            }
            RegSlot::Pred(i) => {
                let base = self.b.ins().load(I64, TRUSTED, self.ctx, off!(pred));
                (base, (i as i32) * 4)
            }
        }
    }

    /// A register's value, NaN-canonicalised ([`Regs::raw`]).
    fn get(&mut self, s: RegSlot) -> Pieces {
        let p = self.get_raw(s);
        match p {
            Pieces::W32(v) if self.regs.raw.contains(&s) => {
                let c = self.canon32(v);
                self.regs.raw.retain(|&x| x != s);
                self.regs.vals.insert(s, Pieces::W32(c));
                Pieces::W32(c)
            }
            p => p,
        }
    }

    /// NaN lanes of `f32` bits to the canonical NaN.
    fn canon32(&mut self, v: [Value; 8]) -> [Value; 8] {
        let canon = self.splat32(ptxvm_fp::CANONICAL_NAN_F32);
        std::array::from_fn(|k| {
            let f = self.b.ins().bitcast(F32X4, little(), v[k]);
            let nan = self.b.ins().fcmp(FloatCC::Unordered, f, f);
            self.b.ins().bitselect(nan, canon, v[k])
        })
    }

    /// A register's value as cached: for float arithmetic, which may read a raw `f32`.
    fn get_raw(&mut self, s: RegSlot) -> Pieces {
        if let Some(p) = self.regs.vals.get(&s) {
            return p.clone();
        }
        let (base, off) = self.bank_addr(s);
        let p = match s {
            RegSlot::B32(_) => Pieces::W32(std::array::from_fn(|k| {
                self.b.ins().load(I32X4, TRUSTED, base, off + 16 * k as i32)
            })),
            RegSlot::B64(_) => Pieces::W64(std::array::from_fn(|k| {
                self.b.ins().load(I64X2, TRUSTED, base, off + 16 * k as i32)
            })),
            RegSlot::Pred(_) => Pieces::Pred(self.b.ins().load(I32, TRUSTED, base, off)),
        };
        self.regs.vals.insert(s, p.clone());
        p
    }

    fn set(&mut self, s: RegSlot, p: Pieces) {
        self.regs.vals.insert(s, p);
        self.regs.uni.remove(&s);
        self.regs.raw.retain(|&x| x != s);
        if !self.regs.dirty.contains(&s) {
            self.regs.dirty.push(s);
        }
    }

    /// Stores every written register that is live at `pc` (where the warp engine goes on if
    /// the code leaves there), blended with the group's lanes, and forgets the cache.
    fn flush(&mut self, pc: u32) {
        self.store_dirty(pc);
        self.regs.vals.clear();
        self.regs.raw.clear();
        self.regs.uni.clear();
    }

    /// A uniform source as one scalar (`I64` when `wide`, else `I32`), or `None` when it is
    /// not known to be uniform before `pc` (or is held only as vectors).
    fn scalar(&mut self, s: &Src, pc: u32, wide: bool) -> Option<Value> {
        let ty = if wide { I64 } else { I32 };
        match s {
            Src::Imm(v) => {
                let v = if wide { *v as i64 } else { *v as u32 as i64 };
                Some(self.b.ins().iconst(ty, v))
            }
            Src::SReg(id, comp) if !wide => match sreg_slot(*id, *comp) {
                Some(Some(i)) if i >= 3 => Some(self.b.ins().load(
                    I32,
                    TRUSTED,
                    self.ctx,
                    off!(cta) + 4 * (i as i32 - 3),
                )),
                _ => None,
            },
            Src::Reg(r) => {
                let slot = self.f.reg_slots.get(*r as usize).copied()?;
                if !matches!(
                    (slot, wide),
                    (RegSlot::B32(_), false) | (RegSlot::B64(_), true)
                ) {
                    return None;
                }
                if let Some(&x) = self.regs.uni.get(&slot) {
                    return Some(x);
                }
                if self.regs.vals.contains_key(&slot)
                    || !self.uniform.as_ref().is_some_and(|u| u.at(pc, *r))
                {
                    return None;
                }
                // Not cached, so the bank holds it: the group's first lane.
                let (base, off) = self.bank_addr(slot);
                let a = self.b.ins().iadd(base, self.lane_off[wide as usize]);
                let x = self.b.ins().load(ty, TRUSTED, a, off);
                let p = self.splat_pieces(x, wide);
                self.regs.vals.insert(slot, p);
                self.regs.uni.insert(slot, x);
                Some(x)
            }
            _ => None,
        }
    }

    fn splat_pieces(&mut self, x: Value, wide: bool) -> Pieces {
        if wide {
            Pieces::W64([self.b.ins().splat(I64X2, x); 16])
        } else {
            Pieces::W32([self.b.ins().splat(I32X4, x); 8])
        }
    }

    /// Writes a uniform result given as a scalar.
    fn set_uni(&mut self, d: &Dst, x: Value, wide: bool) {
        let Dst::Reg(r) = d else { return };
        let s = self.slot(*r);
        let p = self.splat_pieces(x, wide);
        self.set(s, p);
        self.regs.uni.insert(s, x);
    }

    /// The function's 256-byte scratch stack slot, made when first needed.
    fn scratch_slot(&mut self) -> StackSlot {
        match self.scratch {
            Some(ss) => ss,
            None => {
                let ss = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    SCRATCH_OK as u32 + 16,
                    4,
                ));
                self.scratch = Some(ss);
                ss
            }
        }
    }

    /// The value of the group's first lane of a register held as vectors (through a stack
    /// slot: for the rare uniform register a loop carries as a scalar but computed as
    /// vectors).
    fn lane_scalar(&mut self, s: RegSlot) -> Value {
        let ss = self.scratch_slot();
        let base = self.b.ins().stack_addr(I64, ss, 0);
        let (ty, wide) = match self.get(s) {
            Pieces::W32(v) => {
                for (k, x) in v.iter().enumerate() {
                    self.b.ins().store(TRUSTED, *x, base, 16 * k as i32);
                }
                (I32, 0)
            }
            Pieces::W64(v) => {
                for (k, x) in v.iter().enumerate() {
                    self.b.ins().store(TRUSTED, *x, base, 16 * k as i32);
                }
                (I64, 1)
            }
            Pieces::Pred(_) => return self.broken(),
        };
        let a = self.b.ins().iadd(base, self.lane_off[wide]);
        self.b.ins().load(ty, TRUSTED, a, 0)
    }

    /// A lane-local integer operation of uniform sources as one scalar operation, when it is
    /// one of those kept scalar (`None` otherwise: the vector code runs).
    fn int_scalar(
        &mut self,
        op: IntOp,
        signed: bool,
        a: &Src,
        b: &Src,
        pc: u32,
        wide: bool,
    ) -> Option<Value> {
        use IntOp::*;
        let (ty, bits) = if wide { (I64, 64) } else { (I32, 32) };
        match (op, b) {
            (Shl | Shr, Src::Imm(n)) => {
                let x = self.scalar(a, pc, wide)?;
                let n = *n as u32;
                Some(match (op, signed) {
                    (Shl, _) if n >= bits => self.b.ins().iconst(ty, 0),
                    (Shl, _) => self.b.ins().ishl_imm_u(x, n as i64),
                    (_, true) => self.b.ins().sshr_imm_u(x, n.min(bits - 1) as i64),
                    (_, false) if n >= bits => self.b.ins().iconst(ty, 0),
                    _ => self.b.ins().ushr_imm_u(x, n as i64),
                })
            }
            (Add | Sub | MulLo | And | Or | Xor, _) => {
                let x = self.scalar(a, pc, wide)?;
                let y = self.scalar(b, pc, wide)?;
                Some(match op {
                    Add => self.b.ins().iadd(x, y),
                    Sub => self.b.ins().isub(x, y),
                    MulLo => self.b.ins().imul(x, y),
                    And => self.b.ins().band(x, y),
                    Or => self.b.ins().bor(x, y),
                    _ => self.b.ins().bxor(x, y),
                })
            }
            _ => None,
        }
    }

    /// Stores every written register that is live at `pc`, blended with the group's lanes;
    /// the cache keeps their values. A register no path from `pc` reads before writing it
    /// again is not stored (see [`Live`]).
    fn store_dirty(&mut self, pc: u32) {
        let dirty = std::mem::take(&mut self.regs.dirty);
        for s in dirty {
            if let (Some(live), Some(&r)) = (&self.live, self.slot_reg.get(&s))
                && !live.at(pc, r)
            {
                continue;
            }
            let Some(p) = self.regs.vals.get(&s).cloned() else {
                continue;
            };
            let p = match p {
                Pieces::W32(_) if self.regs.raw.contains(&s) => self.get(s),
                p => p,
            };
            let (base, off) = self.bank_addr(s);
            match p {
                Pieces::W32(v) => {
                    for (k, x) in v.iter().enumerate() {
                        let o = off + 16 * k as i32;
                        let old = self.b.ins().load(I32X4, TRUSTED, base, o);
                        let m = self.act32[k];
                        let y = self.b.ins().bitselect(m, *x, old);
                        self.b.ins().store(TRUSTED, y, base, o);
                    }
                }
                Pieces::W64(v) => {
                    for (k, x) in v.iter().enumerate() {
                        let o = off + 16 * k as i32;
                        let old = self.b.ins().load(I64X2, TRUSTED, base, o);
                        let m = self.act64[k];
                        let y = self.b.ins().bitselect(m, *x, old);
                        self.b.ins().store(TRUSTED, y, base, o);
                    }
                }
                Pieces::Pred(v) => {
                    // Predicates are kept exact in the lanes of `act` (see `put_pred`).
                    self.b.ins().store(TRUSTED, v, base, off);
                }
            }
        }
    }

    /// The current value of a register.
    fn reg(&mut self, r: u32) -> Pieces {
        let s = self.slot(r);
        self.get(s)
    }

    fn src32(&mut self, s: &Src) -> [Value; 8] {
        match s {
            Src::Reg(r) => match self.reg(*r) {
                Pieces::W32(v) => v,
                _ => self.broken(),
            },
            Src::Imm(v) => {
                let c = self.b.ins().iconst(I32, *v as u32 as i64);
                let sp = self.b.ins().splat(I32X4, c);
                [sp; 8]
            }
            Src::SReg(id, comp) => match sreg_slot(*id, *comp) {
                Some(None) => std::array::from_fn(|k| {
                    let mut bytes = Vec::with_capacity(16);
                    for j in 0..4u32 {
                        bytes.extend_from_slice(&(4 * k as u32 + j).to_le_bytes());
                    }
                    let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
                    self.b.ins().vconst(I32X4, c)
                }),
                Some(Some(i)) if i < 3 => {
                    let base = self.b.ins().load(I64, TRUSTED, self.ctx, off!(tid));
                    std::array::from_fn(|k| {
                        self.b
                            .ins()
                            .load(I32X4, TRUSTED, base, 128 * i as i32 + 16 * k as i32)
                    })
                }
                Some(Some(i)) => {
                    let v =
                        self.b
                            .ins()
                            .load(I32, TRUSTED, self.ctx, off!(cta) + 4 * (i as i32 - 3));
                    let sp = self.b.ins().splat(I32X4, v);
                    [sp; 8]
                }
                None => self.broken(),
            },
            _ => self.broken(),
        }
    }

    /// A 32-bit source for float arithmetic: possibly a raw `f32` ([`Regs::raw`]).
    fn fsrc32(&mut self, s: &Src) -> [Value; 8] {
        match s {
            Src::Reg(r) => {
                let sl = self.slot(*r);
                match self.get_raw(sl) {
                    Pieces::W32(v) => v,
                    _ => self.broken(),
                }
            }
            _ => self.src32(s),
        }
    }

    /// Writes an `f32` result: raw ([`Regs::raw`]) when `raw`, else as [`Gen::put32`].
    fn put32_f(&mut self, d: &Dst, v: [Value; 8], mask: Option<Value>, raw: bool) {
        if !raw {
            return self.put32(d, v, mask);
        }
        let Dst::Reg(r) = d else { return };
        let s = self.slot(*r);
        self.set(s, Pieces::W32(v));
        self.regs.raw.push(s);
    }

    fn src64(&mut self, s: &Src) -> [Value; 16] {
        match s {
            Src::Reg(r) => match self.reg(*r) {
                Pieces::W64(v) => v,
                _ => self.broken(),
            },
            Src::Imm(v) => {
                let c = self.b.ins().iconst(I64, *v as i64);
                let sp = self.b.ins().splat(I64X2, c);
                [sp; 16]
            }
            _ => self.broken(),
        }
    }

    /// A predicate source as a lane mask (an `i32`).
    fn pred_src(&mut self, s: &Src) -> Value {
        match s {
            Src::Reg(r) => match self.reg(*r) {
                Pieces::Pred(v) => v,
                _ => self.broken(),
            },
            Src::Pred(r, neg) => {
                let v = match self.reg(*r) {
                    Pieces::Pred(v) => v,
                    _ => self.broken(),
                };
                if *neg { self.b.ins().bnot(v) } else { v }
            }
            Src::Imm(v) => self
                .b
                .ins()
                .iconst(I32, if *v != 0 { u32::MAX as i64 } else { 0 }),
            _ => self.broken(),
        }
    }

    /// Writes a 32-bit result in the lanes of `mask` (`None`: every lane; the group's
    /// lanes are applied when the block stores it).
    fn put32(&mut self, d: &Dst, v: [Value; 8], mask: Option<Value>) {
        let Dst::Reg(r) = d else { return };
        let s = self.slot(*r);
        let v = match mask {
            None => v,
            Some(m) => {
                let old = match self.get(s) {
                    Pieces::W32(o) => o,
                    _ => self.broken(),
                };
                std::array::from_fn(|k| {
                    let mk = lane_mask32(self.b, m, k);
                    self.b.ins().bitselect(mk, v[k], old[k])
                })
            }
        };
        self.set(s, Pieces::W32(v));
    }

    fn put64(&mut self, d: &Dst, v: [Value; 16], mask: Option<Value>) {
        let Dst::Reg(r) = d else { return };
        let s = self.slot(*r);
        let v = match mask {
            None => v,
            Some(m) => {
                let old = match self.get(s) {
                    Pieces::W64(o) => o,
                    _ => self.broken(),
                };
                std::array::from_fn(|k| {
                    let mk = lane_mask64(self.b, m, k);
                    self.b.ins().bitselect(mk, v[k], old[k])
                })
            }
        };
        self.set(s, Pieces::W64(v));
    }

    /// Writes a predicate (lane mask `bits`) in the lanes of `lanes` (the group's lanes,
    /// narrowed by the guard).
    fn put_pred(&mut self, d: &Dst, bits: Value, lanes: Value) {
        let Dst::Reg(r) = d else { return };
        let s = self.slot(*r);
        let old = match self.get(s) {
            Pieces::Pred(o) => o,
            _ => self.broken(),
        };
        let keep = self.b.ins().band_not(old, lanes);
        let new = self.b.ins().band(bits, lanes);
        let v = self.b.ins().bor(keep, new);
        self.set(s, Pieces::Pred(v));
    }

    /// Adds the pending instructions ([`Gen::pending`]) to the count.
    fn settle(&mut self) {
        if self.pending == 0 {
            return;
        }
        let c = self.b.ins().imul_imm_s(self.act_count, self.pending as i64);
        let t = self.b.use_var(self.thread_insts);
        let t = self.b.ins().iadd(t, c);
        self.b.def_var(self.thread_insts, t);
        self.pending = 0;
    }

    /// Leaves with `EXIT_AT` at `pc` (a value).
    fn leave_at(&mut self, pc: Value) {
        let pending = self.pending;
        self.settle();
        self.pending = pending;
        // Not a constant PC: everything written is stored.
        self.flush(u32::MAX);
        self.b.ins().store(TRUSTED, pc, self.ctx, off!(exit_pc));
        let code = self.b.ins().iconst(I32, EXIT_AT as i64);
        self.b.def_var(self.exit_code, code);
        self.b.ins().jump(self.exit, &[]);
    }

    /// Leaves with `code` at `pc`. The instructions pending ([`Gen::pending`]) are counted
    /// on this way out; the code this one branches from still has them pending.
    fn leave_const(&mut self, pc: u32, code: u32) {
        let pending = self.pending;
        self.settle();
        self.pending = pending;
        self.flush(pc);
        let p = self.b.ins().iconst(I32, pc as i64);
        self.b.ins().store(TRUSTED, p, self.ctx, off!(exit_pc));
        let c = self.b.ins().iconst(I32, code as i64);
        self.b.def_var(self.exit_code, c);
        self.b.ins().jump(self.exit, &[]);
    }

    /// Gives back `n` warp instructions of room (a block that stops early).
    fn give_back(&mut self, n: u32) {
        if n == 0 {
            return;
        }
        let room = self.b.ins().load(I64, TRUSTED, self.ctx, off!(room));
        let r = self.b.ins().iadd_imm_s(room, n as i64);
        self.b.ins().store(TRUSTED, r, self.ctx, off!(room));
    }

    /// Counts the instruction just run by `lanes`.
    fn count(&mut self, lanes: Value) {
        if lanes == self.act {
            self.pending += 1;
            return;
        }
        let c = self.b.ins().popcnt(lanes);
        let c = self.b.ins().uextend(I64, c);
        let t = self.b.use_var(self.thread_insts);
        let t = self.b.ins().iadd(t, c);
        self.b.def_var(self.thread_insts, t);
    }

    /// Compiles block `[s, e)`.
    fn block(&mut self, s: u32, e: u32, cblocks: &[Block], by_start: &HashMap<u32, usize>) {
        let len = (e - s) as i64;
        self.lp = None;
        let last = &self.f.code[(e - 1) as usize];
        if matches!(last.exec, Exec::Bra { target } if target == s) {
            self.loop_head(s, e);
        }
        // Entry checks: room for the whole block, and no other group at a PC inside it (the
        // group would merge there).
        let room = self.b.ins().load(I64, TRUSTED, self.ctx, off!(room));
        let enough = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, room, len);
        let others = self.b.ins().load(I32, TRUSTED, self.ctx, off!(others));
        let last = self.b.ins().iconst(I32, (e - 1) as i64);
        let clear = self.b.ins().icmp(IntCC::UnsignedGreaterThan, others, last);
        let mut go = self.b.ins().band(enough, clear);
        if self.f.yields.get(s as usize).copied().unwrap_or(false) {
            // A yield point: the turn ends here once its quantum is used up.
            let below = self.b.ins().load(I64, TRUSTED, self.ctx, off!(yield_below));
            let turn = self.b.ins().icmp(IntCC::UnsignedGreaterThan, room, below);
            go = self.b.ins().band(go, turn);
        }
        let body = self.b.create_block();
        let out = self.b.create_block();
        self.b.ins().brif(go, body, &[], out, &[]);
        self.b.switch_to_block(out);
        let regs = self.regs.clone();
        self.leave_const(s, EXIT_AT);
        self.regs = regs;
        self.b.switch_to_block(body);
        let r = self.b.ins().iadd_imm_s(room, -len);
        self.b.ins().store(TRUSTED, r, self.ctx, off!(room));
        for pc in s..e {
            let inst = &self.f.code[pc as usize];
            let lanes = match inst.guard {
                None => self.act,
                Some((p, neg)) => {
                    let v = self.pred_src(&Src::Pred(p, neg));
                    self.b.ins().band(v, self.act)
                }
            };
            let mask = inst.guard.map(|_| lanes);
            match self.inst(inst, pc, lanes, mask, e) {
                Flow::Next => self.count(lanes),
                Flow::Branch(target, taken) => {
                    // The last instruction of the block.
                    self.branch(pc, target, taken, cblocks, by_start);
                    return;
                }
            }
        }
        // Falls through to `e`.
        self.go_to(e, cblocks, by_start);
    }

    /// Starts the loop block `[s, e)` ([`LoopBack`]): loads the registers live at `s` that
    /// the block names into variables, and continues in the loop's head with them cached
    /// (and counted as written, so every way out stores them).
    fn loop_head(&mut self, s: u32, e: u32) {
        let Some(live) = &self.live else { return };
        let mut named = Vec::new();
        // The registers the block writes (guarded or not): the others, loaded from the
        // banks and never changed, need no storing.
        let mut written = Vec::new();
        for inst in &self.f.code[s as usize..e as usize] {
            inst.exec.each_reg(&mut |r| named.push(r));
            if let Some((p, _)) = inst.guard {
                named.push(p);
            }
            let unguarded = DInst {
                guard: None,
                ..inst.clone()
            };
            match reg_io(&unguarded) {
                Some((_, d)) => written.extend(d),
                // Not compiled (cannot be in a block): count everything as written.
                None => inst.exec.each_reg(&mut |r| written.push(r)),
            }
        }
        named.sort_unstable();
        named.dedup();
        named.retain(|&r| live.at(s, r));
        let mut vars = Vec::with_capacity(named.len());
        for r in named {
            let Some(&slot) = self.f.reg_slots.get(r as usize) else {
                continue;
            };
            let wide = matches!(slot, RegSlot::B64(_));
            if let Some(x) = self.scalar(&Src::Reg(r), s, wide) {
                let var = self.b.declare_var(if wide { I64 } else { I32 });
                self.b.def_var(var, x);
                vars.push((slot, vec![var], true));
                continue;
            }
            let p = self.get_raw(slot);
            let vs: Vec<Variable> = p
                .values()
                .into_iter()
                .map(|x| {
                    let var = self.b.declare_var(p.ty());
                    self.b.def_var(var, x);
                    var
                })
                .collect();
            vars.push((slot, vs, false));
        }
        let hdr = self.b.create_block();
        self.b.ins().jump(hdr, &[]);
        self.b.switch_to_block(hdr);
        self.regs = Regs::default();
        for (slot, vs, scalar) in &vars {
            let r = self.slot_reg.get(slot).copied();
            let written = r.is_some_and(|r| written.contains(&r));
            if *scalar {
                let x = self.b.use_var(vs[0]);
                let p = self.splat_pieces(x, matches!(slot, RegSlot::B64(_)));
                if written {
                    self.set(*slot, p);
                } else {
                    self.regs.vals.insert(*slot, p);
                }
                self.regs.uni.insert(*slot, x);
                continue;
            }
            let p = Pieces::of(*slot, |k| self.b.use_var(vs[k]));
            if written {
                self.set(*slot, p);
            } else {
                self.regs.vals.insert(*slot, p);
            }
        }
        self.lp = Some(LoopBack {
            start: s,
            hdr,
            vars,
        });
    }

    /// Continues at `pc` after the block: into its compiled block when the group stays the
    /// selected one, else out.
    fn go_to(&mut self, pc: u32, cblocks: &[Block], by_start: &HashMap<u32, usize>) {
        self.settle();
        let others = self.b.ins().load(I32, TRUSTED, self.ctx, off!(others));
        let below = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, others, pc as i64 + 1);
        match by_start.get(&pc) {
            Some(&k) => {
                let out = self.b.create_block();
                self.flush(pc);
                self.b.ins().brif(below, out, &[], cblocks[k], &[]);
                self.b.switch_to_block(out);
                if self.merges.contains(&pc) {
                    self.merge(pc);
                }
                self.leave_const(pc, EXIT_AT);
            }
            None => self.leave_const(pc, EXIT_AT),
        }
    }

    /// A divergent `bra` at `pc` to `target`, its registers stored and its lanes `taken`:
    /// [`jit_diverge`] decides whether the code takes it on itself (the lanes that go on
    /// continue here as the group from the branch's lower PC, the others wait), else the
    /// code leaves at `pc` for the warp engine.
    fn diverge(&mut self, pc: u32, target: u32, taken: Value) {
        let c = self.ctx;
        let ppc = self.b.ins().iconst(I32, pc as i64);
        let tpc = self.b.ins().iconst(I32, target as i64);
        let call = self.b.ins().call(self.diverge_fn, &[c, taken, ppc, tpc]);
        let ok = self.b.inst_results(call)[0];
        let go = self.b.create_block();
        let out = self.b.create_block();
        self.b.ins().brif(ok, go, &[], out, &[]);
        self.b.switch_to_block(out);
        self.give_back(1);
        self.leave_const(pc, EXIT_AT);
        self.b.switch_to_block(go);
        self.count(taken);
        let next = self.b.ins().iconst(I32, run_pc(pc, target) as i64);
        self.b.ins().jump(self.dispatch, &[next.into()]);
    }

    /// At the merge point `pc`, where the group has to leave (another group is at or
    /// before `pc`): when that is the lanes a divergence left waiting here, [`jit_merge`]
    /// makes the two one group, as `select` would, and it goes on here.
    fn merge(&mut self, pc: u32) {
        let c = self.ctx;
        let at = self.b.ins().iconst(I32, pc as i64);
        let call = self.b.ins().call(self.merge_fn, &[c, at, at]);
        let ok = self.b.inst_results(call)[0];
        let go = self.b.create_block();
        let out = self.b.create_block();
        self.b.ins().brif(ok, go, &[], out, &[]);
        self.b.switch_to_block(go);
        self.b.ins().jump(self.dispatch, &[at.into()]);
        self.b.switch_to_block(out);
    }

    /// `bra` at `pc`: the whole group jumps, none does, or it diverges (the warp engine
    /// takes the branch).
    fn branch(
        &mut self,
        pc: u32,
        target: u32,
        taken: Value,
        cblocks: &[Block],
        by_start: &HashMap<u32, usize>,
    ) {
        self.settle();
        if self.lp.as_ref().is_some_and(|l| l.start == target) {
            return self.loop_branch(pc, target, taken, cblocks, by_start);
        }
        self.flush(pc);
        let all = self.b.create_block();
        let not_all = self.b.create_block();
        let none = self.b.create_block();
        let diverged = self.b.create_block();
        let is_all = self.b.ins().icmp(IntCC::Equal, taken, self.act);
        self.b.ins().brif(is_all, all, &[], not_all, &[]);
        self.b.switch_to_block(not_all);
        let is_none = self.b.ins().icmp_imm_s(IntCC::Equal, taken, 0);
        self.b.ins().brif(is_none, none, &[], diverged, &[]);
        // Divergence: the branch is the warp engine's, or, forward to a merge point, the
        // code's own.
        self.b.switch_to_block(diverged);
        if self.merges.contains(&wait_pc(pc, target)) {
            self.diverge(pc, target, taken);
        } else {
            self.give_back(1);
            self.leave_const(pc, EXIT_AT);
        }
        // No lane jumps: the branch ran (counted, no spin change); on to pc + 1.
        self.b.switch_to_block(none);
        self.count(taken);
        self.go_to(pc + 1, cblocks, by_start);
        // Every lane jumps.
        self.b.switch_to_block(all);
        self.count(taken);
        if target <= pc {
            // Backward: one more spin; at SPIN_YIELD the group is selected again.
            let t = self.b.ins().load(I32, TRUSTED, self.ctx, off!(spin_taken));
            let t = self.b.ins().iadd_imm_s(t, 1);
            self.b.ins().store(TRUSTED, t, self.ctx, off!(spin_taken));
            let spun = self.spun(t);
            let reselect = self.b.create_block();
            let cont = self.b.create_block();
            self.b.ins().brif(spun, reselect, &[], cont, &[]);
            self.b.switch_to_block(reselect);
            self.leave_const(target, EXIT_RESELECT);
            self.b.switch_to_block(cont);
        } else {
            let zero = self.b.ins().iconst(I32, 0);
            let one = self.b.ins().iconst(I32, 1);
            self.b
                .ins()
                .store(TRUSTED, zero, self.ctx, off!(spin_taken));
            self.b.ins().store(TRUSTED, zero, self.ctx, off!(spin_max));
            self.b
                .ins()
                .store(TRUSTED, one, self.ctx, off!(spin_zeroed));
        }
        self.go_to(target, cblocks, by_start);
    }

    /// Whether the group's backward branches in a row, `taken` (the new `spin_taken`) on top
    /// of the warp's earlier maximum unless that was zeroed, reach [`SPIN_YIELD`].
    fn spun(&mut self, taken: Value) -> Value {
        let z = self.b.ins().load(I32, TRUSTED, self.ctx, off!(spin_zeroed));
        let m = self.b.ins().load(I32, TRUSTED, self.ctx, off!(spin_max));
        let zero = self.b.ins().iconst(I32, 0);
        let base = self.b.ins().select(z, zero, m);
        let hi = self.b.ins().iadd(base, taken);
        self.b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, hi, SPIN_YIELD as i64)
    }

    /// The branch back to the start of a [`LoopBack`] block: what [`Gen::branch`] does, but
    /// when the whole group jumps, no spin limit is reached and no other group is at a PC
    /// inside the loop, straight into the loop's head with the carried registers
    /// (NaN-canonicalised: the head takes them as stored values) — decided in this block, so
    /// that the values the ways out store are computed here once (Cranelift places a pure
    /// value at its uses: with uses only in sibling blocks, each would get a copy of the
    /// loop's code).
    fn loop_branch(
        &mut self,
        pc: u32,
        target: u32,
        taken: Value,
        cblocks: &[Block],
        by_start: &HashMap<u32, usize>,
    ) {
        let Some(lp) = self.lp.take() else { return };
        let is_all = self.b.ins().icmp(IntCC::Equal, taken, self.act);
        // A backward branch taken by all: one more spin (stored whatever the way on).
        let t = self.b.ins().load(I32, TRUSTED, self.ctx, off!(spin_taken));
        let t1 = self.b.ins().iadd_imm_s(t, 1);
        let t_new = self.b.ins().select(is_all, t1, t);
        self.b
            .ins()
            .store(TRUSTED, t_new, self.ctx, off!(spin_taken));
        let spun = self.spun(t1);
        let others = self.b.ins().load(I32, TRUSTED, self.ctx, off!(others));
        let below = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, others, target as i64 + 1);
        let stop = self.b.ins().bor(spun, below);
        let on = self.b.ins().band_not(is_all, stop);
        let uncounted = self.b.use_var(self.thread_insts);
        self.count(taken);
        self.settle();
        for (slot, vs, scalar) in &lp.vars {
            if *scalar {
                let x = match self.regs.uni.get(slot) {
                    Some(&x) => x,
                    None => self.lane_scalar(*slot),
                };
                self.b.def_var(vs[0], x);
                continue;
            }
            for (var, x) in vs.iter().zip(self.get(*slot).values()) {
                self.b.def_var(*var, x);
            }
        }
        let slow = self.b.create_block();
        self.b.ins().brif(on, lp.hdr, &[], slow, &[]);
        // Every other case, as `branch` (the spin count is stored already).
        self.b.switch_to_block(slow);
        let all = self.b.create_block();
        let not_all = self.b.create_block();
        let none = self.b.create_block();
        let diverged = self.b.create_block();
        self.b.ins().brif(is_all, all, &[], not_all, &[]);
        self.b.switch_to_block(not_all);
        let is_none = self.b.ins().icmp_imm_s(IntCC::Equal, taken, 0);
        self.b.ins().brif(is_none, none, &[], diverged, &[]);
        self.b.switch_to_block(diverged);
        self.b.def_var(self.thread_insts, uncounted);
        let regs = self.regs.clone();
        if self.merges.contains(&wait_pc(pc, target)) {
            self.flush(pc);
            self.diverge(pc, target, taken);
        } else {
            self.give_back(1);
            self.leave_const(pc, EXIT_AT);
        }
        self.regs = regs.clone();
        self.b.switch_to_block(none);
        self.go_to(pc + 1, cblocks, by_start);
        self.regs = regs;
        self.b.switch_to_block(all);
        let reselect = self.b.create_block();
        let out = self.b.create_block();
        self.b.ins().brif(spun, reselect, &[], out, &[]);
        self.b.switch_to_block(reselect);
        let regs = self.regs.clone();
        self.leave_const(target, EXIT_RESELECT);
        self.regs = regs;
        self.b.switch_to_block(out);
        self.leave_const(target, EXIT_AT);
    }

    /// One instruction. `lanes`: the lanes it runs for (a lane mask); `mask`: the same
    /// when it is narrower than the group (a guard).
    fn inst(
        &mut self,
        inst: &DInst,
        pc: u32,
        lanes: Value,
        mask: Option<Value>,
        block_end: u32,
    ) -> Flow {
        use IntOp::*;
        match &inst.exec {
            Exec::Mov { d, a, bits } => {
                if mask.is_none()
                    && let Some(x) = self.scalar(a, pc, *bits == 64)
                {
                    self.set_uni(d, x, *bits == 64);
                    return Flow::Next;
                }
                if *bits == 32 {
                    let v = self.src32(a);
                    self.put32(d, v, mask);
                } else {
                    let v = self.src64(a);
                    self.put64(d, v, mask);
                }
            }
            Exec::Int { op, ty, d, a, b } if ty.bits() == 32 => {
                let signed = ty.class() == ptxvm_ir::types::Class::Signed;
                if mask.is_none()
                    && let Some(x) = self.int_scalar(*op, signed, a, b, pc, false)
                {
                    self.set_uni(d, x, false);
                    return Flow::Next;
                }
                if *op == MulWide {
                    let (x, y) = (self.src32(a), self.src32(b));
                    let v: [Value; 16] = std::array::from_fn(|j| {
                        let (xk, yk) = (x[j / 2], y[j / 2]);
                        let (xw, yw) = if j % 2 == 0 {
                            if signed {
                                (self.b.ins().swiden_low(xk), self.b.ins().swiden_low(yk))
                            } else {
                                (self.b.ins().uwiden_low(xk), self.b.ins().uwiden_low(yk))
                            }
                        } else if signed {
                            (self.b.ins().swiden_high(xk), self.b.ins().swiden_high(yk))
                        } else {
                            (self.b.ins().uwiden_high(xk), self.b.ins().uwiden_high(yk))
                        };
                        self.b.ins().imul(xw, yw)
                    });
                    self.put64(d, v, mask);
                    return Flow::Next;
                }
                let x = self.src32(a);
                let v: [Value; 8] = match (op, b) {
                    (Shl | Shr, Src::Imm(n)) => {
                        let n = *n as u32;
                        std::array::from_fn(|k| match (op, signed) {
                            (Shl, _) if n >= 32 => {
                                let z = self.b.ins().iconst(I32, 0);
                                self.b.ins().splat(I32X4, z)
                            }
                            (Shl, _) => self.b.ins().ishl_imm_u(x[k], n as i64),
                            (_, true) => self.b.ins().sshr_imm_u(x[k], n.min(31) as i64),
                            (_, false) if n >= 32 => {
                                let z = self.b.ins().iconst(I32, 0);
                                self.b.ins().splat(I32X4, z)
                            }
                            _ => self.b.ins().ushr_imm_u(x[k], n as i64),
                        })
                    }
                    _ => {
                        let y = self.src32(b);
                        std::array::from_fn(|k| {
                            let (p, q) = (x[k], y[k]);
                            match (op, signed) {
                                (Add, _) => self.b.ins().iadd(p, q),
                                (Sub, _) => self.b.ins().isub(p, q),
                                (MulLo, _) => self.b.ins().imul(p, q),
                                (And, _) => self.b.ins().band(p, q),
                                (Or, _) => self.b.ins().bor(p, q),
                                (Xor, _) => self.b.ins().bxor(p, q),
                                (Min, true) => self.b.ins().smin(p, q),
                                (Min, false) => self.b.ins().umin(p, q),
                                (Max, true) => self.b.ins().smax(p, q),
                                _ => self.b.ins().umax(p, q),
                            }
                        })
                    }
                };
                self.put32(d, v, mask);
            }
            Exec::Int { op, ty, d, a, b } => {
                let signed = ty.class() == ptxvm_ir::types::Class::Signed;
                if mask.is_none()
                    && ty.bits() == 64
                    && let Some(x) = self.int_scalar(*op, signed, a, b, pc, true)
                {
                    self.set_uni(d, x, true);
                    return Flow::Next;
                }
                let x = self.src64(a);
                let v: [Value; 16] = match (op, b) {
                    (Shl | Shr, Src::Imm(n)) => {
                        let n = *n as u32;
                        std::array::from_fn(|k| match (op, signed) {
                            (Shl, _) if n >= 64 => {
                                let z = self.b.ins().iconst(I64, 0);
                                self.b.ins().splat(I64X2, z)
                            }
                            (Shl, _) => self.b.ins().ishl_imm_u(x[k], n as i64),
                            (_, true) => self.b.ins().sshr_imm_u(x[k], n.min(63) as i64),
                            (_, false) if n >= 64 => {
                                let z = self.b.ins().iconst(I64, 0);
                                self.b.ins().splat(I64X2, z)
                            }
                            _ => self.b.ins().ushr_imm_u(x[k], n as i64),
                        })
                    }
                    _ => {
                        let y = self.src64(b);
                        std::array::from_fn(|k| {
                            let (p, q) = (x[k], y[k]);
                            match op {
                                Add => self.b.ins().iadd(p, q),
                                Sub => self.b.ins().isub(p, q),
                                And => self.b.ins().band(p, q),
                                Or => self.b.ins().bor(p, q),
                                _ => self.b.ins().bxor(p, q),
                            }
                        })
                    }
                };
                self.put64(d, v, mask);
            }
            Exec::Mad {
                mode,
                ty,
                d,
                a,
                b,
                c,
                ..
            } => {
                let signed = ty.class() == ptxvm_ir::types::Class::Signed;
                if *mode == MulWide {
                    let (x, y, z) = (self.src32(a), self.src32(b), self.src64(c));
                    let v: [Value; 16] = std::array::from_fn(|j| {
                        let (xk, yk) = (x[j / 2], y[j / 2]);
                        let (xw, yw) = if j % 2 == 0 {
                            if signed {
                                (self.b.ins().swiden_low(xk), self.b.ins().swiden_low(yk))
                            } else {
                                (self.b.ins().uwiden_low(xk), self.b.ins().uwiden_low(yk))
                            }
                        } else if signed {
                            (self.b.ins().swiden_high(xk), self.b.ins().swiden_high(yk))
                        } else {
                            (self.b.ins().uwiden_high(xk), self.b.ins().uwiden_high(yk))
                        };
                        let p = self.b.ins().imul(xw, yw);
                        self.b.ins().iadd(p, z[j])
                    });
                    self.put64(d, v, mask);
                } else {
                    let (x, y, z) = (self.src32(a), self.src32(b), self.src32(c));
                    let v: [Value; 8] = std::array::from_fn(|k| {
                        let p = self.b.ins().imul(x[k], y[k]);
                        self.b.ins().iadd(p, z[k])
                    });
                    self.put32(d, v, mask);
                }
            }
            Exec::Float {
                op,
                ftz,
                sat,
                nan,
                d,
                a,
                b,
                ..
            } => {
                let (x, y) = (self.fsrc32(a), self.fsrc32(b));
                let _ = nan;
                let raw = !*sat && mask.is_none();
                let v: [Value; 8] = std::array::from_fn(|k| {
                    let p = self.f32_in(x[k], *ftz);
                    let q = self.f32_in(y[k], *ftz);
                    let r = match op {
                        FOp::Add => self.b.ins().fadd(p, q),
                        FOp::Sub => self.b.ins().fsub(p, q),
                        _ => self.b.ins().fmul(p, q),
                    };
                    self.f32_result(r, *ftz, *sat, raw)
                });
                self.put32_f(d, v, mask, raw);
            }
            Exec::Fma {
                ftz,
                sat,
                d,
                a,
                b,
                c,
                ..
            } => {
                let (x, y, z) = (self.fsrc32(a), self.fsrc32(b), self.fsrc32(c));
                let raw = !*sat && mask.is_none();
                let v: [Value; 8] = std::array::from_fn(|k| {
                    let p = self.f32_in(x[k], *ftz);
                    let q = self.f32_in(y[k], *ftz);
                    let s = self.f32_in(z[k], *ftz);
                    let r = self.b.ins().fma(p, q, s);
                    self.f32_result(r, *ftz, *sat, raw)
                });
                self.put32_f(d, v, mask, raw);
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
                if let (Cmp::Int(op, unsigned), None, 32 | 64) = (cmp, bop, ty.bits()) {
                    let wide = ty.bits() == 64;
                    if let Some(x) = self.scalar(a, pc, wide)
                        && let Some(y) = self.scalar(b, pc, wide)
                    {
                        let c = self.b.ins().icmp(int_cc(*op, *unsigned), x, y);
                        let t = self.b.ins().iconst(I32, u32::MAX as i64);
                        let z = self.b.ins().iconst(I32, 0);
                        let r = self.b.ins().select(c, t, z);
                        let nr = self.b.ins().bnot(r);
                        self.put_pred(p, r, lanes);
                        self.put_pred(q, nr, lanes);
                        return Flow::Next;
                    }
                }
                let r = self.compare(*cmp, *ty, *ftz, a, b);
                let nr = self.b.ins().bnot(r);
                let (r, nr) = match bop {
                    Some((op, c)) => {
                        let c = self.pred_src(c);
                        (self.bool_op(*op, r, c), self.bool_op(*op, nr, c))
                    }
                    None => (r, nr),
                };
                self.put_pred(p, r, lanes);
                self.put_pred(q, nr, lanes);
            }
            Exec::Selp { d, a, b, c, bits } => {
                let c = self.pred_src(c);
                if *bits == 32 {
                    let (x, y) = (self.src32(a), self.src32(b));
                    let v: [Value; 8] = std::array::from_fn(|k| {
                        let m = lane_mask32(self.b, c, k);
                        self.b.ins().bitselect(m, x[k], y[k])
                    });
                    self.put32(d, v, mask);
                } else {
                    let (x, y) = (self.src64(a), self.src64(b));
                    let v: [Value; 16] = std::array::from_fn(|k| {
                        let m = lane_mask64(self.b, c, k);
                        self.b.ins().bitselect(m, x[k], y[k])
                    });
                    self.put64(d, v, mask);
                }
            }
            Exec::PredOp { op, d, a, b } => {
                let x = self.pred_src(a);
                let v = match op {
                    None => self.b.ins().bnot(x),
                    Some(o) => {
                        let y = self.pred_src(b);
                        self.bool_op(*o, x, y)
                    }
                };
                self.put_pred(d, v, lanes);
            }
            Exec::Warp {
                op: WarpOp::Shfl(mode),
                d,
                p,
                a,
                b,
                c,
                mask: mm,
            } => {
                // With `b`, `c` and the membermask uniform, a whole warp (every lane in the
                // group, membermask all lanes) shuffles in native code: the source lanes and
                // their validity are the same arithmetic as `shfl_lane`'s on lane vectors,
                // and `a` is gathered from a stack copy. Else (and when the run-time check
                // fails) `jit_shfl` runs it, as below.
                let bs = self.scalar(b, pc, false);
                let cs = self.scalar(c, pc, false);
                let ms = match mm {
                    None => Some(None),
                    Some(m) => self.scalar(m, pc, false).map(Some),
                };
                let av = self.src32(a);
                // Stored before the branch, so both ways leave the registers alike.
                self.store_dirty(pc);
                let join = self.b.create_block();
                for _ in 0..8 {
                    self.b.append_block_param(join, I32X4);
                }
                self.b.append_block_param(join, I32);
                let slow = self.b.create_block();
                if let (Some(bs), Some(cs), Some(ms)) = (bs, cs, ms) {
                    let whole = self.b.ins().icmp_imm_s(IntCC::Equal, lanes, -1);
                    let ok = match ms {
                        Some(m) => {
                            let all = self.b.ins().icmp_imm_s(IntCC::Equal, m, -1);
                            self.b.ins().band(whole, all)
                        }
                        None => whole,
                    };
                    let fast = self.b.create_block();
                    self.b.ins().brif(ok, fast, &[], slow, &[]);
                    self.b.switch_to_block(fast);
                    let (v, bits) = self.shfl_native(*mode, &av, bs, cs);
                    let mut args: Vec<cranelift_codegen::ir::BlockArg> =
                        v.iter().map(|x| (*x).into()).collect();
                    args.push(bits.into());
                    self.b.ins().jump(join, &args);
                } else {
                    self.b.ins().jump(slow, &[]);
                }
                self.b.switch_to_block(slow);
                // a, b as the 64 words of `ctx.addr`; c and the membermask as those of
                // `ctx.val` (see `jit_shfl`).
                let srcs = [(a, off!(addr)), (b, off!(addr) + 128), (c, off!(val))];
                for (s, at) in srcs {
                    let v = self.src32(s);
                    for (k, x) in v.iter().enumerate() {
                        self.b
                            .ins()
                            .store(TRUSTED, *x, self.ctx, at + 16 * k as i32);
                    }
                }
                if let Some(m) = mm {
                    let v = self.src32(m);
                    for (k, x) in v.iter().enumerate() {
                        self.b
                            .ins()
                            .store(TRUSTED, *x, self.ctx, off!(val) + 128 + 16 * k as i32);
                    }
                }
                self.b.ins().store(TRUSTED, lanes, self.ctx, off!(act));
                let code = match mode {
                    ShflMode::Up => 0,
                    ShflMode::Down => 1,
                    ShflMode::Bfly => 2,
                    ShflMode::Idx => 3,
                };
                let mode_v = self.b.ins().iconst(I32, code);
                let has = self.b.ins().iconst(I32, mm.is_some() as i64);
                let call = self.b.ins().call(self.shfl, &[self.ctx, mode_v, has]);
                let ok = self.b.inst_results(call)[0];
                self.b.ins().store(TRUSTED, self.act, self.ctx, off!(act));
                self.or_leave(ok, pc, block_end);
                let v: [Value; 8] = std::array::from_fn(|k| {
                    self.b
                        .ins()
                        .load(I32X4, TRUSTED, self.ctx, off!(val) + 16 * k as i32)
                });
                let bits = self.b.ins().load(I32, TRUSTED, self.ctx, off!(aux));
                let mut args: Vec<cranelift_codegen::ir::BlockArg> =
                    v.iter().map(|x| (*x).into()).collect();
                args.push(bits.into());
                self.b.ins().jump(join, &args);
                self.b.switch_to_block(join);
                let ps = self.b.block_params(join).to_vec();
                let v: [Value; 8] = std::array::from_fn(|k| ps[k]);
                self.put32(d, v, mask);
                self.put_pred(p, ps[8], lanes);
            }
            Exec::Ld {
                space,
                ty,
                ds,
                addr: Addr::Reg(r, off),
            } => {
                let v = self.memory(pc, block_end, *space, ty.bytes(), *r, *off, lanes, None);
                match v {
                    Some(Pieces::W32(v)) => self.put32(&ds[0], v, mask),
                    Some(Pieces::W64(v)) => self.put64(&ds[0], v, mask),
                    _ => {}
                }
            }
            Exec::St {
                space,
                ty,
                srcs,
                addr: Addr::Reg(r, off),
            } => {
                let val = if ty.bytes() == 4 {
                    Pieces::W32(self.src32(&srcs[0]))
                } else {
                    Pieces::W64(self.src64(&srcs[0]))
                };
                self.memory(
                    pc,
                    block_end,
                    *space,
                    ty.bytes(),
                    *r,
                    *off,
                    lanes,
                    Some(val),
                );
            }
            Exec::Ld {
                space: MemSpace::Param,
                ty,
                ds,
                addr: Addr::Var(VarLoc::KernelParam(o), off),
            } => {
                // The same value for every lane, when the buffer holds it (else the warp
                // engine reads it and reports the fault).
                let at = *o as i64 + off;
                let wd = ty.bytes() as i64;
                let len = self.b.ins().load(I64, TRUSTED, self.ctx, off!(kparams_len));
                let ok = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, len, at + wd);
                self.store_dirty(pc);
                self.or_leave(ok, pc, block_end);
                let base = self.b.ins().load(I64, TRUSTED, self.ctx, off!(kparams));
                let flags = MemFlagsData::new()
                    .with_endianness(Endianness::Little)
                    .with_notrap();
                if wd == 4 {
                    let x = self.b.ins().load(I32, flags, base, at as i32);
                    let v = self.b.ins().splat(I32X4, x);
                    self.put32(&ds[0], [v; 8], mask);
                } else {
                    let x = self.b.ins().load(I64, flags, base, at as i32);
                    let v = self.b.ins().splat(I64X2, x);
                    self.put64(&ds[0], [v; 16], mask);
                }
            }
            Exec::Cvta { d, a, .. } => {
                // Global addresses are generic addresses.
                let v = self.src64(a);
                self.put64(d, v, mask);
            }
            Exec::Bra { target } => return Flow::Branch(*target, lanes),
            _ => self.broken(),
        }
        Flow::Next
    }

    /// A load or store through the helpers: addresses (and the value) to the context,
    /// the call with the lanes the access is for; when the helper cannot, the block stops
    /// before this instruction and the warp engine makes the access.
    #[allow(clippy::too_many_arguments)]
    fn memory(
        &mut self,
        pc: u32,
        block_end: u32,
        space: MemSpace,
        wd: u32,
        r: u32,
        off: i64,
        lanes: Value,
        val: Option<Pieces>,
    ) -> Option<Pieces> {
        let base = self.reg(r);
        if let Pieces::Pred(_) = base {
            self.broken::<()>();
        }
        // The registers written so far are stored before the access, so the path that
        // stops before this instruction has nothing to store (one copy of the stores per
        // access, not one per access and exit: code size linear in the block).
        self.store_dirty(pc);
        let four = wd == 4;
        let slow = self.b.create_block();
        let join = self.b.create_block();
        let nvals = if val.is_some() {
            0
        } else if four {
            8
        } else {
            16
        };
        for _ in 0..nvals {
            let ty = if four { I32X4 } else { I64X2 };
            self.b.append_block_param(join, ty);
        }
        // An address register that steps by the access size in every lane ([`Affine`]).
        let lin = self
            .affine
            .as_ref()
            .and_then(|a| a.at(pc, r))
            .filter(|&(s, _)| matches!(wd, 4 | 8) && s == wd as i32);
        match lin {
            Some((_, tid)) if space == MemSpace::Shared => {
                let other = self.b.create_block();
                self.lin_access(
                    wd,
                    space,
                    lanes,
                    &base,
                    off,
                    tid,
                    val.as_ref(),
                    slow,
                    join,
                    other,
                );
                self.b.switch_to_block(other);
                self.shared_lanes(wd, lanes, &base, off, val.as_ref(), slow, join);
            }
            Some((_, tid)) => {
                let other = self.b.create_block();
                self.lin_access(
                    wd,
                    space,
                    lanes,
                    &base,
                    off,
                    tid,
                    val.as_ref(),
                    slow,
                    join,
                    other,
                );
                self.b.switch_to_block(other);
                self.run_access(wd, space, lanes, &base, off, val.as_ref(), slow, join);
            }
            None if matches!(wd, 4 | 8) && space != MemSpace::Shared => {
                self.run_access(wd, space, lanes, &base, off, val.as_ref(), slow, join);
            }
            None if matches!(wd, 4 | 8) => {
                self.shared_lanes(wd, lanes, &base, off, val.as_ref(), slow, join);
            }
            None => {
                self.b.ins().jump(slow, &[]);
            }
        }
        self.b.switch_to_block(slow);
        for k in 0..16 {
            let a = self.addr_piece(&base, off, k);
            self.b
                .ins()
                .store(TRUSTED, a, self.ctx, off!(addr) + 16 * k as i32);
        }
        match val {
            Some(Pieces::W32(v)) => {
                for (k, x) in v.iter().enumerate() {
                    let lo = self.b.ins().uwiden_low(*x);
                    let hi = self.b.ins().uwiden_high(*x);
                    self.b
                        .ins()
                        .store(TRUSTED, lo, self.ctx, off!(val) + 32 * k as i32);
                    self.b
                        .ins()
                        .store(TRUSTED, hi, self.ctx, off!(val) + 32 * k as i32 + 16);
                }
            }
            Some(Pieces::W64(v)) => {
                for (k, x) in v.iter().enumerate() {
                    self.b
                        .ins()
                        .store(TRUSTED, *x, self.ctx, off!(val) + 16 * k as i32);
                }
            }
            _ => {}
        }
        // The helper reads the lanes from `act`: narrow it to this instruction's lanes for
        // the call, then restore it.
        self.b.ins().store(TRUSTED, lanes, self.ctx, off!(act));
        let sp = self
            .b
            .ins()
            .iconst(I32, space_code(space).unwrap_or(0) as i64);
        let w = self.b.ins().iconst(I32, wd as i64);
        let f = if val.is_some() {
            self.scatter
        } else {
            self.gather
        };
        let call = self.b.ins().call(f, &[self.ctx, sp, w]);
        let ok = self.b.inst_results(call)[0];
        self.b.ins().store(TRUSTED, self.act, self.ctx, off!(act));
        self.or_leave(ok, pc, block_end);
        let loaded = val.is_none().then(|| self.load_val(four));
        let args: Vec<cranelift_codegen::ir::BlockArg> = match &loaded {
            Some(Pieces::W32(v)) => v.iter().map(|x| (*x).into()).collect(),
            Some(Pieces::W64(v)) => v.iter().map(|x| (*x).into()).collect(),
            _ => Vec::new(),
        };
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        let ps = self.b.block_params(join).to_vec();
        loaded.map(|l| match l {
            Pieces::W32(_) => Pieces::W32(std::array::from_fn(|k| ps[k])),
            _ => Pieces::W64(std::array::from_fn(|k| ps[k])),
        })
    }

    /// `shfl.sync` of mode `mode` for a whole warp with uniform `b` and `c` (`I32`
    /// scalars): the results and the predicate's lane bits. Per lane, `shfl_lane`'s rule
    /// (§9.7.8.6) on lane vectors: `max = (lane & seg) | (c & 31 & !seg)` with
    /// `seg = (c >> 8) & 31`; the source `j` (up: `lane - b`, down: `lane + b`, bfly:
    /// `lane ^ b`, idx: `(lane & seg) | (b & !seg)`, `b & 31`) is valid when
    /// `j >= max` (up) or `j <= max` (the others) and `0 <= j < 32`; an invalid lane reads
    /// its own value. `a` is gathered lane by lane from a stack copy.
    fn shfl_native(
        &mut self,
        mode: ShflMode,
        a: &[Value; 8],
        b: Value,
        c: Value,
    ) -> ([Value; 8], Value) {
        let bv = self.b.ins().band_imm_s(b, 31);
        let cv = self.b.ins().band_imm_s(c, 31);
        let seg = self.b.ins().ushr_imm_s(c, 8);
        let seg = self.b.ins().band_imm_s(seg, 31);
        let top = self.b.ins().band_not(cv, seg);
        let (segv, topv, bvv) = (
            self.b.ins().splat(I32X4, seg),
            self.b.ins().splat(I32X4, top),
            self.b.ins().splat(I32X4, bv),
        );
        let bidx = self.b.ins().band_not(bv, seg);
        let bidxv = self.b.ins().splat(I32X4, bidx);
        let n32 = self.b.ins().iconst(I32, 32);
        let n32 = self.b.ins().splat(I32X4, n32);
        // `a` in a stack slot (the scratch slot's first 128 bytes).
        let ss = self.scratch_slot();
        let base = self.b.ins().stack_addr(I64, ss, 0);
        for (k, x) in a.iter().enumerate() {
            self.b.ins().store(TRUSTED, *x, base, 16 * k as i32);
        }
        let mut out = [a[0]; 8];
        let mut bits: Option<Value> = None;
        for (k, o) in out.iter_mut().enumerate() {
            let mut bytes = Vec::with_capacity(16);
            for l in 0..4u32 {
                bytes.extend_from_slice(&(4 * k as u32 + l).to_le_bytes());
            }
            let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
            let lane = self.b.ins().vconst(I32X4, c);
            let low = self.b.ins().band(lane, segv);
            let max = self.b.ins().bor(low, topv);
            let (j, cc) = match mode {
                ShflMode::Up => (
                    self.b.ins().isub(lane, bvv),
                    IntCC::SignedGreaterThanOrEqual,
                ),
                ShflMode::Down => (self.b.ins().iadd(lane, bvv), IntCC::SignedLessThanOrEqual),
                ShflMode::Bfly => (self.b.ins().bxor(lane, bvv), IntCC::SignedLessThanOrEqual),
                ShflMode::Idx => (self.b.ins().bor(low, bidxv), IntCC::SignedLessThanOrEqual),
            };
            let ok = self.b.ins().icmp(cc, j, max);
            let inr = self.b.ins().icmp(IntCC::UnsignedLessThan, j, n32);
            let ok = self.b.ins().band(ok, inr);
            let src = self.b.ins().bitselect(ok, j, lane);
            let hb = self.b.ins().vhigh_bits(I32, ok);
            let hb = if k == 0 {
                hb
            } else {
                self.b.ins().ishl_imm_s(hb, 4 * k as i64)
            };
            bits = Some(match bits {
                None => hb,
                Some(x) => self.b.ins().bor(x, hb),
            });
            let mut v = a[k];
            for l in 0..4u8 {
                let i = self.b.ins().extractlane(src, l);
                let i = self.b.ins().uextend(I64, i);
                let off = self.b.ins().ishl_imm_s(i, 2);
                let at = self.b.ins().iadd(base, off);
                let x = self.b.ins().load(I32, TRUSTED, at, 0);
                v = self.b.ins().insertlane(v, x, l);
            }
            *o = v;
        }
        let bits = bits.unwrap_or_else(|| self.b.ins().iconst(I32, 0));
        (out, bits)
    }

    /// Lanes `2k, 2k+1` of an address register plus `off` (`i64x2`), a 32-bit register (a
    /// shared-window offset) zero-extended as the warp engine's `addrs` does. Made where it
    /// is used (each piece is consumed at once, so the 16 pieces are never all live).
    fn addr_piece(&mut self, base: &Pieces, off: i64, k: usize) -> Value {
        let v = match base {
            Pieces::W64(v) => v[k],
            Pieces::W32(v) if k.is_multiple_of(2) => self.b.ins().uwiden_low(v[k / 2]),
            Pieces::W32(v) => self.b.ins().uwiden_high(v[k / 2]),
            Pieces::Pred(_) => return self.broken(),
        };
        let o = self.b.ins().iconst(I64, off);
        let o = self.b.ins().splat(I64X2, o);
        self.b.ins().iadd(v, o)
    }

    /// The quick way of a whole-warp access of `wd` (4 or 8) bytes whose 32 lanes form one
    /// aligned run (lane `l` at `at[0] + l * wd`, every lane in `lanes`): one helper call
    /// checks the run against the allocation (`fast::run_span`, as `fast::run_ptr` does
    /// for the warp engine) and returns its host address, and the code loads or stores the
    /// 32 values there itself. Jumps to `slow` (the lane-by-lane helpers, which also fault)
    /// when the access is not such a run or the check fails; a load jumps to `join` with
    /// the values.
    #[allow(clippy::too_many_arguments)]
    fn run_access(
        &mut self,
        wd: u32,
        space: MemSpace,
        lanes: Value,
        base: &Pieces,
        off: i64,
        val: Option<&Pieces>,
        slow: Block,
        join: Block,
    ) {
        let p0 = self.addr_piece(base, off, 0);
        let p15 = self.addr_piece(base, off, 15);
        let a0 = self.b.ins().extractlane(p0, 0);
        // The two ends and the lanes first, as `fast::run_ptr` does: most accesses that
        // are not one run (a broadcast, two rows of a tile) leave here, at the cost of two
        // comparisons.
        let a1 = self.b.ins().extractlane(p0, 1);
        let a31 = self.b.ins().extractlane(p15, 1);
        let w1 = self.b.ins().iadd_imm_s(a0, wd as i64);
        let w31 = self.b.ins().iadd_imm_s(a0, 31 * wd as i64);
        let e1 = self.b.ins().icmp(IntCC::Equal, a1, w1);
        let e31 = self.b.ins().icmp(IntCC::Equal, a31, w31);
        let whole = self.b.ins().icmp_imm_s(IntCC::Equal, lanes, -1);
        let ends = self.b.ins().band(e1, e31);
        let pre = self.b.ins().band(ends, whole);
        let check = self.b.create_block();
        self.b.ins().brif(pre, check, &[], slow, &[]);
        self.b.switch_to_block(check);
        let a0v = self.b.ins().splat(I64X2, a0);
        let mut all: Option<Value> = None;
        for k in 0..16 {
            let a = self.addr_piece(base, off, k);
            let mut bytes = Vec::with_capacity(16);
            for l in 0..2u64 {
                bytes.extend_from_slice(&((2 * k as u64 + l) * wd as u64).to_le_bytes());
            }
            let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
            let c = self.b.ins().vconst(I64X2, c);
            let want = self.b.ins().iadd(a0v, c);
            let eq = self.b.ins().icmp(IntCC::Equal, a, want);
            all = Some(match all {
                None => eq,
                Some(x) => self.b.ins().band(x, eq),
            });
        }
        let Some(all) = all else {
            self.b.ins().jump(slow, &[]);
            return;
        };
        let run = self.b.ins().vall_true(all);
        let try_b = self.b.create_block();
        self.b.ins().brif(run, try_b, &[], slow, &[]);
        self.b.switch_to_block(try_b);
        self.span_access(wd, space, a0, val, slow, join);
    }

    /// A whole-warp access of `wd` (4 or 8) bytes at a register [`Affine`] proves to step
    /// by `wd` from lane to lane (when `%ntid.x` is a multiple of 32 if `tid`): the run
    /// needs no per-lane check, only that the group is the whole warp and that its two
    /// ends are `31 * wd` apart with no overflow (which a widened 32-bit term that wraps
    /// between lanes fails: see [`Affine`]). A global access then makes one
    /// [`Gen::span_access`]; a shared one checks the run against the CTA's shared window
    /// itself (aligned, inside `[0, shared_len)`: what `fast::run_span` checks) and loads
    /// or stores there. Jumps to `other` when the case is not proven (the caller's usual
    /// way), to `slow` when the span check fails.
    #[allow(clippy::too_many_arguments)]
    fn lin_access(
        &mut self,
        wd: u32,
        space: MemSpace,
        lanes: Value,
        base: &Pieces,
        off: i64,
        tid: bool,
        val: Option<&Pieces>,
        slow: Block,
        join: Block,
        other: Block,
    ) {
        if tid {
            // `%ntid.x` (the `cta` table's first word) a multiple of 32, first: a launch
            // whose is not (a 16 x 16 tile) pays one test.
            let ntx = self.b.ins().load(I32, TRUSTED, self.ctx, off!(cta));
            let low = self.b.ins().band_imm_s(ntx, 31);
            let rows = self.b.create_block();
            self.b.ins().brif(low, other, &[], rows, &[]);
            self.b.switch_to_block(rows);
        }
        let p0 = self.addr_piece(base, off, 0);
        let p15 = self.addr_piece(base, off, 15);
        let a0 = self.b.ins().extractlane(p0, 0);
        let a31 = self.b.ins().extractlane(p15, 1);
        let w31 = self.b.ins().iadd_imm_s(a0, 31 * wd as i64);
        let e31 = self.b.ins().icmp(IntCC::Equal, a31, w31);
        let up = self.b.ins().icmp(IntCC::UnsignedGreaterThan, a31, a0);
        let whole = self.b.ins().icmp_imm_s(IntCC::Equal, lanes, -1);
        let ends = self.b.ins().band(e31, up);
        let ok = self.b.ins().band(ends, whole);
        let go = self.b.create_block();
        if space == MemSpace::Shared {
            let mis = self.b.ins().band_imm_s(a0, wd as i64 - 1);
            let aligned = self.b.ins().icmp_imm_s(IntCC::Equal, mis, 0);
            let len = self.b.ins().load(I64, TRUSTED, self.ctx, off!(shared_len));
            let inside = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, a0, len);
            let room = self.b.ins().isub(len, a0);
            let fits =
                self.b
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, room, 32 * wd as i64);
            let ok = self.b.ins().band(ok, aligned);
            let ok = self.b.ins().band(ok, inside);
            let ok = self.b.ins().band(ok, fits);
            self.b.ins().brif(ok, go, &[], other, &[]);
            self.b.switch_to_block(go);
            let sh = self.b.ins().load(I64, TRUSTED, self.ctx, off!(shared));
            let p = self.b.ins().iadd(sh, a0);
            self.run_at(wd, p, val, slow, join);
        } else {
            self.b.ins().brif(ok, go, &[], other, &[]);
            self.b.switch_to_block(go);
            self.span_access(wd, space, a0, val, slow, join);
        }
    }

    /// A shared-memory access of `wd` (4 or 8) bytes for the lanes of `lanes` made by a
    /// lane routine ([`define_lane_routine`], [`lane_routines`]) instead of the helpers:
    /// the lanes' addresses (and a store's values) go to the scratch slot, the routine
    /// checks and makes the access, and a load takes its values from the scratch slot; to
    /// `slow` (the helpers, which also fault) when the routine finds a lane misaligned or
    /// outside the shared memory. The routine preserves every register (`preserve_all`),
    /// so the vectors live around the access stay in registers, and its code is written
    /// once per process, not once per access (which would push a kernel past
    /// [`QUICK_ABOVE`] and its register allocation into spilling).
    #[allow(clippy::too_many_arguments)]
    fn shared_lanes(
        &mut self,
        wd: u32,
        lanes: Value,
        base: &Pieces,
        off: i64,
        val: Option<&Pieces>,
        slow: Block,
        join: Block,
    ) {
        let wide = match base {
            Pieces::W32(_) => false,
            Pieces::W64(_) => true,
            Pieces::Pred(_) => {
                self.b.ins().jump(slow, &[]);
                return;
            }
        };
        if off.unsigned_abs() > u64::from(u32::MAX) || matches!(val, Some(Pieces::Pred(_))) {
            // Far offsets (the routine's sums assume `|off| <= 2^32`): the helpers.
            self.b.ins().jump(slow, &[]);
            return;
        }
        let ss = self.scratch_slot();
        let sa = self.b.ins().stack_addr(I64, ss, 0);
        for (k, x) in base.values().iter().enumerate() {
            self.b.ins().store(TRUSTED, *x, sa, 16 * k as i32);
        }
        if let Some(v) = val {
            for (k, x) in v.values().iter().enumerate() {
                self.b
                    .ins()
                    .store(TRUSTED, *x, sa, SCRATCH_VALS + 16 * k as i32);
            }
        }
        let key = lane_routine(wide, wd, val.is_some());
        let offv = self.b.ins().iconst(I64, off);
        self.b
            .ins()
            .call(self.lane_fns[key], &[self.ctx, sa, offv, lanes]);
        let ok = self.b.ins().load(I32, TRUSTED, sa, SCRATCH_OK);
        let go = self.b.create_block();
        self.b.ins().brif(ok, go, &[], slow, &[]);
        self.b.switch_to_block(go);
        let args: Vec<cranelift_codegen::ir::BlockArg> = if val.is_some() {
            Vec::new()
        } else {
            let (vty, n) = if wd == 4 { (I32X4, 8) } else { (I64X2, 16) };
            (0..n)
                .map(|k| {
                    self.b
                        .ins()
                        .load(vty, TRUSTED, sa, SCRATCH_VALS + 16 * k)
                        .into()
                })
                .collect()
        };
        self.b.ins().jump(join, &args);
    }

    /// One helper call checks the run of 32 `wd`-byte lanes from `a0` (`jit_run_span`),
    /// then [`Gen::run_at`] on its host address; to `slow` when it fails.
    fn span_access(
        &mut self,
        wd: u32,
        space: MemSpace,
        a0: Value,
        val: Option<&Pieces>,
        slow: Block,
        join: Block,
    ) {
        let sp = self
            .b
            .ins()
            .iconst(I32, space_code(space).unwrap_or(0) as i64);
        let how = self
            .b
            .ins()
            .iconst(I32, (wd | (val.is_some() as u32) << 8) as i64);
        let call = self.b.ins().call(self.run_span, &[self.ctx, sp, how, a0]);
        let p = self.b.inst_results(call)[0];
        let fast = self.b.create_block();
        self.b.ins().brif(p, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        self.run_at(wd, p, val, slow, join);
    }

    /// Loads or stores the 32 `wd`-byte values of a run at host address `p` (checked by
    /// the caller), then jumps to `join` (a load with the values).
    fn run_at(&mut self, wd: u32, p: Value, val: Option<&Pieces>, slow: Block, join: Block) {
        // Guest memory: checked by the caller, no alignment promised to Cranelift.
        let flags = MemFlagsData::new().with_notrap();
        match val {
            Some(Pieces::W32(v)) => {
                for (k, x) in v.iter().enumerate() {
                    self.b.ins().store(flags, *x, p, 16 * k as i32);
                }
                self.b.ins().jump(join, &[]);
            }
            Some(Pieces::W64(v)) => {
                for (k, x) in v.iter().enumerate() {
                    self.b.ins().store(flags, *x, p, 16 * k as i32);
                }
                self.b.ins().jump(join, &[]);
            }
            Some(Pieces::Pred(_)) => {
                self.b.ins().jump(slow, &[]);
            }
            None => {
                let ty = if wd == 4 { I32X4 } else { I64X2 };
                let n = if wd == 4 { 8 } else { 16 };
                let args: Vec<cranelift_codegen::ir::BlockArg> = (0..n)
                    .map(|k| self.b.ins().load(ty, flags, p, 16 * k).into())
                    .collect();
                self.b.ins().jump(join, &args);
            }
        }
    }

    /// Goes on when `ok` (non-zero); else nothing of the instruction at `pc` happened: the
    /// code stops before it and the warp engine makes it (every register written before it
    /// is stored already, [`Gen::store_dirty`]).
    fn or_leave(&mut self, ok: Value, pc: u32, block_end: u32) {
        let cont = self.b.create_block();
        let fail = self.b.create_block();
        self.b.ins().brif(ok, cont, &[], fail, &[]);
        self.b.switch_to_block(fail);
        let regs = self.regs.clone();
        self.give_back(block_end - pc);
        self.leave_const(pc, EXIT_AT);
        self.regs = regs;
        self.b.switch_to_block(cont);
    }

    /// The loaded values from the context.
    fn load_val(&mut self, four: bool) -> Pieces {
        if four {
            Pieces::W32(std::array::from_fn(|k| {
                let lo = self
                    .b
                    .ins()
                    .load(I64X2, TRUSTED, self.ctx, off!(val) + 32 * k as i32);
                let hi =
                    self.b
                        .ins()
                        .load(I64X2, TRUSTED, self.ctx, off!(val) + 32 * k as i32 + 16);
                // Narrow by taking the low halves: [lo0, lo1, hi0, hi1] as i32.
                // (Cranelift's `shuffle` works on bytes.)
                let lo = self.b.ins().bitcast(I8X16, little(), lo);
                let hi = self.b.ins().bitcast(I8X16, little(), hi);
                let mask =
                    self.shuffle_mask([0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27]);
                let v = self.b.ins().shuffle(lo, hi, mask);
                self.b.ins().bitcast(I32X4, little(), v)
            }))
        } else {
            Pieces::W64(std::array::from_fn(|k| {
                self.b
                    .ins()
                    .load(I64X2, TRUSTED, self.ctx, off!(val) + 16 * k as i32)
            }))
        }
    }

    fn shuffle_mask(&mut self, bytes: [u8; 16]) -> cranelift_codegen::ir::Immediate {
        self.b
            .func
            .dfg
            .immediates
            .push(ConstantData::from(bytes.to_vec()))
    }

    /// A float comparison of two `f32x4` as a lane mask, built from the conditions every
    /// Cranelift backend lowers for vectors (x64 has no vector `one`, `ueq`, `ult`, …):
    /// an unordered form is the negation of the opposite ordered one.
    fn fcmp_vec(&mut self, op: CmpOp, p: Value, q: Value) -> Value {
        let mut f = |cc| self.b.ins().fcmp(cc, p, q);
        match op {
            CmpOp::Eq => f(FloatCC::Equal),
            CmpOp::Lt => f(FloatCC::LessThan),
            CmpOp::Le => f(FloatCC::LessThanOrEqual),
            CmpOp::Gt => f(FloatCC::GreaterThan),
            CmpOp::Ge => f(FloatCC::GreaterThanOrEqual),
            CmpOp::Neu => f(FloatCC::NotEqual),
            CmpOp::Num => f(FloatCC::Ordered),
            CmpOp::Nan => f(FloatCC::Unordered),
            CmpOp::Ne => {
                let (o, n) = (f(FloatCC::Ordered), f(FloatCC::NotEqual));
                self.b.ins().band(o, n)
            }
            CmpOp::Equ => {
                let (u, e) = (f(FloatCC::Unordered), f(FloatCC::Equal));
                self.b.ins().bor(u, e)
            }
            CmpOp::Ltu => {
                let m = f(FloatCC::GreaterThanOrEqual);
                self.b.ins().bnot(m)
            }
            CmpOp::Leu => {
                let m = f(FloatCC::GreaterThan);
                self.b.ins().bnot(m)
            }
            CmpOp::Gtu => {
                let m = f(FloatCC::LessThanOrEqual);
                self.b.ins().bnot(m)
            }
            CmpOp::Geu => {
                let m = f(FloatCC::LessThan);
                self.b.ins().bnot(m)
            }
        }
    }

    fn bool_op(&mut self, op: BoolOp, a: Value, b: Value) -> Value {
        match op {
            BoolOp::And => self.b.ins().band(a, b),
            BoolOp::Or => self.b.ins().bor(a, b),
            BoolOp::Xor => self.b.ins().bxor(a, b),
        }
    }

    /// A comparison as a lane mask.
    fn compare(&mut self, cmp: Cmp, ty: Type, ftz: bool, a: &Src, b: &Src) -> Value {
        let bits = |g: &mut Self, m: Value, per: usize, k: usize| {
            let hb = g.b.ins().vhigh_bits(I32, m);
            g.b.ins().ishl_imm_u(hb, (per * k) as i64)
        };
        let mut acc = self.b.ins().iconst(I32, 0);
        match cmp {
            Cmp::Float(op) => {
                let (x, y) = (self.src32(a), self.src32(b));
                for k in 0..8 {
                    let p = self.f32_in(x[k], ftz);
                    let q = self.f32_in(y[k], ftz);
                    let p = self.b.ins().bitcast(F32X4, little(), p);
                    let q = self.b.ins().bitcast(F32X4, little(), q);
                    let m = self.fcmp_vec(op, p, q);
                    let hb = bits(self, m, 4, k);
                    acc = self.b.ins().bor(acc, hb);
                }
            }
            Cmp::Int(op, unsigned) => {
                let cc = int_cc(op, unsigned);
                if ty.bits() == 32 {
                    let (x, y) = (self.src32(a), self.src32(b));
                    for k in 0..8 {
                        let m = self.b.ins().icmp(cc, x[k], y[k]);
                        let hb = bits(self, m, 4, k);
                        acc = self.b.ins().bor(acc, hb);
                    }
                } else {
                    let (x, y) = (self.src64(a), self.src64(b));
                    for k in 0..16 {
                        let m = self.b.ins().icmp(cc, x[k], y[k]);
                        let hb = bits(self, m, 2, k);
                        acc = self.b.ins().bor(acc, hb);
                    }
                }
            }
        }
        acc
    }

    /// `.ftz` on `f32` inputs (bits in an `i32x4`): a subnormal (or zero) keeps its sign
    /// only. Returns `f32x4`.
    fn f32_in(&mut self, x: Value, ftz: bool) -> Value {
        let x = if ftz { self.flush_sub(x) } else { x };
        self.b.ins().bitcast(F32X4, little(), x)
    }

    fn flush_sub(&mut self, x: Value) -> Value {
        let exp = self.splat32(0x7f80_0000);
        let sign = self.splat32(0x8000_0000);
        let zero = self.splat32(0);
        let e = self.b.ins().band(x, exp);
        let sub = self.b.ins().icmp(IntCC::Equal, e, zero);
        let s = self.b.ins().band(x, sign);
        self.b.ins().bitselect(sub, s, x)
    }

    fn splat32(&mut self, v: u32) -> Value {
        let c = self.b.ins().iconst(I32, v as i64);
        self.b.ins().splat(I32X4, c)
    }

    /// A rounded `f32x4` result to register bits: as [`Gen::f32_out`], or, when `raw`, with a
    /// NaN left as the host made it (canonicalised when read or stored, [`Regs::raw`]).
    fn f32_result(&mut self, r: Value, ftz: bool, sat: bool, raw: bool) -> Value {
        if !raw {
            return self.f32_out(r, ftz, sat);
        }
        let bits = self.b.ins().bitcast(I32X4, little(), r);
        // `.ftz` leaves a NaN as it is: flushing before canonicalising is the same.
        if ftz { self.flush_sub(bits) } else { bits }
    }

    /// A rounded `f32x4` result to register bits, as `ptxvm-fp`'s `fin32`: a NaN becomes
    /// the canonical NaN, then `.ftz`, then `.sat`.
    fn f32_out(&mut self, r: Value, ftz: bool, sat: bool) -> Value {
        let nan = self.b.ins().fcmp(FloatCC::Unordered, r, r);
        let bits = self.b.ins().bitcast(I32X4, little(), r);
        let canon = self.splat32(ptxvm_fp::CANONICAL_NAN_F32);
        let mut v = self.b.ins().bitselect(nan, canon, bits);
        if ftz {
            v = self.flush_sub(v);
        }
        if sat {
            // x > 0 ? min(x, 1) : +0 (NaN and -0 give +0).
            let f = self.b.ins().bitcast(F32X4, little(), v);
            let zero = self.splat32(0);
            let one = self.splat32(1.0f32.to_bits());
            let zf = self.b.ins().bitcast(F32X4, little(), zero);
            let of = self.b.ins().bitcast(F32X4, little(), one);
            let gt0 = self.b.ins().fcmp(FloatCC::GreaterThan, f, zf);
            let gt1 = self.b.ins().fcmp(FloatCC::GreaterThan, f, of);
            let capped = self.b.ins().bitselect(gt1, one, v);
            v = self.b.ins().bitselect(gt0, capped, zero);
        }
        v
    }
}

/// Placeholder values for operands that should not occur (see `Gen::broken`).
trait Placeholder {
    fn placeholder(g: &mut Gen) -> Self;
}

impl Placeholder for [Value; 8] {
    fn placeholder(g: &mut Gen) -> Self {
        [g.splat32(0); 8]
    }
}

impl Placeholder for [Value; 16] {
    fn placeholder(g: &mut Gen) -> Self {
        let z = g.b.ins().iconst(I64, 0);
        [g.b.ins().splat(I64X2, z); 16]
    }
}

impl Placeholder for Value {
    fn placeholder(g: &mut Gen) -> Self {
        g.b.ins().iconst(I32, 0)
    }
}

impl Placeholder for Pieces {
    fn placeholder(g: &mut Gen) -> Self {
        Pieces::Pred(g.b.ins().iconst(I32, 0))
    }
}

impl Placeholder for () {
    fn placeholder(_: &mut Gen) -> Self {}
}

fn int_cc(op: CmpOp, unsigned: bool) -> IntCC {
    match (op, unsigned) {
        (CmpOp::Eq, _) => IntCC::Equal,
        (CmpOp::Ne, _) => IntCC::NotEqual,
        (CmpOp::Lt, false) => IntCC::SignedLessThan,
        (CmpOp::Le, false) => IntCC::SignedLessThanOrEqual,
        (CmpOp::Gt, false) => IntCC::SignedGreaterThan,
        (CmpOp::Ge, false) => IntCC::SignedGreaterThanOrEqual,
        (CmpOp::Lt, true) => IntCC::UnsignedLessThan,
        (CmpOp::Le, true) => IntCC::UnsignedLessThanOrEqual,
        (CmpOp::Gt, true) => IntCC::UnsignedGreaterThan,
        (CmpOp::Ge, true) => IntCC::UnsignedGreaterThanOrEqual,
        // Unordered forms do not apply to integers; `compiles` admits only these.
        _ => IntCC::Equal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(ptx: &str) -> FuncCode {
        let checked = crate::device::check_ptx("t.ptx", ptx).expect("the test kernel checks");
        let lines = |s: ptxvm_syntax::Span| checked.source.locate(s).line;
        let mem = crate::memory::AddressSpace::new(1 << 20);
        let p = crate::program::decode(&checked.module, &lines, &mem).expect("decodes");
        p.funcs.into_iter().find(|f| f.is_entry).expect("a kernel")
    }

    /// The register the instruction at `pc` writes first.
    fn dst(f: &FuncCode, pc: usize) -> u32 {
        match &f.code[pc].exec {
            Exec::Ld { ds, .. } => match ds[0] {
                Dst::Reg(r) => r,
                _ => panic!("no register"),
            },
            e => lane_srcs(e).expect("lane-local").1[0],
        }
    }

    #[test]
    fn uniform_registers() {
        let f = kernel(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u32 pn, .param .u64 po)\n{\n\
             .reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n\
             ld.param.u32 %r1, [pn];\n\
             mov.u32 %r2, %tid.x;\n\
             mov.u32 %r3, 0;\n\
             setp.lt.u32 %p1, %r2, 5;\n\
             @%p1 bra DONE;\n\
             LOOP:\n\
             add.s32 %r3, %r3, %r1;\n\
             add.s32 %r1, %r1, -1;\n\
             setp.ne.s32 %p2, %r1, 0;\n\
             @%p2 bra LOOP;\n\
             DONE:\n\
             add.s32 %r4, %r3, %ctaid.x;\n\
             ld.param.u64 %rd1, [po];\n\
             mov.u32 %r6, 7;\n\
             setp.eq.u32 %p3, %r6, %ntid.x;\n\
             @%p3 add.s32 %r6, %r6, 1;\n\
             @%p1 add.s32 %r6, %r6, 1;\n\
             st.global.u32 [%rd1], %r6;\n\
             ret;\n}\n",
        );
        let u = Uniform::of(&f).expect("analysed");
        let (r1, r2, r3, p1, p2) = (dst(&f, 0), dst(&f, 1), dst(&f, 2), dst(&f, 3), dst(&f, 7));
        let (rd1, r6) = (dst(&f, 10), dst(&f, 11));
        // Before the divergent branch: the parameter and the constant, not %tid.x.
        assert!(u.at(4, r1) && u.at(4, r3) && !u.at(4, r2) && !u.at(4, p1));
        // In the loop, reached by one side only: counter and sum are the group's.
        assert!(u.at(5, r1) && u.at(5, r3) && u.at(8, p2));
        // Where the sides can meet (any PC both reach: the groups may meet there at
        // different times), every register named after the branch may differ.
        assert!(!u.at(9, r3) && !u.at(9, r1));
        assert!(!u.at(11, rd1) && !u.at(13, r6));
    }

    #[test]
    fn uniform_registers_under_guards() {
        let f = kernel(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 po)\n{\n\
             .reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n\
             ld.param.u64 %rd1, [po];\n\
             mov.u32 %r1, %tid.x;\n\
             setp.lt.u32 %p1, %r1, 5;\n\
             mov.u32 %r6, 7;\n\
             setp.eq.u32 %p3, %r6, %ntid.x;\n\
             @%p3 add.s32 %r6, %r6, 1;\n\
             @%p1 add.s32 %r6, %r6, 1;\n\
             add.s32 %r2, %r1, %r6;\n\
             st.global.u32 [%rd1], %r2;\n\
             ret;\n}\n",
        );
        let u = Uniform::of(&f).expect("analysed");
        let (rd1, r1, p1, r6, p3) = (dst(&f, 0), dst(&f, 1), dst(&f, 2), dst(&f, 3), dst(&f, 4));
        let r2 = dst(&f, 7);
        assert!(u.at(1, rd1) && !u.at(2, r1) && !u.at(3, p1));
        // From uniform sources (a constant, %ntid.x).
        assert!(u.at(4, r6) && u.at(5, p3));
        // A write under a uniform guard keeps it uniform, under a divergent one not.
        assert!(u.at(6, r6) && !u.at(7, r6) && !u.at(8, r2) && u.at(8, rd1));
    }

    #[test]
    fn no_uniform_registers_with_calls() {
        let f = kernel(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .func g()\n{\nret;\n}\n\
             .visible .entry k()\n{\n.reg .b32 %r<4>;\nmov.u32 %r1, 1;\ncall g;\nret;\n}\n",
        );
        assert!(Uniform::of(&f).is_none());
    }

    /// The register the instruction at `pc` writes (any instruction).
    fn written(f: &FuncCode, pc: usize) -> u32 {
        let mut d = None;
        f.code[pc].exec.each_reg_rw(&mut |r, w| {
            if w && d.is_none() {
                d = Some(r);
            }
        });
        d.expect("a destination")
    }

    fn affine(f: &FuncCode) -> Affine {
        Affine::of(f, &Uniform::of(f).expect("uniform")).expect("affine")
    }

    #[test]
    fn affine_registers() {
        // nvcc's `out[i] = in[i]` with i = ctaid.x * ntid.x + tid.x, and a 32-bit
        // shared-window offset from %laneid.
        let f = kernel(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .shared .align 8 .b8 sh[512];\n\
             .visible .entry k(.param .u64 pin, .param .u32 pn)\n{\n\
             .reg .pred %p<4>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<12>;\n\
             ld.param.u64 %rd1, [pin];\n\
             mov.u32 %r1, %ctaid.x;\n\
             mov.u32 %r2, %ntid.x;\n\
             mov.u32 %r3, %tid.x;\n\
             mad.lo.s32 %r4, %r1, %r2, %r3;\n\
             cvta.to.global.u64 %rd2, %rd1;\n\
             mul.wide.s32 %rd3, %r4, 4;\n\
             add.s64 %rd4, %rd2, %rd3;\n\
             ld.global.u32 %r5, [%rd4+8];\n\
             mov.u32 %r6, %laneid;\n\
             shl.b32 %r7, %r6, 3;\n\
             mov.u32 %r8, sh;\n\
             add.s32 %r9, %r8, %r7;\n\
             st.shared.u64 [%r9], %rd4;\n\
             cvt.u64.u32 %rd5, %r6;\n\
             mad.wide.u32 %rd6, %r3, 4, %rd5;\n\
             mul.lo.s32 %r10, %r6, %r3;\n\
             ret;\n}\n",
        );
        let a = affine(&f);
        let (r3, r4, rd3, rd4) = (
            written(&f, 3),
            written(&f, 4),
            written(&f, 6),
            written(&f, 7),
        );
        let (r6, r7, r9) = (written(&f, 9), written(&f, 10), written(&f, 12));
        let (rd5, rd6, r10) = (written(&f, 14), written(&f, 15), written(&f, 16));
        // %tid.x: step 1, only when %ntid.x is a multiple of 32.
        assert_eq!(a.at(4, r3), Some((1, true)));
        assert_eq!(a.at(5, r4), Some((1, true)));
        assert_eq!(a.at(7, rd3), Some((4, true)));
        assert_eq!(a.at(8, rd4), Some((4, true)));
        // %laneid: always.
        assert_eq!(a.at(10, r6), Some((1, false)));
        assert_eq!(a.at(11, r7), Some((8, false)));
        assert_eq!(a.at(13, r9), Some((8, false)));
        assert_eq!(a.at(15, rd5), Some((1, false)));
        // Two widened terms (each may wrap at its own lane): not lane-linear.
        assert_eq!(a.at(16, rd6), None);
        // A product of two lane-linear values: not lane-linear.
        assert_eq!(a.at(17, r10), None);
    }

    #[test]
    fn affine_registers_at_divergence() {
        let f = kernel(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 pin, .param .u32 pn)\n{\n\
             .reg .pred %p<4>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<12>;\n\
             ld.param.u64 %rd1, [pin];\n\
             ld.param.u32 %r1, [pn];\n\
             mov.u32 %r2, %laneid;\n\
             mul.wide.u32 %rd2, %r2, 4;\n\
             add.s64 %rd3, %rd1, %rd2;\n\
             LOOP:\n\
             ld.global.u32 %r4, [%rd2];\n\
             add.s64 %rd2, %rd2, 128;\n\
             add.s32 %r1, %r1, -1;\n\
             setp.ne.s32 %p2, %r1, 0;\n\
             @%p2 bra LOOP;\n\
             setp.lt.u32 %p1, %r2, 5;\n\
             @%p1 bra SKIP;\n\
             add.s64 %rd3, %rd3, 128;\n\
             SKIP:\n\
             ld.global.u32 %r3, [%rd3];\n\
             ret;\n}\n",
        );
        let a = affine(&f);
        let (rd2, rd3) = (written(&f, 3), written(&f, 4));
        // A loop (uniform exit) carries a lane-linear address.
        assert_eq!(a.at(5, rd2), Some((4, false)));
        assert_eq!(a.at(9, rd2), Some((4, false)));
        assert_eq!(a.at(11, rd3), Some((4, false)));
        // Written on one side of a divergent branch, read where the sides meet: the
        // groups' `u` differ.
        assert_eq!(a.at(13, rd3), None);
    }

    #[test]
    fn affine_registers_under_guards() {
        let f = kernel(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u32 pn)\n{\n\
             .reg .pred %p<4>;\n.reg .b32 %r<12>;\n\
             ld.param.u32 %r1, [pn];\n\
             mov.u32 %r2, %laneid;\n\
             setp.lt.u32 %p1, %r2, 5;\n\
             setp.lt.u32 %p2, %r1, 5;\n\
             shl.b32 %r3, %r2, 2;\n\
             @%p2 add.s32 %r3, %r3, 64;\n\
             shl.b32 %r4, %r2, 2;\n\
             @%p1 add.s32 %r4, %r4, 64;\n\
             @%p2 shl.b32 %r3, %r2, 3;\n\
             ret;\n}\n",
        );
        let a = affine(&f);
        let (r3, r4) = (written(&f, 4), written(&f, 6));
        // Under a uniform guard the form stays (all lanes or none write), under a
        // divergent one it does not; a uniform guard writing another step neither.
        assert_eq!(a.at(5, r3), Some((4, false)));
        assert_eq!(a.at(6, r3), Some((4, false)));
        assert_eq!(a.at(8, r4), None);
        assert_eq!(a.at(9, r3), None);
    }

    #[test]
    fn affine_registers_written_once_past_divergence() {
        // nvcc's reduction: a shared address computed after a divergent `if`, from
        // registers written before it; and a register written on both paths.
        let f = kernel(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .shared .align 4 .b8 sh[1024];\n\
             .visible .entry k(.param .u32 pn)\n{\n\
             .reg .pred %p<4>;\n.reg .b32 %r<12>;\n.reg .f32 %f<4>;\n\
             ld.param.u32 %r1, [pn];\n\
             mov.u32 %r2, %tid.x;\n\
             mov.f32 %f1, 0f00000000;\n\
             setp.ge.u32 %p1, %r2, %r1;\n\
             @%p1 bra SKIP;\n\
             mov.f32 %f1, 0f3F800000;\n\
             SKIP:\n\
             shl.b32 %r3, %r2, 2;\n\
             mov.u32 %r4, sh;\n\
             add.s32 %r5, %r4, %r3;\n\
             st.shared.f32 [%r5], %f1;\n\
             LOOP:\n\
             add.s32 %r6, %r5, 4;\n\
             add.s32 %r1, %r1, -1;\n\
             setp.ne.s32 %p2, %r1, 0;\n\
             @%p2 bra LOOP;\n\
             ld.shared.f32 %f2, [%r6];\n\
             ret;\n}\n",
        );
        let a = affine(&f);
        let r5 = written(&f, 8);
        let r6 = written(&f, 10);
        assert_eq!(a.at(9, r5), Some((4, true)));
        assert_eq!(a.at(15, r5), Some((4, true)));
        // Written in a loop (each group may have run it a different number of times,
        // here the same value, but the rule does not look so far): not kept.
        assert_eq!(a.at(14, r6), None);
    }
}
