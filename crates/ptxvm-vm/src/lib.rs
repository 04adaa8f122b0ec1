//! `ptxvm-vm`: the runtime — a virtual device with a sandboxed address space
//! ([`memory`]), module loading and decoding ([`program`]), kernel launch ([`device`]) and
//! the reference interpreter with the PTX machine model ([`exec`]).

pub mod arch;
pub mod container;
pub mod coverage;
pub mod device;
pub mod error;
pub mod exec;
pub mod link;
pub mod local;
pub mod memory;
pub mod ops;
pub mod pressure;
pub mod program;
pub mod texobj;

pub use device::{
    CheckedModule, DEFAULT_MAX_STEPS, Device, DeviceProps, Kernel, KernelAttrs, LaunchConfig,
    ModuleId, ParamInfo, check_ptx, check_ptx_with,
};
pub use device::{
    TensorMapBytes, tensor_map_encode_im2col, tensor_map_encode_im2col_wide,
    tensor_map_encode_tiled, tensor_map_replace_address,
};
pub use error::{Fault, FaultKind, Located, Site, VmError, catch};
pub use exec::{Engine, Stats};
pub use ptxvm_ir::CheckOptions;

#[cfg(test)]
mod tests;
