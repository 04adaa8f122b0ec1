//! Module images: fatbins made by the real nvcc 13.5 (`tools/gen_driver_images.sh`), checked
//! against what cuobjdump says about them; wrappers built in memory; truncations and seeded
//! mutations of every fixture.

use cuda::image::{
    ArchSuffix, EntryKind, FatbinEntry, Image, ImageError, ImageKind, image_kind, parse_fatbin,
    read_image, select_ptx,
};
use std::path::PathBuf;

/// Every fatbin in tests/images.
const FIXTURES: &[&str] = &[
    "default",
    "lz4",
    "nocompress",
    "nocompress_xfatbin",
    "multi",
    "sass_only",
    "arch_specific",
    "lineinfo",
    "debug",
    "compress_all",
    "lto",
];

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/images")
}

fn read(file: &str) -> Vec<u8> {
    let path = dir().join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn fatbin(name: &str) -> Vec<u8> {
    read(&format!("{name}.fatbin"))
}

fn entries(name: &str) -> Vec<FatbinEntry> {
    let bytes = fatbin(name);
    let (entries, used) = parse_fatbin(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(used, bytes.len(), "{name}: one fatbin spans the whole file");
    entries
}

/// One entry as `cuobjdump <fatbin>` lists it.
#[derive(Debug, Default)]
struct Listed {
    kind: String,
    arch: String,
    code_version: String,
    host: String,
    compile_size: String,
    compressed: bool,
    debug: bool,
    identifier: Option<String>,
    options: Option<String>,
}

fn cuobjdump_listing(name: &str) -> Vec<Listed> {
    let text = String::from_utf8(read(&format!("{name}.cuobjdump.txt"))).unwrap();
    let mut out: Vec<Listed> = Vec::new();
    for line in text.lines() {
        if let Some(kind) = line
            .strip_prefix("Fatbin ")
            .and_then(|l| l.strip_suffix(" code:"))
        {
            out.push(Listed {
                kind: kind.to_string(),
                ..Listed::default()
            });
            continue;
        }
        if line.is_empty() || line.starts_with('=') {
            continue;
        }
        let cur = out
            .last_mut()
            .unwrap_or_else(|| panic!("{name}: {line:?} before an entry"));
        match line.split_once(" = ") {
            Some(("arch", v)) => cur.arch = v.to_string(),
            Some(("code version", v)) => cur.code_version = v.to_string(),
            Some(("host", v)) => cur.host = v.to_string(),
            Some(("compile_size", v)) => cur.compile_size = v.to_string(),
            Some(("identifier", v)) => cur.identifier = Some(v.to_string()),
            Some(("ptxasOptions" | "nvvmOptions", v)) => {
                cur.options = (!v.is_empty()).then(|| v.to_string())
            }
            None if line == "compressed" => cur.compressed = true,
            None if line == "has debug info" => cur.debug = true,
            _ => panic!("{name}: unknown cuobjdump line {line:?}"),
        }
    }
    out
}

#[test]
fn entries_match_cuobjdump() {
    for name in FIXTURES {
        let entries = entries(name);
        let listed = cuobjdump_listing(name);
        assert_eq!(entries.len(), listed.len(), "{name}: entry count");
        for (i, (e, l)) in entries.iter().zip(&listed).enumerate() {
            let ctx = format!("{name} entry {i}: {l:?}");
            let kind = match e.kind {
                EntryKind::Ptx => "ptx",
                EntryKind::Elf => "elf",
                EntryKind::Other(8) => "nvvm",
                EntryKind::Other(k) => panic!("{ctx}: kind {k}"),
            };
            assert_eq!(kind, l.kind, "{ctx}");
            // cuobjdump spells every arch sm_XX.
            let suffix = match e.arch_suffix {
                ArchSuffix::None => "",
                ArchSuffix::A => "a",
                ArchSuffix::F => "f",
            };
            assert_eq!(format!("sm_{}{suffix}", e.arch), l.arch, "{ctx}");
            assert_eq!(
                format!("[{},{}]", e.version.0, e.version.1),
                l.code_version,
                "{ctx}"
            );
            assert_eq!(l.host, "linux", "{ctx}");
            assert_ne!(e.flags & FatbinEntry::FLAG_LINUX, 0, "{ctx}");
            assert_eq!(l.compile_size, "64bit", "{ctx}");
            assert_ne!(e.flags & FatbinEntry::FLAG_64BIT, 0, "{ctx}");
            assert_eq!(
                e.flags & FatbinEntry::COMPRESSION_MASK != 0,
                l.compressed,
                "{ctx}"
            );
            assert_eq!(e.flags & FatbinEntry::FLAG_DEBUG != 0, l.debug, "{ctx}");
            assert_eq!(e.identifier, l.identifier, "{ctx}");
            assert_eq!(e.options, l.options, "{ctx}");
        }
    }
}

#[test]
fn ptx_matches_cuobjdump_extraction_byte_for_byte() {
    let mut checked = 0;
    for name in FIXTURES {
        let ptx: Vec<FatbinEntry> = entries(name)
            .into_iter()
            .filter(|e| e.kind == EntryKind::Ptx)
            .collect();
        for (i, e) in ptx.iter().enumerate() {
            let expected = read(&format!("{name}.{}.ptx", i + 1));
            assert_eq!(
                e.ptx_text().unwrap().as_bytes(),
                &expected[..],
                "{name} PTX {}",
                i + 1
            );
            // Compressed payloads are exactly the text and its NUL.
            if e.flags & FatbinEntry::COMPRESSION_MASK != 0 {
                assert_eq!(e.payload.len(), expected.len() + 1, "{name} PTX {}", i + 1);
            }
            assert_eq!(e.payload.get(expected.len()), Some(&0), "{name}");
            checked += 1;
        }
        let extra = dir().join(format!("{name}.{}.ptx", ptx.len() + 1));
        assert!(!extra.exists(), "{name}: cuobjdump extracted more PTX");
    }
    assert_eq!(checked, 12);
}

#[test]
fn what_each_build_holds() {
    let kinds = |name| -> Vec<(EntryKind, String, u64)> {
        entries(name)
            .iter()
            .map(|e| {
                let codec = e.flags & FatbinEntry::COMPRESSION_MASK;
                (e.kind, e.arch_name(), codec)
            })
            .collect()
    };
    let (ptx, elf, zstd, lz4) = (
        EntryKind::Ptx,
        EntryKind::Elf,
        FatbinEntry::FLAG_ZSTD,
        FatbinEntry::FLAG_LZ4,
    );
    let s = |x: &str| x.to_string();
    assert_eq!(
        kinds("default"),
        [(elf, s("sm_75"), 0), (ptx, s("compute_75"), zstd)]
    );
    assert_eq!(kinds("lz4"), [(ptx, s("compute_80"), lz4)]);
    assert_eq!(kinds("nocompress"), [(ptx, s("compute_80"), 0)]);
    assert_eq!(
        kinds("multi"),
        [
            (elf, s("sm_75"), 0),
            (ptx, s("compute_80"), zstd),
            (ptx, s("compute_90"), zstd)
        ]
    );
    assert_eq!(kinds("sass_only"), [(elf, s("sm_80"), 0)]);
    assert_eq!(
        kinds("arch_specific"),
        [
            (ptx, s("compute_90a"), zstd),
            (elf, s("sm_90a"), 0),
            (ptx, s("compute_100f"), zstd),
            (elf, s("sm_100f"), 0),
            (ptx, s("compute_90"), zstd)
        ]
    );
    assert_eq!(
        kinds("compress_all"),
        [(ptx, s("compute_80"), zstd), (elf, s("sm_80"), zstd)]
    );

    // -Xfatbin -compress-all: the decompressed cubin is the one stored uncompressed otherwise.
    let compressed_elf = &entries("compress_all")[1].payload;
    let stored_elf = &entries("nocompress_xfatbin")[1].payload;
    assert!(compressed_elf.starts_with(b"\x7fELF"));
    assert_eq!(compressed_elf, stored_elf);

    // -lineinfo / -G: identifier and ptxas options.
    let li = entries("lineinfo");
    assert_eq!(li[0].identifier.as_deref(), Some("vadd.cu"));
    assert_eq!(li[0].options.as_deref(), Some(" --generate-line-info "));
    assert_eq!(li[1].identifier.as_deref(), Some("vadd.cu"));
    assert_eq!(li[1].options, None);
    let dbg = &entries("debug")[0];
    assert_ne!(dbg.flags & FatbinEntry::FLAG_DEBUG, 0);
    assert_eq!(
        dbg.options.as_deref(),
        Some(" -g --dont-merge-basicblocks --return-at-end ")
    );

    // LTO IR: kind 8, obfuscated, kept as stored.
    let lto = &entries("lto")[0];
    assert_eq!(lto.kind, EntryKind::Other(8));
    assert_ne!(lto.flags & FatbinEntry::FLAG_OBFUSCATED, 0);
    assert_eq!(
        lto.options.as_deref(),
        Some("-ftz=0 -prec_div=1 -prec_sqrt=1 -fmad=1 ")
    );
    assert!(!lto.payload.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]));
}

#[test]
fn select_ptx_picks_the_highest_usable_arch() {
    let multi = entries("multi");
    assert_eq!(select_ptx(&multi, 86).unwrap().arch_name(), "compute_80");
    assert_eq!(select_ptx(&multi, 80).unwrap().arch_name(), "compute_80");
    assert_eq!(select_ptx(&multi, 89).unwrap().arch_name(), "compute_80");
    assert_eq!(select_ptx(&multi, 90).unwrap().arch_name(), "compute_90");
    assert_eq!(select_ptx(&multi, 120).unwrap().arch_name(), "compute_90");
    let err = select_ptx(&multi, 75).unwrap_err();
    assert_eq!(
        err,
        ImageError::NoPtx {
            sm: 75,
            elf_archs: vec!["sm_75".into()],
            ptx_archs: vec!["compute_80".into(), "compute_90".into()],
        }
    );
    let msg = err.to_string();
    assert!(msg.contains("sm_75") && msg.contains("compute_90"), "{msg}");
    assert!(
        msg.contains("-gencode arch=compute_75,code=compute_75"),
        "{msg}"
    );

    let arch = entries("arch_specific");
    let pick = |sm| select_ptx(&arch, sm).map(|e| e.arch_name());
    assert_eq!(pick(90).unwrap(), "compute_90a");
    assert_eq!(pick(100).unwrap(), "compute_100f");
    assert_eq!(pick(103).unwrap(), "compute_100f");
    assert_eq!(pick(110).unwrap(), "compute_90");
    assert_eq!(pick(120).unwrap(), "compute_90");
    assert!(matches!(pick(89), Err(ImageError::NoPtx { .. })));

    let default = entries("default");
    assert_eq!(select_ptx(&default, 75).unwrap().arch_name(), "compute_75");
}

#[test]
fn sass_only_fatbin_is_no_binary_for_gpu_naming_sm_80() {
    let sass = entries("sass_only");
    for sm in [80, 86, 90] {
        let err = select_ptx(&sass, sm).unwrap_err();
        let ImageError::NoPtx {
            elf_archs,
            ptx_archs,
            ..
        } = &err
        else {
            panic!("{err:?}");
        };
        assert_eq!(elf_archs, &["sm_80"]);
        assert!(ptx_archs.is_empty());
        let msg = err.to_string();
        assert!(msg.contains("SASS only, for sm_80"), "{msg}");
        assert!(msg.contains("ptxvm runs PTX, not SASS"), "{msg}");
        assert!(
            msg.contains("`-gencode arch=compute_80,code=compute_80`"),
            "{msg}"
        );
    }
    // Nothing at all: suggest the device's own arch.
    let err = select_ptx(&[], 86).unwrap_err();
    assert!(err.to_string().contains("compute_86"), "{err}");
}

#[test]
fn image_kind_by_first_bytes() {
    assert_eq!(image_kind(&fatbin("lz4")), ImageKind::Fatbin);
    assert_eq!(
        image_kind(&0x4662_43b1u32.to_le_bytes()),
        ImageKind::Wrapper
    );
    assert_eq!(image_kind(b"\x7fELF\x02\x01"), ImageKind::Elf);
    assert_eq!(image_kind(b"!<arch>\nfoo"), ImageKind::Archive);
    assert_eq!(image_kind(b".version 9.5"), ImageKind::Text);
    assert_eq!(image_kind(b"\x50\xed"), ImageKind::Text);
    assert_eq!(image_kind(b""), ImageKind::Text);
}

// ---------------------------------------------------------------------------------------------
// read_image on real pointers

/// `__fatBinC_Wrapper_t` (fatbinary_section.h).
#[repr(C)]
struct FatbinCWrapper {
    magic: u32,
    version: u32,
    data: *const u8,
    filename_or_fatbins: *const *const u8,
}

/// Bytes at an 8-aligned address, as nvcc lays out `.nv_fatbin`.
fn aligned(bytes: &[u8]) -> Vec<u64> {
    let mut words = vec![0u64; bytes.len().div_ceil(8)];
    for (w, chunk) in words.iter_mut().zip(bytes.chunks(8)) {
        let mut b = [0u8; 8];
        b[..chunk.len()].copy_from_slice(chunk);
        *w = u64::from_le_bytes(b);
    }
    words
}

fn first_ptx(fatbin: &[u8]) -> String {
    let (entries, _) = parse_fatbin(fatbin).unwrap();
    select_ptx(&entries, 86)
        .unwrap()
        .ptx_text()
        .unwrap()
        .to_string()
}

#[test]
fn v1_wrapper() {
    let bytes = fatbin("multi");
    let words = aligned(&bytes);
    let w = FatbinCWrapper {
        magic: 0x4662_43b1,
        version: 1,
        data: words.as_ptr().cast(),
        filename_or_fatbins: std::ptr::null(),
    };
    let image = unsafe { read_image(std::ptr::from_ref(&w).cast()) }.unwrap();
    let Image::Fatbins(f) = image else {
        panic!("{image:?}")
    };
    assert_eq!(f, [&bytes[..]]);
    assert_eq!(
        first_ptx(f[0]),
        String::from_utf8(read("multi.1.ptx")).unwrap()
    );

    let null = FatbinCWrapper {
        data: std::ptr::null(),
        ..w
    };
    let err = unsafe { read_image(std::ptr::from_ref(&null).cast()) }.unwrap_err();
    assert!(matches!(err, ImageError::NullPointer { .. }), "{err}");
}

#[test]
fn v2_wrapper_with_a_null_terminated_list() {
    // The device-link fatbin of a non-rdc build: a header and no entries.
    let mut empty = [0u8; 16];
    empty[..4].copy_from_slice(&0xba55_ed50u32.to_le_bytes());
    empty[4..6].copy_from_slice(&1u16.to_le_bytes());
    empty[6..8].copy_from_slice(&16u16.to_le_bytes());
    let empty = aligned(&empty);
    let (lz4, lineinfo) = (fatbin("lz4"), fatbin("lineinfo"));
    let (a, b) = (aligned(&lz4), aligned(&lineinfo));
    let list: [*const u8; 3] = [a.as_ptr().cast(), b.as_ptr().cast(), std::ptr::null()];
    let w = FatbinCWrapper {
        magic: 0x4662_43b1,
        version: 2,
        data: empty.as_ptr().cast(),
        filename_or_fatbins: list.as_ptr(),
    };
    let image = unsafe { read_image(std::ptr::from_ref(&w).cast()) }.unwrap();
    let Image::Fatbins(f) = image else {
        panic!("{image:?}")
    };
    assert_eq!(f.len(), 3);
    assert_eq!(f[0].len(), 16);
    assert_eq!(parse_fatbin(f[0]).unwrap(), (vec![], 16));
    assert_eq!(f[1], &lz4[..]);
    assert_eq!(f[2], &lineinfo[..]);
    assert_eq!(
        first_ptx(f[1]),
        String::from_utf8(read("lz4.1.ptx")).unwrap()
    );
    assert_eq!(
        first_ptx(f[2]),
        String::from_utf8(read("lineinfo.1.ptx")).unwrap()
    );

    // No device-link fatbin, empty list.
    let none: [*const u8; 1] = [std::ptr::null()];
    let w = FatbinCWrapper {
        data: std::ptr::null(),
        filename_or_fatbins: none.as_ptr(),
        ..w
    };
    let image = unsafe { read_image(std::ptr::from_ref(&w).cast()) }.unwrap();
    assert_eq!(image, Image::Fatbins(vec![]));
}

#[test]
fn plain_fatbin_ptx_elf_and_archive_pointers() {
    // A fatbin followed by unrelated bytes: only the fatbin is taken.
    let mut bytes = fatbin("default");
    let len = bytes.len();
    bytes.extend_from_slice(&[0xee; 64]);
    let image = unsafe { read_image(bytes.as_ptr()) }.unwrap();
    assert_eq!(image, Image::Fatbins(vec![&bytes[..len]]));

    let ptx = read("nocompress.1.ptx");
    let mut c = ptx.clone();
    c.push(0);
    c.extend_from_slice(b"garbage after the NUL");
    let image = unsafe { read_image(c.as_ptr()) }.unwrap();
    assert_eq!(image, Image::Ptx(std::str::from_utf8(&ptx).unwrap()));

    // A cubin: its length comes from its headers, not from what follows.
    let elf = entries("sass_only").remove(0).payload;
    let mut padded = elf.clone();
    padded.extend_from_slice(&[0x7f; 100]);
    let image = unsafe { read_image(padded.as_ptr()) }.unwrap();
    assert_eq!(image, Image::Elf(&padded[..elf.len()]));

    let ar = b"!<arch>\n/               0           0     0     0       4         `\n\0\0\0\0";
    assert_eq!(unsafe { read_image(ar.as_ptr()) }.unwrap(), Image::Archive);

    assert!(matches!(
        unsafe { read_image(std::ptr::null()) },
        Err(ImageError::NullPointer { .. })
    ));
    assert_eq!(
        unsafe { read_image(c"".as_ptr().cast()) },
        Err(ImageError::EmptyText)
    );
    let err = unsafe { read_image(c"\xff\xfe bad".as_ptr().cast()) }.unwrap_err();
    assert!(err.to_string().contains("not UTF-8"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Errors and robustness

fn put(bytes: &mut [u8], at: usize, v: &[u8]) {
    bytes[at..at + v.len()].copy_from_slice(v);
}

#[test]
fn precise_errors() {
    let lz4 = fatbin("lz4");
    // Truncated header.
    let err = parse_fatbin(&lz4[..10]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "truncated fatbin header at offset 0: needs 16 bytes, 10 available"
    );
    // Truncated body: fat_size promises more.
    let err = parse_fatbin(&lz4[..100]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "truncated fatbin at offset 0: needs {} bytes, 100 available",
            lz4.len()
        )
    );
    // Bad magic.
    let mut b = lz4.clone();
    b[0] ^= 1;
    assert_eq!(
        parse_fatbin(&b).unwrap_err().to_string(),
        "bad fatbin magic 0xba55ed51 (expected 0xba55ed50)"
    );
    // Payload past the end.
    let mut b = lz4.clone();
    put(&mut b, 16 + 8, &10_000u64.to_le_bytes());
    let err = parse_fatbin(&b).unwrap_err();
    assert!(
        matches!(err, ImageError::EntryPastEnd { entry: 0, .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "fatbin entry 0 at offset 16: payload ends at {}, past the end of the fatbin at {}",
            16 + 80 + 10_000,
            lz4.len()
        )
    );
    // Unknown compression flag.
    let mut b = lz4.clone();
    put(&mut b, 16 + 40, &0x4011u64.to_le_bytes());
    let err = parse_fatbin(&b).unwrap_err();
    assert_eq!(
        err.to_string(),
        "fatbin entry 0: unknown compression flags 0x4000 (flags 0x4011; known: 0x2000 LZ4, 0x8000 zstd)"
    );
    // Both codecs at once.
    put(&mut b, 16 + 40, &0xa011u64.to_le_bytes());
    assert!(matches!(
        parse_fatbin(&b),
        Err(ImageError::UnknownCompression { entry: 0, .. })
    ));
    // Corrupt LZ4 data.
    let mut b = lz4.clone();
    for x in &mut b[16 + 80..16 + 80 + 40] {
        *x = 0xff;
    }
    let err = parse_fatbin(&b).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("fatbin entry 0: LZ4 decompression failed: "),
        "{err}"
    );
    // Corrupt zstd data (second entry of `default`): the frame magic.
    let mut d = fatbin("default");
    let second = 16 + 64 + 3112;
    d[second + 80] ^= 0x55;
    let err = parse_fatbin(&d).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("fatbin entry 1: zstd decompression failed: "),
        "{err}"
    );
    // A lying uncompressed size.
    let mut d = fatbin("default");
    put(&mut d, second + 56, &866u64.to_le_bytes());
    let err = parse_fatbin(&d).unwrap_err();
    assert_eq!(
        err.to_string(),
        "fatbin entry 1: zstd decompression failed: produced 867 bytes, the entry declares 866"
    );
    put(&mut d, second + 56, &(u64::MAX).to_le_bytes());
    let err = parse_fatbin(&d).unwrap_err();
    assert!(
        err.to_string()
            .contains("exceeds the 1073741824-byte limit"),
        "{err}"
    );
    // LZ4's ratio bound: no gigantic allocation for a lie.
    let mut b = lz4.clone();
    put(&mut b, 16 + 56, &(1u64 << 29).to_le_bytes());
    let err = parse_fatbin(&b).unwrap_err();
    assert!(
        err.to_string().contains("more than LZ4 can expand"),
        "{err}"
    );
    // Options descriptor outside the header.
    let mut b = lz4.clone();
    put(&mut b, 16 + 20, &200u32.to_le_bytes());
    let err = parse_fatbin(&b).unwrap_err();
    assert!(
        err.to_string().contains("options descriptor at 200"),
        "{err}"
    );
    // A compressed size with no codec flag.
    let mut b = lz4.clone();
    put(&mut b, 16 + 40, &0x11u64.to_le_bytes());
    let err = parse_fatbin(&b).unwrap_err();
    assert_eq!(
        err.to_string(),
        "malformed fatbin entry at offset 16: entry 0: compressed size 490 but no compression \
         flag (flags 0x11)"
    );
    // An identifier outside the entry header.
    let mut b = lz4.clone();
    put(&mut b, 16 + 32, &[70, 0, 0, 0, 20, 0, 0, 0]);
    let err = parse_fatbin(&b).unwrap_err();
    assert!(
        err.to_string().contains("identifier (20 bytes at 70)"),
        "{err}"
    );
    // Entry header smaller than 64 bytes.
    let mut b = lz4.clone();
    put(&mut b, 16 + 4, &8u32.to_le_bytes());
    let err = parse_fatbin(&b).unwrap_err();
    assert!(
        err.to_string().contains("header size 8 is smaller than 64"),
        "{err}"
    );
}

#[test]
fn every_truncation_is_an_error() {
    for name in FIXTURES {
        let bytes = fatbin(name);
        for n in 0..bytes.len() {
            match parse_fatbin(&bytes[..n]) {
                Err(ImageError::Truncated { .. }) => {}
                other => panic!("{name} cut at {n}: {other:?}"),
            }
        }
    }
}

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn seeded_mutations_never_panic() {
    let mut rng = Rng(0x5eed_cafe_f00d_0001);
    let interesting: [u64; 8] = [0, 1, 0x7f, 0xff, 0x8000, 0xffff_ffff, 1 << 40, u64::MAX];
    let (mut ok, mut err) = (0, 0);
    for name in FIXTURES {
        let original = fatbin(name);
        // Where headers are: the fatbin header and each entry header.
        let mut headers = vec![0usize];
        let mut pos = 16;
        while pos + 64 <= original.len() {
            headers.push(pos);
            let hs = u32::from_le_bytes(original[pos + 4..pos + 8].try_into().unwrap()) as usize;
            let ps = u64::from_le_bytes(original[pos + 8..pos + 16].try_into().unwrap()) as usize;
            pos += hs + ps;
        }
        for _ in 0..400 {
            let mut b = original.clone();
            for _ in 0..1 + rng.below(3) {
                match rng.below(3) {
                    // A random byte anywhere (payloads included: exercises the decoders).
                    0 => {
                        let i = rng.below(b.len());
                        b[i] = rng.next() as u8;
                    }
                    // A random byte in a header.
                    1 => {
                        let i = headers[rng.below(headers.len())] + rng.below(64);
                        if i < b.len() {
                            b[i] = rng.next() as u8;
                        }
                    }
                    // An extreme value in an aligned header field.
                    _ => {
                        let at = headers[rng.below(headers.len())] + 4 * rng.below(16);
                        let v = interesting[rng.below(interesting.len())].to_le_bytes();
                        let width = [2, 4, 8][rng.below(3)];
                        if at + width <= b.len() {
                            b[at..at + width].copy_from_slice(&v[..width]);
                        }
                    }
                }
            }
            match parse_fatbin(&b) {
                Ok((entries, used)) => {
                    ok += 1;
                    assert!(used <= b.len());
                    for e in &entries {
                        assert!(e.payload.len() as u64 <= cuda::image::MAX_DECOMPRESSED);
                        let _ = e.ptx_text();
                    }
                    let _ = select_ptx(&entries, 86).map_err(|e| e.to_string());
                }
                Err(e) => {
                    err += 1;
                    let msg = e.to_string();
                    assert!(!msg.contains("panicked"), "{name}: {msg}");
                }
            }
        }
    }
    eprintln!("mutations: {ok} parsed, {err} rejected");
    // Both outcomes happen: the mutations reach past the magic checks.
    assert!(ok > 100 && err > 1000, "ok {ok}, err {err}");
}
