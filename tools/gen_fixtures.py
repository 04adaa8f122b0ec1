#!/usr/bin/env python3
"""Regenerate the real-compiler PTX fixture corpus in ``tests/fixtures/``.

Every kernel source lives in ``fixtures-src/``; this script compiles each one with
every applicable compiler / architecture / flag combination, writes the PTX to
``tests/fixtures/<compiler>/<name>.ptx``, checks every file with ``ptxas`` and
writes ``tests/fixtures/manifest.json``.  The tests of ptxvm only *read* the
fixtures; nothing but this script needs the compilers.

Compilers (output directory -> tool):

* ``nvrtc12``  NVRTC 12.9  (pip ``nvidia-cuda-nvrtc-cu12``), loaded through ctypes
* ``nvrtc13``  NVRTC 13.x  (pip ``nvidia-cuda-nvrtc``, installed in a separate venv)
* ``triton``   Triton 3.x  (pip ``triton``), ``triton.compile(ASTSource(...), target=GPUTarget("cuda", cc, 32))``
  for cc 80 and 90 (no GPU needed); each ``fixtures-src/triton/*.py`` lists ``FIXTURES``
  (kernel, signature, constexprs, options, optional ``divisible`` args and ``archs``)
* ``numba``    numba-cuda  (pip ``numba-cuda``), ``numba.cuda.compile_ptx`` with NVVM from ``nvidia-cuda-nvcc-cu12``
  for cc 7.5/8.0/9.0; each ``fixtures-src/numba/*.py`` lists ``FIXTURES`` (function, signature, options)
* ``clang19``  clang-19 NVPTX backend (Debian ``clang-19``)

``ptxas`` 12.9 (pip ``nvidia-cuda-nvcc-cu12``) checks every file whose ``.version``
it supports (<= 8.8); PTX with a newer ``.version`` (NVRTC 13 emits 9.x) is
checked with ``ptxas`` 13.x (pip ``nvidia-cuda-nvcc`` in the CUDA 13 venv).
Files ptxas rejects are not written; they are listed under ``rejected`` in the
manifest and the script exits non-zero.

Setup (exact versions are pinned in ``tools/requirements-fixtures.txt``; the
committed corpus was made with NVRTC 12.9.86 and 13.5.37, ptxas 12.9.86 and
13.5.37, Triton 3.9.0 with its bundled ptxas 12.9 / 13.4, numba-cuda 0.30.4 on
numba 0.68.1 with NVVM from nvidia-cuda-nvcc-cu12 12.9.86, Debian clang 19.1.7)::

    apt-get update && apt-get install -y clang-19
    pip install -r tools/requirements-fixtures.txt          # cu12 toolchain, triton, numba-cuda
    python3 -m venv /opt/venv-cu13
    /opt/venv-cu13/bin/pip install nvidia-cuda-nvrtc==13.5.37 nvidia-cuda-nvcc==13.5.37 \\
        nvidia-cuda-runtime==13.5.37 nvidia-cuda-crt==13.5.37 nvidia-nvvm==13.5.37 \\
        nvidia-cuda-cccl==13.3.5.0.6

Usage (from the repository root)::

    python3 tools/gen_fixtures.py                 # regenerate everything
    python3 tools/gen_fixtures.py --only nvrtc12,clang19
    python3 tools/gen_fixtures.py --cu13-prefix /opt/venv-cu13 -j 2

``--only`` regenerates the named compilers and keeps the other entries of the
manifest.  Options: ``--cu13-prefix`` (or env ``FIXTURES_CU13_PREFIX``), the
CUDA 13 venv; ``--clang`` the clang binary (default ``clang-19``).

Output names: ``nvrtc12|nvrtc13|clang19/<source-stem>.sm_<arch>[.<variant>].ptx``,
``triton|numba/<module>.<fixture-name>.sm_<cc>.ptx``.  NVRTC compiles with
``-std=c++17 -arch=compute_<arch>``; clang with ``-O2`` and an explicit PTX ISA
per arch (+ptx64 for sm_70, +ptx75 for sm_80, +ptx80 for sm_90/sm_90a).

Determinism: the script re-executes itself with ``PYTHONHASHSEED=0``, compiles
every numba kernel in a fresh interpreter and sorts numba's ``.common .global``
NumbaEnv declarations (emitted in object-identity order; the only change made to
any compiler's output), sources are passed to the compilers by
their repository-relative path, Triton's cache is pointed at a fresh temporary
directory, the output directories are emptied of ``*.ptx`` before writing, and
the manifest is sorted.  Re-running with the same tool versions reproduces the
files byte for byte.  Debug line tables (``.file``) in Triton output and in
NVRTC ``-lineinfo``/``-G`` output name absolute paths (the checkout, the
site-packages headers), so a byte-identical rebuild also needs the same paths
(the committed files were built in ``/work/main`` with CPython under
``/root/.pyenv/versions/3.11.7``).

Source annotations: every ``fixtures-src/cuda/*.cu`` and ``fixtures-src/clang/*``
file carries one line ``// fixture: key=value ...``:

* ``min_sm=NN``   lowest architecture the source compiles for (default 70)
* ``archs=a,b``   explicit architecture list (e.g. ``90a``), overriding the defaults
* ``variants=...`` extra single-arch builds: ``lineinfo`` (``-lineinfo``, .loc/.file),
  ``debug`` (``-G``, DWARF sections), ``fastmath`` (``-use_fast_math``); for clang
  ``O0`` / ``g`` (``-O0`` / ``-g``)
* ``lang=c``      (clang only) compile as C with ``-march`` instead of CUDA
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import ctypes
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "fixtures-src"
OUT = REPO / "tests" / "fixtures"
COMPILERS = ["nvrtc12", "nvrtc13", "triton", "numba", "clang19"]

NVRTC12_ARCHS = ["70", "80", "90"]
NVRTC13_ARCHS = ["80", "90", "120"]   # CUDA 13 dropped sm_70/sm_72
TRITON_ARCHS = [80, 90]
NUMBA_ARCHS = [(7, 5), (8, 0), (9, 0)]
CLANG_ARCHS = ["70", "80", "90"]


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- toolchains

def site_nvidia() -> Path:
    import nvidia  # namespace package of the cu12 wheels

    for p in nvidia.__path__:
        if (Path(p) / "cuda_nvrtc").is_dir():
            return Path(p)
    raise SystemExit("nvidia-cuda-nvrtc-cu12 is not installed in this interpreter")


def cu13_root(prefix: str) -> Path:
    vers = f"python{sys.version_info.major}.{sys.version_info.minor}"
    cands = sorted(Path(prefix).glob("lib/python3*/site-packages/nvidia/cu13"))
    pref = [c for c in cands if vers in str(c)]
    if not (pref or cands):
        raise SystemExit(f"CUDA 13 wheels not found under {prefix} (see --cu13-prefix)")
    return (pref or cands)[0]


def tool_version(exe: str | Path) -> str:
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release ([\d.]+), V([\d.]+)", out)
    return m.group(2) if m else out.strip().splitlines()[-1]


class Nvrtc:
    def __init__(self, lib: Path, includes: list[Path], tag: str):
        self.lib = ctypes.CDLL(str(lib))
        self.lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        self.includes = includes
        self.tag = tag
        ma, mi = ctypes.c_int(), ctypes.c_int()
        self.lib.nvrtcVersion(ctypes.byref(ma), ctypes.byref(mi))
        self.version = f"{ma.value}.{mi.value}"

    def compile(self, src_text: str, name: str, opts: list[str]) -> str:
        lib = self.lib
        prog = ctypes.c_void_p()
        r = lib.nvrtcCreateProgram(ctypes.byref(prog), src_text.encode(), name.encode(), 0, None, None)
        if r:
            raise RuntimeError(lib.nvrtcGetErrorString(r).decode())
        try:
            all_opts = opts + [f"-I{p}" for p in self.includes]
            arr = (ctypes.c_char_p * len(all_opts))(*[o.encode() for o in all_opts])
            r = lib.nvrtcCompileProgram(prog, len(all_opts), arr)
            n = ctypes.c_size_t()
            lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
            buf = ctypes.create_string_buffer(n.value)
            lib.nvrtcGetProgramLog(prog, buf)
            if r:
                raise RuntimeError(f"{lib.nvrtcGetErrorString(r).decode()}\n{buf.value.decode(errors='replace')}")
            lib.nvrtcGetPTXSize(prog, ctypes.byref(n))
            buf = ctypes.create_string_buffer(n.value)
            r = lib.nvrtcGetPTX(prog, buf)
            if r:
                raise RuntimeError(lib.nvrtcGetErrorString(r).decode())
            return buf.value.decode()
        finally:
            lib.nvrtcDestroyProgram(ctypes.byref(prog))


# --------------------------------------------------------------------------- helpers

def parse_annotations(path: Path) -> dict:
    ann = {"min_sm": 70, "archs": None, "variants": [], "lang": None}
    for line in path.read_text().splitlines()[:5]:
        m = re.match(r"\s*//\s*fixture:(.*)", line)
        if not m:
            continue
        for kv in m.group(1).split():
            k, _, v = kv.partition("=")
            if k == "min_sm":
                ann["min_sm"] = int(v)
            elif k == "archs":
                ann["archs"] = v.split(",")
            elif k == "variants":
                ann["variants"] = [x for x in v.split(",") if x]
            elif k == "lang":
                ann["lang"] = v
    return ann


def arch_num(a: str) -> int:
    return int(re.match(r"\d+", a).group(0))


def pick_archs(ann: dict, defaults: list[str]) -> list[str]:
    if ann["archs"]:
        return list(ann["archs"])
    return [a for a in defaults if arch_num(a) >= ann["min_sm"]]


def variant_arch(archs: list[str]) -> str:
    """Architecture used for the single-arch flag variants: sm_80 if possible."""
    for a in archs:
        if arch_num(a) >= 80:
            return a
    return archs[-1]


def ptx_header(ptx: str) -> tuple[str, str]:
    v = re.search(r"^\s*\.version\s+(\d+\.\d+)", ptx, re.M)
    t = re.search(r"^\s*\.target\s+([\w]+)", ptx, re.M)
    return (v.group(1) if v else "?", t.group(1) if t else "?")


class Job:
    def __init__(self, compiler, out_rel, source, arch, flags, compiler_version, produce):
        self.compiler = compiler
        self.out_rel = out_rel
        self.source = source
        self.arch = arch
        self.flags = flags
        self.compiler_version = compiler_version
        self.produce = produce  # () -> ptx text


# --------------------------------------------------------------------------- job builders

def nvrtc_jobs(nv: Nvrtc, defaults: list[str]) -> list[Job]:
    jobs = []
    base = ["-std=c++17"]
    for src in sorted((SRC / "cuda").glob("*.cu")):
        ann = parse_annotations(src)
        archs = pick_archs(ann, defaults)
        if nv.tag == "nvrtc13":
            archs = [a for a in archs if arch_num(a) >= 75]
        rel = src.relative_to(REPO).as_posix()
        text = src.read_text()
        builds = [(a, [], "") for a in archs]
        if archs:
            va = variant_arch(archs)
            for v in ann["variants"]:
                flag = {"lineinfo": ["-lineinfo"], "debug": ["-G"], "fastmath": ["-use_fast_math"]}[v]
                builds.append((va, flag, "." + {"lineinfo": "lineinfo", "debug": "G", "fastmath": "fastmath"}[v]))
        for arch, extra, suffix in builds:
            opts = base + [f"-arch=compute_{arch}"] + extra
            out_rel = f"{nv.tag}/{src.stem}.sm_{arch}{suffix}.ptx"
            jobs.append(Job(nv.tag, out_rel, rel, f"sm_{arch}", opts, nv.version,
                            (lambda text=text, rel=rel, opts=opts: nv.compile(text, rel, opts))))
    return jobs


def load_module(path: Path, modname: str):
    sys.dont_write_bytecode = True   # keep fixtures-src/ free of __pycache__
    rel = path.relative_to(REPO).as_posix()   # relative filename => stable debug info
    spec = importlib.util.spec_from_file_location(modname, rel)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    spec.loader.exec_module(mod)
    return mod


def triton_jobs() -> list[Job]:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from triton.backends.nvidia.compiler import get_ptxas

    def tptx(cc):
        return get_ptxas(cc).version

    jobs = []
    for src in sorted((SRC / "triton").glob("*.py")):
        mod = load_module(src, f"fixtures_triton_{src.stem}")
        rel = src.relative_to(REPO).as_posix()
        for fx in mod.FIXTURES:
            for cc in fx.get("archs", TRITON_ARCHS):
                opts = dict(fx.get("options", {}))
                flags = [f"{k}={v}" for k, v in sorted(opts.items())]
                flags += [f"{k}={v}" for k, v in sorted(fx.get("constexprs", {}).items())]
                flags += [f"divisible16={','.join(fx['divisible'])}"] if fx.get("divisible") else []

                def produce(fx=fx, cc=cc, opts=opts):
                    names = list(fx["signature"])
                    attrs = {(names.index(a),): [["tt.divisibility", 16]] for a in fx.get("divisible", [])}
                    s = ASTSource(fx["fn"], fx["signature"], constexprs=fx.get("constexprs"), attrs=attrs)
                    k = triton.compile(s, target=GPUTarget("cuda", cc, 32), options=opts)
                    return k.asm["ptx"]

                jobs.append(Job("triton", f"triton/{src.stem}.{fx['name']}.sm_{cc}.ptx", rel,
                                f"sm_{cc}", flags, f"{triton.__version__} (bundled ptxas {tptx(cc)})", produce))
    return jobs


def numba_jobs() -> list[Job]:
    import numba
    try:
        from importlib.metadata import version
        ver = f"numba-cuda {version('numba-cuda')} (numba {numba.__version__})"
    except Exception:
        ver = numba.__version__
    jobs = []
    for src in sorted((SRC / "numba").glob("*.py")):
        mod = load_module(src, f"fixtures_numba_{src.stem}")
        rel = src.relative_to(REPO).as_posix()
        for fx in mod.FIXTURES:
            for cc in fx.get("archs", NUMBA_ARCHS):
                kw = {k: fx[k] for k in ("device", "fastmath", "lineinfo", "debug", "opt") if k in fx}
                flags = [f"{k}={v}" for k, v in sorted(kw.items())] + ["postprocess=sort-NumbaEnv-decls"]

                def produce(rel=rel, name=fx["name"], cc=cc):
                    # One fresh interpreter per kernel: numba's output (the order of its module-level
                    # globals) depends on what the process compiled before, so isolate every compile.
                    r = subprocess.run([sys.executable, __file__, "--numba-one", rel, name, f"{cc[0]}.{cc[1]}"],
                                       cwd=REPO, capture_output=True, text=True)
                    if r.returncode:
                        raise RuntimeError(r.stderr[-4000:])
                    return r.stdout

                jobs.append(Job("numba", f"numba/{src.stem}.{fx['name']}.sm_{cc[0]}{cc[1]}.ptx", rel,
                                f"sm_{cc[0]}{cc[1]}", flags, ver, produce))
    return jobs


def clang_jobs(clang: str) -> list[Job]:
    out = subprocess.run([clang, "--version"], capture_output=True, text=True).stdout
    ver = out.splitlines()[0].strip()
    jobs = []
    for src in sorted(list((SRC / "clang").glob("*.cu")) + list((SRC / "clang").glob("*.c"))):
        ann = parse_annotations(src)
        archs = pick_archs(ann, CLANG_ARCHS)
        rel = src.relative_to(REPO).as_posix()
        builds = [(a, ["-O2"], "") for a in archs]
        if archs:
            va = variant_arch(archs)
            for v in ann["variants"]:
                flag = {"O0": ["-O0"], "g": ["-O2", "-g"], "O3": ["-O3"]}[v]
                builds.append((va, flag, "." + v))
        for arch, extra, suffix in builds:
            if ann["lang"] == "c" or src.suffix == ".c":
                cmd = ["-x", "c", "-std=c11", "--target=nvptx64-nvidia-cuda", f"-march=sm_{arch}"]
            else:
                cmd = ["-x", "cuda", "-std=c++17", "--cuda-device-only", f"--cuda-gpu-arch=sm_{arch}",
                       "-nocudainc", "-nocudalib"]
            # clang without a CUDA install defaults to an old PTX ISA; pick one per arch (varied on purpose).
            ptx_isa = "+ptx80" if arch_num(arch) >= 90 else ("+ptx75" if arch_num(arch) >= 80 else "+ptx64")
            cmd += ["-Xclang", "-target-feature", "-Xclang", ptx_isa]
            cmd += extra + ["-I", "fixtures-src/clang", "-S", "-o", "-", rel]

            def produce(cmd=cmd):
                r = subprocess.run([clang] + cmd, cwd=REPO, capture_output=True, text=True)
                if r.returncode:
                    raise RuntimeError(r.stderr)
                return r.stdout

            jobs.append(Job("clang19", f"clang19/{src.stem}.sm_{arch}{suffix}.ptx", rel, f"sm_{arch}",
                            [c for c in cmd if c not in ("-S", "-o", "-", rel)],
                            ver, produce))
    return jobs


NUMBA_ENV_DECL = re.compile(r"^\.common \.global \.align \d+ \.u64 _ZN\d+NumbaEnv")


def sort_numba_env_decls(ptx: str) -> str:
    """The only post-processing in the corpus: numba emits its (unused, zero-initialised)
    ``.common .global`` NumbaEnv pointer declarations in an order that changes from run to run
    (it follows object identities), so each run of consecutive such lines is sorted."""
    lines = ptx.split("\n")
    out, run = [], []
    for ln in lines + [None]:
        if ln is not None and NUMBA_ENV_DECL.match(ln):
            run.append(ln)
            continue
        out.extend(sorted(run))
        run = []
        if ln is not None:
            out.append(ln)
    return "\n".join(out)


def numba_one(rel: str, name: str, cc_s: str) -> int:
    """Compile one numba fixture and print its PTX (used in a subprocess by numba_jobs)."""
    import types

    from numba import cuda
    from numba.cuda import dispatcher as cuda_dispatcher

    os.chdir(REPO)
    cc = tuple(int(x) for x in cc_s.split("."))
    mod = load_module(REPO / rel, f"fixtures_numba_{Path(rel).stem}")
    fx = next(f for f in mod.FIXTURES if f["name"] == name)
    kw = {k: fx[k] for k in ("device", "fastmath", "lineinfo", "debug", "opt") if k in fx}
    # numba-cuda asks the (absent) driver for the current device's compute capability when it
    # compiles a called @cuda.jit(device=True) function; answer with the target cc instead.
    cuda_dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=cc)
    ptx, _ = cuda.compile_ptx(fx["fn"], fx["sig"], cc=cc, **kw)
    sys.stdout.write(sort_numba_env_decls(ptx))
    return 0


# --------------------------------------------------------------------------- ptxas

class Ptxas:
    def __init__(self, exe12: Path, exe13: Path | None):
        self.exe12, self.exe13 = exe12, exe13
        self.v12 = tool_version(exe12)
        self.v13 = tool_version(exe13) if exe13 else None

    def pick(self, ptx_version: str):
        major, minor = (int(x) for x in ptx_version.split("."))
        if (major, minor) <= (8, 8) or not self.exe13:
            return self.exe12, self.v12
        return self.exe13, self.v13

    def check(self, path: Path, ptx_version: str, target: str) -> tuple[str, str, str]:
        exe, ver = self.pick(ptx_version)
        r = subprocess.run([str(exe), f"-arch={target}", "-o", os.devnull, str(path)],
                           capture_output=True, text=True)
        return ("accept" if r.returncode == 0 else "reject"), ver, (r.stderr.strip()[-2000:])


# --------------------------------------------------------------------------- main

def main() -> int:
    if len(sys.argv) == 5 and sys.argv[1] == "--numba-one":
        return numba_one(*sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=",".join(COMPILERS), help="comma list of compilers to regenerate")
    ap.add_argument("--cu13-prefix", default=os.environ.get("FIXTURES_CU13_PREFIX", "/opt/venv-cu13"))
    ap.add_argument("--clang", default="clang-19")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args()
    only = [c for c in args.only.split(",") if c]
    for c in only:
        if c not in COMPILERS:
            raise SystemExit(f"unknown compiler {c}")

    os.chdir(REPO)
    nv12dir = site_nvidia()
    nvcc12 = nv12dir / "cuda_nvcc"
    c13 = cu13_root(args.cu13_prefix)   # its ptxas checks PTX newer than 8.8
    ptxas = Ptxas(nvcc12 / "bin" / "ptxas", c13 / "bin" / "ptxas")
    log(f"ptxas {ptxas.v12} / {ptxas.v13}")

    tmp = Path(tempfile.mkdtemp(prefix="ptxfix-"))
    os.environ["TRITON_CACHE_DIR"] = str(tmp / "triton-cache")
    # Triton picks the PTX ISA from the ptxas it bundles (12.x below sm_90, "ptxas-blackwell" 13.x from
    # sm_90 on); use exactly those so the output is what a stock Triton install emits.
    for k in ("TRITON_PTXAS_PATH", "TRITON_PTXAS_BLACKWELL_PATH", "TRITON_MOCK_PTX_VERSION"):
        os.environ.pop(k, None)
    os.environ["TRITON_DEFAULT_FP_FUSION"] = "1"

    jobs: list[Job] = []
    if "nvrtc12" in only:
        nv12 = Nvrtc(nv12dir / "cuda_nvrtc" / "lib" / "libnvrtc.so.12",
                     [nv12dir / "cuda_runtime" / "include", nv12dir / "cuda_cccl" / "include",
                      nvcc12 / "include"], "nvrtc12")
        jobs += nvrtc_jobs(nv12, NVRTC12_ARCHS)
    if "nvrtc13" in only:
        nv13 = Nvrtc(c13 / "lib" / "libnvrtc.so.13", [c13 / "include", c13 / "include" / "cccl"], "nvrtc13")
        jobs += nvrtc_jobs(nv13, NVRTC13_ARCHS)
    if "clang19" in only:
        jobs += clang_jobs(args.clang)
    if "numba" in only:
        jobs += numba_jobs()
    if "triton" in only:
        jobs += triton_jobs()

    for c in only:
        d = OUT / c
        if d.is_dir():
            for f in d.glob("*.ptx"):
                f.unlink()
        d.mkdir(parents=True, exist_ok=True)

    manifest_path = OUT / "manifest.json"
    old = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    entries = [e for e in old.get("fixtures", []) if e["compiler"] not in only]
    rejected = [e for e in old.get("rejected", []) if e["compiler"] not in only]
    failed = [e for e in old.get("compile_failures", []) if e["compiler"] not in only]

    # Compile: Triton in-process and sequentially; NVRTC, clang and numba (one subprocess each) in a pool.
    results: dict[str, str] = {}

    def run(job: Job):
        try:
            return job, job.produce(), None
        except Exception as e:  # noqa: BLE001
            return job, None, f"{type(e).__name__}: {e}"[:4000]

    pooled = [j for j in jobs if j.compiler in ("nvrtc12", "nvrtc13", "clang19", "numba")]
    serial = [j for j in jobs if j not in pooled]
    outcomes = []
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        outcomes += list(ex.map(run, pooled))
    for j in serial:
        outcomes.append(run(j))

    to_check = []
    for job, ptx, err in outcomes:
        if err:
            log(f"COMPILE FAIL {job.out_rel}: {err.splitlines()[0] if err else ''}")
            failed.append({"path": job.out_rel, "compiler": job.compiler, "source": job.source,
                           "arch": job.arch, "flags": job.flags, "error": err})
            continue
        path = OUT / job.out_rel
        path.write_text(ptx)
        to_check.append((job, path, ptx))

    def check(item):
        job, path, ptx = item
        pv, target = ptx_header(ptx)
        verdict, pver, msg = ptxas.check(path, pv, target)
        return job, path, ptx, pv, target, verdict, pver, msg

    with cf.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        checked = list(ex.map(check, to_check))

    for job, path, ptx, pv, target, verdict, pver, msg in checked:
        entry = {
            "path": job.out_rel,
            "compiler": job.compiler,
            "compiler_version": job.compiler_version,
            "source": job.source,
            "arch": job.arch,
            "flags": job.flags,
            "ptx_version": pv,
            "target": target,
            "bytes": len(ptx.encode()),
            "sha256": hashlib.sha256(ptx.encode()).hexdigest(),
            "ptxas": verdict,
            "ptxas_version": pver,
        }
        if verdict == "accept":
            entries.append(entry)
        else:
            log(f"PTXAS REJECT {job.out_rel}: {msg.splitlines()[0] if msg else ''}")
            entry["ptxas_error"] = msg
            rejected.append(entry)
            path.unlink()

    entries.sort(key=lambda e: e["path"])
    rejected.sort(key=lambda e: e["path"])
    failed.sort(key=lambda e: e["path"])
    manifest = {
        "generator": "tools/gen_fixtures.py",
        "ptxas": {"12": ptxas.v12, "13": ptxas.v13},
        "count": len(entries),
        "total_bytes": sum(e["bytes"] for e in entries),
        "fixtures": entries,
        "rejected": rejected,
        "compile_failures": failed,
    }
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=False) + "\n")
    shutil.rmtree(tmp, ignore_errors=True)

    by = {}
    for e in entries:
        by[e["compiler"]] = by.get(e["compiler"], 0) + 1
    log(f"wrote {len(entries)} fixtures ({manifest['total_bytes']} bytes): {by}; "
        f"{len(rejected)} rejected by ptxas, {len(failed)} failed to compile")
    return 1 if (rejected or failed) else 0


if __name__ == "__main__":
    # numba emits some module-level globals in set-iteration order: pin the hash seed for byte-stable output.
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable] + sys.argv)
    sys.exit(main())
