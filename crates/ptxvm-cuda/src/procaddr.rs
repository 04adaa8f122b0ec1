//! `cuGetProcAddress` resolution: which exported symbol answers `(name, cudaVersion, flags)`.
//!
//! The tables are generated from NVIDIA's headers (`generated/procaddr.rs`, see
//! `tools/gen_driver_tables.py`). A client asks for an API by its plain name and the
//! CUDA version whose ABI it was written against (`cuCtxCreate@3020` wants the
//! `cuCtxCreate_v2` signature, not the newest `cuCtxCreate_v4`), so the answer is the
//! newest revision not newer than the requested version.
//!
//! Per-thread default stream: with `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM` an
//! API that has `_ptds`/`_ptsz` revisions resolves among those only, each at its own
//! version (`cuMemcpyHtoD@7000` → `cuMemcpyHtoD_v2_ptds`; below 7000 there is none, and
//! the real driver does not fall back to the legacy-stream entry either). APIs without
//! per-thread revisions resolve as with flags 0. `CU_GET_PROC_ADDRESS_LEGACY_STREAM`
//! and `CU_GET_PROC_ADDRESS_DEFAULT` select the legacy-stream revisions.
//!
//! [`resolve`] names the symbol; whether ptxvm implements it is the caller's question
//! ([`crate::generated::stubs::is_stub`], and legacy 32-bit-pointer revisions such as
//! `cuMemAlloc` may never be implemented).

use core::ffi::CStr;
use core::sync::atomic::{AtomicBool, Ordering};

pub use crate::generated::procaddr::{
    APIS, ApiRevisions, CU_GET_PROC_ADDRESS_DEFAULT, CU_GET_PROC_ADDRESS_LEGACY_STREAM,
    CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, CU_GET_PROC_ADDRESS_SUCCESS,
    CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,
    CUdriverProcAddressQueryResult, DRIVER_SYMBOLS, HEADER_CUDA_VERSION, Revision,
};
pub use crate::generated::stubs::{ALWAYS_IMPLEMENTED, STUBBED, is_stub};

/// The outcome of a `cuGetProcAddress` lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// The exported symbol implementing the requested revision.
    Found(&'static str),
    /// No API of that name (including `""`).
    NotFound,
    /// The API exists, but only at versions newer than the one requested.
    VersionNotSufficient,
}

impl Resolution {
    /// The `CUdriverProcAddressQueryResult` reported for this outcome.
    pub fn status(self) -> CUdriverProcAddressQueryResult {
        match self {
            Resolution::Found(_) => CU_GET_PROC_ADDRESS_SUCCESS,
            Resolution::NotFound => CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND,
            Resolution::VersionNotSufficient => CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,
        }
    }
}

/// The revisions of the API `name` (a plain name such as `cuMemAlloc`, not `cuMemAlloc_v2`).
pub fn lookup(name: &[u8]) -> Option<&'static ApiRevisions> {
    APIS.binary_search_by(|a| a.name.as_bytes().cmp(name))
        .ok()
        .and_then(|i| APIS.get(i))
}

/// Resolve `name` as `cuGetProcAddress_v2(name, cudaVersion, flags)` does.
pub fn resolve(name: &str, cuda_version: i32, flags: u64) -> Resolution {
    resolve_bytes(name.as_bytes(), cuda_version, flags)
}

/// [`resolve`] for the C string a client passes.
pub fn resolve_cstr(name: &CStr, cuda_version: i32, flags: u64) -> Resolution {
    resolve_bytes(name.to_bytes(), cuda_version, flags)
}

/// [`resolve`] on the name's bytes.
pub fn resolve_bytes(name: &[u8], cuda_version: i32, flags: u64) -> Resolution {
    let Some(api) = lookup(name) else {
        return Resolution::NotFound;
    };
    let per_thread = flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM != 0;
    let revisions = if per_thread && !api.per_thread.is_empty() {
        api.per_thread
    } else {
        api.normal
    };
    match revisions.iter().rev().find(|r| r.version <= cuda_version) {
        Some(r) => Resolution::Found(r.symbol),
        None => Resolution::VersionNotSufficient,
    }
}

/// Write `msg` to stderr once per `flag`. Never panics: a closed stderr is ignored and a
/// broken pipe does not raise SIGPIPE in the host process.
pub fn report_once(flag: &AtomicBool, msg: &[u8]) {
    if flag.swap(true, Ordering::Relaxed) {
        return;
    }
    crate::diag::write_stderr(msg);
}

/// Defines one `#[unsafe(no_mangle)] extern "C" fn <name>() -> CUresult` per name that
/// reports `ptxvm: <name> is not supported (CUDA_ERROR_NOT_SUPPORTED)` on stderr the
/// first time it is called and returns `CUDA_ERROR_NOT_SUPPORTED`. Taking no arguments is
/// ABI-safe whatever the caller passes (x86-64 SysV: the caller owns its arguments).
macro_rules! driver_stubs {
    ($($name:ident),* $(,)?) => {
        $(
            #[allow(non_snake_case)]
            #[unsafe(no_mangle)]
            pub extern "C" fn $name() -> $crate::types::CUresult {
                static REPORTED: ::core::sync::atomic::AtomicBool =
                    ::core::sync::atomic::AtomicBool::new(false);
                $crate::procaddr::report_once(
                    &REPORTED,
                    concat!(
                        "ptxvm: ",
                        stringify!($name),
                        " is not supported (CUDA_ERROR_NOT_SUPPORTED)\n"
                    )
                    .as_bytes(),
                );
                $crate::types::CUDA_ERROR_NOT_SUPPORTED
            }
        )*
    };
}
pub(crate) use driver_stubs;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_and_consistent() {
        assert!(APIS.windows(2).all(|w| w[0].name < w[1].name));
        assert!(DRIVER_SYMBOLS.windows(2).all(|w| w[0] < w[1]));
        assert!(STUBBED.windows(2).all(|w| w[0] < w[1]));
        for api in APIS {
            assert!(!api.normal.is_empty(), "{}", api.name);
            for revs in [api.normal, api.per_thread] {
                assert!(revs.windows(2).all(|w| w[0].version < w[1].version));
                for r in revs {
                    assert!(
                        DRIVER_SYMBOLS.binary_search(&r.symbol).is_ok(),
                        "{} -> {} is not a driver symbol",
                        api.name,
                        r.symbol
                    );
                }
            }
            for r in api.per_thread {
                assert!(r.symbol.ends_with("_ptds") || r.symbol.ends_with("_ptsz"));
            }
        }
    }

    #[test]
    fn status_values() {
        assert_eq!(Resolution::Found("cuInit").status(), 0);
        assert_eq!(Resolution::NotFound.status(), 1);
        assert_eq!(Resolution::VersionNotSufficient.status(), 2);
        assert_eq!(CU_GET_PROC_ADDRESS_DEFAULT, 0);
        assert_eq!(CU_GET_PROC_ADDRESS_LEGACY_STREAM, 1);
        assert_eq!(CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, 2);
    }

    #[test]
    fn report_once_reports_once() {
        static FLAG: AtomicBool = AtomicBool::new(false);
        report_once(&FLAG, b"");
        assert!(FLAG.load(Ordering::Relaxed));
        report_once(&FLAG, b"ptxvm: this line must not appear\n");
    }
}
