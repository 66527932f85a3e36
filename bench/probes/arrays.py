"""Probe: creation and indexing of DeviceArrays against CuPy (issue 11 targets:
zeros(1e8) <= 1.05x CuPy, arange(1e8) <= 0.5x CuPy, a basic slice d[::2, 1:]
<= 2 us of host time). Device times are per call over a synchronised loop
(median of 5), host times per call without a sync. Run on the GPU machine:
    python3 bench/probes/arrays.py
"""
import numpy as np

import myModule as mm
from host_clock import per_call_us

try:
    import cupy as cp
except ImportError:  # the table still prints our side
    cp = None


def device_time(fn, sync, n=20):
    return per_call_us(fn, n, sync)


def host_time(fn, n=100000):
    return per_call_us(fn, n)


def cp_sync():
    cp.cuda.Device().synchronize()


N = 10**8
rows = [
    ("zeros(1e8) float64", lambda: mm.zeros(N), lambda: cp.zeros(N)),
    ("ones(1e8) float64", lambda: mm.ones(N), lambda: cp.ones(N)),
    ("full(1e8, 2.5)", lambda: mm.full(N, 2.5), lambda: cp.full(N, 2.5)),
    ("arange(1e8) int64", lambda: mm.arange(N), lambda: cp.arange(N)),
    ("arange(1e8) float64", lambda: mm.arange(float(N)), lambda: cp.arange(float(N))),
    ("arange(1e8) float32", lambda: mm.arange(N, dtype=np.float32), lambda: cp.arange(N, dtype=np.float32)),
    ("linspace(0, 1, 1e8)", lambda: mm.linspace(0, 1, N), lambda: cp.linspace(0, 1, N)),
    ("eye(10000)", lambda: mm.eye(10000), lambda: cp.eye(10000)),
]
print("%-26s %12s %12s %8s" % ("device time (us)", "myModule", "CuPy", "ratio"))
for name, ours, theirs in rows:
    t = device_time(ours, mm.synchronize)
    c = device_time(theirs, cp_sync) if cp is not None else float("nan")
    print("%-26s %12.1f %12.1f %8.3f" % (name, t, c, t / c))

d = mm.zeros((1000, 1000))
host = np.zeros((1000, 1000))
idx = mm.asarray(np.arange(0, 10**6, 7))
flat = mm.zeros(10**6)
mask = np.arange(10**6) % 3 == 0
print("\n%-26s %12s %12s %12s" % ("host time (us)", "myModule", "CuPy", "NumPy"))
cd = cp.zeros((1000, 1000)) if cp is not None else None
for name, ours, theirs, numpy_fn in [
    ("d[::2, 1:]", lambda: d[::2, 1:], lambda: cd[::2, 1:], lambda: host[::2, 1:]),
    ("d[3]", lambda: d[3], lambda: cd[3], lambda: host[3]),
    ("d[..., None, ::-1]", lambda: d[..., None, ::-1], lambda: cd[..., None, ::-1], lambda: host[..., None, ::-1]),
    ("d.reshape(-1)", lambda: d.reshape(-1), lambda: cd.reshape(-1), lambda: host.reshape(-1)),
    ("d.T", lambda: d.T, lambda: cd.T, lambda: host.T),
]:
    c = host_time(theirs) if cp is not None else float("nan")
    print("%-26s %12.2f %12.2f %12.2f" % (name, host_time(ours), c, host_time(numpy_fn)))

print("\n%-26s %12s" % ("device time (us)", "myModule"))
print("%-26s %12.1f" % ("gather flat[idx] (142858)", device_time(lambda: flat[idx], mm.synchronize)))
print("%-26s %12.1f" % ("mask flat[host mask]", device_time(lambda: flat[mask], mm.synchronize, n=5)))
