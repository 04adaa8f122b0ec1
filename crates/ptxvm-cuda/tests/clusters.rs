//! Thread block clusters through the driver API on an sm_90 device (its own test binary:
//! the device model comes from `PTXVM_ARCH`, read once per process): `cuLaunchKernelEx` with
//! `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`, the portable size limit and
//! `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED`, and the required cluster shape set
//! with `cuFuncSetAttribute`.

use cuda::abi::*;
use cuda::context::*;
use cuda::entry::*;
use cuda::launch::*;
use cuda::memory::*;
use cuda::module::*;
use cuda::types::*;
use std::ffi::c_void;

/// out[%ctaid.x * 32 + %tid.x] = %cluster_ctarank + 100 * %cluster_nctarank, plus the
/// value rank 0 of the cluster stored in its shared memory (its %clusterid.x * 1000), read
/// by every CTA through mapa after barrier.cluster.
const KERNEL: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.visible .entry k(.param .u64 p)\n{\n\
\t.shared .align 4 .b32 s;\n\
\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<4>;\n\
\tmov.u32 %r1, %clusterid.x;\n\tmul.lo.u32 %r2, %r1, 1000;\n\tst.shared.u32 [s], %r2;\n\
\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n\
\tmov.u32 %r3, s;\n\tmapa.shared::cluster.u32 %r4, %r3, 0;\n\tld.shared::cluster.u32 %r5, [%r4];\n\
\tmov.u32 %r6, %cluster_ctarank;\n\tmov.u32 %r7, %cluster_nctarank;\n\tmad.lo.u32 %r8, %r7, 100, %r6;\n\
\tadd.s32 %r8, %r8, %r5;\n\
\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n\
\tmov.u32 %r9, %ctaid.x;\n\tmov.u32 %r10, %tid.x;\n\tmad.lo.u32 %r11, %r9, 32, %r10;\n\
\tld.param.u64 %rd1, [p];\n\tmul.wide.u32 %rd2, %r11, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
\tst.global.u32 [%rd3], %r8;\n\tret;\n}\n\0";

/// `cuLaunchKernelEx` of `f` over `grid` CTAs of 32 threads with clusters of `cluster`
/// (none: no attribute).
unsafe fn launch(f: Handle, grid: u32, cluster: Option<u32>, out: u64) -> CUresult {
    let mut attr = CUlaunchAttribute {
        id: CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
        pad: [0; 4],
        value: CUlaunchAttributeValue { bytes: [0; 64] },
    };
    for (k, v) in [cluster.unwrap_or(1), 1, 1].iter().enumerate() {
        attr.value.bytes[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
    }
    let cfg = CUlaunchConfig {
        grid_dim_x: grid,
        grid_dim_y: 1,
        grid_dim_z: 1,
        block_dim_x: 32,
        block_dim_y: 1,
        block_dim_z: 1,
        shared_mem_bytes: 0,
        h_stream: std::ptr::null_mut(),
        attrs: &mut attr,
        num_attrs: cluster.is_some() as u32,
    };
    let mut out = out;
    let mut params = [(&mut out as *mut u64).cast::<c_void>()];
    // SAFETY: a valid configuration, function and parameter array.
    unsafe { cuLaunchKernelEx(&cfg, f, params.as_mut_ptr(), std::ptr::null_mut()) }
}

#[test]
fn cluster_launches_through_cu_launch_kernel_ex() {
    // SAFETY: set before the driver's first call in this process (its only test).
    unsafe { std::env::set_var("PTXVM_ARCH", "sm_90") };
    // SAFETY: driver entry points as documented in cuda.h, with valid pointers.
    unsafe {
        assert_eq!(cuInit(0), 0);
        let mut ctx: Handle = std::ptr::null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
        assert_eq!(cuCtxSetCurrent(ctx), 0);
        let mut m: Handle = std::ptr::null_mut();
        assert_eq!(cuModuleLoadData(&mut m, KERNEL.as_ptr().cast()), 0);
        let mut f: Handle = std::ptr::null_mut();
        assert_eq!(cuModuleGetFunction(&mut f, m, c"k".as_ptr()), 0);
        let mut out = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut out, 16 * 32 * 4), 0);
        let read = |n: usize| {
            let mut v = vec![0u32; n];
            assert_eq!(cuCtxSynchronize(), 0);
            assert_eq!(cuMemcpyDtoH_v2(v.as_mut_ptr().cast(), out, 4 * n), 0);
            v
        };
        // Clusters of 2 over 4 CTAs: rank = ctaid % 2, 2 CTAs per cluster, cluster c = ctaid / 2.
        assert_eq!(launch(f, 4, Some(2), out), 0);
        let expect: Vec<u32> = (0..4 * 32u32)
            .map(|i| i / 32 % 2 + 200 + i / 64 * 1000)
            .collect();
        assert_eq!(read(4 * 32), expect);
        // No attribute: every CTA is its own cluster.
        assert_eq!(launch(f, 2, None, out), 0);
        let expect: Vec<u32> = (0..2 * 32u32).map(|i| 100 + i / 32 * 1000).collect();
        assert_eq!(read(2 * 32), expect);
        // A grid that is not a whole number of clusters, and 16 CTAs without the opt-in.
        assert_eq!(launch(f, 3, Some(2), out), CUDA_ERROR_INVALID_CLUSTER_SIZE);
        assert_eq!(
            launch(f, 16, Some(16), out),
            CUDA_ERROR_INVALID_CLUSTER_SIZE
        );
        assert_eq!(
            cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
            0
        );
        assert_eq!(launch(f, 16, Some(16), out), 0);
        let expect: Vec<u32> = (0..16 * 32u32).map(|i| i / 32 + 1600).collect();
        assert_eq!(read(16 * 32), expect);
        // A required cluster shape set on the function applies to a plain launch.
        assert_eq!(
            cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 4),
            0
        );
        let mut w = 0;
        assert_eq!(
            cuFuncGetAttribute(&mut w, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, f),
            0
        );
        assert_eq!(w, 4);
        assert_eq!(launch(f, 8, None, out), 0);
        let expect: Vec<u32> = (0..8 * 32u32)
            .map(|i| i / 32 % 4 + 400 + i / 128 * 1000)
            .collect();
        assert_eq!(read(8 * 32), expect);
        assert_eq!(cuMemFree_v2(out), 0);
    }
}
