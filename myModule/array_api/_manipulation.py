"""Manipulation and indexing functions of the standard over the library's views and
copies (ext/manipulation.cpp, ext/indexing.cpp)."""
import operator

import numpy as np

from .. import _core


def _axes(axis, ndim, allow_duplicates=False):
    """An axis or a sequence of axes as a tuple, by the extension's one converter
    (numpy.exceptions.AxisError out of range, ValueError when repeated)."""
    axes = _core._normalize_axis(axis if isinstance(axis, (tuple, list)) else operator.index(axis), ndim,
                                 allow_duplicates)
    return axes if isinstance(axes, tuple) else (axes,)


def reshape(x, /, shape, *, copy=None):
    return _core.reshape(x, tuple(shape) if not isinstance(shape, int) else (shape,), copy=copy)


def permute_dims(x, /, axes):
    return _core.permute_dims(x, tuple(axes))


def squeeze(x, /, axis):
    return _core.squeeze(x, axis)


def expand_dims(x, /, axis=0):
    return _core.expand_dims(x, axis)


def broadcast_to(x, /, shape):
    return _core.broadcast_to(x, tuple(shape))


def broadcast_arrays(*arrays):
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    return [_core.broadcast_to(a, shape) for a in arrays]


def concat(arrays, /, *, axis=0):
    arrays = list(arrays)
    if axis is None:
        arrays = [_core.reshape(a, (-1,)) for a in arrays]
        axis = 0
    return _core.concatenate(arrays, axis=axis)


def stack(arrays, /, *, axis=0):
    return _core.stack(list(arrays), axis=axis)


def unstack(x, /, *, axis=0):
    if x.ndim == 0:
        raise ValueError("unstack() needs at least one dimension")
    axis = _core._normalize_axis(axis, x.ndim)
    lead = (slice(None),) * axis
    return tuple(x[lead + (i,)] for i in range(x.shape[axis]))


def take(x, indices, /, *, axis=None):
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take(): axis is required for arrays of more than one dimension")
        axis = 0
    return x[(slice(None),) * _core._normalize_axis(axis, x.ndim) + (indices,)]


def take_along_axis(x, indices, /, *, axis=-1):
    """numpy.take_along_axis: x[..., indices[..., j, ...], ...] along `axis`, the other axes
    of `indices` broadcast against x's. One gather, its index arrays resolved on the host
    (ext/indexing.cpp), as take's."""
    if x.ndim != indices.ndim:
        raise ValueError("take_along_axis(): indices and x must have the same number of dimensions, "
                         "got %d and %d" % (indices.ndim, x.ndim))
    axis = _core._normalize_axis(axis, x.ndim)
    key = []
    for d in range(x.ndim):
        if d == axis:
            key.append(indices)
        else:
            shape = [1] * x.ndim
            shape[d] = x.shape[d]
            key.append(np.arange(x.shape[d], dtype=np.int64).reshape(shape))
    return x[tuple(key)]


def tile(x, repetitions, /):
    """numpy.tile: x repeated along each axis (repetitions longer than x.ndim add leading
    axes, shorter ones are padded with 1 in front): one copy of a broadcast view."""
    reps = tuple(operator.index(r) for r in repetitions)
    if any(r < 0 for r in reps):
        raise ValueError("tile(): negative repetitions are not allowed, got %r" % (reps,))
    ndim = max(x.ndim, len(reps))
    reps = (1,) * (ndim - len(reps)) + reps
    shape = (1,) * (ndim - x.ndim) + tuple(x.shape)
    # (s0, s1, ...) -> (1, s0, 1, s1, ...) -> (r0, s0, r1, s1, ...) -> (r0*s0, r1*s1, ...)
    spread = _core.broadcast_to(_core.reshape(x, tuple(v for n in shape for v in (1, n))),
                                tuple(v for r, n in zip(reps, shape) for v in (r, n)))
    return _core.reshape(spread, tuple(r * n for r, n in zip(reps, shape)), copy=True)


def astype(x, dtype, /, *, copy=True, device=None):
    from ._dtypes import _dtype_of
    return _core.astype(x, _dtype_of(dtype), copy=copy, device=device)


def roll(x, /, shift, *, axis=None):
    """Two slices concatenated per axis (copies), as numpy.roll."""
    if axis is None:
        return reshape(roll(_core.reshape(x, (-1,)), shift, axis=0), x.shape)
    shifts = (shift,) if isinstance(shift, int) else tuple(shift)
    axes = _axes(axis, x.ndim, allow_duplicates=True)  # numpy.roll adds repeated axes' shifts
    if len(shifts) != len(axes):
        raise ValueError("roll(): shift and axis must have the same length")
    out = x
    for s, a in zip(shifts, axes):
        n = x.shape[a]
        if n == 0 or s % n == 0:
            continue
        s %= n
        lead = (slice(None),) * a
        out = _core.concatenate([out[lead + (slice(n - s, None),)], out[lead + (slice(0, n - s),)]], axis=a)
    return _core.copy(out) if out is x else out


def repeat(x, repeats, /, *, axis=None):
    """A gather with host-computed indices (repeats as an array is read to the host)."""
    if axis is None:
        x = _core.reshape(x, (-1,))
        axis = 0
    axis = _core._normalize_axis(axis, x.ndim)
    counts = repeats.get() if isinstance(repeats, _core.DeviceArray) else repeats
    index = np.repeat(np.arange(x.shape[axis], dtype=np.int64), counts)
    return x[(slice(None),) * axis + (_core.asarray(index, device=x.device),)]


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    n = operator.index(n)
    if n < 0:
        raise ValueError("order must be non-negative but got %d" % n)
    if x.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = _core._normalize_axis(axis, x.ndim)
    parts = [p for p in (prepend, x, append) if p is not None]
    out = _core.concatenate(parts, axis=axis) if len(parts) > 1 else x
    lead = (slice(None),) * axis
    for _ in range(n):
        out = _core.subtract(out[lead + (slice(1, None),)], out[lead + (slice(None, -1),)])
    return out
