"""Creating DeviceArrays: empty, zeros, ones, full, arange, linspace, eye, the
*_like forms and asarray(x, dtype=, device=), compared with NumPy.

Without a GPU: argument errors are NumPy's (raised before any CUDA call), valid
calls raise CudaUnavailableError, and the formulas the kernels use for arange
and linspace (vectorAdd/fill.cu) are replayed with NumPy and must give
np.arange's and np.linspace's values bit for bit. With a GPU: every function's
values, dtype and shape against NumPy's.
"""
import numpy as np
import pytest

import myModule
from conftest import DTYPES, GPU_MARKS, HAS_GPU, Raised, assert_same_result, outcome, requires_no_gpu


def on_gpu(test):
    for mark in GPU_MARKS:
        test = mark(test)
    return test


# ---------------------------------------------------------------- the kernels' formulas

def arange_as_kernel(*args, dtype=None):
    """va_arange's values: elements 0 and 1 as NumPy sets them, then
    first + T(i) * (second - first) in T (integers in int64, wrapping)."""
    ref = np.arange(*args, dtype=dtype)
    n, t = len(ref), ref.dtype
    if n <= 2:
        return ref
    first, second = ref[:1], ref[1:2]
    i = np.arange(n, dtype=np.int64)
    if t.kind == "f":
        delta = second - first
        out = first + i.astype(t) * delta
    else:
        f64 = first.astype(np.int64).view(np.uint64)
        d64 = (second.astype(np.uint64) - first.astype(np.uint64)).astype(t).astype(np.int64).view(np.uint64)
        out = (f64 + i.view(np.uint64) * d64).astype(t)
    out[:2] = ref[:2]
    return out


def linspace_as_kernel(start, stop, num, endpoint=True, dtype=None, compute=np.float64):
    """va_linspace's values: NumPy's function_base.linspace in `compute`."""
    c = np.dtype(compute)
    div = num - 1 if endpoint else num
    cstart, cstop = c.type(start), c.type(stop)
    delta = cstop - cstart
    y = np.arange(num).astype(c)
    if div > 0:
        step = delta / c.type(div)
        y = y * step if step != 0 else (y / c.type(div)) * delta
    else:
        y = y * delta
    y = y + cstart
    if endpoint and num > 1:
        y[-1] = cstop
    dtype = np.dtype(dtype or c)
    if dtype.kind in "iu":
        y = np.floor(y)
    return y.astype(dtype)


ARANGE_CASES = [
    (10,), (0.0,), (-3,), (3, 17), (17, 3, -2), (0.1, 1.0, 0.1), (1, 2, 0.1), (-5.5, 5.5, 0.37),
    (0, 1e8, 12345.678), (1e-300, 1e-299, 1e-301), (np.float32(0.1), np.float32(7.3), np.float32(0.3)),
    (5, 1000003, 7), (2**62, 2**62 + 100, 3), (-(2**31), 2**31 - 1, 2**28),
]
ARANGE_DTYPED = [((0.5, 20.5, 0.5), np.int32), ((0, 100, 3), np.float32), ((1, 2, 1 / 3), np.float32),
                 ((0, 2**24 + 40), np.float32), ((-7, 7, 0.7), np.int64), ((3, 1e6, 1.1), np.float32)]


@pytest.mark.parametrize("args", ARANGE_CASES, ids=repr)
def test_arange_formula_is_numpys(args):
    with np.errstate(all="ignore"):
        assert_same_result(arange_as_kernel(*args), np.arange(*args))


@pytest.mark.parametrize("args,dtype", ARANGE_DTYPED, ids=repr)
def test_arange_formula_is_numpys_with_dtype(args, dtype):
    with np.errstate(all="ignore"):
        assert_same_result(arange_as_kernel(*args, dtype=dtype), np.arange(*args, dtype=dtype))


def test_arange_formula_random(rng):
    for _ in range(200):
        start = float(rng.normal() * 10.0 ** rng.integers(-3, 6))
        step = float(rng.normal() * 10.0 ** rng.integers(-3, 3)) or 1.0
        stop = start + step * int(rng.integers(0, 5000))
        for dtype in (None, np.float32):
            assert_same_result(arange_as_kernel(start, stop, step, dtype=dtype),
                               np.arange(start, stop, step, dtype=dtype))


LINSPACE_CASES = [
    (0, 1, 50), (0, 1, 1), (0, 1, 0), (0, 1, 2), (-1.5, 7.25, 11), (1e-310, 2e-310, 7), (0, 5e-324, 9),
    (3, 3, 5), (10, -10, 21), (0, 1, 1000003), (1, 1e300, 17), (float("-inf"), 0, 3), (0, float("nan"), 4),
]


@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize("dtype", [None] + DTYPES, ids=str)
@pytest.mark.parametrize("case", LINSPACE_CASES, ids=repr)
def test_linspace_formula_is_numpys(case, dtype, endpoint):
    if dtype is not None and dtype.kind == "i" and not np.all(np.isfinite(case[:2])):
        pytest.skip("NaN/inf into an integer is undefined on both sides")
    with np.errstate(all="ignore"):
        assert_same_result(linspace_as_kernel(*case, endpoint=endpoint, dtype=dtype),
                           np.linspace(*case, endpoint=endpoint, dtype=dtype))


def test_linspace_formula_float32_ends(rng):
    for _ in range(100):
        a, b = np.float32(rng.normal() * 100), np.float32(rng.normal() * 100)
        n = int(rng.integers(0, 300))
        assert_same_result(linspace_as_kernel(a, b, n, compute=np.float32), np.linspace(a, b, n))


# Complex ends (va_linspace_complex): each part computed as a real linspace with
# NumPy's complex quotient (delta times the reciprocal of the count) and its
# zero-step form only when both parts' steps are zero. For finite ends that is
# NumPy's complex linspace to the bit (y * step with a real y adds exact zeros),
# which this holds without a GPU; an infinite or NaN part stays in its part
# (NumPy's complex product spreads it to both).
LINSPACE_COMPLEX_CASES = [
    (0j, 1 + 2j, 50), (1 - 1j, -3 + 0.5j, 7), (2j, 2j, 5), (1 + 1j, 1 + 5j, 9), (1 + 1j, 4 + 1j, 9),
    (0, 1j, 1), (0j, 1j, 0), (1e-310j, 1 + 2e-310j, 7), (0, 5e-324j, 9), (-2.5, 3.25j, 1000003),
    (np.complex64(1 + 1j), 2, 3), (np.float32(0.1), 0.3j, 11), (np.complex64(0.1 - 3j), np.complex64(9.7 + 1j), 33),
]


def complex_linspace_as_kernel(start, stop, num, endpoint=True, dtype=None):
    """va_linspace_complex's values, in NumPy."""
    computed_in = np.result_type(start, stop, 1.0)  # NumPy's computing type, whatever dtype asks
    c = np.dtype(np.float32 if computed_in in (np.float32, np.complex64) else np.float64)
    div = num - 1 if endpoint else num
    first, last = [(c.type(np.real(v)), c.type(np.imag(v))) for v in (start, stop)]
    deltas = [last[k] - first[k] for k in range(2)]
    y = np.arange(num).astype(c)
    reciprocal = c.type(1) / c.type(div) if div > 0 else None
    steps = [d * reciprocal for d in deltas] if div > 0 else None
    parts = []
    for k in range(2):
        if div <= 0:
            p = y * deltas[k]
        elif all(step == 0 for step in steps):
            p = (y * reciprocal) * deltas[k]
        else:
            p = y * steps[k]
        p = p + first[k]
        if endpoint and num > 1:
            p[-1] = last[k]
        parts.append(p)
    out = np.empty(num, np.complex64 if c == np.float32 else np.complex128)
    out.real, out.imag = parts
    return out.astype(dtype or out.dtype)


@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize("case", LINSPACE_COMPLEX_CASES, ids=repr)
def test_complex_linspace_is_its_parts(case, endpoint):
    assert_same_result(complex_linspace_as_kernel(*case, endpoint=endpoint), np.linspace(*case, endpoint=endpoint))
    assert_same_result(complex_linspace_as_kernel(*case, endpoint=endpoint, dtype=np.complex64),
                       np.linspace(*case, endpoint=endpoint, dtype=np.complex64))


def test_complex_linspace_arguments():
    with pytest.raises(TypeError, match="complex dtype"):
        myModule.linspace(1j, 2, 3, dtype=np.float64)
    with pytest.raises(TypeError):
        myModule.linspace(np.clongdouble(1j), 2, 3)


# ---------------------------------------------------------------- argument errors (no GPU needed)

BAD_CALLS = [
    ("zeros(-1)", lambda m: m.zeros(-1)),
    ("zeros((2,-1))", lambda m: m.zeros((2, -1))),
    ("zeros(2.5)", lambda m: m.zeros(2.5)),
    ("ones('x')", lambda m: m.ones("x")),
    ("empty((2,), dtype='nonsense')", lambda m: m.empty((2,), dtype="nonsense")),
    ("full(3, 'x', dtype=float)", lambda m: m.full(3, "x", dtype=float)),
    ("full(3, [1, 2])", lambda m: m.full(3, [1.0, 2.0])),
    ("full(2, 2**70)", lambda m: m.full(2, 2**70, dtype=np.int64)),
    ("arange(0, 5, 0)", lambda m: m.arange(0, 5, 0)),
    ("arange(nan)", lambda m: m.arange(float("nan"))),
    ("arange(0, inf)", lambda m: m.arange(0, float("inf"))),
    ("arange(2**40, dtype=int32)", lambda m: m.arange(2**40, 2**40 + 3, dtype=np.int32)),
    ("arange()", lambda m: m.arange()),
    ("linspace(0, 1, -1)", lambda m: m.linspace(0, 1, -1)),
    ("linspace(0, 1, 2.5)", lambda m: m.linspace(0, 1, 2.5)),
    ("linspace(0, 1, axis=1)", lambda m: m.linspace(0, 1, axis=1)),
    ("eye(-1)", lambda m: m.eye(-1)),
    ("eye(2.5)", lambda m: m.eye(2.5)),
    ("eye(2, 2, 0.5)", lambda m: m.eye(2, 2, 0.5)),
    ("zeros_like(1, shape=(-1,))", lambda m: m.zeros_like(np.zeros(2), shape=(-2,))),
    ("zeros(2, order='F')", lambda m: m.zeros(2, order="F")),
]


@pytest.mark.parametrize("name,call", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_argument_errors_as_numpy(name, call):
    expected = outcome(lambda: call(np))
    if name == "zeros(2, order='F')":
        expected = Raised(ValueError("F order"))  # NumPy can; GPU arrays are C order only
    assert isinstance(expected, Raised), name
    assert_same_result(outcome(lambda: call(myModule)), expected)


@pytest.mark.parametrize("call", [
    lambda: myModule.zeros(3, dtype=np.clongdouble), lambda: myModule.ones(2, dtype=np.longdouble),
    lambda: myModule.full(2, np.clongdouble(1 + 2j)), lambda: myModule.arange(3, dtype=np.float16),
    lambda: myModule.asarray(np.zeros(3, dtype=np.float16)), lambda: myModule.eye(2, dtype="U3"),
])
def test_unsupported_dtypes_raise_type_error(call):
    with pytest.raises(TypeError, match="unsupported dtype|supports"):
        call()


@pytest.mark.parametrize("device,exc", [(1.0, TypeError), (True, TypeError), (-1, ValueError),
                                        ("cuda:x", ValueError), ("bogus", ValueError), (2**70, ValueError),
                                        ("cpu", ValueError)])
def test_device_must_name_a_gpu(device, exc):
    for call in (lambda: myModule.zeros(3, device=device), lambda: myModule.arange(3, device=device),
                 lambda: myModule.asarray([1.0], device=device), lambda: myModule.eye(2, device=device)):
        with pytest.raises(exc):
            call()


@pytest.mark.parametrize("device", [1.0, True, -1, "cuda:x", "bogus", 2**70, "cuda:99", 99])
def test_array_functions_read_device_as_operations_do(device):
    """One reading of device= (issue 24): a spelling an operation refuses, an array
    function refuses with the same exception type and message."""
    with pytest.raises((TypeError, ValueError)) as by_operation:
        myModule.add(np.ones(2), np.ones(2), device=device)
    with pytest.raises(by_operation.type) as by_function:
        myModule.zeros(3, device=device)
    assert str(by_function.value) == str(by_operation.value)


def test_the_spellings_of_a_gpu_are_accepted():
    """'cuda', 'cuda:0', 'auto', 0 and None are GPU 0, for operations and array
    functions alike: with a GPU the array is there, without one the error says so."""
    for device in (None, "auto", "cuda", "cuda:0", 0):
        if HAS_GPU:
            assert myModule.zeros(3, device=device).device == myModule.zeros(3).device
        else:
            with pytest.raises((myModule.CudaUnavailableError, ValueError), match="GPU"):
                myModule.zeros(3, device=device)


@requires_no_gpu
@pytest.mark.parametrize("call", [
    lambda: myModule.zeros(3), lambda: myModule.empty((2, 2)), lambda: myModule.ones(0),
    lambda: myModule.full((2,), 1.5), lambda: myModule.arange(5), lambda: myModule.linspace(0, 1),
    lambda: myModule.eye(3), lambda: myModule.zeros_like(np.zeros(3)), lambda: myModule.asarray([1, 2]),
    lambda: myModule.asarray(np.zeros(2), dtype=np.float32),
])
def test_valid_calls_need_a_gpu(call):
    with pytest.raises(myModule.CudaUnavailableError):
        call()


# ---------------------------------------------------------------- on a GPU

SHAPES = [(), (0,), (1,), (7,), (3, 4), (2, 0, 3), (1 << 20) + 3]


def check(d, expected):
    assert isinstance(d, myModule.DeviceArray)
    assert d.device == 0
    assert_same_result(d.get(), expected)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [None] + DTYPES, ids=str)
@on_gpu
def test_zeros_ones_empty(shape, dtype):
    check(myModule.zeros(shape, dtype=dtype), np.zeros(shape, dtype=dtype))
    check(myModule.ones(shape, dtype=dtype), np.ones(shape, dtype=dtype))
    e = myModule.empty(shape, dtype=dtype)
    assert e.shape == np.empty(shape).shape and e.dtype == np.empty(shape, dtype=dtype).dtype


@pytest.mark.parametrize("value", [0, -0.0, 1.5, -7, 2**31 - 1, np.float32(0.1), float("inf"), np.int32(-3)],
                         ids=repr)
@pytest.mark.parametrize("dtype", [None] + DTYPES, ids=str)
@on_gpu
def test_full(value, dtype):
    expected = outcome(lambda: np.full((5, 3), value, dtype=dtype))
    got = outcome(lambda: myModule.full((5, 3), value, dtype=dtype).get())
    assert_same_result(got, expected)
    if not isinstance(expected, Raised):
        check(myModule.full((1 << 20) + 1, value, dtype=dtype), np.full((1 << 20) + 1, value, dtype=dtype))


@on_gpu
def test_full_with_an_array_value_broadcasts():
    check(myModule.full((2, 3), [1.5, 2.5, 3.5], dtype=np.int32), np.full((2, 3), [1.5, 2.5, 3.5], dtype=np.int32))
    check(myModule.full_like(np.zeros((4, 2)), np.arange(2)), np.full_like(np.zeros((4, 2)), np.arange(2)))


@pytest.mark.parametrize("args", ARANGE_CASES + [(0,), (1,), (2,), (10**7 + 3,)], ids=repr)
@on_gpu
def test_arange(args):
    with np.errstate(all="ignore"):
        check(myModule.arange(*args), np.arange(*args))


@pytest.mark.parametrize("args,dtype", ARANGE_DTYPED + [((10,), d) for d in DTYPES], ids=repr)
@on_gpu
def test_arange_dtype(args, dtype):
    check(myModule.arange(*args, dtype=dtype), np.arange(*args, dtype=dtype))


@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize("dtype", [None] + DTYPES, ids=str)
@pytest.mark.parametrize("case", LINSPACE_CASES, ids=repr)
@on_gpu
def test_linspace(case, dtype, endpoint):
    if dtype is not None and dtype.kind == "i" and not np.all(np.isfinite(case[:2])):
        pytest.skip("NaN/inf into an integer is undefined on both sides")
    with np.errstate(all="ignore"):
        check(myModule.linspace(*case, endpoint=endpoint, dtype=dtype),
              np.linspace(*case, endpoint=endpoint, dtype=dtype))


@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize("dtype", [None, np.complex64, np.complex128], ids=str)
@pytest.mark.parametrize("case", LINSPACE_COMPLEX_CASES + [(0, 1, 5), (0.1, 0.7, 7), (complex(-np.inf, 0), 1j, 3)],
                         ids=repr)
@on_gpu
def test_complex_linspace(case, dtype, endpoint):
    with np.errstate(all="ignore"):
        got = myModule.linspace(*case, endpoint=endpoint, dtype=dtype)
        if not any(np.iscomplexobj(v) for v in case[:2]):
            # real ends: NumPy's real linspace, cast to a complex dtype= (real step)
            check(got, np.linspace(*case, endpoint=endpoint, dtype=dtype))
        else:
            check(got, complex_linspace_as_kernel(*case, endpoint=endpoint, dtype=dtype))
        d, step = myModule.linspace(*case, endpoint=endpoint, dtype=dtype, retstep=True)
        e, estep = np.linspace(*case, endpoint=endpoint, dtype=dtype, retstep=True)
    assert type(step) is type(estep)
    if np.all(np.isfinite(case[:2])):
        check(d, e)
        assert step == estep or (np.isnan(step) and np.isnan(estep))


@on_gpu
def test_linspace_float32_ends_and_retstep():
    a, b = np.float32(0.1), np.float32(9.7)
    check(myModule.linspace(a, b, 33), np.linspace(a, b, 33))
    d, step = myModule.linspace(0, 1, 7, retstep=True)
    e, estep = np.linspace(0, 1, 7, retstep=True)
    check(d, e)
    assert step == estep and type(step) is type(estep)


@pytest.mark.parametrize("n,m,k", [(0, None, 0), (1, None, 0), (4, None, 0), (4, 6, 1), (6, 4, -2), (3, 3, 5),
                                   (3, 3, -5), (1000, 999, 3)])
@pytest.mark.parametrize("dtype", [None] + DTYPES, ids=str)
@on_gpu
def test_eye(n, m, k, dtype):
    check(myModule.eye(n, m, k, dtype=dtype), np.eye(n, m, k, dtype=dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@on_gpu
def test_like_forms(dtype):
    host = np.arange(12, dtype=dtype).reshape(3, 4)[:, ::-1]
    d = myModule.asarray(host)
    for proto in (host, d):
        check(myModule.zeros_like(proto), np.zeros_like(host))
        check(myModule.ones_like(proto, dtype=np.float32), np.ones_like(host, dtype=np.float32))
        check(myModule.full_like(proto, 7), np.full_like(host, 7))
        check(myModule.full_like(proto, 2.5, shape=(2, 2)), np.full_like(host, 2.5, shape=(2, 2)))
        e = myModule.empty_like(proto)
        assert e.shape == host.shape and e.dtype == host.dtype


@on_gpu
def test_asarray_dtype_and_device():
    d = myModule.asarray([1, 2, 3])
    assert myModule.asarray(d) is d, "a GPU array is returned as it is (zero copy)"
    assert myModule.asarray(d, dtype=np.int64, device=0) is d
    check(myModule.asarray(d, dtype=np.float32), np.array([1, 2, 3], dtype=np.float32))
    check(myModule.asarray([1.7, -2.2], dtype=np.int32), np.asarray([1.7, -2.2]).astype(np.int32))
    check(myModule.asarray(np.arange(6.0).reshape(2, 3).T), np.arange(6.0).reshape(2, 3).T)
    check(myModule.asarray(5), np.asarray(5))
    view = myModule.asarray(d[::2])
    assert view.ptr == d.ptr, "a view stays a view"
    with pytest.raises(ValueError):
        myModule.asarray(d, dtype=np.float64, copy=False)
