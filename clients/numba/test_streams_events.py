"""Streams (two streams, pinned memory, async copies, stream.synchronize) and events."""

import numpy as np
from numba import cuda


@cuda.jit
def scale_add(x, a, b, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * a + b


def test_two_streams_async_copies():
    n = 50000
    s1, s2 = cuda.stream(), cuda.stream()
    assert int(s1.handle) != int(s2.handle) and int(s1.handle) > 2
    h1 = cuda.pinned_array(n, np.float64)
    h2 = cuda.pinned_array(n, np.float64)
    h1[:] = np.arange(n)
    h2[:] = np.arange(n) * -1.0
    r1 = cuda.pinned_array(n, np.float64)
    r2 = cuda.pinned_array(n, np.float64)
    d1 = cuda.to_device(h1, stream=s1)
    d2 = cuda.to_device(h2, stream=s2)
    o1 = cuda.device_array(n, np.float64, stream=s1)
    o2 = cuda.device_array(n, np.float64, stream=s2)
    grid = (n + 255) // 256
    scale_add[grid, 256, s1](d1, 2.0, 1.0, o1)
    scale_add[grid, 256, s2](d2, 3.0, -1.0, o2)
    o1.copy_to_host(r1, stream=s1)
    o2.copy_to_host(r2, stream=s2)
    s1.synchronize()
    s2.synchronize()
    np.testing.assert_array_equal(r1, h1 * 2 + 1)
    np.testing.assert_array_equal(r2, h2 * 3 - 1)


def test_stream_context_manager_and_auto_synchronize():
    n = 4096
    s = cuda.stream()
    x = np.arange(n, dtype=np.float32)
    with s.auto_synchronize():
        d = cuda.to_device(x, stream=s)
        scale_add[n // 128, 128, s](d, np.float32(0.5), np.float32(2.0), d)
        out = d.copy_to_host(stream=s)
    np.testing.assert_array_equal(out, x * np.float32(0.5) + np.float32(2.0))


def test_stream_order_chain_of_kernels():
    """Kernels on one stream see each other's results in order."""
    n = 1000
    s = cuda.stream()
    d = cuda.to_device(np.ones(n), stream=s)
    for k in range(10):
        scale_add[(n + 127) // 128, 128, s](d, 2.0, float(k), d)
    out = d.copy_to_host(stream=s)
    s.synchronize()
    v = 1.0
    for k in range(10):
        v = v * 2 + k
    np.testing.assert_array_equal(out, np.full(n, v))


def test_events_record_synchronize_elapsed():
    n = 1 << 16
    s = cuda.stream()
    start, stop = cuda.event(), cuda.event()
    d = cuda.to_device(np.arange(n, dtype=np.float64), stream=s)
    start.record(s)
    for _ in range(3):
        scale_add[n // 256, 256, s](d, 1.0, 1.0, d)
    stop.record(s)
    stop.synchronize()
    assert stop.query()
    ms = cuda.event_elapsed_time(start, stop)
    assert ms > 0
    assert start.elapsed_time(stop) == ms
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(n) + 3.0)


def test_wait_event_across_streams():
    """A consumer stream waits on an event the producer stream recorded."""
    n = 20000
    producer, consumer = cuda.stream(), cuda.stream()
    x = cuda.to_device(np.zeros(n), stream=producer)
    y = cuda.device_array(n, np.float64, stream=consumer)
    ev = cuda.event(timing=False)
    scale_add[(n + 255) // 256, 256, producer](x, 0.0, 5.0, x)  # x = 5
    ev.record(producer)
    ev.wait(consumer)
    scale_add[(n + 255) // 256, 256, consumer](x, 2.0, 0.0, y)  # y = 2x
    out = y.copy_to_host(stream=consumer)
    consumer.synchronize()
    np.testing.assert_array_equal(out, np.full(n, 10.0))


def test_default_streams_and_mapped_memory():
    n = 3000
    m = cuda.mapped_array(n, np.int64)
    m[:] = np.arange(n)
    for s in (cuda.default_stream(), cuda.legacy_default_stream(),
              cuda.per_thread_default_stream()):
        scale_add[(n + 255) // 256, 256, s](m, 1, 1, m)
        s.synchronize()
    # The kernels worked on host memory in place through its device pointer.
    np.testing.assert_array_equal(m, np.arange(n) + 3)
