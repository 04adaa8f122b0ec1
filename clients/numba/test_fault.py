"""A kernel that indexes out of bounds: numba raises CudaAPIError 700, ptxvm explains.

A kernel fault leaves the CUDA context unusable (the error is sticky, as on a GPU), so the
faulting program runs in a child Python (which inherits `ptxvm exec`'s environment); the
test checks the child's exception, its exit, and ptxvm's diagnostic on its stderr.
"""

import subprocess
import sys
import textwrap

CHILD = """
import sys
import numpy as np
from numba import cuda
from numba.cuda.cudadrv.driver import CudaAPIError

@cuda.jit
def write_past_end(a, n):
    i = cuda.grid(1)
    a[i + n] = i          # numba does no bounds checking on the device

@cuda.jit
def fine(a):
    a[cuda.grid(1)] = 1

d = cuda.device_array(256, dtype=np.int32)
fine[1, 256](d)
cuda.synchronize()
print("first kernel ok", int(d.copy_to_host().sum()), flush=True)
try:
    write_past_end[4, 256](d, {offset})
    cuda.synchronize()
except CudaAPIError as e:
    print("CudaAPIError", int(e.code), e.code.name, flush=True)
    # The context stays unusable afterwards, as on a GPU.
    try:
        cuda.device_array(4).copy_to_host()
    except CudaAPIError as e2:
        print("then", int(e2.code), flush=True)
    sys.exit(3)
print("no error", flush=True)
"""


def run(offset):
    cp = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CHILD.format(offset=offset))],
        capture_output=True,
        timeout=50,
    )
    return cp.returncode, cp.stdout.decode(), cp.stderr.decode()


def test_out_of_bounds_write_raises_illegal_address():
    rc, out, err = run(offset=1 << 20)  # far past the 1 KiB allocation
    assert rc == 3, (rc, out, err)  # Python ended normally, through sys.exit(3)
    lines = out.splitlines()
    assert lines[0] == "first kernel ok 256"
    assert lines[1] == "CudaAPIError 700 CUDA_ERROR_ILLEGAL_ADDRESS"
    assert lines[2] == "then 700"
    # ptxvm's diagnostic: the fault, the access, the kernel (numba mangles its name).
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in err
    assert "invalid global write" in err
    assert "outside every allocation" in err or "out of bounds" in err
    kernel_lines = [l for l in err.splitlines() if "in kernel `" in l]
    assert kernel_lines and "write_past_end" in kernel_lines[0], err
    assert "Segmentation fault" not in err and "Traceback" not in err


def test_write_just_past_the_end_is_caught():
    """One element past the end lands right after the allocation: still a fault."""
    rc, out, err = run(offset=1)  # thread 1023 writes a[1024], the array has 256
    assert rc == 3, (rc, out, err)
    assert "CudaAPIError 700 CUDA_ERROR_ILLEGAL_ADDRESS" in out
    assert "write_past_end" in err and "invalid global write" in err
