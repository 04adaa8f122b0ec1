"""Shared memory (static and dynamic) with cuda.syncthreads and its counting forms."""

import numpy as np
from numba import cuda, int32, float32

TILE = 16


@cuda.jit
def matmul_tiled(a, b, c):
    """c = a @ b with 16x16 shared tiles; the edges need the bounds checks."""
    sa = cuda.shared.array((TILE, TILE), float32)
    sb = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    acc = float32(0)
    for t in range((a.shape[1] + TILE - 1) // TILE):
        k = t * TILE + tx
        sa[ty, tx] = a[row, k] if row < a.shape[0] and k < a.shape[1] else 0
        k = t * TILE + ty
        sb[ty, tx] = b[k, col] if k < b.shape[0] and col < b.shape[1] else 0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sa[ty, j] * sb[j, tx]
        cuda.syncthreads()
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc


def test_matmul_tiled_exact():
    rng = np.random.default_rng(1)
    # Small integers: every partial sum is an exactly representable float32.
    a = rng.integers(-8, 9, size=(37, 45)).astype(np.float32)
    b = rng.integers(-8, 9, size=(45, 53)).astype(np.float32)
    c = np.zeros((37, 53), np.float32)
    grid = ((53 + TILE - 1) // TILE, (37 + TILE - 1) // TILE)
    matmul_tiled[grid, (TILE, TILE)](a, b, c)
    np.testing.assert_array_equal(c, a @ b)


@cuda.jit
def block_sum(x, out):
    """Tree reduction in shared memory, one partial sum per block."""
    s = cuda.shared.array(256, int32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    s[tid] = x[i] if i < x.size else 0
    cuda.syncthreads()
    step = cuda.blockDim.x // 2
    while step > 0:
        if tid < step:
            s[tid] += s[tid + step]
        cuda.syncthreads()
        step //= 2
    if tid == 0:
        out[cuda.blockIdx.x] = s[0]


def test_block_tree_reduction():
    x = (np.arange(10000, dtype=np.int32) * 7919) % 1000 - 500
    nblocks = (x.size + 255) // 256
    out = np.zeros(nblocks, np.int32)
    block_sum[nblocks, 256](x, out)
    expected = np.add.reduceat(x, np.arange(0, x.size, 256))
    np.testing.assert_array_equal(out, expected)


@cuda.jit
def reverse_dynamic(x, out):
    """Reverses each block's slice through dynamic shared memory."""
    s = cuda.shared.array(0, dtype=float32)
    tid = cuda.threadIdx.x
    n = cuda.blockDim.x
    base = cuda.blockIdx.x * n
    s[tid] = x[base + tid]
    cuda.syncthreads()
    out[base + tid] = s[n - 1 - tid]


def test_dynamic_shared_memory():
    n, block = 128 * 6, 128
    x = np.arange(n, dtype=np.float32) * 0.5
    out = np.zeros_like(x)
    reverse_dynamic[n // block, block, 0, block * 4](x, out)
    np.testing.assert_array_equal(out, x.reshape(-1, block)[:, ::-1].ravel())


@cuda.jit
def two_dynamic_views(out):
    """Two views of the one dynamic shared allocation (numba aliases them)."""
    a = cuda.shared.array(0, dtype=int32)
    b = cuda.shared.array(0, dtype=int32)
    tid = cuda.threadIdx.x
    a[tid] = tid * 3
    cuda.syncthreads()
    out[tid] = b[cuda.blockDim.x - 1 - tid]


def test_dynamic_shared_aliasing():
    out = np.zeros(64, np.int32)
    two_dynamic_views[1, 64, 0, 64 * 4](out)
    np.testing.assert_array_equal(out, (63 - np.arange(64)) * 3)


@cuda.jit
def sync_counts(x, counts, ands, ors):
    i = cuda.grid(1)
    p = int32(x[i] > 0)
    counts[i] = cuda.syncthreads_count(p)
    ands[i] = cuda.syncthreads_and(p)
    ors[i] = cuda.syncthreads_or(p)


def test_syncthreads_count_and_or():
    block = 96
    x = np.zeros(block * 3, np.int32)
    x[0:block:3] = 1  # block 0: 32 of 96 threads
    x[block : 2 * block] = 1  # block 1: all
    # block 2: none
    counts = np.zeros_like(x)
    ands = np.zeros_like(x)
    ors = np.zeros_like(x)
    sync_counts[3, block](x, counts, ands, ors)
    np.testing.assert_array_equal(counts, np.repeat([32, 96, 0], block))
    np.testing.assert_array_equal(ands != 0, np.repeat([False, True, False], block))
    np.testing.assert_array_equal(ors != 0, np.repeat([True, True, False], block))


@cuda.jit
def stencil_1d(x, out):
    """out[i] = x[i-1] + x[i] + x[i+1] (zero outside) with a halo in shared memory."""
    s = cuda.shared.array(130, float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    n = x.size
    s[tid + 1] = x[i] if i < n else 0
    if tid == 0:
        s[0] = x[i - 1] if i > 0 else 0
    if tid == cuda.blockDim.x - 1:
        s[tid + 2] = x[i + 1] if i + 1 < n else 0
    cuda.syncthreads()
    if i < n:
        out[i] = s[tid] + s[tid + 1] + s[tid + 2]


def test_stencil_with_halo():
    x = np.arange(1000, dtype=np.float32) % 17
    out = np.zeros_like(x)
    stencil_1d[(x.size + 127) // 128, 128](x, out)
    padded = np.concatenate([[0], x, [0]]).astype(np.float32)
    np.testing.assert_array_equal(out, padded[:-2] + padded[1:-1] + padded[2:])
