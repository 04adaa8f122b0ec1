"""Streams and events: cupy.cuda.Stream / Event, get_elapsed_time, ordering between
streams, asynchronous copies through pinned memory, host callbacks."""

import threading

import cupy as cp
import numpy as np

SPIN = r"""
extern "C" __global__ void spin(unsigned* out, int rounds) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = 0; r < rounds; r++) x = x * 1664525u + 1013904223u;
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
extern "C" __global__ void add_from(int* dst, const unsigned* src, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] += (int)(src[i] & 0xffff);
}
"""


def spin_expected(n, rounds):
    x = np.arange(n, dtype=np.uint32)
    for _ in range(rounds):
        x = x * np.uint32(1664525) + np.uint32(1013904223)
    return x


def test_stream_context_and_synchronize():
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        assert cp.cuda.get_current_stream() == s
        a = cp.arange(100_000, dtype=cp.int64)
        b = (a * a).sum()
    s.synchronize()
    assert s.done
    assert int(b) == int((np.arange(100_000, dtype=np.int64) ** 2).sum())
    assert cp.cuda.get_current_stream() != s


def test_events_and_elapsed_time():
    mod = cp.RawModule(code=SPIN)
    spin = mod.get_function("spin")
    n, rounds = 8192, 400
    out = cp.empty(n, cp.uint32)
    s = cp.cuda.Stream()
    start, mid, stop = cp.cuda.Event(), cp.cuda.Event(), cp.cuda.Event()
    with s:
        start.record()
        spin((n // 256,), (256,), (out, np.int32(rounds)))
        mid.record()
        spin((n // 256,), (256,), (out, np.int32(rounds)))
        stop.record()
    stop.synchronize()
    assert start.done and stop.done
    t1 = cp.cuda.get_elapsed_time(start, mid)
    t2 = cp.cuda.get_elapsed_time(mid, stop)
    total = cp.cuda.get_elapsed_time(start, stop)
    assert t1 > 0 and t2 > 0
    assert abs(total - (t1 + t2)) <= 1e-3 * total + 1e-3
    np.testing.assert_array_equal(out.get(), spin_expected(n, rounds))


def test_wait_event_orders_streams():
    mod = cp.RawModule(code=SPIN)
    spin, add = mod.get_function("spin"), mod.get_function("add_from")
    producer = cp.cuda.Stream(non_blocking=True)
    consumer = cp.cuda.Stream(non_blocking=True)
    n, rounds = 4096, 300
    src = cp.empty(n, cp.uint32)
    # Filled on the consumer stream: the non-blocking streams do not wait for the legacy
    # default stream, so a fill there would race with `add` (on a GPU too).
    with consumer:
        dst = cp.full(n, 5, cp.int32)
    with producer:
        spin((n // 256,), (256,), (src, np.int32(rounds)))
        done = producer.record()
    consumer.wait_event(done)
    with consumer:
        add((n // 256,), (256,), (dst, src, np.int32(n)))
    consumer.synchronize()
    np.testing.assert_array_equal(dst.get(), 5 + (spin_expected(n, rounds) & 0xFFFF).astype(np.int32))


def test_async_copies_with_pinned_memory():
    n = 200_000
    streams = [cp.cuda.Stream(non_blocking=True) for _ in range(3)]
    results = []
    for k, s in enumerate(streams):
        pinned_in = cp.cuda.alloc_pinned_memory(n * 8)
        host_in = np.frombuffer(pinned_in, np.int64, n)
        host_in[:] = np.arange(n) * (k + 1)
        pinned_out = cp.cuda.alloc_pinned_memory(n * 8)
        host_out = np.frombuffer(pinned_out, np.int64, n)
        host_out[:] = 0
        with s:
            d = cp.empty(n, cp.int64)
            d.set(host_in, stream=s)
            d = d * 3 - k
            d.get(stream=s, out=host_out)
        results.append((s, host_in.copy(), host_out, (pinned_in, pinned_out, d)))
    for k, (s, host_in, host_out, _keep) in enumerate(results):
        s.synchronize()
        np.testing.assert_array_equal(host_out, host_in * 3 - k)


def test_stream_callbacks_run_in_order():
    s = cp.cuda.Stream(non_blocking=True)
    seen = []
    lock = threading.Lock()
    a = cp.zeros(1000, cp.int32)

    def cb(stream, status, data):
        with lock:
            seen.append(("callback", data, status))

    def host_fn(data):
        with lock:
            seen.append(("host_fn", data))

    with s:
        a += 1
        s.add_callback(cb, 1)
        a += 1
        s.launch_host_func(host_fn, 2)
        a += 1
        s.add_callback(cb, 3)
    s.synchronize()
    assert seen == [("callback", 1, 0), ("host_fn", 2), ("callback", 3, 0)]
    np.testing.assert_array_equal(a.get(), np.full(1000, 3))


def test_null_and_per_thread_default_streams():
    a = cp.arange(10)
    with cp.cuda.Stream.null:
        b = a + 1
    with cp.cuda.Stream.ptds:
        c = b * 2
    cp.cuda.Stream.ptds.synchronize()
    np.testing.assert_array_equal(c.get(), (np.arange(10) + 1) * 2)


def test_event_flags():
    e = cp.cuda.Event(disable_timing=True)
    e.record()
    e.synchronize()
    assert e.done
    start = cp.cuda.Event()
    start.record()
    start.synchronize()
    try:
        cp.cuda.get_elapsed_time(start, e)
    except cp.cuda.runtime.CUDARuntimeError as err:
        assert "cudaErrorInvalidResourceHandle" in str(err)
    else:
        raise AssertionError("elapsed time with a timing-disabled event succeeded")
