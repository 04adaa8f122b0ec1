//! The sandboxed device address space. Device addresses are 64-bit numbers the VM owns;
//! no guest value ever becomes a host pointer. Global allocations live in an address map
//! (aligned to 256 bytes like `cudaMalloc`, with a guard gap between them); shared and
//! local memory have generic windows of their own, mapped by `cvta`.
//!
//! Invariant: every read or write goes through [`GlobalMemory::read`]/[`GlobalMemory::write`]
//! (or the window checks of the executor), which bounds-check against a live allocation.

use std::collections::BTreeMap;

/// Start of global allocations in the generic address space.
pub const GLOBAL_BASE: u64 = 0x0000_7f00_0000_0000;
/// Generic window of the current CTA's shared memory: `generic = SHARED_WINDOW + offset`.
pub const SHARED_WINDOW: u64 = 0x0000_1000_0000_0000;
/// Size of the shared window.
pub const SHARED_WINDOW_SIZE: u64 = 1 << 32;
/// Generic window of the current thread's local memory.
pub const LOCAL_WINDOW: u64 = 0x0000_2000_0000_0000;
/// Size of the local window.
pub const LOCAL_WINDOW_SIZE: u64 = 1 << 32;
/// Functions' addresses (for function pointers): function `i` is at `FUNC_BASE + 16 * i`.
/// No memory lives there; only an indirect `call` accepts these addresses.
pub const FUNC_BASE: u64 = 0x0000_3000_0000_0000;
/// Alignment of allocations.
pub const ALLOC_ALIGN: u64 = 256;

/// One allocation.
#[derive(Debug)]
pub struct Alloc {
    pub size: u64,
    pub data: Vec<u8>,
    /// False once freed (kept to explain use-after-free).
    pub live: bool,
    /// What it is, for diagnostics (`cudaMalloc`, `global var x`, `const var y`).
    pub what: String,
}

/// Why an access failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccessError {
    OutOfBounds(String),
    UseAfterFree(String),
}

/// The global memory of a device.
#[derive(Debug)]
pub struct GlobalMemory {
    allocs: BTreeMap<u64, Alloc>,
    next: u64,
    /// Bytes currently allocated.
    pub used: u64,
    /// Allocation limit in bytes.
    pub limit: u64,
    /// Live device-heap allocations (`malloc` from device code): base → size.
    heap: BTreeMap<u64, u64>,
    /// Bytes of live device-heap allocations.
    pub heap_used: u64,
    /// Limit of the device heap in bytes (default [`DEFAULT_HEAP_LIMIT`], like CUDA's
    /// `cudaLimitMallocHeapSize`). Device-heap blocks are ordinary allocations in this
    /// address space (bounds-checked, 256-byte aligned) and persist across launches until
    /// freed by device code.
    pub heap_limit: u64,
}

/// Default size of the device heap: 8 MiB.
pub const DEFAULT_HEAP_LIMIT: u64 = 8 << 20;

impl GlobalMemory {
    pub fn new(limit: u64) -> GlobalMemory {
        GlobalMemory {
            allocs: BTreeMap::new(),
            next: GLOBAL_BASE,
            used: 0,
            limit,
            heap: BTreeMap::new(),
            heap_used: 0,
            heap_limit: DEFAULT_HEAP_LIMIT,
        }
    }

    /// Device-side `malloc`: `None` when the heap limit or device memory is exhausted
    /// (the guest sees a null pointer) or for a zero size.
    pub fn heap_alloc(&mut self, size: u64) -> Option<u64> {
        if size == 0 || self.heap_used.checked_add(size)? > self.heap_limit {
            return None;
        }
        let a = self.alloc(size, "device-heap allocation (malloc)")?;
        self.heap.insert(a, size);
        self.heap_used += size;
        Some(a)
    }

    /// Device-side `free`: the pointer must come from [`GlobalMemory::heap_alloc`] and be
    /// live; `free(NULL)` does nothing.
    pub fn heap_free(&mut self, addr: u64) -> Result<(), AccessError> {
        if addr == 0 {
            return Ok(());
        }
        match self.heap.remove(&addr) {
            Some(size) => {
                self.heap_used -= size;
                self.free(addr).map_err(AccessError::UseAfterFree)
            }
            None => {
                if self.allocs.get(&addr).is_some_and(|a| !a.live) {
                    Err(AccessError::UseAfterFree(format!(
                        "free of {addr:#x}: double free of a device-heap block"
                    )))
                } else {
                    Err(AccessError::OutOfBounds(format!(
                        "free of {addr:#x}, which is not a block returned by device malloc"
                    )))
                }
            }
        }
    }

    /// Allocates `size` zeroed bytes; returns the device address.
    pub fn alloc(&mut self, size: u64, what: impl Into<String>) -> Option<u64> {
        if self.used.checked_add(size)? > self.limit {
            return None;
        }
        let addr = self.next;
        // A guard gap of one alignment unit keeps an overrun from landing in the next block.
        self.next = addr + size.div_ceil(ALLOC_ALIGN).max(1) * ALLOC_ALIGN + ALLOC_ALIGN;
        self.used += size;
        self.allocs.insert(
            addr,
            Alloc {
                size,
                data: vec![0; size as usize],
                live: true,
                what: what.into(),
            },
        );
        Some(addr)
    }

    /// Frees an allocation by its base address.
    pub fn free(&mut self, addr: u64) -> Result<(), String> {
        match self.allocs.get_mut(&addr) {
            Some(a) if a.live => {
                a.live = false;
                self.used -= a.size;
                a.data = Vec::new();
                Ok(())
            }
            Some(_) => Err(format!("double free of {addr:#x}")),
            None => Err(format!(
                "free of {addr:#x}, which is not the start of an allocation"
            )),
        }
    }

    /// The allocation containing `[addr, addr+len)`, or an explanation.
    fn find(&self, addr: u64, len: u64) -> Result<(u64, &Alloc), AccessError> {
        if let Some((&base, a)) = self.allocs.range(..=addr).next_back() {
            let end = base + a.size;
            if addr >= base && addr.checked_add(len).is_some_and(|e| e <= end) {
                if !a.live {
                    return Err(AccessError::UseAfterFree(format!(
                        "{len}-byte access at {addr:#x} is inside freed allocation {base:#x} ({} bytes, {})",
                        a.size, a.what
                    )));
                }
                return Ok((base, a));
            }
        }
        Err(AccessError::OutOfBounds(self.describe_miss(addr, len)))
    }

    /// "nearest allocation" text for an address that hits none.
    pub fn describe_miss(&self, addr: u64, len: u64) -> String {
        let before = self.allocs.range(..=addr).next_back();
        let after = self.allocs.range(addr.saturating_add(1)..).next();
        let mut s = format!("{len}-byte access at {addr:#x} is outside every allocation");
        let near = match (before, after) {
            (Some((&b, a)), Some((&n, na))) => {
                if addr.saturating_sub(b + a.size) <= n.saturating_sub(addr) {
                    Some((b, a))
                } else {
                    Some((n, na))
                }
            }
            (Some((&b, a)), None) => Some((b, a)),
            (None, Some((&n, na))) => Some((n, na)),
            (None, None) => None,
        };
        if let Some((b, a)) = near {
            let end = b + a.size;
            let rel = if addr >= end {
                format!("{} bytes past its end", addr - end)
            } else if addr < b {
                format!("{} bytes before its start", b - addr)
            } else {
                format!("overrunning its end {end:#x}")
            };
            s.push_str(&format!(
                "; nearest allocation is {b:#x}..{end:#x} ({} bytes, {}{}), {rel}",
                a.size,
                a.what,
                if a.live { "" } else { ", freed" }
            ));
        }
        s
    }

    /// Reads bytes.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), AccessError> {
        let (base, a) = self.find(addr, out.len() as u64)?;
        let off = (addr - base) as usize;
        out.copy_from_slice(&a.data[off..off + out.len()]);
        Ok(())
    }

    /// Writes bytes.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), AccessError> {
        let (base, _) = self.find(addr, data.len() as u64)?;
        let a = self.allocs.get_mut(&base).expect("found above");
        let off = (addr - base) as usize;
        a.data[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// Fills bytes.
    pub fn fill(&mut self, addr: u64, len: u64, byte: u8) -> Result<(), AccessError> {
        let (base, _) = self.find(addr, len)?;
        let a = self.allocs.get_mut(&base).expect("found above");
        let off = (addr - base) as usize;
        a.data[off..off + len as usize].fill(byte);
        Ok(())
    }

    /// Whether `addr` lies in a live allocation of a `.const` variable.
    pub fn is_const(&self, addr: u64) -> bool {
        self.find(addr, 1)
            .is_ok_and(|(_, a)| a.what.starts_with(".const "))
    }

    /// Whether `addr` lies in a live allocation.
    pub fn contains(&self, addr: u64) -> bool {
        self.find(addr, 1).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_and_bounds_checked() {
        let mut m = GlobalMemory::new(1 << 20);
        let a = m.alloc(10, "a").unwrap();
        let b = m.alloc(300, "b").unwrap();
        assert_eq!(a % ALLOC_ALIGN, 0);
        assert_eq!(b % ALLOC_ALIGN, 0);
        m.write(a + 6, &[1, 2, 3, 4]).unwrap();
        let mut buf = [0u8; 4];
        m.read(a + 6, &mut buf).unwrap();
        assert_eq!(buf, [1, 2, 3, 4]);
        let e = m.read(a + 8, &mut buf).unwrap_err();
        assert!(
            matches!(e, AccessError::OutOfBounds(ref s) if s.contains("nearest allocation")),
            "{e:?}"
        );
        m.free(a).unwrap();
        assert!(matches!(
            m.read(a, &mut buf),
            Err(AccessError::UseAfterFree(_))
        ));
        assert!(m.free(a).is_err());
        assert!(m.alloc(1 << 21, "big").is_none());
    }
}

/// Global memory shared by the host threads that run CTAs in parallel. Every access locks
/// the memory briefly; atomic read-modify-writes also hold the atomics lock for their
/// whole duration, so guest atomics are atomic across CTAs (plain accesses racing with
/// them are a race in the guest program, as on a GPU).
#[derive(Debug)]
pub struct SharedMemory {
    inner: std::sync::Mutex<GlobalMemory>,
    atomics: std::sync::Mutex<()>,
}

impl SharedMemory {
    pub fn new(m: GlobalMemory) -> SharedMemory {
        SharedMemory {
            inner: std::sync::Mutex::new(m),
            atomics: std::sync::Mutex::new(()),
        }
    }

    pub fn into_inner(self) -> GlobalMemory {
        self.inner.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GlobalMemory> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Holds the atomics lock (for a read-modify-write).
    pub fn atomic(&self) -> std::sync::MutexGuard<'_, ()> {
        self.atomics.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), AccessError> {
        self.lock().read(addr, out)
    }

    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), AccessError> {
        self.lock().write(addr, data)
    }

    pub fn contains(&self, addr: u64) -> bool {
        self.lock().contains(addr)
    }

    pub fn is_const(&self, addr: u64) -> bool {
        self.lock().is_const(addr)
    }

    pub fn heap_alloc(&self, size: u64) -> Option<u64> {
        self.lock().heap_alloc(size)
    }

    pub fn heap_free(&self, addr: u64) -> Result<(), AccessError> {
        self.lock().heap_free(addr)
    }
}
