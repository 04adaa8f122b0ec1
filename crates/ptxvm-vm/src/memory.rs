//! The sandboxed device address space. Device addresses are 64-bit numbers the VM owns, and
//! (as with CUDA's unified addressing) a device address *is* the host address of the bytes:
//! device, host-pinned and managed allocations live in one region of host virtual memory that
//! the address space reserves up front (`PROT_NONE`, no swap reservation) and commits page by
//! page on allocation, so the host reads managed memory and mapped pinned memory directly, and
//! a driver copy is a `memcpy`. Host memory the program registers (`cuMemHostRegister`) joins
//! the map as an allocation whose bytes stay where they are.
//!
//! Invariants:
//! - No guest value ever becomes a host pointer unchecked: every guest access goes through
//!   [`AddressSpace::read_guest`]/[`AddressSpace::write_guest`] (or the executor's window
//!   checks for shared/local/param), which bounds-check against a live allocation; host-side
//!   copies ([`AddressSpace::read`], [`AddressSpace::write`], ...) check the device side too.
//! - Allocations are 256-byte aligned (as `cudaMalloc`) with a guard gap, and a freed
//!   allocation's record is kept (up to [`FREED_RECORDS`]) to explain use-after-free.
//!   Addresses are not reused until the region's bump pointer reaches its end.
//! - `.const` variables are read-only to the guest; the host may write them
//!   (`cuMemcpyHtoD` to a `__constant__` symbol).
//! - All methods take `&self`: host threads running CTAs, driver streams and the host program
//!   use one address space at once. The allocation map is behind a reader-writer lock; a
//!   host-side copy holds it (shared) for the copy. Engines look an allocation up once
//!   ([`AddressSpace::span`]) and then access it with no lock while the map's
//!   [`AddressSpace::epoch`] is unchanged. Plain guest accesses that race are races in the
//!   guest program (as on a GPU); guest atomics are the host's atomic instructions on the
//!   guest's bytes ([`AddressSpace::atomic_rmw`]), so they are atomic across CTAs and
//!   streams without a lock.
//! - Freeing never pulls memory from under a running kernel: a freed allocation leaves the
//!   map at once (every checked access to it faults as a use after free) and its pages'
//!   memory goes back to the host, but while any launch is in flight
//!   ([`AddressSpace::launch_guard`]) the pages stay mapped, reading zeros; they become
//!   inaccessible, and their addresses reusable, when the last launch ends. An access that
//!   raced with the free (a guest bug) touches pages the VM owns, never the host's.
//! - Shared, local and function addresses have generic windows of their own (below); the
//!   windows are reserved in host virtual memory too, so no allocation or registered host
//!   range can ever overlap them.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Generic window of the current CTA's shared memory: `generic = SHARED_WINDOW + offset`.
/// It also holds the cluster's shared memory (see [`CLUSTER_SHARED_STRIDE`]).
pub const SHARED_WINDOW: u64 = 0x0000_1000_0000_0000;
/// Size of the shared window.
pub const SHARED_WINDOW_SIZE: u64 = 1 << 32;
/// The layout of the shared::cluster window (a shared address, or its generic address
/// `SHARED_WINDOW + a`): `[0, STRIDE)` is the executing CTA's own shared memory (the
/// shared::cta window, which PTX makes a part of the shared::cluster window), and
/// `(r + 1) * STRIDE + offset` is byte `offset` of the shared memory of the cluster's CTA of
/// rank `r` (what `mapa` gives, the same address in every CTA of the cluster). A CTA's
/// shared memory (at most 227 KiB) is far smaller than the stride.
pub const CLUSTER_SHARED_STRIDE: u64 = 1 << 24;
/// Generic window of the current thread's local memory.
pub const LOCAL_WINDOW: u64 = 0x0000_2000_0000_0000;
/// Size of the local window.
pub const LOCAL_WINDOW_SIZE: u64 = 1 << 32;
/// Generic window of parameter space: `PARAM_WINDOW + offset` is byte `offset` of the
/// launch's kernel parameters (read-only; what `cvta.param` gives for a `__grid_constant__`
/// parameter), `PARAM_WINDOW + PARAM_WINDOW_SIZE / 2 + offset` byte `offset` of the current
/// thread's parameter area (function parameters).
pub const PARAM_WINDOW: u64 = 0x0000_4000_0000_0000;
/// Size of the parameter window (two halves of 4 GiB).
pub const PARAM_WINDOW_SIZE: u64 = 1 << 33;
/// Functions' addresses (for function pointers): function `i` is at `FUNC_BASE + 16 * i`.
/// No memory lives there; only an indirect `call` accepts these addresses.
pub const FUNC_BASE: u64 = 0x0000_3000_0000_0000;
/// Size of the function window.
pub const FUNC_WINDOW_SIZE: u64 = 1 << 32;
/// Alignment of allocations.
pub const ALLOC_ALIGN: u64 = 256;
/// Freed allocations whose records are kept to explain a use after free.
pub const FREED_RECORDS: usize = 65536;
/// Virtual address space reserved for allocations (1 TiB; halved until the host grants it,
/// e.g. under `ulimit -v`). Only touched pages use memory.
const REGION_RESERVE: u64 = 1 << 40;
/// Where the region is reserved when that range is free: above the generic windows, far
/// below where Linux places mappings by default.
const REGION_HINT: u64 = 0x0000_5000_0000_0000;
/// Default size of the device heap: 8 MiB (CUDA's `cudaLimitMallocHeapSize` default).
pub const DEFAULT_HEAP_LIMIT: u64 = 8 << 20;

/// What an allocation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocKind {
    /// Device memory (`cuMemAlloc`, `ptxvm run` buffers).
    Device,
    /// Page-locked host memory allocated by the driver (`cuMemAllocHost`, `cuMemHostAlloc`).
    Host,
    /// Managed memory (`cuMemAllocManaged`).
    Managed,
    /// Host memory of the program, registered with `cuMemHostRegister` (not owned).
    Registered,
    /// A module's `.global` variable.
    Global,
    /// A module's `.const` variable (read-only to the guest).
    Const,
    /// A block of the device heap (device-side `malloc`).
    Heap,
}

/// One allocation.
#[derive(Debug, Clone)]
pub struct Alloc {
    pub size: u64,
    pub kind: AllocKind,
    /// False once freed (kept to explain use-after-free).
    pub live: bool,
    /// What it is, for diagnostics (`device allocation`, ".const variable `y`").
    pub what: String,
}

/// A live allocation as the host sees it (`cuPointerGetAttribute`, `cuMemGetAddressRange`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocInfo {
    pub base: u64,
    pub size: u64,
    pub kind: AllocKind,
}

/// Why an access failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccessError {
    OutOfBounds(String),
    UseAfterFree(String),
    /// A guest write to read-only memory (`.const`).
    ReadOnly(String),
    /// The launch's memory budget for thread state (local memory pages) is used up.
    OutOfMemory(String),
}

impl AccessError {
    pub fn message(&self) -> &str {
        match self {
            AccessError::OutOfBounds(m)
            | AccessError::UseAfterFree(m)
            | AccessError::ReadOnly(m)
            | AccessError::OutOfMemory(m) => m,
        }
    }
}

impl std::fmt::Display for AccessError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

/// Why an allocation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllocError {
    /// The allocation would exceed the device's memory limit.
    Limit { size: u64, used: u64, limit: u64 },
    /// The host refused the memory (address space exhausted, `mprotect` failed).
    Host(String),
}

impl std::fmt::Display for AllocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AllocError::Limit { size, used, limit } => write!(
                f,
                "out of device memory: {size} bytes requested, {used} of {limit} bytes in use"
            ),
            AllocError::Host(m) => write!(f, "out of memory: {m}"),
        }
    }
}

/// The reserved host region allocations are carved from.
#[derive(Debug)]
struct Region {
    base: u64,
    size: u64,
    /// Next unused offset.
    bump: u64,
    /// Freed ranges (offset → length), reused once the bump pointer reaches the end.
    free: BTreeMap<u64, u64>,
}

#[derive(Debug)]
struct State {
    region: Option<Region>,
    /// Address ranges reserved by the virtual memory management API (`cuMemAddressReserve`):
    /// base → size. Mappings inside them become allocations.
    reservations: BTreeMap<u64, u64>,
    allocs: BTreeMap<u64, Alloc>,
    /// Freed records in the order they were freed (trimmed to [`FREED_RECORDS`]).
    freed: std::collections::VecDeque<u64>,
    used: u64,
    limit: u64,
    /// Live device-heap allocations (`malloc` from device code): base → size.
    heap: BTreeMap<u64, u64>,
    /// Freed region ranges (address, size) waiting for the last launch in flight to end
    /// before their pages are given back.
    pending: Vec<(u64, u64)>,
    heap_used: u64,
    heap_limit: u64,
    /// Multicast mappings (`multimem.*` addresses): base → size. With one device a
    /// multicast range is the bound memory itself, so each lies inside a live device
    /// allocation; freeing or unmapping that allocation ends the mapping.
    multicast: BTreeMap<u64, u64>,
}

/// The device's address space.
#[derive(Debug)]
pub struct AddressSpace {
    state: RwLock<State>,
    /// Serialises the atomic forms the host has no instruction for (128-bit).
    atomics: Mutex<()>,
    /// Bumped whenever an allocation stops being accessible (free, unmap, unregister): a
    /// [`Span`] looked up under an older epoch must be looked up again.
    epoch: AtomicU64,
    /// Launches running now (see [`AddressSpace::launch_guard`]).
    in_flight: AtomicUsize,
    /// The device's texture and surface objects (`crate::texobj`).
    objects: crate::texobj::Objects,
}

/// A live allocation an engine may access without a lock while the address space's epoch
/// is the one it was found under: `[lo, hi)`, and whether the guest may write it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub lo: u64,
    pub hi: u64,
    pub writable: bool,
}

impl Span {
    /// True when `[addr, addr+len)` lies inside.
    #[inline(always)]
    pub fn holds(&self, addr: u64, len: u64) -> bool {
        addr >= self.lo && addr.wrapping_add(len) <= self.hi && addr.wrapping_add(len) >= addr
    }
}

/// Marks a launch in flight for as long as it lives (see [`AddressSpace::launch_guard`]).
pub struct LaunchGuard<'a> {
    mem: &'a AddressSpace,
}

impl Drop for LaunchGuard<'_> {
    fn drop(&mut self) {
        if self.mem.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
            let mut st = self.mem.wr();
            if self.mem.in_flight.load(Ordering::SeqCst) == 0 {
                AddressSpace::release_pending(&mut st);
            }
        }
    }
}

/// Why an atomic read-modify-write failed: the error, and whether it was the write (a
/// read-only allocation) rather than the read.
pub type RmwError = (AccessError, bool);

fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 { p as u64 } else { 4096 }
}

/// Reserves `size` bytes of address space with no access, at `hint` exactly when `fixed`.
fn reserve(hint: u64, size: u64, fixed: bool) -> Option<u64> {
    let flags = libc::MAP_PRIVATE
        | libc::MAP_ANONYMOUS
        | libc::MAP_NORESERVE
        | if fixed { libc::MAP_FIXED_NOREPLACE } else { 0 };
    // SAFETY: an anonymous PROT_NONE mapping touches no existing memory (MAP_FIXED_NOREPLACE
    // fails instead of replacing a mapping).
    let p = unsafe {
        libc::mmap(
            hint as *mut libc::c_void,
            size as usize,
            libc::PROT_NONE,
            flags,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return None;
    }
    if fixed && p as u64 != hint {
        // An old kernel ignored MAP_FIXED_NOREPLACE and placed it elsewhere: give it back.
        // SAFETY: unmapping exactly the mapping just made.
        unsafe { libc::munmap(p, size as usize) };
        return None;
    }
    Some(p as u64)
}

/// Reserves the generic windows once per process, so host memory can never land in them.
fn reserve_windows() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for (base, size) in [
            (SHARED_WINDOW, SHARED_WINDOW_SIZE),
            (LOCAL_WINDOW, LOCAL_WINDOW_SIZE),
            (PARAM_WINDOW, PARAM_WINDOW_SIZE),
            (FUNC_BASE, FUNC_WINDOW_SIZE),
        ] {
            // Best effort: if something already lives there the reservation fails, and
            // generic addresses in the window keep meaning shared/local/function addresses.
            let _ = reserve(base, size, true);
        }
    });
}

impl Region {
    fn new() -> Option<Region> {
        reserve_windows();
        let mut size = REGION_RESERVE;
        while size >= 1 << 30 {
            // At a fixed place when it is free, so device addresses (in diagnostics, in
            // memory a kernel writes) repeat from run to run; anywhere otherwise.
            if let Some(base) = reserve(REGION_HINT, size, true).or_else(|| reserve(0, size, false))
            {
                return Some(Region {
                    base,
                    size,
                    bump: 0,
                    free: BTreeMap::new(),
                });
            }
            size /= 2;
        }
        None
    }

    /// Finds room for `span` bytes; returns the address.
    fn place(&mut self, span: u64) -> Option<(u64, bool)> {
        if let Some(end) = self.bump.checked_add(span)
            && end <= self.size
        {
            let a = self.base + self.bump;
            self.bump = end;
            return Some((a, false));
        }
        // The region is used up once: reuse freed ranges, first fit.
        let (&off, &len) = self.free.iter().find(|&(_, &len)| len >= span)?;
        self.free.remove(&off);
        if len > span {
            self.free.insert(off + span, len - span);
        }
        Some((self.base + off, true))
    }

    /// Makes `[addr, addr+len)` readable and writable.
    fn commit(&self, addr: u64, len: u64) -> Result<(), String> {
        let ps = page_size();
        let lo = addr / ps * ps;
        let hi = (addr + len).div_ceil(ps) * ps;
        // SAFETY: the range lies inside this region's reservation.
        let r = unsafe {
            libc::mprotect(
                lo as *mut libc::c_void,
                (hi - lo) as usize,
                libc::PROT_READ | libc::PROT_WRITE,
            )
        };
        if r != 0 {
            return Err(format!(
                "the host refused to commit {} bytes ({})",
                hi - lo,
                std::io::Error::last_os_error()
            ));
        }
        Ok(())
    }

    /// The whole pages of `[addr, addr+len)`.
    fn whole_pages(addr: u64, len: u64) -> Option<(u64, u64)> {
        let ps = page_size();
        let lo = addr.div_ceil(ps) * ps;
        let hi = (addr + len) / ps * ps;
        (hi > lo).then_some((lo, hi))
    }

    /// Gives the memory of the whole pages of `[addr, addr+len)` back to the host; the
    /// pages stay mapped (reading zeros) until [`Region::seal`].
    fn discard(&self, addr: u64, len: u64) {
        if let Some((lo, hi)) = Self::whole_pages(addr, len) {
            // SAFETY: whole pages inside this region that belong to the freed allocation only.
            unsafe {
                libc::madvise(
                    lo as *mut libc::c_void,
                    (hi - lo) as usize,
                    libc::MADV_DONTNEED,
                );
            }
        }
    }

    /// Makes the whole pages of a freed `[addr, addr+len)` inaccessible again (and
    /// discards what a racing access wrote there).
    fn seal(&self, addr: u64, len: u64) {
        if let Some((lo, hi)) = Self::whole_pages(addr, len) {
            // SAFETY: as in `discard`; no launch runs, so no engine holds a span of them.
            unsafe {
                libc::madvise(
                    lo as *mut libc::c_void,
                    (hi - lo) as usize,
                    libc::MADV_DONTNEED,
                );
                libc::mprotect(lo as *mut libc::c_void, (hi - lo) as usize, libc::PROT_NONE);
            }
        }
    }
}

impl Drop for AddressSpace {
    fn drop(&mut self) {
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = &st.region {
            // SAFETY: the region was mapped by this address space and nothing refers to it
            // once the address space is gone.
            unsafe { libc::munmap(r.base as *mut libc::c_void, r.size as usize) };
        }
    }
}

impl AddressSpace {
    /// An empty address space that may allocate up to `limit` bytes. The host region is
    /// reserved at the first allocation.
    pub fn new(limit: u64) -> AddressSpace {
        AddressSpace {
            state: RwLock::new(State {
                region: None,
                reservations: BTreeMap::new(),
                allocs: BTreeMap::new(),
                freed: std::collections::VecDeque::new(),
                used: 0,
                limit,
                heap: BTreeMap::new(),
                heap_used: 0,
                heap_limit: DEFAULT_HEAP_LIMIT,
                pending: Vec::new(),
                multicast: BTreeMap::new(),
            }),
            atomics: Mutex::new(()),
            epoch: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            objects: crate::texobj::Objects::default(),
        }
    }

    /// The device's texture and surface objects.
    pub fn objects(&self) -> &crate::texobj::Objects {
        &self.objects
    }

    /// Marks a launch in flight until the guard is dropped: memory freed meanwhile stays
    /// mapped (inaccessible through every check) until no launch runs.
    pub fn launch_guard(&self) -> LaunchGuard<'_> {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        LaunchGuard { mem: self }
    }

    /// The map's epoch: it changes whenever an allocation stops being accessible.
    #[inline(always)]
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    /// The live allocation holding `addr`, for lock-free access while [`Self::epoch`] stays
    /// what it was before this call.
    pub fn span(&self, addr: u64) -> Option<Span> {
        let st = self.rd();
        let (&base, a) = st.allocs.range(..=addr).next_back()?;
        (a.live && addr < base + a.size).then_some(Span {
            lo: base,
            hi: base + a.size,
            writable: a.kind != AllocKind::Const,
        })
    }

    /// Gives back the pages of frees deferred while launches ran.
    fn release_pending(st: &mut State) {
        let pending = std::mem::take(&mut st.pending);
        if let Some(r) = &mut st.region {
            for (addr, size) in pending {
                r.seal(addr, size);
                let span = size.next_multiple_of(ALLOC_ALIGN) + ALLOC_ALIGN;
                r.free.insert(addr - r.base, span);
            }
        }
    }

    /// An atomic read-modify-write of `width` bytes (2, 4, 8 or 16; `addr` aligned to it) of
    /// guest memory: `f` maps the old value to the new one (it may run more than once, on
    /// each value seen). Returns the old value (16 bytes: as two little-endian halves).
    pub fn atomic_rmw(
        &self,
        addr: u64,
        width: usize,
        mut f: impl FnMut(u128) -> u128,
    ) -> Result<u128, RmwError> {
        {
            let st = self.rd();
            let (base, a) = Self::find(&st, addr, width as u64).map_err(|e| (e, false))?;
            if a.kind == AllocKind::Const {
                return Err((
                    AccessError::ReadOnly(format!(
                        "{width}-byte write at {addr:#x} into {} ({base:#x}..{:#x}): constant memory is read-only",
                        a.what,
                        base + a.size
                    )),
                    true,
                ));
            }
        }
        // SAFETY (all arms): `[addr, addr+width)` lies in a live, writable allocation (pages
        // stay mapped while a launch runs, see `launch_guard`) and `addr` is aligned to
        // `width` (the callers' alignment check), as the atomic types require.
        macro_rules! cas {
            ($at:ty, $t:ty) => {{
                let cell = unsafe { <$at>::from_ptr(addr as *mut $t) };
                let mut old = cell.load(Ordering::Relaxed);
                loop {
                    let new = f(old as u128) as $t;
                    match cell.compare_exchange_weak(old, new, Ordering::SeqCst, Ordering::Relaxed)
                    {
                        Ok(_) => break Ok(old as u128),
                        Err(seen) => old = seen,
                    }
                }
            }};
        }
        match width {
            2 => cas!(AtomicU16, u16),
            4 => cas!(AtomicU32, u32),
            8 => cas!(AtomicU64, u64),
            _ => {
                let _g = self.atomic();
                let mut b = [0u8; 16];
                let n = width.min(16);
                unsafe { std::ptr::copy(addr as *const u8, b.as_mut_ptr(), n) };
                let old = u128::from_le_bytes(b);
                let new = f(old).to_le_bytes();
                unsafe { std::ptr::copy(new.as_ptr(), addr as *mut u8, n) };
                Ok(old)
            }
        }
    }

    fn rd(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|e| e.into_inner())
    }

    fn wr(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Holds the atomics lock (for a read-modify-write).
    pub fn atomic(&self) -> MutexGuard<'_, ()> {
        self.atomics.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bytes currently allocated (device, host, managed and module memory).
    pub fn used(&self) -> u64 {
        self.rd().used
    }

    /// The allocation limit in bytes.
    pub fn limit(&self) -> u64 {
        self.rd().limit
    }

    /// The device heap's limit (`cudaLimitMallocHeapSize`).
    pub fn heap_limit(&self) -> u64 {
        self.rd().heap_limit
    }

    pub fn set_heap_limit(&self, bytes: u64) {
        self.wr().heap_limit = bytes;
    }

    /// Allocates `size` zeroed bytes of the given kind; returns the address (256-aligned).
    /// A zero size allocates one byte (every allocation has a distinct address).
    pub fn alloc(
        &self,
        size: u64,
        kind: AllocKind,
        what: impl Into<String>,
    ) -> Result<u64, AllocError> {
        let mut st = self.wr();
        Self::alloc_locked(&mut st, size, kind, what.into())
    }

    fn alloc_locked(
        st: &mut State,
        size: u64,
        kind: AllocKind,
        what: String,
    ) -> Result<u64, AllocError> {
        let size = size.max(1);
        let limit_err = |st: &State| AllocError::Limit {
            size,
            used: st.used,
            limit: st.limit,
        };
        let used = st.used.checked_add(size).ok_or_else(|| limit_err(st))?;
        if used > st.limit {
            return Err(limit_err(st));
        }
        // The span: the size rounded up to the alignment, plus one unit of guard gap.
        let span = size
            .checked_next_multiple_of(ALLOC_ALIGN)
            .and_then(|s| s.checked_add(ALLOC_ALIGN))
            .ok_or_else(|| limit_err(st))?;
        if st.region.is_none() {
            st.region = Region::new();
        }
        let region = st
            .region
            .as_mut()
            .ok_or_else(|| AllocError::Host("no host address space could be reserved".into()))?;
        let (addr, reused) = region.place(span).ok_or_else(|| {
            AllocError::Host(format!(
                "the device address space ({} bytes) has no room for {size} bytes",
                region.size
            ))
        })?;
        if let Err(e) = region.commit(addr, size) {
            region.free.insert(addr - region.base, span);
            return Err(AllocError::Host(e));
        }
        if reused {
            // Records of earlier allocations in the reused range would shadow this one.
            let stale: Vec<u64> = st
                .allocs
                .range(addr..addr + span)
                .map(|(&b, _)| b)
                .collect();
            for b in stale {
                st.allocs.remove(&b);
            }
            // SAFETY: just committed, inside the region, owned by this new allocation.
            unsafe { std::ptr::write_bytes(addr as *mut u8, 0, size as usize) };
        }
        st.used = used;
        st.allocs.insert(
            addr,
            Alloc {
                size,
                kind,
                live: true,
                what,
            },
        );
        Ok(addr)
    }

    /// Reserves `size` bytes of device address space aligned to `align` (a power of two), with
    /// nothing behind them yet (`cuMemAddressReserve`).
    pub fn reserve(&self, size: u64, align: u64) -> Result<u64, AllocError> {
        let mut st = self.wr();
        let align = align.max(page_size()).next_power_of_two();
        let span = size
            .checked_add(align)
            .and_then(|s| s.checked_next_multiple_of(page_size()))
            .ok_or_else(|| AllocError::Host(format!("cannot reserve {size} bytes")))?;
        if st.region.is_none() {
            st.region = Region::new();
        }
        let region = st
            .region
            .as_mut()
            .ok_or_else(|| AllocError::Host("no host address space could be reserved".into()))?;
        let (at, _) = region.place(span).ok_or_else(|| {
            AllocError::Host(format!("no room to reserve {size} bytes of address space"))
        })?;
        let base = at.next_multiple_of(align);
        st.reservations.insert(base, size);
        Ok(base)
    }

    /// Frees a reservation made by [`AddressSpace::reserve`] (nothing may be mapped in it).
    pub fn unreserve(&self, base: u64, size: u64) -> Result<(), String> {
        let mut st = self.wr();
        match st.reservations.get(&base) {
            Some(&s) if s == size => {}
            _ => return Err(format!("{base:#x} ({size} bytes) is not a reservation")),
        }
        if st.allocs.range(base..base + size).any(|(_, a)| a.live) {
            return Err(format!(
                "{base:#x}: memory is still mapped in the reservation"
            ));
        }
        st.reservations.remove(&base);
        Ok(())
    }

    /// Maps `size` bytes of the shared-memory object `fd` (from `offset`) at `addr`, inside a
    /// reservation (`cuMemMap`): the range becomes a device allocation backed by `fd`, so two
    /// mappings of one object alias as on a GPU.
    pub fn map_shared(
        &self,
        addr: u64,
        size: u64,
        fd: i32,
        offset: u64,
        what: impl Into<String>,
    ) -> Result<(), String> {
        let mut st = self.wr();
        let end = addr.checked_add(size).ok_or("the range wraps around")?;
        let inside = st
            .reservations
            .range(..=addr)
            .next_back()
            .is_some_and(|(&b, &s)| end <= b + s);
        if !inside || !addr.is_multiple_of(page_size()) || !size.is_multiple_of(page_size()) {
            return Err(format!(
                "{addr:#x}..{end:#x} is not a page-aligned range inside a reservation"
            ));
        }
        if st.allocs.range(addr..end).any(|(_, a)| a.live)
            || st
                .allocs
                .range(..addr)
                .next_back()
                .is_some_and(|(&b, a)| a.live && b + a.size > addr)
        {
            return Err(format!("{addr:#x}..{end:#x} is already mapped"));
        }
        let off = i64::try_from(offset).map_err(|_| "offset too large")?;
        // SAFETY: the range lies in a reservation of this address space (PROT_NONE pages we
        // own); MAP_FIXED replaces exactly those pages with the shared object.
        let p = unsafe {
            libc::mmap(
                addr as *mut libc::c_void,
                size as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_FIXED,
                fd,
                off,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(format!(
                "mapping failed: {}",
                std::io::Error::last_os_error()
            ));
        }
        st.used = st.used.saturating_add(size);
        st.allocs.insert(
            addr,
            Alloc {
                size,
                kind: AllocKind::Device,
                live: true,
                what: what.into(),
            },
        );
        Ok(())
    }

    /// Unmaps a range mapped by [`AddressSpace::map_shared`]; the pages return to the
    /// reservation.
    pub fn unmap_shared(&self, addr: u64, size: u64) -> Result<(), String> {
        let mut st = self.wr();
        match st.allocs.get(&addr) {
            Some(a) if a.live && a.size == size => {}
            _ => return Err(format!("{addr:#x} ({size} bytes) is not a mapping")),
        }
        st.allocs.remove(&addr);
        self.epoch.fetch_add(1, Ordering::AcqRel);
        Self::drop_multicast(&mut st, addr, size);
        st.used = st.used.saturating_sub(size);
        // SAFETY: the range was a mapping made by `map_shared` inside our reservation; an
        // anonymous PROT_NONE mapping takes its place again.
        unsafe {
            libc::mmap(
                addr as *mut libc::c_void,
                size as usize,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
                -1,
                0,
            );
        }
        Ok(())
    }

    /// Registers `size` bytes of the program's own host memory at `ptr` (as
    /// `cuMemHostRegister`): the guest may then access them at the same address.
    pub fn register(&self, ptr: u64, size: u64, what: impl Into<String>) -> Result<(), String> {
        if ptr == 0 || size == 0 {
            return Err("registering a null pointer or an empty range".into());
        }
        let end = ptr
            .checked_add(size)
            .ok_or("the range wraps around the address space")?;
        for (lo, hi) in [
            (SHARED_WINDOW, SHARED_WINDOW + SHARED_WINDOW_SIZE),
            (LOCAL_WINDOW, LOCAL_WINDOW + LOCAL_WINDOW_SIZE),
            (PARAM_WINDOW, PARAM_WINDOW + PARAM_WINDOW_SIZE),
            (FUNC_BASE, FUNC_BASE + FUNC_WINDOW_SIZE),
        ] {
            if ptr < hi && lo < end {
                return Err(format!("{ptr:#x}..{end:#x} overlaps a reserved window"));
            }
        }
        let mut st = self.wr();
        if let Some((&b, a)) = st.allocs.range(..end).next_back()
            && a.live
            && b + a.size > ptr
        {
            return Err(format!(
                "{ptr:#x}..{end:#x} overlaps {b:#x}..{:#x} ({})",
                b + a.size,
                a.what
            ));
        }
        st.allocs.insert(
            ptr,
            Alloc {
                size,
                kind: AllocKind::Registered,
                live: true,
                what: what.into(),
            },
        );
        Ok(())
    }

    /// Frees an allocation (or unregisters host memory) by its base address.
    pub fn free(&self, addr: u64) -> Result<AllocKind, String> {
        let mut st = self.wr();
        let st = &mut *st;
        let a = match st.allocs.get_mut(&addr) {
            Some(a) if a.live => a,
            Some(_) => return Err(format!("double free of {addr:#x}")),
            None => {
                return Err(format!(
                    "free of {addr:#x}, which is not the start of an allocation"
                ));
            }
        };
        a.live = false;
        self.epoch.fetch_add(1, Ordering::AcqRel);
        let (size, kind) = (a.size, a.kind);
        Self::drop_multicast(st, addr, size);
        if kind == AllocKind::Registered {
            // Not ours: forget it entirely (the program may register the range again).
            st.allocs.remove(&addr);
            return Ok(kind);
        }
        st.used -= size;
        if let Some(r) = &st.region {
            r.discard(addr, size);
        }
        st.pending.push((addr, size));
        if self.in_flight.load(Ordering::SeqCst) == 0 {
            Self::release_pending(st);
        }
        st.freed.push_back(addr);
        while st.freed.len() > FREED_RECORDS {
            if let Some(old) = st.freed.pop_front()
                && st.allocs.get(&old).is_some_and(|a| !a.live)
            {
                st.allocs.remove(&old);
            }
        }
        Ok(kind)
    }

    /// Device-side `malloc`: `None` when the heap limit or device memory is exhausted
    /// (the guest sees a null pointer) or for a zero size.
    pub fn heap_alloc(&self, size: u64) -> Option<u64> {
        let mut st = self.wr();
        if size == 0 || st.heap_used.checked_add(size)? > st.heap_limit {
            return None;
        }
        let a = Self::alloc_locked(
            &mut st,
            size,
            AllocKind::Heap,
            "device-heap allocation (malloc)".into(),
        )
        .ok()?;
        st.heap.insert(a, size);
        st.heap_used += size;
        Some(a)
    }

    /// Device-side `free`: the pointer must come from [`AddressSpace::heap_alloc`] and be
    /// live; `free(NULL)` does nothing.
    pub fn heap_free(&self, addr: u64) -> Result<(), AccessError> {
        if addr == 0 {
            return Ok(());
        }
        let size = {
            let mut st = self.wr();
            match st.heap.remove(&addr) {
                Some(size) => {
                    st.heap_used -= size;
                    size
                }
                None => {
                    return Err(if st.allocs.get(&addr).is_some_and(|a| !a.live) {
                        AccessError::UseAfterFree(format!(
                            "free of {addr:#x}: double free of a device-heap block"
                        ))
                    } else {
                        AccessError::OutOfBounds(format!(
                            "free of {addr:#x}, which is not a block returned by device malloc"
                        ))
                    });
                }
            }
        };
        let _ = size;
        self.free(addr)
            .map(|_| ())
            .map_err(AccessError::UseAfterFree)
    }

    /// The live allocation containing `[addr, addr+len)`: its base, or why there is none.
    fn find(st: &State, addr: u64, len: u64) -> Result<(u64, &Alloc), AccessError> {
        if let Some((&base, a)) = st.allocs.range(..=addr).next_back() {
            let end = base + a.size;
            if addr.checked_add(len).is_some_and(|e| e <= end) {
                if !a.live {
                    return Err(AccessError::UseAfterFree(format!(
                        "{len}-byte access at {addr:#x} is inside freed allocation {base:#x} ({} bytes, {})",
                        a.size, a.what
                    )));
                }
                return Ok((base, a));
            }
        }
        Err(AccessError::OutOfBounds(Self::describe_miss(st, addr, len)))
    }

    /// "nearest allocation" text for an address that hits none.
    fn describe_miss(st: &State, addr: u64, len: u64) -> String {
        let before = st.allocs.range(..=addr).next_back();
        let after = st.allocs.range(addr.saturating_add(1)..).next();
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

    /// Checks `[addr, addr+len)` for a host-side copy; the guard keeps the map (and so the
    /// allocation) as it is until the copy is done.
    fn check(&self, addr: u64, len: u64) -> Result<RwLockReadGuard<'_, State>, AccessError> {
        let st = self.rd();
        if len > 0 {
            Self::find(&st, addr, len)?;
        }
        Ok(st)
    }

    /// Checks a guest access; `write` refuses read-only memory.
    fn check_guest(&self, addr: u64, len: u64, write: bool) -> Result<(), AccessError> {
        let st = self.rd();
        let (base, a) = Self::find(&st, addr, len)?;
        if write && a.kind == AllocKind::Const {
            return Err(AccessError::ReadOnly(format!(
                "{len}-byte write at {addr:#x} into {} ({base:#x}..{:#x}): constant memory is read-only",
                a.what,
                base + a.size
            )));
        }
        Ok(())
    }

    /// Host-side read of device bytes.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), AccessError> {
        let _held = self.check(addr, out.len() as u64)?;
        // SAFETY: `[addr, addr+len)` lies in a live allocation: committed memory of the
        // region or registered host memory.
        unsafe { std::ptr::copy(addr as *const u8, out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    /// Host-side write of device bytes (`.const` memory included).
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), AccessError> {
        let _held = self.check(addr, data.len() as u64)?;
        // SAFETY: as in `read`.
        unsafe { std::ptr::copy(data.as_ptr(), addr as *mut u8, data.len()) };
        Ok(())
    }

    /// Host-side fill.
    pub fn fill(&self, addr: u64, len: u64, byte: u8) -> Result<(), AccessError> {
        let _held = self.check(addr, len)?;
        // SAFETY: as in `read`.
        unsafe { std::ptr::write_bytes(addr as *mut u8, byte, len as usize) };
        Ok(())
    }

    /// Device-to-device copy (the ranges may overlap).
    pub fn copy(&self, dst: u64, src: u64, len: u64) -> Result<(), AccessError> {
        let held = self.check(src, len)?;
        if len > 0 {
            Self::find(&held, dst, len)?;
        }
        // SAFETY: both ranges lie in live allocations.
        unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, len as usize) };
        Ok(())
    }

    /// A guest read (global, `.const` or a generic address outside the windows).
    pub fn read_guest(&self, addr: u64, out: &mut [u8]) -> Result<(), AccessError> {
        self.check_guest(addr, out.len() as u64, false)?;
        // SAFETY: as in `read`.
        unsafe { std::ptr::copy(addr as *const u8, out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    /// A guest write: refuses `.const` memory.
    pub fn write_guest(&self, addr: u64, data: &[u8]) -> Result<(), AccessError> {
        self.check_guest(addr, data.len() as u64, true)?;
        // SAFETY: as in `read`.
        unsafe { std::ptr::copy(data.as_ptr(), addr as *mut u8, data.len()) };
        Ok(())
    }

    /// The live allocation containing `addr`.
    pub fn lookup(&self, addr: u64) -> Option<AllocInfo> {
        let st = self.rd();
        Self::find(&st, addr, 1).ok().map(|(base, a)| AllocInfo {
            base,
            size: a.size,
            kind: a.kind,
        })
    }

    /// Whether `addr` lies in a live allocation of a `.const` variable.
    pub fn is_const(&self, addr: u64) -> bool {
        self.lookup(addr)
            .is_some_and(|a| a.kind == AllocKind::Const)
    }

    /// Whether `addr` lies in a live allocation.
    pub fn contains(&self, addr: u64) -> bool {
        self.lookup(addr).is_some()
    }

    /// Makes `[addr, addr+size)` a multicast mapping (the address range of a multicast object
    /// with one device bound, `cuMulticast*` + `cuMemMap`): with one device the multicast
    /// range and the bound memory are the same bytes, so the range must lie inside one live
    /// device allocation (or `cuMemMap` mapping of the bound memory) and overlap no other
    /// multicast mapping. `multimem.*` accepts only addresses inside such a range.
    pub fn map_multicast(&self, addr: u64, size: u64) -> Result<(), String> {
        let mut st = self.wr();
        if size == 0 {
            return Err("a multicast mapping of 0 bytes".into());
        }
        let end = addr
            .checked_add(size)
            .ok_or("the multicast range wraps around the address space")?;
        match Self::find(&st, addr, size) {
            Ok((_, a)) if a.kind == AllocKind::Device => {}
            Ok((base, a)) => {
                return Err(format!(
                    "{addr:#x}..{end:#x} lies in {base:#x} ({}), which is not device memory",
                    a.what
                ));
            }
            Err(e) => return Err(format!("multicast mapping: {}", e.message())),
        }
        let overlaps = st
            .multicast
            .range(..end)
            .next_back()
            .is_some_and(|(&b, &s)| b + s > addr);
        if overlaps {
            return Err(format!("{addr:#x}..{end:#x} overlaps a multicast mapping"));
        }
        st.multicast.insert(addr, size);
        Ok(())
    }

    /// Ends the multicast mapping that starts at `addr` (the bytes stay, as the bound
    /// memory); returns its size.
    pub fn unmap_multicast(&self, addr: u64) -> Result<u64, String> {
        self.wr()
            .multicast
            .remove(&addr)
            .ok_or_else(|| format!("{addr:#x} is not the start of a multicast mapping"))
    }

    /// Whether `[addr, addr+len)` lies inside one multicast mapping.
    pub fn is_multicast(&self, addr: u64, len: u64) -> bool {
        let st = self.rd();
        st.multicast
            .range(..=addr)
            .next_back()
            .is_some_and(|(&b, &s)| addr.checked_add(len).is_some_and(|e| e <= b + s))
    }

    /// Forgets the multicast mappings inside a range that stops being accessible.
    fn drop_multicast(st: &mut State, addr: u64, size: u64) {
        let end = addr.saturating_add(size);
        let gone: Vec<u64> = st.multicast.range(addr..end).map(|(&b, _)| b).collect();
        for b in gone {
            st.multicast.remove(&b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_and_bounds_checked() {
        let m = AddressSpace::new(1 << 20);
        let a = m.alloc(10, AllocKind::Device, "a").unwrap();
        let b = m.alloc(300, AllocKind::Device, "b").unwrap();
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
        assert!(matches!(
            m.alloc(1 << 21, AllocKind::Device, "big"),
            Err(AllocError::Limit { .. })
        ));
    }

    #[test]
    fn device_addresses_are_host_addresses() {
        let m = AddressSpace::new(1 << 30);
        let a = m.alloc(4096 * 3, AllocKind::Managed, "managed").unwrap();
        // The host writes managed memory directly; the guest sees it.
        // SAFETY: a live 12 KiB allocation.
        unsafe { *(a as *mut u32).add(1000) = 0xdead_beef };
        let mut buf = [0u8; 4];
        m.read_guest(a + 4000, &mut buf).unwrap();
        assert_eq!(u32::from_le_bytes(buf), 0xdead_beef);
        // Fresh memory is zero.
        m.read_guest(a + 8, &mut buf).unwrap();
        assert_eq!(buf, [0; 4]);
    }

    #[test]
    fn registered_host_memory_and_const_protection() {
        let m = AddressSpace::new(1 << 30);
        let mut host = vec![7u8; 64];
        let p = host.as_mut_ptr() as u64;
        m.register(p, 64, "registered host memory").unwrap();
        m.write_guest(p + 8, &[1, 2]).unwrap();
        assert_eq!(&host[7..11], &[7, 1, 2, 7]);
        assert!(m.register(p + 8, 8, "overlap").is_err());
        assert_eq!(m.free(p), Ok(AllocKind::Registered));
        assert!(m.read_guest(p, &mut [0u8; 1]).is_err());
        let c = m
            .alloc(16, AllocKind::Const, ".const variable `c`")
            .unwrap();
        m.write(c, &[5]).unwrap();
        assert!(matches!(
            m.write_guest(c, &[1]),
            Err(AccessError::ReadOnly(_))
        ));
        let mut b = [0u8];
        m.read_guest(c, &mut b).unwrap();
        assert_eq!(b, [5]);
    }

    #[test]
    fn freed_pages_are_returned_and_addresses_not_reused_soon() {
        let m = AddressSpace::new(1 << 32);
        let a = m.alloc(1 << 24, AllocKind::Device, "big").unwrap();
        m.fill(a, 1 << 24, 0xff).unwrap();
        m.free(a).unwrap();
        let b = m.alloc(1 << 24, AllocKind::Device, "big2").unwrap();
        assert_ne!(a, b);
        assert_eq!(m.used(), 1 << 24);
    }

    #[test]
    fn multicast_mappings_lie_in_device_memory_and_end_with_it() {
        let m = AddressSpace::new(1 << 32);
        let a = m.alloc(256, AllocKind::Device, "buf").unwrap();
        assert!(!m.is_multicast(a, 4));
        assert!(m.map_multicast(a, 0).is_err());
        assert!(m.map_multicast(a, 257).is_err(), "past the allocation");
        assert!(m.map_multicast(u64::MAX - 3, 8).is_err(), "wraps");
        m.map_multicast(a + 64, 128).unwrap();
        assert!(m.is_multicast(a + 64, 128));
        assert!(m.is_multicast(a + 100, 4));
        assert!(!m.is_multicast(a + 60, 8), "straddles the start");
        assert!(!m.is_multicast(a + 190, 4), "straddles the end");
        assert!(!m.is_multicast(a + 64, u64::MAX), "length wraps");
        assert!(m.map_multicast(a, 65).is_err(), "overlaps");
        m.map_multicast(a, 64).unwrap();
        let c = m.alloc(16, AllocKind::Const, "c").unwrap();
        assert!(m.map_multicast(c, 16).is_err(), "not device memory");
        assert_eq!(m.unmap_multicast(a), Ok(64));
        assert!(m.unmap_multicast(a).is_err());
        m.free(a).unwrap();
        assert!(
            !m.is_multicast(a + 64, 4),
            "freeing the memory ends the mapping"
        );
        assert!(m.unmap_multicast(a + 64).is_err());
    }
}
