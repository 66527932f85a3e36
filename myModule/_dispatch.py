"""NumPy's dispatch protocols for DeviceArray: ``__array_ufunc__`` (NEP 13) and
``__array_function__`` (NEP 18).

NumPy calls on device arrays run on the GPU through the myModule functions:
``np.add(d, 1)``, ``np.maximum(d, e, out=d)``, ``np.add.reduce(d, axis=0)``,
``np.sum(d)``, ``np.reshape(d, (2, -1))``, ``np.concatenate([d, e])``. What the
library does not have raises TypeError naming the ufunc or function: a NumPy call
never copies device data to the host behind the user's back (``np.asarray(d)`` and
``d.get()`` are the explicit copies).

The ufuncs come from the op table: every elementwise declaration whose
``reference`` is a NumPy ufunc ('numpy.add', 'numpy.true_divide', a user op's
'numpy.heaviside') runs through the function of the same declaration. The
myModule functions are looked up when called, so a function added to the package
later (or replaced, as the tests do) is the one that runs.

DeviceArray's two methods call them through the hook the package hands the
extension at import (``_core._install_hooks(dispatch=...)``); they take NumPy
arrays too, which is how the tests check the routing on a machine without a GPU.
"""
import inspect
import operator
from typing import Any, Callable

import numpy as np

import myModule as _package  # the package being initialised: looked up at call time
from . import _core

__all__ = ["array_function", "array_ufunc"]

#: NumPy's "argument not given" marker (np.sum's keepdims=<no value>).
_NOVALUE = np._NoValue
_ABSENT = object()
_DeviceArray = _core.DeviceArray
_NDARRAY_UFUNC = np.ndarray.__array_ufunc__
_NDARRAY_FUNCTION = np.ndarray.__array_function__


def _op_of_reference(dotted, kind):
    """The declaration of kind `kind` whose NumPy counterpart is `dotted`."""
    for op in _core._op_table:
        if op["kind"] == kind and op["reference"] == dotted:
            return op
    return None


def _table_ufuncs():
    """{NumPy ufunc: declaration} for the elementwise ops whose reference is one."""
    table = {}
    for op in _core._op_table:
        module, _, attr = op["reference"].rpartition(".")
        ufunc = getattr(np, attr, None) if module == "numpy" else None
        if (op["kind"] == "elementwise" and isinstance(ufunc, np.ufunc) and op["nparams"] == 0
                and ufunc.nin == op["nin"] and ufunc.nout == 1):
            table[ufunc] = op
    return table


UFUNCS = _table_ufuncs()

# Which NumPy function each ufunc's reduce is (np.sum is np.add.reduce with
# axis=None): a fact of NumPy's, not a list of our operations. The reduction op
# whose reference names that function runs it, when the table has one.
_REDUCE_IS: "dict[np.ufunc, Callable[..., Any]]" = {
    np.add: np.sum, np.multiply: np.prod, np.maximum: np.max, np.minimum: np.min}
# {ufunc: (reduction op name, whether NumPy's function takes dtype=)}
REDUCTIONS = {}
for _ufunc, _function in _REDUCE_IS.items():
    _op = _op_of_reference("numpy." + _function.__name__, "reduction")
    if _op is not None:
        REDUCTIONS[_ufunc] = (_op["name"], "dtype" in inspect.signature(_function).parameters)


def _target(name, caller):
    """The package's function `name`; TypeError naming `caller` when this build lacks it."""
    fn = getattr(_package, name, None)
    if fn is None:
        raise TypeError("%s is not supported for DeviceArray: this build of myModule has no "
                        "%s() yet" % (caller, name))
    return fn


def _unsupported(what, detail=""):
    return TypeError(
        "%s is not supported for DeviceArray%s (myModule runs on the GPU only what it has; "
        "np.asarray(d) or d.get() copies to the host explicitly)" % (what, detail))


# ------------------------------------------------------------------ __array_ufunc__

def _handled_by_us(obj):
    """Whether an operand of a ufunc is ours to take: no __array_ufunc__ of its own
    (scalars, lists), NumPy's, ours, or a GPU array the functions import."""
    impl = getattr(type(obj), "__array_ufunc__", _ABSENT)
    if impl is _ABSENT or impl is _NDARRAY_UFUNC or type(obj) is _DeviceArray:
        return True
    if impl is None:  # the type refuses ufuncs altogether (NEP 13)
        return False
    return hasattr(type(obj), "__cuda_array_interface__")


def _is_true(where):
    """where= that selects every element: True itself (a Python or NumPy bool)."""
    return isinstance(where, (bool, np.bool_)) and bool(where)


def _ufunc_name(ufunc, method):
    name = "numpy." + getattr(ufunc, "__name__", repr(ufunc))
    return name if method == "__call__" else "%s.%s" % (name, method)


def _single_out(out, ufunc, what):
    """out= as NumPy passes it (a tuple of one per output) or as a user does."""
    if isinstance(out, tuple):
        if len(out) != ufunc.nout:
            raise ValueError("%s: the 'out' tuple must have exactly one entry per ufunc output "
                             "(%d), not %d" % (what, ufunc.nout, len(out)))
        return out[0]
    return out


def _cast_inputs(inputs, dtype, what):
    """Inputs converted to `dtype` for dtype= (Python scalars stay weak, as NumPy's),
    each under the 'same_kind' rule as NumPy checks it."""
    cast = []
    for k, x in enumerate(inputs):
        if isinstance(x, (bool, int, float)):
            cast.append(x)
            continue
        source = getattr(x, "dtype", None)
        if source is None:
            x = np.asarray(x)
            source = x.dtype
        source = np.dtype(source)
        if not np.can_cast(source, dtype, "same_kind"):
            raise TypeError("%s: cannot cast input %d from %s to %s with casting rule 'same_kind'"
                            % (what, k, source, dtype))
        if source == dtype:
            cast.append(x)
        elif isinstance(x, (np.ndarray, np.generic)):
            cast.append(x.astype(dtype))
        else:
            cast.append(_package.astype(x, dtype))
    return cast


def _ufunc_call(ufunc, op, inputs, kwargs):
    what = _ufunc_name(ufunc, "__call__")
    if len(inputs) != ufunc.nin:
        raise TypeError("%s takes %d inputs, %d given" % (what, ufunc.nin, len(inputs)))
    out = _single_out(kwargs.pop("out", None), ufunc, what)
    dtype = kwargs.pop("dtype", None)
    casting = kwargs.pop("casting", "same_kind")
    where = kwargs.pop("where", True)
    order = kwargs.pop("order", "K")
    kwargs.pop("subok", None)  # DeviceArray has no subclasses to keep or drop
    signature = kwargs.pop("signature", None)
    if kwargs:
        raise TypeError("%s got unexpected keyword arguments: %s" % (what, ", ".join(sorted(kwargs))))
    if casting != "same_kind":
        raise _unsupported("%s with casting=%r" % (what, casting), " (only 'same_kind')")
    if not _is_true(where):
        raise _unsupported("%s with where=" % what)
    if order not in ("K", "C"):  # results are C-contiguous, which 'K' allows
        raise _unsupported("%s with order=%r" % (what, order))
    if signature is not None:
        raise _unsupported("%s with signature=" % what)
    if dtype is not None:
        dtype = np.dtype(dtype)
        if not dtype.isnative or op["results"].get(dtype.name) != dtype.name:
            raise _unsupported("%s with dtype=%s" % (what, dtype),
                               " (the op computes %s)" % ", ".join(sorted(op["results"])))
        inputs = _cast_inputs(inputs, dtype, what)
    fn = _target(op["name"], what)
    if out is None:
        return fn(*inputs)
    return fn(*inputs, out=out)


def _ufunc_reduce(ufunc, inputs, kwargs):
    what = _ufunc_name(ufunc, "reduce")
    if ufunc not in REDUCTIONS:
        raise _unsupported(what)
    name, takes_dtype = REDUCTIONS[ufunc]
    if len(inputs) != 1:
        raise TypeError("%s takes one array, %d given" % (what, len(inputs)))
    array = inputs[0]
    axis = kwargs.pop("axis", _ABSENT)
    dtype = kwargs.pop("dtype", None)
    out = _single_out(kwargs.pop("out", None), ufunc, what)
    keepdims = kwargs.pop("keepdims", False)
    initial = kwargs.pop("initial", _NOVALUE)
    where = kwargs.pop("where", True)
    if kwargs:
        raise TypeError("%s got unexpected keyword arguments: %s" % (what, ", ".join(sorted(kwargs))))
    if axis is _ABSENT:  # reduce's default is the first axis; a 0-d array has none
        axis = None if getattr(array, "ndim", 1) == 0 else 0
    if dtype is not None and not takes_dtype:  # max/min: only the dtype they keep anyway
        if np.dtype(dtype) != getattr(array, "dtype", None):
            raise _unsupported("%s with dtype=%s" % (what, np.dtype(dtype)))
        dtype = None
    return _reduce(name, what, array, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                   initial=initial, where=where)


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """DeviceArray.__array_ufunc__: the ufuncs of the op table (method '__call__') and
    the reductions sum/prod/max/min (method 'reduce') on the GPU; TypeError for
    the rest."""
    out = kwargs.get("out", None)
    outs = out if isinstance(out, tuple) else (out,)
    for obj in inputs + outs:
        if obj is not None and not _handled_by_us(obj):
            return NotImplemented
    if method == "__call__" and ufunc is np.matmul:
        if kwargs or len(inputs) != 2:
            raise _unsupported("numpy.matmul with %s" % (", ".join(sorted(kwargs)) or "%d inputs" % len(inputs)))
        return _core.matmul(*inputs)
    if method == "__call__":
        op = UFUNCS.get(ufunc)
        if op is None:
            raise _unsupported(_ufunc_name(ufunc, method), ": the op table has no counterpart")
        return _ufunc_call(ufunc, op, inputs, dict(kwargs))
    if method == "reduce":
        return _ufunc_reduce(ufunc, inputs, dict(kwargs))
    raise _unsupported(_ufunc_name(ufunc, method))


# ------------------------------------------------------------------ reductions

def _covers_every_axis(array, axis):
    """Whether `axis` names every dimension of `array` once (a full reduction)."""
    ndim = getattr(array, "ndim", None)
    if not isinstance(ndim, int):
        return False
    axes = axis if isinstance(axis, tuple) else (axis,)
    try:
        axes = [operator.index(a) for a in axes]
    except TypeError:
        return False
    if any(not -ndim <= a < ndim for a in axes):
        return False  # the function raises NumPy's AxisError
    return len(axes) == ndim and len({a % ndim for a in axes}) == ndim


def _reduce(name, what, a, axis=None, dtype=None, out=None, keepdims=_NOVALUE,
            initial=_NOVALUE, where=_NOVALUE):
    """myModule.<name>(a, ...) with only the arguments that differ from a full
    reduction's defaults, so that full reductions need no axis support."""
    if initial is not _NOVALUE:
        raise _unsupported("%s with initial=" % what)
    if where is not _NOVALUE and not _is_true(where):
        raise _unsupported("%s with where=" % what)
    keep = keepdims is not _NOVALUE and bool(keepdims)
    kwargs = {}
    if axis is not None and (keep or not _covers_every_axis(a, axis)):
        kwargs["axis"] = axis
    if dtype is not None:
        kwargs["dtype"] = dtype
    if out is not None:
        kwargs["out"] = out
    if keep:
        kwargs["keepdims"] = True
    return _target(name, what)(a, **kwargs)


def _reduction(name, numpy_name):
    what = "numpy." + numpy_name

    def with_dtype(a, axis=None, dtype=None, out=None, keepdims=_NOVALUE, initial=_NOVALUE,
                   where=_NOVALUE):
        return _reduce(name, what, a, axis, dtype, out, keepdims, initial, where)

    def without_dtype(a, axis=None, out=None, keepdims=_NOVALUE, initial=_NOVALUE, where=_NOVALUE):
        return _reduce(name, what, a, axis, None, out, keepdims, initial, where)

    def mean(a, axis=None, dtype=None, out=None, keepdims=_NOVALUE, *, where=_NOVALUE):
        return _reduce(name, what, a, axis, dtype, out, keepdims, _NOVALUE, where)

    def arg(a, axis=None, out=None, *, keepdims=_NOVALUE):
        return _reduce(name, what, a, axis, None, out, keepdims)

    # NumPy's own signatures: np.max (np.all, np.any) takes no dtype=, np.mean no initial=, np.argmax neither.
    signature = {"max": without_dtype, "amax": without_dtype, "min": without_dtype,
                 "amin": without_dtype, "all": without_dtype, "any": without_dtype, "mean": mean,
                 "argmax": arg, "argmin": arg}
    return signature.get(numpy_name, with_dtype)


# ------------------------------------------------------------------ __array_function__

def _where(condition, x=_ABSENT, y=_ABSENT, /):
    if x is _ABSENT and y is _ABSENT:  # NumPy: np.asarray(condition).nonzero()
        return _target("nonzero", "numpy.where")(condition)
    if x is _ABSENT or y is _ABSENT:
        raise ValueError("either both or neither of x and y should be given")
    return _target("where", "numpy.where")(condition, x, y)


def _nonzero(a):
    return _target("nonzero", "numpy.nonzero")(a)


def _flatnonzero(a):
    return _target("nonzero", "numpy.flatnonzero")(_target("ravel", "numpy.flatnonzero")(a))[0]


def _argwhere(a):
    """NumPy's: the indices as the rows of an (N, a.ndim) array; a 0-d array is
    taken as one element (its rows then have no column)."""
    nonzero = _target("nonzero", "numpy.argwhere")
    if np.ndim(a) == 0:
        return _package.stack(nonzero(_package.reshape(a, (1,))), axis=1)[:, :0]
    return _package.stack(nonzero(a), axis=1)


def _reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):
    if shape is None:
        shape = newshape
    if shape is None:
        raise TypeError("reshape() missing required argument 'shape'")
    return _target("reshape", "numpy.reshape")(a, shape, order=order, copy=copy)


def _ravel(a, order="C"):
    return _target("ravel", "numpy.ravel")(a, order=order)


def _transpose(a, axes=None):
    return _target("transpose", "numpy.transpose")(a, axes)


def _permute_dims(a, axes=None):
    if axes is None:
        return _target("transpose", "numpy.permute_dims")(a)
    return _target("permute_dims", "numpy.permute_dims")(a, axes)


def _broadcast_to(array, shape, subok=False):
    return _target("broadcast_to", "numpy.broadcast_to")(array, shape)


def _joining(name):
    def join(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
        return _target(name, "numpy." + name)(arrays, axis=axis, out=out, dtype=dtype,
                                              casting=casting)
    return join


def _like(name):
    def like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
        kwargs = {"dtype": dtype, "order": order, "shape": shape}
        if device is not None:
            kwargs["device"] = device
        return _target(name, "numpy." + name)(a, **kwargs)
    return like


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    kwargs = {"dtype": dtype, "order": order, "shape": shape}
    if device is not None:
        kwargs["device"] = device
    return _target("full_like", "numpy.full_like")(a, fill_value, **kwargs)


def _copy(a, order="K", subok=False):
    # The copy is C-contiguous: what 'K' and 'A' give for every C-ordered source,
    # and the same values for any other.
    return _target("copy", "numpy.copy")(a, order="C" if order in ("K", "A") else order)


def _astype(x, dtype, /, *, copy=True, device=None):
    kwargs = {"copy": copy}
    if device is not None:
        kwargs["device"] = device
    return _target("astype", "numpy.astype")(x, dtype, **kwargs)


def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    if offset != 0 or axis1 != 0 or axis2 != 1 or dtype is not None or out is not None:
        raise _unsupported("numpy.trace with offset=, axis1=, axis2=, dtype= or out=")
    return _target("trace", "numpy.trace")(a)


def _sorting(name):
    def sort(a, axis=-1, kind=None, order=None, *, stable=None):
        if order is not None:
            raise _unsupported("numpy.%s with order=" % name)
        return _target(name, "numpy." + name)(a, axis=axis, kind=kind, stable=stable)
    return sort


def _searchsorted(a, v, side="left", sorter=None):
    return _target("searchsorted", "numpy.searchsorted")(a, v, side=side, sorter=sorter)


def _scanning(name):
    def scan(a, axis=None, dtype=None, out=None):
        kwargs = {"axis": axis, "dtype": dtype}
        if out is not None:
            kwargs["out"] = out
        return _target(name, "numpy." + name)(a, **kwargs)
    return scan


def _cumulative(name):
    def cumulative(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        kwargs = {"axis": axis, "dtype": dtype, "include_initial": include_initial}
        if out is not None:
            kwargs["out"] = out
        return _target(name, "numpy." + name)(x, **kwargs)
    return cumulative


def _shape(a):
    return a.shape


def _ndim(a):
    return a.ndim


def _size(a, axis=None):
    if axis is None:
        return a.size
    shape = a.shape
    # NumPy's np.size normalises as every axis argument: AxisError, "repeated axis"
    axes = _core._normalize_axis(axis if isinstance(axis, tuple) else (axis,), a.ndim)
    n = 1
    for ax in axes:
        n *= shape[ax]
    return n


def _dtype_of(x):
    """A GPU array stands in for its dtype (NumPy 2 promotes arrays by dtype alone)."""
    if isinstance(x, _DeviceArray) or (not isinstance(x, type) and
                                       hasattr(type(x), "__cuda_array_interface__")):
        return x.dtype
    return x


def _result_type(*arrays_and_dtypes):
    return np.result_type(*[_dtype_of(x) for x in arrays_and_dtypes])


def _can_cast(from_, to, casting="safe"):
    return np.can_cast(_dtype_of(from_), to, casting)


def _passthrough(name, what):
    def call(*args, **kwargs):
        return _target(name, what)(*args, **kwargs)
    return call


def _table_functions():
    """NumPy function -> implementation: the non-ufunc counterparts of the op table
    (reductions, where, a user op naming a NumPy function), then the array
    functions of the library (creation, manipulation, reductions over axes)."""
    table = {}
    for op in _core._op_table:
        module, _, attr = op["reference"].rpartition(".")
        fn = getattr(np, attr, None) if module == "numpy" else None
        if fn is None or isinstance(fn, np.ufunc) or not callable(fn):
            continue
        if op["kind"] == "reduction":
            table[fn] = _reduction(op["name"], attr)
        else:
            table[fn] = _passthrough(op["name"], "numpy." + attr)
    # mean/argmax/argmin are reductions over axes beside the table's; amax/amin
    # are NumPy's other names of max/min.
    for numpy_name, name in (("amax", "max"), ("amin", "min"), ("mean", "mean"),
                             ("argmax", "argmax"), ("argmin", "argmin")):
        fn = getattr(np, numpy_name, None)
        if fn is not None and fn not in table:
            table[fn] = _reduction(name, numpy_name)
    library = {
        "where": _where, "nonzero": _nonzero, "flatnonzero": _flatnonzero, "argwhere": _argwhere,
        "reshape": _reshape, "ravel": _ravel, "transpose": _transpose,
        "permute_dims": _permute_dims,
        "broadcast_to": _broadcast_to, "concatenate": _joining("concatenate"),
        "stack": _joining("stack"), "zeros_like": _like("zeros_like"),
        "ones_like": _like("ones_like"), "empty_like": _like("empty_like"),
        "full_like": _full_like, "copy": _copy, "astype": _astype, "trace": _trace,
        "shape": _shape, "ndim": _ndim, "size": _size, "result_type": _result_type,
        "can_cast": _can_cast, "sort": _sorting("sort"), "argsort": _sorting("argsort"),
        "searchsorted": _searchsorted,
        # numpy.real and numpy.imag are x.real and x.imag, no ufuncs (myModule/_parts.py)
        "real": _passthrough("real", "numpy.real"), "imag": _passthrough("imag", "numpy.imag"),
        "cumsum": _scanning("cumsum"), "cumprod": _scanning("cumprod"),
        "cumulative_sum": _cumulative("cumulative_sum"), "cumulative_prod": _cumulative("cumulative_prod"),
    }
    # The declared array functions (ext/array_functions.def) that name a NumPy
    # function of the same signature.
    for declared in _core._array_functions:
        if declared["numpy"].startswith("numpy."):
            numpy_name = declared["numpy"][len("numpy."):]
            library[numpy_name] = _passthrough(declared["name"], declared["numpy"])
    for numpy_name, impl in library.items():
        fn = getattr(np, numpy_name, None)
        # permute_dims is transpose itself in some NumPy versions: transpose's
        # arguments win.
        if fn is not None and not (numpy_name == "permute_dims" and fn in table):
            table[fn] = impl
    return table


FUNCTIONS = _table_functions()


def _function_name(func):
    return "%s.%s" % (getattr(func, "__module__", None) or "numpy", getattr(func, "__name__", repr(func)))


def _type_handled(cls):
    """NumPy's arrays (subclasses that keep NumPy's protocol), ours, and GPU arrays
    the functions import; a type with a protocol of its own handles itself."""
    return (cls is _DeviceArray or getattr(cls, "__array_function__", None) is _NDARRAY_FUNCTION
            or hasattr(cls, "__cuda_array_interface__"))


def array_function(self, func, types, args, kwargs):
    """DeviceArray.__array_function__: the NumPy functions the library has, on the
    GPU; TypeError naming any other."""
    for cls in types:
        if not _type_handled(cls):
            return NotImplemented
    impl = FUNCTIONS.get(func)
    if impl is None:
        raise _unsupported(_function_name(func))
    return impl(*args, **kwargs)
