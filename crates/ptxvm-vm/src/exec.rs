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

mod fast;
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
/// The slot of `barrier.cluster.arrive`/`.wait`: with a 1×1×1 cluster it spans the CTA.
const CLUSTER_BAR: usize = 16;
/// Consecutive backward branches after which a group yields to its warp's other groups.
pub const SPIN_YIELD: u32 = 64;
/// Instructions a warp runs before the next warp of its CTA gets a turn.
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
const SHARED_ALLOC_UNIT: usize = 128;

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

#[derive(Debug)]
struct Thread {
    pc: u32,
    state: TState,
    tid: [u32; 3],
    lane: u32,
    frames: Vec<Frame>,
    local: LocalMem,
    local_sp: u32,
    /// Bytes of saved registers of the call frames above the kernel's (on the stack).
    frame_bytes: u64,
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
    depth: usize,
    leader: usize,
    others: u32,
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
    bar_whole: Vec<Option<(u8, u32, u32)>>,
    /// The `bar_whole` records the last barrier completion released (warp, PC, spins).
    woken: Vec<(u32, u32, u32)>,
    bar_red: [BarRedState; NBAR],
    /// Set when a thread exits, so blocked barriers and warp syncs are re-checked.
    exits_dirty: bool,
    /// The kernel's native code, once compiled (see [`Grid::jit_pending`]).
    jit: Option<std::sync::Arc<jit::JitCode>>,
    /// Warp-instructions issued in this CTA so far: the CTA's `%clock64`, and its
    /// `%globaltimer` at one nanosecond per instruction (deterministic, monotonic).
    clock: u64,
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
    /// The kernel's native code (the JIT engine), when it compiled before the launch.
    jit: Option<std::sync::Arc<jit::JitCode>>,
    /// The kernel is being compiled in the background: look for its code between slices.
    jit_pending: bool,
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
    fn finish(&self, i: usize, cta: &mut Cta, st: &Stats) {
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
        self.warp_insts.fetch_add(st.warp_insts, Ordering::Relaxed);
        self.thread_insts
            .fetch_add(st.thread_insts, Ordering::Relaxed);
        for (t, n) in self.tiers.iter().zip(st.tiers) {
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
    let grid = Grid {
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
    };
    let next = AtomicUsize::new(0);
    let workers = launch.threads.clamp(1, total.clamp(1, MAX_WORKERS));
    // Memory freed while this launch runs stays mapped until it ends.
    let _in_flight = mem.launch_guard();
    let ctaid = |i: usize| {
        [
            (i % gx as usize) as u32,
            ((i / gx as usize) % gy as usize) as u32,
            (i / (gx as usize * gy as usize)) as u32,
        ]
    };
    let work = || {
        let mut budget = Budget {
            local: 0,
            grid: &grid,
            stopped: false,
        };
        let mut resident: VecDeque<(usize, Cta, Stats)> = VecDeque::new();
        // A finished CTA whose memory the next one reuses.
        let mut spare: Option<Cta> = None;
        // A CTA index taken from the grid that did not fit in the memory budget yet.
        let mut pending: Option<usize> = None;
        let mut admit = true;
        loop {
            if grid.stop.load(Ordering::Relaxed) {
                break;
            }
            if (admit || resident.is_empty()) && resident.len() < MAX_RESIDENT {
                let i = pending.take().or_else(|| {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    (i < total).then_some(i)
                });
                if let Some(i) = i {
                    match Cta::new(prog, launch, &grid, mem, ctaid(i), &mut spare) {
                        Some(cta) => resident.push_back((i, cta, Stats::default())),
                        None if resident.is_empty() => {
                            // Other host threads hold the memory: wait for them.
                            pending = Some(i);
                            std::thread::sleep(std::time::Duration::from_millis(1));
                            continue;
                        }
                        None => pending = Some(i),
                    }
                }
            }
            let Some((i, mut cta, mut st)) = resident.pop_front() else {
                if pending.is_some() {
                    continue;
                }
                break;
            };
            match cta.run(mem, &mut st, &mut budget, SLICE) {
                Ok(true) => {
                    grid.finish(i, &mut cta, &st);
                    admit = resident.is_empty();
                    // Its memory serves the next CTA; its budget goes back now.
                    cta.credit(cta.charged);
                    spare = Some(cta);
                }
                Ok(false) => {
                    resident.push_back((i, cta, st));
                    admit = true;
                }
                Err(f) => {
                    if !budget.stopped {
                        grid.record(i, f);
                    }
                    grid.finish(i, &mut cta, &st);
                    break;
                }
            }
        }
        // Stopped: keep what the CTAs in flight printed so far.
        for (i, mut cta, st) in resident {
            grid.finish(i, &mut cta, &st);
        }
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
        spare: &mut Option<Cta<'a>>,
    ) -> Option<Cta<'a>> {
        let base = cta_base_memory(prog, launch);
        if !grid.charge(base) {
            return None;
        }
        if let Some(mut cta) = spare.take() {
            cta.reset(ctaid, base);
            return Some(cta);
        }
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
                // Backed page by page as it is written, up to `launch.local_size`.
                local: LocalMem::new(f.local_size),
                local_sp: f.local_size,
                frame_bytes: 0,
                params: vec![0; f.param_size as usize],
                param_sp: f.param_size,
                spins: 0,
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
        Some(Cta {
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
            jit: grid.jit.clone(),
            clock: 0,
        })
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
        for w in &mut self.wregs {
            w.r32.fill([0; 32]);
            w.r64.fill([0; 32]);
            w.pred.fill(0);
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
        self.wcache.fill(None);
        for th in &mut self.threads {
            th.pc = 0;
            th.state = TState::Ready;
            th.frames.truncate(1);
            if let Some(fr) = th.frames.first_mut() {
                fr.func = self.launch.kernel;
                fr.regs.clear();
                fr.local_base = 0;
                fr.param_base = 0;
                fr.ret_pc = u32::MAX;
                fr.rets.clear();
            }
            th.local = LocalMem::new(f.local_size);
            th.local_sp = f.local_size;
            th.frame_bytes = 0;
            if !th.params.is_empty() {
                th.params.fill(0);
            }
            th.param_sp = f.param_size;
            th.spins = 0;
            th.cf = false;
            th.sync_mask = 0;
            th.red_dst = None;
            th.cluster_arrived = false;
            th.out.clear();
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

    /// Runs for about `slice` warp-instructions: `Ok(true)` when every thread has exited,
    /// `Ok(false)` when the slice is used up.
    fn run(
        &mut self,
        mem: &AddressSpace,
        stats: &mut Stats,
        budget: &mut Budget,
        slice: u64,
    ) -> Result<bool, Box<Fault>> {
        let start = self.clock;
        let warp_engine = matches!(self.launch.engine, Engine::Interp | Engine::Jit);
        if self.grid.jit_pending
            && self.jit.is_none()
            && let Some(Ok(code)) = self.kfunc.jit.get()
        {
            self.jit = Some(code.clone());
        }
        loop {
            let mut progressed = false;
            for w in 0..self.nwarps {
                if warp_engine {
                    progressed |= self.run_quantum_fast(w, mem, stats, budget)?;
                    continue;
                }
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
            if self.live.iter().all(|&m| m == 0) {
                return Ok(true);
            }
            if !progressed {
                if self.recheck_blocked()? {
                    continue;
                }
                return Err(self.deadlock());
            }
            if self.clock - start >= slice {
                return Ok(false);
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
        match self.select(w) {
            Some(g) => {
                self.step_group(w, g, mem, stats, budget)?;
                Ok(true)
            }
            None => Ok(false),
        }
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
        let lo = (w * 32) as usize;
        let hi = (lo + 32).min(self.threads.len());
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
        let (_, pc, leader) = best.or(spinner)?;
        if best.is_none() {
            // Only spinning groups are left: let them go on.
            for i in lo..hi {
                self.threads[i].spins = 0;
            }
        }
        let depth = self.threads[leader].frames.len();
        let func = self.func_of(leader);
        let spinning = self.threads[leader].spins >= SPIN_YIELD;
        let mut mask = 0u32;
        let mut others = u32::MAX;
        for i in lo..hi {
            let t = &self.threads[i];
            if t.state != TState::Ready {
                continue;
            }
            if t.pc == pc
                && t.frames.len() == depth
                && (depth == 1 || t.frames.last().map_or(0, |f| f.func) == func)
                && (t.spins >= SPIN_YIELD) == spinning
            {
                mask |= 1 << (i - lo);
            } else if t.spins < SPIN_YIELD {
                others = if t.frames.len() == depth {
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
            leader,
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
            return Err(self.step_limit(g.leader));
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
            return Ok(());
        }
        for &i in &group[..n] {
            if !self.guard_passes(i, inst) {
                self.threads[i].pc += 1;
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
            if let Some(p) = param_of_generic(addr) {
                return (MemSpace::Param, p);
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
            return Err(self.misaligned(t, space, addr, len, "read", mem));
        }
        let r = match space {
            MemSpace::Global | MemSpace::Const | MemSpace::Generic => mem.read_guest(addr, buf),
            MemSpace::Shared => slice_read(&self.shared, addr, buf, "shared memory"),
            MemSpace::Local => self.threads[t].local.read(addr, buf),
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
            return Err(self.misaligned(t, space, addr, len, "write", mem));
        }
        let r = match space {
            MemSpace::Global | MemSpace::Generic => mem.write_guest(addr, data),
            MemSpace::Const => Err(AccessError::ReadOnly("constant memory is read-only".into())),
            MemSpace::Shared => slice_write(&mut self.shared, addr, data, "shared memory"),
            MemSpace::Local => {
                let grid = self.grid;
                let mut added = 0u64;
                let r = self.threads[t].local.write(addr, data, &mut |n| {
                    if grid.charge(n) {
                        added += n;
                        Ok(())
                    } else {
                        Err(AccessError::OutOfMemory(format!(
                            "out of interpreter memory: a page of local memory does not fit in the launch's budget of {} bytes, which the CTAs in flight hold (--launch-memory)",
                            grid.mem_limit
                        )))
                    }
                });
                self.charged += added;
                r
            }
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

    /// `atom`/`red` of thread `t` at a resolved address: global memory through the host's
    /// atomic instructions (atomic across CTAs and streams), shared and local memory (private
    /// to this CTA or thread, which one host thread runs) by a read and a write. Returns the
    /// old value.
    #[allow(clippy::too_many_arguments)]
    fn atomic(
        &mut self,
        t: usize,
        sp: MemSpace,
        at: u64,
        op: AtomOp,
        ty: Type,
        b: u64,
        c: u64,
        mem: &AddressSpace,
    ) -> Result<u64, Box<Fault>> {
        let w = ty.bytes() as usize;
        if matches!(sp, MemSpace::Global | MemSpace::Generic) {
            if !at.is_multiple_of(w as u64) {
                return Err(self.misaligned(t, sp, at, w, "read", mem));
            }
            return match mem.atomic_rmw(at, w, |old| atom_op(op, ty, old as u64, b, c) as u128) {
                Ok(old) => Ok(old as u64),
                Err((e, write)) => {
                    Err(self.access_fault(t, if write { "write" } else { "read" }, sp, at, w, e))
                }
            };
        }
        let mut buf = [0u8; 8];
        self.load(t, sp, at, &mut buf[..w], mem)?;
        let old = u64::from_le_bytes(buf);
        let new = atom_op(op, ty, old, b, c);
        self.store(t, sp, at, &new.to_le_bytes()[..w], mem)?;
        Ok(old)
    }

    /// The fault of a misaligned access.
    fn misaligned(
        &self,
        t: usize,
        space: MemSpace,
        addr: u64,
        len: usize,
        what: &str,
        mem: &AddressSpace,
    ) -> Box<Fault> {
        self.fault(
            t,
            FaultKind::Misaligned,
            format!(
                "misaligned {} {what} of {len} bytes at {addr:#x}{}",
                space_name(space),
                where_in(space, addr, mem)
            ),
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

    /// Thread `t` exits (blocked barriers and warp syncs are re-checked after the step).
    fn exit_thread(&mut self, t: usize) {
        self.threads[t].state = TState::Exited;
        if let Some(m) = self.live.get_mut(t / 32) {
            *m &= !(1 << (t % 32));
        }
        self.exits_dirty = true;
    }

    fn ret(&mut self, t: usize) {
        let th = &mut self.threads[t];
        if th.frames.len() <= 1 {
            self.exit_thread(t);
            return;
        }
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
        th.pc = fr.ret_pc;
        self.credit(frame);
    }

    fn exec(
        &mut self,
        t: usize,
        inst: &DInst,
        mem: &AddressSpace,
        budget: &mut Budget,
    ) -> Result<(), Box<Fault>> {
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
                let v = fma_bits(*ty, *rnd, *ftz, *sat, a, b, c);
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
                let in_param = param_of_generic(a).is_some();
                let r = match space {
                    MemSpace::Shared => in_shared,
                    MemSpace::Local => in_local,
                    MemSpace::Global => !in_shared && !in_local && !in_param && mem.contains(a),
                    MemSpace::Const => {
                        !in_shared && !in_local && !in_param && mem.contains(a) && mem.is_const(a)
                    }
                    MemSpace::Param => in_param,
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
                match end {
                    Some(e) if self.stack_fits(t, e, self.threads[t].param_sp as u64, 0) => {
                        let th = &mut self.threads[t];
                        th.local.reserve(e as u32);
                        th.local_sp = e as u32;
                        self.write(t, *d, base);
                    }
                    _ => {
                        return Err(self.fault(
                            t,
                            FaultKind::StackOverflow,
                            format!(
                                "alloca of {size} bytes exhausts the stack ({} bytes of local memory per thread, --local-memory)",
                                self.launch.local_size
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
                self.builtin(t, *which, args, rets, mem, budget)?;
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
                self.write(t, *d, cvta_value(*space, *to, v));
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
                let (b, c) = (self.src(t, *b), self.src(t, *c));
                let old = self.atomic(t, sp, at, *op, *ty, b, c, mem)?;
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
                // The copy is work: it costs its bytes before it starts.
                self.charge_work(t, budget, n)?;
                // In 16-byte pieces (each access is checked at its own natural alignment).
                let mut piece = [0u8; 16];
                for off in (0..n).step_by(16) {
                    self.load(t, ss, sa.wrapping_add(off), &mut piece, mem)?;
                    self.store(t, ds, da.wrapping_add(off), &piece, mem)?;
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
        th.pc = 0;

        Ok(())
    }

    /// Whether thread `t`'s stack fits in its local memory with `local` bytes of local
    /// variables, `param` bytes of parameter area and `more` bytes of saved registers on
    /// top of the frames it has.
    fn stack_fits(&self, t: usize, local: u64, param: u64, more: u64) -> bool {
        let th = &self.threads[t];
        local
            .saturating_add(param)
            .saturating_add(th.frame_bytes)
            .saturating_add(more)
            <= self.launch.local_size as u64
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
            MemSpace::Local => self.threads[t].local.read(a, buf),
            MemSpace::Param if a & KPARAM_TAG != 0 => slice_read(
                &self.launch.params,
                a & !KPARAM_TAG,
                buf,
                "kernel parameters",
            ),
            MemSpace::Param => slice_read(&self.threads[t].params, a, buf, "parameter space"),
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
                self.wsync[i / 32] |= 1 << (i % 32);
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
                    self.wsync[i / 32] |= 1 << (i % 32);
                }
                self.release_warp_syncs(w as usize)?;
            }
        }
        Ok(())
    }

    /// Completes every `.sync` instruction of warp `w` whose member lanes have all arrived.
    fn release_warp_syncs(&mut self, w: usize) -> Result<bool, Box<Fault>> {
        let lo = w * 32;
        let mut done: Vec<usize> = Vec::new();
        for l in fast::lanes(self.wsync.get(w).copied().unwrap_or(0)) {
            let i = lo + l;
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
                self.wsync[i / 32] &= !(1 << (i % 32));
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
        self.bar_count[id]
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
        let (w, lane) = (t / 32, self.threads[t].lane);
        let arrived = self.bar_mark(id, w, 1 << lane, count.map(|c| c as u32));
        if let Some((op, p)) = red {
            let r = &mut self.bar_red[id];
            r.op = Some(op);
            r.popc += p as u32;
            r.all &= p;
            r.any |= p;
        }
        if wait {
            self.threads[t].state = TState::Barrier(id as u8);
        }
        // Only an arrival that completes its warp's arrival can complete the barrier (exits
        // are rechecked by `recheck_blocked`); checking on every thread made a 1024-thread
        // `bar.sync` cost O(threads^2).
        let live = self.live_lanes(w);
        if arrived != 0 && arrived & live == live {
            self.check_barrier(id);
        }
        Ok(())
    }

    /// Lanes `lanes` of warp `w` arrive at barrier `id`; the first arrival of a phase opens
    /// it with its expected thread `count`. Returns the warp's lanes arrived so far.
    fn bar_mark(&mut self, id: usize, w: usize, lanes: u32, count: Option<u32>) -> u32 {
        if self.bar_count[id] == 0 {
            self.bar_expected[id] = count;
            self.bar_red[id] = BarRedState {
                op: None,
                popc: 0,
                all: true,
                any: false,
            };
        }
        let Some(m) = self.bar_lanes[id].get_mut(w) else {
            return 0;
        };
        self.bar_count[id] += (lanes & !*m).count_ones();
        *m |= lanes;
        *m
    }

    /// Lanes of warp `w` that exist and have not exited.
    fn live_lanes(&self, w: usize) -> u32 {
        self.live.get(w).copied().unwrap_or(0)
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
        self.woken.clear();
        for (w, rec) in self.bar_whole.iter_mut().enumerate() {
            if let Some((rid, pc, spins)) = *rec
                && rid as usize == id
            {
                self.woken.push((w as u32, pc, spins));
                *rec = None;
            }
        }
        let r = self.bar_red[id];
        let mut results = Vec::new();
        // The threads waiting at the barrier are among those that arrived in this phase.
        for (w, &arrived) in self.bar_lanes[id].iter().enumerate() {
            for l in fast::lanes(arrived) {
                let t = w * 32 + l;
                let Some(th) = self.threads.get_mut(t) else {
                    continue;
                };
                if th.state != TState::Barrier(id as u8) {
                    continue;
                }
                th.state = TState::Ready;
                if let (Some(d), Some(op)) = (th.red_dst.take(), r.op) {
                    let v = match op {
                        BarRedOp::Popc => r.popc as u64,
                        BarRedOp::And => r.all as u64,
                        BarRedOp::Or => r.any as u64,
                    };
                    results.push((t, d, v));
                }
            }
        }
        for (t, d, v) in results {
            self.write(t, d, v);
        }
        for m in &mut self.bar_lanes[id] {
            *m = 0;
        }
        self.bar_count[id] = 0;
        self.bar_expected[id] = None;
        true
    }

    /// Re-checks barriers and warp syncs after threads exited. Returns whether anything
    /// was released.
    fn recheck_blocked(&mut self) -> Result<bool, Box<Fault>> {
        self.exits_dirty = false;
        self.sched_epoch += 1;
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
