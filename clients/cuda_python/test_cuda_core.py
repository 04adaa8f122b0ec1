"""cuda.core (cuda-python's high-level layer, 1.2.2): Program (NVRTC) -> PTX, the Linker
(the driver's cuLink*: nvJitLink is not installed), kernels from cuLibraryLoadData,
launch(), stream-ordered device buffers, pinned host buffers, timing events."""

import warnings

import numpy as np
import pytest
from cuda.core import (Device, EventOptions, LaunchConfig, LegacyPinnedMemoryResource, Linker,
                       LinkerOptions, Program, ProgramOptions, launch)

TEMPLATE = r"""
template <typename T>
__global__ void affine(const T* x, T* y, T a, T b, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b;
}
"""

RDC_MAIN = r"""
extern __device__ int mix(int a, int b);
extern "C" __global__ void apply(const int* a, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = mix(a[i], i);
}
"""

RDC_LIB = r"""
__device__ int mix(int a, int b) { return a * 3 - b; }
"""


@pytest.fixture(scope="module")
def dev():
    d = Device(0)
    d.set_current()
    return d


def host_buffer(dev, stream, array):
    """A pinned host buffer holding `array`, and a numpy view of it."""
    buf = LegacyPinnedMemoryResource().allocate(array.nbytes, stream=stream)
    view = np.from_dlpack(buf).view(array.dtype)
    view[:] = array
    return buf, view


def test_device_properties(dev):
    assert tuple(dev.compute_capability) == (8, 0)
    assert dev.properties.max_threads_per_block == 1024
    assert dev.properties.warp_size == 32
    assert dev.name


@pytest.mark.parametrize("t,name", [(np.float32, "float"), (np.float64, "double"),
                                    (np.int64, "long long")])
def test_program_template_kernel(dev, t, name):
    s = dev.create_stream()
    opts = ProgramOptions(std="c++17", arch="compute_80")
    expr = f"affine<{name}>"
    mod = Program(TEMPLATE, "c++", options=opts).compile("ptx", name_expressions=(expr,))
    assert b".entry" in mod.code
    kernel = mod.get_kernel(expr)
    n = 3000
    x = (np.arange(n) - 1500).astype(t)
    hx, _ = host_buffer(dev, s, x)
    hy, y = host_buffer(dev, s, np.zeros(n, t))
    dx, dy = dev.allocate(x.nbytes, stream=s), dev.allocate(x.nbytes, stream=s)
    dx.copy_from(hx, stream=s)
    launch(s, LaunchConfig(grid=(n + 255) // 256, block=256), kernel, dx, dy, t(-3), t(7),
           np.uint64(n))
    hy.copy_from(dy, stream=s)
    s.sync()
    np.testing.assert_array_equal(y, t(-3) * x + t(7))
    for b in (dx, dy):
        b.close(s)


def test_linker(dev):
    s = dev.create_stream()
    opts = ProgramOptions(std="c++17", arch="compute_80", relocatable_device_code=True)
    main = Program(RDC_MAIN, "c++", options=opts).compile("ptx")
    lib = Program(RDC_LIB, "c++", options=opts).compile("ptx")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        linker = Linker(main, lib, options=LinkerOptions(arch="sm_80"))
    # `ptxvm exec` preloads ptxvm's nvJitLink, so cuda.core links with it (without one it
    # would warn that the driver's cuLinkCreate/AddData/Complete are used; that path is
    # tested by clients/native's drv_link and numba-cuda's linker tests).
    assert not any("driver APIs will be used" in str(w.message) for w in caught), \
        [str(w.message) for w in caught]
    linked = linker.link("cubin")
    kernel = linked.get_kernel("apply")
    n = 5000
    a = np.arange(n, dtype=np.int32) * 7 - 100
    ha, _ = host_buffer(dev, s, a)
    hout, out = host_buffer(dev, s, np.zeros(n, np.int32))
    da, dout = dev.allocate(a.nbytes, stream=s), dev.allocate(a.nbytes, stream=s)
    da.copy_from(ha, stream=s)
    start = s.record(options=EventOptions(timing_enabled=True))
    launch(s, LaunchConfig(grid=(n + 127) // 128, block=128), kernel, da, dout, np.int32(n))
    stop = s.record(options=EventOptions(timing_enabled=True))
    hout.copy_from(dout, stream=s)
    s.sync()
    np.testing.assert_array_equal(out, a * 3 - np.arange(n, dtype=np.int32))
    assert stop - start > 0  # elapsed milliseconds


def test_buffer_fill_and_copies(dev):
    s = dev.create_stream()
    n = 4096
    d1 = dev.allocate(n, stream=s)
    d2 = dev.allocate(n, stream=s)
    d1.fill(0xA5, stream=s)
    d2.copy_from(d1, stream=s)
    h, view = host_buffer(dev, s, np.zeros(n, np.uint8))
    h.copy_from(d2, stream=s)
    s.sync()
    np.testing.assert_array_equal(view, np.full(n, 0xA5, np.uint8))
    assert d1.is_device_accessible and h.is_host_accessible
