//! `libnvJitLink.so.13` (and, built as `abi12/`, `libnvJitLink.so.12`): NVIDIA's nvJitLink API
//! on ptxvm's PTX linker. Where NVIDIA's library links device code into a cubin of SASS, this
//! one links it into a **ptxvm container** (an ELF "cubin" carrying PTX and kernel metadata,
//! `ptxvm_vm::container`), which ptxvm's driver loads wherever a cubin is accepted. numba-cuda
//! and cuda.core installed the default way (`numba-cuda[cu13]`, which brings nvJitLink) link
//! every kernel through nvJitLink; with this library they hand the driver PTX it can run.
//!
//! # Inputs
//!
//! | input type | what happens |
//! |---|---|
//! | `PTX` | linked by `ptxvm_vm::link::link_ptx` |
//! | `CUBIN` | a ptxvm container: its PTX; an NVIDIA cubin (SASS) is refused (`NVJITLINK_ERROR_UNRECOGNIZED_INPUT`) |
//! | `FATBIN` | its ptxvm containers, else the best PTX entry for the `-arch`; a fatbin with only NVVM IR (`code=lto_XX`) goes to NVIDIA's nvJitLink like LTO-IR |
//! | `LTOIR` | NVVM IR, which ptxvm cannot read: compiled to PTX by **NVIDIA's** nvJitLink (`-lto -ptx`), then linked with the rest |
//! | `OBJECT` | a host object: the fatbins of its `.nv_fatbin` / `__nv_relfatbin` sections |
//! | `LIBRARY` | an `ar` archive: each member as an object (or fatbin) |
//! | `ANY` | told apart by content |
//! | `INDEX` | refused |
//!
//! `nvJitLinkComplete` links, checks the result as the driver's JIT would for `-arch`
//! (`ptxvm_vm::check_ptx_with`) and describes it for that GPU model
//! (`Container::describe`); `nvJitLinkGetLinkedCubin` returns the container and
//! `nvJitLinkGetLinkedPtx` the linked PTX (after any successful link, not only with `-ptx`).
//! With `-lto -ptx` the result is PTX only, as NVIDIA's (every input must then be LTO-IR).
//! Error codes, log formats and the order of checks follow NVIDIA's library (measured on
//! 13.5.37): a missing `-arch` is `NVJITLINK_ERROR_MISSING_ARCH`, an unknown option
//! `..._UNRECOGNIZED_OPTION`, `-ptx` without `-lto` `..._INCOMPATIBLE_OPTIONS`, LTO-IR without
//! `-lto` `..._LTO_NOT_ENABLED`, an undefined reference `..._INTERNAL`, a PTX error
//! `..._PTX_COMPILE`. The 12.x ABI maps the codes NVIDIA's 12.x headers lack
//! (`NEW_ERROR_CODES`) as those headers do.
//!
//! # NVIDIA's nvJitLink, for LTO-IR
//!
//! [`real`] finds NVIDIA's library without the loader's help (under `ptxvm exec` the loader
//! resolves `libnvJitLink.so.13` to this one): `PTXVM_REAL_NVJITLINK` (a path), else next to
//! the libraries already loaded in the process and in the `nvidia/cu13/lib` /
//! `nvidia/nvjitlink/lib` directories of the Python `site-packages` they live in (NVIDIA's
//! wheels: numba-cuda has loaded NVVM from there before it links), else `$CUDA_HOME`,
//! `$CUDA_PATH` and `/usr/local/cuda`. It is opened by absolute path with
//! `RTLD_LOCAL | RTLD_DEEPBIND`, so its own references bind inside it, and a candidate that
//! exports `ptxvm_nvjitlink_abi` (this library, under any name) is skipped.
//!
//! # Safety of the exports
//!
//! Every export runs in [`api::guard`], which catches panics (`NVJITLINK_ERROR_INTERNAL` and a
//! message, never an unwind into C); NULL pointers are `NVJITLINK_ERROR_NULL_INPUT`; handles
//! are table keys, so a stale or foreign handle is `NVJITLINK_ERROR_INVALID_INPUT`, never a
//! dangling pointer. Only the entry points (with NVIDIA's symbol version, the SONAME) and the
//! marker are exported.

#![allow(non_snake_case)]

pub mod api;
pub mod inputs;
pub mod link;
pub mod options;
pub mod real;

/// Module images, shared with the driver: fatbin parsing (with zstd/LZ4 entries) and the
/// image kinds. Included from `ptxvm-cuda` rather than depended on, since linking the driver
/// crate would export its `cu*` entry points from this library too.
#[path = "../../ptxvm-cuda/src/image.rs"]
#[allow(dead_code, clippy::all)]
pub mod image;

use std::ffi::{c_char, c_void};

/// An nvJitLink handle as the C API sees it (`struct nvJitLink *`); here a table key.
pub type Handle = *mut c_void;

/// The ABI this build implements: (major, minor) of the nvJitLink release whose
/// `nvJitLinkVersion` it reports and whose symbol names it exports.
#[cfg(not(nvjitlink_abi12))]
pub const ABI: (u32, u32) = (13, 5);
/// The ABI this build implements: (major, minor) of the nvJitLink release whose
/// `nvJitLinkVersion` it reports and whose symbol names it exports.
#[cfg(nvjitlink_abi12)]
pub const ABI: (u32, u32) = (12, 9);

/// Exported marker: its presence tells ptxvm's library from NVIDIA's (the value is the ABI
/// major version). [`real`] skips every candidate that has it.
#[unsafe(no_mangle)]
pub static ptxvm_nvjitlink_abi: u32 = ABI.0;

/// `nvJitLinkVersion`: the ABI's release ([`ABI`]).
///
/// # Safety
/// `major` and `minor` are NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkVersion(major: *mut u32, minor: *mut u32) -> u32 {
    // SAFETY: the caller's pointers.
    unsafe { api::version(major, minor) }
}

/// `__nvJitLinkAPI`: NVIDIA's library answers a private table for one key; ptxvm has none.
#[unsafe(no_mangle)]
pub extern "C" fn __nvJitLinkAPI(_key: u32) -> *const c_void {
    std::ptr::null()
}

include!(concat!(env!("OUT_DIR"), "/exports.rs"));
