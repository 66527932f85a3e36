"""Which state of a process slows the host rows of 1e9 elements: in session 34 (H200)
add of two NumPy float64 arrays into a pinned out= took 317-319 ms in a fresh bench
process holding only those rows, and 318-369 ms (its staging memcpy slower) in the whole
make bench, minutes later on the same host. One process here: the add and the sum timed
fresh, then again after each of the kinds of work the bench's earlier rows do, with the
process's locked memory, resident size and thread count beside each.

    python3 bench/probes/host_state.py [n]
"""
import statistics
import sys
import time

import numpy as np


def status():
    keep = {}
    with open("/proc/self/status") as f:
        for line in f:
            key = line.split(":")[0]
            if key in ("VmLck", "VmRSS", "Threads"):
                keep[key] = line.split(":")[1].strip()
    return ", ".join("%s %s" % kv for kv in keep.items())


def timed(call, repeats=5):
    call()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return "median %6.1f ms (%.1f-%.1f)" % (statistics.median(times) * 1e3, min(times) * 1e3, max(times) * 1e3)


def main(n):
    import myModule as mm
    a = np.arange(n, dtype=np.float64)
    b = np.full(n, 0.5)
    out = mm.add(a, b, device="cuda")

    def report(phase):
        print("%-44s add %s; sum %s; %s" % (phase, timed(lambda: mm.add(a, b, out=out, device="cuda")),
                                           timed(lambda: mm.sum(a, device="cuda")), status()), flush=True)

    report("fresh")
    import cupy as cp
    import torch
    x, y = cp.random.random(1 << 26), cp.random.random(1 << 26)
    for _ in range(50):
        cp.add(x, y)
    tx, ty = torch.rand(1 << 26, device="cuda", dtype=torch.float64), torch.rand(1 << 26, device="cuda",
                                                                                  dtype=torch.float64)
    for _ in range(50):
        torch.add(tx, ty)
    torch.cuda.synchronize()
    report("CuPy and PyTorch loaded, device work")
    h = np.random.default_rng(0).random(10**8)
    for _ in range(20):
        mm.add(h, h, device="cuda")
    h7 = h[:10**7].copy()
    for _ in range(100):
        mm.add(h7, h7, device="cuda")
    report("myModule host adds 1e8 x20, 1e7 x100")
    for _ in range(10):
        cp.add(cp.asarray(h), cp.asarray(h)).get()
        torch.add(torch.from_numpy(h).cuda(), torch.from_numpy(h).cuda()).cpu().numpy()
    report("CuPy and PyTorch host adds 1e8 x10")
    keep = [mm.to_device(h) for _ in range(20)]
    mm.synchronize()
    report("20 device arrays of 1e8 held")
    del keep
    big = [np.random.default_rng(k).random(10**8) for k in range(8)]
    del big
    report("8 NumPy arrays of 1e8 made and freed")


if __name__ == "__main__":
    main(int(float(sys.argv[1])) if len(sys.argv) > 1 else 10**9)
