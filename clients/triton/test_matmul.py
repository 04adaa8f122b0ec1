"""Triton's fp16 matmul tutorial kernel (`tl.dot`, lowered by Triton to `ldmatrix` +
`mma.sync.m16n8k16` for the sm_80 device ptxvm's driver emulates by default), run on ptxvm:
exact against numpy where every tensor-core model agrees (small integers), and bit for bit
against the A100 tensor-core model of tools/tc_ref.py (an exact-rational reference written
independently of the VM) on random fp16 data."""

import os
import sys

import numpy as np
import pytest
import triton
import triton.language as tl

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import tc_ref  # noqa: E402

rng = np.random.default_rng(4321)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr):
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
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def matmul(dev, a, b, bm=64, bn=64, bk=32):
    M, K = a.shape
    _, N = b.shape
    c = dev(np.zeros((M, N), np.float16))
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    matmul_kernel[grid](dev(a), dev(b), c, M, N, K, K, 1, N, 1, N, 1,
                        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=4)
    return c.numpy()


@pytest.mark.parametrize("M,N,K", [(64, 64, 64), (128, 64, 96)])
def test_matmul_small_integers_exact(dev, M, N, K):
    # Products and sums of small integers are exact in every model and in f16 output.
    a = rng.integers(-3, 4, (M, K)).astype(np.float16)
    b = rng.integers(-3, 4, (K, N)).astype(np.float16)
    out = matmul(dev, a, b)
    np.testing.assert_array_equal(out, (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float16))


def test_matmul_random_bit_exact_to_the_model(dev):
    # Random fp16 data: tl.dot chains mma.sync m16n8k16 over K in ascending order from a
    # zero accumulator, so each f32 element is the device model's T-FDPA chain over the whole
    # K (A100: F = 24, blocks of 8, round toward zero), then cvt.rn.f16.f32.
    gen = {"sm_80": "ampere", "sm_86": "ampere", "sm_89": "ada"}.get(os.environ.get("PTXVM_ARCH", "sm_80"))
    if gen is None:
        pytest.skip("Triton lowers tl.dot to wgmma/tcgen05 beyond sm_89 (not emulated yet)")
    M, N, K = 64, 64, 64
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    out = matmul(dev, a, b)
    abits = a.view(np.uint16).tolist()
    bbits = b.view(np.uint16).T.tolist()
    want = np.zeros((M, N), np.uint16)
    for i in range(M):
        for j in range(N):
            f = tc_ref.dot(gen, "mma", "f16", "f16", "f32", "f32",
                           abits[i], bbits[j], 0)
            v = tc_ref.decode("f32", f)
            want[i, j] = tc_ref.encode("f16", v[1], v[2], "rne") if v[0] == "num" else 0
    np.testing.assert_array_equal(out.view(np.uint16), want)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=2e-3, atol=2e-2)
