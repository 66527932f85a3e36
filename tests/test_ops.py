"""The op table tested from its own declarations (myModule.ops): every operation
against the NumPy counterpart it names, with no operation listed here by hand.

- dtype rules (no GPU needed): for every elementwise op and every combination of
  arrays of every supported dtype and Python bool/int/float scalars, the
  library's result dtype (myModule._core._op_dtypes, i.e. va_op_dtypes) is NumPy's,
  or TypeError where NumPy's would not be a supported dtype.
- values on the GPU: host data (device="cuda") in every layout of conftest's
  LAYOUTS, and device arrays (contiguous, reversed, strided, transposed,
  broadcast), with special values (NaN, +-inf, -0.0, subnormals, integer
  extremes): bit-identical to NumPy where the declaration says ulp 0, else within
  its ULP, NaN/inf/zero signs as NumPy.
- reductions: every dtype, sizes 0, 1, block edges and large, strided and
  broadcast layouts; empty inputs as NumPy (identity or ValueError).
- DeviceArray operators: each declaration's pyop gives the same result as the
  function, in place too.
- signatures follow the declarations; the docs table lists every operation.
User kernels (kind "raw", user_ops/) are tested in test_user_ops.py.
"""
import importlib
import inspect
import operator
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import myModule
from compare_floats import assert_complex_match, assert_floats_match, assert_sum_matches
from conftest import (COMPLEX_REFUSED_BY_DECISION, EVERY_DTYPE, GPU_MARKS, LAYOUTS, ROOT, Raised,
                      assert_same_result, make_layout, outcome, random_values, requires_gpu, requires_no_gpu)

OPS = myModule.ops
ELEMENTWISE = [op for op in OPS if op["kind"] == "elementwise"]
REDUCTIONS = [op for op in OPS if op["kind"] == "reduction"]
WITH_OPERATOR = [op for op in ELEMENTWISE if op["pyop"]]
# Every dtype the library has (its one list, the va_dtype enum), complex included:
# an operation is drawn in each it declares loops for.
DTYPES = [d.name for d in EVERY_DTYPE]
PY_SCALARS = {"py-bool": True, "py-int": 3, "py-float": 2.5, "py-complex": 1.5 - 2j}
SUPPORTED = {np.dtype(d) for d in DTYPES}

pytestmark = pytest.mark.usefixtures("quiet_numpy")


def ids(ops):
    return [op["name"] for op in ops]


def reference(op):
    module, _, name = op["reference"].rpartition(".")
    return getattr(importlib.import_module(module), name)


def fn(op):
    return getattr(myModule, op["name"])


# ------------------------------------------------------------------ values

def values_for(op, position, dtype, shape, rng, special=True):
    """Random values for argument `position` of `op` (its arrays counted after
    its params), kept inside what NumPy computes without raising (power: no
    negative integer exponents). Complex: specials only for the exact complex
    loops (C99's Annex G leaves where a NaN lands to each library, and NumPy's
    and CUDA's differ); a power's base below 1/100 of the data's range and its
    exponent inside the unit disk, where |z**w| stays finite."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind == "c":
        x = random_values(dtype, shape, rng, special=special and op["complex_ulp"] == 0)
        if op["name"] == "power":
            x = x / 100 if position == op["nparams"] else x / np.maximum(1, np.abs(x))
        return x.astype(dtype)
    x = random_values(dtype, shape, rng, special=special)
    if op["name"] == "power" and position == op["nparams"] + 1 and dtype.kind in "iu":
        x = np.abs(x % 70).astype(dtype)  # exponents 0..69: wrap-around, no negatives
    return x


def compute_dtypes(op):
    """The dtypes the op computes in (its declared loops)."""
    return [d for d in DTYPES if d in op["results"]]


def widest_dtypes(op):
    """The last real and the last complex dtype the op computes in (those it has)."""
    loops = compute_dtypes(op)
    return [d for d in loops if np.dtype(d).kind != "c"][-1:] + [d for d in loops if np.dtype(d).kind == "c"][-1:]


def refused_by_decision(op, values):
    """Complex values for an operation with no complex loops: those left out by
    decision (complex order: docs/SPEC.md; test_complex.py holds that these are all
    of NumPy's), and an elementwise functor that declares none (user_ops/' axpy,
    softplus), whatever its Python reference computes. (all, any and count_nonzero
    list no complex loop: they read complex input through bool.) `values`: dtype
    names or the call's arguments."""
    def is_complex(v):
        return np.dtype(v).kind == "c" if isinstance(v, (str, np.dtype)) else np.iscomplexobj(v)
    left_out = op["name"] in COMPLEX_REFUSED_BY_DECISION or (
        op["kind"] == "elementwise" and "complex128" not in op["results"])
    return left_out and any(is_complex(v) for v in values)


def arguments(op, dtype, shape, rng):
    """Params (Python floats/ints as the dtype suits) and arrays of `dtype` (bool
    for fixed bool inputs such as where's condition)."""
    params = [2.0 if np.dtype(dtype).kind in "fc" else 3 for _ in range(op["nparams"])]
    arrays = []
    for k in range(op["nin"]):
        d = op["fixed_inputs"][k] or dtype
        arrays.append(values_for(op, op["nparams"] + k, d, shape, rng))
    return params, arrays


def assert_matches(op, got, expected, complex_in=False):
    """Bit-identical for ulp 0; else within the declared ULP, counted at
    max(|NumPy's result|, the declared ulp_floor), with NaN, +-inf and zero signs
    exactly where NumPy has them (compare_floats). Complex arguments or results:
    the declared complex_ulp (and complex_ulp_floor), part by part."""
    if complex_in or np.asarray(expected).dtype.kind == "c":
        assert_complex_match(got, expected, op["complex_ulp"], op["complex_ulp_floor"], msg="%s: " % op["name"])
        return
    if op["ulp"] == 0 or np.asarray(expected).dtype.kind != "f":
        assert_same_result(got, expected)
        return
    if op["ulp_floor"] > 0:
        e = np.asarray(expected)
        scale = np.maximum(np.abs(np.where(np.isfinite(e), e, 0)), e.dtype.type(op["ulp_floor"]))
        assert_floats_match(got, expected, tol=op["ulp"] * np.spacing(scale), msg="%s: " % op["name"])
        return
    assert_floats_match(got, expected, ulp=op["ulp"], msg="%s: " % op["name"])


# ------------------------------------------------------------------ dtype rules (CPU)

def kinds_for(op):
    return DTYPES + list(PY_SCALARS)


def sample(kind):
    if kind in PY_SCALARS:
        return PY_SCALARS[kind]
    return np.ones(2, dtype=kind)


@pytest.mark.parametrize("op", ELEMENTWISE, ids=ids(ELEMENTWISE))
def test_result_dtypes_are_numpys(op):
    import itertools
    ref = reference(op)
    checked = 0
    param_values = [2.0] * op["nparams"]
    for combo in itertools.product(kinds_for(op), repeat=op["nin"]):
        args = param_values + [sample(k) for k in combo]
        expected = outcome(lambda: np.asarray(ref(*args)).dtype)
        got = outcome(lambda: myModule._core._op_dtypes(op["name"], *args))
        if isinstance(expected, Raised) or expected not in SUPPORTED or refused_by_decision(op, args):
            assert isinstance(got, Raised) and isinstance(got.exc, TypeError), (
                "%s%s: NumPy gives %r, myModule %r" % (op["name"], combo, expected, got))
            if not isinstance(expected, Raised) and expected in SUPPORTED:  # complex left out
                assert "no complex loops" in str(got.exc), (op["name"], combo, got)
        else:
            assert not isinstance(got, Raised), "%s%s: NumPy gives %s, myModule raised %r" % (
                op["name"], combo, expected, got)
            assert got[1] == expected.name, "%s%s: NumPy gives %s, myModule %s" % (
                op["name"], combo, expected, got[1])
        checked += 1
    assert checked == len(kinds_for(op)) ** op["nin"]


@pytest.mark.parametrize("op", REDUCTIONS, ids=ids(REDUCTIONS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_reduction_dtypes_and_cpu_values_are_numpys(op, dtype, rng):
    x = values_for(op, 0, dtype, (5, 7), rng)[:, ::2]
    if refused_by_decision(op, [dtype]):
        with pytest.raises(TypeError, match="complex"):
            fn(op)(x, device="cpu")
        return
    assert_same_result(outcome(lambda: fn(op)(x, device="cpu")), outcome(lambda: reference(op)(x)))


@pytest.mark.parametrize("op", ELEMENTWISE, ids=ids(ELEMENTWISE))
def test_cpu_path_is_numpys_own(op, rng):
    for dtype in compute_dtypes(op):
        params, arrays = arguments(op, dtype, (3, 4), rng)
        assert_same_result(fn(op)(*params, *arrays, device="cpu"), reference(op)(*params, *arrays))
        out = np.empty((3, 4), dtype=op["results"][dtype])
        got = fn(op)(*params, *arrays, out=out, device="cpu")
        assert got is out
        assert_same_result(out, np.asarray(reference(op)(*params, *arrays)))


@pytest.mark.parametrize("op", OPS, ids=ids(OPS))
def test_signature_follows_the_declaration(op):
    names = list(inspect.signature(fn(op)).parameters)
    tail = {"reduction": (["axis", "dtype", "out", "keepdims", "device"] if op["domain"] in ("sum", "mean")
                          else ["axis", "out", "keepdims", "device"]),
            "raw": ["out", "grid", "block", "shared_mem", "shape", "dtype"]}.get(op["kind"], ["out", "device"])
    assert names == list(op["args"]) + tail
    assert op["doc"] in fn(op).__doc__
    assert op["name"] in myModule.__all__


def test_docs_table_lists_every_operation(tmp_path):
    path = tmp_path / "operations.md"
    installed = not os.path.abspath(myModule.__file__).startswith(os.path.join(ROOT, "myModule"))
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "optable_docs.py"), str(path)] +
                          (["--installed"] if installed else []), capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = path.read_text()
    for op in OPS:
        assert "| `%s` |" % op["name"] in text and op["doc"] in text
    # The array API page's list of elementwise functions: the namespace's, no more.
    from myModule import array_api
    listed = re.findall(r"``(\w+)``", (tmp_path / "array-api-elementwise.inc").read_text())
    assert listed == sorted(listed) and set(listed) == set(array_api._elementwise.names)
    assert all(callable(getattr(array_api, name)) for name in listed)


NOT_RAW = [op for op in OPS if op["kind"] != "raw"]


@requires_no_gpu
@pytest.mark.parametrize("op", NOT_RAW, ids=ids(NOT_RAW))
def test_device_cuda_without_a_gpu_raises(op, rng):
    dtype = compute_dtypes(op)[-1] if op["kind"] == "elementwise" else "float64"
    if op["kind"] == "reduction":
        call = lambda: fn(op)(np.ones(3, dtype), device="cuda")  # noqa: E731
    else:
        params, arrays = arguments(op, dtype, (3,), rng)
        call = lambda: fn(op)(*params, *arrays, device="cuda")  # noqa: E731
    with pytest.raises(myModule.CudaUnavailableError):
        call()


@pytest.mark.parametrize("op", NOT_RAW, ids=ids(NOT_RAW))
@pytest.mark.parametrize("device", ["cpu", "auto"])
def test_unsupported_dtypes_raise_type_error(op, device):
    bad = np.ones(3, np.float16)
    args = [2.0] * op["nparams"] + [bad] * op["nin"]
    with pytest.raises(TypeError):
        fn(op)(*args, device=device)


# ------------------------------------------------------------------ GPU: host data

@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("op", ELEMENTWISE, ids=ids(ELEMENTWISE))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_host_data_on_the_gpu_matches_numpy(op, layout, rng):
    for dtype in compute_dtypes(op):
        for shape in [(37, 61), (1,), ()]:
            params, arrays = arguments(op, dtype, shape, rng)
            arrays = [make_layout(a, layout) for a in arrays]
            expected = outcome(lambda: reference(op)(*params, *arrays))
            got = outcome(lambda: fn(op)(*params, *arrays, device="cuda"))
            if isinstance(expected, Raised):
                assert_same_result(got, expected)
            else:
                assert_matches(op, got, expected, np.dtype(dtype).kind == "c")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("op", ELEMENTWISE, ids=ids(ELEMENTWISE))
def test_host_data_large_goes_through_the_pipeline(op, rng):
    for dtype in widest_dtypes(op):
        params, arrays = arguments(op, dtype, (3 * 2**20 + 5,), rng)
        assert_matches(op, fn(op)(*params, *arrays, device="cuda"), reference(op)(*params, *arrays),
                       np.dtype(dtype).kind == "c")


# (first input, second input) of n elements: a chunk's inputs lie side by side in one
# pinned buffer and go up in one copy (stage_inputs, vectorAdd/host_path.cu), so the
# second one's place depends on the first one's width and on whether it is a scalar.
SIDE_BY_SIDE = {
    "float32, float64": lambda rng, n: (rng.standard_normal(n).astype(np.float32), rng.standard_normal(n)),
    "float64, float32": lambda rng, n: (rng.standard_normal(n), rng.standard_normal(n).astype(np.float32)),
    "int8, float64": lambda rng, n: (rng.integers(-128, 128, n, dtype=np.int8), rng.standard_normal(n)),
    "complex128, float32": lambda rng, n: (
        rng.standard_normal(n) + 1j * rng.standard_normal(n), rng.standard_normal(n).astype(np.float32)),
    "broadcast scalar, float64": lambda rng, n: (np.broadcast_to(np.float64(-2.5), (n,)), rng.standard_normal(n)),
    "float64, broadcast scalar": lambda rng, n: (rng.standard_normal(n), np.broadcast_to(np.float32(3.25), (n,))),
}


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("pair", sorted(SIDE_BY_SIDE))
@pytest.mark.parametrize("n", [3 * 2**20 + 5, 2**22 + 255])
def test_pipeline_uploads_two_inputs_of_any_width_in_one_copy(pair, n, rng):
    a, b = SIDE_BY_SIDE[pair](rng, n)
    for name in ("subtract", "multiply"):
        got = getattr(myModule, name)(a, b, device="cuda")
        assert_same_result(got, getattr(np, name)(a, b))
        got = getattr(myModule, name)(b, a, device="cuda")
        assert_same_result(got, getattr(np, name)(b, a))


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("op", [op for op in ELEMENTWISE if op["nin"] >= 2], ids=ids(
    [op for op in ELEMENTWISE if op["nin"] >= 2]))
def test_mixed_dtypes_and_python_scalars(op, rng):
    import itertools
    for kinds in itertools.product(DTYPES + ["py-int", "py-float", "py-complex"], repeat=2):
        params = [2.0] * op["nparams"]
        # real specials met by a complex argument: as values_for's complex ones
        special = op["complex_ulp"] == 0 or not any(k == "py-complex" or k.startswith("complex") for k in kinds)
        arrays = [values_for(op, op["nparams"] + k, op["fixed_inputs"][k] or "float64", (300,), rng, special)
                  for k in range(op["nin"])]
        for k, kind in zip(range(op["nin"] - 2, op["nin"]), kinds):
            arrays[k] = (PY_SCALARS[kind] if kind in PY_SCALARS
                         else values_for(op, op["nparams"] + k, kind, (300,), rng, special))
        if op["name"] == "power" and not special and isinstance(arrays[-1], np.ndarray):
            # a real exponent of a complex power inside the declared bound's domain
            # (ops/power.cu): floats inside [-1, 1], as values_for's complex ones, and
            # integers below 16 (powers by squaring double their error each squaring)
            w = arrays[-1]
            arrays[-1] = w % 16 if w.dtype.kind in "iu" else (w / np.maximum(1, np.abs(w))).astype(w.dtype)
        expected = outcome(lambda: reference(op)(*params, *arrays))
        got = outcome(lambda: fn(op)(*params, *arrays, device="cuda"))
        if isinstance(expected, Raised) or np.asarray(expected).dtype not in SUPPORTED or \
                refused_by_decision(op, arrays):
            assert isinstance(got, Raised), (op["name"], kinds, got)
        else:
            assert_matches(op, got, expected, any(np.iscomplexobj(a) for a in arrays))


# ------------------------------------------------------------------ GPU: device arrays

def device_views(a):
    """(name, device view, host equivalent) for layouts a DeviceArray can have."""
    d = myModule.to_device(a)
    views = [("contiguous", d, a)]
    if a.ndim == 2:
        views += [("reversed", d[::-1, ::-1], a[::-1, ::-1]), ("strided", d[::2, ::3], a[::2, ::3]),
                  ("transposed", d.T, a.T)]
    return views


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("op", ELEMENTWISE, ids=ids(ELEMENTWISE))
def test_device_arrays_match_numpy(op, rng):
    for dtype in compute_dtypes(op):
        params, arrays = arguments(op, dtype, (40, 66), rng)
        per_input = [device_views(a) for a in arrays]
        for v in range(len(per_input[0])):
            name = per_input[0][v][0]
            dev = [views[v][1] for views in per_input]
            host = [views[v][2] for views in per_input]
            expected = reference(op)(*params, *host)
            got = fn(op)(*params, *dev)
            assert isinstance(got, myModule.DeviceArray), name
            assert_matches(op, got.get(), np.asarray(expected), np.dtype(dtype).kind == "c")
        # A broadcast row against the full array, and a 0-d device array.
        row = [myModule.to_device(a[:1]) for a in arrays]
        expected = reference(op)(*params, *[a[:1] for a in arrays[:-1]], arrays[-1])
        got = fn(op)(*params, *row[:-1], myModule.to_device(arrays[-1]))
        assert_matches(op, got.get(), np.asarray(expected), np.dtype(dtype).kind == "c")


ARRAYS_ONLY = [op for op in ELEMENTWISE if op["nparams"] == 0]


def view_as(d, view):
    """A view of the (6, 5) device array d of shape `view`: reversed rows, a row, a
    column, an element (0-d)."""
    return {(6, 5): lambda: d[::-1], (1, 5): lambda: d[:1, :], (6, 1): lambda: d[:, 1:2],
            (): lambda: d[2, 3]}[view]()


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("op", ARRAYS_ONLY, ids=ids(ARRAYS_ONLY))
def test_positional_device_arrays_take_the_general_paths_decisions(op, rng):
    """op(x, y) of DeviceArrays of one shape skips the general parsing
    (elementwise_of_device_arrays, ext/elementwise.cpp); with a keyword the same call
    takes the general path. Both give the same result, dtype and shape, or the same
    error: every dtype alike, mixed dtypes (promotion, and no loop), views, and shapes
    that broadcast (which the short path leaves to the general one)."""
    pairs = [(d, d) for d in DTYPES] + [("int8", "float32"), ("uint64", "int64"), ("bool", "complex64"),
                                        ("int16", "uint32")]
    for first, second in pairs:
        host = [values_for(op, k, first if k == 0 else second, (6, 5), rng) for k in range(op["nin"])]
        dev = [myModule.to_device(h) for h in host]
        for views in ([(6, 5)] * op["nin"], [(6, 5), (1, 5), (6, 1)][:op["nin"]], [()] * op["nin"]):
            args = [view_as(d, v) for d, v in zip(dev, views)]
            positional = outcome(lambda: fn(op)(*args))
            keyword = outcome(lambda: fn(op)(*args, device=None))
            case = (first, second, views)
            if isinstance(keyword, Raised):
                assert isinstance(positional, Raised), case
                assert type(positional.exc) is type(keyword.exc) and str(positional.exc) == str(keyword.exc), case
                continue
            assert isinstance(positional, myModule.DeviceArray), (case, positional)
            assert (positional.dtype, positional.shape) == (keyword.dtype, keyword.shape), case
            assert positional.get().tobytes() == keyword.get().tobytes(), case


# Element counts around the contiguous kernel's tiles: a block takes 256 packs (a
# thread one, or packs t, t + 256 / U, ... where the functor declares
# packs_per_thread = U, which is 2 or 4).
# For 2-element packs: a last tile of 127, 128 and 129 packs, whole tiles, an
# element after the last pack; and every count again from one element in, where no
# pack is aligned (the one-element kernel).
TILE_EDGE_ELEMENTS = [1, 2, 3, 254, 255, 256, 257, 258, 510, 511, 512, 513, 766, 767, 768, 769,
                      770, 1024, 1025, 1278, 1280, 1282, 65537]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("op", ELEMENTWISE, ids=ids(ELEMENTWISE))
def test_contiguous_tile_edges_match_numpy(op, rng):
    longest = max(TILE_EDGE_ELEMENTS) + 1
    for dtype in widest_dtypes(op):
        params, arrays = arguments(op, dtype, (longest,), rng)
        dev = [myModule.to_device(a) for a in arrays]
        for n in TILE_EDGE_ELEMENTS:
            for start in (0, 1):
                expected = reference(op)(*params, *[a[start:start + n] for a in arrays])
                got = fn(op)(*params, *[d[start:start + n] for d in dev])
                assert got.shape == (n,), (op["name"], dtype, n, start)
                assert_matches(op, got.get(), np.asarray(expected), np.dtype(dtype).kind == "c")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("op", ELEMENTWISE, ids=ids(ELEMENTWISE))
def test_broadcast_element_at_tile_edges_matches_numpy(op, rng):
    # The contiguous kernel's other body: an input that is one element broadcast
    # (the kernel's scalar mask), first input alone and then every input, into an
    # out= of counts around the tiles.
    counts = [255, 256, 513, 766, 1278, 1282, 65537]
    for dtype in widest_dtypes(op):
        params, arrays = arguments(op, dtype, (max(counts),), rng)
        for n in counts:
            for broadcast in sorted({1, op["nin"]}):
                host = [a[:1] if k < broadcast else a[:n] for k, a in enumerate(arrays)]
                expected = np.asarray(reference(op)(*params, *[np.broadcast_to(h, (n,)) for h in host]))
                out = myModule.empty(n, dtype=expected.dtype)
                got = fn(op)(*params, *[myModule.to_device(h) for h in host], out=out)
                assert got is out
                assert_matches(op, out.get(), expected, np.dtype(dtype).kind == "c")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("op", ELEMENTWISE, ids=ids(ELEMENTWISE))
def test_device_out_and_in_place(op, rng):
    for dtype in widest_dtypes(op):
        params, arrays = arguments(op, dtype, (1000,), rng)
        expected = np.asarray(reference(op)(*params, *arrays))
        out = myModule.empty(1000, dtype=expected.dtype)
        got = fn(op)(*params, *[myModule.to_device(a) for a in arrays], out=out)
        assert got is out
        assert_matches(op, out.get(), expected, np.dtype(dtype).kind == "c")


@pytest.mark.gpu
@requires_gpu
def test_integer_power_with_negative_exponents():
    base = np.array([1, -1, -1, 2, 0, -3], np.int64)
    exponent = np.array([-3, -3, -2, -1, -1, -2], np.int64)
    with pytest.raises(ValueError):
        myModule.power(base, exponent, device="cuda")  # as NumPy, for host data
    got = myModule.power(myModule.to_device(base), myModule.to_device(exponent)).get()
    np.testing.assert_array_equal(got, [1, -1, 1, 0, 0, 0])  # the documented device result


# ------------------------------------------------------------------ reductions

SIZES = [1, 2, 255, 256, 257, 4097, 100003]


def reduction_values(op, dtype, n, rng):
    """Specials (NaN, inf, extremes) for max and min; finite values in range for
    sum and prod, whose float results are compared within rounding."""
    if op["name"] in ("max", "min") or np.dtype(dtype).kind not in "fc":
        return values_for(op, 0, dtype, (n,), rng)
    if op["name"] == "prod":
        x = rng.uniform(0.9, 1.1, n).astype(dtype)
        if np.dtype(dtype).kind == "c":  # near the unit circle: |prod| stays near 1
            x = x * np.exp(1j * rng.uniform(-0.05, 0.05, n)).astype(dtype)
        return x
    return random_values(dtype, (n,), rng, special=False)


def assert_reduction(op, got, expected, x):
    if isinstance(got, myModule.DeviceArray):  # a device input's result stays there, 0-d
        assert got.shape == ()
        got = got.get()[()]
    got_a, exp_a = np.asarray(got), np.asarray(expected)
    assert type(got) is type(expected) and got_a.dtype == exp_a.dtype, (got, expected)
    if exp_a.dtype.kind not in "fc" or op["name"] in ("max", "min"):
        # (a zero max/min may have either sign: docs/SPEC.md)
        assert_floats_match(got_a, exp_a, ulp=0, zero_sign=False, msg="%s: " % op["name"])
    elif op["name"] in ("sum", "mean"):
        assert_sum_matches(got_a, exp_a, x, mean=op["name"] == "mean", msg="%s: " % op["name"])
    elif exp_a.dtype.kind == "c":
        # complex products, against NumPy's in complex128 (the library accumulates in
        # complex128 and rounds once; NumPy's complex64 product rounds n times): complex64
        # within 4 of its eps of that, complex128 within n * 4 eps (both round n times)
        exact = np.prod(np.asarray(x).astype(np.complex128))
        eps = np.finfo(exp_a.real.dtype).eps
        tol = (4 if exp_a.dtype == np.complex64 else 4 * max(np.size(x), 1)) * eps * max(abs(exact), 1e-300)
        for part in (np.real, np.imag):
            assert_floats_match(part(got_a), part(exact.astype(exp_a.dtype)), tol=tol, msg="%s: " % op["name"])
    else:  # products of values near 1: one rounding per element in NumPy's
        tol = (2e-5 if exp_a.dtype == np.float32 else 1e-12) * max(abs(float(exp_a)), 1.0)
        assert_floats_match(got_a, exp_a, tol=tol, msg="%s: " % op["name"])


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("op", REDUCTIONS, ids=ids(REDUCTIONS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions_match_numpy(op, dtype, rng):
    if refused_by_decision(op, [dtype]):
        x = reduction_values(op, dtype, 5, rng)
        for call in (lambda: fn(op)(x, device="cuda"), lambda: fn(op)(myModule.to_device(x))):
            with pytest.raises(TypeError, match="complex"):
                call()
        return
    for n in SIZES:
        x = reduction_values(op, dtype, n, rng)
        expected = reference(op)(x)
        for host_view, label in ((x, "host"), (x[::-1], "reversed"), (x[::3], "strided")):
            assert_reduction(op, fn(op)(host_view, device="cuda"), reference(op)(host_view), host_view)
        d = myModule.to_device(x)
        assert_reduction(op, fn(op)(d), expected, x)
        assert_reduction(op, fn(op)(d[::-1]), reference(op)(x[::-1]), x)
        assert_reduction(op, fn(op)(d[::3]), reference(op)(x[::3]), x[::3])


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("op", REDUCTIONS, ids=ids(REDUCTIONS))
def test_reductions_of_large_and_empty_inputs(op, rng):
    x = reduction_values(op, "float64", 3 * 2**20 + 7, rng)
    assert_reduction(op, fn(op)(x, device="cuda"), reference(op)(x), x)
    empty = np.empty(0, np.float32)
    assert_same_result(outcome(lambda: fn(op)(empty, device="cuda")), outcome(lambda: reference(op)(empty)))
    assert_same_result(outcome(lambda: fn(op)(myModule.to_device(empty)).get()[()]),
                       outcome(lambda: reference(op)(empty)))
    nan = np.array([1.0, np.nan, 3.0])
    if op["name"] in ("max", "min"):
        assert np.isnan(float(fn(op)(myModule.to_device(nan))))


# ------------------------------------------------------------------ operators

@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("op", WITH_OPERATOR, ids=ids(WITH_OPERATOR))
def test_operators_are_the_functions(op, rng):
    python_op = getattr(operator, op["pyop"])
    for dtype in compute_dtypes(op):
        _, arrays = arguments(op, dtype, (50,), rng)
        dev = [myModule.to_device(a) for a in arrays]
        expected = fn(op)(*dev).get()
        assert_same_result(python_op(*dev).get(), expected)
        if op["nin"] == 2:
            assert_same_result(python_op(arrays[0], dev[1]).get(), expected)  # reflected
            assert_same_result(python_op(dev[0], arrays[1]).get(), expected)
            if op["results"][dtype] == dtype and op["pyop"] not in ("__eq__", "__ne__", "__lt__",
                                                                     "__le__", "__gt__", "__ge__"):
                target = myModule.to_device(arrays[0])
                alias = target
                target = getattr(operator, "__i" + op["pyop"][2:])(target, dev[1])
                assert target is alias
                assert_same_result(target.get(), expected)


@pytest.mark.gpu
@requires_gpu
def test_comparison_of_a_device_array_is_elementwise():
    d = myModule.to_device(np.array([0.0, 1.0, np.nan]))
    assert_same_result((d == 0).get(), np.array([True, False, False]))
    assert_same_result((d != d).get(), np.array([False, False, True]))
    assert (d == None) is False  # noqa: E711 - not an array: identity, as Python's fallback
    with pytest.raises(TypeError):
        hash(d)
