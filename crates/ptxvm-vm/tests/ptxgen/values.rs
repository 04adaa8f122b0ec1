//! Values biased toward edge cases: integer limits and shift amounts, floating-point
//! zeros, subnormals, infinities, NaNs with payloads, rounding boundaries and the limits of
//! the integer conversions.

use super::src::Src;

const INT32: &[u32] = &[
    0,
    1,
    2,
    3,
    7,
    8,
    15,
    16,
    31,
    32,
    33,
    63,
    64,
    65,
    127,
    128,
    255,
    256,
    0x7fff,
    0x8000,
    0xffff,
    0x1_0000,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_fffe,
    0xffff_ffff,
    0xffff_ff80,
    0xffff_8000,
    0x5555_5555,
    0xaaaa_aaaa,
    0x0f0f_0f0f,
    0x1234_5678,
    0xdead_beef,
    0x0100_0000,
    0x00ff_ff00,
    24,
    40,
    100,
];

const INT64: &[u64] = &[
    0,
    1,
    2,
    63,
    64,
    65,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff,
    0x8000_0000,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    0x8000_0000_0000_0001,
    0xffff_ffff_ffff_ffff,
    0xffff_ffff_8000_0000,
    0xffff_ffff_0000_0000,
    0x0123_4567_89ab_cdef,
    0xfedc_ba98_7654_3210,
    0x5555_5555_5555_5555,
];

const F32: &[u32] = &[
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x3f00_0000, // 0.5
    0x3fc0_0000, // 1.5
    0x4020_0000, // 2.5
    0xbfc0_0000, // -1.5
    0xc020_0000, // -2.5
    0x4049_0fdb, // pi
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x7fc0_0000, // qNaN
    0xffc0_0000, // -qNaN
    0x7fc1_2345, // qNaN with payload
    0x7f80_0001, // sNaN
    0xffa0_0f00, // -sNaN with payload
    0x0000_0001, // smallest subnormal
    0x8000_0001,
    0x007f_ffff, // largest subnormal
    0x0040_0000,
    0x0080_0000, // smallest normal
    0x8080_0000,
    0x7f7f_ffff, // largest finite
    0xff7f_ffff,
    0x4b00_0000, // 2^23
    0x4b80_0001,
    0x4eff_ffff, // just below 2^31
    0x4f00_0000, // 2^31
    0xcf00_0000, // -2^31
    0xcf00_0001,
    0x4f80_0000, // 2^32
    0x5f00_0000, // 2^63
    0xdf00_0000, // -2^63
    0x5f80_0000, // 2^64
    0x3380_0000, // 2^-24
    0x477f_e000, // 65504 (f16 max)
    0x477f_f000, // 65520 (f16 overflow boundary)
    0x3f7f_ffff, // just below 1
    0x3f80_0001, // just above 1
    0x3eaa_aaab, // 1/3
    0x4f7f_ffff,
    0x4700_0000, // 32768
    0xc700_0100,
    0x437f_0000, // 255
    0x4380_0000, // 256
];

const F64: &[u64] = &[
    0,
    0x8000_0000_0000_0000,
    0x3ff0_0000_0000_0000, // 1
    0xbff0_0000_0000_0000,
    0x3fe0_0000_0000_0000, // 0.5
    0x3ff8_0000_0000_0000, // 1.5
    0x4004_0000_0000_0000, // 2.5
    0xc004_0000_0000_0000,
    0x7ff0_0000_0000_0000, // inf
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000, // qNaN
    0xfff8_0000_0000_0000,
    0x7ff8_0000_0012_3456, // payload
    0x7ff0_0000_0000_0001, // sNaN
    0x0000_0000_0000_0001, // subnormal
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000, // smallest normal
    0x7fef_ffff_ffff_ffff, // largest
    0xffef_ffff_ffff_ffff,
    0x41df_ffff_ffc0_0000, // 2^31 - 1
    0x41e0_0000_0000_0000, // 2^31
    0xc1e0_0000_0000_0000, // -2^31
    0xc1e0_0000_0020_0000, // -2^31 - 1
    0x41f0_0000_0000_0000, // 2^32
    0x43e0_0000_0000_0000, // 2^63
    0xc3e0_0000_0000_0000,
    0x43f0_0000_0000_0000, // 2^64
    0x3810_0000_0000_0000, // f32 smallest normal
    0x36a0_0000_0000_0000, // f32 smallest subnormal
    0x47ef_ffff_e000_0000, // f32 max
    0x47ef_ffff_f000_0000, // f32 max + half ulp
    0x3ff0_0000_1000_0000, // 1 + an f32 tie
    0x3ff0_0000_0000_0001,
    0x4330_0000_0000_0000, // 2^52
    0x40ef_fc00_0000_0000, // 65504
];

const F16: &[u16] = &[
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4100, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7e12,
    0x7c01, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3bff, 0x3c01, 0x5bf8, 0x6400,
];

const BF16: &[u16] = &[
    0x0000, 0x8000, 0x3f80, 0xbf80, 0x3f00, 0x3fc0, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7fa1, 0x7f81,
    0x0001, 0x007f, 0x0080, 0x7f7f, 0xff7f, 0x4f00, 0xcf00, 0x3f7f, 0x3f81,
];

/// A floating-point value near `one`'s exponent with random mantissa bits.
fn near_f32(s: &mut Src) -> u32 {
    let e = 100 + s.below(60) as u32;
    (s.u32() & 0x807f_ffff) | e << 23
}

fn near_f64(s: &mut Src) -> u64 {
    let e = 1000 + s.below(50) as u64;
    (s.u64() & 0x800f_ffff_ffff_ffff) | e << 52
}

pub fn int32(s: &mut Src) -> u32 {
    match s.below(8) {
        0..=3 => *s.pick(INT32),
        4 => s.pick(INT32).wrapping_neg(),
        5 => s.below(40) as u32,
        6 => s.u32(),
        _ => 1u32 << s.below(32),
    }
}

pub fn int64(s: &mut Src) -> u64 {
    match s.below(8) {
        0..=2 => *s.pick(INT64),
        3 => int32(s) as u64,
        4 => int32(s) as i32 as i64 as u64,
        5 => s.below(80) as u64,
        6 => s.u64(),
        _ => 1u64 << s.below(64),
    }
}

pub fn int16(s: &mut Src) -> u16 {
    match s.below(4) {
        0 => int32(s) as u16,
        1 => (int32(s) >> 16) as u16,
        2 => *s.pick(&[0u16, 1, 2, 15, 16, 17, 0x7fff, 0x8000, 0xffff, 0xff, 0x100]),
        _ => s.byte() as u16 | (s.byte() as u16) << 8,
    }
}

pub fn f32(s: &mut Src) -> u32 {
    match s.below(8) {
        0..=3 => *s.pick(F32),
        4 => s.pick(F32) ^ (1 + s.below(3) as u32),
        5 | 6 => near_f32(s),
        _ => s.u32(),
    }
}

pub fn f64(s: &mut Src) -> u64 {
    match s.below(8) {
        0..=3 => *s.pick(F64),
        4 => s.pick(F64) ^ (1 + s.below(3) as u64),
        5 | 6 => near_f64(s),
        _ => s.u64(),
    }
}

pub fn f16(s: &mut Src) -> u16 {
    match s.below(4) {
        0 | 1 => *s.pick(F16),
        2 => (s.byte() as u16 & 0x83) << 8 | s.byte() as u16 | 0x3000,
        _ => s.byte() as u16 | (s.byte() as u16) << 8,
    }
}

pub fn bf16(s: &mut Src) -> u16 {
    match s.below(4) {
        0 | 1 => *s.pick(BF16),
        2 => (near_f32(s) >> 16) as u16,
        _ => s.byte() as u16 | (s.byte() as u16) << 8,
    }
}

/// A 32-bit pattern of any flavour: integer, f32, or two halves.
pub fn any32(s: &mut Src) -> u32 {
    match s.below(6) {
        0 | 1 => int32(s),
        2 | 3 => f32(s),
        4 => f16(s) as u32 | (f16(s) as u32) << 16,
        _ => bf16(s) as u32 | (bf16(s) as u32) << 16,
    }
}

pub fn any64(s: &mut Src) -> u64 {
    match s.below(5) {
        0 | 1 => int64(s),
        2 | 3 => f64(s),
        _ => any32(s) as u64 | (any32(s) as u64) << 32,
    }
}

pub fn any16(s: &mut Src) -> u16 {
    match s.below(3) {
        0 => int16(s),
        1 => f16(s),
        _ => bf16(s),
    }
}
