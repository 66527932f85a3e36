"""Rows of the benchmark for NumPy dispatch (myModule/_dispatch.py): NumPy calls on
device arrays, ``np.add(d, d)``, ``np.sum(d)``, ``np.add.reduce(d)``, beside CuPy's
answer to the same NumPy calls (its own ``__array_ufunc__``/``__array_function__``).
PyTorch has no such dispatch for CUDA tensors (NumPy converts them through the host,
which fails), so its cells say so.

The inputs are the harness's device sets (``Data.dev_sets``), timed by its
``timeit_gpu`` through its ``Entry``/``Case`` machinery, so the rows compare with the
direct-call rows of bench/peers_table_rows.py ("add, device arrays, n = 1e6", ...): the
difference is the cost of going through NumPy.
"""
import numpy as np

from harness.cases import Case, Entry, n_label
from harness.inputs import ITEM, rotating
from harness import targets

NO_TORCH = "PyTorch: NumPy ufuncs and functions do not dispatch to CUDA tensors"


def _entry(b, label, what, n, call, sync_each):
    """`call(x, y)` over the contender's device sets of size n."""
    key = "dispatch:%s:%s:%d:%d" % (what, label, n, sync_each)
    if label == "PyTorch":
        return Entry(None, key, True, "gpu", sync_each, skip=NO_TORCH)

    def build():
        return rotating(call, b.data.dev_sets(label, n))
    return Entry(build, key, True, "gpu", sync_each)


def _add(x, y):
    return np.add(x, y)


def _sum(x, _y):
    return np.sum(x)


def _add_reduce(x, _y):
    return np.add.reduce(x)


def cases(b, libs):
    """The dispatch rows: np.add at n = 1 (call + sync: the dispatch overhead itself)
    and n = 1e6, np.sum and np.add.reduce at n = 1e6 (call + sync)."""
    labels = ("myModule", "CuPy", "PyTorch")
    rows = []
    # (what, call, n, sync after every call, arrays read and written per call)
    for what, fn, n, sync_each, arrays in (("np.add(d, d)", _add, 1, True, 3),
                                           ("np.add(d, d)", _add, 10**6, False, 3),
                                           ("np.sum(d)", _sum, 10**6, True, 1),
                                           ("np.add.reduce(d)", _add_reduce, 10**6, True, 1)):
        entries = {c: _entry(b, c, what, n, fn, sync_each) for c in labels}
        name = "%s via NumPy dispatch, device arrays, n = %s%s" % (
            what, n_label(n), ", call + sync" if sync_each else "")
        rows.append(Case(
            name, "dispatch", None if n == 1 else arrays * n * ITEM, entries,
            targets.of("dispatch"),
            note=NO_TORCH))
    return rows
