#!/usr/bin/env bash
# The whole test suite on a GPU machine in the few minutes a device call has: the
# build (the extension and the C test program, for one architecture), the C tests,
# pytest split into SHARDS processes side by side (MYMODULE_TEST_SHARD), every
# failure of the shards run again alone (a process that shares the GPU with the
# other shards now and then finds its memory taken), then the tests that compare the GPU's
# free memory, which must run alone. Every GPU test must run: MYMODULE_REQUIRE_GPU=1.
# While the shards run, every GPU's used memory is sampled beside each shard's timeline
# of tests; where a shard ran out of GPU memory, scripts/gpu_memory_peaks.py's names of
# the tests under way when a GPU was fullest go to SUMMARY.
# A line a step goes to SUMMARY; the logs stay in LOGS, and LOGS/tails.txt gathers the
# end of each (the slowest tests, the failures) in one file: the device tool brings back
# at most 8 files from $OUT, so keep LOGS outside it and copy tails.txt there.
# Usage: scripts/gpu_suite.sh SUMMARY [LOGS] (environment: CUDA_ARCH=90, PYTHON=python3,
#        SHARDS=5, SHARD_SECONDS=300, PYTEST_ARGS="tests")
set -u
SUMMARY=${1:?usage: scripts/gpu_suite.sh SUMMARY [LOGS]}
LOGS=${2:-/tmp/gpu_suite}
CUDA_ARCH=${CUDA_ARCH:-90}
PYTHON=${PYTHON:-python3}
SHARDS=${SHARDS:-5}
SHARD_SECONDS=${SHARD_SECONDS:-300}
PYTEST_ARGS=${PYTEST_ARGS:-tests}
cd "$(dirname "$0")/.." || exit 1
mkdir -p "$LOGS"
export MYMODULE_REQUIRE_GPU=1
BUILD=build/release-sm_$CUDA_ARCH
if ! make build "$BUILD/test_c" CUDA_ARCH="$CUDA_ARCH" PYTHON="$PYTHON" > "$LOGS/build.txt" 2>&1; then
    echo "build failed:" >> "$SUMMARY"
    tail -30 "$LOGS/build.txt" >> "$SUMMARY"
    exit 1
fi
echo "build: $(grep -c NVCC "$LOGS/build.txt") files compiled" >> "$SUMMARY"
timeout 150 "$BUILD/test_c" > "$LOGS/test_c.txt" 2>&1
echo "C tests rc=$?: $(tail -1 "$LOGS/test_c.txt")" >> "$SUMMARY"
grep -E "FAIL" "$LOGS/test_c.txt" | head -20 >> "$SUMMARY"
# On a host of several GPUs each shard sees them all, in an order turned by its index,
# so that the shards' first GPU (where device arrays go by default) is not one GPU for
# all: six shards sharing GPU 0 of a two-H200 host ran it out of memory 45 times while
# GPU 1 idled (session 39). Tests of several GPUs still see every GPU.
NGPUS=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU ")
gpu_order() {
    local first=$1 k list=""
    for k in $(seq 0 $((NGPUS - 1))); do list="$list${list:+,}$(( (first + k) % NGPUS ))"; done
    echo "$list"
}
TURN_GPUS=0
[ "$NGPUS" -gt 1 ] && [ -z "${CUDA_VISIBLE_DEVICES+set}" ] && TURN_GPUS=1
# Every GPU's used memory twice a second while the shards run, beside each shard's
# timeline of tests (tests/conftest.py): scripts/gpu_memory_peaks.py names the tests
# under way when a GPU filled up.
rm -f "$LOGS"/timeline_*.txt "$LOGS/gpu_memory.csv"
SAMPLER=""
if command -v nvidia-smi > /dev/null 2>&1; then
    nvidia-smi --query-gpu=timestamp,index,memory.used,memory.total --format=csv,noheader,nounits \
        -lms 500 > "$LOGS/gpu_memory.csv" 2> /dev/null &
    SAMPLER=$!
fi
start=$SECONDS
SHARD_PIDS=()
for i in $(seq 0 $((SHARDS - 1))); do
    if [ "$TURN_GPUS" = 1 ]; then
        export CUDA_VISIBLE_DEVICES
        CUDA_VISIBLE_DEVICES=$(gpu_order "$i")
    fi
    # SIGINT at the limit: pytest stops as on Ctrl-C and still prints its summary and
    # slowest tests, so that a shard cut off says how far it got and what took the time.
    # shellcheck disable=SC2086 # PYTEST_ARGS is a list of words
    MYMODULE_TEST_SHARD=$i/$SHARDS MYMODULE_TEST_TIMELINE=$LOGS/timeline_$i.txt \
        timeout -s INT -k 20 "$SHARD_SECONDS" "$PYTHON" -m pytest -q -rfE \
        -p no:cacheprovider --durations=15 \
        $PYTEST_ARGS > "$LOGS/pytest_$i.txt" 2>&1 &
    SHARD_PIDS+=($!)
done
[ "$TURN_GPUS" = 1 ] && unset CUDA_VISIBLE_DEVICES
wait "${SHARD_PIDS[@]}"
[ -n "$SAMPLER" ] && kill "$SAMPLER" 2> /dev/null
"$PYTHON" scripts/gpu_memory_peaks.py "$LOGS" > "$LOGS/gpu_memory_peaks.txt" 2>&1
for i in $(seq 0 $((SHARDS - 1))); do
    last=$(tail -1 "$LOGS/pytest_$i.txt")
    if grep -q "KeyboardInterrupt" "$LOGS/pytest_$i.txt"; then
        echo "shard $i/$SHARDS: cut off at ${SHARD_SECONDS} s: $last"
    else
        case "$last" in
            *" in "*s*) echo "shard $i/$SHARDS: $last" ;;
            *) echo "shard $i/$SHARDS: cut off at ${SHARD_SECONDS} s (no summary line)" ;;
        esac
    fi
done >> "$SUMMARY"
echo "pytest shards took $((SECONDS - start)) s" >> "$SUMMARY"
grep -h -E "^(FAILED|ERROR) " "$LOGS"/pytest_*.txt | sed -E "s/^(FAILED|ERROR) //; s/ - .*$//" > "$LOGS/failed.txt"
if [ -s "$LOGS/failed.txt" ]; then
    echo "failed in the shards:" >> "$SUMMARY"
    head -30 "$LOGS/failed.txt" >> "$SUMMARY"
    # Each failure's first error line beside its name: the reason must reach SUMMARY,
    # which comes back from the device, while LOGS stays on the machine (session 38
    # needed a second call to read why the shards of the first had failed).
    echo "why (each failure's first E line in the shards):" >> "$SUMMARY"
    awk '/^___+ .* ___+$/ { name = $0; gsub(/^_+ | _+$/, "", name); seen = 0; next }
         /^E / && name != "" && !seen { print name ": " substr($0, 2); seen = 1 }' \
        "$LOGS"/pytest_*.txt | sed -E "s/ +/ /g" | cut -c1-250 | head -30 >> "$SUMMARY"
    tr "\n" "\0" < "$LOGS/failed.txt" | timeout 120 xargs -0 "$PYTHON" -m pytest -q -rfE -p no:cacheprovider \
        > "$LOGS/rerun.txt" 2>&1
    echo "the failures alone: $(tail -1 "$LOGS/rerun.txt")" >> "$SUMMARY"
    # Out of memory in the shards: what each shard ran while a GPU was fullest.
    if grep -q "OutOfMemoryError" "$LOGS"/pytest_*.txt; then
        "$PYTHON" scripts/gpu_memory_peaks.py "$LOGS" --spells 2 | head -40 >> "$SUMMARY"
    fi
    grep -E "^(FAILED|ERROR) " "$LOGS/rerun.txt" | cut -c1-300 | head >> "$SUMMARY"
fi
timeout 90 "$PYTHON" -m pytest -q -rfE -p no:cacheprovider -m gpu_memory_alone tests > "$LOGS/alone.txt" 2>&1
echo "gpu_memory_alone: $(tail -1 "$LOGS/alone.txt")" >> "$SUMMARY"
grep -E "^(FAILED|ERROR) " "$LOGS/alone.txt" | cut -c1-300 >> "$SUMMARY"
for f in "$LOGS"/build.txt "$LOGS"/test_c.txt "$LOGS"/pytest_*.txt "$LOGS"/rerun.txt "$LOGS"/alone.txt \
         "$LOGS"/gpu_memory_peaks.txt; do
    [ -f "$f" ] || continue
    echo "===== $(basename "$f")"
    tail -c 6000 "$f"
done > "$LOGS/tails.txt"
