//! Video instructions (§9.7.18) through PTX, against two host references written
//! independently of `ops::video`:
//! * the lane-wise meaning of CUDA's SIMD intrinsics (`__vaddus4`, `__vabsdiffu4`, `__vsads2`,
//!   `__vavgs2`, ...) in Rust's native saturating/wrapping integer operations, for the forms
//!   those intrinsics compile to;
//! * a byte-array model of the manual's pseudocode over every operation, type combination,
//!   selector, mask, saturation and secondary operation, on edge values and seeded samples.

use super::run_kernel;

/// Runs `(instruction, a, b, c)` cases: each loads a, b, c into `%r1..%r3`, executes the
/// instruction (written with `D A B C` placeholders for `%r4 %r1 %r2 %r3`) and stores `%r4`.
fn run_cases(cases: &[(String, u32, u32, u32)]) -> Vec<u32> {
    let mut got = Vec::with_capacity(cases.len());
    for chunk in cases.chunks(1500) {
        let mut body = String::new();
        for (k, (inst, a, b, c)) in chunk.iter().enumerate() {
            let inst = inst
                .replace('D', "%r4")
                .replace('A', "%r1")
                .replace('B', "%r2")
                .replace('C', "%r3");
            body.push_str(&format!(
                "    mov.b32 %r1, {a};\n    mov.b32 %r2, {b};\n    mov.b32 %r3, {c};\n    mov.b32 %r4, 0x5a5a5a5a;\n    {inst}\n    st.global.u32 [%rd1+{}], %r4;\n",
                4 * k
            ));
        }
        match run_kernel(&body, 1, 1, chunk.len()) {
            Ok((v, _)) => got.extend_from_slice(&v[0]),
            Err(e) => panic!("{e}"),
        }
    }
    got
}

/// Edge values (lane boundaries of bytes and half-words) and seeded samples.
fn inputs(n: usize, seed: u64) -> Vec<u32> {
    let mut v = vec![
        0,
        1,
        0x7f,
        0x80,
        0xff,
        0x7fff,
        0x8000,
        0xffff,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x7f80_ff01,
        0x8000_7fff,
        0x0102_0304,
        0xfefd_fcfb,
        31,
        32,
        33,
    ];
    let mut s = seed;
    while v.len() < n {
        // SplitMix64.
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        v.push((z ^ (z >> 31)) as u32);
    }
    v
}

/// Triples: each edge/sample value as `a` against rotated partners.
fn triples(n: usize, seed: u64) -> Vec<(u32, u32, u32)> {
    let v = inputs(n, seed);
    (0..v.len())
        .map(|i| (v[i], v[(i * 7 + 3) % v.len()], v[(i * 13 + 5) % v.len()]))
        .collect()
}

fn check(cases: Vec<(String, u32, u32, u32)>, want: Vec<u32>) {
    let got = run_cases(&cases);
    let mut bad = 0;
    for (k, ((inst, a, b, c), (g, w))) in cases.iter().zip(got.iter().zip(&want)).enumerate() {
        if g != w {
            bad += 1;
            if bad <= 10 {
                eprintln!(
                    "case {k}: {inst} a={a:#010x} b={b:#010x} c={c:#010x}: got {g:#010x}, want {w:#010x}"
                );
            }
        }
    }
    assert_eq!(bad, 0, "{bad} of {} video cases differ", cases.len());
}

// ----- reference 1: CUDA SIMD intrinsics in native lane arithmetic --------------------

fn bytes_map(a: u32, b: u32, f: impl Fn(u8, u8) -> u8) -> u32 {
    let (x, y) = (a.to_le_bytes(), b.to_le_bytes());
    u32::from_le_bytes([f(x[0], y[0]), f(x[1], y[1]), f(x[2], y[2]), f(x[3], y[3])])
}

fn halves_map(a: u32, b: u32, f: impl Fn(u16, u16) -> u16) -> u32 {
    let lo = f(a as u16, b as u16);
    let hi = f((a >> 16) as u16, (b >> 16) as u16);
    (hi as u32) << 16 | lo as u32
}

#[test]
fn simd_intrinsic_equivalents() {
    type Ref = fn(u32, u32, u32) -> u32;
    let forms: Vec<(&str, Ref)> = vec![
        ("vadd4.u32.u32.u32.sat D, A, B, C;", |a, b, _| {
            bytes_map(a, b, |x, y| x.saturating_add(y))
        }),
        ("vadd4.s32.s32.s32.sat D, A, B, C;", |a, b, _| {
            bytes_map(a, b, |x, y| (x as i8).saturating_add(y as i8) as u8)
        }),
        ("vadd4.u32.u32.u32 D, A, B, C;", |a, b, _| {
            bytes_map(a, b, |x, y| x.wrapping_add(y))
        }),
        ("vsub4.u32.u32.u32.sat D, A, B, C;", |a, b, _| {
            bytes_map(a, b, |x, y| x.saturating_sub(y))
        }),
        ("vsub4.s32.s32.s32.sat D, A, B, C;", |a, b, _| {
            bytes_map(a, b, |x, y| (x as i8).saturating_sub(y as i8) as u8)
        }),
        ("vabsdiff4.u32.u32.u32 D, A, B, C;", |a, b, _| {
            bytes_map(a, b, |x, y| x.abs_diff(y))
        }),
        ("vabsdiff4.s32.s32.s32 D, A, B, C;", |a, b, _| {
            bytes_map(a, b, |x, y| (x as i8).abs_diff(y as i8))
        }),
        // __vsadu4: sum of absolute byte differences.
        ("vabsdiff4.u32.u32.u32.add D, A, B, C;", |a, b, c| {
            let (x, y) = (a.to_le_bytes(), b.to_le_bytes());
            (0..4).fold(c, |s, i| s.wrapping_add(x[i].abs_diff(y[i]) as u32))
        }),
        ("vmin4.u32.u32.u32 D, A, B, C;", |a, b, _| {
            bytes_map(a, b, u8::min)
        }),
        ("vmax4.s32.s32.s32 D, A, B, C;", |a, b, _| {
            bytes_map(a, b, |x, y| (x as i8).max(y as i8) as u8)
        }),
        // __vavgu4: unsigned rounded average.
        ("vavrg4.u32.u32.u32 D, A, B, C;", |a, b, _| {
            bytes_map(a, b, |x, y| (x as u16 + y as u16).div_ceil(2) as u8)
        }),
        // __vcmpeq4 before its *0xff: 1 per equal byte.
        ("vset4.u32.u32.eq D, A, B, C;", |a, b, _| {
            bytes_map(a, b, |x, y| (x == y) as u8)
        }),
        ("vset4.s32.s32.lt D, A, B, C;", |a, b, _| {
            bytes_map(a, b, |x, y| ((x as i8) < (y as i8)) as u8)
        }),
        ("vadd2.u32.u32.u32.sat D, A, B, C;", |a, b, _| {
            halves_map(a, b, |x, y| x.saturating_add(y))
        }),
        ("vadd2.s32.s32.s32.sat D, A, B, C;", |a, b, _| {
            halves_map(a, b, |x, y| (x as i16).saturating_add(y as i16) as u16)
        }),
        ("vsub2.s32.s32.s32 D, A, B, C;", |a, b, _| {
            halves_map(a, b, |x, y| x.wrapping_sub(y))
        }),
        ("vmin2.s32.s32.s32 D, A, B, C;", |a, b, _| {
            halves_map(a, b, |x, y| (x as i16).min(y as i16) as u16)
        }),
        ("vmax2.u32.u32.u32 D, A, B, C;", |a, b, _| {
            halves_map(a, b, u16::max)
        }),
        // __vavgs2: signed average rounded half away from zero.
        ("vavrg2.s32.s32.s32 D, A, B, C;", |a, b, _| {
            halves_map(a, b, |x, y| {
                ((x as i16 as f64 + y as i16 as f64) / 2.0).round() as i16 as u16
            })
        }),
        // __vsads2: sum of absolute signed half-word differences.
        ("vabsdiff2.s32.s32.s32.add D, A, B, C;", |a, b, c| {
            let d0 = (a as i16).abs_diff(b as i16) as u32;
            let d1 = ((a >> 16) as i16).abs_diff((b >> 16) as i16) as u32;
            c.wrapping_add(d0).wrapping_add(d1)
        }),
        ("vset2.u32.u32.ge D, A, B, C;", |a, b, _| {
            halves_map(a, b, |x, y| (x >= y) as u16)
        }),
        // Scalar forms on whole words.
        ("vadd.u32.u32.u32.sat D, A, B;", |a, b, _| {
            a.saturating_add(b)
        }),
        ("vadd.s32.s32.s32.sat D, A, B;", |a, b, _| {
            (a as i32).saturating_add(b as i32) as u32
        }),
        ("vadd.s32.s32.s32 D, A, B;", |a, b, _| a.wrapping_add(b)),
        ("vsub.u32.u32.u32.sat D, A, B;", |a, b, _| {
            a.saturating_sub(b)
        }),
        ("vsub.s32.s32.s32.sat D, A, B;", |a, b, _| {
            (a as i32).saturating_sub(b as i32) as u32
        }),
        ("vabsdiff.u32.u32.u32 D, A, B;", |a, b, _| a.abs_diff(b)),
        ("vabsdiff.s32.s32.s32.sat D, A, B;", |a, b, _| {
            (a as i32).abs_diff(b as i32).min(i32::MAX as u32)
        }),
        ("vmin.s32.s32.s32 D, A, B;", |a, b, _| {
            (a as i32).min(b as i32) as u32
        }),
        ("vmax.u32.u32.u32 D, A, B;", |a, b, _| a.max(b)),
        ("vmin.s32.s32.s32.add D, A, B, C;", |a, b, c| {
            ((a as i32).min(b as i32) as u32).wrapping_add(c)
        }),
        ("vmax.u32.u32.u32.max D, A, B, C;", |a, b, c| {
            a.max(b).max(c)
        }),
        ("vshl.u32.u32.u32.clamp D, A, B;", |a, b, _| {
            a.checked_shl(b).unwrap_or(0)
        }),
        ("vshl.u32.u32.u32.wrap D, A, B;", |a, b, _| {
            a.wrapping_shl(b)
        }),
        ("vshr.u32.u32.u32.clamp D, A, B;", |a, b, _| {
            a.checked_shr(b).unwrap_or(0)
        }),
        ("vshr.s32.s32.u32.clamp D, A, B;", |a, b, _| {
            ((a as i32) >> b.min(31)) as u32
        }),
        ("vshr.s32.s32.u32.wrap D, A, B;", |a, b, _| {
            (a as i32).wrapping_shr(b) as u32
        }),
        ("vshl.u32.u32.u32.clamp.sat D, A, B;", |a, b, _| {
            if a == 0 {
                0
            } else if b >= 32 || a.leading_zeros() < b {
                u32::MAX
            } else {
                a << b
            }
        }),
        ("vmad.u32.u32.u32 D, A, B, C;", |a, b, c| {
            a.wrapping_mul(b).wrapping_add(c)
        }),
        ("vmad.s32.s32.s32.sat D, A, B, C;", |a, b, c| {
            (a as i32 as i64 * b as i32 as i64 + c as i32 as i64)
                .clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
        }),
        ("vmad.u32.u32.u32.sat D, A, B, C;", |a, b, c| {
            (a as u64 as u128 * b as u128 + c as u128).min(u32::MAX as u128) as u32
        }),
        ("vmad.s32.s32.s32 D, -A, B, C;", |a, b, c| {
            c.wrapping_sub(a.wrapping_mul(b))
        }),
        ("vmad.s32.u32.u32.sat D, A, B, -C;", |a, b, c| {
            (a as i128 * b as i128 - c as i32 as i128).clamp(i32::MIN as i128, i32::MAX as i128)
                as i32 as u32
        }),
        ("vmad.u32.u32.u32.po D, A, B, C;", |a, b, c| {
            a.wrapping_mul(b).wrapping_add(c).wrapping_add(1)
        }),
        ("vmad.s32.s32.s32.shr15 D, A.h0, B.h0, C;", |a, b, c| {
            ((a as i16 as i64 * b as i16 as i64 + c as i32 as i64) >> 15) as u32
        }),
        ("vset.s32.u32.lt D, A, B;", |a, b, _| {
            ((a as i32 as i64) < b as i64) as u32
        }),
        ("vset.u32.s32.ge.add D, A, B, C;", |a, b, c| {
            ((a as i64 >= b as i32 as i64) as u32).wrapping_add(c)
        }),
        // Data merge: the saturated byte lands in byte 1 of c.
        ("vadd.u32.u32.u32.sat D.b1, A.b0, B.b0, C;", |a, b, c| {
            let s = (a as u8).saturating_add(b as u8) as u32;
            (c & 0xffff_00ff) | s << 8
        }),
        ("vsub.s32.s32.s32.sat D.h1, A.h1, B.h0, C;", |a, b, c| {
            let s = ((a >> 16) as i16).saturating_sub(b as i16) as u16 as u32;
            (c & 0xffff) | s << 16
        }),
    ];
    let tr = triples(200, 0x5eed_0001);
    let mut cases = Vec::new();
    let mut want = Vec::new();
    for (inst, f) in &forms {
        for &(a, b, c) in &tr {
            // Keep shift counts interesting: small counts half of the time.
            let b = if inst.starts_with("vsh") && b & 1 == 0 {
                b % 40
            } else {
                b
            };
            cases.push((inst.to_string(), a, b, c));
            want.push(f(a, b, c));
        }
    }
    check(cases, want);
}

// ----- reference 2: byte-array model of the pseudocode ---------------------------------

/// Lanes of `x` as (value, width) read from little-endian bytes.
fn lane(pool: &[u8; 8], idx: usize, half: bool, signed: bool) -> i64 {
    if half {
        let v = u16::from_le_bytes([pool[2 * idx], pool[2 * idx + 1]]);
        if signed { v as i16 as i64 } else { v as i64 }
    } else {
        let v = pool[idx];
        if signed { v as i8 as i64 } else { v as i64 }
    }
}

fn sat_to(v: i64, bits: u32, signed: bool) -> i64 {
    let (lo, hi) = match (bits, signed) {
        (8, true) => (i8::MIN as i64, i8::MAX as i64),
        (8, false) => (0, u8::MAX as i64),
        (16, true) => (i16::MIN as i64, i16::MAX as i64),
        (16, false) => (0, u16::MAX as i64),
        (_, true) => (i32::MIN as i64, i32::MAX as i64),
        _ => (0, u32::MAX as i64),
    };
    v.max(lo).min(hi)
}

fn prim(op: &str, x: i64, y: i64) -> i64 {
    match op {
        "vadd" => x + y,
        "vsub" => x - y,
        "vabsdiff" => (x - y).abs(),
        "vmin" => x.min(y),
        "vmax" => x.max(y),
        "vavrg" => ((x + y) as f64 / 2.0).round() as i64,
        "eq" => (x == y) as i64,
        "ne" => (x != y) as i64,
        "lt" => (x < y) as i64,
        "le" => (x <= y) as i64,
        "gt" => (x > y) as i64,
        "ge" => (x >= y) as i64,
        _ => unreachable!("{op}"),
    }
}

struct SimdForm {
    op: &'static str,
    half: bool,
    dt: bool,
    at: bool,
    bt: bool,
    sat: bool,
    acc: bool,
    mask: Vec<usize>,
    asel: Vec<usize>,
    bsel: Vec<usize>,
}

fn simd_model(f: &SimdForm, a: u32, b: u32, c: u32) -> u32 {
    let mut pool = [0u8; 8];
    pool[..4].copy_from_slice(&a.to_le_bytes());
    pool[4..].copy_from_slice(&b.to_le_bytes());
    let n = if f.half { 2 } else { 4 };
    let w = 32 / n as u32;
    let cpool = {
        let mut p = [0u8; 8];
        p[..4].copy_from_slice(&c.to_le_bytes());
        p
    };
    let set = matches!(f.op, "eq" | "ne" | "lt" | "le" | "gt" | "ge");
    let mut d: i64 = if f.acc { c as i64 } else { 0 };
    for i in 0..n {
        let x = lane(&pool, f.asel[i], f.half, f.at);
        let y = lane(&pool, f.bsel[i], f.half, f.bt);
        let mut t = prim(f.op, x, y);
        if f.sat && !set {
            t = sat_to(t, w, f.dt);
        }
        let on = f.mask.contains(&i);
        if f.acc {
            if on {
                d += t;
            }
        } else {
            let v = if on {
                t
            } else {
                lane(&cpool, i, f.half, false)
            };
            d |= (v & ((1 << w) - 1)) << (w * i as u32);
        }
    }
    d as u32
}

#[test]
fn simd_forms_against_model() {
    let tr = triples(40, 0x5eed_0002);
    let sels2: [&[usize]; 4] = [&[0, 1], &[2, 3], &[1, 0], &[3, 3]];
    let sels4: [&[usize]; 4] = [&[0, 1, 2, 3], &[4, 5, 6, 7], &[3, 2, 1, 0], &[7, 0, 5, 2]];
    let masks2: [&[usize]; 3] = [&[0, 1], &[0], &[1]];
    let masks4: [&[usize]; 4] = [&[0, 1, 2, 3], &[0], &[3, 1], &[2, 1, 0]];
    let mut cases = Vec::new();
    let mut want = Vec::new();
    let ty = |s: bool| if s { "s32" } else { "u32" };
    for half in [true, false] {
        let n = if half { 2 } else { 4 };
        let sels: &[&[usize]] = if half { &sels2 } else { &sels4 };
        let masks: &[&[usize]] = if half { &masks2 } else { &masks4 };
        let sel_txt = |s: &[usize]| {
            let p = if half { "h" } else { "b" };
            let digits: String = s.iter().rev().map(|d| d.to_string()).collect();
            format!(".{p}{digits}")
        };
        for op in [
            "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vavrg", "eq", "ne", "lt", "le", "gt", "ge",
        ] {
            let set = op.len() == 2;
            for (combo, &(dt, at, bt)) in [
                (false, false, false),
                (true, true, true),
                (true, false, true),
                (false, true, false),
            ]
            .iter()
            .enumerate()
            {
                for (variant, (sat, acc)) in [(false, false), (true, false), (false, true)]
                    .into_iter()
                    .enumerate()
                {
                    if set && sat {
                        continue;
                    }
                    let k = combo * 3 + variant;
                    let asel = sels[k % sels.len()];
                    let bsel = sels[(k + 1) % sels.len()];
                    let mask = masks[k % masks.len()];
                    let f = SimdForm {
                        op,
                        half,
                        dt: dt && !set,
                        at,
                        bt,
                        sat,
                        acc,
                        mask: mask.to_vec(),
                        asel: asel.to_vec(),
                        bsel: bsel.to_vec(),
                    };
                    let opc = if set {
                        format!("vset{n}.{}.{}.{op}", ty(at), ty(bt))
                    } else {
                        format!("{op}{n}.{}.{}.{}", ty(dt), ty(at), ty(bt))
                    };
                    let mods = format!(
                        "{}{}",
                        if sat { ".sat" } else { "" },
                        if acc { ".add" } else { "" }
                    );
                    let mut ms: Vec<usize> = mask.to_vec();
                    ms.sort();
                    let inst = format!(
                        "{opc}{mods} D{}, A{}, B{}, C;",
                        sel_txt(&ms),
                        sel_txt(asel),
                        sel_txt(bsel)
                    );
                    for &(a, b, c) in &tr {
                        cases.push((inst.clone(), a, b, c));
                        want.push(simd_model(&f, a, b, c));
                    }
                }
            }
        }
    }
    check(cases, want);
}

/// Scalar model: selected part of a word, extended by its type.
fn part(x: u32, sel: &str, signed: bool) -> i64 {
    let b = x.to_le_bytes();
    let pool = [b[0], b[1], b[2], b[3], 0, 0, 0, 0];
    match sel {
        "" => {
            if signed {
                x as i32 as i64
            } else {
                x as i64
            }
        }
        s if s.starts_with(".h") => lane(&pool, s[2..].parse().unwrap(), true, signed),
        s => lane(&pool, s[2..].parse().unwrap(), false, signed),
    }
}

#[test]
fn scalar_forms_against_model() {
    let tr = triples(40, 0x5eed_0003);
    let ty = |s: bool| if s { "s32" } else { "u32" };
    let sels = ["", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1"];
    let mut cases = Vec::new();
    let mut want = Vec::new();
    let mut k = 0usize;
    for op in [
        "vadd", "vsub", "vabsdiff", "vmin", "vmax", "eq", "ne", "lt", "le", "gt", "ge",
    ] {
        let set = op.len() == 2;
        for (dt, at, bt) in [
            (false, false, false),
            (true, true, true),
            (true, false, true),
            (false, true, false),
            (true, true, false),
        ] {
            // 0 plain, 1 .sat, 2 .add, 3 .min, 4 .max, 5 .sat.add, 6 merge, 7 merge .sat
            for variant in 0..8 {
                let sat = matches!(variant, 1 | 5 | 7);
                if set && sat {
                    continue;
                }
                k += 1;
                let asel = sels[k % 7];
                let bsel = sels[(k * 3 + 1) % 7];
                let dsel = [".b0", ".b1", ".b2", ".b3", ".h0", ".h1"][k % 6];
                let opc = if set {
                    format!("vset.{}.{}.{op}", ty(at), ty(bt))
                } else {
                    format!("{op}.{}.{}.{}", ty(dt), ty(at), ty(bt))
                };
                let second = match variant {
                    2 | 5 => ".add",
                    3 => ".min",
                    4 => ".max",
                    _ => "",
                };
                let merge = variant >= 6;
                let inst = if merge {
                    format!(
                        "{opc}{} D{dsel}, A{asel}, B{bsel}, C;",
                        if sat { ".sat" } else { "" }
                    )
                } else if second.is_empty() {
                    format!(
                        "{opc}{} D, A{asel}, B{bsel};",
                        if sat { ".sat" } else { "" }
                    )
                } else {
                    format!(
                        "{opc}{}{second} D, A{asel}, B{bsel}, C;",
                        if sat { ".sat" } else { "" }
                    )
                };
                let dsigned = dt && !set;
                for &(a, b, c) in &tr {
                    let x = part(a, asel, at);
                    let y = part(b, bsel, bt);
                    let mut t = prim(op, x, y);
                    if sat {
                        let bits = match (merge, dsel.starts_with(".h")) {
                            (false, _) => 32,
                            (true, true) => 16,
                            (true, false) => 8,
                        };
                        t = sat_to(t, bits, dsigned);
                    }
                    let cv = if dsigned { c as i32 as i64 } else { c as i64 };
                    let r = if merge {
                        let w = if dsel.starts_with(".h") { 16 } else { 8 };
                        let idx: u32 = dsel[2..].parse().unwrap();
                        let m = ((1u64 << w) - 1) << (w * idx);
                        ((((t as u64) << (w * idx)) & m) | (c as u64 & !m)) as u32
                    } else {
                        (match second {
                            ".add" => t + cv,
                            ".min" => t.min(cv),
                            ".max" => t.max(cv),
                            _ => t,
                        }) as u32
                    };
                    cases.push((inst.clone(), a, b, c));
                    want.push(r);
                }
            }
        }
    }
    check(cases, want);
}

#[test]
fn vsadu4_accumulates() {
    // The inline-asm form CUDA's __vsadu4 emits (int_intrinsics fixtures), accumulating.
    let cases = vec![(
        "vabsdiff4.u32.u32.u32.add D, A, B, C;".to_string(),
        0x0110_ff00,
        0x0201_00ff,
        1000,
    )];
    assert_eq!(run_cases(&cases), vec![1000 + 1 + 15 + 255 + 255]);
}
