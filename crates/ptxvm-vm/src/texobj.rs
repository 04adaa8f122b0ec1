//! Texture and surface objects: the device's table of them, addressed by 64-bit handles
//! (`cudaTextureObject_t`, `cudaSurfaceObject_t`), and the library API that creates them
//! over device memory and binds `.texref`/`.surfref` module variables.
//!
//! A handle is a small table key (1, 2, 3, ...; never 0, never reused while the device
//! lives, never a host pointer); an unknown or destroyed handle makes the instruction that
//! uses it fault. An object does not own its memory: its texels live in a device allocation
//! (the caller's array or pitched linear memory), and every texel access is a checked guest
//! access, so freeing the memory under a live object makes its reads fault as a use after
//! free. A `.texref`/`.surfref` module variable is 8 bytes of global memory holding a
//! handle: binding one writes the handle there, and the instructions given the variable
//! (or its address, `mov.u64 %rd, tex_ref`) read it.

use crate::device::{Device, ModuleId};
use crate::error::VmError;
use crate::ops::texture::{Layout, Sampler};
use std::collections::HashMap;
use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// Most texture and surface objects alive at once on a device (CUDA documents none; real
/// drivers allow about a million).
pub const MAX_OBJECTS: usize = 1 << 20;

/// A texture (a resource and how to sample it) or a surface (a resource).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Object {
    Texture(Layout, Sampler),
    Surface(Layout),
}

impl Object {
    pub fn layout(&self) -> &Layout {
        match self {
            Object::Texture(l, _) | Object::Surface(l) => l,
        }
    }
}

/// The device's objects.
#[derive(Debug, Default)]
pub struct Objects {
    map: RwLock<HashMap<u64, Object>>,
    next: AtomicU64,
}

impl Objects {
    /// The object of a handle.
    pub fn get(&self, h: u64) -> Option<Object> {
        self.map
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&h)
            .copied()
    }

    fn insert(&self, o: Object) -> Result<u64, String> {
        let mut m = self.map.write().unwrap_or_else(|e| e.into_inner());
        if m.len() >= MAX_OBJECTS {
            return Err(format!(
                "too many texture and surface objects (ptxvm's limit is {MAX_OBJECTS})"
            ));
        }
        let h = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        m.insert(h, o);
        Ok(h)
    }

    fn remove(&self, h: u64) -> Option<Object> {
        self.map
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&h)
    }
}

impl Device {
    /// Checks that a layout is consistent and lies inside one live allocation.
    fn check_layout(&self, lay: &Layout) -> Result<(), VmError> {
        lay.validate().map_err(VmError::Usage)?;
        let span = lay.span().unwrap_or(u64::MAX);
        let a = self.mem.lookup(lay.base).ok_or_else(|| {
            VmError::usage(format!(
                "the resource's base {:#x} is not in a live device allocation",
                lay.base
            ))
        })?;
        let end = lay.base.checked_add(span);
        if end.is_none_or(|e| e > a.base + a.size) {
            return Err(VmError::usage(format!(
                "the resource ({span} bytes from {:#x}) does not fit in its allocation ({:#x}, {} bytes)",
                lay.base, a.base, a.size
            )));
        }
        Ok(())
    }

    /// Creates a texture object (`cuTexObjectCreate`) over texels in device memory: one
    /// level, or a chain of mipmap levels (`Layout::levels`, sampled by the sampler's mipmap
    /// fields).
    pub fn create_texture(&self, lay: Layout, smp: Sampler) -> Result<u64, VmError> {
        self.check_layout(&lay)?;
        smp.validate(&lay).map_err(VmError::Usage)?;
        self.mem
            .objects()
            .insert(Object::Texture(lay, smp))
            .map_err(VmError::Usage)
    }

    /// Creates a surface object (`cuSurfObjectCreate`): over one level (a mipmapped
    /// resource's level is [`Layout::level`]).
    pub fn create_surface(&self, lay: Layout) -> Result<u64, VmError> {
        if lay.levels != 1 {
            return Err(VmError::usage(format!(
                "a surface is one mipmap level, not {} (take one with Layout::level)",
                lay.levels
            )));
        }
        self.check_layout(&lay)?;
        self.mem
            .objects()
            .insert(Object::Surface(lay))
            .map_err(VmError::Usage)
    }

    /// Destroys a texture or surface object; later uses of its handle fault.
    pub fn destroy_object(&self, h: u64) -> Result<Object, VmError> {
        self.mem
            .objects()
            .remove(h)
            .ok_or_else(|| VmError::usage(format!("{h:#x} is not a texture or surface object")))
    }

    /// The object of a handle (`cuTexObjectGetResourceDesc`).
    pub fn object(&self, h: u64) -> Option<Object> {
        self.mem.objects().get(h)
    }

    /// Binds a module's `.texref`, `.surfref` or `.samplerref` variable to an object (what
    /// `cudaBindTextureToArray` does for a texture reference; a `.samplerref` names the
    /// texture object whose sampling state `[a, b, c]` uses).
    pub fn bind_ref(&self, m: ModuleId, name: &str, h: u64) -> Result<(), VmError> {
        if self.object(h).is_none() {
            return Err(VmError::usage(format!(
                "{h:#x} is not a texture or surface object"
            )));
        }
        let (addr, size) = self.global(m, name)?;
        if size != 8 {
            return Err(VmError::usage(format!(
                "`{name}` ({size} bytes) is not a .texref or .surfref variable"
            )));
        }
        self.write(addr, &h.to_le_bytes())
    }
}
