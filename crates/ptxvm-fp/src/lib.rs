//! `ptxvm-fp`: the numerics every ptxvm engine shares. Pure functions, no global state:
//! each PTX floating-point, half-precision and conversion instruction's result is computed
//! here bit for bit, with its rounding mode, flush-to-zero, saturation and NaN rules.
//!
//! Round-to-nearest-even uses host arithmetic; the directed modes (`.rz .rm .rp`) use
//! exact error terms (never a global FPU-mode switch).

/// A PTX rounding modifier for floating-point results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rnd {
    /// `.rn`: to nearest, ties to even.
    Rn,
    /// `.rz`: toward zero.
    Rz,
    /// `.rm`: toward negative infinity.
    Rm,
    /// `.rp`: toward positive infinity.
    Rp,
    /// `.rna`: to nearest, ties away from zero (`cvt` to `.tf32` and narrow formats).
    Rna,
}

/// The canonical NaN PTX produces for `.f32` results (§9.7.3).
pub const CANONICAL_NAN_F32: u32 = 0x7fff_ffff;
/// The canonical NaN PTX produces for `.f64` results.
pub const CANONICAL_NAN_F64: u64 = 0x7fff_ffff_ffff_ffff;

pub mod approx;
pub mod arith;
pub mod convert;
pub mod half;
pub mod tensor;
