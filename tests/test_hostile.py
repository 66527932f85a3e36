"""Hostile inputs: array interfaces, DLPack capsules and arguments that lie,
raise or change themselves. Each must give the exact exception NumPy (or the
protocol) would, or the right result, never a crash, a SystemError or a wrong
answer.

- Crafted ``__cuda_array_interface__`` dicts, through every import path
  (asarray, an operand, out=, to_device).
- DLPack capsules built with ctypes (the layouts of ext/dlpack_abi.h), through
  from_dlpack and asarray: a bad capsule is refused before it is taken (the
  producer's destructor still owns it).
- Objects whose protocol methods mutate the very dict or sequences being read
  (run in a subprocess: a use-after-free would kill the interpreter).
- Read-only views as out=, DeviceArray.__dlpack__ arguments of the wrong type.
- Keyword names and device= strings with embedded NULs or lone surrogates.
- fib() past int64, helloworld() with a broken sys.stdout.
- A producer that keeps its own imported view is collected.

Everything here is checked before any CUDA call, so it runs without a GPU;
where a GPU changes the outcome of a valid input, both outcomes are asserted.
"""
import ctypes
import gc
import json
import os
import subprocess
import sys
import weakref

import numpy as np
import pytest

import myModule as mm
from conftest import HAS_GPU, requires_gpu

IMPORT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(mm.__file__)))


def raises_exactly(exc_type, fn, *args, **kwargs):
    """fn(*args, **kwargs) raises exactly `exc_type` (not a subclass, not SystemError)."""
    with pytest.raises(BaseException) as info:
        fn(*args, **kwargs)
    assert type(info.value) is exc_type, "raised %r, expected %s" % (info.value, exc_type.__name__)
    return info.value


# ================================================================ __cuda_array_interface__

class CAI:
    """Exports exactly the dict (or object) given, and nothing else."""

    def __init__(self, cai):
        self._cai = cai

    @property
    def __cuda_array_interface__(self):
        return self._cai


def cai(shape=(4,), typestr="<f4", data=(0x10000, False), **extra):
    d = {"shape": shape, "typestr": typestr, "data": data, "version": 3}
    d.update(extra)
    return d


def zero_size(**extra):
    return cai(shape=(0,), data=(0, False), **extra)


class Boom(Exception):
    pass


class BadBool:
    def __bool__(self):
        raise Boom("bool")


class BadIndex:
    def __index__(self):
        raise Boom("index")


class IndexOf:
    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


# (id, interface, exact exception)
CAI_BAD = [
    # the interface itself
    ("not-a-dict-list", [("shape", (4,))], TypeError),
    ("not-a-dict-none-like", 3, TypeError),
    ("not-a-dict-str", "shape", TypeError),
    ("not-a-dict-tuple", ((4,), "<f4"), TypeError),
    ("missing-shape", {"typestr": "<f4", "data": (0, False)}, ValueError),
    ("missing-typestr", {"shape": (4,), "data": (0, False)}, ValueError),
    ("missing-data", {"shape": (4,), "typestr": "<f4"}, ValueError),
    ("empty-dict", {}, ValueError),
    ("mask", cai(mask=(0, False)), ValueError),
    # typestr
    ("typestr-bytes", cai(typestr=b"<f4"), TypeError),
    ("typestr-int", cai(typestr=4), TypeError),
    ("typestr-none", cai(typestr=None), TypeError),
    ("typestr-dtype", cai(typestr=np.dtype(np.float32)), TypeError),
    ("typestr-type", cai(typestr=np.float32), TypeError),
    ("typestr-list", cai(typestr=["<f4"]), TypeError),
    ("typestr-garbage", cai(typestr="garbage"), TypeError),
    ("typestr-empty", cai(typestr=""), TypeError),
    ("typestr-swapped-i2", cai(typestr=">i2"), TypeError),
    ("typestr-m8", cai(typestr="<m8[s]"), TypeError),
    ("typestr-V4", cai(typestr="|V4"), TypeError),
    ("typestr-c32", cai(typestr="<c32"), TypeError),
    ("typestr-swapped-c8", cai(typestr=">c8"), TypeError),
    ("typestr-f2", cai(typestr="<f2"), TypeError),
    ("typestr-swapped-f4", cai(typestr=">f4"), TypeError),
    ("typestr-swapped-i8", cai(typestr=">i8"), TypeError),
    ("typestr-object", cai(typestr="|O"), TypeError),
    ("typestr-nul", cai(typestr="<f4\x00"), TypeError),
    # shape: kinds
    ("shape-int", cai(shape=4), TypeError),
    ("shape-none", cai(shape=None), TypeError),
    ("shape-str", cai(shape="44"), TypeError),
    ("shape-dict", cai(shape={4: 4}), TypeError),
    ("shape-ndarray", cai(shape=np.array([4])), TypeError),
    ("shape-range", cai(shape=range(3)), TypeError),
    ("shape-float-item", cai(shape=(4.0,)), TypeError),
    ("shape-str-item", cai(shape=("4",)), TypeError),
    ("shape-none-item", cai(shape=(None,)), TypeError),
    ("shape-object-item", cai(shape=(object(),)), TypeError),
    ("shape-npfloat-item", cai(shape=(np.float64(4),)), TypeError),
    ("shape-index-raises", cai(shape=(BadIndex(),)), Boom),
    ("shape-item-2**64", cai(shape=(2**64,)), ValueError),
    ("shape-item--2**64", cai(shape=(-2**64,)), ValueError),
    # shape: values
    ("shape-negative", cai(shape=(-1,)), ValueError),
    ("shape-negative-2d", cai(shape=(2, -3)), ValueError),
    ("shape-negative-with-zero", cai(shape=(0, -1)), ValueError),
    ("shape-negative-index", cai(shape=(IndexOf(-5),)), ValueError),
    ("shape-int64-min", cai(shape=(-2**63,)), ValueError),
    ("shape-overflow-2d", cai(shape=(2**62, 4)), ValueError),
    ("shape-overflow-bytes", cai(shape=(2**61 + 1,), typestr="<f8"), ValueError),
    ("shape-overflow-32x32", cai(shape=(2**32, 2**32)), ValueError),
    ("shape-overflow-3d", cai(shape=(2**21, 2**21, 2**21)), ValueError),
    ("shape-overflow-zero-size", cai(shape=(0, 2**62, 2**62), data=(0, False)), ValueError),
    ("shape-overflow-int64-max", cai(shape=(2**63 - 1,)), ValueError),
    ("shape-33-dims", cai(shape=(1,) * 33), ValueError),
    ("shape-100-dims", cai(shape=(1,) * 100), ValueError),
    # strides
    ("strides-int", cai(strides=4), TypeError),
    ("strides-str", cai(strides="4"), TypeError),
    ("strides-float-item", cai(strides=(4.0,)), TypeError),
    ("strides-none-item", cai(strides=(None,)), TypeError),
    ("strides-index-raises", cai(strides=(BadIndex(),)), Boom),
    ("strides-too-few", cai(shape=(2, 2), strides=(8,)), ValueError),
    ("strides-too-many", cai(strides=(4, 4)), ValueError),
    ("strides-empty", cai(strides=()), ValueError),
    ("strides-not-multiple-2", cai(strides=(2,)), ValueError),
    ("strides-not-multiple-1", cai(typestr="<i4", strides=(1,)), ValueError),
    ("strides-not-multiple-f8", cai(typestr="<f8", strides=(12,)), ValueError),
    ("strides-not-multiple-i8", cai(typestr="<i8", strides=(-4,)), ValueError),
    ("strides-not-multiple-2d", cai(shape=(2, 2), strides=(16, 6)), ValueError),
    ("strides-not-multiple-size1", cai(shape=(1,), strides=(3,)), ValueError),
    ("strides-overflow", cai(strides=(2**62,)), ValueError),
    ("strides-overflow-neg", cai(strides=(-2**62,)), ValueError),
    ("strides-overflow-sum", cai(shape=(2, 2), strides=(2**62, 2**62)), ValueError),
    ("strides-item-2**64", cai(strides=(2**64,)), ValueError),
    ("strides-below-zero-address", cai(strides=(-2**20,), data=(4096, False)), ValueError),
    # data
    ("data-list", cai(data=[0x10000, False]), TypeError),
    ("data-int", cai(data=0x10000), TypeError),
    ("data-none", cai(data=None), TypeError),
    ("data-1-tuple", cai(data=(0x10000,)), TypeError),
    ("data-3-tuple", cai(data=(0x10000, False, 0)), TypeError),
    ("data-empty-tuple", cai(data=()), TypeError),
    ("data-ptr-str", cai(data=("0x10000", False)), TypeError),
    ("data-ptr-float", cai(data=(65536.0, False)), TypeError),
    ("data-ptr-none", cai(data=(None, False)), TypeError),
    ("data-ptr-index", cai(data=(IndexOf(65536), False)), TypeError),
    ("data-ptr-2**64", cai(data=(2**64, False)), OverflowError),
    ("data-ptr-2**100", cai(data=(2**100, False)), OverflowError),
    ("data-null-with-elements", cai(data=(0, False)), ValueError),
    ("data-null-2d", cai(shape=(3, 5), data=(0, True)), ValueError),
    ("data-null-readonly", cai(data=(0, True)), ValueError),
    ("data-misaligned-1", cai(data=(0x10001, False)), ValueError),
    ("data-misaligned-f8", cai(typestr="<f8", data=(0x10004, False)), ValueError),
    ("data-misaligned-i8", cai(typestr="<i8", data=(0x10002, False)), ValueError),
    ("data-top-of-address-space", cai(data=(-8, False)), ValueError),
    ("data-past-address-space", cai(shape=(2**40,), data=(2**64 - 2**41, False)), ValueError),
    ("data-readonly-raises", cai(data=(0x10000, BadBool())), Boom),
    # stream
    ("stream-zero", cai(stream=0), ValueError),
    ("stream-str", cai(stream="1"), TypeError),
    ("stream-float", cai(stream=1.0), TypeError),
    ("stream-list", cai(stream=[1]), TypeError),
    ("stream-index-raises", cai(stream=BadIndex()), Boom),
    ("stream-2**64", cai(stream=2**64), OverflowError),
]


def entry_asarray(obj):
    return mm.asarray(obj)


def entry_operand(obj):
    return mm.add(obj, 1)


def entry_out(obj):
    return mm.add(np.float32(1), np.float32(2), out=obj)


def entry_to_device(obj):
    return mm.to_device(obj)


def entry_matmul(obj):
    return mm.matmul(obj, np.ones((2, 2)))


ENTRIES = [entry_asarray, entry_operand, entry_out, entry_to_device, entry_matmul]
ENTRY_IDS = ["asarray", "operand", "out", "to_device", "matmul"]


@pytest.mark.parametrize("entry", ENTRIES, ids=ENTRY_IDS)
@pytest.mark.parametrize("name,interface,exc", CAI_BAD, ids=[c[0] for c in CAI_BAD])
def test_malformed_cuda_array_interface(entry, name, interface, exc):
    raises_exactly(exc, entry, CAI(interface))


def test_cuda_array_interface_property_raises():
    class Raising:
        @property
        def __cuda_array_interface__(self):
            raise Boom("property")
    for entry in ENTRIES:
        raises_exactly(Boom, entry, Raising())


# Valid interfaces with no elements: taken without a CUDA call, GPU or not.
CAI_ZERO = [
    ("1d", dict(shape=(0,)), (0,)),
    ("2d-leading", dict(shape=(0, 3)), (0, 3)),
    ("2d-trailing", dict(shape=(3, 0)), (3, 0)),
    ("list-shape", dict(shape=[0, 2]), (0, 2)),
    ("index-items", dict(shape=(IndexOf(0), np.int64(7))), (0, 7)),
    ("bool-item", dict(shape=(False,)), (0,)),
    ("strides", dict(shape=(0, 2), strides=(8, 4)), (0, 2)),
    ("list-strides", dict(shape=(2, 0), strides=[-4, 4]), (2, 0)),
    ("stream-none", dict(shape=(0,), stream=None), (0,)),
    ("stream-7", dict(shape=(0,), stream=7), (0,)),
    ("mask-none", dict(shape=(0,), mask=None), (0,)),
    ("typestr-subclass", dict(shape=(0,), typestr=type("S", (str,), {})("<f8")), (0,)),
    ("readonly", dict(shape=(0,), data=(0, True)), (0,)),
    ("big-ptr", dict(shape=(0,), data=(2**64 - 1, False)), (0,)),
    ("32-dims", dict(shape=(0,) + (1,) * 31), (0,) + (1,) * 31),
    ("huge-zero-dim", dict(shape=(0, 2**40)), (0, 2**40)),
]


@pytest.mark.parametrize("name,fields,shape", CAI_ZERO, ids=[c[0] for c in CAI_ZERO])
def test_zero_size_interfaces_import_without_cuda(name, fields, shape):
    d = {"typestr": "<f4", "data": (0, False)}
    d.update(fields)
    view = mm.asarray(CAI(d))
    assert type(view) is mm.DeviceArray
    assert view.shape == shape and view.size == 0
    assert len(view) == shape[0]
    assert view.dtype == np.dtype(d["typestr"])


def test_zero_d_interface_needs_a_pointer():
    # a 0-d array has one element: a NULL pointer is refused before CUDA is asked
    raises_exactly(ValueError, mm.asarray, CAI({"shape": (), "typestr": "<f4", "data": (0, False)}))
    assert len(mm.asarray(CAI(zero_size()))) == 0


# ================================================================ read-only views

def readonly_view():
    return mm.asarray(CAI(cai(shape=(0,), data=(0, True))))


def test_readonly_view_refused_as_out():
    ro = readonly_view()
    e = raises_exactly(ValueError, mm.add, ro, 1, out=ro)
    assert "read-only" in str(e)
    for fn in (mm.add, mm.subtract, mm.multiply, mm.divide):
        raises_exactly(ValueError, fn, ro, ro, out=ro)
        raises_exactly(ValueError, fn, np.float32(1), 2, out=ro)
    raises_exactly(ValueError, mm.add, ro, ro, ro)
    raises_exactly(ValueError, mm.vector_add, ro, ro, out=ro)


def test_readonly_producer_refused_as_out():
    producer = CAI(cai(shape=(0,), data=(0, True)))
    raises_exactly(ValueError, mm.add, np.float32(1), 2, out=producer)
    raises_exactly(ValueError, mm.add, producer, producer, out=producer)


def test_readonly_in_place_operators():
    for op in ("__iadd__", "__isub__", "__imul__", "__itruediv__"):
        ro = readonly_view()
        raises_exactly(ValueError, getattr(ro, op), 1)


def test_readonly_view_is_a_valid_input():
    ro = readonly_view()
    w = mm.asarray(CAI(zero_size()))
    if HAS_GPU:
        r = mm.add(ro, 1)
        assert r.shape == (0,) and r.dtype == np.float32
        mm.add(ro, ro, out=w)
        assert ro.__cuda_array_interface__["data"][1] is True
        assert w.__cuda_array_interface__["data"][1] is False
    else:
        raises_exactly(mm.CudaUnavailableError, mm.add, ro, 1)


def test_readonly_not_exported_as_legacy_capsule():
    ro = readonly_view()
    raises_exactly(BufferError, ro.__dlpack__)
    raises_exactly(BufferError, ro.__dlpack__, max_version=(0, 8))
    raises_exactly(BufferError, ro.__dlpack__, max_version=None)


# ================================================================ DeviceArray.__dlpack__ arguments

DLPACK_ARGS_BAD = [
    ("max_version-list", dict(max_version=[1, 1]), TypeError),
    ("max_version-1", dict(max_version=(1,)), TypeError),
    ("max_version-3", dict(max_version=(1, 1, 1)), TypeError),
    ("max_version-str", dict(max_version="11"), TypeError),
    ("max_version-int", dict(max_version=1), TypeError),
    ("max_version-str-items", dict(max_version=("1", "1")), TypeError),
    ("max_version-float-item", dict(max_version=(1.0, 1)), TypeError),
    ("max_version-none-item", dict(max_version=(None, 1)), TypeError),
    ("max_version-index-raises", dict(max_version=(BadIndex(), 1)), Boom),
    ("max_version-2**40", dict(max_version=(2**40, 0)), OverflowError),
    ("max_version-2**70", dict(max_version=(1, 2**70)), OverflowError),
    ("dl_device-list", dict(dl_device=[2, 0]), TypeError),
    ("dl_device-1", dict(dl_device=(2,)), TypeError),
    ("dl_device-str", dict(dl_device="cuda"), TypeError),
    ("dl_device-float", dict(dl_device=(2.0, 0)), TypeError),
    ("dl_device-dict", dict(dl_device={2: 0}), TypeError),
    ("dl_device-cpu", dict(dl_device=(1, 0)), BufferError),
    ("dl_device-other-gpu", dict(dl_device=(2, 5)), BufferError),
    ("dl_device-managed", dict(dl_device=(13, 0)), BufferError),
    ("dl_device-2**40", dict(dl_device=(2, 2**40)), OverflowError),
    ("stream-str", dict(stream="1"), TypeError),
    ("stream-float", dict(stream=1.5), TypeError),
    ("stream-2**64", dict(stream=2**64), OverflowError),
    ("unknown-keyword", {"strem": 1}, TypeError),
    ("nul-keyword", {"stream\x00": 1}, TypeError),
    ("surrogate-keyword", {"\udc80": 1}, TypeError),
]


@pytest.mark.parametrize("name,kwargs,exc", DLPACK_ARGS_BAD, ids=[c[0] for c in DLPACK_ARGS_BAD])
def test_devicearray_dlpack_argument_types(name, kwargs, exc):
    d = mm.asarray(CAI(zero_size()))
    raises_exactly(exc, d.__dlpack__, **kwargs)


def test_devicearray_dlpack_positional():
    d = mm.asarray(CAI(zero_size()))
    raises_exactly(TypeError, d.__dlpack__, None, None)
    raises_exactly(TypeError, d.__dlpack__, None, max_version=[1, 0])


# ================================================================ DLPack capsules (ctypes)

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]

# Capsule names must outlive the capsules: module constants.
NAMES = {n: ctypes.create_string_buffer(n) for n in
         (b"dltensor", b"dltensor_versioned", b"used_dltensor", b"used_dltensor_versioned",
          b"dltensor_x", b"", b"DLTENSOR")}

FLOAT32 = (2, 32, 1)


# A taken capsule's DLManagedTensor must live until the consumer calls its
# deleter (these have none): the view that holds it may be let go of later than
# the test's producer (a release waits for the GPU to pass the view's work), so
# every producer, and the ctypes memory it made, lives as long as the session.
_PRODUCERS = []


class CapsuleProducer:
    """__dlpack__ returns a capsule made from the fields given (a fresh one each
    call); __dlpack_device__ returns `device`. Keeps every ctypes object alive."""

    def __init__(self, shape=(4,), strides=None, dtype=FLOAT32, data=0x10000, device=(2, 0),
                 tensor_device=None, ndim=None, null_shape=False, byte_offset=0,
                 versioned=True, version=(1, 0), flags=0, name=None, legacy_only=False):
        self.fields = dict(shape=shape, strides=strides, dtype=dtype, data=data,
                           tensor_device=tensor_device or device, ndim=ndim, null_shape=null_shape,
                           byte_offset=byte_offset, versioned=versioned, version=version,
                           flags=flags, name=name)
        self.device = device
        self.legacy_only = legacy_only
        self.keep = []
        self.capsules = []
        _PRODUCERS.append(self)

    def __dlpack_device__(self):
        return self.device

    def _tensor(self, f):
        t = DLTensor()
        t.data = f["data"]
        t.device = DLDevice(*f["tensor_device"])
        t.ndim = len(f["shape"]) if f["ndim"] is None else f["ndim"]
        t.dtype = DLDataType(*f["dtype"])
        n = max(len(f["shape"]), 1)
        shape = (ctypes.c_int64 * n)(*f["shape"])
        self.keep.append(shape)
        t.shape = None if f["null_shape"] else ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
        if f["strides"] is not None:
            strides = (ctypes.c_int64 * max(len(f["strides"]), 1))(*f["strides"])
            self.keep.append(strides)
            t.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = f["byte_offset"]
        return t

    def __dlpack__(self, stream=None, max_version=None, **kwargs):
        f = self.fields
        if self.legacy_only and max_version is not None:
            raise TypeError("unexpected keyword argument 'max_version'")
        if f["versioned"]:
            m = DLManagedTensorVersioned()
            m.version = DLPackVersion(*f["version"])
            m.flags = f["flags"]
            m.dl_tensor = self._tensor(f)
            name = b"dltensor_versioned" if f["name"] is None else f["name"]
        else:
            m = DLManagedTensor()
            m.dl_tensor = self._tensor(f)
            name = b"dltensor" if f["name"] is None else f["name"]
        self.keep.append(m)
        capsule = _capsule_new(ctypes.addressof(m), ctypes.addressof(NAMES[name]), None)
        self.capsules.append(capsule)
        return capsule


# (id, producer arguments, exact exception)
CAPSULE_BAD = [
    # device
    ("tensor-on-cpu", dict(tensor_device=(1, 0)), BufferError),
    ("tensor-on-cuda-host", dict(tensor_device=(3, 0)), BufferError),
    ("tensor-on-opencl", dict(tensor_device=(4, 0)), BufferError),
    ("tensor-on-rocm", dict(tensor_device=(10, 0)), BufferError),
    ("tensor-on-type-0", dict(tensor_device=(0, 0)), BufferError),
    ("tensor-on-type--1", dict(tensor_device=(-1, 0)), BufferError),
    ("tensor-on-other-gpu", dict(tensor_device=(2, 3)), BufferError),
    ("tensor-on-negative-gpu", dict(tensor_device=(2, -1)), BufferError),
    # dtype
    ("dtype-int128", dict(dtype=(0, 128, 1)), TypeError),
    ("dtype-int4", dict(dtype=(0, 4, 1)), TypeError),
    ("dtype-uint16x4", dict(dtype=(1, 16, 4)), TypeError),
    ("dtype-float16", dict(dtype=(2, 16, 1)), TypeError),
    ("dtype-bfloat16", dict(dtype=(4, 16, 1)), TypeError),
    ("dtype-complex32", dict(dtype=(5, 32, 1)), TypeError),
    ("dtype-complex256", dict(dtype=(5, 256, 1)), TypeError),
    ("dtype-uint-24", dict(dtype=(1, 24, 1)), TypeError),
    ("dtype-bool-16", dict(dtype=(6, 16, 1)), TypeError),
    ("dtype-float32x2", dict(dtype=(2, 32, 2)), TypeError),
    ("dtype-float32x0", dict(dtype=(2, 32, 0)), TypeError),
    ("dtype-float-24", dict(dtype=(2, 24, 1)), TypeError),
    ("dtype-code-99", dict(dtype=(99, 32, 1)), TypeError),
    # ndim and shape
    ("ndim--1", dict(ndim=-1), ValueError),
    ("ndim-33", dict(ndim=33, shape=(1,) * 33), ValueError),
    ("ndim-2**31-1", dict(ndim=2**31 - 1), ValueError),
    ("null-shape", dict(null_shape=True), ValueError),
    ("null-shape-2d", dict(shape=(2, 2), null_shape=True), ValueError),
    ("shape-negative", dict(shape=(-1,)), ValueError),
    ("shape-negative-2d", dict(shape=(3, -2)), ValueError),
    ("shape-int64-min", dict(shape=(-2**63,)), ValueError),
    ("shape-overflow", dict(shape=(2**62, 2)), ValueError),
    ("shape-overflow-bytes", dict(shape=(2**62,)), ValueError),
    ("shape-overflow-zero-size", dict(shape=(0, 2**62, 2**62), data=0), ValueError),
    # strides (in elements)
    ("strides-overflow", dict(strides=(2**62,)), ValueError),
    ("strides-overflow-neg", dict(strides=(-2**62,)), ValueError),
    ("strides-reach-overflow", dict(shape=(2**20,), strides=(2**42,)), ValueError),
    ("strides-below-zero", dict(strides=(-2**20,), data=4096), ValueError),
    # data and byte_offset
    ("null-data", dict(data=0), ValueError),
    ("null-data-2d", dict(shape=(2, 3), data=0), ValueError),
    ("byte-offset-1", dict(byte_offset=1), ValueError),
    ("byte-offset-2", dict(byte_offset=2), ValueError),
    ("byte-offset-f8-4", dict(dtype=(2, 64, 1), byte_offset=4), ValueError),
    ("byte-offset-i8-12", dict(dtype=(0, 64, 1), byte_offset=12), ValueError),
    ("data-misaligned", dict(data=0x10002), ValueError),
    ("byte-offset-wraps", dict(byte_offset=2**64 - 16), ValueError),
    ("byte-offset-max", dict(byte_offset=2**64 - 1), ValueError),
    ("data-top", dict(data=2**64 - 8), ValueError),
    # version, flags, names
    ("version-0", dict(version=(0, 8)), BufferError),
    ("version-2", dict(version=(2, 0)), BufferError),
    ("version-max", dict(version=(2**32 - 1, 0)), BufferError),
    ("flags-bit-3", dict(flags=1 << 3), BufferError),
    ("flags-bit-63", dict(flags=1 << 63), BufferError),
    ("flags-all", dict(flags=2**64 - 1), BufferError),
    ("name-dltensor_x", dict(name=b"dltensor_x"), TypeError),
    ("name-empty", dict(name=b""), TypeError),
    ("name-upper", dict(name=b"DLTENSOR"), TypeError),
    ("name-used", dict(name=b"used_dltensor", versioned=False), BufferError),
    ("name-used-versioned", dict(name=b"used_dltensor_versioned"), BufferError),
    ("legacy-name-for-versioned-bad-device", dict(versioned=False, tensor_device=(1, 0)), BufferError),
    ("legacy-null-data", dict(versioned=False, data=0), ValueError),
    ("legacy-dtype", dict(versioned=False, dtype=(1, 24, 1)), TypeError),
    ("legacy-only-producer-bad-shape", dict(versioned=False, legacy_only=True, shape=(-3,)), ValueError),
]


def entry_from_dlpack(obj):
    return mm.from_dlpack(obj)


DLPACK_ENTRIES = [entry_from_dlpack, entry_asarray, entry_operand, entry_matmul]
DLPACK_ENTRY_IDS = ["from_dlpack", "asarray", "operand", "matmul"]


@pytest.mark.parametrize("entry", DLPACK_ENTRIES, ids=DLPACK_ENTRY_IDS)
@pytest.mark.parametrize("name,fields,exc", CAPSULE_BAD, ids=[c[0] for c in CAPSULE_BAD])
def test_malformed_dlpack_capsule(entry, name, fields, exc):
    producer = CapsuleProducer(**fields)
    raises_exactly(exc, entry, producer)
    # Refused before it was taken: never renamed, still the producer's to free.
    made = fields.get("name", b"dltensor_versioned" if fields.get("versioned", True) else b"dltensor")
    assert producer.capsules
    for capsule in producer.capsules:
        assert _capsule_name(capsule) == made


CAPSULE_GOOD = [
    ("versioned", dict(), (4,)),
    ("legacy", dict(versioned=False), (4,)),
    ("legacy-only-producer", dict(versioned=False, legacy_only=True), (4,)),
    ("managed", dict(device=(13, 0), tensor_device=(13, 0)), (4,)),
    ("zero-size-null", dict(shape=(0, 5), data=0), (0, 5)),
    ("strided", dict(shape=(2, 3), strides=(1, 2)), (2, 3)),
    ("byte-offset", dict(byte_offset=64), (4,)),
    ("readonly-flag", dict(flags=1), (4,)),
    ("copied-flag", dict(flags=2), (4,)),
    ("version-1.3", dict(version=(1, 3)), (4,)),
    ("float64", dict(dtype=(2, 64, 1)), (4,)),
    ("int32", dict(dtype=(0, 32, 1)), (4,)),
    ("int64", dict(dtype=(0, 64, 1)), (4,)),
    ("zero-d", dict(shape=()), ()),
]


@pytest.mark.parametrize("name,fields,shape", CAPSULE_GOOD, ids=[c[0] for c in CAPSULE_GOOD])
def test_valid_dlpack_capsule(name, fields, shape):
    """Without a GPU a good capsule is checked, then refused for want of one
    (and left to its producer); with a GPU, zero-size ones are taken (the
    others point at made-up addresses, so only their checks are run here)."""
    producer = CapsuleProducer(**fields)
    if not HAS_GPU:
        raises_exactly(mm.CudaUnavailableError, mm.from_dlpack, producer)
        assert _capsule_name(producer.capsules[-1]) in (b"dltensor", b"dltensor_versioned")
    elif 0 in shape:
        view = mm.from_dlpack(producer)
        assert view.shape == shape
        assert _capsule_name(producer.capsules[-1]).startswith(b"used_")


@pytest.mark.skipif(not HAS_GPU, reason="taking a capsule needs a GPU stream")
def test_readonly_capsule_refused_as_out():
    producer = CapsuleProducer(shape=(0,), data=0, flags=1)
    view = mm.from_dlpack(producer)
    raises_exactly(ValueError, mm.add, view, 1, out=view)
    raises_exactly(ValueError, mm.add, np.float32(1), 1, out=producer)
    writable = mm.from_dlpack(CapsuleProducer(shape=(0,), data=0))
    assert mm.add(writable, 1, out=writable) is writable


DEVICE_BAD = [
    ("list", [2, 0], TypeError),
    ("none", None, TypeError),
    ("int", 2, TypeError),
    ("1-tuple", (2,), TypeError),
    ("3-tuple", (2, 0, 0), TypeError),
    ("str-items", ("2", "0"), TypeError),
    ("float-items", (2.0, 0), TypeError),
    ("dict", {2: 0}, TypeError),
    ("type-overflow", (2**40, 0), OverflowError),
    ("id-overflow", (2, 2**40), OverflowError),
    ("negative-gpu", (2, -1), ValueError),
    ("negative-managed-gpu", (13, -3), ValueError),
]


@pytest.mark.parametrize("entry", DLPACK_ENTRIES, ids=DLPACK_ENTRY_IDS)
@pytest.mark.parametrize("name,device,exc", DEVICE_BAD, ids=[c[0] for c in DEVICE_BAD])
def test_dlpack_device_of_the_wrong_type(entry, name, device, exc):
    producer = CapsuleProducer()
    producer.device = device
    raises_exactly(exc, entry, producer)
    assert producer.capsules == []


class DlpackRaises:
    def __init__(self, exc, device=(2, 0), result=None):
        self.exc, self.device, self.result = exc, device, result

    def __dlpack_device__(self):
        if self.device is Boom:
            raise Boom("device")
        return self.device

    def __dlpack__(self, **kwargs):
        if self.exc is not None:
            raise self.exc("dlpack")
        return self.result


DLPACK_PROTOCOL_BAD = [
    ("device-raises", DlpackRaises(None, device=Boom), Boom),
    ("dlpack-raises", DlpackRaises(Boom), Boom),
    ("dlpack-raises-typeerror", DlpackRaises(TypeError), TypeError),
    ("dlpack-raises-buffererror", DlpackRaises(BufferError), BufferError),
    ("returns-none", DlpackRaises(None, result=None), TypeError),
    ("returns-int", DlpackRaises(None, result=3), TypeError),
    ("returns-bytes", DlpackRaises(None, result=b"dltensor"), TypeError),
    ("returns-ndarray", DlpackRaises(None, result=np.zeros(3, np.float32)), TypeError),
    ("returns-other-capsule", DlpackRaises(None, result=ctypes.pythonapi.PyCapsule_New), TypeError),
]


@pytest.mark.parametrize("entry", DLPACK_ENTRIES, ids=DLPACK_ENTRY_IDS)
@pytest.mark.parametrize("name,producer,exc", DLPACK_PROTOCOL_BAD, ids=[c[0] for c in DLPACK_PROTOCOL_BAD])
def test_dlpack_protocol_lies(entry, name, producer, exc):
    raises_exactly(exc, entry, producer)


def test_dlpack_returns_a_foreign_capsule():
    foreign = _capsule_new(ctypes.addressof(NAMES[b"dltensor"]), ctypes.addressof(NAMES[b"dltensor_x"]), None)
    raises_exactly(TypeError, mm.from_dlpack, DlpackRaises(None, result=foreign))


def test_from_dlpack_of_a_host_device_is_a_buffer_error():
    raises_exactly(BufferError, mm.from_dlpack, CapsuleProducer(device=(1, 0)))
    raises_exactly(TypeError, mm.from_dlpack, object())
    raises_exactly(TypeError, mm.from_dlpack, CAI(zero_size()))


# ================================================================ arguments

DEVICE_STRINGS_BAD = [
    ("cpu-nul-junk", "cpu\x00junk", ValueError),
    ("cpu-nul", "cpu\x00", ValueError),
    ("cuda-nul", "cuda\x00", ValueError),
    ("auto-nul-x", "auto\x00x", ValueError),
    ("nul", "\x00", ValueError),
    ("empty", "", ValueError),
    ("upper", "CPU", ValueError),
    ("prefix", "cp", ValueError),
    ("space", "cpu ", ValueError),
    ("surrogate", "\udc80", ValueError),
    ("cpu-surrogate", "cpu\udc80", ValueError),
    ("non-ascii", "c\u00e9u", ValueError),
    ("bytes", b"cpu", TypeError),
    ("bool", True, TypeError),  # an int is a GPU index (issue 13), a bool is not
    ("cuda-nul", "cuda:0\x00", ValueError),
    ("cuda-surrogate", "cuda:\udc80", ValueError),
    ("cuda-space", "cuda: 0", ValueError),
    ("list", ["cpu"], TypeError),
]

DEVICE_FUNCTIONS = [
    ("add", lambda device: mm.add(np.ones(3, np.float32), 1, device=device)),
    ("subtract", lambda device: mm.subtract(np.ones(3), 1, device=device)),
    ("multiply", lambda device: mm.multiply(2, 3, device=device)),
    ("divide", lambda device: mm.divide(np.ones(3, np.int32), 2, device=device)),
    ("sum", lambda device: mm.sum(np.ones(3), device=device)),
    ("trace", lambda device: mm.trace(np.eye(3), device=device)),
]


@pytest.mark.parametrize("fn", [f for _, f in DEVICE_FUNCTIONS], ids=[n for n, _ in DEVICE_FUNCTIONS])
@pytest.mark.parametrize("name,device,exc", DEVICE_STRINGS_BAD, ids=[c[0] for c in DEVICE_STRINGS_BAD])
def test_device_strings_compared_whole(fn, name, device, exc):
    raises_exactly(exc, fn, device)


@pytest.mark.parametrize("fn", [f for _, f in DEVICE_FUNCTIONS], ids=[n for n, _ in DEVICE_FUNCTIONS])
def test_device_cpu_still_works(fn):
    assert np.all(np.asarray(fn("cpu")) == np.asarray(fn(None)))


KEYWORDS_BAD = ["out\x00x", "out\x00", "device\x00", "device\x00cpu", "a\x00", "b\x00",
                "\udc80", "out\udc80", "\x00", "OUT", "outt", "ou"]

KEYWORD_FUNCTIONS = [
    ("add", lambda kw: mm.add(np.ones(3), np.ones(3), **kw)),
    ("vector_add_cpu", lambda kw: mm.vector_add_cpu(np.ones(3), np.ones(3), **kw)),
    ("sum", lambda kw: mm.sum(np.ones(3), **kw)),
    ("to_device", lambda kw: mm.to_device(np.ones(3), **kw)),
    ("device_info", lambda kw: mm.device_info(**kw)),
]


@pytest.mark.parametrize("fn", [f for _, f in KEYWORD_FUNCTIONS], ids=[n for n, _ in KEYWORD_FUNCTIONS])
@pytest.mark.parametrize("key", KEYWORDS_BAD, ids=[repr(k) for k in KEYWORDS_BAD])
def test_keywords_compared_whole(fn, key):
    raises_exactly(TypeError, fn, {key: None})


def test_nul_keyword_is_not_out():
    out = np.zeros(3)
    raises_exactly(TypeError, mm.add, np.ones(3), np.ones(3), **{"out\x00x": out})
    assert not out.any()


# ================================================================ fib

FIB_BAD = [
    ("2**63", 2**63, OverflowError),
    ("2**63+1", 2**63 + 1, OverflowError),
    ("2**64", 2**64, OverflowError),
    ("2**100", 2**100, OverflowError),
    ("10**30", 10**30, OverflowError),
    ("index-2**63", IndexOf(2**63), OverflowError),
    ("-1", -1, ValueError),
    ("-2**63", -2**63, ValueError),
    ("-2**63-1", -2**63 - 1, ValueError),
    ("-2**64", -2**64, ValueError),
    ("-2**100", -2**100, ValueError),
    ("npint-neg", np.int64(-3), ValueError),
    ("float", 1.0, TypeError),
    ("npfloat", np.float64(3), TypeError),
    ("str", "3", TypeError),
    ("none", None, TypeError),
    ("complex", 1j, TypeError),
    ("index-raises", BadIndex(), Boom),
    ("index-returns-float", IndexOf(3.0), TypeError),
]


@pytest.mark.parametrize("name,n,exc", FIB_BAD, ids=[c[0] for c in FIB_BAD])
def test_fib_refuses(name, n, exc):
    raises_exactly(exc, mm.fib, n)


@pytest.mark.parametrize("n,expected", [(0, 0), (1, 1), (True, 1), (np.int64(10), 55), (IndexOf(20), 6765),
                                        (93, 12200160415121876738), (94, 19740274219868223167)])
def test_fib_values(n, expected):
    assert mm.fib(n) == expected


def test_fib_large_is_exact():
    a, b = 0, 1
    for _ in range(1000):
        a, b = b, a + b
    assert mm.fib(1000) == a


# ================================================================ helloworld

class RaisingStdout:
    def write(self, s):
        raise Boom("write")


class NoWrite:
    pass


@pytest.mark.parametrize("stdout,exc", [(None, RuntimeError), (RaisingStdout(), Boom),
                                         (NoWrite(), AttributeError), (3, AttributeError)],
                         ids=["none", "write-raises", "no-write", "int"])
def test_helloworld_errors_propagate(monkeypatch, stdout, exc):
    monkeypatch.setattr(sys, "stdout", stdout)
    raises_exactly(exc, mm.helloworld)


def test_helloworld_without_sys_stdout(monkeypatch):
    monkeypatch.delattr(sys, "stdout")
    raises_exactly(RuntimeError, mm.helloworld)


def test_helloworld_never_writes_to_fd_1():
    code = ("import sys, myModule\n"
            "sys.stdout = None\n"
            "try:\n    myModule.helloworld()\nexcept RuntimeError:\n    sys.stderr.write('refused')\n"
            "class W:\n    def write(self, s): raise ValueError(s)\n    def flush(self): pass\n"
            "sys.stdout = W()\n"
            "try:\n    myModule.helloworld()\nexcept ValueError:\n    sys.stderr.write(' raised')\n"
            "sys.stdout = None\n")
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.endswith("refused raised")


def test_helloworld_through_sys_stdout(capsys):
    mm.helloworld()
    assert capsys.readouterr().out == "Hello World\n"


# ================================================================ garbage collection

def collect():
    """A full collection; with a GPU, foreign owners are let go once the GPU has
    passed the views' last work (synchronize() sweeps them)."""
    gc.collect()
    if HAS_GPU:
        mm.synchronize()
    gc.collect()


def test_producer_keeping_its_own_view_is_collected():
    class Producer:
        __cuda_array_interface__ = zero_size()

    p = Producer()
    p.view = mm.asarray(p)
    assert gc.is_tracked(p.view)
    alive = weakref.ref(p)
    view_alive = weakref.ref(p.view)
    del p
    collect()
    assert alive() is None and view_alive() is None


def test_views_in_a_longer_cycle_are_collected():
    class Producer:
        __cuda_array_interface__ = zero_size()

    a, b = Producer(), Producer()
    a.view, b.view = mm.asarray(b), mm.asarray(a)
    refs = [weakref.ref(a), weakref.ref(b)]
    del a, b
    collect()
    assert all(r() is None for r in refs)


def test_view_outside_a_cycle_keeps_its_producer():
    class Producer:
        __cuda_array_interface__ = zero_size()

    p = Producer()
    alive = weakref.ref(p)
    view = mm.asarray(p)
    del p
    gc.collect()
    assert alive() is not None
    del view
    collect()
    assert alive() is None


# ================================================================ self-mutating interfaces (subprocess)

MUTATION_SCRIPT = r'''
import gc, json, sys
import myModule as mm

results = {}

def run(name, make):
    try:
        obj = make()
        v = mm.asarray(obj)
        results[name] = "ok %r" % (v.shape,)
        del v, obj
        gc.collect()
    except Exception as e:  # the type is compared by the test
        results[name] = type(e).__name__

class CAI:
    def __init__(self, d):
        self.d = d
    @property
    def __cuda_array_interface__(self):
        return self.d

class Act:
    """An int whose __index__ (or __bool__) first runs `action`."""
    def __init__(self, value, action):
        self.value, self.action = value, action
    def __index__(self):
        self.action()
        return self.value
    def __bool__(self):
        self.action()
        return bool(self.value)

def base(**kw):
    d = {"shape": (0,), "typestr": "<f4", "data": (0, False), "version": 3}
    d.update(kw)
    return d

def shape_clears_dict():
    d = base()
    d["shape"] = (Act(0, lambda: (d.clear(), gc.collect())), 3)
    return CAI(d)

def shape_list_cleared():
    shape = [0, 2]
    shape[0] = Act(0, lambda: (shape.clear(), gc.collect()))
    shape[1] = Act(2, lambda: shape.extend(range(100)))
    return CAI(base(shape=shape))

def shape_list_grows():
    shape = [0]
    shape[0] = Act(0, lambda: shape.extend([1] * 1000))
    return CAI(base(shape=shape))

def shape_item_drops_everything():
    d = base()
    shape = [Act(0, lambda: (d.clear(), shape.clear(), gc.collect())), Act(4, lambda: None)]
    d["shape"] = shape
    return CAI(d)

def shape_replaces_typestr():
    d = base()
    d["shape"] = (Act(0, lambda: d.__setitem__("typestr", "<i2")),)
    return CAI(d)

def shape_replaces_data():
    d = base()
    d["shape"] = (Act(0, lambda: d.__setitem__("data", "garbage")),)
    return CAI(d)

def nonzero_shape_null_data_after_clear():
    d = base()
    d["shape"] = (Act(3, lambda: d.clear()),)
    return CAI(d)

def strides_mutate():
    strides = [4, 4]
    strides[0] = Act(8, lambda: (strides.clear(), gc.collect()))
    return CAI(base(shape=(0, 2), strides=strides))

def strides_clear_dict():
    d = base(shape=(0, 2))
    d["strides"] = (Act(8, lambda: d.clear()), Act(4, lambda: d.update(shape=5)))
    return CAI(d)

def readonly_flag_clears():
    d = base()
    d["data"] = (0, Act(1, lambda: (d.clear(), gc.collect())))
    return CAI(d)

def readonly_flag_raises():
    def boom():
        raise KeyError("flag")
    return CAI(base(data=(0, Act(1, boom))))

def stream_clears():
    d = base()
    d["stream"] = Act(7, lambda: (d.clear(), gc.collect()))
    return CAI(d)

def stream_raises():
    def boom():
        raise LookupError("stream")
    return CAI(base(stream=Act(7, boom)))

class SneakyStr(str):
    def __hash__(self):
        return str.__hash__(self)
    def __eq__(self, other):
        return str.__eq__(self, other)
    def __str__(self):
        raise RuntimeError("str")

def typestr_subclass():
    return CAI(base(typestr=SneakyStr("<f8")))

class Collider:
    """A key hashing like 'shape' whose __eq__ empties the dict."""
    def __init__(self, d):
        self.d = d
    def __hash__(self):
        return hash("shape")
    def __eq__(self, other):
        self.d.clear()
        return False

def colliding_key():
    d = {}
    d[Collider(d)] = 1
    d.update(base())
    return CAI(d)

class ShapeTuple(tuple):
    def __iter__(self):
        return iter((0, 9))
    def __len__(self):
        return 50

def tuple_subclass_lies():
    return CAI(base(shape=ShapeTuple((0, 1, 2))))

class Flip:
    """A new interface each time it is read, the producer dropping its last."""
    n = 0
    @property
    def __cuda_array_interface__(self):
        Flip.n += 1
        return base(shape=(0, Flip.n))

def fresh_dict_each_read():
    return Flip()

def interface_deletes_producer():
    holder = {}
    class P:
        @property
        def __cuda_array_interface__(self):
            holder.clear()
            gc.collect()
            return base(shape=[Act(0, gc.collect)])
    holder["p"] = P()
    return holder["p"]

def dlpack_device_mutates():
    class P:
        def __dlpack_device__(self):
            del P.__dlpack__
            return (2, 0)
        def __dlpack__(self, **kw):
            return None
    return P()

cases = [shape_clears_dict, shape_list_cleared, shape_list_grows, shape_item_drops_everything,
         shape_replaces_typestr, shape_replaces_data, nonzero_shape_null_data_after_clear,
         strides_mutate, strides_clear_dict, readonly_flag_clears, readonly_flag_raises,
         stream_clears, stream_raises, typestr_subclass, colliding_key, tuple_subclass_lies,
         fresh_dict_each_read, interface_deletes_producer, dlpack_device_mutates]
for _ in range(3):  # again, with the freed memory reused
    for case in cases:
        run(case.__name__, case)
    gc.collect()
print(json.dumps(results))
'''

MUTATION_EXPECTED = {
    "shape_clears_dict": ["ok (0, 3)"],
    "shape_list_cleared": ["ok (0, 2)"],
    "shape_list_grows": ["ok (0,)"],
    "shape_item_drops_everything": ["ok (0, 4)"],
    "shape_replaces_typestr": ["ok (0,)"],
    "shape_replaces_data": ["ok (0,)"],
    "nonzero_shape_null_data_after_clear": ["ValueError"],
    "strides_mutate": ["ok (0, 2)"],
    "strides_clear_dict": ["ok (0, 2)"],
    "readonly_flag_clears": ["ok (0,)"],
    "readonly_flag_raises": ["KeyError"],
    "stream_clears": ["ok (0,)"],
    "stream_raises": ["LookupError"],
    "typestr_subclass": ["ok (0,)"],
    # the lookup of "shape" meets the colliding key, whose __eq__ empties the
    # dict: CPython restarts the lookup and finds nothing
    "colliding_key": ["ValueError", "ok (0,)"],
    "tuple_subclass_lies": ["ok (0, 9)"],
    "fresh_dict_each_read": ["ok (0, %d)" % n for n in range(1, 100)],
    "interface_deletes_producer": ["ok (0,)"],
    "dlpack_device_mutates": ["AttributeError"],
}


def run_python(code):
    env = dict(os.environ)
    env["PYTHONPATH"] = IMPORT_ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run([sys.executable, "-c", code], cwd=IMPORT_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def mutation_results():
    proc = run_python(MUTATION_SCRIPT)
    assert proc.returncode == 0, "the interpreter died (%d):\n%s" % (proc.returncode, proc.stderr[-4000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", sorted(MUTATION_EXPECTED))
def test_self_mutating_interface(mutation_results, case):
    assert mutation_results[case] in MUTATION_EXPECTED[case], mutation_results[case]


# ================================================================ crash cases of the old code (subprocess)

CRASH_SCRIPT = r'''
import gc
import myModule as mm

class CAI:
    def __init__(self, d):
        self.d = d
    @property
    def __cuda_array_interface__(self):
        return self.d

class Clearing:
    # what crashed the old import: the shape list (read through PySequence_Fast,
    # items borrowed, its length read once) and the dict emptied mid-read
    def __init__(self, *victims):
        self.victims = victims
    def __index__(self):
        for v in self.victims:
            v.clear()
        gc.collect()
        return 0

for i in range(200):
    shape = [0, 0, 0]
    d = {"typestr": "<f4", "data": (0, False), "shape": shape}
    shape[0] = Clearing(shape, d)
    shape[1] = Clearing(shape)
    try:
        mm.asarray(CAI(d))
    except Exception:
        pass
    strides = [4, 4]
    d = {"typestr": "<f4", "data": (0, False), "shape": (0, 2), "strides": strides}
    strides[0] = Clearing(strides, d)
    try:
        mm.asarray(CAI(d))
    except Exception:
        pass
    d = {"typestr": "<f4", "shape": (0,)}
    d["data"] = (0, type("B", (), {"__bool__": lambda self: d.clear() or True})())
    try:
        mm.asarray(CAI(d))
    except Exception:
        pass
print("survived")
'''


def test_old_crashes_survive_in_a_subprocess():
    proc = run_python(CRASH_SCRIPT)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert proc.stdout.strip() == "survived"


# ================================================================ Dask serializers

class Frame:
    """A received device frame: what a comm hands the deserializer."""

    def __init__(self, nbytes, readonly=False, strides=None, typestr="|u1"):
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": typestr, "strides": strides,
                                         "data": (0x10000, readonly), "version": 3}


def serializers():
    pytest.importorskip("distributed", reason="distributed is not installed")
    from myModule import dask_serialize
    return dask_serialize


@pytest.mark.parametrize("header, frame, exc", [
    ({"shape": (10 ** 9,), "typestr": "<f8"}, Frame(100), ValueError),  # a view past the frame
    ({"shape": (3,), "typestr": "<f8"}, Frame(100), ValueError),  # a frame larger than the header
    ({"shape": (2 ** 62, 2 ** 62), "typestr": "<f8"}, Frame(8), ValueError),  # past int64
    ({"shape": (-1,), "typestr": "<f8"}, Frame(8), ValueError),
    ({"shape": (True,), "typestr": "<f8"}, Frame(8), TypeError),
    ({"shape": ("1",), "typestr": "<f8"}, Frame(8), TypeError),
    ({"shape": 1, "typestr": "<f8"}, Frame(8), TypeError),
    ({"shape": (1,), "typestr": 5}, Frame(8), TypeError),
    ({"shape": (1,), "typestr": b"<f8"}, Frame(8), TypeError),
    ({"shape": (2,), "typestr": "<f8"}, Frame(16, strides=(2,)), ValueError),  # not one run
], ids=["past-frame", "short-header", "overflow", "negative", "bool-dim", "str-dim", "int-shape",
        "int-typestr", "bytes-typestr", "strided-frame"])
def test_cuda_deserializer_refuses_a_header_that_does_not_fit_its_frame(header, frame, exc):
    """A header comes from another process: it is checked against the frame before
    any view is made (a shape larger than the frame would read past the buffer)."""
    raises_exactly(exc, serializers().cuda_deserialize_devicearray, header, [frame])


@pytest.mark.parametrize("header, frames, exc", [
    ({"shape": (3,), "typestr": "<f8"}, [b"\0" * 16], ValueError),
    ({"shape": (1,), "typestr": "<f8"}, [b"\0" * 4, b"\0" * 8], ValueError),
    ({"shape": (-2,), "typestr": "<f8"}, [b""], ValueError),
    ({"shape": (2,), "typestr": "|O"}, [b"\0" * 16], ValueError),  # NumPy: no object array from bytes
    ({"shape": (2,), "typestr": None}, [b"\0" * 16], TypeError),
])
def test_host_deserializer_refuses_a_header_that_does_not_fit_its_frames(header, frames, exc):
    raises_exactly(exc, serializers().dask_deserialize_devicearray, header, frames)


@pytest.mark.gpu
@requires_gpu
def test_cuda_deserializer_keeps_a_read_only_frame_read_only():
    ds = serializers()
    src = mm.asarray(np.arange(4.0))
    header, (frame,) = ds.cuda_serialize_devicearray(src)
    frame.__cuda_array_interface__["data"] = (frame.__cuda_array_interface__["data"][0], True)
    got = ds.cuda_deserialize_devicearray(header, [frame])
    np.testing.assert_array_equal(got.get(), np.arange(4.0))
    with pytest.raises(ValueError, match="read-only"):
        mm.add(got, 1, out=got)


# ================================================================ the array API namespace

class DtypeRaises:
    @property
    def dtype(self):
        raise RuntimeError("dtype raised")


def test_array_api_data_type_functions_refuse_what_is_no_dtype():
    import myModule.array_api as xp
    for call in (lambda: xp.can_cast(None, xp.float32), lambda: xp.isdtype(xp.float32, None),
                 lambda: xp.isdtype(None, "numeric"), lambda: xp.finfo(None), lambda: xp.iinfo(None),
                 lambda: xp.result_type(xp.float32, None), lambda: xp.isdtype(xp.float32, ["numeric"]),
                 lambda: xp.finfo(np.float16), lambda: xp.iinfo(xp.bool)):
        raises_exactly(TypeError, call)
    raises_exactly(ValueError, xp.isdtype, xp.float32, "nonsense")
    raises_exactly(ValueError, xp.result_type)


def test_array_api_passes_on_what_a_dtype_property_raises():
    import myModule.array_api as xp
    for fn in (xp.finfo, xp.iinfo, xp.result_type, lambda o: xp.isdtype(o, "numeric"),
               lambda o: xp.can_cast(o, xp.float64)):
        raises_exactly(RuntimeError, fn, DtypeRaises())
