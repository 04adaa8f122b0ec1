#!/usr/bin/env bash
# Re-verify the negative PTX corpus against NVIDIA's ptxas.
#
# For every tests/negative/NNN-*.ptx (or the files given as arguments) this checks that
#   * the three header lines are present (`// kind:`, `// ptxas: reject:`, `// what:`)
#     and the kind is one of docs/diagnostic-kinds.md,
#   * the file has exactly one `// ~ERROR` marker,
#   * ptxas REJECTS the file (non-zero exit status), run with -arch taken from the
#     file's `.target` (sm_80 when the file has no `.target` or one ptxas does not know).
# The first error line ptxas prints is compared with the recorded `// ptxas: reject:` line;
# a difference is reported as DRIFT (a warning, or a failure with STRICT=1), because a
# different ptxas release may word or place its messages differently.
#
# ptxas: $PTXAS, else the pip package nvidia-cuda-nvcc (nvidia/cuda_nvcc/bin/ptxas),
# else `ptxas` on $PATH.
#
# Usage: tests/negative/check_ptxas.sh [-v] [file.ptx ...]
set -u

DIR=$(cd "$(dirname "$0")" && pwd)
VERBOSE=0
if [ "${1:-}" = "-v" ]; then VERBOSE=1; shift; fi

find_ptxas() {
    if [ -n "${PTXAS:-}" ]; then echo "$PTXAS"; return; fi
    local p
    for py in python3 python; do
        p=$("$py" -c 'import os, nvidia.cuda_nvcc as m; print(os.path.join(list(m.__path__)[0], "bin", "ptxas"))' 2>/dev/null) || continue
        if [ -x "$p" ]; then echo "$p"; return; fi
    done
    p=/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin/ptxas
    if [ -x "$p" ]; then echo "$p"; return; fi
    command -v ptxas
}
PTXAS=$(find_ptxas)
if [ -z "$PTXAS" ] || [ ! -x "$PTXAS" ]; then
    echo "check_ptxas.sh: ptxas not found (set \$PTXAS)" >&2
    exit 2
fi

KINDS=" syntax preprocessor undeclared duplicate undefined-label unknown-instruction modifier operand-count operand-kind operand-type state-space version target directive declaration "
# Targets this ptxas accepts for -arch (sm_XX values listed by --help).
ARCHS=" $("$PTXAS" --help 2>/dev/null | grep -o "'sm_[0-9a-z]*'" | tr -d "'" | tr '\n' ' ') "

if [ $# -gt 0 ]; then FILES=("$@"); else FILES=("$DIR"/[0-9][0-9][0-9]-*.ptx); fi

total=0; fail=0; drift=0
for f in "${FILES[@]}"; do
    total=$((total + 1))
    name=$(basename "$f")
    l1=$(sed -n 1p "$f"); l2=$(sed -n 2p "$f"); l3=$(sed -n 3p "$f")
    kind=${l1#// kind: }
    if [ "$kind" = "$l1" ] || [[ "$KINDS" != *" $kind "* ]]; then
        echo "FAIL  $name: line 1 is not '// kind: <kind>' with a known kind"; fail=$((fail + 1)); continue
    fi
    recorded=${l2#// ptxas: reject: }
    if [ "$recorded" = "$l2" ]; then
        echo "FAIL  $name: line 2 is not '// ptxas: reject: ...'"; fail=$((fail + 1)); continue
    fi
    if [ "${l3#// what: }" = "$l3" ]; then
        echo "FAIL  $name: line 3 is not '// what: ...'"; fail=$((fail + 1)); continue
    fi
    markers=$(grep -c '// ~ERROR' "$f")
    if [ "$markers" != 1 ]; then
        echo "FAIL  $name: $markers '// ~ERROR' markers (want exactly 1)"; fail=$((fail + 1)); continue
    fi
    target=$(sed -n 's@//.*@@; s/^[[:space:]]*\.target[[:space:]]\+\([A-Za-z0-9_]*\).*/\1/p' "$f" | head -n 1)
    arch=sm_80
    if [ -n "$target" ] && [[ "$ARCHS" == *" $target "* ]]; then arch=$target; fi

    out=$(cd "$(dirname "$f")" && "$PTXAS" -arch="$arch" -o /dev/null "$name" 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then
        echo "FAIL  $name: ACCEPTED by ptxas (-arch=$arch)"; fail=$((fail + 1)); continue
    fi
    first=$(printf '%s\n' "$out" | grep -E '(error|fatal)[[:space:]]*:' | grep -v 'Ptx assembly aborted' | head -n 1)
    first=${first#"ptxas $name, "}
    first=$(printf '%s' "$first" | tr -s ' \t' ' ' | sed 's/^ //; s/ $//')
    if [ "$first" != "$recorded" ]; then
        drift=$((drift + 1))
        echo "DRIFT $name: ptxas now says: $first"
        echo "      recorded:             $recorded"
        if [ "${STRICT:-0}" = 1 ]; then fail=$((fail + 1)); fi
    elif [ $VERBOSE = 1 ]; then
        echo "ok    $name ($kind, -arch=$arch): $first"
    fi
done

echo "checked $total files with $PTXAS: $((total - fail)) ok, $fail failed, $drift with message drift"
[ $fail -eq 0 ]
