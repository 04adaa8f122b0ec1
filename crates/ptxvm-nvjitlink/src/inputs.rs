//! What an input contributes to a link: PTX text (from PTX, ptxvm containers and fatbin PTX
//! entries) or NVVM IR for NVIDIA's nvJitLink (LTO-IR, and fatbins whose only usable code is
//! NVVM IR). Host objects and `ar` libraries are opened for the fatbins in their
//! `.nv_fatbin` / `__nv_relfatbin` sections. Nothing here trusts a size or offset.

use crate::api::*;
use crate::image::{self, EntryKind};
use ptxvm_vm::container::{Container, EM_CUDA};

/// The first bytes of LTO-IR (NVVM's container, as numba-cuda and NVRTC `-dlto` emit it).
pub const LTOIR_MAGIC: [u8; 4] = [0xed, 0x43, 0x4e, 0x7f];
/// Raw LLVM bitcode.
const BITCODE_MAGIC: [u8; 4] = [b'B', b'C', 0xc0, 0xde];
const FATBIN_MAGIC: [u8; 4] = 0xba55_ed50u32.to_le_bytes();
const ELF_MAGIC: &[u8] = b"\x7fELF";
const AR_MAGIC: &[u8] = b"!<arch>\n";

/// One piece of a link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// PTX for ptxvm's linker.
    Ptx { name: String, text: String },
    /// For NVIDIA's nvJitLink, with the input type to give it (`LTOIR` or `FATBIN`).
    Nvvm {
        name: String,
        input_type: u32,
        bytes: Vec<u8>,
    },
}

/// A refused input: the code and the error log line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub code: u32,
    pub msg: String,
}

fn err(code: u32, msg: String) -> InputError {
    InputError { code, msg }
}

fn wrong_type(name: &str, ty: &str) -> InputError {
    err(
        NVJITLINK_ERROR_INCORRECT_INPUT_TYPE,
        format!("ERROR 1: bad input: {name} does not match type NVJITLINK_INPUT_{ty}"),
    )
}

fn u16_at(b: &[u8], o: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        b.get(o..o.checked_add(2)?)?.try_into().ok()?,
    ))
}
fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(o..o.checked_add(4)?)?.try_into().ok()?,
    ))
}
fn u64_at(b: &[u8], o: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        b.get(o..o.checked_add(8)?)?.try_into().ok()?,
    ))
}

fn is_cuda_elf(b: &[u8]) -> bool {
    b.starts_with(ELF_MAGIC) && u16_at(b, 18) == Some(EM_CUDA)
}

fn is_ltoir(b: &[u8]) -> bool {
    b.starts_with(&LTOIR_MAGIC) || b.starts_with(&BITCODE_MAGIC)
}

/// The input type `NVJITLINK_INPUT_ANY` stands for, by content.
pub fn classify(b: &[u8]) -> u32 {
    if is_ltoir(b) {
        NVJITLINK_INPUT_LTOIR
    } else if b.starts_with(&FATBIN_MAGIC) {
        NVJITLINK_INPUT_FATBIN
    } else if b.starts_with(AR_MAGIC) {
        NVJITLINK_INPUT_LIBRARY
    } else if is_cuda_elf(b) {
        NVJITLINK_INPUT_CUBIN
    } else if b.starts_with(ELF_MAGIC) {
        NVJITLINK_INPUT_OBJECT
    } else {
        NVJITLINK_INPUT_PTX
    }
}

/// Whether code for `target` (`sm_80`, `sm_90a`) runs on a link for `sm` (specific: the
/// link's arch has the `a`/`f` suffix), as the driver's JIT decides.
pub fn target_runs(target: &str, sm: u32, specific: bool) -> bool {
    let Some(rest) = target
        .strip_prefix("sm_")
        .or(target.strip_prefix("compute_"))
    else {
        return false;
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let Ok(n) = digits.parse::<u32>() else {
        return false;
    };
    match &rest[digits.len()..] {
        "" => n <= sm,
        "a" => n == sm && specific,
        "f" => n / 10 == sm / 10 && n <= sm && specific,
        _ => false,
    }
}

/// The link's view of the target: (sm, arch-specific), and whether NVVM IR is preferred to
/// PTX when a fatbin has both (with `-ptx`, where NVIDIA requires every input to be NVVM IR).
#[derive(Clone, Copy, Debug)]
pub struct Want {
    pub sm: u32,
    pub specific: bool,
    pub prefer_nvvm: bool,
}

/// The pieces of one input of type `input_type`, and notes for the info log (library
/// members skipped).
pub fn pieces(
    input_type: u32,
    data: &[u8],
    name: &str,
    want: Want,
) -> Result<(Vec<Piece>, Vec<String>), InputError> {
    let mut notes = Vec::new();
    let p = pieces_of(input_type, data, name, want, &mut notes)?;
    Ok((p, notes))
}

fn pieces_of(
    input_type: u32,
    data: &[u8],
    name: &str,
    want: Want,
    notes: &mut Vec<String>,
) -> Result<Vec<Piece>, InputError> {
    let t = if input_type == NVJITLINK_INPUT_ANY {
        classify(data)
    } else {
        input_type
    };
    match t {
        NVJITLINK_INPUT_PTX => {
            if is_ltoir(data)
                || data.starts_with(&FATBIN_MAGIC)
                || data.starts_with(ELF_MAGIC)
                || data.starts_with(AR_MAGIC)
            {
                return Err(wrong_type(name, "PTX"));
            }
            let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
            let text = std::str::from_utf8(&data[..end]).map_err(|_| wrong_type(name, "PTX"))?;
            // Every PTX module starts with `.version` (after comments); NVIDIA's library also
            // refuses text that is not PTX when it is added.
            if !text.contains(".version") {
                return Err(wrong_type(name, "PTX"));
            }
            Ok(vec![Piece::Ptx {
                name: name.to_string(),
                text: text.to_string(),
            }])
        }
        NVJITLINK_INPUT_LTOIR => {
            if !is_ltoir(data) {
                return Err(wrong_type(name, "LTOIR"));
            }
            Ok(vec![Piece::Nvvm {
                name: name.to_string(),
                input_type: NVJITLINK_INPUT_LTOIR,
                bytes: data.to_vec(),
            }])
        }
        NVJITLINK_INPUT_CUBIN => {
            if !is_cuda_elf(data) {
                return Err(wrong_type(name, "CUBIN"));
            }
            cubin(data, name, want).map(|p| vec![p])
        }
        NVJITLINK_INPUT_FATBIN => {
            if !data.starts_with(&FATBIN_MAGIC) {
                return Err(wrong_type(name, "FATBIN"));
            }
            fatbins(data, name, want)
        }
        NVJITLINK_INPUT_OBJECT => {
            if !data.starts_with(ELF_MAGIC) || is_cuda_elf(data) {
                return Err(wrong_type(name, "OBJECT"));
            }
            let p = object(data, name, want)?;
            if p.is_empty() {
                return Err(err(
                    NVJITLINK_ERROR_MISSING_FATBIN,
                    format!("ERROR: {name} holds no device code (no .nv_fatbin section)"),
                ));
            }
            Ok(p)
        }
        NVJITLINK_INPUT_LIBRARY => {
            if !data.starts_with(AR_MAGIC) {
                return Err(wrong_type(name, "LIBRARY"));
            }
            library(data, name, want, notes)
        }
        NVJITLINK_INPUT_INDEX => Err(err(
            NVJITLINK_ERROR_UNRECOGNIZED_INPUT,
            format!("ERROR: {name}: ptxvm's nvJitLink does not read index files"),
        )),
        _ => Err(err(
            NVJITLINK_ERROR_INCORRECT_INPUT_TYPE,
            format!("unsupported input type: {name}"),
        )),
    }
}

fn cubin(data: &[u8], name: &str, want: Want) -> Result<Piece, InputError> {
    match Container::from_elf(data) {
        Some(c) if target_runs(&c.target, want.sm, want.specific) => Ok(Piece::Ptx {
            name: name.to_string(),
            text: c.ptx,
        }),
        Some(c) => Err(err(
            NVJITLINK_ERROR_ARCH_MISMATCH,
            format!(
                "ERROR: {name} is a ptxvm container for {}, which does not run on sm_{}",
                c.target, want.sm
            ),
        )),
        None => Err(err(
            NVJITLINK_ERROR_UNRECOGNIZED_INPUT,
            format!(
                "ERROR: {name} is a cubin of SASS machine code (sm_{}); ptxvm runs PTX, not SASS: link PTX, LTO-IR or a fatbin with PTX instead",
                u32_at(data, 0x30).unwrap_or(0) & 0xff
            ),
        )),
    }
}

/// Every fatbin in `data` (a fatbin, or fatbins back to back as in a `.nv_fatbin` section).
fn fatbins(data: &[u8], name: &str, want: Want) -> Result<Vec<Piece>, InputError> {
    let mut out = Vec::new();
    let mut off = 0usize;
    let mut k = 0;
    while off < data.len() {
        let rest = &data[off..];
        if !rest.starts_with(&FATBIN_MAGIC) {
            // Alignment padding between fatbins.
            if rest.iter().take(16).all(|&b| b == 0) {
                off = off.saturating_add(8);
                continue;
            }
            break;
        }
        let (entries, used) = image::parse_fatbin(rest)
            .map_err(|e| err(NVJITLINK_ERROR_INVALID_INPUT, format!("ERROR: {name}: {e}")))?;
        let bytes = rest.get(..used).unwrap_or(rest);
        let label = if k == 0 {
            name.to_string()
        } else {
            format!("{name}#{k}")
        };
        out.push(fatbin_piece(&entries, bytes, &label, want)?);
        k += 1;
        off = off.saturating_add(used.max(16));
    }
    if out.is_empty() {
        return Err(err(
            NVJITLINK_ERROR_INVALID_INPUT,
            format!("ERROR: {name}: not a fatbin"),
        ));
    }
    Ok(out)
}

fn fatbin_piece(
    entries: &[image::FatbinEntry],
    bytes: &[u8],
    name: &str,
    want: Want,
) -> Result<Piece, InputError> {
    let nvvm = entries.iter().any(|e| e.kind == EntryKind::Other(8));
    let as_nvvm = || Piece::Nvvm {
        name: name.to_string(),
        input_type: NVJITLINK_INPUT_FATBIN,
        bytes: bytes.to_vec(),
    };
    if nvvm && want.prefer_nvvm {
        return Ok(as_nvvm());
    }
    for e in entries {
        if e.kind == EntryKind::Elf
            && let Some(c) = Container::from_elf(&e.payload)
            && target_runs(&c.target, want.sm, want.specific)
        {
            return Ok(Piece::Ptx {
                name: name.to_string(),
                text: c.ptx,
            });
        }
    }
    if let Ok(e) = image::select_ptx(entries, want.sm) {
        let text = e
            .ptx_text()
            .map_err(|x| err(NVJITLINK_ERROR_INVALID_INPUT, format!("ERROR: {name}: {x}")))?;
        return Ok(Piece::Ptx {
            name: e.identifier.clone().unwrap_or_else(|| name.to_string()),
            text: text.to_string(),
        });
    }
    if nvvm {
        return Ok(as_nvvm());
    }
    let have: Vec<String> = entries
        .iter()
        .map(|e| match e.kind {
            EntryKind::Elf => format!("{} (SASS)", e.arch_name()),
            _ => e.arch_name(),
        })
        .collect();
    Err(err(
        NVJITLINK_ERROR_UNRECOGNIZED_INPUT,
        format!(
            "ERROR: {name}: the fatbin has no PTX or NVVM IR for sm_{} (it holds: {}); ptxvm runs PTX, not SASS: build it with PTX (`-gencode arch=compute_XX,code=compute_XX`) or LTO-IR",
            want.sm,
            if have.is_empty() {
                "nothing".to_string()
            } else {
                have.join(", ")
            }
        ),
    ))
}

/// The fatbins of a host object's device-code sections.
fn object(data: &[u8], name: &str, want: Want) -> Result<Vec<Piece>, InputError> {
    let bad = || {
        err(
            NVJITLINK_ERROR_INVALID_INPUT,
            format!("ERROR: {name}: not a 64-bit little-endian ELF object"),
        )
    };
    if data.get(4) != Some(&2) || data.get(5) != Some(&1) {
        return Err(bad());
    }
    let shoff = usize::try_from(u64_at(data, 0x28).ok_or_else(bad)?).map_err(|_| bad())?;
    let shentsize = u16_at(data, 0x3a).ok_or_else(bad)? as usize;
    let shnum = u16_at(data, 0x3c).ok_or_else(bad)? as usize;
    let shstrndx = u16_at(data, 0x3e).ok_or_else(bad)? as usize;
    if shentsize < 64 {
        return Err(bad());
    }
    let section = |i: usize| -> Option<(u32, u32, &[u8])> {
        let h = shoff.checked_add(i.checked_mul(shentsize)?)?;
        let name = u32_at(data, h)?;
        let kind = u32_at(data, h + 4)?;
        let off = usize::try_from(u64_at(data, h + 24)?).ok()?;
        let size = usize::try_from(u64_at(data, h + 32)?).ok()?;
        let bytes = if kind == 8 {
            &[][..] // SHT_NOBITS
        } else {
            data.get(off..off.checked_add(size)?)?
        };
        Some((name, kind, bytes))
    };
    let (_, _, strtab) = section(shstrndx).ok_or_else(bad)?;
    let mut out = Vec::new();
    for i in 0..shnum {
        let (n, _, bytes) = section(i).ok_or_else(bad)?;
        let Some(s) = strtab.get(n as usize..) else {
            continue;
        };
        let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
        let sname = &s[..end];
        if (sname == b".nv_fatbin" || sname == b"__nv_relfatbin") && !bytes.is_empty() {
            out.extend(fatbins(bytes, name, want)?);
        }
    }
    Ok(out)
}

/// The members of an `ar` archive, each as an object, fatbin, cubin or LTO-IR. A member with
/// no code ptxvm can use (SASS only, as in NVIDIA's `libcudadevrt.a`) is left out with a
/// note: a linker takes from a library only what is referenced, and a reference to what it
/// held is reported as undefined.
fn library(
    data: &[u8],
    name: &str,
    want: Want,
    notes: &mut Vec<String>,
) -> Result<Vec<Piece>, InputError> {
    let bad = |why: &str| {
        err(
            NVJITLINK_ERROR_INVALID_INPUT,
            format!("ERROR: {name}: malformed archive ({why})"),
        )
    };
    let mut out = Vec::new();
    let mut off = AR_MAGIC.len();
    let mut long_names: &[u8] = &[];
    while off < data.len() {
        if data[off] == b'\n' {
            off += 1; // padding to an even offset
            continue;
        }
        let hdr = data
            .get(off..off.checked_add(60).ok_or_else(|| bad("header"))?)
            .ok_or_else(|| bad("truncated header"))?;
        if &hdr[58..60] != b"`\n" {
            return Err(bad("bad member header"));
        }
        let size: usize = std::str::from_utf8(&hdr[48..58])
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .ok_or_else(|| bad("bad member size"))?;
        let start = off + 60;
        let body = data
            .get(start..start.checked_add(size).ok_or_else(|| bad("size"))?)
            .ok_or_else(|| bad("truncated member"))?;
        let raw = std::str::from_utf8(&hdr[..16]).unwrap_or("").trim_end();
        off = start + size;
        let member = if raw == "/" || raw == "/SYM64/" {
            continue; // the symbol table
        } else if raw == "//" {
            long_names = body;
            continue;
        } else if let Some(idx) = raw.strip_prefix('/').and_then(|n| n.parse::<usize>().ok()) {
            let s = long_names.get(idx..).unwrap_or_default();
            let end = s
                .iter()
                .position(|&c| c == b'/' || c == b'\n')
                .unwrap_or(s.len());
            String::from_utf8_lossy(&s[..end]).into_owned()
        } else {
            raw.trim_end_matches('/').to_string()
        };
        let label = format!("{name}({member})");
        let usable = |r: Result<Vec<Piece>, InputError>, notes: &mut Vec<String>| match r {
            Err(e) if e.code == NVJITLINK_ERROR_UNRECOGNIZED_INPUT => {
                notes.push(format!("ptxvm: left out {label}: {}", e.msg));
                Ok(Vec::new())
            }
            r => r,
        };
        match classify(body) {
            NVJITLINK_INPUT_OBJECT => out.extend(usable(object(body, &label, want), notes)?),
            NVJITLINK_INPUT_FATBIN => out.extend(usable(fatbins(body, &label, want), notes)?),
            NVJITLINK_INPUT_CUBIN => {
                out.extend(usable(cubin(body, &label, want).map(|p| vec![p]), notes)?)
            }
            NVJITLINK_INPUT_LTOIR => out.push(Piece::Nvvm {
                name: label,
                input_type: NVJITLINK_INPUT_LTOIR,
                bytes: body.to_vec(),
            }),
            _ => {} // not device code
        }
    }
    Ok(out)
}
