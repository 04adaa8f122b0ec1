//! Driver overheads, through the driver's own entry points (the code `libcuda.so.1` runs):
//! the round trip of `cuLaunchKernel` + `cuStreamSynchronize` for a one-warp empty kernel,
//! and `cuModuleLoadData` of a 1 MiB PTX module (first load: parse and check; later loads
//! of the same text hit the module cache and only decode).
//!
//! `cargo run --release -p ptxvm-cuda --example launch_bench [-- ROUNDS]`

use cuda::abi::Handle;
use cuda::context::*;
use cuda::entry::*;
use cuda::launch::*;
use cuda::module::*;
use cuda::stream::*;
use std::ffi::c_void;
use std::time::Instant;

const EMPTY: &str =
    ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry empty()\n{\n\tret;\n}\n";

fn check(r: u32, what: &str) {
    assert_eq!(r, 0, "{what} failed with CUresult {r}");
}

/// A PTX module of at least `bytes` bytes: copies of a small vector-add kernel.
fn big_module(bytes: usize) -> String {
    let mut s = String::from(".version 8.0\n.target sm_80\n.address_size 64\n");
    let mut i = 0;
    while s.len() < bytes {
        s.push_str(&format!(
            ".visible .entry vadd{i}(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<11>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	ld.param.u64 %rd3, [c];
	ld.param.u32 %r2, [n];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	setp.ge.u32 %p1, %r1, %r2;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd4, %rd1;
	mul.wide.u32 %rd5, %r1, 4;
	add.s64 %rd6, %rd4, %rd5;
	cvta.to.global.u64 %rd7, %rd2;
	add.s64 %rd8, %rd7, %rd5;
	ld.global.f32 %f1, [%rd6];
	ld.global.f32 %f2, [%rd8];
	add.f32 %f3, %f1, %f2;
	cvta.to.global.u64 %rd9, %rd3;
	add.s64 %rd10, %rd9, %rd5;
	st.global.f32 [%rd10], %f3;
DONE:
	ret;
}}
"
        ));
        i += 1;
    }
    s
}

fn median(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(|a, b| a.total_cmp(b));
    let q = |p: f64| v[((v.len() - 1) as f64 * p) as usize];
    (q(0.5), q(0.1), q(0.9))
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5000);
    // SAFETY: the driver's entry points, called as a C client would.
    unsafe {
        check(cuInit(0), "cuInit");
        let mut ctx: Handle = std::ptr::null_mut();
        check(cuDevicePrimaryCtxRetain(&mut ctx, 0), "retain");
        check(cuCtxSetCurrent(ctx), "set current");
        let ptx = format!("{EMPTY}\0");
        let mut m: Handle = std::ptr::null_mut();
        check(cuModuleLoadData(&mut m, ptx.as_ptr().cast()), "load");
        let mut f: Handle = std::ptr::null_mut();
        check(
            cuModuleGetFunction(&mut f, m, c"empty".as_ptr()),
            "get function",
        );
        let null = std::ptr::null_mut::<*mut c_void>();
        let mut times = Vec::with_capacity(rounds);
        for i in 0..rounds + 100 {
            let t = Instant::now();
            check(
                cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, std::ptr::null_mut(), null, null),
                "launch",
            );
            check(cuStreamSynchronize(std::ptr::null_mut()), "sync");
            if i >= 100 {
                times.push(t.elapsed().as_secs_f64() * 1e6);
            }
        }
        let (med, p10, p90) = median(&mut times);
        println!(
            "launch + synchronize, one warp, empty kernel: median {med:.1} us (p10 {p10:.1}, p90 {p90:.1}) over {rounds} round trips"
        );
        let big = big_module(1 << 20);
        let text = format!("{big}\0");
        let mut loads = Vec::new();
        for _ in 0..5 {
            let t = Instant::now();
            let mut m2: Handle = std::ptr::null_mut();
            check(
                cuModuleLoadData(&mut m2, text.as_ptr().cast()),
                "load 1 MiB",
            );
            loads.push(t.elapsed().as_secs_f64() * 1e3);
            check(cuModuleUnload(m2), "unload");
        }
        let first = loads[0];
        let (cached, _, _) = median(&mut loads[1..]);
        println!(
            "cuModuleLoadData of {} bytes of PTX: first load {first:.1} ms (parse + check + decode), cached reload median {cached:.1} ms (decode only)",
            big.len()
        );
    }
}
