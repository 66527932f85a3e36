"""dask-cuda's own array benchmark operations, with myModule beside CuPy, in one run.

The operations `col_sum` (x + y on two 1-d arrays of normal(10, 1) values) and
`sum` (x.sum() of a size x size uniform array) of dask_cuda/benchmarks/local_cupy.py,
with its sizes, chunks, timing (persist the result, wait, synchronize every worker's
GPU) and printed fields, timed for two backends on the same data:

- dask+cupy: dask.array of CuPy chunks, Dask's own `x + y` and `x.sum()`;
- dask+myModule: the same chunks as zero-copy DeviceArray views, `myModule.add(x, y)`
  and `myModule.sum(x)`.

Each on a dask-cuda LocalCUDACluster (TCP, one thread per worker) of 1 worker, then
of 2 (one per GPU), and the ratios at the end: myModule / CuPy throughput (target
>= 1.0) and 2 workers / 1 worker (target >= 1.7).

    python bench/dask_local.py                       # dask-cuda's defaults: -s 10000 -c 2500
    python bench/dask_local.py -o col_sum -s 400000000 -c 50000000 --runs 5
    python bench/dask_local.py --workers 1 2 4

Not printed (dask-cuda prints them from its own transfer logs): the worker-to-worker
bandwidth table and the UCX settings.
"""
import argparse
import os
import sys
from time import perf_counter as clock

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def print_separator(separator="-", length=80):
    print(separator * length)


def print_key_value(key, value, key_length=25):
    print(f"{key: <{key_length}} | {value}")


def hmean(a):
    a = np.asarray(a, dtype=np.float64)
    return len(a) / np.sum(1.0 / a)


def hstd(a):
    """Standard error of the harmonic mean (first order in the reciprocals)."""
    a = np.asarray(a, dtype=np.float64)
    if len(a) < 2:
        return 0.0
    r = 1.0 / a
    return float(np.sqrt(np.var(r) / (len(a) * np.mean(r) ** 4)))


def synchronize_gpu():
    """Runs on each worker: the work of both libraries is complete."""
    import cupy
    import myModule
    cupy.cuda.Device().synchronize()
    myModule.synchronize()


def make_arrays(operation, size, chunk_size, backend, seed):
    import cupy
    import dask.array as da
    from distributed import wait
    # A seed per run: both backends get the same data in the same run.
    rs = da.random.RandomState(seed, RandomState=cupy.random.RandomState)
    if operation == "col_sum":
        arrays = [rs.normal(10, 1, (size,), chunks=chunk_size),
                  rs.normal(10, 1, (size,), chunks=chunk_size)]
    elif operation == "sum":
        arrays = [rs.random((size, size), chunks=chunk_size)]
    else:
        raise ValueError("unknown operation %r" % operation)
    if backend == "dask+myModule":
        import myModule
        arrays = [x.map_blocks(myModule.asarray, dtype=x.dtype,
                               meta=myModule.empty((0,) * x.ndim, dtype=x.dtype))
                  for x in arrays]
    arrays = [x.persist() for x in arrays]
    wait(arrays)
    return arrays


def operation_of(operation, backend):
    if backend == "dask+myModule":
        import myModule
        return {"col_sum": lambda x, y: myModule.add(x, y), "sum": lambda x: myModule.sum(x)}[operation]
    return {"col_sum": lambda x, y: x + y, "sum": lambda x: x.sum()}[operation]


def bench_once(client, args, operation, backend, seed, profile=False):
    """One timed run, as dask-cuda's bench_once: build, persist, wait, synchronize.
    With profile, the run's task stream is kept (distributed's own record of each
    task's compute and transfer intervals on the workers)."""
    from distributed import get_task_stream, wait
    func_args = make_arrays(operation, args.size, args.chunk_size, backend, seed)
    x = func_args[0]
    shape, chunksize = x.shape, x.chunksize
    data_processed = sum(arg.nbytes for arg in func_args)
    result = operation_of(operation, backend)(*func_args)
    stream = None
    t1 = clock()
    if profile:
        with get_task_stream(client) as stream:
            wait(client.persist(result))
            client.run(synchronize_gpu)
    else:
        wait(client.persist(result))
        client.run(synchronize_gpu)
    took = clock() - t1
    del result, func_args
    return {"took": took, "data_processed": data_processed, "shape": shape, "chunksize": chunksize,
            "tasks": stream.data if stream is not None else None}


def task_stream_summary(tasks, took):
    """Where one run's wall time went, from distributed's task stream: per worker, the
    tasks, their summed compute and transfer time and the span from the first start
    to the last stop; what is left of the wall time is the scheduler, the comms and
    the client."""
    per_worker = {}
    for task in tasks:
        w = per_worker.setdefault(task["worker"], {"tasks": 0, "compute": 0.0, "transfer": 0.0,
                                                   "other": 0.0, "start": None, "stop": None,
                                                   "bytes_in": 0})
        w["tasks"] += 1
        for ss in task["startstops"]:
            action = ss["action"] if ss["action"] in ("compute", "transfer") else "other"
            w[action] += ss["stop"] - ss["start"]
            if action == "transfer":
                w["bytes_in"] += task.get("nbytes", 0) or 0
            w["start"] = ss["start"] if w["start"] is None else min(w["start"], ss["start"])
            w["stop"] = ss["stop"] if w["stop"] is None else max(w["stop"], ss["stop"])
    lines = []
    for i, (worker, w) in enumerate(sorted(per_worker.items())):
        span = (w["stop"] - w["start"]) if w["start"] is not None else 0.0
        lines.append("  worker %d: %d tasks, compute %.2f ms, transfer %.2f ms, other %.2f ms, "
                     "span %.2f ms of %.2f ms wall" % (i, w["tasks"], 1e3 * w["compute"],
                                                        1e3 * w["transfer"], 1e3 * w["other"],
                                                        1e3 * span, 1e3 * took))
    return lines


def pretty_print_results(args, operation, backend, n_workers, results, profiled=None):
    from dask.utils import format_bytes, format_time
    result = results[0]
    print("Roundtrip benchmark")
    print_separator(separator="-")
    print_key_value(key="Backend", value=backend)
    print_key_value(key="Operation", value=operation)
    print_key_value(key="Array type", value="cupy" if backend == "dask+cupy" else "myModule.DeviceArray")
    print_key_value(key="User size", value=f"{args.size}")
    print_key_value(key="User second size", value=f"{args.second_size}")
    print_key_value(key="User chunk size", value=f"{args.size}")  # sic: as dask-cuda prints it
    print_key_value(key="Compute shape", value=f"{result['shape']}")
    print_key_value(key="Compute chunk size", value=f"{result['chunksize']}")
    print_key_value(key="Ignore size", value=f"{format_bytes(args.ignore_size)}")
    print_key_value(key="Device(s)", value=",".join(str(d) for d in range(n_workers)))
    print_key_value(key="Data processed", value=f"{format_bytes(result['data_processed'])}")
    print_key_value(key="RMM Pool", value="False")
    print_key_value(key="Protocol", value="tcp")
    print_key_value(key="Worker thread(s)", value="1")
    print_key_value(key="Number of workers", value=f"{n_workers}")
    print_separator(separator="=")
    print_key_value(key="Wall clock", value="Throughput")
    print_separator(separator="-")
    durations = np.asarray([r["took"] for r in results])
    throughputs = np.asarray([r["data_processed"] for r in results]) / durations
    for duration, throughput in zip(durations, throughputs):
        print_key_value(key=f"{format_time(duration)}", value=f"{format_bytes(throughput)}/s")
    print_separator(separator="=")
    print_key_value(key="Throughput",
                    value=f"{format_bytes(hmean(throughputs))}/s +/- {format_bytes(hstd(throughputs))}/s")
    print_key_value(key="Wall clock",
                    value=f"{format_time(durations.mean())} +/- {format_time(durations.std())}")
    if profiled is not None:
        print("Task stream of one more run (%.2f ms):" % (1e3 * profiled["took"]))
        for line in task_stream_summary(profiled["tasks"], profiled["took"]):
            print(line)
    print()
    return hmean(throughputs)


def run_cluster(args, n_workers, table):
    from dask_cuda import LocalCUDACluster
    from distributed import Client
    devices = ",".join(str(d) for d in range(n_workers))
    with LocalCUDACluster(CUDA_VISIBLE_DEVICES=devices, n_workers=n_workers, threads_per_worker=1,
                          protocol="tcp", dashboard_address=None) as cluster, Client(cluster) as client:
        client.run(lambda: __import__("myModule.dask"))
        for operation in args.operation:
            # The two backends alternate run by run, so that drift hits both alike.
            results = {backend: [] for backend in args.backend}
            for run in range(args.warmup_runs + args.runs):
                for backend in args.backend:
                    r = bench_once(client, args, operation, backend, seed=run)
                    if run >= args.warmup_runs:
                        results[backend].append(r)
            # One more run each, recorded and not timed with the others.
            profiles = {backend: bench_once(client, args, operation, backend, seed=0, profile=True)
                        for backend in args.backend} if args.profile else {}
            for backend in args.backend:
                table[(operation, backend, n_workers)] = pretty_print_results(
                    args, operation, backend, n_workers, results[backend], profiles.get(backend))


def summary(args, table):
    from dask.utils import format_bytes
    print_separator(separator="=")
    print("Summary (harmonic mean throughput; targets: myModule/CuPy >= 1.0, 2 workers/1 >= 1.7)")
    print_separator(separator="-")
    for operation in args.operation:
        for n in args.workers:
            row = [f"{operation}, {n} worker(s)"]
            for backend in args.backend:
                row.append(f"{backend} {format_bytes(table[(operation, backend, n)])}/s")
            if {"dask+cupy", "dask+myModule"} <= set(args.backend):
                ratio = table[(operation, "dask+myModule", n)] / table[(operation, "dask+cupy", n)]
                row.append(f"myModule/CuPy {ratio:.2f}x")
            print(" | ".join(row))
        if 1 in args.workers and 2 in args.workers:
            for backend in args.backend:
                scale = table[(operation, backend, 2)] / table[(operation, backend, 1)]
                print(f"{operation}, {backend}: 1 -> 2 workers {scale:.2f}x")
    print_separator(separator="=")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("-o", "--operation", nargs="+", default=["col_sum", "sum"],
                   choices=["col_sum", "sum"])
    p.add_argument("-s", "--size", type=int, default=10000,
                   help="n: col_sum has n elements, sum n x n (default 10000, as dask-cuda)")
    p.add_argument("-2", "--second-size", type=int, default=1000, help="printed only, as dask-cuda")
    p.add_argument("-c", "--chunk-size", type=int, default=2500, help="default 2500, as dask-cuda")
    p.add_argument("--runs", type=int, default=3, help="timed runs (default 3, as dask-cuda)")
    p.add_argument("--warmup-runs", type=int, default=1)
    p.add_argument("--ignore-size", type=int, default=1 << 20, help="printed only, as dask-cuda")
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--profile", action="store_true",
                   help="one more run each, with where its time went (distributed's task stream)")
    p.add_argument("--backend", nargs="+", default=["dask+cupy", "dask+myModule"],
                   choices=["dask+cupy", "dask+myModule"])
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    import myModule
    have = myModule.device_count() if myModule.cuda_available() else 0
    if have < max(args.workers):
        print("error: %d worker(s) need as many GPUs; %d usable" % (max(args.workers), have),
              file=sys.stderr)
        return 1
    # The workers are new processes: they find this tree's myModule as this one does.
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(myModule.__file__)))] +
        [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    table = {}
    for n in args.workers:
        run_cluster(args, n, table)
    summary(args, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
