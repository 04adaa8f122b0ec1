//! The export tables as libcudart sees them: fetched by UUID, slots read at fixed indices and
//! called through C function pointers, with fake driver hooks behind them.

use std::cell::Cell;
use std::ffi::c_void;
use std::ptr::{null, null_mut, with_exposed_provenance_mut};
use std::sync::{Mutex, Once};

use cuda::dark::{self, id, integrity, layout};

const DRIVER_VERSION: i32 = 13050;
const DEVICES: i32 = 2;
const INVALID_DEVICE: u32 = 101;

fn fake_uuid(dev: i32) -> [u8; 16] {
    let mut u = [0u8; 16];
    for (i, b) in u.iter_mut().enumerate() {
        *b = (dev as u8).wrapping_mul(31).wrapping_add(i as u8 * 7);
    }
    u
}

fn fake_pci(dev: i32) -> (i32, i32, i32) {
    (0, 0x10 + dev, dev & 1)
}

fn fake_primary_context_handle(dev: i32) -> *mut c_void {
    with_exposed_provenance_mut(0x7000_0000 + dev as usize * 0x100)
}

fn fake_primary_context(dev: i32, out: *mut *mut c_void) -> u32 {
    if !(0..DEVICES).contains(&dev) {
        return INVALID_DEVICE;
    }
    unsafe { *out = fake_primary_context_handle(dev) };
    0
}

thread_local! {
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

fn fake_current_context() -> *mut c_void {
    with_exposed_provenance_mut(CURRENT.get())
}

fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        dark::set_hooks(dark::Hooks {
            driver_version: || DRIVER_VERSION,
            device_count: || DEVICES,
            device_uuid: fake_uuid,
            device_pci: fake_pci,
            primary_context: fake_primary_context,
            current_context: fake_current_context,
        })
    });
}

fn table(uuid: &[u8; 16]) -> *const *const c_void {
    setup();
    dark::export_table(uuid).expect("table served").cast()
}

fn slot_value(t: *const *const c_void, i: usize) -> *const c_void {
    unsafe { *t.add(i) }
}

/// Slot `i` of table `t` as a C function of type `F`.
unsafe fn slot<F: Copy>(t: *const *const c_void, i: usize) -> F {
    assert_eq!(size_of::<F>(), size_of::<*const c_void>());
    let p = slot_value(t, i);
    assert!(!p.is_null(), "slot {i} is NULL");
    unsafe { std::mem::transmute_copy(&p) }
}

fn ctx(n: usize) -> *mut c_void {
    with_exposed_provenance_mut(0x5000_0000 + n * 0x40)
}

fn key(n: usize) -> *mut c_void {
    with_exposed_provenance_mut(0x6000_0000 + n * 8)
}

type Unknown4 = unsafe extern "C" fn(usize, usize, usize, usize) -> usize;

#[test]
fn every_table_has_its_size_and_no_null_slot() {
    let sized: [(&[u8; 16], usize); 7] = [
        (&id::CUDART_INTERFACE, 13),
        (&id::TOOLS_RUNTIME_CALLBACK_HOOKS, 7),
        (&id::TOOLS_TLS, 4),
        (&id::CONTEXT_CHECKS, 4),
        (&id::INTEGRITY_CHECK, 3),
        (&id::UNKNOWN_F8CFF951, 64),
        (&id::UNKNOWN_21318C60, 64),
    ];
    for (uuid, len) in sized {
        let t = table(uuid);
        assert_eq!(slot_value(t, layout::SIZE).addr(), 8 * len);
        for i in 1..len {
            assert!(!slot_value(t, i).is_null(), "slot {i}");
        }
    }
    assert_eq!(layout::cudart_interface::LEN, 13);
    assert_eq!(layout::unknown::LEN, 64);
    // CONTEXT_LOCAL_STORAGE has no size slot: slot 0 is a function.
    let t = table(&id::CONTEXT_LOCAL_STORAGE_INTERFACE_V0301);
    for i in 0..layout::context_local_storage::LEN {
        assert!(!slot_value(t, i).is_null(), "slot {i}");
    }
    assert!(slot_value(t, layout::context_local_storage::PUT).addr() > 4096);
}

#[test]
fn tables_are_stable_and_distinct() {
    let ids = [
        id::CUDART_INTERFACE,
        id::TOOLS_RUNTIME_CALLBACK_HOOKS,
        id::TOOLS_TLS,
        id::CONTEXT_LOCAL_STORAGE_INTERFACE_V0301,
        id::CONTEXT_CHECKS,
        id::INTEGRITY_CHECK,
        id::UNKNOWN_F8CFF951,
        id::UNKNOWN_21318C60,
    ];
    let ptrs: Vec<_> = ids.iter().map(table).collect();
    for (i, p) in ptrs.iter().enumerate() {
        assert_eq!(*p, table(&ids[i]));
        assert!(!ptrs[i + 1..].contains(p));
    }
}

#[test]
fn unserved_uuids() {
    setup();
    for uuid in [
        id::NVRTC_DA9151D3,
        id::CTX_CREATE_BYPASS,
        id::HEAP_ACCESS,
        id::DEVICE_EXTENDED_RT,
        id::HYBRID_CUDART,
        [0; 16],
        [0xff; 16],
    ] {
        assert!(dark::export_table(&uuid).is_none());
        let mut out: *const c_void = std::ptr::dangling();
        assert_eq!(unsafe { dark::get_export_table(&mut out, &uuid) }, 801);
        assert!(out.is_null());
    }
    assert_eq!(dark::UNKNOWN_TABLE_RESULT, 801);
}

#[test]
fn get_export_table_entry_point() {
    setup();
    let mut out: *const c_void = null();
    assert_eq!(
        unsafe { dark::get_export_table(&mut out, &id::INTEGRITY_CHECK) },
        0
    );
    assert_eq!(out, dark::export_table(&id::INTEGRITY_CHECK).unwrap());
    assert_eq!(
        unsafe { dark::get_export_table(null_mut(), &id::INTEGRITY_CHECK) },
        1
    );
    assert_eq!(unsafe { dark::get_export_table(&mut out, null()) }, 1);
    // A CUuuid may sit at any address.
    let mut buf = [0u8; 17];
    buf[1..].copy_from_slice(&id::CONTEXT_CHECKS);
    let unaligned = buf[1..].as_ptr().cast::<[u8; 16]>();
    assert_eq!(unsafe { dark::get_export_table(&mut out, unaligned) }, 0);
    assert_eq!(out, dark::export_table(&id::CONTEXT_CHECKS).unwrap());
}

// ---- CUDART_INTERFACE ----

#[test]
fn cudart_primary_context() {
    use layout::cudart_interface as l;
    type F = unsafe extern "C" fn(*mut *mut c_void, i32) -> u32;
    let t = table(&id::CUDART_INTERFACE);
    let f: F = unsafe { slot(t, l::PRIMARY_CONTEXT) };
    for dev in 0..DEVICES {
        let mut out = null_mut();
        assert_eq!(unsafe { f(&mut out, dev) }, 0);
        assert_eq!(out, fake_primary_context_handle(dev));
    }
    let mut out = null_mut();
    assert_eq!(unsafe { f(&mut out, DEVICES) }, INVALID_DEVICE);
    assert_eq!(unsafe { f(&mut out, -1) }, INVALID_DEVICE);
    assert_eq!(unsafe { f(null_mut(), 0) }, 1);
}

#[test]
fn cudart_other_slots() {
    use layout::cudart_interface as l;
    let t = table(&id::CUDART_INTERFACE);
    let load_compilers: unsafe extern "C" fn() -> u32 = unsafe { slot(t, l::LOAD_COMPILERS) };
    assert_eq!(unsafe { load_compilers() }, 0);
    let fn7: unsafe extern "C" fn(usize) = unsafe { slot(t, l::FN7) };
    unsafe { fn7(42) };

    let mut module = null_mut();
    let image = [0u8; 64];
    let m1: unsafe extern "C" fn(*mut *mut c_void, *const c_void) -> u32 =
        unsafe { slot(t, l::MODULE_FROM_FATBIN) };
    assert_eq!(unsafe { m1(&mut module, image.as_ptr().cast()) }, 801);
    type Ext =
        unsafe extern "C" fn(*mut *mut c_void, *const c_void, *mut c_void, *mut c_void, u32) -> u32;
    let m6: Ext = unsafe { slot(t, l::MODULE_FROM_FATBIN_EXT1) };
    assert_eq!(
        unsafe {
            m6(
                &mut module,
                image.as_ptr().cast(),
                null_mut(),
                null_mut(),
                0,
            )
        },
        801
    );
    type Ext2 =
        unsafe extern "C" fn(*const c_void, *mut *mut c_void, *mut c_void, *mut c_void, u32) -> u32;
    let m8: Ext2 = unsafe { slot(t, l::MODULE_FROM_FATBIN_EXT2) };
    assert_eq!(
        unsafe {
            m8(
                image.as_ptr().cast(),
                &mut module,
                null_mut(),
                null_mut(),
                0,
            )
        },
        801
    );
    assert!(module.is_null());

    // Undecoded slots answer 0.
    for i in [3, 4, 5, 9, 10, 11] {
        let f: Unknown4 = unsafe { slot(t, i) };
        assert_eq!(unsafe { f(1, 2, 3, 4) }, 0, "slot {i}");
    }
}

// ---- TOOLS_RUNTIME_CALLBACK_HOOKS, TOOLS_TLS ----

#[test]
fn tools_buffers() {
    use layout::tools_runtime_callback_hooks as l;
    type F = unsafe extern "C" fn(*mut *mut c_void, *mut usize);
    let t = table(&id::TOOLS_RUNTIME_CALLBACK_HOOKS);
    let mut seen = Vec::new();
    for (i, len) in [(l::BUFFER_A, 1024), (l::BUFFER_B, 14)] {
        assert_eq!(
            len,
            if i == l::BUFFER_A {
                l::BUFFER_A_LEN
            } else {
                l::BUFFER_B_LEN
            }
        );
        let f: F = unsafe { slot(t, i) };
        let (mut p, mut n) = (null_mut(), 0usize);
        unsafe { f(&mut p, &mut n) };
        assert_eq!(n, len);
        assert!(!p.is_null());
        assert_eq!(p.addr() % 4, 0);
        let words = unsafe { std::slice::from_raw_parts(p.cast::<u32>(), n) };
        assert!(words.iter().all(|&w| w == 0));
        let (mut p2, mut n2) = (null_mut(), 0usize);
        unsafe { f(&mut p2, &mut n2) };
        assert_eq!((p2, n2), (p, n));
        unsafe { f(null_mut(), null_mut()) };
        seen.push(p);
    }
    assert_ne!(seen[0], seen[1]);
    let f: Unknown4 = unsafe { slot(t, 1) };
    assert_eq!(unsafe { f(0, 0, 0, 0) }, 0);
}

#[test]
fn tools_tls_is_size_only() {
    let t = table(&id::TOOLS_TLS);
    assert_eq!(slot_value(t, layout::tools_tls::SIZE).addr(), 32);
}

// ---- CONTEXT_LOCAL_STORAGE ----

type Dtor = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_void);
type Put = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_void, Option<Dtor>) -> u32;
type Delete = unsafe extern "C" fn(*mut c_void, *mut c_void) -> u32;
type Get = unsafe extern "C" fn(*mut *mut c_void, *mut c_void, *mut c_void) -> u32;

fn cls() -> (Put, Delete, Get) {
    use layout::context_local_storage as l;
    let t = table(&id::CONTEXT_LOCAL_STORAGE_INTERFACE_V0301);
    unsafe { (slot(t, l::PUT), slot(t, l::DELETE), slot(t, l::GET)) }
}

fn get(c: *mut c_void, k: *mut c_void) -> Result<usize, u32> {
    let (_, _, g) = cls();
    let mut v = null_mut();
    match unsafe { g(&mut v, c, k) } {
        0 => Ok(v.addr()),
        e => Err(e),
    }
}

#[test]
fn cls_put_get_delete() {
    let (put, delete, g) = cls();
    let (c, k) = (ctx(1), key(1));
    assert_eq!(get(c, k), Err(400));
    assert_eq!(
        unsafe { put(c, k, with_exposed_provenance_mut(0xabc), None) },
        0
    );
    assert_eq!(get(c, k), Ok(0xabc));
    assert_eq!(get(ctx(2), k), Err(400));
    assert_eq!(get(c, key(2)), Err(400));
    assert_eq!(
        unsafe { put(c, k, with_exposed_provenance_mut(0xdef), None) },
        0
    );
    assert_eq!(get(c, k), Ok(0xdef));
    assert_eq!(unsafe { delete(c, k) }, 0);
    assert_eq!(get(c, k), Err(400));
    assert_eq!(unsafe { delete(c, k) }, 0);
    assert_eq!(unsafe { g(null_mut(), c, k) }, 1);
}

#[test]
fn cls_null_context_is_current() {
    let (put, delete, _) = cls();
    let (c, k) = (ctx(3), key(1));
    CURRENT.set(0);
    assert_eq!(unsafe { put(null_mut(), k, null_mut(), None) }, 201);
    assert_eq!(get(null_mut(), k), Err(201));
    assert_eq!(unsafe { delete(null_mut(), k) }, 201);
    CURRENT.set(c.addr());
    assert_eq!(
        unsafe { put(null_mut(), k, with_exposed_provenance_mut(7), None) },
        0
    );
    assert_eq!(get(c, k), Ok(7));
    assert_eq!(get(null_mut(), k), Ok(7));
    assert_eq!(unsafe { delete(null_mut(), k) }, 0);
    assert_eq!(get(c, k), Err(400));
    CURRENT.set(0);
}

static DTOR_CALLS: Mutex<Vec<(usize, usize, usize)>> = Mutex::new(Vec::new());

unsafe extern "C" fn record_dtor(c: *mut c_void, k: *mut c_void, v: *mut c_void) {
    DTOR_CALLS
        .lock()
        .unwrap()
        .push((c.addr(), k.addr(), v.addr()));
}

fn dtor_calls_for(c: *mut c_void) -> Vec<(usize, usize)> {
    DTOR_CALLS
        .lock()
        .unwrap()
        .iter()
        .filter(|call| call.0 == c.addr())
        .map(|call| (call.1, call.2))
        .collect()
}

#[test]
fn cls_destructors_run_once_on_context_destruction() {
    let (put, delete, _) = cls();
    let (c, other) = (ctx(4), ctx(5));
    for n in 0..4 {
        let dtor = if n == 2 {
            None
        } else {
            Some(record_dtor as Dtor)
        };
        let v = with_exposed_provenance_mut(0x100 + n);
        assert_eq!(unsafe { put(c, key(n), v, dtor) }, 0);
    }
    assert_eq!(
        unsafe {
            put(
                other,
                key(0),
                with_exposed_provenance_mut(9),
                Some(record_dtor),
            )
        },
        0
    );
    // A deleted value's destructor never runs.
    assert_eq!(unsafe { delete(c, key(3)) }, 0);

    dark::context_destroyed(c);
    let k = |n| key(n).addr();
    assert_eq!(dtor_calls_for(c), vec![(k(1), 0x101), (k(0), 0x100)]);
    for n in 0..4 {
        assert_eq!(get(c, key(n)), Err(400));
    }
    // Only that context: the other keeps its value, and a second destruction runs nothing.
    assert_eq!(get(other, key(0)), Ok(9));
    dark::context_destroyed(c);
    assert_eq!(dtor_calls_for(c).len(), 2);
    assert!(dtor_calls_for(other).is_empty());
    dark::context_destroyed(other);
    assert_eq!(dtor_calls_for(other), vec![(k(0), 9)]);
    dark::context_destroyed(null_mut());
}

/// A destructor that uses the table itself (the runtime's may): no deadlock.
unsafe extern "C" fn reentrant_dtor(c: *mut c_void, k: *mut c_void, v: *mut c_void) {
    let (put, _, _) = cls();
    assert_eq!(get(c, k), Err(400));
    unsafe { put(ctx(7), k, v, None) };
}

#[test]
fn cls_destructor_may_call_the_table() {
    let (put, _, _) = cls();
    let c = ctx(6);
    assert_eq!(
        unsafe {
            put(
                c,
                key(1),
                with_exposed_provenance_mut(55),
                Some(reentrant_dtor),
            )
        },
        0
    );
    dark::context_destroyed(c);
    assert_eq!(get(ctx(7), key(1)), Ok(55));
    dark::context_destroyed(ctx(7));
}

#[test]
fn cls_is_thread_safe() {
    std::thread::scope(|s| {
        for t in 0..4usize {
            s.spawn(move || {
                let (put, delete, _) = cls();
                let c = ctx(100 + t);
                for n in 0..500usize {
                    let v = with_exposed_provenance_mut(n * 10 + t);
                    assert_eq!(unsafe { put(c, key(n % 17), v, None) }, 0);
                    assert_eq!(get(c, key(n % 17)), Ok(n * 10 + t));
                    if n % 3 == 0 {
                        assert_eq!(unsafe { delete(c, key(n % 17)) }, 0);
                        assert_eq!(get(c, key(n % 17)), Err(400));
                    }
                }
                dark::context_destroyed(c);
                assert_eq!(get(c, key(0)), Err(400));
            });
        }
    });
}

// ---- CONTEXT_CHECKS ----

#[test]
fn context_checks() {
    use layout::context_checks as l;
    let t = table(&id::CONTEXT_CHECKS);
    let check: unsafe extern "C" fn(*mut c_void, *mut u32, *mut *const c_void) -> u32 =
        unsafe { slot(t, l::CONTEXT_CHECK) };
    let mut out = u32::MAX;
    let mut out2 = null();
    assert_eq!(unsafe { check(ctx(1), &mut out, &mut out2) }, 0);
    assert_eq!(out, 0);
    assert_eq!(unsafe { check(null_mut(), null_mut(), null_mut()) }, 0);
    let check3: unsafe extern "C" fn() -> u32 = unsafe { slot(t, l::CHECK3) };
    assert_eq!(unsafe { check3() }, 0);
}

// ---- INTEGRITY_CHECK ----

type Integrity = unsafe extern "C" fn(u32, u64, *mut [u64; 2]) -> u32;

/// What the hash must cover when called on this thread, gathered independently of the slot.
fn expected_answer(version: u32, unix_seconds: u64) -> [u64; 2] {
    let t = table(&id::INTEGRITY_CHECK);
    let inputs = integrity::Inputs {
        driver_version: DRIVER_VERSION as u32,
        version,
        process_id: std::process::id(),
        thread_id: unsafe { libc::pthread_self() } as u32,
        cudart_interface_table: dark::export_table(&id::CUDART_INTERFACE).unwrap().addr(),
        integrity_check_table: t.addr(),
        integrity_check_fn: slot_value(t, layout::integrity_check::INTEGRITY_CHECK).addr(),
        unix_seconds,
    };
    let devices: Vec<integrity::Device> = (0..DEVICES)
        .map(|d| {
            let (pci_domain, pci_bus, pci_device) = fake_pci(d);
            integrity::Device {
                uuid: fake_uuid(d),
                pci_domain,
                pci_bus,
                pci_device,
            }
        })
        .collect();
    integrity::hash(&inputs, &devices)
}

fn call_integrity(version: u32, unix_seconds: u64) -> [u64; 2] {
    let f: Integrity = unsafe {
        slot(
            table(&id::INTEGRITY_CHECK),
            layout::integrity_check::INTEGRITY_CHECK,
        )
    };
    let mut out = [0u64; 2];
    assert_eq!(unsafe { f(version, unix_seconds, &mut out) }, 0);
    out
}

#[test]
fn integrity_check_as_libcudart_calls_it() {
    let now = 0x6900_0000u64;
    assert_eq!(call_integrity(13050, now), integrity::FIXED_ANSWER_0);
    assert_eq!(call_integrity(13051, now), integrity::FIXED_ANSWER_1);
    assert_eq!(call_integrity(12090, now), integrity::FIXED_ANSWER_0);
    assert_eq!(call_integrity(12091, now), integrity::FIXED_ANSWER_1);
    for version in [13052, 12092] {
        let got = call_integrity(version, now);
        assert_eq!(got, expected_answer(version, now));
        assert_ne!(got, call_integrity(version, now + 1));
    }
    // Another thread has another pthread_self, hence another answer.
    let here = call_integrity(13052, now);
    let there =
        std::thread::spawn(move || (call_integrity(13052, now), expected_answer(13052, now)))
            .join()
            .unwrap();
    assert_eq!(there.0, there.1);
    assert_ne!(there.0, here);
}

#[test]
fn integrity_check_output_handling() {
    let f: Integrity = unsafe {
        slot(
            table(&id::INTEGRITY_CHECK),
            layout::integrity_check::INTEGRITY_CHECK,
        )
    };
    assert_eq!(unsafe { f(13052, 1, null_mut()) }, 1);
    let mut buf = [0u8; 17];
    let unaligned = buf[1..].as_mut_ptr().cast::<[u64; 2]>();
    assert_eq!(unsafe { f(13052, 1, unaligned) }, 0);
    let got = unsafe { unaligned.read_unaligned() };
    assert_eq!(got, expected_answer(13052, 1));
    let f2: Unknown4 = unsafe { slot(table(&id::INTEGRITY_CHECK), 2) };
    assert_eq!(unsafe { f2(0, 0, 0, 0) }, 0);
}

// ---- Undecoded tables ----

#[test]
fn undecoded_tables_answer_zero_everywhere() {
    for uuid in [id::UNKNOWN_F8CFF951, id::UNKNOWN_21318C60] {
        let t = table(&uuid);
        let mut addrs = Vec::new();
        for i in 1..layout::unknown::LEN {
            let f: Unknown4 = unsafe { slot(t, i) };
            assert_eq!(unsafe { f(i, 1, 2, 3) }, 0, "slot {i}");
            addrs.push(slot_value(t, i));
        }
        addrs.sort();
        addrs.dedup();
        assert_eq!(
            addrs.len(),
            layout::unknown::LEN - 1,
            "one function per slot"
        );
    }
}
