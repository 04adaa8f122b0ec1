"""Kernel launches: the three ways to pass parameters, cuLaunchKernelEx, CUkernel handles,
multi-dimensional grids and dynamic shared memory."""

import ctypes

import numpy as np
import pytest
from helpers import DeviceBuffer, check, compile_ptx, load_module, ptr_args
from cuda.bindings import driver as cu

SAXPY = r"""
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
"""

# Parameters of every size with padding between them: char at 0, double at 8, short at
# 16, pointer at 24, int at 32, unsigned char at 36, long long at 40 (48 bytes).
MIXED = r"""
extern "C" __global__ void mixed(char c, double d, short s, double* out, int i,
                                 unsigned char u, long long big) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = (double)c + d * t + (double)s + (double)i + (double)u + (double)big;
}
"""

GRID3D = r"""
extern "C" __global__ void coords(unsigned* out) {
    unsigned bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
    unsigned tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
    unsigned x = bx * blockDim.x + tx, y = by * blockDim.y + ty, z = bz * blockDim.z + tz;
    unsigned w = gridDim.x * blockDim.x, h = gridDim.y * blockDim.y;
    out[(z * h + y) * w + x] = (x << 20) | (y << 10) | z;
}
"""

DYNSMEM = r"""
extern "C" __global__ void reverse_block(const int* in, int* out) {
    extern __shared__ int tile[];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    tile[t] = in[base + t];
    __syncthreads();
    out[base + t] = tile[blockDim.x - 1 - t];
}
"""

N = 50_000


def saxpy_setup():
    rng = np.random.default_rng(1)
    x = rng.integers(-1000, 1000, N).astype(np.float32)
    y = rng.integers(-1000, 1000, N).astype(np.float32)
    a = np.float32(2.5)
    expected = a * x + y  # exact: integer-valued floats far below 2**24
    return a, x, y, expected


def test_saxpy_param_address_array(ctx):
    mod = load_module(SAXPY)
    f = check(cu.cuModuleGetFunction(mod, b"saxpy"))
    a, x, y, expected = saxpy_setup()
    dx, dy, dout = DeviceBuffer(x), DeviceBuffer(y), DeviceBuffer.empty(x.nbytes)
    addrs, _keep = ptr_args(a, dx.ptr, dy.ptr, dout.ptr, np.uint64(N))
    blocks = (N + 255) // 256
    check(cu.cuLaunchKernel(f, blocks, 1, 1, 256, 1, 1, 0, 0, addrs.ctypes.data, 0))
    check(cu.cuCtxSynchronize())
    np.testing.assert_array_equal(dout.get(x), expected)
    check(cu.cuModuleUnload(mod))


def test_saxpy_param_tuple(ctx):
    mod = load_module(SAXPY)
    f = check(cu.cuModuleGetFunction(mod, b"saxpy"))
    a, x, y, expected = saxpy_setup()
    dx, dy, dout = DeviceBuffer(x), DeviceBuffer(y), DeviceBuffer.empty(x.nbytes)
    params = (
        (float(a), dx.ptr, dy.ptr, dout.ptr, N),
        (ctypes.c_float, None, None, None, ctypes.c_size_t),
    )
    blocks = (N + 127) // 128
    check(cu.cuLaunchKernel(f, blocks, 1, 1, 128, 1, 1, 0, 0, params, 0))
    np.testing.assert_array_equal(dout.get(x), expected)


def mixed_expected(n, c, d, s, i, u, big):
    t = np.arange(n, dtype=np.float64)
    return c + d * t + s + i + u + float(big)


def test_mixed_params_tuple(ctx):
    mod = load_module(MIXED)
    f = check(cu.cuModuleGetFunction(mod, b"mixed"))
    out = DeviceBuffer.empty(64 * 8)
    params = (
        (-7, 0.5, -300, out.ptr, 123456, 250, -(2**40)),
        (ctypes.c_int8, ctypes.c_double, ctypes.c_int16, None, ctypes.c_int32, ctypes.c_uint8,
         ctypes.c_int64),
    )
    check(cu.cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, 0, params, 0))
    got = out.get(np.empty(64, np.float64))
    np.testing.assert_array_equal(got, mixed_expected(64, -7, 0.5, -300, 123456, 250, -(2**40)))


def test_mixed_params_address_array(ctx):
    mod = load_module(MIXED)
    f = check(cu.cuModuleGetFunction(mod, b"mixed"))
    out = DeviceBuffer.empty(64 * 8)
    addrs, _keep = ptr_args(np.int8(5), np.float64(-1.25), np.int16(1000), out.ptr,
                            np.int32(-99), np.uint8(7), np.int64(2**45))
    check(cu.cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, 0, addrs.ctypes.data, 0))
    got = out.get(np.empty(64, np.float64))
    np.testing.assert_array_equal(got, mixed_expected(64, 5, -1.25, 1000, -99, 7, 2**45))


def test_mixed_params_extra_buffer(ctx):
    mod = load_module(MIXED)
    f = check(cu.cuModuleGetFunction(mod, b"mixed"))
    out = DeviceBuffer.empty(64 * 8)
    buf = np.zeros(48, dtype=np.uint8)
    buf[0:1] = np.array([-3], np.int8).view(np.uint8)
    buf[8:16] = np.array([0.75], np.float64).view(np.uint8)
    buf[16:18] = np.array([-2], np.int16).view(np.uint8)
    buf[24:32] = np.array([int(out.ptr)], np.uint64).view(np.uint8)
    buf[32:36] = np.array([40000], np.int32).view(np.uint8)
    buf[36:37] = np.array([200], np.uint8)
    buf[40:48] = np.array([-12345678901], np.int64).view(np.uint8)
    size = np.array([buf.nbytes], dtype=np.uint64)
    extra = np.array(
        [int(cu.CU_LAUNCH_PARAM_BUFFER_POINTER), buf.ctypes.data,
         int(cu.CU_LAUNCH_PARAM_BUFFER_SIZE), size.ctypes.data,
         int(cu.CU_LAUNCH_PARAM_END)],
        dtype=np.uint64,
    )
    check(cu.cuLaunchKernel(f, 4, 1, 1, 16, 1, 1, 0, 0, None, extra.ctypes.data))
    got = out.get(np.empty(64, np.float64))
    np.testing.assert_array_equal(got, mixed_expected(64, -3, 0.75, -2, 40000, 200, -12345678901))


def test_launch_kernel_ex_on_stream(ctx):
    mod = load_module(SAXPY)
    f = check(cu.cuModuleGetFunction(mod, b"saxpy"))
    a, x, y, expected = saxpy_setup()
    dx, dy, dout = DeviceBuffer(x), DeviceBuffer(y), DeviceBuffer.empty(x.nbytes)
    stream = check(cu.cuStreamCreate(0))
    config = cu.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = (N + 511) // 512, 1, 1
    config.blockDimX, config.blockDimY, config.blockDimZ = 512, 1, 1
    config.sharedMemBytes = 0
    config.hStream = stream
    config.numAttrs = 0
    params = ((float(a), dx.ptr, dy.ptr, dout.ptr, N),
              (ctypes.c_float, None, None, None, ctypes.c_size_t))
    check(cu.cuLaunchKernelEx(config, f, params, 0))
    check(cu.cuStreamSynchronize(stream))
    np.testing.assert_array_equal(dout.get(x), expected)
    check(cu.cuStreamDestroy(stream))


def test_library_kernel_handle(ctx):
    """cuLibraryLoadData + cuLibraryGetKernel: a CUkernel launched with cuLaunchKernelEx
    (numba-cuda's path) and with cuLaunchKernel."""
    lib = check(cu.cuLibraryLoadData(compile_ptx(SAXPY), None, None, 0, None, None, 0))
    kernel = check(cu.cuLibraryGetKernel(lib, b"saxpy"))
    a, x, y, expected = saxpy_setup()
    dx, dy, dout = DeviceBuffer(x), DeviceBuffer(y), DeviceBuffer.empty(x.nbytes)
    params = ((float(a), dx.ptr, dy.ptr, dout.ptr, N),
              (ctypes.c_float, None, None, None, ctypes.c_size_t))
    config = cu.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = (N + 255) // 256, 1, 1
    config.blockDimX, config.blockDimY, config.blockDimZ = 256, 1, 1
    config.hStream = 0
    config.numAttrs = 0
    check(cu.cuLaunchKernelEx(config, cu.CUfunction(int(kernel)), params, 0))
    np.testing.assert_array_equal(dout.get(x), expected)
    check(cu.cuMemsetD32(dout.ptr, 0, N))
    check(cu.cuLaunchKernel(cu.CUfunction(int(kernel)), (N + 255) // 256, 1, 1, 256, 1, 1, 0, 0,
                            params, 0))
    np.testing.assert_array_equal(dout.get(x), expected)
    func = check(cu.cuKernelGetFunction(kernel))
    check(cu.cuMemsetD32(dout.ptr, 0, N))
    check(cu.cuLaunchKernel(func, (N + 255) // 256, 1, 1, 256, 1, 1, 0, 0, params, 0))
    np.testing.assert_array_equal(dout.get(x), expected)
    check(cu.cuLibraryUnload(lib))


def test_3d_grid_and_block(ctx):
    mod = load_module(GRID3D)
    f = check(cu.cuModuleGetFunction(mod, b"coords"))
    grid, block = (3, 4, 2), (8, 2, 4)
    w, h, d = (g * b for g, b in zip(grid, block))
    out = DeviceBuffer.empty(w * h * d * 4)
    check(cu.cuLaunchKernel(f, *grid, *block, 0, 0, ((out.ptr,), (None,)), 0))
    got = out.get(np.empty((d, h, w), np.uint32))
    z, y, x = np.meshgrid(np.arange(d), np.arange(h), np.arange(w), indexing="ij")
    np.testing.assert_array_equal(got, ((x << 20) | (y << 10) | z).astype(np.uint32))


@pytest.mark.parametrize("block", [32, 256, 1024])
def test_dynamic_shared_memory(ctx, block):
    mod = load_module(DYNSMEM)
    f = check(cu.cuModuleGetFunction(mod, b"reverse_block"))
    blocks = 5
    host = np.arange(blocks * block, dtype=np.int32) * 3 - 7
    din, dout = DeviceBuffer(host), DeviceBuffer.empty(host.nbytes)
    check(cu.cuLaunchKernel(f, blocks, 1, 1, block, 1, 1, block * 4, 0,
                            ((din.ptr, dout.ptr), (None, None)), 0))
    np.testing.assert_array_equal(dout.get(host), host.reshape(blocks, block)[:, ::-1].ravel())
