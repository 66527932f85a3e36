"""Timing a contender's call: timeit_gpu (work on the GPU), timeit_host (host calls).

Method (the same for every contender within a case):
  * GPU-resident cases: host perf_counter around a loop of `inner` calls followed by
    the contender's own synchronize (myModule.synchronize, CuPy device synchronize,
    torch.cuda.synchronize), divided by `inner`; `inner` is chosen so one repeat lasts
    >= MIN_TIME. "call + synchronize" cases synchronise after every call. (CUDA events
    are not used: myModule queues on its own stream, so an event on CuPy's or torch's
    stream would not bracket its work; a host clock around a synchronised loop is the
    one method that treats all contenders alike.)
  * Host (NumPy in / NumPy out) cases: perf_counter around the full call, median.
  * Rows held to a C floor (c_floor.py) time a round of the floor's calls, in C in this
    process, before each repeat and after the last (`paired`): the row's ratio divides
    by the median of those rounds, taken beside its own.
  * Warm-up excluded; median of repeats; random float64 data (standard normal);
    small inputs rotate among several input sets so that they do not sit in L2.
"""
import gc
import math
import statistics
import time


def noop():
    """The synchronize of a contender with nothing to wait for (host calls)."""


def _calibrate(fn, sync, sync_each, min_time, max_inner):
    """Calls per repeat so that one repeat lasts >= min_time."""
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - t0)
        if best > min_time:
            return 1
    return int(min(max_inner, max(1, math.ceil(min_time / max(best, 1e-7)))))


def timeit_gpu(fn, sync, repeats, inner=None, sync_each=False, min_time=5e-3, max_inner=20000,
               paired=None):
    """Median seconds per call of fn on the GPU: perf_counter around `inner` calls and
    one sync (or a sync after every call when sync_each). Warm-up excluded. paired:
    paired(calls) -> seconds a call of a floor, timed before each repeat and after the
    last; their median is 'paired_floor_s'."""
    fn()
    sync()
    fn()
    sync()
    if inner is None:
        inner = _calibrate(fn, sync, sync_each, min_time, max_inner)
    times, floors = [], []
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            sync()
            if paired is not None:
                floors.append(paired(inner))
            t0 = time.perf_counter()
            if sync_each:
                for _ in range(inner):
                    fn()
                    sync()
            else:
                for _ in range(inner):
                    fn()
                sync()
            times.append((time.perf_counter() - t0) / inner)
        if paired is not None:
            floors.append(paired(inner))
    finally:
        gc.enable()
    res = {"median_s": statistics.median(times), "min_s": min(times), "times_s": times,
           "inner": inner, "repeats": repeats, "method": "host clock, sync %s" %
           ("after every call" if sync_each else "after the loop")}
    if floors:
        res.update(paired_floor_s=statistics.median(floors), paired_floor_times_s=floors)
    return res


def timeit_host(fn, repeats, inner=None, min_time=5e-3, max_inner=20000):
    """Median seconds per call of a synchronous host call (perf_counter around the full
    call). Tiny calls are looped so one repeat lasts >= min_time. Warm-up excluded."""
    fn()
    if inner is None:
        inner = _calibrate(fn, noop, False, min_time, max_inner)
    times = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            times.append((time.perf_counter() - t0) / inner)
    finally:
        gc.enable()
    return {"median_s": statistics.median(times), "min_s": min(times), "times_s": times,
            "inner": inner, "repeats": repeats, "method": "host clock around the call"}
