//! PTX types (§5.2), state spaces (§5.1) and the operand type-agreement rules of §9.4
//! (Table 23) and §9.4.1 (Tables 24 and 25, the relaxed rules of `ld`/`st`/`cvt`).

use std::fmt;

/// A PTX fundamental, alternate, packed or opaque type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    Tf32,
    F32,
    F64,
    E4m3,
    E5m2,
    E4m3x2,
    E5m2x2,
    U16x2,
    S16x2,
    F32x2,
    Pred,
    TexRef,
    SamplerRef,
    SurfRef,
}

/// The broad class of a type for the agreement rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Bit,
    Signed,
    Unsigned,
    Float,
    Pred,
    Opaque,
}

impl Type {
    /// Parses `.u32`-style text (with the dot).
    pub fn from_dot(s: &str) -> Option<Type> {
        use Type::*;
        Some(match s {
            ".b8" => B8,
            ".b16" => B16,
            ".b32" => B32,
            ".b64" => B64,
            ".b128" => B128,
            ".u8" => U8,
            ".u16" => U16,
            ".u32" => U32,
            ".u64" => U64,
            ".s8" => S8,
            ".s16" => S16,
            ".s32" => S32,
            ".s64" => S64,
            ".f16" => F16,
            ".f16x2" => F16x2,
            ".bf16" => Bf16,
            ".bf16x2" => Bf16x2,
            ".tf32" => Tf32,
            ".f32" => F32,
            ".f64" => F64,
            ".e4m3" => E4m3,
            ".e5m2" => E5m2,
            ".e4m3x2" => E4m3x2,
            ".e5m2x2" => E5m2x2,
            ".u16x2" => U16x2,
            ".s16x2" => S16x2,
            ".f32x2" => F32x2,
            ".pred" => Pred,
            ".texref" => TexRef,
            ".samplerref" => SamplerRef,
            ".surfref" => SurfRef,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        use Type::*;
        match self {
            B8 => ".b8",
            B16 => ".b16",
            B32 => ".b32",
            B64 => ".b64",
            B128 => ".b128",
            U8 => ".u8",
            U16 => ".u16",
            U32 => ".u32",
            U64 => ".u64",
            S8 => ".s8",
            S16 => ".s16",
            S32 => ".s32",
            S64 => ".s64",
            F16 => ".f16",
            F16x2 => ".f16x2",
            Bf16 => ".bf16",
            Bf16x2 => ".bf16x2",
            Tf32 => ".tf32",
            F32 => ".f32",
            F64 => ".f64",
            E4m3 => ".e4m3",
            E5m2 => ".e5m2",
            E4m3x2 => ".e4m3x2",
            E5m2x2 => ".e5m2x2",
            U16x2 => ".u16x2",
            S16x2 => ".s16x2",
            F32x2 => ".f32x2",
            Pred => ".pred",
            TexRef => ".texref",
            SamplerRef => ".samplerref",
            SurfRef => ".surfref",
        }
    }

    /// Size in bits (predicates count as 1, opaque handles as 64).
    pub fn bits(self) -> u32 {
        use Type::*;
        match self {
            B8 | U8 | S8 | E4m3 | E5m2 => 8,
            B16 | U16 | S16 | F16 | Bf16 | E4m3x2 | E5m2x2 => 16,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | Tf32 | U16x2 | S16x2 => 32,
            B64 | U64 | S64 | F64 | F32x2 | TexRef | SamplerRef | SurfRef => 64,
            B128 => 128,
            Pred => 1,
        }
    }

    /// Size in bytes as stored in memory (predicates are not storable; 1 is returned).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    pub fn class(self) -> Class {
        use Type::*;
        match self {
            B8 | B16 | B32 | B64 | B128 => Class::Bit,
            U8 | U16 | U32 | U64 => Class::Unsigned,
            S8 | S16 | S32 | S64 => Class::Signed,
            // Packed integer and small-float storage types behave as bit types for operand
            // agreement: they are carried in `.b` registers.
            U16x2 | S16x2 | E4m3 | E5m2 | E4m3x2 | E5m2x2 => Class::Bit,
            // `.tf32` values live in `.b32` registers only (ptxas rejects `.s32`/`.f32`).
            F16 | F16x2 | Bf16 | Bf16x2 | Tf32 | F32 | F64 | F32x2 => Class::Float,
            Pred => Class::Pred,
            TexRef | SamplerRef | SurfRef => Class::Opaque,
        }
    }

    /// Types a `.reg` may be declared with.
    pub fn is_reg_type(self) -> bool {
        !matches!(
            self,
            Type::TexRef
                | Type::SamplerRef
                | Type::SurfRef
                | Type::Tf32
                | Type::E4m3
                | Type::E5m2
                | Type::E4m3x2
                | Type::E5m2x2
                | Type::U16x2
                | Type::S16x2
                | Type::F32x2
        )
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether an operand of type `op` agrees with instruction type `instr` (§9.4).
/// `relaxed` applies §9.4.1 (the operand may be wider than the instruction type).
pub fn agrees(instr: Type, op: Type, relaxed: bool) -> bool {
    if instr == op {
        return true;
    }
    let (ic, mut oc) = (instr.class(), op.class());
    // Packed half registers hold 32 raw bits: ptxas lets integer and bit instructions use them.
    if matches!(op, Type::F16x2 | Type::Bf16x2) && ic != Class::Float {
        oc = Class::Bit;
    }
    if ic == Class::Pred || oc == Class::Pred || ic == Class::Opaque || oc == Class::Opaque {
        // Opaque handles live in 64-bit registers when loaded.
        return (ic == Class::Opaque && op.bits() == 64 && oc != Class::Pred && oc != Class::Float)
            || (oc == Class::Opaque && instr.bits() == 64 && ic == Class::Bit);
    }
    let (ib, ob) = (instr.bits(), op.bits());
    if relaxed && ob > ib {
        // Table 24/25: integer and bit instruction types take any wider non-float operand
        // (and bit types also wider floats); float instruction types only wider bit operands.
        return match ic {
            Class::Bit => true,
            Class::Signed | Class::Unsigned => oc != Class::Float,
            Class::Float => oc == Class::Bit,
            _ => false,
        };
    }
    if ib != ob {
        return false;
    }
    match ic {
        Class::Bit => true,
        Class::Signed | Class::Unsigned => oc != Class::Float,
        Class::Float => oc == Class::Bit,
        _ => false,
    }
}

/// A state space (§5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    Reg,
    Sreg,
    Const,
    Global,
    Local,
    Param,
    Shared,
    Tex,
}

impl Space {
    /// Parses a space token, ignoring `::` sub-qualifiers.
    pub fn from_dot(s: &str) -> Option<Space> {
        let base = s.find(':').map_or(s, |i| &s[..i]);
        Some(match base {
            ".reg" => Space::Reg,
            ".sreg" => Space::Sreg,
            ".const" => Space::Const,
            ".global" => Space::Global,
            ".local" => Space::Local,
            ".param" => Space::Param,
            ".shared" => Space::Shared,
            ".tex" => Space::Tex,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Space::Reg => ".reg",
            Space::Sreg => ".sreg",
            Space::Const => ".const",
            Space::Global => ".global",
            Space::Local => ".local",
            Space::Param => ".param",
            Space::Shared => ".shared",
            Space::Tex => ".tex",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Type::*;

    #[test]
    fn table_23() {
        assert!(agrees(B32, F32, false));
        assert!(agrees(S32, U32, false));
        assert!(agrees(U32, B32, false));
        assert!(!agrees(S32, F32, false));
        assert!(!agrees(F32, S32, false));
        assert!(agrees(F32, B32, false));
        assert!(!agrees(F32, F64, false));
        assert!(!agrees(U32, U64, false));
    }

    #[test]
    fn relaxed_tables_24_25() {
        assert!(agrees(U8, U32, true));
        assert!(agrees(S16, B64, true));
        assert!(!agrees(U8, F32, true));
        assert!(agrees(B8, F32, true));
        assert!(!agrees(F32, F64, true));
        assert!(agrees(F16, B32, true));
        assert!(!agrees(U32, U16, true));
    }
}
