//! The Python package's `ptxvm` executable: the same command line as `crates/ptxvm`.

fn main() -> std::process::ExitCode {
    ptxvm::cli_main()
}
