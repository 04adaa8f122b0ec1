//! Linking PTX modules (`cuLink*`): several modules compiled separately (`-rdc`, NVRTC shims,
//! numba's helper libraries) become one module in which every `.extern` declaration meets
//! its definition.
//!
//! The output is laid out so that every name is declared before it is used, whatever order
//! the inputs came in: the header (the highest `.version` and `.target` of the inputs), then
//! one prototype per function (with its definition's linkage, or `.extern` when no input
//! defines it, as for the `vprintf`/`malloc` builtins), then the module variables, then the
//! function bodies. `.file` indices are renumbered per input (and the `.loc` lines that
//! use them), DWARF `.section`s are dropped. Two strong definitions of one visible name are
//! an error; `.weak` definitions yield to a strong one and `.common` variables merge (the
//! largest wins). Two inputs that both define the same internal (non-`.visible`) name are
//! refused with a clear message rather than silently merged.

use ptxvm_syntax::Source;
use ptxvm_syntax::ast::{DirArg, Item, Stmt};
use std::collections::{HashMap, HashSet};

/// One module to link.
pub struct LinkInput {
    pub name: String,
    pub text: String,
}

struct Parsed {
    src: Source,
    ast: ptxvm_syntax::ast::Module,
}

fn text(src: &Source, span: ptxvm_syntax::Span) -> &str {
    src.text
        .get(span.start as usize..span.end as usize)
        .unwrap_or("")
}

/// `.version` as (major, minor) and `.target` names of a module.
fn header(p: &Parsed) -> (Option<(u32, u32)>, Vec<String>) {
    let mut version = None;
    let mut targets = Vec::new();
    for item in &p.ast.items {
        if let Item::Directive(d) = item {
            match text(&p.src, d.name) {
                ".version" => {
                    let v = d
                        .args
                        .first()
                        .map(|a| match a {
                            DirArg::Expr(e) => text(&p.src, e.span()).to_string(),
                            _ => String::new(),
                        })
                        .unwrap_or_default();
                    let mut it = v.split('.');
                    if let (Some(Ok(a)), Some(Ok(b))) = (
                        it.next().map(str::parse::<u32>),
                        it.next().map(str::parse::<u32>),
                    ) {
                        version = Some((a, b));
                    }
                }
                ".target" => {
                    for a in &d.args {
                        if let DirArg::Name(s) = a {
                            targets.push(text(&p.src, *s).to_string());
                        }
                    }
                }
                _ => {}
            }
        }
    }
    (version, targets)
}

/// The compute capability of an `sm_XX[a|f]` target, for ordering.
fn sm_of(t: &str) -> Option<u32> {
    let d: String = t
        .strip_prefix("sm_")?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    d.parse().ok()
}

fn linkage(p: &Parsed, l: Option<ptxvm_syntax::Span>) -> &str {
    l.map_or("", |s| text(&p.src, s))
}

/// Links PTX modules into one. The error says which symbol or input is the problem (a
/// panic inside is caught and is an error too).
pub fn link_ptx(inputs: &[LinkInput]) -> Result<String, String> {
    crate::error::front_end(|| link_inner(inputs).map_err(crate::error::VmError::Usage)).map_err(
        |e| match e {
            crate::error::VmError::Usage(m) => m,
            other => other.to_string(),
        },
    )
}

fn link_inner(inputs: &[LinkInput]) -> Result<String, String> {
    if inputs.is_empty() {
        return Err("nothing to link: no inputs were added".into());
    }
    let mut parsed = Vec::new();
    for inp in inputs {
        let (src, pre) = Source::new(&inp.name, inp.text.clone(), None);
        let (ast, diags) = ptxvm_syntax::parse(&src);
        if let Some(d) = pre.iter().chain(&diags).find(|d| d.is_error()) {
            let l = src.locate(d.span);
            return Err(format!("{}:{}:{}: {}", inp.name, l.line, l.col, d.message));
        }
        parsed.push(Parsed { src, ast });
    }
    // Header.
    let mut version = (0, 0);
    let mut target: Option<String> = None;
    let mut extra_targets: Vec<String> = Vec::new();
    for p in &parsed {
        let (v, ts) = header(p);
        if let Some(v) = v {
            version = version.max(v);
        }
        for t in ts {
            if sm_of(&t).is_some() {
                let better = match &target {
                    None => true,
                    Some(cur) => {
                        sm_of(&t) > sm_of(cur) || (sm_of(&t) == sm_of(cur) && t.len() > cur.len())
                    }
                };
                if better {
                    target = Some(t);
                }
            } else if !extra_targets.contains(&t) {
                extra_targets.push(t);
            }
        }
    }
    // Definitions: which input defines each function and variable.
    let mut func_def: HashMap<String, (usize, usize)> = HashMap::new();
    let mut var_def: HashMap<String, (usize, usize)> = HashMap::new();
    let mut internal: HashMap<String, usize> = HashMap::new();
    for (k, p) in parsed.iter().enumerate() {
        for (i, item) in p.ast.items.iter().enumerate() {
            let (name, link, defined, is_func) = match item {
                Item::Func(f) => (
                    text(&p.src, f.name).to_string(),
                    linkage(p, f.linkage),
                    f.body.is_some(),
                    true,
                ),
                Item::Var(v) => {
                    let Some(d) = v.declarators.first() else {
                        continue;
                    };
                    let l = linkage(p, v.linkage);
                    (text(&p.src, d.name).to_string(), l, l != ".extern", false)
                }
                Item::Directive(_) => continue,
            };
            if !defined {
                continue;
            }
            let table = if is_func { &mut func_def } else { &mut var_def };
            if link != ".visible" && link != ".weak" && link != ".common" {
                if let Some(&other) = internal.get(&name)
                    && other != k
                {
                    return Err(format!(
                        "`{name}` is an internal symbol of both `{}` and `{}`: ptxvm's linker does not rename internal symbols yet",
                        inputs[other].name, inputs[k].name
                    ));
                }
                internal.insert(name.clone(), k);
            }
            match table.get(&name).copied() {
                None => {
                    table.insert(name, (k, i));
                }
                Some((pk, pi)) => {
                    let prev = &parsed[pk];
                    let prev_link = match &prev.ast.items[pi] {
                        Item::Func(f) => linkage(prev, f.linkage),
                        Item::Var(v) => linkage(prev, v.linkage),
                        Item::Directive(_) => "",
                    };
                    match (prev_link, link) {
                        (".weak", l) if l != ".weak" => {
                            table.insert(name, (k, i));
                        }
                        (_, ".weak") => {}
                        (".common", ".common") => {
                            let size = |p: &Parsed, i: usize| match &p.ast.items[i] {
                                Item::Var(v) => v.span.end - v.span.start,
                                _ => 0,
                            };
                            // Keep the declaration with the larger array (a textual proxy:
                            // numba's `.common` variables are identical in every input).
                            if size(p, i) > size(prev, pi) {
                                table.insert(name, (k, i));
                            }
                        }
                        _ => {
                            return Err(format!(
                                "multiple definitions of `{name}`: in `{}` and in `{}`",
                                inputs[pk].name, inputs[k].name
                            ));
                        }
                    }
                }
            }
        }
    }
    // Every function that is called but defined nowhere must be one the VM provides.
    for (k, p) in parsed.iter().enumerate() {
        for item in &p.ast.items {
            match item {
                Item::Func(f) if f.body.is_none() => {
                    let name = text(&p.src, f.name);
                    if !func_def.contains_key(name)
                        && crate::program::Builtin::named(name).is_none()
                    {
                        return Err(format!(
                            "undefined reference to function `{name}` in `{}`",
                            inputs[k].name
                        ));
                    }
                }
                Item::Var(v) if linkage(p, v.linkage) == ".extern" => {
                    let shared = v
                        .space
                        .is_some_and(|s| text(&p.src, s).starts_with(".shared"));
                    if let Some(d) = v.declarators.first()
                        && !shared
                        && !var_def.contains_key(text(&p.src, d.name))
                    {
                        return Err(format!(
                            "undefined reference to variable `{}` in `{}`",
                            text(&p.src, d.name),
                            inputs[k].name
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = String::new();
    out.push_str(&format!(
        "//\n// Linked by ptxvm from {} module(s): {}\n//\n\n.version {}.{}\n",
        inputs.len(),
        inputs
            .iter()
            .map(|i| i.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        version.0,
        version.1
    ));
    let mut tl = target.unwrap_or_else(|| "sm_52".into());
    // `debug` promises DWARF sections, which the output does not carry (they are dropped).
    for t in extra_targets.into_iter().filter(|t| t != "debug") {
        tl.push_str(", ");
        tl.push_str(&t);
    }
    out.push_str(&format!(".target {tl}\n.address_size 64\n\n"));
    // `.file` renumbering: input k's index n becomes base_k + n.
    let mut file_base = Vec::new();
    let mut next_base = 0u64;
    for p in &parsed {
        file_base.push(next_base);
        let mut max = 0u64;
        for item in &p.ast.items {
            if let Item::Directive(d) = item
                && text(&p.src, d.name) == ".file"
                && let Some(DirArg::Expr(e)) = d.args.first()
            {
                max = max.max(text(&p.src, e.span()).parse().unwrap_or(0));
            }
        }
        next_base += max + 1;
    }
    for (k, p) in parsed.iter().enumerate() {
        for item in &p.ast.items {
            if let Item::Directive(d) = item
                && text(&p.src, d.name) == ".file"
            {
                let mut s = text(&p.src, d.span).to_string();
                if let Some(DirArg::Expr(e)) = d.args.first() {
                    let n: u64 = text(&p.src, e.span()).parse().unwrap_or(0);
                    let rel = (e.span().start - d.span.start) as usize;
                    let len = (e.span().end - e.span().start) as usize;
                    s.replace_range(rel..rel + len, &(file_base[k] + n).to_string());
                }
                out.push_str(s.trim_end_matches(';'));
                out.push('\n');
            }
        }
    }
    out.push('\n');
    // Prototypes.
    let mut seen: HashSet<String> = HashSet::new();
    for (k, p) in parsed.iter().enumerate() {
        for (i, item) in p.ast.items.iter().enumerate() {
            let Item::Func(f) = item else { continue };
            let name = text(&p.src, f.name).to_string();
            if !seen.insert(name.clone()) {
                continue;
            }
            let (dk, di) = func_def.get(&name).copied().unwrap_or((k, i));
            let dp = &parsed[dk];
            let Item::Func(df) = &dp.ast.items[di] else {
                continue;
            };
            let end = df.body.as_ref().map_or(df.span.end, |b| b.span.start);
            let mut proto = dp
                .src
                .text
                .get(df.span.start as usize..end as usize)
                .unwrap_or("")
                .trim_end()
                .trim_end_matches(';')
                .to_string();
            // Performance directives belong to the definition only.
            if let Some(first) = df.directives.first()
                && df.body.is_some()
            {
                proto.truncate((first.span.start - df.span.start) as usize);
            }
            out.push_str(proto.trim_end());
            out.push_str(";\n");
        }
    }
    out.push('\n');
    // Variables.
    let mut seen_vars: HashSet<String> = HashSet::new();
    for (k, p) in parsed.iter().enumerate() {
        for (i, item) in p.ast.items.iter().enumerate() {
            let Item::Var(v) = item else { continue };
            let Some(d) = v.declarators.first() else {
                continue;
            };
            let name = text(&p.src, d.name).to_string();
            let keep = match var_def.get(&name) {
                Some(&(dk, di)) => dk == k && di == i,
                // Declared everywhere, defined nowhere: `.extern .shared` dynamic shared
                // memory, or an unresolved reference the checker will report.
                None => seen_vars.insert(name.clone()),
            };
            if keep {
                out.push_str(text(&p.src, v.span).trim_end_matches(';'));
                out.push_str(";\n");
            }
        }
    }
    out.push('\n');
    // Function bodies, with `.loc` file indices renumbered.
    for (k, p) in parsed.iter().enumerate() {
        for (i, item) in p.ast.items.iter().enumerate() {
            let Item::Func(f) = item else { continue };
            let Some(body) = &f.body else { continue };
            let name = text(&p.src, f.name).to_string();
            if func_def.get(&name) != Some(&(k, i)) {
                continue;
            }
            let mut edits: Vec<(usize, usize, String)> = Vec::new();
            collect_loc_edits(
                p,
                &body.stmts,
                file_base[k],
                f.span.start as usize,
                &mut edits,
            );
            let mut s = text(&p.src, f.span).to_string();
            edits.sort_by_key(|e| std::cmp::Reverse(e.0));
            for (at, len, new) in edits {
                if at + len <= s.len() {
                    s.replace_range(at..at + len, &new);
                }
            }
            out.push_str(&s);
            out.push_str("\n\n");
        }
    }
    // Aliases and other top-level directives that name functions come last.
    for p in &parsed {
        for item in &p.ast.items {
            if let Item::Directive(d) = item
                && text(&p.src, d.name) == ".alias"
            {
                out.push_str(text(&p.src, d.span).trim_end_matches(';'));
                out.push_str(";\n");
            }
        }
    }
    Ok(out)
}

fn collect_loc_edits(
    p: &Parsed,
    stmts: &[Stmt],
    base: u64,
    origin: usize,
    edits: &mut Vec<(usize, usize, String)>,
) {
    for s in stmts {
        match s {
            Stmt::Directive(d) if text(&p.src, d.name) == ".loc" => {
                if let Some(DirArg::Expr(e)) = d.args.first() {
                    let n: u64 = text(&p.src, e.span()).parse().unwrap_or(0);
                    let at = e.span().start as usize - origin;
                    let len = (e.span().end - e.span().start) as usize;
                    edits.push((at, len, (base + n).to_string()));
                }
            }
            Stmt::Block(b) => collect_loc_edits(p, &b.stmts, base, origin, edits),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.file 1 "a.cu"
.extern .func (.param .b32 r) foo (.param .b32 x);
.extern .global .align 4 .u32 gv;
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  .loc 1 3 0
  ld.param.u64 %rd1, [out];
  ld.global.u32 %r1, [gv];
  {
  .param .b32 p0;
  .param .b32 r0;
  st.param.b32 [p0], %r1;
  call.uni (r0), foo, (p0);
  ld.param.b32 %r2, [r0];
  }
  st.global.u32 [%rd1], %r2;
  ret;
}
"#;
    const B: &str = r#"
.version 8.3
.target sm_80
.address_size 64
.file 1 "b.cu"
.visible .global .align 4 .u32 gv = 41;
.visible .func (.param .b32 r) foo (.param .b32 x)
{
  .reg .b32 %r<3>;
  .loc 1 7 0
  ld.param.b32 %r1, [x];
  add.s32 %r2, %r1, 1;
  st.param.b32 [r], %r2;
  ret;
}
"#;

    fn inputs(v: &[(&str, &str)]) -> Vec<LinkInput> {
        v.iter()
            .map(|(n, t)| LinkInput {
                name: n.to_string(),
                text: t.to_string(),
            })
            .collect()
    }

    #[test]
    fn extern_declarations_meet_their_definitions() {
        let out = link_ptx(&inputs(&[("a.ptx", A), ("b.ptx", B)])).unwrap();
        assert!(out.contains(".version 8.3"), "{out}");
        assert!(out.contains(".file 3 \"b.cu\""), "{out}");
        assert!(out.contains(".loc 3 7 0"), "{out}");
        let dev = crate::Device::new();
        let m = dev
            .load_ptx("linked.ptx", &out)
            .map_err(|e| format!("{e}\n{out}"))
            .unwrap();
        let buf = dev.malloc(4).unwrap();
        let mut st = crate::Stats::default();
        dev.launch(
            m,
            "k",
            &crate::LaunchConfig::default(),
            &[&buf.to_le_bytes()],
            &mut st,
        )
        .unwrap();
        assert_eq!(dev.read(buf, 4).unwrap(), 42u32.to_le_bytes());
        // The order of the inputs does not matter.
        let out2 = link_ptx(&inputs(&[("b.ptx", B), ("a.ptx", A)])).unwrap();
        assert!(
            crate::Device::new().load_ptx("linked2.ptx", &out2).is_ok(),
            "{out2}"
        );
    }

    #[test]
    fn debug_inputs_link_into_a_module_without_debug_info() {
        let a = A.replace(".target sm_80", ".target sm_80, debug")
            + "\n.section .debug_abbrev\n{\n.b8 0\n}\n";
        let out = link_ptx(&inputs(&[("a.ptx", &a), ("b.ptx", B)])).unwrap();
        assert!(out.contains(".target sm_80\n"), "{out}");
        assert!(!out.contains(".debug_abbrev"), "{out}");
        assert!(crate::check_ptx("linked.ptx", &out).is_ok(), "{out}");
    }

    #[test]
    fn duplicate_definitions_are_refused() {
        let e = link_ptx(&inputs(&[("b1.ptx", B), ("b2.ptx", B)])).unwrap_err();
        assert!(
            e.contains("multiple definitions of `gv`")
                || e.contains("multiple definitions of `foo`"),
            "{e}"
        );
        assert!(link_ptx(&[]).is_err());
        let e = link_ptx(&inputs(&[("a.ptx", A)])).unwrap_err();
        assert!(
            e.contains("undefined reference to function `foo` in `a.ptx`"),
            "{e}"
        );
    }
}
