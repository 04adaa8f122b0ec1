//! Textures and surfaces: `tex`, `tld4`, `txq`, `suq`, `suld.b`, `sust.b`/`sust.p`, `sured`
//! and `istypep`, over the device's texture and surface objects (`crate::texobj`).
//!
//! Decoding (`Dx::decode_texture`, called by `program.rs`) and the reference engine's
//! execution (`Cta::exec_texture`); the sampling and surface addressing themselves are
//! `crate::ops::texture`. The mipmap forms (`.base`, `.level`, `.grad`) select levels with
//! `ops::texture::lookup`; `.2dms`/`.a2dms` read sample 0, the only sample; the `d|p`
//! residency predicate is always true; an explicit sampler (`[a, b, c]`) is a texture
//! object whose sampling state is used; depth compare is `ops::texture`'s
//! (`docs/textures.md`).

use crate::exec::*;
use crate::ops::texture::{
    self as tx, Geom, Lod, LodMode, Oob, Query, SurfMiss, TexInst, TexOp, TexOut,
};
use crate::texobj::Object;
use ptxvm_ir::ir::{self, Base, Op};

impl Dx<'_> {
    /// A texture/surface operand: a `.u64` handle register, or a `.texref`/`.surfref`
    /// variable (its address: the handle is read from it).
    fn tex_handle(&self, o: &Op) -> Option<Src> {
        match o {
            Op::Reg(r) => Some(Src::Reg(*r)),
            Op::Sym { var, offset, .. } => Some(Src::Var(self.var(*var), *offset)),
            Op::Addr {
                base: Base::Reg(r),
                offset: 0,
            } => Some(Src::Reg(*r)),
            Op::Addr {
                base: Base::Var(v),
                offset,
            } => Some(Src::Var(self.var(*v), *offset)),
            _ => None,
        }
    }

    /// The elements of a vector operand (a scalar is a vector of one).
    fn tex_vec(&self, o: &Op) -> Option<Vec<Src>> {
        match o {
            Op::Vector(v) => v.iter().map(|x| self.src(x)).collect(),
            x => Some(vec![self.src(x)?]),
        }
    }

    /// `[a, c]`: the handle and the coordinates (surfaces).
    fn tex_addr(&self, o: &Op) -> Option<(Src, Vec<Src>)> {
        match self.tex_addr_sampler(o)? {
            (h, None, c) => Some((h, c)),
            _ => None,
        }
    }

    /// `[a, c]` or `[a, b, c]`: the handle, the explicit sampler if any, the coordinates.
    fn tex_addr_sampler(&self, o: &Op) -> Option<(Src, Option<Src>, Vec<Src>)> {
        match o {
            Op::TexAddr(parts) if parts.len() == 2 => {
                Some((self.tex_handle(&parts[0])?, None, self.tex_vec(&parts[1])?))
            }
            Op::TexAddr(parts) if parts.len() == 3 => Some((
                self.tex_handle(&parts[0])?,
                Some(self.tex_handle(&parts[1])?),
                self.tex_vec(&parts[2])?,
            )),
            _ => None,
        }
    }

    /// The operands after `tex`/`tld4`'s address (and level or gradients): the offset
    /// vector `e`, the depth-compare value `f`, both, or neither.
    fn tex_tail(&self, rest: &[Op]) -> Option<(Vec<Src>, Option<Src>)> {
        let offs = |e: &[Op]| e.iter().map(|o| self.src(o)).collect::<Option<Vec<_>>>();
        Some(match rest {
            [] => (Vec::new(), None),
            [Op::Vector(e)] => (offs(e)?, None),
            [Op::Vector(e), f] => (offs(e)?, Some(self.src(f)?)),
            [f] => (Vec::new(), Some(self.src(f)?)),
            _ => return None,
        })
    }

    /// Decodes the texture family's instructions (`None`: a form the engines do not run).
    pub(crate) fn decode_texture(&self, inst: &ir::Inst) -> Option<Exec> {
        let mods: &[&str] = &inst.mods;
        let has = |m: &str| mods.contains(&m);
        let ops = &inst.operands;
        let op = |k: usize| ops.get(k);
        let geom = || mods.iter().find_map(|m| Geom::from_mod(m));
        let oob = || mods.iter().find_map(|m| Oob::from_mod(m));
        let dsts = |o: &Op| -> Option<Vec<Dst>> {
            match o {
                Op::Vector(v) => v.iter().map(|x| self.dst(x)).collect(),
                x => Some(vec![self.dst(x)?]),
            }
        };
        // `d` or `d|p` (with the residency predicate).
        let dsts_p = |o: &Op| -> Option<(Vec<Dst>, Option<Dst>)> {
            match o {
                Op::Pair(v, p) => Some((dsts(v)?, Some(self.dst(p)?))),
                x => Some((dsts(x)?, None)),
            }
        };
        let name = format!("{}{}", inst.opcode, mods.concat());
        let mut x = TexInst {
            op: TexOp::Istypep(0),
            name,
            handle: Src::Imm(0),
            coords: Vec::new(),
            offs: Vec::new(),
            ds: Vec::new(),
            data: Vec::new(),
            resident: None,
            sampler: None,
            lod: Vec::new(),
        };
        match inst.opcode {
            "tex" => {
                // Multi-sample textures read a 2D (layered) object's only sample.
                let ms = has(".2dms") || has(".a2dms");
                let geom = match () {
                    _ if has(".2dms") => Geom::D2,
                    _ if has(".a2dms") => Geom::Layered2,
                    _ => geom()?,
                };
                let n = mods.len();
                let ctype = mods.get(n.checked_sub(1)?)?;
                let dtype = mods.get(n.checked_sub(2)?)?;
                let out = match *dtype {
                    ".f16" => TexOut::F16,
                    ".f16x2" => TexOut::F16x2,
                    _ => TexOut::Word,
                };
                (x.ds, x.resident) = dsts_p(op(0)?)?;
                (x.handle, x.sampler, x.coords) = self.tex_addr_sampler(op(1)?)?;
                // Operands after the address: the level or the two gradients, then the
                // offset vector and the depth-compare value.
                let (lod, skip) = if has(".level") {
                    (LodMode::Level, 1)
                } else if has(".grad") {
                    (LodMode::Grad, 2)
                } else {
                    (LodMode::Base, 0)
                };
                for k in 0..skip {
                    x.lod.extend(self.tex_vec(op(2 + k)?)?);
                }
                let f;
                (x.offs, f) = self.tex_tail(ops.get(2 + skip..)?)?;
                if ms {
                    // `.2dms` {sample, x, y, -}; `.a2dms` {index, sample, x, y}.
                    let c = std::mem::take(&mut x.coords);
                    let (sample, coords) = match (has(".a2dms"), c.as_slice()) {
                        (false, [s, cx, cy, ..]) => (*s, vec![*cx, *cy]),
                        (true, [l, s, cx, cy, ..]) => (*s, vec![*l, *cx, *cy]),
                        _ => return None,
                    };
                    x.coords = coords;
                    x.data = vec![sample];
                }
                if let Some(f) = f {
                    if ms {
                        return None;
                    }
                    x.data = vec![f];
                }
                x.op = TexOp::Tex {
                    geom,
                    int_coords: *ctype == ".s32",
                    out,
                    ms,
                    cmp: f.is_some(),
                    lod,
                };
            }
            "tld4" => {
                let geom = geom()?;
                let comp = [".r", ".g", ".b", ".a"].iter().position(|c| has(c))? as u8;
                (x.ds, x.resident) = dsts_p(op(0)?)?;
                (x.handle, x.sampler, x.coords) = self.tex_addr_sampler(op(1)?)?;
                let f;
                (x.offs, f) = self.tex_tail(ops.get(2..)?)?;
                x.data = f.into_iter().collect();
                x.op = TexOp::Tld4 {
                    geom,
                    comp,
                    cmp: f.is_some(),
                };
            }
            "txq" | "suq" => {
                let q = mods.iter().find_map(|m| Query::from_mod(m))?;
                x.op = if inst.opcode == "txq" {
                    TexOp::Txq {
                        q,
                        level: has(".level"),
                    }
                } else {
                    TexOp::Suq(q)
                };
                x.ds = vec![self.dst(op(0)?)?];
                x.handle = self.tex_handle(op(1)?)?;
                if let Some(l) = op(2) {
                    x.data = vec![self.src(l)?];
                }
            }
            "suld" => {
                let t = mods.iter().rev().find_map(|m| Type::from_dot(m))?;
                x.op = TexOp::Suld {
                    geom: geom()?,
                    size: t.bytes(),
                    oob: oob()?,
                };
                x.ds = dsts(op(0)?)?;
                (x.handle, x.coords) = self.tex_addr(op(1)?)?;
            }
            "sust" => {
                let t = mods.iter().rev().find_map(|m| Type::from_dot(m))?;
                x.op = TexOp::Sust {
                    geom: geom()?,
                    size: t.bytes(),
                    formatted: has(".p"),
                    oob: oob()?,
                };
                (x.handle, x.coords) = self.tex_addr(op(0)?)?;
                x.data = self.tex_vec(op(1)?)?;
            }
            "sured" => {
                let t = mods.iter().rev().find_map(|m| Type::from_dot(m))?;
                let aop = match () {
                    _ if has(".add") => AtomOp::Add,
                    _ if has(".min") => AtomOp::Min,
                    _ if has(".max") => AtomOp::Max,
                    _ if has(".and") => AtomOp::And,
                    _ if has(".or") => AtomOp::Or,
                    _ => return None,
                };
                x.op = TexOp::Sured {
                    geom: geom()?,
                    op: aop,
                    ty: t,
                    formatted: has(".p"),
                    oob: oob()?,
                };
                (x.handle, x.coords) = self.tex_addr(op(0)?)?;
                x.data = vec![self.src(op(1)?)?];
            }
            "istypep" => {
                let k = [".texref", ".samplerref", ".surfref"]
                    .iter()
                    .position(|c| has(c))? as u8;
                x.op = TexOp::Istypep(k);
                x.ds = vec![self.dst(op(0)?)?];
                x.handle = self.src(op(1)?)?;
            }
            _ => return None,
        }
        Some(Exec::Texture(Box::new(x)))
    }
}

impl Cta<'_> {
    /// The object a handle value names: a handle, or the address of a `.texref`/`.surfref`
    /// variable holding one. `Err`: why there is none.
    fn tex_object(&self, mem: &AddressSpace, v: u64) -> Result<Object, String> {
        if let Some(o) = mem.objects().get(v) {
            return Ok(o);
        }
        let mut b = [0u8; 8];
        if mem.read_guest(v, &mut b).is_err() {
            return Err(format!(
                "{v:#x} is not a texture or surface object (an unknown or destroyed handle)"
            ));
        }
        let h = u64::from_le_bytes(b);
        mem.objects().get(h).ok_or_else(|| {
            format!(
                "the reference at {v:#x} holds {h:#x}, which is not a texture or surface object (an unbound reference, or a destroyed object)"
            )
        })
    }

    /// Runs one thread's step of a texture-family instruction (the reference engine's step).
    pub(in crate::exec) fn exec_texture(
        &mut self,
        t: usize,
        inst: &DInst,
        mem: &AddressSpace,
    ) -> Result<(), Box<Fault>> {
        let next = self.sched[t].pc + 1;
        let Exec::Texture(x) = &inst.exec else {
            return Err(self.misrouted(t, &inst.exec));
        };
        let hv = self.src(t, x.handle);
        let obj = self.tex_object(mem, hv);
        if let TexOp::Istypep(k) = x.op {
            let r = matches!(
                (k, obj),
                (0, Ok(Object::Texture(..))) | (2, Ok(Object::Surface(_)))
            );
            self.write(t, x.ds[0], r as u64);
            self.sched[t].pc = next;
            return Ok(());
        }
        let obj = match obj {
            Ok(o) => o,
            Err(m) => {
                return Err(self.fault(t, FaultKind::OutOfBounds, format!("`{}`: {m}", x.name)));
            }
        };
        let lay = *obj.layout();
        let is_surface = matches!(obj, Object::Surface(_));
        let wants_surface = matches!(
            x.op,
            TexOp::Suq(_) | TexOp::Suld { .. } | TexOp::Sust { .. } | TexOp::Sured { .. }
        );
        if is_surface != wants_surface {
            return Err(self.fault(
                t,
                FaultKind::OutOfBounds,
                format!(
                    "`{}`: handle {hv:#x} is a {} object, not a {} one",
                    x.name,
                    if is_surface { "surface" } else { "texture" },
                    if wants_surface { "surface" } else { "texture" }
                ),
            ));
        }
        let geom_of = |g: Geom| g;
        if let TexOp::Tex { geom, .. }
        | TexOp::Tld4 { geom, .. }
        | TexOp::Suld { geom, .. }
        | TexOp::Sust { geom, .. }
        | TexOp::Sured { geom, .. } = x.op
            && geom_of(geom) != lay.geom
        {
            return Err(self.fault(
                t,
                FaultKind::OutOfBounds,
                format!(
                    "`{}`: the object is a {} resource, the instruction reads {}",
                    x.name,
                    lay.geom.name(),
                    geom.name()
                ),
            ));
        }
        // Coordinates: the array index first when layered.
        let cs: Vec<u64> = x.coords.iter().map(|&s| self.src(t, s)).collect();
        let layered = lay.geom.layered() as usize;
        let layer_raw = if layered == 1 {
            cs.first().copied().unwrap_or(0) as u32
        } else {
            0
        };
        let c = |d: usize| cs.get(layered + d).copied().unwrap_or(0) as u32;
        let offs: Vec<i32> = x.offs.iter().map(|&s| self.src(t, s) as i32).collect();
        let off = |d: usize| offs.get(d).copied().unwrap_or(0);
        let mut read = |a: u64, b: &mut [u8]| mem.read_guest(a, b).map_err(|e| e.to_string());
        let fail = |this: &Self, m: String| {
            this.fault(t, FaultKind::OutOfBounds, format!("`{}`: {m}", x.name))
        };
        // The sampler of `[a, b, c]`: the sampling state of the texture object `b` names.
        let smp_of = |this: &Self, own: tx::Sampler| -> Result<tx::Sampler, Box<Fault>> {
            let Some(b) = x.sampler else { return Ok(own) };
            let bv = this.src(t, b);
            match this.tex_object(mem, bv) {
                Ok(Object::Texture(_, s)) => s.validate(&lay).map(|()| s).map_err(|m| {
                    this.fault(
                        t,
                        FaultKind::OutOfBounds,
                        format!(
                            "`{}`: the sampler of texture {bv:#x} cannot read this texture: {m}",
                            x.name
                        ),
                    )
                }),
                Ok(Object::Surface(_)) => Err(this.fault(
                    t,
                    FaultKind::OutOfBounds,
                    format!(
                        "`{}`: sampler {bv:#x} is a surface object, not a texture one",
                        x.name
                    ),
                )),
                Err(m) => Err(this.fault(
                    t,
                    FaultKind::OutOfBounds,
                    format!("`{}`: sampler: {m}", x.name),
                )),
            }
        };
        let data0 = || x.data.first().map_or(0, |&s| self.src(t, s));
        match x.op {
            TexOp::Tex {
                int_coords,
                out,
                ms,
                cmp,
                lod,
                ..
            } => {
                let Object::Texture(_, smp) = obj else {
                    return Err(self.misrouted(t, &inst.exec));
                };
                let smp = smp_of(self, smp)?;
                if ms && data0() as u32 != 0 {
                    return Err(self.fault(
                        t,
                        FaultKind::OutOfBounds,
                        format!(
                            "`{}`: sample {} of a texture with one sample (ptxvm's textures are not multi-sampled)",
                            x.name,
                            data0() as u32
                        ),
                    ));
                }
                let cmp = cmp.then(|| f32::from_bits(data0() as u32));
                let lv: Vec<u32> = x.lod.iter().map(|&s| self.src(t, s) as u32).collect();
                let l0 = lv.first().copied().unwrap_or(0);
                // `.grad`: dPdx's elements, then dPdy's (1, 2 or 4 each).
                let (gx, gy) = lv.split_at(lv.len() / 2);
                let g = |v: &[u32]| -> [f32; 3] {
                    std::array::from_fn(|d| f32::from_bits(v.get(d).copied().unwrap_or(0)))
                };
                let lod = match lod {
                    LodMode::Base => Lod::Base,
                    LodMode::Level if int_coords => Lod::Index(l0 as i32),
                    LodMode::Level => Lod::Level(f32::from_bits(l0)),
                    LodMode::Grad => Lod::Grad(g(gx), g(gy)),
                };
                let r = tx::lookup(
                    &lay,
                    &smp,
                    layer_raw,
                    [c(0), c(1), c(2)],
                    [off(0), off(1), off(2)],
                    int_coords,
                    cmp,
                    lod,
                    &mut read,
                )
                .map_err(|m| fail(self, m))?;
                let h = |v: u32| {
                    ptxvm_fp::convert::cvt_f32_to_f16(
                        f32::from_bits(v),
                        ptxvm_fp::Rnd::Rn,
                        false,
                        false,
                        false,
                        false,
                    ) as u64
                };
                let vals: Vec<u64> = match out {
                    TexOut::Word => r.iter().map(|&v| v as u64).collect(),
                    TexOut::F16 => r.iter().map(|&v| h(v)).collect(),
                    TexOut::F16x2 => vec![h(r[0]) | h(r[1]) << 16, h(r[2]) | h(r[3]) << 16],
                };
                for (d, v) in x.ds.iter().zip(vals) {
                    self.write(t, *d, v);
                }
            }
            TexOp::Tld4 { comp, cmp, .. } => {
                let Object::Texture(_, smp) = obj else {
                    return Err(self.misrouted(t, &inst.exec));
                };
                let smp = smp_of(self, smp)?;
                let cmp = cmp.then(|| f32::from_bits(data0() as u32));
                let fc = |d: usize| f32::from_bits(c(d));
                let r = if lay.geom.is_cube() {
                    let (fl, fs, layer, uv) =
                        tx::cube_view(&lay, &smp, layer_raw, [fc(0), fc(1), fc(2)]);
                    tx::gather(&fl, &fs, layer, uv, [0; 2], comp as usize, cmp, &mut read)
                } else {
                    let layer = tx::layer_of(&lay, layer_raw);
                    let uv = [fc(0), fc(1)];
                    tx::gather(
                        &lay,
                        &smp,
                        layer,
                        uv,
                        [off(0), off(1)],
                        comp as usize,
                        cmp,
                        &mut read,
                    )
                }
                .map_err(|m| fail(self, m))?;
                for (d, v) in x.ds.iter().zip(r) {
                    self.write(t, *d, v as u64);
                }
            }
            TexOp::Txq { q, level } => {
                let Object::Texture(_, smp) = obj else {
                    return Err(self.misrouted(t, &inst.exec));
                };
                let lv = if level {
                    x.data.first().map_or(0, |&s| self.src(t, s) as u32)
                } else {
                    0
                };
                let v = tx::query(&lay, Some(&smp), q, lv);
                self.write(t, x.ds[0], v as u64);
            }
            TexOp::Suq(q) => {
                let v = tx::query(&lay, None, q, 0);
                self.write(t, x.ds[0], v as u64);
            }
            TexOp::Suld { size, oob, .. } => {
                let total = size as u64 * x.ds.len() as u64;
                let at = tx::surf_addr(
                    &lay,
                    layer_raw as i64,
                    [c(0) as i32, c(1) as i32, c(2) as i32],
                    true,
                    total,
                    oob,
                );
                let mut buf = vec![0u8; total as usize];
                match at {
                    Ok(a) => mem.read_guest(a, &mut buf).map_err(|e| {
                        let (k, m) = fault_of(e);
                        self.fault(t, k, format!("`{}`: {m}", x.name))
                    })?,
                    Err(SurfMiss::Zero) => {}
                    Err(SurfMiss::Fault(m)) => return Err(self.surf_fault(t, &x.name, m)),
                }
                for (i, d) in x.ds.iter().enumerate() {
                    let mut w = [0u8; 8];
                    let s = i * size as usize;
                    w[..size as usize].copy_from_slice(&buf[s..s + size as usize]);
                    self.write(t, *d, u64::from_le_bytes(w));
                }
            }
            TexOp::Sust {
                size,
                formatted,
                oob,
                ..
            } => {
                let vals: Vec<u64> = x.data.iter().map(|&s| self.src(t, s)).collect();
                let bytes: Vec<u8> = if formatted {
                    tx::pack_texel(&lay, &vals.iter().map(|&v| v as u32).collect::<Vec<_>>())
                } else {
                    vals.iter()
                        .flat_map(|v| v.to_le_bytes().into_iter().take(size as usize))
                        .collect()
                };
                let at = tx::surf_addr(
                    &lay,
                    layer_raw as i64,
                    [c(0) as i32, c(1) as i32, c(2) as i32],
                    !formatted,
                    bytes.len() as u64,
                    oob,
                );
                match at {
                    Ok(a) => mem.write_guest(a, &bytes).map_err(|e| {
                        let (k, m) = fault_of(e);
                        self.fault(t, k, format!("`{}`: {m}", x.name))
                    })?,
                    Err(SurfMiss::Zero) => {}
                    Err(SurfMiss::Fault(m)) => return Err(self.surf_fault(t, &x.name, m)),
                }
            }
            TexOp::Sured {
                op,
                ty,
                formatted,
                oob,
                ..
            } => {
                // `sured.p.b32`/`.b64` take the sign of the surface's format.
                let ty = match (formatted, ty.bits(), lay.elem.is_signed()) {
                    (true, 32, true) => Type::S32,
                    (true, 32, false) => Type::U32,
                    (true, 64, true) => Type::S64,
                    (true, _, _) => Type::U64,
                    (false, _, _) if ty == Type::B32 => Type::U32,
                    _ => ty,
                };
                let w = ty.bytes() as usize;
                let b = self.src(t, x.data.first().copied().unwrap_or(Src::Imm(0)));
                let at = tx::surf_addr(
                    &lay,
                    layer_raw as i64,
                    [c(0) as i32, c(1) as i32, c(2) as i32],
                    !formatted,
                    w as u64,
                    oob,
                );
                match at {
                    Ok(a) if a % w as u64 != 0 => {
                        return Err(self.surf_fault(
                            t,
                            &x.name,
                            format!("misaligned surface reduction: address {a:#x} is not a multiple of {w}"),
                        ));
                    }
                    Ok(a) => {
                        mem.atomic_rmw(a, w, |v| atom_op(op, ty, v as u64, b, 0) as u128)
                            .map_err(|(e, _)| {
                                let (k, m) = fault_of(e);
                                self.fault(t, k, format!("`{}`: {m}", x.name))
                            })?;
                    }
                    Err(SurfMiss::Zero) => {}
                    Err(SurfMiss::Fault(m)) => return Err(self.surf_fault(t, &x.name, m)),
                }
            }
            TexOp::Istypep(_) => {}
        }
        // Every texel is resident (ptxvm has no sparse textures).
        if let Some(p) = x.resident {
            self.write(t, p, 1);
        }
        self.sched[t].pc = next;
        Ok(())
    }

    /// The fault of a surface access out of range under `.trap` (a trap), or misaligned.
    fn surf_fault(&self, t: usize, name: &str, m: String) -> Box<Fault> {
        let kind = if m.starts_with("misaligned") {
            FaultKind::Misaligned
        } else {
            FaultKind::Trap
        };
        self.fault(t, kind, format!("`{name}`: {m}"))
    }
}
