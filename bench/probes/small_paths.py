"""Probe: where the time of three missed rows goes (host clock, median of five
repeats; same data, same process, CuPy and PyTorch beside):
  - sum -> Python float, n = 1000: sum's launch, float()'s read-back, both;
  - trace 4096^2 -> Python float (the same reduction without a 0-d array between);
  - nonzero(x > 2), n = 2^26: the comparison, nonzero of the mask, both.
bench/NOTES.md records the outcome."""
import numpy as np

import myModule as mm
from host_clock import per_call_us


rng = np.random.default_rng(0)
k1 = rng.standard_normal(1000)
sq = rng.standard_normal((4096, 4096))
big = rng.standard_normal(1 << 26) * 1.0
contenders = {"myModule": (mm.to_device, mm.synchronize, mm)}
try:
    import cupy as cp
    contenders["CuPy"] = (cp.asarray, cp.cuda.Device().synchronize, cp)
except ImportError:
    pass
try:
    import torch
    contenders["PyTorch"] = (lambda a: torch.from_numpy(a).cuda(), torch.cuda.synchronize, torch)
except ImportError:
    pass

for name, (up, sync, lib) in contenders.items():
    d1, dsq, dbig = up(k1), up(sq), up(big)
    s0 = lib.sum(d1)
    mask = dbig > 2
    sync()
    scalar = (lambda v: v.item()) if name == "PyTorch" else float
    rows = [
        ("sum(d) n=1000, launch only", lambda: lib.sum(d1), 20000),
        ("float(s) of a 0-d result", lambda: scalar(s0), 20000),
        ("float(sum(d)) n=1000", lambda: scalar(lib.sum(d1)), 20000),
        ("float(trace(d)) 4096^2", lambda: scalar(lib.trace(dsq)), 20000),
        ("x > 2, n=2^26", lambda: dbig > 2, 200),
        ("nonzero(mask), n=2^26", lambda: lib.nonzero(mask), 200),
        ("nonzero(x > 2), n=2^26", lambda: lib.nonzero(dbig > 2), 200),
    ]
    for label, fn, n in rows:
        print("%-8s %-32s %9.2f us" % (name, label, per_call_us(fn, n, sync)), flush=True)
