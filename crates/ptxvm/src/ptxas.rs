//! `ptxvm ptxas` (and the executable named `ptxas` that `ptxvm driver-path`'s directory
//! holds): a drop-in for NVIDIA's PTX assembler for toolchains that turn PTX into SASS
//! before the driver sees it (Triton runs `ptxas` on every kernel). It takes ptxas's
//! command line, checks the PTX with ptxvm's checker for the `--gpu-name` architecture,
//! reports diagnostics in ptxas's format on stderr (`ptxas FILE, line N; error   : ...`,
//! exit 255 like ptxas), and writes a ptxvm container (`docs/container.md`) where ptxas
//! writes its cubin; ptxvm's driver runs the container's PTX.
//!
//! Options that only steer NVIDIA's code generation (`-O`, `--maxrregcount`, `--fmad`,
//! `-lineinfo`, hidden tuning flags such as `--regAllocOptLevel=2`) are accepted and have no
//! effect: there is no machine code to tune.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// The CUDA release this drop-in reports: Triton and nvcc derive the PTX ISA version they
/// emit from it (13.0 → PTX 9.0, which ptxvm's checker accepts).
pub const RELEASE: &str = "13.0";
/// The architecture when `--gpu-name` is not given (ptxas 13's default).
pub const DEFAULT_ARCH: &str = "sm_75";

/// Options that take a value (long name, short name).
const VALUED: &[(&str, &str)] = &[
    ("gpu-name", "arch"),
    ("output-file", "o"),
    ("opt-level", "O"),
    ("maxrregcount", "maxrregcount"),
    ("device-function-maxrregcount", "func-maxrregcount"),
    ("entry", "e"),
    ("input-as-string", "ias"),
    ("machine", "m"),
    ("maxntid", "maxntid"),
    ("minnctapersm", "minnctapersm"),
    ("options-file", "optf"),
    ("register-usage-level", "regUsageLevel"),
    ("split-compile", "split-compile"),
    ("sanitize", "sanitize"),
    ("fmad", "fmad"),
    (
        "allow-expensive-optimizations",
        "allow-expensive-optimizations",
    ),
    ("device-stack-protector", "device-stack-protector"),
    ("enable-func-clone-sc", "enable-func-clone-sc"),
    ("position-independent-code", "pic"),
    ("def-load-cache", "dlcm"),
    ("def-store-cache", "dscm"),
    ("force-load-cache", "flcm"),
    ("force-store-cache", "fscm"),
];

#[derive(Default)]
struct Opts {
    arch: Option<String>,
    output: Option<String>,
    inputs: Vec<String>,
    strings: Vec<String>,
    verbose: bool,
    version: bool,
    help: bool,
    werror: bool,
    no_warnings: bool,
    list_arch: bool,
    list_version: bool,
}

fn value_option(name: &str) -> Option<&'static str> {
    VALUED
        .iter()
        .find(|(l, s)| *l == name || *s == name)
        .map(|(l, _)| *l)
}

fn parse(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "-" || !a.starts_with('-') {
            o.inputs.push(a.clone());
            continue;
        }
        let body = a.trim_start_matches('-');
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        // `-O3` is `-O 3`.
        if let Some(level) = name.strip_prefix('O')
            && !level.is_empty()
            && level.chars().all(|c| c.is_ascii_digit())
        {
            continue;
        }
        if let Some(long) = value_option(name) {
            let v = match inline {
                Some(v) => v,
                None => {
                    let v = args
                        .get(i)
                        .ok_or_else(|| format!("option `{a}` expects a value"))?
                        .clone();
                    i += 1;
                    v
                }
            };
            match long {
                "gpu-name" => o.arch = Some(v),
                "output-file" => o.output = Some(v),
                "input-as-string" => o.strings.push(v),
                "options-file" => {
                    let text = std::fs::read_to_string(&v)
                        .map_err(|e| format!("cannot read options file `{v}`: {e}"))?;
                    let more: Vec<String> = text.split_whitespace().map(String::from).collect();
                    let sub = parse(&more)?;
                    o.arch = sub.arch.or(o.arch);
                    o.output = sub.output.or(o.output);
                    o.inputs.extend(sub.inputs);
                }
                _ => {}
            }
            continue;
        }
        match name {
            "verbose" | "v" | "verbose2" | "v2" => o.verbose = true,
            "version" | "V" => o.version = true,
            "help" | "h" => o.help = true,
            "warning-as-error" | "Werror" => o.werror = true,
            "disable-warnings" | "w" => o.no_warnings = true,
            "list-arch" | "arch-ls" => o.list_arch = true,
            "list-version" | "version-ls" => o.list_version = true,
            // Everything else steers NVIDIA's code generation (documented and hidden flags
            // alike): accepted, no effect.
            _ => {}
        }
    }
    Ok(o)
}

fn err_line(s: &str) {
    let _ = writeln!(std::io::stderr(), "{s}");
}

/// [`run`] as the process's exit code.
pub fn main(args: &[String]) -> ExitCode {
    ExitCode::from(run(args))
}

/// Runs the drop-in with ptxas's arguments (without the program name); returns ptxas's
/// exit status.
pub fn run(args: &[String]) -> u8 {
    let o = match parse(args) {
        Ok(o) => o,
        Err(e) => {
            err_line(&format!("ptxas fatal   : {e}"));
            return 255;
        }
    };
    let mut out = std::io::stdout();
    if o.version {
        let ok = writeln!(
            out,
            "ptxas: ptxvm's drop-in for the PTX assembler (ptxvm {}): checks PTX and writes a ptxvm container\nCuda compilation tools, release {RELEASE}, V{RELEASE}.0 (ptxvm)",
            env!("CARGO_PKG_VERSION")
        );
        return if ok.is_ok() { 0 } else { 1 };
    }
    if o.help {
        let ok = writeln!(
            out,
            "Usage  : ptxas [options] <ptx file>,...\n\nptxvm's drop-in for NVIDIA's ptxas: checks the PTX for --gpu-name (-arch, default {DEFAULT_ARCH})\nand writes a ptxvm container to --output-file (-o, default elf.o). Diagnostics use ptxas's format.\nOptions steering machine-code generation are accepted and have no effect."
        );
        return if ok.is_ok() { 0 } else { 1 };
    }
    if o.list_arch {
        let mut s = String::new();
        for m in ptxvm_vm::arch::MODELS {
            s.push_str(m.arch);
            s.push('\n');
        }
        return if out.write_all(s.as_bytes()).is_ok() {
            0
        } else {
            1
        };
    }
    if o.list_version {
        return if writeln!(out, "9.0").is_ok() { 0 } else { 1 };
    }
    let arch = o.arch.clone().unwrap_or_else(|| DEFAULT_ARCH.to_string());
    let Some(parsed_arch) = ptxvm_ir::CheckOptions::parse_arch(&arch) else {
        err_line(&format!(
            "ptxas fatal   : Value '{arch}' is not defined for option 'gpu-name'"
        ));
        return 255;
    };
    // The inputs: files, and `--input-as-string` texts.
    let mut sources: Vec<(String, String)> = Vec::new();
    for f in &o.inputs {
        let text = if f == "-" {
            match ptxvm_syntax::source::read_limited(
                Path::new("/dev/stdin"),
                ptxvm_syntax::source::MAX_SOURCE_BYTES,
            ) {
                Ok(b) => String::from_utf8_lossy(&b).into_owned(),
                Err(e) => {
                    err_line(&format!(
                        "ptxas fatal   : cannot read the PTX from standard input: {e}"
                    ));
                    return 255;
                }
            }
        } else {
            match ptxvm_syntax::source::read_limited(
                Path::new(f),
                ptxvm_syntax::source::MAX_SOURCE_BYTES,
            ) {
                Ok(b) => String::from_utf8_lossy(&b).into_owned(),
                Err(e) => {
                    err_line(&format!(
                        "ptxas fatal   : Input file '{f}' could not be read: {e}"
                    ));
                    return 255;
                }
            }
        };
        sources.push((f.clone(), text));
    }
    for (k, s) in o.strings.iter().enumerate() {
        sources.push((format!("<input string {k}>"), s.clone()));
    }
    if sources.is_empty() {
        err_line(
            "ptxas fatal   : No input files specified; use option --help for more information",
        );
        return 255;
    }
    if sources.len() > 1 {
        err_line(
            "ptxas fatal   : ptxvm's ptxas takes one PTX input (link several with the driver's cuLink* or nvJitLink)",
        );
        return 255;
    }
    let (name, text) = sources.remove(0);
    let opts = ptxvm_ir::CheckOptions {
        arch: Some(parsed_arch),
    };
    let (src, pre) = ptxvm_syntax::Source::new(&name, text.clone(), None);
    let mut checked = ptxvm_ir::check_with(&src, &opts);
    checked.diags.extend(pre);
    let mut errors = 0;
    for d in &checked.diags {
        let l = src.locate(d.span);
        let error = d.is_error() || o.werror;
        if !error && o.no_warnings {
            continue;
        }
        errors += error as usize;
        err_line(&format!(
            "ptxas {}, line {}; {} : {} (column {})",
            l.file,
            l.line,
            if error { "error  " } else { "warning" },
            d.message,
            l.col
        ));
    }
    if errors > 0 {
        err_line("ptxas fatal   : Ptx assembly aborted due to errors");
        return 255;
    }
    let model = ptxvm_vm::arch::model(&arch).unwrap_or(ptxvm_vm::arch::default_model());
    let module = match ptxvm_vm::check_ptx_with(&name, &text, &opts) {
        Ok(m) => std::sync::Arc::new(m),
        Err(e) => {
            err_line(&format!("ptxas fatal   : {e}"));
            return 255;
        }
    };
    let container = match ptxvm_vm::container::Container::describe(&text, &arch, &module, model) {
        Ok(c) => c,
        Err(e) => {
            err_line(&format!("ptxas fatal   : {e}"));
            return 255;
        }
    };
    if o.verbose {
        for k in &container.kernels {
            err_line(&format!(
                "ptxas info    : Compiling entry function '{}' for '{arch}'",
                k.name
            ));
            err_line(&format!(
                "ptxas info    : Function properties for {}",
                k.name
            ));
            err_line(&format!(
                "    {} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
                k.local
            ));
            err_line(&format!(
                "ptxas info    : Used {} registers, {} bytes smem, {} bytes cmem[0]",
                k.regs,
                k.shared,
                k.params.iter().map(|p| p.0 + p.1).max().unwrap_or(0)
            ));
        }
    }
    let path = o.output.clone().unwrap_or_else(|| "elf.o".to_string());
    if let Err(e) = std::fs::write(&path, container.to_elf()) {
        err_line(&format!(
            "ptxas fatal   : Could not open output file '{path}': {e}"
        ));
        return 255;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Opts {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn command_lines_as_tools_write_them() {
        let o = p(&[
            "-lineinfo",
            "-v",
            "--regAllocOptLevel=2",
            "--gpu-name=sm_90a",
            "k.ptx",
            "-o",
            "k.o",
        ]);
        assert_eq!(o.arch.as_deref(), Some("sm_90a"));
        assert_eq!(o.output.as_deref(), Some("k.o"));
        assert_eq!(o.inputs, vec!["k.ptx"]);
        assert!(o.verbose);
        let o = p(&[
            "-arch",
            "sm_80",
            "-O3",
            "--opt-level",
            "0",
            "--fmad=false",
            "a.ptx",
        ]);
        assert_eq!(o.arch.as_deref(), Some("sm_80"));
        assert_eq!(o.inputs, vec!["a.ptx"]);
        assert!(parse(&["-o".to_string()]).is_err());
    }
}
