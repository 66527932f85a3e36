"""An ordinary user's pipeline on a Dask array larger than one GPU's memory:
((x + 1) * y).sum() with myModule, checked against NumPy on the same data.

x and y are float64 arrays of `--gb` GB each (default 200: past one H200's 141 GB),
made chunk by chunk on the workers, never whole anywhere: element i of x is
((i * 40503) mod 65536) / 65536 and of y ((i * 30011 + 7) mod 65536) / 65536, the
same values whichever library computes them (integer arithmetic, exact quotients).
The check is NumPy's on the same data, in chunks: by default the data's period
(both repeat every 65536 elements, so NumPy sums one period and the remainder),
with --check chunks NumPy recomputes every chunk in this process (small sizes).

    python bench/dask_pipeline.py                        # every GPU (LocalCUDACluster)
    python bench/dask_pipeline.py --gb 0.1 --cpu         # here: LocalCluster, NumPy chunks
    python bench/dask_pipeline.py --gb 0.05 --cpu --check chunks
"""
import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

PERIOD = 65536
X_MULTIPLIER, Y_MULTIPLIER, Y_OFFSET = 40503, 30011, 7


def make_chunk(which, on_gpu, block_info=None):
    """One chunk of x or y, from its place in the array (block_info)."""
    import myModule as mm
    start, stop = block_info[None]["array-location"][0]
    if on_gpu:
        i = mm.arange(start, stop, dtype=np.int64)
    else:
        i = np.arange(start, stop, dtype=np.int64)
    if which == "x":
        k = mm.remainder(mm.multiply(i, X_MULTIPLIER), PERIOD)
    else:
        k = mm.remainder(mm.add(mm.multiply(i, Y_MULTIPLIER), Y_OFFSET), PERIOD)
    return mm.divide(k, float(PERIOD))


def numpy_values(start, stop):
    i = np.arange(start, stop, dtype=np.int64)
    x = (i * X_MULTIPLIER % PERIOD) / float(PERIOD)
    y = ((i * Y_MULTIPLIER + Y_OFFSET) % PERIOD) / float(PERIOD)
    return x, y


def numpy_by_period(n):
    x, y = numpy_values(0, PERIOD)
    f = (x + 1) * y
    full, rest = divmod(n, PERIOD)
    return full * np.sum(f) + np.sum(f[:rest])


def numpy_by_chunks(n, chunk):
    total = 0.0
    for start in range(0, n, chunk):
        x, y = numpy_values(start, min(n, start + chunk))
        total += np.sum((x + 1) * y)
    return total


def lazy_array(which, n, chunk, on_gpu):
    import dask.array as da
    import myModule as mm
    meta = mm.empty((0,), dtype=np.float64) if on_gpu else np.empty((0,), dtype=np.float64)
    return da.map_blocks(make_chunk, which, on_gpu, chunks=(da.core.normalize_chunks(chunk, (n,))[0],),
                         dtype=np.float64, meta=meta, name="%s-%d-%d" % (which, n, chunk))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--gb", type=float, default=200.0, help="size of x (and of y) in GB (1e9 bytes)")
    p.add_argument("--chunk", type=int, default=1 << 27, help="elements per chunk (default 2**27: 1 GiB)")
    p.add_argument("--cpu", action="store_true",
                   help="a distributed.LocalCluster of 2 processes and NumPy chunks (no GPU)")
    p.add_argument("--workers", type=int, default=None, help="GPUs (default all) or CPU workers (2)")
    p.add_argument("--check", choices=["period", "chunks", "none"], default="period")
    p.add_argument("--timeout", type=float, default=None, help="seconds before giving up")
    args = p.parse_args(argv)
    import myModule as mm
    from distributed import Client
    import myModule.dask  # noqa: F401
    n = int(args.gb * 1e9) // 8
    # The workers are new processes: they import this tree's myModule, and this file
    # where make_chunk travels by reference (imported as a module, not run as a script).
    # Spawned processes take this one's sys.path; PYTHONPATH is for the others.
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.append(here)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(mm.__file__))), here] +
        [q for q in os.environ.get("PYTHONPATH", "").split(os.pathsep) if q])
    if args.cpu:
        from distributed import LocalCluster
        cluster = LocalCluster(n_workers=args.workers or 2, threads_per_worker=1, processes=True,
                               dashboard_address=None)
    else:
        from dask_cuda import LocalCUDACluster
        count = args.workers or mm.device_count()
        cluster = LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(map(str, range(count))),
                                   threads_per_worker=1, dashboard_address=None)
    with cluster, Client(cluster) as client:
        workers = len(client.scheduler_info()["workers"])
        x = lazy_array("x", n, args.chunk, not args.cpu)
        y = lazy_array("y", n, args.chunk, not args.cpu)
        total = mm.sum(mm.multiply(mm.add(x, 1), y))
        print("((x + 1) * y).sum(): x, y float64, %d elements each (%.1f GB each), %d chunks, "
              "%d %s worker(s)" % (n, n * 8 / 1e9, x.numblocks[0], workers, "CPU" if args.cpu else "GPU"))
        start = time.perf_counter()
        got = client.compute(total).result(timeout=args.timeout)
        took = time.perf_counter() - start
    print("result %.17g in %.2f s: %.1f GB/s of x and y read" % (got, took, 2 * n * 8 / 1e9 / took))
    if args.check == "none":
        return 0
    expected = numpy_by_period(n) if args.check == "period" else numpy_by_chunks(n, args.chunk)
    error = abs(got - expected) / abs(expected)
    print("NumPy (%s) %.17g: relative difference %.2e" % (args.check, expected, error))
    if error > 1e-9:
        print("error: the results differ", file=sys.stderr)
        return 1
    print("equal to NumPy's within rounding (1e-9)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
