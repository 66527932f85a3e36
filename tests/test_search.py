"""searchsorted against NumPy as the oracle: every pair of the five dtypes (the
search compares in the dtype both promote to), both sides, sorted arrays with
duplicates, NaN (sorted last), +-inf and -0.0, values of every shape (0-d to
3-d, strided, reversed), empty arrays, a sorter, and a large case past the
caches. Host data is NumPy's own call; GPU data (either argument) runs a
kernel: a binary search each, or, for at least as many values as sorted elements
(4- and 8-byte dtypes), a search through a B-tree built from the sorted array, whose
sizes at the edges of perfect trees are drawn here. Argument errors come before any
GPU work."""
import numpy as np
import pytest

import myModule as mm
import myModule.array_api as xp
from conftest import ALL_DTYPES, GPU_MARKS

pytestmark = pytest.mark.usefixtures("quiet_numpy")

DTYPES = ALL_DTYPES
IDS = [d.name for d in DTYPES]


def sorted_values(dtype, n, rng):
    """n sorted elements with duplicates and the dtype's specials (NaN last)."""
    if dtype.kind == "b":
        x = rng.random(n) < 0.5
    elif dtype.kind in "iu":
        ii = np.iinfo(dtype)
        x = rng.integers(-20, 21, n).astype(dtype)  # an unsigned type wraps the negatives
        if n >= 2:
            x[:2] = [ii.min, ii.max]
    else:
        x = np.round(rng.normal(0, 10, n)).astype(dtype)
        if n >= 6:
            x[:6] = [np.nan, np.inf, -np.inf, -0.0, 0.0, -np.nan]
    return np.sort(x)


def queries(dtype, shape, rng):
    n = int(np.prod(shape, dtype=np.int64))
    if dtype.kind == "b":
        return (rng.random(n) < 0.5).reshape(shape)
    if dtype.kind in "iu":
        return rng.integers(-25, 26, n).astype(dtype).reshape(shape)
    q = np.round(rng.normal(0, 12, n) * 2) / 2
    if n >= 7:
        q[:7] = [np.nan, np.inf, -np.inf, -0.0, 0.0, 0.5, -np.nan]
    return q.astype(dtype).reshape(shape)


def test_host_data_is_numpys_own_call(rng):
    a = np.sort(rng.normal(size=100))
    v = rng.normal(size=(3, 4))
    for side in ("left", "right"):
        got = mm.searchsorted(a, v, side=side)
        assert isinstance(got, np.ndarray) and np.array_equal(got, np.searchsorted(a, v, side=side))
    assert mm.searchsorted([1, 2, 3], 2) == np.searchsorted([1, 2, 3], 2)


@pytest.mark.parametrize("side", ["x", "LEFT", None, 0])
def test_side_is_checked_before_the_gpu(side):
    with pytest.raises(ValueError, match="side"):
        mm.searchsorted(np.arange(3.0), 1.0, side=side)


def test_arguments_are_checked():
    with pytest.raises(TypeError):
        mm.searchsorted(np.arange(3.0))
    with pytest.raises(TypeError):
        mm.searchsorted(np.arange(3.0), 1.0, "left", None, "extra")


class Hostile:
    """An object whose array protocol raises."""

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("hostile __array__")


def test_hostile_and_wrong_arguments_are_refused_before_the_gpu():
    """With a DeviceArray `a` (a view over no memory: no GPU needed), everything
    wrong is reported before any GPU work."""
    from myModule import _core
    flat = _core._testing_view((4,), (8,), "float64")
    square = _core._testing_view((2, 2), (16, 8), "float64")
    with pytest.raises(RuntimeError, match="hostile"):
        mm.searchsorted(flat, Hostile())
    with pytest.raises(RuntimeError, match="hostile"):
        flat.searchsorted(Hostile())
    with pytest.raises(RuntimeError, match="hostile"):
        mm.searchsorted(Hostile(), 1.0)  # host data: NumPy's own call
    with pytest.raises(ValueError, match="too deep"):
        mm.searchsorted(square, 1.0)
    with pytest.raises(ValueError, match="side"):
        flat.searchsorted(1.0, side=b"left")
    with pytest.raises(TypeError):
        mm.searchsorted(flat, np.array(["a", "b"]))  # a dtype the library lacks
    with pytest.raises(TypeError):
        mm.searchsorted(flat, object())


@GPU_MARKS[1]
@pytest.mark.parametrize("adt", DTYPES, ids=IDS)
@pytest.mark.parametrize("vdt", DTYPES, ids=IDS)
def test_every_dtype_pair_both_sides(adt, vdt, rng):
    a = sorted_values(adt, 300, rng)
    v = queries(vdt, (7, 11), rng)
    da = mm.to_device(a)
    for side in ("left", "right"):
        want = np.searchsorted(a, v, side=side)
        for got in (mm.searchsorted(da, mm.to_device(v), side=side), mm.searchsorted(da, v, side=side),
                    mm.searchsorted(a, mm.to_device(v), side=side), da.searchsorted(v, side=side),
                    np.searchsorted(da, mm.to_device(v), side=side)):
            assert isinstance(got, mm.DeviceArray) and got.dtype == np.int64
            np.testing.assert_array_equal(got.get(), want)


@GPU_MARKS[1]
@pytest.mark.parametrize("shape", [(), (0,), (1,), (5, 0), (3, 4, 5)])
@pytest.mark.parametrize("n", [0, 1, 2, 255, 256, 257])
def test_shapes_and_sizes(shape, n, rng):
    a = sorted_values(np.dtype(np.float64), n, rng)
    v = queries(np.dtype(np.float64), shape, rng)
    for side in ("left", "right"):
        got = mm.searchsorted(mm.to_device(a), mm.to_device(v), side=side)
        assert got.shape == np.shape(np.searchsorted(a, v, side=side))
        np.testing.assert_array_equal(got.get(), np.searchsorted(a, v, side=side))


@GPU_MARKS[1]
def test_layouts_python_scalars_and_sorter(rng):
    a = sorted_values(np.dtype(np.int64), 1000, rng)
    big = mm.to_device(np.repeat(a, 2))
    strided = big[::2]                       # a with stride 16
    reversed_sorted = mm.to_device(a[::-1].copy())[::-1]
    v = queries(np.dtype(np.int64), (40, 30), rng)
    dv = mm.to_device(v)
    for da in (strided, reversed_sorted):
        for q, host_q in ((dv.T, v.T), (dv[::-3, 1::2], v[::-3, 1::2])):
            np.testing.assert_array_equal(mm.searchsorted(da, q).get(), np.searchsorted(a, host_q))
    # Python scalars: a 0-d result; a float against integers compares as floats
    assert mm.searchsorted(strided, 3).shape == ()
    assert int(mm.searchsorted(strided, 2.5, side="right")) == np.searchsorted(a, 2.5, side="right")
    # sorter: positions into a that sort it
    shuffled = rng.permutation(a)
    order = np.argsort(shuffled, kind="stable")
    for sorter in (order, mm.to_device(order)):
        got = mm.searchsorted(mm.to_device(shuffled), dv, sorter=sorter)
        np.testing.assert_array_equal(got.get(), np.searchsorted(shuffled, v, sorter=order))
    with pytest.raises(ValueError, match="sorter.size"):
        mm.searchsorted(mm.to_device(shuffled), dv, sorter=order[:-1])


@GPU_MARKS[1]
def test_refusals_on_the_gpu():
    d2 = mm.to_device(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="too deep"):
        mm.searchsorted(d2, 1.0)
    with pytest.raises(ValueError, match="side"):
        mm.to_device(np.arange(3.0)).searchsorted(1.0, side="middle")


@GPU_MARKS[1]
def test_large_and_array_api(rng):
    a = np.sort(rng.normal(size=10 ** 6))
    v = rng.normal(size=3 * 10 ** 6)
    da, dv = mm.to_device(a), mm.to_device(v)
    for side in ("left", "right"):
        np.testing.assert_array_equal(mm.searchsorted(da, dv, side=side).get(), np.searchsorted(a, v, side=side))
        x1, x2 = xp.asarray(a), xp.asarray(v[:1000])
        np.testing.assert_array_equal(xp.searchsorted(x1, x2, side=side).get(),
                                      np.searchsorted(a, v[:1000], side=side))


# Sorted sizes about the B-tree's edges: perfect trees of 5 keys a level (8-byte
# dtypes: 5^6 - 1, 5^7 - 1) and 9 (4-byte: 9^4 - 1), the route's lower bound (4096), and
# 1- and 2-byte dtypes' (17^3, 33^3), which take the binary search.
TREE_SIZES = [4095, 4096, 4097, 4912, 4913, 6560, 6561, 6562, 15624, 15625, 15626, 35937, 78124, 78125, 78126]


@GPU_MARKS[1]
@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_many_values_into_large_sorted_arrays(dt, rng):
    """As many values as sorted elements or more, a third of them equal to sorted ones
    (ties on both sides), the dtype's extremes and specials among both."""
    for n in TREE_SIZES:
        a = sorted_values(dt, n, rng)
        if dt.kind == "f":
            a = np.sort(np.concatenate([a[:6], rng.normal(0, 1e3, n - 6).astype(dt)]))
        elif dt.kind in "iu" and dt.itemsize >= 4:
            ii = np.iinfo(dt)
            a = np.sort(np.concatenate([a[:2], rng.integers(ii.min, ii.max, n - 2, dtype=dt, endpoint=True)]))
        v = np.concatenate([queries(dt, (n // 2 + 7,), rng), rng.choice(a, n // 2), a[:1], a[-1:]])
        da, dv = mm.to_device(a), mm.to_device(v)
        for side in ("left", "right"):
            np.testing.assert_array_equal(mm.searchsorted(da, dv, side=side).get(),
                                          np.searchsorted(a, v, side=side), err_msg="n = %d, %s" % (n, side))


@GPU_MARKS[1]
def test_many_values_every_one_past_or_before_the_sorted(rng):
    """Values all below or all above every sorted element, and a sorted array of one
    repeated value: the searches that walk the tree's padding or one edge."""
    a = np.sort(rng.normal(size=20000))
    for v in (a - 100.0, a + 100.0, np.full(30000, a[-1]), np.full(30000, a[0]), np.full(30000, np.nan)):
        for side in ("left", "right"):
            np.testing.assert_array_equal(mm.searchsorted(mm.to_device(a), mm.to_device(v), side=side).get(),
                                          np.searchsorted(a, v, side=side))
    same = np.full(9000, 7, dtype=np.int32)
    v = np.array([6, 7, 8] * 4000, dtype=np.int32)
    for side in ("left", "right"):
        np.testing.assert_array_equal(mm.searchsorted(mm.to_device(same), mm.to_device(v), side=side).get(),
                                      np.searchsorted(same, v, side=side))
