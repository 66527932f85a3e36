"""nonzero against NumPy: myModule.nonzero, DeviceArray.nonzero, np.nonzero /
np.where(c) / np.flatnonzero / np.argwhere on DeviceArrays, the array API's
nonzero, and boolean masks on the GPU indexing DeviceArrays (whose offsets the
same count-and-write passes compute).

Without a GPU: host data (NumPy's own result, through the library's argument
handling), the errors raised before any GPU work, and the dispatch wiring. With
a GPU: every dtype, shapes at the edges of a warp, a block and a tile (4096
elements), every layout, and the values whose truth is easy to get wrong (NaN
is nonzero, -0.0 is zero, integer extremes)."""
import zlib

import numpy as np
import pytest

import myModule
import myModule.array_api as xp
from conftest import EVERY_DTYPE, GPU_MARKS, Raised, outcome

core = myModule._core

DTYPES = EVERY_DTYPE
SHAPES = [(0,), (1,), (31,), (32,), (33,), (255,), (256,), (257,), (1023,), (1024,), (1025,), (4095,),
          (4096,), (4097,), (8193,), (3, 0, 2), (7, 5), (3, 4, 5), (2, 1, 3, 1), (1, 1), (65, 63)]
LARGE = (1 << 20) + 3
LAYOUTS = ["C", "F", "strided", "reversed", "broadcast", "sliced"]
FILLS = ["mixed", "zeros", "ones", "sparse"]


def on_gpu(test):
    for mark in GPU_MARKS:
        test = mark(test)
    return test


def values(dtype, shape, fill, rng):
    """Test data: about half zeros (`mixed`), every element zero or nonzero, or
    one in a thousand nonzero; the special values mixed in everywhere they fit."""
    size = int(np.prod(shape))
    if dtype.kind == "c":
        # a zero has both parts zero (of either sign); one nonzero part is enough
        part = np.dtype(dtype.char.lower())
        re, im = values(part, (2, size), fill, rng)
        im[rng.random(size) < 0.7] = rng.choice(np.array([0.0, -0.0], part), 1)
        out = np.empty(size, dtype)
        out.real, out.imag = re, im
        return out.reshape(shape)
    if dtype == np.bool_:
        p = {"mixed": 0.5, "zeros": 0.0, "ones": 1.0, "sparse": 0.001}[fill]
        return (rng.random(size) < p).reshape(shape)
    if dtype.kind == "f":
        special = np.array([np.nan, np.inf, -np.inf, 5e-324 if dtype == np.float64 else 1e-45, -1.5,
                            np.finfo(dtype).max, np.finfo(dtype).min], dtype=dtype)
        zero = np.array([0.0, -0.0], dtype=dtype)
    else:
        info = np.iinfo(dtype)
        special = np.array([info.min, info.max, info.max // 2 + 1, 1], dtype=dtype)
        zero = np.array([0], dtype=dtype)
    out = rng.choice(special, size)
    p = {"mixed": 0.5, "zeros": 1.0, "ones": 0.0, "sparse": 0.999}[fill]
    zeros = rng.random(size) < p
    out[zeros] = rng.choice(zero, int(zeros.sum()))
    return out.reshape(shape)


def device_layout(a, layout):
    """(DeviceArray, the NumPy array it holds): `a`'s values in memory laid out
    as asked (except `broadcast`, which repeats a[:1] along the first axis)."""
    a = np.asarray(a)
    if layout == "C" or a.ndim == 0:
        return myModule.asarray(a), a
    if layout == "F":
        return myModule.asarray(np.ascontiguousarray(a.T)).T, a
    if layout == "strided":
        big = np.zeros((2 * a.shape[0],) + a.shape[1:], dtype=a.dtype)
        big[::2] = a
        key = (slice(None, None, 2),)
        if a.ndim >= 2:
            big = np.zeros((2 * a.shape[0], 3 * a.shape[1]) + a.shape[2:], dtype=a.dtype)
            big[::2, ::3] = a
            key = (slice(None, None, 2), slice(None, None, 3))
        return myModule.asarray(big)[key], a
    if layout == "reversed":
        flip = tuple(slice(None, None, -1) for _ in range(a.ndim))
        return myModule.asarray(np.ascontiguousarray(a[flip]))[flip], a
    if layout == "broadcast":
        want = np.broadcast_to(a[:1], a.shape)
        return myModule.broadcast_to(myModule.asarray(a[:1].copy()), a.shape), want
    if layout == "sliced" and a.ndim == 1:  # a view inside its buffer, stepped by -2
        big = np.zeros(2 * a.shape[0] + 1, dtype=a.dtype)
        big[-2::-2] = a
        return myModule.asarray(big)[-2::-2], a
    if layout == "sliced":  # the same along the last axis, the first axis starting at 1
        big = np.zeros((a.shape[0] + 1,) + a.shape[1:-1] + (2 * a.shape[-1] + 1,), dtype=a.dtype)
        big[1:, ..., -2::-2] = a
        return myModule.asarray(big)[1:, ..., -2::-2], a
    raise ValueError(layout)


def check_coords(got, want):
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, myModule.DeviceArray)
        assert g.dtype == np.int64 and g.shape == w.shape
        np.testing.assert_array_equal(g.get(), w)


# ---------------------------------------------------------------- host data and errors (no GPU)

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(0,), (1,), (257,), (3, 4, 5), (3, 0, 2)], ids=str)
@pytest.mark.parametrize("device", [None, "auto", "cpu"])
def test_host_data_is_numpys(dtype, shape, device):
    a = values(dtype, shape, "mixed", np.random.default_rng(1))
    kwargs = {} if device is None else {"device": device}
    got = myModule.nonzero(a, **kwargs)
    want = np.nonzero(a)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, np.ndarray) and g.dtype == np.intp
        np.testing.assert_array_equal(g, w)


def test_host_layouts_and_special_values():
    a = np.array([[0.0, -0.0, np.nan], [np.inf, 0.0, -np.inf]])
    for view in (a, a.T, a[::-1, ::-2], np.broadcast_to(a[:1], (4, 3))):
        got = myModule.nonzero(view)
        for g, w in zip(got, np.nonzero(view)):
            np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(myModule.nonzero([0, 3, 0, -1])[0], [1, 3])


@pytest.mark.parametrize("obj", [np.float64(1.5), np.array(0), 7, True], ids=repr)
def test_0d_raises_as_numpy(obj):
    want = outcome(lambda: np.nonzero(obj))
    assert isinstance(want, Raised)
    with pytest.raises(ValueError, match="Calling nonzero on 0d arrays is not allowed"):
        myModule.nonzero(obj)


def test_argument_errors_come_before_any_gpu_work():
    with pytest.raises(ValueError):
        myModule.nonzero(np.ones(3), device="tpu")
    with pytest.raises(TypeError):
        myModule.nonzero(np.ones(3), axis=0)
    with pytest.raises(TypeError):
        myModule.nonzero(np.ones(3, dtype=np.float16))  # not one of the library's dtypes
    with pytest.raises(TypeError):
        myModule.nonzero()
    with pytest.raises(ValueError, match="0d"):  # before the GPU is looked for
        myModule.nonzero(np.float64(2.0), device="cuda")
    v = core._testing_view((), (), np.float64)  # a 0-d DeviceArray over no memory
    for call in (lambda: myModule.nonzero(v), v.nonzero, lambda: xp.nonzero(v), lambda: np.nonzero(v)):
        with pytest.raises(ValueError, match="0d|0-d"):
            call()
    d = core._testing_view((3,), (8,), np.float64)
    with pytest.raises(ValueError, match="device='cpu'"):
        myModule.nonzero(d, device="cpu")


def test_numpy_functions_dispatch_to_nonzero(monkeypatch):
    seen = []

    def fake(a):
        seen.append(a)
        return ("coords",)

    monkeypatch.setattr(myModule, "nonzero", fake)
    d = core._testing_view((3, 2), (16, 8), np.float64)
    assert np.nonzero(d) == ("coords",)
    assert np.where(d) == ("coords",)
    assert seen == [d, d]
    with pytest.raises(ValueError, match="both or neither"):
        np.where(d, 1.0)


def test_public_names():
    assert "nonzero" in myModule.__all__
    assert callable(myModule.DeviceArray.nonzero)
    assert "nonzero" in xp.__all__


# ---------------------------------------------------------------- on a GPU

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@on_gpu
def test_device_values_match_numpy(dtype, shape):
    rng = np.random.default_rng(zlib.crc32(repr((dtype.name, shape)).encode()))
    for fill in FILLS:
        a = values(dtype, shape, fill, rng)
        d = myModule.asarray(a)
        check_coords(myModule.nonzero(d), np.nonzero(a))
        check_coords(d.nonzero(), np.nonzero(a))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(1,), (257,), (4097,), (7, 5), (33, 130), (3, 4, 5), (2, 1, 3, 1), (0, 4)],
                         ids=str)
@on_gpu
def test_device_layouts_match_numpy(dtype, layout, shape):
    rng = np.random.default_rng(7)
    a = values(dtype, shape, "mixed", rng)
    d, want = device_layout(a, layout)
    assert d.shape == want.shape
    check_coords(myModule.nonzero(d), np.nonzero(want))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("fill", ["mixed", "sparse", "ones"])
@on_gpu
def test_large_input(dtype, fill):
    a = values(dtype, (LARGE,), fill, np.random.default_rng(3))
    check_coords(myModule.nonzero(myModule.asarray(a)), np.nonzero(a))
    b = a[: (LARGE - 3) // 1024 * 1024].reshape(-1, 1024)
    d, want = device_layout(b, "reversed")
    check_coords(myModule.nonzero(d), np.nonzero(want))


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.float64, np.complex64], ids=str)
@pytest.mark.parametrize("start", [0, 1])
@on_gpu
def test_more_tiles_than_one_scan_chunk(dtype, start):
    # Past 4096 tiles of 4096 elements the tile scan takes its counts in several
    # chunks; whole tiles aligned to 16 bytes are counted 16 bytes a load, and a
    # view one element in (start=1) is not aligned, so it counts element by element.
    n = 2 * 4096 * 4096 + 4100
    rng = np.random.default_rng(11)
    a = (rng.random(n + 1) < 0.01).astype(dtype)
    a[-2] = 1
    if dtype in (np.float64, np.complex64):
        a[rng.integers(0, n, 1000)] = -0.0
        a[rng.integers(0, n, 1000)] = np.nan
    if dtype == np.complex64:
        a[rng.integers(0, n, 1000)] = complex(0, 1e-45)
    d = myModule.asarray(a)[start : start + n]
    check_coords(myModule.nonzero(d), np.nonzero(a[start : start + n]))
    assert int(myModule.count_nonzero(d)) == int(np.count_nonzero(a[start : start + n]))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8], ids=str)
@on_gpu
def test_whole_tiles_of_bytes_in_c_order(dtype):
    # One-byte elements in whole aligned tiles are ranked 16 a thread: their
    # positions, coordinates of a 2-d array and a mask's gather offsets, in C
    # order, beside partial tiles and a view that is not aligned.
    rng = np.random.default_rng(12)
    for density in (0.003, 0.5, 1.0):
        a = (rng.random((3001, 37)) < density).astype(dtype)
        if dtype != np.bool_:
            a[a != 0] = rng.integers(1, 100, int(np.count_nonzero(a)))
        d = myModule.asarray(a)
        check_coords(myModule.nonzero(d), np.nonzero(a))
        check_coords(myModule.nonzero(d.reshape(-1)[5:]), np.nonzero(a.reshape(-1)[5:]))
        x = rng.standard_normal(a.shape)
        mask = a.astype(bool)
        np.testing.assert_array_equal(myModule.asarray(x)[myModule.asarray(mask)].get(), x[mask])


@on_gpu
def test_truth_of_special_values():
    a = np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 5e-324, -5e-324, 1.0])
    for dtype in (np.float64, np.float32):
        x = a.astype(dtype)
        check_coords(myModule.nonzero(myModule.asarray(x)), np.nonzero(x))
    for dtype in (np.int32, np.int64):
        info = np.iinfo(dtype)
        x = np.array([0, info.min, info.max, -1, 0, 1], dtype=dtype)
        check_coords(myModule.nonzero(myModule.asarray(x)), np.nonzero(x))
    parts = [0.0, -0.0, np.nan, np.inf, 5e-324]
    for dtype in (np.complex128, np.complex64):
        x = np.array([complex(r, i) for r in parts for i in parts], dtype=dtype).reshape(5, 5)
        check_coords(myModule.nonzero(myModule.asarray(x)), np.nonzero(x))
        check_coords(myModule.nonzero(myModule.asarray(x).T), np.nonzero(x.T))


@on_gpu
def test_host_data_on_the_gpu_by_name():
    a = values(np.dtype(np.float32), (5, 300), "mixed", np.random.default_rng(5))
    got = myModule.nonzero(a, device="cuda")
    for g, w in zip(got, np.nonzero(a)):
        assert isinstance(g, np.ndarray) and g.dtype == np.int64
        np.testing.assert_array_equal(g, w)
    with pytest.raises(ValueError, match="0d"):
        myModule.nonzero(np.float64(2.0), device="cuda")


@on_gpu
def test_numpy_dispatch_and_array_api():
    a = values(np.dtype(np.int32), (6, 7, 3), "mixed", np.random.default_rng(9))
    d = myModule.asarray(a)
    check_coords(np.nonzero(d), np.nonzero(a))
    check_coords(np.where(d), np.where(a))
    check_coords(xp.nonzero(d), np.nonzero(a))
    check_coords(xp.nonzero(xp.greater(d, 2)), np.nonzero(a > 2))
    f = np.flatnonzero(d)
    assert isinstance(f, myModule.DeviceArray)
    np.testing.assert_array_equal(f.get(), np.flatnonzero(a))
    np.testing.assert_array_equal(np.flatnonzero(d[::-1, :, ::2]).get(), np.flatnonzero(a[::-1, :, ::2]))
    for x in (a, a[:0], np.array(3, dtype=np.int32), np.array(0, dtype=np.int32)):
        got = np.argwhere(myModule.asarray(x))
        want = np.argwhere(x)
        assert got.shape == want.shape, (x, got.shape, want.shape)
        np.testing.assert_array_equal(got.get(), want)


@on_gpu
def test_results_on_the_inputs_gpu_and_independent():
    d = myModule.asarray(np.array([[0, 1], [2, 0]], dtype=np.int64))
    rows, cols = d.nonzero()
    assert rows.device == d.device == cols.device
    rows[0] = 99  # each axis is its own array
    np.testing.assert_array_equal(cols.get(), [1, 0])


# ---- boolean masks on the GPU as indices (the same passes write the gather's offsets)

MASK_KEYS = {
    "1d": lambda m: m[:, 0, 0],
    "2d": lambda m: m[:, :, 0],
    "3d": lambda m: m,
    "int-then-2d": lambda m: (1, m[0]),
    "slice-then-2d": lambda m: (slice(None, None, -1), m[0]),
    "ellipsis-1d": lambda m: (Ellipsis, m[0, 0]),
    "then-slice": lambda m: (m[:, 0, 0], slice(1, None, 2)),
    "int-apart": lambda m: (m[:, 0, 0], slice(None), 2),  # the table axis goes in front
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("key", list(MASK_KEYS))
@pytest.mark.parametrize("fill", ["mixed", "zeros", "ones"])
@on_gpu
def test_gpu_mask_getitem_and_setitem(dtype, key, fill):
    rng = np.random.default_rng(11)
    a = values(dtype, (4, 5, 6), "mixed", rng)
    mask = values(np.dtype(np.bool_), (4, 5, 6), fill, rng)
    k_host = MASK_KEYS[key](mask)
    k_dev = MASK_KEYS[key](myModule.asarray(mask))
    for view in (lambda x: x, lambda x: x[::-1, :, ::-1]):
        d = view(myModule.asarray(a))
        want = view(a)[k_host]
        got = d[k_dev]
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.get(), want)
    d = myModule.asarray(a)
    expected = a.copy()
    expected[k_host] = 1
    d[k_dev] = 1
    np.testing.assert_array_equal(d.get(), expected)


@on_gpu
def test_gpu_mask_errors_and_large_mask():
    d = myModule.asarray(np.arange(12.0).reshape(3, 4))
    bad = myModule.asarray(np.ones((3, 3), dtype=bool))
    want = outcome(lambda: np.arange(12.0).reshape(3, 4)[np.ones((3, 3), dtype=bool)])
    got = outcome(lambda: d[bad])
    assert isinstance(want, Raised) and isinstance(got, Raised)
    assert type(got.exc) is type(want.exc) and str(got.exc) == str(want.exc)
    x = np.random.default_rng(2).standard_normal(LARGE)
    dx = myModule.asarray(x)
    np.testing.assert_array_equal(dx[dx > 2].get(), x[x > 2])
    np.testing.assert_array_equal(dx[::-3][dx[::-3] < 0].get(), x[::-3][x[::-3] < 0])
