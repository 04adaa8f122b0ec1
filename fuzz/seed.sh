#!/usr/bin/env bash
# Seeds the libFuzzer corpora (git-ignored) from the repository's test files.
# Usage: fuzz/seed.sh   (from anywhere)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"

# PTX targets: every fixture, negative and run-test file, and the committed regressions.
for target in parse_check parse_only run; do
    dir="$here/corpus/$target"
    mkdir -p "$dir"
    n=0
    while IFS= read -r -d '' f; do
        # Flatten the path into a unique file name.
        rel="${f#"$root"/tests/}"
        cp "$f" "$dir/seed_${rel//\//_}"
        n=$((n + 1))
    done < <(find "$root/tests/fixtures" "$root/tests/negative" "$root/tests/run" "$root/tests/hostile" \
        -name '*.ptx' -type f -print0 2>/dev/null)
    if [ -d "$here/regressions" ]; then
        for f in "$here"/regressions/*.ptx; do
            [ -f "$f" ] || continue
            cp "$f" "$dir/regression_$(basename "$f")"
            n=$((n + 1))
        done
    fi
    echo "seeded $n files into $dir"
done

# gen_run: the generator turns any bytes into a kernel; a few random inputs to start.
dir="$here/corpus/gen_run"
mkdir -p "$dir"
for i in $(seq 1 32); do head -c 200 /dev/urandom > "$dir/seed_random_$i"; done
echo "seeded 32 random inputs into $dir"

# npy: .npy files of every dtype and a few shapes, and the hostile suite's.
dir="$here/corpus/npy"
mkdir -p "$dir"
python3 - "$dir" <<'PY'
import struct, sys, os
d = sys.argv[1]
def npy(descr, shape, data, ver=1):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    pre = 10 if ver == 1 else 12
    h += " " * ((64 - (pre + len(h) + 1) % 64) % 64) + "\n"
    lenb = struct.pack("<H", len(h)) if ver == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes([ver, 0]) + lenb + h.encode() + data
for i, (descr, size) in enumerate([("<f4", 4), ("<f8", 8), ("<f2", 2), ("|u1", 1), ("<u2", 2),
        ("<u4", 4), ("<u8", 8), ("|i1", 1), ("<i2", 2), ("<i4", 4), ("<i8", 8), ("|b1", 1)]):
    open(os.path.join(d, "seed_%d.npy" % i), "wb").write(npy(descr, "(3,)", bytes(range(3 * size))))
open(os.path.join(d, "seed_2d.npy"), "wb").write(npy("<f4", "(2, 2)", bytes(16)))
open(os.path.join(d, "seed_scalar.npy"), "wb").write(npy("<f4", "()", bytes(4)))
open(os.path.join(d, "seed_v2.npy"), "wb").write(npy("<i4", "(2,)", bytes(8), ver=2))
PY
for f in "$root"/tests/hostile/npy/*.npy; do [ -f "$f" ] && cp "$f" "$dir/hostile_$(basename "$f")"; done
echo "seeded $(ls "$dir" | wc -l) files into $dir"

# cli_args: command lines, one argument per line.
dir="$here/corpus/cli_args"
mkdir -p "$dir"
printf 'run\nk.ptx\n--grid\n4,2\n--block\n256\n--arg\nu32:5\n--arg\nf32:0.5\n--arg\nzeros:f32:1024\n--arg\nhex:00ff_10\n--out\no\n' > "$dir/seed_run"
printf 'run\nk.ptx\n--kernel\nk\n--grid\n1\n--block\n1,1,1\n--symbol\ng=zeros:u8:4\n--arg\na.npy\n--arg\nf16:1.5\n--arg\nbf16:-2\n--arg\ns64:-0x10\n--max-steps\n1000\n--threads\n2\n--printf-fifo\n4K\n--heap-size\n1M\n--local-memory\n512K\n--launch-memory\n1G\n--device-memory\n16G\n' > "$dir/seed_run_all"
printf 'check\n--message-format\njson\n--arch\nsm_90a\na.ptx\nb.ptx\n' > "$dir/seed_check"
printf 'fmt\na.ptx\n' > "$dir/seed_fmt"
printf 'info\na.ptx\n' > "$dir/seed_info"
printf 'exec\n--arch\nsm_80\n--\n./app\n' > "$dir/seed_exec"
echo "seeded $(ls "$dir" | wc -l) files into $dir"
