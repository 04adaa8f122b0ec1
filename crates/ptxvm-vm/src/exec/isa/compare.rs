//! Comparisons and selections: `setp`, `set`, `selp`, `slct`, `testp`.
//!
//! Decoding (`Dx::decode_compare`, called by `program.rs`) and the reference engine's
//! execution (`Cta::exec_compare`).

use crate::exec::*;
use ptxvm_ir::ir::{self, Op};

impl Dx<'_> {
    /// Decodes the compare family's instructions (`None`: a form the engines do not run).
    pub(crate) fn decode_compare(&self, inst: &ir::Inst) -> Option<Exec> {
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        let ops = &inst.operands;
        let ty = inst.ty;
        let op = |k: usize| ops.get(k);
        Some(match inst.opcode {
            "setp" | "set" => {
                let (cop, unsigned_only) = cmp_of(mods)?;
                // The compared type is the last type modifier.
                let t = mods.iter().rev().find_map(|m| Type::from_dot(m))?;
                let cmp = if t.class() == Class::Float {
                    Cmp::Float(cop)
                } else {
                    Cmp::Int(
                        cop,
                        unsigned_only.unwrap_or(false) || t.class() != Class::Signed,
                    )
                };
                let bop = match bool_of(mods) {
                    Some(bo) => Some((bo, self.src(op(3)?)?)),
                    None => None,
                };
                if inst.opcode == "setp" {
                    let (p, q) = match op(0)? {
                        Op::Pair(a, b) => (self.dst(a)?, self.dst(b)?),
                        o => (self.dst(o)?, Dst::Sink),
                    };
                    Exec::Setp {
                        cmp,
                        ty: t,
                        ftz: has(".ftz"),
                        p,
                        q,
                        a: self.fsrc(op(1)?, t)?,
                        b: self.fsrc(op(2)?, t)?,
                        bop,
                    }
                } else {
                    let dty = mods.iter().find_map(|m| Type::from_dot(m))?;
                    Exec::Set {
                        cmp,
                        ty: t,
                        dty,
                        ftz: has(".ftz"),
                        d: self.dst(op(0)?)?,
                        a: self.fsrc(op(1)?, t)?,
                        b: self.fsrc(op(2)?, t)?,
                        bop,
                    }
                }
            }
            "selp" => {
                let t = ty?;
                Exec::Selp {
                    d: self.dst(op(0)?)?,
                    a: self.fsrc(op(1)?, t)?,
                    b: self.fsrc(op(2)?, t)?,
                    c: self.src(op(3)?)?,
                    bits: t.bits(),
                }
            }
            "slct" => {
                let tys: Vec<Type> = mods.iter().filter_map(|m| Type::from_dot(m)).collect();
                let (dty, cty) = (*tys.first()?, *tys.get(1)?);
                Exec::Slct {
                    d: self.dst(op(0)?)?,
                    a: self.fsrc(op(1)?, dty)?,
                    b: self.fsrc(op(2)?, dty)?,
                    c: self.fsrc(op(3)?, cty)?,
                    bits: dty.bits(),
                    float_c: cty == Type::F32,
                    ftz: has(".ftz"),
                }
            }
            "testp" => {
                use ptxvm_fp::arith::TestpOp as T;
                let t = ty?;
                let top = mods.iter().find_map(|m| {
                    Some(match *m {
                        ".finite" => T::Finite,
                        ".infinite" => T::Infinite,
                        ".number" => T::Number,
                        ".notanumber" => T::NotANumber,
                        ".normal" => T::Normal,
                        ".subnormal" => T::Subnormal,
                        _ => return None,
                    })
                })?;
                Exec::Testp {
                    op: top,
                    ty: t,
                    d: self.dst(op(0)?)?,
                    a: self.fsrc(op(1)?, t)?,
                }
            }
            _ => return None,
        })
    }
}

impl Cta<'_> {
    /// Runs one thread's step of a compare-family instruction (the reference engine's step).
    pub(in crate::exec) fn exec_compare(
        &mut self,
        t: usize,
        inst: &DInst,
    ) -> Result<(), Box<Fault>> {
        let next = self.sched[t].pc + 1;
        match &inst.exec {
            Exec::Setp {
                cmp,
                ty,
                ftz,
                p,
                q,
                a,
                b,
                bop,
            } => {
                let (a, b) = (self.src(t, *a), self.src(t, *b));
                let (mut r, mut nr) = match (cmp, ty) {
                    (Cmp::Float(op), Type::F16x2 | Type::Bf16x2) => {
                        crate::ops::half::compare(*op, *ty, *ftz, a, b)
                    }
                    _ => {
                        let r = compare(*cmp, *ty, *ftz, a, b);
                        (r, !r)
                    }
                };
                if let Some((op, c)) = bop {
                    let c = self.src(t, *c) != 0;
                    r = bool_op(*op, r, c);
                    nr = bool_op(*op, nr, c);
                }
                self.write(t, *p, r as u64);
                self.write(t, *q, nr as u64);
            }
            Exec::Set {
                cmp,
                ty,
                dty,
                ftz,
                d,
                a,
                b,
                bop,
            } => {
                let (a, b) = (self.src(t, *a), self.src(t, *b));
                let (mut lo, mut hi) = match (cmp, ty) {
                    (Cmp::Float(op), Type::F16x2 | Type::Bf16x2) => {
                        crate::ops::half::compare(*op, *ty, *ftz, a, b)
                    }
                    _ => {
                        let r = compare(*cmp, *ty, *ftz, a, b);
                        (r, r)
                    }
                };
                if let Some((op, c)) = bop {
                    let c = self.src(t, *c) != 0;
                    lo = bool_op(*op, lo, c);
                    hi = bool_op(*op, hi, c);
                }
                let v = if matches!(ty, Type::F16x2 | Type::Bf16x2) {
                    // Per-half results: 1.0 in the destination's half format, or 0xffff.
                    let one = match dty {
                        Type::F16x2 | Type::Bf16x2 => crate::ops::half::set_true(*dty),
                        _ => 0xffff,
                    };
                    (if lo { one } else { 0 }) | (if hi { one << 16 } else { 0 })
                } else if lo {
                    mask(crate::ops::half::set_true(*dty), dty.bits())
                } else {
                    0
                };
                self.write(t, *d, v);
            }
            Exec::Selp { d, a, b, c, bits } => {
                let v = if self.src(t, *c) != 0 {
                    self.src(t, *a)
                } else {
                    self.src(t, *b)
                };
                self.write(t, *d, mask(v, *bits));
            }
            Exec::Testp { op, ty, d, a } => {
                let a = self.src(t, *a);
                let r = if *ty == Type::F64 {
                    fa::testp_f64(*op, f64::from_bits(a))
                } else {
                    fa::testp_f32(*op, f32::from_bits(a as u32))
                };
                self.write(t, *d, r as u64);
            }
            Exec::Slct {
                d,
                a,
                b,
                c,
                bits,
                float_c,
                ftz,
            } => {
                let cv = self.src(t, *c);
                let pick = if *float_c {
                    let x = f32::from_bits(cv as u32);
                    let x = if *ftz { fa::ftz_f32(x) } else { x };
                    x >= 0.0
                } else {
                    cv as u32 as i32 >= 0
                };
                let v = if pick {
                    self.src(t, *a)
                } else {
                    self.src(t, *b)
                };
                self.write(t, *d, mask(v, *bits));
            }
            other => return Err(self.misrouted(t, other)),
        }
        self.sched[t].pc = next;
        Ok(())
    }
}
