"""Probe: where the per-call time of a tiny GPU operation goes (host clock,
median of repeats). bench/NOTES.md records the outcome."""
import time

import numpy as np

import myModule as mm


def per_call(fn, n=20000):
    fn()
    best = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best.append((time.perf_counter() - t0) / n)
    return sorted(best)[2] * 1e6


d = mm.to_device(np.ones(1))
big = mm.to_device(np.ones(10**6))
mm.synchronize()
rows = [
    ("python call of a C function (_memory_stats)", lambda: mm._memory_stats()),
    ("synchronize() with nothing queued", mm.synchronize),
    ("add(d, d) n=1, no sync (host overhead)", lambda: mm.add(d, d)),
    ("d + d n=1, no sync", lambda: d + d),
    ("add(d, d) n=1 + synchronize()", lambda: (mm.add(d, d), mm.synchronize())),
    ("add(big, big) n=1e6, no sync", lambda: mm.add(big, big)),
    ("sum(d) n=1 -> scalar", lambda: mm.sum(d)),
]
try:
    import cupy as cp
    c = cp.ones(1)
    s = cp.cuda.get_current_stream()
    rows += [("cupy.add n=1, no sync", lambda: cp.add(c, c)),
             ("cupy.add n=1 + stream sync", lambda: (cp.add(c, c), s.synchronize()))]
except ImportError:
    pass
for name, fn in rows:
    print("%-48s %8.2f us" % (name, per_call(fn, 5000)))
