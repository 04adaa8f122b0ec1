//! The front end's resource limits: nesting past `MAX_NESTING` is a syntax error (never a
//! stack overflow), nesting up to it works on a small stack through every stage (parse,
//! lower, evaluate, print, reparse, drop), and sizes and register counts are checked.

use ptxvm_syntax::parser::MAX_NESTING;
use ptxvm_syntax::{DiagKind, Source};

/// The stack the front end gets in these tests: nesting up to the limit must fit in it.
const STACK: usize = 1 << 20;

const HDR: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// Every nesting construct at depth `n`.
fn nested(n: usize) -> Vec<(&'static str, String)> {
    let r = |s: &str, k: usize| s.repeat(k);
    vec![
        (
            "braces",
            format!(
                "{HDR}.visible .entry k()\n{{\n{}ret;{}\n}}\n",
                r("{", n - 1),
                r("}", n - 1)
            ),
        ),
        (
            "parens",
            format!("{HDR}.global .u32 g = {}1{};\n", r("(", n), r(")", n)),
        ),
        (
            "unary",
            format!("{HDR}.global .u32 g = {}1;\n", r("-", n - 1)),
        ),
        (
            "conditional",
            format!(
                "{HDR}.global .u32 g = {}1{};\n",
                r("1?", n - 1),
                r(":1", n - 1)
            ),
        ),
        (
            "initialiser",
            format!(
                "{HDR}.global .u32 g[1] = {}1{};\n",
                r("{", n - 1),
                r("}", n - 1)
            ),
        ),
        (
            "address",
            format!(
                "{HDR}.visible .entry k()\n{{\n.reg .b32 %r<2>;\nld.global.u32 %r1, {}0{};\nret;\n}}\n",
                r("[", n - 1),
                r("]", n - 1)
            ),
        ),
    ]
}

/// Runs the whole front end on a small stack.
fn front_end(text: String) -> Vec<ptxvm_syntax::Diagnostic> {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            let (src, _) = Source::new("t.ptx", text, None);
            let checked = ptxvm_ir::check(&src);
            let printed = ptxvm_syntax::printer::print(&checked.ast, &src.text);
            let (_, again) = ptxvm_syntax::parser::parse(&printed);
            let mut d = checked.diags;
            d.extend(again);
            d
        })
        .expect("spawn")
        .join()
        .expect("the front end panicked")
}

#[test]
fn nesting_up_to_the_limit_works_on_a_small_stack() {
    for (what, text) in nested(MAX_NESTING as usize - 8) {
        let d = front_end(text);
        assert!(
            d.iter().all(|d| d.kind != DiagKind::Syntax),
            "{what}: {:?}",
            d.first()
        );
    }
}

#[test]
fn nesting_past_the_limit_is_a_syntax_error() {
    for n in [MAX_NESTING as usize + 8, 20_000] {
        for (what, text) in nested(n) {
            let d = front_end(text);
            assert!(
                d.iter().any(|d| d.kind == DiagKind::Syntax
                    && d.message
                        .contains(&format!("nesting deeper than {MAX_NESTING}"))),
                "{what} at depth {n}: {:?}",
                d.first()
            );
        }
    }
}

#[test]
fn sizes_that_overflow_are_errors() {
    for decl in [
        ".global .b8 g[4294967296][4294967296];",
        ".global .b64 g[2305843009213693952];",
        ".shared .b8 s[1000000000000000000];",
    ] {
        let (src, _) = Source::new("t.ptx", format!("{HDR}{decl}\n"), None);
        let c = ptxvm_ir::check(&src);
        assert!(
            c.diags
                .iter()
                .any(|d| d.is_error() && d.message.contains("larger than")),
            "{decl}: {:?}",
            c.diags
        );
    }
}

#[test]
fn register_counts_are_bounded_per_function() {
    let regs: String = (0..3)
        .map(|i| format!(".reg .b32 %q{i}<1048576>;\n"))
        .collect();
    let (src, _) = Source::new(
        "t.ptx",
        format!("{HDR}.visible .entry k()\n{{\n{regs}ret;\n}}\n"),
        None,
    );
    let c = ptxvm_ir::check(&src);
    assert!(
        c.diags
            .iter()
            .any(|d| d.message.contains("too many registers")),
        "{:?}",
        c.diags
    );
    assert!(c.module.funcs.iter().all(|f| f.regs.len() <= 1 << 20));
}
