#!/usr/bin/env bash
# The whole test suite: the workspace's cargo tests, then the real-client tier
# (tools/client-tier.sh: nvcc-built programs, numba-cuda, cuda-python and CuPy on ptxvm's
# libcuda.so.1, in a pinned virtualenv it creates on first use).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test
tools/client-tier.sh "$@"
