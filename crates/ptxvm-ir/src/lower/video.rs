//! Operand rules of the video instructions (§9.7.18) that the instruction table cannot say:
//! which sub-word selector each position takes, register-only SIMD operands, and `vmad`'s
//! operand negates. The rules follow ptxas (its messages are quoted where they exist).

use super::*;

/// The four families of video instructions, by their operand rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// vadd vsub vabsdiff vmin vmax vshl vshr vset.
    Scalar,
    Mad,
    /// Two-way SIMD (`vadd2` ... `vset2`).
    Simd2,
    /// Four-way SIMD (`vadd4` ... `vset4`).
    Simd4,
}

fn class(opcode: &str) -> Option<Class> {
    Some(match opcode {
        "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vset" => Class::Scalar,
        "vmad" => Class::Mad,
        "vadd2" | "vsub2" | "vavrg2" | "vabsdiff2" | "vmin2" | "vmax2" | "vset2" => Class::Simd2,
        "vadd4" | "vsub4" | "vavrg4" | "vabsdiff4" | "vmin4" | "vmax4" | "vset4" => Class::Simd4,
        _ => return None,
    })
}

/// A scalar byte/half-word selector: `.b0`..`.b3`, `.h0`, `.h1`.
fn scalar_sel(s: &VSel) -> bool {
    s.n == 1 && s.lanes[0] < if s.half { 2 } else { 4 }
}

/// A SIMD destination mask: `.h0 .h1 .h10`, or bytes of `3210` in descending order.
fn mask_sel(s: &VSel, c: Class) -> bool {
    let (half, top) = match c {
        Class::Simd2 => (true, 1),
        _ => (false, 3),
    };
    s.half == half
        && s.digits().iter().all(|&d| d <= top)
        && s.digits().windows(2).all(|w| w[0] > w[1])
}

/// A SIMD source selector: `.hxy` (x, y in 0..3) or `.bxyzw` (each in 0..7).
fn source_sel(s: &VSel, c: Class) -> bool {
    match c {
        Class::Simd2 => s.half && s.n == 2 && s.digits().iter().all(|&d| d <= 3),
        _ => !s.half && s.n == 4,
    }
}

impl<'a> Cx<'a> {
    /// Checks the selectors and negates of an instruction's operands. A negative constant
    /// (`-5`) is a constant expression, not a negate: ptxas takes it even with `vmad.po`.
    pub(super) fn video_checks(&mut self, opcode: &str, mods: &[&str], i: &ast::Instr, ops: &[Op]) {
        let Some(c) = class(opcode) else {
            for (o, op) in i.operands.iter().zip(ops.iter()) {
                if has_select(op) {
                    self.push(err(
                        DiagKind::OperandKind,
                        o.span(),
                        format!(
                            "`{}`: sub-word selectors are allowed only on video instructions",
                            self.t(o.span())
                        ),
                    ));
                } else if matches!(op, Op::Neg(_)) {
                    self.push(err(
                        DiagKind::OperandKind,
                        o.span(),
                        format!("operand negation is not allowed for `{opcode}`"),
                    ));
                }
            }
            return;
        };
        let has_op2 = mods.iter().any(|m| matches!(*m, ".add" | ".min" | ".max"));
        let n = ops.len();
        let mut negs = [false; 4];
        for (k, (o, op)) in i.operands.iter().zip(ops.iter()).enumerate() {
            let (inner, neg) = match op {
                Op::Neg(x) => (&**x, true),
                x => (x, false),
            };
            negs[k.min(3)] = neg;
            if neg && c != Class::Mad {
                self.push(err(
                    DiagKind::OperandKind,
                    o.span(),
                    format!("operand negation is not allowed for `{opcode}`"),
                ));
                continue;
            }
            let sel = match inner {
                Op::Select(_, s) => Some(*s),
                _ => None,
            };
            let simd = matches!(c, Class::Simd2 | Class::Simd4);
            if simd && matches!(inner, Op::Imm(_)) {
                self.push(err(
                    DiagKind::OperandKind,
                    o.span(),
                    format!("`{opcode}` operands must be registers, found a constant"),
                ));
                continue;
            }
            let Some(s) = sel else { continue };
            let ok = match (c, k) {
                (_, 3) => {
                    self.push(err(
                        DiagKind::OperandKind,
                        o.span(),
                        "a video selector is not allowed on the `c` operand",
                    ));
                    continue;
                }
                (Class::Mad, 0) => false,
                (Class::Scalar, 0) if has_op2 => {
                    self.push(err(
                        DiagKind::OperandKind,
                        o.span(),
                        "a video instruction cannot have both a destination selector and a secondary operation",
                    ));
                    continue;
                }
                (Class::Scalar, 0) if n < 4 => {
                    self.push(err(
                        DiagKind::OperandKind,
                        o.span(),
                        "a destination selector merges into operand `c`, which is missing",
                    ));
                    continue;
                }
                (Class::Scalar | Class::Mad, _) => scalar_sel(&s),
                (_, 0) => mask_sel(&s, c),
                _ => source_sel(&s, c),
            };
            if !ok {
                let want = match (c, k) {
                    (Class::Mad, 0) => "none (`vmad` has no destination selector)",
                    (Class::Scalar | Class::Mad, _) => "`.b0`..`.b3`, `.h0` or `.h1`",
                    (Class::Simd2, 0) => "`.h0`, `.h1` or `.h10`",
                    (Class::Simd4, 0) => "bytes of `.b3210` in descending order",
                    (Class::Simd2, _) => "`.hxy` with x, y in 0..3",
                    _ => "`.bxyzw` with x, y, z, w in 0..7",
                };
                self.push(err(
                    DiagKind::OperandKind,
                    o.span(),
                    format!("incorrect video selector `{s}` for operand {k}: expected {want}"),
                ));
            }
        }
        if c == Class::Mad {
            let po = mods.contains(&".po");
            let (na, nb, nc) = (negs[1], negs[2], negs[3]);
            let span = i
                .operands
                .first()
                .map_or(i.span, |o| o.span().to(i.operands[n - 1].span()));
            if po && (na || nb || nc) {
                self.push(err(
                    DiagKind::OperandKind,
                    span,
                    "`vmad.po` does not allow operand negation",
                ));
            } else if (na ^ nb) && nc {
                self.push(err(
                    DiagKind::OperandKind,
                    span,
                    "operand negation is limited to either (source a xor source b) or source c",
                ));
            }
        }
    }
}

fn has_select(op: &Op) -> bool {
    match op {
        Op::Select(..) => true,
        Op::Neg(x) => has_select(x),
        _ => false,
    }
}
