"""Data types of the array API namespace: the library's, as NumPy's scalar types
(``xp.float32`` is ``numpy.float32``, as in NumPy's and CuPy's namespaces;
``DeviceArray.dtype`` returns NumPy dtype objects, which compare equal to them, so
``x.dtype == xp.float32`` holds), and the data type functions over them. The standard
asks only ``==`` of a dtype: a type also compares unequal to ``None``, where a NumPy
dtype object equals it (``np.dtype(None)`` is float64). Promotion is the operations' own (the extension's one
promotion, NumPy's over these dtypes): the standard's table where it defines one, and
where it leaves a pair to the library (integer with float, bool with a number) what
NumPy, CuPy and the operations themselves give, so result_type always names the dtype
an operation returns.
"""
import builtins
from typing import NamedTuple

import numpy as np

from .. import _core

bool = np.bool_  # noqa: A001 - the standard's name
int8 = np.int8
int16 = np.int16
int32 = np.int32
int64 = np.int64
uint8 = np.uint8
uint16 = np.uint16
uint32 = np.uint32
uint64 = np.uint64
float32 = np.float32
float64 = np.float64
complex64 = np.complex64
complex128 = np.complex128

# The extension's list (its va_dtype enum) is the one list: a dtype named above that
# the library lacks is not offered. In the standard's order: bool, signed and unsigned
# integers, real floats, complex floats, each by size.
_ALL = tuple(sorted(_core._supported_dtypes(), key=lambda d: ("biufc".index(d.kind), d.itemsize)))
_SIGNED = tuple(d for d in _ALL if d.kind == "i")
_UNSIGNED = tuple(d for d in _ALL if d.kind == "u")
_INTEGER = _SIGNED + _UNSIGNED
_FLOAT = tuple(d for d in _ALL if d.kind == "f")
_COMPLEX = tuple(d for d in _ALL if d.kind == "c")

def _dtype_of(x):
    """The dtype of an array or a dtype; TypeError for anything else."""
    dt = x if isinstance(x, type) else getattr(x, "dtype", x)  # a scalar type's .dtype is a descriptor
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
    """A complex dtype's are those of its real components, dtype included (the
    standard's rule: finfo(complex64).dtype is float32, its bits 32)."""
    dt = _dtype_of(type)
    if dt not in _FLOAT + _COMPLEX:
        raise TypeError("finfo() takes a floating-point dtype, got %s" % dt)
    if dt in _COMPLEX:
        dt = np.dtype("f%d" % (dt.itemsize // 2))
    f = np.finfo(dt)
    return finfo_object(int(f.bits), float(f.eps), float(f.max), float(f.min), float(f.smallest_normal), dt)


def iinfo(type, /):  # noqa: A002
    dt = _dtype_of(type)
    if dt not in _INTEGER:
        raise TypeError("iinfo() takes an integer dtype, got %s" % dt)
    return np.iinfo(dt)


_KINDS = {
    "bool": (np.dtype(bool),),
    "signed integer": _SIGNED,
    "unsigned integer": _UNSIGNED,
    "integral": _INTEGER,
    "real floating": _FLOAT,
    "complex floating": _COMPLEX,
    "numeric": _INTEGER + _FLOAT + _COMPLEX,
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
    """The operations' own promotion (the extension's, NumPy's promote_types over these
    dtypes): what add(x1, x2) returns is what result_type(x1, x2) says."""
    return _core._promote_types(a, b)


def result_type(*arrays_and_dtypes):
    """NumPy's result_type over these dtypes, as every operation promotes (the
    extension's: the first loop type all of them cast to safely, Python scalars
    joining by NEP 50)."""
    if not builtins.any(type(x) not in (builtins.bool, int, float, complex) for x in arrays_and_dtypes):
        raise ValueError("result_type() needs at least one array or dtype")
    return _core._result_type(*(x if type(x) in (builtins.bool, int, float, complex) else _dtype_of(x)
                                for x in arrays_and_dtypes))


def can_cast(from_, to, /):
    """Whether from_ casts to `to` safely: `to` is what the two promote to (NumPy's
    safe casting over these dtypes)."""
    to = _dtype_of(to)
    return _promote(_dtype_of(from_), to) == to
