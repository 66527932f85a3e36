#!/usr/bin/env bash
# compute-sanitizer's tools over the C test program and pytest files, one
# checker run per (tool, file) pair, JOBS of them at once: the checkers are
# bound by the host (instrumentation, reports), not the GPU, so a machine of
# many cores runs the whole grid in a fraction of the one-at-a-time time.
# Each pair logs to its own file; the log is their concatenation in a fixed
# order (tool, then file) whatever order they finished in.
#
#   scripts/sanitize.sh LOG JOBS TEST_C PYTHON "TOOLS" "PYTEST FILES" [pytest arguments...]
# (TEST_C "-": the pytest files only)
#
# Environment: SANITIZER (compute-sanitizer), SAN_API_ERRORS (its
# --report-api-errors setting), SAN_TIMEOUT (seconds one pair may take),
# SAN_SHARDS (each pytest file as that many processes, MYMODULE_TEST_SHARD, so
# a slow file does not leave the other cores idle at the end),
# SAN_RACECHECK_KERNELS (racecheck's --kernel-name filter; empty: every kernel),
# SAN_FILTER_CHECK (1: check first that the filter matches the library's kernels),
# SAN_BACKTRACE (--show-backtrace: device, the default, or yes, host, no).
# The pytest runs get MYMODULE_SANITIZER_TOOL=<tool>: under racecheck, conftest
# skips the tests marked host_threads, with its reason.
# Exit status 1 if any pair reported an error, failed, or ran out of time.
set -uo pipefail
LOG=$1
JOBS=$2
TEST_C=$3
PYTHON=$4
TOOLS=$5
FILES=$6
shift 6
SANITIZER=${SANITIZER:-compute-sanitizer}
# CuPy, PyTorch and Numba probe the driver (cuGetProcAddress) and the checker
# counts each refusal as an error; the library's own failed calls are checked by
# the tests themselves (every status is asserted).
SAN_API_ERRORS=${SAN_API_ERRORS:---report-api-errors no}
SAN_TIMEOUT=${SAN_TIMEOUT:-1800}
# To record a host backtrace the checker takes the GIL inside its launch
# callback while it holds a lock of the driver's: a thread that holds the GIL
# and enters the driver (an allocation for a new array) then waits for that
# lock, and the launching thread for the GIL. Threaded Dask runs froze that way
# (native stacks of an initcheck run: bench/results/sanitize-2026-11-23-session8/).
# Device backtraces need no GIL, and a report still names the kernel and, with
# LINEINFO=1, its source line.
SAN_BACKTRACE=${SAN_BACKTRACE:-device}
# With host backtraces some DeviceArrays also stayed alive past their test
# module (memcheck: 56 allocations over tests/test_leaks.py), with device
# backtraces none did: with host backtraces the per-module check that the
# library's device memory returns to its start (conftest) is skipped.
case $SAN_BACKTRACE in
    yes | host) skip_memory_check=1 ;;
    *) skip_memory_check=0 ;;
esac
SAN_SHARDS=${SAN_SHARDS:-1}
# racecheck looks for shared-memory hazards inside a kernel: ours are its
# subject, CuPy's, PyTorch's and Numba's kernels are their authors' (and cost
# most of its time in tests/test_interop.py). The filter matches mangled names:
# every kernel of the library and every user kernel built on it sits in
# namespace va or takes va::RawArgs, so "2va" is in its name. A filter that
# matches nothing checks nothing and says nothing, so the run first makes sure
# this one still sees the library: under it, memcheck must report the deliberate
# fault of va::write_through_invalid_address (SAN_FILTER_CHECK=0 skips that).
SAN_RACECHECK_KERNELS=${SAN_RACECHECK_KERNELS-regex=2va}
SAN_FILTER_CHECK=${SAN_FILTER_CHECK:-1}
if [ "$SAN_FILTER_CHECK" = 1 ] && [ -n "$SAN_RACECHECK_KERNELS" ] && [[ " $TOOLS " == *" racecheck "* ]]; then
    seen=$("$SANITIZER" --tool memcheck --kernel-name "$SAN_RACECHECK_KERNELS" \
        "$PYTHON" -c "import myModule; myModule._core._testing_fault()" 2>&1)
    if ! grep -q "write_through_invalid_address" <<< "$seen"; then
        echo "racecheck's kernel filter '$SAN_RACECHECK_KERNELS' does not match the library's fault kernel:"
        echo "$seen" | head -n 20
        exit 1
    fi
fi
# The pairs' own logs, beside LOG: what finished is kept if the whole run is cut off.
PARTS=${LOG%.log}.parts
rm -rf "$PARTS" && mkdir -p "$PARTS"

# racecheck loses track of kernels launched from several host threads at once:
# it says so and hangs (CuPy alone does it: conftest's host_threads skip). We
# take initcheck to share the limit: with the eight threads of the host-data
# pipeline it now and then ends in an illegal address it does not report (0 errors),
# which memcheck, CUDA_LAUNCH_BLOCKING=1, one or two workers, and 1859 plain
# rounds under load never showed (bench/results/sanitize-2026-11-23-session9/).
# Under those two tools the pipeline runs one worker: the same kernels and
# copies, enqueued by one thread. memcheck and synccheck keep eight.
pipeline_workers() {
    case $1 in
        racecheck | initcheck) echo 1 ;;
        *) echo 0 ;;  # 0: the library's own choice
    esac
}

# The checker over one target, its output to stdout; its exit status.
check_once() {
    local tool=$1 target=$2 shard=$3 args=() extra=() leaks=()
    mapfile -d '' args < "$PARTS/pytest-args"
    # Leaks are checked on the C program, which gives everything back (va_shutdown);
    # a Python process leaves its caches, as CuPy's and PyTorch's, to the context's end.
    [ "$tool" = memcheck ] && leaks=(--leak-check full)
    [ "$tool" = racecheck ] && [ -n "$SAN_RACECHECK_KERNELS" ] && extra=(--kernel-name "$SAN_RACECHECK_KERNELS")
    local workers
    workers=$(pipeline_workers "$tool")
    if [ "$target" = tests/test.c ]; then
        VA_TEST_QUICK=1 MYMODULE_NO_POOL=1 MYMODULE_HOST_WORKERS=$workers timeout "$SAN_TIMEOUT" \
            "$SANITIZER" --tool "$tool" "${leaks[@]}" "${extra[@]}" --show-backtrace "$SAN_BACKTRACE" \
            --error-exitcode 1 "$TEST_C" 2>&1
        return $?
    fi
    # Pytest's exit 5 is "nothing collected" (every test deselected): no failure.
    MYMODULE_SANITIZER_TOOL=$tool MYMODULE_TEST_SHARD=$shard MYMODULE_TEST_QUICK=1 MYMODULE_NO_POOL=1 \
    MYMODULE_HOST_WORKERS=$workers MYMODULE_SKIP_MEMORY_CHECK=$skip_memory_check timeout "$SAN_TIMEOUT" \
        "$SANITIZER" --tool "$tool" "${extra[@]}" --show-backtrace "$SAN_BACKTRACE" \
        --error-exitcode 1 --target-processes all $SAN_API_ERRORS \
        "$PYTHON" -m pytest -q -p no:cacheprovider -rs "$target" "${args[@]}" 2>&1
    local rc=$?
    [ $rc = 5 ] && rc=0
    return $rc
}

# Whether a failed attempt (its output in $1) is the checker's own failure
# alone: it says "Internal error" (memcheck, once in a grid of 101 pairs, with
# eight Python threads) or "couldn't find exit code" (racecheck, once, losing
# one of the worker processes a Dask cluster ends), every test passed, and it
# reported nothing about the program (no invalid access, uninitialized read,
# hazard, barrier error or leak). Or the checker died of a segfault (exit 139)
# before the program printed anything: its banner alone (twice in two sessions'
# grids, at 1 s, with sixteen checkers starting at once; the same pairs passed
# on every rerun). Such a pair runs once more; both attempts stay in the log,
# and the run's summary counts them.
checker_failed_alone() {
    if [ "${2:-}" = 139 ] && ! grep -vqE "^=+ COMPUTE-SANITIZER$|Segmentation fault" "$1"; then
        return 0
    fi
    grep -qE "Internal (Sanitizer )?[Ee]rror|couldn't find exit code" "$1" || return 1
    grep -qE "[1-9][0-9]* failed|[0-9]+ errors? in |^FAILED " "$1" && return 1
    ! grep -qE "Invalid __|Uninitialized|Race reported|Barrier error|Leaked [1-9]|Program hit" "$1"
}

# One pair: the checker's output into its own part, then a status line.
run_pair() {
    local index=$1 tool=$2 target=$3 shard=$4 rc=0 started=$SECONDS
    local part=$PARTS/$(printf '%04d' "$index")
    {
        echo "== $tool: $target${shard:+ (shard $shard)}"
        check_once "$tool" "$target" "$shard" > "$part.first"
        rc=$?
        cat "$part.first"
        if [ $rc != 0 ] && [ $rc != 124 ] && checker_failed_alone "$part.first" $rc; then
            echo "   (the checker failed on its own, above: once more)"
            check_once "$tool" "$target" "$shard"
            rc=$?
            [ $rc = 0 ] && echo "   (second attempt ok)"
        fi
        rm -f "$part.first"
        case $rc in
            0) echo "   ok ($((SECONDS - started)) s)" ;;
            124) echo "   FAILED: over ${SAN_TIMEOUT} s" ;;
            *) echo "   FAILED (exit $rc, $((SECONDS - started)) s)" ;;
        esac
    } > "$part" 2>&1
    # The summary line of this pair, as it finishes.
    echo "$tool $target${shard:+ [$shard]}: $(grep -E ' (passed|failed)' "$part" | grep -v SUMMARY | tail -n 1 | tr -d '=')" \
         "| $(grep -E 'SUMMARY' "$part" | tail -n 1 | sed 's/^=* *//') | $(tail -n 1 "$part" | sed 's/^ *//')"
}
export -f run_pair check_once checker_failed_alone pipeline_workers
export PARTS SANITIZER SAN_API_ERRORS SAN_TIMEOUT SAN_SHARDS SAN_RACECHECK_KERNELS SAN_BACKTRACE skip_memory_check TEST_C PYTHON

printf '%s\0' "$@" > "$PARTS/pytest-args"
[ $# -gt 0 ] || : > "$PARTS/pytest-args"
# Every pair with its index (its place in the log: tool, then file), started
# largest file first, so the longest pairs do not begin last and leave the other
# cores idle at the end (a file's size stands in for its checker time).
index=0
{
    for tool in $TOOLS; do
        if [ "$TEST_C" != - ]; then  # "-": pytest files only
            printf '%s\t%s\t%s\t%s\t%s\n' "$(stat -c %s tests/test.c)" "$index" "$tool" tests/test.c ""
            index=$((index + 1))
        fi
        for target in $FILES; do
            for ((s = 0; s < SAN_SHARDS; s++)); do
                printf '%s\t%s\t%s\t%s\t%s\n' "$(( $(stat -c %s "$target") / SAN_SHARDS ))" "$index" "$tool" "$target" \
                    "$( [ "$SAN_SHARDS" -gt 1 ] && echo "$s/$SAN_SHARDS")"
                index=$((index + 1))
            done
        done
    done
} | sort -t "$(printf '\t')" -k1,1nr -k2,2n | cut -f2- | tr '\t\n' '\0\0' \
  | xargs -0 -n 4 -P "$JOBS" bash -c 'run_pair "$@"' _ 2>&1 | sed 's/^/  /'

mkdir -p "$(dirname "$LOG")"
cat "$PARTS"/[0-9]* > "$LOG"
# A pair failed when its own status line (the last of its part) says so.
failed=0
for part in "$PARTS"/[0-9]*; do
    if tail -n 1 "$part" | grep -q "^   FAILED"; then
        echo "failed: $(head -n 1 "$part" | sed 's/^== //')"
        failed=1
    fi
done
rm -rf "$PARTS"
echo "log: $LOG"
echo "pairs run twice, the checker having failed on its own: $(grep -c 'failed on its own, above' "$LOG")"
grep -E "SUMMARY" "$LOG" | sed "s/^=* *//" | sort | uniq -c
exit $failed
