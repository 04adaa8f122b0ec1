"""Fixtures for the tests of CuPy's precompiled Thrust and CUB kernels.

cupy-cuda13x ships those kernels (cupy/cuda/cupy_thrust*.so, cupy_cub*.so) as fatbins with
SASS for sm_75..sm_120f and PTX only for compute_120. ptxvm runs PTX, so they only load on
an emulated compute-capability-12.0 device: run this directory under
`ptxvm exec --arch sm_120a` (clients/pyclients-run.sh does). On the default sm_80 device
the driver refuses the library (CUDA_ERROR_NO_BINARY_FOR_GPU), which Thrust reports as
"radix_sort: failed on 1st step: cudaErrorInvalidDevice"."""

import cupy as cp
import numpy as np
import pytest


@pytest.fixture(autouse=True, scope="session")
def _needs_compute_120():
    cc = cp.cuda.Device().compute_capability
    if cc != "120":
        pytest.fail(f"these tests need an emulated sm_120a device (this one is sm_{cc}): "
                    "run them with `ptxvm exec --arch sm_120a -- ...`", pytrace=False)


@pytest.fixture(autouse=True)
def _synchronize_after_each_test():
    yield
    cp.cuda.Device().synchronize()


@pytest.fixture
def rng():
    return np.random.default_rng(2024)
