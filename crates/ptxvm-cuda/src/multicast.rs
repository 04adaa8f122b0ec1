//! Multicast objects (`cuMulticast*`) of one device. A multicast object binds physical
//! memory (`cuMemCreate`) of every device of its team behind one address range; ptxvm
//! emulates one GPU per address space, so a team has one device, and a `cuMemMap` of the
//! object maps the bound physical memory itself (the same bytes, as a `memfd` mapping) and
//! marks the range as a multicast mapping of the VM (`ptxvm_vm::Device::map_multicast`),
//! which `multimem.*` requires (`docs/multicast.md`).

use crate::abi::*;
use crate::driver::{Driver, Error, R, api, drv, out};
use crate::types::*;
use crate::vmm::{GRANULARITY, PhysMem};
use std::os::fd::AsRawFd;
use std::sync::{Arc, Mutex};

/// `CUmulticastObjectProp`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUmulticastObjectProp {
    pub num_devices: u32,
    pub size: usize,
    pub handle_types: u64,
    pub flags: u64,
}

/// Memory bound to a range of a multicast object.
struct Binding {
    mc_offset: u64,
    size: u64,
    phys: Arc<PhysMem>,
    mem_offset: u64,
}

/// A multicast object.
pub struct Multicast {
    size: u64,
    num_devices: u32,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    devices: Vec<i32>,
    bindings: Vec<Binding>,
}

impl Multicast {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn invalid(msg: impl Into<String>) -> Error {
    Error::quiet(CUDA_ERROR_INVALID_VALUE, msg.into())
}

/// Checks the properties of `cuMulticastCreate`/`cuMulticastGetGranularity`.
fn check_prop(d: &Driver, prop: *const CUmulticastObjectProp) -> R<CUmulticastObjectProp> {
    if prop.is_null() {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    // SAFETY: the client's properties.
    let p = unsafe { *prop };
    if p.num_devices == 0 || p.flags != 0 {
        return Err(invalid("numDevices must be at least 1 and flags 0"));
    }
    if p.num_devices > 1 {
        return Err(Error::loud(
            CUDA_ERROR_NOT_SUPPORTED,
            "a multicast object of more than one device: ptxvm emulates one GPU per address space (numDevices must be 1)",
        ));
    }
    if !d.dev(0)?.model().clusters {
        return Err(Error::loud(
            CUDA_ERROR_NOT_SUPPORTED,
            "multicast objects need an sm_90 or newer device (PTXVM_ARCH)",
        ));
    }
    Ok(p)
}

fn object(d: &Driver, h: u64) -> R<Arc<Multicast>> {
    d.multicast
        .get(h as usize)
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMulticastGetGranularity(
    g: *mut usize,
    prop: *const CUmulticastObjectProp,
    option: u32,
) -> CUresult {
    api("cuMulticastGetGranularity", || {
        check_prop(drv()?, prop)?;
        if option > 1 {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        // SAFETY: the client's out-pointer.
        unsafe { out(g, GRANULARITY as usize) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMulticastCreate(
    h: *mut u64,
    prop: *const CUmulticastObjectProp,
) -> CUresult {
    api("cuMulticastCreate", || {
        let d = drv()?;
        let p = check_prop(d, prop)?;
        let size = p.size as u64;
        if h.is_null() || size == 0 || !size.is_multiple_of(GRANULARITY) {
            return Err(invalid(format!(
                "size {size} is not a non-zero multiple of the multicast granularity {GRANULARITY}"
            )));
        }
        let handle = d.multicast.insert(Arc::new(Multicast {
            size,
            num_devices: p.num_devices,
            state: Mutex::new(State::default()),
        }));
        // SAFETY: the client's out-pointer.
        unsafe { out(h, handle as u64) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMulticastAddDevice(h: u64, dev: CUdevice) -> CUresult {
    api("cuMulticastAddDevice", || {
        let d = drv()?;
        let mc = object(d, h)?;
        if !d.dev(dev)?.model().clusters {
            return Err(Error::code(CUDA_ERROR_NOT_SUPPORTED));
        }
        let mut st = mc.state();
        if st.devices.contains(&dev) || st.devices.len() >= mc.num_devices as usize {
            return Err(invalid(format!(
                "device {dev} is already in the team, or the team of {} is complete",
                mc.num_devices
            )));
        }
        st.devices.push(dev);
        Ok(())
    })
}

/// Binds `size` bytes of `phys` from `mem_offset` at `mc_offset` of the object.
fn bind(
    mc: &Multicast,
    dev: Option<CUdevice>,
    mc_offset: u64,
    phys: Arc<PhysMem>,
    mem_offset: u64,
    size: u64,
) -> R<()> {
    let mut st = mc.state();
    if st.devices.len() != mc.num_devices as usize {
        return Err(invalid(
            "every device of the team must be added before memory is bound",
        ));
    }
    if dev.is_some_and(|x| !st.devices.contains(&x)) || !st.devices.contains(&phys.dev) {
        return Err(Error::code(CUDA_ERROR_INVALID_DEVICE));
    }
    let aligned = [mc_offset, mem_offset, size]
        .iter()
        .all(|v| v.is_multiple_of(GRANULARITY));
    let fits = mc_offset.checked_add(size).is_some_and(|e| e <= mc.size)
        && mem_offset.checked_add(size).is_some_and(|e| e <= phys.size);
    if size == 0 || !aligned || !fits {
        return Err(invalid(format!(
            "binding {size} bytes at offset {mc_offset} of a {}-byte multicast object from offset {mem_offset} of {} bytes: not multiples of the granularity {GRANULARITY}, or out of range",
            mc.size, phys.size
        )));
    }
    if st
        .bindings
        .iter()
        .any(|b| mc_offset < b.mc_offset + b.size && b.mc_offset < mc_offset + size)
    {
        return Err(invalid(format!(
            "offset {mc_offset} of the multicast object is already bound"
        )));
    }
    st.bindings.push(Binding {
        mc_offset,
        size,
        phys,
        mem_offset,
    });
    Ok(())
}

fn bind_mem(
    h: u64,
    dev: Option<CUdevice>,
    mc_offset: usize,
    mem: u64,
    mem_offset: usize,
    size: usize,
    flags: u64,
) -> R<()> {
    let d = drv()?;
    let mc = object(d, h)?;
    if flags != 0 {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    let phys = d
        .phys
        .get(mem as usize)
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
    bind(
        &mc,
        dev,
        mc_offset as u64,
        phys,
        mem_offset as u64,
        size as u64,
    )
}

fn bind_addr(
    h: u64,
    dev: Option<CUdevice>,
    mc_offset: usize,
    ptr: CUdeviceptr,
    size: usize,
    flags: u64,
) -> R<()> {
    let d = drv()?;
    let mc = object(d, h)?;
    if flags != 0 {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    // The memory must be a `cuMemMap` mapping of physical memory (cuMemCreate).
    let (base, msize, ph, off) = crate::vmm::mapping_of(ptr).ok_or_else(|| {
        invalid(format!(
            "{ptr:#x} is not in a cuMemMap mapping of memory from cuMemCreate"
        ))
    })?;
    let into = ptr - base;
    if (size as u64) > msize - into {
        return Err(invalid(format!(
            "{size} bytes at {ptr:#x} run past its mapping"
        )));
    }
    let phys = d
        .phys
        .get(ph as usize)
        .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
    bind(&mc, dev, mc_offset as u64, phys, off + into, size as u64)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMulticastBindMem(
    h: u64,
    mc_offset: usize,
    mem: u64,
    mem_offset: usize,
    size: usize,
    flags: u64,
) -> CUresult {
    api("cuMulticastBindMem", || {
        bind_mem(h, None, mc_offset, mem, mem_offset, size, flags)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMulticastBindMem_v2(
    h: u64,
    dev: CUdevice,
    mc_offset: usize,
    mem: u64,
    mem_offset: usize,
    size: usize,
    flags: u64,
) -> CUresult {
    api("cuMulticastBindMem_v2", || {
        bind_mem(h, Some(dev), mc_offset, mem, mem_offset, size, flags)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMulticastBindAddr(
    h: u64,
    mc_offset: usize,
    ptr: CUdeviceptr,
    size: usize,
    flags: u64,
) -> CUresult {
    api("cuMulticastBindAddr", || {
        bind_addr(h, None, mc_offset, ptr, size, flags)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMulticastBindAddr_v2(
    h: u64,
    dev: CUdevice,
    mc_offset: usize,
    ptr: CUdeviceptr,
    size: usize,
    flags: u64,
) -> CUresult {
    api("cuMulticastBindAddr_v2", || {
        bind_addr(h, Some(dev), mc_offset, ptr, size, flags)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMulticastUnbind(
    h: u64,
    dev: CUdevice,
    mc_offset: usize,
    size: usize,
) -> CUresult {
    api("cuMulticastUnbind", || {
        let d = drv()?;
        let mc = object(d, h)?;
        d.dev(dev)?;
        let mut st = mc.state();
        let (o, s) = (mc_offset as u64, size as u64);
        let i = st
            .bindings
            .iter()
            .position(|b| b.mc_offset == o && b.size == s && b.phys.dev == dev)
            .ok_or_else(|| invalid(format!("no binding of {size} bytes at offset {mc_offset}")))?;
        // Mappings made while it was bound keep the memory (as the kernel keeps it mapped).
        st.bindings.remove(i);
        Ok(())
    })
}

/// `cuMemMap` of a multicast object: `size` bytes from `offset` of the object at `p`, which
/// must lie in one binding; with one device the range maps the bound physical memory and
/// becomes a multicast mapping of the VM.
pub(crate) fn map(d: &Driver, p: CUdeviceptr, size: u64, offset: u64, h: u64) -> R<()> {
    let mc = object(d, h)?;
    let (fd, at) = {
        let st = mc.state();
        let b = st
            .bindings
            .iter()
            .find(|b| {
                offset >= b.mc_offset
                    && offset
                        .checked_add(size)
                        .is_some_and(|e| e <= b.mc_offset + b.size)
            })
            .ok_or_else(|| {
                Error::loud(
                    CUDA_ERROR_NOT_SUPPORTED,
                    format!(
                        "cuMemMap of {size} bytes at offset {offset} of a multicast object: ptxvm maps a range inside one binding of bound memory (bind with cuMulticastBindMem/BindAddr first)"
                    ),
                )
            })?;
        (Arc::clone(&b.phys), b.mem_offset + (offset - b.mc_offset))
    };
    let mut last = String::new();
    for dev in &d.devices {
        match dev.vm.mem.map_shared(
            p,
            size,
            fd.fd.as_raw_fd(),
            at,
            "cuMemMap of a multicast object",
        ) {
            Ok(()) => {
                if let Err(e) = dev.vm.map_multicast(p, size) {
                    let _ = dev.vm.mem.unmap_shared(p, size);
                    return Err(invalid(e.to_string()));
                }
                return Ok(());
            }
            Err(e) => last = e,
        }
    }
    Err(invalid(last))
}
