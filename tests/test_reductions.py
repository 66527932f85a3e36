"""sum and trace on host arrays, against NumPy and exact sums, in every dtype
of the library (conftest.EVERY_DTYPE: bool, the eight integers, the two floats,
complex64 and complex128).

sum: np.sum's dtype (bool and signed integers sum into int64, unsigned ones into
uint64); integer and bool sums exact (int64 and uint64 wrap like NumPy's); float
sums np.sum's bits or within rounding of the exact sum, complex ones part by part
(compare_floats.assert_sum_matches); NaN and inf propagate, in either part of a
complex number.
trace: np.trace's value and dtype for 2-D arrays of any strides; ValueError
otherwise.

Neither sum nor trace is refused for complex by decision (COMPLEX_REFUSED_BY_DECISION
holds the orderings), so complex is drawn and held to NumPy, not to a TypeError.
int32, int64, float32 and float64 (conftest.DTYPES) are drawn in every case; the
other dtypes in a reduced set of shapes (MORE_SUM_CASES, MORE_TRACE_SHAPES,
MORE_TRACE_SHAPE), so the products stay small. A one-byte dtype (bool, int8,
uint8) has no byte order and is always aligned: the byteswapped and misaligned
layouts would be its C case again, and are not drawn for it."""
import numpy as np
import pytest

import myModule
from compare_floats import assert_complex_match, assert_sum_matches
from conftest import (ALL_DTYPES, COMPLEX_DTYPES, COMPLEX_REFUSED_BY_DECISION, DEVICES, DTYPES, EVERY_DTYPE,
                      FLOAT_DTYPES, check_layout, exact_int_sum, make_layout, sum_values)

pytestmark = pytest.mark.usefixtures("quiet_numpy")

#: bool and the eight integers: their sums (np.sum, np.trace) are integers, exact
INTEGER_DTYPES = [d for d in ALL_DTYPES if d.kind in "biu"]
#: the floats, real and complex
INEXACT_DTYPES = FLOAT_DTYPES + COMPLEX_DTYPES
#: layouts a one-byte dtype cannot have (no byte order; always aligned)
NOT_FOR_ONE_BYTE = {"byteswapped", "misaligned"}


def ids(dtypes):
    return [d.name for d in dtypes]


def assert_sum_close(got, x, expected_dtype):
    """got is sum(x): a NumPy scalar of expected_dtype, exact for bool and ints;
    for floats np.sum's bits or within rounding of the exact sum (compare_floats),
    with NaN, +-inf and zero signs as np.sum's; complex part by part."""
    assert isinstance(got, np.generic), "sum should give a NumPy scalar, got %r" % type(got)
    assert got.dtype == expected_dtype, "dtype %s, np.sum's %s" % (got.dtype, expected_dtype)
    x = np.asarray(x)
    if x.dtype.kind in "biu":
        assert int(got) == exact_int_sum(x, expected_dtype)
        return
    assert_sum_matches(got, np.sum(x), x)


def test_sum_and_trace_take_complex():
    """Neither op is refused for complex by decision, so the suites below hold
    complex sums and traces to NumPy's; were one added to the refused set, they
    would have to assert its TypeError instead."""
    assert not {"sum", "trace"} & COMPLEX_REFUSED_BY_DECISION


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
#: the cases drawn for the dtypes beyond conftest.DTYPES: every layout, the
#: empty and one-element sums, a multi-block size and a 3-D shape
MORE_SUM_CASES = {"0d", "empty", "1", "257", "1e6", "3d", "fortran", "strided2d", "reversed", "byteswapped",
                  "misaligned", "broadcast"}


def sum_params():
    for dtype in EVERY_DTYPE:
        for name, shape, layout in SUM_CASES:
            if dtype not in DTYPES and name not in MORE_SUM_CASES:
                continue
            if dtype.itemsize == 1 and layout in NOT_FOR_ONE_BYTE:
                continue
            yield pytest.param(dtype, name, shape, layout, id="%s-%s" % (dtype.name, name))


@pytest.mark.parametrize("dtype,name,shape,layout", list(sum_params()))
@pytest.mark.parametrize("device", DEVICES)
def test_sum(device, dtype, name, shape, layout, rng):
    x = make_layout(sum_values(dtype, shape, rng), layout)
    check_layout(x, layout)
    expected = np.sum(x)
    got = myModule.sum(x, device=device)
    assert_sum_close(got, x, expected.dtype)
    if dtype.kind in "biu":
        assert got == expected


@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=ids(EVERY_DTYPE))
def test_sum_default_and_auto_device(dtype, rng):
    """device='auto' (the default), also at a size where the GPU may be picked."""
    for n in (1000, 2 ** 22 + 5):
        x = sum_values(dtype, n, rng)
        for kw in ({}, {"device": "auto"}):
            assert_sum_close(myModule.sum(x, **kw), x, np.sum(x).dtype)


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=ids(INTEGER_DTYPES))
@pytest.mark.parametrize("device", DEVICES)
def test_sum_int_dtypes_accumulate_in_int64(device, dtype):
    """bool and signed integers sum into int64, unsigned ones into uint64 (np.sum's
    dtypes where the default integer is 64-bit): no narrower type wraps."""
    accumulator = np.dtype(np.uint64 if dtype.kind == "u" else np.int64)
    ends = (True,) if dtype.kind == "b" else (np.iinfo(dtype).max, np.iinfo(dtype).min)
    for end in ends:
        x = np.full(1000, end, dtype=dtype)
        got, expected = myModule.sum(x, device=device), np.sum(x)
        assert got.dtype == expected.dtype == accumulator
        assert got == expected == exact_int_sum(x, accumulator), (end, got, expected)
        if dtype.itemsize < 8:
            assert got == 1000 * int(end)  # no wrapping


@pytest.mark.parametrize("dtype", [np.dtype(np.int64), np.dtype(np.uint64)], ids=["int64", "uint64"])
@pytest.mark.parametrize("n", [2, 257, 10 ** 5])
@pytest.mark.parametrize("device", DEVICES)
def test_sum_int64_wraparound(device, n, dtype):
    ii = np.iinfo(dtype)
    x = np.full(n, ii.max, dtype=dtype)
    x[-1] = 1 if n == 2 else x[-1]
    expected = np.sum(x)
    got = myModule.sum(x, device=device)
    assert got.dtype == dtype
    assert got == expected == exact_int_sum(x, dtype)
    if n == 2:
        assert got == ii.min  # int64 max + 1 wraps (to 0 in uint64)


@pytest.mark.parametrize("n,pos", [(1, 0), (257, 256), (257, 0), (10 ** 5 + 1, 77777), (10 ** 6, 10 ** 6 - 1)])
@pytest.mark.parametrize("dtype", INEXACT_DTYPES, ids=ids(INEXACT_DTYPES))
@pytest.mark.parametrize("device", DEVICES)
def test_sum_nan_and_inf_propagate(device, dtype, n, pos, rng):
    """A complex sum is its parts' sums: each case is put in the real part, then
    in the imaginary part, and the other part stays finite and close."""
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
    parts = (np.real, np.imag) if dtype.kind == "c" else (lambda v: v,)
    for changes, want in cases:
        for part in parts:
            x = base.copy()
            for i, v in changes.items():
                part(x)[i] = v
            expected = np.sum(x)
            got = myModule.sum(x, device=device)
            assert got.dtype == expected.dtype == dtype
            g, e = part(got), part(expected)
            if want == "nan":
                assert np.isnan(g) and np.isnan(e), (changes, got)
            else:
                assert g == e == float(want), (changes, got, expected)
            if dtype.kind == "c":
                assert_sum_matches(got, expected, x)


@pytest.mark.parametrize("device", DEVICES)
def test_sum_of_array_likes_and_scalars(device):
    for x in (5, 2.5, [1, 2, 3], [1.5, 2], [[1, 2], [3, 4]], np.int32(7), np.float32(0.5), (),
              True, [True, False, True], 1 + 2j, [1j, 2.5], [[1j, 2], [3, 4]],
              np.uint64(2 ** 64 - 1), [np.uint64(2 ** 63), np.uint64(2 ** 63 + 5)],
              *(d.type(1) for d in EVERY_DTYPE), *([d.type(0), d.type(1)] for d in EVERY_DTYPE)):
        expected = np.sum(x)
        got = myModule.sum(x, device=device)
        assert isinstance(got, np.generic)
        assert got.dtype == expected.dtype and got == expected, (x, got, expected)


@pytest.mark.parametrize("device", DEVICES)
def test_sum_zero_sign(device):
    """NumPy 2 starts a float sum from its identity +0.0, so sums of -0.0 alone
    are +0.0 (NumPy 1 returned the lone element, -0.0): the sign is NumPy's."""
    for dtype in INEXACT_DTYPES:
        # complex: both parts -0.0, each part's sign NumPy's
        zero, parts = (complex(-0.0, -0.0), (np.real, np.imag)) if dtype.kind == "c" else (-0.0, (np.real,))
        for x in (np.array([zero], dtype), np.full(1000, zero, dtype), np.zeros(0, dtype)):
            got, expected = myModule.sum(x, device=device), np.sum(x)
            assert got == 0 and got.dtype == expected.dtype == dtype
            mean = myModule.mean(x, device=device) if x.size else None
            for part in parts:
                assert np.signbit(part(got)) == np.signbit(part(expected)), (x.size, got, expected)
                assert x.size == 0 or np.signbit(part(mean)) == np.signbit(part(np.mean(x)))


# ------------------------------------------------------------ trace

TRACE_SHAPES = [(5, 5), (3, 7), (7, 3), (1, 1), (0, 0), (0, 3), (3, 0), (1, 9), (100, 100), (401, 399)]
#: the shapes drawn for the dtypes beyond conftest.DTYPES
MORE_TRACE_SHAPES = [(5, 5), (3, 7), (7, 3), (1, 1), (0, 3), (401, 399)]


def shape_id(shape):
    return "x".join(map(str, shape))


def check_trace(got, a):
    expected = np.trace(a)
    assert isinstance(got, np.generic), "trace should give a NumPy scalar, got %r" % type(got)
    assert got.dtype == expected.dtype, "dtype %s, np.trace's %s" % (got.dtype, expected.dtype)
    if a.dtype.kind in "biu":
        assert got == expected
    else:
        diag = np.diagonal(a)
        assert_sum_close(got, diag, expected.dtype)


def small_integers(dtype, shape, rng):
    """Integers drawn from [-1000, 1000) that `dtype` holds (0 and 1 for bool), as
    `dtype`; complex ones get integer imaginary parts too. Every sum of up to
    401 of them is exact in every dtype (float32 included)."""
    lo, hi = -1000, 1000
    if dtype.kind == "b":
        lo, hi = 0, 2
    elif dtype.kind in "iu":
        lo, hi = max(lo, int(np.iinfo(dtype).min)), min(hi, int(np.iinfo(dtype).max) + 1)
    b = rng.integers(lo, hi, size=shape).astype(dtype)
    if dtype.kind == "c":
        b.imag = rng.integers(lo, hi, size=shape)
    return b


def trace_shape_params():
    for dtype in EVERY_DTYPE:
        for shape in TRACE_SHAPES if dtype in DTYPES else MORE_TRACE_SHAPES:
            yield pytest.param(dtype, shape, id="%s-%s" % (dtype.name, shape_id(shape)))


@pytest.mark.parametrize("dtype,shape", list(trace_shape_params()))
@pytest.mark.parametrize("device", DEVICES)
def test_trace_shapes(device, dtype, shape, rng):
    a = sum_values(dtype, shape, rng)
    check_trace(myModule.trace(a, device=device), a)
    # integer-valued floats sum exactly: the same value as np.trace, bit for bit
    b = small_integers(dtype, shape, rng)
    got = myModule.trace(b, device=device)
    assert got == np.trace(b) and got.dtype == np.trace(b).dtype
    assert_complex_match(got, np.trace(b), ulp=0)  # bit for bit: zero signs too


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


TRACE_LAYOUT_SHAPES = [(9, 9), (8, 13), (13, 8)]
#: the one shape drawn for the dtypes beyond conftest.DTYPES (every layout)
MORE_TRACE_SHAPE = (8, 13)


def trace_layout_params():
    for dtype in EVERY_DTYPE:
        for shape in TRACE_LAYOUT_SHAPES if dtype in DTYPES else [MORE_TRACE_SHAPE]:
            for layout in TRACE_LAYOUTS:
                if dtype.itemsize == 1 and layout in NOT_FOR_ONE_BYTE:
                    continue
                yield pytest.param(dtype, shape, layout, id="%s-%s-%s" % (dtype.name, shape_id(shape), layout))


@pytest.mark.parametrize("dtype,shape,layout", list(trace_layout_params()))
@pytest.mark.parametrize("device", DEVICES)
def test_trace_layouts(device, dtype, shape, layout, rng):
    a = TRACE_LAYOUTS[layout](sum_values(dtype, shape, rng))
    check_trace(myModule.trace(a, device=device), a)


@pytest.mark.parametrize("device", DEVICES)
def test_trace_of_lists_and_special_values(device):
    assert myModule.trace([[1, 2], [3, 4]], device=device) == 5
    assert myModule.trace([[1, 2], [3, 4]], device=device).dtype == np.trace([[1, 2], [3, 4]]).dtype
    for dtype in INEXACT_DTYPES:
        a = np.eye(3, dtype=dtype)
        a[1, 1] = np.nan
        assert np.isnan(myModule.trace(a, device=device))
        a[1, 1] = np.inf
        assert myModule.trace(a, device=device) == np.inf
        if dtype.kind == "c":  # in either part, the other part's sum kept
            for special in (complex(0, np.inf), complex(-np.inf, np.nan), complex(np.nan, -0.0),
                            complex(2.5, -np.inf)):
                a[1, 1] = special
                assert_complex_match(myModule.trace(a, device=device), np.trace(a), ulp=0)
    for dtype in INTEGER_DTYPES:
        top = True if dtype.kind == "b" else np.iinfo(dtype).max
        a = np.full((3, 3), top, dtype=dtype)
        got = myModule.trace(a, device=device)
        assert got == np.trace(a) and got.dtype == np.trace(a).dtype


@pytest.mark.parametrize("bad", [np.ones(3), np.ones((2, 2, 2)), np.array(5.0), 5, 2.5, [[[1]]], [1, 2],
                                 np.ones(3, np.complex64), np.ones((2, 2, 2), np.uint8), np.array(True), 1j],
                         ids=["1d", "3d", "0d", "int", "float", "nested3d", "list1d", "1d-complex64", "3d-uint8",
                              "0d-bool", "complex"])
@pytest.mark.parametrize("device", ["auto", "cpu", "cuda"])
def test_trace_needs_2d(device, bad):
    """ndim != 2 is a ValueError, on every device (before any CUDA call)."""
    with pytest.raises(ValueError):
        myModule.trace(bad, device=device)
