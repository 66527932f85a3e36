#!/bin/bash
# initcheck illegal address: one host worker vs eight; CUDA_LAUNCH_BLOCKING to name the call; memcheck with eight
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
make build CUDA_ARCH=90 OP_BUNDLES=16 LINEINFO=1 -j16 > /tmp/build.log 2>&1 || tail -30 /tmp/build.log
echo "build $((SECONDS-t0)) s"
export PYTHONPATH=$PWD MYMODULE_NO_POOL=1 MYMODULE_CHUNK_BYTES=300000 MYMODULE_STAGE_BLOCK_BYTES=4097
mkdir -p $OUT/p
one() {  # name tool env...
  local name=$1 tool=$2; shift 2
  ( env "$@" timeout 230 compute-sanitizer --tool $tool --show-backtrace device --error-exitcode 1 --report-api-errors no --print-limit 3 python3 .gpu/knob_repro.py 12 170 > $OUT/p/$name.log 2>&1
    echo "$name ($tool $*): exit $? | $(grep -cE '^round' $OUT/p/$name.log) rounds | $(grep -E 'ROUNDS_DONE|ERROR SUMMARY|Error|illegal|Invalid|Uninit' $OUT/p/$name.log | sort | uniq -c | head -6 | tr '\n' ' ')" >> $OUT/summary.txt ) &
}
for i in 1 2 3 4 5 6; do one init-hw1-$i initcheck MYMODULE_HOST_WORKERS=1; done
for i in 1 2 3 4; do one init-lb-$i initcheck CUDA_LAUNCH_BLOCKING=1; done
for i in 1 2 3 4 5 6; do one mem-$i memcheck X=1; done
wait; sort $OUT/summary.txt; echo "total $((SECONDS-t0)) s"
