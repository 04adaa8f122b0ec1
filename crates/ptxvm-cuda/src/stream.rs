//! Streams, events and host callbacks.
//!
//! A stream is a FIFO of operations run in order by its own worker thread (started at the
//! first operation, parked while idle), so streams run concurrently with each other and
//! with the host. Ordering between streams is itself an operation: a `Wait` that blocks the
//! worker until another stream has completed a given sequence number. That one mechanism
//! gives `cuStreamWaitEvent` and the legacy default stream's implicit synchronisation: work
//! on the legacy stream first waits for everything already submitted to the context's
//! blocking streams, and work on a blocking stream first waits for what the legacy stream
//! has been given (non-blocking streams wait for nothing). Dependencies only point at work
//! submitted earlier, so they cannot form a cycle.
//!
//! A synchronous operation (a blocking copy) on an idle stream runs on the calling thread
//! instead of the worker, holding the stream so later submissions queue behind it.
//!
//! Errors: an operation that fails (a kernel fault) sets its context's sticky error; every
//! later operation of that context is skipped, and synchronising calls return the error.

use crate::abi::*;
use crate::context::Context;
use crate::driver::{Error, R, api, context, current, drv, out};
use crate::types::*;
use std::collections::VecDeque;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::Instant;

/// A queued operation.
pub enum Op {
    /// Runs on the worker (a copy, a launch, a callback, an event's timestamp).
    Run(Box<dyn FnOnce() + Send>),
    /// Blocks the worker until `stream` has completed `seq` operations.
    Wait(Arc<StreamCore>, u64),
}

struct Queue {
    ops: VecDeque<Op>,
    /// Operations submitted and completed so far (sequence numbers are 1-based).
    submitted: u64,
    completed: u64,
    /// An operation is running (on the worker or inline on a caller).
    busy: bool,
    worker: bool,
    shutdown: bool,
}

/// The executing part of a stream.
pub struct StreamCore {
    pub id: u64,
    /// Mirrors of `Queue::submitted`/`completed`, read without the lock by short spins.
    submitted_hint: AtomicU64,
    completed_hint: AtomicU64,
    /// Blocking streams synchronise with the legacy default stream.
    pub blocking: bool,
    pub priority: i32,
    q: Mutex<Queue>,
    cv: Condvar,
}

static NEXT_STREAM_ID: AtomicU64 = AtomicU64::new(1);

/// How long a waiting thread spins before it sleeps.
const SPIN: std::time::Duration = std::time::Duration::from_micros(50);
/// After this much spinning a waiting thread yields its core between looks: when the thread
/// it waits for shares that core (a busy host, or fewer free cores than waiting threads),
/// pure spinning would hold the core until the spin runs out (then every launch round trip
/// costs two whole spins, `benches/launch.rs`).
const SPIN_BEFORE_YIELD: std::time::Duration = std::time::Duration::from_micros(2);

impl StreamCore {
    pub fn new(blocking: bool, priority: i32) -> Arc<StreamCore> {
        Arc::new(StreamCore {
            id: NEXT_STREAM_ID.fetch_add(1, Ordering::Relaxed),
            submitted_hint: AtomicU64::new(0),
            completed_hint: AtomicU64::new(0),
            blocking,
            priority,
            q: Mutex::new(Queue {
                ops: VecDeque::new(),
                submitted: 0,
                completed: 0,
                busy: false,
                worker: false,
                shutdown: false,
            }),
            cv: Condvar::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.q.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The last submitted sequence number, if it has not completed yet.
    pub fn pending(&self) -> Option<u64> {
        let q = self.lock();
        (q.completed < q.submitted).then_some(q.submitted)
    }

    /// Whether everything submitted has completed.
    pub fn idle(&self) -> bool {
        let q = self.lock();
        q.completed == q.submitted
    }

    /// Queues operations; returns the sequence number of the last.
    pub fn submit(self: &Arc<Self>, ops: Vec<Op>) -> u64 {
        let mut q = self.lock();
        for op in ops {
            q.ops.push_back(op);
            q.submitted += 1;
        }
        let seq = q.submitted;
        self.submitted_hint.store(seq, Ordering::Release);
        if !q.worker && !q.shutdown {
            q.worker = true;
            let me = self.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("ptxvm-stream-{}", self.id))
                .spawn(move || me.work());
            if spawned.is_err() {
                // No thread: run the queue on this caller (still in order).
                q.worker = false;
                drop(q);
                self.drain_here();
                return seq;
            }
        }
        self.cv.notify_all();
        seq
    }

    /// Runs queued operations on the calling thread (when no worker can be started).
    fn drain_here(self: &Arc<Self>) {
        loop {
            let op = {
                let mut q = self.lock();
                if q.busy {
                    return;
                }
                match q.ops.pop_front() {
                    Some(op) => {
                        q.busy = true;
                        op
                    }
                    None => return,
                }
            };
            run_op(op);
            self.finish_one();
        }
    }

    fn finish_one(&self) {
        let mut q = self.lock();
        q.busy = false;
        q.completed += 1;
        self.completed_hint.store(q.completed, Ordering::Release);
        self.cv.notify_all();
    }

    /// Spins for up to [`SPIN`] while `until` is false (a launch round trip is then a few
    /// microseconds instead of two futex sleeps and wake-ups); returns whether it became
    /// true. As the real driver's default scheduling, which spins before it yields.
    fn spin(until: impl Fn() -> bool) -> bool {
        let t0 = Instant::now();
        let mut n = 0u32;
        let mut yielding = false;
        while !until() {
            n += 1;
            if yielding || n.is_multiple_of(64) {
                let e = t0.elapsed();
                if e > SPIN {
                    return false;
                }
                yielding = e > SPIN_BEFORE_YIELD;
            }
            if yielding {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        true
    }

    fn work(self: Arc<Self>) {
        loop {
            // New work usually follows soon (a launch after a copy, the next iteration's
            // launch): look for it briefly before sleeping.
            let done = self.completed_hint.load(Ordering::Acquire);
            Self::spin(|| self.submitted_hint.load(Ordering::Acquire) > done);
            let op = {
                let mut q = self.lock();
                loop {
                    if !q.busy
                        && let Some(op) = q.ops.pop_front()
                    {
                        q.busy = true;
                        break op;
                    }
                    if q.shutdown && q.ops.is_empty() {
                        q.worker = false;
                        self.cv.notify_all();
                        return;
                    }
                    q = self.cv.wait(q).unwrap_or_else(|e| e.into_inner());
                }
            };
            run_op(op);
            self.finish_one();
        }
    }

    /// Runs `f` on the calling thread when the stream is idle, as its next operation;
    /// otherwise queues it and waits. Returns after it ran.
    pub fn run_sync(self: &Arc<Self>, waits: Vec<Op>, f: Box<dyn FnOnce() + Send>) {
        {
            let mut q = self.lock();
            let deps_done = waits.iter().all(|w| match w {
                Op::Wait(s, seq) => Arc::ptr_eq(s, self) || s.completed_at_least(*seq),
                Op::Run(_) => false,
            });
            if !q.busy && q.ops.is_empty() && deps_done {
                q.busy = true;
                q.submitted += 1;
                self.submitted_hint.store(q.submitted, Ordering::Release);
                drop(q);
                f();
                self.finish_one();
                return;
            }
        }
        let mut ops = waits;
        ops.push(Op::Run(f));
        let seq = self.submit(ops);
        self.wait_for(seq);
    }

    pub fn completed_at_least(&self, seq: u64) -> bool {
        self.lock().completed >= seq
    }

    /// Blocks until `seq` operations have completed.
    pub fn wait_for(&self, seq: u64) {
        if Self::spin(|| self.completed_hint.load(Ordering::Acquire) >= seq) {
            return;
        }
        let mut q = self.lock();
        while q.completed < seq {
            q = self.cv.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Blocks until everything submitted so far has completed.
    pub fn synchronize(&self) {
        let seq = self.lock().submitted;
        self.wait_for(seq);
    }

    /// Lets the worker exit once the queue is empty.
    pub fn shutdown(&self) {
        let mut q = self.lock();
        q.shutdown = true;
        self.cv.notify_all();
    }
}

fn run_op(op: Op) {
    match op {
        Op::Run(f) => {
            // A panic in an operation must not kill the worker (and with it the stream).
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
                crate::diag::say("internal error in a stream operation (ignored)");
            }
        }
        Op::Wait(s, seq) => s.wait_for(seq),
    }
}

/// A user-created stream.
pub struct Stream {
    pub ctx: usize,
    pub flags: u32,
    pub core: Arc<StreamCore>,
}

/// How a stream argument is read: the legacy entry points take NULL as the legacy default
/// stream, the `_ptds`/`_ptsz` ones as the calling thread's per-thread default stream.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum DefaultStream {
    Legacy,
    PerThread,
}

/// A stream argument resolved: its context and executing core.
pub struct Target {
    pub ctx_handle: usize,
    pub ctx: Arc<Context>,
    pub core: Arc<StreamCore>,
    pub handle: usize,
}

/// Resolves a stream argument.
pub fn target(h: Handle, mode: DefaultStream) -> R<Target> {
    let raw = h as usize;
    if raw == 0 || raw == CU_STREAM_LEGACY || raw == CU_STREAM_PER_THREAD {
        let (ch, ctx) = current()?;
        let per_thread =
            raw == CU_STREAM_PER_THREAD || (raw == 0 && mode == DefaultStream::PerThread);
        let core = if per_thread {
            ctx.per_thread_stream()
        } else {
            ctx.legacy.clone()
        };
        return Ok(Target {
            ctx_handle: ch,
            ctx,
            core,
            handle: raw,
        });
    }
    let d = drv()?;
    let s = d
        .streams
        .get(raw)
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
    let (ch, ctx) = context(s.ctx as Handle)?;
    Ok(Target {
        ctx_handle: ch,
        ctx,
        core: s.core.clone(),
        handle: raw,
    })
}

impl Target {
    /// The waits that order new work on this stream after the legacy default stream
    /// (for a blocking stream) or after every blocking stream (for the legacy stream).
    pub fn implicit_waits(&self) -> Vec<Op> {
        let mut waits = Vec::new();
        if Arc::ptr_eq(&self.core, &self.ctx.legacy) {
            for s in self.ctx.blocking_streams() {
                if let Some(seq) = s.pending() {
                    waits.push(Op::Wait(s, seq));
                }
            }
        } else if self.core.blocking
            && let Some(seq) = self.ctx.legacy.pending()
        {
            waits.push(Op::Wait(self.ctx.legacy.clone(), seq));
        }
        waits
    }

    /// Queues `f` (skipped when the context has failed by the time it runs).
    pub fn enqueue(&self, f: impl FnOnce() + Send + 'static) -> u64 {
        let mut ops = self.implicit_waits();
        let ctx = self.ctx.clone();
        ops.push(Op::Run(Box::new(move || {
            if ctx.sticky() == 0 {
                f()
            }
        })));
        self.core.submit(ops)
    }

    /// Runs `f` in stream order and waits for it (a blocking copy); returns the context's
    /// error afterwards, if any.
    pub fn run_sync(&self, f: impl FnOnce() + Send + 'static) -> R {
        self.ctx.check()?;
        let waits = self.implicit_waits();
        let ctx = self.ctx.clone();
        self.core.run_sync(
            waits,
            Box::new(move || {
                if ctx.sticky() == 0 {
                    f()
                }
            }),
        );
        self.ctx.flush_printf();
        self.ctx.check()
    }

    /// Waits for everything queued on the stream so far.
    pub fn synchronize(&self) -> R {
        self.core.synchronize();
        self.ctx.flush_printf();
        self.ctx.check()
    }
}

// ---------------------------------------------------------------------------------------
// Stream entry points.

fn create_stream(ph: *mut Handle, flags: u32, priority: i32) -> R {
    let d = drv()?;
    let (ch, ctx) = current()?;
    let blocking = flags & CU_STREAM_NON_BLOCKING == 0;
    let core = StreamCore::new(blocking, priority.clamp(-5, 0));
    ctx.add_stream(&core);
    let h = d.streams.insert(Arc::new(Stream {
        ctx: ch,
        flags,
        core,
    }));
    // SAFETY: the client's out-pointer.
    unsafe { out(ph, h as Handle) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamCreate(ph: *mut Handle, flags: u32) -> CUresult {
    api("cuStreamCreate", || create_stream(ph, flags, 0))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamCreateWithPriority(
    ph: *mut Handle,
    flags: u32,
    priority: i32,
) -> CUresult {
    api("cuStreamCreateWithPriority", || {
        create_stream(ph, flags, priority)
    })
}

fn destroy_stream(h: Handle) -> R {
    let d = drv()?;
    let s = d
        .streams
        .remove(h as usize)
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
    // Work already queued still runs; the worker exits when it is done.
    s.core.shutdown();
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamDestroy_v2(h: Handle) -> CUresult {
    api("cuStreamDestroy_v2", || destroy_stream(h))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamDestroy(h: Handle) -> CUresult {
    api("cuStreamDestroy", || destroy_stream(h))
}

macro_rules! stream_pair {
    ($legacy:ident, $ptsz:ident, ($($arg:ident : $ty:ty),*), $body:expr) => {
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $legacy($($arg: $ty),*) -> CUresult {
            api(stringify!($legacy), || $body(DefaultStream::Legacy, $($arg),*))
        }
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $ptsz($($arg: $ty),*) -> CUresult {
            api(stringify!($ptsz), || $body(DefaultStream::PerThread, $($arg),*))
        }
    };
}
pub(crate) use stream_pair;

stream_pair!(cuStreamSynchronize, cuStreamSynchronize_ptsz, (h: Handle), |m, h| {
    target(h, m)?.synchronize()
});

stream_pair!(cuStreamQuery, cuStreamQuery_ptsz, (h: Handle), |m, h| {
    let t = target(h, m)?;
    t.ctx.check()?;
    if t.core.idle() {
        t.ctx.flush_printf();
        Ok(())
    } else {
        Err(Error::code(CUDA_ERROR_NOT_READY))
    }
});

stream_pair!(
    cuStreamGetPriority,
    cuStreamGetPriority_ptsz,
    (h: Handle, p: *mut i32),
    |m, h, p| {
        let t = target(h, m)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, t.core.priority) }
    }
);

stream_pair!(
    cuStreamGetFlags,
    cuStreamGetFlags_ptsz,
    (h: Handle, p: *mut u32),
    |m, h: Handle, p| {
        let t = target(h, m)?;
        let flags = drv()?.streams.get(h as usize).map_or(0, |s| s.flags);
        let _ = t;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, flags) }
    }
);

stream_pair!(
    cuStreamGetId,
    cuStreamGetId_ptsz,
    (h: Handle, p: *mut u64),
    |m, h, p: *mut u64| {
        let t = target(h, m)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, t.core.id) }
    }
);

stream_pair!(
    cuStreamGetCtx,
    cuStreamGetCtx_ptsz,
    (h: Handle, p: *mut Handle),
    |m, h, p: *mut Handle| {
        let t = target(h, m)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, t.ctx_handle as Handle) }
    }
);

stream_pair!(
    cuStreamGetCtx_v2,
    cuStreamGetCtx_v2_ptsz,
    (h: Handle, p: *mut Handle, green: *mut Handle),
    |m, h, p, green: *mut Handle| {
        let t = target(h, m)?;
        if !green.is_null() {
            // SAFETY: the client's out-pointer.
            unsafe { out(green, std::ptr::null_mut())? };
        }
        // SAFETY: the client's out-pointer.
        unsafe { out(p, t.ctx_handle as Handle) }
    }
);

stream_pair!(
    cuStreamGetDevice,
    cuStreamGetDevice_ptsz,
    (h: Handle, p: *mut CUdevice),
    |m, h, p: *mut CUdevice| {
        let t = target(h, m)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, t.ctx.dev) }
    }
);

stream_pair!(
    cuStreamWaitEvent,
    cuStreamWaitEvent_ptsz,
    (h: Handle, ev: Handle, flags: u32),
    |m, h, ev: Handle, _flags| {
        let t = target(h, m)?;
        let e = drv()?
            .events
            .get(ev as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
        let rec = e.recorded();
        if let Some((s, seq)) = rec
            && !Arc::ptr_eq(&s, &t.core)
            && !s.completed_at_least(seq)
        {
            let mut ops = t.implicit_waits();
            ops.push(Op::Wait(s, seq));
            t.core.submit(ops);
        }
        Ok(())
    }
);

stream_pair!(
    cuStreamAddCallback,
    cuStreamAddCallback_ptsz,
    (h: Handle, cb: CUstreamCallback, data: *mut c_void, flags: u32),
    |m, h: Handle, cb: CUstreamCallback, data: *mut c_void, _flags| {
        let t = target(h, m)?;
        let cb = cb.ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        let (data, hv) = (data as usize, h as usize);
        let ctx = t.ctx.clone();
        let mut ops = t.implicit_waits();
        // Callbacks run even after a failure, with the error as their status.
        ops.push(Op::Run(Box::new(move || {
            ctx.flush_printf();
            // SAFETY: the client's callback with its own data.
            unsafe { cb(hv as Handle, ctx.sticky(), data as *mut c_void) }
        })));
        t.core.submit(ops);
        Ok(())
    }
);

stream_pair!(
    cuLaunchHostFunc,
    cuLaunchHostFunc_ptsz,
    (h: Handle, f: CUhostFn, data: *mut c_void),
    |m, h, f: CUhostFn, data: *mut c_void| {
        let t = target(h, m)?;
        let f = f.ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        let data = data as usize;
        let ctx = t.ctx.clone();
        t.enqueue(move || {
            ctx.flush_printf();
            // SAFETY: the client's function with its own data.
            unsafe { f(data as *mut c_void) }
        });
        Ok(())
    }
);

stream_pair!(
    cuStreamIsCapturing,
    cuStreamIsCapturing_ptsz,
    (h: Handle, p: *mut u32),
    |m, h, p| {
        target(h, m)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, CU_STREAM_CAPTURE_STATUS_NONE) }
    }
);

stream_pair!(
    cuStreamAttachMemAsync,
    cuStreamAttachMemAsync_ptsz,
    (h: Handle, dptr: CUdeviceptr, len: usize, flags: u32),
    |m, h, dptr: CUdeviceptr, _len, _flags| {
        target(h, m)?;
        // Managed memory is host memory here: attaching changes nothing.
        drv()?
            .find_alloc(dptr)
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        Ok(())
    }
);

// ---------------------------------------------------------------------------------------
// Events.

pub struct Event {
    pub ctx: usize,
    pub flags: u32,
    rec: Mutex<Recorded>,
}

#[derive(Default)]
struct Recorded {
    at: Option<(Arc<StreamCore>, u64)>,
    time: Arc<Mutex<Option<Instant>>>,
}

impl Event {
    fn recorded(&self) -> Option<(Arc<StreamCore>, u64)> {
        self.rec
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .at
            .clone()
    }

    fn done(&self) -> bool {
        self.recorded()
            .is_none_or(|(s, seq)| s.completed_at_least(seq))
    }

    fn time(&self) -> Option<Instant> {
        let r = self.rec.lock().unwrap_or_else(|e| e.into_inner());
        *r.time.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventCreate(ph: *mut Handle, flags: u32) -> CUresult {
    api("cuEventCreate", || {
        let d = drv()?;
        let (ch, _) = current()?;
        if flags & !(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS) != 0
        {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let h = d.events.insert(Arc::new(Event {
            ctx: ch,
            flags,
            rec: Mutex::new(Recorded::default()),
        }));
        // SAFETY: the client's out-pointer.
        unsafe { out(ph, h as Handle) }
    })
}

fn destroy_event(h: Handle) -> R {
    drv()?
        .events
        .remove(h as usize)
        .map(|_| ())
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventDestroy_v2(h: Handle) -> CUresult {
    api("cuEventDestroy_v2", || destroy_event(h))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventDestroy(h: Handle) -> CUresult {
    api("cuEventDestroy", || destroy_event(h))
}

fn record(m: DefaultStream, ev: Handle, h: Handle) -> R {
    let e = drv()?
        .events
        .get(ev as usize)
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
    let t = target(h, m)?;
    let time = Arc::new(Mutex::new(None));
    let stamp = time.clone();
    let mut ops = t.implicit_waits();
    ops.push(Op::Run(Box::new(move || {
        *stamp.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
    })));
    let mut r = e.rec.lock().unwrap_or_else(|e| e.into_inner());
    let seq = t.core.submit(ops);
    r.at = Some((t.core.clone(), seq));
    r.time = time;
    Ok(())
}

stream_pair!(cuEventRecord, cuEventRecord_ptsz, (ev: Handle, h: Handle), |m, ev, h| {
    record(m, ev, h)
});

stream_pair!(
    cuEventRecordWithFlags,
    cuEventRecordWithFlags_ptsz,
    (ev: Handle, h: Handle, flags: u32),
    |m, ev, h, _flags| record(m, ev, h)
);

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventQuery(ev: Handle) -> CUresult {
    api("cuEventQuery", || {
        let e = drv()?
            .events
            .get(ev as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
        let (_, ctx) = context(e.ctx as Handle)?;
        ctx.check()?;
        if e.done() {
            Ok(())
        } else {
            Err(Error::code(CUDA_ERROR_NOT_READY))
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventSynchronize(ev: Handle) -> CUresult {
    api("cuEventSynchronize", || {
        let e = drv()?
            .events
            .get(ev as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
        let (_, ctx) = context(e.ctx as Handle)?;
        if let Some((s, seq)) = e.recorded() {
            s.wait_for(seq);
        }
        ctx.flush_printf();
        ctx.check()
    })
}

fn elapsed(ms: *mut f32, start: Handle, end: Handle) -> R {
    let d = drv()?;
    let get = |h: Handle| {
        d.events
            .get(h as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))
    };
    let (a, b) = (get(start)?, get(end)?);
    if (a.flags | b.flags) & CU_EVENT_DISABLE_TIMING != 0 {
        return Err(Error::code(CUDA_ERROR_INVALID_HANDLE));
    }
    if a.recorded().is_none() || b.recorded().is_none() {
        return Err(Error::code(CUDA_ERROR_INVALID_HANDLE));
    }
    if !a.done() || !b.done() {
        return Err(Error::code(CUDA_ERROR_NOT_READY));
    }
    let (Some(ta), Some(tb)) = (a.time(), b.time()) else {
        // Recorded while the context had failed: no timestamp was taken.
        return Err(Error::code(CUDA_ERROR_NOT_READY));
    };
    let v = if tb >= ta {
        tb.duration_since(ta).as_secs_f64() * 1e3
    } else {
        -(ta.duration_since(tb).as_secs_f64() * 1e3)
    };
    // SAFETY: the client's out-pointer.
    unsafe { out(ms, v as f32) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventElapsedTime(ms: *mut f32, start: Handle, end: Handle) -> CUresult {
    api("cuEventElapsedTime", || elapsed(ms, start, end))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventElapsedTime_v2(
    ms: *mut f32,
    start: Handle,
    end: Handle,
) -> CUresult {
    api("cuEventElapsedTime_v2", || elapsed(ms, start, end))
}

/// Weak references to streams, pruned as they go.
pub fn live(list: &Mutex<Vec<Weak<StreamCore>>>) -> Vec<Arc<StreamCore>> {
    let mut l = list.lock().unwrap_or_else(|e| e.into_inner());
    l.retain(|w| w.strong_count() > 0);
    l.iter().filter_map(Weak::upgrade).collect()
}

// ---------------------------------------------------------------------------------------
// Stream memory operations: a write of a 32/64-bit value, or a wait until a value in memory
// meets a condition, in stream order.

/// `CU_STREAM_WAIT_VALUE_*` conditions.
const WAIT_GEQ: u32 = 0;
const WAIT_EQ: u32 = 1;
const WAIT_AND: u32 = 2;
const WAIT_NOR: u32 = 3;

fn mem_write(m: DefaultStream, s: Handle, addr: CUdeviceptr, value: u64, bytes: usize) -> R {
    let t = target(s, m)?;
    t.ctx.check()?;
    let d = drv()?;
    let (_, info) = d
        .find_alloc(addr)
        .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
    if !addr.is_multiple_of(bytes as u64) || addr - info.base + bytes as u64 > info.size {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    t.enqueue(move || {
        // SAFETY: an aligned word inside a live allocation (checked above); the write is
        // atomic on the host, as the GPU's is.
        unsafe {
            if bytes == 4 {
                (*(addr as *const std::sync::atomic::AtomicU32))
                    .store(value as u32, Ordering::SeqCst)
            } else {
                (*(addr as *const AtomicU64)).store(value, Ordering::SeqCst)
            }
        }
    });
    Ok(())
}

fn mem_wait(
    m: DefaultStream,
    s: Handle,
    addr: CUdeviceptr,
    value: u64,
    flags: u32,
    bytes: usize,
) -> R {
    let t = target(s, m)?;
    t.ctx.check()?;
    let d = drv()?;
    let (_, info) = d
        .find_alloc(addr)
        .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
    if !addr.is_multiple_of(bytes as u64) || addr - info.base + bytes as u64 > info.size {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    let cond = flags & 0xf;
    if cond > WAIT_NOR {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    let mut ops = t.implicit_waits();
    ops.push(Op::Run(Box::new(move || {
        let read = || -> u64 {
            // SAFETY: as in `mem_write`.
            unsafe {
                if bytes == 4 {
                    (*(addr as *const std::sync::atomic::AtomicU32)).load(Ordering::SeqCst) as u64
                } else {
                    (*(addr as *const AtomicU64)).load(Ordering::SeqCst)
                }
            }
        };
        let met = |v: u64| match cond {
            WAIT_GEQ if bytes == 4 => (v as u32).wrapping_sub(value as u32) as i32 >= 0,
            WAIT_GEQ => v.wrapping_sub(value) as i64 >= 0,
            WAIT_EQ => v == value,
            WAIT_AND => v & value != 0,
            _ => !(v | value) != 0,
        };
        // A GPU waits for ever; so does the stream (polling, backing off to 1 ms).
        let mut pause = std::time::Duration::from_micros(1);
        while !met(read()) {
            std::thread::sleep(pause);
            pause = (pause * 2).min(std::time::Duration::from_millis(1));
        }
    })));
    t.core.submit(ops);
    Ok(())
}

stream_pair!(cuStreamWriteValue32, cuStreamWriteValue32_ptsz, (s: Handle, a: CUdeviceptr, v: u32, f: u32), |m, s, a, v: u32, _f| mem_write(m, s, a, v as u64, 4));
stream_pair!(cuStreamWriteValue32_v2, cuStreamWriteValue32_v2_ptsz, (s: Handle, a: CUdeviceptr, v: u32, f: u32), |m, s, a, v: u32, _f| mem_write(m, s, a, v as u64, 4));
stream_pair!(cuStreamWriteValue64, cuStreamWriteValue64_ptsz, (s: Handle, a: CUdeviceptr, v: u64, f: u32), |m, s, a, v, _f| mem_write(m, s, a, v, 8));
stream_pair!(cuStreamWriteValue64_v2, cuStreamWriteValue64_v2_ptsz, (s: Handle, a: CUdeviceptr, v: u64, f: u32), |m, s, a, v, _f| mem_write(m, s, a, v, 8));
stream_pair!(cuStreamWaitValue32, cuStreamWaitValue32_ptsz, (s: Handle, a: CUdeviceptr, v: u32, f: u32), |m, s, a, v: u32, f| mem_wait(m, s, a, v as u64, f, 4));
stream_pair!(cuStreamWaitValue32_v2, cuStreamWaitValue32_v2_ptsz, (s: Handle, a: CUdeviceptr, v: u32, f: u32), |m, s, a, v: u32, f| mem_wait(m, s, a, v as u64, f, 4));
stream_pair!(cuStreamWaitValue64, cuStreamWaitValue64_ptsz, (s: Handle, a: CUdeviceptr, v: u64, f: u32), |m, s, a, v, f| mem_wait(m, s, a, v, f, 8));
stream_pair!(cuStreamWaitValue64_v2, cuStreamWaitValue64_v2_ptsz, (s: Handle, a: CUdeviceptr, v: u64, f: u32), |m, s, a, v, f| mem_wait(m, s, a, v, f, 8));
