"""The driver's PTX linker: cuLinkCreate/AddData/Complete with two relocatable PTX inputs
(an `extern` device function and an `extern` global resolved across them)."""

import ctypes

import numpy as np
from helpers import DeviceBuffer, check, compile_ptx
from cuda.bindings import driver as cu

RDC = (b"--relocatable-device-code=true",)

MAIN = r"""
extern __device__ int mix(int a, int b);
extern __device__ int bias;

extern "C" __global__ void apply(const int* a, const int* b, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = mix(a[i], b[i]) + bias;
}
"""

LIB = r"""
__device__ int bias = 1000;

__device__ __noinline__ int mix(int a, int b) { return a * 3 - b; }
"""

LOG_SIZE = 8192


def link_options():
    info, error = bytearray(LOG_SIZE), bytearray(LOG_SIZE)
    opts = [
        cu.CUjit_option.CU_JIT_INFO_LOG_BUFFER,
        cu.CUjit_option.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
        cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER,
        cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        cu.CUjit_option.CU_JIT_LOG_VERBOSE,
    ]
    return opts, [info, LOG_SIZE, error, LOG_SIZE, 1], error


def add_ptx(state, ptx, name):
    check(cu.cuLinkAddData(state, cu.CUjitInputType.CU_JIT_INPUT_PTX, ptx, len(ptx), name,
                           0, None, None))


def test_link_two_ptx_inputs(ctx):
    main_ptx = compile_ptx(MAIN, RDC)
    lib_ptx = compile_ptx(LIB, RDC)
    assert b".extern .func" in main_ptx and b".extern .global" in main_ptx
    opts, vals, error = link_options()
    state = check(cu.cuLinkCreate(len(opts), opts, vals))
    add_ptx(state, main_ptx, b"main.ptx")
    add_ptx(state, lib_ptx, b"lib.ptx")
    cubin, size = check(cu.cuLinkComplete(state))
    assert size > 0
    # the image stays valid until cuLinkDestroy: load a copy after destroying the state
    image = ctypes.string_at(cubin, size)
    mod = check(cu.cuModuleLoadData(cubin))
    check(cu.cuLinkDestroy(state))
    assert bytes(error).rstrip(b"\0") == b""

    n = 3000
    rng = np.random.default_rng(7)
    a = rng.integers(-10**6, 10**6, n).astype(np.int32)
    b = rng.integers(-10**6, 10**6, n).astype(np.int32)
    da, db, dout = DeviceBuffer(a), DeviceBuffer(b), DeviceBuffer.empty(a.nbytes)
    f = check(cu.cuModuleGetFunction(mod, b"apply"))
    params = ((da.ptr, db.ptr, dout.ptr, n), (None, None, None, ctypes.c_int))
    check(cu.cuLaunchKernel(f, (n + 255) // 256, 1, 1, 256, 1, 1, 0, 0, params, 0))
    np.testing.assert_array_equal(dout.get(a), a * 3 - b + 1000)

    # the library's global is visible in the linked module and can be changed
    bias, bsize = check(cu.cuModuleGetGlobal(mod, b"bias"))
    assert bsize == 4
    check(cu.cuMemcpyHtoD(bias, np.array([-5], np.int32), 4))
    check(cu.cuLaunchKernel(f, (n + 255) // 256, 1, 1, 256, 1, 1, 0, 0, params, 0))
    np.testing.assert_array_equal(dout.get(a), a * 3 - b - 5)
    check(cu.cuModuleUnload(mod))

    # the copied image loads again as a fresh module (bias back to 1000)
    mod2 = check(cu.cuModuleLoadData(image))
    f2 = check(cu.cuModuleGetFunction(mod2, b"apply"))
    check(cu.cuLaunchKernel(f2, (n + 255) // 256, 1, 1, 256, 1, 1, 0, 0, params, 0))
    np.testing.assert_array_equal(dout.get(a), a * 3 - b + 1000)
    check(cu.cuModuleUnload(mod2))


def test_link_unresolved_extern_fails(ctx):
    opts, vals, error = link_options()
    state = check(cu.cuLinkCreate(len(opts), opts, vals))
    add_ptx(state, compile_ptx(MAIN, RDC), b"main.ptx")
    res = cu.cuLinkComplete(state)
    # the exact code is not documented for an undefined reference; the log must name it
    assert res[0] != cu.CUresult.CUDA_SUCCESS, res
    text = bytes(error).split(b"\0", 1)[0].decode()
    assert "mix" in text and "undefined" in text.lower(), text
    check(cu.cuLinkDestroy(state))
