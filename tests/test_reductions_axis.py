"""Reductions over axes (every reduction of the op table: sum, prod, max, min,
mean, argmax, argmin) against NumPy as the oracle.

Values, dtypes and shapes are NumPy's: ints, bool and max/min/argmax/argmin
exactly (NaN wins, first occurrence for arg*); float sums and means NumPy's
bits or within rounding of the exact sum (compare_floats.assert_sum_matches),
products within rtol * |result|; NaN, +-inf and zero signs where NumPy has them. Axes None, each int, negative, tuples, all and (); keepdims;
dtype= (sum, prod, mean); out=. Layouts: C, Fortran, transposed, reversed,
strided, broadcast. Errors: AxisError / ValueError / TypeError as NumPy's.

Host inputs run everywhere (device="cpu", NumPy's own function, and "auto");
device inputs and device="cuda" are GPU tests: their results are DeviceArrays
queued without a host wait, read here with get()."""
import importlib
import itertools

import numpy as np
import pytest

import myModule as mm
from compare_floats import assert_floats_match, assert_sum_matches
from conftest import (ALL_DTYPES, COMPLEX_REFUSED_BY_DECISION, EVERY_DTYPE, GPU_MARKS, Raised, assert_same_result,
                      outcome, quick)

pytestmark = [pytest.mark.usefixtures("quiet_numpy"),
              pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning")]

REDUCTIONS = [op for op in mm.ops if op["kind"] == "reduction"]
NAMES = [op["name"] for op in REDUCTIONS]
DOMAIN = {op["name"]: op["domain"] for op in REDUCTIONS}
TAKES_DTYPE = [n for n in NAMES if DOMAIN[n] in ("sum", "mean")]
POSITIONAL = [n for n in NAMES if DOMAIN[n] == "index"]

DTYPES = EVERY_DTYPE
DTYPE_IDS = [d.name for d in DTYPES]
REAL_IDS = [d.name for d in ALL_DTYPES]
SHAPES = [(), (0,), (1,), (255,), (256,), (257,), (1025,), (3, 0), (0, 4), (1, 7), (37, 41), (256, 3),
          (3, 257), (5, 6, 7), (2, 1, 33)]
LAYOUTS = ["C", "F", "transposed", "reversed", "strided", "broadcast"]
RTOL = {np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-13, np.dtype(np.complex64): 2e-6,
        np.dtype(np.complex128): 1e-13}


def reference(name):
    op = next(op for op in REDUCTIONS if op["name"] == name)
    module, attr = op["reference"].rsplit(".", 1)
    assert module in ("numpy", "myModule._reference")  # count_nonzero's: NumPy's, with out=
    return getattr(importlib.import_module(module), attr)


def axes_for(name, ndim):
    """None, every int (and its negative), and for the non-positional ones every
    pair as a tuple, all axes as a tuple, and ()."""
    axes = [None] + list(range(ndim)) + [-k for k in range(1, ndim + 1)]
    if name not in POSITIONAL:
        axes += [tuple(p) for p in itertools.combinations(range(ndim), 2)]
        axes += [tuple(range(ndim)), (), tuple(-k for k in range(1, ndim + 1))]
    return axes


def values(name, dtype, shape, rng, special=True):
    """Exact ops get specials (NaN, inf, -0.0, extremes); float sums and means
    finite values, products values near 1 (no overflow to compare)."""
    n = int(np.prod(shape, dtype=np.int64))
    if dtype.kind == "c":
        # the parts as a float's (specials in either); products near the unit circle
        part = np.dtype(dtype.char.lower())
        x = np.empty(shape, dtype)
        x.real = values(name, part, shape, rng, special)
        x.imag = values(name, part, shape, rng, special) if name != "prod" else \
            rng.uniform(-0.05, 0.05, n).astype(part).reshape(shape)
        return x
    if dtype.kind == "b":
        return (rng.random(n) < 0.5).reshape(shape)
    if dtype.kind in "iu":
        ii = np.iinfo(dtype)
        x = rng.integers(ii.min, ii.max, n, dtype=dtype, endpoint=True)
        if name == "prod":
            x = rng.integers(-3, 4, n).astype(dtype)  # an unsigned type wraps the negatives
        elif special and n >= 4:
            x[rng.choice(n, 4, replace=False)] = np.array([ii.min, ii.max, 0, ii.max // 2 + 1], dtype)
        return x.reshape(shape)
    if name == "prod":
        return rng.uniform(0.5, 1.5, n).astype(dtype).reshape(shape)
    x = (rng.standard_normal(n) * 10.0 ** rng.uniform(-2, 2, n)).astype(dtype)
    if special and name in ("max", "min") + tuple(POSITIONAL) and n >= 2:
        sp = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, np.finfo(dtype).max], dtype)
        k = max(1, n // 50)
        x[rng.choice(n, k, replace=False)] = sp[rng.integers(0, len(sp), k)]
    return x.reshape(shape)


def layout_of(x, layout, xp):
    """`x` (host values) in `layout`, built on the host (xp = np) or on the GPU
    (xp = mm) by the same view operations, so both hold the same values."""
    shape = x.shape
    if layout == "C" or x.ndim == 0:
        base = x
        return base if xp is np else mm.to_device(base)
    if layout in ("F", "transposed"):
        perm = tuple(reversed(range(x.ndim))) if layout == "F" else (1, 0) + tuple(range(2, x.ndim))
        perm = perm if x.ndim >= 2 else (0,)
        inverse = tuple(np.argsort(perm))
        base = np.ascontiguousarray(np.transpose(x, inverse))
        dev = base if xp is np else mm.to_device(base)
        return xp.permute_dims(dev, perm)
    if layout == "reversed":
        base = np.ascontiguousarray(x[(slice(None, None, -1),) * x.ndim])
        dev = base if xp is np else mm.to_device(base)
        return dev[(slice(None, None, -1),) * x.ndim]
    if layout == "strided":
        big = np.zeros(tuple(2 * n + 1 for n in shape), x.dtype)
        index = tuple(slice(1, 1 + 2 * n, 2) for n in shape)
        big[index] = x
        dev = big if xp is np else mm.to_device(big)
        return dev[index]
    if layout == "broadcast":
        row = np.ascontiguousarray(x[:1]) if shape[0] > 0 else x
        dev = row if xp is np else mm.to_device(row)
        return xp.broadcast_to(dev, shape)
    raise ValueError(layout)


def check(name, got, expected, x, axis, keepdims):
    """got (NumPy's kind of result, or a DeviceArray) against NumPy's expected
    (tests/compare_floats.py: NaN, +-inf and zero signs where NumPy has them)."""
    if isinstance(got, Raised) or isinstance(expected, Raised):
        assert_same_result(got, expected)
        return
    if isinstance(got, mm.DeviceArray):
        got = got.get()
    g, e = np.asarray(got), np.asarray(expected)
    if e.dtype.kind not in "fc" or name in ("max", "min"):
        # (the sign of a zero max/min follows the order of combination: docs/SPEC.md)
        assert_floats_match(g, e, ulp=0, zero_sign=False, msg="%s: " % name)
        return
    if name in ("sum", "mean"):
        # NumPy's own bits (the CPU path), or within rounding of the exact sum:
        # the GPU accumulates in double and rounds once (docs/SPEC.md); a bound
        # in the input's precision (NumPy's pairwise float32 sum, its running
        # sum along a strided axis) would let a dropped element through.
        assert_sum_matches(g, e, x, axis, keepdims, mean=name == "mean", msg="%s: " % name)
        return
    # products: NumPy multiplies in the input's type, one rounding per element
    # (complex: each part held to |the product|, against NumPy's product in complex128,
    # as the library accumulates: a complex64 product that overflows becomes inf or NaN
    # by the order of NumPy's own multiplications)
    if e.dtype.kind == "c":
        e = np.asarray(np.prod(np.asarray(x).astype(np.complex128), axis=axis, keepdims=keepdims)).astype(e.dtype)
    tol = RTOL[e.dtype] * 100 * np.abs(e.astype(np.complex128)) + np.finfo(e.dtype).tiny
    if e.dtype.kind == "c":
        for part in (np.real, np.imag):
            assert_floats_match(part(g), part(e), tol=tol, msg="%s: " % name)
        return
    assert_floats_match(g, e, tol=tol, msg="%s: " % name)


def run_cases(name, dtype, layout, rng, call):
    """Every shape x axis x keepdims of one (reduction, dtype, layout); `call(x,
    **kw)` computes the library's result from host values `x`."""
    ref = reference(name)
    if dtype.kind == "c" and name in COMPLEX_REFUSED_BY_DECISION:
        x = values(name, dtype, (3, 4), rng)
        for axis in (None, 0):
            got = outcome(lambda: call(x, x, axis=axis, keepdims=False))
            assert isinstance(got, Raised) and isinstance(got.exc, TypeError), (name, got)
        return
    for shape in quick(SHAPES, SHAPES[:6] + SHAPES[10:12]):
        x = values(name, dtype, shape, rng)
        h = layout_of(x, layout, np)
        if layout != "broadcast":
            np.testing.assert_array_equal(h, x)
        for axis in axes_for(name, len(shape)):
            for keepdims in (False, True):
                expected = outcome(lambda: ref(h, axis=axis, keepdims=keepdims))
                got = outcome(lambda: call(x, h, axis=axis, keepdims=keepdims))
                check(name, got, expected, h, axis, keepdims)


# ------------------------------------------------------------------ host data

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", NAMES)
def test_host_matches_numpy(name, dtype, layout, rng):
    fn = getattr(mm, name)
    run_cases(name, dtype, layout, rng, lambda x, h, **kw: fn(h, device="cpu", **kw))
    if dtype.kind == "c" and name in COMPLEX_REFUSED_BY_DECISION:
        return
    x = values(name, dtype, (7, 5), rng)
    for kw in ({}, {"axis": 0}, {"axis": -1, "keepdims": True}):
        assert_same_result(outcome(lambda: fn(x, **kw)), outcome(lambda: reference(name)(x, **kw)))


@pytest.mark.parametrize("name", NAMES)
def test_signatures_and_methods(name):
    import inspect
    fn = getattr(mm, name)
    params = list(inspect.signature(fn).parameters)
    expected = ["a", "axis"] + (["dtype"] if name in TAKES_DTYPE else []) + ["out", "keepdims", "device"]
    assert params == expected
    method = getattr(mm.DeviceArray, name)
    assert list(inspect.signature(method).parameters) == ["self"] + expected[1:-1]


def test_errors_match_numpy():
    x = np.arange(24.0).reshape(2, 3, 4)
    for name in NAMES:
        fn, ref = getattr(mm, name), reference(name)
        for kw in ({"axis": 3}, {"axis": -4}, {"axis": (0, 0)}, {"axis": (0, 5)}, {"axis": 1.5},
                   {"out": np.empty((5,))}, {"axis": 0, "out": np.empty((3,))}):
            if name in POSITIONAL and isinstance(kw.get("axis"), tuple):
                continue
            assert_same_result(outcome(lambda: fn(x, device="cpu", **kw)), outcome(lambda: ref(x, **kw)))
        empty = np.empty((3, 0))
        for axis in (None, 0, 1):
            assert_same_result(outcome(lambda: fn(empty, axis=axis, device="cpu")),
                               outcome(lambda: ref(empty, axis=axis)))
    for name in POSITIONAL:
        with pytest.raises(TypeError):
            getattr(mm, name)(x, axis=(0, 1))


def test_dtype_and_out_on_the_host():
    x = np.arange(1, 13, dtype=np.int32).reshape(3, 4) * 300_000_000
    for name in TAKES_DTYPE:
        fn, ref = getattr(mm, name), reference(name)
        for dtype in (np.int32, np.int64, np.float32, np.float64, np.bool_):
            assert_same_result(outcome(lambda: fn(x, axis=0, dtype=dtype, device="cpu")),
                               outcome(lambda: ref(x, axis=0, dtype=dtype)))
        out = np.empty(4, np.float64)
        assert fn(x, axis=0, out=out, device="cpu") is out
        np.testing.assert_array_equal(out, ref(x, axis=0, out=np.empty(4)))


# ------------------------------------------------------------------ device data

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.gpu
@GPU_MARKS[1]
def test_device_matches_numpy(name, dtype, layout, rng):
    fn = getattr(mm, name)

    def on_device(x, h, **kw):
        d = layout_of(x, layout, mm)
        r = fn(d, **kw)
        assert isinstance(r, mm.DeviceArray), "a device input gives a DeviceArray, got %r" % type(r)
        method = getattr(d, name)(**kw).get()
        np.testing.assert_array_equal(method, r.get(), strict=True)  # the method is the function
        return r

    run_cases(name, dtype, layout, rng, on_device)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.gpu
@GPU_MARKS[1]
def test_host_data_on_the_gpu_matches_numpy(name, dtype, rng):
    fn = getattr(mm, name)
    run_cases(name, dtype, "C", rng, lambda x, h, **kw: fn(h, device="cuda", **kw))


@pytest.mark.gpu
@GPU_MARKS[1]
def test_full_reduction_is_a_0d_device_array_without_a_wait(rng):
    x = rng.standard_normal((300, 200))
    d = mm.to_device(x)
    for name in NAMES:
        r = getattr(mm, name)(d)
        assert isinstance(r, mm.DeviceArray) and r.shape == () and r.device == d.device
        check(name, r, reference(name)(x), x, None, False)
        assert float(r) == float(r.get()[()])
    # chained on the GPU: a reduction of a reduction
    s = mm.sum(mm.max(d, axis=1))
    check("sum", s, np.sum(np.max(x, axis=1)), np.max(x, axis=1), None, False)
    assert int(mm.argmax(mm.to_device(np.array([1, 9, 9, 2])))) == 1


@pytest.mark.gpu
@GPU_MARKS[1]
def test_special_values_on_the_device():
    f = np.array([[1.0, np.nan, 3.0, np.nan], [-0.0, -0.0, 0.0, -np.inf], [np.inf, 2.0, np.inf, 1.0]])
    for name in NAMES:
        for axis in (None, 0, 1):
            for dtype in (np.float32, np.float64):
                x = f.astype(dtype)
                check(name, getattr(mm, name)(mm.to_device(x), axis=axis), reference(name)(x, axis=axis),
                      x, axis, False)
    # sums and means of -0.0 alone: NumPy 2 starts from +0.0 whatever the path (full,
    # over a strided axis, over the fast axis, over none); an empty sum is +0.0
    for dtype in (np.float32, np.float64):
        z = np.full((3, 4), -0.0, dtype)
        for layout in ("C", "F", "reversed", "broadcast"):
            dz = layout_of(z, layout, mm)
            for axis in (None, 0, 1, (0, 1), ()):
                for name in ("sum", "mean"):
                    got = getattr(mm, name)(dz, axis=axis).get()
                    expected = reference(name)(layout_of(z, layout, np), axis=axis)
                    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))
        e = mm.sum(mm.to_device(np.empty((0, 3), dtype)), axis=0).get()
        assert not np.signbit(e).any()
    ii = np.iinfo(np.int64)
    x = np.array([[ii.max, 1], [ii.max, ii.min]], np.int64)
    for name in NAMES:
        for axis in (None, 0, 1):
            check(name, getattr(mm, name)(mm.to_device(x), axis=axis), reference(name)(x, axis=axis),
                  x, axis, False)


@pytest.mark.gpu
@GPU_MARKS[1]
def test_dtype_out_and_errors_on_the_device(rng):
    x = (np.arange(1, 13, dtype=np.int32).reshape(3, 4) * 300_000_000)
    d = mm.to_device(x)
    for name in TAKES_DTYPE:
        fn, ref = getattr(mm, name), reference(name)
        # mean with an integer dtype= divides NumPy's wrapped integer sum: keep it unwrapped
        xs = x // 1024 if name == "mean" else x
        ds = mm.to_device(xs)
        for dtype in (np.int32, np.int64, np.float32, np.float64, np.bool_):
            for axis in (None, 0, 1):
                check(name, fn(ds, axis=axis, dtype=dtype), ref(xs, axis=axis, dtype=dtype), xs.astype(dtype),
                      axis, False)
    for name in NAMES:
        fn, ref = getattr(mm, name), reference(name)
        expected = ref(x, axis=0)
        for out_dtype in (expected.dtype, np.int32) + (() if name in POSITIONAL else (np.float64,)):
            out = mm.zeros(4, dtype=out_dtype)
            assert fn(d, axis=0, out=out) is out
            np.testing.assert_array_equal(out.get(), ref(x, axis=0, out=np.zeros(4, out_dtype)))
        if name in POSITIONAL:  # positions go into integers only
            with pytest.raises(TypeError):
                fn(d, axis=0, out=mm.zeros(4, dtype=np.float64))
        # out= strided, and out= keepdims-shaped with keepdims
        big = mm.zeros((3, 8), dtype=expected.dtype)
        view = big[1, ::2]
        assert fn(d, axis=0, out=view) is view
        np.testing.assert_array_equal(big.get()[1, ::2], expected)
        k = mm.zeros((1, 4), dtype=expected.dtype)
        fn(d, axis=0, keepdims=True, out=k)
        np.testing.assert_array_equal(k.get(), ref(x, axis=0, keepdims=True))
        for kw in ({"axis": 2}, {"axis": -3}, {"out": mm.zeros((5,), expected.dtype)},
                   {"axis": 0, "out": mm.zeros((1, 4), expected.dtype)}):
            assert_same_result(outcome(lambda: fn(d, **kw)),
                               outcome(lambda: ref(x, **{k: (np.zeros(v.shape, v.dtype) if k == "out" else v)
                                                        for k, v in kw.items()})))
        empty = mm.to_device(np.empty((3, 0)))
        for axis in (None, 0, 1):
            assert_same_result(outcome(lambda: fn(empty, axis=axis).get()),
                               outcome(lambda: np.asarray(ref(np.empty((3, 0)), axis=axis))))
    # the input as its own out (overlap): NumPy's values
    a = mm.to_device(np.arange(12.0).reshape(3, 4))
    row = a[0]
    mm.sum(a, axis=0, out=row)
    np.testing.assert_array_equal(a.get()[0], np.arange(12.0).reshape(3, 4).sum(axis=0))


def out_dtype_cases():
    """(name, input, out dtype): NumPy computes in the input's and out='s dtypes
    promoted, where the natural loop cast into out would differ (int32 values
    summing to 2**32 are 0 in int32, so False into a bool out)."""
    f32 = np.array([[2.5, 1e3, 3.0], [0.6, 3.0, 1e-3], [1.5, -1e3, 7.0]], np.float32)
    i32 = (np.arange(1, 13, dtype=np.int32).reshape(3, 4) * 300_000_000)
    big = np.array([[2**24, 3], [1, 5], [1, -7]], np.int64)
    wraps = np.array([[2**31 - 1, 5], [2**31 - 1, -5], [2, 0]], np.int32)
    for name in TAKES_DTYPE:
        # (np.mean casts the sum into an integer out= before dividing: a sum past
        # int32 wraps there; not followed)
        for x in (f32, i32, big, i32 % 2 == 0) + ((wraps,) if name != "mean" else ()):
            for od in (np.bool_, np.int32, np.int64, np.float32, np.float64):
                yield name, x, np.dtype(od)


@pytest.mark.gpu
@GPU_MARKS[1]
def test_out_dtype_picks_the_loop_on_the_device():
    """Without dtype=, NumPy's sum/prod run the loop of the input's and out='s
    dtypes promoted (np.prod(int32, out=float32) multiplies in float64, not in
    int64 wrapped); np.mean of float32 into float64 sums in float64. Device and
    host out= alike."""
    for name, x, od in out_dtype_cases():
        fn, ref = getattr(mm, name), reference(name)
        for axis in (None, 0):
            shape = () if axis is None else x.shape[1:]
            expected = ref(x, axis=axis, out=np.zeros(shape, od))
            out = mm.zeros(shape, dtype=od)
            assert fn(mm.to_device(x), axis=axis, out=out) is out
            host_out = np.zeros(shape, od)
            assert fn(x, axis=axis, out=host_out, device="cuda") is host_out
            for got in (out.get(), host_out):
                if x.dtype == np.float32 and od == np.float64 and name != "prod":
                    # float64 sums of three float32 values are exact: any loop in
                    # float32 would round them
                    np.testing.assert_array_equal(got, expected, strict=True)
                else:
                    check(name, got, expected, x.astype(np.float64), axis, False)


@pytest.mark.gpu
@GPU_MARKS[1]
def test_large_reductions_are_deterministic_and_close(rng):
    x = rng.standard_normal((2000, 3001))
    d = mm.to_device(x)
    for name, axis in itertools.product(("sum", "mean", "max", "argmax"), (None, 0, 1)):
        fn = getattr(mm, name)
        first = fn(d, axis=axis).get()
        again = fn(d, axis=axis).get()
        assert np.array_equal(first, again) and first.tobytes() == again.tobytes()
        check(name, first, reference(name)(x, axis=axis), x, axis, False)
    # tall columns (split across blocks), a few long rows (each a full reduction),
    # many short rows
    n = 2 ** 20 + 3
    for shape, axis in (((n, 3), 0), ((3, n), 1), ((n, 3), 1), ((1, n), 0), ((1, n), 1), ((2, 3, n), 2)):
        x = rng.standard_normal(shape).astype(np.float32)
        for name in NAMES:
            check(name, getattr(mm, name)(mm.to_device(x), axis=axis), reference(name)(x, axis=axis), x, axis,
                  False)


@pytest.mark.gpu
@GPU_MARKS[1]
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=REAL_IDS)
def test_full_argmax_long_on_the_device(dtype, rng):
    """The one-pass full argmax/argmin (many blocks, the last one combining):
    the first occurrence wins across blocks, NaN wins, and an input off the
    16-byte boundary (d[1:]) or not contiguous (d[::-1]) gives NumPy's index."""
    n = 3 * 10**6 + 7
    x = values("argmax", dtype, (n,), rng, special=False)
    if dtype.kind != "b":
        top, bottom = (np.iinfo(dtype).max, np.iinfo(dtype).min) if dtype.kind in "iu" else (np.inf, -np.inf)
        for k in (n - 3, 2 * n // 3, n // 3 + 1, 5):   # ties: the first must win
            x[k], x[k - 1 if k == n - 3 else k + 2] = top, bottom
    cases = [x, np.zeros(n, dtype), np.ones(n, dtype)]
    if dtype.kind == "f":
        y = x.copy()
        y[[n - 2, n // 2 + 3]] = np.nan
        cases.append(y)
    for h in cases:
        d = mm.to_device(h)
        for name in POSITIONAL:
            ref = reference(name)
            for view, hv in ((d, h), (d[1:], h[1:]), (d[::-1], h[::-1]), (d[3:-5], h[3:-5])):
                got = getattr(mm, name)(view)
                assert got.get()[()] == ref(hv), (name, dtype, got.get(), ref(hv))
