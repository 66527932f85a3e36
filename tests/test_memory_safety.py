"""Issue 22: no size, shape, flag or output lets a kernel write outside its buffer.

- Sizes that overflow (creation, reshape, broadcast_to, concatenate, imports)
  raise NumPy's ValueError ("array is too big") before any CUDA call.
- Raw kernels (VA_RAW_KERNEL, moving_average) check out= (shape, dtype,
  same_kind for a host out, read-only) and grid=/block= before the device check.
- The read-only flag is carried by every view and refused by every writer with
  NumPy's messages.
- Argument errors come before the device check (../shared/SPEC.md): on a
  machine without a GPU every bad call below raises NumPy's exception type,
  never CudaUnavailableError.

The GPU tests at the end assert that nothing next to an output is written and
that overlapping outputs get the right values (they skip without a GPU).
"""
import numpy as np
import pytest

import myModule as mm
import myModule.array_api as xp
from conftest import HAS_GPU, requires_gpu

AxisError = np.exceptions.AxisError
TOO_BIG = "array is too big"


def placeholder(shape, dtype="f8"):
    """A DeviceArray over no memory (view arithmetic only; never read)."""
    itemsize = np.dtype(dtype).itemsize
    strides = []
    step = itemsize
    for n in reversed(shape):
        strides.insert(0, step)
        step *= max(n, 1)
    return mm._core._testing_view(tuple(shape), tuple(strides), dtype)


def readonly_empty():
    """A read-only DeviceArray (an empty CAI import needs no GPU)."""
    class Producer:
        __cuda_array_interface__ = {"shape": (0,), "typestr": "<f8", "data": (0, True), "version": 3}
    return mm.asarray(Producer())


def numpy_error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (any NumPy error: its type is the oracle)
        return type(e)
    return None


# ---------------------------------------------------------------- argument errors before the device
# (label, our call, NumPy's call or None, expected type, text in the message or None)
H = np.ones(3)
P = placeholder((2, 3))
CASES = [
    ("zeros-2**40-squared", lambda: mm.zeros((2**40, 2**40)), lambda: np.zeros((2**40, 2**40)), ValueError, TOO_BIG),
    ("empty-2**61", lambda: mm.empty(2**61), lambda: np.empty(2**61), ValueError, TOO_BIG),
    ("empty-2**60", lambda: mm.empty(2**60), lambda: np.empty(2**60), ValueError, TOO_BIG),
    ("empty-zero-with-huge", lambda: mm.empty((0, 2**62, 2**62)), lambda: np.empty((0, 2**62, 2**62)),
     ValueError, TOO_BIG),
    ("ones-int32", lambda: mm.ones((2**31, 2**31, 2), dtype=np.int32),
     lambda: np.ones((2**31, 2**31, 2), dtype=np.int32), ValueError, TOO_BIG),
    ("full", lambda: mm.full((2**40, 2**40), 1.0), lambda: np.full((2**40, 2**40), 1.0), ValueError, TOO_BIG),
    ("zeros_like-shape", lambda: mm.zeros_like(H, shape=(2**40, 2**40)),
     lambda: np.zeros_like(H, shape=(2**40, 2**40)), ValueError, TOO_BIG),
    ("full_like-shape", lambda: mm.full_like(H, 2.0, shape=(2**62, 4)),
     lambda: np.full_like(H, 2.0, shape=(2**62, 4)), ValueError, TOO_BIG),
    ("arange-2**61", lambda: mm.arange(2**61), lambda: np.arange(2**61), ValueError, None),
    ("linspace-2**61", lambda: mm.linspace(0, 1, 2**61), lambda: np.linspace(0, 1, 2**61), ValueError, TOO_BIG),
    ("eye-2**31", lambda: mm.eye(2**31), lambda: np.eye(2**31), ValueError, TOO_BIG),
    ("eye-negative", lambda: mm.eye(-1), lambda: np.eye(-1), ValueError, None),
    ("reshape-wraps-2**64", lambda: placeholder((1,)).reshape(274177, 67280421310721),
     lambda: np.ones(1).reshape(274177, 67280421310721), ValueError, "cannot reshape"),
    ("reshape-2**32-squared", lambda: placeholder((1,)).reshape(2**32, 2**32),
     lambda: np.ones(1).reshape(2**32, 2**32), ValueError, "cannot reshape"),
    ("reshape-empty-huge", lambda: placeholder((0,)).reshape(0, 2**62, 2**62),
     lambda: np.ones(0).reshape(0, 2**62, 2**62), ValueError, TOO_BIG),
    ("reshape-empty-unknown-huge", lambda: placeholder((0,)).reshape(-1, 2**62, 2**62),
     lambda: np.ones(0).reshape(-1, 2**62, 2**62), ValueError, None),
    ("module-reshape-host", lambda: mm.reshape(H, (2**32, 2**32)), lambda: np.reshape(H, (2**32, 2**32)),
     ValueError, None),
    ("broadcast_to-2**32-squared", lambda: mm.broadcast_to(placeholder((1,)), (2**32, 2**32)),
     lambda: np.broadcast_to(np.ones(1), (2**32, 2**32)), ValueError, None),
    ("broadcast_to-host", lambda: mm.broadcast_to(H, (2**40, 2**40, 3)),
     lambda: np.broadcast_to(H, (2**40, 2**40, 3)), ValueError, None),
    ("broadcast_to-host-mismatch", lambda: mm.broadcast_to(H, (4,)), lambda: np.broadcast_to(H, (4,)),
     ValueError, None),
    ("testing-view-extent-wraps", lambda: mm._core._testing_view((2**40, 4), (2**40, 8), "f8"), None,
     ValueError, TOO_BIG),
    ("sum-axis-5", lambda: mm.sum(H, axis=5), lambda: np.sum(H, axis=5), AxisError, None),
    ("sum-axis-0-0", lambda: mm.sum(H, axis=(0, 0)), lambda: np.sum(H, axis=(0, 0)), ValueError, None),
    ("sum-device-axis-5", lambda: mm.sum(P, axis=5), lambda: np.sum(np.ones((2, 3)), axis=5), AxisError, None),
    ("sum-device-axis-0-0", lambda: mm.sum(P, axis=(0, 0)), lambda: np.sum(np.ones((2, 3)), axis=(0, 0)),
     ValueError, None),
    ("max-empty-axis", lambda: mm.max(np.ones((0, 3)), axis=0), lambda: np.max(np.ones((0, 3)), axis=0),
     ValueError, None),
    ("max-device-empty-axis", lambda: mm.max(placeholder((0, 3)), axis=0),
     lambda: np.max(np.ones((0, 3)), axis=0), ValueError, None),
    ("argmin-device-axis", lambda: mm.argmin(P, axis=-3), lambda: np.argmin(np.ones((2, 3)), axis=-3),
     AxisError, None),
    ("sum-cuda-axis-5", lambda: mm.sum(H, axis=5, device="cuda"), lambda: np.sum(H, axis=5), AxisError, None),
    ("sum-cuda-axis-0-0", lambda: mm.sum(np.ones((2, 2)), axis=(0, 0), device="cuda"),
     lambda: np.sum(np.ones((2, 2)), axis=(0, 0)), ValueError, None),
    ("max-cuda-empty-axis", lambda: mm.max(np.ones((0, 3)), axis=0, device="cuda"),
     lambda: np.max(np.ones((0, 3)), axis=0), ValueError, "no identity"),
    ("sum-cuda-out-ndim", lambda: mm.sum(np.ones((2, 2)), axis=0, out=np.ones((2, 2)), device="cuda"),
     lambda: np.sum(np.ones((2, 2)), axis=0, out=np.ones((2, 2))), ValueError, None),
    ("sum-cuda-out-readonly", lambda: mm.sum(np.ones((2, 2)), axis=0, out=_readonly_host(2), device="cuda"),
     lambda: np.sum(np.ones((2, 2)), axis=0, out=_readonly_host(2)), ValueError, "read-only"),
    ("argmax-cuda-axis-tuple", lambda: mm.argmax(np.ones((2, 2)), axis=(0,), device="cuda"),
     lambda: np.argmax(np.ones((2, 2)), axis=(0,)), TypeError, None),
    ("np-size-repeated-axis", lambda: np.size(P, axis=(0, 0)), lambda: np.size(np.ones((2, 3)), axis=(0, 0)),
     ValueError, None),
    ("np-size-axis-out-of-range", lambda: np.size(P, axis=2), lambda: np.size(np.ones((2, 3)), axis=2),
     AxisError, None),
    ("concatenate-casting-no", lambda: mm.concatenate([np.ones(2), np.ones(2, np.int32)], casting="no"),
     lambda: np.concatenate([np.ones(2), np.ones(2, np.int32)], casting="no"), TypeError, None),
    ("concatenate-casting-equiv", lambda: mm.concatenate([np.ones(2, np.int32), np.ones(2)], casting="equiv"),
     lambda: np.concatenate([np.ones(2, np.int32), np.ones(2)], casting="equiv"), TypeError, None),
    ("squeeze-host-axis", lambda: mm.squeeze(H, axis=5), lambda: np.squeeze(H, axis=5), AxisError, None),
    ("expand_dims-host-axis", lambda: mm.expand_dims(H, 5), lambda: np.expand_dims(H, 5), AxisError, None),
    ("transpose-host-axes", lambda: mm.transpose(np.ones((2, 3)), (0, 0)),
     lambda: np.transpose(np.ones((2, 3)), (0, 0)), ValueError, None),
    ("permute_dims-host-axes", lambda: mm.permute_dims(np.ones((2, 3)), (0, 2)),
     lambda: np.permute_dims(np.ones((2, 3)), (0, 2)), AxisError, None),
    ("astype-bad-dtype", lambda: mm.astype(H, "U3"), None, TypeError, None),
    ("to_device-40-dims", lambda: mm.to_device(np.ones((1,) * 40)), None, ValueError, None),
    ("raw-small-host-out", lambda: mm.moving_average(np.ones(1000), out=np.ones(10)), None, ValueError, "shape"),
    ("raw-small-device-out", lambda: mm.moving_average(np.ones(1000), out=placeholder((10,))), None,
     ValueError, "shape"),
    ("raw-2d-device-out", lambda: mm.moving_average(np.ones(6), out=placeholder((2, 3))), None,
     ValueError, "shape"),
    ("raw-int32-host-out", lambda: mm.moving_average(np.ones(5), out=np.ones(5, np.int32)),
     lambda: np.add(np.ones(5), 1.0, out=np.ones(5, np.int32)), TypeError, "same_kind"),
    ("raw-float32-device-out", lambda: mm.moving_average(np.ones(5), out=placeholder((5,), "f4")), None,
     TypeError, None),
    ("raw-readonly-host-out", lambda: mm.moving_average(np.ones(5), out=_readonly_host(5)),
     lambda: np.add(np.ones(5), 1.0, out=_readonly_host(5)), ValueError, "read-only"),
    ("raw-readonly-device-out", lambda: mm.moving_average(np.ones(0), out=readonly_empty()), None,
     ValueError, "read-only"),
    ("raw-grid-2**40", lambda: mm.moving_average(np.ones(5), grid=2**40), None, ValueError, None),
    ("raw-grid-2**31", lambda: mm.moving_average(np.ones(5), grid=2**31), None, ValueError, None),
    ("raw-grid-2**64", lambda: mm.moving_average(np.ones(5), grid=2**64), None, ValueError, None),
    ("raw-grid-negative-huge", lambda: mm.moving_average(np.ones(5), grid=-2**70), None, ValueError, None),
    ("raw-block-1025", lambda: mm.moving_average(np.ones(5), block=1025), None, ValueError, None),
    ("raw-block-0", lambda: mm.moving_average(np.ones(5), block=0), None, ValueError, None),
    ("raw-block-float", lambda: mm.moving_average(np.ones(5), block=32.0), None, TypeError, None),
    ("raw-grid-str", lambda: mm.moving_average(np.ones(5), grid="4"), None, TypeError, None),
    ("raw-complex-input", lambda: mm.moving_average(np.ones(5) + 1j), None, TypeError, None),
    ("xp-asarray-2**63", lambda: xp.asarray(2**63), None, OverflowError, None),
    ("xp-asarray-list-2**64-1", lambda: xp.asarray([2**64 - 1, 2**63]), None, OverflowError, None),
    ("xp-flip-axis", lambda: xp.flip(P, axis=2), lambda: np.flip(np.ones((2, 3)), axis=2), AxisError, None),
    ("xp-flip-repeated", lambda: xp.flip(P, axis=(0, -2)), lambda: np.flip(np.ones((2, 3)), axis=(0, -2)),
     ValueError, None),
    ("xp-moveaxis", lambda: xp.moveaxis(P, 0, 2), lambda: np.moveaxis(np.ones((2, 3)), 0, 2), AxisError, None),
    ("xp-moveaxis-negative", lambda: xp.moveaxis(P, -3, 0), lambda: np.moveaxis(np.ones((2, 3)), -3, 0),
     AxisError, None),
    ("xp-unstack", lambda: xp.unstack(P, axis=2), None, AxisError, None),
    ("xp-roll", lambda: xp.roll(P, 1, axis=2), lambda: np.roll(np.ones((2, 3)), 1, axis=2), AxisError, None),
    ("xp-take", lambda: xp.take(P, np.array([0]), axis=-3), lambda: np.take(np.ones((2, 3)), [0], axis=-3),
     AxisError, None),
    ("xp-repeat", lambda: xp.repeat(P, 2, axis=2), lambda: np.repeat(np.ones((2, 3)), 2, axis=2), AxisError, None),
    ("xp-diff-axis", lambda: xp.diff(P, axis=2), lambda: np.diff(np.ones((2, 3)), axis=2), AxisError, None),
    ("xp-diff-n-negative", lambda: xp.diff(P, n=-1), lambda: np.diff(np.ones((2, 3)), n=-1), ValueError, None),
    ("xp-sum-axis", lambda: xp.sum(P, axis=(1, -1)), lambda: np.sum(np.ones((2, 3)), axis=(1, -1)),
     ValueError, None),
    ("xp-var-axis", lambda: xp.var(P, axis=4), lambda: np.var(np.ones((2, 3)), axis=4), AxisError, None),
    ("normalize-axis", lambda: mm._core._normalize_axis(3, 3), None, AxisError, None),
    ("normalize-axis-repeated", lambda: mm._core._normalize_axis((1, -2), 3), None, ValueError, "repeated"),
]


def _readonly_host(n):
    a = np.ones(n)
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("label, ours, numpys, expected, text", CASES, ids=[c[0] for c in CASES])
def test_argument_errors_come_first_and_match_numpy(label, ours, numpys, expected, text):
    with pytest.raises(Exception) as info:
        ours()
    assert not isinstance(info.value, mm.CudaUnavailableError), info.value
    assert type(info.value) is expected or (expected is TypeError and isinstance(info.value, TypeError)), \
        "%s raised %r, expected %s" % (label, info.value, expected.__name__)
    if text is not None:
        assert text in str(info.value), str(info.value)
    if numpys is not None:
        theirs = numpy_error(numpys)
        assert theirs is not None and issubclass(theirs, expected), (label, theirs)


def test_forged_dask_header():
    pytest.importorskip("distributed")
    from myModule import dask_serialize as ds
    for header, frames in [({"shape": (1,) * 40, "typestr": "<f8"}, [bytes(8)]),
                           ({"shape": (2**40, 2**40), "typestr": "<f8"}, [bytes(8)]),
                           ({"shape": (-1,), "typestr": "<f8"}, [bytes(8)]),
                           ({"shape": (4,), "typestr": "<f8"}, [bytes(8)])]:
        with pytest.raises(ValueError):
            ds.dask_deserialize_devicearray(header, frames)


def test_eye_k_extremes_are_arguments_not_overflows():
    # Valid arguments: on a machine without a GPU they reach the device check.
    for k in (-2**63, 2**63 - 1, -4, 5):
        if HAS_GPU:
            np.testing.assert_array_equal(mm.eye(3, 4, k=k).get(), np.eye(3, 4, k=k))
        else:
            with pytest.raises(mm.CudaUnavailableError):
                mm.eye(3, 4, k=k)
    with pytest.raises(OverflowError):
        mm.eye(3, 4, k=2**63)


# ---------------------------------------------------------------- every public function
SKIP_SWEEP = {"CudaError", "CudaFatalError", "CudaUnavailableError", "DeviceArray", "OutOfMemoryError",
              "helloworld", "show_config"}
# A valid call for these reaches the device: concatenate([33-d]) joins 32-d pieces.
VALID_ON_GPU = {("concatenate", "33-d")}
BAD_CALLS = {
    "33-d": ((np.ones((1,) * 33),), {}),
    "object": ((object(),), {}),
    "axis99": ((np.ones(3),), {"axis": 99}),
    "out-small": ((np.ones(3),), {"out": np.ones(2)}),
    "out-object": ((np.ones(3),), {"out": object()}),
    "dtype-str": ((np.ones(3),), {"dtype": "U3"}),
    "device-bad": ((np.ones(3),), {"device": "tpu"}),
}


@pytest.mark.parametrize("name", [n for n in mm.__all__ if callable(getattr(mm, n)) and n not in SKIP_SWEEP])
def test_public_function_bad_arguments_never_reach_the_device_check(name):
    fn = getattr(mm, name)
    for label, (args, kwargs) in BAD_CALLS.items():
        try:
            with np.errstate(all="ignore"):
                fn(*args, **kwargs)
        except mm.CudaUnavailableError:
            assert (name, label) in VALID_ON_GPU, "%s(%s) checked the device before its arguments" % (name, label)
        except (TypeError, ValueError, IndexError, OverflowError, KeyError, BufferError):
            pass  # an argument error (AxisError is a ValueError and an IndexError)


# ---------------------------------------------------------------- read-only views

VIEWS = {
    "self": lambda r: r,
    "T": lambda r: r.T,
    "slice": lambda r: r[:],
    "reversed": lambda r: r[::-1],
    "reshape": lambda r: r.reshape(0, 1),
    "ravel": lambda r: r.ravel(),
    "squeeze": lambda r: r.reshape(1, 0).squeeze(0),
    "expand_dims": lambda r: mm.expand_dims(r, 0),
    "broadcast_to": lambda r: mm.broadcast_to(r, (2, 0)),
    "transpose": lambda r: mm.transpose(r.reshape(0, 1)),
    "xp-flip": lambda r: xp.flip(r),
    "xp-permute": lambda r: xp.permute_dims(r.reshape(0, 1), (1, 0)),
}


@pytest.mark.parametrize("view", list(VIEWS), ids=list(VIEWS))
def test_views_of_readonly_memory_stay_readonly(view):
    v = VIEWS[view](readonly_empty())
    e = pytest.raises(ValueError, v.fill, 1.0)
    assert "assignment destination is read-only" in str(e.value)

    def assign():
        v[...] = 1.0
    e = pytest.raises(ValueError, assign)
    assert "assignment destination is read-only" in str(e.value)
    e = pytest.raises(ValueError, mm.add, v, 1.0, out=v)
    assert "read-only" in str(e.value)
    e = pytest.raises(ValueError, mm.moving_average, np.ones(v.shape), out=v)
    assert "read-only" in str(e.value)


def test_broadcast_to_is_readonly_as_numpys():
    b = mm.broadcast_to(placeholder((1, 3)), (4, 3))
    e = pytest.raises(ValueError, b.fill, 1.0)
    assert str(e.value) == "assignment destination is read-only"
    assert not np.broadcast_to(np.ones((1, 3)), (4, 3)).flags.writeable

    def assign():
        b[0] = 1.0
    pytest.raises(ValueError, assign)
    # its views too
    pytest.raises(ValueError, b.T.fill, 1.0)
    pytest.raises(ValueError, b[1:].fill, 1.0)


def test_readonly_refused_before_the_key_is_read():
    r = readonly_empty()

    def assign():
        r[5] = 1.0  # NumPy: the read-only error, not the IndexError
    e = pytest.raises(ValueError, assign)
    assert "read-only" in str(e.value)
    a = np.ones(0)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        a[5] = 1.0


# ---------------------------------------------------------------- on the GPU: nothing written outside

@pytest.mark.gpu
@requires_gpu
def test_raw_kernel_small_out_is_refused_and_neighbours_untouched():
    before = mm.to_device(np.full(64, 7.0))
    out = mm.full(10, 5.0)  # written: reading empty memory back is initcheck's error
    after = mm.to_device(np.full(64, 9.0))
    out_keep = out.get()
    with pytest.raises(ValueError):
        mm.moving_average(mm.to_device(np.arange(1000.0)), out=out)
    mm.synchronize()
    np.testing.assert_array_equal(before.get(), np.full(64, 7.0))
    np.testing.assert_array_equal(after.get(), np.full(64, 9.0))
    np.testing.assert_array_equal(out.get(), out_keep)


def _moving_average(x):
    x = np.asarray(x, dtype=np.float64)
    s = x.copy()
    c = np.ones_like(x)
    s[1:] += x[:-1]
    c[1:] += 1
    s[:-1] += x[1:]
    c[:-1] += 1
    return s / c


@pytest.mark.gpu
@requires_gpu
def test_raw_kernel_out_overlapping_its_input():
    x = np.arange(40.0) ** 1.5
    d = mm.to_device(x)
    assert mm.moving_average(d, out=d) is d  # in place: reads neighbours it also writes
    np.testing.assert_allclose(d.get(), _moving_average(x), rtol=1e-15)
    d = mm.to_device(x)
    got = mm.moving_average(d[:20], out=d[10:30])  # partial overlap
    np.testing.assert_allclose(got.get(), _moving_average(x[:20]), rtol=1e-15)
    expected = x.copy()
    expected[10:30] = _moving_average(x[:20])
    np.testing.assert_allclose(d.get(), expected, rtol=1e-15)
    d = mm.to_device(x)
    mm.moving_average(d[::2], out=d[1::2])  # interleaved: overlapping extents, no shared element
    expected = x.copy()
    expected[1::2] = _moving_average(x[::2])
    np.testing.assert_allclose(d.get(), expected, rtol=1e-15)


@pytest.mark.gpu
@requires_gpu
def test_raw_kernel_host_out_same_kind():
    out = np.zeros(7, dtype=np.float32)
    x = np.arange(7.0)
    assert mm.moving_average(x, out=out) is out
    np.testing.assert_allclose(out, _moving_average(x).astype(np.float32), rtol=1e-6)


@pytest.mark.gpu
@requires_gpu
def test_readonly_import_is_never_written():
    d = mm.to_device(np.arange(12.0).reshape(3, 4))

    class Producer:
        def __init__(self, base):
            self.base = base
            cai = dict(base.__cuda_array_interface__)
            cai["data"] = (cai["data"][0], True)
            self.__cuda_array_interface__ = cai

    ro = mm.asarray(Producer(d))
    for v in (ro, ro.T, ro[:], ro[1:, ::2], ro.reshape(12), ro.ravel(), mm.expand_dims(ro, 0), ro[None]):
        with pytest.raises(ValueError, match="read-only"):
            v[...] = 1.0
        with pytest.raises(ValueError, match="read-only"):
            v.fill(1.0)
        with pytest.raises(ValueError, match="read-only"):
            mm.add(v, 1.0, out=v)
        with pytest.raises(ValueError, match="read-only"):
            v += 1.0
        assert v.__cuda_array_interface__["data"][1] is True
    with pytest.raises(ValueError, match="read-only"):
        mm.moving_average(np.ones(12), out=ro.reshape(12))
    with pytest.raises(ValueError, match="read-only"):
        mm.sum(ro, axis=0, out=mm.broadcast_to(mm.zeros(1), (4,)))
    np.testing.assert_array_equal(d.get(), np.arange(12.0).reshape(3, 4))
    # copies are writable
    c = ro.astype(np.float64)
    c.fill(2.0)
    np.testing.assert_array_equal(c.get(), np.full((3, 4), 2.0))
    c = ro.copy()
    c[...] = 3.0
    np.testing.assert_array_equal(c.get(), np.full((3, 4), 3.0))


@pytest.mark.gpu
@requires_gpu
def test_eye_k_extremes_on_the_gpu():
    for n, m in ((3, 4), (4, 3), (1, 1), (0, 3)):
        for k in (-2**63, -2**63 + 1, -n, -n + 1, 0, m - 1, m, 2**63 - 1):
            np.testing.assert_array_equal(mm.eye(n, m, k=k).get(), np.eye(n, m, k=k))


@pytest.mark.gpu
@requires_gpu
def test_sizes_that_wrap_never_reach_the_allocator():
    for fn in (lambda: mm.empty(2**61), lambda: mm.empty((2**32, 2**32)), lambda: mm.arange(2**61),
               lambda: mm.linspace(0, 1, 2**61), lambda: mm.eye(2**31)):
        with pytest.raises(ValueError, match="too big"):
            fn()
    one = mm.ones(1)
    with pytest.raises(ValueError):
        one.reshape(274177, 67280421310721)
    with pytest.raises(ValueError):
        mm.broadcast_to(one, (2**32, 2**32))
    big = mm.broadcast_to(one, (2**59,))  # 2**62 bytes: a valid view
    assert big.size == 2**59 and big.strides == (0,)
    with pytest.raises(ValueError, match="too big"):
        mm.concatenate([big] * 3)
