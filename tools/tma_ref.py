#!/usr/bin/env python3
"""Generates the TMA run tests ``tests/run/tma/*.ptx`` with their expected values.

Each case is a one-thread kernel over a tensor map passed with ``--arg tmap:...``
(``ptxvm run --help``). The expected values are computed here, independently of ptxvm,
from the rules of the PTX ISA ("Tensor Data", bounding box, traversal stride,
out-of-bounds access, swizzling modes) and of ``cuTensorMapEncodeTiled``:

* the box at coordinates ``c`` covers, along dimension ``i``, the elements
  ``c[i] + k * estride[i]`` for ``k < ceil(box[i] / estride[i])`` (dimension 0 always
  with stride 1 when the layout is not interleaved: the driver ignores elementStrides[0]);
* in shared memory the box is dense, dimension 0 fastest; an element outside the tensor
  (any coordinate < 0 or >= its dimension) is loaded as zero, or as a NaN with the
  NaN-request fill, and is not written by a store or reduction;
* a swizzle of W 16-byte units (32 B: 2, 64 B: 4, 128 B: 8) moves byte address ``a`` of
  shared memory to ``a ^ (((a >> 7) & (W - 1)) << 4)`` (16-byte chunk index XOR the row
  index within a repeating block of 8 rows of W x 16 bytes; the box is 1024-aligned).

Load cases copy the whole shared box (rounded up to 128 bytes, zeroed first) to ``out``;
store and reduce cases fill the shared box from an input buffer and check the tensor.

Usage: python3 tools/tma_ref.py   (writes tests/run/tma/, from the repository root)
"""

from __future__ import annotations

import math
import os
import struct

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "run", "tma")

# element type -> (ptxvm tmap DTYPE, harness DTYPE of the raw words, bytes)
TYPES = {
    "u8": ("u8", "u8", 1),
    "u16": ("u16", "u16", 2),
    "u32": ("u32", "u32", 4),
    "u64": ("u64", "u64", 8),
    "f32": ("f32", "f32", 4),
    "s32": ("s32", "i32", 4),
}
SW = {"none": 1, "32": 2, "64": 4, "128": 8, "128_atom32": "a32"}


def swz(a: int, w) -> int:
    """The swizzled shared address. "a32": CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B ("Swizzle 32B
    chunks within 128B span", cuda.h), with CUTLASS's pattern for it, Swizzle<2,5,2>: the
    32-byte chunk index (bits 5-6) XOR the row index within 4 rows of 128 bytes (bits 7-8)
    (cute/atom/copy_traits_sm90_tma_swizzle.hpp maps Swizzle<2,5,2> to this mode)."""
    if w == "a32":
        return a ^ (((a >> 7) & 3) << 5)
    return a ^ (((a >> 7) & (w - 1)) << 4) if w > 1 else a


def extents(box, est):
    return [box[0]] + [math.ceil(b / e) for b, e in zip(box[1:], est[1:])]


def box_elems(dims, strides_b, es, box, est, coords):
    """Yields (dense index, global element index or None) in shared order."""
    ext = extents(box, est)
    rank = len(dims)
    steps = [1] + est[1:]
    elem_strides = [1] + [s // es for s in strides_b]
    n = math.prod(ext)
    for lin in range(n):
        k, r = [], lin
        for i in range(rank):
            k.append(r % ext[i])
            r //= ext[i]
        g = [coords[i] + k[i] * steps[i] for i in range(rank)]
        if all(0 <= g[i] < dims[i] for i in range(rank)):
            yield lin, sum(g[i] * elem_strides[i] for i in range(rank))
        else:
            yield lin, None


def tensor_len(dims, strides_b, es):
    if len(dims) == 1:
        return dims[0]
    return strides_b[-1] // es * dims[-1]


def tmap_arg(c):
    dt = TYPES[c["ty"]][0]
    strides = ",".join(map(str, c["strides"])) or "-"
    s = f"tmap:0:{dt}:{','.join(map(str, c['dims']))}:{strides}:{','.join(map(str, c['box']))}"
    if any(e != 1 for e in c["est"]):
        s += ":estrides=" + ",".join(map(str, c["est"]))
    if c.get("swizzle", "none") != "none":
        s += f":swizzle={c['swizzle']}"
    if c.get("fill"):
        s += f":fill={c['fill']}"
    if c.get("interleave"):
        s += f":interleave={c['interleave']}"
    return s


HEADER = """.version 8.0
.target sm_90a
.address_size 64
"""


def coords_ptx(coords):
    return "{" + ", ".join(str(x) for x in coords) + "}"


def load_kernel(c, nbytes, shared_bytes):
    rank = len(c["dims"])
    tm = "[tmap" if c.get("direct") else "[%rd3"
    getmap = "" if c.get("direct") else "\tmov.u64 %rd9, tmap;\n\tcvta.param.u64 %rd3, %rd9;\n"
    coords = coords_ptx(c['coords'])
    if c.get("hint"):
        inst = ("\tcreatepolicy.fractional.L2::evict_last.b64 %rd10, 1.0;\n"
                f"\tcp.async.bulk.tensor.{rank}d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
                f" [box], {tm}, {coords}], [bar], %rd10;")
    else:
        inst = (f"\tcp.async.bulk.tensor.{rank}d.shared::cluster.global.mbarrier::complete_tx::bytes"
                f" [box], {tm}, {coords}], [bar];")
    return HEADER + f"""
.visible .entry k(.param .u64 src, .param .u64 out, .param .align 64 .b8 tmap[128])
{{
\t.shared .align 1024 .b8 box[{shared_bytes}];
\t.shared .align 8 .b64 bar;
\t.reg .pred %p<4>;
\t.reg .b32 %r<16>;
\t.reg .b64 %rd<16>;
\tld.param.u64 %rd2, [out];
{getmap}\tmov.u32 %r1, box;
\tmov.u32 %r2, 0;
\tmov.u32 %r3, {c.get("prefill", 0)};
ZERO:
\tadd.u32 %r4, %r1, %r2;
\tst.shared.u32 [%r4], %r3;
\tadd.u32 %r2, %r2, 4;
\tsetp.lt.u32 %p1, %r2, {shared_bytes};
\t@%p1 bra ZERO;
\tfence.proxy.async.shared::cta;
\tmbarrier.init.shared::cta.b64 [bar], 1;
\tmbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], {nbytes};
{inst}
WAIT:
\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
\t@!%p2 bra WAIT;
\tmov.u32 %r2, 0;
COPY:
\tadd.u32 %r4, %r1, %r2;
\tld.shared.u32 %r5, [%r4];
\tcvt.u64.u32 %rd4, %r2;
\tadd.s64 %rd5, %rd2, %rd4;
\tst.global.u32 [%rd5], %r5;
\tadd.u32 %r2, %r2, 4;
\tsetp.lt.u32 %p1, %r2, {shared_bytes};
\t@%p1 bra COPY;
\tret;
}}
"""


def store_kernel(c, shared_bytes, op):
    rank = len(c["dims"])
    if op == "store":
        inst = f"cp.async.bulk.tensor.{rank}d.global.shared::cta.bulk_group"
    else:
        inst = f"cp.reduce.async.bulk.tensor.{rank}d.global.shared::cta.{op}.tile.bulk_group"
    return HEADER + f"""
.visible .entry k(.param .u64 dst, .param .u64 in, .param .align 64 .b8 tmap[128])
{{
\t.shared .align 1024 .b8 box[{shared_bytes}];
\t.reg .pred %p<4>;
\t.reg .b32 %r<16>;
\t.reg .b64 %rd<16>;
\tld.param.u64 %rd2, [in];
\tmov.u64 %rd9, tmap;
\tcvta.param.u64 %rd3, %rd9;
\tmov.u32 %r1, box;
\tmov.u32 %r2, 0;
FILL:
\tcvt.u64.u32 %rd4, %r2;
\tadd.s64 %rd5, %rd2, %rd4;
\tld.global.u32 %r5, [%rd5];
\tadd.u32 %r4, %r1, %r2;
\tst.shared.u32 [%r4], %r5;
\tadd.u32 %r2, %r2, 4;
\tsetp.lt.u32 %p1, %r2, {shared_bytes};
\t@%p1 bra FILL;
\tfence.proxy.async.shared::cta;
\t{inst} [%rd3, {coords_ptx(c['coords'])}], [box];
\tcp.async.bulk.commit_group;
\tcp.async.bulk.wait_group 0;
\tret;
}}
"""


def fmt(vals):
    return "[" + ", ".join(vals) + "]"


def words_of(shared: bytearray, es: int):
    return [int.from_bytes(shared[i:i + es], "little") for i in range(0, len(shared), es)]


def gen_load(c):
    ty, hdt, es = TYPES[c["ty"]]
    dims, strides, box, est = c["dims"], c["strides"], c["box"], c["est"]
    w = SW[c.get("swizzle", "none")]
    n = tensor_len(dims, strides, es)
    nbytes = math.prod(extents(box, est)) * es
    shared_bytes = -(-nbytes // 128) * 128
    shared = bytearray(shared_bytes)
    is_f = c["ty"] == "f32"
    nan_slots = set()
    for lin, g in box_elems(dims, strides, es, box, est, c["coords"]):
        off = swz(lin * es, w)
        if g is None:
            if c.get("fill") == "nan":
                nan_slots.add(off // es)
                v = 0x7FC00000  # any NaN matches `nan` below
            else:
                v = 0
        else:
            v = struct.unpack("<I", struct.pack("<f", float(g)))[0] if is_f else g + 1
        shared[off:off + es] = (v % (1 << (8 * es))).to_bytes(es, "little")
    words = words_of(shared, es)
    if is_f:
        exp = []
        for i, v in enumerate(words):
            exp.append("nan" if i in nan_slots else repr(struct.unpack("<f", struct.pack("<I", v))[0]))
        inp = f"f32[{n}] = i"
    else:
        exp = [str(v) for v in words]
        inp = f"{hdt}[{n}] = i + 1" if es > 1 else f"{hdt}[{n}] = (i + 1) & 255"
    # u8 tensors: the element values wrap at 256
    if es == 1:
        exp = [str(int(v)) for v in words]
    head = [f"// {l}" for l in c["doc"]]
    head += [
        f"// The box ({box}, element strides {est}, swizzle {c.get('swizzle', 'none')}) at {c['coords']} of a",
        f"// {dims} tensor (byte strides {strides}) of .{ty} holding its element index"
        + (" (as f32)" if is_f else " + 1") + "; out = the shared box as stored.",
        "// Expected values: tools/tma_ref.py (a Python model of the box, OOB fill and swizzle).",
        "// run: --grid 1 --block 1 --arch sm_90",
        f"// arg: {inp}",
        f"// arg: zeros:{hdt if hdt != 'i32' else 'i32'}:{shared_bytes // es}",
        f"// arg: {tmap_arg(c)}",
        f"// expect arg1: {fmt(exp)}",
    ]
    return "\n".join(head) + "\n" + load_kernel(c, nbytes, shared_bytes)


def gen_store(c, op):
    ty, hdt, es = TYPES[c["ty"]]
    assert es == 4
    dims, strides, box, est = c["dims"], c["strides"], c["box"], c["est"]
    w = SW[c.get("swizzle", "none")]
    n = tensor_len(dims, strides, es)
    nbytes = math.prod(extents(box, est)) * es
    shared_bytes = -(-nbytes // 128) * 128
    # the shared image: word j = 1000 + j (as stored, swizzled positions included)
    image = [1000 + j for j in range(shared_bytes // 4)]
    tensor = [0xDEAD0000 + i for i in range(n)] if op == "store" else [i for i in range(n)]
    for lin, g in box_elems(dims, strides, es, box, est, c["coords"]):
        if g is None:
            continue
        v = image[swz(lin * es, w) // 4]
        if op == "store":
            tensor[g] = v
        elif op == "add":
            tensor[g] = (tensor[g] + v) & 0xFFFFFFFF
        elif op == "max":
            tensor[g] = max(tensor[g], v)
        elif op == "xor":
            tensor[g] ^= v
        elif op == "inc":  # inc(r, s) = r >= s ? 0 : r + 1 (PTX ISA, atom)
            tensor[g] = 0 if tensor[g] >= v else tensor[g] + 1
    head = [f"// {l}" for l in c["doc"]]
    init = "0xdead0000 + i" if op == "store" else "i"
    head += [
        f"// The box ({box}, element strides {est}, swizzle {c.get('swizzle', 'none')}) at {c['coords']} of a",
        f"// {dims} tensor (byte strides {strides}) of .{ty} = [{init}]; the shared box holds 1000 + its",
        f"// word index; {'a tensor store' if op == 'store' else 'a reduction .' + op} writes only the elements inside the tensor.",
        "// Expected values: tools/tma_ref.py (a Python model of the box, OOB skip and swizzle).",
        "// run: --grid 1 --block 1 --arch sm_90",
        f"// arg: {hdt}[{n}] = {init}",
        f"// arg: u32[{shared_bytes // 4}] = 1000 + i",
        f"// arg: {tmap_arg(c)}",
        f"// expect arg0: {fmt([str(v) for v in tensor])}",
    ]
    return "\n".join(head) + "\n" + store_kernel(c, shared_bytes, op)


LOADS = {
    "load_1d": dict(ty="u32", dims=[40], strides=[], box=[16], est=[1], coords=[8],
                    doc=["cp.async.bulk.tensor.1d tile load (PTX 8.0, sm_90)."]),
    "load_1d_oob": dict(ty="u32", dims=[20], strides=[], box=[16], est=[1], coords=[12],
                        doc=["1D load whose box ends past the tensor: elements 20.. are filled with zero."]),
    "load_2d": dict(ty="u32", dims=[12, 6], strides=[64], box=[8, 4], est=[1, 1], coords=[4, 1],
                    doc=["2D tile load; rows of the tensor are 64 bytes apart (12 elements + padding)."]),
    "load_2d_hint": dict(ty="u32", dims=[12, 6], strides=[64], box=[8, 4], est=[1, 1], coords=[4, 1], hint=True,
                         doc=["load_2d with .L2::cache_hint and a createpolicy cache policy (a hint: same result)."]),
    "load_2d_neg": dict(ty="u32", dims=[12, 6], strides=[48], box=[8, 4], est=[1, 1], coords=[-3, -2],
                        doc=["2D load at negative coordinates: elements left of / above the tensor are zero."]),
    "load_3d": dict(ty="u16", dims=[16, 5, 3], strides=[32, 160], box=[8, 3, 2], est=[1, 1, 1], coords=[8, 3, 2],
                    doc=["3D load of .u16 elements; the box hangs past dimensions 1 and 2."]),
    "load_4d": dict(ty="u32", dims=[4, 3, 2, 3], strides=[16, 48, 96], box=[4, 2, 2, 2], est=[1, 1, 1, 1],
                    coords=[0, 1, 0, 1], doc=["4D tile load."]),
    "load_5d": dict(ty="u8", dims=[16, 2, 2, 2, 3], strides=[16, 32, 64, 128], box=[16, 2, 1, 2, 2],
                    est=[1, 1, 1, 1, 1], coords=[0, 0, 1, 1, 2], doc=["5D tile load of .u8 elements."]),
    "load_estride": dict(ty="u32", dims=[8, 10], strides=[32], box=[4, 6], est=[3, 2], coords=[0, 1],
                         doc=["Element strides: dimension 1 traversed with stride 2 (ceil(6 / 2) = 3 rows);",
                              "elementStrides[0] is ignored without interleave (TMA loads dimension 0 densely)."]),
    "load_swz32": dict(ty="u32", dims=[8, 16], strides=[32], box=[8, 16], est=[1, 1], coords=[0, 0], swizzle="32",
                       doc=["32-byte swizzle: 16-byte chunk bit 4 ^= address bit 7."]),
    "load_swz64": dict(ty="u32", dims=[16, 16], strides=[64], box=[16, 16], est=[1, 1], coords=[0, 0], swizzle="64",
                       doc=["64-byte swizzle: address bits 4-5 ^= bits 7-8."]),
    "load_swz128": dict(ty="u32", dims=[32, 16], strides=[128], box=[32, 16], est=[1, 1], coords=[0, 0], swizzle="128",
                        doc=["128-byte swizzle: address bits 4-6 ^= bits 7-9 (8 rows of 128 bytes)."]),
    "load_swz128_oob": dict(ty="u16", dims=[40, 9], strides=[96], box=[64, 12], est=[1, 1], coords=[8, 2],
                            swizzle="128", doc=["128-byte swizzle with out-of-bounds zero fill in both dimensions."]),
    "load_interleave16": dict(ty="u16", dims=[8, 5, 3], strides=[16, 80], box=[8, 4, 2], est=[1, 1, 1], coords=[0, 2, 1],
                              interleave="16",
                              doc=["16-byte interleave (rank 3, 8 .u16 channels = 16 bytes per pixel): the box is traversed",
                                   "and stored as without interleave; rows 2..5 of the 5 hang past the edge."]),
    "load_swz128_atom32": dict(ty="u32", dims=[32, 12], strides=[128], box=[32, 12], est=[1, 1], coords=[0, -2],
                               swizzle="128_atom32",
                               doc=["CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B: 32-byte chunks (address bits 5-6) ^= bits 7-8;",
                                    "rows -2, -1 out of bounds."]),
    "load_fill_nan": dict(ty="f32", dims=[6, 3], strides=[32], box=[8, 4], est=[1, 1], coords=[2, 1], fill="nan",
                          doc=["OOB_FILL_NAN_REQUEST_ZERO_FMA: out-of-bounds f32 elements are loaded as NaN."]),
}

STORES = {
    "store_2d": (dict(ty="u32", dims=[10, 5], strides=[48], box=[4, 4], est=[1, 1], coords=[8, 3],
                      doc=["cp.async.bulk.tensor.2d shared to global (.bulk_group): out-of-bounds elements skipped."]),
                 "store"),
    "store_3d_swz64": (dict(ty="u32", dims=[16, 3, 2], strides=[64, 192], box=[16, 4, 1], est=[1, 1, 1],
                            coords=[0, 0, 1], swizzle="64",
                            doc=["3D tensor store from a 64-byte swizzled shared box."]), "store"),
    "store_2d_swz128": (dict(ty="u32", dims=[40, 5], strides=[160], box=[32, 8], est=[1, 1], coords=[16, 0],
                             swizzle="128",
                             doc=["Tensor store from a 128-byte swizzled shared box: columns 40.. and rows 5.. are skipped."]),
                        "store"),
    "store_2d_swz128_atom32": (dict(ty="u32", dims=[40, 5], strides=[160], box=[32, 8], est=[1, 1], coords=[8, -1],
                                    swizzle="128_atom32",
                                    doc=["Tensor store from a shared box swizzled with 128B_ATOM_32B (32-byte chunks);",
                                         "columns 40.., row -1 and rows 5.. are skipped."]),
                               "store"),
    "reduce_add": (dict(ty="u32", dims=[8, 4], strides=[32], box=[4, 4], est=[1, 1], coords=[6, -1],
                        doc=["cp.reduce.async.bulk.tensor.2d .add.u32 (tile): each in-bounds element += shared."]),
                   "add"),
    "reduce_max_s32": (dict(ty="s32", dims=[8, 2], strides=[32], box=[8, 2], est=[1, 1], coords=[0, 0],
                            doc=["cp.reduce.async.bulk.tensor .max on an .s32 map."]), "max"),
    "reduce_inc": (dict(ty="u32", dims=[8, 3], strides=[32], box=[8, 4], est=[1, 1], coords=[0, 0],
                        doc=["cp.reduce.async.bulk.tensor .inc (.u32): inc(r, s) = r >= s ? 0 : r + 1; row 3 is outside."]),
                   "inc"),
    "reduce_xor": (dict(ty="u32", dims=[4, 4], strides=[16], box=[4, 2], est=[1, 1], coords=[0, 3],
                        doc=["cp.reduce.async.bulk.tensor .xor (as .b32)."]), "xor"),
}



# im2col loads (rank 4, NHWC: dims innermost first C, W, H, N). Each tensor element holds
# pixel + 1 + channel / 64 (pixel = the row-major index of (n, h, w)), so an output row names
# the pixel it came from and every channel is checked. The pixel order of the first four
# cases is the one NVIDIA's hardware produced in Triton's Gluon tutorial 13-tma-im2col.py
# (examples 2-5, asserted on Hopper there); the stride case follows the window/stride rule that
# tutorial's convolution relies on (element_strides = [1, stride, stride, 1], window
# (out - 1) * stride + 1 pixels from the lower corner).
IM2COL = {
    "im2col_padded": dict(n=1, w=4, h=4, lower=[-1, -1], upper=[-1, -1], start=(-1, -1, 0), off=(0, 0), est=(1, 1),
                          pixels=[0, 0, 0, 0, 0, 1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11],
                          doc="lower/upper corners (-1, -1): the window H, W in [-1, 3); pixels outside the tensor are zero."),
    "im2col_offsets": dict(n=1, w=4, h=4, lower=[-1, -1], upper=[-1, -1], start=(-1, -1, 0), off=(1, 1), est=(1, 1),
                           pixels=list(range(1, 17)),
                           doc="the same map with im2col offsets (1, 1): start and window shift to [0, 4), the whole image."),
    "im2col_batches": dict(n=2, w=4, h=4, lower=[0, 0], upper=[0, 0], start=(3, 1, 0), off=(0, 0), est=(1, 1),
                           pixels=list(range(8, 24)),
                           doc="starting at (n, h, w) = (0, 1, 3): the traversal wraps W, then H, then into image 1."),
    "im2col_batches_padded": dict(n=2, w=4, h=4, lower=[-1, -1], upper=[-1, -1], start=(2, 1, 0), off=(0, 0), est=(1, 1),
                                  pixels=[7, 0, 9, 10, 11, 0, 0, 0, 0, 0, 17, 18, 19, 0, 21, 22],
                                  doc="window [-1, 3) per image, starting at (0, 1, 2): each image restarts at the window's corner."),
    "im2col_stride": dict(n=1, w=5, h=3, lower=[0, 0], upper=[0, 0], start=(0, 0, 0), off=(0, 0), est=(2, 2), npix=8,
                          pixels=[1, 3, 5, 11, 13, 15, 0, 0],
                          doc="element strides 2 in W and H (a stride-2 convolution): W 0, 2, 4 then H + 2; past H the\n"
                              "batch steps to image 1, outside the tensor (zero)."),
    # The .multicast::cluster load form in a cluster of 2 CTAs: rank 0 prefetches the box (no
    # memory effect) and loads it into both CTAs (mask 0b11), each completing its own mbarrier;
    # each CTA stores its copy at out[rank * box ..].
    "im2col_multicast_prefetch": dict(n=1, w=4, h=4, lower=[-1, -1], upper=[-1, -1], start=(-1, -1, 0), off=(1, 1),
                                      est=(1, 1), pixels=list(range(1, 17)), multicast=True,
                                      doc="im2col_offsets' map, box and offsets, loaded by rank 0 of a 2-CTA cluster with "
                                          ".multicast::cluster (mask 0b11) after cp.async.bulk.prefetch.tensor.4d.L2.global.im2col of the same box;\n"
                                          "both CTAs receive the box (out holds rank 0's copy, then rank 1's)."),
}


def gen_im2col(name, c):
    C, ch0, cpp = 32, 8, 8
    n, w, h = c["n"], c["w"], c["h"]
    npix = c.get("npix", 16)
    total = n * h * w * C
    vals = []
    for p in c["pixels"]:
        for j in range(cpp):
            vals.append(repr(float(p + (ch0 + j) / 64)) if p else "0")
    sw, sh, sn = c["start"]
    ow, oh = c["off"]
    ew, eh = c["est"]
    shared_bytes = npix * cpp * 4
    doc = [f"cp.async.bulk.tensor.4d .im2col: {c['doc']}",
           f"Tensor NHWC {n}x{h}x{w}x{C} f32, element = pixel + 1 + channel / 64; {npix} pixels x {cpp} channels",
           f"from channel {ch0}; lower {c['lower']}, upper {c['upper']} ({{H, W}}), start (w, h, n) = {c['start']},",
           f"offsets (w, h) = {c['off']}, element strides (w, h) = {c['est']}. Expected pixels: {c['pixels']} (0 = fill).",
           "Generated by tools/tma_ref.py."]
    head = "\n".join("// " + l for l in "\n".join(doc).split("\n")) + "\n"
    ctas = 2 if c.get("multicast") else 1
    head += ("// run: --grid 2 --block 1 --cluster 2 --arch sm_90\n" if ctas == 2
             else "// run: --grid 1 --block 1 --arch sm_90\n")
    head += f"// arg: f32[{total}] = (i / {C}) + 1 + (i % {C}) / 64.0\n"
    head += f"// arg: zeros:f32:{ctas * shared_bytes // 4}\n"
    est = f":estrides=1,{ew},{eh},1" if (ew, eh) != (1, 1) else ""
    head += (f"// arg: tmap:0:f32:{C},{w},{h},{n}:{C * 4},{C * 4 * w},{C * 4 * w * h}:{cpp}"
             f":pixels={npix}:lower={','.join(map(str, c['lower']))}:upper={','.join(map(str, c['upper']))}{est}\n")
    head += "// expect arg1: [" + ", ".join(vals * ctas) + "]\n"
    at = f"[%rd3, {{{ch0}, {sw}, {sh}, {sn}}}]"
    if c.get("multicast"):
        # Every CTA's mbarrier is initialised and expects its bytes before rank 0 copies; out
        # moves to this CTA's part.
        load = ("\tmov.u32 %r10, %cluster_ctarank;\n"
                f"\tmul.wide.u32 %rd6, %r10, {shared_bytes};\n"
                "\tadd.s64 %rd2, %rd2, %rd6;\n"
                "\tbarrier.cluster.arrive;\n"
                "\tbarrier.cluster.wait;\n"
                "\tsetp.ne.u32 %p3, %r10, 0;\n"
                "\t@%p3 bra WAIT;\n"
                f"\tcp.async.bulk.prefetch.tensor.4d.L2.global.im2col {at}, {{%rs1, %rs2}};\n"
                "\tmov.b16 %rs3, 3;\n"
                "\tcp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster"
                f" [box], {at}, [bar], {{%rs1, %rs2}}, %rs3;")
    else:
        load = (f"\tcp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
                f" [box], {at}, [bar], {{%rs1, %rs2}};")
    end = "\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n" if ctas == 2 else ""
    body = HEADER + f"""
.visible .entry k(.param .u64 src, .param .u64 out, .param .align 64 .b8 tmap[128])
{{
\t.shared .align 1024 .b8 box[{shared_bytes}];
\t.shared .align 8 .b64 bar;
\t.reg .pred %p<4>;
\t.reg .b16 %rs<4>;
\t.reg .b32 %r<16>;
\t.reg .b64 %rd<16>;
\tld.param.u64 %rd2, [out];
\tmov.u64 %rd9, tmap;
\tcvta.param.u64 %rd3, %rd9;
\tmov.b16 %rs1, {ow};
\tmov.b16 %rs2, {oh};
\tmbarrier.init.shared::cta.b64 [bar], 1;
\tmbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], {shared_bytes};
{load}
WAIT:
\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
\t@!%p2 bra WAIT;
\tmov.u32 %r1, box;
\tmov.u32 %r2, 0;
COPY:
\tadd.u32 %r4, %r1, %r2;
\tld.shared.u32 %r5, [%r4];
\tcvt.u64.u32 %rd4, %r2;
\tadd.s64 %rd5, %rd2, %rd4;
\tst.global.u32 [%rd5], %r5;
\tadd.u32 %r2, %r2, 4;
\tsetp.lt.u32 %p1, %r2, {shared_bytes};
\t@%p1 bra COPY;
{end}\tret;
}}
"""
    return head + body


# Wide im2col loads (.im2col::w, .im2col::w::128; sm_100a), modelled from the PTX ISA's
# "im2col::w and im2col::w::128 modes" text: H and D stay at their coordinates; W is walked
# from coordinate W + wOffset with the W traversal stride inside the window
# [lowerW + wOffset, dims[W] + upperW + wOffset); past the window's end W restarts at the
# window's start and the batch N steps (the im2col rule with H and D fixed). `.im2col::w` reads
# the map's pixels per column and then wHalo more pixels of the same walk, stored right after
# them; `.im2col::w::128` reads 128 pixels (wHalo 0 only: where its halos go is a figure).
# A wide map needs a swizzle: the shared image is swizzled (swz above). Each tensor element
# holds pixel + 1 + channel / 64 (pixel = the row-major index of (n, [h,] w)).
WIDE = {
    "im2col_w_halo": dict(rank=4, n=3, h=3, w=5, lower=0, upper=0, start=(2, 1, 0), est=1, npix=8, halo=2,
                          woff=0, mode="w", prefetch=True,
                          doc="8 pixels from (n, h, w) = (0, 1, 2) along W (H fixed at 1): W 2..4, then image 1's\n"
                              "W 0..4; the 2 halo pixels continue the walk (image 2, W 0, 1). Preceded by the\n"
                              "cp.async.bulk.prefetch.tensor form of the same box."),
    "im2col_w_pad_stride": dict(rank=4, n=2, h=2, w=5, lower=-1, upper=0, start=(-1, 1, 0), est=2, npix=6, halo=1,
                                woff=0, mode="w",
                                doc="window [-1, 5) (one padding column left), W traversal stride 2 from W = -1:\n"
                                    "W -1 (zero), 1, 3, then image 1 restarts at -1; plus 1 halo pixel."),
    "im2col_w_offset": dict(rank=4, n=2, h=2, w=5, lower=-1, upper=0, start=(-1, 1, 0), est=2, npix=6, halo=0,
                            woff=1, mode="w",
                            doc="the same map and coordinates with wOffset 1 (the second buffer of a stride-2\n"
                                "convolution): window [0, 6), W 0, 2, 4, then image 1 from 0."),
    "im2col_w128": dict(rank=3, n=4, h=None, w=40, lower=0, upper=-2, start=(10, None, 0), est=1, npix=128, halo=0,
                        woff=3, mode="w128",
                        doc="rank 3 (NWC): 128 pixels whatever the map's pixels per column, wOffset 3: window\n"
                            "[3, 41) with W from 13; the walk wraps into images 1..3 and past image 3 (zero)."),
}


def wide_pixels(c):
    """The walk: a list of (n, h, w) per shared-memory pixel (h None at rank 3)."""
    w0, h0, n0 = c["start"]
    lo = c["lower"] + c["woff"]
    hi = c["w"] + c["upper"] + c["woff"]
    w, n = w0 + c["woff"], n0
    out = []
    for _ in range(c["npix"] + c["halo"]):
        out.append((n, h0, w))
        w += c["est"]
        if w >= hi:
            w, n = lo, n + 1
    return out


def gen_im2col_wide(name, c):
    C, ch0, cpp, es = 32, 8, 8, 4
    rank, n, h, w = c["rank"], c["n"], c["h"], c["w"]
    hh = h or 1
    npix = c["npix"] + c["halo"]
    shared_bytes = npix * cpp * es
    alloc = -(-shared_bytes // 1024) * 1024
    image = bytearray(alloc)
    pixels = []
    for i, (pn, ph, pw) in enumerate(wide_pixels(c)):
        inside = 0 <= pn < n and 0 <= pw < w
        p = (pn * hh + (ph or 0)) * w + pw + 1 if inside else 0
        pixels.append(p)
        for j in range(cpp):
            v = p + (ch0 + j) / 64 if p else 0.0
            off = (i * cpp + j) * es
            a = swz(off, SW["64"])
            image[a:a + es] = struct.pack("<f", v)
    vals = [struct.unpack_from("<f", image, k)[0] for k in range(0, shared_bytes, 4)]
    total = n * hh * w * C
    sw, sh, sn = c["start"]
    mode = ".im2col::w" if c["mode"] == "w" else ".im2col::w::128"
    if rank == 4:
        dims, strides = f"{C},{w},{h},{n}", f"{C * 4},{C * 4 * w},{C * 4 * w * h}"
        coords = f"{{{ch0}, {sw}, {sh}, {sn}}}"
        est = f"1,{c['est']},1,1"
        shape = f"NHWC {n}x{h}x{w}x{C}"
    else:
        dims, strides = f"{C},{w},{n}", f"{C * 4},{C * 4 * w}"
        coords = f"{{{ch0}, {sw}, {sn}}}"
        est = f"1,{c['est']},1"
        shape = f"NWC {n}x{w}x{C}"
    doc = [f"cp.async.bulk.tensor.{rank}d {mode}: {c['doc']}",
           f"Tensor {shape} f32, element = pixel + 1 + channel / 64; {c['npix']} pixels + wHalo {c['halo']} x {cpp} channels",
           f"from channel {ch0}; W corners lower {c['lower']}, upper {c['upper']}, W traversal stride {c['est']},",
           f"start (w, h, n) = {c['start']}, wOffset {c['woff']}; 64-byte swizzle. Expected pixels: {pixels} (0 = fill).",
           "Generated by tools/tma_ref.py."]
    head = "\n".join("// " + l for l in "\n".join(doc).split("\n")) + "\n"
    head += "// run: --grid 1 --block 1 --arch sm_100a\n"
    head += f"// arg: f32[{total}] = (i / {C}) + 1 + (i % {C}) / 64.0\n"
    head += f"// arg: zeros:f32:{shared_bytes // 4}\n"
    pix = f":pixels={c['npix']}" if c["mode"] == "w" else ""
    head += (f"// arg: tmap:0:f32:{dims}:{strides}:{cpp}:wide={c['mode']}{pix}:lower={c['lower']}:upper={c['upper']}"
             f":estrides={est}:swizzle=64\n")
    head += "// expect arg1: [" + ", ".join(repr(v) if v else "0" for v in vals) + "]\n"
    at = f"[%rd3, {coords}]"
    load = ""
    if c.get("prefetch"):
        load += f"\tcp.async.bulk.prefetch.tensor.{rank}d.L2.global{mode} {at}, {{%rs1, %rs2}};\n"
    load += (f"\tcp.async.bulk.tensor.{rank}d.shared::cta.global{mode}.mbarrier::complete_tx::bytes"
             f" [box], {at}, [bar], {{%rs1, %rs2}};")
    body = HEADER_SM100 + f"""
.visible .entry k(.param .u64 src, .param .u64 out, .param .align 64 .b8 tmap[128])
{{
\t.shared .align 1024 .b8 box[{alloc}];
\t.shared .align 8 .b64 bar;
\t.reg .pred %p<4>;
\t.reg .b16 %rs<4>;
\t.reg .b32 %r<16>;
\t.reg .b64 %rd<16>;
\tld.param.u64 %rd2, [out];
\tmov.u64 %rd9, tmap;
\tcvta.param.u64 %rd3, %rd9;
\tmov.b16 %rs1, {c['halo']};
\tmov.b16 %rs2, {c['woff']};
\tmbarrier.init.shared::cta.b64 [bar], 1;
\tmbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], {shared_bytes};
{load}
WAIT:
\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
\t@!%p2 bra WAIT;
\tmov.u32 %r1, box;
\tmov.u32 %r2, 0;
COPY:
\tadd.u32 %r4, %r1, %r2;
\tld.shared.u32 %r5, [%r4];
\tcvt.u64.u32 %rd4, %r2;
\tadd.s64 %rd5, %rd2, %rd4;
\tst.global.u32 [%rd5], %r5;
\tadd.u32 %r2, %r2, 4;
\tsetp.lt.u32 %p1, %r2, {shared_bytes};
\t@%p1 bra COPY;
\tret;
}}
"""
    return head + body


HEADER_SM100 = """.version 8.6
.target sm_100a
.address_size 64
"""


# The packed sub-byte types (CUtensorMapDataType 13-15, cuda.h on cuTensorMapEncodeTiled):
# name -> (elements a unit, its bytes in global memory, its bytes in shared memory).
#   16U4_ALIGN8B  (b4x16):     "16 x U4 packed values ... There are no gaps between packed values"
#   16U4_ALIGN16B (b4x16_p64): "aligned as 16 bytes. There are 8 byte gaps between every 8 byte
#                               chunk of packed values"
#   16U6_ALIGN16B (b6x16_p32): "There are 4 byte gaps between every 12 byte chunk"
# Dimensions count the 4/6-bit values ("Dimension for the packed data types must reflect the
# number of individual U# values"); a global row is packed (dims[0] x 4 or 6 bits). A load
# moves each unit's packed bytes to the start of its shared slot and leaves the gap as it was
# (the kernel prefills shared memory with 0xa5 bytes to show it); an out-of-bounds unit's
# bytes are zero; the transaction count is the packed bytes (CUTLASS's TmaTransactionBytes
# for fp4/fp6 operands: elements x 4 or 6 bits). A store writes each in-bounds unit's packed
# bytes from the start of its shared slot. Swizzles act on shared addresses as for any type.
PACKED = {"b4x16": (2, 1, 1), "b4x16_p64": (16, 8, 16), "b6x16_p32": (16, 12, 16)}


def packed_units(c):
    """Yields (unit's dense index, global byte offset or None) in shared order."""
    ue, gb, _ = PACKED[c["ty"]]
    dims, strides, box, coords = c["dims"], c["strides"], c["box"], c["coords"]
    ext = [box[0] // ue] + box[1:]
    rank = len(dims)
    for lin in range(math.prod(ext)):
        k, r = [], lin
        for i in range(rank):
            k.append(r % ext[i])
            r //= ext[i]
        g = [coords[0] + k[0] * ue] + [coords[i] + k[i] for i in range(1, rank)]
        if all(0 <= g[i] < dims[i] for i in range(rank)):
            yield lin, g[0] // ue * gb + sum(g[i] * strides[i - 1] for i in range(1, rank))
        else:
            yield lin, None


def packed_tmap(c):
    strides = ",".join(map(str, c["strides"])) or "-"
    s = f"tmap:0:{c['ty']}:{','.join(map(str, c['dims']))}:{strides}:{','.join(map(str, c['box']))}"
    if c.get("swizzle", "none") != "none":
        s += f":swizzle={c['swizzle']}"
    return s


def global_bytes(c):
    ue, gb, _ = PACKED[c["ty"]]
    row = c["dims"][0] // ue * gb
    return row if len(c["dims"]) == 1 else c["strides"][-1] * c["dims"][-1]


def gen_packed_load(c):
    ue, gb, sb = PACKED[c["ty"]]
    w = SW[c.get("swizzle", "none")]
    n = global_bytes(c)
    units = math.prod([c["box"][0] // ue] + c["box"][1:])
    nbytes = units * gb
    shared_bytes = -(-(units * sb) // 128) * 128
    src = [(i * 37 + 11) & 255 for i in range(n)]
    shared = bytearray([0xA5] * shared_bytes)
    for lin, g in packed_units(c):
        for j in range(gb):
            a = swz(lin * sb + j, w)
            shared[a] = 0 if g is None else src[g + j]
    c = dict(c, prefill=0xA5A5A5A5)
    head = [f"// {l}" for l in c["doc"]]
    head += [
        f"// The box {c['box']} (swizzle {c.get('swizzle', 'none')}) at {c['coords']} of a {c['dims']} tensor of",
        f"// packed .{c['ty']} values (byte strides {c['strides']}; global byte i = (37 i + 11) & 255), loaded into",
        "// a shared box prefilled with 0xa5 bytes; out = the shared box as stored. Expected values:",
        "// tools/tma_ref.py (PACKED: each unit's packed bytes at the start of its shared slot, the",
        f"// gap untouched, out-of-bounds units zero; transaction bytes = packed bytes = {nbytes}).",
        "// run: --grid 1 --block 1 --arch sm_100a",
        f"// arg: u8[{n}] = (i * 37 + 11) & 255",
        f"// arg: zeros:u8:{shared_bytes}",
        f"// arg: {packed_tmap(c)}",
        f"// expect arg1: {fmt([str(b) for b in shared])}",
    ]
    return "\n".join(head) + "\n" + load_kernel(c, nbytes, shared_bytes).replace(HEADER, HEADER_SM100)


def gen_packed_store(c):
    ue, gb, sb = PACKED[c["ty"]]
    w = SW[c.get("swizzle", "none")]
    n = global_bytes(c)
    units = math.prod([c["box"][0] // ue] + c["box"][1:])
    shared_bytes = -(-(units * sb) // 128) * 128
    image = b"".join((1000 + j).to_bytes(4, "little") for j in range(shared_bytes // 4))
    tensor = [(i * 5 + 1) & 255 for i in range(n)]
    for lin, g in packed_units(c):
        if g is None:
            continue
        for j in range(gb):
            tensor[g + j] = image[swz(lin * sb + j, w)]
    head = [f"// {l}" for l in c["doc"]]
    head += [
        f"// The box {c['box']} (swizzle {c.get('swizzle', 'none')}) at {c['coords']} of a {c['dims']} tensor of",
        f"// packed .{c['ty']} values (byte strides {c['strides']}; byte i = (5 i + 1) & 255) stored from a shared box",
        "// whose word j is 1000 + j: each in-bounds unit's packed bytes come from the start of its",
        "// shared slot (the gap is not stored). Expected values: tools/tma_ref.py (PACKED).",
        "// run: --grid 1 --block 1 --arch sm_100a",
        f"// arg: u8[{n}] = (i * 5 + 1) & 255",
        f"// arg: u32[{shared_bytes // 4}] = 1000 + i",
        f"// arg: {packed_tmap(c)}",
        f"// expect arg0: {fmt([str(b) for b in tensor])}",
    ]
    return "\n".join(head) + "\n" + store_kernel(c, shared_bytes, "store").replace(HEADER, HEADER_SM100)


PACKED_LOADS = {
    "packed_load_b4x16_p64": dict(
        ty="b4x16_p64", dims=[256, 4], strides=[128], box=[128, 4], coords=[128, 1],
        doc=["16U4_ALIGN16B tile load: 128 4-bit values a row, 8 packed bytes then an 8-byte gap",
             "per 16 values; rows 1..4 of 4 (row 4 out of bounds)."]),
    "packed_load_b6x16_p32_swz128": dict(
        ty="b6x16_p32", dims=[256, 6], strides=[192], box=[128, 8], coords=[128, 2], swizzle="128",
        doc=["16U6_ALIGN16B tile load with the 128-byte swizzle: 12 packed bytes then a 4-byte gap",
             "per 16 6-bit values; rows 2..9 of 6 (rows 6..9 out of bounds)."]),
    "packed_load_b6x16_p32_neg": dict(
        ty="b6x16_p32", dims=[128, 3, 2], strides=[96, 288], box=[128, 2, 2], coords=[-64, 2, 1],
        doc=["3D 16U6_ALIGN16B load at a negative coordinate: the first 4 units of each row out of",
             "bounds (zero), row 3 of 3 too."]),
    "packed_load_b6x16_p32_atom32": dict(
        ty="b6x16_p32", dims=[256, 4], strides=[192], box=[128, 4], coords=[0, 0], swizzle="128_atom32",
        doc=["16U6_ALIGN16B load with CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B (one of its allowed swizzles)."]),
    "packed_load_b4x16_swz32": dict(
        ty="b4x16", dims=[96, 5], strides=[48], box=[64, 4], coords=[64, 2], swizzle="32",
        doc=["16U4_ALIGN8B tile load (no gaps: two 4-bit values a byte) with the 32-byte swizzle;",
             "values 96.. and row 5 out of bounds."]),
}

PACKED_STORES = {
    "packed_store_b6x16_p32": dict(
        ty="b6x16_p32", dims=[128, 3], strides=[96], box=[128, 4], coords=[0, 1],
        doc=["16U6_ALIGN16B tensor store: 12 bytes of each 16-byte shared slot per unit; rows 3, 4",
             "out of bounds (skipped)."]),
    "packed_store_b4x16_swz128": dict(
        ty="b4x16", dims=[512, 2], strides=[256], box=[256, 2], coords=[256, 1], swizzle="128",
        doc=["16U4_ALIGN8B tensor store from a 128-byte swizzled shared box; row 2 out of bounds."]),
}


def sm100(c, text):
    """The 128B_ATOM_* swizzles are Blackwell's (CUDA 12.8): such cases target sm_100a."""
    if c.get("swizzle", "").startswith("128_atom"):
        return text.replace(HEADER, HEADER_SM100).replace("--arch sm_90\n", "--arch sm_100a\n")
    return text


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, c in LOADS.items():
        with open(os.path.join(OUT, name + ".ptx"), "w") as f:
            f.write(sm100(c, gen_load(c)))
    for name, c in IM2COL.items():
        with open(os.path.join(OUT, name + ".ptx"), "w") as f:
            f.write(gen_im2col(name, c))
    for name, c in WIDE.items():
        with open(os.path.join(OUT, name + ".ptx"), "w") as f:
            f.write(gen_im2col_wide(name, c))
    for name, (c, op) in STORES.items():
        with open(os.path.join(OUT, name + ".ptx"), "w") as f:
            f.write(sm100(c, gen_store(c, op)))
    for name, c in PACKED_LOADS.items():
        with open(os.path.join(OUT, name + ".ptx"), "w") as f:
            f.write(gen_packed_load(c))
    for name, c in PACKED_STORES.items():
        with open(os.path.join(OUT, name + ".ptx"), "w") as f:
            f.write(gen_packed_store(c))


if __name__ == "__main__":
    main()
