"""Whether the host rows of 1e9 elements depend on the inputs' page size: the same add
(NumPy in, pinned out=, device='cuda') and sum, on inputs made with transparent huge
pages allowed and with them refused (prctl PR_SET_THP_DISABLE while the arrays are
made), in turn, in one process. Prints each setting's huge-page share of the inputs
and the median and range of its calls.

    python3 bench/probes/host_pages.py [n] [rounds]
"""
import ctypes
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from multi_gpu_rows import huge_page_share  # noqa: E402

PR_SET_THP_DISABLE = 41


def make_inputs(n, huge):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_THP_DISABLE, 0 if huge else 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_THP_DISABLE)")
    try:
        a = np.arange(n, dtype=np.float64)
        b = np.full(n, 0.5)
    finally:
        libc.prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0)
    return a, b


def timed(call, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return times


def main(n, rounds):
    import myModule as mm
    out = None
    for setting in ["huge", "small"] * rounds:
        a, b = make_inputs(n, setting == "huge")
        if out is None:
            out = mm.add(a, b, device="cuda")
        share = huge_page_share([a, b])
        for name, call in (("add", lambda: mm.add(a, b, out=out, device="cuda")),
                           ("sum", lambda: mm.sum(a, device="cuda"))):
            call()
            t = timed(call, 5)
            print("%-5s pages, huge share %5.1f%%: %s median %7.1f ms, range %.1f-%.1f"
                  % (setting, 100 * share, name, statistics.median(t) * 1e3, min(t) * 1e3, max(t) * 1e3),
                  flush=True)
        del a, b


if __name__ == "__main__":
    main(int(float(sys.argv[1])) if len(sys.argv) > 1 else 10**9,
         int(sys.argv[2]) if len(sys.argv) > 2 else 2)
