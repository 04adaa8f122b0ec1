#!/usr/bin/env python3
"""Generates tests/run/texture/*.ptx: texture and surface run tests whose expected values
come from this file's own implementation of the CUDA Programming Guide's "Texture
Fetching" appendix, written independently of ptxvm's Rust code:

- normalized coordinates are scaled by the extent in f32 (u = x * N); offsets add texels;
- nearest-point: T[floor(u)];
- linear: u_B = u - 0.5 (f32), i = floor(u_B), alpha = u_B - i held in 9-bit fixed point
  with 8 fractional bits, k = floor(alpha * 256 + 0.5) (alpha = k / 256);
  tex = (1 - alpha) T[i] + alpha T[i+1], the 2D/3D forms the products of the per-axis
  weights; each term w * T is rounded to f32 and the terms are summed in f32, x fastest,
  then y, then z (the order ptxvm documents in crates/ptxvm-vm/src/ops/texture.rs);
- address modes on texel indices: clamp, border (border colour 0), wrap (i mod N), mirror
  (period 2N); wrap and mirror only with normalized coordinates (else clamp), as in CUDA;
- 8/16-bit integers read as normalized floats divide by 255/65535 (127/32767 and clamp at
  -1 for signed) in f32; missing channels read as 0 and alpha as 1.

Run: /work/venv/torch/bin/python tools/tex_ref.py   (writes the files; commit them).
"""

import math
import os

import numpy as np

F = np.float32
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "run", "texture")
NPY = {"f32": np.float32, "f16": np.float16, "u8": np.uint8, "i8": np.int8,
       "u16": np.uint16, "i16": np.int16, "u32": np.uint32, "i32": np.int32}


def address(i, n, mode, normalized):
    if not normalized and mode in ("wrap", "mirror"):
        mode = "clamp"
    if mode == "clamp":
        return min(max(i, 0), n - 1)
    if mode == "border":
        return i if 0 <= i < n else None
    if mode == "wrap":
        return i % n
    m = i % (2 * n)
    return 2 * n - 1 - m if m >= n else m


class Tex:
    def __init__(self, arr, filt="point", mode="clamp", normalized=False, read_float=False):
        self.arr = arr  # shape (..., C): C channels
        self.filt, self.mode, self.norm, self.rf = filt, mode, normalized, read_float
        self.ext = list(arr.shape[:-1])[::-1]  # width, height, depth
        self.dims = len(self.ext)
        self.floats = arr.dtype.kind == "f" or read_float

    def texel(self, idx):
        if any(i is None for i in idx):
            return [F(0)] * 4 if self.floats else [0] * 4
        v = self.arr[tuple(idx[::-1])]
        out = []
        for c in range(4):
            if c >= len(v):
                out.append((F(1) if self.floats else 1) if c == 3 else (F(0) if self.floats else 0))
                continue
            x = v[c]
            if self.arr.dtype.kind == "f":
                out.append(F(x))
            elif self.rf:
                div = {np.uint8: 255, np.uint16: 65535, np.int8: 127, np.int16: 32767}[self.arr.dtype.type]
                q = F(F(int(x)) / F(div))
                out.append(max(q, F(-1)) if self.arr.dtype.kind == "i" else q)
            else:
                out.append(int(x) & 0xFFFFFFFF)
        return out

    def unnorm(self, x, d, off):
        u = F(F(x) * F(self.ext[d])) if self.norm else F(x)
        return F(u + F(off))

    def weights(self, u):
        ub = F(u - F(0.5))
        fl = np.floor(ub)
        a = F(ub - fl)
        k = min(int(math.floor(float(a) * 256 + 0.5)), 256)
        return int(fl), k

    def fetch_int(self, c, off=(0, 0, 0)):
        idx = [address(c[d] + off[d], self.ext[d], self.mode, self.norm) for d in range(self.dims)]
        return self.texel(idx)

    def sample(self, c, off=(0, 0, 0)):
        if self.filt == "point" or not self.floats:
            idx = [address(int(np.floor(self.unnorm(c[d], d, off[d]))), self.ext[d], self.mode, self.norm)
                   for d in range(self.dims)]
            return self.texel(idx)
        lo, w = [], []
        for d in range(3):
            if d < self.dims:
                i, k = self.weights(self.unnorm(c[d], d, off[d]))
                lo.append(i)
                w.append([F((256 - k) / 256), F(k / 256)])
            else:
                lo.append(0)
                w.append([F(1), F(0)])
        rng = lambda d: range(2) if d < self.dims else range(1)
        acc = None
        for dz in rng(2):
            for dy in rng(1):
                for dx in rng(0):
                    wt = F(F(w[0][dx] * w[1][dy]) * w[2][dz])
                    idx = [address(lo[d] + (dx, dy, dz)[d], self.ext[d], self.mode, self.norm)
                           for d in range(self.dims)]
                    t = self.texel(idx)
                    term = [F(wt * v) for v in t]
                    acc = term if acc is None else [F(a + b) for a, b in zip(acc, term)]
        return acc

    def gather(self, c, comp, off=(0, 0)):
        i, _ = self.weights(self.unnorm(c[0], 0, off[0]))
        j, _ = self.weights(self.unnorm(c[1], 1, off[1]))
        out = []
        for dx, dy in [(0, 1), (1, 1), (1, 0), (0, 0)]:
            idx = [address(i + dx, self.ext[0], self.mode, self.norm),
                   address(j + dy, self.ext[1], self.mode, self.norm)]
            out.append(self.texel(idx)[comp])
        return out


def fmt(v):
    if isinstance(v, (np.floating, float)):
        return repr(float(v))
    return str(int(v))


def vals(a):
    return "[" + ", ".join(fmt(x) for x in a) + "]"


HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def tex_test(name, comment, tex, dtype, coords, *, ctype="f32", offs=None, op=None, opts="", geom=None):
    """One thread per coordinate: coordinate buffer (4 per thread), out buffer (4 per thread)."""
    n = len(coords)
    geom = geom or {1: "1d", 2: "2d", 3: "3d"}[tex.dims]
    cc = {"1d": 1, "2d": 2, "3d": 4}[geom]
    flat = []
    for c in coords:
        flat += list(c) + [0] * (4 - len(c))
    res = []
    for k, c in enumerate(coords):
        o = offs[k] if offs else (0, 0, 0)
        if op is not None:
            r = op(tex, c)
        elif ctype == "s32":
            r = tex.fetch_int(list(c) + [0] * (3 - len(c)), o)
        else:
            r = tex.sample(list(c) + [0] * (3 - len(c)), o)
        res += r
    rtype = "f32" if dtype == "f32" else "u32"
    cregs = ["%c0", "%c1", "%c2", "%c3"][:cc]
    creg_t = ".f32" if ctype == "f32" else ".s32"
    dreg_t = ".f32" if dtype == "f32" else ".b32"
    inst = op_inst = None
    if op is None:
        inst = f"tex.{geom}.v4.{dtype}.{ctype} {{%d0, %d1, %d2, %d3}}, [%rd1, {{{', '.join(cregs)}}}]"
        if offs:
            inst += ", {" + ", ".join(["%o0", "%o1", "%o2", "%o3"][:cc]) + "}"
    else:
        inst = op.inst
    arr = tex.arr
    shape = ",".join(str(s) for s in arr.shape)
    tex_vals = vals(arr.reshape(-1))
    offs_flat = []
    if offs:
        for o in offs:
            offs_flat += list(o) + [0] * (4 - len(o))
    lines = [f"// {l}" for l in comment.strip().split("\n")]
    lines += ["// Expected values: tools/tex_ref.py (the documented fixed-point formula).",
              f"// run: --grid 1 --block {n}",
              f"// arg: tex{opts}:{tex.arr.dtype.name.replace('int', 'i').replace('uint', 'u').replace('float', 'f').replace('ui', 'u')}[{shape}] = {tex_vals}",
              f"// arg: {'f32' if ctype == 'f32' else 'i32'}[{4 * n}] = {vals(flat)}",
              f"// arg: zeros:{rtype}:{4 * n}"]
    if offs:
        lines.append(f"// arg: i32[{4 * n}] = {vals(offs_flat)}")
    lines.append(f"// expect arg2: {rtype} {vals(res)}")
    params = ".param .u64 t, .param .u64 c, .param .u64 o" + (", .param .u64 e" if offs else "")
    body = [
        f".visible .entry {name}({params})",
        "{",
        "  .reg .b64 %rd<10>;",
        "  .reg .b32 %r<4>;",
        f"  .reg {creg_t} %c<4>;",
        f"  .reg {dreg_t} %d<4>;",
        "  .reg .s32 %o<4>;",
        "  ld.param.u64 %rd1, [t];",
        "  ld.param.u64 %rd2, [c];",
        "  ld.param.u64 %rd3, [o];",
        "  mov.u32 %r1, %tid.x;",
        "  mul.wide.u32 %rd4, %r1, 16;",
        "  add.s64 %rd5, %rd2, %rd4;",
        "  add.s64 %rd6, %rd3, %rd4;",
        f"  ld.global.v4{creg_t} {{%c0, %c1, %c2, %c3}}, [%rd5];",
    ]
    if offs:
        body += ["  ld.param.u64 %rd7, [e];",
                 "  add.s64 %rd8, %rd7, %rd4;",
                 "  ld.global.v4.s32 {%o0, %o1, %o2, %o3}, [%rd8];"]
    body += [f"  {inst};",
             f"  st.global.v4{dreg_t} [%rd6], {{%d0, %d1, %d2, %d3}};",
             "  ret;",
             "}"]
    write(name, "\n".join(lines) + "\n\n" + HEAD + "\n" + "\n".join(body) + "\n")


def write(name, text):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name + ".ptx"), "w") as f:
        f.write(text)


def grid2(h, w, seed, dtype=np.float32, ch=1, lo=-8, hi=8):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        a = rng.integers(lo * 4, hi * 4, size=(h, w, ch)) / 4
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, size=(h, w, ch), endpoint=True)
    return a.astype(dtype)


def main():
    rng = np.random.default_rng(13)
    # 2D f32, linear, unnormalized, clamp: coordinates inside, on texel centres, between
    # them and outside on every side.
    t = Tex(grid2(4, 5, 1), "linear", "clamp")
    co = [(float(F(x)), float(F(y))) for x, y in rng.uniform(-1.5, 6.5, size=(28, 2))]
    co += [(0.5, 0.5), (4.5, 3.5), (1.0, 1.0), (2.25, 1.75)]
    tex_test("tex_linear_2d_clamp", "tex.2d linear filtering, clamp, unnormalized f32 coordinates.",
             t, "f32", co, opts=",filter=linear,address=clamp")
    for mode in ["border", "wrap", "mirror"]:
        t = Tex(grid2(4, 5, 2), "linear", mode, normalized=True)
        co = [(float(F(x)), float(F(y))) for x, y in rng.uniform(-1.3, 2.3, size=(32, 2))]
        tex_test(f"tex_linear_2d_{mode}_norm", f"tex.2d linear filtering, address mode {mode}, normalized coordinates.",
                 t, "f32", co, opts=f",filter=linear,address={mode},normalized")
    # 2D point sampling, every address mode, normalized.
    for mode in ["clamp", "border", "wrap", "mirror"]:
        t = Tex(grid2(3, 4, 3), "point", mode, normalized=True)
        co = [(float(F(x)), float(F(y))) for x, y in rng.uniform(-1.7, 2.7, size=(32, 2))]
        tex_test(f"tex_point_2d_{mode}_norm", f"tex.2d nearest-point sampling, address mode {mode}, normalized coordinates.",
                 t, "f32", co, opts=f",address={mode},normalized")
    # 1D linear, 2 channels.
    t = Tex(rng.integers(-20, 20, size=(7, 2)).astype(np.float32) / 2, "linear", "clamp")
    co = [(float(F(x)),) for x in rng.uniform(-1, 8, size=32)]
    tex_test("tex_linear_1d_2ch", "tex.1d linear filtering of a two-channel f32 texture (missing channels: 0, alpha 1).",
             t, "f32", co, opts=",filter=linear")
    # 3D linear.
    a = (np.random.default_rng(5).integers(-16, 16, size=(3, 3, 4, 1)) / 4).astype(np.float32)
    t = Tex(a, "linear", "clamp")
    co = [tuple(float(F(v)) for v in c) for c in rng.uniform(-0.5, 4.5, size=(32, 3))]
    tex_test("tex_linear_3d", "tex.3d trilinear filtering, clamp (the fourth coordinate is ignored).",
             t, "f32", co, opts=",filter=linear")
    # u8 RGBA read as normalized float, linear.
    t = Tex(grid2(3, 3, 6, np.uint8, 4), "linear", "clamp", read_float=True)
    co = [(float(F(x)), float(F(y))) for x, y in rng.uniform(0, 3, size=(16, 2))]
    tex_test("tex_u8_rgba_read_float_linear", "tex.2d of u8 RGBA read as normalized floats (v/255), linear filtering.",
             t, "f32", co, opts=",filter=linear,read=float")
    # s16 read as normalized float (point), including -32768 → -1.
    a = np.array([[-32768, -32767, -1, 0], [1, 100, 32766, 32767]], dtype=np.int16).reshape(2, 4, 1)
    t = Tex(a, "point", "clamp", read_float=True)
    co = [(x + 0.5, y + 0.5) for y in range(2) for x in range(4)]
    tex_test("tex_s16_read_float", "tex.2d of s16 read as normalized floats: max(v/32767, -1).",
             t, "f32", co, opts=",read=float")
    # Integer element reads with s32 coordinates (tex1Dfetch-like), signed and unsigned.
    t = Tex(np.arange(-6, 6, dtype=np.int8).reshape(12, 1), "point", "clamp")
    co = [(i,) for i in range(-2, 14)]
    tex_test("tex_1d_s8_int_coords", "tex.1d.v4.s32.s32 of s8 elements: sign-extended values, clamped indices, alpha 1.",
             t, "s32", co, ctype="s32")
    t = Tex(grid2(2, 3, 7, np.uint16, 2), "point", "border")
    co = [(x, y) for y in range(-1, 3) for x in range(-1, 4)]
    tex_test("tex_2d_u16_border_int_coords", "tex.2d.v4.u32.s32 of u16 RG elements, border address mode (border texels read 0).",
             t, "u32", co, ctype="s32", opts=",address=border")
    # Offsets.
    t = Tex(grid2(4, 4, 8), "linear", "clamp")
    co = [(float(F(x)), float(F(y))) for x, y in rng.uniform(0, 4, size=(16, 2))]
    offs = [tuple(int(v) for v in o) for o in rng.integers(-8, 8, size=(16, 2))]
    tex_test("tex_linear_2d_offset", "tex.2d linear filtering with the texel offset operand e (-8..7).",
             t, "f32", co, offs=offs, opts=",filter=linear")
    # f16 elements.
    a = (np.random.default_rng(9).integers(-64, 64, size=(3, 4, 1)) / 16).astype(np.float16)
    t = Tex(a, "linear", "clamp")
    co = [(float(F(x)), float(F(y))) for x, y in rng.uniform(0, 4, size=(16, 2))]
    tex_test("tex_f16_linear", "tex.2d linear filtering of f16 elements (read as f32).",
             t, "f32", co, opts=",filter=linear")

    # tld4: gather of the 2x2 footprint, each component.
    class G:
        def __init__(self, comp):
            self.comp = comp
            self.inst = f"tld4.{'rgba'[comp]}.2d.v4.f32.f32 {{%d0, %d1, %d2, %d3}}, [%rd1, {{%c0, %c1}}]"

        def __call__(self, tex, c):
            return tex.gather(c, self.comp)

    for comp in [0, 1, 3]:
        t = Tex(grid2(3, 4, 10, np.float32, 2), "point", "clamp")
        co = [(float(F(x)), float(F(y))) for x, y in rng.uniform(-1, 5, size=(16, 2))]
        tex_test(f"tld4_{'rgba'[comp]}_2d", f"tld4.{'rgba'[comp]}: component {comp} of the 2x2 footprint, counter-clockwise from lower left "
                 "((i,j+1), (i+1,j+1), (i+1,j), (i,j)); a 2-channel texture: alpha reads 1.",
                 t, "f32", co, op=G(comp))


if __name__ == "__main__":
    main()
