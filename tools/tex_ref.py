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

    def texel(self, idx, cmp=None):
        t = self.texel_raw(idx)
        if cmp is None:
            return t
        # Depth compare (ptxvm's documented choice): channel ch passes when f <= value,
        # giving 1.0 (else 0.0) in every channel; integers compare by value.
        f, ch = cmp
        v = t[ch]
        if not self.floats:
            v = v - (1 << 32) if self.arr.dtype.kind == "i" and v >= 1 << 31 else v
        r = F(1) if float(F(f)) <= float(v) else F(0)
        return [r] * 4

    def texel_raw(self, idx):
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

    def fetch_int(self, c, off=(0, 0, 0), cmp=None):
        idx = [address(c[d] + off[d], self.ext[d], self.mode, self.norm) for d in range(self.dims)]
        return self.texel(idx, None if cmp is None else (cmp, 0))

    def sample(self, c, off=(0, 0, 0), cmp=None):
        cm = None if cmp is None else (cmp, 0)
        if self.filt == "point" or (not self.floats and cmp is None):
            idx = [address(int(np.floor(self.unnorm(c[d], d, off[d]))), self.ext[d], self.mode, self.norm)
                   for d in range(self.dims)]
            return self.texel(idx, cm)
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
                    t = self.texel(idx, cm)
                    term = [F(wt * v) for v in t]
                    acc = term if acc is None else [F(a + b) for a, b in zip(acc, term)]
        return acc

    def gather(self, c, comp, off=(0, 0), cmp=None):
        i, _ = self.weights(self.unnorm(c[0], 0, off[0]))
        j, _ = self.weights(self.unnorm(c[1], 1, off[1]))
        out = []
        for dx, dy in [(0, 1), (1, 1), (1, 0), (0, 0)]:
            idx = [address(i + dx, self.ext[0], self.mode, self.norm),
                   address(j + dy, self.ext[1], self.mode, self.norm)]
            out.append(self.texel(idx, None if cmp is None else (cmp, comp))[comp])
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


def surf_tests():
    # suld.b with .clamp and .zero: per thread a (byte x, y) coordinate; out[2k] the .clamp
    # load, out[2k+1] the .zero load. The surface is 4 wide, 3 high, u32 texels.
    h, w = 3, 4
    a = (np.arange(h * w, dtype=np.uint32) * 7 + 100).reshape(h, w, 1)
    co = [(x * 4, y) for y in (-1, 0, 2, 3) for x in (-2, 0, 3, 4)] + [(-5 * 4, 9), (1 << 20, -(1 << 20))]
    exp = []
    for x, y in co:
        inside = 0 <= x <= (w - 1) * 4 and 0 <= y < h
        cx = min(max(x, 0), (w - 1) * 4) // 4
        cy = min(max(y, 0), h - 1)
        exp += [int(a[cy, cx, 0]), int(a[y, x // 4, 0]) if inside else 0]
    n = len(co)
    flat = []
    for c in co:
        flat += [c[0], c[1]]
    text = f"""// suld.b.2d.b32 with .clamp (the nearest texel inside: byte x clamped to [0, 4*(W-1)],
// y to [0, H-1]) and .zero (zeros outside); x is a byte offset (PTX ISA: suld.b's lowest
// coordinate is not scaled).
// Expected values: tools/tex_ref.py.
// run: --grid 1 --block {n}
// arg: surf:u32[{h},{w},1] = {vals(a.reshape(-1))}
// arg: i32[{2 * n}] = {vals(flat)}
// arg: zeros:u32:{2 * n}
// expect arg2: u32 {vals(exp)}
// expect arg0: u32 {vals(a.reshape(-1))}

{HEAD}
.visible .entry surf_suld_clamp_zero(.param .u64 s, .param .u64 c, .param .u64 o)
{{
  .reg .b64 %rd<10>;
  .reg .b32 %r<10>;
  ld.param.u64 %rd1, [s];
  ld.param.u64 %rd2, [c];
  ld.param.u64 %rd3, [o];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd2, %rd4;
  add.s64 %rd6, %rd3, %rd4;
  ld.global.v2.b32 {{%r2, %r3}}, [%rd5];
  suld.b.2d.b32.clamp %r4, [%rd1, {{%r2, %r3}}];
  suld.b.2d.b32.zero %r5, [%rd1, {{%r2, %r3}}];
  st.global.v2.b32 [%rd6], {{%r4, %r5}};
  ret;
}}
"""
    write("surf_suld_clamp_zero", text)

    # sust.b.2d.b32.zero from every thread (inside: written; outside: dropped), then
    # sust.b.1d.v2.b16.clamp from thread 0 at x = -100 (clamped to byte 0).
    co = [(x * 4, y) for y in (-1, 0, 1) for x in (-1, 0, 1, 2, 3)]
    res = np.zeros((2, 3, 1), dtype=np.uint32)
    for k, (x, y) in enumerate(co):
        if 0 <= x <= 8 and 0 <= y < 2:
            res[y, x // 4, 0] = 1000 + k
    flat = []
    for c in co:
        flat += [c[0], c[1]]
    n = len(co)
    text = f"""// sust.b.2d.b32.zero: stores outside the 3x2 surface are dropped; thread k stores 1000+k
// at its (byte x, y).
// Expected values: tools/tex_ref.py.
// run: --grid 1 --block {n}
// arg: surf:u32[2,3,1] = 0
// arg: i32[{2 * n}] = {vals(flat)}
// expect arg0: u32 {vals(res.reshape(-1))}

{HEAD}
.visible .entry surf_sust_zero(.param .u64 s, .param .u64 c)
{{
  .reg .b64 %rd<10>;
  .reg .b32 %r<10>;
  ld.param.u64 %rd1, [s];
  ld.param.u64 %rd2, [c];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.v2.b32 {{%r2, %r3}}, [%rd5];
  add.u32 %r4, %r1, 1000;
  sust.b.2d.b32.zero [%rd1, {{%r2, %r3}}], %r4;
  ret;
}}
"""
    write("surf_sust_zero", text)

    text = f"""// sust.b.1d.v2.b16.clamp at byte x = -100 and x = 1000 on a 1D surface of 8 u16 texels:
// the 4-byte access is clamped to the nearest whole location inside (bytes 0..3 and
// 12..15). The v2.b16 stores write the low halves of their sources.
// run: --grid 1 --block 1
// arg: surf:u16[8] = 0
// expect arg0: u16 [0x1111, 0x2222, 0, 0, 0, 0, 0x3333, 0x4444]

{HEAD}
.visible .entry surf_sust_clamp(.param .u64 s)
{{
  .reg .b64 %rd<4>;
  .reg .b16 %h<4>;
  .reg .b32 %r<4>;
  ld.param.u64 %rd1, [s];
  mov.b16 %h1, 0x1111;
  mov.b16 %h2, 0x2222;
  mov.u32 %r1, -100;
  sust.b.1d.v2.b16.clamp [%rd1, {{%r1}}], {{%h1, %h2}};
  mov.b16 %h1, 0x3333;
  mov.b16 %h2, 0x4444;
  mov.u32 %r1, 1000;
  sust.b.1d.v2.b16.clamp [%rd1, {{%r1}}], {{%h1, %h2}};
  ret;
}}
"""
    write("surf_sust_clamp", text)

    text = f"""// suld.b.2d.b32.trap outside the surface faults, naming the coordinates.
// run: --grid 1 --block 1
// arg: surf:u32[2,3,1] = 0
// expect error: surface access out of range at byte x=12, y=1
// expect error: the surface is 3×2×1 texels of 4 bytes

{HEAD}
.visible .entry surf_trap(.param .u64 s)
{{
  .reg .b64 %rd<4>;
  .reg .b32 %r<4>;
  ld.param.u64 %rd1, [s];
  mov.u32 %r1, 12;
  mov.u32 %r2, 1;
  suld.b.2d.b32.trap %r3, [%rd1, {{%r1, %r2}}];
  ret;
}}
"""
    write("surf_trap", text)

    # sust.p (formatted): f32 values into an f16 RGBA surface (rounded to nearest even) and
    # integers into a u8 RG surface (low bits); texel coordinates, not bytes.
    vals4 = [F(1.0), F(-2.5), F(0.1), F(65504.0)]
    f16 = [np.float16(v) for v in vals4]
    text = f"""// sust.p.2d.v4.b32 is a formatted store: x counts texels, and f32 sources are converted
// to the f16 texels (round to nearest even: 0.1 -> {float(f16[2])!r}); the u8 RG surface
// gets the low byte of each integer source (two channels: B and A are ignored).
// Expected values: tools/tex_ref.py (numpy's float16 rounding).
// run: --grid 1 --block 1
// arg: surf:f16[2,2,4] = 0
// arg: surf:u8[2,3,2] = 0
// expect arg0: f16 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {', '.join(repr(float(v)) for v in f16)}]
// expect arg1: u8 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x34, 0xff]

{HEAD}
.visible .entry surf_sust_p(.param .u64 s, .param .u64 u)
{{
  .reg .b64 %rd<4>;
  .reg .b32 %r<12>;
  ld.param.u64 %rd1, [s];
  ld.param.u64 %rd2, [u];
  mov.u32 %r1, 1;
  mov.u32 %r2, 1;
  mov.b32 %r3, {hex(F(vals4[0]).view(np.uint32))};
  mov.b32 %r4, {hex(F(vals4[1]).view(np.uint32))};
  mov.b32 %r5, {hex(F(vals4[2]).view(np.uint32))};
  mov.b32 %r6, {hex(F(vals4[3]).view(np.uint32))};
  sust.p.2d.v4.b32.trap [%rd1, {{%r1, %r2}}], {{%r3, %r4, %r5, %r6}};
  mov.u32 %r1, 2;
  mov.u32 %r3, 0x1234;
  mov.u32 %r4, -1;
  sust.p.2d.v2.b32.trap [%rd2, {{%r1, %r2}}], {{%r3, %r4}};
  ret;
}}
"""
    write("surf_sust_p", text)

    # sured: 64 threads add to 4 u32 texels of a 1D surface, and take min over s32.
    n = 64
    add = [0] * 4
    mn = [1 << 30] * 4
    for t in range(n):
        add[t % 4] += t
        mn[t % 4] = min(mn[t % 4], (t * 37 % 101) - 50)
    text = f"""// sured.b.add.1d.u32 and sured.b.min.1d.s32 from {n} threads onto 4 texels (byte x =
// 4*(tid%4)): sums of tid and minima of (tid*37 % 101) - 50 per texel, computed in Python.
// run: --grid 1 --block {n}
// arg: surf:u32[4] = 0
// arg: surf:i32[4] = {1 << 30}
// expect arg0: u32 {vals(add)}
// expect arg1: i32 {vals(mn)}

{HEAD}
.visible .entry surf_sured(.param .u64 s, .param .u64 m)
{{
  .reg .b64 %rd<4>;
  .reg .b32 %r<8>;
  ld.param.u64 %rd1, [s];
  ld.param.u64 %rd2, [m];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  shl.b32 %r2, %r2, 2;
  sured.b.add.1d.u32.trap [%rd1, {{%r2}}], %r1;
  mul.lo.u32 %r3, %r1, 37;
  rem.u32 %r3, %r3, 101;
  sub.s32 %r3, %r3, 50;
  sured.b.min.1d.s32.trap [%rd2, {{%r2}}], %r3;
  ret;
}}
"""
    write("surf_sured", text)


def query_tests():
    text = f"""// txq and suq: a 3D f32 texture of 5x3x2 texels (linear, wrap, normalized) and a 2D u8
// RGBA surface of 6x4. Values from the PTX ISA's tables (extents in elements; OpenCL 1.0
// channel enums: CL_FLOAT 0x10DE, CL_R 0x10B0, CL_UNSIGNED_INT8 0x10DA, CL_RGBA 0x10B5) and
// ptxvm's documented choices (docs/textures.md): filter mode 1 = linear, address mode
// 0 = wrap (CUDA's enums), array_size 0 (not layered), 1 mipmap level, memory_layout 0
// (an array); txq.level.width at level 1 is max(5 >> 1, 1) = 2.
// run: --grid 1 --block 1
// arg: tex,filter=linear,address=wrap,normalized:f32[2,3,5,1] = 0
// arg: surf:u8[4,6,4] = 0
// arg: zeros:u32:16
// expect arg2: u32 [5, 3, 2, 0x10DE, 0x10B0, 1, 1, 0, 0, 1, 2, 6, 4, 0x10DA, 0x10B5, 0]

{HEAD}
.visible .entry queries(.param .u64 t, .param .u64 s, .param .u64 o)
{{
  .reg .b64 %rd<4>;
  .reg .b32 %r<20>;
  ld.param.u64 %rd1, [t];
  ld.param.u64 %rd2, [s];
  ld.param.u64 %rd3, [o];
  txq.width.b32 %r1, [%rd1];
  txq.height.b32 %r2, [%rd1];
  txq.depth.b32 %r3, [%rd1];
  txq.channel_data_type.b32 %r4, [%rd1];
  txq.channel_order.b32 %r5, [%rd1];
  txq.normalized_coords.b32 %r6, [%rd1];
  txq.filter_mode.b32 %r7, [%rd1];
  txq.addr_mode_0.b32 %r8, [%rd1];
  txq.array_size.b32 %r9, [%rd1];
  txq.num_mipmap_levels.b32 %r10, [%rd1];
  txq.level.width.b32 %r11, [%rd1], 1;
  suq.width.b32 %r12, [%rd2];
  suq.height.b32 %r13, [%rd2];
  suq.channel_data_type.b32 %r14, [%rd2];
  suq.channel_order.b32 %r15, [%rd2];
  suq.memory_layout.b32 %r16, [%rd2];
  st.global.v4.b32 [%rd3], {{%r1, %r2, %r3, %r4}};
  st.global.v4.b32 [%rd3+16], {{%r5, %r6, %r7, %r8}};
  st.global.v4.b32 [%rd3+32], {{%r9, %r10, %r11, %r12}};
  st.global.v4.b32 [%rd3+48], {{%r13, %r14, %r15, %r16}};
  ret;
}}
"""
    write("txq_suq", text)

    text = f"""// istypep on real handles: a texture object is a .texref and not a .surfref, a surface
// object the reverse; neither is a .samplerref (ptxvm has no sampler objects: a texture
// object lends its sampling state to [a, b, c], but is typed as a texture), and a number
// that is no handle is none of them.
// run: --grid 1 --block 1
// arg: tex:f32[4] = 0
// arg: surf:u32[4] = 0
// arg: zeros:u32:8
// expect arg2: u32 [1, 0, 0, 0, 1, 0, 0, 0]

{HEAD}
.visible .entry istypep_handles(.param .u64 t, .param .u64 s, .param .u64 o)
{{
  .reg .b64 %rd<5>;
  .reg .b32 %r<9>;
  .reg .pred %p<9>;
  ld.param.u64 %rd1, [t];
  ld.param.u64 %rd2, [s];
  ld.param.u64 %rd3, [o];
  mov.u64 %rd4, 12345;
  istypep.texref %p1, %rd1;
  istypep.surfref %p2, %rd1;
  istypep.samplerref %p3, %rd1;
  istypep.texref %p4, %rd2;
  istypep.surfref %p5, %rd2;
  istypep.samplerref %p6, %rd2;
  istypep.texref %p7, %rd4;
  istypep.surfref %p8, %rd4;
  selp.u32 %r1, 1, 0, %p1;
  selp.u32 %r2, 1, 0, %p2;
  selp.u32 %r3, 1, 0, %p3;
  selp.u32 %r4, 1, 0, %p4;
  selp.u32 %r5, 1, 0, %p5;
  selp.u32 %r6, 1, 0, %p6;
  selp.u32 %r7, 1, 0, %p7;
  selp.u32 %r8, 1, 0, %p8;
  st.global.v4.b32 [%rd3], {{%r1, %r2, %r3, %r7}};
  st.global.v4.b32 [%rd3+16], {{%r5, %r4, %r6, %r8}};
  ret;
}}
"""
    write("istypep_handles", text)

    text = f"""// A texture instruction given a number that is no texture object faults, naming it.
// run: --grid 1 --block 1
// arg: u64:0x1234
// expect error: `tex.1d.v4.f32.s32`: 0x1234 is not a texture or surface object

{HEAD}
.visible .entry bad_handle(.param .u64 t)
{{
  .reg .b64 %rd<4>;
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd1, [t];
  mov.u32 %r1, 0;
  tex.1d.v4.f32.s32 {{%f0, %f1, %f2, %f3}}, [%rd1, {{%r1}}];
  ret;
}}
"""
    write("tex_bad_handle", text)


def form_tests():
    # The mipmap forms read level 0 (an object has one level); f16 and f16x2 results are the
    # f32 results rounded to f16. Texture: 2x2 RGBA f32, texel (x, y) channel c =
    # 10y + 2x + c/4; the sample at (1.5, 0.5) (unnormalized, point) is texel (1, 0).
    a = np.array([[[10 * y + 2 * x + c / 4 for c in range(4)] for x in range(2)] for y in range(2)],
                 dtype=np.float32)
    tx = [float(v) for v in a[0, 1]]
    h = [int(np.float16(v).view(np.uint16)) for v in a[0, 1]]
    text = f"""// tex.base, tex.level (lod 3.0) and tex.grad read level 0 of a texture with one level;
// .v4.f16 results are the f32 results rounded to f16, .v2.f16x2 packs them in pairs (R in
// the low half). Texel (1, 0) of a 2x2 RGBA f32 texture is {tx}.
// run: --grid 1 --block 1
// arg: tex:f32[2,2,4] = {vals(a.reshape(-1))}
// arg: zeros:u32:20
// expect arg1: u32 {vals([F(v).view(np.uint32) for v in tx] * 3 + h + [h[0] | h[1] << 16, h[2] | h[3] << 16, 0, 0])}

{HEAD}
.visible .entry tex_forms(.param .u64 t, .param .u64 o)
{{
  .reg .b64 %rd<4>;
  .reg .f32 %f<16>;
  .reg .b16 %h<4>;
  .reg .b32 %r<8>;
  ld.param.u64 %rd1, [t];
  ld.param.u64 %rd2, [o];
  mov.f32 %f1, 0f3FC00000;
  mov.f32 %f2, 0f3F000000;
  mov.f32 %f3, 0f40400000;
  mov.f32 %f4, 0f3F800000;
  tex.base.2d.v4.f32.f32 {{%f5, %f6, %f7, %f8}}, [%rd1, {{%f1, %f2}}];
  st.global.v4.f32 [%rd2], {{%f5, %f6, %f7, %f8}};
  tex.level.2d.v4.f32.f32 {{%f5, %f6, %f7, %f8}}, [%rd1, {{%f1, %f2}}], %f3;
  st.global.v4.f32 [%rd2+16], {{%f5, %f6, %f7, %f8}};
  tex.grad.2d.v4.f32.f32 {{%f5, %f6, %f7, %f8}}, [%rd1, {{%f1, %f2}}], {{%f4, %f3}}, {{%f3, %f4}};
  st.global.v4.f32 [%rd2+32], {{%f5, %f6, %f7, %f8}};
  tex.2d.v4.f16.f32 {{%h0, %h1, %h2, %h3}}, [%rd1, {{%f1, %f2}}];
  cvt.u32.u16 %r0, %h0;
  cvt.u32.u16 %r1, %h1;
  cvt.u32.u16 %r2, %h2;
  cvt.u32.u16 %r3, %h3;
  st.global.v4.b32 [%rd2+48], {{%r0, %r1, %r2, %r3}};
  tex.2d.v2.f16x2.f32 {{%r4, %r5}}, [%rd1, {{%f1, %f2}}];
  st.global.v2.b32 [%rd2+64], {{%r4, %r5}};
  ret;
}}
"""
    write("tex_mip_f16_forms", text)

    # Vector surface accesses and sured.p on a 1D u32 surface of 8 texels [0..7]*3.
    a = [3 * i for i in range(8)]
    exp_s = list(a)
    exp_s[4:8] = [100, 101, 102, 103]   # sust.b.1d.v4.b32 at byte 16
    exp_s[1] += 5                        # sured.p.add.1d.b32 at texel 1
    text = f"""// Vector surface accesses: suld.b.1d.v4.b32 at byte 0 reads texels 0..3,
// suld.b.1d.v2.b64 at byte 16 reads bytes 16..31 as two b64 (texels 4..7, stored back as
// four words), sust.b.1d.v4.b32 at byte 16 writes texels 4..7, sured.p.add.1d.b32 at texel
// 1 adds 5 (a u32 surface: unsigned). Surface texel i = 3i.
// run: --grid 1 --block 1
// arg: surf:u32[8] = {vals(a)}
// arg: zeros:u32:8
// expect arg0: u32 {vals(exp_s)}
// expect arg1: u32 {vals(a[0:4] + a[4:8])}

{HEAD}
.visible .entry surf_forms(.param .u64 s, .param .u64 o)
{{
  .reg .b64 %rd<8>;
  .reg .b32 %r<12>;
  ld.param.u64 %rd1, [s];
  ld.param.u64 %rd2, [o];
  mov.u32 %r0, 0;
  suld.b.1d.v4.b32.trap {{%r1, %r2, %r3, %r4}}, [%rd1, {{%r0}}];
  st.global.v4.b32 [%rd2], {{%r1, %r2, %r3, %r4}};
  mov.u32 %r0, 16;
  suld.b.1d.v2.b64.trap {{%rd3, %rd4}}, [%rd1, {{%r0}}];
  st.global.v2.b64 [%rd2+16], {{%rd3, %rd4}};
  mov.u32 %r5, 100;
  mov.u32 %r6, 101;
  mov.u32 %r7, 102;
  mov.u32 %r8, 103;
  sust.b.1d.v4.b32.trap [%rd1, {{%r0}}], {{%r5, %r6, %r7, %r8}};
  mov.u32 %r0, 1;
  mov.u32 %r9, 5;
  sured.p.add.1d.b32.trap [%rd1, {{%r0}}], %r9;
  ret;
}}
"""
    write("surf_vector_forms", text)


if __name__ == "__main__":
    main()
    surf_tests()
    query_tests()
    form_tests()


# ---------------------------------------------------------------------------------------
# Depth compare, the residency predicate, cubemaps, multi-sample and explicit-sampler forms
# (one thread, one instruction after another; every result stored as 32-bit words).
# ---------------------------------------------------------------------------------------

def fb(x):
    return int(np.array(F(x), dtype=np.float32).view(np.uint32))


def h16(x):
    return int(np.array(F(x), dtype=np.float32).astype(np.float16).view(np.uint16))


def words(r, n):
    """The destination words of a result: 4 f32/u32 words, or 2 f16x2 words (R low)."""
    if n == 4:
        return [fb(v) if isinstance(v, (np.floating, float)) else int(v) & 0xFFFFFFFF for v in r]
    return [h16(r[0]) | h16(r[1]) << 16, h16(r[2]) | h16(r[3]) << 16]


def seq_test(name, comment, params, args, cases, *, version="8.0", target="sm_80", extra_expect=()):
    """params: the object parameters' names (each a .u64 %rdK, K = 1, 2, ...); args: their
    `// arg:` specs; cases: (register values {reg: bits}, instruction text with D for the
    destination, result words, with predicate). The last parameter is the output buffer."""
    out = []
    body = []
    for regs, inst, exp, pred in cases:
        for r, v in regs.items():
            body.append(f"  mov.b32 {r}, {v & 0xFFFFFFFF:#x};")
        n = len(exp)
        d = "{%d0, %d1, %d2, %d3}" if n == 4 else "{%d0, %d1}"
        if pred:
            d += "|%p"
        body.append("  " + inst.replace("D", d, 1) + ";")
        for k in range(n):
            body.append(f"  st.global.b32 [%rd9+{4 * len(out) + 4 * k}], %d{k};")
        out += exp
        if pred:
            body.append("  selp.u32 %x, 1, 0, %p;")
            body.append(f"  st.global.b32 [%rd9+{4 * len(out)}], %x;")
            out.append(1)
    lines = [f"// {l}" for l in comment.strip().split("\n")]
    lines += ["// Expected values: tools/tex_ref.py.", "// run: --grid 1 --block 1"]
    lines += [f"// arg: {a}" for a in args]
    lines.append(f"// arg: zeros:u32:{len(out)}")
    lines.append(f"// expect arg{len(args)}: u32 {vals(out)}")
    lines += list(extra_expect)
    ps = ", ".join([f".param .u64 {p}" for p in params] + [".param .u64 out"])
    head = f".version {version}\n.target {target}\n.address_size 64\n"
    text = "\n".join(lines) + "\n\n" + head + "\n" + "\n".join([
        f".visible .entry {name}({ps})",
        "{",
        "  .reg .pred %p;",
        "  .reg .b32 %d<4>, %c<8>, %g<8>, %o<2>, %l, %f0, %x;",
        "  .reg .b64 %rd<10>, %v;",
    ] + [f"  ld.param.u64 %rd{k + 1}, [{p}];" for k, p in enumerate(params)] + [
        "  ld.param.u64 %rd9, [out];",
    ] + body + ["  ret;", "}"]) + "\n"
    write(name, text)


def cube_face(x, y, z):
    """The face and its normalized (u, v), from the table in docs/textures.md (f32)."""
    x, y, z = F(x), F(y), F(z)
    ax, ay, az = abs(x), abs(y), abs(z)
    if ax >= ay and ax >= az:
        face, sc, tc, ma = (0, -z, -y, ax) if x >= 0 else (1, z, -y, ax)
    elif ay >= az:
        face, sc, tc, ma = (2, x, z, ay) if y >= 0 else (3, x, -z, ay)
    elif z >= 0:
        face, sc, tc, ma = (4, x, -y, az)
    else:
        face, sc, tc, ma = (5, -x, -y, az)
    uv = lambda c: F(F(F(c / ma) + F(1)) * F(0.5))
    return face, uv(sc), uv(tc)


def arg_spec(kind, arr, opts=""):
    dt = {"float32": "f32", "float16": "f16", "int32": "i32", "uint32": "u32", "uint8": "u8",
          "int8": "i8", "uint16": "u16", "int16": "i16"}[arr.dtype.name]
    shape = ",".join(str(s) for s in arr.shape)
    return f"{kind}{opts}:{dt}[{shape}] = {vals(arr.reshape(-1))}"


def depth_forms():
    rng = np.random.default_rng(77)
    a = grid2(4, 5, 21)
    t = Tex(a, "linear", "clamp")
    c2 = lambda x, y: {"%c0": fb(x), "%c1": fb(y)}
    cases = []
    refs = [F(-1.0), F(0.37), F(2.5), F(-4.2), F(0.0), F(1.75)]
    co = [(float(F(x)), float(F(y))) for x, y in rng.uniform(-0.5, 5.5, size=(40, 2))]
    k = iter(range(1000))

    def nxt():
        i = next(k)
        return co[i % len(co)], refs[i % len(refs)], [int(v) for v in rng.integers(-3, 3, size=2)]

    G = "{%g0, %g1}, {%g2, %g3}"
    grads = {"%g0": fb(1.0), "%g1": fb(0.0), "%g2": fb(0.0), "%g3": fb(1.0)}
    A = "[%rd1, {%c0, %c1}]"
    # tex with depth compare: plain, offset, .base, .level, .grad, f16x2, integer coordinates.
    for form, extra in [("tex.2d.v4.f32.f32", ""), ("tex.base.2d.v4.f32.f32", ""),
                        ("tex.level.2d.v4.f32.f32", "%l, "), ("tex.grad.2d.v4.f32.f32", G + ", "),
                        ("tex.2d.v2.f16x2.f32", "")]:
        n = 2 if "f16x2" in form else 4
        for with_off in (False, True):
            (x, y), f, o = nxt()
            regs = {**c2(x, y), "%f0": fb(f), "%l": fb(2.0), **grads, "%o0": o[0], "%o1": o[1]}
            ops = extra + ("{%o0, %o1}, " if with_off else "") + "%f0"
            r = t.sample((x, y, 0), (o[0], o[1], 0) if with_off else (0, 0, 0), cmp=f)
            cases.append((regs, f"{form} D, {A}, {ops}", words(r, n), False))
    for ix, iy in [(1, 2), (-1, 7), (4, 0)]:
        (x, y), f, o = nxt()
        regs = {"%c4": ix, "%c5": iy, "%f0": fb(f)}
        cases.append((regs, "tex.2d.v4.f32.s32 D, [%rd1, {%c4, %c5}], %f0",
                      words(t.fetch_int((ix, iy, 0), cmp=f), 4), False))
    # tld4 with depth compare (the chosen channel of each footprint texel compared).
    for ops, pred, with_off in [("%f0", False, False), ("{%o0, %o1}, %f0", False, True),
                                ("{%o0, %o1}, %f0", True, True), ("%f0", True, False)]:
        (x, y), f, o = nxt()
        regs = {**c2(x, y), "%f0": fb(f), "%o0": o[0], "%o1": o[1]}
        r = t.gather((x, y), 0, tuple(o) if with_off else (0, 0), cmp=f)
        cases.append((regs, f"tld4.r.2d.v4.f32.f32 D, {A}, {ops}", words(r, 4), pred))
    # d|p forms (resident: p is true) and the remaining mipmap f16x2 forms.
    for form, extra, pred, cmp, off in [
            ("tex.2d.v4.f32.f32", "", True, False, False),
            ("tex.2d.v4.f32.f32", "", True, True, False),
            ("tex.2d.v4.f32.f32", "", True, True, True),
            ("tex.base.2d.v4.f32.f32", "", True, False, True),
            ("tex.level.2d.v4.f32.f32", "%l", True, False, False),
            ("tex.grad.2d.v4.f32.f32", G, True, False, False),
            ("tex.2d.v2.f16x2.f32", "", True, False, False),
            ("tex.level.2d.v2.f16x2.f32", "%l", True, False, False),
            ("tex.grad.2d.v2.f16x2.f32", G, True, False, False),
            ("tex.base.2d.v2.f16x2.f32", "", False, False, False),
            ("tex.level.2d.v2.f16x2.f32", "%l", False, False, False),
            ("tex.grad.2d.v2.f16x2.f32", G, False, False, True)]:
        (x, y), f, o = nxt()
        n = 2 if "f16x2" in form else 4
        regs = {**c2(x, y), "%f0": fb(f), "%l": fb(1.0), **grads, "%o0": o[0], "%o1": o[1]}
        ops = [e for e in (extra, "{%o0, %o1}" if off else "", "%f0" if cmp else "") if e]
        r = t.sample((x, y, 0), (o[0], o[1], 0) if off else (0, 0, 0), cmp=f if cmp else None)
        cases.append((regs, f"{form} D, {A}" + "".join(", " + e for e in ops), words(r, n), pred))
    seq_test("tex_depth_compare", """Depth compare (the f operand) on a 2D f32 texture, linear filtering, clamp: each texel
compares as 1.0 when f <= texel (else 0.0; ptxvm's choice, docs/textures.md) and the filter
weighs the comparison results; every destination element gets the result (f16x2: rounded).
tld4 with f gathers the four comparison results. Also the d|p forms (p: resident, always
true) and the .base/.level/.grad f16x2 forms (level 0).""",
             ["t"], [arg_spec("tex,filter=linear", a)], cases)


def cube_forms():
    rng = np.random.default_rng(78)
    a = (rng.integers(-16, 16, size=(6, 4, 4, 1)) / 4).astype(np.float32)
    faces = [Tex(a[i], "linear", "clamp", normalized=True) for i in range(6)]
    dirs = [tuple(float(F(v)) for v in d) for d in rng.uniform(-1, 1, size=(40, 3))]
    refs = [F(-0.6), F(0.3), F(1.2), F(-2.0)]
    cases = []
    it = iter(range(100))
    G = "{%g0, %g1, %g2, %g3}, {%g4, %g5, %g6, %g7}"
    grads = {f"%g{i}": fb(0.25) for i in range(8)}
    A = "[%rd1, {%c0, %c1, %c2, %c3}]"
    for form, extra, pred, cmp in [
            ("tex.cube.v4.f32.f32", "", False, True),
            ("tex.cube.v2.f16x2.f32", "", False, True),
            ("tex.base.cube.v4.f32.f32", "", False, True),
            ("tex.level.cube.v4.f32.f32", "%l", False, True),
            ("tex.grad.cube.v4.f32.f32", G, False, True),
            ("tex.base.cube.v2.f16x2.f32", "", False, False),
            ("tex.level.cube.v2.f16x2.f32", "%l", False, False),
            ("tex.grad.cube.v2.f16x2.f32", G, False, False),
            ("tex.cube.v4.f32.f32", "", True, False),
            ("tex.cube.v4.f32.f32", "", True, True),
            ("tex.level.cube.v4.f32.f32", "%l", True, False),
            ("tex.grad.cube.v4.f32.f32", G, True, False),
            ("tex.cube.v2.f16x2.f32", "", True, False),
            ("tld4.r.cube.v4.f32.f32", "", False, False),
            ("tld4.r.cube.v4.f32.f32", "", False, True),
            ("tld4.r.cube.v4.f32.f32", "", True, True)]:
        i = next(it)
        x, y, z = dirs[i]
        f = refs[i % len(refs)]
        face, u, v = cube_face(x, y, z)
        n = 2 if "f16x2" in form else 4
        if form.startswith("tld4"):
            r = faces[face].gather((u, v), 0, cmp=f if cmp else None)
        else:
            r = faces[face].sample((u, v, 0), cmp=f if cmp else None)
        regs = {"%c0": fb(x), "%c1": fb(y), "%c2": fb(z), "%c3": 0, "%f0": fb(f), "%l": fb(0.0), **grads}
        ops = [e for e in (extra, "%f0" if cmp else "") if e]
        cases.append((regs, f"{form} D, {A}" + "".join(", " + e for e in ops), words(r, n), pred))
    seq_test("tex_cube_forms", """Cubemap forms on a (6, 4, 4) f32 cubemap with linear filtering (--arg tex:...,geom=cube):
the face and its normalized (u, v) from the direction's largest component (docs/textures.md),
sampled as a 2D face with normalized coordinates clamped at its edges; with depth compare,
with the d|p predicate (resident: true), .base/.level/.grad (level 0), tld4 gathers.""",
             ["t"], [arg_spec("tex,filter=linear,geom=cube", a)], cases)


def ms_forms():
    rng = np.random.default_rng(79)
    a = (rng.integers(-40, 40, size=(4, 5, 4)) / 8).astype(np.float32)
    la = (rng.integers(-40, 40, size=(3, 4, 5, 4)) / 8).astype(np.float32)
    t = Tex(a, "point", "clamp")
    lt = [Tex(la[i], "point", "clamp") for i in range(3)]
    cases = []
    A = "[%rd1, {%c0, %c1, %c2, %c3}]"
    for (x, y), o, form, pred, n in [((1, 2), None, "tex.2dms.v4.f32.s32", False, 4),
                                     ((3, 3), (-2, 1), "tex.2dms.v4.f32.s32", False, 4),
                                     ((6, -1), None, "tex.2dms.v4.f32.s32", True, 4),
                                     ((0, 1), (1, 1), "tex.2dms.v4.f32.s32", True, 4),
                                     ((4, 2), None, "tex.2dms.v2.f16x2.s32", False, 2),
                                     ((2, 0), (1, 2), "tex.2dms.v2.f16x2.s32", False, 2)]:
        regs = {"%c0": 0, "%c1": x, "%c2": y, "%c3": 0}
        ops = ""
        if o:
            regs.update({"%o0": o[0], "%o1": o[1]})
            ops = ", {%o0, %o1}"
        r = t.fetch_int((x, y, 0), (o[0], o[1], 0) if o else (0, 0, 0))
        cases.append((regs, f"{form} D, {A}{ops}", words(r, n), pred))
    for layer, (x, y), o, pred in [(0, (1, 1), None, False), (2, (4, 3), None, True),
                                   (1, (2, 2), (-1, 1), False), (7, (0, 0), None, False)]:
        regs = {"%c0": layer, "%c1": 0, "%c2": x, "%c3": y}
        ops = ""
        if o:
            regs.update({"%o0": o[0], "%o1": o[1]})
            ops = ", {%o0, %o1}"
        r = lt[min(layer, 2)].fetch_int((x, y, 0), (o[0], o[1], 0) if o else (0, 0, 0))
        cases.append((regs, f"tex.a2dms.v4.f32.s32 D, [%rd2, {{%c0, %c1, %c2, %c3}}]{ops}", words(r, 4), pred))
    seq_test("tex_multisample", """Multi-sample forms on ptxvm's one-sample textures: tex.2dms reads sample 0 of a 2D object
at {sample, x, y, -} (integer coordinates, clamp, offsets added), tex.a2dms sample 0 of a
layered 2D object at {index, sample, x, y} (the index clamped to the array: 7 reads layer 2).""",
             ["t", "lt"], [arg_spec("tex", a), arg_spec("tex,geom=layered", la)], cases)
    text = f"""// tex.2dms with sample number 1: ptxvm's textures have one sample, so the read faults.
// run: --grid 1 --block 1
// arg: {arg_spec("tex", a)}
// expect error: sample 1 of a texture with one sample

{HEAD}
.visible .entry ms_sample1(.param .u64 t)
{{
  .reg .b32 %c<4>, %d<4>;
  .reg .b64 %rd1;
  ld.param.u64 %rd1, [t];
  mov.b32 %c0, 1;
  mov.b32 %c1, 0;
  mov.b32 %c2, 0;
  mov.b32 %c3, 0;
  tex.2dms.v4.f32.s32 {{%d0, %d1, %d2, %d3}}, [%rd1, {{%c0, %c1, %c2, %c3}}];
  ret;
}}
"""
    write("tex_multisample_sample1", text)


def sampler_forms():
    rng = np.random.default_rng(80)
    a = grid2(4, 5, 22)
    own = Tex(a, "point", "clamp")
    ind = Tex(a, "linear", "border", normalized=True)
    dummy = np.zeros((2, 2, 1), dtype=np.float32)
    cases = []
    for x, y in rng.uniform(-0.2, 1.2, size=(4, 2)):
        x, y = float(F(x)), float(F(y))
        regs = {"%c0": fb(x), "%c1": fb(y)}
        cases.append((regs, "tex.2d.v4.f32.f32 D, [%rd1, %rd2, {%c0, %c1}]", words(ind.sample((x, y, 0)), 4), False))
        cases.append((regs, "tld4.r.2d.v4.f32.f32 D, [%rd1, %rd2, {%c0, %c1}]", words(ind.gather((x, y), 0), 4), False))
        xs, ys = x * 5, y * 4
        regs = {"%c0": fb(xs), "%c1": fb(ys)}
        cases.append((regs, "tex.2d.v4.f32.f32 D, [%rd1, {%c0, %c1}]", words(own.sample((xs, ys, 0)), 4), False))
    seq_test("tex_sampler_operand", """Independent texturing mode: [t, s, c] samples texture t with the sampling state of the
texture object s (ptxvm has no separate sampler objects; docs/textures.md): t is point/clamp/
unnormalized, s linear/border/normalized, so [t, s, c] filters t linearly with normalized
coordinates and border texels 0; [t, c] keeps t's own sampler.""",
             ["t", "s"], [arg_spec("tex", a), arg_spec("tex,filter=linear,address=border,normalized", dummy)], cases)


def surf_p_forms():
    a = (np.arange(12, dtype=np.uint32) * 0x01010101 + 0x10).reshape(3, 4, 1)
    b = np.array([[5, 0], [0xFFFFFFFF, 1], [7, 7], [0, 0x80000000]], dtype=np.uint32)
    c = np.array([[-5, -1], [3, 0], [0, -2147483648], [9, 0]], dtype=np.int32)
    ea, eb, ec = a.copy(), b.copy(), c.copy()
    body = []
    # sust.p.2d.b32 scalar at texel (2, 1): the element gets the value's low 32 bits.
    body += ["mov.b32 %c0, 2;", "mov.b32 %c1, 1;", "mov.b32 %c2, 0xCAFE;",
             "sust.p.2d.b32.trap [%rd1, {%c0, %c1}], %c2;"]
    ea[1, 2, 0] = 0xCAFE
    # sured.b.and / .or (byte x): texel (3, 0) &= 0x0F0F0F0F, texel (1, 2) |= 0x80000001, and
    # .clamp: byte x 100 clamps to the last texel of row 2.
    body += ["mov.b32 %c0, 12;", "mov.b32 %c1, 0;", "mov.b32 %c2, 0x0F0F0F0F;",
             "sured.b.and.2d.b32.trap [%rd1, {%c0, %c1}], %c2;"]
    ea[0, 3, 0] &= 0x0F0F0F0F
    body += ["mov.b32 %c0, 4;", "mov.b32 %c1, 2;", "mov.b32 %c2, 0x80000001;",
             "sured.b.or.2d.b32.trap [%rd1, {%c0, %c1}], %c2;"]
    ea[2, 1, 0] |= 0x80000001
    body += ["mov.b32 %c0, 100;", "mov.b32 %c1, 2;", "mov.b32 %c2, 0xF0;",
             "sured.b.or.2d.b32.clamp [%rd1, {%c0, %c1}], %c2;"]
    ea[2, 3, 0] |= 0xF0
    # sured.p.min/max.1d.b64 (x in texels) on two-channel 32-bit surfaces: one 64-bit element
    # per texel (channel 0 the low word), unsigned for u32, signed for s32.
    u64 = lambda r: int(r[0]) | int(r[1]) << 32
    s64 = lambda r: (int(r[0]) & 0xFFFFFFFF) | (int(r[1]) & 0xFFFFFFFF) << 32
    ops = []
    for x, v in [(0, 3), (1, 0x1_0000_0000), (2, 0xFFFF_FFFF_FFFF_FFFF), (3, 1 << 63)]:
        ops.append(("min", "%rd2", x, v))
        old = u64(eb[x])
        nv = min(old, v)
        eb[x] = [nv & 0xFFFFFFFF, nv >> 32]
    for x, v in [(0, -(1 << 40)), (1, 5), (2, -1), (3, 1 << 62)]:
        ops.append(("max", "%rd3", x, v & 0xFFFF_FFFF_FFFF_FFFF))
        old = s64(ec[x])
        old = old - (1 << 64) if old >= 1 << 63 else old
        nv = max(old, v) & 0xFFFF_FFFF_FFFF_FFFF
        ec[x] = np.array([nv & 0xFFFFFFFF, nv >> 32], dtype=np.uint32).view(np.int32)
    for op, s, x, v in ops:
        body += [f"mov.b32 %c0, {x};", f"mov.b64 %v, {v:#x};",
                 f"sured.p.{op}.1d.b64.trap [{s}, {{%c0}}], %v;"]
    text = f"""// sust.p with a scalar source, sured.b.and/.or (byte x; .clamp), and sured.p.min/.max.b64
// (x in texels) on two-channel 32-bit surfaces, whose 8-byte texels are one 64-bit element
// (channel 0 the low word; u32: unsigned, s32: signed). Expected values: tools/tex_ref.py.
// run: --grid 1 --block 1
// arg: {arg_spec("surf", a)}
// arg: {arg_spec("surf", b)}
// arg: {arg_spec("surf", c)}
// expect arg0: u32 {vals(ea.reshape(-1))}
// expect arg1: u32 {vals(eb.reshape(-1))}
// expect arg2: i32 {vals(ec.reshape(-1))}

.version 8.1
.target sm_80
.address_size 64

.visible .entry surf_p_forms(.param .u64 a, .param .u64 b, .param .u64 c)
{{
  .reg .b32 %c<4>;
  .reg .b64 %rd<4>, %v;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
""" + "".join(f"  {l}\n" for l in body) + """  ret;
}
"""
    write("surf_p_b64_forms", text)


# ---------------------------------------------------------------------------------------
# Mipmaps: level chains (`--arg tex:...,levels=N`: each level the previous one box-filtered),
# .level (explicit LOD, point and linear mipmap filtering, bias and clamps), .grad (the LOD
# of the partials), txq's level queries. The formulas are docs/textures.md's ("Mipmaps"),
# written here from that text.
# ---------------------------------------------------------------------------------------

def box_level(a, dims):
    """The next level of a (spatial dims in (d, h, w) order, channels last): each extent
    halved (at least 1); texel (x, y, z) the mean of the texels (2x+i, 2y+j, 2z+k), each
    index clamped to the level below, summed in f32 in the order x fastest, then y, then z,
    times 1/n (f16 via f32, rounded to nearest even); integers floor((sum + n/2) / n)."""
    sp = a.shape[:-1]
    ch = a.shape[-1]
    nsp = tuple(max(n // 2, 1) for n in sp)
    out = np.zeros(nsp + (ch,), dtype=a.dtype)
    n = 1 << dims
    for idx in np.ndindex(*nsp):
        # idx is (z, y, x) / (y, x) / (x,): children x fastest.
        rev = idx[::-1]
        kids = []
        for k in range(2 if dims == 3 else 1):
            for j in range(2 if dims >= 2 else 1):
                for i in range(2):
                    off = (i, j, k)[:dims]
                    c = tuple(min(2 * rev[d] + off[d], sp[::-1][d] - 1) for d in range(dims))
                    kids.append(c[::-1])
        for cc in range(ch):
            if a.dtype.kind == "f":
                acc = None
                for kid in kids:
                    v = F(a[kid + (cc,)])
                    acc = v if acc is None else F(acc + v)
                m = F(acc * F(1.0 / n))
                out[idx + (cc,)] = m  # f16: numpy rounds to nearest even
            else:
                tot = sum(int(a[kid + (cc,)]) for kid in kids)
                out[idx + (cc,)] = (tot + n // 2) // n
    return out


def chain(a, levels, dims):
    out = [a]
    for _ in range(levels - 1):
        out.append(box_level(out[-1], dims))
    return out


class Mip:
    """A chain of Tex levels with the mipmap sampler fields."""

    def __init__(self, levels, filt="point", mode="clamp", normalized=False, read_float=False,
                 mipfilter="point", bias=0.0, minlod=0.0, maxlod=float("inf")):
        self.lv = [Tex(a, filt, mode, normalized, read_float) for a in levels]
        self.mipfilter, self.bias, self.minlod, self.maxlod = mipfilter, F(bias), F(minlod), F(maxlod)
        self.norm = normalized

    def grad_lod(self, dx, dy):
        t0 = self.lv[0]

        def ln(g):
            s = 0.0
            for d in range(t0.dims):
                v = float(F(g[d])) * (float(t0.ext[d]) if self.norm else 1.0)
                s += v * v
            return math.sqrt(s)
        rho = max(ln(dx), ln(dy))
        return F(math.log2(rho)) if rho > 0 else F(-np.inf)

    def select(self, lod, grad=None, index=None, blend=True):
        top = len(self.lv) - 1
        if top == 0:
            return 0, 0
        if index is not None:
            return min(max(index, 0), top), 0
        lam = self.grad_lod(*grad) if grad is not None else F(lod)
        lam = F(lam + self.bias)
        lam = min(max(lam, self.minlod), self.maxlod)
        lam = min(max(lam, F(0)), F(top))
        q = int(math.floor(float(lam) * 256 + 0.5))
        if not blend or self.mipfilter == "point":
            return min((q + 127) >> 8, top), 0
        lvl, k = q >> 8, q & 255
        return (top, 0) if lvl >= top else (lvl, k)

    def sample(self, c, off=(0, 0, 0), lod=None, grad=None, cmp=None):
        t0 = self.lv[0]
        blend = t0.floats or cmp is not None
        if lod is None and grad is None:
            lvl, k = 0, 0
        else:
            lvl, k = self.select(lod, grad, blend=blend)
        a = self.lv[lvl].sample(c, off, cmp)
        if k == 0:
            return a
        b = self.lv[lvl + 1].sample(c, off, cmp)
        wa, wb = F((256 - k) / 256), F(k / 256)
        return [F(F(wa * x) + F(wb * y)) for x, y in zip(a, b)]

    def fetch_int(self, c, off=(0, 0, 0), index=None, grad=None):
        if index is not None:
            lvl, _ = self.select(None, index=index)
        elif grad is not None:
            lvl, _ = self.select(None, grad=grad, blend=False)
        else:
            lvl = 0
        return self.lv[lvl].fetch_int(c, off)


def mip_forms():
    rng = np.random.default_rng(81)
    # A 2D f32 texture of 12x8 texels (4 levels: 12x8, 6x4, 3x2, 1x1), normalized, linear
    # filtering within a level, clamp.
    a = (rng.integers(-64, 64, size=(8, 12, 1)) / 8).astype(np.float32)
    lv = chain(a, 4, 2)
    c2 = lambda x, y: {"%c0": fb(x), "%c1": fb(y)}
    A = "[%rd1, {%c0, %c1}]"
    co = [(float(F(x)), float(F(y))) for x, y in rng.uniform(-0.1, 1.1, size=(64, 2))]
    lods = [-1.0, 0.0, 0.25, 0.5, 0.49, 0.51, 1.0, 1.3, 1.5, 1.75, 2.2, 2.5, 2.9, 3.0, 3.4, 7.0]

    def level_cases(m, rd, with_off=True, form="tex.level.2d.v4.f32.f32"):
        cases = []
        for i, lod in enumerate(lods):
            x, y = co[i]
            off = (int(rng.integers(-2, 3)), int(rng.integers(-2, 3)), 0) if with_off and i % 3 == 0 else (0, 0, 0)
            regs = {**c2(x, y), "%l": fb(lod), "%o0": off[0], "%o1": off[1]}
            ops = ", %l" + (", {%o0, %o1}" if off != (0, 0, 0) else "")
            n = 2 if "f16x2" in form else 4
            cases.append((regs, f"{form} D, [{rd}, {{%c0, %c1}}]{ops}", words(m.sample((x, y, 0), off, lod=lod), n), False))
        return cases

    # Point mipmap filtering (the nearest level; a tie goes to the lower level).
    m = Mip(lv, "linear", "clamp", True, mipfilter="point")
    cases = level_cases(m, "%rd1")
    # .base and no mode: level 0; .level with d|p.
    for i, form in enumerate(["tex.2d.v4.f32.f32", "tex.base.2d.v4.f32.f32"]):
        x, y = co[40 + i]
        cases.append((c2(x, y), f"{form} D, {A}", words(m.sample((x, y, 0)), 4), False))
    x, y = co[42]
    cases.append(({**c2(x, y), "%l": fb(1.6)}, f"tex.level.2d.v4.f32.f32 D, {A}, %l",
                  words(m.sample((x, y, 0), lod=1.6), 4), True))
    seq_test("tex_mip_level_point", """tex.level on a 12x8 f32 mipmapped texture (levels=4: 12x8, 6x4, 3x2, 1x1, each level the
previous one 2x2 box-filtered), linear filtering within a level, normalized coordinates,
point mipmap filtering: the LOD (clamped to [0, 3], 8 fractional bits) picks the nearest
level, a tie (0.5, 1.5, 2.5) the lower one; offsets in the level's texels; tex and tex.base
read level 0.""",
             ["t"], [arg_spec("tex,filter=linear,normalized,levels=4", a)], cases)

    # Linear mipmap filtering, with bias and clamps.
    cases = []
    m = Mip(lv, "linear", "clamp", True, mipfilter="linear")
    cases += level_cases(m, "%rd1")
    mb = Mip(lv, "linear", "clamp", True, mipfilter="linear", bias=0.375, minlod=0.5, maxlod=2.25)
    cases += level_cases(mb, "%rd2", with_off=False)
    cases += level_cases(mb, "%rd2", with_off=False, form="tex.level.2d.v2.f16x2.f32")[:6]
    seq_test("tex_mip_level_linear", """tex.level with linear mipmap filtering on the 12x8 chain of tex_mip_level_point: the
LOD's 8 fractional bits k blend level floor(LOD) and the next as (1 - k/256)*A + (k/256)*B
(each term rounded to f32); a second object adds lodbias=0.375, minlod=0.5, maxlod=2.25
(LOD + bias clamped to [0.5, 2.25], then to the chain); .f16x2 results rounded.""",
             ["t", "tb"], [arg_spec("tex,filter=linear,normalized,levels=4,mipfilter=linear", a),
                           arg_spec("tex,filter=linear,normalized,levels=4,mipfilter=linear,lodbias=0.375,minlod=0.5,maxlod=2.25", a)],
             cases)

    # .grad: the LOD of the partials scaled by the level-0 extent.
    cases = []
    mg = Mip(lv, "linear", "clamp", True, mipfilter="linear", bias=-0.25)
    G = "{%g0, %g1}, {%g2, %g3}"
    for i in range(24):
        x, y = co[i + 16]
        scale = float(2.0 ** rng.uniform(-5, 1))
        g = [float(F(v * scale)) for v in rng.uniform(-1, 1, size=4)]
        if i == 0:
            g = [0.0, 0.0, 0.0, 0.0]
        regs = {**c2(x, y), "%g0": fb(g[0]), "%g1": fb(g[1]), "%g2": fb(g[2]), "%g3": fb(g[3])}
        r = mg.sample((x, y, 0), grad=((g[0], g[1], 0), (g[2], g[3], 0)))
        cases.append((regs, f"tex.grad.2d.v4.f32.f32 D, {A}, {G}", words(r, 4), False))
    seq_test("tex_mip_grad", """tex.grad on the 12x8 chain of tex_mip_level_point with linear mipmap filtering and
lodbias=-0.25: LOD = log2(max(|dPdx * (12, 8)|, |dPdy * (12, 8)|)) (f64, rounded to f32; a
zero gradient is -inf: level 0), plus the bias, clamped, 8 fractional bits.""",
             ["t"], [arg_spec("tex,filter=linear,normalized,levels=4,mipfilter=linear,lodbias=-0.25", a)], cases)

    # 1D point, unnormalized coordinates (each level's own texels), integer LODs with
    # integer coordinates, u8 read as float with the box filter's integer rounding, 3D .grad,
    # layered .level, txq.
    cases = []
    a1 = np.arange(16, dtype=np.float32).reshape(16, 1) * F(1.5)
    l1 = chain(a1, 5, 1)
    m1 = Mip(l1, "point", "clamp", False, mipfilter="point")
    for x, lod in [(0.5, 0.0), (3.7, 1.0), (3.7, 2.0), (9.2, 1.0), (1.2, 3.0), (0.3, 4.0), (5.0, 9.0)]:
        cases.append(({"%c0": fb(x), "%l": fb(lod)}, "tex.level.1d.v4.f32.f32 D, [%rd1, {%c0}], %l",
                      words(m1.sample((x, 0, 0), lod=lod), 4), False))
    au = rng.integers(0, 256, size=(6, 7, 4)).astype(np.uint8)
    lu = chain(au, 3, 2)
    mu = Mip(lu, "point", "clamp", False)
    for (x, y), lvl in [((1, 2), 0), ((2, 1), 1), ((5, 0), 1), ((0, 0), 2), ((3, 3), -1), ((1, 1), 7)]:
        cases.append(({"%c4": x, "%c5": y, "%l": lvl}, "tex.level.2d.v4.u32.s32 D, [%rd2, {%c4, %c5}], %l",
                      words(mu.fetch_int((x, y, 0), index=lvl), 4), False))
    mf = Mip(lu, "linear", "clamp", True, read_float=True, mipfilter="linear")
    for x, y, lod in [(0.3, 0.6, 0.5), (0.8, 0.1, 1.25), (0.5, 0.5, 1.9)]:
        cases.append(({**c2(x, y), "%l": fb(lod)}, "tex.level.2d.v4.f32.f32 D, [%rd3, {%c0, %c1}], %l",
                      words(mf.sample((x, y, 0), lod=lod), 4), False))
    a3 = (rng.integers(-32, 32, size=(4, 8, 8, 1)) / 4).astype(np.float32)
    l3 = chain(a3, 4, 3)
    m3 = Mip(l3, "linear", "clamp", True, mipfilter="linear")
    for i in range(6):
        c = [float(F(v)) for v in rng.uniform(0, 1, size=3)]
        g = [float(F(v)) for v in rng.uniform(-0.3, 0.3, size=6)]
        regs = {"%c0": fb(c[0]), "%c1": fb(c[1]), "%c2": fb(c[2]), "%c3": 0}
        inst = "tex.grad.3d.v4.f32.f32 D, [%rd4, {%c0, %c1, %c2, %c3}], {%g0, %g1, %g2, %g3}, {%g4, %g5, %g6, %g7}"
        regs.update({"%g0": fb(g[0]), "%g1": fb(g[1]), "%g2": fb(g[2]), "%g3": 0,
                     "%g4": fb(g[3]), "%g5": fb(g[4]), "%g6": fb(g[5]), "%g7": 0})
        cases.append((regs, inst, words(m3.sample(c, grad=(g[0:3], g[3:6])), 4), False))
    la = (rng.integers(-16, 16, size=(3, 4, 6, 2)) / 4).astype(np.float32)
    lchains = [chain(la[i], 3, 2) for i in range(3)]
    ml = [Mip(lchains[i], "linear", "clamp", True, mipfilter="linear") for i in range(3)]
    for layer, x, y, lod in [(0, 0.3, 0.4, 0.7), (2, 0.9, 0.2, 1.5), (5, 0.5, 0.5, 2.0)]:
        regs = {"%c0": layer, "%c1": fb(x), "%c2": fb(y), "%c3": 0, "%l": fb(lod)}
        cases.append((regs, "tex.level.a2d.v4.f32.f32 D, [%rd5, {%c0, %c1, %c2, %c3}], %l",
                      words(ml[min(layer, 2)].sample((x, y, 0), lod=lod), 4), False))
    # Cubemaps: each face's chain (faces 4x4, 2x2, 1x1), .level and .grad (the partials of the
    # face coordinates, OpenGL's rule, scaled by the face size).
    ac = (rng.integers(-16, 16, size=(6, 4, 4, 1)) / 4).astype(np.float32)
    fch = [chain(ac[f], 3, 2) for f in range(6)]
    mc = [Mip(fch[f], "linear", "clamp", True, mipfilter="linear") for f in range(6)]
    axes = {0: ((2, -1), (1, -1), 0), 1: ((2, 1), (1, -1), 0), 2: ((0, 1), (2, 1), 1),
            3: ((0, 1), (2, -1), 1), 4: ((0, 1), (1, -1), 2), 5: ((0, -1), (1, -1), 2)}

    def cube_lod(c, dx, dy):
        face, _, _ = cube_face(*c)
        (i_s, ss), (i_t, st), im = axes[face]
        c = [float(F(v)) for v in c]

        def ln(g):
            g = [float(F(v)) for v in g]
            ma = c[im]
            if ma == 0.0:
                return 0.0
            dma = math.copysign(1.0, ma) * g[im]
            am = abs(ma)
            d = lambda i, sg: (sg * g[i] * am - sg * c[i] * dma) / (2.0 * ma * ma) * 4.0
            du, dv = d(i_s, ss), d(i_t, st)
            return math.sqrt(du * du + dv * dv)
        rho = max(ln(dx), ln(dy))
        return F(math.log2(rho)) if rho > 0 else F(-np.inf)

    for i in range(8):
        d = [float(F(v)) for v in rng.uniform(-1, 1, size=3)]
        face, u, v = cube_face(*d)
        regs = {"%c0": fb(d[0]), "%c1": fb(d[1]), "%c2": fb(d[2]), "%c3": 0}
        if i % 2 == 0:
            lod = float(F(rng.uniform(-0.5, 2.5)))
            regs["%l"] = fb(lod)
            r = mc[face].sample((u, v, 0), lod=lod)
            inst = "tex.level.cube.v4.f32.f32 D, [%rd6, {%c0, %c1, %c2, %c3}], %l"
        else:
            g = [float(F(x)) for x in rng.uniform(-0.6, 0.6, size=6)]
            regs.update({"%g0": fb(g[0]), "%g1": fb(g[1]), "%g2": fb(g[2]), "%g3": 0,
                         "%g4": fb(g[3]), "%g5": fb(g[4]), "%g6": fb(g[5]), "%g7": 0})
            lam = cube_lod(d, g[0:3], g[3:6])
            r = mc[face].sample((u, v, 0), lod=lam)
            inst = "tex.grad.cube.v4.f32.f32 D, [%rd6, {%c0, %c1, %c2, %c3}], {%g0, %g1, %g2, %g3}, {%g4, %g5, %g6, %g7}"
        cases.append((regs, inst, words(r, 4), False))
    seq_test("tex_mip_forms", """Mipmap forms: tex.level.1d with point mipmap filtering and unnormalized coordinates (in
each level's own texels); tex.level.2d.v4.u32.s32 (integer coordinates: lod is the level
number, clamped to the chain) on a u8 RGBA chain (box filter: floor((sum + 2) / 4)); the same
chain read as normalized floats with linear mipmap filtering; tex.grad.3d (partials scaled by
8x8x4; 2x2x2 box filter); tex.level.a2d on a layered chain (layers kept, index clamped);
tex.level.cube and tex.grad.cube on a 4x4 cubemap chain (each face its own chain; .grad from
the partials of the face coordinates, OpenGL's rule, scaled by the face size).""",
             ["t1", "tu", "tf", "t3", "tl", "tc"],
             [arg_spec("tex,levels=5", a1), arg_spec("tex,levels=3", au),
              arg_spec("tex,filter=linear,normalized,read=float,levels=3,mipfilter=linear", au),
              arg_spec("tex,filter=linear,normalized,levels=4,mipfilter=linear", a3),
              arg_spec("tex,filter=linear,normalized,geom=layered,levels=3,mipfilter=linear", la),
              arg_spec("tex,filter=linear,geom=cube,levels=3,mipfilter=linear", ac)],
             cases)

    text = f"""// txq on a mipmapped 2D texture of 12x8 texels with 4 levels: num_mipmap_levels 4;
// txq.level.width/height at levels 0..4: 12x8, 6x4, 3x2, 1x1, and (past the chain: the
// extents keep halving, at least 1) 1x1.
// run: --grid 1 --block 1
// arg: tex,normalized,levels=4:f32[8,12,1] = 0
// arg: zeros:u32:11
// expect arg1: u32 [4, 12, 8, 6, 4, 3, 2, 1, 1, 1, 1]

{HEAD}
.visible .entry mip_queries(.param .u64 t, .param .u64 o)
{{
  .reg .b64 %rd<4>;
  .reg .b32 %r<12>;
  ld.param.u64 %rd1, [t];
  ld.param.u64 %rd2, [o];
  txq.num_mipmap_levels.b32 %r0, [%rd1];
  txq.level.width.b32 %r1, [%rd1], 0;
  txq.level.height.b32 %r2, [%rd1], 0;
  txq.level.width.b32 %r3, [%rd1], 1;
  txq.level.height.b32 %r4, [%rd1], 1;
  txq.level.width.b32 %r5, [%rd1], 2;
  txq.level.height.b32 %r6, [%rd1], 2;
  txq.level.width.b32 %r7, [%rd1], 3;
  txq.level.height.b32 %r8, [%rd1], 3;
  txq.level.width.b32 %r9, [%rd1], 4;
  txq.level.height.b32 %r10, [%rd1], 4;
  st.global.v4.b32 [%rd2], {{%r0, %r1, %r2, %r3}};
  st.global.v4.b32 [%rd2+16], {{%r4, %r5, %r6, %r7}};
  st.global.v2.b32 [%rd2+32], {{%r8, %r9}};
  st.global.b32 [%rd2+40], %r10;
  ret;
}}
"""
    write("tex_mip_queries", text)


if __name__ == "__main__":
    depth_forms()
    cube_forms()
    ms_forms()
    sampler_forms()
    surf_p_forms()
    mip_forms()
