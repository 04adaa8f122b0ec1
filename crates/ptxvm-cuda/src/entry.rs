//! Initialisation, versions, error strings, `cuGetProcAddress` and `cuGetExportTable`: the
//! entry points a client calls before (or instead of) anything else.

use crate::abi::*;
use crate::driver::{self, DRIVER_VERSION, Error, api, drv, out};
use crate::procaddr::{self, Resolution};
use crate::types::*;
use std::ffi::{CStr, c_char, c_void};
use std::sync::OnceLock;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuInit(flags: u32) -> CUresult {
    api("cuInit", || {
        if flags != 0 {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        driver::init()
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDriverGetVersion(v: *mut i32) -> CUresult {
    // SAFETY: the client's out-pointer.
    api("cuDriverGetVersion", || unsafe { out(v, DRIVER_VERSION) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetErrorName(code: CUresult, s: *mut *const c_char) -> CUresult {
    api("cuGetErrorName", || {
        let name = error_name(code);
        let Some(name) = name else {
            if !s.is_null() {
                // SAFETY: the client's out-pointer: NULL for an unknown code.
                unsafe { *s = std::ptr::null() };
            }
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        };
        // SAFETY: the client's out-pointer; the string is static.
        unsafe { out(s, name.as_ptr()) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetErrorString(code: CUresult, s: *mut *const c_char) -> CUresult {
    api("cuGetErrorString", || {
        let text = error_string(code);
        let Some(text) = text else {
            if !s.is_null() {
                // SAFETY: the client's out-pointer: NULL for an unknown code.
                unsafe { *s = std::ptr::null() };
            }
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        };
        // SAFETY: the client's out-pointer; the string is static.
        unsafe { out(s, text.as_ptr()) }
    })
}

/// This library's own `dlopen` handle (to look up its exported entry points by name).
fn self_handle() -> *mut c_void {
    static HANDLE: OnceLock<usize> = OnceLock::new();
    *HANDLE.get_or_init(|| {
        // SAFETY: dladdr on one of our own functions, then dlopen(NOLOAD) of the file it
        // names: the library is already loaded, so this only returns its handle.
        unsafe {
            let mut info: libc::Dl_info = std::mem::zeroed();
            if libc::dladdr(cuGetProcAddress_v2 as *const c_void, &mut info) == 0
                || info.dli_fname.is_null()
            {
                return 0;
            }
            libc::dlopen(info.dli_fname, libc::RTLD_NOW | libc::RTLD_NOLOAD) as usize
        }
    }) as *mut c_void
}

/// The address of an exported entry point, unless it is only a NOT_SUPPORTED stub.
pub fn entry_point(symbol: &str) -> Option<*mut c_void> {
    if procaddr::is_stub(symbol) {
        return None;
    }
    let h = self_handle();
    if h.is_null() {
        return None;
    }
    let name = std::ffi::CString::new(symbol).ok()?;
    // SAFETY: dlsym on our own handle with a NUL-terminated name.
    let p = unsafe { libc::dlsym(h, name.as_ptr()) };
    (!p.is_null()).then_some(p)
}

fn get_proc_address(
    sym: *const c_char,
    pfn: *mut *mut c_void,
    version: i32,
    flags: u64,
    status: *mut u32,
) -> driver::R {
    if sym.is_null() || pfn.is_null() {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    // SAFETY: NULL-checked pointers from the client.
    unsafe { *pfn = std::ptr::null_mut() };
    // SAFETY: the client's C string.
    let name = unsafe { CStr::from_ptr(sym) };
    let (found, st) = match procaddr::resolve_cstr(name, version, flags) {
        Resolution::Found(s) => match entry_point(s) {
            Some(p) => (Some(p), CU_GET_PROC_ADDRESS_SUCCESS),
            None => (None, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND),
        },
        r => (None, r.status()),
    };
    if !status.is_null() {
        // SAFETY: the client's out-pointer.
        unsafe { *status = st };
    }
    match found {
        Some(p) => {
            // SAFETY: NULL-checked above.
            unsafe { *pfn = p };
            Ok(())
        }
        None => Err(Error::quiet(
            CUDA_ERROR_NOT_FOUND,
            format!(
                "{} (version {version}, flags {flags}): {}",
                name.to_string_lossy(),
                match st {
                    CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT => "needs a newer version",
                    _ => "not implemented",
                }
            ),
        )),
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    sym: *const c_char,
    pfn: *mut *mut c_void,
    version: i32,
    flags: u64,
    status: *mut u32,
) -> CUresult {
    api("cuGetProcAddress_v2", || {
        get_proc_address(sym, pfn, version, flags, status)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetProcAddress(
    sym: *const c_char,
    pfn: *mut *mut c_void,
    version: i32,
    flags: u64,
) -> CUresult {
    api("cuGetProcAddress", || {
        get_proc_address(sym, pfn, version, flags, std::ptr::null_mut())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetExportTable(pp: *mut *const c_void, id: *const CUuuid) -> CUresult {
    // SAFETY: the client's pointers, checked by the table code.
    api("cuGetExportTable", || {
        match unsafe { crate::dark::get_export_table(pp, id.cast()) } {
            0 => Ok(()),
            c => Err(Error::code(c)),
        }
    })
}

/// The callbacks of the private export tables: what they hash must agree exactly with what
/// the entry points report.
pub fn dark_hooks() -> crate::dark::Hooks {
    crate::dark::Hooks {
        driver_version: || DRIVER_VERSION,
        device_count: || driver::try_drv().map_or(0, |d| d.devices.len() as i32),
        device_uuid: |i| {
            driver::try_drv()
                .and_then(|d| d.dev(i).ok().map(|dv| dv.uuid))
                .unwrap_or([0; 16])
        },
        device_pci: |i| {
            driver::try_drv()
                .and_then(|d| d.dev(i).ok())
                .map_or((0, 0, 0), |dv| {
                    let a = |n| crate::device::attribute(dv, n).unwrap_or(0);
                    (a(50), a(33), a(34))
                })
        },
        primary_context: |dev, p| {
            let r = drv().and_then(|d| {
                let dv = d.dev(dev)?;
                crate::context::primary_handle(dv)
            });
            match r {
                Ok(h) if !p.is_null() => {
                    // SAFETY: NULL-checked out-pointer from the runtime.
                    unsafe { *p = h as *mut c_void };
                    CUDA_SUCCESS
                }
                Ok(_) => CUDA_ERROR_INVALID_VALUE,
                Err(e) => e.code,
            }
        },
        current_context: || driver::current_handle().unwrap_or(0) as *mut c_void,
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuProfilerStart() -> CUresult {
    api("cuProfilerStart", || driver::current().map(|_| ()))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuProfilerStop() -> CUresult {
    api("cuProfilerStop", || driver::current().map(|_| ()))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuProfilerInitialize(
    _f: *const c_char,
    _o: *const c_char,
    _m: u32,
) -> CUresult {
    api("cuProfilerInitialize", || drv().map(|_| ()))
}
