"""Set functions of the standard over the library's stable sort: the flattened
array sorted (argsorted, where positions are asked for), a mask of where each run
of equal values starts (NaN != NaN, so every NaN is a value of its own, as the
standard asks), the run starts through nonzero, and what each function returns
read off them. The values come out sorted (NaN last), as NumPy's.

On a GPU: the sort (and argsort, where positions are asked for), the mask, the
gathers through it (values, unique_all's indices), the counts and the running
sums of the inverse are kernels on the array's GPU; the inverse permutation's
gather resolves its index array through the host, as every integer-array index
does (ext/indexing.cpp). int64 values spanning less than 2**31 are sorted as int32
offsets from their minimum."""
from collections import namedtuple

from .. import _core

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


# Integer keys whose values span less than 2**31 sort as int32 offsets from their minimum:
# half the bytes and half the radix passes of int64 keys. Worth the two reductions and
# the wait for their results from this many elements on.
_NARROW_FROM = 1 << 16


def _narrowed(flat):
    """(the keys to sort, the offset to add back to them or None): int64 values of a
    small span as int32 offsets from their minimum, else the values themselves."""
    if flat.dtype != "int64" or flat.shape[0] < _NARROW_FROM:
        return flat, None
    low, high = (int(v) for v in _core.stack([_core.min(flat), _core.max(flat)]).get())  # one wait
    if high - low >= 2**31:
        return flat, None
    return _core.astype(_core.subtract(flat, low), "int32"), low


def _runs(x, positions):
    """(sorted keys, the order that sorts them or None, the run-start mask, the keys'
    offset or None), DeviceArrays on x's GPU (host data is uploaded, as by every function
    here). The sorted keys come from a sort of their own, not from a gather by the order
    (a gather by positions resolves its index on the host). What each run's first element
    is (its value, its position in x) is read through the mask: a boolean index, on the
    GPU."""
    flat = _core.reshape(x, (-1,))
    keys, offset = _narrowed(flat)
    order = _core.argsort(keys) if positions else None  # stable: a run's first is its first occurrence
    ordered = _core.sort(keys)
    if ordered.shape[0] == 0:
        starts_mask = _core.not_equal(ordered, ordered)
    else:
        starts_mask = _core.concatenate([_one(True, "bool", ordered),
                                         _core.not_equal(ordered[1:], ordered[:-1])])
    return ordered, order, starts_mask, offset


def _values(x, ordered, mask, offset):
    """The distinct values, in x's dtype."""
    values = ordered[mask]
    return values if offset is None else _core.add(_core.astype(values, x.dtype), offset)


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
    ordered, _order, mask, offset = _runs(x, positions=False)
    return _values(x, ordered, mask, offset)


def unique_counts(x, /):
    ordered, _order, mask, offset = _runs(x, positions=False)
    return UniqueCountsResult(_values(x, ordered, mask, offset), _counts(mask))


def unique_inverse(x, /):
    ordered, order, mask, offset = _runs(x, positions=True)
    return UniqueInverseResult(_values(x, ordered, mask, offset), _inverse(x, order, mask))


def unique_all(x, /):
    ordered, order, mask, offset = _runs(x, positions=True)
    return UniqueAllResult(_values(x, ordered, mask, offset), order[mask], _inverse(x, order, mask),
                           _counts(mask))
