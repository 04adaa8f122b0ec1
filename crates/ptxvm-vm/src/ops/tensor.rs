//! `mma.sync.aligned` (§9.7.14.5): decoding of the form and the warp-collective execution —
//! the fragment layouts of the PTX ISA ("Matrix Fragments for mma.mMnNkK") gather A, B and
//! C from the 32 lanes' registers, every element of D is computed by `ptxvm_fp::tensor`
//! with the arithmetic of the launch's device model, and D is scattered back.
//!
//! Total on guest data: every index is in range by construction; a form the device model
//! cannot run is an error naming the instruction and the device.

use crate::arch::GpuModel;
use ptxvm_fp::tensor::{self as tc, AccType, BitOp, IntType, TcInst, TcType};

/// Element types of a multiplicand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    Float(TcType),
    F64,
    Int(IntType),
    B1,
}

impl Elem {
    fn bits(self) -> u32 {
        match self {
            Elem::Float(t) => t.bits(),
            Elem::F64 => 64,
            Elem::Int(t) => t.bits(),
            Elem::B1 => 1,
        }
    }
}

/// Element types of the accumulators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acc {
    F16,
    F32,
    F64,
    S32,
}

impl Acc {
    /// Elements per register.
    fn per_reg(self) -> usize {
        match self {
            Acc::F16 => 2,
            _ => 1,
        }
    }
}

/// A decoded `mma.sync` form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmaSpec {
    pub m: u8,
    pub n: u8,
    pub k: u16,
    pub a: Elem,
    pub b: Elem,
    pub c: Acc,
    pub d: Acc,
    /// m8n8k4 layouts (`true` = row-major A / column-major B, the only layouts of the other
    /// shapes).
    pub a_row: bool,
    pub b_col: bool,
    pub satfinite: bool,
    /// `.b1` operation.
    pub bop: BitOp,
    /// `.kind::f8f6f4` (fp6/fp4 elements sit in bytes).
    pub f8f6f4: bool,
    /// Register counts of the operands.
    pub na: u8,
    pub nb: u8,
    pub nc: u8,
    pub nd: u8,
}

pub(crate) fn elem_of(m: &str) -> Option<Elem> {
    Some(match m {
        ".f16" => Elem::Float(TcType::F16),
        ".bf16" => Elem::Float(TcType::Bf16),
        ".tf32" => Elem::Float(TcType::Tf32),
        ".e4m3" => Elem::Float(TcType::E4m3),
        ".e5m2" => Elem::Float(TcType::E5m2),
        ".e3m2" => Elem::Float(TcType::E3m2),
        ".e2m3" => Elem::Float(TcType::E2m3),
        ".e2m1" => Elem::Float(TcType::E2m1),
        ".f64" => Elem::F64,
        ".s8" => Elem::Int(IntType::S8),
        ".u8" => Elem::Int(IntType::U8),
        ".s4" => Elem::Int(IntType::S4),
        ".u4" => Elem::Int(IntType::U4),
        ".b1" => Elem::B1,
        _ => return None,
    })
}

pub(crate) fn acc_of(m: &str) -> Option<Acc> {
    Some(match m {
        ".f16" => Acc::F16,
        ".f32" => Acc::F32,
        ".f64" => Acc::F64,
        ".s32" => Acc::S32,
        _ => return None,
    })
}

impl MmaSpec {
    /// Decodes the modifiers of a dense `mma.sync.aligned` with the given operand register
    /// counts; `None` for the forms not implemented (sparse, block-scaled) or inconsistent
    /// counts.
    pub fn parse(mods: &[&str], na: usize, nb: usize, nc: usize, nd: usize) -> Option<MmaSpec> {
        let has = |m: &str| mods.contains(&m);
        if mods
            .iter()
            .any(|m| m.starts_with(".sp") || m.contains("block_scale"))
        {
            return None;
        }
        let shape = mods.iter().find_map(|m| {
            let s = m.strip_prefix(".m")?;
            let (m_, rest) = s.split_once('n')?;
            let (n_, k_) = rest.split_once('k')?;
            Some((
                m_.parse::<u8>().ok()?,
                n_.parse::<u8>().ok()?,
                k_.parse::<u16>().ok()?,
            ))
        })?;
        // Type modifiers in order: d, a, b, c.
        let types: Vec<&str> = mods
            .iter()
            .copied()
            .filter(|m| elem_of(m).is_some() || acc_of(m).is_some())
            .collect();
        let [dt, at, bt, ct] = types[..] else {
            return None;
        };
        // Layouts: the first `.row`/`.col` is A's, the second B's.
        let lays: Vec<&str> = mods
            .iter()
            .copied()
            .filter(|m| *m == ".row" || *m == ".col")
            .collect();
        let (a_row, b_col) = match lays[..] {
            [a, b] => (a == ".row", b == ".col"),
            _ => (true, true),
        };
        let spec = MmaSpec {
            m: shape.0,
            n: shape.1,
            k: shape.2,
            a: elem_of(at)?,
            b: elem_of(bt)?,
            c: acc_of(ct)?,
            d: acc_of(dt)?,
            a_row,
            b_col,
            satfinite: has(".satfinite"),
            bop: if has(".and") { BitOp::And } else { BitOp::Xor },
            f8f6f4: has(".kind::f8f6f4"),
            na: na as u8,
            nb: nb as u8,
            nc: nc as u8,
            nd: nd as u8,
        };
        spec.consistent().then_some(spec)
    }

    fn m8n8k4_f16(&self) -> bool {
        (self.m, self.n, self.k) == (8, 8, 4) && self.a != Elem::F64
    }

    /// Elements per register of a multiplicand (`.f64`: one per 64-bit register).
    fn per_reg(e: Elem) -> usize {
        match e {
            Elem::F64 => 1,
            e => (32 / e.bits()) as usize,
        }
    }

    /// Multiplicand/accumulator element counts per lane match the shape and the registers.
    fn consistent(&self) -> bool {
        let (m, n, k) = (self.m as usize, self.n as usize, self.k as usize);
        let per_lane = |total: usize| total / 32;
        let (a_el, b_el, c_el) = if self.m8n8k4_f16() {
            // Four 8x8x4 products, each on 8 lanes.
            (4, 4, 8)
        } else {
            (per_lane(m * k), per_lane(k * n), per_lane(m * n))
        };
        let ok_a = self.na as usize * Self::per_reg(self.a) == a_el;
        let ok_b = self.nb as usize * Self::per_reg(self.b) == b_el;
        let ok_c = self.nc as usize * self.c.per_reg() == c_el;
        let ok_d = self.nd as usize * self.d.per_reg() == c_el;
        ok_a && ok_b && ok_c && ok_d && layout_known(self)
    }

    /// The lowest compute capability with this form (PTX ISA target notes), and whether it
    /// needs the arch-specific feature set.
    fn min_sm(&self) -> (u32, bool) {
        match (self.a, self.m, self.n, self.k) {
            (Elem::Float(TcType::F16), 8, 8, 4) => (70, false),
            (Elem::Float(TcType::F16), 16, 8, 8) => (75, false),
            (Elem::Int(_), 8, 8, _) | (Elem::B1, 8, 8, _) => (75, false),
            (Elem::F64, 8, 8, 4) => (80, false),
            (Elem::F64, ..) => (90, false),
            _ if self.f8f6f4 => (120, true),
            (Elem::Float(TcType::E4m3 | TcType::E5m2), ..) => (89, false),
            _ => (80, false),
        }
    }

    /// The instruction's name for messages.
    pub fn name(&self) -> String {
        let t = |e: Elem| match e {
            Elem::Float(TcType::F16) => "f16",
            Elem::Float(TcType::Bf16) => "bf16",
            Elem::Float(TcType::Tf32) => "tf32",
            Elem::Float(TcType::E4m3) => "e4m3",
            Elem::Float(TcType::E5m2) => "e5m2",
            Elem::Float(TcType::E3m2) => "e3m2",
            Elem::Float(TcType::E2m3) => "e2m3",
            Elem::Float(TcType::E2m1) => "e2m1",
            Elem::F64 => "f64",
            Elem::Int(IntType::S8) => "s8",
            Elem::Int(IntType::U8) => "u8",
            Elem::Int(IntType::S4) => "s4",
            Elem::Int(IntType::U4) => "u4",
            Elem::B1 => "b1",
        };
        let a = |c: Acc| match c {
            Acc::F16 => "f16",
            Acc::F32 => "f32",
            Acc::F64 => "f64",
            Acc::S32 => "s32",
        };
        format!(
            "mma.sync.aligned.m{}n{}k{}.{}.{}.{}.{}",
            self.m,
            self.n,
            self.k,
            a(self.d),
            t(self.a),
            t(self.b),
            a(self.c)
        )
    }
}

/// Where element `i` of a lane's fragment sits: (product group, row, column). Only the
/// f16 `m8n8k4` form has four groups (four independent 8x8x4 products).
type Pos = (usize, usize, usize);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Operand {
    A,
    B,
    C,
}

fn layout_known(s: &MmaSpec) -> bool {
    pos(s, Operand::A, 0, 0).is_some()
        && pos(s, Operand::B, 0, 0).is_some()
        && pos(s, Operand::C, 0, 0).is_some()
}

/// The ISA's fragment layouts. `acc` is the accumulator type for [`Operand::C`] (C and D
/// can differ on `m8n8k4`).
fn pos_acc(s: &MmaSpec, op: Operand, acc: Acc, lane: usize, i: usize) -> Option<Pos> {
    let gid = lane >> 2;
    let tig = lane % 4;
    let (m, n, k) = (s.m, s.n, s.k);
    if s.m8n8k4_f16() {
        let g = (lane >> 2) & 3;
        let hi = if lane >= 16 { 4 } else { 0 };
        let q = lane % 4;
        return Some(match op {
            Operand::A if s.a_row => (g, q + hi, i),
            Operand::A => (g, i + hi, q),
            Operand::B if s.b_col => (g, i, q + hi),
            Operand::B => (g, q, i + hi),
            Operand::C if acc == Acc::F16 => (g, q + hi, i),
            Operand::C => {
                let x = (lane & 1) + (i & 2);
                (g, x + hi, (i & 4) + (lane & 2) + (i & 1))
            }
        });
    }
    // Accumulators: m8n8 shapes one row per group; m16n8 shapes the standard 16x8 layout.
    if op == Operand::C {
        return Some(match m {
            8 => (0, gid, tig * 2 + (i & 1)),
            _ => (0, gid + 8 * (i / 2 % 2), tig * 2 + (i & 1)),
        });
    }
    let e = if op == Operand::A { s.a } else { s.b };
    let a = op == Operand::A;
    let p = match (m, n, k, e) {
        (8, 8, 4, Elem::F64) => {
            if a {
                (gid, tig)
            } else {
                (tig, gid)
            }
        }
        // m8n8k16 (8-bit), m8n8k32 (4-bit), m8n8k128 (b1): one register, elements in k.
        (8, 8, 16 | 32 | 128, _) => {
            let per = (k / 4) as usize;
            if a {
                (gid, tig * per + i)
            } else {
                (tig * per + i, gid)
            }
        }
        (16, 8, 4, _) => {
            if a {
                (gid + 8 * i, tig)
            } else {
                (tig, gid)
            }
        }
        (16, 8, 8, Elem::Float(TcType::F16 | TcType::Bf16)) => {
            if a {
                (gid + 8 * (i / 2), tig * 2 + (i & 1))
            } else {
                (tig * 2 + i, gid)
            }
        }
        (16, 8, 8, Elem::Float(TcType::Tf32) | Elem::F64) => {
            if a {
                (gid + 8 * (i & 1), tig + 4 * (i / 2))
            } else {
                (tig + 4 * i, gid)
            }
        }
        (16, 8, 16, Elem::Float(TcType::F16 | TcType::Bf16)) => {
            if a {
                (gid + 8 * (i / 2 % 2), tig * 2 + (i & 1) + 8 * (i / 4))
            } else {
                (tig * 2 + (i & 1) + 8 * (i / 2), gid)
            }
        }
        (16, 8, 16, Elem::F64) => {
            if a {
                (gid + 8 * (i & 1), (i & !1) * 2 + tig)
            } else {
                (tig + 4 * i, gid)
            }
        }
        // 8-bit integers and fp8.
        (16, 8, 16, _) => {
            if a {
                (gid + 8 * (i / 4), tig * 4 + (i & 3))
            } else {
                (tig * 4 + i, gid)
            }
        }
        (16, 8, 32, Elem::Int(IntType::S4 | IntType::U4)) => {
            if a {
                (gid + 8 * (i / 8), tig * 8 + (i & 7))
            } else {
                (tig * 8 + (i & 7), gid)
            }
        }
        (16, 8, 32, _) => {
            if a {
                (gid + 8 * (i / 4 % 2), tig * 4 + (i & 3) + 16 * (i / 8))
            } else {
                (tig * 4 + (i & 3) + 16 * (i / 4), gid)
            }
        }
        (16, 8, 64, _) => {
            if a {
                (gid + 8 * (i / 8 % 2), tig * 8 + (i & 7) + 32 * (i / 16))
            } else {
                (tig * 8 + (i & 7) + 32 * (i / 8), gid)
            }
        }
        (16, 8, 128, Elem::B1) => {
            if a {
                (gid + 8 * (i / 32), tig * 32 + (i & 31))
            } else {
                (tig * 32 + i, gid)
            }
        }
        (16, 8, 256, Elem::B1) => {
            if a {
                (gid + 8 * (i / 32 % 2), tig * 32 + (i & 31) + 128 * (i / 64))
            } else {
                (tig * 32 + (i & 31) + 128 * (i / 32), gid)
            }
        }
        _ => return None,
    };
    Some((0, p.0, p.1))
}

/// (row, column) of accumulator element `i` of `lane` (type `acc`) of a one-product shape.
pub(crate) fn acc_pos(s: &MmaSpec, acc: Acc, lane: usize, i: usize) -> Option<(usize, usize)> {
    pos_acc(s, Operand::C, acc, lane, i).map(|(_, r, c)| (r, c))
}

fn pos(s: &MmaSpec, op: Operand, lane: usize, i: usize) -> Option<Pos> {
    pos_acc(s, op, s.c, lane, i)
}

/// Raw bits of element `i` of a lane's multiplicand registers.
pub(crate) fn elem_bits(e: Elem, f8f6f4: bool, regs: &[u64], i: usize) -> u64 {
    let per = MmaSpec::per_reg(e);
    let r = regs.get(i / per).copied().unwrap_or(0);
    if e == Elem::F64 {
        return r;
    }
    let w = e.bits() as usize;
    let v = (r >> ((i % per) * w)) & ((1u64 << w) - 1);
    match e {
        // `.kind::f8f6f4`: e2m1 sits in bits 5:2 of its byte, fp6 in bits 5:0.
        Elem::Float(TcType::E2m1) if f8f6f4 => (v >> 2) & 0xf,
        Elem::Float(TcType::E3m2 | TcType::E2m3) => v & 0x3f,
        _ => v,
    }
}

pub(crate) fn acc_bits(a: Acc, regs: &[u64], i: usize) -> u64 {
    match a {
        Acc::F16 => (regs.get(i / 2).copied().unwrap_or(0) >> (16 * (i % 2))) & 0xffff,
        Acc::F32 | Acc::S32 => regs.get(i).copied().unwrap_or(0) & 0xffff_ffff,
        Acc::F64 => regs.get(i).copied().unwrap_or(0),
    }
}

/// The decompression of `ldmatrix ... .b8x16.src_fmt` (and `tcgen05.cp`'s): a 16-byte row holding 16 packed
/// unsigned `bits`-bit elements (6: `.b6x16_p32`, 12 bytes then 32 bits of padding; 4:
/// `.b4x16_p64`, 8 bytes then 64 bits of padding) becomes 16 bytes, element `i` (bits
/// `bits * i ..` of the little-endian row, lowest first: "packed contiguously") in the low bits
/// of byte `i`, the upper bits zero. The placement in the byte is CUTLASS's statement
/// (`mma_traits_sm120.hpp`: "ld.matrix b4x16_p64 places FP4 data at the first four bits in each
/// eight-bit container", and no shift is needed for FP6, whose `mma` container is "the lower 6
/// bits", PTX ISA `mma`); the ISA gives the layout only as figures.
pub fn decompress_b8x16(row: [u8; 16], bits: u32) -> [u8; 16] {
    let v = u128::from_le_bytes(row);
    let mask = (1u128 << bits) - 1;
    std::array::from_fn(|i| ((v >> (bits as usize * i)) & mask) as u8)
}

/// Executes one `mma` for a whole warp. `srcs[lane]` holds the lane's A, B and C registers
/// in order (`na + nb + nc` values); returns each lane's D registers.
pub fn mma(s: &MmaSpec, model: &GpuModel, srcs: &[Vec<u64>; 32]) -> Result<[Vec<u64>; 32], String> {
    let (need, arch_specific) = s.min_sm();
    if model.sm() < need || (arch_specific && !model.arch_specific) {
        return Err(format!(
            "`{}` needs sm_{need}{}; the device model is {} ({})",
            s.name(),
            if arch_specific { "a" } else { "" },
            model.arch,
            model.board
        ));
    }
    let groups = if s.m8n8k4_f16() { 4 } else { 1 };
    let (m, n, k) = if s.m8n8k4_f16() {
        (8usize, 8usize, 4usize)
    } else {
        (s.m as usize, s.n as usize, s.k as usize)
    };
    let (na, nb, nc) = (s.na as usize, s.nb as usize, s.nc as usize);
    let a_el = na * MmaSpec::per_reg(s.a);
    let b_el = nb * MmaSpec::per_reg(s.b);
    let c_el = nc * s.c.per_reg();
    // Gather the matrices: a[g][row*k+col], b[g][col*k+row] (columns contiguous), c[g][row*n+col].
    let mut a = vec![vec![0u64; m * k]; groups];
    let mut b = vec![vec![0u64; k * n]; groups];
    let mut c = vec![vec![0u64; m * n]; groups];
    let bad = || format!("`{}`: fragment layout out of range", s.name());
    for (lane, regs) in srcs.iter().enumerate() {
        let (ra, rest) = regs.split_at(na.min(regs.len()));
        let (rb, rc) = rest.split_at(nb.min(rest.len()));
        for i in 0..a_el {
            let (g, r, col) = pos(s, Operand::A, lane, i).ok_or_else(bad)?;
            *a.get_mut(g)
                .and_then(|x| x.get_mut(r * k + col))
                .filter(|_| r < m && col < k)
                .ok_or_else(bad)? = elem_bits(s.a, s.f8f6f4, ra, i);
        }
        for i in 0..b_el {
            let (g, r, col) = pos(s, Operand::B, lane, i).ok_or_else(bad)?;
            *b.get_mut(g)
                .and_then(|x| x.get_mut(col * k + r))
                .filter(|_| r < k && col < n)
                .ok_or_else(bad)? = elem_bits(s.b, s.f8f6f4, rb, i);
        }
        for i in 0..c_el {
            let (g, r, col) = pos_acc(s, Operand::C, s.c, lane, i).ok_or_else(bad)?;
            *c.get_mut(g)
                .and_then(|x| x.get_mut(r * n + col))
                .filter(|_| r < m && col < n)
                .ok_or_else(bad)? = acc_bits(s.c, rc, i);
        }
    }
    // D, element by element.
    let mut d = vec![vec![0u64; m * n]; groups];
    for g in 0..groups {
        compute_d(s, model, (m, n, k), &a[g], &b[g], &c[g], &mut d[g]);
    }
    // Scatter D.
    let d_el = s.nd as usize * s.d.per_reg();
    let mut out: [Vec<u64>; 32] = std::array::from_fn(|_| vec![0u64; s.nd as usize]);
    for (lane, regs) in out.iter_mut().enumerate() {
        for i in 0..d_el {
            let (g, r, col) = pos_acc(s, Operand::C, s.d, lane, i).ok_or_else(bad)?;
            let v = *d
                .get(g)
                .and_then(|x| x.get(r * n + col))
                .filter(|_| r < m && col < n)
                .ok_or_else(bad)?;
            match s.d {
                Acc::F16 => regs[i / 2] |= (v & 0xffff) << (16 * (i % 2)),
                _ => regs[i] = v,
            }
        }
    }
    Ok(out)
}

/// D = A.B + C for one product: `a` row-major (m x k), `b` as columns (n x k), `c`/`d`
/// row-major (m x n). Floating-point operands are decoded once per row and column.
pub(crate) fn compute_d(
    s: &MmaSpec,
    model: &GpuModel,
    (m, n, k): (usize, usize, usize),
    a: &[u64],
    b: &[u64],
    c: &[u64],
    d: &mut [u64],
) {
    if let (Elem::Float(at), Elem::Float(bt)) = (s.a, s.b) {
        let (inst, dt, ct) = float_params(s);
        let p = model.tensor.fdpa(inst, k, at, dt);
        let an: Vec<tc::Num> = a.iter().map(|&x| at.decode(x as u32)).collect();
        let bn: Vec<tc::Num> = b.iter().map(|&x| bt.decode(x as u32)).collect();
        for r in 0..m {
            for col in 0..n {
                let (Some(ar), Some(bc), Some(cv), Some(out)) = (
                    an.get(r * k..(r + 1) * k),
                    bn.get(col * k..(col + 1) * k),
                    c.get(r * n + col),
                    d.get_mut(r * n + col),
                ) else {
                    continue;
                };
                *out = tc::mma_dot_nums(&p, ar, bc, ct, *cv as u32) as u64;
            }
        }
        return;
    }
    for r in 0..m {
        for col in 0..n {
            let (Some(ar), Some(bc), Some(cv), Some(out)) = (
                a.get(r * k..(r + 1) * k),
                b.get(col * k..(col + 1) * k),
                c.get(r * n + col),
                d.get_mut(r * n + col),
            ) else {
                continue;
            };
            *out = element(s, model, ar, bc, *cv);
        }
    }
}

/// The instruction path and the D and C types of a floating-point form.
fn float_params(s: &MmaSpec) -> (TcInst, AccType, AccType) {
    let inst = if s.m8n8k4_f16() {
        TcInst::MmaM8n8k4
    } else {
        TcInst::Mma
    };
    let acc = |a: Acc| match a {
        Acc::F16 => AccType::F16,
        _ => AccType::F32,
    };
    (inst, acc(s.d), acc(s.c))
}

/// One element of D.
fn element(s: &MmaSpec, model: &GpuModel, a: &[u64], b: &[u64], c: u64) -> u64 {
    match (s.a, s.b) {
        (Elem::Float(at), Elem::Float(bt)) => {
            let (inst, d, ct) = float_params(s);
            let p = model.tensor.fdpa(inst, a.len(), at, d);
            let a32: Vec<u32> = a.iter().map(|&x| x as u32).collect();
            let b32: Vec<u32> = b.iter().map(|&x| x as u32).collect();
            tc::mma_dot(&p, at, &a32, bt, &b32, ct, c as u32) as u64
        }
        (Elem::F64, Elem::F64) => {
            let af: Vec<f64> = a.iter().map(|&x| f64::from_bits(x)).collect();
            let bf: Vec<f64> = b.iter().map(|&x| f64::from_bits(x)).collect();
            tc::dot_f64(&af, &bf, f64::from_bits(c), ptxvm_fp::Rnd::Rn).to_bits()
        }
        (Elem::Int(at), Elem::Int(bt)) => {
            let ai: Vec<i32> = a.iter().map(|&x| at.elem(x as u32, 0)).collect();
            let bi: Vec<i32> = b.iter().map(|&x| bt.elem(x as u32, 0)).collect();
            tc::dot_int(&ai, &bi, c as u32 as i32, s.satfinite) as u32 as u64
        }
        (Elem::B1, Elem::B1) => {
            let pack = |v: &[u64]| -> Vec<u32> {
                v.chunks(32)
                    .map(|ch| {
                        ch.iter()
                            .enumerate()
                            .fold(0u32, |w, (j, &bit)| w | ((bit as u32 & 1) << j))
                    })
                    .collect()
            };
            tc::dot_b1(&pack(a), &pack(b), c as u32 as i32, s.bop) as u32 as u64
        }
        _ => 0,
    }
}

// ---------------------------------------------------------------------------------------
// wmma (§9.7.14.4). The ISA leaves the fragment contents unspecified ("Matrix Fragments for
// WMMA"); ptxvm's choice, consistent between wmma.load, wmma.mma and wmma.store: the tile is
// numbered row-major (A: M x K, B: K x N, C/D: M x N) and lane `l` holds elements
// `l * need .. l * need + need` (`need` = tile elements / 32) in its fragment slots
// `0 .. need`, lowest first; fragments with more slots than that (f16 A/B) repeat them
// (slot `j` holds element `l * need + j % need`). Element-wise code on fragments (scaling,
// `fill_fragment`) is therefore layout-independent, as the CUDA API requires.

/// Which matrix a `wmma.load`/`wmma.store` moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WmmaMat {
    A,
    B,
    /// C (load) or D (store).
    C,
}

/// The element type of a wmma fragment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WmmaElem {
    Mul(Elem),
    Acc(Acc),
}

impl WmmaElem {
    fn bits(self) -> u32 {
        match self {
            WmmaElem::Mul(e) => e.bits(),
            WmmaElem::Acc(Acc::F16) => 16,
            WmmaElem::Acc(Acc::F64) => 64,
            WmmaElem::Acc(_) => 32,
        }
    }
    /// Bits of one fragment register.
    fn reg_bits(self) -> u32 {
        if self.bits() == 64 { 64 } else { 32 }
    }
}

/// A decoded `wmma.load` / `wmma.store`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WmmaMove {
    pub mat: WmmaMat,
    pub m: u8,
    pub n: u8,
    pub k: u16,
    pub elem: WmmaElem,
    /// Row-major in memory.
    pub row: bool,
    /// Fragment registers.
    pub regs: u8,
    /// The stride operand is given (`srcs` of the instruction: [stride] for loads,
    /// [regs..., stride] for stores).
    pub has_stride: bool,
}

pub(crate) fn shape_of(mods: &[&str]) -> Option<(u8, u8, u16)> {
    mods.iter().find_map(|m| {
        let s = m.strip_prefix(".m")?;
        let (m_, rest) = s.split_once('n')?;
        let (n_, k_) = rest.split_once('k')?;
        Some((
            m_.parse::<u8>().ok()?,
            n_.parse::<u8>().ok()?,
            k_.parse::<u16>().ok()?,
        ))
    })
}

impl WmmaMove {
    pub fn parse(mods: &[&str], regs: usize, has_stride: bool) -> Option<WmmaMove> {
        let has = |m: &str| mods.contains(&m);
        let (m, n, k) = shape_of(mods)?;
        let mat = if has(".a") {
            WmmaMat::A
        } else if has(".b") {
            WmmaMat::B
        } else if has(".c") || has(".d") {
            WmmaMat::C
        } else {
            return None;
        };
        let ty = mods
            .iter()
            .rev()
            .find(|m| elem_of(m).is_some() || acc_of(m).is_some())?;
        let elem = match mat {
            WmmaMat::C => WmmaElem::Acc(acc_of(ty)?),
            _ => WmmaElem::Mul(elem_of(ty)?),
        };
        let mv = WmmaMove {
            mat,
            m,
            n,
            k,
            elem,
            row: has(".row"),
            regs: regs as u8,
            has_stride,
        };
        let cap = regs * (mv.elem.reg_bits() / mv.elem.bits()) as usize;
        (mv.need() >= 1 && cap >= mv.need() && cap.is_multiple_of(mv.need())).then_some(mv)
    }

    /// (rows, columns) of the tile.
    fn dims(&self) -> (usize, usize) {
        let (m, n, k) = (self.m as usize, self.n as usize, self.k as usize);
        match self.mat {
            WmmaMat::A => (m, k),
            WmmaMat::B => (k, n),
            WmmaMat::C => (m, n),
        }
    }

    /// Elements per lane (the canonical slots).
    pub fn need(&self) -> usize {
        let (r, c) = self.dims();
        r * c / 32
    }

    /// Fragment slots per lane.
    pub fn slots(&self) -> usize {
        self.regs as usize * (self.elem.reg_bits() / self.elem.bits()) as usize
    }

    /// The default stride: the leading dimension.
    pub fn default_stride(&self) -> u64 {
        let (r, c) = self.dims();
        if self.row { c as u64 } else { r as u64 }
    }

    /// The fragment size in bytes (the alignment of the base address and of each row or
    /// column, "Matrix Storage for WMMA").
    pub fn frag_bytes(&self) -> u64 {
        self.regs as u64 * self.elem.reg_bits() as u64 / 8
    }

    /// Bytes a memory access of one element covers.
    pub fn elem_bytes(&self) -> usize {
        self.elem.bits().div_ceil(8) as usize
    }

    /// Alignment of the base address and of every row (column) start. The ISA ("Matrix
    /// Storage for WMMA") asks for the fragment size for both; the CUDA programming guide,
    /// which compiled code follows and hardware accepts, asks for 32 bytes for the base and a
    /// stride of a multiple of 16 bytes (`ldm` a multiple of 8 halves / 4 floats). ptxvm
    /// requires the weaker of the two: the base aligned to min(fragment, 32) bytes, row
    /// starts to min(fragment, 16) bytes.
    pub fn check_align(&self, base: u64, stride: u64) -> Result<(), String> {
        let fb = self.frag_bytes();
        let (ba, ra) = (fb.min(32), fb.min(16));
        let row_bytes = stride * self.elem.bits() as u64 / 8;
        if base.is_multiple_of(ba) && row_bytes.is_multiple_of(ra) {
            Ok(())
        } else {
            Err(format!(
                "address {base:#x} must be a multiple of {ba} bytes and the stride ({stride} elements) of {ra} bytes (Matrix Storage for WMMA)"
            ))
        }
    }

    /// Where slot `j` of `lane` lives relative to the base address: (byte offset, bit
    /// offset within the loaded word, element bits).
    pub fn locate(&self, lane: usize, j: usize, stride: u64) -> (u64, u32, u32) {
        let need = self.need();
        let e = lane * need + j % need;
        let (_, cols) = self.dims();
        let (r, c) = ((e / cols) as u64, (e % cols) as u64);
        let idx = if self.row {
            r * stride + c
        } else {
            c * stride + r
        };
        let bits = self.elem.bits();
        let bit = idx * bits as u64;
        (bit / 8, (bit % 8) as u32, bits)
    }

    /// Puts element value `v` into slot `j` of a register vector.
    pub fn put(&self, regs: &mut [u64], j: usize, v: u64) {
        let per = (self.elem.reg_bits() / self.elem.bits()) as usize;
        let w = self.elem.bits();
        let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        if let Some(r) = regs.get_mut(j / per) {
            let sh = (j % per) as u32 * w;
            *r = (*r & !(mask << sh)) | ((v & mask) << sh);
        }
    }

    /// Element value of slot `j`.
    pub fn get(&self, regs: &[u64], j: usize) -> u64 {
        let per = (self.elem.reg_bits() / self.elem.bits()) as usize;
        let w = self.elem.bits();
        let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        regs.get(j / per)
            .map_or(0, |r| (r >> ((j % per) as u32 * w)) & mask)
    }
}

/// A decoded `wmma.mma`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WmmaMma {
    pub m: u8,
    pub n: u8,
    pub k: u16,
    pub a: Elem,
    pub b: Elem,
    pub c: Acc,
    pub d: Acc,
    pub satfinite: bool,
    pub bop: BitOp,
    pub rnd: ptxvm_fp::Rnd,
    pub na: u8,
    pub nb: u8,
    pub nc: u8,
    pub nd: u8,
}

impl WmmaMma {
    pub fn parse(mods: &[&str], na: usize, nb: usize, nc: usize, nd: usize) -> Option<WmmaMma> {
        let has = |m: &str| mods.contains(&m);
        let (m, n, k) = shape_of(mods)?;
        let types: Vec<&str> = mods
            .iter()
            .copied()
            .filter(|m| elem_of(m).is_some() || acc_of(m).is_some())
            .collect();
        let (d, a, b, c) = match types[..] {
            // f16 forms name only D and C.
            [d, c] => (
                acc_of(d)?,
                Elem::Float(TcType::F16),
                Elem::Float(TcType::F16),
                acc_of(c)?,
            ),
            [d, a, b, c] => (acc_of(d)?, elem_of(a)?, elem_of(b)?, acc_of(c)?),
            _ => return None,
        };
        let rnd = if has(".rz") {
            ptxvm_fp::Rnd::Rz
        } else if has(".rm") {
            ptxvm_fp::Rnd::Rm
        } else if has(".rp") {
            ptxvm_fp::Rnd::Rp
        } else {
            ptxvm_fp::Rnd::Rn
        };
        let w = WmmaMma {
            m,
            n,
            k,
            a,
            b,
            c,
            d,
            satfinite: has(".satfinite"),
            bop: if has(".and") { BitOp::And } else { BitOp::Xor },
            rnd,
            na: na as u8,
            nb: nb as u8,
            nc: nc as u8,
            nd: nd as u8,
        };
        let ok = w.mv(WmmaMat::A).is_some()
            && w.mv(WmmaMat::B).is_some()
            && w.acc_mv(c, w.nc).is_some()
            && w.acc_mv(d, w.nd).is_some();
        ok.then_some(w)
    }

    fn mv(&self, mat: WmmaMat) -> Option<WmmaMove> {
        let (e, regs) = match mat {
            WmmaMat::A => (self.a, self.na),
            _ => (self.b, self.nb),
        };
        let mods = [
            format!(".m{}n{}k{}", self.m, self.n, self.k),
            if mat == WmmaMat::A { ".a" } else { ".b" }.to_string(),
        ];
        let mut v = WmmaMove::parse(
            &[mods[0].as_str(), mods[1].as_str(), ".row", elem_name(e)],
            regs as usize,
            false,
        )?;
        v.elem = WmmaElem::Mul(e);
        Some(v)
    }

    fn acc_mv(&self, a: Acc, regs: u8) -> Option<WmmaMove> {
        let shape = format!(".m{}n{}k{}", self.m, self.n, self.k);
        WmmaMove::parse(
            &[shape.as_str(), ".c", ".row", acc_name(a)],
            regs as usize,
            false,
        )
    }

    /// The instruction's name for messages.
    pub fn name(&self) -> String {
        format!(
            "wmma.mma.sync.aligned.m{}n{}k{}.{}.{}.{}.{}",
            self.m,
            self.n,
            self.k,
            &acc_name(self.d)[1..],
            &elem_name(self.a)[1..],
            &elem_name(self.b)[1..],
            &acc_name(self.c)[1..]
        )
    }
}

fn elem_name(e: Elem) -> &'static str {
    match e {
        Elem::Float(TcType::F16) => ".f16",
        Elem::Float(TcType::Bf16) => ".bf16",
        Elem::Float(TcType::Tf32) => ".tf32",
        Elem::Float(TcType::E4m3) => ".e4m3",
        Elem::Float(TcType::E5m2) => ".e5m2",
        Elem::Float(TcType::E3m2) => ".e3m2",
        Elem::Float(TcType::E2m3) => ".e2m3",
        Elem::Float(TcType::E2m1) => ".e2m1",
        Elem::F64 => ".f64",
        Elem::Int(IntType::S8) => ".s8",
        Elem::Int(IntType::U8) => ".u8",
        Elem::Int(IntType::S4) => ".s4",
        Elem::Int(IntType::U4) => ".u4",
        Elem::B1 => ".b1",
    }
}

fn acc_name(a: Acc) -> &'static str {
    match a {
        Acc::F16 => ".f16",
        Acc::F32 => ".f32",
        Acc::F64 => ".f64",
        Acc::S32 => ".s32",
    }
}

/// Executes one `wmma.mma` for a whole warp: `srcs[lane]` = the lane's A, B, C registers;
/// returns each lane's D registers. The arithmetic is that of `mma` on the device's
/// generation with the wmma's K (Volta: blocks of 4, i.e. its chain of HMMA.884).
pub fn wmma_mma(
    w: &WmmaMma,
    model: &GpuModel,
    srcs: &[Vec<u64>; 32],
) -> Result<[Vec<u64>; 32], String> {
    let need = match (w.a, w.m, w.n, w.k) {
        (Elem::Float(TcType::F16), ..) => 70,
        (Elem::Int(IntType::S8 | IntType::U8), ..) => 72,
        (Elem::Int(_) | Elem::B1, ..) => 75,
        _ => 80,
    };
    if model.sm() < need {
        return Err(format!(
            "`{}` needs sm_{need}; the device model is {} ({})",
            w.name(),
            model.arch,
            model.board
        ));
    }
    let bad = || format!("`{}`: inconsistent fragment", w.name());
    let (fa, fb) = (
        w.mv(WmmaMat::A).ok_or_else(bad)?,
        w.mv(WmmaMat::B).ok_or_else(bad)?,
    );
    let fc = w.acc_mv(w.c, w.nc).ok_or_else(bad)?;
    let fd = w.acc_mv(w.d, w.nd).ok_or_else(bad)?;
    let (m, n, k) = (w.m as usize, w.n as usize, w.k as usize);
    let mut a = vec![0u64; m * k];
    let mut b = vec![0u64; k * n];
    let mut c = vec![0u64; m * n];
    let (na, nb) = (w.na as usize, w.nb as usize);
    for (lane, regs) in srcs.iter().enumerate() {
        let (ra, rest) = regs.split_at(na.min(regs.len()));
        let (rb, rc) = rest.split_at(nb.min(rest.len()));
        for (f, r, dst) in [(&fa, ra, &mut a), (&fb, rb, &mut b), (&fc, rc, &mut c)] {
            let need = f.need();
            for j in 0..need {
                if let Some(x) = dst.get_mut(lane * need + j) {
                    *x = f.get(r, j);
                }
            }
        }
    }
    // B as columns.
    let mut bt = vec![0u64; k * n];
    for r in 0..k {
        for col in 0..n {
            bt[col * k + r] = b[r * n + col];
        }
    }
    let spec = MmaSpec {
        m: w.m,
        n: w.n,
        k: w.k,
        a: w.a,
        b: w.b,
        c: w.c,
        d: w.d,
        a_row: true,
        b_col: true,
        satfinite: w.satfinite,
        bop: w.bop,
        f8f6f4: false,
        na: w.na,
        nb: w.nb,
        nc: w.nc,
        nd: w.nd,
    };
    let mut d = vec![0u64; m * n];
    if w.a == Elem::F64 {
        for r in 0..m {
            for col in 0..n {
                let af: Vec<f64> = a[r * k..(r + 1) * k]
                    .iter()
                    .map(|&x| f64::from_bits(x))
                    .collect();
                let bf: Vec<f64> = bt[col * k..(col + 1) * k]
                    .iter()
                    .map(|&x| f64::from_bits(x))
                    .collect();
                d[r * n + col] =
                    tc::dot_f64(&af, &bf, f64::from_bits(c[r * n + col]), w.rnd).to_bits();
            }
        }
    } else {
        compute_d(&spec, model, (m, n, k), &a, &bt, &c, &mut d);
    }
    let mut out: [Vec<u64>; 32] = std::array::from_fn(|_| vec![0u64; w.nd as usize]);
    let need = fd.need();
    for (lane, regs) in out.iter_mut().enumerate() {
        for j in 0..fd.slots() {
            fd.put(regs, j, d.get(lane * need + j % need).copied().unwrap_or(0));
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// Block-scaled `mma.sync` (§9.7.14.3 "Block Scaling for mma.sync"): `.kind::mxf8f6f4`
// (m16n8k32, fp8/fp6/fp4 in bytes, `.scale_vec::1X`) and `.kind::mxf4`/`.kind::mxf4nvf4`
// (m16n8k64, packed e2m1, `.scale_vec::2X`/`4X`), `.ue8m0`/`.ue4m3` scale factors.
//
// The operands after C are `scale-a-data, {byte-id-a, thread-id-a}, scale-b-data,
// {byte-id-b, thread-id-b}`. The ISA text: the thread-pair of each quad chosen by
// `thread-id-a` (0: lanes with `%laneid % 4` in {0, 1}; 1: in {2, 3}) supplies SF_A, the
// thread with `%laneid % 4 == thread-id-b` SF_B; `byte-id` picks the byte (1X), the byte
// pair (2X: 0 or 2) or all four bytes (4X: 0) of the register. Which lane of the pair
// holds which row is in a figure (Figure 43); ptxvm takes the pair's lower lane for row
// `g` and the upper for row `g + 8` of quad `g` (the rows that quad holds in C/D), and the
// chunks of a row or column from consecutive bytes, lowest K first — as two independent
// public hardware probes of sm_120 report (see `docs/tensor-cores.md`). Column `n` of B is
// quad `n`. The selectors must be uniform over the warp (ptxvm reads lane 0's); a value
// outside the ISA's Table 37 faults.

/// A decoded block-scaled `mma.sync`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmaScaled {
    /// The fragment layout: mxf8f6f4 as `.kind::f8f6f4` m16n8k32; mxf4 as the 4-bit m16n8k64
    /// layout (A and B elements are 4-bit e2m1 codes).
    pub spec: MmaSpec,
    /// `.kind::mxf4` or `.kind::mxf4nvf4`.
    pub mxf4: bool,
    pub a: TcType,
    pub b: TcType,
    /// Scale factors per row of A / column of B (1, 2 or 4).
    pub vec: u8,
    pub stype: tc::ScaleType,
}

impl MmaScaled {
    /// Decodes the modifiers of `mma.sync.aligned...block_scale` with the register counts
    /// of D, A, B and C.
    pub fn parse(mods: &[&str], na: usize, nb: usize, nc: usize, nd: usize) -> Option<MmaScaled> {
        let has = |m: &str| mods.contains(&m);
        if !has(".block_scale") || mods.iter().any(|m| m.starts_with(".sp")) {
            return None;
        }
        let mxf4 = has(".kind::mxf4") || has(".kind::mxf4nvf4");
        if !mxf4 && !has(".kind::mxf8f6f4") {
            return None;
        }
        let vec = if has(".scale_vec::4X") {
            4
        } else if has(".scale_vec::2X") || (mxf4 && !has(".scale_vec::1X")) {
            2
        } else {
            1
        };
        let stype = if has(".ue4m3") {
            tc::ScaleType::Ue4m3
        } else {
            tc::ScaleType::Ue8m0
        };
        let types: Vec<&str> = mods
            .iter()
            .copied()
            .filter(|m| elem_of(m).is_some() || acc_of(m).is_some())
            .collect();
        let [".f32", at, bt, ".f32"] = types[..] else {
            return None;
        };
        let (Some(Elem::Float(a)), Some(Elem::Float(b))) = (elem_of(at), elem_of(bt)) else {
            return None;
        };
        let (k, ea, eb) = if mxf4 {
            if (a, b) != (TcType::E2m1, TcType::E2m1) || vec == 1 {
                return None;
            }
            (64, Elem::Int(IntType::U4), Elem::Int(IntType::U4))
        } else {
            if vec != 1 {
                return None;
            }
            (32, Elem::Float(a), Elem::Float(b))
        };
        let spec = MmaSpec {
            m: 16,
            n: 8,
            k,
            a: ea,
            b: eb,
            c: Acc::F32,
            d: Acc::F32,
            a_row: true,
            b_col: true,
            satfinite: false,
            bop: BitOp::Xor,
            f8f6f4: !mxf4,
            na: na as u8,
            nb: nb as u8,
            nc: nc as u8,
            nd: nd as u8,
        };
        spec.consistent().then_some(MmaScaled {
            spec,
            mxf4,
            a,
            b,
            vec,
            stype,
        })
    }

    /// The block-scaled part of a block-scaled `mma.sp::ordered_metadata` (m16n8k128 mxf4 /
    /// mxf4nvf4, m16n8k64 mxf8f6f4) with the register counts of D, A (compressed), B and C:
    /// the dense form of half the K, whose scale factors, types and selectors the sparse one
    /// shares (the product is `crate::ops::sparse::mma_sp_scaled`'s, with the full K).
    pub fn parse_sp(
        mods: &[&str],
        na: usize,
        nb: usize,
        nc: usize,
        nd: usize,
    ) -> Option<MmaScaled> {
        let dense: Vec<&str> = mods
            .iter()
            .filter(|m| !m.starts_with(".sp"))
            .map(|&m| match m {
                ".m16n8k128" => ".m16n8k64",
                ".m16n8k64" => ".m16n8k32",
                other => other,
            })
            .collect();
        Self::parse(&dense, na, nb / 2, nc, nd)
    }

    /// The scale factors of a warp's block-scaled product (`sfa[row][chunk]`,
    /// `sfb[col][chunk]`) from each lane's sources: scale-a-data, byte-id-a, thread-id-a,
    /// scale-b-data, byte-id-b, thread-id-b at `base`; the selectors are lane 0's, checked
    /// against the ISA's Table 37.
    #[allow(clippy::type_complexity)]
    pub(crate) fn scale_factors(
        &self,
        srcs: &[Vec<u64>; 32],
        base: usize,
    ) -> Result<(Vec<Vec<tc::Num>>, Vec<Vec<tc::Num>>), String> {
        let extra =
            |lane: usize, j: usize| -> u64 { srcs[lane].get(base + j).copied().unwrap_or(0) };
        let sel = (
            extra(0, 1) & 0xffff,
            extra(0, 2) & 0xffff,
            extra(0, 4) & 0xffff,
            extra(0, 5) & 0xffff,
        );
        self.check_selectors(sel)?;
        let (ba, ta, bb, tb) = (
            sel.0 as usize,
            sel.1 as usize,
            sel.2 as usize,
            sel.3 as usize,
        );
        let vec = self.vec as usize;
        let byte = |v: u64, i: usize| ((v >> (8 * i)) & 0xff) as u32;
        let sfa = (0..16)
            .map(|r| {
                let lane = 4 * (r % 8) + 2 * ta + r / 8;
                let v = extra(lane, 0);
                (0..vec)
                    .map(|j| self.stype.decode(byte(v, ba + j)))
                    .collect()
            })
            .collect();
        let sfb = (0..8)
            .map(|col| {
                let v = extra(4 * col + tb, 3);
                (0..vec)
                    .map(|j| self.stype.decode(byte(v, bb + j)))
                    .collect()
            })
            .collect();
        Ok((sfa, sfb))
    }

    /// D (`m` x `n`, f32 bits) of the block-scaled product of A (`m` x `k` element codes,
    /// row-major) and B (`n` x `k`, a column per row), C (f32 bits) and the scale factors,
    /// with the block-scale model of `ptxvm_fp::tensor` (`mma_dot_mx`, `mma_dot_mxf4`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn products(
        &self,
        (m, n, k): (usize, usize, usize),
        a: &[u32],
        b: &[u32],
        c: &[u32],
        sfa: &[Vec<tc::Num>],
        sfb: &[Vec<tc::Num>],
    ) -> Vec<u32> {
        let an: Vec<tc::Num> = a.iter().map(|&x| self.a.decode(x)).collect();
        let bn: Vec<tc::Num> = b.iter().map(|&x| self.b.decode(x)).collect();
        let mut d = vec![0u32; m * n];
        for r in 0..m {
            for col in 0..n {
                let (ar, bc) = (r * k..(r + 1) * k, col * k..(col + 1) * k);
                let (Some(fa), Some(fb)) = (sfa.get(r), sfb.get(col)) else {
                    continue;
                };
                let (Some(aa), Some(bb), Some(ann), Some(bnn)) =
                    (a.get(ar.clone()), b.get(bc.clone()), an.get(ar), bn.get(bc))
                else {
                    continue;
                };
                let cv = c.get(r * n + col).copied().unwrap_or(0);
                d[r * n + col] = if self.mxf4 {
                    tc::mma_dot_mxf4(aa, bb, fa, fb, cv)
                } else {
                    match (fa.first(), fb.first()) {
                        (Some(&x), Some(&y)) => tc::mma_dot_mx(ann, bnn, x, y, cv),
                        _ => 0,
                    }
                };
            }
        }
        d
    }

    /// The instruction's name for messages.
    pub fn name(&self) -> String {
        let t = |e: TcType| &elem_name(Elem::Float(e))[1..];
        format!(
            "mma.sync.aligned.m16n8k{}.row.col.kind::{}.block_scale.scale_vec::{}X.f32.{}.{}.f32.{}",
            self.spec.k,
            if self.mxf4 { "mxf4" } else { "mxf8f6f4" },
            self.vec,
            t(self.a),
            t(self.b),
            match self.stype {
                tc::ScaleType::Ue8m0 => "ue8m0",
                tc::ScaleType::Ue4m3 => "ue4m3",
            }
        )
    }

    /// Checks the selectors against the ISA's Table 37: (byte-id-a, thread-id-a, byte-id-b,
    /// thread-id-b).
    fn check_selectors(&self, (ba, ta, bb, tb): (u64, u64, u64, u64)) -> Result<(), String> {
        let byte_ok = |b: u64| match self.vec {
            1 => b <= 3,
            2 => b == 0 || b == 2,
            _ => b == 0,
        };
        if byte_ok(ba) && byte_ok(bb) && ta <= 1 && tb <= 3 {
            Ok(())
        } else {
            Err(format!(
                "`{}`: selectors {{byte-id-a {ba}, thread-id-a {ta}}}, {{byte-id-b {bb}, thread-id-b {tb}}} are outside the ISA's valid values (Table 37: scale_vec::{}X)",
                self.name(),
                self.vec
            ))
        }
    }
}

/// Executes one block-scaled `mma` for a whole warp. `srcs[lane]` holds the lane's A, B
/// and C registers, then scale-a-data, byte-id-a, thread-id-a, scale-b-data, byte-id-b,
/// thread-id-b; returns each lane's D registers.
pub fn mma_scaled(
    s: &MmaScaled,
    model: &GpuModel,
    srcs: &[Vec<u64>; 32],
) -> Result<[Vec<u64>; 32], String> {
    if model.sm() / 10 != 12 || !model.arch_specific {
        return Err(format!(
            "`{}` needs sm_120a; the device model is {} ({})",
            s.name(),
            model.arch,
            model.board
        ));
    }
    let sp = &s.spec;
    let (m, n, k) = (16usize, 8usize, sp.k as usize);
    let (na, nb, nc) = (sp.na as usize, sp.nb as usize, sp.nc as usize);
    // Scale factors: sfa[row][chunk], sfb[col][chunk].
    let (sfa, sfb) = s.scale_factors(srcs, na + nb + nc)?;
    // Gather A (row-major), B (as columns) and C.
    let a_el = na * MmaSpec::per_reg(sp.a);
    let b_el = nb * MmaSpec::per_reg(sp.b);
    let mut a = vec![0u32; m * k];
    let mut b = vec![0u32; k * n];
    let mut c = vec![0u32; m * n];
    let bad = || format!("`{}`: fragment layout out of range", s.name());
    for (lane, regs) in srcs.iter().enumerate() {
        let (ra, rest) = regs.split_at(na.min(regs.len()));
        let (rb, rest) = rest.split_at(nb.min(rest.len()));
        let rc = &rest[..nc.min(rest.len())];
        for i in 0..a_el {
            let (_, r, col) = pos(sp, Operand::A, lane, i).ok_or_else(bad)?;
            *a.get_mut(r * k + col)
                .filter(|_| r < m && col < k)
                .ok_or_else(bad)? = elem_bits(sp.a, sp.f8f6f4, ra, i) as u32;
        }
        for i in 0..b_el {
            let (_, r, col) = pos(sp, Operand::B, lane, i).ok_or_else(bad)?;
            *b.get_mut(col * k + r)
                .filter(|_| r < k && col < n)
                .ok_or_else(bad)? = elem_bits(sp.b, sp.f8f6f4, rb, i) as u32;
        }
        for i in 0..4 {
            let (_, r, col) = pos_acc(sp, Operand::C, Acc::F32, lane, i).ok_or_else(bad)?;
            *c.get_mut(r * n + col)
                .filter(|_| r < m && col < n)
                .ok_or_else(bad)? = acc_bits(Acc::F32, rc, i) as u32;
        }
    }
    let d = s.products((m, n, k), &a, &b, &c, &sfa, &sfb);
    let mut out: [Vec<u64>; 32] = std::array::from_fn(|_| vec![0u64; sp.nd as usize]);
    for (lane, regs) in out.iter_mut().enumerate() {
        for (i, reg) in regs.iter_mut().enumerate().take(4) {
            let (_, r, col) = pos_acc(sp, Operand::C, Acc::F32, lane, i).ok_or_else(bad)?;
            *reg = *d
                .get(r * n + col)
                .filter(|_| r < m && col < n)
                .ok_or_else(bad)? as u64;
        }
    }
    Ok(out)
}
