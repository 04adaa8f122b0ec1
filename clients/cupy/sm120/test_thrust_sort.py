"""cupy.sort and friends: CuPy's precompiled Thrust (radix/merge sort) kernels."""

import cupy as cp
import numpy as np
import pytest


@pytest.mark.parametrize("t", [np.int8, np.uint16, np.int32, np.int64, np.float32, np.float64])
def test_sort_1d(rng, t):
    if np.issubdtype(t, np.integer):
        info = np.iinfo(t)
        x = rng.integers(info.min, info.max, 20_000, endpoint=True).astype(t)
    else:
        x = rng.standard_normal(20_000).astype(t) * 1000
        x[::97] = np.nan  # NaNs sort last, as in numpy
        x[1::101] = -0.0
    got = cp.sort(cp.asarray(x)).get()
    np.testing.assert_array_equal(got, np.sort(x))


def test_sort_axis_and_inplace(rng):
    x = rng.integers(-1000, 1000, (50, 400)).astype(np.int32)
    np.testing.assert_array_equal(cp.sort(cp.asarray(x), axis=1).get(), np.sort(x, axis=1))
    np.testing.assert_array_equal(cp.sort(cp.asarray(x), axis=0).get(), np.sort(x, axis=0))
    d = cp.asarray(x)
    d.sort()
    np.testing.assert_array_equal(d.get(), np.sort(x))


def test_argsort_is_a_sorting_permutation(rng):
    x = rng.integers(-500, 500, 20_000).astype(np.int64)  # many ties
    idx = cp.argsort(cp.asarray(x)).get()
    np.testing.assert_array_equal(np.sort(idx), np.arange(x.size))
    np.testing.assert_array_equal(x[idx], np.sort(x))


def test_lexsort(rng):
    keys = rng.integers(0, 10, (3, 5000)).astype(np.int32)
    got = cp.lexsort(cp.asarray(keys)).get()
    np.testing.assert_array_equal(keys[:, got], keys[:, np.lexsort(keys)])


def test_unique_median_percentile_partition_isin(rng):
    x = rng.integers(-300, 300, 10_001).astype(np.int64)
    d = cp.asarray(x)
    np.testing.assert_array_equal(cp.unique(d).get(), np.unique(x))
    vals, counts = cp.unique(d, return_counts=True)
    nv, nc = np.unique(x, return_counts=True)
    np.testing.assert_array_equal(vals.get(), nv)
    np.testing.assert_array_equal(counts.get(), nc)
    assert float(cp.median(d)) == float(np.median(x))
    np.testing.assert_array_equal(cp.percentile(d.astype(cp.float64), [10, 50, 90]).get(),
                                  np.percentile(x.astype(np.float64), [10, 50, 90]))
    k = 1234
    assert int(cp.partition(d, k)[k]) == int(np.partition(x, k)[k])
    probe = rng.integers(-400, 400, 3000)
    np.testing.assert_array_equal(cp.isin(cp.asarray(probe), d).get(), np.isin(probe, x))
