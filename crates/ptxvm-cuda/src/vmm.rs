//! Virtual memory management: reserved address ranges, physical allocations and mappings
//! (`cuMemAddressReserve`, `cuMemCreate`, `cuMemMap`, ...). A physical allocation is a
//! shared-memory object of the host (`memfd`), so mapping one twice aliases as on a GPU, and
//! exporting it as a POSIX file descriptor shares it with another process for real.

use crate::abi::*;
use crate::driver::{Error, R, api, current, drv, out};
use crate::types::*;
use std::collections::HashMap;
use std::ffi::c_void;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::{Arc, Mutex};

/// Allocation granularity of device memory (what real GPUs report: 2 MiB).
pub const GRANULARITY: u64 = 2 << 20;
const HANDLE_TYPE_POSIX_FD: u32 = 1;

/// A physical allocation.
pub struct PhysMem {
    pub fd: OwnedFd,
    pub size: u64,
    pub dev: i32,
    pub handle_types: u32,
}

/// A `cuMemMap` mapping: (size, physical handle, offset in it).
type Mapping = (u64, u64, u64);

/// Mappings made by `cuMemMap`: address → mapping.
static MAPPINGS: Mutex<Option<HashMap<u64, Mapping>>> = Mutex::new(None);

/// The `cuMemMap` mapping of physical memory holding `addr`: (base, size, handle, offset).
pub(crate) fn mapping_of(addr: u64) -> Option<(u64, u64, u64, u64)> {
    mappings(|m| {
        m.iter()
            .find(|(b, (s, _, _))| addr >= **b && addr - **b < *s)
            .map(|(&b, &(s, h, o))| (b, s, h, o))
    })
}

fn mappings<T>(f: impl FnOnce(&mut HashMap<u64, Mapping>) -> T) -> T {
    let mut g = MAPPINGS.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(HashMap::new))
}

fn check_prop(prop: *const CUmemAllocationProp) -> R<CUmemAllocationProp> {
    if prop.is_null() {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    // SAFETY: the client's properties.
    let p = unsafe { *prop };
    if p.kind != 1 || p.location.kind != 1 {
        return Err(Error::loud(
            CUDA_ERROR_NOT_SUPPORTED,
            "only pinned device allocations (CU_MEM_ALLOCATION_TYPE_PINNED on a device location) are supported",
        ));
    }
    drv()?.dev(p.location.id)?;
    Ok(p)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemGetAllocationGranularity(
    g: *mut usize,
    prop: *const CUmemAllocationProp,
    _option: u32,
) -> CUresult {
    api("cuMemGetAllocationGranularity", || {
        check_prop(prop)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(g, GRANULARITY as usize) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemCreate(
    h: *mut u64,
    size: usize,
    prop: *const CUmemAllocationProp,
    _flags: u64,
) -> CUresult {
    api("cuMemCreate", || {
        let d = drv()?;
        let p = check_prop(prop)?;
        let size = size as u64;
        if h.is_null() || size == 0 || !size.is_multiple_of(GRANULARITY) {
            return Err(Error::quiet(
                CUDA_ERROR_INVALID_VALUE,
                format!("size {size} is not a non-zero multiple of the granularity {GRANULARITY}"),
            ));
        }
        let dev = d.dev(p.location.id)?;
        if dev.vm.mem.used().saturating_add(size) > dev.vm.mem.limit() {
            return Err(Error::code(CUDA_ERROR_OUT_OF_MEMORY));
        }
        // SAFETY: memfd_create with a static name; the fd is owned below.
        let fd = unsafe { libc::memfd_create(c"ptxvm-device-memory".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(Error::quiet(
                CUDA_ERROR_OUT_OF_MEMORY,
                format!("memfd_create: {}", std::io::Error::last_os_error()),
            ));
        }
        // SAFETY: a fresh fd we own.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: resizing our own memfd.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), size as libc::off_t) } != 0 {
            return Err(Error::quiet(
                CUDA_ERROR_OUT_OF_MEMORY,
                format!("ftruncate: {}", std::io::Error::last_os_error()),
            ));
        }
        let handle = d.phys.insert(Arc::new(PhysMem {
            fd,
            size,
            dev: p.location.id,
            handle_types: p.requested_handle_types,
        }));
        // SAFETY: the client's out-pointer.
        unsafe { out(h, handle as u64) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemRelease(h: u64) -> CUresult {
    api("cuMemRelease", || {
        // Mappings keep the memory alive (the kernel holds the object while it is mapped).
        if crate::handle::kind_of(h as usize) == Some(crate::handle::Kind::Multicast) {
            return drv()?
                .multicast
                .remove(h as usize)
                .map(|_| ())
                .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        drv()?
            .phys
            .remove(h as usize)
            .map(|_| ())
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAddressReserve(
    p: *mut CUdeviceptr,
    size: usize,
    align: usize,
    _addr: CUdeviceptr,
    _flags: u64,
) -> CUresult {
    api("cuMemAddressReserve", || {
        let d = drv()?;
        if p.is_null() || size == 0 || (align != 0 && !align.is_power_of_two()) {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let dev = current().map_or(0, |(_, c)| c.dev);
        let a = d
            .dev(dev)?
            .vm
            .mem
            .reserve(size as u64, (align as u64).max(GRANULARITY))
            .map_err(|e| Error::quiet(CUDA_ERROR_OUT_OF_MEMORY, e.to_string()))?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, a) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAddressFree(p: CUdeviceptr, size: usize) -> CUresult {
    api("cuMemAddressFree", || {
        let d = drv()?;
        for dev in &d.devices {
            if dev.vm.mem.unreserve(p, size as u64).is_ok() {
                return Ok(());
            }
        }
        Err(Error::code(CUDA_ERROR_INVALID_VALUE))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemMap(
    p: CUdeviceptr,
    size: usize,
    offset: usize,
    h: u64,
    _flags: u64,
) -> CUresult {
    api("cuMemMap", || {
        let d = drv()?;
        if crate::handle::kind_of(h as usize) == Some(crate::handle::Kind::Multicast) {
            return crate::multicast::map(d, p, size as u64, offset as u64, h);
        }
        let phys = d
            .phys
            .get(h as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
        let (size, offset) = (size as u64, offset as u64);
        if offset.checked_add(size).is_none_or(|e| e > phys.size) {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let mut last = String::new();
        for dev in &d.devices {
            match dev
                .vm
                .mem
                .map_shared(p, size, phys.fd.as_raw_fd(), offset, "cuMemMap mapping")
            {
                Ok(()) => {
                    mappings(|m| m.insert(p, (size, h, offset)));
                    return Ok(());
                }
                Err(e) => last = e,
            }
        }
        Err(Error::quiet(CUDA_ERROR_INVALID_VALUE, last))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemUnmap(p: CUdeviceptr, size: usize) -> CUresult {
    api("cuMemUnmap", || {
        let d = drv()?;
        if let Ok((_, ctx)) = current() {
            let _ = ctx.synchronize();
        }
        for dev in &d.devices {
            if dev.vm.mem.unmap_shared(p, size as u64).is_ok() {
                mappings(|m| m.remove(&p));
                return Ok(());
            }
        }
        Err(Error::code(CUDA_ERROR_INVALID_VALUE))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemSetAccess(
    p: CUdeviceptr,
    size: usize,
    desc: *const CUmemAccessDesc,
    count: usize,
) -> CUresult {
    api("cuMemSetAccess", || {
        let d = drv()?;
        if count > 0 && desc.is_null() {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        // Every device (and the host) can always access mapped memory: check the range only.
        let (_, info) = d
            .find_alloc(p)
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        if p - info.base + size as u64 > info.size {
            // A range may span several adjacent mappings; check its end too.
            d.find_alloc(p + size as u64 - 1)
                .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemGetAccess(
    flags: *mut u64,
    loc: *const CUmemLocation,
    p: CUdeviceptr,
) -> CUresult {
    api("cuMemGetAccess", || {
        let d = drv()?;
        if loc.is_null() {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        d.find_alloc(p)
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        // SAFETY: the client's out-pointer (CU_MEM_ACCESS_FLAGS_PROT_READWRITE).
        unsafe { out(flags, 3) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemGetAllocationPropertiesFromHandle(
    prop: *mut CUmemAllocationProp,
    h: u64,
) -> CUresult {
    api("cuMemGetAllocationPropertiesFromHandle", || {
        let phys = drv()?
            .phys
            .get(h as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        let p = CUmemAllocationProp {
            kind: 1,
            requested_handle_types: phys.handle_types,
            location: CUmemLocation {
                kind: 1,
                id: phys.dev,
            },
            win32_handle_meta_data: std::ptr::null_mut(),
            compression_type: 0,
            gpu_direct_rdma_capable: 0,
            usage: 0,
            reserved: [0; 4],
        };
        // SAFETY: the client's out-pointer.
        unsafe { out(prop, p) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemRetainAllocationHandle(h: *mut u64, addr: *mut c_void) -> CUresult {
    api("cuMemRetainAllocationHandle", || {
        let d = drv()?;
        let a = addr as u64;
        let found = mappings(|m| {
            m.iter()
                .find(|(b, (s, _, _))| a >= **b && a < **b + *s)
                .map(|(_, &(_, ph, _))| ph)
        });
        let ph = found.ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        d.phys
            .get(ph as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        // SAFETY: the client's out-pointer.
        unsafe { out(h, ph) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemExportToShareableHandle(
    sh: *mut c_void,
    h: u64,
    kind: u32,
    _flags: u64,
) -> CUresult {
    api("cuMemExportToShareableHandle", || {
        let phys = drv()?
            .phys
            .get(h as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        if kind != HANDLE_TYPE_POSIX_FD || phys.handle_types & HANDLE_TYPE_POSIX_FD == 0 {
            return Err(Error::quiet(
                CUDA_ERROR_NOT_SUPPORTED,
                "only POSIX file descriptors requested at cuMemCreate can be exported",
            ));
        }
        // SAFETY: duplicating our own fd; the copy belongs to the client.
        let fd = unsafe { libc::fcntl(phys.fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0) };
        if fd < 0 {
            return Err(Error::code(CUDA_ERROR_OUT_OF_MEMORY));
        }
        // SAFETY: the client's out-pointer (an int for POSIX file descriptors).
        unsafe { out(sh.cast::<i32>(), fd) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemImportFromShareableHandle(
    h: *mut u64,
    os: *mut c_void,
    kind: u32,
) -> CUresult {
    api("cuMemImportFromShareableHandle", || {
        let d = drv()?;
        if kind != HANDLE_TYPE_POSIX_FD {
            return Err(Error::quiet(
                CUDA_ERROR_NOT_SUPPORTED,
                "only POSIX file descriptors can be imported",
            ));
        }
        let raw = os as usize as i32;
        // SAFETY: fstat and dup on the client's descriptor.
        let (size, fd) = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(raw, &mut st) != 0 {
                return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
            }
            let fd = libc::fcntl(raw, libc::F_DUPFD_CLOEXEC, 0);
            if fd < 0 {
                return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
            }
            (st.st_size as u64, OwnedFd::from_raw_fd(fd))
        };
        let dev = current().map_or(0, |(_, c)| c.dev);
        let handle = d.phys.insert(Arc::new(PhysMem {
            fd,
            size,
            dev,
            handle_types: HANDLE_TYPE_POSIX_FD,
        }));
        // SAFETY: the client's out-pointer.
        unsafe { out(h, handle as u64) }
    })
}
