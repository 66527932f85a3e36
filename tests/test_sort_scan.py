"""sort, argsort (stable, ascending and descending) and the running sums and
products (cumsum, cumprod, cumulative_sum, cumulative_prod) against NumPy as the
oracle, over the five dtypes, shapes from 0-d to 3-d with every axis, layouts
(C, Fortran, reversed, strided, broadcast) and values (NaN, +-inf, -0.0,
integer extremes, many duplicates for stability).

The oracle of a stable sort is NumPy's stable argsort of an order-keeping image
of the values (descending: NaN first, then the reversed order, ties in input
order, as the array API defines it; -0.0 equal to 0.0), so positions are
checked exactly and the values' zero signs with them. Host inputs with
device="cpu" run here for real; device inputs and device="cuda" are GPU tests."""
import numpy as np
import pytest

import myModule as mm
import myModule.array_api as xp
from myModule import _dispatch
from conftest import ALL_DTYPES, COMPLEX_DTYPES, EVERY_DTYPE, GPU_MARKS, quick

pytestmark = pytest.mark.usefixtures("quiet_numpy")

# Sorting orders real numbers only (complex is refused: docs/SPEC.md); the scans
# take every dtype.
DTYPES = ALL_DTYPES
DTYPE_IDS = [d.name for d in DTYPES]
SCAN_DTYPES = EVERY_DTYPE
SCAN_DTYPE_IDS = [d.name for d in SCAN_DTYPES]
SHAPES = [(0,), (1,), (255,), (256,), (257,), (3, 0), (7, 5), (5, 6, 7), (2, 1, 33)]
BIG_SHAPES = [(2 ** 20 + 3,), (3, 70001), (40001, 3)]
LAYOUTS = ["C", "F", "reversed", "strided", "broadcast"]


def values(dtype, shape, rng, kind="sort"):
    """Few distinct values (ties everywhere) with the specials of each dtype."""
    n = int(np.prod(shape, dtype=np.int64))
    if dtype.kind == "c":
        # running products stay near the unit circle
        part = values(np.dtype(dtype.char.lower()), shape, rng, kind)
        if kind == "prod":
            other = rng.uniform(-0.05, 0.05, n).astype(part.dtype).reshape(shape)
        else:
            other = values(part.dtype, shape, rng, kind)
        return (part + 1j * other.astype(dtype)).astype(dtype) if n else np.zeros(shape, dtype)
    if dtype.kind == "b":
        return (rng.random(n) < 0.5).reshape(shape)
    if dtype.kind in "iu":
        ii = np.iinfo(dtype)
        if kind == "prod":  # small factors: no overflow, so no order-dependent inf or NaN in float64
            return rng.integers(-2 if dtype.kind == "i" else 0, 3, n).astype(dtype).reshape(shape)
        x = rng.integers(-5, 6, n).astype(dtype)  # an unsigned type wraps the negatives
        if n >= 4:
            x[rng.choice(n, 4, replace=False)] = np.array([ii.min, ii.max, 0, ii.max // 2 + 1], dtype)
        return x.reshape(shape)
    if kind == "prod":
        return rng.uniform(0.9, 1.1, n).astype(dtype).reshape(shape)
    if kind == "sum":
        return rng.uniform(0.5, 1.5, n).astype(dtype).reshape(shape)
    x = rng.integers(-4, 5, n).astype(dtype) / 2
    sp = np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, np.finfo(dtype).max, np.finfo(dtype).tiny], dtype)
    k = max(1, n // 10) if n else 0
    x[rng.choice(n, k, replace=False)] = sp[rng.integers(0, len(sp), k)]
    return x.reshape(shape)


def in_layout(x, layout, to_gpu):
    """`x` (host values) in `layout`, on the host or (to_gpu) as a DeviceArray view."""
    put = mm.to_device if to_gpu else (lambda a: a)
    if layout == "C" or x.ndim == 0:
        return put(x)
    if layout == "F":
        base = np.ascontiguousarray(x.T)
        return put(base).T
    if layout == "reversed":
        flip = (slice(None, None, -1),) * x.ndim
        return put(np.ascontiguousarray(x[flip]))[flip]
    if layout == "strided":
        big = np.zeros(tuple(2 * n + 1 for n in x.shape), x.dtype)
        index = tuple(slice(1, 1 + 2 * n, 2) for n in x.shape)
        big[index] = x
        return put(big)[index]
    if layout == "broadcast":
        # every line a copy of the first: ties along axis 0
        row = np.ascontiguousarray(x[:1])
        x[...] = row
        dev = put(row)
        return mm.broadcast_to(dev, x.shape) if to_gpu else np.broadcast_to(dev, x.shape)
    raise ValueError(layout)


def stable_order(x, axis, descending):
    """The positions a stable sort gives: NumPy's stable argsort of an image of the
    values that keeps (ascending) or reverses (descending) their order, NaN largest."""
    x = np.asarray(x)
    if x.dtype.kind == "f":
        nan = np.isnan(x)
        if descending:
            return np.lexsort((np.where(nan, 0, -x), ~nan), axis=axis)
        return np.lexsort((np.where(nan, 0, x), nan), axis=axis)
    return np.argsort(~x if descending else x, axis=axis, kind="stable")


def expected_sort(x, axis, descending):
    x = np.asarray(x)
    order = stable_order(x, axis, descending)
    return np.take_along_axis(x, order, axis), order


def assert_sorted_values(got, expected):
    got = got.get() if isinstance(got, mm.DeviceArray) else np.asarray(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
    if expected.dtype.kind == "f":
        real = ~np.isnan(expected)
        # zero signs follow the stable order
        np.testing.assert_array_equal(np.signbit(got[real]), np.signbit(expected[real]))


def assert_positions(got, expected):
    got = got.get() if isinstance(got, mm.DeviceArray) else np.asarray(got)
    assert got.dtype == np.int64 and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def axes_of(shape):
    return list(range(len(shape))) + [-1] if shape else []


# ------------------------------------------------------------------ host data, here


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_host_sort_and_argsort_on_the_cpu(shape, dtype, descending):
    rng = np.random.default_rng(hash((shape, dtype.name)) % 2 ** 32)
    x = values(dtype, shape, rng)
    for axis in axes_of(shape):
        want, order = expected_sort(x, axis, descending)
        assert_sorted_values(mm.sort(x, axis=axis, descending=descending, device="cpu"), want)
        assert_positions(mm.argsort(x, axis=axis, descending=descending, device="cpu"), order)
    if not descending:
        np.testing.assert_array_equal(mm.sort(x, axis=None, device="cpu"), np.sort(x, axis=None))


def test_host_sort_is_numpys_with_its_keywords():
    x = np.array([3, 1, 2], np.int32)
    np.testing.assert_array_equal(mm.sort(x, kind="stable", device="cpu"), np.sort(x, kind="stable"))
    np.testing.assert_array_equal(mm.argsort(x, stable=True, device="cpu"), np.argsort(x, stable=True))
    with pytest.raises(np.exceptions.AxisError):
        mm.sort(np.float64(1.0) * np.ones(()), device="cpu")
    with pytest.raises(np.exceptions.AxisError):
        mm.argsort(x, axis=1, device="cpu")


SCANS = [("cumsum", np.cumsum, "sum"), ("cumprod", np.cumprod, "prod")]
CUMULATIVE = [("cumulative_sum", np.cumulative_sum, "sum"), ("cumulative_prod", np.cumulative_prod, "prod")]


@pytest.mark.parametrize("name,ref,kind", SCANS, ids=[s[0] for s in SCANS])
@pytest.mark.parametrize("dtype", SCAN_DTYPES, ids=SCAN_DTYPE_IDS)
def test_host_scans_on_the_cpu(name, ref, kind, dtype):
    rng = np.random.default_rng(7)
    fn = getattr(mm, name)
    for shape in [(), (0,), (257,), (7, 5), (5, 6, 7)]:
        x = values(dtype, shape, rng, kind)
        for axis in [None] + axes_of(shape):
            got = fn(x, axis=axis, device="cpu")
            want = ref(x, axis=axis)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
        wide = np.complex128 if dtype.kind == "c" else np.float64
        got = fn(x, dtype=wide, device="cpu")
        np.testing.assert_array_equal(got, ref(x, dtype=wide))


@pytest.mark.parametrize("name,ref,kind", CUMULATIVE, ids=[s[0] for s in CUMULATIVE])
def test_host_cumulative_on_the_cpu(name, ref, kind):
    fn = getattr(mm, name)
    x = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
    for axis in (0, 1, -1):
        for initial in (False, True):
            got = fn(x, axis=axis, include_initial=initial, device="cpu")
            want = ref(x, axis=axis, include_initial=initial)
            assert got.dtype == want.dtype == np.int64
            np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError):
        fn(x, device="cpu")  # more than one dimension and no axis


def test_numpy_functions_dispatch_to_the_library(monkeypatch):
    """np.sort(d) and friends route to the myModule functions with NumPy's arguments
    (checked on NumPy input through the dispatch table: no GPU needed)."""
    calls = []

    def spy(name):
        def fn(*args, **kwargs):
            calls.append((name, kwargs))
            return name
        return fn

    for name in ("sort", "argsort", "cumsum", "cumprod", "cumulative_sum", "cumulative_prod"):
        monkeypatch.setattr(mm, name, spy(name))
    x = np.arange(4.0)
    assert _dispatch.FUNCTIONS[np.sort](x, axis=0, kind="stable") == "sort"
    assert _dispatch.FUNCTIONS[np.argsort](x) == "argsort"
    assert _dispatch.FUNCTIONS[np.cumsum](x, axis=0, dtype=np.float32) == "cumsum"
    assert _dispatch.FUNCTIONS[np.cumprod](x) == "cumprod"
    assert _dispatch.FUNCTIONS[np.cumulative_sum](x, include_initial=True) == "cumulative_sum"
    assert _dispatch.FUNCTIONS[np.cumulative_prod](x, axis=0) == "cumulative_prod"
    assert calls[0] == ("sort", {"axis": 0, "kind": "stable", "stable": None})
    assert calls[2] == ("cumsum", {"axis": 0, "dtype": np.float32})
    assert calls[4] == ("cumulative_sum", {"axis": None, "dtype": None, "include_initial": True})
    with pytest.raises(TypeError, match="numpy.sort with order="):
        _dispatch.FUNCTIONS[np.sort](x, order="f")


def test_array_api_namespace_has_them():
    for name in ("sort", "argsort", "cumulative_sum", "cumulative_prod"):
        assert name in xp.__all__ and callable(getattr(xp, name))
    for name in ("sort", "argsort", "cumsum", "cumprod"):
        assert callable(getattr(mm.DeviceArray, name))


def test_arguments_are_checked_before_the_gpu():
    x = np.ones(3)
    with pytest.raises(TypeError):
        mm.sort(x, 0, None, None, True)  # descending is keyword-only
    with pytest.raises(TypeError):
        mm.cumulative_sum(x, 0)  # axis is keyword-only
    with pytest.raises(ValueError):
        mm.sort(x, device="bogus")
    with pytest.raises(TypeError, match="orders real numbers only"):
        mm.sort(np.ones(3, np.complex64), device="cpu")
    with pytest.raises(TypeError, match="orders real numbers only"):
        mm.argsort(np.ones(3, np.complex128), device="cpu")
    with pytest.raises(TypeError, match="orders real numbers only"):
        mm.searchsorted(np.ones(3, np.complex64), 1.0)


# ------------------------------------------------------------------ on a GPU


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape", SHAPES + quick(BIG_SHAPES, BIG_SHAPES[:1]), ids=str)
@pytest.mark.gpu
@GPU_MARKS[1]
def test_device_sort_and_argsort(shape, dtype, layout, descending):
    if layout == "broadcast" and (not shape or shape[0] == 0):
        pytest.skip("nothing to broadcast")
    rng = np.random.default_rng(hash((shape, dtype.name, layout)) % 2 ** 32)
    x = values(dtype, shape, rng)
    d = in_layout(x, layout, True)
    for axis in axes_of(shape):
        want, order = expected_sort(x, axis, descending)
        assert_sorted_values(mm.sort(d, axis=axis, descending=descending), want)
        assert_positions(mm.argsort(d, axis=axis, descending=descending), order)
        assert_positions(d.argsort(axis=axis, descending=descending), order)
    if not descending:
        assert_sorted_values(mm.sort(d, axis=None), expected_sort(x.ravel(), 0, False)[0])


@pytest.mark.parametrize("dtype", [np.dtype(t) for t in ("float32", "float64", "int32", "uint16")], ids=str)
@pytest.mark.gpu
@GPU_MARKS[1]
def test_long_ascending_sorts_from_the_source(dtype):
    """One contiguous line of 2^22 elements or more sorted ascending into a new array is
    sorted straight from the source (no key pass); a float line's negative NaNs, which the
    radix order puts first, are rotated to the end: none, a few among positive NaNs, every
    element one; zero signs in input order."""
    rng = np.random.default_rng(22)
    n = 2 ** 22 + 5
    x = values(dtype, (n,), rng)
    lines = [x]
    if dtype.kind == "f":
        few = x.copy()
        few[rng.integers(0, n, 9)] = -np.nan
        few[rng.integers(0, n, 9)] = np.nan
        lines += [few, np.where(np.isnan(x), 0, x).astype(dtype), np.full(n, -np.nan, dtype)]
    for line in lines:
        want = expected_sort(line, 0, False)[0]
        d = mm.to_device(line)
        assert_sorted_values(mm.sort(d), want)
        assert_sorted_values(d, line)  # the source is left as it was
        assert_sorted_values(xp.sort(d), want)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.gpu
@GPU_MARKS[1]
def test_device_sort_in_place_and_numpy_dispatch(dtype):
    rng = np.random.default_rng(3)
    x = values(dtype, (6, 257), rng)
    for axis in (0, 1, -1):
        d = mm.to_device(x)
        assert d.sort(axis=axis) is None
        assert_sorted_values(d, expected_sort(x, axis, False)[0])
    # a strided view sorted in place leaves the rest untouched
    big = mm.to_device(np.concatenate([x, x], axis=1))
    view = big[:, ::2]
    view.sort()
    host = np.concatenate([x, x], axis=1)
    host_view = host[:, ::2]
    host_view[...] = expected_sort(host_view, -1, False)[0]
    assert_sorted_values(big, host)
    d = mm.to_device(x)
    assert_sorted_values(np.sort(d), expected_sort(x, -1, False)[0])
    assert_positions(np.argsort(d, axis=0), stable_order(x, 0, False))
    assert_sorted_values(xp.sort(d, axis=0, descending=True), expected_sort(x, 0, True)[0])
    assert_positions(xp.argsort(d, descending=True), stable_order(x, -1, True))


@pytest.mark.gpu
@GPU_MARKS[1]
def test_device_sort_errors():
    d = mm.to_device(np.arange(3.0))
    with pytest.raises(np.exceptions.AxisError):
        mm.sort(d, axis=1)
    with pytest.raises(np.exceptions.AxisError):
        mm.sort(mm.to_device(np.float64(1.0) * np.ones(())))
    with pytest.raises(ValueError):
        mm.sort(d, device="cpu")


def _scan_close(got, want, dtype, magnitude=None):
    """`magnitude` (the same scan of |x|, in float64): a float result's rounding may
    reach len * eps * that running magnitude, in whatever order a parallel scan adds;
    where it is given, that bound replaces the relative one (int64 extremes summed in
    float64 cancel to small values that keep the earlier roundings)."""
    got = got.get() if isinstance(got, mm.DeviceArray) else np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind == "f" and magnitude is not None:
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        special = np.isinf(want)
        np.testing.assert_array_equal(got[special], want[special])
        finite = np.isfinite(want)
        bound = 4 * max(got.size, 1) * np.finfo(want.dtype).eps * magnitude + np.finfo(want.dtype).tiny
        err = np.abs(got[finite].astype(np.float64) - want[finite])
        assert np.all(err <= bound[finite]), (err.max(), got, want)
    elif want.dtype.kind == "c":
        # a running product that overflows is non-finite on both sides, but whether a
        # part is inf or NaN follows the order of the products (C99's Annex G leaves it
        # open; NumPy's own loops differ): finiteness where the oracle's, then as floats
        # Near the overflow threshold a product's parts (ar br - ai bi) overflow before
        # its modulus does, by the rounding of the type: below a quarter of the largest
        # value both are finite, past overflow ours is non-finite or near it. (|got - want|
        # against |want|: a part near 0 is held to the whole.)
        big = np.finfo(want.dtype).max / 4
        with np.errstate(over="ignore"):
            clear = np.isfinite(want) & (np.abs(want) < big)
            beyond = ~np.isfinite(want)
            assert np.all(~np.isfinite(got[beyond]) | (np.abs(got[beyond]) >= big)), got[beyond]
        assert np.all(np.isfinite(got[clear])), got[clear][~np.isfinite(got[clear])]
        rtol = 5e-4 if want.dtype == np.complex64 else 1e-10
        np.testing.assert_allclose(got[clear], want[clear], rtol=rtol, atol=np.finfo(want.dtype).tiny)
    elif want.dtype.kind == "f":
        # a parallel scan rounds in another order than the oracle: its errors grow
        # with the running length (products of 2**20 factors near 1 included); below
        # the smallest normal number the relative error means nothing
        rtol = 5e-4 if want.dtype == np.float32 else 1e-10
        np.testing.assert_allclose(got, want, rtol=rtol, atol=np.finfo(want.dtype).tiny)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", SCAN_DTYPES, ids=SCAN_DTYPE_IDS)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (255,), (256,), (257,), (3, 0), (7, 5), (5, 6, 7)]
                         + quick(BIG_SHAPES, BIG_SHAPES[:1]), ids=str)
@pytest.mark.gpu
@GPU_MARKS[1]
def test_device_scans(shape, dtype, layout):
    if layout == "broadcast" and (not shape or shape[0] == 0):
        pytest.skip("nothing to broadcast")
    rng = np.random.default_rng(11)
    for name, ref, kind in SCANS:
        x = values(dtype, shape, rng, kind)
        d = in_layout(x, layout, True)
        fn = getattr(mm, name)
        for axis in [None] + axes_of(shape):
            # the float oracle in float64 (NumPy's float32 running sum is the less exact one)
            wide = {"f": np.float64, "c": np.complex128}.get(dtype.kind)
            exact = ref(x.astype(wide), axis=axis).astype(ref(x, axis=axis).dtype) \
                if wide is not None else ref(x, axis=axis)
            _scan_close(fn(d, axis=axis), exact, dtype)
            _scan_close(getattr(d, name)(axis=axis), exact, dtype)
        wide = x.astype(np.complex128 if dtype.kind == "c" else np.float64)
        _scan_close(fn(d, dtype=wide.dtype), ref(wide), dtype,
                    magnitude=ref(np.abs(wide)) if dtype.kind in "iu" else None)


@pytest.mark.gpu
@GPU_MARKS[1]
def test_device_scans_wrap_and_promote_as_numpy():
    x = np.array([2 ** 62, 2 ** 62, 2 ** 62, -5], np.int64)
    np.testing.assert_array_equal(mm.cumsum(mm.to_device(x)).get(), np.cumsum(x))
    y = np.array([2 ** 31 - 1, 5, -7], np.int32)
    got = mm.cumsum(mm.to_device(y))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got.get(), np.cumsum(y))
    np.testing.assert_array_equal(mm.cumsum(mm.to_device(y), dtype=np.int32).get(), np.cumsum(y, dtype=np.int32))
    b = np.array([False, True, False, True])
    np.testing.assert_array_equal(mm.cumsum(mm.to_device(b)).get(), np.cumsum(b))
    np.testing.assert_array_equal(mm.cumsum(mm.to_device(b), dtype=bool).get(), np.cumsum(b, dtype=bool))
    np.testing.assert_array_equal(mm.cumprod(mm.to_device(b), dtype=bool).get(), np.cumprod(b, dtype=bool))
    f = np.array([1.0, np.nan, np.inf, -np.inf, 2.0])
    np.testing.assert_array_equal(mm.cumsum(mm.to_device(f)).get(), np.cumsum(f))
    # complex sums are their parts' sums: specials and zero signs in each part apart
    for dtype in COMPLEX_DTYPES:
        z = np.array([complex(-0.0, -0.0), complex(1, -0.0), complex(np.nan, 2), complex(3, np.inf), complex(-np.inf, 1)], dtype)
        d = mm.to_device(z)
        for view, want in ((d, np.cumsum(z)), (d[::-1], np.cumsum(z[::-1])), (d[::2], np.cumsum(z[::2]))):
            got = mm.cumsum(view).get()
            assert got.dtype == want.dtype
            for g, w in ((got.real, want.real), (got.imag, want.imag)):
                np.testing.assert_array_equal(g, w)
                number = ~np.isnan(w)
                np.testing.assert_array_equal(np.signbit(g[number]), np.signbit(w[number]))


@pytest.mark.parametrize("name,ref,kind", CUMULATIVE, ids=[s[0] for s in CUMULATIVE])
@pytest.mark.gpu
@GPU_MARKS[1]
def test_device_cumulative_and_out(name, ref, kind):
    x = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
    d = mm.to_device(x)
    for axis in (0, 1, -1):
        for initial in (False, True):
            want = ref(x, axis=axis, include_initial=initial)
            _scan_close(getattr(mm, name)(d, axis=axis, include_initial=initial), want, x.dtype)
            _scan_close(getattr(xp, name)(d, axis=axis, include_initial=initial), want, x.dtype)
            _scan_close(getattr(np, name)(d, axis=axis, include_initial=initial), want, x.dtype)
    one = mm.to_device(np.arange(1.0, 6.0))
    _scan_close(getattr(mm, name)(one, include_initial=True), ref(np.arange(1.0, 6.0), include_initial=True),
                np.float64)
    with pytest.raises(ValueError):
        getattr(mm, name)(d)
    out = mm.zeros((3, 4), np.float64)
    assert getattr(mm, name)(d, axis=1, out=out) is out
    _scan_close(out, ref(x, axis=1).astype(np.float64), np.float64)


@pytest.mark.gpu
@GPU_MARKS[1]
def test_host_data_through_the_gpu():
    rng = np.random.default_rng(5)
    x = values(np.dtype(np.float64), (1000,), rng)
    want, order = expected_sort(x, -1, False)
    got = mm.sort(x, device="cuda")
    assert isinstance(got, np.ndarray)
    assert_sorted_values(got, want)
    assert_positions(mm.argsort(x, device="cuda"), order)
    assert_sorted_values(mm.sort(x, descending=True, device="cuda"), expected_sort(x, -1, True)[0])
    y = np.arange(10, dtype=np.int32)
    got = mm.cumsum(y, device="cuda")
    assert isinstance(got, np.ndarray) and got.dtype == np.int64
    np.testing.assert_array_equal(got, np.cumsum(y))
    out = np.zeros(10, np.int64)
    assert mm.cumsum(y, out=out, device="cuda") is out
    np.testing.assert_array_equal(out, np.cumsum(y))
    np.testing.assert_array_equal(np.cumsum(mm.to_device(y)).get(), np.cumsum(y))


class _IndexRaises:
    def __index__(self):
        raise RuntimeError("axis __index__ raised")


class _ArrayLies:
    """Claims an __array_interface__ it does not have."""
    @property
    def __array_interface__(self):
        raise RuntimeError("protocol raised")


@pytest.mark.parametrize("name", ["sort", "argsort", "cumsum", "cumprod"])
def test_hostile_arguments_are_refused_before_any_gpu_work(name):
    """Without a GPU or with one: these fail in argument checking (no CudaUnavailableError)."""
    fn = getattr(mm, name)
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(RuntimeError, match="__index__ raised"):
        fn(x, axis=_IndexRaises(), device="cuda")
    with pytest.raises(RuntimeError, match="protocol raised"):
        fn(_ArrayLies(), device="cuda")
    with pytest.raises((TypeError, ValueError)):
        fn(x, axis=0, device=True)
    with pytest.raises(np.exceptions.AxisError):
        fn(x, axis=5, device="cuda")
