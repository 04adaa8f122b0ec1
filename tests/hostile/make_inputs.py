#!/usr/bin/env python3
"""Writes the hostile suite's cases and inputs (tests/hostile/**). Run from anywhere;
the files it writes are committed, so the suite does not need Python. Each case says in
its comment what class of misbehaviour it guards against (issue 10) and why the expected
exit code is the documented one (0 ok, 1 bad input or guest fault, 2 usage error)."""
import os, struct

HERE = os.path.dirname(os.path.abspath(__file__))
HDR = ".version 8.0\n.target sm_80\n.address_size 64\n"
VPRINTF = """.extern .func (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
"""
count = 0

def put(path, data):
    path = os.path.join(HERE, path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path, mode) as f:
        f.write(data)

def case(path, comment, args, exit, stderr=(), stdout=(), **kw):
    global count
    count += 1
    lines = ["# " + l for l in comment.strip().split("\n")]
    lines.append("args: " + args)
    lines.append("exit: %d" % exit)
    for s in ([stderr] if isinstance(stderr, str) else stderr):
        lines.append("stderr: " + s)
    for s in ([stdout] if isinstance(stdout, str) else stdout):
        lines.append("stdout: " + s)
    for k, v in kw.items():
        k = k.replace("_", "-")
        for x in (v if isinstance(v, list) else [v]):
            lines.append("%s: %s" % (k, x))
    put(path + ".case", "\n".join(lines) + "\n")

def cstr(name, s):
    b = list(s.encode()) + [0]
    return ".global .align 1 .b8 %s[%d] = {%s};\n" % (name, len(b), ", ".join(map(str, b)))

def printf_kernel(fmt, stores="", extra_globals="", loop=False, local=64):
    """A kernel calling vprintf(fmt, args); `stores` fill the argument buffer at %rd1
    (local) before the call."""
    body = f"""
.visible .entry k(.param .u64 buf)
{{
	.local .align 8 .b8 depot[{local}];
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<8>;
	mov.u64 %rd1, depot;
	cvta.local.u64 %rd2, %rd1;
	mov.u64 %rd3, $fmt;
	cvta.global.u64 %rd3, %rd3;
{stores}
{"LOOP:" if loop else ""}
	{{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd3;
	.param .b64 param1;
	st.param.b64 [param1+0], %rd2;
	.param .b32 retval0;
	call.uni (retval0), vprintf, (param0, param1);
	}}
{"	bra.uni LOOP;" if loop else ""}
	ret;
}}
"""
    return HDR + VPRINTF + cstr("$fmt", fmt) + extra_globals + body

P = "run {dir}/%s --grid 1 --block 1"

# ------------------------------------------------------------------------------------------
# 1. Panics on guest data
# ------------------------------------------------------------------------------------------
d = "panics/"
put(d + "printf_precision_70000.ptx", printf_kernel("%.70000e\n", "\tst.local.f64 [%rd1], 0d3FF8000000000000;"))
case(d + "printf_precision_70000", "Device printf with a precision >= 65536 panicked in Rust's formatter. C prints all\n70000 digits (exact zeros beyond a double's digits).",
     P % "printf_precision_70000.ptx" + " --arg zeros:u8:1", 0, stdout_min=70004, stdout="1.5000000")
put(d + "printf_star_precision.ptx", printf_kernel("%.*f|%*d\n",
    "\tst.local.u32 [%rd1], 2147483647;\n\tst.local.f64 [%rd1+8], 0d3FF8000000000000;\n\tst.local.u32 [%rd1+16], -2147483648;\n\tst.local.u32 [%rd1+20], 7;"))
case(d + "printf_star_precision", "`%.*f` with the precision read from guest memory (INT_MAX) and `%*d` with INT_MIN:\nbounded by the printf FIFO (1 MiB), the call is dropped with a note, no panic.",
     P % "printf_star_precision.ptx" + " --arg zeros:u8:1", 0, stderr="the output of 1 device printf calls", stdout_max=1 << 20)
put(d + "printf_g_corners.ptx", printf_kernel("%.0g %#.0g %#g %.65536g %-#70000.3g|%g %G %e\n",
    "".join("\tst.local.f64 [%%rd1+%d], %s;\n" % (8 * i, v) for i, v in enumerate(
        ["0d0000000000000001", "0d7FEFFFFFFFFFFFFF", "0d8000000000000000", "0d3FF8000000000000",
         "0d3FF8000000000000", "0d7FF8000000000000", "0dFFF0000000000000", "0d0010000000000000"]))))
case(d + "printf_g_corners", "%g corners: precision 0, '#', the smallest subnormal, DBL_MAX, -0, NaN, -inf,\nhuge widths and precisions.",
     P % "printf_g_corners.ptx" + " --arg zeros:u8:1", 0, stdout=["5e-324", "2.e+308", "-0.00000", "nan", "-INF"])
put(d + "printf_many_strings.ptx", printf_kernel("%s" * 2000 + "\n",
    "\tmov.u64 %rd4, $long;\n\tcvta.global.u64 %rd4, %rd4;\n" + "".join("\tst.local.u64 [%%rd1+%d], %%rd4;\n" % (8 * i) for i in range(2000)),
    extra_globals=".global .align 1 .b8 $long[65536];\n", local=16000).replace("\t.local .align 8 .b8 depot[16000];", "\t.local .align 8 .b8 depot[16000];"))
case(d + "printf_many_strings", "One vprintf of 2000 `%s` (the strings are 64 KiB of zero bytes, so each is empty):\nthe format and the string reads are counted as work; it finishes at once.",
     P % "printf_many_strings.ptx" + " --arg zeros:u8:1", 0, timeout=20)
put(d + "printf_long_strings.ptx", printf_kernel("%s" * 200 + "\n",
    "\tmov.u64 %rd4, $long;\n\tcvta.global.u64 %rd4, %rd4;\n" + "".join("\tst.local.u64 [%%rd1+%d], %%rd4;\n" % (8 * i) for i in range(200)),
    extra_globals=cstr("$long", "x" * 60000), local=1600))
case(d + "printf_long_strings", "200 `%s` of 60,000 characters each (12 MB of text from one call): the call does not\nfit the 1 MiB FIFO and is dropped with a note; formatting stops at the FIFO's size.",
     P % "printf_long_strings.ptx" + " --arg zeros:u8:1", 0, stderr="was dropped: the printf FIFO holds 1048576 bytes", stdout_max=0)
case(d + "hex_non_ascii", "`--arg 'hex:€a'` panicked (byte-index slicing in a multi-byte character).",
     "run examples/vector_add.ptx --kernel vec_add_f32 --grid 1 --block 1 --arg hex:€a --arg zeros:f32:1 --arg zeros:f32:1 --arg u32:1", 2, stderr="`€` is not a hex digit")
case(d + "stderr_closed_fault", "A guest fault with stderr closed: eprintln! panicked writing the error. The exit code\nis still the fault's (1).",
     "run tests/run/errors/trap.ptx --grid 2 --block 4 --arg zeros:u32:8", 1, stderr_to="closed")
case(d + "stderr_full_usage", "A usage error with stderr on a full device: exit 2, no panic.",
     "run examples/vector_add.ptx --grid 0 --block 1", 2, stderr_to="/dev/full")
case(d + "stdout_full_printf", "Device printf output to a full stdout: an error (exit 1), not a panic or exit 0.",
     "run tests/run/printf/hello.ptx --grid 1 --block 4 --arg zeros:u32:4", 1, stdout_to="/dev/full", stderr="cannot write device printf output")
case(d + "stdout_closed_check", "Diagnostics to a closed stdout (Rust's standard library treats a closed stdout as\n/dev/null): the exit code is still the check's.",
     "check examples/broken.ptx", 1, stdout_to="closed")
case(d + "help_to_full", "--help to a full stdout: exit 1 (the output is the point of --help).",
     "--help", 1, stdout_to="/dev/full")

# ------------------------------------------------------------------------------------------
# 2. Unbounded recursion in the front end
# ------------------------------------------------------------------------------------------
d = "recursion/"
N = 10000
deep = {
    "braces": HDR + ".visible .entry k()\n{\n" + "{" * N + "}" * N + "\nret;\n}\n",
    "parens": HDR + ".global .u32 g = " + "(" * N + "1" + ")" * N + ";\n",
    "unary": HDR + ".global .u32 g = " + "-~" * (N // 2) + "1;\n",
    "conditional": HDR + ".global .u32 g = " + "1?" * N + "1" + ":1" * N + ";\n",
    "initialiser": HDR + ".global .u32 g[1] = " + "{" * N + "1" + "}" * N + ";\n",
    "brackets": HDR + ".visible .entry k()\n{\n.reg .b32 %r<2>;\nld.global.u32 %r1, " + "[" * N + "0" + "]" * N + ";\nret;\n}\n",
    "vectors": HDR + ".visible .entry k()\n{\nmov.b64 %rd1, " + "{" * N + "}" * N + ";\nret;\n}\n",
    "pairs": HDR + ".visible .entry k()\n{\nsetp.eq.u32 " + "|".join(["%p"] * N) + ", 1, 1;\nret;\n}\n",
    "call_args": HDR + ".global .u32 g = " + "f(" * 3000 + "1" + ")" * 3000 + ";\n",
}
for name, text in deep.items():
    put(d + "deep_%s.ptx" % name, text)
    for cmd in ["check", "fmt", "info"]:
        case(d + "deep_%s_%s" % (name, cmd), "%d levels of %s overflowed the parser's stack (abort). Now a syntax error naming\nthe nesting limit (256), exit 1." % (N, name),
             "%s {dir}/deep_%s.ptx" % (cmd, name), 1, stdout="nesting deeper than 256" if cmd == "check" else (), stderr=() if cmd == "check" else ())
case(d + "deep_braces_run", "Deep nesting through `ptxvm run`: the module has errors, exit 1.",
     "run {dir}/deep_braces.ptx --grid 1 --block 1", 1, stderr="nesting deeper than 256")
put(d + "include_dev_zero.ptx", '#include "/dev/zero"\n' + HDR)
case(d + "include_dev_zero", '`#include "/dev/zero"` read until memory ran out. Only regular files are included.',
     "check {dir}/include_dev_zero.ptx", 1, stdout="not a regular file")
put(d + "include_self.ptx", '#include "include_self.ptx"\n#include "include_self.ptx"\n' + HDR)
case(d + "include_self", "A file that includes itself twice: at most 16 levels and 1024 includes, not 2^16\ncopies.",
     "check {dir}/include_self.ptx", 1, stdout="levels deep")
put(d + "include_dir.ptx", '#include "."\n' + HDR)
case(d + "include_directory", "Including a directory: refused, not read.",
     "check {dir}/include_dir.ptx", 1, stdout="not a regular file")
put(d + "macro_bomb.ptx", "#define A A A A A A A A A A A A A A A A\n" + HDR + "A\n")
case(d + "macro_bomb", "A self-multiplying macro (16^8 copies after 8 rounds): bounded at 1 MiB per line.",
     "check {dir}/macro_bomb.ptx", 1, stdout="macro expansion of this line exceeds")
case(d + "main_dev_zero", "The main file is /dev/zero: read up to the 256 MiB source limit, then refused.",
     "check /dev/zero", 1, stderr="longer than the limit", timeout=30)
case(d + "main_directory", "The main file is a directory.",
     "fmt tests", 1, stderr="directory")

# ------------------------------------------------------------------------------------------
# 3. Sizes that wrap or truncate
# ------------------------------------------------------------------------------------------
d = "sizes/"
put(d + "shared_4g.ptx", HDR + ".visible .entry k(.param .u64 p)\n{\n.shared .b8 a[4294967312];\n.shared .b8 b[16];\n.reg .b64 %rd<2>;\nmov.u64 %rd1, a;\nst.shared.u8 [%rd1], 1;\nret;\n}\n")
case(d + "shared_4g", "`.shared .b8 a[4294967312]` became 16 bytes aliasing the next variable. Refused at load.",
     "run {dir}/shared_4g.ptx --grid 1 --block 1 --arg u64:0", 1, stderr="more than any CTA can have")
put(d + "global_2_64.ptx", HDR + ".global .b8 g[4294967296][4294967296];\n.visible .entry k(){ret;}\n")
case(d + "global_2_64", "`.global g[2^32][2^32]` got size 0. Its size does not fit 64 bits: an error.",
     "check {dir}/global_2_64.ptx", 1, stdout="larger than 281474976710656 bytes")
put(d + "global_huge.ptx", HDR + ".global .b8 g[100000000000];\n.visible .entry k(){ret;}\n")
case(d + "global_huge", "A 100 GB `.global` variable: checks, but does not fit the device's 16 GiB: load error.",
     "run {dir}/global_huge.ptx --grid 1 --block 1", 1, stderr="out of device memory")
put(d + "param_4g.ptx", HDR + ".visible .entry k(.param .align 1 .b8 p[4294967300])\n{\nret;\n}\n")
case(d + "param_4g", "A 4 GiB + 4 `.param` accepted 4 bytes. Kernel parameters are limited to CUDA's 32764 bytes.",
     "run {dir}/param_4g.ptx --grid 1 --block 1 --arg hex:00000000", 1, stderr="larger than ptxvm can lay out")
put(d + "param_40k.ptx", HDR + ".visible .entry k(.param .align 1 .b8 p[40000])\n{\nret;\n}\n")
case(d + "param_40k", "40,000 bytes of kernel parameters: over CUDA's 32764.",
     "run {dir}/param_40k.ptx --grid 1 --block 1 --arg hex:00", 1, stderr="more than CUDA's limit of 32764")
put(d + "func_param_4g.ptx", HDR + ".func f(.param .align 1 .b8 p[4294967300])\n{\nret;\n}\n.visible .entry k()\n{\nret;\n}\n")
case(d + "func_param_4g", "A function parameter of 4 GiB: its layout does not fit 32 bits: load error.",
     "run {dir}/func_param_4g.ptx --grid 1 --block 1", 1, stderr="larger than ptxvm can lay out")
V = "run examples/vector_add.ptx --kernel vec_add_f32 --grid 1 --block 1 "
case(d + "zeros_2_62", "`zeros:f32:2^62` wrote a corrupt .npy and exited 0: its byte count overflows.",
     V + "--arg zeros:f32:4611686018427387904 --arg zeros:f32:1 --arg zeros:f32:1 --arg u32:1", 2, stderr="do not fit in 64 bits")
case(d + "zeros_too_big", "`zeros:f32:99999999999` aborted allocating host memory. It is more than the device's memory.",
     V + "--arg zeros:f32:99999999999 --arg zeros:f32:1 --arg zeros:f32:1 --arg u32:1", 2, stderr=["out of device memory", "--device-memory"])
case(d + "zeros_device_memory", "A buffer larger than --device-memory.",
     V + "--device-memory 1M --arg zeros:f32:1000000 --arg zeros:f32:1 --arg zeros:f32:1 --arg u32:1", 2, stderr="out of device memory")
case(d + "zeros_big_ok", "A 256 MiB zero buffer is allocated on the device only (no host copy) and written\nback in chunks.",
     V + "--arg zeros:f32:67108864 --arg zeros:f32:1 --arg zeros:f32:1 --arg u32:1 --out {tmp}/out", 0, timeout=60,
     file_contains="{tmp}/out/arg0.npy (67108864,)")
case(d + "u32_double_minus", "`--arg u32:--5` was 5.", V + "--arg zeros:f32:1 --arg zeros:f32:1 --arg zeros:f32:1 --arg u32:--5", 2, stderr="is not an integer")
case(d + "u32_plus", "`u32:+5`: only digits and one leading minus.", V + "--arg zeros:f32:1 --arg zeros:f32:1 --arg zeros:f32:1 --arg u32:+5", 2, stderr="is not an integer")
case(d + "u32_overflow", "`u32:4294967296` does not fit.", V + "--arg zeros:f32:1 --arg zeros:f32:1 --arg zeros:f32:1 --arg u32:4294967296", 2, stderr="does not fit in u32")
case(d + "f32_1e300", "`f32:1e300` silently became inf.", V + "--arg zeros:f32:1 --arg zeros:f32:1 --arg zeros:f32:1 --arg u32:1 --symbol x=f32:1e300", 2)
put(d + "f32_param.ptx", HDR + ".visible .entry k(.param .f32 x)\n{\nret;\n}\n")
case(d + "f32_out_of_range", "`f32:1e300` for a .f32 parameter: out of range, not infinity.", "run {dir}/f32_param.ptx --grid 1 --block 1 --arg f32:1e300", 2, stderr="out of range for f32")
case(d + "f16_out_of_range", "`f16:70000` is out of range for f16.", "run {dir}/f32_param.ptx --grid 1 --block 1 --arg f16:70000", 2, stderr="out of range for f16")
case(d + "f32_inf_spelled", "`f32:inf` spelled out is infinity, accepted.", "run {dir}/f32_param.ptx --grid 1 --block 1 --arg f32:-inf", 0)
case(d + "buffer_to_u32", "A buffer passed to a .u32 parameter arrived as its address truncated to 32 bits.",
     V + "--arg zeros:f32:1 --arg zeros:f32:1 --arg zeros:f32:1 --arg zeros:u32:1", 2, stderr="cannot hold a 64-bit address")
case(d + "shared_mem_huge", "`--shared-mem 4294967295`: more than a CTA can have, a usage error.",
     V + "--shared-mem 4294967295 --arg zeros:f32:1 --arg zeros:f32:1 --arg zeros:f32:1 --arg u32:1", 2, stderr="shared memory exceed")
case(d + "grid_huge", "A grid over the device's maximum (2^31-1 in x).",
     "run examples/vector_add.ptx --kernel vec_add_f32 --grid 4294967295 --block 1 --arg zeros:f32:1 --arg zeros:f32:1 --arg zeros:f32:1 --arg u32:1", 2, stderr="exceeds the device limits")
case(d + "cluster_huge", "A cluster shape whose CTA count overflows 64 bits: a usage error, no overflow.",
     "run tests/run/cluster/dsmem_reduce_2.ptx --grid 4 --block 64 --cluster 4294967295,4294967295,4294967295 --non-portable-cluster --arch sm_90 --arg zeros:u32:128", 2,
     stderr="exceed the largest cluster of 16 CTAs")
case(d + "cluster_zero", "A cluster dimension of 0 (it would divide the grid by zero).",
     "run tests/run/cluster/dsmem_reduce_2.ptx --grid 4 --block 64 --cluster 2,0 --arch sm_90 --arg zeros:u32:128", 2,
     stderr="dimensions must be at least 1")
case(d + "printf_fifo_size_overflow", "A byte count that overflows 64 bits.", V + "--printf-fifo 99999999999G", 2, stderr="too large")

# ------------------------------------------------------------------------------------------
# 4. Memory-model holes
# ------------------------------------------------------------------------------------------
d = "memory/"
CONST_K = HDR + ".const .align 4 .u32 c[4] = {1, 2, 3, 4};\n.visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<4>;\nmov.u64 %rd1, c;\nBODY\nret;\n}\n"
put(d + "const_st_global.ptx", CONST_K.replace("BODY", "st.global.u32 [%rd1], 5;"))
put(d + "const_generic.ptx", CONST_K.replace("BODY", "cvta.const.u64 %rd2, %rd1;\nst.u32 [%rd2+4], 5;"))
put(d + "const_atom.ptx", CONST_K.replace("BODY", "atom.global.add.u32 %r1, [%rd1+8], 5;"))
for n, what in [("const_st_global", "st.global"), ("const_generic", "a generic store after cvta.const"), ("const_atom", "atom.global")]:
    case(d + n, ".const memory was writable through %s. It is read-only to the guest." % what,
         "run {dir}/%s.ptx --grid 1 --block 1 --arg u64:0" % n, 1, stderr="read-only")
case(d + "grid_constant", "cvta.param + ld for a __grid_constant__ parameter faulted at a bogus address.",
     "run tests/run/memory/grid_constant_param.ptx --grid 1 --block 1 --arg zeros:u32:7 --arg hex:07000000_09000000_8877665544332211 --out {tmp}/o", 0)
case(d + "grid_constant_write", "A generic store to a kernel parameter: read-only.",
     "run tests/run/errors/write_grid_constant_param.ptx --grid 1 --block 1 --arg u32:5", 1, stderr="kernel parameters are read-only")
case(d + "local_256k", "Local memory was cut at 64 KiB per thread; CUDA allows 512 KiB.",
     "run tests/run/memory/local_array_256k.ptx --grid 1 --block 64 --arg zeros:u32:64", 0)
put(d + "local_512k_all_threads.ptx", HDR + ".visible .entry k(.param .u64 p)\n{\n.local .align 8 .b8 big[524000];\n.reg .b32 %r<3>;\n.reg .b64 %rd<4>;\nmov.u64 %rd1, big;\nmov.u32 %r1, 0;\nL:\nmul.wide.u32 %rd2, %r1, 4096;\nadd.u64 %rd3, %rd1, %rd2;\nst.local.u32 [%rd3], 1;\nadd.u32 %r1, %r1, 1;\nsetp.lt.u32 %p1, %r1, 127;\n@%p1 bra L;\nret;\n}\n".replace(".reg .b32 %r<3>;", ".reg .pred %p<2>;\n.reg .b32 %r<3>;"))
case(d + "local_512k_budget", "1024 threads each touching all of a 512 KiB local array would take 512 MiB; with\n--launch-memory 64M the launch stops with a clear error instead.",
     "run {dir}/local_512k_all_threads.ptx --grid 1 --block 1024 --arg u64:0 --launch-memory 64M", 1, stderr=["out of interpreter memory", "--launch-memory"])
case(d + "local_512k_fits", "The same kernel with 32 threads: 16 MiB of local memory, within the defaults.",
     "run {dir}/local_512k_all_threads.ptx --grid 2 --block 32 --arg u64:0", 0)
case(d + "local_over_512k", "Local variables beyond 512 KiB per thread: refused at launch (usage, 2).",
     "run tests/run/errors/local_array_over_limit.ptx --grid 1 --block 1 --arg zeros:u32:1", 2, stderr="more than the limit of 524288")
case(d + "extern_func_undefined", "A call to an undefined .extern .func said \"unsupported instruction `call`\".",
     "run tests/run/errors/undefined_extern_func.ptx --grid 1 --block 1 --arg zeros:u32:1", 1, stderr="call to `helper`")

# ------------------------------------------------------------------------------------------
# 5. Missing resource limits
# ------------------------------------------------------------------------------------------
d = "limits/"
put(d + "registers_6k.ptx", HDR + ".visible .entry k()\n{\n" + "".join(".reg .b32 %%r%d<1048576>;\n" % i for i in range(200)) + "ret;\n}\n")
case(d + "registers_6k", "A 6 KB file declaring 200 x 2^20 registers made `check` allocate 8 GB. Registers are\ncapped per function (2^20) and module (2^22).",
     "check {dir}/registers_6k.ptx", 1, stdout="too many registers", timeout=20)
case(d + "registers_per_block", "max_registers_per_block was never enforced at launch.",
     "run tests/run/errors/registers_per_block.ptx --grid 1 --block 1024 --arg zeros:u32:72 --arg zeros:u32:1", 2, stderr="too many resources requested for launch")
put(d + "printf_flood.ptx", printf_kernel("flood %d\n", "\tst.local.u32 [%rd1], 7;", loop=True))
case(d + "printf_flood", "printf in an endless loop was buffered without limit. The FIFO keeps 1 MiB, the\nstep budget ends the loop, and the note says what was dropped.",
     "run {dir}/printf_flood.ptx --grid 1 --block 32 --arg u64:0 --max-steps 400000", 1,
     stderr=["instruction budget exhausted", "was dropped"], stdout_max=1 << 20, stdout_min=(1 << 20) - 16, timeout=60)
case(d + "printf_fifo_small", "--printf-fifo bounds the output.",
     "run {dir}/printf_flood.ptx --grid 1 --block 32 --arg u64:0 --max-steps 100000 --printf-fifo 4K", 1,
     stderr="the printf FIFO holds 4096 bytes", stdout_max=4096)
put(d + "many_ctas.ptx", HDR + ".visible .entry k()\n{\nret;\n}\n")
case(d + "many_ctas", "Every finished CTA kept a record until the launch ended (8 GB for 10^8 CTAs). A grid\nof 2^31-1 CTAs now runs into the step budget with flat memory.",
     "run {dir}/many_ctas.ptx --grid 2147483647 --block 1 --max-steps 3000000", 1, stderr="instruction budget exhausted", timeout=60)
put(d + "bulk_copy_loop.ptx", HDR.replace("sm_80", "sm_90") .replace("8.0", "8.0") + """.visible .entry k(.param .u64 src, .param .u64 dst)
{
	.reg .b64 %rd<4>;
	.reg .b32 %r<2>;
	.shared .align 16 .b8 mbar[8];
	ld.param.u64 %rd1, [src];
	ld.param.u64 %rd2, [dst];
LOOP:
	cp.async.bulk.global.shared::cta.bulk_group [%rd2], [sh], 32768;
	bra.uni LOOP;
}
""".replace("[sh]", "[%rd3]").replace("\t.shared .align 16 .b8 mbar[8];\n", "\t.shared .align 16 .b8 sh[32768];\n\tmov.u64 %rd3, sh;\n"))
case(d + "bulk_copy_loop", "A runaway cp.async.bulk loop ran for hours: each copy costs its bytes (one step per\n16) so the budget ends it.",
     "run {dir}/bulk_copy_loop.ptx --grid 1 --block 1 --arg zeros:u8:16 --arg zeros:u8:32768 --max-steps 20000000", 1, stderr="instruction budget exhausted", timeout=60)
put(d + "malloc_loop.ptx", HDR + """.extern .func (.param .b64 r) malloc(.param .b64 n);
.visible .entry k(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b64 %rd<4>;
	.reg .b32 %r<2>;
	mov.u32 %r1, 0;
L:
	{
	.param .b64 n;
	st.param.b64 [n], 1048576;
	.param .b64 r;
	call.uni (r), malloc, (n);
	ld.param.b64 %rd1, [r];
	}
	add.u32 %r1, %r1, 1;
	setp.ne.u64 %p1, %rd1, 0;
	@%p1 bra L;
	ld.param.u64 %rd2, [out];
	st.global.u32 [%rd2], %r1;
	setp.ne.u32 %p1, %r1, 9;
	@%p1 trap;
	ret;
}
""")
case(d + "malloc_heap_limit", "Device malloc in a loop stops at the 8 MiB heap: 8 blocks of 1 MiB, then NULL (the\nkernel counts 9 calls).",
     "run {dir}/malloc_loop.ptx --grid 1 --block 1 --arg zeros:u32:1", 0)
case(d + "malloc_heap_size", "--heap-size 1M: only one block fits, the count is 2, the kernel traps.",
     "run {dir}/malloc_loop.ptx --grid 1 --block 1 --arg zeros:u32:1 --heap-size 1M", 1, stderr="`trap` executed")
put(d + "recursion_big_frames.ptx", HDR + """.func (.param .b32 r) down(.param .b32 n)
{
	.local .align 4 .b8 frame[4096];
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.b32 %r1, [n];
	mov.u64 %rd1, frame;
	st.local.u32 [%rd1], %r1;
	add.u32 %r1, %r1, 1;
	{
	.param .b32 a;
	.param .b32 rr;
	st.param.b32 [a], %r1;
	call (rr), down, (a);
	ld.param.b32 %r2, [rr];
	}
	st.param.b32 [r], %r2;
	ret;
}
.visible .entry k()
{
	.reg .b32 %r<2>;
	{
	.param .b32 a;
	.param .b32 rr;
	st.param.b32 [a], 0;
	call (rr), down, (a);
	}
	ret;
}
""")
case(d + "recursion_stack", "Unbounded recursion with 4 KiB frames runs out of the 512 KiB stack (at depth\n~127), reported with the function and depth.",
     "run {dir}/recursion_big_frames.ptx --grid 1 --block 32", 1, stderr=["stack exhausted calling `down`", "--local-memory"])
case(d + "launch_memory_tiny", "A CTA whose registers alone exceed --launch-memory is refused before it runs.",
     "run examples/vector_add.ptx --kernel vec_add_f32 --grid 1 --block 1024 --arg zeros:f32:1 --arg zeros:f32:1 --arg zeros:f32:1 --arg u32:1 --launch-memory 1K", 2, stderr="launch memory limit")
case(d + "local_memory_option", "--local-memory over ptxvm's 16 MiB maximum.",
     V + "--local-memory 1G --arg zeros:f32:1 --arg zeros:f32:1 --arg zeros:f32:1 --arg u32:1", 2, stderr="ptxvm's limit")

# ------------------------------------------------------------------------------------------
# 6. Wrong exit codes and lost errors
# ------------------------------------------------------------------------------------------
d = "exits/"
case(d + "fmt_dev_full", "`ptxvm fmt k.ptx > /dev/full` exited 0.", "fmt examples/vector_add.ptx", 1, stdout_to="/dev/full", stderr="No space left")
case(d + "info_dev_full", "`ptxvm info > /dev/full`.", "info examples/vector_add.ptx", 1, stdout_to="/dev/full")
case(d + "block_1025", "`--block 1025` exited 1 like a guest fault; a launch the device cannot take is a usage\nerror.", V.replace("--block 1", "--block 1025") + "--arg zeros:f32:1 --arg zeros:f32:1 --arg zeros:f32:1 --arg u32:1", 2, stderr="exceeds the limit of 1024")
case(d + "block_0", "`--block 0`: usage error.", V.replace("--block 1", "--block 0") + "--arg u32:1", 2)
case(d + "block_2048", "`--block 32,32,2`: 2048 threads.", V.replace("--block 1", "--block 32,32,2") + "--arg zeros:f32:1 --arg zeros:f32:1 --arg zeros:f32:1 --arg u32:1", 2)
case(d + "check_missing_then_bad", "`ptxvm check missing.ptx bad.ptx` never checked the second file.",
     "check no/such.ptx examples/broken.ptx", 1, stderr="cannot read `no/such.ptx`", stdout="examples/broken.ptx:15:20")
put(d + "trap_while_spin.ptx", open(os.path.join(HERE, "../run/errors/trap_while_other_cta_spins_t2.ptx")).read())
for t in [1, 2, 4]:
    case(d + "trap_while_spin_t%d" % t, "One CTA traps while another spins: only the step budget was reported, 30 s later.\nNow the trap, at once, with --threads %d." % t,
         "run {dir}/trap_while_spin.ptx --grid 2 --block 32 --arg zeros:u32:1 --threads %d" % t, 1, stderr=["`trap` executed", "CTA (1, 0, 0)"], timeout=10)
put(d + "all_trap.ptx", HDR + ".visible .entry k()\n{\ntrap;\n}\n")
case(d + "first_fault_in_launch_order", "Every CTA traps: the first in launch order is reported (one host thread).",
     "run {dir}/all_trap.ptx --grid 64 --block 32 --threads 1", 1, stderr="CTA (0, 0, 0)", deterministic="yes")
case(d + "symbol_overwrites_arg", "`--symbol arg0=...` overwrote the buffer output arg0.npy.",
     "run tests/fixtures/nvrtc12/atomic_cas_loops.sm_80.ptx --kernel spin_lock_increment --grid 1 --block 32 --arg s32:1 --symbol g_counter=hex:00000000 --symbol g_counter=hex:01000000 --out {tmp}/o", 2, stderr="would overwrite")
put(d + "bool.npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", 118) + b"{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }".ljust(117) + b"\n" + bytes([1, 0, 1, 1]))
put(d + "bool_kernel.ptx", HDR + ".visible .entry k(.param .u64 p)\n{\nret;\n}\n")
case(d + "bool_npy_kept", "A |b1 .npy came back as |i1.",
     "run {dir}/bool_kernel.ptx --grid 1 --block 1 --arg {dir}/bool.npy --out {tmp}/o", 0, file_contains="{tmp}/o/arg0.npy '|b1'")
case(d + "unknown_subcommand", "Unknown subcommand: usage error.", "frobnicate", 2)
case(d + "unknown_kernel", "--kernel naming no kernel: usage error.", "run examples/vector_add.ptx --kernel nope --grid 1 --block 1", 2, stderr="no kernel `nope`")
case(d + "too_few_args", "Fewer --arg than parameters: usage error.", V + "--arg u32:1", 2, stderr="takes 4 parameters")
case(d + "bad_dims", "A malformed --grid: usage error.", "run examples/vector_add.ptx --grid 1,x --block 1", 2)
REST = " --arg zeros:f32:4 --arg zeros:f32:4 --arg u32:4"
case(d + "multicast_scalar", "`--arg multicast:` of a value, not a buffer: usage error.", V + "--arg multicast:u32:5" + REST, 2, stderr="needs a buffer")
case(d + "multicast_nested", "`multicast:multicast:...`: the inner spec is no spec (usage error).", V + "--arg multicast:multicast:zeros:f32:4" + REST, 2, stderr="unknown scalar type `multicast`")
case(d + "multicast_empty", "`multicast:` with nothing after it: usage error.", V + "--arg multicast:" + REST, 2, stderr="--arg 0")
case(d + "multicast_bad_count", "`multicast:zeros:f32:` (no count): usage error.", V + "--arg multicast:zeros:f32:" + REST, 2, stderr="is not a count")
case(d + "multicast_huge", "A multicast buffer larger than the device: usage error, no allocation.", V + "--arg multicast:zeros:f32:4611686018427387903" + REST, 2, stderr="--arg 0")
case(d + "multicast_missing_file", "`multicast:` of a .npy file that does not exist: input error.", V + "--arg multicast:{tmp}/nope.npy" + REST, 1, stderr="cannot read")

# ------------------------------------------------------------------------------------------
# 7. Determinism
# ------------------------------------------------------------------------------------------
d = "determinism/"
put(d + "printf_before_trap.ptx", printf_kernel("cta %d\n", "\tmov.u32 %r1, %ctaid.x;\n\tst.local.u32 [%rd1], %r1;").replace("\tret;\n}", "\tmov.u32 %r2, %ctaid.x;\n\tsetp.eq.u32 %p1, %r2, 5;\n\t@%p1 trap;\n\tret;\n}"))
case(d + "printf_before_trap_t1", "printf output before a trap differed between runs. With --threads 1 every run is\nthe same: CTAs 0..5 printed, CTA 5 trapped.",
     "run {dir}/printf_before_trap.ptx --grid 16 --block 1 --arg u64:0 --threads 1", 1, stdout=["cta 0", "cta 5"], stderr="CTA (5, 0, 0)", deterministic="yes")
put(d + "float_atomics.ptx", HDR + """.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<4>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %tid.x;
	mad.lo.u32 %r3, %r1, 977, %r2;
	cvt.rn.f32.u32 %f1, %r3;
	mul.f32 %f2, %f1, 0f3DCCCCCD;
	atom.global.add.f32 %f3, [%rd1], %f2;
	ret;
}
""")
case(d + "float_atomics_t1", "Cross-CTA float atomics: with --threads 1 the sum is the same on every run.",
     "run {dir}/float_atomics.ptx --grid 64 --block 64 --arg zeros:f32:1 --threads 1 --out {tmp}/o", 0, deterministic="yes")

# ------------------------------------------------------------------------------------------
# Beyond: .npy files
# ------------------------------------------------------------------------------------------
d = "npy/"
def npy(h, data=b"", ver=1):
    h = h.encode() if isinstance(h, str) else h
    if ver == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data
    return b"\x93NUMPY\x02\x00" + struct.pack("<I", len(h)) + h + data
NP = "run {dir}/../exits/bool_kernel.ptx --grid 1 --block 1 --arg {dir}/%s"
bad_npys = {
    "shape_overflow": (npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }"), "more bytes than can be addressed", "A shape whose element count overflows wrote a corrupt .npy and exited 0."),
    "shape_huge_truncated": (npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }"), "truncated data", "A shape far larger than the file."),
    "bad_magic": (b"\x93NUMPZ\x01\x00\x00\x00", "bad magic", "Not a .npy file."),
    "empty": (b"", "bad magic", "An empty file."),
    "header_len_huge_v2": (b"\x93NUMPY\x02\x00\xff\xff\xff\xff{", "truncated .npy header", "A version-2 header length of 4 GiB."),
    "non_utf8_header": (npy(b"{'descr': '\xff\xfe'}"), "non-UTF-8", "A header that is not UTF-8."),
    "complex": (npy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", bytes(8)), "unsupported dtype", "A dtype ptxvm does not support."),
    "fortran": (npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", bytes(16)), "Fortran", "Fortran order."),
    "big_endian": (npy("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", bytes(4)), "big-endian", "Big-endian data."),
    "negative_dim": (npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"), "bad shape entry", "A negative dimension."),
    "no_shape": (npy("{'descr': '<f4', 'fortran_order': False, }"), "no shape", "No shape."),
    "version_9": (b"\x93NUMPY\x09\x00" + bytes(8), "unsupported .npy version", "An unknown version."),
    "many_dims": (npy("{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % ",".join(["1"] * 100)), "dimensions", "100 dimensions."),
}
for name, (data, msg, what) in bad_npys.items():
    put(d + name + ".npy", data)
    case(d + name, what + " Bad input: exit 1.", NP % (name + ".npy"), 1, stderr=msg)
case(d + "directory", "A directory named like a .npy file.", "run {dir}/../exits/bool_kernel.ptx --grid 1 --block 1 --arg tests/hostile/npy/dir.npy", 1, stderr="cannot read")
os.makedirs(os.path.join(HERE, d, "dir.npy"), exist_ok=True)
put(d + "dir.npy/.keep", "")
case(d + "missing", "A .npy that does not exist.", NP % "nope.npy", 1, stderr="cannot read")
case(d + "symbol_npy_too_big", "A --symbol .npy larger than the variable.",
     "run tests/fixtures/nvrtc12/atomic_cas_loops.sm_80.ptx --kernel spin_lock_increment --grid 1 --block 32 --arg s32:1 --symbol g_counter={dir}/u32x4.npy", 2, stderr="16 bytes given, but `g_counter` has 4")
put(d + "u32x4.npy", npy("{'descr': '<u4', 'fortran_order': False, 'shape': (4,), }", bytes(16)))

# ------------------------------------------------------------------------------------------
# Beyond: PTX inputs
# ------------------------------------------------------------------------------------------
d = "ptx/"
put(d + "binary.ptx", bytes(range(256)) * 64)
case(d + "binary", "Binary garbage: syntax errors, exit 1.", "check {dir}/binary.ptx", 1)
put(d + "nul_bytes.ptx", HDR + ".visible .entry k()\n{\n\x00\x00ret;\n}\n")
case(d + "nul_bytes", "NUL bytes in a kernel.", "check {dir}/nul_bytes.ptx", 1)
put(d + "bad_utf8.ptx", HDR.encode() + b".visible .entry k\xff\xfe()\n{\nret;\n}\n")
case(d + "bad_utf8", "Invalid UTF-8 in a name.", "check {dir}/bad_utf8.ptx", 1)
put(d + "many_errors.ptx", HDR + "#define X 1\n" + "bogus line here;\n" * 20000)
case(d + "many_errors", "20,000 syntax errors in a preprocessed file: every diagnostic renders without\nrescanning the file (was quadratic).", "check {dir}/many_errors.ptx", 1, stdout="could not check", timeout=30)
put(d + "long_line.ptx", HDR + ".global .u32 g[1] = {" + "1+" * 100000 + "1};\n")
case(d + "long_line", "A 200 KB expression on one line (left-nested sums are not deep).", "check {dir}/long_line.ptx", 0, timeout=30)
put(d + "big_literal.ptx", HDR + ".global .u64 g = 99999999999999999999999999;\n")
case(d + "big_literal", "An integer literal over 64 bits.", "check {dir}/big_literal.ptx", 1, stdout="does not fit in 64 bits")
put(d + "many_kernels.ptx", HDR + "".join(".visible .entry k%d()\n{\nret;\n}\n" % i for i in range(5000)))
case(d + "many_kernels", "5,000 kernels: info lists them all.", "info {dir}/many_kernels.ptx", 0, timeout=30)
put(d + "version_999.ptx", ".version 999.9\n.target sm_999\n.address_size 128\n")
case(d + "version_999", "An absurd version, target and address size.", "check {dir}/version_999.ptx", 1)
put(d + "huge_align.ptx", HDR + ".global .align 1073741824 .b8 g[4];\n.visible .entry k(){ret;}\n")
case(d + "huge_align", "An alignment of 2^30 is refused by the checker (at most 2^20).", "check {dir}/huge_align.ptx", 1, stdout="alignment")
put(d + "utf8_column_after_macro.ptx", b"#define R %r10\n" + HDR.encode() + b".visible .entry k()\n{\n.reg .b32 %r<12>;\nmov.u32 R, \xc3\x9f\xc3\x9f;\nret;\n}\n")
case(d + "utf8_column_after_macro", "A #define made the line 3 bytes longer, so the error's column (counted in the\npreprocessed line) fell inside a 2-byte character of the original line: rendering the\ncaret line sliced it and panicked. Found by review while fuzzing; the parse_check target\nnow renders every diagnostic.",
     "check {dir}/utf8_column_after_macro.ptx", 1, stdout="expected an operand")
put(d + "huge_reg_range.ptx", HDR + ".visible .entry k()\n{\n.reg .b32 %r<18446744073709551615>;\nret;\n}\n")
case(d + "huge_reg_range", "A register range of 2^64-1.", "check {dir}/huge_reg_range.ptx", 1)

# ------------------------------------------------------------------------------------------
# Beyond: kernels
# ------------------------------------------------------------------------------------------
d = "kernels/"
K = lambda body, params="": HDR + ".visible .entry k(%s)\n{\n%s\n}\n" % (params, body)
kernels = {
    "brx_out_of_range": (K(".reg .b32 %r<2>;\nmov.u32 %r1, 1000;\nts: .branchtargets L0, L1;\nbrx.idx %r1, ts;\nL0:\nret;\nL1:\nret;"), 1, "brx.idx index 1000 is out of range"),
    "indirect_garbage": (K(".reg .b64 %rd<2>;\nmov.u64 %rd1, 12345;\nproto: .callprototype _ ();\ncall %rd1, proto;\nret;"), 1, "not the address of a function"),
    "stackrestore_garbage": (K(".reg .b64 %rd<2>;\nmov.u64 %rd1, 999999999;\nstackrestore.u64 %rd1;\nret;").replace("sm_80", "sm_90").replace("8.0", "8.3"), 1, "stackrestore"),
    "alloca_huge": (K(".reg .b64 %rd<3>;\nmov.u64 %rd1, 1099511627776;\nalloca.u64 %rd2, %rd1;\nret;").replace("sm_80", "sm_90").replace("8.0", "8.3"), 1, "alloca of 1099511627776 bytes exhausts the stack"),
    "mbarrier_garbage": (K(".shared .align 8 .b64 m;\n.reg .b64 %rd<3>;\nmbarrier.arrive.shared.b64 %rd1, [m];\nret;"), 1, "mbarrier"),
    "shared_oob": (K(".shared .align 4 .b8 s[16];\n.reg .b32 %r<2>;\nmov.u32 %r1, 1000000;\nst.shared.u32 [%r1], 1;\nret;"), 1, "outside shared memory"),
    "null_deref": (K(".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\nmov.u64 %rd1, 8;\nld.u32 %r1, [%rd1];\nret;"), 1, "null pointer dereference"),
    "wild_pointer": (K(".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\nmov.u64 %rd1, 0x7ffffffff000;\nst.global.u32 [%rd1], 1;\nret;"), 1, "outside every allocation"),
    "local_window_wild": (K(".reg .b64 %rd<2>;\nmov.u64 %rd1, 0x000020007fff0000;\nst.u32 [%rd1], 1;\nret;"), 1, "outside local memory"),
    "param_window_wild": (K(".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\nmov.u64 %rd1, 0x00004000ffff0000;\nld.u32 %r1, [%rd1];\nret;"), 1, "outside kernel parameters"),
    "barrier_deadlock": (K(".reg .pred %p<2>;\n.reg .b32 %r<2>;\nmov.u32 %r1, %tid.x;\nsetp.eq.u32 %p1, %r1, 0;\n@%p1 bra.uni D;\nbar.sync 0;\nD:\nbar.sync 1;\nret;"), 1, "deadlock"),
    "infinite_loop": (K("L:\nbra.uni L;"), 1, "instruction budget exhausted"),
    "misaligned_u64": (K(".reg .b64 %rd<3>;\nld.param.u64 %rd1, [p];\nld.global.u64 %rd2, [%rd1+4];\nret;", ".param .u64 p"), 1, "misaligned"),
    "vector_oob_end": (K(".reg .b32 %r<5>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\nld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+16];\nret;", ".param .u64 p"), 1, "outside every allocation"),
}
for name, (text, code, msg) in kernels.items():
    put(d + name + ".ptx", text)
    params = "--arg zeros:u32:4" if ".param .u64 p" in text else ""
    steps = " --max-steps 100000" if name == "infinite_loop" else ""
    case(d + name, "A faulting kernel: reported with its kind and place, exit 1.", "run {dir}/%s.ptx --grid 2 --block 64 %s%s" % (name, params, steps), code, stderr=msg)

# ------------------------------------------------------------------------------------------
# Beyond: scale (inputs generated by the harness; a quadratic algorithm times out)
# ------------------------------------------------------------------------------------------
d = "exits/"
put(d + "tma_load_5d.ptx", open(os.path.join(HERE, "../run/tma/load_5d.ptx")).read())
T5 = "run {dir}/tma_load_5d.ptx --grid 1 --block 1 --arg zeros:u8:512 --arg zeros:u8:256 "
case(d + "tmap_bad_option", "A malformed `--arg tmap:` spec is a usage error naming it.",
     T5 + "--arg tmap:0:u8:16,2,2,2,3:16,32,64,128:16,2,1,2,2:swizzle=7", 2, stderr=["--arg 2", "swizzle=7"])
case(d + "tmap_rule", "A tensor map breaking an encoder rule (a stride that is not a multiple of 16) is a\nusage error naming the argument.",
     T5 + "--arg tmap:0:u8:16,2,2,2,3:16,32,64,100:16,2,1,2,2", 2, stderr="globalStrides 3 is 100 bytes")
case(d + "tmap_not_buffer", "`tmap:` over an argument that is not a buffer, or not an earlier one.",
     "run {dir}/tma_load_5d.ptx --grid 1 --block 1 --arg u64:0 --arg zeros:u8:256 --arg tmap:0:u8:16:-:16", 2, stderr="argument 0 is not a buffer")
case(d + "tmap_huge_box", "A 256^5-element box over a 512-byte buffer: the copy's bytes (2^40) are charged to\nthe step budget before it starts; it fails at once, without touching memory.",
     T5 + "--arg tmap:0:u8:256,256,256,256,256:256,65536,16777216,4294967296:256,256,256,256,256", 1,
     stderr="step", timeout=10)
case(d + "tmap_huge_box_budget", "The same box with an unbounded step budget: the copy stops at the first element\nbeyond the buffer (a guest fault), not after 2^40 elements.",
     T5 + "--max-steps 1000000000000000000 --arg tmap:0:u8:256,256,256,256,256:256,65536,16777216,4294967296:256,256,256,256,256", 1,
     stderr="invalid global read", timeout=10)
case(d + "tmap_packed_huge_box_budget", "A packed 6-bit map (16U6_ALIGN16B) whose box is 128 x 256^4 values over a 512-byte buffer,\nwith an unbounded step budget: the copy stops at the first unit beyond the buffer.",
     T5 + "--max-steps 1000000000000000000 --arg tmap:0:b6x16_p32:256,256,256,256,256:256,65536,16777216,4294967296:128,256,256,256,256", 1,
     stderr="invalid global read", timeout=10)
# ------------------------------------------------------------------------------------------
# Beyond: texture and surface arguments and instructions (docs/textures.md)
# ------------------------------------------------------------------------------------------
d = "textures/"
TEXK = HDR + """.visible .entry k(.param .u64 t, .param .u64 s)
{
.reg .b64 %rd<3>;
.reg .f32 %f<12>;
.reg .b32 %r<8>;
ld.param.u64 %rd1, [t];
ld.param.u64 %rd2, [s];
mov.b32 %f1, 0x7fc00000;
mov.b32 %f2, 0x7f800000;
mov.b32 %f3, 0xff800000;
mov.b32 %f4, 0x7effffff;
mov.u32 %r1, -2147483648;
mov.u32 %r2, 2147483647;
tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}], {%r1, %r2};
tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f3, %f4}];
tld4.r.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f4, %f3}];
tex.2d.v4.f32.s32 {%f5, %f6, %f7, %f8}, [%rd1, {%r1, %r2}], {%r2, %r2};
suld.b.2d.v4.b32.clamp {%r3, %r4, %r5, %r6}, [%rd2, {%r1, %r2}];
sust.b.2d.v4.b32.clamp [%rd2, {%r1, %r2}], {%r3, %r4, %r5, %r6};
sust.b.2d.b32.zero [%rd2, {%r1, %r1}], %r3;
sured.b.max.2d.u32.clamp [%rd2, {%r1, %r1}], %r2;
txq.level.width.b32 %r7, [%rd1], 4000;
tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}], {%r1, %r2}, %f1;
tex.level.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f3, %f4}], %f2, %f3;
tld4.r.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f4, %f3}], {%r2, %r1}, %f1;
tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, %rd1, {%f1, %f4}];
ret;
}
"""
put(d + "extremes.ptx", TEXK)
put(d + "f32_2d.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5, 1), }", bytes(60)))
put(d + "u32_2d.npy", npy("{'descr': '<u4', 'fortran_order': False, 'shape': (2, 4, 1), }", bytes(32)))
put(d + "f64.npy", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", bytes(32)))
put(d + "u8_4d.npy", npy("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2, 2, 2, 3), }", bytes(48)))
put(d + "u8.npy", npy("{'descr': '|u1', 'fortran_order': False, 'shape': (8,), }", bytes(8)))
TX = "run {dir}/extremes.ptx --grid 1 --block 1 --arg %s --arg %s"
case(d + "extremes", "NaN, infinite and huge texture coordinates, extreme offsets and surface coordinates\nunder every out-of-range mode, a huge txq level: no panic, no overflow.",
     TX % ("tex:{dir}/f32_2d.npy,filter=linear,address=mirror,normalized", "surf:{dir}/u32_2d.npy"), 0)
case(d + "extremes_wrap", "The same with wrap addressing and border.",
     TX % ("tex:{dir}/f32_2d.npy,filter=linear,address=wrap,normalized", "surf:{dir}/u32_2d.npy"), 0)
case(d + "extremes_border", "The same with border addressing, unnormalized.",
     TX % ("tex:{dir}/f32_2d.npy,filter=linear,address=border", "surf:{dir}/u32_2d.npy"), 0)
bad_specs = {
    "dtype_f64": ("tex:{dir}/f64.npy", "u8 i8 u16 i16 u32 i32 f16 or f32 elements", "A texture of f64 elements."),
    "too_many_dims": ("tex:{dir}/u8_4d.npy", "dimensions besides the channels", "A texture of four dimensions besides the channels."),
    "linear_of_ints": ("tex:{dir}/u8.npy,filter=linear", "need read=float", "Linear filtering of integers read as integers."),
    "unknown_filter": ("tex:{dir}/u8.npy,filter=cubic", "filter is one of point, linear", "An unknown filter."),
    "unknown_option": ("tex:{dir}/u8.npy,lod=2", "unknown option", "An unknown option."),
    "twice": ("tex:{dir}/u8.npy,read=float,read=element", "given twice", "An option given twice."),
    "surf_options": ("surf:{dir}/u8.npy,normalized", "surf:PATH.npy (no options)", "Options on a surface."),
    "no_path": ("tex:,filter=point", "expected tex:PATH.npy", "No path."),
    "unknown_geom": ("tex:{dir}/u8.npy,geom=3d", "geom is one of layered, cube, acube", "An unknown geometry."),
    "cube_of_2d": ("tex:{dir}/f32_2d.npy,geom=cube", "geom=cube needs 3", "A cubemap from a 2D array."),
    "cube_of_5d": ("tex:{dir}/u8_4d.npy,geom=cube", "dimensions besides the channels", "A cubemap from five dimensions."),
}
for name, (spec, msg, what) in bad_specs.items():
    case(d + name, what + " A usage error: exit 2.", TX % (spec, "surf:{dir}/u32_2d.npy"), 2, stderr=msg)
case(d + "missing_file", "A texture .npy that does not exist: exit 1.", TX % ("tex:{dir}/nope.npy", "surf:{dir}/u32_2d.npy"), 1, stderr="cannot read")
case(d + "not_a_handle", "A number that is no texture object: the tex instruction faults, exit 1.",
     TX % ("u64:0x7fffffffffffffff", "surf:{dir}/u32_2d.npy"), 1, stderr="is not a texture or surface object")
case(d + "wrong_geometry", "tex.2d of a 1D texture faults, naming both geometries.",
     TX % ("tex:{dir}/u8.npy", "surf:{dir}/u32_2d.npy"), 1, stderr="the object is a .1d resource, the instruction reads .2d")
case(d + "surface_as_texture", "A surface handle given to tex faults.",
     TX % ("surf:{dir}/f32_2d.npy", "surf:{dir}/u32_2d.npy"), 1, stderr="is a surface object, not a texture one")

MIPK = HDR + """.visible .entry k(.param .u64 t, .param .u64 s)
{
.reg .b64 %rd<3>;
.reg .f32 %f<12>;
.reg .b32 %r<8>;
ld.param.u64 %rd1, [t];
mov.b32 %f1, 0x7fc00000;
mov.b32 %f2, 0x7f800000;
mov.b32 %f3, 0xff800000;
mov.b32 %f4, 0x7effffff;
mov.b32 %f9, 0x00000001;
mov.f32 %f10, 0f00000000;
mov.u32 %r1, -2147483648;
mov.u32 %r2, 2147483647;
tex.level.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f4, %f1}], %f1;
tex.level.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f4}], %f2, {%r1, %r2};
tex.level.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f3, %f2}], %f3;
tex.level.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f9, %f9}], %f4;
tex.level.2d.v4.f32.s32 {%f5, %f6, %f7, %f8}, [%rd1, {%r1, %r2}], %r1;
tex.level.2d.v4.f32.s32 {%f5, %f6, %f7, %f8}, [%rd1, {%r2, %r1}], %r2, {%r2, %r1};
tex.grad.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f9, %f1}], {%f1, %f2}, {%f3, %f4};
tex.grad.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f4, %f4}], {%f4, %f4}, {%f9, %f9};
tex.grad.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f10, %f10}], {%f10, %f10}, {%f10, %f10};
tex.grad.2d.v4.f32.s32 {%f5, %f6, %f7, %f8}, [%rd1, {%r1, %r1}], {%f2, %f3}, {%f1, %f1};
txq.level.height.b32 %r3, [%rd1], %r1;
ret;
}
"""
put(d + "mip_extremes.ptx", MIPK)
MX = "run {dir}/mip_extremes.ptx --grid 1 --block 1 --arg %s --arg u64:0"
for name, opts, what in [
        ("mip_extremes_linear", "filter=linear,address=mirror,normalized,levels=3,mipfilter=linear,lodbias=-1e30,maxlod=inf",
         "NaN, infinite, huge and subnormal LODs and partials, extreme integer levels and coordinates\non a mipmapped texture with linear mipmap filtering: no panic, no overflow."),
        ("mip_extremes_point", "address=border,levels=2,lodbias=3.5,minlod=2,maxlod=-1",
         "The same with point mipmap filtering, a bias, and a minimum clamp above the maximum.")]:
    case(d + name, what, MX % ("tex:{dir}/f32_2d.npy," + opts), 0)
mip_specs = {
    "mip_too_many_levels": ("tex:{dir}/f32_2d.npy,levels=4", "mipmap levels for a 5x3x1 resource", "More mipmap levels than floor(log2(5)) + 1."),
    "mip_levels_range": ("tex:{dir}/f32_2d.npy,levels=99", "levels is 1 to 32", "levels=99."),
    "mip_options_without_levels": ("tex:{dir}/f32_2d.npy,lodbias=1", "needs levels=N", "A mipmap option on a one-level texture."),
    "mip_linear_of_ints": ("tex:{dir}/u8.npy,levels=2,mipfilter=linear", "linear mipmap filtering returns floats", "Linear mipmap filtering of integers read as integers."),
    "mip_bad_number": ("tex:{dir}/f32_2d.npy,levels=2,maxlod=nan", "maxlod is a number", "A NaN clamp."),
}
for name, (spec, msg, what) in mip_specs.items():
    case(d + name, what + " A usage error: exit 2.", MX % spec, 2, stderr=msg)

d = "scale/"
H = HDR.replace("\n", "\\n")
scale = {
    "functions_run": ("100,000 functions called from a kernel: loading found each definition by a linear\nsearch (quadratic, 40 s).",
        "run {tmp}/gen.ptx --kernel k --grid 1 --block 1", 0, H, ".func f{i}()\\n{\\nret;\\n}\\n", ".visible .entry k()\\n{\\ncall f1;\\ncall f99999;\\nret;\\n}\\n", 100000),
    "ranges_among_names": ("20,000 register ranges declared among 20,000 named registers: the member check\nscanned the scope for every range (quadratic).",
        "check {tmp}/gen.ptx", 0, H + ".visible .entry k()\\n{\\n", ".reg .b32 %a{i};\\n.reg .b32 %q{i}_<4>;\\n", "ret;\\n}\\n", 20000),
    "pointer_initialisers": ("20,000 globals initialised with each other's addresses: relocations searched the\nvariables linearly.",
        "run {tmp}/gen.ptx --grid 1 --block 1", 0, H, ".global .u64 a{i};\\n.global .u64 g{i} = a{i};\\n", ".visible .entry k()\\n{\\nret;\\n}\\n", 20000),
    "kernels_and_shared": ("5,000 kernels and 5,000 shared variables: per-kernel shared layouts are bounded\nwork (25 million kernel-slot pairs fall back to one common layout).",
        "run {tmp}/gen.ptx --kernel k7 --grid 1 --block 1", 0, H, ".shared .u32 s{i};\\n.visible .entry k{i}()\\n{\\n.reg .b32 %r<2>;\\nld.shared.u32 %r1, [s{j}];\\nret;\\n}\\n", "", 5000),
    "labels": ("100,000 labels and branches.",
        "check {tmp}/gen.ptx", 0, H + ".visible .entry k()\\n{\\n.reg .pred %p<2>;\\n", "L{i}:\\n@%p1 bra L{j};\\n", "ret;\\n}\\n", 100000),
    "diagnostics": ("50,000 errors in a preprocessed file: each diagnostic found its line by rescanning\nthe file (quadratic).",
        "check {tmp}/gen.ptx", 1, H + "#define X 1\\n", "bogus line {i};\\n", "", 50000),
}
for name, (what, args, code, head, body, tail, n) in scale.items():
    case(d + name, what, args, code, timeout=15, gen_head=head, gen_body=body, gen_tail=tail, gen_count=n)

print("wrote %d cases" % count)
