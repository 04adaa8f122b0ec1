//! Thread-block clusters (sm_90): the unit a host thread schedules, the cluster special
//! registers, distributed shared memory and the cluster barrier.
//!
//! A launch's grid is divided into clusters of `Launch::cluster` CTAs (1×1×1 unless the
//! kernel or the launch gives a shape). A host thread takes a whole cluster
//! ([`ClusterRun`]) and time-slices its CTAs, so they are in flight together and can wait
//! on each other (the cluster barrier, mbarriers, flags in each other's shared memory). Each
//! CTA's shared memory lives until the whole cluster has finished: a CTA that exits early
//! keeps it readable and writable by the others (the hardware guarantees that only to a
//! program that synchronises before exiting; ptxvm chooses to keep it for every program).
//!
//! Distributed shared memory: the shared::cluster window (see
//! [`crate::memory::CLUSTER_SHARED_STRIDE`]) holds the executing CTA's own shared memory at
//! `[0, STRIDE)` and the shared memory of the CTA of rank `r` at `(r + 1) * STRIDE`. While a
//! CTA runs a slice, the other CTAs' shared memory is lent to it (`Cta::peers`), so a
//! remote access is the same checked slice access as a local one. The CTA's peer (rank
//! `rank ^ 1`, `tcgen05 .cta_group::2`) lends it its Tensor Memory the same way. The warp engine's and the
//! JIT's shared-memory fast paths cover the CTA's own memory only (`[0, len)`); every
//! cluster address falls back to the reference's `load`/`store`.

use crate::exec::*;
use crate::memory::CLUSTER_SHARED_STRIDE;

/// How a cluster's turn ([`ClusterRun::turn`]) ended.
pub(super) enum Turn {
    Done,
    Long,
    Waiting,
}

/// The CTAs of one cluster, in rank order, while a host thread runs them.
pub(super) struct ClusterRun<'a> {
    members: Vec<Member<'a>>,
}

struct Member<'a> {
    /// The CTA's index in launch order (x fastest): the order of faults and printf output.
    i: usize,
    cta: Cta<'a>,
    st: Stats,
    done: bool,
}

/// The grid coordinates of the first CTA (rank 0) of cluster `c` (clusters in launch order,
/// x fastest).
fn cluster_origin(launch: &Launch, c: usize) -> [u32; 3] {
    let cl = launch.cluster.map(|x| x.max(1));
    let ncl = [0, 1, 2].map(|d| (launch.grid[d] / cl[d]).max(1) as usize);
    let cid = [c % ncl[0], (c / ncl[0]) % ncl[1], c / (ncl[0] * ncl[1])];
    [0, 1, 2].map(|d| cid[d] as u32 * cl[d])
}

impl Grid {
    /// Takes the next cluster of the launch that has not started (to start it, or to cancel
    /// it); `None` when every cluster has been taken.
    pub(super) fn take_cluster(&self) -> Option<usize> {
        self.take_clusters(1).map(|r| r.start)
    }

    /// Takes up to `k` consecutive clusters that have not started (at least one), for a host
    /// thread to start in order.
    pub(super) fn take_clusters(&self, k: usize) -> Option<std::ops::Range<usize>> {
        self.next_cluster
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| {
                (c < self.nclusters).then_some(c.saturating_add(k.max(1)).min(self.nclusters))
            })
            .ok()
            .map(|c| c..c.saturating_add(k.max(1)).min(self.nclusters))
    }
}

/// The product of a shape's dimensions.
fn volume(d: [u32; 3]) -> u32 {
    d.iter().fold(1u32, |a, &x| a.saturating_mul(x.max(1)))
}

impl<'a> ClusterRun<'a> {
    /// The CTAs of cluster `c` (clusters in launch order, x fastest), or `None` when they
    /// do not all fit in the launch's memory budget now (the CTAs made so far go to `spare`).
    pub(super) fn new(
        prog: &'a Program,
        launch: &'a Launch,
        grid: &'a Grid,
        mem: &'a AddressSpace,
        c: usize,
        spare: &mut Vec<Cta<'a>>,
    ) -> Option<ClusterRun<'a>> {
        let cl = launch.cluster.map(|x| x.max(1));
        let n = volume(cl);
        let origin = cluster_origin(launch, c);
        let mut members: Vec<Member<'a>> = Vec::with_capacity(n as usize);
        for r in 0..n {
            let local = [r % cl[0], (r / cl[0]) % cl[1], r / (cl[0] * cl[1])];
            let ctaid: [u32; 3] = [0, 1, 2].map(|d| origin[d] + local[d]);
            let i = ctaid[0] as usize
                + launch.grid[0] as usize
                    * (ctaid[1] as usize + launch.grid[1] as usize * ctaid[2] as usize);
            let Some(mut cta) = Cta::new(prog, launch, grid, mem, ctaid, spare) else {
                for m in members {
                    spare.push(m.cta);
                }
                // Every spare gives its charge back: what this host thread holds may be what
                // another one needs to start its cluster.
                for s in spare.iter_mut() {
                    s.credit(s.charged);
                }
                return None;
            };
            cta.rank = r;
            cta.peers.clear();
            if n > 1 {
                cta.peers.resize_with(n as usize, Vec::new);
            }
            members.push(Member {
                i,
                cta,
                st: Stats::default(),
                done: false,
            });
        }
        Some(ClusterRun { members })
    }

    /// Runs a slice of every CTA of the cluster that has not finished:
    /// [`Turn::Done`] when all have finished, [`Turn::Long`] when one of them used its whole
    /// slice (the host thread may then start another cluster), [`Turn::Waiting`] when they
    /// only waited for each other. A fault is returned with its CTA's launch index; when every
    /// CTA is blocked at the cluster barrier and it cannot complete, the fault is a deadlock
    /// report of every CTA's state.
    pub(super) fn turn(
        &mut self,
        mem: &AddressSpace,
        budget: &mut Budget,
    ) -> Result<Turn, (usize, Box<Fault>)> {
        let mut all_blocked = true;
        let mut long = false;
        for k in 0..self.members.len() {
            if self.members[k].done {
                continue;
            }
            self.lend(k);
            let m = &mut self.members[k];
            let r = m.cta.run(mem, &mut m.st, budget, SLICE);
            let i = m.i;
            self.take_back(k);
            match r {
                Ok(Ran::Done) => {
                    self.members[k].done = true;
                    all_blocked = false;
                }
                Ok(Ran::Sliced) => {
                    all_blocked = false;
                    long = true;
                }
                Ok(Ran::Blocked) => {}
                Err(mut f) => {
                    // A CTA of a multi-CTA cluster that deadlocks on its own: say what the
                    // other CTAs of the cluster are doing too.
                    if f.kind == FaultKind::Deadlock && self.members.len() > 1 {
                        f.message.push_str("; the cluster's CTAs: ");
                        f.message.push_str(&self.states().join("; "));
                    }
                    return Err((i, f));
                }
            }
            if self.release_cluster_barrier() {
                all_blocked = false;
            }
        }
        if self.members.iter().all(|m| m.done) {
            return Ok(Turn::Done);
        }
        if all_blocked {
            return Err(self.deadlock());
        }
        Ok(if long { Turn::Long } else { Turn::Waiting })
    }

    /// Lends CTA `k` the shared memory of the cluster's other CTAs, and the Tensor Memory of
    /// its peer CTA (rank `k ^ 1`, `tcgen05 .cta_group::2`).
    fn lend(&mut self, k: usize) {
        if self.members.len() < 2 {
            return;
        }
        let mut peers = std::mem::take(&mut self.members[k].cta.peers);
        for (j, m) in self.members.iter_mut().enumerate() {
            if j != k
                && let Some(p) = peers.get_mut(j)
            {
                *p = std::mem::take(&mut m.cta.shared);
            }
        }
        self.members[k].cta.peers = peers;
        if let Some(m) = self.members.get_mut(k ^ 1) {
            let t = m.cta.tmem.take();
            self.members[k].cta.peer_tmem = t;
        }
    }

    /// Gives the lent shared memory back to its CTAs.
    fn take_back(&mut self, k: usize) {
        if self.members.len() < 2 {
            return;
        }
        let mut peers = std::mem::take(&mut self.members[k].cta.peers);
        for (j, m) in self.members.iter_mut().enumerate() {
            if j != k
                && let Some(p) = peers.get_mut(j)
            {
                m.cta.shared = std::mem::take(p);
            }
        }
        self.members[k].cta.peers = peers;
        let t = self.members[k].cta.peer_tmem.take();
        if let Some(m) = self.members.get_mut(k ^ 1) {
            m.cta.tmem = t;
        }
    }

    /// Completes the cluster barrier when every non-exited thread of every CTA of the
    /// cluster has arrived (§9.7.13.1: `barrier.cluster.wait` waits for all non-exited
    /// threads of the cluster). Returns whether it completed.
    fn release_cluster_barrier(&mut self) -> bool {
        if self.members.len() < 2
            || self
                .members
                .iter()
                .all(|m| m.cta.bar_count[CLUSTER_BAR] == 0)
            || !self.members.iter().all(|m| m.cta.cluster_arrived_all())
        {
            return false;
        }
        for m in &mut self.members {
            m.cta.release_barrier(CLUSTER_BAR);
            m.cta.sched_epoch += 1;
        }
        true
    }

    /// The deadlock of a cluster whose CTAs all wait for the cluster barrier, which can
    /// never complete: every CTA's state.
    fn deadlock(&self) -> (usize, Box<Fault>) {
        let first = self
            .members
            .iter()
            .find(|m| !m.done && m.cta.waits_for_cluster())
            .or(self.members.first());
        let Some(first) = first else {
            return (
                0,
                Box::new(Fault {
                    kind: FaultKind::Deadlock,
                    message: "deadlock in an empty cluster".into(),
                    site: Site::default(),
                }),
            );
        };
        let states = self.states();
        let cta = &first.cta;
        let t = (0..cta.threads.len())
            .find(|&t| cta.sched[t].state == TState::Barrier(CLUSTER_BAR as u8))
            .unwrap_or(0);
        let cl = cta.launch.cluster;
        let f = cta.fault(
            t,
            FaultKind::Deadlock,
            format!(
                "deadlock across a cluster of {} CTAs ({}x{}x{}): the cluster barrier (barrier.cluster) can never complete; {}",
                self.members.len(),
                cl[0],
                cl[1],
                cl[2],
                states.join("; ")
            ),
        );
        let i = self.members.iter().map(|m| m.i).min().unwrap_or(first.i);
        (i, f)
    }

    /// Every CTA's state, for a deadlock report: `rank R (CTA (x, y, z)): ...`.
    fn states(&self) -> Vec<String> {
        self.members
            .iter()
            .map(|m| {
                let c = m.cta.ctaid;
                let state = if m.done {
                    "all threads have exited".to_string()
                } else {
                    m.cta.state_text()
                };
                format!(
                    "rank {} (CTA ({}, {}, {})): {state}",
                    m.cta.rank, c[0], c[1], c[2]
                )
            })
            .collect()
    }

    /// Files every CTA's printf output and counters (in launch order, by index) and gives
    /// their memory to `spare`.
    pub(super) fn finish(self, grid: &Grid, spare: &mut Vec<Cta<'a>>, acc: &mut Stats) {
        let base = self
            .members
            .first()
            .map_or(0, |m| cta_base_memory(m.cta.prog, m.cta.launch));
        for mut m in self.members {
            grid.finish(m.i, &mut m.cta, &m.st, acc);
            if spare.len() < MAX_RESIDENT {
                // A spare keeps its base charge for the CTA that reuses it (dropped, it gives
                // it back).
                m.cta.credit(m.cta.charged.saturating_sub(base));
                spare.push(m.cta);
            } else {
                m.cta.credit(m.cta.charged);
            }
        }
    }

    /// Files what the CTAs printed so far (the launch stopped).
    pub(super) fn stop(&mut self, grid: &Grid, acc: &mut Stats) {
        for m in &mut self.members {
            grid.finish(m.i, &mut m.cta, &m.st, acc);
        }
    }
}

impl Cta<'_> {
    /// Whether this CTA is part of a cluster of more than one CTA.
    pub(in crate::exec) fn in_cluster(&self) -> bool {
        volume(self.launch.cluster) > 1
    }

    /// Whether a thread waits at the cluster barrier of a multi-CTA cluster (only the other
    /// CTAs can release it).
    pub(in crate::exec) fn waits_for_cluster(&self) -> bool {
        self.in_cluster()
            && self
                .sched
                .iter()
                .any(|t| t.state == TState::Barrier(CLUSTER_BAR as u8))
    }

    /// Whether every non-exited thread of this CTA has arrived at the cluster barrier in
    /// its current phase (true when all have exited).
    fn cluster_arrived_all(&self) -> bool {
        (0..self.nwarps as usize).all(|w| {
            let live = self.live_lanes(w);
            let lanes = self.bar_lanes[CLUSTER_BAR].get(w).copied().unwrap_or(0);
            lanes & live == live
        })
    }

    /// The value of a cluster special register (component `c`).
    pub(in crate::exec) fn cluster_sreg(&self, name: &str, c: usize) -> u64 {
        let cl = self.launch.cluster.map(|x| x.max(1));
        let (Some(&dim), Some(&id), Some(&g)) =
            (cl.get(c), self.ctaid.get(c), self.launch.grid.get(c))
        else {
            return 0;
        };
        (match name {
            "%cluster_ctaid" => id % dim,
            "%cluster_nctaid" => dim,
            "%cluster_ctarank" => self.rank,
            "%cluster_nctarank" => volume(cl),
            "%clusterid" => id / dim,
            "%nclusterid" => g / dim,
            "%is_explicit_cluster" => self.launch.explicit_cluster as u32,
            _ => 0,
        }) as u64
    }

    /// The cluster rank and offset of a shared::cluster address (a shared::cta address is
    /// the executing CTA's).
    pub(in crate::exec) fn cluster_split(&self, addr: u64) -> Result<(u32, u64), AccessError> {
        if addr < CLUSTER_SHARED_STRIDE {
            return Ok((self.rank, addr));
        }
        let n = volume(self.launch.cluster) as u64;
        let slot = addr / CLUSTER_SHARED_STRIDE;
        if slot > n {
            return Err(AccessError::OutOfBounds(format!(
                "shared::cluster address {addr:#x} is outside the cluster's shared memory window (CTA ranks 0..{}, {CLUSTER_SHARED_STRIDE:#x} bytes each from {CLUSTER_SHARED_STRIDE:#x})",
                n - 1
            )));
        }
        Ok(((slot - 1) as u32, addr % CLUSTER_SHARED_STRIDE))
    }

    /// The shared::cluster address of byte `off` of the shared memory of CTA `rank`.
    pub(in crate::exec) fn cluster_addr(&self, rank: u32, off: u64) -> u64 {
        (rank as u64 + 1) * CLUSTER_SHARED_STRIDE + off
    }

    /// `clusterlaunchcontrol.try_cancel` of thread `t`: cancels the next cluster of the grid
    /// that no host thread has started (its CTAs never run) and writes the 16-byte response
    /// at `addr` — ptxvm's encoding: bit 0 of the first word is set when a cluster was
    /// cancelled, then the first CTA's `%ctaid.x`, `.y` and `.z` as 32-bit words — and
    /// completes 16 bytes on the mbarrier at `mbar`; with `multicast`, in every CTA of the
    /// cluster at the same CTA-relative offsets. Both addresses must be in the CTA's own
    /// shared memory (shared::cta), the response 16-byte aligned.
    pub(in crate::exec) fn try_cancel(
        &mut self,
        t: usize,
        addr: Addr,
        mbar: Addr,
        generic: bool,
        multicast: bool,
        mem: &AddressSpace,
    ) -> Result<(), Box<Fault>> {
        let space = if generic {
            MemSpace::Generic
        } else {
            MemSpace::Shared
        };
        let mut offs = [0u64; 2];
        for (k, a) in [addr, mbar].into_iter().enumerate() {
            let (sp, at) = self.resolve(t, space, a);
            let own = match sp {
                MemSpace::Shared => self.cluster_split(at).ok().filter(|&(r, _)| r == self.rank),
                _ => None,
            };
            let Some((_, off)) = own else {
                return Err(self.fault(
                    t,
                    FaultKind::OutOfBounds,
                    format!(
                        "clusterlaunchcontrol.try_cancel: {at:#x} ({} memory) is not in the CTA's own shared memory (shared::cta)",
                        space_name(sp)
                    ),
                ));
            };
            offs[k] = off;
        }
        if !offs[0].is_multiple_of(16) {
            return Err(self.misaligned(t, MemSpace::Shared, offs[0], 16, "write", mem));
        }
        let mut resp = [0u8; 16];
        if let Some(c) = self.grid.take_cluster() {
            let first = cluster_origin(self.launch, c);
            resp[..4].copy_from_slice(&1u32.to_le_bytes());
            for (k, v) in first.iter().enumerate() {
                resp[4 + 4 * k..8 + 4 * k].copy_from_slice(&v.to_le_bytes());
            }
        }
        let ranks = if multicast {
            0..self.cluster_ctas()
        } else {
            self.rank..self.rank + 1
        };
        for r in ranks {
            let (a, m) = (self.cluster_addr(r, offs[0]), self.cluster_addr(r, offs[1]));
            self.store(t, MemSpace::Shared, a, &resp, mem)?;
            self.complete_tx(t, MemSpace::Shared, m, 16, mem)?;
        }
        Ok(())
    }

    /// The number of CTAs in the cluster.
    pub(in crate::exec) fn cluster_ctas(&self) -> u32 {
        volume(self.launch.cluster)
    }

    /// The shared memory a shared (cta or cluster) address is in, the offset in it, and how
    /// diagnostics name it.
    pub(in crate::exec) fn shared_at(
        &self,
        addr: u64,
    ) -> Result<(&[u8], u64, String), AccessError> {
        let (r, off) = self.cluster_split(addr)?;
        if r == self.rank {
            return Ok((&self.shared, off, "shared memory".into()));
        }
        match self.peers.get(r as usize) {
            Some(p) => Ok((p, off, format!("the shared memory of cluster CTA rank {r}"))),
            None => Err(AccessError::OutOfBounds(format!(
                "shared::cluster address {addr:#x} names CTA rank {r}, which is not in the cluster"
            ))),
        }
    }

    /// [`Cta::shared_at`] for a write.
    pub(in crate::exec) fn shared_at_mut(
        &mut self,
        addr: u64,
    ) -> Result<(&mut [u8], u64, String), AccessError> {
        let (r, off) = self.cluster_split(addr)?;
        if r == self.rank {
            return Ok((&mut self.shared, off, "shared memory".into()));
        }
        match self.peers.get_mut(r as usize) {
            Some(p) => Ok((p, off, format!("the shared memory of cluster CTA rank {r}"))),
            None => Err(AccessError::OutOfBounds(format!(
                "shared::cluster address {addr:#x} names CTA rank {r}, which is not in the cluster"
            ))),
        }
    }

    /// What this CTA's threads are doing, for a cluster's deadlock report: how many wait at
    /// each barrier (with its line), at warp syncs, have exited or could run.
    fn state_text(&self) -> String {
        let mut waits: BTreeMap<(u8, u32), u32> = BTreeMap::new();
        let (mut exited, mut sync, mut ready) = (0, 0, 0);
        for (i, th) in self.threads.iter().enumerate() {
            let sc = self.sched_at(i);
            match sc.state {
                TState::Barrier(id) => {
                    let func = th.frames.last().map_or(0, |f| f.func);
                    let line = self
                        .prog
                        .funcs
                        .get(func as usize)
                        .and_then(|f| f.code.get(sc.pc.saturating_sub(1) as usize))
                        .map_or(0, |i| i.line);
                    *waits.entry((id, line)).or_default() += 1;
                }
                TState::Exited => exited += 1,
                TState::WarpSync => sync += 1,
                TState::Ready => ready += 1,
            }
        }
        let mut parts: Vec<String> = waits
            .iter()
            .map(|(&(id, line), n)| format!("{n} threads wait at {} (line {line})", bar_name(id)))
            .collect();
        if sync > 0 {
            parts.push(format!("{sync} wait at a `.sync` warp instruction"));
        }
        if ready > 0 {
            parts.push(format!("{ready} can run"));
        }
        parts.push(format!(
            "{exited} of {} threads have exited",
            self.threads.len()
        ));
        parts.join(", ")
    }
}
