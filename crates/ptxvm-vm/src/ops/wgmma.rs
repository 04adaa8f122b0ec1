//! `wgmma` (§9.7.15, sm_90a): decoding of `wgmma.fence`/`commit_group`/`wait_group`/
//! `mma_async` (dense and `.sp`: the sparse A is decompressed per warp by
//! `crate::ops::sparse::decompress`), the shared-memory matrix descriptors and their
//! canonical layouts (no swizzle, 32/64/128-byte swizzles; K-major and MN-major), the
//! register fragments of A and D, the arithmetic of one warp's 16 rows of D, the per-warp
//! queue of results in flight, and the static pass that marks the instructions that may
//! touch an accumulator in flight.
//!
//! Execution model (`docs/tensor-cores.md`): each warp of a warpgroup owns 16 rows of the
//! 64-row D tile (warp `w % 4` rows `16 (w % 4) ..`), and with A in registers the same rows
//! of A, so each warp computes its part of D alone, when it issues `mma_async` (A, B and C are
//! read then). The result is held in the warp's queue and written to the registers only by
//! the `wait_group` that completes its group; until then every other instruction naming one
//! of its registers faults (see [`guard_in_flight`]).
//!
//! Total on guest data: every index is in range by construction, addresses are computed in
//! 64-bit arithmetic from fields of at most 18 bits, and the shared-memory reads go through
//! the CTA's bounds-checked window.

use super::tensor::{Acc, Elem};
use crate::program::{DInst, Exec, MatrixOp};
use ptxvm_fp::tensor::{IntType, TcType};
use std::collections::VecDeque;

/// A decoded `wgmma` instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WgOp {
    Fence,
    Commit,
    /// `wait_group N`.
    Wait(u32),
    /// `mma_async` (dense).
    Mma(WgSpec),
}

/// A decoded `wgmma.mma_async` form. Operands of the `Exec::Matrix`: `dsts` D's registers;
/// `srcs` A's four registers or A's descriptor, then B's descriptor, then scale-d.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WgSpec {
    pub n: u16,
    pub k: u16,
    pub a: Elem,
    pub b: Elem,
    pub d: Acc,
    pub satfinite: bool,
    /// A from registers (four `.b32`), else from a descriptor.
    pub a_regs: bool,
    /// `imm-scale-a/b = -1`.
    pub neg_a: bool,
    pub neg_b: bool,
    /// `imm-trans-a/b = 1` (MN-major in shared memory).
    pub trans_a: bool,
    pub trans_b: bool,
    /// D's registers.
    pub nd: u16,
    /// `wgmma.mma_async.sp`: the sparsity selector (`k` is the full K; A holds K/2 columns,
    /// and `srcs` end with the metadata register after scale-d).
    pub sp_sel: Option<u8>,
}

fn elem(m: &str) -> Option<Elem> {
    Some(match m {
        ".f16" => Elem::Float(TcType::F16),
        ".bf16" => Elem::Float(TcType::Bf16),
        ".tf32" => Elem::Float(TcType::Tf32),
        ".e4m3" => Elem::Float(TcType::E4m3),
        ".e5m2" => Elem::Float(TcType::E5m2),
        ".s8" => Elem::Int(IntType::S8),
        ".u8" => Elem::Int(IntType::U8),
        ".b1" => Elem::B1,
        _ => return None,
    })
}

fn elem_name(e: Elem) -> &'static str {
    match e {
        Elem::Float(TcType::F16) => "f16",
        Elem::Float(TcType::Bf16) => "bf16",
        Elem::Float(TcType::Tf32) => "tf32",
        Elem::Float(TcType::E4m3) => "e4m3",
        Elem::Float(TcType::E5m2) => "e5m2",
        Elem::Int(IntType::S8) => "s8",
        Elem::Int(IntType::U8) => "u8",
        Elem::B1 => "b1",
        _ => "?",
    }
}

/// Bits of one element of A or B.
pub fn elem_bits(e: Elem) -> u32 {
    match e {
        Elem::Float(TcType::Tf32) => 32,
        Elem::Float(TcType::F16 | TcType::Bf16) => 16,
        Elem::B1 => 1,
        _ => 8,
    }
}

impl WgOp {
    /// Decodes `wgmma.*` from its modifiers and operand shape: `d_len` D's registers, `a_len`
    /// A's (4 from registers, 0 for a descriptor), and the immediates after scale-d (for
    /// `.sp`, the sparsity selector first). `None`: an inconsistent form.
    pub fn parse(mods: &[&str], d_len: usize, a_len: usize, imms: &[u64]) -> Option<WgOp> {
        let has = |m: &str| mods.contains(&m);
        if has(".fence") {
            return Some(WgOp::Fence);
        }
        if has(".commit_group") {
            return Some(WgOp::Commit);
        }
        if has(".wait_group") {
            let n = *imms.first()?;
            return Some(WgOp::Wait(u32::try_from(n).ok()?));
        }
        if !has(".mma_async") {
            return None;
        }
        let (sp_sel, imms) = if has(".sp") {
            let (sel, rest) = imms.split_first()?;
            (Some(u8::try_from(*sel).ok()?), rest)
        } else {
            (None, imms)
        };
        let (n, k) = mods.iter().find_map(|m| {
            let s = m.strip_prefix(".m64n")?;
            let (n, k) = s.split_once('k')?;
            Some((n.parse::<u16>().ok()?, k.parse::<u16>().ok()?))
        })?;
        let types: Vec<&str> = mods
            .iter()
            .copied()
            .filter(|m| matches!(*m, ".f32" | ".s32") || elem(m).is_some())
            .collect();
        let [dt, at, bt] = types[..] else {
            return None;
        };
        let d = match dt {
            ".f16" => Acc::F16,
            ".f32" => Acc::F32,
            ".s32" => Acc::S32,
            _ => return None,
        };
        let (a, b) = (elem(at)?, elem(bt)?);
        let float = matches!(a, Elem::Float(_));
        // Immediates after scale-d: scale-a, scale-b (floating point), then trans-a (A from a
        // descriptor) and trans-b (f16/bf16).
        let transposable = matches!(a, Elem::Float(TcType::F16 | TcType::Bf16));
        let a_regs = a_len > 0;
        let want = if !float {
            0
        } else if !transposable {
            2
        } else if a_regs {
            3
        } else {
            4
        };
        if imms.len() != want {
            return None;
        }
        let scale = |v: u64| match v as i64 {
            1 => Some(false),
            -1 => Some(true),
            _ => None,
        };
        let flag = |v: u64| match v {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        };
        let (neg_a, neg_b) = if float {
            (scale(imms[0])?, scale(imms[1])?)
        } else {
            (false, false)
        };
        let (trans_a, trans_b) = match (transposable, a_regs) {
            (true, false) => (flag(imms[2])?, flag(imms[3])?),
            (true, true) => (false, flag(imms[2])?),
            _ => (false, false),
        };
        let spec = WgSpec {
            n,
            k,
            a,
            b,
            d,
            satfinite: has(".satfinite"),
            a_regs,
            neg_a,
            neg_b,
            trans_a,
            trans_b,
            nd: d_len as u16,
            sp_sel,
        };
        spec.consistent(a_len).then_some(WgOp::Mma(spec))
    }

    /// The instruction's name for messages.
    pub fn name(&self) -> String {
        match self {
            WgOp::Fence => "wgmma.fence.sync.aligned".into(),
            WgOp::Commit => "wgmma.commit_group.sync.aligned".into(),
            WgOp::Wait(n) => format!("wgmma.wait_group.sync.aligned {n}"),
            WgOp::Mma(s) => s.name(),
        }
    }
}

impl WgSpec {
    fn consistent(&self, a_len: usize) -> bool {
        let k = self.a_k();
        let k_ok = match self.a {
            Elem::Float(TcType::F16 | TcType::Bf16) => k == 16 && self.b == self.a,
            Elem::Float(TcType::Tf32) => k == 8 && self.b == self.a,
            Elem::Float(TcType::E4m3 | TcType::E5m2) => {
                k == 32 && matches!(self.b, Elem::Float(TcType::E4m3 | TcType::E5m2))
            }
            Elem::Int(IntType::S8 | IntType::U8) => {
                k == 32 && matches!(self.b, Elem::Int(IntType::S8 | IntType::U8))
            }
            Elem::B1 => k == 256 && self.b == Elem::B1 && self.sp_sel.is_none(),
            _ => false,
        };
        let d_ok = matches!(
            (self.a, self.d),
            (
                Elem::Float(TcType::F16 | TcType::E4m3 | TcType::E5m2),
                Acc::F16 | Acc::F32
            ) | (Elem::Float(_), Acc::F32)
                | (Elem::Int(_) | Elem::B1, Acc::S32)
        );
        let per_reg = if self.d == Acc::F16 { 4 } else { 2 };
        self.n >= 8
            && self.n <= 256
            && self.n.is_multiple_of(8)
            && k_ok
            && d_ok
            && self.nd as usize * per_reg == self.n as usize
            && (a_len == 0 || a_len == 4)
    }

    /// Columns of A as the instruction reads it: K, or K/2 for the compressed A of `.sp`.
    pub fn a_k(&self) -> u16 {
        if self.sp_sel.is_some() {
            self.k / 2
        } else {
            self.k
        }
    }

    /// The instruction's name for messages.
    pub fn name(&self) -> String {
        let d = match self.d {
            Acc::F16 => "f16",
            Acc::S32 => "s32",
            _ => "f32",
        };
        format!(
            "wgmma.mma_async{}.sync.aligned.m64n{}k{}{}.{d}.{}.{}",
            if self.sp_sel.is_some() { ".sp" } else { "" },
            self.n,
            self.k,
            if self.satfinite { ".satfinite" } else { "" },
            elem_name(self.a),
            elem_name(self.b)
        )
    }

    /// Elements of D per lane (each warp holds 16 x N).
    pub fn d_elems(&self) -> usize {
        self.n as usize / 2
    }
}

/// Where element `i` of a lane's D fragment is in the warp's 16 x N part of D (row, column):
/// the `mma.m16n8` accumulator layout repeated over N / 8 column blocks (PTX ISA "Register
/// Fragments" of wgmma D; CUTLASS `CLayout_64xN`).
pub fn d_pos(lane: usize, i: usize) -> (usize, usize) {
    let (gid, tig) = (lane / 4, lane % 4);
    (gid + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * tig + (i & 1))
}

/// Where element `i` of a lane's A fragment (A from registers) is in the warp's 16 x K part
/// of A (row, k): the `mma.m16n8kK` A layouts (16-bit: k16; tf32: k8; 8-bit: k32; b1: k256).
pub fn a_pos(bits: u32, lane: usize, i: usize) -> (usize, usize) {
    let (gid, tig) = (lane / 4, lane % 4);
    match bits {
        16 => (gid + 8 * ((i >> 1) & 1), 2 * tig + (i & 1) + 8 * (i >> 2)),
        32 => (gid + 8 * (i & 1), tig + 4 * (i >> 1)),
        8 => (gid + 8 * ((i >> 2) & 1), 4 * tig + (i & 3) + 16 * (i >> 3)),
        _ => (
            gid + 8 * ((i >> 5) & 1),
            32 * tig + (i & 31) + 128 * (i >> 6),
        ),
    }
}

/// A shared-memory matrix descriptor (PTX ISA "Matrix Descriptor Format").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Desc {
    /// Start address, leading and stride dimension byte offsets (bytes, 16-byte multiples).
    pub start: u64,
    pub lbo: u64,
    pub sbo: u64,
    /// Bits 51–49.
    pub base_offset: u32,
    /// Swizzle width in 16-byte units: 1 (none), 2 (32 B), 4 (64 B), 8 (128 B).
    pub w: u64,
    /// `tcgen05`'s 128-byte swizzle with 32-byte atoms (descriptor swizzle mode 1, `w` = 8;
    /// never set for `wgmma`): CUTLASS's `SWIZZLE_128B_BASE32B`, MN-major only, blocks of 4
    /// rows of 128 bytes along K (`locate`).
    pub atom32: bool,
}

impl Desc {
    pub fn decode(d: u64) -> Desc {
        Desc {
            start: (d & 0x3fff) << 4,
            lbo: ((d >> 16) & 0x3fff) << 4,
            sbo: ((d >> 32) & 0x3fff) << 4,
            base_offset: ((d >> 49) & 7) as u32,
            w: match d >> 62 {
                1 => 8,
                2 => 4,
                3 => 2,
                _ => 1,
            },
            atom32: false,
        }
    }

    /// The swizzle mode's name.
    pub fn swizzle_name(&self) -> &'static str {
        if self.atom32 {
            return "128-byte swizzle with 32-byte atoms";
        }
        match self.w {
            8 => "128-byte swizzle",
            4 => "64-byte swizzle",
            2 => "32-byte swizzle",
            _ => "no swizzle",
        }
    }

    /// The descriptor's rules: with a swizzle and base offset 0 the repeating pattern starts at
    /// a boundary of 8 rows of the swizzle width (1024/512/256 bytes), so the start address's
    /// bits 7.. below that boundary are 0. A non-zero base offset (a pattern starting
    /// elsewhere) is not modelled.
    pub fn check(&self) -> Result<(), (bool, String)> {
        if self.w == 1 {
            return Ok(());
        }
        if self.base_offset != 0 {
            return Err((
                false,
                format!(
                    "a matrix descriptor with a non-zero base offset ({}) is not supported: ptxvm models swizzle patterns that start at their {}-byte boundary",
                    self.base_offset,
                    128 * self.w
                ),
            ));
        }
        // The 32-byte-atom pattern repeats every 4 rows of 128 bytes.
        let rows = if self.atom32 { 4 } else { self.w };
        if (self.start >> 7) & (rows - 1) != 0 {
            return Err((
                true,
                format!(
                    "matrix descriptor: start address {:#x} with the {} and base offset 0 must lie in the first 128 bytes of a {}-byte boundary (Matrix Descriptor Format: the repeating pattern starts there, or the base offset gives its phase)",
                    self.start,
                    self.swizzle_name(),
                    128 * rows
                ),
            ));
        }
        Ok(())
    }

    /// The shared address of the 16-byte chunk holding element (`mn`, `k`) of a matrix of
    /// `bits`-bit elements, and the element's bit offset in the chunk. K-major (`!mn_major`):
    /// the canonical layouts `((8,m),(T,2))` with strides `((1T,SBO),(1,LBO))` (no swizzle) or
    /// `((W T,SBO),(1,T))` (swizzle of W 16-byte units), T = 128 / bits elements per 16 bytes;
    /// MN-major: `((T,1,m),(8,k))` with `((1,T,SBO),(1T,LBO))` (no swizzle) or `((T,W,m),(8,k))`
    /// with `((1,T,LBO),(W T,SBO))`. The swizzle then exchanges address bits 4.. with bits 7..
    /// (log2 W of them).
    pub fn locate(&self, mn_major: bool, bits: u32, mn: usize, k: usize) -> (u64, u32) {
        let t = (128 / bits) as usize;
        let (mn, k) = (mn as u64, k as u64);
        let t64 = t as u64;
        let (off, bit) = if !mn_major {
            let (kk, within) = (k / t64, (k % t64) * bits as u64);
            let off = if self.w == 1 {
                (mn % 8) * 16 + (mn / 8) * self.sbo + kk * self.lbo
            } else {
                (mn % 8) * 16 * self.w + (mn / 8) * self.sbo + kk * 16
            };
            (off, within)
        } else {
            let (chunk, within) = (mn / t64, (mn % t64) * bits as u64);
            // 8 rows (4 with 32-byte atoms) of the swizzle width along K per SBO step.
            let (kr, kg) = if self.atom32 {
                (k % 4, k / 4)
            } else {
                (k % 8, k / 8)
            };
            let off = if self.w == 1 {
                chunk * self.sbo + kr * 16 + kg * self.lbo
            } else {
                (chunk % self.w) * 16
                    + (chunk / self.w) * self.lbo
                    + kr * 16 * self.w
                    + kg * self.sbo
            };
            (off, within)
        };
        let mut a = self.start + off;
        if self.atom32 {
            a ^= ((a >> 7) & 3) << 5;
        } else if self.w > 1 {
            a ^= ((a >> 7) & (self.w - 1)) << 4;
        }
        (a, bit as u32)
    }
}

/// Results of one `mma_async` not yet written: D's registers and, per register, the 32
/// lanes' values; the call depth of the frame they belong to, and the PTX line.
#[derive(Debug, Clone)]
pub struct Pending {
    pub line: u32,
    pub depth: usize,
    pub regs: Vec<u32>,
    pub vals: Vec<[u64; 32]>,
}

/// Most wgmma-groups a warp may have in flight.
pub const MAX_GROUPS: usize = 1 << 16;

/// Most `wgmma` instructions one warp of a warpgroup may be ahead of another (the record of
/// the ones the slowest has not executed yet is bounded by it).
pub const MAX_LAG: usize = 1 << 20;

/// One warp's `mma_async` results in flight: the uncommitted ones and the committed groups
/// (oldest first). A register is held by at most one entry (a later `mma_async` writing it
/// takes it over, since its value would be overwritten at the later completion anyway).
#[derive(Debug, Clone, Default)]
pub struct WarpQueue {
    pub open: Vec<Pending>,
    pub groups: VecDeque<Vec<Pending>>,
    /// The registers held, with the entry's line (a register id indexes it).
    pub held: Vec<Option<u32>>,
    /// Number of registers held.
    pub nheld: usize,
}

impl WarpQueue {
    /// The line of the `mma_async` whose result register `r` is waiting for, if any.
    #[inline]
    pub fn holds(&self, r: u32) -> Option<u32> {
        if self.nheld == 0 {
            return None;
        }
        self.held.get(r as usize).copied().flatten()
    }

    /// The call depth of the results in flight (all have the same).
    pub fn depth(&self) -> Option<usize> {
        self.open
            .iter()
            .chain(self.groups.iter().flatten())
            .map(|p| p.depth)
            .next()
    }

    /// The pending value of register `r` in `lane`.
    pub fn value(&self, r: u32, lane: usize) -> Option<u64> {
        self.holds(r)?;
        for p in self
            .open
            .iter()
            .rev()
            .chain(self.groups.iter().rev().flatten())
        {
            if let Some(j) = p.regs.iter().position(|&x| x == r) {
                return Some(p.vals[j][lane]);
            }
        }
        None
    }

    /// Adds an uncommitted result; earlier entries give up its registers.
    pub fn push(&mut self, p: Pending) {
        let taken = |x: &u32| p.regs.contains(x);
        for q in self.open.iter_mut().chain(self.groups.iter_mut().flatten()) {
            if q.regs.iter().any(taken) {
                let (mut regs, mut vals) = (Vec::new(), Vec::new());
                for (r, v) in q.regs.iter().zip(&q.vals) {
                    if !taken(r) {
                        regs.push(*r);
                        vals.push(*v);
                    }
                }
                q.regs = regs;
                q.vals = vals;
            }
        }
        self.open.retain(|q| !q.regs.is_empty());
        for g in self.groups.iter_mut() {
            g.retain(|q| !q.regs.is_empty());
        }
        for &r in &p.regs {
            let i = r as usize;
            if self.held.len() <= i {
                self.held.resize(i + 1, None);
            }
            if self.held[i].is_none() {
                self.nheld += 1;
            }
            self.held[i] = Some(p.line);
        }
        self.open.push(p);
    }

    /// `commit_group`: the uncommitted results become the newest group (possibly empty);
    /// empty groups older than every non-empty one are dropped (a wait never writes them).
    /// `false` when the warp would have more than [`MAX_GROUPS`] groups.
    pub fn commit(&mut self) -> bool {
        let g = std::mem::take(&mut self.open);
        self.groups.push_back(g);
        while self.groups.front().is_some_and(|g| g.is_empty()) {
            self.groups.pop_front();
        }
        self.groups.len() <= MAX_GROUPS
    }

    /// `wait_group n`: removes and returns the results of every group but the newest `n`,
    /// oldest first.
    pub fn wait(&mut self, n: usize) -> Vec<Pending> {
        let mut out = Vec::new();
        while self.groups.len() > n {
            if let Some(g) = self.groups.pop_front() {
                out.extend(g);
            }
        }
        for p in &out {
            for &r in &p.regs {
                if let Some(h) = self.held.get_mut(r as usize)
                    && h.take().is_some()
                {
                    self.nheld -= 1;
                }
            }
        }
        out
    }
}

/// The record of one warpgroup's `wgmma` instructions, to check that its four warps execute
/// the same sequence (`.sync.aligned`): the instructions (function, PC, descriptors and
/// scale-d of `mma_async`) from the first one some warp has not executed yet.
#[derive(Debug, Clone, Default)]
pub struct GroupLog {
    pub base: u64,
    pub entries: VecDeque<LogEntry>,
    /// Per warp of the warpgroup: `wgmma` instructions executed.
    pub count: [u64; 4],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogEntry {
    pub func: u32,
    pub pc: u32,
    pub line: u32,
    /// Descriptors and scale-d of an `mma_async` (0 otherwise).
    pub operands: [u64; 3],
}

/// The `wgmma` state of a CTA: per warp its queue, per warpgroup its log.
#[derive(Debug, Clone, Default)]
pub struct CtaWgmma {
    pub warps: Vec<WarpQueue>,
    pub groups: Vec<GroupLog>,
}

impl GroupLog {
    /// Records that warp `wi` (0..4 within the warpgroup) executes `e`; `Err` with the entry
    /// another warp executed at the same position when they differ, or `Err(None)` when the
    /// record would exceed [`MAX_LAG`].
    pub fn record(&mut self, wi: usize, e: LogEntry) -> Result<(), Option<LogEntry>> {
        let n = self.count[wi];
        let idx = n.saturating_sub(self.base) as usize;
        match self.entries.get(idx) {
            Some(other) if *other != e => return Err(Some(*other)),
            Some(_) => {}
            None if self.entries.len() >= MAX_LAG => return Err(None),
            None => self.entries.push_back(e),
        }
        self.count[wi] = n + 1;
        let lowest = self.count.iter().copied().min().unwrap_or(0);
        while self.base < lowest && self.entries.pop_front().is_some() {
            self.base += 1;
        }
        Ok(())
    }
}

/// Marks the instructions of a function that may name a register of an `mma_async` result
/// still in flight: a forward dataflow over the code (the accumulators of the uncommitted
/// `mma_async`s and of each committed group, newest first; `commit_group` opens a group,
/// `wait_group N` keeps the newest N), path-insensitive and so a superset of what can happen.
/// Every marked instruction other than a branch, `ret`/`exit`/`trap` or a `wgmma` is wrapped
/// in [`Exec::WgmmaChecked`], whose execution (in every engine: none compiles or vectorises
/// it) faults when the warp's queue holds a register it names. Code without `mma_async` is
/// left as it is (`false`: it has no `mma_async`).
pub fn guard_in_flight(code: &mut [DInst]) -> bool {
    let n = code.len();
    // The accumulator registers, numbered densely.
    let mut ids: Vec<u32> = Vec::new();
    for i in code.iter() {
        if let Exec::Matrix {
            op: MatrixOp::Wgmma(WgOp::Mma(_)),
            dsts,
            ..
        } = &i.exec
        {
            for d in dsts {
                if let crate::program::Dst::Reg(r) = d {
                    ids.push(*r);
                }
            }
        }
    }
    if ids.is_empty() {
        return false;
    }
    ids.sort_unstable();
    ids.dedup();
    let words = ids.len().div_ceil(64);
    let bit = |r: u32| ids.binary_search(&r).ok();
    // State: [open, group 0 (newest), group 1, ...], each `words` words; the depth is capped
    // (older groups merge into the last).
    const DEPTH: usize = 8;
    type State = Vec<Vec<u64>>;
    let empty = || vec![0u64; words];
    let join = |a: &mut State, b: &State| -> bool {
        let mut changed = false;
        while a.len() < b.len() {
            a.push(vec![0u64; words]);
            changed = true;
        }
        for (x, y) in a.iter_mut().zip(b) {
            for (p, q) in x.iter_mut().zip(y) {
                let v = *p | *q;
                changed |= v != *p;
                *p = v;
            }
        }
        changed
    };
    let transfer = |i: &DInst, s: &State| -> State {
        let mut s = s.clone();
        if let Exec::Matrix {
            op: MatrixOp::Wgmma(op),
            dsts,
            ..
        } = &i.exec
        {
            match op {
                WgOp::Mma(_) => {
                    for d in dsts {
                        if let crate::program::Dst::Reg(r) = d
                            && let Some(b) = bit(*r)
                        {
                            s[0][b / 64] |= 1 << (b % 64);
                        }
                    }
                }
                WgOp::Commit => {
                    let open = std::mem::replace(&mut s[0], empty());
                    s.insert(1, open);
                    if s.len() > DEPTH + 1
                        && let Some(last) = s.pop()
                        && let Some(prev) = s.last_mut()
                    {
                        for (p, q) in prev.iter_mut().zip(last) {
                            *p |= q;
                        }
                    }
                }
                WgOp::Wait(k) => s.truncate(1 + *k as usize),
                WgOp::Fence => {}
            }
        }
        s
    };
    let succs = |pc: usize| -> Vec<usize> {
        let i = &code[pc];
        let mut v: Vec<usize> = match &i.exec {
            Exec::Bra { target } => vec![*target as usize],
            Exec::BrxIdx { targets, .. } => targets.iter().map(|&t| t as usize).collect(),
            Exec::Ret | Exec::Exit | Exec::Trap => Vec::new(),
            _ => vec![pc + 1],
        };
        if i.guard.is_some() {
            v.push(pc + 1);
        }
        v.retain(|&t| t < n);
        v
    };
    let mut ins: Vec<Option<State>> = vec![None; n];
    if n == 0 {
        return true;
    }
    ins[0] = Some(vec![empty()]);
    let mut work: Vec<usize> = vec![0];
    let mut queued = vec![false; n];
    queued[0] = true;
    while let Some(pc) = work.pop() {
        queued[pc] = false;
        let Some(s) = ins[pc].clone() else { continue };
        let out = transfer(&code[pc], &s);
        for t in succs(pc) {
            let changed = match &mut ins[t] {
                Some(x) => join(x, &out),
                slot @ None => {
                    *slot = Some(out.clone());
                    true
                }
            };
            if changed && !queued[t] {
                queued[t] = true;
                work.push(t);
            }
        }
    }
    for (pc, i) in code.iter_mut().enumerate() {
        let Some(s) = &ins[pc] else { continue };
        let mut any = vec![0u64; words];
        for x in s {
            for (p, q) in any.iter_mut().zip(x) {
                *p |= q;
            }
        }
        if any.iter().all(|&w| w == 0) {
            continue;
        }
        match &i.exec {
            Exec::Bra { .. }
            | Exec::BrxIdx { .. }
            | Exec::Ret
            | Exec::Exit
            | Exec::Trap
            | Exec::WgmmaChecked(_)
            | Exec::Matrix {
                op: MatrixOp::Wgmma(_),
                ..
            } => continue,
            _ => {}
        }
        let mut hit = false;
        i.exec.each_reg(&mut |r| {
            if let Some(b) = bit(r) {
                hit |= any[b / 64] >> (b % 64) & 1 == 1;
            }
        });
        if hit {
            let inner = DInst {
                exec: std::mem::replace(&mut i.exec, Exec::Nop),
                guard: None,
                line: i.line,
                loc: i.loc,
            };
            i.exec = Exec::WgmmaChecked(Box::new(inner));
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(line: u32, regs: &[u32], v: u64) -> Pending {
        Pending {
            line,
            depth: 1,
            regs: regs.to_vec(),
            vals: regs.iter().map(|_| [v; 32]).collect(),
        }
    }

    #[test]
    fn queue_groups_wait_and_takeover() {
        let mut q = WarpQueue::default();
        q.push(pending(1, &[10, 11], 1));
        assert!(q.commit());
        q.push(pending(2, &[20], 2));
        q.push(pending(3, &[20, 21], 3)); // takes %20 over from line 2
        assert!(q.commit());
        q.push(pending(4, &[10], 4)); // takes %10 over from group 1
        assert_eq!(q.holds(10), Some(4));
        assert_eq!(q.holds(20), Some(3));
        assert_eq!(q.value(20, 5), Some(3));
        assert_eq!(q.depth(), Some(1));
        // wait_group 1: group 1 completes (%11 only: %10 belongs to the uncommitted line 4).
        let done = q.wait(1);
        let regs: Vec<u32> = done.iter().flat_map(|p| p.regs.clone()).collect();
        assert_eq!(regs, vec![11]);
        assert_eq!(q.holds(11), None);
        assert_eq!(q.holds(10), Some(4));
        // wait_group 0 completes group 2; the uncommitted result stays in flight.
        let done = q.wait(0);
        let regs: Vec<u32> = done.iter().flat_map(|p| p.regs.clone()).collect();
        assert_eq!(regs, vec![20, 21]);
        assert_eq!(q.nheld, 1);
        assert!(q.commit());
        assert_eq!(q.wait(0).len(), 1);
        assert_eq!(q.nheld, 0);
        assert_eq!(q.depth(), None);
    }

    #[test]
    fn empty_groups_count_and_old_ones_are_dropped() {
        let mut q = WarpQueue::default();
        q.push(pending(1, &[1], 1));
        assert!(q.commit());
        assert!(q.commit()); // an empty group, newer than the first
        assert_eq!(q.wait(1).len(), 1); // completes the first
        for _ in 0..10 {
            assert!(q.commit());
        }
        assert!(
            q.groups.is_empty(),
            "empty groups older than any result are dropped"
        );
    }

    #[test]
    fn group_log_compares_warps() {
        let e = |pc| LogEntry {
            func: 0,
            pc,
            line: pc,
            operands: [0; 3],
        };
        let mut g = GroupLog::default();
        assert!(g.record(0, e(1)).is_ok());
        assert!(g.record(1, e(1)).is_ok());
        assert_eq!(g.record(2, e(2)), Err(Some(e(1))));
        for w in 2..4 {
            assert!(g.record(w, e(1)).is_ok());
        }
        assert!(
            g.entries.is_empty(),
            "entries every warp passed are dropped"
        );
        assert_eq!(g.base, 1);
    }

    #[test]
    fn descriptors_are_total() {
        // Any descriptor bits: decode, check and locate never panic, and addresses stay within
        // the 18-bit fields' reach.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let d = Desc::decode(x);
            let _ = d.check();
            for &bits in &[1u32, 8, 16, 32] {
                for mn_major in [false, true] {
                    for (mn, k) in [(0, 0), (255, 255), (63, 31), (7, 15)] {
                        let (a, b) = d.locate(mn_major, bits, mn, k);
                        assert!(a < 1 << 32, "{a:#x}");
                        assert!(b < 128);
                    }
                }
            }
        }
    }

    #[test]
    fn swizzle_exchanges_bits_4_and_7() {
        // 128-byte swizzle, K-major f16: row r of an 8-row atom starts at 128 r, its 16-byte
        // chunk c lands at chunk c ^ r.
        let d = Desc::decode(1 << 62 | (1024 >> 4) << 32);
        for r in 0..8usize {
            for c in 0..2usize {
                let (a, _) = d.locate(false, 16, r, 8 * c);
                assert_eq!(a, (128 * r + 16 * (c ^ r)) as u64);
            }
        }
        assert!(Desc::decode(1 << 62 | 8).check().is_err());
        assert!(Desc::decode(1 << 62 | 2).check().is_ok());
    }

    #[test]
    fn parse_forms() {
        let p = |m: &[&str], d, a, i: &[u64]| WgOp::parse(m, d, a, i);
        let f16 = [
            ".mma_async",
            ".sync",
            ".aligned",
            ".m64n8k16",
            ".f32",
            ".f16",
            ".f16",
        ];
        assert!(matches!(p(&f16, 4, 0, &[1, 1, 0, 0]), Some(WgOp::Mma(_))));
        assert!(
            matches!(p(&f16, 4, 4, &[1, u64::MAX, 1]), Some(WgOp::Mma(s)) if s.neg_b && s.trans_b && s.a_regs)
        );
        assert!(
            p(&f16, 4, 0, &[2, 1, 0, 0]).is_none(),
            "imm-scale must be +-1"
        );
        assert!(p(&f16, 3, 0, &[1, 1, 0, 0]).is_none(), "N/2 f32 registers");
        let b1 = [
            ".mma_async",
            ".m64n8k256",
            ".s32",
            ".b1",
            ".b1",
            ".and",
            ".popc",
        ];
        assert!(matches!(p(&b1, 4, 0, &[]), Some(WgOp::Mma(_))));
        let sp = [".mma_async", ".sp", ".m64n8k32", ".f32", ".f16", ".f16"];
        assert!(p(&sp, 4, 0, &[1, 1, 0, 0]).is_none(), ".sp is not run");
        assert_eq!(p(&[".wait_group"], 0, 0, &[3]), Some(WgOp::Wait(3)));
    }
}
