"""python -m myModule: configuration, a self-check against NumPy, and a short
timing table (CPU and, where there is one, the GPU)."""
import sys
import time

import numpy as np

import myModule as mm


def _check(name, got, expected):
    ok = np.array_equal(np.asarray(got), np.asarray(expected), equal_nan=True) and \
        np.asarray(got).dtype == np.asarray(expected).dtype
    print("  %-40s %s" % (name, "ok" if ok else "FAILED"))
    return ok


def self_check():
    """Compare the operations with NumPy on small random inputs, on the CPU and,
    where one is usable, the GPU; print one line per check.

    Returns
    -------
    bool
        True when every check matched NumPy (value and dtype).
    """
    rng = np.random.default_rng(0)
    a = rng.standard_normal(1000)
    b = rng.standard_normal(1000)
    ok = True
    ok &= _check("fib(100)", mm.fib(100) == 354224848179261915075, True)
    ok &= _check("add(3, 3)", mm.add(3, 3), np.add(3, 3))
    ok &= _check("divide(999, 9)", mm.divide(999, 9), np.true_divide(999, 9))
    ok &= _check("trace 3x4", mm.trace(np.arange(12.0).reshape(3, 4)), np.trace(np.arange(12.0).reshape(3, 4)))
    ok &= _check("sum int32", mm.sum(np.arange(1000, dtype=np.int32)), np.sum(np.arange(1000, dtype=np.int32)))
    devices = ["cpu"] + (["cuda"] if mm.cuda_available() else [])
    for device in devices:
        for fn, ref in ((mm.add, np.add), (mm.subtract, np.subtract), (mm.multiply, np.multiply),
                        (mm.divide, np.true_divide)):
            ok &= _check("%s float64, device=%s" % (fn.__name__, device), fn(a, b, device=device), ref(a, b))
        s = mm.sum(a, device=device)
        good = abs(s - np.sum(a)) <= 1e-12 * np.sum(np.abs(a))
        print("  %-40s %s" % ("sum float64, device=%s" % device, "ok" if good else "FAILED"))
        ok &= good
    if mm.cuda_available():
        d = mm.to_device(a)
        ok &= _check("to_device -> add -> get", (d + d).get(), a + a)
    else:
        print("  (no usable GPU: the GPU checks were not run)")
    return ok


def _median_time(fn, repeat=7):
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def timing_table():
    """Print median times of ``add`` and ``sum`` against NumPy for 10^3, 10^6 and
    10^7 float64 elements, on the GPU where one is usable, else on the CPU.

    Returns
    -------
    None
    """
    rng = np.random.default_rng(1)
    print("\n  %-10s %-10s %12s %12s %9s" % ("case", "n", "NumPy", "myModule", "speed-up"))
    for n in (1000, 10**6, 10**7):
        a = rng.standard_normal(n)
        b = rng.standard_normal(n)
        t_np = _median_time(lambda: np.add(a, b))
        device = "cuda" if mm.cuda_available() else "cpu"
        t_mm = _median_time(lambda: mm.add(a, b, device=device))
        print("  %-10s %-10d %10.1fus %10.1fus %8.2fx" % ("add/" + device, n, t_np * 1e6, t_mm * 1e6, t_np / t_mm))
        t_np = _median_time(lambda: np.sum(a))
        t_mm = _median_time(lambda: mm.sum(a, device=device))
        print("  %-10s %-10d %10.1fus %10.1fus %8.2fx" % ("sum/" + device, n, t_np * 1e6, t_mm * 1e6, t_np / t_mm))


def main():
    """``python -m myModule``: `show_config`, `self_check` and `timing_table`.

    Returns
    -------
    int
        The exit status: 0 when the self-check passed, 1 otherwise.
    """
    mm.show_config()
    print("\nself-check:")
    ok = self_check()
    timing_table()
    print("\nself-check %s" % ("passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
