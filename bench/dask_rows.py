"""The benchmark's Dask rows: myModule's operations on a Dask array of DeviceArray
chunks beside Dask's own on CuPy chunks (the same data), on one GPU with Dask's
threaded scheduler, timed like every other row (timeit_gpu, the contender's sync).
The whole stack is timed: graph building, scheduling and the kernels, as a user
sees it. The cluster benchmarks (LocalCUDACluster, 1 and 2 GPUs) are in
bench/dask_local.py.

    cases(b, libs) -> [Case]     (called from bench/run.py's list of rows)
"""
from harness.cases import Case, Entry
from harness import targets

N = 1 << 26          # float64 elements per array, as the op-table rows
CHUNKS = 8


def _dask_missing():
    try:
        import dask.array  # noqa: F401
    except ImportError:
        return "dask is not installed"
    return None


def _arrays(label, libs, count):
    """`count` Dask arrays of N float64 in CHUNKS chunks: CuPy chunks, or zero-copy
    DeviceArray views of the same CuPy chunks for myModule."""
    import dask
    import dask.array as da
    cp = libs["CuPy"].mod
    mm = libs["myModule"].mod
    out = []
    for k in range(count):
        rs = da.random.RandomState(k, RandomState=cp.random.RandomState)
        x = rs.random(N, chunks=N // CHUNKS)
        if label == "myModule":
            import myModule.dask  # noqa: F401 (registers the chunk type)
            x = x.map_blocks(mm.asarray, dtype=x.dtype, meta=mm.empty((0,), dtype=x.dtype))
        (x,) = dask.persist(x, scheduler="threads")
        out.append(x)
    return out


def _entry(label, libs, what):
    missing = _dask_missing()
    if label == "myModule" and not missing and not libs["CuPy"].ok:
        missing = "the chunks are made by CuPy, which is not importable"

    def build():
        import dask
        x, y = _arrays(label, libs, 2)
        mm = libs["myModule"].mod
        if what == "add":
            fn = (lambda: mm.add(x, y)) if label == "myModule" else (lambda: x + y)
            return lambda: dask.persist(fn(), scheduler="threads")
        fn = (lambda: mm.sum(x)) if label == "myModule" else (lambda: x.sum())
        return lambda: fn().compute(scheduler="threads")

    return Entry(build, "dask:%s:%s:%d" % (what, label, N), True, "gpu", skip=missing)


def cases(b, libs):
    rows = []
    for what, title, nbytes in (("add", "add", 3 * N * 8), ("sum", "sum", N * 8)):
        entries = {label: _entry(label, libs, what) for label in ("myModule", "CuPy")}
        rows.append(Case(
            "%s, Dask array of %d device chunks, n = 2^26, threaded scheduler" % (title, CHUNKS),
            "dask", nbytes, entries,
            targets.of("dask"),
            note="myModule: DeviceArray chunks and myModule.%s; CuPy: CuPy chunks and Dask's own"
                 % what))
    return rows

