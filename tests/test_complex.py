"""What is complex-only about complex64 and complex128: which operations have complex
loops and which are left out by decision, the array API's complex dtypes, the
layouts complex operations stage through buffers, reductions of complex data,
conversions, views, matrix products and refusals. Every operation's complex
values against NumPy's (dtype rules, CPU path, GPU layouts, out=, operators) are
test_ops.py's, which draws complex from the one dtype list as every other dtype;
complex results are compared by compare_floats.assert_complex_match.
"""
import itertools
import importlib

import numpy as np
import pytest

import myModule
import myModule.array_api as xp
from compare_floats import assert_complex_match
from conftest import COMPLEX_DTYPES, COMPLEX_REFUSED_BY_DECISION, Raised, outcome, random_values, requires_gpu

pytestmark = pytest.mark.usefixtures("quiet_numpy")

COMPLEX = [d.name for d in COMPLEX_DTYPES]
REAL = [d.name for d in myModule._core._supported_dtypes() if d.kind != "c"]
TABLE = [op for op in myModule._core._op_table if op["kind"] in ("elementwise", "reduction")
         and op["nparams"] == 0 and op["reference"].startswith(("numpy.", "myModule._reference."))]
ELEMENTWISE = [op for op in TABLE if op["kind"] == "elementwise"]
WITH_COMPLEX = [op for op in ELEMENTWISE if "complex128" in op["results"]]
REDUCTIONS = [op for op in TABLE if op["kind"] == "reduction"]


def reference(op):
    module, _, name = op["reference"].rpartition(".")
    return getattr(importlib.import_module(module), name)


def ids(ops):
    return [op["name"] for op in ops]


def complex_values(dtype, shape, rng, special=True):
    return random_values(np.dtype(dtype), shape, rng, special=special)


# ------------------------------------------------------------------ dtype rules (CPU)

def sample(kind):
    if kind == "py-complex":
        return 1.5 - 2j
    if kind == "py-float":
        return 2.5
    if kind == "py-int":
        return 3
    return np.ones(2, dtype=kind)


def complex_pairings(op):
    """Every pairing of `op`'s inputs holding a complex array or a Python complex (and
    at least one array), with NumPy's outcome for it."""
    ref = reference(op)
    kinds = COMPLEX + ["float32", "float64", "int8", "int64", "bool", "py-int", "py-float", "py-complex"]
    for combo in itertools.product(kinds, repeat=op["nin"]):
        if not any(k in COMPLEX or k == "py-complex" for k in combo) or all(k.startswith("py-") for k in combo):
            continue
        args = [sample(k) for k in combo]
        yield combo, args, outcome(lambda: np.asarray(ref(*args)).dtype)


def test_numpys_complex_loops_left_out_are_the_decided_ones():
    """Of the library's own operations, those NumPy computes on complex numbers and the
    library does not are exactly the ones docs/SPEC.md names."""
    left_out = set()
    for op in ELEMENTWISE:
        if op["origin"] == "" and "complex128" not in op["results"] and op["reference"].startswith("numpy."):
            if any(not isinstance(e, Raised) for _, _, e in complex_pairings(op)):
                left_out.add(op["name"])
    assert left_out <= COMPLEX_REFUSED_BY_DECISION, left_out - COMPLEX_REFUSED_BY_DECISION


def test_the_complex_loops_are_the_declared_ones():
    names = {op["name"] for op in WITH_COMPLEX}
    for must in ("add", "subtract", "multiply", "divide", "sqrt", "exp", "log", "conj", "real", "imag",
                 "absolute", "equal", "isnan", "where", "power", "sin", "tanh", "arcsinh"):
        assert must in names, must
    for never in ("floor_divide", "remainder", "arctan2", "hypot", "bitwise_and", "left_shift",
                  "floor", "copysign", "nextafter", "logaddexp", "signbit"):
        assert never not in names, never
    absolute = next(op for op in ELEMENTWISE if op["name"] == "absolute")
    assert absolute["results"]["complex64"] == "float32" and absolute["results"]["complex128"] == "float64"


def test_array_api_dtypes():
    assert xp.complex64 == np.complex64 and xp.complex128 == np.complex128
    assert xp.isdtype(xp.complex64, "complex floating") and xp.isdtype(xp.complex128, "numeric")
    assert not xp.isdtype(xp.complex64, "real floating")
    f = xp.finfo(xp.complex64)
    assert f.dtype == xp.float32 and f.bits == 32 and f.eps == float(np.finfo(np.float32).eps)
    assert xp.finfo(xp.complex128).dtype == xp.float64
    assert xp.result_type(xp.float32, xp.complex64) == xp.complex64
    assert xp.result_type(xp.float64, xp.complex64) == xp.complex128
    assert xp.result_type(xp.float32, 1j) == xp.complex64
    assert xp.result_type(xp.int16, 1j) == xp.complex128
    assert xp.result_type(xp.complex64, 2.5) == xp.complex64
    assert xp.can_cast(xp.float32, xp.complex64) and not xp.can_cast(xp.float64, xp.complex64)
    assert not xp.can_cast(xp.complex64, xp.float64) and xp.can_cast(xp.int16, xp.complex64)
    assert not xp.can_cast(xp.int32, xp.complex64)
    info = xp.__array_namespace_info__()
    assert info.default_dtypes()["complex floating"] == xp.complex128
    assert set(info.dtypes(kind="complex floating")) == {"complex64", "complex128"}


def test_promotion_of_every_pair_is_numpys():
    dtypes = [np.dtype(d) for d in REAL + COMPLEX]
    for a, b in itertools.product(dtypes, repeat=2):
        assert myModule._core._promote_types(a, b) == np.promote_types(a, b), (a, b)


# ------------------------------------------------------------------ GPU values

@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", ["add", "multiply", "divide", "sqrt", "exp", "absolute", "equal", "where", "conj"])
@pytest.mark.gpu
@requires_gpu
def test_strided_broadcast_and_mixed_operands(name, dtype, rng):
    """The layouts complex operations stage through contiguous buffers (strided,
    reversed, broadcast and mixed-dtype inputs; a strided out=) give NumPy's values."""
    op = next(o for o in WITH_COMPLEX if o["name"] == name)
    f, ref = getattr(myModule, name), reference(op)
    base = complex_values(dtype, (8, 12), rng)
    other = complex_values(dtype, (8, 12), rng)
    d, e = myModule.to_device(base), myModule.to_device(other)

    cases = [
        (base[::2, 1::3], other[::2, 1::3], d[::2, 1::3], e[::2, 1::3]),          # strided
        (base[::-1, ::-1], other, d[::-1, ::-1], e),                               # reversed
        (base[:, :1], other[:1, :], d[:, :1], e[:1, :]),                           # broadcast (8,1) with (1,12)
        (base.real.copy(), other, myModule.to_device(base.real.copy()), e),       # float with complex
        (base.T, other.T, d.T, e.T),                                               # Fortran order
    ]
    for hx, hy, dx, dy in cases:
        if name == "where":
            c = rng.random(np.broadcast_shapes(hx.shape, hy.shape)) < 0.5
            expected, got = ref(c, hx, hy), f(myModule.to_device(c), dx, dy)
        else:
            expected = ref(*[hx, hy][: op["nin"]])
            got = f(*[dx, dy][: op["nin"]])
        assert_complex_match(got.get(), np.asarray(expected), op["complex_ulp"], op["complex_ulp_floor"],
                             msg="%s %s: " % (name, dtype))
    if op["nin"] == 2 and name != "where":
        out = myModule.zeros((8, 24), dtype=np.asarray(ref(base, other)).dtype)
        f(d, e, out=out[:, ::2])
        assert_complex_match(out.get()[:, ::2], np.asarray(ref(base, other)), op["complex_ulp"],
                             op["complex_ulp_floor"], msg=name)
        assert not np.asarray(out.get()[:, 1::2]).any()


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("layout", ["C", "strided", "reversed"])
@pytest.mark.gpu
@requires_gpu
def test_reductions_on_the_gpu(dtype, layout, rng):
    x = complex_values(dtype, (3000,), rng, special=False)
    if layout == "strided":
        x = complex_values(dtype, (6000,), rng, special=False)[::2]
    elif layout == "reversed":
        x = x[::-1]
    d = myModule.to_device(np.ascontiguousarray(x))
    if layout == "strided":
        d = myModule.to_device(np.ascontiguousarray(x.base if x.base is not None else x))[::2]
    elif layout == "reversed":
        d = myModule.to_device(np.ascontiguousarray(x[::-1]))[::-1]
    part = np.float32 if dtype == "complex64" else np.float64
    bound = 3000 * np.finfo(part).eps * np.abs(x).sum()
    for name in ("sum", "mean"):
        got = np.asarray(getattr(myModule, name)(d).get())
        expected = getattr(np, name)(x.astype(np.complex128))
        assert got.dtype == np.dtype(dtype), (name, got.dtype)
        div = 3000 if name == "mean" else 1
        assert abs(complex(got) - complex(expected)) <= bound / div, (name, got, expected)
    small = (x[:20] / np.maximum(1, np.abs(x[:20]))).astype(dtype)
    got = complex(np.asarray(myModule.prod(myModule.to_device(small)).get()))
    expected = complex(np.prod(small.astype(np.complex128)))
    assert abs(got - expected) <= 1e-4 * max(1.0, abs(expected)), (got, expected)
    assert bool(myModule.any(myModule.to_device(np.array([0j, 1j], dtype))).get())
    assert not bool(myModule.all(myModule.to_device(np.array([0j, 1j], dtype))).get())
    assert int(myModule.count_nonzero(myModule.to_device(np.array([0j, 1j, 2, complex("nan")], dtype))).get()) == 3
    # over axes, and strided: the truth values are read from a bool conversion
    z = complex_values(dtype, (40, 30), rng, special=False)
    z[z.real > 1] = 0
    z[3, ::4] = complex("nan")
    dz = myModule.to_device(z)[:, ::2]
    np.testing.assert_array_equal(myModule.any(dz, axis=0).get(), np.any(z[:, ::2], axis=0))
    np.testing.assert_array_equal(myModule.all(dz, axis=1).get(), np.all(z[:, ::2], axis=1))
    np.testing.assert_array_equal(myModule.count_nonzero(dz, axis=0).get(), np.count_nonzero(z[:, ::2], axis=0))
    sums = myModule.sum(dz, axis=0).get()
    assert sums.dtype == np.dtype(dtype)
    expected = np.sum(z[:, ::2].astype(np.complex128), axis=0)
    for part in ("real", "imag"):
        np.testing.assert_allclose(getattr(sums, part), getattr(expected, part), rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.gpu
@requires_gpu
def test_conversions_and_copies_on_the_gpu(dtype, rng):
    x = complex_values(dtype, (7, 9), rng)
    d = myModule.to_device(x)
    assert d.dtype == np.dtype(dtype)
    assert_complex_match(d.get(), x, 0)
    assert_complex_match(np.asarray(d[::2, 1::3]), x[::2, 1::3], 0)
    assert complex(d[1, 2]) == complex(x[1, 2]) or np.isnan(x[1, 2])
    for to in ("float64", "float32", "int32", "bool", "complex64", "complex128"):
        got = d.astype(to).get()
        with np.errstate(all="ignore"):
            expected = x.astype(to)
        if np.dtype(to).kind in "iu":
            finite = np.isfinite(x.real) & (np.abs(x.real) < 2**31)
            np.testing.assert_array_equal(got[finite], expected[finite])
        else:
            assert_complex_match(got, expected, 0, msg="astype %s: " % to)
    r = rng.standard_normal((5, 3))
    assert_complex_match(myModule.to_device(r).astype(dtype).get(), r.astype(dtype), 0)
    # .real and .imag are views, as NumPy's: writing one writes the complex array
    assert_complex_match(d.real.get(), x.real, 0)
    assert_complex_match(d[:, ::-2].imag.get(), x[:, ::-2].imag, 0)
    w = myModule.to_device(x)
    w.imag[1:3] = 7.0
    expected = x.copy()
    expected.imag[1:3] = 7.0
    assert_complex_match(w.get(), expected, 0)
    dr = myModule.to_device(r)
    assert_complex_match(dr.real.get(), r, 0)
    assert_complex_match(dr.imag.get(), np.zeros_like(r), 0)
    z = myModule.zeros((4,), dtype=dtype)
    assert_complex_match(z.get(), np.zeros(4, dtype), 0)
    f = myModule.full((3,), 1.5 - 2j, dtype=dtype)
    assert_complex_match(f.get(), np.full(3, 1.5 - 2j, dtype), 0)


def test_real_and_imag_of_a_device_array_are_its_views():
    """np.real(x) is x.real, a view (no ufunc): so are myModule's real and imag of a
    DeviceArray with no out= (a view over no memory: no GPU needed), through NumPy
    dispatch and the array API too; a real array's imag is the op's zeros."""
    from myModule import _core
    for dtype, part in (("complex128", "float64"), ("complex64", "float32")):
        z = _core._testing_view((4, 3), (96, 16), dtype)
        for fn in (myModule.real, myModule.imag, np.real, np.imag, xp.real, xp.imag):
            got = fn(z)
            assert isinstance(got, myModule.DeviceArray)
            assert (got.shape, got.dtype, got.strides) == ((4, 3), np.dtype(part), (96, 16)), fn
    f = _core._testing_view((5,), (8,), "float64")
    for fn in (myModule.real, np.real, xp.real):
        got = fn(f)
        assert (got.shape, got.dtype, got.strides) == ((5,), np.dtype("float64"), (8,))


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.gpu
@requires_gpu
def test_real_and_imag_views_share_memory_and_out_computes(dtype, rng):
    x = random_values(np.dtype(dtype), (6, 5), rng)
    d = myModule.to_device(x)
    for name in ("real", "imag"):
        for fn in (getattr(myModule, name), getattr(np, name), getattr(xp, name)):
            view = fn(d)
            assert view.__cuda_array_interface__["data"][0] == getattr(d, name).__cuda_array_interface__["data"][0]
            assert_complex_match(view.get(), getattr(x, name), 0)
        out = myModule.empty((6, 5), dtype=getattr(x, name).dtype)
        assert getattr(myModule, name)(d, out=out) is out
        assert_complex_match(out.get(), getattr(x, name), 0)
    myModule.real(d)[0, :] = 2.5   # writes d, as np.real(x)[0, :] = 2.5 writes x
    x.real[0, :] = 2.5
    assert_complex_match(d.get(), x, 0)
    r = myModule.to_device(x.real.copy())
    assert myModule.real(r).__cuda_array_interface__["data"][0] == r.__cuda_array_interface__["data"][0]
    zeros = myModule.imag(r)
    assert zeros.__cuda_array_interface__["data"][0] != r.__cuda_array_interface__["data"][0]
    assert_complex_match(zeros.get(), np.zeros_like(x.real), 0)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.gpu
@requires_gpu
def test_matmul_on_the_gpu(dtype, rng):
    a = complex_values(dtype, (33, 17), rng, special=False) / 100
    b = complex_values(dtype, (17, 9), rng, special=False) / 100
    got = (myModule.to_device(a) @ myModule.to_device(b)).get()
    expected = a.astype(np.complex128) @ b.astype(np.complex128)
    part = np.float32 if dtype == "complex64" else np.float64
    bound = 17 * 4 * np.finfo(part).eps * (np.abs(a) @ np.abs(b))
    assert got.dtype == np.dtype(dtype)
    assert np.all(np.abs(got - expected) <= bound + np.finfo(part).tiny)
    # a column-major operand goes to cuBLAS as it lies
    got = (myModule.to_device(np.asfortranarray(a)) @ myModule.to_device(b)).get()
    assert np.all(np.abs(got - expected) <= bound + np.finfo(part).tiny)


@pytest.mark.gpu
@requires_gpu
def test_python_complex_of_a_0d_array_on_the_gpu():
    d = myModule.to_device(np.array(1.5 - 2.25j))
    assert complex(d) == 1.5 - 2.25j
    assert complex(myModule.to_device(np.array(3.0))) == 3 + 0j
    with pytest.raises(TypeError):
        complex(myModule.to_device(np.ones(2, np.complex64)))
    dd = myModule.to_device(np.array([1 + 2j, 3 - 4j], np.complex64))
    assert_complex_match((dd + 1j).get(), np.array([1 + 2j, 3 - 4j], np.complex64) + 1j, 0)
    assert (dd + 1j).dtype == np.complex64


@pytest.mark.gpu
@requires_gpu
def test_sorting_and_searching_refuse_complex():
    """The standard orders real numbers only; sort, argsort and searchsorted refuse
    complex input with TypeError instead of guessing NumPy's lexicographic order."""
    d = myModule.to_device(np.array([2 + 1j, 1 - 1j]))
    for call in (lambda: xp.sort(d), lambda: xp.argsort(d)):
        with pytest.raises(TypeError):
            call()
