//! A source file as the front end sees it: the original text(s), the preprocessed text
//! that is lexed, and the map from preprocessed lines back to original file and line.
//!
//! Preprocessing (§4.1: PTX uses the C preprocessor's `#` lines) supports `#include
//! "file"` of a sibling file, object-like `#define NAME text`, `#undef`, `#ifdef`,
//! `#ifndef`, `#else`, `#endif`, and ignores line markers (`# 12 "k.cu"`, `#line`); any
//! other `#` line is a `preprocessor` diagnostic.
//! A text without `#` lines is used as it is, with no copy of its line structure.

use crate::diag::{DiagKind, Diagnostic};
use crate::span::{LineIndex, Span};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest source file the front end reads (the main file or one `#include`d file):
/// 256 MiB. Larger files are refused with an error instead of exhausting memory.
pub const MAX_SOURCE_BYTES: u64 = 256 << 20;
/// Largest preprocessed text (after `#include` and `#define` expansion): 256 MiB.
pub const MAX_PREPROCESSED_BYTES: usize = 256 << 20;
/// Deepest `#include` nesting.
pub const MAX_INCLUDE_DEPTH: u32 = 16;
/// Most `#include` lines processed in one source (a file that includes another twice at
/// every level would otherwise expand exponentially).
pub const MAX_INCLUDES: usize = 1024;

/// Reads at most `limit` bytes of `path`; a longer file (or an endless one such as
/// `/dev/zero`) is an error naming the limit. Pipes and character devices are read up to
/// the limit, so `/dev/stdin` works.
pub fn read_limited(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let f = std::fs::File::open(path)?;
    let meta = f.metadata()?;
    if meta.is_dir() {
        return Err(std::io::Error::other("it is a directory"));
    }
    if meta.is_file() && meta.len() > limit {
        return Err(std::io::Error::other(format!(
            "it has {} bytes, more than the limit of {limit}",
            meta.len()
        )));
    }
    // Memory is reserved fallibly, so a file larger than the host can hold is an error,
    // not an allocation failure (which aborts).
    let oom = |n: u64| {
        std::io::Error::new(
            std::io::ErrorKind::OutOfMemory,
            format!("out of host memory reading {n} bytes"),
        )
    };
    let mut out: Vec<u8> = Vec::new();
    if meta.is_file() {
        out.try_reserve_exact(meta.len() as usize)
            .map_err(|_| oom(meta.len()))?;
    }
    let mut src = f.take(limit.saturating_add(1));
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = match src.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        out.try_reserve(n)
            .map_err(|_| oom(out.len() as u64 + n as u64))?;
        out.extend_from_slice(&chunk[..n]);
        if out.len() as u64 > limit {
            return Err(std::io::Error::other(format!(
                "it is longer than the limit of {limit} bytes"
            )));
        }
    }
    Ok(out)
}

/// One loaded source, ready to parse.
#[derive(Debug, Clone)]
pub struct Source {
    /// File names: index 0 is the main file, then included files.
    pub files: Vec<String>,
    /// The preprocessed text, which every span points into.
    pub text: String,
    /// Built on first use (only diagnostics need it).
    lines: std::sync::OnceLock<LineIndex>,
    /// Per preprocessed line (0-based): (file index, 1-based original line). `None` when
    /// no preprocessing happened (line n is line n of file 0).
    line_map: Option<Vec<(u32, u32)>>,
    /// Original texts, per file, for rendering source lines.
    originals: Vec<String>,
    /// Line indexes of the originals, built on first use.
    original_lines: Vec<std::sync::OnceLock<LineIndex>>,
}

/// Where a span starts, in original coordinates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location<'a> {
    pub file: &'a str,
    pub line: u32,
    pub col: u32,
    /// The whole source line.
    pub line_text: &'a str,
}

impl Source {
    /// A source from text, preprocessing it if it has `#` lines; includes are resolved
    /// relative to `dir` (none when `dir` is `None`). Returns the diagnostics of
    /// preprocessing (their spans point into the preprocessed text).
    pub fn new(name: &str, text: String, dir: Option<&Path>) -> (Source, Vec<Diagnostic>) {
        let has_hash = text.contains('#') && text.lines().any(|l| l.trim_start().starts_with('#'));
        if !has_hash {
            return (
                Source {
                    files: vec![name.to_string()],
                    originals: Vec::new(),
                    original_lines: Vec::new(),
                    text,
                    lines: std::sync::OnceLock::new(),
                    line_map: None,
                },
                Vec::new(),
            );
        }
        let mut pp = Pre {
            files: vec![name.to_string()],
            originals: vec![text.clone()],
            out: String::with_capacity(text.len()),
            map: Vec::new(),
            defines: HashMap::new(),
            pending: Vec::new(),
            dir: dir.map(Path::to_path_buf),
            depth: 0,
            includes: 0,
            overflow: false,
        };
        pp.run(0, &text);
        let lines = LineIndex::new(&pp.out);
        let diags = pp
            .pending
            .into_iter()
            .map(|(line, msg)| {
                let sp = lines.line_span(line + 1, &pp.out);
                Diagnostic::error(DiagKind::Preprocessor, sp, msg)
            })
            .collect();
        (
            Source {
                files: pp.files,
                original_lines: pp.originals.iter().map(|_| Default::default()).collect(),
                originals: pp.originals,
                text: pp.out,
                lines: lines.into(),
                line_map: Some(pp.map),
            },
            diags,
        )
    }

    /// Reads and preprocesses a file (at most [`MAX_SOURCE_BYTES`]).
    pub fn load(path: &Path) -> std::io::Result<(Source, Vec<Diagnostic>)> {
        let bytes = read_limited(path, MAX_SOURCE_BYTES)?;
        let text = String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        Ok(Source::new(
            &path.display().to_string(),
            text,
            path.parent(),
        ))
    }

    /// The line index of the preprocessed text.
    pub fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// Original file, line, column and line text of a span's start.
    pub fn locate(&self, span: Span) -> Location<'_> {
        let lines = self.lines();
        let (pline, col) = lines.line_col(span.start);
        let ptext = lines.line_span(pline, &self.text).text(&self.text);
        match &self.line_map {
            None => Location {
                file: &self.files[0],
                line: pline,
                col,
                line_text: ptext,
            },
            Some(map) => {
                let (f, l) = map.get(pline as usize - 1).copied().unwrap_or((0, pline));
                let orig = &self.originals[f as usize];
                let idx = self.original_lines[f as usize].get_or_init(|| LineIndex::new(orig));
                let line_text = match idx.line_span(l, orig).text(orig) {
                    "" if l as usize > idx.count() => ptext,
                    t => t,
                };
                // The column counts bytes of the preprocessed line; where a `#define` made
                // it longer or shorter, keep it on a character of the original line.
                let mut c = (col as usize).saturating_sub(1);
                if c <= line_text.len() {
                    while !line_text.is_char_boundary(c) {
                        c -= 1;
                    }
                }
                let col = c as u32 + 1;
                // Columns are exact unless a #define changed the line's length before it.
                Location {
                    file: &self.files[f as usize],
                    line: l,
                    col,
                    line_text,
                }
            }
        }
    }
}

/// Longest line `#define` expansion may produce: 1 MiB.
const MAX_EXPANDED_LINE: usize = 1 << 20;

struct Pre {
    files: Vec<String>,
    originals: Vec<String>,
    out: String,
    map: Vec<(u32, u32)>,
    defines: HashMap<String, String>,
    /// (preprocessed line index, message)
    pending: Vec<(u32, String)>,
    dir: Option<PathBuf>,
    depth: u32,
    /// `#include` lines processed so far.
    includes: usize,
    /// Set once the output reached [`MAX_PREPROCESSED_BYTES`]: the rest is dropped.
    overflow: bool,
}

impl Pre {
    fn emit(&mut self, file: u32, line: u32, text: &str) {
        if self.overflow {
            return;
        }
        if self.out.len() + text.len() + 1 > MAX_PREPROCESSED_BYTES {
            self.overflow = true;
            let idx = self.map.len() as u32;
            self.out.push('\n');
            self.map.push((file, line));
            self.pending.push((
                idx,
                format!(
                    "the preprocessed source exceeds {MAX_PREPROCESSED_BYTES} bytes (ptxvm's limit); the rest is ignored"
                ),
            ));
            return;
        }
        self.out.push_str(text);
        self.out.push('\n');
        self.map.push((file, line));
    }

    fn error(&mut self, file: u32, line: u32, msg: String) {
        let idx = self.map.len() as u32;
        self.emit(file, line, "");
        self.pending.push((idx, msg));
    }

    fn run(&mut self, file: u32, text: &str) {
        // Stack of "this branch is active" flags for #ifdef/#ifndef.
        let mut active: Vec<bool> = Vec::new();
        let on = |a: &Vec<bool>| a.iter().all(|&b| b);
        for (i, raw) in text.lines().enumerate() {
            if self.overflow {
                return;
            }
            let line = i as u32 + 1;
            let t = raw.trim_start();
            if let Some(rest) = t.strip_prefix('#') {
                let rest = rest.trim_start();
                let (word, arg) = rest
                    .split_once(char::is_whitespace)
                    .map_or((rest, ""), |(a, b)| (a, b.trim()));
                match word {
                    "ifdef" | "ifndef" => {
                        let d = self.defines.contains_key(arg);
                        active.push(if word == "ifdef" { d } else { !d });
                    }
                    "else" => match active.last_mut() {
                        Some(b) => *b = !*b,
                        None => self.error(file, line, "`#else` without `#ifdef`".into()),
                    },
                    "endif" => {
                        if active.pop().is_none() {
                            self.error(file, line, "`#endif` without `#ifdef`".into());
                        }
                    }
                    _ if !on(&active) => {}
                    "define" => {
                        let (name, body) = arg
                            .split_once(char::is_whitespace)
                            .map_or((arg, ""), |(a, b)| (a, b.trim()));
                        if name.contains('(') {
                            self.error(
                                file,
                                line,
                                format!("function-like macro `{name}` is not supported; only object-like `#define NAME text`"),
                            );
                        } else if name.is_empty() {
                            self.error(file, line, "`#define` without a name".into());
                        } else {
                            self.defines.insert(name.to_string(), body.to_string());
                        }
                    }
                    "undef" => {
                        self.defines.remove(arg);
                    }
                    "include" => self.include(file, line, arg),
                    // Line markers (`# 12 "k.cu"`, `#line 12`) are accepted and ignored, as
                    // ptxas does.
                    "" => {}
                    "line" if arg.starts_with(|c: char| c.is_ascii_digit()) => {}
                    "line" => self.error(
                        file,
                        line,
                        format!("`#line` needs a line number, found `{arg}`"),
                    ),
                    w if w.bytes().all(|b| b.is_ascii_digit()) => {}
                    _ => self.error(
                        file,
                        line,
                        format!("unsupported preprocessor directive `#{word}`"),
                    ),
                }
                if !matches!(word, "include") {
                    // Keep line numbers aligned: a directive line becomes an empty line.
                    if self.map.last() != Some(&(file, line)) {
                        self.emit(file, line, "");
                    }
                }
                continue;
            }
            if !on(&active) {
                self.emit(file, line, "");
                continue;
            }
            match self.expand(raw) {
                Some(expanded) => self.emit(file, line, &expanded),
                None => self.error(
                    file,
                    line,
                    format!(
                        "macro expansion of this line exceeds {MAX_EXPANDED_LINE} bytes (a macro that expands to itself?)"
                    ),
                ),
            }
        }
        if !active.is_empty() {
            self.error(
                file,
                text.lines().count() as u32,
                "unterminated `#ifdef`".into(),
            );
        }
    }

    fn include(&mut self, file: u32, line: u32, arg: &str) {
        let name = arg.trim_matches(|c| c == '"' || c == '<' || c == '>');
        if self.depth >= MAX_INCLUDE_DEPTH {
            self.error(
                file,
                line,
                format!(
                    "`#include \"{name}\"` nests more than {MAX_INCLUDE_DEPTH} levels deep (recursive include?)"
                ),
            );
            return;
        }
        if self.includes >= MAX_INCLUDES {
            self.error(
                file,
                line,
                format!("`#include \"{name}\"`: more than {MAX_INCLUDES} includes in one source"),
            );
            return;
        }
        self.includes += 1;
        let path = match &self.dir {
            Some(d) => d.join(name),
            None => PathBuf::from(name),
        };
        // Only regular files: a device (`/dev/zero`), a FIFO or a directory is refused.
        let read = match std::fs::metadata(&path) {
            Ok(m) if !m.is_file() => Err(std::io::Error::other("not a regular file")),
            Ok(_) => read_limited(&path, MAX_SOURCE_BYTES),
            Err(e) => Err(e),
        };
        match read {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let idx = self.files.len() as u32;
                self.files.push(path.display().to_string());
                self.originals.push(text.clone());
                self.depth += 1;
                self.run(idx, &text);
                self.depth -= 1;
            }
            Err(e) => self.error(file, line, format!("cannot include `{name}`: {e}")),
        }
    }

    /// Replaces whole identifiers that are defined macros (one level, then repeatedly up to
    /// a small bound for nested definitions).
    /// The line with its macros expanded; `None` when the expansion exceeds
    /// [`MAX_EXPANDED_LINE`] (a macro that multiplies itself).
    fn expand(&self, raw: &str) -> Option<String> {
        if self.defines.is_empty() {
            return Some(raw.to_string());
        }
        let mut s = raw.to_string();
        for _ in 0..8 {
            let mut out = String::with_capacity(s.len());
            let mut changed = false;
            let b = s.as_bytes();
            let mut i = 0;
            while i < b.len() {
                let c = b[i];
                if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c == b'%' {
                    let st = i;
                    i += 1;
                    while i < b.len()
                        && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$')
                    {
                        i += 1;
                    }
                    let w = &s[st..i];
                    let after_dot = st > 0 && b[st - 1] == b'.';
                    match self.defines.get(w) {
                        Some(v) if !after_dot => {
                            out.push_str(v);
                            changed = true;
                            if out.len() > MAX_EXPANDED_LINE {
                                break;
                            }
                        }
                        _ => out.push_str(w),
                    }
                } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
                    out.push_str(&s[i..]);
                    break;
                } else {
                    let ch = s[i..].chars().next().unwrap_or(' ');
                    out.push(ch);
                    i += ch.len_utf8();
                }
            }
            s = out;
            if !changed || s.len() > MAX_EXPANDED_LINE {
                break;
            }
        }
        (s.len() <= MAX_EXPANDED_LINE).then_some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(text: &str, dir: Option<&Path>) -> Vec<String> {
        let (_, d) = Source::new("t.ptx", text.to_string(), dir);
        d.into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn includes_of_devices_and_directories_are_refused() {
        let m = messages("#include \"/dev/zero\"\n", None);
        assert!(m[0].contains("not a regular file"), "{m:?}");
        let m = messages("#include \"/\"\n", None);
        assert!(m[0].contains("not a regular file"), "{m:?}");
    }

    #[test]
    fn reads_are_bounded() {
        let e = read_limited(Path::new("/dev/zero"), 1000).unwrap_err();
        assert!(e.to_string().contains("limit of 1000"), "{e}");
        assert!(read_limited(Path::new("/"), 1000).is_err());
    }

    #[test]
    fn recursive_and_exponential_includes_stop() {
        let dir = std::env::temp_dir().join(format!("ptxvm-inc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Each level includes the file twice: 2^16 copies without the include count limit.
        std::fs::write(
            dir.join("a.ptx"),
            "#include \"a.ptx\"\n#include \"a.ptx\"\n",
        )
        .unwrap();
        let m = messages("#include \"a.ptx\"\n", Some(&dir));
        assert!(
            m.iter()
                .any(|m| m.contains("levels deep") || m.contains("includes")),
            "{m:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn columns_after_a_macro_stay_on_characters() {
        let text = "#define R %r10\nmov.u32 R, \u{df}\u{df};\n".to_string();
        let (src, _) = Source::new("t.ptx", text, None);
        // The second `ß` in the preprocessed line, 3 bytes further right than in the original.
        let at = src.text.rfind('\u{df}').unwrap() as u32;
        let loc = src.locate(Span {
            start: at,
            end: at + 2,
        });
        assert_eq!(loc.line, 2);
        assert!(loc.line_text.is_char_boundary(loc.col as usize - 1));
    }

    #[test]
    fn self_multiplying_macros_stop() {
        let m = messages("#define A A A A A A A A\nA\n", None);
        assert!(m[0].contains("macro expansion"), "{m:?}");
    }
}
