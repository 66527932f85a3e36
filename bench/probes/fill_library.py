"""Probe (session 39): the library's fills of 1e8 float64 as make bench times them
(a loop of calls, one synchronize after it), against the same kernels' shapes in
fill_variants.cu, where a 16-byte store a thread wrote 800 MB in 172.8 us and the
library's zeros through that kernel took 236 us in make bench (arange 236 us too).
Rows: a new array each call (zeros, ones, arange, full) and fill() into one array
kept. Run once as is and once with MYMODULE_NO_OVERLAP=1 (launches without
programmatic dependent launch) to see whether the overlap costs the write-only
kernels their bandwidth:

    python3 bench/probes/fill_library.py; MYMODULE_NO_OVERLAP=1 python3 bench/probes/fill_library.py

Session 39 on an H200: 236-237 us for every row, 238-240 without the overlap; with
write_packed at 4 packs a thread, 172.2-173.2 us (bench/NOTES.md).
"""
import os
import statistics
import time

import myModule as mm

N = 10**8
CALLS = 40


def per_call_us(fn):
    fn()
    mm.synchronize()
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(CALLS):
            fn()
        mm.synchronize()
        times.append((time.perf_counter() - t0) / CALLS * 1e6)
    return statistics.median(times), min(times)


def main():
    kept = mm.empty(N)
    rows = [
        ("zeros(N)", lambda: mm.zeros(N)),
        ("ones(N)", lambda: mm.ones(N)),
        ("full(N, 2.5)", lambda: mm.full(N, 2.5)),
        ("arange(N) float64", lambda: mm.arange(N, dtype="float64")),
        ("kept.fill(0.0)", lambda: kept.fill(0.0)),
        ("kept.fill(1.0)", lambda: kept.fill(1.0)),
        ("empty(N)", lambda: mm.empty(N)),
    ]
    tag = "NO_OVERLAP=%s" % os.environ.get("MYMODULE_NO_OVERLAP", "")
    for r in range(2):
        for name, fn in rows:
            med, best = per_call_us(fn)
            print("%-14s round %d %-20s %7.1f us (best %7.1f) %5.2f TB/s"
                  % (tag, r, name, med, best, N * 8 / med / 1e6))


if __name__ == "__main__":
    main()
