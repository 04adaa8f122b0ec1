"""Warp-level intrinsics: shuffles, votes, ballot, match, activemask, lane masks."""

import numpy as np
from numba import cuda, uint32

FULL = 0xFFFFFFFF


@cuda.jit
def shuffles(x, idx, up, down, xor):
    i = cuda.grid(1)
    v = x[i]
    lane = cuda.laneid
    idx[i] = cuda.shfl_sync(FULL, v, (lane * 7 + 3) % 32)
    up[i] = cuda.shfl_up_sync(FULL, v, 3)
    down[i] = cuda.shfl_down_sync(FULL, v, 5)
    xor[i] = cuda.shfl_xor_sync(FULL, v, 9)


def test_shfl_idx_up_down_xor():
    n = 128
    x = (np.arange(n, dtype=np.int32) * 1000003) % 65521
    outs = [np.zeros(n, np.int32) for _ in range(4)]
    shuffles[2, 64](x, *outs)
    idx, up, down, xor = outs
    w = x.reshape(-1, 32)
    lane = np.arange(32)
    np.testing.assert_array_equal(idx.reshape(-1, 32), w[:, (lane * 7 + 3) % 32])
    # Out-of-range sources keep the lane's own value.
    np.testing.assert_array_equal(up.reshape(-1, 32), w[:, np.where(lane >= 3, lane - 3, lane)])
    np.testing.assert_array_equal(down.reshape(-1, 32), w[:, np.where(lane + 5 < 32, lane + 5, lane)])
    np.testing.assert_array_equal(xor.reshape(-1, 32), w[:, lane ^ 9])


@cuda.jit
def warp_sum(x, out):
    """Butterfly reduction of float32 and float64 values with shfl_xor_sync."""
    i = cuda.grid(1)
    v = x[i]
    off = 16
    while off > 0:
        v += cuda.shfl_xor_sync(FULL, v, off)
        off //= 2
    out[i] = v


def test_shfl_xor_reduction_float():
    for dtype in (np.float32, np.float64):
        x = (np.arange(96) % 13).astype(dtype) * 0.25
        out = np.zeros_like(x)
        warp_sum[1, 96](x, out)
        np.testing.assert_array_equal(out, np.repeat(x.reshape(-1, 32).sum(axis=1), 32))


@cuda.jit
def votes(x, all_, any_, eq, ballot):
    i = cuda.grid(1)
    p = x[i] != 0
    all_[i] = cuda.all_sync(FULL, p)
    any_[i] = cuda.any_sync(FULL, p)
    eq[i] = cuda.eq_sync(FULL, p)
    ballot[i] = cuda.ballot_sync(FULL, p)


def test_vote_all_any_eq_ballot():
    x = np.zeros(128, np.int32)
    x[32:64] = 1  # warp 1: all true
    x[64 + 5] = 1  # warp 2: one true
    x[96:128:2] = 1  # warp 3: even lanes
    outs = [np.zeros(128, np.uint32) for _ in range(4)]
    votes[1, 128](x, *outs)
    all_, any_, eq, ballot = (o.reshape(4, 32)[:, 0] for o in outs)
    np.testing.assert_array_equal(all_ != 0, [False, True, False, False])
    np.testing.assert_array_equal(any_ != 0, [False, True, True, True])
    np.testing.assert_array_equal(eq != 0, [True, True, False, False])
    np.testing.assert_array_equal(ballot, [0, 0xFFFFFFFF, 1 << 5, 0x55555555])
    for o in outs:  # every lane of a warp gets the same answer
        r = o.reshape(4, 32)
        assert (r == r[:, :1]).all()


@cuda.jit
def matches(x, any_mask, all_mask, all_pred):
    i = cuda.grid(1)
    v = x[i]
    any_mask[i] = cuda.match_any_sync(FULL, v)
    m, p = cuda.match_all_sync(FULL, v)
    all_mask[i] = m
    all_pred[i] = p


def test_match_any_all():
    x = np.zeros(64, np.int64)
    x[:32] = np.arange(32) % 3  # warp 0: three classes
    x[32:] = 7  # warp 1: all equal
    any_mask = np.zeros(64, np.uint32)
    all_mask = np.zeros(64, np.uint32)
    all_pred = np.zeros(64, np.int32)
    matches[1, 64](x, any_mask, all_mask, all_pred)
    lane = np.arange(32)
    for k in range(3):
        expect = np.uint32(sum(1 << int(j) for j in lane[lane % 3 == k]))
        np.testing.assert_array_equal(any_mask[:32][lane % 3 == k], expect)
    np.testing.assert_array_equal(any_mask[32:], 0xFFFFFFFF)
    np.testing.assert_array_equal(all_mask[:32], 0)
    np.testing.assert_array_equal(all_pred[:32], 0)
    np.testing.assert_array_equal(all_mask[32:], 0xFFFFFFFF)
    np.testing.assert_array_equal(all_pred[32:] != 0, True)


@cuda.jit
def partial_warp(active, lanemask, popc_out, ffs_out):
    i = cuda.grid(1)
    lane = cuda.laneid
    if lane % 4 != 3:
        active[i] = cuda.activemask()
        # The lanes of this branch take part in a ballot over their own mask.
        b = cuda.ballot_sync(uint32(0x77777777), lane < 16)
        popc_out[i] = cuda.popc(b)
        ffs_out[i] = cuda.ffs(b)
    lanemask[i] = cuda.lanemask_lt()


def test_activemask_lanemask_partial_ballot():
    active = np.zeros(32, np.uint32)
    lanemask = np.zeros(32, np.uint32)
    popc_out = np.full(32, -1, np.int32)
    ffs_out = np.full(32, -1, np.int32)
    partial_warp[1, 32](active, lanemask, popc_out, ffs_out)
    lane = np.arange(32)
    in_branch = lane % 4 != 3
    np.testing.assert_array_equal(active[in_branch], 0x77777777)
    np.testing.assert_array_equal(lanemask, ((1 << lane) - 1).astype(np.uint32))
    np.testing.assert_array_equal(popc_out[in_branch], 12)  # lanes 0-15 that are in the mask
    np.testing.assert_array_equal(ffs_out[in_branch], 1)  # ffs is 1-based
    np.testing.assert_array_equal(popc_out[~in_branch], -1)


@cuda.jit
def warp_scan(x, out):
    """Inclusive prefix sum inside each warp with shfl_up_sync."""
    i = cuda.grid(1)
    lane = cuda.laneid
    v = x[i]
    d = 1
    while d < 32:
        y = cuda.shfl_up_sync(FULL, v, d)
        if lane >= d:
            v += y
        d *= 2
    out[i] = v


def test_warp_inclusive_scan():
    x = ((np.arange(256) * 37) % 101).astype(np.int32)
    out = np.zeros_like(x)
    warp_scan[2, 128](x, out)
    np.testing.assert_array_equal(out, np.cumsum(x.reshape(-1, 32), axis=1).ravel())


@cuda.jit
def shfl_width(x, out):
    i = cuda.grid(1)
    # float32 shuffle, sources wrapping inside the warp
    out[i] = cuda.shfl_sync(FULL, x[i], cuda.laneid + 1)


def test_shfl_float32_wraps_index():
    x = np.arange(32, dtype=np.float32) + np.float32(0.5)
    out = np.zeros_like(x)
    shfl_width[1, 32](x, out)
    # The source lane is taken modulo the warp width.
    np.testing.assert_array_equal(out, np.roll(x, -1))
