#!/bin/bash
# initcheck illegal address in the pipeline: overlap (PDL) on vs off, under load; plain stress; racecheck test.c / memcheck threads reruns
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
make build CUDA_ARCH=90 OP_BUNDLES=16 LINEINFO=1 -j16 > /tmp/build.log 2>&1 || tail -30 /tmp/build.log
make build/release-lineinfo-sm_90/test_c CUDA_ARCH=90 OP_BUNDLES=16 LINEINFO=1 -j16 >> /tmp/build.log 2>&1 || tail -30 /tmp/build.log
echo "build $((SECONDS-t0)) s"
export PYTHONPATH=$PWD
CS="compute-sanitizer --tool initcheck --show-backtrace device --error-exitcode 1 --report-api-errors no --print-limit 3"
mkdir -p $OUT/p1
for i in $(seq 1 16); do
  ov=$((i % 2))
  ( env MYMODULE_NO_POOL=1 MYMODULE_CHUNK_BYTES=300000 MYMODULE_STAGE_BLOCK_BYTES=4097 $( [ $ov = 1 ] && echo MYMODULE_NO_OVERLAP=1 ) \
      timeout 230 $CS python3 .gpu/knob_repro.py 12 170 > $OUT/p1/run$i-noov$ov.log 2>&1
    echo "initcheck run $i no_overlap=$ov: exit $? | $(grep -cE '^round' $OUT/p1/run$i-noov$ov.log) rounds | $(grep -E 'ROUNDS_DONE|ERROR SUMMARY|Error|illegal' $OUT/p1/run$i-noov$ov.log | sort | uniq -c | head -5 | tr '\n' ' ')" >> $OUT/phase1.txt ) &
done
wait; sort -t= -k2 $OUT/phase1.txt; echo "phase1 done $((SECONDS-t0)) s"
# plain, no checker: 16 processes, overlap on, 60 s each
for i in $(seq 1 16); do
  ( env MYMODULE_CHUNK_BYTES=300000 MYMODULE_STAGE_BLOCK_BYTES=4097 timeout 90 python3 .gpu/knob_repro.py 100000 60 > /tmp/plain$i.log 2>&1; echo "plain $i: exit $? $(tail -1 /tmp/plain$i.log)" >> $OUT/phase2.txt ) &
done
wait; cat $OUT/phase2.txt; echo "phase2 done $((SECONDS-t0)) s"
# racecheck test.c alone, timed; memcheck test_threads shard 0 x3
K="not past_2_31 and not returns_to_start and not sticky_fault and not out_of_memory and not rss and not release_the_gil and not gil_measurement and not self_check"
( s=$SECONDS; env VA_TEST_QUICK=1 MYMODULE_NO_POOL=1 timeout 200 compute-sanitizer --tool racecheck --show-backtrace device --kernel-name regex=2va --error-exitcode 1 --report-api-errors no build/release-lineinfo-sm_90/test_c > $OUT/racecheck-test-c.log 2>&1; echo "racecheck test.c exit $? $((SECONDS-s)) s $(grep -E 'RACECHECK SUMMARY|passed' $OUT/racecheck-test-c.log | tr '\n' ' ')" >> $OUT/phase3.txt ) &
for i in 1 2 3; do
  ( s=$SECONDS; env MYMODULE_TEST_QUICK=1 MYMODULE_NO_POOL=1 MYMODULE_TEST_SHARD=0/4 MYMODULE_SANITIZER_TOOL=memcheck timeout 150 compute-sanitizer --tool memcheck --show-backtrace device --error-exitcode 1 --report-api-errors no --target-processes all python3 -m pytest -q -p no:cacheprovider tests/test_threads.py -k "$K" > $OUT/memcheck-threads-$i.log 2>&1; echo "memcheck threads 0/4 #$i exit $? $((SECONDS-s)) s $(grep -E 'passed|ERROR SUMMARY' $OUT/memcheck-threads-$i.log | tr '\n' ' ')" >> $OUT/phase3.txt ) &
done
wait; cat $OUT/phase3.txt; echo "total $((SECONDS-t0)) s"
