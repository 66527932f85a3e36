"""Probe: where the per-call time of a tiny GPU operation goes (host clock,
median of repeats). bench/NOTES.md records the outcome."""
import numpy as np

import myModule as mm
from host_clock import per_call_us


rng = np.random.default_rng(0)
d = mm.to_device(np.ones(1))
o = mm.to_device(np.ones(1))
big = mm.to_device(np.ones(10**6))
k1 = mm.to_device(rng.standard_normal(1000))
huge = mm.to_device(rng.standard_normal(10**8))
mm.synchronize()
rows = [
    ("python call of a C function (_memory_stats)", lambda: mm._memory_stats()),
    ("synchronize() with nothing queued", mm.synchronize),
    ("add(d, d) n=1, no sync (host overhead)", lambda: mm.add(d, d)),
    ("d + d n=1, no sync", lambda: d + d),
    ("add(d, d) n=1 + synchronize()", lambda: (mm.add(d, d), mm.synchronize())),
    ("add(d, d, out=o) n=1, no sync (no allocation)", lambda: mm.add(d, d, out=o)),
    ("add(d, d, out=o) n=1 + synchronize()", lambda: (mm.add(d, d, out=o), mm.synchronize())),
    ("empty(1) (an allocation and its free)", lambda: mm.empty(1)),
    ("add(big, big) n=1e6, no sync", lambda: mm.add(big, big)),
    ("sum(d) n=1 -> scalar", lambda: mm.sum(d)),
    ("float(sum(d)) n=1000", lambda: float(mm.sum(k1))),
    ("add(big, big) n=1e6 + synchronize()", lambda: (mm.add(big, big), mm.synchronize())),
    ("sum(huge) n=1e8", lambda: mm.sum(huge)),
]
try:
    import cupy as cp
    c = cp.ones(1)
    s = cp.cuda.get_current_stream()
    cbig = cp.ones(10**6)
    ck1 = cp.asarray(rng.standard_normal(1000))
    chuge = cp.asarray(rng.standard_normal(10**8))
    rows += [("cupy.add n=1, no sync", lambda: cp.add(c, c)),
             ("cupy.add n=1 + stream sync", lambda: (cp.add(c, c), s.synchronize())),
             ("cupy.add n=1e6 + stream sync", lambda: (cp.add(cbig, cbig), s.synchronize())),
             ("float(cupy.sum) n=1000", lambda: float(cp.sum(ck1))),
             ("cupy.sum n=1e8, no sync", lambda: cp.sum(chuge)),
             ("cupy.sum n=1e8 + stream sync", lambda: (cp.sum(chuge), s.synchronize()))]
except ImportError:
    pass
for name, fn in rows:
    print("%-48s %8.2f us" % (name, per_call_us(fn, 200 if "1e8" in name else 5000)))
    mm.synchronize()
