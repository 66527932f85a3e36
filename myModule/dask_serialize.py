"""DeviceArray over ``distributed``: serializers, and pickling through the host.

- ``cuda`` family (UCX and other comms that move device memory): the header is the
  array's shape and typestr (of a C-contiguous copy where the array is not), the
  one frame the device buffer itself as bytes (an object exporting
  ``__cuda_array_interface__``), so the bytes never pass through the host. Received frames are any
  object exporting ``__cuda_array_interface__`` (an RMM DeviceBuffer, a Numba or
  CuPy array): the DeviceArray is a zero-copy view that keeps the frame alive.
- ``dask`` family (TCP): the same header, the frame a host copy.
- pickle: a host copy too (``copyreg``), for DeviceArrays inside task graphs.

Registered by ``myModule.dask.register()`` when distributed is installed.
"""
import copyreg

import numpy as np
from distributed.diagnostics.plugin import WorkerPlugin

from . import _core
from ._core import DeviceArray


class _Interface:
    """A device buffer as __cuda_array_interface__ describes it, owning `owner`."""

    def __init__(self, owner, ptr, shape, typestr, readonly=False):
        self.owner = owner
        # distributed's comms size a frame by its nbytes.
        self.nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(typestr).itemsize
        self.__cuda_array_interface__ = {
            "version": 3, "shape": tuple(shape), "typestr": typestr, "strides": None,
            "data": (ptr, readonly), "stream": None,
        }


def _c_contiguous(shape, strides, itemsize):
    """NumPy's rule: size-1 dimensions take any stride; no strides means C order."""
    expected = itemsize
    for size, stride in zip(reversed(shape), reversed(strides or ())):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def _contiguous(x):
    """x itself when C-contiguous, else a C-contiguous copy."""
    return x if _c_contiguous(x.shape, x.strides, x.dtype.itemsize) else _core.copy(x)


def _header(x):
    return {"shape": tuple(x.shape), "typestr": x.dtype.str, "device": int(x.device)}


def cuda_serialize_devicearray(x):
    x = _contiguous(x)
    # The frame is read on another stream (the comm's): the array must be complete.
    _core.synchronize()
    # The frame is the buffer as bytes, as distributed makes it for CuPy (a DeviceArray
    # cannot be one: it has no uint8), keeping x alive while the comm sends it.
    ptr = x.__cuda_array_interface__["data"][0]
    return _header(x), [_Interface(x, ptr, (x.nbytes,), "|u1")]


# What a DeviceArray can have (the library's VA_MAX_NDIM; int64 byte counts).
_MAX_NDIM = _core.MAX_NDIM
_MAX_BYTES = 2**63 - 1


def _header_layout(header):
    """The (shape, dtype, bytes) a received header asks for; ValueError or TypeError
    where it is not one a DeviceArray can have (a header comes from another process:
    it is not trusted to match the frame)."""
    shape, typestr = header["shape"], header["typestr"]
    if not isinstance(typestr, str):
        raise TypeError("DeviceArray header: typestr must be a str, got %r" % (typestr,))
    dtype = np.dtype(typestr)
    if not isinstance(shape, (tuple, list)) or not all(type(n) is int for n in shape):
        raise TypeError("DeviceArray header: shape must be a tuple of ints, got %r" % (shape,))
    if any(n < 0 for n in shape):
        raise ValueError("DeviceArray header: negative dimension in %r" % (tuple(shape),))
    if len(shape) > _MAX_NDIM:
        raise ValueError("DeviceArray header: %d dimensions, at most %d are supported on the GPU"
                         % (len(shape), _MAX_NDIM))
    nbytes = dtype.itemsize
    for n in shape:
        nbytes *= n  # Python ints: no overflow to hide a huge request
    if nbytes > _MAX_BYTES:
        raise ValueError("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum "
                         "possible size.")
    return tuple(shape), dtype, nbytes


def _frame_extent(interface):
    """(pointer, bytes, read-only) of a received frame, which must be one
    contiguous run (what distributed's comms deliver)."""
    ptr, readonly = interface["data"]
    shape, itemsize = tuple(interface["shape"]), np.dtype(interface["typestr"]).itemsize
    strides = interface.get("strides")
    if not _c_contiguous(shape, strides, itemsize):
        raise ValueError("DeviceArray frame: not contiguous (strides %r)" % (tuple(strides),))
    nbytes = itemsize
    for n in shape:
        nbytes *= int(n)
    return ptr, nbytes, bool(readonly)


def cuda_deserialize_devicearray(header, frames):
    (frame,) = frames
    if not hasattr(frame, "__cuda_array_interface__"):  # a comm that moved it through the host
        return dask_deserialize_devicearray(header, frames)
    shape, dtype, need = _header_layout(header)
    ptr, have, readonly = _frame_extent(frame.__cuda_array_interface__)
    if need != have:
        raise ValueError("DeviceArray header asks for %d bytes (shape %r, %s), the frame holds %d"
                         % (need, shape, dtype, have))
    return _core.asarray(_Interface(frame, ptr, shape, dtype.str, readonly))


def dask_serialize_devicearray(x):
    host = np.ascontiguousarray(x.get())
    return _header(x), [memoryview(host.reshape(-1).view(np.uint8))]


def dask_deserialize_devicearray(header, frames):
    shape, dtype, need = _header_layout(header)
    data = b"".join(bytes(f) for f in frames) if len(frames) != 1 else frames[0]
    if memoryview(data).nbytes != need:
        raise ValueError("DeviceArray header asks for %d bytes (shape %r, %s), the frames hold %d"
                         % (need, shape, dtype, memoryview(data).nbytes))
    host = np.frombuffer(data, dtype=dtype).reshape(shape)
    # The receiving process's GPU: under dask-cuda each worker sees its own GPU as 0.
    return _core.to_device(host)


def _rebuild(host):
    return _core.to_device(host)


def _reduce_devicearray(x):
    return _rebuild, (x.get(),)


class WorkerRegistration(WorkerPlugin):
    """Has a worker import myModule.dask (which registers the above) when it starts."""

    name = "myModule.dask"
    idempotent = True

    def setup(self, worker):
        import myModule.dask  # noqa: F401 (registers on import)


_registered = False


def register():
    global _registered
    if _registered:
        return
    copyreg.pickle(DeviceArray, _reduce_devicearray)
    from distributed.protocol.cuda import cuda_deserialize, cuda_serialize
    from distributed.protocol.serialize import dask_deserialize, dask_serialize
    cuda_serialize.register(DeviceArray)(cuda_serialize_devicearray)
    cuda_deserialize.register(DeviceArray)(cuda_deserialize_devicearray)
    dask_serialize.register(DeviceArray)(dask_serialize_devicearray)
    dask_deserialize.register(DeviceArray)(dask_deserialize_devicearray)
    _registered = True
