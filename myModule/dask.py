"""Dask arrays through myModule: lazy operations, DeviceArray chunks, distributed.

Every op-table function of myModule accepts Dask arrays. Called with one, it
computes nothing: it returns a Dask array whose chunks myModule computes when
the graph runs (on a ``distributed`` cluster, on the workers)::

    >>> import dask.array as da, numpy as np, myModule as mm
    >>> x = da.arange(10.0, chunks=4)
    >>> y = mm.multiply(mm.add(x, 1), x)      # lazy: a dask.array.Array
    >>> float(mm.sum(y).compute())            # a tree reduction of per-chunk sums
    375.0

- Elementwise operations go through ``dask.array.blockwise``, with NumPy's
  broadcasting; Python scalars stay weak scalars, NumPy arrays, DeviceArrays and
  CuPy arrays among the arguments become one-chunk Dask arrays.
- Reductions (``sum``, ``prod``, ``max``, ``min``) go through
  ``dask.array.reduction``: myModule's reduction on each chunk, then on the
  partial results (combine and aggregate), ``axis=`` and ``keepdims=`` as NumPy.
- The chunks of the result are what myModule returns for the chunks of the input:
  NumPy for NumPy chunks, DeviceArray for DeviceArray chunks; CuPy chunks give
  CuPy chunks again (zero-copy views of myModule's result). The result's ``meta``
  says so.

Importing this module (myModule does so itself on the first call with a Dask
array) registers `DeviceArray` as a Dask chunk type, with ``sizeof`` and the
array dispatch hooks, and, where ``distributed`` is installed, its serializers
(myModule.dask_serialize).
"""
import functools
import numbers
import weakref

import numpy as np

import dask
import dask.array as da
from dask.array import dispatch as _dispatch_hooks
from dask.array.chunk_types import register_chunk_type
from dask.base import normalize_token
from dask.sizeof import sizeof

from . import _core
from ._core import DeviceArray

__all__ = ["register", "register_workers"]

_OPS = {op["name"]: op for op in _core._op_table}


# ---- what kind of chunks ----

def _is_cupy(x):
    return type(x).__module__.partition(".")[0] == "cupy"


def _chunk_kind(x):
    """'device' (DeviceArray and foreign GPU arrays), 'cupy' or 'numpy'."""
    meta = x._meta if isinstance(x, da.Array) else x
    if isinstance(meta, DeviceArray):
        return "device"
    if hasattr(meta, "__cuda_array_interface__"):
        return "cupy" if _is_cupy(meta) else "device"
    return "numpy"


def _result_kind(kinds):
    if "device" in kinds:
        return "device"
    return "cupy" if "cupy" in kinds else "numpy"


def _empty(kind, ndim, dtype):
    """An empty array of the chunk kind: Dask's meta."""
    shape = (0,) * ndim
    if kind == "device":
        return _core.empty(shape, dtype=dtype)
    if kind == "cupy":
        import cupy
        return cupy.empty(shape, dtype=dtype)
    return np.empty(shape, dtype=dtype)


def _as_kind(result, kind):
    """myModule's result of one chunk, as the chunks of its kind are."""
    if isinstance(result, np.generic):
        result = np.asarray(result)
    if kind == "cupy" and isinstance(result, DeviceArray):
        import cupy
        result = cupy.asarray(result)  # zero copy; the view keeps result alive
    return result


def _is_scalar(x):
    return isinstance(x, (numbers.Number, np.generic)) and not isinstance(x, da.Array)


def _as_dask(x):
    """Any array argument as a Dask array (one chunk), so that Dask broadcasts it."""
    if isinstance(x, da.Array):
        return x
    if isinstance(x, (list, tuple)):
        x = np.asarray(x)
    if isinstance(x, np.ndarray):
        return da.from_array(x, chunks=x.shape)
    kind = _chunk_kind(x)
    if kind == "device" and not isinstance(x, DeviceArray):
        x = _core.asarray(x)
    meta = _empty(kind, x.ndim, x.dtype)
    return da.from_array(x, chunks=x.shape, asarray=False, meta=meta, name=False)


def _probe(x):
    """What stands for an argument when asking the op table for the result dtype."""
    if _is_scalar(x):
        return x
    return np.ones((1,) * max(1, x.ndim), dtype=x.dtype)


# ---- elementwise ----

def _apply_elementwise(name, kind, *blocks, **kwargs):
    return _as_kind(getattr(_core, name)(*blocks, **kwargs), kind)


def _elementwise(name, args, kwargs):
    info = _OPS[name]
    if kwargs.get("out") is not None:
        raise TypeError("%s(): out= is not supported with Dask arrays (the result is a new "
                        "Dask array)" % name)
    kwargs.pop("out", None)
    names = info["args"]
    values = list(args)
    for position in range(len(values), len(names)):
        if names[position] not in kwargs:
            raise TypeError("%s() missing required argument '%s'" % (name, names[position]))
        values.append(kwargs.pop(names[position]))
    if len(values) > len(names):
        raise TypeError("%s() takes %d positional arguments but %d were given"
                        % (name, len(names), len(values)))
    unknown = set(kwargs) - {"device"}
    if unknown:
        raise TypeError("%s() got an unexpected keyword argument '%s'" % (name, sorted(unknown)[0]))
    values = [v if _is_scalar(v) else _as_dask(v) for v in values]
    probes = [_probe(v) for v in values]
    # Errors now rather than when the graph runs, where NumPy would raise at once
    # (dtypes without a loop, int32 + 2**40): the operation on one element of each.
    with np.errstate(all="ignore"):  # the values are made up: no warnings about them
        getattr(_core, name)(*probes, device="cpu")
    _compute, result_dtype = _core._op_dtypes(name, *probes)
    arrays = [v for v in values if not _is_scalar(v)]
    ndim = len(np.broadcast_shapes(*[v.shape for v in arrays])) if arrays else 0
    kind = _result_kind({_chunk_kind(v) for v in arrays})
    pairs = []
    for v in values:
        pairs += [v, None] if _is_scalar(v) else [v, tuple(range(v.ndim))[::-1]]
    return da.blockwise(functools.partial(_apply_elementwise, name, kind),
                        tuple(range(ndim))[::-1], *pairs, dtype=np.dtype(result_dtype),
                        meta=_empty(kind, ndim, result_dtype), token="mm-" + name, **kwargs)


# ---- reductions ----

def _reduce_block(fn, kind, result_dtype, options, x, axis, keepdims):
    """myModule's reduction of one block over `axis` (a tuple, as Dask gives it)."""
    if kind == "numpy" and len(axis) == x.ndim:
        # Over every axis of host data myModule gives a NumPy scalar (as NumPy does).
        value = np.asarray(fn(x, **options)).astype(result_dtype, copy=False)
        return value.reshape((1,) * x.ndim) if keepdims else value[()]
    # GPU chunks: a 0-d or (1, ...) array on the chunk's GPU, so that no chunk waits
    # for its kernel, as mm.sum of a DeviceArray and Dask's own CuPy reductions do.
    return fn(x, axis=axis, keepdims=keepdims, **options)


class _Step:
    """One step of a tree reduction (chunk, or combine and aggregate): a picklable,
    tokenizable callable whose signature has no `dtype` (Dask would pass its own)."""

    def __init__(self, name, kind, result_dtype, options):
        self.name, self.kind = name, kind
        self.result_dtype, self.options = np.dtype(result_dtype), dict(options)

    def __call__(self, x, axis=None, keepdims=False, **_):
        result = _reduce_block(getattr(_core, self.name), self.kind, self.result_dtype,
                               self.options, x, axis, keepdims)
        # A NumPy scalar at the end, as Dask's own reductions of NumPy chunks give.
        return result if isinstance(result, np.generic) else _as_kind(result, self.kind)

    def __dask_tokenize__(self):
        return (self.name, self.kind, self.result_dtype.str, sorted(self.options.items()))

    def __reduce__(self):
        return (_Step, (self.name, self.kind, self.result_dtype.str, self.options))


def _normalize_axis(axis, ndim):
    """The axes as a tuple, by the extension's one converter (AxisError out of
    range, ValueError when repeated, as NumPy)."""
    if axis is None:
        return tuple(range(ndim))
    given = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    return _core._normalize_axis(given, ndim)


def _reduction(name, args, kwargs):
    names = ("a", "axis", "dtype", "out", "keepdims", "device")
    if len(args) > len(names):
        raise TypeError("%s() takes at most %d arguments" % (name, len(names)))
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names or key in bound:
            raise TypeError("%s() got an unexpected or repeated keyword argument '%s'" % (name, key))
        bound[key] = value
    if "a" not in bound:
        raise TypeError("%s() missing required argument 'a'" % name)
    if bound.get("out") is not None:
        raise TypeError("%s(): out= is not supported with Dask arrays" % name)
    x = _as_dask(bound["a"])
    axis = _normalize_axis(bound.get("axis"), x.ndim)
    keepdims = bool(bound.get("keepdims", False))
    if bound.get("dtype") is not None:
        result_dtype = np.dtype(bound["dtype"])
    else:
        result_dtype = np.dtype(_OPS[name]["results"].get(x.dtype.name, x.dtype.name))
    if x.size == 0 and not _OPS[name]["has_identity"]:
        raise ValueError("zero-size array to reduction operation %s which has no identity" % name)
    # dtype= only where asked (myModule's full reductions take none); device= for the
    # chunks only: the partial results are small and computed where they are.
    combine_options = {"dtype": bound["dtype"]} if bound.get("dtype") is not None else {}
    chunk_options = dict(combine_options)
    if bound.get("device") is not None:
        chunk_options["device"] = bound["device"]
    # The chunks' kind: a full reduction of GPU chunks is a 0-d array on the GPU.
    kind = _result_kind({_chunk_kind(x)})
    out_ndim = x.ndim if keepdims else x.ndim - len(axis)
    combine = _Step(name, kind, result_dtype, combine_options)
    return da.reduction(x, _Step(name, kind, result_dtype, chunk_options), combine,
                        axis=axis, keepdims=keepdims, dtype=result_dtype, combine=combine,
                        name="mm-" + name, meta=_empty(kind, out_ndim, result_dtype))


# ---- the entry from the extension ----

def _dispatch(name, *args, **kwargs):
    """What myModule's op-table function `name` does when an argument is a Dask collection."""
    for value in list(args) + list(kwargs.values()):
        if dask.is_dask_collection(value) and not isinstance(value, da.Array):
            raise TypeError("%s(): myModule takes Dask arrays, not %s" % (name, type(value).__name__))
    _register_client()
    kind = _OPS[name]["kind"]
    if kind == "elementwise":
        return _elementwise(name, args, kwargs)
    if kind == "reduction":
        return _reduction(name, args, kwargs)
    raise TypeError("%s(): user kernels (user_ops/) take no Dask arrays; call it in "
                    "x.map_blocks(myModule.%s)" % (name, name))


# ---- DeviceArray as a Dask chunk type ----

def _concatenate(arrays, axis=0):
    return _core.concatenate(list(arrays), axis=axis)


def _to_cupy(x):
    import cupy
    return cupy.asarray(x)


_registered = False


def register():
    """Register DeviceArray with Dask (and distributed, where installed); done on import."""
    global _registered
    if _registered:
        return
    register_chunk_type(DeviceArray)
    sizeof.register(DeviceArray)(lambda x: int(x.nbytes))
    # Dask names a graph's keys from its inputs' tokens; its default for an unknown
    # object pickles it, here a copy of the whole array to the host. The object's
    # identity is enough: a graph that names an array holds it, so its id is not reused.
    normalize_token.register(DeviceArray)(
        lambda x: ("myModule.DeviceArray", id(x), x.__cuda_array_interface__["data"][0],
                   x.shape, x.strides, x.dtype.str))
    _dispatch_hooks.concatenate_lookup.register(DeviceArray)(_concatenate)
    _dispatch_hooks.empty_lookup.register(DeviceArray)(
        lambda shape, dtype=float, **kw: _core.empty(shape, dtype=dtype))
    _dispatch_hooks.to_numpy_dispatch.register(DeviceArray)(lambda x: x.get())
    _dispatch_hooks.to_cupy_dispatch.register(DeviceArray)(_to_cupy)
    try:
        from . import dask_serialize
    except ImportError:  # no distributed
        pass
    else:
        dask_serialize.register()
    _registered = True


# Clients whose workers were told to import this module (see register_workers).
_clients = weakref.WeakSet()


def register_workers(client):
    """Have every worker of `client`, present and future, import myModule.dask, so
    that they deserialize DeviceArray chunks before they run any myModule task.
    Done for the current client by the first myModule call on a Dask array."""
    if client in _clients:
        return
    from .dask_serialize import WorkerRegistration
    client.register_plugin(WorkerRegistration(), name=WorkerRegistration.name)
    _clients.add(client)


def _register_client():
    import sys
    if "distributed" not in sys.modules:
        return
    from distributed import get_client
    try:
        client = get_client()
    except ValueError:  # no client: the local schedulers
        return
    if not getattr(client, "asynchronous", False):
        register_workers(client)


register()
