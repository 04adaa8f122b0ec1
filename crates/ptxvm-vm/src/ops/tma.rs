//! Tensor maps (the 128-byte `CUtensorMap` object of TMA) and the box traversal of
//! `cp.async.bulk.tensor`: ptxvm's own encoding of the map's fields in the 128 bytes
//! (`docs/tma.md`), the driver's encoders (`cuTensorMapEncodeTiled`/`Im2col` argument
//! rules), `tensormap.replace` of one field, and the decoding that validates a map before a
//! copy uses it. Pure functions of bytes; nothing here touches guest memory.
//!
//! Layout (little-endian, every other byte zero): a zero-filled map in which
//! `tensormap.replace` wrote each field is a valid map, as Triton builds them on the device.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | global address |
//! | 8 | 5 × 8 | global dimensions (elements) |
//! | 48 | 4 × 8 | global strides of dimensions 1..4 (bytes) |
//! | 80 | 8 | reserved |
//! | 88 | 5 × 2 | box dimensions (elements) |
//! | 98 | 5 × 1 | element strides |
//! | 103 | 1 | rank − 1 |
//! | 104 | 1 | element type (`tensormap.replace`'s code) |
//! | 105 | 1 | interleave layout (0 none, 1 16 B, 2 32 B) |
//! | 106 | 1 | swizzle mode (0 none, 1 32 B, 2 64 B, 3 128 B, 4 96 B) |
//! | 107 | 1 | swizzle atomicity (0 16 B, 1 32 B, 2 32 B + 8 B flip, 3 64 B) |
//! | 108 | 1 | fill mode (0 zero, 1 NaN-request-zero-FMA) |
//! | 109 | 1 | L2 promotion (0 none, 1 64 B, 2 128 B, 3 256 B) |
//! | 110 | 1 | mode (0 tile, 1 im2col, 2 im2col wide `::w`, 3 im2col wide `::w::128`) |
//! | 111 | 1 | reserved |
//! | 112 | 3 × 2 | im2col pixel box lower corner (signed) |
//! | 118 | 3 × 2 | im2col pixel box upper corner (signed) |
//! | 124 | 2 | im2col channels per pixel |
//! | 126 | 2 | im2col pixels per column |

use crate::program::{Addr, AtomOp, Src};

/// What a tensor copy does with the box.
#[derive(Debug, Clone, PartialEq)]
pub enum CopyKind {
    /// Global → shared (`.shared::cluster`/`.shared::cta`), completing the box's bytes on
    /// the mbarrier; `ctamask` of `.multicast::cluster`; `pair` for `.cta_group::2` (the
    /// mbarrier may be in the destination CTA's peer; a multicast signals, for each destination
    /// CTA, the CTA of its pair with the mbarrier's rank parity).
    Load {
        dst: Addr,
        mbar: Addr,
        ctamask: Option<Src>,
        pair: bool,
    },
    /// Shared → global (`.bulk_group`): out-of-bounds elements are skipped.
    Store { src: Addr },
    /// `cp.reduce.async.bulk.tensor`: each in-bounds element reduced into global memory.
    Reduce { op: AtomOp, src: Addr },
    /// `cp.async.bulk.prefetch.tensor`: no memory effect; the map is validated.
    Prefetch,
}

/// A decoded TMA instruction.
#[derive(Debug, Clone, PartialEq)]
pub enum TmaInst {
    Copy {
        kind: CopyKind,
        /// The instruction's `.Nd`.
        rank: usize,
        /// The tensor map's address (generic, or a `.param`/`.const`/`.global` variable).
        map: Addr,
        coords: Vec<Src>,
        /// `.im2col`: the im2col offsets (16-bit, innermost first); empty in tile mode. The
        /// wide modes: `{wHalo, wOffset}`.
        im2col: Option<Vec<Src>>,
        /// `.im2col::w` / `.im2col::w::128` (`im2col` then holds `wHalo`, `wOffset`).
        wide: Option<Wide>,
        /// `.tile::gather4` (loads, prefetches) / `.tile::scatter4` (stores), `.2d` only: the
        /// coordinates are `{col, row0, row1, row2, row3}` and the box is the map's one-row
        /// box at each of the four rows, the rows one after another in shared memory.
        rows4: bool,
    },
    /// `tensormap.replace`: `shared` for `.shared::cta`, `generic` when no space is named.
    Replace {
        field: Field,
        space: crate::program::MemSpace,
        addr: Addr,
        ord: u64,
        val: Src,
    },
    /// `tensormap.cp_fenceproxy`: the 128 bytes at `src` (shared) copied to `dst` (global).
    CpFenceProxy { dst: Addr, src: Addr },
}

impl TmaInst {
    /// Every register the instruction names.
    pub fn each_reg(&self, visit: &mut dyn FnMut(u32)) {
        let mut a = |x: &Addr| {
            if let Addr::Reg(r, _) = x {
                visit(*r);
            }
        };
        let mut regs: Vec<u32> = Vec::new();
        let s = |x: &Src, regs: &mut Vec<u32>| {
            if let Src::Reg(r) | Src::Pred(r, _) = x {
                regs.push(*r);
            }
        };
        match self {
            TmaInst::Copy {
                kind,
                map,
                coords,
                im2col,
                ..
            } => {
                a(map);
                for c in coords.iter().chain(im2col.iter().flatten()) {
                    s(c, &mut regs);
                }
                match kind {
                    CopyKind::Load {
                        dst, mbar, ctamask, ..
                    } => {
                        a(dst);
                        a(mbar);
                        if let Some(m) = ctamask {
                            s(m, &mut regs);
                        }
                    }
                    CopyKind::Store { src } | CopyKind::Reduce { src, .. } => a(src),
                    CopyKind::Prefetch => {}
                }
            }
            TmaInst::Replace { addr, val, .. } => {
                a(addr);
                s(val, &mut regs);
            }
            TmaInst::CpFenceProxy { dst, src } => {
                a(dst);
                a(src);
            }
        }
        for r in regs {
            visit(r);
        }
    }
}

/// Size of a tensor map in bytes.
pub const TMAP_BYTES: usize = 128;
/// Required alignment of a tensor map.
pub const TMAP_ALIGN: u64 = 64;
/// Most dimensions of a tensor.
pub const MAX_RANK: usize = 5;

const OFF_ADDR: usize = 0;
const OFF_DIM: usize = 8;
const OFF_STRIDE: usize = 48;
const OFF_BOX: usize = 88;
const OFF_ESTRIDE: usize = 98;
const OFF_RANK: usize = 103;
const OFF_ELEM: usize = 104;
const OFF_INTERLEAVE: usize = 105;
const OFF_SWIZZLE: usize = 106;
const OFF_ATOM: usize = 107;
const OFF_FILL: usize = 108;
const OFF_L2: usize = 109;
const OFF_MODE: usize = 110;
const OFF_LOWER: usize = 112;
const OFF_UPPER: usize = 118;
const OFF_CHANNELS: usize = 124;
const OFF_PIXELS: usize = 126;

/// Element types in `tensormap.replace.elemtype`'s numbering (PTX ISA, "Tensormap new_val
/// validity"), which differs from `CUtensorMapDataType` from `.bf16` on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    U8 = 0,
    U16 = 1,
    U32 = 2,
    S32 = 3,
    U64 = 4,
    S64 = 5,
    F16 = 6,
    F32 = 7,
    F32Ftz = 8,
    F64 = 9,
    Bf16 = 10,
    Tf32 = 11,
    Tf32Ftz = 12,
    /// `CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B`: 4-bit values, packed two to a byte in global
    /// and in shared memory ("no gaps between packed values").
    B4x16 = 13,
    /// `CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B`: each 16 4-bit values (8 bytes in global
    /// memory) take 16 bytes of shared memory, the 8 packed bytes then an 8-byte gap.
    B4x16P64 = 14,
    /// `CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B`: each 16 6-bit values (12 bytes in global
    /// memory) take 16 bytes of shared memory, the 12 packed bytes then a 4-byte gap.
    B6x16P32 = 15,
}

/// How a map's elements move: `elems` elements are `global` bytes in global memory and
/// `shared` bytes in shared memory (1, its size, its size for every type but the packed
/// sub-byte ones, whose units are whole bytes: 2 4-bit values, or 16 values and their gap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit {
    pub elems: u64,
    pub global: u64,
    pub shared: u64,
}

impl Elem {
    /// The element type of a `tensormap.replace` code (13..15 the packed sub-byte types
    /// `.b4x16`, `.b4x16_p64`, `.b6x16_p32`).
    pub fn from_code(c: u8) -> Option<Elem> {
        use Elem::*;
        Some(match c {
            0 => U8,
            1 => U16,
            2 => U32,
            3 => S32,
            4 => U64,
            5 => S64,
            6 => F16,
            7 => F32,
            8 => F32Ftz,
            9 => F64,
            10 => Bf16,
            11 => Tf32,
            12 => Tf32Ftz,
            13 => B4x16,
            14 => B4x16P64,
            15 => B6x16P32,
            _ => return None,
        })
    }

    /// The element type of a `CUtensorMapDataType` value.
    pub fn from_cuda(c: u32) -> Option<Elem> {
        use Elem::*;
        Some(match c {
            0 => U8,
            1 => U16,
            2 => U32,
            3 => S32,
            4 => U64,
            5 => S64,
            6 => F16,
            7 => F32,
            8 => F64,
            9 => Bf16,
            10 => F32Ftz,
            11 => Tf32,
            12 => Tf32Ftz,
            13 => B4x16,
            14 => B4x16P64,
            15 => B6x16P32,
            _ => return None,
        })
    }

    /// Bytes per element (1 for the packed sub-byte types, which move in `unit`s).
    pub fn bytes(self) -> u64 {
        use Elem::*;
        match self {
            U8 | B4x16 | B4x16P64 | B6x16P32 => 1,
            U16 | F16 | Bf16 => 2,
            U32 | S32 | F32 | F32Ftz | Tf32 | Tf32Ftz => 4,
            U64 | S64 | F64 => 8,
        }
    }

    /// The unit a copy moves (CUDA's `cuda.h` on `CUtensorMapDataType`: "`16U4_ALIGN8B`
    /// copies '16 x U4' packed values to memory aligned as 8 bytes. There are no gaps between
    /// packed values"; "`16U4_ALIGN16B` … aligned as 16 bytes. There are 8 byte gaps between
    /// every 8 byte chunk of packed values"; "`16U6_ALIGN16B` … There are 4 byte gaps between
    /// every 12 byte chunk").
    pub fn unit(self) -> Unit {
        let (elems, global, shared) = match self {
            Elem::B4x16 => (2, 1, 1),
            Elem::B4x16P64 => (16, 8, 16),
            Elem::B6x16P32 => (16, 12, 16),
            e => (1, e.bytes(), e.bytes()),
        };
        Unit {
            elems,
            global,
            shared,
        }
    }

    /// One of the packed sub-byte types.
    pub fn is_packed(self) -> bool {
        self.unit().elems > 1
    }

    pub fn is_float(self) -> bool {
        !matches!(
            self,
            Elem::U8
                | Elem::U16
                | Elem::U32
                | Elem::S32
                | Elem::U64
                | Elem::S64
                | Elem::B4x16
                | Elem::B4x16P64
                | Elem::B6x16P32
        )
    }

    /// The bits an out-of-bounds element gets with the NaN-request fill: the type's canonical
    /// NaN (the all-ones quiet NaN every ptxvm engine produces).
    pub fn nan_bits(self) -> u64 {
        match self.bytes() {
            2 => 0x7fff,
            4 => 0x7fff_ffff,
            _ => 0x7fff_ffff_ffff_ffff,
        }
    }

    /// The value a load from global memory stores in shared memory for an element with bits
    /// `bits`: the f32 bits as they are, except that `.tf32`/`.tf32.ftz` round them to tf32
    /// (to nearest even at 10 fraction bits, as `cvt.rn.tf32.f32`; infinities and NaNs left
    /// alone), and `.f32.ftz`/`.tf32.ftz` flush subnormals to a zero of the same sign first.
    /// NVIDIA documents the rounding through Triton's `round_f32_to_tf32` descriptors; the
    /// flush is ptxvm's reading of the `FTZ` type names (`docs/tma.md`).
    pub fn load_bits(self, bits: u64) -> u64 {
        let ftz = matches!(self, Elem::F32Ftz | Elem::Tf32Ftz);
        let tf32 = matches!(self, Elem::Tf32 | Elem::Tf32Ftz);
        let mut b = bits as u32;
        if ftz && b & 0x7f80_0000 == 0 {
            b &= 0x8000_0000;
        }
        let f = f32::from_bits(b);
        if tf32 && f.is_finite() {
            b = ptxvm_fp::convert::cvt_f32_to_tf32(f, ptxvm_fp::Rnd::Rn, false, false);
        }
        if ftz || tf32 { u64::from(b) } else { bits }
    }

    pub fn name(self) -> &'static str {
        use Elem::*;
        match self {
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            S32 => "s32",
            U64 => "u64",
            S64 => "s64",
            F16 => "f16",
            F32 => "f32",
            F32Ftz => "f32.ftz",
            F64 => "f64",
            Bf16 => "bf16",
            Tf32 => "tf32",
            Tf32Ftz => "tf32.ftz",
            B4x16 => "b4x16",
            B4x16P64 => "b4x16_p64",
            B6x16P32 => "b6x16_p32",
        }
    }

    /// The element type named by the CLI's `DTYPE` (`f32`, `float16`, …).
    pub fn from_name(s: &str) -> Option<Elem> {
        use Elem::*;
        Some(match s {
            "u8" | "uint8" => U8,
            "u16" | "uint16" => U16,
            "u32" | "uint32" => U32,
            "s32" | "i32" | "int32" => S32,
            "u64" | "uint64" => U64,
            "s64" | "i64" | "int64" => S64,
            "f16" | "float16" => F16,
            "f32" | "float32" => F32,
            "f32.ftz" => F32Ftz,
            "f64" | "float64" => F64,
            "bf16" | "bfloat16" => Bf16,
            "tf32" => Tf32,
            "tf32.ftz" => Tf32Ftz,
            "b4x16" | "16u4_align8b" => B4x16,
            "b4x16_p64" | "16u4_align16b" => B4x16P64,
            "b6x16_p32" | "16u6_align16b" => B6x16P32,
            _ => return None,
        })
    }
}

/// A decoded, validated tensor map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorMap {
    pub addr: u64,
    pub rank: usize,
    pub dims: [u64; MAX_RANK],
    /// Byte strides; `strides[0]` is the element size.
    pub strides: [u64; MAX_RANK],
    pub boxdim: [u32; MAX_RANK],
    pub estrides: [u32; MAX_RANK],
    pub elem: Elem,
    pub interleave: u8,
    pub swizzle: u8,
    /// The swizzle atomicity: 0 16-byte chunks, 1 32-byte chunks (with the 128-byte swizzle,
    /// `CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B`).
    pub atom: u8,
    pub fill_nan: bool,
    /// The im2col fields of an im2col map (`None`: a tiled map).
    pub im2col: Option<Im2colBox>,
}

/// The im2col part of a map: the pixel bounding box's corners per spatial dimension
/// (`lower[d - 1]` for dimension `d` = 1 (W), 2 (H), 3 (D), innermost first), the channels
/// loaded per pixel and the pixels per column. A wide map (`cuTensorMapEncodeIm2colWide`)
/// has only the W corners (H and D are 0) and, in `::w::128` mode, 128 pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Im2colBox {
    pub lower: [i32; 3],
    pub upper: [i32; 3],
    pub channels: u32,
    pub pixels: u32,
    /// The wide modes (`None`: the ordinary im2col mode).
    pub wide: Option<Wide>,
}

/// The wide im2col modes (PTX ISA "im2col::w and im2col::w::128 modes"), of the copy
/// instruction and of the map (`CU_TENSOR_MAP_IM2COL_WIDE_MODE_W`/`_W128`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wide {
    /// `.im2col::w`: the map's pixels per column, then `wHalo` halo pixels.
    W,
    /// `.im2col::w::128`: 128 pixels, `wHalo` halo pixels after every 32.
    W128,
}

impl Wide {
    /// The instruction's modifier.
    pub fn name(self) -> &'static str {
        match self {
            Wide::W => ".im2col::w",
            Wide::W128 => ".im2col::w::128",
        }
    }

    /// The exclusive bound of the `wHalo` operand (PTX ISA: [0, 512) and [0, 32)).
    pub fn halo_limit(self) -> u64 {
        match self {
            Wide::W => 512,
            Wide::W128 => 32,
        }
    }
}

/// The exclusive bound of a wide load's `wOffset` operand (PTX ISA: [0, 32)).
pub const WOFFSET_LIMIT: u64 = 32;

impl TensorMap {
    /// Elements of the box along dimension `i`: `ceil(box / element stride)`, except
    /// dimension 0 without interleave, which TMA always traverses with stride 1.
    pub fn extent(&self, i: usize) -> u64 {
        let e = if i == 0 && self.interleave == 0 {
            1
        } else {
            self.estrides[i].max(1)
        };
        u64::from(self.boxdim[i]).div_ceil(u64::from(e))
    }

    /// The traversal step along dimension `i`.
    pub fn step(&self, i: usize) -> u64 {
        if i == 0 && self.interleave == 0 {
            1
        } else {
            u64::from(self.estrides[i].max(1))
        }
    }

    /// Elements of the box (at most 256^5, so no overflow): in im2col mode, the pixels per
    /// column times the channels per pixel.
    pub fn box_elems(&self) -> u64 {
        match &self.im2col {
            Some(b) => u64::from(b.pixels) * u64::from(b.channels),
            None => (0..self.rank).map(|i| self.extent(i)).product(),
        }
    }

    /// The im2col traversal (PTX ISA "Im2col mode"): the global coordinates of the
    /// `pixels` × `channels` elements a load at coordinates `c` with im2col offsets `off`
    /// (innermost first, one per spatial dimension) reads, in shared-memory order (pixel by
    /// pixel, each pixel's channels contiguous), to `f`. Spatial dimension `d` (1 = W .. rank−2)
    /// is traversed in the window `[lower[d] + off[d], dims[d] + upper[d] + off[d])` with its
    /// element stride, starting at `c[d] + off[d]`; past the window's end it wraps to the
    /// window's start and the next dimension steps, and past the last spatial dimension the
    /// batch dimension (rank−1) steps by its element stride.
    pub fn for_each_im2col<E>(
        &self,
        c: &[i64; MAX_RANK],
        off: &[i64; 3],
        mut f: impl FnMut(&[i64; MAX_RANK]) -> Result<(), E>,
    ) -> Result<(), E> {
        let Some(b) = &self.im2col else {
            return Ok(());
        };
        let r = self.rank;
        let spatial = r.saturating_sub(2);
        let mut lo = [0i64; MAX_RANK];
        let mut hi = [0i64; MAX_RANK];
        let mut p = *c;
        for d in 1..=spatial {
            lo[d] = i64::from(b.lower[d - 1]) + off[d - 1];
            hi[d] = self.dims[d] as i64 + i64::from(b.upper[d - 1]) + off[d - 1];
            p[d] = c[d] + off[d - 1];
        }
        let mut g = [0i64; MAX_RANK];
        for _ in 0..b.pixels {
            g[..r].copy_from_slice(&p[..r]);
            for ch in 0..i64::from(b.channels) {
                g[0] = c[0] + ch;
                f(&g)?;
            }
            // Step to the next pixel.
            let mut d = 1;
            loop {
                if d > spatial {
                    p[r - 1] += i64::from(self.estrides[r - 1]);
                    break;
                }
                p[d] += i64::from(self.estrides[d]);
                if p[d] < hi[d] {
                    break;
                }
                p[d] = lo[d];
                d += 1;
            }
        }
        Ok(())
    }

    /// Bytes of the box (the transaction bytes of a load): its elements' bytes, for the
    /// packed sub-byte types their packed bytes (without the gaps in shared memory; CUTLASS
    /// counts an fp4/fp6 TMA load's transaction bytes so, `sm100_mma_warpspecialized.hpp`).
    pub fn box_bytes(&self) -> u64 {
        let u = self.elem.unit();
        self.box_elems() / u.elems * u.global
    }

    /// Bytes a load with im2col operands `off` writes to shared memory: the box, or for a
    /// wide map its pixels plus the `wHalo` (`off[0]`) halo pixels.
    pub fn load_bytes(&self, off: &[i64; 3]) -> u64 {
        match &self.im2col {
            Some(b) if b.wide.is_some() => {
                let halo = u64::try_from(off[0]).unwrap_or(0);
                (u64::from(b.pixels) + halo) * u64::from(b.channels) * self.elem.bytes()
            }
            _ => self.box_bytes(),
        }
    }

    /// The wide im2col traversal (PTX ISA "im2col::w and im2col::w::128 modes", `.im2col::w`
    /// only): the global coordinates of the elements a load at coordinates `c` with `wHalo`
    /// `halo` and `wOffset` `woff` reads, in shared-memory order (pixel by pixel, each pixel's
    /// channels contiguous), to `f`. H and D stay at their coordinates; W is traversed in the
    /// window `[lowerW + woff, dims[W] + upperW + woff)` with its element stride, starting at
    /// `c[W] + woff` (which may lie left of the window); past the window's end W wraps to the
    /// window's start and the batch dimension steps by its element stride (the im2col rule with
    /// H and D fixed). The map's pixels per column are read, then `halo` more pixels of the same
    /// walk ("the halo pixels are always loaded in the shared memory next to the main row
    /// pixels").
    pub fn for_each_im2col_wide<E>(
        &self,
        c: &[i64; MAX_RANK],
        halo: u64,
        woff: i64,
        mut f: impl FnMut(&[i64; MAX_RANK]) -> Result<(), E>,
    ) -> Result<(), E> {
        let Some(b) = &self.im2col else {
            return Ok(());
        };
        let r = self.rank;
        let lo = i64::from(b.lower[0]) + woff;
        let hi = self.dims[1] as i64 + i64::from(b.upper[0]) + woff;
        let mut p = *c;
        p[1] = c[1] + woff;
        let mut g = [0i64; MAX_RANK];
        for _ in 0..u64::from(b.pixels) + halo {
            g[..r].copy_from_slice(&p[..r]);
            for ch in 0..i64::from(b.channels) {
                g[0] = c[0] + ch;
                f(&g)?;
            }
            p[1] += i64::from(self.estrides[1]);
            if p[1] >= hi {
                p[1] = lo;
                p[r - 1] += i64::from(self.estrides[r - 1]);
            }
        }
        Ok(())
    }

    /// The swizzle's width in 16-byte units (1 = none).
    pub fn swizzle_units(&self) -> u64 {
        match self.swizzle {
            1 => 2,
            2 => 4,
            3 => 8,
            _ => 1,
        }
    }

    /// The shared address of byte offset `off` of the dense box at `base`: with a swizzle of
    /// W 16-byte units, address bits 4.. (log2 W of them) are exchanged with bits 7.. (the
    /// pattern `wgmma`'s matrix descriptors read; it repeats every 8 rows of W × 16 bytes
    /// and is a function of the absolute shared address).
    ///
    /// `CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B` (atomicity 1; cuda.h: "Swizzle 32B chunks within
    /// 128B span"): address bits 5-6 (the 32-byte chunk of a 128-byte row) are exchanged with
    /// bits 7-8 (the row within 4 rows), CUTLASS's `Swizzle<2,5,2>`, the layout it loads with
    /// this mode and `tcgen05.mma` reads with descriptor swizzle mode 1 (`docs/tma.md`).
    pub fn shared_addr(&self, base: u64, off: u64) -> u64 {
        let a = base.wrapping_add(off);
        let w = self.swizzle_units();
        if self.atom == 1 {
            a ^ (((a >> 7) & 3) << 5)
        } else if w > 1 {
            a ^ (((a >> 7) & (w - 1)) << 4)
        } else {
            a
        }
    }

    /// The global byte address of element `g` (all coordinates in bounds), or `None` when
    /// one is out of bounds.
    /// For the packed sub-byte types, element `g[0]` is the first of its unit (a multiple of
    /// the unit's elements), at its unit's packed bytes.
    pub fn global_addr(&self, g: &[i64; MAX_RANK]) -> Option<u64> {
        let mut a = self.addr;
        let u = self.elem.unit();
        for (i, ((&gi, &d), &s)) in g
            .iter()
            .zip(&self.dims)
            .zip(&self.strides)
            .take(self.rank)
            .enumerate()
        {
            let c = u64::try_from(gi).ok()?;
            if c >= d {
                return None;
            }
            let off = if i == 0 {
                (c / u.elems).checked_mul(u.global)?
            } else {
                c.checked_mul(s)?
            };
            a = a.checked_add(off)?;
        }
        Some(a)
    }
}

fn u64_at(b: &[u8; TMAP_BYTES], off: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[off..off + 8]);
    u64::from_le_bytes(x)
}

fn u16_at(b: &[u8; TMAP_BYTES], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}

/// Decodes and validates a tensor map (the rules of `cuTensorMapEncodeTiled`, which a map
/// built by `tensormap.replace` must meet too). The error says which field is wrong.
pub fn decode(b: &[u8; TMAP_BYTES]) -> Result<TensorMap, String> {
    let rank = usize::from(b[OFF_RANK]) + 1;
    if rank > MAX_RANK {
        return Err(format!("rank {rank} (at most {MAX_RANK})"));
    }
    let code = b[OFF_ELEM];
    let elem = Elem::from_code(code)
        .ok_or_else(|| format!("element type {code} is not a tensor-map element type"))?;
    let esize = elem.bytes();
    let unit = elem.unit();
    // The 16-byte aligned packed types (`16U4_ALIGN16B`, `16U6_ALIGN16B`).
    let p16 = unit.elems == 16;
    let interleave = b[OFF_INTERLEAVE];
    let swizzle = b[OFF_SWIZZLE];
    let atom = b[OFF_ATOM];
    let fill = b[OFF_FILL];
    let l2 = b[OFF_L2];
    let mode = b[OFF_MODE];
    if interleave > 2 {
        return Err(format!("interleave layout {interleave} (0, 1 or 2)"));
    }
    if interleave != 0 && rank < 3 {
        return Err(format!(
            "an interleaved layout needs rank 3 or more, the map has rank {rank}"
        ));
    }
    match swizzle {
        0..=3 => {}
        4 => return Err("the 96-byte swizzle mode is not supported by ptxvm".into()),
        s => return Err(format!("swizzle mode {s} (0 to 4)")),
    }
    match atom {
        0 => {}
        // CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B (`shared_addr`).
        1 if swizzle == 3 => {}
        1 => {
            return Err(format!(
                "swizzle atomicity 32B needs the 128-byte swizzle, not mode {swizzle}"
            ));
        }
        2 | 3 => {
            return Err(format!(
                "swizzle atomicity {} is not supported by ptxvm (16-byte and 32-byte atoms are)",
                ["16B", "32B", "32B with 8B flip", "64B"][usize::from(atom)]
            ));
        }
        a => return Err(format!("swizzle atomicity {a} (0 to 3)")),
    }
    if interleave == 2 && swizzle != 1 {
        return Err("the 32-byte interleave needs the 32-byte swizzle".into());
    }
    if fill > 1 {
        return Err(format!("fill mode {fill} (0 or 1)"));
    }
    if fill == 1 && !elem.is_float() {
        return Err(format!(
            "the NaN fill needs a floating-point element type, not .{}",
            elem.name()
        ));
    }
    if l2 > 3 {
        return Err(format!("L2 promotion {l2} (0 to 3)"));
    }
    if mode > 3 {
        return Err(format!(
            "mode {mode} (0 tile, 1 im2col, 2 im2col wide, 3 im2col wide 128)"
        ));
    }
    if mode >= 1 && !(3..=MAX_RANK).contains(&rank) {
        return Err(format!("an im2col map has rank {rank} (3 to 5)"));
    }
    let wide = match mode {
        2 => Some(Wide::W),
        3 => Some(Wide::W128),
        _ => None,
    };
    if wide.is_some() {
        // PTX ISA: the interleave layout is not supported in the wide modes, and a swizzle
        // must be set.
        if interleave != 0 {
            return Err("a wide im2col map cannot be interleaved".into());
        }
        if swizzle == 0 {
            return Err("a wide im2col map needs a swizzle mode".into());
        }
    }
    if b[111] != 0
        || b[80..OFF_BOX].iter().any(|&x| x != 0)
        || (mode == 0 && b[OFF_LOWER..TMAP_BYTES].iter().any(|&x| x != 0))
    {
        return Err("reserved bytes are not zero (not a map ptxvm encoded)".into());
    }
    if elem.is_packed() && mode != 0 {
        return Err(format!(
            "a .{} map in im2col mode: ptxvm models the packed sub-byte types in tile mode only",
            elem.name()
        ));
    }
    if p16 {
        // cuda.h: 16U6_ALIGN16B needs CU_TENSOR_MAP_INTERLEAVE_NONE; the 16-byte aligned
        // types allow the swizzles NONE, 128B and 128B_ATOM_32B (and 128B_ATOM_64B for
        // 16U6 stores).
        if interleave != 0 && elem == Elem::B6x16P32 {
            return Err(format!("a .{} map cannot be interleaved", elem.name()));
        }
        if swizzle != 0 && swizzle != 3 {
            return Err(format!(
                "a .{} map allows no swizzle or the 128-byte swizzle, not mode {swizzle}",
                elem.name()
            ));
        }
    }
    let addr = u64_at(b, OFF_ADDR);
    let align = if interleave == 2 || p16 { 32 } else { 16 };
    if !addr.is_multiple_of(align) {
        return Err(format!(
            "global address {addr:#x} is not {align}-byte aligned"
        ));
    }
    let mut dims = [1u64; MAX_RANK];
    let mut strides = [0u64; MAX_RANK];
    let mut boxdim = [1u32; MAX_RANK];
    let mut estrides = [1u32; MAX_RANK];
    strides[0] = esize;
    for i in 0..rank {
        let d = u64_at(b, OFF_DIM + 8 * i);
        if d == 0 || d > 1 << 31 {
            return Err(format!("global dimension {i} is {d} (1 to 2^31)"));
        }
        dims[i] = d;
        if i == 0 && !d.is_multiple_of(if p16 { 128 } else { unit.elems }) {
            return Err(format!(
                "global dimension 0 is {d}; a .{} map needs a multiple of {}",
                elem.name(),
                if p16 { 128 } else { unit.elems }
            ));
        }
        if i > 0 {
            let s = u64_at(b, OFF_STRIDE + 8 * (i - 1));
            if !s.is_multiple_of(align) || s == 0 || s >= 1 << 40 {
                return Err(format!(
                    "global stride {} is {s} bytes (a non-zero multiple of {align} below 2^40)",
                    i - 1
                ));
            }
            strides[i] = s;
        }
        if mode == 0 {
            let bx = u16_at(b, OFF_BOX + 2 * i);
            if bx == 0 || bx > 256 {
                return Err(format!("box dimension {i} is {bx} (1 to 256)"));
            }
            boxdim[i] = u32::from(bx);
        }
        let e = b[OFF_ESTRIDE + i];
        if e == 0 || e > 8 {
            return Err(format!("element stride {i} is {e} (1 to 8)"));
        }
        estrides[i] = u32::from(e);
    }
    let im2col = if mode >= 1 {
        let channels = u32::from(u16_at(b, OFF_CHANNELS));
        let mut pixels = u32::from(u16_at(b, OFF_PIXELS));
        if channels == 0 || channels > 256 {
            return Err(format!("channels per pixel is {channels} (1 to 256)"));
        }
        if wide == Some(Wide::W128) {
            // "Pixels-per-Column is ignored in im2col::w::128 mode".
            pixels = 128;
        } else if pixels == 0 || pixels > 1024 {
            return Err(format!("pixels per column is {pixels} (1 to 1024)"));
        }
        // The corners are stored in the driver's order ({D, H, W}: outermost first).
        let spatial = rank - 2;
        let (mut lower, mut upper) = ([0i32; 3], [0i32; 3]);
        for j in 0..spatial {
            let d = spatial - j; // dimension 1 (W) .. rank-2
            let at = |o: usize| i32::from(i16::from_le_bytes([b[o + 2 * j], b[o + 2 * j + 1]]));
            lower[d - 1] = at(OFF_LOWER);
            upper[d - 1] = at(OFF_UPPER);
        }
        if wide.is_some() && (lower[1..] != [0, 0] || upper[1..] != [0, 0]) {
            return Err("a wide im2col map has H and D corners (reserved bytes not zero)".into());
        }
        boxdim[0] = channels;
        Some(Im2colBox {
            lower,
            upper,
            channels,
            pixels,
            wide,
        })
    } else {
        None
    };
    if p16 && boxdim[0] != 128 {
        return Err(format!(
            "box dimension 0 is {}; a .{} map needs 128",
            boxdim[0],
            elem.name()
        ));
    }
    if elem.is_packed() && estrides[0] != 1 && interleave != 0 {
        return Err(format!(
            "element stride 0 is {}: ptxvm models the packed sub-byte types with stride 1 in dimension 0",
            estrides[0]
        ));
    }
    // The box's inner dimension in bytes (packed: its elements' packed bytes).
    let inner = u64::from(boxdim[0]) / unit.elems * unit.global;
    if !u64::from(boxdim[0]).is_multiple_of(unit.elems) {
        return Err(format!(
            "box dimension 0 is {}; a .{} map needs a multiple of {}",
            boxdim[0],
            elem.name(),
            unit.elems
        ));
    }
    if interleave == 0 {
        if !inner.is_multiple_of(16) {
            return Err(format!(
                "the box's inner dimension is {inner} bytes ({} × {}); it must be a multiple of 16",
                boxdim[0],
                if elem.is_packed() {
                    format!("{} / {}", unit.global, unit.elems)
                } else {
                    esize.to_string()
                }
            ));
        }
        let span = [0, 32, 64, 128][usize::from(swizzle)];
        if swizzle != 0 && inner > span {
            return Err(format!(
                "the box's inner dimension is {inner} bytes, more than the {span}-byte swizzle span"
            ));
        }
    } else {
        let span = if interleave == 1 { 16 } else { 32 };
        if inner > span {
            return Err(format!(
                "the box's inner dimension is {inner} bytes, more than the {span}-byte interleave"
            ));
        }
    }
    Ok(TensorMap {
        addr,
        rank,
        dims,
        strides,
        boxdim,
        estrides,
        elem,
        interleave,
        swizzle,
        atom,
        fill_nan: fill == 1,
        im2col,
    })
}

/// A field `tensormap.replace` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    GlobalAddress,
    Rank,
    BoxDim,
    GlobalDim,
    GlobalStride,
    ElementStride,
    ElemType,
    Interleave,
    SwizzleMode,
    SwizzleAtomicity,
    FillMode,
}

impl Field {
    pub fn from_dot(m: &str) -> Option<Field> {
        use Field::*;
        Some(match m {
            ".global_address" => GlobalAddress,
            ".rank" => Rank,
            ".box_dim" => BoxDim,
            ".global_dim" => GlobalDim,
            ".global_stride" => GlobalStride,
            ".element_stride" => ElementStride,
            ".elemtype" => ElemType,
            ".interleave_layout" => Interleave,
            ".swizzle_mode" => SwizzleMode,
            ".swizzle_atomicity" => SwizzleAtomicity,
            ".fill_mode" => FillMode,
            _ => return None,
        })
    }
}

/// `tensormap.replace`: writes `val` into field `f` (ordinal `ord` for the per-dimension
/// fields) of the map. Values are stored as given (`.rank` is the rank minus one, as the
/// instruction takes it); the ranges are checked when a copy decodes the map. A value wider
/// than the field's storage, or an ordinal beyond the rank limit, is an error here.
pub fn replace(b: &mut [u8; TMAP_BYTES], f: Field, ord: u64, val: u64) -> Result<(), String> {
    use Field::*;
    let ord_max = match f {
        GlobalStride => MAX_RANK - 1,
        BoxDim | GlobalDim | ElementStride => MAX_RANK,
        _ => 1,
    } as u64;
    if ord >= ord_max {
        return Err(format!("ordinal {ord} (below {ord_max})"));
    }
    let o = ord as usize;
    let (off, width) = match f {
        GlobalAddress => (OFF_ADDR, 8),
        Rank => (OFF_RANK, 1),
        BoxDim => (OFF_BOX + 2 * o, 2),
        GlobalDim => (OFF_DIM + 8 * o, 8),
        GlobalStride => (OFF_STRIDE + 8 * o, 8),
        ElementStride => (OFF_ESTRIDE + o, 1),
        ElemType => (OFF_ELEM, 1),
        Interleave => (OFF_INTERLEAVE, 1),
        SwizzleMode => (OFF_SWIZZLE, 1),
        SwizzleAtomicity => (OFF_ATOM, 1),
        FillMode => (OFF_FILL, 1),
    };
    if width < 8 && val >> (8 * width) != 0 {
        return Err(format!("value {val} does not fit the field"));
    }
    b[off..off + width].copy_from_slice(&val.to_le_bytes()[..width]);
    Ok(())
}

/// Replaces the global address (`cuTensorMapReplaceAddress`): it must keep the map's
/// alignment rule.
pub fn replace_address(b: &mut [u8; TMAP_BYTES], addr: u64) -> Result<(), String> {
    let align = if b[OFF_INTERLEAVE] == 2 { 32 } else { 16 };
    if !addr.is_multiple_of(align) {
        return Err(format!(
            "global address {addr:#x} is not {align}-byte aligned"
        ));
    }
    b[OFF_ADDR..OFF_ADDR + 8].copy_from_slice(&addr.to_le_bytes());
    Ok(())
}

/// The arguments of `cuTensorMapEncodeTiled` (in `CUtensorMap*` enum values).
#[derive(Debug, Clone, Default)]
pub struct Tiled<'a> {
    pub data_type: u32,
    pub addr: u64,
    pub dims: &'a [u64],
    /// Strides of dimensions 1..rank, in bytes (`rank - 1` of them).
    pub strides: &'a [u64],
    pub boxdim: &'a [u32],
    pub estrides: &'a [u32],
    pub interleave: u32,
    pub swizzle: u32,
    pub l2: u32,
    pub fill: u32,
}

/// `cuTensorMapEncodeTiled`: the map's bytes, or which argument breaks the driver's rules.
pub fn encode_tiled(a: &Tiled) -> Result<[u8; TMAP_BYTES], String> {
    let rank = a.dims.len();
    if rank == 0 || rank > MAX_RANK {
        return Err(format!("tensorRank {rank} (1 to {MAX_RANK})"));
    }
    if a.strides.len() + 1 != rank || a.boxdim.len() != rank || a.estrides.len() != rank {
        return Err("globalStrides needs rank-1 entries, boxDim and elementStrides rank".into());
    }
    let elem = Elem::from_cuda(a.data_type)
        .ok_or_else(|| format!("tensorDataType {} is not supported (0 to 15)", a.data_type))?;
    if a.interleave > 2 {
        return Err(format!("interleave {} (0 to 2)", a.interleave));
    }
    if a.swizzle > 6 {
        return Err(format!("swizzle {} (0 to 6)", a.swizzle));
    }
    if a.l2 > 3 {
        return Err(format!("l2Promotion {} (0 to 3)", a.l2));
    }
    if a.fill > 1 {
        return Err(format!("oobFill {} (0 or 1)", a.fill));
    }
    // cuda.h: a 16U6_ALIGN16B map allows the swizzles NONE, 128B, 128B_ATOM_32B and (for
    // stores) 128B_ATOM_64B; a 16U4_ALIGN16B map NONE, 128B and 128B_ATOM_32B.
    let p16_swizzles: &[u32] = match elem {
        Elem::B6x16P32 => &[0, 3, 4, 6],
        Elem::B4x16P64 => &[0, 3, 4],
        _ => &[0, 1, 2, 3, 4, 5, 6],
    };
    if a.swizzle <= 6 && !p16_swizzles.contains(&a.swizzle) {
        return Err(format!(
            "swizzle {} is not allowed with tensorDataType {}",
            a.swizzle, a.data_type
        ));
    }
    // CU_TENSOR_MAP_SWIZZLE_128B_ATOM_*: 128-byte span, 32/32+flip/64-byte atoms.
    let (mode, atom) = match a.swizzle {
        s @ 0..=3 => (s as u8, 0u8),
        s => (3, (s - 3) as u8),
    };
    let mut b = [0u8; TMAP_BYTES];
    b[OFF_ADDR..OFF_ADDR + 8].copy_from_slice(&a.addr.to_le_bytes());
    for i in 0..rank {
        b[OFF_DIM + 8 * i..OFF_DIM + 8 * i + 8].copy_from_slice(&a.dims[i].to_le_bytes());
        if i > 0 {
            let o = OFF_STRIDE + 8 * (i - 1);
            b[o..o + 8].copy_from_slice(&a.strides[i - 1].to_le_bytes());
        }
        let bx = u16::try_from(a.boxdim[i])
            .map_err(|_| format!("boxDim[{i}] is {} (1 to 256)", a.boxdim[i]))?;
        b[OFF_BOX + 2 * i..OFF_BOX + 2 * i + 2].copy_from_slice(&bx.to_le_bytes());
        b[OFF_ESTRIDE + i] = u8::try_from(a.estrides[i])
            .map_err(|_| format!("elementStrides[{i}] is {} (1 to 8)", a.estrides[i]))?;
    }
    b[OFF_RANK] = (rank - 1) as u8;
    b[OFF_ELEM] = elem as u8;
    b[OFF_INTERLEAVE] = a.interleave as u8;
    b[OFF_SWIZZLE] = mode;
    b[OFF_ATOM] = atom;
    b[OFF_FILL] = a.fill as u8;
    b[OFF_L2] = a.l2 as u8;
    // The encoder accepts what the driver accepts; the atom-size swizzles are valid maps that
    // ptxvm's copies do not model, so they pass here and fault when a copy uses them.
    let mut check = b;
    check[OFF_ATOM] = 0;
    decode(&check).map_err(|e| {
        // Name the driver's arguments rather than the map's fields where they differ.
        e.replace("global stride", "globalStrides")
            .replace("global dimension", "globalDim")
            .replace("box dimension", "boxDim")
            .replace("element stride", "elementStrides")
    })?;
    Ok(b)
}

/// The arguments of `cuTensorMapEncodeIm2col` (in `CUtensorMap*` enum values).
#[derive(Debug, Clone, Default)]
pub struct Im2col<'a> {
    pub data_type: u32,
    pub addr: u64,
    pub dims: &'a [u64],
    pub strides: &'a [u64],
    /// `pixelBoxLowerCorner`/`UpperCorner`: rank − 2 offsets each ({D, H, W} order of the
    /// spatial dimensions, as the driver takes them).
    pub lower: &'a [i32],
    pub upper: &'a [i32],
    pub channels: u32,
    pub pixels: u32,
    pub estrides: &'a [u32],
    pub interleave: u32,
    pub swizzle: u32,
    pub l2: u32,
    pub fill: u32,
}

/// `cuTensorMapEncodeIm2col`: the map's bytes, or which argument breaks the driver's rules.
pub fn encode_im2col(a: &Im2col) -> Result<[u8; TMAP_BYTES], String> {
    let rank = a.dims.len();
    if !(3..=MAX_RANK).contains(&rank) {
        return Err(format!("tensorRank {rank} (3 to 5 for im2col)"));
    }
    if a.lower.len() != rank - 2 || a.upper.len() != rank - 2 {
        return Err("pixelBoxLowerCorner and pixelBoxUpperCorner need rank-2 entries".into());
    }
    let lim = [1i32 << 15, 1 << 7, 1 << 4][rank - 3];
    for (what, c) in [
        ("pixelBoxLowerCorner", a.lower),
        ("pixelBoxUpperCorner", a.upper),
    ] {
        if let Some(v) = c.iter().find(|&&v| v < -lim || v >= lim) {
            return Err(format!(
                "{what} offset {v} is outside [{}, {}] for rank {rank}",
                -lim,
                lim - 1
            ));
        }
    }
    // The bounding box along each spatial dimension runs from the lower corner to the
    // dimension's end plus the upper corner: it must not be empty.
    for i in 0..rank - 2 {
        let d = i64::try_from(a.dims[rank - 2 - i]).unwrap_or(i64::MAX);
        if d.saturating_add(i64::from(a.upper[i])) - i64::from(a.lower[i]) <= 0 {
            return Err("the pixel bounding box has zero area".into());
        }
    }
    if a.channels == 0 || a.channels > 256 {
        return Err(format!("channelsPerPixel {} (1 to 256)", a.channels));
    }
    if a.pixels == 0 || a.pixels > 1024 {
        return Err(format!("pixelsPerColumn {} (1 to 1024)", a.pixels));
    }
    // Everything else follows the tiled rules with a box of one pixel of `channels`.
    let mut boxdim = [1u32; MAX_RANK];
    boxdim[0] = a.channels;
    let mut b = encode_tiled(&Tiled {
        data_type: a.data_type,
        addr: a.addr,
        dims: a.dims,
        strides: a.strides,
        boxdim: &boxdim[..rank],
        estrides: a.estrides,
        interleave: a.interleave,
        swizzle: a.swizzle,
        l2: a.l2,
        fill: a.fill,
    })
    .map_err(|e| {
        e.replace("boxDim 0", "channelsPerPixel").replace(
            "the box's inner dimension",
            "channelsPerPixel × the element size",
        )
    })?;
    b[OFF_BOX..OFF_BOX + 2 * MAX_RANK].fill(0);
    b[OFF_MODE] = 1;
    for i in 0..rank - 2 {
        b[OFF_LOWER + 2 * i..OFF_LOWER + 2 * i + 2]
            .copy_from_slice(&(a.lower[i] as i16).to_le_bytes());
        b[OFF_UPPER + 2 * i..OFF_UPPER + 2 * i + 2]
            .copy_from_slice(&(a.upper[i] as i16).to_le_bytes());
    }
    b[OFF_CHANNELS..OFF_CHANNELS + 2].copy_from_slice(&(a.channels as u16).to_le_bytes());
    b[OFF_PIXELS..OFF_PIXELS + 2].copy_from_slice(&(a.pixels as u16).to_le_bytes());
    Ok(b)
}

/// The arguments of `cuTensorMapEncodeIm2colWide` (in `CUtensorMap*` enum values).
#[derive(Debug, Clone, Default)]
pub struct Im2colWide<'a> {
    pub data_type: u32,
    pub addr: u64,
    pub dims: &'a [u64],
    pub strides: &'a [u64],
    /// `pixelBoxLowerCornerWidth`/`UpperCornerWidth`.
    pub lower: i32,
    pub upper: i32,
    pub channels: u32,
    pub pixels: u32,
    pub estrides: &'a [u32],
    pub interleave: u32,
    /// `CUtensorMapIm2ColWideMode`: 0 W, 1 W128.
    pub mode: u32,
    pub swizzle: u32,
    pub l2: u32,
    pub fill: u32,
}

/// `cuTensorMapEncodeIm2colWide`: the map's bytes, or which argument breaks the driver's
/// rules (`cuda.h`: the ordinary im2col rules with one W corner each in [-32768, 32767], no
/// interleave, a 64- or 128-byte swizzle, pixels per column at most 1024 and ignored in W128
/// mode).
pub fn encode_im2col_wide(a: &Im2colWide) -> Result<[u8; TMAP_BYTES], String> {
    let rank = a.dims.len();
    if !(3..=MAX_RANK).contains(&rank) {
        return Err(format!("tensorRank {rank} (3 to 5 for im2col)"));
    }
    let wide = match a.mode {
        0 => Wide::W,
        1 => Wide::W128,
        m => {
            return Err(format!(
                "mode {m} (CU_TENSOR_MAP_IM2COL_WIDE_MODE_W or _W128)"
            ));
        }
    };
    for (what, v) in [
        ("pixelBoxLowerCornerWidth", a.lower),
        ("pixelBoxUpperCornerWidth", a.upper),
    ] {
        if i16::try_from(v).is_err() {
            return Err(format!("{what} {v} is outside [-32768, 32767]"));
        }
    }
    let w = i64::try_from(a.dims[1]).unwrap_or(i64::MAX);
    if w.saturating_add(i64::from(a.upper)) - i64::from(a.lower) <= 0 {
        return Err("the pixel bounding box has zero area".into());
    }
    if a.interleave != 0 {
        return Err(
            "interleave must be CU_TENSOR_MAP_INTERLEAVE_NONE for a wide im2col map".into(),
        );
    }
    if a.swizzle < 2 {
        return Err(format!(
            "swizzle {} (a wide im2col map needs the 64B or 128B swizzle)",
            a.swizzle
        ));
    }
    if wide == Wide::W && (a.pixels == 0 || a.pixels > 1024) {
        return Err(format!("pixelsPerColumn {} (1 to 1024)", a.pixels));
    }
    let spatial = rank - 2;
    let (mut lower, mut upper) = (vec![0i32; spatial], vec![0i32; spatial]);
    // The W corner's place in the driver's {D, H, W} order.
    lower[spatial - 1] = a.lower;
    upper[spatial - 1] = a.upper;
    // The ordinary im2col rules (with zero corners: the W corners have their own range),
    // then the wide fields.
    let zeros = vec![0i32; spatial];
    let mut b = encode_im2col(&Im2col {
        data_type: a.data_type,
        addr: a.addr,
        dims: a.dims,
        strides: a.strides,
        lower: &zeros,
        upper: &zeros,
        channels: a.channels,
        pixels: 1,
        estrides: a.estrides,
        interleave: a.interleave,
        swizzle: a.swizzle,
        l2: a.l2,
        fill: a.fill,
    })?;
    b[OFF_MODE] = if wide == Wide::W { 2 } else { 3 };
    let pixels = if wide == Wide::W { a.pixels as u16 } else { 0 };
    b[OFF_PIXELS..OFF_PIXELS + 2].copy_from_slice(&pixels.to_le_bytes());
    for j in 0..spatial {
        b[OFF_LOWER + 2 * j..OFF_LOWER + 2 * j + 2]
            .copy_from_slice(&(lower[j] as i16).to_le_bytes());
        b[OFF_UPPER + 2 * j..OFF_UPPER + 2 * j + 2]
            .copy_from_slice(&(upper[j] as i16).to_le_bytes());
    }
    Ok(b)
}

/// The index of every element of a box of `extents` (dimension 0 fastest), by visitor: `k`
/// is the element's position along each dimension. Stops at the first error.
pub fn for_each_box<E>(
    rank: usize,
    extents: &[u64; MAX_RANK],
    mut f: impl FnMut(&[u64; MAX_RANK]) -> Result<(), E>,
) -> Result<(), E> {
    let mut k = [0u64; MAX_RANK];
    if (0..rank).any(|i| extents[i] == 0) {
        return Ok(());
    }
    loop {
        f(&k)?;
        let mut i = 0;
        loop {
            if i == rank {
                return Ok(());
            }
            k[i] += 1;
            if k[i] < extents[i] {
                break;
            }
            k[i] = 0;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiled(dims: &[u64], strides: &[u64], boxdim: &[u32], swizzle: u32) -> Tiled<'static> {
        Tiled {
            data_type: 7,
            addr: 0x1000,
            dims: Box::leak(dims.to_vec().into_boxed_slice()),
            strides: Box::leak(strides.to_vec().into_boxed_slice()),
            boxdim: Box::leak(boxdim.to_vec().into_boxed_slice()),
            estrides: Box::leak(vec![1; dims.len()].into_boxed_slice()),
            swizzle,
            ..Default::default()
        }
    }

    #[test]
    fn encode_decode_round_trip() {
        let b = encode_tiled(&tiled(&[64, 32], &[256], &[32, 8], 3)).unwrap();
        let m = decode(&b).unwrap();
        assert_eq!(m.rank, 2);
        assert_eq!(m.dims[..2], [64, 32]);
        assert_eq!(m.strides[..2], [4, 256]);
        assert_eq!(m.box_bytes(), 32 * 8 * 4);
        assert_eq!(m.elem, Elem::F32);
    }

    #[test]
    fn zeroed_map_plus_replace_is_valid() {
        let mut b = [0u8; TMAP_BYTES];
        replace(&mut b, Field::GlobalAddress, 0, 0x2000).unwrap();
        replace(&mut b, Field::Rank, 0, 1).unwrap();
        replace(&mut b, Field::BoxDim, 0, 32).unwrap();
        replace(&mut b, Field::BoxDim, 1, 16).unwrap();
        replace(&mut b, Field::GlobalDim, 0, 100).unwrap();
        replace(&mut b, Field::GlobalDim, 1, 7).unwrap();
        replace(&mut b, Field::GlobalStride, 0, 400).unwrap();
        replace(&mut b, Field::ElementStride, 0, 1).unwrap();
        replace(&mut b, Field::ElementStride, 1, 1).unwrap();
        replace(&mut b, Field::ElemType, 0, 7).unwrap();
        replace(&mut b, Field::SwizzleMode, 0, 3).unwrap();
        let m = decode(&b).unwrap();
        assert_eq!(
            (m.rank, m.dims[0], m.dims[1], m.strides[1]),
            (2, 100, 7, 400)
        );
        // Without the element strides the map is invalid.
        let mut c = b;
        replace(&mut c, Field::ElementStride, 1, 0).unwrap();
        assert!(decode(&c).unwrap_err().contains("element stride 1"));
        assert!(replace(&mut c, Field::BoxDim, 5, 1).is_err());
        assert!(replace(&mut c, Field::ElementStride, 0, 256).is_err());
    }

    #[test]
    fn driver_rules() {
        assert!(encode_tiled(&tiled(&[64, 32], &[250], &[32, 8], 0)).is_err());
        assert!(encode_tiled(&tiled(&[64, 32], &[256], &[3, 8], 0)).is_err());
        assert!(encode_tiled(&tiled(&[64, 32], &[256], &[64, 8], 3)).is_err());
        assert!(encode_tiled(&tiled(&[64, 32], &[256], &[32, 257], 0)).is_err());
        assert!(encode_tiled(&tiled(&[], &[], &[], 0)).is_err());
        let mut t = tiled(&[64, 32], &[256], &[32, 8], 0);
        t.addr = 0x1008;
        assert!(encode_tiled(&t).is_err());
        t.addr = 0x1000;
        t.data_type = 9;
        t.fill = 1;
        assert_eq!(decode(&encode_tiled(&t).unwrap()).unwrap().elem, Elem::Bf16);
        t.data_type = 2;
        assert!(encode_tiled(&t).is_err());
    }

    #[test]
    fn tf32_and_ftz_loads() {
        let t = |e: Elem, b: u32| e.load_bits(u64::from(b)) as u32;
        assert_eq!(t(Elem::Tf32, 0x3f80_0fff), 0x3f80_0000);
        assert_eq!(t(Elem::Tf32, 0x3f80_1000), 0x3f80_0000);
        assert_eq!(t(Elem::Tf32, 0x3f80_3000), 0x3f80_4000);
        assert_eq!(t(Elem::Tf32, 0x7f7f_ffff), 0x7f80_0000);
        assert_eq!(t(Elem::Tf32, 0x7fc0_0001), 0x7fc0_0001);
        assert_eq!(t(Elem::F32Ftz, 0x8040_0000), 0x8000_0000);
        assert_eq!(t(Elem::F32Ftz, 0x3f80_0fff), 0x3f80_0fff);
        assert_eq!(t(Elem::Tf32Ftz, 0x0000_1fff), 0);
        assert_eq!(t(Elem::F32, 0x0000_1fff), 0x1fff);
    }

    #[test]
    fn im2col_encoder_rules() {
        let dims = [16u64, 8, 8, 2];
        let strides = [32u64, 256, 2048];
        let mut a = Im2col {
            data_type: 6,
            addr: 0x1000,
            dims: &dims,
            strides: &strides,
            lower: &[-1, -1],
            upper: &[1, 1],
            channels: 16,
            pixels: 64,
            estrides: &[1, 1, 1, 1],
            ..Default::default()
        };
        let b = encode_im2col(&a).unwrap();
        let m = decode(&b).unwrap();
        let ib = m.im2col.unwrap();
        assert_eq!(
            (ib.lower, ib.upper, ib.channels, ib.pixels),
            ([-1, -1, 0], [1, 1, 0], 16, 64)
        );
        assert_eq!(m.box_bytes(), 16 * 64 * 2);
        a.lower = &[-200, 0];
        assert!(encode_im2col(&a).unwrap_err().contains("[-128, 127]"));
        a.lower = &[-1, -1];
        a.channels = 300;
        assert!(encode_im2col(&a).is_err());
        a.channels = 4;
        assert!(encode_im2col(&a).unwrap_err().contains("channelsPerPixel"));
    }

    #[test]
    fn im2col_wide_encoder_and_walk() {
        // NWC f32: 16 channels, W 5, N 2; W corners [-1, 5 + 0), W stride 2.
        let dims = [16u64, 5, 2];
        let strides = [64u64, 320];
        let mut a = Im2colWide {
            data_type: 7,
            addr: 0x1000,
            dims: &dims,
            strides: &strides,
            lower: -1,
            upper: 0,
            channels: 4,
            pixels: 5,
            estrides: &[1, 2, 1],
            swizzle: 2,
            ..Default::default()
        };
        let m = decode(&encode_im2col_wide(&a).unwrap()).unwrap();
        let ib = m.im2col.unwrap();
        assert_eq!(
            (ib.lower, ib.upper, ib.pixels, ib.wide),
            ([-1, 0, 0], [0, 0, 0], 5, Some(Wide::W))
        );
        // 5 pixels + 1 halo from W = -1 (wOffset 0): W -1, 1, 3, then N 1 from -1.
        let mut seen = Vec::new();
        m.for_each_im2col_wide(&[0, -1, 0, 0, 0], 1, 0, |g| {
            if g[0] == 0 {
                seen.push((g[2], g[1]));
            }
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(seen, [(0, -1), (0, 1), (0, 3), (1, -1), (1, 1), (1, 3)]);
        assert_eq!(m.load_bytes(&[1, 0, 0]), 6 * 4 * 4);
        a.mode = 1;
        a.pixels = 0;
        let m = decode(&encode_im2col_wide(&a).unwrap()).unwrap();
        assert_eq!(m.im2col.unwrap().pixels, 128);
        a.swizzle = 0;
        assert!(encode_im2col_wide(&a).unwrap_err().contains("swizzle"));
        a.swizzle = 2;
        a.lower = 40000;
        assert!(
            encode_im2col_wide(&a)
                .unwrap_err()
                .contains("[-32768, 32767]")
        );
    }

    #[test]
    fn swizzle_exchanges_bits() {
        let b = encode_tiled(&tiled(&[64, 32], &[256], &[32, 8], 3)).unwrap();
        let m = decode(&b).unwrap();
        // Row 1 (offset 128), chunk 0 -> chunk 1.
        assert_eq!(m.shared_addr(0x400, 128), 0x400 + 128 + 16);
        assert_eq!(m.shared_addr(0x400, 7 * 128 + 16), 0x400 + 7 * 128 + 6 * 16);
        // 128B_ATOM_32B: 32-byte chunk index ^= row % 4 (row 3, chunk 1 -> chunk 2).
        let b = encode_tiled(&tiled(&[64, 32], &[256], &[32, 8], 4)).unwrap();
        let m = decode(&b).unwrap();
        assert_eq!(
            m.shared_addr(0x400, 3 * 128 + 32 + 5),
            0x400 + 3 * 128 + 64 + 5
        );
        assert_eq!(m.shared_addr(0x400, 4 * 128 + 32), 0x400 + 4 * 128 + 32);
    }

    #[test]
    fn packed_units_and_rules() {
        let t = |dt: u32, dims: &[u64], strides: &[u64], boxdim: &[u32], addr: u64| Tiled {
            data_type: dt,
            addr,
            ..tiled(dims, strides, boxdim, 0)
        };
        // 16U6_ALIGN16B: 16 values = 12 global bytes in a 16-byte shared slot.
        let m =
            decode(&encode_tiled(&t(15, &[256, 4], &[192], &[128, 2], 0x1000)).unwrap()).unwrap();
        assert_eq!(m.elem, Elem::B6x16P32);
        assert_eq!(m.box_bytes(), 2 * 8 * 12);
        assert_eq!(m.global_addr(&[32, 1, 0, 0, 0]), Some(0x1000 + 192 + 24));
        assert_eq!(m.global_addr(&[256, 1, 0, 0, 0]), None);
        // 16U4_ALIGN8B: two values a byte.
        let m = decode(&encode_tiled(&t(13, &[64, 2], &[32], &[32, 2], 0x1000)).unwrap()).unwrap();
        assert_eq!(m.box_bytes(), 32);
        assert_eq!(m.global_addr(&[6, 1, 0, 0, 0]), Some(0x1000 + 32 + 3));
        // The driver's rules.
        assert!(encode_tiled(&t(14, &[256, 4], &[128], &[64, 2], 0x1000)).is_err());
        assert!(encode_tiled(&t(14, &[256, 4], &[128], &[128, 2], 0x1010)).is_err());
        assert!(encode_tiled(&t(15, &[256, 4], &[208], &[128, 2], 0x1000)).is_err());
        assert!(encode_tiled(&t(13, &[65, 2], &[48], &[32, 2], 0x1000)).is_err());
    }
}
