//! `libcuda.so.1`: the CUDA driver API implemented on the ptxvm runtime.
//!
//! Architecture invariants:
//! - Every exported entry point runs its body in [`driver::api`], which catches panics and
//!   returns a `CUresult`; nothing unwinds into or aborts the host program.
//! - Handles are tagged table indices with generation counters ([`handle`]): a stale or
//!   foreign handle is `CUDA_ERROR_INVALID_HANDLE`, never a dangling pointer.
//! - Nothing here knows PTX: modules, memory and launches go through `ptxvm-vm`.
//! - One module per API family: [`entry`] (init, versions, `cuGetProcAddress`, export
//!   tables), [`device`], [`context`], [`memory`], [`stream`] (streams, events, callbacks),
//!   [`module`] (modules, libraries, the linker), [`launch`] (launches, function attributes,
//!   occupancy). Entry points that are not implemented are generated stubs
//!   (`generated/stubs.rs`) that say so once on stderr and return `CUDA_ERROR_NOT_SUPPORTED`.

#![allow(non_snake_case, clippy::missing_safety_doc)]

pub mod abi;
pub mod context;
pub mod dark;
pub mod device;
pub mod diag;
pub mod driver;
pub mod entry;
pub mod generated;
pub mod handle;
pub mod image;
pub mod launch;
pub mod logs;
pub mod memory;
pub mod module;
pub mod multicast;
pub mod procaddr;
pub mod stream;
pub mod tensormap;
pub mod texture;
pub mod types;
pub mod vmm;
