//! `tcgen05` (5th-generation tensor cores, sm_100a/101a/103a/110a): the CTA's Tensor Memory,
//! its allocator and the data-movement shapes of `tcgen05.ld`/`tcgen05.st`.
//!
//! Tensor Memory is 128 lanes x 512 columns of 32-bit cells per CTA; an address is
//! `lane << 16 | column`. Allocation is in columns (a power of two in [32, 512]), all lanes.
//! The layouts of the data-movement shapes (which thread and register holds which cell) are
//! the PTX manual's figures, read from CUTLASS's copy traits (`SM100_TMEM_LOAD_*`), which state
//! them as text; `docs/tensor-cores.md` spells them out. Pure functions and plain state; the
//! execution is `Cta::tcgen05_exec` (`exec/isa/matrix.rs`).

/// Lanes of Tensor Memory.
pub const LANES: u32 = 128;
/// Columns of Tensor Memory.
pub const COLS: u32 = 512;

/// A `tcgen05` instruction the engines run (`MatrixOp::Tcgen05`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tc5Op {
    /// `tcgen05.alloc.cta_group::1.sync.aligned{.shared::cta}.b32 [dst], nCols`: `addr` the
    /// destination, `srcs[0]` nCols.
    Alloc,
    /// `tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, nCols`: `srcs` taddr, nCols.
    Dealloc,
    /// `tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned`.
    Relinquish,
    /// `tcgen05.ld.sync.aligned.shape.num{.pack::16b}.b32 r, [taddr]{, splitoff}`: `dsts` the
    /// registers, `addr` taddr.
    Ld(Move),
    /// `tcgen05.st.sync.aligned.shape.num{.unpack::16b}.b32 [taddr]{, splitoff}, r`: `srcs` the
    /// registers, `addr` taddr.
    St(Move),
    /// `tcgen05.ld.red.sync.aligned.shape.num.redOp{.abs}{.NaN}.type r, redval, [taddr]
    /// {, splitoff}`: a `tcgen05.ld` whose `dsts` are the registers then `redval`, which
    /// receives the reduction of the thread's loaded values (`redux.sync`'s operation).
    LdRed(Move, crate::program::ReduxOp),
    /// `tcgen05.wait::ld` / `tcgen05.wait::st` (loads and stores complete when they execute).
    Wait,
    /// `tcgen05.fence::before_thread_sync` / `::after_thread_sync` (ordering only).
    Fence,
    /// `tcgen05.mma.cta_group::1.kind [d], a, b_desc, idesc{, disable_output_lane},
    /// enable_input_d`, issued by each executing thread: `addr` D's address; `srcs` A
    /// (descriptor, or the register of A's Tensor Memory address when `a_tmem`, plus `a_off`),
    /// B's descriptor, idesc, enable-input-d, then (`.sp`) the register of the metadata's
    /// Tensor Memory address, then disable-output-lane's four words if given.
    Mma {
        kind: Kind,
        a_tmem: bool,
        a_off: i32,
        form: MmaForm,
    },
    /// `tcgen05.commit.cta_group::1.mbarrier::arrive::one{.shared::cluster}.b64 [mbar]`: one
    /// arrive-on per executing thread (its MMAs are complete already); `addr` the mbarrier.
    Commit,
    /// `tcgen05.shift.cta_group::1.down [taddr]`, issued by each executing thread: `addr`
    /// taddr.
    Shift,
    /// `tcgen05.cp.cta_group::1.shape{.multicast} [taddr], s-desc`, issued by each executing
    /// thread: `addr` taddr, `srcs[0]` the shared-memory descriptor.
    Cp(CpShape),
    /// `tcgen05.commit.cta_group::1.mbarrier::arrive::one{.shared::cluster}.multicast::cluster
    /// .b64 [mbar], ctaMask`: one arrive-on per executing thread on the mbarrier at the same
    /// offset in every CTA of the cluster whose rank bit is set; `addr` the mbarrier,
    /// `srcs[0]` the mask.
    CommitMulticast,
    /// `tcgen05.mma.cta_group::1.kind::{mxf8f6f4,mxf4,mxf4nvf4}.block_scale [d], a, b_desc,
    /// idesc, [scale-A], [scale-B], enable-input-d`, issued by each executing thread: `addr`
    /// D's address; `srcs` A (descriptor, or A's Tensor Memory address register plus `a_off`),
    /// B's descriptor, idesc, enable-input-d, the scale-A and scale-B address registers (plus
    /// `sfa_off`/`sfb_off`).
    MmaScaled {
        /// `.kind::mxf4`/`.kind::mxf4nvf4` (K = 64 e2m1), else `.kind::mxf8f6f4` (K = 32).
        mxf4: bool,
        /// Scale factors per row of A / column of B (1, 2 or 4).
        vec: u8,
        a_tmem: bool,
        a_off: i32,
        sfa_off: i32,
        sfb_off: i32,
        /// `.sp`: the offset of the metadata's address (its register the last source).
        meta_off: Option<i32>,
    },
    /// The `.cta_group::2` form of `alloc`, `dealloc`, `relinquish_alloc_permit`, `commit`
    /// (also `.multicast::cluster`) and `shift`, on the CTA pair (ISA "CTA Pair": the CTAs of
    /// ranks `r` and `r ^ 1`). Operands as the `.cta_group::1` form.
    Pair(PairOp),
}

/// A `.cta_group::2` operation other than `mma` (`Tc5Op::Pair`). Allocation: each CTA's warp
/// of the collective allocates in its own CTA's Tensor Memory (ptxvm's deterministic allocator
/// gives both the same columns when they allocate the same sizes in the same order); `commit`
/// arrives as `.cta_group::1` does; `shift` shifts the executing CTA's and its peer's Tensor
/// Memory; `cp` copies into both CTAs' Tensor Memory (ISA: "the data is copied into the Tensor
/// Memory of both the current and the peer CTAs"), each CTA's from its own shared memory
/// through the same descriptor (`Cta::tcgen05_cp` run as each CTA).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairOp {
    Alloc,
    Dealloc,
    Relinquish,
    Commit,
    CommitMulticast,
    Shift,
    Cp(CpShape),
}

impl PairOp {
    /// The `.cta_group::1` operation this one performs in each CTA.
    pub fn single(self) -> Tc5Op {
        match self {
            PairOp::Alloc => Tc5Op::Alloc,
            PairOp::Dealloc => Tc5Op::Dealloc,
            PairOp::Relinquish => Tc5Op::Relinquish,
            PairOp::Commit => Tc5Op::Commit,
            PairOp::CommitMulticast => Tc5Op::CommitMulticast,
            PairOp::Shift => Tc5Op::Shift,
            PairOp::Cp(shape) => Tc5Op::Cp(shape),
        }
    }
}

/// The variant of a non-block-scaled `tcgen05.mma` (`Tc5Op::Mma`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MmaForm {
    /// `.sp`: A is the M x K/2 compressed matrix and the metadata is in Tensor Memory at the
    /// address register (a source) plus `meta_off`.
    pub sp: bool,
    pub meta_off: i32,
    /// `scale-input-d` (an immediate in [0, 15]): D = A.B + D * 2^-scale.
    pub scale_d: Option<u8>,
    /// `.ws` (weight-stationary; `.cta_group::1`): after the metadata source, the
    /// zero-column-mask descriptor's register when given.
    pub ws: bool,
    /// `.ashift`: A's rows in Tensor Memory shift down by one after the product.
    pub ashift: bool,
    /// `.cta_group::2`: the MMA of the CTA pair (M = 128 or 256 split between the CTAs of
    /// ranks `r & !1` and `r | 1`; `Cta::tcgen05_mma_pair`).
    pub pair: bool,
}

/// The zero-column mask of a `tcgen05.mma.ws` with `m` rows and `n` columns (ISA "Zero-Column
/// Mask Descriptor"): which of D's `n` columns multiply a column of zeros instead of B's, and
/// the column shift (D's column `c` multiplies B's column `c + shift`: the ISA's Example 4,
/// "columns from 2 to 129 will be used" for N = 128 and a shift of 2). Bit 39 (Non-Zero Mask)
/// clear: no column is zeroed. Else the mask is `128 / m` sub-masks of `n / (128 / m)` columns
/// each (sub-mask `i` the columns from `i n / (128 / m)`), each a run of its First Span value
/// (bit `32 + i`; 1 = zero columns) and then runs of the other value and the first alternately,
/// the first `sc_i` (Start Count, byte `i`) columns of the first run skipped. A run of 1s (zero
/// columns) is bits 40-47 plus 1 long, a run of 0s (B used) bits 48-55 plus 1: the ISA's
/// Examples 2-4 (Skip Span 2, Use Span 3: "0b ... 111 0000 111 0000") and CUTLASS's
/// `MaskAndShiftB`/`make_column_zero_mask` (`include/cute/arch/mma_sm100_desc.hpp` 276-380 at
/// 7107b055: `skip_span_`, bits 40-47, "columns where 0 value is used"; `use_span_` the columns
/// of B) agree; the ISA's table describes the two fields the other way round. Errors
/// `(unsupported, message)`: a start count not inside its first run is not described
/// (unsupported); reserved bits (36-38, 62-63) set or a shift above the maximum (16 for M = 32,
/// else 32) are invalid.
pub fn zero_column_mask(
    desc: u64,
    m: usize,
    n: usize,
) -> Result<(Vec<bool>, usize), (bool, String)> {
    let shift = (desc >> 56 & 0x3f) as usize;
    if desc & 0xc000_0070_0000_0000 != 0 {
        return Err((
            false,
            format!(
                "zero-column mask descriptor {desc:#018x}: reserved bits (36-38, 62-63) are set"
            ),
        ));
    }
    let max = if m == 32 { 16 } else { 32 };
    if shift > max {
        return Err((
            false,
            format!(
                "zero-column mask descriptor {desc:#018x}: column shift {shift} is above the maximum {max} for M = {m}"
            ),
        ));
    }
    let groups = match m {
        32 => 4,
        64 => 2,
        _ => 1,
    };
    let mut zero = vec![false; n];
    if desc >> 39 & 1 == 0 {
        return Ok((zero, shift));
    }
    let ones = (desc >> 40 & 0xff) as usize + 1;
    let zeros = (desc >> 48 & 0xff) as usize + 1;
    let sub = n / groups;
    for i in 0..groups {
        let first_one = desc >> (32 + i) & 1 != 0;
        let sc = (desc >> (8 * i) & 0xff) as usize;
        let (first, second) = if first_one {
            (ones, zeros)
        } else {
            (zeros, ones)
        };
        if sc >= first {
            return Err((
                true,
                format!(
                    "zero-column mask descriptor {desc:#018x}: start count {sc} of sub-mask {i} is not inside its first span ({first} columns): the PTX ISA does not describe it"
                ),
            ));
        }
        for c in 0..sub {
            let p = (sc + c) % (first + second);
            zero[i * sub + c] = (p < first) == first_one;
        }
    }
    Ok((zero, shift))
}

/// Where `tcgen05.mma.sp` (M = 128) finds the 4-bit metadata field of chunk `ch` of row `row`
/// of A: (lane, column, bit) relative to the metadata's address, for `bits`-bit A elements and
/// the instruction descriptor's sparsity selector `sel`. The ISA gives the placement only as
/// figures (263, 265, 267); ptxvm follows the placement JAX's Mosaic GPU writes
/// (`format_tcgen05_sparse_metadata`, run on B200) and its addressing (a column pair per two
/// MMAs, the selector naming the column):
/// - 8-bit kinds (`f8f6f4`, `i8`, `mxf8f6f4`; the selector must be 0) and the 4-bit
///   `mxf4`/`mxf4nvf4` (the ISA draws them in the same figure, 267; the block-scaled kinds
///   assume selector 0): row `r` in lane `r`, the row's 16 chunks from bit 0 of the address's
///   column onwards (8 per column);
/// - `kind::f16` (and, by the same count of 8 chunks of 4 bits per row, `kind::tf32`: ptxvm's
///   choice, no text or code states it): one column, the selector's (0 or 1) of the address's
///   pair; lane `16 (r / 16) + 8 (ch / 4) + r % 8` holds chunks `4 (ch / 4) ..` of row `r` at
///   bit `16 ((r / 8) % 2) + 4 (ch % 4)` (rows `r` and `r + 8` share a lane, like `mma.sp`'s
///   metadata registers).
pub fn sp_meta_at(bits: u32, sel: u32, row: usize, ch: usize) -> Result<(u32, u32, u32), String> {
    let (row, ch) = (row as u32, ch as u32);
    if bits <= 8 {
        if sel != 0 {
            return Err(format!(
                "sparsity selector {sel}: it must be 0 for kind::f8f6f4 and kind::i8"
            ));
        }
        return Ok((row, ch / 8, 4 * (ch % 8)));
    }
    if sel > 1 {
        return Err(format!(
            "sparsity selector {sel}: only 0 and 1 (the column of the metadata's column pair) are modelled; the placement of the others is only a figure in the PTX ISA"
        ));
    }
    Ok((
        16 * (row / 16) + 8 * (ch / 4) + row % 8,
        sel,
        16 * ((row / 8) % 2) + 4 * (ch % 4),
    ))
}

impl Tc5Op {
    /// Issued by each executing thread (`tcgen05.mma`, `tcgen05.cp`, `tcgen05.commit`,
    /// `tcgen05.shift`, also with `.cta_group::2`), not `.sync.aligned`.
    pub fn per_thread(&self) -> bool {
        matches!(
            self,
            Tc5Op::Mma { .. }
                | Tc5Op::MmaScaled { .. }
                | Tc5Op::Commit
                | Tc5Op::CommitMulticast
                | Tc5Op::Shift
                | Tc5Op::Cp(_)
                | Tc5Op::Pair(
                    PairOp::Commit | PairOp::CommitMulticast | PairOp::Shift | PairOp::Cp(_)
                )
        )
    }
}

/// `.multicast` of `tcgen05.cp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpCast {
    None,
    /// `.warpx2::02_13`: warps 0 and 2, and 1 and 3, form pairs.
    Pairs02_13,
    /// `.warpx2::01_23`: warps 0 and 1, and 2 and 3, form pairs.
    Pairs01_23,
    /// `.warpx4`: every warp receives the data.
    X4,
}

/// The shape of a `tcgen05.cp`: `rows` rows of `bytes` bytes (`.128x256b` = 128 x 32).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpShape {
    pub rows: u8,
    pub bytes: u8,
    pub cast: CpCast,
    /// The decompressing forms `.b8x16.b6x16_p32` (6) and `.b8x16.b4x16_p64` (4): each
    /// 16-byte chunk of a source row, 16 packed `unpack`-bit elements and padding, becomes 16
    /// bytes, element `i` in the low bits of byte `i` (`ops::tensor::decompress_b8x16`, as
    /// `ldmatrix`'s decompressing forms; 0: a plain copy).
    pub unpack: u8,
}

impl CpShape {
    /// From the modifiers (`None` for an unknown shape or a shape without its required
    /// multicast, ISA: `.64x128b` needs a `.warpx2`, `.32x128b` needs `.warpx4`).
    pub fn parse(mods: &[&str]) -> Option<CpShape> {
        let has = |m: &str| mods.contains(&m);
        let cast = if has(".warpx2::02_13") {
            CpCast::Pairs02_13
        } else if has(".warpx2::01_23") {
            CpCast::Pairs01_23
        } else if has(".warpx4") {
            CpCast::X4
        } else {
            CpCast::None
        };
        let (rows, bytes, ok) = if has(".128x256b") {
            (128, 32, cast == CpCast::None)
        } else if has(".4x256b") {
            (4, 32, cast == CpCast::None)
        } else if has(".128x128b") {
            (128, 16, cast == CpCast::None)
        } else if has(".64x128b") {
            (
                64,
                16,
                matches!(cast, CpCast::Pairs02_13 | CpCast::Pairs01_23),
            )
        } else if has(".32x128b") {
            (32, 16, cast == CpCast::X4)
        } else {
            return None;
        };
        let unpack = match (has(".b8x16"), has(".b6x16_p32"), has(".b4x16_p64")) {
            (false, false, false) => 0,
            (true, true, false) => 6,
            (true, false, true) => 4,
            _ => return None,
        };
        ok.then_some(CpShape {
            rows,
            bytes,
            cast,
            unpack,
        })
    }

    /// The instruction's name for messages.
    pub fn name(&self) -> String {
        let cast = match self.cast {
            CpCast::None => "",
            CpCast::Pairs02_13 => ".warpx2::02_13",
            CpCast::Pairs01_23 => ".warpx2::01_23",
            CpCast::X4 => ".warpx4",
        };
        let unpack = match self.unpack {
            6 => ".b8x16.b6x16_p32",
            4 => ".b8x16.b4x16_p64",
            _ => "",
        };
        format!(
            "tcgen05.cp.cta_group::1.{}x{}b{cast}{unpack}",
            self.rows,
            self.bytes as u32 * 8
        )
    }

    /// The Tensor Memory lanes (relative to the address's lane) that receive row `r`: the
    /// row itself without multicast; with `.warpx4` lane `r` of every warp's 32 lanes; with a
    /// `.warpx2`, the pair's lower warp takes rows 0-31 and its upper warp rows 32-63, in
    /// both pairs (ptxvm's reading of "each warp in the warp pair receive half of the data").
    pub fn lanes(&self, r: u32) -> Vec<u32> {
        let (h, i) = (r / 32, r % 32);
        match self.cast {
            CpCast::None => vec![r],
            CpCast::X4 => (0..4).map(|w| 32 * w + i).collect(),
            // Pairs (0, 2) and (1, 3): half h goes to warps 2h and 2h + 1.
            CpCast::Pairs02_13 => vec![32 * (2 * h) + i, 32 * (2 * h + 1) + i],
            // Pairs (0, 1) and (2, 3): half h goes to warps h and h + 2.
            CpCast::Pairs01_23 => vec![32 * h + i, 32 * (h + 2) + i],
        }
    }
}

/// The width (6 or 4) of an fp6/fp4 operand element of `tcgen05.mma .kind::f8f6f4` /
/// `.kind::mxf8f6f4`, whose shared-memory image is padded (16 elements packed into the first 12
/// or 8 bytes of each 16-byte unit, as `CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B` /
/// `16U4_ALIGN16B` lay them out); 0 for every other type.
pub fn padded_width(e: crate::ops::tensor::Elem) -> u32 {
    use ptxvm_fp::tensor::TcType;
    match e {
        crate::ops::tensor::Elem::Float(TcType::E2m3 | TcType::E3m2) => 6,
        crate::ops::tensor::Elem::Float(TcType::E2m1) => 4,
        _ => 0,
    }
}

/// `.kind` of `tcgen05.mma`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    F16,
    Tf32,
    F8f6f4,
    I8,
}

/// A decoded instruction descriptor (PTX ISA "Instruction descriptor", kinds tf32, f16,
/// f8f6f4, i8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Idesc {
    pub sparse: bool,
    pub saturate: bool,
    pub dtype: u32,
    pub atype: u32,
    pub btype: u32,
    pub neg_a: bool,
    pub neg_b: bool,
    pub trans_a: bool,
    pub trans_b: bool,
    pub n: u32,
    pub m: u32,
}

impl Idesc {
    pub fn decode(d: u32) -> Idesc {
        Idesc {
            sparse: d >> 2 & 1 != 0,
            saturate: d >> 3 & 1 != 0,
            dtype: d >> 4 & 3,
            atype: d >> 7 & 7,
            btype: d >> 10 & 7,
            neg_a: d >> 13 & 1 != 0,
            neg_b: d >> 14 & 1 != 0,
            trans_a: d >> 15 & 1 != 0,
            trans_b: d >> 16 & 1 != 0,
            n: (d >> 17 & 0x3f) << 3,
            m: (d >> 24 & 0x1f) << 4,
        }
    }
}

/// A `tcgen05` shared-memory matrix descriptor as the `wgmma` one it extends: the same start,
/// LBO and SBO fields; bits 46-48 must be 0b001, the swizzle is bits 61-63 (0 none, 1 128-byte
/// with 32-byte atoms, 2 128-byte, 4 64-byte, 6 32-byte). `Err`: a form ptxvm does not model
/// or an invalid one (the message).
pub fn smem_desc(d: u64) -> Result<crate::ops::wgmma::Desc, String> {
    if d >> 46 & 7 != 1 {
        return Err(format!(
            "shared memory descriptor {d:#018x}: bits 46-48 must be the fixed value 0b001"
        ));
    }
    if d >> 52 & 1 != 0 {
        return Err(format!(
            "shared memory descriptor {d:#018x}: the absolute leading-dimension address mode (bit 52) is not supported"
        ));
    }
    let w = match d >> 61 {
        0 => 1,
        1 | 2 => 8,
        4 => 4,
        6 => 2,
        m => {
            return Err(format!(
                "shared memory descriptor {d:#018x}: swizzle mode {m} is invalid"
            ));
        }
    };
    let mut x = crate::ops::wgmma::Desc::decode(d & ((1 << 62) - 1));
    x.w = w;
    // Mode 1: CUTLASS's SWIZZLE_128B_BASE32B (`Swizzle<2,5,2>`, MN-major, 4 rows of 128
    // bytes along K per SBO step; `mma_sm100_desc.hpp` `make_umma_desc`).
    x.atom32 = d >> 61 == 1;
    Ok(x)
}

/// The data-movement shape of `tcgen05.ld`/`tcgen05.st`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    S32x32b,
    S16x64b,
    S16x128b,
    S16x256b,
    /// `.16x32bx2` with its `immHalfSplitoff` (columns between the two halves).
    S16x32bx2(u32),
}

/// A `tcgen05.ld`/`st`: shape, repetitions (`.num`), `.pack::16b`/`.unpack::16b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    pub shape: Shape,
    pub num: u32,
    pub pack: bool,
}

impl Move {
    /// Parses the modifiers (`splitoff`: the immediate of `.16x32bx2`). `None`: not a form.
    pub fn parse(mods: &[&str], splitoff: Option<u64>, nregs: usize) -> Option<Move> {
        let has = |m: &str| mods.contains(&m);
        let shape = if has(".32x32b") {
            Shape::S32x32b
        } else if has(".16x64b") {
            Shape::S16x64b
        } else if has(".16x128b") {
            Shape::S16x128b
        } else if has(".16x256b") {
            Shape::S16x256b
        } else if has(".16x32bx2") {
            Shape::S16x32bx2(u32::try_from(splitoff?).ok()?)
        } else {
            return None;
        };
        let num = mods
            .iter()
            .find_map(|m| m.strip_prefix(".x").and_then(|n| n.parse::<u32>().ok()))?;
        if !num.is_power_of_two() || num > 128 {
            return None;
        }
        let pack = has(".pack::16b") || has(".unpack::16b");
        let m = Move { shape, num, pack };
        (m.regs() == nregs).then_some(m)
    }

    /// Registers per thread.
    pub fn regs(&self) -> usize {
        let per = match self.shape {
            Shape::S16x128b => 2,
            Shape::S16x256b => 4,
            _ => 1,
        };
        per * self.num as usize
    }

    /// The cell of register `j` of lane `l`: (lane offset, first column offset) from the
    /// instruction's address; with `pack` the register covers this column and the next.
    pub fn cell(&self, l: u32, j: u32) -> (u32, u32) {
        let (lane, col, extra) = match self.shape {
            // Thread l: lane l, register j: column j.
            Shape::S32x32b => (l, j, 0),
            // 16 lanes x 64 bits: thread l holds lane l/4 + 8(l%2), column (l/2)%2; each
            // repetition 2 columns further.
            Shape::S16x64b => (l / 4 + 8 * (l % 2), (l / 2) % 2 + 2 * j, 0),
            // 16 lanes x 128 bits: register 2k lane l/4, register 2k+1 lane l/4 + 8, column
            // l%4 + 4k.
            Shape::S16x128b => (l / 4 + 8 * (j % 2), l % 4 + 4 * (j / 2), 0),
            // 16 lanes x 256 bits (the mma accumulator layout): registers 4k, 4k+1 lane l/4,
            // 4k+2, 4k+3 lane l/4 + 8; columns 2(l%4) + (j%2) + 8k.
            Shape::S16x256b => (
                l / 4 + 8 * ((j % 4) / 2),
                2 * (l % 4) + j % 2 + 8 * (j / 4),
                0,
            ),
            // Two halves of 16 lanes x 32 bits: threads 0-15 lanes 0-15 from the address,
            // threads 16-31 the same lanes `splitoff` columns further; register j column j.
            Shape::S16x32bx2(off) => (l % 16, j, if l >= 16 { off } else { 0 }),
        };
        let col = if self.pack { 2 * col } else { col };
        (lane, col.saturating_add(extra))
    }

    /// The shape's PTX spelling (messages).
    pub fn name(&self, store: bool) -> String {
        let shape = match self.shape {
            Shape::S32x32b => "32x32b",
            Shape::S16x64b => "16x64b",
            Shape::S16x128b => "16x128b",
            Shape::S16x256b => "16x256b",
            Shape::S16x32bx2(_) => "16x32bx2",
        };
        let (op, pack) = if store {
            ("st", ".unpack::16b")
        } else {
            ("ld", ".pack::16b")
        };
        format!(
            "tcgen05.{op}.sync.aligned.{shape}.x{}{}.b32",
            self.num,
            if self.pack { pack } else { "" }
        )
    }
}

/// Why an allocation or an access failed (rendered by the caller with the thread).
pub type TmemError = String;

/// A CTA's Tensor Memory: the cells (allocated when the CTA first allocates), the
/// allocations (start column, columns), whether the CTA relinquished its permit.
#[derive(Debug, Default)]
pub struct Tmem {
    cells: Vec<u32>,
    allocs: Vec<(u32, u32)>,
    relinquished: bool,
}

impl Tmem {
    /// `tcgen05.alloc`: the column of the new allocation (lowest free multiple of `n`).
    pub fn alloc(&mut self, n: u64) -> Result<u32, TmemError> {
        if self.relinquished {
            return Err(
                "an allocation after the CTA executed `tcgen05.relinquish_alloc_permit` (illegal)"
                    .into(),
            );
        }
        let n = check_cols(n)?;
        if self.cells.is_empty() {
            self.cells = vec![0; (LANES * COLS) as usize];
        }
        let mut start = 0;
        while start + n <= COLS {
            if self
                .allocs
                .iter()
                .all(|&(s, m)| start + n <= s || s + m <= start)
            {
                self.allocs.push((start, n));
                // Fresh columns read as zero (the manual leaves them undefined).
                for lane in 0..LANES {
                    let b = (lane * COLS + start) as usize;
                    if let Some(c) = self.cells.get_mut(b..b + n as usize) {
                        c.fill(0);
                    }
                }
                return Ok(start);
            }
            start += n;
        }
        Err(format!(
            "out of Tensor Memory: {n} columns requested while {} of {COLS} are allocated ({}); on the GPU `tcgen05.alloc` blocks until another warp deallocates, ptxvm reports it instead",
            self.allocs.iter().map(|a| a.1).sum::<u32>(),
            self.describe()
        ))
    }

    /// `tcgen05.dealloc`: `taddr` must be an allocation's address and `n` its size.
    pub fn dealloc(&mut self, taddr: u64, n: u64) -> Result<(), TmemError> {
        let n = check_cols(n)?;
        let pos = self.allocs.iter().position(|&(s, _)| u64::from(s) == taddr);
        match pos {
            Some(i) if self.allocs[i].1 == n => {
                self.allocs.remove(i);
                Ok(())
            }
            Some(i) => Err(format!(
                "dealloc of {n} columns at {taddr:#x}, an allocation of {} columns",
                self.allocs[i].1
            )),
            None => Err(format!(
                "taddr {taddr:#x} is not the address of a Tensor Memory allocation ({})",
                self.describe()
            )),
        }
    }

    pub fn relinquish(&mut self) {
        self.relinquished = true;
    }

    /// Allocations still held (for the check at the end of the CTA).
    pub fn held(&self) -> &[(u32, u32)] {
        &self.allocs
    }

    /// The cell at (lane, column) if it is inside an allocation.
    fn index(&self, lane: u32, col: u32) -> Result<usize, TmemError> {
        if lane >= LANES || col >= COLS {
            return Err(format!(
                "Tensor Memory address (lane {lane}, column {col}) is outside the 128 lanes x 512 columns"
            ));
        }
        if !self.allocs.iter().any(|&(s, m)| (s..s + m).contains(&col)) {
            return Err(format!(
                "Tensor Memory column {col} (lane {lane}) is not allocated ({})",
                self.describe()
            ));
        }
        Ok((lane * COLS + col) as usize)
    }

    pub fn read(&self, lane: u32, col: u32) -> Result<u32, TmemError> {
        let i = self.index(lane, col)?;
        Ok(self.cells.get(i).copied().unwrap_or(0))
    }

    pub fn write(&mut self, lane: u32, col: u32, v: u32) -> Result<(), TmemError> {
        let i = self.index(lane, col)?;
        if let Some(c) = self.cells.get_mut(i) {
            *c = v;
        }
        Ok(())
    }

    fn describe(&self) -> String {
        if self.allocs.is_empty() {
            return "no columns are allocated".into();
        }
        let v: Vec<String> = self
            .allocs
            .iter()
            .map(|&(s, m)| format!("columns {s}..{}", s + m))
            .collect();
        format!("allocated: {}", v.join(", "))
    }
}

/// nCols: a power of two in [32, 512].
fn check_cols(n: u64) -> Result<u32, TmemError> {
    if !(32..=512).contains(&n) || !n.is_power_of_two() {
        return Err(format!(
            "nCols = {n}: the number of Tensor Memory columns must be a power of two in [32, 512]"
        ));
    }
    Ok(n as u32)
}

/// Lanes of Tensor Memory warp `w` may access: warp `w % 4` of its warpgroup reaches lanes
/// `32 (w % 4) .. 32 (w % 4) + 32`.
pub fn warp_lanes(w: usize) -> std::ops::Range<u32> {
    let q = (w % 4) as u32;
    32 * q..32 * q + 32
}

#[cfg(test)]
mod tests {

    /// The PTX ISA's zero-column mask Examples 2-4 ("Zero-Column Mask Descriptor"), each mask
    /// written as there: most significant bit first, the lowest bits at the right.
    #[test]
    fn zero_column_mask_isa_examples() {
        let bits =
            |z: &[bool]| -> String { z.iter().rev().map(|&b| if b { '1' } else { '0' }).collect() };
        // Example 1: Non-Zero Mask 0 (Skip Span 4, Use Span 3): no column zeroed.
        let (z, s) = zero_column_mask(0x0003_0400_0000_0000, 128, 64).unwrap();
        assert!(z.iter().all(|&b| !b) && s == 0);
        // Example 2: M = 128, sc0 0, fs0 0, Skip Span 2, Use Span 3: 0b ... 111 0000 111 0000.
        let (z, s) = zero_column_mask(0x0003_0280_0000_0000, 128, 14).unwrap();
        assert_eq!((bits(&z).as_str(), s), ("11100001110000", 0));
        // Example 3: M = 64, fs {fs1, fs0} = {0, 1}: mask0 0b ... 111 0000 111 0000 111,
        // mask1 0b ... 0000 111 0000 111 0000.
        let (z, _) = zero_column_mask(0x0003_0281_0000_0000, 64, 36).unwrap();
        assert!(bits(&z[..18]).ends_with("11100001110000111"));
        assert_eq!(bits(&z[18..]), "000011100001110000");
        // Example 4: M = 32, sc {sc3..sc0} = {1, 2, 1, 0}, fs {0, 0, 1, 1}, shift 2.
        let (z, s) = zero_column_mask(0x0203_0283_0102_0100, 32, 56).unwrap();
        assert_eq!(s, 2);
        let q: Vec<String> = z.chunks(14).map(bits).collect();
        assert!(q[0].ends_with("00001110000111"), "{q:?}");
        assert!(q[1].ends_with("0000111000011"), "{q:?}");
        assert!(q[2].ends_with("111000011100"), "{q:?}");
        assert!(q[3].ends_with("1110000111000"), "{q:?}");
        // A start count past its first span; a shift above 16 for M = 32; reserved bits.
        assert!(matches!(
            zero_column_mask(0x0003_0280_0000_0004, 128, 64),
            Err((true, _))
        ));
        assert!(matches!(
            zero_column_mask(0x1100_0000_0000_0000, 32, 64),
            Err((false, _))
        ));
        assert!(matches!(
            zero_column_mask(0x0000_0010_0000_0000, 128, 64),
            Err((false, _))
        ));
    }
    use super::*;

    #[test]
    fn shapes_cover_each_cell_once() {
        // Every shape and .num: the 32 threads' registers cover lanes x columns exactly once.
        for shape in [
            Shape::S32x32b,
            Shape::S16x64b,
            Shape::S16x128b,
            Shape::S16x256b,
            Shape::S16x32bx2(0),
        ] {
            for num in [1u32, 2, 4, 8] {
                let mut m = Move {
                    shape,
                    num,
                    pack: false,
                };
                if let Shape::S16x32bx2(_) = shape {
                    m.shape = Shape::S16x32bx2(num);
                }
                let mut seen = std::collections::HashSet::new();
                for l in 0..32 {
                    for j in 0..m.regs() as u32 {
                        assert!(seen.insert(m.cell(l, j)), "{shape:?} x{num}");
                    }
                }
                assert_eq!(seen.len(), 32 * m.regs());
            }
        }
    }

    #[test]
    fn allocator_rules() {
        let mut t = Tmem::default();
        assert!(t.alloc(48).is_err());
        assert!(t.alloc(16).is_err());
        assert!(t.alloc(1024).is_err());
        assert_eq!(t.alloc(32), Ok(0));
        assert_eq!(t.alloc(64), Ok(64));
        assert_eq!(t.alloc(32), Ok(32));
        assert!(t.alloc(512).is_err());
        assert!(t.dealloc(64, 32).is_err());
        assert!(t.dealloc(96, 32).is_err());
        assert_eq!(t.dealloc(64, 64), Ok(()));
        assert!(t.read(0, 64).is_err());
        assert_eq!(t.write(127, 31, 7), Ok(()));
        assert_eq!(t.read(127, 31), Ok(7));
        t.relinquish();
        assert!(t.alloc(32).is_err());
    }
}
