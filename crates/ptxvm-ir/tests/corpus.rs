//! Whole-corpus tests: every real-compiler fixture is accepted and survives a `fmt` round
//! trip with the same IR; every negative case is rejected on its marked line with its
//! kind; and on the ptxas-labelled mutation corpus the checker agrees with ptxas often
//! enough (the threshold of the front-end issue, 97%).

use ptxvm_ir::check;
use ptxvm_syntax::{DiagKind, Source, printer};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ptx_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ptx") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn render(src: &Source, d: &ptxvm_syntax::Diagnostic) -> String {
    let l = src.locate(d.span);
    format!(
        "{}:{}:{}: {}: {}",
        l.file,
        l.line,
        l.col,
        d.kind.as_str(),
        d.message
    )
}

#[test]
fn fixtures_are_accepted_and_round_trip() {
    let files = ptx_files(&root().join("tests/fixtures"));
    assert!(
        files.len() >= 120,
        "fixture corpus has only {} files",
        files.len()
    );
    let mut failures = Vec::new();
    for f in &files {
        let (src, pre) = Source::load(f).unwrap();
        let c = check(&src);
        let errs: Vec<String> = pre
            .iter()
            .chain(&c.diags)
            .filter(|d| d.is_error())
            .map(|d| render(&src, d))
            .collect();
        if !errs.is_empty() {
            failures.push(format!(
                "{}: {}",
                f.display(),
                errs[..errs.len().min(3)].join("\n  ")
            ));
            continue;
        }
        // fmt round trip: the printed text parses to the same IR, and printing is stable.
        let printed = printer::print(&c.ast, &src.text);
        let (src2, _) = Source::new("printed.ptx", printed.clone(), None);
        let c2 = check(&src2);
        if c2.has_errors() {
            let e: Vec<String> = c2
                .diags
                .iter()
                .filter(|d| d.is_error())
                .take(3)
                .map(|d| render(&src2, d))
                .collect();
            failures.push(format!(
                "{}: printed form does not check:\n  {}",
                f.display(),
                e.join("\n  ")
            ));
            continue;
        }
        if c.module.structure() != c2.module.structure() {
            failures.push(format!("{}: IR differs after fmt round trip", f.display()));
            continue;
        }
        if printer::print(&c2.ast, &src2.text) != printed {
            failures.push(format!("{}: fmt is not idempotent", f.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn negative_cases_are_rejected_on_their_line() {
    let files = ptx_files(&root().join("tests/negative"));
    assert!(
        files.len() >= 80,
        "negative corpus has only {} files",
        files.len()
    );
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let kind = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// kind:"))
            .map(str::trim)
            .and_then(DiagKind::from_name)
            .unwrap_or_else(|| panic!("{}: first line must be `// kind: KIND`", f.display()));
        let line = text
            .lines()
            .position(|l| l.contains("~ERROR"))
            .unwrap_or_else(|| panic!("{}: no `// ~ERROR` marker", f.display()))
            as u32
            + 1;
        let (src, pre) = Source::new(&f.display().to_string(), text.clone(), f.parent());
        let c = check(&src);
        let diags: Vec<_> = pre
            .iter()
            .chain(&c.diags)
            .filter(|d| d.is_error())
            .collect();
        if !diags
            .iter()
            .any(|d| d.kind == kind && src.locate(d.span).line == line)
        {
            let got: Vec<String> = diags.iter().take(3).map(|d| render(&src, d)).collect();
            failures.push(format!(
                "{}: expected {} on line {line}; got:\n  {}",
                f.display(),
                kind.as_str(),
                got.join("\n  ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} negative cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A mutation record of `tests/mutants/mutants.jsonl` (parsed by hand: the format is flat).
struct Mutant {
    fixture: String,
    line: usize,
    op: String,
    text: Option<String>,
    ptxas_accepts: bool,
    /// The `-arch` ptxas was run with.
    arch: Option<(u32, bool)>,
}

fn json_str(obj: &str, key: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(obj).ok()?;
    v.get(key)?.as_str().map(str::to_string)
}

fn parse_mutant(line: &str) -> Option<Mutant> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    Some(Mutant {
        fixture: v.get("fixture")?.as_str()?.to_string(),
        line: v.get("line")?.as_u64()? as usize,
        op: v.get("op")?.as_str()?.to_string(),
        text: v.get("text").and_then(|t| t.as_str()).map(str::to_string),
        ptxas_accepts: json_str(line, "ptxas")? == "accept",
        arch: v
            .get("arch")
            .and_then(|a| a.as_str())
            .and_then(ptxvm_ir::CheckOptions::parse_arch),
    })
}

/// Applies a mutation to a fixture's text (lines split on `\n`).
fn apply(text: &str, m: &Mutant) -> String {
    let mut lines: Vec<&str> = text.split('\n').collect();
    let i = m.line - 1;
    match m.op.as_str() {
        "delete" => {
            lines.remove(i);
        }
        "insert_after" => lines.insert(i + 1, m.text.as_deref().unwrap_or("")),
        _ => lines[i] = m.text.as_deref().unwrap_or(""),
    }
    lines.join("\n")
}

#[test]
fn mutants_agree_with_ptxas() {
    let path = root().join("tests/mutants/mutants.jsonl");
    let Ok(data) = std::fs::read_to_string(&path) else {
        panic!("missing {}", path.display());
    };
    let mut total = 0;
    let mut agree = 0;
    let mut cache: std::collections::HashMap<String, String> = Default::default();
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let m = parse_mutant(line).unwrap_or_else(|| panic!("bad mutant record: {line}"));
        let base = cache
            .entry(m.fixture.clone())
            .or_insert_with(|| std::fs::read_to_string(root().join(&m.fixture)).unwrap())
            .clone();
        let text = apply(&base, &m);
        let (src, pre) = Source::new("mutant.ptx", text, None);
        let opts = ptxvm_ir::CheckOptions { arch: m.arch };
        let ok =
            !ptxvm_ir::check_with(&src, &opts).has_errors() && !pre.iter().any(|d| d.is_error());
        total += 1;
        if ok == m.ptxas_accepts {
            agree += 1;
        }
    }
    assert!(total >= 2000, "mutation corpus has only {total} mutants");
    let rate = agree as f64 / total as f64;
    assert!(
        rate >= 0.97,
        "agreement with ptxas {agree}/{total} = {:.2}% is under 97%",
        rate * 100.0
    );
}
