//! An estimate of the registers a function needs per thread, for the launch's register
//! limit (CUDA: 65,536 32-bit registers per block, at most 255 per thread) and for
//! `cuFuncGetAttribute`. PTX registers are virtual — ptxas allocates physical ones — so the
//! estimate is the register pressure of the PTX: the most 32-bit register units (a `.b64`
//! is two, a `.v4 .f32` four; predicates live in their own file and do not count) live at
//! once, from a liveness analysis over the function's basic blocks. It is what a register
//! allocator needs at least without spilling; ptxas may use a few more (addresses,
//! scheduling) or fewer (rematerialisation). A destination written under a guard does not
//! end the register's previous value.

use ptxvm_ir::ir::{Base, Func, Op};
use ptxvm_ir::isa::Table;
use ptxvm_ir::types::Type;

/// Beyond this many bits of liveness sets (blocks × registers) the analysis is skipped and
/// the estimate is the count of declared register units.
const MAX_BITS: u64 = 1 << 28;

fn units(ty: Type, vector: u32) -> u32 {
    if ty == Type::Pred {
        return 0;
    }
    (ty.bits() * vector.max(1)).div_ceil(32)
}

/// Registers of an operand.
fn regs(op: &Op, out: &mut Vec<u32>) {
    match op {
        Op::Reg(r) | Op::RegComp(r, _) | Op::Select(r, _) => out.push(*r),
        Op::Pred { reg, .. } => out.push(*reg),
        Op::Addr {
            base: Base::Reg(r), ..
        } => out.push(*r),
        Op::TexAddr(v) | Op::Vector(v) | Op::List(v) => v.iter().for_each(|o| regs(o, out)),
        Op::Pair(a, b) => {
            regs(a, out);
            regs(b, out);
        }
        Op::Neg(x) => regs(x, out),
        _ => {}
    }
}

/// Whether an operand is a destination shape (registers, not an address).
fn is_dest_shape(op: &Op) -> bool {
    matches!(
        op,
        Op::Reg(_)
            | Op::RegComp(..)
            | Op::Pred { .. }
            | Op::Vector(_)
            | Op::Pair(..)
            | Op::Select(..)
    )
}

/// The estimated 32-bit register units the function needs, at least 1.
pub fn estimate(f: &Func) -> u32 {
    let declared: u64 = f.regs.iter().map(|r| units(r.ty, r.vector) as u64).sum();
    let declared = declared.clamp(1, u32::MAX as u64) as u32;
    let nregs = f.regs.len();
    let nblocks = f.blocks.len().max(1);
    if f.insts.is_empty() {
        return 1;
    }
    if (nblocks as u64).saturating_mul(nregs as u64) > MAX_BITS {
        return declared;
    }
    let table = Table::get();
    let words = nregs.div_ceil(64);
    let unit: Vec<u32> = f.regs.iter().map(|r| units(r.ty, r.vector)).collect();
    // Per instruction: (registers read, registers written with no guard).
    let n = f.insts.len();
    let mut uses: Vec<Vec<u32>> = Vec::with_capacity(n);
    let mut defs: Vec<Vec<u32>> = Vec::with_capacity(n);
    for inst in &f.insts {
        let first_src = table
            .forms
            .get(inst.form as usize)
            .is_none_or(|fm| fm.first_is_source && inst.opcode != "mbarrier");
        let mut u = Vec::new();
        let mut d = Vec::new();
        for (k, op) in inst.operands.iter().enumerate() {
            if k == 0 && !first_src && is_dest_shape(op) {
                regs(op, &mut d);
            } else {
                regs(op, &mut u);
            }
        }
        if let Some((p, _)) = inst.guard {
            u.push(p);
            // A guarded write may not happen: the old value stays live.
            u.append(&mut d);
        }
        uses.push(u);
        defs.push(d);
    }
    // Blocks and successors.
    let start = |b: usize| f.blocks.get(b).copied().unwrap_or(0) as usize;
    let end = |b: usize| f.blocks.get(b + 1).map_or(n, |&x| x as usize);
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); nblocks];
    for (b, s) in succ.iter_mut().enumerate() {
        let (lo, hi) = (start(b), end(b));
        let fall = b + 1 < nblocks;
        let Some(last) = (hi > lo).then(|| &f.insts[hi - 1]) else {
            if fall {
                s.push(b + 1);
            }
            continue;
        };
        let guarded = last.guard.is_some();
        let mut ends = false;
        match last.opcode {
            "bra" => {
                for op in &last.operands {
                    if let Op::Label(t) = op {
                        s.push(*t as usize);
                    }
                }
                ends = !guarded;
            }
            "brx" => {
                for op in &last.operands {
                    if let Op::Target(name) = op
                        && let Some((_, ts)) = f.branch_targets.iter().find(|(n, _)| n == name)
                    {
                        s.extend(ts.iter().map(|&t| t as usize));
                    }
                }
                ends = !guarded;
            }
            "ret" | "exit" | "trap" => ends = !guarded,
            _ => {}
        }
        if fall && !ends {
            s.push(b + 1);
        }
        s.retain(|&t| t < nblocks);
    }
    // Backward dataflow to a fixed point.
    let mut live_in = vec![0u64; nblocks * words];
    let mut live_out = vec![0u64; nblocks * words];
    let mut changed = true;
    let mut rounds = 0;
    while changed && rounds < 1000 {
        changed = false;
        rounds += 1;
        for b in (0..nblocks).rev() {
            let mut out = vec![0u64; words];
            for &s in &succ[b] {
                for w in 0..words {
                    out[w] |= live_in[s * words + w];
                }
            }
            let mut cur = out.clone();
            for i in (start(b)..end(b)).rev() {
                for &r in &defs[i] {
                    cur[r as usize / 64] &= !(1 << (r % 64));
                }
                for &r in &uses[i] {
                    cur[r as usize / 64] |= 1 << (r % 64);
                }
            }
            live_out[b * words..(b + 1) * words].copy_from_slice(&out);
            if live_in[b * words..(b + 1) * words] != cur[..] {
                live_in[b * words..(b + 1) * words].copy_from_slice(&cur);
                changed = true;
            }
        }
    }
    // The most units live at once: walk each block backward from its live-out set,
    // counting a value from its definition to its last use.
    let mut best = 0u64;
    for b in 0..nblocks {
        let mut cur = live_out[b * words..(b + 1) * words].to_vec();
        let mut count: u64 = (0..nregs)
            .filter(|&r| cur[r / 64] >> (r % 64) & 1 == 1)
            .map(|r| unit[r] as u64)
            .sum();
        best = best.max(count);
        for i in (start(b)..end(b)).rev() {
            // Between instructions: destinations die above their definition, sources
            // become live (a destination may reuse a dying source's register).
            for &r in &defs[i] {
                let (w, m) = (r as usize / 64, 1u64 << (r % 64));
                if cur[w] & m != 0 {
                    cur[w] &= !m;
                    count -= unit[r as usize] as u64;
                }
            }
            for &r in &uses[i] {
                let (w, m) = (r as usize / 64, 1u64 << (r % 64));
                if cur[w] & m == 0 {
                    cur[w] |= m;
                    count += unit[r as usize] as u64;
                }
            }
            best = best.max(count);
        }
    }
    best.clamp(1, declared as u64) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn func(body: &str) -> Func {
        let text = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n{body}\n}}\n"
        );
        let c = crate::check_ptx("t.ptx", &text).expect("checks");
        c.module.funcs.into_iter().next().expect("kernel")
    }

    #[test]
    fn counts_values_live_at_once_not_declarations() {
        // 100 registers declared, two values live at a time.
        let mut body = String::from(
            ".reg .b32 %r<100>;\n.reg .b64 %rd<3>;\nld.param.u64 %rd1, [p];\nmov.u32 %r0, 1;\n",
        );
        for i in 1..99 {
            body.push_str(&format!("add.u32 %r{i}, %r{}, 1;\n", i - 1));
        }
        body.push_str("st.global.u32 [%rd1], %r98;\nret;");
        // %rd1 (2 units) and one value of the chain.
        assert_eq!(estimate(&func(&body)), 3);
    }

    #[test]
    fn loops_keep_values_live_around_the_back_edge() {
        let body = ".reg .pred %p<2>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\n\
            mov.u32 %r1, 0;\nmov.u32 %r2, 5;\nmov.u32 %r3, 7;\nL:\nadd.u32 %r1, %r1, %r3;\n\
            setp.lt.u32 %p1, %r1, %r2;\n@%p1 bra L;\nst.global.u32 [%rd1], %r1;\nret;";
        // %rd1 (2) + %r1, %r2, %r3 live through the loop.
        assert_eq!(estimate(&func(body)), 5);
    }
}
