//! `mma.sp` / `mma.sp::ordered_metadata` (PTX ISA "Matrix multiply-accumulate operation using
//! mma.sp instruction with sparse matrix A"): decoding, the fragment and metadata layouts, and
//! the decompression of A. The product itself is the dense one of [`crate::ops::tensor`] on
//! the decompressed A, with the launch's device model (one arithmetic definition).
//!
//! Layouts (`docs/tensor-cores.md`, "Sparse mma"):
//! - A holds the M x K/2 *compressed* matrix (the non-zero values of every row in order) in
//!   the dense `mma` layout of that M x K/2 shape: register `r` of a lane holds row
//!   `groupID + 8 * (r % 2)`, compressed columns `threadID_in_group * p + 4p * (r / 2)`
//!   onwards (`p` elements per register), as the ISA's sparse fragment figures give it.
//! - B is the dense K x N matrix: element `i` of a lane is row
//!   `threadID_in_group * p + i % p + 4p * (i / p)`, column `groupID`.
//! - C and D are the dense m16n8 accumulators.
//! - Metadata: one 4-bit field per chunk of a row (4 elements for 16- and 8-bit types, 2 for
//!   `.tf32`, 8 for 4-bit types, whose indices name pairs), lowest chunk in the lowest bits.
//!   Where one thread or a pair holds a group's metadata (16 or 32 bits per row), contributing
//!   thread `j` (the selector names the first) holds chunks `4j..4j+3` of row `groupID` in
//!   bits 0-15 and of row `groupID + 8` in bits 16-31. Where all four do (64 bits per row),
//!   thread `t` holds 8 chunks of one row: row `groupID + 8 (t % 2)`, chunks `8 (t / 2)`
//!   onwards (CUTLASS's `ELayout_64x64`; the ISA's figures for columns 0-31 and 32-63).
//!
//! Undefined metadata (the ISA: equal indices; for `::ordered_metadata` any pair not in
//! increasing order; for `.tf32` anything but `0b0100`/`0b1110`) is given a deterministic
//! meaning instead of a fault, since padded tiles carry such values with zero data: the `j`-th
//! stored value of a chunk goes to the index in bits `2j+1:2j`, a later value replacing an
//! earlier one at the same index; a `.tf32` value goes to element `(field >> 1) & 1`. A
//! selector outside the range the ISA gives the shape (for `mma.sp` ptxas accepts 0-3 for
//! the one- and two-thread shapes) is an error naming the instruction. `wgmma.mma_async.sp`
//! decompresses each warp's 16 rows with [`decompress`] too (the ISA draws its per-warp
//! metadata with these figures).

use crate::arch::GpuModel;
use crate::ops::tensor::{self, Acc, Elem, MmaSpec};
use ptxvm_fp::tensor::{BitOp, IntType, TcType};

/// A decoded `mma.sp` form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpSpec {
    /// The dense form with the full K (`na` is the compressed A's register count).
    pub mma: MmaSpec,
    /// `.sp::ordered_metadata`.
    pub ordered: bool,
    /// The sparsity selector (an immediate).
    pub sel: u8,
}

impl SpSpec {
    /// Decodes the modifiers of `mma.sp{::ordered_metadata}.sync.aligned` with the operand
    /// register counts and the selector; `None` for the block-scaled forms or inconsistent
    /// counts.
    pub fn parse(
        mods: &[&str],
        (na, nb, nc, nd): (usize, usize, usize, usize),
        sel: u64,
    ) -> Option<SpSpec> {
        let has = |m: &str| mods.contains(&m);
        let ordered = has(".sp::ordered_metadata");
        if !(ordered || has(".sp")) || mods.iter().any(|m| m.contains("block_scale")) {
            return None;
        }
        let (m, n, k) = tensor::shape_of(mods)?;
        let types: Vec<&str> = mods
            .iter()
            .copied()
            .filter(|m| tensor::elem_of(m).is_some() || tensor::acc_of(m).is_some())
            .collect();
        let [dt, at, bt, ct] = types[..] else {
            return None;
        };
        let mma = MmaSpec {
            m,
            n,
            k,
            a: tensor::elem_of(at)?,
            b: tensor::elem_of(bt)?,
            c: tensor::acc_of(ct)?,
            d: tensor::acc_of(dt)?,
            a_row: true,
            b_col: true,
            satfinite: has(".satfinite"),
            bop: BitOp::Xor,
            f8f6f4: has(".kind::f8f6f4"),
            na: u8::try_from(na).ok()?,
            nb: u8::try_from(nb).ok()?,
            nc: u8::try_from(nc).ok()?,
            nd: u8::try_from(nd).ok()?,
        };
        let s = SpSpec {
            mma,
            ordered,
            sel: u8::try_from(sel).ok()?,
        };
        s.consistent().then_some(s)
    }

    /// Elements per 32-bit register of a multiplicand.
    fn per_reg(e: Elem) -> Option<usize> {
        match e {
            Elem::Float(TcType::F16 | TcType::Bf16) => Some(2),
            Elem::Float(TcType::Tf32) => Some(1),
            Elem::Float(_) | Elem::Int(IntType::S8 | IntType::U8) => Some(4),
            Elem::Int(_) => Some(8),
            Elem::F64 | Elem::B1 => None,
        }
    }

    fn meta_threads(&self) -> usize {
        meta_threads(self.mma.a, self.mma.k as usize)
    }

    fn consistent(&self) -> bool {
        let s = &self.mma;
        let acc_ok = |a: Acc| match s.a {
            Elem::Int(_) => a == Acc::S32,
            _ => matches!(a, Acc::F16 | Acc::F32),
        };
        acc_ok(s.c) && acc_ok(s.d) && self.counts_ok()
    }

    /// The shape, the register counts and the metadata threads agree (the block-scaled
    /// forms, whose e2m1 codes are read as `.u4`, accumulate in f32).
    fn counts_ok(&self) -> bool {
        let s = &self.mma;
        let (Some(pa), Some(pb)) = (Self::per_reg(s.a), Self::per_reg(s.b)) else {
            return false;
        };
        let (m, n, k) = (s.m as usize, s.n as usize, s.k as usize);
        let same_kind = matches!(
            (s.a, s.b),
            (Elem::Float(_), Elem::Float(_)) | (Elem::Int(_), Elem::Int(_))
        );
        (m, n) == (16, 8)
            && same_kind
            && pa == pb
            && s.na as usize * pa * 32 == m * k / 2
            && s.nb as usize * pb * 32 == k * n
            && s.nc as usize * per_acc(s.c) * 32 == m * n
            && s.nd as usize * per_acc(s.d) * 32 == m * n
            && matches!(self.meta_threads(), 1 | 2 | 4)
    }

    /// The lowest compute capability with this form, and whether it needs the
    /// arch-specific feature set.
    fn min_sm(&self) -> (u32, bool) {
        match self.mma.a {
            _ if self.mma.f8f6f4 => (120, true),
            Elem::Float(TcType::E4m3 | TcType::E5m2) => (89, false),
            _ => (80, false),
        }
    }

    /// The instruction's name for messages.
    pub fn name(&self) -> String {
        let dense = self.mma.name();
        let sp = if self.ordered {
            "mma.sp::ordered_metadata"
        } else {
            "mma.sp"
        };
        dense.replacen("mma", sp, 1)
    }
}

/// (elements per chunk, stored values per chunk) of A's structured sparsity.
pub(crate) fn chunk(a: Elem) -> (usize, usize) {
    match a {
        Elem::Float(TcType::Tf32) => (2, 1),
        Elem::Int(IntType::S4 | IntType::U4) => (8, 4),
        _ => (4, 2),
    }
}

/// Threads of a group of four that hold metadata (1, 2 or 4): a thread holds 4 chunks of
/// each of its two rows.
fn meta_threads(a: Elem, k: usize) -> usize {
    (k / chunk(a).0) / 4
}

/// Decompresses 16 rows of A (`comp`: 16 x K/2 stored values, row-major) with the metadata
/// registers of a warp's 32 lanes and the selector: the 16 x K dense rows (`mma.sp`, and each
/// warp's slab of `wgmma.mma_async.sp`). The rules are in the module documentation.
pub(crate) fn decompress(
    a_elem: Elem,
    k: usize,
    sel: u8,
    comp: &[u64],
    meta: &[u32; 32],
) -> Result<Vec<u64>, String> {
    let tpg = meta_threads(a_elem, k);
    let sels = 4 / tpg.max(1);
    if sel as usize >= sels {
        return Err(format!(
            "sparsity selector {sel} is undefined for this shape and type (the PTX ISA allows {})",
            match sels {
                1 => "only 0",
                2 => "0 (threads T0, T1) or 1 (threads T2, T3)",
                _ => "0 to 3",
            }
        ));
    }
    decompress_rows(chunk(a_elem), k, 16, comp, |row, ch| {
        let (g, hi) = (row % 8, row / 8);
        // One or two threads: 4 chunks of rows g and g + 8 each; four: 8 chunks of one.
        let (lane, shift) = if tpg == 4 {
            (4 * g + 2 * (ch / 8) + hi, 4 * (ch % 8))
        } else {
            (4 * g + sel as usize * tpg + ch / 4, 16 * hi + 4 * (ch % 4))
        };
        Ok(meta.get(lane).copied().unwrap_or(0) >> shift & 0xf)
    })
}

/// Decompresses `rows` rows of A (`comp`: `rows` x K/2 stored values, row-major) into the
/// `rows` x `k` dense matrix, `field(row, chunk)` giving the 4-bit metadata field of a chunk
/// (an `Err` from it is returned), `(cw, nz)` the chunk's elements and stored values
/// ([`chunk`]; (8, 4) for pair-wise 4:8): the one expansion `mma.sp`, `wgmma.mma_async.sp`
/// and `tcgen05.mma.sp` share, each with its own metadata placement. The rules for undefined
/// fields are in the module documentation.
pub(crate) fn decompress_rows(
    (cw, nz): (usize, usize),
    k: usize,
    rows: usize,
    comp: &[u64],
    mut field: impl FnMut(usize, usize) -> Result<u32, String>,
) -> Result<Vec<u64>, String> {
    let bad = || "sparse fragment out of range".to_string();
    let kc = k / 2;
    let mut a = vec![0u64; rows * k];
    for row in 0..rows {
        for ch in 0..k / cw {
            let field = field(row, ch)? & 0xf;
            let vals = comp.get(row * kc + ch * nz..row * kc + (ch + 1) * nz);
            let dst = a.get_mut(row * k + ch * cw..row * k + (ch + 1) * cw);
            let (Some(vals), Some(dst)) = (vals, dst) else {
                return Err(bad());
            };
            match (cw, nz) {
                // tf32 1:2: `0b0100` names element 0, `0b1110` element 1.
                (2, 1) => dst[(field as usize >> 1) & 1] = vals[0],
                // 4-bit 4:8: two indices of pairs.
                (8, 4) => {
                    for j in 0..2 {
                        let at = 2 * ((field as usize >> (2 * j)) & 3);
                        dst[at] = vals[2 * j];
                        dst[at + 1] = vals[2 * j + 1];
                    }
                }
                // 2:4: two element indices.
                _ => {
                    for (j, v) in vals.iter().enumerate() {
                        dst[(field as usize >> (2 * j)) & 3] = *v;
                    }
                }
            }
        }
    }
    Ok(a)
}

fn per_acc(a: Acc) -> usize {
    if a == Acc::F16 { 2 } else { 1 }
}

/// Executes one `mma.sp` for a whole warp. `srcs[lane]` holds the lane's A, B and C registers
/// and its metadata register, in order; returns each lane's D registers.
pub fn mma_sp(
    s: &SpSpec,
    model: &GpuModel,
    srcs: &[Vec<u64>; 32],
) -> Result<[Vec<u64>; 32], String> {
    let sp = &s.mma;
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
    let (m, n, k) = (sp.m as usize, sp.n as usize, sp.k as usize);
    let (comp, b, c, meta) = gather(s, srcs)?;
    let a = decompress(sp.a, k, s.sel, &comp, &meta).map_err(|e| format!("`{}`: {e}", s.name()))?;
    let mut d = vec![0u64; m * n];
    tensor::compute_d(sp, model, (m, n, k), &a, &b, &c, &mut d);
    scatter(s, &d)
}

/// The compressed A (`m` x K/2, row-major), B (a column of K per row), C (`m` x `n`) and
/// each lane's metadata register from the lanes' sources (A, B, C, metadata in order).
#[allow(clippy::type_complexity)]
fn gather(
    s: &SpSpec,
    srcs: &[Vec<u64>; 32],
) -> Result<(Vec<u64>, Vec<u64>, Vec<u64>, [u32; 32]), String> {
    let sp = &s.mma;
    let bad = || format!("`{}`: fragment layout out of range", s.name());
    let (m, n, k) = (sp.m as usize, sp.n as usize, sp.k as usize);
    let kc = k / 2;
    let (pa, pb) = (
        SpSpec::per_reg(sp.a).ok_or_else(bad)?,
        SpSpec::per_reg(sp.b).ok_or_else(bad)?,
    );
    let (na, nb, nc) = (sp.na as usize, sp.nb as usize, sp.nc as usize);
    let mut comp = vec![0u64; m * kc];
    let mut b = vec![0u64; k * n]; // columns contiguous
    let mut c = vec![0u64; m * n];
    let mut meta = [0u32; 32];
    for (lane, regs) in srcs.iter().enumerate() {
        let (g, t) = (lane >> 2, lane % 4);
        let (ra, rest) = regs.split_at(na.min(regs.len()));
        let (rb, rest) = rest.split_at(nb.min(rest.len()));
        let (rc, re) = rest.split_at(nc.min(rest.len()));
        meta[lane] = re.first().copied().unwrap_or(0) as u32;
        for i in 0..na * pa {
            let r = i / pa;
            let (row, col) = (g + 8 * (r % 2), t * pa + i % pa + 4 * pa * (r / 2));
            *comp
                .get_mut(row * kc + col)
                .filter(|_| row < m && col < kc)
                .ok_or_else(bad)? = tensor::elem_bits(sp.a, sp.f8f6f4, ra, i);
        }
        for i in 0..nb * pb {
            let (row, col) = (t * pb + i % pb + 4 * pb * (i / pb), g);
            *b.get_mut(col * k + row)
                .filter(|_| row < k && col < n)
                .ok_or_else(bad)? = tensor::elem_bits(sp.b, sp.f8f6f4, rb, i);
        }
        for i in 0..nc * per_acc(sp.c) {
            let (row, col) = tensor::acc_pos(sp, sp.c, lane, i).ok_or_else(bad)?;
            *c.get_mut(row * n + col)
                .filter(|_| row < m && col < n)
                .ok_or_else(bad)? = tensor::acc_bits(sp.c, rc, i);
        }
    }
    Ok((comp, b, c, meta))
}

/// Each lane's D registers from D (`m` x `n`, row-major).
fn scatter(s: &SpSpec, d: &[u64]) -> Result<[Vec<u64>; 32], String> {
    let sp = &s.mma;
    let bad = || format!("`{}`: fragment layout out of range", s.name());
    let (m, n) = (sp.m as usize, sp.n as usize);
    let mut out: [Vec<u64>; 32] = std::array::from_fn(|_| vec![0u64; sp.nd as usize]);
    for (lane, regs) in out.iter_mut().enumerate() {
        for i in 0..sp.nd as usize * per_acc(sp.d) {
            let (row, col) = tensor::acc_pos(sp, sp.d, lane, i).ok_or_else(bad)?;
            let v = *d
                .get(row * n + col)
                .filter(|_| row < m && col < n)
                .ok_or_else(bad)?;
            match sp.d {
                Acc::F16 => regs[i / 2] |= (v & 0xffff) << (16 * (i % 2)),
                _ => regs[i] = v,
            }
        }
    }
    Ok(out)
}

/// A block-scaled `mma.sp::ordered_metadata` (sm_120a): m16n8k128 `.kind::mxf4`/`mxf4nvf4`
/// (e2m1, A pair-wise 4:8 as `.u4`/`.s4`'s) and m16n8k64 `.kind::mxf8f6f4` (2:4). The
/// fragments are the sparse ones of those shapes (`sp`: A compressed, B dense, the f32
/// accumulators); the scale factors, their selectors and the arithmetic are the dense
/// block-scaled `mma`'s (`scaled`, of half the K), applied to the decompressed A with the
/// full K.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpScaled {
    pub sp: SpSpec,
    pub scaled: tensor::MmaScaled,
}

impl SpScaled {
    /// Decodes the modifiers with the register counts of D, A, B and C and the selector.
    pub fn parse(
        mods: &[&str],
        (na, nb, nc, nd): (usize, usize, usize, usize),
        sel: u64,
    ) -> Option<SpScaled> {
        if !mods.contains(&".sp::ordered_metadata") {
            return None;
        }
        let scaled = tensor::MmaScaled::parse_sp(mods, na, nb, nc, nd)?;
        let (a, b) = if scaled.mxf4 {
            (Elem::Int(IntType::U4), Elem::Int(IntType::U4))
        } else {
            (Elem::Float(scaled.a), Elem::Float(scaled.b))
        };
        let mma = MmaSpec {
            k: scaled.spec.k * 2,
            a,
            b,
            na: u8::try_from(na).ok()?,
            nb: u8::try_from(nb).ok()?,
            ..scaled.spec
        };
        let sp = SpSpec {
            mma,
            ordered: true,
            sel: u8::try_from(sel).ok()?,
        };
        (sp.counts_ok() && mma.c == Acc::F32 && mma.d == Acc::F32)
            .then_some(SpScaled { sp, scaled })
    }

    /// The instruction's name for messages.
    pub fn name(&self) -> String {
        self.scaled
            .name()
            .replacen("mma", "mma.sp::ordered_metadata", 1)
            .replacen(
                &format!("m16n8k{}", self.scaled.spec.k),
                &format!("m16n8k{}", self.sp.mma.k),
                1,
            )
    }
}

/// Executes one block-scaled `mma.sp::ordered_metadata` for a whole warp. `srcs[lane]` holds
/// the lane's A, B and C registers, its metadata register, then scale-a-data, byte-id-a,
/// thread-id-a, scale-b-data, byte-id-b, thread-id-b; returns each lane's D registers.
pub fn mma_sp_scaled(
    s: &SpScaled,
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
    let sp = &s.sp.mma;
    let (m, n, k) = (sp.m as usize, sp.n as usize, sp.k as usize);
    let (comp, b, c, meta) = gather(&s.sp, srcs)?;
    let a =
        decompress(sp.a, k, s.sp.sel, &comp, &meta).map_err(|e| format!("`{}`: {e}", s.name()))?;
    let base = (sp.na + sp.nb + sp.nc) as usize + 1;
    let (sfa, sfb) = s.scaled.scale_factors(srcs, base)?;
    let u = |v: &[u64]| v.iter().map(|&x| x as u32).collect::<Vec<u32>>();
    let d = s
        .scaled
        .products((m, n, k), &u(&a), &u(&b), &u(&c), &sfa, &sfb);
    scatter(&s.sp, &d.iter().map(|&x| u64::from(x)).collect::<Vec<_>>())
}
