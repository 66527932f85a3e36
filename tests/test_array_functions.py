"""The declared array functions (ext/array_functions.def) against NumPy, from
the registry alone: each parameter's kind gives its arguments (every axis of
the array, out-of-range and repeated axes, wrong types), so a new declaration
is tested without a line here. Host data checks the argument errors (raised
before the GPU is asked for, as NumPy raises them) everywhere; the results, the
methods, NumPy dispatch and the array API names are GPU tests. Also: the
registry's rows reach every place the declaration promises (exports, methods,
array API, stubs)."""
import itertools
import os

import numpy as np
import pytest

import myModule as mm
import myModule.array_api as xp
from myModule import _core
from conftest import GPU_MARKS, ROOT, Raised, assert_same_result, outcome

DECLARED = list(_core._array_functions)
WITH_NUMPY = [f for f in DECLARED if f["numpy"]]
SHAPES = [(), (5,), (2, 3, 4), (1, 3, 1)]


def kind_candidates(kind, ndim):
    """Arguments of a parameter kind for an array of ndim dimensions: valid ones
    and the errors NumPy names (out of range, repeated, wrong type)."""
    axes = list(range(-ndim, ndim))
    bad = [ndim, -ndim - 1, 1.5, "0"]
    if kind == "axis":
        return axes + bad
    if kind == "axes":
        pairs = [(a, b) for a in range(ndim) for b in range(-ndim, 0) if a != b + ndim][:3]
        return axes + pairs + [[0, 0] if ndim else [0], (ndim,)] + bad
    if kind == "new_axes":
        n = ndim + 1
        return list(range(-n, n)) + [(0, -1), (0, 0), (n,), n, -n - 1, 1.5]
    return None  # object: the implementation's own reading; tested in its own file


def calls(declared, ndim):
    """The argument tuples of `declared` for an array of ndim dimensions (None
    when a parameter kind has no generic candidates)."""
    candidates = []
    for param in declared["parameters"][1:]:
        values = kind_candidates(param["kind"], ndim)
        if values is None:
            return None
        candidates.append(values)
    return list(itertools.product(*candidates))


def numpy_function(declared):
    return getattr(np, declared["numpy"].split(".", 1)[1])


def host(shape):
    return np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)


def generic(declared):
    return pytest.param(declared, id=declared["name"])


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("declared", [generic(f) for f in WITH_NUMPY])
def test_argument_errors_on_host_data_are_numpys(declared, shape):
    """Host data: every call NumPy refuses is refused with NumPy's exception type,
    before any GPU is needed; the calls NumPy takes need a GPU (or run on it)."""
    argument_sets = calls(declared, len(shape))
    if argument_sets is None:
        pytest.skip("a parameter of kind object: tested in its own file")
    fn, ref, a = getattr(mm, declared["name"]), numpy_function(declared), host(shape)
    refused = 0
    for args in argument_sets:
        expected = outcome(lambda: ref(a, *args))
        got = outcome(lambda: fn(a, *args))
        if isinstance(expected, Raised):
            refused += 1
            assert_same_result(got, expected)
        elif isinstance(got, Raised):
            assert isinstance(got.exc, mm.CudaUnavailableError) and not mm.cuda_available(), \
                "%s%r: NumPy gave a result, myModule raised %r" % (declared["name"], args, got.exc)
    assert refused > 0  # the candidates include the errors


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("declared", [generic(f) for f in WITH_NUMPY])
@pytest.mark.parametrize("form", ["function", "method", "numpy", "array_api"])
@pytest.mark.parametrize("_gpu", [pytest.param(None, marks=GPU_MARKS, id="gpu")])
def test_results_are_numpys(declared, shape, form, _gpu):
    """On a DeviceArray, by each form the declaration gives: NumPy's result, as a
    view of the array's memory, NumPy's exception where NumPy refuses."""
    if form != "numpy" and not declared[form]:
        pytest.skip("%s has no %s form" % (declared["name"], form))
    argument_sets = calls(declared, len(shape))
    if argument_sets is None:
        pytest.skip("a parameter of kind object: tested in its own file")
    ref, a = numpy_function(declared), host(shape)
    d = mm.asarray(a)
    call = {"function": lambda args: getattr(mm, declared["name"])(d, *args),
            "method": lambda args: getattr(d, declared["name"])(*args),
            "numpy": lambda args: ref(d, *args),
            "array_api": lambda args: getattr(xp, declared["array_api"] or "_absent")(d, *args)}[form]
    for args in argument_sets:
        expected = outcome(lambda: ref(a, *args))
        got = outcome(lambda: call(args))
        if isinstance(got, Raised) or isinstance(expected, Raised):
            assert_same_result(got, expected)
            continue
        assert isinstance(got, mm.DeviceArray)
        assert_same_result(got.get(), expected)
        # a view: the same memory, strides as NumPy's view of it has
        base = d.__cuda_array_interface__["data"][0]
        assert got.__cuda_array_interface__["data"][0] == base + (expected.ctypes.data - a.ctypes.data)
        # length-1 axes' strides are arbitrary (NumPy's own choice differs by case)
        assert [s for s, n in zip(got.strides, got.shape) if n > 1] == \
            [s for s, n in zip(expected.strides, expected.shape) if n > 1]


def test_every_declaration_reaches_its_places():
    """One declaration: exported, a method where asked, an array API name where
    given, a NumPy function dispatched, a stub for type checkers, a text signature."""
    stubs = open(os.path.join(ROOT, "myModule", "_ops.pyi")).read() if os.path.exists(
        os.path.join(ROOT, "myModule", "_ops.pyi")) else None
    for f in DECLARED:
        name = f["name"]
        assert f["doc"] and f["parameters"][0]["kind"] == "array"
        if f["function"]:
            assert name in mm.__all__ and getattr(mm, name) is getattr(_core, name)
            assert getattr(mm, name).__text_signature__ == f["signature"]
            if stubs is not None:
                assert "def %s(" % name in stubs
        assert hasattr(mm.DeviceArray, name) == f["method"], name
        if f["array_api"]:
            assert getattr(xp, f["array_api"]) is getattr(_core, name)
            assert f["array_api"] in xp.__all__
        if f["numpy"]:
            from myModule._dispatch import FUNCTIONS
            assert numpy_function(f) in FUNCTIONS, "np.%s is not dispatched" % name


@pytest.mark.parametrize("bad", [None, object(), 2 ** 70, -(2 ** 70), True])
def test_hostile_axes_raise_like_numpy(bad):
    a = host((2, 3))
    for f in WITH_NUMPY:
        if calls(f, 2) is None:
            continue
        args = [bad] * (len(f["parameters"]) - 1)
        expected = outcome(lambda: numpy_function(f)(a, *args))
        got = outcome(lambda: getattr(mm, f["name"])(a, *args))
        if isinstance(expected, Raised):
            assert isinstance(got, Raised), "%s(%r) returned where NumPy raised %r" % (f["name"], bad, expected)
            assert isinstance(got.exc, (TypeError, ValueError, IndexError, OverflowError)), (f["name"], got)
