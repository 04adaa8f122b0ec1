//! The export tables themselves: `static` arrays of slots, and the `extern "C"` functions in them.
//!
//! A table is a `#[repr(C)]` array of pointer-sized slots; the runtime indexes it. Slot 0 holds
//! the table's size in bytes (`8 * LEN`) in every table but CONTEXT_LOCAL_STORAGE, whose slot 0
//! is a function (ZLUDA, `dark_api/src/lib.rs`). Slot indices are the named constants of
//! [`layout`]; the per-table facts are in the `//!` header of `dark.rs`.
//!
//! Invariants:
//! - No slot is NULL. A slot whose meaning nobody knows holds its own monomorphization of
//!   [`unimplemented_slot`], which logs (with `PTXVM_LOG`) which table and slot was called and
//!   returns 0 (in the full return register).
//! - Every slot function catches panics and returns a code (void slots return nothing); nothing
//!   unwinds into C.
//! - The tables are `static`s: their addresses never change, which the integrity hash relies on
//!   (it covers the address of CUDART_INTERFACE, of INTEGRITY_CHECK and of INTEGRITY_CHECK slot 1).

use std::cell::UnsafeCell;
use std::ffi::{c_int, c_void};
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::cls::{ClsDtor, ClsStore};
use super::{hooks, integrity, rc, trace, warn};
use crate::types::CUresult;

/// One table slot: a function address, or (slot 0) a byte count stored as an address.
pub type Slot = *const c_void;

/// A table of `N` slots, laid out as the C array the runtime reads.
#[repr(C)]
pub struct Table<const N: usize>(pub [Slot; N]);

// SAFETY: the slots are immutable addresses of functions (or integers); sharing them between
// threads shares nothing mutable.
unsafe impl<const N: usize> Sync for Table<N> {}

impl<const N: usize> Table<N> {
    /// The address `cuGetExportTable` hands out.
    pub fn as_ptr(&'static self) -> *const c_void {
        self.0.as_ptr().cast()
    }
}

/// Slot indices and lengths, one module per table.
pub mod layout {
    /// Slot 0 of every table that has a size slot.
    pub const SIZE: usize = 0;

    /// CUDART_INTERFACE, 6bd5fb6c-5bf4-e74a-8987-d93912fd9df9.
    pub mod cudart_interface {
        pub const LEN: usize = 13;
        pub const SIZE: usize = super::SIZE;
        /// `(CUmodule *out, const __fatBinC_Wrapper_t *)`.
        pub const MODULE_FROM_FATBIN: usize = 1;
        /// `(CUcontext *out, CUdevice)`: the device's primary context.
        pub const PRIMARY_CONTEXT: usize = 2;
        /// `(CUmodule *out, const __fatBinC_Wrapper_t *, void *, void *, unsigned)`.
        pub const MODULE_FROM_FATBIN_EXT1: usize = 6;
        /// `void (size_t)`.
        pub const FN7: usize = 7;
        /// `(const fatbin header *, CUmodule *out, void *, void *, unsigned)`.
        pub const MODULE_FROM_FATBIN_EXT2: usize = 8;
        /// `()`: loads the PTX compiler, libnvvm and tileir in NVIDIA's driver.
        pub const LOAD_COMPILERS: usize = 12;
    }

    /// TOOLS_RUNTIME_CALLBACK_HOOKS, a094798c-2e74-2e74-93f2-0800200c0a66.
    pub mod tools_runtime_callback_hooks {
        pub const LEN: usize = 7;
        pub const SIZE: usize = super::SIZE;
        /// `void (void **buffer, size_t *count)`: a zeroed buffer of [`BUFFER_A_LEN`] u32s.
        pub const BUFFER_A: usize = 2;
        /// `void (void **buffer, size_t *count)`: a zeroed buffer of [`BUFFER_B_LEN`] u32s.
        pub const BUFFER_B: usize = 6;
        pub const BUFFER_A_LEN: usize = 1024;
        pub const BUFFER_B_LEN: usize = 14;
    }

    /// TOOLS_TLS, 42d85a81-23f6-cb47-8298-f6e78a3aecdc.
    pub mod tools_tls {
        pub const LEN: usize = 4;
        pub const SIZE: usize = super::SIZE;
    }

    /// CONTEXT_LOCAL_STORAGE_INTERFACE_V0301, c693336e-1121-df11-a8c3-68f355d89593 (no size slot).
    pub mod context_local_storage {
        pub const LEN: usize = 4;
        /// `(CUcontext, void *key, void *value, void (*dtor)(CUcontext, void *key, void *value))`.
        pub const PUT: usize = 0;
        /// `(CUcontext, void *key)`.
        pub const DELETE: usize = 1;
        /// `(void **value, CUcontext, void *key)`.
        pub const GET: usize = 2;
    }

    /// CONTEXT_CHECKS, 263e8860-7cd2-6143-92f6-bbd5006dfa7e.
    pub mod context_checks {
        pub const LEN: usize = 4;
        pub const SIZE: usize = super::SIZE;
        /// `(CUcontext, unsigned *out, void **out2)`.
        pub const CONTEXT_CHECK: usize = 2;
        /// `unsigned ()`.
        pub const CHECK3: usize = 3;
    }

    /// INTEGRITY_CHECK, d4082055-bde6-704b-8d34-ba123c66e1f2.
    pub mod integrity_check {
        pub const LEN: usize = 3;
        pub const SIZE: usize = super::SIZE;
        /// `(unsigned version, uint64_t unix_seconds, uint64_t out[2])`.
        pub const INTEGRITY_CHECK: usize = 1;
    }

    /// The no-op tables for UUIDs nobody has decoded (f8cff951…, 21318c60…).
    pub mod unknown {
        pub const LEN: usize = 64;
        pub const SIZE: usize = super::SIZE;
    }
}

/// Which table an [`unimplemented_slot`] belongs to, for its log line.
mod table_id {
    pub const CUDART_INTERFACE: u8 = 0;
    pub const TOOLS_RUNTIME_CALLBACK_HOOKS: u8 = 1;
    pub const TOOLS_TLS: u8 = 2;
    pub const CONTEXT_LOCAL_STORAGE: u8 = 3;
    pub const CONTEXT_CHECKS: u8 = 4;
    pub const INTEGRITY_CHECK: u8 = 5;
    pub const UNKNOWN_F8CFF951: u8 = 6;
    pub const UNKNOWN_21318C60: u8 = 7;
}

fn table_name(id: u8) -> &'static str {
    match id {
        table_id::CUDART_INTERFACE => "CUDART_INTERFACE",
        table_id::TOOLS_RUNTIME_CALLBACK_HOOKS => "TOOLS_RUNTIME_CALLBACK_HOOKS",
        table_id::TOOLS_TLS => "TOOLS_TLS",
        table_id::CONTEXT_LOCAL_STORAGE => "CONTEXT_LOCAL_STORAGE_INTERFACE_V0301",
        table_id::CONTEXT_CHECKS => "CONTEXT_CHECKS",
        table_id::INTEGRITY_CHECK => "INTEGRITY_CHECK",
        table_id::UNKNOWN_F8CFF951 => "unknown f8cff951-2146-8b4e-b9e2-fb469e7c0dd9",
        table_id::UNKNOWN_21318C60 => "unknown 21318c60-9714-3248-8ca6-41ff7324c8f2",
        _ => "?",
    }
}

/// Runs a slot body; a panic becomes `on_panic` (the panic hook has already printed it).
fn guard<R>(slot: &'static str, on_panic: R, body: impl FnOnce() -> R) -> R {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(r) => r,
        Err(_) => {
            warn(format_args!(
                "internal error (panic) in export-table slot {slot}"
            ));
            on_panic
        }
    }
}

/// A slot nobody has decoded. Whatever the caller passes, on x86-64 SysV and AArch64 the first
/// integer arguments arrive in registers and the caller pops its own arguments, so reading four
/// of them (for the log) and returning a zero register is harmless whatever the real signature.
extern "C" fn unimplemented_slot<const TABLE: u8, const SLOT: usize>(
    a0: usize,
    a1: usize,
    a2: usize,
    a3: usize,
) -> usize {
    guard("unimplemented", 0, || {
        trace(format_args!(
            "export table {}[{SLOT}] called ({a0:#x}, {a1:#x}, {a2:#x}, {a3:#x}, ...): \
             not implemented, returning 0",
            table_name(TABLE)
        ));
        0
    })
}

macro_rules! unimplemented_slots {
    ($table:ident; $($i:literal)*) => {
        [$(unimplemented_slot::<$table, $i> as Slot),*]
    };
}

/// `N` slots, slot `i` being `unimplemented_slot::<TABLE, i>`; tables then overwrite what they
/// implement.
const fn filler<const TABLE: u8, const N: usize>() -> [Slot; N] {
    let all: [Slot; 64] = unimplemented_slots!(TABLE;
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
        32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61
        62 63);
    assert!(N <= all.len());
    let mut out = [std::ptr::null(); N];
    let mut i = 0;
    while i < N {
        out[i] = all[i];
        i += 1;
    }
    out
}

/// Slot 0: the table's size in bytes.
const fn size_slot(len: usize) -> Slot {
    std::ptr::without_provenance(len * size_of::<Slot>())
}

// ---- CUDART_INTERFACE ----------------------------------------------------------------------

pub static CUDART_INTERFACE: Table<{ layout::cudart_interface::LEN }> = {
    use layout::cudart_interface as l;
    let mut s = filler::<{ table_id::CUDART_INTERFACE }, { l::LEN }>();
    s[l::SIZE] = size_slot(l::LEN);
    s[l::MODULE_FROM_FATBIN] = cudart_module_from_fatbin as Slot;
    s[l::PRIMARY_CONTEXT] = cudart_primary_context as Slot;
    s[l::MODULE_FROM_FATBIN_EXT1] = cudart_module_from_fatbin_ext1 as Slot;
    s[l::FN7] = cudart_fn7 as Slot;
    s[l::MODULE_FROM_FATBIN_EXT2] = cudart_module_from_fatbin_ext2 as Slot;
    s[l::LOAD_COMPILERS] = cudart_load_compilers as Slot;
    Table(s)
};

fn module_from_fatbin_unsupported(slot: &str, image: *const c_void) -> CUresult {
    // Never seen called by libcudart 12.9/13.5 (they use cuLibraryLoadData): say so loudly.
    warn(format_args!(
        "CUDART_INTERFACE[{slot}] (module from fatbin {image:p}) is not supported; \
         returning CUDA_ERROR_NOT_SUPPORTED"
    ));
    rc::NOT_SUPPORTED
}

unsafe extern "C" fn cudart_module_from_fatbin(
    _module: *mut *mut c_void,
    fatbinc_wrapper: *const c_void,
) -> CUresult {
    guard("CUDART_INTERFACE[1]", rc::UNKNOWN, || {
        module_from_fatbin_unsupported("1", fatbinc_wrapper)
    })
}

unsafe extern "C" fn cudart_module_from_fatbin_ext1(
    _module: *mut *mut c_void,
    fatbinc_wrapper: *const c_void,
    _arg3: *mut c_void,
    _arg4: *mut c_void,
    _arg5: u32,
) -> CUresult {
    guard("CUDART_INTERFACE[6]", rc::UNKNOWN, || {
        module_from_fatbin_unsupported("6", fatbinc_wrapper)
    })
}

unsafe extern "C" fn cudart_module_from_fatbin_ext2(
    fatbin_header: *const c_void,
    _module: *mut *mut c_void,
    _arg3: *mut c_void,
    _arg4: *mut c_void,
    _arg5: u32,
) -> CUresult {
    guard("CUDART_INTERFACE[8]", rc::UNKNOWN, || {
        module_from_fatbin_unsupported("8", fatbin_header)
    })
}

unsafe extern "C" fn cudart_primary_context(pctx: *mut *mut c_void, dev: c_int) -> CUresult {
    guard("CUDART_INTERFACE[2]", rc::UNKNOWN, || {
        if pctx.is_null() {
            return rc::INVALID_VALUE;
        }
        match hooks() {
            Some(h) => (h.primary_context)(dev, pctx),
            None => rc::NOT_INITIALIZED,
        }
    })
}

extern "C" fn cudart_fn7(_arg: usize) {}

extern "C" fn cudart_load_compilers() -> CUresult {
    rc::SUCCESS
}

// ---- TOOLS_RUNTIME_CALLBACK_HOOKS ----------------------------------------------------------

pub static TOOLS_RUNTIME_CALLBACK_HOOKS: Table<{ layout::tools_runtime_callback_hooks::LEN }> = {
    use layout::tools_runtime_callback_hooks as l;
    let mut s = filler::<{ table_id::TOOLS_RUNTIME_CALLBACK_HOOKS }, { l::LEN }>();
    s[l::SIZE] = size_slot(l::LEN);
    s[l::BUFFER_A] = tools_buffer_a as Slot;
    s[l::BUFFER_B] = tools_buffer_b as Slot;
    Table(s)
};

/// A zero-initialized buffer handed to the runtime, which may write to it.
#[repr(transparent)]
struct RuntimeBuffer<const N: usize>(UnsafeCell<[u32; N]>);

// SAFETY: Rust never reads or writes the contents; only the runtime does, through the pointer.
unsafe impl<const N: usize> Sync for RuntimeBuffer<N> {}

static BUFFER_A: RuntimeBuffer<{ layout::tools_runtime_callback_hooks::BUFFER_A_LEN }> =
    RuntimeBuffer(UnsafeCell::new(
        [0; layout::tools_runtime_callback_hooks::BUFFER_A_LEN],
    ));
static BUFFER_B: RuntimeBuffer<{ layout::tools_runtime_callback_hooks::BUFFER_B_LEN }> =
    RuntimeBuffer(UnsafeCell::new(
        [0; layout::tools_runtime_callback_hooks::BUFFER_B_LEN],
    ));

/// Writes a buffer's address and its length in u32s (ZLUDA writes the element count).
unsafe fn hand_out<const N: usize>(
    buf: &'static RuntimeBuffer<N>,
    ptr: *mut *mut c_void,
    n: *mut usize,
) {
    // SAFETY: the caller passes writable out-pointers or NULL.
    unsafe {
        if let Some(p) = ptr.as_mut() {
            *p = buf.0.get().cast();
        }
        if let Some(n) = n.as_mut() {
            *n = N;
        }
    }
}

unsafe extern "C" fn tools_buffer_a(ptr: *mut *mut c_void, n: *mut usize) {
    // SAFETY: see `hand_out`.
    guard("TOOLS_RUNTIME_CALLBACK_HOOKS[2]", (), || unsafe {
        hand_out(&BUFFER_A, ptr, n)
    })
}

unsafe extern "C" fn tools_buffer_b(ptr: *mut *mut c_void, n: *mut usize) {
    // SAFETY: see `hand_out`.
    guard("TOOLS_RUNTIME_CALLBACK_HOOKS[6]", (), || unsafe {
        hand_out(&BUFFER_B, ptr, n)
    })
}

// ---- TOOLS_TLS -----------------------------------------------------------------------------

pub static TOOLS_TLS: Table<{ layout::tools_tls::LEN }> = {
    use layout::tools_tls as l;
    let mut s = filler::<{ table_id::TOOLS_TLS }, { l::LEN }>();
    s[l::SIZE] = size_slot(l::LEN);
    Table(s)
};

// ---- CONTEXT_LOCAL_STORAGE_INTERFACE_V0301 -------------------------------------------------

pub static CONTEXT_LOCAL_STORAGE: Table<{ layout::context_local_storage::LEN }> = {
    use layout::context_local_storage as l;
    let mut s = filler::<{ table_id::CONTEXT_LOCAL_STORAGE }, { l::LEN }>();
    s[l::PUT] = cls_put as Slot;
    s[l::DELETE] = cls_delete as Slot;
    s[l::GET] = cls_get as Slot;
    Table(s)
};

static CLS: Mutex<ClsStore> = Mutex::new(ClsStore::new());

/// The store, even after a panic elsewhere poisoned the lock (its data is always consistent:
/// every mutation is a single map operation).
fn cls() -> MutexGuard<'static, ClsStore> {
    CLS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A NULL context means the calling thread's current one.
fn resolve_context(ctx: *mut c_void) -> Result<usize, CUresult> {
    if !ctx.is_null() {
        return Ok(ctx.addr());
    }
    let h = hooks().ok_or(rc::NOT_INITIALIZED)?;
    let current = (h.current_context)();
    if current.is_null() {
        Err(rc::INVALID_CONTEXT)
    } else {
        Ok(current.addr())
    }
}

unsafe extern "C" fn cls_put(
    ctx: *mut c_void,
    key: *mut c_void,
    value: *mut c_void,
    dtor: Option<ClsDtor>,
) -> CUresult {
    guard(
        "CONTEXT_LOCAL_STORAGE[0]",
        rc::UNKNOWN,
        || match resolve_context(ctx) {
            Ok(ctx) => {
                cls().put(
                    ctx,
                    key.expose_provenance(),
                    value.expose_provenance(),
                    dtor,
                );
                rc::SUCCESS
            }
            Err(e) => e,
        },
    )
}

unsafe extern "C" fn cls_delete(ctx: *mut c_void, key: *mut c_void) -> CUresult {
    guard("CONTEXT_LOCAL_STORAGE[1]", rc::UNKNOWN, || {
        match resolve_context(ctx) {
            Ok(ctx) => {
                // Deleting an absent key succeeds, as in ZLUDA.
                cls().delete(ctx, key.addr());
                rc::SUCCESS
            }
            Err(e) => e,
        }
    })
}

unsafe extern "C" fn cls_get(
    value: *mut *mut c_void,
    ctx: *mut c_void,
    key: *mut c_void,
) -> CUresult {
    guard("CONTEXT_LOCAL_STORAGE[2]", rc::UNKNOWN, || {
        if value.is_null() {
            return rc::INVALID_VALUE;
        }
        let ctx = match resolve_context(ctx) {
            Ok(ctx) => ctx,
            Err(e) => return e,
        };
        let found = cls().get(ctx, key.addr());
        match found {
            Some(v) => {
                // SAFETY: `value` is the caller's non-NULL out-pointer.
                unsafe { *value = std::ptr::with_exposed_provenance_mut(v) };
                rc::SUCCESS
            }
            None => rc::INVALID_HANDLE,
        }
    })
}

/// Removes `ctx`'s entries, then (with the lock released, so a destructor may use the table)
/// calls their destructors as `dtor(ctx, key, value)`.
pub(super) fn run_cls_destructors(ctx: *mut c_void) {
    let entries = cls().take_context(ctx.addr());
    for e in entries {
        if let Some(dtor) = e.dtor {
            // SAFETY: the runtime registered this destructor for exactly these arguments.
            unsafe {
                dtor(
                    ctx,
                    std::ptr::with_exposed_provenance_mut(e.key),
                    std::ptr::with_exposed_provenance_mut(e.value),
                )
            };
        }
    }
}

/// How many CLS entries exist (all contexts); for tests and diagnostics.
pub(super) fn cls_len() -> usize {
    cls().len()
}

// ---- CONTEXT_CHECKS ------------------------------------------------------------------------

pub static CONTEXT_CHECKS: Table<{ layout::context_checks::LEN }> = {
    use layout::context_checks as l;
    let mut s = filler::<{ table_id::CONTEXT_CHECKS }, { l::LEN }>();
    s[l::SIZE] = size_slot(l::LEN);
    s[l::CONTEXT_CHECK] = context_check as Slot;
    s[l::CHECK3] = context_check3 as Slot;
    Table(s)
};

unsafe extern "C" fn context_check(
    _ctx: *mut c_void,
    out: *mut u32,
    _out2: *mut *const c_void,
) -> CUresult {
    guard("CONTEXT_CHECKS[2]", rc::UNKNOWN, || {
        // SAFETY: `out` is the caller's out-pointer or NULL.
        if let Some(out) = unsafe { out.as_mut() } {
            *out = 0;
        }
        rc::SUCCESS
    })
}

extern "C" fn context_check3() -> u32 {
    0
}

// ---- INTEGRITY_CHECK -----------------------------------------------------------------------

pub static INTEGRITY_CHECK: Table<{ layout::integrity_check::LEN }> = {
    use layout::integrity_check as l;
    let mut s = filler::<{ table_id::INTEGRITY_CHECK }, { l::LEN }>();
    s[l::SIZE] = size_slot(l::LEN);
    s[l::INTEGRITY_CHECK] = integrity_check as Slot;
    Table(s)
};

/// What the hash covers, gathered for the calling thread.
fn integrity_answer(version: u32, unix_seconds: u64) -> Result<[u64; 2], CUresult> {
    let mut devices = Vec::new();
    let mut driver_version = 0;
    if integrity::needs_devices(version) {
        let h = hooks().ok_or(rc::NOT_INITIALIZED)?;
        driver_version = (h.driver_version)() as u32;
        for dev in 0..(h.device_count)().max(0) {
            let (pci_domain, pci_bus, pci_device) = (h.device_pci)(dev);
            devices.push(integrity::Device {
                uuid: (h.device_uuid)(dev),
                pci_domain,
                pci_bus,
                pci_device,
            });
        }
    }
    let inputs = integrity::Inputs {
        driver_version,
        version,
        process_id: std::process::id(),
        // SAFETY: pthread_self has no preconditions.
        thread_id: unsafe { libc::pthread_self() } as u32,
        cudart_interface_table: CUDART_INTERFACE.as_ptr().addr(),
        integrity_check_table: INTEGRITY_CHECK.as_ptr().addr(),
        integrity_check_fn: INTEGRITY_CHECK.0[layout::integrity_check::INTEGRITY_CHECK].addr(),
        unix_seconds,
    };
    Ok(integrity::hash(&inputs, &devices))
}

unsafe extern "C" fn integrity_check(
    version: u32,
    unix_seconds: u64,
    out: *mut [u64; 2],
) -> CUresult {
    guard("INTEGRITY_CHECK[1]", rc::UNKNOWN, || {
        if out.is_null() {
            return rc::INVALID_VALUE;
        }
        match integrity_answer(version, unix_seconds) {
            Ok(answer) => {
                // SAFETY: `out` is the caller's non-NULL out-pointer to 16 bytes.
                unsafe { out.write_unaligned(answer) };
                rc::SUCCESS
            }
            Err(e) => e,
        }
    })
}

// ---- Tables for UUIDs nobody has decoded ---------------------------------------------------

pub static UNKNOWN_F8CFF951: Table<{ layout::unknown::LEN }> = {
    let mut s = filler::<{ table_id::UNKNOWN_F8CFF951 }, { layout::unknown::LEN }>();
    s[layout::unknown::SIZE] = size_slot(layout::unknown::LEN);
    Table(s)
};

pub static UNKNOWN_21318C60: Table<{ layout::unknown::LEN }> = {
    let mut s = filler::<{ table_id::UNKNOWN_21318C60 }, { layout::unknown::LEN }>();
    s[layout::unknown::SIZE] = size_slot(layout::unknown::LEN);
    Table(s)
};
