//! Half-precision instructions (§9.7.4) over `.f16`, `.f16x2`, `.bf16`, `.bf16x2`, all
//! through `ptxvm_fp::half` and `ptxvm_fp::convert`.

use ptxvm_fp::Rnd;
use ptxvm_fp::arith::{self as fa, CmpOp};
use ptxvm_fp::convert::{self as cv, Format};
use ptxvm_fp::half::{self as h, HalfMods, MinMaxMods};
use ptxvm_ir::types::Type;

/// Half-precision operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HOp {
    Add,
    Sub,
    Mul,
    Fma,
    FmaOob,
    Min,
    Max,
    Neg,
    Abs,
    Ex2,
    Tanh,
}

/// Modifiers of a half-precision instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HMods {
    pub rnd: Rnd,
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    pub nan: bool,
    pub xorsign_abs: bool,
}

/// Whether `ty` is one of the four half-precision types.
pub fn is_half(ty: Type) -> bool {
    matches!(ty, Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2)
}

fn x2(f: impl Fn(u16, u16, u16) -> u16, a: u64, b: u64, c: u64) -> u64 {
    let lo = f(a as u16, b as u16, c as u16) as u64;
    let hi = f((a >> 16) as u16, (b >> 16) as u16, (c >> 16) as u16) as u64;
    (hi << 16) | lo
}

/// Evaluates a half-precision operation (unused operands are ignored).
pub fn eval(op: HOp, ty: Type, m: HMods, a: u64, b: u64, c: u64) -> u64 {
    let bf = matches!(ty, Type::Bf16 | Type::Bf16x2);
    let pair = matches!(ty, Type::F16x2 | Type::Bf16x2);
    let hm = HalfMods {
        ftz: m.ftz,
        sat: m.sat,
        relu: m.relu,
    };
    let mm = MinMaxMods {
        ftz: m.ftz,
        nan: m.nan,
        xorsign_abs: m.xorsign_abs,
    };
    let one = |x: u16, y: u16, z: u16| -> u16 {
        match (op, bf) {
            (HOp::Add, false) => h::add_f16(x, y, m.rnd, m.ftz, m.sat),
            (HOp::Sub, false) => h::sub_f16(x, y, m.rnd, m.ftz, m.sat),
            (HOp::Mul, false) => h::mul_f16(x, y, m.rnd, m.ftz, m.sat),
            (HOp::Fma, false) => h::fma_f16(x, y, z, m.rnd, hm),
            (HOp::FmaOob, false) => h::fma_oob_f16(x, y, z, m.relu),
            (HOp::Min, false) => h::min_f16(x, y, mm),
            (HOp::Max, false) => h::max_f16(x, y, mm),
            (HOp::Neg, false) => h::neg_f16(x, m.ftz),
            (HOp::Abs, false) => h::abs_f16(x, m.ftz),
            (HOp::Ex2, false) => h::ex2_f16(x),
            (HOp::Tanh, false) => h::tanh_f16(x),
            (HOp::Add, true) => h::add_bf16(x, y, m.rnd),
            (HOp::Sub, true) => h::sub_bf16(x, y, m.rnd),
            (HOp::Mul, true) => h::mul_bf16(x, y, m.rnd),
            (HOp::Fma, true) => h::fma_bf16(x, y, z, m.rnd, m.relu),
            (HOp::FmaOob, true) => h::fma_oob_bf16(x, y, z, m.relu),
            (HOp::Min, true) => h::min_bf16(x, y, mm),
            (HOp::Max, true) => h::max_bf16(x, y, mm),
            (HOp::Neg, true) => h::neg_bf16(x),
            (HOp::Abs, true) => h::abs_bf16(x),
            (HOp::Ex2, true) => h::ex2_bf16(x, m.ftz),
            (HOp::Tanh, true) => h::tanh_bf16(x),
        }
    };
    if pair {
        x2(one, a, b, c)
    } else {
        one(a as u16, b as u16, c as u16) as u64
    }
}

/// Widens one 16-bit element to `f32` exactly (after an optional `.ftz` input flush).
pub fn to_f32(x: u16, bf: bool, ftz: bool) -> f32 {
    if bf {
        let x = if ftz {
            Format::BF16.flush(x as u64) as u16
        } else {
            x
        };
        cv::cvt_bf16_to_f32(x, false, false)
    } else {
        let x = if ftz {
            Format::F16.flush(x as u64) as u16
        } else {
            x
        };
        cv::cvt_f16_to_f32(x, false, false)
    }
}

/// Compares half-precision operands: the result for element 0 (bits 15..0) and for
/// element 1 (bits 31..16; equal to element 0's for the scalar types).
pub fn compare(op: CmpOp, ty: Type, ftz: bool, a: u64, b: u64) -> (bool, bool) {
    let bf = matches!(ty, Type::Bf16 | Type::Bf16x2);
    let c = |x: u16, y: u16| fa::cmp_f32(op, to_f32(x, bf, ftz), to_f32(y, bf, ftz), false);
    let lo = c(a as u16, b as u16);
    if matches!(ty, Type::F16x2 | Type::Bf16x2) {
        (lo, c((a >> 16) as u16, (b >> 16) as u16))
    } else {
        (lo, lo)
    }
}

/// The "true" encoding of a `set` destination element of type `dty`.
pub fn set_true(dty: Type) -> u64 {
    match dty {
        Type::F32 => 1.0f32.to_bits() as u64,
        Type::F16 | Type::F16x2 => 0x3c00,
        Type::Bf16 | Type::Bf16x2 => 0x3f80,
        _ => u64::MAX,
    }
}
