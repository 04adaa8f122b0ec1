#!/usr/bin/env python3
"""Run tests for `wgmma.mma_async` (sm_90a), with expected outputs from an independent
reference: the arithmetic of tools/tc_ref.py (exact rationals, `hopper`/`wgmma` row of the
model), the register fragments from tc_ref.frag (the PTX ISA's mma.m16n8kK tables: each warp
of the warpgroup holds 16 rows), and the shared-memory layouts written here from the canonical
layouts of the PTX ISA / CUTLASS (`make_gmma_desc`: nested shapes and strides evaluated
generically, then the Swizzle<B,4,3> function of the byte address). Shares no code with
ptxvm's Rust.

Usage: tools/wgmma_ref.py          writes tests/run/warp/wgmma_*.ptx (random operands)
       tools/wgmma_ref.py forms    writes tests/run/warp/wgmma_forms_*.ptx: every dense form of
                                   the instruction table (each N of each type and A source)
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
            return ((8, 1 << 20), (T, 1 << 20)), ((128, sbo * 8), (eb, lbo * 8))
        # K runs along the swizzle row (w 16-byte units; the dense forms use two).
        return ((8, 1 << 20), (T, w)), ((128 * w, sbo * 8), (eb, 128))
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


# `.sp` cases: the same fields, then the sparsity selector. A is drawn structured-sparse
# (random index pairs, decreasing ones included), D is its dense product, and A is stored
# compressed (64 x K/2) in registers or shared memory with per-warp metadata (sp_compress's
# layout); B has the full K (64 bytes per row: its swizzle holds them).
SP_CASES = [
    ("wgmma_sp_f16_f32_regs_sel1", "f32", "f16", "f16", 16, "regs",
     ("K", "64", 0, 0, 512), 1, 1, 1, False, 1),
    ("wgmma_sp_bf16_f32_desc_sw32_transb", "f32", "bf16", "bf16", 24, ("K", "32", 0, 0, 256),
     ("MN", "64", 0, 2048, 512), 1, -1, 1, False, 0),
    ("wgmma_sp_f16_f16_desc_none_sel1", "f16", "f16", "f16", 16, ("K", "none", 0, 128, 256),
     ("K", "none", 0, 128, 512), 1, 1, 1, False, 1),
    ("wgmma_sp_tf32_f32_desc_sw128", "f32", "tf32", "tf32", 8, ("K", "128", 0, 0, 1024),
     ("K", "128", 0, 0, 1024), 1, 1, -1, False, 1),
    ("wgmma_sp_e4m3_e5m2_f32_regs", "f32", "e4m3", "e5m2", 8, "regs",
     ("K", "none", 0, 128, 512), 1, 1, 1, False, 0),
    ("wgmma_sp_e5m2_f16_desc_scaled0", "f16", "e5m2", "e5m2", 16, ("K", "64", 0, 0, 512),
     ("K", "128", 0, 0, 1024), 0, 1, 1, False, 0),
    ("wgmma_sp_s8_u8_satfinite_desc", "s32", "s8", "u8", 8, ("K", "32", 0, 0, 256),
     ("K", "64", 0, 0, 512), 1, 1, 1, True, 0),
    ("wgmma_sp_u8_u8_regs", "s32", "u8", "u8", 16, "regs",
     ("K", "none", 0, 128, 512), 1, 1, 1, False, 0),
]


def sp_random(rng, at, K, val, sel):
    """A random structured-sparse 64 x K A, its compressed 64 x K/2 form and each thread's
    metadata word (the rules of sp_compress)."""
    cw, unit, nz = tc_ref.sp_chunk(at)
    A = [[0] * K for _ in range(64)]
    comp = [[0] * (K // 2) for _ in range(64)]
    fields = [[0] * (K // cw) for _ in range(64)]
    for m in range(64):
        for ch in range(K // cw):
            if at == "tf32":
                e = rng.next() & 1
                fields[m][ch] = 0b1110 if e else 0b0100
                idx = [e]
            else:
                i0 = rng.next() % 4
                i1 = (i0 + 1 + rng.next() % 3) % 4
                fields[m][ch] = i0 | (i1 << 2)
                idx = [i0, i1]
            for j, x in enumerate(idx):
                v = val()
                A[m][ch * cw + x] = v
                comp[m][ch * nz + j] = v
    tpg = (K // cw) // 4
    meta = []
    for t in range(128):
        wq, lane = t // 32, t % 32
        g, j = lane >> 2, lane % 4 - sel * tpg
        if tpg == 4:  # 8-bit types: 8 chunks of row g + 8 (t % 2) per thread (ELayout_64x64)
            r = 16 * wq + g + 8 * (lane % 2)
            meta.append(sum(fields[r][8 * (lane % 4 // 2) + q] << (4 * q) for q in range(8)))
        elif 0 <= j < tpg:
            v = 0
            for hi in range(2):
                for q in range(4):
                    v |= fields[16 * wq + g + 8 * hi][4 * j + q] << (16 * hi + 4 * q)
            meta.append(v)
        else:
            meta.append(rng.next() & 0xFFFFFFFF)
    return A, comp, meta


def u32s(b):
    return [struct.unpack_from("<I", b, i)[0] for i in range(0, len(b), 4)]


def hexlist(v):
    return "[" + ", ".join(f"{x:#x}" for x in v) + "]"


def gen_case(case):
    name, d, at, bt, n, asrc, bsrc, scale_d, sa, sb, sat = case[:11]
    sel = case[11] if len(case) > 11 else None
    rng = tc_ref.SplitMix64(tc_ref.seed_of(name))
    bits = BITS[at]
    k = KOF[bits] * (1 if sel is None else 2)
    ka = k if sel is None else k // 2  # columns of A as stored
    T = 128 // bits
    center = rng.next()

    def rand(t):
        v = tc_ref.rand_elem(rng, t)
        return v if v is not None else tc_ref.gen_bits(t, rng.next(), 1, center)

    meta = None
    if sel is None:
        A = Ast = [[rand(at) for _ in range(k)] for _ in range(64)]
    else:
        A, Ast, meta = sp_random(rng, at, k, lambda: rand(at), sel)
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
            for kk in range(ka):
                end = max(end, place(img, off, major, swz, T, lbo, sbo, m, kk, bits, Ast[m][kk]))
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
    shape = (16, 8, ka)
    per_a = 16 * ka // 32
    for t in range(128):
        wq, lane = t // 32, t % 32
        elems = [0] * per_a
        for i in range(per_a):
            _, r, c = tc_ref.frag(shape, "a", at if at != "b1" else "b1", lane, i)
            elems[i] = Ast[16 * wq + r][c]
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
        "meta": meta,
        "adesc": None if asrc == "regs" else (asrc[2], desc(asrc[2], asrc[3], asrc[4], asrc[1])),
        "bdesc": (bbase + bsrc[2], desc(bbase + bsrc[2], bsrc[3], bsrc[4], bsrc[1])),
    }


def write_case(outdir, case):
    name, d, at, bt, n, asrc, bsrc, scale_d, sa, sb, sat = case[:11]
    sel = case[11] if len(case) > 11 else None
    sp = "" if sel is None else ".sp"
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
        f"// `wgmma.mma_async{sp}.sync.aligned{shape}{types}` on sm_90a: one warpgroup, random operands.",
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
    ]
    if sp:
        lines[6:6] = [
            f"// Sparse: A is structured-sparse, stored compressed (64 x {k // 2}) with each thread's",
            f"// metadata in arg 3 (sparsity selector {sel}; lanes it does not name hold random words).",
        ]
        lines.append(f"// arg: u32[128] = {hexlist(g['meta'])}")
    lines.append(f"// arg: zeros:u32:{len(g['dreg'])}")
    dr = g["dreg"]
    darg = 4 if sp else 3
    for i in range(0, len(dr), 16):
        lines.append(f"// expect arg{darg}[{i}..{min(i + 16, len(dr))}]: u32 {hexlist(dr[i:i + 16])}")
    # Mixed .s8/.u8 operands need PTX ISA 8.4 (ptxas: "WGMMA with mixed integer types").
    body = [
        f".version {'8.4' if at != bt and at in ('s8', 'u8') else '8.2' if sp else '8.0'}",
        ".target sm_90a",
        ".address_size 64",
        "",
        ".visible .entry k(.param .u64 pimg, .param .u64 pa, .param .u64 pc, "
        + (".param .u64 pe, " if sp else "") + ".param .u64 pd)",
        "{",
        f"\t.shared .align 1024 .b8 smem[{max(16384, (len(g['img']) * 4 + 1023) // 1024 * 1024)}];",
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
    if sp:
        body += [
            "\t.reg .b32 %e;",
            "\tld.param.u64 %rd13, [pe];",
            "\tmul.wide.u32 %rd14, %r1, 4;",
            "\tadd.u64 %rd13, %rd13, %rd14;",
            "\tld.global.b32 %e, [%rd13];",
        ]
    body += [
        "\twgmma.fence.sync.aligned;",
        f"\twgmma.mma_async{sp}.sync.aligned{shape}{types} {{{dregs}}}, {aop}, %rdb, "
        + (f"%e, {sel}, " if sp else "") + f"{scale_d}{imms};",
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


# ---------------------------------------------------------------------------------------
# Every form: one file per (accumulator, A/B types, A source) runs the instruction for every N
# of the instruction table, on operands whose products are exact in every type: A is one-hot
# (A[m][k] = 1 where k = m mod K), B[n][k] = (n + 3k) mod 8 ((n + 3k) mod 2 for b1) and
# C[m][n] = (m + 2n) mod 5, so D[m][n] = C[m][n] + B[n][m mod K]. A, B (for N = 256; smaller N
# use its first N rows) are placed in shared memory by the canonical layouts above; C and the
# expected D are expressions of the ISA's accumulator fragment (thread t, element e:
# m = 16(t/32) + (t%32)/4 + 8((e/2)%2), n = 8(e/4) + 2(t%4) + e%2).

ONE_TO_7 = {  # codes of 0..7 in each element type
    "f16": [0, 0x3C00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600, 0x4700],
    "bf16": [0, 0x3F80, 0x4000, 0x4040, 0x4080, 0x40A0, 0x40C0, 0x40E0],
    "tf32": [struct.unpack("<I", struct.pack("<f", float(v)))[0] for v in range(8)],
    "e4m3": [0, 0x38, 0x40, 0x44, 0x48, 0x4A, 0x4C, 0x4E],
    "e5m2": [0, 0x3C, 0x40, 0x42, 0x44, 0x45, 0x46, 0x47],
    "s8": list(range(8)), "u8": list(range(8)), "b1": [0, 1] * 4,
}

# (file suffix, d, a, b, K-suffix modifiers, A from registers?, A swizzle, B swizzle)
FORM_GROUPS = [
    ("f16_f16_desc", "f16", "f16", "f16", "", False, "64", "none"),
    ("f16_f16_regs", "f16", "f16", "f16", "", True, None, "32"),
    ("f32_f16_desc", "f32", "f16", "f16", "", False, "none", "32"),
    ("f32_f16_regs", "f32", "f16", "f16", "", True, None, "none"),
    ("f32_bf16_desc", "f32", "bf16", "bf16", "", False, "32", "none"),
    ("f32_bf16_regs", "f32", "bf16", "bf16", "", True, None, "32"),
    ("f32_tf32_desc", "f32", "tf32", "tf32", "", False, "64", "32"),
    ("f32_tf32_regs", "f32", "tf32", "tf32", "", True, None, "none"),
    ("f16_e4m3_e5m2_desc", "f16", "e4m3", "e5m2", "", False, "none", "32"),
    ("f16_e5m2_e4m3_regs", "f16", "e5m2", "e4m3", "", True, None, "none"),
    ("f32_e5m2_e5m2_desc", "f32", "e5m2", "e5m2", "", False, "32", "none"),
    ("f32_e4m3_e4m3_regs", "f32", "e4m3", "e4m3", "", True, None, "32"),
    ("s32_s8_u8_satfinite_desc", "s32", "s8", "u8", ".satfinite", False, "64", "none"),
    ("s32_u8_s8_regs", "s32", "u8", "s8", "", True, None, "32"),
    ("s32_u8_u8_desc", "s32", "u8", "u8", "", False, "32", "32"),
    ("s32_s8_s8_satfinite_regs", "s32", "s8", "s8", ".satfinite", True, None, "none"),
    ("s32_s8_s8_desc", "s32", "s8", "s8", "", False, "none", "none"),
    ("s32_u8_u8_satfinite_regs", "s32", "u8", "u8", ".satfinite", True, None, "32"),
    ("s32_b1_desc", "s32", "b1", "b1", "", False, "none", "32"),
    ("s32_b1_regs", "s32", "b1", "b1", "", True, None, "none"),
]


def table_ns(at, d, sparse=False):
    """The N of every dense (sparse: `.sp`) form of the instruction table for these types."""
    import re
    ns = set()
    sp = r"\.sp" if sparse else ""
    path = os.path.join(ROOT, "crates", "ptxvm-ir", "isa", "tensor.isa")
    kind = {"f16": f".{d}.f16.f16 ", "bf16": ".f32.bf16.bf16 ", "tf32": ".f32.tf32.tf32 ",
            "e4m3": f".{d}.atype.btype ", "e5m2": f".{d}.atype.btype ",
            "s8": ".s32.itype_a.itype_b ", "u8": ".s32.itype_a.itype_b ",
            "b1": ".s32.b1.b1.and.popc "}[at]
    for line in open(path):
        m = re.match(r"wgmma\.mma_async" + sp + r"\.sync\.aligned\.m64n(\d+)k\d+(\{\.satfinite\})?(\S*) ", line)
        if m and (m.group(3) + " ").endswith(kind):
            ns.add(int(m.group(1)))
    return sorted(ns)


def frag_expr(x, E, K, b1):
    """The expected value of element x of a D region of E elements per thread."""
    t, e = f"(({x})/{E})", f"(({x})%{E})"
    m = f"(16*({t}/32) + ({t}%32)/4 + 8*(({e}/2)%2))"
    n = f"(8*({e}/4) + 2*({t}%4) + {e}%2)"
    return m, n


def sp_compress(at, K, one, sel, salt):
    """`.sp`: the one-hot A (A[m][k] = 1 where k = m mod K) compressed by the PTX ISA's sparse
    storage rules (9.7.15.6.1; tools/tc_ref.py has the mma.sp text and metadata layout):
    the 64 x K/2 stored values, and per thread its metadata word (each warp holds its 16 rows like mma.sp's
    m16n8 metadata; lanes the selector does not name get arbitrary words). Chunks without the
    1 store zeros under index pairs that vary with the row (decreasing pairs included)."""
    cw, unit, nz = tc_ref.sp_chunk(at)
    comp = [[0] * (K // 2) for _ in range(64)]
    fields = [[0] * (K // cw) for _ in range(64)]
    for m in range(64):
        k0 = m % K
        for ch in range(K // cw):
            if at == "tf32":
                e = k0 % 2 if ch == k0 // cw else (m + ch) % 2
                fields[m][ch] = 0b1110 if e else 0b0100
                comp[m][ch] = one if ch == k0 // cw else 0
                continue
            if ch == k0 // cw:
                i0 = k0 % cw
                i1 = (i0 + 1 + m % 3) % 4
                comp[m][2 * ch] = one
            else:
                i0 = (m + ch) % 4
                i1 = (i0 + 1 + ch % 3) % 4
            fields[m][ch] = i0 | (i1 << 2)
    tpg = (K // cw) // 4
    meta = []
    for t in range(128):
        wq, lane = t // 32, t % 32
        g, j = lane >> 2, lane % 4 - sel * tpg
        if tpg == 4:  # 8-bit types: 8 chunks of row g + 8 (t % 2) per thread (ELayout_64x64)
            r = 16 * wq + g + 8 * (lane % 2)
            meta.append(sum(fields[r][8 * (lane % 4 // 2) + q] << (4 * q) for q in range(8)))
        elif 0 <= j < tpg:
            v = 0
            for hi in range(2):
                for q in range(4):
                    v |= fields[16 * wq + g + 8 * hi][4 * j + q] << (16 * hi + 4 * q)
            meta.append(v)
        else:
            meta.append((t * 0x9E3779B1 + salt) & 0xFFFFFFFF)
    return comp, meta


def write_forms(outdir, group, sparse=False):
    suffix, d, at, bt, sat, regs, aswz, bswz = group
    bits = BITS[at]
    K = KOF[bits] * (2 if sparse else 1)
    Ka = K // 2 if sparse else K  # columns of A as stored
    T = 128 // bits
    b1 = at == "b1"
    ns = table_ns(at, d, sparse)
    nmax = max(ns)
    sel = (1 if regs else 0) if sparse and bits in (16, 32) else 0

    def bval(nn, kk):
        return ONE_TO_7[bt][(nn + 3 * kk) % 8]

    one = ONE_TO_7[at][1]
    A = [[one if kk == m % K else 0 for kk in range(K)] for m in range(64)]
    meta = None
    if sparse:
        A, meta = sp_compress(at, K, one, sel, len(suffix))
    img = bytearray(65536)
    end = 0
    # (LBO, SBO) of a K-major matrix of K elements: without swizzle core matrices of 8 rows x
    # 16 bytes, K's after each other; with one, 8 rows of the swizzle width (K must fit).
    lbo_sbo = lambda swz, kk: {"none": (128, 8 * kk * bits // 8), "32": (0, 256),  # noqa: E731
                               "64": (0, 512), "128": (0, 1024)}[swz]
    if not regs:
        lbo, sbo = lbo_sbo(aswz, Ka)
        for m in range(64):
            for kk in range(Ka):
                end = max(end, place(img, 0, "K", aswz, T, lbo, sbo, m, kk, bits, A[m][kk]))
    bbase = (end + 1023) // 1024 * 1024
    lbo, sbo = lbo_sbo(bswz, K)
    for nn in range(nmax):
        for kk in range(K):
            end = max(end, place(img, bbase, "K", bswz, T, lbo, sbo, nn, kk, bits, bval(nn, kk)))
    img = u32s(bytes(img[:(end + 16) // 16 * 16]))
    areg = []
    for t in range(128):
        wq, lane = t // 32, t % 32
        per_a = 16 * Ka // 32
        elems = []
        for i in range(per_a):
            _, r, c = tc_ref.frag((16, 8, Ka), "a", at, lane, i)
            elems.append(A[16 * wq + r][c])
        areg += tc_ref.pack(at, elems)
    ety = {"f32": "f32", "f16": "f16", "s32": "i32"}[d]
    cval = lambda m, n: f"(({m} + 2*{n}) % 5)"  # noqa: E731
    bmod = 2 if b1 else 8
    cmax = 128  # C elements per thread (N = 256)
    m, n = frag_expr("i", cmax, K, b1)
    regions, off = [], 0
    for N in ns:
        E = N // 2
        regions.append((N, off))
        off += 128 * E
    float_ab = at not in ("s8", "u8", "b1")
    trans = at in ("f16", "bf16")
    types = f".{d}.{at}.{bt}" + (".and.popc" if b1 else "")
    dregty = {"f32": ".f32", "f16": ".b32", "s32": ".s32"}[d]
    per_reg = 2 if d == "f16" else 1  # accumulator elements per register
    name = f"wgmma_{'sp_' if sparse else ''}forms_{suffix}"
    sp = ".sp" if sparse else ""
    lines = [
        f"// Every N of `wgmma.mma_async{sp}.sync.aligned.m64nNk{K}{sat}{types}` with A from "
        + ("registers" if regs else f"a descriptor ({aswz} swizzle)") + f", B {bswz} swizzle.",
        "// Generated by tools/wgmma_ref.py forms: A is one-hot (A[m][k] = 1 where k = m mod K),",
    ]
    if sparse:
        lines += [
            f"// stored compressed (64 x {Ka}) with per-warp metadata (arg 3, sparsity selector {sel};",
            "// lanes it does not name hold arbitrary words) by the ISA's sparse storage rules,",
        ]
    lines += [
        f"// B[n][k] = (n + 3k) mod {bmod}, C[m][n] = (m + 2n) mod 5, so D[m][n] = C[m][n] + B[n][m mod K]",
        "// exactly. The operands are laid out in shared memory by the ISA's canonical layouts",
        "// (evaluated in Python), C and D follow the accumulator fragment of thread t, element e:",
        "// m = 16(t/32) + (t%32)/4 + 8((e/2)%2), n = 8(e/4) + 2(t%4) + e%2. D of each N is stored",
        "// in its own region of arg 4, [thread][element].",
        f"// N = {', '.join(str(x) for x in ns)}",
        "// run: --grid 1 --block 128 --arch sm_90a",
        f"// arg: u32[{len(img)}] = {hexlist(img)}",
        f"// arg: u32[{len(areg)}] = {hexlist(areg)}",
        f"// arg: {ety}[{128 * cmax}] = {cval(m, n)}",
    ]
    if sparse:
        lines.append(f"// arg: u32[128] = {hexlist(meta)}")
    lines.append(f"// arg: zeros:{ety}:{off}")
    darg = 4 if sparse else 3
    for N, o in regions:
        E = N // 2
        m, n = frag_expr(f"i-{o}", E, K, b1)
        lines.append(f"// expect arg{darg}[{o}..{o + 128 * E}]: {ety} {cval(m, n)} + ({n} + 3*({m} % {K})) % {bmod}")
    nd = nmax // 2 // per_reg
    # Mixed .s8/.u8 operands need PTX ISA 8.4 (ptxas: "WGMMA with mixed integer types").
    mixed = at != bt and at in ('s8', 'u8')
    body = [
        f".version {'8.4' if mixed else '8.2' if sparse else '8.0'}",
        ".target sm_90a",
        ".address_size 64",
        "",
        ".visible .entry k(.param .u64 pimg, .param .u64 pa, .param .u64 pc, "
        + (".param .u64 pe, " if sparse else "") + ".param .u64 pd)",
        "{",
        f"\t.shared .align 1024 .b8 smem[{(len(img) * 4 + 1023) // 1024 * 1024}];",
        "\t.reg .pred %p<2>;",
        "\t.reg .b32 %a<4>;",
        f"\t.reg {dregty} %d<{nd}>;",
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
        f"\tsetp.lt.u32 %p1, %r3, {len(img)};",
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
        f"\tmul.wide.u32 %rd8, %r1, {4 * cmax // per_reg};",
        "\tadd.u64 %rd9, %rd7, %rd8;",
        "\tld.param.u64 %rd10, [pd];",
        f"\tadd.u32 %r7, %r2, {bbase};",
        "\tshr.u32 %r7, %r7, 4;",
        "\tcvt.u64.u32 %rdb, %r7;",
        f"\tor.b64 %rdb, %rdb, {desc(bbase, *lbo_sbo(bswz, K), bswz):#x};",
    ]
    if sparse:
        body += [
            "\t.reg .b32 %e;",
            "\tld.param.u64 %rd13, [pe];",
            "\tmul.wide.u32 %rd14, %r1, 4;",
            "\tadd.u64 %rd13, %rd13, %rd14;",
            "\tld.global.b32 %e, [%rd13];",
        ]
    if not regs:
        body += [
            "\tshr.u32 %r8, %r2, 4;",
            "\tcvt.u64.u32 %rda, %r8;",
            f"\tor.b64 %rda, %rda, {desc(0, *lbo_sbo(aswz, Ka), aswz):#x};",
        ]
    ldty = "f32" if d == "f32" else "b32"
    for N, o in regions:
        regs_n = N // 2 // per_reg
        dregs = ", ".join(f"%d{i}" for i in range(regs_n))
        imms = ""
        if float_ab:
            imms = ", 1, 1" + ((", 0" if not regs else "") + ", 0" if trans else "")
        aop = "{%a0, %a1, %a2, %a3}" if regs else "%rda"
        vw = 4 if regs_n % 4 == 0 else 2  # registers per vector access (alignment)
        vecs = [(i, "{" + ", ".join(f"%d{j}" for j in range(i, i + vw)) + "}")
                for i in range(0, regs_n, vw)]
        for i, v in vecs:
            body.append(f"\tld.global.v{vw}.{ldty} {v}, [%rd9+{4 * i}];")
        body += [
            "\twgmma.fence.sync.aligned;",
            f"\twgmma.mma_async{sp}.sync.aligned.m64n{N}k{K}{sat}{types} {{{dregs}}}, {aop}, %rdb, "
            + (f"%e, {sel}, " if sparse else "") + f"1{imms};",
            "\twgmma.commit_group.sync.aligned;",
            "\twgmma.wait_group.sync.aligned 0;",
            f"\tmul.wide.u32 %rd11, %r1, {4 * regs_n};",
            "\tadd.u64 %rd12, %rd10, %rd11;",
            f"\tadd.u64 %rd12, %rd12, {o * (2 if d == 'f16' else 4)};",
        ]
        for i, v in vecs:
            body.append(f"\tst.global.v{vw}.{ldty} [%rd12+{4 * i}], {v};")
    body += ["\tret;", "}"]
    with open(os.path.join(outdir, name + ".ptx"), "w") as f:
        f.write("\n".join(lines + body) + "\n")
    return name, ns


# `.sp`: (file suffix, d, a, b, K-suffix modifiers, A from registers?, A swizzle, B swizzle);
# B's K is 64 bytes, so its swizzle is none, 64 or 128 bytes.
SP_FORM_GROUPS = [
    ("f16_f16_desc", "f16", "f16", "f16", "", False, "64", "none"),
    ("f16_f16_regs", "f16", "f16", "f16", "", True, None, "64"),
    ("f32_f16_desc", "f32", "f16", "f16", "", False, "none", "64"),
    ("f32_f16_regs", "f32", "f16", "f16", "", True, None, "none"),
    ("f32_bf16_desc", "f32", "bf16", "bf16", "", False, "32", "none"),
    ("f32_bf16_regs", "f32", "bf16", "bf16", "", True, None, "64"),
    ("f32_tf32_desc", "f32", "tf32", "tf32", "", False, "32", "128"),
    ("f32_tf32_regs", "f32", "tf32", "tf32", "", True, None, "none"),
    ("f16_e4m3_e5m2_desc", "f16", "e4m3", "e5m2", "", False, "none", "64"),
    ("f16_e5m2_e4m3_regs", "f16", "e5m2", "e4m3", "", True, None, "none"),
    ("f32_e5m2_e5m2_desc", "f32", "e5m2", "e5m2", "", False, "32", "none"),
    ("f32_e4m3_e4m3_regs", "f32", "e4m3", "e4m3", "", True, None, "128"),
    ("s32_s8_u8_satfinite_desc", "s32", "s8", "u8", ".satfinite", False, "64", "none"),
    ("s32_u8_s8_regs", "s32", "u8", "s8", "", True, None, "64"),
    ("s32_u8_u8_desc", "s32", "u8", "u8", "", False, "32", "64"),
    ("s32_s8_s8_satfinite_regs", "s32", "s8", "s8", ".satfinite", True, None, "none"),
    ("s32_s8_s8_desc", "s32", "s8", "s8", "", False, "none", "128"),
    ("s32_u8_u8_satfinite_regs", "s32", "u8", "u8", ".satfinite", True, None, "64"),
]


def main():
    outdir = os.path.join(ROOT, "tests", "run", "warp")
    if sys.argv[1:] == ["forms"]:
        for group in FORM_GROUPS:
            name, ns = write_forms(outdir, group)
            print(name, len(ns))
        for group in SP_FORM_GROUPS:
            name, ns = write_forms(outdir, group, sparse=True)
            print(name, len(ns))
        return
    for case in CASES + SP_CASES:
        write_case(outdir, case)
        print(case[0])


if __name__ == "__main__":
    main()
