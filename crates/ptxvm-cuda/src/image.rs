//! Module images: what `cuModuleLoadData`, `cuLibraryLoadData`, `cuModuleLoadFatBinary` and
//! `cuLinkAddData` receive.
//!
//! An image is told apart by its first bytes ([`image_kind`]):
//!
//! | first bytes | kind |
//! |---|---|
//! | `b1 43 62 46` (u32 0x466243b1) | `__fatBinC_Wrapper_t`: what libcudart passes to `cuLibraryLoadData` |
//! | `50 ed 55 ba` (u32 0xba55ed50) | a fatbin (`nvcc -fatbin`, the `.nv_fatbin` section) |
//! | `7f 45 4c 46` (`\x7fELF`) | a cubin (SASS): ptxvm cannot run it |
//! | `!<arch>\n` | an archive (`cuLinkAddData` of a device library) |
//! | anything else | NUL-terminated PTX text |
//!
//! # Layouts (little endian, measured on nvcc 13.5; see `tools/gen_driver_images.sh`)
//!
//! Wrapper (24 bytes): u32 magic, u32 version, u64 `data` (→ fatbin), u64 `filename_or_fatbins`.
//! Version 1: `data` is the module's fatbin. Version 2 (the device-link wrapper nvcc 13 always
//! adds): `data` is the device-link fatbin (16 bytes, no entries, unless relocatable device code
//! was linked) and `filename_or_fatbins` a NULL-terminated list of fatbin pointers, filled at
//! startup with the `-rdc=true` translation units' fatbins.
//!
//! Fatbin header (16 bytes): u32 magic, u16 version (1), u16 header_size (16), u64 fat_size
//! (bytes of entries after the header). Entries follow back to back; each is
//!
//! | offset | field |
//! |---|---|
//! | 0 | u16 kind: 1 PTX, 2 ELF (cubin), 8 NVVM IR (`code=lto_XX`) |
//! | 2 | u16 entry version (0x0101) |
//! | 4 | u32 header_size (≥ 64; the payload starts at entry + header_size) |
//! | 8 | u64 payload_size (stored bytes, padded to 8; the next entry is at payload end) |
//! | 16 | u32 compressed_size (0 when stored uncompressed) |
//! | 20 | u32 options offset (PTX, NVVM: → {u32 offset, u32 len} of the options string; ELF for sm_100+: → a binary descriptor, not read here) |
//! | 24 | u16 minor, u16 major (PTX ISA 9.5 / ELF ABI 1.8 / NVVM 1.67) |
//! | 28 | u32 arch (80 = sm_80 / compute_80) |
//! | 32 | u32 identifier offset, u32 identifier length (the source file, with `-lineinfo` / `-G`) |
//! | 40 | u64 flags (see the `FLAG_*` constants of [`FatbinEntry`]) |
//! | 48 | u64 key of an obfuscated entry (NVVM IR), else 0 |
//! | 56 | u64 uncompressed_size (0 when stored uncompressed) |
//!
//! String offsets are relative to the entry and must lie inside its header. Compressed
//! payloads are one zstd frame (flag 0x8000, nvcc 13's default for PTX) or one LZ4 block (flag
//! 0x2000, `--compress-mode=speed` and CUDA 12's default) of `compressed_size` bytes that
//! decompress to exactly `uncompressed_size` bytes. PTX payloads end with a NUL.
//!
//! # Limits
//!
//! Nothing here panics or trusts a size: every offset is checked arithmetic, and allocations are
//! bounded by the input's length or by these caps:
//! [`MAX_PTX_TEXT`] (PTX text behind a bare pointer), [`MAX_IMAGE_BYTES`] (a fatbin or cubin behind
//! a bare pointer), [`MAX_DECOMPRESSED`] (one decompressed entry), [`MAX_WRAPPER_FATBINS`] (a v2
//! wrapper's list).

use std::fmt;
use std::io::Read;

/// Longest NUL-terminated PTX text [`read_image`] accepts (1 GiB): it scans at most this many
/// bytes (plus one for the NUL) for the terminator.
pub const MAX_PTX_TEXT: usize = 1 << 30;
/// Largest fatbin or cubin [`read_image`] accepts behind a bare pointer (1 GiB), as its headers
/// declare it.
pub const MAX_IMAGE_BYTES: u64 = 1 << 30;
/// Largest decompressed size of one fatbin entry (1 GiB). Allocation also follows real output,
/// never the declared size alone: zstd output grows as it is decoded, and an LZ4 block's
/// declared size must be reachable from its compressed size (LZ4's ratio is below 255:1).
pub const MAX_DECOMPRESSED: u64 = 1 << 30;
/// Most fatbins a v2 wrapper's NULL-terminated list may hold.
pub const MAX_WRAPPER_FATBINS: usize = 1 << 16;

const WRAPPER_MAGIC: u32 = 0x4662_43b1;
const FATBIN_MAGIC: u32 = 0xba55_ed50;
const ELF_MAGIC: &[u8; 4] = b"\x7fELF";
const ARCHIVE_MAGIC: &[u8; 8] = b"!<arch>\n";
const WRAPPER_SIZE: usize = 24;
const FATBIN_HEADER_SIZE: usize = 16;
const ENTRY_HEADER_SIZE: usize = 64;
/// zstd's window may exceed the content size for frames that are not single-segment; allow
/// this much window (allocated up front by the decoder) even for small entries.
const MIN_ZSTD_WINDOW: u64 = 8 << 20;

/// What the first bytes say an image is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind {
    /// `__fatBinC_Wrapper_t` (magic 0x466243b1).
    Wrapper,
    /// A fatbin (magic 0xba55ed50).
    Fatbin,
    /// An ELF file: a cubin.
    Elf,
    /// A `!<arch>` archive.
    Archive,
    /// Anything else: PTX text.
    Text,
}

/// Classifies an image by its first bytes (a prefix shorter than a magic number is text).
pub fn image_kind(bytes: &[u8]) -> ImageKind {
    let magic = le_u32(bytes, 0);
    if magic == Some(WRAPPER_MAGIC) {
        ImageKind::Wrapper
    } else if magic == Some(FATBIN_MAGIC) {
        ImageKind::Fatbin
    } else if bytes.starts_with(ELF_MAGIC) {
        ImageKind::Elf
    } else if bytes.starts_with(ARCHIVE_MAGIC) {
        ImageKind::Archive
    } else {
        ImageKind::Text
    }
}

/// The kind of a fatbin entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// PTX text (kind 1).
    Ptx,
    /// A cubin, SASS (kind 2).
    Elf,
    /// Anything else; nvcc writes 8 for NVVM IR (`-gencode ...,code=lto_XX`).
    Other(u16),
}

impl From<u16> for EntryKind {
    fn from(v: u16) -> Self {
        match v {
            1 => EntryKind::Ptx,
            2 => EntryKind::Elf,
            k => EntryKind::Other(k),
        }
    }
}

/// The letter after an arch number: `sm_90a` (arch-specific, flag 0x100000) or `sm_100f`
/// (family-specific, flag 0x200000). The arch number itself carries no suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ArchSuffix {
    /// Plain `compute_80` / `sm_80`: PTX runs on this and every later device.
    None,
    /// `f`: PTX runs on devices of the same family (same major) with the same or higher minor.
    F,
    /// `a`: PTX runs on exactly this compute capability.
    A,
}

impl ArchSuffix {
    fn as_str(self) -> &'static str {
        match self {
            ArchSuffix::None => "",
            ArchSuffix::F => "f",
            ArchSuffix::A => "a",
        }
    }
}

/// A decompression codec of fatbin entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    /// One LZ4 block (flag 0x2000).
    Lz4,
    /// One zstd frame (flag 0x8000).
    Zstd,
}

impl fmt::Display for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Codec::Lz4 => "LZ4",
            Codec::Zstd => "zstd",
        })
    }
}

/// One fatbin entry, payload decompressed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FatbinEntry {
    pub kind: EntryKind,
    /// The arch number: 80 for `compute_80` / `sm_80`, 90 for `sm_90a`.
    pub arch: u32,
    pub arch_suffix: ArchSuffix,
    /// (major, minor): the PTX ISA version for PTX (9.5), the ELF ABI version for cubins (1.8).
    pub version: (u16, u16),
    /// The raw flags (`FLAG_*`).
    pub flags: u64,
    /// The source file name recorded with `-lineinfo` / `-G` (`vadd.cu`).
    pub identifier: Option<String>,
    /// ptxas options of a PTX entry (`" --generate-line-info "`), nvvm options of an NVVM
    /// entry; `None` when absent or empty, and always for cubins.
    pub options: Option<String>,
    /// The payload, decompressed: for PTX the text, NUL-terminated (stored entries may carry
    /// more NUL padding). An obfuscated entry ([`FatbinEntry::FLAG_OBFUSCATED`], nvcc's LTO IR)
    /// is kept exactly as stored, compressed and obfuscated: its key scheme is unknown, and
    /// ptxvm never needs it.
    pub payload: Vec<u8>,
}

impl FatbinEntry {
    /// 64-bit code.
    pub const FLAG_64BIT: u64 = 0x1;
    /// Has debug info (`-G`).
    pub const FLAG_DEBUG: u64 = 0x2;
    /// Host OS: Linux.
    pub const FLAG_LINUX: u64 = 0x10;
    /// Host OS: macOS.
    pub const FLAG_MAC: u64 = 0x20;
    /// Host OS: Windows.
    pub const FLAG_WINDOWS: u64 = 0x40;
    /// Payload is one LZ4 block.
    pub const FLAG_LZ4: u64 = 0x2000;
    /// Payload is one zstd frame.
    pub const FLAG_ZSTD: u64 = 0x8000;
    /// The 4-bit group that holds the codec flags: any other bit of it is an unknown codec
    /// (ZLUDA knew 0x1000 as an older scheme; nvcc 13.5 writes only 0x2000 and 0x8000).
    pub const COMPRESSION_MASK: u64 = 0xf000;
    /// Payload obfuscated with the key at entry offset 48 (seen on NVVM IR for `code=lto_XX`).
    pub const FLAG_OBFUSCATED: u64 = 0x1_0000;
    /// Arch-specific target (`sm_90a`).
    pub const FLAG_ARCH_SPECIFIC: u64 = 0x10_0000;
    /// Family-specific target (`sm_100f`).
    pub const FLAG_FAMILY_SPECIFIC: u64 = 0x20_0000;

    /// The arch as cuobjdump and nvcc spell it: `sm_90a` for cubins, `compute_90a` for PTX
    /// and anything else.
    pub fn arch_name(&self) -> String {
        let prefix = if self.kind == EntryKind::Elf {
            "sm"
        } else {
            "compute"
        };
        format!("{prefix}_{}{}", self.arch, self.arch_suffix.as_str())
    }

    /// The PTX text: the payload up to its first NUL, checked to be UTF-8.
    pub fn ptx_text(&self) -> Result<&str, ImageError> {
        let end = self
            .payload
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.payload.len());
        let text = self.payload.get(..end).unwrap_or_default();
        std::str::from_utf8(text).map_err(|e| ImageError::NotUtf8 {
            what: "PTX entry",
            offset: e.valid_up_to(),
        })
    }

    /// Whether this entry's PTX can be JIT-compiled for a device of compute capability `sm`
    /// (e.g. 86): a plain arch up to `sm`, an `a` arch exactly `sm`, an `f` arch of `sm`'s
    /// family (same major) up to `sm`.
    fn ptx_runs_on(&self, sm: u32) -> bool {
        match self.arch_suffix {
            ArchSuffix::None => self.arch <= sm,
            ArchSuffix::A => self.arch == sm,
            ArchSuffix::F => self.arch <= sm && self.arch / 10 == sm / 10,
        }
    }
}

/// Why an image was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImageError {
    /// A NULL pointer where an image or a fatbin was expected.
    NullPointer { what: &'static str },
    /// Fewer bytes than a header or a declared size needs. Offsets are from the start of
    /// `what` (the fatbin, for entries).
    Truncated {
        what: &'static str,
        offset: u64,
        needed: u64,
        available: u64,
    },
    /// Not the expected magic number.
    BadMagic {
        what: &'static str,
        found: u32,
        expected: u32,
    },
    /// A header version this reader does not know.
    UnsupportedVersion { what: &'static str, version: u32 },
    /// A header field that cannot be right.
    Malformed {
        what: &'static str,
        offset: u64,
        reason: String,
    },
    /// A declared size above one of this module's caps.
    TooLarge {
        what: &'static str,
        size: u64,
        max: u64,
    },
    /// A fatbin entry whose payload ends past the end of the fatbin.
    EntryPastEnd {
        entry: usize,
        offset: u64,
        payload_end: u64,
        fatbin_end: u64,
    },
    /// Codec flags that are not exactly one known codec.
    UnknownCompression { entry: usize, flags: u64 },
    /// A compressed payload that did not decode to its declared size.
    Decompression {
        entry: usize,
        codec: Codec,
        detail: String,
    },
    /// Text that is not UTF-8.
    NotUtf8 { what: &'static str, offset: usize },
    /// PTX text with no NUL within [`MAX_PTX_TEXT`] bytes.
    TextTooLong { max: usize },
    /// An empty string where PTX text was expected.
    EmptyText,
    /// No PTX that can run on the device: ptxvm runs PTX, never SASS. Maps to
    /// `CUDA_ERROR_NO_BINARY_FOR_GPU`; every other variant to `CUDA_ERROR_INVALID_IMAGE`.
    NoPtx {
        /// The device's compute capability (86).
        sm: u32,
        /// The cubins' archs (`sm_80`), in image order.
        elf_archs: Vec<String>,
        /// The PTX archs present but unusable on `sm` (`compute_90`), in image order.
        ptx_archs: Vec<String>,
    },
}

impl fmt::Display for ImageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageError::NullPointer { what } => write!(f, "{what}: NULL pointer"),
            ImageError::Truncated {
                what,
                offset,
                needed,
                available,
            } => write!(
                f,
                "truncated {what} at offset {offset}: needs {needed} bytes, {available} available"
            ),
            ImageError::BadMagic {
                what,
                found,
                expected,
            } => write!(
                f,
                "bad {what} magic {found:#010x} (expected {expected:#010x})"
            ),
            ImageError::UnsupportedVersion { what, version } => {
                write!(f, "unsupported {what} version {version}")
            }
            ImageError::Malformed {
                what,
                offset,
                reason,
            } => write!(f, "malformed {what} at offset {offset}: {reason}"),
            ImageError::TooLarge { what, size, max } => {
                write!(
                    f,
                    "{what} of {size} bytes is larger than the {max}-byte limit"
                )
            }
            ImageError::EntryPastEnd {
                entry,
                offset,
                payload_end,
                fatbin_end,
            } => write!(
                f,
                "fatbin entry {entry} at offset {offset}: payload ends at {payload_end}, past the \
                 end of the fatbin at {fatbin_end}"
            ),
            ImageError::UnknownCompression { entry, flags } => write!(
                f,
                "fatbin entry {entry}: unknown compression flags {:#x} (flags {flags:#x}; known: \
                 0x2000 LZ4, 0x8000 zstd)",
                flags & FatbinEntry::COMPRESSION_MASK
            ),
            ImageError::Decompression {
                entry,
                codec,
                detail,
            } => write!(
                f,
                "fatbin entry {entry}: {codec} decompression failed: {detail}"
            ),
            ImageError::NotUtf8 { what, offset } => {
                write!(
                    f,
                    "{what} is not UTF-8 text (invalid byte at offset {offset})"
                )
            }
            ImageError::TextTooLong { max } => {
                write!(f, "PTX text has no terminating NUL within {max} bytes")
            }
            ImageError::EmptyText => f.write_str("empty image (an empty string, not PTX)"),
            ImageError::NoPtx {
                sm,
                elf_archs,
                ptx_archs,
            } => {
                write!(f, "no PTX in this image can run on sm_{sm}")?;
                match (elf_archs.is_empty(), ptx_archs.is_empty()) {
                    (true, true) => f.write_str(" (it holds no PTX and no SASS)")?,
                    (false, true) => {
                        write!(f, " (it holds SASS only, for {})", elf_archs.join(", "))?
                    }
                    (true, false) => write!(f, " (its PTX is for {})", ptx_archs.join(", "))?,
                    (false, false) => write!(
                        f,
                        " (it holds SASS for {} and PTX for {})",
                        elf_archs.join(", "),
                        ptx_archs.join(", ")
                    )?,
                }
                let target = suggested_ptx_arch(*sm, elf_archs);
                write!(
                    f,
                    ". ptxvm runs PTX, not SASS: rebuild with \
                     `-gencode arch={target},code={target}` (next to any SASS targets) so the \
                     image carries PTX it can JIT"
                )
            }
        }
    }
}

impl std::error::Error for ImageError {}

/// The PTX target to suggest in [`ImageError::NoPtx`]: the highest cubin arch whose PTX would
/// run on `sm`, else `compute_<sm>`.
fn suggested_ptx_arch(sm: u32, elf_archs: &[String]) -> String {
    let usable = elf_archs.iter().filter_map(|name| {
        let rest = name.strip_prefix("sm_")?;
        let (digits, suffix) = match rest.strip_suffix('a') {
            Some(d) => (d, ArchSuffix::A),
            None => match rest.strip_suffix('f') {
                Some(d) => (d, ArchSuffix::F),
                None => (rest, ArchSuffix::None),
            },
        };
        let arch: u32 = digits.parse().ok()?;
        let probe = FatbinEntry {
            kind: EntryKind::Ptx,
            arch,
            arch_suffix: suffix,
            version: (0, 0),
            flags: 0,
            identifier: None,
            options: None,
            payload: Vec::new(),
        };
        probe.ptx_runs_on(sm).then_some((arch, suffix, rest))
    });
    match usable.max_by_key(|&(arch, suffix, _)| (arch, suffix)) {
        Some((_, _, rest)) => format!("compute_{rest}"),
        None => format!("compute_{sm}"),
    }
}

/// The PTX entry to JIT for a device of compute capability `sm` (e.g. 86): the highest PTX arch
/// that runs there (plain archs up to `sm`; `a` archs only for exactly `sm`; `f` archs within
/// `sm`'s family). At equal arch numbers `a` wins over `f` over plain, as the most specific
/// code; among equals the first in `entries`.
pub fn select_ptx(entries: &[FatbinEntry], sm: u32) -> Result<&FatbinEntry, ImageError> {
    let mut best: Option<&FatbinEntry> = None;
    for e in entries
        .iter()
        .filter(|e| e.kind == EntryKind::Ptx && e.ptx_runs_on(sm))
    {
        if best.is_none_or(|b| (e.arch, e.arch_suffix) > (b.arch, b.arch_suffix)) {
            best = Some(e);
        }
    }
    best.ok_or_else(|| ImageError::NoPtx {
        sm,
        elf_archs: names_of(entries, EntryKind::Elf),
        ptx_archs: names_of(entries, EntryKind::Ptx),
    })
}

fn names_of(entries: &[FatbinEntry], kind: EntryKind) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for e in entries.iter().filter(|e| e.kind == kind) {
        let name = e.arch_name();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

// ---------------------------------------------------------------------------------------------
// Fatbin parsing (slices)

fn le_bytes<const N: usize>(b: &[u8], off: usize) -> Option<[u8; N]> {
    let end = off.checked_add(N)?;
    b.get(off..end)?.try_into().ok()
}

fn le_u16(b: &[u8], off: usize) -> Option<u16> {
    le_bytes(b, off).map(u16::from_le_bytes)
}

fn le_u32(b: &[u8], off: usize) -> Option<u32> {
    le_bytes(b, off).map(u32::from_le_bytes)
}

fn le_u64(b: &[u8], off: usize) -> Option<u64> {
    le_bytes(b, off).map(u64::from_le_bytes)
}

fn len64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// Checks a fatbin header and returns (header_size, total size = header_size + fat_size).
fn fatbin_header(
    h: &[u8; FATBIN_HEADER_SIZE],
    what: &'static str,
) -> Result<(u16, u64), ImageError> {
    let [
        m0,
        m1,
        m2,
        m3,
        v0,
        v1,
        s0,
        s1,
        f0,
        f1,
        f2,
        f3,
        f4,
        f5,
        f6,
        f7,
    ] = *h;
    let magic = u32::from_le_bytes([m0, m1, m2, m3]);
    if magic != FATBIN_MAGIC {
        return Err(ImageError::BadMagic {
            what,
            found: magic,
            expected: FATBIN_MAGIC,
        });
    }
    let version = u16::from_le_bytes([v0, v1]);
    if version != 1 {
        return Err(ImageError::UnsupportedVersion {
            what,
            version: version.into(),
        });
    }
    let header_size = u16::from_le_bytes([s0, s1]);
    if usize::from(header_size) < FATBIN_HEADER_SIZE {
        return Err(ImageError::Malformed {
            what,
            offset: 6,
            reason: format!("header size {header_size} is smaller than {FATBIN_HEADER_SIZE}"),
        });
    }
    let fat_size = u64::from_le_bytes([f0, f1, f2, f3, f4, f5, f6, f7]);
    let total = u64::from(header_size)
        .checked_add(fat_size)
        .ok_or_else(|| ImageError::Malformed {
            what,
            offset: 8,
            reason: format!("fat_size {fat_size} overflows"),
        })?;
    Ok((header_size, total))
}

/// Parses one fatbin at the start of `bytes`: its entries, payloads decompressed, and the
/// number of bytes it spans (header + fat_size; fatbins in a `.nv_fatbin` section follow each
/// other, 8-aligned).
pub fn parse_fatbin(bytes: &[u8]) -> Result<(Vec<FatbinEntry>, usize), ImageError> {
    let available = len64(bytes.len());
    let header: [u8; FATBIN_HEADER_SIZE] = le_bytes(bytes, 0).ok_or(ImageError::Truncated {
        what: "fatbin header",
        offset: 0,
        needed: len64(FATBIN_HEADER_SIZE),
        available,
    })?;
    let (header_size, total) = fatbin_header(&header, "fatbin")?;
    let end = usize::try_from(total)
        .ok()
        .filter(|&end| end <= bytes.len())
        .ok_or(ImageError::Truncated {
            what: "fatbin",
            offset: 0,
            needed: total,
            available,
        })?;
    let mut entries = Vec::new();
    let mut pos = usize::from(header_size);
    while pos < end {
        let (entry, next) = parse_entry(bytes, pos, end, entries.len())?;
        entries.push(entry);
        pos = next;
    }
    Ok((entries, end))
}

/// Parses the entry at `pos` (the fatbin spans `bytes[..end]`); returns it and where the next
/// one starts.
fn parse_entry(
    bytes: &[u8],
    pos: usize,
    end: usize,
    index: usize,
) -> Result<(FatbinEntry, usize), ImageError> {
    let offset = len64(pos);
    let fatbin = bytes.get(..end).unwrap_or_default();
    let h: [u8; ENTRY_HEADER_SIZE] = le_bytes(fatbin, pos).ok_or(ImageError::Truncated {
        what: "fatbin entry header",
        offset,
        needed: len64(ENTRY_HEADER_SIZE),
        available: len64(end.saturating_sub(pos)),
    })?;
    let field32 = |off| le_u32(&h, off).unwrap_or(0);
    let field64 = |off| le_u64(&h, off).unwrap_or(0);
    let malformed = |reason: String| ImageError::Malformed {
        what: "fatbin entry",
        offset,
        reason: format!("entry {index}: {reason}"),
    };
    let kind = EntryKind::from(le_u16(&h, 0).unwrap_or(0));
    let header_size = field32(4);
    let payload_size = field64(8);
    let compressed_size = field32(16);
    let options_at = field32(20);
    let version = (le_u16(&h, 26).unwrap_or(0), le_u16(&h, 24).unwrap_or(0));
    let arch = field32(28);
    let name_at = field32(32);
    let name_len = field32(36);
    let flags = field64(40);
    let uncompressed_size = field64(56);

    if usize::try_from(header_size).is_ok_and(|s| s < ENTRY_HEADER_SIZE) {
        return Err(malformed(format!(
            "header size {header_size} is smaller than {ENTRY_HEADER_SIZE}"
        )));
    }
    let payload_start = offset.checked_add(header_size.into());
    let payload_end = payload_start.and_then(|s| s.checked_add(payload_size));
    let (payload_start, payload_end) = match (payload_start, payload_end) {
        (Some(s), Some(e)) if e <= len64(end) => (s, e),
        _ => {
            return Err(ImageError::EntryPastEnd {
                entry: index,
                offset,
                payload_end: payload_end.unwrap_or(u64::MAX),
                fatbin_end: len64(end),
            });
        }
    };
    // Both are <= end <= bytes.len(), so they fit in usize.
    let (Ok(header_end), Ok(payload_end)) =
        (usize::try_from(payload_start), usize::try_from(payload_end))
    else {
        return Err(malformed("offsets do not fit in memory".into()));
    };
    let header = fatbin.get(pos..header_end).unwrap_or_default();
    let stored = fatbin.get(header_end..payload_end).unwrap_or_default();

    let identifier = header_string(header, name_at, name_len).ok_or_else(|| {
        malformed(format!(
            "identifier ({name_len} bytes at {name_at}) lies outside the entry header"
        ))
    })?;
    let options = if kind == EntryKind::Elf || options_at == 0 {
        None
    } else {
        let desc_at = usize::try_from(options_at).unwrap_or(usize::MAX);
        let (Some(at), Some(len)) = (
            le_u32(header, desc_at),
            le_u32(header, desc_at.saturating_add(4)),
        ) else {
            return Err(malformed(format!(
                "options descriptor at {options_at} lies outside the {header_size}-byte header"
            )));
        };
        header_string(header, at, len).ok_or_else(|| {
            malformed(format!(
                "options ({len} bytes at {at}) lie outside the entry header"
            ))
        })?
    };

    let arch_suffix = if flags & FatbinEntry::FLAG_ARCH_SPECIFIC != 0 {
        ArchSuffix::A
    } else if flags & FatbinEntry::FLAG_FAMILY_SPECIFIC != 0 {
        ArchSuffix::F
    } else {
        ArchSuffix::None
    };

    let codec = match flags & FatbinEntry::COMPRESSION_MASK {
        0 if compressed_size == 0 => None,
        0 => {
            return Err(malformed(format!(
                "compressed size {compressed_size} but no compression flag (flags {flags:#x})"
            )));
        }
        FatbinEntry::FLAG_LZ4 => Some(Codec::Lz4),
        FatbinEntry::FLAG_ZSTD => Some(Codec::Zstd),
        _ => {
            return Err(ImageError::UnknownCompression {
                entry: index,
                flags,
            });
        }
    };
    let payload = match codec {
        None => stored.to_vec(),
        Some(codec) => {
            let compressed = usize::try_from(compressed_size)
                .ok()
                .and_then(|n| stored.get(..n))
                .filter(|c| !c.is_empty())
                .ok_or_else(|| {
                    malformed(format!(
                        "compressed size {compressed_size} is 0 or larger than the payload size {payload_size}"
                    ))
                })?;
            if flags & FatbinEntry::FLAG_OBFUSCATED != 0 {
                compressed.to_vec()
            } else {
                decompress(compressed, uncompressed_size, codec, index)?
            }
        }
    };
    Ok((
        FatbinEntry {
            kind,
            arch,
            arch_suffix,
            version,
            flags,
            identifier,
            options,
            payload,
        },
        payload_end,
    ))
}

/// The string of `len` bytes at `at` inside an entry header, cut at its first NUL; `Some(None)`
/// when empty, `None` when out of bounds.
fn header_string(header: &[u8], at: u32, len: u32) -> Option<Option<String>> {
    if len == 0 {
        return Some(None);
    }
    let at = usize::try_from(at).ok()?;
    let end = at.checked_add(usize::try_from(len).ok()?)?;
    let raw = header.get(at..end)?;
    let text = raw.split(|&b| b == 0).next().unwrap_or_default();
    Some((!text.is_empty()).then(|| String::from_utf8_lossy(text).into_owned()))
}

fn decompress(
    compressed: &[u8],
    declared: u64,
    codec: Codec,
    entry: usize,
) -> Result<Vec<u8>, ImageError> {
    let fail = |detail: String| ImageError::Decompression {
        entry,
        codec,
        detail,
    };
    if declared == 0 {
        return Err(fail("the entry declares an uncompressed size of 0".into()));
    }
    if declared > MAX_DECOMPRESSED {
        return Err(fail(format!(
            "declared uncompressed size {declared} exceeds the {MAX_DECOMPRESSED}-byte limit"
        )));
    }
    let size = usize::try_from(declared).map_err(|_| fail("size does not fit in memory".into()))?;
    // A bug in a decoder must not take the host program down: report it as a failed entry.
    let decoded = std::panic::catch_unwind(|| match codec {
        Codec::Lz4 => decompress_lz4(compressed, size),
        Codec::Zstd => decompress_zstd(compressed, size),
    })
    .unwrap_or_else(|_| Err("the decoder panicked".into()))
    .map_err(fail)?;
    if decoded.len() != size {
        return Err(fail(format!(
            "produced {} bytes, the entry declares {size}",
            decoded.len()
        )));
    }
    Ok(decoded)
}

fn decompress_lz4(compressed: &[u8], size: usize) -> Result<Vec<u8>, String> {
    // Each LZ4 sequence takes at least one byte and expands to at most 255 more per length
    // byte: a declared size beyond that bound is a lie, and would only cost an allocation.
    let bound = compressed.len().saturating_mul(255).saturating_add(16);
    if size > bound {
        return Err(format!(
            "declared size {size} is more than LZ4 can expand {} bytes to",
            compressed.len()
        ));
    }
    let mut out = vec![0u8; size];
    let n = lz4_flex::block::decompress_into(compressed, &mut out).map_err(|e| e.to_string())?;
    out.truncate(n);
    Ok(out)
}

fn decompress_zstd(compressed: &[u8], size: usize) -> Result<Vec<u8>, String> {
    let window = len64(size).clamp(MIN_ZSTD_WINDOW, MAX_DECOMPRESSED);
    let decoder = ruzstd::decoding::StreamingDecoder::new_with_max_window_size(compressed, window)
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    // One byte more than declared, to tell "too long" from "exactly right".
    decoder
        .take(len64(size).saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Images behind a bare pointer

/// A module image found from a bare pointer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Image<'a> {
    /// NUL-terminated PTX text (without its NUL).
    Ptx(&'a str),
    /// Fatbins to parse with [`parse_fatbin`]: a plain fatbin, a v1 wrapper's fatbin, or a v2
    /// wrapper's device-link fatbin followed by the fatbins of its list, in list order.
    Fatbins(Vec<&'a [u8]>),
    /// A cubin, its length taken from its ELF headers.
    Elf(&'a [u8]),
    /// A `!<arch>` archive: its length is not knowable from a bare pointer.
    Archive,
}

/// Reads the module image at `p` (`cuModuleLoadData` has no length): bounded reads only, never
/// past what the image's headers promise.
///
/// # Safety
/// `p` must be NULL or point to an image as the CUDA driver API defines it (PTX text, a
/// fatbin, a wrapper, a cubin or an archive) that stays valid and unchanged for `'a`. Pointers
/// inside a wrapper must be valid too. Only 64-bit little-endian layouts are read.
pub unsafe fn read_image<'a>(p: *const u8) -> Result<Image<'a>, ImageError> {
    // SAFETY: the caller's contract covers every read `read_image_from` makes.
    let mem = unsafe { RawMemory::new() };
    read_image_from(&mem, p as usize)
}

/// Memory an image is read from: the process's, or (in tests) a set of bounded regions.
trait Memory<'a> {
    /// The `len` bytes at `addr`.
    fn bytes(&self, addr: usize, len: usize, what: &'static str) -> Result<&'a [u8], ImageError>;
    /// The length of the NUL-terminated string at `addr`, or `None` when no NUL is within
    /// `max` bytes.
    fn c_str_len(&self, addr: usize, max: usize) -> Result<Option<usize>, ImageError>;
}

/// The process's memory, trusted: only `read_image`'s caller can vouch for it.
struct RawMemory(());

impl RawMemory {
    /// # Safety
    /// Every read made through it must be of memory valid for the image's lifetime.
    unsafe fn new() -> Self {
        RawMemory(())
    }
}

impl<'a> Memory<'a> for RawMemory {
    fn bytes(&self, addr: usize, len: usize, what: &'static str) -> Result<&'a [u8], ImageError> {
        if addr == 0 {
            return Err(ImageError::NullPointer { what });
        }
        if len > isize::MAX as usize || addr.checked_add(len).is_none() {
            return Err(ImageError::Malformed {
                what,
                offset: 0,
                reason: format!("{len} bytes at {addr:#x} wrap around the address space"),
            });
        }
        // SAFETY: `RawMemory::new`'s contract; the range does not wrap.
        Ok(unsafe { std::slice::from_raw_parts(addr as *const u8, len) })
    }

    fn c_str_len(&self, addr: usize, max: usize) -> Result<Option<usize>, ImageError> {
        if addr == 0 {
            return Err(ImageError::NullPointer { what: "PTX text" });
        }
        let limit = max.saturating_add(1);
        // SAFETY: `RawMemory::new`'s contract: the string is NUL-terminated, and strnlen
        // stops at its NUL.
        let n = unsafe { libc::strnlen(addr as *const libc::c_char, limit) };
        Ok((n <= max).then_some(n))
    }
}

fn offset_addr(addr: usize, off: usize, what: &'static str) -> Result<usize, ImageError> {
    addr.checked_add(off).ok_or(ImageError::Malformed {
        what,
        offset: len64(off),
        reason: "the address overflows".into(),
    })
}

fn read_image_from<'a, M: Memory<'a>>(mem: &M, addr: usize) -> Result<Image<'a>, ImageError> {
    if addr == 0 {
        return Err(ImageError::NullPointer { what: "image" });
    }
    // Read the magic byte by byte, stopping at a NUL: a short PTX string is never read past
    // its terminator (no magic contains a NUL byte).
    let mut prefix = [0u8; 8];
    let mut n = 0;
    for slot in prefix.iter_mut() {
        let at = offset_addr(addr, n, "image")?;
        let byte = mem.bytes(at, 1, "image")?.first().copied().unwrap_or(0);
        if byte == 0 {
            break;
        }
        *slot = byte;
        n += 1;
    }
    match image_kind(prefix.get(..n).unwrap_or_default()) {
        ImageKind::Wrapper => read_wrapper(mem, addr).map(Image::Fatbins),
        ImageKind::Fatbin => Ok(Image::Fatbins(vec![read_fatbin(mem, addr, "fatbin")?])),
        ImageKind::Elf => read_elf(mem, addr).map(Image::Elf),
        ImageKind::Archive => Ok(Image::Archive),
        ImageKind::Text => {
            if n == 0 {
                return Err(ImageError::EmptyText);
            }
            let len = mem
                .c_str_len(addr, MAX_PTX_TEXT)?
                .ok_or(ImageError::TextTooLong { max: MAX_PTX_TEXT })?;
            let text = mem.bytes(addr, len, "PTX text")?;
            std::str::from_utf8(text)
                .map(Image::Ptx)
                .map_err(|e| ImageError::NotUtf8 {
                    what: "PTX text",
                    offset: e.valid_up_to(),
                })
        }
    }
}

/// The fatbin at `addr`, its length from its header.
fn read_fatbin<'a, M: Memory<'a>>(
    mem: &M,
    addr: usize,
    what: &'static str,
) -> Result<&'a [u8], ImageError> {
    let header: [u8; FATBIN_HEADER_SIZE] = le_bytes(mem.bytes(addr, FATBIN_HEADER_SIZE, what)?, 0)
        .ok_or(ImageError::Truncated {
            what,
            offset: 0,
            needed: len64(FATBIN_HEADER_SIZE),
            available: 0,
        })?;
    let (_, total) = fatbin_header(&header, what)?;
    if total > MAX_IMAGE_BYTES {
        return Err(ImageError::TooLarge {
            what,
            size: total,
            max: MAX_IMAGE_BYTES,
        });
    }
    let len = usize::try_from(total).map_err(|_| ImageError::TooLarge {
        what,
        size: total,
        max: MAX_IMAGE_BYTES,
    })?;
    mem.bytes(addr, len, what)
}

/// The fatbins of the `__fatBinC_Wrapper_t` at `addr`.
fn read_wrapper<'a, M: Memory<'a>>(mem: &M, addr: usize) -> Result<Vec<&'a [u8]>, ImageError> {
    const WHAT: &str = "fatbin wrapper";
    let w = mem.bytes(addr, WRAPPER_SIZE, WHAT)?;
    let field = |off| le_u64(w, off).unwrap_or(0);
    let version = le_u32(w, 4).unwrap_or(0);
    let pointer = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
    let data = pointer(field(8));
    let list = pointer(field(16));
    match version {
        1 => {
            if data == 0 {
                return Err(ImageError::NullPointer {
                    what: "fatbin of a v1 wrapper",
                });
            }
            Ok(vec![read_fatbin(mem, data, "fatbin of a v1 wrapper")?])
        }
        2 => {
            let mut fatbins = Vec::new();
            if data != 0 {
                fatbins.push(read_fatbin(
                    mem,
                    data,
                    "device-link fatbin of a v2 wrapper",
                )?);
            }
            if list == 0 {
                return Ok(fatbins);
            }
            for i in 0..MAX_WRAPPER_FATBINS {
                let at = offset_addr(list, i.saturating_mul(8), "v2 wrapper's fatbin list")?;
                let slot = mem.bytes(at, 8, "v2 wrapper's fatbin list")?;
                let p = pointer(le_u64(slot, 0).unwrap_or(0));
                if p == 0 {
                    return Ok(fatbins);
                }
                fatbins.push(read_fatbin(mem, p, "fatbin in a v2 wrapper's list")?);
            }
            Err(ImageError::TooLarge {
                what: "v2 wrapper's fatbin list (entries)",
                size: len64(MAX_WRAPPER_FATBINS).saturating_add(1),
                max: len64(MAX_WRAPPER_FATBINS),
            })
        }
        v => Err(ImageError::UnsupportedVersion {
            what: WHAT,
            version: v,
        }),
    }
}

/// The cubin at `addr`: ELF64 little endian; its length is the furthest byte its ELF header,
/// program headers and section headers (their tables and their contents) reach.
fn read_elf<'a, M: Memory<'a>>(mem: &M, addr: usize) -> Result<&'a [u8], ImageError> {
    const WHAT: &str = "ELF image";
    let malformed = |offset: u64, reason: String| ImageError::Malformed {
        what: WHAT,
        offset,
        reason,
    };
    let ident = mem.bytes(addr, 16, WHAT)?;
    let (class, data) = (ident.get(4).copied(), ident.get(5).copied());
    if class != Some(2) || data != Some(1) {
        return Err(malformed(
            4,
            format!(
                "only 64-bit little-endian ELF is read (class {}, data {})",
                class.unwrap_or(0),
                data.unwrap_or(0)
            ),
        ));
    }
    let h = mem.bytes(addr, 64, WHAT)?;
    let u16_at = |off| u64::from(le_u16(h, off).unwrap_or(0));
    let phoff = le_u64(h, 0x20).unwrap_or(0);
    let shoff = le_u64(h, 0x28).unwrap_or(0);
    let (phentsize, phnum) = (u16_at(0x36), u16_at(0x38));
    let (shentsize, mut shnum) = (u16_at(0x3a), u16_at(0x3c));

    let too_large = |size| ImageError::TooLarge {
        what: WHAT,
        size,
        max: MAX_IMAGE_BYTES,
    };
    // A table of `num` entries of `entsize` bytes at `off`, checked against the cap: its bytes.
    let table = |off: u64, num: u64, entsize: u64, min: u64, name: &str| {
        if entsize < min {
            return Err(malformed(
                off,
                format!("{name} entry size {entsize} is smaller than {min}"),
            ));
        }
        let end = num
            .checked_mul(entsize)
            .and_then(|n| n.checked_add(off))
            .filter(|&e| e <= MAX_IMAGE_BYTES)
            .ok_or_else(|| too_large(off.saturating_add(num.saturating_mul(entsize))))?;
        // Both are <= end <= MAX_IMAGE_BYTES.
        let (off, len) = (
            usize::try_from(off).map_err(|_| too_large(end))?,
            usize::try_from(num.saturating_mul(entsize)).map_err(|_| too_large(end))?,
        );
        Ok((mem.bytes(offset_addr(addr, off, WHAT)?, len, WHAT)?, end))
    };

    let mut end: u64 = 64;
    let extend = |end: &mut u64, off: u64, size: u64| -> Result<(), ImageError> {
        let e = off.checked_add(size).filter(|&e| e <= MAX_IMAGE_BYTES);
        *end = (*end).max(e.ok_or_else(|| too_large(off.saturating_add(size)))?);
        Ok(())
    };
    if phnum > 0 {
        let (phdrs, table_end) = table(phoff, phnum, phentsize, 56, "program header")?;
        end = end.max(table_end);
        for ph in phdrs.chunks(usize::try_from(phentsize).unwrap_or(56).max(1)) {
            let (p_offset, p_filesz) = (le_u64(ph, 8).unwrap_or(0), le_u64(ph, 0x20).unwrap_or(0));
            extend(&mut end, p_offset, p_filesz)?;
        }
    }
    if shoff != 0 && shnum == 0 {
        // Extended numbering: section 0's sh_size holds the count.
        let (sh0, _) = table(shoff, 1, shentsize, 64, "section header")?;
        shnum = le_u64(sh0, 0x20).unwrap_or(0);
    }
    if shnum > 0 {
        let (shdrs, table_end) = table(shoff, shnum, shentsize, 64, "section header")?;
        end = end.max(table_end);
        for sh in shdrs.chunks(usize::try_from(shentsize).unwrap_or(64).max(1)) {
            const SHT_NOBITS: u32 = 8;
            if le_u32(sh, 4) == Some(SHT_NOBITS) {
                continue;
            }
            let (sh_offset, sh_size) =
                (le_u64(sh, 0x18).unwrap_or(0), le_u64(sh, 0x20).unwrap_or(0));
            extend(&mut end, sh_offset, sh_size)?;
        }
    }
    let len = usize::try_from(end).map_err(|_| too_large(end))?;
    mem.bytes(addr, len, WHAT)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Memory made of a few slices, addressed by their real addresses; any read outside them
    /// is an error (so a test can tell a reader that reads past what headers promise).
    struct Regions<'a>(Vec<&'a [u8]>);

    impl<'a> Regions<'a> {
        fn find(&self, addr: usize, len: usize) -> Option<&'a [u8]> {
            self.0.iter().find_map(|r| {
                let start = r.as_ptr() as usize;
                let off = addr.checked_sub(start)?;
                r.get(off..off.checked_add(len)?)
            })
        }
    }

    impl<'a> Memory<'a> for Regions<'a> {
        fn bytes(
            &self,
            addr: usize,
            len: usize,
            what: &'static str,
        ) -> Result<&'a [u8], ImageError> {
            if addr == 0 {
                return Err(ImageError::NullPointer { what });
            }
            self.find(addr, len).ok_or(ImageError::Truncated {
                what: "test memory",
                offset: addr as u64,
                needed: len as u64,
                available: 0,
            })
        }

        fn c_str_len(&self, addr: usize, max: usize) -> Result<Option<usize>, ImageError> {
            for n in 0..=max {
                let b = self.bytes(addr + n, 1, "test memory")?;
                if b == [0] {
                    return Ok(Some(n));
                }
            }
            Ok(None)
        }
    }

    fn fixture(name: &str) -> Vec<u8> {
        let path = format!("{}/tests/images/{name}.fatbin", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    const FIXTURES: &[&str] = &[
        "default",
        "lz4",
        "nocompress",
        "multi",
        "arch_specific",
        "lineinfo",
        "lto",
    ];

    /// A wrapper struct in memory, pointing at `data` and `list`.
    fn wrapper(version: u32, data: usize, list: usize) -> [u8; 24] {
        let mut w = [0u8; 24];
        w[..4].copy_from_slice(&WRAPPER_MAGIC.to_le_bytes());
        w[4..8].copy_from_slice(&version.to_le_bytes());
        w[8..16].copy_from_slice(&(data as u64).to_le_bytes());
        w[16..].copy_from_slice(&(list as u64).to_le_bytes());
        w
    }

    #[test]
    fn reader_reads_exactly_the_fatbin() {
        for name in FIXTURES {
            let bytes = fixture(name);
            let mem = Regions(vec![&bytes]);
            let Image::Fatbins(f) = read_image_from(&mem, bytes.as_ptr() as usize).unwrap() else {
                panic!("{name}: not a fatbin");
            };
            assert_eq!(f, vec![&bytes[..]], "{name}");
            // One byte less of memory: the reader must notice, not read past.
            let short = Regions(vec![&bytes[..bytes.len() - 1]]);
            assert!(
                read_image_from(&short, bytes.as_ptr() as usize).is_err(),
                "{name}"
            );
        }
    }

    #[test]
    fn reader_reads_exactly_the_elf() {
        let (entries, _) = parse_fatbin(&fixture("sass_only")).unwrap();
        let elf = &entries[0].payload;
        let mem = Regions(vec![elf]);
        let Image::Elf(e) = read_image_from(&mem, elf.as_ptr() as usize).unwrap() else {
            panic!("not an ELF");
        };
        assert_eq!(e, &elf[..]);
        let short = Regions(vec![&elf[..elf.len() - 1]]);
        assert!(read_image_from(&short, elf.as_ptr() as usize).is_err());
    }

    #[test]
    fn reader_stops_at_a_short_strings_nul() {
        for s in [&b"a\0"[..], b"!<ar\0", b"\x7fEL\0", b".version 9.5\n\0"] {
            let mem = Regions(vec![s]);
            let got = read_image_from(&mem, s.as_ptr() as usize).unwrap();
            assert_eq!(
                got,
                Image::Ptx(std::str::from_utf8(&s[..s.len() - 1]).unwrap())
            );
        }
        // The start of the wrapper and fatbin magics: text, and not UTF-8.
        for s in [&b"\xb1C\0"[..], b"P\xed\0"] {
            let mem = Regions(vec![s]);
            let got = read_image_from(&mem, s.as_ptr() as usize);
            assert_eq!(
                got,
                Err(ImageError::NotUtf8 {
                    what: "PTX text",
                    offset: usize::from(s[0] == b'P')
                })
            );
        }
        let empty = [0u8];
        let mem = Regions(vec![&empty]);
        assert_eq!(
            read_image_from(&mem, empty.as_ptr() as usize),
            Err(ImageError::EmptyText)
        );
    }

    fn xorshift(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// Mutated wrappers, fatbins and cubins read through bounded memory: whatever the headers
    /// say, the reader either fails or returns slices inside the memory it was given (a read
    /// outside would be a "test memory" error here, and undefined behaviour for real).
    #[test]
    fn reader_survives_mutations() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let elf = parse_fatbin(&fixture("sass_only"))
            .unwrap()
            .0
            .remove(0)
            .payload;
        let shoff = le_u64(&elf, 0x28).unwrap() as usize;
        let mut images: Vec<(Vec<u8>, Vec<usize>)> = FIXTURES
            .iter()
            .map(|name| (fixture(name), vec![0, 16]))
            .collect();
        images.push((elf.clone(), vec![0, shoff, shoff + 64, shoff + 128]));
        let mut accepted = 0;
        for (original, hot) in &images {
            for _ in 0..500 {
                let mut bytes = original.clone();
                for _ in 0..1 + next() % 4 {
                    let base = hot[next() as usize % hot.len()];
                    let i = (base + (next() % 64) as usize).min(bytes.len() - 1);
                    bytes[i] = next() as u8;
                }
                let list: Vec<u8> = [bytes.as_ptr() as u64, 0]
                    .iter()
                    .flat_map(|p| p.to_le_bytes())
                    .collect();
                let mut w1 = wrapper(1, bytes.as_ptr() as usize, 0);
                let mut w2 = wrapper(2, bytes.as_ptr() as usize, list.as_ptr() as usize);
                if next().is_multiple_of(4) {
                    let w = if next().is_multiple_of(2) {
                        &mut w1
                    } else {
                        &mut w2
                    };
                    w[(next() % 24) as usize] = next() as u8;
                }
                let mem = Regions(vec![&bytes, &list, &w1, &w2]);
                for addr in [bytes.as_ptr(), w1.as_ptr(), w2.as_ptr()] {
                    let slices = match read_image_from(&mem, addr as usize) {
                        Ok(Image::Fatbins(f)) => f,
                        Ok(Image::Elf(e)) => vec![e],
                        Ok(Image::Ptx(t)) => vec![t.as_bytes()],
                        Ok(Image::Archive) | Err(_) => continue,
                    };
                    accepted += 1;
                    for s in slices {
                        assert!(mem.find(s.as_ptr() as usize, s.len()).is_some());
                        let _ = parse_fatbin(s);
                    }
                }
            }
        }
        assert!(accepted > 1000, "{accepted}");
    }

    #[test]
    fn wrapper_v2_list_is_bounded_and_checked() {
        let bytes = fixture("lz4");
        // A list that never ends inside its region: the reader must stop at the region's end.
        let list: Vec<u8> = std::iter::repeat_n(bytes.as_ptr() as usize as u64, 4)
            .flat_map(|p| p.to_le_bytes())
            .collect();
        let w2 = wrapper(2, 0, list.as_ptr() as usize);
        let mem = Regions(vec![&bytes, &list, &w2]);
        assert!(read_image_from(&mem, w2.as_ptr() as usize).is_err());
        let w3 = wrapper(3, bytes.as_ptr() as usize, 0);
        let mem = Regions(vec![&bytes, &w3]);
        assert_eq!(
            read_image_from(&mem, w3.as_ptr() as usize),
            Err(ImageError::UnsupportedVersion {
                what: "fatbin wrapper",
                version: 3
            })
        );
    }
}
