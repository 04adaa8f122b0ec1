#!/usr/bin/env python3
"""Generate the CUDA driver API tables of crate ptxvm-cuda from NVIDIA's headers.

Usage:
    gen_driver_tables.py [INCLUDE_DIR] [--check] [--dump]

INCLUDE_DIR holds cuda.h, cudaTypedefs.h and the companion headers (cudaGL.h,
cudaEGL.h, cudaVDPAU.h, cudaProfiler.h and their *Typedefs.h). By default it is
site-packages/nvidia/cu13/include of the Python running this script, then the
project's dev venv.

Writes crates/ptxvm-cuda/src/generated/{mod,errors,procaddr,stubs}.rs:

* errors.rs: every CUresult enumerator of cuda.h, with its name and a short
  description (the first sentence of the header's doc comment).
* procaddr.rs: for every API named by a `PFN_<api>_v<version>[_ptds|_ptsz]`
  typedef, its ABI revisions and the exported symbol each revision is.
* stubs.rs: a stub for every exported driver symbol the crate does not implement.

--check regenerates in memory and exits 1 if a committed file differs.
--dump prints the revision table (one API per line) instead of writing.

How a typedef revision is mapped to an exported symbol:

1. The headers are run through a small C preprocessor in three configurations:
   a user build, a user build with CUDA_API_PER_THREAD_DEFAULT_STREAM, and
   NVIDIA's own build (__CUDA_API_VERSION_INTERNAL, which turns on the per-thread
   macros and the section that #undefs the `#define cuX cuX_v2` macros and
   declares the legacy entry points). Every `CUresult CUDAAPI name(...)`
   declaration, with `name` macro-expanded (`#define cuMemcpyHtoD
   __CUDA_API_PTDS(cuMemcpyHtoD_v2)` gives cuMemcpyHtoD_v2 or
   cuMemcpyHtoD_v2_ptds), is an exported symbol. The union over the three
   configurations is the driver's symbol set.
2. The exported symbols of API `A` without a per-thread suffix form the family
   A, A_v2, A_v3, ... The typedef revisions of A without suffix, sorted by
   version, are the same family in the same order: the k-th revision is the k-th
   symbol (cuCtxCreate v2000/v3020/v11040/v12050 = cuCtxCreate/_v2/_v3/_v4).
   The generator fails if the counts differ.
3. A `PFN_A_v<V>_ptds` (or `_ptsz`) typedef is the per-thread form of the
   revision of A current at version V, with that suffix
   (PFN_cuMemcpyHtoD_v7000_ptds: the v3020 revision cuMemcpyHtoD_v2, so
   cuMemcpyHtoD_v2_ptds). The symbol must have been declared in step 1.
4. Every mapping is checked by comparing the typedef's parameter types with
   the declaration's after resolving plain `typedef T U;` aliases (CUdevice ->
   CUdevice_v1 -> int); the generator fails on a mismatch.

Standard library only; the output is deterministic (sorted, no timestamps,
no paths).
"""

from __future__ import annotations

import re
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CRATE = REPO / "crates" / "ptxvm-cuda"
SRC = CRATE / "src"
OUT = SRC / "generated"

# Implemented in parallel elsewhere in the crate; never stubbed even before they exist.
ALWAYS_IMPLEMENTED = [
    "cuDriverGetVersion",
    "cuGetErrorName",
    "cuGetErrorString",
    "cuGetExportTable",
    "cuGetProcAddress",
    "cuGetProcAddress_v2",
    "cuInit",
]

# (declarations, typedefs); the companion pairs are skipped (with a warning) when absent.
HEADER_PAIRS = [
    ("cuda.h", "cudaTypedefs.h"),
    ("cudaGL.h", "cudaGLTypedefs.h"),
    ("cudaEGL.h", "cudaEGLTypedefs.h"),
    ("cudaVDPAU.h", "cudaVDPAUTypedefs.h"),
    ("cudaProfiler.h", "cudaProfilerTypedefs.h"),
]

# Predefined macros of an x86-64 Linux gcc build.
PLATFORM = {"__linux__": "1", "__LP64__": "1", "__GNUC__": "12", "__x86_64__": "1"}
CONFIGS = {
    "user": {},
    "user-ptds": {"CUDA_API_PER_THREAD_DEFAULT_STREAM": "1"},
    "internal": {"__CUDA_API_VERSION_INTERNAL": "1"},
}


class GenError(Exception):
    pass


# ---------------------------------------------------------------------------
# A small C preprocessor: comments, line splices, conditionals, #define/#undef.


def strip_comments(text: str) -> str:
    """Remove /* */ and // comments (keeping newlines) outside string literals."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            if j < 0:
                raise GenError("unterminated comment")
            out.append("\n" * text.count("\n", i, j) + " ")
            i = j + 2
        elif c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


@dataclass
class Macro:
    params: list[str] | None  # None: object-like
    body: str


def eval_condition(expr: str, macros: dict[str, Macro], where: str) -> bool:
    expr = re.sub(
        r"\bdefined\s*(?:\(\s*(\w+)\s*\)|(\w+))",
        lambda m: "1" if (m.group(1) or m.group(2)) in macros else "0",
        expr,
    )

    def ident(m: re.Match) -> str:
        name = m.group(0)
        mac = macros.get(name)
        if mac is not None and mac.params is None and re.fullmatch(r"\s*\d+\s*", mac.body):
            return mac.body.strip()
        return "0"

    expr = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", expr)
    expr = re.sub(r"\b[A-Za-z_]\w*\b", ident, expr)
    expr = expr.replace("&&", " and ").replace("||", " or ")
    expr = re.sub(r"!(?!=)", " not ", expr)
    if not re.fullmatch(r"[\s\w()<>=!+\-*/%]*", expr):
        raise GenError(f"{where}: cannot evaluate #if {expr!r}")
    try:
        return bool(eval(expr, {"__builtins__": {}}, {}))  # noqa: S307 - checked above
    except Exception as e:  # pragma: no cover - header syntax we do not expect
        raise GenError(f"{where}: cannot evaluate #if {expr!r}: {e}") from e


def expand_name(name: str, macros: dict[str, Macro], hide: frozenset = frozenset()) -> str:
    """Macro-expand a declared function name (object-like macros and the
    one-parameter token-pasting macros __CUDA_API_PTDS/__CUDA_API_PTSZ). As in C,
    a macro is not expanded again inside its own expansion."""
    mac = macros.get(name)
    if mac is None or mac.params is not None or name in hide:
        return name
    hide = hide | {name}
    body = mac.body.strip()
    if re.fullmatch(r"\w+", body):
        return expand_name(body, macros, hide)
    m = re.fullmatch(r"(\w+)\s*\(\s*(\w+)\s*\)", body)
    if m:
        fn = macros.get(m.group(1))
        if fn is None or fn.params is None or len(fn.params) != 1:
            raise GenError(f"cannot expand {name} -> {body}")
        p = fn.params[0]
        # As in C, an argument that is an operand of ## is pasted unexpanded.
        pasted = re.search(rf"(##\s*\b{p}\b|\b{p}\b\s*##)", fn.body)
        arg = m.group(2) if pasted else expand_name(m.group(2), macros, hide)
        out = re.sub(rf"\b{p}\b", arg, fn.body)
        out = re.sub(r"\s*##\s*", "", out).strip()
        if not re.fullmatch(r"\w+", out):
            raise GenError(f"cannot expand {name} -> {body} -> {out}")
        return expand_name(out, macros, hide)
    return name  # attributes and the like: not a function-name macro


def matching_paren(text: str, open_idx: int) -> int:
    depth = 0
    for i in range(open_idx, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


@dataclass
class Decl:
    symbol: str  # exported name after macro expansion
    params: str
    header: str


@dataclass
class Typedef:
    name: str  # without PFN_
    params: str
    header: str


DECL_RE = re.compile(r"\bCUresult\s+CUDAAPI\s+(\w+)\s*\(")
TYPEDEF_RE = re.compile(r"\btypedef\s+CUresult\s*\(\s*CUDAAPI\s*\*\s*(PFN_\w+)\s*\)\s*\(")


def preprocess(path: Path, config: dict[str, str]):
    """Yield (kind, value) for the active code of one header: ("code", text) chunks
    between directives, each with the macro table in effect."""
    raw = path.read_text(encoding="utf-8", errors="replace")
    text = strip_comments(raw).replace("\\\n", " ")
    macros: dict[str, Macro] = {k: Macro(None, v) for k, v in {**PLATFORM, **config}.items()}
    # stack of (this_branch_active, some_branch_taken, parent_active)
    stack: list[tuple[bool, bool, bool]] = []
    active = True
    chunk: list[str] = []
    for lineno, line in enumerate(text.split("\n"), 1):
        where = f"{path.name}:{lineno}"
        m = re.match(r"\s*#\s*(\w+)\s*(.*)$", line)
        if not m:
            if active:
                chunk.append(line)
            continue
        if chunk:
            yield "\n".join(chunk), macros
            chunk = []
        d, rest = m.group(1), m.group(2).strip()
        if d in ("if", "ifdef", "ifndef"):
            if not active:
                stack.append((False, True, False))
            else:
                if d == "ifdef":
                    cond = rest.split()[0] in macros
                elif d == "ifndef":
                    cond = rest.split()[0] not in macros
                else:
                    cond = eval_condition(rest, macros, where)
                stack.append((cond, cond, True))
            active = stack[-1][0]
        elif d == "elif":
            if not stack:
                raise GenError(f"{where}: #elif without #if")
            _, taken, parent = stack[-1]
            cond = parent and not taken and eval_condition(rest, macros, where)
            stack[-1] = (cond, taken or cond, parent)
            active = cond
        elif d == "else":
            if not stack:
                raise GenError(f"{where}: #else without #if")
            _, taken, parent = stack[-1]
            stack[-1] = (parent and not taken, True, parent)
            active = stack[-1][0]
        elif d == "endif":
            if not stack:
                raise GenError(f"{where}: #endif without #if")
            stack.pop()
            active = stack[-1][0] if stack else True
        elif not active:
            continue
        elif d == "define":
            dm = re.match(r"(\w+)(\(([^)]*)\))?\s*(.*)$", rest)
            if not dm:
                raise GenError(f"{where}: bad #define")
            params = None
            if dm.group(2) is not None:
                params = [p.strip() for p in dm.group(3).split(",") if p.strip()]
            macros[dm.group(1)] = Macro(params, dm.group(4))
        elif d == "undef":
            macros.pop(rest.split()[0], None)
        # #include, #error (inactive only), #pragma: nothing to do
    if stack:
        raise GenError(f"{path.name}: unterminated #if")
    if chunk:
        yield "\n".join(chunk), macros


def scan_header(path: Path, config: dict[str, str]):
    decls: list[Decl] = []
    typedefs: list[Typedef] = []
    aliases: dict[str, str] = {}
    for code, macros in preprocess(path, config):
        for rx, kind in ((DECL_RE, "decl"), (TYPEDEF_RE, "typedef")):
            for m in rx.finditer(code):
                close = matching_paren(code, m.end() - 1)
                if close < 0:
                    raise GenError(f"{path.name}: unbalanced parameters of {m.group(1)}")
                params = code[m.end() : close]
                if kind == "decl":
                    decls.append(Decl(expand_name(m.group(1), macros), params, path.name))
                else:
                    # 12.x headers spell some as `#define PFN_cuX PFN_cuX_v12040`.
                    name = expand_name(m.group(1), macros).removeprefix("PFN_")
                    typedefs.append(Typedef(name, params, path.name))
        for m in re.finditer(r"\btypedef\s+((?:\w+\s+)*?\w+)\s+(\w+)\s*;", code):
            aliases[m.group(2)] = " ".join(m.group(1).split())
    return decls, typedefs, aliases


# ---------------------------------------------------------------------------
# Signatures


def canonical_params(params: str, aliases: dict[str, str]) -> list[str]:
    parts, depth, cur = [], 0, []
    for c in params:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    out = []
    for p in parts:
        toks = re.findall(r"\w+|\*|\[|\]|\(|\)", p)
        toks = [t for t in toks if t not in ("const", "CUDAAPI", "struct", "enum")]
        if not toks:
            continue
        words = [t for t in toks if re.fullmatch(r"\w+", t)]
        if toks[-1] == "]":  # name[]
            i = len(toks) - 1
            while toks[i] != "[":
                i -= 1
            toks = toks[: i - 1] + ["*"]
        elif len(words) > 1 and re.fullmatch(r"[A-Za-z_]\w*", toks[-1]) and toks[-1] not in (
            "int",
            "long",
            "short",
            "char",
            "unsigned",
            "signed",
        ):
            toks = toks[:-1]  # drop the parameter name
        res = []
        for t in toks:
            seen = 0
            while t in aliases and seen < 16:
                t = aliases[t]
                seen += 1
            res.append(t)
        out.append(" ".join(res))
    if out == ["void"]:
        out = []
    return out


# ---------------------------------------------------------------------------
# Model


@dataclass
class Api:
    name: str
    normal: list[tuple[int, str]] = field(default_factory=list)  # (version, symbol)
    per_thread: list[tuple[int, str]] = field(default_factory=list)


TD_NAME_RE = re.compile(r"^(cu\w+?)_v(\d+)(?:_(ptds|ptsz))?$")
FAMILY_RE = re.compile(r"^(cu\w+?)(?:_v(\d+))?$")


def build(include: Path):
    decls: dict[str, list[Decl]] = {}
    typedefs: dict[str, Typedef] = {}
    aliases: dict[str, str] = {}
    headers = []
    for i, pair in enumerate(HEADER_PAIRS):
        missing = [h for h in pair if not (include / h).exists()]
        if missing and i == 0:
            raise GenError(f"missing {', '.join(missing)} in {include}")
        if missing:
            print(f"gen_driver_tables: warning: no {', '.join(missing)}; skipping {pair}", file=sys.stderr)
            continue
        headers.extend(pair)
    for header in headers:
        path = include / header
        for config in CONFIGS.values():
            d, t, a = scan_header(path, config)
            for decl in d:
                decls.setdefault(decl.symbol, []).append(decl)
            for td in t:
                typedefs.setdefault(td.name, td)
            for k, v in a.items():
                if k != v:
                    aliases.setdefault(k, v)
    symbols = sorted(decls)
    symbol_set = set(symbols)

    # Typedef revisions per API.
    revs: dict[str, dict[str, list[tuple[int, str]]]] = {}
    for td_name in typedefs:
        m = TD_NAME_RE.match(td_name)
        if not m:
            raise GenError(f"typedef PFN_{td_name} does not name an API revision")
        api, ver, sfx = m.group(1), int(m.group(2)), m.group(3) or ""
        revs.setdefault(api, {}).setdefault(sfx, []).append((ver, td_name))

    # Families of exported symbols without a per-thread suffix.
    families: dict[str, list[tuple[int, str]]] = {}
    for s in symbols:
        if s.endswith("_ptds") or s.endswith("_ptsz"):
            continue
        m = FAMILY_RE.match(s)
        if m:
            families.setdefault(m.group(1), []).append((int(m.group(2) or 1), s))

    def check_signature(td_name: str, symbol: str) -> None:
        want = canonical_params(typedefs[td_name].params, aliases)
        for decl in decls[symbol]:
            if canonical_params(decl.params, aliases) == want:
                return
        got = canonical_params(decls[symbol][0].params, aliases)
        raise GenError(f"PFN_{td_name} {want} does not match {symbol} {got}")

    apis: list[Api] = []
    for name in sorted(revs):
        by_sfx = revs[name]
        normal = sorted(by_sfx.get("", []))
        fam = sorted(families.get(name, []))
        if [r for r, _ in fam] != list(range(1, len(fam) + 1)):
            raise GenError(f"{name}: exported revisions are not contiguous: {fam}")
        if len(normal) != len(fam):
            raise GenError(
                f"{name}: {len(normal)} typedef revisions {[v for v, _ in normal]} "
                f"but {len(fam)} exported symbols {[s for _, s in fam]}"
            )
        if len({v for v, _ in normal}) != len(normal):
            raise GenError(f"{name}: two typedefs with one version")
        api = Api(name)
        for (ver, td_name), (_, sym) in zip(normal, fam):
            check_signature(td_name, sym)
            api.normal.append((ver, sym))
        pt = sorted(by_sfx.get("ptds", []) + by_sfx.get("ptsz", []))
        if len({v for v, _ in pt}) != len(pt):
            raise GenError(f"{name}: two per-thread typedefs with one version")
        for ver, td_name in pt:
            base = [s for v, s in api.normal if v <= ver]
            if not base:
                raise GenError(f"PFN_{td_name}: no revision of {name} at version {ver}")
            sym = base[-1] + "_" + td_name.rsplit("_", 1)[1]
            if sym not in symbol_set:
                raise GenError(f"PFN_{td_name}: {sym} is not declared")
            check_signature(td_name, sym)
            api.per_thread.append((ver, sym))
        apis.append(api)

    # Every symbol an API revision names is exported; list what no typedef names.
    named = {s for a in apis for _, s in a.normal + a.per_thread}
    unnamed = [s for s in symbols if s not in named]
    return symbols, apis, unnamed


# ---------------------------------------------------------------------------
# Errors


def c_int(expr: str) -> int:
    expr = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", expr.strip())
    if not re.fullmatch(r"[\s0-9a-fA-FxX()<>|+\-]*", expr):
        raise GenError(f"enumerator value {expr!r}")
    return int(eval(expr, {"__builtins__": {}}, {}))  # noqa: S307 - checked above


def parse_enum(text: str, enum_tag: str) -> list[tuple[str, int, str]]:
    """(name, value, doc) of a `typedef enum <tag> { ... }` in the raw header."""
    m = re.search(rf"typedef\s+enum\s+{enum_tag}\s*\{{(.*?)\}}\s*\w+\s*;", text, re.S)
    if not m:
        raise GenError(f"enum {enum_tag} not found")
    body = m.group(1)
    out = []
    item_re = re.compile(
        r"(?P<pre>/\*\*(?:(?!\*/).)*\*/)?\s*(?P<name>[A-Z]\w*)\s*=\s*(?P<val>[^,/\n]+),?"
        r"[ \t]*(?P<post>/\*\*<(?:(?!\*/).)*\*/)?",
        re.S,
    )
    pos = 0
    while True:
        m = item_re.search(body, pos)
        if not m:
            break
        doc = m.group("pre") or m.group("post") or ""
        out.append((m.group("name"), c_int(m.group("val")), doc))
        pos = m.end()
    if not out:
        raise GenError(f"enum {enum_tag} is empty")
    return out


def describe(name: str, doc: str) -> str:
    """A short phrase from a doxygen comment: its first sentence without the
    "This indicates that" lead-in, starting lower-case. A deprecated code gets its
    name in words with the deprecation sentence in parentheses."""
    text = re.sub(r"^/\*\*<?|\*/$", "", doc.strip())
    text = re.sub(r"(?m)^\s*\*", " ", text)
    deprecated = re.match(r"\s*\\deprecated\b", text) is not None
    text = re.sub(r"\\deprecated\b", " ", text)
    text = re.sub(r"\\[a-z]+\s+", "", text)  # \p x, \e x, \b x
    text = text.replace("::", "")
    text = " ".join(text.split())
    end = len(text)
    for m in re.finditer(r"\.(?=\s|$)", text):
        if re.search(r"(\b[eE]\.g|\b[iI]\.e|\betc|\bvs)$", text[: m.start()]):
            continue
        end = m.start()
        break
    text = text[:end].strip()
    text = re.sub(
        r"^(This (most frequently )?(error )?indicat(es|ed)( that)?|Indi\w*ates( that)?|"
        r"This error return is) ",
        "",
        text,
    )
    first = text.split(" ", 1)[0]
    if first and (len(first) == 1 or first[1:].islower()):
        text = text[0].lower() + text[1:]
    if deprecated:
        words = name.removeprefix("CUDA_ERROR_").lower().replace("_", " ")
        text = f"{words} ({text})"
    if not text:
        raise GenError(f"{name}: no description")
    return text


# ---------------------------------------------------------------------------
# Output

HEADER = """\
// @generated by tools/gen_driver_tables.py from NVIDIA's CUDA {cuda_version} headers.
// Do not edit by hand: re-run `python3 tools/gen_driver_tables.py [INCLUDE_DIR]`.
"""


def rust_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def gen_mod(cuda_version: int) -> str:
    return (
        HEADER.format(cuda_version=cuda_version)
        + """
//! Tables generated from NVIDIA's `cuda.h`/`cudaTypedefs.h` by `tools/gen_driver_tables.py`.

#[rustfmt::skip]
pub mod errors;
#[rustfmt::skip]
pub mod procaddr;
#[rustfmt::skip]
pub mod stubs;
"""
    )


def gen_errors(cuda_version: int, errors: list[tuple[str, int, str]]) -> str:
    lines = [HEADER.format(cuda_version=cuda_version)]
    lines.append("//! Every `CUresult` of `cuda.h`: constants and the name/description table.\n")
    lines.append("use core::ffi::CStr;\n")
    lines.append("use crate::types::CUresult;\n")
    for name, val, _ in errors:
        lines.append(f"pub const {name}: CUresult = {val};")
    lines.append("")
    lines.append("/// Number of enumerators of `CUresult` in `cuda.h`.")
    lines.append(f"pub const ERROR_COUNT: usize = {len(errors)};")
    lines.append("")
    lines.append("/// `(code, name, description)`, sorted by code.")
    lines.append("pub static ERRORS: &[(CUresult, &CStr, &CStr)] = &[")
    for name, val, desc in sorted(errors, key=lambda e: e[1]):
        lines.append(f"    ({val}, c{rust_str(name)}, c{rust_str(desc)}),")
    lines.append("];")
    lines.append(
        """
fn entry(code: CUresult) -> Option<&'static (CUresult, &'static CStr, &'static CStr)> {
    ERRORS
        .binary_search_by_key(&code, |e| e.0)
        .ok()
        .and_then(|i| ERRORS.get(i))
}

/// The enumerator's name (`CUDA_ERROR_INVALID_VALUE`), as `cuGetErrorName` returns it.
pub fn error_name(code: CUresult) -> Option<&'static CStr> {
    entry(code).map(|e| e.1)
}

/// A short description, as `cuGetErrorString` returns it.
pub fn error_string(code: CUresult) -> Option<&'static CStr> {
    entry(code).map(|e| e.2)
}
"""
    )
    return "\n".join(lines)


def gen_procaddr(cuda_version: int, apis: list[Api], symbols: list[str], flags, status) -> str:
    L = [HEADER.format(cuda_version=cuda_version)]
    L.append(
        """\
//! ABI revisions of every driver API named by a `PFN_<api>_v<version>` typedef, and the
//! exported symbol each revision is. See `tools/gen_driver_tables.py` for the derivation.

/// One ABI revision: requests with `cudaVersion >= version` get `symbol` (unless a newer
/// revision applies).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Revision {
    pub version: i32,
    pub symbol: &'static str,
}

/// An API as `cuGetProcAddress` names it, with its revisions sorted by version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiRevisions {
    pub name: &'static str,
    /// Legacy-default-stream revisions (flags 0 and `CU_GET_PROC_ADDRESS_LEGACY_STREAM`).
    pub normal: &'static [Revision],
    /// `_ptds`/`_ptsz` revisions (`CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`).
    pub per_thread: &'static [Revision],
}

const fn r(version: i32, symbol: &'static str) -> Revision {
    Revision { version, symbol }
}
"""
    )
    L.append("/// `CUDA_VERSION` of the headers the tables come from.")
    L.append(f"pub const HEADER_CUDA_VERSION: i32 = {cuda_version};\n")
    L.append("/// `CUdriverProcAddress_flags`.")
    for name, val, _ in flags:
        L.append(f"pub const {name}: u64 = {val};")
    L.append("\n/// `CUdriverProcAddressQueryResult`.")
    L.append("pub type CUdriverProcAddressQueryResult = u32;")
    for name, val, _ in status:
        L.append(f"pub const {name}: CUdriverProcAddressQueryResult = {val};")
    L.append("")
    n_rev = sum(len(a.normal) + len(a.per_thread) for a in apis)
    L.append(f"/// {len(apis)} APIs, {n_rev} revisions; sorted by name.")
    L.append("pub static APIS: &[ApiRevisions] = &[")
    for a in apis:
        normal = ", ".join(f"r({v}, {rust_str(s)})" for v, s in a.normal)
        pt = ", ".join(f"r({v}, {rust_str(s)})" for v, s in a.per_thread)
        L.append(
            f"    ApiRevisions {{ name: {rust_str(a.name)}, normal: &[{normal}], per_thread: &[{pt}] }},"
        )
    L.append("];\n")
    L.append(f"/// Every entry point the driver headers declare ({len(symbols)}), sorted.")
    L.append("pub static DRIVER_SYMBOLS: &[&str] = &[")
    for s in symbols:
        L.append(f"    {rust_str(s)},")
    L.append("];\n")
    return "\n".join(L)


def gen_stubs(cuda_version: int, stubbed: list[str], implemented: list[str]) -> str:
    L = [HEADER.format(cuda_version=cuda_version)]
    L.append(
        """\
// If linking fails with a duplicate symbol, this file is stale: an entry point was
// implemented after it was generated. Re-run the script.

//! A stub for every driver entry point the crate does not implement: it reports
//! itself on stderr once and returns `CUDA_ERROR_NOT_SUPPORTED`.
"""
    )
    L.append("crate::procaddr::driver_stubs! {")
    for s in stubbed:
        L.append(f"    {s},")
    L.append("}\n")
    L.append("/// Entry points implemented by hand and never stubbed (the generator's list).")
    L.append("pub static ALWAYS_IMPLEMENTED: &[&str] = &[")
    for s in sorted(ALWAYS_IMPLEMENTED):
        L.append(f"    {rust_str(s)},")
    L.append("];\n")
    L.append(f"/// The driver symbols the crate implements ({len(implemented)}), sorted (as found when")
    L.append("/// this file was generated).")
    L.append("pub static IMPLEMENTED: &[&str] = &[")
    for s in implemented:
        L.append(f"    {rust_str(s)},")
    L.append("];\n")
    L.append(f"/// The stubbed symbols ({len(stubbed)}), sorted.")
    L.append("pub static STUBBED: &[&str] = &[")
    for s in stubbed:
        L.append(f"    {rust_str(s)},")
    L.append("];")
    L.append(
        """
/// Whether `symbol` is one of the stubs above.
pub fn is_stub(symbol: &str) -> bool {
    STUBBED.binary_search(&symbol).is_ok()
}
"""
    )
    return "\n".join(L)


IMPL_RE = re.compile(r'\bextern\s+"(?:C|C-unwind|system)"\s+fn\s+(cu\w+)\s*[<(]')
# Entry points defined in pairs (legacy and per-thread default stream) by the crate's
# `stream_pair!`/`memcpy_entry!` macros: their first two arguments are the symbols.
PAIR_RE = re.compile(r"\b(?:stream_pair|memcpy_entry)!\s*\(\s*(cu\w+)\s*,\s*(cu\w+)\s*,")


def implemented_symbols() -> set[str]:
    found = set(ALWAYS_IMPLEMENTED)
    for path in sorted(SRC.rglob("*.rs")):
        if OUT in path.parents:
            continue
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
        found.update(IMPL_RE.findall(text))
        for a, b in PAIR_RE.findall(text):
            found.update((a, b))
    return found


def default_include() -> Path:
    candidates = [
        Path(sysconfig.get_paths()["purelib"]) / "nvidia" / "cu13" / "include",
        Path("/work/venv/dev/lib/python3.11/site-packages/nvidia/cu13/include"),
    ]
    for c in candidates:
        if (c / "cuda.h").exists():
            return c
    raise GenError("no CUDA include directory found; pass it as an argument")


def generate(include: Path) -> dict[str, str]:
    cuda_h = (include / "cuda.h").read_text(encoding="utf-8", errors="replace")
    m = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", cuda_h)
    if not m:
        raise GenError("CUDA_VERSION not found in cuda.h")
    cuda_version = int(m.group(1))
    errors = [(n, v, describe(n, d)) for n, v, d in parse_enum(cuda_h, "cudaError_enum")]
    names = [n for n, _, _ in errors]
    if len(set(names)) != len(names):
        raise GenError("duplicate CUresult names")
    flags = parse_enum(cuda_h, "CUdriverProcAddress_flags_enum")
    status = parse_enum(cuda_h, "CUdriverProcAddressQueryResult_enum")
    symbols, apis, _ = build(include)
    impl = implemented_symbols()
    stubbed = [s for s in symbols if s not in impl]
    return {
        "mod.rs": gen_mod(cuda_version),
        "errors.rs": gen_errors(cuda_version, errors),
        "procaddr.rs": gen_procaddr(cuda_version, apis, symbols, flags, status),
        "stubs.rs": gen_stubs(cuda_version, stubbed, sorted(s for s in symbols if s in impl)),
    }


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    opts = {a for a in argv if a.startswith("--")}
    unknown = opts - {"--check", "--dump"}
    if unknown or len(args) > 1:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        include = Path(args[0]) if args else default_include()
        if "--dump" in opts:
            symbols, apis, unnamed = build(include)
            for a in apis:
                n = " ".join(f"{v}:{s}" for v, s in a.normal)
                p = " ".join(f"{v}:{s}" for v, s in a.per_thread)
                print(f"{a.name}  {n}" + (f"  | {p}" if p else ""))
            print(f"# {len(apis)} APIs, {len(symbols)} symbols; not named by a typedef:")
            print("# " + " ".join(unnamed))
            return 0
        files = generate(include)
    except GenError as e:
        print(f"gen_driver_tables: {e}", file=sys.stderr)
        return 1
    if "--check" in opts:
        stale = [n for n, t in files.items() if not (OUT / n).exists() or (OUT / n).read_text() != t]
        for n in stale:
            print(f"gen_driver_tables: {OUT / n} is stale", file=sys.stderr)
        return 1 if stale else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for n, t in files.items():
        (OUT / n).write_text(t)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
