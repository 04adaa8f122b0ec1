//! The nvJitLink API with PTX, container, fatbin, object and library inputs, through the
//! exported entry points (as a C caller uses them): linking, the container it returns, logs,
//! and NVIDIA's error codes for misuse (measured on nvJitLink 13.5.37).

use ptxvm_nvjitlink::api::*;
use ptxvm_nvjitlink::*;
use ptxvm_vm::container::Container;
mod common;

use common::*;
use std::ffi::CString;
use std::ptr::{null, null_mut};

const KERNEL: &str = ".version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 r) add1(.param .b32 a);
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	mov.b32 %r1, 41;
	{
	.param .b32 a;
	.param .b32 r;
	st.param.b32 [a], %r1;
	call.uni (r), add1, (a);
	ld.param.b32 %r2, [r];
	}
	st.global.u32 [%rd1], %r2;
	ret;
}
";

const HELPER: &str = ".version 8.0
.target sm_80
.address_size 64
.visible .func (.param .b32 r) add1(.param .b32 a)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [a];
	add.s32 %r2, %r1, 1;
	st.param.b32 [r], %r2;
	ret;
}
";

/// A container of `ptx` for sm_80.
fn container(ptx: &str) -> Vec<u8> {
    let checked = std::sync::Arc::new(ptxvm_vm::check_ptx("c.ptx", ptx).unwrap());
    let model = ptxvm_vm::arch::model("sm_80").unwrap();
    Container::describe(ptx, "sm_80", &checked, model)
        .unwrap()
        .to_elf()
}

/// A fatbin with one entry of `kind` (1 PTX, 2 ELF, 8 NVVM IR) for `arch`, stored.
fn fatbin(entries: &[(u16, u32, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for &(kind, arch, payload) in entries {
        let mut p = payload.to_vec();
        if kind == 1 {
            p.push(0);
        }
        while !p.len().is_multiple_of(8) {
            p.push(0);
        }
        body.extend_from_slice(&kind.to_le_bytes());
        body.extend_from_slice(&0x0101u16.to_le_bytes());
        body.extend_from_slice(&64u32.to_le_bytes());
        body.extend_from_slice(&(p.len() as u64).to_le_bytes());
        body.extend_from_slice(&0u32.to_le_bytes()); // compressed size
        body.extend_from_slice(&0u32.to_le_bytes()); // options
        body.extend_from_slice(&0u16.to_le_bytes()); // minor
        body.extend_from_slice(&8u16.to_le_bytes()); // major
        body.extend_from_slice(&arch.to_le_bytes());
        body.extend_from_slice(&[0u8; 8]); // identifier
        body.extend_from_slice(&0x11u64.to_le_bytes()); // 64-bit, Linux
        body.extend_from_slice(&[0u8; 16]); // key, uncompressed size
        body.extend_from_slice(&p);
    }
    let mut f = Vec::new();
    f.extend_from_slice(&0xba55_ed50u32.to_le_bytes());
    f.extend_from_slice(&1u16.to_le_bytes());
    f.extend_from_slice(&16u16.to_le_bytes());
    f.extend_from_slice(&(body.len() as u64).to_le_bytes());
    f.extend_from_slice(&body);
    f
}

/// A host ELF object (x86-64, relocatable) with one section `name` holding `data`.
fn host_object(section: &str, data: &[u8]) -> Vec<u8> {
    let mut shstr = b"\0.shstrtab\0".to_vec();
    let name_at = shstr.len() as u32;
    shstr.extend_from_slice(section.as_bytes());
    shstr.push(0);
    let mut out = vec![0u8; 64];
    let data_at = out.len() as u64;
    out.extend_from_slice(data);
    let str_at = out.len() as u64;
    out.extend_from_slice(&shstr);
    while !out.len().is_multiple_of(8) {
        out.push(0);
    }
    let shoff = out.len() as u64;
    let sh = |name: u32, kind: u32, off: u64, size: u64| {
        let mut h = Vec::new();
        h.extend_from_slice(&name.to_le_bytes());
        h.extend_from_slice(&kind.to_le_bytes());
        h.extend_from_slice(&[0u8; 16]);
        h.extend_from_slice(&off.to_le_bytes());
        h.extend_from_slice(&size.to_le_bytes());
        h.extend_from_slice(&[0u8; 24]);
        h
    };
    out.extend_from_slice(&[0u8; 64]);
    out.extend(sh(1, 3, str_at, shstr.len() as u64));
    out.extend(sh(name_at, 1, data_at, data.len() as u64));
    let mut h = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0".to_vec();
    h.extend_from_slice(&1u16.to_le_bytes()); // ET_REL
    h.extend_from_slice(&62u16.to_le_bytes()); // EM_X86_64
    h.extend_from_slice(&1u32.to_le_bytes());
    h.extend_from_slice(&[0u8; 16]); // entry, phoff
    h.extend_from_slice(&shoff.to_le_bytes());
    h.extend_from_slice(&0u32.to_le_bytes());
    h.extend_from_slice(&64u16.to_le_bytes());
    h.extend_from_slice(&[0u8; 4]);
    h.extend_from_slice(&64u16.to_le_bytes());
    h.extend_from_slice(&3u16.to_le_bytes());
    h.extend_from_slice(&1u16.to_le_bytes());
    out[..64].copy_from_slice(&h);
    out
}

/// An `ar` archive of (name, bytes) members.
fn archive(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut a = b"!<arch>\n".to_vec();
    for (name, data) in members {
        a.extend_from_slice(
            format!(
                "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
                format!("{name}/"),
                0,
                0,
                0,
                644,
                data.len()
            )
            .as_bytes(),
        );
        a.extend_from_slice(data);
        if !data.len().is_multiple_of(2) {
            a.push(b'\n');
        }
    }
    a
}

/// Links `inputs` for sm_80 and returns the container.
fn link(inputs: &[(u32, Vec<u8>, &str)]) -> Container {
    let (r, h) = create(&["-arch=sm_80"]);
    assert_eq!(r, NVJITLINK_SUCCESS);
    for (ty, data, name) in inputs {
        assert_eq!(
            add(h, *ty, data, name),
            NVJITLINK_SUCCESS,
            "{}",
            error_log(h)
        );
    }
    assert_eq!(complete(h), NVJITLINK_SUCCESS, "{}", error_log(h));
    let c = Container::from_elf(&cubin(h)).expect("a ptxvm container");
    assert_eq!(linked_ptx(h), c.ptx);
    destroy(h);
    c
}

fn has_both(c: &Container) {
    assert!(c.ptx.contains(".entry k"), "{}", c.ptx);
    assert!(c.ptx.contains("add1"), "{}", c.ptx);
    assert!(ptxvm_vm::check_ptx("linked.ptx", &c.ptx).is_ok());
    assert_eq!(c.target, "sm_80");
    assert_eq!(c.kernels.len(), 1);
    assert_eq!(c.kernels[0].name, "k");
    assert_eq!(c.kernels[0].params, vec![(0, 8)]);
}

#[test]
fn version() {
    let (mut a, mut b) = (0, 0);
    // Without NVIDIA's library (for LTO-IR) the version comes with an error, so that clients
    // do not compile for nvJitLink (tests/no_real.rs, tests/ltoir.rs).
    let expect = if ptxvm_nvjitlink::real::lib().is_ok() {
        NVJITLINK_SUCCESS
    } else {
        NVJITLINK_ERROR_INTERNAL
    };
    // SAFETY: valid out-pointers; NULL ones are refused.
    unsafe {
        assert_eq!(nvJitLinkVersion(&mut a, &mut b), expect);
        assert_eq!(
            nvJitLinkVersion(null_mut(), &mut b),
            NVJITLINK_ERROR_NULL_INPUT
        );
    }
    assert_eq!((a, b), (13, 5));
    assert_eq!(ptxvm_nvjitlink_abi, 13);
}

#[test]
fn links_two_ptx_modules_into_a_container() {
    let c = link(&[
        (
            NVJITLINK_INPUT_PTX,
            KERNEL.as_bytes().to_vec(),
            "kernel.ptx",
        ),
        (
            NVJITLINK_INPUT_PTX,
            HELPER.as_bytes().to_vec(),
            "helper.ptx",
        ),
    ]);
    has_both(&c);
    // The versioned names of nvJitLink.h's inline wrappers are the same functions.
    let (r, mut h) = create(&["-arch=sm_80", "-verbose"]);
    assert_eq!(r, 0);
    let k = CString::new(KERNEL).unwrap();
    // SAFETY: valid arguments.
    unsafe {
        assert_eq!(
            __nvJitLinkAddData_13_5(
                h,
                NVJITLINK_INPUT_ANY,
                k.as_ptr().cast(),
                KERNEL.len(),
                null()
            ),
            0
        );
        assert_eq!(
            __nvJitLinkAddData_13_0(
                h,
                NVJITLINK_INPUT_PTX,
                HELPER.as_ptr().cast(),
                HELPER.len(),
                null()
            ),
            0
        );
        assert_eq!(__nvJitLinkComplete_13_3(h), 0);
    }
    let log = info_log(h);
    assert!(
        log.contains("Compiling entry function 'k' for 'sm_80'"),
        "{log}"
    );
    assert_eq!(error_log(h), "");
    // SAFETY: our handle.
    assert_eq!(unsafe { __nvJitLinkDestroy_13_1(&mut h) }, 0);
}

#[test]
fn containers_fatbins_objects_and_libraries_are_inputs() {
    let helper_container = container(HELPER);
    // A container given as a cubin, and as a fatbin's ELF entry.
    has_both(&link(&[
        (NVJITLINK_INPUT_PTX, KERNEL.into(), "kernel.ptx"),
        (
            NVJITLINK_INPUT_CUBIN,
            helper_container.clone(),
            "helper.cubin",
        ),
    ]));
    let fb = fatbin(&[(2, 80, &helper_container)]);
    has_both(&link(&[
        (NVJITLINK_INPUT_PTX, KERNEL.into(), "kernel.ptx"),
        (NVJITLINK_INPUT_FATBIN, fb, "helper.fatbin"),
    ]));
    // A fatbin with PTX for several archs: the best one for sm_80 (compute_90 is too new).
    let newer = HELPER
        .replace("sm_80", "sm_90")
        .replace("add.s32", "sub.s32");
    let fb = fatbin(&[
        (1, 75, HELPER.replace("sm_80", "sm_75").as_bytes()),
        (1, 90, newer.as_bytes()),
        (1, 80, HELPER.as_bytes()),
    ]);
    let c = link(&[
        (NVJITLINK_INPUT_PTX, KERNEL.into(), "kernel.ptx"),
        (NVJITLINK_INPUT_ANY, fb.clone(), "helper.fatbin"),
    ]);
    has_both(&c);
    assert!(!c.ptx.contains("sub.s32"));
    // A host object with the fatbin in .nv_fatbin, alone and in an archive.
    let obj = host_object(".nv_fatbin", &fb);
    has_both(&link(&[
        (NVJITLINK_INPUT_PTX, KERNEL.into(), "kernel.ptx"),
        (NVJITLINK_INPUT_OBJECT, obj.clone(), "helper.o"),
    ]));
    let lib = archive(&[("readme.txt", b"not device code"), ("helper.o", &obj)]);
    has_both(&link(&[
        (NVJITLINK_INPUT_PTX, KERNEL.into(), "kernel.ptx"),
        (NVJITLINK_INPUT_LIBRARY, lib.clone(), "libhelper.a"),
    ]));
    has_both(&link(&[
        (NVJITLINK_INPUT_ANY, KERNEL.into(), "kernel.ptx"),
        (NVJITLINK_INPUT_ANY, lib, "libhelper.a"),
    ]));
}

#[test]
fn add_file() {
    let dir = std::env::temp_dir().join(format!("ptxvm-nvjitlink-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let k = dir.join("kernel.ptx");
    let f = dir.join("helper.ptx");
    std::fs::write(&k, KERNEL).unwrap();
    std::fs::write(&f, HELPER).unwrap();
    let (_, h) = create(&["-arch=sm_80"]);
    for p in [&k, &f] {
        let c = CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: a C string.
        assert_eq!(
            unsafe { nvJitLinkAddFile(h, NVJITLINK_INPUT_PTX, c.as_ptr()) },
            0
        );
    }
    let missing = CString::new(dir.join("missing.ptx").to_str().unwrap()).unwrap();
    // SAFETY: C strings or NULL.
    unsafe {
        assert_eq!(
            nvJitLinkAddFile(h, NVJITLINK_INPUT_PTX, missing.as_ptr()),
            NVJITLINK_ERROR_INVALID_INPUT
        );
        assert_eq!(
            nvJitLinkAddFile(h, NVJITLINK_INPUT_PTX, null()),
            NVJITLINK_ERROR_NULL_INPUT
        );
    }
    assert!(error_log(h).contains("missing.ptx"));
    assert_eq!(complete(h), 0);
    has_both(&Container::from_elf(&cubin(h)).unwrap());
    destroy(h);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn options_are_checked_as_nvidia_does() {
    for (opts, code, log) in [
        (&[][..], NVJITLINK_ERROR_MISSING_ARCH, ""),
        (
            &["-arch=sm_80", "-bogus"][..],
            NVJITLINK_ERROR_UNRECOGNIZED_OPTION,
            "unrecognized option: -bogus",
        ),
        (
            &["-arch=sm_xx"][..],
            NVJITLINK_ERROR_UNRECOGNIZED_OPTION,
            "missing option value",
        ),
        (
            &["-arch=sm_1000"][..],
            NVJITLINK_ERROR_UNSUPPORTED_ARCH,
            "unsupported architecture",
        ),
        (
            &["-arch=sm_70"][..],
            NVJITLINK_ERROR_UNSUPPORTED_ARCH,
            "unsupported architecture",
        ),
        (
            &["-arch=sm_80", "-ptx"][..],
            NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS,
            "-ptx requires -lto",
        ),
        (
            &["-arch=compute_80"][..],
            NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS,
            "virtual arch requires -ptx",
        ),
        (
            &["-arch=sm_80", "-O2"][..],
            NVJITLINK_ERROR_UNRECOGNIZED_OPTION,
            "Only 0 and 3",
        ),
    ] {
        let (r, h) = create(opts);
        assert_eq!(r, code, "{opts:?}");
        // NVIDIA's library returns a handle holding the log even then.
        assert!(!h.is_null());
        assert!(error_log(h).contains(log), "{opts:?}: {}", error_log(h));
        destroy(h);
    }
    for ok in [
        &[
            "-arch=sm_90a",
            "-lto",
            "-O3",
            "-maxrregcount=32",
            "-Xptxas=-v",
            "-lineinfo",
            "-g",
        ][..],
        &[
            "-arch=compute_80",
            "-lto",
            "-ptx",
            "-Ofc=max",
            "-ftz=1",
            "-kernels-used=k",
        ][..],
        &[
            "-arch=sm_100f",
            "-time",
            "-verbose",
            "-no-cache",
            "-split-compile=0",
        ][..],
    ] {
        let (r, h) = create(ok);
        assert_eq!(r, 0, "{ok:?}: {}", error_log(h));
        destroy(h);
    }
    let o = ptxvm_nvjitlink::options::parse(
        &[
            "-arch=compute_80",
            "-lto",
            "-ptx",
            "-O3",
            "-maxrregcount=32",
        ]
        .map(String::from),
    )
    .unwrap();
    assert_eq!(
        (o.sm, o.virtual_arch, o.target().as_str()),
        (80, true, "sm_80")
    );
    assert_eq!(o.forward, vec!["-arch=compute_80", "-O3"]);
}

#[test]
fn errors_and_logs() {
    // NULL arguments.
    let mut n = 0usize;
    // SAFETY: NULL and valid pointers only.
    unsafe {
        assert_eq!(
            nvJitLinkCreate(null_mut(), 0, null()),
            NVJITLINK_ERROR_NULL_INPUT
        );
        let mut h: Handle = null_mut();
        assert_eq!(
            nvJitLinkCreate(&mut h, 1, null()),
            NVJITLINK_ERROR_NULL_INPUT
        );
        assert_eq!(nvJitLinkComplete(null_mut()), NVJITLINK_ERROR_NULL_INPUT);
        assert_eq!(
            nvJitLinkGetLinkedCubinSize(null_mut(), &mut n),
            NVJITLINK_ERROR_NULL_INPUT
        );
        assert_eq!(nvJitLinkDestroy(null_mut()), NVJITLINK_ERROR_NULL_INPUT);
        assert_eq!(nvJitLinkDestroy(&mut h), NVJITLINK_ERROR_NULL_INPUT);
        // A handle that was never made is refused, not dereferenced.
        let bogus = 0x1234usize as Handle;
        assert_eq!(nvJitLinkComplete(bogus), NVJITLINK_ERROR_INVALID_INPUT);
    }
    let (_, h) = create(&["-arch=sm_80"]);
    assert_eq!(error_log(h), "");
    // SAFETY: NULL data and output pointers are refused.
    unsafe {
        assert_eq!(
            nvJitLinkAddData(h, NVJITLINK_INPUT_PTX, null(), 5, null()),
            NVJITLINK_ERROR_INVALID_INPUT
        );
        assert_eq!(
            nvJitLinkAddData(h, NVJITLINK_INPUT_PTX, KERNEL.as_ptr().cast(), 0, null()),
            NVJITLINK_ERROR_INVALID_INPUT
        );
        assert_eq!(
            nvJitLinkGetErrorLogSize(h, null_mut()),
            NVJITLINK_ERROR_NULL_INPUT
        );
        // Before completion there is nothing to get.
        assert_eq!(
            nvJitLinkGetLinkedCubinSize(h, &mut n),
            NVJITLINK_ERROR_INTERNAL
        );
    }
    // Inputs of the wrong type.
    assert_eq!(
        add(h, NVJITLINK_INPUT_NONE, KERNEL.as_bytes(), "a.ptx"),
        NVJITLINK_ERROR_INCORRECT_INPUT_TYPE
    );
    assert_eq!(
        add(h, 99, KERNEL.as_bytes(), "a.ptx"),
        NVJITLINK_ERROR_INCORRECT_INPUT_TYPE
    );
    assert_eq!(
        add(h, NVJITLINK_INPUT_PTX, b"garbage", "g"),
        NVJITLINK_ERROR_INCORRECT_INPUT_TYPE
    );
    assert_eq!(
        add(h, NVJITLINK_INPUT_FATBIN, KERNEL.as_bytes(), "k"),
        NVJITLINK_ERROR_INCORRECT_INPUT_TYPE
    );
    assert_eq!(
        add(h, NVJITLINK_INPUT_LTOIR, KERNEL.as_bytes(), "k"),
        NVJITLINK_ERROR_INCORRECT_INPUT_TYPE
    );
    // LTO-IR needs -lto.
    let lto = [0xed, 0x43, 0x4e, 0x7f, 1, 2, 3, 4];
    assert_eq!(
        add(h, NVJITLINK_INPUT_LTOIR, &lto, "x.ltoir"),
        NVJITLINK_ERROR_LTO_NOT_ENABLED
    );
    // A cubin of SASS (an EM_CUDA ELF that is not a container) is refused with a reason.
    let mut sass = container(HELPER);
    let at = sass.windows(10).position(|w| w == b".ptxvm.ptx").unwrap();
    sass[at + 1] = b'X';
    assert_eq!(
        add(h, NVJITLINK_INPUT_CUBIN, &sass, "sass.cubin"),
        NVJITLINK_ERROR_UNRECOGNIZED_INPUT
    );
    // So is a fatbin with only SASS.
    let fb = fatbin(&[(2, 80, &sass)]);
    assert_eq!(
        add(h, NVJITLINK_INPUT_FATBIN, &fb, "sass.fatbin"),
        NVJITLINK_ERROR_UNRECOGNIZED_INPUT
    );
    let log = error_log(h);
    assert!(log.contains("unsupported input type: a.ptx"), "{log}");
    assert!(
        log.contains("does not match type NVJITLINK_INPUT_PTX"),
        "{log}"
    );
    assert!(
        log.contains("LTO-IR input cannot be used without LTO enabled (-lto)"),
        "{log}"
    );
    assert!(log.contains("SASS"), "{log}");
    // An undefined reference: NVIDIA's library answers INTERNAL and logs it.
    assert_eq!(
        add(h, NVJITLINK_INPUT_PTX, KERNEL.as_bytes(), "kernel.ptx"),
        0
    );
    assert_eq!(complete(h), NVJITLINK_ERROR_INTERNAL);
    assert!(error_log(h).contains("add1"), "{}", error_log(h));
    // A link completes once.
    assert_eq!(complete(h), NVJITLINK_ERROR_INTERNAL);
    assert_eq!(
        add(h, NVJITLINK_INPUT_PTX, HELPER.as_bytes(), "h.ptx"),
        NVJITLINK_ERROR_INTERNAL
    );
    let stale = h;
    destroy(h);
    // A destroyed handle is refused.
    assert_eq!(complete(stale), NVJITLINK_ERROR_INVALID_INPUT);

    // PTX the checker refuses: PTX_COMPILE, with ptxas's log format.
    let (_, h) = create(&["-arch=sm_80"]);
    let bad = HELPER.replace("add.s32 %r2, %r1, 1;", "add.s32 %r2, %r1, %nosuch;");
    assert_eq!(add(h, NVJITLINK_INPUT_PTX, bad.as_bytes(), "bad.ptx"), 0);
    assert_eq!(complete(h), NVJITLINK_ERROR_PTX_COMPILE);
    let log = error_log(h);
    assert!(
        log.starts_with("ptxas bad.ptx, line 8; error   : "),
        "{log}"
    );
    destroy(h);

    // A module newer than -arch is refused as the driver's JIT would.
    let (_, h) = create(&["-arch=sm_75"]);
    assert_eq!(add(h, NVJITLINK_INPUT_PTX, HELPER.as_bytes(), "h.ptx"), 0);
    assert_eq!(complete(h), NVJITLINK_ERROR_PTX_COMPILE);
    destroy(h);

    // -lto -ptx wants LTO-IR only.
    let (_, h) = create(&["-arch=sm_80", "-lto", "-ptx"]);
    assert_eq!(add(h, NVJITLINK_INPUT_PTX, HELPER.as_bytes(), "h.ptx"), 0);
    assert_eq!(complete(h), NVJITLINK_ERROR_INCORRECT_INPUT_TYPE);
    assert!(error_log(h).contains("-ptx requires that all inputs have LTOIR"));
    destroy(h);

    // Linked LTO-IR is not something ptxvm makes.
    let (_, h) = create(&["-arch=sm_80", "-lto"]);
    assert_eq!(complete(h), 0);
    // SAFETY: valid out-pointer.
    assert_eq!(
        unsafe { nvJitLinkGetLinkedLTOIRSize(h, &mut n) },
        NVJITLINK_ERROR_INVALID_INPUT
    );
    destroy(h);
}

#[test]
fn an_empty_link_gives_an_empty_container() {
    let c = link(&[]);
    assert!(c.kernels.is_empty());
    assert_eq!(c.target, "sm_80");
}

#[test]
fn threads_link_at_once() {
    let threads: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(|| {
                for _ in 0..5 {
                    has_both(&link(&[
                        (NVJITLINK_INPUT_PTX, KERNEL.into(), "kernel.ptx"),
                        (NVJITLINK_INPUT_PTX, HELPER.into(), "helper.ptx"),
                    ]));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn maxrregcount_bounds_every_kernel() {
    // 99 64-bit values live at once: a register pressure far above 38.
    let loads: String = (2..101)
        .map(|i| format!("\tld.global.u64 %rd{i}, [%rd1+{}];\n", 8 * i))
        .collect();
    let stores: String = (2..101)
        .map(|i| format!("\tst.global.u64 [%rd1+{}], %rd{i};\n", 8 * i))
        .collect();
    let many = KERNEL
        .replace(".reg .b64 %rd<2>;", ".reg .b64 %rd<101>;")
        .replace(
            "ld.param.u64 %rd1, [p];\n",
            &format!("ld.param.u64 %rd1, [p];\n{loads}{stores}"),
        );
    assert_ne!(many, KERNEL);
    let (_, h) = create(&["-arch=sm_80", "-maxrregcount=38"]);
    assert_eq!(add(h, NVJITLINK_INPUT_PTX, many.as_bytes(), "k.ptx"), 0);
    assert_eq!(add(h, NVJITLINK_INPUT_PTX, HELPER.as_bytes(), "h.ptx"), 0);
    assert_eq!(complete(h), 0, "{}", error_log(h));
    let c = Container::from_elf(&cubin(h)).unwrap();
    assert!(c.ptx.contains(".maxnreg 38"), "{}", c.ptx);
    assert_eq!(c.kernels[0].regs, 38);
    destroy(h);
}

#[test]
fn library_members_without_ptx_are_left_out() {
    // A member with only SASS (as NVIDIA's libcudadevrt.a) next to one with PTX.
    let mut sass = container(HELPER);
    let at = sass.windows(10).position(|w| w == b".ptxvm.ptx").unwrap();
    sass[at + 1] = b'X';
    let sass_obj = host_object(".nv_fatbin", &fatbin(&[(2, 80, &sass)]));
    let ptx_obj = host_object(".nv_fatbin", &fatbin(&[(1, 80, HELPER.as_bytes())]));
    let lib = archive(&[("devrt.o", &sass_obj), ("helper.o", &ptx_obj)]);
    let (_, h) = create(&["-arch=sm_80"]);
    assert_eq!(add(h, NVJITLINK_INPUT_PTX, KERNEL.as_bytes(), "k.ptx"), 0);
    assert_eq!(
        add(h, NVJITLINK_INPUT_LIBRARY, &lib, "libx.a"),
        0,
        "{}",
        error_log(h)
    );
    assert!(
        info_log(h).contains("left out libx.a(devrt.o)"),
        "{}",
        info_log(h)
    );
    assert_eq!(complete(h), 0, "{}", error_log(h));
    has_both(&Container::from_elf(&cubin(h)).unwrap());
    destroy(h);
    // Given as an object, the same SASS-only code is refused.
    let (_, h) = create(&["-arch=sm_80"]);
    assert_eq!(
        add(h, NVJITLINK_INPUT_OBJECT, &sass_obj, "devrt.o"),
        NVJITLINK_ERROR_UNRECOGNIZED_INPUT
    );
    destroy(h);
}
