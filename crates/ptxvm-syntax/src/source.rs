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
use std::path::{Path, PathBuf};

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
                originals: pp.originals,
                text: pp.out,
                lines: lines.into(),
                line_map: Some(pp.map),
            },
            diags,
        )
    }

    /// Reads and preprocesses a file.
    pub fn load(path: &Path) -> std::io::Result<(Source, Vec<Diagnostic>)> {
        let bytes = std::fs::read(path)?;
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
                let line_text = orig.lines().nth(l as usize - 1).unwrap_or(ptext);
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
}

impl Pre {
    fn emit(&mut self, file: u32, line: u32, text: &str) {
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
            let expanded = self.expand(raw);
            self.emit(file, line, &expanded);
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
        if self.depth > 16 {
            self.error(
                file,
                line,
                format!("`#include \"{name}\"` nests too deeply (recursive include?)"),
            );
            return;
        }
        let path = match &self.dir {
            Some(d) => d.join(name),
            None => PathBuf::from(name),
        };
        match std::fs::read(&path) {
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
    fn expand(&self, raw: &str) -> String {
        if self.defines.is_empty() {
            return raw.to_string();
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
            if !changed {
                break;
            }
        }
        s
    }
}
