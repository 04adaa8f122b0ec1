//! Contexts: the primary context of each device (retained and released by count, reset at
//! zero) and created contexts; each host thread's context stack; limits, flags, the sticky
//! error of a failed kernel, device `printf` output waiting for a synchronisation point, and
//! the context's streams.
//!
//! All contexts of a device share its address space (pointers are unique process-wide, as
//! with unified addressing); an allocation remembers the context that made it, and goes
//! away with it.

use crate::abi::*;
use crate::driver::{Dev, Error, R, api, context, current, drv, out, with_stack};
use crate::stream::{StreamCore, live};
use crate::types::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// `cuCtxSetLimit` values. The stack size and the sync depth are recorded, not enforced
/// (local memory has its own limit, see docs/limits.md); the heap size is the device heap's.
#[derive(Debug, Clone)]
pub struct Limits {
    pub stack: u64,
    pub printf_fifo: u64,
    pub sync_depth: u64,
    pub pending_launches: u64,
    pub l2_fetch: u64,
    pub persisting_l2: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            stack: 1024,
            printf_fifo: 1 << 20,
            sync_depth: 2,
            pending_launches: 2048,
            l2_fetch: 64,
            persisting_l2: 0,
        }
    }
}

static NEXT_CTX_ID: AtomicU64 = AtomicU64::new(1);

pub struct Context {
    pub dev: i32,
    pub primary: bool,
    pub flags: AtomicU32,
    active: AtomicBool,
    sticky: AtomicU32,
    /// The legacy default stream (`NULL`, `CU_STREAM_LEGACY`).
    pub legacy: Arc<StreamCore>,
    streams: Mutex<Vec<Weak<StreamCore>>>,
    per_thread: Mutex<HashMap<std::thread::ThreadId, Arc<StreamCore>>>,
    printf: Mutex<Vec<u8>>,
    /// Set once the printf FIFO overflowed in this context (reported once).
    printf_overflow: AtomicBool,
    pub limits: Mutex<Limits>,
    pub cache_config: AtomicU32,
    pub shmem_config: AtomicU32,
    pub id: u64,
}

impl Context {
    pub fn new(dev: i32, primary: bool, flags: u32, active: bool) -> Context {
        Context {
            dev,
            primary,
            flags: AtomicU32::new(flags),
            active: AtomicBool::new(active),
            sticky: AtomicU32::new(0),
            legacy: StreamCore::new(true, 0),
            streams: Mutex::new(Vec::new()),
            per_thread: Mutex::new(HashMap::new()),
            printf: Mutex::new(Vec::new()),
            printf_overflow: AtomicBool::new(false),
            limits: Mutex::new(Limits::default()),
            cache_config: AtomicU32::new(0),
            shmem_config: AtomicU32::new(0),
            id: NEXT_CTX_ID.fetch_add(1, Ordering::Relaxed),
        }
    }

    pub fn is_active(&self) -> bool {
        self.active.load(Ordering::Acquire)
    }

    /// The sticky error (0 when none).
    pub fn sticky(&self) -> CUresult {
        self.sticky.load(Ordering::Acquire)
    }

    /// Makes the context unusable with `code` (the first failure wins).
    pub fn fail(&self, code: CUresult) {
        let _ = self
            .sticky
            .compare_exchange(0, code, Ordering::AcqRel, Ordering::Acquire);
    }

    /// The sticky error as a result.
    pub fn check(&self) -> R {
        match self.sticky() {
            0 => Ok(()),
            c => Err(Error::code(c)),
        }
    }

    /// Adds a finished kernel's `printf` output (up to the printf FIFO size, as on a GPU,
    /// where the rest is lost).
    pub fn add_printf(&self, text: &[u8]) {
        if text.is_empty() {
            return;
        }
        let fifo = self.limits.lock().map_or(1 << 20, |l| l.printf_fifo) as usize;
        let mut p = self.printf.lock().unwrap_or_else(|e| e.into_inner());
        let room = fifo.saturating_sub(p.len());
        if text.len() > room {
            p.extend_from_slice(&text[..room]);
            if !self.printf_overflow.swap(true, Ordering::Relaxed) {
                crate::diag::say(&format!(
                    "device printf output exceeded the printf FIFO ({fifo} bytes, CU_LIMIT_PRINTF_FIFO_SIZE); the rest is dropped, as on a GPU"
                ));
            }
        } else {
            p.extend_from_slice(text);
        }
    }

    /// Writes pending device `printf` output to stdout (a synchronisation point).
    pub fn flush_printf(&self) {
        let text = std::mem::take(&mut *self.printf.lock().unwrap_or_else(|e| e.into_inner()));
        crate::diag::write_stdout(&text);
    }

    /// The calling thread's per-thread default stream.
    pub fn per_thread_stream(&self) -> Arc<StreamCore> {
        let mut m = self.per_thread.lock().unwrap_or_else(|e| e.into_inner());
        m.entry(std::thread::current().id())
            .or_insert_with(|| {
                let s = StreamCore::new(true, 0);
                self.add_stream(&s);
                s
            })
            .clone()
    }

    pub fn add_stream(&self, s: &Arc<StreamCore>) {
        self.streams
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Arc::downgrade(s));
    }

    /// The context's blocking streams (other than the legacy stream).
    pub fn blocking_streams(&self) -> Vec<Arc<StreamCore>> {
        live(&self.streams)
            .into_iter()
            .filter(|s| s.blocking)
            .collect()
    }

    /// Waits for all work of the context; flushes `printf`; returns the sticky error.
    pub fn synchronize(&self) -> R {
        self.legacy.synchronize();
        for s in live(&self.streams) {
            s.synchronize();
        }
        self.flush_printf();
        self.check()
    }

    /// Tears the context down: waits for its work, stops its streams, frees its memory,
    /// modules and context-local storage. The handle stays in the table (stale uses are
    /// refused because the context is inactive).
    pub fn teardown(&self, handle: usize, dev: &Dev) {
        let _ = self.synchronize();
        self.active.store(false, Ordering::Release);
        self.legacy.shutdown();
        for s in live(&self.streams) {
            s.shutdown();
        }
        if let Ok(d) = drv() {
            crate::module::drop_context(d, handle);
            crate::memory::free_context(dev, handle);
            for (h, s) in d.streams.all() {
                if s.ctx == handle {
                    d.streams.remove(h);
                }
            }
        }
        crate::dark::context_destroyed(handle as *mut std::ffi::c_void);
    }
}

/// The primary context's handle of a device, creating it (inactive) the first time.
pub fn primary_handle(dev: &Dev) -> R<usize> {
    let d = drv()?;
    let mut p = dev.primary.lock().unwrap_or_else(|e| e.into_inner());
    if p.handle == 0 {
        p.handle = d
            .contexts
            .insert(Arc::new(Context::new(dev.ordinal, true, 0, false)));
    }
    Ok(p.handle)
}

fn retain_primary(dev: &Dev) -> R<usize> {
    let d = drv()?;
    let h = primary_handle(dev)?;
    let mut p = dev.primary.lock().unwrap_or_else(|e| e.into_inner());
    if p.refs == 0 {
        let c = Context::new(dev.ordinal, true, p.flags, true);
        d.contexts.replace(h, Arc::new(c));
    }
    p.refs += 1;
    Ok(h)
}

fn release_primary(ordinal: i32) -> R {
    let d = drv()?;
    let dev = d.dev(ordinal)?;
    let (h, last) = {
        let mut p = dev.primary.lock().unwrap_or_else(|e| e.into_inner());
        if p.refs == 0 {
            return Err(Error::code(CUDA_ERROR_INVALID_CONTEXT));
        }
        p.refs -= 1;
        (p.handle, p.refs == 0)
    };
    if last && let Some(c) = d.contexts.get(h) {
        c.teardown(h, dev);
    }
    Ok(())
}

fn reset_primary(ordinal: i32) -> R {
    let d = drv()?;
    let dev = d.dev(ordinal)?;
    let h = primary_handle(dev)?;
    if let Some(c) = d.contexts.get(h) {
        c.teardown(h, dev);
    }
    let mut p = dev.primary.lock().unwrap_or_else(|e| e.into_inner());
    let active = p.refs > 0;
    d.contexts
        .replace(h, Arc::new(Context::new(ordinal, true, p.flags, active)));
    if !active {
        p.flags = 0;
    }
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(pctx: *mut Handle, dev: CUdevice) -> CUresult {
    api("cuDevicePrimaryCtxRetain", || {
        let d = drv()?;
        if pctx.is_null() {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let h = retain_primary(d.dev(dev)?)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(pctx, h as Handle) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult {
    api("cuDevicePrimaryCtxRelease_v2", || release_primary(dev))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxRelease(dev: CUdevice) -> CUresult {
    api("cuDevicePrimaryCtxRelease", || release_primary(dev))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) -> CUresult {
    api("cuDevicePrimaryCtxReset_v2", || reset_primary(dev))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxReset(dev: CUdevice) -> CUresult {
    api("cuDevicePrimaryCtxReset", || reset_primary(dev))
}

fn set_primary_flags(ordinal: i32, flags: u32) -> R {
    let d = drv()?;
    let dev = d.dev(ordinal)?;
    if flags & !CU_CTX_FLAGS_MASK != 0 {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    let h = primary_handle(dev)?;
    let mut p = dev.primary.lock().unwrap_or_else(|e| e.into_inner());
    p.flags = flags;
    if let Some(c) = d.contexts.get(h) {
        c.flags.store(flags, Ordering::Relaxed);
    }
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxSetFlags_v2(dev: CUdevice, flags: u32) -> CUresult {
    api("cuDevicePrimaryCtxSetFlags_v2", || {
        set_primary_flags(dev, flags)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxSetFlags(dev: CUdevice, flags: u32) -> CUresult {
    api("cuDevicePrimaryCtxSetFlags", || {
        set_primary_flags(dev, flags)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxGetState(
    dev: CUdevice,
    flags: *mut u32,
    active: *mut i32,
) -> CUresult {
    api("cuDevicePrimaryCtxGetState", || {
        let d = drv()?;
        let dev = d.dev(dev)?;
        let p = dev.primary.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the client's out-pointers.
        unsafe {
            out(flags, p.flags)?;
            out(active, (p.refs > 0) as i32)
        }
    })
}

// ---------------------------------------------------------------------------------------
// Created contexts and the context stack.

fn create(pctx: *mut Handle, flags: u32, dev: CUdevice) -> R {
    let d = drv()?;
    d.dev(dev)?;
    if pctx.is_null() {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    let h = d.contexts.insert(Arc::new(Context::new(
        dev,
        false,
        flags & CU_CTX_FLAGS_MASK,
        true,
    )));
    with_stack(|s| s.push(h));
    // SAFETY: the client's out-pointer.
    unsafe { out(pctx, h as Handle) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxCreate_v2(pctx: *mut Handle, flags: u32, dev: CUdevice) -> CUresult {
    api("cuCtxCreate_v2", || create(pctx, flags, dev))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxCreate_v3(
    pctx: *mut Handle,
    _params: *mut std::ffi::c_void,
    _num_params: i32,
    flags: u32,
    dev: CUdevice,
) -> CUresult {
    api("cuCtxCreate_v3", || create(pctx, flags, dev))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxCreate_v4(
    pctx: *mut Handle,
    _params: *mut std::ffi::c_void,
    flags: u32,
    dev: CUdevice,
) -> CUresult {
    api("cuCtxCreate_v4", || create(pctx, flags, dev))
}

fn destroy(h: Handle) -> R {
    let d = drv()?;
    let c = d
        .contexts
        .get(h as usize)
        .ok_or(Error::code(CUDA_ERROR_INVALID_CONTEXT))?;
    if c.primary {
        return Err(Error::quiet(
            CUDA_ERROR_INVALID_CONTEXT,
            "cuCtxDestroy of a primary context (use cuDevicePrimaryCtxRelease)",
        ));
    }
    c.teardown(h as usize, d.dev(c.dev)?);
    d.contexts.remove(h as usize);
    with_stack(|s| s.retain(|&x| x != h as usize));
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxDestroy_v2(h: Handle) -> CUresult {
    api("cuCtxDestroy_v2", || destroy(h))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxDestroy(h: Handle) -> CUresult {
    api("cuCtxDestroy", || destroy(h))
}

fn push(h: Handle) -> R {
    let d = drv()?;
    d.contexts
        .get(h as usize)
        .ok_or(Error::code(CUDA_ERROR_INVALID_CONTEXT))?;
    with_stack(|s| s.push(h as usize));
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxPushCurrent_v2(h: Handle) -> CUresult {
    api("cuCtxPushCurrent_v2", || push(h))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxPushCurrent(h: Handle) -> CUresult {
    api("cuCtxPushCurrent", || push(h))
}

fn pop(p: *mut Handle) -> R {
    drv()?;
    let top = with_stack(|s| s.pop())
        .flatten()
        .ok_or(Error::code(CUDA_ERROR_INVALID_CONTEXT))?;
    if !p.is_null() {
        // SAFETY: the client's out-pointer.
        unsafe { out(p, top as Handle)? };
    }
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxPopCurrent_v2(p: *mut Handle) -> CUresult {
    api("cuCtxPopCurrent_v2", || pop(p))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxPopCurrent(p: *mut Handle) -> CUresult {
    api("cuCtxPopCurrent", || pop(p))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSetCurrent(h: Handle) -> CUresult {
    api("cuCtxSetCurrent", || {
        let d = drv()?;
        if h.is_null() {
            with_stack(|s| s.pop());
            return Ok(());
        }
        d.contexts
            .get(h as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_CONTEXT))?;
        with_stack(|s| match s.last_mut() {
            Some(top) => *top = h as usize,
            None => s.push(h as usize),
        });
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetCurrent(p: *mut Handle) -> CUresult {
    api("cuCtxGetCurrent", || {
        drv()?;
        let h = crate::driver::current_handle().unwrap_or(0);
        // SAFETY: the client's out-pointer.
        unsafe { out(p, h as Handle) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetDevice(p: *mut CUdevice) -> CUresult {
    api("cuCtxGetDevice", || {
        let (_, c) = current()?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, c.dev) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetDevice_v2(p: *mut CUdevice, ctx: Handle) -> CUresult {
    api("cuCtxGetDevice_v2", || {
        let (_, c) = context(ctx)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, c.dev) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetFlags(p: *mut u32) -> CUresult {
    api("cuCtxGetFlags", || {
        let (_, c) = current()?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, c.flags.load(Ordering::Relaxed)) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSetFlags(flags: u32) -> CUresult {
    api("cuCtxSetFlags", || {
        let (_, c) = current()?;
        c.flags.store(flags & CU_CTX_FLAGS_MASK, Ordering::Relaxed);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetId(ctx: Handle, p: *mut u64) -> CUresult {
    api("cuCtxGetId", || {
        let (_, c) = context(ctx)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, c.id) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSynchronize() -> CUresult {
    api("cuCtxSynchronize", || current()?.1.synchronize())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSynchronize_v2(ctx: Handle) -> CUresult {
    api("cuCtxSynchronize_v2", || context(ctx)?.1.synchronize())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetApiVersion(ctx: Handle, p: *mut u32) -> CUresult {
    api("cuCtxGetApiVersion", || {
        context(ctx)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, 3020) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetLimit(p: *mut usize, limit: u32) -> CUresult {
    api("cuCtxGetLimit", || {
        let (_, c) = current()?;
        let d = drv()?;
        let l = c.limits.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let v = match limit {
            CU_LIMIT_STACK_SIZE => l.stack,
            CU_LIMIT_PRINTF_FIFO_SIZE => l.printf_fifo,
            CU_LIMIT_MALLOC_HEAP_SIZE => d.dev(c.dev)?.vm.mem.heap_limit(),
            CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH => l.sync_depth,
            CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT => l.pending_launches,
            CU_LIMIT_MAX_L2_FETCH_GRANULARITY => l.l2_fetch,
            CU_LIMIT_PERSISTING_L2_CACHE_SIZE => l.persisting_l2,
            _ => return Err(Error::code(CUDA_ERROR_UNSUPPORTED_LIMIT)),
        };
        // SAFETY: the client's out-pointer.
        unsafe { out(p, v as usize) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSetLimit(limit: u32, value: usize) -> CUresult {
    api("cuCtxSetLimit", || {
        let (_, c) = current()?;
        let d = drv()?;
        let v = value as u64;
        let mut l = c.limits.lock().unwrap_or_else(|e| e.into_inner());
        match limit {
            CU_LIMIT_STACK_SIZE => l.stack = v,
            CU_LIMIT_PRINTF_FIFO_SIZE => l.printf_fifo = v,
            CU_LIMIT_MALLOC_HEAP_SIZE => d.dev(c.dev)?.vm.mem.set_heap_limit(v),
            CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH => l.sync_depth = v,
            CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT => l.pending_launches = v,
            CU_LIMIT_MAX_L2_FETCH_GRANULARITY => l.l2_fetch = v,
            CU_LIMIT_PERSISTING_L2_CACHE_SIZE => l.persisting_l2 = v,
            _ => return Err(Error::code(CUDA_ERROR_UNSUPPORTED_LIMIT)),
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetCacheConfig(p: *mut u32) -> CUresult {
    api("cuCtxGetCacheConfig", || {
        let (_, c) = current()?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, c.cache_config.load(Ordering::Relaxed)) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSetCacheConfig(cfg: u32) -> CUresult {
    api("cuCtxSetCacheConfig", || {
        let (_, c) = current()?;
        if cfg > 3 {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        c.cache_config.store(cfg, Ordering::Relaxed);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetSharedMemConfig(p: *mut u32) -> CUresult {
    api("cuCtxGetSharedMemConfig", || {
        let (_, c) = current()?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, c.shmem_config.load(Ordering::Relaxed)) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSetSharedMemConfig(cfg: u32) -> CUresult {
    api("cuCtxSetSharedMemConfig", || {
        let (_, c) = current()?;
        if cfg > 2 {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        c.shmem_config.store(cfg, Ordering::Relaxed);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetStreamPriorityRange(
    least: *mut i32,
    greatest: *mut i32,
) -> CUresult {
    api("cuCtxGetStreamPriorityRange", || {
        current()?;
        // SAFETY: the client's out-pointers (either may be NULL).
        unsafe {
            if !least.is_null() {
                out(least, 0)?;
            }
            if !greatest.is_null() {
                out(greatest, -5)?;
            }
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxResetPersistingL2Cache() -> CUresult {
    api("cuCtxResetPersistingL2Cache", || current().map(|_| ()))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetExecAffinity(_p: *mut std::ffi::c_void, _t: u32) -> CUresult {
    api("cuCtxGetExecAffinity", || {
        current()?;
        Err(Error::code(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxEnablePeerAccess(peer: Handle, _flags: u32) -> CUresult {
    api("cuCtxEnablePeerAccess", || {
        let (_, me) = current()?;
        let (_, other) = context(peer)?;
        if me.dev == other.dev {
            return Err(Error::code(CUDA_ERROR_INVALID_DEVICE));
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxDisablePeerAccess(peer: Handle) -> CUresult {
    api("cuCtxDisablePeerAccess", || {
        current()?;
        context(peer)?;
        Ok(())
    })
}
