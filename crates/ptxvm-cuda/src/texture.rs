//! CUDA arrays, texture objects and surface objects: `cuArrayCreate`/`cuArray3DCreate`,
//! `cuArrayDestroy`, `cuArray[3D]GetDescriptor`, `cuTexObjectCreate`/`Destroy`/
//! `GetResourceDesc`/`GetTextureDesc`, `cuSurfObjectCreate`/`Destroy`/`GetResourceDesc`.
//!
//! A CUDA array is a device allocation holding its texels densely packed (rows, then slices,
//! then layers: `ptxvm_vm::ops::texture::Layout`) and a `CUarray` handle in the driver's
//! table; `cuMemcpy2D`/`cuMemcpy3D` copy to and from it as pitched memory of that layout
//! (`memory.rs`). Texture and surface objects are the device's objects
//! (`ptxvm_vm::texobj`): the `CUtexObject`/`CUsurfObject` value is the handle the kernel's
//! `tex`/`suld` instructions take. A mipmapped array (`cuMipmappedArrayCreate`) is one
//! device allocation holding its levels one after another (`Layout::levels`); each level
//! `cuMipmappedArrayGetLevel` returns is a `CUarray` over its part of that allocation, owned
//! by the mipmapped array. Not supported (each `CUDA_ERROR_NOT_SUPPORTED`, said on stderr):
//! sparse and deferred-mapping arrays, resource views, sRGB reads.

use crate::abi::*;
use crate::driver::{Error, R, api, current, drv, out};
use crate::types::*;
use ptxvm_vm::memory::AllocKind;
use ptxvm_vm::ops::texture::{AddrMode, Elem, Filter, Geom, Layout, Sampler, max_levels};
use ptxvm_vm::texobj::Object;
use std::sync::{Arc, Mutex};

/// A CUDA array: its device, its texels' layout, its `CUDA_ARRAY3D_*` flags.
pub struct CuArray {
    pub dev: i32,
    pub layout: Layout,
    pub flags: u32,
    pub format: u32,
    /// The mipmapped array this is a level of (its memory is that array's; it is destroyed
    /// with it, not by `cuArrayDestroy`).
    pub level_of: Option<usize>,
}

/// A mipmapped CUDA array: its device, the layout of its chain of levels (one allocation),
/// its flags, and the `CUarray` handle of each level `cuMipmappedArrayGetLevel` returned.
pub struct CuMipmap {
    pub dev: i32,
    pub layout: Layout,
    pub flags: u32,
    pub format: u32,
    pub level_arrays: Mutex<Vec<Option<usize>>>,
}

// CUarray_format.
const FORMATS: [(u32, Elem); 8] = [
    (0x01, Elem::U8),
    (0x02, Elem::U16),
    (0x03, Elem::U32),
    (0x08, Elem::S8),
    (0x09, Elem::S16),
    (0x0a, Elem::S32),
    (0x10, Elem::F16),
    (0x20, Elem::F32),
];

fn elem_of(format: u32) -> R<Elem> {
    FORMATS
        .iter()
        .find(|(f, _)| *f == format)
        .map(|(_, e)| *e)
        .ok_or_else(|| {
            Error::loud(
                CUDA_ERROR_NOT_SUPPORTED,
                format!("CUarray_format {format:#x} is not supported (8/16/32-bit integers, half, float)"),
            )
        })
}

fn format_of(e: Elem) -> u32 {
    FORMATS
        .iter()
        .find(|(_, x)| *x == e)
        .map_or(0x20, |(f, _)| *f)
}

// CUDA_ARRAY3D_* flags.
const ARRAY3D_LAYERED: u32 = 0x01;
const ARRAY3D_SURFACE_LDST: u32 = 0x02;
const ARRAY3D_CUBEMAP: u32 = 0x04;
const ARRAY3D_TEXTURE_GATHER: u32 = 0x08;

/// `CUDA_ARRAY_DESCRIPTOR`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_ARRAY_DESCRIPTOR {
    pub width: usize,
    pub height: usize,
    pub format: u32,
    pub num_channels: u32,
}

/// `CUDA_ARRAY3D_DESCRIPTOR`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_ARRAY3D_DESCRIPTOR {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub format: u32,
    pub num_channels: u32,
    pub flags: u32,
}

/// `CUDA_RESOURCE_DESC`: the type, a 128-byte union, flags.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_RESOURCE_DESC {
    pub res_type: u32,
    pub res: [u64; 16],
    pub flags: u32,
}

/// `CUDA_TEXTURE_DESC`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_TEXTURE_DESC {
    pub address_mode: [u32; 3],
    pub filter_mode: u32,
    pub flags: u32,
    pub max_anisotropy: u32,
    pub mipmap_filter_mode: u32,
    pub mipmap_level_bias: f32,
    pub min_mipmap_level_clamp: f32,
    pub max_mipmap_level_clamp: f32,
    pub border_color: [f32; 4],
    pub reserved: [i32; 12],
}

// CUresourcetype.
const RESOURCE_ARRAY: u32 = 0;
const RESOURCE_MIPMAPPED: u32 = 1;
const RESOURCE_LINEAR: u32 = 2;
const RESOURCE_PITCH2D: u32 = 3;
// CUDA_TEXTURE_DESC flags.
const TRSF_READ_AS_INTEGER: u32 = 0x01;
const TRSF_NORMALIZED_COORDINATES: u32 = 0x02;
const TRSF_SRGB: u32 = 0x10;

fn invalid() -> Error {
    Error::code(CUDA_ERROR_INVALID_VALUE)
}

/// The layout (at base 0) an array descriptor describes.
fn array_layout(d: &CUDA_ARRAY3D_DESCRIPTOR) -> R<Layout> {
    let known = ARRAY3D_LAYERED | ARRAY3D_SURFACE_LDST | ARRAY3D_CUBEMAP | ARRAY3D_TEXTURE_GATHER;
    if d.flags & !known != 0 {
        return Err(Error::loud(
            CUDA_ERROR_NOT_SUPPORTED,
            format!(
                "CUDA array flags {:#x}: sparse and deferred-mapping arrays are not supported",
                d.flags
            ),
        ));
    }
    let elem = elem_of(d.format)?;
    if !matches!(d.num_channels, 1 | 2 | 4) || d.width == 0 {
        return Err(invalid());
    }
    let layered = d.flags & ARRAY3D_LAYERED != 0;
    let cube = d.flags & ARRAY3D_CUBEMAP != 0;
    let (geom, h, depth, layers) = match (layered, d.height, d.depth) {
        // Cubemaps: depth 6 (one cube) or 6·n layers (an array of them); square faces are
        // checked with the layout.
        (false, h, 6) if cube => (Geom::Cube, h, 1, 6),
        (true, h, l) if cube && l > 0 => (Geom::CubeLayered, h, 1, l),
        _ if cube => return Err(invalid()),
        (false, 0, 0) => (Geom::D1, 1, 1, 1),
        (false, h, 0) => (Geom::D2, h, 1, 1),
        (false, 0, _) => return Err(invalid()),
        (false, h, z) => (Geom::D3, h, z, 1),
        (true, _, 0) => return Err(invalid()),
        (true, 0, l) => (Geom::Layered1, 1, 1, l),
        (true, h, l) => (Geom::Layered2, h, 1, l),
    };
    let probe = Layout::packed(
        0,
        elem,
        d.num_channels as u8,
        geom,
        d.width as u64,
        h as u64,
        depth as u64,
        layers as u64,
    )
    .ok_or_else(invalid)?;
    probe.validate().map_err(|_| invalid())?;
    Ok(probe)
}

/// Allocates the memory of a layout (at base 0) on the current context's device: its
/// device ordinal and the layout at its base.
fn alloc_layout(probe: Layout, what: &str) -> R<(i32, Layout)> {
    let d2 = drv()?;
    let (_, ctx) = current()?;
    ctx.check()?;
    let dev = d2.dev(ctx.dev)?;
    let bytes = probe.span().ok_or_else(invalid)?;
    let base = dev
        .vm
        .mem
        .alloc(bytes, AllocKind::Device, what)
        .map_err(|e| Error::quiet(CUDA_ERROR_OUT_OF_MEMORY, e.to_string()))?;
    Ok((ctx.dev, Layout { base, ..probe }))
}

fn create_array(p: *mut Handle, d: CUDA_ARRAY3D_DESCRIPTOR) -> R {
    if p.is_null() {
        return Err(invalid());
    }
    let (dev, layout) = alloc_layout(array_layout(&d)?, "CUDA array")?;
    let h = drv()?.arrays.insert(Arc::new(CuArray {
        dev,
        layout,
        flags: d.flags,
        format: d.format,
        level_of: None,
    }));
    // SAFETY: the client's out-pointer.
    unsafe { out(p, h as Handle) }
}

/// The array of a handle.
pub fn array(h: Handle) -> R<Arc<CuArray>> {
    drv()?
        .arrays
        .get(h as usize)
        .ok_or_else(|| Error::code(CUDA_ERROR_INVALID_HANDLE))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuArrayCreate_v2(
    p: *mut Handle,
    d: *const CUDA_ARRAY_DESCRIPTOR,
) -> CUresult {
    api("cuArrayCreate_v2", || {
        if d.is_null() {
            return Err(invalid());
        }
        // SAFETY: the client's descriptor.
        let d = unsafe { d.read_unaligned() };
        create_array(
            p,
            CUDA_ARRAY3D_DESCRIPTOR {
                width: d.width,
                height: d.height,
                depth: 0,
                format: d.format,
                num_channels: d.num_channels,
                flags: 0,
            },
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuArray3DCreate_v2(
    p: *mut Handle,
    d: *const CUDA_ARRAY3D_DESCRIPTOR,
) -> CUresult {
    api("cuArray3DCreate_v2", || {
        if d.is_null() {
            return Err(invalid());
        }
        // SAFETY: the client's descriptor.
        create_array(p, unsafe { d.read_unaligned() })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuArrayDestroy(h: Handle) -> CUresult {
    api("cuArrayDestroy", || {
        let d = drv()?;
        let a = array(h)?;
        if a.level_of.is_some() {
            // A level is freed with its mipmapped array (cuMipmappedArrayDestroy).
            return Err(Error::quiet(
                CUDA_ERROR_INVALID_VALUE,
                "a level of a mipmapped array is destroyed with the mipmapped array",
            ));
        }
        let a = d
            .arrays
            .remove(h as usize)
            .ok_or_else(|| Error::code(CUDA_ERROR_INVALID_HANDLE))?;
        let _ = d.dev(a.dev)?.vm.mem.free(a.layout.base);
        Ok(())
    })
}

fn descriptor(a: &CuArray) -> CUDA_ARRAY3D_DESCRIPTOR {
    let l = &a.layout;
    let (h, z) = match l.geom {
        Geom::D1 => (0, 0),
        Geom::D2 => (l.height, 0),
        Geom::D3 => (l.height, l.depth),
        Geom::Layered1 => (0, l.layers),
        Geom::Layered2 | Geom::Cube | Geom::CubeLayered => (l.height, l.layers),
    };
    CUDA_ARRAY3D_DESCRIPTOR {
        width: l.width as usize,
        height: h as usize,
        depth: z as usize,
        format: a.format,
        num_channels: l.channels as u32,
        flags: a.flags,
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuArrayGetDescriptor_v2(
    p: *mut CUDA_ARRAY_DESCRIPTOR,
    h: Handle,
) -> CUresult {
    api("cuArrayGetDescriptor_v2", || {
        let d = descriptor(&*array(h)?);
        // SAFETY: the client's out-pointer.
        unsafe {
            out(
                p,
                CUDA_ARRAY_DESCRIPTOR {
                    width: d.width,
                    height: d.height,
                    format: d.format,
                    num_channels: d.num_channels,
                },
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuArray3DGetDescriptor_v2(
    p: *mut CUDA_ARRAY3D_DESCRIPTOR,
    h: Handle,
) -> CUresult {
    api("cuArray3DGetDescriptor_v2", || {
        let d = descriptor(&*array(h)?);
        // SAFETY: the client's out-pointer.
        unsafe { out(p, d) }
    })
}

/// The mipmapped array of a handle.
pub fn mipmap(h: Handle) -> R<Arc<CuMipmap>> {
    drv()?
        .mipmaps
        .get(h as usize)
        .ok_or_else(|| Error::code(CUDA_ERROR_INVALID_HANDLE))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMipmappedArrayCreate(
    p: *mut Handle,
    d: *const CUDA_ARRAY3D_DESCRIPTOR,
    levels: u32,
) -> CUresult {
    api("cuMipmappedArrayCreate", || {
        if p.is_null() || d.is_null() {
            return Err(invalid());
        }
        // SAFETY: the client's descriptor.
        let d = unsafe { d.read_unaligned() };
        // Each level's extents are the previous one's halved (at least 1); the level count
        // is clamped to [1, floor(log2(largest extent)) + 1], as cuda.h documents.
        let one = array_layout(&d)?;
        let most = max_levels(one.width.max(one.height).max(one.depth));
        let probe = one.with_levels(levels.clamp(1, most));
        probe
            .validate()
            .map_err(|m| Error::quiet(CUDA_ERROR_INVALID_VALUE, m))?;
        let (dev, layout) = alloc_layout(probe, "CUDA mipmapped array")?;
        let h = drv()?.mipmaps.insert(Arc::new(CuMipmap {
            dev,
            layout,
            flags: d.flags,
            format: d.format,
            level_arrays: Mutex::new(vec![None; probe.levels as usize]),
        }));
        // SAFETY: the client's out-pointer.
        unsafe { out(p, h as Handle) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMipmappedArrayGetLevel(
    p: *mut Handle,
    h: Handle,
    level: u32,
) -> CUresult {
    api("cuMipmappedArrayGetLevel", || {
        if p.is_null() {
            return Err(invalid());
        }
        let m = mipmap(h)?;
        let lay = m.layout.level(level).ok_or_else(|| {
            Error::quiet(
                CUDA_ERROR_INVALID_VALUE,
                format!(
                    "level {level} of a mipmapped array of {} levels",
                    m.layout.levels
                ),
            )
        })?;
        let mut cached = m.level_arrays.lock().unwrap_or_else(|e| e.into_inner());
        let slot = cached.get_mut(level as usize).ok_or_else(invalid)?;
        let a = match *slot {
            Some(a) => a,
            None => {
                let a = drv()?.arrays.insert(Arc::new(CuArray {
                    dev: m.dev,
                    layout: lay,
                    flags: m.flags,
                    format: m.format,
                    level_of: Some(h as usize),
                }));
                *slot = Some(a);
                a
            }
        };
        // SAFETY: the client's out-pointer.
        unsafe { out(p, a as Handle) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMipmappedArrayDestroy(h: Handle) -> CUresult {
    api("cuMipmappedArrayDestroy", || {
        let d = drv()?;
        let m = d
            .mipmaps
            .remove(h as usize)
            .ok_or_else(|| Error::code(CUDA_ERROR_INVALID_HANDLE))?;
        for a in m
            .level_arrays
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .flatten()
        {
            d.arrays.remove(*a);
        }
        let _ = d.dev(m.dev)?.vm.mem.free(m.layout.base);
        Ok(())
    })
}

/// The layout a resource descriptor names, on the current context's device.
fn resource(r: &CUDA_RESOURCE_DESC) -> R<(Arc<ptxvm_vm::Device>, Layout)> {
    let d = drv()?;
    let (_, ctx) = current()?;
    ctx.check()?;
    let vm = d.dev(ctx.dev)?.vm.clone();
    let lay = match r.res_type {
        RESOURCE_ARRAY => array(r.res[0] as usize as Handle)?.layout,
        RESOURCE_LINEAR => {
            // devPtr, format (u32) + numChannels (u32), sizeInBytes.
            let elem = elem_of(r.res[1] as u32)?;
            let ch = (r.res[1] >> 32) as u8;
            let texel = elem.bytes() * ch as u64;
            let width = r.res[2].checked_div(texel).ok_or_else(invalid)?;
            let mut l =
                Layout::packed(r.res[0], elem, ch, Geom::D1, width, 1, 1, 1).ok_or_else(invalid)?;
            l.linear = true;
            l
        }
        RESOURCE_PITCH2D => {
            // devPtr, format + numChannels, width, height, pitchInBytes.
            let elem = elem_of(r.res[1] as u32)?;
            let ch = (r.res[1] >> 32) as u8;
            let mut l = Layout::packed(r.res[0], elem, ch, Geom::D2, r.res[2], r.res[3], 1, 1)
                .ok_or_else(invalid)?;
            l.pitch = r.res[4];
            l.slice = l.pitch.checked_mul(l.height).ok_or_else(invalid)?;
            l.layer_stride = l.slice;
            l.linear = true;
            l
        }
        RESOURCE_MIPMAPPED => mipmap(r.res[0] as usize as Handle)?.layout,
        _ => return Err(invalid()),
    };
    Ok((vm, lay))
}

/// The resource descriptor of a layout (what `cuTexObjectGetResourceDesc` returns; arrays
/// are described as the pitched memory they are, since the object does not keep the
/// `CUarray` handle; a chain of levels is the live mipmapped array whose memory it is).
fn resource_desc(l: &Layout) -> CUDA_RESOURCE_DESC {
    let fc = format_of(l.elem) as u64 | (l.channels as u64) << 32;
    let mut res = [0u64; 16];
    let mip = (l.levels > 1)
        .then(|| drv().ok())
        .flatten()
        .and_then(|d| d.mipmaps.all().into_iter().find(|(_, m)| m.layout == *l));
    let res_type = if let Some((h, _)) = mip {
        res[0] = h as u64;
        RESOURCE_MIPMAPPED
    } else if l.geom == Geom::D1 && l.linear {
        res[..3].copy_from_slice(&[l.base, fc, l.width * l.texel_bytes()]);
        RESOURCE_LINEAR
    } else {
        res[..5].copy_from_slice(&[l.base, fc, l.width, l.height, l.pitch]);
        RESOURCE_PITCH2D
    };
    CUDA_RESOURCE_DESC {
        res_type,
        res,
        flags: 0,
    }
}

fn sampler(t: &CUDA_TEXTURE_DESC, lay: &Layout) -> R<Sampler> {
    let mode = |m: u32| -> R<AddrMode> {
        Ok(match m {
            0 => AddrMode::Wrap,
            1 => AddrMode::Clamp,
            2 => AddrMode::Mirror,
            3 => AddrMode::Border,
            _ => return Err(invalid()),
        })
    };
    if t.flags & TRSF_SRGB != 0 {
        return Err(Error::loud(
            CUDA_ERROR_NOT_SUPPORTED,
            "sRGB texture reads are not supported",
        ));
    }
    let small_int = matches!(lay.elem, Elem::U8 | Elem::S8 | Elem::U16 | Elem::S16);
    Ok(Sampler {
        filter: match t.filter_mode {
            0 => Filter::Point,
            1 => Filter::Linear,
            _ => return Err(invalid()),
        },
        address: [
            mode(t.address_mode[0])?,
            mode(t.address_mode[1])?,
            mode(t.address_mode[2])?,
        ],
        normalized: t.flags & TRSF_NORMALIZED_COORDINATES != 0,
        // Without CU_TRSF_READ_AS_INTEGER, 8- and 16-bit integers read as normalized floats.
        read_float: small_int && t.flags & TRSF_READ_AS_INTEGER == 0,
        border: t.border_color,
        mip_filter: match t.mipmap_filter_mode {
            0 => Filter::Point,
            1 => Filter::Linear,
            _ => return Err(invalid()),
        },
        lod_bias: t.mipmap_level_bias,
        min_lod: t.min_mipmap_level_clamp,
        max_lod: t.max_mipmap_level_clamp,
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuTexObjectCreate(
    p: *mut u64,
    r: *const CUDA_RESOURCE_DESC,
    t: *const CUDA_TEXTURE_DESC,
    view: *const std::ffi::c_void,
) -> CUresult {
    api("cuTexObjectCreate", || {
        if p.is_null() || r.is_null() || t.is_null() {
            return Err(invalid());
        }
        if !view.is_null() {
            return Err(Error::loud(
                CUDA_ERROR_NOT_SUPPORTED,
                "texture resource views are not supported",
            ));
        }
        // SAFETY: the client's descriptors.
        let (r, t) = unsafe { (r.read_unaligned(), t.read_unaligned()) };
        let (vm, lay) = resource(&r)?;
        let s = sampler(&t, &lay)?;
        let h = vm
            .create_texture(lay, s)
            .map_err(|e| Error::quiet(CUDA_ERROR_INVALID_VALUE, e.to_string()))?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, h) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuSurfObjectCreate(p: *mut u64, r: *const CUDA_RESOURCE_DESC) -> CUresult {
    api("cuSurfObjectCreate", || {
        if p.is_null() || r.is_null() {
            return Err(invalid());
        }
        // SAFETY: the client's descriptor.
        let r = unsafe { r.read_unaligned() };
        if r.res_type != RESOURCE_ARRAY {
            return Err(invalid());
        }
        let (vm, lay) = resource(&r)?;
        let h = vm
            .create_surface(lay)
            .map_err(|e| Error::quiet(CUDA_ERROR_INVALID_VALUE, e.to_string()))?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, h) }
    })
}

/// The object of a handle on the current context's device, if it is a texture (`tex`) or a
/// surface.
fn object(h: u64, tex: bool) -> R<(Arc<ptxvm_vm::Device>, Object)> {
    let d = drv()?;
    let (_, ctx) = current()?;
    let vm = d.dev(ctx.dev)?.vm.clone();
    match vm.object(h) {
        Some(o @ Object::Texture(..)) if tex => Ok((vm, o)),
        Some(o @ Object::Surface(_)) if !tex => Ok((vm, o)),
        _ => Err(Error::code(CUDA_ERROR_INVALID_VALUE)),
    }
}

fn destroy(h: u64, tex: bool) -> R {
    let (vm, _) = object(h, tex)?;
    vm.destroy_object(h)
        .map(|_| ())
        .map_err(|_| Error::code(CUDA_ERROR_INVALID_VALUE))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuTexObjectDestroy(h: u64) -> CUresult {
    api("cuTexObjectDestroy", || destroy(h, true))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuSurfObjectDestroy(h: u64) -> CUresult {
    api("cuSurfObjectDestroy", || destroy(h, false))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuTexObjectGetResourceDesc(
    p: *mut CUDA_RESOURCE_DESC,
    h: u64,
) -> CUresult {
    api("cuTexObjectGetResourceDesc", || {
        let (_, o) = object(h, true)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, resource_desc(o.layout())) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuSurfObjectGetResourceDesc(
    p: *mut CUDA_RESOURCE_DESC,
    h: u64,
) -> CUresult {
    api("cuSurfObjectGetResourceDesc", || {
        let (_, o) = object(h, false)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, resource_desc(o.layout())) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuTexObjectGetTextureDesc(p: *mut CUDA_TEXTURE_DESC, h: u64) -> CUresult {
    api("cuTexObjectGetTextureDesc", || {
        let (_, o) = object(h, true)?;
        let Object::Texture(l, s) = o else {
            return Err(invalid());
        };
        let mut flags = if s.normalized {
            TRSF_NORMALIZED_COORDINATES
        } else {
            0
        };
        if !s.read_float && !l.elem.is_float() {
            flags |= TRSF_READ_AS_INTEGER;
        }
        let d = CUDA_TEXTURE_DESC {
            address_mode: s.address.map(|m| m.code()),
            filter_mode: (s.filter == Filter::Linear) as u32,
            flags,
            max_anisotropy: 0,
            mipmap_filter_mode: (s.mip_filter == Filter::Linear) as u32,
            mipmap_level_bias: s.lod_bias,
            min_mipmap_level_clamp: s.min_lod,
            max_mipmap_level_clamp: s.max_lod,
            border_color: s.border,
            reserved: [0; 12],
        };
        // SAFETY: the client's out-pointer.
        unsafe { out(p, d) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abi_sizes() {
        // sizeof in NVIDIA's cuda.h (x86-64).
        assert_eq!(std::mem::size_of::<CUDA_ARRAY_DESCRIPTOR>(), 24);
        assert_eq!(std::mem::size_of::<CUDA_ARRAY3D_DESCRIPTOR>(), 40);
        assert_eq!(std::mem::size_of::<CUDA_RESOURCE_DESC>(), 144);
        assert_eq!(std::mem::size_of::<CUDA_TEXTURE_DESC>(), 104);
    }
}
