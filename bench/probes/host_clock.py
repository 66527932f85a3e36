"""The probes' host-clock timer: microseconds a call, the median of five loops of n
calls; with `sync`, the device is synchronised before the first loop and after each
(device time of a queue of calls), without it the loops time the host alone."""
import time


def per_call_us(fn, n, sync=None):
    fn()
    if sync is not None:
        sync()
    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if sync is not None:
            sync()
        runs.append((time.perf_counter() - t0) / n)
    return sorted(runs)[2] * 1e6
