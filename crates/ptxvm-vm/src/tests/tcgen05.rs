//! `tcgen05.ld.red` through the library API on the B300 model (`sm_103a`; only sm_110a (old
//! name sm_101a) and the sm_103f family have it). Expected values from host arithmetic
//! written here (min/max with PTX's NaN rules), not from the interpreter.

use crate::arch::{GpuModel, model};
use crate::{Device, DeviceProps, Engine, LaunchConfig, Stats};

const KERNEL: &str = r#"
.version 8.8
.target sm_103a
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out)
{
    .shared .align 4 .b32 slot;
    .reg .b32 %r<40>;
    .reg .f32 %f<40>;
    .reg .b64 %rd<8>;
    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;
    ld.shared.b32 %r1, [slot];
    mov.u32 %r2, %tid.x;
    ld.param.u64 %rd1, [in];
    mul.wide.u32 %rd2, %r2, 32;
    add.u64 %rd3, %rd1, %rd2;
    ld.global.v4.b32 {%r10, %r11, %r12, %r13}, [%rd3];
    ld.global.v4.b32 {%r14, %r15, %r16, %r17}, [%rd3+16];
    tcgen05.st.sync.aligned.32x32b.x8.b32 [%r1], {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17};
    tcgen05.wait::st.sync.aligned;
    tcgen05.ld.red.sync.aligned.32x32b.x8.min.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, %f30, [%r1];
    tcgen05.ld.red.sync.aligned.32x32b.x4.max.abs.f32 {%f0, %f1, %f2, %f3}, %f31, [%r1];
    tcgen05.ld.red.sync.aligned.32x32b.x8.min.abs.NaN.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, %f32, [%r1];
    tcgen05.ld.red.sync.aligned.32x32b.x8.f32.max.NaN {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, %f33, [%r1];
    add.u32 %r3, %r1, 4;
    tcgen05.ld.red.sync.aligned.32x32b.x4.max.u32 {%r20, %r21, %r22, %r23}, %r30, [%r3];
    tcgen05.ld.red.sync.aligned.32x32b.x4.s32.min {%r20, %r21, %r22, %r23}, %r31, [%r3];
    tcgen05.ld.red.sync.aligned.16x32bx2.x2.min.f32 {%f10, %f11}, %f34, [%r1], 2;
    tcgen05.wait::ld.sync.aligned;
    ld.param.u64 %rd4, [out];
    add.u64 %rd5, %rd4, %rd2;
    st.global.v4.f32 [%rd5], {%f30, %f31, %f32, %f33};
    st.global.v2.b32 [%rd5+16], {%r30, %r31};
    st.global.f32 [%rd5+24], %f34;
    st.global.f32 [%rd5+28], %f10;
    tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 32;
    ret;
}
"#;

/// The B300 model (compute capability 10.3).
fn sm103a() -> &'static GpuModel {
    model("sm_103a").expect("the sm_103a model")
}

/// min/max over `vals` with PTX's rules: NaN operands are ignored unless `.NaN` (then any
/// NaN gives the canonical NaN); all NaN gives the canonical NaN; `.abs` first.
fn red_f32(vals: &[u32], max: bool, abs: bool, nan: bool) -> u32 {
    let xs: Vec<f32> = vals
        .iter()
        .map(|&b| {
            let x = f32::from_bits(b);
            if abs { x.abs() } else { x }
        })
        .collect();
    if xs.iter().any(|x| x.is_nan()) && (nan || xs.iter().all(|x| x.is_nan())) {
        return 0x7fff_ffff;
    }
    let it = xs.iter().copied().filter(|x| !x.is_nan());
    let r = if max {
        it.fold(f32::NEG_INFINITY, f32::max)
    } else {
        it.fold(f32::INFINITY, f32::min)
    };
    r.to_bits()
}

#[test]
fn ld_red_reduces_each_threads_columns() {
    // Lane l, column c: distinct nonzero values of both signs, with a NaN in column 5 of
    // lanes 3 and 9, -inf in column 2 of lane 7, and every column NaN in lane 12's first
    // four columns.
    let cell = |l: u32, c: u32| -> u32 {
        match (l, c) {
            (3 | 9, 5) => 0x7fc0_0001,
            (7, 2) => f32::NEG_INFINITY.to_bits(),
            (12, 0..=3) => 0x7fa0_0000 | c,
            _ => {
                let v = (l as f32 + 1.0)
                    * (c as f32 + 1.5)
                    * if (l + c).is_multiple_of(3) {
                        -1.0
                    } else {
                        0.75
                    };
                v.to_bits()
            }
        }
    };
    let input: Vec<u8> = (0..32)
        .flat_map(|l| (0..8).map(move |c| cell(l, c)))
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let dev = Device::with_props(DeviceProps::for_model(sm103a()));
    for engine in [Engine::Reference, Engine::Interp, Engine::Jit] {
        let m = dev
            .load_ptx("k.ptx", KERNEL)
            .unwrap_or_else(|e| panic!("{e}"));
        let inp = dev.malloc(input.len() as u64).unwrap();
        dev.write(inp, &input).unwrap();
        let out = dev.malloc(32 * 32).unwrap();
        let cfg = LaunchConfig {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            engine,
            ..LaunchConfig::default()
        };
        let mut st = Stats::default();
        dev.launch(
            m,
            "k",
            &cfg,
            &[&inp.to_le_bytes(), &out.to_le_bytes()],
            &mut st,
        )
        .unwrap_or_else(|e| panic!("{engine:?}: {e}"));
        let b = dev.read(out, 32 * 32).unwrap();
        let got: Vec<u32> = b
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        for l in 0..32u32 {
            let row: Vec<u32> = (0..8).map(|c| cell(l, c)).collect();
            // The integer loads start at column 4.
            let ints: Vec<u32> = (4..8).map(|c| cell(l, c)).collect();
            // .16x32bx2: threads 0-15 lane l columns 0-1, threads 16-31 lane l-16 columns 2-3.
            let half: Vec<u32> = if l < 16 {
                (0..2).map(|c| cell(l, c)).collect()
            } else {
                (2..4).map(|c| cell(l - 16, c)).collect()
            };
            let want = [
                red_f32(&row, false, false, false),
                red_f32(&row[..4], true, true, false),
                red_f32(&row, false, true, true),
                red_f32(&row, true, false, true),
                ints.iter().copied().max().unwrap(),
                ints.iter().map(|&v| v as i32).min().unwrap() as u32,
                red_f32(&half, false, false, false),
                half[0],
            ];
            let g = &got[8 * l as usize..8 * l as usize + 8];
            assert_eq!(g, want, "{engine:?}, lane {l}");
        }
        dev.unload(m).ok();
    }
}

#[test]
fn ld_red_is_refused_on_sm_100a() {
    let dev = Device::with_props(DeviceProps::for_model(model("sm_100a").unwrap()));
    let err = dev
        .load_ptx("k.ptx", KERNEL)
        .and_then(|m| {
            let inp = dev.malloc(1024)?;
            let out = dev.malloc(1024)?;
            let mut st = Stats::default();
            dev.launch(
                m,
                "k",
                &LaunchConfig {
                    grid: [1, 1, 1],
                    block: [32, 1, 1],
                    ..LaunchConfig::default()
                },
                &[&inp.to_le_bytes(), &out.to_le_bytes()],
                &mut st,
            )
        })
        .expect_err("an sm_103a module on the sm_100a model");
    let e = err.to_string();
    assert!(
        e.contains("sm_103f") && e.contains("ld.red") && e.contains(".min.f32"),
        "{e}"
    );
}
