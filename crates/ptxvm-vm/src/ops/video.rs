//! The video instructions (§9.7.18): scalar `vadd vsub vabsdiff vmin vmax vshl vshr vmad vset`
//! with sub-word selectors, saturation, a secondary operation or a data merge, and the SIMD
//! forms `vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2 vset2` and their 4-way versions with lane
//! selectors, destination masks and merge or accumulate.
//!
//! The arithmetic follows the manual's pseudocode with exact intermediates (i128): sources are
//! extracted and sign- or zero-extended to 33-bit values, the primary operation is exact,
//! `.sat` clamps to the destination's range (narrowed to the merged byte or half-word), then
//! the secondary operation or merge produces the 32-bit result. [`Video::eval`] is a pure
//! function of the spec and the three source values.

use ptxvm_ir::ir::VSel;

/// The primary operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VOp {
    Add,
    Sub,
    Absdiff,
    Min,
    Max,
    /// `vavrg2`/`vavrg4`: rounded average.
    Avrg,
    /// `vshl`/`vshr`; `wrap` is `.wrap` (shift & 31) rather than `.clamp` (min(shift, 32)).
    Shl {
        wrap: bool,
    },
    Shr {
        wrap: bool,
    },
    /// `vset` family: the comparison's 0/1 result.
    Set(VCmp),
    /// `vmad`: `(a*b) + c` with negates, `.po` and `.shr7`/`.shr15` scaling.
    Mad {
        neg_ab: bool,
        neg_c: bool,
        po: bool,
        shr: u8,
    },
}

/// Integer comparisons of `vset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VCmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// What happens after the primary operation (and `.sat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Second {
    None,
    /// Scalar `.add`/`.min`/`.max` with `c`; SIMD `.add` accumulates the masked lanes into `c`.
    Add,
    Min,
    Max,
    /// Scalar data merge: the result's low byte/half-word goes to lane `lane` of `c`.
    Merge {
        half: bool,
        lane: u8,
    },
}

/// A decoded video instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Video {
    pub op: VOp,
    /// 1 (scalar), 2 or 4 lanes.
    pub lanes: u8,
    pub d_signed: bool,
    pub a_signed: bool,
    pub b_signed: bool,
    pub sat: bool,
    /// Scalar: `None` = whole word, `Some((half, k))` = byte/half-word `k`.
    /// SIMD: the source lane (0..8 bytes or 0..4 half-words of `{b, a}`) of each element.
    pub asel: Sel,
    pub bsel: Sel,
    /// SIMD: bit i set = element i is written (merge) or accumulated.
    pub mask: u8,
    pub second: Second,
}

/// Where an operand's value(s) come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sel {
    Word,
    Part {
        half: bool,
        k: u8,
    },
    /// SIMD: element i comes from lane `lanes[i]` of `{b, a}`.
    Lanes([u8; 4]),
}

impl Video {
    /// Builds the spec from the opcode, its modifiers and the operands' selectors (`None` where
    /// an operand has none); `has_c` tells the 4-operand forms. `None` for a combination the
    /// checker does not accept.
    pub fn decode(
        opcode: &str,
        mods: &[&str],
        dsel: Option<VSel>,
        asel: Option<VSel>,
        bsel: Option<VSel>,
        neg: [bool; 3],
    ) -> Option<Video> {
        let has = |m: &str| mods.contains(&m);
        let signs: Vec<bool> = mods
            .iter()
            .filter_map(|m| match *m {
                ".u32" => Some(false),
                ".s32" => Some(true),
                _ => None,
            })
            .collect();
        let (base, lanes) = match opcode.as_bytes().last()? {
            b'2' => (&opcode[..opcode.len() - 1], 2u8),
            b'4' => (&opcode[..opcode.len() - 1], 4u8),
            _ => (opcode, 1u8),
        };
        let cmp = || {
            mods.iter().find_map(|m| {
                Some(match *m {
                    ".eq" => VCmp::Eq,
                    ".ne" => VCmp::Ne,
                    ".lt" => VCmp::Lt,
                    ".le" => VCmp::Le,
                    ".gt" => VCmp::Gt,
                    ".ge" => VCmp::Ge,
                    _ => return None,
                })
            })
        };
        let op = match base {
            "vadd" => VOp::Add,
            "vsub" => VOp::Sub,
            "vabsdiff" => VOp::Absdiff,
            "vmin" => VOp::Min,
            "vmax" => VOp::Max,
            "vavrg" => VOp::Avrg,
            "vshl" => VOp::Shl { wrap: has(".wrap") },
            "vshr" => VOp::Shr { wrap: has(".wrap") },
            "vset" => VOp::Set(cmp()?),
            "vmad" => VOp::Mad {
                neg_ab: neg[0] ^ neg[1],
                neg_c: neg[2],
                po: has(".po"),
                shr: if has(".shr7") {
                    7
                } else if has(".shr15") {
                    15
                } else {
                    0
                },
            },
            _ => return None,
        };
        // Types in order: vset has atype, btype (its result is unsigned); the rest dtype first.
        let (d_signed, a_signed, b_signed) = match (op, signs.as_slice()) {
            (VOp::Set(_), [a, b]) => (false, *a, *b),
            (_, [d, a, b]) => (*d, *a, *b),
            _ => return None,
        };
        let (asel, bsel, mask) = if lanes == 1 {
            let part = |s: Option<VSel>| match s {
                None => Sel::Word,
                Some(s) => Sel::Part {
                    half: s.half,
                    k: s.lanes[0],
                },
            };
            (part(asel), part(bsel), 1)
        } else {
            // Written digits are most significant element first; defaults .h10/.h32 and
            // .b3210/.b7654.
            let src = |s: Option<VSel>, dflt: [u8; 4]| {
                Sel::Lanes(match s {
                    Some(s) => {
                        let mut l = [0u8; 4];
                        let d = s.digits();
                        for (slot, &digit) in l.iter_mut().zip(d.iter().rev()) {
                            *slot = digit;
                        }
                        l
                    }
                    None => dflt,
                })
            };
            let (da, db) = if lanes == 2 {
                ([0, 1, 0, 0], [2, 3, 0, 0])
            } else {
                ([0, 1, 2, 3], [4, 5, 6, 7])
            };
            let mask = match dsel {
                Some(s) => s.digits().iter().fold(0u8, |m, &d| m | 1 << d),
                None => (1u8 << lanes) - 1,
            };
            (src(asel, da), src(bsel, db), mask)
        };
        let second = if has(".add") {
            Second::Add
        } else if has(".min") {
            Second::Min
        } else if has(".max") {
            Second::Max
        } else if lanes == 1
            && let Some(s) = dsel
        {
            Second::Merge {
                half: s.half,
                lane: s.lanes[0],
            }
        } else {
            Second::None
        };
        Some(Video {
            op,
            lanes,
            d_signed,
            a_signed,
            b_signed,
            sat: has(".sat"),
            asel,
            bsel,
            mask,
            second,
        })
    }

    /// The result for sources `a`, `b` and `c` (`c` is ignored by the 3-operand forms).
    pub fn eval(&self, a: u32, b: u32, c: u32) -> u32 {
        if self.lanes == 1 {
            self.scalar(a, b, c)
        } else {
            self.simd(a, b, c)
        }
    }

    fn scalar(&self, a: u32, b: u32, c: u32) -> u32 {
        let ta = part(a, self.asel, self.a_signed);
        if let VOp::Mad {
            neg_ab,
            neg_c,
            po,
            shr,
        } = self.op
        {
            return self.mad(ta, b, c, neg_ab, neg_c, po, shr);
        }
        // (`vshl`/`vshr` have `.u32` counts: the checker allows no other b type.)
        let tb = part(b, self.bsel, self.b_signed);
        let mut tmp: i128 = match self.op {
            VOp::Add => ta + tb,
            VOp::Sub => ta - tb,
            VOp::Absdiff => (ta - tb).abs(),
            VOp::Min => ta.min(tb),
            VOp::Max => ta.max(tb),
            VOp::Avrg => avrg(ta, tb),
            VOp::Shl { wrap } => ta << shift_count(tb, wrap),
            VOp::Shr { wrap } => ta >> shift_count(tb, wrap),
            VOp::Set(cmp) => compare(cmp, ta, tb) as i128,
            VOp::Mad { .. } => unreachable!("handled above"),
        };
        let set = matches!(self.op, VOp::Set(_));
        let signed = self.d_signed && !set;
        if self.sat && !set {
            let bits = match self.second {
                Second::Merge { half: true, .. } => 16,
                Second::Merge { half: false, .. } => 8,
                _ => 32,
            };
            tmp = clamp(tmp, bits, signed);
        }
        // The third operand takes the destination's signedness (unsigned for vset).
        let tc = if signed { c as i32 as i128 } else { c as i128 };
        let r = match self.second {
            Second::None => tmp,
            Second::Add => tmp + tc,
            Second::Min => tmp.min(tc),
            Second::Max => tmp.max(tc),
            Second::Merge { half, lane } => {
                let (w, m) = if half { (16, 0xffff) } else { (8, 0xff) };
                let sh = w * lane as u32;
                return (((tmp as u32) & m) << sh) | (c & !(m << sh));
            }
        };
        r as u32
    }

    #[allow(clippy::too_many_arguments)]
    fn mad(&self, ta: i128, b: u32, c: u32, neg_ab: bool, neg_c: bool, po: bool, shr: u8) -> u32 {
        let tb = part(b, self.bsel, self.b_signed);
        let signed = self.a_signed || self.b_signed || neg_ab || neg_c;
        let mut tmp = ta * tb;
        let mut c = c;
        let mut lsb = 0;
        if po {
            lsb = 1;
        } else if neg_ab {
            tmp = !tmp;
            lsb = 1;
        } else if neg_c {
            c = !c;
            lsb = 1;
        }
        let c128 = if signed { c as i32 as i128 } else { c as i128 };
        // Scaling is an arithmetic shift of the exact sum. The manual keeps 64 bits of it
        // before clamping; the exact value clamps the same except where a 64-bit truncation
        // would flip the sign of a product of two large unsigned words, which we take to be
        // an artifact of the pseudocode: saturation clamps the true value.
        let r = (tmp + c128 + lsb) >> shr;
        if !self.sat {
            r as u32
        } else if signed {
            r.clamp(i32::MIN as i128, i32::MAX as i128) as u32
        } else {
            r.clamp(0, u32::MAX as i128) as u32
        }
    }

    fn simd(&self, a: u32, b: u32, c: u32) -> u32 {
        let n = self.lanes as u32;
        let w = 32 / n;
        let m = (1u64 << w) as u32 - 1;
        let pool = (b as u64) << 32 | a as u64;
        let lane = |sel: Sel, i: usize, signed: bool| -> i128 {
            let Sel::Lanes(l) = sel else { return 0 };
            let v = (pool >> (w * l[i] as u32)) as u32 & m;
            ext(v, w, signed)
        };
        let set = matches!(self.op, VOp::Set(_));
        let mut d: u32 = if self.second == Second::Add { c } else { 0 };
        for i in 0..n as usize {
            let va = lane(self.asel, i, self.a_signed);
            let vb = lane(self.bsel, i, self.b_signed);
            let mut t = match self.op {
                VOp::Add => va + vb,
                VOp::Sub => va - vb,
                VOp::Absdiff => (va - vb).abs(),
                VOp::Min => va.min(vb),
                VOp::Max => va.max(vb),
                VOp::Avrg => avrg(va, vb),
                VOp::Set(cmp) => compare(cmp, va, vb) as i128,
                // Not SIMD operations (the checker has no such forms).
                VOp::Shl { .. } | VOp::Shr { .. } | VOp::Mad { .. } => 0,
            };
            if self.sat && !set {
                t = clamp(t, w, self.d_signed);
            }
            let on = self.mask >> i & 1 != 0;
            let sh = w * i as u32;
            if self.second == Second::Add {
                if on {
                    d = d.wrapping_add(t as u32);
                }
            } else {
                let v = if on { t as u32 } else { c >> sh };
                d |= (v & m) << sh;
            }
        }
        d
    }
}

/// Sign- or zero-extends the low `w` bits of `v`.
fn ext(v: u32, w: u32, signed: bool) -> i128 {
    if signed {
        ((v << (32 - w)) as i32 >> (32 - w)) as i128
    } else {
        (v & (u32::MAX >> (32 - w))) as i128
    }
}

/// A scalar source's selected byte/half-word/word, extended by its type.
fn part(x: u32, sel: Sel, signed: bool) -> i128 {
    match sel {
        Sel::Part { half: true, k } => ext(x >> (16 * (k as u32 & 1)), 16, signed),
        Sel::Part { half: false, k } => ext(x >> (8 * (k as u32 & 3)), 8, signed),
        _ => ext(x, 32, signed),
    }
}

/// `.clamp`: counts above 32 become 32; `.wrap`: the count modulo 32.
fn shift_count(tb: i128, wrap: bool) -> u32 {
    if wrap {
        (tb & 31) as u32
    } else {
        tb.min(32) as u32
    }
}

/// `vavrg`: (a + b + 1) >> 1 for non-negative sums, (a + b) >> 1 otherwise.
fn avrg(a: i128, b: i128) -> i128 {
    let s = a + b;
    if s >= 0 { (s + 1) >> 1 } else { s >> 1 }
}

fn compare(cmp: VCmp, a: i128, b: i128) -> bool {
    match cmp {
        VCmp::Eq => a == b,
        VCmp::Ne => a != b,
        VCmp::Lt => a < b,
        VCmp::Le => a <= b,
        VCmp::Gt => a > b,
        VCmp::Ge => a >= b,
    }
}

/// Clamps to the signed or unsigned range of `bits` bits.
fn clamp(v: i128, bits: u32, signed: bool) -> i128 {
    if signed {
        v.clamp(-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        v.clamp(0, (1i128 << bits) - 1)
    }
}
