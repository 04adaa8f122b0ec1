//! The fast paths' float arithmetic against `ptxvm-fp`, bit for bit, on the edge cases:
//! the JIT computes `add/sub/mul/fma.rn.f32` (with `.ftz`, `.sat`) and `setp.*.f32` on the
//! host's SIMD instructions, not through `ptxvm-fp`, so this checks that it gives exactly
//! `ptxvm_fp::arith`'s results — NaN canonicalisation (any NaN result is 0x7fffffff), ±0,
//! subnormals in and out (with and without `.ftz`), overflow to ±inf, `.sat` clamping (NaN
//! to +0) — for every pair (triple for `fma`) of edge values and for random bit patterns.
//! Every engine (reference, interp, jit) must give those bits; the JIT must run the
//! arithmetic in native code.

use ptxvm_fp::Rnd;
use ptxvm_vm::device::{LaunchConfig, ModuleId};
use ptxvm_vm::{Device, Engine, Stats};

/// f32 bit patterns: zeros, subnormals, the normal range's ends, infinities, quiet and
/// signalling NaNs with payloads and signs, values around 1, and halfway cases.
const EDGES: [u32; 28] = [
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x0000_0001, // smallest subnormal
    0x8000_0001,
    0x007f_ffff, // largest subnormal
    0x807f_ffff,
    0x0040_0000, // a subnormal (2^-127)
    0x0080_0000, // smallest normal
    0x8080_0000,
    0x00c0_0000, // 1.5 * 2^-126
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x3f7f_ffff, // 1 - ulp
    0x3f80_0001, // 1 + ulp
    0x3f00_0000, // 0.5
    0x4040_0000, // 3
    0x4b80_0001, // 2^24 + 2 (odd last bit at 2^24 scale)
    0x7f7f_ffff, // largest finite
    0xff7f_ffff,
    0x7e80_0000, // 2^126
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x7fc0_0000, // quiet NaN
    0xffc0_0001, // negative quiet NaN with a payload
    0x7fc1_2345, // quiet NaN with a payload
    0x7f80_0001, // signalling NaN
    0xff80_4321, // negative signalling NaN
    0x3ea8_f5c3, // 0.33
];

const CMPS: [&str; 14] = [
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

const BLOCK: u32 = 128;

/// A deterministic stream of f32 bit patterns: mostly random, a quarter of them with a
/// small exponent (subnormal or near it) so sums and products meet the subnormal range.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let x = (self.0 >> 32) as u32;
        if x & 3 == 0 { x & 0x80ff_ffff } else { x }
    }
}

/// Operand triples: every pair of edge values (each with every edge as the third operand
/// for `fma`, else with 1.0), then random ones.
fn operands(three: bool) -> Vec<[u32; 3]> {
    let mut v = Vec::new();
    for &a in &EDGES {
        for &b in &EDGES {
            if three {
                for &c in &EDGES {
                    v.push([a, b, c]);
                }
            } else {
                v.push([a, b, 0x3f80_0000]);
            }
        }
    }
    let mut rng = Rng(0x5eed);
    for _ in 0..8192 {
        v.push([rng.next(), rng.next(), rng.next()]);
    }
    while !v.len().is_multiple_of(BLOCK as usize) {
        v.push([0; 3]);
    }
    v
}

/// One kernel per operation: thread i computes `out[i] = op(a[i], b[i], c[i])`. The loads,
/// the operation and the store form one block the JIT compiles.
fn module() -> (String, Vec<(String, String)>) {
    let mut text = String::from(".version 8.0\n.target sm_80\n.address_size 64\n");
    let mut kernels = Vec::new();
    let mut add = |name: String, body: &str| {
        text.push_str(&format!(
            ".visible .entry {name}(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 po)
{{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .f32 %f<5>;
	.reg .b64 %rd<12>;
	ld.param.u64 %rd1, [pa];
	ld.param.u64 %rd2, [pb];
	ld.param.u64 %rd3, [pc];
	ld.param.u64 %rd4, [po];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %tid.x;
	mad.lo.u32 %r3, %r1, {BLOCK}, %r2;
	mul.wide.u32 %rd5, %r3, 4;
	add.s64 %rd6, %rd1, %rd5;
	add.s64 %rd7, %rd2, %rd5;
	add.s64 %rd8, %rd3, %rd5;
	add.s64 %rd9, %rd4, %rd5;
	ld.global.f32 %f1, [%rd6];
	ld.global.f32 %f2, [%rd7];
	ld.global.f32 %f3, [%rd8];
	{body}
	ret;
}}
"
        ));
        kernels.push((name, body.to_string()));
    };
    for op in ["add", "sub", "mul", "fma"] {
        for (m, suffix) in [
            ("", ""),
            (".ftz", "_ftz"),
            (".sat", "_sat"),
            (".ftz.sat", "_ftz_sat"),
        ] {
            let c = if op == "fma" { ", %f3" } else { "" };
            add(
                format!("{op}{suffix}"),
                &format!("{op}.rn{m}.f32 %f4, %f1, %f2{c};\n\tst.global.f32 [%rd9], %f4;"),
            );
        }
    }
    for cmp in CMPS {
        for (m, suffix) in [("", ""), (".ftz", "_ftz")] {
            add(
                format!("setp_{cmp}{suffix}"),
                &format!(
                    "setp.{cmp}{m}.f32 %p1, %f1, %f2;\n\tselp.b32 %r3, 1, 0, %p1;\n\tst.global.u32 [%rd9], %r3;"
                ),
            );
        }
    }
    (text, kernels)
}

/// `ptxvm-fp`'s result for kernel `name` (a comparison: the IEEE relation on the
/// flushed operands).
fn oracle(name: &str, [a, b, c]: [u32; 3]) -> u32 {
    let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
    let ftz = name.contains("ftz");
    let sat = name.ends_with("sat");
    use ptxvm_fp::arith;
    if let Some(cmp) = name.strip_prefix("setp_") {
        let flush = |v: f32| if ftz { arith::ftz_f32(v) } else { v };
        let (x, y) = (flush(x), flush(y));
        let nan = x.is_nan() || y.is_nan();
        let r = match cmp.trim_end_matches("_ftz") {
            "eq" => x == y,
            "ne" => !nan && x != y,
            "lt" => x < y,
            "le" => x <= y,
            "gt" => x > y,
            "ge" => x >= y,
            "equ" => nan || x == y,
            "neu" => nan || x != y,
            "ltu" => nan || x < y,
            "leu" => nan || x <= y,
            "gtu" => nan || x > y,
            "geu" => nan || x >= y,
            "num" => !nan,
            "nan" => nan,
            other => panic!("comparison {other}"),
        };
        return r as u32;
    }
    let r = match &name[..3] {
        "add" => arith::add_f32(x, y, Rnd::Rn, ftz, sat),
        "sub" => arith::sub_f32(x, y, Rnd::Rn, ftz, sat),
        "mul" => arith::mul_f32(x, y, Rnd::Rn, ftz, sat),
        "fma" => arith::fma_f32(x, y, z, Rnd::Rn, ftz, sat),
        other => panic!("operation {other}"),
    };
    r.to_bits()
}

fn run(
    dev: &Device,
    m: ModuleId,
    name: &str,
    ops: &[[u32; 3]],
    engine: Engine,
) -> (Vec<u32>, Stats) {
    let n = ops.len() as u64;
    let bufs: Vec<u64> = (0..4).map(|_| dev.malloc(n * 4).expect("malloc")).collect();
    for (k, &buf) in bufs.iter().take(3).enumerate() {
        let bytes: Vec<u8> = ops.iter().flat_map(|o| o[k].to_le_bytes()).collect();
        dev.write(buf, &bytes).expect("write");
    }
    let cfg = LaunchConfig {
        grid: [(n / BLOCK as u64) as u32, 1, 1],
        block: [BLOCK, 1, 1],
        engine,
        ..LaunchConfig::default()
    };
    let args: Vec<[u8; 8]> = bufs.iter().map(|b| b.to_le_bytes()).collect();
    let argv: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
    let mut stats = Stats::default();
    dev.launch(m, name, &cfg, &argv, &mut stats)
        .unwrap_or_else(|e| panic!("{name} on {}: {e}", engine.name()));
    let out = dev.read(bufs[3], n * 4).expect("read");
    for b in bufs {
        dev.free(b).expect("free");
    }
    let out = out
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    (out, stats)
}

#[test]
fn fast_float_paths_match_ptxvm_fp_bit_for_bit() {
    let (text, kernels) = module();
    let dev = Device::new();
    let m = dev.load_ptx("jit_numerics.ptx", &text).expect("load");
    let pairs = operands(false);
    let triples = operands(true);
    let mut failures = Vec::new();
    for (name, body) in &kernels {
        let ops = if name.starts_with("fma") {
            &triples
        } else {
            &pairs
        };
        for engine in [Engine::Reference, Engine::Interp, Engine::Jit] {
            let (got, stats) = run(&dev, m, name, ops, engine);
            if engine == Engine::Jit {
                assert!(
                    stats.jit_error.is_none() && stats.tiers[3] > 0,
                    "{name}: the JIT did not run it ({:?}, tiers {:?})",
                    stats.jit_error,
                    stats.tiers
                );
            }
            let bad: Vec<String> = ops
                .iter()
                .zip(&got)
                .filter(|&(o, &g)| g != oracle(name, *o))
                .take(4)
                .map(|(o, g)| {
                    format!(
                        "[{:#010x}, {:#010x}, {:#010x}] -> {g:#010x}, ptxvm-fp {:#010x}",
                        o[0],
                        o[1],
                        o[2],
                        oracle(name, *o)
                    )
                })
                .collect();
            if !bad.is_empty() {
                failures.push(format!("{} `{body}`: {}", engine.name(), bad.join("; ")));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
