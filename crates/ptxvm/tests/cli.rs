//! The CLI contract: exit codes, rustc-style and JSON diagnostics, fmt and info.

use std::process::Command;

fn ptxvm(args: &[&str]) -> (i32, String) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let out = Command::new(env!("CARGO_BIN_EXE_ptxvm"))
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn check_accepts_the_bundled_example() {
    let (code, out) = ptxvm(&["check", "examples/vector_add.ptx"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.is_empty());
}

#[test]
fn check_reports_rustc_style() {
    let (code, out) = ptxvm(&["check", "examples/broken.ptx"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("error[operand-type]: operand `%f1` has type `.f32`"),
        "{out}"
    );
    assert!(out.contains("--> examples/broken.ptx:15:20"), "{out}");
    assert!(out.contains("15 | \tadd.s32 %r2, %r1, %f1;"), "{out}");
    assert!(
        out.contains("error[undeclared]: undeclared identifier `%r9`"),
        "{out}"
    );
    assert!(out.contains("due to 3 previous errors"), "{out}");
}

#[test]
fn check_json_is_one_object_per_diagnostic() {
    let (code, out) = ptxvm(&["check", "--message-format", "json", "examples/broken.ptx"]);
    assert_eq!(code, 1);
    let objs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), 3);
    assert_eq!(objs[0]["kind"], "operand-type");
    assert_eq!(objs[0]["line"], 15);
    assert_eq!(objs[2]["kind"], "undeclared");
}

#[test]
fn usage_errors_exit_2_and_missing_files_exit_1() {
    assert_eq!(ptxvm(&["frobnicate"]).0, 2);
    assert_eq!(ptxvm(&["check", "no/such/file.ptx"]).0, 1);
}

#[test]
fn fmt_output_checks_and_info_lists_parameters() {
    let (code, out) = ptxvm(&["fmt", "examples/vector_add.ptx"]);
    assert_eq!(code, 0);
    let tmp = std::env::temp_dir().join(format!("ptxvm-fmt-{}.ptx", std::process::id()));
    std::fs::write(&tmp, &out).unwrap();
    assert_eq!(ptxvm(&["check", tmp.to_str().unwrap()]).0, 0);
    let (code, info) = ptxvm(&["info", "examples/vector_add.ptx"]);
    assert_eq!(code, 0);
    assert!(info.contains("target: sm_80"), "{info}");
    assert!(
        info.contains(".param .u32 vec_add_f32_param_3  size 4 align 4 offset 24"),
        "{info}"
    );
    assert!(
        info.contains("registers: .b32 6, .b64 11, .f32 4, .pred 2"),
        "{info}"
    );
}

fn npy_f32(vals: &[f32]) -> Vec<u8> {
    let mut dict = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({},), }}",
        vals.len()
    );
    let pad = (64 - (10 + dict.len() + 1) % 64) % 64;
    dict.push_str(&" ".repeat(pad));
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    for v in vals {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

#[test]
fn run_executes_the_bundled_kernel_and_writes_npy_outputs() {
    let dir = std::env::temp_dir().join(format!("ptxvm-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let n = 1000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let b: Vec<f32> = (0..n).map(|i| 1.0 - i as f32).collect();
    std::fs::write(dir.join("a.npy"), npy_f32(&a)).unwrap();
    std::fs::write(dir.join("b.npy"), npy_f32(&b)).unwrap();
    let out = dir.join("out");
    let (code, _) = ptxvm(&[
        "run",
        "examples/vector_add.ptx",
        "--kernel",
        "vec_add_f32",
        "--grid",
        "4",
        "--block",
        "256",
        "--arg",
        dir.join("a.npy").to_str().unwrap(),
        "--arg",
        dir.join("b.npy").to_str().unwrap(),
        "--arg",
        &format!("zeros:f32:{n}"),
        "--arg",
        &format!("u32:{n}"),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let bytes = std::fs::read(out.join("arg2.npy")).unwrap();
    let data = &bytes[bytes.len() - 4 * n..];
    for i in 0..n {
        let c = f32::from_le_bytes(data[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(c.to_bits(), (a[i] + b[i]).to_bits(), "element {i}");
    }
    // The inputs come back unchanged, with their dtype and shape.
    assert_eq!(std::fs::read(out.join("arg0.npy")).unwrap(), npy_f32(&a));
}

#[test]
fn run_reports_argument_mismatches_and_faults() {
    let (code, _) = ptxvm(&[
        "run",
        "examples/vector_add.ptx",
        "--kernel",
        "vec_add_f32",
        "--grid",
        "1",
        "--block",
        "32",
        "--arg",
        "u32:1",
    ]);
    // Arguments that do not match the kernel are a usage error.
    assert_eq!(code, 2);
    // A null buffer pointer faults with the kernel, line and thread.
    let out = Command::new(env!("CARGO_BIN_EXE_ptxvm"))
        .args([
            "run",
            "examples/vector_add.ptx",
            "--kernel",
            "vec_add_f32",
            "--grid",
            "1",
            "--block",
            "32",
        ])
        .args([
            "--arg", "u64:0", "--arg", "u64:0", "--arg", "u64:0", "--arg", "u32:32",
        ])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("outside every allocation")
            && err.contains("in kernel `vec_add_f32`, PTX line"),
        "{err}"
    );
    assert!(err.contains("thread (0, 0, 0), lane 0"), "{err}");
}

#[test]
fn run_symbol_fills_and_dumps_module_variables() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("symbol-run");
    let _ = std::fs::remove_dir_all(&dir);
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_ptxvm"))
            .args([
                "run",
                "tests/fixtures/nvrtc12/atomic_cas_loops.sm_80.ptx",
                "--kernel",
                "spin_lock_increment",
                "--grid",
                "2",
                "--block",
                "64",
                "--arg",
                "s32:3",
            ])
            .args(extra)
            .current_dir(root)
            .output()
            .unwrap()
    };
    // g_counter starts at 100 (hex:, little-endian): 2 CTAs x 2 warps x 3 increments later it
    // is 112, written to DIR/g_counter.npy as the u8 bytes given.
    let out = run(&[
        "--symbol",
        "g_counter=hex:64000000",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let npy = std::fs::read(dir.join("g_counter.npy")).unwrap();
    assert_eq!(&npy[npy.len() - 4..], &112u32.to_le_bytes());
    // Unknown names and oversized values are usage errors naming the variable.
    let out = run(&["--symbol", "nope=zeros:u32:1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no `.global`/`.const` variable `nope`") && err.contains("g_counter"),
        "{err}"
    );
    let out = run(&["--symbol", "g_lock=zeros:u32:2"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("8 bytes given, but `g_lock` has 4"), "{err}");
}

#[test]
fn info_arch_prints_the_device_model() {
    let (code, out) = ptxvm(&["info", "--arch", "sm_103a"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("arch: sm_103a (B300)"), "{out}");
    assert!(out.contains("compute capability: 10.3"), "{out}");
    assert!(out.contains("tcgen05: yes"), "{out}");
    // CUDA 13's sm_110 is Thor's old sm_101.
    let (code, out) = ptxvm(&["info", "--arch", "sm_101a"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("arch: sm_110a (Jetson AGX Thor)"), "{out}");
    assert!(out.contains("compute capability: 11.0"), "{out}");
    assert!(out.contains("per SM: 1536 threads, 48 warps"), "{out}");
    let (code, out) = ptxvm(&["info", "--arch", "sm_80", "examples/vector_add.ptx"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("arch: sm_80 (A100)") && out.contains("target: sm_80"),
        "{out}"
    );
    assert_eq!(ptxvm(&["info", "--arch", "sm_61"]).0, 2);
    assert_eq!(ptxvm(&["info"]).0, 2);
}
