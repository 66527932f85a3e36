"""Property-based fuzzing (hypothesis) of the index arithmetic against NumPy
(issue 22): shapes, strides, basic index keys, reshape and broadcast targets,
axis arguments, with huge and overflowing values.

The CPU-side properties run everywhere and touch no memory: DeviceArrays over no
memory (``_core._testing_view``) go through the real view code (indexing,
reshape, broadcast_to, transpose), and each outcome (the view's shape, strides
and byte offset, or the exception type) is compared with NumPy's for the same
call on a host array. The GPU properties repeat the views on real memory and
compare values (and run under compute-sanitizer memcheck in ``make sanitize``).
"""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from numpy.lib import array_utils

import myModule as mm
from conftest import quick, requires_gpu

INT64_MAX = 2**63 - 1
SETTINGS = settings(max_examples=quick(150, 25), deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
GPU_SETTINGS = settings(max_examples=quick(60, 10), deadline=None, derandomize=True,
                        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

#: Dimensions: mostly small, sometimes huge or at the edges of int64 products.
HUGE = st.sampled_from([2**31 - 1, 2**31, 2**32, 2**40, 2**61, 2**62, 2**63 - 1,
                        274177, 67280421310721, 3037000500])
DIM = st.one_of(st.integers(0, 5), st.integers(0, 5), HUGE)
SMALL_SHAPE = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)
ANY_SHAPE = st.lists(DIM, min_size=0, max_size=5).map(tuple)
DTYPES = st.sampled_from(["f8", "f4", "i4", "i8", "?"])
BIG_INT = st.one_of(st.integers(-6, 6), st.sampled_from([2**31, -2**31, 2**62, -2**63, 2**63 - 1, 2**63,
                                                         -2**63 - 1, 2**64, -2**70, 2**70]))


def placeholder(shape, dtype="f8"):
    itemsize = np.dtype(dtype).itemsize
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.insert(0, step)
        step *= max(n, 1)
    return mm._core._testing_view(tuple(shape), tuple(strides), dtype)


def outcome(fn):
    """('ok', value) or ('error', exception type) of fn()."""
    try:
        return "ok", fn()
    except (ValueError, TypeError, IndexError, OverflowError, MemoryError) as e:
        return "error", type(e)


def numpy_view_geometry(base, view):
    offset = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return offset, view.shape, view.strides


def our_view_geometry(base, view):
    return view.ptr - base.ptr, view.shape, view.strides


def same_strides(shape, a, b):
    """Strides agree where they matter (a length-0 or length-1 axis steps anywhere)."""
    if 0 in shape:
        return True
    return all(n == 1 or x == y for n, x, y in zip(shape, a, b))


def fits_numpy_size_rule(shape, itemsize):
    nbytes = itemsize
    for n in shape:
        if n:
            nbytes *= n
    return nbytes <= INT64_MAX


# ---------------------------------------------------------------- shapes and strides of new views

@SETTINGS
@given(shape=ANY_SHAPE, dtype=DTYPES, data=st.data())
def test_view_geometry_is_refused_exactly_when_it_overflows(shape, dtype, data):
    itemsize = np.dtype(dtype).itemsize
    strides = tuple(data.draw(st.one_of(st.integers(-64, 64).map(lambda s: s * itemsize), HUGE,
                                        HUGE.map(lambda h: -h)), label="stride") for _ in shape)
    kind, value = outcome(lambda: mm._core._testing_view(shape, strides, dtype))
    size_ok = fits_numpy_size_rule(shape, itemsize)
    extent_ok = 0 in shape or (sum(max(0, (n - 1) * s) for n, s in zip(shape, strides)) <= INT64_MAX and
                               sum(min(0, (n - 1) * s) for n, s in zip(shape, strides)) >= -INT64_MAX and
                               all(abs((n - 1) * s) <= INT64_MAX for n, s in zip(shape, strides)))
    if size_ok and extent_ok:
        assert kind == "ok", value
        assert value.shape == shape and value.strides == strides
        assert value.size == math.prod(shape) and value.nbytes == value.size * itemsize
    else:
        assert (kind, value) == ("error", ValueError)


@SETTINGS
@given(shape=ANY_SHAPE, dtype=DTYPES)
def test_new_array_sizes_as_numpy(shape, dtype):
    """empty/zeros/ones/full and *_like refuse what NumPy refuses, with its type,
    before the device check (a valid shape reaches the device: CudaUnavailableError
    without a GPU, or an allocation; sizes are kept small enough to be fast)."""
    theirs = outcome(lambda: np.lib.stride_tricks.as_strided(np.empty(0, dtype), shape=shape, strides=(0,) * len(shape))
                     if fits_numpy_size_rule(shape, np.dtype(dtype).itemsize) else np.empty(shape, dtype))
    if theirs[0] == "ok":
        assume(math.prod(shape) <= 4096)  # a real allocation below: keep it small
    for fn in (mm.empty, mm.zeros, mm.ones, lambda s, dtype: mm.full(s, 1, dtype=dtype),
               lambda s, dtype: mm.zeros_like(np.ones(1), shape=s, dtype=dtype)):
        try:
            got = fn(shape, dtype=dtype)
        except mm.CudaUnavailableError:
            assert theirs[0] == "ok"
            continue
        except ValueError as e:
            assert theirs == ("error", ValueError), e
            continue
        assert theirs[0] == "ok" and got.shape == shape and got.dtype == np.dtype(dtype)


# ---------------------------------------------------------------- reshape

TARGET = st.lists(st.one_of(DIM, st.just(-1), st.integers(-3, -2)), min_size=0, max_size=5).map(tuple)


@SETTINGS
@given(shape=SMALL_SHAPE, target=TARGET, dtype=DTYPES)
def test_reshape_as_numpy(shape, target, dtype):
    host = np.empty(shape, dtype)
    theirs = outcome(lambda: host.reshape(target))
    ours = outcome(lambda: placeholder(shape, dtype).reshape(target))
    assert ours[0] == theirs[0], (ours, theirs)
    if theirs[0] == "error":
        assert issubclass(theirs[1], ours[1]) or issubclass(ours[1], theirs[1]), (ours, theirs)
        return
    assert ours[1].shape == theirs[1].shape
    assert ours[1].size == theirs[1].size
    assert same_strides(theirs[1].shape, ours[1].strides, theirs[1].strides)


@SETTINGS
@given(shape=SMALL_SHAPE, target=TARGET, data=st.data())
def test_reshape_of_strided_views_as_numpy(shape, target, data):
    """A view (reversed, stepped, transposed) reshaped: a view where NumPy makes
    one (same strides); where NumPy must copy, copy=False refuses as NumPy does."""
    host = np.empty(shape)
    dev = placeholder(shape)
    key = tuple(data.draw(st.sampled_from([slice(None), slice(None, None, -1), slice(None, None, 2)]))
                for _ in shape) + (Ellipsis,)  # always a view, even of a 0-d array
    host_v, dev_v = host[key].T, dev[key].T
    theirs = outcome(lambda: np.reshape(host_v, target, copy=False))
    ours = outcome(lambda: dev_v.reshape(target, copy=False))
    assert ours[0] == theirs[0], (ours, theirs)
    if theirs[0] == "ok":
        assert ours[1].shape == theirs[1].shape
        offset, _, strides = numpy_view_geometry(host, theirs[1])
        assert ours[1].ptr - dev.ptr == offset or theirs[1].size == 0  # an empty view's address is unused
        assert same_strides(theirs[1].shape, ours[1].strides, strides)
    else:
        assert ours[1] is ValueError and theirs[1] is ValueError


# ---------------------------------------------------------------- broadcast_to

@SETTINGS
@given(shape=SMALL_SHAPE, target=st.lists(st.one_of(DIM, st.integers(-2, -1)), min_size=0, max_size=5).map(tuple))
def test_broadcast_to_as_numpy(shape, target):
    host = np.empty(shape)
    theirs = outcome(lambda: np.broadcast_to(host, target))
    ours = outcome(lambda: mm.broadcast_to(placeholder(shape), target))
    assert ours[0] == theirs[0], (ours, theirs)
    if theirs[0] == "error":
        assert ours[1] is theirs[1] or issubclass(ours[1], theirs[1]), (ours, theirs)
        return
    v = ours[1]
    assert v.shape == theirs[1].shape and v.size == theirs[1].size
    assert same_strides(v.shape, v.strides, theirs[1].strides)
    with pytest.raises(ValueError, match="read-only"):  # NumPy's broadcast views are read-only
        v.fill(0)


# ---------------------------------------------------------------- basic index keys

def basic_item(n):
    bound = st.one_of(st.none(), BIG_INT, st.integers(-n - 2, n + 2))
    step = st.one_of(st.none(), st.integers(-4, 4).filter(bool), st.sampled_from([2**62, -2**63 + 1, 2**63 - 1]))
    return st.one_of(st.builds(slice, bound, bound, step), BIG_INT, st.integers(-n, max(n - 1, 0)),
                     st.none(), st.just(Ellipsis))


@st.composite
def shape_and_key(draw):
    shape = draw(st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple))
    n = max(shape) if shape else 1
    items = draw(st.lists(basic_item(n), min_size=0, max_size=len(shape) + 2))
    return shape, tuple(items)


@SETTINGS
@given(case=shape_and_key(), dtype=DTYPES)
def test_basic_indexing_as_numpy(case, dtype):
    shape, key = case
    host = np.empty(shape, dtype)
    base = placeholder(shape, dtype)
    theirs = outcome(lambda: host[key])
    ours = outcome(lambda: base[key])
    assert ours[0] == theirs[0], (key, ours, theirs)
    if theirs[0] == "error":
        # Where a key has two faults (two ellipses and an int past int64), NumPy's
        # item-by-item parsing and ours may report a different one of them.
        errors = {IndexError, OverflowError} if any(type(k) is int and not -2**63 <= k < 2**63 for k in key) \
            else {theirs[1]}
        assert ours[1] in errors or issubclass(ours[1], theirs[1]) or issubclass(theirs[1], ours[1]), \
            (key, ours, theirs)
        return
    view = theirs[1] if isinstance(theirs[1], np.ndarray) else host[key + (Ellipsis,)] \
        if Ellipsis not in key else np.asarray(theirs[1])
    offset, vshape, vstrides = numpy_view_geometry(host, view)
    got_offset, got_shape, got_strides = our_view_geometry(base, ours[1])
    assert got_shape == vshape
    assert (got_offset == offset) or 0 in vshape
    assert same_strides(vshape, got_strides, vstrides)
    # The C helper the tests share agrees with the DeviceArray path.
    meta = mm._core._view_meta(shape, base.strides, np.dtype(dtype).itemsize, key)
    assert meta[1] == got_shape and (meta[0] == got_offset or 0 in got_shape)


@SETTINGS
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple),
       stride=st.sampled_from([2**61, 2**62, -2**62, 2**63 - 8, 3037000500 * 8]))
def test_huge_strides_never_wrap_offsets(shape, stride):
    strides = (stride,) + placeholder(shape[1:]).strides
    kind, value = outcome(lambda: mm._core._testing_view(shape, strides, "f8"))
    reaches = [(n - 1) * s for n, s in zip(shape, strides)]
    high, low = sum(r for r in reaches if r > 0), sum(r for r in reaches if r < 0)
    if high > INT64_MAX or low < -INT64_MAX:  # symmetric: every view can be reversed
        assert (kind, value) == ("error", ValueError)
        return
    assert kind == "ok"
    rev = value[::-1]
    assert (rev.ptr - value.ptr) % 2**64 == ((shape[0] - 1) * stride) % 2**64
    assert shape[0] == 1 or rev.strides[0] == -stride


# ---------------------------------------------------------------- axis arguments

AXES = st.one_of(BIG_INT, st.lists(BIG_INT, min_size=0, max_size=4).map(tuple))


@SETTINGS
@given(axis=AXES, ndim=st.integers(0, 5))
def test_the_one_axis_converter_as_numpy(axis, ndim):
    if isinstance(axis, tuple):
        theirs = outcome(lambda: array_utils.normalize_axis_tuple(axis, ndim))
    else:
        theirs = outcome(lambda: array_utils.normalize_axis_index(axis, ndim))
    ours = outcome(lambda: mm._core._normalize_axis(axis, ndim))
    if theirs[0] == "ok":
        assert ours == theirs
    else:
        assert ours[0] == "error"
        # NumPy raises AxisError (also an IndexError) out of range, ValueError when repeated;
        # an int past int64 is our ValueError or OverflowError
        assert issubclass(ours[1], (ValueError, OverflowError)), ours


@SETTINGS
@given(shape=st.lists(st.integers(1, 3), min_size=1, max_size=4).map(tuple), axis=AXES)
def test_reductions_and_array_api_axes_as_numpy(shape, axis):
    host = np.ones(shape)
    dev = placeholder(shape)
    theirs = outcome(lambda: np.sum(host, axis=axis))
    if theirs[0] == "ok":
        return  # a valid axis reaches the device: the GPU tests compare values
    for fn in (lambda: mm.sum(dev, axis=axis), lambda: np.size(dev, axis=axis) if isinstance(axis, tuple) else
               np.size(dev, axis), lambda: mm.squeeze(dev, axis=axis)):
        ours = outcome(fn)
        if ours[0] == "error":
            assert issubclass(ours[1], (ValueError, OverflowError, TypeError)), ours


# ---------------------------------------------------------------- on the GPU: the same views, real values

@pytest.mark.gpu
@requires_gpu
@GPU_SETTINGS
@given(case=shape_and_key(), dtype=DTYPES)
def test_basic_indexing_values_on_the_gpu(case, dtype):
    shape, key = case
    host = (np.arange(math.prod(shape)) % 7).astype(dtype).reshape(shape)
    dev = mm.to_device(host)
    theirs = outcome(lambda: host[key])
    ours = outcome(lambda: dev[key])
    assert ours[0] == theirs[0]
    if theirs[0] == "ok":
        np.testing.assert_array_equal(np.asarray(ours[1].get()), np.asarray(theirs[1]))
        # writes through the view land where NumPy's do, and nowhere else
        expected = host.copy()
        expected[key] = 1
        dev[key] = 1
        np.testing.assert_array_equal(dev.get(), expected)


@pytest.mark.gpu
@requires_gpu
@GPU_SETTINGS
@given(shape=SMALL_SHAPE, target=TARGET)
def test_reshape_and_broadcast_values_on_the_gpu(shape, target):
    host = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    dev = mm.to_device(host)
    theirs = outcome(lambda: host[::-1].reshape(target))
    ours = outcome(lambda: dev[::-1].reshape(target))
    assert ours[0] == theirs[0]
    if theirs[0] == "ok":
        np.testing.assert_array_equal(ours[1].get(), theirs[1])
    bt = tuple(abs(t) for t in target)
    theirs = outcome(lambda: np.broadcast_to(host, bt))
    ours = outcome(lambda: mm.broadcast_to(dev, bt))
    assert ours[0] == theirs[0]
    if theirs[0] == "ok" and theirs[1].size <= 4096:
        np.testing.assert_array_equal(ours[1].get(), theirs[1])
