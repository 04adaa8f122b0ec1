"""The `ptxvm` Python package (pyproject.toml, built with maturin): the installed `ptxvm`
command and driver library, `ptxvm.run` on numpy arrays, and `ptxvm.enable` for numba-cuda
and CuPy in the same process."""

import os
import subprocess
import sys
import sysconfig
import textwrap

import numpy as np
import pytest

import ptxvm

AXPY = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry axpy(.param .f32 a, .param .u64 x, .param .u64 y, .param .u32 n)
{
  .reg .pred %p<2>; .reg .b32 %r<5>; .reg .f32 %f<5>; .reg .b64 %rd<8>;
  ld.param.f32 %f1, [a]; ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [y]; ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r2, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r2, %r1; @%p1 bra DONE;
  mul.wide.u32 %rd3, %r2, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f2, [%rd4]; ld.global.f32 %f3, [%rd5]; fma.rn.f32 %f4, %f1, %f2, %f3; st.global.f32 [%rd5], %f4;
DONE: ret;
}
"""

STORE = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry store_at(.param .u64 out, .param .s64 index, .param .u16 v)
{
  .reg .b16 %h<2>; .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out]; ld.param.s64 %rd2, [index]; ld.param.u16 %h1, [v];
  shl.b64 %rd3, %rd2, 1; add.s64 %rd4, %rd1, %rd3; st.global.u16 [%rd4], %h1;
  ret;
}
"""


def test_driver_is_installed():
    d = ptxvm.driver_path()
    assert os.path.isfile(os.path.join(d, "libcuda.so.1"))
    exe = os.path.join(sysconfig.get_path("scripts"), "ptxvm")
    out = subprocess.run([exe, "driver-path"], capture_output=True, text=True, check=True)
    assert os.path.realpath(out.stdout.strip()) == os.path.realpath(d)


def test_run_axpy_exact():
    x = np.arange(1000, dtype=np.float32) * 0.5
    y = np.full(1000, 3.0, dtype=np.float32)
    xo, yo = ptxvm.run(AXPY, "axpy", 4, 256, [np.float32(2.0), x, y, 1000])
    np.testing.assert_array_equal(yo, (2 * x + 3).astype(np.float32))
    np.testing.assert_array_equal(xo, x)
    # Python scalars are converted to the parameter's size.
    (_, yo2) = ptxvm.run(AXPY, "axpy", (4, 1), (256,), [2.0, x, y, 10])
    np.testing.assert_array_equal(yo2[:10], 2 * x[:10] + 3)
    np.testing.assert_array_equal(yo2[10:], y[10:])


def test_run_scalars_and_signed_values():
    out = np.zeros(8, dtype=np.uint16)
    (res,) = ptxvm.run(STORE, "store_at", 1, 1, [out, 5, np.uint16(0xBEEF)])
    assert res[5] == 0xBEEF and res.sum() == 0xBEEF


def test_run_argument_errors():
    with pytest.raises(TypeError, match="takes 4 parameters"):
        ptxvm.run(AXPY, "axpy", 1, 1, [1.0])
    with pytest.raises(TypeError, match="float16"):
        ptxvm.run(AXPY, "axpy", 1, 1, [np.float16(1), np.zeros(1, np.float32), np.zeros(1, np.float32), 1])
    with pytest.raises(ptxvm.CudaError) as e:
        ptxvm.run(AXPY, "no_such_kernel", 1, 1, [])
    assert e.value.name == "CUDA_ERROR_NOT_FOUND"


def test_fault_is_reported_in_a_child_process():
    # A fault makes the context unusable (as on a GPU), so it runs in its own process.
    code = textwrap.dedent(f"""
        import numpy as np, ptxvm
        try:
            ptxvm.run({STORE!r}, "store_at", 1, 1, [np.zeros(4, np.uint16), 1 << 40, 1])
        except ptxvm.CudaError as e:
            print("raised", e.name, e.code)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "raised CUDA_ERROR_ILLEGAL_ADDRESS 700" in r.stdout, r.stdout + r.stderr
    assert "store_at" in r.stderr and "outside every allocation" in r.stderr, r.stderr


def test_enable_for_numba_and_cupy_in_process():
    code = textwrap.dedent("""
        import ptxvm
        ptxvm.enable()
        import numpy as np
        from numba import cuda
        @cuda.jit
        def inc(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] += 1
        a = np.arange(100, dtype=np.int32)
        inc[1, 128](a)
        assert (a == np.arange(100) + 1).all()
        import cupy as cp
        assert int(cp.arange(10).sum()) == 45
        print("enabled:", cuda.get_current_device().name)
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CUPY_", "NUMBA_CUDA_DRIVER"))}
    env.pop("LD_LIBRARY_PATH", None)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "enabled: ptxvm sm_80" in r.stdout
