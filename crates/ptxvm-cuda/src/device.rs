//! Devices: count, names, UUIDs, PCI ids and every `CUdevice_attribute`, all from the
//! emulated GPU model (`ptxvm_vm::arch`) and the device's memory limit. Features ptxvm does
//! not have (textures until they land, IPC, graphics interop, virtual memory management)
//! report 0, so clients take their fallback paths.

use crate::abi::*;
use crate::driver::{Dev, Error, R, api, cstr, drv, out};
use crate::types::*;
use std::ffi::c_char;

/// The value of a device attribute (`CUDA_ERROR_INVALID_VALUE` for an unknown one).
pub fn attribute(dev: &Dev, attr: i32) -> R<i32> {
    let m = dev.model();
    let p = &dev.vm.props;
    let clusters = m.clusters as i32;
    let v = match attr {
        1 => p.max_threads_per_block as i32,
        2 => p.max_block_dim[0] as i32,
        3 => p.max_block_dim[1] as i32,
        4 => p.max_block_dim[2] as i32,
        5 => p.max_grid_dim[0] as i32,
        6 => p.max_grid_dim[1] as i32,
        7 => p.max_grid_dim[2] as i32,
        8 => m.shared_per_block as i32,
        9 => 65536,               // TOTAL_CONSTANT_MEMORY
        10 => p.warp_size as i32, // WARP_SIZE
        11 => i32::MAX,           // MAX_PITCH
        12 => m.regs_per_block as i32,
        13 => m.clock_khz as i32,
        14 => 512, // TEXTURE_ALIGNMENT
        15 => 1,   // GPU_OVERLAP
        16 => m.sm_count as i32,
        17 => 0,               // KERNEL_EXEC_TIMEOUT
        18 => 0,               // INTEGRATED
        19 => 1,               // CAN_MAP_HOST_MEMORY
        20 => 0,               // COMPUTE_MODE: default
        21 => 131072,          // MAXIMUM_TEXTURE1D_WIDTH
        22 | 23 => 131072,     // TEXTURE2D width/height
        24..=26 => 16384,      // TEXTURE3D
        27 | 28 => 32768,      // TEXTURE2D_LAYERED width/height
        29 => 2048,            // layers
        30 => 512,             // SURFACE_ALIGNMENT
        31 => 1,               // CONCURRENT_KERNELS
        32 => 0,               // ECC_ENABLED
        33 => dev.ordinal + 1, // PCI_BUS_ID
        34 => 0,               // PCI_DEVICE_ID
        35 => 0,               // TCC_DRIVER
        36 => m.mem_clock_khz as i32,
        37 => m.mem_bus_bits as i32,
        38 => m.l2_bytes as i32,
        39 => m.max_threads_per_sm as i32,
        40 => 2,     // ASYNC_ENGINE_COUNT
        41 => 1,     // UNIFIED_ADDRESSING
        42 => 32768, // TEXTURE1D_LAYERED_WIDTH
        43 => 2048,
        44 => 0,
        45 | 46 => 32768,
        47..=49 => 8192,
        50 => 0,  // PCI_DOMAIN_ID
        51 => 32, // TEXTURE_PITCH_ALIGNMENT
        52 | 53 => 32768,
        54 => 2046,
        55..=57 => 32768,
        58 | 59 => 16384,
        60 => 16384,
        61 => 32768,
        62 => 2048,
        63 | 64 => 32768,
        65 => 2048,
        66 | 67 => 32768,
        68 => 2046,
        69 => 268435456,
        70 | 71 => 131072,
        72 => 2097120,
        73 | 74 => 32768,
        75 => m.major as i32,
        76 => m.minor as i32,
        77 => 32768,
        78 => 1,      // STREAM_PRIORITIES_SUPPORTED
        79 | 80 => 1, // L1 caching
        81 => m.shared_per_sm as i32,
        82 => m.regs_per_sm as i32,
        83 => 1, // MANAGED_MEMORY
        84 => 0, // MULTI_GPU_BOARD
        85 => 0,
        86 => 0,      // HOST_NATIVE_ATOMIC_SUPPORTED
        87 => 2,      // SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO
        88 => 0,      // PAGEABLE_MEMORY_ACCESS (only registered memory)
        89 => 1,      // CONCURRENT_MANAGED_ACCESS
        90 => 1,      // COMPUTE_PREEMPTION_SUPPORTED
        91 => 1,      // CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM
        92..=94 => 0, // stream mem ops v1
        95 => 1,      // COOPERATIVE_LAUNCH
        96 => 0,
        97 => m.shared_per_block_optin as i32,
        98 => 0,
        99 => 1, // HOST_REGISTER_SUPPORTED
        100 => 0,
        101 => 1, // DIRECT_MANAGED_MEM_ACCESS_FROM_HOST
        102 => 0, // VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
        103..=105 => 0,
        106 => m.max_blocks_per_sm as i32,
        107 => 0,
        108 => 0, // MAX_PERSISTING_L2_CACHE_SIZE
        109 => 0,
        110 => 0,
        111 => m.shared_reserved_per_block as i32,
        112 => 0,
        113 => 0,
        114 => 0,
        115 => 1, // MEMORY_POOLS_SUPPORTED
        116..=118 => 0,
        119 => 0,        // MEMPOOL_SUPPORTED_HANDLE_TYPES
        120 => clusters, // CLUSTER_LAUNCH
        121 => 0,
        122 | 123 => 0,
        124 | 125 => 0,
        126 => 1,        // MEM_SYNC_DOMAIN_COUNT
        127 => clusters, // TENSOR_MAP_ACCESS_SUPPORTED (sm_90+)
        128 => 0,
        129 => 0,        // UNIFIED_FUNCTION_POINTERS
        130 => 0,        // NUMA_CONFIG: none
        131 => -1,       // NUMA_ID
        132 => clusters, // MULTICAST_SUPPORTED (sm_90+: multicast objects of one device)
        133 => 0,
        134 => -1, // HOST_NUMA_ID
        135..=138 => 0,
        139 => 0x10de_0000u32 as i32 | 0xff, // GPU_PCI_DEVICE_ID: vendor NVIDIA, device 0xff
        140 => 0,
        141..=148 => 0,
        149 => 1, // LOCALITY_DOMAIN_COUNT
        150 => m.shared_per_block_optin as i32,
        151..=156 => 0,
        157 => m.sm_count as i32,
        158 | 159 => 0,
        160 => i32::MAX,
        161 => 0,
        _ => {
            return Err(Error::quiet(
                CUDA_ERROR_INVALID_VALUE,
                format!("unknown device attribute {attr}"),
            ));
        }
    };
    Ok(v)
}

/// The device's name: `ptxvm <arch> (<board>)`.
pub fn name(dev: &Dev) -> String {
    let m = dev.model();
    format!("ptxvm {} ({} emulated on the CPU)", m.arch, m.board)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGet(p: *mut CUdevice, ordinal: i32) -> CUresult {
    api("cuDeviceGet", || {
        drv()?.dev(ordinal)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, ordinal) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetCount(p: *mut i32) -> CUresult {
    api("cuDeviceGetCount", || {
        let n = drv()?.devices.len() as i32;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, n) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetName(buf: *mut c_char, len: i32, dev: CUdevice) -> CUresult {
    api("cuDeviceGetName", || {
        let d = drv()?;
        let dev = d.dev(dev)?;
        if buf.is_null() || len <= 0 {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let n = name(dev);
        let k = n.len().min(len as usize - 1);
        // SAFETY: the client's buffer of `len` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(n.as_ptr(), buf.cast(), k);
            *buf.add(k) = 0;
        }
        Ok(())
    })
}

fn uuid(p: *mut CUuuid, dev: CUdevice) -> R {
    let d = drv()?;
    let dev = d.dev(dev)?;
    // SAFETY: the client's out-pointer.
    unsafe { out(p, CUuuid { bytes: dev.uuid }) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetUuid(p: *mut CUuuid, dev: CUdevice) -> CUresult {
    api("cuDeviceGetUuid", || uuid(p, dev))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetUuid_v2(p: *mut CUuuid, dev: CUdevice) -> CUresult {
    api("cuDeviceGetUuid_v2", || uuid(p, dev))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetLuid(
    _luid: *mut c_char,
    _mask: *mut u32,
    dev: CUdevice,
) -> CUresult {
    api("cuDeviceGetLuid", || {
        drv()?.dev(dev)?;
        Err(Error::code(CUDA_ERROR_NOT_SUPPORTED))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceTotalMem_v2(p: *mut usize, dev: CUdevice) -> CUresult {
    api("cuDeviceTotalMem_v2", || {
        let d = drv()?;
        let dev = d.dev(dev)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, dev.vm.mem.limit() as usize) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetAttribute(p: *mut i32, attr: i32, dev: CUdevice) -> CUresult {
    api("cuDeviceGetAttribute", || {
        let d = drv()?;
        let v = attribute(d.dev(dev)?, attr)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, v) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceComputeCapability(
    major: *mut i32,
    minor: *mut i32,
    dev: CUdevice,
) -> CUresult {
    api("cuDeviceComputeCapability", || {
        let d = drv()?;
        let m = d.dev(dev)?.model();
        // SAFETY: the client's out-pointers.
        unsafe {
            out(major, m.major as i32)?;
            out(minor, m.minor as i32)
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetProperties(p: *mut CUdevprop, dev: CUdevice) -> CUresult {
    api("cuDeviceGetProperties", || {
        let d = drv()?;
        let dv = d.dev(dev)?;
        let a = |n| attribute(dv, n);
        let prop = CUdevprop {
            max_threads_per_block: a(1)?,
            max_threads_dim: [a(2)?, a(3)?, a(4)?],
            max_grid_size: [a(5)?, a(6)?, a(7)?],
            shared_mem_per_block: a(8)?,
            total_constant_memory: a(9)?,
            simd_width: a(10)?,
            mem_pitch: a(11)?,
            regs_per_block: a(12)?,
            clock_rate: a(13)?,
            texture_align: a(14)?,
        };
        // SAFETY: the client's out-pointer.
        unsafe { out(p, prop) }
    })
}

fn pci_id(dev: &Dev) -> String {
    format!("0000:{:02x}:00.0", dev.ordinal + 1)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetPCIBusId(
    buf: *mut c_char,
    len: i32,
    dev: CUdevice,
) -> CUresult {
    api("cuDeviceGetPCIBusId", || {
        let d = drv()?;
        let s = pci_id(d.dev(dev)?);
        if buf.is_null() || len <= 0 {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let k = s.len().min(len as usize - 1);
        // SAFETY: the client's buffer of `len` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(s.as_ptr(), buf.cast(), k);
            *buf.add(k) = 0;
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetByPCIBusId(p: *mut CUdevice, id: *const c_char) -> CUresult {
    api("cuDeviceGetByPCIBusId", || {
        let d = drv()?;
        // SAFETY: a C string from the client.
        let id = unsafe { cstr(id)? }.to_ascii_lowercase();
        let dev = d
            .devices
            .iter()
            .find(|dv| pci_id(dv) == id || pci_id(dv).trim_start_matches("0000:") == id)
            .ok_or(Error::code(CUDA_ERROR_INVALID_DEVICE))?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, dev.ordinal) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceCanAccessPeer(
    p: *mut i32,
    dev: CUdevice,
    peer: CUdevice,
) -> CUresult {
    api("cuDeviceCanAccessPeer", || {
        let d = drv()?;
        d.dev(dev)?;
        d.dev(peer)?;
        // Every device's memory is host memory: peers can always access each other.
        // SAFETY: the client's out-pointer.
        unsafe { out(p, (dev != peer) as i32) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetP2PAttribute(
    p: *mut i32,
    attr: i32,
    src: CUdevice,
    dst: CUdevice,
) -> CUresult {
    api("cuDeviceGetP2PAttribute", || {
        let d = drv()?;
        d.dev(src)?;
        d.dev(dst)?;
        let v = match attr {
            1 => 0,     // PERFORMANCE_RANK
            2 => 1,     // ACCESS_SUPPORTED
            3 => 1,     // NATIVE_ATOMIC_SUPPORTED
            4 | 5 => 1, // CUDA array access
            _ => return Err(Error::code(CUDA_ERROR_INVALID_VALUE)),
        };
        // SAFETY: the client's out-pointer.
        unsafe { out(p, if src == dst { 0 } else { v }) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetTexture1DLinearMaxWidth(
    p: *mut usize,
    _fmt: u32,
    _ch: u32,
    dev: CUdevice,
) -> CUresult {
    api("cuDeviceGetTexture1DLinearMaxWidth", || {
        drv()?.dev(dev)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, 1 << 27) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetExecAffinitySupport(
    p: *mut i32,
    _t: u32,
    dev: CUdevice,
) -> CUresult {
    api("cuDeviceGetExecAffinitySupport", || {
        drv()?.dev(dev)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, 0) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFlushGPUDirectRDMAWrites(_target: u32, _scope: u32) -> CUresult {
    api("cuFlushGPUDirectRDMAWrites", || drv().map(|_| ()))
}
