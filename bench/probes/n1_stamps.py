"""Probe (session 33): where an n = 1 add + synchronize() spends its time, read off the
CPU's time-stamp counter at fixed points of the call, with the extension built from
bench/probes/n1_stamps.diff applied (never landed: the counters cost a store each).
Points: 0 entry of the Python function, 1 arguments parsed, 2 dtypes decided,
3 operands and shape checked, 4 result allocated and planned, 5 the library's call
returned (launch queued), 6 the function's return, 7 synchronize() entered, 8 the wait
returned, 9 synchronize()'s return. Prints the median of each interval over the calls,
and the C floor (argv[1], launch_floor.cu built as a library) in the same process.
Session 35: with n1_stamps2.diff (16 points) also the result's object and its memory,
and the library's checks, device and stream, launcher and launch. Session 36: with
n1_stamps3.diff applied on top, the launch apart from the launcher.
Run from bench/probes with the patched repository on PYTHONPATH."""
import ctypes
import itertools
import statistics
import sys
import time

import numpy as np

import myModule as mm

core = mm._core
CALLS = 20000


def tsc_per_ns():
    t0, c0 = time.perf_counter_ns(), core._rdtsc()
    time.sleep(0.3)
    t1, c1 = time.perf_counter_ns(), core._rdtsc()
    return (c1 - c0) / (t1 - t0)


floor = ctypes.CDLL(sys.argv[1])
floor.launch_floor_round.restype = ctypes.c_double
floor.launch_floor_round.argtypes = [ctypes.c_int, ctypes.c_int]
rate = tsc_per_ns()
rng = np.random.default_rng(0)
sets = [(mm.to_device(rng.standard_normal(1)), mm.to_device(rng.standard_normal(1))) for _ in range(8)]
out = mm.to_device(np.zeros(1))
sync = mm.synchronize
names = ["parse", "dtypes", "operands", "alloc+plan", "library+launch", "return", "python to sync",
         "wait", "sweep", "sync return to next call"]


def run(label, fn):
    it = itertools.cycle(sets)
    call = lambda: fn(*next(it))  # noqa: E731 (the bench's rotating())
    for _ in range(2000):
        call()
        sync()
    f0 = floor.launch_floor_round(0, CALLS)
    _, first = core._stamps()
    t0 = time.perf_counter()
    for _ in range(CALLS):
        call()
        sync()
    per_call = (time.perf_counter() - t0) / CALLS
    f1 = floor.launch_floor_round(0, CALLS)
    raw, last = core._stamps()
    points = len(raw) // 8 // (1 << 16)  # 10 (n1_stamps.diff) or 16 (n1_stamps2.diff)
    rows = np.frombuffer(raw, dtype=np.uint64).reshape(-1, points)
    idx = np.arange(first + 1, last + 1) % rows.shape[0]
    s = rows[idx].astype(np.int64)
    if points == 16:  # inside 3 -> 4 and 4 -> 5: the result's object and memory, the library's checks
        allocated = s[:, 10] > s[:, 0]  # points 10 and 11 are stamped only by a call that allocates
        # n1_stamps3.diff on top: 14 and 15 on either side of cudaLaunchKernelEx in launch_kernel
        # (one launch a call at n = 1: the packed launch needs two elements)
        launched = s[:, 14] > s[:, 0]
        split = ((13, 14, "  launcher before the launch", launched), (14, 15, "  cudaLaunchKernelEx", launched),
                 (15, 5, "  after the launch", launched))
        for a, b, what, where in ((3, 10, "result object", allocated), (10, 11, "va_malloc", allocated),
                                  (11, 4, "views + plan", allocated), (4, 12, "library: plan checked", None),
                                  (12, 13, "library: device + stream", None),
                                  (13, 5, "library: launcher + launch", None)) + split:
            d = s[:, b] - s[:, a] if where is None else (s[:, b] - s[:, a])[where]
            shown = "%7.3f us" % (np.median(d) / rate / 1e3) if d.size else "(no allocation)"
            print("   %-28s %s" % (what, shown))
        s = s[:, :10]
    d = np.diff(s, axis=1)  # 0->1 ... 8->9
    gap = s[1:, 0] - s[:-1, 9]  # 9 -> next call's 0
    parts = [np.median(d[:, k]) / rate for k in range(9)] + [np.median(gap) / rate]
    whole = np.median(s[1:, 0] - s[:-1, 0]) / rate
    floor_us = (f0 + f1) / 2 * 1e6
    print("%s: %.2f us a call (stamps: median %.2f us between entries); C floor beside it %.2f us; ratio %.3f"
          % (label, per_call * 1e6, whole / 1e3, floor_us, per_call * 1e6 / floor_us))
    per = (s[1:, 0] - s[:-1, 0]) / rate / 1e3
    slow = per > 2 * np.median(per)
    print("   per call (us): p10 %.2f p50 %.2f p90 %.2f p99 %.2f mean %.2f; calls over twice the median: %d,"
          " %.1f%% of the time" % (*np.percentile(per, [10, 50, 90, 99]), per.mean(), slow.sum(),
                                   100 * per[slow].sum() / per.sum()))
    if slow.any():  # where the slow calls spent it, against the others
        for k, n in enumerate(names[:9]):
            print("      slow calls' %-26s median %7.3f us (others %7.3f)"
                  % (n, np.median(d[:-1][slow, k]) / rate / 1e3, np.median(d[:-1][~slow, k]) / rate / 1e3))
    for n, p in zip(names, parts):
        print("   %-28s %7.3f us" % (n, p / 1e3))
    pre = sum(parts[k] for k in (9, 0, 1, 2, 3)) / 1e3
    print("   sync return -> library call: %.3f us; library call -> wait returned: %.3f us" %
          (pre, (parts[4] + parts[5] + parts[6] + parts[7]) / 1e3))


print("TSC %.3f GHz" % rate)
for rnd in range(3):
    run("add(x, y) + synchronize()", mm.add)
    run("add(x, y, out=o) + synchronize()", lambda x, y: mm.add(x, y, out=out))
