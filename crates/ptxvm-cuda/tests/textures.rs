//! CUDA arrays, texture and surface objects through the driver's entry points, as a C client
//! calls them: an array filled with `cuMemcpy2D`, a linear-filtered texture sampled by a
//! kernel (expected values worked out by hand from the fixed-point formula), a surface
//! written by a kernel and copied back, descriptors, and destroyed handles; a mipmapped array
//! (levels through `cuMipmappedArrayGetLevel`) sampled with `.level`/`.grad`.

use cuda::abi::*;
use cuda::context::*;
use cuda::entry::*;
use cuda::launch::*;
use cuda::memory::*;
use cuda::module::*;
use cuda::texture::*;
use cuda::types::*;
use std::ffi::c_void;

const PTX: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
.visible .entry sample(.param .u64 t, .param .u64 o)\n{\n .reg .b64 %rd<4>;\n .reg .f32 %f<8>;\n\
 ld.param.u64 %rd1, [t];\n ld.param.u64 %rd2, [o];\n mov.f32 %f1, 0f3FC00000;\n mov.f32 %f2, 0f3F800000;\n\
 tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];\n st.global.f32 [%rd2], %f3;\n\
 mov.f32 %f1, 0f3F400000;\n tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f1}];\n st.global.f32 [%rd2+4], %f3;\n ret;\n}\n\
.visible .entry write(.param .u64 s)\n{\n .reg .b64 %rd<2>;\n .reg .b32 %r<6>;\n ld.param.u64 %rd1, [s];\n\
 mov.u32 %r1, %tid.x;\n mov.u32 %r2, %tid.y;\n shl.b32 %r3, %r1, 2;\n mad.lo.u32 %r4, %r2, 10, %r1;\n\
 sust.b.2d.b32.trap [%rd1, {%r3, %r2}], %r4;\n ret;\n}\n\0";

fn launch(f: Handle, block: (u32, u32), params: &mut [*mut c_void]) {
    // SAFETY: a loaded function and parameter pointers that outlive the call.
    unsafe {
        assert_eq!(
            cuLaunchKernel(
                f,
                1,
                1,
                1,
                block.0,
                block.1,
                1,
                0,
                std::ptr::null_mut(),
                params.as_mut_ptr(),
                std::ptr::null_mut()
            ),
            0
        );
        assert_eq!(cuCtxSynchronize(), 0);
    }
}

fn copy2d(
    dst_array: Handle,
    dst_host: *mut c_void,
    src_array: Handle,
    src_host: *const c_void,
    w: usize,
    h: usize,
) -> CUresult {
    let c = CUDA_MEMCPY2D {
        src_x_in_bytes: 0,
        src_y: 0,
        src_memory_type: if src_array.is_null() { 1 } else { 3 },
        src_host,
        src_device: 0,
        src_array,
        src_pitch: w,
        dst_x_in_bytes: 0,
        dst_y: 0,
        dst_memory_type: if dst_array.is_null() { 1 } else { 3 },
        dst_host,
        dst_device: 0,
        dst_array,
        dst_pitch: w,
        width_in_bytes: w,
        height: h,
    };
    // SAFETY: a valid descriptor of host buffers the caller owns.
    unsafe { cuMemcpy2D_v2(&c) }
}

#[test]
fn arrays_textures_and_surfaces() {
    // SAFETY: driver entry points as documented in cuda.h, with valid pointers.
    unsafe {
        assert_eq!(cuInit(0), 0);
        let mut ctx: Handle = std::ptr::null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
        assert_eq!(cuCtxSetCurrent(ctx), 0);
        let mut m: Handle = std::ptr::null_mut();
        assert_eq!(cuModuleLoadData(&mut m, PTX.as_ptr().cast()), 0);
        let (mut fs, mut fw): (Handle, Handle) = (std::ptr::null_mut(), std::ptr::null_mut());
        assert_eq!(cuModuleGetFunction(&mut fs, m, c"sample".as_ptr()), 0);
        assert_eq!(cuModuleGetFunction(&mut fw, m, c"write".as_ptr()), 0);

        // A 4x3 float array holding 0..11 (row-major), copied in with cuMemcpy2D.
        let mut arr: Handle = std::ptr::null_mut();
        let d = CUDA_ARRAY_DESCRIPTOR {
            width: 4,
            height: 3,
            format: 0x20,
            num_channels: 1,
        };
        assert_eq!(cuArrayCreate_v2(&mut arr, &d), 0);
        let vals: Vec<f32> = (0..12).map(|i| i as f32).collect();
        assert_eq!(
            copy2d(
                arr,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                vals.as_ptr().cast(),
                16,
                3
            ),
            0
        );
        let mut back = CUDA_ARRAY3D_DESCRIPTOR {
            width: 0,
            height: 0,
            depth: 9,
            format: 0,
            num_channels: 0,
            flags: 0,
        };
        assert_eq!(cuArray3DGetDescriptor_v2(&mut back, arr), 0);
        assert_eq!(
            (
                back.width,
                back.height,
                back.depth,
                back.format,
                back.num_channels
            ),
            (4, 3, 0, 0x20, 1)
        );

        // Linear filtering, clamp, unnormalized coordinates.
        let mut res = CUDA_RESOURCE_DESC {
            res_type: 0,
            res: [0; 16],
            flags: 0,
        };
        res.res[0] = arr as u64;
        let td = CUDA_TEXTURE_DESC {
            address_mode: [1, 1, 1],
            filter_mode: 1,
            flags: 0,
            max_anisotropy: 0,
            mipmap_filter_mode: 0,
            mipmap_level_bias: 0.0,
            min_mipmap_level_clamp: 0.0,
            max_mipmap_level_clamp: 0.0,
            border_color: [0.0; 4],
            reserved: [0; 12],
        };
        let mut tex = 0u64;
        assert_eq!(cuTexObjectCreate(&mut tex, &res, &td, std::ptr::null()), 0);
        let mut out: CUdeviceptr = 0;
        assert_eq!(cuMemAlloc_v2(&mut out, 8), 0);
        let mut params = [
            (&mut tex as *mut u64).cast::<c_void>(),
            (&mut out as *mut u64).cast(),
        ];
        launch(fs, (1, 1), &mut params);
        let mut got = [0f32; 2];
        assert_eq!(cuMemcpyDtoH_v2(got.as_mut_ptr().cast(), out, 8), 0);
        // (1.5, 1.0): x_B = 1.0 (α 0), y_B = 0.5 (β = 128/256): 0.5·T[0][1] + 0.5·T[1][1] = 3.
        // (0.75, 0.75): x_B = y_B = 0.25 (k = 64): clamped i = j = 0, weights 0.75/0.25 per
        // axis: 0.5625·0 + 0.1875·1 + 0.1875·4 + 0.0625·5 = 1.25.
        assert_eq!(got, [3.0, 1.25]);
        let mut rd = CUDA_RESOURCE_DESC {
            res_type: 9,
            res: [0; 16],
            flags: 0,
        };
        assert_eq!(cuTexObjectGetResourceDesc(&mut rd, tex), 0);
        assert_eq!(
            (rd.res_type, rd.res[2], rd.res[3], rd.res[4]),
            (3, 4, 3, 16)
        );
        let mut tdb = td;
        tdb.filter_mode = 7;
        assert_eq!(cuTexObjectGetTextureDesc(&mut tdb, tex), 0);
        assert_eq!(tdb.filter_mode, 1);
        assert_eq!(cuTexObjectDestroy(tex), 0);
        assert_ne!(cuTexObjectDestroy(tex), 0);

        // A 5x2 surface array of u32: the kernel writes 10y + x; cuMemcpy2D reads it back.
        let mut sarr: Handle = std::ptr::null_mut();
        let d3 = CUDA_ARRAY3D_DESCRIPTOR {
            width: 5,
            height: 2,
            depth: 0,
            format: 0x03,
            num_channels: 1,
            flags: 2,
        };
        assert_eq!(cuArray3DCreate_v2(&mut sarr, &d3), 0);
        res.res[0] = sarr as u64;
        let mut surf = 0u64;
        assert_eq!(cuSurfObjectCreate(&mut surf, &res), 0);
        let mut params = [(&mut surf as *mut u64).cast::<c_void>()];
        launch(fw, (5, 2), &mut params);
        let mut words = [0u32; 10];
        assert_eq!(
            copy2d(
                std::ptr::null_mut(),
                words.as_mut_ptr().cast(),
                sarr,
                std::ptr::null(),
                20,
                2
            ),
            0
        );
        assert_eq!(words, [0, 1, 2, 3, 4, 10, 11, 12, 13, 14]);
        assert_eq!(cuSurfObjectDestroy(surf), 0);
        assert_eq!(cuArrayDestroy(sarr), 0);
        assert_eq!(cuArrayDestroy(sarr), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(cuArrayDestroy(arr), 0);
        // Unsupported formats and flags are refused; a cubemap has six square faces.
        let d = |w, h, z, f| CUDA_ARRAY3D_DESCRIPTOR {
            width: w,
            height: h,
            depth: z,
            format: 0x20,
            num_channels: 1,
            flags: f,
        };
        assert_eq!(
            cuArray3DCreate_v2(&mut sarr, &d(4, 4, 6, 0x40)),
            CUDA_ERROR_NOT_SUPPORTED
        );
        assert_eq!(cuArray3DCreate_v2(&mut sarr, &d(4, 4, 6, 4)), 0);
        assert_eq!(cuArrayDestroy(sarr), 0);
        assert_eq!(
            cuArray3DCreate_v2(&mut sarr, &d(4, 3, 6, 4)),
            CUDA_ERROR_INVALID_VALUE
        );
        let bad = CUDA_ARRAY_DESCRIPTOR {
            width: 4,
            height: 4,
            format: 0x20,
            num_channels: 3,
        };
        assert_eq!(cuArrayCreate_v2(&mut sarr, &bad), CUDA_ERROR_INVALID_VALUE);
    }
}

const MIP_PTX: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
.visible .entry mip(.param .u64 t, .param .u64 o)\n{\n .reg .b64 %rd<4>;\n .reg .f32 %f<12>;\n .reg .b32 %r<2>;\n\
 ld.param.u64 %rd1, [t];\n ld.param.u64 %rd2, [o];\n mov.f32 %f1, 0f3F000000;\n\
 mov.f32 %f2, 0f3F000000;\n tex.level.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f1}], %f2;\n st.global.f32 [%rd2], %f3;\n\
 mov.f32 %f2, 0f3FA00000;\n tex.level.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f1}], %f2;\n st.global.f32 [%rd2+4], %f3;\n\
 mov.f32 %f7, 0f00000000;\n tex.grad.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f1}], {%f1, %f7}, {%f7, %f7};\n st.global.f32 [%rd2+8], %f3;\n\
 tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f1}];\n st.global.f32 [%rd2+12], %f3;\n\
 txq.num_mipmap_levels.b32 %r1, [%rd1];\n st.global.u32 [%rd2+16], %r1;\n ret;\n}\n\0";

#[test]
fn mipmapped_arrays() {
    // SAFETY: driver entry points as documented in cuda.h, with valid pointers.
    unsafe {
        assert_eq!(cuInit(0), 0);
        let mut ctx: Handle = std::ptr::null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
        assert_eq!(cuCtxSetCurrent(ctx), 0);
        let mut m: Handle = std::ptr::null_mut();
        assert_eq!(cuModuleLoadData(&mut m, MIP_PTX.as_ptr().cast()), 0);
        let mut f: Handle = std::ptr::null_mut();
        assert_eq!(cuModuleGetFunction(&mut f, m, c"mip".as_ptr()), 0);

        // A 4x4 float array of 3 levels (4x4, 2x2, 1x1); each level filled with one value
        // (1, 2, 4) through the CUarray cuMipmappedArrayGetLevel returns.
        let d = |w, h, f| CUDA_ARRAY3D_DESCRIPTOR {
            width: w,
            height: h,
            depth: 0,
            format: 0x20,
            num_channels: 1,
            flags: f,
        };
        let mut mip: Handle = std::ptr::null_mut();
        // The level count is clamped to [1, floor(log2(4)) + 1 = 3] (cuda.h).
        let mut one: Handle = std::ptr::null_mut();
        let mut lv: Handle = std::ptr::null_mut();
        assert_eq!(cuMipmappedArrayCreate(&mut one, &d(4, 4, 0), 0), 0);
        assert_eq!(cuMipmappedArrayGetLevel(&mut lv, one, 0), 0);
        assert_eq!(
            cuMipmappedArrayGetLevel(&mut lv, one, 1),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuMipmappedArrayDestroy(one), 0);
        assert_eq!(
            cuMipmappedArrayCreate(&mut mip, &d(4, 4, 0x40), 2),
            CUDA_ERROR_NOT_SUPPORTED
        );
        assert_eq!(cuMipmappedArrayCreate(&mut mip, &d(4, 4, 0), 9), 0);
        let mut levels = [std::ptr::null_mut(); 3];
        for (i, (n, v)) in [(4usize, 1.0f32), (2, 2.0), (1, 4.0)]
            .into_iter()
            .enumerate()
        {
            assert_eq!(cuMipmappedArrayGetLevel(&mut levels[i], mip, i as u32), 0);
            let mut back = d(0, 0, 0);
            assert_eq!(cuArray3DGetDescriptor_v2(&mut back, levels[i]), 0);
            assert_eq!((back.width, back.height), (n, n));
            let vals = vec![v; n * n];
            let r = copy2d(
                levels[i],
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                vals.as_ptr().cast(),
                4 * n,
                n,
            );
            assert_eq!(r, 0);
        }
        let mut again: Handle = std::ptr::null_mut();
        assert_eq!(cuMipmappedArrayGetLevel(&mut again, mip, 1), 0);
        assert_eq!(again, levels[1]);
        assert_eq!(
            cuMipmappedArrayGetLevel(&mut again, mip, 3),
            CUDA_ERROR_INVALID_VALUE
        );
        // A level belongs to its mipmapped array.
        assert_eq!(cuArrayDestroy(levels[1]), CUDA_ERROR_INVALID_VALUE);

        // Normalized, point filtering, linear mipmap filtering, levels [0, 2].
        let mut res = CUDA_RESOURCE_DESC {
            res_type: 1,
            res: [0; 16],
            flags: 0,
        };
        res.res[0] = mip as u64;
        let td = CUDA_TEXTURE_DESC {
            address_mode: [1, 1, 1],
            filter_mode: 0,
            flags: 2,
            max_anisotropy: 0,
            mipmap_filter_mode: 1,
            mipmap_level_bias: 0.0,
            min_mipmap_level_clamp: 0.0,
            max_mipmap_level_clamp: 2.0,
            border_color: [0.0; 4],
            reserved: [0; 12],
        };
        let mut tex = 0u64;
        assert_eq!(cuTexObjectCreate(&mut tex, &res, &td, std::ptr::null()), 0);
        let mut out: CUdeviceptr = 0;
        assert_eq!(cuMemAlloc_v2(&mut out, 20), 0);
        let run = |tex: &mut u64, out: &mut CUdeviceptr| {
            let mut params = [(tex as *mut u64).cast::<c_void>(), (out as *mut u64).cast()];
            launch(f, (1, 1), &mut params);
            let mut got = [0u32; 5];
            assert_eq!(cuMemcpyDtoH_v2(got.as_mut_ptr().cast(), *out, 20), 0);
            got
        };
        let got = run(&mut tex, &mut out);
        // LOD 0.5: k = 128, 0.5·1 + 0.5·2 = 1.5; LOD 1.25: 0.75·2 + 0.25·4 = 2.5; the
        // gradient (0.5, 0)·4 = 2 → LOD 1: 2; tex without a LOD: level 0; 3 levels.
        let f32s = |g: [u32; 5]| [g[0], g[1], g[2], g[3]].map(f32::from_bits);
        assert_eq!(f32s(got), [1.5, 2.5, 2.0, 1.0]);
        assert_eq!(got[4], 3);
        // The descriptors round trip: the mipmapped array and the mipmap fields.
        let mut rd = CUDA_RESOURCE_DESC {
            res_type: 9,
            res: [0; 16],
            flags: 0,
        };
        assert_eq!(cuTexObjectGetResourceDesc(&mut rd, tex), 0);
        assert_eq!((rd.res_type, rd.res[0]), (1, mip as u64));
        let mut tdb = td;
        tdb.mipmap_filter_mode = 0;
        tdb.max_mipmap_level_clamp = 0.0;
        assert_eq!(cuTexObjectGetTextureDesc(&mut tdb, tex), 0);
        assert_eq!(
            (tdb.mipmap_filter_mode, tdb.max_mipmap_level_clamp),
            (1, 2.0)
        );
        assert_eq!(cuTexObjectDestroy(tex), 0);
        // CUDA's zeroed descriptor clamps the LOD to [0, 0]: level 0 only; a bias of 1 with
        // max 1 and point mipmap filtering reads level 1.
        let mut t0 = 0u64;
        let td0 = CUDA_TEXTURE_DESC {
            max_mipmap_level_clamp: 0.0,
            ..td
        };
        assert_eq!(cuTexObjectCreate(&mut t0, &res, &td0, std::ptr::null()), 0);
        assert_eq!(f32s(run(&mut t0, &mut out)), [1.0; 4]);
        let td1 = CUDA_TEXTURE_DESC {
            mipmap_filter_mode: 0,
            mipmap_level_bias: 1.0,
            max_mipmap_level_clamp: 1.0,
            ..td
        };
        let mut t1 = 0u64;
        assert_eq!(cuTexObjectCreate(&mut t1, &res, &td1, std::ptr::null()), 0);
        assert_eq!(f32s(run(&mut t1, &mut out)), [2.0, 2.0, 2.0, 1.0]);
        let bad = CUDA_TEXTURE_DESC {
            mipmap_filter_mode: 2,
            ..td
        };
        assert_eq!(
            cuTexObjectCreate(&mut t1, &res, &bad, std::ptr::null()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuMipmappedArrayDestroy(mip), 0);
        assert_eq!(cuMipmappedArrayDestroy(mip), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(
            cuMipmappedArrayGetLevel(&mut again, mip, 0),
            CUDA_ERROR_INVALID_HANDLE
        );
        let mut back = d(0, 0, 0);
        assert_eq!(
            cuArray3DGetDescriptor_v2(&mut back, levels[0]),
            CUDA_ERROR_INVALID_HANDLE
        );
    }
}
