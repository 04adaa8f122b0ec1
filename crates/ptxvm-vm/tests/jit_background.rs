//! `auto` never waits for the JIT: once a kernel is hot (`JIT_HOT` warp instructions
//! estimated for a launch or run so far), its launches go on on the warp engine while it
//! compiles in the background, and a later launch (or a later CTA of the same launch)
//! switches to native code once it is ready — with the same bits as the reference
//! throughout. A kernel that never gets hot is never compiled. `jit` compiles before the
//! launch starts.

use ptxvm_vm::device::LaunchConfig;
use ptxvm_vm::{Device, Engine, Stats};
use std::time::{Duration, Instant};

const POLY: &str = include_str!("../../ptxvm-bench/kernels/poly.ptx");
const N: u32 = 4096;
const ITERS: u32 = 64;

fn launch(dev: &Device, m: ptxvm_vm::device::ModuleId, engine: Engine) -> (Vec<u8>, Stats) {
    launch_n(dev, m, engine, N)
}

fn launch_n(
    dev: &Device,
    m: ptxvm_vm::device::ModuleId,
    engine: Engine,
    n: u32,
) -> (Vec<u8>, Stats) {
    let input: Vec<u8> = (0..n)
        .flat_map(|i| (i as f32 * 0.001 - 1.5).to_le_bytes())
        .collect();
    let a = dev.malloc(n as u64 * 4).expect("malloc");
    let b = dev.malloc(n as u64 * 4).expect("malloc");
    dev.write(a, &input).expect("write");
    let cfg = LaunchConfig {
        grid: [n.div_ceil(128), 1, 1],
        block: [n.min(128), 1, 1],
        threads: 1,
        engine,
        ..LaunchConfig::default()
    };
    let mut stats = Stats::default();
    dev.launch(
        m,
        "poly",
        &cfg,
        &[
            &a.to_le_bytes(),
            &b.to_le_bytes(),
            &n.to_le_bytes(),
            &ITERS.to_le_bytes(),
        ],
        &mut stats,
    )
    .expect("launch");
    let out = dev.read(b, n as u64 * 4).expect("read");
    dev.free(a).expect("free");
    dev.free(b).expect("free");
    (out, stats)
}

#[test]
fn auto_starts_on_the_warp_engine_and_switches_to_native_code() {
    let dev = Device::new();
    let m = dev.load_ptx("poly.ptx", POLY).expect("load");
    let (want, _) = launch(&dev, m, Engine::Reference);

    // Relaunch with `auto` until the background compile has finished: every launch gives
    // the reference's bits, whichever tier ran it.
    let start = Instant::now();
    let mut launches = 0;
    let stats = loop {
        let (got, stats) = launch(&dev, m, Engine::Auto);
        launches += 1;
        assert_eq!(
            got, want,
            "auto launch {launches} differs from the reference"
        );
        assert_eq!(stats.engine, Some(Engine::Jit));
        assert!(stats.jit_error.is_none(), "{:?}", stats.jit_error);
        if stats.tiers[3] > 0 {
            break stats;
        }
        // Only the warp engine ran (the code was not ready at any slice of the launch).
        assert_eq!(stats.tiers[3], 0);
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the background compile did not finish within 2 minutes ({launches} launches)"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(stats.jit_compiled > 0);
    assert!(!stats.jit_pending);

    // The code is cached: `jit` and `auto` both run it at once now.
    let (got, stats) = launch(&dev, m, Engine::Jit);
    assert_eq!(got, want);
    assert!(stats.tiers[3] > 0);
}

#[test]
fn jit_waits_for_the_compile() {
    let dev = Device::new();
    let m = dev.load_ptx("poly.ptx", POLY).expect("load");
    let (want, _) = launch(&dev, m, Engine::Reference);
    let (got, stats) = launch(&dev, m, Engine::Jit);
    assert_eq!(got, want);
    assert!(!stats.jit_pending);
    assert!(stats.jit_compiled > 0);
    assert!(stats.tiers[3] > 0, "the first `jit` launch ran native code");
}

#[test]
fn a_kernel_that_never_gets_hot_is_not_compiled() {
    let dev = Device::new();
    let m = dev.load_ptx("poly.ptx", POLY).expect("load");
    let (want, _) = launch_n(&dev, m, Engine::Reference, 32);
    // One warp, 64 iterations: about 700 warp instructions per launch.
    for _ in 0..20 {
        let (got, stats) = launch_n(&dev, m, Engine::Auto, 32);
        assert_eq!(got, want);
        assert_eq!(stats.tiers[3], 0);
        assert_eq!(stats.jit_compiled, 0);
        assert!(!stats.jit_pending, "a cold kernel was queued for compiling");
        assert!(stats.warp_insts * 20 < ptxvm_vm::device::JIT_HOT);
    }
}
