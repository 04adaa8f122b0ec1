//! Decoding: turns a checked IR module into a [`Program`] — per function, a vector of
//! compact, pre-resolved instructions ([`DInst`]) the executor runs without looking at
//! names, strings or the AST. Variables get their final locations here (global addresses,
//! shared/local/param offsets).
//!
//! Invariant: decoding never fails on a checked module. Instruction forms the interpreter
//! does not implement decode to [`Exec::Unsupported`], which faults loudly (naming the
//! instruction, line and kernel) only if it is executed.

use crate::memory::{AddressSpace, AllocKind};
use ptxvm_ir::ir::{self, Base, FuncKind, Op, VarRef};
use ptxvm_ir::types::{Class, Space, Type};
use std::collections::HashMap;

/// A source operand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Src {
    Reg(u32),
    Imm(u64),
    /// A special register: index into [`ptxvm_ir::ir::SREGS`] (or the `%pm`/`%envreg` ids) and
    /// component.
    SReg(u16, u8),
    /// A predicate register, possibly negated.
    Pred(u32, bool),
    /// The address of a variable in its own space, plus an offset (resolved per frame).
    Var(VarLoc, i64),
}

/// A destination operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dst {
    Reg(u32),
    Sink,
}

/// Where a variable lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarLoc {
    /// Global or const memory at this device address.
    Global(u64),
    /// A shared variable: its slot in the module's list of shared variables, placed by the
    /// launched kernel's layout ([`FuncCode::shared_layout`]); [`DYN_SHARED`] is the dynamic
    /// shared memory (`.extern .shared` arrays).
    Shared(u32),
    /// Offset in the current frame's local memory.
    Local(u32),
    /// Offset in the kernel parameter buffer.
    KernelParam(u32),
    /// Offset in the current frame's parameter area (a function's own parameters, its
    /// return parameters and the `.param` variables it declares for calls).
    FrameParam(u32),
}

/// The shared slot of dynamic shared memory.
pub const DYN_SHARED: u32 = u32::MAX;

/// An address operand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Addr {
    /// Register plus offset, interpreted in the instruction's space.
    Reg(u32, i64),
    /// An absolute address in the instruction's space.
    Abs(i64),
    /// A variable plus offset.
    Var(VarLoc, i64),
}

/// The state space an instruction accesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemSpace {
    Generic,
    Global,
    Shared,
    Local,
    Const,
    Param,
}

/// Integer binary operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntOp {
    Add,
    Sub,
    MulLo,
    MulHi,
    MulWide,
    Div,
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    AddSat,
    SubSat,
}

/// Integer unary operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntUn {
    Not,
    Cnot,
    Neg,
    Abs,
    Popc,
    Clz,
    Brev,
}

/// Floating-point binary operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FOp {
    Add,
    Sub,
    Mul,
    Div,
    DivFull,
    DivApprox,
    Min,
    Max,
    Copysign,
}

/// Floating-point unary operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FUn {
    Neg,
    Abs,
    Sqrt,
    SqrtApprox,
    Rcp,
    RcpApprox,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
}

/// A comparison (`setp`/`set`) on integers or floats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Int(ptxvm_fp::arith::CmpOp, bool),
    Float(ptxvm_fp::arith::CmpOp),
}

/// Predicate combining (`.and`, `.or`, `.xor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

/// Atomic operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomOp {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
    Exch,
    Cas,
}

pub use crate::ops::half::{HMods, HOp};
pub use crate::ops::int::{CarryOp, Packed, PrmtMode};
pub use crate::ops::video::Video;

/// `mbarrier` operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MBarOp {
    Init,
    Inval,
    /// Arrive-on with a count (`a`; 1 when absent); `drop` is `arrive_drop`.
    Arrive {
        drop: bool,
        no_complete: bool,
    },
    /// `arrive.expect_tx`/`arrive_drop.expect_tx`: expect `a` bytes, then arrive once.
    ArriveTx {
        drop: bool,
    },
    ExpectTx,
    CompleteTx,
    /// `test_wait`/`try_wait` (try_wait returns at once: a legal time-out).
    Wait {
        parity: bool,
    },
    /// `cp.async.mbarrier.arrive`: the copies are already complete; `.noinc` arrives,
    /// otherwise the increment and the arrival cancel out.
    CpAsyncArrive {
        noinc: bool,
    },
}

/// A decoded video instruction: its spec and plain operands (`c` is `Imm(0)` when absent).
#[derive(Debug, Clone, PartialEq)]
pub struct VideoInst {
    pub v: Video,
    pub d: Dst,
    pub a: Src,
    pub b: Src,
    pub c: Src,
}

/// The less common pure integer operations (sources in `Exec::IntX::s`, in operand order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntX {
    Mul24 { hi: bool },
    Mad24 { hi: bool, sat: bool },
    Sad,
    Bfe,
    Bfi,
    Bfind { shiftamt: bool },
    Fns,
    Szext { clamp: bool },
    Bmsk { clamp: bool },
    Prmt(Option<PrmtMode>),
    Lop3,
    Shf { left: bool, clamp: bool },
    Dp4a { sa: bool, sb: bool },
    Dp2a { hi: bool, sa: bool, sb: bool },
    Packed { op: Packed, relu: bool },
    MinMaxRelu { max: bool },
}

/// `cvt` forms with packed or narrow operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CvtX {
    /// `cvt.frnd2{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b`.
    Half2F32 {
        bf: bool,
        rnd: ptxvm_fp::Rnd,
        relu: bool,
        satfinite: bool,
    },
    /// `cvt.*.tf32.f32 d, a`.
    Tf32 {
        rnd: ptxvm_fp::Rnd,
        relu: bool,
        satfinite: bool,
    },
    /// `cvt.rn.satfinite{.relu}.<narrow>x2.f32 d, a, b`.
    NarrowF32 {
        ty: ptxvm_fp::convert::NarrowType,
        relu: bool,
    },
    /// `cvt.rn.satfinite{.relu}.<narrow>x2.f16x2 d, a`.
    NarrowF16x2 {
        ty: ptxvm_fp::convert::NarrowType,
        relu: bool,
    },
    /// `cvt.rn{.relu}.f16x2.<narrow>x2 d, a`.
    F16x2Narrow {
        ty: ptxvm_fp::convert::NarrowType,
        relu: bool,
    },
    /// `cvt.frnd3{.satfinite}.ue8m0x2.f32 d, a, b`.
    Ue8m0F32 { rnd: ptxvm_fp::Rnd, satfinite: bool },
    /// `cvt.frnd3{.satfinite}.ue8m0x2.bf16x2 d, a`.
    Ue8m0Bf16x2 { rnd: ptxvm_fp::Rnd, satfinite: bool },
    /// `cvt.rn.bf16x2.ue8m0x2 d, a`.
    Bf16x2Ue8m0,
    /// `cvt.pack.sat.{u16,s16}.s32 d, a, b`.
    PackSat16 { signed: bool },
    /// `cvt.pack.sat.{u2,s2,u4,s4,u8,s8}.s32.b32 d, a, b, c`.
    PackSat { size: u32, signed: bool },
}

/// Warp-level collective operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarpOp {
    /// `activemask.b32 d`.
    ActiveMask,
    /// `bar.warp.sync membermask`.
    Sync,
    /// `vote{.sync}.all.pred`.
    VoteAll,
    /// `vote{.sync}.any.pred`.
    VoteAny,
    /// `vote{.sync}.uni.pred`.
    VoteUni,
    /// `vote{.sync}.ballot.b32`.
    Ballot,
    /// `shfl{.sync}.{up,down,bfly,idx}.b32 d[|p], a, b, c`.
    Shfl(ShflMode),
    /// `match.any.sync.{b32,b64}`.
    MatchAny,
    /// `match.all.sync.{b32,b64} d[|p]`.
    MatchAll,
    /// `redux.sync.op.type`.
    Redux(ReduxOp),
    /// `elect.sync d|p`.
    Elect,
}

/// The warp-collective matrix movements (`.sync.aligned`, the whole warp takes part).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixOp {
    /// `ldmatrix.sync.aligned.m8n8.xN{.trans}.b16`: N 8x8 matrices of 16-bit elements from
    /// shared memory; lane `8m+r` gives the address of row `r` of matrix `m`.
    Ld { n: u8, trans: bool },
    /// `stmatrix.sync.aligned.m8n8.xN{.trans}.b16`: the inverse store.
    St { n: u8, trans: bool },
    /// `movmatrix.sync.aligned.m8n8.trans.b16`: transposes an 8x8 fragment across the warp.
    MovTrans,
    /// `mma.sync.aligned` (dense): `srcs` are A's, B's and C's registers in order, `dsts`
    /// D's (`crate::ops::tensor`).
    Mma(crate::ops::tensor::MmaSpec),
    /// `wmma.load.{a,b,c}`: `dsts` the fragment, `srcs` the optional stride.
    WmmaLoad(crate::ops::tensor::WmmaMove),
    /// `wmma.store.d`: `srcs` the fragment then the optional stride.
    WmmaStore(crate::ops::tensor::WmmaMove),
    /// `wmma.mma`: `srcs` A's, B's and C's registers, `dsts` D's.
    WmmaMma(crate::ops::tensor::WmmaMma),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduxOp {
    Add,
    Min {
        signed: bool,
    },
    Max {
        signed: bool,
    },
    And,
    Or,
    Xor,
    /// `.min/.max{.abs}{.NaN}.f32`.
    FMin {
        abs: bool,
        nan: bool,
    },
    FMax {
        abs: bool,
        nan: bool,
    },
}

/// `bar.red` operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarRedOp {
    Popc,
    And,
    Or,
}

/// External functions the interpreter provides for `call`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    Vprintf,
    AssertFail,
    Malloc,
    Free,
}

impl Builtin {
    /// The builtin an external function name stands for.
    pub fn named(name: &str) -> Option<Builtin> {
        Some(match name {
            "vprintf" => Builtin::Vprintf,
            "__assertfail" => Builtin::AssertFail,
            "malloc" => Builtin::Malloc,
            "free" => Builtin::Free,
            _ => return None,
        })
    }
}

/// A decoded instruction's action.
#[derive(Debug, Clone, PartialEq)]
pub enum Exec {
    /// Copy `bits` bits.
    Mov {
        d: Dst,
        a: Src,
        bits: u32,
    },
    /// `mov.b64 d, {a, b}`: pack parts of `bits` each, first part lowest.
    Pack {
        d: Dst,
        parts: Vec<Src>,
        bits: u32,
    },
    /// `mov.b64 {a, b}, s`: unpack.
    Unpack {
        ds: Vec<Dst>,
        a: Src,
        bits: u32,
    },
    Int {
        op: IntOp,
        ty: Type,
        d: Dst,
        a: Src,
        b: Src,
    },
    IntUn {
        op: IntUn,
        ty: Type,
        d: Dst,
        a: Src,
    },
    /// `mad.lo/hi/wide` (with `.sat` for `.hi.s32`).
    Mad {
        mode: IntOp,
        ty: Type,
        sat: bool,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Float {
        op: FOp,
        ty: Type,
        rnd: ptxvm_fp::Rnd,
        ftz: bool,
        sat: bool,
        nan: bool,
        /// `.xorsign.abs` of `min`/`max`.
        xorsign: bool,
        d: Dst,
        a: Src,
        b: Src,
    },
    FloatUn {
        op: FUn,
        ty: Type,
        rnd: ptxvm_fp::Rnd,
        ftz: bool,
        d: Dst,
        a: Src,
    },
    Fma {
        ty: Type,
        rnd: ptxvm_fp::Rnd,
        ftz: bool,
        sat: bool,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Setp {
        cmp: Cmp,
        ty: Type,
        ftz: bool,
        p: Dst,
        q: Dst,
        a: Src,
        b: Src,
        bop: Option<(BoolOp, Src)>,
    },
    /// `set`: like `setp` with an integer or float result.
    Set {
        cmp: Cmp,
        ty: Type,
        dty: Type,
        ftz: bool,
        d: Dst,
        a: Src,
        b: Src,
        bop: Option<(BoolOp, Src)>,
    },
    Selp {
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
        bits: u32,
    },
    /// Predicate logic: `and/or/xor/not.pred`.
    PredOp {
        op: Option<BoolOp>,
        d: Dst,
        a: Src,
        b: Src,
    },
    Cvt {
        dty: Type,
        aty: Type,
        rnd: Option<ptxvm_fp::Rnd>,
        irnd: Option<ptxvm_fp::Rnd>,
        sat: bool,
        ftz: bool,
        relu: bool,
        satfinite: bool,
        d: Dst,
        a: Src,
    },
    Cvta {
        to: bool,
        space: MemSpace,
        d: Dst,
        a: Src,
        addr: Option<Addr>,
    },
    Ld {
        space: MemSpace,
        ty: Type,
        ds: Vec<Dst>,
        addr: Addr,
    },
    St {
        space: MemSpace,
        ty: Type,
        srcs: Vec<Src>,
        addr: Addr,
    },
    Atom {
        space: MemSpace,
        op: AtomOp,
        ty: Type,
        d: Dst,
        addr: Addr,
        b: Src,
        c: Src,
    },
    Bra {
        target: u32,
    },
    /// `brx.idx`: jump to the `index`-th target (out of range faults).
    BrxIdx {
        index: Src,
        targets: Vec<u32>,
    },
    /// `slct`: `d = c >= 0 ? a : b` (`c` an `.s32`, or an `.f32` with optional `.ftz`).
    Slct {
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
        bits: u32,
        float_c: bool,
        ftz: bool,
    },
    Ret,
    Exit,
    Trap,
    /// `brkpt`: suspends the thread at a breakpoint (a launch fault without a debugger).
    Brkpt,
    Bar {
        id: Src,
        count: Option<Src>,
        arrive: bool,
    },
    /// `membar`/`fence`: no-ops for the sequential interpreter.
    Fence,
    /// `cp.async` (non-bulk): copy `size` bytes global → shared, of which only `src_size`
    /// (when given) are read and the rest zero-filled; `ignore` (a predicate) reads none.
    /// The copy completes at once, which satisfies every `wait_group`/`wait_all`.
    CpAsync {
        dst: Addr,
        src: Addr,
        size: u32,
        src_size: Option<Src>,
        ignore: Option<Src>,
    },
    /// `call`: callee function index, argument and return variable locations.
    Call {
        func: u32,
        args: Vec<VarLoc>,
        rets: Vec<VarLoc>,
    },
    /// `call` through a register holding a function address (see [`crate::memory::FUNC_BASE`]).
    CallIndirect {
        target: Src,
        args: Vec<VarLoc>,
        rets: Vec<VarLoc>,
    },
    /// An `mbarrier` operation (or `cp.async.mbarrier.arrive`) on the object at `addr`;
    /// `d` receives the state token or the wait result, `a` is the count, tx-count, state
    /// or parity operand.
    MBar {
        op: MBarOp,
        space: MemSpace,
        addr: Addr,
        d: Dst,
        a: Src,
    },
    /// `mbarrier.pending_count d, state`.
    MBarPending {
        d: Dst,
        state: Src,
    },
    /// `cp.async.bulk` without a tensor map: copies `size` bytes at once, then (with an
    /// mbarrier) completes `size` transaction bytes on it.
    CpBulk {
        dst: Addr,
        dst_space: MemSpace,
        src: Addr,
        src_space: MemSpace,
        size: Src,
        mbar: Option<Addr>,
    },
    /// `barrier.cluster.arrive` / `.wait` (the cluster is the CTA alone: 1×1×1).
    ClusterBar {
        wait: bool,
    },
    /// `mapa`: the address of `a` in the cluster CTA `rank` (only rank 0 exists).
    Mapa {
        d: Dst,
        a: Src,
        rank: Src,
    },
    /// A video instruction (`vadd` ... `vset4`); operands without their selectors.
    Video(Box<VideoInst>),
    /// Pure integer operations; `pred` is `lop3`'s optional `|p` result with its
    /// `BoolOp` and `q` operand.
    IntX {
        op: IntX,
        ty: Type,
        d: Dst,
        s: [Src; 4],
        pred: Option<(Dst, BoolOp, Src)>,
    },
    /// Extended-precision arithmetic with the carry flag: `cin` consumes it, `cout` sets it.
    Carry {
        op: CarryOp,
        ty: Type,
        cin: bool,
        cout: bool,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    /// Half-precision arithmetic.
    Half {
        op: HOp,
        ty: Type,
        m: HMods,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `testp.op.type p, a`.
    Testp {
        op: ptxvm_fp::arith::TestpOp,
        ty: Type,
        d: Dst,
        a: Src,
    },
    /// Packed and narrow `cvt` forms.
    CvtX {
        op: CvtX,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    /// Warp-level collectives; `mask` is the membermask of the `.sync` forms (`None`: the
    /// legacy forms and `activemask`, which run for the threads executing together).
    Warp {
        op: WarpOp,
        d: Dst,
        p: Dst,
        a: Src,
        b: Src,
        c: Src,
        mask: Option<Src>,
    },
    /// A warp-collective matrix movement: destinations (ldmatrix, movmatrix), sources
    /// (stmatrix, movmatrix) and, for ld/st, the per-lane row address.
    Matrix {
        op: MatrixOp,
        dsts: Vec<Dst>,
        srcs: Vec<Src>,
        addr: Option<(MemSpace, Addr)>,
    },
    /// `bar{.cta}.red` / `barrier{.cta}.red`: a barrier that also reduces a predicate.
    BarRed {
        op: BarRedOp,
        d: Dst,
        id: Src,
        count: Option<Src>,
        pred: Src,
    },
    /// `prefetch`, `prefetchu`, `applypriority`: no architectural effect.
    Nop,
    /// `discard.global.L2 [a], 128`: the line's contents become undefined; ptxvm zeroes them.
    Discard {
        addr: Addr,
        size: u64,
    },
    /// `isspacep.space p, a`.
    Isspacep {
        space: MemSpace,
        d: Dst,
        a: Src,
    },
    /// `alloca.type ptr, size{, align}`: allocates on the thread's local stack.
    Alloca {
        d: Dst,
        size: Src,
        align: u64,
    },
    /// `stacksave.type d`.
    StackSave {
        d: Dst,
    },
    /// `stackrestore.type a`.
    StackRestore {
        a: Src,
    },
    /// `call` to a function the interpreter provides.
    Builtin {
        which: Builtin,
        args: Vec<VarLoc>,
        rets: Vec<VarLoc>,
    },
    Unsupported(String),
}

/// Most bytes of kernel parameters a kernel may declare: CUDA's limit (32,764 bytes since
/// CUDA 12.1 on Volta and newer; `cudaErrorInvalidValue`/a ptxas error beyond it).
pub const MAX_KERNEL_PARAM_BYTES: u32 = 32764;

/// A decoded instruction with its guard and source position.
#[derive(Debug, Clone, PartialEq)]
pub struct DInst {
    pub exec: Exec,
    pub guard: Option<(u32, bool)>,
    /// PTX line (1-based).
    pub line: u32,
    /// `.loc` (file index, line).
    pub loc: Option<(u32, u32)>,
}

/// Where a register lives in a warp's lane-major register file: the bank by width (values
/// of up to 32 bits, 64-bit values, predicates as one bit per lane) and the index in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegSlot {
    B32(u32),
    B64(u32),
    Pred(u32),
}

/// The register-file slots of registers of the given types, and the banks' sizes.
pub fn reg_slots(types: &[Type]) -> (Vec<RegSlot>, [u32; 3]) {
    let mut n = [0u32; 3];
    let slots = types
        .iter()
        .map(|&ty| {
            let (k, mk): (usize, fn(u32) -> RegSlot) = match ty {
                Type::Pred => (2, RegSlot::Pred),
                ty if ty.bits() > 32 => (1, RegSlot::B64),
                _ => (0, RegSlot::B32),
            };
            let i = n[k];
            n[k] += 1;
            mk(i)
        })
        .collect();
    (slots, n)
}

/// A decoded function.
#[derive(Debug, Clone, Default)]
pub struct FuncCode {
    pub name: String,
    pub is_entry: bool,
    pub defined: bool,
    pub reg_types: Vec<Type>,
    /// Per register, the mask of the bits a write keeps (1 for a predicate, else its width).
    pub reg_masks: Vec<u64>,
    /// Per register, its slot in a warp's lane-major register file (see [`RegSlot`]).
    pub reg_slots: Vec<RegSlot>,
    /// Registers of the warp register file's banks: 32-bit, 64-bit, predicates.
    pub banks: [u32; 3],
    pub code: Vec<DInst>,
    /// Bytes of `.local` variables per activation.
    pub local_size: u32,
    /// Bytes of the parameter area per activation (own params, rets, call `.param`s).
    pub param_size: u32,
    /// Offsets of the function's own parameters (kernel: in the kernel param buffer;
    /// function: in its parameter area).
    pub param_offsets: Vec<u32>,
    /// Offsets of the return parameters in the parameter area.
    pub ret_offsets: Vec<u32>,
    /// Sizes of parameters and returns, in bytes.
    pub param_sizes: Vec<u32>,
    pub ret_sizes: Vec<u32>,
    /// Bytes of the kernel parameter buffer (kernels only).
    pub kparam_size: u32,
    /// Required block shape (`.reqntid`) and maximum threads (`.maxntid`).
    pub reqntid: Option<[u32; 3]>,
    pub maxntid: Option<[u32; 3]>,
    /// Register limit (`.maxnreg`).
    pub maxnreg: Option<u32>,
    /// Required cluster shape (`.reqnctapercluster`).
    pub cluster: Option<[u32; 3]>,
    /// Kernels only: the CTA offset of every shared slot this kernel can reach
    /// (`u32::MAX` for the others), the static shared bytes, and where dynamic shared
    /// memory starts. Each kernel lays out only the shared variables its code (and the
    /// functions it calls) uses, as ptxas does.
    pub shared_layout: std::sync::Arc<[u32]>,
    pub shared_static: u32,
    pub dyn_base: u32,
    /// Estimated 32-bit registers per thread ([`crate::pressure`]); for a kernel, the most
    /// of it and every function it can call.
    pub reg_estimate: u32,
    /// The kernel compiled to native code (the JIT engine), once a launch asked for it.
    pub(crate) jit: crate::exec::jit::JitSlot,
    /// Set once the kernel is queued for compiling in the background.
    pub(crate) jit_queued: std::sync::OnceLock<()>,
    /// Warp instructions the kernel's `auto` launches have run without native code (see
    /// [`crate::device::JIT_HOT`]).
    pub(crate) jit_heat: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

/// A decoded module.
#[derive(Debug, Default)]
pub struct Program {
    pub funcs: Vec<FuncCode>,
    pub by_name: HashMap<String, u32>,
    /// Size and alignment of every shared slot (module `.shared` variables, then each
    /// function's, in declaration order).
    pub shared_slots: Vec<(u32, u32)>,
    /// `.file` table: index → name.
    pub files: HashMap<u32, String>,
    /// Module-scope `.global`/`.const` variables: name → (device address, size in bytes).
    pub globals: HashMap<String, (u64, u64)>,
    /// Every allocation made for the module's variables (freed when it is unloaded).
    pub var_allocs: Vec<u64>,
}

fn align_up(x: u32, a: u32) -> u32 {
    x.div_ceil(a.max(1)) * a.max(1)
}

fn int_of(v: u64, ty: Type) -> u64 {
    let b = ty.bits();
    if b >= 64 { v } else { v & ((1u64 << b) - 1) }
}

/// Decodes a checked module; allocates its global and const variables in `mem` (and
/// frees them again when decoding fails).
pub fn decode(
    m: &ir::Module,
    lines: &dyn Fn(ptxvm_syntax::Span) -> u32,
    mem: &AddressSpace,
) -> Result<Program, String> {
    let mut p = Program::default();
    match decode_into(&mut p, m, lines, mem) {
        Ok(()) => Ok(p),
        Err(e) => {
            for &a in &p.var_allocs {
                let _ = mem.free(a);
            }
            Err(e)
        }
    }
}

fn decode_into(
    p: &mut Program,
    m: &ir::Module,
    lines: &dyn Fn(ptxvm_syntax::Span) -> u32,
    mem: &AddressSpace,
) -> Result<(), String> {
    for (i, n) in &m.files {
        p.files.insert(*i, n.clone());
    }
    // Module variables.
    let mut gvars: Vec<VarLoc> = Vec::with_capacity(m.vars.len());
    for v in &m.vars {
        match v.space {
            Space::Global | Space::Const => {
                let kind = if v.space == Space::Const {
                    AllocKind::Const
                } else {
                    AllocKind::Global
                };
                let addr = mem
                    .alloc(
                        v.size,
                        kind,
                        format!("{} variable `{}`", v.space.name(), v.name),
                    )
                    .map_err(|e| format!("variable `{}`: {e}", v.name))?;
                p.var_allocs.push(addr);
                if let Some(init) = &v.init {
                    let n = init.bytes.len().min(v.size as usize);
                    mem.write(addr, &init.bytes[..n])
                        .map_err(|e| format!("{e:?}"))?;
                }
                gvars.push(VarLoc::Global(addr));
            }
            Space::Shared if is_dynamic_shared(v) => gvars.push(VarLoc::Shared(DYN_SHARED)),
            Space::Shared => {
                let size = u32::try_from(v.size).map_err(|_| {
                    format!(
                        "shared variable `{}` has {} bytes, more than any CTA can have",
                        v.name, v.size
                    )
                })?;
                gvars.push(VarLoc::Shared(p.shared_slots.len() as u32));
                p.shared_slots.push((size, v.align.max(1)));
            }
            _ => gvars.push(VarLoc::Global(0)),
        }
    }
    for (v, loc) in m.vars.iter().zip(&gvars) {
        if let (Space::Global | Space::Const, VarLoc::Global(a)) = (v.space, loc) {
            p.globals.insert(v.name.clone(), (*a, v.size));
        }
    }
    // A function's canonical index is its definition's (declarations may come first).
    let mut defined: HashMap<&str, u32> = HashMap::new();
    let mut first_func: HashMap<&str, u32> = HashMap::new();
    for (i, f) in m.funcs.iter().enumerate() {
        if f.defined {
            defined.entry(&f.name).or_insert(i as u32);
        }
        first_func.entry(&f.name).or_insert(i as u32);
    }
    let canon: Vec<u32> = m
        .funcs
        .iter()
        .enumerate()
        .map(|(i, f)| defined.get(f.name.as_str()).copied().unwrap_or(i as u32))
        .collect();
    let first_var: HashMap<&str, usize> = {
        let mut h = HashMap::new();
        for (i, v) in m.vars.iter().enumerate() {
            h.entry(v.name.as_str()).or_insert(i);
        }
        h
    };
    // Relocations of initialisers (addresses of other variables and functions).
    for (vi, v) in m.vars.iter().enumerate() {
        let (Some(init), VarLoc::Global(base)) = (&v.init, gvars[vi]) else {
            continue;
        };
        for (off, name, addend, _generic) in &init.relocs {
            if let Some(&fi) = first_func.get(name.as_str()) {
                let fi = canon[fi as usize];
                let val = (crate::memory::FUNC_BASE + 16 * fi as u64).wrapping_add(*addend as u64);
                let w = v.ty.bytes().min(8) as usize;
                mem.write(base + off, &val.to_le_bytes()[..w])
                    .map_err(|e| format!("{e:?}"))?;
                continue;
            }
            if let Some(&ti) = first_var.get(name.as_str())
                && let VarLoc::Global(a) = gvars[ti]
            {
                let val = a.wrapping_add(*addend as u64);
                let w = v.ty.bytes().min(8) as usize;
                mem.write(base + off, &val.to_le_bytes()[..w])
                    .map_err(|e| format!("{e:?}"))?;
            }
        }
    }
    for (fi, f) in m.funcs.iter().enumerate() {
        p.by_name.entry(f.name.clone()).or_insert(fi as u32);
    }
    // Function-scope shared variables get slots after the module's.
    let mut local_slots: Vec<Vec<u32>> = Vec::with_capacity(m.funcs.len());
    for f in &m.funcs {
        let mut v_slots = Vec::new();
        for v in &f.locals {
            if v.space == Space::Shared && !is_dynamic_shared(v) {
                let size = u32::try_from(v.size).map_err(|_| {
                    format!(
                        "shared variable `{}` has {} bytes, more than any CTA can have",
                        v.name, v.size
                    )
                })?;
                v_slots.push(p.shared_slots.len() as u32);
                p.shared_slots.push((size, v.align.max(1)));
            } else {
                v_slots.push(DYN_SHARED);
            }
        }
        local_slots.push(v_slots);
    }
    for (fi, f) in m.funcs.iter().enumerate() {
        let fc = decode_func(m, f, &gvars, &canon, &local_slots[fi], lines)?;
        p.funcs.push(fc);
    }
    // A kernel needs the registers of every function it may call.
    let any_indirect = p.funcs.iter().any(|f| {
        f.code
            .iter()
            .any(|i| matches!(i.exec, Exec::CallIndirect { .. }))
    });
    let all_max = p.funcs.iter().map(|f| f.reg_estimate).max().unwrap_or(0);
    let estimates: Vec<u32> = (0..p.funcs.len())
        .map(|root| {
            if !p.funcs[root].is_entry {
                return p.funcs[root].reg_estimate;
            }
            let mut seen = vec![false; p.funcs.len()];
            let mut stack = vec![root];
            let mut most = 0;
            while let Some(g) = stack.pop() {
                if std::mem::replace(&mut seen[g], true) {
                    continue;
                }
                most = most.max(p.funcs[g].reg_estimate);
                for i in &p.funcs[g].code {
                    match i.exec {
                        Exec::Call { func, .. } => stack.push(func as usize),
                        Exec::CallIndirect { .. } if any_indirect => most = most.max(all_max),
                        _ => {}
                    }
                }
            }
            most
        })
        .collect();
    for (f, e) in p.funcs.iter_mut().zip(estimates) {
        f.reg_estimate = e;
    }
    // Prefer the defined function of a name.
    for (fi, f) in m.funcs.iter().enumerate() {
        if f.defined {
            p.by_name.insert(f.name.clone(), fi as u32);
        }
    }
    // Each kernel's shared layout: the slots reachable from it, in slot order; dynamic
    // shared memory starts after them, 16-byte aligned.
    let uses = shared_uses(m, &canon, &local_slots, p.shared_slots.len());
    let slots = &p.shared_slots;
    // Without per-kernel uses every kernel has the same layout: built once, shared.
    let mut common: Option<(std::sync::Arc<[u32]>, u32)> = None;
    for (fi, fc) in p.funcs.iter_mut().enumerate() {
        if !fc.is_entry {
            continue;
        }
        let all = vec![true; 0];
        let used: &[bool] = match &uses {
            Some(u) => &u[fi],
            None => {
                if let Some((layout, total)) = &common {
                    fc.shared_layout = layout.clone();
                    fc.shared_static = *total;
                    fc.dyn_base = align_up(*total, 16);
                    continue;
                }
                &all
            }
        };
        let too_big = || {
            format!(
                "kernel `{}` has more shared memory than any CTA can have",
                fc.name
            )
        };
        let mut layout = vec![u32::MAX; slots.len()];
        let mut off = 0u64;
        for (slot, &(size, align)) in slots.iter().enumerate() {
            if used.get(slot).copied().unwrap_or(uses.is_none()) {
                off = off.next_multiple_of(align as u64);
                layout[slot] = u32::try_from(off).map_err(|_| too_big())?;
                off += size as u64;
            }
        }
        let total = u32::try_from(off)
            .ok()
            .filter(|&t| t <= u32::MAX - 15)
            .ok_or_else(too_big)?;
        fc.shared_layout = layout.into();
        fc.shared_static = total;
        fc.dyn_base = align_up(total, 16);
        if uses.is_none() {
            common = Some((fc.shared_layout.clone(), total));
        }
    }
    Ok(())
}

/// Per kernel, which shared slots its code can reach: its own and the module's that it
/// names, and those of every function it calls or takes the address of. An indirect call
/// makes every function reachable (its target is not known before running). Functions
/// that are not kernels get an empty list (their layout is their kernel's).
///
/// The work is bounded: when kernels × (reachable functions + slots) would exceed
/// [`MAX_LAYOUT_WORK`], every kernel lays out every slot (a hostile module with tens of
/// thousands of kernels and functions cannot make loading quadratic); `None` then.
fn shared_uses(
    m: &ir::Module,
    canon: &[u32],
    local_slots: &[Vec<u32>],
    nslots: usize,
) -> Option<Vec<Vec<bool>>> {
    use ptxvm_ir::ir::{Base, Op, VarRef};
    let n = m.funcs.len();
    let module_slot: Vec<Option<u32>> = {
        let mut k = 0u32;
        m.vars
            .iter()
            .map(|v| {
                if v.space == Space::Shared && !is_dynamic_shared(v) {
                    k += 1;
                    Some(k - 1)
                } else {
                    None
                }
            })
            .collect()
    };
    // Sparse: the slots each function names directly, and its callees.
    let mut direct: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut callees: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut indirect = vec![false; n];
    fn walk(op: &Op, f: &mut dyn FnMut(&Op)) {
        f(op);
        match op {
            Op::TexAddr(v) | Op::Vector(v) | Op::List(v) => v.iter().for_each(|o| walk(o, f)),
            Op::Pair(a, b) => {
                walk(a, f);
                walk(b, f);
            }
            _ => {}
        }
    }
    for (fi, f) in m.funcs.iter().enumerate() {
        for &s in &local_slots[fi] {
            if s != DYN_SHARED && (s as usize) < nslots {
                direct[fi].push(s);
            }
        }
        for inst in &f.insts {
            if inst.opcode == "call" && inst.operands.iter().any(|o| matches!(o, Op::Reg(_))) {
                indirect[fi] = true;
            }
            for op in &inst.operands {
                walk(op, &mut |o| {
                    let var = match o {
                        Op::Sym { var, .. } => Some(*var),
                        Op::Addr {
                            base: Base::Var(var),
                            ..
                        } => Some(*var),
                        Op::Func(g) => {
                            callees[fi].push(canon.get(*g as usize).copied().unwrap_or(*g));
                            None
                        }
                        _ => None,
                    };
                    if let Some(VarRef::Global(i)) = var
                        && let Some(Some(s)) = module_slot.get(i as usize)
                    {
                        direct[fi].push(*s);
                    }
                });
            }
        }
        direct[fi].sort_unstable();
        direct[fi].dedup();
        callees[fi].sort_unstable();
        callees[fi].dedup();
    }
    let entries: Vec<usize> = (0..n)
        .filter(|&i| m.funcs[i].kind == Some(ptxvm_ir::ir::FuncKind::Entry))
        .collect();
    let any_indirect = indirect.iter().any(|&b| b);
    let mut work = 0u64;
    let mut out: Vec<Vec<bool>> = vec![Vec::new(); n];
    let mut seen = vec![u32::MAX; n];
    for (k, &root) in entries.iter().enumerate() {
        let mut stack = vec![root];
        let mut uses = vec![false; nslots];
        work += nslots as u64;
        while let Some(g) = stack.pop() {
            if seen[g] == k as u32 {
                continue;
            }
            seen[g] = k as u32;
            work += 1 + direct[g].len() as u64 + callees[g].len() as u64;
            if work > MAX_LAYOUT_WORK {
                // Too much to be precise: every kernel gets every slot.
                return None;
            }
            for &s in &direct[g] {
                uses[s as usize] = true;
            }
            if indirect[g] && any_indirect {
                work += n as u64;
                stack.extend(0..n);
            }
            stack.extend(callees[g].iter().map(|&c| c as usize).filter(|&c| c < n));
        }
        out[root] = uses;
    }
    Some(out)
}

/// See [`shared_uses`].
const MAX_LAYOUT_WORK: u64 = 1 << 24;

struct Dx<'a> {
    m: &'a ir::Module,
    /// `.branchtargets` lists of the function, as pcs.
    targets: Vec<(String, Vec<u32>)>,
    canon: &'a [u32],
    gvars: &'a [VarLoc],
    locals: Vec<VarLoc>,
    params: Vec<VarLoc>,
    rets: Vec<VarLoc>,
}

fn decode_func(
    m: &ir::Module,
    f: &ir::Func,
    gvars: &[VarLoc],
    canon: &[u32],
    local_slots: &[u32],
    lines: &dyn Fn(ptxvm_syntax::Span) -> u32,
) -> Result<FuncCode, String> {
    let is_entry = f.kind == Some(FuncKind::Entry);
    let reg_types: Vec<Type> = f.regs.iter().map(|r| r.ty).collect();
    let (reg_slots, banks) = reg_slots(&reg_types);
    let mut fc = FuncCode {
        reg_slots,
        banks,
        name: f.name.clone(),
        is_entry,
        defined: f.defined,
        reg_types,
        reg_masks: f
            .regs
            .iter()
            .map(|r| match r.ty {
                Type::Pred => 1,
                ty if ty.bits() >= 64 => u64::MAX,
                ty => (1u64 << ty.bits()) - 1,
            })
            .collect(),
        reqntid: f.tuning.reqntid,
        maxntid: f.tuning.maxntid,
        maxnreg: f.tuning.maxnreg,
        cluster: f.tuning.reqnctapercluster,
        reg_estimate: if f.defined {
            crate::pressure::estimate(f)
        } else {
            0
        },
        ..FuncCode::default()
    };
    // Parameter and local layouts, in 64-bit arithmetic: a size that does not fit the
    // runtime's 32-bit offsets is a load error, never a wrapped (aliasing) layout.
    let too_big = |what: &str, n: u64| {
        format!(
            "function `{}`: {what} of {n} bytes is larger than ptxvm can lay out (at most {} bytes)",
            f.name,
            u32::MAX
        )
    };
    let place = |off: &mut u64, v: &ir::Var, what: &str| -> Result<u32, String> {
        let at = off.next_multiple_of(v.align.max(1) as u64);
        let end = at.checked_add(v.size).filter(|&e| e <= u32::MAX as u64);
        match end {
            Some(e) => {
                *off = e;
                Ok(at as u32)
            }
            None => Err(too_big(what, at.saturating_add(v.size))),
        }
    };
    let mut params = Vec::new();
    let mut poff = 0u64;
    for v in &f.params {
        let at = place(&mut poff, v, "the parameter space")?;
        fc.param_offsets.push(at);
        fc.param_sizes.push(v.size as u32);
        params.push(if is_entry {
            VarLoc::KernelParam(at)
        } else {
            VarLoc::FrameParam(at)
        });
    }
    if is_entry {
        if poff > MAX_KERNEL_PARAM_BYTES as u64 {
            return Err(format!(
                "kernel `{}` has {poff} bytes of parameters, more than CUDA's limit of {MAX_KERNEL_PARAM_BYTES}",
                f.name
            ));
        }
        fc.kparam_size = poff as u32;
        poff = 0;
    }
    let mut rets = Vec::new();
    for v in &f.rets {
        let at = place(&mut poff, v, "the parameter space")?;
        fc.ret_offsets.push(at);
        fc.ret_sizes.push(v.size as u32);
        rets.push(VarLoc::FrameParam(at));
    }
    // Body variables.
    let mut locals = Vec::new();
    let mut loff = 0u64;
    for (vi, v) in f.locals.iter().enumerate() {
        match v.space {
            Space::Local => locals.push(VarLoc::Local(place(&mut loff, v, "local memory")?)),
            Space::Shared => locals.push(VarLoc::Shared(
                local_slots.get(vi).copied().unwrap_or(DYN_SHARED),
            )),
            Space::Param => locals.push(VarLoc::FrameParam(place(
                &mut poff,
                v,
                "the parameter space",
            )?)),
            _ => locals.push(VarLoc::Local(0)),
        }
    }
    let round =
        |x: u64, what: &str| u32::try_from(x.next_multiple_of(16)).map_err(|_| too_big(what, x));
    fc.local_size = round(loff, "local memory")?;
    fc.param_size = round(poff, "the parameter space")?;
    let dx = Dx {
        m,
        targets: f
            .branch_targets
            .iter()
            .map(|(n, bs)| {
                (
                    n.clone(),
                    bs.iter()
                        .map(|b| f.blocks.get(*b as usize).copied().unwrap_or(0))
                        .collect(),
                )
            })
            .collect(),
        canon,
        gvars,
        locals,
        params,
        rets,
    };
    let block_pc: Vec<u32> = f.blocks.clone();
    for (k, inst) in f.insts.iter().enumerate() {
        let line = lines(f.inst_spans[k]);
        let loc = f.inst_locs[k].map(|(file, l, _)| (file, l));
        let exec = dx.exec(inst, &block_pc);
        fc.code.push(DInst {
            exec,
            guard: inst.guard,
            line,
            loc,
        });
    }
    Ok(fc)
}

fn rnd_of(mods: &[&str]) -> Option<ptxvm_fp::Rnd> {
    use ptxvm_fp::Rnd::*;
    mods.iter().find_map(|m| match *m {
        ".rn" => Some(Rn),
        ".rz" => Some(Rz),
        ".rm" => Some(Rm),
        ".rp" => Some(Rp),
        ".rna" => Some(Rna),
        _ => None,
    })
}

fn irnd_of(mods: &[&str]) -> Option<ptxvm_fp::Rnd> {
    use ptxvm_fp::Rnd::*;
    mods.iter().find_map(|m| match *m {
        ".rni" => Some(Rn),
        ".rzi" => Some(Rz),
        ".rmi" => Some(Rm),
        ".rpi" => Some(Rp),
        _ => None,
    })
}

fn cmp_of(mods: &[&str]) -> Option<(ptxvm_fp::arith::CmpOp, Option<bool>)> {
    use ptxvm_fp::arith::CmpOp::*;
    // (op, Some(unsigned) for the unsigned-only integer names)
    mods.iter().find_map(|m| {
        Some(match *m {
            ".eq" => (Eq, None),
            ".ne" => (Ne, None),
            ".lt" => (Lt, None),
            ".le" => (Le, None),
            ".gt" => (Gt, None),
            ".ge" => (Ge, None),
            ".lo" => (Lt, Some(true)),
            ".ls" => (Le, Some(true)),
            ".hi" => (Gt, Some(true)),
            ".hs" => (Ge, Some(true)),
            ".equ" => (Equ, None),
            ".neu" => (Neu, None),
            ".ltu" => (Ltu, None),
            ".leu" => (Leu, None),
            ".gtu" => (Gtu, None),
            ".geu" => (Geu, None),
            ".num" => (Num, None),
            ".nan" => (Nan, None),
            _ => return None,
        })
    })
}

fn hmods(mods: &[&str]) -> HMods {
    let has = |m: &str| mods.contains(&m);
    HMods {
        rnd: rnd_of(mods).unwrap_or(ptxvm_fp::Rnd::Rn),
        ftz: has(".ftz"),
        sat: has(".sat"),
        relu: has(".relu"),
        nan: has(".NaN"),
        xorsign_abs: has(".xorsign"),
    }
}

fn narrow_of(m: &str) -> Option<ptxvm_fp::convert::NarrowType> {
    use ptxvm_fp::convert::NarrowType as N;
    Some(match m {
        ".e4m3x2" => N::E4M3,
        ".e5m2x2" => N::E5M2,
        ".e2m1x2" => N::E2M1,
        ".e2m3x2" => N::E2M3,
        ".e3m2x2" => N::E3M2,
        _ => return None,
    })
}

fn bool_of(mods: &[&str]) -> Option<BoolOp> {
    mods.iter().find_map(|m| match *m {
        ".and" => Some(BoolOp::And),
        ".or" => Some(BoolOp::Or),
        ".xor" => Some(BoolOp::Xor),
        _ => None,
    })
}

fn space_of(mods: &[&str]) -> MemSpace {
    for m in mods {
        match Space::from_dot(m) {
            Some(Space::Global) => return MemSpace::Global,
            Some(Space::Shared) => return MemSpace::Shared,
            Some(Space::Local) => return MemSpace::Local,
            Some(Space::Const) => return MemSpace::Const,
            Some(Space::Param) => return MemSpace::Param,
            _ => {}
        }
    }
    MemSpace::Generic
}

impl Dx<'_> {
    fn var(&self, v: VarRef) -> VarLoc {
        match v {
            VarRef::Global(g) => self.gvars[g as usize],
            VarRef::Local(l) => self.locals[l as usize],
            VarRef::Param(p) => self.params[p as usize],
            VarRef::Ret(r) => self.rets[r as usize],
        }
    }

    fn src(&self, o: &Op) -> Option<Src> {
        Some(match o {
            Op::Reg(r) => Src::Reg(*r),
            Op::Imm(v) => Src::Imm(*v),
            Op::FImm { bits, single } => {
                if *single {
                    Src::Imm((f64::from_bits(*bits) as f32).to_bits() as u64)
                } else {
                    Src::Imm(*bits)
                }
            }
            Op::SReg(s) => Src::SReg(s.id, s.comp),
            Op::Pred { reg, neg } => Src::Pred(*reg, *neg),
            Op::Sym { var, offset, .. } => Src::Var(self.var(*var), *offset),
            Op::Func(f) => Src::Imm(crate::memory::FUNC_BASE + 16 * self.canon[*f as usize] as u64),
            _ => return None,
        })
    }

    /// A float immediate given for a typed operand: `0f`/`0d` bits are kept; a decimal
    /// literal is converted to the operand's format.
    fn fsrc(&self, o: &Op, ty: Type) -> Option<Src> {
        match (o, ty) {
            (
                Op::FImm {
                    bits,
                    single: false,
                },
                Type::F32,
            ) => Some(Src::Imm((f64::from_bits(*bits) as f32).to_bits() as u64)),
            _ => self.src(o),
        }
    }

    fn dst(&self, o: &Op) -> Option<Dst> {
        match o {
            Op::Reg(r) => Some(Dst::Reg(*r)),
            Op::Pred { reg, neg: false } => Some(Dst::Reg(*reg)),
            Op::Sink => Some(Dst::Sink),
            _ => None,
        }
    }

    fn addr(&self, o: &Op) -> Option<Addr> {
        match o {
            Op::Addr {
                base: Base::Reg(r),
                offset,
            } => Some(Addr::Reg(*r, *offset)),
            Op::Addr {
                base: Base::Abs,
                offset,
            } => Some(Addr::Abs(*offset)),
            Op::Addr {
                base: Base::Var(v),
                offset,
            } => Some(Addr::Var(self.var(*v), *offset)),
            _ => None,
        }
    }

    /// The packed and narrow `cvt` forms (`None` for the scalar ones).
    fn cvt_x(&self, inst: &ir::Inst) -> Option<Exec> {
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        let op = |k: usize| inst.operands.get(k);
        let rnd = rnd_of(mods).unwrap_or(ptxvm_fp::Rnd::Rn);
        let (relu, satfinite) = (has(".relu"), has(".satfinite"));
        if has(".rs") {
            return None;
        }
        let narrow = mods.iter().find_map(|m| narrow_of(m));
        let first = mods.iter().position(|m| {
            Type::from_dot(m).is_some() || narrow_of(m).is_some() || *m == ".ue8m0x2"
        })?;
        let dst = mods[first];
        let src = *mods.get(first + 1)?;
        let x = if has(".pack") {
            let signed = dst.starts_with(".s");
            if mods.len() > first + 2 {
                let size = match &dst[2..] {
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

    fn exec(&self, inst: &ir::Inst, blocks: &[u32]) -> Exec {
        self.try_exec(inst, blocks)
            .unwrap_or_else(|| Exec::Unsupported(format!("{}{}", inst.opcode, inst.mods.concat())))
    }

    fn try_exec(&self, inst: &ir::Inst, blocks: &[u32]) -> Option<Exec> {
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        let ops = &inst.operands;
        let ty = inst.ty;
        let op = |k: usize| ops.get(k);
        Some(match inst.opcode {
            "mov" => {
                let t = ty?;
                if t == Type::B128 {
                    // Registers hold at most 64 bits.
                    return None;
                }
                match (op(0)?, op(1)?) {
                    (Op::Vector(parts), a) => {
                        let n = parts.len() as u32;
                        Exec::Unpack {
                            ds: parts.iter().map(|p| self.dst(p)).collect::<Option<_>>()?,
                            a: self.src(a)?,
                            bits: t.bits() / n,
                        }
                    }
                    (d, Op::Vector(parts)) => {
                        let n = parts.len() as u32;
                        Exec::Pack {
                            d: self.dst(d)?,
                            parts: parts.iter().map(|p| self.src(p)).collect::<Option<_>>()?,
                            bits: t.bits() / n,
                        }
                    }
                    (d, a) => Exec::Mov {
                        d: self.dst(d)?,
                        a: self.fsrc(a, t)?,
                        bits: if t == Type::Pred { 1 } else { t.bits() },
                    },
                }
            }
            "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor"
            | "shl" | "shr" | "copysign" => {
                let t = ty?;
                let (d, a, b) = (self.dst(op(0)?)?, op(1)?, op(2)?);
                if t == Type::Pred {
                    let bop = match inst.opcode {
                        "and" => BoolOp::And,
                        "or" => BoolOp::Or,
                        "xor" => BoolOp::Xor,
                        _ => return None,
                    };
                    return Some(Exec::PredOp {
                        op: Some(bop),
                        d,
                        a: self.src(a)?,
                        b: self.src(b)?,
                    });
                }
                if crate::ops::half::is_half(t) {
                    let hop = match inst.opcode {
                        "add" => HOp::Add,
                        "sub" => HOp::Sub,
                        "mul" => HOp::Mul,
                        "min" => HOp::Min,
                        "max" => HOp::Max,
                        _ => return None,
                    };
                    return Some(Exec::Half {
                        op: hop,
                        ty: t,
                        m: hmods(mods),
                        d,
                        a: self.src(a)?,
                        b: self.src(b)?,
                        c: Src::Imm(0),
                    });
                }
                if matches!(t, Type::U16x2 | Type::S16x2) {
                    let pop = match inst.opcode {
                        "add" => Packed::Add,
                        "sub" => Packed::Sub,
                        "min" => Packed::Min,
                        "max" => Packed::Max,
                        _ => return None,
                    };
                    return Some(Exec::IntX {
                        op: IntX::Packed {
                            op: pop,
                            relu: has(".relu"),
                        },
                        ty: t,
                        d,
                        s: [self.src(a)?, self.src(b)?, Src::Imm(0), Src::Imm(0)],
                        pred: None,
                    });
                }
                if has(".relu") && matches!(inst.opcode, "min" | "max") {
                    return Some(Exec::IntX {
                        op: IntX::MinMaxRelu {
                            max: inst.opcode == "max",
                        },
                        ty: t,
                        d,
                        s: [self.src(a)?, self.src(b)?, Src::Imm(0), Src::Imm(0)],
                        pred: None,
                    });
                }
                if has(".cc") && matches!(inst.opcode, "add" | "sub") {
                    return Some(Exec::Carry {
                        op: if inst.opcode == "add" {
                            CarryOp::Add
                        } else {
                            CarryOp::Sub
                        },
                        ty: t,
                        cin: false,
                        cout: true,
                        d,
                        a: self.src(a)?,
                        b: self.src(b)?,
                        c: Src::Imm(0),
                    });
                }
                if t.class() == Class::Float && matches!(t, Type::F32 | Type::F64) {
                    let fop = match inst.opcode {
                        "add" => FOp::Add,
                        "sub" => FOp::Sub,
                        "mul" => FOp::Mul,
                        "div" if has(".full") => FOp::DivFull,
                        "div" if has(".approx") => FOp::DivApprox,
                        "div" => FOp::Div,
                        "min" => FOp::Min,
                        "max" => FOp::Max,
                        "copysign" => FOp::Copysign,
                        _ => return None,
                    };
                    return Some(Exec::Float {
                        op: fop,
                        ty: t,
                        rnd: rnd_of(mods).unwrap_or(ptxvm_fp::Rnd::Rn),
                        ftz: has(".ftz"),
                        sat: has(".sat"),
                        nan: has(".NaN"),
                        xorsign: has(".xorsign"),
                        d,
                        a: self.fsrc(a, t)?,
                        b: self.fsrc(b, t)?,
                    });
                }
                if t.class() == Class::Float {
                    return None;
                }
                let iop = match inst.opcode {
                    "add" if has(".sat") => IntOp::AddSat,
                    "sub" if has(".sat") => IntOp::SubSat,
                    "add" if !has(".cc") => IntOp::Add,
                    "sub" if !has(".cc") => IntOp::Sub,
                    "mul" if has(".wide") => IntOp::MulWide,
                    "mul" if has(".hi") => IntOp::MulHi,
                    "mul" => IntOp::MulLo,
                    "div" => IntOp::Div,
                    "rem" => IntOp::Rem,
                    "min" if mods.len() == 1 => IntOp::Min,
                    "max" if mods.len() == 1 => IntOp::Max,
                    "and" => IntOp::And,
                    "or" => IntOp::Or,
                    "xor" => IntOp::Xor,
                    "shl" => IntOp::Shl,
                    "shr" => IntOp::Shr,
                    _ => return None,
                };
                if matches!(t, Type::U16x2 | Type::S16x2) {
                    return None;
                }
                Exec::Int {
                    op: iop,
                    ty: t,
                    d,
                    a: self.src(a)?,
                    b: self.src(b)?,
                }
            }
            "not" | "cnot" | "neg" | "abs" | "popc" | "clz" | "brev" | "sqrt" | "rcp" | "rsqrt"
            | "sin" | "cos" | "lg2" | "ex2" | "tanh" => {
                let t = ty?;
                let (d, a) = (self.dst(op(0)?)?, op(1)?);
                if t == Type::Pred && inst.opcode == "not" {
                    return Some(Exec::PredOp {
                        op: None,
                        d,
                        a: self.src(a)?,
                        b: Src::Imm(0),
                    });
                }
                if crate::ops::half::is_half(t) {
                    let hop = match inst.opcode {
                        "neg" => HOp::Neg,
                        "abs" => HOp::Abs,
                        "ex2" => HOp::Ex2,
                        "tanh" => HOp::Tanh,
                        _ => return None,
                    };
                    return Some(Exec::Half {
                        op: hop,
                        ty: t,
                        m: hmods(mods),
                        d,
                        a: self.src(a)?,
                        b: Src::Imm(0),
                        c: Src::Imm(0),
                    });
                }
                if matches!(t, Type::F32 | Type::F64) {
                    let approx = has(".approx");
                    let fun = match inst.opcode {
                        "neg" => FUn::Neg,
                        "abs" => FUn::Abs,
                        "sqrt" if approx => FUn::SqrtApprox,
                        "sqrt" => FUn::Sqrt,
                        "rcp" if approx => FUn::RcpApprox,
                        "rcp" => FUn::Rcp,
                        "rsqrt" => FUn::Rsqrt,
                        "sin" => FUn::Sin,
                        "cos" => FUn::Cos,
                        "lg2" => FUn::Lg2,
                        "ex2" => FUn::Ex2,
                        "tanh" => FUn::Tanh,
                        _ => return None,
                    };
                    return Some(Exec::FloatUn {
                        op: fun,
                        ty: t,
                        rnd: rnd_of(mods).unwrap_or(ptxvm_fp::Rnd::Rn),
                        ftz: has(".ftz"),
                        d,
                        a: self.fsrc(a, t)?,
                    });
                }
                if t.class() == Class::Float {
                    return None;
                }
                let u = match inst.opcode {
                    "not" => IntUn::Not,
                    "cnot" => IntUn::Cnot,
                    "neg" => IntUn::Neg,
                    "abs" => IntUn::Abs,
                    "popc" => IntUn::Popc,
                    "clz" => IntUn::Clz,
                    "brev" => IntUn::Brev,
                    _ => return None,
                };
                Exec::IntUn {
                    op: u,
                    ty: t,
                    d,
                    a: self.src(a)?,
                }
            }
            "mad" | "fma" => {
                let t = ty?;
                let (d, a, b, c) = (self.dst(op(0)?)?, op(1)?, op(2)?, op(3)?);
                if matches!(t, Type::F32 | Type::F64) {
                    return Some(Exec::Fma {
                        ty: t,
                        rnd: rnd_of(mods).unwrap_or(ptxvm_fp::Rnd::Rn),
                        ftz: has(".ftz"),
                        sat: has(".sat"),
                        d,
                        a: self.fsrc(a, t)?,
                        b: self.fsrc(b, t)?,
                        c: self.fsrc(c, t)?,
                    });
                }
                if crate::ops::half::is_half(t) && inst.opcode == "fma" {
                    return Some(Exec::Half {
                        op: if has(".oob") { HOp::FmaOob } else { HOp::Fma },
                        ty: t,
                        m: hmods(mods),
                        d,
                        a: self.src(a)?,
                        b: self.src(b)?,
                        c: self.src(c)?,
                    });
                }
                if t.class() == Class::Float || inst.opcode == "fma" {
                    return None;
                }
                if has(".cc") {
                    return Some(Exec::Carry {
                        op: if has(".hi") {
                            CarryOp::MadHi
                        } else {
                            CarryOp::MadLo
                        },
                        ty: t,
                        cin: false,
                        cout: true,
                        d,
                        a: self.src(a)?,
                        b: self.src(b)?,
                        c: self.src(c)?,
                    });
                }
                let mode = if has(".wide") {
                    IntOp::MulWide
                } else if has(".hi") {
                    IntOp::MulHi
                } else {
                    IntOp::MulLo
                };
                Exec::Mad {
                    mode,
                    ty: t,
                    sat: has(".sat"),
                    d,
                    a: self.src(a)?,
                    b: self.src(b)?,
                    c: self.src(c)?,
                }
            }
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
            "ld" | "ldu" => {
                let t = mods.iter().rev().find_map(|m| Type::from_dot(m))?;
                if t == Type::B128 {
                    return None;
                }
                let ds = match op(0)? {
                    Op::Vector(v) => v.iter().map(|x| self.dst(x)).collect::<Option<Vec<_>>>()?,
                    o => vec![self.dst(o)?],
                };
                Exec::Ld {
                    space: space_of(mods),
                    ty: t,
                    ds,
                    addr: self.addr(op(1)?)?,
                }
            }
            "st" => {
                let t = mods.iter().rev().find_map(|m| Type::from_dot(m))?;
                if t == Type::B128 {
                    return None;
                }
                let srcs = match op(1)? {
                    Op::Vector(v) => v
                        .iter()
                        .map(|x| self.fsrc(x, t))
                        .collect::<Option<Vec<_>>>()?,
                    o => vec![self.fsrc(o, t)?],
                };
                Exec::St {
                    space: space_of(mods),
                    ty: t,
                    srcs,
                    addr: self.addr(op(0)?)?,
                }
            }
            "atom" | "red" => {
                let t = mods.iter().rev().find_map(|m| Type::from_dot(m))?;
                if mods
                    .iter()
                    .any(|m| m.starts_with(".v") || m.starts_with(".L2"))
                    || t == Type::B128
                    || (crate::ops::half::is_half(t) && !has(".add"))
                {
                    return None;
                }
                let aop = mods.iter().find_map(|m| {
                    Some(match *m {
                        ".add" => AtomOp::Add,
                        ".min" => AtomOp::Min,
                        ".max" => AtomOp::Max,
                        ".inc" => AtomOp::Inc,
                        ".dec" => AtomOp::Dec,
                        ".and" => AtomOp::And,
                        ".or" => AtomOp::Or,
                        ".xor" => AtomOp::Xor,
                        ".exch" => AtomOp::Exch,
                        ".cas" => AtomOp::Cas,
                        _ => return None,
                    })
                })?;
                let (d, rest) = if inst.opcode == "atom" {
                    (self.dst(op(0)?)?, 1)
                } else {
                    (Dst::Sink, 0)
                };
                let addr = self.addr(op(rest)?)?;
                let b = self.fsrc(op(rest + 1)?, t)?;
                let c = match op(rest + 2) {
                    Some(o) => self.fsrc(o, t)?,
                    None => Src::Imm(0),
                };
                Exec::Atom {
                    space: space_of(mods),
                    op: aop,
                    ty: t,
                    d,
                    addr,
                    b,
                    c,
                }
            }
            "brx" => {
                let Op::Target(name) = op(1)? else {
                    return None;
                };
                let targets = self.targets.iter().find(|(n, _)| n == name)?.1.clone();
                Exec::BrxIdx {
                    index: self.src(op(0)?)?,
                    targets,
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
            // No observable effect in the interpreter: sleeping and performance-monitor
            // events.
            "nanosleep" | "pmevent" => Exec::Fence,
            "brkpt" => Exec::Brkpt,
            "bra" => match op(0)? {
                Op::Label(b) => Exec::Bra {
                    target: blocks[*b as usize],
                },
                _ => return None,
            },
            "ret" => Exec::Ret,
            "exit" => Exec::Exit,
            "trap" => Exec::Trap,
            "membar" | "fence" | "griddepcontrol" | "setmaxnreg" => Exec::Fence,
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
            "cp" if has(".async") && has(".mbarrier") && has(".arrive") => Exec::MBar {
                op: MBarOp::CpAsyncArrive {
                    noinc: has(".noinc"),
                },
                space: space_of(mods),
                addr: self.addr(op(0)?)?,
                d: Dst::Sink,
                a: Src::Imm(1),
            },
            "cp" if has(".async")
                && has(".bulk")
                && !has(".tensor")
                && !has(".multicast::cluster")
                && !has(".cp_mask")
                && !has(".prefetch") =>
            {
                if has(".commit_group") || has(".wait_group") {
                    Exec::Fence
                } else {
                    // Spaces in order: destination first (`.shared::cluster.global`).
                    let spaces: Vec<MemSpace> = mods
                        .iter()
                        .filter(|m| Space::from_dot(m).is_some())
                        .map(|m| space_of(&[m]))
                        .collect();
                    let (dst_space, src_space) = (*spaces.first()?, *spaces.get(1)?);
                    Exec::CpBulk {
                        dst: self.addr(op(0)?)?,
                        dst_space,
                        src: self.addr(op(1)?)?,
                        src_space,
                        size: self.src(op(2)?)?,
                        mbar: if has(".mbarrier::complete_tx::bytes") {
                            Some(self.addr(op(3)?)?)
                        } else {
                            None
                        },
                    }
                }
            }
            "cp" if has(".async") && has(".bulk") && has(".prefetch") && !has(".tensor") => {
                Exec::Fence
            }
            "barrier" if has(".cluster") => Exec::ClusterBar { wait: has(".wait") },
            "mapa" => Exec::Mapa {
                d: self.dst(op(0)?)?,
                a: self.src(op(1)?)?,
                rank: self.src(op(2)?)?,
            },
            // Cache-eviction policies only steer caches: an opaque value (the `.cvt.L2` form
            // passes its operand through) that every `.L2::cache_hint` access ignores.
            "createpolicy" => Exec::Mov {
                d: self.dst(op(0)?)?,
                a: if has(".cvt") {
                    self.src(op(1)?)?
                } else {
                    Src::Imm(0x0ca0_0000_0000_0000)
                },
                bits: 64,
            },
            "getctarank" => Exec::Mov {
                d: self.dst(op(0)?)?,
                a: Src::Imm(0),
                bits: 32,
            },
            "cp" if has(".async")
                && (has(".commit_group") || has(".wait_group") || has(".wait_all")) =>
            {
                Exec::Fence
            }
            "cp" if has(".async") && !has(".bulk") && !has(".mbarrier") => {
                let size = match op(2)? {
                    Op::Imm(n) if matches!(*n, 4 | 8 | 16) => *n as u32,
                    _ => return None,
                };
                let (mut src_size, mut ignore) = (None, None);
                match op(3) {
                    Some(Op::Pred { .. }) => ignore = Some(self.src(op(3)?)?),
                    Some(o) if !has(".L2::cache_hint") || ops.len() == 5 => {
                        src_size = Some(self.src(o)?)
                    }
                    _ => {}
                }
                Exec::CpAsync {
                    dst: self.addr(op(0)?)?,
                    src: self.addr(op(1)?)?,
                    size,
                    src_size,
                    ignore,
                }
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
            "call" => {
                // `call (rets), target, (args)`: the return and argument lists hold `.param`
                // variables; the target is a function or a register (indirect call).
                let ci = ops.iter().position(|o| !matches!(o, Op::List(_)))?;
                let list = |o: Option<&Op>| -> Option<Vec<VarLoc>> {
                    match o {
                        None => Some(Vec::new()),
                        Some(Op::List(v)) => v
                            .iter()
                            .map(|x| match x {
                                Op::Sym { var, offset: 0, .. } => Some(self.var(*var)),
                                _ => None,
                            })
                            .collect(),
                        _ => None,
                    }
                };
                let rets = if ci > 0 {
                    list(ops.first())?
                } else {
                    Vec::new()
                };
                // No argument list before a `.callprototype`/`.calltargets` name: none.
                let args = match ops.get(ci + 1) {
                    Some(Op::Target(_)) => Vec::new(),
                    o => list(o)?,
                };
                if let Op::Reg(r) = ops[ci] {
                    return Some(Exec::CallIndirect {
                        target: Src::Reg(r),
                        args,
                        rets,
                    });
                }
                let Op::Func(fi) = ops[ci] else { return None };
                let fi = self.canon[fi as usize];
                let callee = self.m.funcs.get(fi as usize)?;
                if args.len() != callee.params.len() || rets.len() != callee.rets.len() {
                    return None;
                }
                if !callee.defined
                    && let Some(which) = Builtin::named(&callee.name)
                {
                    return Some(Exec::Builtin { which, args, rets });
                }
                // A call to a function without a body that is not a builtin faults when it
                // runs, naming the function.
                Exec::Call {
                    func: fi,
                    args,
                    rets,
                }
            }
            "addc" | "subc" | "madc" => {
                let t = ty?;
                let d = self.dst(op(0)?)?;
                let c = match op(3) {
                    Some(o) => self.src(o)?,
                    None => Src::Imm(0),
                };
                Exec::Carry {
                    op: match inst.opcode {
                        "addc" => CarryOp::Add,
                        "subc" => CarryOp::Sub,
                        _ if has(".hi") => CarryOp::MadHi,
                        _ => CarryOp::MadLo,
                    },
                    ty: t,
                    cin: true,
                    cout: has(".cc"),
                    d,
                    a: self.src(op(1)?)?,
                    b: self.src(op(2)?)?,
                    c,
                }
            }
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
            "mul24" | "mad24" | "sad" | "bfe" | "bfi" | "bfind" | "fns" | "szext" | "bmsk"
            | "prmt" | "lop3" | "shf" | "dp4a" | "dp2a" => {
                let t = ty.or_else(|| mods.iter().rev().find_map(|m| Type::from_dot(m)))?;
                let signed = t.class() == Class::Signed;
                let tys: Vec<Type> = mods.iter().filter_map(|m| Type::from_dot(m)).collect();
                let sgn = |k: usize| tys.get(k).is_some_and(|t| t.class() == Class::Signed);
                let xop = match inst.opcode {
                    "mul24" => IntX::Mul24 { hi: has(".hi") },
                    "mad24" => IntX::Mad24 {
                        hi: has(".hi"),
                        sat: has(".sat"),
                    },
                    "sad" => IntX::Sad,
                    "bfe" => IntX::Bfe,
                    "bfi" => IntX::Bfi,
                    "bfind" => IntX::Bfind {
                        shiftamt: has(".shiftamt"),
                    },
                    "fns" => IntX::Fns,
                    "szext" => IntX::Szext {
                        clamp: has(".clamp"),
                    },
                    "bmsk" => IntX::Bmsk {
                        clamp: has(".clamp"),
                    },
                    "prmt" => IntX::Prmt(mods.iter().find_map(|m| PrmtMode::from_mod(m))),
                    "lop3" => IntX::Lop3,
                    "shf" => IntX::Shf {
                        left: has(".l"),
                        clamp: has(".clamp"),
                    },
                    "dp4a" => IntX::Dp4a {
                        sa: sgn(0),
                        sb: sgn(1),
                    },
                    _ => IntX::Dp2a {
                        hi: has(".hi"),
                        sa: sgn(0),
                        sb: sgn(1),
                    },
                };
                let _ = signed;
                let (d, pd) = match op(0)? {
                    Op::Pair(a, b) => (self.dst(a)?, Some(self.dst(b)?)),
                    o => (self.dst(o)?, None),
                };
                let mut s = [Src::Imm(0); 4];
                let nsrc = if xop == IntX::Lop3 { 4 } else { ops.len() - 1 };
                for (k, slot) in s.iter_mut().enumerate().take(nsrc.min(4)) {
                    *slot = self.src(op(k + 1)?)?;
                }
                let pred = match (xop, bool_of(mods)) {
                    (IntX::Lop3, Some(bop)) => {
                        Some((pd.unwrap_or(Dst::Sink), bop, self.src(op(5)?)?))
                    }
                    _ => None,
                };
                Exec::IntX {
                    op: xop,
                    ty: t,
                    d,
                    s,
                    pred,
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
            "prefetch" | "prefetchu" | "applypriority" => Exec::Nop,
            "discard" => {
                let size = match op(1)? {
                    Op::Imm(v) => *v,
                    _ => return None,
                };
                Exec::Discard {
                    addr: self.addr(op(0)?)?,
                    size,
                }
            }
            "isspacep" => Exec::Isspacep {
                space: space_of(mods),
                d: self.dst(op(0)?)?,
                a: self.src(op(1)?)?,
            },
            "alloca" => Exec::Alloca {
                d: self.dst(op(0)?)?,
                size: self.src(op(1)?)?,
                align: match op(2) {
                    Some(Op::Imm(v)) => (*v).max(1),
                    Some(_) => return None,
                    None => 8,
                },
            },
            "stacksave" => Exec::StackSave {
                d: self.dst(op(0)?)?,
            },
            "stackrestore" => Exec::StackRestore {
                a: self.src(op(0)?)?,
            },
            _ => return None,
        })
    }
}

/// Reads the value of an integer immediate as the operand type.
pub fn imm_as(v: u64, ty: Type) -> u64 {
    int_of(v, ty)
}

/// Whether a `.shared` variable is a dynamically sized `.extern` array.
fn is_dynamic_shared(v: &ir::Var) -> bool {
    v.space == Space::Shared && (v.linkage == ir::Linkage::Extern || v.size == 0)
}
