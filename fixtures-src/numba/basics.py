"""numba-cuda kernels: elementwise, grid-stride, 2D grids, device functions, f64 math."""
import math

from numba import cuda, float32, float64, int32


def vec_add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


def saxpy_stride(a, x, y):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        y[i] = a * x[i] + y[i]


def matrix_scale_2d(m, s, out):
    r, c = cuda.grid(2)
    if r < m.shape[0] and c < m.shape[1]:
        out[r, c] = m[r, c] * s + r - c


@cuda.jit(device=True)
def clamp(x, lo, hi):
    return min(max(x, lo), hi)


@cuda.jit(device=True, inline="never")
def poly3(x):
    return ((0.5 * x + 1.25) * x - 3.0) * x + 7.0


def device_calls(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = clamp(poly3(x[i]), -100.0, 100.0)


def f64_math(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = (math.sqrt(abs(v)) + math.exp(v) + math.log(abs(v) + 1.0) + math.sin(v) * math.cos(v)
                  + math.pow(abs(v), 1.5) + math.tanh(v) + math.atan2(v, 2.0) + math.erf(v) + math.floor(v) + v / 3.0)


def f32_math(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = math.exp(v) + math.log(abs(v) + float32(1)) + math.sin(v) + math.sqrt(abs(v)) + math.hypot(v, float32(2)) + v / float32(7)


def int_ops(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i] = (x // (y | 1)) + (x % (y | 1)) + (x << 3) + (x >> 2) + (x & y) + (x | y) + (x ^ y) + cuda.popc(x) + cuda.clz(y) + cuda.brev(x)


def grid3d(out):
    x, y, z = cuda.grid(3)
    nx, ny, nz = cuda.gridsize(3)
    if x < out.shape[0] and y < out.shape[1] and z < out.shape[2]:
        out[x, y, z] = x + nx * (y + ny * z) + cuda.blockIdx.z


FIXTURES = [
    dict(name="vec_add_f32", fn=vec_add, sig="(float32[:], float32[:], float32[:])"),
    dict(name="vec_add_i64", fn=vec_add, sig="(int64[:], int64[:], int64[:])", archs=[(8, 0)]),
    dict(name="saxpy_stride", fn=saxpy_stride, sig="(float32, float32[:], float32[:])"),
    dict(name="matrix_scale_2d", fn=matrix_scale_2d, sig="(float64[:,:], float64, float64[:,:])"),
    dict(name="device_calls", fn=device_calls, sig="(float64[:], float64[:])"),
    dict(name="f64_math", fn=f64_math, sig="(float64[:], float64[:])"),
    dict(name="f32_math", fn=f32_math, sig="(float32[:], float32[:])"),
    dict(name="f32_math_fastmath", fn=f32_math, sig="(float32[:], float32[:])", fastmath=True, archs=[(8, 0)]),
    dict(name="int_ops", fn=int_ops, sig="(int32[:], int32[:], int32[:])"),
    dict(name="grid3d", fn=grid3d, sig="(int32[:,:,:],)", archs=[(8, 0)]),
    dict(name="vec_add_lineinfo", fn=vec_add, sig="(float32[:], float32[:], float32[:])", lineinfo=True, archs=[(8, 0)]),
]
