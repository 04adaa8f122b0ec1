//! Handles: every opaque driver object (`CUcontext`, `CUmodule`, `CUstream`, ...) is an index
//! into a table, tagged with its kind and a generation counter. A handle is a pointer-sized
//! integer `kind << 48 | generation << 32 | index`; it is never a host pointer, so a stale,
//! foreign or garbage handle is answered with `CUDA_ERROR_INVALID_HANDLE` (or the kind's own
//! error), never dereferenced. The tag byte makes every handle a non-canonical address (a
//! client that dereferences one faults at once instead of reading garbage), and the top bit
//! stays clear so clients that hold handles as signed integers (cuda-python) see positive
//! values.

use std::sync::{Arc, Mutex, RwLock};

/// The kinds of handle (the tag byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Context = 0xc1,
    Module = 0xc2,
    Function = 0xc3,
    Stream = 0xc4,
    Event = 0xc5,
    Library = 0xc6,
    Kernel = 0xc7,
    Link = 0xc8,
    Pool = 0xc9,
    /// Physical memory of the virtual memory management API (`CUmemGenericAllocationHandle`).
    PhysMem = 0xca,
    /// A CUDA array (`CUarray`, `crate::texture`).
    Array = 0xcb,
    /// A multicast object (`cuMulticastCreate`, also a `CUmemGenericAllocationHandle`).
    Multicast = 0xcc,
    /// A mipmapped CUDA array (`CUmipmappedArray`, `crate::texture`).
    Mipmap = 0xcd,
}

/// The kind of a raw handle value, if it is one of ours.
pub fn kind_of(h: usize) -> Option<Kind> {
    let tag = (h as u64 >> 48) as u8;
    [
        Kind::Context,
        Kind::Module,
        Kind::Function,
        Kind::Stream,
        Kind::Event,
        Kind::Library,
        Kind::Kernel,
        Kind::Link,
        Kind::Pool,
        Kind::PhysMem,
        Kind::Array,
        Kind::Multicast,
        Kind::Mipmap,
    ]
    .into_iter()
    .find(|k| *k as u8 == tag)
}

struct Slot<T> {
    generation: u32,
    value: Option<Arc<T>>,
}

/// A table of live objects of one kind.
pub struct Table<T> {
    kind: Kind,
    slots: RwLock<Vec<Slot<T>>>,
    free: Mutex<Vec<u32>>,
}

const GEN_MASK: u64 = 0xffff;

impl<T> Table<T> {
    pub const fn new(kind: Kind) -> Table<T> {
        Table {
            kind,
            slots: RwLock::new(Vec::new()),
            free: Mutex::new(Vec::new()),
        }
    }

    fn encode(&self, index: u32, generation: u32) -> usize {
        (((self.kind as u64) << 48) | ((generation as u64 & GEN_MASK) << 32) | index as u64)
            as usize
    }

    fn decode(&self, h: usize) -> Option<(usize, u32)> {
        let h = h as u64;
        if h >> 48 != self.kind as u64 {
            return None;
        }
        Some(((h & 0xffff_ffff) as usize, ((h >> 32) & GEN_MASK) as u32))
    }

    /// Stores a value; returns its handle.
    pub fn insert(&self, value: Arc<T>) -> usize {
        let reuse = self.free.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut slots = self.slots.write().unwrap_or_else(|e| e.into_inner());
        match reuse.and_then(|i| slots.get_mut(i as usize).map(|s| (i, s))) {
            Some((i, s)) => {
                s.generation = (s.generation + 1) & GEN_MASK as u32;
                s.value = Some(value);
                self.encode(i, s.generation)
            }
            None => {
                let i = slots.len() as u32;
                slots.push(Slot {
                    generation: 1,
                    value: Some(value),
                });
                self.encode(i, 1)
            }
        }
    }

    /// The live value of a handle.
    pub fn get(&self, h: usize) -> Option<Arc<T>> {
        let (i, g) = self.decode(h)?;
        let slots = self.slots.read().unwrap_or_else(|e| e.into_inner());
        let s = slots.get(i)?;
        if s.generation != g {
            return None;
        }
        s.value.clone()
    }

    /// Replaces the value behind a live handle (the handle stays valid).
    pub fn replace(&self, h: usize, value: Arc<T>) -> bool {
        let Some((i, g)) = self.decode(h) else {
            return false;
        };
        let mut slots = self.slots.write().unwrap_or_else(|e| e.into_inner());
        match slots.get_mut(i) {
            Some(s) if s.generation == g => {
                s.value = Some(value);
                true
            }
            _ => false,
        }
    }

    /// Removes a handle; later uses of it are invalid.
    pub fn remove(&self, h: usize) -> Option<Arc<T>> {
        let (i, g) = self.decode(h)?;
        let v = {
            let mut slots = self.slots.write().unwrap_or_else(|e| e.into_inner());
            let s = slots.get_mut(i)?;
            if s.generation != g {
                return None;
            }
            s.value.take()
        };
        if v.is_some() {
            self.free
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(i as u32);
        }
        v
    }

    /// Every live handle and value.
    pub fn all(&self) -> Vec<(usize, Arc<T>)> {
        let slots = self.slots.read().unwrap_or_else(|e| e.into_inner());
        slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                s.value
                    .as_ref()
                    .map(|v| (self.encode(i as u32, s.generation), v.clone()))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_and_foreign_handles_are_rejected() {
        let t: Table<u32> = Table::new(Kind::Stream);
        let a = t.insert(Arc::new(1));
        assert_eq!(t.get(a).as_deref(), Some(&1));
        assert_eq!(kind_of(a), Some(Kind::Stream));
        assert!(t.remove(a).is_some());
        assert!(t.get(a).is_none());
        let b = t.insert(Arc::new(2));
        assert_ne!(a, b, "a reused slot gets a new generation");
        assert!(t.get(a).is_none());
        assert!(t.get(0).is_none() && t.get(1).is_none() && t.get(usize::MAX).is_none());
        assert!((b as i64) > 0, "handles are positive as signed integers");
        let other: Table<u32> = Table::new(Kind::Event);
        assert!(other.get(b).is_none());
        assert!(t.replace(b, Arc::new(3)));
        assert_eq!(t.get(b).as_deref(), Some(&3));
    }
}
