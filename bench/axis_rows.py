"""Rows of the reductions over axes (issue 11): a 10^4 x 10^4 float64 device array
reduced over axis 0 (C order: the kept dim is the fast side, so reads must be spread
over columns), over axis 1, over everything (max) and averaged over axis 1, beside CuPy
and PyTorch; NumPy on the same values in host memory is informational. Every contender
is timed as the other GPU rows are (timeit_gpu around its call, one sync after the
loop): a myModule result is a DeviceArray queued without a host wait.

The full sum of 1e8 device elements in a loop is bench/peers_table_rows.py's "sum,
device array, n = 1e8" row (no host wait either: a device input's reduction stays on
the GPU).
"""
from harness.cases import Case, Entry
from harness.inputs import ITEM
from harness import targets

SIDE = 10_000

# (title, NumPy-style call (myModule, CuPy, NumPy), PyTorch call, TARGETS.md key)
ROWS = [
    ("sum(axis=0)", lambda m, x: m.sum(x, axis=0), lambda t, x: t.sum(x, dim=0), "axis-sum0"),
    ("sum(axis=1)", lambda m, x: m.sum(x, axis=1), lambda t, x: t.sum(x, dim=1), "axis"),
    ("max()", lambda m, x: m.max(x), lambda t, x: t.max(x), "axis"),
    ("mean(axis=1)", lambda m, x: m.mean(x, axis=1), lambda t, x: t.mean(x, dim=1), "axis"),
]


def _entry(b, label, title, call):
    """One contender's entry: its own copy of the matrix (uploaded once, shared by the
    rows), called with its own library."""
    lib = b.libs[label]
    on_gpu = label != "NumPy"

    def build():
        x = b.data.dev_matrix(label, SIDE) if on_gpu else b.data.matrix(SIDE)
        return lambda: call(lib.mod, x)
    return Entry(build, "axis:%s:%s:%d" % (title, label, SIDE), on_gpu, "gpu" if on_gpu else "host",
                 repeats=None if on_gpu else b.s.repeats_host_big)


def cases(b, libs):
    """The rows, as Case objects."""
    nbytes = SIDE * SIDE * ITEM
    out = []
    for title, numpy_call, torch_call, key in ROWS:
        entries = {label: _entry(b, label, title, torch_call if label == "PyTorch" else numpy_call)
                   for label in ("myModule", "CuPy", "PyTorch", "NumPy")}
        out.append(Case("%s, device %dx%d float64" % (title, SIDE, SIDE), "axis", nbytes, entries,
                        targets.of(key),
                        note="NumPy: the same values in host memory (informational)"))
    return out
