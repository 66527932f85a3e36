"""Creation functions of the standard over myModule's (ext/creation.cpp): the
standard's keyword-only dtype/device/copy and its default dtypes (int64, float64)."""
import builtins

import numpy as np

from .. import _core
from . import _dtypes


def _dtype(dtype):
    return None if dtype is None else _dtypes._dtype_of(dtype)


def _shape(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    dtype = _dtype(dtype)
    if isinstance(obj, _core.DeviceArray):
        return _core.asarray(obj, dtype=dtype, device=device, copy=copy)
    if copy is False:
        raise ValueError("asarray(copy=False): host data cannot be used in place on a GPU")
    if dtype is None and not hasattr(obj, "dtype") and not hasattr(obj, "__dlpack__"):
        # The standard's defaults for Python scalars and sequences (bool, int64, float64).
        host = np.asarray(obj)
        if host.dtype == np.uint64 and host.size and int(host.max()) > np.iinfo(np.int64).max:
            # NumPy would keep these as uint64; the standard's default integer is int64,
            # which cannot hold them: never wrap.
            raise OverflowError("Python integer %d out of bounds for int64" % int(host.max()))
        if host.dtype.kind in "iu" and host.dtype != np.int64:
            host = host.astype(np.int64)
        elif host.dtype.kind == "f" and host.dtype != np.float64:
            host = host.astype(np.float64)
        obj = host
    return _core.asarray(obj, dtype=dtype, device=device)


def empty(shape, *, dtype=None, device=None):
    return _core.empty(_shape(shape), dtype=_dtype(dtype) or _dtypes.float64, device=device)


def zeros(shape, *, dtype=None, device=None):
    return _core.zeros(_shape(shape), dtype=_dtype(dtype) or _dtypes.float64, device=device)


def ones(shape, *, dtype=None, device=None):
    return _core.ones(_shape(shape), dtype=_dtype(dtype) or _dtypes.float64, device=device)


def _fill_dtype(fill_value, dtype):
    if dtype is not None:
        return _dtype(dtype)
    if isinstance(fill_value, builtins.bool):
        return _dtypes.bool
    if isinstance(fill_value, int):
        return _dtypes.int64
    if isinstance(fill_value, float):
        return _dtypes.float64
    if isinstance(fill_value, complex):
        return _dtypes.complex128
    return _dtypes._dtype_of(fill_value)  # a 0-d array


def full(shape, fill_value, *, dtype=None, device=None):
    return _core.full(_shape(shape), fill_value, dtype=_fill_dtype(fill_value, dtype), device=device)


def empty_like(x, /, *, dtype=None, device=None):
    return _core.empty_like(x, dtype=_dtype(dtype), device=device)


def zeros_like(x, /, *, dtype=None, device=None):
    return _core.zeros_like(x, dtype=_dtype(dtype), device=device)


def ones_like(x, /, *, dtype=None, device=None):
    return _core.ones_like(x, dtype=_dtype(dtype), device=device)


def full_like(x, /, fill_value, *, dtype=None, device=None):
    return _core.full_like(x, fill_value, dtype=_dtype(dtype), device=device)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    if dtype is None:
        ints = builtins.all(isinstance(v, int) for v in (start, stop, step) if v is not None)
        dtype = _dtypes.int64 if ints else _dtypes.float64
    return _core.arange(start, stop, step, dtype=_dtype(dtype), device=device)


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    if dtype is None:
        # the default floating dtype, or the default complex one for a complex end
        dtype = _dtypes.complex128 if isinstance(start, complex) or isinstance(stop, complex) else _dtypes.float64
    return _core.linspace(start, stop, num, endpoint=endpoint, dtype=_dtype(dtype), device=device)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    return _core.eye(n_rows, n_cols, k=k, dtype=_dtype(dtype) or _dtypes.float64, device=device)


def from_dlpack(x, /, *, device=None, copy=None):
    if copy is True or device is not None:
        return asarray(_core.from_dlpack(x), device=device, copy=copy)
    return _core.from_dlpack(x)


def meshgrid(*arrays, indexing="xy"):
    """Broadcast views of the 1-d inputs (no copies), as numpy.meshgrid(copy=False)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing must be 'xy' or 'ij', got %r" % (indexing,))
    lengths = [a.shape[0] for a in arrays]
    if indexing == "xy" and len(arrays) > 1:
        lengths[0], lengths[1] = lengths[1], lengths[0]
    out = []
    for k, a in enumerate(arrays):
        axis = k
        if indexing == "xy" and len(arrays) > 1 and k < 2:
            axis = 1 - k
        view = [1] * len(arrays)
        view[axis] = a.shape[0]
        out.append(_core.broadcast_to(_core.reshape(a, tuple(view)), tuple(lengths)))
    return out


def _triangle(x, k, lower):
    rows, cols = x.shape[-2], x.shape[-1]
    i = _core.reshape(_core.arange(rows, dtype=_dtypes.int64, device=x.device), (rows, 1))
    j = _core.arange(cols, dtype=_dtypes.int64, device=x.device)
    offset = _core.subtract(j, i)  # (rows, cols): column minus row
    keep = _core.less_equal(offset, k) if lower else _core.greater_equal(offset, k)
    return _core.where(keep, x, _core.zeros((), dtype=x.dtype, device=x.device))


def tril(x, /, *, k=0):
    return _triangle(x, k, True)


def triu(x, /, *, k=0):
    return _triangle(x, k, False)
