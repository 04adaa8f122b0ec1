//! The typed IR: what every engine consumes. Names are resolved to indices, registers are
//! typed, labels are bound to basic blocks, every instruction is bound to its instruction
//! table form (so its modifiers and operand types are known), and spans live in side
//! tables beside the structure (so two modules can be compared structurally).
//! Invariant: an IR [`Module`] is only produced for modules the checker accepted, except
//! that [`crate::check`] also returns a best-effort IR alongside errors for tools.

use crate::types::{Space, Type};
use ptxvm_syntax::Span;

/// Index of a register within its function.
pub type RegId = u32;
/// Index of a basic block within its function.
pub type BlockId = u32;
/// Index of a function within the module.
pub type FuncId = u32;

/// A checked module.
#[derive(Debug, Clone, Default)]
pub struct Module {
    /// `.version` as (major, minor).
    pub version: (u32, u32),
    /// `.target` entries as written.
    pub targets: Vec<String>,
    /// The SM number of the target (e.g. 80 for `sm_80`).
    pub sm: u32,
    /// Whether the target is architecture-specific (`sm_90a`, `sm_100f`).
    pub arch_specific: bool,
    /// 32 or 64.
    pub address_size: u32,
    pub vars: Vec<Var>,
    pub funcs: Vec<Func>,
    /// `.file` entries: (index, name).
    pub files: Vec<(u32, String)>,
    /// Side table: the span of each module variable.
    pub var_spans: Vec<Span>,
}

/// Linkage of a symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linkage {
    Internal,
    Visible,
    Extern,
    Weak,
    Common,
}

/// A variable or parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Var {
    pub name: String,
    pub space: Space,
    /// Sub-qualifier of the space as written (`::cta`, `::entry`), empty if none.
    pub space_qual: String,
    pub ty: Type,
    /// 1 for scalars, else the vector length.
    pub vector: u32,
    /// Array dimensions; 0 for an unsized `[]` dimension.
    pub dims: Vec<u64>,
    /// Alignment in bytes (explicit `.align`, else the element size).
    pub align: u32,
    pub linkage: Linkage,
    /// Total size in bytes (0 for unsized extern arrays).
    pub size: u64,
    /// Initialiser as flat little-endian bytes plus symbol relocations (byte offset, symbol
    /// name, addend, generic).
    pub init: Option<InitData>,
    /// `.ptr` attribute of a kernel parameter: (space, align).
    pub ptr: Option<(Option<Space>, u32)>,
    /// `.attribute(.managed)` and friends.
    pub attributes: Vec<String>,
}

/// A variable's initial contents.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InitData {
    pub bytes: Vec<u8>,
    pub relocs: Vec<(u64, String, i64, bool)>,
}

/// `.entry` or `.func`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FuncKind {
    Entry,
    Func,
}

/// Performance-tuning directives of a function.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tuning {
    pub maxntid: Option<[u32; 3]>,
    pub reqntid: Option<[u32; 3]>,
    pub minnctapersm: Option<u32>,
    pub maxnctapersm: Option<u32>,
    pub maxnreg: Option<u32>,
    pub reqnctapercluster: Option<[u32; 3]>,
    pub maxclusterrank: Option<u32>,
    pub explicitcluster: bool,
    pub noreturn: bool,
    pub pragmas: Vec<String>,
}

/// A declared register (a `%r<N>` range is expanded into N registers).
#[derive(Debug, Clone, PartialEq)]
pub struct Reg {
    pub name: String,
    pub ty: Type,
    /// 1 for scalars, else the vector length (`.reg .v4 .f32 %v`).
    pub vector: u32,
}

/// A kernel or function.
#[derive(Debug, Clone, Default)]
pub struct Func {
    pub name: String,
    pub kind: Option<FuncKind>,
    pub linkage: Option<Linkage>,
    pub params: Vec<Var>,
    pub rets: Vec<Var>,
    pub regs: Vec<Reg>,
    /// Parameterised register declarations (`%r<100>`): (prefix, first register, count).
    /// Their members have empty [`Reg::name`]s; see [`Func::reg_name`].
    pub reg_ranges: Vec<(String, RegId, u32)>,
    /// Function-scope `.local`/`.shared`/`.param`/`.const` variables.
    pub locals: Vec<Var>,
    pub tuning: Tuning,
    /// Whether the function has a body (false for declarations).
    pub defined: bool,
    pub insts: Vec<Inst>,
    /// Basic blocks: the index of each block's first instruction, in order; block 0 starts
    /// at instruction 0.
    pub blocks: Vec<u32>,
    /// Label name of each block (empty for the entry block and fall-through blocks).
    pub block_labels: Vec<String>,
    /// `.branchtargets` lists: (name, target blocks), for `brx.idx`.
    pub branch_targets: Vec<(String, Vec<BlockId>)>,
    /// Side tables: span of each instruction, `.loc` (file, line, col) in force at it.
    pub inst_spans: Vec<Span>,
    pub inst_locs: Vec<Option<(u32, u32, u32)>>,
    pub span: Span,
}

impl Func {
    /// The name of a register, including members of `%r<N>` ranges (`%r7`).
    pub fn reg_name(&self, id: RegId) -> String {
        let r = &self.regs[id as usize];
        if !r.name.is_empty() {
            return r.name.clone();
        }
        self.reg_ranges
            .iter()
            .find(|(_, first, n)| (*first..*first + *n).contains(&id))
            .map_or_else(
                || format!("%<reg {id}>"),
                |(p, first, _)| format!("{p}{}", id - first),
            )
    }
}

/// A special register (§10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SReg {
    /// Index into [`SREGS`].
    pub id: u16,
    /// Component: 0..3 for `.x .y .z .w`, or 0 when there is none.
    pub comp: u8,
}

/// Special registers: name, type, whether it has `.x/.y/.z` components.
pub const SREGS: &[(&str, Type, bool)] = &[
    ("%tid", Type::U32, true),
    ("%ntid", Type::U32, true),
    ("%laneid", Type::U32, false),
    ("%warpid", Type::U32, false),
    ("%nwarpid", Type::U32, false),
    ("%ctaid", Type::U32, true),
    ("%nctaid", Type::U32, true),
    ("%smid", Type::U32, false),
    ("%nsmid", Type::U32, false),
    ("%gridid", Type::U64, false),
    ("%lanemask_eq", Type::U32, false),
    ("%lanemask_le", Type::U32, false),
    ("%lanemask_lt", Type::U32, false),
    ("%lanemask_ge", Type::U32, false),
    ("%lanemask_gt", Type::U32, false),
    ("%clock", Type::U32, false),
    ("%clock_hi", Type::U32, false),
    ("%clock64", Type::U64, false),
    ("%globaltimer", Type::U64, false),
    ("%globaltimer_lo", Type::U32, false),
    ("%globaltimer_hi", Type::U32, false),
    ("%dynamic_smem_size", Type::U32, false),
    ("%total_smem_size", Type::U32, false),
    ("%aggr_smem_size", Type::U32, false),
    ("%reserved_smem_offset_begin", Type::B32, false),
    ("%reserved_smem_offset_end", Type::B32, false),
    ("%reserved_smem_offset_cap", Type::B32, false),
    ("%current_graph_exec", Type::U64, false),
    ("%cluster_ctarank", Type::U32, false),
    ("%cluster_nctarank", Type::U32, false),
    ("%clusterid", Type::U32, true),
    ("%nclusterid", Type::U32, true),
    ("%cluster_ctaid", Type::U32, true),
    ("%cluster_nctaid", Type::U32, true),
    ("%is_explicit_cluster", Type::Pred, false),
];

/// Looks up a special register by name (`%pm3`, `%envreg7`, `%pm0_64` included).
pub fn sreg_lookup(name: &str) -> Option<(u16, Type, bool)> {
    if let Some(i) = SREGS.iter().position(|s| s.0 == name) {
        let (_, t, c) = SREGS[i];
        return Some((i as u16, t, c));
    }
    let base = SREGS.len() as u16;
    if let Some(n) = name.strip_prefix("%pm") {
        if let Some(k) = n
            .strip_suffix("_64")
            .and_then(|k| k.parse::<u16>().ok())
            .filter(|&k| k < 8)
        {
            return Some((base + 8 + k, Type::U64, false));
        }
        if let Some(k) = n.parse::<u16>().ok().filter(|&k| k < 8) {
            return Some((base + k, Type::U32, false));
        }
    }
    if let Some(k) = name
        .strip_prefix("%envreg")
        .and_then(|k| k.parse::<u16>().ok())
        .filter(|&k| k < 32)
    {
        return Some((base + 16 + k, Type::B32, false));
    }
    None
}

/// A reference to a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarRef {
    /// Module variable index.
    Global(u32),
    /// Function-local variable index.
    Local(u32),
    /// Parameter index.
    Param(u32),
    /// Return parameter index.
    Ret(u32),
}

/// The base of an address operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    Reg(RegId),
    Var(VarRef),
    /// An absolute address (`[100]`).
    Abs,
}

/// A resolved operand.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Reg(RegId),
    /// A vector register's component (`%v1.x`).
    RegComp(RegId, u8),
    /// A predicate, possibly negated (`!p`).
    Pred {
        reg: RegId,
        neg: bool,
    },
    SReg(SReg),
    /// An integer immediate (two's complement bits).
    Imm(u64),
    /// A floating-point immediate as f64 bits, and whether written as `0f` (single).
    FImm {
        bits: u64,
        single: bool,
    },
    Addr {
        base: Base,
        offset: i64,
    },
    /// Multi-part texture/surface address `[tex, sampler, {coords}]`.
    TexAddr(Vec<Op>),
    Vector(Vec<Op>),
    Label(BlockId),
    Func(FuncId),
    /// A variable's address plus an offset (`sym`, `sym+8`); `generic` for `generic(sym)`.
    Sym {
        var: VarRef,
        offset: i64,
        generic: bool,
    },
    /// A `.callprototype` or `.branchtargets` name, resolved within the function.
    Target(String),
    Sink,
    /// `d|p`.
    Pair(Box<Op>, Box<Op>),
    /// `(a, b)` of a call.
    List(Vec<Op>),
    /// A register with a video-instruction sub-word selector (`%r1.b0`, `%r2.h10`).
    Select(RegId, VSel),
    /// A negated source (`-%r1`, `-5`): the operand negates of `vmad`.
    Neg(Box<Op>),
}

/// A sub-word selector written on a video-instruction operand: `.b0`..`.b3`/`.h0`/`.h1`
/// (scalar forms), `.hxy`/`.bxyzw` (lanes of the SIMD forms' sources, picked from the eight
/// bytes or four half-words of `{b, a}`) and the destination masks (`.h10`, `.b31`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VSel {
    /// Half-word lanes (`.h…`) rather than bytes (`.b…`).
    pub half: bool,
    /// Number of lane digits written (1 to 4).
    pub n: u8,
    /// The lane digits as written, most significant element first (`.b3210` → `[3,2,1,0]`).
    pub lanes: [u8; 4],
}

impl VSel {
    /// Parses `.b…`/`.h…` with one to four decimal digits 0..7; `None` for anything else.
    pub fn parse(text: &str) -> Option<VSel> {
        let rest = text.strip_prefix('.')?;
        let half = match rest.as_bytes().first()? {
            b'h' => true,
            b'b' => false,
            _ => return None,
        };
        let digits = &rest.as_bytes()[1..];
        if digits.is_empty() || digits.len() > 4 {
            return None;
        }
        let mut lanes = [0u8; 4];
        for (k, d) in digits.iter().enumerate() {
            if !(b'0'..=b'7').contains(d) {
                return None;
            }
            lanes[k] = d - b'0';
        }
        Some(VSel {
            half,
            n: digits.len() as u8,
            lanes,
        })
    }

    /// The digits as written (`[3, 1]` for `.b31`).
    pub fn digits(&self) -> &[u8] {
        &self.lanes[..self.n as usize]
    }
}

impl std::fmt::Display for VSel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, ".{}", if self.half { 'h' } else { 'b' })?;
        for d in self.digits() {
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

/// A resolved instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Inst {
    /// Index of the matched form in [`crate::isa::Table::get`]`().forms`.
    pub form: u32,
    /// The opcode (text owned by the instruction table).
    pub opcode: &'static str,
    /// Modifiers as written, in order (text owned by the instruction table; shared by every
    /// instruction with the same spelling).
    pub mods: std::sync::Arc<[&'static str]>,
    /// The primary (instruction) type, when the form has one.
    pub ty: Option<Type>,
    pub guard: Option<(RegId, bool)>,
    pub operands: Vec<Op>,
}

impl Module {
    /// A span-free textual dump of the whole structure, for comparing two modules.
    pub fn structure(&self) -> String {
        let mut s = format!(
            "version {:?} targets {:?} sm {} arch {} address_size {}\n",
            self.version, self.targets, self.sm, self.arch_specific, self.address_size
        );
        for v in &self.vars {
            s.push_str(&format!("var {v:?}\n"));
        }
        for f in &self.funcs {
            s.push_str(&format!(
                "func {} {:?} {:?} defined={} params={:?} rets={:?} regs={:?} ranges={:?} locals={:?} tuning={:?} targets={:?} blocks={:?} labels={:?} locs={:?}\n",
                f.name, f.kind, f.linkage, f.defined, f.params, f.rets, f.regs, f.reg_ranges, f.locals, f.tuning, f.branch_targets, f.blocks, f.block_labels, f.inst_locs
            ));
            for i in &f.insts {
                s.push_str(&format!("  {i:?}\n"));
            }
        }
        s
    }
}
