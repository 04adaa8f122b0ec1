//! Tensor maps: `cuTensorMapEncodeTiled`, `cuTensorMapEncodeIm2col`, `cuTensorMapEncodeIm2colWide` and
//! `cuTensorMapReplaceAddress` on the VM's encoder (`ptxvm_vm::ops::tma`; the 128-byte layout
//! is ptxvm's own, `docs/tma.md`). A broken argument rule is `CUDA_ERROR_INVALID_VALUE` with
//! the rule in the driver log, as the real driver returns it.

use crate::driver::{Error, R, api, drv};
use crate::types::*;
use ptxvm_vm::ops::tma::{self, TMAP_ALIGN, TMAP_BYTES};
use std::ffi::c_void;

/// `n` elements at `p` (a client array), or `INVALID_VALUE` for a null pointer with `n > 0`.
///
/// # Safety
/// `p` is null or points to `n` readable elements.
unsafe fn slice<'a, T>(p: *const T, n: usize, what: &str) -> R<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Error::quiet(
            CUDA_ERROR_INVALID_VALUE,
            format!("{what} is NULL"),
        ));
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// Writes an encoded map to the client's `CUtensorMap`.
///
/// # Safety
/// `m` is a 64-byte aligned, writable CUtensorMap of 128 bytes (`check_map_ptr` checked the
/// alignment and NULL).
unsafe fn store_map(m: *mut c_void, b: &[u8; TMAP_BYTES]) {
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), m.cast::<u8>(), TMAP_BYTES) };
}

fn check_map_ptr(m: *mut c_void) -> R<()> {
    if m.is_null() || !(m as u64).is_multiple_of(TMAP_ALIGN) {
        return Err(Error::quiet(
            CUDA_ERROR_INVALID_VALUE,
            "tensorMap must be a non-NULL, 64-byte aligned CUtensorMap",
        ));
    }
    Ok(())
}

fn rank_of(rank: u32, lo: u32) -> R<usize> {
    if rank < lo || rank as usize > tma::MAX_RANK {
        return Err(Error::quiet(
            CUDA_ERROR_INVALID_VALUE,
            format!("tensorRank {rank} ({lo} to {})", tma::MAX_RANK),
        ));
    }
    Ok(rank as usize)
}

fn invalid(e: ptxvm_vm::VmError) -> Error {
    Error::quiet(CUDA_ERROR_INVALID_VALUE, e.to_string())
}

/// # Safety
/// The pointers are as documented for `cuTensorMapEncodeTiled` in `cuda.h`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuTensorMapEncodeTiled(
    tensor_map: *mut c_void,
    data_type: u32,
    rank: u32,
    global_address: *mut c_void,
    global_dim: *const u64,
    global_strides: *const u64,
    box_dim: *const u32,
    element_strides: *const u32,
    interleave: u32,
    swizzle: u32,
    l2_promotion: u32,
    oob_fill: u32,
) -> CUresult {
    api("cuTensorMapEncodeTiled", || {
        drv()?;
        check_map_ptr(tensor_map)?;
        let r = rank_of(rank, 1)?;
        // SAFETY: the client's arrays of the documented lengths.
        let (dims, strides, boxdim, estrides) = unsafe {
            (
                slice(global_dim, r, "globalDim")?,
                slice(global_strides, r - 1, "globalStrides")?,
                slice(box_dim, r, "boxDim")?,
                slice(element_strides, r, "elementStrides")?,
            )
        };
        let b = ptxvm_vm::tensor_map_encode_tiled(&tma::Tiled {
            data_type,
            addr: global_address as u64,
            dims,
            strides,
            boxdim,
            estrides,
            interleave,
            swizzle,
            l2: l2_promotion,
            fill: oob_fill,
        })
        .map_err(invalid)?;
        // SAFETY: `tensor_map` passed `check_map_ptr`: the client's CUtensorMap.
        unsafe { store_map(tensor_map, &b) };
        Ok(())
    })
}

/// # Safety
/// The pointers are as documented for `cuTensorMapEncodeIm2col` in `cuda.h`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuTensorMapEncodeIm2col(
    tensor_map: *mut c_void,
    data_type: u32,
    rank: u32,
    global_address: *mut c_void,
    global_dim: *const u64,
    global_strides: *const u64,
    lower: *const i32,
    upper: *const i32,
    channels_per_pixel: u32,
    pixels_per_column: u32,
    element_strides: *const u32,
    interleave: u32,
    swizzle: u32,
    l2_promotion: u32,
    oob_fill: u32,
) -> CUresult {
    api("cuTensorMapEncodeIm2col", || {
        drv()?;
        check_map_ptr(tensor_map)?;
        let r = rank_of(rank, 3)?;
        // SAFETY: the client's arrays of the documented lengths.
        let (dims, strides, lo, hi, estrides) = unsafe {
            (
                slice(global_dim, r, "globalDim")?,
                slice(global_strides, r - 1, "globalStrides")?,
                slice(lower, r - 2, "pixelBoxLowerCorner")?,
                slice(upper, r - 2, "pixelBoxUpperCorner")?,
                slice(element_strides, r, "elementStrides")?,
            )
        };
        let b = ptxvm_vm::tensor_map_encode_im2col(&tma::Im2col {
            data_type,
            addr: global_address as u64,
            dims,
            strides,
            lower: lo,
            upper: hi,
            channels: channels_per_pixel,
            pixels: pixels_per_column,
            estrides,
            interleave,
            swizzle,
            l2: l2_promotion,
            fill: oob_fill,
        })
        .map_err(invalid)?;
        // SAFETY: `tensor_map` passed `check_map_ptr`: the client's CUtensorMap.
        unsafe { store_map(tensor_map, &b) };
        Ok(())
    })
}

/// # Safety
/// The pointers are as documented for `cuTensorMapEncodeIm2colWide` in `cuda.h`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuTensorMapEncodeIm2colWide(
    tensor_map: *mut c_void,
    data_type: u32,
    rank: u32,
    global_address: *mut c_void,
    global_dim: *const u64,
    global_strides: *const u64,
    lower_w: i32,
    upper_w: i32,
    channels_per_pixel: u32,
    pixels_per_column: u32,
    element_strides: *const u32,
    interleave: u32,
    mode: u32,
    swizzle: u32,
    l2_promotion: u32,
    oob_fill: u32,
) -> CUresult {
    api("cuTensorMapEncodeIm2colWide", || {
        drv()?;
        check_map_ptr(tensor_map)?;
        let r = rank_of(rank, 3)?;
        // SAFETY: the client's arrays of the documented lengths.
        let (dims, strides, estrides) = unsafe {
            (
                slice(global_dim, r, "globalDim")?,
                slice(global_strides, r - 1, "globalStrides")?,
                slice(element_strides, r, "elementStrides")?,
            )
        };
        let b = ptxvm_vm::tensor_map_encode_im2col_wide(&tma::Im2colWide {
            data_type,
            addr: global_address as u64,
            dims,
            strides,
            lower: lower_w,
            upper: upper_w,
            channels: channels_per_pixel,
            pixels: pixels_per_column,
            estrides,
            interleave,
            mode,
            swizzle,
            l2: l2_promotion,
            fill: oob_fill,
        })
        .map_err(invalid)?;
        // SAFETY: `tensor_map` passed `check_map_ptr`: the client's CUtensorMap.
        unsafe { store_map(tensor_map, &b) };
        Ok(())
    })
}

/// # Safety
/// `tensor_map` is a CUtensorMap the client encoded.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuTensorMapReplaceAddress(
    tensor_map: *mut c_void,
    global_address: *mut c_void,
) -> CUresult {
    api("cuTensorMapReplaceAddress", || {
        drv()?;
        check_map_ptr(tensor_map)?;
        let mut b = [0u8; TMAP_BYTES];
        // SAFETY: a 64-byte aligned CUtensorMap (128 bytes) of the client's.
        unsafe {
            std::ptr::copy_nonoverlapping(tensor_map.cast::<u8>(), b.as_mut_ptr(), TMAP_BYTES)
        };
        ptxvm_vm::tensor_map_replace_address(&mut b, global_address as u64).map_err(invalid)?;
        // SAFETY: `tensor_map` passed `check_map_ptr`: the client's CUtensorMap.
        unsafe { store_map(tensor_map, &b) };
        Ok(())
    })
}
