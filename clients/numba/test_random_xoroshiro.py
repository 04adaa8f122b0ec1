"""numba.cuda.random (xoroshiro128+) on the device against numba's CPU implementation.

numba.cuda.random's generator functions are `numba.jit` functions that compile for the CPU
as well as for CUDA, so the same code gives the reference stream on the host. Raw 64-bit
outputs, uniform floats (integer arithmetic and an exact scaling) and the generator states
after the draws must agree bit for bit. The normal draws go through log/sin/cos, whose
last bits differ between libdevice and the host's libm, so they are compared to a tight
relative tolerance only (a few float32 ulps: both normal generators take a float32 log).
"""

import numpy as np
from numba import cuda
from numba.cuda import random as curand

THREADS, DRAWS = 64, 64  # 4096 draws of each kind


@cuda.jit
def draw_raw(states, out):
    i = cuda.grid(1)
    if i < states.shape[0]:
        for k in range(out.shape[1]):
            out[i, k] = curand.xoroshiro128p_next(states, i)


@cuda.jit
def draw_uniform(states, f32, f64):
    i = cuda.grid(1)
    if i < states.shape[0]:
        for k in range(f32.shape[1]):
            f32[i, k] = curand.xoroshiro128p_uniform_float32(states, i)
            f64[i, k] = curand.xoroshiro128p_uniform_float64(states, i)


@cuda.jit
def draw_normal(states, n32, n64):
    i = cuda.grid(1)
    if i < states.shape[0]:
        for k in range(n32.shape[1]):
            n32[i, k] = curand.xoroshiro128p_normal_float32(states, i)
            n64[i, k] = curand.xoroshiro128p_normal_float64(states, i)


@cuda.jit
def jump_on_device(states, times):
    i = cuda.grid(1)
    if i < states.shape[0]:
        for _ in range(times[i]):
            curand.xoroshiro128p_jump(states, i)


def cpu_states(seed, subsequence_start=0):
    s = np.empty(THREADS, dtype=curand.xoroshiro128p_dtype)
    curand.init_xoroshiro128p_states_cpu(s, seed, subsequence_start)
    return s


def test_raw_next_bit_exact():
    seed = 0xC0FFEE
    # (create_xoroshiro128p_states initialises on the host and copies: no kernel.)
    d = curand.create_xoroshiro128p_states(THREADS, seed=seed, subsequence_start=3)
    s = cpu_states(seed, 3)
    np.testing.assert_array_equal(d.copy_to_host(), s)
    out = np.zeros((THREADS, DRAWS), np.uint64)
    draw_raw[2, 32](d, out)
    want = np.zeros_like(out)
    for i in range(THREADS):
        for k in range(DRAWS):
            want[i, k] = curand.xoroshiro128p_next(s, i)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(d.copy_to_host(), s)  # the advanced states too


def test_uniform_float32_float64_bit_exact():
    seed = 42
    d = curand.create_xoroshiro128p_states(THREADS, seed=seed)
    f32 = np.zeros((THREADS, DRAWS), np.float32)
    f64 = np.zeros((THREADS, DRAWS), np.float64)
    draw_uniform[4, 16](d, f32, f64)
    s = cpu_states(seed)
    w32, w64 = np.zeros_like(f32), np.zeros_like(f64)
    for i in range(THREADS):
        for k in range(DRAWS):
            w32[i, k] = curand.xoroshiro128p_uniform_float32(s, i)
            w64[i, k] = curand.xoroshiro128p_uniform_float64(s, i)
    np.testing.assert_array_equal(f32.view(np.uint32), w32.view(np.uint32))
    np.testing.assert_array_equal(f64.view(np.uint64), w64.view(np.uint64))
    assert 0 <= f32.min() and f32.max() < 1 and 0 <= f64.min() and f64.max() < 1
    np.testing.assert_array_equal(d.copy_to_host(), s)


def test_normal_draws_match_cpu():
    seed = 7
    d = curand.create_xoroshiro128p_states(THREADS, seed=seed)
    n32 = np.zeros((THREADS, DRAWS), np.float32)
    n64 = np.zeros((THREADS, DRAWS), np.float64)
    draw_normal[1, THREADS](d, n32, n64)
    s = cpu_states(seed)
    w32, w64 = np.zeros_like(n32), np.zeros_like(n64)
    for i in range(THREADS):
        for k in range(DRAWS):
            w32[i, k] = curand.xoroshiro128p_normal_float32(s, i)
            w64[i, k] = curand.xoroshiro128p_normal_float64(s, i)
    # The states advance identically (the draws consume the same raw outputs) ...
    np.testing.assert_array_equal(d.copy_to_host(), s)
    # ... and the transcendental functions agree to a few float32 ulps (numba's float64
    # normal also draws float32 uniforms and takes a float32 log of them).
    np.testing.assert_allclose(n32, w32, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(n64, w64, rtol=2e-6, atol=1e-6)
    assert (n64 != n64.astype(np.float32)).any()  # really float64 results
    assert abs(n64.mean()) < 0.1 and abs(n64.std() - 1) < 0.1


def test_jump_on_device_bit_exact():
    """xoroshiro128p_jump (2**64 steps ahead) run by the kernel, 0 to 3 times per state."""
    seed = 2024
    d = curand.create_xoroshiro128p_states(THREADS, seed=seed)
    times = (np.arange(THREADS) % 4).astype(np.int32)
    jump_on_device[2, 32](d, times)
    s = cpu_states(seed)
    for i in range(THREADS):
        for _ in range(times[i]):
            curand.xoroshiro128p_jump(s, i)
    np.testing.assert_array_equal(d.copy_to_host(), s)
