"""Probe (session 35): the n = 1 kernels as the GPU runs them, for ncu. Runs the
library's add of one element and the bare extension's adds (n1_bound.cu) a few
times each, with a wait after each, so that `ncu --metrics gpu__time_duration.sum`
reports how long each kernel itself ran. Run from bench/probes with the repository
on PYTHONPATH and n1_bound built beside this file."""
import numpy as np

import myModule as mm
import n1_bound

rng = np.random.default_rng(0)
x, y = mm.to_device(rng.standard_normal(1)), mm.to_device(rng.standard_normal(1))
o = mm.empty_like(x)
at = [v.__cuda_array_interface__["data"][0] for v in (x, y, o)]
mm.synchronize()
for _ in range(20):
    mm.add(x, y)
    mm.synchronize()
    n1_bound.add()
    n1_bound.sync()
    n1_bound.add_pdl()
    n1_bound.sync()
    n1_bound.add_pdl_at(*at)
    n1_bound.sync()
    n1_bound.empty()
    n1_bound.sync()
