//! `ptxvm run`'s texture and surface arguments:
//! `tex:PATH.npy[,filter=point|linear][,address=clamp|wrap|mirror|border][,normalized][,read=element|float][,geom=layered|cube|acube][,levels=N[,mipfilter=point|linear][,lodbias=F][,minlod=F][,maxlod=F]]`
//! and `surf:PATH.npy`. The array's shape gives the resource: a last dimension of 1, 2 or 4
//! (in an array of two or more dimensions) is the channels, the others are (width),
//! (height, width) or (depth, height, width); with `geom=layered` the first of them is the
//! layer count ((layers, width) or (layers, height, width)); `geom=cube` is (6, size, size)
//! and `geom=acube` (6·cubes, size, size); the dtype is the element type (u8 i8 u16 i16
//! u32 i32 f16 f32). The array is copied to device memory and an object is created over
//! it; the kernel gets its 64-bit handle (or, with `--symbol`, a `.texref`/`.surfref`
//! variable is bound to it), and `--out` writes the array back.

use crate::npy::{Array, Dtype};
use ptxvm_vm::Device;
use ptxvm_vm::ops::texture::{AddrMode, Elem, Filter, Geom, Layout, Sampler};
use std::path::PathBuf;

/// A parsed `tex:`/`surf:` spec.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjSpec {
    pub path: PathBuf,
    /// `None` for a surface.
    pub sampler: Option<Sampler>,
    /// `geom=`: the array is layered, a cubemap or an array of cubemaps.
    pub geom: Option<Geom>,
    /// `levels=N`: a chain of N mipmap levels, each the previous one box-filtered
    /// ([`box_level`]).
    pub levels: u32,
}

/// The grammar, for messages and `--help`.
pub const GRAMMAR: &str = "tex:PATH.npy[,filter=point|linear][,address=clamp|wrap|mirror|border][,normalized][,read=element|float][,geom=layered|cube|acube][,levels=N[,mipfilter=point|linear][,lodbias=F][,minlod=F][,maxlod=F]] or surf:PATH.npy";

/// Parses `tex:…`/`surf:…` (`None` when the spec is neither).
pub fn parse(spec: &str) -> Option<Result<ObjSpec, String>> {
    if let Some(rest) = spec.strip_prefix("surf:") {
        return Some(if rest.ends_with(".npy") && rest.len() > 4 {
            Ok(ObjSpec {
                path: PathBuf::from(rest),
                sampler: None,
                geom: None,
                levels: 1,
            })
        } else {
            Err(format!("`{spec}`: expected surf:PATH.npy (no options)"))
        });
    }
    let rest = spec.strip_prefix("tex:")?;
    Some(parse_tex(spec, rest))
}

fn parse_tex(spec: &str, rest: &str) -> Result<ObjSpec, String> {
    let end = rest
        .find(".npy")
        .map(|i| i + 4)
        .filter(|&i| i > 4 && (i == rest.len() || rest[i..].starts_with(',')))
        .ok_or_else(|| format!("`{spec}`: expected {GRAMMAR}"))?;
    let mut s = Sampler::default();
    let mut geom = None;
    let mut levels = 1;
    let mut seen: Vec<&str> = Vec::new();
    for opt in rest[end..].split(',').skip(1) {
        let (key, val) = opt.split_once('=').unwrap_or((opt, ""));
        if seen.contains(&key) {
            return Err(format!("`{spec}`: `{key}` is given twice"));
        }
        seen.push(key);
        let bad = |allowed: &str| format!("`{spec}`: `{opt}`: {key} is one of {allowed}");
        match key {
            "filter" => {
                s.filter = match val {
                    "point" => Filter::Point,
                    "linear" => Filter::Linear,
                    _ => return Err(bad("point, linear")),
                }
            }
            "address" => {
                s.address = [match val {
                    "clamp" => AddrMode::Clamp,
                    "wrap" => AddrMode::Wrap,
                    "mirror" => AddrMode::Mirror,
                    "border" => AddrMode::Border,
                    _ => return Err(bad("clamp, wrap, mirror, border")),
                }; 3]
            }
            "geom" => {
                // The layered flavour is settled by the shape (`shape_of`).
                geom = Some(match val {
                    "layered" => Geom::Layered2,
                    "cube" => Geom::Cube,
                    "acube" => Geom::CubeLayered,
                    _ => return Err(bad("layered, cube, acube")),
                })
            }
            "levels" => {
                levels = val
                    .parse::<u32>()
                    .ok()
                    .filter(|&n| (1..=32).contains(&n))
                    .ok_or_else(|| format!("`{spec}`: `{opt}`: levels is 1 to 32"))?
            }
            "mipfilter" => {
                s.mip_filter = match val {
                    "point" => Filter::Point,
                    "linear" => Filter::Linear,
                    _ => return Err(bad("point, linear")),
                }
            }
            "lodbias" | "minlod" | "maxlod" => {
                let v = val
                    .parse::<f32>()
                    .ok()
                    .filter(|v| !v.is_nan())
                    .ok_or_else(|| format!("`{spec}`: `{opt}`: {key} is a number"))?;
                match key {
                    "lodbias" => s.lod_bias = v,
                    "minlod" => s.min_lod = v,
                    _ => s.max_lod = v,
                }
            }
            "normalized" if val.is_empty() && !opt.contains('=') => s.normalized = true,
            "read" => {
                s.read_float = match val {
                    "element" => false,
                    "float" => true,
                    _ => return Err(bad("element, float")),
                }
            }
            _ => {
                return Err(format!(
                    "`{spec}`: unknown option `{opt}` (expected {GRAMMAR})"
                ));
            }
        }
    }
    let mip = ["mipfilter", "lodbias", "minlod", "maxlod"];
    if levels == 1
        && let Some(k) = seen.iter().find(|k| mip.contains(k))
    {
        return Err(format!("`{spec}`: `{k}` needs levels=N (N > 1)"));
    }
    Ok(ObjSpec {
        path: PathBuf::from(&rest[..end]),
        sampler: Some(s),
        geom,
        levels,
    })
}

/// The resource shape of an array: element type, channels, geometry and extents.
pub fn shape_of(a: &Array) -> Result<(Elem, u8, Geom, [u64; 3]), String> {
    shape_as(a, None).map(|(e, c, g, x, _)| (e, c, g, x))
}

/// [`shape_of`] with the `geom=` option: also the layer count.
pub fn shape_as(a: &Array, geom: Option<Geom>) -> Result<(Elem, u8, Geom, [u64; 3], u64), String> {
    let elem = match a.dtype {
        Dtype::U8 => Elem::U8,
        Dtype::I8 => Elem::S8,
        Dtype::U16 => Elem::U16,
        Dtype::I16 => Elem::S16,
        Dtype::U32 => Elem::U32,
        Dtype::I32 => Elem::S32,
        Dtype::F16 => Elem::F16,
        Dtype::F32 => Elem::F32,
        d => {
            return Err(format!(
                "a texture or surface has u8 i8 u16 i16 u32 i32 f16 or f32 elements, not {d:?}"
            ));
        }
    };
    let s = &a.shape;
    let (channels, dims) = match s.split_last() {
        Some((&c, rest)) if !rest.is_empty() && matches!(c, 1 | 2 | 4) => (c as u8, rest),
        _ => (1, s.as_slice()),
    };
    let d = |i: usize| dims[i] as u64;
    let (geom, ext, layers) = match (geom, dims.len()) {
        (None, 1) => (Geom::D1, [d(0), 1, 1], 1),
        (None, 2) => (Geom::D2, [d(1), d(0), 1], 1),
        (None, 3) => (Geom::D3, [d(2), d(1), d(0)], 1),
        (Some(Geom::Layered2 | Geom::Layered1), 2) => (Geom::Layered1, [d(1), 1, 1], d(0)),
        (Some(Geom::Layered2 | Geom::Layered1), 3) => (Geom::Layered2, [d(2), d(1), 1], d(0)),
        (Some(g @ (Geom::Cube | Geom::CubeLayered)), 3) => {
            let ok = d(1) == d(2)
                && if g == Geom::Cube {
                    d(0) == 6
                } else {
                    d(0) % 6 == 0 && d(0) > 0
                };
            if !ok {
                return Err(format!(
                    "shape {s:?}: a cubemap is (6, size, size) and an array of them (6·cubes, size, size), before the channels"
                ));
            }
            (g, [d(2), d(1), 1], d(0))
        }
        (Some(g), n) => {
            return Err(format!(
                "shape {s:?} has {n} dimensions besides the channels: geom={} needs {}",
                match g {
                    Geom::Cube => "cube",
                    Geom::CubeLayered => "acube",
                    _ => "layered",
                },
                if matches!(g, Geom::Cube | Geom::CubeLayered) {
                    "3"
                } else {
                    "2 or 3"
                }
            ));
        }
        (None, n) => {
            return Err(format!(
                "shape {s:?} has {n} dimensions besides the channels (1 to 3)"
            ));
        }
    };
    Ok((elem, channels, geom, ext, layers))
}

/// Creates the object over device memory at `addr` holding the array; returns its handle.
pub fn create(dev: &Device, o: &ObjSpec, a: &Array, addr: u64) -> Result<u64, String> {
    let (elem, channels, geom, [w, h, d], layers) = shape_as(a, o.geom)?;
    let lay = Layout::packed(addr, elem, channels, geom, w, h, d, layers)
        .ok_or_else(|| "the array's size overflows".to_string())?;
    let lay = if o.levels > 1 {
        mip_chain(dev, lay, o.levels)?
    } else {
        lay
    };
    match &o.sampler {
        Some(s) => dev.create_texture(lay, *s),
        None => dev.create_surface(lay),
    }
    .map_err(|e| e.to_string())
}

/// Copies level 0 (at `lay.base`) into a new allocation followed by `levels − 1` levels,
/// each [`box_level`] of the one before; the chain's layout.
fn mip_chain(dev: &Device, lay: Layout, levels: u32) -> Result<Layout, String> {
    let chain = lay.with_levels(levels);
    chain.validate()?;
    let total = chain.span().ok_or("the mipmap chain's size overflows")?;
    let size0 = lay.span().ok_or("the array's size overflows")?;
    let mut bytes = dev.read(lay.base, size0).map_err(|e| e.to_string())?;
    let at0 = |l: &Layout| Layout { base: 0, ..*l };
    for i in 1..levels {
        let (p, n) = (chain.level(i - 1), chain.level(i));
        let (Some(p), Some(n)) = (p, n) else {
            return Err("the mipmap chain's size overflows".into());
        };
        let off = (p.base - chain.base) as usize;
        let next = box_level(&at0(&p), &bytes[off..], &at0(&n));
        bytes.extend(next);
    }
    let base = dev.malloc(total).map_err(|e| e.to_string())?;
    dev.write(base, &bytes).map_err(|e| e.to_string())?;
    Ok(Layout { base, ..chain })
}

/// One mipmap level from the one below (both packed, based at 0): texel `(x, y, z)` is the
/// mean of the 2, 4 or 8 texels `(2x + i, 2y + j, 2z + k)` (i, j, k in 0..2, each clamped to
/// the level below, so an odd extent drops its last texel and an extent of 1 repeats it),
/// per layer and channel. Floats: summed in f32 in the order x fastest, then y, then z, and
/// multiplied by 1/n (f16 through f32, rounded to nearest even); integers:
/// `floor((sum + n/2) / n)`. `tools/tex_ref.py` computes the same.
pub fn box_level(prev: &Layout, src: &[u8], next: &Layout) -> Vec<u8> {
    let dims = next.geom.dims();
    let n = 1usize << dims;
    let eb = next.elem.bytes() as usize;
    let mut out = vec![0u8; next.span().unwrap_or(0) as usize];
    let rd = |off: usize| -> [u8; 4] {
        let mut w = [0u8; 4];
        if let Some(b) = src.get(off..off + eb) {
            w[..eb].copy_from_slice(b);
        }
        w
    };
    for layer in 0..next.layers {
        for z in 0..next.depth {
            for y in 0..next.height {
                for x in 0..next.width {
                    let Some(dst) = next.texel_addr(layer, [x, y, z]) else {
                        continue;
                    };
                    let mut kids = Vec::with_capacity(n);
                    for k in 0..if dims == 3 { 2 } else { 1 } {
                        for j in 0..if dims >= 2 { 2 } else { 1 } {
                            for i in 0..2 {
                                let c = [
                                    (2 * x + i).min(prev.width - 1),
                                    (2 * y + j).min(prev.height - 1),
                                    (2 * z + k).min(prev.depth - 1),
                                ];
                                kids.extend(prev.texel_addr(layer, c));
                            }
                        }
                    }
                    for ch in 0..next.channels as usize {
                        let vals = kids.iter().map(|&a| rd(a as usize + ch * eb));
                        let v: [u8; 4] = match next.elem {
                            Elem::F32 | Elem::F16 => {
                                let f = |w: [u8; 4]| {
                                    if next.elem == Elem::F32 {
                                        f32::from_le_bytes(w)
                                    } else {
                                        ptxvm_fp::convert::cvt_f16_to_f32(
                                            u16::from_le_bytes([w[0], w[1]]),
                                            false,
                                            false,
                                        )
                                    }
                                };
                                let mut sum = 0.0f32;
                                for (i, w) in vals.enumerate() {
                                    sum = if i == 0 { f(w) } else { sum + f(w) };
                                }
                                let m = sum * (1.0 / n as f32);
                                if next.elem == Elem::F32 {
                                    m.to_le_bytes()
                                } else {
                                    let h = ptxvm_fp::convert::cvt_f32_to_f16(
                                        m,
                                        ptxvm_fp::Rnd::Rn,
                                        false,
                                        false,
                                        false,
                                        false,
                                    );
                                    let b = h.to_le_bytes();
                                    [b[0], b[1], 0, 0]
                                }
                            }
                            e => {
                                let sum: i64 = vals
                                    .map(|w| {
                                        let v = u32::from_le_bytes(w);
                                        match e {
                                            Elem::S8 => v as u8 as i8 as i64,
                                            Elem::S16 => v as u16 as i16 as i64,
                                            Elem::S32 => v as i32 as i64,
                                            _ => v as i64,
                                        }
                                    })
                                    .sum();
                                ((sum + (n as i64) / 2).div_euclid(n as i64) as u32).to_le_bytes()
                            }
                        };
                        let o = dst as usize + ch * eb;
                        if let Some(d) = out.get_mut(o..o + eb) {
                            d.copy_from_slice(&v[..eb]);
                        }
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        let o = parse("tex:a.npy,filter=linear,address=wrap,normalized,read=float")
            .unwrap()
            .unwrap();
        let s = o.sampler.unwrap();
        assert_eq!(o.path, PathBuf::from("a.npy"));
        assert_eq!(s.filter, Filter::Linear);
        assert_eq!(s.address, [AddrMode::Wrap; 3]);
        assert!(s.normalized && s.read_float);
        assert_eq!(parse("surf:b.npy").unwrap().unwrap().sampler, None);
        let o = parse("tex:a.npy,geom=cube").unwrap().unwrap();
        assert_eq!(o.geom, Some(Geom::Cube));
        assert!(parse("u32:5").is_none());
        let o = parse("tex:a.npy,levels=3,mipfilter=linear,lodbias=0.5,maxlod=1.5")
            .unwrap()
            .unwrap();
        let s = o.sampler.unwrap();
        assert_eq!(o.levels, 3);
        assert_eq!(s.mip_filter, Filter::Linear);
        assert_eq!((s.lod_bias, s.min_lod, s.max_lod), (0.5, 0.0, 1.5));
        for bad in [
            "tex:a.npy,filter=cubic",
            "tex:a.npy,normalized=1",
            "tex:a.npy,filter=point,filter=linear",
            "tex:a.npy,bogus",
            "tex:a.npy,geom=3d",
            "tex:a.npy,levels=0",
            "tex:a.npy,levels=33",
            "tex:a.npy,mipfilter=linear",
            "tex:a.npy,levels=2,lodbias=nan",
            "tex:a.npyx",
            "tex:.npy",
            "tex:a.txt",
            "surf:a.npy,normalized",
            "surf:",
        ] {
            assert!(parse(bad).unwrap().is_err(), "{bad}");
        }
    }
}
