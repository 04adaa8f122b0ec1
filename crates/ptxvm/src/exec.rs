//! `ptxvm exec -- PROGRAM [ARGS]` runs a program with ptxvm as its CUDA driver, and
//! `ptxvm driver-path` prints the directory holding the driver library (`libcuda.so.1`).
//!
//! Where the driver is, first match wins:
//! 1. `$PTXVM_DRIVER_DIR` (a directory with `libcuda.so.1`);
//! 2. the installed layout: `<dir of ptxvm>/../lib/ptxvm/libcuda.so.1` (the Python package
//!    and `make install`-style trees);
//! 3. the cargo layout: `<dir of ptxvm>/libcuda.so` (the `ptxvm-cuda` crate's output, built
//!    by `cargo build`); the directory `<dir of ptxvm>/ptxvm-driver/` is made with the
//!    `libcuda.so.1` and `libcuda.so` links clients look for.
//!
//! What `exec` sets for the program (a variable the user already set is kept):
//! `LD_LIBRARY_PATH` (the driver directory first: NVIDIA's runtime, cuda-python, numba-cuda
//! and CuPy all `dlopen("libcuda.so.1")`), `NUMBA_CUDA_DRIVER` (read by older numba),
//! `TRITON_LIBCUDA_PATH` (Triton links its launcher against the driver found there),
//! `TRITON_PTXAS_PATH`/`TRITON_PTXAS_BLACKWELL_PATH` (the `ptxas` drop-in beside the driver),
//! `CUPY_COMPILE_WITH_PTX=1` and `CUPY_ACCELERATORS=` (CuPy hands the driver PTX instead
//! of cubins and leaves out its precompiled SASS-only CUB kernels), and the `PTXVM_*`
//! settings given as options.
//!
//! **nvJitLink.** The driver directory also holds ptxvm's nvJitLink (`libnvJitLink.so.13` and
//! `libnvJitLink.so.12`, crate `ptxvm-nvjitlink`), which links into ptxvm containers where
//! NVIDIA's links into SASS, and `exec` puts both in `LD_PRELOAD` (before any preload the user
//! set). `LD_LIBRARY_PATH` is not enough: cuda-python's loader (cuda-pathfinder, which
//! numba-cuda and cuda.core use) looks for `libnvJitLink.so.13`/`.12` first among the
//! libraries already loaded (`dlopen(soname, RTLD_NOLOAD)`), then in NVIDIA's wheels in
//! `site-packages` by absolute path, and only then through the loader's search path, so with
//! `nvidia-nvjitlink` installed NVIDIA's library would win. A preloaded library is loaded
//! before anything else and matches the SONAME check, so it wins in every process the program
//! starts (pytest workers, multiprocessing), for every loader that goes by SONAME, and for
//! programs linked against `-lnvJitLink`. ptxvm's nvJitLink still uses NVIDIA's for LTO-IR,
//! which it loads by path (see the `ptxvm-nvjitlink` crate docs).

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

/// The nvJitLink drop-ins in the driver directory, which `exec` preloads.
pub const NVJITLINK_SONAMES: [&str; 2] = ["libnvJitLink.so.13", "libnvJitLink.so.12"];

/// `ptxvm exec` options.
#[derive(clap::Args, Debug)]
pub struct ExecOpts {
    /// Emulated GPU (sets PTXVM_ARCH): sm_70, sm_75, sm_80 (default), sm_86, sm_89, sm_90a,
    /// sm_100a, sm_103a, sm_110a, sm_120a.
    #[arg(long)]
    pub arch: Option<String>,
    /// Host threads per kernel launch (sets PTXVM_THREADS; default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Driver messages (sets PTXVM_LOG): `errors` (default), `failures`, `api`.
    #[arg(long)]
    pub log: Option<String>,
    /// The program and its arguments.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

/// The directory holding `libcuda.so.1`.
pub fn driver_dir() -> Result<PathBuf, String> {
    if let Some(d) = std::env::var_os("PTXVM_DRIVER_DIR").filter(|d| !d.is_empty()) {
        let d = PathBuf::from(d);
        return if d.join("libcuda.so.1").is_file() {
            Ok(d)
        } else {
            Err(format!(
                "PTXVM_DRIVER_DIR={} has no libcuda.so.1",
                d.display()
            ))
        };
    }
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| format!("cannot locate the ptxvm executable: {e}"))?;
    let bin = exe.parent().unwrap_or(Path::new("/"));
    let installed = bin.join("../lib/ptxvm");
    if installed.join("libcuda.so.1").is_file() {
        return installed
            .canonicalize()
            .map_err(|e| format!("{}: {e}", installed.display()));
    }
    let built = bin.join("libcuda.so");
    if built.is_file() {
        let dir = bin.join("ptxvm-driver");
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let exe_name = exe
            .file_name()
            .map(|n| format!("../{}", n.to_string_lossy()));
        // The nvJitLink drop-ins (crate ptxvm-nvjitlink and its abi12 build), when built.
        let built_lib = |f: &str| bin.join(f).is_file().then(|| format!("../{f}"));
        for (name, target) in [
            ("libcuda.so.1", Some("../libcuda.so".to_string())),
            ("libcuda.so", Some("../libcuda.so".to_string())),
            ("ptxas", exe_name),
            ("libnvJitLink.so.13", built_lib("libptxvm_nvjitlink.so")),
            ("libnvJitLink.so.12", built_lib("libptxvm_nvjitlink12.so")),
        ] {
            let link = dir.join(name);
            let Some(target) = target else {
                // Not built (any more): no link, rather than a dangling one.
                if std::fs::symlink_metadata(&link).is_ok() && !link.exists() {
                    let _ = std::fs::remove_file(&link);
                }
                continue;
            };
            if std::fs::read_link(&link).ok().as_deref() != Some(Path::new(&target)) {
                let _ = std::fs::remove_file(&link);
                std::os::unix::fs::symlink(&target, &link)
                    .map_err(|e| format!("cannot create {}: {e}", link.display()))?;
            }
        }
        return Ok(dir);
    }
    Err(format!(
        "the ptxvm driver library (libcuda.so.1) was not found next to {}: build it with `cargo build --release -p ptxvm-cuda` (or set PTXVM_DRIVER_DIR)",
        exe.display()
    ))
}

/// The environment `exec` gives the program (name, value) for a driver directory.
pub fn environment(dir: &Path, o: &ExecOpts) -> Vec<(String, String)> {
    let d = dir.display().to_string();
    let mut env = Vec::new();
    let ld = match std::env::var("LD_LIBRARY_PATH") {
        Ok(old) if !old.is_empty() => format!("{d}:{old}"),
        _ => d.clone(),
    };
    env.push(("LD_LIBRARY_PATH".to_string(), ld));
    // ptxvm's nvJitLink, loaded first: see the module docs.
    let preload: Vec<String> = NVJITLINK_SONAMES
        .iter()
        .map(|n| dir.join(n))
        .filter(|p| p.is_file())
        .map(|p| p.display().to_string())
        .collect();
    if !preload.is_empty() {
        // The user's preloads follow (without ours again, under a nested `exec`).
        let old = std::env::var("LD_PRELOAD").unwrap_or_default();
        let mut all = preload.clone();
        all.extend(
            old.split([':', ' '])
                .filter(|p| !p.is_empty() && !preload.iter().any(|q| q == p))
                .map(str::to_string),
        );
        env.push(("LD_PRELOAD".to_string(), all.join(":")));
    }
    let mut keep = |k: &str, v: String| {
        if std::env::var_os(k).is_none() {
            env.push((k.to_string(), v));
        }
    };
    keep("NUMBA_CUDA_DRIVER", format!("{d}/libcuda.so.1"));
    keep("TRITON_LIBCUDA_PATH", d.clone());
    keep("TRITON_PTXAS_PATH", format!("{d}/ptxas"));
    keep("TRITON_PTXAS_BLACKWELL_PATH", format!("{d}/ptxas"));
    keep("CUPY_COMPILE_WITH_PTX", "1".into());
    keep("CUPY_ACCELERATORS", String::new());
    if let Some(a) = &o.arch {
        env.push(("PTXVM_ARCH".into(), a.clone()));
    }
    if let Some(t) = o.threads {
        env.push(("PTXVM_THREADS".into(), t.to_string()));
    }
    if let Some(l) = &o.log {
        env.push(("PTXVM_LOG".into(), l.clone()));
    }
    env
}

/// Replaces this process with the program; returns only on failure (with an exit code).
pub fn exec(o: &ExecOpts) -> Result<std::convert::Infallible, (String, u8)> {
    if let Some(a) = &o.arch
        && ptxvm_vm::arch::model(a).is_none()
    {
        return Err((
            format!(
                "--arch {a} is not an emulated GPU (known: {})",
                ptxvm_vm::arch::names().join(", ")
            ),
            2,
        ));
    }
    let dir = driver_dir().map_err(|e| (e, 1))?;
    let (prog, args) = o
        .command
        .split_first()
        .ok_or_else(|| ("no program given".to_string(), 2))?;
    let mut cmd = std::process::Command::new(prog);
    cmd.args(args);
    for (k, v) in environment(&dir, o) {
        cmd.env(k, v);
    }
    let e = cmd.exec();
    let code = if e.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        126
    };
    Err((format!("cannot run `{prog}`: {e}"), code))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> ExecOpts {
        ExecOpts {
            arch: None,
            threads: None,
            log: None,
            command: vec!["true".into()],
        }
    }

    fn get<'a>(env: &'a [(String, String)], k: &str) -> Option<&'a str> {
        env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
    }

    #[test]
    fn preloads_the_nvjitlink_libraries_of_the_driver_directory() {
        let dir = std::env::temp_dir().join(format!("ptxvm-exec-env-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("libcuda.so.1"), b"").unwrap();
        let env = environment(&dir, &opts());
        assert_eq!(get(&env, "LD_PRELOAD"), None, "nothing to preload");
        std::fs::write(dir.join("libnvJitLink.so.13"), b"").unwrap();
        std::fs::write(dir.join("libnvJitLink.so.12"), b"").unwrap();
        let env = environment(&dir, &opts());
        let pre = get(&env, "LD_PRELOAD").expect("LD_PRELOAD");
        let d = dir.display();
        assert!(
            pre.starts_with(&format!("{d}/libnvJitLink.so.13:{d}/libnvJitLink.so.12")),
            "{pre}"
        );
        assert!(
            get(&env, "LD_LIBRARY_PATH")
                .unwrap()
                .starts_with(&d.to_string())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
