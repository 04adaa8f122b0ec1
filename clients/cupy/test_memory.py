"""CuPy's memory pools (device and pinned), the stream-ordered allocator, raw runtime
allocations and copies, and device memory info."""

import cupy as cp
import numpy as np
import pytest

MIB = 1 << 20


def test_memory_pool_reuses_and_frees():
    pool = cp.cuda.MemoryPool()
    with cp.cuda.using_allocator(pool.malloc):
        a = cp.zeros(MIB // 8, cp.float64)  # 1 MiB
        assert pool.used_bytes() == MIB
        ptr = a.data.ptr
        del a
        assert pool.used_bytes() == 0
        assert pool.free_bytes() == MIB
        assert pool.n_free_blocks() == 1
        b = cp.ones(MIB // 8, cp.float64)  # the freed block is reused
        assert b.data.ptr == ptr
        assert pool.total_bytes() == MIB
        np.testing.assert_array_equal(b.get(), np.ones(MIB // 8))
        small = [cp.arange(100) for _ in range(10)]  # rounded up to 512-byte units
        assert pool.used_bytes() == MIB + 10 * 1024
        del small, b
    free_before, _ = cp.cuda.runtime.memGetInfo()
    pool.free_all_blocks()
    assert pool.total_bytes() == 0
    free_after, _ = cp.cuda.runtime.memGetInfo()
    assert free_after >= free_before + MIB


def test_memory_pool_limit():
    pool = cp.cuda.MemoryPool()
    pool.set_limit(size=4 * MIB)
    assert pool.get_limit() == 4 * MIB
    with cp.cuda.using_allocator(pool.malloc):
        a = cp.empty(3 * MIB, cp.uint8)
        with pytest.raises(cp.cuda.memory.OutOfMemoryError):
            cp.empty(2 * MIB, cp.uint8)
        del a
        cp.empty(2 * MIB, cp.uint8)
    pool.free_all_blocks()


def test_device_out_of_memory():
    with pytest.raises(cp.cuda.memory.OutOfMemoryError):
        cp.empty(1 << 50, cp.uint8)
    np.testing.assert_array_equal(cp.arange(3).get(), np.arange(3))


def test_pinned_memory_pool():
    pool = cp.cuda.PinnedMemoryPool()
    mem = pool.malloc(MIB)
    ptr = mem.ptr
    arr = np.frombuffer(mem, np.uint8, MIB)
    arr[:] = 7
    d = cp.empty(MIB, cp.uint8)
    d.set(arr)
    np.testing.assert_array_equal(d.get(), arr)
    del arr, mem
    assert pool.n_free_blocks() == 1
    assert pool.malloc(MIB).ptr == ptr


def test_stream_ordered_allocator():
    pool = cp.cuda.MemoryAsyncPool()
    s = cp.cuda.Stream(non_blocking=True)
    with cp.cuda.using_allocator(pool.malloc), s:
        for k in range(3):
            a = cp.arange(100_000, dtype=cp.int64)
            b = (a * k).sum()
            assert int(b) == k * (100_000 * 99_999 // 2)
            del a
        assert pool.used_bytes() >= 0
    s.synchronize()
    pool.free_all_blocks()


def test_runtime_malloc_memcpy_memset():
    n = 4096
    rt = cp.cuda.runtime
    p = rt.malloc(n)
    q = rt.malloc(n)
    try:
        rt.memset(p, 0x5A, n)
        host = np.zeros(n, np.uint8)
        rt.memcpy(host.ctypes.data, p, n, rt.memcpyDeviceToHost)
        np.testing.assert_array_equal(host, np.full(n, 0x5A, np.uint8))
        src = np.arange(n, dtype=np.uint8)
        rt.memcpy(p, src.ctypes.data, n, rt.memcpyHostToDevice)
        rt.memcpy(q, p, n, rt.memcpyDeviceToDevice)
        rt.memcpy(host.ctypes.data, q, n, rt.memcpyDefault)
        np.testing.assert_array_equal(host, src)
        attrs = rt.pointerGetAttributes(p + 100)
        assert attrs.type == rt.memoryTypeDevice
        assert attrs.devicePointer == p + 100
    finally:
        rt.free(p)
        rt.free(q)


def test_memcpy_2d_via_ndarray_copies(rng):
    a = rng.integers(0, 1000, (64, 100)).astype(np.int32)
    d = cp.asarray(a)
    sub = d[5:50:3, 7:93:2]
    np.testing.assert_array_equal(sub.get(), a[5:50:3, 7:93:2])
    e = cp.zeros((64, 100), cp.int32)
    e[5:50:3, 7:93:2] = sub
    f = np.zeros((64, 100), np.int32)
    f[5:50:3, 7:93:2] = a[5:50:3, 7:93:2]
    np.testing.assert_array_equal(e.get(), f)


def test_unowned_memory_and_pointer():
    base = cp.arange(1000, dtype=cp.int32)
    mem = cp.cuda.UnownedMemory(base.data.ptr, base.nbytes, base)
    view = cp.ndarray((500,), cp.int32, cp.cuda.MemoryPointer(mem, 2000))
    np.testing.assert_array_equal(view.get(), np.arange(500, 1000))
    view[:] = -1
    assert int(base[499]) == 499 and int(base[500]) == -1


def test_mem_get_info():
    free, total = cp.cuda.runtime.memGetInfo()
    assert 0 < free <= total
    d = cp.cuda.Device()
    assert d.mem_info == cp.cuda.runtime.memGetInfo()
