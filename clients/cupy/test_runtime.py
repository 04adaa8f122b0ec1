"""cupy.cuda.runtime / Device queries: what an emulated sm_80 device reports."""

import cupy as cp
import pytest


def test_device_count_and_properties():
    rt = cp.cuda.runtime
    assert rt.getDeviceCount() >= 1
    p = rt.getDeviceProperties(0)
    assert (p["major"], p["minor"]) == (8, 0)
    assert p["warpSize"] == 32
    assert p["maxThreadsPerBlock"] == 1024
    assert tuple(p["maxThreadsDim"]) == (1024, 1024, 64)
    assert tuple(p["maxGridSize"]) == (2**31 - 1, 65535, 65535)
    assert p["sharedMemPerBlock"] == 48 * 1024
    assert p["sharedMemPerBlockOptin"] >= 64 * 1024
    assert p["totalConstMem"] == 64 * 1024
    assert p["regsPerBlock"] == 65536
    assert p["maxThreadsPerMultiProcessor"] == 2048
    assert p["multiProcessorCount"] > 0
    assert p["totalGlobalMem"] > 0
    assert p["unifiedAddressing"] == 1
    assert p["managedMemory"] == 1
    assert p["name"]


def test_device_attributes_and_versions():
    rt = cp.cuda.runtime
    assert rt.deviceGetAttribute(rt.cudaDevAttrMaxBlockDimZ, 0) == 64
    assert rt.deviceGetAttribute(rt.cudaDevAttrMaxRegistersPerBlock, 0) == 65536
    assert rt.deviceGetAttribute(rt.cudaDevAttrManagedMemory, 0) == 1
    assert rt.driverGetVersion() >= 13000
    assert rt.runtimeGetVersion() >= 13000
    dev = cp.cuda.Device(0)
    assert dev.compute_capability == "80"
    attrs = dev.attributes
    assert attrs["MaxThreadsPerBlock"] == 1024
    assert attrs["WarpSize"] == 32
    assert dev.id == 0
    assert rt.getDevice() == 0


def test_invalid_device():
    rt = cp.cuda.runtime
    with pytest.raises(rt.CUDARuntimeError, match="cudaErrorInvalidDevice"):
        rt.setDevice(rt.getDeviceCount() + 3)
    assert rt.getDevice() == 0
    with pytest.raises(rt.CUDARuntimeError, match="cudaErrorInvalidDevice"):
        rt.getDeviceProperties(99)


def test_device_synchronize_and_context():
    with cp.cuda.Device(0):
        a = cp.arange(5)
        cp.cuda.Device(0).synchronize()
        assert int(a.sum()) == 10
    assert cp.cuda.runtime.getDevice() == 0
