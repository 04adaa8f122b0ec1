#!/usr/bin/env bash
# Runs the numba-cuda client tier (clients/numba/tests.txt) under `ptxvm exec`.
#
#   clients/numba/run.sh [PYTHON] [run.py options...]
#
# PYTHON is the interpreter with numba-cuda installed (and without nvJitLink); default
# $PYTHON. The ptxvm executable is $PTXVM, else target/release/ptxvm (build it first with
# `cargo build --release -p ptxvm -p ptxvm-cuda`). Exits non-zero unless every listed test
# passed; the last line is `numba-cuda suite: N passed of M listed`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ $# -gt 0 && "$1" != -* ]]; then
    PYTHON="$1"
    shift
fi
: "${PYTHON:?give the Python with numba-cuda as the first argument or in \$PYTHON}"
# The supervisor needs only a Python 3; use the given one.
exec "$PYTHON" "$here/run.py" --python "$PYTHON" "$@"
