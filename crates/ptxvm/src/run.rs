//! `ptxvm run`: launch a kernel from the command line with scalar, `.npy` and zero-filled
//! buffer arguments, and write the buffers back as `.npy` files.
//!
//! Contract (kept stable for scripts): `ptxvm run FILE.ptx [--kernel NAME] --grid
//! X[,Y[,Z]] --block X[,Y[,Z]] [--shared-mem BYTES] [--cluster X[,Y[,Z]]] [--arg SPEC]...
//! [--out DIR]`, SPEC one of
//! `TYPE:VALUE`, `PATH.npy`, `zeros:DTYPE:COUNT`, `hex:BYTES`, `tex:PATH.npy[,OPTIONS]`,
//! `surf:PATH.npy` (`crate::texarg`), `tmap:…` (a TMA tensor map), or `multicast:` before a
//! buffer spec (the buffer mapped as a multicast object of the one device, for `multimem`);
//! `--symbol NAME=SPEC` fills a
//! module `.global`/`.const` variable before the launch (and `--out` writes it to
//! `DIR/NAME.npy`); `--out DIR` writes buffer
//! argument i to `DIR/arg<i>.npy`.
//!
//! Exit codes: 0 success; 1 bad input (unreadable or invalid PTX or `.npy`, a module that
//! cannot be loaded) or a guest fault, or output that cannot be written; 2 a usage error
//! (a malformed option or `--arg`, arguments that do not match the kernel, a launch the
//! device cannot take, buffers larger than the device's memory).

use crate::npy::{self, Array, Dtype};
use ptxvm_vm::{Device, DeviceProps, LaunchConfig, ParamInfo, VmError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// An error of `ptxvm run` with its exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunError {
    pub code: u8,
    pub message: String,
}

impl RunError {
    /// A usage error (exit 2).
    pub fn usage(m: impl Into<String>) -> RunError {
        RunError {
            code: 2,
            message: m.into(),
        }
    }

    /// Bad input or a guest fault (exit 1).
    pub fn input(m: impl Into<String>) -> RunError {
        RunError {
            code: 1,
            message: m.into(),
        }
    }
}

/// Parses `X[,Y[,Z]]`.
pub fn parse_dim3(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{s}`: expected X, X,Y or X,Y,Z"));
    }
    let mut d = [1u32; 3];
    for (k, p) in parts.iter().enumerate() {
        d[k] = p
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: `{p}` is not a positive integer"))?;
        if d[k] == 0 {
            return Err(format!("`{s}`: dimensions must be at least 1"));
        }
    }
    Ok(d)
}

/// Parses a byte count: decimal, or with a binary suffix `K`, `M`, `G` (`512K`, `1M`).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, mult) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1u64 << 10),
        Some((i, 'm' | 'M')) => (&t[..i], 1u64 << 20),
        Some((i, 'g' | 'G')) => (&t[..i], 1u64 << 30),
        _ => (t, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "`{s}` is not a byte count (e.g. 4096, 512K, 1M, 2G)"
        ));
    }
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| format!("`{s}` is too large"))
}

/// A parsed `--arg`/`--symbol` value.
#[derive(Debug, Clone, PartialEq)]
pub enum Spec {
    /// Raw bytes for the parameter itself, and what they were given as (`u32`, `hex`).
    Bytes(Vec<u8>, String),
    /// A zero-filled device buffer of `count` elements.
    Zeros { dtype: Dtype, count: u64 },
    /// A device buffer with the contents of a `.npy` file.
    Npy(PathBuf),
    /// A texture or surface object over a `.npy` array (`crate::texarg`).
    Object(crate::texarg::ObjSpec),
}

/// A decimal or `0x` hexadecimal integer with an optional single leading `-`.
fn parse_int(v: &str) -> Result<i128, String> {
    let bad = || format!("`{v}` is not an integer");
    let (neg, body) = match v.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, v),
    };
    let (digits, radix) = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None => (body, 10),
    };
    // Only digits: `--5`, `+5`, `0x-5` and `1_000` are not integers here.
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(bad());
    }
    let mag = i128::from_str_radix(digits, radix).map_err(|_| format!("`{v}` is too large"))?;
    Ok(if neg { -mag } else { mag })
}

/// A floating-point value; a finite number too large for the type is an error (not a
/// silent infinity), `inf`/`nan` must be written as such.
fn parse_float(ty: &str, v: &str) -> Result<f64, String> {
    let x = v
        .trim()
        .parse::<f64>()
        .map_err(|_| format!("`{v}` is not a number"))?;
    let lower = v.trim().trim_start_matches(['-', '+']).to_ascii_lowercase();
    let spelled_special = matches!(lower.as_str(), "inf" | "infinity" | "nan");
    if !spelled_special && !x.is_finite() {
        return Err(format!("{v} is out of range for {ty}"));
    }
    Ok(x)
}

fn scalar(ty: &str, v: &str) -> Result<Vec<u8>, String> {
    let int = |bits: u32, signed: bool| -> Result<Vec<u8>, String> {
        let x = parse_int(v)?;
        let (lo, hi) = if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        if x < lo || x > hi {
            return Err(format!("{v} does not fit in {ty}"));
        }
        Ok((x as u128 as u64).to_le_bytes()[..(bits / 8) as usize].to_vec())
    };
    use ptxvm_fp::convert::{CvtMods, FloatType, cvt_float_to_float};
    let narrow = |dst: FloatType, x: f64| -> Result<u64, String> {
        let bits = cvt_float_to_float(
            x.to_bits(),
            FloatType::F64,
            dst,
            ptxvm_fp::Rnd::Rn,
            CvtMods::default(),
        );
        // Infinity out of a finite input: the value is out of range.
        let exp_all_ones = match dst {
            FloatType::F16 => bits & 0x7c00 == 0x7c00,
            FloatType::BF16 => bits & 0x7f80 == 0x7f80,
            _ => f32::from_bits(bits as u32).is_infinite(),
        };
        if x.is_finite() && exp_all_ones {
            return Err(format!("{v} is out of range for {ty}"));
        }
        Ok(bits)
    };
    Ok(match ty {
        "u8" => int(8, false)?,
        "u16" => int(16, false)?,
        "u32" => int(32, false)?,
        "u64" => int(64, false)?,
        "s8" => int(8, true)?,
        "s16" => int(16, true)?,
        "s32" => int(32, true)?,
        "s64" => int(64, true)?,
        "f32" => {
            let x = parse_float(ty, v)?;
            (narrow(FloatType::F32, x)? as u32).to_le_bytes().to_vec()
        }
        "f64" => parse_float(ty, v)?.to_le_bytes().to_vec(),
        "f16" | "bf16" => {
            let dst = if ty == "f16" {
                FloatType::F16
            } else {
                FloatType::BF16
            };
            (narrow(dst, parse_float(ty, v)?)? as u16)
                .to_le_bytes()
                .to_vec()
        }
        _ => {
            return Err(format!(
                "unknown scalar type `{ty}` (use u8 u16 u32 u64 s8 s16 s32 s64 f16 bf16 f32 f64)"
            ));
        }
    })
}

/// Parses an `--arg`/`--symbol` value (no file is read).
pub fn parse_spec(spec: &str) -> Result<Spec, String> {
    if let Some(h) = spec.strip_prefix("hex:") {
        let h: Vec<u8> = h
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '_')
            .map(|c| {
                c.to_digit(16)
                    .map(|d| d as u8)
                    .ok_or_else(|| format!("`{spec}`: `{c}` is not a hex digit"))
            })
            .collect::<Result<_, _>>()?;
        if !h.len().is_multiple_of(2) || h.is_empty() {
            return Err(format!(
                "`{spec}`: hex bytes need an even, non-zero number of digits"
            ));
        }
        let bytes = h.chunks(2).map(|p| p[0] << 4 | p[1]).collect();
        return Ok(Spec::Bytes(bytes, "hex".into()));
    }
    if let Some(rest) = spec.strip_prefix("zeros:") {
        let (dt, count) = rest
            .split_once(':')
            .ok_or_else(|| format!("`{spec}`: expected zeros:DTYPE:COUNT"))?;
        let dtype = Dtype::from_name(dt).ok_or_else(|| {
            format!(
                "`{spec}`: unknown dtype `{dt}` (f16 f32 f64 u8 u16 u32 u64 i8 i16 i32 i64 bool)"
            )
        })?;
        if count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("`{spec}`: `{count}` is not a count"));
        }
        let count: u64 = count
            .parse()
            .map_err(|_| format!("`{spec}`: `{count}` is too large"))?;
        if count.checked_mul(dtype.size() as u64).is_none() {
            return Err(format!(
                "`{spec}`: {count} elements of {} bytes do not fit in 64 bits",
                dtype.size()
            ));
        }
        return Ok(Spec::Zeros { dtype, count });
    }
    if let Some(o) = crate::texarg::parse(spec) {
        return o.map(Spec::Object);
    }
    if spec.ends_with(".npy") {
        return Ok(Spec::Npy(PathBuf::from(spec)));
    }
    if let Some((ty, v)) = spec.split_once(':') {
        return Ok(Spec::Bytes(scalar(ty, v)?, ty.to_string()));
    }
    Err(format!(
        "`{spec}`: expected TYPE:VALUE, PATH.npy, zeros:DTYPE:COUNT, hex:BYTES, tex:PATH.npy[,...] or surf:PATH.npy"
    ))
}

/// The memory a `tmap:` argument describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TmapBuf {
    /// An earlier buffer argument, by parameter index.
    Arg(usize),
    /// A new buffer with the `.npy` file's bytes (written back as `arg<i>.npy` by `--out`,
    /// `i` the tensor map's parameter index): for kernels that get only the map, as Triton's
    /// host-side tensor descriptors.
    Npy(PathBuf),
}

/// A parsed `tmap:` argument (see [`tmap_arg`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TmapSpec {
    pub buffer: TmapBuf,
    pub dtype: u32,
    pub dims: Vec<u64>,
    pub strides: Vec<u64>,
    pub boxdim: Vec<u32>,
    pub estrides: Vec<u32>,
    pub swizzle: u32,
    pub interleave: u32,
    pub fill: u32,
    pub l2: u32,
    /// An im2col map (`pixels=` given): the pixel box's lower and upper corners (the driver's
    /// {D, H, W} order, rank − 2 each) and the pixels per column; BOX is then the channels per
    /// pixel alone.
    pub im2col: Option<(Vec<i32>, Vec<i32>, u32)>,
    /// `wide=w|w128`: a wide im2col map (`cuTensorMapEncodeIm2colWide`, mode 0 W or 1 W128);
    /// `im2col` then holds the one W corner each.
    pub wide: Option<u32>,
}

/// Parses `tmap:BUF:DTYPE:DIMS:STRIDES:BOX[:estrides=E,…][:swizzle=none|32|64|128|128_atom32|…]
/// [:interleave=none|16|32][:fill=zero|nan][:l2=none|64|128|256]` (the grammar of
/// `ptxvm run --help`). Nothing is checked against the buffers here.
pub fn parse_tmap(spec: &str) -> Result<TmapSpec, String> {
    let rest = spec
        .strip_prefix("tmap:")
        .ok_or("expected tmap:BUF:DTYPE:DIMS:STRIDES:BOX[:OPTION=VALUE]...")?;
    let parts: Vec<&str> = rest.split(':').collect();
    if parts.len() < 5 {
        return Err("expected tmap:BUF:DTYPE:DIMS:STRIDES:BOX[:OPTION=VALUE]...".into());
    }
    let buffer = if parts[0].ends_with(".npy") {
        TmapBuf::Npy(PathBuf::from(parts[0]))
    } else {
        TmapBuf::Arg(parts[0].parse().map_err(|_| {
            format!(
                "BUF `{}` is neither a parameter index nor a PATH.npy",
                parts[0]
            )
        })?)
    };
    let dtype = ptxvm_vm::ops::tma::Elem::from_name(parts[1]).ok_or_else(|| {
        format!(
            "unknown DTYPE `{}` (u8 u16 u32 s32 u64 s64 f16 bf16 f32 f32.ftz f64 tf32 tf32.ftz b4x16 b4x16_p64 b6x16_p32)",
            parts[1]
        )
    })?;
    // The CUtensorMapDataType value of the element type.
    let dtype = (0..16u32)
        .find(|&c| ptxvm_vm::ops::tma::Elem::from_cuda(c) == Some(dtype))
        .ok_or("internal: no CUtensorMapDataType")?;
    fn list<T: std::str::FromStr>(what: &str, s: &str, max: u64) -> Result<Vec<T>, String> {
        if s.is_empty() || s == "-" {
            return Ok(Vec::new());
        }
        s.split(',')
            .map(|x| {
                let v = parse_int(x).map_err(|e| format!("{what}: {e}"))?;
                if v < 0 || v as u128 > u128::from(max) {
                    return Err(format!("{what}: {x} is out of range (0 to {max})"));
                }
                v.to_string()
                    .parse::<T>()
                    .map_err(|_| format!("{what}: {x} is out of range"))
            })
            .collect()
    }
    let dims: Vec<u64> = list("DIMS", parts[2], u64::MAX)?;
    let strides: Vec<u64> = list("STRIDES", parts[3], u64::MAX)?;
    let boxdim: Vec<u32> = list("BOX", parts[4], u64::from(u32::MAX))?;
    let rank = dims.len();
    if rank == 0 || rank > 5 {
        return Err(format!("DIMS has {rank} dimensions (1 to 5)"));
    }
    if strides.len() + 1 != rank {
        return Err(format!(
            "STRIDES has {} entries; a rank-{rank} map takes {} (the byte strides of dimensions 1..{}; `-` for none)",
            strides.len(),
            rank - 1,
            rank - 1
        ));
    }
    let im2col_opts = parts[5..].iter().any(|o| {
        o.starts_with("pixels=")
            || o.starts_with("lower=")
            || o.starts_with("upper=")
            || o.starts_with("wide=")
    });
    if im2col_opts {
        if boxdim.len() != 1 {
            return Err(format!(
                "BOX has {} entries; an im2col map (pixels=) takes one, the channels per pixel",
                boxdim.len()
            ));
        }
    } else if boxdim.len() != rank {
        return Err(format!("BOX has {} entries, DIMS {rank}", boxdim.len()));
    }
    let mut t = TmapSpec {
        buffer,
        dtype,
        dims,
        strides,
        boxdim,
        estrides: vec![1; rank],
        swizzle: 0,
        interleave: 0,
        fill: 0,
        l2: 0,
        im2col: None,
        wide: None,
    };
    let (mut lower, mut upper, mut pixels) = (
        vec![0i32; rank.saturating_sub(2)],
        vec![0i32; rank.saturating_sub(2)],
        None,
    );
    fn corner(what: &str, v: &str) -> Result<Vec<i32>, String> {
        v.split(',')
            .map(|x| {
                let n = parse_int(x).map_err(|e| format!("{what}: {e}"))?;
                i32::try_from(n).map_err(|_| format!("{what}: {x} is out of range"))
            })
            .collect()
    }
    for opt in &parts[5..] {
        let (k, v) = opt
            .split_once('=')
            .ok_or_else(|| format!("option `{opt}`: expected KEY=VALUE"))?;
        let bad = || format!("option `{opt}`: unknown value `{v}`");
        match k {
            "estrides" => {
                t.estrides = list("estrides", v, u64::from(u32::MAX))?;
                if t.estrides.len() != rank {
                    return Err(format!(
                        "estrides has {} entries, DIMS {rank}",
                        t.estrides.len()
                    ));
                }
            }
            "swizzle" => {
                t.swizzle = match v {
                    "none" | "0" => 0,
                    "32" | "32B" => 1,
                    "64" | "64B" => 2,
                    "128" | "128B" => 3,
                    "128_atom32" => 4,
                    "128_atom32_flip8" => 5,
                    "128_atom64" => 6,
                    _ => return Err(bad()),
                }
            }
            "interleave" => {
                t.interleave = match v {
                    "none" | "0" => 0,
                    "16" | "16B" => 1,
                    "32" | "32B" => 2,
                    _ => return Err(bad()),
                }
            }
            "fill" => {
                t.fill = match v {
                    "zero" | "none" => 0,
                    "nan" => 1,
                    _ => return Err(bad()),
                }
            }
            "l2" => {
                t.l2 = match v {
                    "none" | "0" => 0,
                    "64" | "64B" => 1,
                    "128" | "128B" => 2,
                    "256" | "256B" => 3,
                    _ => return Err(bad()),
                }
            }
            "wide" => {
                t.wide = Some(match v {
                    "w" => 0,
                    "w128" => 1,
                    _ => return Err(bad()),
                })
            }
            "lower" => lower = corner("lower", v)?,
            "upper" => upper = corner("upper", v)?,
            "pixels" => {
                pixels = Some(list::<u32>("pixels", v, u64::from(u32::MAX))?)
                    .filter(|p| p.len() == 1)
                    .map(|p| p[0])
                    .ok_or_else(|| format!("option `{opt}`: one pixels-per-column count"))
                    .map(Some)?
            }
            _ => {
                return Err(format!(
                    "unknown option `{k}` (estrides, swizzle, interleave, fill, l2, pixels, lower, upper, wide)"
                ));
            }
        }
    }
    if let Some(mode) = t.wide {
        // One W corner each (the default: 0).
        let w = |what: &str, v: Vec<i32>| match v.as_slice() {
            [x] => Ok(vec![*x]),
            v if v.iter().all(|&x| x == 0) => Ok(vec![0]),
            _ => Err(format!(
                "a wide im2col map (wide=) takes one {what}= corner, W's"
            )),
        };
        // W128 ignores the pixels per column.
        let p = match (pixels, mode) {
            (Some(p), _) => p,
            (None, 1) => 0,
            (None, _) => return Err("a wide im2col map in W mode needs pixels=".into()),
        };
        t.im2col = Some((w("lower", lower)?, w("upper", upper)?, p));
    } else if im2col_opts {
        let p = pixels.ok_or("an im2col map (lower=/upper=) needs pixels=")?;
        t.im2col = Some((lower, upper, p));
    }
    Ok(t)
}

/// Encodes a `tmap:` argument (`t`) over the memory at `addr`.
fn tmap_encode(t: &TmapSpec, addr: u64) -> Result<ptxvm_vm::TensorMapBytes, String> {
    if let (Some(mode), Some((lower, upper, pixels))) = (t.wide, &t.im2col) {
        return ptxvm_vm::tensor_map_encode_im2col_wide(&ptxvm_vm::ops::tma::Im2colWide {
            data_type: t.dtype,
            addr,
            dims: &t.dims,
            strides: &t.strides,
            lower: lower.first().copied().unwrap_or(0),
            upper: upper.first().copied().unwrap_or(0),
            channels: t.boxdim.first().copied().unwrap_or(0),
            pixels: *pixels,
            estrides: &t.estrides,
            interleave: t.interleave,
            mode,
            swizzle: t.swizzle,
            l2: t.l2,
            fill: t.fill,
        })
        .map_err(|e| e.to_string());
    }
    if let Some((lower, upper, pixels)) = &t.im2col {
        return ptxvm_vm::tensor_map_encode_im2col(&ptxvm_vm::ops::tma::Im2col {
            data_type: t.dtype,
            addr,
            dims: &t.dims,
            strides: &t.strides,
            lower,
            upper,
            channels: t.boxdim.first().copied().unwrap_or(0),
            pixels: *pixels,
            estrides: &t.estrides,
            interleave: t.interleave,
            swizzle: t.swizzle,
            l2: t.l2,
            fill: t.fill,
        })
        .map_err(|e| e.to_string());
    }
    ptxvm_vm::tensor_map_encode_tiled(&ptxvm_vm::ops::tma::Tiled {
        data_type: t.dtype,
        addr,
        dims: &t.dims,
        strides: &t.strides,
        boxdim: &t.boxdim,
        estrides: &t.estrides,
        interleave: t.interleave,
        swizzle: t.swizzle,
        l2: t.l2,
        fill: t.fill,
    })
    .map_err(|e| e.to_string())
}

/// Options of `ptxvm run` (the CLI's argument definitions).
#[derive(clap::Args)]
pub struct RunOpts {
    pub file: PathBuf,
    /// Kernel to launch (may be left out when the module has one).
    #[arg(long)]
    pub kernel: Option<String>,
    /// Grid size in CTAs: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dim3)]
    pub grid: [u32; 3],
    /// Block size in threads: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dim3)]
    pub block: [u32; 3],
    /// Dynamic shared memory per CTA, bytes.
    #[arg(long, default_value_t = 0)]
    pub shared_mem: u32,
    /// Thread block cluster shape in CTAs: X[,Y[,Z]] (sm_90+; the grid must be a multiple
    /// of it; at most 8 CTAs, 16 with --non-portable-cluster). Default: the kernel's
    /// .reqnctapercluster, else 1x1x1.
    #[arg(long, value_parser = parse_dim3)]
    pub cluster: Option<[u32; 3]>,
    /// Allow clusters of up to 16 CTAs (CUDA's non-portable cluster size opt-in).
    #[arg(long)]
    pub non_portable_cluster: bool,
    /// The emulated GPU (sm_70, sm_75, sm_80, sm_86, sm_89, sm_90a, sm_100a, sm_103a,
    /// sm_110a, sm_120a;
    /// `sm_90` = `sm_90a`): its limits and the arithmetic of its tensor cores. Default: the
    /// GPU the module's `.target` names (sm_90a for an older target no model is named for).
    /// A module whose `.target` the GPU cannot run is refused, as the driver refuses it.
    #[arg(long)]
    pub arch: Option<String>,
    /// A kernel argument (repeat, in parameter order).
    #[arg(long = "arg", value_name = "SPEC")]
    pub args: Vec<String>,
    /// Fill a module `.global`/`.const` variable before the launch (`NAME=SPEC`, SPEC a
    /// PATH.npy, zeros:DTYPE:COUNT or hex:BYTES; as cudaMemcpyToSymbol); with --out it is
    /// written back to DIR/NAME.npy.
    #[arg(long = "symbol", value_name = "NAME=SPEC")]
    pub symbols: Vec<String>,
    /// Write every buffer argument to DIR/arg<i>.npy after the launch.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Step budget of the launch (warp instructions, plus one step per 16 bytes copied in
    /// bulk or printed); a launch that exceeds it fails (runaway loops).
    #[arg(long, default_value_t = ptxvm_vm::DEFAULT_MAX_STEPS)]
    pub max_steps: u64,
    /// Print executed warp and thread instructions, wall time and the engine's tiers (to
    /// stderr).
    #[arg(long)]
    pub stats: bool,
    /// The execution engine: auto (the fastest available), interp (the warp engine), jit,
    /// reference (the thread-by-thread reference interpreter). Every engine gives the same
    /// results.
    #[arg(long, value_parser = parse_engine, default_value = "auto")]
    pub engine: ptxvm_vm::Engine,
    /// Host threads running CTAs in parallel (default: all cores; 1 makes every run of a
    /// kernel repeat exactly, see the README on determinism).
    #[arg(long, default_value_t = 0, hide_default_value = true)]
    pub threads: usize,
    /// Device printf output kept per launch (CUDA's printf FIFO), bytes (512K, 1M, ...);
    /// the rest is dropped with a note.
    #[arg(long, value_name = "BYTES", value_parser = parse_size, default_value = "1M")]
    pub printf_fifo: u64,
    /// Device heap for malloc in kernels, bytes (CUDA's cudaLimitMallocHeapSize).
    #[arg(long, value_name = "BYTES", value_parser = parse_size, default_value = "8M")]
    pub heap_size: u64,
    /// Local memory (stack) per thread, bytes; CUDA's maximum is 512K.
    #[arg(long, value_name = "BYTES", value_parser = parse_size, default_value = "512K")]
    pub local_memory: u64,
    /// Host memory for the state of the CTAs in flight (registers, local memory), bytes.
    #[arg(long, value_name = "BYTES", value_parser = parse_size, default_value = "1G")]
    pub launch_memory: u64,
    /// Global memory of the device (buffers, module variables, heap), bytes.
    #[arg(long, value_name = "BYTES", value_parser = parse_size, default_value = "16G")]
    pub device_memory: u64,
}

fn parse_engine(s: &str) -> Result<ptxvm_vm::Engine, String> {
    ptxvm_vm::Engine::parse(s).ok_or_else(|| {
        format!(
            "`{s}` is not an engine (engines: {})",
            ptxvm_vm::Engine::NAMES.join(", ")
        )
    })
}

/// Local memory per thread ptxvm accepts at most (`--local-memory`): 16 MiB.
pub const MAX_LOCAL_MEMORY: u64 = 16 << 20;

/// A device copy written back by `--out`.
struct Dump {
    stem: String,
    addr: u64,
    dtype: Dtype,
    shape: Vec<usize>,
    bytes: u64,
    /// What created it, for collision messages.
    what: String,
}

/// A device allocation error: over the device's memory is a usage error.
fn alloc_error(what: &str, e: VmError) -> RunError {
    let m = format!("{what}: {e}");
    if m.contains("out of device memory") {
        RunError::usage(format!("{m} (raise --device-memory)"))
    } else {
        RunError::input(m)
    }
}

/// Reads and parses a `.npy` file (at most the device's memory in size).
fn load_npy(dev: &Device, path: &Path) -> Result<Array, RunError> {
    let limit = dev.props.global_memory.saturating_add(1 << 20);
    let bytes = ptxvm_syntax::source::read_limited(path, limit)
        .map_err(|e| RunError::input(format!("cannot read `{}`: {e}", path.display())))?;
    npy::parse_vec(bytes).map_err(|e| RunError::input(format!("`{}`: {e}", path.display())))
}

/// Puts a buffer spec on the device: its address and how to dump it.
fn place(
    dev: &Device,
    spec: &Spec,
    text: &str,
    stem: String,
    what: &str,
) -> Result<Option<Dump>, RunError> {
    let (dtype, shape, bytes, data) = match spec {
        Spec::Bytes(..) => return Ok(None),
        Spec::Object(o) => {
            let a = load_npy(dev, &o.path)?;
            (a.dtype, a.shape, a.data.len() as u64, Some(a.data))
        }
        Spec::Zeros { dtype, count } => {
            let n = usize::try_from(*count)
                .map_err(|_| RunError::usage(format!("{what}: `{text}` is too large")))?;
            // Device memory is zero-filled: no host copy.
            (*dtype, vec![n], count * dtype.size() as u64, None)
        }
        Spec::Npy(path) => {
            let a = load_npy(dev, path)?;
            (a.dtype, a.shape, a.data.len() as u64, Some(a.data))
        }
    };
    let addr = dev
        .malloc(bytes.max(1))
        .map_err(|e| alloc_error(&format!("{what} (`{text}`, {bytes} bytes)"), e))?;
    if let Some(data) = data {
        dev.write(addr, &data)
            .map_err(|e| RunError::input(e.to_string()))?;
    }
    Ok(Some(Dump {
        stem,
        addr,
        dtype,
        shape,
        bytes,
        what: what.to_string(),
    }))
}

/// Puts a `tex:`/`surf:` array on the device and creates its object: the handle, and how
/// to dump the array.
fn place_object(
    dev: &Device,
    spec: &Spec,
    o: &crate::texarg::ObjSpec,
    text: &str,
    stem: String,
    what: &str,
) -> Result<(u64, Dump), RunError> {
    let d = place(dev, spec, text, stem, what)?
        .ok_or_else(|| RunError::usage(format!("{what}: not a buffer")))?;
    // The dump's shape and dtype are the array's: rebuild the array header for the shape.
    let a = Array {
        dtype: d.dtype,
        shape: d.shape.clone(),
        data: Vec::new(),
    };
    let h = crate::texarg::create(dev, o, &a, d.addr)
        .map_err(|e| RunError::usage(format!("{what} (`{text}`): {e}")))?;
    Ok((h, d))
}

/// Writes a device buffer as `.npy`, in chunks (no second copy of a large buffer).
fn write_dump(dev: &Device, dir: &Path, d: &Dump) -> Result<(), RunError> {
    let path = dir.join(format!("{}.npy", d.stem));
    let fail = |e: String| RunError::input(format!("cannot write `{}`: {e}", path.display()));
    let f = std::fs::File::create(&path).map_err(|e| fail(e.to_string()))?;
    let mut w = std::io::BufWriter::new(f);
    w.write_all(&npy::header(d.dtype, &d.shape))
        .map_err(|e| fail(e.to_string()))?;
    const CHUNK: u64 = 64 << 20;
    let mut off = 0;
    while off < d.bytes {
        let n = CHUNK.min(d.bytes - off);
        let data = dev.read(d.addr + off, n).map_err(|e| fail(e.to_string()))?;
        w.write_all(&data).map_err(|e| fail(e.to_string()))?;
        off += n;
    }
    w.flush().map_err(|e| fail(e.to_string()))
}

/// Runs; returns a message for the user and an exit code on error. Device `printf` output
/// goes to `stdout`, notes to `stderr`.
pub fn run(o: &RunOpts, stdout: &mut dyn Write, stderr: &mut dyn Write) -> Result<(), RunError> {
    if o.local_memory > MAX_LOCAL_MEMORY {
        return Err(RunError::usage(format!(
            "--local-memory {} is more than ptxvm's limit of {MAX_LOCAL_MEMORY} bytes per thread",
            o.local_memory
        )));
    }
    let text = ptxvm_syntax::source::read_limited(&o.file, ptxvm_syntax::source::MAX_SOURCE_BYTES)
        .map_err(|e| RunError::input(format!("cannot read `{}`: {e}", o.file.display())))?;
    let text = String::from_utf8_lossy(&text).into_owned();
    let (src, pre) =
        ptxvm_syntax::Source::new(&o.file.display().to_string(), text, o.file.parent());
    let checked = ptxvm_vm::device::check_read_source(src, pre)
        .map_err(|e| RunError::input(e.to_string()))?;
    // The emulated GPU: --arch, else the module's `.target` (the H100 for an older plain
    // target); a module the GPU cannot run is refused, as the driver refuses to JIT it.
    let target = checked
        .module
        .targets
        .iter()
        .find(|t| t.starts_with("sm_") || t.starts_with("compute_"))
        .cloned();
    let known = || ptxvm_vm::arch::names().join(", ");
    let model = match (&o.arch, &target) {
        (Some(a), _) => ptxvm_vm::arch::model(a).ok_or_else(|| {
            RunError::usage(format!(
                "--arch {a} is not an emulated GPU (known: {})",
                known()
            ))
        })?,
        (None, Some(t)) => ptxvm_vm::arch::model_for_target(t).ok_or_else(|| {
            RunError::input(format!(
                "no emulated GPU runs the module's `.target {t}` (known: {})",
                known()
            ))
        })?,
        (None, None) => ptxvm_vm::arch::model("sm_90a").unwrap_or(ptxvm_vm::arch::default_model()),
    };
    if let Some(t) = &target
        && !model.runs_target(t)
    {
        return Err(RunError::input(format!(
            "the module's `.target {t}` cannot run on the emulated {} ({}): choose a GPU that runs it with --arch (known: {})",
            model.arch,
            model.board,
            known()
        )));
    }
    let base = DeviceProps::for_model(model);
    let props = DeviceProps {
        local_per_thread: o.local_memory as u32,
        launch_memory: o.launch_memory,
        global_memory: o.device_memory,
        ..base
    };
    let dev = Device::with_props(props);
    dev.mem.set_heap_limit(o.heap_size);
    let m = dev
        .load_checked(std::sync::Arc::new(checked))
        .map_err(|e| RunError::input(e.to_string()))?;
    let kernels = dev.kernels(m).map_err(|e| RunError::input(e.to_string()))?;
    let kernel = match &o.kernel {
        Some(k) => k.clone(),
        None if kernels.len() == 1 => kernels[0].clone(),
        None => {
            return Err(RunError::usage(format!(
                "the module has {} kernels ({}); choose one with --kernel",
                kernels.len(),
                kernels.join(", ")
            )));
        }
    };
    let params: Vec<ParamInfo> = dev
        .params(m, &kernel)
        .map_err(|e| RunError::usage(e.to_string()))?;
    if o.args.len() != params.len() {
        return Err(RunError::usage(format!(
            "kernel `{kernel}` takes {} parameters ({}), {} --arg given",
            params.len(),
            params
                .iter()
                .map(|p| format!("{} {}", p.ty, p.name))
                .collect::<Vec<_>>()
                .join(", "),
            o.args.len()
        )));
    }
    let cfg = LaunchConfig {
        grid: o.grid,
        block: o.block,
        shared_mem: o.shared_mem,
        max_steps: o.max_steps,
        threads: o.threads,
        printf_fifo: o.printf_fifo,
        engine: o.engine,
        cluster: o.cluster,
        non_portable_cluster: o.non_portable_cluster,
    };
    // A launch the device cannot take is refused before any buffer is read.
    let k = dev
        .kernel(m, &kernel)
        .map_err(|e| RunError::usage(e.to_string()))?;
    dev.check_launch(&k, &cfg)
        .map_err(|e| RunError::usage(e.to_string()))?;
    let mut bytes: Vec<Vec<u8>> = Vec::new();
    let mut dumps: Vec<Dump> = Vec::new();
    // The device address of each buffer argument (for `tmap:`).
    let mut buffers: Vec<Option<u64>> = Vec::new();
    for (i, (text, p)) in o.args.iter().zip(&params).enumerate() {
        if text.starts_with("tmap:") {
            let bad = |e: String| RunError::usage(format!("--arg {i}: `{text}`: {e}"));
            let t = parse_tmap(text).map_err(bad)?;
            let addr = match &t.buffer {
                TmapBuf::Arg(b) => match buffers.get(*b) {
                    Some(Some(a)) => *a,
                    Some(None) => return Err(bad(format!("argument {b} is not a buffer"))),
                    None => {
                        return Err(bad(format!(
                            "BUF {b} is not an earlier argument (a tensor map comes after its buffer)"
                        )));
                    }
                },
                TmapBuf::Npy(path) => {
                    let spec = Spec::Npy(path.clone());
                    let d = place(&dev, &spec, text, format!("arg{i}"), &format!("--arg {i}"))?
                        .ok_or_else(|| bad("not a buffer".into()))?;
                    let a = d.addr;
                    dumps.push(d);
                    a
                }
            };
            let map = tmap_encode(&t, addr).map_err(bad)?;
            if p.size as usize != map.len() || p.align < 64 {
                return Err(RunError::usage(format!(
                    "--arg {i} (`{text}`) is a 128-byte tensor map, but parameter {i} `{}` ({}{}, {} bytes, aligned to {}) is not a `.param .align 64 .b8 [128]`",
                    p.name,
                    p.ty,
                    if p.is_array { " array" } else { "" },
                    p.size,
                    p.align
                )));
            }
            bytes.push(map.to_vec());
            buffers.push(None);
            continue;
        }
        // `multicast:SPEC`: the buffer SPEC, mapped as a multicast object of the one device.
        let (multicast, text) = match text.strip_prefix("multicast:") {
            Some(rest) => (true, rest),
            None => (false, text.as_str()),
        };
        let spec = parse_spec(text).map_err(|e| RunError::usage(format!("--arg {i}: {e}")))?;
        buffers.push(None);
        if multicast && matches!(spec, Spec::Bytes(..) | Spec::Object(..)) {
            return Err(RunError::usage(format!(
                "--arg {i}: `multicast:{text}` needs a buffer (multicast:PATH.npy or multicast:zeros:DTYPE:COUNT), not a value or an object"
            )));
        }
        match &spec {
            Spec::Bytes(b, what) => {
                if b.len() != p.size as usize {
                    return Err(RunError::usage(format!(
                        "--arg {i} (`{text}`, {what}, {} bytes) does not fit parameter {i} `{}` ({}{}, {} bytes)",
                        b.len(),
                        p.name,
                        p.ty,
                        if p.is_array { " array" } else { "" },
                        p.size
                    )));
                }
                bytes.push(b.clone());
            }
            Spec::Object(os) => {
                if p.size != 8 {
                    return Err(RunError::usage(format!(
                        "--arg {i} (`{text}`) is a texture or surface object, but parameter {i} `{}` ({}, {} bytes) cannot hold a 64-bit handle",
                        p.name, p.ty, p.size
                    )));
                }
                let (h, d) = place_object(
                    &dev,
                    &spec,
                    os,
                    text,
                    format!("arg{i}"),
                    &format!("--arg {i}"),
                )?;
                bytes.push(h.to_le_bytes().to_vec());
                dumps.push(d);
            }
            _ => {
                if p.size != 8 {
                    return Err(RunError::usage(format!(
                        "--arg {i} (`{text}`) is a buffer, but parameter {i} `{}` ({}, {} bytes) cannot hold a 64-bit address",
                        p.name, p.ty, p.size
                    )));
                }
                let d = place(&dev, &spec, text, format!("arg{i}"), &format!("--arg {i}"))?
                    .ok_or_else(|| RunError::usage(format!("--arg {i}: not a buffer")))?;
                if multicast {
                    dev.map_multicast(d.addr, d.bytes.max(1))
                        .map_err(|e| RunError::input(format!("--arg {i}: multicast: {e}")))?;
                }
                bytes.push(d.addr.to_le_bytes().to_vec());
                if let Some(b) = buffers.last_mut() {
                    *b = Some(d.addr);
                }
                dumps.push(d);
            }
        }
    }
    // Module variables given with --symbol: filled before the launch, dumped with --out.
    for text in &o.symbols {
        let (name, what) = text
            .split_once('=')
            .ok_or_else(|| RunError::usage(format!("--symbol `{text}`: expected NAME=SPEC")))?;
        let (addr, size) = dev
            .global(m, name)
            .map_err(|e| RunError::usage(format!("--symbol {name}: {e}")))?;
        if let Some(d) = dumps.iter().find(|d| d.stem == name) {
            return Err(RunError::usage(format!(
                "--symbol {name}: its --out file `{name}.npy` would overwrite the one of {}",
                d.what
            )));
        }
        let spec =
            parse_spec(what).map_err(|e| RunError::usage(format!("--symbol {name}: {e}")))?;
        let (dtype, shape, data_len) = match &spec {
            Spec::Object(os) => {
                if size != 8 {
                    return Err(RunError::usage(format!(
                        "--symbol {name}: `{name}` ({size} bytes) is not a .texref or .surfref variable"
                    )));
                }
                let (h, d) = place_object(
                    &dev,
                    &spec,
                    os,
                    what,
                    name.to_string(),
                    &format!("--symbol {name}"),
                )?;
                dev.write(addr, &h.to_le_bytes())
                    .map_err(|e| RunError::input(e.to_string()))?;
                dumps.push(d);
                continue;
            }
            Spec::Bytes(b, _) => {
                if b.len() as u64 > size {
                    return Err(RunError::usage(format!(
                        "--symbol {name}: {} bytes given, but `{name}` has {size}",
                        b.len()
                    )));
                }
                dev.write(addr, b)
                    .map_err(|e| RunError::input(e.to_string()))?;
                (Dtype::U8, vec![b.len()], b.len() as u64)
            }
            Spec::Zeros { dtype, count } => {
                let n = count * dtype.size() as u64;
                if n > size {
                    return Err(RunError::usage(format!(
                        "--symbol {name}: {n} bytes given, but `{name}` has {size}"
                    )));
                }
                dev.memset(addr, 0, n)
                    .map_err(|e| RunError::input(e.to_string()))?;
                (*dtype, vec![*count as usize], n)
            }
            Spec::Npy(path) => {
                let a = load_npy(&dev, path)?;
                if a.data.len() as u64 > size {
                    return Err(RunError::usage(format!(
                        "--symbol {name}: {} bytes given, but `{name}` has {size}",
                        a.data.len()
                    )));
                }
                dev.write(addr, &a.data)
                    .map_err(|e| RunError::input(e.to_string()))?;
                (a.dtype, a.shape, a.data.len() as u64)
            }
        };
        dumps.push(Dump {
            stem: name.to_string(),
            addr,
            dtype,
            shape,
            bytes: data_len,
            what: format!("--symbol {name}"),
        });
    }
    let refs: Vec<&[u8]> = bytes.iter().map(|b| b.as_slice()).collect();
    let t0 = std::time::Instant::now();
    let mut stats = ptxvm_vm::Stats::default();
    let result = dev.launch(m, &kernel, &cfg, &refs, &mut stats);
    let wall = t0.elapsed();
    // The kernel's printf output comes first, also when the launch failed.
    stdout
        .write_all(&stats.printf)
        .and_then(|()| stdout.flush())
        .map_err(|e| RunError::input(format!("cannot write device printf output: {e}")))?;
    if stats.printf_dropped > 0 {
        let _ = writeln!(
            stderr,
            "note: the output of {} device printf calls (at least {} bytes) was dropped: the printf FIFO holds {} bytes per launch (--printf-fifo)",
            stats.printf_dropped_calls, stats.printf_dropped, o.printf_fifo
        );
    }
    // The statistics also of a launch that failed (up to the fault).
    if o.stats {
        writeln!(
            stderr,
            "stats: {} warp instructions, {} thread instructions, {:.3} ms wall",
            stats.warp_insts,
            stats.thread_insts,
            wall.as_secs_f64() * 1e3
        )
        .and_then(|()| {
            let [vector, lanes, steps, native] = stats.tiers;
            let jit = match (stats.engine, &stats.jit_error) {
                (Some(ptxvm_vm::Engine::Jit), Some(e)) => {
                    format!("; not compiled, so the warp engine ran it: {e}")
                }
                (Some(ptxvm_vm::Engine::Jit), None) if stats.jit_pending => {
                    "; the kernel was still compiling in the background, so the warp engine ran it (--engine jit waits for the compile)".to_string()
                }
                (Some(ptxvm_vm::Engine::Jit), None) if stats.jit_compiled == 0 => format!(
                    "; not compiled: too little work to pay for compiling (auto compiles a kernel from {} warp instructions on; --engine jit compiles at once)",
                    ptxvm_vm::device::JIT_HOT
                ),
                (Some(ptxvm_vm::Engine::Jit), None) => format!(
                    ", {native} in native code ({} of the kernel's instructions compiled, {:.1} ms to compile)",
                    stats.jit_compiled,
                    stats.jit_compile.as_secs_f64() * 1e3
                ),
                _ => String::new(),
            };
            writeln!(
                stderr,
                "engine: {} ({vector} warp instructions in lane loops, {lanes} per lane, {steps} as reference steps{jit})",
                stats.engine.map_or("none", |e| e.name())
            )
        })
        .map_err(|e| RunError::input(format!("cannot write to stderr: {e}")))?;
    }
    match result {
        Ok(()) => {}
        Err(e @ (VmError::Usage(_) | VmError::NotFound(_))) => {
            return Err(RunError::usage(e.to_string()));
        }
        Err(e) => return Err(RunError::input(e.to_string())),
    }
    if let Some(dir) = &o.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| RunError::input(format!("cannot create `{}`: {e}", dir.display())))?;
        for d in &dumps {
            write_dump(&dev, dir, d)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tmap_specs() {
        let t = parse_tmap("tmap:0:f32:64,32:256:32,8:swizzle=128:fill=nan:estrides=1,2").unwrap();
        assert_eq!(t.buffer, TmapBuf::Arg(0));
        assert_eq!((t.dtype, t.swizzle, t.fill), (7, 3, 1));
        assert_eq!(
            (t.dims, t.strides, t.boxdim, t.estrides),
            (vec![64, 32], vec![256], vec![32, 8], vec![1, 2])
        );
        let t = parse_tmap("tmap:0:f16:64,8,8,2:128,1024,8192:32:pixels=64:lower=-1,-1").unwrap();
        assert_eq!(t.im2col, Some((vec![-1, -1], vec![0, 0], 64)));
        assert!(
            parse_tmap("tmap:0:f16:64,8,8,2:128,1024,8192:32:lower=-1,-1")
                .unwrap_err()
                .contains("needs pixels=")
        );
        assert!(
            parse_tmap("tmap:0:f16:64,8,8,2:128,1024,8192:32,8:pixels=4")
                .unwrap_err()
                .contains("channels per pixel")
        );
        let t =
            parse_tmap("tmap:0:f16:64,8,8,2:128,1024,8192:32:wide=w:pixels=64:lower=-300").unwrap();
        assert_eq!(
            (t.im2col, t.wide),
            (Some((vec![-300], vec![0], 64)), Some(0))
        );
        let t = parse_tmap("tmap:0:f16:64,8,2:128,1024:32:wide=w128").unwrap();
        assert_eq!((t.im2col, t.wide), (Some((vec![0], vec![0], 0)), Some(1)));
        assert!(
            parse_tmap("tmap:0:f16:64,8,8,2:128,1024,8192:32:wide=w")
                .unwrap_err()
                .contains("needs pixels=")
        );
        assert!(
            parse_tmap("tmap:0:f16:64,8,8,2:128,1024,8192:32:wide=w:pixels=4:lower=-1,-1")
                .unwrap_err()
                .contains("one lower= corner")
        );
        let t = parse_tmap("tmap:a.npy:bf16:100:-:64").unwrap();
        assert_eq!((t.buffer, t.dtype), (TmapBuf::Npy("a.npy".into()), 9));
        for (bad, why) in [
            ("tmap:0:f32:64,32:256", "expected tmap:"),
            ("tmap:x:f32:64:-:16", "neither a parameter index"),
            ("tmap:0:f8:64:-:16", "unknown DTYPE"),
            ("tmap:0:f32:1,2,3,4,5,6:1,2,3,4,5:1,1,1,1,1,1", "1 to 5"),
            ("tmap:0:f32:64,32::32,8", "STRIDES has 0 entries"),
            ("tmap:0:f32:64,32:256:32", "BOX has 1 entries"),
            ("tmap:0:f32:64,32:256:32,8:swizzle=16", "unknown value"),
            ("tmap:0:f32:64,32:256:32,8:bogus=1", "unknown option"),
            ("tmap:0:f32:64,32:256:32,8:estrides=1", "estrides has 1"),
            ("tmap:0:f32:-64:-:16", "out of range"),
            ("tmap:0:f32:64:-:99999999999", "out of range"),
        ] {
            let e = parse_tmap(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn specs_are_parsed_strictly() {
        assert_eq!(
            parse_spec("u32:5"),
            Ok(Spec::Bytes(vec![5, 0, 0, 0], "u32".into()))
        );
        assert_eq!(
            parse_spec("s8:-128"),
            Ok(Spec::Bytes(vec![0x80], "s8".into()))
        );
        for bad in [
            "u32:--5",
            "u32:+5",
            "u32:0x-5",
            "u32:-0x",
            "u32:4294967296",
            "s32:-2147483649",
            "hex:€a",
            "hex:0g",
            "hex:abc",
            "f32:1e300",
            "f32:1e39",
            "f16:70000",
            "bf16:1e39",
            "f64:1e400",
            "zeros:f32:4611686018427387904",
            "zeros:f32:-1",
            "zeros:f32:",
            "zeros:c64:4",
            "u7:1",
            "nonsense",
        ] {
            assert!(parse_spec(bad).is_err(), "{bad} was accepted");
        }
        assert!(parse_spec("f32:inf").is_ok());
        assert!(parse_spec("f32:-nan").is_ok());
        assert!(parse_spec("f32:3.4e38").is_ok());
        assert_eq!(
            parse_spec("hex:00_ff"),
            Ok(Spec::Bytes(vec![0, 0xff], "hex".into()))
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512K"), Ok(512 << 10));
        assert_eq!(parse_size("1M"), Ok(1 << 20));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("99999999999G").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("K").is_err());
    }
}
