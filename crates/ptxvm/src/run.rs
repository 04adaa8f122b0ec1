//! `ptxvm run`: launch a kernel from the command line with scalar, `.npy` and zero-filled
//! buffer arguments, and write the buffers back as `.npy` files.
//!
//! Contract (kept stable for scripts): `ptxvm run FILE.ptx [--kernel NAME] --grid
//! X[,Y[,Z]] --block X[,Y[,Z]] [--shared-mem BYTES] [--arg SPEC]... [--out DIR]`, SPEC one of
//! `TYPE:VALUE`, `PATH.npy`, `zeros:DTYPE:COUNT`, `hex:BYTES`; `--symbol NAME=SPEC` fills a
//! module `.global`/`.const` variable before the launch (and `--out` writes it to
//! `DIR/NAME.npy`); `--out DIR` writes buffer
//! argument i to `DIR/arg<i>.npy`.

use crate::npy::{self, Array, Dtype};
use ptxvm_vm::{Device, LaunchConfig, ParamInfo};
use std::path::{Path, PathBuf};

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

/// A parsed `--arg`.
#[derive(Debug, Clone)]
enum Arg {
    /// Raw bytes for the parameter itself.
    Bytes(Vec<u8>, String),
    /// A device buffer whose address the parameter receives.
    Buffer(Array),
}

fn parse_int(v: &str) -> Result<i128, String> {
    let (neg, body) = match v.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, v),
    };
    let mag = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i128::from_str_radix(h, 16)
    } else {
        body.parse::<i128>()
    }
    .map_err(|_| format!("`{v}` is not an integer"))?;
    Ok(if neg { -mag } else { mag })
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
    let float = || {
        v.parse::<f64>()
            .map_err(|_| format!("`{v}` is not a number"))
    };
    use ptxvm_fp::convert::{CvtMods, FloatType, cvt_float_to_float};
    Ok(match ty {
        "u8" => int(8, false)?,
        "u16" => int(16, false)?,
        "u32" => int(32, false)?,
        "u64" => int(64, false)?,
        "s8" => int(8, true)?,
        "s16" => int(16, true)?,
        "s32" => int(32, true)?,
        "s64" => int(64, true)?,
        "f32" => (float()? as f32).to_le_bytes().to_vec(),
        "f64" => float()?.to_le_bytes().to_vec(),
        "f16" | "bf16" => {
            let dst = if ty == "f16" {
                FloatType::F16
            } else {
                FloatType::BF16
            };
            let bits = cvt_float_to_float(
                float()?.to_bits(),
                FloatType::F64,
                dst,
                ptxvm_fp::Rnd::Rn,
                CvtMods::default(),
            );
            (bits as u16).to_le_bytes().to_vec()
        }
        _ => {
            return Err(format!(
                "unknown scalar type `{ty}` (use u8 u16 u32 u64 s8 s16 s32 s64 f16 bf16 f32 f64)"
            ));
        }
    })
}

fn parse_arg(spec: &str) -> Result<Arg, String> {
    if let Some(h) = spec.strip_prefix("hex:") {
        let h: String = h
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '_')
            .collect();
        if !h.len().is_multiple_of(2) || h.is_empty() {
            return Err(format!(
                "`{spec}`: hex bytes need an even, non-zero number of digits"
            ));
        }
        let bytes = (0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&h[i..i + 2], 16))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| format!("`{spec}`: bad hex digit"))?;
        return Ok(Arg::Bytes(bytes, "hex".into()));
    }
    if let Some(rest) = spec.strip_prefix("zeros:") {
        let (dt, count) = rest
            .split_once(':')
            .ok_or_else(|| format!("`{spec}`: expected zeros:DTYPE:COUNT"))?;
        let dtype = Dtype::from_name(dt).ok_or_else(|| {
            format!("`{spec}`: unknown dtype `{dt}` (f16 f32 f64 u8 u16 u32 u64 i8 i16 i32 i64)")
        })?;
        let count: usize = count
            .parse()
            .map_err(|_| format!("`{spec}`: `{count}` is not a count"))?;
        return Ok(Arg::Buffer(Array {
            dtype,
            shape: vec![count],
            data: vec![0; count * dtype.size()],
        }));
    }
    if spec.ends_with(".npy") {
        let bytes = std::fs::read(spec).map_err(|e| format!("cannot read `{spec}`: {e}"))?;
        let a = npy::parse(&bytes).map_err(|e| format!("`{spec}`: {e}"))?;
        return Ok(Arg::Buffer(a));
    }
    if let Some((ty, v)) = spec.split_once(':') {
        return Ok(Arg::Bytes(scalar(ty, v)?, ty.to_string()));
    }
    Err(format!(
        "`{spec}`: expected TYPE:VALUE, PATH.npy, zeros:DTYPE:COUNT or hex:BYTES"
    ))
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
    /// The emulated GPU (sm_70, sm_75, sm_80, sm_86, sm_89, sm_90a, sm_100a, sm_120a;
    /// `sm_90` = `sm_90a`): its limits and the arithmetic of its tensor cores. Default: the
    /// sm_90a model with the largest shared-memory limit of any model.
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
    /// Warp-instruction budget; a launch that exceeds it fails (runaway loops).
    #[arg(long, default_value_t = ptxvm_vm::DEFAULT_MAX_STEPS)]
    pub max_steps: u64,
    /// Print executed warp and thread instructions and wall time (to stderr).
    #[arg(long)]
    pub stats: bool,
    /// Host threads running CTAs in parallel (default: all cores).
    #[arg(long, default_value_t = 0, hide_default_value = true)]
    pub threads: usize,
}

/// Runs; returns a message for the user on error.
pub fn run(o: &RunOpts) -> Result<(), String> {
    let text =
        std::fs::read(&o.file).map_err(|e| format!("cannot read `{}`: {e}", o.file.display()))?;
    let text = String::from_utf8_lossy(&text).into_owned();
    let dev = match &o.arch {
        None => Device::new(),
        Some(a) => {
            let model = ptxvm_vm::arch::model(a).ok_or_else(|| {
                format!(
                    "--arch {a} is not an emulated GPU (known: {})",
                    ptxvm_vm::arch::names().join(", ")
                )
            })?;
            Device::with_props(ptxvm_vm::DeviceProps::for_model(model))
        }
    };
    let (src, pre) =
        ptxvm_syntax::Source::new(&o.file.display().to_string(), text, o.file.parent());
    let m = dev.load_source(src, pre).map_err(|e| e.to_string())?;
    let kernels = dev.kernels(m).map_err(|e| e.to_string())?;
    let kernel = match &o.kernel {
        Some(k) => k.clone(),
        None if kernels.len() == 1 => kernels[0].clone(),
        None => {
            return Err(format!(
                "the module has {} kernels ({}); choose one with --kernel",
                kernels.len(),
                kernels.join(", ")
            ));
        }
    };
    let params: Vec<ParamInfo> = dev.params(m, &kernel).map_err(|e| e.to_string())?;
    if o.args.len() != params.len() {
        return Err(format!(
            "kernel `{kernel}` takes {} parameters ({}), {} --arg given",
            params.len(),
            params
                .iter()
                .map(|p| format!("{} {}", p.ty, p.name))
                .collect::<Vec<_>>()
                .join(", "),
            o.args.len()
        ));
    }
    let mut bytes: Vec<Vec<u8>> = Vec::new();
    // Device copies written back by --out: (file stem, address, array given).
    let mut dumps: Vec<(String, u64, Array)> = Vec::new();
    for (i, (spec, p)) in o.args.iter().zip(&params).enumerate() {
        let arg = parse_arg(spec).map_err(|e| format!("--arg {i}: {e}"))?;
        match arg {
            Arg::Bytes(b, what) => {
                if b.len() != p.size as usize {
                    return Err(format!(
                        "--arg {i} (`{spec}`, {what}, {} bytes) does not fit parameter {i} `{}` ({}{}, {} bytes)",
                        b.len(),
                        p.name,
                        p.ty,
                        if p.is_array { " array" } else { "" },
                        p.size
                    ));
                }
                bytes.push(b);
            }
            Arg::Buffer(a) => {
                if p.size != 8 {
                    return Err(format!(
                        "--arg {i} (`{spec}`) is a buffer, but parameter {i} `{}` ({}, {} bytes) cannot hold a 64-bit address",
                        p.name, p.ty, p.size
                    ));
                }
                let addr = dev
                    .malloc(a.data.len().max(1) as u64)
                    .map_err(|e| e.to_string())?;
                dev.write(addr, &a.data).map_err(|e| e.to_string())?;
                bytes.push(addr.to_le_bytes()[..p.size as usize].to_vec());
                dumps.push((format!("arg{i}"), addr, a));
            }
        }
    }
    // Module variables given with --symbol: filled before the launch, dumped with --out.
    for spec in &o.symbols {
        let (name, what) = spec
            .split_once('=')
            .ok_or_else(|| format!("--symbol `{spec}`: expected NAME=SPEC"))?;
        let (addr, size) = dev
            .global(m, name)
            .map_err(|e| format!("--symbol {name}: {e}"))?;
        let a = match parse_arg(what).map_err(|e| format!("--symbol {name}: {e}"))? {
            Arg::Buffer(a) => a,
            Arg::Bytes(b, _) => Array {
                dtype: Dtype::from_name("u8").expect("u8"),
                shape: vec![b.len()],
                data: b,
            },
        };
        if a.data.len() as u64 > size {
            return Err(format!(
                "--symbol {name}: {} bytes given, but `{name}` has {size}",
                a.data.len()
            ));
        }
        dev.write(addr, &a.data).map_err(|e| e.to_string())?;
        dumps.push((name.to_string(), addr, a));
    }
    let cfg = LaunchConfig {
        grid: o.grid,
        block: o.block,
        shared_mem: o.shared_mem,
        max_steps: o.max_steps,
        threads: o.threads,
    };
    let refs: Vec<&[u8]> = bytes.iter().map(|b| b.as_slice()).collect();
    let t0 = std::time::Instant::now();
    let mut stats = ptxvm_vm::Stats::default();
    let result = dev.launch(m, &kernel, &cfg, &refs, &mut stats);
    // The kernel's printf output comes first, also when the launch failed.
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(&stats.printf);
        let _ = out.flush();
    }
    result.map_err(|e| e.to_string())?;
    let wall = t0.elapsed();
    if let Some(dir) = &o.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
        for (stem, addr, a) in &dumps {
            let data = dev
                .read(*addr, a.data.len() as u64)
                .map_err(|e| e.to_string())?;
            let out = Array {
                dtype: a.dtype,
                shape: a.shape.clone(),
                data,
            };
            let path = Path::new(dir).join(format!("{stem}.npy"));
            std::fs::write(&path, npy::write(&out))
                .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        }
    }
    if o.stats {
        eprintln!(
            "stats: {} warp instructions, {} thread instructions, {:.3} ms wall",
            stats.warp_insts,
            stats.thread_insts,
            wall.as_secs_f64() * 1e3
        );
    }
    Ok(())
}
