#!/bin/bash
# Issue 25 probe: the contiguous elementwise kernel's register cap, A/B on the GPU.
# float64 arctan's packed kernel takes 58 registers (4 blocks of 256 a SM, half the
# threads), and runs 15 % under the copy rate that a 22-register kernel of the same
# math reaches (bench/probes/unary_ilp.cu). Each argument is a VA_ELEMENTWISE_MIN_BLOCKS
# (the launch bound's minimum blocks a SM: 5 caps registers at 48, 6 at 40, 8 at 32);
# each variant is built (sm_90, 16 op bundles) in a copy of the tree and the op table's
# device rows of bench/run.py run against it, one after the other in this call.
# Usage, on the GPU machine: bench/probes/min_blocks_ab.sh 1 5 6 > log
# (It needs the define it edits: `#ifndef VA_ELEMENTWISE_MIN_BLOCKS` / `#define
# VA_ELEMENTWISE_MIN_BLOCKS 1` before elementwise_contiguous, with the value as the
# launch bound's second argument. Session 14 ran it so; the kept kernel has no cap.)
set -u
root=$(pwd)
for mb in "$@"; do
    d=/tmp/min_blocks_$mb
    rm -rf "$d" && mkdir -p "$d"
    tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C "$d"
    sed -i "s/^#define VA_ELEMENTWISE_MIN_BLOCKS 1$/#define VA_ELEMENTWISE_MIN_BLOCKS $mb/" \
        "$d/vectorAdd/elementwise_kernels.cuh"
    grep -q "^#define VA_ELEMENTWISE_MIN_BLOCKS $mb$" "$d/vectorAdd/elementwise_kernels.cuh" || {
        echo "min blocks $mb: the define was not found"; exit 1; }
    (cd "$d" && make -j$(( $(nproc) / $# )) build CUDA_ARCH=90 OP_BUNDLES=16 > build.log 2>&1; echo "built $mb: rc $?") &
done
wait
for mb in "$@"; do
    d=/tmp/min_blocks_$mb
    echo "=== VA_ELEMENTWISE_MIN_BLOCKS=$mb"
    (cd "$d" && env -u OUT python3 bench/run.py --no-sweep --out "$d/bench" \
        --filter "${MIN_BLOCKS_FILTER:-device arrays, n = 2\^26}" 2>&1 |
        grep -E "^(streaming ceiling|[a-z_0-9]+, device arrays, n = 2\^26)" | grep -v "^ ")
done
cd "$root"
