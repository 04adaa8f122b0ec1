"""Modules: cuModuleLoadData/LoadDataEx (JIT logs), cuModuleGetFunction, cuModuleGetGlobal,
cuFuncGetAttribute, occupancy."""

import ctypes

import numpy as np
from helpers import CudaError, DeviceBuffer, check, compile_ptx, expect, load_module
from cuda.bindings import driver as cu

GLOBALS = r"""
__constant__ float coeffs[4];
__device__ int counter;
__device__ long long table[8] = {1, 2, 3, 4, 5, 6, 7, 8};

extern "C" __global__ void poly(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        out[i] = ((coeffs[3] * v + coeffs[2]) * v + coeffs[1]) * v + coeffs[0];
        atomicAdd(&counter, 1);
    }
}

extern "C" __global__ void scale_table(int k) {
    table[threadIdx.x] *= k;
}
"""

ATTRS = r"""
extern "C" __global__ void __launch_bounds__(256) bounded(float* out) {
    out[threadIdx.x] = 1.0f;
}

extern "C" __global__ void with_shared(float* out) {
    __shared__ float buf[1024];
    buf[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = buf[1023 - threadIdx.x];
}

extern "C" __global__ void with_local(int* out, int k) {
    int a[300];
    for (int i = 0; i < 300; i++) a[i] = i * k;
    out[threadIdx.x] = a[(threadIdx.x * 7 + k) % 300];
}

extern "C" __global__ void plain(int* out) { out[threadIdx.x] = threadIdx.x; }
"""

BAD_PTX = b"""\
.version 8.0
.target sm_80
.address_size 64

.visible .entry broken(.param .u64 p)
{
    .reg .b64 %rd<2>;
    .reg .u32 %r<3>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, 7;
    mul.f32 %r2, %r1, %r1;
    st.global.u32 [%rd1], %r2;
    ret;
}
\0"""


def test_load_data_and_get_function(ctx):
    mod = load_module(ATTRS)
    for name in (b"bounded", b"with_shared", b"with_local", b"plain"):
        f = check(cu.cuModuleGetFunction(mod, name))
        assert int(f) != 0
        assert check(cu.cuFuncGetName(f)) == name
    check(cu.cuModuleUnload(mod))


def test_load_data_ex_with_logs(ctx):
    size = 4096
    info, error = bytearray(size), bytearray(size)
    opts = [
        cu.CUjit_option.CU_JIT_INFO_LOG_BUFFER,
        cu.CUjit_option.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
        cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER,
        cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        cu.CUjit_option.CU_JIT_LOG_VERBOSE,
    ]
    vals = [info, size, error, size, 1]
    mod = check(cu.cuModuleLoadDataEx(compile_ptx(ATTRS), len(opts), opts, vals))
    assert int(mod) != 0
    assert bytes(error).rstrip(b"\0") == b""
    check(cu.cuModuleGetFunction(mod, b"plain"))
    check(cu.cuModuleUnload(mod))


def test_load_data_ex_reports_ptx_error(ctx):
    size = 4096
    info, error = bytearray(size), bytearray(size)
    opts = [
        cu.CUjit_option.CU_JIT_INFO_LOG_BUFFER,
        cu.CUjit_option.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
        cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER,
        cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ]
    vals = [info, size, error, size]
    res = cu.cuModuleLoadDataEx(BAD_PTX, len(opts), opts, vals)
    expect(cu.CUresult.CUDA_ERROR_INVALID_PTX, res)
    text = bytes(error).split(b"\0", 1)[0].decode()
    assert "error" in text.lower(), text
    assert "line 11" in text, text  # mul.f32 on .u32 registers


def test_load_data_ex_no_options(ctx):
    mod = check(cu.cuModuleLoadDataEx(compile_ptx(ATTRS), 0, None, None))
    check(cu.cuModuleGetFunction(mod, b"plain"))
    check(cu.cuModuleUnload(mod))


def test_module_get_global_constant_and_device(ctx):
    mod = load_module(GLOBALS)
    f = check(cu.cuModuleGetFunction(mod, b"poly"))
    cptr, csize = check(cu.cuModuleGetGlobal(mod, b"coeffs"))
    assert csize == 16
    coeffs = np.array([1.0, -2.0, 0.5, 0.25], np.float32)
    check(cu.cuMemcpyHtoD(cptr, coeffs, coeffs.nbytes))
    counter, nsize = check(cu.cuModuleGetGlobal(mod, b"counter"))
    assert nsize == 4
    check(cu.cuMemsetD32(counter, 10, 1))

    n = 1000
    x = (np.arange(n, dtype=np.float32) - 500) / 8  # exact in float32, exact results
    dx, dout = DeviceBuffer(x), DeviceBuffer.empty(x.nbytes)
    check(cu.cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, 0,
                            ((dx.ptr, dout.ptr, n), (None, None, ctypes.c_int)), 0))
    c0, c1, c2, c3 = (np.float32(c) for c in coeffs)
    expected = ((c3 * x + c2) * x + c1) * x + c0
    np.testing.assert_array_equal(dout.get(x), expected)
    got = np.zeros(1, np.int32)
    check(cu.cuMemcpyDtoH(got, counter, 4))
    assert got[0] == 10 + n

    tptr, tsize = check(cu.cuModuleGetGlobal(mod, b"table"))
    assert tsize == 64
    table = np.zeros(8, np.int64)
    check(cu.cuMemcpyDtoH(table, tptr, 64))
    np.testing.assert_array_equal(table, np.arange(1, 9))
    g = check(cu.cuModuleGetFunction(mod, b"scale_table"))
    check(cu.cuLaunchKernel(g, 1, 1, 1, 8, 1, 1, 0, 0, ((-3,), (ctypes.c_int,)), 0))
    check(cu.cuMemcpyDtoH(table, tptr, 64))
    np.testing.assert_array_equal(table, np.arange(1, 9) * -3)
    check(cu.cuModuleUnload(mod))


def test_missing_symbols_not_found(ctx):
    mod = load_module(GLOBALS)
    expect(cu.CUresult.CUDA_ERROR_NOT_FOUND, cu.cuModuleGetFunction(mod, b"no_such_kernel"))
    expect(cu.CUresult.CUDA_ERROR_NOT_FOUND, cu.cuModuleGetGlobal(mod, b"no_such_var"))
    # a global is not a function and a function is not a global
    expect(cu.CUresult.CUDA_ERROR_NOT_FOUND, cu.cuModuleGetFunction(mod, b"counter"))
    expect(cu.CUresult.CUDA_ERROR_NOT_FOUND, cu.cuModuleGetGlobal(mod, b"poly"))
    check(cu.cuModuleUnload(mod))


def func_attr(f, attr):
    return check(cu.cuFuncGetAttribute(attr, f))


def test_func_attributes(ctx):
    A = cu.CUfunction_attribute
    mod = load_module(ATTRS)
    bounded = check(cu.cuModuleGetFunction(mod, b"bounded"))
    shared = check(cu.cuModuleGetFunction(mod, b"with_shared"))
    local = check(cu.cuModuleGetFunction(mod, b"with_local"))
    plain = check(cu.cuModuleGetFunction(mod, b"plain"))
    assert func_attr(bounded, A.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) == 256
    assert func_attr(plain, A.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) == 1024
    assert func_attr(shared, A.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) == 4096
    assert func_attr(plain, A.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) == 0
    assert func_attr(local, A.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES) >= 1200
    assert func_attr(plain, A.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES) == 0
    assert func_attr(plain, A.CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES) == 0
    assert func_attr(plain, A.CU_FUNC_ATTRIBUTE_PTX_VERSION) == 80
    assert 0 < func_attr(plain, A.CU_FUNC_ATTRIBUTE_NUM_REGS) <= 255
    assert func_attr(plain, A.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) == 48 * 1024
    check(cu.cuFuncSetAttribute(plain, A.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 65536))
    assert func_attr(plain, A.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) == 65536
    # every kernel still runs
    out = DeviceBuffer.empty(1024 * 4)
    check(cu.cuLaunchKernel(shared, 1, 1, 1, 1024, 1, 1, 0, 0, ((out.ptr,), (None,)), 0))
    np.testing.assert_array_equal(out.get(np.empty(1024, np.float32)),
                                  np.arange(1023, -1, -1, dtype=np.float32))
    check(cu.cuLaunchKernel(local, 1, 1, 1, 256, 1, 1, 0, 0,
                            ((out.ptr, 3), (None, ctypes.c_int)), 0))
    t = np.arange(256)
    np.testing.assert_array_equal(out.get(np.empty(1024, np.int32))[:256],
                                  ((t * 7 + 3) % 300) * 3)
    check(cu.cuModuleUnload(mod))


def test_occupancy(ctx, device):
    mod = load_module(ATTRS)
    bounded = check(cu.cuModuleGetFunction(mod, b"bounded"))
    plain = check(cu.cuModuleGetFunction(mod, b"plain"))
    shared = check(cu.cuModuleGetFunction(mod, b"with_shared"))
    max_threads_sm = check(cu.cuDeviceGetAttribute(
        cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, device))
    assert max_threads_sm == 2048
    for f, limit in ((plain, 1024), (bounded, 256), (shared, 1024)):
        min_grid, block = check(cu.cuOccupancyMaxPotentialBlockSize(f, None, 0, 0))
        assert 0 < block <= limit and block % 32 == 0, (block, limit)
        assert min_grid > 0
        per_sm = check(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(f, block, 0))
        assert 0 < per_sm and per_sm * block <= max_threads_sm
    # a block-size limit is respected
    _, block = check(cu.cuOccupancyMaxPotentialBlockSize(plain, None, 0, 96))
    assert 0 < block <= 96
    # 40 KiB of dynamic shared memory plus 4 KiB static allow at most 5 blocks in 164 KiB
    per_sm = check(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(shared, 128, 40 * 1024))
    assert 1 <= per_sm <= 5
    check(cu.cuModuleUnload(mod))


def test_unloaded_module_function_is_invalid(ctx):
    mod = load_module(ATTRS)
    check(cu.cuModuleUnload(mod))
    try:
        check(cu.cuModuleGetFunction(mod, b"plain"))
    except CudaError as e:
        assert e.code == cu.CUresult.CUDA_ERROR_INVALID_HANDLE
    else:
        raise AssertionError("cuModuleGetFunction on an unloaded module succeeded")
