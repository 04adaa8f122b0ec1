//! Parser, preprocessor and printer behaviour on small inputs.

use ptxvm_syntax::ast::{Item, Operand, Stmt};
use ptxvm_syntax::{DiagKind, Source, parser::parse, printer::print};

const K: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
.visible .entry k(.param .u64 p, .param .align 8 .b8 s[16])\n.maxntid 128, 1, 1\n{\n\
\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.shared .align 4 .b8 buf[64];\n\
\tmov.u32 %r1, %tid.x;\n\tsetp.lt.u32 %p1, %r1, 0x10U;\n\t@!%p1 bra $L1;\n\
\tld.shared.v2.u32 {%r2, _}, [buf+8];\n\tshfl.sync.bfly.b32 %r3|%p1, %r2, 16, 31, -1;\n\
$L1:\n\tret;\n}\n";

#[test]
fn parses_a_kernel_with_every_operand_shape() {
    let (m, d) = parse(K);
    assert!(d.is_empty(), "{d:?}");
    let Item::Func(f) = &m.items[3] else {
        panic!("expected a function")
    };
    assert_eq!(f.params.as_ref().unwrap().len(), 2);
    assert_eq!(f.directives.len(), 1);
    let body = f.body.as_ref().unwrap();
    let instrs: Vec<_> = body
        .stmts
        .iter()
        .filter_map(|s| {
            if let Stmt::Instr(i) = s {
                Some(i)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(instrs.len(), 6);
    assert!(matches!(
        instrs[0].operands[1],
        Operand::Name { comp: Some(_), .. }
    ));
    assert!(instrs[2].guard.is_some_and(|(neg, _)| neg));
    assert!(matches!(instrs[3].operands[0], Operand::Vector { .. }));
    assert!(matches!(instrs[4].operands[0], Operand::Pair { .. }));
}

#[test]
fn printing_is_a_fixed_point() {
    let (m, _) = parse(K);
    let once = print(&m, K);
    let (m2, d2) = parse(&once);
    assert!(d2.is_empty(), "{d2:?}\n{once}");
    assert_eq!(print(&m2, &once), once);
}

#[test]
fn errors_are_reported_and_parsing_goes_on() {
    let src = ".version 8.0\n.target sm_80\n.visible .entry k()\n{\n\tadd.s32 %r1, %r2\n\tret;\n\tmov.u32 %r1, 0f123;\n}\n";
    let (_, d) = parse(src);
    assert!(d.len() >= 2, "{d:?}");
    assert!(d.iter().all(|x| x.kind == DiagKind::Syntax));
}

#[test]
fn garbage_never_panics() {
    for s in [
        "",
        "{",
        "}",
        ".entry",
        ".version",
        "@",
        "@@DWARF x",
        "[",
        "add.s32 {",
        "/* unterminated",
        "\"",
        ".func (",
        "%r<",
        ".global .b8 x[] = {1,{2,",
        "\u{0}\u{ff}",
    ] {
        let _ = parse(s);
    }
}

#[test]
fn preprocessor_includes_and_defines() {
    let dir = std::env::temp_dir().join(format!("ptxvm-pp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("inc.ptx"), ".address_size 64\n").unwrap();
    let text =
        ".version 8.0\n.target sm_80\n#define N 4\n#include \"inc.ptx\"\n.global .b32 x[N];\n";
    let (src, d) = Source::new("main.ptx", text.to_string(), Some(&dir));
    assert!(d.is_empty(), "{d:?}");
    assert!(src.text.contains(".address_size 64") && src.text.contains("x[4]"));
    // Diagnostics map back to the original file and line.
    let off = src.text.find("x[4]").unwrap() as u32;
    let loc = src.locate(ptxvm_syntax::Span {
        start: off,
        end: off + 1,
    });
    assert_eq!((loc.file, loc.line), ("main.ptx", 5));
    let (_, d) = Source::new("m.ptx", "#if 1\n".into(), None);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].kind, DiagKind::Preprocessor);
}
