"""Rows of the array API namespace (myModule.array_api) beside the op table's own rows:
var (one pass over the data: moments), clip, all and nonzero (a count pass, one wait for the
count, a pass writing the indices) on a device array, beside CuPy's and PyTorch's own
functions. Timed as every other GPU row (Entry of kind "gpu": timeit_gpu over the same
rotating input sets).

cases(b, libs) is called from bench/run.py's list of rows with its Builders."""
from harness.cases import Case, Entry, n_label
from harness.inputs import rotating1
from harness import targets

N = 2**26
ITEM = 8  # float64


def _functions(name, label, mod):
    """The contender's spelling of one row's computation, or None."""
    if label == "myModule":
        import myModule.array_api as xp
        return {
            "var": xp.var,
            "clip": lambda x: xp.clip(x, -1.0, 1.0),
            "all": lambda x: xp.all(xp.greater(x, -10.0)),
            "nonzero": lambda x: xp.nonzero(xp.greater(x, 2.0)),
        }[name]
    if label == "CuPy":
        return {
            "var": mod.var,
            "clip": lambda x: mod.clip(x, -1.0, 1.0),
            "all": lambda x: mod.all(x > -10.0),
            "nonzero": lambda x: mod.nonzero(x > 2.0),
        }[name]
    if label == "PyTorch":
        return {
            "var": lambda x: mod.var(x, correction=0),
            "clip": lambda x: mod.clamp(x, -1.0, 1.0),
            "all": lambda x: mod.all(x > -10.0),
            "nonzero": lambda x: mod.nonzero(x > 2.0, as_tuple=True),
        }[name]
    return None


# name: (description, bytes moved by the least a one-pass implementation reads/writes)
ROWS = {
    "var": ("var(x) (one pass: Welford batches, Chan's combination)", N * ITEM),
    "clip": ("clip(x, -1, 1)", 2 * N * ITEM),
    "all": ("all(x > -10)", N * ITEM),
    "nonzero": ("nonzero(x > 2) (2.3% true)", N * ITEM),
}


def cases(b, libs):
    mm = libs["myModule"]
    if not mm.ok:
        return [Case("array API namespace", "array-api", None, {},
                     note="no rows: %s" % mm.reason(False))]
    out = []
    for name, (text, nbytes) in ROWS.items():
        entries = {}
        for label in ("myModule", "CuPy", "PyTorch"):
            lib = libs[label]

            def build(name=name, label=label, lib=lib):
                fn = _functions(name, label, lib.mod)
                return rotating1(fn, [x for x, _ in b.data.dev_sets(label, N)])
            entries[label] = Entry(build, "array-api:%s:%s:%d" % (name, label, N), True, "gpu")
        out.append(Case("array API %s, device array, n = %s" % (text, n_label(N)), "array-api",
                        nbytes, entries, targets.of("array-api")))
    return out
