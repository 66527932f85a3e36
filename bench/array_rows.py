"""Rows of the array functions (issue 11): creating 1e8 float64 elements on the GPU
(`zeros`, `arange`) beside CuPy and PyTorch, and the host time of a basic slice of a
device array (`d[::2, 1:]`: a view, no GPU work). Creation rows are timed as the other
GPU rows (timeit_gpu around a loop of calls, one sync after it); the slice row
with the host clock alone (timeit_host), for every contender the same way.

Targets (bench/TARGETS.md, issue 11): zeros at most 1.05x CuPy's time, arange at most
0.5x (CuPy writes 800 MB in about 2.7x the write bound), the slice at most CuPy's host
time for the same slice (a ratio to a peer measured in the same run, not a time).
"""
from harness.cases import Case, Entry
from harness.inputs import ITEM
from harness import targets

N = 10**8
SLICE_SIDE = 1000

# (title, call(module, n) for NumPy-style libraries, call(torch, n)); targets: TARGETS.md's key = title
CREATION = [
    ("zeros", lambda m, n: m.zeros(n), lambda t, n: t.zeros(n, dtype=t.float64, device="cuda")),
    ("arange", lambda m, n: m.arange(n, dtype="float64"),
     lambda t, n: t.arange(n, dtype=t.float64, device="cuda")),
]


def _creation_entry(b, label, title, call):
    mod = b.libs[label].mod
    return Entry(lambda: (lambda: call(mod, N)), "array:%s:%s:%d" % (title, label, N), True, "gpu")


def _slice_entry(b, label):
    def build():
        x = b.data.dev_matrix(label, SLICE_SIDE)
        return lambda: x[::2, 1:]
    return Entry(build, "array:slice:%s" % label, True, "host")


def cases(b, libs):
    """The rows, as Case objects."""
    out = []
    for title, numpy_call, torch_call in CREATION:
        entries = {label: _creation_entry(b, label, title,
                                          torch_call if label == "PyTorch" else numpy_call)
                   for label in ("myModule", "CuPy", "PyTorch")}
        out.append(Case("%s(1e8) float64 on the GPU" % title, "array", N * ITEM, entries,
                        targets.of(title),
                        note="bytes written"))
    entries = {label: _slice_entry(b, label) for label in ("myModule", "CuPy", "PyTorch")}
    out.append(Case("basic slice d[::2, 1:] of a device array, host time", "array", None, entries,
                    targets.of("slice"),
                    note="a view: no GPU work"))
    return out
