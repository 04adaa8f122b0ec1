//! The real-client test of the driver: the nvcc-built programs in `clients/native` (NVIDIA's
//! own runtime, static and shared, CUDA 13 and 12, and driver-API programs; sources, build
//! script and expected transcripts beside them) run against this crate's `libcuda.so`, and
//! each one's stdout must equal its transcript exactly, its exit code must match, and its
//! stderr must contain the expected fragments (ptxvm's fault diagnostics).
//!
//! The static-runtime and driver-API programs need nothing but this driver and run here.
//! The shared-runtime ones need NVIDIA's `libcudart.so.13`/`.so.12` from pip: they run when
//! `PTXVM_CUDART13_DIR`/`PTXVM_CUDART12_DIR` name the directories holding them (the client
//! tier, `tools/client-tier.sh`, sets both), and this test says how many it left to it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The driver this test run built (`target/<profile>/libcuda.so`), behind a `libcuda.so.1`.
fn driver_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    let profile = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>");
    // `cargo test` builds the cdylib into `deps/` (only `cargo build` copies it up a level,
    // and that copy may be stale): prefer the one this test run built.
    let lib = [profile.join("deps/libcuda.so"), profile.join("libcuda.so")]
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "{}/deps/libcuda.so is missing: the driver crate's cdylib was not built",
                profile.display()
            )
        });
    let dir = profile.join("native-clients-driver");
    std::fs::create_dir_all(&dir).expect("driver dir");
    let link = dir.join("libcuda.so.1");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&lib, &link).expect("symlink");
    dir
}

fn run(
    exe: &Path,
    args: &[String],
    ld: &str,
    timeout: Duration,
) -> Result<(i32, Vec<u8>, Vec<u8>), String> {
    let mut child = Command::new(exe)
        .args(args)
        .env("LD_LIBRARY_PATH", ld)
        .env_remove("PTXVM_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut out, &mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut err, &mut v);
        v
    });
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if t0.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("timed out after {timeout:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let code = status.code().unwrap_or_else(|| {
        use std::os::unix::process::ExitStatusExt;
        128 + status.signal().unwrap_or(0)
    });
    Ok((
        code,
        t_out.join().unwrap_or_default(),
        t_err.join().unwrap_or_default(),
    ))
}

#[test]
fn native_client_programs() {
    let root = repo().join("clients/native");
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("manifest.json")).expect("manifest"),
    )
    .expect("manifest json");
    let drv = driver_dir();
    let rt13 = std::env::var("PTXVM_CUDART13_DIR")
        .ok()
        .filter(|s| !s.is_empty());
    let rt12 = std::env::var("PTXVM_CUDART12_DIR")
        .ok()
        .filter(|s| !s.is_empty());
    let (mut ran, mut left, mut failures) = (0, 0, Vec::new());
    for p in manifest["programs"].as_array().expect("programs") {
        let name = p["name"].as_str().expect("name");
        let args: Vec<String> = p["args"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let want_exit = p["exit"].as_i64().unwrap_or(0) as i32;
        let want_out =
            std::fs::read(root.join(p["stdout"].as_str().expect("stdout"))).expect("transcript");
        let frags: Vec<&str> = p["stderr_contains"]
            .as_array()
            .map(|a| a.iter().filter_map(|x| x.as_str()).collect())
            .unwrap_or_default();
        let timeout = Duration::from_secs(p["timeout_s"].as_u64().unwrap_or(60) * 3);
        for v in p["variants"].as_array().expect("variants") {
            let v = v.as_str().expect("variant");
            let runtime = match v {
                "static13" | "driver" => Some(String::new()),
                "shared13" => rt13.clone(),
                "shared12" => rt12.clone(),
                other => panic!("unknown variant {other}"),
            };
            let Some(runtime) = runtime else {
                left += 1;
                continue;
            };
            let ld = if runtime.is_empty() {
                drv.display().to_string()
            } else {
                format!("{}:{runtime}", drv.display())
            };
            let exe = root.join("bin").join(format!("{name}.{v}"));
            ran += 1;
            match run(&exe, &args, &ld, timeout) {
                Err(e) => failures.push(format!("{name}.{v}: {e}")),
                Ok((code, out, err)) => {
                    let mut why = Vec::new();
                    if code != want_exit {
                        why.push(format!("exit {code}, expected {want_exit}"));
                    }
                    if out != want_out {
                        let got = String::from_utf8_lossy(&out);
                        let want = String::from_utf8_lossy(&want_out);
                        let first = got
                            .lines()
                            .zip(want.lines())
                            .position(|(a, b)| a != b)
                            .unwrap_or(got.lines().count().min(want.lines().count()));
                        why.push(format!(
                            "stdout differs at line {}: got {:?}, expected {:?}",
                            first + 1,
                            got.lines().nth(first).unwrap_or("<end>"),
                            want.lines().nth(first).unwrap_or("<end>")
                        ));
                    }
                    let err_s = String::from_utf8_lossy(&err);
                    for f in &frags {
                        if !err_s.contains(f) {
                            why.push(format!("stderr lacks {f:?}"));
                        }
                    }
                    if !why.is_empty() {
                        failures.push(format!(
                            "{name}.{v}: {}\n    stderr tail: {}",
                            why.join("; "),
                            err_s
                                .chars()
                                .rev()
                                .take(400)
                                .collect::<String>()
                                .chars()
                                .rev()
                                .collect::<String>()
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "native clients: {ran} run, {} failed; {left} shared-runtime variants left to the client tier (set PTXVM_CUDART13_DIR/PTXVM_CUDART12_DIR to run them here)",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "native client failures:\n{}",
        failures.join("\n")
    );
    assert!(
        ran >= 37,
        "too few programs ran ({ran}): is the manifest complete?"
    );
}
