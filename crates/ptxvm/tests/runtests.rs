//! File-driven run tests: every `tests/run/**/*.ptx` carries its launch, inputs and
//! expectations in `//` comment lines at the top (syntax: `tests/run/README.md`). Each file
//! is run through the real `ptxvm run` binary; outputs come back as `.npy` files and are
//! checked here. All failures are collected and reported together at the end.
//!
//! `RUNTESTS_FILTER=substr cargo test -p ptxvm --test runtests` runs only the files whose
//! path contains `substr`; `RUNTESTS_VERBOSE=1` prints every file's verdict and stderr.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The suite must not shrink silently.
const MIN_FILES: usize = 60;
/// Wall-clock limit for one `ptxvm run`.
const TIMEOUT: Duration = Duration::from_secs(30);

// ---------------------------------------------------------------------------------------
// Element types
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dtype {
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F16,
    F32,
    F64,
}

impl Dtype {
    fn from_name(s: &str) -> Option<Dtype> {
        Some(match s {
            "u8" => Dtype::U8,
            "u16" => Dtype::U16,
            "u32" => Dtype::U32,
            "u64" => Dtype::U64,
            "i8" | "s8" => Dtype::I8,
            "i16" | "s16" => Dtype::I16,
            "i32" | "s32" => Dtype::I32,
            "i64" | "s64" => Dtype::I64,
            "f16" => Dtype::F16,
            "f32" => Dtype::F32,
            "f64" => Dtype::F64,
            _ => return None,
        })
    }

    fn from_descr(d: &str) -> Option<Dtype> {
        Dtype::from_name(match d.trim_start_matches(['<', '|', '=']) {
            "u1" => "u8",
            "u2" => "u16",
            "u4" => "u32",
            "u8" => "u64",
            "i1" | "b1" => "i8",
            "i2" => "i16",
            "i4" => "i32",
            "i8" => "i64",
            "f2" => "f16",
            "f4" => "f32",
            "f8" => "f64",
            _ => return None,
        })
    }

    fn descr(self) -> &'static str {
        match self {
            Dtype::U8 => "|u1",
            Dtype::U16 => "<u2",
            Dtype::U32 => "<u4",
            Dtype::U64 => "<u8",
            Dtype::I8 => "|i1",
            Dtype::I16 => "<i2",
            Dtype::I32 => "<i4",
            Dtype::I64 => "<i8",
            Dtype::F16 => "<f2",
            Dtype::F32 => "<f4",
            Dtype::F64 => "<f8",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Dtype::U8 => "u8",
            Dtype::U16 => "u16",
            Dtype::U32 => "u32",
            Dtype::U64 => "u64",
            Dtype::I8 => "i8",
            Dtype::I16 => "i16",
            Dtype::I32 => "i32",
            Dtype::I64 => "i64",
            Dtype::F16 => "f16",
            Dtype::F32 => "f32",
            Dtype::F64 => "f64",
        }
    }

    fn size(self) -> usize {
        match self {
            Dtype::U8 | Dtype::I8 => 1,
            Dtype::U16 | Dtype::I16 | Dtype::F16 => 2,
            Dtype::U32 | Dtype::I32 | Dtype::F32 => 4,
            Dtype::U64 | Dtype::I64 | Dtype::F64 => 8,
        }
    }

    fn is_float(self) -> bool {
        matches!(self, Dtype::F16 | Dtype::F32 | Dtype::F64)
    }

    fn is_signed(self) -> bool {
        matches!(self, Dtype::I8 | Dtype::I16 | Dtype::I32 | Dtype::I64)
    }

    fn bits(self) -> u32 {
        self.size() as u32 * 8
    }
}

/// IEEE binary16 → f64 (exact).
fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let man = (h & 0x3ff) as f64;
    sign * match exp {
        0 => man * 2f64.powi(-24),
        31 if man == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1.0 + man / 1024.0) * 2f64.powi(e - 15),
    }
}

/// f64 → IEEE binary16, round to nearest even.
fn f64_to_f16(x: f64) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
    let a = x.abs();
    if x.is_nan() {
        return 0x7e00;
    }
    if a == 0.0 {
        return sign;
    }
    // Scale so that the value is an integer number of the final ulp, then round.
    let e = a.log2().floor() as i32;
    let e = if 2f64.powi(e) > a { e - 1 } else { e };
    let ulp_exp = e.max(-14) - 10;
    let q = a / 2f64.powi(ulp_exp);
    let r = q.round();
    let r = if (q - q.floor() - 0.5).abs() == 0.0 && r % 2.0 != 0.0 {
        r - 1.0
    } else {
        r
    };
    let v = r * 2f64.powi(ulp_exp);
    if v >= 65520.0 || v > 65504.0 {
        return sign | 0x7c00;
    }
    if v < 2f64.powi(-14) {
        return sign | (v / 2f64.powi(-24)) as u16;
    }
    let e = v.log2().floor() as i32;
    let e = if 2f64.powi(e) > v { e - 1 } else { e };
    let man = ((v / 2f64.powi(e) - 1.0) * 1024.0).round() as u16;
    sign | (((e + 15) as u16) << 10) | man
}

// ---------------------------------------------------------------------------------------
// The expression language
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq)]
enum Val {
    Int(i128),
    Float(f64),
    /// Raw bits of the element (`bits(0x7fc00001)`).
    Bits(u64),
}

#[derive(Debug, Clone)]
enum Expr {
    Lit(Val),
    Iota,
    Un(char, Box<Expr>),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Bits(Box<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(Val),
    Ident(String),
    Op(&'static str),
}

const OPS: &[&str] = &[
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "%", "&", "|", "^", "~",
    "!", "<", ">", "?", ":", "(", ")",
];

fn lex(s: &str) -> Result<Vec<Tok>, String> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && b.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            let st = i;
            if s[i..].starts_with("0x") || s[i..].starts_with("0X") {
                i += 2;
                while i < b.len() && (b[i].is_ascii_hexdigit() || b[i] == b'_') {
                    i += 1;
                }
                let h: String = s[st + 2..i].chars().filter(|&c| c != '_').collect();
                let v = u128::from_str_radix(&h, 16)
                    .map_err(|_| format!("bad number `{}`", &s[st..i]))?;
                out.push(Tok::Num(Val::Int(v as i128)));
                continue;
            }
            let mut float = false;
            while i < b.len() {
                let d = b[i];
                if d.is_ascii_digit() || d == b'_' {
                    i += 1;
                } else if d == b'.' {
                    float = true;
                    i += 1;
                } else if (d == b'e' || d == b'E')
                    && (b.get(i + 1).is_some_and(|x| x.is_ascii_digit())
                        || (matches!(b.get(i + 1), Some(b'+' | b'-'))
                            && b.get(i + 2).is_some_and(|x| x.is_ascii_digit())))
                {
                    float = true;
                    i += 2;
                } else {
                    break;
                }
            }
            let t: String = s[st..i].chars().filter(|&c| c != '_').collect();
            out.push(Tok::Num(if float {
                Val::Float(t.parse().map_err(|_| format!("bad number `{t}`"))?)
            } else {
                Val::Int(t.parse().map_err(|_| format!("bad number `{t}`"))?)
            }));
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(s[st..i].to_string()));
            continue;
        }
        match OPS.iter().find(|o| s[i..].starts_with(**o)) {
            Some(o) => {
                out.push(Tok::Op(o));
                i += o.len();
            }
            None => return Err(format!("unexpected character `{c}` in `{s}`")),
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
}

/// Binary operators by precedence level, loosest first (C's order).
const LEVELS: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<", "<=", ">", ">="],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

impl Parser {
    fn peek_op(&self) -> Option<&'static str> {
        match self.toks.get(self.pos) {
            Some(Tok::Op(o)) => Some(o),
            _ => None,
        }
    }

    fn expect(&mut self, op: &str) -> Result<(), String> {
        if self.peek_op() == Some(op) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("expected `{op}`"))
        }
    }

    fn cond(&mut self) -> Result<Expr, String> {
        let c = self.bin(0)?;
        if self.peek_op() == Some("?") {
            self.pos += 1;
            let a = self.cond()?;
            self.expect(":")?;
            let b = self.cond()?;
            return Ok(Expr::Cond(Box::new(c), Box::new(a), Box::new(b)));
        }
        Ok(c)
    }

    fn bin(&mut self, level: usize) -> Result<Expr, String> {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut l = self.bin(level + 1)?;
        while let Some(op) = self.peek_op().filter(|o| LEVELS[level].contains(o)) {
            self.pos += 1;
            let r = self.bin(level + 1)?;
            l = Expr::Bin(op, Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn unary(&mut self) -> Result<Expr, String> {
        match self.peek_op() {
            Some(o @ ("-" | "~" | "!" | "+")) => {
                self.pos += 1;
                let e = self.unary()?;
                Ok(Expr::Un(o.chars().next().unwrap(), Box::new(e)))
            }
            _ => self.atom(),
        }
    }

    fn atom(&mut self) -> Result<Expr, String> {
        let t = self
            .toks
            .get(self.pos)
            .cloned()
            .ok_or("unexpected end of expression")?;
        self.pos += 1;
        match t {
            Tok::Num(v) => Ok(Expr::Lit(v)),
            Tok::Op("(") => {
                let e = self.cond()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Ident(id) => match id.as_str() {
                "iota" | "i" => Ok(Expr::Iota),
                "nan" => Ok(Expr::Lit(Val::Float(f64::NAN))),
                "inf" => Ok(Expr::Lit(Val::Float(f64::INFINITY))),
                "true" => Ok(Expr::Lit(Val::Int(1))),
                "false" => Ok(Expr::Lit(Val::Int(0))),
                "bits" => {
                    self.expect("(")?;
                    let e = self.cond()?;
                    self.expect(")")?;
                    Ok(Expr::Bits(Box::new(e)))
                }
                _ => Err(format!("unknown name `{id}`")),
            },
            Tok::Op(o) => Err(format!("unexpected `{o}`")),
        }
    }
}

fn parse_expr(s: &str) -> Result<Expr, String> {
    let mut p = Parser {
        toks: lex(s)?,
        pos: 0,
    };
    let e = p.cond()?;
    if p.pos != p.toks.len() {
        return Err(format!("trailing input in expression `{s}`"));
    }
    Ok(e)
}

fn as_f(v: Val) -> f64 {
    match v {
        Val::Int(i) => i as f64,
        Val::Float(f) => f,
        Val::Bits(b) => b as f64,
    }
}

fn as_i(v: Val) -> Result<i128, String> {
    match v {
        Val::Int(i) => Ok(i),
        Val::Bits(b) => Ok(b as i128),
        Val::Float(f) if f.fract() == 0.0 && f.is_finite() => Ok(f as i128),
        Val::Float(f) => Err(format!("{f} is not an integer")),
    }
}

fn truthy(v: Val) -> bool {
    match v {
        Val::Int(i) => i != 0,
        Val::Float(f) => f != 0.0,
        Val::Bits(b) => b != 0,
    }
}

fn eval(e: &Expr, iota: usize) -> Result<Val, String> {
    Ok(match e {
        Expr::Lit(v) => *v,
        Expr::Iota => Val::Int(iota as i128),
        Expr::Bits(x) => Val::Bits(as_i(eval(x, iota)?)? as u64),
        Expr::Un(op, x) => {
            let v = eval(x, iota)?;
            match (op, v) {
                ('+', v) => v,
                ('-', Val::Float(f)) => Val::Float(-f),
                ('-', v) => Val::Int(as_i(v)?.wrapping_neg()),
                ('~', v) => Val::Int(!as_i(v)?),
                ('!', v) => Val::Int(!truthy(v) as i128),
                _ => unreachable!(),
            }
        }
        Expr::Cond(c, a, b) => {
            if truthy(eval(c, iota)?) {
                eval(a, iota)?
            } else {
                eval(b, iota)?
            }
        }
        Expr::Bin(op, a, b) => {
            let (x, y) = (eval(a, iota)?, eval(b, iota)?);
            let float = matches!(x, Val::Float(_)) || matches!(y, Val::Float(_));
            let cmp = |o: std::cmp::Ordering| -> Val {
                let r = match *op {
                    "==" => o.is_eq(),
                    "!=" => o.is_ne(),
                    "<" => o.is_lt(),
                    "<=" => o.is_le(),
                    ">" => o.is_gt(),
                    _ => o.is_ge(),
                };
                Val::Int(r as i128)
            };
            match *op {
                "&&" => Val::Int((truthy(x) && truthy(y)) as i128),
                "||" => Val::Int((truthy(x) || truthy(y)) as i128),
                "==" | "!=" | "<" | "<=" | ">" | ">=" => {
                    if float {
                        match as_f(x).partial_cmp(&as_f(y)) {
                            Some(o) => cmp(o),
                            None => Val::Int((*op == "!=") as i128),
                        }
                    } else {
                        cmp(as_i(x)?.cmp(&as_i(y)?))
                    }
                }
                "+" | "-" | "*" | "/" if float => {
                    let (x, y) = (as_f(x), as_f(y));
                    Val::Float(match *op {
                        "+" => x + y,
                        "-" => x - y,
                        "*" => x * y,
                        _ => x / y,
                    })
                }
                _ => {
                    let (x, y) = (as_i(x)?, as_i(y)?);
                    Val::Int(match *op {
                        "+" => x.wrapping_add(y),
                        "-" => x.wrapping_sub(y),
                        "*" => x.wrapping_mul(y),
                        "/" | "%" if y == 0 => return Err("division by zero".into()),
                        // Integer division truncates toward zero, as in C.
                        "/" => x / y,
                        "%" => x % y,
                        "&" => x & y,
                        "|" => x | y,
                        "^" => x ^ y,
                        "<<" => {
                            if !(0..128).contains(&y) {
                                return Err(format!("shift by {y}"));
                            }
                            x.wrapping_shl(y as u32)
                        }
                        ">>" => {
                            if !(0..128).contains(&y) {
                                return Err(format!("shift by {y}"));
                            }
                            x >> y
                        }
                        _ => unreachable!(),
                    })
                }
            }
        }
    })
}

/// Values of a buffer: an explicit list `[e, e, ...]` or one expression per element.
#[derive(Debug, Clone)]
enum Values {
    List(Vec<Expr>),
    Each(Expr),
}

fn split_top_commas(s: &str) -> Vec<&str> {
    let mut depth = 0i32;
    let mut parts = Vec::new();
    let mut st = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[st..i]);
                st = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[st..]);
    parts
}

fn parse_values(s: &str) -> Result<Values, String> {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix('[') {
        let inner = inner
            .strip_suffix(']')
            .ok_or_else(|| format!("list `{s}` is missing its `]`"))?;
        if inner.trim().is_empty() {
            return Ok(Values::List(Vec::new()));
        }
        let items = split_top_commas(inner)
            .into_iter()
            .map(|x| parse_expr(x.trim()))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Values::List(items));
    }
    Ok(Values::Each(parse_expr(s)?))
}

impl Values {
    fn expr(&self, k: usize) -> &Expr {
        match self {
            Values::List(v) => &v[k],
            Values::Each(e) => e,
        }
    }
}

/// An expected or generated element, as bits of the dtype (plus "any NaN").
#[derive(Debug, Clone, Copy, PartialEq)]
enum Elem {
    Bits(u64),
    AnyNan,
}

/// Converts a value to an element of `dt`.
fn to_elem(v: Val, dt: Dtype) -> Result<Elem, String> {
    let bits = dt.bits();
    let m = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    if let Val::Bits(b) = v {
        if b & !m != 0 {
            return Err(format!("bits({b:#x}) does not fit {}", dt.name()));
        }
        return Ok(Elem::Bits(b));
    }
    if dt.is_float() {
        let f = as_f(v);
        if f.is_nan() {
            return Ok(Elem::AnyNan);
        }
        return Ok(Elem::Bits(match dt {
            Dtype::F64 => f.to_bits(),
            Dtype::F32 => (f as f32).to_bits() as u64,
            _ => {
                let h = f64_to_f16(f);
                if f16_to_f64(h) != f {
                    return Err(format!("{f} is not exactly representable in f16"));
                }
                h as u64
            }
        }));
    }
    let i = as_i(v)?;
    // Either the signed or the unsigned reading may be given (`-1` or `0xffffffff`).
    let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << bits) - 1);
    if i < lo || i > hi {
        return Err(format!("{i} does not fit {}", dt.name()));
    }
    Ok(Elem::Bits(i as u64 & m))
}

fn show_elem(bits: u64, dt: Dtype) -> String {
    match dt {
        Dtype::F16 => format!("{} ({bits:#06x})", f16_to_f64(bits as u16)),
        Dtype::F32 => format!("{:?} ({bits:#010x})", f32::from_bits(bits as u32)),
        Dtype::F64 => format!("{:?} ({bits:#018x})", f64::from_bits(bits)),
        _ if dt.is_signed() => {
            let s = 64 - dt.bits();
            format!("{}", ((bits << s) as i64) >> s)
        }
        _ => format!("{bits} ({bits:#x})"),
    }
}

// ---------------------------------------------------------------------------------------
// .npy
// ---------------------------------------------------------------------------------------

fn npy_write(dt: Dtype, elems: &[u64]) -> Vec<u8> {
    npy_write_shaped(dt, &[elems.len()], elems)
}

fn npy_write_shaped(dt: Dtype, shape: &[usize], elems: &[u64]) -> Vec<u8> {
    let dims: String = shape.iter().map(|d| format!("{d}, ")).collect();
    let mut dict = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
        dt.descr(),
        dims.trim_end()
    );
    let total = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat((64 - total % 64) % 64));
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    for &e in elems {
        out.extend_from_slice(&e.to_le_bytes()[..dt.size()]);
    }
    out
}

/// Reads a `.npy` file: (dtype, elements as raw bits).
fn npy_read(bytes: &[u8]) -> Result<(Dtype, Vec<u64>), String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file".into());
    }
    let (hlen, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 => (
            u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize,
            12,
        ),
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let header = std::str::from_utf8(bytes.get(start..start + hlen).ok_or("truncated header")?)
        .map_err(|_| "non-UTF-8 header")?;
    let descr = header
        .split("'descr':")
        .nth(1)
        .and_then(|r| r.split('\'').nth(1))
        .ok_or("no descr")?;
    let dt = Dtype::from_descr(descr).ok_or_else(|| format!("unsupported dtype {descr}"))?;
    let data = &bytes[start + hlen..];
    if !data.len().is_multiple_of(dt.size()) {
        return Err("data is not a whole number of elements".into());
    }
    let elems = data
        .chunks(dt.size())
        .map(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect();
    Ok((dt, elems))
}

// ---------------------------------------------------------------------------------------
// Test files
// ---------------------------------------------------------------------------------------

#[derive(Debug)]
enum ArgSpec {
    /// Passed to `--arg` verbatim (`u32:5`, `zeros:u32:64`, `hex:..`).
    Verbatim(String),
    /// A generated buffer (`true`: `multicast:DTYPE[N] = VALUES`, passed as
    /// `multicast:PATH.npy`).
    Buffer(Dtype, usize, Values, bool),
    /// A generated array passed as a texture or surface (`tex,OPTS:DTYPE[D0,D1,..] = ..`,
    /// `surf:DTYPE[..] = ..`): `tex` or `surf`, the options (`,filter=linear`), the shape.
    Object(String, String, Dtype, Vec<usize>, Values),
}

#[derive(Debug)]
struct ArgExpect {
    arg: usize,
    /// Element range checked (defaults to the whole buffer).
    range: Option<(usize, Option<usize>)>,
    dtype: Option<Dtype>,
    values: Values,
    line: usize,
}

#[derive(Debug, Default)]
struct TestFile {
    run: Vec<String>,
    args: Vec<ArgSpec>,
    expects: Vec<ArgExpect>,
    stdout: Option<Vec<String>>,
    errors: Vec<String>,
    xfail: Option<String>,
}

/// The elements of a generated buffer, as raw bits.
fn gen_elems(dt: Dtype, n: usize, v: &Values) -> Result<Vec<u64>, String> {
    (0..n)
        .map(|k| {
            let val = eval(v.expr(k), k)?;
            match to_elem(val, dt)? {
                Elem::Bits(b) => Ok(b),
                Elem::AnyNan => Ok(match dt {
                    Dtype::F16 => 0x7e00,
                    Dtype::F32 => 0x7fc0_0000,
                    _ => f64::NAN.to_bits(),
                }),
            }
        })
        .collect()
}

fn parse_arg_spec(s: &str) -> Result<ArgSpec, String> {
    // `tex[,OPTIONS]:DTYPE[SHAPE] = VALUES` and `surf:DTYPE[SHAPE] = VALUES`: a generated
    // array passed as `tex:PATH.npy,OPTIONS` / `surf:PATH.npy`.
    if let Some((head, vals)) = s.rsplit_once(" = ")
        && let Some((kind, arr)) = head.trim().rsplit_once(':')
        && (kind.starts_with("tex") || kind == "surf")
        && let Some((dt, shape)) = arr.strip_suffix(']').and_then(|h| h.split_once('['))
    {
        let (kind, opts) = kind.split_at(kind.find(',').unwrap_or(kind.len()));
        let dt = Dtype::from_name(dt.trim()).ok_or_else(|| format!("unknown dtype `{dt}`"))?;
        let shape = shape
            .split(',')
            .map(|d| {
                d.trim()
                    .parse::<usize>()
                    .map_err(|_| format!("bad extent `{d}`"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let v = parse_values(vals)?;
        let n: usize = shape.iter().product();
        if let Values::List(l) = &v
            && l.len() != n
        {
            return Err(format!("{n} elements declared, {} listed", l.len()));
        }
        return Ok(ArgSpec::Object(kind.into(), opts.into(), dt, shape, v));
    }
    // `DTYPE[N] = VALUES` is generated; everything else goes to ptxvm verbatim.
    let (multicast, g) = match s.strip_prefix("multicast:") {
        Some(r) => (true, r),
        None => (false, s),
    };
    if let Some((head, vals)) = g.split_once('=')
        && let Some((dt, n)) = head
            .trim()
            .strip_suffix(']')
            .and_then(|h| h.split_once('['))
    {
        let dt = Dtype::from_name(dt.trim()).ok_or_else(|| format!("unknown dtype `{dt}`"))?;
        let n: usize = n.trim().parse().map_err(|_| format!("bad count `{n}`"))?;
        let v = parse_values(vals)?;
        if let Values::List(l) = &v
            && l.len() != n
        {
            return Err(format!("{n} elements declared, {} listed", l.len()));
        }
        return Ok(ArgSpec::Buffer(dt, n, v, multicast));
    }
    if s.contains(char::is_whitespace) {
        return Err(format!(
            "`{s}`: expected DTYPE[N] = VALUES or a ptxvm --arg SPEC"
        ));
    }
    Ok(ArgSpec::Verbatim(s.to_string()))
}

/// `argI[RANGE]: [DTYPE] VALUES` (after `expect `).
fn parse_arg_expect(s: &str, line: usize) -> Result<ArgExpect, String> {
    let (target, rest) = s.split_once(':').ok_or("expected `argI: VALUES`")?;
    let target = target.trim();
    let body = target.strip_prefix("arg").ok_or("expected `argI`")?;
    let (num, range) = match body.split_once('[') {
        Some((n, r)) => {
            let r = r.strip_suffix(']').ok_or("missing `]`")?;
            let range = match r.split_once("..") {
                Some((a, b)) => {
                    let a = a.trim().parse().map_err(|_| format!("bad range `{r}`"))?;
                    let b = if b.trim().is_empty() {
                        None
                    } else {
                        Some(b.trim().parse().map_err(|_| format!("bad range `{r}`"))?)
                    };
                    (a, b)
                }
                None => {
                    let k: usize = r.trim().parse().map_err(|_| format!("bad index `{r}`"))?;
                    (k, Some(k + 1))
                }
            };
            (n, Some(range))
        }
        None => (body, None),
    };
    let arg = num
        .trim()
        .parse()
        .map_err(|_| format!("bad argument number `{num}`"))?;
    let rest = rest.trim();
    let (dtype, vals) = match rest.split_once(char::is_whitespace) {
        Some((w, v)) if Dtype::from_name(w).is_some() => (Dtype::from_name(w), v),
        _ => (None, rest),
    };
    Ok(ArgExpect {
        arg,
        range,
        dtype,
        values: parse_values(vals)?,
        line,
    })
}

fn parse_file(text: &str) -> Result<TestFile, String> {
    let mut t = TestFile::default();
    for (ln, raw) in text.lines().enumerate() {
        let l = raw.trim();
        if l.is_empty() {
            continue;
        }
        let Some(c) = l.strip_prefix("//") else { break };
        let c = c.strip_prefix(' ').unwrap_or(c);
        let err = |e: String| format!("line {}: {e}", ln + 1);
        if let Some(r) = c.strip_prefix("run:") {
            if !t.run.is_empty() {
                return Err(err("more than one `run:` line".into()));
            }
            t.run = r.split_whitespace().map(String::from).collect();
            if t.run.iter().any(|a| a == "--out" || a == "--arg") {
                return Err(err(
                    "`run:` must not give --out or --arg (use `arg:` lines)".into(),
                ));
            }
        } else if let Some(r) = c.strip_prefix("arg:") {
            t.args.push(parse_arg_spec(r.trim()).map_err(err)?);
        } else if let Some(r) = c.strip_prefix("expect stdout:") {
            let r = r.strip_prefix(' ').unwrap_or(r);
            t.stdout
                .get_or_insert_with(Vec::new)
                .push(r.trim_end_matches('\r').to_string());
        } else if let Some(r) = c.strip_prefix("expect error:") {
            let r = r.trim();
            if r.is_empty() {
                return Err(err("empty `expect error:`".into()));
            }
            t.errors.push(r.to_string());
        } else if let Some(r) = c.strip_prefix("expect ") {
            t.expects.push(parse_arg_expect(r, ln + 1).map_err(err)?);
        } else if let Some(r) = c.strip_prefix("xfail:") {
            if r.trim().is_empty() {
                return Err(err("`xfail:` needs a reason".into()));
            }
            t.xfail = Some(r.trim().to_string());
        }
    }
    if t.run.is_empty() {
        return Err("no `// run:` line".into());
    }
    if t.expects.is_empty() && t.stdout.is_none() && t.errors.is_empty() {
        return Err("no expectation (`// expect ...`)".into());
    }
    if !t.errors.is_empty() && !t.expects.is_empty() {
        return Err("`expect error:` cannot be combined with `expect argI:`".into());
    }
    Ok(t)
}

/// One file's outcome: its path below `tests/run`, the verdict and its `xfail` reason.
type Outcome = (PathBuf, Result<(), String>, Option<String>);

/// Runs one file; `Err` holds the failure description.
/// What a run produced, for comparing engines: exit status, stdout, stderr and every
/// `--out` file; for a run on one host thread also the instruction counts of `--stats`
/// (warp and thread instructions, also of a launch that failed), and why the JIT did not
/// compile the kernel when that is a JIT bug (not a comparison: a failure of its own).
#[derive(Debug, PartialEq, Eq)]
struct Produced {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    outs: std::collections::BTreeMap<String, Vec<u8>>,
    counts: Option<String>,
    jit_failure: Option<String>,
}

/// Takes the `--stats` lines out of `stderr`: the instruction counts of the `stats:` line
/// and, from the `engine:` line, why the JIT did not compile the kernel (unless nothing
/// in it compiles or its native code would be too large: the legitimate reasons).
fn split_stats(stderr: &str) -> (String, Option<String>, Option<String>) {
    let mut rest = String::new();
    let (mut counts, mut jit_failure) = (None, None);
    for line in stderr.split_inclusive('\n') {
        if let Some(c) = line.strip_prefix("stats: ") {
            counts = Some(
                c.split(" thread instructions")
                    .next()
                    .unwrap_or(c)
                    .to_string(),
            );
        } else if line.starts_with("engine: ") {
            if let Some((_, why)) = line.split_once("not compiled, so the warp engine ran it: ") {
                let why = why.trim_end().trim_end_matches(')');
                if why != ptxvm_vm::exec::NOTHING_COMPILES
                    && !why.starts_with(ptxvm_vm::exec::TOO_LARGE)
                {
                    jit_failure = Some(why.chars().take(600).collect());
                }
            }
        } else {
            rest.push_str(line);
        }
    }
    (rest, counts, jit_failure)
}

/// Runs a test file with an engine (and with one host thread when `serial`, so the run is
/// deterministic), checking its expectations.
fn run_file(
    path: &Path,
    tmp: &Path,
    engine: &str,
    serial: bool,
) -> Result<(Produced, Result<(), String>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let t = parse_file(&text).map_err(|e| format!("bad test header: {e}"))?;
    let _ = std::fs::remove_dir_all(tmp);
    std::fs::create_dir_all(tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    let outdir = tmp.join("out");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxvm"));
    cmd.arg("run").arg(path).args(&t.run);
    cmd.args(["--engine", engine]);
    if serial && !t.run.iter().any(|a| a == "--threads") {
        cmd.args(["--threads", "1"]);
    }
    // Instruction counts are deterministic with one host thread only (a file may ask
    // for more: its own `--threads`).
    let one_thread = t.run.windows(2).all(|w| w[0] != "--threads" || w[1] == "1");
    let stats = serial && one_thread && !t.run.iter().any(|a| a == "--stats");
    if stats {
        cmd.arg("--stats");
    }
    let mut dtypes: Vec<Option<Dtype>> = Vec::new();
    for (i, a) in t.args.iter().enumerate() {
        match a {
            ArgSpec::Verbatim(s) => {
                cmd.arg("--arg").arg(s);
                dtypes.push(
                    s.trim_start_matches("multicast:")
                        .strip_prefix("zeros:")
                        .and_then(|r| r.split(':').next())
                        .and_then(Dtype::from_name),
                );
            }
            ArgSpec::Object(kind, opts, dt, shape, v) => {
                let n: usize = shape.iter().product();
                let elems = gen_elems(*dt, n, v).map_err(|e| format!("arg {i}: {e}"))?;
                let p = tmp.join(format!("in{i}.npy"));
                std::fs::write(&p, npy_write_shaped(*dt, shape, &elems))
                    .map_err(|e| e.to_string())?;
                cmd.arg("--arg")
                    .arg(format!("{kind}:{}{opts}", p.display()));
                dtypes.push(Some(*dt));
            }
            ArgSpec::Buffer(dt, n, v, multicast) => {
                let elems = (0..*n)
                    .map(|k| {
                        let val = eval(v.expr(k), k)?;
                        match to_elem(val, *dt)? {
                            Elem::Bits(b) => Ok(b),
                            Elem::AnyNan => Ok(match dt {
                                Dtype::F16 => 0x7e00,
                                Dtype::F32 => 0x7fc0_0000,
                                _ => f64::NAN.to_bits(),
                            }),
                        }
                    })
                    .collect::<Result<Vec<u64>, String>>()
                    .map_err(|e| format!("arg {i}: {e}"))?;
                let p = tmp.join(format!("in{i}.npy"));
                std::fs::write(&p, npy_write(*dt, &elems)).map_err(|e| e.to_string())?;
                if *multicast {
                    let mut m = std::ffi::OsString::from("multicast:");
                    m.push(&p);
                    cmd.arg("--arg").arg(m);
                } else {
                    cmd.arg("--arg").arg(&p);
                }
                dtypes.push(Some(*dt));
            }
        }
    }
    cmd.arg("--out").arg(&outdir);
    let so = tmp.join("stdout");
    let se = tmp.join("stderr");
    cmd.stdin(Stdio::null())
        .stdout(std::fs::File::create(&so).map_err(|e| e.to_string())?)
        .stderr(std::fs::File::create(&se).map_err(|e| e.to_string())?);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start ptxvm: {e}"))?;
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if t0.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("timed out after {TIMEOUT:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = std::fs::read_to_string(&so).unwrap_or_default();
    let stderr = std::fs::read_to_string(&se).unwrap_or_default();
    let (stderr, counts, jit_failure) = if stats {
        split_stats(&stderr)
    } else {
        (stderr, None, None)
    };
    let mut outs = std::collections::BTreeMap::new();
    if let Ok(rd) = std::fs::read_dir(&outdir) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            outs.insert(name, std::fs::read(e.path()).unwrap_or_default());
        }
    }
    if std::env::var_os("RUNTESTS_VERBOSE").is_some() && !stderr.is_empty() {
        eprintln!("--- {} ({engine}) stderr:\n{stderr}", path.display());
    }
    let produced = Produced {
        code: status.code(),
        stdout: stdout.clone(),
        stderr: stderr.clone(),
        outs,
        counts,
        jit_failure,
    };
    Ok((
        produced,
        check_run(path, &t, status, &stdout, &stderr, &outdir, &dtypes),
    ))
}

/// Checks a finished run against the file's expectations.
fn check_run(
    path: &Path,
    t: &TestFile,
    status: std::process::ExitStatus,
    stdout: &str,
    stderr: &str,
    outdir: &Path,
    dtypes: &[Option<Dtype>],
) -> Result<(), String> {
    let mut fails: Vec<String> = Vec::new();
    let short = |s: &str| -> String {
        let s = s.trim_end();
        if s.len() > 1500 {
            let mut k = 1500;
            while !s.is_char_boundary(k) {
                k -= 1;
            }
            format!("{}...", &s[..k])
        } else {
            s.to_string()
        }
    };
    if !t.errors.is_empty() {
        if status.success() {
            fails.push("the run succeeded, but an error was expected".into());
        } else {
            for e in &t.errors {
                if !stderr.contains(e.as_str()) {
                    fails.push(format!("stderr lacks `{e}`"));
                }
            }
            if !fails.is_empty() {
                fails.push(format!("stderr was:\n{}", short(stderr)));
            }
        }
    } else if !status.success() {
        return Err(format!("ptxvm run failed ({status}):\n{}", short(stderr)));
    }
    let want: Vec<String> = t.stdout.clone().unwrap_or_default();
    let got: Vec<&str> = stdout.lines().collect();
    if got != want {
        let mut m = String::from("stdout differs:\n");
        let n = want.len().max(got.len());
        for k in 0..n {
            let (w, g) = (want.get(k).map(String::as_str), got.get(k).copied());
            if w != g {
                let _ = writeln!(m, "  line {}: expected {:?}, got {:?}", k + 1, w, g);
            }
        }
        fails.push(m.trim_end().to_string());
    }
    for ex in &t.expects {
        let what = format!("line {} (expect arg{})", ex.line, ex.arg);
        if ex.arg >= t.args.len() {
            fails.push(format!(
                "{what}: no `// arg:` line declares argument {}",
                ex.arg
            ));
            continue;
        }

        let p = outdir.join(format!("arg{}.npy", ex.arg));
        let bytes = match std::fs::read(&p) {
            Ok(b) => b,
            Err(e) => {
                fails.push(format!(
                    "{what}: no output {}: {e} (is it a buffer?)",
                    p.display()
                ));
                continue;
            }
        };
        let (dt, data) = match npy_read(&bytes) {
            Ok(x) => x,
            Err(e) => {
                fails.push(format!("{what}: {e}"));
                continue;
            }
        };
        if let Some(d) = ex.dtype
            && d != dt
        {
            fails.push(format!(
                "{what}: expected dtype {}, the buffer is {}",
                d.name(),
                dt.name()
            ));
            continue;
        }
        if let Some(Some(d)) = dtypes.get(ex.arg)
            && *d != dt
        {
            fails.push(format!(
                "{what}: output dtype {} differs from input {}",
                dt.name(),
                d.name()
            ));
        }
        let (lo, hi) = match ex.range {
            Some((a, b)) => (a, b.unwrap_or(data.len())),
            None => (0, data.len()),
        };
        if hi > data.len() || lo > hi {
            fails.push(format!(
                "{what}: range {lo}..{hi} outside the buffer of {}",
                data.len()
            ));
            continue;
        }
        if let Values::List(l) = &ex.values
            && l.len() != hi - lo
        {
            fails.push(format!(
                "{what}: {} values listed for {} elements ({lo}..{hi})",
                l.len(),
                hi - lo
            ));
            continue;
        }
        let want = match expected(path, ex.line, dt, lo, hi, || {
            (lo..hi)
                .map(|k| {
                    eval(ex.values.expr(k - lo), k)
                        .and_then(|v| to_elem(v, dt))
                        .map_err(|e| format!("element {k}: {e}"))
                })
                .collect()
        }) {
            Ok(w) => w,
            Err(e) => {
                fails.push(format!("{what}: {e}"));
                continue;
            }
        };
        let mut bad = Vec::new();
        let mut nbad = 0;
        for ((k, &got), &e) in data.iter().enumerate().take(hi).skip(lo).zip(want.iter()) {
            let ok = match e {
                Elem::AnyNan => match dt {
                    Dtype::F16 => f16_to_f64(got as u16).is_nan(),
                    Dtype::F32 => f32::from_bits(got as u32).is_nan(),
                    _ => f64::from_bits(got).is_nan(),
                },
                Elem::Bits(b) => b == got,
            };
            if !ok {
                nbad += 1;
                if bad.len() < 8 {
                    let ws = match e {
                        Elem::AnyNan => "NaN".to_string(),
                        Elem::Bits(b) => show_elem(b, dt),
                    };
                    bad.push(format!("  [{k}] expected {ws}, got {}", show_elem(got, dt)));
                }
            }
        }
        if nbad > 0 {
            fails.push(format!(
                "{what}: {nbad} of {} elements differ:\n{}",
                hi - lo,
                bad.join("\n")
            ));
        }
    }
    if fails.is_empty() {
        Ok(())
    } else {
        Err(fails.join("\n"))
    }
}

/// The expected elements of an `expect` line, evaluated once per file: a file runs five
/// times (the engines, serial and parallel), and a large buffer's expression is costly to
/// evaluate in a debug build.
type Expected = std::sync::Arc<Vec<Elem>>;
type ExpectKey = (PathBuf, usize, Dtype, usize, usize);
static EXPECTED: Mutex<Vec<(ExpectKey, Expected)>> = Mutex::new(Vec::new());

fn expected(
    path: &Path,
    line: usize,
    dt: Dtype,
    lo: usize,
    hi: usize,
    make: impl FnOnce() -> Result<Vec<Elem>, String>,
) -> Result<Expected, String> {
    let key = (path.to_path_buf(), line, dt, lo, hi);
    if let Some((_, v)) = EXPECTED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(k, _)| *k == key)
    {
        return Ok(v.clone());
    }
    let v = Expected::new(make()?);
    EXPECTED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((key, v.clone()));
    Ok(v)
}

/// Drops the cached expectations of a file once its runs are done.
fn forget_expected(path: &Path) {
    EXPECTED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|(k, _)| k.0 != path);
}

/// Runs a file on every engine: the reference (one host thread) and each fast engine (all
/// cores) must each meet the file's expectations, and each fast engine on one host thread
/// must produce exactly what the reference did: exit status, stdout, stderr, `--out` files
/// and the instruction counts; the JIT must compile every kernel that has an instruction it
/// compiles.
fn run_engines(path: &Path, tmp: &Path) -> Result<(), String> {
    let r = run_engines_cached(path, tmp);
    forget_expected(path);
    r
}

fn run_engines_cached(path: &Path, tmp: &Path) -> Result<(), String> {
    let (reference, r) = run_file(path, &tmp.join("reference"), "reference", true)?;
    r.map_err(|e| format!("[engine reference] {e}"))?;
    for engine in FAST_ENGINES {
        let (_, r) = run_file(path, &tmp.join(engine), engine, false)?;
        r.map_err(|e| format!("[engine {engine}] {e}"))?;
        let (got, _) = run_file(path, &tmp.join(format!("{engine}1")), engine, true)?;
        if let Some(why) = &got.jit_failure {
            return Err(format!(
                "[engine {engine}] the JIT failed to compile the kernel: {why}"
            ));
        }
        differ(engine, &reference, &got)?;
    }
    Ok(())
}

/// The engines tested against the reference.
const FAST_ENGINES: [&str; 2] = ["interp", "jit"];

/// Where an engine's run differs from the reference's.
fn differ(engine: &str, reference: &Produced, got: &Produced) -> Result<(), String> {
    if reference == got {
        return Ok(());
    }
    let mut m = format!("[engine {engine}] differs from the reference:");
    if reference.code != got.code {
        let _ = write!(m, "\n  exit {:?}, reference {:?}", got.code, reference.code);
    }
    if reference.counts != got.counts {
        let _ = write!(
            m,
            "\n  instructions: {:?}, reference {:?}",
            got.counts, reference.counts
        );
    }
    for (what, a, b) in [
        ("stdout", &reference.stdout, &got.stdout),
        ("stderr", &reference.stderr, &got.stderr),
    ] {
        if a != b {
            let _ = write!(m, "\n  {what}:\n    reference: {a:?}\n    {engine}: {b:?}");
        }
    }
    for (name, bytes) in &reference.outs {
        match got.outs.get(name) {
            Some(b) if b == bytes => {}
            Some(b) => {
                let first = bytes.iter().zip(b).position(|(x, y)| x != y);
                let _ = write!(
                    m,
                    "\n  {name}: {} bytes vs {} bytes, first difference at byte {first:?}",
                    bytes.len(),
                    b.len()
                );
            }
            None => {
                let _ = write!(m, "\n  {name}: missing");
            }
        }
    }
    for name in got.outs.keys() {
        if !reference.outs.contains_key(name) {
            let _ = write!(m, "\n  {name}: not written by the reference");
        }
    }
    Err(m)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "ptx") {
            out.push(p);
        }
    }
}

#[test]
fn run_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/run");
    let root = root.canonicalize().expect("tests/run exists");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let filter = std::env::var("RUNTESTS_FILTER").ok();
    if filter.is_none() {
        assert!(
            files.len() >= MIN_FILES,
            "tests/run has {} test files, at least {MIN_FILES} expected",
            files.len()
        );
    }
    if let Some(f) = &filter {
        files.retain(|p| p.to_string_lossy().contains(f.as_str()));
    }
    // Per process, so that concurrent `cargo test` runs do not share scratch files.
    let tmp_root = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("runtests")
        .join(std::process::id().to_string());
    let verbose = std::env::var_os("RUNTESTS_VERBOSE").is_some();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Outcome>> = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 4);
    let t0 = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(p) = files.get(k) else { break };
                    let rel = p.strip_prefix(&root).unwrap_or(p);
                    let tmp = tmp_root.join(rel.with_extension(""));
                    let xfail = std::fs::read_to_string(p)
                        .ok()
                        .and_then(|t| parse_file(&t).ok())
                        .and_then(|t| t.xfail);
                    let r = run_engines(p, &tmp);
                    results.lock().unwrap().push((rel.to_path_buf(), r, xfail));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    if !verbose {
        let _ = std::fs::remove_dir_all(&tmp_root);
    }
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let (mut passed, mut xfailed) = (0, Vec::new());
    let mut failures = Vec::new();
    for (rel, r, xfail) in &results {
        let name = format!("tests/run/{}", rel.display());
        match (r, xfail) {
            (Ok(()), None) => {
                passed += 1;
                if verbose {
                    eprintln!("ok     {name}");
                }
            }
            (Err(e), Some(reason)) => {
                xfailed.push(format!("{name}: {reason}"));
                if verbose {
                    eprintln!("xfail  {name}: {reason}\n    {}", e.replace('\n', "\n    "));
                }
            }
            (Ok(()), Some(reason)) => failures.push(format!(
                "{name}: passed unexpectedly; remove its `// xfail: {reason}` line"
            )),
            (Err(e), None) => failures.push(format!("{name}:\n    {}", e.replace('\n', "\n    "))),
        }
    }
    eprintln!(
        "run tests: {} files, {passed} passed, {} expected failures, {} failed ({:.1} s)",
        results.len(),
        xfailed.len(),
        failures.len(),
        t0.elapsed().as_secs_f64()
    );
    for x in &xfailed {
        eprintln!("  xfail {x}");
    }
    if !failures.is_empty() {
        panic!(
            "{} of {} run tests failed:\n\n{}",
            failures.len(),
            results.len(),
            failures.join("\n\n")
        );
    }
}

#[cfg(test)]
mod harness {
    use super::*;

    #[test]
    fn expressions() {
        let e = parse_expr("iota*2+1").unwrap();
        assert_eq!(eval(&e, 3).unwrap(), Val::Int(7));
        let e = parse_expr("iota % 32 < 16 ? 1 << (iota % 32) : -1").unwrap();
        assert_eq!(eval(&e, 33).unwrap(), Val::Int(2));
        assert_eq!(eval(&e, 20).unwrap(), Val::Int(-1));
        assert_eq!(
            to_elem(Val::Int(-1), Dtype::U32).unwrap(),
            Elem::Bits(0xffff_ffff)
        );
        assert_eq!(
            to_elem(Val::Float(0.1), Dtype::F32).unwrap(),
            Elem::Bits(0.1f32.to_bits() as u64)
        );
        assert_eq!(
            to_elem(eval(&parse_expr("-0.0").unwrap(), 0).unwrap(), Dtype::F32).unwrap(),
            Elem::Bits(0x8000_0000)
        );
        assert_eq!(
            to_elem(
                eval(&parse_expr("bits(0x7fc00001)").unwrap(), 0).unwrap(),
                Dtype::F32
            )
            .unwrap(),
            Elem::Bits(0x7fc0_0001)
        );
        assert!(to_elem(Val::Int(1 << 40), Dtype::U32).is_err());
        assert_eq!(
            eval(&parse_expr("1 + 2 * 3 == 7 && !0").unwrap(), 0).unwrap(),
            Val::Int(1)
        );
        assert_eq!(
            eval(&parse_expr("-7 / 2").unwrap(), 0).unwrap(),
            Val::Int(-3)
        );
    }

    #[test]
    fn half_precision() {
        for (x, h) in [
            (1.0, 0x3c00u16),
            (-2.0, 0xc000),
            (65504.0, 0x7bff),
            (5.960464477539063e-8, 1),
            (0.5, 0x3800),
            (1e6, 0x7c00),
        ] {
            assert_eq!(f64_to_f16(x), h, "{x}");
        }
        assert_eq!(f16_to_f64(0x3555), 0.333251953125);
        assert_eq!(f64_to_f16(0.333251953125), 0x3555);
    }

    #[test]
    fn npy_round_trip() {
        let b = npy_write(Dtype::I16, &[1, 0xffff, 7]);
        assert_eq!(npy_read(&b).unwrap(), (Dtype::I16, vec![1, 0xffff, 7]));
    }

    #[test]
    fn headers() {
        let t = parse_file(
            "// run: --grid 1 --block 32\n// arg: u32[4] = [1, 2, 3, 4]\n// arg: zeros:u32:4\n// expect arg1: u32 iota\n// expect arg1[2..]: [2, 3]\n.version 8.0\n// expect arg0: ignored\n",
        )
        .unwrap();
        assert_eq!(t.run, ["--grid", "1", "--block", "32"]);
        assert_eq!(t.args.len(), 2);
        assert_eq!(t.expects.len(), 2);
        assert_eq!(t.expects[1].range, Some((2, None)));
        assert!(parse_file("// run: --grid 1 --block 1\n").is_err());
    }
}
