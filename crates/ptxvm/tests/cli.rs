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
