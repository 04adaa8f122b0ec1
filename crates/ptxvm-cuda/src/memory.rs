//! Memory: device, page-locked host and managed allocations, registered host memory, every
//! copy and memset (synchronous, asynchronous, 2D and 3D), pointer attributes, and the
//! stream-ordered allocator with its pools.
//!
//! A device address is the host address of its bytes (see `ptxvm_vm::memory`), so the device
//! side of every copy is bounds-checked against a live allocation and then copied with a
//! `memmove`; host pointers are the program's own memory, used as given (as the real driver
//! does). An asynchronous copy from pageable host memory snapshots the source at the call
//! (the caller may reuse it at once, as with CUDA's staging buffers); one into pageable host
//! memory completes before the call returns.

use crate::abi::*;
use crate::driver::{Dev, Driver, Error, Owner, R, api, current, drv, out};
use crate::stream::{DefaultStream, Target, stream_pair, target};
use crate::types::*;
use ptxvm_vm::memory::{AllocInfo, AllocKind};
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

fn alloc(kind: AllocKind, size: usize, flags: u32, what: &str) -> R<u64> {
    let d = drv()?;
    let (ch, ctx) = current()?;
    ctx.check()?;
    if size == 0 {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    let dev = d.dev(ctx.dev)?;
    let a = dev
        .vm
        .mem
        .alloc(size as u64, kind, what)
        .map_err(|e| Error::quiet(CUDA_ERROR_OUT_OF_MEMORY, e.to_string()))?;
    dev.owners.lock().unwrap_or_else(|e| e.into_inner()).insert(
        a,
        Owner {
            ctx: ch,
            flags,
            pool: 0,
        },
    );
    Ok(a)
}

/// Frees an allocation of one of `kinds` by its base address.
fn free(addr: u64, kinds: &[AllocKind]) -> R {
    let d = drv()?;
    let (dev, info) = d
        .find_alloc(addr)
        .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
    if info.base != addr || !kinds.contains(&info.kind) {
        return Err(Error::quiet(
            CUDA_ERROR_INVALID_VALUE,
            format!("{addr:#x} is not the start of a {kinds:?} allocation"),
        ));
    }
    dev.vm
        .mem
        .free(addr)
        .map_err(|e| Error::quiet(CUDA_ERROR_INVALID_VALUE, e))?;
    dev.owners
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&addr);
    Ok(())
}

/// Frees every allocation a context owns (context teardown).
pub fn free_context(dev: &Dev, ctx: usize) {
    let mine: Vec<u64> = {
        let mut o = dev.owners.lock().unwrap_or_else(|e| e.into_inner());
        let v: Vec<u64> = o
            .iter()
            .filter(|(_, w)| w.ctx == ctx)
            .map(|(&a, _)| a)
            .collect();
        for a in &v {
            o.remove(a);
        }
        v
    };
    for a in mine {
        let _ = dev.vm.mem.free(a);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAlloc_v2(p: *mut CUdeviceptr, size: usize) -> CUresult {
    api("cuMemAlloc_v2", || {
        if p.is_null() {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let a = alloc(AllocKind::Device, size, 0, "cuMemAlloc allocation")?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, a) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAllocPitch_v2(
    p: *mut CUdeviceptr,
    pitch: *mut usize,
    width: usize,
    height: usize,
    elem: u32,
) -> CUresult {
    api("cuMemAllocPitch_v2", || {
        if p.is_null() || pitch.is_null() || !matches!(elem, 4 | 8 | 16) || width == 0 {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        // Rows aligned to the texture pitch alignment of real devices (512 bytes).
        let pt = width
            .checked_next_multiple_of(512)
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        let size = pt
            .checked_mul(height)
            .ok_or(Error::code(CUDA_ERROR_OUT_OF_MEMORY))?;
        let a = alloc(AllocKind::Device, size, 0, "cuMemAllocPitch allocation")?;
        // SAFETY: the client's out-pointers.
        unsafe {
            out(pitch, pt)?;
            out(p, a)
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemFree_v2(p: CUdeviceptr) -> CUresult {
    api("cuMemFree_v2", || {
        if p == 0 {
            return Ok(());
        }
        // Device memory only; make sure pending work that may use it has finished.
        let (_, ctx) = current()?;
        let _ = ctx.synchronize();
        free(p, &[AllocKind::Device, AllocKind::Managed])
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAllocManaged(
    p: *mut CUdeviceptr,
    size: usize,
    flags: u32,
) -> CUresult {
    api("cuMemAllocManaged", || {
        if p.is_null() || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST) {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let a = alloc(AllocKind::Managed, size, 0, "managed allocation")?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, a) }
    })
}

fn host_alloc(pp: *mut *mut c_void, size: usize, flags: u32) -> R {
    if pp.is_null() {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    let a = alloc(AllocKind::Host, size, flags, "page-locked host allocation")?;
    // SAFETY: the client's out-pointer.
    unsafe { out(pp, a as *mut c_void) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAllocHost_v2(pp: *mut *mut c_void, size: usize) -> CUresult {
    api("cuMemAllocHost_v2", || host_alloc(pp, size, 0))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostAlloc(pp: *mut *mut c_void, size: usize, flags: u32) -> CUresult {
    api("cuMemHostAlloc", || host_alloc(pp, size, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    api("cuMemFreeHost", || {
        let (_, ctx) = current()?;
        let _ = ctx.synchronize();
        free(p as u64, &[AllocKind::Host])
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostGetFlags(flags: *mut u32, p: *mut c_void) -> CUresult {
    api("cuMemHostGetFlags", || {
        let d = drv()?;
        let (dev, info) = d
            .find_alloc(p as u64)
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        if !matches!(info.kind, AllocKind::Host | AllocKind::Registered) {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let f = owner(dev, info.base).map_or(0, |o| o.flags);
        // SAFETY: the client's out-pointer.
        unsafe { out(flags, f) }
    })
}

fn host_get_device_pointer(p: *mut CUdeviceptr, host: *mut c_void, flags: u32) -> R {
    let d = drv()?;
    if flags != 0 {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    let (_, info) = d
        .find_alloc(host as u64)
        .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
    if !matches!(info.kind, AllocKind::Host | AllocKind::Registered) {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    // Mapped host memory is accessible to kernels at its host address.
    // SAFETY: the client's out-pointer.
    unsafe { out(p, host as u64) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostGetDevicePointer_v2(
    p: *mut CUdeviceptr,
    host: *mut c_void,
    flags: u32,
) -> CUresult {
    api("cuMemHostGetDevicePointer_v2", || {
        host_get_device_pointer(p, host, flags)
    })
}

fn host_register(p: *mut c_void, size: usize, flags: u32) -> R {
    let d = drv()?;
    let (ch, ctx) = current()?;
    if p.is_null() || size == 0 {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    let dev = d.dev(ctx.dev)?;
    if d.find_alloc(p as u64).is_some() {
        return Err(Error::code(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED));
    }
    dev.vm
        .mem
        .register(p as u64, size as u64, "registered host memory")
        .map_err(|e| Error::quiet(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, e))?;
    dev.owners.lock().unwrap_or_else(|e| e.into_inner()).insert(
        p as u64,
        Owner {
            ctx: ch,
            flags,
            pool: 0,
        },
    );
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostRegister_v2(p: *mut c_void, size: usize, flags: u32) -> CUresult {
    api("cuMemHostRegister_v2", || host_register(p, size, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostRegister(p: *mut c_void, size: usize, flags: u32) -> CUresult {
    api("cuMemHostRegister", || host_register(p, size, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostUnregister(p: *mut c_void) -> CUresult {
    api("cuMemHostUnregister", || {
        let d = drv()?;
        match d.find_alloc(p as u64) {
            Some((_, info)) if info.kind == AllocKind::Registered && info.base == p as u64 => {
                let (_, ctx) = current()?;
                let _ = ctx.synchronize();
                free(p as u64, &[AllocKind::Registered])
            }
            _ => Err(Error::code(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)),
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    api("cuMemGetInfo_v2", || {
        let d = drv()?;
        let (_, ctx) = current()?;
        let m = &d.dev(ctx.dev)?.vm.mem;
        // SAFETY: the client's out-pointers.
        unsafe {
            out(free, m.limit().saturating_sub(m.used()) as usize)?;
            out(total, m.limit() as usize)
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemGetAddressRange_v2(
    base: *mut CUdeviceptr,
    size: *mut usize,
    p: CUdeviceptr,
) -> CUresult {
    api("cuMemGetAddressRange_v2", || {
        let d = drv()?;
        let (_, info) = d.find_alloc(p).ok_or(Error::code(CUDA_ERROR_NOT_FOUND))?;
        // SAFETY: the client's out-pointers (either may be NULL).
        unsafe {
            if !base.is_null() {
                out(base, info.base)?;
            }
            if !size.is_null() {
                out(size, info.size as usize)?;
            }
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------
// Copies.

/// One side of a copy.
#[derive(Clone, Copy, Debug)]
enum Side {
    /// Memory the driver knows (device, page-locked, managed, registered, module variable).
    Known(u64),
    /// The program's own host memory.
    Host(u64),
}

impl Side {
    fn of(addr: u64) -> Side {
        match drv().ok().and_then(|d| d.find_alloc(addr)) {
            Some(_) => Side::Known(addr),
            None => Side::Host(addr),
        }
    }
    fn addr(self) -> u64 {
        match self {
            Side::Known(a) | Side::Host(a) => a,
        }
    }
    /// Whether asynchronous work may use it after the call returns (pinned or device).
    fn stable(self) -> bool {
        matches!(self, Side::Known(_))
    }
}

/// Checks that `[addr, addr+len)` lies in one live allocation.
fn check_known(d: &Driver, addr: u64, len: u64) -> R<AllocInfo> {
    let (_, info) = d.find_alloc(addr).ok_or_else(|| {
        Error::quiet(
            CUDA_ERROR_INVALID_VALUE,
            format!("{addr:#x} is not in any allocation"),
        )
    })?;
    if addr - info.base + len > info.size {
        return Err(Error::quiet(
            CUDA_ERROR_INVALID_VALUE,
            format!(
                "{len} bytes at {addr:#x} overrun the allocation {:#x}..{:#x}",
                info.base,
                info.base + info.size
            ),
        ));
    }
    Ok(info)
}

/// A planned copy: validated, executed later (or now).
#[derive(Clone, Copy)]
struct Copy1 {
    dst: u64,
    src: u64,
    len: usize,
}

impl Copy1 {
    fn run(self) {
        // SAFETY: validated when planned: device sides lie in live allocations, host sides
        // are the program's memory; overlap is allowed (memmove).
        unsafe { std::ptr::copy(self.src as *const u8, self.dst as *mut u8, self.len) };
    }
}

fn plan(dst: Side, src: Side, len: usize) -> R<Copy1> {
    let d = drv()?;
    if len == 0 {
        return Ok(Copy1 {
            dst: 0,
            src: 0,
            len: 0,
        });
    }
    for s in [dst, src] {
        match s {
            Side::Known(a) => {
                check_known(d, a, len as u64)?;
            }
            Side::Host(0) => return Err(Error::code(CUDA_ERROR_INVALID_VALUE)),
            Side::Host(_) => {}
        }
    }
    Ok(Copy1 {
        dst: dst.addr(),
        src: src.addr(),
        len,
    })
}

/// Runs copies in stream order: synchronously, or queued (snapshotting pageable sources;
/// waiting when a destination is pageable).
fn submit_copies(
    t: &Target,
    copies: Vec<Copy1>,
    sync: bool,
    pageable_src: bool,
    pageable_dst: bool,
) -> R {
    if sync || pageable_dst {
        return t.run_sync(move || {
            for c in copies {
                if c.len > 0 {
                    c.run();
                }
            }
        });
    }
    t.ctx.check()?;
    if pageable_src {
        // Stage the source now: the caller may overwrite it as soon as we return.
        let mut staged: Vec<(u64, Vec<u8>)> = Vec::with_capacity(copies.len());
        for c in copies.iter().filter(|c| c.len > 0) {
            // SAFETY: the program's host memory of `len` bytes (validated by plan).
            let bytes = unsafe { std::slice::from_raw_parts(c.src as *const u8, c.len) };
            staged.push((c.dst, bytes.to_vec()));
        }
        t.enqueue(move || {
            for (dst, b) in staged {
                // SAFETY: the destination was validated by plan.
                unsafe { std::ptr::copy(b.as_ptr(), dst as *mut u8, b.len()) };
            }
        });
    } else {
        t.enqueue(move || {
            for c in copies {
                if c.len > 0 {
                    c.run();
                }
            }
        });
    }
    Ok(())
}

fn copy_1d(m: DefaultStream, dst: Side, src: Side, len: usize, stream: Handle, sync: bool) -> R {
    let t = target(stream, m)?;
    let c = plan(dst, src, len)?;
    submit_copies(&t, vec![c], sync, !src.stable(), !dst.stable())
}

macro_rules! memcpy_entry {
    ($legacy:ident, $ptds:ident, ($($arg:ident : $ty:ty),*), $sync:expr, |$d:ident, $s:ident, $n:ident, $st:ident| ($dst:expr, $src:expr, $len:expr, $stream:expr)) => {
        stream_pair!($legacy, $ptds, ($($arg: $ty),*), |m, $($arg),*| {
            let ($d, $s, $n, $st) = ($dst, $src, $len, $stream);
            copy_1d(m, $d, $s, $n, $st, $sync)
        });
    };
}

memcpy_entry!(cuMemcpyHtoD_v2, cuMemcpyHtoD_v2_ptds, (dst: CUdeviceptr, src: *const c_void, n: usize), true,
    |a, b, c, s| (Side::Known(dst), Side::of(src as u64), n, std::ptr::null_mut()));
memcpy_entry!(cuMemcpyDtoH_v2, cuMemcpyDtoH_v2_ptds, (dst: *mut c_void, src: CUdeviceptr, n: usize), true,
    |a, b, c, s| (Side::of(dst as u64), Side::Known(src), n, std::ptr::null_mut()));
memcpy_entry!(cuMemcpyDtoD_v2, cuMemcpyDtoD_v2_ptds, (dst: CUdeviceptr, src: CUdeviceptr, n: usize), true,
    |a, b, c, s| (Side::Known(dst), Side::Known(src), n, std::ptr::null_mut()));
memcpy_entry!(cuMemcpy, cuMemcpy_ptds, (dst: CUdeviceptr, src: CUdeviceptr, n: usize), true,
    |a, b, c, s| (Side::of(dst), Side::of(src), n, std::ptr::null_mut()));
memcpy_entry!(cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync_v2_ptsz, (dst: CUdeviceptr, src: *const c_void, n: usize, stream: Handle), false,
    |a, b, c, s| (Side::Known(dst), Side::of(src as u64), n, stream));
memcpy_entry!(cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync_v2_ptsz, (dst: *mut c_void, src: CUdeviceptr, n: usize, stream: Handle), false,
    |a, b, c, s| (Side::of(dst as u64), Side::Known(src), n, stream));
memcpy_entry!(cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync_v2_ptsz, (dst: CUdeviceptr, src: CUdeviceptr, n: usize, stream: Handle), false,
    |a, b, c, s| (Side::Known(dst), Side::Known(src), n, stream));
memcpy_entry!(cuMemcpyAsync, cuMemcpyAsync_ptsz, (dst: CUdeviceptr, src: CUdeviceptr, n: usize, stream: Handle), false,
    |a, b, c, s| (Side::of(dst), Side::of(src), n, stream));
memcpy_entry!(cuMemcpyPeer, cuMemcpyPeer_ptds, (dst: CUdeviceptr, _dctx: Handle, src: CUdeviceptr, _sctx: Handle, n: usize), true,
    |a, b, c, s| (Side::Known(dst), Side::Known(src), n, std::ptr::null_mut()));
memcpy_entry!(cuMemcpyPeerAsync, cuMemcpyPeerAsync_ptsz, (dst: CUdeviceptr, _dctx: Handle, src: CUdeviceptr, _sctx: Handle, n: usize, stream: Handle), false,
    |a, b, c, s| (Side::Known(dst), Side::Known(src), n, stream));

/// One side of a 2D/3D copy, from the descriptor's memory type, with its pitch and height:
/// a CUDA array is the packed memory of its layout (its own pitch and height; the
/// descriptor's are ignored for arrays, as in CUDA).
fn side(
    kind: u32,
    host: u64,
    device: u64,
    array: Handle,
    pitch: usize,
    height: usize,
) -> R<(Side, usize, usize)> {
    match kind {
        CU_MEMORYTYPE_HOST => Ok((Side::of(host), pitch, height)),
        CU_MEMORYTYPE_DEVICE => Ok((Side::Known(device), pitch, height)),
        CU_MEMORYTYPE_UNIFIED => Ok((Side::of(device), pitch, height)),
        CU_MEMORYTYPE_ARRAY => {
            let l = crate::texture::array(array)?.layout;
            let n = |v: u64| usize::try_from(v).map_err(|_| Error::code(CUDA_ERROR_INVALID_VALUE));
            Ok((Side::Known(l.base), n(l.pitch)?, n(l.height)?))
        }
        _ => Err(Error::code(CUDA_ERROR_INVALID_VALUE)),
    }
}

/// Plans the row copies of a 3D copy (`depth` 1 for 2D).
#[allow(clippy::too_many_arguments)]
fn plan_3d(
    dst: Side,
    src: Side,
    (dx, dy, dz, dpitch, dheight): (usize, usize, usize, usize, usize),
    (sx, sy, sz, spitch, sheight): (usize, usize, usize, usize, usize),
    width: usize,
    height: usize,
    depth: usize,
) -> R<Vec<Copy1>> {
    let bad = || Error::code(CUDA_ERROR_INVALID_VALUE);
    if width == 0 || height == 0 || depth == 0 {
        return Ok(Vec::new());
    }
    if (height > 1 || depth > 1) && (dpitch < width || spitch < width) {
        return Err(bad());
    }
    let rows = height.checked_mul(depth).ok_or_else(bad)?;
    if rows > 1 << 28 {
        return Err(bad());
    }
    let off = |x: usize, y: usize, z: usize, pitch: usize, h: usize| -> R<u64> {
        let plane = pitch.checked_mul(h.max(1)).ok_or_else(bad)?;
        let o = z
            .checked_mul(plane)
            .and_then(|a| y.checked_mul(pitch).and_then(|b| a.checked_add(b)))
            .and_then(|a| a.checked_add(x))
            .ok_or_else(bad)?;
        Ok(o as u64)
    };
    let mut v = Vec::with_capacity(rows);
    for z in 0..depth {
        for y in 0..height {
            let d_off = off(dx, dy + y, dz + z, dpitch, dheight)?;
            let s_off = off(sx, sy + y, sz + z, spitch, sheight)?;
            let shift = |s: Side, o: u64| -> R<Side> {
                let a = s.addr().checked_add(o).ok_or_else(bad)?;
                Ok(match s {
                    Side::Known(_) => Side::Known(a),
                    Side::Host(_) => Side::Host(a),
                })
            };
            v.push(plan(shift(dst, d_off)?, shift(src, s_off)?, width)?);
        }
    }
    Ok(v)
}

fn copy_2d(m: DefaultStream, p: *const CUDA_MEMCPY2D, stream: Handle, sync: bool) -> R {
    if p.is_null() {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    // SAFETY: the client's descriptor.
    let c = unsafe { &*p };
    let t = target(stream, m)?;
    let (dst, dpitch, _) = side(
        c.dst_memory_type,
        c.dst_host as u64,
        c.dst_device,
        c.dst_array,
        c.dst_pitch,
        0,
    )?;
    let (src, spitch, _) = side(
        c.src_memory_type,
        c.src_host as u64,
        c.src_device,
        c.src_array,
        c.src_pitch,
        0,
    )?;
    let copies = plan_3d(
        dst,
        src,
        (c.dst_x_in_bytes, c.dst_y, 0, dpitch, 0),
        (c.src_x_in_bytes, c.src_y, 0, spitch, 0),
        c.width_in_bytes,
        c.height,
        1,
    )?;
    submit_copies(&t, copies, sync, !src.stable(), !dst.stable())
}

stream_pair!(cuMemcpy2D_v2, cuMemcpy2D_v2_ptds, (p: *const CUDA_MEMCPY2D), |m, p| copy_2d(m, p, std::ptr::null_mut(), true));
stream_pair!(cuMemcpy2DUnaligned_v2, cuMemcpy2DUnaligned_v2_ptds, (p: *const CUDA_MEMCPY2D), |m, p| copy_2d(m, p, std::ptr::null_mut(), true));
stream_pair!(cuMemcpy2DAsync_v2, cuMemcpy2DAsync_v2_ptsz, (p: *const CUDA_MEMCPY2D, s: Handle), |m, p, s| copy_2d(m, p, s, false));

fn copy_3d(m: DefaultStream, p: *const CUDA_MEMCPY3D, stream: Handle, sync: bool) -> R {
    if p.is_null() {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    // SAFETY: the client's descriptor.
    let c = unsafe { &*p };
    let t = target(stream, m)?;
    let (dst, dpitch, dheight) = side(
        c.dst_memory_type,
        c.dst_host as u64,
        c.dst_device,
        c.dst_array,
        c.dst_pitch,
        c.dst_height,
    )?;
    let (src, spitch, sheight) = side(
        c.src_memory_type,
        c.src_host as u64,
        c.src_device,
        c.src_array,
        c.src_pitch,
        c.src_height,
    )?;
    let copies = plan_3d(
        dst,
        src,
        (c.dst_x_in_bytes, c.dst_y, c.dst_z, dpitch, dheight),
        (c.src_x_in_bytes, c.src_y, c.src_z, spitch, sheight),
        c.width_in_bytes,
        c.height,
        c.depth,
    )?;
    submit_copies(&t, copies, sync, !src.stable(), !dst.stable())
}

stream_pair!(cuMemcpy3D_v2, cuMemcpy3D_v2_ptds, (p: *const CUDA_MEMCPY3D), |m, p| copy_3d(m, p, std::ptr::null_mut(), true));
stream_pair!(cuMemcpy3DAsync_v2, cuMemcpy3DAsync_v2_ptsz, (p: *const CUDA_MEMCPY3D, s: Handle), |m, p, s| copy_3d(m, p, s, false));

fn copy_3d_peer(m: DefaultStream, p: *const CUDA_MEMCPY3D_PEER, stream: Handle, sync: bool) -> R {
    if p.is_null() {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    // SAFETY: the client's descriptor.
    let c = unsafe { &*p };
    let t = target(stream, m)?;
    let (dst, dpitch, dheight) = side(
        c.dst_memory_type,
        c.dst_host as u64,
        c.dst_device,
        c.dst_array,
        c.dst_pitch,
        c.dst_height,
    )?;
    let (src, spitch, sheight) = side(
        c.src_memory_type,
        c.src_host as u64,
        c.src_device,
        c.src_array,
        c.src_pitch,
        c.src_height,
    )?;
    let copies = plan_3d(
        dst,
        src,
        (c.dst_x_in_bytes, c.dst_y, c.dst_z, dpitch, dheight),
        (c.src_x_in_bytes, c.src_y, c.src_z, spitch, sheight),
        c.width_in_bytes,
        c.height,
        c.depth,
    )?;
    submit_copies(&t, copies, sync, !src.stable(), !dst.stable())
}

stream_pair!(cuMemcpy3DPeer, cuMemcpy3DPeer_ptds, (p: *const CUDA_MEMCPY3D_PEER), |m, p| copy_3d_peer(m, p, std::ptr::null_mut(), true));
stream_pair!(cuMemcpy3DPeerAsync, cuMemcpy3DPeerAsync_ptsz, (p: *const CUDA_MEMCPY3D_PEER, s: Handle), |m, p, s| copy_3d_peer(m, p, s, false));

// ---------------------------------------------------------------------------------------
// Memsets.

/// Fills `height` rows of `width` elements of `elem` bytes with `value`.
#[allow(clippy::too_many_arguments)]
fn memset(
    m: DefaultStream,
    dst: u64,
    pitch: usize,
    value: u32,
    elem: usize,
    width: usize,
    height: usize,
    stream: Handle,
    sync: bool,
) -> R {
    let d = drv()?;
    let t = target(stream, m)?;
    let bad = || Error::code(CUDA_ERROR_INVALID_VALUE);
    if width == 0 || height == 0 {
        return Ok(());
    }
    if !dst.is_multiple_of(elem as u64) {
        return Err(bad());
    }
    let row = width.checked_mul(elem).ok_or_else(bad)?;
    if height > 1 && pitch < row {
        return Err(bad());
    }
    let span = pitch
        .checked_mul(height - 1)
        .and_then(|a| a.checked_add(row))
        .ok_or_else(bad)?;
    check_known(d, dst, span as u64)?;
    let pattern: Vec<u8> = value.to_le_bytes()[..elem].to_vec();
    let job = move || {
        for y in 0..height {
            let base = dst + (y * pitch) as u64;
            // SAFETY: inside the allocation checked above.
            let row_bytes = unsafe { std::slice::from_raw_parts_mut(base as *mut u8, row) };
            if elem == 1 {
                row_bytes.fill(pattern[0]);
            } else {
                for ch in row_bytes.chunks_exact_mut(elem) {
                    ch.copy_from_slice(&pattern);
                }
            }
        }
    };
    if sync {
        t.run_sync(job)
    } else {
        t.ctx.check()?;
        t.enqueue(job);
        Ok(())
    }
}

stream_pair!(cuMemsetD8_v2, cuMemsetD8_v2_ptds, (d: CUdeviceptr, v: u8, n: usize), |m, d, v: u8, n| memset(m, d, 0, v as u32, 1, n, 1, std::ptr::null_mut(), true));
stream_pair!(cuMemsetD16_v2, cuMemsetD16_v2_ptds, (d: CUdeviceptr, v: u16, n: usize), |m, d, v: u16, n| memset(m, d, 0, v as u32, 2, n, 1, std::ptr::null_mut(), true));
stream_pair!(cuMemsetD32_v2, cuMemsetD32_v2_ptds, (d: CUdeviceptr, v: u32, n: usize), |m, d, v, n| memset(m, d, 0, v, 4, n, 1, std::ptr::null_mut(), true));
stream_pair!(cuMemsetD2D8_v2, cuMemsetD2D8_v2_ptds, (d: CUdeviceptr, p: usize, v: u8, w: usize, h: usize), |m, d, p, v: u8, w, h| memset(m, d, p, v as u32, 1, w, h, std::ptr::null_mut(), true));
stream_pair!(cuMemsetD2D16_v2, cuMemsetD2D16_v2_ptds, (d: CUdeviceptr, p: usize, v: u16, w: usize, h: usize), |m, d, p, v: u16, w, h| memset(m, d, p, v as u32, 2, w, h, std::ptr::null_mut(), true));
stream_pair!(cuMemsetD2D32_v2, cuMemsetD2D32_v2_ptds, (d: CUdeviceptr, p: usize, v: u32, w: usize, h: usize), |m, d, p, v, w, h| memset(m, d, p, v, 4, w, h, std::ptr::null_mut(), true));
stream_pair!(cuMemsetD8Async, cuMemsetD8Async_ptsz, (d: CUdeviceptr, v: u8, n: usize, s: Handle), |m, d, v: u8, n, s| memset(m, d, 0, v as u32, 1, n, 1, s, false));
stream_pair!(cuMemsetD16Async, cuMemsetD16Async_ptsz, (d: CUdeviceptr, v: u16, n: usize, s: Handle), |m, d, v: u16, n, s| memset(m, d, 0, v as u32, 2, n, 1, s, false));
stream_pair!(cuMemsetD32Async, cuMemsetD32Async_ptsz, (d: CUdeviceptr, v: u32, n: usize, s: Handle), |m, d, v, n, s| memset(m, d, 0, v, 4, n, 1, s, false));
stream_pair!(cuMemsetD2D8Async, cuMemsetD2D8Async_ptsz, (d: CUdeviceptr, p: usize, v: u8, w: usize, h: usize, s: Handle), |m, d, p, v: u8, w, h, s| memset(m, d, p, v as u32, 1, w, h, s, false));
stream_pair!(cuMemsetD2D16Async, cuMemsetD2D16Async_ptsz, (d: CUdeviceptr, p: usize, v: u16, w: usize, h: usize, s: Handle), |m, d, p, v: u16, w, h, s| memset(m, d, p, v as u32, 2, w, h, s, false));
stream_pair!(cuMemsetD2D32Async, cuMemsetD2D32Async_ptsz, (d: CUdeviceptr, p: usize, v: u32, w: usize, h: usize, s: Handle), |m, d, p, v, w, h, s| memset(m, d, p, v, 4, w, h, s, false));

// ---------------------------------------------------------------------------------------
// Pointer attributes.

fn owner(dev: &Dev, base: u64) -> Option<Owner> {
    dev.owners
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&base)
        .copied()
}

/// Writes one pointer attribute for a known allocation.
///
/// # Safety
/// `data` is valid for the attribute's type.
unsafe fn write_attr(data: *mut c_void, attr: i32, ptr: u64, dev: &Dev, info: &AllocInfo) -> R {
    let o = owner(dev, info.base);
    let host_side = matches!(info.kind, AllocKind::Host | AllocKind::Registered);
    let managed = info.kind == AllocKind::Managed;
    // SAFETY: per the caller, `data` fits the attribute's type.
    unsafe {
        match attr {
            CU_POINTER_ATTRIBUTE_CONTEXT => out(data.cast(), o.map_or(0, |o| o.ctx) as Handle),
            CU_POINTER_ATTRIBUTE_MEMORY_TYPE => out(
                data.cast(),
                if host_side {
                    CU_MEMORYTYPE_HOST
                } else {
                    CU_MEMORYTYPE_DEVICE
                },
            ),
            CU_POINTER_ATTRIBUTE_DEVICE_POINTER => out(data.cast::<u64>(), ptr),
            CU_POINTER_ATTRIBUTE_HOST_POINTER => {
                if host_side || managed {
                    out(data.cast::<u64>(), ptr)
                } else {
                    Err(Error::code(CUDA_ERROR_INVALID_VALUE))
                }
            }
            CU_POINTER_ATTRIBUTE_SYNC_MEMOPS => out(data.cast::<u32>(), 1),
            CU_POINTER_ATTRIBUTE_BUFFER_ID | CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID => {
                out(data.cast::<u64>(), info.base)
            }
            CU_POINTER_ATTRIBUTE_IS_MANAGED => out(data.cast::<u32>(), managed as u32),
            CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL => out(data.cast::<i32>(), dev.ordinal),
            CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE => out(data.cast::<u32>(), 0),
            CU_POINTER_ATTRIBUTE_RANGE_START_ADDR | CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR => {
                out(data.cast::<u64>(), info.base)
            }
            CU_POINTER_ATTRIBUTE_RANGE_SIZE | CU_POINTER_ATTRIBUTE_MAPPING_SIZE => {
                out(data.cast::<usize>(), info.size as usize)
            }
            CU_POINTER_ATTRIBUTE_MAPPED => out(data.cast::<u32>(), 1),
            CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES => out(data.cast::<u64>(), 0),
            CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE => out(data.cast::<u32>(), 0),
            CU_POINTER_ATTRIBUTE_ACCESS_FLAGS => out(data.cast::<u32>(), 3),
            CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE => {
                out(data.cast::<u64>(), o.map_or(0, |o| o.pool) as u64)
            }
            CU_POINTER_ATTRIBUTE_P2P_TOKENS => Err(Error::code(CUDA_ERROR_NOT_SUPPORTED)),
            _ => Err(Error::code(CUDA_ERROR_INVALID_VALUE)),
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuPointerGetAttribute(
    data: *mut c_void,
    attr: i32,
    ptr: CUdeviceptr,
) -> CUresult {
    api("cuPointerGetAttribute", || {
        let d = drv()?;
        if data.is_null() {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let (dev, info) = d.find_alloc(ptr).ok_or_else(|| {
            Error::quiet(
                CUDA_ERROR_INVALID_VALUE,
                format!("{ptr:#x} is not memory the driver knows"),
            )
        })?;
        // SAFETY: the client's buffer for this attribute.
        unsafe { write_attr(data, attr, ptr, dev, &info) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuPointerGetAttributes(
    n: u32,
    attrs: *const i32,
    data: *mut *mut c_void,
    ptr: CUdeviceptr,
) -> CUresult {
    api("cuPointerGetAttributes", || {
        let d = drv()?;
        if n > 0 && (attrs.is_null() || data.is_null()) {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let found = d.find_alloc(ptr);
        for i in 0..n as usize {
            // SAFETY: arrays of `n` entries from the client.
            let (a, p) = unsafe { (*attrs.add(i), *data.add(i)) };
            if p.is_null() {
                continue;
            }
            match &found {
                // SAFETY: the client's buffer for this attribute.
                Some((dev, info)) => match unsafe { write_attr(p, a, ptr, dev, info) } {
                    Ok(()) => {}
                    // A host pointer of a device allocation is reported as NULL here.
                    Err(_) if a == CU_POINTER_ATTRIBUTE_HOST_POINTER => {
                        // SAFETY: as above.
                        unsafe { out(p.cast::<u64>(), 0)? }
                    }
                    Err(e) => return Err(e),
                },
                None => {
                    // Memory the driver does not know: zeroed answers, a device ordinal of -2.
                    // SAFETY: as above.
                    unsafe {
                        match a {
                            CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL => out(p.cast::<i32>(), -2)?,
                            CU_POINTER_ATTRIBUTE_CONTEXT
                            | CU_POINTER_ATTRIBUTE_DEVICE_POINTER
                            | CU_POINTER_ATTRIBUTE_HOST_POINTER
                            | CU_POINTER_ATTRIBUTE_BUFFER_ID
                            | CU_POINTER_ATTRIBUTE_RANGE_START_ADDR
                            | CU_POINTER_ATTRIBUTE_RANGE_SIZE
                            | CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES
                            | CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE
                            | CU_POINTER_ATTRIBUTE_MAPPING_SIZE
                            | CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR
                            | CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID => out(p.cast::<u64>(), 0)?,
                            _ => out(p.cast::<u32>(), 0)?,
                        }
                    }
                }
            }
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuPointerSetAttribute(
    _v: *const c_void,
    attr: i32,
    ptr: CUdeviceptr,
) -> CUresult {
    api("cuPointerSetAttribute", || {
        let d = drv()?;
        d.find_alloc(ptr)
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        if attr == CU_POINTER_ATTRIBUTE_SYNC_MEMOPS {
            Ok(())
        } else {
            Err(Error::code(CUDA_ERROR_INVALID_VALUE))
        }
    })
}

// ---------------------------------------------------------------------------------------
// Managed memory hints: memory is host memory, so prefetching and advice change nothing;
// they validate their arguments.

fn check_range(ptr: CUdeviceptr, len: usize) -> R {
    let d = drv()?;
    check_known(d, ptr, len as u64).map(|_| ())
}

stream_pair!(cuMemPrefetchAsync, cuMemPrefetchAsync_ptsz, (p: CUdeviceptr, n: usize, dev: CUdevice, s: Handle), |m, p, n, _dev, s| {
    target(s, m)?;
    check_range(p, n)
});

stream_pair!(cuMemPrefetchAsync_v2, cuMemPrefetchAsync_v2_ptsz, (p: CUdeviceptr, n: usize, loc: CUmemLocation, flags: u32, s: Handle), |m, p, n, _loc, _flags, s| {
    target(s, m)?;
    check_range(p, n)
});

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAdvise(
    p: CUdeviceptr,
    n: usize,
    _advice: u32,
    _dev: CUdevice,
) -> CUresult {
    api("cuMemAdvise", || check_range(p, n))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAdvise_v2(
    p: CUdeviceptr,
    n: usize,
    _advice: u32,
    _loc: CUmemLocation,
) -> CUresult {
    api("cuMemAdvise_v2", || check_range(p, n))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemRangeGetAttribute(
    data: *mut c_void,
    size: usize,
    attr: u32,
    p: CUdeviceptr,
    n: usize,
) -> CUresult {
    api("cuMemRangeGetAttribute", || {
        check_range(p, n)?;
        if data.is_null() || size < 4 {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        // Read-mostly: no; preferred/last-prefetch location: the host (CU_DEVICE_CPU = -1).
        let v: i32 = match attr {
            1 => 0,
            2 | 4 => -1,
            3 => -1,
            _ => 0,
        };
        // SAFETY: the client's buffer of `size` >= 4 bytes.
        unsafe { out(data.cast::<i32>(), v) }
    })
}

// ---------------------------------------------------------------------------------------
// The stream-ordered allocator and memory pools.

/// A memory pool: allocations come from the device's address space; the pool keeps the
/// attributes a client sets and counts what it has handed out.
pub struct Pool {
    pub dev: i32,
    pub release_threshold: AtomicU64,
    pub used: AtomicU64,
    pub used_high: AtomicU64,
    pub reuse: Mutex<[i32; 3]>,
}

impl Pool {
    pub fn new(dev: i32) -> Pool {
        Pool {
            dev,
            release_threshold: AtomicU64::new(0),
            used: AtomicU64::new(0),
            used_high: AtomicU64::new(0),
            reuse: Mutex::new([1, 1, 1]),
        }
    }
}

fn alloc_async(
    m: DefaultStream,
    p: *mut CUdeviceptr,
    size: usize,
    pool_h: usize,
    stream: Handle,
) -> R {
    let d = drv()?;
    let t = target(stream, m)?;
    t.ctx.check()?;
    if p.is_null() || size == 0 {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    let dev = d.dev(t.ctx.dev)?;
    let pool_h = if pool_h == 0 {
        dev.current_pool.load(Ordering::Relaxed)
    } else {
        pool_h
    };
    let pool = d
        .pools
        .get(pool_h)
        .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
    // The memory exists at once; stream order only matters for its reuse.
    let a = dev
        .vm
        .mem
        .alloc(size as u64, AllocKind::Device, "stream-ordered allocation")
        .map_err(|e| Error::quiet(CUDA_ERROR_OUT_OF_MEMORY, e.to_string()))?;
    dev.owners.lock().unwrap_or_else(|e| e.into_inner()).insert(
        a,
        Owner {
            ctx: t.ctx_handle,
            flags: 0,
            pool: pool_h,
        },
    );
    let used = pool.used.fetch_add(size as u64, Ordering::Relaxed) + size as u64;
    pool.used_high.fetch_max(used, Ordering::Relaxed);
    // SAFETY: the client's out-pointer.
    unsafe { out(p, a) }
}

stream_pair!(cuMemAllocAsync, cuMemAllocAsync_ptsz, (p: *mut CUdeviceptr, size: usize, s: Handle), |m, p, size, s| alloc_async(m, p, size, 0, s));
stream_pair!(cuMemAllocFromPoolAsync, cuMemAllocFromPoolAsync_ptsz, (p: *mut CUdeviceptr, size: usize, pool: Handle, s: Handle), |m, p, size, pool: Handle, s| {
    if pool.is_null() {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    alloc_async(m, p, size, pool as usize, s)
});

stream_pair!(cuMemFreeAsync, cuMemFreeAsync_ptsz, (p: CUdeviceptr, s: Handle), |m, p: CUdeviceptr, s| {
    let d = drv()?;
    let t = target(s, m)?;
    let (dev, info) = d.find_alloc(p).ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
    if info.base != p || info.kind != AllocKind::Device {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    let ordinal = dev.ordinal;
    let pool = owner(dev, p).map_or(0, |o| o.pool);
    let size = info.size;
    t.enqueue(move || {
        if let Ok(d) = drv()
            && let Ok(dev) = d.dev(ordinal)
        {
            let _ = dev.vm.mem.free(p);
            dev.owners.lock().unwrap_or_else(|e| e.into_inner()).remove(&p);
            if let Some(pl) = d.pools.get(pool) {
                pl.used.fetch_sub(size.min(pl.used.load(Ordering::Relaxed)), Ordering::Relaxed);
            }
        }
    });
    Ok(())
});

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetDefaultMemPool(p: *mut Handle, dev: CUdevice) -> CUresult {
    api("cuDeviceGetDefaultMemPool", || {
        let d = drv()?;
        let h = d.dev(dev)?.default_pool;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, h as Handle) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetMemPool(p: *mut Handle, dev: CUdevice) -> CUresult {
    api("cuDeviceGetMemPool", || {
        let d = drv()?;
        let h = d.dev(dev)?.current_pool.load(Ordering::Relaxed);
        // SAFETY: the client's out-pointer.
        unsafe { out(p, h as Handle) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceSetMemPool(dev: CUdevice, pool: Handle) -> CUresult {
    api("cuDeviceSetMemPool", || {
        let d = drv()?;
        let dv = d.dev(dev)?;
        let p = d
            .pools
            .get(pool as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        if p.dev != dev {
            return Err(Error::code(CUDA_ERROR_INVALID_DEVICE));
        }
        dv.current_pool.store(pool as usize, Ordering::Relaxed);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemPoolCreate(p: *mut Handle, props: *const CUmemPoolProps) -> CUresult {
    api("cuMemPoolCreate", || {
        let d = drv()?;
        if props.is_null() || p.is_null() {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        // SAFETY: the client's properties.
        let props = unsafe { &*props };
        // Device location (type 1) only.
        if props.location.kind != 1 {
            return Err(Error::loud(
                CUDA_ERROR_NOT_SUPPORTED,
                "memory pools on the host are not supported",
            ));
        }
        d.dev(props.location.id)?;
        let h = d.pools.insert(Arc::new(Pool::new(props.location.id)));
        // SAFETY: the client's out-pointer.
        unsafe { out(p, h as Handle) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemPoolDestroy(pool: Handle) -> CUresult {
    api("cuMemPoolDestroy", || {
        let d = drv()?;
        if d.devices.iter().any(|dv| dv.default_pool == pool as usize) {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        d.pools
            .remove(pool as usize)
            .map(|_| ())
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemPoolSetAttribute(
    pool: Handle,
    attr: i32,
    v: *mut c_void,
) -> CUresult {
    api("cuMemPoolSetAttribute", || {
        let d = drv()?;
        let p = d
            .pools
            .get(pool as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        if v.is_null() {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        // SAFETY: the client's value of the attribute's type.
        unsafe {
            match attr {
                1..=3 => {
                    p.reuse.lock().unwrap_or_else(|e| e.into_inner())[(attr - 1) as usize] =
                        *v.cast::<i32>()
                }
                CU_MEMPOOL_ATTR_RELEASE_THRESHOLD => p
                    .release_threshold
                    .store(*v.cast::<u64>(), Ordering::Relaxed),
                CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH | CU_MEMPOOL_ATTR_USED_MEM_HIGH => {
                    if *v.cast::<u64>() != 0 {
                        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
                    }
                    p.used_high
                        .store(p.used.load(Ordering::Relaxed), Ordering::Relaxed);
                }
                _ => return Err(Error::code(CUDA_ERROR_INVALID_VALUE)),
            }
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemPoolGetAttribute(
    pool: Handle,
    attr: i32,
    v: *mut c_void,
) -> CUresult {
    api("cuMemPoolGetAttribute", || {
        let d = drv()?;
        let p = d
            .pools
            .get(pool as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        // SAFETY: the client's buffer of the attribute's type.
        unsafe {
            match attr {
                1..=3 => out(
                    v.cast::<i32>(),
                    p.reuse.lock().unwrap_or_else(|e| e.into_inner())[(attr - 1) as usize],
                ),
                CU_MEMPOOL_ATTR_RELEASE_THRESHOLD => {
                    out(v.cast::<u64>(), p.release_threshold.load(Ordering::Relaxed))
                }
                CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT | CU_MEMPOOL_ATTR_USED_MEM_CURRENT => {
                    out(v.cast::<u64>(), p.used.load(Ordering::Relaxed))
                }
                CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH | CU_MEMPOOL_ATTR_USED_MEM_HIGH => {
                    out(v.cast::<u64>(), p.used_high.load(Ordering::Relaxed))
                }
                _ => Err(Error::code(CUDA_ERROR_INVALID_VALUE)),
            }
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemPoolTrimTo(pool: Handle, _keep: usize) -> CUresult {
    api("cuMemPoolTrimTo", || {
        drv()?
            .pools
            .get(pool as usize)
            .map(|_| ())
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemPoolSetAccess(
    pool: Handle,
    _map: *const CUmemAccessDesc,
    _n: usize,
) -> CUresult {
    api("cuMemPoolSetAccess", || {
        drv()?
            .pools
            .get(pool as usize)
            .map(|_| ())
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemPoolGetAccess(
    flags: *mut u32,
    pool: Handle,
    loc: *const CUmemLocation,
) -> CUresult {
    api("cuMemPoolGetAccess", || {
        let d = drv()?;
        let p = d
            .pools
            .get(pool as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
        if loc.is_null() {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let _ = p;
        // Read-write (CU_MEM_ACCESS_FLAGS_PROT_READWRITE) from every device and the host:
        // pool memory is host memory.
        // SAFETY: the client's out-pointer.
        unsafe { out(flags, 3) }
    })
}
