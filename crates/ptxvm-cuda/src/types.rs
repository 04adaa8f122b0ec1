//! The driver ABI's scalar types and result codes.

/// `CUresult`.
pub type CUresult = u32;
pub use crate::generated::errors::*;
