//! The hostile-input suite: every `tests/hostile/**/*.case` runs the real `ptxvm` binary as
//! a child process under a memory limit (`RLIMIT_AS`) and a time limit, and checks that it
//! neither panics (exit 101) nor dies of a signal nor hangs, that it exits with the
//! documented code, and that its output carries the expected message fragments. The case
//! syntax is in `tests/hostile/README.md`.
//!
//! `HOSTILE_FILTER=substr` runs only the cases whose path contains `substr`;
//! `HOSTILE_VERBOSE=1` prints every case's verdict, time and stderr.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Address space of each child: 4 GiB. The device address space reserves its region
/// lazily and halves the reservation until the host grants it, so it fits under the limit
/// (about 2 GiB of region and 2 GiB for everything else).
const MEMORY_LIMIT: u64 = 4 << 30;
/// Default wall-clock limit of a case.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);
/// The suite must not shrink silently.
const MIN_CASES: usize = 60;

#[derive(Debug, Default, Clone)]
struct Case {
    path: PathBuf,
    args: Vec<String>,
    exit: Option<i32>,
    stderr: Vec<String>,
    stdout: Vec<String>,
    stdout_min: Option<usize>,
    stdout_max: Option<usize>,
    stdout_to: Option<String>,
    stderr_to: Option<String>,
    timeout: Option<Duration>,
    deterministic: bool,
    file_contains: Vec<(String, String)>,
    /// A generated input `{tmp}/gen.ptx`: head, `count` copies of body (`{i}` is the copy's
    /// index, `{j}` a scrambled one), tail; `\n` in the texts is a newline.
    generate: Option<(String, String, String, usize)>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn parse_case(path: &Path, text: &str) -> Result<Case, String> {
    let mut c = Case {
        path: path.to_path_buf(),
        ..Case::default()
    };
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, val) = line
            .split_once(':')
            .ok_or_else(|| format!("line {}: expected KEY: VALUE", n + 1))?;
        let val = val.strip_prefix(' ').unwrap_or(val);
        match key {
            "args" => c.args = val.split_whitespace().map(str::to_string).collect(),
            "exit" => {
                c.exit = Some(
                    val.trim()
                        .parse()
                        .map_err(|_| format!("bad exit `{val}`"))?,
                )
            }
            "stderr" => c.stderr.push(val.to_string()),
            "stdout" => c.stdout.push(val.to_string()),
            "stdout-min" => c.stdout_min = Some(val.trim().parse().map_err(|_| "bad stdout-min")?),
            "stdout-max" => c.stdout_max = Some(val.trim().parse().map_err(|_| "bad stdout-max")?),
            "stdout-to" => c.stdout_to = Some(val.trim().to_string()),
            "stderr-to" => c.stderr_to = Some(val.trim().to_string()),
            "timeout" => {
                c.timeout = Some(Duration::from_secs(
                    val.trim().parse().map_err(|_| "bad timeout")?,
                ))
            }
            "deterministic" => c.deterministic = val.trim() == "yes",
            "gen-head" | "gen-body" | "gen-tail" | "gen-count" => {
                let g = c.generate.get_or_insert_with(Default::default);
                let text = val.replace("\\n", "\n");
                match key {
                    "gen-head" => g.0 = text,
                    "gen-body" => g.1 = text,
                    "gen-tail" => g.2 = text,
                    _ => g.3 = val.trim().parse().map_err(|_| "bad gen-count")?,
                }
            }
            "file-contains" => {
                let (f, t) = val
                    .split_once(' ')
                    .ok_or("file-contains: expected PATH TEXT")?;
                c.file_contains.push((f.to_string(), t.to_string()));
            }
            _ => return Err(format!("line {}: unknown key `{key}`", n + 1)),
        }
    }
    if c.args.is_empty() || c.exit.is_none() {
        return Err("a case needs `args:` and `exit:`".into());
    }
    Ok(c)
}

fn cases() -> Vec<Case> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "case") {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    walk(&root().join("tests/hostile"), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("read case");
            parse_case(&p, &text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        })
        .collect()
}

struct Outcome {
    status: Option<i32>,
    signal: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    elapsed: Duration,
    timed_out: bool,
}

fn run_once(c: &Case, tmp: &Path) -> Outcome {
    let dir = c.path.parent().expect("case dir");
    let subst = |s: &str| {
        s.replace("{dir}", &dir.display().to_string())
            .replace("{tmp}", &tmp.display().to_string())
    };
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxvm"));
    cmd.args(c.args.iter().map(|a| subst(a)))
        .current_dir(root())
        .stdin(Stdio::null());
    let out_path = tmp.join("stdout");
    let err_path = tmp.join("stderr");
    match c.stdout_to.as_deref() {
        Some("closed") => {
            cmd.stdout(Stdio::null());
        }
        Some(p) => {
            cmd.stdout(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(p)
                    .expect("open"),
            );
        }
        None => {
            cmd.stdout(std::fs::File::create(&out_path).expect("stdout file"));
        }
    }
    match c.stderr_to.as_deref() {
        Some("closed") => {
            cmd.stderr(Stdio::null());
        }
        Some(p) => {
            cmd.stderr(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(p)
                    .expect("open"),
            );
        }
        None => {
            cmd.stderr(std::fs::File::create(&err_path).expect("stderr file"));
        }
    }
    let closed_out = c.stdout_to.as_deref() == Some("closed");
    let closed_err = c.stderr_to.as_deref() == Some("closed");
    // SAFETY: only async-signal-safe calls (setrlimit, close) between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: MEMORY_LIMIT,
                rlim_max: MEMORY_LIMIT,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            let core = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &core);
            if closed_out {
                libc::close(1);
            }
            if closed_err {
                libc::close(2);
            }
            Ok(())
        });
    }
    let t0 = Instant::now();
    let mut child = cmd.spawn().expect("spawn ptxvm");
    let limit = c.timeout.unwrap_or(DEFAULT_TIMEOUT);
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if t0.elapsed() > limit {
            timed_out = true;
            let _ = child.kill();
            break child.wait().expect("wait");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    use std::os::unix::process::ExitStatusExt;
    Outcome {
        status: status.code(),
        signal: status.signal(),
        stdout: std::fs::read(&out_path).unwrap_or_default(),
        stderr: String::from_utf8_lossy(&std::fs::read(&err_path).unwrap_or_default()).into_owned(),
        elapsed: t0.elapsed(),
        timed_out,
    }
}

/// Checks one case; returns the problems found (empty when it passes).
fn check(c: &Case, scratch: &Path) -> (Vec<String>, Duration, String) {
    let tmp = scratch.join(
        c.path
            .strip_prefix(root().join("tests/hostile"))
            .unwrap_or(&c.path)
            .with_extension("")
            .to_string_lossy()
            .replace('/', "_"),
    );
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).expect("scratch dir");
    if let Some((head, body, tail, count)) = &c.generate {
        let mut text = head.clone();
        for i in 0..*count {
            let j = (i * 7919) % count.max(&1);
            text.push_str(
                &body
                    .replace("{i}", &i.to_string())
                    .replace("{j}", &j.to_string()),
            );
        }
        text.push_str(tail);
        std::fs::write(tmp.join("gen.ptx"), text).expect("generated input");
    }
    let o = run_once(c, &tmp);
    let mut bad = Vec::new();
    if o.timed_out {
        bad.push(format!("timed out after {:?}", o.elapsed));
    }
    if let Some(sig) = o.signal {
        bad.push(format!("killed by signal {sig}"));
    }
    if o.status == Some(101) {
        bad.push("exit 101 (a Rust panic)".into());
    }
    if o.stderr.contains("panicked at") {
        bad.push("stderr has a panic message".into());
    }
    if o.status != c.exit && !o.timed_out && o.signal.is_none() {
        bad.push(format!("exit {:?}, expected {:?}", o.status, c.exit));
    }
    for f in &c.stderr {
        if !o.stderr.contains(f.as_str()) {
            bad.push(format!("stderr lacks `{f}`"));
        }
    }
    let stdout = String::from_utf8_lossy(&o.stdout);
    for f in &c.stdout {
        if !stdout.contains(f.as_str()) {
            bad.push(format!("stdout lacks `{f}`"));
        }
    }
    if let Some(n) = c.stdout_min
        && o.stdout.len() < n
    {
        bad.push(format!(
            "stdout has {} bytes, expected at least {n}",
            o.stdout.len()
        ));
    }
    if let Some(n) = c.stdout_max
        && o.stdout.len() > n
    {
        bad.push(format!(
            "stdout has {} bytes, expected at most {n}",
            o.stdout.len()
        ));
    }
    for (f, t) in &c.file_contains {
        let p = f.replace("{tmp}", &tmp.display().to_string());
        let data = std::fs::read(&p).unwrap_or_default();
        if !String::from_utf8_lossy(&data).contains(t.as_str()) {
            bad.push(format!("`{p}` lacks `{t}`"));
        }
    }
    if c.deterministic && bad.is_empty() {
        let again = run_once(c, &tmp);
        if again.stdout != o.stdout || again.stderr != o.stderr || again.status != o.status {
            bad.push("a second run gave different output".into());
        }
    }
    (bad, o.elapsed, o.stderr)
}

#[test]
fn hostile_inputs() {
    let filter = std::env::var("HOSTILE_FILTER").unwrap_or_default();
    let verbose = std::env::var_os("HOSTILE_VERBOSE").is_some();
    let all = cases();
    assert!(
        all.len() >= MIN_CASES,
        "only {} hostile cases (at least {MIN_CASES} expected)",
        all.len()
    );
    let todo: Vec<Case> = all
        .into_iter()
        .filter(|c| c.path.to_string_lossy().contains(&filter))
        .collect();
    let scratch =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-{}", std::process::id()));
    let next = AtomicUsize::new(0);
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let slowest: Mutex<Vec<(Duration, String)>> = Mutex::new(Vec::new());
    let t0 = Instant::now();
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 4);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(c) = todo.get(i) else { return };
                    let name = c
                        .path
                        .strip_prefix(root())
                        .unwrap_or(&c.path)
                        .display()
                        .to_string();
                    let (bad, took, stderr) = check(c, &scratch);
                    if verbose {
                        eprintln!(
                            "{} {name} ({took:.2?})\n    {}",
                            if bad.is_empty() { "ok  " } else { "FAIL" },
                            stderr.trim_end().replace('\n', "\n    ")
                        );
                    }
                    slowest.lock().unwrap().push((took, name.clone()));
                    if !bad.is_empty() {
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("{name}:\n    {}", bad.join("\n    ")));
                    }
                }
            });
        }
    });
    let mut slow = slowest.into_inner().unwrap();
    slow.sort();
    eprintln!(
        "hostile suite: {} cases in {:.1?} ({workers} at a time); slowest: {}",
        todo.len(),
        t0.elapsed(),
        slow.iter()
            .rev()
            .take(3)
            .map(|(d, n)| format!("{n} {d:.1?}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let f = failures.into_inner().unwrap();
    if !verbose {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    assert!(
        f.is_empty(),
        "{} hostile cases failed:\n{}",
        f.len(),
        f.join("\n")
    );
}
