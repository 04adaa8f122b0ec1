//! Memory: `ld`/`ldu`, `st` (and `.b128` accesses), `atom`/`red` (scalar, vector and
//! `.b128`), `st.async`/`red.async`, the asynchronous copies (`cp.async`, `cp.async.bulk`,
//! `cp.async.mbarrier.arrive`), `mapa`, `getctarank`, `createpolicy`, `prefetch`, `discard`,
//! `isspacep`, `alloca`, `stacksave`/`stackrestore`.
//!
//! Decoding (`Dx::decode_memory`, called by `program.rs`) and the reference engine's
//! execution (`Cta::exec_memory`).

use crate::exec::*;
use crate::ops::tma;
use ptxvm_ir::ir::{self, Op};
use ptxvm_ir::types::Space;

impl Dx<'_> {
    /// Decodes the memory family's instructions (`None`: a form the engines do not run).
    pub(crate) fn decode_memory(&self, inst: &ir::Inst) -> Option<Exec> {
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        let ops = &inst.operands;
        let op = |k: usize| ops.get(k);
        Some(match inst.opcode {
            "ld" | "ldu" => {
                let t = mods.iter().rev().find_map(|m| Type::from_dot(m))?;
                if t == Type::B128 {
                    // Each `.b128` register is two 64-bit ones: a `.v2.b64` access of them.
                    return Some(Exec::Ld {
                        space: space_of(mods),
                        ty: Type::B64,
                        ds: self.pairs(op(0)?)?.into_iter().map(Dst::Reg).collect(),
                        addr: self.addr(op(1)?)?,
                    });
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
            "st" if has(".async") => {
                // The `.mmio.release` global form is a plain store here (no memory-mapped
                // I/O; every store is already ordered as `.release` requires).
                let t = mods.iter().rev().find_map(|m| Type::from_dot(m))?;
                let srcs = match op(1)? {
                    Op::Vector(v) => v
                        .iter()
                        .map(|x| self.fsrc(x, t))
                        .collect::<Option<Vec<_>>>()?,
                    o => vec![self.fsrc(o, t)?],
                };
                let addr = self.addr(op(0)?)?;
                match op(2) {
                    Some(m) => Exec::StAsync {
                        ty: t,
                        srcs,
                        addr,
                        mbar: self.addr(m)?,
                    },
                    None => Exec::St {
                        space: MemSpace::Global,
                        ty: t,
                        srcs,
                        addr,
                    },
                }
            }
            "st" => {
                let t = mods.iter().rev().find_map(|m| Type::from_dot(m))?;
                if t == Type::B128 {
                    return Some(Exec::St {
                        space: space_of(mods),
                        ty: Type::B64,
                        srcs: self.pairs(op(1)?)?.into_iter().map(Src::Reg).collect(),
                        addr: self.addr(op(0)?)?,
                    });
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
                if has(".async") {
                    return self.decode_red_async(inst, t);
                }
                let aop = mods.iter().find_map(|m| AtomOp::from_dot(m))?;
                let rest = usize::from(inst.opcode == "atom");
                // `.L2::cache_hint` only steers caches: its policy operand is ignored.
                let hint = has(".L2::cache_hint");
                let lanes = mods.iter().find_map(|m| match *m {
                    ".v2" => Some(2),
                    ".v4" => Some(4),
                    ".v8" => Some(8),
                    _ => None,
                });
                if let Some(n) = lanes {
                    // Vector forms: `.add` on `.f32`, `.add/.min/.max` on the half types.
                    let ok = match t {
                        Type::F32 => aop == AtomOp::Add,
                        _ if crate::ops::half::is_half(t) => {
                            matches!(aop, AtomOp::Add | AtomOp::Min | AtomOp::Max)
                        }
                        _ => false,
                    };
                    fn elems(o: Option<&Op>, n: usize) -> Option<&[Op]> {
                        match o? {
                            Op::Vector(v) if v.len() == n => Some(v),
                            _ => None,
                        }
                    }
                    if !ok {
                        return None;
                    }
                    let ds = if rest == 1 {
                        elems(op(0), n)?
                            .iter()
                            .map(|x| self.dst(x))
                            .collect::<Option<Vec<_>>>()?
                    } else {
                        Vec::new()
                    };
                    let bs = elems(op(rest + 1), n)?
                        .iter()
                        .map(|x| self.fsrc(x, t))
                        .collect::<Option<Vec<_>>>()?;
                    return Some(Exec::AtomV {
                        space: space_of(mods),
                        op: aop,
                        ty: t,
                        ds,
                        addr: self.addr(op(rest)?)?,
                        bs,
                    });
                }
                if t == Type::B128 {
                    let cas = match aop {
                        AtomOp::Cas => true,
                        AtomOp::Exch => false,
                        _ => return None,
                    };
                    let (dl, dh) = self.pair(op(0)?)?;
                    let (bl, bh) = self.pair(op(2)?)?;
                    let (cl, ch) = if cas { self.pair(op(3)?)? } else { (bl, bh) };
                    return Some(Exec::Atom128 {
                        space: space_of(mods),
                        cas,
                        d: [Dst::Reg(dl), Dst::Reg(dh)],
                        addr: self.addr(op(1)?)?,
                        b: [Src::Reg(bl), Src::Reg(bh)],
                        c: [Src::Reg(cl), Src::Reg(ch)],
                    });
                }
                if crate::ops::half::is_half(t) && aop != AtomOp::Add {
                    return None;
                }
                let d = if rest == 1 {
                    self.dst(op(0)?)?
                } else {
                    Dst::Sink
                };
                let addr = self.addr(op(rest)?)?;
                let b = self.fsrc(op(rest + 1)?, t)?;
                let c = match op(rest + 2) {
                    Some(o) if !hint => self.fsrc(o, t)?,
                    _ => Src::Imm(0),
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
            "cp" if has(".async") && has(".mbarrier") && has(".arrive") => Exec::MBar {
                op: MBarOp::CpAsyncArrive {
                    noinc: has(".noinc"),
                },
                space: space_of(mods),
                addr: self.addr(op(0)?)?,
                d: Dst::Sink,
                a: Src::Imm(1),
            },
            "cp" if has(".tensor") => return self.decode_tma_copy(inst),
            "tensormap" => return self.decode_tensormap(inst),
            "cp" if has(".reduce") && has(".bulk") && !has(".tensor") => {
                let t = mods.iter().rev().find_map(|m| Type::from_dot(m))?;
                let rop = mods.iter().find_map(|m| AtomOp::reduction_from_dot(m))?;
                // The destination's space comes first (`.global.shared::cta`).
                let dst_space = mods
                    .iter()
                    .find(|m| Space::from_dot(m).is_some())
                    .map(|m| space_of(&[m]))?;
                Exec::CpReduceBulk {
                    op: rop,
                    ty: t,
                    dst: self.addr(op(0)?)?,
                    dst_space,
                    src: self.addr(op(1)?)?,
                    size: self.src(op(2)?)?,
                    mbar: if has(".mbarrier::complete_tx::bytes") {
                        Some(self.addr(op(3)?)?)
                    } else {
                        None
                    },
                }
            }
            "cp" if has(".async") && has(".bulk") && has(".cp_mask") && !has(".tensor") => {
                // `[dst], [src], size{, policy}, byteMask`: the policy only steers caches.
                Exec::CpBulkMasked {
                    dst: self.addr(op(0)?)?,
                    src: self.addr(op(1)?)?,
                    size: self.src(op(2)?)?,
                    byte_mask: self.src(op(if has(".L2::cache_hint") { 4 } else { 3 })?)?,
                }
            }
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
            "cp" if has(".async")
                && has(".bulk")
                && has(".multicast::cluster")
                && has(".mbarrier::complete_tx::bytes")
                && !has(".tensor")
                && !has(".prefetch") =>
            {
                Exec::CpBulkMulticast {
                    dst: self.addr(op(0)?)?,
                    src: self.addr(op(1)?)?,
                    size: self.src(op(2)?)?,
                    mbar: self.addr(op(3)?)?,
                    mask: self.src(op(4)?)?,
                }
            }
            "cp" if has(".async") && has(".bulk") && has(".prefetch") && !has(".tensor") => {
                Exec::Fence
            }
            "multimem" => return self.decode_multimem(inst),
            "mapa" => Exec::Mapa {
                d: self.dst(op(0)?)?,
                a: self.src(op(1)?)?,
                rank: self.src(op(2)?)?,
                generic: space_of(mods) == MemSpace::Generic,
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
            "getctarank" => Exec::GetCtaRank {
                d: self.dst(op(0)?)?,
                a: self.src(op(1)?)?,
                generic: space_of(mods) == MemSpace::Generic,
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
            "prefetch" | "prefetchu" | "applypriority" => Exec::Nop,
            "discard" => {
                // The only size the manual allows is 128.
                let size = match op(1)? {
                    Op::Imm(128) => 128,
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
                cluster: has(".shared::cluster"),
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

impl Dx<'_> {
    /// `red.async`: with an mbarrier (shared::cluster, PTX 8.1), or the `.mmio.release`
    /// global form (PTX 8.7), which is a plain reduction here (ptxvm has no memory-mapped
    /// I/O, and every access is already ordered as `.release` requires).
    fn decode_red_async(&self, inst: &ir::Inst, t: Type) -> Option<Exec> {
        let mods: &[&str] = &inst.mods;
        let op = mods.iter().find_map(|m| AtomOp::reduction_from_dot(m))?;
        let ops = &inst.operands;
        let addr = self.addr(ops.first()?)?;
        let b = self.fsrc(ops.get(1)?, t)?;
        if mods.contains(&".mbarrier::complete_tx::bytes") {
            Some(Exec::RedAsync {
                op,
                ty: t,
                addr,
                b,
                mbar: self.addr(ops.get(2)?)?,
            })
        } else {
            Some(Exec::Atom {
                space: MemSpace::Global,
                op,
                ty: t,
                d: Dst::Sink,
                addr,
                b,
                c: Src::Imm(0),
            })
        }
    }
    /// The `[tensorMap, {coords}]` operand: the map's address and the coordinates.
    fn tma_operand(&self, o: &Op) -> Option<(Addr, Vec<Src>)> {
        let Op::TexAddr(parts) = o else { return None };
        let [m, Op::Vector(cs)] = parts.as_slice() else {
            return None;
        };
        let map = match m {
            Op::Reg(r) => Addr::Reg(*r, 0),
            Op::Sym { var, offset, .. } => Addr::Var(self.var(*var), *offset),
            o => self.addr(o)?,
        };
        let coords = cs.iter().map(|c| self.src(c)).collect::<Option<Vec<_>>>()?;
        Some((map, coords))
    }

    /// `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor`, `cp.async.bulk.prefetch.tensor`
    /// in the tile, im2col and wide im2col modes (`None`, so `Exec::Unsupported`, for the
    /// gather/scatter modes).
    fn decode_tma_copy(&self, inst: &ir::Inst) -> Option<Exec> {
        use crate::ops::tma::{CopyKind, TmaInst};
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        let op = |k: usize| inst.operands.get(k);
        // `.im2col_no_offs` stores and reductions and the gather/scatter tile modes are not
        // implemented; `.cta_group` is for loads (the mbarrier completion mechanism).
        let wide = if has(".im2col::w") {
            Some(crate::ops::tma::Wide::W)
        } else if has(".im2col::w::128") {
            Some(crate::ops::tma::Wide::W128)
        } else {
            None
        };
        let rows4 = has(".tile::gather4") || has(".tile::scatter4");
        if mods.iter().any(|m| {
            (m.starts_with(".im2col") && *m != ".im2col" && wide.is_none())
                || (m.starts_with(".tile::") && !rows4)
        }) {
            return None;
        }
        let im2col = has(".im2col") || wide.is_some();
        // The im2col offsets: a vector of 16-bit values after the map operand (loads: after
        // the mbarrier; prefetches: right after the map).
        let offsets = |k: usize| -> Option<Vec<Src>> {
            match op(k)? {
                Op::Vector(v) => v.iter().map(|x| self.src(x)).collect(),
                _ => None,
            }
        };
        let rank = mods.iter().find_map(|m| match *m {
            ".1d" => Some(1),
            ".2d" => Some(2),
            ".3d" => Some(3),
            ".4d" => Some(4),
            ".5d" => Some(5),
            _ => None,
        })?;
        let mut im2col_offsets = None;
        let (kind, tm) = if has(".prefetch") {
            if im2col {
                im2col_offsets = Some(offsets(1)?);
            }
            (CopyKind::Prefetch, op(0)?)
        } else if has(".reduce") {
            let rop = mods.iter().find_map(|m| AtomOp::reduction_from_dot(m))?;
            (
                CopyKind::Reduce {
                    op: rop,
                    src: self.addr(op(1)?)?,
                },
                op(0)?,
            )
        } else if has(".bulk_group") {
            (
                CopyKind::Store {
                    src: self.addr(op(1)?)?,
                },
                op(0)?,
            )
        } else {
            let after = if im2col {
                im2col_offsets = Some(offsets(3)?);
                4
            } else {
                3
            };
            (
                CopyKind::Load {
                    dst: self.addr(op(0)?)?,
                    mbar: self.addr(op(2)?)?,
                    ctamask: if has(".multicast::cluster") {
                        Some(self.src(op(after)?)?)
                    } else {
                        None
                    },
                    pair: has(".cta_group::2"),
                },
                op(1)?,
            )
        };
        if im2col && !matches!(kind, CopyKind::Load { .. } | CopyKind::Prefetch) {
            return None;
        }
        if mods.iter().any(|m| m.starts_with(".cta_group"))
            && !matches!(kind, CopyKind::Load { .. })
        {
            return None;
        }
        let (map, coords) = self.tma_operand(tm)?;
        // The im2col offsets: one per spatial dimension; the wide modes' `{wHalo, wOffset}`.
        let n_info = |o: &Vec<Src>| {
            if wide.is_some() {
                o.len() != 2
            } else {
                o.len() + 2 != rank
            }
        };
        // `.tile::gather4` loads and prefetches, `.tile::scatter4` stores: `.2d`, five
        // coordinates.
        if rows4 {
            let fits = match kind {
                CopyKind::Load { .. } | CopyKind::Prefetch => has(".tile::gather4"),
                CopyKind::Store { .. } => has(".tile::scatter4"),
                CopyKind::Reduce { .. } => false,
            };
            if !fits || rank != 2 || coords.len() != 5 || im2col {
                return None;
            }
        } else if coords.len() != rank {
            return None;
        }
        if im2col_offsets.as_ref().is_some_and(n_info) {
            return None;
        }
        Some(Exec::Tma(Box::new(TmaInst::Copy {
            kind,
            rank,
            map,
            coords,
            im2col: im2col_offsets,
            wide,
            rows4,
        })))
    }

    /// `tensormap.replace` and `tensormap.cp_fenceproxy`.
    fn decode_tensormap(&self, inst: &ir::Inst) -> Option<Exec> {
        use crate::ops::tma::{Field, TmaInst};
        let mods: &[&str] = &inst.mods;
        let op = |k: usize| inst.operands.get(k);
        if mods.contains(&".cp_fenceproxy") {
            return Some(Exec::Tma(Box::new(TmaInst::CpFenceProxy {
                dst: self.addr(op(0)?)?,
                src: self.addr(op(1)?)?,
            })));
        }
        let field = mods.iter().find_map(|m| Field::from_dot(m))?;
        let space = if mods.contains(&".shared::cta") {
            MemSpace::Shared
        } else if mods.contains(&".global") {
            MemSpace::Global
        } else {
            MemSpace::Generic
        };
        let with_ord = matches!(
            field,
            Field::BoxDim | Field::GlobalDim | Field::GlobalStride | Field::ElementStride
        );
        let (ord, val) = if with_ord {
            let Op::Imm(o) = op(1)? else { return None };
            (*o, self.src(op(2)?)?)
        } else {
            (0, self.src(op(1)?)?)
        };
        Some(Exec::Tma(Box::new(TmaInst::Replace {
            field,
            space,
            addr: self.addr(op(0)?)?,
            ord,
            val,
        })))
    }
}

impl Dx<'_> {
    /// `multimem.ld_reduce`/`st`/`red` with one device bound to the multicast object: the
    /// reduction is over one copy, so `ld_reduce` is a load of the value (no arithmetic: a
    /// value converted to a wider `.acc::f32`/`.acc::f16` accumulation type and back is
    /// unchanged; NaNs pass through as they are), `st` a store, and `red` the atomic
    /// reduction of `red`/`atom` on the copy (the same definition: `Exec::Atom`/`AtomV`).
    /// Each is wrapped in `Exec::Multimem`, which first requires a multicast address.
    fn decode_multimem(&self, inst: &ir::Inst) -> Option<Exec> {
        let mods: &[&str] = &inst.mods;
        let ops = &inst.operands;
        let t = mods
            .iter()
            .rev()
            .find_map(|m| Type::from_dot(m))
            .or_else(|| {
                // The 4-element fp8 packings have no `Type`: 32 bits of data here.
                mods.iter()
                    .any(|m| matches!(*m, ".e4m3x4" | ".e5m2x4"))
                    .then_some(Type::B32)
            })?;
        let space = space_of(mods);
        let lanes = mods.iter().find_map(|m| match *m {
            ".v2" => Some(2),
            ".v4" => Some(4),
            ".v8" => Some(8),
            _ => None,
        });
        let elems = |o: &Op| -> Option<Vec<Op>> {
            match (o, lanes) {
                (Op::Vector(v), Some(n)) if v.len() == n => Some(v.clone()),
                (Op::Vector(_), _) | (_, Some(_)) => None,
                (o, None) => Some(vec![o.clone()]),
            }
        };
        // Loads and stores move bits: the element's width is all that matters.
        let bits = match t.bytes() {
            1 => Type::B8,
            2 => Type::B16,
            4 if t.class() == Class::Signed => t,
            4 => Type::B32,
            8 if t.class() == Class::Signed => t,
            8 => Type::B64,
            _ => return None,
        };
        let exec = match *mods.first()? {
            ".ld_reduce" => Exec::Ld {
                space,
                ty: bits,
                ds: elems(ops.first()?)?
                    .iter()
                    .map(|x| self.dst(x))
                    .collect::<Option<Vec<_>>>()?,
                addr: self.addr(ops.get(1)?)?,
            },
            ".st" => Exec::St {
                space,
                ty: bits,
                srcs: elems(ops.get(1)?)?
                    .iter()
                    .map(|x| self.fsrc(x, bits))
                    .collect::<Option<Vec<_>>>()?,
                addr: self.addr(ops.first()?)?,
            },
            ".red" => {
                // (The table admits only .add/.min/.max/.and/.or/.xor here.)
                let op = mods.iter().find_map(|m| AtomOp::reduction_from_dot(m))?;
                let bs = elems(ops.get(1)?)?
                    .iter()
                    .map(|x| self.fsrc(x, t))
                    .collect::<Option<Vec<_>>>()?;
                let addr = self.addr(ops.first()?)?;
                match lanes {
                    Some(_)
                        if op == AtomOp::Add
                            && (t == Type::F32 || crate::ops::half::is_half(t)) =>
                    {
                        Exec::AtomV {
                            space,
                            op,
                            ty: t,
                            ds: Vec::new(),
                            addr,
                            bs,
                        }
                    }
                    Some(_) => return None,
                    None => Exec::Atom {
                        space,
                        op,
                        ty: t,
                        d: Dst::Sink,
                        addr,
                        b: *bs.first()?,
                        c: Src::Imm(0),
                    },
                }
            }
            _ => return None,
        };
        Some(Exec::Multimem(Box::new(DInst {
            exec,
            guard: None,
            line: 0,
            loc: None,
        })))
    }
}

impl Cta<'_> {
    /// Runs one thread's step of a memory-family instruction (the reference engine's step).
    pub(in crate::exec) fn exec_memory(
        &mut self,
        t: usize,
        inst: &DInst,
        mem: &AddressSpace,
        budget: &mut Budget,
    ) -> Result<(), Box<Fault>> {
        let next = self.sched[t].pc + 1;
        match &inst.exec {
            Exec::Nop => {}
            Exec::Multimem(inner) => {
                self.multimem_check(t, &inner.exec, mem)?;
                // The wrapped access advances the thread.
                return self.exec_memory(t, inner, mem, budget);
            }
            Exec::Discard { addr, size } => {
                // A weak write of indeterminate values (PTX ISA "discard"): the values ptxvm
                // picks are the ones already there. The line must still be a writable,
                // 128-byte aligned range of global memory.
                let (sp, at) = self.resolve(t, MemSpace::Global, *addr);
                let n = (*size).min(128) as usize;
                let mut line = [0u8; 128];
                if sp != MemSpace::Global {
                    return Err(self.fault(
                        t,
                        FaultKind::OutOfBounds,
                        format!(
                            "discard of {at:#x}: the address is in {} memory, not global",
                            space_name(sp)
                        ),
                    ));
                }
                self.load(t, sp, at, &mut line[..n], mem)?;
                if mem.is_const(at) {
                    return Err(self.access_fault(
                        t,
                        "write",
                        sp,
                        at,
                        n,
                        AccessError::ReadOnly("constant memory is read-only".into()),
                    ));
                }
            }
            Exec::Isspacep {
                space,
                d,
                a,
                cluster,
            } => {
                let a = self.src(t, *a);
                let in_window = (SHARED_WINDOW..SHARED_WINDOW + SHARED_WINDOW_SIZE).contains(&a);
                // The shared::cluster window holds every CTA of the cluster; the shared::cta
                // window is the executing CTA's part of it.
                let in_shared = in_window
                    && match self.cluster_split(a - SHARED_WINDOW) {
                        Ok((r, _)) => *cluster || r == self.rank,
                        Err(_) => false,
                    };
                let in_local = (LOCAL_WINDOW..LOCAL_WINDOW + LOCAL_WINDOW_SIZE).contains(&a);
                let in_param = param_of_generic(a).is_some();
                let r = match space {
                    MemSpace::Shared => in_shared,
                    MemSpace::Local => in_local,
                    MemSpace::Global => !in_window && !in_local && !in_param && mem.contains(a),
                    MemSpace::Const => {
                        !in_window && !in_local && !in_param && mem.contains(a) && mem.is_const(a)
                    }
                    MemSpace::Param => in_param,
                    MemSpace::Generic => true,
                };
                self.write(t, *d, r as u64);
            }
            Exec::Alloca { d, size, align } => {
                let size = self.src(t, *size);
                let th = &self.threads[t];
                let al = (*align).clamp(1, 1 << 23);
                let base = (th.local_sp as u64).div_ceil(al) * al;
                let end = base.checked_add(size);
                match end {
                    Some(e) if self.stack_fits(t, e, self.threads[t].param_sp as u64, 0) => {
                        self.touched = true;
                        let th = &mut self.threads[t];
                        th.local.reserve(e as u32);
                        th.local_sp = e as u32;
                        self.write(t, *d, base);
                    }
                    _ => {
                        return Err(self.fault(
                            t,
                            FaultKind::StackOverflow,
                            format!(
                                "alloca of {size} bytes exhausts the stack ({} bytes of local memory per thread, --local-memory)",
                                self.launch.local_size
                            ),
                        ));
                    }
                }
            }
            Exec::StackSave { d } => {
                let sp = self.threads[t].local_sp as u64;
                self.write(t, *d, sp);
            }
            Exec::StackRestore { a } => {
                let v = self.src(t, *a);
                let th = &self.threads[t];
                let floor = th.frames.last().map_or(0, |f| f.local_base) as u64;
                if v < floor || v > th.local.len() as u64 {
                    return Err(self.fault(
                        t,
                        FaultKind::StackOverflow,
                        format!(
                            "stackrestore to {v:#x}, outside the current frame's stack ({floor:#x}..{:#x})",
                            th.local.len()
                        ),
                    ));
                }
                self.touched = true;
                self.threads[t].local_sp = v as u32;
            }
            Exec::Ld {
                space,
                ty,
                ds,
                addr,
            } => {
                let (sp, at) = self.resolve(t, *space, *addr);
                let w = ty.bytes() as usize;
                let mut buf = [0u8; 128];
                let n = w * ds.len();
                if n > buf.len() {
                    return Err(self.unsupported(t, "ld wider than 128 bytes"));
                }
                self.load(t, sp, at, &mut buf[..n], mem)?;
                for (k, d) in ds.iter().enumerate() {
                    let mut v = 0u64;
                    for (j, byte) in buf[k * w..k * w + w.min(8)].iter().enumerate() {
                        v |= (*byte as u64) << (8 * j);
                    }
                    if ty.class() == Class::Signed {
                        v = sext(v, ty.bits());
                    }
                    self.write(t, *d, v);
                }
            }
            Exec::St {
                space,
                ty,
                srcs,
                addr,
            } => {
                let (sp, at) = self.resolve(t, *space, *addr);
                let w = ty.bytes() as usize;
                let mut buf = [0u8; 128];
                let n = w * srcs.len();
                if n > buf.len() {
                    return Err(self.unsupported(t, "st wider than 128 bytes"));
                }
                for (k, s) in srcs.iter().enumerate() {
                    let v = self.src(t, *s);
                    buf[k * w..k * w + w.min(8)].copy_from_slice(&v.to_le_bytes()[..w.min(8)]);
                }
                self.store(t, sp, at, &buf[..n], mem)?;
            }
            Exec::Atom {
                space,
                op,
                ty,
                d,
                addr,
                b,
                c,
            } => {
                let (sp, at) = self.resolve(t, *space, *addr);
                let (b, c) = (self.src(t, *b), self.src(t, *c));
                let old = self.atomic(t, sp, at, *op, *ty, b, c, mem)?;
                self.write(t, *d, old);
            }
            Exec::AtomV {
                space,
                op,
                ty,
                ds,
                addr,
                bs,
            } => {
                let (sp, at) = self.resolve(t, *space, *addr);
                let mut old = [0u64; 8];
                let n = bs.len().min(old.len());
                let mut b = [0u64; 8];
                for (k, s) in bs.iter().take(n).enumerate() {
                    b[k] = self.src(t, *s);
                }
                self.atomic_vec(t, sp, at, *op, *ty, &b[..n], &mut old[..n], mem)?;
                for (k, d) in ds.iter().take(n).enumerate() {
                    self.write(t, *d, old[k]);
                }
            }
            Exec::RedAsync {
                op,
                ty,
                addr,
                b,
                mbar,
            } => {
                let (sp, at) = self.async_shared(t, *addr, "red.async")?;
                let bv = self.src(t, *b);
                self.atomic(t, sp, at, *op, *ty, bv, 0, mem)?;
                let (ms, ma) = self.resolve(t, MemSpace::Shared, *mbar);
                self.complete_tx(t, ms, ma, u64::from(ty.bytes()), mem)?;
            }
            Exec::StAsync {
                ty,
                srcs,
                addr,
                mbar,
            } => {
                let (sp, at) = self.async_shared(t, *addr, "st.async")?;
                let w = ty.bytes() as usize;
                let mut buf = [0u8; 32];
                let n = w * srcs.len();
                if n > buf.len() || w > 8 {
                    return Err(self.unsupported(t, "st.async wider than 32 bytes"));
                }
                for (k, s) in srcs.iter().enumerate() {
                    let v = self.src(t, *s);
                    buf[k * w..k * w + w].copy_from_slice(&v.to_le_bytes()[..w]);
                }
                self.store(t, sp, at, &buf[..n], mem)?;
                let (ms, ma) = self.resolve(t, MemSpace::Shared, *mbar);
                self.complete_tx(t, ms, ma, n as u64, mem)?;
            }
            Exec::Atom128 {
                space,
                cas,
                d,
                addr,
                b,
                c,
            } => {
                let (sp, at) = self.resolve(t, *space, *addr);
                let wide = |x: [Src; 2], cta: &Self| {
                    cta.src(t, x[0]) as u128 | (cta.src(t, x[1]) as u128) << 64
                };
                let (b, c) = (wide(*b, self), wide(*c, self));
                let new = |old: u128| match (*cas, old == b) {
                    (true, true) => c,
                    (true, false) => old,
                    (false, _) => b,
                };
                let old = match sp {
                    MemSpace::Global | MemSpace::Generic => {
                        if !at.is_multiple_of(16) {
                            return Err(self.misaligned(t, sp, at, 16, "read", mem));
                        }
                        mem.atomic_rmw(at, 16, new).map_err(|(e, write)| {
                            self.access_fault(
                                t,
                                if write { "write" } else { "read" },
                                sp,
                                at,
                                16,
                                e,
                            )
                        })?
                    }
                    // Shared memory is private to the CTA, which one host thread runs.
                    MemSpace::Shared => {
                        let mut buf = [0u8; 16];
                        self.load(t, sp, at, &mut buf, mem)?;
                        let old = u128::from_le_bytes(buf);
                        self.store(t, sp, at, &new(old).to_le_bytes(), mem)?;
                        old
                    }
                    _ => {
                        return Err(self.fault(
                            t,
                            FaultKind::OutOfBounds,
                            format!(
                                "atom.b128 accesses global or shared memory only, but {at:#x} is in {} memory",
                                space_name(sp)
                            ),
                        ));
                    }
                };
                self.write(t, d[0], old as u64);
                self.write(t, d[1], (old >> 64) as u64);
            }
            Exec::CpAsync {
                dst,
                src,
                size,
                src_size,
                ignore,
            } => {
                let n = *size as usize;
                let mut read = match src_size {
                    Some(s) => (self.src(t, *s) as usize).min(n),
                    None => n,
                };
                if ignore.is_some_and(|p| self.src(t, p) != 0) {
                    read = 0;
                }
                let mut buf = [0u8; 16];
                let (ss, sa) = self.resolve(t, MemSpace::Global, *src);
                if read > 0 {
                    // Alignment is the copy size's; a partial read keeps the source address.
                    if !sa.is_multiple_of(n as u64) {
                        return Err(self.fault(
                            t,
                            FaultKind::Misaligned,
                            format!("misaligned cp.async source {sa:#x} for a {n}-byte copy"),
                        ));
                    }
                    self.load(t, ss, sa, &mut buf[..read], mem)?;
                }
                let (ds, da) = self.resolve(t, MemSpace::Shared, *dst);
                self.store(t, ds, da, &buf[..n], mem)?;
            }
            Exec::CpBulk {
                dst,
                dst_space,
                src,
                src_space,
                size,
                mbar,
            } => {
                let n = self.src(t, *size) & 0xffff_ffff;
                let (ss, sa) = self.resolve(t, *src_space, *src);
                let (ds, da) = self.resolve(t, *dst_space, *dst);
                self.bulk_aligned(t, sa, da, n)?;
                // The copy is work: it costs its bytes before it starts.
                self.charge_work(t, budget, n)?;
                // In 16-byte pieces (each access is checked at its own natural alignment).
                let mut piece = [0u8; 16];
                for off in (0..n).step_by(16) {
                    self.load(t, ss, sa.wrapping_add(off), &mut piece, mem)?;
                    self.store(t, ds, da.wrapping_add(off), &piece, mem)?;
                }
                if let Some(m) = mbar {
                    let (ms, ma) = self.resolve(t, MemSpace::Shared, *m);
                    self.complete_tx(t, ms, ma, n, mem)?;
                }
            }
            Exec::CpBulkMasked {
                dst,
                src,
                size,
                byte_mask,
            } => {
                let n = self.src(t, *size) & 0xffff_ffff;
                let m = self.src(t, *byte_mask) & 0xffff;
                let (ss, sa) = self.resolve(t, MemSpace::Shared, *src);
                let (ds, da) = self.resolve(t, MemSpace::Global, *dst);
                self.bulk_aligned(t, sa, da, n)?;
                self.charge_work(t, budget, n)?;
                // Each selected byte is a store of its own: the bytes the mask leaves out are
                // never written (another thread may be writing them).
                let mut piece = [0u8; 16];
                for off in (0..n).step_by(16) {
                    self.load(t, ss, sa.wrapping_add(off), &mut piece, mem)?;
                    let at = da.wrapping_add(off);
                    // The whole piece must lie in global memory, selected bytes or not.
                    let mut probe = [0u8; 16];
                    self.load(t, ds, at, &mut probe, mem)?;
                    for (i, b) in piece.iter().enumerate() {
                        if m >> i & 1 == 1 {
                            self.store(t, ds, at.wrapping_add(i as u64), &[*b], mem)?;
                        }
                    }
                }
            }
            Exec::CpReduceBulk {
                op,
                ty,
                dst,
                dst_space,
                src,
                size,
                mbar,
            } => {
                let n = self.src(t, *size) & 0xffff_ffff;
                let (ss, sa) = self.resolve(t, MemSpace::Shared, *src);
                let (ds, da) = self.resolve(t, *dst_space, *dst);
                if !n.is_multiple_of(16) || !sa.is_multiple_of(16) || !da.is_multiple_of(16) {
                    return Err(self.fault(
                        t,
                        FaultKind::Misaligned,
                        format!(
                            "cp.reduce.async.bulk needs 16-byte aligned addresses and a size that is a multiple of 16: source {sa:#x}, destination {da:#x}, size {n}"
                        ),
                    ));
                }
                self.charge_work(t, budget, n)?;
                let w = u64::from(ty.bytes()).clamp(1, 8);
                let mut buf = [0u8; 8];
                for off in (0..n).step_by(w as usize) {
                    self.load(t, ss, sa.wrapping_add(off), &mut buf[..w as usize], mem)?;
                    let b = u64::from_le_bytes(buf);
                    self.atomic(t, ds, da.wrapping_add(off), *op, *ty, b, 0, mem)?;
                }
                if let Some(m) = mbar {
                    let (ms, ma) = self.resolve(t, MemSpace::Shared, *m);
                    self.complete_tx(t, ms, ma, n, mem)?;
                }
            }
            Exec::CpBulkMulticast {
                dst,
                src,
                size,
                mbar,
                mask,
            } => {
                let n = self.src(t, *size) & 0xffff_ffff;
                let m = self.src(t, *mask) & 0xffff;
                let (ss, sa) = self.resolve(t, MemSpace::Global, *src);
                let (_, da) = self.resolve(t, MemSpace::Shared, *dst);
                let (_, ma) = self.resolve(t, MemSpace::Shared, *mbar);
                self.bulk_aligned(t, sa, da, n)?;
                let dests =
                    self.multicast_dests(t, "cp.async.bulk.multicast::cluster", m, da, ma)?;
                // Each destination is a copy of its own: it costs its bytes.
                self.charge_work(t, budget, n.saturating_mul(dests.len() as u64))?;
                for (rd, rm) in dests {
                    let mut piece = [0u8; 16];
                    for off in (0..n).step_by(16) {
                        self.load(t, ss, sa.wrapping_add(off), &mut piece, mem)?;
                        self.store(t, MemSpace::Shared, rd.wrapping_add(off), &piece, mem)?;
                    }
                    self.complete_tx(t, MemSpace::Shared, rm, n, mem)?;
                }
            }
            Exec::Mapa {
                d,
                a,
                rank,
                generic,
            } => {
                let r = self.src(t, *rank) & 0xffff_ffff;
                let n = self.cluster_ctas();
                if r >= n as u64 {
                    return Err(self.fault(
                        t,
                        FaultKind::OutOfBounds,
                        format!(
                            "mapa to CTA rank {r}: the cluster has {n} CTAs (ranks 0..{})",
                            n - 1
                        ),
                    ));
                }
                let (_, off) = self.cluster_address_of(t, *a, *generic, "mapa")?;
                let v = self.cluster_addr(r as u32, off);
                self.write(t, *d, if *generic { v + SHARED_WINDOW } else { v });
            }
            Exec::GetCtaRank { d, a, generic } => {
                let (r, _) = self.cluster_address_of(t, *a, *generic, "getctarank")?;
                self.write(t, *d, r as u64);
            }
            Exec::Tma(x) => self.exec_tma(t, x, mem, budget)?,
            other => return Err(self.misrouted(t, other)),
        }
        self.sched[t].pc = next;
        Ok(())
    }

    /// `cp.async.bulk`'s alignment rule: 16-byte aligned addresses, a size that is a
    /// multiple of 16.
    fn bulk_aligned(&self, t: usize, sa: u64, da: u64, n: u64) -> Result<(), Box<Fault>> {
        if !n.is_multiple_of(16) || !sa.is_multiple_of(16) || !da.is_multiple_of(16) {
            return Err(self.fault(
                t,
                FaultKind::Misaligned,
                format!(
                    "cp.async.bulk needs 16-byte aligned addresses and a size that is a multiple of 16: source {sa:#x}, destination {da:#x}, size {n}"
                ),
            ));
        }
        Ok(())
    }

    /// The cluster rank and offset of the shared memory address (`generic`: the generic
    /// address) in operand `a` of `mapa`/`getctarank` (`what`); anything else faults.
    /// The destinations of a `.multicast::cluster` copy to shared address `da` with its
    /// mbarrier at `ma`: for each CTA rank in `mask`, lowest first, the same two offsets in
    /// that CTA's shared memory. A rank outside the cluster faults (`what` names the
    /// instruction; the ISA's `ctaMask`).
    fn multicast_dests(
        &self,
        t: usize,
        what: &str,
        mask: u64,
        da: u64,
        ma: u64,
    ) -> Result<Vec<(u64, u64)>, Box<Fault>> {
        let ctas = self.cluster_ctas();
        if mask >> ctas != 0 {
            return Err(self.fault(
                t,
                FaultKind::OutOfBounds,
                format!(
                    "{what} with CTA mask {mask:#06x}: the cluster has {ctas} CTAs (ranks 0..{})",
                    ctas - 1
                ),
            ));
        }
        let split = |a: u64| {
            self.cluster_split(a)
                .map_err(|e| self.access_fault(t, "write", MemSpace::Shared, a, 16, e))
        };
        let ((_, doff), (_, moff)) = (split(da)?, split(ma)?);
        Ok(fast::lanes(mask as u32)
            .map(|r| {
                (
                    self.cluster_addr(r as u32, doff),
                    self.cluster_addr(r as u32, moff),
                )
            })
            .collect())
    }

    fn cluster_address_of(
        &self,
        t: usize,
        a: Src,
        generic: bool,
        what: &str,
    ) -> Result<(u32, u64), Box<Fault>> {
        let v = self.src(t, a);
        let sh = if generic {
            match v.checked_sub(SHARED_WINDOW) {
                Some(o) if o < SHARED_WINDOW_SIZE => o,
                _ => {
                    return Err(self.fault(
                        t,
                        FaultKind::OutOfBounds,
                        format!("{what} of generic address {v:#x}, which is not in shared memory"),
                    ));
                }
            }
        } else {
            v
        };
        self.cluster_split(sh)
            .map_err(|e| self.access_fault(t, "address", MemSpace::Shared, sh, 0, e))
    }

    /// Reads the 128-byte tensor map at (`sp`, `at`), which must be 64-byte aligned, in two
    /// aligned halves.
    fn read_tmap(
        &self,
        t: usize,
        what: &str,
        sp: MemSpace,
        at: u64,
        mem: &AddressSpace,
    ) -> Result<[u8; tma::TMAP_BYTES], Box<Fault>> {
        if !(at & !KPARAM_TAG).is_multiple_of(tma::TMAP_ALIGN) {
            return Err(self.fault(
                t,
                FaultKind::Misaligned,
                format!(
                    "{what}: the tensor map at {:#x} is not 64-byte aligned",
                    at & !KPARAM_TAG
                ),
            ));
        }
        let mut b = [0u8; tma::TMAP_BYTES];
        let (lo, hi) = b.split_at_mut(64);
        self.load(t, sp, at, lo, mem)?;
        self.load(t, sp, at.wrapping_add(64), hi, mem)?;
        Ok(b)
    }

    /// Writes a tensor map (see [`Self::read_tmap`]).
    fn write_tmap(
        &mut self,
        t: usize,
        sp: MemSpace,
        at: u64,
        b: &[u8; tma::TMAP_BYTES],
        mem: &AddressSpace,
    ) -> Result<(), Box<Fault>> {
        self.store(t, sp, at, &b[..64], mem)?;
        self.store(t, sp, at.wrapping_add(64), &b[64..], mem)
    }

    /// The reference step of a TMA instruction (`ops/tma.rs`). Copies complete at once, like
    /// the other bulk copies: a load completes its box's bytes on the mbarrier as it issues,
    /// and a bulk group's copies are done before `cp.async.bulk.commit_group`.
    fn exec_tma(
        &mut self,
        t: usize,
        x: &tma::TmaInst,
        mem: &AddressSpace,
        budget: &mut Budget,
    ) -> Result<(), Box<Fault>> {
        use tma::{CopyKind, TmaInst};
        match x {
            TmaInst::Replace {
                field,
                space,
                addr,
                ord,
                val,
            } => {
                let (sp, at) = self.resolve(t, *space, *addr);
                if !matches!(sp, MemSpace::Global | MemSpace::Shared) {
                    return Err(self.fault(
                        t,
                        FaultKind::OutOfBounds,
                        format!(
                            "tensormap.replace: the tensor map at {at:#x} is in {} memory; it must be in global or shared::cta memory",
                            space_name(sp)
                        ),
                    ));
                }
                let mut b = self.read_tmap(t, "tensormap.replace", sp, at, mem)?;
                let v = self.src(t, *val);
                let v = if matches!(field, tma::Field::GlobalAddress | tma::Field::GlobalStride) {
                    v
                } else {
                    v & 0xffff_ffff
                };
                tma::replace(&mut b, *field, *ord, v).map_err(|e| {
                    self.fault(
                        t,
                        FaultKind::TensorMap,
                        format!("tensormap.replace of {field:?} at {at:#x}: {e}"),
                    )
                })?;
                self.write_tmap(t, sp, at, &b, mem)?;
            }
            TmaInst::CpFenceProxy { dst, src } => {
                let (ss, sa) = self.resolve(t, MemSpace::Shared, *src);
                let (ds, da) = self.resolve(t, MemSpace::Global, *dst);
                let b = self.read_tmap(t, "tensormap.cp_fenceproxy", ss, sa, mem)?;
                if !da.is_multiple_of(tma::TMAP_ALIGN) {
                    return Err(self.fault(
                        t,
                        FaultKind::Misaligned,
                        format!(
                            "tensormap.cp_fenceproxy: the destination {da:#x} is not 64-byte aligned"
                        ),
                    ));
                }
                self.write_tmap(t, ds, da, &b, mem)?;
            }
            TmaInst::Copy {
                kind,
                rank,
                map,
                coords,
                im2col,
                wide,
                rows4,
            } => {
                let what = match kind {
                    CopyKind::Load { .. } => "cp.async.bulk.tensor",
                    CopyKind::Store { .. } => "cp.async.bulk.tensor (shared to global)",
                    CopyKind::Reduce { .. } => "cp.reduce.async.bulk.tensor",
                    CopyKind::Prefetch => "cp.async.bulk.prefetch.tensor",
                };
                let (msp, mat) = self.resolve(t, MemSpace::Generic, *map);
                let b = self.read_tmap(t, what, msp, mat, mem)?;
                let m = tma::decode(&b).map_err(|e| {
                    self.fault(
                        t,
                        FaultKind::TensorMap,
                        format!(
                            "{what}: invalid tensor map at {:#x}: {e}",
                            mat & !KPARAM_TAG
                        ),
                    )
                })?;
                if m.rank != *rank {
                    return Err(self.fault(
                        t,
                        FaultKind::TensorMap,
                        format!(
                            "{what}: a .{rank}d copy with a tensor map of rank {}",
                            m.rank
                        ),
                    ));
                }
                let map_wide = m.im2col.and_then(|b| b.wide);
                if m.im2col.is_some() != im2col.is_some() || map_wide != *wide {
                    return Err(self.fault(
                        t,
                        FaultKind::TensorMap,
                        format!(
                            "{what}: a {} copy with {} tensor map",
                            match wide {
                                Some(w) => w.name(),
                                None if im2col.is_some() => ".im2col",
                                None => ".tile",
                            },
                            match (m.im2col.is_some(), map_wide) {
                                (_, Some(tma::Wide::W)) => "a wide (W mode) im2col",
                                (_, Some(tma::Wide::W128)) => "a wide (W128 mode) im2col",
                                (true, None) => "an im2col",
                                (false, None) => "a tiled",
                            }
                        ),
                    ));
                }
                let mut c = [0i64; tma::MAX_RANK];
                for (i, s) in coords.iter().enumerate().take(tma::MAX_RANK) {
                    c[i] = i64::from(self.src(t, *s) as u32 as i32);
                }
                let mut off = [0i64; 3];
                for (i, s) in im2col.iter().flatten().enumerate().take(3) {
                    off[i] = i64::from(self.src(t, *s) as u16 as i16);
                }
                if let Some(w) = wide {
                    let prefetch = matches!(kind, CopyKind::Prefetch);
                    self.check_wide_info(t, what, *w, im2col.as_deref(), prefetch, &mut off)?;
                }
                if *rows4 && m.extent(1) != 1 {
                    return Err(self.fault(
                        t,
                        FaultKind::TensorMap,
                        format!(
                            "{what}: a .tile::gather4/.tile::scatter4 copy needs a tensor map whose box is one row (boxDim[1] = 1), not {}",
                            m.extent(1)
                        ),
                    ));
                }
                self.tma_copy(t, what, kind, &m, &c, &off, *rows4, mem, budget)?;
            }
        }
        Ok(())
    }

    /// `.cta_group::2` loads (PTX ISA, `cp.async.bulk.tensor`): the mbarrier "can be in shared
    /// memory of either the same CTA as the shared memory destination or in its peer-CTA"
    /// (else a fault); with `.multicast::cluster`, "for each destination CTA specified in the
    /// ctaMask, the mbarrier signal is sent either to the destination CTA or its peer-CTA based
    /// on CTAs %cluster_ctarank parity of shared memory where the mbarrier object resides": the
    /// mbarrier of destination `d` moves to the CTA of `d`'s pair with the mbarrier's parity.
    fn tma_pair_mbarriers(
        &self,
        t: usize,
        what: &str,
        (ms, ma): (MemSpace, u64),
        multicast: bool,
        dests: &mut [(u64, MemSpace, u64)],
    ) -> Result<(), Box<Fault>> {
        let split = |a: u64| {
            self.cluster_split(a)
                .map_err(|e| self.access_fault(t, "write", MemSpace::Shared, a, 8, e))
        };
        if ms != MemSpace::Shared {
            return Err(self.fault(
                t,
                FaultKind::OutOfBounds,
                format!(
                    "{what}.cta_group::2: the mbarrier {ma:#x} is in {} memory, not shared",
                    space_name(ms)
                ),
            ));
        }
        let (mrank, moff) = split(ma)?;
        for d in dests.iter_mut() {
            let (drank, _) = split(d.0)?;
            let target = (drank & !1) | (mrank & 1);
            if !multicast && mrank >> 1 != drank >> 1 {
                return Err(self.fault(
                    t,
                    FaultKind::OutOfBounds,
                    format!(
                        "{what}.cta_group::2: the mbarrier is in CTA rank {mrank}, neither the destination's CTA (rank {drank}) nor its peer"
                    ),
                ));
            }
            d.2 = self.cluster_addr(target, moff);
        }
        Ok(())
    }

    /// The wide modes' `{wHalo, wOffset}` operands, unsigned (into `off[0]`, `off[1]`), checked
    /// against the PTX ISA's ranges. A `.im2col::w::128` load with a non-zero `wHalo` faults
    /// as unsupported: where its halo pixels go in shared memory is given only by a figure (a
    /// prefetch, which writes nothing, does not).
    fn check_wide_info(
        &self,
        t: usize,
        what: &str,
        w: tma::Wide,
        info: Option<&[Src]>,
        prefetch: bool,
        off: &mut [i64; 3],
    ) -> Result<(), Box<Fault>> {
        let v = |k: usize| {
            info.and_then(|i| i.get(k))
                .map_or(0, |s| self.src(t, *s) as u16)
        };
        let (halo, woff) = (u64::from(v(0)), u64::from(v(1)));
        let name = w.name();
        if halo >= w.halo_limit() {
            return Err(self.fault(
                t,
                FaultKind::TensorMap,
                format!(
                    "{what}{name}: wHalo {halo} is outside [0, {})",
                    w.halo_limit()
                ),
            ));
        }
        if woff >= tma::WOFFSET_LIMIT {
            return Err(self.fault(
                t,
                FaultKind::TensorMap,
                format!(
                    "{what}{name}: wOffset {woff} is outside [0, {})",
                    tma::WOFFSET_LIMIT
                ),
            ));
        }
        if w == tma::Wide::W128 && halo != 0 && !prefetch {
            return Err(self.fault(
                t,
                FaultKind::Unsupported,
                format!(
                    "{what}{name} with wHalo {halo}: where the halo pixels loaded after every 32 \
                     pixels go in shared memory is given only by a figure of the PTX ISA; not \
                     supported by ptxvm (wHalo 0 is)"
                ),
            ));
        }
        off[0] = halo as i64;
        off[1] = woff as i64;
        off[2] = 0;
        Ok(())
    }

    /// Moves the box of `m` at coordinates `c` (see [`Self::exec_tma`]).
    #[allow(clippy::too_many_arguments)]
    fn tma_copy(
        &mut self,
        t: usize,
        what: &str,
        kind: &tma::CopyKind,
        m: &tma::TensorMap,
        c: &[i64; tma::MAX_RANK],
        off: &[i64; 3],
        rows4: bool,
        mem: &AddressSpace,
        budget: &mut Budget,
    ) -> Result<(), Box<Fault>> {
        use tma::CopyKind;
        let mut ext = [1u64; tma::MAX_RANK];
        for (i, e) in ext.iter_mut().enumerate().take(m.rank) {
            *e = m.extent(i);
        }
        // `.tile::gather4`/`.tile::scatter4`: four one-row boxes, at rows `c[1..5]`, one
        // after another (a box of four rows in shared memory).
        if rows4 {
            ext[1] = 4;
        }
        let es = m.elem.bytes();
        let w = es as usize;
        // The packed sub-byte types move whole units along dimension 0 (`tma::Unit`): `gw`
        // bytes of global memory to `us` bytes of shared memory, a gap left unwritten.
        let unit = m.elem.unit();
        let (es, gw) = if m.elem.is_packed() {
            self.tma_packed_check(t, what, kind, m, c)?;
            ext[0] /= unit.elems;
            (unit.shared, unit.global as usize)
        } else {
            (es, w)
        };
        // The global coordinates of box element `k` (dimension 0 fastest) and its byte offset
        // in the dense box.
        let at = |k: &[u64; tma::MAX_RANK]| {
            let mut g = [0i64; tma::MAX_RANK];
            let mut lin = 0u64;
            for i in (0..m.rank).rev() {
                g[i] = if rows4 && i == 1 {
                    c[1 + k[1] as usize]
                } else if i == 0 {
                    c[0] + (k[0] * unit.elems * m.step(0)) as i64
                } else {
                    c[i] + (k[i] * m.step(i)) as i64
                };
                lin = lin * ext[i] + k[i];
            }
            (g, lin * es)
        };
        let box_bytes = if rows4 {
            m.box_bytes().saturating_mul(4)
        } else {
            m.box_bytes()
        };
        let shared = |this: &Self, a: Addr, role: &str| -> Result<u64, Box<Fault>> {
            let (sp, sa) = this.resolve(t, MemSpace::Shared, a);
            if sp != MemSpace::Shared {
                return Err(this.fault(
                    t,
                    FaultKind::OutOfBounds,
                    format!(
                        "{what}: the {role} {sa:#x} is in {} memory, not shared",
                        space_name(sp)
                    ),
                ));
            }
            if !sa.is_multiple_of(128) {
                return Err(this.fault(
                    t,
                    FaultKind::Misaligned,
                    format!("{what}: the shared-memory {role} {sa:#x} is not 128-byte aligned"),
                ));
            }
            Ok(sa)
        };
        match kind {
            CopyKind::Prefetch => {}
            CopyKind::Load {
                dst,
                mbar,
                ctamask,
                pair,
            } => {
                let da = shared(self, *dst, "destination")?;
                let (ms, ma) = self.resolve(t, MemSpace::Shared, *mbar);
                // The destinations (box, mbarrier): the one named, or with .multicast::cluster
                // the same offsets in every CTA of the mask (as `cp.async.bulk`'s multicast).
                let mut dests: Vec<(u64, MemSpace, u64)> = match ctamask {
                    None => vec![(da, ms, ma)],
                    Some(cm) => {
                        let mask = self.src(t, *cm) & 0xffff;
                        let what = format!("{what}.multicast::cluster");
                        self.multicast_dests(t, &what, mask, da, ma)?
                            .into_iter()
                            .map(|(d, m)| (d, MemSpace::Shared, m))
                            .collect()
                    }
                };
                if *pair {
                    self.tma_pair_mbarriers(t, what, (ms, ma), ctamask.is_some(), &mut dests)?;
                }
                let n = if rows4 { box_bytes } else { m.load_bytes(off) };
                // Each destination is a copy of its own: it costs its bytes.
                self.charge_work(t, budget, n.saturating_mul(dests.len() as u64))?;
                let fill = if m.fill_nan { m.elem.nan_bits() } else { 0 };
                for (da, ms, ma) in dests {
                    let mut buf = [0u8; 16];
                    // One element (or packed unit): global coordinates `g` to byte `off` of
                    // the dense box.
                    let mut element = |this: &mut Self, g: &[i64; tma::MAX_RANK], off: u64| {
                        buf = [0; 16];
                        match m.global_addr(g) {
                            Some(ga) => {
                                this.load(t, MemSpace::Global, ga, &mut buf[..gw], mem)?;
                                if !m.elem.is_packed() {
                                    let mut x = [0u8; 8];
                                    x.copy_from_slice(&buf[..8]);
                                    let v = m.elem.load_bits(u64::from_le_bytes(x));
                                    buf[..8].copy_from_slice(&v.to_le_bytes());
                                }
                            }
                            None => buf[..8].copy_from_slice(&fill.to_le_bytes()),
                        }
                        this.store(t, MemSpace::Shared, m.shared_addr(da, off), &buf[..gw], mem)
                    };
                    if m.im2col.is_some_and(|b| b.wide.is_some()) {
                        let mut off_b = 0u64;
                        m.for_each_im2col_wide(c, off[0] as u64, off[1], |g| {
                            element(self, g, off_b)?;
                            off_b += es;
                            Ok::<(), Box<Fault>>(())
                        })?;
                    } else if m.im2col.is_some() {
                        let mut off_b = 0u64;
                        m.for_each_im2col(c, off, |g| {
                            element(self, g, off_b)?;
                            off_b += es;
                            Ok::<(), Box<Fault>>(())
                        })?;
                    } else {
                        tma::for_each_box(m.rank, &ext, |k| {
                            let (g, off) = at(k);
                            element(self, &g, off)
                        })?;
                    }
                    self.complete_tx(t, ms, ma, n, mem)?;
                }
            }
            CopyKind::Store { src } => {
                let sa = shared(self, *src, "source")?;
                self.charge_work(t, budget, box_bytes)?;
                let mut buf = [0u8; 16];
                tma::for_each_box(m.rank, &ext, |k| {
                    let (g, off) = at(k);
                    let Some(ga) = m.global_addr(&g) else {
                        return Ok(());
                    };
                    self.load(
                        t,
                        MemSpace::Shared,
                        m.shared_addr(sa, off),
                        &mut buf[..gw],
                        mem,
                    )?;
                    self.store(t, MemSpace::Global, ga, &buf[..gw], mem)
                })?;
            }
            CopyKind::Reduce { op, src } => {
                let ty = tma_reduce_type(*op, m.elem).ok_or_else(|| {
                    self.fault(
                        t,
                        FaultKind::TensorMap,
                        format!(
                            "{what}: .{} is not defined for the tensor map's element type .{}",
                            format!("{op:?}").to_lowercase(),
                            m.elem.name()
                        ),
                    )
                })?;
                let sa = shared(self, *src, "source")?;
                self.charge_work(t, budget, box_bytes)?;
                let mut buf = [0u8; 8];
                tma::for_each_box(m.rank, &ext, |k| {
                    let (g, off) = at(k);
                    let Some(ga) = m.global_addr(&g) else {
                        return Ok(());
                    };
                    buf = [0; 8];
                    self.load(
                        t,
                        MemSpace::Shared,
                        m.shared_addr(sa, off),
                        &mut buf[..w],
                        mem,
                    )?;
                    let v = u64::from_le_bytes(buf);
                    self.atomic(t, MemSpace::Global, ga, *op, ty, v, 0, mem)
                        .map(|_| ())
                })?;
            }
        }
        Ok(())
    }

    /// The packed sub-byte types' rules for a copy (`docs/tma.md`): the coordinate along
    /// dimension 0 must start a unit (the hardware's behaviour inside a unit is not
    /// described: not supported), and `16U4_ALIGN16B` maps are load-only (`cuda.h`: its
    /// swizzle modes are "Load only").
    fn tma_packed_check(
        &self,
        t: usize,
        what: &str,
        kind: &tma::CopyKind,
        m: &tma::TensorMap,
        c: &[i64; tma::MAX_RANK],
    ) -> Result<(), Box<Fault>> {
        let u = m.elem.unit();
        if c[0].rem_euclid(u.elems as i64) != 0 {
            return Err(self.fault(
                t,
                FaultKind::Unsupported,
                format!(
                    "{what}: coordinate {} of dimension 0 is inside a unit of {} packed .{} values (only unit starts are supported)",
                    c[0],
                    u.elems,
                    m.elem.name()
                ),
            ));
        }
        if m.elem == tma::Elem::B4x16P64
            && !matches!(kind, tma::CopyKind::Load { .. } | tma::CopyKind::Prefetch)
        {
            return Err(self.fault(
                t,
                FaultKind::TensorMap,
                format!("{what}: a .b4x16_p64 (16U4_ALIGN16B) tensor map is load-only"),
            ));
        }
        Ok(())
    }

    /// The address of `red.async`/`st.async` (`what`): in the `.shared::cluster` window (the
    /// shared memory of any CTA of the cluster); anything else faults.
    fn async_shared(&self, t: usize, a: Addr, what: &str) -> Result<(MemSpace, u64), Box<Fault>> {
        let (sp, at) = self.resolve(t, MemSpace::Shared, a);
        if sp != MemSpace::Shared {
            return Err(self.fault(
                t,
                FaultKind::OutOfBounds,
                format!(
                    "{what} accesses shared::cluster memory only, but {at:#x} is in {} memory",
                    space_name(sp)
                ),
            ));
        }
        Ok((sp, at))
    }

    /// Resolves an address operand to (space, address) for thread `t`.
    pub(in crate::exec) fn resolve(&self, t: usize, space: MemSpace, a: Addr) -> (MemSpace, u64) {
        let (base_space, addr) = match a {
            Addr::Reg(r, off) => (space, self.reg(t, r).wrapping_add(off as u64)),
            Addr::Abs(off) => (space, off as u64),
            Addr::Var(loc, off) => {
                let s = match loc {
                    VarLoc::Global(_) => {
                        if space == MemSpace::Const {
                            MemSpace::Const
                        } else {
                            MemSpace::Global
                        }
                    }
                    VarLoc::Shared(_) => MemSpace::Shared,
                    VarLoc::Local(_) => MemSpace::Local,
                    VarLoc::KernelParam(_) | VarLoc::FrameParam(_) => MemSpace::Param,
                };
                let kernel_param = matches!(loc, VarLoc::KernelParam(_));
                let addr = self.var_addr(t, loc).wrapping_add(off as u64);
                if kernel_param {
                    return (MemSpace::Param, addr | KPARAM_TAG);
                }
                (s, addr)
            }
        };
        if base_space == MemSpace::Generic {
            if (SHARED_WINDOW..SHARED_WINDOW + SHARED_WINDOW_SIZE).contains(&addr) {
                return (MemSpace::Shared, addr - SHARED_WINDOW);
            }
            if (LOCAL_WINDOW..LOCAL_WINDOW + LOCAL_WINDOW_SIZE).contains(&addr) {
                return (MemSpace::Local, addr - LOCAL_WINDOW);
            }
            if let Some(p) = param_of_generic(addr) {
                return (MemSpace::Param, p);
            }
            return (MemSpace::Global, addr);
        }
        (base_space, addr)
    }

    pub(in crate::exec) fn access_fault(
        &self,
        t: usize,
        what: &str,
        space: MemSpace,
        addr: u64,
        len: usize,
        e: AccessError,
    ) -> Box<Fault> {
        let (kind, msg) = fault_of(e);
        // Addresses in the first page are almost always a null pointer plus a field offset.
        let null = if matches!(space, MemSpace::Global | MemSpace::Generic) && addr < 4096 {
            format!(" (null pointer dereference: {len}-byte {what} at {addr:#x})")
        } else {
            String::new()
        };
        self.fault(
            t,
            kind,
            format!("invalid {} {what}{null}: {msg}", space_name(space)),
        )
    }

    pub(in crate::exec) fn load(
        &self,
        t: usize,
        space: MemSpace,
        addr: u64,
        buf: &mut [u8],
        mem: &AddressSpace,
    ) -> Result<(), Box<Fault>> {
        let len = buf.len();
        if len.is_power_of_two() && !(addr & !KPARAM_TAG).is_multiple_of(len as u64) {
            return Err(self.misaligned(t, space, addr, len, "read", mem));
        }
        let r = match space {
            MemSpace::Global | MemSpace::Const | MemSpace::Generic => mem.read_guest(addr, buf),
            MemSpace::Shared => self
                .shared_at(addr)
                .and_then(|(s, a, what)| slice_read(s, a, buf, &what)),
            MemSpace::Local => self.threads[t].local.read(addr, buf),
            MemSpace::Param => {
                if addr & KPARAM_TAG != 0 {
                    slice_read(
                        &self.launch.params,
                        addr & !KPARAM_TAG,
                        buf,
                        "kernel parameters",
                    )
                } else {
                    slice_read(&self.threads[t].params, addr, buf, "parameter space")
                }
            }
        };
        r.map_err(|e| self.access_fault(t, "read", space, addr, len, e))
    }

    pub(in crate::exec) fn store(
        &mut self,
        t: usize,
        space: MemSpace,
        addr: u64,
        data: &[u8],
        mem: &AddressSpace,
    ) -> Result<(), Box<Fault>> {
        let len = data.len();
        if len.is_power_of_two() && !addr.is_multiple_of(len as u64) {
            return Err(self.misaligned(t, space, addr, len, "write", mem));
        }
        let r = match space {
            MemSpace::Global | MemSpace::Generic => mem.write_guest(addr, data),
            MemSpace::Const => Err(AccessError::ReadOnly("constant memory is read-only".into())),
            MemSpace::Shared => self
                .shared_at_mut(addr)
                .and_then(|(s, a, what)| slice_write(s, a, data, &what)),
            MemSpace::Local => {
                self.touched = true;
                let grid = self.grid;
                let mut added = 0u64;
                let r = self.threads[t].local.write(addr, data, &mut |n| {
                    if grid.charge(n) {
                        added += n;
                        Ok(())
                    } else {
                        Err(AccessError::OutOfMemory(format!(
                            "out of interpreter memory: a page of local memory does not fit in the launch's budget of {} bytes, which the CTAs in flight hold (--launch-memory)",
                            grid.mem_limit
                        )))
                    }
                });
                self.charged += added;
                r
            }
            MemSpace::Param => {
                if addr & KPARAM_TAG != 0 {
                    Err(AccessError::ReadOnly(
                        "kernel parameters are read-only".into(),
                    ))
                } else {
                    self.touched = true;
                    slice_write(&mut self.threads[t].params, addr, data, "parameter space")
                }
            }
        };
        r.map_err(|e| self.access_fault(t, "write", space, addr, len, e))
    }

    /// `atom`/`red` of thread `t` at a resolved address: global memory through the host's
    /// atomic instructions (atomic across CTAs and streams), shared and local memory (private
    /// to this CTA or thread, which one host thread runs) by a read and a write. Returns the
    /// old value.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::exec) fn atomic(
        &mut self,
        t: usize,
        sp: MemSpace,
        at: u64,
        op: AtomOp,
        ty: Type,
        b: u64,
        c: u64,
        mem: &AddressSpace,
    ) -> Result<u64, Box<Fault>> {
        let w = ty.bytes() as usize;
        if matches!(sp, MemSpace::Global | MemSpace::Generic) {
            if !at.is_multiple_of(w as u64) {
                return Err(self.misaligned(t, sp, at, w, "read", mem));
            }
            return match mem.atomic_rmw(at, w, |old| atom_op(op, ty, old as u64, b, c) as u128) {
                Ok(old) => Ok(old as u64),
                Err((e, write)) => {
                    Err(self.access_fault(t, if write { "write" } else { "read" }, sp, at, w, e))
                }
            };
        }
        let mut buf = [0u8; 8];
        self.load(t, sp, at, &mut buf[..w], mem)?;
        let old = u64::from_le_bytes(buf);
        let new = if op == AtomOp::Add && ty == Type::F32 {
            // PTX ISA "atom": only the global-memory atom.add.f32 flushes subnormal inputs
            // and results; on shared memory it keeps them (round to nearest even either way).
            ptxvm_fp::arith::add_f32(
                f32::from_bits(old as u32),
                f32::from_bits(b as u32),
                ptxvm_fp::Rnd::Rn,
                false,
                false,
            )
            .to_bits() as u64
        } else {
            atom_op(op, ty, old, b, c)
        };
        self.store(t, sp, at, &new.to_le_bytes()[..w], mem)?;
        Ok(old)
    }

    /// A vector `atom`/`red` (`.v2/.v4/.v8`) of thread `t` at a resolved address: the whole
    /// vector must be aligned to its size and lie in global memory (the manual allows no
    /// other space); then each element is one atomic read-modify-write of its own, in element
    /// order, atomic separately (the manual guarantees atomicity per element only). The
    /// range is checked before any element is written, so a fault leaves memory unchanged.
    /// `old` receives the elements' previous values.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::exec) fn atomic_vec(
        &mut self,
        t: usize,
        sp: MemSpace,
        at: u64,
        op: AtomOp,
        ty: Type,
        b: &[u64],
        old: &mut [u64],
        mem: &AddressSpace,
    ) -> Result<(), Box<Fault>> {
        let w = ty.bytes() as usize;
        let total = w * b.len();
        if !matches!(sp, MemSpace::Global | MemSpace::Generic) {
            return Err(self.fault(
                t,
                FaultKind::OutOfBounds,
                format!(
                    "atom/red with a vector type accesses global memory only, but {at:#x} is in {} memory",
                    space_name(sp)
                ),
            ));
        }
        if !at.is_multiple_of(total as u64) {
            return Err(self.misaligned(t, sp, at, total, "read", mem));
        }
        let mut probe = [0u8; 32];
        if let Err(e) = mem.read_guest(at, &mut probe[..total.min(32)]) {
            return Err(self.access_fault(t, "read", sp, at, total, e));
        }
        for (k, (&bk, o)) in b.iter().zip(old.iter_mut()).enumerate() {
            let a = at.wrapping_add((k * w) as u64);
            *o = match mem.atomic_rmw(a, w, |v| atom_op(op, ty, v as u64, bk, 0) as u128) {
                Ok(v) => v as u64,
                Err((e, write)) => {
                    return Err(self.access_fault(
                        t,
                        if write { "write" } else { "read" },
                        sp,
                        at,
                        total,
                        e,
                    ));
                }
            };
        }
        Ok(())
    }

    /// Faults unless the access of a `multimem` instruction lies inside one multicast
    /// mapping of global memory. The PTX ISA leaves `multimem` on any other address
    /// undefined; ptxvm stops there, naming the address.
    fn multimem_check(&self, t: usize, e: &Exec, mem: &AddressSpace) -> Result<(), Box<Fault>> {
        let (name, space, ty, n, addr) = match e {
            Exec::Ld {
                space,
                ty,
                ds,
                addr,
            } => ("multimem.ld_reduce", *space, *ty, ds.len(), *addr),
            Exec::St {
                space,
                ty,
                srcs,
                addr,
            } => ("multimem.st", *space, *ty, srcs.len(), *addr),
            Exec::Atom {
                space, ty, addr, ..
            } => ("multimem.red", *space, *ty, 1, *addr),
            Exec::AtomV {
                space,
                ty,
                bs,
                addr,
                ..
            } => ("multimem.red", *space, *ty, bs.len(), *addr),
            _ => return Err(self.unsupported(t, "multimem of this form")),
        };
        let len = u64::from(ty.bytes()) * n as u64;
        let (sp, at) = self.resolve(t, space, addr);
        if matches!(sp, MemSpace::Global | MemSpace::Generic) && mem.is_multicast(at, len) {
            return Ok(());
        }
        Err(self.fault(
            t,
            FaultKind::OutOfBounds,
            format!(
                "{name} of {len} bytes at {at:#x}: not a multicast address (the {} address is in no multicast mapping; the PTX ISA leaves multimem on other addresses undefined){}",
                space_name(sp),
                where_in(sp, at, mem)
            ),
        ))
    }

    /// The fault of a misaligned access.
    pub(in crate::exec) fn misaligned(
        &self,
        t: usize,
        space: MemSpace,
        addr: u64,
        len: usize,
        what: &str,
        mem: &AddressSpace,
    ) -> Box<Fault> {
        self.fault(
            t,
            FaultKind::Misaligned,
            format!(
                "misaligned {} {what} of {len} bytes at {addr:#x}{}",
                space_name(space),
                where_in(space, addr, mem)
            ),
        )
    }

    /// Reads guest memory at a generic address for the builtins (no alignment rule).
    pub(in crate::exec) fn read_generic(
        &self,
        t: usize,
        addr: u64,
        buf: &mut [u8],
        mem: &AddressSpace,
    ) -> Result<(), String> {
        let (sp, a) = self.resolve(t, MemSpace::Generic, Addr::Abs(addr as i64));
        let r = match sp {
            MemSpace::Shared => self
                .shared_at(a)
                .and_then(|(s, a, what)| slice_read(s, a, buf, &what)),
            MemSpace::Local => self.threads[t].local.read(a, buf),
            MemSpace::Param if a & KPARAM_TAG != 0 => slice_read(
                &self.launch.params,
                a & !KPARAM_TAG,
                buf,
                "kernel parameters",
            ),
            MemSpace::Param => slice_read(&self.threads[t].params, a, buf, "parameter space"),
            _ => mem.read_guest(a, buf),
        };
        r.map_err(|e| e.message().to_string())
    }

    pub(in crate::exec) fn read_cstr(
        &self,
        t: usize,
        addr: u64,
        mem: &AddressSpace,
    ) -> Result<String, String> {
        let mut read = |a: u64, b: &mut [u8]| self.read_generic(t, a, b, mem);
        let v = crate::ops::printf::read_cstr(&mut read, addr, crate::ops::printf::MAX_STR)?;
        Ok(String::from_utf8_lossy(&v).into_owned())
    }
}

/// The `atom` type a `cp.reduce.async.bulk.tensor` reduction of `op` uses on elements of
/// `e`, where the manual defines it: `.add` on .u32/.s32/.u64/.f32/.f16/.bf16, `.min`/`.max`
/// on .u32/.s32/.u64/.s64/.f16/.bf16, `.inc`/`.dec` on .u32, `.and`/`.or`/`.xor` on
/// .u32/.s32/.u64/.s64 (as .b32/.b64).
fn tma_reduce_type(op: AtomOp, e: tma::Elem) -> Option<Type> {
    use tma::Elem as E;
    Some(match (op, e) {
        (AtomOp::Add, E::U32) => Type::U32,
        (AtomOp::Add, E::S32) => Type::S32,
        (AtomOp::Add, E::U64) => Type::U64,
        (AtomOp::Add, E::F32 | E::F32Ftz) => Type::F32,
        (AtomOp::Add | AtomOp::Min | AtomOp::Max, E::F16) => Type::F16,
        (AtomOp::Add | AtomOp::Min | AtomOp::Max, E::Bf16) => Type::Bf16,
        (AtomOp::Min | AtomOp::Max, E::U32) => Type::U32,
        (AtomOp::Min | AtomOp::Max, E::S32) => Type::S32,
        (AtomOp::Min | AtomOp::Max, E::U64) => Type::U64,
        (AtomOp::Min | AtomOp::Max, E::S64) => Type::S64,
        (AtomOp::Inc | AtomOp::Dec, E::U32) => Type::U32,
        (AtomOp::And | AtomOp::Or | AtomOp::Xor, E::U32 | E::S32) => Type::B32,
        (AtomOp::And | AtomOp::Or | AtomOp::Xor, E::U64 | E::S64) => Type::B64,
        _ => return None,
    })
}
