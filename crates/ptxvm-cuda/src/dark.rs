//! `cuGetExportTable`: the driver's private ("dark") export tables that NVIDIA's CUDA runtime
//! requires.
//!
//! libcudart (13.x shared and static, 12.9 shared) asks the driver for tables of function pointers
//! by UUID and refuses to work without them; one of them carries an integrity check it verifies.
//! This module owns those tables: [`export_table`] maps a UUID to a table, [`set_hooks`] connects
//! them to the rest of the driver, and [`context_destroyed`] runs context-local-storage
//! destructors.
//!
//! Sources: "notes" is `shared/notes/cuda-driver-interop.md` §2 item 3 (what libcudart 12.9/13.5
//! requested and called, measured over 50 client programs with a stand-in libcuda), §2 "ZLUDA's
//! approach" and §5. "ZLUDA" is vosen/ZLUDA at 8a7931be: `dark_api/src/lib.rs` (UUIDs, table
//! lengths, slot indices and signatures, the integrity-check algorithm and its test vectors) and
//! `zluda/src/impl/driver.rs` (what each slot does). UUIDs are written in memory byte order.
//!
//! # The tables
//!
//! Slot 0 of a table is its size in bytes, `8 * LEN` (ZLUDA's `SIZE_OF`), except in
//! CONTEXT_LOCAL_STORAGE. Slots not listed hold a stub that returns 0 and, with `PTXVM_LOG`,
//! logs the call (ZLUDA leaves them NULL; a NULL would crash a caller, a logged 0 tells us what
//! to implement). Slot indices are the constants in [`layout`].
//!
//! | UUID | name (ZLUDA's) | LEN | slots |
//! |---|---|---|---|
//! | 6bd5fb6c-5bf4-e74a-8987-d93912fd9df9 | CUDART_INTERFACE | 13 | see below |
//! | a094798c-2e74-2e74-93f2-0800200c0a66 | TOOLS_RUNTIME_CALLBACK_HOOKS | 7 | `[2]`, `[6]` |
//! | 42d85a81-23f6-cb47-8298-f6e78a3aecdc | TOOLS_TLS | 4 | size only |
//! | c693336e-1121-df11-a8c3-68f355d89593 | CONTEXT_LOCAL_STORAGE_INTERFACE_V0301 | 4 | `[0]` put, `[1]` delete, `[2]` get |
//! | 263e8860-7cd2-6143-92f6-bbd5006dfa7e | CONTEXT_CHECKS | 4 | `[2]`, `[3]` |
//! | d4082055-bde6-704b-8d34-ba123c66e1f2 | INTEGRITY_CHECK | 3 | `[1]` |
//! | f8cff951-2146-8b4e-b9e2-fb469e7c0dd9 | (unknown; not in ZLUDA) | 64 | no-ops |
//! | 21318c60-9714-3248-8ca6-41ff7324c8f2 | (unknown; 13.x only, not in ZLUDA) | 64 | no-ops |
//!
//! **CUDART_INTERFACE** (ZLUDA `CUDART_INTERFACE[13]`; notes: `[2]` called by every client,
//! `[12]` by 49 of 50):
//! - `[1]` `(CUmodule *, const __fatBinC_Wrapper_t *)`,
//!   `[6]` `(CUmodule *, wrapper, void *, void *, unsigned)`,
//!   `[8]` `(const fatbin header *, CUmodule *, void *, void *, unsigned)`: module from a
//!   fatbin. ZLUDA loads the module; the notes saw 12.9/13.5 never call them (they use
//!   `cuLibraryLoadData`). We return `CUDA_ERROR_NOT_SUPPORTED` (801) and always print a line to
//!   stderr, since the program is about to fail.
//! - `[2]` `(CUcontext *out, CUdevice dev)`: the device's primary context, from
//!   [`Hooks::primary_context`]; NULL `out` → `CUDA_ERROR_INVALID_VALUE`.
//! - `[7]` `void (size_t)`: no-op (ZLUDA).
//! - `[12]` `()`: "load compilers" (PTX compiler, libnvvm, tileir in NVIDIA's driver); returns 0
//!   (ZLUDA, notes).
//!
//! **TOOLS_RUNTIME_CALLBACK_HOOKS**: `[2]` and `[6]` are `void (void **buf, size_t *count)`;
//! they hand out static zeroed buffers of 1024 and 14 u32s and write the element count (ZLUDA
//! `get_unknown_buffer1/2`). The notes found that leaving them unwritten gives
//! `cudaErrorInsufficientDriver`. The runtime may write into the buffers.
//!
//! **TOOLS_TLS**: only fetched (notes), never called; slot 0 = 32.
//!
//! **CONTEXT_LOCAL_STORAGE_INTERFACE_V0301** (no size slot; notes: the runtime keeps its
//! per-context state here):
//! - `[0]` `CUresult (CUcontext, void *key, void *value, void (*dtor)(CUcontext, void *key,
//!   void *value))`: store (replacing an existing value in place, without running its dtor).
//! - `[1]` `CUresult (CUcontext, void *key)`: remove without running the dtor; absent is success.
//! - `[2]` `CUresult (void **value, CUcontext, void *key)`: `CUDA_ERROR_INVALID_HANDLE` (400) when
//!   absent (notes, ZLUDA); NULL `value` → `CUDA_ERROR_INVALID_VALUE`.
//! - A NULL context means the current one ([`Hooks::current_context`]); with none,
//!   `CUDA_ERROR_INVALID_CONTEXT` (201).
//! - [`context_destroyed`] removes a context's entries and calls their dtors, most recent first
//!   (ZLUDA runs them on `cuDevicePrimaryCtxReset`; its order is a hash map's).
//!
//! **CONTEXT_CHECKS** (ZLUDA: "checks for some bits that are never observably set"):
//! `[2]` `CUresult (CUcontext, unsigned *out, void **)` writes 0 to `out` and returns 0;
//! `[3]` `unsigned ()` returns 0.
//!
//! **INTEGRITY_CHECK**: `[1]`
//! `CUresult (unsigned version, uint64_t unix_seconds, uint64_t out[2])`. libcudart calls it
//! three times with its version times 10 plus 0, 1, 2 (13050/13051/13052; 12090/1/2) and checks
//! the answer: one wrong bit gives `cudaErrorSoftwareValidityNotEstablished` (notes §5). For
//! `version % 10` of 0 and 1 the answer is a constant; otherwise it is an HMAC-MD2 over the
//! driver version, `version`, the pid, the low 32 bits of `pthread_self()`, the addresses of the
//! CUDART_INTERFACE table, of the INTEGRITY_CHECK table and of its slot-1 function, and
//! `unix_seconds`, then per device its UUID and PCI domain/bus/device ids. See [`integrity`].
//!
//! **f8cff951…** (requested before `cuInit`; slot `[2]` was seen called with (0 or 1, …) near
//! `cudaFuncGetAttributes`) and **21318c60…** (13.x; an error makes `cudaMalloc` fail, no slot
//! was seen called): the notes found a table of no-ops returning 0 enough for both. We serve 64
//! slots (slot 0 = 512), each logging its calls with `PTXVM_LOG`.
//!
//! **Everything else**, notably da9151d3-3ae6-cc41-a5c0-4f26d533e328 (asked by NVRTC and
//! nvJitLink 13.5, which carry on after 801) and ZLUDA's CTX_CREATE_BYPASS, HEAP_ACCESS,
//! DEVICE_EXTENDED_RT and HYBRID_CUDART (which 12.9/13.5 never asked for): [`export_table`]
//! returns `None`, and `cuGetExportTable` should return [`UNKNOWN_TABLE_RESULT`]
//! (`CUDA_ERROR_NOT_SUPPORTED`, the answer those callers were seen to tolerate);
//! [`get_export_table`] does exactly that.
//!
//! # Checked against NVIDIA's runtime
//!
//! With a throwaway libcuda.so.1 made of these tables plus ~20 trivial entry points (not in the
//! repository), `cudaGetDeviceCount` and `cudaMalloc` succeed under libcudart 13.5 and 12.9,
//! shared and static, with 1, 2 and 3 devices; the runtime stores one CLS entry on the primary
//! context and deletes it at exit; no undecoded slot is called on that path. Controls: hooks
//! answering a driver version, or a second device's PCI bus, different from what the entry points
//! report give `cudaErrorSoftwareValidityNotEstablished`, so the check is enforced and covers
//! those inputs.
//!
//! # Logging
//!
//! With the environment variable `PTXVM_LOG` set (non-empty, not `0`), requests for unknown
//! UUIDs and calls of undecoded slots are logged to stderr.

mod cls;
pub mod integrity;
mod tables;

use std::ffi::c_void;
use std::fmt;
use std::io::Write;
use std::sync::{OnceLock, PoisonError, RwLock};

use crate::types::CUresult;

pub use tables::layout;

/// Result codes used here (values from `cuda.h`).
mod rc {
    use crate::types::CUresult;
    pub const SUCCESS: CUresult = 0;
    pub const INVALID_VALUE: CUresult = 1;
    pub const NOT_INITIALIZED: CUresult = 3;
    pub const INVALID_CONTEXT: CUresult = 201;
    pub const INVALID_HANDLE: CUresult = 400;
    pub const NOT_SUPPORTED: CUresult = 801;
    pub const UNKNOWN: CUresult = 999;
}

/// What `cuGetExportTable` returns for a UUID without a table: `CUDA_ERROR_NOT_SUPPORTED`.
pub const UNKNOWN_TABLE_RESULT: CUresult = rc::NOT_SUPPORTED;

/// The UUIDs, in memory byte order.
pub mod id {
    const fn parse(s: &str) -> [u8; 16] {
        const fn nibble(c: u8) -> u8 {
            match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                _ => panic!("not a lowercase hex digit"),
            }
        }
        let s = s.as_bytes();
        assert!(s.len() == 36);
        let mut out = [0u8; 16];
        let (mut i, mut o) = (0, 0);
        while i < s.len() {
            if s[i] == b'-' {
                assert!(i == 8 || i == 13 || i == 18 || i == 23);
                i += 1;
                continue;
            }
            out[o] = (nibble(s[i]) << 4) | nibble(s[i + 1]);
            o += 1;
            i += 2;
        }
        assert!(o == 16);
        out
    }

    pub const CUDART_INTERFACE: [u8; 16] = parse("6bd5fb6c-5bf4-e74a-8987-d93912fd9df9");
    pub const TOOLS_RUNTIME_CALLBACK_HOOKS: [u8; 16] =
        parse("a094798c-2e74-2e74-93f2-0800200c0a66");
    pub const TOOLS_TLS: [u8; 16] = parse("42d85a81-23f6-cb47-8298-f6e78a3aecdc");
    pub const CONTEXT_LOCAL_STORAGE_INTERFACE_V0301: [u8; 16] =
        parse("c693336e-1121-df11-a8c3-68f355d89593");
    pub const CONTEXT_CHECKS: [u8; 16] = parse("263e8860-7cd2-6143-92f6-bbd5006dfa7e");
    pub const INTEGRITY_CHECK: [u8; 16] = parse("d4082055-bde6-704b-8d34-ba123c66e1f2");
    /// Requested by libcudart before `cuInit`; meaning unknown.
    pub const UNKNOWN_F8CFF951: [u8; 16] = parse("f8cff951-2146-8b4e-b9e2-fb469e7c0dd9");
    /// Requested by libcudart 13.x; meaning unknown.
    pub const UNKNOWN_21318C60: [u8; 16] = parse("21318c60-9714-3248-8ca6-41ff7324c8f2");
    /// Requested by NVRTC and nvJitLink 13.5, which tolerate 801; not served.
    pub const NVRTC_DA9151D3: [u8; 16] = parse("da9151d3-3ae6-cc41-a5c0-4f26d533e328");
    /// ZLUDA knows these; libcudart 12.9/13.5 never asked for them; not served.
    pub const CTX_CREATE_BYPASS: [u8; 16] = parse("0ca50b8c-1004-929a-89a7-d0df10e77286");
    pub const HEAP_ACCESS: [u8; 16] = parse("195bcbf4-d67d-024a-acc5-1d29cea631ae");
    pub const DEVICE_EXTENDED_RT: [u8; 16] = parse("b10541e1-f7c7-c74a-9f64-f223be99f1e2");
    pub const HYBRID_CUDART: [u8; 16] = parse("dd9e98a4-f410-4844-99b0-e2aeb7b432b5");
}

/// Callbacks into the rest of the driver, set once at driver init before any table is used.
///
/// The runtime recomputes the integrity hash from the driver's own entry points
/// (`cuDriverGetVersion`, `cuDeviceGetCount`, `cuDeviceGetUuid_v2`, `cuDeviceGetAttribute`), so
/// `driver_version`, `device_count`, `device_uuid` and `device_pci` must return exactly what those
/// report, or every runtime call fails with `cudaErrorSoftwareValidityNotEstablished`.
#[derive(Clone, Copy, Debug)]
pub struct Hooks {
    /// What `cuDriverGetVersion` reports (hashed by INTEGRITY_CHECK).
    pub driver_version: fn() -> i32,
    /// What `cuDeviceGetCount` reports.
    pub device_count: fn() -> i32,
    /// `cuDeviceGetUuid_v2` of an ordinal in `0..device_count()`.
    pub device_uuid: fn(dev: i32) -> [u8; 16],
    /// The PCI domain, bus and device id attributes of an ordinal.
    pub device_pci: fn(dev: i32) -> (i32, i32, i32),
    /// Writes the device's primary context to `out` and returns a `CUresult`
    /// (`CUDA_ERROR_INVALID_DEVICE` for a bad ordinal). It should not retain or activate the
    /// context: ZLUDA's test `cudart_interface_fn2_creates_inactive_primary_ctx` finds the
    /// primary context still inactive after CUDART_INTERFACE`[2]`, and the same handle is what
    /// `cuDevicePrimaryCtxRetain` returns next.
    pub primary_context: fn(dev: i32, out: *mut *mut c_void) -> u32,
    /// The calling thread's current context, NULL if none.
    pub current_context: fn() -> *mut c_void,
}

static HOOKS: RwLock<Option<Hooks>> = RwLock::new(None);

/// Connects the tables to the driver. Calling it again replaces the hooks.
pub fn set_hooks(h: Hooks) {
    *HOOKS.write().unwrap_or_else(PoisonError::into_inner) = Some(h);
}

fn hooks() -> Option<Hooks> {
    *HOOKS.read().unwrap_or_else(PoisonError::into_inner)
}

/// The table for an export-table UUID, or `None` for UUIDs we do not serve (the caller returns
/// [`UNKNOWN_TABLE_RESULT`]).
pub fn export_table(uuid: &[u8; 16]) -> Option<*const c_void> {
    let table = match *uuid {
        id::CUDART_INTERFACE => tables::CUDART_INTERFACE.as_ptr(),
        id::TOOLS_RUNTIME_CALLBACK_HOOKS => tables::TOOLS_RUNTIME_CALLBACK_HOOKS.as_ptr(),
        id::TOOLS_TLS => tables::TOOLS_TLS.as_ptr(),
        id::CONTEXT_LOCAL_STORAGE_INTERFACE_V0301 => tables::CONTEXT_LOCAL_STORAGE.as_ptr(),
        id::CONTEXT_CHECKS => tables::CONTEXT_CHECKS.as_ptr(),
        id::INTEGRITY_CHECK => tables::INTEGRITY_CHECK.as_ptr(),
        id::UNKNOWN_F8CFF951 => {
            trace(format_args!(
                "cuGetExportTable({}): undecoded table, serving no-op slots",
                UuidText(uuid)
            ));
            tables::UNKNOWN_F8CFF951.as_ptr()
        }
        id::UNKNOWN_21318C60 => {
            trace(format_args!(
                "cuGetExportTable({}): undecoded table, serving no-op slots",
                UuidText(uuid)
            ));
            tables::UNKNOWN_21318C60.as_ptr()
        }
        _ => {
            let known = match *uuid {
                id::NVRTC_DA9151D3 => " (asked by NVRTC/nvJitLink)",
                id::CTX_CREATE_BYPASS => " (ZLUDA: CTX_CREATE_BYPASS)",
                id::HEAP_ACCESS => " (ZLUDA: HEAP_ACCESS)",
                id::DEVICE_EXTENDED_RT => " (ZLUDA: DEVICE_EXTENDED_RT)",
                id::HYBRID_CUDART => " (ZLUDA: HYBRID_CUDART)",
                _ => "",
            };
            trace(format_args!(
                "cuGetExportTable({}){known}: no such table, returning {UNKNOWN_TABLE_RESULT}",
                UuidText(uuid)
            ));
            return None;
        }
    };
    Some(table)
}

/// `cuGetExportTable(ppExportTable, pExportTableId)` in full: NULL arguments →
/// `CUDA_ERROR_INVALID_VALUE`; an unserved UUID → `*pp = NULL` and [`UNKNOWN_TABLE_RESULT`].
///
/// # Safety
/// Each pointer is NULL or valid for its access (`pp` written, `id` read as 16 bytes).
pub unsafe fn get_export_table(pp: *mut *const c_void, id: *const [u8; 16]) -> CUresult {
    std::panic::catch_unwind(|| {
        if pp.is_null() || id.is_null() {
            return rc::INVALID_VALUE;
        }
        // SAFETY: the caller's pointers are valid; a CUuuid is 16 bytes, alignment 1.
        let uuid = unsafe { id.read_unaligned() };
        let (table, result) = match export_table(&uuid) {
            Some(t) => (t, rc::SUCCESS),
            None => (std::ptr::null(), UNKNOWN_TABLE_RESULT),
        };
        // SAFETY: as above.
        unsafe { pp.write_unaligned(table) };
        result
    })
    .unwrap_or(rc::UNKNOWN)
}

/// Runs and removes the context-local-storage destructors of a context being destroyed or reset
/// (`cuCtxDestroy`, `cuDevicePrimaryCtxReset`, a primary context released for the last time).
/// Call it without holding driver locks a destructor might need: the runtime's destructors may
/// call back into the driver.
pub fn context_destroyed(ctx: *mut c_void) {
    if std::panic::catch_unwind(|| tables::run_cls_destructors(ctx)).is_err() {
        warn(format_args!(
            "internal error (panic) running CLS destructors"
        ));
    }
}

/// How many context-local-storage entries exist over all contexts.
pub fn context_local_storage_len() -> usize {
    std::panic::catch_unwind(tables::cls_len).unwrap_or(0)
}

/// A UUID in memory byte order, as `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
struct UuidText<'a>(&'a [u8; 16]);

impl fmt::Display for UuidText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

fn log_enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED
        .get_or_init(|| std::env::var_os("PTXVM_LOG").is_some_and(|v| !v.is_empty() && v != "0"))
}

/// A line on stderr, always. Never panics (a failed write is dropped).
fn warn(args: fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "ptxvm-cuda: {args}");
}

/// A line on stderr when `PTXVM_LOG` is set.
fn trace(args: fmt::Arguments<'_>) {
    if log_enabled() {
        warn(args);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_bytes_are_in_memory_order() {
        assert_eq!(
            id::CUDART_INTERFACE,
            [
                0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd,
                0x9d, 0xf9
            ]
        );
        assert_eq!(
            UuidText(&id::UNKNOWN_21318C60).to_string(),
            "21318c60-9714-3248-8ca6-41ff7324c8f2"
        );
    }

    #[test]
    fn uuids_are_distinct() {
        let all = [
            id::CUDART_INTERFACE,
            id::TOOLS_RUNTIME_CALLBACK_HOOKS,
            id::TOOLS_TLS,
            id::CONTEXT_LOCAL_STORAGE_INTERFACE_V0301,
            id::CONTEXT_CHECKS,
            id::INTEGRITY_CHECK,
            id::UNKNOWN_F8CFF951,
            id::UNKNOWN_21318C60,
            id::NVRTC_DA9151D3,
            id::CTX_CREATE_BYPASS,
            id::HEAP_ACCESS,
            id::DEVICE_EXTENDED_RT,
            id::HYBRID_CUDART,
        ];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }
}
