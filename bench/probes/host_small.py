"""Probe (issue 25): where `add(a, b, device='auto')` of two NumPy arrays of 1000
float64 spends the time beyond NumPy's own add, which it calls (host clock, median
of five loops; three rounds in turn, so a drifting host shows as spread).
bench/NOTES.md records the outcome."""
import itertools

import numpy as np

import myModule as mm
from host_clock import per_call_us


rng = np.random.default_rng(0)
sets = [(rng.standard_normal(1000), rng.standard_normal(1000)) for _ in range(8)]
cycle = itertools.cycle(sets)
a0, b0 = sets[0]
rows = [
    ("np.add(a, b), one set", lambda: np.add(a0, b0)),
    ("mm.add(a, b), one set (device default)", lambda: mm.add(a0, b0)),
    ("mm.add(a, b, device='auto'), one set", lambda: mm.add(a0, b0, device="auto")),
    ("mm.add(a, b, device='cpu'), one set", lambda: mm.add(a0, b0, device="cpu")),
    ("np.add over 8 sets (the bench's rotation)", lambda: np.add(*next(cycle))),
    ("mm.add(device='auto') over 8 sets", lambda: mm.add(*next(cycle), device="auto")),
    ("np.add(a, b, out=o), one set", lambda: np.add(a0, b0, out=o)),
    ("mm._memory_stats() (a C call)", lambda: mm._memory_stats()),
]
o = np.empty(1000)
for r in range(3):
    for name, fn in rows:
        print("round %d  %-48s %8.3f us" % (r, name, per_call_us(fn, 20000)))
