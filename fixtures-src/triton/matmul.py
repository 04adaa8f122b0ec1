"""Triton `tl.dot` matmuls (tutorial-style grouped GEMM): fp16/bf16/tf32/fp32/int8 and fp8 (sm_90 only).
On sm_80 these lower to ldmatrix + mma.sync + cp.async pipelines, on sm_90 to wgmma."""
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                  PRECISION: tl.constexpr, ACT: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    if PRECISION == "int8":
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        if PRECISION == "tf32":
            acc = tl.dot(a, b, acc, input_precision="tf32")
        elif PRECISION == "ieee":
            acc = tl.dot(a, b, acc, input_precision="ieee")
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if ACT == "leaky_relu":
        acc = tl.where(acc >= 0, acc, 0.01 * acc)
    c = acc.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def batched_dot_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    """Single-tile batched matmul with 3D block pointers and tl.trans."""
    bid = tl.program_id(0)
    r = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + bid * BLOCK * BLOCK + r[:, None] * BLOCK + r[None, :])
    b = tl.load(b_ptr + bid * BLOCK * BLOCK + r[:, None] * BLOCK + r[None, :])
    c = tl.dot(a, tl.trans(b))
    tl.store(c_ptr + bid * BLOCK * BLOCK + r[:, None] * BLOCK + r[None, :], c)


def _sig(a, b, c):
    s = {"a_ptr": a, "b_ptr": b, "c_ptr": c}
    for k in ["M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn"]:
        s[k] = "i32"
    for k in ["BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M", "PRECISION", "ACT"]:
        s[k] = "constexpr"
    return s


def _cx(bm, bn, bk, prec="default", act="none", group=8):
    return {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": group, "PRECISION": prec, "ACT": act}


_DIV = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk", "stride_cm"]

FIXTURES = [
    dict(name="fp16_128x128x64_w8_s3", fn=matmul_kernel, signature=_sig("*fp16", "*fp16", "*fp16"),
         constexprs=_cx(128, 128, 64), options={"num_warps": 8, "num_stages": 3}, divisible=_DIV),
    dict(name="fp16_64x64x32_w4_s2_leaky", fn=matmul_kernel, signature=_sig("*fp16", "*fp16", "*fp32"),
         constexprs=_cx(64, 64, 32, act="leaky_relu"), options={"num_warps": 4, "num_stages": 2}, divisible=_DIV),
    dict(name="bf16_128x64x32_w4_s4", fn=matmul_kernel, signature=_sig("*bf16", "*bf16", "*bf16"),
         constexprs=_cx(128, 64, 32), options={"num_warps": 4, "num_stages": 4}, divisible=_DIV),
    dict(name="tf32_64x64x32_w4_s3", fn=matmul_kernel, signature=_sig("*fp32", "*fp32", "*fp32"),
         constexprs=_cx(64, 64, 32, prec="tf32"), options={"num_warps": 4, "num_stages": 3}, divisible=_DIV),
    dict(name="fp32_ieee_32x32x16_w4", fn=matmul_kernel, signature=_sig("*fp32", "*fp32", "*fp32"),
         constexprs=_cx(32, 32, 16, prec="ieee"), options={"num_warps": 4, "num_stages": 1}),
    dict(name="int8_64x64x64_w4_s3", fn=matmul_kernel, signature=_sig("*i8", "*i8", "*i32"),
         constexprs=_cx(64, 64, 64, prec="int8"), options={"num_warps": 4, "num_stages": 3}, divisible=_DIV),
    dict(name="fp8e4m3_128x128x64_w8_s3", fn=matmul_kernel, signature=_sig("*fp8e4nv", "*fp8e4nv", "*fp16"),
         constexprs=_cx(128, 128, 64), options={"num_warps": 8, "num_stages": 3}, divisible=_DIV, archs=[90]),
    dict(name="fp16_unaligned_32x64x32_w2", fn=matmul_kernel, signature=_sig("*fp16", "*fp16", "*fp16"),
         constexprs=_cx(32, 64, 32, group=4), options={"num_warps": 2, "num_stages": 2}),
    dict(name="batched_dot_fp16_32", fn=batched_dot_kernel, signature={"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 32}, options={"num_warps": 4}, divisible=["a_ptr", "b_ptr", "c_ptr"]),
]
