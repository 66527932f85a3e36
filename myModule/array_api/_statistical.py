"""Statistical, searching and utility functions of the standard over the library's
reductions (`sum`, `prod`, `max`, `min`, `mean`, `argmax`, `argmin`, `all`, `any`,
`count_nonzero` with axis=, keepdims=, dtype=). var/std over every axis of a DeviceArray are
one pass of their own (_core._var_all); over some axes, compositions of the reductions."""
import math

from .. import _core
from . import _dtypes


def _call(name, x, **kwargs):
    fn = getattr(_core, name, None)
    if fn is None:
        raise NotImplementedError("myModule.%s is not in this build" % name)
    return fn(x, **kwargs)


def _axes(x, axis):
    if axis is None:
        return tuple(range(x.ndim))
    axes = _core._normalize_axis(axis, x.ndim)
    return axes if isinstance(axes, tuple) else (axes,)


def sum(x, /, *, axis=None, dtype=None, keepdims=False):  # noqa: A001
    return _call("sum", x, axis=axis, dtype=dtype, keepdims=keepdims)


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    return _call("prod", x, axis=axis, dtype=dtype, keepdims=keepdims)


def max(x, /, *, axis=None, keepdims=False):  # noqa: A001
    return _call("max", x, axis=axis, keepdims=keepdims)


def min(x, /, *, axis=None, keepdims=False):  # noqa: A001
    return _call("min", x, axis=axis, keepdims=keepdims)


def mean(x, /, *, axis=None, keepdims=False):
    if not _dtypes.isdtype(x.dtype, "real floating"):
        raise TypeError("mean() takes a real floating-point array, got %s" % x.dtype)
    return _call("mean", x, axis=axis, keepdims=keepdims)


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    """NumPy's var(x, ddof=correction). Over every axis of a DeviceArray: one pass on its
    GPU (_core._var_all). Over some axes: two passes (the mean, then the squared
    deviations), as NumPy computes it."""
    if not _dtypes.isdtype(x.dtype, "real floating"):
        raise TypeError("var() takes a real floating-point array, got %s" % x.dtype)
    axes = _axes(x, axis)
    if isinstance(x, _core.DeviceArray) and len(axes) == x.ndim:
        result = _core._var_all(x, float(correction))
        return result.reshape((1,) * x.ndim) if keepdims else result
    n = math.prod(x.shape[a] for a in axes)
    centred = _core.subtract(x, _call("mean", x, axis=axis, keepdims=True))
    total = _call("sum", _core.square(centred), axis=axis, keepdims=keepdims)
    # No degrees of freedom left (n <= correction) divides by zero, as NumPy's var:
    # inf, or NaN where the deviations are zero too. (This module's max is the array API's.)
    return _core.divide(total, float(n - correction) if n > correction else 0.0)


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    return _core.sqrt(var(x, axis=axis, correction=correction, keepdims=keepdims))


def argmax(x, /, *, axis=None, keepdims=False):
    return _call("argmax", x, axis=axis, keepdims=keepdims)


def argmin(x, /, *, axis=None, keepdims=False):
    return _call("argmin", x, axis=axis, keepdims=keepdims)


def count_nonzero(x, /, *, axis=None, keepdims=False):
    return _call("count_nonzero", x, axis=axis, keepdims=keepdims)


def any(x, /, *, axis=None, keepdims=False):  # noqa: A001
    return _call("any", x, axis=axis, keepdims=keepdims)


def all(x, /, *, axis=None, keepdims=False):  # noqa: A001
    return _call("all", x, axis=axis, keepdims=keepdims)


def where(condition, x1, x2, /):
    return _core.where(condition, x1, x2)


def nonzero(x, /):
    """Indices of the nonzero elements, one int64 array per axis (myModule.nonzero: a count
    pass, one wait for the count, then one pass writing every axis's indices)."""
    if x.ndim == 0:
        raise ValueError("nonzero() of a 0-d array is not defined by the standard")
    return _core.nonzero(x)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Running sums (axis may be left out only for a 1-d x; bool and int32 sum
    into the default integer, int64), as ``myModule.cumulative_sum``."""
    return _core.cumulative_sum(x, axis=axis, dtype=dtype, include_initial=include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    return _core.cumulative_prod(x, axis=axis, dtype=dtype, include_initial=include_initial)
