//! The recorded tensor-core outputs of Khattak & Mikaitis (`crates/ptxvm-fp/tests/data/km25`,
//! BSD-2, see its README) run through real `mma.sync` PTX kernels on the device model of the
//! GPU that recorded them: every recorded dot product must come out bit for bit.
//!
//! Each warp executes one `mma.sync`; the host places 8 recorded vectors on the diagonal
//! (A row i = a, B column i = b, C[i][i] = c; 32 vectors in the four 8x8x4 products of
//! `m8n8k4`) with the fragment layouts of the PTX ISA, and reads D[i][i] back. f16/bf16 data
//! (recorded with `wmma` m16n16k16) run as `m16n8k16` and tf32 (`wmma` m16n16k8) as
//! `m16n8k8`, which the model gives the same arithmetic on the same GPU; V100's as the
//! `m8n8k4` that its wmma is made of; fp8 as the recorded `m16n8k32`. The H100/H200 fp8 → f32
//! recordings come from `wgmma` (not `mma.sync`): a third test runs them through
//! `wgmma.mma_async` with shared-memory descriptors, on every engine. A second test runs the f16/bf16/tf32 recordings through
//! `wmma.load`/`wmma.mma`/`wmma.store`, the instruction sequence that recorded them.

use ptxvm_vm::{Device, DeviceProps, Engine, LaunchConfig, Stats};
use std::path::PathBuf;

const N: usize = 5000;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../ptxvm-fp/tests/data/km25")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

struct Form {
    arch: &'static str,
    ptx_type: &'static str,
    m: usize,
    n: usize,
    k: usize,
    /// Elements per 32-bit register of A/B.
    per: usize,
}

/// Where element `i` of `lane`'s A fragment sits (group, row, col), per the ISA tables.
fn a_pos(f: &Form, lane: usize, i: usize) -> (usize, usize, usize) {
    let (g, t) = (lane >> 2, lane % 4);
    match (f.m, f.k) {
        (8, 4) => (
            (lane >> 2) & 3,
            lane % 4 + if lane >= 16 { 4 } else { 0 },
            i,
        ),
        (16, 16) => (0, g + 8 * ((i / 2) % 2), t * 2 + (i & 1) + 8 * (i / 4)),
        (16, 8) => (0, g + 8 * (i & 1), t + 4 * (i / 2)), // tf32
        (16, 32) => (0, g + 8 * ((i / 4) % 2), t * 4 + (i & 3) + 16 * (i / 8)),
        _ => unreachable!(),
    }
}

/// Where element `i` of `lane`'s B fragment sits (group, k, col).
fn b_pos(f: &Form, lane: usize, i: usize) -> (usize, usize, usize) {
    let (g, t) = (lane >> 2, lane % 4);
    match (f.m, f.k) {
        (8, 4) => (
            (lane >> 2) & 3,
            i,
            lane % 4 + if lane >= 16 { 4 } else { 0 },
        ), // .col
        (16, 16) => (0, t * 2 + (i & 1) + 8 * (i / 2), g),
        (16, 8) => (0, t + 4 * i, g),
        (16, 32) => (0, t * 4 + (i & 3) + 16 * (i / 4), g),
        _ => unreachable!(),
    }
}

/// Where element `i` of `lane`'s C/D fragment sits (f32 or f16 accumulators).
fn c_pos(f: &Form, f16: bool, lane: usize, i: usize) -> (usize, usize, usize) {
    let (g, t) = (lane >> 2, lane % 4);
    if f.m == 8 {
        let grp = (lane >> 2) & 3;
        let hi = if lane >= 16 { 4 } else { 0 };
        return if f16 {
            (grp, lane % 4 + hi, i)
        } else {
            let x = (lane & 1) + (i & 2);
            (grp, x + hi, (i & 4) + (lane & 2) + (i & 1))
        };
    }
    (0, g + 8 * (i / 2), t * 2 + (i & 1))
}

fn form(gpu: &str, ty: &str) -> Form {
    let arch = match gpu {
        "V100" => "sm_70",
        "A100" => "sm_80",
        "A2" => "sm_86",
        "Ada" | "L40S" => "sm_89",
        "H100" | "H200" => "sm_90a",
        "B200" => "sm_100a",
        g => panic!("{g}"),
    };
    let (ptx_type, m, n, k, per) = match (gpu, ty) {
        ("V100", _) => ("f16", 8, 8, 4, 2),
        (_, "fp16") => ("f16", 16, 8, 16, 2),
        (_, "bf16") => ("bf16", 16, 8, 16, 2),
        (_, "tf32") => ("tf32", 16, 8, 8, 1),
        (_, "e4m3") => ("e4m3", 16, 8, 32, 4),
        (_, "e5m2") => ("e5m2", 16, 8, 32, 4),
        t => panic!("{t:?}"),
    };
    Form {
        arch,
        ptx_type,
        m,
        n,
        k,
        per,
    }
}

fn kernel(f: &Form, d16: bool) -> (String, usize, usize, usize, usize) {
    let groups = if f.m == 8 { 4 } else { 1 };
    // m8n8k4: two f16x2 registers each (four elements); otherwise the whole tile / 32 lanes.
    let na = if f.m == 8 { 2 } else { f.m * f.k / 32 / f.per };
    let nb = if f.m == 8 { 2 } else { f.k * f.n / 32 / f.per };
    let acc_el = if f.m == 8 { 8 } else { 4 };
    let nc = if d16 { acc_el / 2 } else { acc_el };
    let (acc, reg) = if d16 {
        ("f16", ".b32")
    } else {
        ("f32", ".f32")
    };
    let lay = ".row.col";
    let name = format!(
        "mma.sync.aligned.m{}n{}k{}{lay}.{acc}.{t}.{t}.{acc}",
        f.m,
        f.n,
        f.k,
        t = f.ptx_type
    );
    let target = match f.ptx_type {
        "e4m3" | "e5m2" => "sm_89",
        _ if f.m == 8 => "sm_70",
        _ => "sm_80",
    };
    let vec = |p: &str, n: usize| {
        format!(
            "{{{}}}",
            (0..n)
                .map(|j| format!("%{p}{j}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let mut body = String::new();
    for (p, cnt, param, ty) in [
        ("a", na, "pa", ".b32"),
        ("b", nb, "pb", ".b32"),
        ("c", nc, "pc", reg),
    ] {
        body += &format!(
            "\tld.param.u64 %rd1, [{param}];\n\tmul.wide.u32 %rd2, %r3, {};\n\tadd.u64 %rd3, %rd1, %rd2;\n",
            cnt * 4
        );
        for j in 0..cnt {
            body += &format!("\tld.global{ty} %{p}{j}, [%rd3+{}];\n", 4 * j);
        }
    }
    body += &format!(
        "\t{name} {}, {}, {}, {};\n",
        vec("d", nc),
        vec("a", na),
        vec("b", nb),
        vec("c", nc)
    );
    body += &format!(
        "\tld.param.u64 %rd1, [pd];\n\tmul.wide.u32 %rd2, %r3, {};\n\tadd.u64 %rd3, %rd1, %rd2;\n",
        nc * 4
    );
    for j in 0..nc {
        body += &format!("\tst.global{reg} [%rd3+{}], %d{j};\n", 4 * j);
    }
    let ptx = format!(
        ".version 8.7\n.target {target}\n.address_size 64\n\
         .visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{{\n\
         \t.reg .b32 %a<{na}>;\n\t.reg .b32 %b<{nb}>;\n\t.reg {reg} %c<{nc}>;\n\t.reg {reg} %d<{nc}>;\n\
         \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\
         \tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n\tmad.lo.u32 %r3, %r2, 32, %r1;\n\
         {body}\tret;\n}}\n"
    );
    (ptx, na, nb, nc, groups)
}

#[test]
fn recorded_hardware_through_mma_sync() {
    let manifest = String::from_utf8(read("MANIFEST")).unwrap();
    let mut total = 0usize;
    let mut failures = Vec::new();
    for line in manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        let [gpu, ty, k, inputs, cfile, dfile, outfmt] = f[..] else {
            panic!("{line}")
        };
        let fp8 = matches!(ty, "e4m3" | "e5m2");
        if fp8 && matches!(gpu, "H100" | "H200") && outfmt == "f32" {
            continue; // recorded with wgmma
        }
        let d16 = outfmt == "f16";
        let kdata: usize = k.parse().unwrap();
        let esize = match ty {
            "tf32" => 4,
            "fp16" | "bf16" => 2,
            _ => 1,
        };
        let raw = read(inputs);
        let elem = |r: usize, which: usize, i: usize| -> u32 {
            let at = (r * 2 * kdata + which * kdata + i) * esize;
            let b = &raw[at..at + esize];
            match esize {
                4 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                2 => u16::from_le_bytes([b[0], b[1]]) as u32,
                _ => b[0] as u32,
            }
        };
        let words = |name: &str, w: usize| -> Vec<u32> {
            read(name)
                .chunks_exact(w)
                .map(|c| {
                    if w == 4 {
                        u32::from_le_bytes([c[0], c[1], c[2], c[3]])
                    } else {
                        u16::from_le_bytes([c[0], c[1]]) as u32
                    }
                })
                .collect()
        };
        let c: Vec<u32> = words(cfile, 4)
            .into_iter()
            .map(|x| {
                if d16 {
                    ptxvm_fp::convert::cvt_f32_to_f16(
                        f32::from_bits(x),
                        ptxvm_fp::Rnd::Rn,
                        false,
                        false,
                        false,
                        false,
                    ) as u32
                } else {
                    x
                }
            })
            .collect();
        let d = words(dfile, if d16 { 2 } else { 4 });
        let fm = form(gpu, ty);
        let (ptx, na, nb, nc, groups) = kernel(&fm, d16);
        let per_mma = 8 * groups;
        let warps = N.div_ceil(per_mma);
        // Per-lane fragments.
        let mut fa = vec![0u32; warps * 32 * na];
        let mut fb = vec![0u32; warps * 32 * nb];
        let mut fc = vec![0u32; warps * 32 * nc];
        let vec_of = |w: usize, g: usize, i: usize| -> Option<usize> {
            let r = w * per_mma + g * 8 + i;
            (i < 8 && r < N).then_some(r)
        };
        let ew = 32 / fm.per; // element width in bits
        for w in 0..warps {
            for lane in 0..32 {
                let base = w * 32 + lane;
                for i in 0..na * fm.per {
                    let (g, row, col) = a_pos(&fm, lane, i);
                    let v = vec_of(w, g, row)
                        .filter(|_| col < kdata)
                        .map_or(0, |r| elem(r, 0, col));
                    fa[base * na + i / fm.per] |= v << (ew * (i % fm.per));
                }
                for i in 0..nb * fm.per {
                    let (g, kk, col) = b_pos(&fm, lane, i);
                    let v = vec_of(w, g, col)
                        .filter(|_| kk < kdata)
                        .map_or(0, |r| elem(r, 1, kk));
                    fb[base * nb + i / fm.per] |= v << (ew * (i % fm.per));
                }
                let cel = if d16 { 2 * nc } else { nc };
                for i in 0..cel {
                    let (g, row, col) = c_pos(&fm, d16, lane, i);
                    let v = if row == col {
                        vec_of(w, g, row).map_or(0, |r| c[r])
                    } else {
                        0
                    };
                    if d16 {
                        fc[base * nc + i / 2] |= v << (16 * (i % 2));
                    } else {
                        fc[base * nc + i] = v;
                    }
                }
            }
        }
        let model = ptxvm_vm::arch::model(fm.arch).unwrap();
        let dev = Device::with_props(DeviceProps::for_model(model));
        let m = dev
            .load_ptx("km25.ptx", &ptx)
            .unwrap_or_else(|e| panic!("{e}\n{ptx}"));
        let up = |v: &[u32]| -> u64 {
            let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
            let p = dev.malloc(bytes.len() as u64).unwrap();
            dev.write(p, &bytes).unwrap();
            p
        };
        let (pa, pb, pc) = (up(&fa), up(&fb), up(&fc));
        let pd = dev.malloc((warps * 32 * nc * 4) as u64).unwrap();
        let cfg = LaunchConfig {
            grid: [warps as u32, 1, 1],
            block: [32, 1, 1],
            ..LaunchConfig::default()
        };
        let mut stats = Stats::default();
        dev.launch(
            m,
            "k",
            &cfg,
            &[
                &pa.to_le_bytes(),
                &pb.to_le_bytes(),
                &pc.to_le_bytes(),
                &pd.to_le_bytes(),
            ],
            &mut stats,
        )
        .unwrap_or_else(|e| panic!("{gpu} {ty}: {e}"));
        let outb = dev.read(pd, (warps * 32 * nc * 4) as u64).unwrap();
        let out: Vec<u32> = outb
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        // Read the diagonal back.
        let mut got = vec![u32::MAX; N];
        for w in 0..warps {
            for lane in 0..32 {
                let cel = if d16 { 2 * nc } else { nc };
                for i in 0..cel {
                    let (g, row, col) = c_pos(&fm, d16, lane, i);
                    if row != col {
                        continue;
                    }
                    if let Some(r) = vec_of(w, g, row) {
                        let word = out[(w * 32 + lane) * nc + if d16 { i / 2 } else { i }];
                        got[r] = if d16 {
                            (word >> (16 * (i % 2))) & 0xffff
                        } else {
                            word
                        };
                    }
                }
            }
        }
        let bad: Vec<usize> = (0..N).filter(|&r| got[r] != d[r]).collect();
        total += N;
        eprintln!(
            "{gpu:5} {ty:5} -> {outfmt}: {}/{N} through `{}` on {}",
            N - bad.len(),
            ptx.lines()
                .find(|l| l.contains("mma.sync"))
                .map_or("", |l| l.trim().split(' ').next().unwrap_or("")),
            fm.arch
        );
        if let Some(&r) = bad.first() {
            failures.push(format!(
                "{gpu} {ty} -> {outfmt}: {} mismatches, first #{r}: got {:08x}, recorded {:08x}",
                bad.len(),
                got[r],
                d[r]
            ));
        }
    }
    assert_eq!(total, 44 * N, "44 datasets run through mma.sync");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The f16/bf16/tf32 recordings were made with `wmma::mma_sync` (m16n16k16, tf32 m16n16k8;
/// A row-major, B column-major, C and D column-major, as in the recording harness): run them
/// through the same `wmma.load`/`wmma.mma`/`wmma.store` sequence, 16 vectors per warp on the
/// diagonal of D.
#[test]
fn recorded_hardware_through_wmma() {
    let manifest = String::from_utf8(read("MANIFEST")).unwrap();
    let mut total = 0usize;
    let mut failures = Vec::new();
    for line in manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        let [gpu, ty, k, inputs, cfile, dfile, outfmt] = f[..] else {
            panic!("{line}")
        };
        if matches!(ty, "e4m3" | "e5m2") {
            continue; // recorded with mma.sync / wgmma
        }
        let d16 = outfmt == "f16";
        let kdata: usize = k.parse().unwrap();
        let (ptype, kk, esize) = match ty {
            "fp16" => ("f16", 16, 2),
            "bf16" => ("bf16", 16, 2),
            "tf32" => ("tf32", 8, 4),
            t => panic!("{t}"),
        };
        let raw = read(inputs);
        let elem = |r: usize, which: usize, i: usize| -> u32 {
            let at = (r * 2 * kdata + which * kdata + i) * esize;
            let b = &raw[at..at + esize];
            if esize == 4 {
                u32::from_le_bytes([b[0], b[1], b[2], b[3]])
            } else {
                u16::from_le_bytes([b[0], b[1]]) as u32
            }
        };
        let c32: Vec<u32> = read(cfile)
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let d: Vec<u32> = if d16 {
            read(dfile)
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]) as u32)
                .collect()
        } else {
            read(dfile)
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let warps = N.div_ceil(16);
        // Memory images, one 16 x kk A (row-major), kk x 16 B (column-major) and 16 x 16 C
        // (column-major) per warp.
        let (asz, bsz, csz) = (16 * kk, kk * 16, 256);
        let mut a = vec![0u32; warps * asz];
        let mut b = vec![0u32; warps * bsz];
        let mut c = vec![0u32; warps * csz];
        for (r, &cr) in c32.iter().enumerate().take(N) {
            let (w, i) = (r / 16, r % 16);
            for x in 0..kdata {
                a[w * asz + i * kk + x] = elem(r, 0, x);
                b[w * bsz + i * kk + x] = elem(r, 1, x);
            }
            c[w * csz + i * 16 + i] = if d16 {
                ptxvm_fp::convert::cvt_f32_to_f16(
                    f32::from_bits(cr),
                    ptxvm_fp::Rnd::Rn,
                    false,
                    false,
                    false,
                    false,
                ) as u32
            } else {
                cr
            };
        }
        let bytes = |v: &[u32], w: usize| -> Vec<u8> {
            v.iter()
                .flat_map(|x| x.to_le_bytes().into_iter().take(w))
                .collect()
        };
        let (in_w, acc_w) = (esize, if d16 { 2 } else { 4 });
        let (ab, bb, cb) = (bytes(&a, in_w), bytes(&b, in_w), bytes(&c, acc_w));
        let (na, nc) = match (ptype, d16) {
            ("f16", _) => (8, if d16 { 4 } else { 8 }),
            _ => (4, 8),
        };
        let acc = if d16 { "f16" } else { "f32" };
        let creg = if d16 { ".b32" } else { ".f32" };
        let vec = |p: &str, n: usize| {
            format!(
                "{{{}}}",
                (0..n)
                    .map(|j| format!("%{p}{j}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let mma = if ptype == "f16" {
            format!("wmma.mma.sync.aligned.row.col.m16n16k16.{acc}.{acc}")
        } else {
            format!("wmma.mma.sync.aligned.row.col.m16n16k{kk}.f32.{ptype}.{ptype}.f32")
        };
        let ptx = format!(
            ".version 8.0\n.target {target}\n.address_size 64\n\
             .visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{{\n\
             \t.reg .b32 %a<{na}>;\n\t.reg .b32 %b<{na}>;\n\t.reg {creg} %c<{nc}>;\n\t.reg {creg} %d<{nc}>;\n\
             \t.reg .b32 %r<4>;\n\t.reg .b64 %rd<12>;\n\tmov.u32 %r1, %ctaid.x;\n\
             \tld.param.u64 %rd1, [pa];\n\tmul.wide.u32 %rd5, %r1, {ab_stride};\n\tadd.u64 %rd1, %rd1, %rd5;\n\
             \tld.param.u64 %rd2, [pb];\n\tadd.u64 %rd2, %rd2, %rd5;\n\
             \tld.param.u64 %rd3, [pc];\n\tmul.wide.u32 %rd6, %r1, {c_stride};\n\tadd.u64 %rd3, %rd3, %rd6;\n\
             \tld.param.u64 %rd4, [pd];\n\tadd.u64 %rd4, %rd4, %rd6;\n\
             \twmma.load.a.sync.aligned.row.m16n16k{kk}.global.{ptype} {va}, [%rd1];\n\
             \twmma.load.b.sync.aligned.col.m16n16k{kk}.global.{ptype} {vb}, [%rd2];\n\
             \twmma.load.c.sync.aligned.col.m16n16k{kk}.global.{acc} {vc}, [%rd3];\n\
             \t{mma} {vd}, {va}, {vb}, {vc};\n\
             \twmma.store.d.sync.aligned.col.m16n16k{kk}.global.{acc} [%rd4], {vd};\n\tret;\n}}\n",
            target = if ptype == "f16" { "sm_70" } else { "sm_80" },
            ab_stride = asz * in_w,
            c_stride = csz * acc_w,
            va = vec("a", na),
            vb = vec("b", na),
            vc = vec("c", nc),
            vd = vec("d", nc),
        );
        let fm = form(gpu, ty);
        let model = ptxvm_vm::arch::model(fm.arch).unwrap();
        let dev = Device::with_props(DeviceProps::for_model(model));
        let m = dev
            .load_ptx("km25_wmma.ptx", &ptx)
            .unwrap_or_else(|e| panic!("{e}\n{ptx}"));
        let up = |v: &[u8]| -> u64 {
            let p = dev.malloc(v.len() as u64).unwrap();
            dev.write(p, v).unwrap();
            p
        };
        let (pa, pb, pc) = (up(&ab), up(&bb), up(&cb));
        let pd = dev.malloc(cb.len() as u64).unwrap();
        let cfg = LaunchConfig {
            grid: [warps as u32, 1, 1],
            block: [32, 1, 1],
            ..LaunchConfig::default()
        };
        let mut stats = Stats::default();
        dev.launch(
            m,
            "k",
            &cfg,
            &[
                &pa.to_le_bytes(),
                &pb.to_le_bytes(),
                &pc.to_le_bytes(),
                &pd.to_le_bytes(),
            ],
            &mut stats,
        )
        .unwrap_or_else(|e| panic!("{gpu} {ty}: {e}"));
        let out = dev.read(pd, cb.len() as u64).unwrap();
        let mut bad = Vec::new();
        for (r, &want) in d.iter().enumerate() {
            let (w, i) = (r / 16, r % 16);
            let at = (w * csz + i * 16 + i) * acc_w;
            let got = if d16 {
                u16::from_le_bytes([out[at], out[at + 1]]) as u32
            } else {
                u32::from_le_bytes([out[at], out[at + 1], out[at + 2], out[at + 3]])
            };
            if got != want {
                bad.push((r, got, want));
            }
        }
        total += N;
        eprintln!(
            "{gpu:5} {ty:5} -> {outfmt}: {}/{N} through `{mma}` on {}",
            N - bad.len(),
            fm.arch
        );
        if let Some(&(r, got, want)) = bad.first() {
            failures.push(format!(
                "{gpu} {ty} -> {outfmt}: {} mismatches, first #{r}: got {got:08x}, recorded {want:08x}",
                bad.len()
            ));
        }
    }
    assert_eq!(total, 30 * N, "30 f16/bf16/tf32 datasets run through wmma");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The H100/H200 fp8 → f32 recordings were made with `wgmma` and D = A·B (scale-d = 0): run
/// them through `wgmma.mma_async.m64n64k32.f32.{e4m3,e5m2}` with both operands from
/// shared-memory descriptors (K-major, no swizzle: LBO 128, SBO 256), 64 vectors per warpgroup
/// on the diagonal of D (A row i = a, B column i = b), on the sm_90a model and on every engine.
#[test]
fn recorded_hardware_through_wgmma() {
    let manifest = String::from_utf8(read("MANIFEST")).unwrap();
    let mut total = 0usize;
    let mut failures = Vec::new();
    for line in manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        let [gpu, ty, k, inputs, _cfile, dfile, outfmt] = f[..] else {
            panic!("{line}")
        };
        if !(matches!(ty, "e4m3" | "e5m2") && matches!(gpu, "H100" | "H200") && outfmt == "f32") {
            continue;
        }
        let kdata: usize = k.parse().unwrap();
        assert_eq!(kdata, 32);
        let raw = read(inputs);
        let d: Vec<u32> = read(dfile)
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let ctas = N.div_ceil(64);
        // Per CTA a 4096-byte shared image: A (64 x 32 bytes) at 0, B (64 x 32) at 2048; element
        // (row, k) of either at (row % 8) * 16 + (row / 8) * 256 + (k / 16) * 128 + k % 16.
        let mut img = vec![0u8; ctas * 4096];
        for r in 0..N {
            let (cta, row) = (r / 64, r % 64);
            for kk in 0..32 {
                let off = (row % 8) * 16 + (row / 8) * 256 + (kk / 16) * 128 + kk % 16;
                img[cta * 4096 + off] = raw[r * 64 + kk];
                img[cta * 4096 + 2048 + off] = raw[r * 64 + 32 + kk];
            }
        }
        let ptx = format!(
            ".version 8.0\n.target sm_90a\n.address_size 64\n\
             .visible .entry k(.param .u64 pimg, .param .u64 pd)\n{{\n\
             \t.shared .align 1024 .b8 smem[4096];\n\t.reg .pred %p<2>;\n\t.reg .f32 %d<32>;\n\
             \t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n\
             \tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, smem;\n\
             \tld.param.u64 %rd1, [pimg];\n\tmul.wide.u32 %rd2, %r2, 4096;\n\tadd.u64 %rd1, %rd1, %rd2;\n\
             \tmul.wide.u32 %rd2, %r1, 32;\n\tadd.u64 %rd1, %rd1, %rd2;\n\
             \tld.global.v4.u32 {{%r4, %r5, %r6, %r7}}, [%rd1];\n\
             \tld.global.v4.u32 {{%r8, %r9, %r10, %r11}}, [%rd1+16];\n\
             \tshl.b32 %r12, %r1, 5;\n\tadd.u32 %r12, %r12, %r3;\n\
             \tst.shared.v4.u32 [%r12], {{%r4, %r5, %r6, %r7}};\n\
             \tst.shared.v4.u32 [%r12+16], {{%r8, %r9, %r10, %r11}};\n\
             \tbar.sync 0;\n\tfence.proxy.async.shared::cta;\n\
             \tshr.u32 %r13, %r3, 4;\n\tcvt.u64.u32 %rd3, %r13;\n\
             \tor.b64 %rd3, %rd3, 0x0000001000080000;\n\tadd.u64 %rd4, %rd3, 128;\n\
             \twgmma.fence.sync.aligned;\n\
             \twgmma.mma_async.sync.aligned.m64n64k32.f32.{ty}.{ty} {{{}}}, %rd3, %rd4, 0, 1, 1;\n\
             \twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n\
             \tld.param.u64 %rd5, [pd];\n\tmad.lo.u32 %r14, %r2, 128, %r1;\n\
             \tmul.wide.u32 %rd6, %r14, 128;\n\tadd.u64 %rd5, %rd5, %rd6;\n{}\tret;\n}}\n",
            (0..32)
                .map(|j| format!("%d{j}"))
                .collect::<Vec<_>>()
                .join(", "),
            (0..32)
                .map(|j| format!("\tst.global.f32 [%rd5+{}], %d{j};\n", 4 * j))
                .collect::<String>()
        );
        let model = ptxvm_vm::arch::model("sm_90a").unwrap();
        let dev = Device::with_props(DeviceProps::for_model(model));
        let m = dev
            .load_ptx("km25_wgmma.ptx", &ptx)
            .unwrap_or_else(|e| panic!("{e}\n{ptx}"));
        let pimg = dev.malloc(img.len() as u64).unwrap();
        dev.write(pimg, &img).unwrap();
        let out_len = (ctas * 128 * 32 * 4) as u64;
        let pd = dev.malloc(out_len).unwrap();
        for engine in [Engine::Reference, Engine::Interp, Engine::Jit] {
            dev.write(pd, &vec![0u8; out_len as usize]).unwrap();
            let cfg = LaunchConfig {
                grid: [ctas as u32, 1, 1],
                block: [128, 1, 1],
                engine,
                ..LaunchConfig::default()
            };
            let mut stats = Stats::default();
            dev.launch(
                m,
                "k",
                &cfg,
                &[&pimg.to_le_bytes(), &pd.to_le_bytes()],
                &mut stats,
            )
            .unwrap_or_else(|e| panic!("{gpu} {ty}: {e}"));
            let outb = dev.read(pd, out_len).unwrap();
            let out: Vec<u32> = outb
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            // D[r][r] of the warpgroup: warp r / 16, lane 4 (r % 8) + (r % 8) / 2, element
            // 4 (r / 8) + 2 ((r % 16) / 8) + r % 2 (the wgmma D fragment).
            let got: Vec<u32> = (0..N)
                .map(|v| {
                    let (cta, r) = (v / 64, v % 64);
                    let (w, rr) = (r / 16, r % 16);
                    let lane = 4 * (rr % 8) + (r % 8) / 2;
                    let i = 4 * (r / 8) + 2 * (rr / 8) + r % 2;
                    out[(cta * 128 + w * 32 + lane) * 32 + i]
                })
                .collect();
            let bad: Vec<usize> = (0..N).filter(|&r| got[r] != d[r]).collect();
            eprintln!(
                "{gpu:5} {ty:5} -> f32: {}/{N} through `wgmma.mma_async.m64n64k32` on sm_90a ({})",
                N - bad.len(),
                engine.name()
            );
            if let Some(&r) = bad.first() {
                failures.push(format!(
                    "{gpu} {ty} ({}): {} mismatches, first #{r}: got {:08x}, recorded {:08x}",
                    engine.name(),
                    bad.len(),
                    got[r],
                    d[r]
                ));
            }
        }
        total += N;
    }
    assert_eq!(total, 4 * N, "4 datasets run through wgmma");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
