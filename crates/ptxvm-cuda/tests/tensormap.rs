//! Tensor maps through the driver API: `cuTensorMapEncodeTiled` over a device buffer feeds a
//! TMA kernel (`tests/run/tma/load_2d.ptx`: a 2D box loaded into shared memory and copied
//! out); `cuTensorMapReplaceAddress` moves the map to another buffer; broken argument rules
//! are `CUDA_ERROR_INVALID_VALUE` (the rules of `cuda.h`), and `cuTensorMapEncodeIm2col` and
//! `cuTensorMapEncodeIm2colWide` check their own.

use cuda::abi::*;
use cuda::context::*;
use cuda::entry::*;
use cuda::launch::*;
use cuda::memory::*;
use cuda::module::*;
use cuda::tensormap::*;
use cuda::types::*;
use std::ffi::c_void;

#[repr(C, align(64))]
struct Map([u8; 128]);

const KERNEL: &str = include_str!("../../../tests/run/tma/load_2d.ptx");

/// The 12 x 6 tensor of `load_2d.ptx` (u32, element i holds i + 1, rows 64 bytes apart),
/// box 8 x 4 at (4, 1): out[8 r + c] = 16 (1 + r) + 4 + c + 1, plus `base`.
fn expected(base: u32) -> Vec<u32> {
    (0..32u32)
        .map(|k| 16 * (1 + k / 8) + 4 + k % 8 + 1 + base)
        .collect()
}

#[test]
fn encode_tiled_feeds_a_tma_kernel_and_rules_are_checked() {
    // SAFETY: driver entry points as documented in cuda.h, with valid pointers.
    unsafe {
        // The kernel targets sm_90a: the driver emulates that GPU (the only test in this
        // process, so nothing else reads the environment concurrently).
        std::env::set_var("PTXVM_ARCH", "sm_90a");
        assert_eq!(cuInit(0), 0);
        let mut ctx: Handle = std::ptr::null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
        assert_eq!(cuCtxSetCurrent(ctx), 0);
        let (mut a, mut b, mut out) = (0u64, 0u64, 0u64);
        assert_eq!(cuMemAlloc_v2(&mut a, 96 * 4), 0);
        assert_eq!(cuMemAlloc_v2(&mut b, 96 * 4), 0);
        assert_eq!(cuMemAlloc_v2(&mut out, 32 * 4), 0);
        let ta: Vec<u32> = (1..=96).collect();
        let tb: Vec<u32> = (1001..=1096).collect();
        assert_eq!(cuMemcpyHtoD_v2(a, ta.as_ptr().cast(), 96 * 4), 0);
        assert_eq!(cuMemcpyHtoD_v2(b, tb.as_ptr().cast(), 96 * 4), 0);

        let dims = [12u64, 6];
        let strides = [64u64];
        let boxdim = [8u32, 4];
        let ones = [1u32, 1];
        let mut map = Map([0; 128]);
        let m = map.0.as_mut_ptr().cast::<c_void>();
        let enc = |m: *mut c_void,
                   dt: u32,
                   rank: u32,
                   addr: u64,
                   st: &[u64],
                   bx: &[u32],
                   sw: u32,
                   fill: u32| {
            cuTensorMapEncodeTiled(
                m,
                dt,
                rank,
                addr as *mut c_void,
                dims.as_ptr(),
                st.as_ptr(),
                bx.as_ptr(),
                ones.as_ptr(),
                0,
                sw,
                0,
                fill,
            )
        };
        // CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2.
        assert_eq!(enc(m, 2, 2, a, &strides, &boxdim, 0, 0), 0);

        let mut module: Handle = std::ptr::null_mut();
        let text = format!("{KERNEL}\0");
        assert_eq!(cuModuleLoadData(&mut module, text.as_ptr().cast()), 0);
        let mut f: Handle = std::ptr::null_mut();
        assert_eq!(cuModuleGetFunction(&mut f, module, c"k".as_ptr()), 0);
        let run = |map: &mut Map, src: u64| {
            let (mut s, mut o) = (src, out);
            let mut params = [
                (&mut s as *mut u64).cast::<c_void>(),
                (&mut o as *mut u64).cast(),
                map.0.as_mut_ptr().cast(),
            ];
            assert_eq!(
                cuLaunchKernel(
                    f,
                    1,
                    1,
                    1,
                    1,
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
            let mut got = vec![0u32; 32];
            assert_eq!(cuMemcpyDtoH_v2(got.as_mut_ptr().cast(), out, 32 * 4), 0);
            got
        };
        assert_eq!(run(&mut map, a), expected(0));
        // The map, not the kernel's `src` parameter, says where the tensor is.
        assert_eq!(cuTensorMapReplaceAddress(m, b as *mut c_void), 0);
        assert_eq!(run(&mut map, a), expected(1000));

        // The rules of cuda.h: each broken one is CUDA_ERROR_INVALID_VALUE.
        let inval = CUDA_ERROR_INVALID_VALUE;
        let mis = map.0.as_mut_ptr().add(8).cast::<c_void>();
        assert_eq!(
            enc(mis, 2, 2, a, &strides, &boxdim, 0, 0),
            inval,
            "map not 64-byte aligned"
        );
        assert_eq!(
            enc(std::ptr::null_mut(), 2, 2, a, &strides, &boxdim, 0, 0),
            inval
        );
        assert_eq!(enc(m, 2, 0, a, &strides, &boxdim, 0, 0), inval, "rank 0");
        assert_eq!(enc(m, 2, 6, a, &strides, &boxdim, 0, 0), inval, "rank 6");
        assert_eq!(
            enc(m, 16, 2, a, &strides, &boxdim, 0, 0),
            inval,
            "data type"
        );
        assert_eq!(
            enc(m, 2, 2, a + 8, &strides, &boxdim, 0, 0),
            inval,
            "address alignment"
        );
        assert_eq!(
            enc(m, 2, 2, a, &[40], &boxdim, 0, 0),
            inval,
            "stride multiple of 16"
        );
        assert_eq!(
            enc(m, 2, 2, a, &strides, &[3, 4], 0, 0),
            inval,
            "inner box bytes"
        );
        assert_eq!(
            enc(m, 2, 2, a, &strides, &[8, 257], 0, 0),
            inval,
            "box above 256"
        );
        assert_eq!(
            enc(m, 2, 2, a, &strides, &[16, 4], 1, 0),
            inval,
            "box wider than the swizzle"
        );
        assert_eq!(
            enc(m, 2, 2, a, &strides, &boxdim, 7, 0),
            inval,
            "swizzle enum"
        );
        assert_eq!(
            enc(m, 2, 2, a, &strides, &boxdim, 0, 1),
            inval,
            "NaN fill of integers"
        );
        assert_eq!(cuTensorMapReplaceAddress(m, (b + 4) as *mut c_void), inval);

        // The packed sub-byte types (13 16U4_ALIGN8B, 14 16U4_ALIGN16B, 15 16U6_ALIGN16B) and
        // their rules in cuda.h: dims count the 4/6-bit values; the 16-byte aligned ones need
        // a 32-byte aligned address, globalDim[0] a multiple of 128, strides multiples of 32,
        // boxDim[0] = 128, the swizzles NONE/128B/128B_ATOM_*; 16U4_ALIGN8B an even
        // globalDim[0]; none of them the NaN fill.
        let packed =
            |dt: u32, addr: u64, d: [u64; 2], st: u64, bx: [u32; 2], sw: u32, fill: u32| {
                cuTensorMapEncodeTiled(
                    m,
                    dt,
                    2,
                    addr as *mut c_void,
                    d.as_ptr(),
                    [st].as_ptr(),
                    bx.as_ptr(),
                    ones.as_ptr(),
                    0,
                    sw,
                    0,
                    fill,
                )
            };
        assert_eq!(packed(14, a, [256, 2], 128, [128, 2], 0, 0), 0);
        assert_eq!(packed(15, a, [256, 2], 192, [128, 2], 3, 0), 0);
        assert_eq!(packed(13, a, [64, 2], 32, [32, 2], 1, 0), 0);
        assert_eq!(
            packed(15, a, [256, 2], 192, [64, 2], 0, 0),
            inval,
            "boxDim[0] 64"
        );
        assert_eq!(
            packed(15, a, [192, 2], 192, [128, 2], 0, 0),
            inval,
            "globalDim[0] 192"
        );
        assert_eq!(
            packed(15, a, [256, 2], 208, [128, 2], 0, 0),
            inval,
            "stride 208"
        );
        assert_eq!(
            packed(14, a + 16, [256, 2], 128, [128, 2], 0, 0),
            inval,
            "32-byte address"
        );
        assert_eq!(
            packed(15, a, [256, 2], 192, [128, 2], 1, 0),
            inval,
            "32-byte swizzle"
        );
        assert_eq!(
            packed(14, a, [256, 2], 128, [128, 2], 6, 0),
            inval,
            "ATOM_64B with 16U4"
        );
        assert_eq!(
            packed(14, a, [256, 2], 128, [128, 2], 0, 1),
            inval,
            "NaN fill"
        );
        assert_eq!(
            packed(13, a, [63, 2], 32, [32, 2], 0, 0),
            inval,
            "odd globalDim[0]"
        );

        // im2col: a rank-4 NHWC f16 tensor, corners within [-128, 127] for rank 4.
        let d4 = [16u64, 8, 8, 2];
        let s4 = [32u64, 256, 2048];
        let e4 = [1u32; 4];
        let im2col = |lo: [i32; 2], ch: u32| {
            cuTensorMapEncodeIm2col(
                m,
                6,
                4,
                a as *mut c_void,
                d4.as_ptr(),
                s4.as_ptr(),
                lo.as_ptr(),
                [1, 1].as_ptr(),
                ch,
                64,
                e4.as_ptr(),
                0,
                0,
                0,
                0,
            )
        };
        assert_eq!(im2col([-1, -1], 16), 0);
        assert_eq!(im2col([-200, -1], 16), inval);
        assert_eq!(
            im2col([-1, -1], 4),
            inval,
            "channels x 2 bytes not a multiple of 16"
        );
        // cuTensorMapEncodeIm2colWide: one W corner each in [-32768, 32767], a 64/128-byte
        // swizzle, no interleave, mode W (pixels 1..1024) or W128 (pixels ignored).
        let wide = |lo: i32, pixels: u32, interleave: u32, mode: u32, swizzle: u32| {
            cuTensorMapEncodeIm2colWide(
                m,
                6,
                4,
                a as *mut c_void,
                d4.as_ptr(),
                s4.as_ptr(),
                lo,
                0,
                16,
                pixels,
                e4.as_ptr(),
                interleave,
                mode,
                swizzle,
                0,
                0,
            )
        };
        assert_eq!(wide(-300, 64, 0, 0, 2), 0);
        assert_eq!(wide(-1, 0, 0, 1, 3), 0, "W128 ignores the pixels");
        assert_eq!(wide(-40000, 64, 0, 0, 2), inval, "corner range");
        assert_eq!(wide(-1, 0, 0, 0, 2), inval, "W mode needs pixels");
        assert_eq!(wide(-1, 64, 0, 0, 0), inval, "no swizzle");
        assert_eq!(wide(-1, 64, 1, 0, 2), inval, "interleave");
        assert_eq!(wide(-1, 64, 0, 2, 2), inval, "mode enum");
        assert_eq!(wide(8, 64, 0, 0, 2), inval, "zero-area box");
        assert_eq!(cuMemFree_v2(a), 0);
        assert_eq!(cuMemFree_v2(b), 0);
        assert_eq!(cuMemFree_v2(out), 0);
    }
}
