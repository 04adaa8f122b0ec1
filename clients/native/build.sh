#!/usr/bin/env bash
# Rebuilds the client executables of ptxvm's libcuda.so.1 test suite into bin/.
#
#   clients/native/build.sh            # everything (about 1 minute on 2 cores)
#   clients/native/build.sh vector_add drv_link   # only the named programs
#
# Toolchain: NVIDIA's pip wheels, pinned (install them into a venv and point CUDA13 and
# CUDART12_DIR at it):
#   pip install nvidia-cuda-nvcc==13.5.37 nvidia-cuda-runtime==13.5.37 \
#     nvidia-cuda-crt==13.5.37 nvidia-cuda-cccl==13.3.5.0.6 nvidia-nvvm==13.5.37 \
#     nvidia-cuda-profiler-api==13.4.92 nvidia-cuda-runtime-cu12==12.9.79
# plus the system gcc/g++ (12.2 here), xxd and strip. No GPU and no libcuda are needed:
# driver-API programs link against a generated link-only stub (SONAME libcuda.so.1) that
# is deleted afterwards; at run time the test harness supplies ptxvm's libcuda.so.1 and
# puts the CUDA runtimes' directories on LD_LIBRARY_PATH (nothing here has an rpath).
#
# Everything is PTX only (-gencode arch=compute_80,code=compute_80): no SASS, except the
# deliberately SASS-only fatbin inside drv_sass_only. Executables are stripped.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CUDA13=${CUDA13:-/work/venv/dev/lib/python3.11/site-packages/nvidia/cu13}
CUDART12_DIR=${CUDART12_DIR:-/work/venv/dev/lib/python3.11/site-packages/nvidia/cuda_runtime/lib}
NVCC=$CUDA13/bin/nvcc
ARCH=(-gencode arch=compute_80,code=compute_80)
SRC=$HERE/src
BIN=$HERE/bin

[ -x "$NVCC" ] || { echo "build.sh: no nvcc at $NVCC (set CUDA13)" >&2; exit 1; }
"$NVCC" --version | grep -q 'release 13.5, V13.5.37' ||
    echo "build.sh: warning: expected nvcc 13.5.37, got: $("$NVCC" --version | tail -1)" >&2
[ -f "$CUDA13/lib/libcudart.so.13" ] || { echo "build.sh: no $CUDA13/lib/libcudart.so.13" >&2; exit 1; }
[ -f "$CUDART12_DIR/libcudart.so.12" ] || { echo "build.sh: no $CUDART12_DIR/libcudart.so.12 (set CUDART12_DIR)" >&2; exit 1; }
for tool in gcc g++ xxd strip nm; do command -v $tool >/dev/null || { echo "build.sh: $tool missing" >&2; exit 1; }; done

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$BIN" "$TMP/linklib13" "$TMP/gen" "$TMP/obj" "$TMP/stub"
# The wheels ship only libcudart.so.13; -cudart shared needs an unversioned name to link.
ln -s "$CUDA13/lib/libcudart.so.13" "$TMP/linklib13/libcudart.so"

# ---------------------------------------------------------------- runtime API programs
# name|extra nvcc flags|variants
RUNTIME_PROGRAMS=(
    "vector_add||static13 shared13 shared12"
    "matmul_tiled||static13 shared13 shared12"
    "reduction||static13 shared13 shared12"
    "streams_events||static13 shared13 shared12"
    "managed_memory||static13 shared13"
    "mapped_pinned||static13 shared13"
    "symbols||static13 shared13 shared12"
    "memcpy_2d_3d||static13 shared13"
    "printf_order||static13 shared13 shared12"
    "assert_fail||static13 shared13"
    "illegal_address||static13 shared13"
    "device_query||static13 shared13"
    "occupancy||static13 shared13"
    "dynamic_smem||static13 shared13"
    "func_attributes||static13 shared13"
    "malloc_async||static13 shared13"
    "ptds|--default-stream per-thread|static13 shared13"
    "threads8||static13 shared13"
    "errors||static13 shared13"
    "warp_intrinsics||static13 shared13"
    "atomics||static13 shared13"
    "math_fp16||static13 shared13"
    "cooperative_groups||static13 shared13"
    "thrust_sort||static13"
    "textures||static13 shared13"
    "mipmaps||static13 shared13"
)

# ---------------------------------------------------------------- driver API programs
DRIVER_PROGRAMS=(drv_vector_add drv_fatbin drv_sass_only drv_link drv_extra drv_launch_ex drv_library
                 drv_errors drv_contexts drv_pointer_attrs drv_jit_log drv_memset drv_events)

wanted() {  # wanted NAME: true if NAME was asked for (or nothing was)
    [ ${#SELECTED[@]} -eq 0 ] && return 0
    local s
    for s in "${SELECTED[@]}"; do [ "$s" = "$1" ] && return 0; done
    return 1
}
SELECTED=("$@")

run() { echo "+ $*" >&2; "$@"; }

build_runtime() {  # build_runtime NAME "FLAGS" "VARIANTS"
    local name=$1 flags=$2 variants=$3 src=$SRC/runtime/$1.cu v
    # shellcheck disable=SC2086
    for v in $variants; do
        case $v in
        static13)
            run "$NVCC" "${ARCH[@]}" -O2 $flags -I"$SRC/runtime" -Xlinker -s -o "$BIN/$name.static13" "$src" ;;
        shared13)
            run "$NVCC" "${ARCH[@]}" -O2 $flags -I"$SRC/runtime" -cudart shared -L"$TMP/linklib13" -Xlinker -s \
                -o "$BIN/$name.shared13" "$src" ;;
        shared12)
            # nvcc 13 objects (host code + device-link object) linked by g++ against the
            # CUDA 12.9 runtime (there is no nvcc 12 on pip).
            run "$NVCC" "${ARCH[@]}" -O2 $flags -I"$SRC/runtime" -cudart shared -c -o "$TMP/obj/$name.o" "$src"
            run "$NVCC" "${ARCH[@]}" -cudart shared -dlink -o "$TMP/obj/$name.dlink.o" "$TMP/obj/$name.o"
            run g++ -s -o "$BIN/$name.shared12" "$TMP/obj/$name.o" "$TMP/obj/$name.dlink.o" \
                -L"$CUDART12_DIR" -l:libcudart.so.12 -lpthread -ldl -lrt ;;
        *) echo "unknown variant $v" >&2; exit 1 ;;
        esac
    done
}

embed() {  # embed FILE SYMBOL OUT.h: the file's bytes plus a NUL, 8-byte aligned
    {
        echo "/* generated by build.sh from $(basename "$1"); do not edit */"
        echo "static const unsigned char $2[] __attribute__((aligned(8))) = {"
        xxd -i <"$1"
        echo ", 0x00};"
        echo "#define ${2}_SIZE (sizeof($2) - 1)"
    } >"$3"
}

gen_driver_images() {
    local K=$SRC/driver/kernels.cu G=$TMP/gen
    # PTX text of the shared kernel file
    run "$NVCC" -ptx -arch=compute_80 -o "$G/kernels.ptx" "$K"
    embed "$G/kernels.ptx" kernels_ptx "$G/kernels_ptx.h"
    # PTX-only fatbins: default compression (zstd), --compress-mode=speed (LZ4), none
    run "$NVCC" -fatbin "${ARCH[@]}" -o "$G/kernels_zstd.fatbin" "$K"
    run "$NVCC" -fatbin "${ARCH[@]}" --compress-mode=speed -o "$G/kernels_lz4.fatbin" "$K"
    run "$NVCC" -fatbin "${ARCH[@]}" --no-compress -o "$G/kernels_plain.fatbin" "$K"
    embed "$G/kernels_zstd.fatbin" kernels_fatbin_zstd "$G/kernels_fatbin_zstd.h"
    embed "$G/kernels_lz4.fatbin" kernels_fatbin_lz4 "$G/kernels_fatbin_lz4.h"
    embed "$G/kernels_plain.fatbin" kernels_fatbin_plain "$G/kernels_fatbin_plain.h"
    # SASS-only fatbin (sm_90 cubin, no PTX): no binary for a compute-8.0 device
    run "$NVCC" -fatbin -gencode arch=compute_90,code=sm_90 -o "$G/kernels_sm90.fatbin" "$K"
    embed "$G/kernels_sm90.fatbin" kernels_fatbin_sm90 "$G/kernels_fatbin_sm90.h"
    # relocatable PTX for the JIT linker
    run "$NVCC" -rdc=true -ptx -arch=compute_80 -o "$G/link_main.ptx" "$SRC/driver/link_main.cu"
    run "$NVCC" -rdc=true -ptx -arch=compute_80 -o "$G/link_lib.ptx" "$SRC/driver/link_lib.cu"
    embed "$G/link_main.ptx" link_main_ptx "$G/link_main_ptx.h"
    embed "$G/link_lib.ptx" link_lib_ptx "$G/link_lib_ptx.h"
    # hand-written PTX with a type error on line 12
    embed "$SRC/driver/bad_type.ptx" bad_type_ptx "$G/bad_type_ptx.h"
}

build_driver() {
    local names=() n
    for n in "${DRIVER_PROGRAMS[@]}"; do wanted "$n" && names+=("$n"); done
    [ ${#names[@]} -eq 0 ] && return 0
    gen_driver_images
    for n in "${names[@]}"; do
        run gcc -std=gnu11 -O2 -Wall -I"$CUDA13/include" -I"$TMP/gen" -I"$SRC/driver" -c -o "$TMP/obj/$n.o" \
            "$SRC/driver/$n.c"
    done
    # Link-only stub libcuda.so (SONAME libcuda.so.1) defining exactly the cu* symbols the
    # objects use. It is never run: the harness provides ptxvm's libcuda.so.1.
    local objs=()
    for n in "${names[@]}"; do objs+=("$TMP/obj/$n.o"); done
    {
        echo "/* generated link-only stub: never loaded at run time */"
        nm -u "${objs[@]}" | awk 'NF == 2 && $1 == "U" {print $2}' | grep -E '^cu[A-Z]' | sort -u |
            sed 's/.*/int &(void) { return 999; }/'
    } >"$TMP/stub/stub.c"
    echo "build.sh: stub libcuda.so defines $(grep -c '^int' "$TMP/stub/stub.c") symbols" >&2
    run gcc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$TMP/stub/libcuda.so" "$TMP/stub/stub.c"
    for n in "${names[@]}"; do
        run gcc -s -o "$BIN/$n.driver" "$TMP/obj/$n.o" -L"$TMP/stub" -lcuda
    done
}

for entry in "${RUNTIME_PROGRAMS[@]}"; do
    IFS='|' read -r name flags variants <<<"$entry"
    wanted "$name" && build_runtime "$name" "$flags" "$variants"
done
build_driver

echo "build.sh: done; bin/ holds $(find "$BIN" -type f | wc -l) executables, $(du -sh "$BIN" | cut -f1)" >&2
