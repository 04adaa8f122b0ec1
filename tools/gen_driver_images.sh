#!/usr/bin/env bash
# Regenerates the fatbin fixtures of crates/ptxvm-cuda/tests/images/ with NVIDIA's nvcc
# (the pip wheel, nvidia-cuda-nvcc 13.5) and records what cuobjdump says about each:
#   <name>.fatbin           nvcc -fatbin output for vadd.cu
#   <name>.cuobjdump.txt    `cuobjdump <name>.fatbin` (the entry listing the tests compare with)
#   <name>.<i>.ptx          the i-th PTX entry (1-based, fatbin order) from `cuobjdump -xptx all`
# Usage: tools/gen_driver_images.sh [CUDA_DIR]   (CUDA_DIR holds bin/nvcc and bin/cuobjdump;
# default: the nvidia/cu13 directory of /work/venv/dev, or $CUDA_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
C=${1:-${CUDA_DIR:-/work/venv/dev/lib/python3.11/site-packages/nvidia/cu13}}
NVCC=$C/bin/nvcc
CUOBJDUMP=$C/bin/cuobjdump
out=$PWD/crates/ptxvm-cuda/tests/images
tmp=$(mktemp -d)
# nvcc writes the source's absolute path into -lineinfo/-G PTX (.file) and its relative path
# into the entry identifier: compile a copy in a fixed directory so the outputs do not
# depend on where the repository is checked out.
work=/tmp/ptxvm-gen-driver-images
trap 'rm -rf "$tmp" "$work"' EXIT
rm -rf "$work" && mkdir -p "$work" && cp "$out/vadd.cu" "$work/vadd.cu"

{ "$NVCC" --version | grep release; "$CUOBJDUMP" --version | grep release; } > "$out/TOOL_VERSIONS"

gen() {
  local name=$1
  shift
  (cd "$work" && "$NVCC" -fatbin "$@" -o "$out/$name.fatbin" vadd.cu)
  # cuobjdump prints the path it was given: run it from the fixture directory so the
  # listing does not depend on where the repository is checked out.
  (cd "$out" && "$CUOBJDUMP" "$name.fatbin") > "$out/$name.cuobjdump.txt" 2> "$tmp/stderr" || true
  rm -f "$out/$name".*.ptx
  rm -rf "$tmp/x" && mkdir "$tmp/x"
  # -lptx lists the PTX entries in fatbin order: "PTX file    1: vadd.1.sm_80.ptx".
  (cd "$out" && "$CUOBJDUMP" -lptx "$name.fatbin" 2>/dev/null || true) > "$tmp/list"
  if [ -s "$tmp/list" ]; then
    (cd "$tmp/x" && "$CUOBJDUMP" -xptx all "$out/$name.fatbin" > /dev/null)
    while read -r _ _ idx file; do
      idx=${idx%:}
      cp "$tmp/x/$file" "$out/$name.$idx.ptx"
    done < "$tmp/list"
  fi
  echo "$name: $(stat -c %s "$out/$name.fatbin") bytes, $(grep -c '^Fatbin' "$out/$name.cuobjdump.txt") entries"
}

# nvcc's defaults: sm_75 SASS + compute_75 PTX, PTX zstd-compressed.
gen default
# LZ4 blocks.
gen lz4 --compress-mode=speed -gencode arch=compute_80,code=compute_80
# Uncompressed, both spellings.
gen nocompress --no-compress -gencode arch=compute_80,code=compute_80
gen nocompress_xfatbin -Xfatbin --compress=false -gencode arch=compute_80,code=[compute_80,sm_80]
# SASS for sm_75, PTX for compute_80 and compute_90.
gen multi -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=compute_80 \
  -gencode arch=compute_90,code=compute_90
# SASS only: nothing ptxvm can run.
gen sass_only -gencode arch=compute_80,code=sm_80
# Arch-specific and family-specific targets (PTX and SASS).
gen arch_specific -gencode arch=compute_90a,code=[compute_90a,sm_90a] \
  -gencode arch=compute_100f,code=[compute_100f,sm_100f] -gencode arch=compute_90,code=compute_90
# -lineinfo (identifier + ptxas options) and -G (debug info).
gen lineinfo -lineinfo -gencode arch=compute_80,code=[compute_80,sm_80]
gen debug -G -gencode arch=compute_80,code=compute_80
# ELF compressed too (zstd).
gen compress_all -Xfatbin -compress-all -gencode arch=compute_80,code=[compute_80,sm_80]
# LTO (NVVM IR, kind 8): compressed and obfuscated, so not decodable.
gen lto -gencode arch=compute_80,code=lto_80
