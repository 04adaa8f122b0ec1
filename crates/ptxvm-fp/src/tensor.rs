//! Tensor-core arithmetic (`mma`, `wmma.mma`, `wgmma.mma_async`): the measured model of
//! `shared/spec/tensor-core-arithmetic.md`, bit for bit per GPU generation.
//!
//! The PTX ISA leaves the accumulation order, rounding and subnormal handling of the
//! floating-point matrix instructions open; real GPUs are deterministic, and every NVIDIA
//! generation studied computes each element of D with the *truncated fused dot-product-add*
//! (T-FDPA) over blocks of `L` products, parameterised by `F` (fraction bits kept after
//! aligning every addend to the largest exponent), `L`, the zero exponent `e0` and the
//! output rounding ([`TcOut`]). [`TcArch::fdpa`] is the one table of those parameters;
//! `ptxvm-vm`'s device models (`arch.rs`) name a [`TcArch`] per GPU.
//!
//! Everything is exact integer arithmetic: an operand is `(sign, integer significand,
//! exponent)`; aligned addends are truncated toward zero in magnitude (shifts of 64 or more
//! give 0) and summed exactly in an `i64`; one rounding per block produces the output
//! format through [`crate::convert::round_pack`].
//!
//! Conventions: operand and accumulator bits are passed as `u32` (f16/bf16 and the fp8/fp6/
//! fp4 codes in the low bits; tf32 is the whole 32-bit register, of which the top 19 bits
//! are used); results are `u32` (an f16 result in the low 16 bits). NaN results are the
//! canonical `0x7fffffff` / `0x7fff`; a zero result is `+0`; overflow gives `±inf` even
//! under round-toward-zero.
//!
//! Also here: `.f64` (sequential IEEE fma in k order, [`dot_f64`]), and the exact integer
//! and single-bit forms ([`dot_int`], [`dot_b1`]).

use crate::Rnd;
use crate::convert::{Format, Special, Val, round_pack, unpack};

/// Floating-point element types of the A and B operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TcType {
    F16,
    Bf16,
    /// `.tf32`: a 32-bit register of which the top 19 bits (1-8-10) are used.
    Tf32,
    E4m3,
    E5m2,
    E3m2,
    E2m3,
    E2m1,
}

/// The f32-stored accumulator with 13 fraction bits (fp8 on sm_89, fp8 `wgmma`).
const E8M13: Format = Format {
    exp_bits: 8,
    man_bits: 13,
    special: Special::Ieee,
};

impl TcType {
    /// The value format.
    pub fn format(self) -> Format {
        match self {
            TcType::F16 => Format::F16,
            TcType::Bf16 => Format::BF16,
            TcType::Tf32 => Format::TF32,
            TcType::E4m3 => Format::E4M3,
            TcType::E5m2 => Format::E5M2,
            TcType::E3m2 => Format::E3M2,
            TcType::E2m3 => Format::E2M3,
            TcType::E2m1 => Format::E2M1,
        }
    }

    /// Bits per element in the registers of `mma` (the fp6/fp4 types of
    /// `.kind::f8f6f4` each take a byte).
    pub fn bits(self) -> u32 {
        match self {
            TcType::Tf32 => 32,
            TcType::F16 | TcType::Bf16 => 16,
            _ => 8,
        }
    }

    /// Decodes one element from its own encoding (`bits` right-aligned; for `.tf32` the
    /// whole register, whose low 13 bits are ignored).
    pub fn decode(self, bits: u32) -> Num {
        let f = self.format();
        let b = match self {
            TcType::Tf32 => bits >> 13,
            _ => bits & ((1u32 << f.width()) - 1),
        };
        Num::from_val(f, unpack(f, b as u64))
    }
}

/// Types of the C and D operands of floating-point forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccType {
    F16,
    F32,
}

impl AccType {
    fn format(self) -> Format {
        match self {
            AccType::F16 => Format::F16,
            AccType::F32 => Format::F32,
        }
    }

    /// Decodes an accumulator value (f16 in the low 16 bits).
    pub fn decode(self, bits: u32) -> Num {
        let f = self.format();
        let b = match self {
            AccType::F16 => bits & 0xffff,
            AccType::F32 => bits,
        };
        Num::from_val(f, unpack(f, b as u64))
    }
}

/// The rounding of a block's result into the output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TcOut {
    /// f32, round toward zero (overflow still gives ±inf).
    F32,
    /// f32 truncated to 13 fraction bits (round toward zero; quantum
    /// `2^(max(floor(log2|v|), -126) - 13)`): fp8 on sm_89 and fp8 `wgmma`.
    F32E8M13,
    /// f16, round to nearest even.
    F16,
}

impl TcOut {
    /// The D type this rounding produces.
    pub fn acc(self) -> AccType {
        match self {
            TcOut::F16 => AccType::F16,
            _ => AccType::F32,
        }
    }
}

/// An exactly decoded operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Num {
    Nan,
    Inf(bool),
    /// `(-1)^neg * sig * 2^exp` (`sig` may be 0) with alignment exponent `e`: the exponent
    /// of the leading bit for a normal number, the format's minimum normal exponent for a
    /// subnormal one (so `sig * 2^exp / 2^e` is in `[1, 2)` or `[0, 1)`).
    Fin {
        neg: bool,
        sig: u64,
        exp: i32,
        e: i32,
    },
}

impl Num {
    /// Positive zero.
    pub const ZERO: Num = Num::Fin {
        neg: false,
        sig: 0,
        exp: 0,
        e: 0,
    };

    fn from_val(f: Format, v: Val) -> Num {
        match v {
            Val::Nan => Num::Nan,
            Val::Inf(n) => Num::Inf(n),
            Val::Zero(n) => Num::Fin {
                neg: n,
                sig: 0,
                exp: 0,
                e: 0,
            },
            Val::Fin { neg, sig, exp } => {
                let e = if sig >> f.man_bits != 0 {
                    exp + f.man_bits as i32
                } else {
                    f.emin()
                };
                Num::Fin { neg, sig, exp, e }
            }
        }
    }
}

/// The model of one floating-point matrix instruction on one GPU generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fdpa {
    /// F: fraction bits kept after alignment to the largest exponent (truncation).
    pub frac: u32,
    /// L: products fused per block; K is processed as consecutive blocks of L (k
    /// ascending), C being an addend of the first block and each block's rounded result
    /// the C of the next.
    pub block: usize,
    /// e0: the alignment exponent of a zero addend (a zero product or C = 0).
    pub e0: i32,
    /// The rounding of every block result; also decides the D type.
    pub out: TcOut,
    /// The sm_90/sm_100 fp8 `mma.sync` pattern: one block of the products with
    /// `k mod 4 ∈ {0,1}` from +0, a second of the others fed with the first's result,
    /// then one round-to-nearest addition of C in the output format.
    pub interleave: bool,
}

/// The tensor-core generations whose arithmetic differs (`ptxvm-vm`'s `GpuModel::tensor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TcArch {
    /// sm_70 (V100).
    Volta,
    /// sm_75 (T4).
    Turing,
    /// sm_80, sm_86, sm_87 (A100, A2, A40).
    Ampere,
    /// sm_89 (RTX Ada, L40S).
    Ada,
    /// sm_90/sm_90a (H100, H200).
    Hopper,
    /// sm_100/sm_100a (B200); also the B300 (sm_103a) and Thor (sm_110a) models.
    Blackwell,
    /// sm_120/sm_120a (RTX 50 series, RTX PRO 6000).
    RtxBlackwell,
}

/// Which instruction performs the product (the hardware path differs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TcInst {
    /// `mma.sync` and `wmma.mma` (`m8n8k4` is [`TcInst::MmaM8n8k4`]).
    Mma,
    /// `mma.sync.m8n8k4` with f16 inputs (Volta's HMMA.884).
    MmaM8n8k4,
    /// `wgmma.mma_async` (sm_90a): one block over the instruction's whole K.
    Wgmma,
    /// `tcgen05.mma` (sm_100a): one block per 32 bytes of A.
    Tcgen05,
}

impl TcArch {
    /// e0 for f16 and f32 outputs.
    pub fn e0(self, out: AccType) -> i32 {
        let (h, s) = match self {
            TcArch::Volta => (-19, -131),
            TcArch::Turing | TcArch::Ampere | TcArch::Ada => (-20, -132),
            TcArch::Hopper | TcArch::Blackwell | TcArch::RtxBlackwell => (-21, -133),
        };
        match out {
            AccType::F16 => h,
            AccType::F32 => s,
        }
    }

    /// The model of a floating-point matrix instruction with K = `k`, A/B type `ab` and D
    /// type `d` on this generation (spec §0 table). Forms a generation does not have get
    /// the closest documented choice (§7.6: `m8n8k4.f16` on sm_80+ = the generation's F
    /// with one block of 4; fp8 `m16n8k16` on sm_90/sm_100 = the interleaved pattern).
    pub fn fdpa(self, inst: TcInst, k: usize, ab: TcType, d: AccType) -> Fdpa {
        let fp8 = matches!(
            ab,
            TcType::E4m3 | TcType::E5m2 | TcType::E3m2 | TcType::E2m3 | TcType::E2m1
        );
        let plain = match d {
            AccType::F16 => TcOut::F16,
            AccType::F32 => TcOut::F32,
        };
        let e8m13 = match d {
            AccType::F16 => TcOut::F16,
            AccType::F32 => TcOut::F32E8M13,
        };
        let mk = |frac: u32, block: usize, out: TcOut| Fdpa {
            frac,
            block: block.max(1),
            e0: self.e0(d),
            out,
            interleave: false,
        };
        // Elements per 32 bytes of A (tcgen05, sm_120).
        let per32 = (256 / ab.bits()) as usize;
        match inst {
            TcInst::Wgmma if fp8 => mk(13, k, e8m13),
            TcInst::Wgmma => mk(25, k, plain),
            TcInst::Tcgen05 => mk(25, per32, plain),
            TcInst::MmaM8n8k4 => match self {
                // HMMA.884 on Volta and Turing (Turing keeps Volta's unit for this shape).
                TcArch::Volta | TcArch::Turing => Fdpa {
                    e0: TcArch::Volta.e0(d),
                    ..mk(23, 4, plain)
                },
                TcArch::Ampere | TcArch::Ada => mk(24, 4, plain),
                _ => mk(25, 4, plain),
            },
            TcInst::Mma => match self {
                TcArch::Volta => mk(23, 4, plain),
                TcArch::Turing => mk(24, 8, plain),
                TcArch::Ampere | TcArch::Ada => match ab {
                    _ if fp8 => mk(13, 16, e8m13),
                    TcType::Tf32 => mk(24, 4, plain),
                    _ => mk(24, 8, plain),
                },
                TcArch::Hopper | TcArch::Blackwell => match ab {
                    _ if fp8 => Fdpa {
                        interleave: true,
                        ..mk(25, 16, plain)
                    },
                    TcType::Tf32 => mk(25, 8, plain),
                    _ => mk(25, 16, plain),
                },
                TcArch::RtxBlackwell => mk(25, per32, plain),
            },
        }
    }
}

/// `sig << sh` for `sh >= 0`, `sig >> -sh` (truncation toward zero) otherwise; right
/// shifts past the width give 0. (Left shifts are small: every aligned addend is below
/// `2^(F+2)`.)
#[inline]
fn shift(sig: u128, sh: i32) -> u128 {
    if sh >= 0 {
        if sh >= 128 { 0 } else { sig << sh }
    } else if sh <= -128 {
        0
    } else {
        sig >> (-sh) as u32
    }
}

/// One T-FDPA block: `sum_i a[i]*b[i] + c` (the pairs from `prods`), rounded by `out`.
/// Returns the result bits in `out`'s D type.
fn block<'a>(
    prods: impl Iterator<Item = (&'a Num, &'a Num)> + Clone,
    c: Num,
    frac: u32,
    e0: i32,
    out: TcOut,
) -> u32 {
    // First pass: the special values and the largest alignment exponent (a zero or special
    // product counts as `e0`); the second sums the exact products.
    let (mut nan, mut pinf, mut ninf) = (false, false, false);
    let mut inf = |n: bool| {
        if n { ninf = true } else { pinf = true }
    };
    let mut emax = match c {
        Num::Fin { sig, e, .. } if sig != 0 => e,
        _ => e0,
    };
    for (x, y) in prods.clone() {
        match (*x, *y) {
            (Num::Nan, _) | (_, Num::Nan) => nan = true,
            (Num::Inf(s), Num::Inf(t)) => inf(s ^ t),
            (Num::Inf(s), Num::Fin { neg, sig, .. }) | (Num::Fin { neg, sig, .. }, Num::Inf(s)) => {
                if sig == 0 {
                    nan = true
                } else {
                    inf(s ^ neg)
                }
            }
            (Num::Fin { sig: s1, e: e1, .. }, Num::Fin { sig: s2, e: e2, .. })
                if s1 != 0 && s2 != 0 =>
            {
                emax = emax.max(e1 + e2);
                continue;
            }
            _ => {}
        }
        emax = emax.max(e0);
    }
    match c {
        Num::Nan => nan = true,
        Num::Inf(s) => inf(s),
        Num::Fin { .. } => {}
    }
    let acc = out.acc();
    if nan || (pinf && ninf) {
        return acc.format().canonical_nan() as u32;
    }
    if pinf || ninf {
        let f = acc.format();
        let bits = f.max_finite(ninf) + 1; // the next encoding after max finite is inf
        return bits as u32;
    }
    // Align to `emax`, truncate each magnitude to `frac` bits below it, sum exactly.
    let mut s: i64 = 0;
    for (x, y) in prods {
        if let (
            Num::Fin {
                neg: n1,
                sig: s1,
                exp: x1,
                ..
            },
            Num::Fin {
                neg: n2,
                sig: s2,
                exp: x2,
                ..
            },
        ) = (*x, *y)
        {
            // A zero product adds nothing (its shift is of 0).
            let t = shift((s1 * s2) as u128, x1 + x2 + frac as i32 - emax) as i64;
            s += if n1 ^ n2 { -t } else { t };
        }
    }
    if let Num::Fin { neg, sig, exp, .. } = c {
        let t = shift(sig as u128, exp + frac as i32 - emax) as i64;
        s += if neg { -t } else { t };
    }
    round_out(s < 0, s.unsigned_abs() as u128, emax - frac as i32, out)
}

/// Rounds `(-1)^neg * mag * 2^exp` to the output format (+0 for a zero result).
fn round_out(neg: bool, mag: u128, exp: i32, out: TcOut) -> u32 {
    if mag == 0 {
        return 0;
    }
    let top = exp + (127 - mag.leading_zeros() as i32);
    let bits = match out {
        TcOut::F32 | TcOut::F32E8M13 if top >= 128 => {
            // Overflow is ±inf even though the rounding is toward zero.
            if neg { 0xff80_0000 } else { 0x7f80_0000 }
        }
        TcOut::F32 => round_pack(Format::F32, neg, mag, exp, false, Rnd::Rz, false) as u32,
        TcOut::F32E8M13 => (round_pack(E8M13, neg, mag, exp, false, Rnd::Rz, false) as u32) << 10,
        TcOut::F16 => round_pack(Format::F16, neg, mag, exp, false, Rnd::Rn, false) as u32,
    };
    // A result that rounded to zero is +0.
    let sign = match out {
        TcOut::F16 => 0x8000,
        _ => 0x8000_0000,
    };
    if bits & !sign == 0 { 0 } else { bits }
}

/// One element of D of a floating-point `mma`: `sum_k a[k]*b[k] + c` under the model `p`.
/// `a`/`b` are the K operands of A's row and B's column (as [`TcType::decode`] takes
/// them), `c` the C element of type `ct` (it may differ from D's type for `m8n8k4`).
/// Returns D's bits (f16 in the low 16 bits).
pub fn mma_dot(p: &Fdpa, at: TcType, a: &[u32], bt: TcType, b: &[u32], ct: AccType, c: u32) -> u32 {
    let k = a.len().min(b.len());
    if k <= 64 {
        let mut an = [Num::ZERO; 64];
        let mut bn = [Num::ZERO; 64];
        for i in 0..k {
            an[i] = at.decode(a[i]);
            bn[i] = bt.decode(b[i]);
        }
        mma_dot_nums(p, &an[..k], &bn[..k], ct, c)
    } else {
        let an: Vec<Num> = a[..k].iter().map(|&x| at.decode(x)).collect();
        let bn: Vec<Num> = b[..k].iter().map(|&x| bt.decode(x)).collect();
        mma_dot_nums(p, &an, &bn, ct, c)
    }
}

/// [`mma_dot`] on operands already decoded ([`TcType::decode`]); an engine decodes each row
/// of A and column of B once per instruction.
pub fn mma_dot_nums(p: &Fdpa, a: &[Num], b: &[Num], ct: AccType, c: u32) -> u32 {
    mma_dot_nums_scaled(p, a, b, ct, c, 0)
}

/// [`mma_dot_nums`] with the addend scaled exactly by 2^-`c_scale` before it enters the sum
/// (`tcgen05.mma`'s scale-input-d: D = A.B + C * 2^-scale): C's exponent and alignment
/// exponent are lowered by the scale, so it is aligned and truncated with the products as any
/// addend of that value would be (a C made subnormal by the scale is not rounded first). The
/// sm_90/sm_100 fp8 path (`interleave`), which adds C separately, takes no scale.
pub fn mma_dot_nums_scaled(
    p: &Fdpa,
    a: &[Num],
    b: &[Num],
    ct: AccType,
    c: u32,
    c_scale: i32,
) -> u32 {
    let k = a.len().min(b.len());
    let (a, b) = (&a[..k], &b[..k]);
    let d = p.out.acc();
    if p.interleave {
        let lo = (0..k).filter(|i| i % 4 < 2).map(|i| (&a[i], &b[i]));
        let hi = (0..k).filter(|i| i % 4 >= 2).map(|i| (&a[i], &b[i]));
        let d1 = block(lo, Num::ZERO, p.frac, p.e0, p.out);
        let d2 = block(hi, d.decode(d1), p.frac, p.e0, p.out);
        return add_rn(d, d2, ct, c);
    }
    let l = p.block.max(1);
    let mut acc = match ct.decode(c) {
        Num::Fin { neg, sig, exp, e } if c_scale != 0 && sig != 0 => Num::Fin {
            neg,
            sig,
            exp: exp.saturating_sub(c_scale),
            e: e.saturating_sub(c_scale),
        },
        x => x,
    };
    if k == 0 {
        return block(a.iter().zip(b), acc, p.frac, p.e0, p.out);
    }
    let mut result = 0u32;
    for (ca, cb) in a.chunks(l).zip(b.chunks(l)) {
        result = block(ca.iter().zip(cb), acc, p.frac, p.e0, p.out);
        acc = d.decode(result);
    }
    result
}

/// `d2 + c` rounded to nearest even in D's type (the fp8 C addition of sm_90/sm_100).
fn add_rn(d: AccType, d2: u32, ct: AccType, c: u32) -> u32 {
    match d {
        AccType::F32 => {
            let cv = match ct {
                AccType::F32 => f32::from_bits(c),
                AccType::F16 => crate::convert::cvt_f16_to_f32(c as u16, false, false),
            };
            crate::arith::add_f32(f32::from_bits(d2), cv, Rnd::Rn, false, false).to_bits()
        }
        AccType::F16 => {
            let ch = match ct {
                AccType::F16 => c as u16,
                AccType::F32 => crate::convert::cvt_f32_to_f16(
                    f32::from_bits(c),
                    Rnd::Rn,
                    false,
                    false,
                    false,
                    false,
                ),
            };
            crate::half::add_f16(d2 as u16, ch, Rnd::Rn, false, false) as u32
        }
    }
}

/// `.f64` `mma`/`wmma`: `d = c; d = fma(a[k], b[k], d)` for k ascending, IEEE binary64 fma
/// under `rnd` (NaN results follow ptxvm's `fma.f64` rule).
pub fn dot_f64(a: &[f64], b: &[f64], c: f64, rnd: Rnd) -> f64 {
    a.iter()
        .zip(b)
        .fold(c, |d, (&x, &y)| crate::arith::fma_f64(x, y, d, rnd))
}

/// Integer element types of `mma`/`wmma`/`wgmma`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntType {
    S8,
    U8,
    S4,
    U4,
}

impl IntType {
    /// Bits per element.
    pub fn bits(self) -> u32 {
        match self {
            IntType::S8 | IntType::U8 => 8,
            IntType::S4 | IntType::U4 => 4,
        }
    }

    /// Element `i` of a 32-bit register holding `32 / bits` packed elements, lowest first
    /// (an index past the register gives 0).
    pub fn elem(self, word: u32, i: usize) -> i32 {
        let w = self.bits() as usize;
        if i >= 32 / w {
            return 0;
        }
        let raw = (word >> (i * w)) & ((1u32 << w) - 1);
        match self {
            IntType::U8 | IntType::U4 => raw as i32,
            IntType::S8 => raw as u8 as i8 as i32,
            IntType::S4 => ((raw << 28) as i32) >> 28,
        }
    }
}

/// Integer dot product: `c + sum a[k]*b[k]` computed exactly, then wrapped to 32 bits or,
/// with `.satfinite`, clamped once to `[i32::MIN, i32::MAX]`.
pub fn dot_int(a: &[i32], b: &[i32], c: i32, satfinite: bool) -> i32 {
    let s = a
        .iter()
        .zip(b)
        .fold(c as i64, |s, (&x, &y)| s + x as i64 * y as i64);
    if satfinite {
        s.clamp(i32::MIN as i64, i32::MAX as i64) as i32
    } else {
        s as i32
    }
}

/// The `.b1` bit operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BitOp {
    Xor,
    And,
}

/// Single-bit dot product: `c + popc(a OP b)` over the words of a row of A and a column
/// of B (wrapping).
pub fn dot_b1(a: &[u32], b: &[u32], c: i32, op: BitOp) -> i32 {
    a.iter().zip(b).fold(c, |s, (&x, &y)| {
        let v = match op {
            BitOp::Xor => x ^ y,
            BitOp::And => x & y,
        };
        s.wrapping_add(v.count_ones() as i32)
    })
}

// ---------------------------------------------------------------------------------------
// Block-scaled kinds (`.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4` with
// `.block_scale`): D = (A * scale_A) * (B * scale_B) + C. The model is MMA-Sim's
// (`shared/spec/tensor-core-arithmetic.md` §3, sm_100a/sm_120a, HW* only):
// - mxf8f6f4 (K = 32, one scale per row of A and column of B): one T-FDPA block of the 32
//   products and C, each product's exponent raised by the two scale exponents, F = 25,
//   e0 = −133, RZ to f32 ([`mma_dot_mx`]).
// - mxf4/mxf4nvf4 (K = 64, e2m1): the 16 products of each group summed exactly, the sum
//   multiplied exactly by its two scale factors and aligned at the sum of the two scales'
//   exponents; the groups and C fused with F = 35, e0 = −139, RZ to f32 ([`mma_dot_mxf4`]).

/// Scale-factor element types (`.stype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScaleType {
    /// `.ue8m0`: `2^(x − 127)`; `0xff` is NaN.
    Ue8m0,
    /// `.ue4m3`: an unsigned e4m3 (bit 7 ignored; `0x7f` is NaN).
    Ue4m3,
}

impl ScaleType {
    /// Decodes a scale factor from the low byte of `byte`.
    pub fn decode(self, byte: u32) -> Num {
        match self {
            ScaleType::Ue8m0 => {
                let x = (byte & 0xff) as i32;
                if x == 0xff {
                    Num::Nan
                } else {
                    Num::Fin {
                        neg: false,
                        sig: 1,
                        exp: x - 127,
                        e: x - 127,
                    }
                }
            }
            ScaleType::Ue4m3 => TcType::E4m3.decode(byte & 0x7f),
        }
    }
}

/// The f32 canonical NaN and infinities of the block-scaled forms' output.
const F32_NAN: u32 = 0x7fff_ffff;

/// `x * s` exactly (a finite scale factor `s`; a zero stays a zero, an infinity stays one).
fn scaled(x: Num, s: Num) -> Num {
    match (x, s) {
        (Num::Nan, _) | (_, Num::Nan) => Num::Nan,
        (
            Num::Fin { neg, sig, exp, e },
            Num::Fin {
                sig: ss,
                exp: se,
                e: sf,
                ..
            },
        ) => Num::Fin {
            neg,
            sig: sig * ss,
            exp: exp + se,
            e: e + sf,
        },
        (Num::Inf(n), _) => Num::Inf(n),
        // A scale is never infinite.
        (x, Num::Inf(_)) => x,
    }
}

/// One element of D of a `.kind::mxf8f6f4` block-scaled `mma` (f32 C and D): `a`/`b` the
/// K decoded operands of A's row and B's column, `sa`/`sb` their scale factors
/// ([`ScaleType::decode`]).
pub fn mma_dot_mx(a: &[Num], b: &[Num], sa: Num, sb: Num, c: u32) -> u32 {
    if matches!(sa, Num::Nan) || matches!(sb, Num::Nan) {
        return F32_NAN;
    }
    let k = a.len().min(b.len());
    let an: Vec<Num> = a[..k].iter().map(|&x| scaled(x, sa)).collect();
    let bn: Vec<Num> = b[..k].iter().map(|&x| scaled(x, sb)).collect();
    let p = Fdpa {
        frac: 25,
        block: k.max(1),
        e0: -133,
        out: TcOut::F32,
        interleave: false,
    };
    mma_dot_nums(&p, &an, &bn, AccType::F32, c)
}

/// The value of an e2m1 code times 2 (an integer in −12..=12).
fn e2m1_x2(code: u32) -> i64 {
    const MAG: [i64; 8] = [0, 1, 2, 3, 4, 6, 8, 12];
    let m = MAG[(code & 7) as usize];
    if code & 8 != 0 { -m } else { m }
}

/// One element of D of a `.kind::mxf4`/`.kind::mxf4nvf4` block-scaled `mma` (K = 64 e2m1,
/// f32 C and D): `a`/`b` the 4-bit codes of A's row and B's column, `sa`/`sb` the scale
/// factors of the row's and column's chunks (K / `sa.len()` elements each, lowest K
/// first), `c` C's bits.
pub fn mma_dot_mxf4(a: &[u32], b: &[u32], sa: &[Num], sb: &[Num], c: u32) -> u32 {
    const F: i32 = 35;
    const E0: i32 = -139;
    let k = a.len().min(b.len());
    let chunks = sa.len().min(sb.len());
    if chunks == 0 || k == 0 {
        return F32_NAN;
    }
    let cn = AccType::F32.decode(c);
    if sa.iter().chain(sb).any(|s| matches!(s, Num::Nan)) || matches!(cn, Num::Nan) {
        return F32_NAN;
    }
    if let Num::Inf(n) = cn {
        return if n { 0xff80_0000 } else { 0x7f80_0000 };
    }
    let chunk = k.div_ceil(chunks).max(1);
    // (signed magnitude, exponent of its unit, alignment exponent) per group of 16.
    let mut terms: Vec<(i128, i32, i32)> = Vec::with_capacity(k.div_ceil(16));
    for (g, (ga, gb)) in a[..k].chunks(16).zip(b[..k].chunks(16)).enumerate() {
        let s: i64 = ga
            .iter()
            .zip(gb)
            .map(|(&x, &y)| e2m1_x2(x) * e2m1_x2(y))
            .sum();
        let j = (g * 16 / chunk).min(chunks - 1);
        let (mut mag, mut unit, mut al) = (s as i128, -2, 0);
        for sc in [sa[j], sb[j]] {
            match sc {
                Num::Fin { sig, exp, e, .. } if sig != 0 => {
                    mag *= sig as i128;
                    unit += exp;
                    al += e;
                }
                _ => {
                    // A zero scale: the group is zero, aligned like a zero addend.
                    mag = 0;
                    al = E0;
                    break;
                }
            }
        }
        terms.push((mag, unit, al));
    }
    let (c_mag, c_unit, c_al) = match cn {
        Num::Fin { neg, sig, exp, e } if sig != 0 => {
            (if neg { -(sig as i128) } else { sig as i128 }, exp, e)
        }
        _ => (0, 0, E0),
    };
    let emax = terms.iter().map(|t| t.2).fold(c_al, i32::max);
    let mut sum: i128 = 0;
    for (mag, unit, _) in terms.iter().copied().chain([(c_mag, c_unit, c_al)]) {
        let t = shift(mag.unsigned_abs(), unit + F - emax) as i128;
        sum += if mag < 0 { -t } else { t };
    }
    round_out(sum < 0, sum.unsigned_abs(), emax - F, TcOut::F32)
}
