//! The ptxas drop-in (`ptxvm ptxas`) on the mutation corpus (`tests/mutants/mutants.jsonl`:
//! fixtures with one line changed, each labelled with what NVIDIA's ptxas 12.9 said): it must
//! accept or reject every mutant as `ptxvm check` does (whose agreement with ptxas,
//! ≥ 97%, is checked by `crates/ptxvm-ir/tests/corpus.rs`), and every rejection must carry
//! a diagnostic in ptxas's format naming the file, the line and the column.
//! Each mutant runs as a child process of the real binary, two at a time.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Mutant {
    fixture: String,
    line: usize,
    op: String,
    text: Option<String>,
    ptxas_accepts: bool,
    arch: String,
}

fn parse(line: &str) -> Mutant {
    let v: serde_json::Value = serde_json::from_str(line).expect("a mutant record");
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    Mutant {
        fixture: s("fixture").expect("fixture"),
        line: v.get("line").and_then(|x| x.as_u64()).expect("line") as usize,
        op: s("op").expect("op"),
        text: s("text"),
        ptxas_accepts: s("ptxas").as_deref() == Some("accept"),
        arch: s("arch").unwrap_or_else(|| "sm_80".into()),
    }
}

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

/// (check accepts, drop-in exit status, drop-in stderr) of one mutant.
fn judge(dir: &Path, k: usize, m: &Mutant, text: &str) -> Result<(bool, i32, String), String> {
    let file = dir.join(format!("m{k}.ptx"));
    std::fs::write(&file, text).map_err(|e| e.to_string())?;
    let check = Command::new(env!("CARGO_BIN_EXE_ptxvm"))
        .args(["check", "--arch", &m.arch])
        .arg(&file)
        .output()
        .map_err(|e| e.to_string())?;
    let out = Command::new(env!("CARGO_BIN_EXE_ptxvm"))
        .args(["ptxas", &format!("-arch={}", m.arch), "-o"])
        .arg(dir.join(format!("m{k}.cubin")))
        .arg(&file)
        .output()
        .map_err(|e| e.to_string())?;
    Ok((
        check.status.success(),
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

#[test]
fn ptxas_dropin_agrees_with_check_on_the_mutation_corpus() {
    let data = std::fs::read_to_string(root().join("tests/mutants/mutants.jsonl"))
        .expect("tests/mutants/mutants.jsonl");
    let mutants: Vec<Mutant> = data
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(parse)
        .collect();
    assert!(mutants.len() >= 2000, "only {} mutants", mutants.len());
    let dir = std::env::temp_dir().join(format!("ptxvm-ptxas-mutants-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut cache = std::collections::HashMap::new();
    let texts: Vec<String> = mutants
        .iter()
        .map(|m| {
            let base = cache
                .entry(m.fixture.clone())
                .or_insert_with(|| std::fs::read_to_string(root().join(&m.fixture)).unwrap());
            apply(base, m)
        })
        .collect();
    let results: Vec<Result<(bool, i32, String), String>> = std::thread::scope(|s| {
        let half = mutants.len() / 2;
        let (dir, texts, mutants) = (&dir, &texts, &mutants);
        let h = s.spawn(move || {
            (half..mutants.len())
                .map(|k| judge(dir, k, &mutants[k], &texts[k]))
                .collect::<Vec<_>>()
        });
        let mut v: Vec<_> = (0..half)
            .map(|k| judge(dir, k, &mutants[k], &texts[k]))
            .collect();
        v.extend(h.join().unwrap());
        v
    });
    let _ = std::fs::remove_dir_all(&dir);
    let (mut differ, mut unlocated, mut agree_ptxas) = (Vec::new(), Vec::new(), 0);
    for (k, (m, r)) in mutants.iter().zip(&results).enumerate() {
        let (check_ok, status, stderr) = r.as_ref().unwrap_or_else(|e| panic!("mutant {k}: {e}"));
        let dropin_ok = *status == 0;
        if dropin_ok != *check_ok {
            differ.push(format!(
                "mutant {k} ({} line {}): check {}, drop-in exit {status}:\n{stderr}",
                m.fixture,
                m.line,
                if *check_ok { "accepts" } else { "rejects" }
            ));
        }
        agree_ptxas += (dropin_ok == m.ptxas_accepts) as usize;
        // A rejection names file, line and column: `ptxas FILE, line N; error   : … (column C)`.
        let located = stderr.lines().any(|l| {
            l.starts_with("ptxas ")
                && l.contains(&format!("m{k}.ptx, line "))
                && l.contains("; error")
                && l.contains("(column ")
        });
        if !dropin_ok && !located {
            unlocated.push(format!("mutant {k}: {stderr}"));
        }
    }
    let n = mutants.len();
    eprintln!(
        "{n} mutants: the drop-in agrees with ptxas on {agree_ptxas} ({:.2}%), differs from check on {}",
        100.0 * agree_ptxas as f64 / n as f64,
        differ.len()
    );
    assert!(
        differ.is_empty(),
        "{} mutants judged differently by the drop-in and check:\n{}",
        differ.len(),
        differ
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        unlocated.is_empty(),
        "{} rejections without a located diagnostic:\n{}",
        unlocated.len(),
        unlocated
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        agree_ptxas * 100 >= n * 97,
        "agreement with ptxas under 97%"
    );
}
