"""Device print(): the exact text, and its order with the host's own output.

numba-cuda's own print tests run the kernel in a child Python and compare its captured
stdout (test_print.py, run_code); the first tests here do the same (the child inherits
`ptxvm exec`'s environment, so it uses ptxvm's driver too). The last one captures in-process
with pytest's file-descriptor capture: the driver writes device output through the C
stdout stream at each synchronisation point.
"""

import subprocess
import sys
import textwrap

import numpy as np
from numba import cuda


def run_child(code):
    cp = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        timeout=50,
    )
    assert cp.returncode == 0, cp.stderr.decode()
    return cp.stdout.decode()


def test_print_one_thread_exact():
    out = run_child(
        """
        import numpy as np
        from numba import cuda, float32, uint64, int8

        @cuda.jit
        def k(x):
            print("hello from", cuda.threadIdx.x, "of", cuda.blockDim.x)
            print(-42, uint64(18446744073709551615), int8(-7))
            print(1.5, float32(0.1), -2.25e10, x[0])
            print(True, False, x[1] > 0)
            print("%d percent")
            print()
            print(cuda.threadIdx)

        print("host before", flush=True)
        k[1, 1](np.array([3.0, -1.0]))
        cuda.synchronize()
        print("host after", flush=True)
        """
    )
    assert out == (
        "host before\n"
        "hello from 0 of 1\n"
        "-42 18446744073709551615 -7\n"
        "1.500000 0.100000 -22500000000.000000 3.000000\n"
        "True False False\n"
        "%d percent\n"
        "\n"
        "(0, 0, 0)\n"
        "host after\n"
    )


def test_print_many_threads_each_line_atomic():
    out = run_child(
        """
        from numba import cuda

        @cuda.jit
        def k():
            i = cuda.grid(1)
            print("thread", i, "block", cuda.blockIdx.x, "square", i * i)

        k[3, 40]()
        cuda.synchronize()
        """
    )
    lines = out.splitlines()
    expected = [f"thread {i} block {i // 40} square {i * i}" for i in range(120)]
    assert sorted(lines) == sorted(expected)
    assert len(lines) == 120


def test_print_in_stream_order_between_launches():
    out = run_child(
        """
        from numba import cuda

        @cuda.jit
        def k(n):
            print("launch", n)

        for n in range(3):
            k[1, 1](n)
            cuda.synchronize()
            print("host", n, flush=True)
        """
    )
    assert out == "launch 0\nhost 0\nlaunch 1\nhost 1\nlaunch 2\nhost 2\n"


@cuda.jit
def print_values(x):
    i = cuda.grid(1)
    if i < x.size:
        print("x[", i, "] =", x[i])


def test_print_captured_in_process(capfd):
    x = np.array([7, -8, 9], np.int32)
    print_values[1, 32](x)
    cuda.synchronize()
    out, _ = capfd.readouterr()
    assert sorted(out.splitlines()) == ["x[ 0 ] = 7", "x[ 1 ] = -8", "x[ 2 ] = 9"]
