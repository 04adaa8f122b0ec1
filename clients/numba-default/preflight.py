"""Checks that this is the default numba-cuda install running on ptxvm's nvJitLink.

Run under `ptxvm exec`: NVIDIA's nvJitLink must be installed (the default install brings
it), cuda-pathfinder must resolve `nvJitLink` to ptxvm's library, numba-cuda must link with
nvJitLink (LTO-IR), and a kernel must run. Prints one line per fact; exits 1 if one fails.
"""

import os
import sys
import warnings

import numpy as np
from cuda.pathfinder import load_nvidia_dynamic_lib
from numba import cuda
from numba.cuda.cudadrv.driver import _have_nvjitlink

ok = True
warnings.simplefilter("ignore")  # numba's occupancy and host-copy advice


def fact(what, good):
    global ok
    ok &= bool(good)
    print(f"{'ok  ' if good else 'FAIL'} {what}")


site = [p for p in sys.path if p.endswith("site-packages")]
# NVIDIA's wheels: nvidia-nvjitlink (13.x) and nvidia-nvjitlink-cu12.
nvidia = [
    os.path.join(s, rel)
    for s in site
    for rel in ("nvidia/cu13/lib/libnvJitLink.so.13", "nvidia/nvjitlink/lib/libnvJitLink.so.12")
    if os.path.isfile(os.path.join(s, rel))
]
fact(f"NVIDIA's nvJitLink is installed: {nvidia[0] if nvidia else 'no'}", nvidia)
loaded = load_nvidia_dynamic_lib("nvJitLink").abs_path
driver_dir = os.path.realpath(os.environ.get("PTXVM_DRIVER_DIR", os.path.dirname(loaded)))
fact(
    f"cuda-pathfinder loads ptxvm's nvJitLink: {loaded}",
    os.path.realpath(loaded) != os.path.realpath(nvidia[0] if nvidia else "")
    and "ptxvm" in os.path.realpath(loaded),
)
fact("numba-cuda links with nvJitLink (LTO-IR)", _have_nvjitlink())


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


x = np.arange(1000, dtype=np.float32)
y = np.ones_like(x)
out = np.zeros_like(x)
saxpy[8, 128](np.float32(2), x, y, out)
fact(f"a kernel runs on {cuda.get_current_device().name}", (out == 2 * x + 1).all())
sys.exit(0 if ok else 1)
