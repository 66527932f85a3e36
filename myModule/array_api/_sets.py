"""Set functions of the standard over the library's stable sort: the flattened
array sorted (argsorted, where positions are asked for), a mask of where each run
of equal values starts (NaN != NaN, so every NaN is a value of its own, as the
standard asks), the run starts through nonzero, and what each function returns
read off them. The values come out sorted (NaN last), as NumPy's.

On a GPU: the sort, the mask, the gathers through it (values, unique_all's
indices), the counts and the running sums of the inverse are kernels on the
array's GPU; the two gathers by positions (argsort's order applied to x, and the
inverse permutation) resolve their index arrays through the host, as every
integer-array index does (ext/indexing.cpp)."""
from collections import namedtuple

from .. import _core

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _runs(x, positions):
    """(sorted values, the order that sorts them or None, the run-start mask), DeviceArrays
    on x's GPU (host data is uploaded, as by every function here). What each run's first
    element is (its value, its position in x) is read through the mask: a boolean index on
    the GPU, no host round trip of positions."""
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
    return ordered, order, starts_mask


def _one(value, dtype, like):
    """A 1-element array of `value` on like's GPU."""
    return _core.full((1,), value, dtype=dtype, device=like.device)


def _counts(starts_mask):
    """The length of each run: the differences of its start positions and the end."""
    (starts,) = _core.nonzero(starts_mask)
    end = _one(starts_mask.shape[0], "int64", starts)
    return _core.subtract(_core.concatenate([starts, end])[1:], starts)


def _inverse(x, order, starts_mask):
    """For each element of x (x's shape), the position of its value among the values:
    the running count of run starts in sorted order, put back in x's order by the
    inverse of the sorting permutation (its argsort)."""
    ranks = _core.subtract(_core.cumulative_sum(starts_mask, dtype="int64"), 1)
    return _core.reshape(ranks[_core.argsort(order)], x.shape)


def unique_values(x, /):
    ordered, _order, mask = _runs(x, positions=False)
    return ordered[mask]


def unique_counts(x, /):
    ordered, _order, mask = _runs(x, positions=False)
    return UniqueCountsResult(ordered[mask], _counts(mask))


def unique_inverse(x, /):
    ordered, order, mask = _runs(x, positions=True)
    return UniqueInverseResult(ordered[mask], _inverse(x, order, mask))


def unique_all(x, /):
    ordered, order, mask = _runs(x, positions=True)
    return UniqueAllResult(ordered[mask], order[mask], _inverse(x, order, mask), _counts(mask))
