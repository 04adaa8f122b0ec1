#!/usr/bin/env python3
"""Compiles one fixture source (default ``fixtures-src/cuda/textures.cu``) with NVRTC 12.9 the
way ``tools/gen_fixtures.py`` does (same options, architectures, ptxas check and manifest
entries), without regenerating the rest of the corpus: a full ``--only nvrtc12`` run from
another checkout path would also rewrite the ``-lineinfo`` fixtures (their ``.file`` paths).

Run with the interpreter that has the cu12 toolchain (nvidia-cuda-nvrtc-cu12, nvidia-cuda-nvcc-cu12):

    /work/venv/numba-cu12/bin/python tools/gen_texture_fixtures.py [fixtures-src/cuda/NAME.cu]
"""

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_fixtures as gf  # noqa: E402


def main() -> int:
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "fixtures-src/cuda/textures.cu").resolve()
    rel = src.relative_to(gf.REPO).as_posix()
    nv = gf.site_nvidia()
    nvcc = nv / "cuda_nvcc"
    nv12 = gf.Nvrtc(nv / "cuda_nvrtc" / "lib" / "libnvrtc.so.12",
                    [nv / "cuda_runtime" / "include", nv / "cuda_cccl" / "include", nvcc / "include"], "nvrtc12")
    ptxas = gf.Ptxas(nvcc / "bin" / "ptxas", None)
    jobs = [j for j in gf.nvrtc_jobs(nv12, gf.NVRTC12_ARCHS) if j.source == rel]
    manifest_path = gf.OUT / "manifest.json"
    man = json.loads(manifest_path.read_text())
    man["fixtures"] = [e for e in man["fixtures"] if not (e["compiler"] == "nvrtc12" and e["source"] == rel)]
    for job in jobs:
        ptx = job.produce()
        path = gf.OUT / job.out_rel
        path.write_text(ptx)
        pv, target = gf.ptx_header(ptx)
        verdict, pver, msg = ptxas.check(path, pv, target)
        if verdict != "accept":
            path.unlink()
            print(f"ptxas rejects {job.out_rel}: {msg}", file=sys.stderr)
            return 1
        man["fixtures"].append({
            "path": job.out_rel, "compiler": job.compiler, "compiler_version": job.compiler_version,
            "source": job.source, "arch": job.arch, "flags": job.flags, "ptx_version": pv,
            "target": target, "bytes": len(ptx.encode()), "sha256": hashlib.sha256(ptx.encode()).hexdigest(),
            "ptxas": verdict, "ptxas_version": pver,
        })
        print(f"wrote {job.out_rel}", file=sys.stderr)
    man["fixtures"].sort(key=lambda e: e["path"])
    man["count"] = len(man["fixtures"])
    man["total_bytes"] = sum(e["bytes"] for e in man["fixtures"])
    manifest_path.write_text(json.dumps(man, indent=1, sort_keys=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
