//! Warp-collective instructions: `shfl`, `vote`, `match`, `redux`, `elect`, `activemask`.
//!
//! Decoding (`Dx::decode_warp`, called by `program.rs`) and the execution for a whole warp
//! (`Cta::warp_inst`, `Cta::warp_exec`), which every engine uses; `bar.warp.sync` decodes with
//! the barriers (`sync.rs`) and runs here.

use crate::exec::*;
use ptxvm_ir::ir::{self, Op};

impl Dx<'_> {
    /// Decodes the warp family's instructions (`None`: a form the engines do not run).
    pub(crate) fn decode_warp(&self, inst: &ir::Inst) -> Option<Exec> {
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        let ops = &inst.operands;
        let op = |k: usize| ops.get(k);
        Some(match inst.opcode {
            "activemask" => Exec::Warp {
                op: WarpOp::ActiveMask,
                d: self.dst(op(0)?)?,
                p: Dst::Sink,
                a: Src::Imm(0),
                b: Src::Imm(0),
                c: Src::Imm(0),
                mask: None,
            },
            "vote" => {
                let wop = if has(".all") {
                    WarpOp::VoteAll
                } else if has(".any") {
                    WarpOp::VoteAny
                } else if has(".uni") {
                    WarpOp::VoteUni
                } else if has(".ballot") {
                    WarpOp::Ballot
                } else {
                    return None;
                };
                Exec::Warp {
                    op: wop,
                    d: self.dst(op(0)?)?,
                    p: Dst::Sink,
                    a: self.src(op(1)?)?,
                    b: Src::Imm(0),
                    c: Src::Imm(0),
                    mask: if has(".sync") {
                        Some(self.src(op(2)?)?)
                    } else {
                        None
                    },
                }
            }
            "shfl" => {
                let mode = if has(".up") {
                    ShflMode::Up
                } else if has(".down") {
                    ShflMode::Down
                } else if has(".bfly") {
                    ShflMode::Bfly
                } else if has(".idx") {
                    ShflMode::Idx
                } else {
                    return None;
                };
                let (d, p) = match op(0)? {
                    Op::Pair(a, b) => (self.dst(a)?, self.dst(b)?),
                    o => (self.dst(o)?, Dst::Sink),
                };
                Exec::Warp {
                    op: WarpOp::Shfl(mode),
                    d,
                    p,
                    a: self.src(op(1)?)?,
                    b: self.src(op(2)?)?,
                    c: self.src(op(3)?)?,
                    mask: if has(".sync") {
                        Some(self.src(op(4)?)?)
                    } else {
                        None
                    },
                }
            }
            "match" => {
                let (d, p) = match op(0)? {
                    Op::Pair(a, b) => (self.dst(a)?, self.dst(b)?),
                    o => (self.dst(o)?, Dst::Sink),
                };
                Exec::Warp {
                    op: if has(".all") {
                        WarpOp::MatchAll
                    } else {
                        WarpOp::MatchAny
                    },
                    d,
                    p,
                    a: self.src(op(1)?)?,
                    b: Src::Imm(0),
                    c: Src::Imm(0),
                    mask: Some(self.src(op(2)?)?),
                }
            }
            "redux" => {
                let t = mods.iter().rev().find_map(|m| Type::from_dot(m))?;
                let signed = t.class() == Class::Signed;
                let (abs, nan) = (has(".abs"), has(".NaN"));
                let rop = if t == Type::F32 {
                    if has(".min") {
                        ReduxOp::FMin { abs, nan }
                    } else if has(".max") {
                        ReduxOp::FMax { abs, nan }
                    } else {
                        return None;
                    }
                } else if has(".add") {
                    ReduxOp::Add
                } else if has(".min") {
                    ReduxOp::Min { signed }
                } else if has(".max") {
                    ReduxOp::Max { signed }
                } else if has(".and") {
                    ReduxOp::And
                } else if has(".or") {
                    ReduxOp::Or
                } else if has(".xor") {
                    ReduxOp::Xor
                } else {
                    return None;
                };
                Exec::Warp {
                    op: WarpOp::Redux(rop),
                    d: self.dst(op(0)?)?,
                    p: Dst::Sink,
                    a: self.src(op(1)?)?,
                    b: Src::Imm(0),
                    c: Src::Imm(0),
                    mask: Some(self.src(op(2)?)?),
                }
            }
            "elect" => {
                let (d, p) = match op(0)? {
                    Op::Pair(a, b) => (self.dst(a)?, self.dst(b)?),
                    o => (self.dst(o)?, Dst::Sink),
                };
                Exec::Warp {
                    op: WarpOp::Elect,
                    d,
                    p,
                    a: Src::Imm(0),
                    b: Src::Imm(0),
                    c: Src::Imm(0),
                    mask: Some(self.src(op(1)?)?),
                }
            }
            _ => return None,
        })
    }
}

impl Cta<'_> {
    /// Executes a warp-level instruction for the active threads of a group.
    pub(in crate::exec) fn warp_inst(
        &mut self,
        w: u32,
        active: &[usize],
        inst: &DInst,
    ) -> Result<(), Box<Fault>> {
        // A collective checked for `wgmma` accumulators in flight: the check, then itself.
        let inst = match &inst.exec {
            Exec::WgmmaChecked(inner) => {
                for &i in active {
                    self.wgmma_check(i, &inner.exec)?;
                }
                &**inner
            }
            _ => inst,
        };
        if let Exec::Matrix { op, .. } = &inst.exec {
            // `.sync.aligned`: the whole warp takes part; lanes wait until every existing,
            // non-exited lane of the warp has arrived at this instruction. The per-thread
            // `tcgen05.mma`/`commit` run for the lanes that are here.
            let all = if matches!(op, MatrixOp::Tcgen05(t) if t.per_thread()) {
                active
                    .iter()
                    .fold(0u32, |m, &i| m | 1 << self.threads[i].lane)
            } else {
                self.live_lanes(w as usize)
            };
            for &i in active {
                self.touched = true;
                self.threads[i].sync_mask = all;
                self.sched[i].state = TState::WarpSync;
                self.wsync[i / 32] |= 1 << (i % 32);
            }
            self.release_warp_syncs(w as usize)?;
            return Ok(());
        }
        let Exec::Warp { op, mask, .. } = &inst.exec else {
            return Ok(());
        };
        match mask {
            None => {
                let lanes = active
                    .iter()
                    .fold(0u32, |m, &i| m | 1 << self.threads[i].lane);
                for &i in active {
                    self.touched = true;
                    self.threads[i].sync_mask = lanes;
                }
                self.warp_exec(active, inst);
                for &i in active {
                    self.sched[i].pc += 1;
                }
            }
            Some(m) => {
                for &i in active {
                    let mv = self.src(i, *m) as u32;
                    let lane = self.threads[i].lane;
                    if mv >> lane & 1 == 0 {
                        return Err(self.fault(
                            i,
                            FaultKind::MemberMask,
                            format!(
                                "lane {lane} executes `{}` with membermask {mv:#010x}, which does not include the lane itself",
                                warp_op_name(*op)
                            ),
                        ));
                    }
                    self.touched = true;
                    self.threads[i].sync_mask = mv;
                    self.sched[i].state = TState::WarpSync;
                    self.wsync[i / 32] |= 1 << (i % 32);
                }
                self.release_warp_syncs(w as usize)?;
            }
        }
        Ok(())
    }

    /// Completes every `.sync` instruction of warp `w` whose member lanes have all arrived.
    pub(in crate::exec) fn release_warp_syncs(&mut self, w: usize) -> Result<bool, Box<Fault>> {
        let lo = w * 32;
        let mut done: Vec<usize> = Vec::new();
        for l in fast::lanes(self.wsync.get(w).copied().unwrap_or(0)) {
            let i = lo + l;
            if self.sched[i].state == TState::WarpSync && self.sync_missing(i) == 0 {
                done.push(i);
            }
        }
        if done.is_empty() {
            return Ok(false);
        }
        // Execute per site, in lane order.
        while let Some(&first) = done.first() {
            let site = self.site_of(first);
            let (group, rest): (Vec<usize>, Vec<usize>) =
                done.iter().partition(|&&i| self.site_of(i) == site);
            done = rest;
            let (func, _, pc) = site;
            let prog = self.prog;
            let Some(inst) = prog
                .funcs
                .get(func as usize)
                .and_then(|f| f.code.get(pc as usize))
            else {
                continue;
            };
            let inst = match &inst.exec {
                Exec::WgmmaChecked(inner) => {
                    for &i in &group {
                        self.wgmma_check(i, &inner.exec)?;
                    }
                    &**inner
                }
                _ => inst,
            };
            if let Exec::Matrix { .. } = &inst.exec {
                self.matrix_exec(&group, inst)?;
            } else {
                self.warp_exec(&group, inst);
            }
            for &i in &group {
                let th = &mut self.sched[i];
                th.state = TState::Ready;
                th.pc += 1;
                self.wsync[i / 32] &= !(1 << (i % 32));
            }
        }
        Ok(true)
    }

    /// Computes and writes the results of a warp instruction for the participating
    /// threads `part` (each sees the participants within its own membermask).
    pub(in crate::exec) fn warp_exec(&mut self, part: &[usize], inst: &DInst) {
        let Exec::Warp {
            op, d, p, a, b, c, ..
        } = &inst.exec
        else {
            return;
        };
        let lo = part.first().map_or(0, |&i| i / 32 * 32);
        let mut vals = [0u64; 32];
        let mut present = 0u32;
        for &i in part {
            let lane = self.threads[i].lane as usize;
            vals[lane] = self.src(i, *a);
            present |= 1 << lane;
        }
        let mut results: Vec<(usize, u64, bool)> = Vec::with_capacity(part.len());
        for &i in part {
            let lane = self.threads[i].lane;
            let m = self.threads[i].sync_mask & present;
            let members = || (0..32usize).filter(move |l| m >> l & 1 == 1);
            let own = vals[lane as usize];
            let r = match op {
                WarpOp::ActiveMask => (m as u64, false),
                WarpOp::Sync => (0, false),
                WarpOp::VoteAll => (members().all(|l| vals[l] != 0) as u64, false),
                WarpOp::VoteAny => (members().any(|l| vals[l] != 0) as u64, false),
                WarpOp::VoteUni => {
                    let all = members().all(|l| vals[l] != 0);
                    let none = members().all(|l| vals[l] == 0);
                    ((all || none) as u64, false)
                }
                WarpOp::Ballot => (
                    members()
                        .filter(|&l| vals[l] != 0)
                        .fold(0u64, |acc, l| acc | 1 << l),
                    false,
                ),
                WarpOp::Shfl(mode) => {
                    let (bv, cv) = (self.src(i, *b), self.src(i, *c));
                    let (j, pval) = shfl_lane(*mode, lane, bv as u32, cv as u32);
                    let v = if present >> j & 1 == 1 {
                        vals[j as usize]
                    } else {
                        own
                    };
                    (v, pval)
                }
                WarpOp::MatchAny => (
                    members()
                        .filter(|&l| vals[l] == own)
                        .fold(0u64, |acc, l| acc | 1 << l),
                    false,
                ),
                WarpOp::MatchAll => {
                    if members().all(|l| vals[l] == own) {
                        (m as u64, true)
                    } else {
                        (0, false)
                    }
                }
                WarpOp::Redux(rop) => (redux(*rop, members().map(|l| vals[l])), false),
                WarpOp::Elect => {
                    let leader = m.trailing_zeros();
                    (leader as u64, leader == lane)
                }
            };
            results.push((i, r.0, r.1));
        }
        let _ = lo;
        for (i, v, pv) in results {
            if *op != WarpOp::Sync {
                self.write(i, *d, v);
            }
            self.write(i, *p, pv as u64);
        }
    }

    /// Lanes of `t`'s membermask that have not exited and are not waiting at `t`'s
    /// `.sync` instruction (lanes beyond the CTA's last thread do not exist and count as
    /// exited).
    pub(in crate::exec) fn sync_missing(&self, t: usize) -> u32 {
        let lo = t / 32 * 32;
        let site = self.site_of(t);
        let mut missing = 0u32;
        for lane in 0..32usize {
            if self.threads[t].sync_mask >> lane & 1 == 0 {
                continue;
            }
            let Some(u) = self.sched.get(lo + lane) else {
                continue;
            };
            match u.state {
                TState::Exited => {}
                TState::WarpSync if self.site_of(lo + lane) == site => {}
                _ => missing |= 1 << lane,
            }
        }
        missing
    }

    /// Where the lanes in `m` of `t`'s warp are, for diagnostics.
    pub(in crate::exec) fn sync_lane_states(&self, t: usize, m: u32) -> String {
        let lo = t / 32 * 32;
        let mut parts = Vec::new();
        for lane in 0..32usize {
            if m >> lane & 1 == 0 {
                continue;
            }
            let Some(u) = self.sched.get(lo + lane).copied() else {
                continue;
            };
            let (func, _, pc) = self.site_of(lo + lane);
            let line = self
                .prog
                .funcs
                .get(func as usize)
                .and_then(|f| f.code.get(pc as usize))
                .map_or(0, |i| i.line);
            let st = match u.state {
                TState::Barrier(id) => format!("at {}", bar_name(id)),
                TState::WarpSync => "at another `.sync` instruction".into(),
                TState::Ready => "not arrived".into(),
                TState::Exited => "exited".into(),
            };
            parts.push(format!("lane {lane} {st} (line {line})"));
            if parts.len() >= 4 {
                parts.push("...".into());
                break;
            }
        }
        parts.join("; ")
    }
}

/// `redux.sync` over the members' values (also `tcgen05.ld.red` over a thread's loaded
/// values).
pub(in crate::exec) fn redux(op: ReduxOp, vals: impl Iterator<Item = u64>) -> u64 {
    let vals: Vec<u32> = vals.map(|v| v as u32).collect();
    let fl = |abs: bool, nan: bool, max: bool| -> u64 {
        let m = fa::MinMax {
            ftz: false,
            nan,
            xorsign_abs: false,
        };
        let mut it = vals.iter().map(|&v| {
            let x = f32::from_bits(v);
            if abs { fa::abs_f32(x, false) } else { x }
        });
        let Some(first) = it.next() else { return 0 };
        it.fold(first, |acc, x| {
            if max {
                fa::max_f32(acc, x, m)
            } else {
                fa::min_f32(acc, x, m)
            }
        })
        .to_bits() as u64
    };
    match op {
        ReduxOp::Add => vals.iter().fold(0u32, |a, &v| a.wrapping_add(v)) as u64,
        ReduxOp::And => vals.iter().fold(u32::MAX, |a, &v| a & v) as u64,
        ReduxOp::Or => vals.iter().fold(0, |a, &v| a | v) as u64,
        ReduxOp::Xor => vals.iter().fold(0, |a, &v| a ^ v) as u64,
        ReduxOp::Min { signed: true } => {
            vals.iter().map(|&v| v as i32).min().unwrap_or(0) as u32 as u64
        }
        ReduxOp::Max { signed: true } => {
            vals.iter().map(|&v| v as i32).max().unwrap_or(0) as u32 as u64
        }
        ReduxOp::Min { signed: false } => vals.iter().copied().min().unwrap_or(0) as u64,
        ReduxOp::Max { signed: false } => vals.iter().copied().max().unwrap_or(0) as u64,
        ReduxOp::FMin { abs, nan } => fl(abs, nan, false),
        ReduxOp::FMax { abs, nan } => fl(abs, nan, true),
    }
}

fn warp_op_name(op: WarpOp) -> &'static str {
    match op {
        WarpOp::ActiveMask => "activemask",
        WarpOp::Sync => "bar.warp.sync",
        WarpOp::VoteAll | WarpOp::VoteAny | WarpOp::VoteUni | WarpOp::Ballot => "vote.sync",
        WarpOp::Shfl(_) => "shfl.sync",
        WarpOp::MatchAny | WarpOp::MatchAll => "match.sync",
        WarpOp::Redux(_) => "redux.sync",
        WarpOp::Elect => "elect.sync",
    }
}

/// The source lane and validity of `shfl` (§9.7.8.6).
#[inline(always)]
pub(in crate::exec) fn shfl_lane(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let bval = b & 0x1f;
    let cval = c & 0x1f;
    let segmask = (c >> 8) & 0x1f;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, pval) = match mode {
        ShflMode::Up => {
            let j = lane as i32 - bval as i32;
            (j, j >= max_lane as i32)
        }
        ShflMode::Down => {
            let j = (lane + bval) as i32;
            (j, j <= max_lane as i32)
        }
        ShflMode::Bfly => {
            let j = (lane ^ bval) as i32;
            (j, j <= max_lane as i32)
        }
        ShflMode::Idx => {
            let j = (min_lane | (bval & !segmask)) as i32;
            (j, j <= max_lane as i32)
        }
    };
    if pval && (0..32).contains(&j) {
        (j as u32, true)
    } else {
        (lane, false)
    }
}
