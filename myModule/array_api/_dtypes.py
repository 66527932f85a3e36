"""Data types of the array API namespace: the library's five, as NumPy dtype objects
(``DeviceArray.dtype`` returns those, so ``x.dtype == xp.float32`` holds), and the
data type functions over them. The promotion table is the standard's, restricted to
these dtypes; mixed-kind promotion (integer with float) is not defined by the standard
and is refused, as array-api-strict does.
"""
import builtins
from typing import NamedTuple

import numpy as np

bool = np.dtype("bool")  # noqa: A001 - the standard's name
int32 = np.dtype("int32")
int64 = np.dtype("int64")
float32 = np.dtype("float32")
float64 = np.dtype("float64")

_ALL = (bool, int32, int64, float32, float64)
_INTEGER = (int32, int64)
_FLOAT = (float32, float64)

def _dtype_of(x):
    """The dtype of an array or a dtype; TypeError for anything else."""
    dt = getattr(x, "dtype", x)
    if dt is None:  # np.dtype(None) is float64: not what a caller passing None meant
        raise TypeError("expected an array or a dtype, got %r" % (x,))
    try:
        dt = np.dtype(dt)
    except TypeError:
        raise TypeError("expected an array or a dtype, got %r" % (x,)) from None
    if dt not in _ALL:
        raise TypeError("dtype %s is not supported by myModule.array_api" % dt)
    return dt


class finfo_object(NamedTuple):
    """What finfo() returns: the standard's fields as Python numbers (NumPy's
    own finfo gives NumPy scalars, which the standard does not allow)."""
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype


def finfo(type, /):  # noqa: A002 - the standard's name
    dt = _dtype_of(type)
    if dt not in _FLOAT:
        raise TypeError("finfo() takes a real floating-point dtype, got %s" % dt)
    f = np.finfo(dt)
    return finfo_object(int(f.bits), float(f.eps), float(f.max), float(f.min), float(f.smallest_normal), dt)


def iinfo(type, /):  # noqa: A002
    dt = _dtype_of(type)
    if dt not in _INTEGER:
        raise TypeError("iinfo() takes an integer dtype, got %s" % dt)
    return np.iinfo(dt)


_KINDS = {
    "bool": (bool,),
    "signed integer": _INTEGER,
    "unsigned integer": (),
    "integral": _INTEGER,
    "real floating": _FLOAT,
    "complex floating": (),
    "numeric": _INTEGER + _FLOAT,
}


def isdtype(dtype, kind):
    dt = _dtype_of(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dt, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError("unknown dtype kind %r" % kind)
        return dt in _KINDS[kind]
    return dt == _dtype_of(kind)


def _promote(a, b):
    if a == b:
        return a
    if a in _INTEGER and b in _INTEGER:
        return int64
    if a in _FLOAT and b in _FLOAT:
        return float64
    raise TypeError("the array API defines no promotion of %s with %s" % (a, b))


def _scalar_fits(value, dt):
    """Whether a Python scalar may join an array of dtype dt (its kind, as the standard)."""
    if isinstance(value, builtins.bool):
        return dt == bool
    if isinstance(value, int):
        return dt != bool
    if isinstance(value, float):
        return dt in _FLOAT
    return False


def result_type(*arrays_and_dtypes):
    dtypes = []
    scalars = []
    for x in arrays_and_dtypes:
        if isinstance(x, (builtins.bool, int, float, complex)):
            scalars.append(x)
        else:
            dtypes.append(_dtype_of(x))
    if not dtypes:
        raise ValueError("result_type() needs at least one array or dtype")
    result = dtypes[0]
    for dt in dtypes[1:]:
        result = _promote(result, dt)
    for s in scalars:
        if not _scalar_fits(s, result):
            raise TypeError("a Python %s does not join an array of %s" % (type(s).__name__, result))
    return result


_SAFE = {
    bool: (bool,),
    int32: (int32, int64),
    int64: (int64,),
    float32: (float32, float64),
    float64: (float64,),
}


def can_cast(from_, to, /):
    """The standard's promotion lattice: within a kind, to a wider dtype only."""
    return _dtype_of(to) in _SAFE[_dtype_of(from_)]
