"""sum and trace on host arrays, against NumPy and exact sums.

sum: np.sum's dtype (int32 and int64 sum into int64); integer sums exact (int64
wraps like NumPy's); float sums np.sum's bits or within rounding of the exact
sum (compare_floats.assert_sum_matches); NaN and inf propagate.
trace: np.trace's value and dtype for 2-D arrays of any strides; ValueError
otherwise."""
import numpy as np
import pytest

import myModule
from compare_floats import assert_sum_matches
from conftest import (DEVICES, DTYPE_IDS, DTYPES, FLOAT_DTYPES, INT_DTYPES, check_layout,
                      exact_int_sum, make_layout, sum_values)

pytestmark = pytest.mark.usefixtures("quiet_numpy")

def assert_sum_close(got, x, expected_dtype):
    """got is sum(x): a NumPy scalar of expected_dtype, exact for ints; for floats
    np.sum's bits or within rounding of the exact sum (compare_floats), with
    NaN, +-inf and zero signs as np.sum's."""
    assert isinstance(got, np.generic), "sum should give a NumPy scalar, got %r" % type(got)
    assert got.dtype == expected_dtype, "dtype %s, np.sum's %s" % (got.dtype, expected_dtype)
    x = np.asarray(x)
    if x.dtype.kind == "i":
        assert int(got) == exact_int_sum(x)
        return
    assert_sum_matches(got, np.sum(x), x)


# (name, shape, layout)
SUM_CASES = [
    ("0d", (), "C"),
    ("empty", (0,), "C"),
    ("empty2d", (3, 0), "C"),
    ("1", (1,), "C"),
    ("255", (255,), "C"),
    ("256", (256,), "C"),
    ("257", (257,), "C"),
    ("1e6", (10 ** 6,), "C"),
    ("2d", (37, 41), "C"),
    ("3d", (5, 6, 7), "C"),
    ("fortran", (37, 41), "F"),
    ("strided", (1001,), "strided"),
    ("strided2d", (30, 20), "strided"),
    ("reversed", (513,), "reversed"),
    ("reversed2d", (13, 17), "reversed"),
    ("byteswapped", (1000,), "byteswapped"),
    ("misaligned", (777,), "misaligned"),
    ("broadcast", (40, 25), "broadcast"),
]


@pytest.mark.parametrize("name,shape,layout", SUM_CASES, ids=[c[0] for c in SUM_CASES])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("device", DEVICES)
def test_sum(device, dtype, name, shape, layout, rng):
    x = make_layout(sum_values(dtype, shape, rng), layout)
    check_layout(x, layout)
    expected = np.sum(x)
    got = myModule.sum(x, device=device)
    assert_sum_close(got, x, expected.dtype)
    if dtype.kind == "i":
        assert got == expected


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_sum_default_and_auto_device(dtype, rng):
    """device='auto' (the default), also at a size where the GPU may be picked."""
    for n in (1000, 2 ** 22 + 5):
        x = sum_values(dtype, n, rng)
        for kw in ({}, {"device": "auto"}):
            assert_sum_close(myModule.sum(x, **kw), x, np.sum(x).dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_sum_int_dtypes_accumulate_in_int64(device):
    ii = np.iinfo(np.int32)
    x = np.full(1000, ii.max, dtype=np.int32)
    got = myModule.sum(x, device=device)
    assert got.dtype == np.int64 and got == 1000 * ii.max == np.sum(x)
    x = np.full(1000, ii.min, dtype=np.int32)
    got = myModule.sum(x, device=device)
    assert got.dtype == np.int64 and got == 1000 * ii.min == np.sum(x)


@pytest.mark.parametrize("n", [2, 257, 10 ** 5])
@pytest.mark.parametrize("device", DEVICES)
def test_sum_int64_wraparound(device, n):
    ii = np.iinfo(np.int64)
    x = np.full(n, ii.max, dtype=np.int64)
    x[-1] = 1 if n == 2 else x[-1]
    expected = np.sum(x)
    got = myModule.sum(x, device=device)
    assert got.dtype == np.int64
    assert got == expected == exact_int_sum(x)
    if n == 2:
        assert got == ii.min  # int64 max + 1 wraps


@pytest.mark.parametrize("n,pos", [(1, 0), (257, 256), (257, 0), (10 ** 5 + 1, 77777), (10 ** 6, 10 ** 6 - 1)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("device", DEVICES)
def test_sum_nan_and_inf_propagate(device, dtype, n, pos, rng):
    base = sum_values(dtype, n, rng)
    fi = np.finfo(dtype)
    cases = [
        ({pos: np.nan}, "nan"),
        ({pos: np.inf}, "inf"),
        ({pos: -np.inf}, "-inf"),
        ({pos: np.inf, 0: -np.inf} if pos != 0 else {0: np.nan}, "nan"),
        ({pos: np.inf, 0: np.nan} if pos != 0 else {0: np.nan}, "nan"),
    ]
    if n >= 2:
        cases.append(({0: fi.max, pos: fi.max} if pos != 0 else {0: fi.max, 1: fi.max}, "inf"))
    for changes, want in cases:
        x = base.copy()
        for i, v in changes.items():
            x[i] = v
        expected = np.sum(x)
        got = myModule.sum(x, device=device)
        assert got.dtype == expected.dtype == dtype
        if want == "nan":
            assert np.isnan(got) and np.isnan(expected), (changes, got)
        else:
            assert got == expected == float(want), (changes, got, expected)


@pytest.mark.parametrize("device", DEVICES)
def test_sum_of_array_likes_and_scalars(device):
    for x in (5, 2.5, [1, 2, 3], [1.5, 2], [[1, 2], [3, 4]], np.int32(7), np.float32(0.5), ()):
        expected = np.sum(x)
        got = myModule.sum(x, device=device)
        assert isinstance(got, np.generic)
        assert got.dtype == expected.dtype and got == expected, (x, got, expected)


@pytest.mark.parametrize("device", DEVICES)
def test_sum_zero_sign(device):
    """NumPy 2 starts a float sum from its identity +0.0, so sums of -0.0 alone
    are +0.0 (NumPy 1 returned the lone element, -0.0): the sign is NumPy's."""
    for dtype in FLOAT_DTYPES:
        for x in (np.array([-0.0], dtype), np.full(1000, -0.0, dtype), np.zeros(0, dtype)):
            got, expected = myModule.sum(x, device=device), np.sum(x)
            assert got == 0 and got.dtype == expected.dtype == dtype
            assert np.signbit(got) == np.signbit(expected), (x.size, got, expected)
            mean = myModule.mean(x, device=device) if x.size else np.float64(0)
            assert x.size == 0 or np.signbit(mean) == np.signbit(np.mean(x))


# ------------------------------------------------------------ trace

TRACE_SHAPES = [(5, 5), (3, 7), (7, 3), (1, 1), (0, 0), (0, 3), (3, 0), (1, 9), (100, 100), (401, 399)]


def check_trace(got, a):
    expected = np.trace(a)
    assert isinstance(got, np.generic), "trace should give a NumPy scalar, got %r" % type(got)
    assert got.dtype == expected.dtype, "dtype %s, np.trace's %s" % (got.dtype, expected.dtype)
    if a.dtype.kind == "i":
        assert got == expected
    else:
        diag = np.diagonal(a)
        assert_sum_close(got, diag, expected.dtype)


@pytest.mark.parametrize("shape", TRACE_SHAPES, ids=["x".join(map(str, s)) for s in TRACE_SHAPES])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("device", DEVICES)
def test_trace_shapes(device, dtype, shape, rng):
    a = sum_values(dtype, shape, rng)
    check_trace(myModule.trace(a, device=device), a)
    # integer-valued floats sum exactly: the same value as np.trace, bit for bit
    b = rng.integers(-1000, 1000, size=shape).astype(dtype)
    got = myModule.trace(b, device=device)
    assert got == np.trace(b) and got.dtype == np.trace(b).dtype


TRACE_LAYOUTS = {
    "C": lambda a: a,
    "F": lambda a: np.asfortranarray(a),
    "transposed": lambda a: a.T,
    "strided": lambda a: make_layout(a, "strided"),
    "rows-reversed": lambda a: a[::-1],
    "cols-reversed": lambda a: a[:, ::-1],
    "both-reversed": lambda a: make_layout(a, "reversed"),
    "sliced": lambda a: a[1:-1:2, ::3],
    "byteswapped": lambda a: make_layout(a, "byteswapped"),
    "misaligned": lambda a: make_layout(a, "misaligned"),
    "broadcast": lambda a: np.broadcast_to(a[:1], a.shape),
}


@pytest.mark.parametrize("layout", list(TRACE_LAYOUTS))
@pytest.mark.parametrize("shape", [(9, 9), (8, 13), (13, 8)], ids=["9x9", "8x13", "13x8"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("device", DEVICES)
def test_trace_layouts(device, dtype, shape, layout, rng):
    a = TRACE_LAYOUTS[layout](sum_values(dtype, shape, rng))
    check_trace(myModule.trace(a, device=device), a)


@pytest.mark.parametrize("device", DEVICES)
def test_trace_of_lists_and_special_values(device):
    assert myModule.trace([[1, 2], [3, 4]], device=device) == 5
    assert myModule.trace([[1, 2], [3, 4]], device=device).dtype == np.trace([[1, 2], [3, 4]]).dtype
    for dtype in FLOAT_DTYPES:
        a = np.eye(3, dtype=dtype)
        a[1, 1] = np.nan
        assert np.isnan(myModule.trace(a, device=device))
        a[1, 1] = np.inf
        assert myModule.trace(a, device=device) == np.inf
    for dtype in INT_DTYPES:
        ii = np.iinfo(dtype)
        a = np.full((3, 3), ii.max, dtype=dtype)
        got = myModule.trace(a, device=device)
        assert got == np.trace(a) and got.dtype == np.trace(a).dtype


@pytest.mark.parametrize("bad", [np.ones(3), np.ones((2, 2, 2)), np.array(5.0), 5, 2.5, [[[1]]], [1, 2]],
                         ids=["1d", "3d", "0d", "int", "float", "nested3d", "list1d"])
@pytest.mark.parametrize("device", ["auto", "cpu", "cuda"])
def test_trace_needs_2d(device, bad):
    """ndim != 2 is a ValueError, on every device (before any CUDA call)."""
    with pytest.raises(ValueError):
        myModule.trace(bad, device=device)
