//! Decoding: turns a checked IR module into a [`Program`] — per function, a vector of
//! compact, pre-resolved instructions ([`DInst`]) the executor runs without looking at
//! names, strings or the AST. Variables get their final locations here (global addresses,
//! shared/local/param offsets). This file holds the `Exec` format, layouts and operands; each
//! instruction family's decoder (`Dx::decode_*`) sits in `exec/isa/` beside its execution.
//!
//! Invariant: decoding never fails on a checked module. Instruction forms the interpreter
//! does not implement decode to [`Exec::Unsupported`], which faults loudly (naming the
//! instruction, line and kernel) only if it is executed.

use crate::memory::{AddressSpace, AllocKind};
use ptxvm_ir::ir::{self, Base, FuncKind, Op, VarRef};
use ptxvm_ir::types::{Space, Type};
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

/// The sm_100 f32 forms computed from the scalar `.f32` operations ([`Exec::FloatExt`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatExt {
    /// `add/sub/mul/fma.f32x2`: the operation (`None`: `fma`) on each 32-bit element of a
    /// `.b64` (element 0 in the low word).
    X2(Option<FOp>),
    /// `add/sub/fma.f32.f16` / `.f32.bf16`: `a` (and `b` of `fma`) are half values, converted
    /// exactly to f32; one rounding. `op` `None` is `fma`.
    Mixed { op: Option<FOp>, bf16: bool },
    /// Three-input `min`/`max` (`.abs`: of every input first).
    MinMax3 { max: bool, abs: bool },
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

impl AtomOp {
    /// The operation a modifier names (`.add` … `.cas`).
    pub fn from_dot(m: &str) -> Option<AtomOp> {
        Some(match m {
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
    }

    /// The reduction a modifier names (every operation but `.exch` and `.cas`).
    pub fn reduction_from_dot(m: &str) -> Option<AtomOp> {
        AtomOp::from_dot(m).filter(|o| !matches!(o, AtomOp::Exch | AtomOp::Cas))
    }
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
    /// `cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b, rbits` (`c` is `rbits`).
    Half2F32Rs {
        bf: bool,
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
    /// `ldmatrix.sync.aligned.m16n16.xN.trans.b8` (N = 1, 2): per matrix, lanes `16m + r`
    /// give the 16-byte rows; lane `4g + q` receives, in registers `2m` and `2m + 1`, bytes
    /// `g` and `g + 8` of rows `4q .. 4q + 3` (`exec/isa/matrix.rs`, `docs/tensor-cores.md`).
    LdB8 { n: u8 },
    /// The decompressing `ldmatrix.sync.aligned.m8n16.xN.b8x16.src_fmt` and
    /// `.m16n16.xN.trans.b8x16.src_fmt` (`bits` 6 for `.b6x16_p32`, 4 for `.b4x16_p64`): each
    /// 16-byte row, 16 packed elements then padding, becomes 16 bytes
    /// (`ops::tensor::decompress_b8x16`); `.m16n16` then as `LdB8`, `.m8n16` lane `4r + q`
    /// receiving, in register `m`, bytes `4q .. 4q + 3` of row `r` of matrix `m` (address from
    /// lane `8m + r`).
    LdB8x16 { n: u8, m16: bool, bits: u8 },
    /// `stmatrix.sync.aligned.m16n8.xN.trans.b8`: register `m`'s byte `i + 2j` of lane
    /// `4g + q` goes to byte `g + 8j` of row `2q + i`, whose address lane `8m + 2q + i` gives.
    StB8 { n: u8 },
    /// `movmatrix.sync.aligned.m8n8.trans.b16`: transposes an 8x8 fragment across the warp.
    MovTrans,
    /// `mma.sync.aligned` (dense): `srcs` are A's, B's and C's registers in order, `dsts`
    /// D's (`crate::ops::tensor`).
    Mma(crate::ops::tensor::MmaSpec),
    /// `mma.sp{::ordered_metadata}.sync.aligned`: `srcs` are A's, B's and C's registers and
    /// the metadata, `dsts` D's (`crate::ops::sparse`).
    MmaSp(crate::ops::sparse::SpSpec),
    /// Block-scaled `mma.sync.aligned` (`.block_scale`): `srcs` are A's, B's and C's
    /// registers, then scale-a-data, byte-id-a, thread-id-a, scale-b-data, byte-id-b,
    /// thread-id-b; `dsts` D's (`crate::ops::tensor::mma_scaled`).
    MmaScaled(crate::ops::tensor::MmaScaled),
    /// Block-scaled `mma.sp::ordered_metadata.sync.aligned`: `srcs` are A's, B's and C's
    /// registers, the metadata, then the scale operands as `MmaScaled`'s; `dsts` D's
    /// (`crate::ops::sparse::mma_sp_scaled`).
    MmaSpScaled(crate::ops::sparse::SpScaled),
    /// `wmma.load.{a,b,c}`: `dsts` the fragment, `srcs` the optional stride.
    WmmaLoad(crate::ops::tensor::WmmaMove),
    /// `wmma.store.d`: `srcs` the fragment then the optional stride.
    WmmaStore(crate::ops::tensor::WmmaMove),
    /// `wmma.mma`: `srcs` A's, B's and C's registers, `dsts` D's.
    WmmaMma(crate::ops::tensor::WmmaMma),
    /// `wgmma.*` (`crate::ops::wgmma`); `mma_async`: `dsts` D's registers, `srcs` A's
    /// registers or descriptor, B's descriptor, scale-d.
    Wgmma(crate::ops::wgmma::WgOp),
    /// `tcgen05` Tensor Memory allocation and data movement (`crate::ops::tcgen05`).
    Tcgen05(crate::ops::tcgen05::Tc5Op),
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

/// What `clusterlaunchcontrol.query_cancel` reads from a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelQuery {
    /// `.is_canceled.pred`.
    IsCanceled,
    /// `.get_first_ctaid.v4.b32` (x, y, z and 0).
    FirstCtaid,
    /// `.get_first_ctaid::{x,y,z}.b32`: one coordinate.
    FirstCtaidDim(u8),
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
    /// `mov.b128`: a `.b128` register is two 64-bit registers, its own (the low half) and a
    /// hidden one (the high half, [`Dx::pair`]). The sources, read as `sbits`-wide pieces,
    /// are concatenated (first piece lowest) into 128 bits, written to `ds` as `dbits`-wide
    /// pieces. Also the vector move `mov.v2/.v4 {d..}, {a..}` (pieces of the element size).
    Mov128 {
        ds: Vec<Dst>,
        dbits: u32,
        srcs: Vec<Src>,
        sbits: u32,
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
    /// [`FloatExt`]: `.f32x2`, mixed-precision and three-input min/max forms (`c` is
    /// `Src::Imm(0)` where the form has no third source).
    FloatExt {
        x: FloatExt,
        rnd: ptxvm_fp::Rnd,
        ftz: bool,
        sat: bool,
        nan: bool,
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
    /// `atom`/`red` with a vector type (`.v2/.v4/.v8`, PTX 8.1, sm_90; `.global` only): the
    /// operation element by element, each element atomic on its own (the manual guarantees
    /// no more); `ds` is empty for `red`. `ty` is the element type.
    AtomV {
        space: MemSpace,
        op: AtomOp,
        ty: Type,
        ds: Vec<Dst>,
        addr: Addr,
        bs: Vec<Src>,
    },
    /// `atom.exch.b128` / `atom.cas.b128` (sm_90): atomic as a whole on 16 aligned bytes of
    /// global or shared memory. Registers as (low, high) halves; `c` is unused for `exch`.
    /// In global memory it is one 16-byte read-modify-write under the address space's atomic
    /// lock: atomic against every other 128-bit atomic; narrower atomics overlapping it only
    /// partly are not ordered with it (the memory model makes operations morally strong only
    /// when they overlap completely).
    Atom128 {
        space: MemSpace,
        cas: bool,
        d: [Dst; 2],
        addr: Addr,
        b: [Src; 2],
        c: [Src; 2],
    },
    /// `red.async...mbarrier::complete_tx::bytes.op.type [a], b, [mbar]` (sm_90): the
    /// reduction on shared::cluster memory (any CTA of the cluster), then the
    /// completion of its bytes (the type's size) on the mbarrier, at once.
    RedAsync {
        op: AtomOp,
        ty: Type,
        addr: Addr,
        b: Src,
        mbar: Addr,
    },
    /// `st.async...mbarrier::complete_tx::bytes` (sm_90): the store to shared::cluster
    /// memory (any CTA of the cluster), then complete_tx of its bytes on the mbarrier, at once.
    StAsync {
        ty: Type,
        srcs: Vec<Src>,
        addr: Addr,
        mbar: Addr,
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
    /// `cp.async.bulk.global.shared::cta.bulk_group.cp_mask`: `size` bytes copied in 16-byte
    /// pieces, of each piece only the bytes whose bit in the 16-bit `byte_mask` is set (bit
    /// `i`: the byte at offset `i` of the piece); the others stay as they are.
    CpBulkMasked {
        dst: Addr,
        src: Addr,
        size: Src,
        byte_mask: Src,
    },
    /// `cp.reduce.async.bulk` without a tensor map: `size` bytes of shared memory reduced
    /// element by element (each one atomic read-modify-write, as `red`) into `dst`, at once;
    /// then (with an mbarrier) `size` transaction bytes completed on it.
    CpReduceBulk {
        op: AtomOp,
        ty: Type,
        dst: Addr,
        dst_space: MemSpace,
        src: Addr,
        size: Src,
        mbar: Option<Addr>,
    },
    /// `barrier.cluster.arrive` / `.wait`: across every thread of every CTA of the cluster.
    ClusterBar {
        wait: bool,
    },
    /// `mapa`: the address of `a` in the cluster CTA `rank` (`generic`: both are generic
    /// addresses; otherwise shared::cta/shared::cluster addresses).
    Mapa {
        d: Dst,
        a: Src,
        rank: Src,
        generic: bool,
    },
    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster`:
    /// the `size` bytes at `src` (global) to the same CTA-relative offset as `dst` in every
    /// CTA of the cluster whose rank bit is set in `mask`, completing `size` bytes on the
    /// mbarrier at `mbar`'s CTA-relative offset in each.
    CpBulkMulticast {
        dst: Addr,
        src: Addr,
        size: Src,
        mbar: Addr,
        mask: Src,
    },
    /// `clusterlaunchcontrol.try_cancel`: cancels the next cluster of the grid that has not
    /// started (if any) and writes the 16-byte response to `addr` (shared::cta, or `generic`),
    /// completing 16 bytes on the mbarrier at `mbar`; `multicast`: in every CTA of the
    /// cluster, at the same CTA-relative offsets.
    TryCancel {
        addr: Addr,
        mbar: Addr,
        generic: bool,
        multicast: bool,
    },
    /// `clusterlaunchcontrol.query_cancel`: reads a try_cancel response (the `.b128`
    /// register's halves `lo`, `hi`).
    QueryCancel {
        query: CancelQuery,
        ds: Vec<Dst>,
        lo: u32,
        hi: u32,
    },
    /// `getctarank`: the cluster rank of the CTA whose shared memory address `a` points to
    /// (`generic`: a generic address).
    GetCtaRank {
        d: Dst,
        a: Src,
        generic: bool,
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
    /// `cvt.rs{.relu}.satfinite.<narrow>x4.f32 d, {a, b, e, f}, rbits` (stochastic rounding
    /// of four values; `crate::ops::alu::cvt_rs_x4`).
    CvtRsX4 {
        ty: ptxvm_fp::convert::NarrowType,
        relu: bool,
        d: Dst,
        a: [Src; 4],
        rbits: Src,
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
    /// `discard.global.L2 [a], 128`: a weak write of indeterminate values; ptxvm's value is
    /// the one already there (the line is checked, 128-byte aligned and global, and left
    /// unchanged).
    Discard {
        addr: Addr,
        size: u64,
    },
    /// `isspacep.space p, a` (`cluster`: `.shared::cluster`).
    Isspacep {
        space: MemSpace,
        d: Dst,
        a: Src,
        cluster: bool,
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
    /// TMA: `cp.async.bulk.tensor` and its reduce and prefetch forms, `tensormap.replace`,
    /// `tensormap.cp_fenceproxy` (`crate::ops::tma`; executed in `exec/isa/memory.rs`).
    Tma(Box<crate::ops::tma::TmaInst>),
    /// A texture or surface instruction (`tex`, `tld4`, `txq`, `suq`, `suld`, `sust`,
    /// `sured`, `istypep`): `exec/isa/texture.rs`.
    Texture(Box<crate::ops::texture::TexInst>),
    /// An instruction that may name the accumulator of a `wgmma.mma_async` still in flight
    /// (`crate::ops::wgmma::guard_in_flight`): it faults when it does, else runs as itself.
    WgmmaChecked(Box<DInst>),
    /// `multimem.ld_reduce`/`st`/`red` on a multicast object of one device: the address must
    /// lie in a multicast mapping (`AddressSpace::is_multicast`), else it faults; then the
    /// reduction over the one bound copy is the wrapped access (`Ld`, `St`, `Atom` or
    /// `AtomV` on global memory, `exec/isa/memory.rs`).
    Multimem(Box<DInst>),
}

impl Exec {
    /// Calls `f` with every register the instruction names: sources, destinations and
    /// address bases (the guard is the [`DInst`]'s). Exhaustive, so a new variant must say
    /// which of its fields are registers.
    /// A warp collective (`Exec::Warp`, `Exec::Matrix`, or one of them checked for `wgmma`
    /// accumulators in flight): the scheduler runs it for the whole warp.
    pub fn is_collective(&self) -> bool {
        match self {
            Exec::Warp { .. } | Exec::Matrix { .. } => true,
            Exec::WgmmaChecked(inner) => inner.exec.is_collective(),
            _ => false,
        }
    }

    pub fn each_reg(&self, visit: &mut dyn FnMut(u32)) {
        self.each_reg_rw(&mut |r, _| visit(r));
    }

    /// [`Exec::each_reg`] with whether the instruction writes the register (a
    /// destination operand: every register write of the engines goes through a `Dst`; the
    /// TMA and texture families, which do not tell them apart, count every register as
    /// written).
    pub fn each_reg_rw(&self, visit: &mut dyn FnMut(u32, bool)) {
        fn reg_s(s: &Src, visit: &mut dyn FnMut(u32, bool)) {
            if let Src::Reg(r) | Src::Pred(r, _) = s {
                visit(*r, false);
            }
        }
        fn reg_d(x: &Dst, visit: &mut dyn FnMut(u32, bool)) {
            if let Dst::Reg(r) = x {
                visit(*r, true);
            }
        }
        fn reg_a(x: &Addr, visit: &mut dyn FnMut(u32, bool)) {
            if let Addr::Reg(r, _) = x {
                visit(*r, false);
            }
        }
        match self {
            Exec::Mov { d, a, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
            }
            Exec::Pack { d, parts, .. } => {
                reg_d(d, visit);
                for x in parts {
                    reg_s(x, visit);
                }
            }
            Exec::Mov128 { ds, srcs, .. } => {
                for x in ds {
                    reg_d(x, visit);
                }
                for x in srcs {
                    reg_s(x, visit);
                }
            }
            Exec::Unpack { ds, a, .. } => {
                for x in ds {
                    reg_d(x, visit);
                }
                reg_s(a, visit);
            }
            Exec::Int { d, a, b, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
                reg_s(b, visit);
            }
            Exec::IntUn { d, a, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
            }
            Exec::Mad { d, a, b, c, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
                reg_s(b, visit);
                reg_s(c, visit);
            }
            Exec::Float { d, a, b, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
                reg_s(b, visit);
            }
            Exec::FloatExt { d, a, b, c, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
                reg_s(b, visit);
                reg_s(c, visit);
            }
            Exec::FloatUn { d, a, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
            }
            Exec::Fma { d, a, b, c, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
                reg_s(b, visit);
                reg_s(c, visit);
            }
            Exec::Setp {
                p, q, a, b, bop, ..
            } => {
                reg_d(p, visit);
                reg_d(q, visit);
                reg_s(a, visit);
                reg_s(b, visit);
                if let Some((_, x)) = bop {
                    reg_s(x, visit);
                }
            }
            Exec::Set { d, a, b, bop, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
                reg_s(b, visit);
                if let Some((_, x)) = bop {
                    reg_s(x, visit);
                }
            }
            Exec::Selp { d, a, b, c, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
                reg_s(b, visit);
                reg_s(c, visit);
            }
            Exec::PredOp { d, a, b, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
                reg_s(b, visit);
            }
            Exec::Cvt { d, a, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
            }
            Exec::Cvta { d, a, addr, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
                if let Some(x) = addr {
                    reg_a(x, visit);
                }
            }
            Exec::Ld { ds, addr, .. } => {
                for x in ds {
                    reg_d(x, visit);
                }
                reg_a(addr, visit);
            }
            Exec::St { srcs, addr, .. } => {
                for x in srcs {
                    reg_s(x, visit);
                }
                reg_a(addr, visit);
            }
            Exec::Atom { d, addr, b, c, .. } => {
                reg_d(d, visit);
                reg_a(addr, visit);
                reg_s(b, visit);
                reg_s(c, visit);
            }
            Exec::AtomV { ds, addr, bs, .. } => {
                for x in ds {
                    reg_d(x, visit);
                }
                reg_a(addr, visit);
                for x in bs {
                    reg_s(x, visit);
                }
            }
            Exec::Atom128 { d, addr, b, c, .. } => {
                for x in d {
                    reg_d(x, visit);
                }
                reg_a(addr, visit);
                for x in b.iter().chain(c) {
                    reg_s(x, visit);
                }
            }
            Exec::RedAsync { addr, b, mbar, .. } => {
                reg_a(addr, visit);
                reg_s(b, visit);
                reg_a(mbar, visit);
            }
            Exec::StAsync {
                srcs, addr, mbar, ..
            } => {
                for x in srcs {
                    reg_s(x, visit);
                }
                reg_a(addr, visit);
                reg_a(mbar, visit);
            }
            Exec::Bra { .. } => {}
            Exec::BrxIdx { index, .. } => {
                reg_s(index, visit);
            }
            Exec::Slct { d, a, b, c, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
                reg_s(b, visit);
                reg_s(c, visit);
            }
            Exec::Ret => {}
            Exec::Exit => {}
            Exec::Trap => {}
            Exec::Brkpt => {}
            Exec::Bar { id, count, .. } => {
                reg_s(id, visit);
                if let Some(x) = count {
                    reg_s(x, visit);
                }
            }
            Exec::Fence => {}
            Exec::CpAsync {
                dst,
                src,
                src_size,
                ignore,
                ..
            } => {
                reg_a(dst, visit);
                reg_a(src, visit);
                if let Some(x) = src_size {
                    reg_s(x, visit);
                }
                if let Some(x) = ignore {
                    reg_s(x, visit);
                }
            }
            Exec::Call { .. } => {}
            Exec::CallIndirect { target, .. } => {
                reg_s(target, visit);
            }
            Exec::MBar { addr, d, a, .. } => {
                reg_a(addr, visit);
                reg_d(d, visit);
                reg_s(a, visit);
            }
            Exec::MBarPending { d, state } => {
                reg_d(d, visit);
                reg_s(state, visit);
            }
            Exec::CpBulk {
                dst,
                src,
                size,
                mbar,
                ..
            }
            | Exec::CpReduceBulk {
                dst,
                src,
                size,
                mbar,
                ..
            } => {
                reg_a(dst, visit);
                reg_a(src, visit);
                reg_s(size, visit);
                if let Some(x) = mbar {
                    reg_a(x, visit);
                }
            }
            Exec::CpBulkMasked {
                dst,
                src,
                size,
                byte_mask,
            } => {
                reg_a(dst, visit);
                reg_a(src, visit);
                reg_s(size, visit);
                reg_s(byte_mask, visit);
            }
            Exec::ClusterBar { .. } => {}
            Exec::Mapa { d, a, rank, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
                reg_s(rank, visit);
            }
            Exec::GetCtaRank { d, a, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
            }
            Exec::TryCancel { addr, mbar, .. } => {
                reg_a(addr, visit);
                reg_a(mbar, visit);
            }
            Exec::QueryCancel { ds, lo, hi, .. } => {
                for x in ds {
                    reg_d(x, visit);
                }
                reg_s(&Src::Reg(*lo), visit);
                reg_s(&Src::Reg(*hi), visit);
            }
            Exec::CpBulkMulticast {
                dst,
                src,
                size,
                mbar,
                mask,
            } => {
                reg_a(dst, visit);
                reg_a(src, visit);
                reg_s(size, visit);
                reg_a(mbar, visit);
                reg_s(mask, visit);
            }
            Exec::Video(x) => {
                reg_d(&x.d, visit);
                for s in [&x.a, &x.b, &x.c] {
                    reg_s(s, visit);
                }
            }
            Exec::IntX { d, s, pred, .. } => {
                reg_d(d, visit);
                for x in s {
                    reg_s(x, visit);
                }
                if let Some((x, _, y)) = pred {
                    reg_d(x, visit);
                    reg_s(y, visit);
                }
            }
            Exec::Carry { d, a, b, c, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
                reg_s(b, visit);
                reg_s(c, visit);
            }
            Exec::Half { d, a, b, c, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
                reg_s(b, visit);
                reg_s(c, visit);
            }
            Exec::Testp { d, a, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
            }
            Exec::CvtX { d, a, b, c, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
                reg_s(b, visit);
                reg_s(c, visit);
            }
            Exec::CvtRsX4 { d, a, rbits, .. } => {
                reg_d(d, visit);
                for x in a {
                    reg_s(x, visit);
                }
                reg_s(rbits, visit);
            }
            Exec::Warp {
                d,
                p,
                a,
                b,
                c,
                mask,
                ..
            } => {
                reg_d(d, visit);
                reg_d(p, visit);
                reg_s(a, visit);
                reg_s(b, visit);
                reg_s(c, visit);
                if let Some(x) = mask {
                    reg_s(x, visit);
                }
            }
            Exec::Matrix {
                dsts, srcs, addr, ..
            } => {
                for x in dsts {
                    reg_d(x, visit);
                }
                for x in srcs {
                    reg_s(x, visit);
                }
                if let Some((_, x)) = addr {
                    reg_a(x, visit);
                }
            }
            Exec::BarRed {
                d, id, count, pred, ..
            } => {
                reg_d(d, visit);
                reg_s(id, visit);
                if let Some(x) = count {
                    reg_s(x, visit);
                }
                reg_s(pred, visit);
            }
            Exec::Nop => {}
            Exec::Discard { addr, .. } => {
                reg_a(addr, visit);
            }
            Exec::Isspacep { d, a, .. } => {
                reg_d(d, visit);
                reg_s(a, visit);
            }
            Exec::Alloca { d, size, .. } => {
                reg_d(d, visit);
                reg_s(size, visit);
            }
            Exec::StackSave { d } => {
                reg_d(d, visit);
            }
            Exec::StackRestore { a } => {
                reg_s(a, visit);
            }
            Exec::Builtin { .. } => {}
            Exec::Unsupported(_) => {}
            Exec::Tma(x) => x.each_reg(&mut |r| visit(r, true)),
            Exec::Texture(x) => x.each_reg(&mut |r| visit(r, true)),
            Exec::WgmmaChecked(inner) => inner.exec.each_reg_rw(visit),
            Exec::Multimem(inner) => inner.exec.each_reg_rw(visit),
        }
    }
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
    /// Per PC (and one past the end), whether a warp's turn may end there: the function's
    /// entry, every branch target and the instruction after every branch ([`yield_points`]).
    pub yields: Vec<bool>,
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
    /// Most CTAs per cluster (`.maxclusterrank`).
    pub maxclusterrank: Option<u32>,
    /// The kernel must be launched with a cluster shape (`.explicitcluster`).
    pub explicitcluster: bool,
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
    /// Register names, kept only for functions with `wgmma.mma_async` (their fault messages
    /// name the accumulator an instruction touched too early).
    pub reg_names: Vec<String>,
    /// The kernel compiled to native code (the JIT engine), once a launch asked for it.
    pub(crate) jit: crate::exec::jit::JitSlot,
    /// Set once the kernel is queued for compiling in the background.
    pub(crate) jit_queued: std::sync::OnceLock<()>,
    /// The register slots a thread may read before writing them (live at the kernel's first
    /// instruction), which a reused CTA must zero; `None`: all of them. Computed once, for
    /// the warp engine and the JIT (see `Cta::reset`).
    pub(crate) entry_live: std::sync::OnceLock<Option<std::sync::Arc<[RegSlot]>>>,
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

pub(crate) fn int_of(v: u64, ty: Type) -> u64 {
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

pub(crate) struct Dx<'a> {
    pub(crate) m: &'a ir::Module,
    /// `.branchtargets` lists of the function, as pcs.
    pub(crate) targets: Vec<(String, Vec<u32>)>,
    pub(crate) canon: &'a [u32],
    pub(crate) gvars: &'a [VarLoc],
    pub(crate) locals: Vec<VarLoc>,
    pub(crate) params: Vec<VarLoc>,
    pub(crate) rets: Vec<VarLoc>,
    /// Per register, the hidden register holding the high half of a `.b128` register
    /// (`u32::MAX` for the others; see [`Dx::pair`]).
    pub(crate) hi: Vec<u32>,
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
    // Registers hold 64 bits: a `.b128` register gets a hidden `.b64` register, appended
    // after the declared ones, for its high half.
    let mut reg_types: Vec<Type> = f.regs.iter().map(|r| r.ty).collect();
    let mut hi = vec![u32::MAX; reg_types.len()];
    for (i, r) in f.regs.iter().enumerate() {
        if r.ty == Type::B128 {
            hi[i] = u32::try_from(reg_types.len())
                .map_err(|_| format!("function `{}` has too many registers", f.name))?;
            reg_types.push(Type::B64);
        }
    }
    let (reg_slots, banks) = reg_slots(&reg_types);
    let mut fc = FuncCode {
        reg_slots,
        banks,
        reg_types: reg_types.clone(),
        name: f.name.clone(),
        is_entry,
        defined: f.defined,
        reg_masks: reg_types
            .iter()
            .map(|&ty| match ty {
                Type::Pred => 1,
                ty if ty.bits() >= 64 => u64::MAX,
                ty => (1u64 << ty.bits()) - 1,
            })
            .collect(),
        reqntid: f.tuning.reqntid,
        maxntid: f.tuning.maxntid,
        maxnreg: f.tuning.maxnreg,
        cluster: f.tuning.reqnctapercluster,
        maxclusterrank: f.tuning.maxclusterrank,
        explicitcluster: f.tuning.explicitcluster,
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
        hi,
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
    if crate::ops::wgmma::guard_in_flight(&mut fc.code) {
        fc.reg_names = (0..f.regs.len() as u32).map(|r| f.reg_name(r)).collect();
    }
    fc.yields = yield_points(&fc.code);
    Ok(fc)
}

/// The PCs at which a warp's turn may end once it has run its quantum (the same in every
/// engine, so they interleave warps alike): PC 0, the targets of `bra` and `brx.idx`, and the
/// instruction after each. Every loop passes one, so a turn always ends; the JIT's native
/// blocks start at every one of them, so they can run whole blocks and still stop where the
/// interpreters do.
pub fn yield_points(code: &[DInst]) -> Vec<bool> {
    let n = code.len();
    let mut y = vec![false; n + 1];
    y[0] = true;
    for (pc, i) in code.iter().enumerate() {
        let targets: &[u32] = match &i.exec {
            Exec::Bra { target } => std::slice::from_ref(target),
            Exec::BrxIdx { targets, .. } => targets,
            _ => continue,
        };
        for &t in targets {
            if let Some(v) = y.get_mut(t as usize) {
                *v = true;
            }
        }
        y[pc + 1] = true;
    }
    y
}

pub(crate) fn rnd_of(mods: &[&str]) -> Option<ptxvm_fp::Rnd> {
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

pub(crate) fn irnd_of(mods: &[&str]) -> Option<ptxvm_fp::Rnd> {
    use ptxvm_fp::Rnd::*;
    mods.iter().find_map(|m| match *m {
        ".rni" => Some(Rn),
        ".rzi" => Some(Rz),
        ".rmi" => Some(Rm),
        ".rpi" => Some(Rp),
        _ => None,
    })
}

pub(crate) fn cmp_of(mods: &[&str]) -> Option<(ptxvm_fp::arith::CmpOp, Option<bool>)> {
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

pub(crate) fn hmods(mods: &[&str]) -> HMods {
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

pub(crate) fn narrow_of(m: &str) -> Option<ptxvm_fp::convert::NarrowType> {
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

pub(crate) fn bool_of(mods: &[&str]) -> Option<BoolOp> {
    mods.iter().find_map(|m| match *m {
        ".and" => Some(BoolOp::And),
        ".or" => Some(BoolOp::Or),
        ".xor" => Some(BoolOp::Xor),
        _ => None,
    })
}

pub(crate) fn space_of(mods: &[&str]) -> MemSpace {
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
    pub(crate) fn var(&self, v: VarRef) -> VarLoc {
        match v {
            VarRef::Global(g) => self.gvars[g as usize],
            VarRef::Local(l) => self.locals[l as usize],
            VarRef::Param(p) => self.params[p as usize],
            VarRef::Ret(r) => self.rets[r as usize],
        }
    }

    pub(crate) fn src(&self, o: &Op) -> Option<Src> {
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
    pub(crate) fn fsrc(&self, o: &Op, ty: Type) -> Option<Src> {
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

    pub(crate) fn dst(&self, o: &Op) -> Option<Dst> {
        match o {
            Op::Reg(r) => Some(Dst::Reg(*r)),
            Op::Pred { reg, neg: false } => Some(Dst::Reg(*reg)),
            Op::Sink => Some(Dst::Sink),
            _ => None,
        }
    }

    pub(crate) fn addr(&self, o: &Op) -> Option<Addr> {
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

    fn exec(&self, inst: &ir::Inst, blocks: &[u32]) -> Exec {
        let name = || format!("{}{}", inst.opcode, inst.mods.concat());
        // Only the `.b128` forms of mov/ld/ldu/st/atom (and `clusterlaunchcontrol`'s response)
        // know that a `.b128` register is two.
        if inst.ty != Some(Type::B128)
            && inst.opcode != "clusterlaunchcontrol"
            && inst.operands.iter().any(|o| self.names_b128(o))
        {
            return Exec::Unsupported(format!("{} with a .b128 register operand", name()));
        }
        self.try_exec(inst, blocks)
            .unwrap_or_else(|| Exec::Unsupported(name()))
    }

    /// Whether the operand names a `.b128` register.
    fn names_b128(&self, o: &Op) -> bool {
        let wide = |r: &u32| self.hi.get(*r as usize).is_some_and(|&h| h != u32::MAX);
        match o {
            Op::Reg(r) | Op::Pred { reg: r, .. } => wide(r),
            Op::Addr {
                base: Base::Reg(r), ..
            } => wide(r),
            Op::Vector(v) => v.iter().any(|x| self.names_b128(x)),
            _ => false,
        }
    }

    /// A `.b128` register operand as its (low, high) 64-bit registers.
    pub(crate) fn pair(&self, o: &Op) -> Option<(u32, u32)> {
        match o {
            Op::Reg(r) => {
                let h = *self.hi.get(*r as usize)?;
                (h != u32::MAX).then_some((*r, h))
            }
            _ => None,
        }
    }

    /// The 64-bit halves, low then high, of the `.b128` register or vector of them `o`.
    pub(crate) fn pairs(&self, o: &Op) -> Option<Vec<u32>> {
        let regs = match o {
            Op::Vector(v) => v.iter().collect::<Vec<_>>(),
            o => vec![o],
        };
        let mut halves = Vec::with_capacity(2 * regs.len());
        for o in regs {
            let (lo, hi) = self.pair(o)?;
            halves.extend([lo, hi]);
        }
        Some(halves)
    }

    fn try_exec(&self, inst: &ir::Inst, blocks: &[u32]) -> Option<Exec> {
        match inst.opcode {
            "mov" | "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or"
            | "xor" | "shl" | "shr" | "copysign" | "not" | "cnot" | "neg" | "abs" | "popc"
            | "clz" | "brev" | "sqrt" | "rcp" | "rsqrt" | "sin" | "cos" | "lg2" | "ex2"
            | "tanh" | "mad" | "fma" | "addc" | "subc" | "madc" | "mul24" | "mad24" | "sad"
            | "bfe" | "bfi" | "bfind" | "fns" | "szext" | "bmsk" | "prmt" | "lop3" | "shf"
            | "dp4a" | "dp2a" => self.decode_arith(inst),
            "setp" | "set" | "selp" | "slct" | "testp" => self.decode_compare(inst),
            "cvt" | "cvta" => self.decode_convert(inst),
            "ld" | "ldu" | "st" | "atom" | "red" | "cp" | "mapa" | "createpolicy"
            | "getctarank" | "prefetch" | "prefetchu" | "applypriority" | "discard"
            | "isspacep" | "alloca" | "stacksave" | "stackrestore" | "tensormap" | "multimem" => {
                self.decode_memory(inst)
            }
            "tex" | "tld4" | "txq" | "suq" | "suld" | "sust" | "sured" | "istypep" => {
                self.decode_texture(inst)
            }
            "brx" | "nanosleep" | "pmevent" | "brkpt" | "bra" | "ret" | "exit" | "trap"
            | "membar" | "fence" | "griddepcontrol" | "setmaxnreg" | "call" => {
                self.decode_control(inst, blocks)
            }
            "mbarrier" | "barrier" | "bar" | "clusterlaunchcontrol" => self.decode_sync(inst),
            "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vmad" | "vset"
            | "vadd2" | "vsub2" | "vavrg2" | "vabsdiff2" | "vmin2" | "vmax2" | "vset2"
            | "vadd4" | "vsub4" | "vavrg4" | "vabsdiff4" | "vmin4" | "vmax4" | "vset4" => {
                self.decode_video(inst)
            }
            "activemask" | "vote" | "shfl" | "match" | "redux" | "elect" => self.decode_warp(inst),
            "ldmatrix" | "stmatrix" | "movmatrix" | "mma" | "wmma" | "wgmma" | "tcgen05" => {
                self.decode_matrix(inst)
            }
            _ => None,
        }
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
