#!/usr/bin/env bash
# The real-client test tier: NVIDIA's own runtimes and the Python CUDA packages people use,
# running on ptxvm's libcuda.so.1 with no GPU.
#   - clients/native: nvcc-built programs (static and shared libcudart 13, shared 12.9, and
#     driver-API programs), every variant;
#   - clients/numba: a committed list of numba-cuda's own tests, and our own numba programs;
#   - clients/cuda_python, clients/cupy: cuda-python and CuPy programs;
#   - clients/triton: Triton's tutorial kernels compiled by the unmodified Triton;
#   - clients/package: the ptxvm Python package, built with maturin.
# It creates a pinned virtualenv (clients/requirements.txt) in target/client-venv on first use
# (again when the requirements change) and builds the release CLI and driver.
# Usage: tools/client-tier.sh [--no-install]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv=target/client-venv
stamp="$venv/.requirements"
if [ "${1:-}" != "--no-install" ]; then
  if [ ! -x "$venv/bin/python" ] || ! cmp -s clients/requirements.txt "$stamp"; then
    echo "client tier: creating $venv from clients/requirements.txt"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --no-cache-dir --upgrade pip
    # No pip cache: the wheels (CuPy, Triton, NVIDIA runtimes) would take their size twice.
    "$venv/bin/python" -m pip install --quiet --no-cache-dir --no-deps -r clients/requirements.txt
    cp clients/requirements.txt "$stamp"
  fi
fi
py="$root/$venv/bin/python"
site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cargo build --release -p ptxvm -p ptxvm-cuda -p ptxvm-nvjitlink -p ptxvm-nvjitlink12
ptxvm="$root/target/release/ptxvm"
status=0
echo "== the ptxvm Python package (pip install . with maturin)"
"$py" -m pip install --quiet --no-cache-dir --no-deps --force-reinstall . || status=1
(cd clients/package && "$py" -m pytest -q -p no:cacheprovider test_package.py) || status=1
echo "== driver tables are what tools/gen_driver_tables.py makes from NVIDIA's headers (pip)"
PTXVM_CUDA_INCLUDE="$site/nvidia/cu13/include" PYTHON="$py" \
  cargo test --release -p ptxvm-cuda --test procaddr || status=1
echo "== native clients (all variants)"
PTXVM_CUDART13_DIR="$site/nvidia/cu13/lib" PTXVM_CUDART12_DIR="$site/nvidia/cuda_runtime/lib" \
  cargo test --release -p ptxvm-cuda --test native_clients -- --nocapture || status=1
echo "== Triton tutorial kernels (unmodified Triton from pip, ptxvm's ptxas drop-in)"
"$ptxvm" exec -- "$py" -m pytest -q -p no:cacheprovider clients/triton || status=1
for runner in clients/numba/run.sh clients/pyclients-run.sh; do
  if [ -x "$runner" ]; then
    echo "== $runner"
    PYTHON="$py" PTXVM="$ptxvm" "$runner" || status=1
  fi
done
exit $status
