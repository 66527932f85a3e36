"""Sorting functions of the standard over the library's stable GPU sort
(``myModule.sort``/``argsort``: CUB's radix sort, which is stable for every
``stable=``; ``descending=True`` keeps equal elements in input order, NaN first)."""
from .. import _core


def sort(x, /, *, axis=-1, descending=False, stable=True):
    return _core.sort(x, axis=axis, descending=descending)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    return _core.argsort(x, axis=axis, descending=descending)
