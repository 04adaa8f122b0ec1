//! The keyed hash behind the INTEGRITY_CHECK export table, as a pure function of its inputs.
//!
//! What the runtime verifies is HMAC-MD2 (RFC 2104 over RFC 1319's MD2, block size 16) under a
//! fixed 16-byte key, of a message made of the process identity, the addresses of two export
//! tables and a function, the caller's seconds argument, and then every device's identity. ZLUDA
//! (`dark_api/src/lib.rs`, `integrity_check` and its `pass2`..`pass7`) reverse-engineered it as a
//! sequence of passes over a 66-byte state; that state is exactly MD2's (48-byte X buffer,
//! 16-byte checksum, block fill count, last checksum byte), and its passes are the inner and the
//! outer hash of the HMAC. This module implements MD2 and the HMAC directly; the unit tests pin
//! it to ZLUDA's recorded pass-by-pass states (facts measured from NVIDIA's driver) and to RFC
//! 1319's own test suite.
//!
//! Invariant: nothing here reads process state; the export-table slot gathers the inputs (pid,
//! thread, addresses, devices) and passes them in.

/// MD2's substitution table: a permutation of 0..=255 built from the digits of pi (RFC 1319 §3.2).
const PI_SUBST: [u8; 256] = [
    0x29, 0x2E, 0x43, 0xC9, 0xA2, 0xD8, 0x7C, 0x01, 0x3D, 0x36, 0x54, 0xA1, 0xEC, 0xF0, 0x06, 0x13,
    0x62, 0xA7, 0x05, 0xF3, 0xC0, 0xC7, 0x73, 0x8C, 0x98, 0x93, 0x2B, 0xD9, 0xBC, 0x4C, 0x82, 0xCA,
    0x1E, 0x9B, 0x57, 0x3C, 0xFD, 0xD4, 0xE0, 0x16, 0x67, 0x42, 0x6F, 0x18, 0x8A, 0x17, 0xE5, 0x12,
    0xBE, 0x4E, 0xC4, 0xD6, 0xDA, 0x9E, 0xDE, 0x49, 0xA0, 0xFB, 0xF5, 0x8E, 0xBB, 0x2F, 0xEE, 0x7A,
    0xA9, 0x68, 0x79, 0x91, 0x15, 0xB2, 0x07, 0x3F, 0x94, 0xC2, 0x10, 0x89, 0x0B, 0x22, 0x5F, 0x21,
    0x80, 0x7F, 0x5D, 0x9A, 0x5A, 0x90, 0x32, 0x27, 0x35, 0x3E, 0xCC, 0xE7, 0xBF, 0xF7, 0x97, 0x03,
    0xFF, 0x19, 0x30, 0xB3, 0x48, 0xA5, 0xB5, 0xD1, 0xD7, 0x5E, 0x92, 0x2A, 0xAC, 0x56, 0xAA, 0xC6,
    0x4F, 0xB8, 0x38, 0xD2, 0x96, 0xA4, 0x7D, 0xB6, 0x76, 0xFC, 0x6B, 0xE2, 0x9C, 0x74, 0x04, 0xF1,
    0x45, 0x9D, 0x70, 0x59, 0x64, 0x71, 0x87, 0x20, 0x86, 0x5B, 0xCF, 0x65, 0xE6, 0x2D, 0xA8, 0x02,
    0x1B, 0x60, 0x25, 0xAD, 0xAE, 0xB0, 0xB9, 0xF6, 0x1C, 0x46, 0x61, 0x69, 0x34, 0x40, 0x7E, 0x0F,
    0x55, 0x47, 0xA3, 0x23, 0xDD, 0x51, 0xAF, 0x3A, 0xC3, 0x5C, 0xF9, 0xCE, 0xBA, 0xC5, 0xEA, 0x26,
    0x2C, 0x53, 0x0D, 0x6E, 0x85, 0x28, 0x84, 0x09, 0xD3, 0xDF, 0xCD, 0xF4, 0x41, 0x81, 0x4D, 0x52,
    0x6A, 0xDC, 0x37, 0xC8, 0x6C, 0xC1, 0xAB, 0xFA, 0x24, 0xE1, 0x7B, 0x08, 0x0C, 0xBD, 0xB1, 0x4A,
    0x78, 0x88, 0x95, 0x8B, 0xE3, 0x63, 0xE8, 0x6D, 0xE9, 0xCB, 0xD5, 0xFE, 0x3B, 0x00, 0x1D, 0x39,
    0xF2, 0xEF, 0xB7, 0x0E, 0x66, 0x58, 0xD0, 0xE4, 0xA6, 0x77, 0x72, 0xF8, 0xEB, 0x75, 0x4B, 0x0A,
    0x31, 0x44, 0x50, 0xB4, 0x8F, 0xED, 0x1F, 0x1A, 0xDB, 0x99, 0x8D, 0x33, 0x9F, 0x11, 0x83, 0x14,
];

/// The HMAC key. ZLUDA calls it the result of a "first computation pass" that reads no input.
const KEY: [u8; 16] = [
    0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52, 0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F,
];

/// HMAC's inner and outer pads (RFC 2104).
const IPAD: u8 = 0x36;
const OPAD: u8 = 0x5c;

/// The answers for `version % 10` of 0 and 1, which hash nothing (ZLUDA, `integrity_check`).
pub const FIXED_ANSWER_0: [u64; 2] = [0x3341_181C_03CB_675C, 0x8ED3_83AA_1F4C_D1E8];
pub const FIXED_ANSWER_1: [u64; 2] = [0x1841_181C_03CB_675C, 0x8ED3_83AA_1F4C_D1E8];

/// An MD2 computation in progress (RFC 1319).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Md2 {
    /// The 48-byte buffer X: `[0..16)` the digest state, `[16..32)` the current block,
    /// `[32..48)` the block XOR the state.
    x: [u8; 48],
    /// The running checksum C.
    checksum: [u8; 16],
    /// How many bytes of the current block are filled (0..16).
    filled: u8,
    /// The last checksum byte written, L in RFC 1319.
    last: u8,
}

impl Md2 {
    const fn new() -> Self {
        Md2 {
            x: [0; 48],
            checksum: [0; 16],
            filled: 0,
            last: 0,
        }
    }

    fn update_byte(&mut self, byte: u8) {
        let i = usize::from(self.filled);
        self.x[16 + i] = byte;
        self.x[32 + i] = byte ^ self.x[i];
        self.checksum[i] ^= PI_SUBST[usize::from(byte ^ self.last)];
        self.last = self.checksum[i];
        self.filled = ((i + 1) % 16) as u8;
        if self.filled == 0 {
            self.compress();
        }
    }

    fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.update_byte(b);
        }
    }

    /// 18 rounds over X, run once per full block.
    fn compress(&mut self) {
        let mut t = 0u8;
        for round in 0..18u8 {
            for x in self.x.iter_mut() {
                *x ^= PI_SUBST[usize::from(t)];
                t = *x;
            }
            t = t.wrapping_add(round);
        }
    }

    /// Pads with `n` bytes of value `n` up to a block, then hashes the checksum as a last block.
    fn finish(&mut self) -> [u8; 16] {
        let pad = 16 - self.filled;
        for _ in 0..pad {
            self.update_byte(pad);
        }
        // Each checksum byte is read before this block's own update overwrites it, so hashing a
        // copy is the same as hashing the checksum in place.
        let checksum = self.checksum;
        self.update(&checksum);
        let mut digest = [0; 16];
        digest.copy_from_slice(&self.x[..16]);
        digest
    }
}

/// HMAC-MD2 under [`KEY`], the message given as parts.
fn hmac_md2(message: &[&[u8]]) -> [u8; 16] {
    let mut inner = Md2::new();
    inner.update(&KEY.map(|k| k ^ IPAD));
    for part in message {
        inner.update(part);
    }
    let inner_digest = inner.finish();
    let mut outer = Md2::new();
    outer.update(&KEY.map(|k| k ^ OPAD));
    outer.update(&inner_digest);
    outer.finish()
}

/// Everything the hash covers except the devices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inputs {
    /// What `cuDriverGetVersion` reports.
    pub driver_version: u32,
    /// The slot's first argument (the runtime passes its version times 10 plus 0, 1, 2).
    pub version: u32,
    /// `getpid()`.
    pub process_id: u32,
    /// `pthread_self()` of the calling thread, truncated to its low 32 bits.
    pub thread_id: u32,
    /// The address of the CUDART_INTERFACE table as handed out by `cuGetExportTable`.
    pub cudart_interface_table: usize,
    /// The address of the INTEGRITY_CHECK table.
    pub integrity_check_table: usize,
    /// The function in INTEGRITY_CHECK slot 1.
    pub integrity_check_fn: usize,
    /// The slot's second argument.
    pub unix_seconds: u64,
}

impl Inputs {
    /// The 48 message bytes, in the order and native byte order of ZLUDA's `#[repr(C)]`
    /// `Pass3Input` (which has no padding on a 64-bit target).
    fn message_bytes(&self) -> [u8; 48] {
        let mut out = [0u8; 48];
        let fields: [&[u8]; 8] = [
            &self.driver_version.to_ne_bytes(),
            &self.version.to_ne_bytes(),
            &self.process_id.to_ne_bytes(),
            &self.thread_id.to_ne_bytes(),
            &(self.cudart_interface_table as u64).to_ne_bytes(),
            &(self.integrity_check_table as u64).to_ne_bytes(),
            &(self.integrity_check_fn as u64).to_ne_bytes(),
            &self.unix_seconds.to_ne_bytes(),
        ];
        let mut at = 0;
        for f in fields {
            out[at..at + f.len()].copy_from_slice(f);
            at += f.len();
        }
        debug_assert_eq!(at, out.len());
        out
    }
}

/// One device's contribution to the hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Device {
    /// `cuDeviceGetUuid_v2`.
    pub uuid: [u8; 16],
    /// `CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID`.
    pub pci_domain: i32,
    /// `CU_DEVICE_ATTRIBUTE_PCI_BUS_ID`.
    pub pci_bus: i32,
    /// `CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID`.
    pub pci_device: i32,
}

impl Device {
    /// The 28 message bytes: ZLUDA's `#[repr(C)]` `DeviceHashinfo`.
    fn message_bytes(&self) -> [u8; 28] {
        let mut out = [0u8; 28];
        out[..16].copy_from_slice(&self.uuid);
        out[16..20].copy_from_slice(&self.pci_domain.to_ne_bytes());
        out[20..24].copy_from_slice(&self.pci_bus.to_ne_bytes());
        out[24..28].copy_from_slice(&self.pci_device.to_ne_bytes());
        out
    }
}

/// Whether [`hash`] needs the devices at all (it does not for `version % 10` of 0 and 1).
pub fn needs_devices(version: u32) -> bool {
    version % 10 >= 2
}

/// What INTEGRITY_CHECK slot 1 writes to its `u64[2]` output.
pub fn hash(inputs: &Inputs, devices: &[Device]) -> [u64; 2] {
    match inputs.version % 10 {
        0 => return FIXED_ANSWER_0,
        1 => return FIXED_ANSWER_1,
        _ => {}
    }
    let head = inputs.message_bytes();
    let devices: Vec<[u8; 28]> = devices.iter().map(Device::message_bytes).collect();
    let mut parts: Vec<&[u8]> = Vec::with_capacity(1 + devices.len());
    parts.push(&head);
    parts.extend(devices.iter().map(|d| &d[..]));
    let digest = hmac_md2(&parts);
    // The output is the digest's 16 bytes as stored: two native-endian u64s.
    [
        u64::from_ne_bytes(digest[..8].try_into().expect("8 bytes")),
        u64::from_ne_bytes(digest[8..].try_into().expect("8 bytes")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ZLUDA's tests record the 66-byte state: X (48), checksum (16), fill count, last byte.
    fn from_state(s: &[u8; 66]) -> Md2 {
        let mut m = Md2::new();
        m.x.copy_from_slice(&s[..48]);
        m.checksum.copy_from_slice(&s[48..64]);
        m.filled = s[64];
        m.last = s[65];
        m
    }

    fn to_state(m: &Md2) -> [u8; 66] {
        let mut s = [0u8; 66];
        s[..48].copy_from_slice(&m.x);
        s[48..64].copy_from_slice(&m.checksum);
        s[64] = m.filled;
        s[65] = m.last;
        s
    }

    fn md2_hex(data: &[u8]) -> String {
        let mut m = Md2::new();
        m.update(data);
        m.finish().iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn pi_subst_is_a_permutation() {
        let mut seen = [false; 256];
        for &b in &PI_SUBST {
            assert!(!seen[usize::from(b)]);
            seen[usize::from(b)] = true;
        }
    }

    /// RFC 1319 appendix A.5, the MD2 test suite.
    #[test]
    fn md2_matches_rfc_1319() {
        let suite: [(&str, &str); 7] = [
            ("", "8350e5a3e24c153df2275c9f80692773"),
            ("a", "32ec01ec4a6dac72c0ab96fb34c0b5d1"),
            ("abc", "da853b0d3f88d99b30283a69e6ded6bb"),
            ("message digest", "ab4f496bfb2a530b219ff33031fe06b0"),
            (
                "abcdefghijklmnopqrstuvwxyz",
                "4e8ddff3650292ab5a4108c3aa47940b",
            ),
            (
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                "da33def2a42df13975352846c30338cd",
            ),
            (
                "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
                "d5976f79d83d3a0dc9806c3c66f3efd8",
            ),
        ];
        for (input, digest) in suite {
            assert_eq!(md2_hex(input.as_bytes()), digest, "MD2({input:?})");
        }
    }

    // The vectors below are ZLUDA's (`dark_api/src/lib.rs`, tests `integrity_check_single_pass`,
    // `_pass2`, `_pass3`, `_pass4`, `_pass5`): states recorded around NVIDIA's own code.

    #[test]
    fn one_byte_update_matches_zluda() {
        let before = [
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x38, 0xc0, 0x9b, 0xf7, 0xff, 0x7f, 0x00, 0x00, 0xa3, 0x61, 0xe4, 0x42,
            0xf6, 0x67, 0x94, 0xff, 0x18, 0xc0, 0x9b, 0xf7, 0xff, 0x7f, 0x00, 0x00, 0xa4, 0x57,
            0x72, 0xf7, 0xff, 0x7f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ];
        let after = [
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x22, 0xc0, 0x9b, 0xf7, 0xff, 0x7f, 0x00, 0x00, 0xa3, 0x61, 0xe4, 0x42,
            0xf6, 0x67, 0x94, 0xff, 0x22, 0xc0, 0x9b, 0xf7, 0xff, 0x7f, 0x00, 0x00, 0xa4, 0x57,
            0x72, 0xf7, 0xff, 0x7f, 0x00, 0x00, 0x57, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x57,
        ];
        let mut m = from_state(&before);
        m.update_byte(34);
        assert_eq!(to_state(&m), after);
    }

    /// After the inner pad: the state every inner hash starts from.
    const AFTER_INNER_PAD: [u8; 66] = [
        0x8b, 0x21, 0x9a, 0x49, 0xe8, 0x6d, 0x1a, 0xee, 0xf2, 0x37, 0xf9, 0xb5, 0x4a, 0x8c, 0x3c,
        0x75, 0xc7, 0x1e, 0xee, 0x21, 0xcf, 0x29, 0x8a, 0xe5, 0x13, 0x83, 0xf4, 0xec, 0x33, 0x04,
        0xe2, 0xfd, 0xb0, 0x2f, 0x09, 0x01, 0x4f, 0xf7, 0x68, 0x6d, 0x69, 0x46, 0x43, 0x7e, 0xb6,
        0x2b, 0x21, 0xed, 0x57, 0xa1, 0x10, 0x86, 0x0e, 0x60, 0x44, 0x1e, 0x70, 0x5f, 0x67, 0xd1,
        0xeb, 0x67, 0xa1, 0x3d, 0x00, 0x3d,
    ];

    /// The inputs ZLUDA recorded for its pass-3 test (CUDA 12.8 runtime, version 12082).
    const RECORDED_INPUTS: Inputs = Inputs {
        driver_version: 0x2f30,
        version: 12082,
        process_id: 0x002f_a423,
        thread_id: 0xf79c_1000,
        cudart_interface_table: 0x0000_7fff_f695_8240,
        integrity_check_table: 0x0000_7fff_f695_8220,
        integrity_check_fn: 0x0000_7fff_f2aa_f4a0,
        unix_seconds: 0x682b_9cee,
    };

    /// The device ZLUDA recorded for its pass-4 test; its UUID was written as four
    /// native-endian u32s.
    fn recorded_device() -> Device {
        let words = [0x8a2b_fe9au32, 0x382d_25ac, 0xc5ae_37ea, 0x5f32_716d];
        let mut uuid = [0u8; 16];
        for (i, w) in words.iter().enumerate() {
            uuid[4 * i..4 * i + 4].copy_from_slice(&w.to_ne_bytes());
        }
        Device {
            uuid,
            pci_domain: 0,
            pci_bus: 2,
            pci_device: 0,
        }
    }

    #[test]
    fn inner_pad_matches_zluda() {
        let mut m = Md2::new();
        m.update(&KEY.map(|k| k ^ IPAD));
        assert_eq!(to_state(&m), AFTER_INNER_PAD);
    }

    #[test]
    fn process_part_matches_zluda() {
        let mut m = from_state(&AFTER_INNER_PAD);
        m.update(&RECORDED_INPUTS.message_bytes());
        let expected = [
            0x0a, 0xfd, 0xab, 0xc9, 0xff, 0x9b, 0xa0, 0xbe, 0x4d, 0x30, 0x32, 0x82, 0x74, 0x4f,
            0xa7, 0x48, 0x9d, 0x23, 0x82, 0xa3, 0x87, 0xfa, 0x6c, 0xdb, 0x92, 0x49, 0xd9, 0xb5,
            0x4b, 0x2b, 0x5e, 0x51, 0x6e, 0xf7, 0xf9, 0x4d, 0x28, 0x8a, 0x64, 0x06, 0x19, 0xb3,
            0xe6, 0xbe, 0xa4, 0xec, 0x7e, 0x54, 0x64, 0x28, 0xd9, 0xe1, 0xd4, 0x34, 0xc0, 0xa9,
            0x49, 0x88, 0xc9, 0x61, 0x58, 0xdd, 0x66, 0x74, 0x00, 0x74,
        ];
        assert_eq!(to_state(&m), expected);
    }

    #[test]
    fn device_part_matches_zluda() {
        let before = [
            0x84, 0xfd, 0x93, 0x10, 0xc6, 0xdb, 0xb3, 0xbc, 0x49, 0xc2, 0x25, 0xe7, 0xda, 0x6e,
            0x22, 0x6f, 0x9b, 0xbd, 0x81, 0x59, 0xc3, 0x01, 0x9a, 0x7a, 0x26, 0x34, 0x39, 0x0f,
            0x2a, 0x56, 0x13, 0xb1, 0xf6, 0xbc, 0x7f, 0xa1, 0x8f, 0x04, 0xa5, 0x4d, 0x0d, 0x78,
            0xab, 0x20, 0xf8, 0x23, 0x20, 0xa5, 0x3f, 0x67, 0x36, 0xe2, 0xde, 0x8a, 0xe5, 0xdf,
            0xe1, 0xf2, 0x03, 0x94, 0xad, 0xdc, 0x9a, 0xda, 0x00, 0xda,
        ];
        let after = [
            0x1f, 0xd8, 0x25, 0xd2, 0xdf, 0xfa, 0x64, 0xc7, 0xb6, 0x1a, 0xaf, 0x22, 0xb8, 0x79,
            0xfb, 0x96, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x7c, 0x9d, 0x46, 0xd2, 0x1f, 0xd8, 0x25, 0xd2, 0xdd, 0xfa, 0x64, 0xc7, 0xb6, 0x1a,
            0xaf, 0x22, 0xe6, 0x17, 0xbd, 0x3a, 0xd7, 0xdd, 0x5f, 0x82, 0x8c, 0x87, 0xce, 0x86,
            0x66, 0xaf, 0xa0, 0x50, 0x7a, 0x7d, 0xbb, 0xbc, 0x0c, 0x50,
        ];
        let mut m = from_state(&before);
        m.update(&recorded_device().message_bytes());
        assert_eq!(to_state(&m), after);
    }

    #[test]
    fn finish_matches_zluda() {
        let before = [
            0x3e, 0x4b, 0xf2, 0x95, 0x71, 0xf5, 0x6b, 0x51, 0x07, 0xbf, 0x4b, 0xf1, 0x04, 0x0e,
            0x8e, 0x0b, 0x5f, 0x4d, 0x30, 0x0c, 0x0f, 0x0c, 0xae, 0xfb, 0x48, 0xaf, 0x23, 0xb5,
            0xea, 0x4c, 0xc2, 0xdb, 0xd7, 0xdf, 0x88, 0x74, 0x39, 0x58, 0x16, 0x3a, 0x1f, 0x7c,
            0x9b, 0x20, 0x7e, 0x7e, 0x94, 0xc8, 0x8b, 0xc6, 0xb2, 0x38, 0x0d, 0x07, 0x7d, 0xbd,
            0x90, 0xd5, 0x39, 0x63, 0xeb, 0x1d, 0x4f, 0x40, 0x00, 0x40,
        ];
        let after = [
            0x00, 0x23, 0x53, 0x06, 0x5e, 0x96, 0xf6, 0x9c, 0x61, 0xaa, 0x96, 0x2d, 0x2e, 0xcd,
            0xa8, 0x58, 0xe9, 0xca, 0xc0, 0x2e, 0x35, 0xed, 0x5f, 0xca, 0xe1, 0x0e, 0xcd, 0x1f,
            0xd0, 0x8e, 0x8b, 0x9c, 0x29, 0x4d, 0x1c, 0x94, 0x6b, 0xf7, 0x10, 0xb0, 0x07, 0x08,
            0x91, 0xd6, 0x14, 0x06, 0xc0, 0xec, 0xe1, 0x9c, 0x8e, 0x33, 0xd4, 0xe9, 0x43, 0x5c,
            0x86, 0x0c, 0x72, 0x4d, 0x27, 0x98, 0x91, 0x7f, 0x00, 0x7f,
        ];
        let mut m = from_state(&before);
        let digest = m.finish();
        assert_eq!(to_state(&m), after);
        assert_eq!(digest[..], after[..16]);
    }

    #[test]
    fn message_layout_is_repr_c() {
        let bytes = RECORDED_INPUTS.message_bytes();
        assert_eq!(bytes[0..4], 0x2f30u32.to_ne_bytes());
        assert_eq!(bytes[4..8], 12082u32.to_ne_bytes());
        assert_eq!(bytes[16..24], 0x0000_7fff_f695_8240u64.to_ne_bytes());
        assert_eq!(bytes[32..40], 0x0000_7fff_f2aa_f4a0u64.to_ne_bytes());
        assert_eq!(bytes[40..48], 0x682b_9ceeu64.to_ne_bytes());
        let dev = recorded_device().message_bytes();
        assert_eq!(dev[20..24], 2i32.to_ne_bytes());
    }

    #[test]
    fn fixed_answers_for_versions_ending_in_0_and_1() {
        let mut inputs = RECORDED_INPUTS;
        for (version, answer) in [
            (13050, FIXED_ANSWER_0),
            (13051, FIXED_ANSWER_1),
            (12090, FIXED_ANSWER_0),
            (12091, FIXED_ANSWER_1),
        ] {
            inputs.version = version;
            assert!(!needs_devices(version));
            assert_eq!(hash(&inputs, &[]), answer);
            assert_eq!(hash(&inputs, &[recorded_device()]), answer);
        }
        assert!(needs_devices(13052));
    }

    /// The whole hash is the HMAC: inner pad, message, finish; outer pad, inner digest, finish.
    #[test]
    fn hash_is_hmac_md2_of_the_message() {
        let device = recorded_device();
        let mut inner = from_state(&AFTER_INNER_PAD);
        inner.update(&RECORDED_INPUTS.message_bytes());
        inner.update(&device.message_bytes());
        let inner_digest = inner.finish();
        let mut outer = Md2::new();
        outer.update(&KEY.map(|k| k ^ OPAD));
        outer.update(&inner_digest);
        let digest = outer.finish();
        let got = hash(&RECORDED_INPUTS, &[device]);
        let mut got_bytes = [0u8; 16];
        got_bytes[..8].copy_from_slice(&got[0].to_ne_bytes());
        got_bytes[8..].copy_from_slice(&got[1].to_ne_bytes());
        assert_eq!(got_bytes, digest);
    }

    /// Whole answers for the recorded inputs with 0, 1 and 2 devices (device `i`: the recorded
    /// UUID with its first word XOR `i`, PCI domain `i`, bus `2 + i`, device 0). The expected
    /// values were produced by running ZLUDA's own `integrity_check` (outside this repository)
    /// on these inputs, on x86-64: an oracle independent of this implementation.
    #[cfg(target_endian = "little")]
    #[test]
    fn whole_hash_matches_zluda_reference() {
        let device = |i: u32| {
            let mut d = recorded_device();
            d.uuid[..4].copy_from_slice(&(0x8a2b_fe9au32 ^ i).to_ne_bytes());
            d.pci_domain = i as i32;
            d.pci_bus = 2 + i as i32;
            d
        };
        let mut inputs = RECORDED_INPUTS;
        let cases: [(u32, u32, [u64; 2]); 4] = [
            (12082, 1, [0xf7ce26b071a14844, 0xdd021b05393e8c6c]),
            (12082, 0, [0xd22dfa4f5eef7907, 0xfa7b90d103755207]),
            (12082, 2, [0x1c0d75ac8bc14f66, 0xa5f786b943990702]),
            (13052, 1, [0x2b6eafda3cd5d3ed, 0x2bd77a9803f2fb69]),
        ];
        for (version, count, expected) in cases {
            inputs.version = version;
            let devices: Vec<Device> = (0..count).map(device).collect();
            assert_eq!(
                hash(&inputs, &devices),
                expected,
                "version {version}, {count} devices"
            );
        }
    }

    /// Every input field changes the answer.
    #[test]
    fn every_input_matters() {
        let base_dev = recorded_device();
        let base = hash(&RECORDED_INPUTS, &[base_dev]);
        let mut variants: Vec<(Inputs, Vec<Device>)> = Vec::new();
        let tweak = |f: &dyn Fn(&mut Inputs)| {
            let mut i = RECORDED_INPUTS;
            f(&mut i);
            (i, vec![base_dev])
        };
        variants.push(tweak(&|i| i.driver_version ^= 1));
        variants.push(tweak(&|i| i.version += 10));
        variants.push(tweak(&|i| i.process_id ^= 1));
        variants.push(tweak(&|i| i.thread_id ^= 1 << 31));
        variants.push(tweak(&|i| i.cudart_interface_table ^= 8));
        variants.push(tweak(&|i| i.integrity_check_table ^= 8));
        variants.push(tweak(&|i| i.integrity_check_fn ^= 1));
        variants.push(tweak(&|i| i.unix_seconds ^= 1 << 40));
        let tweak_dev = |f: &dyn Fn(&mut Device)| {
            let mut d = base_dev;
            f(&mut d);
            (RECORDED_INPUTS, vec![d])
        };
        variants.push(tweak_dev(&|d| d.uuid[15] ^= 0x80));
        variants.push(tweak_dev(&|d| d.pci_domain = 1));
        variants.push(tweak_dev(&|d| d.pci_bus = 3));
        variants.push(tweak_dev(&|d| d.pci_device = 1));
        variants.push((RECORDED_INPUTS, vec![]));
        variants.push((RECORDED_INPUTS, vec![base_dev, base_dev]));
        for (i, (inputs, devs)) in variants.iter().enumerate() {
            assert_ne!(hash(inputs, devs), base, "variant {i}");
        }
    }
}
