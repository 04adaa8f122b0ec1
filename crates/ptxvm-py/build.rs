//! Stages ptxvm's driver library and nvJitLink for the wheel: builds the `ptxvm-cuda`,
//! `ptxvm-nvjitlink` and `ptxvm-nvjitlink12` cdylibs with a nested cargo (in its own target
//! directory: the outer build holds the main one's lock) and copies them to
//! `wheel-data/data/lib/ptxvm/` as `libcuda.so.1`, `libnvJitLink.so.13` and
//! `libnvJitLink.so.12`, which maturin installs under the environment's prefix
//! (`<prefix>/lib/ptxvm/`, found by `ptxvm exec` as `<dir of ptxvm>/../lib/ptxvm`).
//! Set `PTXVM_PY_NO_DRIVER=1` to skip it (a `cargo check` of the workspace, say).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=PTXVM_PY_NO_DRIVER");
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("manifest dir"));
    let root = here.join("../..");
    for dir in [
        "crates/ptxvm-cuda/src",
        "crates/ptxvm-nvjitlink/src",
        "crates/ptxvm-nvjitlink/build.rs",
        "crates/ptxvm-vm/src",
        "crates/ptxvm-ir/src",
        "crates/ptxvm-fp/src",
        "crates/ptxvm-syntax/src",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
    }
    if std::env::var_os("PTXVM_PY_NO_DRIVER").is_some() {
        return;
    }
    let target = root.join("target/pystage");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(&root)
        .args([
            "build",
            "--release",
            "-p",
            "ptxvm-cuda",
            "-p",
            "ptxvm-nvjitlink",
            "-p",
            "ptxvm-nvjitlink12",
            "--target-dir",
        ])
        .arg(&target)
        .env_remove("CARGO_TARGET_DIR")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_STRIP", "true")
        .status()
        .expect("run cargo for the driver");
    assert!(status.success(), "building the driver library failed");
    let dest = here.join("wheel-data/data/lib/ptxvm");
    std::fs::create_dir_all(&dest).expect("create wheel-data/data/lib/ptxvm");
    for (built, staged) in [
        ("libcuda.so", "libcuda.so.1"),
        ("libptxvm_nvjitlink.so", "libnvJitLink.so.13"),
        ("libptxvm_nvjitlink12.so", "libnvJitLink.so.12"),
    ] {
        std::fs::copy(target.join("release").join(built), dest.join(staged))
            .unwrap_or_else(|e| panic!("copy {built}: {e}"));
    }
}
