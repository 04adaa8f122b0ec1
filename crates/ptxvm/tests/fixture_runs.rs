//! Real kernels vs numpy: runs every case in `tests/expected/<case>/case.json` (written by
//! `tools/gen_expected.py`) through the `ptxvm run` binary with `--out`, and compares each
//! output buffer with the numpy-computed `.npy` per the case's comparison mode.
//!
//! Modes: `exact` (bit for bit), `ulp:N` (float ulp distance, NaN == NaN), `rel:X`, `abs:X` and
//! `rel:X,abs:Y` (`|got - exp| <= abs + rel * |exp|`), and `bound` (`|got - exp| <= bound[i]`, a
//! per-element f64 array in the file named by the output's `"bound"` field: the a-priori error
//! bound of a kernel that sums several library functions). An output with `"as": "bf16"` holds bf16
//! bit patterns in a u16 array; `"skip": [i, ...]` leaves out order-dependent elements.
//!
//! `"stdout": FILE` compares the device printf output with a text file (`<PTR>` matches any
//! `%p` value); `"error": [fragments]` makes a case whose launch must fail, with every fragment
//! in the diagnostic (kernel, PTX line, thread, the assert message).
//!
//! A case with `"xfail": "<reason>"` documents an interpreter gap or bug: it must fail (exit
//! status or mismatch). If it passes, the test fails so the stale xfail gets removed.
//! All failures are collected and reported together.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

// ---------------------------------------------------------------------------------------------
// a small .npy reader (versions 1-3, little-endian / byte-sized dtypes, C order)

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dt {
    F16,
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
}

impl Dt {
    fn size(self) -> usize {
        match self {
            Dt::I8 | Dt::U8 => 1,
            Dt::F16 | Dt::I16 | Dt::U16 => 2,
            Dt::F32 | Dt::I32 | Dt::U32 => 4,
            Dt::F64 | Dt::I64 | Dt::U64 => 8,
        }
    }
}

struct Npy {
    dt: Dt,
    count: usize,
    data: Vec<u8>,
}

fn read_npy(path: &Path) -> Result<Npy, String> {
    let b = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if b.len() < 10 || &b[..6] != b"\x93NUMPY" {
        return Err(format!("{}: not a .npy file", path.display()));
    }
    let (hlen, start) = match b[6] {
        1 => (u16::from_le_bytes([b[8], b[9]]) as usize, 10),
        2 | 3 => (u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize, 12),
        v => return Err(format!("{}: unsupported .npy version {v}", path.display())),
    };
    let header = std::str::from_utf8(&b[start..start + hlen]).map_err(|_| "bad header")?;
    let field = |key: &str| -> Option<&str> {
        let i = header.find(&format!("'{key}'"))? + key.len() + 2;
        let rest = header[i..].trim_start().strip_prefix(':')?.trim_start();
        Some(rest)
    };
    let descr = field("descr").ok_or("no descr")?;
    let descr = descr[1..].split('\'').next().unwrap_or("");
    let dt = match descr.trim_start_matches(['<', '|', '=']) {
        "f2" => Dt::F16,
        "f4" => Dt::F32,
        "f8" => Dt::F64,
        "i1" | "b1" => Dt::I8,
        "i2" => Dt::I16,
        "i4" => Dt::I32,
        "i8" => Dt::I64,
        "u1" => Dt::U8,
        "u2" => Dt::U16,
        "u4" => Dt::U32,
        "u8" => Dt::U64,
        d => return Err(format!("{}: unsupported dtype {d}", path.display())),
    };
    if descr.starts_with('>') && dt.size() > 1 {
        return Err(format!("{}: big-endian data", path.display()));
    }
    if field("fortran_order").is_some_and(|v| v.starts_with("True")) {
        return Err(format!("{}: Fortran order", path.display()));
    }
    let shape = field("shape").ok_or("no shape")?;
    let shape = &shape[1..shape.find(')').ok_or("bad shape")?];
    let count = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| format!("bad shape entry {s}"))
        })
        .product::<Result<usize, String>>()?;
    let data = b[start + hlen..].to_vec();
    if data.len() != count * dt.size() {
        return Err(format!(
            "{}: {} data bytes for {count} x {:?}",
            path.display(),
            data.len(),
            dt
        ));
    }
    Ok(Npy { dt, count, data })
}

fn f16_to_f64(h: u16) -> f64 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    match e {
        0 => s * m * 2f64.powi(-24),
        31 if m == 0.0 => s * f64::INFINITY,
        31 => f64::NAN,
        _ => s * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

impl Npy {
    fn elem(&self, i: usize) -> &[u8] {
        let s = self.dt.size();
        &self.data[i * s..(i + 1) * s]
    }
    fn bits(&self, i: usize) -> u64 {
        let mut b = [0u8; 8];
        b[..self.dt.size()].copy_from_slice(self.elem(i));
        u64::from_le_bytes(b)
    }
    /// Value as f64 (bf16 when `as_bf16`, the element then being a u16 bit pattern).
    fn value(&self, i: usize, as_bf16: bool) -> f64 {
        let u = self.bits(i);
        if as_bf16 {
            return f32::from_bits((u as u32) << 16) as f64;
        }
        match self.dt {
            Dt::F16 => f16_to_f64(u as u16),
            Dt::F32 => f32::from_bits(u as u32) as f64,
            Dt::F64 => f64::from_bits(u),
            Dt::I8 => u as u8 as i8 as f64,
            Dt::I16 => u as u16 as i16 as f64,
            Dt::I32 => u as u32 as i32 as f64,
            Dt::I64 => u as i64 as f64,
            Dt::U8 | Dt::U16 | Dt::U32 | Dt::U64 => u as f64,
        }
    }
    /// Monotonic integer image of a float (sign-magnitude -> two's complement), for ulp distance.
    fn ordinal(&self, i: usize, as_bf16: bool) -> i128 {
        let u = self.bits(i);
        let (sign, mag) = match (self.dt, as_bf16) {
            (Dt::U16, true) | (Dt::F16, _) => (u >> 15 & 1, u & 0x7fff),
            (Dt::F32, _) => (u >> 31 & 1, u & 0x7fff_ffff),
            (Dt::F64, _) => (u >> 63, u & 0x7fff_ffff_ffff_ffff),
            _ => return self.value(i, false) as i128,
        };
        if sign == 1 {
            -(mag as i128)
        } else {
            mag as i128
        }
    }
    fn show(&self, i: usize, as_bf16: bool) -> String {
        let v = self.value(i, as_bf16);
        match self.dt {
            Dt::F16 | Dt::F32 | Dt::F64 => {
                format!("{v:e} (0x{:0w$x})", self.bits(i), w = self.dt.size() * 2)
            }
            _ if as_bf16 => format!("{v:e} (bf16 0x{:04x})", self.bits(i)),
            Dt::I8 | Dt::I16 | Dt::I32 | Dt::I64 => format!("{}", v as i64),
            _ => format!("{}", self.bits(i)),
        }
    }
}

enum Mode {
    Exact,
    Ulp(u64),
    Tol {
        rel: f64,
        abs: f64,
    },
    /// Per-element absolute bounds (`bound<i>.npy`, f64).
    Bound(Npy),
}

fn parse_mode(s: &str) -> Result<Mode, String> {
    if s == "exact" {
        return Ok(Mode::Exact);
    }
    if s == "bound" {
        // the bounds are read by the caller from the output's "bound" file
        return Ok(Mode::Bound(Npy {
            dt: Dt::F64,
            count: 0,
            data: Vec::new(),
        }));
    }
    if let Some(n) = s.strip_prefix("ulp:") {
        return n
            .parse()
            .map(Mode::Ulp)
            .map_err(|_| format!("bad mode {s}"));
    }
    let (mut rel, mut abs) = (0.0, 0.0);
    for part in s.split(',') {
        let (k, v) = part.split_once(':').ok_or(format!("bad mode {s}"))?;
        let v: f64 = v.parse().map_err(|_| format!("bad mode {s}"))?;
        match k {
            "rel" => rel = v,
            "abs" => abs = v,
            _ => return Err(format!("bad mode {s}")),
        }
    }
    Ok(Mode::Tol { rel, abs })
}

/// Compares; returns a description of the mismatches, or None.
fn compare(got: &Npy, exp: &Npy, mode: &Mode, as_bf16: bool, skip: &[usize]) -> Option<String> {
    if let Mode::Bound(b) = mode
        && b.count != exp.count
    {
        return Some(format!("{} bounds for {} elements", b.count, exp.count));
    }
    if got.dt != exp.dt || got.count != exp.count {
        return Some(format!(
            "got {:?}[{}], expected {:?}[{}]",
            got.dt, got.count, exp.dt, exp.count
        ));
    }
    let mut bad = 0usize;
    let mut first = None;
    for i in 0..exp.count {
        if skip.contains(&i) {
            continue;
        }
        let ok = match mode {
            Mode::Exact => got.elem(i) == exp.elem(i),
            Mode::Ulp(n) => {
                let (g, e) = (got.value(i, as_bf16), exp.value(i, as_bf16));
                (g.is_nan() && e.is_nan())
                    || (!g.is_nan()
                        && !e.is_nan()
                        && (got.ordinal(i, as_bf16) - exp.ordinal(i, as_bf16)).unsigned_abs()
                            <= *n as u128)
            }
            Mode::Tol { rel, abs } => {
                let (g, e) = (got.value(i, as_bf16), exp.value(i, as_bf16));
                g == e || (g.is_nan() && e.is_nan()) || (g - e).abs() <= abs + rel * e.abs()
            }
            Mode::Bound(b) => {
                let (g, e) = (got.value(i, as_bf16), exp.value(i, as_bf16));
                g == e || (g.is_nan() && e.is_nan()) || (g - e).abs() <= b.value(i, false)
            }
        };
        if !ok {
            bad += 1;
            first.get_or_insert(i);
        }
    }
    first.map(|i| {
        format!(
            "{bad}/{} elements differ; first at index {i}: got {}, expected {}",
            exp.count,
            got.show(i, as_bf16),
            exp.show(i, as_bf16)
        )
    })
}

/// Compares printf output with the expected text, in which `<PTR>` matches one `%p` value
/// (`0x` and hex digits: device addresses are the VM's). Returns the first difference.
fn compare_stdout(got: &str, exp: &str) -> Option<String> {
    let (gl, el): (Vec<&str>, Vec<&str>) = (got.split('\n').collect(), exp.split('\n').collect());
    for (i, (g, e)) in gl.iter().zip(&el).enumerate() {
        if !line_matches(g, e) {
            return Some(format!("line {}: got {g:?}, expected {e:?}", i + 1));
        }
    }
    (gl.len() != el.len()).then(|| {
        format!(
            "{} lines, expected {}",
            gl.len().saturating_sub(1),
            el.len().saturating_sub(1)
        )
    })
}

fn line_matches(got: &str, exp: &str) -> bool {
    let mut parts = exp.split("<PTR>");
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = got.strip_prefix(first) else {
        return false;
    };
    for lit in parts {
        let Some(hex) = rest.strip_prefix("0x") else {
            return false;
        };
        let n = hex.bytes().take_while(u8::is_ascii_hexdigit).count();
        if n == 0 {
            return false;
        }
        match hex[n..].strip_prefix(lit) {
            Some(r) => rest = r,
            None => return false,
        }
    }
    rest.is_empty()
}

/// What a run produced, for comparing engines.
#[derive(Debug, PartialEq, Eq)]
struct Produced {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    outs: std::collections::BTreeMap<String, Vec<u8>>,
}

/// Runs a case on the reference (one host thread) and on each fast engine (all cores, then
/// one host thread): each must match numpy, and each fast engine's serial run must produce
/// exactly what the reference's did.
fn run_engines(dir: &Path, tmp: &Path) -> Result<(), String> {
    let (reference, r) = run_case(dir, &tmp.join("reference"), "reference", true)?;
    r.map_err(|e| format!("[engine reference] {e}"))?;
    for engine in ["interp", "jit"] {
        let (_, r) = run_case(dir, &tmp.join(engine), engine, false)?;
        r.map_err(|e| format!("[engine {engine}] {e}"))?;
        let (got, _) = run_case(dir, &tmp.join(format!("{engine}1")), engine, true)?;
        if reference == got {
            continue;
        }
        let mut m = format!("[engine {engine}] differs from the reference:");
        if reference.code != got.code {
            m += &format!(" exit {:?} vs {:?};", got.code, reference.code);
        }
        if reference.stdout != got.stdout {
            m += " stdout differs;";
        }
        if reference.stderr != got.stderr {
            m += &format!(
                " stderr {:?} vs {:?};",
                String::from_utf8_lossy(&got.stderr),
                String::from_utf8_lossy(&reference.stderr)
            );
        }
        for (name, bytes) in &reference.outs {
            if got.outs.get(name) != Some(bytes) {
                m += &format!(" {name} differs;");
            }
        }
        return Err(m);
    }
    Ok(())
}

/// Runs one case with an engine; the outcome of checking its outputs.
fn run_case(
    dir: &Path,
    tmp: &Path,
    engine: &str,
    serial: bool,
) -> Result<(Produced, Result<(), String>), String> {
    let text = std::fs::read_to_string(dir.join("case.json")).map_err(|e| e.to_string())?;
    let j: Value = serde_json::from_str(&text).map_err(|e| format!("case.json: {e}"))?;
    let dim = |k: &str| -> String {
        j[k].as_array()
            .map(|a| {
                a.iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .unwrap_or_default()
    };
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxvm"));
    cmd.arg("run")
        .arg(repo_root().join(j["fixture"].as_str().ok_or("no fixture")?))
        .args(["--kernel", j["kernel"].as_str().ok_or("no kernel")?])
        .args(["--grid", &dim("grid"), "--block", &dim("block")])
        .args([
            "--shared-mem",
            &j["shared_mem"].as_u64().unwrap_or(0).to_string(),
        ])
        .arg("--out")
        .arg(tmp);
    // A cluster shape given at launch.
    if j["cluster"].is_array() {
        cmd.args(["--cluster", &dim("cluster")]);
    }
    for a in j["args"].as_array().ok_or("no args")? {
        let spec = if let Some(p) = a["npy"].as_str() {
            dir.join(p).display().to_string()
        } else if let Some(s) = a["scalar"].as_str() {
            s.to_string()
        } else if let Some(z) = a["zeros"].as_str() {
            format!("zeros:{z}")
        } else if let Some(h) = a["hex"].as_str() {
            format!("hex:{h}")
        } else if let Some(t) = a["tmap"].as_str() {
            // `in<i>.npy:DTYPE:...`: a tensor map over a new buffer with the file's bytes.
            format!("tmap:{}", dir.join(t).display())
        } else if let Some(t) = a["tex"].as_str() {
            // `in0.npy,OPTIONS`: the path, then the texture's options.
            format!("tex:{}", dir.join(t).display())
        } else if let Some(t) = a["surf"].as_str() {
            format!("surf:{}", dir.join(t).display())
        } else {
            return Err(format!("bad arg {a}"));
        };
        cmd.arg("--arg").arg(spec);
    }
    // Module variables filled before the launch (`--symbol NAME=SPEC`).
    for sy in j["symbols"].as_array().map_or(&[][..], |v| v.as_slice()) {
        let name = sy["name"].as_str().ok_or("symbol without name")?;
        let spec = if let Some(p) = sy["npy"].as_str() {
            dir.join(p).display().to_string()
        } else if let Some(z) = sy["zeros"].as_str() {
            format!("zeros:{z}")
        } else {
            return Err(format!("bad symbol {sy}"));
        };
        cmd.arg("--symbol").arg(format!("{name}={spec}"));
    }
    cmd.args(["--engine", engine]);
    if serial {
        cmd.args(["--threads", "1"]);
    }
    let o = cmd.output().map_err(|e| format!("cannot run ptxvm: {e}"))?;
    let mut outs = std::collections::BTreeMap::new();
    if let Ok(rd) = std::fs::read_dir(tmp) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            outs.insert(name, std::fs::read(e.path()).unwrap_or_default());
        }
    }
    let check = check_case(dir, tmp, &j, &o);
    Ok((
        Produced {
            code: o.status.code(),
            stdout: o.stdout,
            stderr: o.stderr,
            outs,
        },
        check,
    ))
}

/// Checks a finished run of a case against its expectations.
fn check_case(dir: &Path, tmp: &Path, j: &Value, o: &std::process::Output) -> Result<(), String> {
    let stderr = String::from_utf8_lossy(&o.stderr);
    let mut msgs = Vec::new();
    // Device printf output, compared as text (`<PTR>` stands for any `%p` value).
    if let Some(f) = j["stdout"].as_str() {
        let exp = std::fs::read_to_string(dir.join(f)).map_err(|e| format!("{f}: {e}"))?;
        if let Some(m) = compare_stdout(&String::from_utf8_lossy(&o.stdout), &exp) {
            msgs.push(format!("stdout: {m}"));
        }
    }
    // A case whose launch must fail: every listed fragment must appear in the diagnostic.
    if let Some(frags) = j["error"].as_array() {
        if o.status.success() {
            msgs.push("the launch succeeded, but the case expects it to fail".to_string());
        }
        for fr in frags {
            let fr = fr.as_str().ok_or("non-string error fragment")?;
            if !stderr.contains(fr) {
                msgs.push(format!(
                    "diagnostic lacks {fr:?}: {}",
                    stderr.trim().lines().collect::<Vec<_>>().join(" | ")
                ));
            }
        }
        if j["outputs"].as_array().is_some_and(|a| !a.is_empty()) {
            return Err("a case expecting an error cannot have outputs".to_string());
        }
        return if msgs.is_empty() {
            Ok(())
        } else {
            Err(msgs.join("; "))
        };
    }
    if !o.status.success() {
        return Err(format!(
            "ptxvm exited with {}: {}",
            o.status,
            stderr
                .trim()
                .lines()
                .take(4)
                .collect::<Vec<_>>()
                .join(" | ")
        ));
    }
    for od in j["outputs"].as_array().ok_or("no outputs")? {
        // An output is a buffer argument (`arg`, file argI.npy) or a module variable
        // (`symbol`, file NAME.npy).
        let (arg, file) = match od["symbol"].as_str() {
            Some(name) => (name.to_string(), format!("{name}.npy")),
            None => {
                let i = od["arg"].as_u64().ok_or("no arg index")?;
                (format!("arg{i}"), format!("arg{i}.npy"))
            }
        };
        let mode_s = od["mode"].as_str().ok_or("no mode")?;
        let mut mode = parse_mode(mode_s)?;
        if let Mode::Bound(b) = &mut mode {
            *b = read_npy(
                &dir.join(
                    od["bound"]
                        .as_str()
                        .ok_or("bound mode without \"bound\" file")?,
                ),
            )?;
            if b.dt != Dt::F64 {
                return Err(format!("bound file of {arg} is not f64"));
            }
        }
        let got = read_npy(&tmp.join(file))?;
        let exp = read_npy(&dir.join(od["expected"].as_str().ok_or("no expected")?))?;
        let skip: Vec<usize> = od["skip"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_u64())
                    .map(|v| v as usize)
                    .collect()
            })
            .unwrap_or_default();
        let as_bf16 = od["as"].as_str() == Some("bf16");
        if let Some(m) = compare(&got, &exp, &mode, as_bf16, &skip) {
            msgs.push(format!("{arg} ({mode_s}): {m}"));
        }
    }
    if msgs.is_empty() {
        Ok(())
    } else {
        Err(msgs.join("; "))
    }
}

/// (case name, xfail reason, outcome, seconds).
type CaseResult = (String, Option<String>, Result<(), String>, f64);

#[test]
fn fixture_kernels_match_numpy() {
    let root = repo_root().join("tests/expected");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/expected")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").is_file())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no cases under {}", root.display());

    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<CaseResult>> = Mutex::new(Vec::new());
    let tmp_base = std::env::temp_dir().join(format!("ptxvm-fixture-runs-{}", std::process::id()));
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(4);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(dir) = dirs.get(k) else { break };
                    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
                    let xfail = std::fs::read_to_string(dir.join("case.json"))
                        .ok()
                        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                        .and_then(|j| j["xfail"].as_str().map(str::to_string));
                    let tmp = tmp_base.join(&name);
                    let _ = std::fs::remove_dir_all(&tmp);
                    let t0 = Instant::now();
                    let r = run_engines(dir, &tmp);
                    let secs = t0.elapsed().as_secs_f64();
                    let _ = std::fs::remove_dir_all(&tmp);
                    results.lock().unwrap().push((name, xfail, r, secs));
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&tmp_base);

    let mut results = results.into_inner().unwrap();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let (mut pass, mut xfailed) = (0, 0);
    let mut failures = Vec::new();
    for (name, xfail, r, secs) in &results {
        match (xfail, r) {
            (None, Ok(())) => pass += 1,
            (Some(_), Err(_)) => xfailed += 1,
            (None, Err(e)) => failures.push(format!("FAIL {name} ({secs:.2}s): {e}")),
            (Some(why), Ok(())) => failures.push(format!(
                "XPASS {name}: marked xfail ({why}) but now matches numpy; remove the xfail in tools/gen_expected.py and regenerate"
            )),
        }
    }
    let slowest = results.iter().max_by(|a, b| a.3.total_cmp(&b.3)).unwrap();
    eprintln!(
        "fixture runs: {} cases, {pass} pass, {xfailed} expected failures, {} unexpected; slowest {} ({:.2}s)",
        results.len(),
        failures.len(),
        slowest.0,
        slowest.3
    );
    for (name, xfail, r, _) in &results {
        if let (Some(why), Err(e)) = (xfail, r) {
            eprintln!("  xfail {name}: {why}\n        got: {e}");
        }
    }
    assert!(
        failures.is_empty(),
        "{} fixture case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
