//! A structure-aware PTX generator: fuzz bytes choose a kernel whose instructions come from
//! the instruction table, with modifiers from each form's groups and operands of the types
//! the form's bindings require. Most generated kernels check, so `run` gets past the
//! checker into the interpreter far more often than with byte mutations alone.

use ptxvm_ir::isa::{Kind, Slot, Table, TyRef, primary_type};
use ptxvm_ir::types::{Class, Type};
use std::fmt::Write;

/// Reads choices from the fuzz input (zeros once it is used up).
struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    fn below(&mut self, n: usize) -> usize {
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

    fn coin(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    fn done(&self) -> bool {
        self.pos >= self.data.len()
    }
}

/// Instructions per kernel at most.
const MAX_INSTS: usize = 48;

/// A register of the generated kernel's register file for a value of type `ty`.
fn reg(ty: Type, k: usize) -> String {
    match ty {
        Type::Pred => format!("%p{}", k % 8),
        Type::F32 => format!("%f{}", k % 16),
        Type::F64 => format!("%fd{}", k % 8),
        _ => match ty.bits() {
            1 => format!("%p{}", k % 8),
            0..=16 => format!("%h{}", k % 8),
            17..=32 => format!("%r{}", k % 16),
            33..=64 => format!("%rd{}", 1 + k % 15),
            _ => format!("%q{}", k % 4),
        },
    }
}

fn imm(ty: Type, b: &mut Bytes) -> String {
    match ty.class() {
        Class::Float if ty.bits() == 64 => {
            format!(
                "0d{:016X}",
                [
                    0x3FF0000000000000u64,
                    0,
                    0x7FF8000000000000,
                    0xC000000000000000
                ][b.below(4)]
            )
        }
        Class::Float => format!(
            "0f{:08X}",
            [0x3F800000u32, 0, 0x7FC00000, 0xC0000000, 0x00000001][b.below(5)]
        ),
        _ => ["0", "1", "2", "7", "31", "32", "-1", "255", "4096"][b.below(9)].to_string(),
    }
}

fn address(b: &mut Bytes) -> String {
    let off = [0, 4, 8, 16, 64, 1020, 4092, 4096][b.below(8)];
    match b.below(5) {
        0 => format!("[%rd0+{off}]"),
        1 => format!("[sh+{}]", off % 1024),
        2 => format!("[loc+{}]", off % 256),
        3 => format!("[%rd{}]", 1 + b.below(15)),
        _ => format!("[buf]"),
    }
}

/// Target and PTX version of generated kernels: the newest arch-specific target the
/// table knows, so few forms are gated off.
const TARGET: &str = "sm_100a";
const VERSION: &str = "8.8";

fn header() -> String {
    format!(
        ".version {VERSION}\n.target {TARGET}\n.address_size 64\n\n.visible .entry k(.param .u64 buf, .param .u32 n)\n{{\n\
         \t.reg .pred %p<8>;\n\t.reg .b16 %h<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n\
         \t.reg .f32 %f<16>;\n\t.reg .f64 %fd<8>;\n\t.reg .b128 %q<4>;\n\
         \t.shared .align 16 .b8 sh[1024];\n\t.local .align 16 .b8 loc[256];\n\
         \tld.param.u64 %rd0, [buf];\n\tmov.u32 %r0, %tid.x;\n\tmov.u64 %rd1, sh;\n\
         \tcvta.shared.u64 %rd2, %rd1;\n"
    )
}

const FOOTER: &str = "L0:\nL1:\nL2:\nL3:\n\tret;\n}\n";

/// The table's opcodes in a fixed order.
fn opcodes(t: &'static Table) -> &'static [&'static str] {
    static OPS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    OPS.get_or_init(|| {
        let mut v: Vec<&'static str> = t.opcodes().collect();
        v.sort_unstable();
        v
    })
}

/// Whether the kernel checks and (unless `unsupported_ok`) every instruction decodes to
/// something the interpreter implements.
fn usable(text: &str, unsupported_ok: bool) -> bool {
    let Ok(c) = ptxvm_vm::check_ptx("gen.ptx", text) else {
        return false;
    };
    if unsupported_ok {
        return true;
    }
    let mem = ptxvm_vm::memory::AddressSpace::new(1 << 20);
    match ptxvm_vm::program::decode(&c.module, &|_| 0, &mem) {
        Ok(p) => p.funcs.iter().all(|f| {
            f.code
                .iter()
                .all(|i| !matches!(i.exec, ptxvm_vm::program::Exec::Unsupported(_)))
        }),
        Err(_) => false,
    }
}

/// One instruction chosen by the input, or `None` when the choice does not make one.
fn instruction(t: &'static Table, b: &mut Bytes) -> Option<String> {
    // Uniform over opcodes, then over the opcode's forms (wgmma alone has hundreds).
    let ops = opcodes(t);
    let forms = t.forms_of(ops[b.below(ops.len())]);
    let form = &t.forms[forms[b.below(forms.len())]];
    if form
        .operands
        .iter()
        .any(|o| matches!(o.kind, Kind::F | Kind::FR | Kind::List))
    {
        return None;
    }
    let groups = t.groups(form);
    let mut mods: Vec<&str> = Vec::new();
    for slot in &form.slots {
        match slot {
            Slot::Lit { text, optional } => {
                if !*optional || b.coin() {
                    mods.push(text);
                }
            }
            Slot::Group { group, optional } => {
                if *optional && b.coin() {
                    continue;
                }
                let g = &groups[*group];
                if !g.values.is_empty() {
                    mods.push(&g.values[b.below(g.values.len())].text);
                }
            }
        }
    }
    let bind = t.match_mods(form, &mods)?;
    let prim = primary_type(t, form, &bind);
    let ty_of = |r: TyRef| -> Type {
        match r {
            TyRef::Primary => prim,
            TyRef::Fixed(ty) => Some(ty),
            TyRef::Group(g) => bind
                .iter()
                .find(|(gg, _)| *gg == g)
                .and_then(|(gg, v)| Type::from_dot(&groups[*gg].values[*v].text)),
        }
        .unwrap_or(Type::B32)
    };
    let mut ops: Vec<String> = Vec::new();
    for (k, o) in form.operands.iter().enumerate() {
        if o.optional && b.coin() {
            break;
        }
        let ty = ty_of(o.ty);
        let r = b.below(16) + k;
        ops.push(match o.kind {
            Kind::R | Kind::RReg | Kind::RSink | Kind::RP | Kind::Any => reg(ty, r),
            Kind::RI | Kind::RIS => {
                if b.coin() {
                    reg(ty, r)
                } else {
                    imm(ty, b)
                }
            }
            Kind::I => imm(ty, b),
            Kind::P | Kind::PSink | Kind::PQ | Kind::PI => reg(Type::Pred, r),
            Kind::NP => format!("{}{}", if b.coin() { "!" } else { "" }, reg(Type::Pred, r)),
            Kind::A => address(b),
            Kind::V | Kind::RV => {
                let n = [2, 4][b.below(2)];
                let v: Vec<String> = (0..n).map(|j| reg(ty, r + j)).collect();
                format!("{{{}}}", v.join(", "))
            }
            Kind::VN(n) => {
                let v: Vec<String> = (0..n as usize).map(|j| reg(ty, r + j)).collect();
                format!("{{{}}}", v.join(", "))
            }
            Kind::L => format!("L{}", b.below(4)),
            Kind::S => ["sh", "loc", "buf"][b.below(3)].to_string(),
            Kind::F | Kind::FR | Kind::List => return None,
        });
    }
    let guard = if b.below(4) == 0 {
        format!(
            "@{}{} ",
            if b.coin() { "!" } else { "" },
            reg(Type::Pred, b.below(8))
        )
    } else {
        String::new()
    };
    Some(format!(
        "\t{guard}{}{} {};\n",
        form.opcode,
        mods.concat(),
        ops.join(", ")
    ))
}

/// The kernel text chosen by `data`: instructions that check on their own (each candidate
/// is checked in an otherwise empty kernel; those that do not check are left out), with the
/// labels `L0`..`L3` spread among them.
pub fn kernel(data: &[u8]) -> String {
    let t = Table::get();
    let mut b = Bytes { data, pos: 0 };
    let head = header();
    let mut body = String::new();
    let mut n = 0;
    let mut labels = 0;
    while n < MAX_INSTS && !b.done() {
        let Some(inst) = instruction(t, &mut b) else {
            continue;
        };
        let alone = format!("{head}{inst}{FOOTER}");
        // One in eight unimplemented forms is kept: their fault path is exercised too.
        let unsupported_ok = b.below(8) == 0;
        if !usable(&alone, unsupported_ok) {
            continue;
        }
        if n % 12 == 11 && labels < 4 {
            let _ = writeln!(body, "M{labels}:");
            labels += 1;
        }
        body.push_str(&inst);
        n += 1;
    }
    // Branches name L0..L3: put them among the instructions (backward and forward).
    let mut text = head;
    let lines: Vec<&str> = body.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if let Some(k) = l.strip_prefix('M').and_then(|r| r.strip_suffix(':')) {
            let _ = writeln!(text, "L{k}:");
        } else {
            let _ = writeln!(text, "{l}");
        }
        let _ = i;
    }
    for k in labels..4 {
        let _ = writeln!(text, "L{k}:");
    }
    text.push_str("\tret;\n}\n");
    text
}
