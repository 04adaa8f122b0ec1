//! The instruction table: every PTX instruction form, declared once in `isa/*.isa` (format
//! in `isa/FORMAT.md`), parsed at first use into [`Table`]. The checker matches each
//! instruction against the forms of its opcode ([`Table::match_mods`]); the coverage
//! report is generated from the same data.
//! Invariant: no other part of ptxvm lists instruction forms.

use crate::types::Type;
use rustc_hash::FxHashMap as HashMap;
use std::sync::OnceLock;

/// The embedded table files: (file name, text).
pub const FILES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/isa_files.rs"));

/// A version/target requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Gate {
    /// PTX ISA version as major*10+minor (e.g. 78 for 7.8); 0 = none.
    pub ptx: u32,
    /// Lowest `sm_N`; 0 = none.
    pub sm: u32,
    /// Requires an architecture-specific (`a`/`f`) target.
    pub arch_specific: bool,
}

impl Gate {
    /// The stricter of two gates.
    pub fn max(self, o: Gate) -> Gate {
        Gate {
            ptx: self.ptx.max(o.ptx),
            sm: self.sm.max(o.sm),
            arch_specific: self.arch_specific || o.arch_specific,
        }
    }
}

/// One value of a modifier group.
#[derive(Debug, Clone)]
pub struct Value {
    pub text: String,
    pub gate: Gate,
}

/// A modifier group (`.type = { ... }`).
#[derive(Debug, Clone)]
pub struct Group {
    pub name: String,
    pub values: Vec<Value>,
}

/// A modifier slot of a form pattern.
#[derive(Debug, Clone)]
pub enum Slot {
    Lit { text: String, optional: bool },
    Group { group: usize, optional: bool },
}

/// Operand kinds (see FORMAT.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    R,
    /// A register and never a constant, also in a source position (`rr`).
    RReg,
    RSink,
    RI,
    I,
    P,
    PSink,
    NP,
    PQ,
    PI,
    A,
    V,
    VN(u32),
    RV,
    RP,
    L,
    F,
    FR,
    S,
    RIS,
    List,
    Any,
}

impl Kind {
    fn parse(s: &str) -> Option<Kind> {
        Some(match s {
            "r" => Kind::R,
            "rr" => Kind::RReg,
            "r_" => Kind::RSink,
            "ri" => Kind::RI,
            "i" => Kind::I,
            "p" => Kind::P,
            "p_" => Kind::PSink,
            "np" => Kind::NP,
            "pq" => Kind::PQ,
            "pi" => Kind::PI,
            "a" => Kind::A,
            "v" => Kind::V,
            "rv" => Kind::RV,
            "rp" => Kind::RP,
            "l" => Kind::L,
            "f" => Kind::F,
            "fr" => Kind::FR,
            "s" => Kind::S,
            "ris" => Kind::RIS,
            "L" => Kind::List,
            "*" => Kind::Any,
            _ => {
                let n = s.strip_prefix('v')?.parse().ok()?;
                Kind::VN(n)
            }
        })
    }

    /// Human description for diagnostics.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::R | Kind::RReg => "a register",
            Kind::RSink => "a register or `_`",
            Kind::RI => "a register or an immediate",
            Kind::I => "an immediate",
            Kind::P => "a predicate register",
            Kind::PSink => "a predicate register or `_`",
            Kind::NP => "a predicate (optionally negated)",
            Kind::PQ => "a predicate or a `p|q` pair",
            Kind::PI => "a predicate or an immediate",
            Kind::A => "an address `[...]`",
            Kind::V | Kind::VN(_) => "a vector `{...}`",
            Kind::RV => "a register or a vector `{...}`",
            Kind::RP => "a register, optionally `d|p`",
            Kind::L => "a label",
            Kind::F => "a function name",
            Kind::FR => "a function name or a register",
            Kind::S => "a symbol",
            Kind::RIS => "a register, an immediate or a symbol",
            Kind::List => "a parenthesised list",
            Kind::Any => "an operand",
        }
    }
}

/// What an operand's type must agree with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TyRef {
    /// The form's primary type.
    Primary,
    Fixed(Type),
    /// The value chosen for a group (index into the block's groups).
    Group(usize),
}

/// One operand of a form.
#[derive(Debug, Clone)]
pub struct OperandSpec {
    pub name: String,
    pub kind: Kind,
    pub ty: TyRef,
    pub optional: bool,
}

/// One instruction form.
#[derive(Debug, Clone)]
pub struct Form {
    pub opcode: String,
    pub slots: Vec<Slot>,
    pub operands: Vec<OperandSpec>,
    pub gate: Gate,
    pub relaxed: bool,
    /// Whether the first operand is read, not written (a store address, a barrier id, a
    /// branch target...): derived from the opcode.
    pub first_is_source: bool,
    /// Index of the block (for its groups).
    pub block: usize,
    /// Where it is declared: (file, 1-based line) and the pattern text.
    pub file: &'static str,
    pub line: u32,
    pub pattern: String,
    pub text: String,
}

impl Form {
    /// The form in the manual's notation: `add{.sat}.s32 d, a, b{, c}`.
    pub fn syntax(&self) -> String {
        let mut s = self.pattern.clone();
        let mut opened = false;
        for (k, o) in self.operands.iter().enumerate() {
            if o.optional && !opened {
                s.push_str(if k == 0 { " {" } else { "{, " });
                opened = true;
            } else {
                s.push_str(if k == 0 { " " } else { ", " });
            }
            s.push_str(&o.name);
        }
        if opened {
            s.push('}');
        }
        s
    }

    pub fn min_operands(&self) -> usize {
        self.operands.iter().filter(|o| !o.optional).count()
    }
}

/// A block (`## name`) with its groups.
#[derive(Debug, Clone)]
pub struct IsaBlock {
    pub names: Vec<String>,
    pub file: &'static str,
    pub groups: Vec<Group>,
}

/// The whole table.
#[derive(Debug, Default)]
pub struct Table {
    pub blocks: Vec<IsaBlock>,
    pub forms: Vec<Form>,
    by_opcode: HashMap<String, Vec<usize>>,
}

/// A problem in a table file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableError {
    pub file: String,
    pub line: u32,
    pub message: String,
}

/// The group choices of one successful modifier match: group index → value index.
pub type Bindings = Vec<(usize, usize)>;

impl Table {
    /// The built-in table (parsed once). Errors in the embedded files are a bug caught by
    /// the test suite; at run time the forms that did parse are used.
    pub fn get() -> &'static Table {
        static T: OnceLock<Table> = OnceLock::new();
        T.get_or_init(|| Table::parse_files(FILES).0)
    }

    /// Parses table files.
    pub fn parse_files(files: &[(&'static str, &'static str)]) -> (Table, Vec<TableError>) {
        let mut t = Table::default();
        let mut errs = Vec::new();
        for (name, text) in files {
            parse_file(&mut t, name, text, &mut errs);
        }
        for (i, f) in t.forms.iter().enumerate() {
            t.by_opcode.entry(f.opcode.clone()).or_default().push(i);
        }
        (t, errs)
    }

    /// The forms of an opcode.
    pub fn forms_of(&self, opcode: &str) -> &[usize] {
        self.by_opcode.get(opcode).map_or(&[], Vec::as_slice)
    }

    pub fn has_opcode(&self, opcode: &str) -> bool {
        self.by_opcode.contains_key(opcode)
    }

    /// Every opcode.
    pub fn opcodes(&self) -> impl Iterator<Item = &str> {
        self.by_opcode.keys().map(String::as_str)
    }

    /// Matches modifiers against one form's slots; returns the bindings on success.
    ///
    /// The spec's order is tried first. ptxas also accepts modifiers in other orders, so
    /// failing that, modifiers may fill slots in any order — except that type modifiers
    /// keep their relative order (`cvt.f32.s32` is destination then source). Bindings are
    /// always returned in slot order.
    pub fn match_mods(&self, form: &Form, mods: &[&str]) -> Option<Bindings> {
        self.match_in_order(form, mods)
            .or_else(|| self.match_any_order(form, mods))
    }

    /// The forms (of `forms`) whose slots the modifiers fill, with their bindings: the
    /// forms matching in the manual's order, or if there are none, those matching in any
    /// order (see [`Table::match_mods`]).
    pub fn match_forms(&self, forms: &[usize], mods: &[&str]) -> Vec<(usize, Bindings)> {
        let ordered: Vec<(usize, Bindings)> = forms
            .iter()
            .filter_map(|&fi| self.match_in_order(&self.forms[fi], mods).map(|b| (fi, b)))
            .collect();
        if !ordered.is_empty() {
            return ordered;
        }
        forms
            .iter()
            .filter_map(|&fi| self.match_any_order(&self.forms[fi], mods).map(|b| (fi, b)))
            .collect()
    }

    fn match_in_order(&self, form: &Form, mods: &[&str]) -> Option<Bindings> {
        let groups = &self.blocks[form.block].groups;
        let mut b = Vec::new();
        match_slots(&form.slots, mods, groups, &mut b).then_some(b)
    }

    fn match_any_order(&self, form: &Form, mods: &[&str]) -> Option<Bindings> {
        const MAX: usize = 32;
        if form.slots.len() > 64 || mods.len() > form.slots.len() || mods.len() > MAX {
            return None;
        }
        let groups = &self.blocks[form.block].groups;
        let (mut assign, mut vals) = ([usize::MAX; MAX], [0usize; MAX]);
        let n = mods.len();
        if !match_unordered(
            &form.slots,
            mods,
            groups,
            0,
            0,
            None,
            &mut assign[..n],
            &mut vals[..n],
        ) {
            return None;
        }
        let mut pairs: Vec<(usize, usize, usize)> = Vec::new();
        for (k, &slot) in assign[..n].iter().enumerate() {
            if let Slot::Group { group, .. } = form.slots[slot] {
                pairs.push((slot, group, vals[k]));
            }
        }
        pairs.sort();
        Some(pairs.into_iter().map(|(_, g, v)| (g, v)).collect())
    }

    /// The groups visible to a form.
    pub fn groups(&self, form: &Form) -> &[Group] {
        &self.blocks[form.block].groups
    }
}

fn match_slots(slots: &[Slot], mods: &[&str], groups: &[Group], b: &mut Bindings) -> bool {
    let Some((slot, rest)) = slots.split_first() else {
        return mods.is_empty();
    };
    match slot {
        Slot::Lit { text, optional } => {
            if mods.first() == Some(&text.as_str()) && match_slots(rest, &mods[1..], groups, b) {
                return true;
            }
            *optional && match_slots(rest, mods, groups, b)
        }
        Slot::Group { group, optional } => {
            if let Some(m) = mods.first()
                && let Some(vi) = groups[*group].values.iter().position(|v| v.text == *m)
            {
                b.push((*group, vi));
                if match_slots(rest, &mods[1..], groups, b) {
                    return true;
                }
                b.pop();
            }
            *optional && match_slots(rest, mods, groups, b)
        }
    }
}

/// Order-insensitive slot assignment (see [`Table::match_mods`]).
#[allow(clippy::too_many_arguments)]
fn match_unordered(
    slots: &[Slot],
    mods: &[&str],
    groups: &[Group],
    k: usize,
    used: u64,
    last_type_slot: Option<usize>,
    assign: &mut [usize],
    vals: &mut [usize],
) -> bool {
    if k == mods.len() {
        return slots.iter().enumerate().all(|(i, s)| {
            used & (1 << i) != 0
                || matches!(
                    s,
                    Slot::Lit { optional: true, .. } | Slot::Group { optional: true, .. }
                )
        });
    }
    let m = mods[k];
    let is_type = Type::from_dot(m).is_some();
    for (i, s) in slots.iter().enumerate() {
        if used & (1 << i) != 0 {
            continue;
        }
        if is_type && last_type_slot.is_some_and(|l| i < l) {
            continue;
        }
        let v = match s {
            Slot::Lit { text, .. } if text == m => 0,
            Slot::Group { group, .. } => {
                match groups[*group].values.iter().position(|v| v.text == m) {
                    Some(v) => v,
                    None => continue,
                }
            }
            _ => continue,
        };
        assign[k] = i;
        vals[k] = v;
        let lt = if is_type { Some(i) } else { last_type_slot };
        if match_unordered(
            slots,
            mods,
            groups,
            k + 1,
            used | (1 << i),
            lt,
            assign,
            vals,
        ) {
            return true;
        }
    }
    false
}

fn parse_gate(attr: &str, g: &mut Gate) -> Result<(), String> {
    if let Some(v) = attr.strip_prefix("ptx=") {
        let (a, b) = v.split_once('.').ok_or(format!("bad ptx version `{v}`"))?;
        let (a, b): (u32, u32) = (
            a.parse().map_err(|_| format!("bad ptx version `{v}`"))?,
            b.parse().map_err(|_| format!("bad ptx version `{v}`"))?,
        );
        g.ptx = a * 10 + b;
        Ok(())
    } else if let Some(v) = attr.strip_prefix("sm=") {
        let (num, arch) = match v.strip_suffix('a').or_else(|| v.strip_suffix('f')) {
            Some(n) => (n, true),
            None => (v, false),
        };
        g.sm = num.parse().map_err(|_| format!("bad sm value `{v}`"))?;
        g.arch_specific |= arch;
        Ok(())
    } else {
        Err(format!("unknown attribute `{attr}`"))
    }
}

fn parse_file(t: &mut Table, file: &'static str, text: &str, errs: &mut Vec<TableError>) {
    let mut err = |line: usize, m: String| {
        errs.push(TableError {
            file: file.to_string(),
            line: line as u32 + 1,
            message: m,
        })
    };
    let lines: Vec<&str> = text.lines().collect();
    // Pending form lines of the current block, resolved when the block ends (groups may be
    // defined after the forms that use them).
    let mut pending: Vec<(usize, String)> = Vec::new();
    let mut i = 0;
    let mut block: Option<usize> = None;
    let flush = |t: &mut Table,
                 block: Option<usize>,
                 pending: &mut Vec<(usize, String)>,
                 err: &mut dyn FnMut(usize, String)| {
        let Some(b) = block else {
            for (ln, _) in pending.drain(..) {
                err(ln, "form outside any `## block`".into());
            }
            return;
        };
        for (ln, s) in pending.drain(..) {
            match parse_form(t, b, &s) {
                Ok(mut f) => {
                    f.file = file;
                    f.line = ln as u32 + 1;
                    t.forms.push(f);
                }
                Err(m) => err(ln, m),
            }
        }
    };
    while i < lines.len() {
        let raw = lines[i];
        let line = raw.split('#').next().unwrap_or("").trim();
        if let Some(h) = raw.trim_start().strip_prefix("## ") {
            flush(t, block, &mut pending, &mut err);
            t.blocks.push(IsaBlock {
                names: h.split_whitespace().map(str::to_string).collect(),
                file,
                groups: Vec::new(),
            });
            block = Some(t.blocks.len() - 1);
            i += 1;
            continue;
        }
        if line.is_empty() {
            i += 1;
            continue;
        }
        // A group definition: `.name = { ... };` possibly over several lines.
        if line.starts_with('.') && line.contains('=') {
            let start = i;
            let mut acc = String::from(line);
            while !acc.contains("};") && !acc.trim_end().ends_with('}') && i + 1 < lines.len() {
                i += 1;
                acc.push(' ');
                acc.push_str(lines[i].split('#').next().unwrap_or("").trim());
            }
            match parse_group(&acc) {
                Ok(g) => match block {
                    Some(b) => {
                        if t.blocks[b].groups.iter().any(|x| x.name == g.name) {
                            err(
                                start,
                                format!("group `{}` defined twice in this block", g.name),
                            );
                        } else {
                            t.blocks[b].groups.push(g);
                        }
                    }
                    None => err(start, "group outside any `## block`".into()),
                },
                Err(m) => err(start, m),
            }
            i += 1;
            continue;
        }
        pending.push((i, line.to_string()));
        i += 1;
    }
    flush(t, block, &mut pending, &mut err);
}

fn parse_group(s: &str) -> Result<Group, String> {
    let (name, rest) = s
        .split_once('=')
        .ok_or("expected `=` in a group definition")?;
    let name = name.trim().to_string();
    let body = rest.trim();
    let body = body
        .strip_prefix('{')
        .ok_or(format!("group `{name}`: expected `{{`"))?;
    let end = body
        .rfind('}')
        .ok_or(format!("group `{name}`: expected `}}`"))?;
    let inner = &body[..end];
    let mut values = Vec::new();
    for v in inner.split(',') {
        let v = v.trim();
        if v.is_empty() {
            continue;
        }
        let (text, gate) = match v.split_once('[') {
            Some((tx, g)) => {
                let g = g.trim_end_matches(']');
                let mut gate = Gate::default();
                for a in g.split_whitespace() {
                    parse_gate(a, &mut gate)?;
                }
                (tx.trim(), gate)
            }
            None => (v, Gate::default()),
        };
        if !text.starts_with('.') {
            return Err(format!(
                "group `{name}`: value `{text}` must start with `.`"
            ));
        }
        values.push(Value {
            text: text.to_string(),
            gate,
        });
    }
    if values.is_empty() {
        return Err(format!("group `{name}` has no values"));
    }
    Ok(Group { name, values })
}

fn parse_form(t: &Table, block: usize, s: &str) -> Result<Form, String> {
    let groups = &t.blocks[block].groups;
    let find_group = |n: &str| groups.iter().position(|g| g.name == n);
    let (body, attrs) = s
        .split_once(';')
        .ok_or("expected `;` ending the operands")?;
    let body = body.trim();
    let (pattern, ops) = match body.find(char::is_whitespace) {
        Some(k) => (&body[..k], body[k..].trim()),
        None => (body, ""),
    };
    // Pattern: opcode then slots.
    let op_end = pattern.find(['.', '{']).unwrap_or(pattern.len());
    let opcode = pattern[..op_end].to_string();
    if opcode.is_empty()
        || !opcode
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(format!("bad opcode in pattern `{pattern}`"));
    }
    let mut slots = Vec::new();
    let mut rest = &pattern[op_end..];
    while !rest.is_empty() {
        let (tok, optional, adv) = if let Some(r) = rest.strip_prefix('{') {
            let e = r.find('}').ok_or(format!("unclosed `{{` in `{pattern}`"))?;
            (&r[..e], true, e + 2)
        } else {
            let r = &rest[1..];
            let e = r.find(['.', '{']).map_or(rest.len(), |k| k + 1);
            // `::` belongs to the modifier: find the next `.` not part of `::`.
            (&rest[..e], false, e)
        };
        if !tok.starts_with('.') {
            return Err(format!(
                "modifier `{tok}` must start with `.` in `{pattern}`"
            ));
        }
        slots.push(match find_group(tok) {
            Some(g) => Slot::Group { group: g, optional },
            None => Slot::Lit {
                text: tok.to_string(),
                optional,
            },
        });
        rest = &rest[adv..];
    }
    // Operands.
    let mut operands = Vec::new();
    for (raw, optional) in split_operands(ops) {
        let o = raw.trim();
        let (name, spec) = o
            .split_once(':')
            .ok_or(format!("operand `{o}` needs `name:kind`"))?;
        let (kind_s, ty_s) = match spec.find('.') {
            Some(k) => (&spec[..k], Some(&spec[k..])),
            None => (spec, None),
        };
        let kind = Kind::parse(kind_s).ok_or(format!("unknown operand kind `{kind_s}`"))?;
        let ty = match ty_s {
            None => TyRef::Primary,
            Some(t) => match find_group(t) {
                Some(g) => TyRef::Group(g),
                None => {
                    TyRef::Fixed(Type::from_dot(t).ok_or(format!("unknown type or group `{t}`"))?)
                }
            },
        };
        operands.push(OperandSpec {
            name: name.trim().to_string(),
            kind,
            ty,
            optional,
        });
    }
    let mut gate = Gate::default();
    let mut relaxed = false;
    for a in attrs.split_whitespace() {
        if a == "relaxed" {
            relaxed = true;
        } else {
            parse_gate(a, &mut gate)?;
        }
    }
    Ok(Form {
        first_is_source: FIRST_IS_SOURCE.contains(&opcode.as_str()),
        opcode,
        slots,
        operands,
        gate,
        relaxed,
        block,
        file: "",
        line: 0,
        pattern: pattern.to_string(),
        text: s.to_string(),
    })
}

/// Opcodes whose first operand is not written (a store address, a barrier id, a label...).
const FIRST_IS_SOURCE: &[&str] = &[
    "st",
    "red",
    "bar",
    "barrier",
    "nanosleep",
    "bra",
    "brx",
    "call",
    "prefetch",
    "prefetchu",
    "cp",
    "mbarrier",
    "multimem",
    "sust",
    "sured",
    "stmatrix",
    "tcgen05",
    "pmevent",
    "trap",
    "setmaxnreg",
    "discard",
    "applypriority",
    "tensormap",
    "griddepcontrol",
    "membar",
    "fence",
    "ret",
    "exit",
    "wmma",
    "stackrestore",
];

/// Splits operand text on commas; a `{` starts the optional trailing operands.
/// Returns (text, optional) per operand.
fn split_operands(s: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut optional = false;
    for c in s.chars() {
        match c {
            ',' | '{' | '}' => {
                if !cur.trim().is_empty() {
                    out.push((std::mem::take(&mut cur), optional));
                }
                cur.clear();
                if c == '{' {
                    optional = true;
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        out.push((cur, optional));
    }
    out
}

/// The primary type of a form given its bindings: the `.type` group's value, else the only
/// type literal.
pub fn primary_type(t: &Table, form: &Form, b: &Bindings) -> Option<Type> {
    let groups = t.groups(form);
    for (g, v) in b {
        if groups[*g].name == ".type" {
            return Type::from_dot(&groups[*g].values[*v].text);
        }
    }
    let mut found = None;
    for s in &form.slots {
        if let Slot::Lit { text, .. } = s
            && let Some(ty) = Type::from_dot(text)
        {
            if found.is_some() {
                return None;
            }
            found = Some(ty);
        }
    }
    if found.is_some() {
        return found;
    }
    // Else the single bound group whose value is a type (`mov.atype`).
    let mut tys = b
        .iter()
        .filter_map(|(g, v)| Type::from_dot(&groups[*g].values[*v].text));
    match (tys.next(), tys.next()) {
        (Some(t), None) => Some(t),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_table_parses_cleanly() {
        let (t, errs) = Table::parse_files(FILES);
        assert!(errs.is_empty(), "table errors: {errs:#?}");
        assert!(t.forms.len() > 100, "only {} forms", t.forms.len());
    }

    #[test]
    fn matches_optional_and_group_slots() {
        let src = "## add\n.rnd = { .rn, .rz };\nadd{.rnd}{.ftz}.f32 d:r, a:ri, b:ri ;\n";
        let (t, errs) =
            Table::parse_files(&[("t.isa", Box::leak(src.to_string().into_boxed_str()))]);
        assert!(errs.is_empty(), "{errs:?}");
        let f = &t.forms[0];
        assert!(t.match_mods(f, &[".rn", ".ftz", ".f32"]).is_some());
        assert!(t.match_mods(f, &[".f32"]).is_some());
        // ptxas accepts modifiers out of the manual's order.
        assert!(t.match_mods(f, &[".ftz", ".rn", ".f32"]).is_some());
        assert!(t.match_mods(f, &[".rn"]).is_none());
        assert!(t.match_mods(f, &[".rn", ".rn", ".f32"]).is_none());
        assert_eq!(primary_type(&t, f, &vec![]), Some(Type::F32));
    }

    #[test]
    fn type_modifiers_keep_their_order() {
        let src = "## cvt\n.dt = { .f32, .s32 };\n.at = { .f32, .s32 };\n.rnd = { .rn, .rz };\ncvt{.rnd}.dt.at d:r.dt, a:r.at ;\n";
        let (t, errs) =
            Table::parse_files(&[("t.isa", Box::leak(src.to_string().into_boxed_str()))]);
        assert!(errs.is_empty(), "{errs:?}");
        let f = &t.forms[0];
        let g = t.groups(f);
        let b = t
            .match_mods(f, &[".f32", ".rn", ".s32"])
            .expect("out-of-order rounding matches");
        let names: Vec<&str> = b
            .iter()
            .map(|(gi, vi)| g[*gi].values[*vi].text.as_str())
            .collect();
        assert_eq!(names, [".rn", ".f32", ".s32"]);
    }
}
