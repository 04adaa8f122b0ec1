//! The driver's log (`cuLogs*`): every message ptxvm's driver writes to stderr is also kept
//! here (up to [`MAX_LOG`] messages) and handed to registered callbacks, so tools that read
//! driver logs see ptxvm's diagnostics (kernel faults, modules that do not compile, ...).
//! (Multicast objects are in `multicast.rs`.)

use crate::driver::{Error, R, api, drv, out};
use crate::types::*;
use std::ffi::{c_char, c_void};
use std::sync::Mutex;

/// Messages kept for `cuLogsCurrent`/`cuLogsDump*`.
pub const MAX_LOG: usize = 4096;

/// `CUlogsCallback`.
pub type CUlogsCallback = Option<unsafe extern "C" fn(*mut c_void, u32, *mut c_char, usize)>;

struct LogState {
    /// (sequence number, level, text); numbers keep counting when old entries drop out.
    messages: std::collections::VecDeque<(u32, u32, String)>,
    next: u32,
    callbacks: Vec<(usize, usize, usize)>, // (id, function, user data)
    next_id: usize,
}

static LOG: Mutex<LogState> = Mutex::new(LogState {
    messages: std::collections::VecDeque::new(),
    next: 0,
    callbacks: Vec::new(),
    next_id: 1,
});

/// Records a message (CU_LOG_LEVEL_ERROR = 0, WARNING = 1) and passes it to the callbacks.
pub fn record(level: u32, text: &str) {
    let callbacks = {
        let mut l = LOG.lock().unwrap_or_else(|e| e.into_inner());
        let n = l.next;
        l.next = n.wrapping_add(1);
        l.messages.push_back((n, level, text.to_string()));
        while l.messages.len() > MAX_LOG {
            l.messages.pop_front();
        }
        l.callbacks.clone()
    };
    for (_, f, data) in callbacks {
        let mut bytes = text.as_bytes().to_vec();
        bytes.push(0);
        // SAFETY: a callback the client registered, called as cuda.h documents, with a
        // NUL-terminated message that lives for the call.
        let cb: unsafe extern "C" fn(*mut c_void, u32, *mut c_char, usize) =
            unsafe { std::mem::transmute::<usize, _>(f) };
        unsafe {
            cb(
                data as *mut c_void,
                level,
                bytes.as_mut_ptr().cast(),
                text.len(),
            )
        };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLogsRegisterCallback(
    f: CUlogsCallback,
    data: *mut c_void,
    h: *mut *mut c_void,
) -> CUresult {
    api("cuLogsRegisterCallback", || {
        let f = f.ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        let mut l = LOG.lock().unwrap_or_else(|e| e.into_inner());
        let id = l.next_id;
        l.next_id += 1;
        l.callbacks.push((id, f as usize, data as usize));
        // SAFETY: the client's out-pointer (an opaque handle).
        unsafe { out(h, id as *mut c_void) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLogsUnregisterCallback(h: *mut c_void) -> CUresult {
    api("cuLogsUnregisterCallback", || {
        let mut l = LOG.lock().unwrap_or_else(|e| e.into_inner());
        let before = l.callbacks.len();
        l.callbacks.retain(|&(id, _, _)| id != h as usize);
        if l.callbacks.len() == before {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLogsCurrent(it: *mut u32, flags: u32) -> CUresult {
    api("cuLogsCurrent", || {
        if flags != 0 {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let n = LOG.lock().unwrap_or_else(|e| e.into_inner()).next;
        // SAFETY: the client's out-pointer.
        unsafe { out(it, n) }
    })
}

/// The messages from `*it` on (all when `it` is NULL), one per line; advances `*it`.
fn collect(it: *mut u32) -> String {
    let l = LOG.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: NULL or the client's iterator.
    let from = if it.is_null() {
        None
    } else {
        Some(unsafe { *it })
    };
    let mut s = String::new();
    for (n, _, text) in &l.messages {
        if from.is_none_or(|f| n.wrapping_sub(f) < u32::MAX / 2) {
            s.push_str(text.trim_end());
            s.push('\n');
        }
    }
    if !it.is_null() {
        // SAFETY: as above.
        unsafe { *it = l.next };
    }
    s
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLogsDumpToFile(
    it: *mut u32,
    path: *const c_char,
    flags: u32,
) -> CUresult {
    api("cuLogsDumpToFile", || {
        if flags != 0 {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        // SAFETY: the client's C string.
        let path = unsafe { crate::driver::cstr(path)? };
        let text = collect(it);
        std::fs::write(path, text)
            .map_err(|e| Error::quiet(CUDA_ERROR_INVALID_VALUE, format!("{path}: {e}")))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLogsDumpToMemory(
    it: *mut u32,
    buf: *mut c_char,
    size: *mut usize,
    flags: u32,
) -> CUresult {
    api("cuLogsDumpToMemory", || {
        if flags != 0 || buf.is_null() || size.is_null() {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let text = collect(it);
        // SAFETY: the client's capacity and buffer.
        unsafe {
            let cap = *size;
            if cap == 0 {
                return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
            }
            let n = text.len().min(cap - 1);
            std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), n);
            *buf.add(n) = 0;
            *size = n;
        }
        Ok(())
    })
}

// Green contexts (SM partitions): not supported by ptxvm yet. The entry points exist (clients
// such as PyTorch resolve them at start-up and stop if any is missing) and answer
// `CUDA_ERROR_NOT_SUPPORTED`, saying so, when used.

fn no_green_contexts() -> R {
    drv()?;
    Err(Error::loud(
        CUDA_ERROR_NOT_SUPPORTED,
        "green contexts (SM partitions) are not supported by ptxvm yet",
    ))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetDevResource(_d: i32, _r: *mut c_void, _t: u32) -> CUresult {
    api("cuDeviceGetDevResource", no_green_contexts)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetDevResource(
    _c: *mut c_void,
    _r: *mut c_void,
    _t: u32,
) -> CUresult {
    api("cuCtxGetDevResource", no_green_contexts)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevSmResourceSplitByCount(
    _r: *mut c_void,
    _n: *mut u32,
    _i: *const c_void,
    _rem: *mut c_void,
    _f: u32,
    _min: u32,
) -> CUresult {
    api("cuDevSmResourceSplitByCount", no_green_contexts)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevSmResourceSplit(
    _r: *mut c_void,
    _n: u32,
    _i: *const c_void,
    _rem: *mut c_void,
    _f: u32,
    _p: *mut c_void,
) -> CUresult {
    api("cuDevSmResourceSplit", no_green_contexts)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevResourceGenerateDesc(
    _d: *mut *mut c_void,
    _r: *mut c_void,
    _n: u32,
) -> CUresult {
    api("cuDevResourceGenerateDesc", no_green_contexts)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGreenCtxCreate(
    _p: *mut *mut c_void,
    _d: *mut c_void,
    _dev: i32,
    _f: u32,
) -> CUresult {
    api("cuGreenCtxCreate", no_green_contexts)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGreenCtxDestroy(_g: *mut c_void) -> CUresult {
    api("cuGreenCtxDestroy", no_green_contexts)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxFromGreenCtx(_c: *mut *mut c_void, _g: *mut c_void) -> CUresult {
    api("cuCtxFromGreenCtx", no_green_contexts)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGreenCtxStreamCreate(
    _s: *mut *mut c_void,
    _g: *mut c_void,
    _f: u32,
    _p: i32,
) -> CUresult {
    api("cuGreenCtxStreamCreate", no_green_contexts)
}
