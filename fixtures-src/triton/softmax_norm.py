"""Row softmax, layernorm forward/backward and RMSNorm in Triton."""
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=cols < n_cols)


@triton.jit
def layernorm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    _mean = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        _mean += tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(Y + cols, y, mask=mask)


@triton.jit
def layernorm_bwd_dx_kernel(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N, GROUP_SIZE_M: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = tl.where(mask, xhat, 0.)
    wdy = tl.where(mask, wdy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = (dy).to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)


@triton.jit
def rmsnorm_kernel(X, W, Y, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / N
    r = tl.math.rsqrt(ms + eps)
    w = tl.load(W + cols, mask=mask, other=0.).to(tl.float32)
    tl.store(Y + row * stride + cols, (x * r * w).to(Y.dtype.element_ty), mask=mask)


FIXTURES = [
    dict(name="softmax_f32_1024", fn=softmax_kernel,
         signature={"out_ptr": "*fp32", "in_ptr": "*fp32", "in_row_stride": "i32", "out_row_stride": "i32", "n_cols": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 1024}, options={"num_warps": 4}, divisible=["out_ptr", "in_ptr", "in_row_stride", "out_row_stride"]),
    dict(name="softmax_f16_4096_w16", fn=softmax_kernel,
         signature={"out_ptr": "*fp16", "in_ptr": "*fp16", "in_row_stride": "i32", "out_row_stride": "i32", "n_cols": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 4096}, options={"num_warps": 16}, divisible=["out_ptr", "in_ptr", "in_row_stride", "out_row_stride"]),
    dict(name="layernorm_fwd_f16", fn=layernorm_fwd_kernel,
         signature={"X": "*fp16", "Y": "*fp16", "W": "*fp16", "B": "*fp16", "Mean": "*fp32", "Rstd": "*fp32", "stride": "i32", "N": "i32", "eps": "fp32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 1024}, options={"num_warps": 8}, divisible=["X", "Y", "W", "B", "stride"]),
    dict(name="layernorm_bwd_dx_f32", fn=layernorm_bwd_dx_kernel,
         signature={"DX": "*fp32", "DY": "*fp32", "DW": "*fp32", "DB": "*fp32", "X": "*fp32", "W": "*fp32", "Mean": "*fp32", "Rstd": "*fp32",
                    "Lock": "*i32", "stride": "i32", "N": "i32", "GROUP_SIZE_M": "constexpr", "BLOCK_N": "constexpr"},
         constexprs={"GROUP_SIZE_M": 64, "BLOCK_N": 512}, options={"num_warps": 4}),
    dict(name="rmsnorm_bf16", fn=rmsnorm_kernel,
         signature={"X": "*bf16", "W": "*bf16", "Y": "*bf16", "stride": "i32", "N": "i32", "eps": "fp32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 2048}, options={"num_warps": 8}, divisible=["X", "W", "Y", "stride"]),
]
