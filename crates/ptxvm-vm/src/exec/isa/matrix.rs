//! Matrix instructions: `ldmatrix`, `stmatrix`, `movmatrix`, `mma`, `wmma`, `wgmma`.
//!
//! Decoding (`Dx::decode_matrix`, called by `program.rs`) and the execution for a whole warp
//! (`Cta::matrix_exec`); fragment layouts and the tensor-core arithmetic are in
//! [`crate::ops::tensor`], the `wgmma` layouts, descriptors and queue in [`crate::ops::wgmma`]
//! (`Cta::wgmma_exec`, its per-warp state in `Cta::wgmma`, and `Cta::wgmma_check`, the check of
//! the instructions `guard_in_flight` wrapped).

use crate::exec::*;
use ptxvm_ir::ir::{self, Op};

impl Dx<'_> {
    /// Decodes the matrix family's instructions (`None`: a form the engines do not run).
    pub(crate) fn decode_matrix(&self, inst: &ir::Inst) -> Option<Exec> {
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        let ops = &inst.operands;
        let op = |k: usize| ops.get(k);
        Some(match inst.opcode {
            "ldmatrix" | "stmatrix" | "movmatrix" if has(".m8n8") && has(".b16") => {
                let n = if has(".x4") {
                    4
                } else if has(".x2") {
                    2
                } else {
                    1
                };
                let trans = has(".trans");
                let regs = |o: &Op| -> Vec<Op> {
                    match o {
                        Op::Vector(v) => v.clone(),
                        other => vec![other.clone()],
                    }
                };
                match inst.opcode {
                    "ldmatrix" => {
                        let dsts = regs(op(0)?)
                            .iter()
                            .map(|o| self.dst(o))
                            .collect::<Option<Vec<_>>>()?;
                        if dsts.len() != n as usize {
                            return None;
                        }
                        Exec::Matrix {
                            op: MatrixOp::Ld { n, trans },
                            dsts,
                            srcs: Vec::new(),
                            addr: Some((space_of(mods), self.addr(op(1)?)?)),
                        }
                    }
                    "stmatrix" => {
                        let srcs = regs(op(1)?)
                            .iter()
                            .map(|o| self.src(o))
                            .collect::<Option<Vec<_>>>()?;
                        if srcs.len() != n as usize {
                            return None;
                        }
                        Exec::Matrix {
                            op: MatrixOp::St { n, trans },
                            dsts: Vec::new(),
                            srcs,
                            addr: Some((space_of(mods), self.addr(op(0)?)?)),
                        }
                    }
                    _ if trans => Exec::Matrix {
                        op: MatrixOp::MovTrans,
                        dsts: vec![self.dst(op(0)?)?],
                        srcs: vec![self.src(op(1)?)?],
                        addr: None,
                    },
                    _ => return None,
                }
            }
            "ldmatrix" | "stmatrix" if has(".b8") && (has(".m16n16") || has(".m16n8")) => {
                return self.decode_matrix_b8(inst);
            }
            "ldmatrix" if has(".b8x16") => return self.decode_ldmatrix_b8x16(inst),
            "mma" => {
                let regs = |o: &Op| -> Vec<Op> {
                    match o {
                        Op::Vector(v) => v.clone(),
                        other => vec![other.clone()],
                    }
                };
                let (d, a, b, c) = (regs(op(0)?), regs(op(1)?), regs(op(2)?), regs(op(3)?));
                if mods.iter().any(|m| m.starts_with(".sp")) {
                    return self.decode_mma_sp(inst, (d, a, b, c));
                }
                if has(".block_scale") {
                    return self.decode_mma_scaled(inst, &d, &a, &b, &c);
                }
                let spec =
                    crate::ops::tensor::MmaSpec::parse(mods, a.len(), b.len(), c.len(), d.len())?;
                Exec::Matrix {
                    op: MatrixOp::Mma(spec),
                    dsts: d.iter().map(|o| self.dst(o)).collect::<Option<Vec<_>>>()?,
                    srcs: a
                        .iter()
                        .chain(&b)
                        .chain(&c)
                        .map(|o| self.src(o))
                        .collect::<Option<Vec<_>>>()?,
                    addr: None,
                }
            }
            "wmma" => {
                let regs = |o: &Op| -> Vec<Op> {
                    match o {
                        Op::Vector(v) => v.clone(),
                        other => vec![other.clone()],
                    }
                };
                use crate::ops::tensor::{WmmaMma, WmmaMove};
                if has(".load") {
                    let r = regs(op(0)?);
                    let stride = match op(2) {
                        Some(o) => Some(self.src(o)?),
                        None => None,
                    };
                    Exec::Matrix {
                        op: MatrixOp::WmmaLoad(WmmaMove::parse(mods, r.len(), stride.is_some())?),
                        dsts: r.iter().map(|o| self.dst(o)).collect::<Option<Vec<_>>>()?,
                        srcs: stride.into_iter().collect(),
                        addr: Some((space_of(mods), self.addr(op(1)?)?)),
                    }
                } else if has(".store") {
                    let r = regs(op(1)?);
                    let stride = match op(2) {
                        Some(o) => Some(self.src(o)?),
                        None => None,
                    };
                    let mut srcs = r.iter().map(|o| self.src(o)).collect::<Option<Vec<_>>>()?;
                    srcs.extend(stride);
                    Exec::Matrix {
                        op: MatrixOp::WmmaStore(WmmaMove::parse(mods, r.len(), stride.is_some())?),
                        dsts: Vec::new(),
                        srcs,
                        addr: Some((space_of(mods), self.addr(op(0)?)?)),
                    }
                } else if has(".mma") {
                    let (d, a, b, c) = (regs(op(0)?), regs(op(1)?), regs(op(2)?), regs(op(3)?));
                    Exec::Matrix {
                        op: MatrixOp::WmmaMma(WmmaMma::parse(
                            mods,
                            a.len(),
                            b.len(),
                            c.len(),
                            d.len(),
                        )?),
                        dsts: d.iter().map(|o| self.dst(o)).collect::<Option<Vec<_>>>()?,
                        srcs: a
                            .iter()
                            .chain(&b)
                            .chain(&c)
                            .map(|o| self.src(o))
                            .collect::<Option<Vec<_>>>()?,
                        addr: None,
                    }
                } else {
                    return None;
                }
            }
            "wgmma" => {
                use crate::ops::wgmma::WgOp;
                let imm = |o: &Op| match o {
                    Op::Imm(v) => Some(*v),
                    _ => None,
                };
                if !has(".mma_async") {
                    let imms = ops.iter().map(imm).collect::<Option<Vec<_>>>()?;
                    return Some(Exec::Matrix {
                        op: MatrixOp::Wgmma(WgOp::parse(mods, 0, 0, &imms)?),
                        dsts: Vec::new(),
                        srcs: Vec::new(),
                        addr: None,
                    });
                }
                let d = match op(0)? {
                    Op::Vector(v) => v.clone(),
                    other => vec![other.clone()],
                };
                let (a, a_len) = match op(1)? {
                    Op::Vector(v) => (v.clone(), v.len()),
                    other => (vec![other.clone()], 0),
                };
                // `.sp`: d, a, b-desc, sp-meta, sp-sel, scale-d, immediates; the selector is
                // passed as the first immediate, the metadata after scale-d.
                let sparse = has(".sp");
                let (scale_at, imm_from) = if sparse { (5, 6) } else { (3, 4) };
                let mut imms = ops
                    .get(imm_from..)
                    .unwrap_or(&[])
                    .iter()
                    .map(imm)
                    .collect::<Option<Vec<_>>>()?;
                if sparse {
                    imms.insert(0, imm(op(4)?)?);
                }
                let spec = WgOp::parse(mods, d.len(), a_len, &imms)?;
                let mut srcs = a.iter().map(|o| self.src(o)).collect::<Option<Vec<_>>>()?;
                srcs.push(self.src(op(2)?)?);
                srcs.push(self.src(op(scale_at)?)?);
                if sparse {
                    srcs.push(self.src(op(3)?)?);
                }
                Exec::Matrix {
                    op: MatrixOp::Wgmma(spec),
                    dsts: d.iter().map(|o| self.dst(o)).collect::<Option<Vec<_>>>()?,
                    srcs,
                    addr: None,
                }
            }
            "tcgen05" => return self.decode_tcgen05(inst),
            _ => return None,
        })
    }

    /// `mma.sp{::ordered_metadata}` (`crate::ops::sparse`): operands d, a, b, c, then the
    /// metadata register (or immediate) and the selector immediate.
    fn decode_mma_sp(
        &self,
        inst: &ir::Inst,
        (d, a, b, c): (Vec<Op>, Vec<Op>, Vec<Op>, Vec<Op>),
    ) -> Option<Exec> {
        let ops = &inst.operands;
        let sel = match ops.get(5)? {
            Op::Imm(v) => *v,
            _ => return None,
        };
        if inst.mods.iter().any(|m| m.contains("block_scale")) {
            return self.decode_mma_sp_scaled(inst, (d, a, b, c), sel);
        }
        let spec = crate::ops::sparse::SpSpec::parse(
            &inst.mods,
            (a.len(), b.len(), c.len(), d.len()),
            sel,
        )?;
        let mut srcs = a
            .iter()
            .chain(&b)
            .chain(&c)
            .map(|o| self.src(o))
            .collect::<Option<Vec<_>>>()?;
        srcs.push(self.src(ops.get(4)?)?);
        Some(Exec::Matrix {
            op: MatrixOp::MmaSp(spec),
            dsts: d.iter().map(|o| self.dst(o)).collect::<Option<Vec<_>>>()?,
            srcs,
            addr: None,
        })
    }

    /// Block-scaled `mma.sp::ordered_metadata` (`crate::ops::sparse::SpScaled`): operands d, a,
    /// b, c, the metadata, the selector, then scale-a-data, {byte-id-a, thread-id-a},
    /// scale-b-data, {byte-id-b, thread-id-b}.
    fn decode_mma_sp_scaled(
        &self,
        inst: &ir::Inst,
        (d, a, b, c): (Vec<Op>, Vec<Op>, Vec<Op>, Vec<Op>),
        sel: u64,
    ) -> Option<Exec> {
        let spec = crate::ops::sparse::SpScaled::parse(
            &inst.mods,
            (a.len(), b.len(), c.len(), d.len()),
            sel,
        )?;
        let ops = &inst.operands;
        let one = |o: &Op| -> Op {
            match o {
                Op::Vector(v) if v.len() == 1 => v[0].clone(),
                other => other.clone(),
            }
        };
        let pair = |o: &Op| -> Option<[Op; 2]> {
            match o {
                Op::Vector(v) if v.len() == 2 => Some([v[0].clone(), v[1].clone()]),
                _ => None,
            }
        };
        let [ba, ta] = pair(ops.get(7)?)?;
        let [bb, tb] = pair(ops.get(9)?)?;
        let extra = [
            ops.get(4)?.clone(),
            one(ops.get(6)?),
            ba,
            ta,
            one(ops.get(8)?),
            bb,
            tb,
        ];
        Some(Exec::Matrix {
            op: MatrixOp::MmaSpScaled(spec),
            dsts: d.iter().map(|o| self.dst(o)).collect::<Option<Vec<_>>>()?,
            srcs: a
                .iter()
                .chain(&b)
                .chain(&c)
                .chain(&extra)
                .map(|o| self.src(o))
                .collect::<Option<Vec<_>>>()?,
            addr: None,
        })
    }

    /// `tcgen05` (`crate::ops::tcgen05`): [`Self::decode_tcgen05_one`], then the
    /// `.cta_group::2` forms: `mma` (dense, not block-scaled) with `MmaForm::pair`, `alloc`,
    /// `dealloc`, `relinquish_alloc_permit`, `commit`, `shift` and `cp` as `Tc5Op::Pair`.
    fn decode_tcgen05(&self, inst: &ir::Inst) -> Option<Exec> {
        use crate::ops::tcgen05::{PairOp, Tc5Op};
        let mods: &[&str] = &inst.mods;
        if !mods.contains(&".cta_group::2") {
            return self.decode_tcgen05_one(inst);
        }
        let Exec::Matrix {
            op: MatrixOp::Tcgen05(op),
            dsts,
            srcs,
            addr,
        } = self.decode_tcgen05_one(inst)?
        else {
            return None;
        };
        let op = match op {
            Tc5Op::Alloc => Tc5Op::Pair(PairOp::Alloc),
            Tc5Op::Dealloc => Tc5Op::Pair(PairOp::Dealloc),
            Tc5Op::Relinquish => Tc5Op::Pair(PairOp::Relinquish),
            Tc5Op::Commit => Tc5Op::Pair(PairOp::Commit),
            Tc5Op::CommitMulticast => Tc5Op::Pair(PairOp::CommitMulticast),
            Tc5Op::Shift => Tc5Op::Pair(PairOp::Shift),
            Tc5Op::Cp(shape) => Tc5Op::Pair(PairOp::Cp(shape)),
            // `disable-output-lane` has eight words with `.cta_group::2`.
            Tc5Op::Mma {
                kind,
                a_tmem,
                a_off,
                mut form,
            } if !form.ws && [4, 12].contains(&(srcs.len() - usize::from(form.sp))) => {
                form.pair = true;
                Tc5Op::Mma {
                    kind,
                    a_tmem,
                    a_off,
                    form,
                }
            }
            _ => return None,
        };
        Some(Exec::Matrix {
            op: MatrixOp::Tcgen05(op),
            dsts,
            srcs,
            addr,
        })
    }

    /// `tcgen05` (`crate::ops::tcgen05`) as `.cta_group::1` (or without a CTA group): Tensor
    /// Memory allocation, `ld`/`st`, `ld.red`, `wait`, `fence`, `mma`, `cp`, `shift`, `commit`.
    fn decode_tcgen05_one(&self, inst: &ir::Inst) -> Option<Exec> {
        use crate::ops::tcgen05::{Move, Tc5Op};
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        let ops = &inst.operands;
        let op = |k: usize| ops.get(k);
        let regs = |o: &Op| -> Vec<Op> {
            match o {
                Op::Vector(v) => v.clone(),
                other => vec![other.clone()],
            }
        };
        let imm = |o: Option<&Op>| match o {
            Some(Op::Imm(v)) => Some(*v),
            _ => None,
        };
        let plain = |op: Tc5Op| Exec::Matrix {
            op: MatrixOp::Tcgen05(op),
            dsts: Vec::new(),
            srcs: Vec::new(),
            addr: None,
        };
        Some(if has(".alloc") {
            Exec::Matrix {
                op: MatrixOp::Tcgen05(Tc5Op::Alloc),
                dsts: Vec::new(),
                srcs: vec![self.src(op(1)?)?],
                addr: Some((space_of(mods), self.addr(op(0)?)?)),
            }
        } else if has(".dealloc") {
            Exec::Matrix {
                op: MatrixOp::Tcgen05(Tc5Op::Dealloc),
                dsts: Vec::new(),
                srcs: vec![self.src(op(0)?)?, self.src(op(1)?)?],
                addr: None,
            }
        } else if has(".relinquish_alloc_permit") {
            plain(Tc5Op::Relinquish)
        } else if has(".wait::ld") || has(".wait::st") {
            plain(Tc5Op::Wait)
        } else if has(".fence::before_thread_sync") || has(".fence::after_thread_sync") {
            plain(Tc5Op::Fence)
        } else if has(".mma") {
            use crate::ops::tcgen05::Kind;
            if has(".block_scale") && !has(".ws") {
                return self.decode_tcgen05_mma_scaled(inst);
            }
            if has(".block_scale") {
                return None;
            }
            // d, a, b, {[sp_meta],} idesc, {disable-output-lane (four registers for
            // .cta_group::1),} enable-input-d {, scale-input-d}; `.ws`: d, a, b, {[sp_meta],}
            // idesc, enable-input-d {, zero-column-mask-desc}. `.collector_usage` is a hint
            // (ptxvm reads A and B from memory every time).
            let sp = has(".sp");
            let ws = has(".ws");
            let fixed = 4 + usize::from(sp);
            let zmask = if ws {
                match ops.get(fixed..)? {
                    [_] => None,
                    [_, z] => Some(self.src(z)?),
                    _ => return None,
                }
            } else {
                None
            };
            // disable-output-lane: 4 words with `.cta_group::1`, 8 with `.cta_group::2`.
            let words = if has(".cta_group::2") { 8 } else { 4 };
            let (lanes_off, scale_d): (Vec<Src>, Option<u8>) = match ops.get(fixed..)? {
                _ if ws => (zmask.into_iter().collect(), None),
                [_] => (Vec::new(), None),
                [Op::Vector(v), _] if v.len() == words => (
                    v.iter().map(|o| self.src(o)).collect::<Option<Vec<_>>>()?,
                    None,
                ),
                [_, Op::Imm(sc)] => (Vec::new(), Some(u8::try_from(*sc).ok()?)),
                [Op::Vector(v), _, Op::Imm(sc)] if v.len() == words => (
                    v.iter().map(|o| self.src(o)).collect::<Option<Vec<_>>>()?,
                    Some(u8::try_from(*sc).ok()?),
                ),
                _ => return None,
            };
            let enable = match (scale_d, ws) {
                (None, true) => op(fixed)?,
                (Some(_), _) => op(ops.len() - 2)?,
                (None, false) => op(ops.len() - 1)?,
            };
            let (meta, meta_off) = if sp {
                match self.addr(op(3)?)? {
                    Addr::Reg(r, off) => (vec![Src::Reg(r)], i32::try_from(off).ok()?),
                    _ => return None,
                }
            } else {
                (Vec::new(), 0)
            };
            let kind = if has(".kind::f16") {
                Kind::F16
            } else if has(".kind::tf32") {
                Kind::Tf32
            } else if has(".kind::f8f6f4") {
                Kind::F8f6f4
            } else if has(".kind::i8") {
                Kind::I8
            } else {
                return None;
            };
            let (a, a_tmem, a_off) = match op(1)? {
                Op::Addr { .. } => match self.addr(op(1)?)? {
                    Addr::Reg(r, off) => (Src::Reg(r), true, i32::try_from(off).ok()?),
                    _ => return None,
                },
                o => (self.src(o)?, false, 0),
            };
            Exec::Matrix {
                op: MatrixOp::Tcgen05(Tc5Op::Mma {
                    kind,
                    a_tmem,
                    a_off,
                    form: crate::ops::tcgen05::MmaForm {
                        sp,
                        meta_off,
                        scale_d,
                        ws,
                        ashift: has(".ashift"),
                        pair: false,
                    },
                }),
                dsts: Vec::new(),
                srcs: [
                    a,
                    self.src(op(2)?)?,
                    self.src(op(fixed - 1)?)?,
                    self.src(enable)?,
                ]
                .into_iter()
                .chain(meta)
                .chain(lanes_off)
                .collect(),
                addr: Some((MemSpace::Generic, self.addr(op(0)?)?)),
            }
        } else if has(".cp") {
            Exec::Matrix {
                op: MatrixOp::Tcgen05(Tc5Op::Cp(crate::ops::tcgen05::CpShape::parse(mods)?)),
                dsts: Vec::new(),
                srcs: vec![self.src(op(1)?)?],
                addr: Some((MemSpace::Generic, self.addr(op(0)?)?)),
            }
        } else if has(".commit") {
            if has(".multicast::cluster") {
                return Some(Exec::Matrix {
                    op: MatrixOp::Tcgen05(Tc5Op::CommitMulticast),
                    dsts: Vec::new(),
                    srcs: vec![self.src(op(1)?)?],
                    addr: Some((space_of(mods), self.addr(op(0)?)?)),
                });
            }
            Exec::Matrix {
                op: MatrixOp::Tcgen05(Tc5Op::Commit),
                dsts: Vec::new(),
                srcs: Vec::new(),
                addr: Some((space_of(mods), self.addr(op(0)?)?)),
            }
        } else if has(".ld") && has(".red") {
            let r = regs(op(0)?);
            let m = Move::parse(mods, imm(op(3)), r.len())?;
            if m.pack
                || m.num < 2
                || !matches!(
                    m.shape,
                    crate::ops::tcgen05::Shape::S32x32b | crate::ops::tcgen05::Shape::S16x32bx2(_)
                )
            {
                return None;
            }
            let min = has(".min");
            let red = if has(".f32") {
                let (abs, nan) = (has(".abs"), has(".NaN"));
                if min {
                    ReduxOp::FMin { abs, nan }
                } else {
                    ReduxOp::FMax { abs, nan }
                }
            } else {
                let signed = has(".s32");
                if min {
                    ReduxOp::Min { signed }
                } else {
                    ReduxOp::Max { signed }
                }
            };
            let mut dsts = r.iter().map(|o| self.dst(o)).collect::<Option<Vec<_>>>()?;
            dsts.push(self.dst(op(1)?)?);
            Exec::Matrix {
                op: MatrixOp::Tcgen05(Tc5Op::LdRed(m, red)),
                dsts,
                srcs: Vec::new(),
                addr: Some((MemSpace::Generic, self.addr(op(2)?)?)),
            }
        } else if has(".ld") && !has(".red") {
            let r = regs(op(0)?);
            let m = Move::parse(mods, imm(op(2)), r.len())?;
            Exec::Matrix {
                op: MatrixOp::Tcgen05(Tc5Op::Ld(m)),
                dsts: r.iter().map(|o| self.dst(o)).collect::<Option<Vec<_>>>()?,
                srcs: Vec::new(),
                addr: Some((MemSpace::Generic, self.addr(op(1)?)?)),
            }
        } else if has(".shift") {
            Exec::Matrix {
                op: MatrixOp::Tcgen05(Tc5Op::Shift),
                dsts: Vec::new(),
                srcs: Vec::new(),
                addr: Some((MemSpace::Generic, self.addr(op(0)?)?)),
            }
        } else if has(".st") {
            let split = has(".16x32bx2");
            let r = regs(op(if split { 2 } else { 1 })?);
            let m = Move::parse(mods, if split { imm(op(1)) } else { None }, r.len())?;
            Exec::Matrix {
                op: MatrixOp::Tcgen05(Tc5Op::St(m)),
                dsts: Vec::new(),
                srcs: r.iter().map(|o| self.src(o)).collect::<Option<Vec<_>>>()?,
                addr: Some((MemSpace::Generic, self.addr(op(0)?)?)),
            }
        } else {
            return None;
        })
    }
}

impl Cta<'_> {
    /// Executes `ldmatrix`/`stmatrix`/`movmatrix` for the warp's threads `part` (all of its
    /// live lanes, in lane order). 8x8 matrices of 16-bit elements: lane `l` holds, in each
    /// 32-bit register, the two elements of row `l / 4`, columns `2 * (l % 4)` and `+ 1`
    /// (low half first); with `.trans` the fragment is of the transposed matrix. Rows are
    /// 16 bytes at the address lane `8m + r` provides for row `r` of matrix `m`.
    #[allow(clippy::needless_range_loop)] // lane and row indices are the point here
    pub(in crate::exec) fn matrix_exec(
        &mut self,
        part: &[usize],
        inst: &DInst,
    ) -> Result<(), Box<Fault>> {
        let Exec::Matrix {
            op,
            dsts,
            srcs,
            addr,
        } = &inst.exec
        else {
            return Ok(());
        };
        // First and out of line: dispatched inside the match below, and inlined, `wgmma` slowed
        // the warp engine's `mma.sync` by 3-6% (measured on a 512^3 `hgemm_mma_64x64`).
        if let MatrixOp::Wgmma(wg) = op {
            return self.wgmma_exec(part, inst, *wg, dsts, srcs);
        }
        if let MatrixOp::Tcgen05(tc) = op {
            return self.tcgen05_exec(part, *tc, dsts, srcs, *addr);
        }
        let mut by_lane: [Option<usize>; 32] = [None; 32];
        for &i in part {
            by_lane[self.threads[i].lane as usize] = Some(i);
        }
        let need = |this: &Self, lane: usize| -> Result<usize, Box<Fault>> {
            by_lane[lane].ok_or_else(|| {
                let any = part.first().copied().unwrap_or(0);
                this.fault(
                    any,
                    FaultKind::MemberMask,
                    format!(
                        "a warp-collective matrix instruction needs lane {lane}, which does not exist or has exited"
                    ),
                )
            })
        };
        let half = |w: u32, j: usize| -> u16 { (w >> (16 * j)) as u16 };
        match *op {
            MatrixOp::Ld { n, trans } => {
                let (space, a) = addr.ok_or_else(|| self.unsupported(part[0], "ldmatrix"))?;
                // rows[m][r]: the 8 half-words of row r of matrix m.
                let mut rows = [[[0u16; 8]; 8]; 4];
                for m in 0..n as usize {
                    for r in 0..8 {
                        let t = need(self, 8 * m + r)?;
                        let (sp, at) = self.resolve(t, space, a);
                        let mut buf = [0u8; 16];
                        let mem = self.mem;
                        self.load(t, sp, at, &mut buf, mem)?;
                        for c in 0..8 {
                            rows[m][r][c] = u16::from_le_bytes([buf[2 * c], buf[2 * c + 1]]);
                        }
                    }
                }
                for &i in part {
                    let l = self.threads[i].lane as usize;
                    for (m, d) in dsts.iter().enumerate().take(n as usize) {
                        let (lo, hi) = if trans {
                            (rows[m][2 * (l % 4)][l / 4], rows[m][2 * (l % 4) + 1][l / 4])
                        } else {
                            (rows[m][l / 4][2 * (l % 4)], rows[m][l / 4][2 * (l % 4) + 1])
                        };
                        self.write(i, *d, lo as u64 | (hi as u64) << 16);
                    }
                }
            }
            MatrixOp::St { n, trans } => {
                let (space, a) = addr.ok_or_else(|| self.unsupported(part[0], "stmatrix"))?;
                for (m, src) in srcs.iter().enumerate().take(n as usize) {
                    let mut frag = [0u32; 32];
                    for l in 0..32 {
                        let t = need(self, l)?;
                        frag[l] = self.src(t, *src) as u32;
                    }
                    for r in 0..8 {
                        let mut buf = [0u8; 16];
                        for c in 0..8 {
                            let v = if trans {
                                half(frag[4 * c + r / 2], r % 2)
                            } else {
                                half(frag[4 * r + c / 2], c % 2)
                            };
                            buf[2 * c..2 * c + 2].copy_from_slice(&v.to_le_bytes());
                        }
                        let t = need(self, 8 * m + r)?;
                        let (sp, at) = self.resolve(t, space, a);
                        let mem = self.mem;
                        self.store(t, sp, at, &buf, mem)?;
                    }
                }
            }
            MatrixOp::LdB8 { n } => {
                let (space, a) = addr.ok_or_else(|| self.unsupported(part[0], "ldmatrix"))?;
                // rows[m][r]: the 16 bytes of row r of matrix m (address from lane 16m + r).
                let mut rows = [[[0u8; 16]; 16]; 2];
                for m in 0..n as usize {
                    for r in 0..16 {
                        let t = need(self, 16 * m + r)?;
                        let (sp, at) = self.resolve(t, space, a);
                        let mem = self.mem;
                        self.load(t, sp, at, &mut rows[m][r], mem)?;
                    }
                }
                for &i in part {
                    let l = self.threads[i].lane as usize;
                    let (g, q) = (l / 4, l % 4);
                    for (k, d) in dsts.iter().enumerate().take(2 * n as usize) {
                        let (m, j) = (k / 2, k % 2);
                        let v = (0..4).fold(0u64, |v, b| {
                            v | (rows[m][4 * q + b][g + 8 * j] as u64) << (8 * b)
                        });
                        self.write(i, *d, v);
                    }
                }
            }
            MatrixOp::LdB8x16 { n, m16, bits } => {
                let (space, a) = addr.ok_or_else(|| self.unsupported(part[0], "ldmatrix"))?;
                // rows[m][r]: row r of matrix m decompressed (address from lane 16m + r for
                // m16n16, 8m + r for m8n16).
                let per = if m16 { 16 } else { 8 };
                let mut rows = [[[0u8; 16]; 16]; 4];
                for m in 0..n as usize {
                    for r in 0..per {
                        let t = need(self, per * m + r)?;
                        let (sp, at) = self.resolve(t, space, a);
                        let mem = self.mem;
                        let mut buf = [0u8; 16];
                        self.load(t, sp, at, &mut buf, mem)?;
                        rows[m][r] = crate::ops::tensor::decompress_b8x16(buf, u32::from(bits));
                    }
                }
                for &i in part {
                    let l = self.threads[i].lane as usize;
                    let (g, q) = (l / 4, l % 4);
                    for (k, d) in dsts.iter().enumerate() {
                        let v = if m16 {
                            // As `LdB8`: bytes g and g + 8 of rows 4q .. 4q + 3.
                            let (m, j) = (k / 2, k % 2);
                            (0..4).fold(0u64, |v, b| {
                                v | (rows[m][4 * q + b][g + 8 * j] as u64) << (8 * b)
                            })
                        } else {
                            // Row g, columns 4q .. 4q + 3.
                            (0..4).fold(0u64, |v, b| v | (rows[k][g][4 * q + b] as u64) << (8 * b))
                        };
                        self.write(i, *d, v);
                    }
                }
            }
            MatrixOp::StB8 { n } => {
                let (space, a) = addr.ok_or_else(|| self.unsupported(part[0], "stmatrix"))?;
                for (m, src) in srcs.iter().enumerate().take(n as usize) {
                    let mut frag = [0u32; 32];
                    for l in 0..32 {
                        let t = need(self, l)?;
                        frag[l] = self.src(t, *src) as u32;
                    }
                    // Row r of matrix m (address from lane 8m + r) holds column r of the 16x8
                    // fragment: byte c from lane 4 * (c % 8) + r / 2, byte (r % 2) + 2 (c / 8).
                    for r in 0..8 {
                        let mut buf = [0u8; 16];
                        for (c, byte) in buf.iter_mut().enumerate() {
                            let w = frag[4 * (c % 8) + r / 2];
                            *byte = (w >> (8 * ((r % 2) + 2 * (c / 8)))) as u8;
                        }
                        let t = need(self, 8 * m + r)?;
                        let (sp, at) = self.resolve(t, space, a);
                        let mem = self.mem;
                        self.store(t, sp, at, &buf, mem)?;
                    }
                }
            }
            // The register-fragment products: every lane's sources in, every lane's D out.
            MatrixOp::Mma(_)
            | MatrixOp::MmaSp(_)
            | MatrixOp::MmaScaled(_)
            | MatrixOp::MmaSpScaled(_)
            | MatrixOp::WmmaMma(_) => {
                let mut regs: [Vec<u64>; 32] = std::array::from_fn(|_| Vec::new());
                for (l, r) in regs.iter_mut().enumerate() {
                    let t = need(self, l)?;
                    *r = srcs.iter().map(|s| self.src(t, *s)).collect();
                }
                let model = self.launch.model;
                let out = match op {
                    MatrixOp::Mma(spec) => crate::ops::tensor::mma(spec, model, &regs),
                    MatrixOp::MmaSp(spec) => crate::ops::sparse::mma_sp(spec, model, &regs),
                    MatrixOp::MmaScaled(spec) => crate::ops::tensor::mma_scaled(spec, model, &regs),
                    MatrixOp::MmaSpScaled(spec) => {
                        crate::ops::sparse::mma_sp_scaled(spec, model, &regs)
                    }
                    MatrixOp::WmmaMma(w) => crate::ops::tensor::wmma_mma(w, model, &regs),
                    _ => Err("not a register-fragment product".into()),
                }
                .map_err(|m| self.fault(part[0], FaultKind::Unsupported, m))?;
                for &i in part {
                    let l = self.threads[i].lane as usize;
                    for (d, v) in dsts.iter().zip(&out[l]) {
                        self.write(i, *d, *v);
                    }
                }
            }
            MatrixOp::WmmaLoad(mv) | MatrixOp::WmmaStore(mv) => {
                let store = matches!(op, MatrixOp::WmmaStore(_));
                let (space, a) = addr.ok_or_else(|| self.unsupported(part[0], "wmma"))?;
                let nregs = mv.regs as usize;
                for &i in part {
                    let lane = self.threads[i].lane as usize;
                    let stride = if mv.has_stride {
                        srcs.last().map_or(0, |s| self.src(i, *s) as u32 as u64)
                    } else {
                        mv.default_stride()
                    };
                    let (sp, base) = self.resolve(i, space, a);
                    if let Err(m) = mv.check_align(base, stride) {
                        let what = if store { "store" } else { "load" };
                        return Err(self.fault(
                            i,
                            FaultKind::Misaligned,
                            format!("wmma.{what}: {m}"),
                        ));
                    }
                    let mem = self.mem;
                    let mut regs: Vec<u64> = if store {
                        srcs[..nregs.min(srcs.len())]
                            .iter()
                            .map(|s| self.src(i, *s))
                            .collect()
                    } else {
                        vec![0; nregs]
                    };
                    // A store writes each element once (the canonical slots).
                    let slots = if store { mv.need() } else { mv.slots() };
                    for j in 0..slots {
                        let (off, bit, w) = mv.locate(lane, j, stride);
                        let at = base.wrapping_add(off);
                        let mut buf = [0u8; 8];
                        let nb = mv.elem_bytes();
                        if store {
                            let v = mv.get(&regs, j);
                            if w < 8 {
                                // Sub-byte elements: read-modify-write their byte.
                                self.load(i, sp, at, &mut buf[..1], mem)?;
                                let mask = (((1u16 << w) - 1) << bit) as u8;
                                buf[0] = (buf[0] & !mask) | (((v as u8) << bit) & mask);
                            } else {
                                buf[..nb].copy_from_slice(&v.to_le_bytes()[..nb]);
                            }
                            self.store(i, sp, at, &buf[..nb], mem)?;
                        } else {
                            self.load(i, sp, at, &mut buf[..nb], mem)?;
                            let v = u64::from_le_bytes(buf) >> bit;
                            mv.put(&mut regs, j, v);
                        }
                    }
                    if !store {
                        for (d, v) in dsts.iter().zip(&regs) {
                            self.write(i, *d, *v);
                        }
                    }
                }
            }
            // Handled above.
            MatrixOp::Wgmma(_) | MatrixOp::Tcgen05(_) => {}
            MatrixOp::MovTrans => {
                let (Some(src), Some(d)) = (srcs.first(), dsts.first()) else {
                    return Ok(());
                };
                let mut frag = [0u32; 32];
                for l in 0..32 {
                    let t = need(self, l)?;
                    frag[l] = self.src(t, *src) as u32;
                }
                for &i in part {
                    let l = self.threads[i].lane as usize;
                    // Element (row, col) of A is in lane 4*row + col/2, half col%2; lane l
                    // receives A^T[l/4][2(l%4)+j] = A[2(l%4)+j][l/4].
                    let mut out = 0u32;
                    for j in 0..2 {
                        let row = 2 * (l % 4) + j;
                        let col = l / 4;
                        out |= (half(frag[4 * row + col / 2], col % 2) as u32) << (16 * j);
                    }
                    self.write(i, *d, out as u64);
                }
            }
        }
        Ok(())
    }
}

impl Cta<'_> {
    /// Faults when thread `t`'s instruction `e` names a register that holds the result of a
    /// `wgmma.mma_async` still in flight in its warp (at the thread's call depth).
    pub(in crate::exec) fn wgmma_check(&self, t: usize, e: &Exec) -> Result<(), Box<Fault>> {
        let Some(q) = self.wgmma.as_ref().and_then(|s| s.warps.get(t / 32)) else {
            return Ok(());
        };
        if q.nheld == 0 || q.depth() != Some(self.sched[t].depth as usize) {
            return Ok(());
        }
        let mut hit = None;
        e.each_reg(&mut |r| {
            if hit.is_none()
                && let Some(line) = q.holds(r)
            {
                hit = Some((r, line));
            }
        });
        match hit {
            Some((r, line)) => Err(self.fault(
                t,
                FaultKind::AsyncHazard,
                format!(
                    "the instruction names {}, an accumulator of the `wgmma.mma_async` at line {line} that is still in flight: its results are visible only after the `wgmma.wait_group` that completes its group (accessing it before is undefined behaviour)",
                    self.reg_name(t, r)
                ),
            )),
            None => Ok(()),
        }
    }

    fn reg_name(&self, t: usize, r: u32) -> String {
        let f = self.func_of(t);
        self.prog
            .funcs
            .get(f as usize)
            .and_then(|f| f.reg_names.get(r as usize))
            .cloned()
            .unwrap_or_else(|| format!("register #{r}"))
    }

    /// At the end of the CTA: every warp of a warpgroup executed the same `wgmma`s.
    /// The thread of every lane of warp `t0 / 32` taking part in the `.sync.aligned`
    /// instruction `name` (`part`), which every thread of the `scope` (warp or warpgroup)
    /// executes together; a lane missing faults.
    fn whole_warp(
        &self,
        t0: usize,
        part: &[usize],
        name: &str,
        scope: &str,
    ) -> Result<[usize; 32], Box<Fault>> {
        let mut lanes = [usize::MAX; 32];
        for &i in part {
            if let Some(l) = self
                .threads
                .get(i)
                .and_then(|t| lanes.get_mut(t.lane as usize))
            {
                *l = i;
            }
        }
        match lanes.iter().position(|&i| i == usize::MAX) {
            Some(l) => Err(self.fault(
                t0,
                FaultKind::MemberMask,
                format!(
                    "`{name}` is executed by every thread of the {scope} (.sync.aligned), but lane {l} of warp {} does not exist, has exited or is not converged",
                    t0 / 32
                ),
            )),
            None => Ok(lanes),
        }
    }

    pub(in crate::exec) fn wgmma_finish(&self) -> Result<(), Box<Fault>> {
        let Some(st) = &self.wgmma else {
            return Ok(());
        };
        for (g, log) in st.groups.iter().enumerate() {
            let most = log.count.iter().copied().max().unwrap_or(0);
            for (v, &c) in log.count.iter().enumerate() {
                if c < most {
                    let w = 4 * g + v;
                    let what = log
                        .entries
                        .get(c.saturating_sub(log.base) as usize)
                        .map_or(String::new(), |e| format!(" (the one at line {})", e.line));
                    return Err(self.fault(
                        32 * w,
                        FaultKind::MemberMask,
                        format!(
                            "warpgroup {g} is not converged: warp {w} ended after {c} `wgmma` instructions while another warp of the warpgroup executed {most}{what}; `.sync.aligned` needs all four warps to execute each of them"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Executes a `wgmma` instruction for warp `part[0] / 32` (every lane).
    #[inline(never)]
    pub(in crate::exec) fn wgmma_exec(
        &mut self,
        part: &[usize],
        inst: &DInst,
        op: crate::ops::wgmma::WgOp,
        dsts: &[Dst],
        srcs: &[Src],
    ) -> Result<(), Box<Fault>> {
        use crate::ops::wgmma::{GroupLog, LogEntry, Pending, WarpQueue, WgOp};
        let Some(&t0) = part.first() else {
            return Ok(());
        };
        let name = op.name();
        let model = self.launch.model;
        if !(model.sm() == 90 && model.arch_specific) {
            return Err(self.fault(
                t0,
                FaultKind::Unsupported,
                format!(
                    "`{name}` needs sm_90a; the device model is {} ({})",
                    model.arch, model.board
                ),
            ));
        }
        let w = t0 / 32;
        let lanes = self.whole_warp(t0, part, &name, "warpgroup")?;
        let nwarps = self.nwarps as usize;
        let g = w / 4;
        if 4 * g + 4 > nwarps {
            return Err(self.fault(
                t0,
                FaultKind::MemberMask,
                format!(
                    "`{name}`: warp {w} belongs to warpgroup {g} (warps {}..{}), but the CTA has {nwarps} warp{} ({} threads): wgmma needs whole warpgroups of four warps",
                    4 * g,
                    4 * g + 3,
                    if nwarps == 1 { "" } else { "s" },
                    self.threads.len()
                ),
            ));
        }
        let depth = self.sched[t0].depth as usize;
        // Operands that must be the same in every lane (and, by the log, every warp).
        let uniform = |this: &Self, s: Src, what: &str| -> Result<u64, Box<Fault>> {
            let v0 = this.src(lanes[0], s);
            for (l, &i) in lanes.iter().enumerate() {
                let v = this.src(i, s);
                if v != v0 {
                    return Err(this.fault(
                        i,
                        FaultKind::MemberMask,
                        format!(
                            "`{name}`: {what} differs between the threads of the warpgroup (lane 0: {v0:#x}, lane {l}: {v:#x})"
                        ),
                    ));
                }
            }
            Ok(v0)
        };
        let spec = match op {
            WgOp::Mma(s) => Some(s),
            _ => None,
        };
        let na = spec.map_or(0, |s| if s.a_regs { 4 } else { 1 });
        let mut operands = [0u64; 3];
        if let Some(s) = spec {
            let (Some(&bs), Some(&sd)) = (srcs.get(na), srcs.get(na + 1)) else {
                return Err(self.unsupported(t0, &name));
            };
            if !s.a_regs {
                operands[0] = uniform(self, srcs[0], "the descriptor of A")?;
            }
            operands[1] = uniform(self, bs, "the descriptor of B")?;
            operands[2] = (uniform(self, sd, "scale-d")? != 0) as u64;
        }
        // The state, the warpgroup's log, the warp's queue.
        let st = self.wgmma.get_or_insert_with(Default::default);
        if st.warps.len() < nwarps {
            st.warps.resize_with(nwarps, WarpQueue::default);
        }
        if st.groups.len() < nwarps / 4 {
            st.groups.resize_with(nwarps / 4, GroupLog::default);
        }
        let (func, pc) = {
            let th = &self.threads[t0];
            (th.frames.last().map_or(0, |f| f.func), self.sched[t0].pc)
        };
        let entry = LogEntry {
            func,
            pc,
            line: inst.line,
            operands,
        };
        let recorded = self
            .wgmma
            .as_mut()
            .and_then(|s| s.groups.get_mut(g))
            .map(|log| log.record(w % 4, entry));
        if let Some(Err(None)) = recorded {
            return Err(self.fault(
                t0,
                FaultKind::MemberMask,
                format!(
                    "warpgroup {g} is not converged: warp {w} executes `{name}` more than {} `wgmma` instructions ahead of another warp of the warpgroup",
                    crate::ops::wgmma::MAX_LAG
                ),
            ));
        }
        if let Some(Err(Some(other))) = recorded {
            let what = if (other.func, other.pc) == (func, pc) {
                "with different descriptors or scale-d (they must be the same in every warp)"
                    .to_string()
            } else {
                format!(
                    "while another warp of it executed the `wgmma` at line {}",
                    other.line
                )
            };
            return Err(self.fault(
                t0,
                FaultKind::MemberMask,
                format!(
                    "warpgroup {g} is not converged: warp {w} executes `{name}` {what}; `.sync.aligned` needs all four warps to execute the same `wgmma` instructions"
                ),
            ));
        }
        // A warp of the warpgroup that has exited can never execute this instruction.
        if let Some(log) = self.wgmma.as_ref().and_then(|s| s.groups.get(g)) {
            let mine = log.count[w % 4];
            for v in 0..4 {
                if log.count[v] < mine && self.live_lanes(4 * g + v) == 0 {
                    return Err(self.fault(
                        t0,
                        FaultKind::MemberMask,
                        format!(
                            "warpgroup {g} is not converged: warp {} has exited without executing `{name}`, which warp {w} executes (.sync.aligned)",
                            4 * g + v
                        ),
                    ));
                }
            }
        }
        let queue_depth = self
            .wgmma
            .as_ref()
            .and_then(|s| s.warps.get(w))
            .and_then(|q| q.depth());
        if queue_depth.is_some_and(|d| d != depth) {
            return Err(self.fault(
                t0,
                FaultKind::Unsupported,
                format!(
                    "`{name}` at call depth {depth} while `wgmma.mma_async` results of call depth {} are in flight: a wgmma pipeline across a function boundary is not supported",
                    queue_depth.unwrap_or(0)
                ),
            ));
        }
        match op {
            WgOp::Fence => Ok(()),
            WgOp::Commit => {
                let ok = self
                    .wgmma
                    .as_mut()
                    .and_then(|s| s.warps.get_mut(w))
                    .is_none_or(|q| q.commit());
                if ok {
                    Ok(())
                } else {
                    Err(self.fault(
                        t0,
                        FaultKind::Unsupported,
                        format!(
                            "`{name}`: more than {} wgmma-groups in flight in warp {w}",
                            crate::ops::wgmma::MAX_GROUPS
                        ),
                    ))
                }
            }
            WgOp::Wait(n) => {
                let done = self
                    .wgmma
                    .as_mut()
                    .and_then(|s| s.warps.get_mut(w))
                    .map(|q| q.wait(n as usize))
                    .unwrap_or_default();
                for p in done {
                    for (r, vals) in p.regs.iter().zip(&p.vals) {
                        for (l, &i) in lanes.iter().enumerate() {
                            self.write(i, Dst::Reg(*r), vals[l]);
                        }
                    }
                }
                Ok(())
            }
            WgOp::Mma(s) => {
                // Registers it reads besides its accumulators must not be in flight.
                let held = |this: &Self, r: u32| {
                    this.wgmma
                        .as_ref()
                        .and_then(|st| st.warps.get(w))
                        .and_then(|q| q.holds(r))
                };
                let read = na + if s.sp_sel.is_some() { 3 } else { 2 };
                for src in &srcs[..read.min(srcs.len())] {
                    if let Src::Reg(r) | Src::Pred(r, _) = *src
                        && let Some(line) = held(self, r)
                    {
                        return Err(self.fault(
                            t0,
                            FaultKind::AsyncHazard,
                            format!(
                                "`{name}` reads {}, an accumulator of the `wgmma.mma_async` at line {line} that is still in flight: its results are visible only after the `wgmma.wait_group` that completes its group",
                                self.reg_name(t0, r)
                            ),
                        ));
                    }
                }
                let d = self.wgmma_mma(&s, w, &lanes, srcs, dsts, operands, &name)?;
                let regs: Vec<u32> = dsts
                    .iter()
                    .filter_map(|x| match x {
                        Dst::Reg(r) => Some(*r),
                        Dst::Sink => None,
                    })
                    .collect();
                let vals: Vec<[u64; 32]> = dsts
                    .iter()
                    .zip(d)
                    .filter(|(x, _)| matches!(x, Dst::Reg(_)))
                    .map(|(_, v)| v)
                    .collect();
                if let Some(q) = self.wgmma.as_mut().and_then(|st| st.warps.get_mut(w)) {
                    q.push(Pending {
                        line: inst.line,
                        depth,
                        regs,
                        vals,
                    });
                }
                Ok(())
            }
        }
    }

    /// Computes warp `w`'s 16 rows of D for `mma_async` `s`: returns, per D register, the
    /// 32 lanes' values.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn wgmma_mma(
        &self,
        s: &crate::ops::wgmma::WgSpec,
        w: usize,
        lanes: &[usize; 32],
        srcs: &[Src],
        dsts: &[Dst],
        [a_desc, b_desc, scale_d]: [u64; 3],
        name: &str,
    ) -> Result<Vec<[u64; 32]>, Box<Fault>> {
        use crate::ops::tensor::Acc;
        use crate::ops::wgmma::{Desc, a_pos, d_pos, elem_bits};
        use ptxvm_fp::tensor::TcInst;
        let (n, k) = (s.n as usize, s.a_k() as usize);
        let bits = elem_bits(s.a);
        let mask = if bits == 32 {
            u64::MAX >> 32
        } else {
            (1u64 << bits) - 1
        };
        let t0 = lanes[0];
        // Reads an operand matrix (rows x k) from shared memory through its descriptor.
        let gather =
            |this: &Self, desc: u64, mn_major: bool, row0: usize, rows: usize, what: &str| {
                this.smem_matrix(
                    t0,
                    Desc::decode(desc),
                    desc,
                    mn_major,
                    bits,
                    [row0, rows, k],
                    name,
                    what,
                )
            };
        // A: the warp's 16 rows.
        let wi = w % 4;
        let a: Vec<u64> = if s.a_regs {
            let mut a = vec![0u64; 16 * k];
            let per_lane = 16 * k / 32;
            for (l, &i) in lanes.iter().enumerate() {
                for e in 0..per_lane {
                    let (r, kk) = a_pos(bits, l, e);
                    let bit = e * bits as usize;
                    let reg = srcs.get(bit / 32).map_or(0, |x| self.src(i, *x));
                    if let Some(x) = a.get_mut(r * k + kk) {
                        *x = (reg >> (bit % 32)) & mask;
                    }
                }
            }
            a
        } else {
            gather(self, a_desc, s.trans_a, 16 * wi, 16, "A")?
        };
        // `.sp`: decompress the warp's 16 rows of the K/2 stored columns with its metadata.
        let (a, k) = match s.sp_sel {
            Some(sel) => {
                let meta_src = srcs.get(srcs.len().saturating_sub(1)).copied();
                let meta: [u32; 32] =
                    std::array::from_fn(|l| meta_src.map_or(0, |m| self.src(lanes[l], m) as u32));
                let full = s.k as usize;
                let a = crate::ops::sparse::decompress(s.a, full, sel, &a, &meta).map_err(|m| {
                    self.fault(t0, FaultKind::Unsupported, format!("`{name}`: {m}"))
                })?;
                (a, full)
            }
            None => (a, k),
        };
        let gather =
            |this: &Self, desc: u64, mn_major: bool, row0: usize, rows: usize, what: &str| {
                this.smem_matrix(
                    t0,
                    Desc::decode(desc),
                    desc,
                    mn_major,
                    bits,
                    [row0, rows, k],
                    name,
                    what,
                )
            };
        let b = gather(self, b_desc, s.trans_b, 0, n, "B")?;
        // C, from the register or the newest result in flight.
        let q = self.wgmma.as_ref().and_then(|st| st.warps.get(w));
        let creg = |l: usize, j: usize| -> u64 {
            if scale_d == 0 {
                return 0;
            }
            match dsts.get(j) {
                Some(Dst::Reg(r)) => q
                    .and_then(|q| q.value(*r, l))
                    .unwrap_or_else(|| self.src(lanes[l], Src::Reg(*r))),
                _ => 0,
            }
        };
        let f16 = s.d == Acc::F16;
        let mut c = vec![0u64; 16 * n];
        for l in 0..32 {
            for e in 0..s.d_elems() {
                let (r, col) = d_pos(l, e);
                let v = if f16 {
                    (creg(l, e / 2) >> (16 * (e % 2))) & 0xffff
                } else {
                    creg(l, e) & 0xffff_ffff
                };
                if let Some(x) = c.get_mut(r * n + col) {
                    *x = v;
                }
            }
        }
        // D = A.B + C, row by row of the warp's part.
        let d = self.tc_dot(
            TcInst::Wgmma,
            [16, n, k],
            [&a, &b, &c],
            [s.a, s.b],
            f16,
            [s.neg_a, s.neg_b, s.satfinite],
            0,
        );
        // Scatter into D's registers.
        let mut out = vec![[0u64; 32]; s.nd as usize];
        for l in 0..32 {
            for e in 0..s.d_elems() {
                let (r, col) = d_pos(l, e);
                let v = d.get(r * n + col).copied().unwrap_or(0);
                if f16 {
                    if let Some(x) = out.get_mut(e / 2) {
                        x[l] |= (v & 0xffff) << (16 * (e % 2));
                    }
                } else if let Some(x) = out.get_mut(e) {
                    x[l] = v;
                }
            }
        }
        Ok(out)
    }
}

impl Cta<'_> {
    /// Executes a `tcgen05` instruction (`crate::ops::tcgen05`) for warp `part[0] / 32`: every
    /// lane must take part (`.sync.aligned`), and the operands that name Tensor Memory must be
    /// the same in every lane.
    #[inline(never)]
    pub(in crate::exec) fn tcgen05_exec(
        &mut self,
        part: &[usize],
        op: crate::ops::tcgen05::Tc5Op,
        dsts: &[Dst],
        srcs: &[Src],
        addr: Option<(MemSpace, Addr)>,
    ) -> Result<(), Box<Fault>> {
        use crate::ops::tcgen05::{Tc5Op, warp_lanes};
        let Some(&t0) = part.first() else {
            return Ok(());
        };
        let name = match op {
            Tc5Op::Alloc => "tcgen05.alloc".to_string(),
            Tc5Op::Dealloc => "tcgen05.dealloc".into(),
            Tc5Op::Relinquish => "tcgen05.relinquish_alloc_permit".into(),
            Tc5Op::Ld(m) => m.name(false),
            Tc5Op::LdRed(m, red) => {
                let base = m.name(false).replacen("tcgen05.ld", "tcgen05.ld.red", 1);
                let base = base.strip_suffix(".b32").unwrap_or(&base).to_string();
                let f = |abs: bool, nan: bool| {
                    format!(
                        "{}{}.f32",
                        if abs { ".abs" } else { "" },
                        if nan { ".NaN" } else { "" }
                    )
                };
                base + &match red {
                    ReduxOp::FMin { abs, nan } => format!(".min{}", f(abs, nan)),
                    ReduxOp::FMax { abs, nan } => format!(".max{}", f(abs, nan)),
                    ReduxOp::Min { signed } => format!(".min.{}32", if signed { "s" } else { "u" }),
                    ReduxOp::Max { signed } => format!(".max.{}32", if signed { "s" } else { "u" }),
                    _ => String::new(),
                }
            }
            Tc5Op::St(m) => m.name(true),
            Tc5Op::Wait => "tcgen05.wait".into(),
            Tc5Op::Fence => "tcgen05.fence".into(),
            Tc5Op::Mma { kind, form, .. } => format!(
                "tcgen05.mma{}{}.cta_group::{}.kind::{}{}",
                if form.ws { ".ws" } else { "" },
                if form.sp { ".sp" } else { "" },
                if form.pair { 2 } else { 1 },
                match kind {
                    crate::ops::tcgen05::Kind::F16 => "f16",
                    crate::ops::tcgen05::Kind::Tf32 => "tf32",
                    crate::ops::tcgen05::Kind::F8f6f4 => "f8f6f4",
                    crate::ops::tcgen05::Kind::I8 => "i8",
                },
                if form.ashift { ".ashift" } else { "" }
            ),
            Tc5Op::Commit => "tcgen05.commit.cta_group::1.mbarrier::arrive::one".into(),
            Tc5Op::Cp(s) => s.name(),
            Tc5Op::Shift => "tcgen05.shift.cta_group::1.down".into(),
            Tc5Op::Pair(p) => {
                use crate::ops::tcgen05::PairOp;
                match p {
                    PairOp::Alloc => "tcgen05.alloc.cta_group::2".into(),
                    PairOp::Dealloc => "tcgen05.dealloc.cta_group::2".into(),
                    PairOp::Relinquish => "tcgen05.relinquish_alloc_permit.cta_group::2".into(),
                    PairOp::Commit => "tcgen05.commit.cta_group::2.mbarrier::arrive::one".into(),
                    PairOp::CommitMulticast => {
                        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.multicast::cluster"
                            .into()
                    }
                    PairOp::Shift => "tcgen05.shift.cta_group::2.down".into(),
                    PairOp::Cp(s) => s.name().replace(".cta_group::1", ".cta_group::2"),
                }
            }
            Tc5Op::CommitMulticast => {
                "tcgen05.commit.cta_group::1.mbarrier::arrive::one.multicast::cluster".into()
            }
            Tc5Op::MmaScaled {
                mxf4,
                vec,
                meta_off,
                ..
            } => format!(
                "tcgen05.mma{}.cta_group::1.kind::{}.block_scale.scale_vec::{vec}X",
                if meta_off.is_some() { ".sp" } else { "" },
                if mxf4 { "mxf4" } else { "mxf8f6f4" }
            ),
        };
        let model = self.launch.model;
        if !model.has_tcgen05() {
            return Err(self.fault(
                t0,
                FaultKind::Unsupported,
                format!(
                    "`{name}` needs a GPU with tcgen05 (sm_100a, sm_101a, sm_103a, sm_110a); the device model is {} ({})",
                    model.arch, model.board
                ),
            ));
        }
        if matches!(op, Tc5Op::Fence) {
            return Ok(());
        }
        // `tcgen05.ld.red`: sm_101a (110a) and the sm_103f family, not sm_100a.
        if matches!(op, Tc5Op::LdRed(..)) && model.sm() == 100 {
            return Err(self.fault(
                t0,
                FaultKind::Unsupported,
                format!(
                    "`{name}` needs sm_101a/sm_110a or the sm_103f family; the device model is {} ({})",
                    model.arch, model.board
                ),
            ));
        }
        // `.cta_group::2`: the `.cta_group::1` operation in this CTA (the peer CTA's warp does
        // its part of a collective itself); `shift` also shifts the peer CTA's Tensor Memory.
        if let Tc5Op::Pair(p) = op {
            self.tcgen05_peer(t0, &name)?;
            self.tcgen05_exec(part, p.single(), dsts, srcs, addr)
                .map_err(|mut f| {
                    f.message = f.message.replace(".cta_group::1", ".cta_group::2");
                    f
                })?;
            if p == crate::ops::tcgen05::PairOp::Shift {
                for &i in part {
                    self.with_peer(|c| c.tcgen05_shift(i, addr, &name))?;
                }
            }
            // `cp`: the peer CTA's Tensor Memory receives its own shared memory's data through
            // the same descriptor (CUTLASS's `SM100_UTCCP_*_2cta` traits give both CTAs of the
            // pair the same source and destination offsets, and its 2-SM block-scaled
            // collective loads each CTA's scale factors into its own shared memory and copies
            // them with one `cta_group::2` copy issued by one CTA).
            if let crate::ops::tcgen05::PairOp::Cp(shape) = p {
                for &i in part {
                    self.with_peer(|c| c.tcgen05_cp(i, shape, srcs, addr, &name))?;
                }
            }
            return Ok(());
        }
        // Issued by each executing thread, not warp-collective.
        if let Tc5Op::Mma {
            kind,
            a_tmem,
            a_off,
            form,
        } = op
        {
            for &i in part {
                self.tcgen05_mma(i, kind, (a_tmem, a_off), form, srcs, addr, &name)?;
            }
            return Ok(());
        }
        if let Tc5Op::MmaScaled { .. } = op {
            for &i in part {
                self.tcgen05_mma_scaled(i, op, srcs, addr, &name)?;
            }
            return Ok(());
        }
        if let Tc5Op::Cp(shape) = op {
            for &i in part {
                self.tcgen05_cp(i, shape, srcs, addr, &name)?;
            }
            return Ok(());
        }
        if let Tc5Op::Shift = op {
            for &i in part {
                self.tcgen05_shift(i, addr, &name)?;
            }
            return Ok(());
        }
        if let Tc5Op::CommitMulticast = op {
            let (Some((_, a)), Some(&ms)) = (addr, srcs.first()) else {
                return Err(self.unsupported(t0, &name));
            };
            let mem = self.mem;
            let ctas = self.cluster_ctas();
            for &i in part {
                let mask = self.src(i, ms) & 0xffff;
                if mask >> ctas != 0 {
                    return Err(self.fault(
                        i,
                        FaultKind::OutOfBounds,
                        format!(
                            "`{name}` with ctaMask {mask:#06x}: the cluster has {ctas} CTAs (ranks 0..{})",
                            ctas - 1
                        ),
                    ));
                }
                let (_, at) = self.resolve(i, MemSpace::Shared, a);
                let (_, off) = self
                    .cluster_split(at)
                    .map_err(|e| self.access_fault(i, "write", MemSpace::Shared, at, 8, e))?;
                for r in crate::exec::fast::lanes(mask as u32) {
                    let ma = self.cluster_addr(r as u32, off);
                    self.mbar_update(i, MemSpace::Shared, ma, mem, |_, w| {
                        crate::ops::mbarrier::MBar::arrive(w, 1, false, false).map(|x| Some(x.0))
                    })?;
                }
            }
            return Ok(());
        }
        if let Tc5Op::Commit = op {
            let Some((space, a)) = addr else {
                return Err(self.unsupported(t0, &name));
            };
            let mem = self.mem;
            for &i in part {
                let (sp, at) = self.resolve(i, space, a);
                self.mbar_update(i, sp, at, mem, |_, w| {
                    crate::ops::mbarrier::MBar::arrive(w, 1, false, false).map(|x| Some(x.0))
                })?;
            }
            return Ok(());
        }
        let w = t0 / 32;
        let lanes = self.whole_warp(t0, part, &name, "warp")?;
        let uniform = |this: &Self, v: &dyn Fn(usize) -> u64, what: &str| {
            let v0 = v(lanes[0]);
            for (l, &i) in lanes.iter().enumerate() {
                let x = v(i);
                if x != v0 {
                    return Err(this.fault(
                        i,
                        FaultKind::MemberMask,
                        format!(
                            "`{name}`: {what} differs between the threads of the warp (lane 0: {v0:#x}, lane {l}: {x:#x})"
                        ),
                    ));
                }
            }
            Ok(v0)
        };
        let taddr_of = |this: &Self, i: usize| -> u64 {
            match addr {
                Some((_, Addr::Reg(r, off))) => this.reg(i, r).wrapping_add(off as u64),
                Some((_, Addr::Abs(off))) => off as u64,
                Some((_, Addr::Var(loc, off))) => this.var_addr(i, loc).wrapping_add(off as u64),
                None => 0,
            }
        };
        let tm_fault = |this: &Self, t: usize, e: String| {
            this.fault(t, FaultKind::OutOfBounds, format!("`{name}`: {e}"))
        };
        match op {
            Tc5Op::Fence
            | Tc5Op::Wait
            | Tc5Op::Mma { .. }
            | Tc5Op::Commit
            | Tc5Op::CommitMulticast
            | Tc5Op::MmaScaled { .. }
            | Tc5Op::Shift
            | Tc5Op::Pair(_)
            | Tc5Op::Cp(_) => Ok(()),
            Tc5Op::Relinquish => {
                self.tmem.get_or_insert_with(Default::default).relinquish();
                Ok(())
            }
            Tc5Op::Alloc => {
                let (Some(&n), Some((space, a))) = (srcs.first(), addr) else {
                    return Err(self.unsupported(t0, &name));
                };
                let n = uniform(self, &|i| self.src(i, n), "nCols")?;
                let col = self
                    .tmem
                    .get_or_insert_with(Default::default)
                    .alloc(n)
                    .map_err(|e| {
                        let kind = if e.starts_with("out of Tensor Memory") {
                            FaultKind::Deadlock
                        } else {
                            FaultKind::OutOfBounds
                        };
                        self.fault(t0, kind, format!("`{name}`: {e}"))
                    })?;
                // Every thread writes the same address; one store does it.
                let (sp, at) = self.resolve(t0, space, a);
                if sp != MemSpace::Shared {
                    return Err(self.fault(
                        t0,
                        FaultKind::OutOfBounds,
                        format!(
                            "`{name}`: the destination {at:#x} is not in shared memory (the manual leaves it undefined)"
                        ),
                    ));
                }
                let mem = self.mem;
                self.store(t0, sp, at, &col.to_le_bytes(), mem)
            }
            Tc5Op::Dealloc => {
                let (Some(&ta), Some(&n)) = (srcs.first(), srcs.get(1)) else {
                    return Err(self.unsupported(t0, &name));
                };
                let ta = uniform(self, &|i| self.src(i, ta), "taddr")?;
                let n = uniform(self, &|i| self.src(i, n), "nCols")?;
                self.tmem
                    .get_or_insert_with(Default::default)
                    .dealloc(ta & 0xffff_ffff, n)
                    .map_err(|e| tm_fault(self, t0, e))
            }
            Tc5Op::Ld(m) | Tc5Op::St(m) | Tc5Op::LdRed(m, _) => {
                let store = matches!(op, Tc5Op::St(_));
                let ta = uniform(self, &|i| taddr_of(self, i), "the Tensor Memory address")?;
                let (lane0, col0) = (((ta >> 16) & 0xffff) as u32, (ta & 0xffff) as u32);
                let allowed = warp_lanes(w);
                let Some(tm) = self.tmem.as_deref() else {
                    return Err(tm_fault(
                        self,
                        t0,
                        "no Tensor Memory is allocated in this CTA".into(),
                    ));
                };
                let nregs = m.regs();
                let mut writes: Vec<(u32, u32, u32)> = Vec::new();
                for (l, &i) in lanes.iter().enumerate() {
                    for j in 0..nregs {
                        let (dl, dc) = m.cell(l as u32, j as u32);
                        let lane = lane0.saturating_add(dl);
                        let col = col0.saturating_add(dc);
                        if !allowed.contains(&lane) {
                            return Err(tm_fault(
                                self,
                                i,
                                format!(
                                    "register {j} of lane {l} is Tensor Memory lane {lane}, but warp {w} (warp {} of its warpgroup) can access only lanes {}..{}",
                                    w % 4,
                                    allowed.start,
                                    allowed.end
                                ),
                            ));
                        }
                        let cols: &[u32] = if m.pack {
                            &[col, col.saturating_add(1)]
                        } else {
                            &[col]
                        };
                        if store {
                            let v = srcs.get(j).map_or(0, |&s| self.src(i, s)) as u32;
                            if m.pack {
                                writes.push((lane, cols[0], v & 0xffff));
                                writes.push((lane, cols[1], v >> 16));
                            } else {
                                writes.push((lane, col, v));
                            }
                            for &c in cols {
                                tm.read(lane, c).map_err(|e| tm_fault(self, i, e))?;
                            }
                        } else {
                            let mut v = 0u32;
                            for (h, &c) in cols.iter().enumerate() {
                                let x = tm.read(lane, c).map_err(|e| tm_fault(self, i, e))?;
                                v |= if m.pack { (x & 0xffff) << (16 * h) } else { x };
                            }
                            writes.push((i as u32, j as u32, v));
                        }
                    }
                }
                if store {
                    // Every cell was checked above.
                    if let Some(tm) = self.tmem.as_deref_mut() {
                        for (lane, col, v) in writes {
                            let _ = tm.write(lane, col, v);
                        }
                    }
                } else {
                    // `.red`: each thread's loaded values, in register order, reduced into
                    // the destination after the registers.
                    let mut red_vals: Vec<(usize, Vec<u64>)> = Vec::new();
                    for (i, j, v) in writes {
                        if let Some(&d) = dsts.get(j as usize) {
                            self.write(i as usize, d, u64::from(v));
                        }
                        match red_vals.last_mut() {
                            Some((t, vals)) if *t == i as usize => vals.push(u64::from(v)),
                            _ => red_vals.push((i as usize, vec![u64::from(v)])),
                        }
                    }
                    if let (Tc5Op::LdRed(_, red), Some(&d)) = (op, dsts.get(nregs)) {
                        for (i, vals) in red_vals {
                            let r = crate::exec::isa::warp::redux(red, vals.into_iter());
                            self.write(i, d, r);
                        }
                    }
                }
                Ok(())
            }
        }
    }

    /// Reads an operand matrix (`rows` x `k` from row `row0`, `bits`-bit elements) from shared
    /// memory through its descriptor (`raw` for messages): `wgmma` and `tcgen05.mma`.
    #[allow(clippy::too_many_arguments)]
    fn smem_matrix(
        &self,
        t0: usize,
        dsc: crate::ops::wgmma::Desc,
        desc: u64,
        mn_major: bool,
        bits: u32,
        dims: [usize; 3],
        name: &str,
        what: &str,
    ) -> Result<Vec<u64>, Box<Fault>> {
        self.smem_matrix_padded(t0, dsc, desc, mn_major, (bits, 0), dims, name, what)
    }

    /// `smem_matrix` with `(bits, pad)`: `pad` 0, or the width (4 or 6) of the fp4/fp6
    /// elements of `tcgen05.mma .kind::f8f6f4`/`.kind::mxf8f6f4` in shared memory (`bits` = 8):
    /// they take the places of 8-bit elements in the layout, and each 16-byte unit of 16 such
    /// places holds its 16 elements packed from bit 0 up, `pad` bits each, followed by 8 (fp4)
    /// or 4 (fp6) bytes of padding (the `CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B` /
    /// `16U6_ALIGN16B` image that CUTLASS's TMA loads feed these MMAs; `docs/tensor-cores.md`).
    #[allow(clippy::too_many_arguments)]
    fn smem_matrix_padded(
        &self,
        t0: usize,
        dsc: crate::ops::wgmma::Desc,
        desc: u64,
        mn_major: bool,
        (bits, pad): (u32, u32),
        [row0, rows, k]: [usize; 3],
        name: &str,
        what: &str,
    ) -> Result<Vec<u64>, Box<Fault>> {
        let this = self;
        let mem = self.mem;
        let width = if pad != 0 { pad } else { bits };
        let mask = if width == 32 {
            u64::MAX >> 32
        } else {
            (1u64 << width) - 1
        };
        if let Err((misaligned, m)) = dsc.check() {
            return Err(this.fault(
                t0,
                if misaligned {
                    FaultKind::Misaligned
                } else {
                    FaultKind::Unsupported
                },
                format!("`{name}`: {what}: {m}"),
            ));
        }
        if dsc.atom32 && !mn_major {
            // CUTLASS's make_umma_desc: "SWIZZLE_128B_BASE32B is invalid for Major-K"; the
            // ISA shows this mode's layouts only as figures.
            return Err(this.fault(
                t0,
                FaultKind::Unsupported,
                format!(
                    "`{name}`: {what}: the 128-byte swizzle with 32-byte atoms (descriptor {desc:#018x}) is modelled for MN-major operands only"
                ),
            ));
        }
        let mut out = vec![0u64; rows * k];
        let mut cache: Option<(u64, [u8; 16])> = None;
        for r in 0..rows {
            for kk in 0..k {
                let (addr, bit) = dsc.locate(mn_major, bits, row0 + r, kk);
                // The element's place in its 16-byte unit, `pad` bits a place when padded.
                let bit = if pad != 0 { bit / 8 * pad } else { bit };
                let chunk = match cache {
                    Some((a, c)) if a == addr => c,
                    _ => {
                        let mut buf = [0u8; 16];
                        this.load(t0, MemSpace::Shared, addr, &mut buf, mem)
                            .map_err(|mut f| {
                                f.message = format!(
                                    "`{name}`: {what} (descriptor {desc:#018x}, {}): {}",
                                    dsc.swizzle_name(),
                                    f.message
                                );
                                f
                            })?;
                        cache = Some((addr, buf));
                        buf
                    }
                };
                let v = u128::from_le_bytes(chunk) >> bit;
                out[r * k + kk] = (v as u64) & mask;
            }
        }
        Ok(out)
    }

    /// D = A.B + C for `rows` x `n` with depth `k` (A row-major `rows x k`, B `n x k`, C and the
    /// result `rows x n`), with the arithmetic of the model's tensor cores for `inst`: the one
    /// definition `wgmma` and `tcgen05.mma` share. `flags`: negate A, negate B, saturate.
    /// `c_scale`: C enters the floating-point sum as C * 2^-c_scale (`tcgen05.mma`'s
    /// scale-input-d; 0 otherwise).
    #[allow(clippy::too_many_arguments)]
    fn tc_dot(
        &self,
        inst: ptxvm_fp::tensor::TcInst,
        [rows, n, k]: [usize; 3],
        [a, b, c]: [&[u64]; 3],
        [at_, bt_]: [crate::ops::tensor::Elem; 2],
        f16: bool,
        [neg_a, neg_b, satfinite]: [bool; 3],
        c_scale: i32,
    ) -> Vec<u64> {
        use crate::ops::tensor::Elem;
        use ptxvm_fp::tensor::{self as tc, AccType, BitOp};
        let mut d = vec![0u64; rows * n];
        match (at_, bt_) {
            (Elem::Float(at), Elem::Float(bt)) => {
                let dt = if f16 { AccType::F16 } else { AccType::F32 };
                let p = self.launch.model.tensor.fdpa(inst, k, at, dt);
                let neg = |x: tc::Num, yes: bool| match x {
                    _ if !yes => x,
                    tc::Num::Inf(sg) => tc::Num::Inf(!sg),
                    tc::Num::Fin { neg, sig, exp, e } => tc::Num::Fin {
                        neg: !neg,
                        sig,
                        exp,
                        e,
                    },
                    tc::Num::Nan => tc::Num::Nan,
                };
                let an: Vec<tc::Num> = a.iter().map(|&x| neg(at.decode(x as u32), neg_a)).collect();
                let bn: Vec<tc::Num> = b.iter().map(|&x| neg(bt.decode(x as u32), neg_b)).collect();
                for r in 0..rows {
                    for col in 0..n {
                        d[r * n + col] = tc::mma_dot_nums_scaled(
                            &p,
                            &an[r * k..(r + 1) * k],
                            &bn[col * k..(col + 1) * k],
                            dt,
                            c[r * n + col] as u32,
                            c_scale,
                        ) as u64;
                    }
                }
            }
            (Elem::Int(at), Elem::Int(bt)) => {
                let ai: Vec<i32> = a.iter().map(|&x| at.elem(x as u32, 0)).collect();
                let bi: Vec<i32> = b.iter().map(|&x| bt.elem(x as u32, 0)).collect();
                for r in 0..rows {
                    for col in 0..n {
                        d[r * n + col] = tc::dot_int(
                            &ai[r * k..(r + 1) * k],
                            &bi[col * k..(col + 1) * k],
                            c[r * n + col] as u32 as i32,
                            satfinite,
                        ) as u32 as u64;
                    }
                }
            }
            _ => {
                let pack = |v: &[u64]| -> Vec<u32> {
                    v.chunks(32)
                        .map(|ch| {
                            ch.iter()
                                .enumerate()
                                .fold(0u32, |acc, (j, &b)| acc | ((b as u32 & 1) << j))
                        })
                        .collect()
                };
                let (ap, bp) = (pack(a), pack(b));
                let wk = k / 32;
                for r in 0..rows {
                    for col in 0..n {
                        d[r * n + col] = tc::dot_b1(
                            &ap[r * wk..(r + 1) * wk],
                            &bp[col * wk..(col + 1) * wk],
                            c[r * n + col] as u32 as i32,
                            BitOp::And,
                        ) as u32 as u64;
                    }
                }
            }
        }
        d
    }

    /// One `tcgen05.mma` (`.cta_group::1`, dense) issued by thread `t`, completed at once: D
    /// (M = 128: row m in lane m, column n at D's column + n, 32-bit accumulators) = A.B (+ D
    /// with enable-input-d). A from shared memory through its descriptor, or from Tensor
    /// Memory (row m in lane m, element k at bit k * bits of the row from A's column).
    ///
    /// `.sp` (`form.sp`): A is the M x K/2 compressed matrix (K/2 elements per row, read as a
    /// dense A of that width), decompressed with the metadata in Tensor Memory
    /// (`ops::tcgen05::sp_meta_at`, the sparsity selector in descriptor bits 0-1) by
    /// `ops::sparse::decompress_rows`, then multiplied densely with the full K. `scale-input-d`
    /// (`form.scale_d`, kind::f16/tf32 only) lowers C's exponent by the scale before it enters
    /// the sum (`ptxvm_fp::tensor::mma_dot_nums_scaled`).
    #[allow(clippy::too_many_arguments)]
    fn tcgen05_mma(
        &mut self,
        t: usize,
        kind: crate::ops::tcgen05::Kind,
        (a_tmem, a_off): (bool, i32),
        form: crate::ops::tcgen05::MmaForm,
        srcs: &[Src],
        addr: Option<(MemSpace, Addr)>,
        name: &str,
    ) -> Result<(), Box<Fault>> {
        use crate::ops::tcgen05::{Idesc, Kind};
        use crate::ops::tensor::Elem;
        use ptxvm_fp::tensor::{IntType, TcInst, TcType};
        let (Some(&sa), Some(&sb), Some(&si), Some(&se), Some((_, Addr::Reg(dr, doff)))) =
            (srcs.first(), srcs.get(1), srcs.get(2), srcs.get(3), addr)
        else {
            return Err(self.unsupported(t, name));
        };
        let unsup = |this: &Self, m: String| {
            this.fault(t, FaultKind::Unsupported, format!("`{name}`: {m}"))
        };
        let bad = |this: &Self, m: String| {
            this.fault(t, FaultKind::OutOfBounds, format!("`{name}`: {m}"))
        };
        let raw = self.src(t, si) as u32;
        let id = Idesc::decode(raw);
        if id.sparse != form.sp {
            return Err(bad(
                self,
                if form.sp {
                    format!(
                        "instruction descriptor {raw:#010x} does not set sparsity (bit 2) for `tcgen05.mma.sp`"
                    )
                } else {
                    format!(
                        "instruction descriptor {raw:#010x} asks for sparsity (bit 2) in a dense `tcgen05.mma`"
                    )
                },
            ));
        }
        if form.sp && !form.pair && id.m != 128 {
            return Err(unsup(
                self,
                format!(
                    "M = {} (instruction descriptor {raw:#010x}): `tcgen05.mma.sp` is modelled for M = 128 only (the M = 64 metadata layout is only a figure in the PTX ISA)",
                    id.m
                ),
            ));
        }
        if let Some(sc) = form.scale_d
            && (sc > 15 || !matches!(kind, Kind::F16 | Kind::Tf32))
        {
            return Err(bad(
                self,
                format!("scale-input-d {sc}: it must be in [0, 15], with kind::f16 or kind::tf32"),
            ));
        }
        if form.pair {
            // `.cta_group::2` (ISA "Matrix shape"): M = 128 or 256, N = 16, 32, ..., 256.
            if form.sp && id.m != 256 {
                return Err(unsup(
                    self,
                    format!(
                        "M = {} (instruction descriptor {raw:#010x}): `tcgen05.mma.sp.cta_group::2` is modelled for M = 256 only (Layout C and the M = 64 metadata layout of M = 128 are figures)",
                        id.m
                    ),
                ));
            }
            if !matches!(id.m, 128 | 256) || !id.n.is_multiple_of(16) || !(16..=256).contains(&id.n)
            {
                return Err(bad(
                    self,
                    format!(
                        "M = {}, N = {} (instruction descriptor {raw:#010x}): .cta_group::2 needs M = 128 or 256 and N = 16, 32, ..., 256",
                        id.m, id.n
                    ),
                ));
            }
        } else if form.ws {
            // `.ws` (ISA "Matrix shape"): M = 32, 64 or 128; N = 64, 128 or 256 (64 or 128
            // with `.sp`).
            if !matches!(id.m, 32 | 64 | 128) {
                return Err(bad(
                    self,
                    format!(
                        "M = {} (instruction descriptor {raw:#010x}) is not 32, 64 or 128 for `.ws`",
                        id.m
                    ),
                ));
            }
            let n_ok = matches!(id.n, 64 | 128) || (id.n == 256 && !form.sp);
            if !n_ok {
                return Err(bad(
                    self,
                    format!(
                        "N = {} (instruction descriptor {raw:#010x}) is not one of 64, 128{} for `.ws`",
                        id.n,
                        if form.sp { " (sparse)" } else { ", 256" }
                    ),
                ));
            }
        } else if id.m != 128 && id.m != 64 {
            return Err(unsup(
                self,
                format!(
                    "M = {} (instruction descriptor {raw:#010x}): only M = 64 and M = 128 are modelled with .cta_group::1",
                    id.m
                ),
            ));
        }
        if form.ashift && !a_tmem {
            return Err(unsup(self, "`.ashift` needs A in Tensor Memory".into()));
        }
        if form.ashift && id.m != if form.pair { 256 } else { 128 } {
            return Err(bad(
                self,
                format!(
                    "M = {} (instruction descriptor {raw:#010x}): `.ashift` is only allowed with M = 128 or M = 256",
                    id.m
                ),
            ));
        }
        if id.n < 8 || id.n > 256 {
            return Err(bad(
                self,
                format!(
                    "N = {} (instruction descriptor {raw:#010x}) is not one of 8, 16, ..., 256",
                    id.n
                ),
            ));
        }
        // kind::f8f6f4's types (instruction descriptor bits 7-9 / 10-12): e4m3 0, e5m2 1,
        // e2m3 3, e3m2 4, e2m1 5.
        let fl = |c: u32| match c {
            0 => Some(TcType::E4m3),
            1 => Some(TcType::E5m2),
            3 => Some(TcType::E2m3),
            4 => Some(TcType::E3m2),
            5 => Some(TcType::E2m1),
            _ => None,
        };
        let (at, bt, dt_ok) = match kind {
            Kind::F16 => {
                let f = |c| match c {
                    0 => Some(TcType::F16),
                    1 => Some(TcType::Bf16),
                    _ => None,
                };
                // An f16 D only with f16 A and B (bf16 accumulates into f32).
                (
                    f(id.atype).map(Elem::Float),
                    f(id.btype).map(Elem::Float),
                    id.dtype == 1 || (id.dtype == 0 && id.atype == 0 && id.btype == 0),
                )
            }
            Kind::Tf32 => (
                (id.atype == 2).then_some(Elem::Float(TcType::Tf32)),
                (id.btype == 2).then_some(Elem::Float(TcType::Tf32)),
                id.dtype == 1,
            ),
            Kind::F8f6f4 => (
                fl(id.atype).map(Elem::Float),
                fl(id.btype).map(Elem::Float),
                id.dtype <= 1,
            ),
            Kind::I8 => {
                let f = |c| match c {
                    0 => Some(IntType::U8),
                    1 => Some(IntType::S8),
                    _ => None,
                };
                (
                    f(id.atype).map(Elem::Int),
                    f(id.btype).map(Elem::Int),
                    id.dtype == 2,
                )
            }
        };
        let (Some(at), Some(bt), true) = (at, bt, dt_ok) else {
            return Err(unsup(
                self,
                format!(
                    "instruction descriptor {raw:#010x}: dtype {}, atype {}, btype {} is not a form ptxvm models for this kind",
                    id.dtype, id.atype, id.btype
                ),
            ));
        };
        // fp6/fp4 operands (kind::f8f6f4): 8-bit places in shared memory, packed within each
        // 16-byte unit (`smem_matrix_padded`).
        // With `.sp` the compressed A is padded the same way (CUTLASS's sparse SM100 builder
        // takes the same `unpacksmem` types).
        let pad = [at, bt].map(crate::ops::tcgen05::padded_width);
        if (kind == Kind::I8) && (id.neg_a || id.neg_b) {
            return Err(bad(
                self,
                format!("instruction descriptor {raw:#010x}: kind::i8 cannot negate"),
            ));
        }
        if id.saturate && kind != Kind::I8 {
            return Err(bad(
                self,
                format!("instruction descriptor {raw:#010x}: saturate is for kind::i8 only"),
            ));
        }
        let bits: u32 = match kind {
            Kind::F16 => 16,
            Kind::Tf32 => 32,
            _ => 8,
        };
        if form.sp
            && let Err(e) = crate::ops::tcgen05::sp_meta_at(bits, raw & 3, 0, 0)
        {
            // The ISA requires selector 0 for the 8-bit kinds; 2 and 3 of the others are not
            // modelled.
            return Err(if bits == 8 {
                bad(self, e)
            } else {
                unsup(self, e)
            });
        }
        // K: 32 bytes of A per row, dense; twice that (of which A holds half) with `.sp`.
        let k = (256 / bits) as usize * if form.sp { 2 } else { 1 };
        let (m, n) = (id.m as usize, id.n as usize);
        if form.pair {
            let f16_d = id.dtype == 0;
            let flags = [id.neg_a, id.neg_b, id.saturate];
            // disable-output-lane's eight words, lowest first (after the metadata with `.sp`).
            let extra = 4 + usize::from(form.sp);
            let mut off = [0u32; 8];
            for (j, &x) in srcs.get(extra..extra + 8).unwrap_or(&[]).iter().enumerate() {
                off[j] = self.src(t, x) as u32;
            }
            // `.sp`: the metadata's register, its offset, the selector and A's chunk geometry.
            let sp = form.sp.then(|| {
                (
                    srcs.get(4).copied(),
                    form.meta_off,
                    raw & 3,
                    crate::ops::sparse::chunk(at),
                )
            });
            return self.tcgen05_mma_pair(
                t,
                name,
                (a_tmem, sa, a_off, id.trans_a),
                (sb, id.trans_b),
                (se, (dr, doff), off),
                (form.ashift, sp),
                (bits, pad),
                [m, n, k],
                ([at, bt], f16_d, flags, form.scale_d.map_or(0, i32::from)),
            );
        }
        // The Tensor Memory lane of row `r` (ISA "Data Path Layout Organization"): Layout D
        // (M = 128) row r in lane r; Layout F (M = 64, half the data path: 16 lanes of each
        // warp's 32, from lane 0 or 16) row r in lane 32 (r / 16) + r % 16.
        // `.ws` (Layouts G, E and D; CUTLASS's `tmem_frg_ws`: the "1x4" and "2x2" data paths):
        // N is split into `128 / M` groups of columns, group `j`'s D rows in lanes
        // `j M + r` from D's column; its data path reads A in Tensor Memory from the same
        // lanes (A "duplicated" to every group, as CUTLASS's note on its ws atoms says).
        let groups = if form.ws { 128 / m } else { 1 };
        let row_lane = |lane0: u32, r: usize| -> u32 {
            let r = r as u32;
            if m == 128 || form.ws {
                lane0 + r
            } else {
                lane0 + 32 * (r / 16) + r % 16
            }
        };
        let lane_ok = |a: u64| {
            let lane = a >> 16 & 0xffff;
            lane == 0 || (m == 64 && lane == 16 && !form.ws)
        };
        let lane_rule = if m == 128 || form.ws {
            "must be at lane 0 for this M"
        } else {
            "must be at lane 0 or 16 for M = 64"
        };
        let d_addr = self.reg(t, dr).wrapping_add(doff as u64);
        if !lane_ok(d_addr) {
            return Err(bad(
                self,
                format!("D's Tensor Memory address {d_addr:#x} {lane_rule}"),
            ));
        }
        let dlane = (d_addr >> 16 & 0xffff) as u32;
        let dcol = (d_addr & 0xffff) as u32;
        let extra = 4 + usize::from(form.sp);
        // The zero-column mask descriptor (`ops::tcgen05::zero_column_mask`): the D columns
        // that multiply zeros instead of B's column, and the column shift (D's column `c`
        // multiplies B's column `c + shift`).
        let (zero_cols, shift) = match srcs.get(extra) {
            Some(&z) if form.ws => {
                let zd = self.src(t, z);
                crate::ops::tcgen05::zero_column_mask(zd, m, n)
                    .map_err(|(u, e)| if u { unsup(self, e) } else { bad(self, e) })?
            }
            _ => (vec![false; n], 0),
        };
        // disable-output-lane: bit L (of the four words, lowest first) keeps Tensor Memory lane
        // L of D.
        let mut off = [0u32; 4];
        if !form.ws {
            for (j, &x) in srcs.get(extra..extra + 4).unwrap_or(&[]).iter().enumerate() {
                off[j] = self.src(t, x) as u32;
            }
        }
        // One pass per data-path group (one unless `.ws` with M < 128): N / groups columns of
        // D and B, A from lane `j M` on (relative to A's address).
        let ng = n / groups;
        for g in 0..groups {
            let glane = (g * m) as u32;
            let [a, mut b, mut c] = self.tcgen05_operands(
                t,
                name,
                (
                    a_tmem,
                    sa,
                    a_off.wrapping_add((glane << 16) as i32),
                    id.trans_a,
                ),
                (sb, id.trans_b, g * ng + shift),
                se,
                (bits, pad),
                [m, ng, k],
                form.sp,
                (dlane + glane, dcol),
                &row_lane,
                &|a: u64| g > 0 || lane_ok(a),
                lane_rule,
            )?;
            // Zeroed columns: B's elements read as 0 (ISA: "0s must be used for the entire
            // column").
            for (col, &z) in zero_cols[g * ng..(g + 1) * ng].iter().enumerate() {
                if z {
                    b[col * k..(col + 1) * k].fill(0);
                }
            }
            let a = if form.sp {
                self.tcgen05_sp_decompress(
                    t,
                    name,
                    srcs.get(4).copied(),
                    form.meta_off,
                    raw & 3,
                    crate::ops::sparse::chunk(at),
                    bits,
                    [m, k],
                    &a,
                )?
            } else {
                a
            };
            // An f16 D (dtype 0) is one element per 32-bit cell, in its lower 16 bits (ISA
            // "Packing format for matrix D in Tensor Memory"); ptxvm reads C from those bits
            // and writes the upper 16 as 0.
            let f16_d = id.dtype == 0;
            if f16_d {
                for x in &mut c {
                    *x &= 0xffff;
                }
            }
            let d = self.tc_dot(
                TcInst::Tcgen05,
                [m, ng, k],
                [&a, &b, &c],
                [at, bt],
                f16_d,
                [id.neg_a, id.neg_b, id.saturate],
                form.scale_d.map_or(0, i32::from),
            );
            if let Some(tm) = self.tmem.as_deref_mut() {
                for r in 0..m {
                    let lane = row_lane(dlane + glane, r);
                    if off[(lane / 32) as usize % 4] >> (lane % 32) & 1 != 0 {
                        continue;
                    }
                    for col in 0..ng {
                        // Every cell was read above.
                        let _ = tm.write(lane, dcol + col as u32, d[r * ng + col] as u32);
                    }
                }
            }
        }
        // `.ashift` (ISA: "shifts the rows of the A matrix down by one row, except for the last
        // row in the Tensor Memory"): after the product, A's rows 0..M-2 move to rows 1..M-1
        // (the 256 bits of each row A occupies); row 0 keeps its contents (the ISA does not say
        // what it becomes).
        if form.ashift {
            let aa = self.src(t, sa).wrapping_add(a_off as i64 as u64);
            let (alane, acol) = ((aa >> 16 & 0xffff) as u32, (aa & 0xffff) as u32);
            if let Some(tm) = self.tmem.as_deref_mut() {
                for r in (0..m as u32 - 1).rev() {
                    for c in 0..8 {
                        // Every cell of A was read above.
                        let v = tm.read(alane + r, acol + c).unwrap_or(0);
                        let _ = tm.write(alane + r + 1, acol + c, v);
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether this CTA has a peer CTA (ISA "CTA Pair": rank `r ^ 1`) in its cluster, for a
    /// `.cta_group::2` instruction.
    fn tcgen05_peer(&self, t: usize, name: &str) -> Result<(), Box<Fault>> {
        let p = self.rank ^ 1;
        if (p as usize) < self.peers.len() {
            return Ok(());
        }
        Err(self.fault(
            t,
            FaultKind::OutOfBounds,
            format!(
                "`{name}`: CTA rank {} has no peer CTA (rank {p}) in its cluster of {} CTA(s)",
                self.rank,
                self.peers.len().max(1)
            ),
        ))
    }

    /// Runs `f` as the peer CTA for shared and Tensor Memory: its shared memory and Tensor
    /// Memory (lent to this CTA by `ClusterRun`) take the place of this CTA's, and go back
    /// after `f`. The caller has checked that the peer exists ([`Self::tcgen05_peer`]).
    fn with_peer<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let p = (self.rank ^ 1) as usize;
        std::mem::swap(&mut self.tmem, &mut self.peer_tmem);
        if let Some(s) = self.peers.get_mut(p) {
            std::mem::swap(&mut self.shared, s);
        }
        let r = f(self);
        if let Some(s) = self.peers.get_mut(p) {
            std::mem::swap(&mut self.shared, s);
        }
        std::mem::swap(&mut self.tmem, &mut self.peer_tmem);
        r
    }

    /// Runs `f` as this CTA (`own`) or as its peer ([`Self::with_peer`]).
    fn in_pair_cta<R>(&mut self, own: bool, f: impl FnOnce(&mut Self) -> R) -> R {
        if own { f(self) } else { self.with_peer(f) }
    }

    /// `tcgen05.mma.cta_group::2` (dense) issued by thread `t`, completed at once. The pair's
    /// share of each matrix (ISA Layouts A and B are figures; ptxvm follows CUTLASS's 2-SM UMMA
    /// traits, `SM100_MMA_*_2x1SM_*`, whose layouts are text): CTA `v` of the pair (`v` = 0 the
    /// even rank) holds rows `v M/2 .. (v+1) M/2` of A (in its shared memory, through the same
    /// descriptor, or in its Tensor Memory from A's address, row `r` in lane `r`), columns
    /// `v N/2 .. (v+1) N/2` of B (its shared memory, through the same descriptor: an N/2 x K
    /// matrix) and rows `v M/2 ..` of D in its Tensor Memory at D's address: M = 256 ("4x1",
    /// Layout A) row `r` in lane `r`, column `n` at D's column + `n`; M = 128 ("2x2", Layout B;
    /// CUTLASS's `tmem_frg_2sm` M = 64 atom) row `r` in lane `r` for the columns `n < N/2` and in
    /// lane `64 + r` for the others, at column `n % (N/2)`. D's and A's addresses must be at
    /// lane 0. `disable-output-lane` (eight words, "each bit corresponds to a lane of the Tensor
    /// Memory"): bits 0-127 the even CTA's lanes, 128-255 the odd CTA's (ptxvm's reading: the
    /// pair's 256 lanes in rank order).
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn tcgen05_mma_pair(
        &mut self,
        t: usize,
        name: &str,
        a: (bool, Src, i32, bool),
        (sb, trans_b): (Src, bool),
        (enable, (dr, doff), off): (Src, (u32, i64), [u32; 8]),
        (ashift, sp): (bool, Option<(Option<Src>, i32, u32, (usize, usize))>),
        (bits, pad): (u32, [u32; 2]),
        [m, n, k]: [usize; 3],
        (types, f16_d, flags, c_scale): ([crate::ops::tensor::Elem; 2], bool, [bool; 3], i32),
    ) -> Result<(), Box<Fault>> {
        use crate::ops::tcgen05::smem_desc;
        self.tcgen05_peer(t, name)?;
        let bad = |this: &Self, m: String| {
            this.fault(t, FaultKind::OutOfBounds, format!("`{name}`: {m}"))
        };
        let d_addr = self.reg(t, dr).wrapping_add(doff as u64);
        if d_addr >> 16 & 0xffff != 0 {
            return Err(bad(
                self,
                format!(
                    "D's Tensor Memory address {d_addr:#x} must be at lane 0 with .cta_group::2"
                ),
            ));
        }
        let dcol = (d_addr & 0xffff) as u32;
        let (hm, hn) = (m / 2, n / 2);
        // D's row `r` (of this CTA's half), column `c`: (lane, column).
        let d_cell = |r: usize, c: usize| -> (u32, u32) {
            if m == 256 {
                (r as u32, dcol + c as u32)
            } else {
                ((r + 64 * (c / hn)) as u32, dcol + (c % hn) as u32)
            }
        };
        let even = self.rank & 1 == 0;
        // B: the pair's halves, columns 0..N/2 from the even CTA, N/2..N from the odd one.
        let raw_b = self.src(t, sb);
        let dsc_b = smem_desc(raw_b)
            .map_err(|e| self.fault(t, FaultKind::Unsupported, format!("`{name}`: B: {e}")))?;
        let mut b = Vec::with_capacity(n * k);
        for v in 0..2 {
            let half = self.in_pair_cta((v == 0) == even, |c: &mut Self| {
                c.smem_matrix_padded(
                    t,
                    dsc_b,
                    raw_b,
                    trans_b,
                    (bits, pad[1]),
                    [0, hn, k],
                    name,
                    "B",
                )
            })?;
            b.extend(half);
        }
        let enable = self.src(t, enable) != 0;
        let (a_tmem, sa, a_off, trans_a) = a;
        let raw_a = self.src(t, sa);
        // A's stored columns: K, or K/2 of the compressed A with `.sp`.
        let ka = if sp.is_some() { k / 2 } else { k };
        let mask = if bits == 32 {
            0xffff_ffffu64
        } else {
            (1u64 << bits) - 1
        };
        for v in 0..2 {
            self.in_pair_cta((v == 0) == even, |c: &mut Self| -> Result<(), Box<Fault>> {
                let no_tmem = |c: &Self| {
                    bad(
                        c,
                        format!(
                            "no Tensor Memory is allocated in CTA rank {} of the pair",
                            (c.rank & !1) | v as u32
                        ),
                    )
                };
                // A: this CTA's M/2 rows.
                let a: Vec<u64> = if a_tmem {
                    if pad[0] != 0 {
                        // As for `.cta_group::1`: only the ISA's figures place it.
                        return Err(c.fault(
                            t,
                            FaultKind::Unsupported,
                            format!(
                                "`{name}`: A in Tensor Memory with {}-bit elements: their packing there is only shown in figures of the PTX ISA",
                                pad[0]
                            ),
                        ));
                    }
                    let aa = raw_a.wrapping_add(a_off as i64 as u64);
                    if aa >> 16 & 0xffff != 0 {
                        return Err(bad(
                            c,
                            format!("A's Tensor Memory address {aa:#x} must be at lane 0 with .cta_group::2"),
                        ));
                    }
                    let acol = (aa & 0xffff) as u32;
                    let Some(tm) = c.tmem.as_deref() else {
                        return Err(no_tmem(c));
                    };
                    let mut a = vec![0u64; hm * ka];
                    for r in 0..hm {
                        for kk in 0..ka {
                            let bit = kk as u32 * bits;
                            let cell = tm
                                .read(r as u32, acol + bit / 32)
                                .map_err(|e| bad(c, e))?;
                            a[r * ka + kk] = (u64::from(cell) >> (bit % 32)) & mask;
                        }
                    }
                    a
                } else {
                    let dsc = smem_desc(raw_a).map_err(|e| {
                        c.fault(t, FaultKind::Unsupported, format!("`{name}`: A: {e}"))
                    })?;
                    c.smem_matrix_padded(
                        t,
                        dsc,
                        raw_a,
                        trans_a,
                        (bits, pad[0]),
                        [0, hm, ka],
                        name,
                        "A",
                    )?
                };
                // `.sp` (M = 256): this CTA's 128 rows of the compressed A and its metadata in
                // its own Tensor Memory, placed as for M = 128 (the ISA draws one metadata
                // layout "for M = 128 / M = 256").
                let a = match sp {
                    Some((meta, meta_off, sel, geometry)) => c.tcgen05_sp_decompress(
                        t,
                        name,
                        meta,
                        meta_off,
                        sel,
                        geometry,
                        bits,
                        [hm, k],
                        &a,
                    )?,
                    None => a,
                };
                let Some(tm) = c.tmem.as_deref() else {
                    return Err(no_tmem(c));
                };
                let mut cm = vec![0u64; hm * n];
                for r in 0..hm {
                    for col in 0..n {
                        let (lane, dc) = d_cell(r, col);
                        let x = tm.read(lane, dc).map_err(|e| bad(c, e))?;
                        if enable {
                            cm[r * n + col] = u64::from(x) & if f16_d { 0xffff } else { u64::MAX };
                        }
                    }
                }
                let d = c.tc_dot(
                    ptxvm_fp::tensor::TcInst::Tcgen05,
                    [hm, n, k],
                    [&a, &b, &cm],
                    types,
                    f16_d,
                    flags,
                    c_scale,
                );
                if let Some(tm) = c.tmem.as_deref_mut() {
                    for r in 0..hm {
                        for col in 0..n {
                            let (lane, dc) = d_cell(r, col);
                            // disable-output-lane: words 4v .. 4v + 3 for CTA v's lanes.
                            if off[4 * v + (lane / 32) as usize % 4] >> (lane % 32) & 1 != 0 {
                                continue;
                            }
                            // Every cell was read above.
                            let _ = tm.write(lane, dc, d[r * n + col] as u32);
                        }
                    }
                    // `.ashift` (M = 256, A in Tensor Memory): "shifts the rows of the A matrix
                    // down by one row, except for the last row in the Tensor Memory" — in each
                    // CTA's Tensor Memory (ptxvm's reading: the hardware shifts within a Tensor
                    // Memory), as `.cta_group::1`: rows 0..126 move to 1..127, row 0 kept.
                    if ashift {
                        let acol = (raw_a.wrapping_add(a_off as i64 as u64) & 0xffff) as u32;
                        for r in (0..hm as u32 - 1).rev() {
                            for cc in 0..8 {
                                // Every cell of A was read above.
                                let x = tm.read(r, acol + cc).unwrap_or(0);
                                let _ = tm.write(r + 1, acol + cc, x);
                            }
                        }
                    }
                }
                Ok(())
            })?;
        }
        Ok(())
    }

    /// `tcgen05.mma.sp` (M = 128) for thread `t`: the dense `m` x `k` A from the compressed
    /// `comp` (`m` x `k / 2`, chunks of `geometry`) and the metadata at the Tensor Memory
    /// address in `meta` (+ `meta_off`; its lane must be 0), placed as
    /// `ops::tcgen05::sp_meta_at` says for `bits`-bit elements and the sparsity selector `sel`.
    #[allow(clippy::too_many_arguments)]
    fn tcgen05_sp_decompress(
        &self,
        t: usize,
        name: &str,
        meta: Option<Src>,
        meta_off: i32,
        sel: u32,
        geometry: (usize, usize),
        bits: u32,
        [m, k]: [usize; 2],
        comp: &[u64],
    ) -> Result<Vec<u64>, Box<Fault>> {
        let bad = |m: String| self.fault(t, FaultKind::OutOfBounds, format!("`{name}`: {m}"));
        let Some(meta) = meta else {
            return Err(self.unsupported(t, name));
        };
        let maddr = self.src(t, meta).wrapping_add(meta_off as i64 as u64);
        if maddr >> 16 & 0xffff != 0 {
            return Err(bad(format!(
                "the sparsity metadata's Tensor Memory address {maddr:#x} must be at lane 0 for M = 128"
            )));
        }
        let mcol = (maddr & 0xffff) as u32;
        let Some(tm) = self.tmem.as_deref() else {
            return Err(bad("no Tensor Memory is allocated in this CTA".into()));
        };
        let mut unsupported = false;
        let a = crate::ops::sparse::decompress_rows(geometry, k, m, comp, |row, ch| {
            let (lane, col, bit) = crate::ops::tcgen05::sp_meta_at(bits, sel, row, ch)
                .inspect_err(|_| unsupported = true)?;
            let col = mcol
                .checked_add(col)
                .ok_or_else(|| format!("metadata address {maddr:#x} overflows"))?;
            Ok(tm.read(lane, col)? >> bit & 0xf)
        });
        a.map_err(|e| {
            if unsupported {
                self.fault(t, FaultKind::Unsupported, format!("`{name}`: {e}"))
            } else {
                bad(format!("sparsity metadata: {e}"))
            }
        })
    }

    /// The operands of a `tcgen05.mma` issued by thread `t`: A, `m` rows of `k` elements of
    /// `bits` bits, from Tensor Memory at the address in `a.1` + `a.2` when `a.0` (its lane
    /// checked by `lane_ok`, `lane_rule` saying the rule), else through the shared-memory
    /// descriptor in `a.1` (`a.3`: transposed); B, `n` x `k`, through the descriptor in `b.0`;
    /// C, D's `m` x `n` cells at lane `d.0`, column `d.1` (0 when `enable` is false). Row `r`
    /// of A and C is in the Tensor Memory lane `row_lane(first lane, r)`.
    #[allow(clippy::too_many_arguments)]
    fn tcgen05_operands(
        &self,
        t: usize,
        name: &str,
        a: (bool, Src, i32, bool),
        b: (Src, bool, usize),
        enable: Src,
        (bits, pad): (u32, [u32; 2]),
        [m, n, k]: [usize; 3],
        sparse: bool,
        d: (u32, u32),
        row_lane: &dyn Fn(u32, usize) -> u32,
        lane_ok: &dyn Fn(u64) -> bool,
        lane_rule: &str,
    ) -> Result<[Vec<u64>; 3], Box<Fault>> {
        use crate::ops::tcgen05::smem_desc;
        let unsup = |this: &Self, m: String| {
            this.fault(t, FaultKind::Unsupported, format!("`{name}`: {m}"))
        };
        let bad = |this: &Self, m: String| {
            this.fault(t, FaultKind::OutOfBounds, format!("`{name}`: {m}"))
        };
        let (a_tmem, sa, a_off, trans_a) = a;
        let (sb, trans_b, b_row0) = b;
        let (dlane, dcol) = d;
        let mask = if bits == 32 {
            0xffff_ffffu64
        } else {
            (1u64 << bits) - 1
        };
        let no_tmem = |this: &Self| bad(this, "no Tensor Memory is allocated in this CTA".into());
        // A (with `sparse`, the compressed K/2 columns).
        let ka = if sparse { k / 2 } else { k };
        let a: Vec<u64> = if a_tmem {
            if pad[0] != 0 {
                // ISA Figures 199-201 only: no text gives where an fp6/fp4 A sits in Tensor
                // Memory (CUTLASS's `tmem_frg_1sm<a_type>` would pack it at its own width,
                // `tcgen05.cp`'s decompressing forms give 8-bit containers).
                return Err(unsup(
                    self,
                    format!(
                        "A in Tensor Memory with {}-bit elements: their packing there is only shown in figures of the PTX ISA",
                        pad[0]
                    ),
                ));
            }
            let aa = self.src(t, sa).wrapping_add(a_off as i64 as u64);
            if !lane_ok(aa) {
                return Err(bad(
                    self,
                    format!("A's Tensor Memory address {aa:#x} {lane_rule}"),
                ));
            }
            let alane = (aa >> 16 & 0xffff) as u32;
            let acol = (aa & 0xffff) as u32;
            let Some(tm) = self.tmem.as_deref() else {
                return Err(no_tmem(self));
            };
            let mut a = vec![0u64; m * ka];
            for r in 0..m {
                for kk in 0..ka {
                    let bit = kk as u32 * bits;
                    let cell = tm
                        .read(row_lane(alane, r), acol + bit / 32)
                        .map_err(|e| bad(self, e))?;
                    a[r * ka + kk] = (u64::from(cell) >> (bit % 32)) & mask;
                }
            }
            a
        } else {
            let raw_a = self.src(t, sa);
            let dsc = smem_desc(raw_a).map_err(|e| unsup(self, format!("A: {e}")))?;
            self.smem_matrix_padded(
                t,
                dsc,
                raw_a,
                trans_a,
                (bits, pad[0]),
                [0, m, ka],
                name,
                "A",
            )?
        };
        let raw_b = self.src(t, sb);
        let dsc = smem_desc(raw_b).map_err(|e| unsup(self, format!("B: {e}")))?;
        let b = self.smem_matrix_padded(
            t,
            dsc,
            raw_b,
            trans_b,
            (bits, pad[1]),
            [b_row0, n, k],
            name,
            "B",
        )?;
        // C: D's cells, or 0.
        let enable = self.src(t, enable) != 0;
        let Some(tm) = self.tmem.as_deref() else {
            return Err(no_tmem(self));
        };
        let mut c = vec![0u64; m * n];
        for r in 0..m {
            for col in 0..n {
                let v = tm
                    .read(row_lane(dlane, r), dcol + col as u32)
                    .map_err(|e| bad(self, e))?;
                if enable {
                    c[r * n + col] = u64::from(v);
                }
            }
        }
        Ok([a, b, c])
    }

    /// `tcgen05.cp` for one issuing thread `t`: the `rows` x `bytes` matrix the descriptor
    /// describes (K-major, as `tcgen05.mma`'s operands: `bytes` 8-bit elements per row) goes
    /// to Tensor Memory, row `r` to the lanes `CpShape::lanes` gives (relative to the
    /// address's lane), byte `j` to column `j / 4` (relative to the address's column), bits
    /// `8 (j % 4)` upwards — the layout `tcgen05.mma` reads A from Tensor Memory with.
    fn tcgen05_cp(
        &mut self,
        t: usize,
        shape: crate::ops::tcgen05::CpShape,
        srcs: &[Src],
        addr: Option<(MemSpace, Addr)>,
        name: &str,
    ) -> Result<(), Box<Fault>> {
        use crate::ops::tcgen05::smem_desc;
        let (Some(&sd), Some((_, Addr::Reg(r, off)))) = (srcs.first(), addr) else {
            return Err(self.unsupported(t, name));
        };
        let raw = self.src(t, sd);
        let dsc = smem_desc(raw)
            .map_err(|e| self.fault(t, FaultKind::Unsupported, format!("`{name}`: source: {e}")))?;
        let (rows, bytes) = (shape.rows as usize, shape.bytes as usize);
        let mut m = self.smem_matrix(t, dsc, raw, false, 8, [0, rows, bytes], name, "source")?;
        if shape.unpack != 0 {
            // The decompressing forms: each 16-byte chunk of a row (one element a byte),
            // unpacked in place.
            for chunk in m.chunks_exact_mut(16) {
                let row: [u8; 16] = std::array::from_fn(|i| chunk[i] as u8);
                let out = crate::ops::tensor::decompress_b8x16(row, u32::from(shape.unpack));
                for (d, s) in chunk.iter_mut().zip(out) {
                    *d = u64::from(s);
                }
            }
        }
        let taddr = self.reg(t, r).wrapping_add(off as u64);
        let (lane0, col0) = ((taddr >> 16 & 0xffff) as u32, (taddr & 0xffff) as u32);
        let Some(tm) = self.tmem.as_deref_mut() else {
            return Err(self.fault(
                t,
                FaultKind::OutOfBounds,
                format!("`{name}`: no Tensor Memory is allocated in this CTA"),
            ));
        };
        let mut err = None;
        'rows: for row in 0..rows {
            for lane in shape.lanes(row as u32) {
                for c in 0..bytes / 4 {
                    let v = (0..4).fold(0u32, |v, b| {
                        v | (m.get(row * bytes + 4 * c + b).copied().unwrap_or(0) as u32) << (8 * b)
                    });
                    let (Some(l), Some(col)) =
                        (lane0.checked_add(lane), col0.checked_add(c as u32))
                    else {
                        err = Some(format!("Tensor Memory address {taddr:#x} overflows"));
                        break 'rows;
                    };
                    if let Err(e) = tm.write(l, col, v) {
                        err = Some(e.to_string());
                        break 'rows;
                    }
                }
            }
        }
        match err {
            Some(e) => Err(self.fault(t, FaultKind::OutOfBounds, format!("`{name}`: {e}"))),
            None => Ok(()),
        }
    }

    /// `tcgen05.shift.cta_group::1.down [taddr]` for one issuing thread `t` (ISA: "shifting of
    /// 32-byte elements downwards across all the rows, except the last, by one row"; the
    /// shape is `.31x256b`, the address's lane aligned to 32): rows 0..30 of the 32 lanes from
    /// the address move to rows 1..31, 8 columns from the address's; row 0 keeps its contents
    /// (the ISA does not say what it becomes). Complete when issued, like `tcgen05.cp`.
    fn tcgen05_shift(
        &mut self,
        t: usize,
        addr: Option<(MemSpace, Addr)>,
        name: &str,
    ) -> Result<(), Box<Fault>> {
        let Some((_, Addr::Reg(r, off))) = addr else {
            return Err(self.unsupported(t, name));
        };
        let taddr = self.reg(t, r).wrapping_add(off as u64);
        let (lane0, col0) = ((taddr >> 16 & 0xffff) as u32, (taddr & 0xffff) as u32);
        let bad = |this: &Self, m: String| {
            this.fault(t, FaultKind::OutOfBounds, format!("`{name}`: {m}"))
        };
        if lane0 % 32 != 0 {
            return Err(bad(
                self,
                format!("the Tensor Memory address {taddr:#x}'s lane must be aligned to 32"),
            ));
        }
        let Some(tm) = self.tmem.as_deref_mut() else {
            return Err(bad(
                self,
                "no Tensor Memory is allocated in this CTA".into(),
            ));
        };
        let mut err = None;
        'rows: for row in (0..31u32).rev() {
            for c in 0..8u32 {
                let moved = col0
                    .checked_add(c)
                    .ok_or_else(|| format!("Tensor Memory address {taddr:#x} overflows"))
                    .and_then(|col| {
                        let v = tm.read(lane0 + row, col)?;
                        tm.write(lane0 + row + 1, col, v)
                    });
                if let Err(e) = moved {
                    err = Some(e);
                    break 'rows;
                }
            }
        }
        match err {
            Some(e) => Err(bad(self, e)),
            None => Ok(()),
        }
    }

    /// Block-scaled `tcgen05.mma` for one issuing thread `t` (`.cta_group::1`, M = 128,
    /// f32 D). The instruction descriptor (ISA "Instruction descriptor" for the block-scaled
    /// kinds): SF-B ID bits 4-5, A/B types bits 7-9/10-12, negation 13/14, transposes 15/16,
    /// N >> 3 bits 17-22, scale type bit 23 (1 = ue8m0, 0 = ue4m3), M >> 7 bits 27-28, SF-A ID
    /// bits 29-30. Scale factors in Tensor Memory (ISA "Block Scaling" text: one byte per
    /// factor, the SF ID its byte offset in the word, 2X a byte pair from 0 or 2, 4X the
    /// whole word, duplicated to all four 32-lane partitions; the placement is figures 231-242,
    /// read from CUTLASS's `tmem_sf_frg` layout): the factors of row `m` of A are in lane
    /// `m % 32` of each partition, column `m / 32` of scale-A's address, bytes `id + j`; of
    /// column `n` of B, lane `n % 32`, column `n / 32` of scale-B's address. Row `m`'s data path
    /// (partition `m / 32`) reads its own partition's copy. The arithmetic is the block-scale
    /// model of `ptxvm_fp::tensor` (`mma_dot_mx`, `mma_dot_mxf4`), as `mma.sync`'s.
    fn tcgen05_mma_scaled(
        &mut self,
        t: usize,
        op: crate::ops::tcgen05::Tc5Op,
        srcs: &[Src],
        addr: Option<(MemSpace, Addr)>,
        name: &str,
    ) -> Result<(), Box<Fault>> {
        use crate::ops::tcgen05::Tc5Op;
        use ptxvm_fp::tensor::{self as tc, ScaleType, TcType};
        let Tc5Op::MmaScaled {
            mxf4,
            vec,
            a_tmem,
            a_off,
            sfa_off,
            sfb_off,
            meta_off,
        } = op
        else {
            return Err(self.unsupported(t, name));
        };
        let (
            Some(&sa),
            Some(&sb),
            Some(&si),
            Some(&se),
            Some(&ssa),
            Some(&ssb),
            Some((_, Addr::Reg(dr, doff))),
        ) = (
            srcs.first(),
            srcs.get(1),
            srcs.get(2),
            srcs.get(3),
            srcs.get(4),
            srcs.get(5),
            addr,
        )
        else {
            return Err(self.unsupported(t, name));
        };
        let unsup = |this: &Self, m: String| {
            this.fault(t, FaultKind::Unsupported, format!("`{name}`: {m}"))
        };
        let bad = |this: &Self, m: String| {
            this.fault(t, FaultKind::OutOfBounds, format!("`{name}`: {m}"))
        };
        let raw = self.src(t, si) as u32;
        let field = |sh: u32, w: u32| raw >> sh & ((1 << w) - 1);
        let sp = meta_off.is_some();
        if (field(2, 1) != 0) != sp {
            return Err(bad(
                self,
                if sp {
                    format!(
                        "instruction descriptor {raw:#010x} does not set sparsity (bit 2) for `tcgen05.mma.sp`"
                    )
                } else {
                    format!(
                        "instruction descriptor {raw:#010x} asks for sparsity (bit 2) in a dense `tcgen05.mma`"
                    )
                },
            ));
        }
        let (b_id, a_id) = (field(4, 2), field(29, 2));
        let (atype, btype) = (field(7, 3), field(10, 3));
        let (neg_a, neg_b) = (field(13, 1) != 0, field(14, 1) != 0);
        let (trans_a, trans_b) = (field(15, 1) != 0, field(16, 1) != 0);
        let n = (field(17, 6) << 3) as usize;
        let ue8m0 = field(23, 1) != 0;
        let m_dim = field(27, 2) << 7;
        if m_dim != 128 {
            return Err(unsup(
                self,
                format!(
                    "M = {m_dim} (instruction descriptor {raw:#010x}): only M = 128 is modelled with .cta_group::1"
                ),
            ));
        }
        if !(8..=256).contains(&n) {
            return Err(bad(
                self,
                format!(
                    "N = {n} (instruction descriptor {raw:#010x}) is not one of 8, 16, ..., 256"
                ),
            ));
        }
        // Types: mxf8f6f4 e4m3 (0), e5m2 (1), e2m3 (3), e3m2 (4), e2m1 (5) — the fp6/fp4 ones
        // padded in shared memory (`smem_matrix_padded`) — and e2m1 (1) for mxf4/mxf4nvf4.
        let ty = |c: u32| match (mxf4, c) {
            (false, 0) => Some(TcType::E4m3),
            (false, 1) => Some(TcType::E5m2),
            (false, 3) => Some(TcType::E2m3),
            (false, 4) => Some(TcType::E3m2),
            (false, 5) => Some(TcType::E2m1),
            (true, 1) => Some(TcType::E2m1),
            _ => None,
        };
        let (Some(at), Some(bt)) = (ty(atype), ty(btype)) else {
            return Err(unsup(
                self,
                format!(
                    "instruction descriptor {raw:#010x}: atype {atype}, btype {btype} is not a form ptxvm models for this kind"
                ),
            ));
        };
        let pad = if mxf4 {
            [0, 0]
        } else {
            [at, bt].map(|x| crate::ops::tcgen05::padded_width(crate::ops::tensor::Elem::Float(x)))
        };
        let stype = if ue8m0 {
            ScaleType::Ue8m0
        } else {
            ScaleType::Ue4m3
        };
        if !ue8m0 && vec != 4 {
            return Err(bad(
                self,
                format!(
                    "instruction descriptor {raw:#010x}: ue4m3 scale factors need scale_vec::4X"
                ),
            ));
        }
        let id_ok = |id: u32| match vec {
            1 => true,
            2 => id == 0 || id == 2,
            _ => id == 0,
        };
        if !id_ok(a_id) || !id_ok(b_id) {
            return Err(bad(
                self,
                format!(
                    "instruction descriptor {raw:#010x}: scale factor IDs A {a_id}, B {b_id} are not valid for scale_vec::{vec}X"
                ),
            ));
        }
        // K (dense): 32 bytes of A per row, twice that with `.sp` (A holds half). e2m1 A in
        // Tensor Memory: two elements to a byte, as in shared memory (ISA "Packing format used
        // for matrix A by .kind::mxf4 and .kind::mxf4nvf4 in Tensor Memory"), lower K in the
        // low nibble as ptxvm reads shared memory.
        let (m, k, bits) = (
            128usize,
            if mxf4 { 64usize } else { 32 } * if sp { 2 } else { 1 },
            if mxf4 { 4u32 } else { 8 },
        );
        let d_addr = self.reg(t, dr).wrapping_add(doff as u64);
        let lane0 = |a: u64| a >> 16 & 0xffff;
        if lane0(d_addr) != 0 {
            return Err(bad(
                self,
                format!("D's Tensor Memory address {d_addr:#x} must be at lane 0 for M = 128"),
            ));
        }
        let dcol = (d_addr & 0xffff) as u32;
        let sfa = self.src(t, ssa).wrapping_add(sfa_off as i64 as u64);
        let sfb = self.src(t, ssb).wrapping_add(sfb_off as i64 as u64);
        for (what, x) in [("scale-A", sfa), ("scale-B", sfb)] {
            if lane0(x) != 0 {
                return Err(bad(
                    self,
                    format!(
                        "{what}'s Tensor Memory address {x:#x} must be at lane 0 (the factors are duplicated to every 32-lane partition)"
                    ),
                ));
            }
        }
        let (sfa_col, sfb_col) = ((sfa & 0xffff) as u32, (sfb & 0xffff) as u32);
        let row_lane = |_: u32, r: usize| r as u32;
        let lane_ok = |a: u64| lane0(a) == 0;
        let [a, b, c] = self.tcgen05_operands(
            t,
            name,
            (a_tmem, sa, a_off, trans_a),
            (sb, trans_b, 0),
            se,
            (bits, pad),
            [m, n, k],
            sp,
            (0, dcol),
            &row_lane,
            &lane_ok,
            "must be at lane 0 for M = 128",
        )?;
        // `.sp`: A decompressed with the metadata (the 8-bit placement; the block-scaled kinds
        // have no selector: 0), 4:8 in pairs for e2m1.
        let a = match meta_off {
            Some(off) => self.tcgen05_sp_decompress(
                t,
                name,
                srcs.get(6).copied(),
                off,
                0,
                if mxf4 { (8, 4) } else { (4, 2) },
                bits,
                [m, k],
                &a,
            )?,
            None => a,
        };
        let c: Vec<u32> = c.iter().map(|&x| x as u32).collect();
        let tm_err = |this: &Self, e: String| bad(this, e);
        let Some(tm) = self.tmem.as_deref() else {
            return Err(bad(
                self,
                "no Tensor Memory is allocated in this CTA".into(),
            ));
        };
        // The scale factors: sf_a[m][j]; sf_b[p][n][j] (partition p's copy).
        let byte = |w: u32, i: u32| (w >> (8 * i)) & 0xff;
        let mut sf_a = Vec::with_capacity(m);
        for r in 0..m as u32 {
            let w = tm.read(r, sfa_col + r / 32).map_err(|e| tm_err(self, e))?;
            sf_a.push(
                (0..vec as u32)
                    .map(|j| stype.decode(byte(w, a_id + j)))
                    .collect::<Vec<_>>(),
            );
        }
        let mut sf_b = Vec::with_capacity(4);
        for p in 0..4u32 {
            let mut part = Vec::with_capacity(n);
            for col in 0..n as u32 {
                let w = tm
                    .read(32 * p + col % 32, sfb_col + col / 32)
                    .map_err(|e| tm_err(self, e))?;
                part.push(
                    (0..vec as u32)
                        .map(|j| stype.decode(byte(w, b_id + j)))
                        .collect::<Vec<_>>(),
                );
            }
            sf_b.push(part);
        }
        // Negation flips the element's sign bit (bit 7 of e4m3/e5m2, 5 of e2m3/e3m2, 3 of e2m1).
        let sign = |w: u32| 1u64 << ((if w != 0 { w } else { bits }) - 1);
        let (sa_bit, sb_bit) = (sign(pad[0]), sign(pad[1]));
        let a: Vec<u32> = a
            .iter()
            .map(|&x| (if neg_a { x ^ sa_bit } else { x }) as u32)
            .collect();
        let b: Vec<u32> = b
            .iter()
            .map(|&x| (if neg_b { x ^ sb_bit } else { x }) as u32)
            .collect();
        let an: Vec<tc::Num> = a.iter().map(|&x| at.decode(x)).collect();
        let bn: Vec<tc::Num> = b.iter().map(|&x| bt.decode(x)).collect();
        let mut d = vec![0u32; m * n];
        for r in 0..m {
            let p = r / 32;
            for col in 0..n {
                let (ar, bc) = (r * k..(r + 1) * k, col * k..(col + 1) * k);
                let (fa, fb) = (&sf_a[r], &sf_b[p][col]);
                d[r * n + col] = if mxf4 {
                    tc::mma_dot_mxf4(&a[ar], &b[bc], fa, fb, c[r * n + col])
                } else {
                    tc::mma_dot_mx(&an[ar], &bn[bc], fa[0], fb[0], c[r * n + col])
                };
            }
        }
        if let Some(tm) = self.tmem.as_deref_mut() {
            for r in 0..m {
                for col in 0..n {
                    // Every cell was read above.
                    let _ = tm.write(r as u32, dcol + col as u32, d[r * n + col]);
                }
            }
        }
        Ok(())
    }

    /// At the end of a CTA: Tensor Memory must have been deallocated.
    pub(in crate::exec) fn tcgen05_finish(&self) -> Result<(), Box<Fault>> {
        if let Some(&(s, n)) = self.tmem.as_ref().and_then(|t| t.held().first()) {
            return Err(self.fault(
                0,
                FaultKind::OutOfBounds,
                format!(
                    "the CTA ended with {n} columns of Tensor Memory at column {s} still allocated: every `tcgen05.alloc` must be matched by a `tcgen05.dealloc` before the kernel exits"
                ),
            ));
        }
        Ok(())
    }
}

impl Dx<'_> {
    /// Decodes a block-scaled `mma.sync` (`d, a, b, c` already split into registers; the
    /// operands 4..8 are scale-a-data, {byte-id-a, thread-id-a}, scale-b-data,
    /// {byte-id-b, thread-id-b}).
    fn decode_mma_scaled(
        &self,
        inst: &ir::Inst,
        d: &[Op],
        a: &[Op],
        b: &[Op],
        c: &[Op],
    ) -> Option<Exec> {
        let spec =
            crate::ops::tensor::MmaScaled::parse(&inst.mods, a.len(), b.len(), c.len(), d.len())?;
        let pair = |o: &Op| -> Option<Vec<Op>> {
            match o {
                Op::Vector(v) if v.len() == 2 => Some(v.clone()),
                _ => None,
            }
        };
        let ops = &inst.operands;
        // scale-x-data is a register, possibly written as a one-element vector.
        let one = |o: &Op| -> Op {
            match o {
                Op::Vector(v) if v.len() == 1 => v[0].clone(),
                other => other.clone(),
            }
        };
        let (sa, sela, sb, selb) = (
            one(ops.get(4)?),
            pair(ops.get(5)?)?,
            one(ops.get(6)?),
            pair(ops.get(7)?)?,
        );
        let extra = [
            sa,
            sela[0].clone(),
            sela[1].clone(),
            sb,
            selb[0].clone(),
            selb[1].clone(),
        ];
        Some(Exec::Matrix {
            op: MatrixOp::MmaScaled(spec),
            dsts: d.iter().map(|o| self.dst(o)).collect::<Option<Vec<_>>>()?,
            srcs: a
                .iter()
                .chain(b)
                .chain(c)
                .chain(&extra)
                .map(|o| self.src(o))
                .collect::<Option<Vec<_>>>()?,
            addr: None,
        })
    }
}

impl Dx<'_> {
    /// Decodes the decompressing `ldmatrix.sync.aligned.m8n16.xN{.ss}.b8x16.src_fmt` and
    /// `ldmatrix.sync.aligned.m16n16.xN.trans{.ss}.b8x16.src_fmt` (`MatrixOp::LdB8x16`).
    fn decode_ldmatrix_b8x16(&self, inst: &ir::Inst) -> Option<Exec> {
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        let bits = if has(".b6x16_p32") {
            6
        } else if has(".b4x16_p64") {
            4
        } else {
            return None;
        };
        let n: u8 = if has(".x4") {
            4
        } else if has(".x2") {
            2
        } else {
            1
        };
        let m16 = has(".m16n16");
        if (m16 && (!has(".trans") || n > 2)) || (!m16 && (!has(".m8n16") || has(".trans"))) {
            return None;
        }
        let dsts = match inst.operands.first()? {
            Op::Vector(v) => v.iter().map(|o| self.dst(o)).collect::<Option<Vec<_>>>()?,
            o => vec![self.dst(o)?],
        };
        (dsts.len() == usize::from(n) * if m16 { 2 } else { 1 }).then_some(())?;
        Some(Exec::Matrix {
            op: MatrixOp::LdB8x16 { n, m16, bits },
            dsts,
            srcs: Vec::new(),
            addr: Some((space_of(mods), self.addr(inst.operands.get(1)?)?)),
        })
    }

    /// Decodes the b8 shapes `ldmatrix.sync.aligned.m16n16.xN.trans.b8` and
    /// `stmatrix.sync.aligned.m16n8.xN.trans.b8` (`None` for the `.b8x16.src_fmt`
    /// decompressing forms and anything inconsistent).
    fn decode_matrix_b8(&self, inst: &ir::Inst) -> Option<Exec> {
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        if !has(".trans") {
            return None;
        }
        let n = if has(".x4") {
            4
        } else if has(".x2") {
            2
        } else {
            1
        };
        let regs = |o: &Op| -> Vec<Op> {
            match o {
                Op::Vector(v) => v.clone(),
                other => vec![other.clone()],
            }
        };
        let ops = &inst.operands;
        match inst.opcode {
            "ldmatrix" if has(".m16n16") && n <= 2 => {
                let dsts = regs(ops.first()?)
                    .iter()
                    .map(|o| self.dst(o))
                    .collect::<Option<Vec<_>>>()?;
                (dsts.len() == 2 * n as usize).then_some(())?;
                Some(Exec::Matrix {
                    op: MatrixOp::LdB8 { n },
                    dsts,
                    srcs: Vec::new(),
                    addr: Some((space_of(mods), self.addr(ops.get(1)?)?)),
                })
            }
            "stmatrix" if has(".m16n8") => {
                let srcs = regs(ops.get(1)?)
                    .iter()
                    .map(|o| self.src(o))
                    .collect::<Option<Vec<_>>>()?;
                (srcs.len() == n as usize).then_some(())?;
                Some(Exec::Matrix {
                    op: MatrixOp::StB8 { n },
                    dsts: Vec::new(),
                    srcs,
                    addr: Some((space_of(mods), self.addr(ops.first()?)?)),
                })
            }
            _ => None,
        }
    }
}

impl Dx<'_> {
    /// Decodes a block-scaled `tcgen05.mma.cta_group::1` (operands `[d], a, b_desc, idesc,
    /// [scale-A], [scale-B], enable-input-d`; `None` for `.cta_group::2`, `.ashift` or an
    /// operand ptxvm cannot address).
    fn decode_tcgen05_mma_scaled(&self, inst: &ir::Inst) -> Option<Exec> {
        use crate::ops::tcgen05::Tc5Op;
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        if !has(".cta_group::1") || has(".ashift") {
            return None;
        }
        let mxf4 = has(".kind::mxf4") || has(".kind::mxf4nvf4");
        if !mxf4 && !has(".kind::mxf8f6f4") {
            return None;
        }
        // .block32 is 1X for mxf8f6f4 and 2X for mxf4 (K = 64 here), .block16 is 4X.
        let vec = if has(".scale_vec::4X") || has(".block16") {
            4
        } else if mxf4 {
            2
        } else {
            1
        };
        let ops = &inst.operands;
        let reg_off = |o: &Op| match self.addr(o)? {
            Addr::Reg(r, off) => Some((Src::Reg(r), i32::try_from(off).ok()?)),
            _ => None,
        };
        let (a, a_tmem, a_off) = match ops.get(1)? {
            o @ Op::Addr { .. } => {
                let (r, off) = reg_off(o)?;
                (r, true, off)
            }
            o => (self.src(o)?, false, 0),
        };
        // `.sp`: the metadata's address after B's descriptor.
        let sp = has(".sp");
        let at = |i: usize| ops.get(i + usize::from(sp));
        let meta = if sp {
            Some(reg_off(ops.get(3)?)?)
        } else {
            None
        };
        let (sfa, sfa_off) = reg_off(at(4)?)?;
        let (sfb, sfb_off) = reg_off(at(5)?)?;
        Some(Exec::Matrix {
            op: MatrixOp::Tcgen05(Tc5Op::MmaScaled {
                mxf4,
                vec,
                a_tmem,
                a_off,
                sfa_off,
                sfb_off,
                meta_off: meta.map(|m| m.1),
            }),
            dsts: Vec::new(),
            srcs: [
                a,
                self.src(ops.get(2)?)?,
                self.src(at(3)?)?,
                self.src(at(6)?)?,
                sfa,
                sfb,
            ]
            .into_iter()
            .chain(meta.map(|m| m.0))
            .collect(),
            addr: Some((MemSpace::Generic, self.addr(ops.first()?)?)),
        })
    }
}
