"""Rows of sorting, running sums and searching (issue 26): sort float64 n = 1e8, argsort
float64 n = 1e7 (stable), cumulative_sum float64 n = 1e8, searchsorted of 1e7 float64
queries into 1e6 sorted values, unique_values of 1e7 int64 with 1e5 distinct values, on
arrays already on the GPU, beside
CuPy (cupy.sort, cupy.argsort, cupy.cumsum, cupy.searchsorted, cupy.unique) and PyTorch (torch.sort /
torch.argsort with stable=True, torch.cumsum, torch.searchsorted, torch.unique; the sorted array made by
each contender's own sort, outside the timing). Timed as the other GPU rows (timeit_gpu around a loop of
calls, one sync after it); every contender sorts the same standard normal values.

Targets (issue 26): at most the faster peer's time in the same run (a ratio, no seconds).
"""
import numpy as np

from harness.cases import Case, Entry, n_label
from harness.contenders import upload
from harness.inputs import ITEM
from harness import targets

# (title, n, myModule call, CuPy call, PyTorch call)
ROWS = [
    ("sort", 10**8, lambda m, x: m.sort(x), lambda cp, x: cp.sort(x),
     lambda t, x: t.sort(x, stable=True)[0]),
    ("argsort (stable)", 10**7, lambda m, x: m.argsort(x), lambda cp, x: cp.argsort(x),
     lambda t, x: t.argsort(x, stable=True)),
    ("cumulative_sum", 10**8, lambda m, x: m.cumulative_sum(x), lambda cp, x: cp.cumsum(x),
     lambda t, x: t.cumsum(x, 0)),
]
SEARCH_SORTED, SEARCH_QUERIES = 10**6, 10**7
# (myModule, CuPy, PyTorch): searchsorted(sorted, queries)
SEARCH = {"myModule": lambda m, s, q: m.searchsorted(s, q), "CuPy": lambda cp, s, q: cp.searchsorted(s, q),
          "PyTorch": lambda t, s, q: t.searchsorted(s, q)}


# unique_values of int64, n = 1e7, 1e5 distinct values (issue 26's row).
UNIQUE_N, UNIQUE_DISTINCT = 10**7, 10**5


def _unique_values(m, x):
    """myModule's unique_values is its array API's (the namespace of `m`)."""
    import myModule.array_api as xp
    return xp.unique_values(x)


UNIQUE = {"myModule": _unique_values, "CuPy": lambda cp, x: cp.unique(x), "PyTorch": lambda t, x: t.unique(x)}


def _unique_entry(b, label, call):
    def build():
        host = np.random.default_rng(26).integers(0, UNIQUE_DISTINCT, UNIQUE_N, dtype=np.int64)
        lib = b.libs[label]
        x = upload(lib, host)
        lib.sync()
        return lambda: call(lib.mod, x)
    return Entry(build, "sort_scan:unique_values:%s:%d" % (label, UNIQUE_N), True, "gpu")


def _entry(b, label, title, n, call):
    def build():
        x = b.data.dev_sets(label, n, k=1)[0][0]
        mod = b.libs[label].mod
        return lambda: call(mod, x)
    return Entry(build, "sort_scan:%s:%s:%d" % (title, label, n), True, "gpu")


def _search_entry(b, label, call, sort_call):
    def build():
        mod = b.libs[label].mod
        s = sort_call(mod, b.data.dev_sets(label, SEARCH_SORTED, k=1)[0][0])
        q = b.data.dev_sets(label, SEARCH_QUERIES, k=1)[0][0]
        return lambda: call(mod, s, q)
    return Entry(build, "sort_scan:searchsorted:%s:%d" % (label, SEARCH_QUERIES), True, "gpu")


def cases(b, libs):
    """The rows, as Case objects."""
    out = []
    for title, n, mine, cupy_call, torch_call in ROWS:
        calls = {"myModule": mine, "CuPy": cupy_call, "PyTorch": torch_call}
        entries = {label: _entry(b, label, title, n, call) for label, call in calls.items()}
        out.append(Case("%s, float64, n = %s, on the GPU" % (title, n_label(n)), "sort_scan",
                        n * ITEM, entries, targets.of("sort-scan"), note="bytes read"))
    entries = {label: _unique_entry(b, label, call) for label, call in UNIQUE.items()}
    out.append(Case("unique_values, int64, n = %s, %s distinct, on the GPU"
                    % (n_label(UNIQUE_N), n_label(UNIQUE_DISTINCT)), "sort_scan", UNIQUE_N * ITEM,
                    entries, targets.of("sort-scan"), note="bytes read; myModule: its array API's"))
    # searchsorted last
    sorts = dict(zip(("myModule", "CuPy", "PyTorch"), ROWS[0][2:]))
    entries = {label: _search_entry(b, label, call, sorts[label]) for label, call in SEARCH.items()}
    out.append(Case("searchsorted, float64, %s queries into %s sorted, on the GPU"
                    % (n_label(SEARCH_QUERIES), n_label(SEARCH_SORTED)), "sort_scan", SEARCH_QUERIES * ITEM,
                    entries, targets.of("sort-scan"),
                    note="bytes of queries read"))
    return out
