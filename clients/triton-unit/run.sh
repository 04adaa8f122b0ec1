#!/usr/bin/env bash
# Triton's own unit tests (the list in tests.txt) on ptxvm, or in Triton's interpreter.
#
#   clients/triton-unit/run.sh [ptxvm|interp] [extra pytest args...]
#
# ptxvm:  ptxvm exec -- python -m pytest ... (Triton compiles to PTX, ptxvm's ptxas drop-in
#         makes the "cubin", ptxvm's libcuda.so.1 runs it; PyTorch's CUDA build allocates and
#         copies through the same driver; the ptxvm_tunit plugin runs the tests' own PyTorch
#         operations on host copies: see README.md)
# interp: TRITON_INTERPRET=1 python -m pytest ... --device cpu (no ptxvm involved)
#
# Environment:
#   PYTHON      python with torch (CUDA build), triton 3.9.0, pytest, numpy  (default: python3)
#   PTXVM       the ptxvm executable        (default: target/release/ptxvm of this repo)
#   TRITON_SRC  a checkout of Triton's sources holding python/test/unit; if unset, the pinned
#               commit below is fetched into ~/.cache/ptxvm/triton-src-<commit> (needs git and
#               github.com)
#   KEEP_CACHE=1  reuse Triton's kernel cache (default: a fresh one per run, so compile time is
#               part of the measurement)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
MODE="${1:-ptxvm}"
shift || true
PYTHON="${PYTHON:-python3}"
PTXVM="${PTXVM:-$ROOT/target/release/ptxvm}"

# The test sources: triton-lang/triton main as of 2026-08-22 (the v3.9.0 tag was not reachable
# when the list was made; see README.md), mirrored at github.com/lightseekorg/triton.
TRITON_REPO="${TRITON_REPO:-https://github.com/lightseekorg/triton}"
TRITON_COMMIT=f4fca2c0bc0e19930d2be76bb06ee7b232b60e86
if [[ -z "${TRITON_SRC:-}" ]]; then
    TRITON_SRC="$HOME/.cache/ptxvm/triton-src-$TRITON_COMMIT"
    if [[ ! -d "$TRITON_SRC/python/test/unit" ]]; then
        rm -rf "$TRITON_SRC.tmp" && mkdir -p "$TRITON_SRC.tmp"
        git -C "$TRITON_SRC.tmp" init -q
        git -C "$TRITON_SRC.tmp" fetch -q --depth 1 "$TRITON_REPO" "$TRITON_COMMIT"
        git -C "$TRITON_SRC.tmp" checkout -q FETCH_HEAD -- pyproject.toml python/conftest.py python/test
        mv "$TRITON_SRC.tmp" "$TRITON_SRC"
    fi
fi

cache=""
if [[ "${KEEP_CACHE:-0}" != 1 ]]; then
    cache="$(mktemp -d)"
    trap 'rm -rf "$cache"' EXIT
    export TRITON_CACHE_DIR="$cache"
fi

cd "$TRITON_SRC/python"
# only the files tests.txt names (others may need packages the list does not: test_random.py
# imports scipy)
mapfile -t files < <(grep -v '^#' "$HERE/tests.txt" | sed -n 's#^\(cuda: *\)\{0,1\}python/\([^:]*\)::.*#\2#p' | sort -u)
args=(-p no:cacheprovider -p ptxvm_tunit --tests-file "$HERE/tests.txt" -q -rfE --tb=short
      "${files[@]}")
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"
start=$(date +%s.%N)
set +e
case "$MODE" in
    ptxvm) "$PTXVM" exec -- "$PYTHON" -m pytest "${args[@]}" --device cuda "$@" ;;
    interp) TRITON_INTERPRET=1 "$PYTHON" -m pytest "${args[@]}" --device cpu "$@" ;;
    *) echo "usage: $0 [ptxvm|interp] [pytest args...]" >&2; exit 2 ;;
esac
rc=$?
set -e
printf 'triton-unit (%s): %.0f s wall\n' "$MODE" "$(echo "$(date +%s.%N) - $start" | bc)"
exit $rc
