"""add, subtract, multiply, divide and vector_add* on host arrays, against NumPy.

Every result must equal NumPy's (np.add, np.subtract, np.multiply,
np.true_divide) in value bit for bit (NaN == NaN, the sign of zero checked),
dtype, shape, and scalar-vs-array kind, on every device (SPEC 3: results are
bit-identical whichever side computed them)."""
import array

import numpy as np
import pytest

import myModule
from conftest import (DEVICES, DTYPE_IDS, DTYPE_PAIRS, DTYPES, GPU_MARKS, LAYOUTS, assert_same_result,
                      check_layout, make_layout, outcome, random_values, specials)

pytestmark = pytest.mark.usefixtures("quiet_numpy")

OPS = [
    pytest.param(myModule.add, np.add, id="add"),
    pytest.param(myModule.subtract, np.subtract, id="subtract"),
    pytest.param(myModule.multiply, np.multiply, id="multiply"),
    pytest.param(myModule.divide, np.true_divide, id="divide"),
]

SHAPES = [(), (0,), (1,), (255,), (256,), (257,), (3, 4, 5)]
SHAPE_IDS = ["x".join(map(str, s)) or "0d" for s in SHAPES]


def compare(fn, ref, *args, device=None, **kwargs):
    """fn(*args, device=device) against ref(*args); inputs must not change."""
    before = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
    expected = outcome(lambda: ref(*args, **kwargs))
    dev = {} if device is None else {"device": device}
    got = outcome(lambda: fn(*args, **kwargs, **dev))
    assert_same_result(got, expected)
    for a, b in zip(args, before):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b, err_msg="an input was modified")
    return got


# ------------------------------------------------------------ dtypes and shapes

@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("da,db", DTYPE_PAIRS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_dtype_pairs_and_shapes(fn, ref, device, da, db, shape, rng):
    a = random_values(da, shape, rng)
    b = random_values(db, shape, rng)
    compare(fn, ref, a, b, device=device)


# One layout per dtype (pair) at 10**6 elements, to keep the run short.
BIG = [
    pytest.param(np.int32, np.int32, "byteswapped", id="int32-byteswapped"),
    pytest.param(np.int64, np.int64, "reversed", id="int64-reversed"),
    pytest.param(np.float32, np.float32, "strided", id="float32-strided"),
    pytest.param(np.float64, np.float64, "C", id="float64-C"),
    pytest.param(np.int32, np.float32, "C", id="int32-float32-C"),
    pytest.param(np.float32, np.float64, "misaligned", id="float32-float64-misaligned"),
]


@pytest.mark.parametrize("da,db,layout", BIG)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_big(fn, ref, device, da, db, layout, rng):
    n = 10 ** 6
    a = make_layout(random_values(da, n, rng), layout)
    b = make_layout(random_values(db, n, rng), layout)
    check_layout(a, layout)
    compare(fn, ref, a, b, device=device)


@pytest.mark.parametrize("fn,ref", OPS)
def test_auto_above_threshold(fn, ref, rng):
    """device='auto' (the default) at a size where it may pick the GPU (2**21
    elements and up): NumPy's result, GPU or not."""
    n = 2 ** 21 + 3
    a = random_values(np.float64, n, rng)
    b = random_values(np.float32, n, rng)
    compare(fn, ref, a, b)
    compare(fn, ref, a, b, device="auto")


# ------------------------------------------------------------ layouts

LAYOUT_SHAPES = [(257,), (17, 15), (4, 5, 6)]
OTHER = {"int32": np.float64, "int64": np.int32, "float32": np.int64, "float64": np.float32}


@pytest.mark.parametrize("mix", ["same", "mixed"])
@pytest.mark.parametrize("shape", LAYOUT_SHAPES, ids=["257", "17x15", "4x5x6"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_layouts(fn, ref, device, dtype, layout, shape, mix, rng):
    """same: both operands in `layout`; mixed: one in `layout`, the other a
    C-contiguous array of another dtype, in both orders."""
    a = make_layout(random_values(dtype, shape, rng), layout)
    check_layout(a, layout)
    if mix == "same":
        b = make_layout(random_values(dtype, shape, rng), layout)
        compare(fn, ref, a, b, device=device)
    else:
        b = random_values(OTHER[dtype.name], shape, rng)
        compare(fn, ref, a, b, device=device)
        compare(fn, ref, b, a, device=device)


# ------------------------------------------------------------ broadcasting

BROADCAST = [((3, 1), (1, 4)), ((5,), (2, 3, 5)), ((), (4, 3)), ((1,), (7,)), ((0,), (1,)),
             ((4, 1, 3), (5, 1))]


@pytest.mark.parametrize("sa,sb", BROADCAST, ids=[f"{a}-{b}".replace(" ", "") for a, b in BROADCAST])
@pytest.mark.parametrize("da,db", DTYPE_PAIRS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_broadcasting(fn, ref, device, da, db, sa, sb, rng):
    a = random_values(da, sa, rng)
    b = random_values(db, sb, rng)
    compare(fn, ref, a, b, device=device)
    compare(fn, ref, b, a, device=device)


# ------------------------------------------------------------ special values

@pytest.mark.parametrize("da,db", DTYPE_PAIRS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_all_pairs_of_special_values(fn, ref, device, da, db):
    """Every special of one dtype against every special of the other: NaN, +-inf,
    -0.0, subnormals, max (overflow), iinfo min/max (wrap-around), 0 (x/0)."""
    sa, sb = specials(da), specials(db)
    a = np.repeat(sa, len(sb))
    b = np.tile(sb, len(sa))
    compare(fn, ref, a, b, device=device)


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["int32", "int64"])
@pytest.mark.parametrize("device", DEVICES)
def test_integer_wraparound(device, dtype):
    ii = np.iinfo(dtype)
    top = np.array([ii.max, ii.max, ii.min], dtype=dtype)
    one = np.ones(3, dtype=dtype)
    got = compare(myModule.add, np.add, top, one, device=device)
    assert got[0] == ii.min  # int max + 1 wraps to int min, as in NumPy
    compare(myModule.add, np.add, top, 1, device=device)
    compare(myModule.subtract, np.subtract, -top, 2, device=device)
    compare(myModule.multiply, np.multiply, top, top, device=device)
    compare(myModule.multiply, np.multiply, top, np.full(3, 3, dtype=dtype), device=device)


# ------------------------------------------------------------ scalars

PY_SCALARS = [3, -7, 0, 2 ** 31 - 1, 2 ** 40, 2.5, -0.0, 1e300, float("nan"), float("inf")]
PY_SCALAR_IDS = ["3", "-7", "0", "2**31-1", "2**40", "2.5", "-0.0", "1e300", "nan", "inf"]


@pytest.mark.parametrize("order", ["array-scalar", "scalar-array"])
@pytest.mark.parametrize("scalar", PY_SCALARS, ids=PY_SCALAR_IDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_python_scalar_with_array(fn, ref, device, dtype, scalar, order, rng):
    """NEP 50: a Python scalar takes the array's dtype (a float meets an int
    array as float64); where NumPy raises (2**40 into int32), so must myModule."""
    a = random_values(dtype, (257,), rng)
    args = (a, scalar) if order == "array-scalar" else (scalar, a)
    compare(fn, ref, *args, device=device)


NP_SCALARS = [np.int32(7), np.int64(-3), np.float32(1.5), np.float64(0.1)]
NP_SCALAR_IDS = ["int32(7)", "int64(-3)", "float32(1.5)", "float64(0.1)"]


@pytest.mark.parametrize("scalar", NP_SCALARS, ids=NP_SCALAR_IDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_numpy_scalar_with_array(fn, ref, device, dtype, scalar, rng):
    """NumPy scalars keep their dtype (they are not weak like Python scalars)."""
    a = random_values(dtype, (33,), rng)
    compare(fn, ref, a, scalar, device=device)
    compare(fn, ref, scalar, a, device=device)


SCALARS = [3, 2.5, -0.0, np.int32(5), np.int64(-4), np.float32(0.5), np.float64(2.0)]
SCALAR_IDS = ["3", "2.5", "-0.0", "int32(5)", "int64(-4)", "float32(0.5)", "float64(2.0)"]


@pytest.mark.parametrize("y", SCALARS, ids=SCALAR_IDS)
@pytest.mark.parametrize("x", SCALARS, ids=SCALAR_IDS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_scalar_with_scalar(fn, ref, device, x, y):
    """Scalars in give a NumPy scalar out, of NumPy's dtype."""
    got = compare(fn, ref, x, y, device=device)
    assert isinstance(got, np.generic)


@pytest.mark.parametrize("device", [None, "auto"] + DEVICES)
def test_scalar_examples_from_spec(device):
    kw = {} if device is None else {"device": device}
    r = myModule.add(3, 3, **kw)
    assert r == 6 and isinstance(r, np.generic) and r.dtype == np.int64
    r = myModule.divide(999, 9, **kw)
    assert r == 111.0 and isinstance(r, np.generic) and r.dtype == np.float64
    r = myModule.subtract(2.5, 1, **kw)
    assert r == 1.5 and isinstance(r, np.floating)
    r = myModule.multiply(-0.0, 5, **kw)
    assert r == 0 and np.signbit(r)


# Each operation keeps its last dtype decision for the next call with the same
# input kinds: a call whose kinds differ from the one before must never reuse it.
KIND_SEQUENCE = [
    (np.int8, np.int8), (np.int8, 1), (np.int8, 1.5), (np.int8, np.int8), (np.uint8, np.int8),
    (np.uint8, np.int8), (np.bool_, np.bool_), (np.float32, 2.0), (np.float32, np.float64),
    (np.int64, np.uint64), (np.int64, np.uint64), (np.int8, np.int8), (np.float32, 1j),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_dtypes_of_calls_in_a_row(fn, ref, device, rng):
    for da, b in KIND_SEQUENCE + KIND_SEQUENCE[::-1]:
        a = random_values(np.dtype(da), (5,), rng)
        if not isinstance(b, (int, float, complex)):
            b = random_values(np.dtype(b), (5,), rng)
        if fn is myModule.subtract and a.dtype == np.bool_:
            continue  # NumPy refuses bool - bool; test_dtype_pairs_and_shapes covers it
        compare(fn, ref, a, b, device=device)


class _ShiftyArray:
    """An array-like whose __array__ gives int8 and float64 in turn."""

    def __init__(self):
        self.calls = 0

    def __array__(self, dtype=None, copy=None):
        self.calls += 1
        a = np.arange(-2, 3, dtype=np.int8 if self.calls % 2 else np.float64)
        return a if dtype is None else a.astype(dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_an_array_like_changing_its_dtype_between_calls(device):
    """The remembered dtype decision is keyed on what each call's operands are."""
    x = _ShiftyArray()
    for k in range(4):
        got = myModule.add(x, np.int8(3), device=device)
        assert x.calls == k + 1
        expected = np.add(np.arange(-2, 3, dtype=np.int8 if k % 2 == 0 else np.float64), np.int8(3))
        assert_same_result(got, expected)


# ------------------------------------------------------------ array-likes

ARRAY_LIKES = [
    pytest.param(lambda: [1, 2, 3], lambda: [4, 5, -6], id="lists-int"),
    pytest.param(lambda: [1.5, -2.0, 3.25], lambda: (4, 5, 6), id="list-tuple"),
    pytest.param(lambda: [[1, 2], [3, 4]], lambda: [10, 20], id="nested-list-broadcast"),
    pytest.param(lambda: array.array("d", [1.0, 2.0, 3.0]), lambda: array.array("i", [1, 0, 3]),
                 id="array.array"),
    pytest.param(lambda: memoryview(np.arange(5, dtype=np.int32)),
                 lambda: memoryview(np.linspace(0, 1, 5, dtype=np.float32)), id="memoryview"),
    pytest.param(lambda: [1, 2, 3], lambda: np.arange(3, dtype=np.float32), id="list-ndarray"),
]


@pytest.mark.parametrize("make_a,make_b", ARRAY_LIKES)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_array_likes(fn, ref, device, make_a, make_b):
    """Anything NumPy converts (lists, tuples, buffer-protocol objects)."""
    expected = outcome(lambda: ref(make_a(), make_b()))
    got = outcome(lambda: fn(make_a(), make_b(), device=device))
    assert_same_result(got, expected)


# ------------------------------------------------------------ out=

def result_dtype(ref, da, db):
    return ref(np.ones(1, da), np.ones(1, db)).dtype


@pytest.mark.parametrize("da,db", DTYPE_PAIRS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_out_fresh(fn, ref, device, da, db, rng):
    a = random_values(da, (4, 65), rng)
    b = random_values(db, (65,), rng)
    out = np.full((4, 65), 123, dtype=result_dtype(ref, da, db))
    expected = outcome(lambda: ref(a, b))
    got = fn(a, b, out=out, device=device)
    assert got is out
    assert_same_result(out, expected)


@pytest.mark.parametrize("do", DTYPES, ids=["out_" + n for n in DTYPE_IDS])
@pytest.mark.parametrize("da,db", DTYPE_PAIRS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_out_dtype(fn, ref, device, da, db, do, rng):
    """An out of any supported dtype: where same_kind casting allows it, NumPy's
    values (computed in the result dtype, then cast); where not (a float result
    into an int out), TypeError, as NumPy raises."""
    a = random_values(da, (129,), rng)
    b = random_values(db, (129,), rng)
    out_ref = np.full(129, 7, dtype=do)
    out = out_ref.copy()
    expected = outcome(lambda: ref(a, b, out=out_ref))
    got = outcome(lambda: fn(a, b, out=out, device=device))
    if np.can_cast(result_dtype(ref, da, db), do, "same_kind"):
        assert got is out
        assert_same_result(out, out_ref)
    else:
        assert isinstance(expected.exc, TypeError)
        assert_same_result(got, expected)
        assert isinstance(got.exc, TypeError)
        np.testing.assert_array_equal(out, np.full(129, 7, dtype=do))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_out_not_castable_raises_type_error(fn, ref, device):
    a = np.linspace(0, 1, 10)
    with pytest.raises(TypeError):
        fn(a, a, out=np.empty(10, np.int32), device=device)
    with pytest.raises(TypeError):
        fn(a, 2, out=np.empty(10, np.int64), device=device)
    i = np.arange(10, dtype=np.int32)
    if ref is np.true_divide:  # int / int is float64: not into an int out
        with pytest.raises(TypeError):
            fn(i, i, out=np.empty(10, np.int32), device=device)


@pytest.mark.parametrize("out_shape,sa,sb", [((4,), (5,), (5,)), ((1, 5), (3, 5), (5,)),
                                             ((3, 4), (3, 5), (3, 5)), ((), (2,), (2,)),
                                             ((5,), (3, 5), (3, 5))])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_out_wrong_shape_raises_value_error(fn, ref, device, out_shape, sa, sb):
    a, b = np.ones(sa), np.ones(sb)
    with pytest.raises(ValueError):
        ref(a, b, out=np.empty(out_shape))
    out = np.full(out_shape, 5.0)
    with pytest.raises(ValueError):
        fn(a, b, out=out, device=device)
    np.testing.assert_array_equal(out, np.full(out_shape, 5.0))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_out_broadcasts_inputs(fn, ref, device, rng):
    """An out bigger than the inputs' broadcast shape is filled as NumPy fills it."""
    a = random_values(np.float64, (5,), rng)
    b = random_values(np.int32, (1,), rng)
    out, out_ref = np.empty((3, 5)), np.empty((3, 5))
    ref(a, b, out=out_ref)
    assert fn(a, b, out=out, device=device) is out
    assert_same_result(out, out_ref)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_out_with_scalar_inputs(fn, ref, device):
    out, out_ref = np.empty((), np.float64), np.empty((), np.float64)
    ref(999, 9, out=out_ref)
    assert fn(999, 9, out=out, device=device) is out
    assert_same_result(out, out_ref)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_out_read_only_raises_value_error(fn, ref, device):
    a = np.ones(4)
    out = np.zeros(4)
    out.flags.writeable = False
    with pytest.raises(ValueError):
        ref(a, a, out=out)
    with pytest.raises(ValueError):
        fn(a, a, out=out, device=device)
    assert not out.any()


@pytest.mark.parametrize("layout", ["F", "strided", "reversed", "byteswapped", "misaligned"])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_out_layouts(fn, ref, device, layout, rng):
    """out itself non-contiguous, negatively strided, byte-swapped or misaligned."""
    a = random_values(np.float64, (6, 9), rng)
    b = random_values(np.float32, (6, 9), rng)
    out = make_layout(np.zeros((6, 9)), layout)
    check_layout(out, layout)
    out_ref = make_layout(np.zeros((6, 9)), layout)
    ref(a, b, out=out_ref)
    assert fn(a, b, out=out, device=device) is out
    assert_same_result(out, out_ref)


ALIAS = ["out=a", "out=b", "out=a=b"]


@pytest.mark.parametrize("n", [257, 10 ** 6], ids=["257", "1e6"])
@pytest.mark.parametrize("alias", ALIAS)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_out_aliasing_an_input(fn, ref, device, dtype, alias, n, rng):
    """out is one of the inputs (in-place): NumPy's values, the same object back;
    where NumPy refuses the cast (int / int into an int out), TypeError."""
    if n > 1000 and dtype != np.float64:
        pytest.skip("the big size once per op (float64)")
    a0 = random_values(dtype, (n,), rng)
    b0 = random_values(dtype, (n,), rng)
    results = []
    for f in (ref, fn):
        a, b = a0.copy(), b0.copy()
        kw = {} if f is ref else {"device": device}
        if alias == "out=a":
            results.append((outcome(lambda: f(a, b, out=a, **kw)), a))
        elif alias == "out=b":
            results.append((outcome(lambda: f(a, b, out=b, **kw)), b))
        else:
            results.append((outcome(lambda: f(a, a, out=a, **kw)), a))
    (expected, out_ref), (got, out) = results
    if hasattr(expected, "exc"):
        assert_same_result(got, expected)
    else:
        assert got is out
        assert_same_result(out, out_ref)


@pytest.mark.parametrize("n", [257, 10 ** 6], ids=["257", "1e6"])
@pytest.mark.parametrize("case", ["shift-up", "shift-down", "reversed"])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,ref", OPS)
def test_out_overlapping_an_input(fn, ref, device, case, n, rng):
    """out overlaps an input without being the same view: NumPy's results are
    as if the inputs were read before anything is written."""
    base0 = random_values(np.float64, (n + 1,), rng)
    b0 = random_values(np.float64, (n,), rng)
    bases = []
    for f in (ref, fn):
        base, b = base0.copy(), b0.copy()
        kw = {} if f is ref else {"device": device}
        if case == "shift-up":
            f(base[:-1], b, out=base[1:], **kw)
        elif case == "shift-down":
            f(base[1:], b, out=base[:-1], **kw)
        else:
            f(base[:-1], b, out=base[:-1][::-1], **kw)
        bases.append(base)
    assert_same_result(bases[1], bases[0])


# ------------------------------------------------------------ vector_add*

VECTOR_ADDS = [
    pytest.param(myModule.vector_add, id="vector_add"),
    pytest.param(myModule.vector_add_cpu, id="vector_add_cpu"),
    pytest.param(myModule.vector_add_cuda, id="vector_add_cuda", marks=GPU_MARKS),
]


@pytest.mark.parametrize("shape", [(), (0,), (1,), (257,), (3, 4, 5), (10 ** 6,)],
                         ids=["0d", "0", "1", "257", "3x4x5", "1e6"])
@pytest.mark.parametrize("da,db", DTYPE_PAIRS)
@pytest.mark.parametrize("fn", VECTOR_ADDS)
def test_vector_add(fn, da, db, shape, rng):
    if shape == (10 ** 6,) and da != db:
        pytest.skip("the big size for same-dtype pairs only")
    a = random_values(da, shape, rng)
    b = random_values(db, shape, rng)
    compare(fn, np.add, a, b)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fn", VECTOR_ADDS)
def test_vector_add_layouts_scalars_out(fn, layout, rng):
    a = make_layout(random_values(np.float32, (9, 11), rng), layout)
    b = make_layout(random_values(np.int64, (9, 11), rng), layout)
    compare(fn, np.add, a, b)
    compare(fn, np.add, a, 2.5)
    compare(fn, np.add, 7, b)
    r = fn(3, 3)
    assert r == 6 and isinstance(r, np.generic)
    out, out_ref = np.empty((9, 11)), np.empty((9, 11))
    np.add(a, b, out=out_ref)
    assert fn(a, b, out=out) is out
    assert_same_result(out, out_ref)
    with pytest.raises(ValueError):
        fn(a, b, out=np.empty((9, 10)))
    with pytest.raises(TypeError):
        fn(a, b, out=np.empty((9, 11), np.int32))


@pytest.mark.parametrize("device", DEVICES)
def test_scalar_with_empty_2d_array(device):
    # found by tests/test_properties.py: an empty (0, 0) result has strides that
    # are not C-contiguous by the formula, and must still be accepted
    a = np.empty((0, 0), dtype=np.int32)
    got = myModule.add(0, a, device=device)
    assert got.shape == (0, 0) and got.dtype == np.int32
