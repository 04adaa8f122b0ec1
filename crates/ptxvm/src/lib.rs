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
mod npy;
pub mod ptxas;
mod run;

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
        after_help = "SPEC is TYPE:VALUE (u8 u16 u32 u64 s8 s16 s32 s64 f16 bf16 f32 f64, e.g. u32:1024, f32:0.5, u64:0x10),\nPATH.npy (a device buffer with the array's bytes; the parameter gets its address),\nzeros:DTYPE:COUNT (a zero-filled buffer; f16 f32 f64 u8 u16 u32 u64 i8 i16 i32 i64),\nor hex:0011AABB (raw bytes for any parameter). --arg options come in parameter order.\n--out DIR writes buffer argument i to DIR/arg<i>.npy after the launch.\n--symbol NAME=SPEC fills a module .global/.const variable first (and --out writes DIR/NAME.npy).\n\nExample:\n  ptxvm run examples/vector_add.ptx --kernel vec_add_f32 --grid 4 --block 256 \\\n    --arg a.npy --arg b.npy --arg zeros:f32:1024 --arg u32:1024 --out out/"
    )]
    Run(run::RunOpts),
    /// Summarise a module: version, target, kernels and functions with their parameters,
    /// register counts, directives and module variables.
    Info { file: PathBuf },
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
    let argv: Vec<String> = std::env::args_os()
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
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match cli.cmd {
        Cmd::Check {
            files,
            message_format,
            arch,
        } => {
            let mut bad = false;
            let opts = ptxvm_ir::CheckOptions { arch };
            for f in &files {
                match load(f, &opts) {
                    Ok((src, checked)) => {
                        render_all(&src, &checked.diags, message_format);
                        bad |= checked.has_errors();
                    }
                    Err(code) => return code,
                }
            }
            if bad {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Cmd::Fmt { file } => match load(&file, &ptxvm_ir::CheckOptions::default()) {
            Ok((src, checked)) => {
                if checked
                    .diags
                    .iter()
                    .any(|d| d.kind == ptxvm_syntax::DiagKind::Syntax && d.is_error())
                {
                    render_all(&src, &checked.diags, Format::Human);
                    return ExitCode::from(1);
                }
                let out = ptxvm_syntax::printer::print(&checked.ast, &src.text);
                let _ = std::io::stdout().write_all(out.as_bytes());
                ExitCode::SUCCESS
            }
            Err(code) => code,
        },
        Cmd::Run(o) => match run::run(&o) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(1)
            }
        },
        Cmd::Exec(o) => match exec::exec(&o) {
            Ok(never) => match never {},
            Err((e, code)) => {
                let _ = writeln!(std::io::stderr(), "error: {e}");
                ExitCode::from(code)
            }
        },
        Cmd::Ptxas { args } => ptxas::main(&args),
        Cmd::DriverPath => match exec::driver_dir() {
            Ok(d) => {
                if writeln!(std::io::stdout(), "{}", d.display()).is_err() {
                    return ExitCode::from(1);
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "error: {e}");
                ExitCode::from(1)
            }
        },
        Cmd::Info { file } => match load(&file, &ptxvm_ir::CheckOptions::default()) {
            Ok((src, checked)) => {
                if checked.has_errors() {
                    render_all(&src, &checked.diags, Format::Human);
                    return ExitCode::from(1);
                }
                let _ = std::io::stdout().write_all(info::render(&checked.module).as_bytes());
                ExitCode::SUCCESS
            }
            Err(code) => code,
        },
    }
}

/// Loads, preprocesses and checks a file; I/O errors are printed and become exit code 1.
fn load(path: &Path, opts: &ptxvm_ir::CheckOptions) -> Result<(Source, Checked), ExitCode> {
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
            eprintln!("error: cannot read `{}`: {e}", path.display());
            Err(ExitCode::from(1))
        }
    }
}

fn render_all(src: &Source, diags: &[Diagnostic], fmt: Format) {
    let mut out = std::io::stdout().lock();
    let errors = diags.iter().filter(|d| d.is_error()).count();
    for d in diags {
        let text = match fmt {
            Format::Human => render_human(src, d),
            Format::Json => render_json(src, d),
        };
        let _ = out.write_all(text.as_bytes());
    }
    if fmt == Format::Human && errors > 0 {
        let _ = writeln!(
            out,
            "error: could not check `{}` due to {errors} previous error{}\n",
            src.files[0],
            if errors == 1 { "" } else { "s" }
        );
    }
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
            .saturating_sub(loc.col as usize - 1)
            .max(1),
    );
    let col = (loc.col as usize - 1).min(loc.line_text.len());
    let lead: String = loc.line_text[..col.min(loc.line_text.len())]
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
