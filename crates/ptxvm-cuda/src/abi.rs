//! The driver ABI: handle types, the enum values and `#[repr(C)]` structs of `cuda.h` that the
//! implemented entry points read or write (values as in CUDA 13.5's `cuda.h`).

#![allow(non_camel_case_types, dead_code)]

use std::ffi::c_void;

pub type CUdevice = i32;
pub type CUdeviceptr = u64;
/// Every opaque handle (`CUcontext`, `CUmodule`, `CUstream`, ...) is pointer-sized.
pub type Handle = *mut c_void;

// CUdevice_attribute: see `device.rs` (matched by number there).

// CUfunction_attribute.
pub const CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: i32 = 0;
pub const CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: i32 = 1;
pub const CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: i32 = 2;
pub const CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: i32 = 3;
pub const CU_FUNC_ATTRIBUTE_NUM_REGS: i32 = 4;
pub const CU_FUNC_ATTRIBUTE_PTX_VERSION: i32 = 5;
pub const CU_FUNC_ATTRIBUTE_BINARY_VERSION: i32 = 6;
pub const CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: i32 = 7;
pub const CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: i32 = 8;
pub const CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: i32 = 9;
pub const CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: i32 = 10;
pub const CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: i32 = 11;
pub const CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: i32 = 12;
pub const CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: i32 = 13;
pub const CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: i32 = 14;
pub const CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: i32 = 15;
pub const CU_FUNC_ATTRIBUTE_DEVICE_NODE_UPDATE_SUPPORTED: i32 = 16;
pub const CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE: i32 = 17;

// CUpointer_attribute.
pub const CU_POINTER_ATTRIBUTE_CONTEXT: i32 = 1;
pub const CU_POINTER_ATTRIBUTE_MEMORY_TYPE: i32 = 2;
pub const CU_POINTER_ATTRIBUTE_DEVICE_POINTER: i32 = 3;
pub const CU_POINTER_ATTRIBUTE_HOST_POINTER: i32 = 4;
pub const CU_POINTER_ATTRIBUTE_P2P_TOKENS: i32 = 5;
pub const CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: i32 = 6;
pub const CU_POINTER_ATTRIBUTE_BUFFER_ID: i32 = 7;
pub const CU_POINTER_ATTRIBUTE_IS_MANAGED: i32 = 8;
pub const CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: i32 = 9;
pub const CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: i32 = 10;
pub const CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: i32 = 11;
pub const CU_POINTER_ATTRIBUTE_RANGE_SIZE: i32 = 12;
pub const CU_POINTER_ATTRIBUTE_MAPPED: i32 = 13;
pub const CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES: i32 = 14;
pub const CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE: i32 = 15;
pub const CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: i32 = 16;
pub const CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: i32 = 17;
pub const CU_POINTER_ATTRIBUTE_MAPPING_SIZE: i32 = 18;
pub const CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR: i32 = 19;
pub const CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID: i32 = 20;

// CUmemorytype.
pub const CU_MEMORYTYPE_HOST: u32 = 1;
pub const CU_MEMORYTYPE_DEVICE: u32 = 2;
pub const CU_MEMORYTYPE_ARRAY: u32 = 3;
pub const CU_MEMORYTYPE_UNIFIED: u32 = 4;

// CUjit_option.
pub const CU_JIT_WALL_TIME: i32 = 2;
pub const CU_JIT_INFO_LOG_BUFFER: i32 = 3;
pub const CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: i32 = 4;
pub const CU_JIT_ERROR_LOG_BUFFER: i32 = 5;
pub const CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: i32 = 6;
pub const CU_JIT_TARGET: i32 = 9;
pub const CU_JIT_LOG_VERBOSE: i32 = 12;

// CUjitInputType.
pub const CU_JIT_INPUT_CUBIN: u32 = 0;
pub const CU_JIT_INPUT_PTX: u32 = 1;
pub const CU_JIT_INPUT_FATBINARY: u32 = 2;
pub const CU_JIT_INPUT_OBJECT: u32 = 3;
pub const CU_JIT_INPUT_LIBRARY: u32 = 4;
pub const CU_JIT_INPUT_NVVM: u32 = 5;

// CUlimit.
pub const CU_LIMIT_STACK_SIZE: u32 = 0;
pub const CU_LIMIT_PRINTF_FIFO_SIZE: u32 = 1;
pub const CU_LIMIT_MALLOC_HEAP_SIZE: u32 = 2;
pub const CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH: u32 = 3;
pub const CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: u32 = 4;
pub const CU_LIMIT_MAX_L2_FETCH_GRANULARITY: u32 = 5;
pub const CU_LIMIT_PERSISTING_L2_CACHE_SIZE: u32 = 6;

// Stream, event, context and host-memory flags.
pub const CU_STREAM_LEGACY: usize = 1;
pub const CU_STREAM_PER_THREAD: usize = 2;
pub const CU_STREAM_NON_BLOCKING: u32 = 1;
pub const CU_EVENT_BLOCKING_SYNC: u32 = 1;
pub const CU_EVENT_DISABLE_TIMING: u32 = 2;
pub const CU_EVENT_INTERPROCESS: u32 = 4;
pub const CU_CTX_FLAGS_MASK: u32 = 0xff;
pub const CU_MEMHOSTALLOC_PORTABLE: u32 = 1;
pub const CU_MEMHOSTALLOC_DEVICEMAP: u32 = 2;
pub const CU_MEMHOSTALLOC_WRITECOMBINED: u32 = 4;
pub const CU_MEMHOSTREGISTER_READ_ONLY: u32 = 8;
pub const CU_MEM_ATTACH_GLOBAL: u32 = 1;
pub const CU_MEM_ATTACH_HOST: u32 = 2;

// Launch parameters passed through `extra`.
pub const CU_LAUNCH_PARAM_END: usize = 0;
pub const CU_LAUNCH_PARAM_BUFFER_POINTER: usize = 1;
pub const CU_LAUNCH_PARAM_BUFFER_SIZE: usize = 2;

// CUlaunchAttributeID.
pub const CU_LAUNCH_ATTRIBUTE_IGNORE: u32 = 0;
pub const CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: u32 = 1;
pub const CU_LAUNCH_ATTRIBUTE_COOPERATIVE: u32 = 2;
pub const CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY: u32 = 3;
pub const CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: u32 = 4;
pub const CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: u32 = 5;
pub const CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION: u32 = 6;
pub const CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT: u32 = 7;
pub const CU_LAUNCH_ATTRIBUTE_PRIORITY: u32 = 8;
pub const CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP: u32 = 9;
pub const CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN: u32 = 10;
pub const CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION: u32 = 11;
pub const CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT: u32 = 12;
pub const CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE: u32 = 13;
pub const CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: u32 = 14;

// CUmemPool_attribute.
pub const CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: i32 = 1;
pub const CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: i32 = 2;
pub const CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: i32 = 3;
pub const CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: i32 = 4;
pub const CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: i32 = 5;
pub const CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: i32 = 6;
pub const CU_MEMPOOL_ATTR_USED_MEM_CURRENT: i32 = 7;
pub const CU_MEMPOOL_ATTR_USED_MEM_HIGH: i32 = 8;

// CUlibraryOption.
pub const CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE: u32 = 0;
pub const CU_LIBRARY_BINARY_IS_PRESERVED: u32 = 1;

// CUstreamCaptureStatus.
pub const CU_STREAM_CAPTURE_STATUS_NONE: u32 = 0;

/// `CUuuid`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUuuid {
    pub bytes: [u8; 16],
}

/// `CUDA_MEMCPY2D` (the `_v2` layout with `size_t` fields).
#[repr(C)]
pub struct CUDA_MEMCPY2D {
    pub src_x_in_bytes: usize,
    pub src_y: usize,
    pub src_memory_type: u32,
    pub src_host: *const c_void,
    pub src_device: CUdeviceptr,
    pub src_array: Handle,
    pub src_pitch: usize,
    pub dst_x_in_bytes: usize,
    pub dst_y: usize,
    pub dst_memory_type: u32,
    pub dst_host: *mut c_void,
    pub dst_device: CUdeviceptr,
    pub dst_array: Handle,
    pub dst_pitch: usize,
    pub width_in_bytes: usize,
    pub height: usize,
}

/// `CUDA_MEMCPY3D` (the `_v2` layout).
#[repr(C)]
pub struct CUDA_MEMCPY3D {
    pub src_x_in_bytes: usize,
    pub src_y: usize,
    pub src_z: usize,
    pub src_lod: usize,
    pub src_memory_type: u32,
    pub src_host: *const c_void,
    pub src_device: CUdeviceptr,
    pub src_array: Handle,
    pub reserved0: *mut c_void,
    pub src_pitch: usize,
    pub src_height: usize,
    pub dst_x_in_bytes: usize,
    pub dst_y: usize,
    pub dst_z: usize,
    pub dst_lod: usize,
    pub dst_memory_type: u32,
    pub dst_host: *mut c_void,
    pub dst_device: CUdeviceptr,
    pub dst_array: Handle,
    pub reserved1: *mut c_void,
    pub dst_pitch: usize,
    pub dst_height: usize,
    pub width_in_bytes: usize,
    pub height: usize,
    pub depth: usize,
}

/// `CUDA_MEMCPY3D_PEER`: the 3D copy with contexts.
#[repr(C)]
pub struct CUDA_MEMCPY3D_PEER {
    pub src_x_in_bytes: usize,
    pub src_y: usize,
    pub src_z: usize,
    pub src_lod: usize,
    pub src_memory_type: u32,
    pub src_host: *const c_void,
    pub src_device: CUdeviceptr,
    pub src_array: Handle,
    pub src_context: Handle,
    pub src_pitch: usize,
    pub src_height: usize,
    pub dst_x_in_bytes: usize,
    pub dst_y: usize,
    pub dst_z: usize,
    pub dst_lod: usize,
    pub dst_memory_type: u32,
    pub dst_host: *mut c_void,
    pub dst_device: CUdeviceptr,
    pub dst_array: Handle,
    pub dst_context: Handle,
    pub dst_pitch: usize,
    pub dst_height: usize,
    pub width_in_bytes: usize,
    pub height: usize,
    pub depth: usize,
}

/// `CUlaunchAttributeValue`: a 64-byte union; the members read are decoded from its bytes.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUlaunchAttributeValue {
    pub bytes: [u8; 64],
}

/// `CUlaunchAttribute`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUlaunchAttribute {
    pub id: u32,
    pub pad: [u8; 4],
    pub value: CUlaunchAttributeValue,
}

/// `CUlaunchConfig`.
#[repr(C)]
pub struct CUlaunchConfig {
    pub grid_dim_x: u32,
    pub grid_dim_y: u32,
    pub grid_dim_z: u32,
    pub block_dim_x: u32,
    pub block_dim_y: u32,
    pub block_dim_z: u32,
    pub shared_mem_bytes: u32,
    pub h_stream: Handle,
    pub attrs: *mut CUlaunchAttribute,
    pub num_attrs: u32,
}

/// `CUdevprop` (deprecated `cuDeviceGetProperties`).
#[repr(C)]
pub struct CUdevprop {
    pub max_threads_per_block: i32,
    pub max_threads_dim: [i32; 3],
    pub max_grid_size: [i32; 3],
    pub shared_mem_per_block: i32,
    pub total_constant_memory: i32,
    pub simd_width: i32,
    pub mem_pitch: i32,
    pub regs_per_block: i32,
    pub clock_rate: i32,
    pub texture_align: i32,
}

/// `CUmemLocation`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUmemLocation {
    pub kind: u32,
    pub id: i32,
}

/// `CUmemPoolProps`.
#[repr(C)]
pub struct CUmemPoolProps {
    pub alloc_type: u32,
    pub handle_types: u32,
    pub location: CUmemLocation,
    pub win32_security_attributes: *mut c_void,
    pub max_size: usize,
    pub usage: u16,
    pub gpu_direct_rdma_capable: u8,
    pub reserved: [u8; 53],
}

/// `CUmemAllocationProp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUmemAllocationProp {
    pub kind: u32,
    pub requested_handle_types: u32,
    pub location: CUmemLocation,
    pub win32_handle_meta_data: *mut c_void,
    pub compression_type: u8,
    pub gpu_direct_rdma_capable: u8,
    pub usage: u16,
    pub reserved: [u8; 4],
}

/// `CUmemAccessDesc`.
#[repr(C)]
pub struct CUmemAccessDesc {
    pub location: CUmemLocation,
    pub flags: u32,
}

/// `CUstreamCallback`.
pub type CUstreamCallback = Option<unsafe extern "C" fn(Handle, u32, *mut c_void)>;
/// `CUhostFn`.
pub type CUhostFn = Option<unsafe extern "C" fn(*mut c_void)>;
/// `CUoccupancyB2DSize`: dynamic shared memory for a block size.
pub type CUoccupancyB2DSize = Option<unsafe extern "C" fn(i32) -> usize>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn struct_sizes_match_cuda_h() {
        assert_eq!(std::mem::size_of::<CUDA_MEMCPY2D>(), 128);
        assert_eq!(std::mem::size_of::<CUDA_MEMCPY3D>(), 200);
        assert_eq!(std::mem::size_of::<CUlaunchAttribute>(), 72);
        assert_eq!(std::mem::size_of::<CUlaunchConfig>(), 56);
        assert_eq!(std::mem::size_of::<CUmemPoolProps>(), 88);
        assert_eq!(std::mem::size_of::<CUdevprop>(), 56);
        assert_eq!(std::mem::size_of::<CUmemAllocationProp>(), 32);
    }
}
