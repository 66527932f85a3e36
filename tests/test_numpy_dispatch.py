"""NumPy's dispatch protocols on DeviceArray (myModule/_dispatch.py), NumPy the oracle.

- Without a GPU: the routing itself. The implementations are called directly with
  NumPy arrays standing in for device data (they route to the myModule functions,
  which compute on the CPU here), for every ufunc of the op table; NumPy calls on
  DeviceArrays over no memory (``_testing_view``) reach the myModule function they
  should, with NumPy's arguments translated (the function replaced by a recorder),
  or raise TypeError naming the ufunc or function, never copying to the host.
  Hostile callers: wrong keywords, out= tuples of the wrong length, operands whose
  own protocols decline or lie.
- With a GPU: ``np.<ufunc>(d, ...)`` for every ufunc of the table, reductions
  (``np.add.reduce``, ``np.sum`` ...) and the array functions against NumPy on the
  same data; results are DeviceArrays. Reductions take ``axis=`` (the contract):
  their absence fails, it is not detected and skipped.
"""
import os

import numpy as np
import pytest

import myModule
from myModule import _dispatch
from compare_floats import assert_sum_matches
from conftest import GPU_MARKS, ROOT, assert_same_result
from test_ops import arguments, assert_matches, compute_dtypes

import gpu_helpers as H

pytestmark = pytest.mark.usefixtures("quiet_numpy")

TABLE_UFUNCS = [op for op in myModule.ops if op["kind"] == "elementwise"
                and isinstance(getattr(np, op["reference"].rpartition(".")[2], None), np.ufunc)
                and op["reference"].startswith("numpy.")]
UFUNC_IDS = [op["name"] for op in TABLE_UFUNCS]


def ufunc_of(op):
    return getattr(np, op["reference"].rpartition(".")[2])


def gpu(test):
    for mark in GPU_MARKS:
        test = mark(test)
    return test


def view(shape=(2, 3), dtype="float64"):
    """A DeviceArray over no memory where there is no GPU (reaching its data fails,
    so a test that passes with it copied nothing to the host); zeros in real device
    memory where there is one, so that no test reads an address that is not there."""
    if H.GPU:
        return myModule.zeros(shape, dtype=dtype)
    a = np.empty(shape, dtype=dtype)
    return myModule._core._testing_view(a.shape, a.strides, a.dtype)


class Recorder:
    """Stands in for a myModule function: records the call, returns a marker."""

    def __init__(self, name):
        self.name = name
        self.calls = []

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return ("result of", self.name)


@pytest.fixture
def record(monkeypatch):
    """record(name) replaces myModule.<name> with a Recorder and returns it."""
    def replace(name):
        rec = Recorder(name)
        monkeypatch.setattr(myModule, name, rec, raising=False)
        return rec
    return replace


# ------------------------------------------------------------------ installation and the maps

def test_protocols_forward_to_the_dispatch_module(monkeypatch):
    """The type's own methods (one table, nothing patched onto the type) call
    myModule._dispatch's implementations, looked up at each call, self first."""
    seen = []
    monkeypatch.setattr(_dispatch, "array_function", lambda *a, **k: seen.append((a, k)) or "f")
    monkeypatch.setattr(_dispatch, "array_ufunc", lambda *a, **k: seen.append((a, k)) or "u")
    d = myModule._core._testing_view((2,), (8,), "float64")
    assert d.__array_function__(np.sum, (type(d),), (d,), {}) == "f"
    assert d.__array_ufunc__(np.add, "__call__", d, 1, out=None) == "u"
    assert seen[0] == ((d, np.sum, (type(d),), (d,), {}), {})
    assert seen[1] == ((d, np.add, "__call__", d, 1), {"out": None})
    many = tuple(range(20))  # more arguments than the forwarding's stack array
    assert d.__array_ufunc__(np.add, "__call__", *many, where=True) == "u"
    assert seen[2] == ((d, np.add, "__call__") + many, {"where": True})


def test_ufunc_map_is_the_op_table():
    expected = {ufunc_of(op): op for op in TABLE_UFUNCS}
    assert _dispatch.UFUNCS == expected
    assert np.divide in _dispatch.UFUNCS  # 'numpy.true_divide' names the same ufunc


def test_reductions_map_to_the_table_reductions():
    names = {op["reference"]: op["name"] for op in myModule.ops if op["kind"] == "reduction"}
    for ufunc, function in ((np.add, "numpy.sum"), (np.multiply, "numpy.prod"),
                            (np.maximum, "numpy.max"), (np.minimum, "numpy.min")):
        if function in names:
            assert _dispatch.REDUCTIONS[ufunc][0] == names[function]


# ------------------------------------------------------------------ routing with NumPy stand-ins

@pytest.mark.parametrize("op", TABLE_UFUNCS, ids=UFUNC_IDS)
def test_every_table_ufunc_routes_to_its_function(op, rng):
    ufunc = ufunc_of(op)
    for dtype in compute_dtypes(op):
        _, arrays = arguments(op, dtype, (3, 4), rng)
        got = _dispatch.array_ufunc(None, ufunc, "__call__", *arrays)
        assert_matches(op, got, ufunc(*arrays))
        out = np.empty_like(ufunc(*arrays))
        got = _dispatch.array_ufunc(None, ufunc, "__call__", *arrays, out=(out,))
        assert got is out
        assert_matches(op, out, ufunc(*arrays))


@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum],
                         ids=lambda u: u.__name__)
@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float32", "float64"])
def test_full_reduce_routes_to_the_reduction(ufunc, dtype, rng):
    # the op table declares sum, prod, max and min: each ufunc's reduce routes to one
    assert ufunc in _dispatch.REDUCTIONS, "no reduction routed for %s" % ufunc.__name__
    x = (rng.random(50) < 0.5) if dtype == "bool" else rng.integers(-5, 6, 50).astype(dtype)
    for axis in ({}, {"axis": 0}, {"axis": None}, {"axis": (0,)}, {"axis": -1}):
        got = _dispatch.array_ufunc(None, ufunc, "reduce", x, **axis)
        assert_same_result(got, ufunc.reduce(x, **axis))
    zero_d = np.asarray(x[3])
    assert_same_result(_dispatch.array_ufunc(None, ufunc, "reduce", zero_d), ufunc.reduce(zero_d))


@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum],
                         ids=lambda u: u.__name__)
def test_reduce_over_an_axis_routes_to_the_reduction(ufunc, rng):
    x = rng.integers(-5, 6, (3, 4, 5)).astype(np.float64)
    for kw in ({}, {"axis": 1}, {"axis": (0, 2)}, {"axis": -1, "keepdims": True}):
        assert_same_result(_dispatch.array_ufunc(None, ufunc, "reduce", x, **kw), ufunc.reduce(x, **kw))


def test_dtype_is_honoured_by_casting_the_inputs():
    a = np.arange(-3, 9, dtype=np.int32).reshape(3, 4)
    for dtype in (np.float64, np.float32, np.int64):
        got = _dispatch.array_ufunc(None, np.add, "__call__", a, 2, dtype=dtype)
        assert_same_result(got, np.add(a, 2, dtype=dtype))
    got = _dispatch.array_ufunc(None, np.divide, "__call__", a, a + 10, dtype=np.float32)
    assert_same_result(got, np.divide(a, a + 10, dtype=np.float32))
    # float64 -> int32 is not 'same_kind' (NumPy raises too)
    with pytest.raises(TypeError, match="same_kind"):
        _dispatch.array_ufunc(None, np.add, "__call__", a * 1.5, a, dtype=np.int32)
    # no loop of that dtype: divide of ints, a comparison asked for floats, float16
    for ufunc, dtype in ((np.divide, np.int32), (np.equal, np.float64), (np.add, np.float16)):
        with pytest.raises(TypeError, match="numpy.%s with dtype=" % ufunc.__name__):
            _dispatch.array_ufunc(None, ufunc, "__call__", a, a, dtype=dtype)


def test_max_reduce_takes_only_the_dtype_it_keeps():
    x = np.arange(6.0)
    assert _dispatch.array_ufunc(None, np.maximum, "reduce", x, dtype=np.float64) == 5.0
    with pytest.raises(TypeError, match="numpy.maximum.reduce with dtype="):
        _dispatch.array_ufunc(None, np.maximum, "reduce", x, dtype=np.float32)


# ------------------------------------------------------------------ NumPy calls on DeviceArrays, recorded

def test_ufunc_call_reaches_the_function(record):
    v = view()
    add = record("add")
    assert np.add(v, 1) == ("result of", "add")
    assert np.add(v, v, out=v) == ("result of", "add")
    assert np.add(v, v, out=(v,)) == ("result of", "add")
    assert add.calls == [((v, 1), {}), ((v, v), {"out": v}), ((v, v), {"out": v})]
    neg = record("negative")
    np.negative(v)
    assert neg.calls == [((v,), {})]


def test_numpy_operands_and_operators_reach_the_function_without_a_host_copy(record):
    v, host = view(), np.ones((2, 3))
    add, mul, eq = record("add"), record("multiply"), record("equal")
    assert host + v == ("result of", "add")
    assert np.float64(2.0) * v == ("result of", "multiply")
    assert (host == v) == ("result of", "equal")
    assert add.calls[0][0][0] is host and add.calls[0][0][1] is v
    assert mul.calls and eq.calls


def test_reduce_reaches_the_reduction_with_numpys_arguments(record):
    v = view((2, 3))
    total = record("sum")
    np.add.reduce(v)                        # reduce's default: the first axis
    np.add.reduce(v, axis=None)             # full: no axis= passed on
    np.add.reduce(v, axis=(1, 0))           # every axis: a full reduction too
    np.add.reduce(v, axis=1, keepdims=True, dtype=np.float32)
    np.add.reduce(v, axis=None, keepdims=True)
    assert total.calls == [((v,), {"axis": 0}), ((v,), {}), ((v,), {}),
                           ((v,), {"axis": 1, "dtype": np.float32, "keepdims": True}),
                           ((v,), {"keepdims": True})]
    product, out, w = record("prod"), view(()), view((4,))
    np.multiply.reduce(w, out=out)
    np.multiply.reduce(w, out=(out,))
    assert product.calls == [((w,), {"out": out})] * 2
    biggest = record("max")
    np.maximum.reduce(v, axis=None, dtype=np.float64)   # the dtype max keeps: dropped
    assert biggest.calls == [((v,), {})]


NUMPY_CALLS = [
    # (NumPy call on v, the myModule function, its positional args after v, its keywords)
    (lambda v: np.sum(v), "sum", (), {}),
    (lambda v: np.sum(v, axis=1, dtype=np.float32, keepdims=True), "sum", (),
     {"axis": 1, "dtype": np.float32, "keepdims": True}),
    (lambda v: np.sum(v, axis=(0, 1), keepdims=False), "sum", (), {}),
    (lambda v: np.prod(v, axis=-1), "prod", (), {"axis": -1}),
    (lambda v: np.max(v), "max", (), {}),
    (lambda v: np.amax(v, axis=0), "max", (), {"axis": 0}),
    (lambda v: np.min(v, keepdims=True), "min", (), {"keepdims": True}),
    (lambda v: np.amin(v), "min", (), {}),
    (lambda v: np.mean(v, axis=1), "mean", (), {"axis": 1}),
    (lambda v: np.argmax(v), "argmax", (), {}),
    (lambda v: np.argmin(v, axis=0, keepdims=True), "argmin", (), {"axis": 0, "keepdims": True}),
    (lambda v: np.reshape(v, (3, 2)), "reshape", ((3, 2),), {"order": "C", "copy": None}),
    (lambda v: np.reshape(v, shape=-1, copy=False), "reshape", (-1,), {"order": "C", "copy": False}),
    (lambda v: np.ravel(v), "ravel", (), {"order": "C"}),
    (lambda v: np.transpose(v), "transpose", (None,), {}),
    (lambda v: np.transpose(v, (1, 0)), "transpose", ((1, 0),), {}),
    (lambda v: np.squeeze(v, axis=0), "squeeze", (), {"axis": 0}),
    (lambda v: np.expand_dims(v, 1), "expand_dims", (1,), {}),
    (lambda v: np.broadcast_to(v, (4, 2, 3)), "broadcast_to", ((4, 2, 3),), {}),
    (lambda v: np.where(v, 1.0, v), "where", (1.0, "v"), {}),
    (lambda v: np.zeros_like(v), "zeros_like", (), {"dtype": None, "order": "K", "shape": None}),
    (lambda v: np.ones_like(v, dtype=np.int32), "ones_like", (),
     {"dtype": np.int32, "order": "K", "shape": None}),
    (lambda v: np.empty_like(v, shape=(5,)), "empty_like", (), {"dtype": None, "order": "K", "shape": (5,)}),
    (lambda v: np.full_like(v, 7), "full_like", (7,), {"dtype": None, "order": "K", "shape": None}),
    (lambda v: np.copy(v), "copy", (), {"order": "C"}),
    (lambda v: np.trace(v), "trace", (), {}),
]
if hasattr(np, "astype"):
    NUMPY_CALLS.append((lambda v: np.astype(v, np.float32), "astype", (np.float32,), {"copy": True}))


@pytest.mark.parametrize("call,name,args,kwargs", NUMPY_CALLS,
                         ids=["%s-%d" % (c[1], k) for k, c in enumerate(NUMPY_CALLS)])
def test_array_function_reaches_the_function(record, call, name, args, kwargs):
    v = view()
    rec = record(name)
    assert call(v) == ("result of", name)
    args = tuple(v if a == "v" else a for a in args)
    assert rec.calls == [((v,) + args, kwargs)]


def test_joining_functions_pass_the_sequence(record):
    v, w = view(), view()
    cat, stk = record("concatenate"), record("stack")
    np.concatenate([v, w], axis=1)
    np.stack((v, np.ones((2, 3))), dtype=np.float32)
    assert cat.calls == [(([v, w],), {"axis": 1, "out": None, "dtype": None, "casting": "same_kind"})]
    assert stk.calls[0][1] == {"axis": 0, "out": None, "dtype": np.float32, "casting": "same_kind"}


def test_shape_queries_answer_without_the_data():
    v = view((2, 3, 4), "int32")
    assert np.shape(v) == (2, 3, 4)
    assert np.ndim(v) == 3
    assert np.size(v) == 24 and np.size(v, 1) == 3 and np.size(v, -1) == 4
    assert np.result_type(v, 1.5) == np.result_type(np.ones(1, np.int32), 1.5)
    assert np.result_type(v, np.float32) == np.float64
    assert np.result_type(v, view((), "float32")) == np.float64
    assert np.can_cast(v, np.int64) and not np.can_cast(v, np.int16)


# ------------------------------------------------------------------ what raises

UNSUPPORTED_UFUNC_CALLS = [
    (lambda v: np.logaddexp2(v, v), "numpy.logaddexp2"),
    (lambda v: np.gcd(v, v), "numpy.gcd"),
    (lambda v: np.add.accumulate(v), "numpy.add.accumulate"),
    (lambda v: np.add.outer(v, v), "numpy.add.outer"),
    (lambda v: np.add.at(v, [0], 1), "numpy.add.at"),
    (lambda v: np.add.reduceat(v, [0, 1]), "numpy.add.reduceat"),
    (lambda v: np.subtract.reduce(v), "numpy.subtract.reduce"),
    (lambda v: np.add(v, v, where=np.ones((2, 3), bool)), "numpy.add with where="),
    (lambda v: np.add(v, v, order="F"), "numpy.add with order="),
    (lambda v: np.add(v, v, casting="unsafe"), "numpy.add with casting="),
    (lambda v: np.add(v, v, signature=("d", "d", "d")), "numpy.add with signature="),
    (lambda v: np.add.reduce(v, initial=1.0), "numpy.add.reduce with initial="),
    (lambda v: np.add.reduce(v, where=np.ones((2, 3), bool)), "numpy.add.reduce with where="),
    (lambda v: np.sum(v, initial=0.0), "numpy.sum with initial="),
    (lambda v: np.max(v, where=np.ones((2, 3), bool), initial=0.0), "numpy.max with initial="),
]

UNSUPPORTED_FUNCTIONS = [
    (lambda v: np.linalg.norm(v), "numpy.linalg.norm"),
    (lambda v: np.clip(v, 0, 1), "numpy.clip"),
    (lambda v: np.partition(v, 1), "numpy.partition"),
    (lambda v: np.diff(v), "numpy.diff"),
    (lambda v: np.dot(v, v), "numpy.dot"),
    (lambda v: np.allclose(v, v), "numpy.allclose"),
    (lambda v: np.trace(v, offset=1), "numpy.trace with offset="),
]


@pytest.mark.parametrize("call,name", UNSUPPORTED_UFUNC_CALLS + UNSUPPORTED_FUNCTIONS,
                         ids=[c[1] for c in UNSUPPORTED_UFUNC_CALLS + UNSUPPORTED_FUNCTIONS])
def test_what_the_library_lacks_raises_typeerror_naming_it(call, name):
    v = view()
    with pytest.raises(TypeError) as info:
        call(v)
    assert name in str(info.value)
    assert "not supported for DeviceArray" in str(info.value)


def test_a_function_missing_from_the_build_raises_typeerror(monkeypatch):
    monkeypatch.delattr(myModule, "mean", raising=False)
    with pytest.raises(TypeError, match="numpy.mean .*no mean"):
        np.mean(view())


def test_host_copies_stay_explicit():
    # np.asarray(d) is the explicit copy (__array__, not dispatch): over no memory it
    # fails in CUDA.
    v = view()
    if H.GPU:
        assert_same_result(np.asarray(v), np.zeros((2, 3)))
    else:
        with pytest.raises(myModule.CudaError):
            np.asarray(v)


# ------------------------------------------------------------------ hostile callers

def test_out_tuples_of_the_wrong_length():
    a = np.ones(3)
    for out in [(), (a, a), (a, a, a)]:
        with pytest.raises(ValueError, match="exactly one entry per ufunc output"):
            _dispatch.array_ufunc(None, np.add, "__call__", a, a, out=out)
        with pytest.raises(ValueError, match="exactly one entry"):
            _dispatch.array_ufunc(None, np.add, "reduce", a, out=out)


def test_out_given_as_a_bare_array_and_as_none():
    a = np.arange(3.0)
    out = np.empty(3)
    assert _dispatch.array_ufunc(None, np.add, "__call__", a, a, out=out) is out
    assert_same_result(out, a + a)
    assert_same_result(_dispatch.array_ufunc(None, np.add, "__call__", a, a, out=(None,)), a + a)


def test_wrong_keywords_and_input_counts():
    a = np.ones(3)
    with pytest.raises(TypeError, match="unexpected keyword arguments: axis"):
        _dispatch.array_ufunc(None, np.add, "__call__", a, a, axis=0)
    with pytest.raises(TypeError, match="unexpected keyword arguments: bogus"):
        _dispatch.array_ufunc(None, np.add, "reduce", a, bogus=1)
    with pytest.raises(TypeError, match="takes 2 inputs, 1 given"):
        _dispatch.array_ufunc(None, np.add, "__call__", a)
    with pytest.raises(TypeError, match="takes one array"):
        _dispatch.array_ufunc(None, np.add, "reduce", a, a)
    with pytest.raises(TypeError):
        _dispatch.array_ufunc(None, np.add, "__call__", a, a, dtype="not a dtype")
    with pytest.raises(TypeError, match="numpy.add.frobnicate"):
        _dispatch.array_ufunc(None, np.add, "frobnicate", a)
    with pytest.raises(TypeError):  # NumPy's own argument names, not ours
        _dispatch.array_function(None, np.sum, (np.ndarray,), (a,), {"keepdim": True})
    with pytest.raises(TypeError):
        _dispatch.array_function(None, np.max, (np.ndarray,), (a,), {"dtype": np.float64})


def test_keywords_at_values_we_honour_are_accepted():
    a = np.arange(3.0)
    for kw in ({"where": True}, {"where": np.True_}, {"casting": "same_kind"}, {"order": "K"},
               {"order": "C"}, {"subok": False}, {"signature": None}, {"dtype": None}):
        assert_same_result(_dispatch.array_ufunc(None, np.add, "__call__", a, a, **kw), a + a)
    for kw in ({"where": True}, {"keepdims": False}, {"dtype": None}, {"out": None}):
        assert_same_result(_dispatch.array_ufunc(None, np.add, "reduce", a, **kw), np.add.reduce(a))
    for kw in ({"where": False}, {"where": np.array([True, False, True])}, {"where": 1}):
        with pytest.raises(TypeError, match="with where="):
            _dispatch.array_ufunc(None, np.add, "__call__", a, a, **kw)
    with pytest.raises(TypeError, match="with dtype="):  # a byte order the GPU does not keep
        _dispatch.array_ufunc(None, np.add, "__call__", a, a, dtype=np.dtype(">f8"))


def test_the_callers_keywords_are_not_changed():
    a = np.ones(3)
    kwargs = {"out": (np.empty(3),), "casting": "same_kind"}
    before = dict(kwargs)
    _dispatch.array_ufunc(None, np.add, "__call__", a, a, **kwargs)
    assert kwargs == before
    kwargs = {"axis": 0}
    _dispatch.array_function(None, np.sum, (np.ndarray,), (a,), kwargs)
    assert kwargs == {"axis": 0}


class Declines:
    """An operand whose own __array_ufunc__ and __array_function__ decline everything."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return NotImplemented

    def __array_function__(self, func, types, args, kwargs):
        return NotImplemented


class Refuses:
    """An operand that refuses ufuncs altogether (NEP 13's None)."""
    __array_ufunc__ = None


class Claims:
    """An operand that says it handles everything, and answers for itself."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return ("claimed", ufunc.__name__, method)

    def __array_function__(self, func, types, args, kwargs):
        return ("claimed", func.__name__)


class BrokenInterface:
    """Says it is a GPU array, but its interface raises."""
    __array_ufunc__ = Declines.__array_ufunc__

    @property
    def __cuda_array_interface__(self):
        raise RuntimeError("this interface lies")


def test_operands_with_protocols_of_their_own_are_left_to_them(record):
    v = view()
    add = record("add")
    for other in (Declines(), Refuses(), Claims()):
        assert _dispatch.array_ufunc(None, np.add, "__call__", v, other) is NotImplemented
        assert _dispatch.array_ufunc(None, np.add, "__call__", v, v, out=(other,)) is NotImplemented
    assert _dispatch.array_function(None, np.sum, (type(v), Claims), (v,), {}) is NotImplemented
    assert not add.calls
    with pytest.raises(TypeError, match="numpy.concatenate"):
        np.concatenate([v, Declines()])
    assert np.add(v, Claims()) == ("claimed", "add", "__call__")
    assert np.add.accumulate(Claims()) == ("claimed", "add", "accumulate")
    assert np.concatenate([v, Claims()]) == ("claimed", "concatenate")
    assert not add.calls


@gpu
def test_operands_that_decline_make_numpy_raise_typeerror():
    # NumPy's message shows the operands' repr, which reads the data: a GPU test.
    d = myModule.to_device(np.ones(3))
    for other in (Declines(), Refuses()):
        with pytest.raises(TypeError):
            np.add(d, other)
        with pytest.raises(TypeError):
            np.add(other, d)


def test_a_lying_gpu_interface_is_the_function_s_to_refuse():
    # A GPU array is taken (not declined), so the importer meets the lie and says so.
    with pytest.raises(RuntimeError, match="this interface lies"):
        np.add(view(), BrokenInterface())


# ------------------------------------------------------------------ on the GPU

@gpu
@pytest.mark.parametrize("op", TABLE_UFUNCS, ids=UFUNC_IDS)
def test_every_table_ufunc_on_device_arrays(op, rng):
    ufunc = ufunc_of(op)
    for dtype in compute_dtypes(op):
        _, arrays = arguments(op, dtype, (5, 7), rng)
        devices = [myModule.to_device(a) for a in arrays]
        expected = ufunc(*arrays)
        got = ufunc(*devices)
        assert isinstance(got, myModule.DeviceArray), type(got)
        complex_in = np.dtype(dtype).kind == "c"
        assert_matches(op, got.get(), expected, complex_in)
        # host and device operands mixed: still on the GPU
        mixed = ufunc(arrays[0], *devices[1:]) if op["nin"] > 1 else ufunc(devices[0])
        assert isinstance(mixed, myModule.DeviceArray)
        assert_matches(op, mixed.get(), expected, complex_in)
        out = myModule.to_device(np.zeros_like(expected))
        assert ufunc(*devices, out=out) is out
        assert_matches(op, out.get(), expected, complex_in)


@gpu
def test_ufunc_keywords_and_operators_on_the_gpu():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    d = myModule.to_device(a)
    H.assert_same(np.add(d, d, dtype=np.float64), np.add(a, a, dtype=np.float64))
    H.assert_same(np.maximum(d, 5), np.maximum(a, 5))
    r = np.ones((3, 4)) + d
    assert isinstance(r, myModule.DeviceArray)
    H.assert_same(r, np.ones((3, 4)) + a)
    r = np.float32(2) * d
    assert isinstance(r, myModule.DeviceArray)
    H.assert_same(r, np.float32(2) * a)
    host = np.zeros((3, 4), dtype=np.int64)
    host += d                                # out= a host array: the explicit download
    H.assert_same(host, a.astype(np.int64))


def exact_values(rng, shape):
    """Powers of two and their negatives: every sum and product of them is exact
    whatever the order of a tree reduction."""
    return rng.choice([-1.0, 1.0, 0.5, 2.0, -0.5], shape)


@gpu
@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum], ids=lambda u: u.__name__)
def test_full_reduce_on_the_gpu(ufunc, rng):
    x = exact_values(rng, 1000)
    got = ufunc.reduce(myModule.to_device(x))
    H.assert_same(got, ufunc.reduce(x))


@gpu
@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum], ids=lambda u: u.__name__)
def test_reduce_over_an_axis_on_the_gpu(ufunc, rng):
    x = exact_values(rng, (6, 7, 8))
    d = myModule.to_device(x)
    for kw in ({}, {"axis": 1}, {"axis": (0, 2)}, {"axis": -1, "keepdims": True}, {"axis": None}):
        got = ufunc.reduce(d, **kw)
        H.assert_same(got, ufunc.reduce(x, **kw))
    assert isinstance(ufunc.reduce(d, axis=0), myModule.DeviceArray)


REDUCING_FUNCTIONS = [np.sum, np.prod, np.max, np.amax, np.min, np.amin, np.mean, np.argmax, np.argmin]


@gpu
@pytest.mark.parametrize("func", REDUCING_FUNCTIONS, ids=lambda f: f.__name__)
def test_reducing_functions_on_the_gpu(func, rng):
    name = {"amax": "max", "amin": "min"}.get(func.__name__, func.__name__)
    assert callable(getattr(myModule, name, None)), "myModule has no %s()" % name
    # sums and products exact in any order; distinct values elsewhere (no ties for argmax)
    x = exact_values(rng, (6, 7)) if func in (np.sum, np.prod) else \
        rng.permutation(42).reshape(6, 7) - 20.0
    d = myModule.to_device(x)
    got = func(d)
    if func is np.mean:
        assert_sum_matches(H.to_host(got), np.asarray(func(x)), x, mean=True)
    else:
        H.assert_same(got, func(x))
    got = func(d, axis=1)
    assert isinstance(got, myModule.DeviceArray)
    if func is np.mean:
        assert_sum_matches(got.get(), func(x, axis=1), x, axis=1, mean=True)
    else:
        H.assert_same(got, func(x, axis=1))


ARRAY_FUNCTIONS = [
    lambda m, x: m.reshape(x, (4, 6)),
    lambda m, x: m.ravel(x),
    lambda m, x: m.transpose(x),
    lambda m, x: m.transpose(x, (1, 0)),
    lambda m, x: m.squeeze(m.expand_dims(x, 0)),
    lambda m, x: m.expand_dims(x, 1),
    lambda m, x: m.broadcast_to(x, (2, 6, 4)),
    lambda m, x: m.concatenate([x, x], axis=1),
    lambda m, x: m.stack([x, x]),
    lambda m, x: m.where(x > 5, x, -x),
    lambda m, x: m.zeros_like(x),
    lambda m, x: m.ones_like(x, dtype=np.int32),
    lambda m, x: m.full_like(x, 7.5),
    lambda m, x: m.copy(x),
]


@gpu
@pytest.mark.parametrize("call", ARRAY_FUNCTIONS, ids=range(len(ARRAY_FUNCTIONS)))
def test_array_functions_on_the_gpu(call):
    x = np.arange(24, dtype=np.float64).reshape(6, 4)
    d = myModule.to_device(x)
    got = call(np, d)
    assert isinstance(got, myModule.DeviceArray), type(got)
    H.assert_same(got, call(np, x))


@gpu
def test_shape_and_trace_on_the_gpu():
    x = np.arange(12.0).reshape(3, 4)
    d = myModule.to_device(x)
    assert (np.shape(d), np.ndim(d), np.size(d)) == ((3, 4), 2, 12)
    H.assert_same(np.trace(d), np.trace(x))
    assert isinstance(np.empty_like(d), myModule.DeviceArray)


# ------------------------------------------------------------------ the benchmark's rows

def test_bench_rows_are_cases_of_the_harness():
    import importlib
    import sys
    bench = os.path.join(ROOT, "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    from harness.builders import Builders
    from harness.cases import Case
    rows = importlib.import_module("dispatch_rows").cases(Builders({}, None, None), {})
    assert rows and all(isinstance(c, Case) for c in rows)
    for case in rows:
        assert set(case.entries) == {"myModule", "CuPy", "PyTorch"}
        assert "NumPy dispatch" in case.name
        assert case.entries["PyTorch"].skip and not case.entries["myModule"].skip
