//! CTA synchronization: `bar`/`barrier` (`.sync`, `.arrive`, `.red`, `.warp`, `.cluster`) and
//! `mbarrier`.
//!
//! Decoding (`Dx::decode_sync`, called by `program.rs`) and the reference engine's
//! execution (`Cta::exec_sync`).

use crate::exec::*;
use ptxvm_ir::ir::{self, Op};

impl Dx<'_> {
    /// Decodes the sync family's instructions (`None`: a form the engines do not run).
    pub(crate) fn decode_sync(&self, inst: &ir::Inst) -> Option<Exec> {
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        let ops = &inst.operands;
        let op = |k: usize| ops.get(k);
        Some(match inst.opcode {
            "mbarrier" if has(".pending_count") => Exec::MBarPending {
                d: self.dst(op(0)?)?,
                state: self.src(op(1)?)?,
            },
            "mbarrier" => {
                let drop = has(".arrive_drop");
                let (mop, ai, di) = if has(".init") {
                    (MBarOp::Init, 0, None)
                } else if has(".inval") {
                    (MBarOp::Inval, 0, None)
                } else if has(".expect_tx") && (has(".arrive") || drop) {
                    (MBarOp::ArriveTx { drop }, 1, Some(0))
                } else if has(".arrive") || drop {
                    (
                        MBarOp::Arrive {
                            drop,
                            no_complete: has(".noComplete"),
                        },
                        1,
                        Some(0),
                    )
                } else if has(".expect_tx") {
                    (MBarOp::ExpectTx, 0, None)
                } else if has(".complete_tx") {
                    (MBarOp::CompleteTx, 0, None)
                } else if has(".test_wait") || has(".try_wait") {
                    (
                        MBarOp::Wait {
                            parity: has(".parity"),
                        },
                        1,
                        Some(0),
                    )
                } else {
                    return None;
                };
                Exec::MBar {
                    op: mop,
                    space: space_of(mods),
                    addr: self.addr(op(ai)?)?,
                    d: match di {
                        Some(k) => self.dst(op(k)?)?,
                        None => Dst::Sink,
                    },
                    a: match op(ai + 1) {
                        Some(o) => self.src(o)?,
                        None => Src::Imm(1),
                    },
                }
            }
            "barrier" if has(".cluster") => Exec::ClusterBar { wait: has(".wait") },
            "clusterlaunchcontrol" if has(".try_cancel") => Exec::TryCancel {
                addr: self.addr(op(0)?)?,
                mbar: self.addr(op(1)?)?,
                generic: !has(".shared::cta"),
                multicast: has(".multicast::cluster::all"),
            },
            "clusterlaunchcontrol" if has(".query_cancel") => {
                let query = if has(".is_canceled") {
                    CancelQuery::IsCanceled
                } else if has(".get_first_ctaid::x") {
                    CancelQuery::FirstCtaidDim(0)
                } else if has(".get_first_ctaid::y") {
                    CancelQuery::FirstCtaidDim(1)
                } else if has(".get_first_ctaid::z") {
                    CancelQuery::FirstCtaidDim(2)
                } else if has(".get_first_ctaid") {
                    CancelQuery::FirstCtaid
                } else {
                    return None;
                };
                let ds = match op(0)? {
                    Op::Vector(v) => v.iter().map(|x| self.dst(x)).collect::<Option<Vec<_>>>()?,
                    o => vec![self.dst(o)?],
                };
                let (lo, hi) = self.pair(op(1)?)?;
                Exec::QueryCancel { query, ds, lo, hi }
            }
            "bar" | "barrier" if has(".warp") => Exec::Warp {
                op: WarpOp::Sync,
                d: Dst::Sink,
                p: Dst::Sink,
                a: Src::Imm(0),
                b: Src::Imm(0),
                c: Src::Imm(0),
                mask: Some(self.src(op(0)?)?),
            },
            "bar" | "barrier" if has(".red") => {
                let rop = if has(".popc") {
                    BarRedOp::Popc
                } else if has(".and") {
                    BarRedOp::And
                } else if has(".or") {
                    BarRedOp::Or
                } else {
                    return None;
                };
                let (count, pred) = if ops.len() == 4 {
                    (Some(self.src(op(2)?)?), self.src(op(3)?)?)
                } else {
                    (None, self.src(op(2)?)?)
                };
                Exec::BarRed {
                    op: rop,
                    d: self.dst(op(0)?)?,
                    id: self.src(op(1)?)?,
                    count,
                    pred,
                }
            }
            "bar" | "barrier" => {
                if has(".cluster") {
                    return None;
                }
                let arrive = has(".arrive");
                Exec::Bar {
                    id: self.src(op(0)?)?,
                    count: op(1).and_then(|o| self.src(o)),
                    arrive,
                }
            }
            _ => return None,
        })
    }
}

impl Cta<'_> {
    /// Runs one thread's step of a sync-family instruction (the reference engine's step).
    pub(in crate::exec) fn exec_sync(
        &mut self,
        t: usize,
        inst: &DInst,
        mem: &AddressSpace,
    ) -> Result<(), Box<Fault>> {
        let next = self.sched[t].pc + 1;
        match &inst.exec {
            Exec::Bar { id, count, arrive } => {
                let (id, count) = (self.src(t, *id), count.map(|c| self.src(t, c)));
                self.sched[t].pc = next;
                return self.bar_arrive(t, id, count, !*arrive, None);
            }
            Exec::BarRed {
                op,
                d,
                id,
                count,
                pred,
            } => {
                let (id, count) = (self.src(t, *id), count.map(|c| self.src(t, c)));
                let p = self.src(t, *pred) != 0;
                self.sched[t].pc = next;
                self.touched = true;
                self.threads[t].red_dst = Some(*d);
                return self.bar_arrive(t, id, count, true, Some((*op, p)));
            }
            Exec::MBar {
                op,
                space,
                addr,
                d,
                a,
            } => {
                let (sp, at) = self.resolve(t, *space, *addr);
                let (op, d, av) = (*op, *d, self.src(t, *a));
                let n32 = av & 0xffff_ffff;
                self.mbar_update(t, sp, at, mem, |vm, w| {
                    Ok(match op {
                        MBarOp::Init => Some(MBar::init(n32)?),
                        MBarOp::Inval => Some(0),
                        MBarOp::Arrive { drop, no_complete } => {
                            let (nw, st) = MBar::arrive(w, n32, drop, no_complete)?;
                            vm.write(t, d, st);
                            Some(nw)
                        }
                        MBarOp::ArriveTx { drop } => {
                            let (nw, st) = MBar::arrive(MBar::tx(w, n32 as i64)?, 1, drop, false)?;
                            vm.write(t, d, st);
                            Some(nw)
                        }
                        MBarOp::ExpectTx => Some(MBar::tx(w, n32 as i64)?),
                        MBarOp::CompleteTx => Some(MBar::tx(w, -(n32 as i64))?),
                        MBarOp::Wait { parity } => {
                            let done = if parity {
                                MBar::parity_done(w, av)
                            } else {
                                MBar::phase_done(w, av)
                            };
                            vm.write(t, d, done as u64);
                            None
                        }
                        MBarOp::CpAsyncArrive { noinc: true } => {
                            Some(MBar::arrive(w, 1, false, false)?.0)
                        }
                        MBarOp::CpAsyncArrive { noinc: false } => None,
                    })
                })?;
            }
            Exec::TryCancel {
                addr,
                mbar,
                generic,
                multicast,
            } => {
                self.try_cancel(t, *addr, *mbar, *generic, *multicast, mem)?;
            }
            Exec::QueryCancel { query, ds, lo, hi } => {
                let (lo, hi) = (self.reg(t, *lo), self.reg(t, *hi));
                let coord = |c: u8| match c {
                    0 => lo >> 32,
                    1 => hi & 0xffff_ffff,
                    _ => hi >> 32,
                };
                match query {
                    CancelQuery::IsCanceled => {
                        if let Some(d) = ds.first() {
                            self.write(t, *d, lo & 1);
                        }
                    }
                    CancelQuery::FirstCtaidDim(c) => {
                        if let Some(d) = ds.first() {
                            self.write(t, *d, coord(*c));
                        }
                    }
                    CancelQuery::FirstCtaid => {
                        for (k, d) in ds.iter().enumerate() {
                            let v = if k < 3 { coord(k as u8) } else { 0 };
                            self.write(t, *d, v);
                        }
                    }
                }
            }
            Exec::MBarPending { d, state } => {
                let v = MBar::pending_of(self.src(t, *state));
                self.write(t, *d, v);
            }
            Exec::ClusterBar { wait } => {
                let arrived = self.threads[t].cluster_arrived;
                if !*wait {
                    if arrived {
                        return Err(self.fault(
                            t,
                            FaultKind::Barrier,
                            "barrier.cluster.arrive twice without a barrier.cluster.wait in between",
                        ));
                    }
                    self.sched[t].pc = next;
                    self.touched = true;
                    self.threads[t].cluster_arrived = true;
                    return self.bar_join(t, CLUSTER_BAR, None, false, None);
                }
                if !arrived {
                    return Err(self.fault(
                        t,
                        FaultKind::Barrier,
                        "barrier.cluster.wait without a preceding barrier.cluster.arrive",
                    ));
                }
                self.sched[t].pc = next;
                self.threads[t].cluster_arrived = false;
                // Still marked as arrived: the phase has not completed yet, so wait for it.
                let (w, lane) = (t / 32, self.threads[t].lane);
                if self.bar_lanes[CLUSTER_BAR]
                    .get(w)
                    .is_some_and(|m| m >> lane & 1 != 0)
                {
                    self.sched[t].state = TState::Barrier(CLUSTER_BAR as u8);
                    self.check_barrier(CLUSTER_BAR);
                }
                return Ok(());
            }
            other => return Err(self.misrouted(t, other)),
        }
        self.sched[t].pc = next;
        Ok(())
    }

    /// `complete_tx` of `bytes` on the mbarrier at (`space`, `addr`): what every asynchronous
    /// copy, `st.async` and `red.async` does when its bytes have landed.
    pub(in crate::exec) fn complete_tx(
        &mut self,
        t: usize,
        space: MemSpace,
        addr: u64,
        bytes: u64,
        mem: &AddressSpace,
    ) -> Result<(), Box<Fault>> {
        let n = i64::try_from(bytes).unwrap_or(i64::MAX);
        self.mbar_update(t, space, addr, mem, |_, w| MBar::tx(w, -n).map(Some))
    }

    /// Reads the 8-byte mbarrier object at `addr` in `space`, applies `f` (the new word, or
    /// `None` to leave it) and writes it back; `f`'s errors are [`FaultKind::Barrier`] faults.
    pub(in crate::exec) fn mbar_update(
        &mut self,
        t: usize,
        space: MemSpace,
        addr: u64,
        mem: &AddressSpace,
        f: impl FnOnce(&mut Self, u64) -> Result<Option<u64>, String>,
    ) -> Result<(), Box<Fault>> {
        if !addr.is_multiple_of(8) {
            return Err(self.fault(
                t,
                FaultKind::Misaligned,
                format!("mbarrier object at {addr:#x} is not 8-byte aligned"),
            ));
        }
        let mut buf = [0u8; 8];
        self.load(t, space, addr, &mut buf, mem)?;
        match f(self, u64::from_le_bytes(buf)) {
            Ok(Some(nw)) => self.store(t, space, addr, &nw.to_le_bytes(), mem),
            Ok(None) => Ok(()),
            Err(msg) => Err(self.fault(t, FaultKind::Barrier, msg)),
        }
    }

    /// Threads that have arrived at barrier `id` in its current phase.
    pub(in crate::exec) fn bar_arrived(&self, id: usize) -> u32 {
        self.bar_count[id]
    }

    /// A thread arrives at barrier `id` (`wait`: `.sync`/`.red`; `red`: the reduction and
    /// this thread's predicate).
    pub(in crate::exec) fn bar_arrive(
        &mut self,
        t: usize,
        id: u64,
        count: Option<u64>,
        wait: bool,
        red: Option<(BarRedOp, bool)>,
    ) -> Result<(), Box<Fault>> {
        if id > 15 {
            return Err(self.fault(
                t,
                FaultKind::Deadlock,
                format!("barrier id {id} is out of range 0..15"),
            ));
        }
        self.bar_join(t, id as usize, count, wait, red)
    }

    /// Arrival at barrier slot `id` (a named barrier, or [`CLUSTER_BAR`]).
    pub(in crate::exec) fn bar_join(
        &mut self,
        t: usize,
        id: usize,
        count: Option<u64>,
        wait: bool,
        red: Option<(BarRedOp, bool)>,
    ) -> Result<(), Box<Fault>> {
        if let Some(c) = count
            && (c == 0 || c % 32 != 0 || c > self.nwarps as u64 * 32)
        {
            return Err(self.fault(
                    t,
                    FaultKind::Deadlock,
                    format!(
                        "barrier {id}: thread count {c} must be a non-zero multiple of the warp size (32) and at most the CTA's {} warps × 32",
                        self.nwarps
                    ),
                ));
        }
        let (w, lane) = (t / 32, self.threads[t].lane);
        let arrived = self.bar_mark(id, w, 1 << lane, count.map(|c| c as u32));
        if let Some((op, p)) = red {
            let r = &mut self.bar_red[id];
            r.op = Some(op);
            r.popc += p as u32;
            r.all &= p;
            r.any |= p;
        }
        if wait {
            self.sched[t].state = TState::Barrier(id as u8);
        }
        // Only an arrival that completes its warp's arrival can complete the barrier (exits
        // are rechecked by `recheck_blocked`); checking on every thread made a 1024-thread
        // `bar.sync` cost O(threads^2).
        let live = self.live_lanes(w);
        if arrived != 0 && arrived & live == live {
            self.check_barrier(id);
        }
        Ok(())
    }

    /// Lanes `lanes` of warp `w` arrive at barrier `id`; the first arrival of a phase opens
    /// it with its expected thread `count`. Returns the warp's lanes arrived so far.
    pub(in crate::exec) fn bar_mark(
        &mut self,
        id: usize,
        w: usize,
        lanes: u32,
        count: Option<u32>,
    ) -> u32 {
        if self.bar_count[id] == 0 {
            self.bar_expected[id] = count;
            self.bar_red[id] = BarRedState {
                op: None,
                popc: 0,
                all: true,
                any: false,
            };
        }
        let Some(m) = self.bar_lanes[id].get_mut(w) else {
            return 0;
        };
        self.bar_count[id] += (lanes & !*m).count_ones();
        *m |= lanes;
        *m
    }

    /// Completes barrier `id` if enough warps have arrived: a warp has arrived when all of
    /// its non-exited threads have (§9.7.13.1); the count is in threads, a multiple of the
    /// warp size, so `count / 32` arrived warps complete it; without a count every warp
    /// with a non-exited thread must arrive.
    pub(in crate::exec) fn check_barrier(&mut self, id: usize) -> bool {
        if self.bar_arrived(id) == 0 {
            return false;
        }
        // A multi-CTA cluster's barrier completes when every CTA has arrived: the cluster's
        // scheduler checks that (`cluster::ClusterRun`).
        if id == CLUSTER_BAR && self.in_cluster() {
            return false;
        }
        let mut warps_arrived = 0u32;
        let mut live_warps = 0u32;
        let mut all_live_arrived = true;
        for w in 0..self.nwarps as usize {
            let live = self.live_lanes(w);
            let lanes = self.bar_lanes[id].get(w).copied().unwrap_or(0);
            if live != 0 {
                live_warps += 1;
            }
            if lanes != 0 && lanes & live == live {
                warps_arrived += 1;
            } else if live != 0 {
                all_live_arrived = false;
                if self.bar_expected[id].is_none() {
                    // Without a count, one warp that has not arrived is enough to know.
                    return false;
                }
            }
        }
        let done = match self.bar_expected[id] {
            Some(c) => warps_arrived * 32 >= c,
            None => all_live_arrived && live_warps > 0,
        };
        if !done {
            return false;
        }
        self.release_barrier(id);
        true
    }

    /// Completes the current phase of barrier `id`: its waiting threads run again (with
    /// their `bar.red` results).
    pub(in crate::exec) fn release_barrier(&mut self, id: usize) {
        self.woken.clear();
        // Parked warps (`Cta::bar_whole`): their threads' states are still `Ready`; only
        // their PCs are written, past the barrier.
        let mut parked = 0u64;
        for (w, rec) in self.bar_whole.iter_mut().enumerate() {
            if let Some((rid, pc, spins)) = *rec
                && rid as usize == id
            {
                self.woken.push((w as u32, pc, spins));
                *rec = None;
                let live = self.live.get(w).copied().unwrap_or(0);
                fast::each_sched(&mut self.sched, w, live, |sc| sc.pc = pc);
                parked |= 1u64.checked_shl(w as u32).unwrap_or(0);
            }
        }
        let r = self.bar_red[id];
        let mut results = Vec::new();
        // The threads waiting at the barrier are among those that arrived in this phase.
        for (w, &arrived) in self.bar_lanes[id].iter().enumerate() {
            if parked.checked_shr(w as u32).unwrap_or(0) & 1 == 1 {
                continue;
            }
            if r.op.is_none() {
                // No `bar.red` in this phase: only the states change (a whole warp as one
                // slice).
                fast::each_sched(&mut self.sched, w, arrived, |sc| {
                    if sc.state == TState::Barrier(id as u8) {
                        sc.state = TState::Ready;
                    }
                });
                continue;
            }
            for l in fast::lanes(arrived) {
                let t = w * 32 + l;
                let Some(sc) = self.sched.get_mut(t) else {
                    continue;
                };
                if sc.state != TState::Barrier(id as u8) {
                    continue;
                }
                sc.state = TState::Ready;
                // Only a `bar.red` sets a thread's `red_dst`, and it sets the phase's `op`:
                // without one, no thread record needs reading.
                let Some(op) = r.op else {
                    continue;
                };
                if let Some(d) = self.threads.get_mut(t).and_then(|th| th.red_dst.take()) {
                    let v = match op {
                        BarRedOp::Popc => r.popc as u64,
                        BarRedOp::And => r.all as u64,
                        BarRedOp::Or => r.any as u64,
                    };
                    results.push((t, d, v));
                }
            }
        }
        for (t, d, v) in results {
            self.write(t, d, v);
        }
        for m in &mut self.bar_lanes[id] {
            *m = 0;
        }
        self.bar_count[id] = 0;
        self.bar_expected[id] = None;
    }
}
