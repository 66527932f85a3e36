"""Sorting functions of the standard over the library's stable GPU sort
(``myModule.sort``/``argsort``: CUB's radix sort, which is stable for every
``stable=``; ``descending=True`` keeps equal elements in input order, NaN first)."""
from .. import _core


def sort(x, /, *, axis=-1, descending=False, stable=True):
    return _core.sort(x, axis=axis, descending=descending)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    return _core.argsort(x, axis=axis, descending=descending)


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """One binary search per element of x2 in the sorted 1-d x1 (int64 positions)."""
    return _core.searchsorted(x1, x2, side=side, sorter=sorter)
