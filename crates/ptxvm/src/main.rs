//! The `ptxvm` executable.

fn main() -> std::process::ExitCode {
    ptxvm::cli_main()
}
