//! Integer, floating-point, half-precision, packed, carry and predicate arithmetic, and data
//! moves (`mov`, `add`…`copysign`, the unary operations, `mad`/`fma`, `addc`/`subc`/`madc`,
//! `mul24`…`dp2a`).
//!
//! Decoding (`Dx::decode_arith`, called by `program.rs`) and the reference engine's
//! execution (`Cta::exec_arith`).

use crate::exec::*;
use ptxvm_ir::ir::{self, Op};

impl Dx<'_> {
    /// Decodes the arith family's instructions (`None`: a form the engines do not run).
    pub(crate) fn decode_arith(&self, inst: &ir::Inst) -> Option<Exec> {
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        let ops = &inst.operands;
        let ty = inst.ty;
        let op = |k: usize| ops.get(k);
        Some(match inst.opcode {
            "mov" => {
                let t = ty?;
                if t == Type::B128 {
                    // A `.b128` register is two 64-bit registers (`Dx::pair`).
                    let pair = |o: &Op| -> Option<Vec<u32>> {
                        let (lo, hi) = self.pair(o)?;
                        Some(vec![lo, hi])
                    };
                    return Some(match (op(0)?, op(1)?) {
                        (Op::Vector(parts), a) if matches!(parts.len(), 2 | 4) => Exec::Mov128 {
                            ds: parts.iter().map(|p| self.dst(p)).collect::<Option<_>>()?,
                            dbits: 128 / parts.len() as u32,
                            srcs: pair(a)?.into_iter().map(Src::Reg).collect(),
                            sbits: 64,
                        },
                        (d, Op::Vector(parts)) if matches!(parts.len(), 2 | 4) => Exec::Mov128 {
                            ds: pair(d)?.into_iter().map(Dst::Reg).collect(),
                            dbits: 64,
                            srcs: parts.iter().map(|p| self.src(p)).collect::<Option<_>>()?,
                            sbits: 128 / parts.len() as u32,
                        },
                        (d, a) => Exec::Mov128 {
                            ds: pair(d)?.into_iter().map(Dst::Reg).collect(),
                            dbits: 64,
                            srcs: pair(a)?.into_iter().map(Src::Reg).collect(),
                            sbits: 64,
                        },
                    });
                }
                match (op(0)?, op(1)?) {
                    // `mov.v2/.v4 {d..}, {a..}`: a parallel copy (every source read first),
                    // at most 128 bits (ptxas's vector limit, checked by the table).
                    (Op::Vector(ds), Op::Vector(srcs))
                        if ds.len() == srcs.len() && ds.len() as u32 * t.bits() <= 128 =>
                    {
                        Exec::Mov128 {
                            ds: ds.iter().map(|p| self.dst(p)).collect::<Option<_>>()?,
                            dbits: t.bits(),
                            srcs: srcs
                                .iter()
                                .map(|p| self.fsrc(p, t))
                                .collect::<Option<_>>()?,
                            sbits: t.bits(),
                        }
                    }
                    (Op::Vector(parts), a) => {
                        let n = parts.len() as u32;
                        Exec::Unpack {
                            ds: parts.iter().map(|p| self.dst(p)).collect::<Option<_>>()?,
                            a: self.src(a)?,
                            bits: t.bits() / n,
                        }
                    }
                    (d, Op::Vector(parts)) => {
                        let n = parts.len() as u32;
                        Exec::Pack {
                            d: self.dst(d)?,
                            parts: parts.iter().map(|p| self.src(p)).collect::<Option<_>>()?,
                            bits: t.bits() / n,
                        }
                    }
                    (d, a) => Exec::Mov {
                        d: self.dst(d)?,
                        a: self.fsrc(a, t)?,
                        bits: if t == Type::Pred { 1 } else { t.bits() },
                    },
                }
            }
            "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor"
            | "shl" | "shr" | "copysign" => {
                let t = ty?;
                if let Some(x) = self.decode_float_ext(inst, t) {
                    return x;
                }
                let (d, a, b) = (self.dst(op(0)?)?, op(1)?, op(2)?);
                if t == Type::Pred {
                    let bop = match inst.opcode {
                        "and" => BoolOp::And,
                        "or" => BoolOp::Or,
                        "xor" => BoolOp::Xor,
                        _ => return None,
                    };
                    return Some(Exec::PredOp {
                        op: Some(bop),
                        d,
                        a: self.src(a)?,
                        b: self.src(b)?,
                    });
                }
                if crate::ops::half::is_half(t) {
                    let hop = match inst.opcode {
                        "add" => HOp::Add,
                        "sub" => HOp::Sub,
                        "mul" => HOp::Mul,
                        "min" => HOp::Min,
                        "max" => HOp::Max,
                        _ => return None,
                    };
                    return Some(Exec::Half {
                        op: hop,
                        ty: t,
                        m: hmods(mods),
                        d,
                        a: self.src(a)?,
                        b: self.src(b)?,
                        c: Src::Imm(0),
                    });
                }
                if matches!(t, Type::U16x2 | Type::S16x2) {
                    let pop = match inst.opcode {
                        "add" => Packed::Add,
                        "sub" => Packed::Sub,
                        "min" => Packed::Min,
                        "max" => Packed::Max,
                        _ => return None,
                    };
                    return Some(Exec::IntX {
                        op: IntX::Packed {
                            op: pop,
                            relu: has(".relu"),
                        },
                        ty: t,
                        d,
                        s: [self.src(a)?, self.src(b)?, Src::Imm(0), Src::Imm(0)],
                        pred: None,
                    });
                }
                if has(".relu") && matches!(inst.opcode, "min" | "max") {
                    return Some(Exec::IntX {
                        op: IntX::MinMaxRelu {
                            max: inst.opcode == "max",
                        },
                        ty: t,
                        d,
                        s: [self.src(a)?, self.src(b)?, Src::Imm(0), Src::Imm(0)],
                        pred: None,
                    });
                }
                if has(".cc") && matches!(inst.opcode, "add" | "sub") {
                    return Some(Exec::Carry {
                        op: if inst.opcode == "add" {
                            CarryOp::Add
                        } else {
                            CarryOp::Sub
                        },
                        ty: t,
                        cin: false,
                        cout: true,
                        d,
                        a: self.src(a)?,
                        b: self.src(b)?,
                        c: Src::Imm(0),
                    });
                }
                if t.class() == Class::Float && matches!(t, Type::F32 | Type::F64) {
                    let fop = match inst.opcode {
                        "add" => FOp::Add,
                        "sub" => FOp::Sub,
                        "mul" => FOp::Mul,
                        "div" if has(".full") => FOp::DivFull,
                        "div" if has(".approx") => FOp::DivApprox,
                        "div" => FOp::Div,
                        "min" => FOp::Min,
                        "max" => FOp::Max,
                        "copysign" => FOp::Copysign,
                        _ => return None,
                    };
                    return Some(Exec::Float {
                        op: fop,
                        ty: t,
                        rnd: rnd_of(mods).unwrap_or(ptxvm_fp::Rnd::Rn),
                        ftz: has(".ftz"),
                        sat: has(".sat"),
                        nan: has(".NaN"),
                        xorsign: has(".xorsign"),
                        d,
                        a: self.fsrc(a, t)?,
                        b: self.fsrc(b, t)?,
                    });
                }
                if t.class() == Class::Float {
                    return None;
                }
                let iop = match inst.opcode {
                    "add" if has(".sat") => IntOp::AddSat,
                    "sub" if has(".sat") => IntOp::SubSat,
                    "add" if !has(".cc") => IntOp::Add,
                    "sub" if !has(".cc") => IntOp::Sub,
                    "mul" if has(".wide") => IntOp::MulWide,
                    "mul" if has(".hi") => IntOp::MulHi,
                    "mul" => IntOp::MulLo,
                    "div" => IntOp::Div,
                    "rem" => IntOp::Rem,
                    "min" if mods.len() == 1 => IntOp::Min,
                    "max" if mods.len() == 1 => IntOp::Max,
                    "and" => IntOp::And,
                    "or" => IntOp::Or,
                    "xor" => IntOp::Xor,
                    "shl" => IntOp::Shl,
                    "shr" => IntOp::Shr,
                    _ => return None,
                };
                if matches!(t, Type::U16x2 | Type::S16x2) {
                    return None;
                }
                Exec::Int {
                    op: iop,
                    ty: t,
                    d,
                    a: self.src(a)?,
                    b: self.src(b)?,
                }
            }
            "not" | "cnot" | "neg" | "abs" | "popc" | "clz" | "brev" | "sqrt" | "rcp" | "rsqrt"
            | "sin" | "cos" | "lg2" | "ex2" | "tanh" => {
                let t = ty?;
                let (d, a) = (self.dst(op(0)?)?, op(1)?);
                if t == Type::Pred && inst.opcode == "not" {
                    return Some(Exec::PredOp {
                        op: None,
                        d,
                        a: self.src(a)?,
                        b: Src::Imm(0),
                    });
                }
                if crate::ops::half::is_half(t) {
                    let hop = match inst.opcode {
                        "neg" => HOp::Neg,
                        "abs" => HOp::Abs,
                        "ex2" => HOp::Ex2,
                        "tanh" => HOp::Tanh,
                        _ => return None,
                    };
                    return Some(Exec::Half {
                        op: hop,
                        ty: t,
                        m: hmods(mods),
                        d,
                        a: self.src(a)?,
                        b: Src::Imm(0),
                        c: Src::Imm(0),
                    });
                }
                if matches!(t, Type::F32 | Type::F64) {
                    let approx = has(".approx");
                    let fun = match inst.opcode {
                        "neg" => FUn::Neg,
                        "abs" => FUn::Abs,
                        "sqrt" if approx => FUn::SqrtApprox,
                        "sqrt" => FUn::Sqrt,
                        "rcp" if approx => FUn::RcpApprox,
                        "rcp" => FUn::Rcp,
                        "rsqrt" => FUn::Rsqrt,
                        "sin" => FUn::Sin,
                        "cos" => FUn::Cos,
                        "lg2" => FUn::Lg2,
                        "ex2" => FUn::Ex2,
                        "tanh" => FUn::Tanh,
                        _ => return None,
                    };
                    return Some(Exec::FloatUn {
                        op: fun,
                        ty: t,
                        rnd: rnd_of(mods).unwrap_or(ptxvm_fp::Rnd::Rn),
                        ftz: has(".ftz"),
                        d,
                        a: self.fsrc(a, t)?,
                    });
                }
                if t.class() == Class::Float {
                    return None;
                }
                let u = match inst.opcode {
                    "not" => IntUn::Not,
                    "cnot" => IntUn::Cnot,
                    "neg" => IntUn::Neg,
                    "abs" => IntUn::Abs,
                    "popc" => IntUn::Popc,
                    "clz" => IntUn::Clz,
                    "brev" => IntUn::Brev,
                    _ => return None,
                };
                Exec::IntUn {
                    op: u,
                    ty: t,
                    d,
                    a: self.src(a)?,
                }
            }
            "mad" | "fma" => {
                let t = ty?;
                if let Some(x) = self.decode_float_ext(inst, t) {
                    return x;
                }
                let (d, a, b, c) = (self.dst(op(0)?)?, op(1)?, op(2)?, op(3)?);
                if matches!(t, Type::F32 | Type::F64) {
                    return Some(Exec::Fma {
                        ty: t,
                        rnd: rnd_of(mods).unwrap_or(ptxvm_fp::Rnd::Rn),
                        ftz: has(".ftz"),
                        sat: has(".sat"),
                        d,
                        a: self.fsrc(a, t)?,
                        b: self.fsrc(b, t)?,
                        c: self.fsrc(c, t)?,
                    });
                }
                if crate::ops::half::is_half(t) && inst.opcode == "fma" {
                    return Some(Exec::Half {
                        op: if has(".oob") { HOp::FmaOob } else { HOp::Fma },
                        ty: t,
                        m: hmods(mods),
                        d,
                        a: self.src(a)?,
                        b: self.src(b)?,
                        c: self.src(c)?,
                    });
                }
                if t.class() == Class::Float || inst.opcode == "fma" {
                    return None;
                }
                if has(".cc") {
                    return Some(Exec::Carry {
                        op: if has(".hi") {
                            CarryOp::MadHi
                        } else {
                            CarryOp::MadLo
                        },
                        ty: t,
                        cin: false,
                        cout: true,
                        d,
                        a: self.src(a)?,
                        b: self.src(b)?,
                        c: self.src(c)?,
                    });
                }
                let mode = if has(".wide") {
                    IntOp::MulWide
                } else if has(".hi") {
                    IntOp::MulHi
                } else {
                    IntOp::MulLo
                };
                Exec::Mad {
                    mode,
                    ty: t,
                    sat: has(".sat"),
                    d,
                    a: self.src(a)?,
                    b: self.src(b)?,
                    c: self.src(c)?,
                }
            }
            "addc" | "subc" | "madc" => {
                let t = ty?;
                let d = self.dst(op(0)?)?;
                let c = match op(3) {
                    Some(o) => self.src(o)?,
                    None => Src::Imm(0),
                };
                Exec::Carry {
                    op: match inst.opcode {
                        "addc" => CarryOp::Add,
                        "subc" => CarryOp::Sub,
                        _ if has(".hi") => CarryOp::MadHi,
                        _ => CarryOp::MadLo,
                    },
                    ty: t,
                    cin: true,
                    cout: has(".cc"),
                    d,
                    a: self.src(op(1)?)?,
                    b: self.src(op(2)?)?,
                    c,
                }
            }
            "mul24" | "mad24" | "sad" | "bfe" | "bfi" | "bfind" | "fns" | "szext" | "bmsk"
            | "prmt" | "lop3" | "shf" | "dp4a" | "dp2a" => {
                let t = ty.or_else(|| mods.iter().rev().find_map(|m| Type::from_dot(m)))?;
                let signed = t.class() == Class::Signed;
                let tys: Vec<Type> = mods.iter().filter_map(|m| Type::from_dot(m)).collect();
                let sgn = |k: usize| tys.get(k).is_some_and(|t| t.class() == Class::Signed);
                let xop = match inst.opcode {
                    "mul24" => IntX::Mul24 { hi: has(".hi") },
                    "mad24" => IntX::Mad24 {
                        hi: has(".hi"),
                        sat: has(".sat"),
                    },
                    "sad" => IntX::Sad,
                    "bfe" => IntX::Bfe,
                    "bfi" => IntX::Bfi,
                    "bfind" => IntX::Bfind {
                        shiftamt: has(".shiftamt"),
                    },
                    "fns" => IntX::Fns,
                    "szext" => IntX::Szext {
                        clamp: has(".clamp"),
                    },
                    "bmsk" => IntX::Bmsk {
                        clamp: has(".clamp"),
                    },
                    "prmt" => IntX::Prmt(mods.iter().find_map(|m| PrmtMode::from_mod(m))),
                    "lop3" => IntX::Lop3,
                    "shf" => IntX::Shf {
                        left: has(".l"),
                        clamp: has(".clamp"),
                    },
                    "dp4a" => IntX::Dp4a {
                        sa: sgn(0),
                        sb: sgn(1),
                    },
                    _ => IntX::Dp2a {
                        hi: has(".hi"),
                        sa: sgn(0),
                        sb: sgn(1),
                    },
                };
                let _ = signed;
                let (d, pd) = match op(0)? {
                    Op::Pair(a, b) => (self.dst(a)?, Some(self.dst(b)?)),
                    o => (self.dst(o)?, None),
                };
                let mut s = [Src::Imm(0); 4];
                let nsrc = if xop == IntX::Lop3 { 4 } else { ops.len() - 1 };
                for (k, slot) in s.iter_mut().enumerate().take(nsrc.min(4)) {
                    *slot = self.src(op(k + 1)?)?;
                }
                let pred = match (xop, bool_of(mods)) {
                    (IntX::Lop3, Some(bop)) => {
                        Some((pd.unwrap_or(Dst::Sink), bop, self.src(op(5)?)?))
                    }
                    _ => None,
                };
                Exec::IntX {
                    op: xop,
                    ty: t,
                    d,
                    s,
                    pred,
                }
            }
            _ => return None,
        })
    }
}

impl Dx<'_> {
    /// The [`FloatExt`] forms: `.f32x2`, `.f32.f16`/`.f32.bf16` and three-input `min`/`max`
    /// (`None`: not one of them; `Some(None)`: one of them that does not decode).
    fn decode_float_ext(&self, inst: &ir::Inst, t: Type) -> Option<Option<Exec>> {
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        let ops = &inst.operands;
        let fop = match inst.opcode {
            "add" => Some(FOp::Add),
            "sub" => Some(FOp::Sub),
            "mul" => Some(FOp::Mul),
            _ => None,
        };
        let x = if t == Type::F32x2 {
            FloatExt::X2(fop)
        } else if t == Type::F32 && (has(".f16") || has(".bf16")) {
            FloatExt::Mixed {
                op: fop,
                bf16: has(".bf16"),
            }
        } else if t == Type::F32 && matches!(inst.opcode, "min" | "max") && ops.len() == 4 {
            FloatExt::MinMax3 {
                max: inst.opcode == "max",
                abs: has(".abs"),
            }
        } else {
            return None;
        };
        let fma = matches!(inst.opcode, "fma" | "mad");
        if fop.is_none() && !fma && !matches!(x, FloatExt::MinMax3 { .. }) {
            return Some(None);
        }
        let src = |k: usize| ops.get(k).and_then(|o| self.fsrc(o, Type::F32));
        // Mixed add/sub have two sources (`d, a, c`); the others name all of theirs.
        let n = ops.len();
        Some((|| {
            Some(Exec::FloatExt {
                x,
                rnd: rnd_of(mods).unwrap_or(ptxvm_fp::Rnd::Rn),
                ftz: has(".ftz"),
                sat: has(".sat"),
                nan: has(".NaN"),
                d: self.dst(ops.first()?)?,
                a: src(1)?,
                b: src(2)?,
                c: if n > 3 { src(3)? } else { Src::Imm(0) },
            })
        })())
    }
}

impl Cta<'_> {
    /// Runs one thread's step of a arith-family instruction (the reference engine's step).
    pub(in crate::exec) fn exec_arith(&mut self, t: usize, inst: &DInst) -> Result<(), Box<Fault>> {
        let next = self.sched[t].pc + 1;
        match &inst.exec {
            Exec::Mov { d, a, bits } => {
                let v = mask(self.src(t, *a), *bits);
                self.write(t, *d, v);
            }
            Exec::Pack { d, parts, bits } => {
                let mut v = 0u64;
                for (k, p) in parts.iter().enumerate() {
                    v |= mask(self.src(t, *p), *bits) << (k as u32 * bits);
                }
                self.write(t, *d, v);
            }
            Exec::Mov128 {
                ds,
                dbits,
                srcs,
                sbits,
            } => {
                // Sources are read before any destination is written.
                let mut v = 0u128;
                for (k, p) in srcs.iter().enumerate() {
                    let x = mask(self.src(t, *p), *sbits) as u128;
                    v |= x.checked_shl(k as u32 * sbits).unwrap_or(0);
                }
                for (k, d) in ds.iter().enumerate() {
                    let x = v.checked_shr(k as u32 * dbits).unwrap_or(0) as u64;
                    self.write(t, *d, mask(x, *dbits));
                }
            }
            Exec::Unpack { ds, a, bits } => {
                let v = self.src(t, *a);
                for (k, d) in ds.iter().enumerate() {
                    self.write(t, *d, mask(v >> (k as u32 * bits), *bits));
                }
            }
            Exec::Int { op, ty, d, a, b } => {
                let (a, b) = (self.src(t, *a), self.src(t, *b));
                self.write(t, *d, int_bin(*op, *ty, a, b));
            }
            Exec::IntUn { op, ty, d, a } => {
                let a = self.src(t, *a);
                self.write(t, *d, int_un(*op, *ty, a));
            }
            Exec::Mad {
                mode,
                ty,
                sat,
                d,
                a,
                b,
                c,
            } => {
                let (a, b, c) = (self.src(t, *a), self.src(t, *b), self.src(t, *c));
                let p = int_bin(*mode, *ty, a, b);
                let v = if *sat && *mode == IntOp::MulHi {
                    let s = (sext(p, 32) as i64).saturating_add(sext(c, 32) as i64);
                    s.clamp(i32::MIN as i64, i32::MAX as i64) as u64
                } else {
                    p.wrapping_add(c)
                };
                let bits = if *mode == IntOp::MulWide {
                    ty.bits() * 2
                } else {
                    ty.bits()
                };
                self.write(t, *d, mask(v, bits));
            }
            Exec::Float {
                op,
                ty,
                rnd,
                ftz,
                sat,
                nan,
                xorsign,
                d,
                a,
                b,
            } => {
                let (a, b) = (self.src(t, *a), self.src(t, *b));
                self.write(
                    t,
                    *d,
                    float_bin(*op, *ty, *rnd, *ftz, *sat, *nan, *xorsign, a, b),
                );
            }
            Exec::FloatUn {
                op,
                ty,
                rnd,
                ftz,
                d,
                a,
            } => {
                let a = self.src(t, *a);
                self.write(t, *d, float_un(*op, *ty, *rnd, *ftz, a));
            }
            Exec::FloatExt {
                x,
                rnd,
                ftz,
                sat,
                nan,
                d,
                a,
                b,
                c,
            } => {
                let (a, b, c) = (self.src(t, *a), self.src(t, *b), self.src(t, *c));
                let v = crate::ops::alu::float_ext(*x, *rnd, *ftz, *sat, *nan, a, b, c);
                self.write(t, *d, v);
            }
            Exec::Fma {
                ty,
                rnd,
                ftz,
                sat,
                d,
                a,
                b,
                c,
            } => {
                let (a, b, c) = (self.src(t, *a), self.src(t, *b), self.src(t, *c));
                let v = fma_bits(*ty, *rnd, *ftz, *sat, a, b, c);
                self.write(t, *d, v);
            }
            Exec::IntX {
                op,
                ty,
                d,
                s: srcs,
                pred,
            } => {
                let v = [
                    self.src(t, srcs[0]),
                    self.src(t, srcs[1]),
                    self.src(t, srcs[2]),
                    self.src(t, srcs[3]),
                ];
                let r = int_x(*op, *ty, v);
                self.write(t, *d, r);
                if let Some((p, bop, q)) = pred {
                    let q = self.src(t, *q) != 0;
                    self.write(t, *p, bool_op(*bop, r != 0, q) as u64);
                }
            }
            Exec::Carry {
                op,
                ty,
                cin,
                cout,
                d,
                a,
                b,
                c,
            } => {
                let (a, b, c) = (self.src(t, *a), self.src(t, *b), self.src(t, *c));
                let cf = *cin && self.threads[t].cf;
                let (r, co) = crate::ops::int::carry(
                    *op,
                    a,
                    b,
                    c,
                    ty.bits(),
                    ty.class() == Class::Signed,
                    cf,
                );
                self.write(t, *d, r);
                if *cout {
                    self.touched = true;
                    self.threads[t].cf = co;
                }
            }
            Exec::Half {
                op,
                ty,
                m,
                d,
                a,
                b,
                c,
            } => {
                let (a, b, c) = (self.src(t, *a), self.src(t, *b), self.src(t, *c));
                self.write(t, *d, crate::ops::half::eval(*op, *ty, *m, a, b, c));
            }
            Exec::PredOp { op, d, a, b } => {
                let a = self.src(t, *a) != 0;
                let v = match op {
                    None => !a,
                    Some(o) => bool_op(*o, a, self.src(t, *b) != 0),
                };
                self.write(t, *d, v as u64);
            }
            other => return Err(self.misrouted(t, other)),
        }
        self.sched[t].pc = next;
        Ok(())
    }
}
