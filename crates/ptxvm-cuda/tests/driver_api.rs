//! The driver's entry points called as a C client calls them (through the crate's exported
//! functions): features the nvcc-built client programs do not reach — virtual memory
//! management with aliasing mappings and POSIX-fd export, stream memory operations, the
//! driver log, and libraries whose image cannot run here (accepted at load, refused at use).

use cuda::abi::*;
use cuda::context::*;
use cuda::entry::*;
use cuda::launch::*;
use cuda::logs::*;
use cuda::memory::*;
use cuda::module::*;
use cuda::stream::*;
use cuda::types::*;
use cuda::vmm::*;
use std::ffi::c_void;
use std::sync::Mutex;

/// The driver is process-global; these tests take turns.
static SERIAL: Mutex<()> = Mutex::new(());

fn setup() -> std::sync::MutexGuard<'static, ()> {
    let g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: driver entry points with valid out-pointers.
    unsafe {
        assert_eq!(cuInit(0), 0);
        let mut ctx: Handle = std::ptr::null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
        assert_eq!(cuCtxSetCurrent(ctx), 0);
    }
    g
}

const FILL: &str = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry fill(.param .u64 p, .param .u32 v)\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [p];\n\tld.param.u32 %r1, [v];\n\tmov.u32 %r2, %tid.x;\n\tmul.wide.u32 %rd2, %r2, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r1;\n\tret;\n}\n\0";

fn prop() -> CUmemAllocationProp {
    CUmemAllocationProp {
        kind: 1,
        requested_handle_types: 1,
        location: CUmemLocation { kind: 1, id: 0 },
        win32_handle_meta_data: std::ptr::null_mut(),
        compression_type: 0,
        gpu_direct_rdma_capable: 0,
        usage: 0,
        reserved: [0; 4],
    }
}

#[test]
fn virtual_memory_mappings_alias_and_kernels_use_them() {
    let _g = setup();
    // SAFETY: driver entry points as documented in cuda.h.
    unsafe {
        let p = prop();
        let mut gran = 0usize;
        assert_eq!(cuMemGetAllocationGranularity(&mut gran, &p, 0), 0);
        assert_eq!(gran, 2 << 20);
        let mut h = 0u64;
        assert_eq!(cuMemCreate(&mut h, gran, &p, 0), 0);
        assert_eq!(
            cuMemCreate(&mut h, gran + 1, &p, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuMemCreate(&mut h, gran, &p, 0), 0);
        let mut base = 0u64;
        assert_eq!(cuMemAddressReserve(&mut base, 2 * gran, 0, 0, 0), 0);
        assert_eq!(base % gran as u64, 0);
        // The same physical memory twice: writes through one mapping show in the other.
        assert_eq!(cuMemMap(base, gran, 0, h, 0), 0);
        assert_eq!(cuMemMap(base + gran as u64, gran, 0, h, 0), 0);
        assert_ne!(cuMemMap(base, gran, 0, h, 0), 0, "double mapping refused");
        let desc = CUmemAccessDesc {
            location: CUmemLocation { kind: 1, id: 0 },
            flags: 3,
        };
        assert_eq!(cuMemSetAccess(base, 2 * gran, &desc, 1), 0);
        let v = 0x1234_5678u32;
        assert_eq!(cuMemcpyHtoD_v2(base + 64, (&v as *const u32).cast(), 4), 0);
        let mut back = 0u32;
        assert_eq!(
            cuMemcpyDtoH_v2((&mut back as *mut u32).cast(), base + gran as u64 + 64, 4),
            0
        );
        assert_eq!(back, v);
        // A kernel writes through the second mapping; the first sees it.
        let mut m: Handle = std::ptr::null_mut();
        assert_eq!(cuModuleLoadData(&mut m, FILL.as_ptr().cast()), 0);
        let mut f: Handle = std::ptr::null_mut();
        assert_eq!(cuModuleGetFunction(&mut f, m, c"fill".as_ptr()), 0);
        let mut ptr = base + gran as u64;
        let mut val = 7u32;
        let mut params = [
            (&mut ptr as *mut u64).cast::<c_void>(),
            (&mut val as *mut u32).cast(),
        ];
        assert_eq!(
            cuLaunchKernel(
                f,
                1,
                1,
                1,
                32,
                1,
                1,
                0,
                std::ptr::null_mut(),
                params.as_mut_ptr(),
                std::ptr::null_mut()
            ),
            0
        );
        assert_eq!(cuCtxSynchronize(), 0);
        let mut words = [0u32; 32];
        assert_eq!(cuMemcpyDtoH_v2(words.as_mut_ptr().cast(), base, 128), 0);
        assert_eq!(words, [7; 32]);
        // Retain finds the handle; export/import shares it by file descriptor.
        let mut h2 = 0u64;
        assert_eq!(
            cuMemRetainAllocationHandle(&mut h2, (base + 100) as *mut c_void),
            0
        );
        assert_eq!(h2, h);
        let mut fd = -1i32;
        assert_eq!(
            cuMemExportToShareableHandle((&mut fd as *mut i32).cast(), h, 1, 0),
            0
        );
        assert!(fd >= 0);
        let mut h3 = 0u64;
        assert_eq!(
            cuMemImportFromShareableHandle(&mut h3, fd as usize as *mut c_void, 1),
            0
        );
        let mut base2 = 0u64;
        assert_eq!(cuMemAddressReserve(&mut base2, gran, 0, 0, 0), 0);
        assert_eq!(cuMemMap(base2, gran, 0, h3, 0), 0);
        assert_eq!(
            cuMemcpyDtoH_v2((&mut back as *mut u32).cast(), base2 + 64, 4),
            0
        );
        assert_eq!(back, 7, "the imported memory is the same object");
        libc::close(fd);
        // Tear down.
        assert_eq!(
            cuMemAddressFree(base, 2 * gran),
            CUDA_ERROR_INVALID_VALUE,
            "still mapped"
        );
        for (a, s) in [(base, gran), (base + gran as u64, gran), (base2, gran)] {
            assert_eq!(cuMemUnmap(a, s), 0);
        }
        assert_eq!(cuMemAddressFree(base, 2 * gran), 0);
        assert_eq!(cuMemAddressFree(base2, gran), 0);
        assert_eq!(cuMemRelease(h), 0);
        assert_eq!(cuMemRelease(h3), 0);
        assert_eq!(cuMemRelease(h3), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuModuleUnload(m), 0);
    }
}

#[test]
fn stream_memory_operations_order_streams() {
    let _g = setup();
    // SAFETY: driver entry points as documented in cuda.h.
    unsafe {
        let mut flag = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut flag, 16), 0);
        assert_eq!(cuMemsetD8_v2(flag, 0, 16), 0);
        let (mut a, mut b): (Handle, Handle) = (std::ptr::null_mut(), std::ptr::null_mut());
        assert_eq!(cuStreamCreate(&mut a, 1), 0);
        assert_eq!(cuStreamCreate(&mut b, 1), 0);
        // Stream a waits until the flag is >= 5, then writes 1 to the second word.
        assert_eq!(cuStreamWaitValue32_v2(a, flag, 5, 0), 0);
        assert_eq!(cuStreamWriteValue32_v2(a, flag + 4, 1, 0), 0);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(
            cuStreamQuery(a),
            CUDA_ERROR_NOT_READY,
            "a is blocked on the flag"
        );
        assert_eq!(cuStreamWriteValue32(b, flag, 6, 0), 0);
        assert_eq!(cuStreamSynchronize(a), 0);
        let mut words = [0u32; 2];
        assert_eq!(cuMemcpyDtoH_v2(words.as_mut_ptr().cast(), flag, 8), 0);
        assert_eq!(words, [6, 1]);
        assert_eq!(
            cuStreamWaitValue32(a, flag + 1, 1, 0),
            CUDA_ERROR_INVALID_VALUE,
            "misaligned"
        );
        assert_eq!(cuStreamWriteValue64(a, flag + 8, 1 << 40, 0), 0);
        assert_eq!(cuStreamSynchronize(a), 0);
        let mut w = 0u64;
        assert_eq!(cuMemcpyDtoH_v2((&mut w as *mut u64).cast(), flag + 8, 8), 0);
        assert_eq!(w, 1 << 40);
        cuStreamDestroy_v2(a);
        cuStreamDestroy_v2(b);
        cuMemFree_v2(flag);
    }
}

static SEEN: Mutex<Vec<String>> = Mutex::new(Vec::new());

unsafe extern "C" fn on_log(
    _data: *mut c_void,
    _level: u32,
    msg: *mut std::ffi::c_char,
    len: usize,
) {
    // SAFETY: the driver passes `len` bytes of message.
    let s = unsafe { std::slice::from_raw_parts(msg.cast::<u8>(), len) };
    SEEN.lock()
        .unwrap()
        .push(String::from_utf8_lossy(s).into_owned());
}

#[test]
fn driver_log_keeps_and_forwards_diagnostics() {
    let _g = setup();
    // SAFETY: driver entry points as documented in cuda.h.
    unsafe {
        let mut it = 0u32;
        assert_eq!(cuLogsCurrent(&mut it, 0), 0);
        let mut h: *mut c_void = std::ptr::null_mut();
        assert_eq!(
            cuLogsRegisterCallback(Some(on_log), std::ptr::null_mut(), &mut h),
            0
        );
        let bad = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { add.u32 %r1, 1, 2; ret; }\n\0";
        let mut m: Handle = std::ptr::null_mut();
        assert_eq!(
            cuModuleLoadData(&mut m, bad.as_ptr().cast()),
            CUDA_ERROR_INVALID_PTX
        );
        assert!(
            SEEN.lock()
                .unwrap()
                .iter()
                .any(|s| s.contains("does not compile")),
            "{:?}",
            SEEN.lock().unwrap()
        );
        let mut buf = vec![0u8; 4096];
        let mut size = buf.len();
        assert_eq!(
            cuLogsDumpToMemory(&mut it, buf.as_mut_ptr().cast(), &mut size, 0),
            0
        );
        let text = String::from_utf8_lossy(&buf[..size]);
        assert!(text.contains("does not compile"), "{text}");
        // The iterator advanced: nothing new since.
        let mut size2 = buf.len();
        assert_eq!(
            cuLogsDumpToMemory(&mut it, buf.as_mut_ptr().cast(), &mut size2, 0),
            0
        );
        assert_eq!(size2, 0);
        assert_eq!(cuLogsUnregisterCallback(h), 0);
        assert_eq!(cuLogsUnregisterCallback(h), CUDA_ERROR_INVALID_VALUE);
    }
}

#[test]
fn sass_only_libraries_fail_when_used_not_when_loaded() {
    let _g = setup();
    let fatbin = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/images/sass_only.fatbin"
    ))
    .unwrap();
    // SAFETY: driver entry points as documented in cuda.h.
    unsafe {
        let mut lib: Handle = std::ptr::null_mut();
        let none = std::ptr::null_mut();
        assert_eq!(
            cuLibraryLoadData(
                &mut lib,
                fatbin.as_ptr().cast(),
                std::ptr::null(),
                none,
                0,
                std::ptr::null(),
                none,
                0
            ),
            0
        );
        let mut k: Handle = std::ptr::null_mut();
        assert_eq!(cuLibraryGetKernel(&mut k, lib, c"vadd".as_ptr()), 0);
        let mut f: Handle = std::ptr::null_mut();
        assert_eq!(cuKernelGetFunction(&mut f, k), CUDA_ERROR_NO_BINARY_FOR_GPU);
        let mut m: Handle = std::ptr::null_mut();
        assert_eq!(
            cuModuleLoadData(&mut m, fatbin.as_ptr().cast()),
            CUDA_ERROR_NO_BINARY_FOR_GPU,
            "modules load eagerly"
        );
        assert_eq!(cuLibraryUnload(lib), 0);
    }
}

const ACC: &str = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry acc(.param .u64 p, .param .u32 v)\n{\n\t.reg .b32 %r<5>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [p];\n\tld.param.u32 %r1, [v];\n\tmov.u32 %r2, %tid.x;\n\tmul.wide.u32 %rd2, %r2, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tld.global.u32 %r3, [%rd3];\n\tadd.u32 %r4, %r3, %r1;\n\tst.global.u32 [%rd3], %r4;\n\tret;\n}\n\0";

/// Eight host threads, each with its own stream (four in a second, created context), launch
/// 100 dependent accumulations each and copy back asynchronously: no work is lost or
/// reordered within a stream, and every result is exact.
#[test]
fn eight_threads_with_their_own_streams_and_two_contexts() {
    let _g = setup();
    // SAFETY: driver entry points as documented in cuda.h.
    unsafe {
        let mut primary: Handle = std::ptr::null_mut();
        assert_eq!(cuCtxGetCurrent(&mut primary), 0);
        let mut second: Handle = std::ptr::null_mut();
        assert_eq!(cuCtxCreate_v2(&mut second, 0, 0), 0);
        let mut second_popped: Handle = std::ptr::null_mut();
        assert_eq!(cuCtxPopCurrent_v2(&mut second_popped), 0);
        assert_eq!(second_popped, second);
        let ctxs = [primary as usize, second as usize];
        let handles: Vec<_> = (0..8u32)
            .map(|t| {
                let ctx = ctxs[(t % 2) as usize];
                std::thread::spawn(move || {
                    assert_eq!(cuCtxSetCurrent(ctx as Handle), 0);
                    let mut m: Handle = std::ptr::null_mut();
                    assert_eq!(cuModuleLoadData(&mut m, ACC.as_ptr().cast()), 0);
                    let mut f: Handle = std::ptr::null_mut();
                    assert_eq!(cuModuleGetFunction(&mut f, m, c"acc".as_ptr()), 0);
                    let mut s: Handle = std::ptr::null_mut();
                    assert_eq!(cuStreamCreate(&mut s, 1), 0);
                    let mut buf = 0u64;
                    assert_eq!(cuMemAlloc_v2(&mut buf, 64 * 4), 0);
                    assert_eq!(cuMemsetD32Async(buf, t, 64, s), 0);
                    for i in 0..100u32 {
                        let mut p = buf;
                        let mut v = i + t;
                        let mut params = [
                            (&mut p as *mut u64).cast::<c_void>(),
                            (&mut v as *mut u32).cast(),
                        ];
                        assert_eq!(
                            cuLaunchKernel(
                                f,
                                1,
                                1,
                                1,
                                64,
                                1,
                                1,
                                0,
                                s,
                                params.as_mut_ptr(),
                                std::ptr::null_mut()
                            ),
                            0
                        );
                    }
                    let mut host: *mut c_void = std::ptr::null_mut();
                    assert_eq!(cuMemAllocHost_v2(&mut host, 256), 0);
                    assert_eq!(cuMemcpyDtoHAsync_v2(host, buf, 256, s), 0);
                    assert_eq!(cuStreamSynchronize(s), 0);
                    let got = std::slice::from_raw_parts(host.cast::<u32>(), 64).to_vec();
                    let want = t + (0..100).map(|i| i + t).sum::<u32>();
                    assert!(
                        got.iter().all(|&x| x == want),
                        "thread {t}: {got:?} != {want}"
                    );
                    assert_eq!(cuMemFreeHost(host), 0);
                    assert_eq!(cuMemFree_v2(buf), 0);
                    assert_eq!(cuStreamDestroy_v2(s), 0);
                    assert_eq!(cuModuleUnload(m), 0);
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(cuCtxDestroy_v2(second), 0);
        assert_eq!(cuCtxSetCurrent(primary), 0);
    }
}
