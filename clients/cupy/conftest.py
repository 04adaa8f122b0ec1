"""Fixtures for the CuPy client tests (run them under `ptxvm exec`: see README.md)."""

import os

import cupy as cp
import numpy as np
import pytest


def pytest_report_header(config):
    p = cp.cuda.runtime.getDeviceProperties(0)
    return [
        f"cupy {cp.__version__}, device {p['name'].decode()} (cc {p['major']}.{p['minor']}), "
        f"driver {cp.cuda.runtime.driverGetVersion()}, runtime {cp.cuda.runtime.runtimeGetVersion()}",
        f"CUPY_COMPILE_WITH_PTX={os.environ.get('CUPY_COMPILE_WITH_PTX')!r} "
        f"CUPY_ACCELERATORS={os.environ.get('CUPY_ACCELERATORS')!r}",
    ]


@pytest.fixture(autouse=True)
def _synchronize_after_each_test():
    """A kernel fault must show up in the test that caused it, not in a later one."""
    yield
    cp.cuda.Device().synchronize()


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
