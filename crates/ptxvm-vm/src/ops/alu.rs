//! The per-thread semantics of the core instructions — integer, logic, floating-point,
//! comparison, conversion and atomic operations on raw register bits — shared by every
//! engine: the reference interpreter calls them per thread, the warp engine per lane in
//! loops it specialises by inlining them with constant operands. One definition of each
//! operation; every function is total on arbitrary bits (no panics).

use crate::program::*;
use ptxvm_fp::Rnd;
use ptxvm_fp::arith as fa;
use ptxvm_ir::types::{Class, Type};

#[inline(always)]
pub(crate) fn mask(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

#[inline(always)]
pub(crate) fn sext(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        (((v << (64 - bits)) as i64) >> (64 - bits)) as u64
    }
}

#[inline(always)]
pub(crate) fn bool_op(op: BoolOp, a: bool, b: bool) -> bool {
    match op {
        BoolOp::And => a && b,
        BoolOp::Or => a || b,
        BoolOp::Xor => a ^ b,
    }
}

/// Integer binary operations on the low `ty.bits()` bits.
#[inline(always)]
pub(crate) fn int_bin(op: IntOp, ty: Type, a: u64, b: u64) -> u64 {
    let bits = ty.bits();
    let signed = ty.class() == Class::Signed;
    let (ua, ub) = (mask(a, bits), mask(b, bits));
    let (sa, sb) = (sext(a, bits) as i64, sext(b, bits) as i64);
    let r = match op {
        IntOp::Add => ua.wrapping_add(ub),
        IntOp::Sub => ua.wrapping_sub(ub),
        IntOp::AddSat => (sa as i128 + sb as i128).clamp(i32::MIN as i128, i32::MAX as i128) as u64,
        IntOp::SubSat => (sa as i128 - sb as i128).clamp(i32::MIN as i128, i32::MAX as i128) as u64,
        IntOp::MulLo => ua.wrapping_mul(ub),
        IntOp::MulHi => {
            let p = if signed {
                (sa as i128 * sb as i128) as u128
            } else {
                ua as u128 * ub as u128
            };
            (p >> bits) as u64
        }
        IntOp::MulWide => {
            let p = if signed {
                (sa as i128 * sb as i128) as u128
            } else {
                ua as u128 * ub as u128
            };
            return mask(p as u64, bits * 2);
        }
        // Division by zero: PTX leaves the result unspecified; ptxvm gives all ones
        // (as GPUs do) for the quotient and the dividend for the remainder.
        IntOp::Div => {
            if ub == 0 {
                u64::MAX
            } else if signed {
                sa.wrapping_div(sb) as u64
            } else {
                ua / ub
            }
        }
        IntOp::Rem => {
            if ub == 0 {
                ua
            } else if signed {
                sa.wrapping_rem(sb) as u64
            } else {
                ua % ub
            }
        }
        IntOp::Min => {
            if signed {
                sa.min(sb) as u64
            } else {
                ua.min(ub)
            }
        }
        IntOp::Max => {
            if signed {
                sa.max(sb) as u64
            } else {
                ua.max(ub)
            }
        }
        IntOp::And => ua & ub,
        IntOp::Or => ua | ub,
        IntOp::Xor => ua ^ ub,
        // Shift amounts are unsigned 32-bit and clamp at the type width.
        IntOp::Shl => {
            let s = mask(b, 32);
            if s >= bits as u64 { 0 } else { ua << s }
        }
        IntOp::Shr => {
            let s = mask(b, 32).min(bits as u64);
            if signed {
                (sa >> s.min(63)) as u64
            } else if s >= bits as u64 {
                0
            } else {
                ua >> s
            }
        }
    };
    mask(r, bits)
}

#[inline]
pub(crate) fn int_un(op: IntUn, ty: Type, a: u64) -> u64 {
    let bits = ty.bits();
    let ua = mask(a, bits);
    let r = match op {
        IntUn::Not => !ua,
        IntUn::Cnot => (ua == 0) as u64,
        IntUn::Neg => ua.wrapping_neg(),
        IntUn::Abs => (sext(a, bits) as i64).wrapping_abs() as u64,
        IntUn::Popc => ua.count_ones() as u64,
        IntUn::Clz => (ua.leading_zeros() - (64 - bits)) as u64,
        IntUn::Brev => ua.reverse_bits() >> (64 - bits),
    };
    mask(r, bits)
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn float_bin(
    op: FOp,
    ty: Type,
    rnd: Rnd,
    ftz: bool,
    sat: bool,
    nan: bool,
    xorsign: bool,
    a: u64,
    b: u64,
) -> u64 {
    if ty == Type::F32 {
        let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        let mm = fa::MinMax {
            ftz,
            nan,
            xorsign_abs: xorsign,
        };
        let r = match op {
            FOp::Add => fa::add_f32(x, y, rnd, ftz, sat),
            FOp::Sub => fa::sub_f32(x, y, rnd, ftz, sat),
            FOp::Mul => fa::mul_f32(x, y, rnd, ftz, sat),
            FOp::Div => fa::div_f32(x, y, rnd, ftz),
            FOp::DivFull => fa::div_full_f32(x, y, ftz),
            FOp::DivApprox => ptxvm_fp::approx::div_approx_f32(x, y, ftz),
            FOp::Min => fa::min_f32(x, y, mm),
            FOp::Max => fa::max_f32(x, y, mm),
            FOp::Copysign => fa::copysign_f32(x, y),
        };
        r.to_bits() as u64
    } else {
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        let r = match op {
            FOp::Add => fa::add_f64(x, y, rnd),
            FOp::Sub => fa::sub_f64(x, y, rnd),
            FOp::Mul => fa::mul_f64(x, y, rnd),
            FOp::Div | FOp::DivFull | FOp::DivApprox => fa::div_f64(x, y, rnd),
            FOp::Min => fa::min_f64(x, y),
            FOp::Max => fa::max_f64(x, y),
            FOp::Copysign => fa::copysign_f64(x, y),
        };
        r.to_bits()
    }
}

#[inline]
pub(crate) fn float_un(op: FUn, ty: Type, rnd: Rnd, ftz: bool, a: u64) -> u64 {
    use ptxvm_fp::approx as ap;
    if ty == Type::F32 {
        let x = f32::from_bits(a as u32);
        let r = match op {
            FUn::Neg => fa::neg_f32(x, ftz),
            FUn::Abs => fa::abs_f32(x, ftz),
            FUn::Sqrt => fa::sqrt_f32(x, rnd, ftz),
            FUn::SqrtApprox => ap::sqrt_approx_f32(x, ftz),
            FUn::Rcp => fa::rcp_f32(x, rnd, ftz),
            FUn::RcpApprox => ap::rcp_approx_f32(x, ftz),
            FUn::Rsqrt => ap::rsqrt_approx_f32(x, ftz),
            FUn::Sin => ap::sin_approx_f32(x, ftz),
            FUn::Cos => ap::cos_approx_f32(x, ftz),
            FUn::Lg2 => ap::lg2_approx_f32(x, ftz),
            FUn::Ex2 => ap::ex2_approx_f32(x, ftz),
            FUn::Tanh => ap::tanh_approx_f32(x),
        };
        r.to_bits() as u64
    } else {
        let x = f64::from_bits(a);
        let r = match op {
            FUn::Neg => fa::neg_f64(x),
            FUn::Abs => fa::abs_f64(x),
            FUn::Sqrt | FUn::SqrtApprox => fa::sqrt_f64(x, rnd),
            FUn::Rcp => fa::rcp_f64(x, rnd),
            FUn::RcpApprox => ap::rcp_approx_ftz_f64(x),
            FUn::Rsqrt if ftz => ap::rsqrt_approx_ftz_f64(x),
            FUn::Rsqrt => ap::rsqrt_approx_f64(x),
            _ => f64::NAN,
        };
        r.to_bits()
    }
}

#[inline(always)]
pub(crate) fn compare(cmp: Cmp, ty: Type, ftz: bool, a: u64, b: u64) -> bool {
    use fa::CmpOp::*;
    match cmp {
        Cmp::Float(op) if crate::ops::half::is_half(ty) => {
            crate::ops::half::compare(op, ty, ftz, a, b).0
        }
        Cmp::Float(op) => {
            if ty == Type::F32 {
                fa::cmp_f32(op, f32::from_bits(a as u32), f32::from_bits(b as u32), ftz)
            } else {
                fa::cmp_f64(op, f64::from_bits(a), f64::from_bits(b))
            }
        }
        Cmp::Int(op, unsigned) => {
            let bits = ty.bits();
            let ord = if unsigned {
                mask(a, bits).cmp(&mask(b, bits))
            } else {
                (sext(a, bits) as i64).cmp(&(sext(b, bits) as i64))
            };
            match op {
                Eq => ord.is_eq(),
                Ne => ord.is_ne(),
                Lt => ord.is_lt(),
                Le => ord.is_le(),
                Gt => ord.is_gt(),
                Ge => ord.is_ge(),
                _ => false,
            }
        }
    }
}

#[inline]
pub(crate) fn int_type(t: Type) -> Option<ptxvm_fp::convert::IntType> {
    use ptxvm_fp::convert::IntType as I;
    Some(match t {
        Type::U8 | Type::B8 => I::U8,
        Type::U16 | Type::B16 => I::U16,
        Type::U32 | Type::B32 => I::U32,
        Type::U64 | Type::B64 => I::U64,
        Type::S8 => I::S8,
        Type::S16 => I::S16,
        Type::S32 => I::S32,
        Type::S64 => I::S64,
        _ => return None,
    })
}

#[inline]
pub(crate) fn float_type(t: Type) -> Option<ptxvm_fp::convert::FloatType> {
    use ptxvm_fp::convert::FloatType as F;
    Some(match t {
        Type::F16 => F::F16,
        Type::Bf16 => F::BF16,
        Type::F32 => F::F32,
        Type::F64 => F::F64,
        _ => return None,
    })
}

#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn cvt(
    dty: Type,
    aty: Type,
    rnd: Option<Rnd>,
    irnd: Option<Rnd>,
    sat: bool,
    ftz: bool,
    relu: bool,
    satfinite: bool,
    a: u64,
) -> Option<u64> {
    use ptxvm_fp::convert as cv;
    let v = match (
        int_type(dty),
        float_type(dty),
        int_type(aty),
        float_type(aty),
    ) {
        (Some(di), _, Some(ai), _) => Some(cv::cvt_int_to_int(a, ai, di, sat)),
        (Some(di), _, _, Some(af)) => Some(cv::cvt_float_to_int(
            a,
            af,
            di,
            irnd.unwrap_or(Rnd::Rz),
            ftz,
        )),
        (_, Some(df), Some(ai), _) => {
            Some(cv::cvt_int_to_float(a, ai, df, rnd.unwrap_or(Rnd::Rn), sat))
        }
        (_, Some(df), _, Some(af)) => {
            if df == af && irnd.is_some() {
                return Some(cv::cvt_float_round_int(a, af, irnd?, ftz, sat));
            }
            let m = cv::CvtMods {
                ftz,
                sat,
                relu,
                satfinite,
            };
            Some(cv::cvt_float_to_float(a, af, df, rnd.unwrap_or(Rnd::Rn), m))
        }
        _ => None,
    }?;
    // A destination register wider than a signed integer type gets the value sign-extended
    // (ISA "Operand Size Exceeding Instruction-Type Size": `cvt.s8.s32` into a `.b16`).
    Some(match int_type(dty) {
        Some(di) if di.signed() && di.bits() < 64 => {
            let s = 64 - di.bits();
            (((v << s) as i64) >> s) as u64
        }
        _ => v,
    })
}

#[inline]
pub(crate) fn atom_op(op: AtomOp, ty: Type, old: u64, b: u64, c: u64) -> u64 {
    let bits = ty.bits();
    match (op, ty) {
        // `atom.add.f32` on global memory rounds to nearest even and flushes subnormal inputs
        // and results (shared memory keeps them: `Cta::atomic`).
        (AtomOp::Add, Type::F32) => fa::add_f32(
            f32::from_bits(old as u32),
            f32::from_bits(b as u32),
            Rnd::Rn,
            true,
            false,
        )
        .to_bits() as u64,
        (AtomOp::Add, Type::F64) => {
            fa::add_f64(f64::from_bits(old), f64::from_bits(b), Rnd::Rn).to_bits()
        }
        // `.noftz` half adds (round to nearest even) and the vector forms' `.min/.max.noftz`
        // (as `min`/`max` without `.NaN`: a NaN operand yields the other one; -0 < +0); both
        // keep subnormals.
        (
            AtomOp::Add | AtomOp::Min | AtomOp::Max,
            Type::F16 | Type::Bf16 | Type::F16x2 | Type::Bf16x2,
        ) => crate::ops::half::eval(
            match op {
                AtomOp::Add => crate::ops::half::HOp::Add,
                AtomOp::Min => crate::ops::half::HOp::Min,
                _ => crate::ops::half::HOp::Max,
            },
            ty,
            crate::ops::half::HMods {
                rnd: Rnd::Rn,
                ftz: false,
                sat: false,
                relu: false,
                nan: false,
                xorsign_abs: false,
            },
            old,
            b,
            0,
        ),
        (AtomOp::Add, _) => mask(old.wrapping_add(b), bits),
        (AtomOp::Min, _) => int_bin(IntOp::Min, ty, old, b),
        (AtomOp::Max, _) => int_bin(IntOp::Max, ty, old, b),
        (AtomOp::Inc, _) => {
            if mask(old, bits) >= mask(b, bits) {
                0
            } else {
                mask(old + 1, bits)
            }
        }
        (AtomOp::Dec, _) => {
            if mask(old, bits) == 0 || mask(old, bits) > mask(b, bits) {
                mask(b, bits)
            } else {
                mask(old - 1, bits)
            }
        }
        (AtomOp::And, _) => old & b,
        (AtomOp::Or, _) => old | b,
        (AtomOp::Xor, _) => old ^ b,
        (AtomOp::Exch, _) => mask(b, bits),
        (AtomOp::Cas, _) => {
            if mask(old, bits) == mask(b, bits) {
                mask(c, bits)
            } else {
                mask(old, bits)
            }
        }
    }
}

#[inline]
pub(crate) fn int_x(op: IntX, ty: Type, v: [u64; 4]) -> u64 {
    use crate::ops::int as ix;
    let [a, b, c, d] = v;
    let bits = ty.bits();
    let signed = ty.class() == Class::Signed;
    match op {
        IntX::Mul24 { hi } => ix::mul24(a, b, hi, signed),
        IntX::Mad24 { hi, sat } => ix::mad24(a, b, c, hi, signed, sat),
        IntX::Sad => ix::sad(a, b, c, bits, signed),
        IntX::Bfe => ix::bfe(a, b, c, bits, signed),
        IntX::Bfi => ix::bfi(a, b, c, d, bits),
        IntX::Bfind { shiftamt } => ix::bfind(a, bits, signed, shiftamt),
        IntX::Fns => ix::fns(a, b, c),
        IntX::Szext { clamp } => ix::szext(a, b, clamp, signed),
        IntX::Bmsk { clamp } => ix::bmsk(a, b, clamp),
        IntX::Prmt(m) => ix::prmt(a, b, c, m),
        IntX::Lop3 => ix::lop3(a, b, c, d),
        IntX::Shf { left, clamp } => ix::shf(a, b, c, left, clamp),
        IntX::Dp4a { sa, sb } => ix::dp4a(a, b, c, sa, sb),
        IntX::Dp2a { hi, sa, sb } => ix::dp2a(a, b, c, hi, sa, sb),
        IntX::Packed { op, relu } => ix::packed16(op, a, b, ty == Type::S16x2, relu),
        IntX::MinMaxRelu { max } => ix::minmax_relu_s32(a, b, max),
    }
}

#[inline]
pub(crate) fn cvt_x(op: CvtX, a: u64, b: u64, c: u64) -> u64 {
    use ptxvm_fp::convert as cv;
    let (fa_, fb) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
    match op {
        CvtX::Half2F32Rs {
            bf,
            relu,
            satfinite,
        } => {
            // rbits: the upper 16 bits for a (the upper half), the lower 16 for b.
            let c = c as u32;
            let hi = cv::cvt_f32_to_half_rs(fa_, bf, c >> 16, relu, satfinite) as u64;
            let lo = cv::cvt_f32_to_half_rs(fb, bf, c & 0xffff, relu, satfinite) as u64;
            (hi << 16) | lo
        }
        CvtX::Half2F32 {
            bf,
            rnd,
            relu,
            satfinite,
        } => {
            if bf {
                cv::cvt_f32x2_to_bf16x2(fa_, fb, rnd, relu, satfinite) as u64
            } else {
                cv::cvt_f32x2_to_f16x2(fa_, fb, rnd, relu, satfinite) as u64
            }
        }
        CvtX::Tf32 {
            rnd,
            relu,
            satfinite,
        } => cv::cvt_f32_to_tf32(fa_, rnd, relu, satfinite) as u64,
        CvtX::NarrowF32 { ty, relu } => cv::cvt_f32x2_to_narrow(fa_, fb, ty, relu) as u64,
        CvtX::NarrowF16x2 { ty, relu } => cv::cvt_f16x2_to_narrow(a as u32, ty, relu) as u64,
        CvtX::F16x2Narrow { ty, relu } => cv::cvt_narrow_to_f16x2(a as u16, ty, relu) as u64,
        CvtX::Ue8m0F32 { rnd, satfinite } => {
            cv::cvt_f32x2_to_ue8m0x2(fa_, fb, rnd, satfinite) as u64
        }
        CvtX::Ue8m0Bf16x2 { rnd, satfinite } => {
            cv::cvt_bf16x2_to_ue8m0x2(a as u32, rnd, satfinite) as u64
        }
        CvtX::Bf16x2Ue8m0 => cv::cvt_ue8m0x2_to_bf16x2(a as u16) as u64,
        CvtX::PackSat16 { signed } => {
            cv::cvt_pack_sat_16(a as u32 as i32, b as u32 as i32, signed) as u64
        }
        CvtX::PackSat { size, signed } => {
            cv::cvt_pack_sat(a as u32 as i32, b as u32 as i32, c as u32, size, signed) as u64
        }
    }
}

/// `cvt.rs{.relu}.satfinite.<narrow>x4.f32 d, {a, b, e, f}, rbits`: `a` in the highest
/// element of `d`, `f` in the lowest. The random bits (the manual: the upper 16 bits of
/// `rbits` for `a` and `b`, the lower 16 for `e` and `f`; for `.e2m1x4` the upper bytes of
/// both halves for `a` and `b`, the lower bytes for `e` and `f`): 8- and 6-bit formats take 16
/// bits each, `a` the upper half bit-reversed, `b` the upper half, `e` the lower half
/// bit-reversed, `f` the lower half (as measured on sm_100a, see `docs/numerics-half-convert.md`);
/// `.e2m1x4` takes 8 bits each, `a` bits 31:24, `b` 15:8, `e` 23:16, `f` 7:0 (ptxvm's reading).
#[inline]
pub(crate) fn cvt_rs_x4(ty: ptxvm_fp::convert::NarrowType, relu: bool, v: [u32; 4], r: u32) -> u64 {
    use ptxvm_fp::convert::{NarrowType, cvt_f32_to_narrow_rs};
    let (hi, lo) = ((r >> 16) as u16, r as u16);
    let (bits, nbits) = if ty == NarrowType::E2M1 {
        ([r >> 24, (r >> 8) & 0xff, (r >> 16) & 0xff, r & 0xff], 8)
    } else {
        (
            [
                u32::from(hi.reverse_bits()),
                u32::from(hi),
                u32::from(lo.reverse_bits()),
                u32::from(lo),
            ],
            16,
        )
    };
    let slot = ty.slot();
    let mut d = 0u64;
    for (x, rb) in v.iter().zip(bits) {
        let e = cvt_f32_to_narrow_rs(f32::from_bits(*x), ty, rb, nbits, relu);
        d = (d << slot) | u64::from(e);
    }
    d
}

/// [`FloatExt`](crate::program::FloatExt): the sm_100 forms built from the scalar `.f32`
/// operations ([`float_bin`], [`fma_bits`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn float_ext(
    x: crate::program::FloatExt,
    rnd: Rnd,
    ftz: bool,
    sat: bool,
    nan: bool,
    a: u64,
    b: u64,
    c: u64,
) -> u64 {
    use crate::program::FloatExt as X;
    let f32op = |op: Option<FOp>, a: u64, b: u64, c: u64| match op {
        Some(op) => float_bin(op, Type::F32, rnd, ftz, sat, nan, false, a, b),
        None => fma_bits(Type::F32, rnd, ftz, sat, a, b, c),
    };
    match x {
        X::X2(op) => {
            let lane = |v: u64, k: u32| (v >> (32 * k)) & 0xffff_ffff;
            let lo = f32op(op, lane(a, 0), lane(b, 0), lane(c, 0));
            let hi = f32op(op, lane(a, 1), lane(b, 1), lane(c, 1));
            (lo & 0xffff_ffff) | (hi & 0xffff_ffff) << 32
        }
        X::Mixed { op, bf16 } => {
            // Half to f32 is exact, so the one rounding is the f32 operation's.
            let w = |h: u64| {
                let h = h as u16;
                let f = if bf16 {
                    ptxvm_fp::convert::cvt_bf16_to_f32(h, false, false)
                } else {
                    ptxvm_fp::convert::cvt_f16_to_f32(h, false, false)
                };
                f.to_bits() as u64
            };
            match op {
                // `add/sub.f32.atype d, a, c`: the f32 operand is the second source.
                Some(op) => f32op(Some(op), w(a), b, 0),
                None => f32op(None, w(a), w(b), c),
            }
        }
        X::MinMax3 { max, abs } => {
            let op = if max { FOp::Max } else { FOp::Min };
            let m = |v: u64| if abs { v & 0x7fff_ffff } else { v };
            let ab = float_bin(op, Type::F32, rnd, ftz, false, nan, false, m(a), m(b));
            float_bin(op, Type::F32, rnd, ftz, false, nan, false, ab, m(c))
        }
    }
}

/// `fma.rnd{.ftz}{.sat}.f32` / `fma.rnd.f64` on register bits (inlined into the lane loops,
/// which are compiled per target feature set: the host's FMA instruction does `.rn`).
#[inline(always)]
pub(crate) fn fma_bits(ty: Type, rnd: Rnd, ftz: bool, sat: bool, a: u64, b: u64, c: u64) -> u64 {
    if ty == Type::F32 {
        fa::fma_f32(
            f32::from_bits(a as u32),
            f32::from_bits(b as u32),
            f32::from_bits(c as u32),
            rnd,
            ftz,
            sat,
        )
        .to_bits() as u64
    } else {
        fa::fma_f64(f64::from_bits(a), f64::from_bits(b), f64::from_bits(c), rnd).to_bits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_edge_cases() {
        assert_eq!(int_bin(IntOp::Div, Type::S32, 7, 0), u32::MAX as u64);
        assert_eq!(
            int_bin(IntOp::Div, Type::S32, 0x8000_0000, u32::MAX as u64),
            0x8000_0000
        );
        assert_eq!(int_bin(IntOp::Shr, Type::S32, 0x8000_0000, 40), 0xffff_ffff);
        assert_eq!(int_bin(IntOp::Shl, Type::B32, 1, 32), 0);
        assert_eq!(
            int_bin(IntOp::MulWide, Type::S32, u32::MAX as u64, 2),
            (-2i64) as u64
        );
        assert_eq!(int_bin(IntOp::MulHi, Type::U32, 0x8000_0000, 4), 2);
        assert_eq!(
            int_bin(IntOp::AddSat, Type::S32, i32::MAX as u64, 1),
            i32::MAX as u64
        );
        assert_eq!(int_un(IntUn::Clz, Type::B32, 1), 31);
        assert_eq!(int_un(IntUn::Brev, Type::B32, 1), 0x8000_0000);
        assert_eq!(atom_op(AtomOp::Inc, Type::U32, 5, 5, 0), 0);
        assert_eq!(atom_op(AtomOp::Dec, Type::U32, 0, 5, 0), 5);
    }
}
