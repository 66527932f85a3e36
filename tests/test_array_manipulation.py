"""Shapes and types of DeviceArrays (reshape, ravel, flatten, transpose, .T,
permute_dims, squeeze, expand_dims, broadcast_to, concatenate, stack, astype,
copy, fill), their conversions to Python scalars and their repr, against NumPy.

Without a GPU, views are checked on DeviceArrays over no memory
(``_testing_view``): geometry as NumPy's views, NumPy's errors before any CUDA
call, and a copy attempted exactly where NumPy must copy. With a GPU, values.
"""
import numpy as np
import pytest

import myModule
from conftest import (DTYPE_PAIRS, DTYPES, GPU_MARKS, HAS_GPU, Raised, assert_same_result, outcome,
                      requires_no_gpu)

core = myModule._core


def on_gpu(test):
    for mark in GPU_MARKS:
        test = mark(test)
    return test


# With a GPU, the "fake" views lie over real (zeroed) device memory instead, so
# that an operation that copies reads memory that exists; kept until the test ends.
_BACKING = []


@pytest.fixture(autouse=True)
def _release_backing():
    yield
    _BACKING.clear()


def fake(a, address=1 << 20):
    if not HAS_GPU:
        return core._testing_view(a.shape, a.strides, a.dtype, address)
    lo = sum((n - 1) * s for n, s in zip(a.shape, a.strides) if s < 0 and n > 0)
    hi = sum((n - 1) * s for n, s in zip(a.shape, a.strides) if s > 0 and n > 0) + a.itemsize
    backing = myModule.zeros((hi - lo) // 8 + 2, dtype=np.int64)
    _BACKING.append(backing)
    return core._testing_view(a.shape, a.strides, a.dtype, backing.ptr - lo)


def geometry(v, base_ptr):
    return (v.ptr - base_ptr, v.shape, v.strides) if isinstance(v, myModule.DeviceArray) else \
        (v.__array_interface__["data"][0] - base_ptr, v.shape, v.strides)


def assert_same_view(got, expected, d, a):
    if isinstance(expected, Raised) or isinstance(got, Raised):
        assert_same_result(got, expected)
        return
    g = geometry(got, d.ptr)
    e = geometry(expected, a.__array_interface__["data"][0])
    if 0 in e[1]:
        assert g[1] == e[1]
    else:
        assert g == e


LAYOUTS = {
    "C": lambda: np.arange(24.0).reshape(2, 3, 4),
    "F": lambda: np.asfortranarray(np.arange(24.0).reshape(2, 3, 4)),
    "strided": lambda: np.arange(48.0).reshape(4, 3, 4)[::2],
    "reversed": lambda: np.arange(24.0).reshape(2, 3, 4)[::-1, :, ::-1],
    "ones-dims": lambda: np.arange(6.0).reshape(1, 2, 1, 3, 1),
    "0d": lambda: np.array(5.0),
    "empty": lambda: np.zeros((2, 0, 3)),
}
NEW_SHAPES = [(-1,), (24,), (4, 6), (6, -1), (2, 12), (1, 24, 1), (2, 3, 4), (4, 3, 2), (3, 8), (1, 1, 1),
              (), (0,), (-1, -1), (5, -1), (2, 2, 2, 3), (12, 2)]


def expected_shape(a, shape):
    return np.reshape(a, shape).shape


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("shape", NEW_SHAPES, ids=str)
def test_reshape_views_where_numpy_can(layout, shape):
    a = LAYOUTS[layout]()
    d = fake(a)
    expected = outcome(lambda: a.reshape(shape, copy=False))
    got = outcome(lambda: d.reshape(shape, copy=False))
    assert_same_view(got, expected, d, a)
    got = outcome(lambda: myModule.reshape(d, shape))
    if (isinstance(expected, Raised) and "copy" in str(expected.exc) and not isinstance(got, Raised)
            and (not HAS_GPU or _BACKING[-1].ptr <= got.ptr < _BACKING[-1].ptr + _BACKING[-1].nbytes)):
        pytest.fail("NumPy must copy here, and we made a view")
    if isinstance(expected, Raised) and "copy" in str(expected.exc):
        # the copy itself needs the GPU: here it is attempted, not refused
        if myModule.cuda_available():
            assert isinstance(got, myModule.DeviceArray) and got.shape == expected_shape(a, shape)
        else:
            assert isinstance(got, Raised) and isinstance(got.exc, myModule.CudaUnavailableError)
    else:
        assert_same_view(got, expected, d, a)


def test_reshape_argument_forms():
    a = np.arange(24.0).reshape(2, 3, 4)
    d = fake(a)
    assert d.reshape(4, 6).shape == (4, 6)
    assert d.reshape((4, 6)).shape == (4, 6)
    assert d.reshape([4, -1]).shape == (4, 6)
    assert d.reshape(24).shape == (24,)
    for bad in [(2.5,), ("a",), ((2, 2.0),)]:
        assert_same_result(outcome(lambda: d.reshape(*bad)), outcome(lambda: a.reshape(*bad)))
    with pytest.raises(ValueError):
        d.reshape(24, order="F")


TRANSPOSE_AXES = [None, (0, 1, 2), (2, 0, 1), (-1, 0, 1), (1, 0), (0, 0, 1), (0, 1, 3), (0, 1, 2, 3)]


@pytest.mark.parametrize("layout", ["C", "reversed", "strided"])
@pytest.mark.parametrize("axes", TRANSPOSE_AXES, ids=str)
def test_transpose_as_numpy(layout, axes):
    a = LAYOUTS[layout]()
    d = fake(a)
    assert_same_view(outcome(lambda: d.transpose(axes)), outcome(lambda: a.transpose(axes)), d, a)
    assert_same_view(outcome(lambda: myModule.transpose(d, axes)), outcome(lambda: np.transpose(a, axes)), d, a)
    if axes is not None:
        assert_same_view(outcome(lambda: d.transpose(*axes)), outcome(lambda: a.transpose(*axes)), d, a)
        assert_same_view(outcome(lambda: myModule.permute_dims(d, axes)),
                         outcome(lambda: np.permute_dims(a, axes)), d, a)
    assert_same_view(d.T, a.T, d, a)


@pytest.mark.parametrize("layout", ["ones-dims", "C", "0d"])
@pytest.mark.parametrize("axis", [None, 0, -1, 2, (0, 2), (0, 0), 1, 7, (4, 0)], ids=str)
def test_squeeze_as_numpy(layout, axis):
    a = LAYOUTS[layout]()
    d = fake(a)
    assert_same_view(outcome(lambda: d.squeeze(axis)), outcome(lambda: a.squeeze(axis)), d, a)
    assert_same_view(outcome(lambda: myModule.squeeze(d, axis=axis)), outcome(lambda: np.squeeze(a, axis=axis)),
                     d, a)


@pytest.mark.parametrize("layout", ["C", "0d", "reversed"])
@pytest.mark.parametrize("axis", [0, -1, 3, (0, 1), (0, -1), (1, 1), 5, -5, ()], ids=str)
def test_expand_dims_as_numpy(layout, axis):
    a = LAYOUTS[layout]()
    d = fake(a)
    got = outcome(lambda: myModule.expand_dims(d, axis))
    expected = outcome(lambda: np.expand_dims(a, axis))
    if isinstance(expected, Raised) or isinstance(got, Raised):
        assert_same_result(got, expected)
    else:  # NumPy's strides of the new length-1 axes are arbitrary
        assert got.shape == expected.shape and got.ptr == d.ptr
        keep = [i for i, n in enumerate(expected.shape) if n != 1]
        assert [got.strides[i] for i in keep] == [expected.strides[i] for i in keep]


@pytest.mark.parametrize("shape", [(3,), (2, 3), (4, 1, 3), (5, 0, 3), (3, 2), (2,), (), (-1, 3)], ids=str)
def test_broadcast_to_as_numpy(shape):
    a = np.arange(3.0)
    for src in (a, a[::-1], a[:1]):
        d = fake(src)
        assert_same_view(outcome(lambda: myModule.broadcast_to(d, shape)),
                         outcome(lambda: np.broadcast_to(src, shape)), d, src)


def test_ravel_is_a_view_when_contiguous_and_flatten_copies():
    a = np.arange(12.0).reshape(3, 4)
    d = fake(a)
    r = d.ravel()
    assert r.shape == (12,) and r.ptr == d.ptr
    assert myModule.ravel(d).shape == (12,)
    if not HAS_GPU:
        with pytest.raises(myModule.CudaUnavailableError):
            d.flatten()
        with pytest.raises(myModule.CudaUnavailableError):
            d.T.ravel()
        return
    # with a GPU, the copies' values against NumPy's (real data, not fake's zeros)
    real = myModule.to_device(a)
    flat = real.flatten()
    assert isinstance(flat, myModule.DeviceArray) and flat.ptr != real.ptr
    assert_same_result(flat.get(), a.flatten())
    assert_same_result(real.T.ravel().get(), a.T.ravel())
    assert_same_result(real[:, ::2].ravel().get(), a[:, ::2].ravel())


# ---- scalars and truth

@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (2,), (0,), (3, 4)], ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("convert", [bool, int, float, "index"], ids=["bool", "int", "float", "index"])
def test_scalar_conversion_errors_as_numpy(shape, dtype, convert):
    import operator
    fn = operator.index if convert == "index" else convert
    a = np.zeros(shape, dtype=dtype)
    expected = outcome(lambda: fn(a))
    got = outcome(lambda: fn(fake(a)))
    if isinstance(expected, Raised):
        assert_same_result(got, expected)
        assert str(got.exc).split(".")[0] == str(expected.exc).split(".")[0]
    elif not HAS_GPU:
        assert isinstance(got, Raised) and isinstance(got.exc, myModule.CudaUnavailableError), got
    else:  # with a GPU: NumPy's value and type, from real data (fake's memory is zeros)
        a = (np.arange(a.size) % 3 + 2).astype(dtype).reshape(shape)
        expected = outcome(lambda: fn(a))
        got = outcome(lambda: fn(myModule.to_device(a)))
        assert type(got) is type(expected) and got == expected, (got, expected)


# ---- errors of concatenate and stack come before the GPU

JOIN_ERRORS = [
    ("concatenate", lambda m: m.concatenate([])),
    ("concatenate", lambda m: m.concatenate([np.zeros((2, 2)), np.zeros(3)])),
    ("concatenate", lambda m: m.concatenate([np.zeros((2, 2)), np.zeros((3, 3))], axis=0)),
    ("concatenate", lambda m: m.concatenate([np.zeros(2)], axis=1)),
    ("concatenate", lambda m: m.concatenate([np.zeros(())])),
    ("stack", lambda m: m.stack([np.zeros(2), np.zeros(3)])),
    ("stack", lambda m: m.stack([np.zeros(2)], axis=2)),
    ("stack", lambda m: m.stack([])),
    ("concatenate", lambda m: m.concatenate([np.zeros(2), np.ones(2)], dtype=np.int32)),
    ("stack", lambda m: m.stack([np.zeros(2, np.int64)], dtype=np.int32, casting="safe")),
    ("concatenate", lambda m: m.concatenate([np.zeros(2)], casting="nonsense")),
]


@pytest.mark.parametrize("call", [c[1] for c in JOIN_ERRORS], ids=[c[0] + str(i) for i, c in enumerate(JOIN_ERRORS)])
def test_join_errors_as_numpy(call):
    expected = outcome(lambda: call(np))
    assert isinstance(expected, Raised)
    assert_same_result(outcome(lambda: call(myModule)), expected)


def test_astype_needs_a_supported_dtype():
    d = fake(np.zeros(3))
    with pytest.raises(TypeError):
        d.astype(np.float16)
    with pytest.raises(TypeError):
        d.fill("x" * 0 or object())


@requires_no_gpu
def test_copies_need_a_gpu():
    d = fake(np.zeros((2, 3)))
    for call in (d.copy, lambda: d.astype(np.float32), lambda: d.fill(1.0), lambda: myModule.concatenate([d, d]),
                 lambda: myModule.stack([np.zeros(2), np.ones(2)])):
        with pytest.raises(myModule.CudaUnavailableError):
            call()


# ---------------------------------------------------------------- on a GPU

def gpu_layout(name, dtype):
    return LAYOUTS[name]().astype(dtype) if name != "F" else np.asfortranarray(LAYOUTS[name]().astype(dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", list(LAYOUTS))
@on_gpu
def test_shape_functions_values(dtype, layout):
    a = gpu_layout(layout, dtype)
    d = myModule.asarray(a)
    for shape in NEW_SHAPES:
        assert_same_result(outcome(lambda: d.reshape(shape).get()), outcome(lambda: a.reshape(shape)))
    assert_same_result(d.ravel().get(), a.ravel())
    assert_same_result(d.flatten().get(), a.flatten())
    assert_same_result(d.T.get(), a.T)
    assert_same_result(d.squeeze().get(), a.squeeze())
    assert_same_result(myModule.expand_dims(d, 0).get(), np.expand_dims(a, 0))
    assert_same_result(d.copy().get(), a.copy())
    c = d.copy()
    assert c.ptr != d.ptr
    if a.size:
        assert c.strides == np.array(a, order="C").strides
    # views that are not contiguous: reshape copies where NumPy must
    for dv, av in ((d.T, a.T), (d[..., ::-1], a[..., ::-1]) if a.ndim else (d, a)):
        for shape in NEW_SHAPES:
            assert_same_result(outcome(lambda: dv.reshape(shape).get()), outcome(lambda: av.reshape(shape)))
        assert_same_result(dv.ravel().get(), av.ravel())
        assert_same_result(dv.flatten().get(), av.flatten())


@pytest.mark.parametrize("src,dst", DTYPE_PAIRS)
@on_gpu
def test_astype(src, dst):
    a = np.arange(-20, 20).astype(src)[::-3] * 3 // 2
    d = myModule.asarray(a)
    assert_same_result(d.astype(dst).get(), a.astype(dst))
    assert_same_result(myModule.astype(d, dst).get(), np.astype(a, dst))
    assert d.astype(src, copy=False) is d
    assert d.astype(src).ptr != d.ptr


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("value", [0, 3, -2.5, np.float32(1.25), float("inf")], ids=repr)
@on_gpu
def test_fill(dtype, value):
    a = np.zeros((5, 6), dtype=dtype)
    d = myModule.asarray(a)
    expected = outcome(lambda: a[:, ::-2].fill(value))
    got = outcome(lambda: d[:, ::-2].fill(value))
    assert_same_result(got, expected)
    assert_same_result(d.get(), a)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("value", [0, -0.0, 1], ids=repr)
@on_gpu
def test_fill_of_contiguous_views_at_every_offset(dtype, value):
    # Zeros of a 16-byte aligned run go through the packed kernel, of any other
    # start through the copy engine's memset (vectorAdd/fill.cu): each must write
    # its run, tail included, and nothing either side of it.
    base = (np.arange(3 * 1024 + 37) % 7 + 1).astype(dtype)
    for start in range(0, max(1, 16 // base.itemsize) + 1):
        for stop in (len(base) - 1, len(base) - 16, start + 1, start):
            a = base.copy()
            d = myModule.asarray(base)
            expected = outcome(lambda: a[start:stop].fill(value))
            got = outcome(lambda: d[start:stop].fill(value))
            assert_same_result(got, expected)
            assert_same_result(d.get(), a)


@pytest.mark.parametrize("axis", [0, 1, -1, None])
@on_gpu
def test_concatenate(axis):
    parts = [np.arange(6, dtype=np.int32).reshape(2, 3), np.arange(9.0).reshape(3, 3)[:, ::-1][:2] * 0.5,
             np.ones((2, 3), dtype=np.int64)]
    if axis == 0:
        parts[1] = np.arange(12.0).reshape(4, 3)
    mixed = [myModule.asarray(parts[0]), parts[1], myModule.asarray(parts[2])[::1]]
    assert_same_result(myModule.concatenate(mixed, axis=axis).get(), np.concatenate(parts, axis=axis))
    assert_same_result(myModule.concatenate(mixed, axis=axis, dtype=np.float32).get(),
                       np.concatenate(parts, axis=axis, dtype=np.float32))


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@on_gpu
def test_stack(axis):
    parts = [np.arange(6.0).reshape(2, 3) + k for k in range(4)]
    mixed = [myModule.asarray(p) if k % 2 else p for k, p in enumerate(parts)]
    assert_same_result(myModule.stack(mixed, axis=axis).get(), np.stack(parts, axis=axis))


@on_gpu
def test_broadcast_to_values():
    a = np.arange(3.0)
    assert_same_result(myModule.broadcast_to(myModule.asarray(a), (4, 3)).get(), np.broadcast_to(a, (4, 3)))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@on_gpu
def test_scalar_conversions_values(dtype):
    import operator
    for v in (np.array(7, dtype=dtype), np.array(-0.0 if dtype.kind == "f" else 0, dtype=dtype)):
        d = myModule.asarray(v)
        assert bool(d) == bool(v) and int(d) == int(v) and float(d) == float(v)
        if dtype.kind == "i":
            assert operator.index(d) == operator.index(v)
            assert [10, 20, 30, 40, 50, 60, 70, 80][d] == [10, 20, 30, 40, 50, 60, 70, 80][v]
    assert bool(myModule.asarray(np.array([3], dtype=dtype))) is True


@on_gpu
def test_repr_as_numpy_with_device():
    for a in (np.array([1.0, 2.0]), np.arange(6, dtype=np.int32).reshape(2, 3), np.array(3.5), np.zeros(0)):
        text = repr(myModule.asarray(a))
        expected = repr(a).replace("array(", "DeviceArray(", 1).replace("\n", "\n      ")
        assert text == expected[:-1] + ", device=0)"
    assert repr(myModule.asarray(np.array([1.0, 2.0]))) == "DeviceArray([1., 2.], device=0)"


# ---- item() and tolist()

class _RaisingIndex:
    """An index whose __index__ raises: the error must come through unchanged."""

    def __index__(self):
        raise RuntimeError("no index today")

    def __repr__(self):
        return "RaisingIndex()"


ITEM_INDICES = [(), (0,), (-1,), (5,), (6,), (-7,), (1, 2), ((1, 2),), ((1,),), (1, 5), (-1, -3),
                (1, 2, 3), (1.5,), (True,), ([1, 2],), (np.int64(1),), (2**70,), (0, -2**70),
                (_RaisingIndex(),), (1, _RaisingIndex())]


@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (2, 3), (0,), (6,)], ids=str)
@pytest.mark.parametrize("index", ITEM_INDICES, ids=repr)
def test_item_errors_as_numpy(shape, index):
    a = np.zeros(shape)
    expected = outcome(lambda: a.item(*index))
    got = outcome(lambda: fake(a).item(*index))
    if isinstance(expected, Raised):
        assert_same_result(got, expected)
        assert str(got.exc) == str(expected.exc)
    elif not HAS_GPU:
        assert isinstance(got, Raised) and isinstance(got.exc, myModule.CudaUnavailableError), got


@pytest.mark.parametrize("dtype", DTYPES + [np.dtype(np.bool_), np.dtype(np.uint8), np.dtype(np.complex128)],
                         ids=str)
@on_gpu
def test_item_values_as_numpy(dtype):
    base = ((np.arange(24) * 7) % 11 - 3).astype(dtype).reshape(2, 3, 4)
    d = myModule.to_device(base)
    layouts = {"C": (base, d), "reversed": (base[::-1, ::-1, ::-1], d[::-1, ::-1, ::-1]),
               "strided": (base[:, ::2, 1::2], d[:, ::2, 1::2]), "transposed": (base.T, d.T)}
    for name, (a, v) in layouts.items():
        for flat in (0, 1, a.size - 1, -1, -a.size):
            got, expected = v.item(flat), a.item(flat)
            assert type(got) is type(expected) and got == expected, (name, flat, got, expected)
        for index in ((0, 0, 0), (1, -1, 0), (-1, 1, -1)):
            got, expected = v.item(*index), a.item(*index)
            assert type(got) is type(expected) and got == expected, (name, index, got, expected)
        assert v.tolist() == a.tolist(), name
    one = myModule.to_device(base[1:2, 2:3, 3:4])
    assert one.item() == base[1, 2, 3].item() and type(one.item()) is type(base[1, 2, 3].item())
    assert myModule.to_device(np.array(base[0, 0, 1])).item() == base[0, 0, 1].item()
