"""Elementwise Triton kernels: vector add, fused math, casts, where/clamp."""
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def fused_math_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.exp(x) + tl.log(tl.abs(x) + 1.0) + tl.sin(x) * tl.cos(x) + tl.sqrt(tl.abs(x))
    y += tl.sigmoid(x) * alpha + tl.math.rsqrt(tl.abs(x) + 1.0) + tl.math.erf(x) + tl.exp2(x) + tl.log2(tl.abs(x) + 2.0)
    y = tl.where(x > 0, y, -y)
    y = tl.minimum(tl.maximum(y, -10.0), 10.0)
    y += tl.fdiv(x, alpha) + tl.math.div_rn(x, alpha + 1.0) + tl.floor(x) + tl.ceil(x)
    tl.store(out_ptr + offs, y, mask=mask)


@triton.jit
def gelu_fp16_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(out_ptr + offs, y.to(tl.float16), mask=mask)


@triton.jit
def cast_kernel(a_ptr, b_ptr, c_ptr, d_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)           # fp32
    tl.store(b_ptr + offs, a.to(tl.bfloat16), mask=mask)
    tl.store(c_ptr + offs, (a * 100.0).to(tl.int32), mask=mask)
    tl.store(d_ptr + offs, a.to(tl.float64) * 3.0, mask=mask)


@triton.jit
def fp64_axpy_kernel(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, a * x + y, mask=mask)


FIXTURES = [
    dict(name="add_f32_b1024", fn=add_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 1024}, options={"num_warps": 4}, divisible=["x_ptr", "y_ptr", "out_ptr", "n"]),
    dict(name="add_f16_b256", fn=add_kernel, signature={"x_ptr": "*fp16", "y_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 256}, options={"num_warps": 2}),
    dict(name="add_i64_b128", fn=add_kernel, signature={"x_ptr": "*i64", "y_ptr": "*i64", "out_ptr": "*i64", "n": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 128}, options={"num_warps": 1}),
    dict(name="fused_math", fn=fused_math_kernel, signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "alpha": "fp32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 512}, options={"num_warps": 4}, divisible=["x_ptr", "out_ptr"]),
    dict(name="gelu_fp16", fn=gelu_fp16_kernel, signature={"x_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 1024}, options={"num_warps": 4}, divisible=["x_ptr", "out_ptr", "n"]),
    dict(name="casts", fn=cast_kernel, signature={"a_ptr": "*fp32", "b_ptr": "*bf16", "c_ptr": "*i32", "d_ptr": "*fp64", "n": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 256}, options={"num_warps": 4}),
    dict(name="axpy_f64", fn=fp64_axpy_kernel, signature={"x_ptr": "*fp64", "y_ptr": "*fp64", "a": "fp64", "n": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 256}, options={"num_warps": 4}, divisible=["x_ptr", "y_ptr"]),
]
