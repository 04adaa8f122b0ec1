"""Triton reductions and scans: sum/max/argmax over axes, tl.cumsum, tl.associative_scan, atomics, histogram."""
import triton
import triton.language as tl


@triton.jit
def sum_rows_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for off in range(0, N, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=(rows[:, None] < M) & (cols[None, :] < N), other=0.)
        acc += tl.sum(x, axis=1)
    tl.store(out_ptr + rows, acc, mask=rows < M)


@triton.jit
def max_argmax_kernel(x_ptr, max_ptr, idx_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf"))
    m, i = tl.max(x, axis=0, return_indices=True)
    tl.store(max_ptr + row, m)
    tl.store(idx_ptr + row, i)
    mn = tl.argmin(x, axis=0)
    tl.store(idx_ptr + row + 4096, mn)


@triton.jit
def global_sum_atomic_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))
    tl.atomic_max(out_ptr + 1, tl.max(x, axis=0))


@triton.jit
def cumsum_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * BLOCK + offs)
    tl.store(out_ptr + row * BLOCK + offs, tl.cumsum(x, axis=0))


@triton.jit
def _combine_mul(a, b):
    return a * b


@triton.jit
def cumprod_scan_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * BLOCK + offs)
    tl.store(out_ptr + tl.program_id(0) * BLOCK + offs, tl.associative_scan(x, 0, _combine_mul))


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, NBINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    h = tl.histogram(x, NBINS)
    tl.atomic_add(hist_ptr + tl.arange(0, NBINS), h)


@triton.jit
def reduce_f64_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.)
    tl.atomic_add(out_ptr, tl.sum(x * x, axis=0))


FIXTURES = [
    dict(name="sum_rows_f32", fn=sum_rows_kernel, signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32", "N": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"},
         constexprs={"BLOCK_M": 16, "BLOCK_N": 256}, options={"num_warps": 4}, divisible=["x_ptr", "N"]),
    dict(name="max_argmax_f32", fn=max_argmax_kernel, signature={"x_ptr": "*fp32", "max_ptr": "*fp32", "idx_ptr": "*i32", "N": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 1024}, options={"num_warps": 4}),
    dict(name="global_sum_atomic", fn=global_sum_atomic_kernel, signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 2048}, options={"num_warps": 8}),
    dict(name="cumsum_i32", fn=cumsum_kernel, signature={"x_ptr": "*i32", "out_ptr": "*i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 512}, options={"num_warps": 4}),
    dict(name="cumprod_f32", fn=cumprod_scan_kernel, signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 256}, options={"num_warps": 2}),
    dict(name="histogram_64", fn=histogram_kernel, signature={"x_ptr": "*i32", "hist_ptr": "*i32", "n": "i32", "NBINS": "constexpr", "BLOCK": "constexpr"},
         constexprs={"NBINS": 64, "BLOCK": 1024}, options={"num_warps": 4}),
    dict(name="sumsq_f64", fn=reduce_f64_kernel, signature={"x_ptr": "*fp64", "out_ptr": "*fp64", "n": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 512}, options={"num_warps": 4}),
]
