//! Conversions: `cvt` (scalar, packed and narrow forms) and `cvta`.
//!
//! Decoding (`Dx::decode_convert`, called by `program.rs`) and the reference engine's
//! execution (`Cta::exec_convert`).

use crate::exec::*;
use ptxvm_ir::ir::{self, Op};

impl Dx<'_> {
    /// The packed and narrow `cvt` forms (`None` for the scalar ones).
    fn cvt_x(&self, inst: &ir::Inst) -> Option<Exec> {
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        let op = |k: usize| inst.operands.get(k);
        let rnd = rnd_of(mods).unwrap_or(ptxvm_fp::Rnd::Rn);
        let (relu, satfinite) = (has(".relu"), has(".satfinite"));
        let rs = has(".rs");
        let narrow = mods.iter().find_map(|m| narrow_of(m));
        // `cvt.rs{.relu}.satfinite.<narrow>x4.f32 d, {a, b, e, f}, rbits`.
        let narrow4 = mods.iter().find_map(|m| match *m {
            ".e4m3x4" => Some(ptxvm_fp::convert::NarrowType::E4M3),
            ".e5m2x4" => Some(ptxvm_fp::convert::NarrowType::E5M2),
            ".e2m1x4" => Some(ptxvm_fp::convert::NarrowType::E2M1),
            ".e2m3x4" => Some(ptxvm_fp::convert::NarrowType::E2M3),
            ".e3m2x4" => Some(ptxvm_fp::convert::NarrowType::E3M2),
            _ => None,
        });
        if rs && let (Some(ty), Some(Op::Vector(v))) = (narrow4, op(1)) {
            let a: Vec<Src> = v.iter().map(|x| self.src(x)).collect::<Option<_>>()?;
            return Some(Exec::CvtRsX4 {
                ty,
                relu,
                d: self.dst(op(0)?)?,
                a: a.try_into().ok()?,
                rbits: self.src(op(2)?)?,
            });
        }
        let first = mods.iter().position(|m| {
            Type::from_dot(m).is_some() || narrow_of(m).is_some() || *m == ".ue8m0x2"
        })?;
        let dst = mods[first];
        let src = *mods.get(first + 1)?;
        let x = if has(".pack") {
            // `cvt.pack.sat.ctype.s32{.b32}`: the converted type follows `.sat` (the
            // sub-byte types `.u4`/`.s4`/`.u2`/`.s2` are not register types).
            let at = mods.iter().position(|m| *m == ".sat")? + 1;
            let dst = *mods.get(at)?;
            let signed = dst.starts_with(".s");
            if mods.len() > at + 2 {
                let size = match dst.get(2..)? {
                    "2" => 2,
                    "4" => 4,
                    "8" => 8,
                    _ => return None,
                };
                CvtX::PackSat { size, signed }
            } else {
                CvtX::PackSat16 { signed }
            }
        } else {
            match (dst, src) {
                (".f16x2" | ".bf16x2", ".f32") if rs => CvtX::Half2F32Rs {
                    bf: dst == ".bf16x2",
                    relu,
                    satfinite,
                },
                _ if rs => return None,
                (".f16x2" | ".bf16x2", ".f32") => CvtX::Half2F32 {
                    bf: dst == ".bf16x2",
                    rnd,
                    relu,
                    satfinite,
                },
                (".tf32", ".f32") => CvtX::Tf32 {
                    rnd,
                    relu,
                    satfinite,
                },
                (_, ".f32") if narrow.is_some() && narrow_of(dst).is_some() => {
                    CvtX::NarrowF32 { ty: narrow?, relu }
                }
                (_, ".f16x2") if narrow_of(dst).is_some() => {
                    CvtX::NarrowF16x2 { ty: narrow?, relu }
                }
                (".f16x2", _) if narrow_of(src).is_some() => {
                    CvtX::F16x2Narrow { ty: narrow?, relu }
                }
                (".ue8m0x2", ".f32") => CvtX::Ue8m0F32 { rnd, satfinite },
                (".ue8m0x2", ".bf16x2") => CvtX::Ue8m0Bf16x2 { rnd, satfinite },
                (".bf16x2", ".ue8m0x2") => CvtX::Bf16x2Ue8m0,
                _ => return None,
            }
        };
        let src_or0 = |k: usize| match op(k) {
            Some(o) => self.src(o),
            None => Some(Src::Imm(0)),
        };
        Some(Exec::CvtX {
            op: x,
            d: self.dst(op(0)?)?,
            a: src_or0(1)?,
            b: src_or0(2)?,
            c: src_or0(3)?,
        })
    }

    /// Decodes the convert family's instructions (`None`: a form the engines do not run).
    pub(crate) fn decode_convert(&self, inst: &ir::Inst) -> Option<Exec> {
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        let ops = &inst.operands;
        let op = |k: usize| ops.get(k);
        Some(match inst.opcode {
            "cvt" => {
                if let Some(x) = self.cvt_x(inst) {
                    return Some(x);
                }
                let tys: Vec<Type> = mods.iter().filter_map(|m| Type::from_dot(m)).collect();
                if tys.len() != 2
                    || mods.iter().any(|m| {
                        m.contains("x2") || m.starts_with(".e") || *m == ".tf32" || *m == ".pack"
                    })
                {
                    return None;
                }
                Exec::Cvt {
                    dty: tys[0],
                    aty: tys[1],
                    rnd: rnd_of(mods),
                    irnd: irnd_of(mods),
                    sat: has(".sat"),
                    ftz: has(".ftz"),
                    relu: has(".relu"),
                    satfinite: has(".satfinite"),
                    d: self.dst(op(0)?)?,
                    a: self.src(op(1)?)?,
                }
            }
            "cvta" => {
                let to = has(".to");
                let space = space_of(mods);
                let addr = match op(1)? {
                    Op::Sym { var, offset, .. } => Some(Addr::Var(self.var(*var), *offset)),
                    _ => None,
                };
                let a = if addr.is_some() {
                    Src::Imm(0)
                } else {
                    self.src(op(1)?)?
                };
                Exec::Cvta {
                    to,
                    space,
                    d: self.dst(op(0)?)?,
                    a,
                    addr,
                }
            }
            _ => return None,
        })
    }
}

impl Cta<'_> {
    /// Runs one thread's step of a convert-family instruction (the reference engine's step).
    pub(in crate::exec) fn exec_convert(
        &mut self,
        t: usize,
        inst: &DInst,
    ) -> Result<(), Box<Fault>> {
        let next = self.sched[t].pc + 1;
        match &inst.exec {
            Exec::CvtX { op, d, a, b, c } => {
                let (a, b, c) = (self.src(t, *a), self.src(t, *b), self.src(t, *c));
                self.write(t, *d, cvt_x(*op, a, b, c));
            }
            Exec::CvtRsX4 {
                ty,
                relu,
                d,
                a,
                rbits,
            } => {
                let v = a.map(|x| self.src(t, x) as u32);
                let r = self.src(t, *rbits) as u32;
                self.write(t, *d, crate::ops::alu::cvt_rs_x4(*ty, *relu, v, r));
            }
            Exec::Cvt {
                dty,
                aty,
                rnd,
                irnd,
                sat,
                ftz,
                relu,
                satfinite,
                d,
                a,
            } => {
                let a = self.src(t, *a);
                match cvt(*dty, *aty, *rnd, *irnd, *sat, *ftz, *relu, *satfinite, a) {
                    Some(v) => self.write(t, *d, v),
                    None => {
                        return Err(
                            self.unsupported(t, &format!("cvt{}{}", dty.name(), aty.name()))
                        );
                    }
                }
            }
            Exec::Cvta {
                to,
                space,
                d,
                a,
                addr,
            } => {
                let v = match addr {
                    Some(Addr::Var(loc, off)) => self.var_addr(t, *loc).wrapping_add(*off as u64),
                    _ => self.src(t, *a),
                };
                self.write(t, *d, cvta_value(*space, *to, v));
            }
            other => return Err(self.misrouted(t, other)),
        }
        self.sched[t].pc = next;
        Ok(())
    }
}
