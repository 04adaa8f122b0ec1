//! Without NVIDIA's nvJitLink: LTO-IR is refused with a clear message, `nvJitLinkVersion`
//! reports an error (so that numba-cuda compiles PTX instead), and PTX still links.

mod common;

use common::*;
use ptxvm_nvjitlink::api::*;
use ptxvm_nvjitlink::*;

const LTOIR: &[u8] = include_bytes!("data/kernel.ltoir");

#[test]
fn ltoir_needs_nvidias_library() {
    // SAFETY: the only test of this binary sets it before any other thread reads it.
    unsafe { std::env::set_var("PTXVM_REAL_NVJITLINK", "/nonexistent/libnvJitLink.so.13") };
    let (mut a, mut b) = (0, 0);
    // SAFETY: valid out-pointers.
    assert_eq!(
        unsafe { nvJitLinkVersion(&mut a, &mut b) },
        NVJITLINK_ERROR_INTERNAL
    );
    assert_eq!((a, b), (13, 5));
    let (r, h) = create(&["-arch=sm_80", "-lto"]);
    assert_eq!(r, 0);
    assert_eq!(
        add(h, NVJITLINK_INPUT_LTOIR, LTOIR, "kernel.ltoir"),
        NVJITLINK_ERROR_UNRECOGNIZED_INPUT
    );
    let log = error_log(h);
    assert!(log.contains("kernel.ltoir"), "{log}");
    assert!(
        log.contains("PTXVM_REAL_NVJITLINK=/nonexistent/libnvJitLink.so.13"),
        "{log}"
    );
    let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
    assert_eq!(add(h, NVJITLINK_INPUT_PTX, ptx.as_bytes(), "k.ptx"), 0);
    assert_eq!(complete(h), 0, "{}", error_log(h));
    destroy(h);
}
