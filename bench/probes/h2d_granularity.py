"""Probe (session 27): what the size of each pinned host-to-device copy costs the link.

The host pipeline moves 1e9 float64 in 2-4 MiB copies from a ring of pinned staging
buffers, one stream a worker; the bench's bound moves the same bytes in 1 GiB copies on
one stream. This times the copies alone (no staging memcpy, no kernels), CuPy's runtime
calls, wall clock around issue + synchronize, median of rounds:
  - `total` bytes up in copies of `size`, dealt over `streams` streams, each copy from
    the next piece of a ring of `ring` bytes of pinned memory (the staging ring), into
    the next piece of a device ring of the same size;
  - each case again as "+down": `total / 2` bytes down at the same time on one more
    stream (add's result), in the same pieces.
Run: python3 bench/probes/h2d_granularity.py [--total-gb 8] [--rounds 5]
"""
import argparse
import statistics
import time

import cupy as cp

MIB = 1 << 20


def timed(total, size, streams, ring, down, bufs, rounds):
    rt = cp.cuda.runtime
    host, dev, host_down, dev_down = bufs
    ss = [cp.cuda.Stream(non_blocking=True) for _ in range(streams)]
    s_down = cp.cuda.Stream(non_blocking=True)
    pieces = max(1, ring // size)
    count = total // size
    times = []
    for _ in range(rounds + 1):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        for i in range(count):
            off = (i % pieces) * size
            rt.memcpyAsync(dev.ptr + off, host.ptr + off, size, rt.memcpyHostToDevice,
                           ss[i % streams].ptr)
            if down and i % 2 == 0:
                rt.memcpyAsync(host_down.ptr + off, dev_down.ptr + off, size,
                               rt.memcpyDeviceToHost, s_down.ptr)
        for s in ss:
            s.synchronize()
        s_down.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times[1:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--total-gb", type=float, default=8.0)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    total = int(args.total_gb * 1e9) // (16 * MIB) * (16 * MIB)
    big = 1 << 30
    host = cp.cuda.alloc_pinned_memory(big)
    host_down = cp.cuda.alloc_pinned_memory(big)
    dev = cp.cuda.alloc(big)
    dev_down = cp.cuda.alloc(big)
    bufs = (host, dev, host_down, dev_down)
    cases = [("1 GiB, 1 stream (the bound's way)", big, 1, big),
             ("256 MiB, 8 streams, 1 GiB ring", 256 * MIB, 8, big),
             ("64 MiB, 8 streams, 1 GiB ring", 64 * MIB, 8, big),
             ("64 MiB, 8 streams, 128 MiB ring", 64 * MIB, 8, 128 * MIB),
             ("16 MiB, 8 streams, 1 GiB ring", 16 * MIB, 8, big),
             ("16 MiB, 8 streams, 256 MiB ring", 16 * MIB, 8, 256 * MIB),
             ("8 MiB, 8 streams, 128 MiB ring", 8 * MIB, 8, 128 * MIB),
             ("4 MiB, 8 streams, 1 GiB ring", 4 * MIB, 8, big),
             ("4 MiB, 8 streams, 64 MiB ring (sum's chunks)", 4 * MIB, 8, 64 * MIB),
             ("2 MiB, 8 streams, 64 MiB ring (add's chunks)", 2 * MIB, 8, 64 * MIB)]
    print("%s, %.2f GB up per call" % (cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                                       total / 1e9))
    for down in (False, True):
        for name, size, streams, ring in cases:
            t = timed(total, size, streams, ring, down, bufs, args.rounds)
            print("%-48s %s %8.1f ms %6.1f GB/s up" % (name, "+down" if down else "     ",
                                                       t * 1e3, total / t / 1e9))


if __name__ == "__main__":
    main()
