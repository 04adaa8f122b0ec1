//! Where the generator's choices come from: fuzzer bytes, or a seed expanded into bytes.

/// Choices read from a byte string; zeros once it is used up (and `exhausted` says so, which
/// ends the kernel being generated).
pub struct Src {
    data: Vec<u8>,
    pos: usize,
}

/// SplitMix64: the seed expander (and the generator of bulk input data).
#[derive(Clone)]
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl Src {
    pub fn new(data: &[u8]) -> Src {
        Src {
            data: data.to_vec(),
            pos: 0,
        }
    }

    /// `len` bytes expanded from `seed`.
    pub fn from_seed(seed: u64, len: usize) -> Src {
        let mut r = SplitMix(seed ^ 0x005E_ED0F_D1FF);
        let mut data = Vec::with_capacity(len + 8);
        while data.len() < len {
            data.extend_from_slice(&r.next().to_le_bytes());
        }
        data.truncate(len);
        Src { data, pos: 0 }
    }

    pub fn exhausted(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    pub fn u64(&mut self) -> u64 {
        self.u32() as u64 | (self.u32() as u64) << 32
    }

    /// A number below `n` (0 when `n` is 0 or 1).
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let v = if n > 256 {
            (self.byte() as usize) << 8 | self.byte() as usize
        } else {
            self.byte() as usize
        };
        v % n
    }

    /// True with probability about `num / den`.
    pub fn chance(&mut self, num: u32, den: u32) -> bool {
        (self.byte() as u32 * den) < num * 256
    }

    pub fn coin(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    pub fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.below(items.len())]
    }

    /// An index chosen by weight.
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        if total == 0 {
            return 0;
        }
        let mut v = ((self.byte() as u32) << 8 | self.byte() as u32) % total;
        for (i, &w) in weights.iter().enumerate() {
            if v < w {
                return i;
            }
            v -= w;
        }
        weights.len() - 1
    }
}
