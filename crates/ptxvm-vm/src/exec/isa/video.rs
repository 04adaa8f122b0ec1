//! The video instructions: `vadd`…`vset` and their `2`/`4` SIMD forms.
//!
//! Decoding (`Dx::decode_video`, called by `program.rs`) and the reference engine's
//! execution (`Cta::exec_video`).

use crate::exec::*;
use ptxvm_ir::ir::{self, Op};

impl Dx<'_> {
    /// Decodes the video family's instructions (`None`: a form the engines do not run).
    pub(crate) fn decode_video(&self, inst: &ir::Inst) -> Option<Exec> {
        let mods: &[&str] = &inst.mods;
        let ops = &inst.operands;
        let op = |k: usize| ops.get(k);
        Some(match inst.opcode {
            "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vmad" | "vset"
            | "vadd2" | "vsub2" | "vavrg2" | "vabsdiff2" | "vmin2" | "vmax2" | "vset2"
            | "vadd4" | "vsub4" | "vavrg4" | "vabsdiff4" | "vmin4" | "vmax4" | "vset4" => {
                // Strip negates and selectors: they live in the spec.
                let split = |o: &Op| -> (Op, Option<ir::VSel>, bool) {
                    let (o, neg) = match o {
                        Op::Neg(x) => (&**x, true),
                        x => (x, false),
                    };
                    match o {
                        Op::Select(r, s) => (Op::Reg(*r), Some(*s), neg),
                        x => (x.clone(), None, neg),
                    }
                };
                let (d, dsel, _) = split(op(0)?);
                let (a, asel, na) = split(op(1)?);
                let (b, bsel, nb) = split(op(2)?);
                let (c, _, nc) = op(3).map_or((Op::Imm(0), None, false), split);
                let v = Video::decode(inst.opcode, mods, dsel, asel, bsel, [na, nb, nc])?;
                Exec::Video(Box::new(VideoInst {
                    v,
                    d: self.dst(&d)?,
                    a: self.src(&a)?,
                    b: self.src(&b)?,
                    c: self.src(&c)?,
                }))
            }
            _ => return None,
        })
    }
}

impl Cta<'_> {
    /// Runs one thread's step of a video-family instruction (the reference engine's step).
    pub(in crate::exec) fn exec_video(&mut self, t: usize, inst: &DInst) -> Result<(), Box<Fault>> {
        let next = self.sched[t].pc + 1;
        match &inst.exec {
            Exec::Video(x) => {
                let (a, b, c) = (self.src(t, x.a), self.src(t, x.b), self.src(t, x.c));
                let r = x.v.eval(a as u32, b as u32, c as u32);
                self.write(t, x.d, r as u64);
            }
            other => return Err(self.misrouted(t, other)),
        }
        self.sched[t].pc = next;
        Ok(())
    }
}
