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
//! `%nsmid` 1), `%gridid` is 0 (the cluster registers: `exec/cluster.rs`),
//! `%pm0..7` and `%envreg0..31` read 0. `%clock`, `%clock_hi`, `%clock64` and `%globaltimer`
//! (`_lo`/`_hi`) count the warp-instructions the CTA has issued (the timer at 1 ns per
//! instruction): monotonic and deterministic, so timing loops end and runs repeat exactly.
//!
//! Invariant: every guest memory access is bounds-checked (global through
//! [`GlobalMemory`], shared/local/param against their buffers); a failure becomes a
//! [`Fault`] naming kernel, line, CTA, thread and lane.

mod cluster;
mod fast;
mod isa;
pub(crate) mod jit;
pub use jit::{NOTHING_COMPILES, TOO_LARGE};

use crate::error::{Fault, FaultKind, Site};
use crate::local::LocalMem;
use crate::memory::{
    AccessError, AddressSpace, FUNC_BASE, LOCAL_WINDOW, LOCAL_WINDOW_SIZE, PARAM_WINDOW,
    PARAM_WINDOW_SIZE, SHARED_WINDOW, SHARED_WINDOW_SIZE,
};
use crate::ops::alu::*;
use crate::ops::mbarrier::MBar;
use crate::program::*;
use ptxvm_fp::arith as fa;
use ptxvm_ir::types::{Class, Type};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// Named barriers 0..15, then the cluster barrier (`barrier.cluster`).
const NBAR: usize = 17;
/// The slot of `barrier.cluster.arrive`/`.wait`: each CTA counts its own threads' arrivals
/// there; the cluster's scheduler ([`cluster::ClusterRun`]) completes it when every CTA of a
/// multi-CTA cluster has arrived (a 1×1×1 cluster completes it as a CTA barrier).
const CLUSTER_BAR: usize = 16;
/// Consecutive backward branches after which a group yields to its warp's other groups.
pub const SPIN_YIELD: u32 = 64;
/// Instructions a warp runs before the next warp of its CTA gets a turn; the turn ends at the
/// first yield point after them ([`crate::program::yield_points`]: a branch or branch
/// target), so compiled blocks run whole.
const QUANTUM: u32 = 256;
/// Maximum call depth per thread.
const MAX_DEPTH: usize = 1024;
/// Warp-instructions a CTA runs before its host thread turns to its other resident CTAs
/// (and, if it has fewer than [`MAX_RESIDENT`], admits the next CTA of the grid). A CTA that
/// waits for another CTA (a flag, a lock, a decoupled look-back) therefore makes progress
/// with any number of host threads, and a fault in a later CTA stops a spinning one.
const SLICE: u64 = 1 << 16;
/// Host threads one launch uses at most (`--threads` beyond it is clamped).
pub const MAX_WORKERS: usize = 256;
/// CTAs one host thread keeps in flight at most.
const MAX_RESIDENT: usize = 32;
/// Bytes moved or printed that cost one step of the launch's budget: one 16-byte piece of
/// a bulk copy, or sixteen characters of device `printf` (format scanned, strings read, text
/// produced), costs as much as one warp instruction.
pub const BYTES_PER_STEP: u64 = 16;
/// Work of one device `malloc` or `free` (it maps or unmaps host pages), in bytes of the
/// step budget: 16 steps.
const HEAP_CALL_WORK: u64 = 16 * BYTES_PER_STEP;
/// Host memory per thread of a CTA besides its registers and parameter area (the thread's
/// record), counted against the launch's memory budget.
const THREAD_OVERHEAD: u64 = 256;

/// The engine that executes a launch. Every engine gives the same results, bit for bit:
/// the same memory, registers, `printf` text, faults and diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// The fastest engine for the kernel: the JIT.
    #[default]
    Auto,
    /// Native code compiled from the kernel by Cranelift, over the warp engine (which runs
    /// what the native code does not).
    Jit,
    /// The warp engine: one dispatch per warp instruction over lane-major registers.
    Interp,
    /// The reference interpreter: thread by thread, the oracle the others are tested
    /// against.
    Reference,
}

impl Engine {
    pub const NAMES: [&'static str; 4] = ["auto", "jit", "interp", "reference"];

    pub fn parse(s: &str) -> Option<Engine> {
        Some(match s {
            "auto" => Engine::Auto,
            "jit" => Engine::Jit,
            "interp" => Engine::Interp,
            "reference" => Engine::Reference,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Jit => "jit",
            Engine::Interp => "interp",
            Engine::Reference => "reference",
        }
    }

    /// The engine that runs when this one is asked for: `Auto` resolves to the fastest
    /// available; `Err` names why an engine cannot run.
    pub fn resolve(self) -> Result<Engine, String> {
        match self {
            Engine::Auto | Engine::Jit => Ok(Engine::Jit),
            Engine::Interp => Ok(Engine::Interp),
            Engine::Reference => Ok(Engine::Reference),
        }
    }
}
/// The unit in which a GPU allocates a CTA's shared memory (bytes): accesses past the
/// requested size but inside the last unit do not fault.
pub(crate) const SHARED_ALLOC_UNIT: usize = 128;

/// A kernel launch's configuration and limits.
#[derive(Debug, Clone)]
pub struct Launch {
    pub kernel: u32,
    /// The engine (resolved: [`Engine::Jit`], [`Engine::Interp`] or [`Engine::Reference`]).
    pub engine: Engine,
    /// The emulated GPU (the arithmetic of the matrix instructions).
    pub model: &'static crate::arch::GpuModel,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// The cluster shape in CTAs (`[1, 1, 1]`: every CTA is its own cluster); the grid is a
    /// multiple of it in every dimension (checked by the caller).
    pub cluster: [u32; 3],
    /// `%is_explicit_cluster`: the launch gave a cluster shape (or the kernel declared one).
    pub explicit_cluster: bool,
    pub dyn_shared: u32,
    /// The kernel parameter buffer, laid out per the `.param` declarations.
    pub params: Vec<u8>,
    /// Step budget for the whole launch (warp instructions, plus work: see `BYTES_PER_STEP`).
    pub max_steps: u64,
    /// Local memory (the stack: local variables, call frames' saved registers and
    /// parameters, `alloca`) per thread in bytes.
    pub local_size: u32,
    /// Host threads running CTAs in parallel (1 = sequential).
    pub threads: usize,
    /// With [`Engine::Jit`]: compile the kernel before the launch starts. Otherwise a kernel
    /// not compiled yet starts on the warp engine and switches to native code when the
    /// background compile (started by the caller) finishes.
    pub jit_wait: bool,
    /// Device `printf` FIFO: bytes of output the launch keeps; later calls are dropped.
    pub printf_fifo: u64,
    /// Host memory for the state of the CTAs in flight (registers, local memory pages,
    /// parameter areas, shared memory), bytes.
    pub memory: u64,
}

/// Counters and device-side output of a launch.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Warp-level instructions issued (one per group step).
    pub warp_insts: u64,
    /// Thread-level instructions executed (active threads per step, summed).
    pub thread_insts: u64,
    /// The engine that ran the launch.
    pub engine: Option<Engine>,
    /// Warp instructions by how they ran: the warp engine's lane loops, the reference's
    /// per-thread semantics lane by lane inside the warp engine, reference steps (all of
    /// them under the reference engine), and native code (the JIT).
    pub tiers: [u64; 4],
    /// Time the JIT took to compile the kernel (zero when its code was compiled by an
    /// earlier launch), and the kernel's instructions it compiled.
    pub jit_compile: std::time::Duration,
    pub jit_compiled: usize,
    /// Why the JIT engine did not compile the kernel (it ran on the warp engine).
    pub jit_error: Option<String>,
    /// The kernel was still being compiled in the background when the launch ended (the
    /// warp engine ran all of it). With the JIT engine, no code, no error and nothing
    /// pending: `auto` has not found the kernel hot enough to compile
    /// ([`crate::device::JIT_HOT`]).
    pub jit_pending: bool,
    /// Text written by device-side `printf` (`vprintf`). Deterministic order: CTAs in
    /// launch order (x fastest, then y, then z), within a CTA by linear thread index, and
    /// each thread's output in its program order. A CTA's output is appended when the CTA
    /// finishes (or faults). At most the launch's printf FIFO size.
    pub printf: Vec<u8>,
    /// Device `printf` calls dropped because the FIFO was full, and their bytes (of a call
    /// cut short by the full FIFO, the bytes formatted before it stopped).
    pub printf_dropped: u64,
    pub printf_dropped_calls: u64,
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

/// A thread's scheduling state, kept apart from the rest of [`Thread`] in one small
/// record per thread (`Cta::sched`), so that choosing a group, arriving at and leaving a
/// barrier and starting a CTA afresh read and write a few cache lines per warp.
#[derive(Debug, Clone, Copy)]
struct Sched {
    pc: u32,
    /// Consecutive backward branches taken.
    spins: u32,
    /// The call depth (`Thread::frames`' length: 1 in the kernel).
    depth: u32,
    state: TState,
}

impl Sched {
    const START: Sched = Sched {
        pc: 0,
        spins: 0,
        depth: 1,
        state: TState::Ready,
    };
}

#[derive(Debug)]
struct Thread {
    tid: [u32; 3],
    lane: u32,
    frames: Vec<Frame>,
    local: LocalMem,
    local_sp: u32,
    /// Bytes of saved registers of the call frames above the kernel's (on the stack).
    frame_bytes: u64,
    params: Vec<u8>,
    param_sp: u32,
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

/// The kernel frame's registers of one warp, lane-major (`[register][lane]`) in banks by
/// width (see [`RegSlot`]): what every engine reads and writes for threads at call depth 1.
/// Deeper frames keep their registers per thread.
struct WarpRegs {
    r32: Vec<[u32; 32]>,
    r64: Vec<[u64; 32]>,
    /// One bit per lane.
    pred: Vec<u32>,
}

impl WarpRegs {
    fn new(banks: [u32; 3]) -> WarpRegs {
        WarpRegs {
            r32: vec![[0; 32]; banks[0] as usize],
            r64: vec![[0; 32]; banks[1] as usize],
            pred: vec![0; banks[2] as usize],
        }
    }
}

/// A group of a warp chosen to run together: the lanes at one PC of one function and call
/// depth, and the lowest-numbered thread. `others` is the lowest PC of the warp's other
/// ready, non-spinning threads (`u32::MAX`: none; `0` when some are at another call depth):
/// while the group stays below it, at depth 1, and does not start spinning, it stays the
/// group [`Cta::select`] picks, which the warp engine uses to skip the selection.
#[derive(Debug, Clone, Copy)]
struct Group {
    mask: u32,
    pc: u32,
    func: u32,
    depth: u32,
    /// (A thread index; `u32` keeps a group, which the warp engine copies per turn, small.)
    leader: u32,
    others: u32,
}

impl Group {
    /// No group (a placeholder where the warp engine holds none).
    const NONE: Group = Group {
        mask: 0,
        pc: 0,
        func: 0,
        depth: 0,
        leader: 0,
        others: 0,
    };
}

struct Cta<'a> {
    prog: &'a Program,
    /// The launched kernel's code.
    kfunc: &'a FuncCode,
    launch: &'a Launch,
    grid: &'a Grid,
    /// Bytes of the launch's memory budget this CTA holds (returned when it is dropped).
    charged: u64,
    /// The device's memory (also passed to the per-thread paths; the warp-collective
    /// paths read it here).
    mem: &'a AddressSpace,
    ctaid: [u32; 3],
    shared: Vec<u8>,
    threads: Vec<Thread>,
    /// Per thread: its PC, spin count, call depth and state.
    sched: Vec<Sched>,
    /// Per warp: the kernel frame's registers.
    wregs: Vec<WarpRegs>,
    /// Allocations the warp engine looked up (see [`fast::SpanCache`]).
    spans: fast::SpanCache,
    /// Per warp: the group the warp engine ran last, with its spin state, while its PC is
    /// not stored in its threads, and the `sched_epoch` it was kept at.
    wcache: Vec<Option<(Group, fast::Spin, u64)>>,
    /// Bumped by every reference step and barrier re-check: a kept group is valid only
    /// while it is unchanged (nothing else can have woken a thread of its warp).
    sched_epoch: u64,
    nwarps: u32,
    /// Per barrier, per warp: the lanes that have arrived.
    bar_lanes: [Vec<u32>; NBAR],
    /// Per barrier: the threads that have arrived in the current phase (the sum of
    /// `bar_lanes`' bits).
    bar_count: [u32; NBAR],
    /// Per barrier: the expected thread count of the current phase (`None`: all threads).
    bar_expected: [Option<u32>; NBAR],
    /// Per warp: its lanes that exist and have not exited.
    live: Vec<u32>,
    /// Per warp: its lanes waiting at a `.sync` warp instruction ([`TState::WarpSync`]).
    wsync: Vec<u32>,
    /// Per warp: set when all of its live lanes blocked at a barrier together in the warp
    /// engine (barrier, PC after it, the lanes' highest spin count, below [`SPIN_YIELD`]):
    /// when that barrier completes, they are the warp's one group, known without `select`.
    /// Such a warp is *parked*: its threads' records (`sched`) keep the PC and `Ready`
    /// state they had before the barrier until its release writes the PCs; the warp gets no
    /// turn meanwhile, and what reports threads' states reads them through `sched_at`.
    bar_whole: Vec<Option<(u8, u32, u32)>>,
    /// The `bar_whole` records the last barrier completion released (warp, PC, spins).
    woken: Vec<(u32, u32, u32)>,
    bar_red: [BarRedState; NBAR],
    /// Set when a thread exits, so blocked barriers and warp syncs are re-checked.
    exits_dirty: bool,
    /// Set when a thread printed (its `out` is not empty), so finishing the CTA collects it
    /// (and leaves every `out` empty for the CTA that reuses this one).
    printed: bool,
    /// Set when an instruction changed a thread record (`Thread`) past what a fresh CTA
    /// holds, so the reset for the CTA that reuses this one rewrites the records.
    touched: bool,
    /// The kernel's native code, once compiled (see [`Grid::jit_pending`]).
    jit: Option<std::sync::Arc<jit::JitCode>>,
    /// The context the native code runs with (made on the first entry, kept for the
    /// CTAs that reuse this one).
    jit_ctx: Option<Box<jit::JitCtx>>,
    /// The warp engine's lane scratch (made on the first turn, kept for reuse).
    tmp: Option<Box<fast::Tmp>>,
    /// Per warp, its lanes' `%tid.x`, `.y`, `.z` (`[c * 32 + lane]`; 0 past the block), for
    /// native code (the same for every CTA of the launch).
    tid_lanes: Vec<[u32; 96]>,
    /// Warp-instructions issued in this CTA so far: the CTA's `%clock64`, and its
    /// `%globaltimer` at one nanosecond per instruction (deterministic, monotonic).
    clock: u64,
    /// `wgmma` state (results in flight, warpgroup logs), once a `wgmma` has run.
    wgmma: Option<Box<crate::ops::wgmma::CtaWgmma>>,
    /// Tensor Memory (`tcgen05`), once the CTA allocates or relinquishes.
    tmem: Option<Box<crate::ops::tcgen05::Tmem>>,
    /// While this CTA runs a slice, the Tensor Memory of its peer CTA (`tcgen05`
    /// `.cta_group::2`: rank `rank ^ 1`), lent by [`cluster::ClusterRun`] as `peers` is.
    peer_tmem: Option<Box<crate::ops::tcgen05::Tmem>>,
    /// The CTA's rank in its cluster (`%cluster_ctarank`).
    rank: u32,
    /// While this CTA runs a slice, the shared memory of the other CTAs of its cluster, by
    /// rank (its own entry empty: that is `shared`); lent by [`cluster::ClusterRun`].
    peers: Vec<Vec<u8>>,
}

/// Launch-wide state shared by the host threads that run CTAs.
struct Grid {
    /// Steps left in the launch's budget.
    pool: AtomicU64,
    /// Set at the first fault or when the budget runs out: every CTA stops at its next
    /// budget refill (every few thousand steps) or slice.
    stop: AtomicBool,
    /// The fault of the lowest-numbered CTA (launch order) that faulted; budget exhaustion
    /// is kept apart and reported only when no CTA faulted.
    fault: Mutex<Option<(usize, Box<Fault>)>>,
    step_fault: Mutex<Option<(usize, Box<Fault>)>>,
    printf_fifo: u64,
    printf_used: AtomicU64,
    printf_dropped: AtomicU64,
    printf_dropped_calls: AtomicU64,
    /// Printf output of the CTAs that have run, by CTA index (non-empty ones only; their
    /// total is bounded by the FIFO).
    outputs: Mutex<BTreeMap<usize, Vec<u8>>>,
    mem_used: AtomicU64,
    mem_limit: u64,
    warp_insts: AtomicU64,
    thread_insts: AtomicU64,
    tiers: [AtomicU64; 4],
    /// The warp engine's view of the kernel's instructions (empty for the reference).
    pre: Vec<fast::Pre>,
    /// The kernel's registers a reused CTA zeroes (see [`jit::entry_live`]); `None`: all.
    entry_live: Option<std::sync::Arc<[RegSlot]>>,
    /// The kernel's native code (the JIT engine), when it compiled before the launch.
    jit: Option<std::sync::Arc<jit::JitCode>>,
    /// The kernel is being compiled in the background: look for its code between slices.
    jit_pending: bool,
    /// The next cluster (launch order) no host thread has taken: clusters are started, or
    /// cancelled by `clusterlaunchcontrol.try_cancel`, by taking it.
    next_cluster: AtomicUsize,
    nclusters: usize,
}

impl Grid {
    /// Takes `n` bytes of the memory budget; false when it would be exceeded.
    fn charge(&self, n: u64) -> bool {
        self.mem_used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                u.checked_add(n).filter(|&x| x <= self.mem_limit)
            })
            .is_ok()
    }

    fn credit(&self, n: u64) {
        self.mem_used.fetch_sub(n, Ordering::Relaxed);
    }

    /// Keeps the fault if it is the first in launch order.
    fn record(&self, i: usize, f: Box<Fault>) {
        let slot = if f.kind == FaultKind::StepLimit {
            &self.step_fault
        } else {
            &self.fault
        };
        let mut g = slot.lock().unwrap_or_else(|e| e.into_inner());
        if g.as_ref().is_none_or(|(j, _)| i < *j) {
            *g = Some((i, f));
        }
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Files a CTA's printf output and counters.
    /// Files CTA `i`'s printf output and adds its counters to the host thread's `acc`
    /// (added to the launch's once, by [`Grid::add_stats`]: per CTA, those shared counters
    /// were a cache line both host threads wrote thousands of times a launch).
    fn finish(&self, i: usize, cta: &mut Cta, st: &Stats, acc: &mut Stats) {
        if cta.printed {
            cta.printed = false;
            let mut out = Vec::new();
            for th in &mut cta.threads {
                out.append(&mut th.out);
            }
            if !out.is_empty() {
                self.outputs
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(i, out);
            }
        }
        acc.warp_insts += st.warp_insts;
        acc.thread_insts += st.thread_insts;
        for (t, n) in acc.tiers.iter_mut().zip(st.tiers) {
            *t += n;
        }
    }

    /// Adds a host thread's counters (see [`Grid::finish`]) to the launch's.
    fn add_stats(&self, acc: &Stats) {
        self.warp_insts.fetch_add(acc.warp_insts, Ordering::Relaxed);
        self.thread_insts
            .fetch_add(acc.thread_insts, Ordering::Relaxed);
        for (t, n) in self.tiers.iter().zip(acc.tiers) {
            t.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Reserves room for `n` bytes of printf output; false when the FIFO is full (the
    /// output is dropped and counted).
    fn printf_room(&self, n: u64) -> bool {
        let ok = self
            .printf_used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                u.checked_add(n).filter(|&x| x <= self.printf_fifo)
            })
            .is_ok();
        if !ok {
            self.drop_printf(n);
        }
        ok
    }

    /// Counts a dropped printf call of (at least) `n` bytes.
    fn drop_printf(&self, n: u64) {
        self.printf_dropped.fetch_add(n, Ordering::Relaxed);
        self.printf_dropped_calls.fetch_add(1, Ordering::Relaxed);
    }

    /// Bytes the FIFO can still take.
    fn printf_left(&self) -> u64 {
        self.printf_fifo
            .saturating_sub(self.printf_used.load(Ordering::Relaxed))
    }
}

/// Host memory a CTA takes before it runs: shared memory, and per thread its record, the
/// kernel's registers and its parameter area (local memory is backed as it is written).
pub fn cta_base_memory(prog: &Program, launch: &Launch) -> u64 {
    let f = &prog.funcs[launch.kernel as usize];
    let threads = launch.block.iter().map(|&x| x as u64).product::<u64>();
    let per_thread = THREAD_OVERHEAD + f.reg_types.len() as u64 * 8 + f.param_size as u64;
    threads
        .saturating_mul(per_thread)
        .saturating_add(f.dyn_base as u64 + launch.dyn_shared as u64)
}

/// Runs a launch to completion (or to its first fault).
///
/// Each host thread takes CTAs in launch order and runs them in slices of [`SLICE`]
/// warp-instructions, keeping up to [`MAX_RESIDENT`] in flight when they run long. A fault
/// stops every CTA promptly; the fault reported is the one of the lowest-numbered CTA that
/// faulted. A finished CTA leaves only its printf output behind (bounded by the FIFO).
pub fn run(
    prog: &Program,
    launch: &Launch,
    mem: &AddressSpace,
    stats: &mut Stats,
) -> Result<(), Box<Fault>> {
    let [gx, gy, gz] = launch.grid;
    let total = gx as usize * gy as usize * gz as usize;
    let kfunc = &prog.funcs[launch.kernel as usize];
    let jit_fresh = kfunc.jit.get().is_none();
    let (jit_code, jit_error) = match launch.engine {
        Engine::Jit if launch.jit_wait || !jit_fresh => match jit::code_for(kfunc) {
            Ok(c) => (Some(c), None),
            Err(e) => (None, Some(e)),
        },
        _ => (None, None),
    };
    // Compiling in the background: CTAs pick the code up when it is ready.
    let jit_pending = launch.engine == Engine::Jit
        && jit_fresh
        && !launch.jit_wait
        && kfunc.jit_queued.get().is_some();
    // Host threads take whole clusters (a 1x1x1 cluster is one CTA).
    let csize = launch
        .cluster
        .iter()
        .map(|&x| x.max(1) as usize)
        .product::<usize>();
    let nclusters = total / csize.max(1);
    let grid = Grid {
        next_cluster: AtomicUsize::new(0),
        nclusters,
        pool: AtomicU64::new(launch.max_steps),
        stop: AtomicBool::new(false),
        fault: Mutex::new(None),
        step_fault: Mutex::new(None),
        printf_fifo: launch.printf_fifo,
        printf_used: AtomicU64::new(0),
        printf_dropped: AtomicU64::new(0),
        printf_dropped_calls: AtomicU64::new(0),
        outputs: Mutex::new(BTreeMap::new()),
        mem_used: AtomicU64::new(0),
        mem_limit: launch.memory,
        warp_insts: AtomicU64::new(0),
        thread_insts: AtomicU64::new(0),
        tiers: Default::default(),
        pre: match launch.engine {
            Engine::Interp | Engine::Jit => fast::prepare(&prog.funcs[launch.kernel as usize]),
            _ => Vec::new(),
        },
        jit: jit_code.clone(),
        jit_pending,
        entry_live: match launch.engine {
            Engine::Interp | Engine::Jit => jit::entry_live(&prog.funcs[launch.kernel as usize]),
            _ => None,
        },
    };
    let workers = launch.threads.clamp(1, nclusters.clamp(1, MAX_WORKERS));
    // With several host threads, each takes a run of consecutive clusters at a time: each
    // core then streams through its own region of the data (CTA by CTA interleaved, the
    // hardware prefetchers of neither followed), and the shared counter is taken less often.
    // Enough runs are left for the threads to share the work evenly.
    let batch = if workers > 1 {
        (nclusters / (workers * 32)).clamp(1, 16)
    } else {
        1
    };
    // Memory freed while this launch runs stays mapped until it ends.
    let _in_flight = mem.launch_guard();
    let work = || {
        let mut budget = Budget {
            local: 0,
            grid: &grid,
            stopped: false,
        };
        let mut resident: VecDeque<cluster::ClusterRun> = VecDeque::new();
        // This host thread's counters, added to the launch's when it is done.
        let mut acc = Stats::default();
        // Finished CTAs whose memory the next ones reuse.
        let mut spare: Vec<Cta> = Vec::new();
        // A cluster index taken from the grid that did not fit in the memory budget yet.
        let mut pending: Option<usize> = None;
        // Clusters this host thread has taken and not started yet, in launch order.
        let mut taken = 0..0;
        let mut admit = true;
        loop {
            if grid.stop.load(Ordering::Relaxed) {
                break;
            }
            if (admit || resident.is_empty())
                && (resident.len() + 1) * csize <= MAX_RESIDENT.max(csize)
            {
                let c = pending.take().or_else(|| {
                    if taken.is_empty() {
                        taken = grid.take_clusters(batch)?;
                    }
                    taken.next()
                });
                if let Some(c) = c {
                    match cluster::ClusterRun::new(prog, launch, &grid, mem, c, &mut spare) {
                        Some(cr) => resident.push_back(cr),
                        None if resident.is_empty() => {
                            // Other host threads hold the memory: wait for them.
                            pending = Some(c);
                            std::thread::sleep(std::time::Duration::from_millis(1));
                            continue;
                        }
                        None => pending = Some(c),
                    }
                }
            }
            let Some(mut cr) = resident.pop_front() else {
                if pending.is_some() {
                    continue;
                }
                break;
            };
            match cr.turn(mem, &mut budget) {
                Ok(cluster::Turn::Done) => {
                    cr.finish(&grid, &mut spare, &mut acc);
                    admit = resident.is_empty();
                }
                // A cluster that runs long lets the next one start (it may wait for it); one
                // whose CTAs only waited for each other does not.
                Ok(cluster::Turn::Long) => {
                    resident.push_back(cr);
                    admit = true;
                }
                Ok(cluster::Turn::Waiting) => {
                    resident.push_back(cr);
                    admit = false;
                }
                Err((i, f)) => {
                    if !budget.stopped {
                        grid.record(i, f);
                    }
                    cr.stop(&grid, &mut acc);
                    break;
                }
            }
        }
        // Stopped: keep what the CTAs in flight printed so far.
        for mut cr in resident {
            cr.stop(&grid, &mut acc);
        }
        grid.add_stats(&acc);
    };
    if workers <= 1 {
        work();
    } else {
        std::thread::scope(|s| {
            // A host that refuses more threads runs the launch on those it gave (and on
            // this one if it gave none).
            let started = (0..workers)
                .map_while(|_| std::thread::Builder::new().spawn_scoped(s, work).ok())
                .count();
            if started == 0 {
                work();
            }
        });
    }
    let outputs = grid.outputs.into_inner().unwrap_or_else(|e| e.into_inner());
    for (_, mut out) in outputs {
        stats.printf.append(&mut out);
    }
    stats.printf_dropped += grid.printf_dropped.into_inner();
    stats.printf_dropped_calls += grid.printf_dropped_calls.into_inner();
    let warp_insts = grid.warp_insts.into_inner();
    stats.warp_insts += warp_insts;
    if launch.engine == Engine::Reference {
        stats.tiers[2] += warp_insts;
    }
    stats.thread_insts += grid.thread_insts.into_inner();
    for (t, n) in stats.tiers.iter_mut().zip(grid.tiers) {
        *t += n.into_inner();
    }
    stats.engine = Some(launch.engine);
    let (jit_code, jit_error) = match (jit_code, jit_error) {
        (None, None) if jit_pending => match kfunc.jit.get() {
            Some(Ok(c)) => (Some(c.clone()), None),
            Some(Err(e)) => (None, Some(e.clone())),
            None => {
                stats.jit_pending = true;
                (None, None)
            }
        },
        other => other,
    };
    if let Some(code) = &jit_code {
        stats.jit_compiled = code.compiled;
        if jit_fresh {
            stats.jit_compile = code.compile_time;
        }
    }
    stats.jit_error = jit_error;
    let fault = grid.fault.into_inner().unwrap_or_else(|e| e.into_inner());
    let step = grid
        .step_fault
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    match fault.or(step) {
        Some((_, f)) => Err(f),
        None => Ok(()),
    }
}

/// How a CTA's slice ([`Cta::run`]) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ran {
    Done,
    Sliced,
    Blocked,
}

/// The launch's step budget, drawn from the shared pool in chunks.
struct Budget<'g> {
    local: u64,
    grid: &'g Grid,
    /// Set when a take failed because another CTA stopped the launch (not a fault of this
    /// CTA's own).
    stopped: bool,
}

impl Budget<'_> {
    /// Up to `want` steps that [`Budget::consume`] can take now (drawn from the launch's
    /// pool as needed); 0 when the launch has stopped.
    fn reserve(&mut self, want: u64) -> u64 {
        if self.local < want && !self.grid.stop.load(Ordering::Relaxed) {
            let more = (want - self.local).saturating_add(4096);
            let got = self
                .grid
                .pool
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |p| {
                    Some(p - p.min(more))
                })
                .map_or(0, |p| p.min(more));
            self.local += got;
        }
        if self.grid.stop.load(Ordering::Relaxed) {
            return 0;
        }
        self.local.min(want)
    }

    /// Takes `n` steps [`Budget::reserve`] made available.
    fn consume(&mut self, n: u64) {
        self.local -= n.min(self.local);
    }

    /// Takes `n` steps; false when the launch's budget is used up or the launch stopped.
    fn take(&mut self, n: u64) -> bool {
        if self.local >= n {
            self.local -= n;
            return true;
        }
        if self.grid.stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return false;
        }
        let want = (n - self.local).saturating_add(4096);
        let got = self
            .grid
            .pool
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |p| {
                Some(p - p.min(want))
            })
            .map_or(0, |p| p.min(want));
        self.local += got;
        if self.local >= n {
            self.local -= n;
            true
        } else {
            self.local = 0;
            false
        }
    }
}

impl Drop for Cta<'_> {
    fn drop(&mut self) {
        self.grid.credit(self.charged);
    }
}

impl<'a> Cta<'a> {
    /// A CTA ready to run, or `None` when its memory does not fit in the launch's budget
    /// now.
    fn new(
        prog: &'a Program,
        launch: &'a Launch,
        grid: &'a Grid,
        mem: &'a AddressSpace,
        ctaid: [u32; 3],
        spare: &mut Vec<Cta<'a>>,
    ) -> Option<Cta<'a>> {
        let base = cta_base_memory(prog, launch);
        if let Some(mut cta) = spare.pop() {
            // A spare CTA may still hold its base charge (see `ClusterRun::finish`): charge
            // only what it lacks, so reusing one touches no counter the host threads share.
            let need = base.saturating_sub(cta.charged);
            if need > 0 && !grid.charge(need) {
                spare.push(cta);
                return None;
            }
            let charged = cta.charged + need;
            cta.reset(ctaid, charged);
            return Some(cta);
        }
        if !grid.charge(base) {
            return None;
        }
        let [bx, by, bz] = launch.block;
        let n = bx * by * bz;
        let f = &prog.funcs[launch.kernel as usize];
        let mut threads = Vec::with_capacity(n as usize);
        for i in 0..n {
            let tid = [i % bx, (i / bx) % by, i / (bx * by)];
            let mut t = Thread {
                tid,
                lane: i % 32,
                frames: Vec::new(),
                // Backed page by page as it is written, up to `launch.local_size`.
                local: LocalMem::new(f.local_size),
                local_sp: f.local_size,
                frame_bytes: 0,
                params: vec![0; f.param_size as usize],
                param_sp: f.param_size,
                cf: false,
                sync_mask: 0,
                red_dst: None,
                cluster_arrived: false,
                out: Vec::new(),
            };
            t.frames.push(Frame {
                func: launch.kernel,
                // The kernel frame's registers live in the warp's register file.
                regs: Vec::new(),
                local_base: 0,
                param_base: 0,
                ret_pc: u32::MAX,
                rets: Vec::new(),
            });
            threads.push(t);
        }
        let mut cta = Cta {
            prog,
            kfunc: f,
            launch,
            grid,
            charged: base,
            mem,
            ctaid,
            // A GPU allocates a CTA's shared memory in 128-byte units and faults only outside
            // them: compilers widen loads up to that boundary (NVVM's LTO turns the last
            // elements of a small dynamic shared array into one 16-byte `ld.shared.v4`).
            shared: vec![
                0;
                (f.dyn_base as usize)
                    .saturating_add(launch.dyn_shared as usize)
                    .checked_next_multiple_of(SHARED_ALLOC_UNIT)
                    .unwrap_or(usize::MAX)
            ],
            nwarps: n.div_ceil(32),
            sched: vec![Sched::START; threads.len()],
            threads,
            wregs: (0..n.div_ceil(32))
                .map(|_| WarpRegs::new(f.banks))
                .collect(),
            spans: fast::SpanCache::default(),
            wcache: vec![None; n.div_ceil(32) as usize],
            sched_epoch: 0,
            bar_lanes: std::array::from_fn(|_| vec![0; n.div_ceil(32) as usize]),
            bar_count: [0; NBAR],
            bar_expected: [None; NBAR],
            live: (0..n.div_ceil(32)).map(|w| lane_mask(n - 32 * w)).collect(),
            wsync: vec![0; n.div_ceil(32) as usize],
            bar_whole: vec![None; n.div_ceil(32) as usize],
            woken: Vec::new(),
            bar_red: [BarRedState::default(); NBAR],
            exits_dirty: false,
            printed: false,
            touched: false,
            jit: grid.jit.clone(),
            jit_ctx: None,
            tmp: None,
            tid_lanes: (0..n.div_ceil(32))
                .map(|w| {
                    let mut t = [0u32; 96];
                    for l in 0..32 {
                        let i = 32 * w + l;
                        if i < n {
                            t[l as usize] = i % bx;
                            t[32 + l as usize] = (i / bx) % by;
                            t[64 + l as usize] = i / (bx * by);
                        }
                    }
                    t
                })
                .collect(),
            clock: 0,
            wgmma: None,
            tmem: None,
            peer_tmem: None,
            rank: 0,
            peers: Vec::new(),
        };
        cta.fresh_groups();
        Some(cta)
    }

    /// Makes a finished CTA of the launch (which gave its budget back) the CTA `ctaid`,
    /// as new, reusing its memory.
    fn reset(&mut self, ctaid: [u32; 3], charged: u64) {
        let f = self.kfunc;
        self.charged = charged;
        self.ctaid = ctaid;
        // (Empty slices are skipped: glibc's AVX-512 memset of zero bytes at an empty Vec's
        // dangling pointer takes a masked-store fault assist costing microseconds.)
        if !self.shared.is_empty() {
            self.shared.fill(0);
        }
        match &self.grid.entry_live {
            // The warp engine and the JIT zero only the registers a thread may read before
            // writing them: every other register is written before any engine reads it.
            // (The reference zeroes all, so the differential tests compare against a
            // register file that holds nothing from the previous CTA.)
            Some(live) => {
                for w in &mut self.wregs {
                    for s in live.iter() {
                        match *s {
                            RegSlot::B32(i) => w.r32.get_mut(i as usize).map(|x| *x = [0; 32]),
                            RegSlot::B64(i) => w.r64.get_mut(i as usize).map(|x| *x = [0; 32]),
                            RegSlot::Pred(i) => w.pred.get_mut(i as usize).map(|x| *x = 0),
                        };
                    }
                }
            }
            None => {
                for w in &mut self.wregs {
                    w.r32.fill([0; 32]);
                    w.r64.fill([0; 32]);
                    w.pred.fill(0);
                }
            }
        }
        for b in &mut self.bar_lanes {
            b.fill(0);
        }
        self.bar_count = [0; NBAR];
        self.bar_expected = [None; NBAR];
        let n = self.threads.len() as u32;
        for (w, m) in self.live.iter_mut().enumerate() {
            *m = lane_mask(n - 32 * w as u32);
        }
        self.wsync.fill(0);
        self.bar_whole.fill(None);
        self.woken.clear();
        self.bar_red = [BarRedState::default(); NBAR];
        self.exits_dirty = false;
        self.clock = 0;
        self.wgmma = None;
        self.tmem = None;
        self.wcache.fill(None);
        self.fresh_groups();
        // Per thread, only what a run can have changed, and only when some instruction
        // changed any of it (`touched`: calls, the stack, local or parameter memory, the
        // carry flag, warp-synchronous and barrier waits): this loop runs for every CTA of a
        // launch (the kernel frame, `frames[0]`, is the same for every CTA of the launch:
        // only calls push and pop frames above it).
        self.sched.fill(Sched::START);
        #[cfg(debug_assertions)]
        if !self.touched {
            for th in &self.threads {
                debug_assert!(
                    th.frames.len() == 1
                        && th.local.is_fresh(f.local_size)
                        && th.local_sp == f.local_size
                        && th.frame_bytes == 0
                        && th.params.iter().all(|&b| b == 0)
                        && th.param_sp == f.param_size
                        && !th.cf
                        && th.sync_mask == 0
                        && th.red_dst.is_none()
                        && !th.cluster_arrived,
                    "a thread record changed without `Cta::touched`"
                );
            }
        }
        if !std::mem::take(&mut self.touched) {
            return;
        }
        for th in &mut self.threads {
            if th.frames.len() > 1 {
                th.frames.truncate(1);
            }
            if !th.local.is_fresh(f.local_size) {
                th.local = LocalMem::new(f.local_size);
            }
            th.local_sp = f.local_size;
            th.frame_bytes = 0;
            if !th.params.is_empty() {
                th.params.fill(0);
            }
            th.param_sp = f.param_size;
            th.cf = false;
            th.sync_mask = 0;
            th.red_dst = None;
            th.cluster_arrived = false;
        }
    }

    /// Takes `n` bytes of the launch's memory budget for this CTA.
    fn charge(&mut self, n: u64) -> bool {
        if self.grid.charge(n) {
            self.charged += n;
            true
        } else {
            false
        }
    }

    /// Returns `n` bytes of the budget.
    fn credit(&mut self, n: u64) {
        let n = n.min(self.charged);
        self.grid.credit(n);
        self.charged -= n;
    }

    /// The fault of a thread whose state does not fit in the launch's memory budget.
    fn out_of_memory(&self, t: usize, what: &str, n: u64) -> Box<Fault> {
        self.fault(
            t,
            FaultKind::StackOverflow,
            format!(
                "out of interpreter memory: {what} needs {n} more bytes, but the CTAs in flight already hold the launch's budget of {} bytes (--launch-memory)",
                self.grid.mem_limit
            ),
        )
    }

    /// The launched kernel's code.
    fn kernel(&self) -> &FuncCode {
        &self.prog.funcs[self.launch.kernel as usize]
    }

    /// Thread `i`'s scheduling record as it stands: the threads of a warp parked at a
    /// barrier (`bar_whole`) wait there, their PC past it, whatever their record says.
    fn sched_at(&self, i: usize) -> Sched {
        let mut s = self.sched.get(i).copied().unwrap_or(Sched::START);
        if let Some(&Some((id, pc, _))) = self.bar_whole.get(i / 32)
            && self.live_lanes(i / 32) >> (i % 32) & 1 == 1
        {
            s.pc = pc;
            s.state = TState::Barrier(id);
        }
        s
    }

    fn site(&self, t: usize) -> Site {
        let th = &self.threads[t];
        let sc = self.sched_at(t);
        let func = th.frames.last().map_or(self.launch.kernel, |f| f.func);
        let fc = &self.prog.funcs[func as usize];
        // A thread waiting at a barrier has already moved past it: report the barrier.
        let pc = if matches!(sc.state, TState::Barrier(_)) {
            sc.pc.saturating_sub(1)
        } else {
            sc.pc
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

    /// Runs for about `slice` warp-instructions: [`Ran::Done`] when every thread has exited,
    /// [`Ran::Sliced`] when the slice is used up, [`Ran::Blocked`] when no thread can run
    /// until the other CTAs of its cluster arrive at the cluster barrier.
    fn run(
        &mut self,
        mem: &AddressSpace,
        stats: &mut Stats,
        budget: &mut Budget,
        slice: u64,
    ) -> Result<Ran, Box<Fault>> {
        let start = self.clock;
        let warp_engine = matches!(self.launch.engine, Engine::Interp | Engine::Jit);
        if self.grid.jit_pending
            && self.jit.is_none()
            && let Some(Ok(code)) = self.kfunc.jit.get()
        {
            self.jit = Some(code.clone());
        }
        loop {
            // A round: a turn of each warp, in order.
            let progressed = if warp_engine {
                self.run_round_fast(mem, stats, budget)?
            } else {
                let mut progressed = false;
                for w in 0..self.nwarps {
                    let mut n = 0;
                    while let Some(g) = self.select(w) {
                        if n >= QUANTUM && self.yields_at(&g) {
                            break;
                        }
                        self.step_group(w, g, mem, stats, budget)?;
                        progressed = true;
                        n += 1;
                    }
                }
                progressed
            };
            if self.live.iter().all(|&m| m == 0) {
                self.wgmma_finish()?;
                self.tcgen05_finish()?;
                return Ok(Ran::Done);
            }
            if !progressed {
                if self.recheck_blocked()? {
                    continue;
                }
                if self.waits_for_cluster() {
                    return Ok(Ran::Blocked);
                }
                return Err(self.deadlock());
            }
            if self.clock - start >= slice {
                return Ok(Ran::Sliced);
            }
        }
    }

    fn deadlock(&self) -> Box<Fault> {
        if let Some(t) =
            (0..self.threads.len()).find(|&i| self.sched_at(i).state == TState::WarpSync)
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
            .filter(|&i| matches!(self.sched_at(i).state, TState::Barrier(_)))
            .collect();
        let exited = (0..self.threads.len())
            .filter(|&i| self.sched_at(i).state == TState::Exited)
            .count();
        let first = waiting.first().copied().unwrap_or(0);
        let mut warps: Vec<String> = Vec::new();
        for w in 0..self.nwarps {
            let lo = (w * 32) as usize;
            let hi = (lo + 32).min(self.sched.len());
            if let Some((i, id, pc)) = (lo..hi).find_map(|i| {
                let sc = self.sched_at(i);
                match sc.state {
                    TState::Barrier(id) => Some((i, id, sc.pc)),
                    _ => None,
                }
            }) {
                let func = self.threads[i].frames.last().map_or(0, |f| f.func);
                let line = self
                    .prog
                    .funcs
                    .get(func as usize)
                    .and_then(|f| f.code.get(pc.saturating_sub(1) as usize))
                    .map_or(0, |i| i.line);
                warps.push(format!("warp {w} waits at {} (line {line})", bar_name(id)));
            }
        }
        let id = match self.sched_at(first).state {
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

    /// Whether a warp's turn may end before group `g` runs: it has run [`QUANTUM`]
    /// instructions and `g` is at a yield point ([`crate::program::yield_points`]).
    #[inline(always)]
    fn yields_at(&self, g: &Group) -> bool {
        self.prog.funcs[g.func as usize]
            .yields
            .get(g.pc as usize)
            .copied()
            .unwrap_or(true)
    }

    /// The function thread `t` is in (the kernel at call depth 1, without reading the frame).
    #[inline(always)]
    fn func_of(&self, t: usize) -> u32 {
        let th = &self.threads[t];
        if th.frames.len() == 1 {
            self.launch.kernel
        } else {
            th.frames.last().map_or(0, |f| f.func)
        }
    }

    /// Picks the group of warp `w` to run next: the ready threads at the lowest (deepest
    /// call, then lowest PC) position, unless they have spun too long and another group can
    /// run. `None` when no thread of the warp can run.
    fn select(&mut self, w: u32) -> Option<Group> {
        if self.live.get(w as usize).is_some_and(|&m| m == 0) {
            // Every thread of the warp has exited.
            return None;
        }
        let lo = (w * 32) as usize;
        let hi = (lo + 32).min(self.threads.len());
        // The lowest (deepest call, then lowest PC, then lowest thread) ready thread, among
        // those not spinning and among those spinning: one key per thread, `!depth` above
        // the PC (a real key is never `u64::MAX`: the depth is at least 1), compared without
        // branches; a strict `<` in thread order keeps the lowest thread on a tie.
        let mut best = (u64::MAX, usize::MAX);
        let mut spinner = (u64::MAX, usize::MAX);
        for (i, t) in self.sched[lo..hi].iter().enumerate() {
            let key = u64::from(!t.depth) << 32 | u64::from(t.pc);
            let ready = t.state == TState::Ready;
            let spinning = t.spins >= SPIN_YIELD;
            let kb = if ready && !spinning { key } else { u64::MAX };
            let ks = if ready && spinning { key } else { u64::MAX };
            if kb < best.0 {
                best = (kb, i);
            }
            if ks < spinner.0 {
                spinner = (ks, i);
            }
        }
        let found = best.0 != u64::MAX;
        let (key, k) = if found { best } else { spinner };
        if key == u64::MAX {
            return None;
        }
        let (pc, leader) = (key as u32, lo + k);
        if !found {
            // Only spinning groups are left: let them go on.
            for i in lo..hi {
                self.sched[i].spins = 0;
            }
        }
        let depth = self.sched[leader].depth;
        let func = self.func_of(leader);
        let spinning = self.sched[leader].spins >= SPIN_YIELD;
        let mut mask = 0u32;
        let mut others = u32::MAX;
        for i in lo..hi {
            let t = &self.sched[i];
            if t.state != TState::Ready {
                continue;
            }
            if t.pc == pc
                && t.depth == depth
                && (depth == 1 || self.threads[i].frames.last().map_or(0, |f| f.func) == func)
                && (t.spins >= SPIN_YIELD) == spinning
            {
                mask |= 1 << (i - lo);
            } else if t.spins < SPIN_YIELD {
                others = if t.depth == depth {
                    others.min(t.pc)
                } else {
                    0
                };
            }
        }
        Some(Group {
            mask,
            pc,
            func,
            depth,
            leader: leader as u32,
            others,
        })
    }

    /// Runs one instruction for group `g` of warp `w`, thread by thread: the reference
    /// semantics of every instruction.
    fn step_group(
        &mut self,
        w: u32,
        g: Group,
        mem: &AddressSpace,
        stats: &mut Stats,
        budget: &mut Budget,
    ) -> Result<(), Box<Fault>> {
        self.sched_epoch += 1;
        let lo = (w * 32) as usize;
        let mut group: [usize; 32] = [0; 32];
        let mut n = 0;
        let mut m = g.mask;
        while m != 0 {
            group[n] = lo + m.trailing_zeros() as usize;
            n += 1;
            m &= m - 1;
        }
        if !budget.take(1) {
            return Err(self.step_limit(g.leader as usize));
        }
        stats.warp_insts += 1;
        self.clock += 1;
        let prog = self.prog;
        let Some(inst) = prog.funcs[g.func as usize].code.get(g.pc as usize) else {
            // Falling off the end of a function body returns.
            for &i in &group[..n] {
                self.ret(i);
            }
            return Ok(());
        };
        if inst.exec.is_collective() {
            let mut active = [0usize; 32];
            let mut na = 0;
            for &i in &group[..n] {
                if self.guard_passes(i, inst) {
                    active[na] = i;
                    na += 1;
                } else {
                    self.sched[i].pc += 1;
                }
            }
            stats.thread_insts += na as u64;
            self.warp_inst(w, &active[..na], inst)?;
            return Ok(());
        }
        for &i in &group[..n] {
            if !self.guard_passes(i, inst) {
                self.sched[i].pc += 1;
                continue;
            }
            stats.thread_insts += 1;
            self.exec(i, inst, mem, budget)?;
        }
        if self.exits_dirty {
            self.recheck_blocked()?;
        }
        Ok(())
    }

    /// The fault of a launch whose step budget ran out at thread `t`.
    fn step_limit(&self, t: usize) -> Box<Fault> {
        self.fault(
            t,
            FaultKind::StepLimit,
            format!(
                "instruction budget exhausted ({} steps: warp instructions, plus one per {BYTES_PER_STEP} bytes copied in bulk or printed): a runaway loop? raise --max-steps",
                self.launch.max_steps
            ),
        )
    }

    /// Charges `bytes` of work (bulk copies, printf) to the step budget.
    fn charge_work(&self, t: usize, budget: &mut Budget, bytes: u64) -> Result<(), Box<Fault>> {
        if budget.take(bytes.div_ceil(BYTES_PER_STEP)) {
            Ok(())
        } else {
            Err(self.step_limit(t))
        }
    }

    fn guard_passes(&self, t: usize, inst: &DInst) -> bool {
        match inst.guard {
            Some((p, neg)) => (self.reg(t, p) != 0) != neg,
            None => true,
        }
    }

    fn reg(&self, t: usize, r: u32) -> u64 {
        let th = &self.threads[t];
        if th.frames.len() == 1 {
            let l = t % 32;
            let wr = &self.wregs[t / 32];
            return match self.kernel().reg_slots.get(r as usize) {
                Some(&RegSlot::B32(i)) => wr.r32[i as usize][l] as u64,
                Some(&RegSlot::B64(i)) => wr.r64[i as usize][l],
                Some(&RegSlot::Pred(i)) => (wr.pred[i as usize] >> l & 1) as u64,
                None => 0,
            };
        }
        th.frames
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
            "%ctaid" => self.ctaid.get(c).copied().unwrap_or(0) as u64,
            "%nctaid" => self.launch.grid.get(c).copied().unwrap_or(1) as u64,
            "%clusterid"
            | "%nclusterid"
            | "%cluster_ctarank"
            | "%is_explicit_cluster"
            | "%cluster_ctaid"
            | "%cluster_nctarank"
            | "%cluster_nctaid" => self.cluster_sreg(name, c),
            "%smid" | "%gridid" => 0,
            "%nsmid" => 1,
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
            let th = &mut self.threads[t];
            if th.frames.len() == 1 {
                let kernel = &prog.funcs[self.launch.kernel as usize];
                let v = v & kernel.reg_masks.get(r as usize).copied().unwrap_or(0);
                let l = t % 32;
                let wr = &mut self.wregs[t / 32];
                match kernel.reg_slots.get(r as usize) {
                    Some(&RegSlot::B32(i)) => wr.r32[i as usize][l] = v as u32,
                    Some(&RegSlot::B64(i)) => wr.r64[i as usize][l] = v,
                    Some(&RegSlot::Pred(i)) => {
                        let p = &mut wr.pred[i as usize];
                        *p = *p & !(1 << l) | ((v as u32 & 1) << l);
                    }
                    None => {}
                }
                return;
            }
            if let Some(f) = th.frames.last_mut() {
                f.regs[r as usize] = v & prog.funcs[f.func as usize].reg_masks[r as usize];
            }
        }
    }

    /// An instruction handed to the wrong family's step: an error in ptxvm, reported as a
    /// fault rather than a panic (the dispatch in [`Cta::exec`] makes it unreachable).
    fn misrouted(&self, t: usize, e: &Exec) -> Box<Fault> {
        self.fault(
            t,
            FaultKind::Unsupported,
            format!("internal error: {e:?} reached the wrong instruction family"),
        )
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

    fn exec(
        &mut self,
        t: usize,
        inst: &DInst,
        mem: &AddressSpace,
        budget: &mut Budget,
    ) -> Result<(), Box<Fault>> {
        match &inst.exec {
            Exec::Mov { .. }
            | Exec::FloatExt { .. }
            | Exec::Mov128 { .. }
            | Exec::Pack { .. }
            | Exec::Unpack { .. }
            | Exec::Int { .. }
            | Exec::IntUn { .. }
            | Exec::Mad { .. }
            | Exec::Float { .. }
            | Exec::FloatUn { .. }
            | Exec::Fma { .. }
            | Exec::IntX { .. }
            | Exec::Carry { .. }
            | Exec::Half { .. }
            | Exec::PredOp { .. } => self.exec_arith(t, inst),
            Exec::Setp { .. }
            | Exec::Set { .. }
            | Exec::Selp { .. }
            | Exec::Testp { .. }
            | Exec::Slct { .. } => self.exec_compare(t, inst),
            Exec::Video { .. } => self.exec_video(t, inst),
            Exec::CvtX { .. } | Exec::CvtRsX4 { .. } | Exec::Cvt { .. } | Exec::Cvta { .. } => {
                self.exec_convert(t, inst)
            }
            Exec::Nop
            | Exec::Discard { .. }
            | Exec::Isspacep { .. }
            | Exec::Alloca { .. }
            | Exec::StackSave { .. }
            | Exec::StackRestore { .. }
            | Exec::Ld { .. }
            | Exec::St { .. }
            | Exec::Atom { .. }
            | Exec::AtomV { .. }
            | Exec::Atom128 { .. }
            | Exec::RedAsync { .. }
            | Exec::StAsync { .. }
            | Exec::CpAsync { .. }
            | Exec::CpBulk { .. }
            | Exec::CpReduceBulk { .. }
            | Exec::Tma(_)
            | Exec::Mapa { .. }
            | Exec::GetCtaRank { .. }
            | Exec::CpBulkMulticast { .. }
            | Exec::Multimem(_)
            | Exec::CpBulkMasked { .. } => self.exec_memory(t, inst, mem, budget),
            Exec::Builtin { .. }
            | Exec::BrxIdx { .. }
            | Exec::Bra { .. }
            | Exec::Ret
            | Exec::Exit
            | Exec::Trap
            | Exec::Brkpt
            | Exec::Fence
            | Exec::Call { .. }
            | Exec::CallIndirect { .. } => self.exec_control(t, inst, mem, budget),
            // The scheduler runs these for the whole warp (`warp_inst`), never one thread.
            Exec::Warp { .. } | Exec::Matrix { .. } => {
                Err(self.unsupported(t, "warp instruction outside the warp scheduler"))
            }
            Exec::Bar { .. }
            | Exec::BarRed { .. }
            | Exec::MBar { .. }
            | Exec::MBarPending { .. }
            | Exec::ClusterBar { .. }
            | Exec::TryCancel { .. }
            | Exec::QueryCancel { .. } => self.exec_sync(t, inst, mem),
            Exec::Unsupported(what) => Err(self.unsupported(t, what)),
            Exec::Texture(_) => self.exec_texture(t, inst, mem),
            Exec::WgmmaChecked(inner) => {
                self.wgmma_check(t, &inner.exec)?;
                self.exec(t, inner, mem, budget)
            }
        }
    }

    /// The `(function, depth, pc)` a thread is at.
    fn site_of(&self, t: usize) -> (u32, usize, u32) {
        let th = &self.threads[t];
        (
            th.frames.last().map_or(0, |f| f.func),
            th.frames.len(),
            self.sched_at(t).pc,
        )
    }

    /// Lanes of warp `w` that exist and have not exited.
    fn live_lanes(&self, w: usize) -> u32 {
        self.live.get(w).copied().unwrap_or(0)
    }

    /// Re-checks barriers and warp syncs after threads exited. Returns whether anything
    /// was released.
    fn recheck_blocked(&mut self) -> Result<bool, Box<Fault>> {
        self.exits_dirty = false;
        let mut any = false;
        for id in 0..NBAR {
            // (A barrier no thread has arrived at cannot complete: `check_barrier`'s own
            // first test, here without the call for each of them at every warp's exit.)
            if self.bar_arrived(id) != 0 {
                any |= self.check_barrier(id);
            }
        }
        for w in 0..self.nwarps as usize {
            // (Only a warp with threads waiting at a warp-synchronous instruction can wake.)
            if self.wsync.get(w).is_some_and(|&m| m != 0) {
                any |= self.release_warp_syncs(w)?;
            }
        }
        if any {
            // Threads woke: the warp engine's kept groups may no longer be what `select`
            // picks. (When nothing woke, no thread outside the stepping warp changed.)
            self.sched_epoch += 1;
        }
        Ok(any)
    }
}

/// The lanes of a warp of `n` threads (the low `min(n, 32)` bits).
fn lane_mask(n: u32) -> u32 {
    if n >= 32 { u32::MAX } else { (1u32 << n) - 1 }
}

/// How diagnostics name barrier slot `id`.
fn bar_name(id: u8) -> String {
    if id as usize == CLUSTER_BAR {
        "the cluster barrier (barrier.cluster)".into()
    } else {
        format!("barrier {id}")
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

/// The generic address of a parameter-space address: a kernel parameter (tagged) in the
/// low half of the parameter window, a function parameter of the thread in the high half.
/// `cvta` of an address: to the generic address space (`to` false) or from it.
#[inline(always)]
fn cvta_value(space: MemSpace, to: bool, v: u64) -> u64 {
    let base = match space {
        MemSpace::Shared => SHARED_WINDOW,
        MemSpace::Local => LOCAL_WINDOW,
        _ => 0,
    };
    match (space, to) {
        // Parameter space: a kernel parameter (tagged) or a function parameter of this
        // thread, each in its half of the window.
        (MemSpace::Param, false) => generic_of_param(v),
        (MemSpace::Param, true) => param_of_generic(v).unwrap_or(v),
        (_, true) => v.wrapping_sub(base),
        (_, false) => v.wrapping_add(base),
    }
}

fn generic_of_param(a: u64) -> u64 {
    let half = PARAM_WINDOW_SIZE / 2;
    if a & KPARAM_TAG != 0 {
        PARAM_WINDOW + ((a & !KPARAM_TAG) % half)
    } else {
        PARAM_WINDOW + half + (a % half)
    }
}

/// The parameter-space address of a generic address in the parameter window.
fn param_of_generic(a: u64) -> Option<u64> {
    let half = PARAM_WINDOW_SIZE / 2;
    let off = a
        .checked_sub(PARAM_WINDOW)
        .filter(|&o| o < PARAM_WINDOW_SIZE)?;
    Some(if off < half {
        off | KPARAM_TAG
    } else {
        off - half
    })
}

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
        AccessError::OutOfMemory(m) => (FaultKind::StackOverflow, m),
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
