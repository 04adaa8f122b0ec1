//! Multicast objects through the driver API on an sm_90 device (its own test binary: the
//! device model comes from `PTXVM_ARCH`, read once per process): `cuMulticastCreate`,
//! `cuMulticastAddDevice`, `cuMulticastBindMem`/`BindAddr`/`Unbind`,
//! `cuMulticastGetGranularity`, `cuMemMap` of the object, and a kernel using `multimem` on the
//! multicast range while a unicast mapping of the same memory sees the results.

use cuda::abi::*;
use cuda::context::*;
use cuda::device::*;
use cuda::entry::*;
use cuda::launch::*;
use cuda::memory::*;
use cuda::module::*;
use cuda::multicast::*;
use cuda::types::*;
use cuda::vmm::*;
use std::ffi::c_void;

/// out[0] = multimem.ld_reduce.add.u32 [mc]; multimem.red.add.u32 [mc+4], 5;
/// multimem.st.u32 [mc+8], 77; then multimem.ld_reduce of [mc+4] into out[1].
/// out[2] = the same multimem.ld_reduce on the unicast address `uc`, which must fault;
/// a second kernel does it.
const KERNEL: &str = ".version 8.1\n.target sm_90\n.address_size 64\n\
.visible .entry k(.param .u64 mc, .param .u64 out)\n{\n\
\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<4>;\n\
\tld.param.u64 %rd1, [mc];\n\tld.param.u64 %rd2, [out];\n\
\tmultimem.ld_reduce.add.u32 %r1, [%rd1];\n\
\tmov.b32 %r2, 5;\n\tmultimem.red.add.u32 [%rd1+4], %r2;\n\
\tmov.b32 %r3, 77;\n\tmultimem.st.u32 [%rd1+8], %r3;\n\
\tmultimem.ld_reduce.relaxed.sys.add.u32 %r4, [%rd1+4];\n\
\tst.global.v2.u32 [%rd2], {%r1, %r4};\n\tret;\n}\n\0";

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

unsafe fn launch(f: Handle, mut a: u64, mut b: u64) -> CUresult {
    let mut params = [
        (&mut a as *mut u64).cast::<c_void>(),
        (&mut b as *mut u64).cast(),
    ];
    // SAFETY: a launch with valid parameter pointers.
    unsafe {
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
            std::ptr::null_mut(),
        )
    }
}

#[test]
fn multicast_object_of_one_device_runs_multimem() {
    // SAFETY: set before the driver reads its configuration (first cuInit), in this
    // single-test binary.
    unsafe { std::env::set_var("PTXVM_ARCH", "sm_90") };
    // SAFETY: driver entry points as documented in cuda.h.
    unsafe {
        assert_eq!(cuInit(0), 0);
        let mut ctx: Handle = std::ptr::null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
        assert_eq!(cuCtxSetCurrent(ctx), 0);
        let mut v = 0i32;
        assert_eq!(cuDeviceGetAttribute(&mut v, 132, 0), 0);
        assert_eq!(v, 1, "CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED");

        let gran = 2usize << 20;
        let mut mp = CUmulticastObjectProp {
            num_devices: 1,
            size: 2 * gran,
            handle_types: 0,
            flags: 0,
        };
        let mut g = 0usize;
        assert_eq!(cuMulticastGetGranularity(&mut g, &mp, 0), 0);
        assert_eq!(g, gran);
        assert_eq!(cuMulticastGetGranularity(&mut g, &mp, 1), 0);
        assert_eq!(g, gran);
        mp.num_devices = 2;
        let mut mc = 0u64;
        assert_eq!(cuMulticastCreate(&mut mc, &mp), CUDA_ERROR_NOT_SUPPORTED);
        mp.num_devices = 1;
        mp.size = gran + 1;
        assert_eq!(cuMulticastCreate(&mut mc, &mp), CUDA_ERROR_INVALID_VALUE);
        mp.size = 2 * gran;
        assert_eq!(cuMulticastCreate(&mut mc, &mp), 0);

        // Physical memory: one allocation bound by handle, one by address.
        let p = prop();
        let (mut h1, mut h2) = (0u64, 0u64);
        assert_eq!(cuMemCreate(&mut h1, gran, &p, 0), 0);
        assert_eq!(cuMemCreate(&mut h2, gran, &p, 0), 0);
        // Binding before the team is complete fails.
        assert_eq!(
            cuMulticastBindMem(mc, 0, h1, 0, gran, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuMulticastAddDevice(mc, 0), 0);
        assert_eq!(cuMulticastAddDevice(mc, 0), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuMulticastBindMem(mc, 0, h1, 0, gran, 0), 0);
        assert_eq!(
            cuMulticastBindMem(mc, 0, h1, 0, gran, 0),
            CUDA_ERROR_INVALID_VALUE,
            "already bound"
        );
        assert_eq!(
            cuMulticastBindMem(mc, gran, h2, 4096, gran, 0),
            CUDA_ERROR_INVALID_VALUE,
            "misaligned offset"
        );
        // The unicast mapping of h1, and of h2 to bind by address.
        let mut uc = 0u64;
        assert_eq!(cuMemAddressReserve(&mut uc, 2 * gran, 0, 0, 0), 0);
        assert_eq!(cuMemMap(uc, gran, 0, h1, 0), 0);
        assert_eq!(cuMemMap(uc + gran as u64, gran, 0, h2, 0), 0);
        assert_eq!(cuMulticastBindAddr(mc, gran, uc + gran as u64, gran, 0), 0);
        // Map the multicast object.
        let mut mva = 0u64;
        assert_eq!(cuMemAddressReserve(&mut mva, 2 * gran, 0, 0, 0), 0);
        assert_eq!(cuMemMap(mva, gran, 0, mc, 0), 0);
        assert_eq!(cuMemMap(mva + gran as u64, gran, gran, mc, 0), 0);

        let init = [40u32, 2, 0];
        assert_eq!(cuMemcpyHtoD_v2(uc, init.as_ptr().cast(), 12), 0);
        let mut out = 0u64;
        assert_eq!(cuMemAlloc_v2(&mut out, 8), 0);
        let mut m: Handle = std::ptr::null_mut();
        assert_eq!(cuModuleLoadData(&mut m, KERNEL.as_ptr().cast()), 0);
        let mut f: Handle = std::ptr::null_mut();
        assert_eq!(cuModuleGetFunction(&mut f, m, c"k".as_ptr()), 0);
        assert_eq!(launch(f, mva, out), 0);
        assert_eq!(cuCtxSynchronize(), 0);
        let mut r = [0u32; 2];
        assert_eq!(cuMemcpyDtoH_v2(r.as_mut_ptr().cast(), out, 8), 0);
        assert_eq!(r, [40, 7], "ld_reduce of one copy, red.add 2 + 5");
        // The unicast mapping is the same memory.
        let mut back = [0u32; 3];
        assert_eq!(cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), uc, 12), 0);
        assert_eq!(back, [40, 7, 77]);
        // The second binding (by address) through the second multicast page.
        assert_eq!(launch(f, mva + gran as u64, out), 0);
        assert_eq!(cuCtxSynchronize(), 0);
        assert_eq!(
            cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), uc + gran as u64, 12),
            0
        );
        assert_eq!(back, [0, 5, 77]);

        assert_eq!(cuMemUnmap(mva, gran), 0);
        assert_eq!(cuMemUnmap(mva + gran as u64, gran), 0);
        assert_eq!(cuMulticastUnbind(mc, 0, gran, gran), 0);
        assert_eq!(
            cuMulticastUnbind(mc, 0, gran, gran),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuMulticastUnbind(mc, 0, 0, gran), 0);
        assert_eq!(
            cuMemMap(mva, gran, 0, mc, 0),
            CUDA_ERROR_NOT_SUPPORTED,
            "nothing bound"
        );
        assert_eq!(cuMemRelease(mc), 0);
        assert_eq!(cuMulticastAddDevice(mc, 0), CUDA_ERROR_INVALID_HANDLE);

        // multimem on a unicast address faults: the context's sticky error.
        assert_eq!(launch(f, uc, out), 0);
        assert_ne!(cuCtxSynchronize(), 0);
    }
}
