//! The `ptxvm` command line: `check`, `fmt`, `info`, `run`, `exec` and `driver-path`. This
//! is the only place diagnostics are rendered (rustc style or JSON lines). The binary
//! (`main.rs`, and the Python package's copy in `crates/ptxvm-py`) calls [`cli_main`].
//!
//! Exit codes: 0 success, 1 bad input (diagnostics were printed), 2 usage error.

use clap::{Parser, Subcommand, ValueEnum};
use ptxvm_ir::Checked;
use ptxvm_syntax::{Diagnostic, Severity, Source};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod exec;
mod info;
pub mod npy;
pub mod ptxas;
pub mod run;
pub mod texarg;

#[derive(Parser)]
#[command(
    name = "ptxvm",
    version,
    about = "Check, format, inspect and run NVIDIA PTX on the CPU",
    after_help = "Examples:\n  ptxvm check kernel.ptx\n  ptxvm check --message-format json a.ptx b.ptx\n  ptxvm fmt kernel.ptx > canonical.ptx\n  ptxvm info kernel.ptx"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Parse and check PTX files as strictly as ptxas; print diagnostics.
    #[command(after_help = "Exit status: 0 when every file is valid, 1 when any has errors.")]
    Check {
        /// PTX files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Diagnostic format: `human` (rustc style) or `json` (one object per line).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        message_format: Format,
        /// Check as ptxas does when compiling for this architecture (`sm_80`, `sm_90a`):
        /// a newer or foreign arch-specific `.target` is an error.
        #[arg(long, value_parser = parse_arch)]
        arch: Option<(u32, bool)>,
    },
    /// Print a PTX file in canonical form.
    Fmt { file: PathBuf },
    /// Run a kernel on the CPU.
    #[command(
        after_help = "SPEC is TYPE:VALUE (u8 u16 u32 u64 s8 s16 s32 s64 f16 bf16 f32 f64, e.g. u32:1024, f32:0.5, u64:0x10),\nPATH.npy (a device buffer with the array's bytes; the parameter gets its address),\nzeros:DTYPE:COUNT (a zero-filled buffer; f16 f32 f64 u8 u16 u32 u64 i8 i16 i32 i64),\nor hex:0011AABB (raw bytes for any parameter),\ntex:PATH.npy[,filter=point|linear][,address=clamp|wrap|mirror|border][,normalized][,read=element|float][,geom=layered|cube|acube]\n  [,levels=N[,mipfilter=point|linear][,lodbias=F][,minlod=F][,maxlod=F]]\n  (a texture object over the array; the parameter gets its 64-bit handle; a last dimension of 1, 2 or 4\n  is the channels, the others are (width), (height, width) or (depth, height, width), with geom=layered\n  (layers, width) or (layers, height, width), with geom=cube (6, size, size), geom=acube (6*cubes, size, size); dtype u8 i8 u16 i16\n  u32 i32 f16 f32; defaults: filter=point, address=clamp, unnormalized, read=element; linear filtering\n  of integer arrays needs read=float; levels=N (1 to 32) makes a mipmap chain of N levels, each the previous\n  one 2x2(x2) box-filtered, sampled with mipfilter (default point), lodbias (0), minlod (0), maxlod (N-1)),\n  or surf:PATH.npy (a surface object over the array; --out writes\n  it back),\ntmap:BUF:DTYPE:DIMS:STRIDES:BOX[:OPT=VAL]... encodes a TMA tensor map (cuTensorMapEncodeTiled) over\n  buffer argument BUF (its parameter index; an earlier --arg), or over a new buffer with the bytes\n  of BUF=PATH.npy (written back by --out as arg<i>.npy, i the map's index), for a `.param .align 64 .b8 [128]`\n  parameter. DTYPE: u8 u16 u32 s32 u64 s64 f16 bf16 f32 f32.ftz f64 tf32 tf32.ftz, or the packed\n  4/6-bit types b4x16 (16U4_ALIGN8B), b4x16_p64 (16U4_ALIGN16B), b6x16_p32 (16U6_ALIGN16B). DIMS: the\n  global dimensions in elements, innermost first (x,y,...; 1 to 5 of them). STRIDES: the byte\n  strides of dimensions 1..rank-1 (x,y,...; `-` or empty for rank 1). BOX: the box in elements\n  per dimension. Options: estrides=E,... (element strides, 1 to 8; default all 1),\n  swizzle=none|32|64|128|128_atom32|128_atom32_flip8|128_atom64 (CU_TENSOR_MAP_SWIZZLE_*; copies\n  model the 32-byte atoms, the flip and 64-byte atoms fault), interleave=none|16|32, fill=zero|nan (out-of-bounds fill; nan is\n  OOB_FILL_NAN_REQUEST_ZERO_FMA), l2=none|64|128|256. pixels=P[:lower=L,..][:upper=U,..] makes an\n  im2col map (cuTensorMapEncodeIm2col: P pixels per column, the pixel box corners in {D,H,W} order,\n  default 0; BOX is then the channels per pixel); wide=w|w128 (with pixels=P for w,\n  lower=L, upper=U: the W corners) makes a wide im2col map (cuTensorMapEncodeIm2colWide). E.g. tmap:0:f32:64,32:256:32,8:swizzle=128\nmulticast:PATH.npy or multicast:zeros:DTYPE:COUNT maps the buffer as a multicast object of the one\ndevice (the parameter gets its multicast address, for multimem.*; --out writes it back as arg<i>.npy).\n--arg options come in parameter order.\n--out DIR writes buffer argument i to DIR/arg<i>.npy after the launch.\n--symbol NAME=SPEC fills a module .global/.const variable first (and --out writes DIR/NAME.npy).\n\nExample:\n  ptxvm run examples/vector_add.ptx --kernel vec_add_f32 --grid 4 --block 256 \\\n    --arg a.npy --arg b.npy --arg zeros:f32:1024 --arg u32:1024 --out out/"
    )]
    Run(run::RunOpts),
    /// Summarise a module: version, target, kernels and functions with their parameters,
    /// register counts, directives and module variables; with `--arch`, the emulated GPU
    /// (compute capability, limits, tensor-core generation) first.
    Info {
        #[arg(required_unless_present = "arch")]
        file: Option<PathBuf>,
        /// Print this emulated GPU (`sm_80`, `sm_103a`, ...).
        #[arg(long)]
        arch: Option<String>,
    },
    /// Run a program with ptxvm as its CUDA driver (libcuda.so.1): nvcc-built programs,
    /// numba-cuda, cuda-python, CuPy, Triton.
    #[command(
        after_help = "The program runs with LD_LIBRARY_PATH, LD_PRELOAD (ptxvm's nvJitLink), NUMBA_CUDA_DRIVER,\nTRITON_LIBCUDA_PATH, CUPY_COMPILE_WITH_PTX=1 and CUPY_ACCELERATORS= set for it (variables\nalready set are kept; LD_LIBRARY_PATH and LD_PRELOAD are extended).\nDriver settings: PTXVM_ARCH, PTXVM_THREADS, PTXVM_LOG, PTXVM_MAX_STEPS, PTXVM_DEVICES,\nPTXVM_DEVICE_MEMORY (see the README).\n\nExamples:\n  ptxvm exec -- ./my_cuda_app\n  ptxvm exec --arch sm_90a -- python -m pytest tests/"
    )]
    Exec(exec::ExecOpts),
    /// Print the directory that holds the driver library (libcuda.so.1).
    DriverPath,
    /// A drop-in for NVIDIA's ptxas: check PTX and write a ptxvm container (takes ptxas's
    /// options; the `ptxas` in `ptxvm driver-path`'s directory runs this).
    Ptxas {
        /// ptxas's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Human,
    Json,
}

/// Runs the command line (arguments from the process) and returns the exit code.
pub fn cli_main() -> ExitCode {
    // Run as `ptxas` (the drop-in's name), or `ptxvm ptxas ...`: ptxas's own option syntax.
    let args_os: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let argv: Vec<String> = args_os
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let called = argv
        .first()
        .map(|a| {
            Path::new(a)
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .unwrap_or_default();
    if called == "ptxas" {
        return ptxas::main(&argv[1..]);
    }
    if argv.get(1).map(String::as_str) == Some("ptxas") {
        return ptxas::main(&argv[2..]);
    }
    let mut stdout = std::io::stdout().lock();
    let mut stderr = std::io::stderr().lock();
    ExitCode::from(cli_with(args_os, &mut stdout, &mut stderr))
}

/// Runs the command line `args` (the first is the program name) with the given output
/// streams; returns the exit status: 0 success, 1 bad input, a guest fault or output that
/// could not be written, 2 a usage error. Nothing here panics on a failed write: a
/// diagnostic that cannot be written to stderr is dropped, output that cannot be written
/// to stdout is an error (exit 1).
pub fn cli_with(
    args: impl IntoIterator<Item = std::ffi::OsString>,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let text = e.render().to_string();
            return if e.use_stderr() {
                let _ = stderr.write_all(text.as_bytes());
                2
            } else {
                // --help, --version: their output is the point; failing to write it is an
                // error.
                match stdout
                    .write_all(text.as_bytes())
                    .and_then(|()| stdout.flush())
                {
                    Ok(()) => 0,
                    Err(e) => {
                        let _ = writeln!(stderr, "error: cannot write to stdout: {e}");
                        1
                    }
                }
            };
        }
    };
    let code = run_cmd(cli.cmd, stdout, stderr);
    // Output still buffered must reach its destination too (a full disk shows up here).
    if let Err(e) = stdout.flush() {
        let _ = writeln!(stderr, "error: cannot write to stdout: {e}");
        return code.max(1);
    }
    code
}

/// Parses a command line without running it (for fuzzing and tests): clap's parsing,
/// then every `--arg`/`--symbol` value of `run`. Returns the number of values parsed, or the
/// first error.
pub fn parse_only(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<usize, String> {
    let cli = Cli::try_parse_from(args).map_err(|e| e.to_string())?;
    let Cmd::Run(o) = cli.cmd else {
        return Ok(0);
    };
    let mut n = 0;
    for a in &o.args {
        if a.starts_with("tmap:") {
            run::parse_tmap(a)?;
        } else {
            run::parse_spec(a)?;
        }
        n += 1;
    }
    for s in &o.symbols {
        let (_, v) = s
            .split_once('=')
            .ok_or_else(|| format!("--symbol `{s}`: expected NAME=SPEC"))?;
        run::parse_spec(v)?;
        n += 1;
    }
    Ok(n)
}

/// Writes `bytes` to stdout; a failure is reported on stderr and becomes exit code 1.
fn emit(stdout: &mut dyn Write, stderr: &mut dyn Write, bytes: &[u8]) -> Result<(), u8> {
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .map_err(|e| {
            let _ = writeln!(stderr, "error: cannot write to stdout: {e}");
            1
        })
}

fn run_cmd(cmd: Cmd, stdout: &mut dyn Write, stderr: &mut dyn Write) -> u8 {
    match cmd {
        Cmd::Check {
            files,
            message_format,
            arch,
        } => {
            // Every file is checked, also after one that cannot be read.
            let mut code = 0u8;
            let opts = ptxvm_ir::CheckOptions { arch };
            for f in &files {
                match load(f, &opts, stderr) {
                    Ok((src, checked)) => {
                        if let Err(c) =
                            render_all(&src, &checked.diags, message_format, stdout, stderr)
                        {
                            return c;
                        }
                        if checked.has_errors() {
                            code = code.max(1);
                        }
                    }
                    Err(c) => code = code.max(c),
                }
            }
            code
        }
        Cmd::Fmt { file } => match load(&file, &ptxvm_ir::CheckOptions::default(), stderr) {
            Ok((src, checked)) => {
                if checked
                    .diags
                    .iter()
                    .any(|d| d.kind == ptxvm_syntax::DiagKind::Syntax && d.is_error())
                {
                    return match render_all(&src, &checked.diags, Format::Human, stdout, stderr) {
                        Ok(()) => 1,
                        Err(c) => c,
                    };
                }
                let out = ptxvm_syntax::printer::print(&checked.ast, &src.text);
                match emit(stdout, stderr, out.as_bytes()) {
                    Ok(()) => 0,
                    Err(c) => c,
                }
            }
            Err(code) => code,
        },
        Cmd::Run(o) => match run::run(&o, stdout, stderr) {
            Ok(()) => 0,
            Err(e) => {
                let _ = writeln!(stderr, "error: {}", e.message);
                e.code
            }
        },
        Cmd::Exec(o) => match exec::exec(&o) {
            Ok(never) => match never {},
            Err((e, code)) => {
                let _ = writeln!(stderr, "error: {e}");
                code
            }
        },
        Cmd::Ptxas { args } => ptxas::run(&args),
        Cmd::DriverPath => match exec::driver_dir() {
            Ok(d) => match emit(stdout, stderr, format!("{}\n", d.display()).as_bytes()) {
                Ok(()) => 0,
                Err(c) => c,
            },
            Err(e) => {
                let _ = writeln!(stderr, "error: {e}");
                1
            }
        },
        Cmd::Info { file, arch } => {
            if let Some(a) = &arch {
                let Some(m) = ptxvm_vm::arch::model(a) else {
                    let _ = writeln!(
                        stderr,
                        "error: --arch {a} is not an emulated GPU (known: {})",
                        ptxvm_vm::arch::names().join(", ")
                    );
                    return 2;
                };
                if let Err(c) = emit(stdout, stderr, info::render_model(m).as_bytes()) {
                    return c;
                }
            }
            match file {
                Some(file) => info_file(&file, stdout, stderr),
                None => 0,
            }
        }
    }
}

/// `ptxvm info FILE`: the module's summary.
fn info_file(file: &Path, stdout: &mut dyn Write, stderr: &mut dyn Write) -> u8 {
    match load(file, &ptxvm_ir::CheckOptions::default(), stderr) {
        Ok((src, checked)) => {
            if checked.has_errors() {
                return match render_all(&src, &checked.diags, Format::Human, stdout, stderr) {
                    Ok(()) => 1,
                    Err(c) => c,
                };
            }
            match emit(stdout, stderr, info::render(&checked.module).as_bytes()) {
                Ok(()) => 0,
                Err(c) => c,
            }
        }
        Err(code) => code,
    }
}

/// Loads, preprocesses and checks a file; I/O errors are printed and become exit code 1.
fn load(
    path: &Path,
    opts: &ptxvm_ir::CheckOptions,
    stderr: &mut dyn Write,
) -> Result<(Source, Checked), u8> {
    match Source::load(path) {
        Ok((src, pre)) => {
            let mut checked = ptxvm_ir::check_with(&src, opts);
            if !pre.is_empty() {
                checked.diags.extend(pre);
                checked.diags.sort_by_key(|d| (d.span.start, d.kind));
            }
            Ok((src, checked))
        }
        Err(e) => {
            let _ = writeln!(stderr, "error: cannot read `{}`: {e}", path.display());
            Err(1)
        }
    }
}

/// Writes the diagnostics to stdout; a failed write is an error (exit 1).
fn render_all(
    src: &Source,
    diags: &[Diagnostic],
    fmt: Format,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<(), u8> {
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let mut w = std::io::BufWriter::new(&mut *stdout);
    let mut r = Ok(());
    for d in diags {
        let text = match fmt {
            Format::Human => render_human(src, d),
            Format::Json => render_json(src, d),
        };
        r = w.write_all(text.as_bytes());
        if r.is_err() {
            break;
        }
    }
    if r.is_ok() && fmt == Format::Human && errors > 0 {
        r = writeln!(
            w,
            "error: could not check `{}` due to {errors} previous error{}\n",
            src.files[0],
            if errors == 1 { "" } else { "s" }
        );
    }
    let r = r.and_then(|()| w.flush());
    drop(w);
    r.map_err(|e| {
        let _ = writeln!(stderr, "error: cannot write to stdout: {e}");
        1
    })
}

fn parse_arch(s: &str) -> Result<(u32, bool), String> {
    ptxvm_ir::CheckOptions::parse_arch(s)
        .ok_or_else(|| format!("`{s}` is not an architecture like `sm_80` or `sm_90a`"))
}

/// rustc-style rendering: message, location arrow, the source line with a caret, notes.
pub fn render_human(src: &Source, d: &Diagnostic) -> String {
    let loc = src.locate(d.span);
    let sev = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let lno = loc.line.to_string();
    let pad = " ".repeat(lno.len());
    let width = (d.span.end.saturating_sub(d.span.start) as usize).clamp(
        1,
        loc.line_text
            .len()
            .saturating_sub((loc.col as usize).saturating_sub(1))
            .max(1),
    );
    // The column may not fall on a character of this text (a `#define` changed the line's
    // length before it): clamp it to the line and back to a character boundary.
    let mut col = (loc.col as usize)
        .saturating_sub(1)
        .min(loc.line_text.len());
    while !loc.line_text.is_char_boundary(col) {
        col -= 1;
    }
    let lead: String = loc.line_text[..col]
        .chars()
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let mut s = format!(
        "{sev}[{}]: {}\n{pad}--> {}:{}:{}\n{pad} |\n{lno} | {}\n{pad} | {lead}{}\n",
        d.kind.as_str(),
        d.message,
        loc.file,
        loc.line,
        loc.col,
        loc.line_text,
        "^".repeat(width)
    );
    for (sp, note) in &d.notes {
        match sp {
            Some(sp) => {
                let l = src.locate(*sp);
                s.push_str(&format!(
                    "{pad} = note: {note} ({}:{}:{})\n",
                    l.file, l.line, l.col
                ));
            }
            None => s.push_str(&format!("{pad} = note: {note}\n")),
        }
    }
    s.push('\n');
    s
}

/// One JSON object per diagnostic.
pub fn render_json(src: &Source, d: &Diagnostic) -> String {
    let loc = src.locate(d.span);
    let end = src.locate(ptxvm_syntax::Span {
        start: d.span.end,
        end: d.span.end,
    });
    let notes: Vec<serde_json::Value> = d
        .notes
        .iter()
        .map(|(sp, n)| {
            let mut o = serde_json::json!({ "message": n });
            if let Some(sp) = sp {
                let l = src.locate(*sp);
                o["file"] = l.file.into();
                o["line"] = l.line.into();
                o["column"] = l.col.into();
            }
            o
        })
        .collect();
    let v = serde_json::json!({
        "severity": match d.severity { Severity::Error => "error", Severity::Warning => "warning" },
        "kind": d.kind.as_str(),
        "message": d.message,
        "file": loc.file,
        "line": loc.line,
        "column": loc.col,
        "end_line": end.line,
        "end_column": end.col,
        "source_line": loc.line_text,
        "notes": notes,
    });
    format!("{v}\n")
}
