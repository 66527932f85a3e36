"""The benchmark's view of the op table (myModule.ops): which operations get rows, the
inputs each needs, its CuPy and PyTorch counterparts, and the fresh-process first-call
probe (the process's first call, module load included, and every later first call,
each as a ratio to a warm call of the same operation). No list of operations is written here: everything follows from the declarations.

Pure NumPy apart from the counterpart lookup and first_call_child, so that the input
builders can be checked without a GPU (tests/test_bench_op_rows.py).
"""
import importlib
import json
import statistics
import time

import numpy as np

# Operations that had rows before the op table (their rows: bench/peers_table_rows.py).
CLASSIC_BINOPS = ("add", "subtract", "multiply", "divide")
DTYPE = "float64"
PARAM = 2.0                 # every scalar parameter (axpy's alpha)
FIRST_CALL_N = 4096

# Array inputs (by position) that must be positive for the comparison to be fair: NaN
# from log/sqrt of a negative, or from a negative base to a fractional power, takes
# other code paths in some libraries than a finite result does.
POSITIVE_INPUTS = {"log": (0,), "sqrt": (0,), "power": (0,), "log1p": (0,), "log2": (0,), "log10": (0,),
                   "arccosh": (0,)}

# The few NumPy names torch spells differently. torch.equal exists but answers one bool
# for the whole tensor, so it must not be found by name; torch has no `power`.
TORCH_NAMES = {"equal": "eq", "not_equal": "ne", "power": "pow"}
# torch functions that compute nothing: torch.positive returns its argument itself (no
# new tensor, no kernel: 0.3 us against the 356 us of a copy), so it is no peer to time.
TORCH_WITHOUT_WORK = {"positive": "torch.positive returns its input (no copy)"}


def numpy_name(decl):
    """The NumPy function's name when the reference is one ('numpy.true_divide' ->
    'true_divide'), else the operation's own name."""
    ref = decl.get("reference") or ""
    return ref.split(".", 1)[1] if ref.startswith("numpy.") and ref.count(".") == 1 \
        else decl["name"]


def ops_of(ops, kind):
    """Declarations of one kind that take float64, in table order."""
    return [d for d in ops if d["kind"] == kind and DTYPE in d["results"]]


def skipped_ops(ops):
    """'name (why)' for the declarations no row covers."""
    out = []
    for d in ops:
        if d["kind"] not in ("elementwise", "reduction"):
            out.append("%s (%s kernel: no NumPy counterpart to feed)" % (d["name"], d["kind"]))
        elif DTYPE not in d["results"]:
            out.append("%s (no %s loop)" % (d["name"], DTYPE))
    return out


def counterpart(label, mod, decl):
    """(function, why): the contender's function for decl; (None, why) when it has none;
    (None, None) when the contender is not importable (the runner reports that)."""
    if label == "myModule":
        name = decl["name"]
    else:
        name = numpy_name(decl)
        if label == "PyTorch":
            if name in TORCH_WITHOUT_WORK:
                return None, TORCH_WITHOUT_WORK[name]
            name = TORCH_NAMES.get(name, name)
    if mod is None:
        return None, None
    fn = getattr(mod, name, None)
    if not callable(fn):
        return None, "%s has no %s" % (label, name)
    return fn, None


# ---- inputs: a spec says where an array comes from, so equal specs share device copies

def input_specs(decl):
    """(params, specs) for decl: one Python float per parameter, and per array input a
    spec (source, block, transform): the array is sources[source][block*n:(block+1)*n],
    transformed by None, 'positive' (abs + 1) or a fixed input's dtype name ('bool':
    > 0)."""
    params = [PARAM] * decl["nparams"]
    positive = POSITIVE_INPUTS.get(decl["name"], ())
    fixed = decl.get("fixed_inputs") or (None,) * decl["nin"]
    specs = []
    for k in range(decl["nin"]):
        transform = fixed[k] or ("positive" if k in positive else None)
        specs.append((k % 2, k // 2, transform))
    return params, specs


def materialize(spec, sources, n):
    """The NumPy array a spec names (a view when untransformed)."""
    source, block, transform = spec
    x = sources[source][block * n:(block + 1) * n]
    if len(x) != n:
        raise ValueError("source %d too short for block %d of %d" % (source, block, n))
    if transform is None:
        return x
    if transform == "positive":
        return np.abs(x) + 1.0
    if transform == "bool":
        return x > 0
    return (x * 1000).astype(transform)


def host_inputs(decl, sources, n):
    """(params, arrays) with NumPy arrays: what the operation is called with."""
    params, specs = input_specs(decl)
    return params, [materialize(s, sources, n) for s in specs]


def bytes_moved(decl, n):
    """Bytes read + written by one call over n elements (float64 unless fixed)."""
    _params, specs = input_specs(decl)
    item = np.dtype(DTYPE).itemsize
    read = sum(np.dtype(s[2]).itemsize if s[2] not in (None, "positive") else item
               for s in specs)
    if decl["kind"] == "reduction":
        return read * n
    return (read + np.dtype(decl["results"][DTYPE]).itemsize) * n


def reference(decl):
    """The NumPy oracle named by the declaration ('numpy.maximum', 'myModule._reference.axpy')."""
    module, _, attr = decl["reference"].rpartition(".")
    return getattr(importlib.import_module(module), attr)


def agrees(got, want):
    """A loose check that the kernel ran and computed the operation (not an ULP test)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return False
    if want.dtype == bool or got.dtype == bool:
        return bool(np.array_equal(got, want))
    return bool(np.allclose(got, want, rtol=1e-9, atol=1e-9, equal_nan=True))


# ---- first call in a fresh process (run in a subprocess with PTX JIT disabled)

def first_call_child(n=FIRST_CALL_N, warm_repeats=5, seed=20240601):
    """Prints one JSON line: per operation (table order) the first call's and the median
    warm call's time, each call followed by myModule.synchronize(), and whether the
    result agrees with the NumPy reference. Inputs are uploaded (and the CUDA context
    created) before anything is timed; the first operation's first call is the
    process's first kernel, so it loads the library's CUDA module (lazy loading, once
    per process): its row says so ("loads_module") and is also given as "first_load",
    held to its own target against its own warm call."""
    import myModule as mm
    rng = np.random.default_rng(seed)
    sources = [rng.standard_normal(2 * n), rng.standard_normal(2 * n)]
    todo = []
    for decl in ops_of(mm.ops, "elementwise") + ops_of(mm.ops, "reduction"):
        params, host = host_inputs(decl, sources, n)
        todo.append((decl, params, host, [mm.to_device(a) for a in host]))
    mm.synchronize()
    rows = []
    for decl, params, host, dev in todo:
        fn = getattr(mm, decl["name"])
        t0 = time.perf_counter()
        r = fn(*params, *dev)
        mm.synchronize()
        first = time.perf_counter() - t0
        warm = []
        for _ in range(warm_repeats):
            t0 = time.perf_counter()
            fn(*params, *dev)
            mm.synchronize()
            warm.append(time.perf_counter() - t0)
        got = r.get() if hasattr(r, "get") else r
        rows.append({"name": decl["name"], "first_s": first, "warm_s": statistics.median(warm),
                     "correct": agrees(got, reference(decl)(*params, *host)),
                     "loads_module": not rows})
    first_load = rows[0] if rows else None
    print(json.dumps({"n": n, "ops": rows, "skipped": skipped_ops(mm.ops), "first_load": first_load,
                      "library_load_s": (first_load["first_s"] - first_load["warm_s"]) if first_load else None}))


# CuPy's way to a first kernel: an ElementwiseKernel compiled by NVRTC on its first
# call, with an empty kernel cache (run in a fresh process, CUPY_CACHE_DIR empty).
CUPY_FIRST_CALL_CODE = (
    "import time, cupy; x = cupy.ones(%d); "
    "k = cupy.ElementwiseKernel('T x', 'T y', 'y = x + 1', 'first_call_peer'); "
    "cupy.cuda.Device().synchronize(); t = time.perf_counter(); k(x); "
    "cupy.cuda.Device().synchronize(); print(time.perf_counter() - t)" % FIRST_CALL_N)


def first_call_ratio(row):
    """A first call's time over the warm call of the same operation."""
    return row["first_s"] / row["warm_s"]


def after_load(rows):
    """The rows whose first call came after the module was loaded."""
    return [r for r in rows if not r.get("loads_module")]


def worst_first_call(rows):
    """Of the operations called after the module load, the one whose first call is the
    largest multiple of its warm call."""
    rows = after_load(rows)
    return max(rows, key=first_call_ratio) if rows else None
