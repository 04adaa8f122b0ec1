#!/usr/bin/env bash
# Seeds the libFuzzer corpora (git-ignored) from the repository's PTX test files.
# Usage: fuzz/seed.sh   (from anywhere)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
for target in parse_check parse_only; do
    dir="$here/corpus/$target"
    mkdir -p "$dir"
    n=0
    while IFS= read -r -d '' f; do
        # Flatten the path into a unique file name.
        rel="${f#"$root"/tests/}"
        cp "$f" "$dir/seed_${rel//\//_}"
        n=$((n + 1))
    done < <(find "$root/tests/fixtures" "$root/tests/negative" -name '*.ptx' -type f -print0)
    # Committed regression inputs are seeds too.
    if [ -d "$here/regressions" ]; then
        for f in "$here"/regressions/*; do
            [ -f "$f" ] || continue
            case "$f" in *.md) continue ;; esac
            cp "$f" "$dir/regression_$(basename "$f")"
            n=$((n + 1))
        done
    fi
    echo "seeded $n files into $dir"
done
