#!/usr/bin/env python3
"""Run tests for `tcgen05` Tensor Memory (sm_100a): `tcgen05.ld`/`tcgen05.st` in every
data-movement shape, with and without `.pack::16b`/`.unpack::16b`, and the allocator's errors.

Tensor Memory is modelled here as a dict (lane, column) -> 32-bit cell. Which thread and
register holds which cell comes from the (thread, value) -> bit layouts CUTLASS states as text
for its copy atoms (cute/atom/copy_traits_sm100.hpp, `SM100_TMEM_LOAD_<lanes>dp<bits>b<N>x`),
which are the PTX manual's figures 183-187; they are evaluated generically here (nested
shapes/strides, colexicographic), sharing no code with ptxvm's closed-form Rust
(crates/ptxvm-vm/src/ops/tcgen05.rs).

Usage: tools/tcgen05_ref.py      writes tests/run/warp/tcgen05_*.ptx and tests/run/errors/tcgen05_*.ptx
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tc_ref  # noqa: E402
import wgmma_ref  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = ".version 8.6\n.target sm_100a\n.address_size 64\n"


def evaluate(shape, stride, c):
    """A (possibly nested) layout at the integer coordinate c (colexicographic split)."""
    if isinstance(shape, int):
        return (c % shape) * stride
    off = 0
    for s, d in zip(shape, stride):
        size = 1
        for x in flat(s):
            size *= x
        off += evaluate(s, d, c % size)
        c //= size
    return off


def flat(s):
    return [s] if isinstance(s, int) else [x for y in s for x in flat(y)]


def layout(shape, n):
    """(bits per lane W, thread layout, value layout) of CUTLASS's DstLayout for .num = n."""
    if shape == "32x32b":
        w = 32 * n
        return w, (32, w), (32 * n, 1)
    if shape == "16x256b":
        w = 256 * n
        return w, ((4, 8), (64, w)), ((64, 2, n), (1, 8 * w, 256))
    if shape == "16x128b":
        w = 128 * n
        return w, ((4, 8), (32, w)), ((32, 2, n), (1, 8 * w, 128))
    if shape == "16x64b":
        w = 64 * n
        return w, ((2, 2, 8), (8 * w, 32, w)), ((32, n), (1, 64))
    if shape == "16x32bx2":  # immHalfSplitoff = n (CUTLASS's 16dp32b)
        w = 64 * n
        return w, ((16, 2), (w, 32 * n)), (32 * n, 1)
    raise ValueError(shape)


REGS = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}


def cells(shape, n, pack, t, split=None):
    """For thread t (0..31): per register j, the (lane offset, [columns]) it covers. For
    .16x32bx2 the second half (threads 16-31) starts `split` physical columns further."""
    w, (ts, td), (vs, vd) = layout(shape, n)
    out = []
    for j in range(REGS[shape] * n):
        bit = evaluate(ts, td, t) + evaluate(vs, vd, 32 * j)
        lane, b = divmod(bit, w)
        col = b // 32
        extra = 0
        if shape == "16x32bx2" and t >= 16:
            col -= n  # CUTLASS's atom puts the second half right after the first
            extra = split
        cols = [2 * col, 2 * col + 1] if pack else [col]
        out.append((lane, [c + extra for c in cols]))
    return out


def fill_value(lane, col):
    v = lane | (col << 7)
    return (((v ^ 0x5A5A) << 16) | v) & 0xFFFFFFFF


def const_part(col):
    c = col << 7
    return c | ((c ^ 0x5A00) << 16)


def vec(regs):
    return "{" + ", ".join(regs) + "}"


def ptx_name(shape, n, pack, store):
    p = (".unpack::16b" if store else ".pack::16b") if pack else ""
    op = "st" if store else "ld"
    return f"tcgen05.{op}.sync.aligned.{shape}.x{n}{p}.b32"


def prologue(name, ncols=512):
    return [
        HEADER,
        f".visible .entry {name}(.param .u64 out)",
        "{",
        "\t.reg .b32 %r<16>;",
        "\t.reg .b32 %v<130>;",
        "\t.reg .b64 %rd<8>;",
        "\t.reg .pred %p<2>;",
        "\t.shared .align 4 .b32 slot;",
        "",
        "\tld.param.u64 %rd0, [out];",
        "\tcvta.to.global.u64 %rd1, %rd0;",
        "\tmov.u32 %r0, %tid.x;",
        "\tshr.u32 %r1, %r0, 5;",
        "\tsetp.ne.u32 %p0, %r1, 0;",
        "\t@%p0 bra SKIP_ALLOC;",
        f"\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], {ncols};",
        "\ttcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
        "SKIP_ALLOC:",
        "\ttcgen05.fence::before_thread_sync;",
        "\tbar.sync 0;",
        "\ttcgen05.fence::after_thread_sync;",
        "\tld.shared.b32 %r3, [slot];",
        "\tshl.b32 %r4, %r1, 21;",
        "\tadd.u32 %r5, %r3, %r4;",
        "",
        "\t// Fill: cell (lane L, column c) = ((v ^ 0x5a5a) << 16) | v, v = L | c << 7.",
        "\txor.b32 %r6, %r0, 0x5a;",
        "\tshl.b32 %r6, %r6, 16;",
        "\tor.b32 %r6, %r6, %r0;",
    ]


def fill(lines, ncols):
    for c0 in range(0, ncols, 128):
        for j in range(128):
            lines.append(f"\tor.b32 %v{j}, %r6, {const_part(c0 + j):#x};")
        lines.append(f"\tadd.u32 %r7, %r5, {c0};")
        lines.append(
            f"\ttcgen05.st.sync.aligned.32x32b.x128.b32 [%r7], {vec([f'%v{j}' for j in range(128)])};"
        )
    lines.append("\ttcgen05.wait::st.sync.aligned;")


def epilogue(lines, ncols=512):
    lines += [
        "\ttcgen05.fence::before_thread_sync;",
        "\tbar.sync 0;",
        "\ttcgen05.fence::after_thread_sync;",
        "\t@%p0 bra DONE;",
        f"\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r3, {ncols};",
        "DONE:",
        "\tret;",
        "}",
        "",
    ]


def store_out(lines, regs, off):
    """Thread tid writes its registers to out[off + tid * len(regs) + j]."""
    lines.append(f"\tmul.wide.u32 %rd2, %r0, {4 * len(regs)};")
    lines.append("\tadd.u64 %rd3, %rd1, %rd2;")
    for j, r in enumerate(regs):
        lines.append(f"\tst.global.b32 [%rd3+{4 * (off + j)}], {r};")


def ld_file(shape, cases):
    """cases: (n, pack, lane_off, col_off, split)."""
    lines = prologue("tcgen05_ld")
    fill(lines, 512)
    expect = []
    off = 0
    desc = []
    for n, pack, lane_off, col_off, split in cases:
        nr = REGS[shape] * n
        regs = [f"%v{j}" for j in range(nr)]
        name = ptx_name(shape, n, pack, False)
        extra = f", {split}" if shape == "16x32bx2" else ""
        lines.append(f"\t// {name} at lane +{lane_off}, column +{col_off}")
        lines.append(f"\tadd.u32 %r7, %r5, {(lane_off << 16) + col_off};")
        lines.append(f"\t{name} {vec(regs)}, [%r7]{extra};")
        lines.append("\ttcgen05.wait::ld.sync.aligned;")
        store_out(lines, regs, off)
        vals = []
        for tid in range(128):
            q = tid // 32
            for lane, cols in cells(shape, n, pack, tid % 32, split):
                L = 32 * q + lane_off + lane
                if pack:
                    v = (fill_value(L, col_off + cols[0]) & 0xFFFF) | (
                        (fill_value(L, col_off + cols[1]) & 0xFFFF) << 16
                    )
                else:
                    v = fill_value(L, col_off + cols[0])
                vals.append(v)
        expect.append((off, vals))
        desc.append(f"{name}{' split ' + str(split) if shape == '16x32bx2' else ''} lane +{lane_off} col +{col_off}")
        off += 128 * nr
    epilogue(lines)
    return lines, expect, off, desc


def st_file(shape, cases):
    """cases: (n, pack, lane_off, col_off, split, span): store, then read columns
    [col_off, col_off + span) back with 32x32b."""
    lines = prologue("tcgen05_st")
    fill(lines, 512)
    expect = []
    off = 0
    desc = []
    mem = {}
    for k, (n, pack, lane_off, col_off, split, span) in enumerate(cases):
        nr = REGS[shape] * n
        name = ptx_name(shape, n, pack, True)
        extra = f", {split}" if shape == "16x32bx2" else ""
        lines.append(f"\t// {name} at lane +{lane_off}, column +{col_off}")
        # register j of thread tid: 0x80000000 | k << 24 | tid << 8 | j
        lines.append("\tshl.b32 %r8, %r0, 8;")
        for j in range(nr):
            lines.append(f"\tor.b32 %v{j}, %r8, {0x80000000 | (k << 24) | j:#x};")
        lines.append(f"\tadd.u32 %r7, %r5, {(lane_off << 16) + col_off};")
        lines.append(f"\t{name} [%r7]{extra}, {vec([f'%v{j}' for j in range(nr)])};")
        lines.append("\ttcgen05.wait::st.sync.aligned;")
        for tid in range(128):
            q = tid // 32
            for j, (lane, cols) in enumerate(cells(shape, n, pack, tid % 32, split)):
                L = 32 * q + lane_off + lane
                x = 0x80000000 | (k << 24) | (tid << 8) | j
                if pack:
                    mem[(L, col_off + cols[0])] = x & 0xFFFF
                    mem[(L, col_off + cols[1])] = x >> 16
                else:
                    mem[(L, col_off + cols[0])] = x
        # read back
        rn = 1
        while rn < span:
            rn *= 2
        regs = [f"%v{j}" for j in range(rn)]
        lines.append(f"\tadd.u32 %r7, %r5, {col_off};")
        lines.append(f"\ttcgen05.ld.sync.aligned.32x32b.x{rn}.b32 {vec(regs)}, [%r7];")
        lines.append("\ttcgen05.wait::ld.sync.aligned;")
        store_out(lines, regs, off)
        vals = []
        for tid in range(128):
            for j in range(rn):
                c = col_off + j
                vals.append(mem.get((tid, c), fill_value(tid, c)))
        expect.append((off, vals))
        desc.append(f"{name}{' split ' + str(split) if shape == '16x32bx2' else ''} lane +{lane_off} col +{col_off}, read back with 32x32b.x{rn}")
        off += 128 * rn
    epilogue(lines)
    return lines, expect, off, desc


MAXNUM = {"32x32b": 128, "16x64b": 128, "16x128b": 64, "16x256b": 32, "16x32bx2": 128}


def forms_file(shape):
    """Every .num of the shape, with and without (un)packing: store distinct values with
    tcgen05.st and load them back with tcgen05.ld of the same form; each thread ORs the XOR
    of what it stored and what it loaded, so out[tid] must be 0 (the layouts themselves are
    checked by the tcgen05_ld_* / tcgen05_st_* files)."""
    lines = prologue("tcgen05_forms")
    lines.insert(lines.index("\t.reg .b32 %v<130>;") + 1, "\t.reg .b32 %w<130>;")
    lines.append("\tshl.b32 %r8, %r0, 8;")
    lines.append("\tmov.u32 %r9, 0;")
    n = 1
    k = 0
    forms = []
    while n <= MAXNUM[shape]:
        for pack in (False, True):
            nr = REGS[shape] * n
            split = f", {2 * n if pack else n}" if shape == "16x32bx2" else ""
            for j in range(nr):
                lines.append(f"\tor.b32 %v{j}, %r8, {(k << 24) | (0x5A << 16) | j:#x};")
            st = ptx_name(shape, n, pack, True)
            ld = ptx_name(shape, n, pack, False)
            lines.append(f"\t{st} [%r5]{split}, {vec([f'%v{j}' for j in range(nr)])};")
            lines.append("\ttcgen05.wait::st.sync.aligned;")
            lines.append(f"\t{ld} {vec([f'%w{j}' for j in range(nr)])}, [%r5]{split};")
            lines.append("\ttcgen05.wait::ld.sync.aligned;")
            for j in range(nr):
                # .unpack::16b puts the halves in the low 16 bits of two cells and
                # .pack::16b joins them back: the identity as well.
                lines.append(f"\txor.b32 %w{j}, %w{j}, %v{j};")
                lines.append(f"\tor.b32 %r9, %r9, %w{j};")
            forms.append(f"{shape}.x{n}{' (un)pack::16b' if pack else ''}")
            k += 1
        n *= 2
    store_out(lines, ["%r9"], 0)
    epilogue(lines)
    head = [
        f"// tcgen05.st / tcgen05.ld .{shape}, every .num with and without .unpack::16b/.pack::16b",
        "// (sm_100a), one CTA of 4 warps. Generated by tools/tcgen05_ref.py: each form stores",
        "// distinct registers and loads them back with the same form; every thread ORs the",
        "// differences, so each output is 0 (derived by hand: a store then a load of the same",
        "// cells is the identity). Forms: " + ", ".join(forms),
        "// run: --grid 1 --block 128 --arch sm_100a",
        "// arg: zeros:u32:128",
        "// expect arg0: 0",
    ]
    write(os.path.join(ROOT, "tests/run/warp", f"tcgen05_forms_{shape}.ptx"), "\n".join(head) + "\n" + "\n".join(lines))

# tcgen05.mma: (name, kind, d, a, b, n, A source: "tmem" or (major, swizzle, start offset, lbo,
# sbo), B (major, swizzle, start offset, lbo, sbo), enable-input-d, negate A, negate B, saturate)
MMA_CASES = [
    ("tcgen05_mma_f16_f32_sw128_none", "f16", "f32", "f16", "f16", 32,
     ("K", "128", 0, 0, 1024), ("K", "none", 0, 128, 256), 1, 0, 0, 0),
    ("tcgen05_mma_bf16_f32_trans_sw64_sw32_nod", "f16", "f32", "bf16", "bf16", 16,
     ("MN", "64", 0, 1024, 512), ("MN", "32", 0, 0, 256), 0, 0, 0, 0),
    ("tcgen05_mma_tf32_f32_tmem_sw128_nega", "tf32", "f32", "tf32", "tf32", 24,
     "tmem", ("K", "128", 0, 0, 1024), 1, 1, 0, 0),
    ("tcgen05_mma_e4m3_e5m2_f32_sw32_none_negb", "f8f6f4", "f32", "e4m3", "e5m2", 16,
     ("K", "32", 0, 0, 256), ("K", "none", 0, 128, 256), 1, 0, 1, 0),
    ("tcgen05_mma_s8_u8_s32_sat_none_sw128", "i8", "s32", "s8", "u8", 16,
     ("K", "none", 0, 128, 256), ("K", "128", 0, 0, 1024), 1, 0, 0, 1),
    ("tcgen05_mma_f16_f32_tmem_trans_b_sw64", "f16", "f32", "f16", "f16", 8,
     "tmem", ("MN", "64", 0, 0, 512), 1, 0, 0, 0),
]
# Cases with disable-output-lane (lanes whose bit is set keep their old contents).
MMA_DISABLE = {
    "tcgen05_mma_u8_s8_s32_tmem_none_disable": (0x0000FFFF, 0x80000001, 0, 0xFFFFFFFF),
    "tcgen05_mma_f16_f32_sw32_sw128_disable": (0x12345678, 0, 0xFFFF0000, 0x1),
}
MMA_CASES += [
    ("tcgen05_mma_u8_s8_s32_tmem_none_disable", "i8", "s32", "u8", "s8", 32,
     "tmem", ("K", "none", 0, 128, 256), 1, 0, 0, 0),
    ("tcgen05_mma_f16_f32_sw32_sw128_disable", "f16", "f32", "f16", "f16", 16,
     ("K", "32", 0, 0, 256), ("K", "128", 0, 0, 1024), 0, 0, 0, 0),
]
TYPE_CODE = {"f16": 0, "bf16": 1, "tf32": 2, "e4m3": 0, "e5m2": 1, "u8": 0, "s8": 1,
             "e2m3": 3, "e3m2": 4, "e2m1": 5}
SWZ_CODE = {"none": 0, "128": 2, "64": 4, "32": 6, "128_32": 1}
# The fp6/fp4 types of kind::f8f6f4 / mxf8f6f4 and their widths: in shared memory each takes
# the place of an 8-bit element of the canonical layout, and each 16-byte unit of 16 places
# holds its 16 elements packed from bit 0 up (element j at bits w*j .. w*j+w-1 of the unit,
# little-endian), then 8 (fp4) or 4 (fp6) bytes of padding: the image TMA's
# CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B / 16U6_ALIGN16B loads write (cuda.h: "16 x U4 packed
# values ... 8 byte gaps between every 8 byte chunk", "16 x U6 ... 4 byte gaps between every
# 12 byte chunk"), which CUTLASS's SM100 f8f6f4 MMAs read (float_e2m1_unpacksmem_t & co.,
# K = 32, shared memory allocated as uint8_t, sub-byte arrays packed lowest element first).
PADDED = {"e2m3": 6, "e3m2": 6, "e2m1": 4}


def place_padded(img, base, major, swz, T, lbo, sbo, mn, k, w, val):
    """An fp6/fp4 element (width w) at the 8-bit place (mn, k) of the canonical layout, packed
    in its 16-byte unit; T = 16 (8-bit places per 16 bytes). Returns the unit's end."""
    sw = wgmma_ref.SW[swz][0]
    shape, stride = wgmma_ref.canonical(major, sw, T, lbo, sbo)
    bit = base * 8 + wgmma_ref.evaluate(shape, stride, (mn, k))
    unit = wgmma_ref.swizzle(bit // 8 & ~15, sw)
    j = bit // 8 & 15
    v = int.from_bytes(img[unit:unit + 16], "little") | (val << (w * j))
    img[unit:unit + 16] = v.to_bytes(16, "little")
    return unit + 16


def place_atom32(img, base, T, lbo, sbo, mn, k, bits, val):
    """Descriptor swizzle mode 1, the 128-byte swizzle with 32-byte atoms, MN-major (CUTLASS's
    SWIZZLE_128B_BASE32B, mma_sm100_desc.hpp make_umma_desc: in 16-byte units the canonical
    layout ((8,n),(4,k)):((1,LBO),(8,SBO)) -- 128-byte rows along MN, LBO between groups of
    8 x 16 bytes of MN, 4 such rows along K per SBO -- under Swizzle<2,5,2> on the byte
    address: bits 5-6 ^= bits 7-8)."""
    per_row = 8 * T
    bit = (mn % per_row) * bits
    a = base + (mn // per_row) * lbo + (k % 4) * 128 + (k // 4) * sbo + bit // 8
    a ^= ((a >> 7) & 3) << 5
    for j in range((bits + 7) // 8):
        img[a + j] |= ((val >> (8 * j)) << (bit % 8)) & 0xFF
    return a + (bits + 7) // 8


def place_elem(img, base, src, T, mn, k, bits, t, val):
    """wgmma_ref.place, or place_padded for the fp6/fp4 types, or place_atom32."""
    major, swz, off, lbo, sbo = src
    if swz == "128_32" and t in PADDED:
        # The fp6/fp4 element's 8-bit place, then packed in its 16-byte unit.
        probe = bytearray(len(img))
        end = place_atom32(probe, base + off, T, lbo, sbo, mn, k, bits, 0xFF)
        a = end - 1
        unit, j, w = a & ~15, a & 15, PADDED[t]
        v = int.from_bytes(img[unit:unit + 16], "little") | (val << (w * j))
        img[unit:unit + 16] = v.to_bytes(16, "little")
        return unit + 16
    if swz == "128_32":
        assert major == "MN"
        return place_atom32(img, base + off, T, lbo, sbo, mn, k, bits, val)
    if t in PADDED:
        return place_padded(img, base + off, major, swz, T, lbo, sbo, mn, k, PADDED[t], val)
    return wgmma_ref.place(img, base + off, major, swz, T, lbo, sbo, mn, k, bits, val)


def sm100_desc(lbo, sbo, swz):
    """The descriptor bits besides the start address (PTX ISA "Shared memory descriptor")."""
    return ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (1 << 46) | (SWZ_CODE[swz] << 61)


# M = 64 cases (Layout F: 16 lanes of each warp's 32, from lane 0 or 16): name -> (D's lane,
# A's lane when A is in Tensor Memory).
MMA_M64 = {
    "tcgen05_mma_m64_f16_f32_sw128_none": (0, 0),
    "tcgen05_mma_m64_bf16_f32_tmem_lane16": (16, 16),
    "tcgen05_mma_m64_e5m2_e4m3_f32_sw64_disable": (16, 0),
}
MMA_CASES += [
    ("tcgen05_mma_m64_f16_f32_sw128_none", "f16", "f32", "f16", "f16", 16,
     ("K", "128", 0, 0, 1024), ("K", "none", 0, 128, 256), 1, 0, 0, 0),
    ("tcgen05_mma_m64_bf16_f32_tmem_lane16", "f16", "f32", "bf16", "bf16", 24,
     "tmem", ("MN", "64", 0, 0, 512), 1, 0, 1, 0),
    ("tcgen05_mma_m64_e5m2_e4m3_f32_sw64_disable", "f8f6f4", "f32", "e5m2", "e4m3", 8,
     ("K", "64", 0, 0, 512), ("K", "32", 0, 0, 256), 1, 1, 0, 0),
]
MMA_M64["tcgen05_mma_m64_e4m3_f16_tmem_lane16"] = (16, 16)
MMA_CASES += [
    # An f16 D: one element per 32-bit cell, in its lower 16 bits (ISA "Packing format for
    # matrix D in Tensor Memory"); ptxvm writes the upper 16 bits as 0.
    ("tcgen05_mma_f16_f16_sw128_none", "f16", "f16", "f16", "f16", 16,
     ("K", "128", 0, 0, 1024), ("K", "none", 0, 128, 256), 1, 0, 0, 0),
    ("tcgen05_mma_m64_e4m3_f16_tmem_lane16", "f8f6f4", "f16", "e4m3", "e4m3", 16,
     "tmem", ("K", "64", 0, 0, 512), 1, 0, 1, 0),
]
MMA_DISABLE["tcgen05_mma_m64_e5m2_e4m3_f32_sw64_disable"] = (0x0F0F0000, 0xFFFF0000, 0x00010000, 0x80000000)
# kind::f8f6f4 with fp6/fp4 operands (PADDED: packed 16 to a 16-byte unit in shared memory),
# alone and mixed with 8-bit ones, K- and MN-major, every swizzle.
MMA_M64["tcgen05_mma_m64_e3m2_e4m3_f32_none_sw64_disable"] = (16, 0)
MMA_DISABLE["tcgen05_mma_m64_e3m2_e4m3_f32_none_sw64_disable"] = (0x00FF00FF, 0, 0x80000001, 0)
MMA_CASES += [
    # Descriptor swizzle mode 1 (128-byte swizzle with 32-byte atoms; MN-major: place_atom32).
    ("tcgen05_mma_tf32_f32_mn_sw128a32", "tf32", "f32", "tf32", "tf32", 16,
     ("MN", "128_32", 0, 512, 2048), ("MN", "128_32", 0, 0, 512), 1, 0, 0, 0),
    ("tcgen05_mma_f16_f32_mn_sw128a32_none", "f16", "f32", "f16", "f16", 32,
     ("MN", "128_32", 0, 2048, 512), ("K", "none", 0, 128, 256), 1, 0, 0, 0),
    ("tcgen05_mma_e2m1_e2m1_f32_mn_sw128a32", "f8f6f4", "f32", "e2m1", "e2m1", 16,
     ("MN", "128_32", 0, 2048, 512), ("MN", "128_32", 0, 0, 512), 1, 0, 0, 0),
    ("tcgen05_mma_e2m1_e3m2_f32_sw128_none", "f8f6f4", "f32", "e2m1", "e3m2", 16,
     ("K", "128", 0, 0, 1024), ("K", "none", 0, 128, 256), 1, 0, 0, 0),
    ("tcgen05_mma_e2m3_e2m1_f16_trans_sw64_sw32_neg", "f8f6f4", "f16", "e2m3", "e2m1", 16,
     ("MN", "64", 0, 512, 1024), ("MN", "32", 0, 0, 256), 1, 1, 1, 0),
    ("tcgen05_mma_e2m1_e2m1_f32_sw32_sw128_nod", "f8f6f4", "f32", "e2m1", "e2m1", 24,
     ("K", "32", 0, 0, 256), ("K", "128", 0, 0, 1024), 0, 0, 0, 0),
    ("tcgen05_mma_e4m3_e2m3_f32_none_trans_sw128", "f8f6f4", "f32", "e4m3", "e2m3", 32,
     ("K", "none", 0, 128, 256), ("MN", "128", 0, 0, 1024), 1, 0, 1, 0),
    ("tcgen05_mma_m64_e3m2_e4m3_f32_none_sw64_disable", "f8f6f4", "f32", "e3m2", "e4m3", 8,
     ("K", "none", 0, 128, 256), ("K", "64", 0, 0, 512), 1, 0, 0, 0),
]


# tcgen05.mma.sp cases (M = 128): name -> the MMA's k-step within the metadata tile (the
# metadata of a K = 128 tile is written to Tensor Memory at column 320 as JAX's Mosaic GPU
# `format_tcgen05_sparse_metadata` lays it out; the MMA addresses it as Mosaic does: a column
# pair per two k-steps for 16- and 32-bit A with the selector naming the column, two columns
# per k-step for 8-bit A, selector 0).
MMA_SP = {
    "tcgen05_mma_sp_f16_f32_sw128_none": 0,
    "tcgen05_mma_sp_bf16_f32_tmem_trans_b_sel1": 3,
    "tcgen05_mma_sp_tf32_f32_sw64_sel1": 1,
    "tcgen05_mma_sp_e4m3_e5m2_f32_sw32_step1": 1,
    "tcgen05_mma_sp_s8_u8_s32_sat_tmem": 0,
    "tcgen05_mma_sp_f16_f16_mn_disable": 2,
}
MMA_CASES += [
    ("tcgen05_mma_sp_f16_f32_sw128_none", "f16", "f32", "f16", "f16", 32,
     ("K", "128", 0, 0, 1024), ("K", "none", 0, 128, 512), 1, 0, 0, 0),
    ("tcgen05_mma_sp_bf16_f32_tmem_trans_b_sel1", "f16", "f32", "bf16", "bf16", 16,
     "tmem", ("MN", "64", 0, 0, 512), 1, 1, 0, 0),
    ("tcgen05_mma_sp_tf32_f32_sw64_sel1", "tf32", "f32", "tf32", "tf32", 16,
     ("K", "64", 0, 0, 512), ("K", "128", 0, 0, 1024), 1, 0, 1, 0),
    ("tcgen05_mma_sp_e4m3_e5m2_f32_sw32_step1", "f8f6f4", "f32", "e4m3", "e5m2", 24,
     ("K", "32", 0, 0, 256), ("K", "none", 0, 128, 512), 1, 0, 0, 0),
    ("tcgen05_mma_sp_s8_u8_s32_sat_tmem", "i8", "s32", "s8", "u8", 16,
     "tmem", ("K", "128", 0, 0, 1024), 1, 0, 0, 1),
    ("tcgen05_mma_sp_f16_f16_mn_disable", "f16", "f16", "f16", "f16", 8,
     ("MN", "128", 0, 2048, 1024), ("K", "64", 0, 0, 512), 1, 0, 0, 0),
]
# fp6/fp4 .sp (kind::f8f6f4, 2:4 as for e4m3): the compressed A (32 elements a row) padded in
# shared memory like a dense fp6/fp4 operand (CUTLASS's sparse SM100 builder takes the same
# unpacksmem types for A and B, sm100_sparse_umma_builder.inl:150-158).
MMA_SP["tcgen05_mma_sp_e2m1_e3m2_f32_sw32_none"] = 0
MMA_SP["tcgen05_mma_sp_e3m2_e2m1_f32_sw128_step1"] = 1
MMA_CASES += [
    ("tcgen05_mma_sp_e2m1_e3m2_f32_sw32_none", "f8f6f4", "f32", "e2m1", "e3m2", 16,
     ("K", "32", 0, 0, 256), ("K", "none", 0, 128, 512), 1, 0, 0, 0),
    ("tcgen05_mma_sp_e3m2_e2m1_f32_sw128_step1", "f8f6f4", "f32", "e3m2", "e2m1", 24,
     ("K", "128", 0, 0, 1024), ("MN", "64", 0, 0, 512), 1, 1, 0, 0),
]
MMA_DISABLE["tcgen05_mma_sp_f16_f16_mn_disable"] = (0x00FF00FF, 0, 0x80000000, 0x7)
# scale-input-d cases: name -> the scale (D = A.B + D * 2^-scale, kind::f16 and kind::tf32).
MMA_SCALE = {
    "tcgen05_mma_scale_d_f16_f32_s3": 3,
    "tcgen05_mma_scale_d_tf32_f32_tmem_s15": 15,
    "tcgen05_mma_scale_d_f16_f16_s1": 1,
    "tcgen05_mma_sp_scale_d_bf16_f32_s7": 7,
}
MMA_SP["tcgen05_mma_sp_scale_d_bf16_f32_s7"] = 2
MMA_CASES += [
    ("tcgen05_mma_scale_d_f16_f32_s3", "f16", "f32", "f16", "f16", 16,
     ("K", "128", 0, 0, 1024), ("K", "none", 0, 128, 256), 1, 0, 0, 0),
    ("tcgen05_mma_scale_d_tf32_f32_tmem_s15", "tf32", "f32", "tf32", "tf32", 16,
     "tmem", ("K", "128", 0, 0, 1024), 1, 0, 0, 0),
    ("tcgen05_mma_scale_d_f16_f16_s1", "f16", "f16", "f16", "f16", 16,
     ("K", "none", 0, 128, 256), ("MN", "32", 0, 0, 256), 1, 0, 0, 0),
    ("tcgen05_mma_sp_scale_d_bf16_f32_s7", "f16", "f32", "bf16", "bf16", 16,
     ("K", "64", 0, 0, 512), ("K", "128", 0, 0, 1024), 1, 0, 0, 0),
]
# .ws cases: name -> (M, zero-column mask descriptor or None). A descriptor with Non-Zero
# Mask (bit 39) 0 gives an all-0 mask whatever its other fields (ISA Example 1).
MMA_WS = {
    "tcgen05_mma_ws_m32_f16_f32_sw128_none": (32, None),
    "tcgen05_mma_ws_m64_tf32_f32_tmem": (64, None),
    "tcgen05_mma_ws_m128_s8_s32_zmask0": (128, 0x0000_0203_0000_0000 | 0x0403_0201),
    "tcgen05_mma_ws_sp_m128_f16_f32_tmem": (128, None),
    "tcgen05_mma_ws_sp_m128_e5m2_f16_zmask": (128, 0),
}
MMA_SP["tcgen05_mma_ws_sp_m128_f16_f32_tmem"] = 1
MMA_SP["tcgen05_mma_ws_sp_m128_e5m2_f16_zmask"] = 0


def zcm_masks(desc, M, n):
    """The zero-column mask of a .ws MMA (PTX ISA "Zero-Column Mask Descriptor"), as the ISA's
    examples write it: one string per sub-mask (128 / M of them, N / (128 / M) columns each),
    most significant bit first; '1' = the column multiplies zeros. Each sub-mask i: runs
    alternating from its First Span value (bit 32 + i), a run of '1's (Skip Span, bits 40-47) + 1
    long, of '0's (Use Span, bits 48-55) + 1 long -- the lengths the ISA's Examples 2-4 and
    CUTLASS's MaskAndShiftB (mma_sm100_desc.hpp: skip_span_ "columns where 0 value is used")
    give; the table's descriptions name them the other way round -- its Start Count (byte i)
    lowest bits dropped. Non-Zero Mask (bit 39) 0: all '0'. Returns (masks, column shift)."""
    g = 128 // M
    w = n // g
    shift = desc >> 56 & 0x3F
    if not desc >> 39 & 1:
        return ["0" * w] * g, shift
    runs = {"1": (desc >> 40 & 0xFF) + 1, "0": (desc >> 48 & 0xFF) + 1}
    out = []
    for i in range(g):
        v = str(desc >> (32 + i) & 1)
        lsb_first = ""
        while len(lsb_first) < w + 256:
            lsb_first += v * runs[v]
            v = "1" if v == "0" else "0"
        sc = desc >> (8 * i) & 0xFF
        assert sc < runs[str(desc >> (32 + i) & 1)], "a start count past the first span: not described"
        out.append(lsb_first[sc:sc + w][::-1])
    return out, shift


def zcm_zero(desc, M, n):
    """(per D column: zeroed?, shift) from zcm_masks."""
    masks, shift = zcm_masks(desc, M, n)
    return [c == "1" for m in masks for c in reversed(m)], shift


# The ISA's Examples 2-4, verbatim (the masks' lowest bits).
assert zcm_masks(0x0003_0280_0000_0000, 128, 14)[0] == ["11100001110000"]
_m3 = zcm_masks(0x0003_0281_0000_0000, 64, 36)[0]
assert _m3[0].endswith("111" "0000" "111" "0000" "111") and _m3[1] == "0000" "111" "0000" "111" "0000"
_m4, _s4 = zcm_masks(0x0203_0283_0102_0100, 32, 56)
assert _s4 == 2 and [x[-len(e):] for x, e in zip(_m4, ["0000111" "0000111", "0000111" "000011",
                                                      "111" "0000" "11100", "111" "0000" "111000"])] \
    == ["0000111" "0000111", "0000111" "000011", "111" "0000" "11100", "111" "0000" "111000"]

# Masks that zero columns, with and without a column shift: (M, descriptor). The shift's
# instruction-descriptor field (bits 30-31, "maximum shift while attempting B matrix reuse in
# .ws": 1 = 8, 2 = 16, 3 = 32) is set to cover it.
MMA_WS.update({
    # sc0 2, fs0 1, runs of 3 zero columns and 5 used.
    "tcgen05_mma_ws_m128_f16_f32_zmask": (128, 0x0004_0281_0000_0002),
    # The ISA's Example 4 descriptor (shift 2).
    "tcgen05_mma_ws_m32_bf16_f32_zmask_shift2": (32, 0x0203_0283_0102_0100),
    # fs {fs1, fs0} = {0, 1}, sc {3, 0}, single zero columns between runs of 7, shift 32 (the
    # maximum).
    "tcgen05_mma_ws_m64_s8_s32_zmask_shift32": (64, 0x2006_0081_0000_0300),
    # .ws.sp: fs0 0, sc0 3, runs of 6 zero columns and 10 used, shift 8.
    "tcgen05_mma_ws_sp_m128_bf16_f32_zmask_shift8": (128, 0x0809_0580_0000_0003),
})
MMA_SP["tcgen05_mma_ws_sp_m128_bf16_f32_zmask_shift8"] = 2
MMA_CASES += [
    ("tcgen05_mma_ws_m128_f16_f32_zmask", "f16", "f32", "f16", "f16", 64,
     ("K", "128", 0, 0, 1024), ("K", "none", 0, 128, 256), 1, 0, 0, 0),
    ("tcgen05_mma_ws_m32_bf16_f32_zmask_shift2", "f16", "f32", "bf16", "bf16", 64,
     "tmem", ("K", "64", 0, 0, 512), 1, 0, 0, 0),
    ("tcgen05_mma_ws_m64_s8_s32_zmask_shift32", "i8", "s32", "s8", "s8", 128,
     ("K", "32", 0, 0, 256), ("K", "32", 0, 0, 256), 1, 0, 0, 0),
    ("tcgen05_mma_ws_sp_m128_bf16_f32_zmask_shift8", "f16", "f32", "bf16", "bf16", 64,
     ("K", "64", 0, 0, 512), ("K", "128", 0, 0, 1024), 1, 0, 0, 0),
]
MMA_CASES += [
    ("tcgen05_mma_ws_m32_f16_f32_sw128_none", "f16", "f32", "f16", "f16", 64,
     ("K", "128", 0, 0, 1024), ("K", "none", 0, 128, 256), 1, 0, 0, 0),
    ("tcgen05_mma_ws_m64_tf32_f32_tmem", "tf32", "f32", "tf32", "tf32", 128,
     "tmem", ("MN", "128", 0, 1024, 4096), 1, 0, 1, 0),
    ("tcgen05_mma_ws_m128_s8_s32_zmask0", "i8", "s32", "s8", "s8", 64,
     ("K", "32", 0, 0, 256), ("K", "32", 0, 0, 256), 1, 0, 0, 0),
    ("tcgen05_mma_ws_sp_m128_f16_f32_tmem", "f16", "f32", "f16", "f16", 64,
     "tmem", ("K", "none", 0, 128, 512), 1, 0, 0, 0),
    ("tcgen05_mma_ws_sp_m128_e5m2_f16_zmask", "f8f6f4", "f16", "e5m2", "e5m2", 128,
     ("K", "32", 0, 0, 256), ("K", "64", 0, 0, 512), 0, 0, 0, 0),
]
# .ashift cases (A in Tensor Memory, M = 128), and the collector qualifier some carry (a hint
# for ptxvm).
MMA_ASHIFT = {
    "tcgen05_mma_ashift_f16_f32",
    "tcgen05_mma_ashift_tf32_f32_disable",
    "tcgen05_mma_ashift_u8_s32",
    "tcgen05_mma_ashift_s8_s32_disable",
    "tcgen05_mma_sp_ashift_bf16_f32",
    "tcgen05_mma_sp_ashift_e4m3_f32_disable",
    "tcgen05_mma_sp_ashift_s8_s32",
    "tcgen05_mma_sp_ashift_u8_s32_disable",
    "tcgen05_mma_sp_ashift_f16_f16_disable",
}
MMA_COLLECTOR = {
    "tcgen05_mma_ashift_f16_f32": ".collector::a::lastuse",
    "tcgen05_mma_sp_ashift_s8_s32": ".collector::a::discard",
    "tcgen05_mma_f16_f32_tmem_disable": ".collector::a::fill",
}
MMA_SP.update({
    "tcgen05_mma_sp_ashift_bf16_f32": 1,
    "tcgen05_mma_sp_ashift_e4m3_f32_disable": 0,
    "tcgen05_mma_sp_ashift_s8_s32": 1,
    "tcgen05_mma_sp_ashift_u8_s32_disable": 0,
    "tcgen05_mma_sp_ashift_f16_f16_disable": 3,
    "tcgen05_mma_sp_tf32_f32_tmem_disable": 2,
    "tcgen05_mma_sp_u8_u8_s32_sw128_disable": 1,
    "tcgen05_mma_sp_s8_s8_s32_tmem_disable": 0,
})
MMA_DISABLE.update({
    "tcgen05_mma_ashift_tf32_f32_disable": (0x1, 0xFFFF0000, 0, 0x0F0F0F0F),
    "tcgen05_mma_ashift_s8_s32_disable": (0, 0x80000000, 0x12345678, 0),
    "tcgen05_mma_sp_ashift_e4m3_f32_disable": (0xF0000000, 0, 0, 0x3),
    "tcgen05_mma_sp_ashift_u8_s32_disable": (0, 0, 0xFFFFFFFF, 0x10),
    "tcgen05_mma_sp_ashift_f16_f16_disable": (0x80000001, 0x00FF0000, 0, 0x0000F000),
    "tcgen05_mma_f16_f32_tmem_disable": (0x00000003, 0x00010000, 0, 0xC0000000),
    "tcgen05_mma_sp_tf32_f32_tmem_disable": (0x0000FF00, 0, 0x1, 0),
    "tcgen05_mma_sp_u8_u8_s32_sw128_disable": (0, 0x00F00000, 0, 0x80000001),
    "tcgen05_mma_sp_s8_s8_s32_tmem_disable": (0xFFFFFFFE, 0, 0, 0),
})
MMA_CASES += [
    ("tcgen05_mma_ashift_f16_f32", "f16", "f32", "f16", "f16", 16,
     "tmem", ("K", "128", 0, 0, 1024), 1, 0, 0, 0),
    ("tcgen05_mma_ashift_tf32_f32_disable", "tf32", "f32", "tf32", "tf32", 8,
     "tmem", ("K", "none", 0, 128, 256), 1, 0, 0, 0),
    ("tcgen05_mma_ashift_u8_s32", "i8", "s32", "u8", "u8", 16,
     "tmem", ("K", "32", 0, 0, 256), 1, 0, 0, 0),
    ("tcgen05_mma_ashift_s8_s32_disable", "i8", "s32", "s8", "u8", 32,
     "tmem", ("MN", "64", 0, 0, 512), 1, 0, 0, 1),
    ("tcgen05_mma_sp_ashift_bf16_f32", "f16", "f32", "bf16", "bf16", 16,
     "tmem", ("K", "128", 0, 0, 1024), 1, 0, 0, 0),
    ("tcgen05_mma_sp_ashift_e4m3_f32_disable", "f8f6f4", "f32", "e4m3", "e4m3", 16,
     "tmem", ("K", "64", 0, 0, 512), 1, 0, 0, 0),
    ("tcgen05_mma_sp_ashift_s8_s32", "i8", "s32", "s8", "s8", 16,
     "tmem", ("K", "none", 0, 128, 512), 1, 0, 0, 0),
    ("tcgen05_mma_sp_ashift_u8_s32_disable", "i8", "s32", "u8", "s8", 32,
     "tmem", ("K", "64", 0, 0, 512), 1, 0, 0, 0),
    ("tcgen05_mma_f16_f32_tmem_disable", "f16", "f32", "f16", "f16", 16,
     "tmem", ("K", "none", 0, 128, 256), 1, 0, 0, 0),
    ("tcgen05_mma_sp_ashift_f16_f16_disable", "f16", "f16", "f16", "f16", 24,
     "tmem", ("K", "128", 0, 0, 1024), 1, 0, 1, 0),
    ("tcgen05_mma_sp_tf32_f32_tmem_disable", "tf32", "f32", "tf32", "tf32", 16,
     "tmem", ("K", "128", 0, 0, 1024), 1, 1, 0, 0),
    ("tcgen05_mma_sp_u8_u8_s32_sw128_disable", "i8", "s32", "u8", "u8", 16,
     ("K", "128", 0, 0, 1024), ("K", "none", 0, 128, 512), 1, 0, 0, 0),
    ("tcgen05_mma_sp_s8_s8_s32_tmem_disable", "i8", "s32", "s8", "s8", 24,
     "tmem", ("MN", "128", 0, 0, 1024), 1, 0, 0, 0),
]
# The meaningful 2:4 metadata fields of tcgen05.mma.sp (ISA "Sparse matrices"): two 2-bit
# indices, the first stored value's in bits 1:0 (0b0110 places the first value at 2, the
# second at 1). tf32 (1:2): 0b0100 (element 0) or 0b1110 (element 1).
SP_FIELDS = [0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b0110, 0b1110]
SP_FIELDS_TF32 = [0b0100, 0b1110]


def transpose_reshape(flat, shape, perm):
    """C-order reshape of the list `flat` to `shape`, transposed by `perm`, flattened again."""
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    tshape = [shape[p] for p in perm]
    out = []
    idx = [0] * len(shape)
    total = len(flat)
    for _ in range(total):
        src = sum(idx[j] * strides[perm[j]] for j in range(len(shape)))
        out.append(flat[src])
        for j in range(len(shape) - 1, -1, -1):
            idx[j] += 1
            if idx[j] < tshape[j]:
                break
            idx[j] = 0
    return out


def sp_meta_tmem(meta, bits):
    """The Tensor Memory image (128 lanes x 4 columns) of a 128-row, K = 128 metadata tile:
    meta[m][q] are the row's 64 2-bit indices (q = 2 chunk + j). JAX's Mosaic GPU
    `format_tcgen05_sparse_metadata`: for 8-bit operands row m as is; for 16-bit ones
    reshape (8, 2, 8, 4, 2, 8), transpose (0, 4, 2, 3, 1, 5) of the (m, q) digits, i.e.
    the (128, 64) result [A, E, C, D, B, F] of meta[16A + 8B + C][16D + 8E + F] (the leading
    tile dimensions of size 1 dropped). The (128, 64) array of 2-bit values then goes to
    Tensor Memory a row per lane, element s at bit 2 s of the row's 128 bits (XLA packs
    sub-byte elements from the low bits; the copy is row r -> lane r, bytes in order)."""
    flat = [meta[m][q] for m in range(128) for q in range(64)]
    if bits != 8:
        flat = transpose_reshape(flat, [8, 2, 8, 4, 2, 8], [0, 4, 2, 3, 1, 5])
    words = []
    for lane in range(128):
        row = flat[64 * lane:64 * lane + 64]
        for w in range(4):
            words.append(sum(row[16 * w + j] << (2 * j) for j in range(16)))
    return words


def row_lane(M, lane0, m):
    """The Tensor Memory lane of row m of D (or A): Layout D (M = 128) lane m; Layout F
    (M = 64, "4x1, 1/2 datapath utilized", lane alignment 0 or 16; CUTLASS's M64 atom
    ((16, 4), N):((1, 32), 128)) lane lane0 + 32 (m / 16) + m % 16."""
    return m if M == 128 else lane0 + 32 * (m // 16) + m % 16


def ws_pos(M, n, m, nn):
    """(lane, column) of D's element (m, nn) for `.ws` with M rows and N = n: CUTLASS's
    `tmem_frg_ws` atom (M = 32: (32, (N/4, 4)) : (1, (128, 32)); M = 64: (64, (N/2, 2)) :
    (1, (128, 64)); M = 128: (128, N) : (1, 128)) in its virtual addressing lane + 128 column,
    evaluated at the column-major index m + M nn."""
    g = 128 // M
    shape = (M, (n // g, g)) if g > 1 else (M, n)
    stride = (1, (128, M)) if g > 1 else (1, 128)
    addr = evaluate(shape, stride, m + M * nn)
    return addr % 128, addr // 128


def mma_file(case):
    name, kind, d, at, bt, n, asrc, bsrc, en, na, nb, sat = case
    ws = name in MMA_WS
    M = MMA_WS[name][0] if ws else 64 if name in MMA_M64 else 128
    dlane, alane = MMA_M64.get(name, (0, 0))
    rng = tc_ref.SplitMix64(tc_ref.seed_of(name))
    bits = 8 if at in PADDED else wgmma_ref.BITS[at]
    sp = name in MMA_SP
    ashift = name in MMA_ASHIFT
    scale = MMA_SCALE.get(name, 0)
    k = 256 // bits * (2 if sp else 1)
    ka = k // 2 if sp else k  # A's stored columns
    T = 128 // bits
    center = rng.next()

    def rand(t):
        v = tc_ref.rand_elem(rng, t)
        return v if v is not None else tc_ref.gen_bits(t, rng.next(), 1, center)

    if sp:
        # A structured-sparse dense A: per chunk a meaningful field of the ISA's list; its
        # stored values at the indices the field names (zeros elsewhere). The metadata tile
        # (K = 128: 64 2-bit indices a row) holds random fields for the other k-steps.
        cw = 2 if at == "tf32" else 4
        fields_of = SP_FIELDS_TF32 if at == "tf32" else SP_FIELDS
        steps = 2 if bits == 8 else 4
        per_step = 64 // steps  # 2-bit indices per k-step and row
        ks = MMA_SP[name]
        meta = [[rng.next() & 3 for _ in range(64)] for _ in range(128)]
        A, AC = [], []
        for m in range(M):
            row, comp = [0] * k, []
            for ch in range(k // cw):
                f = fields_of[rng.next() % len(fields_of)]
                q = ks * per_step + 2 * ch
                meta[m][q], meta[m][q + 1] = f & 3, f >> 2
                if cw == 2:
                    v = rand(at)
                    row[ch * 2 + ((f >> 1) & 1)] = v
                    comp.append(v)
                else:
                    for j in range(2):
                        v = rand(at)
                        row[ch * 4 + ((f >> (2 * j)) & 3)] = v
                        comp.append(v)
            A.append(row)
            AC.append(comp)
        meta_words = sp_meta_tmem(meta, bits)
        if bits == 8:
            meta_col, sel = 2 * ks, 0
        else:
            meta_col, sel = 2 * (ks // 2), ks % 2
    else:
        A = [[rand(at) for _ in range(k)] for _ in range(M)]
        AC = A
    zcm = MMA_WS.get(name, (0, None))[1]
    zero, zshift = zcm_zero(zcm, M, n) if zcm is not None else ([False] * n, 0)
    # B: N + shift columns (D's column nn multiplies B's column nn + shift, or zeros).
    B = [[rand(bt) for _ in range(k)] for _ in range(n + zshift)]
    # The C image of every lane (row m of C is the lane row_lane(M, dlane, m)).
    CL = [[(tc_ref.rand_elem(rng, "s32", True) if d == "s32"
            else tc_ref.gen_bits(d, rng.next(), 1, center, ref=at)) for _ in range(n)]
          for _ in range(128)]
    def d_pos(m, nn):
        return ws_pos(M, n, m, nn) if ws else (row_lane(M, dlane, m), nn)

    C = [[CL[d_pos(m, nn)[0]][d_pos(m, nn)[1]] for nn in range(n)] for m in range(M)]
    img = bytearray(65536)
    end = 0
    if asrc != "tmem":
        for m in range(M):
            for kk in range(ka):
                end = max(end, place_elem(img, 0, asrc, T, m, kk, bits, at, AC[m][kk]))
    bbase = (end + 1023) // 1024 * 1024
    for nn in range(n + zshift):
        for kk in range(k):
            end = max(end, place_elem(img, bbase, bsrc, T, nn, kk, bits, bt, B[nn][kk]))
    img = img[:(end + 15) // 16 * 16]
    words = wgmma_ref.u32s(bytes(img))
    neg = lambda t, v, s: v ^ (1 << (tc_ref.width(t) - 1 + (13 if t == "tf32" else 0))) if s else v  # noqa: E731
    D = [[0] * n for _ in range(M)]
    for m in range(M):
        for nn in range(n):
            a = [neg(at, x, na) for x in A[m]]
            b = [0] * k if zero[nn] else [neg(bt, x, nb) for x in B[nn + zshift]]
            c = C[m][nn] if en else 0
            if d == "s32":
                D[m][nn] = tc_ref.dot_int(at, bt, a, b, c - (1 << 32) if c >> 31 else c, bool(sat)) & 0xFFFFFFFF
            else:
                # tcgen05's model: one block per 32 bytes of A (tc_ref's rtx-blackwell row).
                D[m][nn] = tc_ref.dot("rtx-blackwell", "mma", at, bt, d, d, a, b, c, scale if en else 0)
    dis = MMA_DISABLE.get(name)
    if dis:
        for m in range(M):
            lane = row_lane(M, dlane, m)
            if dis[lane // 32] >> (lane % 32) & 1:
                D[m] = list(C[m])
    dtype = {"f16": 0, "f32": 1, "s32": 2}[d]
    trans_a = asrc != "tmem" and asrc[0] == "MN"
    idesc = (sat << 3) | (dtype << 4) | (TYPE_CODE[at] << 7) | (TYPE_CODE[bt] << 10) | (na << 13) \
        | (nb << 14) | (int(trans_a) << 15) | (int(bsrc[0] == "MN") << 16) | ((n >> 3) << 17) \
        | ((M >> 4) << 24)
    if sp:
        idesc |= (1 << 2) | sel
    if zshift:
        idesc |= next(c for c in (1, 2, 3) if 4 << c >= zshift) << 30
    # A in Tensor Memory: row m in lane row_lane(M, alane, m), 32 bytes from column 256 (8
    # cells); other lanes 0.
    apacked = [0] * (128 * 8)
    for m in range(M):
        row = 0
        for kk in range(ka):
            row |= AC[m][kk] << (kk * bits)
        # (.ws with M < 128: A duplicated into every data-path group's lanes.)
        for lane in ([g * M + m for g in range(128 // M)] if ws else [row_lane(M, alane, m)]):
            apacked[8 * lane:8 * lane + 8] = [(row >> (32 * j)) & 0xFFFFFFFF for j in range(8)]
    # Every lane reads back its n cells of D's columns: D's rows where they are, C elsewhere.
    DL = [list(x) for x in CL]
    for m in range(M):
        for nn in range(n):
            lane, col = d_pos(m, nn)
            DL[lane][col] = D[m][nn]
    cflat = [CL[lane][j] for lane in range(128) for j in range(n)]
    # .ashift: A's rows (lanes 0..M-1 of its 8 columns) move down by one, row 0 keeps its
    # contents (ISA: "shifts the rows of the A matrix down by one row, except for the last
    # row"; what row 0 becomes is not said: ptxvm's choice).
    ashifted = list(apacked)
    if ashift:
        for lane in range(1, M):
            ashifted[8 * lane:8 * lane + 8] = apacked[8 * (lane - 1):8 * lane]
    dflat = [DL[lane][j] for lane in range(128) for j in range(n)]
    L = [
        HEADER,
        f".visible .entry {name}(.param .u64 img, .param .u64 cin, .param .u64 ain, .param .u64 out"
        + (", .param .u64 min" if sp else "") + (", .param .u64 aout)" if ashift else ")"),
        "{",
        "\t.reg .b32 %r<32>;",
        "\t.reg .b32 %v<8>;",
        "\t.reg .b64 %rd<16>;",
        "\t.reg .pred %p<4>;",
        "\t.shared .align 1024 .b8 smem[32768];",
        "\t.shared .align 8 .b64 mbar;",
        "\t.shared .align 4 .b32 slot;",
        "\tld.param.u64 %rd0, [img];",
        "\tcvta.to.global.u64 %rd0, %rd0;",
        "\tld.param.u64 %rd1, [cin];",
        "\tcvta.to.global.u64 %rd1, %rd1;",
        "\tld.param.u64 %rd2, [ain];",
        "\tcvta.to.global.u64 %rd2, %rd2;",
        "\tld.param.u64 %rd3, [out];",
        "\tcvta.to.global.u64 %rd3, %rd3;",
        "\tmov.u32 %r0, %tid.x;",
        "\tshr.u32 %r1, %r0, 5;",
        "\tmov.u32 %r2, smem;",
        "\t// copy the shared-memory image",
        "\tmov.u32 %r3, %r0;",
        "COPY:",
        f"\tsetp.ge.u32 %p0, %r3, {len(words)};",
        "\t@%p0 bra COPIED;",
        "\tmul.wide.u32 %rd4, %r3, 4;",
        "\tadd.u64 %rd5, %rd0, %rd4;",
        "\tld.global.u32 %r4, [%rd5];",
        "\tshl.b32 %r5, %r3, 2;",
        "\tadd.u32 %r6, %r2, %r5;",
        "\tst.shared.u32 [%r6], %r4;",
        "\tadd.u32 %r3, %r3, 128;",
        "\tbra.uni COPY;",
        "COPIED:",
        "\tsetp.ne.u32 %p1, %r1, 0;",
        "\t@%p1 bra SKIP_ALLOC;",
        "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 512;",
        "SKIP_ALLOC:",
        "\tsetp.ne.u32 %p1, %r0, 0;",
        "\t@%p1 bra SKIP_INIT;",
        "\tmbarrier.init.shared::cta.b64 [mbar], 1;",
        "SKIP_INIT:",
        "\ttcgen05.fence::before_thread_sync;",
        "\tbar.sync 0;",
        "\ttcgen05.fence::after_thread_sync;",
        "\tld.shared.b32 %r7, [slot];",
        "\tshl.b32 %r8, %r1, 21;",
        "\tadd.u32 %r9, %r7, %r8;",
        "\t// C: row tid of D (columns 0..N), A: row tid at column 256 (32 bytes)",
    ]
    for c0 in range(0, n, 8):
        L.append(f"\tmul.wide.u32 %rd6, %r0, {4 * n};")
        L.append("\tadd.u64 %rd7, %rd1, %rd6;")
        for j in range(8):
            L.append(f"\tld.global.u32 %v{j}, [%rd7+{4 * (c0 + j)}];")
        L.append(f"\tadd.u32 %r10, %r9, {c0};")
        L.append("\ttcgen05.st.sync.aligned.32x32b.x8.b32 [%r10], {%v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7};")
    L.append("\tmul.wide.u32 %rd6, %r0, 32;")
    L.append("\tadd.u64 %rd7, %rd2, %rd6;")
    for j in range(8):
        L.append(f"\tld.global.u32 %v{j}, [%rd7+{4 * j}];")
    L.append("\tadd.u32 %r10, %r9, 256;")
    L.append("\ttcgen05.st.sync.aligned.32x32b.x8.b32 [%r10], {%v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7};")
    if sp:
        L.append("\t// the metadata tile: row tid at column 320 (4 columns)")
        L.append("\tld.param.u64 %rd10, [min];")
        L.append("\tcvta.to.global.u64 %rd10, %rd10;")
        L.append("\tmul.wide.u32 %rd6, %r0, 16;")
        L.append("\tadd.u64 %rd7, %rd10, %rd6;")
        L.append("\tld.global.v4.u32 {%v0, %v1, %v2, %v3}, [%rd7];")
        L.append("\tadd.u32 %r10, %r9, 320;")
        L.append("\ttcgen05.st.sync.aligned.32x32b.x4.b32 [%r10], {%v0, %v1, %v2, %v3};")
    L.append("\ttcgen05.wait::st.sync.aligned;")
    L.append("\ttcgen05.fence::before_thread_sync;")
    L.append("\tbar.sync 0;")
    L.append("\ttcgen05.fence::after_thread_sync;")
    L.append("\t@%p1 bra SKIP_MMA;")
    if asrc != "tmem":
        L.append(f"\tadd.u32 %r11, %r2, {asrc[2]};")
        L.append("\tshr.u32 %r11, %r11, 4;")
        L.append("\tand.b32 %r11, %r11, 0x3fff;")
        L.append("\tcvt.u64.u32 %rd8, %r11;")
        L.append(f"\tor.b64 %rd8, %rd8, {sm100_desc(asrc[3], asrc[4], asrc[1]):#x};")
    L.append(f"\tadd.u32 %r12, %r2, {bbase + bsrc[2]};")
    L.append("\tshr.u32 %r12, %r12, 4;")
    L.append("\tand.b32 %r12, %r12, 0x3fff;")
    L.append("\tcvt.u64.u32 %rd9, %r12;")
    L.append(f"\tor.b64 %rd9, %rd9, {sm100_desc(bsrc[3], bsrc[4], bsrc[1]):#x};")
    L.append(f"\tmov.u32 %r13, {idesc:#x};")
    L.append(f"\tsetp.{'eq' if en else 'ne'}.u32 %p2, %r0, %r0;")
    L.append(f"\tadd.u32 %r14, %r7, {256 + (alane << 16):#x};")
    L.append(f"\tadd.u32 %r20, %r7, {dlane << 16:#x};")
    aop = "[%r14]" if asrc == "tmem" else "%rd8"
    mop = ""
    if sp:
        L.append(f"\tadd.u32 %r21, %r7, {320 + meta_col};")
        mop = "[%r21], "
    spm = (".ws" if ws else "") + (".sp" if sp else "")
    tail = f", {scale}" if name in MMA_SCALE else ""
    if ws and MMA_WS[name][1] is not None:
        L.append(f"\tmov.b64 %rd11, {MMA_WS[name][1]:#x};")
        tail = ", %rd11"
    kmods = (".ashift" if name in MMA_ASHIFT else "") + MMA_COLLECTOR.get(name, "")
    if dis:
        for j, x in enumerate(dis):
            L.append(f"\tmov.u32 %r{16 + j}, {x:#x};")
        L.append(f"\ttcgen05.mma{spm}.cta_group::1.kind::{kind}{kmods} [%r20], {aop}, %rd9, {mop}%r13, {{%r16, %r17, %r18, %r19}}, %p2{tail};")
    else:
        L.append(f"\ttcgen05.mma{spm}.cta_group::1.kind::{kind}{kmods} [%r20], {aop}, %rd9, {mop}%r13, %p2{tail};")
    L.append("\tmov.u32 %r15, mbar;")
    L.append("\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r15];")
    L.append("SKIP_MMA:")
    L.append("WAIT:")
    L.append("\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [mbar], 0;")
    L.append("\t@!%p3 bra WAIT;")
    L.append("\ttcgen05.fence::after_thread_sync;")
    for c0 in range(0, n, 8):
        L.append(f"\tadd.u32 %r10, %r9, {c0};")
        L.append("\ttcgen05.ld.sync.aligned.32x32b.x8.b32 {%v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7}, [%r10];")
        L.append("\ttcgen05.wait::ld.sync.aligned;")
        L.append(f"\tmul.wide.u32 %rd6, %r0, {4 * n};")
        L.append("\tadd.u64 %rd7, %rd3, %rd6;")
        for j in range(8):
            L.append(f"\tst.global.u32 [%rd7+{4 * (c0 + j)}], %v{j};")
    if ashift:
        L.append("\t// A's 8 columns after the MMA (shifted down by one row)")
        L.append("\tld.param.u64 %rd12, [aout];")
        L.append("\tcvta.to.global.u64 %rd12, %rd12;")
        L.append("\tadd.u32 %r10, %r9, 256;")
        L.append("\ttcgen05.ld.sync.aligned.32x32b.x8.b32 {%v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7}, [%r10];")
        L.append("\ttcgen05.wait::ld.sync.aligned;")
        L.append("\tmul.wide.u32 %rd6, %r0, 32;")
        L.append("\tadd.u64 %rd7, %rd12, %rd6;")
        for j in range(8):
            L.append(f"\tst.global.u32 [%rd7+{4 * j}], %v{j};")
    L.append("\tsetp.ne.u32 %p1, %r1, 0;")
    epilogue(L)
    L[-6] = "\t@%p1 bra DONE;"
    L[-5] = "\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r7, 512;"
    head = [
        f"// `tcgen05.mma{'.sp' if sp else ''}.cta_group::1.kind::{kind}` on sm_100a: M = {M}, N = {n}, K = {k}, D {d}, A {at}, B {bt},",
        *([f"// sparse A ({ka} stored columns of a structured-sparse A, meaningful metadata fields of the ISA's",
           f"// list), metadata tile at column 320 as JAX's Mosaic GPU lays it out, this MMA's at column",
           f"// 320 + {meta_col} with sparsity selector {sel} (k-step {MMA_SP[name]} of the tile; the other",
           "// k-steps' fields random); expected D from the dense product of the decompressed A,"] if sp else []),
        *([f"// scale-input-d {scale}: D = A.B + D * 2^-{scale} (C enters the sum as that exact value),"]
          if name in MMA_SCALE else []),
        *([f"// .ws (weight-stationary) M = {M}: D's element (m, n) at the lane/column of CUTLASS's",
           "// tmem_frg_ws layout (N split into 128 / M groups of lanes), A in Tensor Memory duplicated",
           "// into every group's lanes"
           + (f"; zero-column mask descriptor {MMA_WS[name][1]:#x} (Non-Zero Mask 0: no column zeroed)"
              if MMA_WS[name][1] is not None and not MMA_WS[name][1] >> 39 & 1 and not zshift else "")
           + ","] if ws else []),
        *([f"// zero-column mask descriptor {zcm:#x}: sub-masks (most significant bit first, '1' = the",
           f"// column multiplies zeros) {', '.join(zcm_masks(zcm, M, n)[0])}, column shift {zshift}",
           "// (D's column c multiplies B's column c + shift; B holds N + shift columns): the ISA's",
           "// examples' spans (a run of 1s Skip Span + 1 long, of 0s Use Span + 1) and CUTLASS's",
           "// MaskAndShiftB,"] if zcm is not None and (zcm >> 39 & 1 or zshift) else []),
        *(["// .ashift: after the MMA, A's rows in Tensor Memory shift down by one (row 0 kept),",
           "// read back as the last argument,"] if ashift else []),
        *([f"// (Layout F: row m in lane {dlane} + 32 (m / 16) + m % 16 for D"
           + (f", lane {alane} + ... for A" if asrc == "tmem" else "")
           + "; the other lanes keep their C)"] if M == 64 else []),
        f"// A {'from Tensor Memory' if asrc == 'tmem' else 'K-major' if asrc[0] == 'K' else 'MN-major'}"
        + ("" if asrc == "tmem" else f" ({asrc[1]} swizzle, LBO {asrc[3]}, SBO {asrc[4]})")
        + f", B {bsrc[0]}-major ({bsrc[1]} swizzle, LBO {bsrc[3]}, SBO {bsrc[4]}), enable-input-d {en},",
        f"// negate A {na}, negate B {nb}, saturate {sat}"
        + (f", disable-output-lane {{{', '.join(hex(x) for x in dis)}}} (those lanes keep C)" if dis else "")
        + "; issued by thread 0, completed through",
        *(["// fp6/fp4 operands: each in the place of an 8-bit element of the layout, the 16 elements of",
           "// each 16-byte unit packed from bit 0 up, then 8 (fp4) or 4 (fp6) bytes of padding (the",
           "// CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B / 16U6_ALIGN16B image; see PADDED),"]
          if at in PADDED or bt in PADDED else []),
        "// tcgen05.commit on an mbarrier. Generated by tools/tcgen05_ref.py: the shared-memory image",
        "// from tools/wgmma_ref.py's canonical layouts (tcgen05 descriptor: version 1, swizzle codes",
        "// 0/2/4/6), D row m in lane m from D's column, A in Tensor Memory row m in lane m (elements",
        "// packed from bit 0 of A's column), expected D from tools/tc_ref.py's exact model of",
        "// tcgen05 (one block per 32 bytes of A).",
        "// run: --grid 1 --block 128 --arch sm_100a",
        f"// arg: u32[{len(words)}] = [{', '.join(hex(x) for x in words)}]",
        f"// arg: u32[{len(cflat)}] = [{', '.join(hex(x) for x in cflat)}]",
        f"// arg: u32[{len(apacked)}] = [{', '.join(hex(x) for x in apacked)}]",
        f"// arg: zeros:u32:{len(dflat)}",
        *([f"// arg: u32[{len(meta_words)}] = [{', '.join(hex(x) for x in meta_words)}]"] if sp else []),
        *([f"// arg: zeros:u32:{128 * 8}"] if ashift else []),
        f"// expect arg3: [{', '.join(hex(x) for x in dflat)}]",
        *([f"// expect arg{5 if sp else 4}: [{', '.join(hex(x) for x in ashifted)}]"] if ashift else []),
    ]
    write(os.path.join(ROOT, "tests/run/warp", name + ".ptx"), "\n".join(head) + "\n" + "\n".join(L))


# tcgen05.mma.cta_group::2 (the CTA pair of a 2-CTA cluster; dense): (name, kind, d, a, b, M, N,
# A source, B source, enable-input-d). The PTX ISA gives the pair's Layouts A (M = 256) and B
# (M = 128) as figures; the split is CUTLASS's 2-SM UMMA traits (SM100_MMA_*_2x1SM_*, text):
# CTA v of the pair (v = rank % 2) holds rows v M/2 .. (v+1) M/2 of A (its own shared memory
# through the same descriptor, or its Tensor Memory, row r in lane r), columns v N/2 .. of B
# (its shared memory: an N/2 x K matrix through the same descriptor) and rows v M/2 .. of D in
# its Tensor Memory: M = 256 row r in lane r (4x1); M = 128 ("2x2", tmem_frg_2sm's M = 64 atom)
# row r in lane r for columns n < N/2 and in lane 64 + r for the others, at column n % (N/2).
MMA_PAIR_CASES = [
    ("tcgen05_mma_pair_m256_f16_f32", "f16", "f32", "f16", "f16", 256, 32,
     ("K", "128", 0, 0, 1024), ("K", "none", 0, 128, 256), 1),
    ("tcgen05_mma_pair_m128_bf16_f32_tmem", "f16", "f32", "bf16", "bf16", 128, 32,
     "tmem", ("K", "128", 0, 0, 1024), 1),
    ("tcgen05_mma_pair_m256_s8_u8_s32_mn", "i8", "s32", "s8", "u8", 256, 16,
     ("MN", "64", 0, 2048, 512), ("K", "32", 0, 0, 256), 0),
    ("tcgen05_mma_pair_m128_tf32_f32", "tf32", "f32", "tf32", "tf32", 128, 48,
     ("K", "none", 0, 128, 256), ("MN", "128", 0, 0, 1024), 1),
    ("tcgen05_mma_pair_m256_e4m3_f32_disable", "f8f6f4", "f32", "e4m3", "e5m2", 256, 16,
     ("K", "128", 0, 0, 1024), ("K", "none", 0, 128, 256), 1),
    ("tcgen05_mma_pair_m128_u8_s32_tmem_disable", "i8", "s32", "u8", "s8", 128, 32,
     "tmem", ("K", "64", 0, 0, 512), 1),
    ("tcgen05_mma_pair_m256_bf16_f32_disable", "f16", "f32", "bf16", "bf16", 256, 64,
     ("K", "32", 0, 0, 256), ("MN", "64", 0, 0, 512), 1),
    ("tcgen05_mma_pair_m256_tf32_f32_tmem_disable", "tf32", "f32", "tf32", "tf32", 256, 16,
     "tmem", ("K", "128", 0, 0, 1024), 1),
    ("tcgen05_mma_pair_ashift_f16_f32", "f16", "f32", "f16", "f16", 256, 32,
     "tmem", ("K", "none", 0, 128, 256), 1),
    ("tcgen05_mma_pair_ashift_s8_s32_disable", "i8", "s32", "s8", "u8", 256, 16,
     "tmem", ("K", "128", 0, 0, 1024), 1),
    ("tcgen05_mma_pair_sp_f16_f32", "f16", "f32", "f16", "f16", 256, 32,
     ("K", "128", 0, 0, 1024), ("K", "none", 0, 128, 512), 1),
    ("tcgen05_mma_pair_sp_s8_s32_tmem_disable", "i8", "s32", "s8", "u8", 256, 16,
     "tmem", ("K", "128", 0, 0, 1024), 1),
    ("tcgen05_mma_pair_sp_ashift_tf32_f32", "tf32", "f32", "tf32", "tf32", 256, 16,
     "tmem", ("K", "128", 0, 0, 1024), 1),
    ("tcgen05_mma_pair_sp_bf16_f32_tmem_disable", "f16", "f32", "bf16", "bf16", 256, 16,
     "tmem", ("K", "none", 0, 128, 512), 1),
    ("tcgen05_mma_pair_sp_e4m3_f32_disable", "f8f6f4", "f32", "e4m3", "e5m2", 256, 32,
     ("K", "64", 0, 0, 512), ("K", "128", 0, 0, 1024), 1),
    ("tcgen05_mma_pair_sp_ashift_u8_s32_disable", "i8", "s32", "u8", "u8", 256, 16,
     "tmem", ("K", "none", 0, 128, 512), 1),
]
# .ashift with .cta_group::2 (M = 256, A in Tensor Memory): "shifts the rows of the A matrix
# down by one row, except for the last row in the Tensor Memory" — read here as within each
# CTA's Tensor Memory (as .cta_group::1: rows 0..126 move to 1..127, row 0 kept, ptxvm's choice);
# A's 8 columns are read back after the MMA.
# .sp with .cta_group::2 (M = 256): name -> the k-step of the metadata tile this MMA uses.
# fp6/fp4 operands with .cta_group::2 (each CTA's shared memory padded as for .cta_group::1).
MMA_PAIR_CASES += [
    ("tcgen05_mma_pair_m256_e2m1_e3m2_f32", "f8f6f4", "f32", "e2m1", "e3m2", 256, 32,
     ("K", "128", 0, 0, 1024), ("MN", "64", 0, 0, 512), 1),
    ("tcgen05_mma_pair_m128_e2m3_e4m3_f32_nod", "f8f6f4", "f32", "e2m3", "e4m3", 128, 16,
     ("MN", "32", 0, 1024, 256), ("K", "none", 0, 128, 256), 0),
]
MMA_PAIR_SP = {"tcgen05_mma_pair_sp_f16_f32": 1, "tcgen05_mma_pair_sp_s8_s32_tmem_disable": 0,
               "tcgen05_mma_pair_sp_ashift_tf32_f32": 1, "tcgen05_mma_pair_sp_bf16_f32_tmem_disable": 2,
               "tcgen05_mma_pair_sp_e4m3_f32_disable": 1, "tcgen05_mma_pair_sp_ashift_u8_s32_disable": 0}
MMA_PAIR_ASHIFT = {"tcgen05_mma_pair_sp_ashift_tf32_f32", "tcgen05_mma_pair_sp_ashift_u8_s32_disable", "tcgen05_mma_pair_ashift_f16_f32", "tcgen05_mma_pair_ashift_s8_s32_disable"}
# disable-output-lane of .cta_group::2: eight words, "each bit corresponds to a lane of the Tensor
# Memory" (ISA); ptxvm's reading: bits 0-127 the even CTA's lanes, 128-255 the odd CTA's. Those
# lanes keep their C.
MMA_PAIR_DISABLE = {
    "tcgen05_mma_pair_sp_f16_f32": (0x1, 0, 0, 0, 0, 0, 0x00FF0000, 0),
    "tcgen05_mma_pair_sp_bf16_f32_tmem_disable": (0, 0x80000000, 0, 0x1, 0xF, 0, 0, 0),
    "tcgen05_mma_pair_sp_e4m3_f32_disable": (0, 0, 0xFFFFFFFF, 0, 0, 0x10, 0, 0),
    "tcgen05_mma_pair_sp_ashift_u8_s32_disable": (0x2, 0, 0, 0, 0, 0, 0, 0x40000000),
    "tcgen05_mma_pair_sp_s8_s32_tmem_disable": (0, 0x0000FFFF, 0, 0, 0x80000001, 0, 0, 0),
    "tcgen05_mma_pair_sp_ashift_tf32_f32": (0x3, 0, 0, 0, 0, 0, 0x100, 0),
    "tcgen05_mma_pair_ashift_f16_f32": (0, 0, 0x00F0000F, 0, 0x1, 0, 0, 0x80000000),
    "tcgen05_mma_pair_ashift_s8_s32_disable": (0xFF, 0, 0, 0x80000000, 0, 0x10000, 0, 0),
    "tcgen05_mma_pair_m256_bf16_f32_disable": (0, 0xFFFFFFFF, 0, 0x00010000, 0x0000FF00, 0, 0x1, 0),
    "tcgen05_mma_pair_m256_tf32_f32_tmem_disable": (0x80000000, 0, 0x3, 0, 0, 0xC0000000, 0, 0xFFFF),
    "tcgen05_mma_pair_m256_e4m3_f32_disable": (0x0000FFFF, 0, 0x80000001, 0, 0, 0x12345678, 0, 0xF0000000),
    "tcgen05_mma_pair_m128_u8_s32_tmem_disable": (0x1, 0x00F00000, 0, 0xFFFF0000, 0x80000000, 0, 0x0F0F0F0F, 0x3),
}


def pair_d_pos(M, n, r, nn):
    """(lane, column) of row r (of the CTA's M/2) and column nn of D in its CTA's Tensor Memory."""
    if M == 256:
        return r, nn
    return r + 64 * (nn // (n // 2)), nn % (n // 2)


def mma_pair_file(case):
    name, kind, d, at, bt, M, n, asrc, bsrc, en = case
    rng = tc_ref.SplitMix64(tc_ref.seed_of(name))
    bits = 8 if at in PADDED else wgmma_ref.BITS[at]
    k = 256 // bits
    T = 128 // bits
    hm, hn = M // 2, n // 2
    center = rng.next()

    def rand(t):
        v = tc_ref.rand_elem(rng, t)
        return v if v is not None else tc_ref.gen_bits(t, rng.next(), 1, center)

    sp = name in MMA_PAIR_SP
    if sp:
        # As mma_file's sparse cases, per CTA: each CTA's 128 rows of a structured-sparse A
        # (meaningful fields of the ISA's list), its metadata tile in its own Tensor Memory at
        # column 320 (the M = 128 placement: the ISA draws one layout "for M = 128 / M = 256").
        k *= 2
        cw = 2 if at == "tf32" else 4
        fields_of = SP_FIELDS_TF32 if at == "tf32" else SP_FIELDS
        per_step = 64 // (2 if bits == 8 else 4)
        ks = MMA_PAIR_SP[name]
        meta = [[[rng.next() & 3 for _ in range(64)] for _ in range(128)] for _ in range(2)]
        A, AC = [], []
        for m in range(M):
            cv, r = divmod(m, hm)
            row, comp = [0] * k, []
            for ch in range(k // cw):
                f = fields_of[rng.next() % len(fields_of)]
                q = ks * per_step + 2 * ch
                meta[cv][r][q], meta[cv][r][q + 1] = f & 3, f >> 2
                if cw == 2:
                    x = rand(at)
                    row[ch * 2 + ((f >> 1) & 1)] = x
                    comp.append(x)
                else:
                    for j in range(2):
                        x = rand(at)
                        row[ch * 4 + ((f >> (2 * j)) & 3)] = x
                        comp.append(x)
            A.append(row)
            AC.append(comp)
        meta_words = [sp_meta_tmem(meta[cv], bits) for cv in range(2)]
        meta_col, sel = (2 * ks, 0) if bits == 8 else (2 * (ks // 2), ks % 2)
    else:
        A = [[rand(at) for _ in range(k)] for _ in range(M)]
        AC = A
    ka = k // 2 if sp else k
    B = [[rand(bt) for _ in range(k)] for _ in range(n)]
    CL = [[[(tc_ref.rand_elem(rng, "s32", True) if d == "s32"
             else tc_ref.gen_bits(d, rng.next(), 1, center, ref=at)) for _ in range(n)]
           for _ in range(128)] for _ in range(2)]
    D = [[0] * n for _ in range(M)]
    for m in range(M):
        v, r = divmod(m, hm)
        for nn in range(n):
            lane, col = pair_d_pos(M, n, r, nn)
            c = CL[v][lane][col] if en else 0
            if d == "s32":
                D[m][nn] = tc_ref.dot_int(at, bt, A[m], B[nn], c - (1 << 32) if c >> 31 else c, False) & 0xFFFFFFFF
            else:
                D[m][nn] = tc_ref.dot("rtx-blackwell", "mma", at, bt, d, d, A[m], B[nn], c, 0)
    # Each CTA's shared-memory image: its rows of A, its columns of B (same offsets in both).
    imgs, bbase = [], 0
    for v in range(2):
        img = bytearray(65536)
        end = 0
        if asrc != "tmem":
            for r in range(hm):
                for kk in range(ka):
                    end = max(end, place_elem(img, 0, asrc, T, r, kk, bits, at, AC[v * hm + r][kk]))
        bbase = max(bbase, (end + 1023) // 1024 * 1024)
        imgs.append((img, end))
    words_of = []
    for v in range(2):
        img, end = imgs[v]
        for j in range(hn):
            for kk in range(k):
                end = max(end, place_elem(img, bbase, bsrc, T, j, kk, bits, bt, B[v * hn + j][kk]))
        words_of.append((img, end))
    size = max(e for _, e in words_of)
    size = (size + 15) // 16 * 16
    words = [wgmma_ref.u32s(bytes(img[:size])) for img, _ in words_of]
    wlen = len(words[0])
    # A in Tensor Memory: CTA v's row r in lane r from column 256 (8 cells), other lanes 0.
    apacked = [[0] * (128 * 8) for _ in range(2)]
    for m in range(M):
        v, r = divmod(m, hm)
        row = 0
        for kk in range(ka):
            row |= AC[m][kk] << (kk * bits)
        apacked[v][8 * r:8 * r + 8] = [(row >> (32 * j)) & 0xFFFFFFFF for j in range(8)]
    dis = MMA_PAIR_DISABLE.get(name)
    DL = [[list(x) for x in CL[v]] for v in range(2)]
    for m in range(M):
        v, r = divmod(m, hm)
        for nn in range(n):
            lane, col = pair_d_pos(M, n, r, nn)
            if dis and dis[4 * v + lane // 32] >> (lane % 32) & 1:
                continue
            DL[v][lane][col] = D[m][nn]
    cflat = [CL[v][lane][j] for v in range(2) for lane in range(128) for j in range(n)]
    dflat = [DL[v][lane][j] for v in range(2) for lane in range(128) for j in range(n)]
    ashift = name in MMA_PAIR_ASHIFT
    ashifted = []
    for v in range(2):
        a = list(apacked[v])
        if ashift:
            for lane in range(127, 0, -1):
                a[8 * lane:8 * lane + 8] = apacked[v][8 * (lane - 1):8 * lane]
        ashifted += a
    dtype = {"f16": 0, "f32": 1, "s32": 2}[d]
    trans_a = asrc != "tmem" and asrc[0] == "MN"
    idesc = (dtype << 4) | (TYPE_CODE[at] << 7) | (TYPE_CODE[bt] << 10) | (int(trans_a) << 15) \
        | (int(bsrc[0] == "MN") << 16) | ((n >> 3) << 17) | ((M >> 4) << 24)
    if sp:
        idesc |= (1 << 2) | sel
    L = [
        HEADER,
        f".visible .entry {name}(.param .u64 img, .param .u64 cin, .param .u64 ain, .param .u64 out"
        + (", .param .u64 min" if sp else "") + (", .param .u64 aout)" if ashift else ")"),
        "{",
        "\t.reg .b32 %r<32>;",
        "\t.reg .b32 %v<8>;",
        "\t.reg .b64 %rd<16>;",
        "\t.reg .pred %p<4>;",
        "\t.shared .align 1024 .b8 smem[32768];",
        "\t.shared .align 8 .b64 mbar;",
        "\t.shared .align 4 .b32 slot;",
        "\tmov.u32 %r30, %cluster_ctarank;",
        "\tld.param.u64 %rd0, [img];",
        "\tcvta.to.global.u64 %rd0, %rd0;",
        f"\tmul.wide.u32 %rd4, %r30, {4 * wlen};",
        "\tadd.u64 %rd0, %rd0, %rd4;",
        "\tld.param.u64 %rd1, [cin];",
        "\tcvta.to.global.u64 %rd1, %rd1;",
        f"\tmul.wide.u32 %rd4, %r30, {4 * 128 * n};",
        "\tadd.u64 %rd1, %rd1, %rd4;",
        "\tld.param.u64 %rd2, [ain];",
        "\tcvta.to.global.u64 %rd2, %rd2;",
        f"\tmul.wide.u32 %rd4, %r30, {4 * 128 * 8};",
        "\tadd.u64 %rd2, %rd2, %rd4;",
        "\tld.param.u64 %rd3, [out];",
        "\tcvta.to.global.u64 %rd3, %rd3;",
        f"\tmul.wide.u32 %rd4, %r30, {4 * 128 * n};",
        "\tadd.u64 %rd3, %rd3, %rd4;",
        "\tmov.u32 %r0, %tid.x;",
        "\tshr.u32 %r1, %r0, 5;",
        "\tmov.u32 %r2, smem;",
        "\t// copy this CTA's shared-memory image",
        "\tmov.u32 %r3, %r0;",
        "COPY:",
        f"\tsetp.ge.u32 %p0, %r3, {wlen};",
        "\t@%p0 bra COPIED;",
        "\tmul.wide.u32 %rd4, %r3, 4;",
        "\tadd.u64 %rd5, %rd0, %rd4;",
        "\tld.global.u32 %r4, [%rd5];",
        "\tshl.b32 %r5, %r3, 2;",
        "\tadd.u32 %r6, %r2, %r5;",
        "\tst.shared.u32 [%r6], %r4;",
        "\tadd.u32 %r3, %r3, 128;",
        "\tbra.uni COPY;",
        "COPIED:",
        "\tsetp.ne.u32 %p1, %r1, 0;",
        "\t@%p1 bra SKIP_ALLOC;",
        "\ttcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [slot], 512;",
        "SKIP_ALLOC:",
        "\tsetp.ne.u32 %p1, %r0, 0;",
        "\t@%p1 bra SKIP_INIT;",
        "\tmbarrier.init.shared::cta.b64 [mbar], 1;",
        "SKIP_INIT:",
        "\ttcgen05.fence::before_thread_sync;",
        "\tbar.sync 0;",
        "\ttcgen05.fence::after_thread_sync;",
        "\tld.shared.b32 %r7, [slot];",
        "\tshl.b32 %r8, %r1, 21;",
        "\tadd.u32 %r9, %r7, %r8;",
        "\t// C: lane tid of D's columns, A: lane tid at column 256 (32 bytes)",
    ]
    for c0 in range(0, n, 8):
        L.append(f"\tmul.wide.u32 %rd6, %r0, {4 * n};")
        L.append("\tadd.u64 %rd7, %rd1, %rd6;")
        for j in range(8):
            L.append(f"\tld.global.u32 %v{j}, [%rd7+{4 * (c0 + j)}];")
        L.append(f"\tadd.u32 %r10, %r9, {c0};")
        L.append("\ttcgen05.st.sync.aligned.32x32b.x8.b32 [%r10], {%v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7};")
    L.append("\tmul.wide.u32 %rd6, %r0, 32;")
    L.append("\tadd.u64 %rd7, %rd2, %rd6;")
    for j in range(8):
        L.append(f"\tld.global.u32 %v{j}, [%rd7+{4 * j}];")
    L.append("\tadd.u32 %r10, %r9, 256;")
    L.append("\ttcgen05.st.sync.aligned.32x32b.x8.b32 [%r10], {%v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7};")
    if sp:
        L += ["\t// the metadata tile: lane tid at column 320 (4 columns)",
              "\tld.param.u64 %rd10, [min];",
              "\tcvta.to.global.u64 %rd10, %rd10;",
              f"\tmul.wide.u32 %rd4, %r30, {4 * 128 * 4};",
              "\tadd.u64 %rd10, %rd10, %rd4;",
              "\tmul.wide.u32 %rd6, %r0, 16;",
              "\tadd.u64 %rd7, %rd10, %rd6;",
              "\tld.global.v4.u32 {%v0, %v1, %v2, %v3}, [%rd7];",
              "\tadd.u32 %r10, %r9, 320;",
              "\ttcgen05.st.sync.aligned.32x32b.x4.b32 [%r10], {%v0, %v1, %v2, %v3};"]
    L += [
        "\ttcgen05.wait::st.sync.aligned;",
        "\ttcgen05.fence::before_thread_sync;",
        "\t// both CTAs' operands and mbarriers are in place before the even CTA issues",
        "\tbarrier.cluster.arrive;",
        "\tbarrier.cluster.wait;",
        "\ttcgen05.fence::after_thread_sync;",
        "\tor.b32 %r31, %r0, %r30;",
        "\tsetp.ne.u32 %p1, %r31, 0;",
        "\t@%p1 bra SKIP_MMA;",
    ]
    if asrc != "tmem":
        L.append(f"\tadd.u32 %r11, %r2, {asrc[2]};")
        L.append("\tshr.u32 %r11, %r11, 4;")
        L.append("\tand.b32 %r11, %r11, 0x3fff;")
        L.append("\tcvt.u64.u32 %rd8, %r11;")
        L.append(f"\tor.b64 %rd8, %rd8, {sm100_desc(asrc[3], asrc[4], asrc[1]):#x};")
    L.append(f"\tadd.u32 %r12, %r2, {bbase + bsrc[2]};")
    L.append("\tshr.u32 %r12, %r12, 4;")
    L.append("\tand.b32 %r12, %r12, 0x3fff;")
    L.append("\tcvt.u64.u32 %rd9, %r12;")
    L.append(f"\tor.b64 %rd9, %rd9, {sm100_desc(bsrc[3], bsrc[4], bsrc[1]):#x};")
    L.append(f"\tmov.u32 %r13, {idesc:#x};")
    L.append(f"\tsetp.{'eq' if en else 'ne'}.u32 %p2, %r0, %r0;")
    L.append("\tadd.u32 %r14, %r7, 256;")
    aop = "[%r14]" if asrc == "tmem" else "%rd8"
    if dis:
        for j, x in enumerate(dis):
            L.append(f"\tmov.u32 %r{16 + j}, {x:#x};")
        mask = "{" + ", ".join(f"%r{16 + j}" for j in range(8)) + "}, "
    else:
        mask = ""
    kmods = ".ashift" if ashift else ""
    mop = ""
    if sp:
        L.append(f"\tadd.u32 %r24, %r7, {320 + meta_col};")
        mop = "[%r24], "
    L.append(f"\ttcgen05.mma{'.sp' if sp else ''}.cta_group::2.kind::{kind}{kmods} [%r7], {aop}, %rd9, {mop}%r13, {mask}%p2;")
    L.append("\tmov.u32 %r15, mbar;")
    L.append("\tmov.b16 %rs1, 3;")
    L.append("\ttcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r15], %rs1;")
    L.append("SKIP_MMA:")
    L.append("WAIT:")
    L.append("\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [mbar], 0;")
    L.append("\t@!%p3 bra WAIT;")
    L.append("\ttcgen05.fence::after_thread_sync;")
    for c0 in range(0, n, 8):
        L.append(f"\tadd.u32 %r10, %r9, {c0};")
        L.append("\ttcgen05.ld.sync.aligned.32x32b.x8.b32 {%v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7}, [%r10];")
        L.append("\ttcgen05.wait::ld.sync.aligned;")
        L.append(f"\tmul.wide.u32 %rd6, %r0, {4 * n};")
        L.append("\tadd.u64 %rd7, %rd3, %rd6;")
        for j in range(8):
            L.append(f"\tst.global.u32 [%rd7+{4 * (c0 + j)}], %v{j};")
    if ashift:
        L += ["\t// A's 8 columns after the MMA (shifted down by one row)",
              "\tld.param.u64 %rd12, [aout];",
              "\tcvta.to.global.u64 %rd12, %rd12;",
              f"\tmul.wide.u32 %rd4, %r30, {4 * 128 * 8};",
              "\tadd.u64 %rd12, %rd12, %rd4;",
              "\tadd.u32 %r10, %r9, 256;",
              "\ttcgen05.ld.sync.aligned.32x32b.x8.b32 {%v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7}, [%r10];",
              "\ttcgen05.wait::ld.sync.aligned;",
              "\tmul.wide.u32 %rd6, %r0, 32;",
              "\tadd.u64 %rd7, %rd12, %rd6;"]
        for j in range(8):
            L.append(f"\tst.global.u32 [%rd7+{4 * j}], %v{j};")
    L += [
        "\ttcgen05.fence::before_thread_sync;",
        "\tbarrier.cluster.arrive;",
        "\tbarrier.cluster.wait;",
        "\ttcgen05.fence::after_thread_sync;",
        "\tsetp.ne.u32 %p1, %r1, 0;",
        "\t@%p1 bra DONE;",
        "\ttcgen05.dealloc.cta_group::2.sync.aligned.b32 %r7, 512;",
        "\ttcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;",
        "DONE:",
        "\tret;",
        "}",
        "",
    ]
    L.insert(L.index("\t.reg .pred %p<4>;") + 1, "\t.reg .b16 %rs<2>;")
    head = [
        f"// `tcgen05.mma.cta_group::2.kind::{kind}` on sm_100a, the CTA pair of a 2-CTA cluster: M = {M}, N = {n},",
        f"// K = {k}, D {d}, A {at}, B {bt}; A "
        + ("from Tensor Memory" if asrc == "tmem" else ("K-major" if asrc[0] == "K" else "MN-major")
                                                        + f" ({asrc[1]} swizzle, LBO {asrc[3]}, SBO {asrc[4]})")
        + f", B {bsrc[0]}-major ({bsrc[1]} swizzle, LBO {bsrc[3]}, SBO {bsrc[4]}), enable-input-d {en}.",
        "// Issued by thread 0 of the even CTA after both CTAs allocated (tcgen05.alloc.cta_group::2) and",
        "// stored C (and A); tcgen05.commit.cta_group::2 with .multicast::cluster (mask 0b11) arrives on",
        "// both CTAs' mbarriers. CTA v (v = rank) holds rows v M/2 .. of A (its shared memory through",
        "// the same descriptor, or its Tensor Memory, row r in lane r at column 256), columns v N/2 ..",
        "// of B (its shared memory, an N/2 x K matrix) and rows v M/2 .. of D at column 0: "
        + ("M = 256 row r in lane r (4x1)." if M == 256 else
           "M = 128 (2x2) row r in lane r for the columns n < N/2, lane 64 + r for the others, at column n % (N/2)."),
        "// The split is CUTLASS's 2-SM UMMA traits (SM100_MMA_*_2x1SM_*, tmem_frg_2sm): the ISA's",
        "// Layouts A and B are figures. Generated by tools/tcgen05_ref.py (shared-memory images from",
        "// tools/wgmma_ref.py's canonical layouts, expected D from tools/tc_ref.py's tcgen05 model).",
        *([f"// disable-output-lane {{{', '.join(hex(x) for x in dis)}}}: bits 0-127 CTA 0's lanes, 128-255",
           "// CTA 1's (ptxvm's reading of \"each bit corresponds to a lane of the Tensor Memory\"); those",
           "// lanes keep their C."] if dis else []),
        *([f"// .sp: K = {k} (A {ka} stored columns), each CTA's metadata tile in its own Tensor Memory at",
           f"// column 320 (the M = 128 placement, JAX's Mosaic GPU layout), this MMA's at 320 + {meta_col},",
           f"// selector {sel}; expected D from the dense product of the decompressed A."] if sp else []),
        *(["// .ashift: \"shifts the rows of the A matrix down by one row, except for the last row in the",
           "// Tensor Memory\": read as within each CTA's Tensor Memory (rows 0..126 to 1..127, row 0 kept,",
           "// ptxvm's choice); A's 8 columns read back as the last argument."] if ashift else []),
        "// Arguments and outputs: CTA 0's part, then CTA 1's.",
        "// run: --grid 2 --block 128 --cluster 2 --arch sm_100a",
        f"// arg: u32[{2 * wlen}] = [{', '.join(hex(x) for x in words[0] + words[1])}]",
        f"// arg: u32[{len(cflat)}] = [{', '.join(hex(x) for x in cflat)}]",
        f"// arg: u32[{2 * 128 * 8}] = [{', '.join(hex(x) for x in apacked[0] + apacked[1])}]",
        f"// arg: zeros:u32:{len(dflat)}",
        *([f"// arg: u32[{2 * 128 * 4}] = [{', '.join(hex(x) for x in meta_words[0] + meta_words[1])}]"] if sp else []),
        *([f"// arg: zeros:u32:{2 * 128 * 8}"] if ashift else []),
        f"// expect arg3: [{', '.join(hex(x) for x in dflat)}]",
        *([f"// expect arg{5 if sp else 4}: [{', '.join(hex(x) for x in ashifted)}]"] if ashift else []),
    ]
    write(os.path.join(ROOT, "tests/run/warp", name + ".ptx"), "\n".join(head) + "\n" + "\n".join(L))


# tcgen05.cp (shared memory -> Tensor Memory), .cta_group::1 without decompression:
# (file, shape, rows, bytes per row, multicast, (swizzle, offset, LBO, SBO), Tensor Memory column)
CP_CASES = [
    ("tcgen05_cp_128x256b_none", "128x256b", 128, 32, "", ("none", 0, 128, 256), 4),
    ("tcgen05_cp_128x256b_sw128", "128x256b", 128, 32, "", ("128", 0, 0, 1024), 3),
    ("tcgen05_cp_128x128b_sw32", "128x128b", 128, 16, "", ("32", 0, 0, 256), 5),
    ("tcgen05_cp_4x256b_none", "4x256b", 4, 32, "", ("none", 0, 128, 256), 2),
    ("tcgen05_cp_64x128b_02_13", "64x128b", 64, 16, ".warpx2::02_13", ("none", 0, 128, 128), 6),
    ("tcgen05_cp_64x128b_01_23_sw64", "64x128b", 64, 16, ".warpx2::01_23", ("64", 0, 0, 512), 1),
    ("tcgen05_cp_32x128b_warpx4", "32x128b", 32, 16, ".warpx4", ("none", 0, 128, 128), 8),
    # The decompressing forms (.b8x16.src_fmt; an eighth field: the element width). The ISA
    # gives where a 6- or 4-bit element lands only in figures, and tcgen05.md (PTX 9.0) has no
    # text on them: ptxvm's choice, the same as ldmatrix's decompressing forms, is that each
    # 16-byte chunk of a row (16 elements packed lowest first, then padding) becomes 16 bytes,
    # element i in the low bits of byte i.
    ("tcgen05_cp_128x256b_b6x16_p32", "128x256b", 128, 32, "", ("none", 0, 128, 256), 4, 6),
    ("tcgen05_cp_64x128b_02_13_b4x16_p64", "64x128b", 64, 16, ".warpx2::02_13", ("none", 0, 128, 128), 6, 4),
    ("tcgen05_cp_32x128b_warpx4_b6x16_p32", "32x128b", 32, 16, ".warpx4", ("32", 0, 0, 256), 8, 6),
]


def cp_unpack(chunk, bits):
    """A 16-byte chunk of 16 packed `bits`-bit elements (lowest first) and padding, as 16
    bytes, element i in the low bits of byte i."""
    v = int.from_bytes(bytes(chunk), "little")
    return [(v >> (bits * i)) & ((1 << bits) - 1) for i in range(16)]


def cp_dest_lanes(cast, r):
    """Tensor Memory lanes that receive source row r (ISA text: `.warpx4` multicasts into all 4
    warps; a `.warpx2` multicasts into the warp pairs, each warp of a pair receiving half the
    data: ptxvm's reading is rows 0-31 to the pair's lower warp, rows 32-63 to its upper one)."""
    if cast == "":
        return [r]
    if cast == ".warpx4":
        return [32 * w + r for w in range(4)]
    pairs = [(0, 2), (1, 3)] if cast == ".warpx2::02_13" else [(0, 1), (2, 3)]
    return [32 * pair[r // 32] + r % 32 for pair in pairs]


# tcgen05.cp.cta_group::2 (the CTA pair of a 2-CTA cluster): the same fields, and the rank of
# the CTA whose thread 0 issues the copy. ISA: "the data is copied into the Tensor Memory of both
# the current and the peer CTAs"; each CTA's from its own shared memory through the same
# descriptor (CUTLASS's SM100_UTCCP_*_2cta traits, stride 0 across the pair, and its 2-SM
# block-scaled collective, which loads each CTA's scale factors into that CTA's shared memory
# and copies them with one cta_group::2 copy). Each CTA's image differs.
CP_PAIR_CASES = [
    ("tcgen05_cp_pair_128x256b_sw128", "128x256b", 128, 32, "", ("128", 0, 0, 1024), 3, 0, 0),
    ("tcgen05_cp_pair_32x128b_warpx4_b4x16_p64", "32x128b", 32, 16, ".warpx4", ("none", 0, 128, 128), 8, 4, 1),
]


def cp_file(case, pair=False):
    name, shape, rows, nbytes, cast, (swz, off, lbo, sbo), tcol = case[:7]
    unpack = case[7] if len(case) > 7 else 0
    issuer = case[8] if pair else 0
    rng = tc_ref.SplitMix64(tc_ref.seed_of(name))
    NC = 16
    fmt = {0: "", 6: ".b8x16.b6x16_p32", 4: ".b8x16.b4x16_p64"}[unpack]
    op = f"tcgen05.cp.cta_group::{2 if pair else 1}.{shape}{cast}{fmt}"
    images, outs = [], []
    for _cta in range(2 if pair else 1):
        M = [[rng.next() & 0xFF for _ in range(nbytes)] for _ in range(rows)]
        # What lands in Tensor Memory: the row, or its chunks decompressed.
        D = M if not unpack else [
            [b for k in range(0, nbytes, 16) for b in cp_unpack(M[r][k:k + 16], unpack)] for r in range(rows)]
        img = bytearray(32768)
        end = 0
        for r in range(rows):
            for j in range(nbytes):
                end = max(end, wgmma_ref.place(img, off, "K", swz, 16, lbo, sbo, r, j, 8, M[r][j]))
        images.append(wgmma_ref.u32s(bytes(img[:(end + 15) // 16 * 16])))
        cell = {(lane, c): 0xA5000000 | (c << 8) | lane for lane in range(128) for c in range(NC)}
        for r in range(rows):
            for lane in cp_dest_lanes(cast, r):
                for c in range(nbytes // 4):
                    cell[(lane, tcol + c)] = sum(D[r][4 * c + b] << (8 * b) for b in range(4))
        outs.append([cell[(lane, c)] for lane in range(128) for c in range(NC)])
    wlen = max(len(w) for w in images)
    words = [x for w in images for x in w + [0] * (wlen - len(w))]
    out = [x for o in outs for x in o]
    vec16 = "{" + ", ".join(f"%v{j}" for j in range(NC)) + "}"
    L = [
        HEADER,
        f".visible .entry {name}(.param .u64 img, .param .u64 out)",
        "{",
        "\t.reg .b32 %r<32>;",
        "\t.reg .b32 %v<16>;",
        "\t.reg .b64 %rd<16>;",
        "\t.reg .pred %p<4>;",
        *(["\t.reg .b16 %rs<2>;"] if pair else []),
        "\t.shared .align 1024 .b8 smem[32768];",
        "\t.shared .align 8 .b64 mbar;",
        "\t.shared .align 4 .b32 slot;",
        "\tld.param.u64 %rd0, [img];",
        "\tcvta.to.global.u64 %rd0, %rd0;",
        "\tld.param.u64 %rd3, [out];",
        "\tcvta.to.global.u64 %rd3, %rd3;",
        "\tmov.u32 %r0, %tid.x;",
        "\tshr.u32 %r1, %r0, 5;",
        "\tmov.u32 %r2, smem;",
        "\tmov.u32 %r3, %r0;",
        *(["\tmov.u32 %r10, %cluster_ctarank;",
           f"\tmul.wide.u32 %rd4, %r10, {4 * wlen};",
           "\tadd.u64 %rd0, %rd0, %rd4;",
           f"\tmul.wide.u32 %rd4, %r10, {4 * 128 * NC};",
           "\tadd.u64 %rd3, %rd3, %rd4;"] if pair else []),
        "COPY:",
        f"\tsetp.ge.u32 %p0, %r3, {wlen};",
        "\t@%p0 bra COPIED;",
        "\tmul.wide.u32 %rd4, %r3, 4;",
        "\tadd.u64 %rd5, %rd0, %rd4;",
        "\tld.global.u32 %r4, [%rd5];",
        "\tshl.b32 %r5, %r3, 2;",
        "\tadd.u32 %r6, %r2, %r5;",
        "\tst.shared.u32 [%r6], %r4;",
        "\tadd.u32 %r3, %r3, 128;",
        "\tbra.uni COPY;",
        "COPIED:",
        "\tsetp.ne.u32 %p1, %r1, 0;",
        "\t@%p1 bra SKIP_ALLOC;",
        f"\ttcgen05.alloc.cta_group::{2 if pair else 1}.sync.aligned.shared::cta.b32 [slot], 32;",
        "SKIP_ALLOC:",
        "\tsetp.ne.u32 %p2, %r0, 0;",
        "\t@%p2 bra SKIP_INIT;",
        "\tmbarrier.init.shared::cta.b64 [mbar], 1;",
        "SKIP_INIT:",
        "\ttcgen05.fence::before_thread_sync;",
        "\tbar.sync 0;",
        "\ttcgen05.fence::after_thread_sync;",
        "\tld.shared.b32 %r7, [slot];",
        "\tshl.b32 %r8, %r1, 21;",
        "\tadd.u32 %r9, %r7, %r8;",
        f"\t// fill columns 0..{NC}: cell (lane L, column c) = 0xa5000000 | c << 8 | L",
    ]
    for c in range(NC):
        L.append(f"\tor.b32 %v{c}, %r0, {0xA5000000 | (c << 8):#x};")
    L += [f"\ttcgen05.st.sync.aligned.32x32b.x{NC}.b32 [%r9], {vec16};",
          "\ttcgen05.wait::st.sync.aligned;",
          "\ttcgen05.fence::before_thread_sync;",
          "\tbar.sync 0;",
          "\ttcgen05.fence::after_thread_sync;",
          *(["\tbarrier.cluster.arrive;",
             "\tbarrier.cluster.wait;",
             "\ttcgen05.fence::after_thread_sync;",
             f"\txor.b32 %r14, %r10, {issuer};",
             "\tor.b32 %r14, %r14, %r0;",
             "\tsetp.ne.u32 %p0, %r14, 0;",
             "\t@%p0 bra SKIP_CP;"] if pair else ["\t@%p2 bra SKIP_CP;"]),
          f"\tadd.u32 %r11, %r2, {off};",
          "\tshr.u32 %r11, %r11, 4;",
          "\tand.b32 %r11, %r11, 0x3fff;",
          "\tcvt.u64.u32 %rd8, %r11;",
          f"\tor.b64 %rd8, %rd8, {sm100_desc(lbo, sbo, swz):#x};",
          f"\tadd.u32 %r12, %r7, {tcol};",
          f"\t{op} [%r12], %rd8;",
          "\tmov.u32 %r15, mbar;",
          *(["\tmov.b16 %rs1, 3;",
             "\ttcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r15], %rs1;"]
            if pair else ["\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r15];"]),
          "SKIP_CP:",
          "WAIT:",
          "\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [mbar], 0;",
          "\t@!%p3 bra WAIT;",
          "\ttcgen05.fence::after_thread_sync;",
          f"\ttcgen05.ld.sync.aligned.32x32b.x{NC}.b32 {vec16}, [%r9];",
          "\ttcgen05.wait::ld.sync.aligned;",
          f"\tmul.wide.u32 %rd6, %r0, {4 * NC};",
          "\tadd.u64 %rd7, %rd3, %rd6;"]
    for c in range(NC):
        L.append(f"\tst.global.u32 [%rd7+{4 * c}], %v{c};")
    L += ["\ttcgen05.fence::before_thread_sync;",
          *(["\tbarrier.cluster.arrive;", "\tbarrier.cluster.wait;"] if pair else ["\tbar.sync 0;"]),
          "\ttcgen05.fence::after_thread_sync;",
          "\t@%p1 bra DONE;",
          f"\ttcgen05.dealloc.cta_group::{2 if pair else 1}.sync.aligned.b32 %r7, 32;",
          "DONE:",
          "\tret;",
          "}",
          ""]
    head = [
        f"// `{op}` on sm_100a: a {rows} x {nbytes}-byte matrix in shared memory (K-major,",
        f"// {swz} swizzle, LBO {lbo}, SBO {sbo}) copied by thread 0 to Tensor Memory column {tcol}, completed",
        "// through tcgen05.commit on an mbarrier; every warp then reads its 32 lanes x 16 columns",
        "// (filled before with 0xa5000000 | column << 8 | lane). Generated by tools/tcgen05_ref.py: the",
        "// image from tools/wgmma_ref.py's canonical layouts; row r goes to the lanes the ISA's",
        "// .multicast text gives (cp_dest_lanes: .warpx2 halves to a pair's lower and upper warp),",
        "// byte j to column j / 4 at bit 8 (j % 4) (the layout tcgen05.mma reads A from Tensor",
        "// Memory with).",
        *([f"// Decompressing: each 16-byte chunk of a row holds 16 packed {unpack}-bit elements (lowest",
           "// first) and padding and becomes 16 bytes, element i in the low bits of byte i (ptxvm's",
           "// choice, as for ldmatrix's .b8x16 forms: the ISA shows it only in figures)."] if unpack else []),
        *([f"// .cta_group::2: a 2-CTA cluster, each CTA with its own image (CTA 0's, then CTA 1's), both",
           "// allocating with tcgen05.alloc.cta_group::2; thread 0 of CTA " + str(issuer) + " copies and commits to",
           "// both CTAs' mbarriers (.multicast::cluster); each CTA's Tensor Memory receives its own",
           "// shared memory's matrix through the same descriptor (CUTLASS's SM100_UTCCP_*_2cta traits",
           "// and 2-SM block-scaled collective). Outputs: CTA 0's, then CTA 1's."] if pair else []),
        f"// run: --grid {2 if pair else 1} --block 128{' --cluster 2' if pair else ''} --arch sm_100a",
        f"// arg: u32[{len(words)}] = [{', '.join(hex(x) for x in words)}]",
        f"// arg: zeros:u32:{len(out)}",
    ]
    for i in range(0, len(out), 64):
        head.append(f"// expect arg1[{i}..{i + 64}]: [{', '.join(hex(x) for x in out[i:i + 64])}]")
    write(os.path.join(ROOT, "tests/run/warp", name + ".ptx"), "\n".join(head) + "\n" + "\n".join(L))


# Block-scaled tcgen05.mma (.cta_group::1, M = 128, f32 D), A and B from shared memory:
# (file, kind, scale-vector modifier, A type, B type, scale type, (SF-A ID, SF-B ID), N,
#  A (major, swizzle, offset, LBO, SBO), B (...), enable-input-d, negate A, negate B)
MMA_BS_CASES = [
    ("tcgen05_mma_bs_mxf8f6f4_e4m3_e5m2", "mxf8f6f4", ".scale_vec::1X", "e4m3", "e5m2", "ue8m0", (2, 1), 32,
     ("K", "128", 0, 0, 1024), ("K", "none", 0, 128, 256), 1, 0, 0),
    ("tcgen05_mma_bs_mxf8f6f4_block32_e5m2_e4m3_nega", "mxf8f6f4", ".block32", "e5m2", "e4m3", "ue8m0", (0, 3), 16,
     ("K", "none", 0, 128, 256), ("MN", "64", 0, 0, 512), 1, 1, 0),
    ("tcgen05_mma_bs_mxf4_default", "mxf4", "", "e2m1", "e2m1", "ue8m0", (2, 0), 16,
     ("K", "64", 0, 0, 512), ("K", "none", 0, 128, 256), 1, 0, 1),
    ("tcgen05_mma_bs_mxf4nvf4_4x_ue4m3", "mxf4nvf4", ".scale_vec::4X", "e2m1", "e2m1", "ue4m3", (0, 0), 24,
     ("K", "32", 0, 0, 256), ("K", "128", 0, 0, 1024), 1, 0, 0),
    ("tcgen05_mma_bs_mxf4nvf4_block32_nod", "mxf4nvf4", ".block32", "e2m1", "e2m1", "ue8m0", (2, 2), 8,
     ("K", "none", 0, 128, 256), ("K", "32", 0, 0, 256), 0, 0, 0),
    ("tcgen05_mma_bs_mxf8f6f4_tmem_e4m3_e4m3_negb", "mxf8f6f4", "", "e4m3", "e4m3", "ue8m0", (1, 2), 16,
     "tmem", ("K", "128", 0, 0, 1024), 1, 0, 1),
]
BS_CODE = {"e4m3": 0, "e5m2": 1, "e2m1": 1}
# mxf8f6f4's codes (the f8f6f4 ones; e2m1 is 1 only for mxf4/mxf4nvf4).
BS_CODE_MXF8 = {"e4m3": 0, "e5m2": 1, "e2m3": 3, "e3m2": 4, "e2m1": 5}
# Block-scaled .sp cases: name -> the MMA's k-step in the metadata tile.
MMA_BS_SP = {
    "tcgen05_mma_bs_sp_mxf8f6f4_e4m3_e5m2": 1,
    "tcgen05_mma_bs_sp_mxf8f6f4_tmem_e5m2_e5m2": 0,
    "tcgen05_mma_bs_sp_mxf4_default": 0,
    "tcgen05_mma_bs_sp_mxf4_tmem_2x": 1,
    "tcgen05_mma_bs_sp_mxf4nvf4_4x_ue4m3": 1,
    "tcgen05_mma_bs_sp_mxf4nvf4_tmem_block32": 0,
    "tcgen05_mma_bs_sp_mxf8f6f4_e3m2_e2m1": 1,
}
MMA_BS_CASES += [
    ("tcgen05_mma_bs_sp_mxf8f6f4_e4m3_e5m2", "mxf8f6f4", ".scale_vec::1X", "e4m3", "e5m2", "ue8m0", (1, 3), 32,
     ("K", "32", 0, 0, 256), ("K", "64", 0, 0, 512), 1, 0, 0),
    ("tcgen05_mma_bs_sp_mxf8f6f4_tmem_e5m2_e5m2", "mxf8f6f4", "", "e5m2", "e5m2", "ue8m0", (0, 2), 16,
     "tmem", ("K", "none", 0, 128, 512), 1, 1, 0),
    ("tcgen05_mma_bs_sp_mxf4_default", "mxf4", "", "e2m1", "e2m1", "ue8m0", (2, 0), 16,
     ("K", "32", 0, 0, 256), ("K", "64", 0, 0, 512), 1, 0, 0),
    ("tcgen05_mma_bs_sp_mxf4_tmem_2x", "mxf4", ".scale_vec::2X", "e2m1", "e2m1", "ue8m0", (0, 2), 8,
     "tmem", ("K", "64", 0, 0, 512), 1, 0, 1),
    ("tcgen05_mma_bs_sp_mxf4nvf4_4x_ue4m3", "mxf4nvf4", ".scale_vec::4X", "e2m1", "e2m1", "ue4m3", (0, 0), 24,
     ("K", "none", 0, 128, 256), ("K", "64", 0, 0, 512), 1, 0, 0),
    ("tcgen05_mma_bs_sp_mxf4nvf4_tmem_block32", "mxf4nvf4", ".block32", "e2m1", "e2m1", "ue8m0", (2, 0), 16,
     "tmem", ("K", "none", 0, 128, 512), 0, 0, 0),
    # mxf8f6f4 with fp6/fp4 operands (padded in shared memory, as kind::f8f6f4's).
    ("tcgen05_mma_bs_mxf8f6f4_e2m1_e3m2_nega", "mxf8f6f4", ".scale_vec::1X", "e2m1", "e3m2", "ue8m0", (1, 2), 16,
     ("K", "128", 0, 0, 1024), ("K", "none", 0, 128, 256), 1, 1, 0),
    ("tcgen05_mma_bs_mxf8f6f4_block32_e2m3_e4m3_mn_negb", "mxf8f6f4", ".block32", "e2m3", "e4m3", "ue8m0", (0, 3), 16,
     ("MN", "128", 0, 0, 1024), ("K", "32", 0, 0, 256), 1, 0, 1),
    # mxf8f6f4 .sp with fp6/fp4 operands (the compressed A padded as a dense one: CUTLASS's
    # block-scaled builder uses the same unpacksmem types for its sparse atoms).
    ("tcgen05_mma_bs_sp_mxf8f6f4_e3m2_e2m1", "mxf8f6f4", ".block32", "e3m2", "e2m1", "ue8m0", (2, 1), 16,
     ("K", "64", 0, 0, 512), ("K", "128", 0, 0, 1024), 1, 0, 1),
    # e2m1 A (dense) in Tensor Memory.
    ("tcgen05_mma_bs_mxf4_tmem", "mxf4", ".block32", "e2m1", "e2m1", "ue8m0", (0, 0), 16,
     "tmem", ("K", "none", 0, 128, 256), 1, 1, 0),
    ("tcgen05_mma_bs_mxf4nvf4_tmem_4x", "mxf4nvf4", ".block16", "e2m1", "e2m1", "ue4m3", (0, 0), 8,
     "tmem", ("K", "32", 0, 0, 256), 1, 0, 0),
]



def mma_bs_file(case):
    """Scale factors in Tensor Memory (ISA "Block Scaling" text: one byte per factor, the SF ID
    its byte offset in the word, duplicated to all four 32-lane partitions; placement from
    CUTLASS's tmem_sf_frg): row m of A's factors in lane m % 32 (of every partition), column
    m / 32 of scale-A, bytes ID + j; column n of B's in lane n % 32, column n / 32 of scale-B."""
    name, kind, sv, at, bt, st, (aid, bid), n, asrc, bsrc, en, na, nb = case
    rng = tc_ref.SplitMix64(tc_ref.seed_of(name))
    mxf4 = kind != "mxf8f6f4"
    bits = 4 if mxf4 else 8
    sp = name in MMA_BS_SP
    k = (64 if mxf4 else 32) * (2 if sp else 1)
    ka = k // 2 if sp else k
    T = 128 // bits
    nv = 4 if (sv in (".scale_vec::4X", ".block16")) else (2 if mxf4 else 1)
    center = rng.next()

    def code(t):
        if t == "e2m1":
            return rng.next() & 0xF
        return tc_ref.gen_bits(t, rng.next(), 1, center) & ((1 << tc_ref.width(t)) - 1)

    if sp:
        # Structured-sparse A (ISA "Sparse matrices"): 2:4 for mxf8f6f4, pair-wise 4:8 for
        # mxf4/mxf4nvf4 (the field's two indices name the non-zero pairs); the metadata tile
        # (64 2-bit indices a row, two k-steps) in the 8-bit layout (ISA Figure 267 covers
        # these kinds with f8f6f4 and i8), this MMA's k-step MMA_BS_SP[name], random fields in
        # the other.
        cw = 8 if mxf4 else 4
        ks = MMA_BS_SP[name]
        meta = [[rng.next() & 3 for _ in range(64)] for _ in range(128)]
        A, AC = [], []
        for m in range(128):
            row, comp = [0] * k, []
            for ch in range(k // cw):
                f = SP_FIELDS[rng.next() % len(SP_FIELDS)]
                q = ks * 32 + 2 * ch
                meta[m][q], meta[m][q + 1] = f & 3, f >> 2
                for j in range(2):
                    idx = (f >> (2 * j)) & 3
                    if mxf4:
                        for e in range(2):
                            v = code(at)
                            row[ch * 8 + 2 * idx + e] = v
                            comp.append(v)
                    else:
                        v = code(at)
                        row[ch * 4 + idx] = v
                        comp.append(v)
            A.append(row)
            AC.append(comp)
        meta_words = sp_meta_tmem(meta, 8)
    else:
        A = [[code(at) for _ in range(k)] for _ in range(128)]
        AC = A
    B = [[code(bt) for _ in range(k)] for _ in range(n)]
    SFA = [[tc_ref.rand_scale(rng, st) for _ in range(nv)] for _ in range(128)]
    SFB = [[tc_ref.rand_scale(rng, st) for _ in range(nv)] for _ in range(n)]
    CL = [[tc_ref.rand_c(rng, 4 if mxf4 else 0) for _ in range(n)] for _ in range(128)]
    img = bytearray(65536)
    end = 0
    # (mxf8f6f4's fp6/fp4 operands padded in shared memory: place_padded.)
    pa, pb = ({}, {}) if mxf4 else (PADDED, PADDED)
    if asrc != "tmem":
        for m in range(128):
            for kk in range(ka):
                end = max(end, place_elem(img, 0, asrc, T, m, kk, bits, at if at in pa else "", AC[m][kk]))
    bbase = (end + 1023) // 1024 * 1024
    for nn in range(n):
        for kk in range(k):
            end = max(end, place_elem(img, bbase, bsrc, T, nn, kk, bits, bt if bt in pb else "", B[nn][kk]))
    img = img[:(end + 15) // 16 * 16]
    words = wgmma_ref.u32s(bytes(img))
    sign_a = 1 << (pa.get(at, bits) - 1)
    sign_b = 1 << (pb.get(bt, bits) - 1)
    D = [[0] * n for _ in range(128)]
    for m in range(128):
        arow = [x ^ sign_a if na else x for x in A[m]]
        for nn in range(n):
            bcol = [x ^ sign_b if nb else x for x in B[nn]]
            c = CL[m][nn] if en else 0
            sas = [tc_ref.scale_decode(st, x) for x in SFA[m]]
            sbs = [tc_ref.scale_decode(st, x) for x in SFB[nn]]
            if mxf4:
                D[m][nn] = tc_ref.dot_mxf4(arow, bcol, sas, sbs, c)
            else:
                D[m][nn] = tc_ref.dot_mx8(at, bt, arow, bcol, sas[0], sbs[0], c)
    # Scale-factor words, per lane, at columns 256..259 (A) and 260..263 (B): random bytes
    # except the selected ones, the same in every partition.
    junk = [[rng.next() & 0xFFFFFFFF for _ in range(8)] for _ in range(32)]
    sfw = []
    for lane in range(128):
        i = lane % 32
        row = list(junk[i])
        for c4 in range(4):
            mA = 32 * c4 + i
            for j in range(nv):
                sh = 8 * (aid + j)
                row[c4] = (row[c4] & ~(0xFF << sh)) | (SFA[mA][j] << sh)
            nB = 32 * c4 + i
            if nB < n:
                for j in range(nv):
                    sh = 8 * (bid + j)
                    row[4 + c4] = (row[4 + c4] & ~(0xFF << sh)) | (SFB[nB][j] << sh)
        if asrc == "tmem":
            # A in Tensor Memory at column 264: row m in lane m, elements from bit 0 (e2m1 two to
            # a byte, the lower K in the low nibble, as in shared memory).
            packed = sum(AC[lane][kk] << (bits * kk) for kk in range(ka))
            row += [(packed >> (32 * j)) & 0xFFFFFFFF for j in range(8)]
        if sp:
            # The metadata tile at column 272 (4 columns).
            row += [0] * (16 - len(row)) + meta_words[4 * lane:4 * lane + 4] + [0] * 4
        sfw += row
    nw = 24 if sp else 16 if asrc == "tmem" else 8
    trans_a = asrc != "tmem" and asrc[0] == "MN"
    codes = BS_CODE if mxf4 else BS_CODE_MXF8
    idesc = (bid << 4) | (codes[at] << 7) | (codes[bt] << 10) | (na << 13) | (nb << 14) \
        | (int(trans_a) << 15) | (int(bsrc[0] == "MN") << 16) | ((n >> 3) << 17) \
        | (int(st == "ue8m0") << 23) | ((128 >> 7) << 27) | (aid << 29) | (int(sp) << 2)
    cflat = [CL[m][j] for m in range(128) for j in range(n)]
    dflat = [D[m][j] for m in range(128) for j in range(n)]
    op = f"tcgen05.mma{'.sp' if sp else ''}.cta_group::1.kind::{kind}.block_scale{sv}"
    L = [
        ".version 8.8\n.target sm_100a\n.address_size 64\n",
        f".visible .entry {name}(.param .u64 img, .param .u64 cin, .param .u64 sfin, .param .u64 out)",
        "{",
        "\t.reg .b32 %r<32>;",
        "\t.reg .b32 %v<8>;",
        "\t.reg .b64 %rd<16>;",
        "\t.reg .pred %p<4>;",
        "\t.shared .align 1024 .b8 smem[32768];",
        "\t.shared .align 8 .b64 mbar;",
        "\t.shared .align 4 .b32 slot;",
        "\tld.param.u64 %rd0, [img];",
        "\tcvta.to.global.u64 %rd0, %rd0;",
        "\tld.param.u64 %rd1, [cin];",
        "\tcvta.to.global.u64 %rd1, %rd1;",
        "\tld.param.u64 %rd2, [sfin];",
        "\tcvta.to.global.u64 %rd2, %rd2;",
        "\tld.param.u64 %rd3, [out];",
        "\tcvta.to.global.u64 %rd3, %rd3;",
        "\tmov.u32 %r0, %tid.x;",
        "\tshr.u32 %r1, %r0, 5;",
        "\tmov.u32 %r2, smem;",
        "\tmov.u32 %r3, %r0;",
        "COPY:",
        f"\tsetp.ge.u32 %p0, %r3, {len(words)};",
        "\t@%p0 bra COPIED;",
        "\tmul.wide.u32 %rd4, %r3, 4;",
        "\tadd.u64 %rd5, %rd0, %rd4;",
        "\tld.global.u32 %r4, [%rd5];",
        "\tshl.b32 %r5, %r3, 2;",
        "\tadd.u32 %r6, %r2, %r5;",
        "\tst.shared.u32 [%r6], %r4;",
        "\tadd.u32 %r3, %r3, 128;",
        "\tbra.uni COPY;",
        "COPIED:",
        "\tsetp.ne.u32 %p1, %r1, 0;",
        "\t@%p1 bra SKIP_ALLOC;",
        "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 512;",
        "SKIP_ALLOC:",
        "\tsetp.ne.u32 %p1, %r0, 0;",
        "\t@%p1 bra SKIP_INIT;",
        "\tmbarrier.init.shared::cta.b64 [mbar], 1;",
        "SKIP_INIT:",
        "\ttcgen05.fence::before_thread_sync;",
        "\tbar.sync 0;",
        "\ttcgen05.fence::after_thread_sync;",
        "\tld.shared.b32 %r7, [slot];",
        "\tshl.b32 %r8, %r1, 21;",
        "\tadd.u32 %r9, %r7, %r8;",
        "\t// C: row tid of D (columns 0..N); scale factors: 8 words at column 256",
    ]
    for c0 in range(0, n, 8):
        L.append(f"\tmul.wide.u32 %rd6, %r0, {4 * n};")
        L.append("\tadd.u64 %rd7, %rd1, %rd6;")
        for j in range(8):
            L.append(f"\tld.global.u32 %v{j}, [%rd7+{4 * (c0 + j)}];")
        L.append(f"\tadd.u32 %r10, %r9, {c0};")
        L.append("\ttcgen05.st.sync.aligned.32x32b.x8.b32 [%r10], {%v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7};")
    L.append(f"\tmul.wide.u32 %rd6, %r0, {4 * nw};")
    L.append("\tadd.u64 %rd7, %rd2, %rd6;")
    for c0 in range(0, nw, 8):
        for j in range(8):
            L.append(f"\tld.global.u32 %v{j}, [%rd7+{4 * (c0 + j)}];")
        L += [f"\tadd.u32 %r10, %r9, {256 + c0};",
              "\ttcgen05.st.sync.aligned.32x32b.x8.b32 [%r10], {%v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7};"]
    L += ["\ttcgen05.wait::st.sync.aligned;",
          "\ttcgen05.fence::before_thread_sync;",
          "\tbar.sync 0;",
          "\ttcgen05.fence::after_thread_sync;",
          "\t@%p1 bra SKIP_MMA;"]
    if asrc != "tmem":
        L += [f"\tadd.u32 %r11, %r2, {asrc[2]};",
              "\tshr.u32 %r11, %r11, 4;",
              "\tand.b32 %r11, %r11, 0x3fff;",
              "\tcvt.u64.u32 %rd8, %r11;",
              f"\tor.b64 %rd8, %rd8, {sm100_desc(asrc[3], asrc[4], asrc[1]):#x};"]
    L += [f"\tadd.u32 %r12, %r2, {bbase + bsrc[2]};",
          "\tshr.u32 %r12, %r12, 4;",
          "\tand.b32 %r12, %r12, 0x3fff;",
          "\tcvt.u64.u32 %rd9, %r12;",
          f"\tor.b64 %rd9, %rd9, {sm100_desc(bsrc[3], bsrc[4], bsrc[1]):#x};",
          f"\tmov.u32 %r13, {idesc:#x};",
          f"\tsetp.{'eq' if en else 'ne'}.u32 %p2, %r0, %r0;",
          "\tadd.u32 %r21, %r7, 256;",
          "\tadd.u32 %r22, %r7, 260;",
          "\tadd.u32 %r23, %r7, 264;",
          *([f"\tadd.u32 %r24, %r7, {272 + 2 * MMA_BS_SP[name]};"] if sp else []),
          f"\t{op} [%r7], {'[%r23]' if asrc == 'tmem' else '%rd8'}, %rd9, {'[%r24], ' if sp else ''}%r13, [%r21], [%r22], %p2;",
          "\tmov.u32 %r15, mbar;",
          "\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r15];",
          "SKIP_MMA:",
          "WAIT:",
          "\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [mbar], 0;",
          "\t@!%p3 bra WAIT;",
          "\ttcgen05.fence::after_thread_sync;"]
    for c0 in range(0, n, 8):
        L.append(f"\tadd.u32 %r10, %r9, {c0};")
        L.append("\ttcgen05.ld.sync.aligned.32x32b.x8.b32 {%v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7}, [%r10];")
        L.append("\ttcgen05.wait::ld.sync.aligned;")
        L.append(f"\tmul.wide.u32 %rd6, %r0, {4 * n};")
        L.append("\tadd.u64 %rd7, %rd3, %rd6;")
        for j in range(8):
            L.append(f"\tst.global.u32 [%rd7+{4 * (c0 + j)}], %v{j};")
    L.append("\tsetp.ne.u32 %p1, %r1, 0;")
    epilogue(L)
    L[-6] = "\t@%p1 bra DONE;"
    L[-5] = "\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r7, 512;"
    head = [
        f"// `{op}` on sm_100a: M = 128, N = {n}, K = {k}, A {at}, B {bt}, {st} scale factors",
        f"// ({nv} per row/column, SF IDs A {aid}, B {bid}), A "
        + ("in Tensor Memory (column 264, row m in lane m)" if asrc == "tmem" else f"{asrc[0]}-major ({asrc[1]} swizzle)")
        + f", B {bsrc[0]}-major"
        f" ({bsrc[1]} swizzle), enable-input-d {en}, negate A {na}, negate B {nb}; issued by thread 0,",
        "// completed through tcgen05.commit. Generated by tools/tcgen05_ref.py: the shared-memory image",
        "// from tools/wgmma_ref.py's canonical layouts; scale-factor words at columns 256..259 (A) and",
        "// 260..263 (B) of every lane: row m's factors in lane m % 32 of each 32-lane partition, column",
        "// m / 32, bytes ID + j (column n of B alike), the other bytes random; expected D from",
        "// tools/tc_ref.py's block-scale model (dot_mx8 / dot_mxf4).",
        *(["// fp6/fp4 operands of mxf8f6f4 padded in shared memory as kind::f8f6f4's (16 elements",
           "// packed from bit 0 of each 16-byte unit, then padding; PADDED)."]
          if not mxf4 and (at in PADDED or bt in PADDED) else []),
        *([f"// sparse A: {ka} stored columns of a structured-sparse A ({'4:8 in pairs' if mxf4 else '2:4'}),",
           "// metadata tile at column 272 in the 8-bit layout of tcgen05.mma.sp (JAX Mosaic GPU's",
           f"// format), this MMA's at column {272 + 2 * MMA_BS_SP[name]}; D from the dense product of the decompressed A."]
          if sp else []),
        "// run: --grid 1 --block 128 --arch sm_100a",
        f"// arg: u32[{len(words)}] = [{', '.join(hex(x) for x in words)}]",
        f"// arg: u32[{len(cflat)}] = [{', '.join(hex(x) for x in cflat)}]",
        f"// arg: u32[{len(sfw)}] = [{', '.join(hex(x) for x in sfw)}]",
        f"// arg: zeros:u32:{len(dflat)}",
        f"// expect arg3: [{', '.join(hex(x) for x in dflat)}]",
    ]
    write(os.path.join(ROOT, "tests/run/warp", name + ".ptx"), "\n".join(head) + "\n" + "\n".join(L))


# tcgen05.ld.red (sm_103a, sm_110a): per shape, every .num with both modifier orders of the f32
# and the integer forms. Tensor Memory lanes 0..31, columns 0..255 hold a hashed bit pattern
# of the (lane, column) index (a few NaNs planted), written from the input buffer.
LDRED_NUMS = [2, 4, 8, 16, 32, 64, 128]
LDRED_COLS = 256


def ldred_cell(lane, col):
    """The cell's bits: the same expression the test's `arg:` line evaluates for element
    i = lane * LDRED_COLS + col."""
    i = lane * LDRED_COLS + col
    if i % 29 == 3:
        return 0x7FC00000 | (i & 0xFF)  # a quiet NaN with a payload
    if i % 31 == 7:
        return 0xFF800000  # -inf
    return ((i + 1) * 0x9E3779B1) % 0x100000000 & 0xBFFFFFFF  # no NaN/inf: exponent < 0xff


LDRED_ARG = (
    "u32[{n}] = i % 29 == 3 ? (0x7fc00000 | (i & 0xff)) : i % 31 == 7 ? 0xff800000 : "
    "((i + 1) * 0x9e3779b1) % 0x100000000 & 0xbfffffff"
)


def f32_of(bits):
    import struct

    return struct.unpack("<f", struct.pack("<I", bits))[0]


def is_nan(bits):
    return (bits >> 23) & 0xFF == 0xFF and bits & 0x7FFFFF != 0


def red_ref(vals, op, ty, abs_, nan):
    """The ISA's reduction of one thread's loaded values (redux.sync's min/max rules): for
    .f32, NaN operands are ignored unless .NaN (then the result is the canonical NaN
    0x7fffffff), all NaN gives the canonical NaN, .abs compares (and returns) magnitudes;
    .u32/.s32 compare as integers."""
    if ty == "f32":
        if abs_:
            vals = [v & 0x7FFFFFFF for v in vals]
        nans = [v for v in vals if is_nan(v)]
        if nans and (nan or len(nans) == len(vals)):
            return 0x7FFFFFFF
        vals = [v for v in vals if not is_nan(v)]
        key = f32_of
    elif ty == "s32":
        key = lambda v: v - (1 << 32) if v >> 31 else v  # noqa: E731
    else:
        key = lambda v: v  # noqa: E731
    return (min if op == "min" else max)(vals, key=key)


def ldred_file(shape, target):
    lines = [
        f".version 9.0\n.target {target}\n.address_size 64\n",
        ".visible .entry tcgen05_ld_red(.param .u64 inp, .param .u64 out)",
        "{",
        "\t.reg .b32 %r<16>;",
        "\t.reg .b32 %v<130>;",
        "\t.reg .f32 %f<130>;",
        "\t.reg .b64 %rd<8>;",
        "\t.shared .align 4 .b32 slot;",
        "",
        "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 256;",
        "\ttcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
        "\tld.shared.b32 %r3, [slot];",
        "\tmov.u32 %r0, %tid.x;",
        "\tld.param.u64 %rd0, [inp];",
        "\tcvta.to.global.u64 %rd0, %rd0;",
        f"\tmul.wide.u32 %rd2, %r0, {4 * LDRED_COLS};",
        "\tadd.u64 %rd3, %rd0, %rd2;",
        "\tld.param.u64 %rd1, [out];",
        "\tcvta.to.global.u64 %rd1, %rd1;",
        "\t// Fill: lane tid, columns 0..255 from the input row tid.",
    ]
    for c0 in range(0, LDRED_COLS, 128):
        for j in range(0, 128, 4):
            lines.append(
                f"\tld.global.v4.b32 {{%v{j}, %v{j + 1}, %v{j + 2}, %v{j + 3}}}, [%rd3+{4 * (c0 + j)}];"
            )
        lines.append(f"\tadd.u32 %r7, %r3, {c0};")
        lines.append(f"\ttcgen05.st.sync.aligned.32x32b.x128.b32 [%r7], {vec([f'%v{j}' for j in range(128)])};")
    lines.append("\ttcgen05.wait::st.sync.aligned;")
    cases = []
    k = 0
    for n in LDRED_NUMS:
        for order in range(2):
            for ty in ("f32", "int"):
                op = "min" if (k % 2 == 0) else "max"
                if ty == "f32":
                    abs_ = k % 4 in (1, 2)
                    nan = k % 3 == 0
                    mods = f".{op}{'.abs' if abs_ else ''}{'.NaN' if nan else ''}"
                    sfx = f"{mods}.f32" if order == 0 else f".f32{mods}"
                    t = "f32"
                else:
                    abs_ = nan = False
                    t = "s32" if k % 3 else "u32"
                    sfx = f".{op}.{t}" if order == 0 else f".{t}.{op}"
                col = (37 * k) % (LDRED_COLS - n + 1) if shape == "32x32b" else 0
                lane_off, split = 0, None
                if shape == "16x32bx2":
                    lane_off = 16 if k % 2 else 0
                    split = n + (k * 7) % (LDRED_COLS - 2 * n + 1)
                    col = (11 * k) % (LDRED_COLS - n - split + 1)
                cases.append((n, sfx, t, op, abs_, nan, col, lane_off, split))
                k += 1
    off = 0
    expect = []
    desc = []
    for n, sfx, t, op, abs_, nan, col, lane_off, split in cases:
        r = "%f" if t == "f32" else "%v"
        regs = [f"{r}{j}" for j in range(n)]
        name = f"tcgen05.ld.red.sync.aligned.{shape}.x{n}{sfx}"
        extra = f", {split}" if split is not None else ""
        lines.append(f"\tadd.u32 %r7, %r3, {(lane_off << 16) + col};")
        lines.append(f"\t{name} {vec(regs)}, {r}129, [%r7]{extra};")
        lines.append("\ttcgen05.wait::ld.sync.aligned;")
        # out[off + 3 tid + (0, 1, 2)] = redval, the first and the last loaded register
        lines.append("\tmul.wide.u32 %rd2, %r0, 12;")
        lines.append("\tadd.u64 %rd4, %rd1, %rd2;")
        st = "st.global.f32" if t == "f32" else "st.global.b32"
        for j, reg in enumerate([f"{r}129", regs[0], regs[-1]]):
            lines.append(f"\t{st} [%rd4+{4 * (off + j)}], {reg};")
        vals = []
        for tid in range(32):
            got = []
            for lane, cols in cells(shape, n, False, tid, split):
                got.append(ldred_cell(lane_off + lane, col + cols[0]))
            vals += [red_ref(got, op, t, abs_, nan), got[0], got[-1]]
        expect.append((off, vals))
        desc.append(f"{name} at lane +{lane_off}, column +{col}{'' if split is None else f', split {split}'}")
        off += 3 * 32
    lines += [
        "\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r3, 256;",
        "\tret;",
        "}",
        "",
    ]
    head = [
        f"// tcgen05.ld.red .{shape} ({target}: the {'B300' if target == 'sm_103a' else 'Jetson Thor'} model),",
        "// every .num, both modifier orders, .f32 (with .abs/.NaN) and .u32/.s32, min and max;",
        "// one warp (lanes 0..31). Generated by tools/tcgen05_ref.py: Tensor Memory lane L,",
        "// column c holds arg0[256 L + c] (hashed bit patterns, quiet NaNs with payloads, -inf);",
        "// which cells a thread loads comes from CUTLASS's copy-atom layouts (as for tcgen05.ld),",
        "// the reduction from the ISA text (min/max across the thread's loaded columns; f32 NaN",
        "// operands ignored unless .NaN, then the canonical NaN; .abs on magnitudes), computed in",
        "// Python. Per case, thread t writes (redval, first register, last register) at 3 t.",
        "// Cases, in output order:",
    ]
    head += [f"//   {d}" for d in desc]
    head.append(f"// run: --grid 1 --block 32 --arch {target}")
    head.append("// arg: " + LDRED_ARG.format(n=32 * LDRED_COLS))
    head.append(f"// arg: zeros:u32:{off}")
    for o, vals in expect:
        head.append(f"// expect arg1[{o}..{o + len(vals)}]: [{', '.join(hex(v) for v in vals)}]")
    write(os.path.join(ROOT, "tests/run/warp", f"tcgen05_ld_red_{shape}.ptx"), "\n".join(head) + "\n" + "\n".join(lines))


# tcgen05.shift: (lane, column, alternative modifier order) of each shift thread 0 issues, in
# order; the columns read back afterwards.
SHIFTS = [(32, 100, False), (96, 500, True), (0, 0, False), (0, 0, True)]
SHIFT_READ = [96, 496, 0]


def shift_file():
    lines = prologue("tcgen05_shift")
    lines.insert(lines.index("\t.shared .align 4 .b32 slot;") + 1, "\t.shared .align 8 .b64 mbar;")
    fill(lines, 512)
    mem = {(lane, col): fill_value(lane, col) for lane in range(128) for col in range(512)}
    lines += [
        "\tsetp.ne.u32 %p1, %r0, 0;",
        "\t@%p1 bra SKIP_SHIFT;",
        "\tmbarrier.init.shared::cta.b64 [mbar], 1;",
    ]
    for lane, col, alt in SHIFTS:
        lines.append(f"\tadd.u32 %r7, %r3, {(lane << 16) + col:#x};")
        form = "tcgen05.shift.down.cta_group::1" if alt else "tcgen05.shift.cta_group::1.down"
        lines.append(f"\t{form} [%r7];")
        # ISA: 32-byte elements (8 columns) of every row but the last move down one row
        # (shape .31x256b from a lane aligned to 32); row 0 keeps its contents (ptxvm's choice).
        for r in range(30, -1, -1):
            for c in range(8):
                mem[(lane + r + 1, col + c)] = mem[(lane + r, col + c)]
    lines += [
        "\tmov.u32 %r8, mbar;",
        "\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r8];",
        "SKIP_SHIFT:",
        "\tbar.sync 0;",
        "WAIT:",
        "\tmbarrier.try_wait.parity.shared::cta.b64 %p1, [mbar], 0;",
        "\t@!%p1 bra WAIT;",
        "\ttcgen05.fence::after_thread_sync;",
        "\tsetp.ne.u32 %p0, %r1, 0;",
    ]
    expect = []
    off = 0
    for c0 in SHIFT_READ:
        regs = [f"%v{j}" for j in range(16)]
        lines.append(f"\tadd.u32 %r7, %r5, {c0};")
        lines.append(f"\ttcgen05.ld.sync.aligned.32x32b.x16.b32 {vec(regs)}, [%r7];")
        lines.append("\ttcgen05.wait::ld.sync.aligned;")
        store_out(lines, regs, off)
        expect.append((off, [mem[(tid, c0 + j)] for tid in range(128) for j in range(16)]))
        off += 128 * 16
    epilogue(lines)
    head = [
        "// tcgen05.shift.cta_group::1.down (sm_100a), both modifier orders: thread 0 shifts the",
        "// 31x256b block at (lane 32, column 100), (96, 500), then (0, 0) twice, and commits to an",
        "// mbarrier; every warp then reads its lanes back. Generated by tools/tcgen05_ref.py:",
        "// Tensor Memory is filled with cell (lane L, column c) = ((v ^ 0x5a5a) << 16) | v,",
        "// v = L | c << 7; the ISA's rule (\"shifting of 32-byte elements downwards across all the",
        "// rows, except the last, by one row\", shape .31x256b, lane aligned to 32) moves rows",
        "// 0..30 of the 32 lanes to rows 1..31 over 8 columns; row 0 keeps its value (the ISA does",
        "// not say what it becomes: ptxvm's choice). Read back: columns 96..111, 496..511, 0..15.",
        "// run: --grid 1 --block 128 --arch sm_100a",
        f"// arg: zeros:u32:{off}",
    ]
    for o, vals in expect:
        head.append(f"// expect arg0[{o}..{o + len(vals)}]: [{', '.join(hex(v) for v in vals)}]")
    write(os.path.join(ROOT, "tests/run/warp", "tcgen05_shift.ptx"), "\n".join(head) + "\n" + "\n".join(lines))


def shift_pair_file():
    """tcgen05.shift.cta_group::2.down: thread 0 of the even CTA of a 2-CTA cluster shifts the
    same block in both CTAs' Tensor Memory (ISA: "the shift operation is performed in the Tensor
    Memory of both the current and the peer CTAs")."""
    lines = [l.replace("cta_group::1", "cta_group::2") for l in prologue("tcgen05_shift_pair")]
    lines.insert(lines.index("\t.shared .align 4 .b32 slot;") + 1, "\t.shared .align 8 .b64 mbar;")
    lines.insert(lines.index("\t.shared .align 4 .b32 slot;") + 1, "\t.reg .b16 %rs<2>;")
    fill(lines, 512)
    mem = {(lane, col): fill_value(lane, col) for lane in range(128) for col in range(512)}
    shifts = [(32, 100), (0, 7)]
    lines += [
        "\tmov.u32 %r10, %cluster_ctarank;",
        "\tsetp.ne.u32 %p1, %r0, 0;",
        "\t@%p1 bra SKIP_INIT;",
        "\tmbarrier.init.shared::cta.b64 [mbar], 1;",
        "SKIP_INIT:",
        "\ttcgen05.fence::before_thread_sync;",
        "\tbarrier.cluster.arrive;",
        "\tbarrier.cluster.wait;",
        "\ttcgen05.fence::after_thread_sync;",
        "\tor.b32 %r11, %r0, %r10;",
        "\tsetp.ne.u32 %p1, %r11, 0;",
        "\t@%p1 bra SKIP_SHIFT;",
    ]
    for lane, col in shifts:
        lines.append(f"\tadd.u32 %r7, %r3, {(lane << 16) + col:#x};")
        lines.append("\ttcgen05.shift.cta_group::2.down [%r7];")
        for r in range(30, -1, -1):
            for c in range(8):
                mem[(lane + r + 1, col + c)] = mem[(lane + r, col + c)]
    lines += [
        "\tmov.u32 %r8, mbar;",
        "\tmov.b16 %rs1, 3;",
        "\ttcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r8], %rs1;",
        "SKIP_SHIFT:",
        "WAIT:",
        "\tmbarrier.try_wait.parity.shared::cta.b64 %p1, [mbar], 0;",
        "\t@!%p1 bra WAIT;",
        "\ttcgen05.fence::after_thread_sync;",
        "\tsetp.ne.u32 %p0, %r1, 0;",
        f"\tmul.wide.u32 %rd2, %r10, {4 * 128 * 16 * 2};",
        "\tadd.u64 %rd1, %rd1, %rd2;",
    ]
    expect = []
    off = 0
    for c0 in (96, 0):
        regs = [f"%v{j}" for j in range(16)]
        lines.append(f"\tadd.u32 %r7, %r5, {c0};")
        lines.append(f"\ttcgen05.ld.sync.aligned.32x32b.x16.b32 {vec(regs)}, [%r7];")
        lines.append("\ttcgen05.wait::ld.sync.aligned;")
        store_out(lines, regs, off)
        expect += [mem[(tid, c0 + j)] for tid in range(128) for j in range(16)]
        off += 128 * 16
    lines += [
        "\ttcgen05.fence::before_thread_sync;",
        "\tbarrier.cluster.arrive;",
        "\tbarrier.cluster.wait;",
    ]
    epilogue(lines)
    lines = [l.replace("cta_group::1", "cta_group::2") for l in lines]
    head = [
        "// tcgen05.shift.cta_group::2.down (sm_100a), a 2-CTA cluster (the CTA pair): both CTAs fill",
        "// their Tensor Memory alike (allocated by tcgen05.alloc.cta_group::2), then thread 0 of the",
        "// even CTA shifts the 31x256b blocks at (lane 32, column 100) and (0, 7) and commits to both",
        "// CTAs' mbarriers (.multicast::cluster); each CTA reads columns 96..111 and 0..15 back",
        "// (CTA 0's, then CTA 1's). Generated by tools/tcgen05_ref.py: the ISA's text, \"the shift",
        "// operation is performed in the Tensor Memory of both the current and the peer CTAs\", and",
        "// tcgen05_shift.ptx's rule (rows 0..30 of the 32 lanes move to rows 1..31 over 8 columns,",
        "// row 0 keeps its value).",
        "// run: --grid 2 --block 128 --cluster 2 --arch sm_100a",
        f"// arg: zeros:u32:{2 * off}",
        f"// expect arg0: [{', '.join(hex(v) for v in expect + expect)}]",
    ]
    write(os.path.join(ROOT, "tests/run/warp", "tcgen05_shift_pair.ptx"), "\n".join(head) + "\n" + "\n".join(lines))


def tma_mma_file():
    """A CUTLASS-style fp4 x fp6 pipeline: TMA loads A (e2m1, 128 x 128, CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B)
    and B (e3m2, 16 x 128, 16U6_ALIGN16B) with the 128-byte swizzle into shared memory, then four
    tcgen05.mma .kind::f8f6f4 (K = 32 each, the descriptors' start advanced by 32 bytes, the first
    without enable-input-d) accumulate D = A.B. Global rows are packed (element j of a group of 16 at
    bit w j of its 8 or 12 bytes, CUTLASS's sub-byte order); shared memory gets each group in a
    16-byte slot (tools/tma_ref.py's PACKED rule), which tcgen05.mma reads as in place_padded."""
    name = "tcgen05_mma_tma_e2m1_e3m2"
    rng = tc_ref.SplitMix64(tc_ref.seed_of(name))
    M, N, K = 128, 16, 128
    center = rng.next()
    A = [[rng.next() & 0xF for _ in range(K)] for _ in range(M)]
    B = [[tc_ref.gen_bits("e3m2", rng.next(), 1, center) & 0x3F for _ in range(K)] for _ in range(N)]

    def pack(row, w):
        out = b""
        for g in range(0, len(row), 16):
            v = sum(x << (w * j) for j, x in enumerate(row[g:g + 16]))
            out += v.to_bytes(2 * w, "little")
        return out

    ga = b"".join(pack(r, 4) for r in A)  # 64 bytes a row
    gb = b"".join(pack(r, 6) for r in B)  # 96 bytes a row
    D = [[0] * N for _ in range(M)]
    for m in range(M):
        for n in range(N):
            c = 0
            for ks in range(4):
                c = tc_ref.dot("rtx-blackwell", "mma", "e2m1", "e3m2", "f32", "f32",
                               A[m][32 * ks:32 * ks + 32], B[n][32 * ks:32 * ks + 32], c)
            D[m][n] = c
    idesc = (1 << 4) | (TYPE_CODE["e2m1"] << 7) | (TYPE_CODE["e3m2"] << 10) | ((N >> 3) << 17) | ((M >> 4) << 24)
    desc = sm100_desc(0, 1024, "128")
    L = [
        HEADER,
        f".visible .entry {name}(.param .u64 ga, .param .u64 gb, .param .align 64 .b8 ta[128],"
        " .param .align 64 .b8 tb[128], .param .u64 out)",
        "{",
        "\t.reg .b32 %r<32>;",
        "\t.reg .b32 %v<16>;",
        "\t.reg .b64 %rd<16>;",
        "\t.reg .pred %p<4>;",
        "\t.shared .align 1024 .b8 sa[16384];",
        "\t.shared .align 1024 .b8 sb[2048];",
        "\t.shared .align 8 .b64 mbar;",
        "\t.shared .align 8 .b64 mbar2;",
        "\t.shared .align 4 .b32 slot;",
        "\tmov.u32 %r0, %tid.x;",
        "\tshr.u32 %r1, %r0, 5;",
        "\tsetp.ne.u32 %p0, %r1, 0;",
        "\tsetp.ne.u32 %p1, %r0, 0;",
        "\t@%p0 bra SKIP_ALLOC;",
        "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
        "SKIP_ALLOC:",
        "\t@%p1 bra SKIP_LOAD;",
        "\tmbarrier.init.shared::cta.b64 [mbar], 1;",
        "\tmbarrier.init.shared::cta.b64 [mbar2], 1;",
        "\tfence.proxy.async.shared::cta;",
        f"\tmbarrier.arrive.expect_tx.shared::cta.b64 _, [mbar], {len(ga) + len(gb)};",
        "\tmov.u64 %rd1, ta;",
        "\tcvta.param.u64 %rd2, %rd1;",
        "\tmov.u64 %rd3, tb;",
        "\tcvta.param.u64 %rd4, %rd3;",
        "\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [sa], [%rd2, {0, 0}], [mbar];",
        "\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [sb], [%rd4, {0, 0}], [mbar];",
        "WAIT_TMA:",
        "\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [mbar], 0;",
        "\t@!%p2 bra WAIT_TMA;",
        "SKIP_LOAD:",
        "\ttcgen05.fence::before_thread_sync;",
        "\tbar.sync 0;",
        "\ttcgen05.fence::after_thread_sync;",
        "\tld.shared.b32 %r7, [slot];",
        "\t@%p1 bra SKIP_MMA;",
        "\t// K-major, 128-byte swizzle, SBO 1024: row m at 128 m, as the TMA box lays it out",
    ]
    for reg, var in (("%rd5", "sa"), ("%rd6", "sb")):
        L += [
            f"\tmov.u32 %r2, {var};",
            "\tshr.u32 %r2, %r2, 4;",
            "\tand.b32 %r2, %r2, 0x3fff;",
            f"\tcvt.u64.u32 {reg}, %r2;",
            f"\tor.b64 {reg}, {reg}, {desc:#x};",
        ]
    L += [
        f"\tmov.u32 %r13, {idesc:#x};",
        "\tsetp.ne.u32 %p3, %r0, %r0;",
        "\ttcgen05.mma.cta_group::1.kind::f8f6f4 [%r7], %rd5, %rd6, %r13, %p3;",
        "\tsetp.eq.u32 %p3, %r0, %r0;",
    ]
    for ks in range(1, 4):
        L += [
            f"\tadd.u64 %rd7, %rd5, {2 * ks};",
            f"\tadd.u64 %rd8, %rd6, {2 * ks};",
            "\ttcgen05.mma.cta_group::1.kind::f8f6f4 [%r7], %rd7, %rd8, %r13, %p3;",
        ]
    L += [
        "\tmov.u32 %r15, mbar2;",
        "\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r15];",
        "SKIP_MMA:",
        "WAIT:",
        "\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [mbar2], 0;",
        "\t@!%p2 bra WAIT;",
        "\ttcgen05.fence::after_thread_sync;",
        "\tshl.b32 %r8, %r1, 21;",
        "\tadd.u32 %r9, %r7, %r8;",
        "\ttcgen05.ld.sync.aligned.32x32b.x16.b32 {" + ", ".join(f"%v{j}" for j in range(16)) + "}, [%r9];",
        "\ttcgen05.wait::ld.sync.aligned;",
        "\tld.param.u64 %rd10, [out];",
        "\tcvta.to.global.u64 %rd10, %rd10;",
        "\tmul.wide.u32 %rd11, %r0, 64;",
        "\tadd.u64 %rd12, %rd10, %rd11;",
    ]
    L += [f"\tst.global.u32 [%rd12+{4 * j}], %v{j};" for j in range(16)]
    L += [
        "\ttcgen05.fence::before_thread_sync;",
        "\tbar.sync 0;",
        "\ttcgen05.fence::after_thread_sync;",
        "\t@%p0 bra DONE;",
        "\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r7, 32;",
        "DONE:",
        "\tret;",
        "}",
    ]
    dflat = [D[m][n] for m in range(M) for n in range(N)]
    head = [
        "// TMA feeding tcgen05.mma with fp4 x fp6 operands, as CUTLASS's SM100 f8f6f4 GEMMs do: A (e2m1,",
        "// 128 x 128) through a .b4x16_p64 (16U4_ALIGN16B) map and B (e3m2, 16 x 128) through a",
        "// .b6x16_p32 (16U6_ALIGN16B) map, both with the 128-byte swizzle, into shared memory; four",
        "// tcgen05.mma .kind::f8f6f4 (M = 128, N = 16, K = 32 each; descriptors K-major, 128-byte",
        "// swizzle, start advanced by 32 bytes per k-step; enable-input-d 0 then 1) issued by thread 0;",
        "// D row m read back from lane m. Generated by tools/tcgen05_ref.py (tma_mma_file): global rows",
        "// packed lowest element first (CUTLASS's sub-byte order), shared memory as tools/tma_ref.py's",
        "// PACKED rule lays it out and place_padded reads it, D chained through tools/tc_ref.py's exact",
        "// model of tcgen05 (one block per 32 bytes of A).",
        "// run: --grid 1 --block 128 --arch sm_100a",
        f"// arg: u32[{len(ga) // 4}] = {wgmma_ref.hexlist(wgmma_ref.u32s(ga))}",
        f"// arg: u32[{len(gb) // 4}] = {wgmma_ref.hexlist(wgmma_ref.u32s(gb))}",
        "// arg: tmap:0:b4x16_p64:128,128:64:128,128:swizzle=128",
        "// arg: tmap:1:b6x16_p32:128,16:96:128,16:swizzle=128",
        f"// arg: zeros:u32:{len(dflat)}",
        f"// expect arg4: {wgmma_ref.hexlist(dflat)}",
    ]
    write(os.path.join(ROOT, "tests/run/warp", name + ".ptx"), "\n".join(head) + "\n" + "\n".join(L) + "\n")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def emit(fname, what, lines, expect, total, desc):
    head = [
        f"// tcgen05 Tensor Memory, {what} (sm_100a): one CTA of 4 warps; warp w reaches lanes",
        "// 32w..32w+31. Generated by tools/tcgen05_ref.py: Tensor Memory is filled through",
        "// 32x32b stores with cell (lane L, column c) = ((v ^ 0x5a5a) << 16) | v, v = L | c << 7;",
        "// expected registers / cells from CUTLASS's (thread, value) -> bit layouts of the copy",
        "// atoms (the PTX manual's figures), evaluated in Python. Cases, in output order:",
    ]
    head += [f"//   {d}" for d in desc]
    head.append("// run: --grid 1 --block 128 --arch sm_100a")
    head.append(f"// arg: zeros:u32:{total}")
    for off, vals in expect:
        head.append(
            f"// expect arg0[{off}..{off + len(vals)}]: [{', '.join(hex(v) for v in vals)}]"
        )
    write(os.path.join(ROOT, "tests/run/warp", fname), "\n".join(head) + "\n" + "\n".join(lines))


ERRORS = {
    "tcgen05_pair_no_peer": (
        "a .cta_group::2 instruction in a CTA without a peer (a cluster of one CTA; ISA \"CTA Pair\")",
        ["\ttcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [slot], 32;"],
        ["tcgen05.alloc.cta_group::2", "has no peer CTA (rank 1)"],
    ),
    "tcgen05_mma_pair_sp_m128": (
        "tcgen05.mma.sp.cta_group::2 with M = 128 (Layout C and its metadata are figures: not modelled)",
        [
            "\tmov.b64 %rd1, 0;",
            "\tmov.u32 %r4, 0x8040014;",
            "\tsetp.eq.u32 %q0, %r4, %r4;",
            "\ttcgen05.mma.sp.cta_group::2.kind::f16 [%r3], %rd1, %rd1, [%r3], %r4, %q0;",
        ],
        ["tcgen05.mma.sp.cta_group::2.kind::f16", "M = 128", "modelled for M = 256 only"],
    ),
    "tcgen05_mma_pair_m64": (
        "tcgen05.mma.cta_group::2 with M = 64 (ISA \"Matrix shape\": M = 128 or 256 for .cta_group::2)",
        [
            "\tmov.b64 %rd1, 0;",
            "\tmov.u32 %r4, 0x4040010;",
            "\tsetp.eq.u32 %q0, %r4, %r4;",
            "\ttcgen05.mma.cta_group::2.kind::f16 [%r3], %rd1, %rd1, %r4, %q0;",
        ],
        ["tcgen05.mma.cta_group::2.kind::f16", "M = 64, N = 16", "needs M = 128 or 256"],
    ),
    "tcgen05_alloc_ncols": (
        "nCols not a power of two in [32, 512] (from a register: ptxas rejects an immediate 48)",
        [
            "\tmov.u32 %r1, 48;",
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], %r1;",
        ],
        ["power of two in [32, 512]", "tcgen05.alloc"],
    ),
    "tcgen05_alloc_full": (
        "a second allocation when all 512 columns are taken (the GPU blocks forever)",
        [
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 512;",
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
        ],
        ["out of Tensor Memory", "512 of 512"],
    ),
    "tcgen05_alloc_relinquished": (
        "tcgen05.alloc after tcgen05.relinquish_alloc_permit",
        [
            "\ttcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
        ],
        ["relinquish_alloc_permit"],
    ),
    "tcgen05_dealloc_size": (
        "tcgen05.dealloc with a size other than the allocation's",
        [
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 64;",
            "\tld.shared.b32 %r3, [slot];",
            "\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r3, 32;",
        ],
        ["dealloc of 32 columns", "allocation of 64 columns"],
    ),
    "tcgen05_leak": (
        "the kernel exits with Tensor Memory allocated",
        ["\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 128;"],
        ["still allocated", "tcgen05.dealloc"],
    ),
    "tcgen05_ld_unallocated": (
        "tcgen05.ld of a column past the allocation (32 columns; .x2 at column 31 reaches 32)",
        [
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
            "\tld.shared.b32 %r3, [slot];",
            "\tadd.u32 %r4, %r3, 31;",
            "\ttcgen05.ld.sync.aligned.32x32b.x2.b32 {%r5, %r6}, [%r4];",
        ],
        ["column 32", "not allocated", "columns 0..32"],
    ),
    "tcgen05_ld_other_quarter": (
        "warp 1 reads lanes 0..31, which belong to warp 0 of the warpgroup",
        [
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
            "\tld.shared.b32 %r3, [slot];",
            "\tbar.sync 0;",
            "\tbra.uni SECOND;",
        ],
        ["warp 1", "can access only lanes 32..64"],
    ),
    "tcgen05_mma_m64_lane32": (
        "tcgen05.mma with M = 64 and D at lane 32 (Layout F: the ISA's lane alignment is 0 or 16)",
        [
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
            "\tld.shared.b32 %r3, [slot];",
            "\tadd.u32 %r5, %r3, 0x200000;",
            "\tmov.b64 %rd1, 0x400000000000;",
            "\tsetp.eq.u32 %q0, %r3, %r3;",
            f"\tmov.u32 %r4, {(1 << 4) | ((16 >> 3) << 17) | ((64 >> 4) << 24):#x};",
            "\ttcgen05.mma.cta_group::1.kind::f16 [%r5], %rd1, %rd1, %r4, %q0;",
        ],
        ["must be at lane 0 or 16 for M = 64", "tcgen05.mma"],
    ),
    "tcgen05_mma_e2m1_tmem_a": (
        "tcgen05.mma .kind::f8f6f4 with an e2m1 A in Tensor Memory (its packing there is only in the"
        " ISA's Figures 199-201: not modelled)",
        [
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
            "\tld.shared.b32 %r3, [slot];",
            "\tmov.b64 %rd1, 0x400000000000;",
            "\tsetp.eq.u32 %q0, %r3, %r3;",
            f"\tmov.u32 %r4, {(1 << 4) | (5 << 7) | ((16 >> 3) << 17) | ((128 >> 4) << 24):#x};",
            "\ttcgen05.mma.cta_group::1.kind::f8f6f4 [%r3], [%r3], %rd1, %r4, %q0;",
        ],
        ["tcgen05.mma.cta_group::1.kind::f8f6f4", "A in Tensor Memory with 4-bit elements",
         "only shown in figures"],
    ),
    "tcgen05_mma_sw128a32_kmajor": (
        "tcgen05.mma with a K-major A in descriptor swizzle mode 1 (128-byte swizzle with 32-byte"
        " atoms: CUTLASS's make_umma_desc says it is invalid for K-major; the ISA's layouts are figures)",
        [
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
            "\tld.shared.b32 %r3, [slot];",
            "\tmov.b64 %rd1, 0x2000400000000000;",
            "\tsetp.eq.u32 %q0, %r3, %r3;",
            f"\tmov.u32 %r4, {(1 << 4) | ((16 >> 3) << 17) | ((128 >> 4) << 24):#x};",
            "\ttcgen05.mma.cta_group::1.kind::f16 [%r3], %rd1, %rd1, %r4, %q0;",
        ],
        ["tcgen05.mma.cta_group::1.kind::f16", "32-byte atoms", "MN-major operands only"],
    ),
    "tcgen05_shift_misaligned": (
        "tcgen05.shift at lane 16 (the ISA: the address's lane must be aligned to 32)",
        [
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
            "\tld.shared.b32 %r3, [slot];",
            "\tadd.u32 %r5, %r3, 0x100000;",
            "\ttcgen05.shift.cta_group::1.down [%r5];",
        ],
        ["must be aligned to 32", "tcgen05.shift"],
    ),
    "tcgen05_mma_sp_selector": (
        "tcgen05.mma.sp kind::i8 with sparsity selector 1 (the ISA: it must be 0 for kind::i8 and kind::f8f6f4)",
        [
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
            "\tld.shared.b32 %r3, [slot];",
            "\tmov.b64 %rd1, 0x400000000000;",
            "\tsetp.eq.u32 %q0, %r3, %r3;",
            f"\tmov.u32 %r4, {1 | (1 << 2) | (2 << 4) | ((16 >> 3) << 17) | ((128 >> 4) << 24):#x};",
            "\ttcgen05.mma.sp.cta_group::1.kind::i8 [%r3], %rd1, %rd1, [%r3], %r4, %q0;",
        ],
        ["sparsity selector 1", "must be 0 for kind::f8f6f4 and kind::i8", "tcgen05.mma.sp"],
    ),
    "tcgen05_mma_ws_n": (
        "tcgen05.mma.ws with N = 32 (the ISA's .ws shapes: N = 64, 128 or 256)",
        [
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
            "\tld.shared.b32 %r3, [slot];",
            "\tmov.b64 %rd1, 0x400000000000;",
            "\tsetp.eq.u32 %q0, %r3, %r3;",
            f"\tmov.u32 %r4, {(1 << 4) | ((32 >> 3) << 17) | ((64 >> 4) << 24):#x};",
            "\ttcgen05.mma.ws.cta_group::1.kind::f16 [%r3], %rd1, %rd1, %r4, %q0;",
        ],
        ["N = 32", "is not one of 64, 128, 256 for `.ws`", "tcgen05.mma.ws"],
    ),
    "tcgen05_mma_ws_zmask": (
        "tcgen05.mma.ws with a zero-column mask descriptor whose start count (9) is past its first span (4 columns of B): the ISA does not describe it",
        [
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
            "\tld.shared.b32 %r3, [slot];",
            "\tmov.b64 %rd1, 0x400000000000;",
            "\tsetp.eq.u32 %q0, %r3, %r3;",
            f"\tmov.u32 %r4, {(1 << 4) | ((64 >> 3) << 17) | ((128 >> 4) << 24):#x};",
            "\tmov.b64 %rd0, 0x0003028000000009;",
            "\ttcgen05.mma.ws.cta_group::1.kind::f16 [%r3], %rd1, %rd1, %r4, %q0, %rd0;",
        ],
        ["zero-column mask descriptor 0x0003028000000009", "start count 9 of sub-mask 0",
         "not inside its first span", "tcgen05.mma.ws"],
    ),
    "tcgen05_mma_ws_zmask_shift": (
        "tcgen05.mma.ws M = 32 with a column shift of 17 (the ISA: at most 16 for M = 32)",
        [
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
            "\tld.shared.b32 %r3, [slot];",
            "\tmov.b64 %rd1, 0x400000000000;",
            "\tsetp.eq.u32 %q0, %r3, %r3;",
            f"\tmov.u32 %r4, {(1 << 4) | ((64 >> 3) << 17) | ((32 >> 4) << 24) | (3 << 30):#x};",
            "\tmov.b64 %rd0, 0x1100000000000000;",
            "\ttcgen05.mma.ws.cta_group::1.kind::f16 [%r3], %rd1, %rd1, %r4, %q0, %rd0;",
        ],
        ["column shift 17 is above the maximum 16 for M = 32", "tcgen05.mma.ws"],
    ),
    "tcgen05_mma_bs_sf_id": (
        "block-scaled tcgen05.mma (kind::mxf4, 2 scale factors per row) whose SF-A ID is 1: the ISA allows 0 or 2 (a byte pair)",
        [
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
            "\tld.shared.b32 %r3, [slot];",
            "\tmov.b64 %rd1, 0x400000000000;",
            "\tsetp.eq.u32 %q0, %r3, %r3;",
            f"\tmov.u32 %r4, {(1 << 7) | (1 << 10) | ((16 >> 3) << 17) | (1 << 23) | (1 << 27) | (1 << 29):#x};",
            "\ttcgen05.mma.cta_group::1.kind::mxf4.block_scale [%r3], %rd1, %rd1, %r4, [%r3], [%r3], %q0;",
        ],
        ["scale factor IDs A 1, B 0 are not valid for scale_vec::2X", "tcgen05.mma"],
    ),
    "tcgen05_mma_d_unallocated": (
        "tcgen05.mma whose D (N = 64 columns) does not fit the 32 allocated columns",
        [
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;",
            "\tld.shared.b32 %r3, [slot];",
            "\tmov.b64 %rd1, 0x400000000000;",
            "\tsetp.eq.u32 %q0, %r3, %r3;",
            f"\tmov.u32 %r4, {(1 << 4) | ((64 >> 3) << 17) | ((128 >> 4) << 24):#x};",
            "\ttcgen05.mma.cta_group::1.kind::f16 [%r3], %rd1, %rd1, %r4, %q0;",
        ],
        ["column 32", "not allocated"],
    ),
}


def error_file(name, what, body, errs):
    lines = [f"// tcgen05: {what} must fault with a clear message (hand-written expectation)."]
    lines.append("// Generated by tools/tcgen05_ref.py.")
    lines.append(f"// run: --grid 1 --block {64 if name == 'tcgen05_ld_other_quarter' else 32} --arch sm_100a")
    for e in errs:
        lines.append(f"// expect error: {e}")
    lines.append(HEADER)
    lines.append(".visible .entry k()")
    lines.append("{")
    lines.append("\t.reg .b32 %r<8>;")
    if "%rd1" in "".join(body):
        lines.append("\t.reg .b64 %rd<2>;")
        lines.append("\t.reg .pred %q<1>;")
    lines.append("\t.shared .align 4 .b32 slot;")
    if name == "tcgen05_ld_other_quarter":
        lines.append("\tmov.u32 %r0, %tid.x;")
        lines.append("\tshr.u32 %r1, %r0, 5;")
        lines.append("\tsetp.ne.u32 %p0, %r1, 0;")
        lines.insert(lines.index("\t.shared .align 4 .b32 slot;"), "\t.reg .pred %p<1>;")
        lines.append("\t@%p0 bra WAIT;")
        lines.append(body[0])
        lines.append("WAIT:")
        lines.append("\tbar.sync 0;")
        lines.append("\tld.shared.b32 %r3, [slot];")
        lines.append("\t@!%p0 bra DONE;")
        lines.append("\ttcgen05.ld.sync.aligned.32x32b.x1.b32 {%r5}, [%r3];")
        lines.append("DONE:")
    else:
        lines += body
    lines.append("\tret;")
    lines.append("}")
    write(os.path.join(ROOT, "tests/run/errors", name + ".ptx"), "\n".join(lines) + "\n")


def main():
    # ld: every shape; .num small, middle, the largest; .pack::16b; 16-lane shapes also at lane +16.
    ld = {
        "32x32b": [(1, False, 0, 5, None), (4, False, 0, 64, None), (16, False, 0, 384, None), (2, True, 0, 7, None)],
        "16x64b": [(1, False, 0, 3, None), (2, False, 16, 32, None), (16, False, 0, 256, None), (4, True, 16, 100, None)],
        "16x128b": [(1, False, 0, 0, None), (2, False, 16, 9, None), (8, False, 0, 256, None), (2, True, 0, 40, None)],
        "16x256b": [(1, False, 0, 0, None), (4, False, 16, 64, None), (2, True, 16, 300, None)],
        "16x32bx2": [(1, False, 0, 0, 1), (2, False, 16, 10, 2), (4, False, 0, 20, 100), (8, False, 0, 256, 8), (2, True, 0, 50, 4)],
    }
    for shape, cases in ld.items():
        lines, expect, total, desc = ld_file(shape, cases)
        emit(f"tcgen05_ld_{shape}.ptx", f"tcgen05.ld.{shape}", lines, expect, total, desc)
    for shape in REGS:
        forms_file(shape)
    st = {
        "32x32b": [(1, False, 0, 3, None, 1), (8, False, 0, 20, None, 8), (2, True, 0, 40, None, 4)],
        "16x64b": [(1, False, 0, 3, None, 2), (4, False, 16, 20, None, 8), (2, True, 0, 40, None, 8)],
        "16x128b": [(1, False, 16, 3, None, 4), (2, False, 0, 20, None, 8), (2, True, 0, 40, None, 16)],
        "16x256b": [(1, False, 0, 3, None, 8), (2, False, 16, 20, None, 16), (1, True, 0, 40, None, 16)],
        "16x32bx2": [(1, False, 0, 3, 1, 2), (2, False, 16, 20, 5, 7), (2, True, 0, 40, 4, 8)],
    }
    for shape, cases in st.items():
        lines, expect, total, desc = st_file(shape, cases)
        emit(f"tcgen05_st_{shape}.ptx", f"tcgen05.st.{shape}", lines, expect, total, desc)
    for case in MMA_CASES:
        mma_file(case)
    for case in MMA_PAIR_CASES:
        mma_pair_file(case)
    for case in CP_CASES:
        cp_file(case)
    for case in CP_PAIR_CASES:
        cp_file(case, pair=True)
    for case in MMA_BS_CASES:
        mma_bs_file(case)
    tma_mma_file()
    for name, (what, body, errs) in ERRORS.items():
        error_file(name, what, body, errs)
    shift_file()
    shift_pair_file()
    ldred_file("32x32b", "sm_103a")
    ldred_file("16x32bx2", "sm_110a")


if __name__ == "__main__":
    main()
