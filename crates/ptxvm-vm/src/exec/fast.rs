//! The warp engine (`--engine interp`): the reference machine model, one dispatch per warp
//! instruction instead of one per thread.
//!
//! It runs on the reference interpreter's CTA state — the same threads, barriers, budget and
//! faults — and differs only in how a step of a group at call depth 1 (the kernel's own
//! code) is carried out:
//!
//! - **Scheduling.** [`Cta::select`] picks the group exactly as the reference does. While the
//!   group then runs straight-line code (no thread leaves it, none joins it, none starts
//!   spinning) it stays the group `select` would pick, so the engine keeps it without
//!   rescanning the warp, and keeps its PC in the group rather than in each thread until
//!   something needs the threads' own (a reference step, a fault, the end of the quantum).
//! - **Registers.** Both engines keep the kernel frame's registers lane-major
//!   ([`super::WarpRegs`]); here an instruction reads whole registers, computes all 32 lanes
//!   in a loop over the shared semantics functions of [`crate::ops::alu`] (inlined with the
//!   instruction's constant modifiers, so the loops vectorise) and blends the active lanes
//!   back. Predicates are lane masks, so a guard is one AND.
//! - **Memory.** Global accesses check each lane against the allocations the CTA looked up
//!   last (under the address space's epoch) and touch the bytes with no lock; anything else
//!   (a miss, a misaligned address, local or parameter memory) goes through the reference's
//!   own access function for that lane, faults included.
//! - **Everything else** (control flow other than branches, barriers, warp collectives,
//!   calls, builtins) is a reference step of the group, and instructions without a lane loop
//!   here run the reference's per-thread semantics lane by lane. Either way the result is
//!   the reference's, by construction; the tests run every case on both engines.
//!
//! The loop is compiled twice, for the baseline CPU and with AVX2+FMA, and picks one at run
//! time.

use super::isa::warp::shfl_lane;
use super::*;
use crate::memory::Span;
use ptxvm_fp::Rnd;

pub(super) type L32 = [u32; 32];
pub(super) type L64 = [u64; 32];

/// Lanes computed for sources that are not registers of the right width.
pub(super) struct Tmp {
    a32: L32,
    b32: L32,
    c32: L32,
    a64: L64,
    b64: L64,
    c64: L64,
}

impl Tmp {
    const ZERO: Tmp = Tmp {
        a32: [0; 32],
        b32: [0; 32],
        c32: [0; 32],
        a64: [0; 32],
        b64: [0; 32],
        c64: [0; 32],
    };
}

/// The spin counts of a cached group's threads: each thread's own count (at most `max`)
/// plus `taken` backward branches, or just `taken` once a forward branch zeroed them all.
#[derive(Debug, Clone, Copy)]
pub(super) struct Spin {
    pub(super) max: u32,
    pub(super) taken: u32,
    pub(super) zeroed: bool,
}

impl Spin {
    /// No spinning (a placeholder where no group is held).
    pub(super) const NONE: Spin = Spin {
        max: 0,
        taken: 0,
        zeroed: false,
    };

    /// The largest count of any thread of the group.
    pub(super) fn highest(&self) -> u32 {
        if self.zeroed {
            self.taken
        } else {
            self.max.saturating_add(self.taken)
        }
    }
}

/// How a fast step left the group.
enum Done {
    /// Every lane of the group is at this PC (not yet stored in the threads); the group
    /// remains the one `select` would pick if the PC is below the others'.
    Uniform(u32),
    /// Every lane is at this PC, but the group must be selected again (a lane started
    /// spinning).
    Reselect(u32),
    /// The threads' PCs were written (a divergent branch, per-lane execution): select again.
    Written,
    /// Every lane of the warp that has not exited waits at a barrier (their PCs are
    /// written): the warp has nothing to run until the barrier completes, so its turn ends
    /// without looking for another group.
    Blocked,
}

/// Allocations a CTA has looked up, valid while the address space's epoch is `epoch`.
pub(super) struct SpanCache {
    epoch: u64,
    spans: [Span; 4],
    next: usize,
}

const NO_SPAN: Span = Span {
    lo: 1,
    hi: 0,
    writable: false,
};

impl Default for SpanCache {
    fn default() -> Self {
        SpanCache {
            epoch: u64::MAX,
            spans: [NO_SPAN; 4],
            next: 0,
        }
    }
}

impl SpanCache {
    /// Forgets every span when the map changed since they were looked up.
    #[inline(always)]
    fn validate(&mut self, mem: &AddressSpace) {
        let e = mem.epoch();
        if e != self.epoch {
            self.epoch = e;
            self.spans = [NO_SPAN; 4];
        }
    }

    /// The span holding `[a, a+n)`, looked up when none of the cached ones does.
    #[inline(always)]
    fn find(&mut self, mem: &AddressSpace, a: u64, n: u64) -> Option<Span> {
        for s in &self.spans {
            if s.holds(a, n) {
                return Some(*s);
            }
        }
        self.miss(mem, a, n)
    }

    #[inline(never)]
    fn miss(&mut self, mem: &AddressSpace, a: u64, n: u64) -> Option<Span> {
        let s = mem.span(a)?;
        if !s.holds(a, n) {
            return None;
        }
        self.spans[self.next] = s;
        self.next = (self.next + 1) % self.spans.len();
        Some(s)
    }
}

/// Stores group `mask`'s spin state in its threads of warp `w`.
#[inline(always)]
pub(super) fn apply_spins(sched: &mut [Sched], w: usize, mask: u32, spin: &Spin) {
    if spin.taken == 0 && !spin.zeroed {
        return;
    }
    each_sched(sched, w, mask, |th| {
        th.spins = if spin.zeroed {
            spin.taken
        } else {
            th.spins.saturating_add(spin.taken)
        };
    });
}

/// A divergent `bra` of group `mask` of warp `w` (with spin state `spin`) that the lanes
/// of `taken` took, backward or not: the group's threads take their own spin counts, and
/// a jump adds one (backward) or starts afresh.
pub(super) fn diverge_spins(
    sched: &mut [Sched],
    w: usize,
    mask: u32,
    taken: u32,
    spin: &Spin,
    back: bool,
) {
    apply_spins(sched, w, mask, spin);
    each_sched(sched, w, taken, |th| {
        th.spins = if back { th.spins.saturating_add(1) } else { 0 };
    });
}

/// Runs `f` on the scheduling records of warp `w`'s lanes `mask` (a whole warp as one
/// contiguous slice, which the compiler unrolls; the lane loop's bit scan and bounds check
/// per lane cost as much as the stores).
#[inline(always)]
pub(super) fn each_sched(sched: &mut [Sched], w: usize, mask: u32, mut f: impl FnMut(&mut Sched)) {
    let lo = w * 32;
    if mask == u32::MAX
        && let Some(s) = sched.get_mut(lo..lo + 32)
    {
        s.iter_mut().for_each(f);
        return;
    }
    for l in lanes(mask) {
        if let Some(s) = sched.get_mut(lo + l) {
            f(s);
        }
    }
}

/// Lanes of `m`, lowest first.
#[inline(always)]
pub(super) fn lanes(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            l
        })
    })
}

#[inline(always)]
fn blend32(d: &mut L32, v: &L32, act: u32, keep: u32) {
    if act == u32::MAX {
        for l in 0..32 {
            d[l] = v[l] & keep;
        }
    } else {
        for l in 0..32 {
            let on = (act >> l) & 1 != 0;
            d[l] = if on { v[l] & keep } else { d[l] };
        }
    }
}

#[inline(always)]
fn blend64(d: &mut L64, v: &L64, act: u32, keep: u64) {
    if act == u32::MAX {
        for l in 0..32 {
            d[l] = v[l] & keep;
        }
    } else {
        for l in 0..32 {
            let on = (act >> l) & 1 != 0;
            d[l] = if on { v[l] & keep } else { d[l] };
        }
    }
}

/// `[f(0), …, f(31)]` in a plain loop, inlined into the caller: `std::array::from_fn` may be
/// compiled out of line, where the lane loops lose the caller's vector features (AVX2,
/// AVX-512: the warp engine's turn loop is compiled once per feature set).
#[inline(always)]
fn per_lane<T: Copy + Default>(f: impl Fn(usize) -> T) -> [T; 32] {
    let mut r = [T::default(); 32];
    for (l, x) in r.iter_mut().enumerate() {
        *x = f(l);
    }
    r
}

#[inline(always)]
fn map1_32(a: &L32, f: impl Fn(u32) -> u32) -> L32 {
    let mut r = [0u32; 32];
    for l in 0..32 {
        r[l] = f(a[l]);
    }
    r
}

#[inline(always)]
fn map2_32(a: &L32, b: &L32, f: impl Fn(u32, u32) -> u32) -> L32 {
    let mut r = [0u32; 32];
    for l in 0..32 {
        r[l] = f(a[l], b[l]);
    }
    r
}

#[inline(always)]
fn map3_32(a: &L32, b: &L32, c: &L32, f: impl Fn(u32, u32, u32) -> u32) -> L32 {
    let mut r = [0u32; 32];
    for l in 0..32 {
        r[l] = f(a[l], b[l], c[l]);
    }
    r
}

#[inline(always)]
fn map2_64(a: &L64, b: &L64, f: impl Fn(u64, u64) -> u64) -> L64 {
    let mut r = [0u64; 32];
    for l in 0..32 {
        r[l] = f(a[l], b[l]);
    }
    r
}

#[inline(always)]
fn map3_64(a: &L64, b: &L64, c: &L64, f: impl Fn(u64, u64, u64) -> u64) -> L64 {
    let mut r = [0u64; 32];
    for l in 0..32 {
        r[l] = f(a[l], b[l], c[l]);
    }
    r
}

/// Lane mask of a per-lane condition.
#[inline(always)]
fn bits_of(f: impl Fn(usize) -> bool) -> u32 {
    let mut m = 0u32;
    for l in 0..32 {
        m |= (f(l) as u32) << l;
    }
    m
}

/// True for types whose values fit the 32-bit lanes (and whose semantics functions see
/// only their low 32 bits).
#[inline(always)]
fn narrow(ty: Type) -> bool {
    ty.bits() <= 32
}

/// Budget steps native code may take per entry: more than a quantum, so blocks that run
/// past the quantum to the next yield point fit.
const JIT_ROOM: u64 = 4 * QUANTUM as u64;

impl Cta<'_> {
    /// Runs a round of the CTA with the warp engine: a turn of each warp in order
    /// ([`Self::quantum`]). Returns whether any instruction ran.
    pub(super) fn run_round_fast(
        &mut self,
        mem: &AddressSpace,
        stats: &mut Stats,
        budget: &mut Budget,
    ) -> Result<bool, Box<Fault>> {
        // The native code is moved out for the round, not cloned: an `Arc` clone per turn is a
        // write to a count every host thread shares, which made the JIT's 2-thread runs
        // bounce that cache line between the cores.
        let jit = self.jit.take();
        let code = jit.as_deref();
        // The lane scratch is the CTA's, moved out for the round (1 KB not zeroed per turn).
        let mut tmp = self.tmp.take().unwrap_or_else(|| Box::new(Tmp::ZERO));
        let t = &mut *tmp;
        let r = 'run: {
            #[cfg(target_arch = "x86_64")]
            match host_simd() {
                // SAFETY: the CPU has these features (checked at run time).
                Simd::Avx512 => {
                    break 'run unsafe { self.round_avx512(code, t, mem, stats, budget) };
                }
                Simd::Avx2 => {
                    break 'run unsafe { self.round_avx2(code, t, mem, stats, budget) };
                }
                Simd::Baseline => {}
            }
            self.round(code, t, mem, stats, budget)
        };
        self.jit = jit;
        self.tmp = Some(tmp);
        r
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(
        enable = "avx512f,avx512vl,avx512bw,avx512dq,avx512cd,avx2,fma,bmi1,bmi2,lzcnt,popcnt"
    )]
    unsafe fn round_avx512(
        &mut self,
        jit: Option<&super::jit::JitCode>,
        tmp: &mut Tmp,
        mem: &AddressSpace,
        stats: &mut Stats,
        budget: &mut Budget,
    ) -> Result<bool, Box<Fault>> {
        self.round(jit, tmp, mem, stats, budget)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
    unsafe fn round_avx2(
        &mut self,
        jit: Option<&super::jit::JitCode>,
        tmp: &mut Tmp,
        mem: &AddressSpace,
        stats: &mut Stats,
        budget: &mut Budget,
    ) -> Result<bool, Box<Fault>> {
        self.round(jit, tmp, mem, stats, budget)
    }

    /// A turn of each warp, in order; the first fault ends the round.
    #[inline(always)]
    fn round(
        &mut self,
        jit: Option<&super::jit::JitCode>,
        tmp: &mut Tmp,
        mem: &AddressSpace,
        stats: &mut Stats,
        budget: &mut Budget,
    ) -> Result<bool, Box<Fault>> {
        let mut progressed = false;
        for w in 0..self.nwarps {
            progressed |= self.quantum(w, jit, tmp, mem, stats, budget)?;
        }
        Ok(progressed)
    }

    /// A turn of warp `w`: [`QUANTUM`] instructions, then on to the next yield point.
    /// Returns whether any ran.
    #[inline(always)]
    fn quantum(
        &mut self,
        w: u32,
        jit: Option<&super::jit::JitCode>,
        tmp: &mut Tmp,
        mem: &AddressSpace,
        stats: &mut Stats,
        budget: &mut Budget,
    ) -> Result<bool, Box<Fault>> {
        if self.bar_whole[w as usize].is_some() {
            // Parked at a barrier: nothing of the warp can run until it completes.
            return Ok(false);
        }
        let mut n = 0u32;
        // The group being run, whose PC (and spin counts) are kept here rather than in its
        // threads while it stays the group `select` would pick (`held`). Plain locals, not
        // an `Option` of the pair: taking a 40-byte `Option` apart at every turn's top
        // loaded what had just been stored field by field, a stalled store-to-load forward
        // on every pass (a third of this loop's time on barrier-heavy kernels).
        // The group this warp ran last, kept since its last quantum when nothing outside it
        // may have changed the warp's threads (no reference step anywhere in the CTA).
        let (mut g, mut spin, mut held) = match self.wcache[w as usize].take() {
            Some((g, spin, epoch)) if epoch == self.sched_epoch => (g, spin, true),
            Some((g, spin, _)) => {
                self.set_pcs(w, g.mask, g.pc);
                self.apply_spins(w, g.mask, &spin);
                (g, spin, false)
            }
            None => (Group::NONE, Spin::NONE, false),
        };
        loop {
            if !held {
                match self.select(w) {
                    Some(s) => {
                        g = s;
                        spin = self.spin_of(w, g.mask);
                    }
                    None => break,
                }
            }
            held = false;
            if n >= QUANTUM && self.yields_at(&g) {
                held = true;
                break;
            }
            if g.depth == 1 {
                // Native code, where the kernel compiled from here.
                if let Some(code) = jit
                    && code.starts_at(g.pc)
                {
                    let room = budget.reserve(JIT_ROOM);
                    let quantum = QUANTUM.saturating_sub(n) as u64;
                    if room > 0
                        && let Some(x) = self.jit_run(
                            code, w, g.mask, g.pc, g.others, &mut spin, room, quantum, stats, mem,
                        )
                    {
                        budget.consume(x.ran);
                        n += x.ran as u32;
                        let (exit, pc) = (x.code, x.pc);
                        // The group the code left running (narrower after a divergence it
                        // took on itself, the other lanes waiting at the branch target).
                        g.mask = x.mask;
                        g.leader = w * 32 + x.mask.trailing_zeros();
                        g.others = x.others;
                        if exit == super::jit::EXIT_AT && pc < g.others {
                            g.pc = pc;
                            held = true;
                        } else {
                            self.set_pcs(w, g.mask, pc);
                            self.apply_spins(w, g.mask, &spin);
                        }
                        continue;
                    }
                }
                let r = self.fast_step(w, &g, &mut spin, tmp, mem, stats, budget);
                match r {
                    Ok(Some(done)) => {
                        n += 1;
                        match done {
                            Done::Uniform(pc) if pc < g.others => {
                                g.pc = pc;
                                held = true;
                            }
                            Done::Uniform(pc) | Done::Reselect(pc) => {
                                self.set_pcs(w, g.mask, pc);
                                self.apply_spins(w, g.mask, &spin);
                            }
                            Done::Written => {}
                            Done::Blocked => {
                                self.apply_spins(w, g.mask, &spin);
                                break;
                            }
                        }
                        continue;
                    }
                    Ok(None) => {}
                    Err(f) => return Err(f),
                }
            }
            // A reference step: the threads hold their PCs (the group's is still `g.pc`).
            self.set_pcs(w, g.mask, g.pc);
            self.apply_spins(w, g.mask, &spin);
            stats.tiers[2] += 1;
            self.step_group(w, g, mem, stats, budget)?;
            n += 1;
        }
        if held {
            self.wcache[w as usize] = Some((g, spin, self.sched_epoch));
        }
        Ok(n > 0)
    }

    /// Gives every warp of a CTA that has not run yet its first group, as [`Cta::select`]
    /// would pick it (all of the warp's threads at the kernel's first instruction, none
    /// spinning), so the warp engine starts each warp without scanning its threads.
    pub(super) fn fresh_groups(&mut self) {
        if self.launch.engine == super::Engine::Reference {
            return;
        }
        for w in 0..self.nwarps as usize {
            self.wcache[w] = Some((
                Group {
                    mask: self.live[w],
                    pc: 0,
                    func: self.launch.kernel,
                    depth: 1,
                    leader: 32 * w as u32,
                    others: u32::MAX,
                },
                Spin {
                    max: 0,
                    taken: 0,
                    zeroed: false,
                },
                self.sched_epoch,
            ));
        }
    }

    /// The spin state of a group just selected.
    #[inline(always)]
    fn spin_of(&self, w: u32, mask: u32) -> Spin {
        let lo = w as usize * 32;
        let max = lanes(mask)
            .map(|l| self.sched[lo + l].spins)
            .max()
            .unwrap_or(0);
        Spin {
            max,
            taken: 0,
            zeroed: false,
        }
    }

    /// Stores the group's spin counts in its threads (and starts counting afresh).
    #[inline(always)]
    fn apply_spins(&mut self, w: u32, mask: u32, spin: &Spin) {
        apply_spins(&mut self.sched, w as usize, mask, spin);
    }

    /// Stores the group's PC in its threads.
    #[inline(always)]
    pub(super) fn set_pcs(&mut self, w: u32, mask: u32, pc: u32) {
        each_sched(&mut self.sched, w as usize, mask, |s| s.pc = pc);
    }

    /// Slot of register `r` of the kernel.
    #[inline(always)]
    fn slot(&self, r: u32) -> Option<RegSlot> {
        self.kfunc.reg_slots.get(r as usize).copied()
    }

    /// Lanes whose predicate register `r` is true.
    #[inline(always)]
    fn pred_bits(&self, w: usize, r: u32) -> u32 {
        let wr = &self.wregs[w];
        match self.slot(r) {
            Some(RegSlot::Pred(i)) => wr.pred[i as usize],
            Some(RegSlot::B32(i)) => {
                let v = &wr.r32[i as usize];
                bits_of(|l| v[l] != 0)
            }
            Some(RegSlot::B64(i)) => {
                let v = &wr.r64[i as usize];
                bits_of(|l| v[l] != 0)
            }
            None => 0,
        }
    }

    /// A source's value in every lane of `mask` (others: unspecified), zero-extended: the
    /// register itself when it is a 64-bit one, else computed into `t`.
    #[inline(always)]
    fn fetch64<'s>(&'s self, w: usize, mask: u32, s: Src, t: &'s mut L64) -> &'s L64 {
        match s {
            Src::Reg(r) => {
                let wr = &self.wregs[w];
                match self.slot(r) {
                    Some(RegSlot::B64(i)) => return &wr.r64[i as usize],
                    Some(RegSlot::B32(i)) => {
                        let v = &wr.r32[i as usize];
                        for l in 0..32 {
                            t[l] = v[l] as u64;
                        }
                    }
                    Some(RegSlot::Pred(i)) => {
                        let b = wr.pred[i as usize];
                        for (l, x) in t.iter_mut().enumerate() {
                            *x = (b >> l & 1) as u64;
                        }
                    }
                    None => *t = [0; 32],
                }
            }
            Src::Imm(v) => *t = [v; 32],
            Src::Pred(r, neg) => {
                let b = self.pred_bits(w, r) ^ if neg { u32::MAX } else { 0 };
                for (l, x) in t.iter_mut().enumerate() {
                    *x = (b >> l & 1) as u64;
                }
            }
            _ => *t = self.fetch_each(w, mask, s),
        }
        t
    }

    /// A source's low 32 bits in every lane of `mask`: the register itself when it is a
    /// 32-bit one, else computed into `t`.
    #[inline(always)]
    fn fetch32<'s>(&'s self, w: usize, mask: u32, s: Src, t: &'s mut L32) -> &'s L32 {
        match s {
            Src::Reg(r) => {
                let wr = &self.wregs[w];
                match self.slot(r) {
                    Some(RegSlot::B32(i)) => return &wr.r32[i as usize],
                    Some(RegSlot::B64(i)) => {
                        let v = &wr.r64[i as usize];
                        for l in 0..32 {
                            t[l] = v[l] as u32;
                        }
                    }
                    Some(RegSlot::Pred(i)) => {
                        let b = wr.pred[i as usize];
                        for (l, x) in t.iter_mut().enumerate() {
                            *x = b >> l & 1;
                        }
                    }
                    None => *t = [0; 32],
                }
            }
            Src::Imm(v) => *t = [v as u32; 32],
            _ => {
                let v = self.fetch_each(w, mask, s);
                for l in 0..32 {
                    t[l] = v[l] as u32;
                }
            }
        }
        t
    }

    /// A source that is not a register: special registers and variable addresses, with
    /// the reference's `src` once for what is the same in every lane of the warp at call
    /// depth 1 (a variable's address, the launch's and the CTA's registers, the clocks), per
    /// lane otherwise.
    #[inline(never)]
    fn fetch_each(&self, w: usize, mask: u32, s: Src) -> L64 {
        let lo = w * 32;
        let first = lo + mask.trailing_zeros().min(31) as usize;
        let uniform = match s {
            Src::Var(..) => true,
            Src::SReg(id, comp) => {
                let name = ptxvm_ir::ir::SREGS.get(id as usize).map_or("", |s| s.0);
                if name == "%tid" {
                    let mut v = [0u64; 32];
                    for l in lanes(mask) {
                        let th = &self.threads[lo + l];
                        v[l] = th.tid.get(comp as usize).copied().unwrap_or(0) as u64;
                    }
                    return v;
                }
                matches!(
                    name,
                    "%ntid"
                        | "%ctaid"
                        | "%nctaid"
                        | "%warpid"
                        | "%nwarpid"
                        | "%clusterid"
                        | "%nclusterid"
                        | "%smid"
                        | "%nsmid"
                        | "%gridid"
                        | "%dynamic_smem_size"
                        | "%total_smem_size"
                        | "%aggr_smem_size"
                        | "%clock"
                        | "%clock64"
                        | "%clock_hi"
                        | "%globaltimer"
                        | "%globaltimer_lo"
                        | "%globaltimer_hi"
                )
            }
            _ => false,
        };
        if uniform && first < self.threads.len() {
            return [self.src(first, s); 32];
        }
        let mut v = [0u64; 32];
        for l in lanes(mask) {
            v[l] = self.src(lo + l, s);
        }
        v
    }

    /// Writes `v` (per lane) to `d` in the lanes of `act`, as the reference's `write` does.
    #[inline(always)]
    fn put64(&mut self, w: usize, d: Dst, v: &L64, act: u32) {
        let Dst::Reg(r) = d else { return };
        let kernel = self.kfunc;
        let keep = kernel.reg_masks.get(r as usize).copied().unwrap_or(0);
        let wr = &mut self.wregs[w];
        match kernel.reg_slots.get(r as usize) {
            Some(&RegSlot::B64(i)) => blend64(&mut wr.r64[i as usize], v, act, keep),
            Some(&RegSlot::B32(i)) => {
                let n: L32 = per_lane(|l| v[l] as u32);
                blend32(&mut wr.r32[i as usize], &n, act, keep as u32);
            }
            Some(&RegSlot::Pred(i)) => {
                let b = bits_of(|l| v[l] & 1 != 0);
                let p = &mut wr.pred[i as usize];
                *p = (*p & !act) | (b & act);
            }
            None => {}
        }
    }

    /// Writes 32-bit lane values (zero-extended) to `d`.
    #[inline(always)]
    fn put32(&mut self, w: usize, d: Dst, v: &L32, act: u32) {
        let Dst::Reg(r) = d else { return };
        let kernel = self.kfunc;
        let keep = kernel.reg_masks.get(r as usize).copied().unwrap_or(0);
        let wr = &mut self.wregs[w];
        match kernel.reg_slots.get(r as usize) {
            Some(&RegSlot::B32(i)) => blend32(&mut wr.r32[i as usize], v, act, keep as u32),
            Some(&RegSlot::B64(i)) => {
                let n: L64 = per_lane(|l| v[l] as u64);
                blend64(&mut wr.r64[i as usize], &n, act, keep);
            }
            Some(&RegSlot::Pred(i)) => {
                let b = bits_of(|l| v[l] & 1 != 0);
                let p = &mut wr.pred[i as usize];
                *p = (*p & !act) | (b & act);
            }
            None => {}
        }
    }

    /// Writes a lane mask of booleans (0/1 values) to `d`.
    #[inline(always)]
    fn put_bits(&mut self, w: usize, d: Dst, b: u32, act: u32) {
        let Dst::Reg(r) = d else { return };
        match self.slot(r) {
            Some(RegSlot::Pred(i)) => {
                let p = &mut self.wregs[w].pred[i as usize];
                *p = (*p & !act) | (b & act);
            }
            _ => {
                let v: L32 = per_lane(|l| b >> l & 1);
                self.put32(w, d, &v, act);
            }
        }
    }

    /// One step of group `g` (at call depth 1) by the warp engine: `None` when the
    /// instruction needs a reference step (nothing was done then).
    ///
    /// `thread_insts` counts the instruction's active lanes; when it faults at a lane, only
    /// the lanes up to the faulting one, as the reference, which runs the lanes in order
    /// and stops at the fault (a warp collective completes for all of its lanes at once,
    /// in the reference too, so it keeps its count).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn fast_step(
        &mut self,
        w: u32,
        g: &Group,
        spin: &mut Spin,
        t: &mut Tmp,
        mem: &AddressSpace,
        stats: &mut Stats,
        budget: &mut Budget,
    ) -> Result<Option<Done>, Box<Fault>> {
        let mut counted = 0u32;
        let r = self.fast_step_counted(w, g, spin, t, mem, stats, budget, &mut counted);
        if let Err(f) = &r
            && counted != 0
        {
            let upto = match f.site.lane {
                l @ 0..31 => (2u32 << l) - 1,
                _ => u32::MAX,
            };
            stats.thread_insts -= (counted & !upto).count_ones() as u64;
        }
        r
    }

    /// [`Self::fast_step`]; `counted` receives the lanes counted in `thread_insts` that
    /// ran per lane (none for a warp collective).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn fast_step_counted(
        &mut self,
        w: u32,
        g: &Group,
        spin: &mut Spin,
        t: &mut Tmp,
        mem: &AddressSpace,
        stats: &mut Stats,
        budget: &mut Budget,
        counted: &mut u32,
    ) -> Result<Option<Done>, Box<Fault>> {
        let kfunc = self.kfunc;
        let grid = self.grid;
        let (Some(inst), Some(pre)) = (kfunc.code.get(g.pc as usize), grid.pre.get(g.pc as usize))
        else {
            return Ok(None);
        };
        let kind = pre.kind;
        if kind == Kind::Step {
            return Ok(None);
        }
        let wi = w as usize;
        let act = match pre.guard {
            Guard::None => g.mask,
            Guard::Pred(i, neg) => {
                g.mask & (self.wregs[wi].pred[i as usize] ^ if neg { u32::MAX } else { 0 })
            }
            Guard::Other(r, neg) => {
                g.mask & (self.pred_bits(wi, r) ^ if neg { u32::MAX } else { 0 })
            }
        };
        // A warp collective runs here only when the reference would complete it at once
        // for exactly these lanes; otherwise (lanes waiting elsewhere, a bad membermask)
        // it is a reference step.
        let masks = match kind {
            Kind::Collective => match self.collective_masks(wi, act, &inst.exec, t) {
                Some(m) => Some(m),
                None => return Ok(None),
            },
            _ => None,
        };
        let bar = match (kind, &inst.exec) {
            (Kind::Barrier, Exec::Bar { id, count, arrive }) => {
                match self.bar_plan(wi, act, *id, *count, t) {
                    Some((id, count)) => Some((id, count, *arrive)),
                    None => return Ok(None),
                }
            }
            _ => None,
        };
        if !budget.take(1) {
            self.set_pcs(w, g.mask, g.pc);
            return Err(self.step_limit(g.leader as usize));
        }
        stats.warp_insts += 1;
        self.clock += 1;
        stats.thread_insts += act.count_ones() as u64;
        let next = g.pc + 1;
        if act == 0 {
            stats.tiers[0] += 1;
            return Ok(Some(Done::Uniform(next)));
        }
        if let Some((id, count, arrive)) = bar {
            stats.tiers[0] += 1;
            return Ok(Some(self.bar_warp(w, g, spin, act, id, count, !arrive)));
        }
        if kind == Kind::Exit {
            // At call depth 1 (the only depth the warp engine runs), `ret` exits too.
            stats.tiers[0] += 1;
            self.apply_spins(w, g.mask, spin);
            self.set_pcs(w, g.mask & !act, next);
            // An exited thread stays at its `exit`/`ret` (the reference leaves its PC there).
            self.exit_lanes(wi, act, g.pc);
            self.recheck_blocked()?;
            return Ok(Some(Done::Written));
        }
        if let Some(masks) = masks {
            stats.tiers[0] += 1;
            let lo = wi * 32;
            let mut part = [0usize; 32];
            let mut np = 0;
            // A shuffle reads no membermask once it is known to complete here (nor does the
            // JIT's, `jit_shfl`): only the other collectives get theirs in the threads (which
            // the CTA's next reset then clears: `touched`).
            let shfl = matches!(
                inst.exec,
                Exec::Warp {
                    op: WarpOp::Shfl(_),
                    ..
                }
            );
            if !shfl {
                self.touched = true;
            }
            for l in lanes(act) {
                if !shfl {
                    self.threads[lo + l].sync_mask = masks[l];
                }
                part[np] = lo + l;
                np += 1;
            }
            match &inst.exec {
                Exec::Matrix { .. } => {
                    self.set_pcs(w, g.mask, g.pc);
                    self.matrix_exec(&part[..np], inst)?;
                }
                Exec::Warp {
                    op: WarpOp::Shfl(mode),
                    d,
                    p,
                    a,
                    b,
                    c,
                    ..
                } => {
                    // `warp_exec`'s shuffle, for all lanes at once: the source lane's value
                    // when it takes part, else the lane's own.
                    let vals = *self.fetch64(wi, act, *a, &mut t.a64);
                    let bv = self.fetch32(wi, act, *b, &mut t.b32);
                    let cv = self.fetch32(wi, act, *c, &mut t.c32);
                    let mut r = [0u64; 32];
                    let mut pb = 0u32;
                    for l in lanes(act) {
                        let (j, pv) = shfl_lane(*mode, l as u32, bv[l], cv[l]);
                        r[l] = if act >> j & 1 == 1 {
                            vals[j as usize]
                        } else {
                            vals[l]
                        };
                        pb |= (pv as u32) << l;
                    }
                    self.put64(wi, *d, &r, act);
                    self.put_bits(wi, *p, pb, act);
                }
                _ => self.warp_exec(&part[..np], inst),
            }
            return Ok(Some(Done::Uniform(next)));
        }
        *counted = act;
        if kind == Kind::Lanes {
            stats.tiers[1] += 1;
            return self.lanes_exec(w, g, act, inst, mem, budget);
        }
        stats.tiers[0] += 1;
        match &inst.exec {
            Exec::Mov { d, a, bits } => {
                if *bits <= 32 {
                    let v = self.fetch32(wi, act, *a, &mut t.a32);
                    let m = mask(u32::MAX as u64, *bits) as u32;
                    let v = map1_32(v, |x| x & m);
                    self.put32(wi, *d, &v, act);
                } else {
                    let v = *self.fetch64(wi, act, *a, &mut t.a64);
                    self.put64(wi, *d, &v, act);
                }
            }
            Exec::Int { op, ty, d, a, b } => self.int_op(t, wi, act, *op, *ty, *d, *a, *b),
            Exec::Mad {
                mode,
                ty,
                sat: false,
                d,
                a,
                b,
                c,
            } => self.mad_op(t, wi, act, *mode, *ty, *d, *a, *b, *c),
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
            } => self.float_op(
                t, wi, act, *op, *ty, *rnd, *ftz, *sat, *nan, *xorsign, *d, *a, *b,
            ),
            Exec::Fma {
                ty,
                rnd,
                ftz,
                sat,
                d,
                a,
                b,
                c,
            } => self.fma_op(t, wi, act, *ty, *rnd, *ftz, *sat, *d, *a, *b, *c),
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
                let r = self.compare_op(t, wi, act, *cmp, *ty, *ftz, *a, *b);
                let (mut r, mut nr) = (r, !r);
                if let Some((op, c)) = bop {
                    let c = self.bool_src(wi, act, *c);
                    r = bool_bits(*op, r, c);
                    nr = bool_bits(*op, nr, c);
                }
                self.put_bits(wi, *p, r, act);
                self.put_bits(wi, *q, nr, act);
            }
            Exec::Selp { d, a, b, c, bits } => {
                let c = self.bool_src(wi, act, *c);
                if *bits <= 32 {
                    let (x, y) = (
                        self.fetch32(wi, act, *a, &mut t.a32),
                        self.fetch32(wi, act, *b, &mut t.b32),
                    );
                    let m = mask(u32::MAX as u64, *bits) as u32;
                    let v: L32 = per_lane(|l| if c >> l & 1 != 0 { x[l] } else { y[l] } & m);
                    self.put32(wi, *d, &v, act);
                } else {
                    let (x, y) = (
                        self.fetch64(wi, act, *a, &mut t.a64),
                        self.fetch64(wi, act, *b, &mut t.b64),
                    );
                    let v: L64 = per_lane(|l| if c >> l & 1 != 0 { x[l] } else { y[l] });
                    self.put64(wi, *d, &v, act);
                }
            }
            Exec::PredOp { op, d, a, b } => {
                let a = self.bool_src(wi, act, *a);
                let v = match op {
                    None => !a,
                    Some(o) => bool_bits(*o, a, self.bool_src(wi, act, *b)),
                };
                self.put_bits(wi, *d, v, act);
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
                let x = self.fetch64(wi, act, *a, &mut t.a64);
                let mut v = [0u64; 32];
                for l in lanes(act) {
                    match cvt(*dty, *aty, *rnd, *irnd, *sat, *ftz, *relu, *satfinite, x[l]) {
                        Some(r) => v[l] = r,
                        None => {
                            self.set_pcs(w, g.mask, g.pc);
                            return Err(self.unsupported(
                                wi * 32 + l,
                                &format!("cvt{}{}", dty.name(), aty.name()),
                            ));
                        }
                    }
                }
                self.put64(wi, *d, &v, act);
            }
            Exec::Cvta {
                to,
                space,
                d,
                a,
                addr,
            } => {
                let v = match addr {
                    Some(Addr::Var(loc, off)) => {
                        let first = wi * 32 + act.trailing_zeros() as usize;
                        [self.var_addr(first, *loc).wrapping_add(*off as u64); 32]
                    }
                    _ => *self.fetch64(wi, act, *a, &mut t.a64),
                };
                let (space, to) = (*space, *to);
                let r: L64 = per_lane(|l| cvta_value(space, to, v[l]));
                self.put64(wi, *d, &r, act);
            }
            Exec::Ld {
                space,
                ty,
                ds,
                addr,
            } => {
                self.load_op(t, w, g, act, *space, *ty, ds, *addr, mem)?;
            }
            Exec::St {
                space,
                ty,
                srcs,
                addr,
            } => {
                self.store_op(t, w, g, act, *space, *ty, srcs, *addr, mem)?;
            }
            Exec::Bra { target } => return Ok(Some(self.branch(w, g, spin, act, *target))),
            _ => return self.lanes_exec(w, g, act, inst, mem, budget),
        }
        Ok(Some(Done::Uniform(next)))
    }

    /// A fault made before the threads' PCs were stored, made again now that they are (so
    /// it names the instruction's line).
    #[cold]
    fn fault_at(&self, t: usize, mut f: Box<Fault>) -> Box<Fault> {
        f.site = self.site(t);
        f
    }

    /// The reference's per-thread semantics for the active lanes, in lane order.
    #[inline(never)]
    fn lanes_exec(
        &mut self,
        w: u32,
        g: &Group,
        act: u32,
        inst: &DInst,
        mem: &AddressSpace,
        budget: &mut Budget,
    ) -> Result<Option<Done>, Box<Fault>> {
        self.set_pcs(w, g.mask, g.pc);
        let lo = w as usize * 32;
        for l in lanes(act) {
            self.exec(lo + l, inst, mem, budget)?;
        }
        // Every lane is at the next instruction now (exec moved the active ones).
        Ok(Some(Done::Uniform(g.pc + 1)))
    }

    /// The membermask each active lane would arrive with at a warp collective, when the
    /// reference would complete it at once for exactly the lanes of `act`: every lane's
    /// membermask holds the lane itself, and every live lane it names is in `act` (for
    /// `ldmatrix`-family instructions: `act` is every live lane of the warp).
    #[inline(always)]
    fn collective_masks(&self, w: usize, act: u32, e: &Exec, t: &mut Tmp) -> Option<L32> {
        let live = || self.live_lanes(w);
        match e {
            Exec::Warp { mask: None, .. } => Some([act; 32]),
            Exec::Warp { mask: Some(m), .. } => {
                let mv = self.fetch32(w, act, *m, &mut t.a32);
                let live = live();
                let mut ok = true;
                for l in lanes(act) {
                    ok &= mv[l] >> l & 1 == 1 && mv[l] & live & !act == 0;
                }
                ok.then_some(*mv)
            }
            Exec::Matrix {
                op: MatrixOp::Tcgen05(t),
                ..
            } if t.per_thread() => Some([act; 32]),
            Exec::Matrix { .. } => {
                let live = live();
                (act == live).then_some([live; 32])
            }
            _ => None,
        }
    }

    /// The barrier and thread count the lanes of `act` arrive at with `bar`, when the warp
    /// engine can take the arrival for all of them at once: every lane names the same
    /// barrier (0..15) and the same valid count, and none has arrived in the barrier's
    /// current phase (so the barrier can complete only after the last of them, as in the
    /// reference, which takes them in lane order). `None`: a reference step, which also
    /// reports the faults.
    #[inline(always)]
    fn bar_plan(
        &self,
        w: usize,
        act: u32,
        id: Src,
        count: Option<Src>,
        t: &mut Tmp,
    ) -> Option<(usize, Option<u32>)> {
        if act == 0 {
            return Some((0, None));
        }
        let first = act.trailing_zeros() as usize;
        // The operand's value when every lane of `act` has the same (an immediate at once).
        let same = |s: Src, t: &mut L64| -> Option<u64> {
            if let Src::Imm(v) = s {
                return Some(v);
            }
            let v = self.fetch64(w, act, s, t);
            let x = v[first];
            lanes(act).all(|l| v[l] == x).then_some(x)
        };
        let idv = same(id, &mut t.a64)?;
        if idv > 15 {
            return None;
        }
        let count = match count {
            None => None,
            Some(c) => {
                let cv = same(c, &mut t.b64)?;
                if cv == 0 || !cv.is_multiple_of(32) || cv > self.nwarps as u64 * 32 {
                    return None;
                }
                Some(cv as u32)
            }
        };
        let id = idv as usize;
        match self.bar_lanes[id].get(w) {
            Some(&m) if m & act == 0 => Some((id, count)),
            _ => None,
        }
    }

    /// The lanes `act` of group `g` arrive at barrier `id` (planned by [`Self::bar_plan`])
    /// and, with `wait`, block there; the group's other lanes (guard false) move on too.
    /// The reference's [`Cta::bar_join`] for all of them at once.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn bar_warp(
        &mut self,
        w: u32,
        g: &Group,
        spin: &Spin,
        act: u32,
        id: usize,
        count: Option<u32>,
        wait: bool,
    ) -> Done {
        let next = g.pc + 1;
        let wi = w as usize;
        let live = self.live_lanes(wi);
        let spins = spin.highest();
        // A whole warp that waits is parked (`Cta::bar_whole`): its threads' records are
        // left as they are, and the barrier's release writes their PCs.
        let park = wait && act == g.mask && act == live && spins < SPIN_YIELD;
        let lanes_now = self.bar_mark(id, wi, act, count);
        if park {
            self.bar_whole[wi] = Some((id as u8, next, spins));
        } else {
            self.set_pcs(w, g.mask, next);
            if wait {
                each_sched(&mut self.sched, wi, act, |s| {
                    s.state = TState::Barrier(id as u8)
                });
            }
        }
        if lanes_now & live == live && self.check_barrier(id) {
            // Threads of other warps (or of this one) woke: their kept groups are stale.
            self.sched_epoch += 1;
            // A warp whose live lanes all blocked here together is now one group at `next`
            // (what `select` would find): keep it for the warp's next quantum.
            let mut own = false;
            for k in 0..self.woken.len() {
                let (ww, pc, max) = self.woken[k];
                if ww == w {
                    own = true;
                    continue;
                }
                let mask = self.live_lanes(ww as usize);
                let group = Group {
                    mask,
                    pc,
                    func: g.func,
                    depth: 1,
                    leader: ww * 32 + mask.trailing_zeros(),
                    others: u32::MAX,
                };
                let spin = Spin {
                    max,
                    taken: 0,
                    zeroed: false,
                };
                self.wcache[ww as usize] = Some((group, spin, self.sched_epoch));
            }
            // This warp goes on as the same group when it was whole.
            return if own {
                Done::Uniform(next)
            } else {
                Done::Reselect(next)
            };
        }
        if wait && act == live {
            Done::Blocked
        } else if wait || next >= g.others {
            Done::Reselect(next)
        } else {
            Done::Uniform(next)
        }
    }

    /// A predicate-valued source as a lane mask.
    #[inline(always)]
    fn bool_src(&self, w: usize, act: u32, s: Src) -> u32 {
        match s {
            Src::Pred(r, neg) => self.pred_bits(w, r) ^ if neg { u32::MAX } else { 0 },
            Src::Reg(r) => self.pred_bits(w, r),
            Src::Imm(v) => {
                if v != 0 {
                    u32::MAX
                } else {
                    0
                }
            }
            _ => {
                let v = self.fetch_each(w, act, s);
                bits_of(|l| v[l] != 0)
            }
        }
    }

    /// `bra`: the lanes of `act` jump, the group's others fall through.
    #[inline(always)]
    fn branch(&mut self, w: u32, g: &Group, spin: &mut Spin, act: u32, target: u32) -> Done {
        let back = target <= g.pc;
        if act == g.mask {
            // The whole group jumps: count in `spin`.
            if back {
                spin.taken += 1;
            } else {
                *spin = Spin {
                    max: 0,
                    taken: 0,
                    zeroed: true,
                };
            }
            return if spin.highest() >= SPIN_YIELD {
                Done::Reselect(target)
            } else {
                Done::Uniform(target)
            };
        }
        // Divergence: the threads take their own counts and PCs.
        diverge_spins(&mut self.sched, w as usize, g.mask, act, spin, back);
        *spin = Spin {
            max: 0,
            taken: 0,
            zeroed: false,
        };
        self.set_pcs(w, act, target);
        self.set_pcs(w, g.mask & !act, g.pc + 1);
        Done::Written
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn int_op(
        &mut self,
        t: &mut Tmp,
        w: usize,
        act: u32,
        op: IntOp,
        ty: Type,
        d: Dst,
        a: Src,
        b: Src,
    ) {
        use IntOp::*;
        if narrow(ty) && op != MulWide {
            let (x, y) = (
                self.fetch32(w, act, a, &mut t.a32),
                self.fetch32(w, act, b, &mut t.b32),
            );
            macro_rules! spec {
                ($($o:ident),*) => {
                    match (op, ty) {
                        $(
                            ($o, Type::U32 | Type::B32) => map2_32(&x, &y, |p, q| int_bin($o, Type::U32, p as u64, q as u64) as u32),
                            ($o, Type::S32) => map2_32(&x, &y, |p, q| int_bin($o, Type::S32, p as u64, q as u64) as u32),
                        )*
                        _ => map2_32(&x, &y, |p, q| int_bin(op, ty, p as u64, q as u64) as u32),
                    }
                };
            }
            let v = spec!(Add, Sub, MulLo, MulHi, Min, Max, And, Or, Xor, Shl, Shr);
            self.put32(w, d, &v, act);
        } else if op == MulWide && narrow(ty) {
            let (x, y) = (
                self.fetch32(w, act, a, &mut t.a32),
                self.fetch32(w, act, b, &mut t.b32),
            );
            let v: L64 = match ty {
                Type::U32 => per_lane(|l| int_bin(MulWide, Type::U32, x[l] as u64, y[l] as u64)),
                Type::S32 => per_lane(|l| int_bin(MulWide, Type::S32, x[l] as u64, y[l] as u64)),
                _ => per_lane(|l| int_bin(op, ty, x[l] as u64, y[l] as u64)),
            };
            self.put64(w, d, &v, act);
        } else {
            let (x, y) = (
                self.fetch64(w, act, a, &mut t.a64),
                self.fetch64(w, act, b, &mut t.b64),
            );
            macro_rules! spec {
                ($($o:ident),*) => {
                    match (op, ty) {
                        $(
                            ($o, Type::U64 | Type::B64) => map2_64(&x, &y, |p, q| int_bin($o, Type::U64, p, q)),
                            ($o, Type::S64) => map2_64(&x, &y, |p, q| int_bin($o, Type::S64, p, q)),
                        )*
                        _ => map2_64(&x, &y, |p, q| int_bin(op, ty, p, q)),
                    }
                };
            }
            let v = spec!(Add, Sub, MulLo, And, Or, Xor, Shl, Shr);
            self.put64(w, d, &v, act);
        }
    }

    /// `mad.lo/hi/wide` without `.sat`: the reference's `p + c` on `int_bin`'s product.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn mad_op(
        &mut self,
        t: &mut Tmp,
        w: usize,
        act: u32,
        mode: IntOp,
        ty: Type,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    ) {
        if mode == IntOp::MulWide {
            let (x, y) = (
                self.fetch32(w, act, a, &mut t.a32),
                self.fetch32(w, act, b, &mut t.b32),
            );
            let z = self.fetch64(w, act, c, &mut t.a64);
            let bits = ty.bits() * 2;
            let v: L64 = match ty {
                Type::U32 => per_lane(|l| {
                    mask(
                        int_bin(IntOp::MulWide, Type::U32, x[l] as u64, y[l] as u64)
                            .wrapping_add(z[l]),
                        64,
                    )
                }),
                Type::S32 => per_lane(|l| {
                    mask(
                        int_bin(IntOp::MulWide, Type::S32, x[l] as u64, y[l] as u64)
                            .wrapping_add(z[l]),
                        64,
                    )
                }),
                _ => per_lane(|l| {
                    mask(
                        int_bin(mode, ty, x[l] as u64, y[l] as u64).wrapping_add(z[l]),
                        bits,
                    )
                }),
            };
            self.put64(w, d, &v, act);
        } else if narrow(ty) {
            let (x, y, z) = (
                self.fetch32(w, act, a, &mut t.a32),
                self.fetch32(w, act, b, &mut t.b32),
                self.fetch32(w, act, c, &mut t.c32),
            );
            let bits = ty.bits();
            let v = match (mode, ty) {
                (IntOp::MulLo, Type::U32 | Type::B32 | Type::S32) => map3_32(x, y, z, |p, q, r| {
                    int_bin(IntOp::MulLo, Type::U32, p as u64, q as u64).wrapping_add(r as u64)
                        as u32
                }),
                _ => map3_32(x, y, z, |p, q, r| {
                    mask(
                        int_bin(mode, ty, p as u64, q as u64).wrapping_add(r as u64),
                        bits,
                    ) as u32
                }),
            };
            self.put32(w, d, &v, act);
        } else {
            let (x, y, z) = (
                self.fetch64(w, act, a, &mut t.a64),
                self.fetch64(w, act, b, &mut t.b64),
                self.fetch64(w, act, c, &mut t.c64),
            );
            let bits = ty.bits();
            let v = map3_64(x, y, z, |p, q, r| {
                mask(int_bin(mode, ty, p, q).wrapping_add(r), bits)
            });
            self.put64(w, d, &v, act);
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn float_op(
        &mut self,
        t: &mut Tmp,
        w: usize,
        act: u32,
        op: FOp,
        ty: Type,
        rnd: Rnd,
        ftz: bool,
        sat: bool,
        nan: bool,
        xorsign: bool,
        d: Dst,
        a: Src,
        b: Src,
    ) {
        if ty == Type::F32 {
            let (x, y) = (
                self.fetch32(w, act, a, &mut t.a32),
                self.fetch32(w, act, b, &mut t.b32),
            );
            macro_rules! f32s {
                ($($o:ident),*) => {
                    match (op, rnd, ftz, sat, nan, xorsign) {
                        $(
                            (FOp::$o, Rnd::Rn, false, false, false, false) => map2_32(&x, &y, |p, q| {
                                float_bin(FOp::$o, Type::F32, Rnd::Rn, false, false, false, false, p as u64, q as u64) as u32
                            }),
                            (FOp::$o, Rnd::Rn, true, false, false, false) => map2_32(&x, &y, |p, q| {
                                float_bin(FOp::$o, Type::F32, Rnd::Rn, true, false, false, false, p as u64, q as u64) as u32
                            }),
                        )*
                        _ => map2_32(&x, &y, |p, q| {
                            float_bin(op, ty, rnd, ftz, sat, nan, xorsign, p as u64, q as u64) as u32
                        }),
                    }
                };
            }
            let v = f32s!(Add, Sub, Mul, Min, Max);
            self.put32(w, d, &v, act);
        } else {
            let (x, y) = (
                self.fetch64(w, act, a, &mut t.a64),
                self.fetch64(w, act, b, &mut t.b64),
            );
            let v = match (op, ty, rnd) {
                (FOp::Add, Type::F64, Rnd::Rn) => map2_64(x, y, |p, q| {
                    float_bin(
                        FOp::Add,
                        Type::F64,
                        Rnd::Rn,
                        false,
                        false,
                        false,
                        false,
                        p,
                        q,
                    )
                }),
                (FOp::Mul, Type::F64, Rnd::Rn) => map2_64(x, y, |p, q| {
                    float_bin(
                        FOp::Mul,
                        Type::F64,
                        Rnd::Rn,
                        false,
                        false,
                        false,
                        false,
                        p,
                        q,
                    )
                }),
                _ => map2_64(x, y, |p, q| {
                    float_bin(op, ty, rnd, ftz, sat, nan, xorsign, p, q)
                }),
            };
            self.put64(w, d, &v, act);
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn fma_op(
        &mut self,
        t: &mut Tmp,
        w: usize,
        act: u32,
        ty: Type,
        rnd: Rnd,
        ftz: bool,
        sat: bool,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    ) {
        if ty == Type::F32 {
            let (x, y, z) = (
                self.fetch32(w, act, a, &mut t.a32),
                self.fetch32(w, act, b, &mut t.b32),
                self.fetch32(w, act, c, &mut t.c32),
            );
            let f = |p: u32, q: u32, r: u32, rnd, ftz, sat| {
                fma_bits(Type::F32, rnd, ftz, sat, p as u64, q as u64, r as u64) as u32
            };
            let v = match (rnd, ftz, sat) {
                (Rnd::Rn, false, false) => {
                    map3_32(x, y, z, |p, q, r| f(p, q, r, Rnd::Rn, false, false))
                }
                (Rnd::Rn, true, false) => {
                    map3_32(x, y, z, |p, q, r| f(p, q, r, Rnd::Rn, true, false))
                }
                _ => map3_32(x, y, z, |p, q, r| f(p, q, r, rnd, ftz, sat)),
            };
            self.put32(w, d, &v, act);
        } else {
            let (x, y, z) = (
                self.fetch64(w, act, a, &mut t.a64),
                self.fetch64(w, act, b, &mut t.b64),
                self.fetch64(w, act, c, &mut t.c64),
            );
            let v = match rnd {
                Rnd::Rn => map3_64(x, y, z, |p, q, r| {
                    fma_bits(Type::F64, Rnd::Rn, false, false, p, q, r)
                }),
                _ => map3_64(x, y, z, |p, q, r| fma_bits(ty, rnd, ftz, sat, p, q, r)),
            };
            self.put64(w, d, &v, act);
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn compare_op(
        &self,
        t: &mut Tmp,
        w: usize,
        act: u32,
        cmp: Cmp,
        ty: Type,
        ftz: bool,
        a: Src,
        b: Src,
    ) -> u32 {
        use ptxvm_fp::arith::CmpOp::*;
        if narrow(ty) {
            let (x, y) = (
                self.fetch32(w, act, a, &mut t.a32),
                self.fetch32(w, act, b, &mut t.b32),
            );
            macro_rules! spec {
                ($($c:ident),*) => {
                    match (cmp, ty, ftz) {
                        $(
                            (Cmp::Int($c, true), Type::U32 | Type::B32, _) => bits_of(|l| compare(Cmp::Int($c, true), Type::U32, false, x[l] as u64, y[l] as u64)),
                            (Cmp::Int($c, false), Type::S32, _) => bits_of(|l| compare(Cmp::Int($c, false), Type::S32, false, x[l] as u64, y[l] as u64)),
                            (Cmp::Float($c), Type::F32, false) => bits_of(|l| compare(Cmp::Float($c), Type::F32, false, x[l] as u64, y[l] as u64)),
                        )*
                        _ => bits_of(|l| compare(cmp, ty, ftz, x[l] as u64, y[l] as u64)),
                    }
                };
            }
            spec!(Eq, Ne, Lt, Le, Gt, Ge)
        } else {
            let (x, y) = (
                self.fetch64(w, act, a, &mut t.a64),
                self.fetch64(w, act, b, &mut t.b64),
            );
            bits_of(|l| compare(cmp, ty, ftz, x[l], y[l]))
        }
    }

    /// Address of a memory operand in every lane of `act`, in its own space (before the
    /// generic windows are told apart); `None` for operands the reference resolves per
    /// thread (variables, parameters).
    #[inline(always)]
    fn addrs(&self, t: &mut Tmp, w: usize, act: u32, space: MemSpace, a: Addr) -> Option<L64> {
        match (space, a) {
            (
                MemSpace::Global | MemSpace::Generic | MemSpace::Shared | MemSpace::Const,
                Addr::Reg(r, off),
            ) => {
                let base = self.fetch64(w, act, Src::Reg(r), &mut t.a64);
                // A plain loop, not `array::from_fn`: that was compiled out of line, without
                // the caller's vector features, on every memory access.
                let mut at = [0u64; 32];
                for (x, b) in at.iter_mut().zip(base) {
                    *x = b.wrapping_add(off as u64);
                }
                Some(at)
            }
            _ => None,
        }
    }

    /// A whole-warp `wd`-byte load (zero-extended), or `None` (see [`whole_warp`]).
    #[inline(always)]
    fn gather(
        &mut self,
        at: &L64,
        act: u32,
        space: MemSpace,
        wd: usize,
        mem: &AddressSpace,
    ) -> Option<L64> {
        let mut v = [0u64; 32];
        gather(
            &mut self.spans,
            &mut self.shared,
            at,
            act,
            space,
            wd,
            mem,
            &mut v,
        )
        .then_some(v)
    }

    /// A whole-warp store (see [`scatter`]).
    #[inline(always)]
    fn scatter(
        &mut self,
        at: &L64,
        act: u32,
        space: MemSpace,
        wd: usize,
        v: &L64,
        mem: &AddressSpace,
    ) -> bool {
        scatter(
            &mut self.spans,
            &mut self.shared,
            at,
            act,
            space,
            wd,
            v,
            mem,
        )
    }

    /// `ld`: global, constant, generic-to-global and shared accesses directly; every other
    /// lane (and anything unusual) through the reference's `load` for that thread.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn load_op(
        &mut self,
        t: &mut Tmp,
        w: u32,
        g: &Group,
        act: u32,
        space: MemSpace,
        ty: Type,
        ds: &[Dst],
        addr: Addr,
        mem: &AddressSpace,
    ) -> Result<(), Box<Fault>> {
        let wi = w as usize;
        let lo = wi * 32;
        let wd = ty.bytes() as usize;
        let n = wd * ds.len();
        let signed = ty.class() == Class::Signed;
        if let Addr::Var(VarLoc::KernelParam(_), _) = addr {
            // The same kernel parameter bytes for every lane: read them once.
            let first = lo + act.trailing_zeros() as usize;
            let (sp, a) = self.resolve(first, space, addr);
            let mut buf = [0u8; 128];
            if let Err(f) = self.load(first, sp, a, &mut buf[..n], mem) {
                self.set_pcs(w, g.mask, g.pc);
                return Err(self.fault_at(first, f));
            }
            for (k, d) in ds.iter().enumerate() {
                let mut v = 0u64;
                for (j, byte) in buf[k * wd..k * wd + wd].iter().enumerate() {
                    v |= (*byte as u64) << (8 * j);
                }
                if signed {
                    v = sext(v, ty.bits());
                }
                self.put64(wi, *d, &[v; 32], act);
            }
            return Ok(());
        }
        let at = self.addrs(t, wi, act, space, addr);
        self.spans.validate(mem);
        if ds.len() == 1
            && let Some(at) = &at
            && let Some(v) = self.gather(at, act, space, wd, mem)
        {
            let v: L64 = if signed {
                per_lane(|l| sext(v[l], ty.bits()))
            } else {
                v
            };
            self.put64(wi, ds[0], &v, act);
            return Ok(());
        }
        // vals[k][lane]: element k of each lane.
        let mut vals = [[0u64; 32]; 4];
        let mut wide: Option<Vec<[u64; 32]>> = None;
        if ds.len() > 4 {
            wide = Some(vec![[0u64; 32]; ds.len()]);
        }
        let align_ok = |a: u64| !n.is_power_of_two() || a.is_multiple_of(n as u64);
        for l in lanes(act) {
            let mut buf = [0u8; 128];
            let mut done = false;
            if let Some(at) = &at {
                let a = at[l];
                let (sp, a) = if space == MemSpace::Generic {
                    generic_space(a)
                } else {
                    (space, a)
                };
                if align_ok(a) {
                    match sp {
                        MemSpace::Global | MemSpace::Const
                            if self.spans.find(mem, a, n as u64).is_some() =>
                        {
                            // SAFETY: `[a, a+n)` lies in a live allocation (checked against
                            // a span of the current epoch; freed pages stay mapped while
                            // the launch runs).
                            unsafe {
                                std::ptr::copy_nonoverlapping(a as *const u8, buf.as_mut_ptr(), n)
                            };
                            done = true;
                        }
                        MemSpace::Shared => {
                            if let Some(s) =
                                self.shared.get(a as usize..(a as usize).wrapping_add(n))
                                && a.checked_add(n as u64).is_some()
                            {
                                buf[..n].copy_from_slice(s);
                                done = true;
                            }
                        }
                        _ => {}
                    }
                }
            }
            if !done {
                self.set_pcs(w, g.mask, g.pc);
                let t = lo + l;
                let (sp, a) = self.resolve(t, space, addr);
                self.load(t, sp, a, &mut buf[..n], mem)?;
            }
            for k in 0..ds.len() {
                let mut v = 0u64;
                for (j, byte) in buf[k * wd..k * wd + wd].iter().enumerate() {
                    v |= (*byte as u64) << (8 * j);
                }
                if signed {
                    v = sext(v, ty.bits());
                }
                match &mut wide {
                    Some(wv) => wv[k][l] = v,
                    None => vals[k][l] = v,
                }
            }
        }
        for (k, d) in ds.iter().enumerate() {
            let v = match &wide {
                Some(wv) => wv[k],
                None => vals[k],
            };
            self.put64(wi, *d, &v, act);
        }
        Ok(())
    }

    /// `st`: as `load_op`, lane by lane in lane order (a later lane's store wins).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn store_op(
        &mut self,
        t: &mut Tmp,
        w: u32,
        g: &Group,
        act: u32,
        space: MemSpace,
        ty: Type,
        srcs: &[Src],
        addr: Addr,
        mem: &AddressSpace,
    ) -> Result<(), Box<Fault>> {
        let wi = w as usize;
        let lo = wi * 32;
        let wd = ty.bytes() as usize;
        let n = wd * srcs.len();
        let mut vals: Vec<L64> = Vec::new();
        let mut small = [[0u64; 32]; 4];
        if srcs.len() <= 4 {
            for (k, s) in srcs.iter().enumerate() {
                small[k] = *self.fetch64(wi, act, *s, &mut t.a64);
            }
        } else {
            vals = srcs
                .iter()
                .map(|s| *self.fetch64(wi, act, *s, &mut t.a64))
                .collect();
        }
        let at = self.addrs(t, wi, act, space, addr);
        self.spans.validate(mem);
        if srcs.len() == 1
            && let Some(at) = &at
            && self.scatter(at, act, space, wd, &small[0], mem)
        {
            return Ok(());
        }
        let align_ok = |a: u64| !n.is_power_of_two() || a.is_multiple_of(n as u64);
        for l in lanes(act) {
            let mut buf = [0u8; 128];
            for k in 0..srcs.len() {
                let v = if srcs.len() <= 4 {
                    small[k][l]
                } else {
                    vals[k][l]
                };
                buf[k * wd..k * wd + wd].copy_from_slice(&v.to_le_bytes()[..wd]);
            }
            let mut done = false;
            if let Some(at) = &at {
                let a = at[l];
                let (sp, a) = if space == MemSpace::Generic {
                    generic_space(a)
                } else {
                    (space, a)
                };
                if align_ok(a) {
                    match sp {
                        MemSpace::Global => {
                            if let Some(s) = self.spans.find(mem, a, n as u64)
                                && s.writable
                            {
                                // SAFETY: as in `load_op`, and the allocation is writable.
                                unsafe {
                                    std::ptr::copy_nonoverlapping(buf.as_ptr(), a as *mut u8, n)
                                };
                                done = true;
                            }
                        }
                        MemSpace::Shared => {
                            if let Some(s) = self
                                .shared
                                .get_mut(a as usize..(a as usize).wrapping_add(n))
                                && a.checked_add(n as u64).is_some()
                            {
                                s.copy_from_slice(&buf[..n]);
                                done = true;
                            }
                        }
                        _ => {}
                    }
                }
            }
            if !done {
                self.set_pcs(w, g.mask, g.pc);
                let t = lo + l;
                let (sp, a) = self.resolve(t, space, addr);
                self.store(t, sp, a, &buf[..n], mem)?;
            }
        }
        Ok(())
    }
}

/// The allocation holding `[a, a+n)` of global, constant or generic space, when an access of
/// that kind (`write`) may be made there: constant memory is never written, and a write needs
/// a writable allocation.
#[inline(always)]
fn device_span(
    spans: &mut SpanCache,
    space: MemSpace,
    write: bool,
    mem: &AddressSpace,
    a: u64,
    n: u64,
) -> Option<Span> {
    if space == MemSpace::Const && write {
        return None;
    }
    spans.validate(mem);
    let s = spans.find(mem, a, n)?;
    (!write || s.writable).then_some(s)
}

/// Whether every active lane's `wd`-byte access (`wd` 1, 2, 4 or 8) at `at` is aligned and
/// inside one allocation the cache knows (global, constant or generic space) or inside
/// shared memory (shared space). Returns the base to add to an address (null: the address
/// is the host address), or `None` when some lane needs the careful path.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // the hot path's operands, kept as plain arguments
fn whole_warp(
    spans: &mut SpanCache,
    shared: &mut [u8],
    at: &L64,
    act: u32,
    space: MemSpace,
    wd: usize,
    write: bool,
    mem: &AddressSpace,
) -> Option<*mut u8> {
    let first = act.trailing_zeros() as usize;
    if first >= 32 {
        return None;
    }
    let misaligned = at
        .iter()
        .enumerate()
        .fold(0u64, |m, (l, a)| m | if act >> l & 1 != 0 { *a } else { 0 });
    if misaligned & (wd as u64 - 1) != 0 {
        return None;
    }
    let (base, lo, hi) = match space {
        MemSpace::Global | MemSpace::Generic | MemSpace::Const => {
            let s = device_span(spans, space, write, mem, at[first], wd as u64)?;
            (std::ptr::null_mut(), s.lo, s.hi - wd as u64)
        }
        MemSpace::Shared => {
            let len = shared.len() as u64;
            if len < wd as u64 {
                return None;
            }
            (shared.as_mut_ptr(), 0, len - wd as u64)
        }
        _ => return None,
    };
    let outside = at.iter().enumerate().fold(false, |o, (l, a)| {
        o | (act >> l & 1 != 0 && (*a < lo || *a > hi))
    });
    (!outside).then_some(base)
}

/// The host address of a whole warp's accesses that form one run (all 32 lanes, lane `l`
/// at `at[0] + l * wd`, aligned), when the run lies inside one allocation (writable for a
/// store) or inside the CTA's shared memory: what [`whole_warp`] checks lane by lane, for
/// the whole run at once. `None`: not such a run, or the lane-by-lane path decides.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn run_ptr(
    spans: &mut SpanCache,
    shared: &mut [u8],
    at: &L64,
    act: u32,
    space: MemSpace,
    wd: usize,
    write: bool,
    mem: &AddressSpace,
) -> Option<*mut u8> {
    let a0 = at[0];
    let step = wd as u64;
    // The two ends first: most accesses that are not one run (a broadcast, two rows of a
    // tile) fail here, before the whole comparison.
    if act != u32::MAX || at[1] != a0.wrapping_add(step) || at[31] != a0.wrapping_add(31 * step) {
        return None;
    }
    let mut off = 0u64;
    let mut run = true;
    for a in at {
        run &= *a == a0.wrapping_add(off);
        off += step;
    }
    if !run {
        return None;
    }
    run_span(spans, shared, a0, space, wd, write, mem)
}

/// The host address of the 32 `wd`-byte accesses from `a0` on (one run), when `a0` is
/// aligned and the run lies inside one allocation the cache knows (writable for a store)
/// or inside the CTA's shared memory (`a0` an offset there). `None`: the lane-by-lane path
/// decides (and faults).
#[inline(always)]
pub(super) fn run_span(
    spans: &mut SpanCache,
    shared: &mut [u8],
    a0: u64,
    space: MemSpace,
    wd: usize,
    write: bool,
    mem: &AddressSpace,
) -> Option<*mut u8> {
    let step = wd as u64;
    if step == 0 || !a0.is_multiple_of(step) {
        return None;
    }
    let n = 32 * step;
    match space {
        MemSpace::Global | MemSpace::Generic | MemSpace::Const => {
            device_span(spans, space, write, mem, a0, n)?;
            Some(a0 as usize as *mut u8)
        }
        MemSpace::Shared => {
            let end = a0.checked_add(n)?;
            (end <= shared.len() as u64).then(|| shared.as_mut_ptr().wrapping_add(a0 as usize))
        }
        _ => None,
    }
}

/// A whole-warp `wd`-byte load (zero-extended) of the lanes of `act` into `v` (the other
/// lanes' values are left as they are), or false when some lane needs the careful path
/// (nothing read then).
#[inline(always)]
#[allow(clippy::too_many_arguments)] // the hot path's operands, kept as plain arguments
pub(super) fn gather(
    spans: &mut SpanCache,
    shared: &mut [u8],
    at: &L64,
    act: u32,
    space: MemSpace,
    wd: usize,
    mem: &AddressSpace,
    v: &mut L64,
) -> bool {
    if !matches!(wd, 1 | 2 | 4 | 8) {
        return false;
    }
    if let Some(p) = run_ptr(spans, shared, at, act, space, wd, false, mem) {
        // SAFETY: `run_ptr` checked the 32 lanes' bytes, one run inside one allocation.
        unsafe {
            match wd {
                1 => widen(v, &(p as *const [u8; 32]).read_unaligned()),
                2 => widen(v, &(p as *const [u16; 32]).read_unaligned()),
                4 => widen(v, &(p as *const [u32; 32]).read_unaligned()),
                _ => *v = (p as *const [u64; 32]).read_unaligned(),
            }
        }
        return true;
    }
    let Some(base) = whole_warp(spans, shared, at, act, space, wd, false, mem) else {
        return false;
    };
    for l in lanes(act) {
        // SAFETY: `whole_warp` checked every active lane's access: aligned, inside one live
        // allocation of the current epoch (global: the address is the host address) or
        // inside this CTA's shared memory (`base` + offset).
        let p = lane_ptr(base, at[l]) as *const u8;
        v[l] = unsafe {
            match wd {
                1 => p.read() as u64,
                2 => (p as *const u16).read_unaligned() as u64,
                4 => (p as *const u32).read_unaligned() as u64,
                _ => (p as *const u64).read_unaligned(),
            }
        };
    }
    true
}

/// Zero-extends 32 lanes' values into `v` (a loop the compiler vectorises in place, where
/// `map` built the array on the stack and copied it).
#[inline(always)]
fn widen<T: Copy + Into<u64>>(v: &mut L64, x: &[T; 32]) {
    for (d, s) in v.iter_mut().zip(x) {
        *d = (*s).into();
    }
}

/// A whole-warp `wd`-byte store of the low bytes of `v`, lane by lane in lane order; false
/// (nothing written) when some lane needs the careful path.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn scatter(
    spans: &mut SpanCache,
    shared: &mut [u8],
    at: &L64,
    act: u32,
    space: MemSpace,
    wd: usize,
    v: &L64,
    mem: &AddressSpace,
) -> bool {
    if !matches!(wd, 1 | 2 | 4 | 8) {
        return false;
    }
    if let Some(p) = run_ptr(spans, shared, at, act, space, wd, true, mem) {
        // SAFETY: as in `gather`'s run, and the memory is writable.
        unsafe {
            match wd {
                1 => (p as *mut [u8; 32]).write_unaligned(v.map(|x| x as u8)),
                2 => (p as *mut [u16; 32]).write_unaligned(v.map(|x| x as u16)),
                4 => (p as *mut [u32; 32]).write_unaligned(v.map(|x| x as u32)),
                _ => (p as *mut [u64; 32]).write_unaligned(*v),
            }
        }
        return true;
    }
    let Some(base) = whole_warp(spans, shared, at, act, space, wd, true, mem) else {
        return false;
    };
    for l in lanes(act) {
        // SAFETY: as in `gather`, and the memory is writable.
        let p = lane_ptr(base, at[l]);
        unsafe {
            match wd {
                1 => p.write(v[l] as u8),
                2 => (p as *mut u16).write_unaligned(v[l] as u16),
                4 => (p as *mut u32).write_unaligned(v[l] as u32),
                _ => (p as *mut u64).write_unaligned(v[l]),
            }
        }
    }
    true
}

/// The host pointer of a checked access: a global address is its host address; a shared
/// offset is relative to the CTA's shared memory at `base`.
#[inline(always)]
fn lane_ptr(base: *mut u8, a: u64) -> *mut u8 {
    if base.is_null() {
        a as usize as *mut u8
    } else {
        base.wrapping_add(a as usize)
    }
}

/// The space and address of a generic address, as the reference's `resolve` tells them
/// apart.
#[inline(always)]
fn generic_space(a: u64) -> (MemSpace, u64) {
    if (SHARED_WINDOW..SHARED_WINDOW + SHARED_WINDOW_SIZE).contains(&a) {
        return (MemSpace::Shared, a - SHARED_WINDOW);
    }
    if (LOCAL_WINDOW..LOCAL_WINDOW + LOCAL_WINDOW_SIZE).contains(&a) {
        return (MemSpace::Local, a - LOCAL_WINDOW);
    }
    if param_of_generic(a).is_some() {
        return (MemSpace::Param, a);
    }
    (MemSpace::Global, a)
}

#[inline(always)]
fn bool_bits(op: BoolOp, a: u32, b: u32) -> u32 {
    match op {
        BoolOp::And => a & b,
        BoolOp::Or => a | b,
        BoolOp::Xor => a ^ b,
    }
}

/// What the warp engine knows of an instruction of the kernel before it runs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pre {
    kind: Kind,
    guard: Guard,
}

/// An instruction's guard: none, a predicate register (its index in the predicate bank),
/// or a register of another width (tested for non-zero).
#[derive(Debug, Clone, Copy)]
enum Guard {
    None,
    Pred(u32, bool),
    Other(u32, bool),
}

/// The warp engine's view of a kernel's instructions, made once per launch.
pub(super) fn prepare(f: &FuncCode) -> Vec<Pre> {
    f.code
        .iter()
        .map(|i| Pre {
            kind: lane_kind(&i.exec),
            guard: match i.guard {
                None => Guard::None,
                Some((r, neg)) => match f.reg_slots.get(r as usize) {
                    Some(RegSlot::Pred(p)) => Guard::Pred(*p, neg),
                    _ => Guard::Other(r, neg),
                },
            },
        })
        .collect()
}

/// How the warp engine carries out an instruction at call depth 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Its own lane loops.
    Vector,
    /// The reference's per-thread semantics, lane by lane (no effect on scheduling).
    Lanes,
    /// A reference step of the group (control flow, barriers, calls).
    Step,
    /// A warp collective: the reference's warp semantics at once when every member lane is
    /// here, else a reference step.
    Collective,
    /// `exit`, or `ret` from the kernel: the group's active lanes exit at once.
    Exit,
    /// `bar.sync`/`bar.arrive`/`barrier.sync`: the group's lanes arrive at once when they
    /// name the same valid barrier (and count) and none of them has arrived in the
    /// barrier's current phase already; else a reference step.
    Barrier,
}

#[inline(always)]
fn lane_kind(e: &Exec) -> Kind {
    match e {
        Exec::Mov { .. }
        | Exec::Int { .. }
        | Exec::Float { .. }
        | Exec::Fma { .. }
        | Exec::Selp { .. }
        | Exec::PredOp { .. }
        | Exec::Cvt { .. }
        | Exec::Cvta { .. }
        | Exec::Bra { .. } => Kind::Vector,
        Exec::Ld { ty, ds, .. } if ty.bytes() <= 8 && !ds.is_empty() && ds.len() <= 16 => {
            Kind::Vector
        }
        Exec::St { ty, srcs, .. } if ty.bytes() <= 8 && !srcs.is_empty() && srcs.len() <= 16 => {
            Kind::Vector
        }
        Exec::Ld { .. } | Exec::St { .. } => Kind::Lanes,
        Exec::Mad { sat: false, .. } => Kind::Vector,
        Exec::Setp { cmp, ty, .. } => {
            if matches!(cmp, Cmp::Float(_)) && crate::ops::half::is_half(*ty) {
                Kind::Lanes
            } else {
                Kind::Vector
            }
        }
        Exec::Warp { .. } | Exec::Matrix { .. } => Kind::Collective,
        Exec::Bar { .. } => Kind::Barrier,
        Exec::Exit | Exec::Ret => Kind::Exit,
        Exec::Mad { .. }
        | Exec::Pack { .. }
        | Exec::Unpack { .. }
        | Exec::IntUn { .. }
        | Exec::FloatUn { .. }
        | Exec::Set { .. }
        | Exec::Video(_)
        | Exec::IntX { .. }
        | Exec::Carry { .. }
        | Exec::Half { .. }
        | Exec::Testp { .. }
        | Exec::CvtX { .. }
        | Exec::Nop
        | Exec::Fence
        | Exec::Discard { .. }
        | Exec::Isspacep { .. }
        | Exec::Alloca { .. }
        | Exec::StackSave { .. }
        | Exec::StackRestore { .. }
        | Exec::Atom { .. }
        | Exec::CpAsync { .. }
        | Exec::MBarPending { .. }
        | Exec::Slct { .. }
        | Exec::Mapa { .. }
        | Exec::GetCtaRank { .. } => Kind::Lanes,
        _ => Kind::Step,
    }
}

/// The widest lane-loop build the host runs.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
enum Simd {
    Baseline,
    /// AVX2 and FMA.
    Avx2,
    /// AVX-512 (F, VL, BW, DQ, CD) besides.
    Avx512,
}

/// The host's [`Simd`] (cached). `PTXVM_SIMD=avx2` or `baseline` caps it (to compare the
/// builds; every build gives the same bits).
#[cfg(target_arch = "x86_64")]
fn host_simd() -> Simd {
    use std::sync::OnceLock;
    static SIMD: OnceLock<Simd> = OnceLock::new();
    *SIMD.get_or_init(|| {
        let cap = std::env::var("PTXVM_SIMD").unwrap_or_default();
        let avx2 = is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("lzcnt")
            && is_x86_feature_detected!("popcnt");
        let avx512 = avx2
            && is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx512cd");
        match cap.as_str() {
            "baseline" => Simd::Baseline,
            _ if avx512 && cap != "avx2" => Simd::Avx512,
            _ if avx2 => Simd::Avx2,
            _ => Simd::Baseline,
        }
    })
}
