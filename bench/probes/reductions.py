"""Probe: the device reductions of issue 11 against CuPy, each timed as a
back-to-back loop of calls with one device-wide sync after it (median of 5
loops; each library queues on its own stream), so host overheads show only where
they exceed the kernel.
With --ncu-once it runs each call once, for `ncu` to time the kernels alone:
    python3 bench/probes/reductions.py
    ncu --clock-control none --metrics gpu__time_duration.sum \\
        python3 bench/probes/reductions.py --ncu-once
"""
import sys
import time

import numpy as np

import myModule as mm

try:
    import cupy as cp
except ImportError:
    cp = None

SIDE = 10_000
N = 10 ** 8


def loop_us(fn, reps=30):
    sync = cp.cuda.Device().synchronize
    fn()
    sync()
    runs = []
    for _ in range(5):
        sync()
        t0 = time.perf_counter()
        for _ in range(reps):
            r = fn()
        sync()
        runs.append((time.perf_counter() - t0) * 1e6 / reps)
        del r
    return sorted(runs)[2]


def main():
    rng = np.random.default_rng(0)
    host_m = rng.random((SIDE, SIDE))
    host_v = rng.random(N)
    cases = [
        ("sum(axis=1)", lambda L, m, v: L.sum(m, axis=1)),
        ("mean(axis=1)", lambda L, m, v: L.mean(m, axis=1)),
        ("sum(axis=0)", lambda L, m, v: L.sum(m, axis=0)),
        ("max()", lambda L, m, v: L.max(m)),
        ("sum() 2-d", lambda L, m, v: L.sum(m)),
        ("sum(v) 1e8", lambda L, m, v: L.sum(v)),
        ("max(v) 1e8", lambda L, m, v: L.max(v)),
    ]
    libs = [("myModule", mm, mm.asarray(host_m), mm.asarray(host_v))]
    if cp is not None:
        libs.append(("CuPy", cp, cp.asarray(host_m), cp.asarray(host_v)))
    if "--ncu-once" in sys.argv:
        for title, call in cases:
            for label, L, m, v in libs:
                call(L, m, v)
        cp.cuda.Device().synchronize()
        return
    print("%-14s %10s %10s %8s" % ("case", "myModule", "CuPy", "ratio"))
    for title, call in cases:
        t = {label: loop_us(lambda: call(L, m, v)) for label, L, m, v in libs}
        mine, theirs = t["myModule"], t.get("CuPy", float("nan"))
        print("%-14s %8.1f us %8.1f us %7.3fx" % (title, mine, theirs, mine / theirs))


if __name__ == "__main__":
    main()
