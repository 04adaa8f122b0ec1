//! A generator of random well-formed PTX kernels for differential testing of the execution
//! engines (`tests/engines_differential.rs`, and the `engines` cargo-fuzz target, which
//! includes this module by path).
//!
//! A kernel is chosen by a byte string ([`src::Src`]: fuzzer input, or a seed expanded into
//! bytes); the same bytes always give the same kernel and inputs. Every kernel
//!
//! - has the parameters `(out, inp, scr, atm: .u64 pointers, u: .u32)`: a per-thread output
//!   slot, per-thread input data, a global scratch buffer and an atomics buffer;
//! - loads its data registers (`%r` b32, `%rd` b64, `%h` b16, `%p` pred) from the input or
//!   from immediates biased toward edge values ([`values`]);
//! - runs random statements: integer, floating-point (f32/f64/f16/bf16, every rounding mode,
//!   `.ftz`, `.sat`), conversions, predicates and `selp`, `if`/`else` on lane-, warp-, CTA-
//!   and data-dependent conditions, bounded loops (uniform and lane-dependent trip counts,
//!   `break`/`continue`), global, shared and generic loads and stores (1/2/4/8 bytes and
//!   vectors, lane-dependent addresses), barriers, warp collectives with exactly the
//!   membermask of the lanes that execute them, and atomics;
//! - stores every register to its output slot at the end, so registers are compared through
//!   memory ([`Case::describe_out`] maps an output byte back to its thread and register).
//!
//! Only the reserved registers (`%t` b32, `%a` b64, `%q` pred) steer control flow and
//! addresses; statements write only data registers, so loops always end and addresses stay
//! inside their buffers. Rarely, a kernel gets an instruction that faults (an out-of-bounds
//! or misaligned access, `trap`), an early `exit`, uninitialised registers, or a small step
//! budget: the engines must then agree on the fault too.
#![allow(dead_code)]

pub mod harness;
pub mod src;
pub mod values;

use src::{SplitMix, Src};

/// Data registers of each width.
pub const N_R: usize = 12;
pub const N_RD: usize = 6;
pub const N_H: usize = 6;
pub const N_P: usize = 6;
/// Reserved 32-bit registers `%t0..%t13` (of which `%t0..%t11` are dumped).
pub const N_T: usize = 14;
/// Output bytes per thread: `%rd` at 0, `%r` at 48, `%h` at 96, predicates at 108,
/// `%t0..%t11` at 112.
pub const SLOT: usize = 160;
const OFF_RD: usize = 0;
const OFF_R: usize = 48;
const OFF_H: usize = 96;
const OFF_P: usize = 108;
const OFF_T: usize = 112;
/// Input bytes per thread.
pub const IN_SLOT: usize = 64;
/// The global scratch buffer: addressed bytes, then padding for immediate offsets.
pub const SCR_BYTES: usize = 4096;
pub const SCR_PAD: usize = 64;
/// The atomics buffer.
pub const ATM_BYTES: usize = 256;
/// The shared array.
pub const SH_BYTES: usize = 2048;

/// One generated launch.
#[derive(Clone, Debug)]
pub struct Case {
    /// Everything up to and including the register and shared declarations.
    pub head: String,
    /// The kernel's instructions and labels, one per line (the minimizer removes lines).
    pub lines: Vec<String>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub input: Vec<u8>,
    pub scratch: Vec<u8>,
    pub atom: Vec<u8>,
    pub uparam: u32,
    pub max_steps: u64,
}

impl Case {
    pub fn threads_per_cta(&self) -> usize {
        (self.block[0] * self.block[1] * self.block[2]) as usize
    }

    pub fn threads(&self) -> usize {
        self.threads_per_cta() * (self.grid[0] * self.grid[1] * self.grid[2]) as usize
    }

    pub fn out_bytes(&self) -> usize {
        self.threads() * SLOT
    }

    pub fn text(&self) -> String {
        let mut t = self.head.clone();
        for l in &self.lines {
            t.push_str(l);
            t.push('\n');
        }
        t.push_str("\tret;\n}\n");
        t
    }

    /// The thread and register an output byte belongs to.
    pub fn describe_out(&self, off: usize) -> String {
        let t = off / SLOT;
        let o = off % SLOT;
        let per = self.threads_per_cta().max(1);
        let (cta, lin) = (t / per, t % per);
        let reg = if o < OFF_R {
            format!("%rd{}", (o - OFF_RD) / 8)
        } else if o < OFF_H {
            format!("%r{}", (o - OFF_R) / 4)
        } else if o < OFF_P {
            format!("%h{}", (o - OFF_H) / 2)
        } else if o < OFF_T {
            "predicates (bits: %p0.. then %q0.. at bit 8)".to_string()
        } else {
            format!("%t{}", (o - OFF_T) / 4)
        };
        format!(
            "CTA {cta}, thread {lin} (tid.x {}, tid.y {}, lane {}), {reg}",
            lin % self.block[0] as usize,
            lin / self.block[0] as usize,
            lin % 32
        )
    }
}

/// Feature groups; each kernel enables a random subset so that its instructions
/// concentrate on a few of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
enum F {
    Int,
    Logic,
    F32,
    F64,
    Half,
    Cvt,
    Pred,
    Branch,
    Loop,
    Global,
    Shared,
    Atomic,
    Warp,
    Barrier,
    Local,
    Call,
    Printf,
    Switch,
}

const N_FEATURES: usize = 18;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum W {
    H,
    R,
    D,
    P,
}

/// What is known at a point of the kernel about the threads that run it.
#[derive(Clone, Copy, Debug)]
struct Ctx {
    /// Exactly the lanes (of a full warp) that run this point, when it is known.
    mask: Option<u32>,
    /// Every thread of the CTA runs this point the same number of times (a barrier is
    /// allowed).
    cta_uniform: bool,
    /// Nesting of ifs and loops.
    depth: usize,
    /// The innermost loop: its depth index (counter `%t{4+i}`), its labels, and whether
    /// it may be left by a `break` (then its body does not know its lanes even at the top).
    lp: Option<(usize, usize, bool)>,
    /// Product of the trip counts of the enclosing loops (at most).
    mult: u32,
    /// The innermost enclosing `if` (its `ENDIF` label), for forward escapes.
    endif: Option<usize>,
}

struct Gen<'s> {
    s: &'s mut Src,
    out: Vec<String>,
    label: usize,
    feats: [bool; N_FEATURES],
    /// Static statements left.
    stmts_left: u32,
    /// Dynamic instructions per thread left (bounded by the loop trip counts).
    dyn_left: u32,
    nthreads: u32,
    /// A full warp structure (the CTA is a multiple of 32 threads).
    full_warps: bool,
    /// Whether this kernel may contain instructions that fault, and early exits.
    faults: bool,
    exits: bool,
    /// Generating a helper function's body (no barriers, exits, calls, input reads).
    in_func: bool,
    /// Helper functions that can be called.
    nfuncs: usize,
}

const FLOAT_RND: &[&str] = &[".rn", ".rz", ".rm", ".rp"];
const INT_RND: &[&str] = &[".rni", ".rzi", ".rmi", ".rpi"];
const ITYPES: &[&str] = &[".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64"];

fn itype_w(t: &str) -> W {
    match t {
        ".u8" | ".s8" | ".u16" | ".s16" | ".b16" => W::H,
        ".u64" | ".s64" | ".b64" => W::D,
        _ => W::R,
    }
}

/// Whether some thread may leave these lines other than at their end: a branch to a label
/// they do not define, or an exit.
fn escapes(lines: &[String]) -> bool {
    lines.iter().any(|l| {
        if l.contains("exit;") || l.contains("ret;") {
            return true;
        }
        match l.split("bra ").nth(1) {
            Some(t) if l.starts_with("\t@") || t.starts_with("LEND") || t.starts_with("LCONT") => {
                let target = t.trim_end_matches(';');
                let def = format!("{target}:");
                !lines.contains(&def)
            }
            _ => false,
        }
    })
}

/// Whether `cvt.sat.DT.AT` exists (saturation only where the value can be out of range).
fn sat_ok(dt: &str, at: &str) -> bool {
    let ok: &[&str] = match dt {
        ".u8" => &[".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64"],
        ".u16" => &[".u32", ".u64", ".s8", ".s16", ".s32", ".s64"],
        ".u32" => &[".u64", ".s8", ".s16", ".s32", ".s64"],
        ".u64" => &[".s8", ".s16", ".s32", ".s64"],
        ".s8" => &[".u8", ".u16", ".u32", ".u64", ".s16", ".s32", ".s64"],
        ".s16" => &[".u16", ".u32", ".u64", ".s32", ".s64"],
        ".s32" => &[".u32", ".u64", ".s64"],
        _ => &[".u64"],
    };
    ok.contains(&at)
}

fn e(g: &mut Gen, s: &str) {
    g.emit(format!("\t{s};"));
}

impl Gen<'_> {
    fn on(&self, f: F) -> bool {
        self.feats[f as usize]
    }

    fn emit(&mut self, line: String) {
        self.out.push(line);
    }

    fn label(&mut self) -> usize {
        self.label += 1;
        self.label
    }

    // ---------------------------------------------------------------------------------
    // Registers and operands
    // ---------------------------------------------------------------------------------

    fn dst(&mut self, w: W) -> String {
        match w {
            W::H => format!("%h{}", self.s.below(N_H)),
            W::R => format!("%r{}", self.s.below(N_R)),
            W::D => format!("%rd{}", self.s.below(N_RD)),
            W::P => format!("%p{}", self.s.below(N_P)),
        }
    }

    /// A register to read: a data register, or (b32) sometimes a read-only reserved one.
    fn reg(&mut self, w: W) -> String {
        if w == W::R && self.s.chance(1, 10) {
            return format!("%t{}", self.s.below(4));
        }
        self.dst(w)
    }

    /// A predicate operand, maybe negated.
    fn npred(&mut self) -> String {
        let p = self.dst(W::P);
        if self.s.coin() { format!("!{p}") } else { p }
    }

    fn imm_int(&mut self, w: W) -> String {
        match w {
            W::H => {
                let v = values::int16(self.s);
                if self.s.coin() {
                    format!("{v}")
                } else {
                    format!("0x{v:x}")
                }
            }
            W::R => {
                let v = values::int32(self.s);
                match self.s.below(3) {
                    0 => format!("{v}"),
                    1 if v > 0x8000_0000 => format!("-{}", v.wrapping_neg()),
                    _ => format!("0x{v:x}"),
                }
            }
            _ => {
                let v = values::int64(self.s);
                if self.s.coin() {
                    format!("{v}")
                } else {
                    format!("0x{v:x}")
                }
            }
        }
    }

    /// An integer source of width `w`: a register or (sometimes) an immediate.
    fn ri(&mut self, w: W) -> String {
        if self.s.chance(1, 4) {
            self.imm_int(w)
        } else {
            self.reg(w)
        }
    }

    /// A shift amount / bit position (`.u32` operand).
    fn amount(&mut self) -> String {
        match self.s.below(4) {
            0 | 1 => format!(
                "{}",
                self.s.pick(&[
                    0u32,
                    1,
                    3,
                    7,
                    8,
                    15,
                    16,
                    17,
                    31,
                    32,
                    33,
                    63,
                    64,
                    65,
                    127,
                    255,
                    256,
                    0xffff_ffff,
                    0x8000_0000,
                    40,
                    48
                ])
            ),
            _ => self.reg(W::R),
        }
    }

    fn f32src(&mut self) -> String {
        if self.s.chance(1, 5) {
            format!("0f{:08X}", values::f32(self.s))
        } else {
            self.reg(W::R)
        }
    }

    fn f64src(&mut self) -> String {
        if self.s.chance(1, 5) {
            format!("0d{:016X}", values::f64(self.s))
        } else {
            self.reg(W::D)
        }
    }

    fn ftz(&mut self) -> &'static str {
        if self.s.coin() { ".ftz" } else { "" }
    }

    fn sat(&mut self) -> &'static str {
        if self.s.chance(1, 3) { ".sat" } else { "" }
    }

    fn rnd(&mut self) -> &'static str {
        self.s.pick::<&str>(FLOAT_RND)
    }

    // ---------------------------------------------------------------------------------
    // Straight-line instructions
    // ---------------------------------------------------------------------------------

    fn int_type(&mut self) -> (&'static str, W, bool) {
        *self.s.pick(&[
            ("u16", W::H, false),
            ("s16", W::H, true),
            ("u32", W::R, false),
            ("s32", W::R, true),
            ("u32", W::R, false),
            ("s32", W::R, true),
            ("u64", W::D, false),
            ("s64", W::D, true),
        ])
    }

    fn int_inst(&mut self) -> Vec<String> {
        let (ty, w, signed) = self.int_type();
        let k = self.s.below(24);
        let d = self.dst(w);
        let a = if w == W::R && self.s.chance(1, 16) {
            // A special register as a source operand.
            self.s
                .pick(&["%tid.x", "%laneid", "%ctaid.x", "%ntid.x", "%warpid"])
                .to_string()
        } else {
            self.reg(w)
        };
        let b = self.ri(w);
        let line = match k {
            0 => format!("add.{ty} {d}, {a}, {b}"),
            1 => format!("sub.{ty} {d}, {a}, {b}"),
            2 => format!("mul.lo.{ty} {d}, {a}, {b}"),
            3 => format!("mul.hi.{ty} {d}, {a}, {b}"),
            4 => {
                // mul.wide: 16 -> 32, 32 -> 64.
                let (t, wa, wd) = *self.s.pick(&[
                    ("u16", W::H, W::R),
                    ("s16", W::H, W::R),
                    ("u32", W::R, W::D),
                    ("s32", W::R, W::D),
                ]);
                let d = self.dst(wd);
                let a = self.reg(wa);
                let b = self.ri(wa);
                if self.s.coin() {
                    format!("mul.wide.{t} {d}, {a}, {b}")
                } else {
                    let c = self.ri(wd);
                    format!("mad.wide.{t} {d}, {a}, {b}, {c}")
                }
            }
            5 => {
                let c = self.ri(w);
                let m = self.s.pick(&["lo", "hi"]);
                format!("mad.{m}.{ty} {d}, {a}, {b}, {c}")
            }
            6 => {
                // Division and remainder, often by 0 or -1.
                let b = match self.s.below(4) {
                    0 => "0".to_string(),
                    1 => "-1".to_string(),
                    _ => b,
                };
                let op = self.s.pick(&["div", "rem"]);
                format!("{op}.{ty} {d}, {a}, {b}")
            }
            7 => {
                let op = self.s.pick(&["min", "max"]);
                format!("{op}.{ty} {d}, {a}, {b}")
            }
            8 => {
                let sh = self.amount();
                if self.s.coin() {
                    let bt = match w {
                        W::H => "b16",
                        W::R => "b32",
                        _ => "b64",
                    };
                    format!("shl.{bt} {d}, {a}, {sh}")
                } else {
                    format!("shr.{ty} {d}, {a}, {sh}")
                }
            }
            9 => {
                let op = self
                    .s
                    .pick(&["add.sat.s32", "sub.sat.s32", "mad.hi.sat.s32"]);
                let d = self.dst(W::R);
                let a = self.reg(W::R);
                let b = self.ri(W::R);
                if op.starts_with("mad") {
                    let c = self.ri(W::R);
                    format!("{op} {d}, {a}, {b}, {c}")
                } else {
                    format!("{op} {d}, {a}, {b}")
                }
            }
            10 => {
                let (op, sty) = if signed {
                    (*self.s.pick(&["abs", "neg"]), ty.replace('u', "s"))
                } else {
                    ("neg", ty.replace('u', "s"))
                };
                format!("{op}.{sty} {d}, {a}")
            }
            11 => {
                // 24-bit multiplies.
                let t = self.s.pick(&["u32", "s32"]);
                let m = self.s.pick(&["lo", "hi"]);
                let d = self.dst(W::R);
                let a = self.reg(W::R);
                let b = self.ri(W::R);
                if self.s.coin() {
                    format!("mul24.{m}.{t} {d}, {a}, {b}")
                } else {
                    let c = self.ri(W::R);
                    format!("mad24.{m}.{t} {d}, {a}, {b}, {c}")
                }
            }
            12 => {
                let c = self.ri(w);
                format!("sad.{ty} {d}, {a}, {b}, {c}")
            }
            13 => {
                // Packed 16x2 and relu min/max.
                let d = self.dst(W::R);
                let a = self.reg(W::R);
                let b = self.ri(W::R);
                let form = *self.s.pick(&[
                    "add.u16x2",
                    "add.s16x2",
                    "min.u16x2",
                    "max.u16x2",
                    "min.s16x2",
                    "max.s16x2",
                    "min.relu.s16x2",
                    "max.relu.s16x2",
                    "min.relu.s32",
                    "max.relu.s32",
                ]);
                format!("{form} {d}, {a}, {b}")
            }
            14 => {
                // Carry chains: 2 or 3 words, add or sub, 32 or 64 bits.
                let (t, w) = *self.s.pick(&[("u32", W::R), ("s32", W::R), ("u64", W::D)]);
                let (op, opc) = *self.s.pick(&[("add", "addc"), ("sub", "subc")]);
                let n = 2 + self.s.below(2);
                let mut v = Vec::new();
                for i in 0..n {
                    let d = self.dst(w);
                    let a = self.reg(w);
                    let b = self.ri(w);
                    let m = if i == 0 {
                        format!("{op}.cc")
                    } else if i + 1 < n {
                        format!("{opc}.cc")
                    } else {
                        opc.to_string()
                    };
                    v.push(format!("{m}.{t} {d}, {a}, {b}"));
                }
                return v;
            }
            15 => {
                // Extended-precision multiply-add chain.
                let (t, w) = *self.s.pick(&[("u32", W::R), ("s32", W::R), ("u64", W::D)]);
                let mut v = Vec::new();
                let m1 = self.s.pick(&["lo", "hi"]);
                let m2 = self.s.pick(&["lo", "hi"]);
                let (d1, a1, b1, c1) = (self.dst(w), self.reg(w), self.ri(w), self.ri(w));
                v.push(format!("mad.{m1}.cc.{t} {d1}, {a1}, {b1}, {c1}"));
                let (d2, a2, b2, c2) = (self.dst(w), self.reg(w), self.ri(w), self.ri(w));
                v.push(format!("madc.{m2}.{t} {d2}, {a2}, {b2}, {c2}"));
                return v;
            }
            16 => {
                let t = self.s.pick(&["u32", "s32", "u64", "s64"]);
                let wa = if t.ends_with("64") { W::D } else { W::R };
                let d = self.dst(wa);
                let a = self.reg(wa);
                let (p, l) = (self.amount(), self.amount());
                format!("bfe.{t} {d}, {a}, {p}, {l}")
            }
            17 => {
                let (t, wa) = *self.s.pick(&[("b32", W::R), ("b64", W::D)]);
                let d = self.dst(wa);
                let a = self.reg(wa);
                let b = self.ri(wa);
                let (p, l) = (self.amount(), self.amount());
                format!("bfi.{t} {d}, {a}, {b}, {p}, {l}")
            }
            18 => {
                let (t, wa) = *self.s.pick(&[("b32", W::R), ("b64", W::D)]);
                let op = self.s.pick(&["popc", "clz", "brev"]);
                let a = self.reg(wa);
                let d = if *op == "brev" {
                    self.dst(wa)
                } else {
                    self.dst(W::R)
                };
                format!("{op}.{t} {d}, {a}")
            }
            19 => {
                let t = self.s.pick(&["u32", "s32", "u64", "s64"]);
                let wa = if t.ends_with("64") { W::D } else { W::R };
                let a = self.reg(wa);
                let d = self.dst(W::R);
                let sa = if self.s.coin() { ".shiftamt" } else { "" };
                format!("bfind{sa}.{t} {d}, {a}")
            }
            20 => {
                let d = self.dst(W::R);
                let (a, b) = (self.reg(W::R), self.reg(W::R));
                let c = self.ri(W::R);
                let off = if self.s.coin() {
                    c
                } else {
                    format!("{}", *self.s.pick(&[-33i32, -32, -1, 0, 1, 5, 31, 32, 100]))
                };
                format!("fns.b32 {d}, {a}, {b}, {off}")
            }
            21 => {
                let d = self.dst(W::R);
                let a = self.reg(W::R);
                let b = self.amount();
                let m = self.s.pick(&["clamp", "wrap"]);
                if self.s.coin() {
                    let t = self.s.pick(&["u32", "s32"]);
                    format!("szext.{m}.{t} {d}, {a}, {b}")
                } else {
                    format!("bmsk.{m}.b32 {d}, {a}, {b}")
                }
            }
            22 => {
                let d = self.dst(W::R);
                let (a, b, c) = (self.reg(W::R), self.ri(W::R), self.ri(W::R));
                let ta = self.s.pick(&["u32", "s32"]);
                let tb = self.s.pick(&["u32", "s32"]);
                if self.s.coin() {
                    format!("dp4a.{ta}.{tb} {d}, {a}, {b}, {c}")
                } else {
                    let m = self.s.pick(&["lo", "hi"]);
                    format!("dp2a.{m}.{ta}.{tb} {d}, {a}, {b}, {c}")
                }
            }
            _ => {
                // Moves between widths: pack/unpack.
                match self.s.below(4) {
                    0 => {
                        let d = self.dst(W::R);
                        let (x, y) = (self.reg(W::H), self.reg(W::H));
                        format!("mov.b32 {d}, {{{x}, {y}}}")
                    }
                    1 => {
                        let a = self.reg(W::R);
                        let (x, y) = (self.dst(W::H), self.dst(W::H));
                        if x == y {
                            format!("mov.b32 {{{x}, _}}, {a}")
                        } else {
                            format!("mov.b32 {{{x}, {y}}}, {a}")
                        }
                    }
                    2 => {
                        let d = self.dst(W::D);
                        let (x, y) = (self.reg(W::R), self.reg(W::R));
                        format!("mov.b64 {d}, {{{x}, {y}}}")
                    }
                    _ => {
                        let a = self.reg(W::D);
                        let (x, y) = (self.dst(W::R), self.dst(W::R));
                        if x == y {
                            format!("mov.b64 {{_, {y}}}, {a}")
                        } else {
                            format!("mov.b64 {{{x}, {y}}}, {a}")
                        }
                    }
                }
            }
        };
        vec![line]
    }

    fn logic_inst(&mut self) -> String {
        let (bt, w) = *self
            .s
            .pick(&[("b16", W::H), ("b32", W::R), ("b32", W::R), ("b64", W::D)]);
        let d = self.dst(w);
        let a = self.reg(w);
        match self.s.below(9) {
            0..=2 => {
                let op = self.s.pick(&["and", "or", "xor"]);
                let b = self.ri(w);
                format!("{op}.{bt} {d}, {a}, {b}")
            }
            3 => {
                let op = self.s.pick(&["not", "cnot"]);
                format!("{op}.{bt} {d}, {a}")
            }
            4 => {
                let d = self.dst(W::R);
                let (a, b, c) = (self.reg(W::R), self.ri(W::R), self.ri(W::R));
                let lut = self.s.byte();
                if self.s.chance(1, 3) {
                    let op = self.s.pick(&["or", "and"]);
                    let p = self.dst(W::P);
                    let q = self.npred().trim_start_matches('!').to_string();
                    format!("lop3.{op}.b32 {d}|{p}, {a}, {b}, {c}, 0x{lut:02x}, {q}")
                } else {
                    format!("lop3.b32 {d}, {a}, {b}, {c}, 0x{lut:02x}")
                }
            }
            5 => {
                let d = self.dst(W::R);
                let (a, b) = (self.reg(W::R), self.reg(W::R));
                let c = self.amount();
                let dir = self.s.pick(&["l", "r"]);
                let m = self.s.pick(&["clamp", "wrap"]);
                format!("shf.{dir}.{m}.b32 {d}, {a}, {b}, {c}")
            }
            6 => {
                let d = self.dst(W::R);
                let (a, b) = (self.reg(W::R), self.ri(W::R));
                let c = if self.s.coin() {
                    self.reg(W::R)
                } else {
                    format!("0x{:x}", self.s.u32() & 0xffff)
                };
                let m = self
                    .s
                    .pick(&["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"]);
                format!("prmt.b32{m} {d}, {a}, {b}, {c}")
            }
            7 if self.s.chance(1, 4) => {
                // The clocks count the CTA's warp instructions: deterministic.
                if self.s.coin() {
                    let d = self.dst(W::D);
                    let sr = self.s.pick(&["%clock64", "%globaltimer"]);
                    format!("mov.u64 {d}, {sr}")
                } else {
                    let d = self.dst(W::R);
                    let sr = self.s.pick(&["%clock", "%clock_hi", "%globaltimer_lo"]);
                    format!("mov.u32 {d}, {sr}")
                }
            }
            7 => {
                // Special registers.
                let d = self.dst(W::R);
                let sr = self.s.pick(&[
                    "%laneid",
                    "%tid.x",
                    "%tid.y",
                    "%ntid.x",
                    "%ctaid.x",
                    "%nctaid.x",
                    "%warpid",
                    "%lanemask_lt",
                    "%lanemask_le",
                    "%lanemask_eq",
                    "%lanemask_ge",
                    "%lanemask_gt",
                ]);
                format!("mov.u32 {d}, {sr}")
            }
            _ => {
                let b = self.ri(w);
                let p = self.reg(W::P);
                let t = match w {
                    W::H => *self.s.pick(&["b16", "u16", "s16"]),
                    W::R => *self.s.pick(&["b32", "u32", "s32", "f32"]),
                    _ => *self.s.pick(&["b64", "u64", "s64", "f64"]),
                };
                let b = if t.starts_with('f') { self.reg(w) } else { b };
                if self.s.chance(1, 4) && w != W::H {
                    let c = self.reg(W::R);
                    if self.s.coin() {
                        format!("slct.{t}.s32 {d}, {a}, {b}, {c}")
                    } else {
                        let f = self.ftz();
                        format!("slct{f}.{t}.f32 {d}, {a}, {b}, {c}")
                    }
                } else {
                    format!("selp.{t} {d}, {a}, {b}, {p}")
                }
            }
        }
    }

    fn f32_inst(&mut self) -> String {
        let d = self.dst(W::R);
        let a = self.reg(W::R);
        let b = self.f32src();
        let f = self.ftz();
        match self.s.below(16) {
            0..=2 => {
                let op = self.s.pick(&["add", "sub", "mul"]);
                let r = if self.s.chance(1, 5) { "" } else { self.rnd() };
                let sat = self.sat();
                format!("{op}{r}{f}{sat}.f32 {d}, {a}, {b}")
            }
            3 | 4 => {
                let c = self.f32src();
                let r = self.rnd();
                let sat = self.sat();
                let op = if self.s.chance(1, 4) { "mad" } else { "fma" };
                format!("{op}{r}{f}{sat}.f32 {d}, {a}, {b}, {c}")
            }
            5 => {
                let m = *self
                    .s
                    .pick(&[".rn", ".rz", ".rm", ".rp", ".full", ".approx"]);
                format!("div{m}{f}.f32 {d}, {a}, {b}")
            }
            6 => {
                let op = *self.s.pick(&["sqrt", "rcp"]);
                let m = *self.s.pick(&[".rn", ".rz", ".rm", ".rp", ".approx"]);
                format!("{op}{m}{f}.f32 {d}, {a}")
            }
            7 => {
                let op = *self.s.pick(&["rsqrt", "sin", "cos", "lg2", "ex2", "tanh"]);
                let f = if op == "tanh" { "" } else { f };
                format!("{op}.approx{f}.f32 {d}, {a}")
            }
            8 | 9 => {
                let op = self.s.pick(&["min", "max"]);
                let nan = if self.s.coin() { ".NaN" } else { "" };
                match self.s.below(4) {
                    0 => format!("{op}{f}{nan}.xorsign.abs.f32 {d}, {a}, {b}"),
                    1 => {
                        let c = self.f32src();
                        let abs = if self.s.coin() { ".abs" } else { "" };
                        format!("{op}{f}{nan}{abs}.f32 {d}, {a}, {b}, {c}")
                    }
                    _ => format!("{op}{f}{nan}.f32 {d}, {a}, {b}"),
                }
            }
            10 => {
                let op = self.s.pick(&["abs", "neg"]);
                format!("{op}{f}.f32 {d}, {a}")
            }
            11 => format!("copysign.f32 {d}, {a}, {b}"),
            12 => {
                let p = self.dst(W::P);
                let op = self.s.pick(&[
                    "finite",
                    "infinite",
                    "number",
                    "notanumber",
                    "normal",
                    "subnormal",
                ]);
                format!("testp.{op}.f32 {p}, {a}")
            }
            _ => {
                // Mixed precision (sm_100): f32 with a half operand.
                let t = self.s.pick(&["f16", "bf16"]);
                let h = self.reg(W::H);
                let r = self.rnd();
                let sat = self.sat();
                match self.s.below(3) {
                    0 => format!("add{r}{sat}.f32.{t} {d}, {h}, {b}"),
                    1 => format!("sub{r}{sat}.f32.{t} {d}, {h}, {b}"),
                    _ => {
                        let h2 = self.reg(W::H);
                        format!("fma{r}{sat}.f32.{t} {d}, {h}, {h2}, {b}")
                    }
                }
            }
        }
    }

    fn f64_inst(&mut self) -> String {
        let d = self.dst(W::D);
        let a = self.reg(W::D);
        let b = self.f64src();
        match self.s.below(10) {
            0..=2 => {
                let op = self.s.pick(&["add", "sub", "mul"]);
                let r = if self.s.chance(1, 5) { "" } else { self.rnd() };
                format!("{op}{r}.f64 {d}, {a}, {b}")
            }
            3 => {
                let c = self.f64src();
                let r = self.rnd();
                let op = if self.s.chance(1, 4) { "mad" } else { "fma" };
                format!("{op}{r}.f64 {d}, {a}, {b}, {c}")
            }
            4 => {
                let r = self.rnd();
                format!("div{r}.f64 {d}, {a}, {b}")
            }
            5 => {
                let r = self.rnd();
                let op = self.s.pick(&["sqrt", "rcp"]);
                format!("{op}{r}.f64 {d}, {a}")
            }
            6 => {
                let op = *self
                    .s
                    .pick(&["rsqrt.approx", "rsqrt.approx.ftz", "rcp.approx.ftz"]);
                format!("{op}.f64 {d}, {a}")
            }
            7 => {
                let op = self.s.pick(&["min", "max", "copysign"]);
                format!("{op}.f64 {d}, {a}, {b}")
            }
            8 => {
                let op = self.s.pick(&["abs", "neg"]);
                format!("{op}.f64 {d}, {a}")
            }
            _ => {
                let p = self.dst(W::P);
                let op = self.s.pick(&[
                    "finite",
                    "infinite",
                    "number",
                    "notanumber",
                    "normal",
                    "subnormal",
                ]);
                format!("testp.{op}.f64 {p}, {a}")
            }
        }
    }

    fn half_inst(&mut self) -> String {
        // f16/bf16 in b16 registers, f16x2/bf16x2 in b32 registers.
        let (t, w, bf) = *self.s.pick(&[
            ("f16", W::H, false),
            ("f16x2", W::R, false),
            ("bf16", W::H, true),
            ("bf16x2", W::R, true),
        ]);
        let d = self.dst(w);
        let (a, b) = (self.reg(w), self.reg(w));
        let f = if bf { "" } else { self.ftz() };
        let sat = if bf { "" } else { self.sat() };
        let rn = if self.s.coin() { ".rn" } else { "" };
        match self.s.below(9) {
            0..=2 => {
                let op = self.s.pick(&["add", "sub", "mul"]);
                format!("{op}{rn}{f}{sat}.{t} {d}, {a}, {b}")
            }
            3 | 4 => {
                let c = self.reg(w);
                if self.s.chance(1, 3) {
                    format!("fma.rn{f}.relu.{t} {d}, {a}, {b}, {c}")
                } else {
                    format!("fma.rn{f}{sat}.{t} {d}, {a}, {b}, {c}")
                }
            }
            5 => {
                let op = self.s.pick(&["min", "max"]);
                let nan = if self.s.coin() { ".NaN" } else { "" };
                let xs = if self.s.chance(1, 3) {
                    ".xorsign.abs"
                } else {
                    ""
                };
                format!("{op}{f}{nan}{xs}.{t} {d}, {a}, {b}")
            }
            6 => {
                let op = self.s.pick(&["abs", "neg"]);
                format!("{op}{f}.{t} {d}, {a}")
            }
            7 => {
                if bf {
                    format!("ex2.approx.ftz.{t} {d}, {a}")
                } else {
                    format!("ex2.approx.{t} {d}, {a}")
                }
            }
            _ => {
                // Comparisons of halves.
                let cmp = self.fcmp();
                if self.s.coin() {
                    let p = self.dst(W::P);
                    format!("setp.{cmp}{f}.{t} {p}, {a}, {b}")
                } else if w == W::R && !bf {
                    let d = self.dst(W::R);
                    let dt = self.s.pick(&["f16x2", "u32", "s32"]);
                    format!("set.{cmp}{f}.{dt}.{t} {d}, {a}, {b}")
                } else if w == W::H && !bf {
                    let dt = self.s.pick(&["f16", "u16", "s16", "u32", "s32"]);
                    let d = if dt.ends_with("32") {
                        self.dst(W::R)
                    } else {
                        self.dst(W::H)
                    };
                    format!("set.{cmp}{f}.{dt}.{t} {d}, {a}, {b}")
                } else {
                    let p = self.dst(W::P);
                    format!("setp.{cmp}.{t} {p}, {a}, {b}")
                }
            }
        }
    }

    fn fcmp(&mut self) -> &'static str {
        self.s.pick::<&str>(&[
            "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num",
            "nan",
        ])
    }

    fn cvt_inst(&mut self) -> String {
        match self.s.below(12) {
            0 | 1 => {
                // Integer to integer, with or without saturation.
                let dt = *self.s.pick(ITYPES);
                let at = *self.s.pick(ITYPES);
                let d = self.dst(itype_w(dt));
                let a = self.reg(itype_w(at));
                let sat = if self.s.coin() && sat_ok(dt, at) {
                    ".sat"
                } else {
                    ""
                };
                format!("cvt{sat}{dt}{at} {d}, {a}")
            }
            2 | 3 => {
                // Float to integer.
                let dt = *self.s.pick(ITYPES);
                let d = self.dst(itype_w(dt));
                let r = *self.s.pick(INT_RND);
                let sat = if self.s.chance(1, 3) { ".sat" } else { "" };
                match self.s.below(4) {
                    0 | 1 => {
                        let a = self.reg(W::R);
                        let f = self.ftz();
                        format!("cvt{r}{f}{sat}{dt}.f32 {d}, {a}")
                    }
                    2 => {
                        let a = self.reg(W::D);
                        format!("cvt{r}{sat}{dt}.f64 {d}, {a}")
                    }
                    _ => {
                        let a = self.reg(W::H);
                        // The bf16 forms are not relaxed: no 8-bit integer in a b16 register.
                        let ht = if dt.ends_with('8') {
                            "f16"
                        } else {
                            *self.s.pick(&["f16", "bf16"])
                        };
                        format!("cvt{r}{sat}{dt}.{ht} {d}, {a}")
                    }
                }
            }
            4 | 5 => {
                // Integer to float.
                let at = *self.s.pick(ITYPES);
                let a = self.reg(itype_w(at));
                let r = self.rnd();
                let sat = if self.s.chance(1, 4) { ".sat" } else { "" };
                match self.s.below(4) {
                    0 | 1 => {
                        let d = self.dst(W::R);
                        let f = self.ftz();
                        format!("cvt{r}{f}{sat}.f32{at} {d}, {a}")
                    }
                    2 => {
                        let d = self.dst(W::D);
                        format!("cvt{r}{sat}.f64{at} {d}, {a}")
                    }
                    _ => {
                        let d = self.dst(W::H);
                        if self.s.coin() || at.ends_with('8') {
                            format!("cvt{r}{sat}.f16{at} {d}, {a}")
                        } else {
                            format!("cvt{r}.bf16{at} {d}, {a}")
                        }
                    }
                }
            }
            6..=8 => {
                // Float to float.
                let sat = if self.s.chance(1, 4) { ".sat" } else { "" };
                let f = self.ftz();
                let r = self.rnd();
                match self.s.below(12) {
                    0 => {
                        let (d, a) = (self.dst(W::D), self.reg(W::R));
                        format!("cvt{f}{sat}.f64.f32 {d}, {a}")
                    }
                    1 => {
                        let (d, a) = (self.dst(W::R), self.reg(W::D));
                        format!("cvt{r}{f}{sat}.f32.f64 {d}, {a}")
                    }
                    2 => {
                        let (d, a) = (self.dst(W::H), self.reg(W::R));
                        let r = if self.s.coin() { ".rn" } else { r };
                        format!("cvt{r}{f}{sat}.f16.f32 {d}, {a}")
                    }
                    3 => {
                        let (d, a) = (self.dst(W::R), self.reg(W::H));
                        format!("cvt{f}{sat}.f32.f16 {d}, {a}")
                    }
                    4 => {
                        let (d, a) = (self.dst(W::H), self.reg(W::R));
                        let r = self.s.pick(&[".rn", ".rz"]);
                        let relu = if self.s.coin() { ".relu" } else { "" };
                        let sf = if self.s.coin() { ".satfinite" } else { "" };
                        format!("cvt{r}{relu}{sf}.bf16.f32 {d}, {a}")
                    }
                    5 => {
                        // No `.sat` from a `.bf16` source (ptxas: "Illegal modifier").
                        let (d, a) = (self.dst(W::R), self.reg(W::H));
                        format!("cvt{f}.f32.bf16 {d}, {a}")
                    }
                    6 => {
                        let d = self.dst(W::R);
                        let (a, b) = (self.reg(W::R), self.reg(W::R));
                        let r = self.s.pick(&[".rn", ".rz"]);
                        let relu = if self.s.coin() { ".relu" } else { "" };
                        let sf = if self.s.coin() { ".satfinite" } else { "" };
                        let t = self.s.pick(&["f16x2", "bf16x2"]);
                        format!("cvt{r}{relu}{sf}.{t}.f32 {d}, {a}, {b}")
                    }
                    7 => {
                        let (d, a) = (self.dst(W::R), self.reg(W::R));
                        if self.s.coin() {
                            format!("cvt.rna.tf32.f32 {d}, {a}")
                        } else {
                            let r = self.s.pick(&[".rn", ".rz"]);
                            format!("cvt{r}.satfinite.tf32.f32 {d}, {a}")
                        }
                    }
                    8 => {
                        // Rounding to an integral value in the same type.
                        let ir = *self.s.pick(INT_RND);
                        if self.s.coin() {
                            let (d, a) = (self.dst(W::R), self.reg(W::R));
                            format!("cvt{ir}{f}{sat}.f32.f32 {d}, {a}")
                        } else {
                            let (d, a) = (self.dst(W::D), self.reg(W::D));
                            format!("cvt{ir}{sat}.f64.f64 {d}, {a}")
                        }
                    }
                    9 => {
                        let (d, a) = (self.dst(W::H), self.reg(W::D));
                        if self.s.coin() {
                            format!("cvt{r}{sat}.f16.f64 {d}, {a}")
                        } else {
                            format!("cvt{r}.bf16.f64 {d}, {a}")
                        }
                    }
                    10 => {
                        let (d, a) = (self.dst(W::D), self.reg(W::H));
                        if self.s.coin() {
                            format!("cvt{sat}.f64.f16 {d}, {a}")
                        } else {
                            format!("cvt.f64.bf16 {d}, {a}")
                        }
                    }
                    _ => {
                        let (d, a) = (self.dst(W::H), self.reg(W::H));
                        if self.s.coin() {
                            format!("cvt{r}.f16.bf16 {d}, {a}")
                        } else {
                            format!("cvt{r}.bf16.f16 {d}, {a}")
                        }
                    }
                }
            }
            9 => {
                let d = self.dst(W::R);
                let (a, b) = (self.reg(W::R), self.reg(W::R));
                if self.s.coin() {
                    let t = self.s.pick(&["u16", "s16"]);
                    format!("cvt.pack.sat.{t}.s32 {d}, {a}, {b}")
                } else {
                    let t = self.s.pick(&["u8", "s8", "u4", "s4", "u2", "s2"]);
                    let c = self.reg(W::R);
                    format!("cvt.pack.sat.{t}.s32.b32 {d}, {a}, {b}, {c}")
                }
            }
            _ => {
                // Plain moves of every width, and immediates.
                let w = *self.s.pick(&[W::H, W::R, W::D]);
                let d = self.dst(w);
                let a = self.ri(w);
                let t = match w {
                    W::H => "b16",
                    W::R => "b32",
                    _ => "b64",
                };
                if w == W::R && self.s.coin() {
                    format!("mov.f32 {d}, 0f{:08X}", values::f32(self.s))
                } else if w == W::D && self.s.coin() {
                    format!("mov.f64 {d}, 0d{:016X}", values::f64(self.s))
                } else {
                    format!("mov.{t} {d}, {a}")
                }
            }
        }
    }

    fn icmp(&mut self, signed: bool) -> &'static str {
        if signed {
            self.s.pick::<&str>(&["eq", "ne", "lt", "le", "gt", "ge"])
        } else {
            self.s
                .pick::<&str>(&["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"])
        }
    }

    fn pred_inst(&mut self) -> String {
        match self.s.below(8) {
            0..=2 => {
                // setp on integers, with an optional second destination and combiner.
                let (ty, w, signed) = *self.s.pick(&[
                    ("u16", W::H, false),
                    ("s16", W::H, true),
                    ("u32", W::R, false),
                    ("s32", W::R, true),
                    ("b32", W::R, false),
                    ("u64", W::D, false),
                    ("s64", W::D, true),
                    ("b64", W::D, false),
                ]);
                let cmp = if ty.starts_with('b') {
                    *self.s.pick(&["eq", "ne"])
                } else {
                    self.icmp(signed)
                };
                let (a, b) = (self.reg(w), self.ri(w));
                self.setp_tail(&format!("setp.{cmp}"), &format!(".{ty}"), &a, &b)
            }
            3 | 4 => {
                let cmp = self.fcmp();
                if self.s.chance(2, 3) {
                    let (a, b) = (self.reg(W::R), self.f32src());
                    let f = self.ftz();
                    self.setp_tail(&format!("setp.{cmp}"), &format!("{f}.f32"), &a, &b)
                } else {
                    let (a, b) = (self.reg(W::D), self.f64src());
                    self.setp_tail(&format!("setp.{cmp}"), ".f64", &a, &b)
                }
            }
            5 => {
                let op = self.s.pick(&["and", "or", "xor"]);
                let d = self.dst(W::P);
                let (a, b) = (self.reg(W::P), self.reg(W::P));
                if self.s.chance(1, 4) {
                    format!("not.pred {d}, {a}")
                } else if self.s.chance(1, 5) {
                    let v = self.s.coin() as u32;
                    format!("mov.pred {d}, {v}")
                } else {
                    format!("{op}.pred {d}, {a}, {b}")
                }
            }
            _ => {
                // set: a comparison into an integer or float mask.
                let (st, w, signed) = *self.s.pick(&[
                    ("u32", W::R, false),
                    ("s32", W::R, true),
                    ("s64", W::D, true),
                ]);
                let dt = self.s.pick(&["u32", "s32", "f32"]);
                let d = self.dst(W::R);
                if self.s.coin() {
                    let cmp = self.icmp(signed);
                    let (a, b) = (self.reg(w), self.ri(w));
                    format!("set.{cmp}.{dt}.{st} {d}, {a}, {b}")
                } else {
                    let cmp = self.fcmp();
                    let (a, b) = (self.reg(W::R), self.f32src());
                    let bop = self.s.pick(&["and", "or", "xor"]);
                    let c = self.npred();
                    let f = self.ftz();
                    format!("set.{cmp}.{bop}{f}.{dt}.f32 {d}, {a}, {b}, {c}")
                }
            }
        }
    }

    /// `setp.CMP[.bop]TY p[|q], a, b[, c]` with random destinations and combiner. `ty`
    /// includes any `.ftz`.
    fn setp_tail(&mut self, op: &str, ty: &str, a: &str, b: &str) -> String {
        let p = self.dst(W::P);
        let pq = if self.s.chance(1, 3) {
            let q = self.dst(W::P);
            if q == p { p } else { format!("{p}|{q}") }
        } else {
            p
        };
        if self.s.chance(1, 3) {
            let bop = self.s.pick(&["and", "or", "xor"]);
            let c = self.npred();
            format!("{op}.{bop}{ty} {pq}, {a}, {b}, {c}")
        } else {
            format!("{op}{ty} {pq}, {a}, {b}")
        }
    }

    // ---------------------------------------------------------------------------------
    // Memory
    // ---------------------------------------------------------------------------------

    /// `%t10` = a lane-dependent index below `mask + 1`, from a thread id, the lane, a
    /// data register or a mix.
    fn index(&mut self, mask: u32) -> Vec<String> {
        let src = match self.s.below(7) {
            0 => "%t0".to_string(),
            1 => "%t1".to_string(),
            2 => "%t2".to_string(),
            3 => "%t3".to_string(),
            _ => self.dst(W::R),
        };
        let mut v = Vec::new();
        match self.s.below(4) {
            0 => {
                let k = self.s.below(32);
                v.push(format!("xor.b32 %t10, {src}, {k}"));
                v.push(format!("and.b32 %t10, %t10, {mask}"));
            }
            1 => {
                let k = *self.s.pick(&[3u32, 5, 7, 17, 31]);
                v.push(format!("mul.lo.u32 %t10, {src}, {k}"));
                v.push(format!("and.b32 %t10, %t10, {mask}"));
            }
            _ => v.push(format!("and.b32 %t10, {src}, {mask}")),
        }
        v
    }

    /// Lines leaving in `%a5` the address `base + index * size` for an index below
    /// `count` (a power of two).
    fn address(&mut self, base: &str, size: usize, count: usize) -> Vec<String> {
        let mut v = self.index(count as u32 - 1);
        if self.s.coin() {
            v.push(format!("mad.wide.u32 %a5, %t10, {size}, {base}"));
        } else {
            v.push(format!("mul.wide.u32 %a5, %t10, {size}"));
            v.push(format!("add.s64 %a5, {base}, %a5"));
        }
        v
    }

    /// A memory access type: bytes per element, vector length, type name, register width.
    fn access(&mut self, vectors: bool) -> (usize, usize, &'static str, W) {
        let (bytes, ty, w) = *self.s.pick(&[
            (1, "u8", W::R),
            (1, "s8", W::H),
            (1, "b8", W::R),
            (1, "s8", W::D),
            (2, "u16", W::H),
            (2, "s16", W::R),
            (2, "b16", W::H),
            (4, "u32", W::R),
            (4, "b32", W::R),
            (4, "s32", W::D),
            (4, "f32", W::R),
            (8, "u64", W::D),
            (8, "b64", W::D),
            (8, "f64", W::D),
        ]);
        let vec = if vectors && self.s.chance(1, 3) {
            if bytes <= 4 && self.s.coin() { 4 } else { 2 }
        } else {
            1
        };
        // Vector elements need registers of the element's size for floats.
        let w = if ty.starts_with('f') {
            if bytes == 4 { W::R } else { W::D }
        } else {
            w
        };
        (bytes, vec, ty, w)
    }

    fn regs_list(&mut self, w: W, n: usize, dst: bool) -> String {
        if n == 1 {
            return if dst { self.dst(w) } else { self.reg(w) };
        }
        let mut v: Vec<String> = Vec::new();
        for _ in 0..n {
            let mut r = if dst { self.dst(w) } else { self.reg(w) };
            // Destinations of one load are distinct registers (or the sink).
            if dst && v.contains(&r) {
                r = "_".to_string();
            }
            v.push(r);
        }
        format!("{{{}}}", v.join(", "))
    }

    fn global_inst(&mut self) -> Vec<String> {
        let (bytes, vec, ty, w) = self.access(true);
        let n = bytes * vec;
        let mut v = self.address("%a2", n, SCR_BYTES / n);
        let vs = if vec > 1 {
            format!(".v{vec}")
        } else {
            String::new()
        };
        let off = n * self.s.below(SCR_PAD / n + 1).min(SCR_PAD / n);
        let generic = self.s.chance(1, 4);
        let (space, addr) = if generic {
            if self.s.coin() {
                v.push("cvta.global.u64 %a6, %a5".to_string());
                v.push("cvta.to.global.u64 %a7, %a6".to_string());
                (".global", "%a7")
            } else {
                v.push("cvta.global.u64 %a6, %a5".to_string());
                ("", "%a6")
            }
        } else {
            (".global", "%a5")
        };
        let qual = *self
            .s
            .pick(&["", "", "", ".volatile", ".relaxed.gpu", ".weak"]);
        if self.s.coin() {
            let qual = if qual == ".relaxed.gpu" && self.s.coin() {
                ".acquire.gpu"
            } else {
                qual
            };
            let d = self.regs_list(w, vec, true);
            v.push(format!("ld{qual}{space}{vs}.{ty} {d}, [{addr}+{off}]"));
        } else {
            let qual = if qual == ".relaxed.gpu" && self.s.coin() {
                ".release.gpu"
            } else {
                qual
            };
            let src = self.regs_list(w, vec, false);
            v.push(format!("st{qual}{space}{vs}.{ty} [{addr}+{off}], {src}"));
        }
        if !self.in_func && self.s.chance(1, 12) {
            // Kernel parameters read again (the pointers are the same on every engine: one
            // device, the same buffers).
            if self.s.coin() {
                let d = self.dst(W::R);
                v.push(format!("ld.param.u32 {d}, [u]"));
            } else {
                let d = self.dst(W::D);
                let p = self.s.pick(&["scr", "atm", "out"]);
                v.push(format!("ld.param.u64 {d}, [{p}]"));
            }
        } else if !self.in_func && self.s.chance(1, 4) {
            // Reading the input: this thread's slot, or another thread's.
            let (bytes, _, ty, w) = self.access(false);
            let d = self.dst(w);
            let nc = if self.s.coin() { ".nc" } else { "" };
            if self.s.coin() {
                let off = bytes * self.s.below(IN_SLOT / bytes);
                v.push(format!("ld.global{nc}.{ty} {d}, [%a1+{off}]"));
            } else {
                let slots = (self.nthreads as usize).next_power_of_two();
                v.extend(self.address("%a8", IN_SLOT, slots));
                let off = bytes * self.s.below(IN_SLOT / bytes);
                v.push(format!("ld.global{nc}.{ty} {d}, [%a5+{off}]"));
            }
        }
        v
    }

    fn shared_inst(&mut self) -> Vec<String> {
        let (bytes, vec, ty, w) = self.access(true);
        let n = bytes * vec;
        let half = SH_BYTES / 2;
        let mut v = Vec::new();
        let off = n * self.s.below(half / n);
        let addr = match self.s.below(6) {
            0 => {
                // A uniform address.
                format!("sh+{off}")
            }
            1 => {
                v.extend(self.address("%a4", n, half / n));
                v.push("cvta.shared.u64 %a6, %a5".to_string());
                if self.s.coin() {
                    v.push("cvta.to.shared.u64 %a7, %a6".to_string());
                    "%a7".to_string()
                } else {
                    let p = self.dst(W::P);
                    let sp = self
                        .s
                        .pick(&["shared", "global", "local", "const", "param"]);
                    v.push(format!("isspacep.{sp} {p}, %a6"));
                    "%a6".to_string()
                }
            }
            _ => {
                v.extend(self.address("%a4", n, half / n));
                if self.s.coin() {
                    // A 32-bit shared address register, as compilers emit for `.shared`.
                    v.push("cvt.u32.u64 %t13, %a5".to_string());
                    "%t13".to_string()
                } else {
                    "%a5".to_string()
                }
            }
        };
        let (space, imm) = if addr == "%a6" {
            ("", format!("+{off}"))
        } else if addr.starts_with("sh") {
            (".shared", String::new())
        } else {
            (".shared", format!("+{off}"))
        };
        let vs = if vec > 1 {
            format!(".v{vec}")
        } else {
            String::new()
        };
        let qual = *self.s.pick(&["", "", "", ".volatile", ".relaxed.cta"]);
        if self.s.coin() {
            let d = self.regs_list(w, vec, true);
            v.push(format!("ld{qual}{space}{vs}.{ty} {d}, [{addr}{imm}]"));
        } else {
            let src = self.regs_list(w, vec, false);
            v.push(format!("st{qual}{space}{vs}.{ty} [{addr}{imm}], {src}"));
        }
        v
    }

    /// Per-thread local memory: `loc` (bytes 0..128; 128.. hold printf arguments), through
    /// its window address, the symbol, or a generic address.
    fn local_inst(&mut self) -> Vec<String> {
        let (bytes, vec, ty, w) = self.access(true);
        let n = bytes * vec;
        let half = 64;
        let mut v = Vec::new();
        let off = n * self.s.below(half / n);
        let (space, addr) = match self.s.below(4) {
            0 => (".local", format!("loc+{off}")),
            1 => {
                v.extend(self.address("%a9", n, half / n));
                v.push("cvta.local.u64 %a6, %a5".to_string());
                ("", format!("%a6+{off}"))
            }
            _ => {
                v.extend(self.address("%a9", n, half / n));
                (".local", format!("%a5+{off}"))
            }
        };
        let vs = if vec > 1 {
            format!(".v{vec}")
        } else {
            String::new()
        };
        if self.s.coin() {
            let d = self.regs_list(w, vec, true);
            v.push(format!("ld{space}{vs}.{ty} {d}, [{addr}]"));
        } else {
            let src = self.regs_list(w, vec, false);
            v.push(format!("st{space}{vs}.{ty} [{addr}], {src}"));
        }
        v
    }

    /// A call of a generated helper function (maybe guarded: some lanes call it).
    fn call_stmt(&mut self) -> Vec<String> {
        let f = self.s.below(self.nfuncs);
        let a0 = self.reg(W::R);
        let a1 = self.reg(W::D);
        let (r0, r1) = (self.dst(W::R), self.dst(W::D));
        let g = if self.s.chance(1, 3) {
            self.guard_pred()
        } else {
            String::new()
        };
        let uni = if g.is_empty() && self.s.chance(1, 4) {
            ".uni"
        } else {
            ""
        };
        vec![
            "{".to_string(),
            ".param .b32 pa0".to_string(),
            ".param .b64 pa1".to_string(),
            ".param .b64 pa2".to_string(),
            ".param .b64 pa3".to_string(),
            ".param .b32 pa4".to_string(),
            ".param .b32 pr0".to_string(),
            ".param .b64 pr1".to_string(),
            format!("st.param.b32 [pa0], {a0}"),
            format!("st.param.b64 [pa1], {a1}"),
            "st.param.b64 [pa2], %a2".to_string(),
            "st.param.b64 [pa3], %a3".to_string(),
            "st.param.b32 [pa4], %t3".to_string(),
            format!("{g}call{uni} (pr0, pr1), f{f}, (pa0, pa1, pa2, pa3, pa4)"),
            format!("ld.param.b32 {r0}, [pr0]"),
            format!("ld.param.b64 {r1}, [pr1]"),
            "}".to_string(),
        ]
    }

    /// A device `printf` of some registers (arguments in `loc+128..`).
    fn printf_stmt(&mut self) -> Vec<String> {
        let k = self.s.below(FORMATS.len());
        let mut v = Vec::new();
        match k {
            0 => {
                let (a, b) = (self.reg(W::R), self.reg(W::R));
                v.push(format!("st.local.b32 [loc+128], {a}"));
                v.push(format!("st.local.b32 [loc+132], {b}"));
            }
            1 => {
                let (a, b) = (self.reg(W::R), self.reg(W::D));
                v.push(format!("st.local.b32 [loc+128], {a}"));
                v.push(format!("st.local.b64 [loc+136], {b}"));
            }
            2 => {
                let a = self.reg(W::D);
                v.push(format!("st.local.b64 [loc+128], {a}"));
            }
            _ => {
                let (a, b) = (self.reg(W::R), self.reg(W::D));
                v.push(format!("st.local.b32 [loc+128], {a}"));
                v.push(format!("st.local.b64 [loc+136], {b}"));
            }
        }
        let d = self.dst(W::R);
        let g = if self.s.chance(1, 3) {
            self.guard_pred()
        } else {
            String::new()
        };
        v.extend([
            "mov.u64 %a7, loc".to_string(),
            "cvta.local.u64 %a7, %a7".to_string(),
            "add.u64 %a7, %a7, 128".to_string(),
            format!("mov.u64 %a6, fmt{k}"),
            "cvta.global.u64 %a6, %a6".to_string(),
            "{".to_string(),
            ".param .b64 pp0".to_string(),
            ".param .b64 pp1".to_string(),
            ".param .b32 ppr".to_string(),
            "st.param.b64 [pp0], %a6".to_string(),
            "st.param.b64 [pp1], %a7".to_string(),
            format!("{g}call.uni (ppr), vprintf, (pp0, pp1)"),
            format!("ld.param.b32 {d}, [ppr]"),
            "}".to_string(),
        ]);
        v
    }

    fn atomic_inst(&mut self) -> Vec<String> {
        // (operation, type, register width, bytes)
        let (op, ty, w, bytes) = *self.s.pick(&[
            ("add", "u32", W::R, 4),
            ("add", "s32", W::R, 4),
            ("add", "u64", W::D, 8),
            ("add", "f32", W::R, 4),
            ("add", "f64", W::D, 8),
            ("min", "u32", W::R, 4),
            ("min", "s32", W::R, 4),
            ("max", "u32", W::R, 4),
            ("max", "s32", W::R, 4),
            ("min", "u64", W::D, 8),
            ("max", "s64", W::D, 8),
            ("inc", "u32", W::R, 4),
            ("dec", "u32", W::R, 4),
            ("and", "b32", W::R, 4),
            ("or", "b32", W::R, 4),
            ("xor", "b64", W::D, 8),
            ("exch", "b32", W::R, 4),
            ("exch", "b64", W::D, 8),
            ("cas", "b32", W::R, 4),
            ("cas", "b64", W::D, 8),
            ("cas", "b16", W::H, 2),
            ("add.noftz", "f16", W::H, 2),
            ("add.noftz", "f16x2", W::R, 4),
            ("add.noftz", "bf16", W::H, 2),
            ("add.noftz", "bf16x2", W::R, 4),
        ]);
        let shared = self.s.chance(1, 3);
        let slots = 16;
        let (base, space) = if shared {
            ("%a4", ".shared")
        } else {
            ("%a3", ".global")
        };
        let mut v = self.address(base, bytes, slots);
        let sem = *self.s.pick(&[
            "",
            "",
            ".relaxed.gpu",
            ".acq_rel.gpu",
            ".relaxed.cta",
            ".acquire.sys",
            ".release.cta",
        ]);
        let red_sem = match sem {
            ".acq_rel.gpu" => ".release.gpu",
            ".acquire.sys" => ".relaxed.sys",
            s => s,
        };
        let bsrc = if op.starts_with("add.noftz") || (ty.starts_with('f') && self.s.coin()) {
            self.reg(w)
        } else if ty.starts_with('f') {
            if w == W::R {
                format!("0f{:08X}", values::f32(self.s))
            } else {
                format!("0d{:016X}", values::f64(self.s))
            }
        } else if w == W::H {
            self.reg(w)
        } else {
            self.ri(w)
        };
        let generic = !shared && self.s.chance(1, 5);
        let space = if generic { "" } else { space };
        if self.s.chance(1, 5) && op != "cas" && op != "exch" {
            v.push(format!("red{red_sem}{space}.{op}.{ty} [%a5], {bsrc}"));
        } else if op == "cas" {
            let c = if w == W::H { self.reg(w) } else { self.ri(w) };
            let d = self.dst(w);
            v.push(format!("atom{sem}{space}.cas.{ty} {d}, [%a5], {bsrc}, {c}"));
        } else {
            let d = self.dst(w);
            v.push(format!("atom{sem}{space}.{op}.{ty} {d}, [%a5], {bsrc}"));
        }
        v
    }

    // ---------------------------------------------------------------------------------
    // Warp collectives and barriers
    // ---------------------------------------------------------------------------------

    /// A membermask operand for the lanes that run this point: the known mask as an
    /// immediate or in `%t12`, `activemask` when it is not known, or per-lane segment masks.
    fn membermask(&mut self, ctx: &Ctx, v: &mut Vec<String>) -> (String, Option<u32>) {
        match ctx.mask {
            Some(m) if m == u32::MAX && self.s.chance(1, 3) => {
                // Each lane names its own segment of 2^k lanes.
                let w = 1u32 << (1 + self.s.below(4));
                v.push(format!("and.b32 %t12, %t1, {}", !(w - 1) & 31));
                v.push(format!("shl.b32 %t12, {}, %t12", (1u64 << w) - 1));
                ("%t12".to_string(), Some(w))
            }
            Some(m) => {
                if self.s.coin() {
                    (format!("0x{m:08x}"), None)
                } else {
                    v.push(format!("mov.b32 %t12, 0x{m:08x}"));
                    ("%t12".to_string(), None)
                }
            }
            None => {
                v.push("activemask.b32 %t12".to_string());
                ("%t12".to_string(), None)
            }
        }
    }

    fn warp_inst(&mut self, ctx: &Ctx) -> Vec<String> {
        let mut v = Vec::new();
        if ctx.mask == Some(0) {
            return v;
        }
        let (mask, seg) = self.membermask(ctx, &mut v);
        match self.s.below(10) {
            0..=3 => {
                let mode = *self.s.pick(&["up", "down", "bfly", "idx"]);
                let d = self.dst(W::R);
                let dp = if self.s.coin() {
                    let p = self.dst(W::P);
                    format!("{d}|{p}")
                } else {
                    d
                };
                let a = self.reg(W::R);
                let b = if self.s.coin() {
                    format!("{}", self.s.below(40))
                } else {
                    self.reg(W::R)
                };
                let c = match (seg, self.s.below(4)) {
                    (Some(w), 0..=2) => {
                        let segmask = (32 - w) << 8;
                        if mode == "up" {
                            format!("0x{segmask:x}")
                        } else {
                            format!("0x{:x}", segmask | 0x1f)
                        }
                    }
                    (None, 0 | 1) => {
                        if mode == "up" {
                            "0".to_string()
                        } else {
                            "0x1f".to_string()
                        }
                    }
                    (_, 2) => {
                        let w = 1u32 << self.s.below(6);
                        let clamp = if mode == "up" { 0 } else { 0x1f };
                        format!("0x{:x}", ((32 - w.min(32)) << 8) | clamp)
                    }
                    _ => {
                        if self.s.coin() {
                            self.reg(W::R)
                        } else {
                            format!("0x{:x}", self.s.u32() & 0x1f1f)
                        }
                    }
                };
                v.push(format!("shfl.sync.{mode}.b32 {dp}, {a}, {b}, {c}, {mask}"));
            }
            4 => {
                let q = self.npred();
                if self.s.coin() {
                    let d = self.dst(W::R);
                    v.push(format!("vote.sync.ballot.b32 {d}, {q}, {mask}"));
                } else {
                    let m = self.s.pick(&["all", "any", "uni"]);
                    let d = self.dst(W::P);
                    v.push(format!("vote.sync.{m}.pred {d}, {q}, {mask}"));
                }
            }
            5 => {
                let (t, w) = *self.s.pick(&[("b32", W::R), ("b64", W::D)]);
                let a = self.reg(w);
                let d = self.dst(W::R);
                if self.s.coin() {
                    v.push(format!("match.any.sync.{t} {d}, {a}, {mask}"));
                } else {
                    let dp = if self.s.coin() {
                        let p = self.dst(W::P);
                        format!("{d}|{p}")
                    } else {
                        d
                    };
                    v.push(format!("match.all.sync.{t} {dp}, {a}, {mask}"));
                }
            }
            6 | 7 => {
                let a = self.dst(W::R);
                let d = self.dst(W::R);
                let op = *self.s.pick(&[
                    "add.u32",
                    "add.s32",
                    "min.u32",
                    "min.s32",
                    "max.u32",
                    "max.s32",
                    "and.b32",
                    "or.b32",
                    "xor.b32",
                    "min.f32",
                    "max.f32",
                    "min.abs.f32",
                    "max.NaN.f32",
                    "min.abs.NaN.f32",
                ]);
                v.push(format!("redux.sync.{op} {d}, {a}, {mask}"));
            }
            8 => {
                let d = self.dst(W::R);
                if self.s.coin() {
                    v.push(format!("activemask.b32 {d}"));
                } else {
                    let p = self.dst(W::P);
                    v.push(format!("elect.sync {d}|{p}, {mask}"));
                }
            }
            _ => v.push(format!("bar.warp.sync {mask}")),
        }
        v
    }

    fn barrier_inst(&mut self) -> Vec<String> {
        let mut v = Vec::new();
        match self.s.below(6) {
            0 => {
                let d = self.dst(W::R);
                let p = self.npred();
                v.push(format!("bar.red.popc.u32 {d}, 0, {p}"));
            }
            1 => {
                let d = self.dst(W::P);
                let op = self.s.pick(&["and", "or"]);
                let p = self.npred();
                v.push(format!("barrier.red.{op}.pred {d}, 0, {p}"));
            }
            2 => v.push("barrier.sync.aligned 0".to_string()),
            3 => v.push(format!("bar.sync 1, {}", self.nthreads.div_ceil(32) * 32)),
            _ => v.push("bar.sync 0".to_string()),
        }
        v
    }

    // ---------------------------------------------------------------------------------
    // Faults and exits (rare)
    // ---------------------------------------------------------------------------------

    fn fault_inst(&mut self) -> String {
        let g = self.guard_pred();
        match self.s.below(5) {
            0 => {
                let d = self.dst(W::R);
                format!(
                    "{g}ld.global.u32 {d}, [%a2+{}]",
                    0x1000_0000 + 4 * self.s.below(8)
                )
            }
            1 => {
                let d = self.dst(W::R);
                format!("{g}ld.global.u32 {d}, [%a2+{}]", 1 + 2 * self.s.below(2))
            }
            2 => {
                let s = self.reg(W::D);
                format!(
                    "{g}st.shared.u64 [%a4+{}], {s}",
                    SH_BYTES + 8 * self.s.below(4)
                )
            }
            3 => format!("{g}trap"),
            _ => {
                let s = self.reg(W::R);
                format!(
                    "{g}st.global.u32 [%a3+{}], {s}",
                    ATM_BYTES + 4 * self.s.below(1024)
                )
            }
        }
    }

    fn guard_pred(&mut self) -> String {
        let p = self.dst(W::P);
        if self.s.coin() {
            format!("@!{p} ")
        } else {
            format!("@{p} ")
        }
    }

    // ---------------------------------------------------------------------------------
    // Statements and control flow
    // ---------------------------------------------------------------------------------

    /// A straight-line statement of an enabled feature (with an optional guard).
    fn simple(&mut self, ctx: &Ctx) -> Vec<String> {
        let weights = [
            if self.on(F::Int) { 10 } else { 0 },
            if self.on(F::Logic) { 6 } else { 0 },
            if self.on(F::F32) { 10 } else { 0 },
            if self.on(F::F64) { 6 } else { 0 },
            if self.on(F::Half) { 6 } else { 0 },
            if self.on(F::Cvt) { 8 } else { 0 },
            if self.on(F::Pred) { 6 } else { 0 },
            if self.on(F::Global) { 6 } else { 0 },
            if self.on(F::Shared) { 6 } else { 0 },
            if self.on(F::Atomic) { 5 } else { 0 },
            if self.on(F::Warp) { 6 } else { 0 },
            if self.on(F::Barrier) && ctx.cta_uniform && !self.in_func {
                3
            } else {
                0
            },
            1,
            if self.on(F::Local) { 5 } else { 0 },
            if self.on(F::Call) && self.nfuncs > 0 && !self.in_func {
                3
            } else {
                0
            },
            if self.on(F::Printf) && !self.in_func {
                1
            } else {
                0
            },
        ];
        let k = self.s.weighted(&weights);
        let (mut v, guardable) = match k {
            0 => (self.int_inst(), true),
            1 => (vec![self.logic_inst()], true),
            2 => (vec![self.f32_inst()], true),
            3 => (vec![self.f64_inst()], true),
            4 => (vec![self.half_inst()], true),
            5 => (vec![self.cvt_inst()], true),
            6 => (vec![self.pred_inst()], true),
            7 => (self.global_inst(), true),
            8 => (self.shared_inst(), true),
            9 => (self.atomic_inst(), true),
            10 => (self.warp_inst(ctx), false),
            11 => (self.barrier_inst(), false),
            13 => (self.local_inst(), true),
            14 => (self.call_stmt(), false),
            15 => (self.printf_stmt(), false),
            _ => (self.int_inst(), true),
        };
        // A guard on the last line (the instruction; address arithmetic before it runs
        // unguarded). A guarded carry chain keeps its carry-in reads deterministic anyway.
        if guardable && !v.is_empty() && self.s.chance(1, 6) {
            let g = self.guard_pred();
            let last = v.len() - 1;
            v[last] = format!("{g}{}", v[last]);
        }
        v
    }

    fn statement(&mut self, ctx: Ctx) {
        if self.stmts_left == 0 || self.s.exhausted() {
            return;
        }
        self.stmts_left -= 1;
        let can_nest = ctx.depth < 4;
        let weights = [
            20,
            if self.on(F::Branch) && can_nest { 3 } else { 0 },
            if self.on(F::Loop) && can_nest && ctx.mult <= 8 && self.dyn_left > 200 {
                2
            } else {
                0
            },
            if ctx.lp.is_some() { 1 } else { 0 },
            // Rare: faults, early exits.
            if self.faults { 1 } else { 0 },
            if self.exits && !self.in_func { 1 } else { 0 },
            if self.on(F::Switch) && can_nest { 2 } else { 0 },
            if ctx.endif.is_some() && self.on(F::Branch) {
                1
            } else {
                0
            },
        ];
        match self.s.weighted(&weights) {
            0 => {
                let v = self.simple(&ctx);
                let cost = v.len() as u32 * ctx.mult;
                self.dyn_left = self.dyn_left.saturating_sub(cost);
                for l in v {
                    if l == "{" || l == "}" {
                        self.emit(format!("\t{l}"));
                    } else {
                        self.emit(format!("\t{l};"));
                    }
                }
            }
            1 => self.if_stmt(ctx),
            2 => self.loop_stmt(ctx),
            3 => {
                // break or continue out of the innermost loop.
                let (_, l, may_break) = ctx.lp.unwrap();
                let g = self.guard_pred();
                let target = if may_break && self.s.coin() {
                    format!("LEND{l}")
                } else {
                    format!("LCONT{l}")
                };
                self.emit(format!("\t{g}bra {target};"));
            }
            4 => {
                let f = self.fault_inst();
                self.emit(format!("\t{f};"));
            }
            5 => {
                let g = self.guard_pred();
                let e = self.s.pick(&["exit", "ret"]);
                self.emit(format!("\t{g}{e};"));
            }
            6 => self.switch_stmt(ctx),
            _ => {
                // A forward jump out of the innermost enclosing if.
                let l = ctx.endif.unwrap();
                let g = self.guard_pred();
                self.emit(format!("\t{g}bra ENDIF{l};"));
            }
        }
    }

    /// `brx.idx` over 2..5 targets by a lane-, CTA- or data-dependent index; the cases
    /// meet at the end.
    fn switch_stmt(&mut self, ctx: Ctx) {
        let l = self.label();
        let n = 2 + self.s.below(4) as u32;
        let (src, kind) = match self.s.below(4) {
            0 | 1 => ("%t1".to_string(), 0),
            2 => ("%t3".to_string(), 1),
            _ => (self.reg(W::R), 2),
        };
        let pow2 = n.is_power_of_two();
        if pow2 {
            self.emit(format!("\tand.b32 %t11, {src}, {};", n - 1));
        } else {
            self.emit(format!("\trem.u32 %t11, {src}, {n};"));
        }
        let targets: Vec<String> = (0..n).map(|k| format!("SWC{l}_{k}")).collect();
        self.emit(format!("SWT{l}: .branchtargets {};", targets.join(", ")));
        self.emit(format!("\tbrx.idx %t11, SWT{l};"));
        for k in 0..n {
            self.emit(format!("SWC{l}_{k}:"));
            let lanes = (0..32u32)
                .filter(|x| if pow2 { x & (n - 1) == k } else { x % n == k })
                .fold(0u32, |a, x| a | 1 << x);
            let case_ctx = Ctx {
                mask: match (kind, ctx.mask) {
                    (0, Some(m)) => Some(m & lanes),
                    (1, m) => m,
                    _ => None,
                },
                cta_uniform: ctx.cta_uniform && kind == 1,
                depth: ctx.depth + 1,
                ..ctx
            };
            let m = 1 + self.s.below(3);
            self.block(case_ctx, m);
            if k + 1 < n {
                self.emit(format!("\tbra.uni SWE{l};"));
            }
        }
        self.emit(format!("SWE{l}:"));
    }

    /// A block of statements; returns whether the context is still as it was (a `break`
    /// or an early exit inside makes the mask unknown for what follows).
    fn block(&mut self, mut ctx: Ctx, n: usize) {
        for _ in 0..n {
            let before = self.out.len();
            self.statement(ctx);
            // After a break or continue out of an enclosing loop, or an exit, the lanes that
            // go on are not known.
            if escapes(&self.out[before..]) {
                ctx.mask = None;
                ctx.cta_uniform = false;
            }
        }
    }

    /// A branch condition in `%q{depth}`: the lanes for which it holds (within a full warp)
    /// when known, and whether it is the same for the whole CTA.
    fn condition(&mut self, q: &str) -> (Option<u32>, bool) {
        match self.s.below(8) {
            0 | 1 => {
                let c = 1 + self.s.below(31) as u32;
                let op = self.s.pick(&["lt", "ge"]);
                self.emit(format!("\tsetp.{op}.u32 {q}, %t1, {c};"));
                let below = (1u32 << c) - 1;
                (Some(if *op == "lt" { below } else { !below }), false)
            }
            2 => {
                let m = 1u32 << self.s.below(5) | 1u32 << self.s.below(5);
                let val = self.s.u32() & m;
                self.emit(format!("\tand.b32 %t11, %t1, {m};"));
                self.emit(format!("\tsetp.eq.u32 {q}, %t11, {val};"));
                let lanes = (0..32u32)
                    .filter(|l| l & m == val)
                    .fold(0, |a, l| a | 1 << l);
                (Some(lanes), false)
            }
            3 => {
                // Warp-uniform: whole warps.
                let c = 32 * (1 + self.s.below(4));
                self.emit(format!("\tsetp.lt.u32 {q}, %t0, {c};"));
                (Some(u32::MAX), false)
            }
            4 => {
                // CTA-uniform.
                if self.s.coin() {
                    let c = values::int32(self.s);
                    let op = self.icmp(false);
                    self.emit(format!("\tsetp.{op}.u32 {q}, %t3, {c};"));
                } else {
                    self.emit("\tmov.u32 %t11, %ctaid.x;".to_string());
                    let c = self.s.below(3);
                    self.emit(format!("\tsetp.eq.u32 {q}, %t11, {c};"));
                }
                (Some(u32::MAX), true)
            }
            _ => {
                // Data-dependent.
                let p = self.pred_inst();
                self.emit(format!("\t{p};"));
                let src = self.reg(W::P);
                self.emit(format!("\tmov.pred {q}, {src};"));
                (None, false)
            }
        }
    }

    fn if_stmt(&mut self, ctx: Ctx) {
        let l = self.label();
        let q = format!("%q{}", ctx.depth.min(3));
        let (cond, uniform) = self.condition(&q);
        let neg = self.s.coin();
        // Lanes that fall through (run the then-part) are those where the branch is not taken.
        let taken = cond.map(|c| if neg { !c } else { c });
        let sub = |m: Option<u32>, lanes: Option<u32>| match (m, lanes) {
            (Some(m), Some(l)) => Some(m & l),
            _ => None,
        };
        let then_ctx = Ctx {
            mask: sub(ctx.mask, taken.map(|t| !t)),
            cta_uniform: ctx.cta_uniform && uniform,
            depth: ctx.depth + 1,
            endif: Some(l),
            ..ctx
        };
        let else_ctx = Ctx {
            mask: sub(ctx.mask, taken),
            ..then_ctx
        };
        let bang = if neg { "!" } else { "" };
        let uni = if uniform && ctx.cta_uniform && self.s.coin() {
            ".uni"
        } else {
            ""
        };
        let has_else = self.s.coin();
        let n1 = 1 + self.s.below(5);
        if has_else {
            self.emit(format!("\t@{bang}{q} bra{uni} ELSE{l};"));
            self.block(then_ctx, n1);
            self.emit(format!("\tbra.uni ENDIF{l};"));
            self.emit(format!("ELSE{l}:"));
            let n2 = 1 + self.s.below(5);
            self.block(else_ctx, n2);
        } else {
            self.emit(format!("\t@{bang}{q} bra{uni} ENDIF{l};"));
            self.block(then_ctx, n1);
        }
        self.emit(format!("ENDIF{l}:"));
    }

    fn loop_stmt(&mut self, ctx: Ctx) {
        let l = self.label();
        let i = ctx.lp.map_or(0, |(i, _, _)| i + 1);
        let may_break = self.s.chance(1, 3);
        if i > 2 {
            return;
        }
        let (cnt, bound) = (format!("%t{}", 4 + i), format!("%t{}", 7 + i));
        // Trip count: uniform (1..4), lane-dependent (1..4) or data-dependent (0..7).
        let long = ctx.mult == 1 && self.s.chance(1, 6);
        let (trips, uniform) = match if long { 4 } else { self.s.below(4) } {
            4 => {
                // 1..128 iterations by lane: groups split and the spinning one yields.
                let k = *self.s.pick(&[3u32, 5, 7, 13]);
                let src = if self.s.coin() {
                    "%t1".to_string()
                } else {
                    self.reg(W::R)
                };
                self.emit(format!("\tmul.lo.u32 {bound}, {src}, {k};"));
                self.emit(format!("\tand.b32 {bound}, {bound}, 127;"));
                self.emit(format!("\tadd.u32 {bound}, {bound}, 1;"));
                (128, false)
            }
            0 | 1 => {
                let n = 1 + self.s.below(4);
                self.emit(format!("\tmov.u32 {bound}, {n};"));
                (n as u32, true)
            }
            2 => {
                let m = *self.s.pick(&[1u32, 3]);
                self.emit(format!("\tand.b32 {bound}, %t1, {m};"));
                self.emit(format!("\tadd.u32 {bound}, {bound}, 1;"));
                (m + 1, false)
            }
            _ => {
                let r = self.reg(W::R);
                self.emit(format!("\tand.b32 {bound}, {r}, 7;"));
                (8, false)
            }
        };
        self.emit(format!("\tmov.u32 {cnt}, 0;"));
        let body_ctx = Ctx {
            mask: if uniform && !may_break {
                ctx.mask
            } else {
                None
            },
            cta_uniform: ctx.cta_uniform && uniform && !may_break,
            depth: ctx.depth + 1,
            lp: Some((i, l, may_break)),
            mult: ctx.mult * trips.max(1),
            ..ctx
        };
        let n = if long {
            1 + self.s.below(3)
        } else {
            1 + self.s.below(5)
        };
        if uniform && !may_break && self.s.chance(1, 3) {
            // A tight loop: lane-local arithmetic only, a uniform trip count (the JIT runs
            // it as one block that carries its registers, its counter a scalar).
            self.emit(format!("LOOP{l}:"));
            for _ in 0..n {
                let mut v = match self.s.below(4) {
                    0 => vec![self.logic_inst()],
                    1 => vec![self.f32_inst()],
                    2 => {
                        let (d, a) = (self.dst(W::R), self.reg(W::R));
                        vec![format!("add.u32 {d}, {a}, {cnt}")]
                    }
                    _ => self.int_inst(),
                };
                if self.s.chance(1, 6) {
                    let g = self.guard_pred();
                    let last = v.len() - 1;
                    v[last] = format!("{g}{}", v[last]);
                }
                self.dyn_left = self.dyn_left.saturating_sub(v.len() as u32 * body_ctx.mult);
                for line in v {
                    if line == "{" || line == "}" {
                        self.emit(format!("\t{line}"));
                    } else {
                        self.emit(format!("\t{line};"));
                    }
                }
            }
            self.emit(format!("LCONT{l}:"));
            self.emit(format!("\tadd.u32 {cnt}, {cnt}, 1;"));
            self.emit(format!("\tsetp.lt.u32 %q3, {cnt}, {bound};"));
            self.emit(format!("\t@%q3 bra LOOP{l};"));
        } else if self.s.coin() {
            // do { body } while (++cnt < bound): the body runs at least once.
            self.emit(format!("LOOP{l}:"));
            self.block(body_ctx, n);
            self.emit(format!("LCONT{l}:"));
            self.emit(format!("\tadd.u32 {cnt}, {cnt}, 1;"));
            self.emit(format!("\tsetp.lt.u32 %q3, {cnt}, {bound};"));
            self.emit(format!("\t@%q3 bra LOOP{l};"));
        } else {
            // while (cnt < bound) { body; cnt++ }: a forward exit, a backward jump.
            self.emit(format!("LOOP{l}:"));
            self.emit(format!("\tsetp.ge.u32 %q3, {cnt}, {bound};"));
            self.emit(format!("\t@%q3 bra LEND{l};"));
            self.block(body_ctx, n);
            self.emit(format!("LCONT{l}:"));
            self.emit(format!("\tadd.u32 {cnt}, {cnt}, 1;"));
            self.emit(format!("\tbra LOOP{l};"));
        }
        self.emit(format!("LEND{l}:"));
    }
}

/// Launch shapes: (block x, block y), most a multiple of the warp size.
const SHAPES: &[(u32, u32)] = &[
    (32, 1),
    (64, 1),
    (96, 1),
    (128, 1),
    (64, 1),
    (32, 2),
    (16, 4),
    (8, 8),
    (48, 1),
    (33, 1),
    (1, 1),
    (40, 2),
];

/// The generated case for `data` (fuzzer input or [`Src::from_seed`]).
/// The `printf` formats (`fmtK`) and their arguments (see `Gen::printf_stmt`).
const FORMATS: &[&str] = &["%d %x\n", "%u %llx\n", "%f\n", "%08X|%e|%lld\n"];

/// Register declarations of the kernel and of every helper function.
fn decls() -> String {
    format!(
        "\t.reg .pred %p<{N_P}>;\n\t.reg .pred %q<4>;\n\t.reg .b16 %h<{N_H}>;\n\t.reg .b32 %r<{N_R}>;\n\
         \t.reg .b32 %t<{N_T}>;\n\t.reg .b64 %rd<{N_RD}>;\n\t.reg .b64 %a<10>;\n\
         \t.local .align 16 .b8 loc[256];"
    )
}

/// `%t0` linear thread index, `%t1` lane, `%t2` global thread index.
fn thread_ids(g: &mut Gen, shape: (u32, u32)) {
    e(g, "mov.u32 %t0, %tid.x");
    if shape.1 > 1 {
        e(g, "mov.u32 %t11, %tid.y");
        e(g, &format!("mad.lo.u32 %t0, %t11, {}, %t0", shape.0));
    }
    e(g, "mov.u32 %t1, %laneid");
    e(g, "mov.u32 %t11, %ctaid.x");
    e(
        g,
        &format!("mad.lo.u32 %t2, %t11, {}, %t0", shape.0 * shape.1),
    );
}

/// Zeroes the loop counters and temporaries (`uninit`: some are left alone).
fn zero_reserved(g: &mut Gen, uninit: bool) {
    for t in 4..N_T {
        if !uninit || g.s.coin() {
            e(g, &format!("mov.u32 %t{t}, 0"));
        }
    }
    for a in 5..8 {
        e(g, &format!("mov.u64 %a{a}, 0"));
    }
    e(g, "mov.u64 %a4, sh");
    e(g, "mov.u64 %a9, loc");
}

/// Initial values of the data registers: from the input slot (`input`), immediates biased
/// to edge cases, or thread ids.
fn init_data(g: &mut Gen, input: bool, uninit: bool) {
    let mut in_words = 0usize;
    for (w, n) in [(W::D, N_RD), (W::R, N_R), (W::H, N_H)] {
        for k in 0..n {
            let r = match w {
                W::D => format!("%rd{k}"),
                W::R => format!("%r{k}"),
                _ => format!("%h{k}"),
            };
            if uninit && g.s.chance(1, 4) {
                continue;
            }
            let t = match w {
                W::D => "b64",
                W::R => "b32",
                _ => "b16",
            };
            match g.s.below(8) {
                0..=3 if input => {
                    let sz = match w {
                        W::D => 8,
                        W::R => 4,
                        _ => 2,
                    };
                    let off = (in_words * 4).next_multiple_of(sz) % IN_SLOT;
                    in_words = (off + sz).div_ceil(4);
                    let nc = if g.s.coin() { ".nc" } else { "" };
                    e(g, &format!("ld.global{nc}.{t} {r}, [%a1+{off}]"));
                }
                0..=5 => {
                    let v = match w {
                        W::D => format!("0x{:x}", values::any64(g.s)),
                        W::R => format!("0x{:x}", values::any32(g.s)),
                        _ => format!("0x{:x}", values::any16(g.s)),
                    };
                    e(g, &format!("mov.{t} {r}, {v}"));
                }
                6 => match w {
                    W::D => e(g, &format!("cvt.u64.u32 {r}, %t2")),
                    W::R => {
                        let k = values::int32(g.s);
                        e(g, &format!("add.u32 {r}, %t1, {k}"))
                    }
                    _ => e(g, &format!("cvt.u16.u32 {r}, %t0")),
                },
                _ => {
                    let k = values::int32(g.s);
                    match w {
                        W::D => e(g, &format!("mul.wide.u32 {r}, %t0, {k}")),
                        W::R => e(g, &format!("mul.lo.u32 {r}, %t0, {k}")),
                        _ => e(g, &format!("cvt.u16.u32 {r}, %t1")),
                    }
                }
            }
        }
    }
    for k in 0..N_P {
        if uninit && g.s.chance(1, 4) {
            continue;
        }
        let c = g.s.below(33);
        match g.s.below(4) {
            0 => e(g, &format!("setp.lt.u32 %p{k}, %t1, {c}")),
            1 => {
                let r = g.s.below(N_R);
                e(g, &format!("setp.ne.b32 %p{k}, %r{r}, 0"))
            }
            2 => {
                let m = 1u32 << g.s.below(5);
                e(g, &format!("and.b32 %t11, %t2, {m}"));
                e(g, &format!("setp.ne.b32 %p{k}, %t11, 0"));
            }
            _ => {
                let r = g.s.below(N_R);
                e(g, &format!("setp.gt.s32 %p{k}, %r{r}, {}", c as i32 - 16));
            }
        }
    }
    for k in 0..4 {
        e(g, &format!("setp.ne.u32 %q{k}, %t0, %t0"));
    }
}

/// The generated case for `data` (fuzzer input or [`Src::from_seed`]).
pub fn generate(s: &mut Src) -> Case {
    let shape = *s.pick(SHAPES);
    let grid = 1 + s.below(3) as u32;
    let nthreads = shape.0 * shape.1;
    let mut feats = [false; N_FEATURES];
    // Each feature with probability 1/2, and at least two.
    for f in feats.iter_mut() {
        *f = s.coin();
    }
    for _ in 0..2 {
        let k = s.below(N_FEATURES);
        feats[k] = true;
    }
    let uparam = values::int32(s);
    let mut g = Gen {
        s,
        out: Vec::new(),
        label: 0,
        feats,
        stmts_left: 0,
        dyn_left: 4000,
        nthreads,
        full_warps: nthreads.is_multiple_of(32),
        faults: false,
        exits: false,
        in_func: false,
        nfuncs: 0,
    };
    g.faults = g.s.chance(1, 10);
    g.exits = g.s.chance(1, 8);
    let mut head = String::from(".version 8.8\n.target sm_100a\n.address_size 64\n\n");
    head.push_str(".extern .func (.param .b32 vr) vprintf(.param .b64 vf, .param .b64 va);\n");
    for (k, f) in FORMATS.iter().enumerate() {
        let bytes: Vec<String> = f.bytes().chain([0]).map(|b| b.to_string()).collect();
        head.push_str(&format!(
            ".global .align 1 .b8 fmt{k}[{}] = {{{}}};\n",
            bytes.len(),
            bytes.join(", ")
        ));
    }
    head.push_str(&format!(".shared .align 16 .b8 sh[{SH_BYTES}];\n\n"));
    // Helper functions: their own registers, data from their parameters; any lanes may
    // call them (divergent calls, calls inside loops), so their bodies know no masks.
    let nfuncs = if g.on(F::Call) { 1 + g.s.below(2) } else { 0 };
    let uninit = g.s.chance(1, 16);
    for f in 0..nfuncs {
        g.emit(format!(
            ".func (.param .b32 fr0, .param .b64 fr1) f{f}(.param .b32 fa0, .param .b64 fa1, .param .b64 fscr, .param .b64 fatm, .param .b32 fu)"
        ));
        g.emit("{".into());
        g.emit(decls());
        thread_ids(&mut g, shape);
        e(&mut g, "ld.param.u32 %t3, [fu]");
        e(&mut g, "ld.param.u64 %a2, [fscr]");
        e(&mut g, "ld.param.u64 %a3, [fatm]");
        zero_reserved(&mut g, false);
        init_data(&mut g, false, false);
        e(&mut g, "ld.param.b32 %r0, [fa0]");
        e(&mut g, "ld.param.b64 %rd0, [fa1]");
        g.in_func = true;
        g.nfuncs = f;
        g.stmts_left = 3 + g.s.below(15) as u32;
        g.dyn_left = 400;
        let ctx = Ctx {
            mask: None,
            cta_uniform: false,
            depth: 0,
            lp: None,
            mult: 1,
            endif: None,
        };
        let n = g.stmts_left as usize;
        g.block(ctx, n);
        let (r, rd) = (g.s.below(N_R), g.s.below(N_RD));
        e(&mut g, &format!("st.param.b32 [fr0], %r{r}"));
        e(&mut g, &format!("st.param.b64 [fr1], %rd{rd}"));
        e(&mut g, "ret");
        g.emit("}".into());
        g.emit(String::new());
    }
    g.in_func = false;
    g.nfuncs = nfuncs;
    g.dyn_left = 4000;
    g.emit(
        ".visible .entry k(.param .u64 out, .param .u64 inp, .param .u64 scr, .param .u64 atm, .param .u32 u)"
            .into(),
    );
    g.emit("{".into());
    g.emit(decls());
    // Prologue: thread ids, the uniform parameter, buffer pointers.
    thread_ids(&mut g, shape);
    e(&mut g, "ld.param.u32 %t3, [u]");
    e(&mut g, "ld.param.u64 %a0, [out]");
    e(&mut g, &format!("mad.wide.u32 %a0, %t2, {SLOT}, %a0"));
    e(&mut g, "ld.param.u64 %a8, [inp]");
    e(&mut g, &format!("mad.wide.u32 %a1, %t2, {IN_SLOT}, %a8"));
    e(&mut g, "ld.param.u64 %a2, [scr]");
    e(&mut g, "ld.param.u64 %a3, [atm]");
    zero_reserved(&mut g, uninit);
    init_data(&mut g, true, uninit);
    // Shared memory: usually filled with a pattern first (the rest of the time the kernel
    // reads what the engine left there: zeros).
    if g.on(F::Shared) || g.on(F::Atomic) {
        if g.s.chance(3, 4) {
            let mul = g.s.u32() | 1;
            let add = g.s.u32();
            e(&mut g, "mov.u32 %t10, %t0");
            g.emit("SHINIT:".into());
            e(&mut g, &format!("setp.ge.u32 %q0, %t10, {}", SH_BYTES / 4));
            e(&mut g, "@%q0 bra SHDONE");
            e(&mut g, "mul.wide.u32 %a5, %t10, 4");
            e(&mut g, "add.s64 %a5, %a4, %a5");
            e(&mut g, &format!("mad.lo.u32 %t11, %t10, {mul}, {add}"));
            e(&mut g, "st.shared.u32 [%a5], %t11");
            e(&mut g, &format!("add.u32 %t10, %t10, {nthreads}"));
            e(&mut g, "bra SHINIT");
            g.emit("SHDONE:".into());
        }
        e(&mut g, "bar.sync 0");
    }
    // The body.
    let full = if nthreads.is_multiple_of(32) {
        u32::MAX
    } else {
        0
    };
    let mut ctx = Ctx {
        // A partial last warp: the lanes that do not exist never arrive, so only
        // activemask-based masks are safe.
        mask: if full == u32::MAX {
            Some(u32::MAX)
        } else {
            None
        },
        cta_uniform: true,
        depth: 0,
        lp: None,
        mult: 1,
        endif: None,
    };
    // Rarely, the body runs in a long uniform loop, so that warps take many turns (quanta
    // of 256 instructions) and CTAs of the same host thread take turns (slices of 65536).
    let outer = g.s.chance(1, 25);
    let outer_label = g.label();
    if outer {
        let trips = 100 + g.s.below(400) as u32;
        e(&mut g, &format!("mov.u32 %t7, {trips}"));
        e(&mut g, "mov.u32 %t4, 0");
        g.emit(format!("LOOP{outer_label}:"));
        ctx.lp = Some((0, outer_label, false));
        ctx.mult = trips;
        ctx.depth = 1;
        g.dyn_left = 60_000;
    }
    g.stmts_left = if outer {
        10 + g.s.below(30) as u32
    } else {
        10 + g.s.below(90) as u32
    };
    let n = g.stmts_left as usize;
    g.block(ctx, n);
    if outer {
        g.emit(format!("LCONT{outer_label}:"));
        e(&mut g, "add.u32 %t4, %t4, 1");
        e(&mut g, "setp.lt.u32 %q3, %t4, %t7");
        e(&mut g, &format!("@%q3 bra LOOP{outer_label}"));
        g.emit(format!("LEND{outer_label}:"));
    }
    // Epilogue: every register to the output slot.
    let vecs = g.s.coin();
    if vecs {
        for k in (0..N_RD).step_by(2) {
            e(
                &mut g,
                &format!(
                    "st.global.v2.b64 [%a0+{}], {{%rd{k}, %rd{}}}",
                    OFF_RD + 8 * k,
                    k + 1
                ),
            );
        }
        for k in (0..N_R).step_by(4) {
            e(
                &mut g,
                &format!(
                    "st.global.v4.b32 [%a0+{}], {{%r{k}, %r{}, %r{}, %r{}}}",
                    OFF_R + 4 * k,
                    k + 1,
                    k + 2,
                    k + 3
                ),
            );
        }
    } else {
        for k in 0..N_RD {
            e(
                &mut g,
                &format!("st.global.b64 [%a0+{}], %rd{k}", OFF_RD + 8 * k),
            );
        }
        for k in 0..N_R {
            e(
                &mut g,
                &format!("st.global.b32 [%a0+{}], %r{k}", OFF_R + 4 * k),
            );
        }
    }
    for k in 0..N_H {
        e(
            &mut g,
            &format!("st.global.b16 [%a0+{}], %h{k}", OFF_H + 2 * k),
        );
    }
    for k in 0..12 {
        e(
            &mut g,
            &format!("st.global.b32 [%a0+{}], %t{k}", OFF_T + 4 * k),
        );
    }
    e(&mut g, "mov.u32 %t12, 0");
    for (k, p) in (0..N_P)
        .map(|k| (k, format!("%p{k}")))
        .chain((0..4).map(|k| (8 + k, format!("%q{k}"))))
    {
        e(&mut g, &format!("selp.b32 %t13, {}, 0, {p}", 1u32 << k));
        e(&mut g, "or.b32 %t12, %t12, %t13");
    }
    e(&mut g, &format!("st.global.b32 [%a0+{OFF_P}], %t12"));
    let lines = std::mem::take(&mut g.out);
    // Inputs.
    let nt_total = (nthreads * grid) as usize;
    let mut prng = SplitMix(s.u64());
    let mut input = vec![0u8; nt_total.next_power_of_two().max(1) * IN_SLOT];
    // Each 8-byte column of the input slots: a pool of values, assigned to threads by a
    // pattern (uniform, per lane, per warp, per thread).
    for col in 0..IN_SLOT / 8 {
        let pool_n = 1 + s.below(8);
        let pool: Vec<u64> = (0..pool_n).map(|_| values::any64(s)).collect();
        let mode = s.below(5);
        for t in 0..input.len() / IN_SLOT {
            let v = match mode {
                0 => pool[0],
                1 => pool[t % pool_n],
                2 => pool[(t / 32) % pool_n],
                3 => prng.next(),
                _ => pool[(prng.next() as usize) % pool_n],
            };
            input[t * IN_SLOT + col * 8..][..8].copy_from_slice(&v.to_le_bytes());
        }
    }
    let pool: Vec<u64> = (0..8).map(|_| values::any64(s)).collect();
    let mut scratch = vec![0u8; SCR_BYTES + SCR_PAD];
    for c in scratch.chunks_mut(8) {
        let r = prng.next();
        let v = if r & 3 == 0 {
            pool[(r >> 8) as usize % 8]
        } else {
            prng.next()
        };
        c.copy_from_slice(&v.to_le_bytes()[..c.len()]);
    }
    let mut atom = vec![0u8; ATM_BYTES];
    for c in atom.chunks_mut(8) {
        let r = prng.next();
        let v = match r & 3 {
            0 => pool[(r >> 8) as usize % 8],
            1 => (r >> 32) & 0xff,
            2 => values::any64(s),
            _ => 0,
        };
        c.copy_from_slice(&v.to_le_bytes());
    }
    let max_steps = if s.chance(1, 24) {
        20 + s.below(3000) as u64
    } else {
        1_000_000
    };
    Case {
        head,
        lines,
        grid: [grid, 1, 1],
        block: [shape.0, shape.1, 1],
        input,
        scratch,
        atom,
        uparam,
        max_steps,
    }
}

/// The case for a seed (as the in-repo test runs them).
pub fn from_seed(seed: u64) -> Case {
    generate(&mut Src::from_seed(seed, 6000))
}

/// The case for fuzzer bytes.
pub fn from_bytes(data: &[u8]) -> Case {
    generate(&mut Src::new(data))
}
