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

    def __init__(self, owner, ptr, shape, typestr, strides=None):
        self.owner = owner
        # distributed's comms size a frame by its nbytes.
        self.nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(typestr).itemsize
        self.__cuda_array_interface__ = {
            "version": 3, "shape": tuple(shape), "typestr": typestr, "strides": strides,
            "data": (ptr, False), "stream": None,
        }


def _contiguous(x):
    """x itself when C-contiguous (NumPy's rule: size-1 dimensions take any stride)."""
    expected = x.dtype.itemsize
    for size, stride in zip(reversed(x.shape), reversed(x.strides)):
        if size != 1 and stride != expected:
            return _core.copy(x)
        expected *= size
    return x


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


def _frame_pointer(frame):
    interface = frame.__cuda_array_interface__
    return interface["data"][0]


def cuda_deserialize_devicearray(header, frames):
    (frame,) = frames
    if not hasattr(frame, "__cuda_array_interface__"):  # a comm that moved it through the host
        return dask_deserialize_devicearray(header, frames)
    return _core.asarray(_Interface(frame, _frame_pointer(frame), header["shape"],
                                    header["typestr"]))


def dask_serialize_devicearray(x):
    host = np.ascontiguousarray(x.get())
    return _header(x), [memoryview(host.reshape(-1).view(np.uint8))]


def dask_deserialize_devicearray(header, frames):
    data = b"".join(bytes(f) for f in frames) if len(frames) != 1 else frames[0]
    host = np.frombuffer(data, dtype=np.dtype(header["typestr"])).reshape(header["shape"])
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
