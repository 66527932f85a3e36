"""The array API's set functions (unique_all, unique_counts, unique_inverse,
unique_values), tile and take_along_axis on DeviceArrays, against NumPy as the
oracle: every dtype of the library, 0-d, empty, one element, 2-d and a large
array with few distinct values; NaN (each a value of its own, as the standard
and numpy.unique(equal_nan=False) have it), +-inf, -0.0 beside 0.0, integer
extremes; strided and reversed views."""
import numpy as np
import pytest

import myModule as mm
import myModule.array_api as xp
from conftest import ALL_DTYPES, GPU_MARKS

pytestmark = GPU_MARKS + [pytest.mark.usefixtures("quiet_numpy")]

DTYPES = ALL_DTYPES


def sample(dtype, shape, rng, distinct=7):
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind == "b":
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.max, info.max // 2 + 1, 0, 1, 5, 42][:distinct], dtype=dtype)
    else:
        pool = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, -2.25][:distinct], dtype=dtype)
    return pool[rng.integers(0, len(pool), n)].reshape(shape)


def numpy_unique(a):
    """NumPy's sorted unique with every output, NaN distinct."""
    return np.unique(a.ravel(), return_index=True, return_inverse=True, return_counts=True,
                     equal_nan=False)


def same(got, want):
    assert isinstance(got, mm.DeviceArray)
    host = got.get()
    assert host.dtype == want.dtype and host.shape == want.shape
    # Bit for bit where the values are floats: -0.0 against 0.0 matters, NaN equals NaN.
    if want.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(host), np.signbit(want))
    np.testing.assert_array_equal(host, want)


def same_as_numpy_unique_all(got, a):
    """unique_all's four arrays against NumPy's of the same data."""
    values, index, inverse, counts = numpy_unique(a)
    assert got._fields == ("values", "indices", "inverse_indices", "counts")
    same(got.values, values)
    same(got.indices, index.astype(np.int64))   # the first occurrence of each value
    same(got.inverse_indices, inverse.reshape(a.shape).astype(np.int64))
    same(got.counts, counts.astype(np.int64))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (5, 4), (3000,), (1 << 20,)])
def test_unique_functions_match_numpy(rng, dtype, shape):
    a = sample(dtype, shape, rng)
    values, index, inverse, counts = numpy_unique(a)
    d = mm.to_device(a)
    same(xp.unique_values(d), values)
    got = xp.unique_counts(d)
    same(got.values, values)
    same(got.counts, counts.astype(np.int64))
    got = xp.unique_inverse(d)
    same(got.values, values)
    same(got.inverse_indices, inverse.reshape(a.shape).astype(np.int64))
    same_as_numpy_unique_all(xp.unique_all(d), a)


def test_unique_of_views(rng):
    a = sample(np.float64, (40, 30), rng)
    d = mm.to_device(a)
    for view, host in ((d[::-1, ::3], a[::-1, ::3]), (d.T, a.T)):
        same_as_numpy_unique_all(xp.unique_all(view), host)


def test_unique_nan_values_are_each_their_own():
    a = np.array([np.nan, 1.0, np.nan, 1.0, np.nan])
    got = xp.unique_counts(mm.to_device(a))
    host = got.values.get()
    assert host[0] == 1.0 and np.isnan(host[1:]).all() and len(host) == 4
    np.testing.assert_array_equal(got.counts.get(), [2, 1, 1, 1])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape, reps", [
    ((3,), (2,)), ((2, 3), (2, 1)), ((2, 3), (1, 2, 2)), ((2, 3, 4), (2,)), ((), (3,)),
    ((), ()), ((0, 3), (2, 2)), ((2, 3), (0, 1)), ((4,), (1,)),
])
def test_tile_matches_numpy(rng, dtype, shape, reps):
    a = sample(dtype, shape, rng)
    got = xp.tile(mm.to_device(a), reps)
    same(got, np.tile(a, reps))


def test_tile_is_a_copy_and_refuses_negative_repetitions(rng):
    a = rng.random((3, 4))
    d = mm.to_device(a)
    t = xp.tile(d, (1, 1))
    t[0, 0] = -1.0
    assert d.get()[0, 0] == a[0, 0]
    with pytest.raises(ValueError):
        xp.tile(d, (2, -1))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_take_along_axis_matches_numpy(rng, axis):
    a = rng.random((6, 5))
    d = mm.to_device(a)
    order = np.argsort(a, axis=axis)
    same(xp.take_along_axis(d, mm.to_device(order), axis=axis), np.take_along_axis(a, order, axis=axis))
    # Indices of length 1 along the other axis broadcast; negative ones count from the end.
    picks = np.array([[-1, 0, 2]]) if axis != 0 else np.array([[-1], [0], [2]])
    same(xp.take_along_axis(d, mm.to_device(picks), axis=axis), np.take_along_axis(a, picks, axis=axis))
    # With the sort: the sorted array, as the standard's example.
    same(xp.take_along_axis(d, xp.argsort(d, axis=axis), axis=axis), np.sort(a, axis=axis, kind="stable"))


def test_take_along_axis_refuses_what_numpy_refuses(rng):
    d = mm.to_device(rng.random((4, 3)))
    with pytest.raises(ValueError):
        xp.take_along_axis(d, mm.to_device(np.zeros(3, dtype=np.int64)), axis=0)   # ndim differs
    with pytest.raises(IndexError):
        xp.take_along_axis(d, mm.to_device(np.array([[4, 0, 0]])), axis=0)          # out of bounds
    with pytest.raises(np.exceptions.AxisError):
        xp.take_along_axis(d, mm.to_device(np.zeros((1, 1), dtype=np.int64)), axis=2)


@pytest.mark.parametrize("low", [-(2**40), 0, 2**62])
def test_unique_of_int64_of_a_small_span(rng, low):
    """int64 values spanning less than 2**31 (from 2**16 elements on) are sorted as int32
    offsets from their minimum: the values, counts, positions and inverse come out as
    NumPy's, far from zero too."""
    a = (low + rng.integers(0, 1000, (300, 400))).astype(np.int64)
    a[0, 0], a[-1, -1] = low, low + 2**31 - 1          # the widest span that narrows
    d = mm.to_device(a)
    same(xp.unique_values(d), np.unique(a))
    same_as_numpy_unique_all(xp.unique_all(d), a)
    a[0, 0] = low - 1                                   # one past it: the int64 sort
    same(xp.unique_values(mm.to_device(a)), np.unique(a))
