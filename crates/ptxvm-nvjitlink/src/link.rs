//! One link: its options, inputs, logs and output.

use crate::api::*;
use crate::inputs::{self, Piece, Want};
use crate::options::{self, Options};
use crate::real::Session;
use ptxvm_vm::container::Container;
use ptxvm_vm::link::LinkInput;
use std::sync::Arc;

/// The name the PTX that NVIDIA's nvJitLink made from the LTO-IR inputs gets in the link.
pub const LTO_PTX_NAME: &str = "<LTO-IR compiled to PTX by NVIDIA's nvJitLink>";

/// A completed link's output.
pub struct Output {
    /// The linked PTX.
    pub ptx: String,
    /// The ptxvm container (`None` with `-ptx`).
    pub cubin: Option<Vec<u8>>,
}

impl Output {
    pub fn cubin_bytes(&self) -> R<&[u8]> {
        self.cubin.as_deref().ok_or_else(|| {
            fail(
                NVJITLINK_ERROR_INTERNAL,
                "the link was made with -ptx: there is no cubin",
            )
        })
    }
}

enum State {
    Open,
    Done(Output),
    Failed,
}

pub struct Link {
    opts: Option<Options>,
    ptx: Vec<LinkInput>,
    /// Inputs that are not NVVM IR (with `-ptx`, NVIDIA's library refuses them).
    non_nvvm: Vec<String>,
    /// NVIDIA's link of the NVVM IR inputs.
    nvvm: Option<Session>,
    nvvm_inputs: usize,
    pub error_log: String,
    pub info_log: String,
    state: State,
}

impl Link {
    /// A link with these options; the result is `nvJitLinkCreate`'s (the link exists either
    /// way, holding the error log).
    pub fn new(opts: &[String]) -> (Link, R) {
        let mut l = Link {
            opts: None,
            ptx: Vec::new(),
            non_nvvm: Vec::new(),
            nvvm: None,
            nvvm_inputs: 0,
            error_log: String::new(),
            info_log: String::new(),
            state: State::Open,
        };
        let r = match options::parse(opts) {
            Ok(o) => {
                l.opts = Some(o);
                Ok(())
            }
            Err(e) => {
                l.error(&e.msg);
                Err(fail(e.code, e.msg))
            }
        };
        (l, r)
    }

    /// Appends a line (or lines) to the error log.
    pub fn error(&mut self, msg: &str) {
        push_line(&mut self.error_log, msg);
    }

    pub fn info(&mut self, msg: &str) {
        push_line(&mut self.info_log, msg);
    }

    fn opts(&self) -> R<&Options> {
        self.opts.as_ref().ok_or_else(|| {
            fail(
                NVJITLINK_ERROR_INVALID_INPUT,
                "the link's options were refused at nvJitLinkCreate",
            )
        })
    }

    fn open(&mut self, what: &str) -> R {
        if matches!(self.state, State::Open) {
            return Ok(());
        }
        self.error(&format!("ERROR: {what} after nvJitLinkComplete"));
        Err(fail(
            NVJITLINK_ERROR_INTERNAL,
            format!("{what} after nvJitLinkComplete"),
        ))
    }

    /// `nvJitLinkAddData`/`AddFile`.
    pub fn add(&mut self, input_type: u32, bytes: &[u8], name: &str) -> R {
        self.open("nvJitLinkAddData")?;
        let o = self.opts()?.clone();
        let want = Want {
            sm: o.sm,
            specific: o.arch_specific,
            prefer_nvvm: o.ptx,
        };
        let pieces = match inputs::pieces(input_type, bytes, name, want) {
            Ok((p, notes)) => {
                for n in notes {
                    self.info(&n);
                }
                p
            }
            Err(e) => {
                self.error(&e.msg);
                return Err(fail(e.code, e.msg));
            }
        };
        for p in pieces {
            match p {
                Piece::Ptx { name, text } => {
                    self.non_nvvm.push(name.clone());
                    self.ptx.push(LinkInput { name, text });
                }
                Piece::Nvvm {
                    name,
                    input_type,
                    bytes,
                } => {
                    if !o.lto {
                        let m = "ERROR 1: LTO-IR input cannot be used without LTO enabled (-lto)";
                        self.error(m);
                        return Err(fail(NVJITLINK_ERROR_LTO_NOT_ENABLED, m));
                    }
                    if self.nvvm.is_none() {
                        match Session::new(&o.forward) {
                            Ok(s) => {
                                if o.verbose {
                                    let l = s.lib();
                                    self.info(&format!(
                                        "ptxvm: compiling LTO-IR to PTX with NVIDIA's nvJitLink {}.{} ({})",
                                        l.version.0,
                                        l.version.1,
                                        l.path.display()
                                    ));
                                }
                                self.nvvm = Some(s);
                            }
                            Err((code, log)) => {
                                let msg = format!("ERROR: {name}: {log}");
                                self.error(&msg);
                                if code == NVJITLINK_ERROR_UNRECOGNIZED_INPUT {
                                    say(&format!("nvJitLink: {msg}"));
                                }
                                return Err(fail(code, msg));
                            }
                        }
                    }
                    let s = self.nvvm.as_mut().expect("created above");
                    let r = s.add(input_type, &bytes, &name);
                    let info = s.new_info_log();
                    self.info(&info);
                    if let Err((code, log)) = r {
                        self.error(&log);
                        return Err(fail(code, log));
                    }
                    self.nvvm_inputs += 1;
                }
            }
        }
        Ok(())
    }

    /// `nvJitLinkComplete`.
    pub fn complete(&mut self) -> R {
        self.open("nvJitLinkComplete")?;
        let o = self.opts()?.clone();
        let t0 = std::time::Instant::now();
        let r = self.finish(&o);
        match r {
            Ok(out) => {
                if o.time {
                    self.info(&format!(
                        "ptxvm: link time = {:.3} ms",
                        t0.elapsed().as_secs_f64() * 1e3
                    ));
                }
                self.state = State::Done(out);
                Ok(())
            }
            Err(e) => {
                self.state = State::Failed;
                Err(e)
            }
        }
    }

    /// The PTX NVIDIA's library made from the NVVM IR inputs, if any.
    fn nvvm_ptx(&mut self) -> R<Option<String>> {
        let Some(s) = self.nvvm.as_mut() else {
            return Ok(None);
        };
        let r = s.complete();
        let info = s.new_info_log();
        self.info(&info);
        match r {
            Ok(ptx) => Ok(Some(ptx)),
            Err((code, log)) => {
                self.error(&log);
                Err(fail(code, log))
            }
        }
    }

    fn finish(&mut self, o: &Options) -> R<Output> {
        if o.ptx {
            if let Some(first) = self.non_nvvm.first() {
                let m = format!(
                    "ERROR: -ptx requires that all inputs have LTOIR ({first} is not LTO-IR)"
                );
                self.error(&m);
                return Err(fail(NVJITLINK_ERROR_INCORRECT_INPUT_TYPE, m));
            }
            let ptx = self.nvvm_ptx()?.unwrap_or_else(|| empty_module(o));
            return Ok(Output { ptx, cubin: None });
        }
        let mut inputs = std::mem::take(&mut self.ptx);
        if self.nvvm.is_some() && !inputs.is_empty() {
            self.keep_ptx_references(&inputs, o);
        }
        if let Some(ptx) = self.nvvm_ptx()? {
            inputs.push(LinkInput {
                name: LTO_PTX_NAME.into(),
                text: ptx,
            });
        }
        let linked = if inputs.is_empty() {
            empty_module(o)
        } else {
            match ptxvm_vm::link::link_ptx(&inputs) {
                Ok(t) => t,
                Err(e) => {
                    let m = format!("error   : {e}\nERROR 9: complete");
                    self.error(&m);
                    return Err(fail(NVJITLINK_ERROR_INTERNAL, e));
                }
            }
        };
        let linked = match o.maxrregcount {
            Some(n) => with_maxnreg(&linked, n),
            None => linked,
        };
        let target = o.target();
        let copts = ptxvm_vm::CheckOptions {
            arch: Some((o.sm, o.arch_specific)),
        };
        let checked = match ptxvm_vm::check_ptx_with("<linked>", &linked, &copts) {
            Ok(c) => Arc::new(c),
            Err(e) => {
                // Report the errors where they are in the inputs, when an input alone has
                // them (the linked module's lines are not the inputs').
                let mut m: Vec<String> = inputs
                    .iter()
                    .filter_map(|i| ptxvm_vm::check_ptx_with(&i.name, &i.text, &copts).err())
                    .map(|e| ptxas_log(&e))
                    .collect();
                if m.is_empty() {
                    m.push(ptxas_log(&e));
                }
                let m = m.join("\n");
                self.error(&m);
                return Err(fail(NVJITLINK_ERROR_PTX_COMPILE, m));
            }
        };
        let model = ptxvm_vm::arch::model(&target).unwrap_or(ptxvm_vm::arch::default_model());
        let c = match Container::describe(&linked, &target, &checked, model) {
            Ok(c) => c,
            Err(e) => {
                let m = format!("ptxas fatal   : {e}");
                self.error(&m);
                return Err(fail(NVJITLINK_ERROR_INTERNAL, m));
            }
        };
        if o.verbose {
            self.info(&format!(
                "ptxvm: linked {} PTX input(s){} into a ptxvm container for {target}",
                inputs.len(),
                if self.nvvm_inputs > 0 {
                    format!(" (one of them from {} LTO-IR input(s))", self.nvvm_inputs)
                } else {
                    String::new()
                }
            ));
            for k in &c.kernels {
                self.info(&format!(
                    "ptxas info    : Compiling entry function '{}' for '{target}'\nptxas info    : Function properties for {}\nptxas         .     {} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\nptxas info    : Used {} registers, {} bytes smem, {} bytes cmem[0]",
                    k.name,
                    k.name,
                    k.local,
                    k.regs,
                    k.shared,
                    k.params.iter().map(|p| p.0 + p.1).max().unwrap_or(0)
                ));
            }
        }
        Ok(Output {
            cubin: Some(c.to_elf()),
            ptx: linked,
        })
    }

    /// NVIDIA's LTO keeps only what the LTO-IR inputs and the kernels use: a function that
    /// only a PTX input calls (a numba-cuda kernel compiled with `debug=True` is PTX, calling
    /// `cuda.declare_device` functions linked as LTO-IR) would be dropped, where NVIDIA's
    /// nvJitLink, which sees the PTX's references, keeps it. So the NVIDIA link gets one more
    /// LTO-IR input, compiled by NVIDIA's NVRTC: a kernel that takes the address of every
    /// function and variable the PTX inputs declare `.extern` and do not define. If that
    /// fails, the link goes on without it (and reports the undefined reference if there is
    /// one).
    fn keep_ptx_references(&mut self, inputs: &[LinkInput], o: &Options) {
        let (funcs, vars) = undefined_externs(inputs);
        if funcs.is_empty() && vars.is_empty() {
            return;
        }
        let mut src = String::from("extern \"C\" {\n");
        for f in &funcs {
            src.push_str(&format!("__device__ void {f}(void);\n"));
        }
        for v in &vars {
            src.push_str(&format!("extern __device__ char {v};\n"));
        }
        src.push_str("__global__ void __ptxvm_keep_lto_symbols(void **out) {\n");
        for (i, n) in funcs.iter().chain(&vars).enumerate() {
            src.push_str(&format!("  out[{i}] = (void *)&{n};\n"));
        }
        src.push_str("}\n}\n");
        let arch = format!("compute_{}", o.target().trim_start_matches("sm_"));
        let names = funcs
            .iter()
            .chain(&vars)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        let r = crate::real::nvrtc_ltoir(&src, &arch).and_then(|lto| {
            let s = self.nvvm.as_mut().ok_or("no NVIDIA link")?;
            s.add(
                NVJITLINK_INPUT_LTOIR,
                &lto,
                "<ptxvm: LTO-IR symbols used by PTX inputs>",
            )
            .map_err(|(_, log)| log)
        });
        match r {
            Ok(()) if o.verbose => self.info(&format!(
                "ptxvm: kept {names} in the LTO-IR link for the PTX inputs that use them"
            )),
            Ok(()) => {}
            Err(e) => self.info(&format!(
                "ptxvm: could not ask NVIDIA's LTO to keep {names} for the PTX inputs: {e}"
            )),
        }
    }

    /// What the link did, for `PTXVM_LOG=api` traces: its inputs and output.
    pub fn summary(&self) -> String {
        let mut s = format!("{} PTX input(s)", self.non_nvvm.len());
        if self.nvvm_inputs > 0 {
            s.push_str(&format!(
                ", {} NVVM IR input(s) compiled to PTX by NVIDIA's nvJitLink",
                self.nvvm_inputs
            ));
            if let Some(l) = self.nvvm.as_ref().map(Session::lib) {
                s.push_str(&format!(
                    " {}.{} ({})",
                    l.version.0,
                    l.version.1,
                    l.path.display()
                ));
            }
        }
        match self.output() {
            Some(Output {
                cubin: Some(c),
                ptx,
            }) => s.push_str(&format!(
                " -> a ptxvm container of {} bytes ({} bytes of PTX)",
                c.len(),
                ptx.len()
            )),
            Some(Output { cubin: None, ptx }) => {
                s.push_str(&format!(" -> {} bytes of PTX (-ptx)", ptx.len()))
            }
            None => {}
        }
        s
    }

    /// The output of a successful `nvJitLinkComplete`.
    pub fn output(&self) -> Option<&Output> {
        match &self.state {
            State::Done(o) => Some(o),
            _ => None,
        }
    }
}

fn push_line(log: &mut String, msg: &str) {
    let msg = msg.trim_end_matches('\0');
    if msg.trim().is_empty() {
        return;
    }
    log.push_str(msg);
    if !msg.ends_with('\n') {
        log.push('\n');
    }
}

/// A module with no code, for a link without inputs (NVIDIA's makes an empty cubin).
fn empty_module(o: &Options) -> String {
    format!(".version 9.0\n.target {}\n.address_size 64\n", o.target())
}

/// A check failure in ptxas's log format (`ptxas <file>, line N; error   : message`).
pub fn ptxas_log(e: &ptxvm_vm::VmError) -> String {
    match e {
        ptxvm_vm::VmError::Invalid(ds) => ds
            .iter()
            .map(|d| format!("ptxas {}, line {}; error   : {}", d.file, d.line, d.message))
            .collect::<Vec<_>>()
            .join("\n"),
        other => format!("ptxas fatal   : {other}"),
    }
}

/// Functions and variables the PTX inputs declare `.extern` and none defines, except the
/// VM's builtins (`vprintf`, `malloc`, ...) and the device runtime's, which no LTO-IR
/// defines; only names that are C identifiers (the stub declaring them is C).
fn undefined_externs(inputs: &[LinkInput]) -> (Vec<String>, Vec<String>) {
    use ptxvm_syntax::ast::Item;
    let mut defined = std::collections::HashSet::new();
    let (mut funcs, mut vars) = (Vec::new(), Vec::new());
    for inp in inputs {
        let (src, _) = ptxvm_syntax::Source::new(&inp.name, inp.text.clone(), None);
        let (ast, _) = ptxvm_syntax::parse(&src);
        let text = |s: ptxvm_syntax::Span| {
            src.text
                .get(s.start as usize..s.end as usize)
                .unwrap_or("")
                .to_string()
        };
        for item in &ast.items {
            match item {
                Item::Func(f) => {
                    let name = text(f.name);
                    if f.body.is_some() {
                        defined.insert(name);
                    } else if f.linkage.map(text).as_deref() == Some(".extern") {
                        funcs.push(name);
                    }
                }
                Item::Var(v) => {
                    // `.extern .shared` is dynamic shared memory, defined by no one.
                    let space = v.space.map(text).unwrap_or_default();
                    let linkable = space.starts_with(".global") || space.starts_with(".const");
                    for d in &v.declarators {
                        let name = text(d.name);
                        if v.linkage.map(text).as_deref() == Some(".extern") {
                            if linkable {
                                vars.push(name);
                            }
                        } else {
                            defined.insert(name);
                        }
                    }
                }
                Item::Directive(_) => {}
            }
        }
    }
    // The VM's own (vprintf, malloc, ...), libdevice's and the device runtime's.
    let builtin = |n: &str| {
        ptxvm_vm::program::Builtin::named(n).is_some()
            || n.starts_with("__nv")
            || n.starts_with("cuda")
            || n.starts_with("__cuda")
    };
    let keep = |n: &String| {
        !defined.contains(n)
            && !builtin(n)
            && n.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let dedup = |v: Vec<String>| {
        let mut out: Vec<String> = v.into_iter().filter(keep).collect();
        out.sort();
        out.dedup();
        out
    };
    (dedup(funcs), dedup(vars))
}

/// `ptx` with `.maxnreg n` on every kernel that has no `.maxnreg` of its own (ptxas's
/// `-maxrregcount`).
fn with_maxnreg(ptx: &str, n: u32) -> String {
    use ptxvm_syntax::ast::{FuncKind, Item};
    let (src, pre) = ptxvm_syntax::Source::new("<linked>", ptx.to_string(), None);
    if src.text != ptx || pre.iter().any(|d| d.is_error()) {
        return ptx.to_string();
    }
    let (ast, _) = ptxvm_syntax::parse(&src);
    let mut at: Vec<usize> = ast
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Func(f) if f.kind == FuncKind::Entry => {
                let body = f.body.as_ref()?;
                let has = f.directives.iter().any(|d| {
                    ptx.get(d.name.start as usize..d.name.end as usize) == Some(".maxnreg")
                });
                (!has).then_some(body.span.start as usize)
            }
            _ => None,
        })
        .collect();
    at.sort_unstable();
    let mut out = ptx.to_string();
    for &i in at.iter().rev() {
        if out.is_char_boundary(i) {
            out.insert_str(i, &format!(".maxnreg {n}\n"));
        }
    }
    out
}
