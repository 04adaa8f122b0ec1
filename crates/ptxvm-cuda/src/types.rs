//! The driver ABI's scalar types and result codes.

/// `CUresult`.
pub type CUresult = u32;
pub use crate::generated::errors::*;
pub use crate::generated::procaddr::{
    CU_GET_PROC_ADDRESS_DEFAULT, CU_GET_PROC_ADDRESS_LEGACY_STREAM,
    CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, CU_GET_PROC_ADDRESS_SUCCESS,
    CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,
    CUdriverProcAddressQueryResult,
};
