"""numba-cuda kernels: shared memory reductions, atomics, warp shuffles/votes, local arrays, fp16, printf."""
import numpy as np
from numba import cuda, float32, int32, float64, uint32

TPB = 256


def shared_reduce(x, out):
    s = cuda.shared.array(TPB, dtype=float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    s[tid] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if tid < stride:
            s[tid] += s[tid + stride]
        cuda.syncthreads()
        stride //= 2
    if tid == 0:
        cuda.atomic.add(out, 0, s[0])


def dynamic_shared(x, out):
    s = cuda.shared.array(0, dtype=float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < x.size:
        s[tid] = x[i]
    cuda.syncthreads()
    if i < x.size:
        out[i] = s[cuda.blockDim.x - 1 - tid]


def atomics(ints, floats, dbl, vals):
    i = cuda.grid(1)
    if i < vals.size:
        v = vals[i]
        cuda.atomic.add(ints, 0, v)
        cuda.atomic.sub(ints, 1, v)
        cuda.atomic.max(ints, 2, v)
        cuda.atomic.min(ints, 3, v)
        cuda.atomic.and_(ints, 4, v)
        cuda.atomic.or_(ints, 5, v)
        cuda.atomic.xor(ints, 6, v)
        cuda.atomic.exch(ints, 7, v)
        cuda.atomic.compare_and_swap(ints[8:], 0, v)
        cuda.atomic.inc(ints.view(np.uint32), 9, uint32(100))
        cuda.atomic.add(floats, 0, float32(v) * float32(0.5))
        cuda.atomic.max(floats, 1, float32(v))
        cuda.atomic.add(dbl, 0, float64(v))
        cuda.atomic.nanmin(dbl, 1, float64(v))


def warp_ops(x, out):
    i = cuda.grid(1)
    lane = cuda.laneid
    v = x[i]
    v += cuda.shfl_down_sync(0xffffffff, v, 16)
    v += cuda.shfl_up_sync(0xffffffff, v, 1)
    v += cuda.shfl_xor_sync(0xffffffff, v, 4)
    v += cuda.shfl_sync(0xffffffff, v, 0)
    b = cuda.ballot_sync(0xffffffff, v > 0)
    a = cuda.all_sync(0xffffffff, v > -1000)
    n = cuda.any_sync(0xffffffff, v > 1000)
    m = cuda.match_any_sync(0xffffffff, lane & 3)
    cuda.syncwarp(0xffffffff)
    out[i] = v + cuda.popc(b) + a + n + m + cuda.activemask()


def local_sort(x, out):
    i = cuda.grid(1)
    buf = cuda.local.array(16, dtype=int32)
    for k in range(16):
        buf[k] = x[(i * 16 + k) % x.size]
    for a in range(16):
        for b in range(15 - a):
            if buf[b] > buf[b + 1]:
                t = buf[b]
                buf[b] = buf[b + 1]
                buf[b + 1] = t
    for k in range(16):
        out[i * 16 + k] = buf[(k * 7 + i) % 16]


def fp16_ops(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        x = a[i]
        y = b[i]
        # numba-cuda implements half *arithmetic* with a C++ shim linked at launch time (extern calls that a
        # standalone ptxas rejects), so this kernel only converts: cvt.f32.f16 / cvt.rn.f16.f32.
        f = float32(x) * float32(y) + float32(0.5)
        out[i] = np.float16(f)


def printf_kernel(x):
    i = cuda.grid(1)
    if i < 2:
        print("thread", i, "value", x[i])


def fences_threadfence(flag, data):
    i = cuda.grid(1)
    data[i] = i
    cuda.threadfence()
    cuda.threadfence_block()
    cuda.threadfence_system()
    cuda.syncthreads()
    if i == 0:
        flag[0] = data[cuda.blockDim.x - 1]


FIXTURES = [
    dict(name="shared_reduce", fn=shared_reduce, sig="(float32[:], float32[:])"),
    dict(name="dynamic_shared", fn=dynamic_shared, sig="(float64[:], float64[:])"),
    dict(name="atomics", fn=atomics, sig="(int32[:], float32[:], float64[:], int32[:])"),
    dict(name="warp_ops", fn=warp_ops, sig="(int32[:], int32[:])"),
    dict(name="local_sort", fn=local_sort, sig="(int32[:], int32[:])"),
    dict(name="fp16_ops", fn=fp16_ops, sig="(float16[:], float16[:], float16[:])"),
    dict(name="printf", fn=printf_kernel, sig="(float32[:],)"),
    dict(name="fences", fn=fences_threadfence, sig="(int32[:], int32[:])"),
]
