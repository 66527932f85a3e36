"""Elementwise functions of the standard: the op table's functions (ops/, one file
each) under the standard's names. Python scalars join arrays as weak scalars (NEP 50),
which is the standard's rule too."""
import myModule as _package

from .. import _core

# The standard's name -> the op table's (NumPy's) name.
_RENAMED = {
    "abs": "absolute",
    "acos": "arccos",
    "acosh": "arccosh",
    "asin": "arcsin",
    "asinh": "arcsinh",
    "atan": "arctan",
    "atan2": "arctan2",
    "atanh": "arctanh",
    "bitwise_invert": "invert",
    "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift",
    "pow": "power",
}

# The standard's elementwise functions (2024.12), clip and round aside (defined
# below): a name is here when the op table has its operation, under that name or
# the one _RENAMED gives, so an operation added to ops/ under a standard name
# joins this namespace with no edit here.
_STANDARD = (
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_invert", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "ceil", "conj", "copysign", "cos", "cosh", "divide", "equal", "exp", "expm1", "floor",
    "floor_divide", "greater", "greater_equal", "hypot", "imag", "isfinite", "isinf", "isnan",
    "less", "less_equal", "log", "log1p", "log2", "log10", "logaddexp", "logical_and",
    "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "multiply", "negative",
    "nextafter", "not_equal", "positive", "pow", "real", "reciprocal", "remainder", "sign",
    "signbit", "sin", "sinh", "sqrt", "square", "subtract", "tan", "tanh", "trunc",
)


def _unary(name, fn):
    def f(x, /):
        return fn(x)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = fn.__doc__
    return f


def _binary(name, fn):
    def f(x1, x2, /):
        return fn(x1, x2)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = fn.__doc__
    return f


def _table():
    """The standard's functions whose operation this build has (a trimmed build, or an
    operation not written yet, leaves a name out)."""
    out = {}
    ops = {op["name"]: op for op in _core._op_table}
    for name in _STANDARD:
        op = ops.get(_RENAMED.get(name, name))
        if op is None:
            continue
        make = _unary if op["nin"] == 1 else _binary
        out[name] = make(name, getattr(_package, op["name"]))
    return out


functions = _table()


def _open_bound(x, bound, low):
    """The bound clip passes for `bound`: itself, or where it clips nothing (None, or
    a Python int past the integer dtype's end, which NumPy's clip drops too) the
    dtype's own end as a Python scalar, weak, so it never changes the result dtype."""
    import numpy as np
    kind = np.dtype(x.dtype).kind
    if kind in "iu":
        end = np.iinfo(x.dtype).min if low else np.iinfo(x.dtype).max
        if bound is None or (type(bound) is int and (bound <= end if low else bound >= end)):
            return int(end)
        return bound
    if bound is not None:
        return bound
    if kind == "b":
        return not low
    return -float("inf") if low else float("inf")


def clip(x, /, min=None, max=None):  # noqa: A002 - the standard's names
    """Clamp to [min, max], keeping x's dtype (the standard's clip); NaN propagates.
    One kernel (the op table's clip); a missing bound is the dtype's end."""
    from .. import _core as c
    if min is None and max is None:
        return c.copy(x)
    result = c.clip(x, _open_bound(x, min, True), _open_bound(x, max, False))
    return result if result.dtype == x.dtype else c.astype(result, x.dtype)


def round(x, /):  # noqa: A001 - the standard's name
    """Halves to even (numpy.rint); integers and bool are already round and keep their dtype."""
    if x.dtype.kind in "biu":
        return _core.copy(x)
    return _core.rint(x)


#: Every elementwise function of the namespace, sorted (docs/array-api.rst lists them
#: from here: scripts/optable_docs.py).
names = tuple(sorted([*functions, "clip", "round"]))
