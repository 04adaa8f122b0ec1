//! Compiles the C references of the engines benchmark (`c/engines.c`) with the `cc` crate
//! and `-O3 -march=native -fopenmp`, links libgomp, and hands the exact compiler command
//! to the binary (`BENCH_C_COMPILER`, `BENCH_C_FLAGS`), which prints it with its results.

fn main() {
    println!("cargo:rerun-if-changed=c/engines.c");
    let mut build = cc::Build::new();
    build
        .file("c/engines.c")
        .opt_level(3)
        .debug(false)
        .flag("-march=native")
        .flag("-fopenmp");
    let compiler = build.get_compiler();
    let flags: Vec<String> = compiler
        .args()
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let flags = flags.join(" ");
    let version = std::process::Command::new(compiler.path())
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_owned))
        .unwrap_or_else(|| "unknown version".into());
    let cc = format!("{} ({version})", compiler.path().display());
    println!("cargo:warning=engines benchmark C references: {cc} {flags}");
    println!("cargo:rustc-env=BENCH_C_COMPILER={cc}");
    println!("cargo:rustc-env=BENCH_C_FLAGS={flags}");
    build.compile("ptxvm_bench_c");
    println!("cargo:rustc-link-lib=gomp");
}
