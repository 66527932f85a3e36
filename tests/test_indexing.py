"""Indexing DeviceArrays as NumPy indexes ndarrays.

Without a GPU the index arithmetic is checked against NumPy's own views: the
geometry a basic key selects (``_view_meta`` and ``_testing_view`` arrays, which
hold no memory) and the gather an index-array key plans (``_index_plan``, replayed
on the host). With a GPU, values of ``d[key]`` and ``d[key] = value`` are compared
with NumPy over dtypes, layouts, negative steps and broadcasting.
"""
import numpy as np
import pytest

import myModule
from conftest import DTYPES, GPU_MARKS, Raised, assert_same_result, outcome

core = myModule._core


def on_gpu(test):
    """GPU_MARKS on a test function (skipped with the reason where there is no GPU)."""
    for mark in GPU_MARKS:
        test = mark(test)
    return test

ARRAYS = {
    "0d": lambda: np.arange(1.0).reshape(()),
    "1d": lambda: np.arange(7.0),
    "2d": lambda: np.arange(20.0).reshape(4, 5),
    "3d-reversed": lambda: np.arange(120.0).reshape(6, 4, 5)[::-1, :, ::-2],
    "empty": lambda: np.arange(0.0).reshape(0, 3),
    "int32-strided": lambda: np.arange(12, dtype=np.int32)[::2],
}

BASIC_KEYS = [
    0, -1, 3, 10, -8, (), Ellipsis, None, slice(None), slice(1, None), slice(None, None, 2),
    slice(None, None, -1), slice(-2, None, -3), slice(5, 1, -1), slice(100, None), slice(-100, 100, 7),
    slice(None, None, 0), (Ellipsis, 0), (None, Ellipsis, None), (0, None, slice(None, None, -2)),
    (slice(None), 1), (1, 2), (1, 2, 3), (1, 2, 3, 4), (Ellipsis, Ellipsis), (slice(None, None, -1), None, -1),
    (None, None, 0), np.int64(1), np.int32(-1), 1.0, "a", (slice(None), 2.5),
]


def key_id(key):
    return repr(key).replace(" ", "")


def with_ellipsis(key):
    """The same key ending in `...` where it has none, so NumPy gives a view
    (not a scalar) for integer keys."""
    key = key if isinstance(key, tuple) else (key,)
    if any(k is Ellipsis for k in key):
        return key
    return key + (Ellipsis,)


def numpy_geometry(a, key):
    v = a[with_ellipsis(key)]
    return (v.__array_interface__["data"][0] - a.__array_interface__["data"][0], v.shape, v.strides)


def assert_same_outcome(got, expected):
    """(offset, shape, strides) equal; for empty views only the shape (NumPy's
    strides and offsets of empty views depend on how their base was made, and
    no element of them is ever read)."""
    if isinstance(expected, Raised) or isinstance(got, Raised):
        assert_same_result(got, expected)
    elif 0 in expected[1]:
        assert got[1] == expected[1]
    else:
        assert got == expected


# ---------------------------------------------------------------- no GPU needed

@pytest.mark.parametrize("name", list(ARRAYS))
@pytest.mark.parametrize("key", BASIC_KEYS, ids=key_id)
def test_view_meta_matches_numpy(name, key):
    a = ARRAYS[name]()
    expected = outcome(lambda: numpy_geometry(a, key))
    got = outcome(lambda: core._view_meta(a.shape, a.strides, a.itemsize, key))
    assert_same_outcome(got, expected)


@pytest.mark.parametrize("name", list(ARRAYS))
@pytest.mark.parametrize("key", BASIC_KEYS, ids=key_id)
def test_subscript_views_match_numpy(name, key):
    """d[key] on a DeviceArray over no memory: shape, strides and address as NumPy's view."""
    a = ARRAYS[name]()
    d = core._testing_view(a.shape, a.strides, a.dtype, 1 << 20)

    def ours():
        v = d[key]
        assert isinstance(v, myModule.DeviceArray) and v.dtype == a.dtype
        return (v.ptr - d.ptr, v.shape, v.strides)

    assert_same_outcome(outcome(ours), outcome(lambda: numpy_geometry(a, key)))


def random_basic_key(rng, ndim):
    items = []
    for _ in range(rng.integers(0, ndim + 2)):
        r = rng.integers(0, 10)
        if r < 2:
            items.append(int(rng.integers(-6, 6)))
        elif r < 8:
            def bound():
                return None if rng.integers(0, 3) == 0 else int(rng.integers(-8, 8))
            step = None if rng.integers(0, 3) == 0 else int(rng.choice([-3, -2, -1, 1, 2, 3]))
            items.append(slice(bound(), bound(), step))
        elif r == 8:
            items.append(None)
        else:
            items.append(Ellipsis)
    return tuple(items)


def test_random_basic_keys_match_numpy(rng):
    base = np.arange(5 * 6 * 7, dtype=np.float32).reshape(5, 6, 7)
    for layout in (base, base[::-1, :, ::2], base.transpose(2, 0, 1)[1:]):
        for _ in range(300):
            key = random_basic_key(rng, layout.ndim)
            expected = outcome(lambda: numpy_geometry(layout, key))
            got = outcome(lambda: core._view_meta(layout.shape, layout.strides, layout.itemsize, key))
            assert_same_outcome(got, expected)


def test_view_meta_refers_index_arrays_to_index_plan():
    with pytest.raises(ValueError, match="_index_plan"):
        core._view_meta((3,), (8,), 8, [0, 1])


def test_views_keep_their_base_alive():
    import gc
    import weakref
    d = core._testing_view((4, 5), (40, 8), np.float64)
    ref = weakref.ref(d)
    v = d[1:, ::2][::-1]
    del d
    gc.collect()
    assert ref() is not None, "a view must hold the array that owns the memory"
    del v
    gc.collect()
    assert ref() is None


def test_len_as_numpy():
    assert len(core._testing_view((3, 4), (32, 8), np.float64)) == 3
    assert len(core._testing_view((0,), (8,), np.float64)) == 0
    with pytest.raises(TypeError, match="unsized"):
        len(core._testing_view((), (), np.float64))


def test_iteration_as_numpy():
    a = np.zeros((3, 4))
    d = core._testing_view(a.shape, a.strides, a.dtype)
    rows = list(d)
    assert [r.shape for r in rows] == [r.shape for r in a]
    assert [r.ptr - d.ptr for r in rows] == [0, 32, 64]
    with pytest.raises(TypeError, match="0-d"):
        iter(core._testing_view((), (), np.float64))
    assert list(core._testing_view((0, 2), (16, 8), np.float64)) == []


def test_delete_raises_as_numpy():
    d = core._testing_view((3,), (8,), np.float64)
    with pytest.raises(ValueError):
        del d[0]


# ---- index arrays: the planned gather replayed on the host

def replay_gather(base, a, key):
    """What va_gather does with _index_plan's result, done with NumPy on the
    host memory of `a` (a view into the contiguous `base`)."""
    (offset, shape, strides), axis, table, result_shape = core._index_plan(a.shape, a.strides, key)
    assert table.dtype == np.int64 and table.size == shape[axis]
    start = a.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    sub_shape = shape[:axis] + shape[axis + 1:]
    sub_strides = strides[:axis] + strides[axis + 1:]
    out = np.empty(shape, a.dtype)
    for k, t in enumerate(table.ravel()):
        piece = np.ndarray(sub_shape, a.dtype, buffer=base, offset=start + offset + int(t), strides=sub_strides)
        out[(slice(None),) * axis + (k,)] = piece
    return out.reshape(result_shape)


def b(*values):
    return np.array(values, dtype=bool)


ADVANCED_KEYS = [
    [0, 2], [-1, -3, 0], [[0, 1], [2, 3]], np.array([3, 3, 0], dtype=np.int32), np.array([1], dtype=np.uint8),
    [], (slice(None), [1, 0]), ([0, 1], [1, 2]), (Ellipsis, [0]), ([0], Ellipsis, [1]),
    (slice(None), [0], [1]), (0, slice(None), [1, 2]), (slice(None), 0, [1, 2]), ([1, 0], slice(None, None, -1)),
    (None, [0, 1]), ([[0], [1]], [0, 1, 2]), (slice(1, None), Ellipsis, [-1]),
    b(True, False, True, True), (slice(None), b(False, True, False, True, True)), b(False, False, False, False),
    [True, False, True, False], (b(True, False, True, True), [0, 1, 0]),
    True, False, np.True_, (Ellipsis, True), (0, False, slice(None)), ([0, 1], True), (None, np.array(True)),
    # errors, with NumPy's classes
    [5], [-7], np.array([1.0]), ([0, 1], [0, 1, 2]), b(True, False), (0, 1, 2, [0]), ([0], Ellipsis, Ellipsis),
]


@pytest.mark.parametrize("layout", ["C", "reversed", "transposed"])
@pytest.mark.parametrize("key", ADVANCED_KEYS, ids=key_id)
def test_index_plan_replays_to_numpy(layout, key):
    base = np.arange(4 * 5 * 3, dtype=np.float64)
    a = base.reshape(4, 5, 3)
    if layout == "reversed":
        a = a[::-1, :, ::-1]
    elif layout == "transposed":
        a = base.reshape(3, 5, 4).transpose(2, 1, 0)
    expected = outcome(lambda: a[key])
    got = outcome(lambda: replay_gather(base, a, key))
    assert_same_result(got, expected)


def test_many_boolean_scalars_are_refused_cleanly():
    a = np.zeros(3)
    expected = outcome(lambda: a[(True,) * 40])
    got = outcome(lambda: core._index_plan(a.shape, a.strides, (True,) * 40))
    assert isinstance(got, Raised) or got[3] == expected.shape


def test_index_plan_2d_mask():
    base = np.arange(20.0)
    a = base.reshape(4, 5)
    mask = (a % 3) == 1
    assert_same_result(replay_gather(base, a, mask), a[mask])
    assert_same_result(replay_gather(base, a, (mask[:, :1].ravel(), slice(None, None, -2))),
                       a[mask[:, :1].ravel(), ::-2])


def test_index_errors_are_raised_before_any_gpu_call():
    """On a DeviceArray over no memory, bad keys raise NumPy's errors, not a CUDA error."""
    a = np.zeros((3, 4))
    d = core._testing_view(a.shape, a.strides, a.dtype)
    for key in ([3], [0, 1.5], ([0, 1], [0, 1, 2]), b(True, False), (1, 2, 3), 1.0, "x", [0, -4]):
        expected = outcome(lambda: a[key])
        assert isinstance(expected, Raised)
        assert_same_result(outcome(lambda: d[key]), expected)


def test_set_errors_are_raised_before_any_gpu_call():
    a = np.zeros((3, 4))
    d = core._testing_view(a.shape, a.strides, a.dtype)
    for key, value in [((1, 2, 3), 0.0), (5, 1.0), (slice(None), "x"), (0, np.nan * 1j), (0, np.zeros(3)),
                       (slice(None), np.zeros((2, 4))), ([0, 1], np.zeros(3)), (a[:, 0] > 9, np.zeros(2)),
                       ([0, 4], 1.0), (slice(None), [[1, 2], [3, 4]])]:
        expected = outcome(lambda: a.__setitem__(key, value))
        assert isinstance(expected, Raised), (key, value)
        assert_same_result(outcome(lambda: d.__setitem__(key, value)), expected)


# ---------------------------------------------------------------- on a GPU

def device_layouts(dtype):
    base = np.arange(6 * 4 * 5).astype(dtype).reshape(6, 4, 5)
    return {"C": base, "reversed": base[::-1, :, ::-2], "1d": base.ravel()[3:40], "0d": base[1, 2, 3].copy()}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
# NumPy copies for a 0-d index array inside a tuple; here it is an integer (a view): same values
@pytest.mark.parametrize("key", BASIC_KEYS + ADVANCED_KEYS + [np.array(2), (np.array(1), Ellipsis)], ids=key_id)
@pytest.mark.parametrize("layout", ["C", "reversed", "1d", "0d"])
@on_gpu
def test_getitem_values_match_numpy(dtype, key, layout):
    a = device_layouts(dtype)[layout]
    d = myModule.asarray(a)
    expected = outcome(lambda: np.asarray(a[key]))
    got = outcome(lambda: d[key].get())
    assert_same_result(got, expected)


SET_CASES = [
    (slice(None), 7), (slice(None), 2.75), (0, -1), ((Ellipsis, 1), np.float32(3.5)),
    (slice(None, None, -2), "row"), (slice(1, 3), "col"), ((slice(None), 0), "device"),
    ([0, 2], 5), ([-1, 0], "row2"), ((slice(None), [1, 3]), 9), ("mask", 4), ("mask", "maskvalues"),
    (slice(1, None), "shifted"), (slice(None, -1), "shifted-back"),
]


def set_value(kind, a, key, on_device):
    if kind == "row":
        v = np.arange(a.shape[-1], dtype=np.float64) * 1.5
    elif kind == "col":
        v = np.arange(a[key].shape[0]).reshape(-1, *([1] * (a.ndim - 1)))
    elif kind == "row2":
        v = np.arange(2 * a.shape[-1]).reshape(2, 1, a.shape[-1]) if a.ndim == 3 else np.arange(2)
    elif kind == "maskvalues":
        v = np.arange(int((a % 3 == 0).sum())) * 10
    elif kind == "device":
        v = np.arange(a[key].size).reshape(a[key].shape).astype(np.int32)
    else:
        return kind
    return myModule.asarray(v) if on_device or kind == "device" else v


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("key,value", SET_CASES, ids=[key_id(c) for c in SET_CASES])
@pytest.mark.parametrize("source", ["host", "device"])
@on_gpu
def test_setitem_matches_numpy(dtype, key, value, source):
    a = device_layouts(dtype)["reversed"].copy()
    d = myModule.asarray(a)
    if key == "mask":
        key = a % 3 == 0
    if value in ("shifted", "shifted-back"):
        # overlapping source and destination: NumPy reads everything first
        src_key = slice(None, -1) if value == "shifted" else slice(1, None)
        expected = a.copy()
        expected[key] = a[src_key]
        d[key] = d[src_key]
        assert_same_result(d.get(), expected)
        return
    v = set_value(value, a, key, source == "device")
    expected = a.copy()
    hv = v.get() if isinstance(v, myModule.DeviceArray) else v
    exp_outcome = outcome(lambda: expected.__setitem__(key, hv))
    got = outcome(lambda: d.__setitem__(key, v))
    if isinstance(exp_outcome, Raised):
        assert_same_result(got, exp_outcome)
        return
    assert not isinstance(got, Raised), got
    assert_same_result(d.get(), expected)


@pytest.mark.parametrize("n", [1, 1000, 1 << 20])
@on_gpu
def test_views_share_memory_and_writes_show_through(n):
    a = np.arange(n, dtype=np.float64)
    d = myModule.asarray(a)
    v = d[::-3]
    assert v.ptr == d.ptr + (n - 1) * 8
    v[...] = -1.0
    a[::-3] = -1.0
    assert_same_result(d.get(), a)
