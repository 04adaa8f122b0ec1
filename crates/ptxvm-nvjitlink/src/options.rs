//! nvJitLink's link options (`nvJitLink.h`, "Supported Link Options"): parsed with NVIDIA's
//! error codes and log messages (measured on nvJitLink 13.5.37).

use crate::api::{
    NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS, NVJITLINK_ERROR_MISSING_ARCH,
    NVJITLINK_ERROR_UNRECOGNIZED_OPTION, NVJITLINK_ERROR_UNSUPPORTED_ARCH,
};

/// A link's options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// `-arch` as given: `sm_80`, `sm_90a`, `compute_80` (virtual: only with `-lto -ptx`).
    pub arch: String,
    /// Its number (80) and whether it is arch- or family-specific (`a`, `f`).
    pub sm: u32,
    pub arch_specific: bool,
    pub virtual_arch: bool,
    pub lto: bool,
    pub ptx: bool,
    pub verbose: bool,
    pub time: bool,
    /// `-maxrregcount=N`: every kernel gets `.maxnreg N` (unless it has its own).
    pub maxrregcount: Option<u32>,
    /// Options for NVIDIA's nvJitLink when it compiles LTO-IR to PTX (`-arch` and the NVVM
    /// options; not the ptxas ones nor `-ptx`/`-lto`, which the compile sets itself).
    pub forward: Vec<String>,
}

/// A refused option set: the code and the error log line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptError {
    pub code: u32,
    pub msg: String,
}

fn err(code: u32, msg: String) -> OptError {
    OptError { code, msg }
}

/// The oldest architecture the ABI's release compiles for (CUDA 13 dropped sm_5x to sm_72).
#[cfg(not(nvjitlink_abi12))]
const MIN_SM: u32 = 75;
#[cfg(nvjitlink_abi12)]
const MIN_SM: u32 = 50;

/// Parses `sm_80`, `sm_90a`, `sm_100f`, `compute_80`: (number, specific, virtual).
fn parse_arch(v: &str) -> Option<(u32, bool, bool)> {
    let (rest, virt) = match v.strip_prefix("sm_") {
        Some(r) => (r, false),
        None => (v.strip_prefix("compute_")?, true),
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let n: u32 = digits.parse().ok()?;
    let specific = match &rest[digits.len()..] {
        "" => false,
        "a" | "f" => true,
        _ => return None,
    };
    Some((n, specific, virt))
}

/// Options that take a value and are given to NVIDIA's nvJitLink for LTO-IR.
const FORWARD_VALUED: &[&str] = &[
    "-ftz=",
    "-prec-div=",
    "-prec-sqrt=",
    "-fma=",
    "-kernels-used=",
    "-variables-used=",
    "-split-compile=",
    "-split-compile-extended=",
    "-jump-table-density=",
    "-Ofc=",
];
/// Flags given to NVIDIA's nvJitLink for LTO-IR.
const FORWARD_FLAGS: &[&str] = &[
    "-g",
    "-lineinfo",
    "-optimize-unused-variables",
    "-nvvm-latest",
    "-no-cache",
    "-device-stack-protector",
];
/// Accepted and without effect on PTX: ptxas's options and the relocatable link.
const PTXAS_VALUED: &[&str] = &["-maxrregcount=", "-Xptxas="];

/// Parses the options of `nvJitLinkCreate`, in NVIDIA's order of checks.
pub fn parse(opts: &[String]) -> Result<Options, OptError> {
    let mut o = Options::default();
    let mut arch: Option<String> = None;
    for opt in opts {
        let opt = opt.as_str();
        if let Some(v) = opt.strip_prefix("-arch=") {
            arch = Some(v.to_string());
        } else if opt == "-lto" {
            o.lto = true;
        } else if opt == "-ptx" {
            o.ptx = true;
        } else if opt == "-verbose" {
            o.verbose = true;
        } else if opt == "-time" {
            o.time = true;
        } else if opt == "-r" {
            // A relocatable link: the container is PTX either way.
        } else if let Some(v) = opt.strip_prefix("-O")
            && !v.starts_with("fc=")
            && v != "0"
            && v != "3"
        {
            return Err(err(
                NVJITLINK_ERROR_UNRECOGNIZED_OPTION,
                format!("unsupported value of -O: {v}. Only 0 and 3 are supported."),
            ));
        } else if opt == "-O0"
            || opt == "-O3"
            || FORWARD_FLAGS.contains(&opt)
            || FORWARD_VALUED
                .iter()
                .any(|p| opt.starts_with(p) && opt.len() > p.len())
        {
            // -Ofc=... is in FORWARD_VALUED.
            o.forward.push(opt.to_string());
        } else if let Some(v) = opt.strip_prefix("-maxrregcount=")
            && let Ok(n) = v.parse::<u32>()
        {
            o.maxrregcount = (n > 0).then_some(n);
        } else if PTXAS_VALUED
            .iter()
            .any(|p| opt.starts_with(p) && opt.len() > p.len())
        {
        } else {
            return Err(err(
                NVJITLINK_ERROR_UNRECOGNIZED_OPTION,
                format!("unrecognized option: {opt}"),
            ));
        }
    }
    let Some(a) = arch else {
        return Err(err(NVJITLINK_ERROR_MISSING_ARCH, String::new()));
    };
    let Some((n, specific, virt)) = parse_arch(&a) else {
        return Err(err(
            NVJITLINK_ERROR_UNRECOGNIZED_OPTION,
            format!("ERROR NVJITLINK_ERROR_UNRECOGNIZED_OPTION: missing option value (-arch={a})"),
        ));
    };
    if !(MIN_SM..1000).contains(&n) {
        return Err(err(
            NVJITLINK_ERROR_UNSUPPORTED_ARCH,
            format!("ERROR NVJITLINK_ERROR_UNSUPPORTED_ARCH: unsupported architecture (-arch={a})"),
        ));
    }
    if o.ptx && !o.lto {
        return Err(err(
            NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS,
            "ERROR: -ptx requires -lto".into(),
        ));
    }
    if virt && !o.ptx {
        return Err(err(
            NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS,
            "ERROR: virtual arch requires -ptx".into(),
        ));
    }
    o.forward.insert(0, format!("-arch={a}"));
    o.arch = a;
    o.sm = n;
    o.arch_specific = specific;
    o.virtual_arch = virt;
    Ok(o)
}

impl Options {
    /// The `.target` the output is checked for and the container records: `sm_80`.
    pub fn target(&self) -> String {
        match self.arch.strip_prefix("compute_") {
            Some(r) => format!("sm_{r}"),
            None => self.arch.clone(),
        }
    }
}
