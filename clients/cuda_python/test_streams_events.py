"""Streams with asynchronous copies, stream ordering across streams, events and timing."""

import ctypes
import os
import subprocess
import sys

import numpy as np
from helpers import DeviceBuffer, check, expect, load_module
from cuda.bindings import driver as cu

HERE = os.path.dirname(os.path.abspath(__file__))

KERNELS = r"""
extern "C" __global__ void affine(int* data, int n, int mul, int add) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        data[i] = data[i] * mul + add;
}

// Enough work to take measurable time on any machine: each thread iterates `rounds` times.
extern "C" __global__ void spin(unsigned* out, int rounds) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = 0; r < rounds; r++) x = x * 1664525u + 1013904223u;
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

extern "C" __global__ void add_from(int* dst, const int* src, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] += src[i];
}
"""


def spin_expected(n, rounds):
    x = np.arange(n, dtype=np.uint32)
    for _ in range(rounds):
        x = x * np.uint32(1664525) + np.uint32(1013904223)
    return x


def pinned(nbytes, dtype):
    p = check(cu.cuMemAllocHost(nbytes))
    arr = np.frombuffer((ctypes.c_char * nbytes).from_address(p), dtype=dtype)
    return p, arr


def test_async_copies_on_streams(ctx):
    mod = load_module(KERNELS)
    f = check(cu.cuModuleGetFunction(mod, b"affine"))
    nstreams, n = 4, 20_000
    streams = [check(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING))
               for _ in range(nstreams)]
    hosts, outs, devs, keep = [], [], [], []
    for k in range(nstreams):
        p, h = pinned(n * 4, np.int32)
        h[:] = np.arange(n, dtype=np.int32) * (k + 1) - 5000
        q, o = pinned(n * 4, np.int32)
        o[:] = 0
        hosts.append(h.copy())
        outs.append(o)
        keep += [p, q]
        d = DeviceBuffer.empty(n * 4)
        devs.append(d)
        check(cu.cuMemcpyHtoDAsync(d.ptr, p, n * 4, streams[k]))
        params = ((d.ptr, n, k + 2, -k), (None, ctypes.c_int, ctypes.c_int, ctypes.c_int))
        check(cu.cuLaunchKernel(f, 16, 1, 1, 128, 1, 1, 0, streams[k], params, 0))
        check(cu.cuLaunchKernel(f, 16, 1, 1, 128, 1, 1, 0, streams[k], params, 0))
        check(cu.cuMemcpyDtoHAsync(q, d.ptr, n * 4, streams[k]))
    for k, s in enumerate(streams):
        check(cu.cuStreamSynchronize(s))
        check(cu.cuStreamQuery(s))
        m, a = k + 2, -k
        np.testing.assert_array_equal(outs[k], (hosts[k] * m + a) * m + a)
    for s in streams:
        check(cu.cuStreamDestroy(s))
    for p in keep:
        check(cu.cuMemFreeHost(p))


def test_async_copies_pageable_memory(ctx):
    mod = load_module(KERNELS)
    f = check(cu.cuModuleGetFunction(mod, b"affine"))
    stream = check(cu.cuStreamCreate(0))
    n = 10_000
    host = np.arange(n, dtype=np.int32)
    out = np.zeros_like(host)
    d = DeviceBuffer.empty(host.nbytes)
    check(cu.cuMemcpyHtoDAsync(d.ptr, host, host.nbytes, stream))
    check(cu.cuLaunchKernel(f, 8, 1, 1, 256, 1, 1, 0, stream,
                            ((d.ptr, n, 7, 1), (None, ctypes.c_int, ctypes.c_int, ctypes.c_int)), 0))
    check(cu.cuMemcpyDtoHAsync(out, d.ptr, host.nbytes, stream))
    check(cu.cuStreamSynchronize(stream))
    np.testing.assert_array_equal(out, host * 7 + 1)
    check(cu.cuStreamDestroy(stream))


def test_special_stream_handles(ctx):
    """NULL, CU_STREAM_LEGACY (0x1) and CU_STREAM_PER_THREAD (0x2) are streams everywhere."""
    mod = load_module(KERNELS)
    f = check(cu.cuModuleGetFunction(mod, b"affine"))
    n = 1000
    d = DeviceBuffer(np.ones(n, np.int32))
    for h in (0, cu.CU_STREAM_LEGACY, cu.CU_STREAM_PER_THREAD):
        s = cu.CUstream(h)
        check(cu.cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, s,
                                ((d.ptr, n, 2, 0), (None, ctypes.c_int, ctypes.c_int, ctypes.c_int)),
                                0))
        check(cu.cuStreamSynchronize(s))
    np.testing.assert_array_equal(d.get(np.empty(n, np.int32)), np.full(n, 8))


def test_stream_wait_event_orders_streams(ctx):
    mod = load_module(KERNELS)
    spin = check(cu.cuModuleGetFunction(mod, b"spin"))
    add = check(cu.cuModuleGetFunction(mod, b"add_from"))
    producer = check(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING))
    consumer = check(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING))
    n, rounds = 4096, 300
    src = DeviceBuffer.empty(n * 4)
    dst = DeviceBuffer(np.full(n, 11, np.int32))
    done = check(cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING))
    check(cu.cuLaunchKernel(spin, n // 256, 1, 1, 256, 1, 1, 0, producer,
                            ((src.ptr, rounds), (None, ctypes.c_int)), 0))
    check(cu.cuEventRecord(done, producer))
    check(cu.cuStreamWaitEvent(consumer, done, 0))
    check(cu.cuLaunchKernel(add, n // 256, 1, 1, 256, 1, 1, 0, consumer,
                            ((dst.ptr, src.ptr, n), (None, None, ctypes.c_int)), 0))
    check(cu.cuStreamSynchronize(consumer))
    expected = (spin_expected(n, rounds).view(np.int32).astype(np.int64) + 11).astype(np.int32)
    np.testing.assert_array_equal(dst.get(np.empty(n, np.int32)), expected)
    check(cu.cuEventSynchronize(done))
    check(cu.cuEventQuery(done))
    # a timing-disabled event cannot be timed
    expect(cu.CUresult.CUDA_ERROR_INVALID_HANDLE, cu.cuEventElapsedTime(done, done))
    for s in (producer, consumer):
        check(cu.cuStreamDestroy(s))
    check(cu.cuEventDestroy(done))


def test_event_elapsed_time(ctx):
    mod = load_module(KERNELS)
    spin = check(cu.cuModuleGetFunction(mod, b"spin"))
    stream = check(cu.cuStreamCreate(0))
    start, mid, stop = (check(cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DEFAULT))
                        for _ in range(3))
    n, rounds = 8192, 400
    out = DeviceBuffer.empty(n * 4)
    check(cu.cuEventRecord(start, stream))
    check(cu.cuLaunchKernel(spin, n // 256, 1, 1, 256, 1, 1, 0, stream,
                            ((out.ptr, rounds), (None, ctypes.c_int)), 0))
    check(cu.cuEventRecord(mid, stream))
    check(cu.cuLaunchKernel(spin, n // 256, 1, 1, 256, 1, 1, 0, stream,
                            ((out.ptr, rounds), (None, ctypes.c_int)), 0))
    check(cu.cuEventRecord(stop, stream))
    check(cu.cuEventSynchronize(stop))
    check(cu.cuEventQuery(stop))
    t1 = check(cu.cuEventElapsedTime(start, mid))
    t2 = check(cu.cuEventElapsedTime(mid, stop))
    total = check(cu.cuEventElapsedTime(start, stop))
    assert t1 > 0 and t2 > 0
    assert abs(total - (t1 + t2)) <= 1e-3 * total + 1e-3
    back = check(cu.cuEventElapsedTime(stop, start))
    assert back < 0
    np.testing.assert_array_equal(out.get(np.empty(n, np.uint32)), spin_expected(n, rounds))
    for e in (start, mid, stop):
        check(cu.cuEventDestroy(e))
    check(cu.cuStreamDestroy(stream))


def test_unrecorded_event(ctx):
    a = check(cu.cuEventCreate(0))
    b = check(cu.cuEventCreate(0))
    check(cu.cuEventQuery(a))  # never recorded: complete
    check(cu.cuEventRecord(a, 0))
    check(cu.cuEventSynchronize(a))
    expect(cu.CUresult.CUDA_ERROR_INVALID_HANDLE, cu.cuEventElapsedTime(a, b))
    check(cu.cuEventDestroy(a))
    check(cu.cuEventDestroy(b))


def test_per_thread_default_stream_mode():
    """cuda-bindings with CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM=1 (in a child process:
    the mode is fixed when the bindings first resolve the driver)."""
    env = dict(os.environ, CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM="1", PTXVM_LOG="api")
    proc = subprocess.run([sys.executable, os.path.join(HERE, "ptds_child.py")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == ["thread 1: ok", "thread 2: ok"], proc.stdout + proc.stderr
    # the per-thread variants were the ones called
    assert "cuLaunchKernel_ptsz -> CUDA_SUCCESS" in proc.stderr, proc.stderr[-3000:]
    assert "cuStreamSynchronize_ptsz -> CUDA_SUCCESS" in proc.stderr, proc.stderr[-3000:]
