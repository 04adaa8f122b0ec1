//! Driver overheads (issue 9): the round trip of `cuLaunchKernel` + `cuStreamSynchronize`
//! for a one-warp empty kernel, and `cuModuleLoadData` of a 1 MB PTX module (the first load,
//! which parses, checks and decodes it, and a load of the same text again, which the
//! driver's content-hash cache answers). The entry points are called as a C client calls
//! them. Prints the CPU, the load average and medians.
//!
//! `cargo bench -p ptxvm-cuda --bench launch [-- ROUND_TRIPS]`

use cuda::abi::*;
use cuda::context::*;
use cuda::entry::*;
use cuda::launch::*;
use cuda::module::*;
use cuda::stream::*;
use cuda::types::*;
use std::ffi::{CString, c_void};
use std::time::Instant;

const EMPTY: &str =
    ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry empty()\n{\n\tret;\n}\n";

/// A module of about `bytes` bytes of PTX: kernels with a loop, loads, stores and
/// arithmetic, as compilers emit them.
fn big_module(bytes: usize) -> String {
    let mut s = String::from(".version 8.0\n.target sm_80\n.address_size 64\n");
    let mut i = 0;
    while s.len() < bytes {
        s += &format!(
            ".visible .entry k{i}(.param .u64 p, .param .u32 n)\n{{\n\t.reg .pred %p<3>;\n\t.reg .b32 %r<8>;\n\t.reg .f32 %f<6>;\n\t.reg .b64 %rd<6>;\n\
             \tld.param.u64 %rd1, [p];\n\tld.param.u32 %r1, [n];\n\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, %ntid.x;\n\tmov.u32 %r4, %tid.x;\n\
             \tmad.lo.s32 %r5, %r2, %r3, %r4;\n\tsetp.ge.s32 %p1, %r5, %r1;\n\t@%p1 bra $L_{i}_done;\n\tcvta.to.global.u64 %rd2, %rd1;\n\
             \tmul.wide.s32 %rd3, %r5, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n\tld.global.f32 %f1, [%rd4];\n\tmov.u32 %r6, 0;\n\tmov.f32 %f2, 0f00000000;\n\
             $L_{i}_loop:\n\tfma.rn.f32 %f2, %f1, %f2, 0f3F800000;\n\tadd.s32 %r6, %r6, 1;\n\tsetp.lt.u32 %p2, %r6, {i};\n\t@%p2 bra $L_{i}_loop;\n\
             \tst.global.f32 [%rd4], %f2;\n$L_{i}_done:\n\tret;\n}}\n\n"
        );
        i += 1;
    }
    s
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn check(what: &str, r: CUresult) {
    if r != 0 {
        eprintln!("{what} failed: CUresult {r}");
        std::process::exit(1);
    }
}

fn main() {
    let trips: usize = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "cpu: {cpu}; load average: {}; engine: {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
        std::env::var("PTXVM_ENGINE").unwrap_or_else(|_| "auto".into())
    );
    // SAFETY: driver entry points called with valid out-pointers and NUL-terminated images.
    unsafe {
        check("cuInit", cuInit(0));
        let mut ctx: Handle = std::ptr::null_mut();
        check(
            "cuDevicePrimaryCtxRetain",
            cuDevicePrimaryCtxRetain(&mut ctx, 0),
        );
        check("cuCtxSetCurrent", cuCtxSetCurrent(ctx));
        let mut stream: Handle = std::ptr::null_mut();
        check("cuStreamCreate", cuStreamCreate(&mut stream, 1));

        // Launch round trips.
        let image = CString::new(EMPTY).unwrap();
        let mut m: Handle = std::ptr::null_mut();
        check(
            "cuModuleLoadData",
            cuModuleLoadData(&mut m, image.as_ptr().cast()),
        );
        let mut f: Handle = std::ptr::null_mut();
        let name = CString::new("empty").unwrap();
        check(
            "cuModuleGetFunction",
            cuModuleGetFunction(&mut f, m, name.as_ptr()),
        );
        let mut params: [*mut c_void; 0] = [];
        let mut launch = |s: Handle| {
            check(
                "cuLaunchKernel",
                cuLaunchKernel(
                    f,
                    1,
                    1,
                    1,
                    32,
                    1,
                    1,
                    0,
                    s,
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                ),
            );
            check("cuStreamSynchronize", cuStreamSynchronize(s));
        };
        for _ in 0..1000 {
            launch(stream);
        }
        for (label, s) in [
            ("a created stream", stream),
            ("the legacy default stream", std::ptr::null_mut()),
        ] {
            let mut us = Vec::with_capacity(trips);
            for _ in 0..trips {
                let t = Instant::now();
                launch(s);
                us.push(t.elapsed().as_secs_f64() * 1e6);
            }
            let med = median(&mut us);
            let p90 = us[us.len() * 9 / 10];
            println!(
                "cuLaunchKernel + cuStreamSynchronize, one-warp empty kernel, {label}: median {med:.2} us, p90 {p90:.2} us ({trips} round trips)"
            );
        }

        // Module loads of 1 MB of PTX.
        let text = big_module(1 << 20);
        let kernels = text.matches(".entry").count();
        let mut first = Vec::new();
        let mut again = Vec::new();
        for round in 0..5 {
            // A comment makes each round's text new to the cache.
            let image = CString::new(format!("// round {round}\n{text}")).unwrap();
            let mut m: Handle = std::ptr::null_mut();
            let t = Instant::now();
            check(
                "cuModuleLoadData",
                cuModuleLoadData(&mut m, image.as_ptr().cast()),
            );
            first.push(t.elapsed().as_secs_f64() * 1e3);
            let mut m2: Handle = std::ptr::null_mut();
            let t = Instant::now();
            check(
                "cuModuleLoadData",
                cuModuleLoadData(&mut m2, image.as_ptr().cast()),
            );
            again.push(t.elapsed().as_secs_f64() * 1e3);
            check("cuModuleUnload", cuModuleUnload(m2));
            check("cuModuleUnload", cuModuleUnload(m));
        }
        println!(
            "cuModuleLoadData, {:.2} MB of PTX ({kernels} kernels): first load median {:.1} ms, same text again {:.3} ms (5 rounds)",
            text.len() as f64 / (1 << 20) as f64,
            median(&mut first),
            median(&mut again)
        );
    }
}
