#!/usr/bin/env bash
# numba-cuda's own tests with numba-cuda installed the default way (numba-cuda[cu13], which
# brings NVIDIA's nvJitLink), run under `ptxvm exec`, where ptxvm's nvJitLink does the linking.
#
# Usage: clients/numba-default/run.sh [--no-install] [LIST_FILE | TEST_ID]...
#   LIST_FILE  a file of test ids, one a line ('#' starts a comment), e.g. clients/numba/tests.txt
#   TEST_ID    a module (numba.cuda.tests.cudapy.test_atomics), or a pytest node id of one
#              (numba.cuda.tests.cudapy.test_sm::TestSharedMemory::test_shared_bool), or a path
#              of a test file inside site-packages (numba_cuda/numba/cuda/tests/...::Class::test)
#   !TEST_ID   (in a list or as an argument) leave that test out (its module's other tests run)
#   With no argument: clients/numba/tests.txt, or modules.txt here when that does not exist.
# Environment: PYTHON (default: target/numba-default-venv/bin/python, created from
# clients/requirements-numba-default.txt on first use and again when that file changes),
# PTXVM (default: target/release/ptxvm, built here), MODULE_TIMEOUT (seconds per module, 3600).
#
# Each module runs in its own pytest process (a kernel fault is sticky for the process, as on a
# GPU). A preflight (preflight.py) first checks that NVIDIA's nvJitLink is installed, that
# cuda-pathfinder loads ptxvm's in its place and that numba-cuda links with it. The last line is
# "N passed, N failed" over all modules; the exit status is 1 if any test failed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
install=1
args=()
for a in "$@"; do
  case "$a" in
    --no-install) install=0 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) args+=("$a") ;;
  esac
done
if [ ${#args[@]} -eq 0 ]; then
  if [ -f "$root/clients/numba/tests.txt" ]; then
    args=("$root/clients/numba/tests.txt")
  else
    args=("$here/modules.txt")
  fi
fi

if [ -z "${PYTHON:-}" ]; then
  venv="$root/target/numba-default-venv"
  req="$root/clients/requirements-numba-default.txt"
  if [ "$install" = 1 ] && { [ ! -x "$venv/bin/python" ] || ! cmp -s "$req" "$venv/.requirements"; }; then
    echo "numba-default: creating $venv from $req"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --no-cache-dir --upgrade pip
    "$venv/bin/python" -m pip install --quiet --no-cache-dir -r "$req"
    cp "$req" "$venv/.requirements"
  fi
  PYTHON="$venv/bin/python"
fi
if [ -z "${PTXVM:-}" ]; then
  (cd "$root" && cargo build --release -p ptxvm -p ptxvm-cuda -p ptxvm-nvjitlink -p ptxvm-nvjitlink12)
  PTXVM="$root/target/release/ptxvm"
fi
site=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

# The test ids, grouped by module (in first-seen order).
ids=()
for a in "${args[@]}"; do
  if [ -f "$a" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      line="${line%%#*}"
      line="$(echo "$line" | xargs)"
      [ -n "$line" ] && ids+=("$line")
    done < "$a"
  else
    ids+=("$a")
  fi
done
if [ ${#ids[@]} -eq 0 ]; then
  echo "numba-default: no tests given (and ${args[*]} is not a list file)" >&2
  exit 2
fi
declare -A members skip
modules=()
for id in "${ids[@]}"; do
  if [[ "$id" == '!'* ]]; then
    id="${id#!}"
    mod="${id%%::*}"
    [[ "$id" == */* ]] && mod="$site/$mod"
    skip[$mod]+="${skip[$mod]:+ or }${id##*::}"
    continue
  fi
  mod="${id%%::*}"
  if [[ "$id" == */* ]]; then
    id="$site/$id"
    mod="$site/$mod"
  fi
  if [ -z "${members[$mod]+x}" ]; then
    modules+=("$mod")
    members[$mod]=""
  fi
  if [[ "$id" == *::* ]]; then
    members[$mod]+="$id"$'\n'
  else
    members[$mod]="ALL"
  fi
done

export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
echo "== preflight"
"$PTXVM" exec -- "$PYTHON" "$here/preflight.py"

out="$(mktemp -d "${TMPDIR:-/tmp}/numba-default.XXXXXX")"
total_pass=0
total_fail=0
status=0
for mod in "${modules[@]}"; do
  if [ "${members[$mod]}" = "ALL" ]; then
    sel=("$mod")
  else
    mapfile -t sel < <(printf '%s' "${members[$mod]}")
  fi
  name="$(basename "${mod%.py}")"
  name="${name##*.}"
  desel=()
  if [ -n "${skip[$mod]:-}" ]; then
    desel=(-k "not (${skip[$mod]})")
  fi
  log="$out/$name.log"
  set +e
  timeout "${MODULE_TIMEOUT:-3600}" "$PTXVM" exec -- "$PYTHON" -m pytest -q -p no:cacheprovider \
    -p ptxvm_numba_plugin --import-mode=importlib --rootdir "$site" \
    "${desel[@]}" --pyargs "${sel[@]}" > "$log" 2>&1
  rc=$?
  set -e
  # pytest's own counts from its last line ("12 passed, 1 failed, 31 subtests passed in 4s");
  # subtests are not counted. A module that did not finish counts as one failure.
  summary="$(tail -n 1 "$log")"
  p=$(grep -oE '(^|[ ,=])[0-9]+ passed' <<< "$summary" | grep -oE '[0-9]+' | head -1 || true)
  p=${p:-0}
  f=0
  for n in $(grep -oE '(^|[ ,=])[0-9]+ (failed|errors?)' <<< "$summary" | grep -oE '[0-9]+' || true); do
    f=$((f + n))
  done
  if ! grep -qE ' in [0-9.]+s' <<< "$summary"; then
    f=$((f + 1))
  fi
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
  echo "$name: $p passed, $f failed (exit $rc) -- $summary"
  # pytest's 5: every test of the module was left out.
  if [ "$f" -gt 0 ] || { [ "$rc" -ne 0 ] && [ "$rc" -ne 5 ]; }; then
    status=1
    grep -E '^(FAILED|ERROR) ' "$log" | sed 's/^/    /' || true
  fi
done
echo "logs: $out"
echo "numba-default: $total_pass passed, $total_fail failed"
exit $status
