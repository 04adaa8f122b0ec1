"""Memory: cuMemGetInfo, cuPointerGetAttribute(s), memsets, device-to-device copies,
mapped pinned memory."""

import ctypes

import numpy as np
from helpers import DeviceBuffer, check, expect, load_module
from cuda.bindings import driver as cu

P = cu.CUpointer_attribute
MIB = 1 << 20

WRITE = r"""
extern "C" __global__ void iota(long long* out, long long base, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = base + i;
}
"""


def test_mem_get_info(ctx, device):
    free0, total = check(cu.cuMemGetInfo())
    assert 0 < free0 <= total
    assert check(cu.cuDeviceTotalMem(device)) == total
    big = check(cu.cuMemAlloc(256 * MIB))
    free1, total1 = check(cu.cuMemGetInfo())
    assert total1 == total
    assert free1 <= free0 - 256 * MIB
    check(cu.cuMemFree(big))
    free2, _ = check(cu.cuMemGetInfo())
    assert free2 == free0


def test_pointer_attributes_device(ctx, device):
    d = check(cu.cuMemAlloc(1000))
    assert int(d) % 256 == 0
    mtype = check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d))
    assert mtype == cu.CUmemorytype.CU_MEMORYTYPE_DEVICE
    owner = check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_CONTEXT, d))
    assert int(owner) == int(ctx)
    assert check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d)) == 0
    inner = cu.CUdeviceptr(int(d) + 100)
    assert int(check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_DEVICE_POINTER, inner))) \
        == int(d) + 100
    assert int(check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, inner))) \
        == int(d)
    assert check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_RANGE_SIZE, inner)) >= 1000
    assert check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_IS_MANAGED, d)) is False
    base, size = check(cu.cuMemGetAddressRange(inner))
    assert int(base) == int(d) and size >= 1000
    check(cu.cuMemFree(d))
    # freed memory is no longer known
    expect(cu.CUresult.CUDA_ERROR_INVALID_VALUE,
           cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d))


def test_pointer_attributes_host(ctx):
    p = check(cu.cuMemHostAlloc(4096, cu.CU_MEMHOSTALLOC_DEVICEMAP))
    mtype = check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p))
    assert mtype == cu.CUmemorytype.CU_MEMORYTYPE_HOST
    assert check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_HOST_POINTER, p)) == p
    check(cu.cuMemFreeHost(p))


def test_pointer_get_attributes_batch(ctx):
    d = check(cu.cuMemAlloc(4096))
    attrs = [P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, P.CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
             P.CU_POINTER_ATTRIBUTE_RANGE_SIZE]
    mtype, dptr, size = check(cu.cuPointerGetAttributes(len(attrs), attrs, d))
    assert mtype == cu.CUmemorytype.CU_MEMORYTYPE_DEVICE
    assert int(dptr) == int(d)
    assert size >= 4096
    check(cu.cuMemFree(d))


def test_memset_and_dtod(ctx):
    n = 4096
    d = DeviceBuffer.empty(n)
    check(cu.cuMemsetD8(d.ptr, 0xAB, n))
    np.testing.assert_array_equal(d.get(np.empty(n, np.uint8)), np.full(n, 0xAB, np.uint8))
    check(cu.cuMemsetD16(cu.CUdeviceptr(int(d.ptr) + 2), 0x1234, 10))
    check(cu.cuMemsetD32(cu.CUdeviceptr(int(d.ptr) + 64), 0xDEADBEEF, 100))
    expected = np.full(n, 0xAB, np.uint8)
    expected[2:22] = np.full(10, 0x1234, np.uint16).view(np.uint8)
    expected[64:464] = np.full(100, 0xDEADBEEF, np.uint32).view(np.uint8)
    np.testing.assert_array_equal(d.get(np.empty(n, np.uint8)), expected)
    e = DeviceBuffer.empty(n)
    check(cu.cuMemcpyDtoD(e.ptr, d.ptr, n))
    np.testing.assert_array_equal(e.get(np.empty(n, np.uint8)), expected)
    stream = check(cu.cuStreamCreate(0))
    check(cu.cuMemsetD32Async(e.ptr, 7, n // 4, stream))
    check(cu.cuMemcpyDtoDAsync(cu.CUdeviceptr(int(e.ptr) + 1000), cu.CUdeviceptr(int(d.ptr) + 8),
                               100, stream))
    check(cu.cuStreamSynchronize(stream))
    exp2 = np.full(n // 4, 7, np.uint32).view(np.uint8).copy()
    exp2[1000:1100] = expected[8:108]
    np.testing.assert_array_equal(e.get(np.empty(n, np.uint8)), exp2)
    check(cu.cuStreamDestroy(stream))


def test_mapped_host_memory(ctx):
    n = 2000
    p = check(cu.cuMemHostAlloc(n * 8, cu.CU_MEMHOSTALLOC_DEVICEMAP))
    host = np.frombuffer((ctypes.c_char * (n * 8)).from_address(p), dtype=np.int64)
    host[:] = -1
    dptr = check(cu.cuMemHostGetDevicePointer(p, 0))
    mod = load_module(WRITE)
    f = check(cu.cuModuleGetFunction(mod, b"iota"))
    check(cu.cuLaunchKernel(f, 8, 1, 1, 256, 1, 1, 0, 0,
                            ((dptr, 10**12, n), (None, ctypes.c_longlong, ctypes.c_int)), 0))
    check(cu.cuCtxSynchronize())
    np.testing.assert_array_equal(host, np.arange(n, dtype=np.int64) + 10**12)
    check(cu.cuMemFreeHost(p))


def test_host_register(ctx):
    n = 1024
    host = np.zeros(n, np.int64)
    check(cu.cuMemHostRegister(host.ctypes.data, host.nbytes, cu.CU_MEMHOSTREGISTER_DEVICEMAP))
    dptr = check(cu.cuMemHostGetDevicePointer(host.ctypes.data, 0))
    mod = load_module(WRITE)
    f = check(cu.cuModuleGetFunction(mod, b"iota"))
    check(cu.cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, 0,
                            ((dptr, -50, n), (None, ctypes.c_longlong, ctypes.c_int)), 0))
    check(cu.cuCtxSynchronize())
    np.testing.assert_array_equal(host, np.arange(n, dtype=np.int64) - 50)
    check(cu.cuMemHostUnregister(host.ctypes.data))


def test_managed_memory(ctx):
    n = 512
    p = check(cu.cuMemAllocManaged(n * 8, cu.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL))
    assert check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_IS_MANAGED, p)) is True
    mod = load_module(WRITE)
    f = check(cu.cuModuleGetFunction(mod, b"iota"))
    check(cu.cuLaunchKernel(f, 2, 1, 1, 256, 1, 1, 0, 0,
                            ((p, 3, n), (None, ctypes.c_longlong, ctypes.c_int)), 0))
    check(cu.cuCtxSynchronize())
    host = np.frombuffer((ctypes.c_char * (n * 8)).from_address(int(p)), dtype=np.int64)
    np.testing.assert_array_equal(host, np.arange(n, dtype=np.int64) + 3)
    check(cu.cuMemFree(p))
