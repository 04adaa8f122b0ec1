//! `libcuda.so.1`: the CUDA driver API implemented on the ptxvm runtime.
//!
//! Architecture invariants:
//! - Every exported entry point catches panics and returns a `CUresult`; nothing unwinds
//!   into or aborts the host program.
//! - Handles are tagged table indices with generation counters: a stale or foreign handle
//!   is `CUDA_ERROR_INVALID_HANDLE`, never a dangling pointer.
//! - Nothing here knows PTX: modules, memory and launches go through `ptxvm-vm`.

pub mod dark;
pub mod generated;
pub mod image;
pub mod procaddr;
pub mod types;
