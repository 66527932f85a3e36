"""The first call of each dtype part's CUDA module, in one fresh process: add of two
device arrays of n = 4096 in each dtype in turn, the first call and the median of warm
calls (each followed by synchronize()), so that first - warm is what loading that
dtype's module (vectorAdd/op_types.cuh, type_part) costs, the first one the process's
first kernel. Run it twice to see the order matter:

    python3 bench/probes/part_loads.py float64 int64 uint8 complex128 float32 int32 bool
"""
import statistics
import sys
import time

import numpy as np


def main(names):
    import myModule as mm
    n = 4096
    arrays = {}
    for name in names:
        host = (np.arange(n) % 7).astype(name)
        arrays[name] = (mm.to_device(host), mm.to_device(host[::-1].copy()), host)
    mm.synchronize()
    for name in names:
        a, b, host = arrays[name]
        t0 = time.perf_counter()
        r = mm.add(a, b)
        mm.synchronize()
        first = time.perf_counter() - t0
        warm = []
        for _ in range(20):
            t0 = time.perf_counter()
            mm.add(a, b)
            mm.synchronize()
            warm.append(time.perf_counter() - t0)
        w = statistics.median(warm)
        ok = np.array_equal(r.get(), np.add(host, host[::-1]))
        print("%-11s first %8.3f ms  warm %6.1f us  first - warm %8.3f ms  %s"
              % (name, first * 1e3, w * 1e6, (first - w) * 1e3, "correct" if ok else "WRONG"))


if __name__ == "__main__":
    main(sys.argv[1:] or ["float64", "int64", "uint8", "complex128", "float32", "int32", "bool"])
