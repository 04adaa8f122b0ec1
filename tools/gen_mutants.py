#!/usr/bin/env python3
"""Generate the ptxas-labelled mutation corpus for ptxvm.

Every mutant is a single-line edit (replace / delete / insert_after) of one
valid real-compiler fixture under tests/fixtures/<compiler>/*.ptx.  NVIDIA
ptxas is run on each mutated module and its verdict is recorded in
tests/mutants/mutants.jsonl (one JSON object per line, see README.md there).
Two ptxas releases are used: 13.5 when the fixture's or the mutated module's
`.version` is above 8.8 (PTX ISA 9.x), 12.9 otherwise; `ptxas_version` in
each record says which (see `ptxas_for()`).

Usage:
    tools/gen_mutants.py [--count N] [--count-new N] [--seed S] [--jobs J] [--limit N]
                         [--max-size BYTES] [--out FILE] [--resume]
    tools/gen_mutants.py --verify [--sample N]   # re-check recorded verdicts
    tools/gen_mutants.py --readme                # regenerate tests/mutants/README.md

The generator is deterministic: with the same fixture set, seed and count, it
produces the same mutants with the same ids (ptxas runs in parallel, but
records are written in id order).  Records are appended and flushed one at a
time, so an interrupted run leaves a usable prefix; `--resume` continues it.

Reconstructing a mutated module: see `apply()` below.  Lines are the
fixture's text split on '\\n' (so a trailing '\\r' stays part of a line);
`line` is 1-based; "insert_after" inserts `text` as a new line after `line`.
"""

import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_PTXAS = ("/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/"
                 "nvidia/cuda_nvcc/bin/ptxas")
DEFAULT_PTXAS13 = ("/opt/venv-cu13/lib/python3.11/site-packages/"
                   "nvidia/cu13/bin/ptxas")
PTXAS = os.environ.get("PTXAS", DEFAULT_PTXAS)
PTXAS13 = os.environ.get("PTXAS13", DEFAULT_PTXAS13)
# Two ptxas releases judge the mutants (see README.md, "Which ptxas"):
# ptxas 12.9 knows PTX ISA up to 8.8; ptxas 13.5 knows up to 9.5 but dropped
# the targets below sm_75.  A mutant is judged by 13.5 iff its fixture's or
# the mutated module's `.version` is above 8.8 (and by 12.9 otherwise).
PTXAS_BY_VERSION = collections.OrderedDict([("12.9", PTXAS), ("13.5", PTXAS13)])
NEW_ISA = (8, 8)          # PTX ISA versions above this need ptxas 13.5
FIXTURES = os.path.join(REPO, "tests", "fixtures")
OUT_DIR = os.path.join(REPO, "tests", "mutants")
OUT = os.path.join(OUT_DIR, "mutants.jsonl")
TIMEOUT = 30

KINDS = [
    "delete_token",
    "type_suffix",
    "modifier",
    "reg_rename",
    "drop_decl",
    "target",
    "version",
    "swap_operands",
    "operand_to_imm",
    "dup_decl",
    "opcode_change",
]


# --------------------------------------------------------------------------
# Reconstruction (mirror this in other tools)
# --------------------------------------------------------------------------

def apply(fixture_text, record):
    """Return the mutated module text for `record` applied to `fixture_text`."""
    lines = fixture_text.split("\n")
    i = record["line"] - 1
    if lines[i] != record["original"]:
        raise ValueError("fixture line %d does not match record %s"
                         % (record["line"], record.get("id")))
    op = record["op"]
    if op == "replace":
        lines[i] = record["text"]
    elif op == "delete":
        del lines[i]
    elif op == "insert_after":
        lines.insert(i + 1, record["text"])
    else:
        raise ValueError("unknown op %r" % op)
    return "\n".join(lines)


# --------------------------------------------------------------------------
# ptxas
# --------------------------------------------------------------------------

_PTXAS_PREFIX = re.compile(r"^ptxas\s+(?:\S.*?\.ptx,\s*)?")


def clean_msg(line, path=None):
    line = _PTXAS_PREFIX.sub("", line.strip())
    if path:
        line = line.replace(path, "<file>").replace(os.path.basename(path), "<file>")
    return re.sub(r"\s+", " ", line).replace(" :", ":").strip()


def run_ptxas(text, arch, workdir, tag="m", ptxas="12.9"):
    """Run ptxas `ptxas` (a key of PTXAS_BY_VERSION) on `text`; return
    (verdict, first message) or None on timeout."""
    path = os.path.join(workdir, "%s.ptx" % tag)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    try:
        p = subprocess.run([PTXAS_BY_VERSION[ptxas], "-arch=" + arch, "-o", "/dev/null", path],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    out = p.stdout.decode("utf-8", "replace").splitlines()
    verdict = "accept" if p.returncode == 0 else "reject"
    msg = ""
    if verdict == "reject":
        for l in out:
            if re.search(r"\b(error|fatal)\b", l):
                msg = clean_msg(l, path)
                break
        if not msg and out:
            msg = clean_msg(out[0], path)
    else:
        for l in out:
            if re.search(r"\b(warning|info)\b", l):
                msg = clean_msg(l, path)
                break
    return verdict, msg


def ptxas_version(ptxas="12.9"):
    try:
        out = subprocess.run([PTXAS_BY_VERSION[ptxas], "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT).stdout.decode()
    except OSError:
        return "unknown"
    m = re.search(r"release [^\n]*", out)
    return m.group(0) if m else out.strip().splitlines()[-1]


_ARCH_OK = {}


def arch_supported(ptxas, arch):
    """Whether ptxas `ptxas` accepts `-arch=<arch>` at all (CUDA 13 dropped
    sm_50..sm_72: `Value 'sm_70' is not defined for option 'gpu-name'`)."""
    key = (ptxas, arch)
    if key not in _ARCH_OK:
        fd, path = tempfile.mkstemp(suffix=".ptx", prefix="ptxarch_")
        with os.fdopen(fd, "w") as f:
            f.write(".version 6.0\n.target sm_50\n.address_size 64\n")
        try:
            p = subprocess.run([PTXAS_BY_VERSION[ptxas], "-arch=" + arch, "-o", "/dev/null", path],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT)
            out = p.stdout.decode("utf-8", "replace")
            _ARCH_OK[key] = "is not defined for option" not in out
        finally:
            os.unlink(path)
    return _ARCH_OK[key]


def module_version(text_or_lines):
    """(major, minor) of the first `.version` line, or None (also for a
    malformed one such as `.version 8`)."""
    lines = text_or_lines.split("\n") if isinstance(text_or_lines, str) else text_or_lines
    for l in lines:
        m = VERSION_RE.match(l)
        if m:
            return (int(m.group(2)), int(m.group(3)))
    return None


def ptxas_for(fixture_version, mutated_text):
    """The ptxas ("12.9" or "13.5") that judges a module: 13.5 iff the
    fixture's or the mutated module's `.version` is above 8.8.  Versions
    compare as (major, minor) integer pairs, as ptxas reads them, so `8.9`
    and `8.80` count as newer than 8.8."""
    v = module_version(mutated_text)
    if (fixture_version and fixture_version > NEW_ISA) or (v and v > NEW_ISA):
        return "13.5"
    return "12.9"


# --------------------------------------------------------------------------
# Lexical helpers
# --------------------------------------------------------------------------

TYPES = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "b8", "b16",
         "b32", "b64", "b128", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64",
         "pred", "e4m3x2", "tf32"]
TYPE_SET = set(TYPES)
# Same-width "compatible" types (mutations within a group are often legal).
TYPE_GROUPS = [["u8", "s8", "b8"], ["u16", "s16", "b16", "f16", "bf16"],
               ["u32", "s32", "b32", "f32", "f16x2", "bf16x2"],
               ["u64", "s64", "b64", "f64"]]
SPACES = ["global", "shared", "local", "const", "param", "shared::cta",
          "shared::cluster", "global::ca", "generic"]

MOD_GROUPS = [
    ["rn", "rz", "rm", "rp"],
    ["rni", "rzi", "rmi", "rpi"],
    ["lo", "hi", "wide"],
    ["global", "shared", "local", "const", "param", "shared::cta",
     "shared::cluster"],
    ["v2", "v4", "v8"],
    ["approx", "full"],
    ["ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc"],
    ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu",
     "ltu", "leu", "gtu", "geu", "num", "nan"],
    ["and", "or", "xor", "popc"],
    ["add", "min", "max", "inc", "dec", "exch", "cas", "and", "or", "xor"],
    ["relaxed", "acquire", "release", "acq_rel", "volatile", "weak"],
    ["cta", "gpu", "sys", "cluster"],
    ["sync", "aligned", "arrive", "red"],
    ["up", "down", "bfly", "idx"],
    ["L1::evict_last", "L1::no_allocate", "L2::64B", "L2::128B",
     "L2::256B"],
    ["uni"],
    ["ftz"],
    ["sat"],
    ["cc"],
    ["to"],
]
MOD_TO_GROUP = {}
for _g in MOD_GROUPS:
    for _m in _g:
        MOD_TO_GROUP.setdefault(_m, _g)
INSERTABLE_MODS = ["ftz", "sat", "rn", "rz", "approx", "uni", "volatile",
                   "global", "shared", "lo", "wide", "cc", "relaxed", "v2",
                   "nc", "cta", "sync", "full", "hi", "rni"]

# base opcode -> modifiers whose insertion is plausible (legal or near-legal)
_FLT = ["ftz", "sat", "rn", "rz", "rm"]
LIKELY_INSERTS = {
    "add": _FLT + ["cc"], "sub": _FLT + ["cc"], "mul": _FLT, "fma": ["ftz", "sat"],
    "mad": ["ftz", "sat", "cc"], "div": ["ftz", "full", "approx", "rn"],
    "min": ["ftz", "NaN", "xorsign", "abs"], "max": ["ftz", "NaN"],
    "abs": ["ftz"], "neg": ["ftz"], "setp": ["ftz"], "set": ["ftz"],
    "cvt": ["ftz", "sat", "rn", "rni", "rzi", "relu"],
    "ld": ["volatile", "ca", "cg", "cs", "lu", "cv", "nc", "weak", "L1::evict_last"],
    "st": ["volatile", "wb", "cg", "cs", "wt", "weak"],
    "bra": ["uni"], "sqrt": ["ftz", "rn", "approx"], "rcp": ["ftz", "rn", "approx"],
    "rsqrt": ["ftz", "approx"], "ex2": ["ftz", "approx"], "lg2": ["ftz", "approx"],
    "sin": ["ftz", "approx"], "cos": ["ftz", "approx"], "tanh": ["approx"],
    "atom": ["relaxed", "acquire", "release", "acq_rel", "gpu", "cta", "sys"],
    "red": ["relaxed", "release", "gpu", "cta", "sys"],
    "membar": ["cta", "gl", "sys"], "fence": ["cta", "gpu", "sys", "sc", "acq_rel"],
    "shr": ["wrap"], "vote": ["sync"], "bar": ["sync", "aligned"],
    "mul24": ["lo", "hi"], "mad24": ["lo", "hi"], "shfl": ["sync"],
}

# opcode -> similar valid opcodes (likely to stay legal) and near-miss
# invalid ones.
SIMILAR_OPS = {
    "add": ["sub", "min", "max", "mul"], "sub": ["add", "min", "max"],
    "mul": ["add", "sub", "div", "mad"], "mad": ["fma", "mul", "add"],
    "fma": ["mad", "mul", "add"], "div": ["mul", "rem", "add"],
    "rem": ["div"], "min": ["max", "add"], "max": ["min", "sub"],
    "and": ["or", "xor"], "or": ["and", "xor"], "xor": ["and", "or"],
    "shl": ["shr"], "shr": ["shl"], "not": ["neg", "cnot", "popc"],
    "neg": ["abs", "not"], "abs": ["neg"], "setp": ["set"],
    "selp": ["slct"], "mov": ["cvt", "cvta"], "cvt": ["mov"],
    "ld": ["st", "ldu", "prefetch"], "st": ["ld", "red"],
    "atom": ["red"], "red": ["atom"], "bra": ["call", "brx"],
    "ex2": ["lg2", "rcp", "sqrt", "rsqrt"], "lg2": ["ex2", "sqrt"],
    "sqrt": ["rsqrt", "rcp", "ex2"], "rsqrt": ["sqrt", "rcp"],
    "rcp": ["sqrt", "rsqrt"], "sin": ["cos", "tanh"], "cos": ["sin"],
    "popc": ["clz", "brev"], "clz": ["popc", "brev"], "brev": ["popc"],
    "bfe": ["bfi"], "mul24": ["mad24", "mul"], "cvta": ["mov"],
    "shfl": ["prmt"], "ret": ["exit", "trap"], "exit": ["ret"],
    "bar": ["barrier"], "membar": ["fence"], "fence": ["membar"],
    "copysign": ["min"], "testp": ["setp"], "prmt": ["shf"],
    "shf": ["prmt"], "vote": ["match"], "tanh": ["ex2", "sin"],
    "slct": ["selp"], "mad24": ["mul24"], "addc": ["add"], "subc": ["sub"],
    "lop3": ["prmt"],
}
BOGUS_SUFFIX = ["x", "s", "2", "_"]


REG_DECL_RE = re.compile(
    r"^\s*\.reg\s+(?:\.v\d\s+)?\.(\w+)\s+%([A-Za-z_][\w$]*?)<(\d+)>\s*;")
REG_SCALAR_RE = re.compile(
    r"^\s*\.reg\s+(?:\.v\d\s+)?\.(\w+)\s+(%[A-Za-z_][\w$]*)\s*(?:,\s*%[\w$]+\s*)*;")
LABEL_RE = re.compile(r"^\s*([$A-Za-z_][\w$]*)\s*:\s*(//.*)?$")
DECL_RE = re.compile(
    r"^\s*\{?\s*(?:\.(?:visible|extern|weak|common)\s+)?\.(reg|param|shared|local|global|const)\b")
FUNC_HEAD_RE = re.compile(r"^\s*(?:\.\w+\s+)*\.(?:entry|func)\b")
TARGET_RE = re.compile(r"^(\s*\.target\s+)([\w,\s]+?)(\s*(?://.*)?)$")
VERSION_RE = re.compile(r"^(\s*\.version\s+)(\d+)\.(\d+)(.*)$")
# instruction: [guard] opcode operands ;
INSTR_RE = re.compile(
    r"^(\s*\{?\s*)(@!?%?[\w$]+\s+)?([a-z][a-z0-9_]*(?:\.[\w:]+)*)(\s+(.*?))?\s*;(\s*\}?\s*(?://.*)?)$")
REG_TOKEN_RE = re.compile(r"%[A-Za-z_][\w$]*")
TOKEN_RE = re.compile(
    r"%?[A-Za-z_$][\w$]*|0[fFdD][0-9A-Fa-f]+|0[xX][0-9A-Fa-f]+U?|\d+U?|"
    r"\.[\w:]+|[\[\]{},;+\-|!@<>()]")

SPECIAL_REGS = {"%tid", "%ntid", "%ctaid", "%nctaid", "%laneid", "%warpid",
                "%smid", "%clock", "%clock64", "%lanemask_eq", "%globaltimer",
                "%envreg", "%nwarpid", "%gridid", "%dynamic_smem_size",
                "%lanemask_lt", "%lanemask_le", "%lanemask_gt", "%lanemask_ge",
                "%clusterid", "%nclusterid", "%cluster_ctaid",
                "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank",
                "%is_explicit_cluster", "%total_smem_size", "%nsmid",
                "%pm0", "%globaltimer_lo", "%globaltimer_hi"}


def split_operands(s):
    """Split an operand string on top-level commas; returns list of
    (start, end) spans (stripped)."""
    spans = []
    depth = 0
    start = 0
    for i, ch in enumerate(s):
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0:
            spans.append((start, i))
            start = i + 1
    spans.append((start, len(s)))
    out = []
    for a, b in spans:
        while a < b and s[a].isspace():
            a += 1
        while b > a and s[b - 1].isspace():
            b -= 1
        out.append((a, b))
    return out


class Instr:
    """Parsed instruction line."""

    def __init__(self, line, m):
        self.line = line
        self.indent = m.group(1)
        self.guard = m.group(2) or ""
        self.guard_off = m.start(2)
        self.opcode = m.group(3)
        self.opstart = m.start(3)
        self.opend = m.end(3)
        self.ops_str = m.group(5) or ""
        self.ops_off = m.start(5) if m.group(5) is not None else None
        self.tail = m.group(6) or ""
        parts = self.opcode.split(".")
        self.base = parts[0]
        self.mods = parts[1:]
        self.operands = []  # list of (abs_start, abs_end, text)
        if self.ops_str:
            for a, b in split_operands(self.ops_str):
                self.operands.append((self.ops_off + a, self.ops_off + b,
                                      self.ops_str[a:b]))

    def with_opcode(self, new_opcode):
        return self.line[:self.opstart] + new_opcode + self.line[self.opend:]


def parse_instr(line):
    code = line.split("//", 1)[0].strip().lstrip("{").strip()
    if not code or code.startswith("."):
        return None
    m = INSTR_RE.match(line)
    if not m:
        return None
    if m.group(3).split(".")[0] in ("version", "target"):
        return None
    return Instr(line, m)


# --------------------------------------------------------------------------
# Fixture model
# --------------------------------------------------------------------------

class Fixture:
    def __init__(self, relpath, text):
        self.relpath = relpath
        self.compiler = os.path.basename(os.path.dirname(relpath))
        self.text = text
        self.lines = text.split("\n")
        self.instrs = []        # (idx, Instr)
        self.decls = []         # idx of declaration lines
        self.labels = []        # idx of label lines
        self.reg_classes = {}   # prefix -> (type, count)
        self.target_idx = None
        self.version_idx = None
        self.target = None
        self.version = None
        self.instr_regs = {}    # instr idx -> register classes of its function
        cur = {}
        for i, l in enumerate(self.lines):
            s = l.strip()
            if not s or s.startswith("//"):
                continue
            if FUNC_HEAD_RE.match(l):
                cur = {}
            if self.target_idx is None and TARGET_RE.match(l):
                self.target_idx = i
                self.target = TARGET_RE.match(l).group(2).strip()
                continue
            if self.version_idx is None and VERSION_RE.match(l):
                self.version_idx = i
                vm = VERSION_RE.match(l)
                self.version = (int(vm.group(2)), int(vm.group(3)))
                continue
            m = REG_DECL_RE.match(l)
            if m:
                self.reg_classes.setdefault(m.group(2), (m.group(1), int(m.group(3))))
                cur[m.group(2)] = (m.group(1), int(m.group(3)))
            if DECL_RE.match(l):
                self.decls.append(i)
                continue
            if LABEL_RE.match(l):
                self.labels.append(i)
                continue
            ins = parse_instr(l)
            if ins is not None:
                self.instrs.append((i, ins))
                ins.regs = cur
        self.arch = None
        if self.target:
            m = re.search(r"\bsm_\d+[af]?\b", self.target)
            if m:
                self.arch = m.group(0)

    def size(self):
        return len(self.text)


SKIPPED = collections.OrderedDict()   # fixture -> reason (filled by loading)
DROPPED = collections.OrderedDict()   # planned id -> reason (filled by running)


def discover_fixtures(max_size):
    paths = []
    FIXTURES = os.environ.get("PTXVM_FIXTURES", globals()["FIXTURES"])
    for comp in sorted(os.listdir(FIXTURES)) if os.path.isdir(FIXTURES) else []:
        d = os.path.join(FIXTURES, comp)
        if not os.path.isdir(d):
            continue
        for fn in sorted(os.listdir(d)):
            if fn.endswith(".ptx"):
                p = os.path.join(d, fn)
                if os.path.getsize(p) <= max_size:
                    paths.append(os.path.relpath(p, REPO))
                else:
                    SKIPPED[os.path.relpath(p, REPO)] = "size > %d" % max_size
    return paths


# --------------------------------------------------------------------------
# Mutators: each takes (fixture, rng) and returns (line_idx, op, text) or None
# --------------------------------------------------------------------------

def _pick_instr(fx, rng, pred=None):
    cands = fx.instrs if pred is None else [t for t in fx.instrs if pred(t[1])]
    if not cands:
        return None
    return rng.choice(cands)


def mut_delete_token(fx, rng):
    t = _pick_instr(fx, rng)
    if t is None:
        return None
    idx, ins = t
    line = ins.line
    code_end = len(line) - len(ins.tail)
    toks = [(m.start(), m.end()) for m in TOKEN_RE.finditer(line, 0, code_end)]
    if not toks:
        return None
    # Pick a token category uniformly, then a token of that category.
    cats = collections.defaultdict(list)
    for a, b in toks:
        t = line[a:b]
        if t == ";":
            cats["semi"].append((a, b))
        elif t == ",":
            cats["comma"].append((a, b))
        elif t in "[]{}":
            cats["bracket"].append((a, b))
        elif t.startswith("."):
            cats["modifier"].append((a, b))
        else:
            cats["operand"].append((a, b))
    a, b = rng.choice(cats[rng.choice(sorted(cats))])
    return idx, "replace", line[:a] + line[b:]


def _type_positions(ins):
    return [k for k, m in enumerate(ins.mods) if m in TYPE_SET]


def mut_type_suffix(fx, rng):
    # mostly instructions; sometimes declarations
    if fx.decls and rng.random() < 0.15:
        idx = rng.choice(fx.decls)
        line = fx.lines[idx]
        ms = [m for m in re.finditer(r"\.(\w+)\b", line) if m.group(1) in TYPE_SET]
        if not ms:
            return None
        m = rng.choice(ms)
        new = rng.choice([t for t in TYPES if t != m.group(1)])
        return idx, "replace", line[:m.start(1)] + new + line[m.end(1):]
    t = _pick_instr(fx, rng, lambda i: _type_positions(i))
    if t is None:
        return None
    idx, ins = t
    k = rng.choice(_type_positions(ins))
    old = ins.mods[k]
    group = next((g for g in TYPE_GROUPS if old in g), None)
    if group and rng.random() < 0.5:
        choices = [x for x in group if x != old]
    else:
        choices = [x for x in TYPES if x != old]
    mods = list(ins.mods)
    mods[k] = rng.choice(choices)
    return idx, "replace", ins.with_opcode(".".join([ins.base] + mods))


def mut_modifier(fx, rng):
    t = _pick_instr(fx, rng)
    if t is None:
        return None
    idx, ins = t
    mods = list(ins.mods)
    nontype = [k for k, m in enumerate(mods) if m not in TYPE_SET]
    r = rng.random()
    if nontype and r < 0.45:            # change
        k = rng.choice(nontype)
        g = MOD_TO_GROUP.get(mods[k])
        if g and len(g) > 1 and rng.random() < 0.8:
            mods[k] = rng.choice([x for x in g if x != mods[k]])
        else:
            mods[k] = rng.choice([x for x in INSERTABLE_MODS if x != mods[k]])
    elif nontype and r < 0.7:           # delete
        del mods[rng.choice(nontype)]
    else:                               # insert
        pos = rng.randint(0, len(mods))
        # insertion right after the base is the most common legal position
        if rng.random() < 0.6:
            pos = 0
        likely = [m for m in LIKELY_INSERTS.get(ins.base, []) if m not in mods]
        if likely and rng.random() < 0.6:
            mods.insert(pos, rng.choice(likely))
        else:
            mods.insert(pos, rng.choice(INSERTABLE_MODS))
    return idx, "replace", ins.with_opcode(".".join([ins.base] + mods))


def _reg_operand_spans(ins, fx):
    out = []
    for a, b, text in ins.operands:
        for m in REG_TOKEN_RE.finditer(text):
            name = m.group(0)
            if name.split(".")[0] in SPECIAL_REGS:
                continue
            mm = re.match(r"%([A-Za-z_][\w$]*?)(\d+)$", name)
            if mm and mm.group(1) in ins.regs:
                out.append((a + m.start(), a + m.end(), mm.group(1), int(mm.group(2))))
    if ins.guard:
        gm = re.search(r"%([A-Za-z_][\w$]*?)(\d+)", ins.guard)
        if gm and gm.group(1) in ins.regs:
            off = ins.guard_off
            out.append((off + gm.start(), off + gm.end(), gm.group(1), int(gm.group(2))))
    return out


def mut_reg_rename(fx, rng):
    t = _pick_instr(fx, rng, lambda i: _reg_operand_spans(i, fx))
    if t is None:
        return None
    idx, ins = t
    a, b, prefix, num = rng.choice(_reg_operand_spans(ins, fx))
    typ, count = ins.regs[prefix]
    r = rng.random()
    others = [p for p in ins.regs if p != prefix]
    if r < 0.35 and count > 1:
        # same class, other declared register: usually still valid
        n = rng.randrange(1 if count > 1 else 0, count)
        if n == num:
            n = (num + 1) % count
        new = "%%%s%d" % (prefix, n)
    elif r < 0.55:
        new = "%%%s%d" % (prefix, rng.choice([count + 5, 9999, count]))
    elif r < 0.85 and others:
        p2 = rng.choice(others)
        new = "%%%s%d" % (p2, min(num, max(ins.regs[p2][1] - 1, 0)))
    else:
        p2 = rng.choice(["rd", "f", "fd", "p", "rs", "r", "h", "hh", "q"])
        if p2 == prefix:
            p2 = prefix + "x"
        new = "%%%s%d" % (p2, num)
    line = ins.line
    return idx, "replace", line[:a] + new + line[b:]


def mut_drop_decl(fx, rng):
    cands = list(fx.decls) + list(fx.labels)
    if not cands:
        return None
    # labels are typically a minority; balance them in
    if fx.labels and rng.random() < 0.3:
        idx = rng.choice(fx.labels)
    else:
        idx = rng.choice(cands)
    return idx, "delete", None


TARGETS = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89",
           "sm_90", "sm_90a", "sm_52", "sm_61", "sm_30", "sm_100"]


def _sm_num(t):
    m = re.match(r"sm_(\d+)", t)
    return int(m.group(1)) if m else 0


# Extra targets for fixtures judged by ptxas 13.5 (PTX ISA > 8.8); the
# <= 8.8 fixtures keep the original list so their mutants do not change.
TARGETS_NEW = TARGETS + ["sm_100a", "sm_103", "sm_110", "sm_120", "sm_120a",
                         "sm_121"]


def mut_target(fx, rng):
    if fx.target_idx is None or not fx.arch:
        return None
    line = fx.lines[fx.target_idx]
    m = TARGET_RE.match(line)
    orig = fx.arch
    targets = TARGETS_NEW if fx.version and fx.version > NEW_ISA else TARGETS
    older = [t for t in targets if _sm_num(t) <= _sm_num(orig) and t != orig]
    newer = [t for t in targets if _sm_num(t) > _sm_num(orig)]
    if orig == "sm_90":
        newer.append("sm_90a")
    if orig.endswith("a"):
        older.append(orig[:-1])
    r = rng.random()
    if older and r < 0.85:
        new = rng.choice(older)
    elif newer and r < 0.95:
        new = rng.choice(newer)
    else:
        new = rng.choice(["compute_" + orig[3:].rstrip("af"), "sm_" + orig[3:] + "x",
                          orig + ", texmode_independent", orig + ", debug"])
    new_target = m.group(2).replace(orig, new, 1) if orig in m.group(2) else new
    return fx.target_idx, "replace", m.group(1) + new_target + m.group(3)


VERSIONS = [(6, 0), (6, 3), (6, 5), (7, 0), (7, 1), (7, 3), (7, 5), (7, 6),
            (7, 8), (8, 0), (8, 1), (8, 3), (8, 4), (8, 5), (8, 6), (8, 7),
            (8, 8), (8, 9), (9, 0)]
# For fixtures judged by ptxas 13.5 (PTX ISA > 8.8): also 9.1 .. 9.6 (9.6 is
# newer than ptxas 13.5 supports).
VERSIONS_NEW = VERSIONS + [(9, 1), (9, 2), (9, 3), (9, 4), (9, 5), (9, 6)]


def mut_version(fx, rng):
    if fx.version_idx is None:
        return None
    line = fx.lines[fx.version_idx]
    m = VERSION_RE.match(line)
    cur = fx.version
    versions = VERSIONS_NEW if cur > NEW_ISA else VERSIONS
    older = [v for v in versions if v < cur]
    newer = [v for v in versions if v > cur]
    r = rng.random()
    if older and r < 0.88:
        # bias towards versions close to the current one
        older_w = older[-8:] if rng.random() < 0.7 else older
        v = rng.choice(older_w)
        new = "%d.%d" % v
    elif newer and r < 0.95:
        new = "%d.%d" % rng.choice(newer)
    else:
        new = rng.choice(["%d" % cur[0], "%d.%d.0" % cur, "%d.%d0" % cur])
    return fx.version_idx, "replace", m.group(1) + new + m.group(4)


def mut_swap_operands(fx, rng):
    t = _pick_instr(fx, rng, lambda i: len(i.operands) >= 2)
    if t is None:
        return None
    idx, ins = t
    n = len(ins.operands)
    # prefer swapping sources (often legal) over dest/src
    if n >= 3 and rng.random() < 0.6:
        i, j = sorted(rng.sample(range(1, n), 2))
    else:
        i, j = sorted(rng.sample(range(n), 2))
    (a1, b1, t1), (a2, b2, t2) = ins.operands[i], ins.operands[j]
    if t1 == t2:
        return None
    line = ins.line
    return idx, "replace", line[:a1] + t2 + line[b1:a2] + t1 + line[b2:]


def _imm_for(ins):
    mods = set(ins.mods)
    if mods & {"f32", "f16", "bf16", "f16x2"}:
        return ["0f3F800000", "0f00000000", "1.0", "0d3FF0000000000000", "1", "0x3F800000"]
    if "f64" in mods:
        return ["0d3FF0000000000000", "0d0000000000000000", "0f3F800000", "2.5", "1"]
    if "pred" in mods:
        return ["1", "0", "-1"]
    return ["0", "1", "7", "-1", "255", "4096", "0x7fffffff", "1.0", "0f3F800000"]


def mut_operand_to_imm(fx, rng):
    t = _pick_instr(fx, rng, lambda i: len(i.operands) >= 1)
    if t is None:
        return None
    idx, ins = t
    n = len(ins.operands)
    if n >= 2 and rng.random() < 0.75:
        k = rng.randrange(1, n)
    else:
        k = rng.randrange(n)
    a, b, text = ins.operands[k]
    imm = rng.choice(_imm_for(ins))
    # inside an address, replace the register part: [%rd1+4] -> [1024+4]
    if text.startswith("[") and rng.random() < 0.7:
        m = REG_TOKEN_RE.search(text)
        if m:
            new = text[:m.start()] + rng.choice(["0", "1024", "16"]) + text[m.end():]
        else:
            new = imm
    elif text.startswith("{") and rng.random() < 0.7:
        regs = list(REG_TOKEN_RE.finditer(text))
        if not regs:
            return None
        m = rng.choice(regs)
        new = text[:m.start()] + imm + text[m.end():]
    else:
        new = imm
    if new == text:
        return None
    line = ins.line
    return idx, "replace", line[:a] + new + line[b:]


def mut_dup_decl(fx, rng):
    cands = list(fx.decls)
    r = rng.random()
    if fx.labels and r < 0.2:
        idx = rng.choice(fx.labels)
    elif r < 0.3 and fx.target_idx is not None:
        idx = rng.choice([x for x in (fx.target_idx, fx.version_idx) if x is not None])
    elif cands:
        idx = rng.choice(cands)
    else:
        return None
    line = fx.lines[idx]
    text = line
    # Sometimes duplicate with a variation (same name, other type).
    if rng.random() < 0.25:
        ms = [m for m in re.finditer(r"\.(\w+)\b", line) if m.group(1) in TYPE_SET]
        if ms:
            m = rng.choice(ms)
            text = line[:m.start(1)] + rng.choice(
                [x for x in TYPES if x != m.group(1)]) + line[m.end(1):]
    return idx, "insert_after", text


def mut_opcode_change(fx, rng):
    t = _pick_instr(fx, rng)
    if t is None:
        return None
    idx, ins = t
    base = ins.base
    r = rng.random()
    if base in SIMILAR_OPS and r < 0.7:
        nb = rng.choice(SIMILAR_OPS[base])
    elif r < 0.8:
        nb = base + rng.choice(BOGUS_SUFFIX)
    elif r < 0.9 and len(base) > 2:
        k = rng.randrange(len(base))
        nb = base[:k] + base[k + 1:]
    else:
        nb = rng.choice(list(SIMILAR_OPS))
    if nb == base:
        return None
    return idx, "replace", ins.with_opcode(".".join([nb] + ins.mods))


MUTATORS = {
    "delete_token": mut_delete_token,
    "type_suffix": mut_type_suffix,
    "modifier": mut_modifier,
    "reg_rename": mut_reg_rename,
    "drop_decl": mut_drop_decl,
    "target": mut_target,
    "version": mut_version,
    "swap_operands": mut_swap_operands,
    "operand_to_imm": mut_operand_to_imm,
    "dup_decl": mut_dup_decl,
    "opcode_change": mut_opcode_change,
}


# --------------------------------------------------------------------------
# Planning
# --------------------------------------------------------------------------

def interleave_by_compiler(fixtures, rng):
    by = collections.OrderedDict()
    for fx in fixtures:
        by.setdefault(fx.compiler, []).append(fx)
    lists = []
    for comp in sorted(by):
        l = list(by[comp])
        rng.shuffle(l)
        lists.append(l)
    out = []
    k = 0
    while any(lists):
        for l in lists:
            if k < len(l):
                out.append(l[k])
        k += 1
        if all(k >= len(l) for l in lists):
            break
    return out


def plan_mutants(fixtures, count, seed, group="", first_id=0):
    """Plan `count` mutants over `fixtures`.  `group` "" is the original
    (PTX ISA <= 8.8) plan, unchanged since the first corpus; any other group
    name seeds its own random streams and starts each kind at a different
    offset into the fixture order, so that a quota smaller than the number of
    fixtures still reaches all of them.  Ids start at `first_id`."""
    gseed = seed if not group else "%s/%s" % (seed, group)
    rng = random.Random(gseed)
    order = interleave_by_compiler(fixtures, rng)
    quota = -(-count // len(KINDS))
    seen = set()
    per_kind = {}
    for ki, kind in enumerate(KINDS):
        krng = random.Random("%s/%s" % (gseed, kind))
        fn = MUTATORS[kind]
        got = []
        stall = 0
        pos = 0 if not group else (ki * quota) % len(order)
        while len(got) < quota and stall < 20 * len(order) + 200:
            fx = order[pos % len(order)]
            pos += 1
            res = None
            for _ in range(6):
                res = fn(fx, krng)
                if res is None:
                    continue
                idx, op, text = res
                orig = fx.lines[idx]
                if op == "replace" and text == orig:
                    res = None
                    continue
                key = (fx.relpath, idx, op, text)
                if key in seen:
                    res = None
                    continue
                seen.add(key)
                break
            if res is None:
                stall += 1
                continue
            idx, op, text = res
            got.append({"fixture": fx.relpath, "line": idx + 1, "op": op,
                        "kind": kind, "original": fx.lines[idx], "text": text,
                        "arch": fx.arch})
        per_kind[kind] = got
    # interleave kinds so any prefix is balanced
    plan = []
    for i in range(quota):
        for kind in KINDS:
            if i < len(per_kind[kind]):
                plan.append(per_kind[kind][i])
    plan = plan[:count]
    for n, rec in enumerate(plan):
        rec["id"] = first_id + n
    return plan


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------

def load_fixtures(max_size, jobs, workdir, log):
    paths = discover_fixtures(max_size)
    fixtures = []
    texts = {}
    for p in paths:
        with open(os.path.join(REPO, p), encoding="utf-8", newline="") as f:
            texts[p] = f.read()
    cand = []
    for p in paths:
        fx = Fixture(p, texts[p])
        if not fx.arch or not fx.instrs:
            log("skip %s: no sm_ target or no instructions" % p)
            SKIPPED[p] = "no sm_ target or no instructions"
            continue
        cand.append(fx)

    def check(ifx):
        i, fx = ifx
        px = ptxas_for(fx.version, fx.text)
        if not arch_supported(px, fx.arch):
            return fx, ("unsupported-arch", "ptxas %s does not support -arch=%s" % (px, fx.arch))
        return fx, run_ptxas(fx.text, fx.arch, workdir, "base%d" % i, px)

    for px in PTXAS_BY_VERSION:          # fill the cache before threading
        for a in sorted(set(fx.arch for fx in cand)):
            arch_supported(px, a)
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for fx, res in ex.map(check, enumerate(cand)):
            if res is not None and res[0] == "unsupported-arch":
                log("skip %s: %s" % (fx.relpath, res[1]))
                SKIPPED[fx.relpath] = res[1]
                continue
            if res is None or res[0] != "accept":
                log("skip %s: baseline ptxas %s" % (fx.relpath, res))
                SKIPPED[fx.relpath] = "baseline: %s" % (res[1] if res else "timeout")
                continue
            fixtures.append(fx)
    return fixtures


def record_json(rec, verdict, msg, ptxas):
    out = collections.OrderedDict()
    for k in ("id", "fixture", "line", "op", "kind", "original", "text"):
        out[k] = rec[k]
    out["ptxas"] = verdict
    out["ptxas_msg"] = msg
    out["arch"] = rec["arch"]
    out["ptxas_version"] = ptxas
    return json.dumps(out, ensure_ascii=False)


def run_plan(plan, texts, jobs, out_path, resume, log):
    done = set()
    mode = "w"
    if resume and os.path.exists(out_path):
        with open(out_path, encoding="utf-8") as f:
            for l in f:
                try:
                    done.add(json.loads(l)["id"])
                except (ValueError, KeyError):
                    break
        mode = "a"
    todo = [r for r in plan if r["id"] not in done]
    log("%d planned, %d already done, %d to run" % (len(plan), len(done), len(todo)))
    workdir = tempfile.mkdtemp(prefix="ptxmut_")

    def work(rec):
        text = apply(texts[rec["fixture"]], rec)
        px = ptxas_for(module_version(texts[rec["fixture"]]), text)
        if not arch_supported(px, rec["arch"]):
            return rec, px, "unsupported-arch"
        return rec, px, run_ptxas(text, rec["arch"], workdir, "m%d" % rec["id"], px)

    for px in PTXAS_BY_VERSION:          # fill the cache before threading
        for a in sorted(set(r["arch"] for r in todo)):
            arch_supported(px, a)
    stats = collections.Counter()
    t0 = time.time()
    with open(out_path, mode, encoding="utf-8") as out, \
            concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for n, (rec, px, res) in enumerate(ex.map(work, todo)):
            if res is None:
                log("timeout: id %d (%s line %d) dropped" % (rec["id"], rec["fixture"], rec["line"]))
                DROPPED[str(rec["id"])] = "ptxas %s timeout" % px
                stats["timeout"] += 1
                continue
            if res == "unsupported-arch":
                log("id %d (%s line %d) needs ptxas %s, which does not support -arch=%s: dropped"
                    % (rec["id"], rec["fixture"], rec["line"], px, rec["arch"]))
                DROPPED[str(rec["id"])] = "needs ptxas %s, which does not support -arch=%s" % (px, rec["arch"])
                stats["unsupported-arch"] += 1
                continue
            out.write(record_json(rec, res[0], res[1], px) + "\n")
            out.flush()
            stats[res[0]] += 1
            stats["ptxas " + px] += 1
            if (n + 1) % 200 == 0:
                log("%d/%d done (%.0fs) %s" % (n + 1, len(todo), time.time() - t0, dict(stats)))
    try:
        os.rmdir(workdir)
    except OSError:
        pass
    return stats


def read_records(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def verify(path, sample, seed, jobs, log):
    recs = read_records(path)
    meta_path = os.path.join(os.path.dirname(os.path.abspath(path)), "meta.json")
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            shas = json.load(f).get("fixtures", {})
        stale = 0
        for p, sha in shas.items():
            fp = os.path.join(REPO, p)
            if not os.path.exists(fp):
                log("fixture missing: %s" % p)
                stale += 1
                continue
            with open(fp, "rb") as f:
                if hashlib.sha256(f.read()).hexdigest() != sha:
                    log("fixture changed since generation: %s" % p)
                    stale += 1
        log("%d/%d fixtures unchanged" % (len(shas) - stale, len(shas)))
    rng = random.Random(seed)
    pick = recs if sample >= len(recs) else rng.sample(recs, sample)
    texts = {}
    for r in pick:                       # read fixtures before threading
        if r["fixture"] not in texts:
            with open(os.path.join(REPO, r["fixture"]), encoding="utf-8", newline="") as f:
                texts[r["fixture"]] = f.read()
    workdir = tempfile.mkdtemp(prefix="ptxmutv_")
    bad = 0
    bad_text = 0

    def work(rec):
        if rec["fixture"] not in texts:
            with open(os.path.join(REPO, rec["fixture"]), encoding="utf-8", newline="") as f:
                texts[rec["fixture"]] = f.read()
        try:
            text = apply(texts[rec["fixture"]], rec)
        except (ValueError, IndexError) as e:
            return rec, ("apply-failed", str(e))
        px = rec.get("ptxas_version", "12.9")
        want = ptxas_for(module_version(texts[rec["fixture"]]), text)
        if px != want:
            return rec, ("apply-failed", "recorded ptxas %s, the rule says %s" % (px, want))
        return rec, run_ptxas(text, rec["arch"], workdir, "v%d" % rec["id"], px)

    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for rec, res in ex.map(work, pick):
            if res is None:
                log("id %d: timeout" % rec["id"])
                bad += 1
            elif res[0] == "apply-failed":
                log("id %d: %s" % (rec["id"], res[1]))
                bad_text += 1
            elif res[0] != rec["ptxas"]:
                log("id %d: recorded %s, now %s (%s)" % (rec["id"], rec["ptxas"], res[0], res[1]))
                bad += 1
            elif res[1] != rec["ptxas_msg"]:
                log("id %d: same verdict, message differs: %r vs %r" % (rec["id"], rec["ptxas_msg"], res[1]))
    try:
        os.rmdir(workdir)
    except OSError:
        pass
    log("verified %d records (%s): %d verdict mismatches, %d fixture/rule mismatches"
        % (len(pick), dict(collections.Counter(r.get("ptxas_version", "12.9") for r in pick)),
           bad, bad_text))
    return bad == 0 and bad_text == 0


# --------------------------------------------------------------------------
# README
# --------------------------------------------------------------------------

README_HEAD = """# ptxas-labelled mutation corpus

`mutants.jsonl` holds single-line mutants of the real-compiler fixtures in
`tests/fixtures/<compiler>/*.ptx`, each labelled with the verdict of NVIDIA
ptxas 12.9 or ptxas 13.5 (see "Which ptxas" below).
It is generated by `tools/gen_mutants.py` (do not edit by hand).

## Format

One JSON object per line:

```json
{"id": 0, "fixture": "tests/fixtures/nvrtc12/x.ptx", "line": 42, "op": "replace",
 "kind": "delete_token", "original": "\\tadd.s32 \\t%r3, %r1, %r2;",
 "text": "\\tadd.s32 \\t%r3, %r1 %r2;", "ptxas": "reject",
 "ptxas_msg": "line 42; error: syntax error ...", "arch": "sm_80",
 "ptxas_version": "12.9"}
```

* `line` is 1-based in the fixture's text split on `'\\n'` (a `'\\r'`, if any,
  stays part of the line). `original` is that line verbatim.
* `op`: `replace` (line becomes `text`), `delete` (line removed, `text` is
  `null`), `insert_after` (`text` inserted as a new line after `line`).
* `ptxas`: `accept` (exit status 0) or `reject`.
* `ptxas_msg`: for rejects the first `error`/`fatal` line of ptxas's output,
  for accepts the first `warning`/`info` line (or `""`). The `ptxas <file>, ` prefix is
  stripped and whitespace collapsed, e.g. `line 12; error: Arguments mismatch
  for instruction 'mov'`. Line numbers refer to the *mutated* file (they are
  shifted by one after a `delete` / `insert_after`).
* `arch`: the `-arch` ptxas was run with; always the sm_XX of the *original*
  fixture's `.target` (for `target` mutants this is what makes a too-old
  `.target` show up as per-instruction errors: ptxas checks instruction
  support against the module's `.target`, and refuses a `.target` newer than
  `-arch`).
* `ptxas_version`: which ptxas judged the mutant, `"12.9"` or `"13.5"`.

## Which ptxas

ptxas 12.9 (CUDA 12.9) reads PTX ISA up to 8.8; ptxas 13.5 (CUDA 13.5) reads
up to 9.5 but no longer accepts `-arch` below `sm_75` (CUDA 13 dropped
sm_50..sm_72: `Value 'sm_70' is not defined for option 'gpu-name'`). So:

* a mutant is judged by **ptxas 13.5** if its fixture's `.version` or the
  mutated module's (first) `.version` is above 8.8, and by **ptxas 12.9**
  otherwise. Versions compare as `(major, minor)` integer pairs, as ptxas
  reads them, so `.version 8.9` and `.version 8.80` count as newer than 8.8
  (both ptxas reject those as `Unsupported .version`). A malformed `.version`
  (`.version 9`) falls back to the fixture's version.
* if that ptxas is 13.5 and it does not support the fixture's `-arch` (an
  sm_70 fixture whose `.version 8.8` was changed to `9.0`), the mutant is
  dropped: its id is left out of the file (ids are otherwise unchanged).
* a fixture is used only if the ptxas chosen by its own `.version` accepts it
  unmodified: the PTX ISA 9.x fixtures (`nvrtc13` `.version 9.5`, `triton`
  sm_90a `.version 9.4`) are checked and mutated with ptxas 13.5, all others
  with ptxas 12.9.

The corpus is two plans with one seed: ids `0 .. --count-1` are planned over
the `.version <= 8.8` fixtures exactly as in the first, 12.9-only corpus (same
seed, same records, plus `ptxas_version`); ids from `--count` on are planned
over the `.version > 8.8` fixtures with their own random streams (seeded
`"<seed>/isa9"`), each kind starting at a different offset into the fixture
order so that every fixture gets mutants. For those fixtures `version`
mutants may also pick 9.1 .. 9.6 and `target` mutants also `sm_100a`,
`sm_103`, `sm_110`, `sm_120`, `sm_120a`, `sm_121`.

Reconstruct a mutant with `apply(fixture_text, record)` from
`tools/gen_mutants.py`:

```python
lines = fixture_text.split("\\n"); i = rec["line"] - 1
assert lines[i] == rec["original"]
if rec["op"] == "replace": lines[i] = rec["text"]
elif rec["op"] == "delete": del lines[i]
else: lines.insert(i + 1, rec["text"])          # insert_after
mutated = "\\n".join(lines)
```

## Mutation kinds

| kind | edit |
|---|---|
| `delete_token` | remove one lexical token of an instruction line (operand, `.modifier`, `;`, `,`, `[`/`]`, `{`/`}`, guard) |
| `type_suffix` | replace a type suffix of an instruction (or, ~15%, of a declaration) by another type; half the time within the same width (`.u32`→`.s32`/`.b32`/`.f32`) |
| `modifier` | change a non-type modifier within its family (`.rn`→`.rz`, `.global`→`.shared`, `.v4`→`.v2`, `.lt`→`.ge`), delete one, or insert one (`.ftz`, `.sat`, `.uni`, `.volatile`, ...) |
| `reg_rename` | rename one register operand: to another declared register of the same class (often valid), an out-of-range one (`%r9999`), one of a differently-typed class (`%r5`→`%rd5`), or an undeclared class |
| `drop_decl` | delete a declaration line (`.reg`, `.param`, `.shared`, `.local`, `.global`, `.const`) or a label |
| `target` | change `.target` to an older target (mostly), a newer one, `sm_90`↔`sm_90a`, or a malformed one |
| `version` | change `.version` to an older version (mostly), a newer one, or a malformed one |
| `swap_operands` | swap two operands of an instruction (mostly two sources) |
| `operand_to_imm` | replace an operand (mostly a source) by an immediate, or the register inside an address / vector operand |
| `dup_decl` | insert a copy of a declaration / label / `.target` / `.version` line right after it (sometimes with another type) |
| `opcode_change` | change the opcode to a similar real one (`add`→`sub`, `and`→`xor`, `ld`→`ldu`) or a near-miss (`addx`, `ad`) |

## ptxas behaviour worth knowing (ptxas 12.9)

* Feature support is checked against the module's `.target`, not just
  `-arch`: with `-arch=sm_80`, `.target sm_60` gives per-instruction errors
  such as `Feature '.bf16' requires .target sm_80 or higher` or `Instruction
  'match' requires .target sm_70 or higher`, while a kernel using nothing
  newer is accepted with any older target (even `sm_30`/`sm_20`).
* A `.target` newer than `-arch` is a `fatal` without a line number (`SM
  version specified by .target is higher than default SM version assumed`);
  `.target sm_90a` under `-arch=sm_90` gives `PTX with .target 'sm_90a'
  cannot be compiled for architecture 'sm_90'`. With `-arch=sm_90a`, a
  `.target sm_90`/`sm_100` only fails on the arch-specific instructions
  (`Instruction 'wgmma.fence' not supported on .target 'sm_90'`).
* `.target` parsing is lenient: `compute_80`, `sm_80x` (!),
  `sm_80, texmode_independent` and a duplicated `.target` line are accepted;
  `sm_80a` and `sm_8` are `Unsupported .target`. A duplicated `.version` line
  gives `Missing .target directive`.
* `.version` above 8.8 is `fatal: Unsupported .version`; an older one fails
  with `PTX .version X does not support .target sm_NN` (reported at
  `<macro util>, line 2` rather than at a line of the file) or `... requires
  PTX ISA .version N or later`.
* Registers outside the declared `%r<N>` range (`%r9999`) and registers of the
  wrong class are both reported as `Arguments mismatch for instruction 'X'`,
  not as undeclared names.
* A missing `;` is reported on the *next* line (`Parsing error near 'add'`);
  a missing comma before an address (`%rd2 [p]`) is `Array indexing on
  non-array`; `.lo`/`.hi` after the type is read as a comparison qualifier.
* Modifier order is free (`st.f32.cg`, `add.s32.sat`, `ld.global.weak` are
  accepted). `.b` registers take any same-size type (`add.f64` on `%rd`),
  `.reg .b32 %r<N>` may become `.reg .f16x2`, `ld.global` -> `ld.param` on a
  register address is accepted, and a `.param` declared narrower than the
  `ld.param` that reads it is accepted with only an `info` (`Potential out of
  bound access ...`).
* Deleting an unreferenced `.param` entry or a `$L__tmp` debug label is
  accepted.

## ptxas 13.5 differences seen in the corpus

* `.version 9.0` .. `9.5` are accepted (`9.6` and `9.50` are `Unsupported
  .version ...; current version is '9.5'`); older versions fail as in 12.9
  (`PTX .version 8.4 does not support .target sm_120`, `Modifier '.async'
  requires PTX ISA .version 8.0 or later`).
* `.target sm_90a` under `-arch=sm_120` is `fatal: Program with .target
  'sm_90a' cannot be compiled to future architecture`; `.target sm_120a` under
  `-arch=sm_120` is `PTX with .target 'sm_120a' cannot be compiled for
  architecture 'sm_120'`; `.target sm_103` under `-arch=sm_120` is accepted.
* Old `.target`s (`sm_30`, `sm_50`, ...) are still parsed and give the same
  per-instruction `requires .target sm_NN or higher` errors as 12.9, even
  though `-arch` no longer accepts them.

## Generation

```
python3 tools/gen_mutants.py --seed 1 --count 2640 --count-new 1100 --jobs 2   # regenerate
python3 tools/gen_mutants.py --verify --sample 300               # re-check verdicts
python3 tools/gen_mutants.py --readme                            # refresh this file
```

ptxas binaries: `$PTXAS` (12.9) and `$PTXAS13` (13.5, default the one in
`/opt/venv-cu13`). Fixtures are the `tests/fixtures/*/*.ptx` files up to
`--max-size` bytes (default 60 KB) that their ptxas accepts unmodified with
`-arch=<their .target>`. Mutants are
spread round-robin over fixtures (interleaving compilers), with an equal quota
per kind; the plan is fully determined by the fixture set and `--seed`.
Identical (fixture, line, op, text) edits and no-op edits are dropped.
ptxas is run as `ptxas -arch=<arch> -o /dev/null mutant.ptx` with a 30 s
timeout (timeouts are dropped, not recorded). `--verify` re-runs the recorded
ptxas on a sample and also checks that `ptxas_version` follows the rule above.
"""


def write_readme(path, log, meta=None):
    recs = read_records(path)
    by_kind = collections.OrderedDict((k, collections.Counter()) for k in KINDS)
    by_comp = collections.defaultdict(collections.Counter)
    by_px = collections.defaultdict(collections.Counter)
    by_kind_px = collections.OrderedDict((k, collections.Counter()) for k in KINDS)
    fixtures = set()
    fixtures_px = collections.defaultdict(set)
    for r in recs:
        px = r.get("ptxas_version", "12.9")
        by_kind.setdefault(r["kind"], collections.Counter())[r["ptxas"]] += 1
        by_kind_px.setdefault(r["kind"], collections.Counter())[px] += 1
        by_comp[os.path.basename(os.path.dirname(r["fixture"]))][r["ptxas"]] += 1
        by_px[px][r["ptxas"]] += 1
        fixtures.add(r["fixture"])
        fixtures_px[px].add(r["fixture"])
    pxs = sorted(by_px)
    tot = collections.Counter(r["ptxas"] for r in recs)
    s = [README_HEAD, "\n## Counts\n\n"]
    s.append("Generated with %s%s.\n" % (
        " and ".join("ptxas %s: `%s`" % (v, ptxas_version(v)) for v in PTXAS_BY_VERSION),
        (" " + meta) if meta else ""))
    s.append("\n%d mutants over %d fixtures: %d accept (%.1f%%), %d reject.\n"
             % (len(recs), len(fixtures), tot["accept"],
                100.0 * tot["accept"] / max(len(recs), 1), tot["reject"]))
    s.append("\n| judged by | mutants | fixtures | accept | reject |\n|---|---:|---:|---:|---:|\n")
    for px in pxs:
        c = by_px[px]
        s.append("| ptxas %s | %d | %d | %d | %d |\n" % (
            px, c["accept"] + c["reject"], len(fixtures_px[px]), c["accept"], c["reject"]))
    meta_path = os.path.join(os.path.dirname(os.path.abspath(path)), "meta.json")
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            meta_json = json.load(f)
        skipped = meta_json.get("skipped", {})
        dropped = meta_json.get("dropped", {})
        if dropped:
            s.append("\n%d planned mutants were dropped (ids %s): %s.\n" % (
                len(dropped), ", ".join(sorted(dropped, key=int)),
                "; ".join("%d %s" % (n, why) for why, n in
                          sorted(collections.Counter(dropped.values()).items()))))
        why = collections.Counter()
        for p, reason in skipped.items():
            comp = os.path.basename(os.path.dirname(p))
            if "Unsupported .version" in reason:
                reason = "`.version` newer than this ptxas supports"
            elif reason.startswith("size"):
                reason = "larger than --max-size"
            elif "does not support -arch" in reason:
                reason = reason.split(" does not")[0] + " does not support its `.target`"
            why[(comp, reason)] += 1
        if why:
            s.append("\nFixtures not used (see `meta.json` for the list):\n\n")
            for (comp, reason), n in sorted(why.items()):
                s.append("* %s: %d, %s\n" % (comp, n, reason))
    s.append("\n| kind | total | accept | reject | %s |\n|---|---:|---:|---:|%s\n" % (
        " | ".join("ptxas %s" % px for px in pxs), "---:|" * len(pxs)))
    for k, c in by_kind.items():
        s.append("| `%s` | %d | %d | %d | %s |\n" % (
            k, c["accept"] + c["reject"], c["accept"], c["reject"],
            " | ".join(str(by_kind_px[k][px]) for px in pxs)))
    s.append("| **all** | %d | %d | %d | %s |\n" % (
        len(recs), tot["accept"], tot["reject"],
        " | ".join(str(sum(by_px[px].values())) for px in pxs)))
    s.append("\n| compiler | total | accept | reject |\n|---|---:|---:|---:|\n")
    for k in sorted(by_comp):
        c = by_comp[k]
        s.append("| %s | %d | %d | %d |\n" % (k, c["accept"] + c["reject"], c["accept"], c["reject"]))
    with open(os.path.join(os.path.dirname(path), "README.md"), "w", encoding="utf-8") as f:
        f.write("".join(s))
    log("wrote README.md")


# --------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=2640,
                    help="mutants to plan over the fixtures with .version <= 8.8")
    ap.add_argument("--count-new", type=int, default=1100,
                    help="mutants to plan over the fixtures with .version > 8.8 "
                         "(judged by ptxas 13.5); their ids follow the first --count")
    ap.add_argument("--limit", type=int, default=None, help="run only the first N planned mutants")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--max-size", type=int, default=60 * 1024)
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--resume", action="store_true", help="keep records already in --out")
    ap.add_argument("--verify", action="store_true", help="re-run ptxas on a sample of --out")
    ap.add_argument("--sample", type=int, default=200)
    ap.add_argument("--readme", action="store_true", help="only regenerate README.md from --out")
    ap.add_argument("--plan-only", action="store_true", help="print the plan, do not run ptxas")
    args = ap.parse_args()

    def log(msg):
        print("[gen_mutants] " + msg, file=sys.stderr, flush=True)

    if args.verify:
        sys.exit(0 if verify(args.out, args.sample, args.seed, args.jobs, log) else 1)
    if args.readme:
        write_readme(args.out, log)
        return

    t0 = time.time()
    workdir = tempfile.mkdtemp(prefix="ptxmutb_")
    fixtures = load_fixtures(args.max_size, args.jobs, workdir, log)
    try:
        os.rmdir(workdir)
    except OSError:
        pass
    if not fixtures:
        log("no usable fixtures")
        sys.exit(1)
    log("%d usable fixtures (%s)" % (len(fixtures), dict(collections.Counter(f.compiler for f in fixtures))))
    old_fx = [f for f in fixtures if not (f.version and f.version > NEW_ISA)]
    new_fx = [f for f in fixtures if f.version and f.version > NEW_ISA]
    plan = plan_mutants(old_fx, args.count, args.seed) if old_fx else []
    if new_fx and args.count_new > 0:
        plan += plan_mutants(new_fx, args.count_new, args.seed, group="isa9",
                             first_id=args.count)
    if args.limit is not None:
        plan = plan[:args.limit]
    if args.plan_only:
        for r in plan:
            print(json.dumps(r))
        return
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    texts = {f.relpath: f.text for f in fixtures}
    stats = run_plan(plan, texts, args.jobs, args.out, args.resume, log)
    log("done in %.0fs: %s" % (time.time() - t0, dict(stats)))
    used = sorted(set(r["fixture"] for r in plan))
    meta = collections.OrderedDict([
        ("generator", "tools/gen_mutants.py"),
        ("ptxas", collections.OrderedDict((v, ptxas_version(v)) for v in PTXAS_BY_VERSION)),
        ("ptxas_rule", "ptxas 13.5 if the fixture's or the mutated module's .version "
                       "is above 8.8 (as a (major, minor) pair), else ptxas 12.9; "
                       "mutants whose arch ptxas 13.5 does not support are dropped"),
        ("seed", args.seed), ("count", args.count), ("count_new", args.count_new),
        ("limit", args.limit),
        ("max_size", args.max_size),
        ("skipped", SKIPPED),
        ("dropped", DROPPED),
        ("fixtures", collections.OrderedDict(
            (p, hashlib.sha256(texts[p].encode("utf-8")).hexdigest()) for p in used)),
    ])
    with open(os.path.join(os.path.dirname(os.path.abspath(args.out)), "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    if os.path.abspath(args.out) == os.path.abspath(OUT):
        write_readme(args.out, log, "(seed %d, --count %d, --count-new %d, %d fixtures <= %d bytes)"
                     % (args.seed, args.count, args.count_new, len(fixtures), args.max_size))


if __name__ == "__main__":
    main()
