//! Instruction-family tests: tiny PTX kernels run through `Device::load_ptx`/`launch`,
//! results read back from device memory and checked against host computations written
//! independently of the interpreter.

mod clusters;
mod families;
mod tcgen05;
mod texture;
mod video;
mod warp;

use crate::{Device, Engine, LaunchConfig, Stats, VmError};

/// Runs `body` in a kernel `k(.param .u64 out)` where `%rd1` is this thread's output base
/// (`words` u32 slots per thread, by linear thread index); returns each thread's words.
/// Runs on every engine, and fails the test unless they agree exactly (outputs, errors,
/// instruction counts, printf text).
pub fn run_kernel(
    body: &str,
    grid: u32,
    block: u32,
    words: usize,
) -> Result<(Vec<Vec<u32>>, Stats), VmError> {
    let reference = run_kernel_on(Engine::Reference, body, grid, block, words);
    let key = |r: &Result<(Vec<Vec<u32>>, Stats), VmError>| match r {
        Ok((v, st)) => Ok((v.clone(), st.warp_insts, st.thread_insts, st.printf.clone())),
        // Device addresses differ between two devices when tests run in parallel (only
        // one gets the address space's preferred place): compare messages without them.
        Err(e) => Err(without_addresses(&e.to_string())),
    };
    let mut last = None;
    for engine in [Engine::Interp, Engine::Jit] {
        let got = run_kernel_on(engine, body, grid, block, words);
        assert_eq!(
            key(&got),
            key(&reference),
            "the {} engine (left) differs from the reference (right)",
            engine.name()
        );
        last = Some(got);
    }
    last.unwrap_or(reference)
}

/// `s` with every hexadecimal number of five or more digits replaced by `ADDR`.
fn without_addresses(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("0x") {
        out.push_str(&rest[..i]);
        let digits = rest[i + 2..]
            .bytes()
            .take_while(|b| b.is_ascii_hexdigit())
            .count();
        if digits >= 5 {
            out.push_str("ADDR");
        } else {
            out.push_str(&rest[i..i + 2 + digits]);
        }
        rest = &rest[i + 2 + digits..];
    }
    out.push_str(rest);
    out
}

fn run_kernel_on(
    engine: Engine,
    body: &str,
    grid: u32,
    block: u32,
    words: usize,
) -> Result<(Vec<Vec<u32>>, Stats), VmError> {
    let ptx = format!(
        r#"
.version 8.3
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{{
    .reg .pred %p<16>;
    .reg .b16 %h<32>;
    .reg .b32 %r<96>;
    .reg .b64 %rd<32>;
    .reg .f32 %f<32>;
    .reg .f64 %fd<16>;
    ld.param.u64 %rd0, [out];
    mov.u32 %r0, %tid.x;
    mov.u32 %r90, %ctaid.x;
    mov.u32 %r91, %ntid.x;
    mad.lo.u32 %r92, %r90, %r91, %r0;
    mul.wide.u32 %rd1, %r92, {stride};
    add.s64 %rd1, %rd0, %rd1;
{body}
    ret;
}}
"#,
        stride = words * 4
    );
    let dev = Device::new();
    let m = dev.load_ptx("t.ptx", &ptx)?;
    let n = (grid * block) as usize;
    let out = dev.malloc((n * words * 4).max(4) as u64)?;
    let cfg = LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        max_steps: 1_000_000,
        threads: 1,
        engine,
        ..LaunchConfig::default()
    };
    let mut stats = crate::Stats::default();
    dev.launch(m, "k", &cfg, &[&out.to_le_bytes()], &mut stats)?;
    let bytes = dev.read(out, (n * words * 4) as u64)?;
    let v: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok((v.chunks(words.max(1)).map(|c| c.to_vec()).collect(), stats))
}

/// Runs a single-thread body; returns its words.
pub fn run1(body: &str, words: usize) -> Vec<u32> {
    match run_kernel(body, 1, 1, words) {
        Ok((v, _)) => v.into_iter().next().unwrap_or_default(),
        Err(e) => panic!("{e}"),
    }
}

/// The fault of a kernel expected to fail.
pub fn fault_of(body: &str, block: u32) -> crate::Fault {
    match run_kernel(body, 1, block, 1) {
        Err(VmError::Fault(f)) => *f,
        Err(e) => panic!("expected a fault, got {e}"),
        Ok(_) => panic!("expected a fault, the kernel completed"),
    }
}

/// `st.global.u32 [%rd1+4k], reg` lines for the given registers.
pub fn stores(regs: &[&str]) -> String {
    regs.iter()
        .enumerate()
        .map(|(k, r)| format!("    st.global.u32 [%rd1+{}], {r};\n", 4 * k))
        .collect()
}

/// The library runs the front end on a thread of its own: a module nested up to the
/// parser's limit checks also when the caller's thread has a small stack (a driver runs in
/// its host program's threads).
#[test]
fn front_end_runs_on_its_own_stack() {
    let depth = ptxvm_syntax::parser::MAX_NESTING as usize - 4;
    let text = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.global .u32 g = {}1{};\n.visible .entry k()\n{{\n{}ret;{}\n}}\n",
        "(".repeat(depth),
        ")".repeat(depth),
        "{".repeat(depth),
        "}".repeat(depth)
    );
    let r = std::thread::Builder::new()
        .stack_size(128 << 10)
        .spawn(move || crate::check_ptx("deep.ptx", &text).map(|_| ()))
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert!(r.is_ok(), "{:?}", r.err().map(|e| e.to_string()));
}

/// With a launch memory budget that holds one CTA at a time, several host threads still
/// run every CTA, waiting for each other's memory (a CTA whose memory did not fit is never
/// skipped, and finished CTAs give their budget back).
#[test]
fn every_cta_runs_under_a_tight_memory_budget() {
    let ptx = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %tid.x;
    mad.lo.u32 %r3, %r1, 64, %r2;
    mul.wide.u32 %rd2, %r3, 4;
    add.u64 %rd3, %rd1, %rd2;
    add.u32 %r3, %r3, 1;
    st.global.u32 [%rd3], %r3;
    ret;
}
"#;
    for threads in [1, 3] {
        let props = crate::DeviceProps {
            launch_memory: 30_000,
            ..crate::DeviceProps::default()
        };
        let dev = Device::with_props(props);
        let m = dev.load_ptx("t.ptx", ptx).unwrap();
        let out = dev.malloc(40 * 64 * 4).unwrap();
        let cfg = LaunchConfig {
            grid: [40, 1, 1],
            block: [64, 1, 1],
            threads,
            ..LaunchConfig::default()
        };
        let mut stats = Stats::default();
        dev.launch(m, "k", &cfg, &[&out.to_le_bytes()], &mut stats)
            .unwrap();
        let bytes = dev.read(out, 40 * 64 * 4).unwrap();
        for (i, c) in bytes.chunks(4).enumerate() {
            assert_eq!(u32::from_le_bytes(c.try_into().unwrap()), i as u32 + 1);
        }
    }
}
