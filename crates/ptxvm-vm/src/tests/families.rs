//! Integer, half-precision, conversion, atomic, memory, barrier and builtin families.

use super::{fault_of, run_kernel, run1, stores};
use crate::FaultKind;

fn regs(n: usize, from: usize) -> Vec<String> {
    (from..from + n).map(|k| format!("%r{k}")).collect()
}

fn run_ops(lines: &[String]) -> Vec<u32> {
    run_ops_pre("", lines)
}

/// Like [`run_ops`] with setup lines first (e.g. half-precision operands in registers).
fn run_ops_pre(pre: &str, lines: &[String]) -> Vec<u32> {
    let dsts = regs(lines.len(), 10);
    let mut body = pre.to_string();
    for (l, d) in lines.iter().zip(&dsts) {
        body.push_str(&format!("    {}\n", l.replace("$d", d)));
    }
    let ds: Vec<&str> = dsts.iter().map(|s| s.as_str()).collect();
    body.push_str(&stores(&ds));
    run1(&body, lines.len())
}

// ----- host references, written independently of the interpreter ---------------------

fn bfe_ref(a: u32, pos: u32, len: u32, signed: bool) -> u32 {
    if len == 0 {
        return 0;
    }
    let wide: i64 = if signed { a as i32 as i64 } else { a as i64 };
    let shifted = wide >> pos.min(63);
    let len = len.min(62);
    let m = (1i64 << len) - 1;
    let mut field = shifted & m;
    if signed && (field >> (len - 1)) & 1 == 1 {
        field |= !m;
    }
    field as u32
}

fn prmt_ref(a: u32, b: u32, c: u32, mode: &str) -> u32 {
    let bytes: Vec<u8> = a.to_le_bytes().into_iter().chain(b.to_le_bytes()).collect();
    let s = (c & 3) as usize;
    // Selections for result bytes 0..3, from the manual's table (read right to left).
    let sel: [usize; 4] = match mode {
        ".f4e" => [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]][s],
        ".b4e" => [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]][s],
        ".rc8" => [s; 4],
        ".ecl" => [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]][s],
        ".ecr" => [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]][s],
        ".rc16" => [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]][s],
        _ => {
            let mut out = [0u8; 4];
            for (k, o) in out.iter_mut().enumerate() {
                let nib = (c >> (4 * k)) & 0xf;
                let byte = bytes[(nib & 7) as usize];
                *o = if nib & 8 != 0 {
                    ((byte as i8) >> 7) as u8
                } else {
                    byte
                };
            }
            return u32::from_le_bytes(out);
        }
    };
    u32::from_le_bytes([bytes[sel[0]], bytes[sel[1]], bytes[sel[2]], bytes[sel[3]]])
}

#[test]
fn bfe_bfi_bfind() {
    let a = 0xf0e1_d2c3u32;
    let cases = [
        (0, 8),
        (4, 12),
        (28, 8),
        (30, 0),
        (31, 1),
        (40, 5),
        (4, 40),
        (0, 32),
        (255, 255),
    ];
    let mut lines = Vec::new();
    for &(p, l) in &cases {
        lines.push(format!("bfe.u32 $d, {a}, {p}, {l};"));
        lines.push(format!("bfe.s32 $d, {a}, {p}, {l};"));
    }
    let got = run_ops(&lines);
    for (k, &(p, l)) in cases.iter().enumerate() {
        assert_eq!(
            got[2 * k],
            bfe_ref(a, p, l, false),
            "bfe.u32 pos {p} len {l}"
        );
        assert_eq!(
            got[2 * k + 1],
            bfe_ref(a, p, l, true),
            "bfe.s32 pos {p} len {l}"
        );
    }
    // bfi: insert, with fields running past bit 31 and zero length.
    let icases = [
        (0u32, 8u32),
        (4, 4),
        (28, 8),
        (31, 4),
        (0, 0),
        (32, 4),
        (8, 255),
    ];
    let lines: Vec<String> = icases
        .iter()
        .map(|(p, l)| format!("bfi.b32 $d, 0x12345678, 0xffffffff, {p}, {l};"))
        .collect();
    let got = run_ops(&lines);
    for (k, &(p, l)) in icases.iter().enumerate() {
        let mut want = 0xffff_ffffu64;
        for i in 0..l.min(64) as u64 {
            let pos = p as u64 + i;
            if pos < 32 {
                want = (want & !(1 << pos)) | ((0x1234_5678u64 >> i & 1) << pos);
            }
        }
        assert_eq!(got[k], want as u32, "bfi pos {p} len {l}");
    }
    let bcases: [(i64, &str); 6] = [
        (0, "u32"),
        (1, "u32"),
        (0x8000_0000, "u32"),
        (-1, "s32"),
        (-2, "s32"),
        (0x4000, "s32"),
    ];
    let mut lines = Vec::new();
    for (v, t) in bcases {
        lines.push(format!("bfind.{t} $d, {};", v as i32));
        lines.push(format!("bfind.shiftamt.{t} $d, {};", v as i32));
    }
    let got = run_ops(&lines);
    for (k, (v, t)) in bcases.iter().enumerate() {
        let x = *v as i32 as u32;
        let y = if *t == "s32" && (x as i32) < 0 { !x } else { x };
        let want = if y == 0 {
            u32::MAX
        } else {
            31 - y.leading_zeros()
        };
        let want_sa = if y == 0 { u32::MAX } else { y.leading_zeros() };
        assert_eq!(got[2 * k], want, "bfind.{t} {v}");
        assert_eq!(got[2 * k + 1], want_sa, "bfind.shiftamt.{t} {v}");
    }
}

#[test]
fn bfe_64_bit() {
    let body = "    mov.b64 %rd2, 0x8123456789abcdef;\n    bfe.s64 %rd3, %rd2, 60, 8;\n    bfe.u64 %rd4, %rd2, 4, 16;\n    mov.b64 {%r10, %r11}, %rd3;\n    mov.b64 {%r12, %r13}, %rd4;\n"
        .to_string()
        + &stores(&["%r10", "%r11", "%r12", "%r13"]);
    let got = run1(&body, 4);
    let a = 0x8123_4567_89ab_cdefu64;
    let s = ((a as i64) >> 60) as u64; // pos 60, len 8 past bit 63: sign-filled
    let u = (a >> 4) & 0xffff;
    assert_eq!(got, [s as u32, (s >> 32) as u32, u as u32, 0]);
}

#[test]
fn fns_szext_bmsk() {
    let lines: Vec<String> = [
        "fns.b32 $d, 0xaaaaaaaa, 3, 1;",
        "fns.b32 $d, 0xaaaaaaaa, 3, -1;",
        "fns.b32 $d, 0xaaaaaaaa, 2, 1;",
        "fns.b32 $d, 0xaaaaaaaa, 2, -1;",
        "fns.b32 $d, 0xaaaaaaaa, 0, 17;",
        "fns.b32 $d, 0xaaaaaaaa, 0, 16;",
        "fns.b32 $d, 0xaaaaaaaa, 31, -16;",
        "fns.b32 $d, 0xaaaaaaaa, 40, 0;",
        "szext.wrap.u32 $d, 0xffffffff, 0;",
        "szext.clamp.s32 $d, 0x000000f0, 8;",
        "szext.clamp.s32 $d, 0x000000f0, 40;",
        "szext.wrap.s32 $d, 0x000000f0, 40;",
        "szext.wrap.u32 $d, 0x123456f0, 4;",
        "bmsk.wrap.b32 $d, 1, 2;",
        "bmsk.clamp.b32 $d, 30, 8;",
        "bmsk.clamp.b32 $d, 32, 1;",
        "bmsk.wrap.b32 $d, 33, 1;",
        "bmsk.clamp.b32 $d, 4, 0;",
        "bmsk.clamp.b32 $d, 4, 40;",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let got = run_ops(&lines);
    let want = [
        3,
        3,
        3,
        1,
        u32::MAX, // 17th set bit of 16 does not exist
        31,
        1,
        u32::MAX,
        0,
        0xffff_fff0,
        0xf0,
        0xffff_fff0, // wrap: 40 & 31 = 8
        0,
        0b110,
        0xc000_0000,
        0,
        0b10,
        0,
        0xffff_fff0,
    ];
    assert_eq!(got, want);
}

#[test]
fn prmt_all_modes() {
    let (a, b) = (0x0382_0180u32, 0x8706_8504u32);
    let mut lines = Vec::new();
    let mut want = Vec::new();
    for mode in [".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"] {
        for c in [0u32, 1, 2, 3, 0xfffc + 1] {
            lines.push(format!("prmt.b32{mode} $d, {a}, {b}, {c};"));
            want.push(prmt_ref(a, b, c, mode));
        }
    }
    for c in [
        0x3210u32,
        0x7654,
        0x0000,
        0x89ab,
        0xcdef,
        0x8f4e,
        0xffff_1357,
    ] {
        lines.push(format!("prmt.b32 $d, {a}, {b}, {c};"));
        want.push(prmt_ref(a, b, c, ""));
    }
    assert_eq!(run_ops(&lines), want);
}

#[test]
fn lop3_shf() {
    let (a, b, c) = (0xf0f0_1234u32, 0xcccc_5678u32, 0xaaaa_9abcu32);
    let luts = [
        0x00u32, 0xff, 0xf0, 0xcc, 0xaa, 0x80, 0xfe, 0x96, 0xe8, 0x1b,
    ];
    let lines: Vec<String> = luts
        .iter()
        .map(|l| format!("lop3.b32 $d, {a}, {b}, {c}, {l};"))
        .collect();
    let got = run_ops(&lines);
    for (k, &lut) in luts.iter().enumerate() {
        let mut want = 0u32;
        for bit in 0..32 {
            let idx = ((a >> bit & 1) << 2) | ((b >> bit & 1) << 1) | (c >> bit & 1);
            want |= (lut >> idx & 1) << bit;
        }
        assert_eq!(got[k], want, "lop3 {lut:#x}");
    }
    // lop3 with a predicate result.
    let body = format!(
        "    setp.eq.u32 %p1, %r0, 0;\n    lop3.or.b32 %r10|%p2, {a}, {b}, {c}, 0x00, %p1;\n    lop3.and.b32 %r11|%p3, {a}, {b}, {c}, 0x80, %p1;\n    selp.u32 %r12, 1, 0, %p2;\n    selp.u32 %r13, 1, 0, %p3;\n"
    ) + &stores(&["%r10", "%r11", "%r12", "%r13"]);
    assert_eq!(run1(&body, 4), [0, a & b & c, 1, 1]);
    let shifts = [0u32, 1, 8, 31, 32, 33, 63, 100];
    let (lo, hi) = (0x89ab_cdefu32, 0x0123_4567u32);
    let mut lines = Vec::new();
    for n in shifts {
        for m in ["l.wrap", "l.clamp", "r.wrap", "r.clamp"] {
            lines.push(format!("shf.{m}.b32 $d, {lo}, {hi}, {n};"));
        }
    }
    let got = run_ops(&lines);
    let wide = ((hi as u64) << 32) | lo as u64;
    for (k, n) in shifts.iter().enumerate() {
        let (w, c) = (n % 32, (*n).min(32));
        let want = [
            ((wide << w) >> 32) as u32,
            ((wide << c) >> 32) as u32,
            (wide >> w) as u32,
            (wide >> c) as u32,
        ];
        assert_eq!(&got[4 * k..4 * k + 4], &want, "shf by {n}");
    }
}

#[test]
fn dot_products_mul24_sad() {
    let (a, b, c) = (0x80ff_7f01u32, 0x02fe_81ffu32, 1000u32);
    let bytes = |x: u32, s: bool| -> Vec<i64> {
        x.to_le_bytes()
            .iter()
            .map(|&v| if s { v as i8 as i64 } else { v as i64 })
            .collect()
    };
    let halves = |x: u32, s: bool| -> Vec<i64> {
        [x as u16, (x >> 16) as u16]
            .iter()
            .map(|&v| if s { v as i16 as i64 } else { v as i64 })
            .collect()
    };
    let mut lines = Vec::new();
    let mut want = Vec::new();
    for (ta, sa) in [("u32", false), ("s32", true)] {
        for (tb, sb) in [("u32", false), ("s32", true)] {
            lines.push(format!("dp4a.{ta}.{tb} $d, {a}, {b}, {c};"));
            let dot: i64 = bytes(a, sa)
                .iter()
                .zip(bytes(b, sb))
                .map(|(x, y)| x * y)
                .sum();
            want.push((c as i64 + dot) as u32);
            for (mode, off) in [("lo", 0usize), ("hi", 2)] {
                lines.push(format!("dp2a.{mode}.{ta}.{tb} $d, {a}, {b}, {c};"));
                let hb = halves(a, sa);
                let bb = bytes(b, sb);
                want.push((c as i64 + hb[0] * bb[off] + hb[1] * bb[off + 1]) as u32);
            }
        }
    }
    // mul24/mad24: operands use only their low 24 bits (sign-extended for .s32).
    let (x, y) = (0x7f80_0001u32, 0x00ff_fffeu32);
    let sx = ((x << 8) as i32 >> 8) as i64;
    let sy = ((y << 8) as i32 >> 8) as i64;
    let ux = (x & 0xff_ffff) as i64;
    let uy = (y & 0xff_ffff) as i64;
    for (t, p) in [("u32", ux * uy), ("s32", sx * sy)] {
        lines.push(format!("mul24.lo.{t} $d, {x}, {y};"));
        want.push(p as u32);
        lines.push(format!("mul24.hi.{t} $d, {x}, {y};"));
        want.push((p >> 16) as u32);
        lines.push(format!("mad24.lo.{t} $d, {x}, {y}, 7;"));
        want.push((p as u32).wrapping_add(7));
    }
    lines.push("mad24.hi.sat.s32 $d, 0x7fffff, 0x7fffff, 0x7ffffff0;".to_string());
    let hi = ((0x7f_ffffi64 * 0x7f_ffff) >> 16) as i32 as i64;
    want.push((hi + 0x7fff_fff0).min(i32::MAX as i64) as u32);
    // sad
    lines.push("sad.u32 $d, 3, 10, 100;".into());
    want.push(107);
    lines.push("sad.s32 $d, -5, 10, 1;".into());
    want.push(16);
    lines.push("sad.u32 $d, 0xffffffff, 1, 0;".into());
    want.push(0xffff_fffe);
    assert_eq!(run_ops(&lines), want);
}

#[test]
fn packed16_and_relu() {
    let (a, b) = (0x8000_7fffu32, 0x0001_0002u32);
    let lines: Vec<String> = [
        format!("add.u16x2 $d, {a}, {b};"),
        format!("add.s16x2 $d, {a}, {b};"),
        format!("min.u16x2 $d, {a}, {b};"),
        format!("min.s16x2 $d, {a}, {b};"),
        format!("max.s16x2 $d, {a}, {b};"),
        format!("min.relu.s16x2 $d, {a}, {b};"),
        "max.relu.s16x2 $d, 0x8000ffff, 0x80008001;".to_string(),
        "min.relu.s32 $d, -5, 3;".into(),
        "max.relu.s32 $d, -5, -3;".into(),
        "max.relu.s32 $d, -5, 3;".into(),
    ]
    .to_vec();
    let per = |f: &dyn Fn(u16, u16) -> u16, x: u32, y: u32| -> u32 {
        f(x as u16, y as u16) as u32 | (f((x >> 16) as u16, (y >> 16) as u16) as u32) << 16
    };
    let want = [
        per(&|x, y| x.wrapping_add(y), a, b),
        per(&|x, y| x.wrapping_add(y), a, b),
        per(&|x, y| x.min(y), a, b),
        per(&|x, y| (x as i16).min(y as i16) as u16, a, b),
        per(&|x, y| (x as i16).max(y as i16) as u16, a, b),
        per(&|x, y| (x as i16).min(y as i16).max(0) as u16, a, b),
        per(
            &|x, y| (x as i16).max(y as i16).max(0) as u16,
            0x8000_ffff,
            0x8000_8001,
        ),
        0,
        0,
        3,
    ];
    assert_eq!(run_ops(&lines), want);
}

#[test]
fn carry_chains() {
    let x: u128 = 0xffff_ffff_0000_0001_ffff_ffff_ffff_fffe;
    let y: u128 = 0x0000_0001_ffff_ffff_0000_0000_0000_0003;
    let w = |v: u128, k: u32| (v >> (32 * k)) as u32;
    let body = format!(
        "    add.cc.u32 %r10, {}, {};\n    addc.cc.u32 %r11, {}, {};\n    addc.cc.u32 %r12, {}, {};\n    addc.u32 %r13, {}, {};\n    sub.cc.u32 %r14, {}, {};\n    subc.cc.u32 %r15, {}, {};\n    subc.cc.u32 %r16, {}, {};\n    subc.u32 %r17, {}, {};\n    addc.u32 %r18, 0, 0;\n",
        w(x, 0),
        w(y, 0),
        w(x, 1),
        w(y, 1),
        w(x, 2),
        w(y, 2),
        w(x, 3),
        w(y, 3),
        w(y, 0),
        w(x, 0),
        w(y, 1),
        w(x, 1),
        w(y, 2),
        w(x, 2),
        w(y, 3),
        w(x, 3),
    ) + &stores(&[
        "%r10", "%r11", "%r12", "%r13", "%r14", "%r15", "%r16", "%r17", "%r18",
    ]);
    let got = run1(&body, 9);
    let s = x.wrapping_add(y);
    let d = y.wrapping_sub(x);
    assert_eq!(&got[0..4], &[w(s, 0), w(s, 1), w(s, 2), w(s, 3)]);
    assert_eq!(&got[4..8], &[w(d, 0), w(d, 1), w(d, 2), w(d, 3)]);
    // `subc` without `.cc` leaves the flag of the last `.cc` step (word 2: 0xffffffff -
    // (1 + borrow) does not borrow), so the final `addc` adds 0.
    assert_eq!(got[8], 0);
    // 64x64 → 128-bit product with mad.cc/madc, the manual's example sequence.
    let (p, q) = (0xfedc_ba98_7654_3210u64, 0xffff_ffff_ffff_fff1u64);
    let body = format!(
        "    mov.u32 %r4, {};\n    mov.u32 %r5, {};\n    mov.u32 %r6, {};\n    mov.u32 %r7, {};\n    mul.lo.u32 %r10, %r4, %r6;\n    mul.hi.u32 %r11, %r4, %r6;\n    mad.lo.cc.u32 %r11, %r5, %r6, %r11;\n    madc.hi.u32 %r12, %r5, %r6, 0;\n    mad.lo.cc.u32 %r11, %r4, %r7, %r11;\n    madc.hi.cc.u32 %r12, %r4, %r7, %r12;\n    addc.u32 %r13, 0, 0;\n    mad.lo.cc.u32 %r12, %r5, %r7, %r12;\n    madc.hi.u32 %r13, %r5, %r7, %r13;\n",
        p as u32,
        (p >> 32) as u32,
        q as u32,
        (q >> 32) as u32
    ) + &stores(&["%r10", "%r11", "%r12", "%r13"]);
    let prod = p as u128 * q as u128;
    assert_eq!(
        run1(&body, 4),
        [w(prod, 0), w(prod, 1), w(prod, 2), w(prod, 3)]
    );
    // 64-bit carry.
    let body = "    mov.b64 %rd2, -1;\n    add.cc.u64 %rd3, %rd2, 2;\n    addc.u64 %rd4, 5, 0;\n    cvt.u32.u64 %r10, %rd3;\n    cvt.u32.u64 %r11, %rd4;\n".to_string()
        + &stores(&["%r10", "%r11"]);
    assert_eq!(run1(&body, 2), [1, 6]);
}

#[test]
fn testp_copysign_half_compare() {
    let lines: Vec<String> = [
        "testp.finite.f32 %p1, 0f7f800000;",
        "testp.infinite.f32 %p1, 0fff800000;",
        "testp.notanumber.f32 %p1, 0f7fc00000;",
        "testp.number.f32 %p1, 0f7fc00000;",
        "testp.normal.f32 %p1, 0f00000001;",
        "testp.subnormal.f32 %p1, 0f00000001;",
        "testp.subnormal.f64 %p1, 0d0000000000000001;",
        "testp.normal.f64 %p1, 0d3ff0000000000000;",
    ]
    .iter()
    .map(|l| format!("{l}\n    selp.u32 $d, 1, 0, %p1;"))
    .collect();
    assert_eq!(run_ops(&lines), [0, 1, 1, 0, 0, 1, 1, 1]);
    let lines: Vec<String> = [
        "copysign.f32 %f1, 0fbf800000, 0f40000000;\n    mov.b32 $d, %f1;",
        "copysign.f32 %f1, 0f3f800000, 0fc0000000;\n    mov.b32 $d, %f1;",
        // f16: 1.0 = 0x3c00, 2.0 = 0x4000, -0.0 = 0x8000, NaN = 0x7e00.
        "mov.b16 %h1, 0x3c00;\n    mov.b16 %h2, 0x4000;\n    setp.lt.f16 %p1, %h1, %h2;\n    selp.u32 $d, 1, 0, %p1;",
        "mov.b16 %h1, 0x8000;\n    mov.b16 %h2, 0x0000;\n    setp.eq.f16 %p1, %h1, %h2;\n    selp.u32 $d, 1, 0, %p1;",
        "mov.b16 %h1, 0x7e00;\n    setp.nan.f16 %p1, %h1, %h1;\n    selp.u32 $d, 1, 0, %p1;",
        "mov.b16 %h1, 0x0001;\n    mov.b16 %h2, 0x0000;\n    setp.eq.ftz.f16 %p1, %h1, %h2;\n    selp.u32 $d, 1, 0, %p1;",
        "mov.b16 %h1, 0x0001;\n    mov.b16 %h2, 0x0000;\n    setp.eq.f16 %p1, %h1, %h2;\n    selp.u32 $d, 1, 0, %p1;",
        // bf16 1.0 = 0x3f80 > -2.0 = 0xc000.
        "mov.b16 %h1, 0x3f80;\n    mov.b16 %h2, 0xc000;\n    setp.gt.bf16 %p1, %h1, %h2;\n    selp.u32 $d, 1, 0, %p1;",
        // f16x2: lo 1.0 < 2.0 (true), hi 2.0 < 1.0 (false) → p = lo, q = hi.
        "setp.lt.f16x2 %p1|%p2, %r80, %r81;\n    selp.u32 $d, 1, 0, %p1;",
        "setp.lt.f16x2 %p1|%p2, %r80, %r81;\n    selp.u32 $d, 1, 0, %p2;",
        "setp.lt.and.bf16x2 %p1|%p2, %r82, %r83, %p3;\n    selp.u32 $d, 1, 0, %p1;",
        "set.lt.u32.f16x2 $d, %r80, %r81;",
        "set.lt.f16x2.f16x2 $d, %r80, %r81;",
        "mov.b16 %h1, 0x3c00;\n    mov.b16 %h2, 0x4000;\n    set.lt.f16.f16 %h3, %h1, %h2;\n    cvt.u32.u16 $d, %h3;",
        "mov.b16 %h1, 0x3c00;\n    mov.b16 %h2, 0x4000;\n    set.lt.u32.f16 $d, %h1, %h2;",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let pre = "    mov.b32 %r80, 0x40003c00;\n    mov.b32 %r81, 0x3c004000;\n    mov.b32 %r82, 0x40003f80;\n    mov.b32 %r83, 0x3f804000;\n    setp.eq.u32 %p3, %r0, 0;\n";
    let got = run_ops_pre(pre, &lines);
    assert_eq!(
        got,
        [
            // copysign d, a, b: b with the sign of a.
            0xc000_0000,
            0x4000_0000,
            1,
            1,
            1,
            1,
            0,
            1,
            1,
            0,
            1,
            0x0000_ffff,
            0x0000_3c00,
            0x3c00,
            0xffff_ffff
        ]
    );
}

#[test]
fn half_arithmetic() {
    use ptxvm_fp::half as h;
    let (a, b, c) = (0x4080_3e00u32, 0xc000_3c00u32, 0x3800_3400u32); // (2.25,1.5) (-2,1) (0.5,0.25)
    let mut lines = Vec::new();
    let mut want = Vec::new();
    let r = ptxvm_fp::Rnd::Rn;
    lines.push("add.f16x2 $d, %r80, %r81;".to_string());
    want.push(h::add_f16x2(a, b, r, false, false));
    lines.push("sub.rn.ftz.sat.f16x2 $d, %r80, %r81;".to_string());
    want.push(h::sub_f16x2(a, b, r, true, true));
    lines.push("mul.bf16x2 $d, %r80, %r81;".to_string());
    want.push(h::mul_bf16x2(a, b, r));
    lines.push("fma.rn.f16x2 $d, %r80, %r81, %r82;".to_string());
    want.push(h::fma_f16x2(a, b, c, r, Default::default()));
    lines.push("fma.rn.relu.bf16x2 $d, %r80, %r81, %r82;".to_string());
    want.push(h::fma_bf16x2(a, b, c, r, true));
    lines.push("min.NaN.f16x2 $d, %r80, %r83;".to_string());
    want.push(h::min_f16x2(
        a,
        0x7e00_0000,
        h::MinMaxMods {
            nan: true,
            ..Default::default()
        },
    ));
    lines.push("max.xorsign.abs.bf16x2 $d, %r80, %r81;".to_string());
    want.push(h::max_bf16x2(
        a,
        b,
        h::MinMaxMods {
            xorsign_abs: true,
            ..Default::default()
        },
    ));
    lines.push("neg.f16x2 $d, %r80;".to_string());
    want.push(a ^ 0x8000_8000);
    lines.push("abs.bf16x2 $d, %r81;".to_string());
    want.push(b & 0x7fff_7fff);
    lines.push("ex2.approx.f16x2 $d, %r80;".to_string());
    want.push(h::ex2_f16x2(a));
    lines.push("tanh.approx.bf16x2 $d, %r81;".to_string());
    want.push(h::tanh_bf16x2(b));
    // Scalars: 1.5 + 2.25 = 3.75 = 0x4380.
    lines.push("mov.b16 %h1, 0x3e00;\n    mov.b16 %h3, 0x4080;\n    add.f16 %h2, %h1, %h3;\n    cvt.u32.u16 $d, %h2;".into());
    want.push(0x4380);
    lines.push(
        "mov.b16 %h1, 0x3fc0;\n    fma.rn.bf16 %h2, %h1, %h1, %h1;\n    cvt.u32.u16 $d, %h2;"
            .into(),
    );
    want.push(h::fma_bf16(0x3fc0, 0x3fc0, 0x3fc0, r, false) as u32);
    assert_eq!(want[7], 0xc080_be00);
    let pre = format!(
        "    mov.b32 %r80, {a};\n    mov.b32 %r81, {b};\n    mov.b32 %r82, {c};\n    mov.b32 %r83, 0x7e000000;\n"
    );
    assert_eq!(run_ops_pre(&pre, &lines), want);
}

#[test]
fn packed_and_narrow_cvt() {
    use ptxvm_fp::convert as cv;
    let r = ptxvm_fp::Rnd::Rn;
    let lines: Vec<String> = [
        "cvt.rn.f16x2.f32 $d, 0f3fc00000, 0fc0000000;",
        "cvt.rz.relu.bf16x2.f32 $d, 0f3fc00001, 0fc0000000;",
        "cvt.rn.satfinite.f16x2.f32 $d, 0f7f7fffff, 0f3f800000;",
        "cvt.rna.tf32.f32 $d, 0f3f800fff;",
        "cvt.rn.satfinite.e4m3x2.f32 %h1, 0f3fc00000, 0f47000000;\n    cvt.u32.u16 $d, %h1;",
        "mov.b32 %r80, 0x3c00c000;\n    cvt.rn.satfinite.e5m2x2.f16x2 %h1, %r80;\n    cvt.u32.u16 $d, %h1;",
        "mov.b16 %h1, 0x3840;\n    cvt.rn.f16x2.e4m3x2 $d, %h1;",
        "cvt.pack.sat.s16.s32 $d, 40000, -40000;",
        "cvt.pack.sat.u8.s32.b32 $d, 300, -3, 0x1234;",
        "cvt.rn.satfinite.f16.f32 %h1, 0f7f7fffff;\n    cvt.u32.u16 $d, %h1;",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let want = [
        cv::cvt_f32x2_to_f16x2(1.5, -2.0, r, false, false),
        cv::cvt_f32x2_to_bf16x2(
            f32::from_bits(0x3fc0_0001),
            -2.0,
            ptxvm_fp::Rnd::Rz,
            true,
            false,
        ),
        cv::cvt_f32x2_to_f16x2(f32::MAX, 1.0, r, false, true),
        cv::cvt_f32_to_tf32(
            f32::from_bits(0x3f80_0fff),
            ptxvm_fp::Rnd::Rna,
            false,
            false,
        ),
        cv::cvt_f32x2_to_narrow(1.5, 32768.0, cv::NarrowType::E4M3, false) as u32,
        cv::cvt_f16x2_to_narrow(0x3c00_c000, cv::NarrowType::E5M2, false) as u32,
        cv::cvt_narrow_to_f16x2(0x3840, cv::NarrowType::E4M3, false),
        0x7fff_8000,
        (0x1234 << 16) | (0xff << 8),
        0x7bff,
    ];
    let got = run_ops(&lines);
    assert_eq!(got, want);
    // Hand-checked anchors: 1.5 → 0x3e00 in the upper half, -2.0 → 0xc000 in the lower.
    assert_eq!(got[0], 0x3e00_c000);
    assert_eq!(got[2] & 0xffff, 0x3c00);
    assert_eq!(got[2] >> 16, 0x7bff);
}

#[test]
fn atomics_half_and_b16() {
    let body = r#"
    .shared .align 4 .b8 sm[16];
    mov.u32 %r1, sm;
    mov.u32 %r2, 0x3c003c00;
    st.shared.u32 [%r1], %r2;
    mov.u32 %r4, 0x3c004000;
    atom.shared.add.noftz.f16x2 %r10, [%r1], %r4;
    ld.shared.u32 %r11, [%r1];
    mov.b16 %h1, 0x3f80;
    st.shared.b16 [%r1+4], %h1;
    mov.b16 %h2, 0x3f80;
    atom.shared.add.noftz.bf16 %h3, [%r1+4], %h2;
    ld.shared.b16 %h4, [%r1+4];
    cvt.u32.u16 %r12, %h4;
    mov.b16 %h5, 0x4000;
    mov.b16 %h6, 0x1234;
    atom.shared.cas.b16 %h7, [%r1+4], %h5, %h6;
    ld.shared.b16 %h8, [%r1+4];
    cvt.u32.u16 %r13, %h8;
    mov.u32 %r3, 0x00800000;
    st.shared.u32 [%r1+8], %r3;
    atom.shared.add.f32 %f1, [%r1+8], 0f80400000;
    ld.shared.u32 %r14, [%r1+8];
"#
    .to_string()
        + &stores(&["%r10", "%r11", "%r12", "%r13", "%r14"]);
    let got = run1(&body, 5);
    // (hi 1, lo 1) + (hi 1, lo 2) = (hi 2, lo 3); bf16 1 + 1 = 2 (0x4000); cas matches 2.0 → 0x1234;
    // f32 on shared memory keeps subnormals (PTX ISA "atom"; only global memory flushes):
    // 2^-126 + (-2^-127) = 2^-127 (0x0040_0000).
    assert_eq!(got, [0x3c00_3c00, 0x4000_4200, 0x4000, 0x1234, 0x0040_0000]);
}

#[test]
fn memory_extras() {
    let body = r#"
    .local .align 8 .b8 depot[32];
    .shared .align 4 .b8 sm[8];
    mov.u64 %rd2, depot;
    cvta.local.u64 %rd3, %rd2;
    isspacep.local %p1, %rd3;
    isspacep.global %p2, %rd3;
    isspacep.global %p3, %rd0;
    mov.u64 %rd4, sm;
    cvta.shared.u64 %rd5, %rd4;
    isspacep.shared %p4, %rd5;
    selp.u32 %r10, 1, 0, %p1;
    selp.u32 %r11, 1, 0, %p2;
    selp.u32 %r12, 1, 0, %p3;
    selp.u32 %r13, 1, 0, %p4;
    prefetch.global.L2 [%rd0];
    prefetchu.L1 [%rd0];
    applypriority.global.L2::evict_normal [%rd0], 128;
    stacksave.u64 %rd6;
    alloca.u64 %rd7, 24, 16;
    st.local.u32 [%rd7+20], 77;
    ld.local.u32 %r14, [%rd7+20];
    alloca.u64 %rd8, 8;
    sub.u64 %rd9, %rd8, %rd7;
    cvt.u32.u64 %r15, %rd9;
    stackrestore.u64 %rd6;
    stacksave.u64 %rd10;
    sub.u64 %rd11, %rd10, %rd6;
    cvt.u32.u64 %r16, %rd11;
    and.b64 %rd12, %rd7, 15;
    cvt.u32.u64 %r17, %rd12;
"#
    .to_string()
        + &stores(&[
            "%r10", "%r11", "%r12", "%r13", "%r14", "%r15", "%r16", "%r17",
        ]);
    assert_eq!(run1(&body, 8), [1, 0, 1, 1, 77, 24, 0, 0]);
    // discard writes indeterminate values; ptxvm's are the bits already there (documented
    // choice): the line reads back unchanged.
    let body = "    st.global.u32 [%rd1+8], 5;\n    discard.global.L2 [%rd1], 128;\n".to_string();
    let (v, _) = run_kernel(&body, 1, 1, 32).unwrap();
    assert!(
        v[0].iter()
            .enumerate()
            .all(|(i, w)| *w == if i == 2 { 5 } else { 0 })
    );
    // The address must be 128-byte aligned.
    let f = fault_of("    discard.global.L2 [%rd1+4], 128;\n", 1);
    assert_eq!(f.kind, FaultKind::Misaligned);
    // alloca beyond the local stack faults.
    let f = fault_of("    alloca.u64 %rd2, 0x100000000;\n", 1);
    assert_eq!(f.kind, FaultKind::StackOverflow);
}

#[test]
fn bar_red_and_named_barriers() {
    // 96 threads: popc of (tid % 3 == 0), and/or of (tid < 95).
    let body = r#"
    rem.u32 %r1, %r0, 3;
    setp.eq.u32 %p1, %r1, 0;
    bar.red.popc.u32 %r10, 0, %p1;
    setp.lt.u32 %p2, %r0, 95;
    bar.red.and.pred %p3, 1, %p2;
    barrier.red.or.pred %p4, 2, !%p2;
    selp.u32 %r11, 1, 0, %p3;
    selp.u32 %r12, 1, 0, %p4;
"#
    .to_string()
        + &stores(&["%r10", "%r11", "%r12"]);
    let (v, _) = run_kernel(&body, 1, 96, 3).unwrap();
    for w in &v {
        assert_eq!(w, &[32, 0, 1]);
    }
    // Named barrier with a thread count: warps 0 and 1 meet at barrier 1 (64 threads)
    // while warp 2 never arrives; warp 1 reads what warp 0 wrote before the barrier.
    let body = r#"
    .shared .align 4 .b8 sm[4];
    mov.u32 %r5, sm;
    setp.ge.u32 %p1, %r0, 64;
    @%p1 bra DONE;
    setp.eq.u32 %p2, %r0, 0;
    @%p2 st.shared.u32 [%r5], 1234;
    barrier.sync.aligned 1, 64;
    ld.shared.u32 %r10, [%r5];
    st.global.u32 [%rd1], %r10;
DONE:
"#;
    let (v, _) = run_kernel(body, 1, 96, 1).unwrap();
    assert!(v[..64].iter().all(|w| w[0] == 1234));
    assert!(v[64..].iter().all(|w| w[0] == 0));
    // bar.arrive by producers + bar.sync by consumers.
    let body = r#"
    .shared .align 4 .b8 sm[4];
    mov.u32 %r5, sm;
    setp.lt.u32 %p1, %r0, 32;
    @%p1 bra CONSUMER;
    st.shared.u32 [%r5], 99;
    bar.arrive 3, 64;
    bra.uni DONE;
CONSUMER:
    bar.sync 3, 64;
    ld.shared.u32 %r10, [%r5];
    st.global.u32 [%rd1], %r10;
DONE:
"#;
    let (v, _) = run_kernel(body, 1, 64, 1).unwrap();
    assert!(v[..32].iter().all(|w| w[0] == 99));
    // A thread count that is not a multiple of the warp size faults.
    let f = fault_of("    bar.sync 1, 48;\n", 64);
    assert_eq!(f.kind, FaultKind::Deadlock);
    assert!(
        f.message.contains("multiple of the warp size"),
        "{}",
        f.message
    );
    // bar.sync with early-exited threads completes (exited threads do not block).
    let body = "    setp.ge.u32 %p1, %r0, 40;\n    @%p1 exit;\n    bar.sync 0;\n    st.global.u32 [%rd1], 1;\n";
    let (v, _) = run_kernel(body, 1, 64, 1).unwrap();
    assert_eq!(v.iter().filter(|w| w[0] == 1).count(), 40);
}

const PRINTF_PTX: &str = r#"
.version 8.3
.target sm_80
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf
(
    .param .b64 vprintf_param_0,
    .param .b64 vprintf_param_1
)
;
.extern .func __assertfail
(
    .param .b64 __assertfail_param_0,
    .param .b64 __assertfail_param_1,
    .param .b32 __assertfail_param_2,
    .param .b64 __assertfail_param_3,
    .param .b64 __assertfail_param_4
)
;
.extern .func (.param .b64 func_retval0) malloc
(
    .param .b64 malloc_param_0
)
;
.extern .func free
(
    .param .b64 free_param_0
)
;
.global .align 1 .b8 $str[28] = {99, 116, 97, 32, 37, 100, 32, 116, 105, 100, 32, 37, 48, 51, 117, 32, 37, 46, 50, 102, 32, 37, 115, 124, 37, 99, 10, 0};
.global .align 1 .b8 $str1[3] = {104, 105, 0};
.global .align 1 .b8 $msg[6] = {120, 32, 62, 32, 48, 0};
.global .align 1 .b8 $file[5] = {97, 46, 99, 117, 0};
.global .align 1 .b8 $func[5] = {109, 97, 105, 110, 0};

.visible .entry pr(.param .u32 fail)
{
    .local .align 8 .b8 __local_depot0[32];
    .reg .b64 %SP;
    .reg .b64 %SPL;
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<16>;
    .reg .f64 %fd<2>;
    mov.u64 %SPL, __local_depot0;
    cvta.local.u64 %SP, %SPL;
    add.u64 %rd10, %SP, 0;
    add.u64 %rd1, %SPL, 0;
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    cvt.rn.f64.u32 %fd1, %r2;
    mov.u64 %rd11, $str1;
    cvta.global.u64 %rd12, %rd11;
    st.local.v2.u32 [%rd1], {%r3, %r2};
    st.local.f64 [%rd1+8], %fd1;
    st.local.u64 [%rd1+16], %rd12;
    add.u32 %r4, %r2, 65;
    st.local.u32 [%rd1+24], %r4;
    mov.u64 %rd13, $str;
    cvta.global.u64 %rd14, %rd13;
    {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd14;
    .param .b64 param1;
    st.param.b64 [param1+0], %rd10;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    ld.param.b32 %r5, [retval0+0];
    }
    ld.param.u32 %r6, [fail];
    setp.eq.u32 %p1, %r6, 0;
    @%p1 bra DONE;
    mov.u64 %rd2, $msg;
    cvta.global.u64 %rd3, %rd2;
    mov.u64 %rd4, $file;
    cvta.global.u64 %rd5, %rd4;
    mov.u64 %rd6, $func;
    cvta.global.u64 %rd7, %rd6;
    {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd3;
    .param .b64 param1;
    st.param.b64 [param1+0], %rd5;
    .param .b32 param2;
    st.param.b32 [param2+0], 42;
    .param .b64 param3;
    st.param.b64 [param3+0], %rd7;
    .param .b64 param4;
    st.param.b64 [param4+0], 1;
    call.uni __assertfail, (param0, param1, param2, param3, param4);
    }
DONE:
    ret;
}

.visible .entry heap(.param .u64 out, .param .u32 dfree)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [out];
    {
    .param .b64 param0;
    st.param.b64 [param0+0], 64;
    .param .b64 retval0;
    call.uni (retval0), malloc, (param0);
    ld.param.b64 %rd2, [retval0+0];
    }
    st.u32 [%rd2+60], 4321;
    ld.u32 %r1, [%rd2+60];
    st.global.u32 [%rd1], %r1;
    setp.ne.u64 %p1, %rd2, 0;
    selp.u32 %r2, 1, 0, %p1;
    st.global.u32 [%rd1+4], %r2;
    {
    .param .b64 param0;
    st.param.b64 [param0+0], 0x7fffffffff;
    .param .b64 retval0;
    call.uni (retval0), malloc, (param0);
    ld.param.b64 %rd3, [retval0+0];
    }
    cvt.u32.u64 %r3, %rd3;
    st.global.u32 [%rd1+8], %r3;
    {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd2;
    call.uni free, (param0);
    }
    ld.param.u32 %r4, [dfree];
    setp.eq.u32 %p1, %r4, 0;
    @%p1 bra DONE;
    {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd2;
    call.uni free, (param0);
    }
DONE:
    ret;
}
"#;

#[test]
fn printf_assert_malloc() {
    use crate::{Device, LaunchConfig, VmError};
    let dev = Device::new();
    let m = dev.load_ptx("p.ptx", PRINTF_PTX).unwrap();
    let launch = |k: &str, cfg: &LaunchConfig, args: &[&[u8]]| {
        let mut stats = crate::Stats::default();
        dev.launch(m, k, cfg, args, &mut stats).map(|()| stats)
    };
    let cfg = LaunchConfig {
        grid: [2, 1, 1],
        block: [2, 1, 1],
        ..LaunchConfig::default()
    };
    let stats = launch("pr", &cfg, &[&0u32.to_le_bytes()]).unwrap();
    let text = String::from_utf8(stats.printf).unwrap();
    assert_eq!(
        text,
        "cta 0 tid 000 0.00 hi|A\ncta 0 tid 001 1.00 hi|B\ncta 1 tid 000 0.00 hi|A\ncta 1 tid 001 1.00 hi|B\n"
    );
    let err = launch("pr", &cfg, &[&1u32.to_le_bytes()]).unwrap_err();
    let VmError::Fault(f) = err else {
        panic!("{err}")
    };
    assert_eq!(f.kind, FaultKind::Trap);
    assert_eq!(f.message, "assertion failed: x > 0 at a.cu:42 in main");
    // Device heap.
    let out = dev.malloc(16).unwrap();
    let one = LaunchConfig::default();
    let used_before = dev.mem.used();
    launch("heap", &one, &[&out.to_le_bytes(), &0u32.to_le_bytes()]).unwrap();
    let v = dev.read(out, 12).unwrap();
    assert_eq!(&v[0..4], &4321u32.to_le_bytes());
    assert_eq!(&v[4..8], &1u32.to_le_bytes());
    assert_eq!(
        &v[8..12],
        &0u32.to_le_bytes(),
        "oversized malloc returns NULL"
    );
    assert_eq!(dev.mem.used(), used_before);
    let err = launch("heap", &one, &[&out.to_le_bytes(), &1u32.to_le_bytes()]).unwrap_err();
    let VmError::Fault(f) = err else {
        panic!("{err}")
    };
    assert_eq!(f.kind, FaultKind::UseAfterFree, "{}", f.message);
}

#[test]
fn sparse_mma_undefined_selector_faults() {
    // ptxas accepts selector 2 for a thread-pair `mma.sp` shape; the ISA leaves it undefined
    // (0 or 1): the launch faults, naming the form (`docs/tensor-cores.md`, "Sparse mma").
    let f = fault_of(
        "    mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2,%r3,%r4}, {%r5,%r6,%r7,%r8}, {%f4,%f5,%f6,%f7}, %r9, 2;\n",
        32,
    );
    assert_eq!(f.kind, FaultKind::Unsupported);
    assert!(f.message.contains("mma.sp"), "{}", f.message);
    assert!(f.message.contains("selector 2"), "{}", f.message);
}

#[test]
fn kernel_param_address_in_32_and_64_bit_registers() {
    // LLVM (Triton's tl.where between two pointer arguments) takes a kernel parameter's
    // address with `mov.b32` and loads through it with `ld.param [%r]`.
    let body = "    mov.b32 %r10, out;\n    ld.param.u64 %rd2, [%r10];\n    setp.eq.u64 %p1, %rd2, %rd0;\n    selp.u32 %r11, 1, 0, %p1;\n    mov.u64 %rd3, out;\n    ld.param.u64 %rd4, [%rd3];\n    setp.eq.u64 %p2, %rd4, %rd0;\n    selp.u32 %r12, 1, 0, %p2;\n"
        .to_string()
        + &stores(&["%r11", "%r12"]);
    assert_eq!(run1(&body, 2), [1, 1]);
}

#[test]
fn cvt_signed_destination_sign_extends_into_wider_register() {
    // Triton: `cvt.s8.s32 %rs1, %r1; cvt.rn.f32.s16 %r, %rs1` (int8 stored to a float32 tensor).
    let body = "    mov.b32 %r10, 0x1ef;\n    cvt.s8.s32 %h1, %r10;\n    cvt.s32.s16 %r11, %h1;\n    mov.f32 %f1, 0fC1880000;\n    cvt.rzi.s8.f32 %r12, %f1;\n    cvt.u8.s32 %h2, %r10;\n    cvt.u32.u16 %r13, %h2;\n"
        .to_string()
        + &stores(&["%r11", "%r12", "%r13"]);
    assert_eq!(run1(&body, 3), [0xffff_ffef, 0xffff_ffef, 0xef]);
}
