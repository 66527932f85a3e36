#!/usr/bin/env bash
# Module-load cost of op bundle objects, by compression mode (bench/probes/module_load.cu):
#   bench/probes/module_load.sh OUTDIR REPEATS OBJECT...
# Each object's sm_90 cubin is taken out (cuobjdump) and wrapped again in a fat binary
# with each of fatbinary's compression modes; every image is loaded in fresh processes
# under lazy and under eager loading.
set -euo pipefail
out=$1; repeats=$2; shift 2
mkdir -p "$out"
nvcc -O2 -o "$out/module_load" bench/probes/module_load.cu -lcuda
images=()
for obj in "$@"; do
    name=$(basename "$obj" .o)
    mkdir -p "$out/$name" && (cd "$out/$name" && cuobjdump -xelf all "$(realpath "$OLDPWD/$obj")" > /dev/null)
    cubin=$(ls "$out/$name"/*.cubin | head -1)
    images+=("$cubin")
    for mode in none speed balance default size; do
        fatbinary --create="$out/$name/$mode.fatbin" --image3=kind=elf,sm=90,file="$cubin" \
            --compress-all --compress-mode=$mode
        images+=("$out/$name/$mode.fatbin")
    done
done
ls -la "$out"/*/
for mode in LAZY EAGER; do
    echo "== CUDA_MODULE_LOADING=$mode"
    CUDA_MODULE_LOADING=$mode "$out/module_load" "$repeats" "${images[@]}"
done
