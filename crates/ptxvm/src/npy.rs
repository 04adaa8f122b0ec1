//! Minimal NumPy `.npy` reading and writing (format versions 1–3, little-endian or
//! byte-sized dtypes, C order), for `ptxvm run`'s buffer arguments and `--out` files.
//! Parsing never trusts the file: header lengths, the shape's element count and the data
//! size are checked, and an array is written back with the dtype it was read with
//! (`|b1` stays `|b1`).

use std::fmt::Write;

/// A supported element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dtype {
    F16,
    F32,
    F64,
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    /// NumPy's `bool` (`|b1`): one byte per element.
    Bool,
}

impl Dtype {
    /// Parses the names `ptxvm run` accepts (`f32`, `i64`, ...).
    pub fn from_name(s: &str) -> Option<Dtype> {
        Some(match s {
            "f16" => Dtype::F16,
            "f32" => Dtype::F32,
            "f64" => Dtype::F64,
            "u8" => Dtype::U8,
            "u16" => Dtype::U16,
            "u32" => Dtype::U32,
            "u64" => Dtype::U64,
            "i8" => Dtype::I8,
            "i16" => Dtype::I16,
            "i32" => Dtype::I32,
            "i64" => Dtype::I64,
            "bool" => Dtype::Bool,
            _ => return None,
        })
    }

    pub fn size(self) -> usize {
        match self {
            Dtype::U8 | Dtype::I8 | Dtype::Bool => 1,
            Dtype::F16 | Dtype::U16 | Dtype::I16 => 2,
            Dtype::F32 | Dtype::U32 | Dtype::I32 => 4,
            Dtype::F64 | Dtype::U64 | Dtype::I64 => 8,
        }
    }

    fn descr(self) -> &'static str {
        match self {
            Dtype::F16 => "<f2",
            Dtype::F32 => "<f4",
            Dtype::F64 => "<f8",
            Dtype::U8 => "|u1",
            Dtype::U16 => "<u2",
            Dtype::U32 => "<u4",
            Dtype::U64 => "<u8",
            Dtype::I8 => "|i1",
            Dtype::I16 => "<i2",
            Dtype::I32 => "<i4",
            Dtype::I64 => "<i8",
            Dtype::Bool => "|b1",
        }
    }

    fn from_descr(d: &str) -> Option<Dtype> {
        let d = d.trim_start_matches(['<', '|', '=']);
        Some(match d {
            "f2" => Dtype::F16,
            "f4" => Dtype::F32,
            "f8" => Dtype::F64,
            "u1" => Dtype::U8,
            "u2" => Dtype::U16,
            "u4" => Dtype::U32,
            "u8" => Dtype::U64,
            "i1" => Dtype::I8,
            "b1" => Dtype::Bool,
            "i2" => Dtype::I16,
            "i4" => Dtype::I32,
            "i8" => Dtype::I64,
            _ => return None,
        })
    }
}

/// An array: element type, shape and raw little-endian bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Array {
    pub dtype: Dtype,
    pub shape: Vec<usize>,
    pub data: Vec<u8>,
}

/// Parses `.npy` bytes.
pub fn parse(bytes: &[u8]) -> Result<Array, String> {
    let (dtype, shape, start, n) = parse_header(bytes)?;
    Ok(Array {
        dtype,
        shape,
        data: bytes[start..start + n].to_vec(),
    })
}

/// [`parse`] of a buffer it may keep: the data stays where it is (no second copy of a large
/// array).
pub fn parse_vec(mut bytes: Vec<u8>) -> Result<Array, String> {
    let (dtype, shape, start, n) = parse_header(&bytes)?;
    bytes.truncate(start + n);
    bytes.drain(..start);
    Ok(Array {
        dtype,
        shape,
        data: bytes,
    })
}

/// The dtype, shape, data offset and data size of `.npy` bytes (the data checked to be there).
fn parse_header(bytes: &[u8]) -> Result<(Dtype, Vec<usize>, usize, usize), String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (bad magic)".into());
    }
    let major = bytes[6];
    let (hlen, start) = match major {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err("truncated .npy header".into());
            }
            (
                u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
                12,
            )
        }
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let header = bytes
        .get(start..start + hlen)
        .ok_or("truncated .npy header")?;
    let header = std::str::from_utf8(header).map_err(|_| "non-UTF-8 .npy header")?;
    let field = |key: &str| -> Option<&str> {
        let i = header.find(&format!("'{key}'"))?;
        let rest = &header[i + key.len() + 2..];
        let rest = rest.trim_start().strip_prefix(':')?.trim_start();
        Some(rest)
    };
    let descr = field("descr").ok_or("no descr in .npy header")?;
    let descr = descr
        .strip_prefix('\'')
        .and_then(|d| d.split('\'').next())
        .ok_or("bad descr")?;
    if descr.starts_with('>') && !descr.ends_with('1') {
        return Err(format!("big-endian dtype `{descr}` is not supported"));
    }
    let dtype = Dtype::from_descr(descr).ok_or_else(|| format!("unsupported dtype `{descr}`"))?;
    if field("fortran_order").is_some_and(|f| f.starts_with("True")) {
        return Err("Fortran-ordered arrays are not supported".into());
    }
    let shape_txt = field("shape").ok_or("no shape in .npy header")?;
    let shape_txt = shape_txt
        .strip_prefix('(')
        .and_then(|s| s.split(')').next())
        .ok_or("bad shape")?;
    let shape: Vec<usize> = shape_txt
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.trim_end_matches('L')
                .parse::<usize>()
                .map_err(|_| format!("bad shape entry `{s}`"))
        })
        .collect::<Result<_, _>>()?;
    if shape.len() > 64 {
        return Err(format!("{} dimensions (NumPy allows 64)", shape.len()));
    }
    let nbytes = shape
        .iter()
        .try_fold(dtype.size(), |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| format!("the shape {shape:?} has more bytes than can be addressed"))?;
    let data_start = start + hlen;
    let have = bytes.len() - data_start.min(bytes.len());
    if have < nbytes {
        return Err(format!(
            "truncated data: the shape {shape:?} needs {nbytes} bytes, the file has {have}"
        ));
    }
    Ok((dtype, shape, data_start, nbytes))
}

/// The `.npy` header (version 1.0) of an array of this dtype and shape; the data follows.
pub fn header(dtype: Dtype, shape: &[usize]) -> Vec<u8> {
    let mut dict = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': (",
        dtype.descr()
    );
    for s in shape {
        let _ = write!(dict, "{s},");
    }
    if shape.len() > 1 {
        dict.pop();
    }
    dict.push_str("), }");
    let total = 10 + dict.len() + 1;
    let pad = (64 - total % 64) % 64;
    dict.push_str(&" ".repeat(pad));
    dict.push('\n');
    let mut out = Vec::with_capacity(10 + dict.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

/// Serialises an array as `.npy` (version 1.0).
pub fn write(a: &Array) -> Vec<u8> {
    let mut out = header(a.dtype, &a.shape);
    out.extend_from_slice(&a.data);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let a = Array {
            dtype: Dtype::F32,
            shape: vec![3],
            data: [1.0f32, 2.0, 3.5]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
        };
        let bytes = write(&a);
        assert_eq!((bytes.len() - 12) % 64, 0, "header padded to 64 bytes");
        assert_eq!(parse(&bytes).unwrap(), a);
        let b = Array {
            dtype: Dtype::I64,
            shape: vec![2, 2],
            data: vec![0; 32],
        };
        assert_eq!(parse(&write(&b)).unwrap(), b);
        assert!(parse(b"nope").is_err());
        let c = Array {
            dtype: Dtype::Bool,
            shape: vec![3],
            data: vec![1, 0, 1],
        };
        let bytes = write(&c);
        assert!(String::from_utf8_lossy(&bytes).contains("'|b1'"));
        assert_eq!(parse(&bytes).unwrap(), c);
    }

    #[test]
    fn hostile_headers_are_errors() {
        let with_header = |h: &str| {
            let mut v = b"\x93NUMPY\x01\x00".to_vec();
            v.extend_from_slice(&(h.len() as u16).to_le_bytes());
            v.extend_from_slice(h.as_bytes());
            v
        };
        for h in [
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (18446744073709551615, 2), }",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }",
            "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
            "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }",
            "{'descr",
        ] {
            assert!(parse(&with_header(h)).is_err(), "{h}");
        }
        let mut v = b"\x93NUMPY\x02\x00".to_vec();
        v.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(parse(&v).is_err());
    }
}
