"""Set functions of the standard over the library's stable sort: the flattened
array sorted (argsorted, where positions are asked for), a mask of where each run
of equal values starts (NaN != NaN, so every NaN is a value of its own, as the
standard asks), the run starts through nonzero, and what each function returns
read off them. The values come out sorted (NaN last), as NumPy's.

On a GPU: the sort, the mask, nonzero, the counts and the running sums of the
inverse are kernels on the array's GPU; the gathers and the scatter by positions
(unique_all's indices and every inverse) resolve their index arrays through the
host, as every integer-array index does (ext/indexing.cpp)."""
from collections import namedtuple

from .. import _core

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _runs(x, positions):
    """(sorted values, the order that sorts them or None, run-start mask, start positions),
    DeviceArrays on x's GPU (host data is uploaded, as by every function here)."""
    flat = _core.reshape(x, (-1,))
    if positions:
        order = _core.argsort(flat)          # stable: a run's first element is its first occurrence
        ordered = flat[order]
    else:
        order, ordered = None, _core.sort(flat)
    if ordered.shape[0] == 0:
        starts_mask = _core.not_equal(ordered, ordered)
    else:
        starts_mask = _core.concatenate([_one(True, "bool", ordered),
                                         _core.not_equal(ordered[1:], ordered[:-1])])
    (starts,) = _core.nonzero(starts_mask)
    return ordered, order, starts_mask, starts


def _one(value, dtype, like):
    """A 1-element array of `value` on like's GPU."""
    return _core.full((1,), value, dtype=dtype, device=like.device)


def _counts(starts, n):
    return _core.subtract(_core.concatenate([starts, _one(n, "int64", starts)])[1:], starts)


def _inverse(x, order, starts_mask):
    """For each element of x (x's shape), the position of its value among the values:
    the running count of run starts in sorted order, put back in x's order by the
    inverse of the sorting permutation (its argsort)."""
    ranks = _core.subtract(_core.cumulative_sum(starts_mask, dtype="int64"), 1)
    return _core.reshape(ranks[_core.argsort(order)], x.shape)


def unique_values(x, /):
    ordered, _order, _mask, starts = _runs(x, positions=False)
    return ordered[starts]


def unique_counts(x, /):
    ordered, _order, _mask, starts = _runs(x, positions=False)
    return UniqueCountsResult(ordered[starts], _counts(starts, ordered.shape[0]))


def unique_inverse(x, /):
    ordered, order, mask, starts = _runs(x, positions=True)
    return UniqueInverseResult(ordered[starts], _inverse(x, order, mask))


def unique_all(x, /):
    ordered, order, mask, starts = _runs(x, positions=True)
    return UniqueAllResult(ordered[starts], order[starts], _inverse(x, order, mask),
                           _counts(starts, ordered.shape[0]))
