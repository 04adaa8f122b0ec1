//! The command-line parser: the input is a command line, one argument per line (after the
//! program name). clap parses it, then every `--arg`/`--symbol` value of `run` is parsed;
//! nothing is executed and no file is read. Each line is also parsed on its own as an
//! argument spec, a dimension list and a byte count.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut args = vec![std::ffi::OsString::from("ptxvm")];
    for line in text.split('\n').take(64) {
        args.push(line.into());
        let _ = ptxvm::run::parse_spec(line);
        let _ = ptxvm::run::parse_dim3(line);
        let _ = ptxvm::run::parse_size(line);
    }
    let _ = ptxvm::parse_only(args);
});
