//! Constant expressions (§4.5.4): evaluation and symbol-plus-offset recognition.

use crate::ir::InitData;
use crate::types::Type;
use ptxvm_syntax::ast::Expr;

/// The value of a constant expression.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Val {
    Int(u64),
    Float(f64),
}

/// Evaluates a constant expression (§4.5.4): 64-bit integer arithmetic with wrapping,
/// floats for float literals. Names other than `WARP_SZ` make it non-constant.
pub fn eval(e: &Expr) -> Option<Val> {
    use ptxvm_syntax::ast::{BinOp, UnOp};
    Some(match e {
        Expr::Int { value, .. } => Val::Int(*value),
        Expr::Float { bits, .. } => Val::Float(f64::from_bits(*bits)),
        Expr::Name(_) => return None,
        Expr::Paren { e, .. } => eval(e)?,
        Expr::Unary { op, e, .. } => match (op, eval(e)?) {
            (UnOp::Neg, Val::Int(v)) => Val::Int(v.wrapping_neg()),
            (UnOp::Neg, Val::Float(f)) => Val::Float(-f),
            (UnOp::Plus, v) => v,
            (UnOp::Not, Val::Int(v)) => Val::Int((v == 0) as u64),
            (UnOp::BitNot, Val::Int(v)) => Val::Int(!v),
            _ => return None,
        },
        Expr::Binary { op, l, r, .. } => {
            let (a, b) = (eval(l)?, eval(r)?);
            match (a, b) {
                (Val::Int(a), Val::Int(b)) => Val::Int(match op {
                    BinOp::Mul => a.wrapping_mul(b),
                    BinOp::Div => (a as i64).checked_div(b as i64)? as u64,
                    BinOp::Rem => (a as i64).checked_rem(b as i64)? as u64,
                    BinOp::Add => a.wrapping_add(b),
                    BinOp::Sub => a.wrapping_sub(b),
                    BinOp::Shl => a.wrapping_shl(b as u32),
                    BinOp::Shr => ((a as i64).wrapping_shr(b as u32)) as u64,
                    BinOp::Lt => ((a as i64) < (b as i64)) as u64,
                    BinOp::Gt => ((a as i64) > (b as i64)) as u64,
                    BinOp::Le => ((a as i64) <= (b as i64)) as u64,
                    BinOp::Ge => ((a as i64) >= (b as i64)) as u64,
                    BinOp::Eq => (a == b) as u64,
                    BinOp::Ne => (a != b) as u64,
                    BinOp::BitAnd => a & b,
                    BinOp::BitXor => a ^ b,
                    BinOp::BitOr => a | b,
                    BinOp::And => (a != 0 && b != 0) as u64,
                    BinOp::Or => (a != 0 || b != 0) as u64,
                }),
                (a, b) => {
                    let f = |v: Val| match v {
                        Val::Int(i) => i as i64 as f64,
                        Val::Float(x) => x,
                    };
                    let (a, b) = (f(a), f(b));
                    match op {
                        BinOp::Mul => Val::Float(a * b),
                        BinOp::Div => Val::Float(a / b),
                        BinOp::Add => Val::Float(a + b),
                        BinOp::Sub => Val::Float(a - b),
                        BinOp::Lt => Val::Int((a < b) as u64),
                        BinOp::Gt => Val::Int((a > b) as u64),
                        BinOp::Le => Val::Int((a <= b) as u64),
                        BinOp::Ge => Val::Int((a >= b) as u64),
                        BinOp::Eq => Val::Int((a == b) as u64),
                        BinOp::Ne => Val::Int((a != b) as u64),
                        _ => return None,
                    }
                }
            }
        }
        Expr::Cond { c, t, f, .. } => match eval(c)? {
            Val::Int(0) => eval(f)?,
            Val::Int(_) => eval(t)?,
            Val::Float(x) => {
                if x != 0.0 {
                    eval(t)?
                } else {
                    eval(f)?
                }
            }
        },
        Expr::Call { .. } => return None,
    })
}

/// `WARP_SZ` is the one predefined constant name.
pub(super) fn const_int(e: &Expr) -> Option<i64> {
    match eval(e)? {
        Val::Int(v) => Some(v as i64),
        Val::Float(_) => None,
    }
}

/// Recognises `sym`, `sym+off`, `sym-off`, `off+sym`, `generic(sym)` (+off).
pub(super) fn sym_expr<'s>(e: &Expr, src: &'s str) -> Option<(&'s str, i64, bool)> {
    use ptxvm_syntax::ast::BinOp;
    match e {
        Expr::Name(s) => Some((s.text(src), 0, false)),
        Expr::Paren { e, .. } => sym_expr(e, src),
        Expr::Call { name, args, .. } if name.text(src) == "generic" && args.len() == 1 => {
            let (n, o, _) = sym_expr(&args[0], src)?;
            Some((n, o, true))
        }
        Expr::Binary {
            op: BinOp::Add,
            l,
            r,
            ..
        } => match (sym_expr(l, src), eval(r), eval(l), sym_expr(r, src)) {
            (Some((n, o, g)), Some(Val::Int(v)), _, _) => Some((n, o.wrapping_add(v as i64), g)),
            (_, _, Some(Val::Int(v)), Some((n, o, g))) => Some((n, o.wrapping_add(v as i64), g)),
            _ => None,
        },
        Expr::Binary {
            op: BinOp::Sub,
            l,
            r,
            ..
        } => match (sym_expr(l, src), eval(r)) {
            (Some((n, o, g)), Some(Val::Int(v))) => Some((n, o.wrapping_sub(v as i64), g)),
            _ => None,
        },
        _ => None,
    }
}

pub(super) fn push_float(data: &mut InitData, ty: Type, f: f64) {
    match ty {
        Type::F64 => data.bytes.extend_from_slice(&f.to_le_bytes()),
        Type::F32 => data.bytes.extend_from_slice(&(f as f32).to_le_bytes()),
        _ => data
            .bytes
            .extend(std::iter::repeat_n(0, ty.bytes() as usize)),
    }
}
