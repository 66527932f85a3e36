"""Property tests (Hypothesis): myModule against NumPy on random inputs.

- add/subtract/multiply/divide on device "cpu" and "cuda": random dtypes
  (int32, int64, float32, float64, Python int/float scalars), random broadcastable
  shapes (0-d and empty included), random layouts (transposed, reversed, strided)
  and values with NaN, +-inf, -0.0, subnormals and the integer extremes. The result
  (or the exception class, where NumPy raises) must be NumPy's: value bit for bit,
  dtype, shape and scalar-vs-array kind.
- Error parity: shapes that do not broadcast raise ValueError like NumPy; an
  unsupported dtype (float16, complex64, complex128, Python complex)
  in either position raises TypeError, even where NumPy would compute (SPEC 3:
  supported dtypes only).
- sum and trace: NumPy's dtype; ints exactly NumPy's value, floats within 1e-6
  (float32) / 1e-12 (float64) of sum(|x|).
- Device arrays (GPU): to_device(x) (and reversed/transposed device views), the
  operation, then .get() equals NumPy.

The examples are derandomized (the same on every run) and the database is off, so
a run leaves no .hypothesis folder behind and failures are reproducible.
"""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import myModule
from conftest import DEVICES, Raised, assert_same_result, outcome, quick, requires_gpu
from gpu_helpers import reversed_view, transposed_view

settings.register_profile(
    "mymodule-properties",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=quick(300, 30),
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much],
)
# Applied per test (not load_profile) so that other test modules' settings are untouched.
PROFILE = settings.get_profile("mymodule-properties")
MANY = settings(PROFILE, max_examples=quick(1000, 60))
FEW = settings(PROFILE, max_examples=quick(150, 15))

pytestmark = pytest.mark.usefixtures("quiet_numpy")

SUPPORTED = [np.dtype(t) for t in (np.int32, np.int64, np.float32, np.float64)]
UNSUPPORTED = [np.dtype(np.float16)]  # hypothesis draws no float128; complex is supported

OPS = {
    "add": (myModule.add, np.add),
    "subtract": (myModule.subtract, np.subtract),
    "multiply": (myModule.multiply, np.multiply),
    "divide": (myModule.divide, np.true_divide),
}
OP_NAMES = sorted(OPS)

LAYOUTS = ["C", "T", "reversed", "strided"]


# ------------------------------------------------------------------ strategies

def elements(dtype, bounded=False):
    """Element values of `dtype`: the extremes and specials often. With `bounded`,
    floats are finite and small enough that no sum of a few thousand overflows
    (sums are only order-independent without overflow)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        ii = np.iinfo(dtype)
        return st.one_of(
            st.integers(int(ii.min), int(ii.max)),
            st.integers(max(int(ii.min), -1000), min(int(ii.max), 1000)),
            st.sampled_from([int(ii.min), int(ii.max), int(ii.min) + 1, int(ii.max) - 1, int(ii.min) + 2, 0, 1]),
        )
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind == "c":
        return st.complex_numbers(allow_nan=True, allow_infinity=True, width=8 * dtype.itemsize)
    width = 8 * dtype.itemsize
    if bounded:
        cap = float(np.float32(1e30)) if width == 32 else 1e300
        return st.floats(-cap, cap, width=width, allow_nan=False, allow_infinity=False)
    fi = np.finfo(dtype)
    specials = [math.nan, math.inf, -math.inf, -0.0, 0.0, float(fi.max), -float(fi.max),
                float(fi.tiny), float(fi.smallest_subnormal), -float(fi.smallest_subnormal)]
    return st.one_of(st.floats(width=width, allow_nan=True, allow_infinity=True),
                     st.sampled_from(specials))


def with_layout(x, layout):
    """An array equal to x (values, shape, dtype) with the memory layout asked for."""
    x = np.asarray(x)
    if x.ndim == 0 or layout == "C":
        return x.copy()
    if layout == "T":  # Fortran order: the transpose of a C array
        return np.ascontiguousarray(x.T).T
    if layout == "reversed":  # every stride negative
        idx = (slice(None, None, -1),) * x.ndim
        return x[idx].copy()[idx]
    if layout == "strided":  # every axis a [::2] of a bigger buffer filled with junk
        buf = np.empty(tuple(2 * n for n in x.shape), dtype=x.dtype)
        buf[...] = 7 if x.dtype.kind != "b" else True
        idx = (slice(None, None, 2),) * x.ndim
        buf[idx] = x
        return buf[idx]
    raise ValueError(layout)


@st.composite
def arrays_of(draw, dtype, shape, bounded=False):
    x = draw(hnp.arrays(dtype, shape, elements=elements(dtype, bounded)))
    return with_layout(x, draw(st.sampled_from(LAYOUTS)))


python_ints = st.one_of(
    st.integers(-1000, 1000),
    st.integers(-(2**63), 2**63 - 1),
    st.sampled_from([2**31 - 1, -(2**31), 2**31, -(2**31) - 1, 2**63 - 1, -(2**63), 0, -1]),
    # past int64: NumPy raises OverflowError with integer arrays, converts for floats
    st.sampled_from([2**63, -(2**63) - 1, 2**64, 2**100, -(2**200), 2**1100]),
)
python_floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 0.0, 0.5, 1e300, 5e-324]),
)


@st.composite
def operands(draw, shape, dtypes=SUPPORTED, scalars=True):
    """A host array of `shape` (random dtype and layout), or, for a 0-d shape now
    and then, a Python int/float (a weak scalar)."""
    if scalars and shape == () and draw(st.integers(0, 2)) == 0:
        return draw(st.one_of(python_ints, python_floats))
    dtype = draw(st.sampled_from(dtypes))
    return draw(arrays_of(dtype, shape))


def shapes_pair(max_dims=4, max_side=5):
    return hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=max_dims,
                                             min_side=0, max_side=max_side)


@st.composite
def binary_cases(draw):
    """(op name, a, b) with broadcastable shapes."""
    name = draw(st.sampled_from(OP_NAMES))
    shapes = draw(shapes_pair()).input_shapes
    # 0-d inputs are likelier to become Python scalars when drawn as () here.
    a = draw(operands(shapes[0]))
    b = draw(operands(shapes[1]))
    return name, a, b


@st.composite
def nonbroadcastable_shapes(draw):
    """Two shapes that NumPy cannot broadcast together (one axis with sizes that
    differ and neither of which is 1)."""
    nd_a = draw(st.integers(1, 4))
    nd_b = draw(st.integers(1, 4))
    side = st.integers(0, 5)
    a = [draw(side) for _ in range(nd_a)]
    b = [draw(side) for _ in range(nd_b)]
    k = draw(st.integers(1, min(nd_a, nd_b)))  # the clashing axis, from the right
    s = draw(st.sampled_from([0, 2, 3, 4, 5]))
    t = draw(st.sampled_from([v for v in (0, 2, 3, 4, 5) if v != s]))
    a[-k], b[-k] = s, t
    return tuple(a), tuple(b)


def describe(x):
    if isinstance(x, np.ndarray):
        return "ndarray(%s, shape=%s, strides=%s)" % (x.dtype, x.shape, x.strides)
    return repr(x)


def copy_of(x):
    return x.copy() if isinstance(x, np.ndarray) else x


def assert_unchanged(after, before):
    if isinstance(after, np.ndarray):
        np.testing.assert_array_equal(after, before, strict=True, err_msg="an input was modified")


# ------------------------------------------------------------------ elementwise

@pytest.mark.parametrize("device", DEVICES)
@MANY
@given(case=binary_cases())
def test_elementwise_matches_numpy(device, case):
    name, a, b = case
    fn, ref = OPS[name]
    a0, b0 = copy_of(a), copy_of(b)
    expected = outcome(lambda: ref(a, b))
    got = outcome(lambda: fn(a, b, device=device))
    try:
        assert_same_result(got, expected)
    except AssertionError as exc:
        raise AssertionError("%s(%s, %s, device=%r): %s" % (name, describe(a), describe(b),
                                                           device, exc)) from None
    assert_unchanged(a, a0)
    assert_unchanged(b, b0)


@pytest.mark.parametrize("device", DEVICES)
@FEW
@given(name=st.sampled_from(OP_NAMES), a=python_ints | python_floats, b=python_ints | python_floats)
def test_elementwise_of_python_scalars(device, name, a, b):
    fn, ref = OPS[name]
    assert_same_result(outcome(lambda: fn(a, b, device=device)), outcome(lambda: ref(a, b)))


@pytest.mark.parametrize("device", DEVICES)
@PROFILE
@given(name=st.sampled_from(OP_NAMES), shapes=nonbroadcastable_shapes(), data=st.data())
def test_nonbroadcastable_shapes_raise_value_error(device, name, shapes, data):
    fn, ref = OPS[name]
    a = data.draw(arrays_of(data.draw(st.sampled_from(SUPPORTED)), shapes[0]), label="a")
    b = data.draw(arrays_of(data.draw(st.sampled_from(SUPPORTED)), shapes[1]), label="b")
    expected = outcome(lambda: ref(a, b))
    assert isinstance(expected, Raised) and isinstance(expected.exc, ValueError), expected
    got = outcome(lambda: fn(a, b, device=device))
    assert isinstance(got, Raised) and type(got.exc) is ValueError, (
        "%s(%s, %s, device=%r): NumPy raised %r, myModule gave %r"
        % (name, a.shape, b.shape, device, expected, got))


@st.composite
def unsupported_operands(draw, shape):
    """An operand of an unsupported dtype: an array or a NumPy scalar (a Python complex
    is a weak complex128 since the library has complex dtypes)."""
    if shape == ():
        kind = draw(st.integers(2, 3))
        if kind == 2:
            dtype = draw(st.sampled_from(UNSUPPORTED))
            return dtype.type(draw(elements(dtype)))
    dtype = draw(st.sampled_from(UNSUPPORTED))
    return draw(arrays_of(dtype, shape))


@st.composite
def unsupported_cases(draw):
    name = draw(st.sampled_from(OP_NAMES))
    shapes = draw(shapes_pair(max_dims=3)).input_shapes
    which = draw(st.sampled_from(["a", "b", "both"]))
    a = draw(unsupported_operands(shapes[0]) if which in ("a", "both") else operands(shapes[0]))
    b = draw(unsupported_operands(shapes[1]) if which in ("b", "both") else operands(shapes[1]))
    return name, a, b


@pytest.mark.parametrize("device", DEVICES)
@PROFILE
@given(case=unsupported_cases())
def test_unsupported_dtypes_raise_type_error(device, case):
    name, a, b = case
    fn, ref = OPS[name]
    expected = outcome(lambda: ref(a, b))  # NumPy may compute: the contract still says TypeError
    got = outcome(lambda: fn(a, b, device=device))
    assert isinstance(got, Raised), "%s(%s, %s, device=%r) returned %r (NumPy: %r)" % (
        name, describe(a), describe(b), device, got, expected)
    assert isinstance(got.exc, TypeError), "%s(%s, %s, device=%r) raised %r, not TypeError" % (
        name, describe(a), describe(b), device, got.exc)


# ------------------------------------------------------------------ sum and trace

FLOAT_RTOL = {np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-12}


def check_reduction(got, expected, x_used):
    """`got` against NumPy's `expected`: a NumPy scalar of the same dtype; ints
    exact; floats within rtol * sum(|x|) (NaN and inf exactly). A device
    input's result is a 0-d DeviceArray, read here."""
    if isinstance(got, myModule.DeviceArray):
        assert got.shape == ()
        got = got.get()[()]
    assert isinstance(got, np.generic), "expected a NumPy scalar, got %r" % (got,)
    assert got.dtype == expected.dtype, "dtype %s, NumPy's %s" % (got.dtype, expected.dtype)
    if expected.dtype.kind != "f":
        assert got == expected, "got %r, NumPy %r" % (got, expected)
        return
    if math.isnan(expected):
        assert math.isnan(got), "got %r, NumPy nan" % (got,)
        return
    if math.isinf(expected):
        assert got == expected, "got %r, NumPy %r" % (got, expected)
        return
    magnitude = math.fsum(abs(float(v)) for v in np.asarray(x_used, dtype=np.float64).ravel())
    tol = FLOAT_RTOL[expected.dtype] * magnitude
    assert abs(float(got) - float(expected)) <= tol, "got %r, NumPy %r (tolerance %g)" % (
        got, expected, tol)


@st.composite
def sum_inputs(draw):
    """A host array (any dtype, shape up to 3-d with up to 8 per side, layout),
    float values bounded and finite but, now and then, one NaN or one sign of
    infinity planted; or a Python scalar."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.one_of(st.integers(-(2**63), 2**63 - 1),
                              st.floats(-1e300, 1e300)))
    dtype = draw(st.sampled_from(SUPPORTED))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=8))
    x = draw(hnp.arrays(dtype, shape, elements=elements(dtype, bounded=True)))
    if dtype.kind == "f" and x.size and draw(st.integers(0, 3)) == 0:
        special = draw(st.sampled_from([math.nan, math.inf, -math.inf]))
        x.flat[draw(st.integers(0, x.size - 1))] = special
    return with_layout(x, draw(st.sampled_from(LAYOUTS)))


@pytest.mark.parametrize("device", DEVICES)
@MANY
@given(x=sum_inputs())
def test_sum_matches_numpy(device, x):
    expected = np.sum(x)
    got = myModule.sum(x, device=device)
    check_reduction(got, expected, x)


@st.composite
def trace_inputs(draw):
    dtype = draw(st.sampled_from(SUPPORTED))
    shape = draw(hnp.array_shapes(min_dims=2, max_dims=2, min_side=0, max_side=9))
    x = draw(hnp.arrays(dtype, shape, elements=elements(dtype, bounded=True)))
    if dtype.kind == "f" and min(shape) and draw(st.integers(0, 3)) == 0:
        i = draw(st.integers(0, min(shape) - 1))
        x[i, i] = draw(st.sampled_from([math.nan, math.inf, -math.inf]))
    return with_layout(x, draw(st.sampled_from(LAYOUTS)))


@pytest.mark.parametrize("device", DEVICES)
@PROFILE
@given(x=trace_inputs())
def test_trace_matches_numpy(device, x):
    expected = np.trace(x)
    got = myModule.trace(x, device=device)
    check_reduction(got, expected, np.diagonal(x))


@pytest.mark.parametrize("device", DEVICES)
@FEW
@given(dtype=st.sampled_from(UNSUPPORTED), data=st.data())
def test_sum_and_trace_of_unsupported_dtypes_raise_type_error(device, dtype, data):
    shape = data.draw(hnp.array_shapes(min_dims=2, max_dims=2, min_side=0, max_side=5))
    x = data.draw(arrays_of(dtype, shape))
    with pytest.raises(TypeError):
        myModule.sum(x, device=device)
    with pytest.raises(TypeError):
        myModule.trace(x, device=device)


# ------------------------------------------------------------------ device arrays

DEVICE_LAYOUTS = ["copy", "reversed-view", "T-view"]


def to_gpu(x, how):
    """A DeviceArray equal to host array x: to_device(x) (x's host layout
    whatever it is), or a reversed / transposed view on the GPU."""
    if how == "reversed-view" and x.ndim >= 1 and x.size > 0:
        idx = (slice(None, None, -1),) * x.ndim
        return reversed_view(myModule.to_device(np.ascontiguousarray(x[idx])))
    if how == "T-view" and x.ndim == 2 and x.size > 0:
        return transposed_view(myModule.to_device(np.ascontiguousarray(x.T)))
    return myModule.to_device(x)


@st.composite
def device_cases(draw):
    """(op name, a, b, how_a, how_b): how_* says how an array operand goes to the
    GPU, or None to leave it on the host; at least one operand goes."""
    name, a, b = draw(binary_cases())
    hows = []
    for x in (a, b):
        if isinstance(x, np.ndarray):
            hows.append(draw(st.sampled_from(DEVICE_LAYOUTS + [None])))
        else:
            hows.append(None)
    if hows == [None, None]:
        if isinstance(a, np.ndarray):
            hows[0] = "copy"
        elif isinstance(b, np.ndarray):
            hows[1] = "copy"
        else:  # two Python scalars: the first becomes a 0-d array on the GPU
            a = np.asarray(a)
            if a.dtype not in SUPPORTED:  # a Python int past int64
                a = np.asarray(float(draw(st.integers(-1000, 1000))))
            hows[0] = "copy"
    return name, a, b, hows[0], hows[1]


@pytest.mark.gpu
@requires_gpu
@MANY
@given(case=device_cases())
def test_device_arrays_match_numpy(case):
    name, a, b, how_a, how_b = case
    fn, ref = OPS[name]
    expected = outcome(lambda: ref(a, b))
    da = a if how_a is None else to_gpu(a, how_a)
    db = b if how_b is None else to_gpu(b, how_b)
    got = outcome(lambda: fn(da, db))
    what = "%s(%s on %s, %s on %s)" % (name, describe(a), how_a or "host", describe(b), how_b or "host")
    if isinstance(expected, Raised):
        assert_same_result(got, expected)
        return
    assert not isinstance(got, Raised), "%s raised %r, NumPy gave %r" % (what, got.exc, expected)
    assert isinstance(got, myModule.DeviceArray), "%s gave %r, not a DeviceArray" % (what, type(got))
    assert got.shape == np.shape(expected) and got.dtype == np.asarray(expected).dtype, what
    try:
        assert_same_result(got.get(), np.asarray(expected))
    except AssertionError as exc:
        raise AssertionError("%s: %s" % (what, exc)) from None


@pytest.mark.gpu
@requires_gpu
@PROFILE
@given(x=sum_inputs(), how=st.sampled_from(DEVICE_LAYOUTS))
def test_device_array_sum_matches_numpy(x, how):
    x = np.asarray(x)
    d = to_gpu(x, how)
    check_reduction(myModule.sum(d), np.sum(x), x)


@pytest.mark.gpu
@requires_gpu
@PROFILE
@given(x=trace_inputs(), how=st.sampled_from(DEVICE_LAYOUTS))
def test_device_array_trace_matches_numpy(x, how):
    d = to_gpu(x, how)
    check_reduction(myModule.trace(d), np.trace(x), np.diagonal(x))


@pytest.mark.gpu
@requires_gpu
@FEW
@given(shapes=nonbroadcastable_shapes(), data=st.data())
def test_device_arrays_nonbroadcastable_raise_value_error(shapes, data):
    name = data.draw(st.sampled_from(OP_NAMES))
    a = data.draw(arrays_of(data.draw(st.sampled_from(SUPPORTED)), shapes[0]))
    b = data.draw(arrays_of(data.draw(st.sampled_from(SUPPORTED)), shapes[1]))
    with pytest.raises(ValueError):
        OPS[name][0](myModule.to_device(a), myModule.to_device(b))


# ------------------------------------------------------------------ floor_divide, remainder

@st.composite
def divmod_pairs(draw):
    """Two arrays of one dtype (int32, int64, float32, float64) with the edges
    (zeros of both signs, inf, NaN, extremes, MIN and -1) and, for floats,
    quotients near 2**nmant, where the kernels' fast fmod hands over to fmod."""
    dtype = np.dtype(draw(st.sampled_from([np.int32, np.int64, np.float32, np.float64])))
    n = draw(st.integers(0, 64))
    if dtype.kind == "i":
        ii = np.iinfo(dtype)
        edge = st.sampled_from([int(ii.min), -1, 0, 1, int(ii.max)])
        values = st.one_of(elements(dtype), edge)
        a = draw(hnp.arrays(dtype, n, elements=values))
        b = draw(hnp.arrays(dtype, n, elements=values))
        return a, b
    values = elements(dtype)
    a = draw(hnp.arrays(dtype, n, elements=values))
    b = draw(hnp.arrays(dtype, n, elements=values))
    if n and draw(st.booleans()):  # a = b * ~2**nmant, nudged by a few ulps
        k = draw(st.integers(-3, 3))
        scale = dtype.type(2.0 ** (np.finfo(dtype).nmant + k))
        with np.errstate(all="ignore"):
            near = (b * scale).astype(dtype)
            steps = draw(hnp.arrays(np.int64, n, elements=st.integers(-2, 2)))
            a = np.where(np.isfinite(near), near + steps * np.spacing(near), a).astype(dtype)
    return a, b


@pytest.mark.gpu
@requires_gpu
@MANY
@given(pair=divmod_pairs())
def test_floor_divide_and_remainder_match_numpy(pair):
    a, b = pair
    for mine, numpys in ((myModule.floor_divide, np.floor_divide), (myModule.remainder, np.remainder)):
        with np.errstate(all="ignore"):
            expected = numpys(a, b)
        assert_same_result(mine(a, b, device="cuda"), expected)
        assert_same_result(mine(myModule.to_device(a), myModule.to_device(b)).get(), expected)
