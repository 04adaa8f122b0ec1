"""CuPy's CUB accelerator (its default, CUPY_ACCELERATORS=cub): reductions and scans run
precompiled CUB kernels instead of CuPy's own."""

import cupy as cp
import numpy as np
import pytest
from cupy._core import _accelerator


@pytest.fixture
def cub():
    routine = _accelerator.get_routine_accelerators()
    reduction = _accelerator.get_reduction_accelerators()
    _accelerator.set_routine_accelerators(["cub"])
    _accelerator.set_reduction_accelerators(["cub"])
    yield
    _accelerator.set_routine_accelerators(routine)
    _accelerator.set_reduction_accelerators(reduction)


@pytest.mark.parametrize("t", [np.int32, np.int64, np.float64])
def test_cub_reductions(cub, rng, t):
    x = rng.integers(-1000, 1000, (200, 1000)).astype(t)  # exact in any summation order
    d = cp.asarray(x)
    assert d.sum() == x.sum()
    assert d.max() == x.max() and d.min() == x.min()
    assert int(d.argmax()) == int(x.argmax()) and int(d.argmin()) == int(x.argmin())
    np.testing.assert_array_equal(d.sum(axis=1).get(), x.sum(axis=1))
    np.testing.assert_array_equal(d.max(axis=1).get(), x.max(axis=1))


def test_cub_scan(cub, rng):
    x = rng.integers(-1000, 1000, 100_000).astype(np.int64)
    np.testing.assert_array_equal(cp.cumsum(cp.asarray(x)).get(), np.cumsum(x))


def test_cub_is_used(cub, monkeypatch):
    """The reductions and scans above really take the CUB path."""
    from cupy.cuda import cub as cub_module
    calls = []
    for name in ("cub_reduction", "cub_scan"):
        real = getattr(cub_module, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            out = _real(*args, **kwargs)
            calls.append((_name, out is not None))
            return out
        monkeypatch.setattr(cub_module, name, spy)
    x = cp.arange(10_000, dtype=cp.int64)
    assert int(x.sum()) == 10_000 * 9_999 // 2
    assert int(x.max()) == 9_999
    np.testing.assert_array_equal(cp.cumsum(x).get(), np.cumsum(np.arange(10_000)))
    assert calls == [("cub_reduction", True), ("cub_reduction", True), ("cub_scan", True)]
