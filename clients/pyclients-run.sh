#!/usr/bin/env bash
# Runs the Python client tests (cuda-python and CuPy) with ptxvm as the CUDA driver.
#
#   clients/pyclients-run.sh [PYTHON] [-- PYTEST_ARGS...]
#
# PYTHON: the interpreter of a venv holding the pinned client set (see the READMEs in
# clients/cuda_python and clients/cupy); default $PYTHON, else /work/venv/dev/bin/python.
# The ptxvm executable is $PTXVM, else target/release/ptxvm (build it and the driver with
# `cargo build --release -p ptxvm -p ptxvm-cuda`).
#
# Three pytest sessions, each in its own process under `ptxvm exec`:
#   cuda_python   clients/cuda_python             (emulated sm_80, the default)
#   cupy          clients/cupy without sm120/     (emulated sm_80)
#   cupy-sm120    clients/cupy/sm120              (emulated sm_120a: CuPy's precompiled
#                                                  Thrust/CUB kernels carry compute_120 PTX only)
# CuPy's kernel cache (NVRTC output, keyed by source, options, arch and versions) is kept in
# target/pyclients-cupy-cache unless CUPY_CACHE_DIR is set; PYCLIENTS_FRESH_CACHE=1 uses an
# empty one (every CuPy kernel is then compiled by NVRTC again: slower, see the README).
#
# Prints one summary line per session and exits non-zero if any test failed, errored or was
# skipped (or xfailed), or if a session collected no tests.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY=${PYTHON:-/work/venv/dev/bin/python}
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
    PY=$1
    shift
fi
[ "${1:-}" = "--" ] && shift
PTXVM=${PTXVM:-$ROOT/target/release/ptxvm}

[ -x "$PTXVM" ] || { echo "pyclients-run: no ptxvm at $PTXVM (cargo build --release -p ptxvm -p ptxvm-cuda, or set PTXVM)" >&2; exit 2; }
"$PY" -c 'import pytest, numpy, cupy, cuda.bindings' 2>/dev/null ||
    { echo "pyclients-run: $PY lacks pytest/numpy/cupy/cuda-bindings" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pyclients.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
if [ "${PYCLIENTS_FRESH_CACHE:-0}" = 1 ]; then
    export CUPY_CACHE_DIR=$WORK/cupy-cache
else
    export CUPY_CACHE_DIR=${CUPY_CACHE_DIR:-$ROOT/target/pyclients-cupy-cache}
fi
export PYTHONDONTWRITEBYTECODE=1

status=0
start_all=$(date +%s)

# session NAME ARCH PATH [pytest args...]
session() {
    local name=$1 arch=$2 path=$3
    shift 3
    local xml=$WORK/$name.xml log=$WORK/$name.log
    local t0 t1 rc
    t0=$(date +%s%N)
    (cd "$ROOT" && "$PTXVM" exec --arch "$arch" -- "$PY" -m pytest -p no:cacheprovider \
        -q -rfEsxX --junitxml="$xml" "$path" "$@" "${EXTRA[@]}") >"$log" 2>&1
    rc=$?
    t1=$(date +%s%N)
    local counts
    counts=$("$PY" - "$xml" <<'EOF'
import sys
import xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except Exception:
    print("0 0 0 0 0")
    sys.exit()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
tot = [sum(int(s.get(k, 0)) for s in suites) for k in ("tests", "failures", "errors", "skipped")]
tests, failures, errors, skipped = tot
print(tests - failures - errors - skipped, failures, errors, skipped, tests)
EOF
)
    local passed failed errors skipped tests
    read -r passed failed errors skipped tests <<<"$counts"
    local verdict=ok
    if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$errors" -ne 0 ] || [ "$skipped" -ne 0 ] || [ "$tests" -eq 0 ]; then
        verdict=FAILED
        status=1
    fi
    printf '%-12s %-6s %3d passed, %d failed, %d errors, %d skipped (sm_%s, %s s)\n' \
        "$name" "$verdict" "$passed" "$failed" "$errors" "$skipped" "${arch#sm_}" "$(((t1 - t0) / 1000000000)).$((((t1 - t0) / 100000000) % 10))"
    if [ "$verdict" != ok ]; then
        sed 's/^/    /' "$log" | grep -v '^    ptxvm-cuda: export table' | tail -n 60
    fi
}

EXTRA=("$@")
session cuda_python sm_80 clients/cuda_python
session cupy sm_80 clients/cupy --ignore=clients/cupy/sm120
session cupy-sm120 sm_120a clients/cupy/sm120

echo "pyclients: $([ $status -eq 0 ] && echo PASSED || echo FAILED) in $(($(date +%s) - start_all)) s"
exit $status
