"""Fixtures for the cuda-python (cuda.bindings) client tests.

These tests talk to whatever ``libcuda.so.1`` the process loads; run them under
``ptxvm exec`` (see README.md) so that it is ptxvm's driver.
"""

import pytest
from cuda.bindings import driver as cu
from helpers import check


@pytest.fixture(scope="session")
def device():
    check(cu.cuInit(0))
    return check(cu.cuDeviceGet(0))


@pytest.fixture
def ctx(device):
    """A fresh context, current for the test, destroyed afterwards."""
    c = check(cu.cuCtxCreate(None, 0, device))
    yield c
    check(cu.cuCtxDestroy(c))
