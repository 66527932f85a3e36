"""The standard's integer dtypes beside int32 and int64 (int8, int16, uint8, uint16,
uint32, uint64), held to NumPy:

- no GPU needed: the library's one promotion (va_promote_types) against
  numpy.promote_types for every pair of supported dtypes; the array API namespace's
  dtype functions (iinfo, isdtype, result_type, can_cast, the info object) over them;
  host arrays of each on the CPU path.
- on the GPU: round trips, casts between every pair, the exchange protocols' type
  codes (__cuda_array_interface__ typestr, DLPack code and bits) with CuPy and
  PyTorch where they are, Python scalars that do not fit (OverflowError, as NumPy
  2), and float-to-integer casts of values in range.
The operations themselves are tested over every dtype by test_ops.py (from the op
table), and sorting, scans, searching, sets and axis reductions by their own files.
"""
import itertools

import numpy as np
import pytest

import myModule
import myModule.array_api as xp
from conftest import ALL_DTYPES, ALL_DTYPE_IDS, Raised, assert_same_result, outcome, requires_gpu

NEW = [np.dtype(n) for n in ("int8", "int16", "uint8", "uint16", "uint32", "uint64")]
NEW_IDS = [d.name for d in NEW]


def test_the_library_has_every_integer_of_the_standard():
    names = {d.name for d in ALL_DTYPES}
    assert names == {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                     "float32", "float64"}


@pytest.mark.parametrize("a", ALL_DTYPES, ids=ALL_DTYPE_IDS)
def test_promotion_is_numpys(a):
    for b in ALL_DTYPES:
        assert myModule._core._promote_types(a, b) == np.promote_types(a, b), (a, b)


@pytest.mark.parametrize("dtype", NEW, ids=NEW_IDS)
def test_array_api_dtype_functions(dtype):
    d = getattr(xp, dtype.name)
    assert d == dtype
    info = xp.iinfo(d)
    assert (info.min, info.max, info.bits) == (np.iinfo(dtype).min, np.iinfo(dtype).max, np.iinfo(dtype).bits)
    kind = "unsigned integer" if dtype.kind == "u" else "signed integer"
    assert xp.isdtype(d, kind) and xp.isdtype(d, "integral") and xp.isdtype(d, "numeric")
    assert not xp.isdtype(d, "real floating") and not xp.isdtype(d, "bool")
    assert dtype.name in xp.__array_namespace_info__().dtypes(kind=kind)
    assert dtype.name in xp.__array_namespace_info__().dtypes()
    for other in ALL_DTYPES:
        assert xp.result_type(d, other) == np.promote_types(dtype, other)
        assert xp.can_cast(d, other) == np.can_cast(dtype, other), (dtype, other)
    assert xp.result_type(d, 1) == dtype
    assert xp.result_type(d, 1.0) == np.float64


@pytest.mark.parametrize("dtype", NEW, ids=NEW_IDS)
def test_cpu_path_of_each_dtype(dtype, rng):
    ii = np.iinfo(dtype)
    a = rng.integers(ii.min, ii.max, size=(4, 5), endpoint=True, dtype=dtype)
    b = rng.integers(ii.min, ii.max, size=(4, 5), endpoint=True, dtype=dtype)
    for f, ref in ((myModule.add, np.add), (myModule.multiply, np.multiply), (myModule.maximum, np.maximum),
                   (myModule.floor_divide, np.floor_divide), (myModule.less, np.less)):
        assert_same_result(outcome(lambda: f(a, b, device="cpu")), outcome(lambda: ref(a, b)))
    assert_same_result(myModule.sum(a, device="cpu"), np.sum(a))


# ------------------------------------------------------------------ GPU


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("dtype", NEW, ids=NEW_IDS)
def test_round_trip_and_views(dtype, rng):
    ii = np.iinfo(dtype)
    a = rng.integers(ii.min, ii.max, size=(33, 17), endpoint=True, dtype=dtype)
    d = myModule.to_device(a)
    assert d.dtype == dtype
    np.testing.assert_array_equal(d.get(), a)
    np.testing.assert_array_equal(d[::-2, 3::4].get(), a[::-2, 3::4])
    np.testing.assert_array_equal(d.T.copy().get(), a.T)
    assert d.__cuda_array_interface__["typestr"] == a.dtype.str


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("src", ALL_DTYPES, ids=ALL_DTYPE_IDS)
def test_casts_between_every_pair(src, rng):
    if src.kind == "f":
        # Values every integer holds: NumPy's casts of out-of-range floats are the
        # processor's and differ between its own loops (bench/NOTES.md, dtypes).
        a = rng.integers(0, 100, size=257).astype(src) + src.type(0.5)
    elif src.kind == "b":
        a = rng.random(257) < 0.5
    else:
        ii = np.iinfo(src)
        a = rng.integers(ii.min, ii.max, size=257, endpoint=True, dtype=src)
    d = myModule.to_device(a)
    for dst in ALL_DTYPES:
        got = d.astype(dst)
        assert got.dtype == dst
        np.testing.assert_array_equal(got.get(), a.astype(dst), err_msg="%s -> %s" % (src, dst))
        np.testing.assert_array_equal(d[::-3].astype(dst).get(), a[::-3].astype(dst))


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("dtype", NEW, ids=NEW_IDS)
def test_python_scalars_that_do_not_fit_raise_as_numpys(dtype):
    ii = np.iinfo(dtype)
    a = np.arange(5).astype(dtype)
    d = myModule.to_device(a)
    for value in (ii.max + 1, ii.min - 1, 1, ii.max):
        expected = outcome(lambda: np.add(a, value))
        got = outcome(lambda: myModule.add(d, value))
        if isinstance(expected, Raised):
            assert isinstance(got, Raised) and type(got.exc) is type(expected.exc), (value, got)
        else:
            assert_same_result(got.get(), expected)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("dtype", NEW, ids=NEW_IDS)
def test_exchange_with_cupy_and_torch(dtype, rng):
    ii = np.iinfo(dtype)
    a = rng.integers(ii.min, ii.max, size=1000, endpoint=True, dtype=dtype)
    d = myModule.to_device(a)
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None:
        c = cupy.asarray(d)
        assert c.dtype == dtype
        np.testing.assert_array_equal(cupy.asnumpy(c), a)
        back = myModule.asarray(c[::2])
        np.testing.assert_array_equal(back.get(), a[::2])
        np.testing.assert_array_equal(myModule.from_dlpack(cupy.asarray(a)).get(), a)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        tdtype = getattr(torch, dtype.name, None)
        if tdtype is not None:
            t = torch.from_dlpack(d)
            assert str(t.dtype) == "torch." + dtype.name
            np.testing.assert_array_equal(myModule.from_dlpack(t).get(), a)
    if cupy is None and torch is None:
        pytest.skip("neither CuPy nor PyTorch is installed")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("dtype", NEW, ids=NEW_IDS)
def test_every_arithmetic_rule_of_a_narrow_integer(dtype):
    # The wrap-around and edge rules, exhaustively for the 8-bit types.
    ii = np.iinfo(dtype)
    if dtype.itemsize == 1:
        grid = np.arange(ii.min, ii.max + 1).astype(dtype)
        a, b = (g.ravel() for g in np.meshgrid(grid, grid))
    else:
        edges = np.array([ii.min, ii.min + 1, ii.max, ii.max - 1, 0, 1, 2, 3, 7] +
                         ([-1, -2, -3] if ii.min < 0 else [])).astype(dtype)
        a, b = (g.ravel() for g in np.meshgrid(edges, edges))
    da, db = myModule.to_device(a), myModule.to_device(b)
    with np.errstate(all="ignore"):
        for name in ("add", "subtract", "multiply", "floor_divide", "remainder", "maximum", "minimum",
                     "bitwise_and", "bitwise_xor", "left_shift", "right_shift", "less", "equal",
                     "divide"):
            expected = getattr(np, name)(a, b)
            got = getattr(myModule, name)(da, db).get()
            assert_same_result(got, expected)
        for name in ("negative", "absolute", "sign", "invert", "square", "reciprocal", "positive"):
            expected = getattr(np, name)(a)
            got = getattr(myModule, name)(da).get()
            assert_same_result(got, expected)
    for f in (np.sum, np.prod, np.max, np.min, np.argmax, np.mean):
        got = getattr(myModule, f.__name__)(da)
        got = got.get() if hasattr(got, "get") else got
        assert_same_result(np.asarray(got), np.asarray(f(a)))
