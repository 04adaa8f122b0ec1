"""Contexts: cuCtxCreate, the context stack (push/pop), primary contexts, device queries."""

import ctypes

import numpy as np
from helpers import DeviceBuffer, check, expect, load_module
from cuda.bindings import driver as cu

P = cu.CUpointer_attribute

KERNEL = r"""
extern "C" __global__ void fill(int* out, int v) { out[threadIdx.x] = v + threadIdx.x; }
"""


def current():
    return int(check(cu.cuCtxGetCurrent()))


def test_device_queries(device):
    assert check(cu.cuDeviceGetCount()) >= 1
    A = cu.CUdevice_attribute
    assert check(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)) == 8
    assert check(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)) == 0
    assert check(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_WARP_SIZE, device)) == 32
    assert check(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, device)) == 1024
    assert check(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, device)) == 1
    assert check(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device)) > 0
    name = check(cu.cuDeviceGetName(256, device))
    assert name.rstrip(b"\0")
    assert check(cu.cuDriverGetVersion()) >= 13000
    expect(cu.CUresult.CUDA_ERROR_INVALID_DEVICE, cu.cuDeviceGet(check(cu.cuDeviceGetCount())))


def test_create_push_pop(device):
    a = check(cu.cuCtxCreate(None, 0, device))
    assert current() == int(a)
    assert int(check(cu.cuCtxGetDevice())) == int(device)
    b = check(cu.cuCtxCreate(None, 0, device))
    assert current() == int(b)
    popped = check(cu.cuCtxPopCurrent())
    assert int(popped) == int(b)
    assert current() == int(a)
    # allocations belong to the context that was current
    pa = check(cu.cuMemAlloc(64))
    check(cu.cuCtxPushCurrent(b))
    assert current() == int(b)
    pb = check(cu.cuMemAlloc(64))
    assert int(check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_CONTEXT, pa))) == int(a)
    assert int(check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_CONTEXT, pb))) == int(b)
    # unified addressing: memory of `a` is usable while `b` is current
    check(cu.cuMemsetD32(pa, 5, 16))
    check(cu.cuMemcpyDtoD(pb, pa, 64))
    got = np.zeros(16, np.int32)
    check(cu.cuMemcpyDtoH(got, pb, 64))
    np.testing.assert_array_equal(got, np.full(16, 5))
    check(cu.cuMemFree(pb))
    assert int(check(cu.cuCtxPopCurrent())) == int(b)
    assert current() == int(a)
    check(cu.cuMemFree(pa))
    check(cu.cuCtxDestroy(b))
    assert check(cu.cuCtxGetApiVersion(a)) >= 3020
    check(cu.cuCtxDestroy(a))
    # a destroyed context is an invalid one
    expect(cu.CUresult.CUDA_ERROR_INVALID_CONTEXT, cu.cuCtxPushCurrent(a))


def test_modules_are_per_context(device):
    a = check(cu.cuCtxCreate(None, 0, device))
    mod_a = load_module(KERNEL)
    b = check(cu.cuCtxCreate(None, 0, device))
    mod_b = load_module(KERNEL)
    assert int(mod_a) != int(mod_b)
    out = DeviceBuffer.empty(32 * 4)
    f = check(cu.cuModuleGetFunction(mod_b, b"fill"))
    check(cu.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, ((out.ptr, 40), (None, ctypes.c_int)), 0))
    np.testing.assert_array_equal(out.get(np.empty(32, np.int32)), np.arange(32) + 40)
    check(cu.cuCtxPopCurrent())
    fa = check(cu.cuModuleGetFunction(mod_a, b"fill"))
    check(cu.cuLaunchKernel(fa, 1, 1, 1, 32, 1, 1, 0, 0, ((out.ptr, -1), (None, ctypes.c_int)), 0))
    check(cu.cuCtxSynchronize())
    np.testing.assert_array_equal(out.get(np.empty(32, np.int32)), np.arange(32) - 1)
    check(cu.cuCtxDestroy(b))
    check(cu.cuCtxDestroy(a))


def test_primary_context(device):
    while current():
        check(cu.cuCtxPopCurrent())
    flags, active = check(cu.cuDevicePrimaryCtxGetState(device))
    pctx = check(cu.cuDevicePrimaryCtxRetain(device))
    again = check(cu.cuDevicePrimaryCtxRetain(device))
    assert int(pctx) == int(again)
    _, active = check(cu.cuDevicePrimaryCtxGetState(device))
    assert active == 1
    check(cu.cuCtxSetCurrent(pctx))
    assert current() == int(pctx)
    mod = load_module(KERNEL)
    f = check(cu.cuModuleGetFunction(mod, b"fill"))
    out = DeviceBuffer.empty(64 * 4)
    check(cu.cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, 0, ((out.ptr, 7), (None, ctypes.c_int)), 0))
    np.testing.assert_array_equal(out.get(np.empty(64, np.int32)), np.arange(64) + 7)
    out.free()
    check(cu.cuModuleUnload(mod))
    check(cu.cuCtxSetCurrent(cu.CUcontext(0)))
    assert current() == 0
    check(cu.cuDevicePrimaryCtxRelease(device))
    check(cu.cuDevicePrimaryCtxRelease(device))
    _, active = check(cu.cuDevicePrimaryCtxGetState(device))
    assert active == 0


def test_no_current_context(device):
    while current():
        check(cu.cuCtxPopCurrent())
    expect(cu.CUresult.CUDA_ERROR_INVALID_CONTEXT, cu.cuMemAlloc(16))
    expect(cu.CUresult.CUDA_ERROR_INVALID_CONTEXT, cu.cuCtxSynchronize())
