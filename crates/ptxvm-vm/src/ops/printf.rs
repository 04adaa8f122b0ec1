//! CUDA `vprintf(fmt, args)`: the format string is a NUL-terminated string at a generic
//! address; `args` points to a buffer where each argument is stored at the next offset
//! aligned to its own size (integers of 4 or 8 bytes, `double` 8 bytes, pointers 8 bytes).
//!
//! Conversions: `%d %i %u %x %X %o %c %s %p %f %F %e %E %g %G %%` with the flags
//! `- + space 0 #`, a width and a precision (both possibly `*`, read as 4-byte `int`
//! arguments), and the length modifiers `hh h l ll z j t` (`l`, `ll`, `z`, `j`, `t` make an
//! integer argument 8 bytes; `hh`/`h` truncate the promoted 4-byte value). `%p` prints
//! `0x` and lowercase hex; a null `%s` prints `(null)`. An unknown conversion is copied
//! to the output as written. Floating-point text follows C (`inf`, `nan`, exponent with at
//! least two digits).

/// Reads guest memory at a generic address; `Err` carries the fault message.
pub type ReadFn<'a> = dyn FnMut(u64, &mut [u8]) -> Result<(), String> + 'a;

/// Longest string `%s` (or the format) reads before giving up.
pub const MAX_STR: usize = 1 << 16;

/// Reads a NUL-terminated string (at most `limit` bytes), in chunks that do not cross a
/// 64-byte boundary; a chunk that cannot be read whole (the string ends just before the end
/// of its allocation) is read byte by byte, so only a byte the string really needs can fault.
pub fn read_cstr(read: &mut ReadFn, addr: u64, limit: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut a = addr;
    let mut chunk = [0u8; 64];
    while out.len() < limit {
        let n = (64 - (a % 64) as usize).min(limit - out.len());
        let buf = &mut chunk[..n];
        if read(a, buf).is_err() {
            for (k, b) in buf.iter_mut().enumerate() {
                let mut one = [0u8; 1];
                read(a.wrapping_add(k as u64), &mut one)?;
                *b = one[0];
                if one[0] == 0 {
                    break;
                }
            }
        }
        match buf.iter().position(|&b| b == 0) {
            Some(z) => {
                out.extend_from_slice(&buf[..z]);
                break;
            }
            None => out.extend_from_slice(buf),
        }
        a = a.wrapping_add(n as u64);
    }
    Ok(out)
}

/// Digits Rust's formatter is asked for at most. A finite double has at most 1074 digits
/// after the point and 767 significant digits, so every further digit is a zero and is
/// appended by hand (Rust's formatter panics for precisions of 65536 and more).
const MAX_RUST_PREC: usize = 1100;

/// `{x:.prec$}` for any precision.
fn fixed(x: f64, prec: usize) -> String {
    let p = prec.min(MAX_RUST_PREC);
    let mut s = format!("{x:.p$}");
    s.extend(std::iter::repeat_n('0', prec - p));
    s
}

/// `{x:.prec$e}` for any precision: mantissa digits, `e`, exponent.
fn sci(x: f64, prec: usize) -> String {
    let p = prec.min(MAX_RUST_PREC);
    let s = format!("{x:.p$e}");
    if prec == p {
        return s;
    }
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    format!("{m}{}e{e}", "0".repeat(prec - p))
}

struct Args<'r, 'a> {
    read: &'r mut ReadFn<'a>,
    base: u64,
    off: u64,
    count: u32,
}

impl Args<'_, '_> {
    fn next(&mut self, size: u64) -> Result<u64, String> {
        self.off = self.off.div_ceil(size) * size;
        let mut buf = [0u8; 8];
        (self.read)(self.base.wrapping_add(self.off), &mut buf[..size as usize])
            .map_err(|e| format!("vprintf argument {}: {e}", self.count + 1))?;
        self.off += size;
        self.count += 1;
        Ok(u64::from_le_bytes(buf))
    }
}

#[derive(Default, Clone, Copy)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    zero: bool,
    alt: bool,
    width: usize,
    prec: Option<usize>,
}

fn pad(out: &mut Vec<u8>, s: &Spec, sign: &str, prefix: &str, body: &[u8], zero_ok: bool) {
    let len = sign.len() + prefix.len() + body.len();
    let fill = s.width.saturating_sub(len);
    if s.left {
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(body);
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if s.zero && zero_ok {
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(prefix.as_bytes());
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend_from_slice(body);
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(body);
    }
}

fn sign_of(neg: bool, s: &Spec) -> &'static str {
    if neg {
        "-"
    } else if s.plus {
        "+"
    } else if s.space {
        " "
    } else {
        ""
    }
}

/// C's `%e` body for a finite non-negative value.
fn fmt_e(x: f64, prec: usize, upper: bool, alt: bool) -> String {
    let s = sci(x, prec);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut m = mant.to_string();
    if alt && prec == 0 {
        m.push('.');
    }
    let e = if upper { 'E' } else { 'e' };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{m}{e}{sign}{:02}", exp.unsigned_abs())
}

fn strip_zeros(s: &mut String) {
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
}

fn fmt_float(out: &mut Vec<u8>, s: &Spec, conv: u8, x: f64) {
    let upper = conv.is_ascii_uppercase();
    let neg = x.is_sign_negative();
    let sign = sign_of(neg, s);
    let a = x.abs();
    if !a.is_finite() {
        let t = if a.is_nan() { "nan" } else { "inf" };
        let t = if upper {
            t.to_uppercase()
        } else {
            t.to_string()
        };
        pad(out, s, sign, "", t.as_bytes(), false);
        return;
    }
    let prec = s.prec.unwrap_or(6);
    let body = match conv {
        b'f' | b'F' => {
            let mut b = fixed(a, prec);
            if s.alt && prec == 0 {
                b.push('.');
            }
            b
        }
        b'e' | b'E' => fmt_e(a, prec, upper, s.alt),
        _ => {
            // %g: precision P (0 means 1); exponent X from the %e form with P-1 digits.
            let p = if prec == 0 { 1 } else { prec };
            let e = fmt_e(a, p - 1, false, false);
            let x_exp: i64 = e
                .rsplit_once('e')
                .and_then(|(_, t)| t.parse().ok())
                .unwrap_or(0);
            let mut b = if (p as i64) > x_exp && x_exp >= -4 {
                let fp = (p as i64 - 1 - x_exp) as usize;
                fixed(a, fp)
            } else {
                fmt_e(a, p - 1, upper, false)
            };
            if !s.alt {
                if let Some(i) = b.find(['e', 'E']) {
                    let (m, ex) = b.split_at(i);
                    let mut m = m.to_string();
                    strip_zeros(&mut m);
                    b = format!("{m}{ex}");
                } else {
                    strip_zeros(&mut b);
                }
            } else if !b.contains('.') {
                match b.find(['e', 'E']) {
                    Some(i) => b.insert(i, '.'),
                    None => b.push('.'),
                }
            }
            b
        }
    };
    pad(out, s, sign, "", body.as_bytes(), true);
}

fn fmt_int(out: &mut Vec<u8>, s: &Spec, conv: u8, v: u64, neg: bool) {
    let mut digits = match conv {
        b'x' => format!("{v:x}"),
        b'X' => format!("{v:X}"),
        b'o' => format!("{v:o}"),
        _ => format!("{v}"),
    };
    if let Some(p) = s.prec {
        if p == 0 && v == 0 {
            digits.clear();
        }
        if digits.len() < p {
            digits = "0".repeat(p - digits.len()) + &digits;
        }
    }
    let mut prefix = "";
    if s.alt {
        match conv {
            b'x' if v != 0 => prefix = "0x",
            b'X' if v != 0 => prefix = "0X",
            b'o' if !digits.starts_with('0') => digits.insert(0, '0'),
            _ => {}
        }
    }
    let signed = matches!(conv, b'd' | b'i');
    let sign = if signed { sign_of(neg, s) } else { "" };
    pad(out, s, sign, prefix, digits.as_bytes(), s.prec.is_none());
}

/// Formats `fmt` with the arguments at `args`. Returns the text, the number of arguments
/// consumed, and whether the text is complete: formatting stops (false) once the text is
/// longer than `limit` bytes, so the work done for one call is bounded by what can be kept.
pub fn format(
    fmt: &[u8],
    args: u64,
    read: &mut ReadFn,
    limit: usize,
) -> Result<(Vec<u8>, u32, bool), String> {
    let mut out = Vec::new();
    let mut ar = Args {
        read,
        base: args,
        off: 0,
        count: 0,
    };
    let mut i = 0;
    while i < fmt.len() {
        if out.len() > limit {
            return Ok((out, ar.count, false));
        }
        let ch = fmt[i];
        if ch != b'%' {
            out.push(ch);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut s = Spec::default();
        while let Some(&f) = fmt.get(i) {
            match f {
                b'-' => s.left = true,
                b'+' => s.plus = true,
                b' ' => s.space = true,
                b'0' => s.zero = true,
                b'#' => s.alt = true,
                _ => break,
            }
            i += 1;
        }
        if fmt.get(i) == Some(&b'*') {
            let w = ar.next(4)? as u32 as i32;
            if w < 0 {
                s.left = true;
            }
            s.width = w.unsigned_abs() as usize;
            i += 1;
        } else {
            while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                s.width = s
                    .width
                    .saturating_mul(10)
                    .saturating_add((d - b'0') as usize);
                i += 1;
            }
        }
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                let p = ar.next(4)? as u32 as i32;
                s.prec = if p < 0 { None } else { Some(p as usize) };
                i += 1;
            } else {
                let mut p = 0usize;
                while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                    p = p.saturating_mul(10).saturating_add((d - b'0') as usize);
                    i += 1;
                }
                s.prec = Some(p);
            }
        }
        // Widths and precisions from guest data are bounded by what the output can still
        // take (and 16 MiB): one conversion never produces much more than that.
        let cap = limit
            .saturating_sub(out.len())
            .saturating_add(1)
            .min(1 << 24);
        s.width = s.width.min(cap);
        s.prec = s.prec.map(|p| p.min(cap));
        // Length modifiers: bits of the (promoted) argument value.
        let mut len_bits = 32u32;
        let mut wide = false;
        loop {
            match fmt.get(i) {
                Some(b'h') => {
                    len_bits = if len_bits == 16 { 8 } else { 16 };
                }
                Some(b'l') | Some(b'z') | Some(b'j') | Some(b't') | Some(b'L') | Some(b'q') => {
                    wide = true;
                }
                _ => break,
            }
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        i += 1;
        match conv {
            b'%' => out.push(b'%'),
            b'd' | b'i' => {
                let raw = ar.next(if wide { 8 } else { 4 })?;
                let bits = if wide { 64 } else { len_bits };
                let v = ((raw << (64 - bits)) as i64) >> (64 - bits);
                fmt_int(&mut out, &s, conv, v.unsigned_abs(), v < 0);
            }
            b'u' | b'x' | b'X' | b'o' => {
                let raw = ar.next(if wide { 8 } else { 4 })?;
                let bits = if wide { 64 } else { len_bits };
                let v = if bits >= 64 {
                    raw
                } else {
                    raw & ((1u64 << bits) - 1)
                };
                fmt_int(&mut out, &s, conv, v, false);
            }
            b'c' => {
                let raw = ar.next(if wide { 8 } else { 4 })?;
                pad(&mut out, &s, "", "", &[raw as u8], false);
            }
            b's' => {
                let p = ar.next(8)?;
                // Never read more than the output can still take.
                let room = limit.saturating_sub(out.len()).saturating_add(1);
                let max = s.prec.unwrap_or(MAX_STR).min(room);
                let text = if p == 0 {
                    b"(null)".to_vec()
                } else {
                    read_cstr(ar.read, p, max).map_err(|e| format!("vprintf %s: {e}"))?
                };
                pad(&mut out, &s, "", "", &text, false);
            }
            b'p' => {
                let p = ar.next(8)?;
                let body = format!("{p:x}");
                pad(&mut out, &s, "", "0x", body.as_bytes(), false);
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' => {
                let raw = ar.next(8)?;
                fmt_float(&mut out, &s, conv, f64::from_bits(raw));
            }
            _ => out.extend_from_slice(&fmt[start..i]),
        }
    }
    let complete = out.len() <= limit;
    Ok((out, ar.count, complete))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(fmt: &str, args: &[u8]) -> String {
        let buf = args.to_vec();
        let mut read = |a: u64, out: &mut [u8]| -> Result<(), String> {
            let a = a as usize;
            match buf.get(a..a + out.len()) {
                Some(s) => {
                    out.copy_from_slice(s);
                    Ok(())
                }
                None => Err("out of range".into()),
            }
        };
        String::from_utf8(format(fmt.as_bytes(), 0, &mut read, usize::MAX).unwrap().0).unwrap()
    }

    #[test]
    fn c_compatible() {
        let mut a = Vec::new();
        a.extend_from_slice(&(-42i32).to_le_bytes());
        a.extend_from_slice(&[0; 4]);
        a.extend_from_slice(&1.5f64.to_le_bytes());
        assert_eq!(run("[%5d|%-5d|%+.3f]", &a), "[  -42|0    |+1.500]");
        assert_eq!(run("%d %e", &a), "-42 1.500000e+00");
        assert_eq!(run("%08.3f", &1.5f64.to_le_bytes()), "0001.500");
        assert_eq!(
            run(
                "%g %g",
                &[1e-5f64.to_le_bytes(), 123456789.0f64.to_le_bytes()].concat()
            ),
            "1e-05 1.23457e+08"
        );
        assert_eq!(
            run(
                "%#x %#o %X",
                &[
                    255u32.to_le_bytes(),
                    8u32.to_le_bytes(),
                    0xabu32.to_le_bytes()
                ]
                .concat()
            ),
            "0xff 010 AB"
        );
        assert_eq!(
            run(
                "%hhd %hu",
                &[0x1ffu32.to_le_bytes(), 0x12345u32.to_le_bytes()].concat()
            ),
            "-1 9029"
        );
        assert_eq!(
            run(
                "%*d|%.*d",
                &[
                    4i32.to_le_bytes(),
                    7i32.to_le_bytes(),
                    3i32.to_le_bytes(),
                    5i32.to_le_bytes()
                ]
                .concat()
            ),
            "   7|005"
        );
        assert_eq!(run("100%%", &[]), "100%");
        assert_eq!(run("%g", &0.0001f64.to_le_bytes()), "0.0001");
        assert_eq!(run("%G", &f64::INFINITY.to_le_bytes()), "INF");
    }

    #[test]
    fn huge_precisions_and_widths_are_exact_and_do_not_panic() {
        let one = 1.5f64.to_le_bytes();
        let e = run("%.70000e", &one);
        assert_eq!(e.len(), "1.".len() + 70000 + "e+00".len());
        assert!(
            e.starts_with("1.5000") && e.ends_with("0e+00"),
            "{}",
            &e[..20]
        );
        let f = run("%.65536f", &one);
        assert_eq!(f.len(), 2 + 65536);
        let g = run("%#.65536g", &one);
        assert!(g.starts_with("1.5000") && g.len() == 65537, "{}", g.len());
        assert_eq!(run("%.65536g", &one), "1.5");
        // The precision read from the arguments (`%.*f`), capped like a literal one.
        let mut a = 100000i32.to_le_bytes().to_vec();
        a.extend_from_slice(&[0; 4]);
        a.extend_from_slice(&one);
        assert_eq!(run("%.*f", &a).len(), 2 + 100000);
        // Integer precision is linear, not quadratic.
        assert_eq!(run("%.65536d", &7i32.to_le_bytes()).len(), 65536);
        // The smallest subnormal has 1074 digits after the point: all exact.
        let tiny = f64::from_bits(1).to_le_bytes();
        let t = run("%.1100f", &tiny);
        assert!(t.ends_with(&"0".repeat(26)) && t.contains("4940656"), "{t}");
    }

    #[test]
    fn output_stops_at_the_limit() {
        let buf = 5i32.to_le_bytes().repeat(1000);
        let mut read = |a: u64, out: &mut [u8]| -> Result<(), String> {
            let a = a as usize;
            out.copy_from_slice(buf.get(a..a + out.len()).ok_or("out of range")?);
            Ok(())
        };
        let fmt = "%60000d".repeat(1000);
        let (text, _, complete) = format(fmt.as_bytes(), 0, &mut read, 1 << 20).unwrap();
        assert!(!complete);
        assert!(text.len() < (1 << 20) + 70000);
    }
}
