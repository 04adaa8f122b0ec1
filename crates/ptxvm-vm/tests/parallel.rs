//! CTAs run on several host threads: global atomics stay atomic and results do not depend
//! on the thread count (the program here has no races).

use ptxvm_vm::{Device, LaunchConfig};

const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry count(.param .u64 counter, .param .u64 hist, .param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [counter];
    ld.param.u64 %rd2, [hist];
    ld.param.u64 %rd3, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    atom.global.add.u32 %r5, [%rd1], 1;
    and.b32 %r6, %r4, 15;
    mul.wide.u32 %rd4, %r6, 4;
    add.s64 %rd5, %rd2, %rd4;
    red.global.add.u32 [%rd5], %r4;
    mul.wide.u32 %rd6, %r4, 4;
    add.s64 %rd7, %rd3, %rd6;
    mul.lo.s32 %r7, %r4, %r4;
    st.global.u32 [%rd7], %r7;
    ret;
}
"#;

fn run(threads: usize) -> (u32, Vec<u32>, Vec<u32>) {
    let dev = Device::new();
    let m = dev.load_ptx("count.ptx", PTX).unwrap();
    let (ctas, block) = (64u32, 128u32);
    let n = (ctas * block) as u64;
    let counter = dev.malloc(4).unwrap();
    let hist = dev.malloc(16 * 4).unwrap();
    let out = dev.malloc(n * 4).unwrap();
    let cfg = LaunchConfig {
        grid: [ctas, 1, 1],
        block: [block, 1, 1],
        threads,
        ..LaunchConfig::default()
    };
    dev.launch(
        m,
        "count",
        &cfg,
        &[
            &counter.to_le_bytes(),
            &hist.to_le_bytes(),
            &out.to_le_bytes(),
        ],
        &mut ptxvm_vm::Stats::default(),
    )
    .unwrap();
    let words = |addr: u64, len: u64| -> Vec<u32> {
        dev.read(addr, len * 4)
            .unwrap()
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    (words(counter, 1)[0], words(hist, 16), words(out, n))
}

#[test]
fn atomics_are_atomic_and_results_do_not_depend_on_threads() {
    let n = 64 * 128u32;
    let want_hist: Vec<u32> = (0..16u32)
        .map(|k| {
            (0..n)
                .filter(|i| i % 16 == k)
                .fold(0u32, |a, i| a.wrapping_add(i))
        })
        .collect();
    let want_out: Vec<u32> = (0..n).map(|i| i.wrapping_mul(i)).collect();
    for threads in [1, 2, 4] {
        let (c, h, o) = run(threads);
        assert_eq!(c, n, "{threads} threads");
        assert_eq!(h, want_hist, "{threads} threads");
        assert_eq!(o, want_out, "{threads} threads");
    }
}
