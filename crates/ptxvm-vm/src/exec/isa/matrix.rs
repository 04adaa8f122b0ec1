//! Matrix instructions: `ldmatrix`, `stmatrix`, `movmatrix`, `mma`, `wmma`.
//!
//! Decoding (`Dx::decode_matrix`, called by `program.rs`) and the execution for a whole warp
//! (`Cta::matrix_exec`); fragment layouts and the tensor-core arithmetic are in
//! [`crate::ops::tensor`].

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
            "mma" => {
                let regs = |o: &Op| -> Vec<Op> {
                    match o {
                        Op::Vector(v) => v.clone(),
                        other => vec![other.clone()],
                    }
                };
                let (d, a, b, c) = (regs(op(0)?), regs(op(1)?), regs(op(2)?), regs(op(3)?));
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
            _ => return None,
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
            MatrixOp::Mma(spec) => {
                let mut regs: [Vec<u64>; 32] = std::array::from_fn(|_| Vec::new());
                for (l, r) in regs.iter_mut().enumerate() {
                    let t = need(self, l)?;
                    *r = srcs.iter().map(|s| self.src(t, *s)).collect();
                }
                let out = crate::ops::tensor::mma(&spec, self.launch.model, &regs)
                    .map_err(|m| self.fault(part[0], FaultKind::Unsupported, m))?;
                for &i in part {
                    let l = self.threads[i].lane as usize;
                    for (d, v) in dsts.iter().zip(&out[l]) {
                        self.write(i, *d, *v);
                    }
                }
            }
            MatrixOp::WmmaMma(w) => {
                let mut regs: [Vec<u64>; 32] = std::array::from_fn(|_| Vec::new());
                for (l, r) in regs.iter_mut().enumerate() {
                    let t = need(self, l)?;
                    *r = srcs.iter().map(|s| self.src(t, *s)).collect();
                }
                let out = crate::ops::tensor::wmma_mma(&w, self.launch.model, &regs)
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
