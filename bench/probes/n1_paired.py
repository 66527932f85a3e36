"""Probe (session 32; the bound rows, session 35): the small rows against the C floors
timed in the same process, round for round. bench/probes/launch_floor.cu built as a shared library (argv[1])
times a round of empty kernel + cudaStreamSynchronize (the n = 1 rows' floor) or of
kernel + 8-byte copy back + wait (the floor of a result returned as a Python float)
in C; between its rounds the Python rows run rounds of the same length, as
bench/run.py times them (a loop of call + synchronize() over rotating inputs, or of
float(sum(x))). Prints each row's median and its median ratio to the floor rounds
beside it. Where n1_bound.cu is built beside it, it also times the least a Python
library pays for the row (a bare extension's one-element add + wait) and the steps
between that and the library's row. Run from bench/probes with the repository on
PYTHONPATH."""
import ctypes
import statistics
import sys
import time

import numpy as np

import myModule as mm

# N1_CALLS (session 37): calls a round; make bench's rounds of these rows are 400-520 calls
# long (5 ms), this probe's 2000.
ROUNDS, CALLS = 21, int(__import__("os").environ.get("N1_CALLS", "2000"))

# N1_WITH_PEERS=1 (session 36): CuPy and PyTorch imported and used on the GPU first, as in
# make bench's process, where the rows read higher than in this probe alone.
if __import__("os").environ.get("N1_WITH_PEERS") == "1":
    import cupy
    import torch
    cupy.add(cupy.ones(1000), cupy.ones(1000)).get()
    (torch.ones(1000, device="cuda") + 1).cpu()
    torch.cuda.synchronize()
    cupy.cuda.Device().synchronize()

# N1_FILL_CACHE=1 (session 37): the host-side cache of small blocks first filled with blocks
# of 4200 other size classes (arrays made and dropped), as a long run of varied sizes leaves it.
if __import__("os").environ.get("N1_FILL_CACHE") == "1":
    filler = [mm.empty((k + 2) * 64) for k in range(4200)]
    del filler
    mm.synchronize()

floor = ctypes.CDLL(sys.argv[1])
floor.launch_floor_round.restype = ctypes.c_double
floor.launch_floor_round.argtypes = [ctypes.c_int, ctypes.c_int]

rng = np.random.default_rng(0)
sets = [(mm.to_device(rng.standard_normal(1)), mm.to_device(rng.standard_normal(1))) for _ in range(8)]
out = mm.to_device(np.zeros(1))
thousand = [mm.to_device(rng.standard_normal(1000)) for _ in range(8)]
mm.synchronize()
add, sync = mm.add, mm.synchronize


def rotating(fn):
    it = __import__("itertools").cycle(sets)
    return lambda: fn(*next(it))


def python_round(fn, wait):
    t0 = time.perf_counter()
    if wait is not None:
        for _ in range(CALLS):
            fn()
            wait()
    else:  # the call waits itself (a result returned to the host)
        for _ in range(CALLS):
            fn()
    return (time.perf_counter() - t0) / CALLS


def sum_to_float():
    it = __import__("itertools").cycle(thousand)
    return lambda: float(mm.sum(next(it)))


# (name, call, the floor it is held to: 0 launch + wait, 1 kernel + 8-byte copy back +
# wait; the wait after each call, None where the call waits itself)
rows = [
    ("add(x, y) + synchronize(), rotating (the bench row)", rotating(add), 0, sync),
    ("subtract(x, y) + synchronize(), rotating", rotating(mm.subtract), 0, sync),
    # a keyword sends the same call down the general path (session 36's positional one)
    ("add(x, y, device=None) + synchronize(), rotating", rotating(lambda x, y: add(x, y, device=None)), 0, sync),
    ("add(x, y, out=o) + synchronize(), rotating", rotating(lambda x, y: add(x, y, out=out)), 0, sync),
    ("synchronize() alone, nothing queued", lambda: None, 0, sync),
    ("float(sum(x)) n = 1000, rotating (no synchronize(): it waits)", sum_to_float(), 1, None),
]
try:  # the bound of any Python library's n = 1 row (n1_bound.cu, built beside this file)
    import n1_bound
except ImportError:
    n1_bound = None
if n1_bound is not None:
    fixed_x, fixed_y = sets[0]
    outs = [mm.empty_like(x) for x, _ in sets]  # kept alive with their addresses
    addresses = [tuple(v.__cuda_array_interface__["data"][0] for v in (x, y, o))
                 for (x, y), o in zip(sets, outs)]
    cycled_addresses = __import__("itertools").cycle(addresses)
    bare, bare_sync = n1_bound, n1_bound.sync
    rows += [
        ("bound: bare add() + bare sync()", bare.add, 0, bare_sync),
        ("bound: bare add2(x, y) rotating + bare sync()", rotating(bare.add2), 0, bare_sync),
        ("bound: bare add256() + bare sync()", bare.add256, 0, bare_sync),
        ("bound: bare add_pdl() (256, PDL) + bare sync()", bare.add_pdl, 0, bare_sync),
        ("bound: bare add_pdl_big() (88-byte parameters) + bare sync()", bare.add_pdl_big, 0, bare_sync),
        ("bound: bare add_pdl_pool() (pool memory) + bare sync()", bare.add_pdl_pool, 0, bare_sync),
        ("bound: bare add_pdl_at(myModule's arrays) rotating + bare sync()",
         lambda: bare.add_pdl_at(*next(cycled_addresses)), 0, bare_sync),
        ("bound: bare add_pdl_new(myModule's x, y) rotating, a new result + bare sync()",
         lambda: bare.add_pdl_new(*next(cycled_addresses)[:2]), 0, bare_sync),
        ("bound: bare empty() + bare sync()", bare.empty, 0, bare_sync),
        # the same wait for both streams: cudaDeviceSynchronize from the bare extension
        ("bound: bare add2(x, y) rotating + bare dsync()", rotating(bare.add2), 0, bare.dsync),
        ("mixed: add(x, y) rotating + bare dsync()", rotating(add), 0, bare.dsync),
        ("add(x, y) on one set + synchronize()", lambda: add(fixed_x, fixed_y), 0, sync),
    ]
for _, fn, _, wait in rows:  # warm-up
    python_round(fn, wait)
if floor.launch_floor_round(0, CALLS) < 0 or floor.launch_floor_round(1, CALLS) < 0:
    sys.exit("the floor failed")

# per row: [floor, row, floor, row, ..., floor], the floor rounds of the row's kind
series = {name: [] for name, _, _, _ in rows}
for r in range(ROUNDS):
    for name, fn, kind, wait in rows:
        series[name].append(floor.launch_floor_round(kind, CALLS))
        series[name].append(python_round(fn, wait))
for name, _, kind, _ in rows:
    series[name].append(floor.launch_floor_round(kind, CALLS))
for kind, what in ((0, "launch + wait"), (1, "kernel + 8-byte copy back + wait")):
    floors = [f for name, _, k, _ in rows if k == kind for f in series[name][0::2]]
    print("C floor (%s) in this process: median %.2f us, min %.2f, max %.2f over %d rounds of %d calls"
          % (what, statistics.median(floors) * 1e6, min(floors) * 1e6, max(floors) * 1e6, len(floors), CALLS))
for name, _, _, _ in rows:
    floors, t = series[name][0::2], series[name][1::2]
    # each row round against the mean of the floor rounds on either side of it
    beside = [(floors[r] + floors[r + 1]) / 2 for r in range(ROUNDS)]
    ratios = [a / b for a, b in zip(t, beside)]
    print("%-52s median %6.2f us  ratio to the floor beside it: median %.3f (min %.3f, max %.3f)"
          % (name, statistics.median(t) * 1e6, statistics.median(ratios), min(ratios), max(ratios)))
# The bare launch API alone, host clock around it, as n1_stamps2.diff times the
# library's launcher with its launch.
if n1_bound is not None:
    bare_at = next(row for row in rows if row[0].startswith("bound: bare add_pdl_at"))
    n1_bound.launch_times(True)
    per_round = []
    for _ in range(5):
        python_round(bare_at[1], bare_at[3])
        count, ns = n1_bound.launch_times(True)
        per_round.append(ns / count / 1e3)
    n1_bound.launch_times(False)
    print("bare cudaLaunchKernelEx (PDL) at myModule's arrays, host clock around it: mean per round %s us"
          % " / ".join("%.2f" % t for t in per_round))
