//! Integer instructions of §9.7.1–§9.7.2 beyond the basic arithmetic: `mul24`, `mad24`,
//! `sad`, `bfe`, `bfi`, `bfind`, `fns`, `szext`, `bmsk`, `prmt`, `lop3`, `shf`, `dp4a`,
//! `dp2a`, packed `.u16x2`/`.s16x2` arithmetic, `min`/`max` `.relu`, and the carry chain.

/// `prmt` modes (`None` is the generic form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrmtMode {
    F4e,
    B4e,
    Rc8,
    Ecl,
    Ecr,
    Rc16,
}

impl PrmtMode {
    pub fn from_mod(m: &str) -> Option<PrmtMode> {
        Some(match m {
            ".f4e" => PrmtMode::F4e,
            ".b4e" => PrmtMode::B4e,
            ".rc8" => PrmtMode::Rc8,
            ".ecl" => PrmtMode::Ecl,
            ".ecr" => PrmtMode::Ecr,
            ".rc16" => PrmtMode::Rc16,
            _ => return None,
        })
    }
}

#[inline]
fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

#[inline]
fn mask(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

/// The 48-bit product of two 24-bit operands (sign-extended from bit 23 when signed).
#[inline]
fn mul24_product(a: u64, b: u64, signed: bool) -> i64 {
    if signed {
        sext(a, 24) * sext(b, 24)
    } else {
        (mask(a, 24) * mask(b, 24)) as i64
    }
}

/// `mul24.{hi,lo}.{u32,s32}`: `.hi` is bits 47..16 of the 48-bit product, `.lo` bits 31..0.
pub fn mul24(a: u64, b: u64, hi: bool, signed: bool) -> u64 {
    let t = mul24_product(a, b, signed) as u64;
    if hi { mask(t >> 16, 32) } else { mask(t, 32) }
}

/// `mad24.{hi,lo}{.sat}.{u32,s32}`: the `mul24` part plus `c`; `.sat` (only `.hi.s32`)
/// clamps the signed sum to the 32-bit range.
pub fn mad24(a: u64, b: u64, c: u64, hi: bool, signed: bool, sat: bool) -> u64 {
    let t = mul24(a, b, hi, signed);
    if sat {
        let s = sext(t, 32) + sext(c, 32);
        mask(s.clamp(i32::MIN as i64, i32::MAX as i64) as u64, 32)
    } else {
        mask(t.wrapping_add(c), 32)
    }
}

/// `sad.type d, a, b, c`: `c + |a - b|` in the type's width.
pub fn sad(a: u64, b: u64, c: u64, bits: u32, signed: bool) -> u64 {
    let diff = if signed {
        let (x, y) = (sext(a, bits) as i128, sext(b, bits) as i128);
        (x - y).unsigned_abs() as u64
    } else {
        let (x, y) = (mask(a, bits), mask(b, bits));
        x.abs_diff(y)
    };
    mask(c.wrapping_add(diff), bits)
}

/// `bfe.type d, a, b, c`: extract `len = c & 0xff` bits from position `pos = b & 0xff`,
/// sign-extending from the last extracted bit for signed types.
pub fn bfe(a: u64, b: u64, c: u64, bits: u32, signed: bool) -> u64 {
    let msb = bits as u64 - 1;
    let pos = b & 0xff;
    let len = c & 0xff;
    let sbit = if !signed || len == 0 {
        0
    } else {
        let i = (pos + len - 1).min(msb);
        (a >> i) & 1
    };
    let mut d = 0u64;
    for i in 0..=msb {
        let bit = if i < len && pos + i <= msb {
            (a >> (pos + i)) & 1
        } else {
            sbit
        };
        d |= bit << i;
    }
    d
}

/// `bfi.type f, a, b, c, d`: insert the low `len = d & 0xff` bits of `a` into `b` at
/// `pos = c & 0xff`.
pub fn bfi(a: u64, b: u64, c: u64, d: u64, bits: u32) -> u64 {
    let msb = bits as u64 - 1;
    let pos = c & 0xff;
    let len = d & 0xff;
    let mut f = mask(b, bits);
    for i in 0..len {
        if pos + i > msb {
            break;
        }
        let bit = (a >> i) & 1;
        f = (f & !(1 << (pos + i))) | (bit << (pos + i));
    }
    f
}

/// `bfind{.shiftamt}.type d, a`: the position of the most significant non-sign bit, or
/// `0xffffffff` when there is none.
pub fn bfind(a: u64, bits: u32, signed: bool, shiftamt: bool) -> u64 {
    let msb = bits - 1;
    let mut a = mask(a, bits);
    if signed && (a >> msb) & 1 == 1 {
        a = mask(!a, bits);
    }
    if a == 0 {
        return 0xffff_ffff;
    }
    let d = 63 - a.leading_zeros();
    (if shiftamt { msb - d } else { d }) as u64
}

/// `fns.b32 d, mask, base, offset`: the position of the n-th set bit.
pub fn fns(m: u64, base: u64, offset: u64) -> u64 {
    let m = m as u32;
    let base = base as u32;
    let offset = offset as u32 as i32;
    if offset == 0 {
        if base < 32 && (m >> base) & 1 == 1 {
            return base as u64;
        }
        return 0xffff_ffff;
    }
    let mut pos = base as i64;
    let mut count = offset.unsigned_abs() - 1;
    let inc: i64 = if offset > 0 { 1 } else { -1 };
    while (0..32).contains(&pos) {
        if (m >> pos) & 1 == 1 {
            if count == 0 {
                return pos as u64;
            }
            count -= 1;
        }
        pos += inc;
    }
    0xffff_ffff
}

/// `szext.mode.type d, a, b`.
pub fn szext(a: u64, b: u64, clamp: bool, signed: bool) -> u64 {
    let a = a as u32;
    let b = b as u32;
    let b1 = b & 0x1f;
    let too_large = b >= 32 && clamp;
    let m: u32 = if too_large { 0 } else { !0u32 << b1 };
    let sign_pos = b1.wrapping_sub(1) & 0x1f;
    let sign_bit = !(b1 == 0 || too_large || !signed) && (a >> sign_pos) & 1 == 1;
    ((a & !m) | if sign_bit { m } else { 0 }) as u64
}

/// `bmsk.mode.b32 d, a, b`.
pub fn bmsk(a: u64, b: u64, clamp: bool) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let a1 = a & 0x1f;
    let mut mask0: u32 = !0u32 << a1;
    let b1 = b & 0x1f;
    let sum = a1 + b1;
    let mut mask1: u32 = if sum >= 32 { 0 } else { !0u32 << sum };
    let sum_overflow = sum >= 32;
    let mut pos_overflow = false;
    let mut width_overflow = false;
    if clamp {
        if a >= 32 {
            pos_overflow = true;
            mask0 = 0;
        }
        if b >= 32 {
            width_overflow = true;
        }
    }
    if sum_overflow || pos_overflow || width_overflow {
        mask1 = 0;
    } else if b1 == 0 {
        mask1 = !0;
    }
    (mask0 & !mask1) as u64
}

/// `prmt.b32{.mode} d, a, b, c`.
pub fn prmt(a: u64, b: u64, c: u64, mode: Option<PrmtMode>) -> u64 {
    let tmp = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
    let byte = |i: u64| (tmp >> (8 * (i & 7))) & 0xff;
    let mut d = 0u64;
    match mode {
        None => {
            for k in 0..4 {
                let sel = (c >> (4 * k)) & 0xf;
                let v = byte(sel & 7);
                let v = if sel & 8 != 0 {
                    if v & 0x80 != 0 { 0xff } else { 0 }
                } else {
                    v
                };
                d |= v << (8 * k);
            }
        }
        Some(m) => {
            let s = c & 3;
            for k in 0..4u64 {
                let src = match m {
                    PrmtMode::F4e => s + k,
                    PrmtMode::B4e => (s + 8 - k) & 7,
                    PrmtMode::Rc8 => s,
                    PrmtMode::Ecl => k.max(s),
                    PrmtMode::Ecr => k.min(s),
                    PrmtMode::Rc16 => (s & 1) * 2 + (k & 1),
                };
                d |= byte(src) << (8 * k);
            }
        }
    }
    d
}

/// `lop3.b32 d, a, b, c, immLut`: bit `i` of `d` is bit `(a_i<<2)|(b_i<<1)|c_i` of `immLut`
/// (so `0xF0`, `0xCC`, `0xAA` are `a`, `b`, `c`).
pub fn lop3(a: u64, b: u64, c: u64, lut: u64) -> u64 {
    let (a, b, c, lut) = (a as u32, b as u32, c as u32, lut as u8);
    let mut d = 0u32;
    for k in 0..8u32 {
        if (lut >> k) & 1 == 1 {
            let ma = if k & 4 != 0 { a } else { !a };
            let mb = if k & 2 != 0 { b } else { !b };
            let mc = if k & 1 != 0 { c } else { !c };
            d |= ma & mb & mc;
        }
    }
    d as u64
}

/// `shf.{l,r}.{clamp,wrap}.b32 d, a, b, c`: funnel shift of `{b, a}`.
pub fn shf(a: u64, b: u64, c: u64, left: bool, clamp: bool) -> u64 {
    let c = c as u32;
    let n = if clamp { c.min(32) } else { c & 0x1f };
    let wide = ((b as u32 as u64) << 32) | a as u32 as u64;
    if left {
        mask((wide << n) >> 32, 32)
    } else {
        mask(wide >> n, 32)
    }
}

#[inline]
fn part(v: u64, k: u32, w: u32, signed: bool) -> i64 {
    let x = (v >> (k * w)) & ((1 << w) - 1);
    if signed { sext(x, w) } else { x as i64 }
}

/// `dp4a.atype.btype d, a, b, c`.
pub fn dp4a(a: u64, b: u64, c: u64, as_: bool, bs: bool) -> u64 {
    let mut d = sext(c, 32);
    for k in 0..4 {
        d = d.wrapping_add(part(a, k, 8, as_) * part(b, k, 8, bs));
    }
    mask(d as u64, 32)
}

/// `dp2a.mode.atype.btype d, a, b, c`.
pub fn dp2a(a: u64, b: u64, c: u64, hi: bool, as_: bool, bs: bool) -> u64 {
    let mut d = sext(c, 32);
    let sel = if hi { 2 } else { 0 };
    for k in 0..2 {
        d = d.wrapping_add(part(a, k, 16, as_) * part(b, sel + k, 8, bs));
    }
    mask(d as u64, 32)
}

/// Packed 16-bit operations on `.u16x2`/`.s16x2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packed {
    Add,
    Sub,
    Min,
    Max,
}

/// `add/sub/min/max{.relu}.{u16x2,s16x2}`: element-wise on the two halves.
pub fn packed16(op: Packed, a: u64, b: u64, signed: bool, relu: bool) -> u64 {
    let mut d = 0u64;
    for k in 0..2 {
        let (x, y) = (part(a, k, 16, signed), part(b, k, 16, signed));
        let mut r = match op {
            Packed::Add => x.wrapping_add(y),
            Packed::Sub => x.wrapping_sub(y),
            Packed::Min => x.min(y),
            Packed::Max => x.max(y),
        };
        if relu && r < 0 {
            r = 0;
        }
        d |= mask(r as u64, 16) << (16 * k);
    }
    d
}

/// `min.relu.s32`/`max.relu.s32`: `max(0, min/max(a, b))`.
pub fn minmax_relu_s32(a: u64, b: u64, max: bool) -> u64 {
    let (x, y) = (sext(a, 32), sext(b, 32));
    let r = if max { x.max(y) } else { x.min(y) };
    mask(r.max(0) as u64, 32)
}

/// The carry-chain operations (`add.cc`, `addc`, `sub.cc`, `subc`, `mad.cc`, `madc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CarryOp {
    Add,
    Sub,
    MadLo,
    MadHi,
}

/// One carry-chain step on `bits`-wide operands with the carry (or, for subtraction, the
/// borrow) flag `cf`: returns the result and the flag out. `cin` says whether the flag is
/// consumed (`addc`/`subc`/`madc`). Subtraction follows the manual: `d = a - (b + CF)`
/// and the flag out is the borrow.
pub fn carry(
    op: CarryOp,
    a: u64,
    b: u64,
    c: u64,
    bits: u32,
    signed: bool,
    cf: bool,
) -> (u64, bool) {
    let (ua, ub, uc) = (
        mask(a, bits) as u128,
        mask(b, bits) as u128,
        mask(c, bits) as u128,
    );
    let cfv = cf as u128;
    let m = (1u128 << bits) - 1;
    match op {
        CarryOp::Add => {
            let s = ua + ub + cfv;
            ((s & m) as u64, s > m)
        }
        CarryOp::Sub => {
            let sub = ub + cfv;
            let borrow = ua < sub;
            ((ua.wrapping_sub(sub) & m) as u64, borrow)
        }
        CarryOp::MadLo | CarryOp::MadHi => {
            let p: u128 = if signed {
                (sext(a, bits) as i128 * sext(b, bits) as i128) as u128
            } else {
                ua * ub
            };
            let part = if op == CarryOp::MadHi {
                (p >> bits) & m
            } else {
                p & m
            };
            let s = part + uc + cfv;
            ((s & m) as u64, s > m)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples() {
        assert_eq!(fns(0xaaaa_aaaa, 3, 1), 3);
        assert_eq!(fns(0xaaaa_aaaa, 3, (-1i32) as u32 as u64), 3);
        assert_eq!(fns(0xaaaa_aaaa, 2, 1), 3);
        assert_eq!(fns(0xaaaa_aaaa, 2, (-1i32) as u32 as u64), 1);
        assert_eq!(szext(0xffff_ffff, 0, false, false), 0);
        assert_eq!(bmsk(1, 2, false), 6);
        assert_eq!(lop3(0x1234, 0xff00, 0x0ff0, 0xF0), 0x1234);
        assert_eq!(lop3(0x1234, 0xff00, 0x0ff0, 0xCC), 0xff00);
        assert_eq!(lop3(0x1234, 0xff00, 0x0ff0, 0xAA), 0x0ff0);
        assert_eq!(lop3(0xf0, 0xcc, 0xaa, 0x80), 0x80);
    }
}
