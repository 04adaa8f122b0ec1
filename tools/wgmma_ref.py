#!/usr/bin/env python3
"""Run tests for `wgmma.mma_async` (sm_90a), with expected outputs from an independent
reference: the arithmetic of tools/tc_ref.py (exact rationals, `hopper`/`wgmma` row of the
model), the register fragments from tc_ref.frag (the PTX ISA's mma.m16n8kK tables: each warp
of the warpgroup holds 16 rows), and the shared-memory layouts written here from the canonical
layouts of the PTX ISA / CUTLASS (`make_gmma_desc`: nested shapes and strides evaluated
generically, then the Swizzle<B,4,3> function of the byte address). Shares no code with
ptxvm's Rust.

Usage: tools/wgmma_ref.py   writes tests/run/warp/wgmma_*.ptx
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tc_ref  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8, "b1": 1}
KOF = {16: 16, 32: 8, 8: 32, 1: 256}
SW = {"none": (1, 0), "32": (2, 3), "64": (4, 2), "128": (8, 1)}  # W (16-byte units), mode bits


def evaluate(shape, stride, coord):
    """A layout ((s0, s1, ...), ...) with strides, at a coordinate given per top mode as an
    integer (split colexicographically over the sub-shape)."""
    off = 0
    for sh, st, c in zip(shape, stride, coord):
        for s, d in zip(sh, st):
            off += (c % s) * d
            c //= s
    return off


def swizzle(addr, w):
    b = {1: 0, 2: 1, 4: 2, 8: 3}[w]
    mask = ((1 << b) - 1) << 4
    return addr ^ ((addr >> 3) & mask)


def canonical(major, w, T, lbo, sbo):
    """(shape, stride) in bits for (MN, K) coordinates; T elements per 16 bytes."""
    eb = 128 // T
    if major == "K":
        if w == 1:
            return ((8, 1 << 20), (T, 2)), ((128, sbo * 8), (eb, lbo * 8))
        return ((8, 1 << 20), (T, 2)), ((128 * w, sbo * 8), (eb, 128))
    if w == 1:
        return ((T, 1 << 20), (8, 1 << 20)), ((eb, sbo * 8), (128, lbo * 8))
    return ((T, w, 1 << 20), (8, 1 << 20)), ((eb, 128, lbo * 8), (128 * w, sbo * 8))


def place(img, base, major, swz, T, lbo, sbo, mn, k, bits, val):
    w = SW[swz][0]
    shape, stride = canonical(major, w, T, lbo, sbo)
    bit = base * 8 + evaluate(shape, stride, (mn, k))
    byte = swizzle(bit // 8 & ~15, w) + (bit // 8 & 15)
    sub = bit % 8
    for j in range((bits + 7) // 8):
        img[byte + j] |= ((val >> (8 * j)) << sub) & 0xFF
    return byte + (bits + 7) // 8


def desc(addr_off, lbo, sbo, swz):
    """The descriptor bits besides the start address (added at run time)."""
    return ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (SW[swz][1] << 62)


# (name, d, a, b, n, A source: "regs" or (major, swizzle, start offset, lbo, sbo),
#  B: (major, swizzle, start offset, lbo, sbo), scale-d, imm-scale-a, imm-scale-b, satfinite)
CASES = [
    ("wgmma_f16_f32_desc_none", "f32", "f16", "f16", 16, ("K", "none", 0, 128, 256),
     ("K", "none", 0, 256, 128), 1, 1, 1, False),
    ("wgmma_f16_f16_regs_sw32", "f16", "f16", "f16", 16, "regs",
     ("K", "32", 0, 0, 256), 1, 1, 1, False),
    ("wgmma_bf16_f32_sw64_sw128", "f32", "bf16", "bf16", 16, ("K", "64", 32, 0, 512),
     ("K", "128", 64, 0, 1024), 1, 1, 1, False),
    ("wgmma_f16_f32_trans_sw128_sw64", "f32", "f16", "f16", 16, ("MN", "128", 0, 0, 1024),
     ("MN", "64", 0, 0, 512), 1, 1, 1, False),
    ("wgmma_bf16_f32_trans_none_sw32", "f32", "bf16", "bf16", 24, ("MN", "none", 0, 1024, 128),
     ("MN", "32", 0, 1024, 256), 1, 1, 1, False),
    ("wgmma_tf32_f32_regs_sw128_nega", "f32", "tf32", "tf32", 8, "regs",
     ("K", "128", 0, 0, 1024), 1, -1, 1, False),
    ("wgmma_e4m3_e5m2_f32_scaled0_negb", "f32", "e4m3", "e5m2", 8, ("K", "none", 0, 128, 256),
     ("K", "64", 0, 0, 512), 0, 1, -1, False),
    ("wgmma_e5m2_f16_regs", "f16", "e5m2", "e5m2", 16, "regs",
     ("K", "none", 0, 256, 128), 1, 1, 1, False),
    ("wgmma_s8_u8_satfinite_sw32", "s32", "s8", "u8", 8, ("K", "32", 0, 0, 256),
     ("K", "none", 0, 128, 256), 1, 1, 1, True),
    ("wgmma_u8_s8_wrap_regs", "s32", "u8", "s8", 16, "regs",
     ("K", "128", 0, 0, 1024), 1, 1, 1, False),
    ("wgmma_b1_and_sw128", "s32", "b1", "b1", 8, ("K", "128", 0, 0, 1024),
     ("K", "none", 0, 128, 256), 1, 1, 1, False),
]


def u32s(b):
    return [struct.unpack_from("<I", b, i)[0] for i in range(0, len(b), 4)]


def hexlist(v):
    return "[" + ", ".join(f"{x:#x}" for x in v) + "]"


def gen_case(case):
    name, d, at, bt, n, asrc, bsrc, scale_d, sa, sb, sat = case
    rng = tc_ref.SplitMix64(tc_ref.seed_of(name))
    bits = BITS[at]
    k = KOF[bits]
    T = 128 // bits
    center = rng.next()

    def rand(t):
        v = tc_ref.rand_elem(rng, t)
        return v if v is not None else tc_ref.gen_bits(t, rng.next(), 1, center)

    A = [[rand(at) for _ in range(k)] for _ in range(64)]
    B = [[rand(bt) for _ in range(k)] for _ in range(n)]  # B[n][k]
    ct = "s32" if d == "s32" else d
    C = [[(tc_ref.rand_elem(rng, "s32", True) if d == "s32"
           else tc_ref.gen_bits(d, rng.next(), 1, center, ref=at)) for _ in range(n)]
         for _ in range(64)]
    # Shared image: A at 0 (when from a descriptor), B at the next 1024-byte boundary.
    img = bytearray(32768)
    end = 0
    if asrc != "regs":
        major, swz, off, lbo, sbo = asrc
        for m in range(64):
            for kk in range(k):
                end = max(end, place(img, off, major, swz, T, lbo, sbo, m, kk, bits, A[m][kk]))
    bbase = (end + 1023) // 1024 * 1024
    major, swz, off, lbo, sbo = bsrc
    for nn in range(n):
        for kk in range(k):
            end = max(end, place(img, bbase + off, major, swz, T, lbo, sbo, nn, kk, bits, B[nn][kk]))
    img = img[:(end + 16) // 16 * 16]
    # Expected D and the per-thread registers.
    neg = lambda t, v, s: v ^ (1 << (tc_ref.width(t) - 1 + (13 if t == "tf32" else 0))) if s < 0 else v  # noqa: E731
    D = [[0] * n for _ in range(64)]
    for m in range(64):
        for nn in range(n):
            a = [neg(at, x, sa) for x in A[m]]
            b = [neg(bt, x, sb) for x in B[nn]]
            c = C[m][nn] if scale_d else 0
            if d == "s32":
                if at == "b1":
                    D[m][nn] = tc_ref.dot_b1("and", a, b, c)
                else:
                    D[m][nn] = tc_ref.dot_int(at, bt, a, b, c - (1 << 32) if c >> 31 else c, sat)
            else:
                D[m][nn] = tc_ref.dot("hopper", "wgmma", at, bt, d, d, a, b, c)
    nd = n // 2 if d != "f16" else n // 4
    areg, creg, dreg = [], [], []
    shape = (16, 8, k)
    per_a = 16 * k // 32
    for t in range(128):
        wq, lane = t // 32, t % 32
        elems = [0] * per_a
        for i in range(per_a):
            _, r, c = tc_ref.frag(shape, "a", at if at != "b1" else "b1", lane, i)
            elems[i] = A[16 * wq + r][c]
        areg += tc_ref.pack(at, elems)
        ce, de = [], []
        for e in range(n // 2):
            _, r, c = tc_ref.frag((16, 8, 16), "c", d, lane, e % 4)
            ce.append(C[16 * wq + r][8 * (e // 4) + c])
            de.append(D[16 * wq + r][8 * (e // 4) + c])
        if d == "f16":
            creg += [ce[j] | (ce[j + 1] << 16) for j in range(0, len(ce), 2)]
            dreg += [de[j] | (de[j + 1] << 16) for j in range(0, len(de), 2)]
        else:
            creg += ce
            dreg += de
    return {
        "k": k, "nd": nd, "img": u32s(bytes(img)), "areg": areg, "creg": creg, "dreg": dreg,
        "adesc": None if asrc == "regs" else (asrc[2], desc(asrc[2], asrc[3], asrc[4], asrc[1])),
        "bdesc": (bbase + bsrc[2], desc(bbase + bsrc[2], bsrc[3], bsrc[4], bsrc[1])),
    }


def write_case(outdir, case):
    name, d, at, bt, n, asrc, bsrc, scale_d, sa, sb, sat = case
    g = gen_case(case)
    k, nd = g["k"], g["nd"]
    float_ab = at not in ("s8", "u8", "b1")
    trans = at in ("f16", "bf16")
    types = f".{d}.{at}.{bt}" + (".and.popc" if at == "b1" else "")
    shape = f".m64n{n}k{k}" + (".satfinite" if sat else "")
    dregs = ", ".join(f"%d{i}" for i in range(nd))
    if asrc == "regs":
        aop = "{%a0, %a1, %a2, %a3}"
    else:
        aop = "%rda"
    imms = ""
    if float_ab:
        imms += f", {sa}, {sb}"
        if trans:
            if asrc != "regs":
                imms += f", {1 if asrc[0] == 'MN' else 0}"
            imms += f", {1 if bsrc[0] == 'MN' else 0}"
    dty = "f32" if d == "f32" else "b32"
    what = {
        "regs": "A from registers",
    }.get(asrc, None) or f"A {asrc[0]}-major, {asrc[1]} swizzle, start +{asrc[2]}, LBO {asrc[3]}, SBO {asrc[4]}"
    lines = [
        f"// `wgmma.mma_async.sync.aligned{shape}{types}` on sm_90a: one warpgroup, random operands.",
        "// Generated by tools/wgmma_ref.py: the A and B matrices are written into a shared-memory",
        "// image by the canonical layouts of the PTX ISA (evaluated independently in Python),",
        "// copied to shared memory by the kernel; A/C/D registers per thread follow the ISA's",
        "// fragments; expected D from tools/tc_ref.py's exact model (hopper, wgmma).",
        f"// {what}; B {bsrc[0]}-major, {bsrc[1]} swizzle, start +{bsrc[2]}, LBO {bsrc[3]}, SBO {bsrc[4]};",
        f"// scale-d {scale_d}, imm-scale-a {sa}, imm-scale-b {sb}.",
        "// run: --grid 1 --block 128 --arch sm_90a",
        f"// arg: u32[{len(g['img'])}] = {hexlist(g['img'])}",
        f"// arg: u32[{len(g['areg'])}] = {hexlist(g['areg'])}",
        f"// arg: u32[{len(g['creg'])}] = {hexlist(g['creg'])}",
        f"// arg: zeros:u32:{len(g['dreg'])}",
    ]
    dr = g["dreg"]
    for i in range(0, len(dr), 16):
        lines.append(f"// expect arg3[{i}..{min(i + 16, len(dr))}]: u32 {hexlist(dr[i:i + 16])}")
    body = [
        ".version 8.0",
        ".target sm_90a",
        ".address_size 64",
        "",
        ".visible .entry k(.param .u64 pimg, .param .u64 pa, .param .u64 pc, .param .u64 pd)",
        "{",
        "\t.shared .align 1024 .b8 smem[16384];",
        "\t.reg .pred %p<2>;",
        "\t.reg .b32 %a<4>;",
        f"\t.reg .{dty} %d<{nd}>;",
        "\t.reg .b32 %r<16>;",
        "\t.reg .b64 %rd<16>;",
        "\t.reg .b64 %rda;",
        "\t.reg .b64 %rdb;",
        "\tmov.u32 %r1, %tid.x;",
        "\tld.param.u64 %rd1, [pimg];",
        "\tmov.u32 %r2, smem;",
        "\tmov.u32 %r3, %r1;",
        "LCOPY:",
        "\tmul.wide.u32 %rd2, %r3, 4;",
        "\tadd.u64 %rd3, %rd1, %rd2;",
        "\tld.global.u32 %r4, [%rd3];",
        "\tshl.b32 %r5, %r3, 2;",
        "\tadd.u32 %r6, %r2, %r5;",
        "\tst.shared.u32 [%r6], %r4;",
        "\tadd.u32 %r3, %r3, 128;",
        f"\tsetp.lt.u32 %p1, %r3, {len(g['img'])};",
        "\t@%p1 bra LCOPY;",
        "\tbar.sync 0;",
        "\tfence.proxy.async.shared::cta;",
        "\tld.param.u64 %rd4, [pa];",
        "\tmul.wide.u32 %rd5, %r1, 16;",
        "\tadd.u64 %rd6, %rd4, %rd5;",
        "\tld.global.b32 %a0, [%rd6+0];",
        "\tld.global.b32 %a1, [%rd6+4];",
        "\tld.global.b32 %a2, [%rd6+8];",
        "\tld.global.b32 %a3, [%rd6+12];",
        "\tld.param.u64 %rd7, [pc];",
        f"\tmul.wide.u32 %rd8, %r1, {4 * nd};",
        "\tadd.u64 %rd9, %rd7, %rd8;",
    ]
    for i in range(nd):
        body.append(f"\tld.global.{'f32' if d == 'f32' else 'b32'} %d{i}, [%rd9+{4 * i}];")
    boff, bdesc = g["bdesc"]
    body += [
        f"\tadd.u32 %r7, %r2, {boff};",
        "\tshr.u32 %r7, %r7, 4;",
        "\tcvt.u64.u32 %rdb, %r7;",
        f"\tor.b64 %rdb, %rdb, {bdesc:#x};",
    ]
    if g["adesc"] is not None:
        aoff, adesc = g["adesc"]
        body += [
            f"\tadd.u32 %r8, %r2, {aoff};",
            "\tshr.u32 %r8, %r8, 4;",
            "\tcvt.u64.u32 %rda, %r8;",
            f"\tor.b64 %rda, %rda, {adesc:#x};",
        ]
    body += [
        "\twgmma.fence.sync.aligned;",
        f"\twgmma.mma_async.sync.aligned{shape}{types} {{{dregs}}}, {aop}, %rdb, {scale_d}{imms};",
        "\twgmma.commit_group.sync.aligned;",
        "\twgmma.wait_group.sync.aligned 0;",
        "\tld.param.u64 %rd10, [pd];",
        "\tadd.u64 %rd11, %rd10, %rd8;",
    ]
    for i in range(nd):
        body.append(f"\tst.global.{'f32' if d == 'f32' else 'b32'} [%rd11+{4 * i}], %d{i};")
    body += ["\tret;", "}"]
    with open(os.path.join(outdir, name + ".ptx"), "w") as f:
        f.write("\n".join(lines + body) + "\n")


def main():
    outdir = os.path.join(ROOT, "tests", "run", "warp")
    for case in CASES:
        write_case(outdir, case)
        print(case[0])


if __name__ == "__main__":
    main()
