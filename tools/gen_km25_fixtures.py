#!/usr/bin/env python3
"""Converts the recorded tensor-core outputs of Khattak & Mikaitis into compact test fixtures.

Source: https://github.com/north-numerical-computing/MATLAB-tensor-core (BSD-2-Clause,
commit b12b5a7), directory `model_validation/<GPU>/<type>/`: per dataset 5000 dot products
d = a . b + c recorded on the GPU. `a_*`/`b_*` hold K operands per line as f32 hex (the
harness converts them to the input format: `__float2half`, `__float2bfloat16`, tf32 as is,
`__nv_cvt_float_to_fp8(..., __NV_SATFINITE, ...)`); `c_*_fp32.txt` and `d_*_{fp32,fp16}.txt`
hold one f32 bit string per line (an f16 output is written as the f32 of the half; an f16
C is `__float2half` of the f32 C, round to nearest even).

Usage: tools/gen_km25_fixtures.py [REPO_GIT_DIR] [OUT_DIR]
  REPO_GIT_DIR defaults to /work/.mirror/north-numerical-computing+MATLAB-tensor-core/repo
  OUT_DIR defaults to crates/ptxvm-fp/tests/data/km25

Output (all little-endian, 5000 records each):
  in_<type>_k<K>.bin   per record a[K] then b[K], in the input encoding (f16/bf16: u16;
                       tf32: the u32 register; e4m3/e5m2: u8). Identical inputs shared by
                       several GPUs are written once.
  <GPU>_<type>_c.bin   u32 f32 bits of C.
  <GPU>_<type>_d32.bin u32 f32 bits of the recorded D (f32 output).
  <GPU>_<type>_d16.bin u16 f16 bits of the recorded D (f16 output).
  MANIFEST             one line per recorded dataset:
                       GPU type K inputs c-file d-file out(f32|f16)
                       Files that are byte-identical to another GPU's are not duplicated;
                       the manifest names the file that holds the bytes.
Every conversion to the input format is checked to be exact (the recorded inputs are
representable); the script fails otherwise.
"""

import hashlib
import os
import struct
import subprocess
import sys

REPO = sys.argv[1] if len(sys.argv) > 1 else \
    "/work/.mirror/north-numerical-computing+MATLAB-tensor-core/repo"
OUT = sys.argv[2] if len(sys.argv) > 2 else "crates/ptxvm-fp/tests/data/km25"

# GPU -> [(input type, K)] as in model_validation/Validate_TC_models.m.
GPUS = {
    "V100": [("fp16", 4)],
    "A100": [("fp16", 8), ("bf16", 8), ("tf32", 4)],
    "A2": [("fp16", 8), ("bf16", 8), ("tf32", 4)],
    "Ada": [("fp16", 8), ("bf16", 8), ("tf32", 4), ("E5M2", 32), ("E4M3", 32)],
    "L40S": [("fp16", 8), ("bf16", 8), ("tf32", 4), ("E5M2", 32), ("E4M3", 32)],
    "H100": [("fp16", 16), ("bf16", 16), ("tf32", 4), ("E5M2", 32), ("E4M3", 32)],
    "H200": [("fp16", 16), ("bf16", 16), ("tf32", 4), ("E5M2", 32), ("E4M3", 32)],
    "B200": [("fp16", 16), ("bf16", 16), ("tf32", 4), ("E5M2", 32), ("E4M3", 32)],
}


def git_show(path):
    r = subprocess.run(["git", "-C", REPO, "show", "HEAD:" + path],
                       capture_output=True, check=False)
    if r.returncode != 0:
        return None
    return r.stdout.decode("utf-8-sig")


def exact(bits, exp_bits, man_bits, what):
    """f32 bits -> encoding of a format with the given widths (IEEE-style subnormals),
    requiring the value to be exactly representable and finite."""
    sign = bits >> 31
    e = (bits >> 23) & 0xFF
    m = bits & 0x7FFFFF
    if e == 0xFF:
        raise ValueError(f"{what}: non-finite input {bits:08x}")
    bias = (1 << (exp_bits - 1)) - 1
    emin = 1 - bias
    if e == 0 and m == 0:
        return sign << (exp_bits + man_bits)
    if e == 0:
        raise ValueError(f"{what}: f32 subnormal input {bits:08x}")
    exp = e - 127
    sig = m | (1 << 23)  # value = sig * 2^(exp-23)
    if exp >= emin:
        if m & ((1 << (23 - man_bits)) - 1):
            raise ValueError(f"{what}: {bits:08x} not exact")
        be = exp + bias
        if be >= (1 << exp_bits) - 1 and what != "e4m3":
            raise ValueError(f"{what}: {bits:08x} overflows")
        enc = (be << man_bits) | (m >> (23 - man_bits))
    else:
        # subnormal in the target: value = q * 2^(emin - man_bits)
        shift = 23 - man_bits + (emin - exp)
        if sig & ((1 << shift) - 1):
            raise ValueError(f"{what}: {bits:08x} not exact (subnormal)")
        enc = sig >> shift
    if what == "e4m3" and (enc & 0x7F) == 0x7F:
        raise ValueError(f"{what}: {bits:08x} is the NaN pattern")
    return (sign << (exp_bits + man_bits)) | enc


def encode_inputs(tname, words):
    if tname == "fp16":
        return struct.pack(f"<{len(words)}H", *[exact(w, 5, 10, "f16") for w in words])
    if tname == "bf16":
        return struct.pack(f"<{len(words)}H", *[exact(w, 8, 7, "bf16") for w in words])
    if tname == "tf32":
        for w in words:
            if w & 0x1FFF:
                raise ValueError(f"tf32: {w:08x} has low bits")
        return struct.pack(f"<{len(words)}I", *words)
    if tname == "E4M3":
        return bytes(exact(w, 4, 3, "e4m3") for w in words)
    if tname == "E5M2":
        return bytes(exact(w, 5, 2, "e5m2") for w in words)
    raise ValueError(tname)


def hex_rows(text, k):
    rows = []
    for line in text.splitlines():
        toks = line.split()
        if not toks:
            continue
        rows.append([int(t, 16) for t in toks])
    for r in rows:
        if len(r) != k:
            raise ValueError(f"row of {len(r)} values, expected {k}")
    return rows


def bit_rows(text):
    out = []
    for line in text.split():
        if len(line) != 32:
            raise ValueError(f"bad bit string {line!r}")
        out.append(int(line, 2))
    return out


def f32_to_f16_exact(bits):
    return exact(bits, 5, 10, "f16 output") if (bits >> 23) & 0xFF != 0xFF else (
        (bits >> 31) << 15 | 0x7C00 | (0x200 if bits & 0x7FFFFF else 0))


def main():
    os.makedirs(OUT, exist_ok=True)
    written = {}  # sha256 -> file name
    manifest = []
    total = 0

    def put(name, data):
        h = hashlib.sha256(data).hexdigest()
        if h in written:
            return written[h]
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
        written[h] = name
        return name

    for gpu, sets in GPUS.items():
        for tname, k in sets:
            base = f"model_validation/{gpu}/{tname}/"
            a = hex_rows(git_show(base + f"a_{gpu}_{tname}.txt"), k)
            b = hex_rows(git_show(base + f"b_{gpu}_{tname}.txt"), k)
            c = bit_rows(git_show(base + f"c_{gpu}_fp32.txt"))
            n = len(c)
            assert len(a) == len(b) == n == 5000, (gpu, tname)
            blob = bytearray()
            for i in range(n):
                blob += encode_inputs(tname, a[i]) + encode_inputs(tname, b[i])
            tlow = tname.lower()
            inputs = put(f"in_{tlow}_k{k}.bin", bytes(blob))
            cfile = put(f"{gpu}_{tlow}_c.bin", struct.pack(f"<{n}I", *c))
            for out in ("fp32", "fp16"):
                text = git_show(base + f"d_{gpu}_{out}.txt")
                if text is None:
                    continue
                d = bit_rows(text)
                assert len(d) == n
                if out == "fp32":
                    dfile = put(f"{gpu}_{tlow}_d32.bin", struct.pack(f"<{n}I", *d))
                else:
                    d16 = [f32_to_f16_exact(x) for x in d]
                    dfile = put(f"{gpu}_{tlow}_d16.bin", struct.pack(f"<{n}H", *d16))
                manifest.append(f"{gpu} {tlow} {k} {inputs} {cfile} {dfile} "
                                f"{'f32' if out == 'fp32' else 'f16'}")
                total += n
    with open(os.path.join(OUT, "MANIFEST"), "w") as f:
        f.write("# GPU type K inputs c d out  (generated by tools/gen_km25_fixtures.py)\n")
        f.write("\n".join(manifest) + "\n")
    print(f"{len(manifest)} datasets, {total} recorded dot products, "
          f"{len(written)} files in {OUT}")


if __name__ == "__main__":
    main()
