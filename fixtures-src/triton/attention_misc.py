"""Flash-attention forward (online softmax with two tl.dot per K/V block), dropout with tl.rand (Philox),
and a 2D transpose through shared memory."""
import triton
import triton.language as tl


@triton.jit
def attn_fwd_kernel(Q, K, V, Out, sm_scale, stride_qm, stride_kn, stride_vn, stride_om, N_CTX,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    q_off = off_hz * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + q_off + offs_m[:, None] * stride_qm + offs_d[None, :])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    hi = (start_m + 1) * BLOCK_M if CAUSAL else N_CTX
    for start_n in range(0, hi, BLOCK_N):
        k = tl.load(K + q_off + (start_n + offs_n)[None, :] * stride_kn + offs_d[:, None])
        qk = tl.dot(q, k)
        if CAUSAL:
            qk = tl.where(offs_m[:, None] >= (start_n + offs_n)[None, :], qk, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(V + q_off + (start_n + offs_n)[:, None] * stride_vn + offs_d[None, :])
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + q_off + offs_m[:, None] * stride_om + offs_d[None, :], acc.to(Out.dtype.element_ty))


@triton.jit
def dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.rand(seed, offs)
    keep = r > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def randn_kernel(out_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.randn(seed, offs)
    b = tl.randint(seed, offs)
    tl.store(out_ptr + offs, a + b.to(tl.float32))


@triton.jit
def transpose_kernel(x_ptr, y_ptr, M, N, BLOCK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BLOCK + tl.arange(0, BLOCK)
    rn = pn * BLOCK + tl.arange(0, BLOCK)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    tl.store(y_ptr + rn[None, :] * M + rm[:, None], x, mask=mask)


_ATTN_SIG = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "Out": "*fp16", "sm_scale": "fp32", "stride_qm": "i32", "stride_kn": "i32",
             "stride_vn": "i32", "stride_om": "i32", "N_CTX": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
             "HEAD_DIM": "constexpr", "CAUSAL": "constexpr"}
FIXTURES = [
    dict(name="flash_attn_fwd_d64", fn=attn_fwd_kernel, signature=_ATTN_SIG,
         constexprs={"BLOCK_M": 128, "BLOCK_N": 64, "HEAD_DIM": 64, "CAUSAL": False}, options={"num_warps": 4, "num_stages": 3},
         divisible=["Q", "K", "V", "Out", "stride_qm", "stride_kn", "stride_vn", "stride_om", "N_CTX"]),
    dict(name="flash_attn_fwd_causal_d32", fn=attn_fwd_kernel, signature=_ATTN_SIG,
         constexprs={"BLOCK_M": 64, "BLOCK_N": 32, "HEAD_DIM": 32, "CAUSAL": True}, options={"num_warps": 4, "num_stages": 2},
         divisible=["Q", "K", "V", "Out", "stride_qm", "stride_kn", "stride_vn", "stride_om", "N_CTX"]),
    dict(name="dropout_f32", fn=dropout_kernel, signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "p": "fp32", "seed": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 1024}, options={"num_warps": 4}),
    dict(name="randn", fn=randn_kernel, signature={"out_ptr": "*fp32", "seed": "i64", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 256}, options={"num_warps": 2}),
    dict(name="transpose_f32_64", fn=transpose_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "i32", "N": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 64}, options={"num_warps": 4}, divisible=["x_ptr", "y_ptr", "M", "N"]),
]
