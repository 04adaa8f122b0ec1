//! Thread block clusters through the library API: the cluster shape of a launch and its
//! checks, and a DSMEM kernel on several host threads on every engine.

use crate::arch::model;
use crate::{Device, DeviceProps, Engine, LaunchConfig, Stats, VmError};

/// Each CTA stores 1000 * %ctaid.x + %tid.x in `s`; after barrier.cluster every thread adds
/// the values of the same thread of every rank (mapa + ld.shared::cluster) and stores the
/// sum, with its rank and the cluster size, at out[3 * (64 * %ctaid.x + %tid.x)].
const KERNEL: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .shared .align 4 .b32 s[64];
    .reg .pred %p<2>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mad.lo.u32 %r3, %r2, 1000, %r1;
    mov.u32 %r4, s;
    shl.b32 %r5, %r1, 2;
    add.s32 %r4, %r4, %r5;
    st.shared.u32 [%r4], %r3;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    mov.u32 %r6, %cluster_nctarank;
    mov.u32 %r7, 0;
    mov.u32 %r8, 0;
L:
    mapa.shared::cluster.u32 %r9, %r4, %r7;
    ld.shared::cluster.u32 %r10, [%r9];
    add.s32 %r8, %r8, %r10;
    add.s32 %r7, %r7, 1;
    setp.lt.u32 %p1, %r7, %r6;
    @%p1 bra L;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    mad.lo.u32 %r11, %r2, 64, %r1;
    mul.lo.u32 %r11, %r11, 12;
    cvt.u64.u32 %rd1, %r11;
    ld.param.u64 %rd2, [out];
    add.s64 %rd3, %rd2, %rd1;
    mov.u32 %r12, %cluster_ctarank;
    st.global.u32 [%rd3], %r8;
    st.global.u32 [%rd3+4], %r12;
    st.global.u32 [%rd3+8], %r6;
    ret;
}
"#;

fn launch(dev: &Device, cfg: &LaunchConfig) -> Result<Vec<u32>, VmError> {
    let m = dev.load_ptx("k.ptx", KERNEL)?;
    let n = (cfg.grid[0] * 64 * 3) as usize;
    let out = dev.malloc(4 * n as u64)?;
    let mut st = Stats::default();
    dev.launch(m, "k", cfg, &[&out.to_le_bytes()], &mut st)?;
    let b = dev.read(out, 4 * n as u64)?;
    Ok(b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

fn cfg(grid: u32, cluster: Option<[u32; 3]>, threads: usize, engine: Engine) -> LaunchConfig {
    LaunchConfig {
        grid: [grid, 1, 1],
        block: [64, 1, 1],
        cluster,
        threads,
        engine,
        max_steps: 10_000_000,
        ..LaunchConfig::default()
    }
}

#[test]
fn dsmem_sums_on_several_host_threads_and_every_engine() {
    let dev = Device::new();
    for engine in [Engine::Reference, Engine::Interp, Engine::Jit] {
        for threads in [1, 3] {
            for n in [1u32, 2, 4, 8] {
                let got = launch(&dev, &cfg(16, Some([n, 1, 1]), threads, engine))
                    .unwrap_or_else(|e| panic!("{e}"));
                for b in 0..16u32 {
                    for t in 0..64u32 {
                        let i = 3 * (64 * b + t) as usize;
                        // Cluster of CTAs c*n .. c*n + n - 1: the sum of 1000 * ctaid + t.
                        let c = b / n;
                        let sum: u32 = (0..n).map(|r| 1000 * (c * n + r) + t).sum();
                        assert_eq!(
                            got[i..i + 3],
                            [sum, b % n, n],
                            "{engine:?}, {threads} threads, clusters of {n}: CTA {b} thread {t}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn cluster_shapes_are_checked() {
    let dev = Device::new();
    let usage = |r: Result<Vec<u32>, VmError>| match r {
        Err(e @ VmError::Usage(_)) => e.to_string(),
        other => panic!("expected a usage error, got {other:?}"),
    };
    let e = usage(launch(&dev, &cfg(6, Some([4, 1, 1]), 1, Engine::Reference)));
    assert!(
        e.contains("not a multiple of the cluster shape [4, 1, 1]"),
        "{e}"
    );
    let e = usage(launch(
        &dev,
        &cfg(16, Some([16, 1, 1]), 1, Engine::Reference),
    ));
    assert!(e.contains("portable cluster size of 8"), "{e}");
    let e = usage(launch(
        &dev,
        &cfg(16, Some([0, 1, 1]), 1, Engine::Reference),
    ));
    assert!(e.contains("at least 1"), "{e}");
    let mut c = cfg(16, Some([16, 1, 1]), 1, Engine::Reference);
    c.non_portable_cluster = true;
    assert!(launch(&dev, &c).is_ok());
    let sm80 = model("sm_80").unwrap_or_else(|| panic!("no sm_80 model"));
    let old = Device::with_props(DeviceProps::for_model(sm80));
    // (sm_80 cannot load .target sm_90 code: check the shape on its own.)
    let m = old
        .load_ptx(
            "f.ptx",
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry f() { ret; }\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let k = old.kernel(m, "f").unwrap_or_else(|e| panic!("{e}"));
    let e = old
        .cluster_shape(&k, &cfg(2, Some([2, 1, 1]), 1, Engine::Reference))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("no thread block clusters"), "{e}");
    assert_eq!(
        old.cluster_shape(&k, &cfg(2, None, 1, Engine::Reference))
            .ok(),
        Some(([1, 1, 1], false))
    );
}
