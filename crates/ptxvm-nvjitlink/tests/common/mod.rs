//! Calling the exported entry points as a C caller does.

#![allow(dead_code)]

use ptxvm_nvjitlink::api::*;
use ptxvm_nvjitlink::*;
use std::ffi::{CString, c_char};
use std::ptr::null_mut;

pub fn create(opts: &[&str]) -> (u32, Handle) {
    let c: Vec<CString> = opts.iter().map(|o| CString::new(*o).unwrap()).collect();
    let p: Vec<*const c_char> = c.iter().map(|o| o.as_ptr()).collect();
    let mut h: Handle = null_mut();
    // SAFETY: valid out-pointer and option array.
    let r = unsafe { nvJitLinkCreate(&mut h, p.len() as u32, p.as_ptr()) };
    (r, h)
}

pub fn add(h: Handle, ty: u32, data: &[u8], name: &str) -> u32 {
    let name = CString::new(name).unwrap();
    // SAFETY: `data.len()` bytes, a C string.
    unsafe { nvJitLinkAddData(h, ty, data.as_ptr().cast(), data.len(), name.as_ptr()) }
}

pub fn complete(h: Handle) -> u32 {
    // SAFETY: no pointers.
    unsafe { nvJitLinkComplete(h) }
}

pub fn destroy(mut h: Handle) {
    // SAFETY: our handle.
    assert_eq!(unsafe { nvJitLinkDestroy(&mut h) }, NVJITLINK_SUCCESS);
    assert!(h.is_null());
}

pub fn cubin(h: Handle) -> Vec<u8> {
    let mut n = 0usize;
    // SAFETY: valid pointers; a buffer of the size reported.
    unsafe {
        assert_eq!(nvJitLinkGetLinkedCubinSize(h, &mut n), NVJITLINK_SUCCESS);
        let mut b = vec![0u8; n];
        assert_eq!(
            nvJitLinkGetLinkedCubin(h, b.as_mut_ptr().cast()),
            NVJITLINK_SUCCESS
        );
        b
    }
}

pub fn linked_ptx(h: Handle) -> String {
    let mut n = 0usize;
    // SAFETY: valid pointers; a buffer of the size reported.
    unsafe {
        assert_eq!(nvJitLinkGetLinkedPtxSize(h, &mut n), NVJITLINK_SUCCESS);
        let mut b = vec![0xffu8; n];
        assert_eq!(
            nvJitLinkGetLinkedPtx(h, b.as_mut_ptr().cast()),
            NVJITLINK_SUCCESS
        );
        assert_eq!(b.last(), Some(&0), "NUL-terminated");
        String::from_utf8(b[..n - 1].to_vec()).unwrap()
    }
}

pub fn error_log(h: Handle) -> String {
    let mut n = 12345usize;
    // SAFETY: valid pointers; a buffer of the size reported.
    unsafe {
        assert_eq!(nvJitLinkGetErrorLogSize(h, &mut n), NVJITLINK_SUCCESS);
        if n == 0 {
            return String::new();
        }
        let mut b = vec![0xffu8; n];
        assert_eq!(
            nvJitLinkGetErrorLog(h, b.as_mut_ptr().cast()),
            NVJITLINK_SUCCESS
        );
        assert_eq!(b.last(), Some(&0), "the size counts the NUL");
        String::from_utf8(b[..n - 1].to_vec()).unwrap()
    }
}

pub fn info_log(h: Handle) -> String {
    let mut n = 0usize;
    // SAFETY: valid pointers; a buffer of the size reported.
    unsafe {
        assert_eq!(nvJitLinkGetInfoLogSize(h, &mut n), NVJITLINK_SUCCESS);
        if n == 0 {
            return String::new();
        }
        let mut b = vec![0u8; n];
        assert_eq!(
            nvJitLinkGetInfoLog(h, b.as_mut_ptr().cast()),
            NVJITLINK_SUCCESS
        );
        String::from_utf8(b[..n - 1].to_vec()).unwrap()
    }
}
