"""DeviceArray: uploads and downloads of every dtype and layout, attributes,
arithmetic on device data (functions and operators, mixed with NumPy arrays and
Python scalars, broadcasting, out=), sum and trace on the GPU, unified memory,
arrays past 2**31 elements, and the memory pool's accounting.

NumPy is the oracle throughout; elementwise results must be bit-identical.
Needs a usable CUDA GPU (the whole file is skipped, with the reason, without one).
"""
import gc
import math
import zlib

import numpy as np
import pytest

import gpu_helpers as H
from gpu_helpers import mm

pytestmark = [pytest.mark.gpu, H.requires_gpu]

DTYPES = H.DTYPES
FUNCS = [
    ("add", mm.add, np.add),
    ("subtract", mm.subtract, np.subtract),
    ("multiply", mm.multiply, np.multiply),
    ("divide", mm.divide, np.true_divide),
]
OPERATORS = [
    ("+", lambda x, y: x + y, np.add),
    ("-", lambda x, y: x - y, np.subtract),
    ("*", lambda x, y: x * y, np.multiply),
    ("/", lambda x, y: x / y, np.true_divide),
]


@pytest.fixture
def rng(request):
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def np_ref(fn, *args, **kw):
    with np.errstate(all="ignore"):
        return fn(*args, **kw)


# ------------------------------------------------------------ uploads and downloads

LAYOUTS = ["C", "C-specials", "F", "strided", "reversed", "byteswapped", "misaligned", "0-d",
           "empty", "empty-2d", "3-d", "n255", "n256", "n257", "n1"]


def make_host(layout, dtype, rng):
    dtype = np.dtype(dtype)
    if layout == "C":
        return H.values(dtype, (5, 7), rng)
    if layout == "C-specials":
        return H.values(dtype, (64,), rng, special=True)
    if layout == "F":
        a = np.asfortranarray(H.values(dtype, (5, 7), rng))
        assert not a.flags.c_contiguous
        return a
    if layout == "strided":
        return H.values(dtype, (10, 21), rng)[::2, ::3]
    if layout == "reversed":
        return H.values(dtype, (5, 7), rng)[::-1, ::-1]
    if layout == "byteswapped":
        a = H.values(dtype, (5, 7), rng).astype(dtype.newbyteorder())
        assert not a.dtype.isnative
        return a
    if layout == "misaligned":
        x = H.values(dtype, (33,), rng)
        buf = np.zeros(x.nbytes + 1, np.uint8)
        a = buf[1:].view(dtype)
        a[...] = x
        assert not a.flags.aligned
        return a
    if layout == "0-d":
        return np.array(H.values(dtype, (1,), rng)[0])
    if layout == "empty":
        return np.empty((0,), dtype)
    if layout == "empty-2d":
        return np.empty((3, 0), dtype)
    if layout == "3-d":
        return H.values(dtype, (2, 3, 4), rng)
    if layout.startswith("n"):
        return H.values(dtype, (int(layout[1:]),), rng)
    raise ValueError(layout)


def native(a):
    return np.asarray(a, dtype=a.dtype.newbyteorder("="))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS)
def test_to_device_round_trip(dtype, layout, rng):
    a = make_host(layout, dtype, rng)
    expected = native(a).copy()
    d = mm.to_device(a)
    assert isinstance(d, mm.DeviceArray)
    assert d.shape == a.shape
    assert d.dtype == np.dtype(dtype) and d.dtype.isnative
    got = d.get()
    assert isinstance(got, np.ndarray)
    H.assert_same(got, expected)
    H.assert_same(np.asarray(d), expected)
    H.assert_same(np.array(d), expected)
    # get() is a copy: writing to it does not change the device data
    if got.size:
        got[...] = 0
        H.assert_same(d.get(), expected)
    # the host source may change afterwards: the device keeps its copy
    if a.size and a.flags.writeable:
        a[...] = 1
        H.assert_same(d.get(), expected)


@pytest.mark.parametrize("layout", ["C", "F", "reversed", "0-d", "empty", "empty-2d", "3-d", "n257"])
@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS)
def test_attributes(dtype, layout, rng):
    a = make_host(layout, dtype, rng)
    d = mm.to_device(a)
    dtype = np.dtype(dtype)
    assert d.shape == a.shape and isinstance(d.shape, tuple)
    assert d.dtype == dtype and isinstance(d.dtype, np.dtype)
    assert d.ndim == a.ndim
    assert d.size == a.size
    assert d.itemsize == dtype.itemsize
    assert d.nbytes == a.size * dtype.itemsize
    assert isinstance(d.strides, tuple) and len(d.strides) == a.ndim
    if a.size:
        # C order, whatever the host layout was
        assert d.strides == np.empty(a.shape, dtype).strides
        assert d.ptr != 0 and d.ptr % dtype.itemsize == 0
    assert d.device == 0
    assert d.unified is False
    if a.ndim:
        assert len(d) == a.shape[0]
    else:
        with pytest.raises(TypeError):
            len(d)
    r = repr(d)
    assert "DeviceArray" in r
    if a.size and a.ndim == 1 and dtype.kind == "i":
        assert str(int(a[0])) in r


def test_repr_shows_values():
    d = mm.to_device(np.array([1.5, 2.5, -3.0]))
    r = repr(d)
    assert r.startswith("DeviceArray(")
    assert "1.5" in r and "2.5" in r and "-3." in r
    d32 = mm.to_device(np.arange(3, dtype=np.float32))
    assert "float32" in repr(d32)


def test_to_device_from_python_objects():
    d = mm.to_device([1, 2, 3])
    H.assert_same(d, np.array([1, 2, 3]))
    d = mm.to_device([[1.5, 2.0], [3.0, 4.0]])
    H.assert_same(d, np.array([[1.5, 2.0], [3.0, 4.0]]))
    d = mm.to_device(np.float32(2.5))
    H.assert_same(d, np.array(2.5, dtype=np.float32))
    d = mm.asarray([4, 5])
    assert isinstance(d, mm.DeviceArray)
    H.assert_same(d, np.array([4, 5]))


def test_to_device_of_a_device_array():
    a = np.arange(10.0)
    d = mm.to_device(a)
    again = mm.to_device(d)
    H.assert_same(again, a)
    assert mm.asarray(d) is d
    u = mm.to_device(d, unified=True)
    assert u.unified is True
    H.assert_same(u, a)


@pytest.mark.parametrize("bad", [np.float16, np.clongdouble, np.longdouble, "U2"])
def test_to_device_unsupported_dtype(bad):
    with pytest.raises(TypeError, match="int32"):
        mm.to_device(np.zeros(4, dtype=bad))


def test_to_device_bad_device_index():
    with pytest.raises(ValueError):
        mm.to_device(np.zeros(3), device=mm.device_count())
    with pytest.raises(ValueError):
        mm.to_device(np.zeros(3), device=-1)
    with pytest.raises(TypeError):
        mm.to_device(np.zeros(3), device="cuda:0")


def test_asarray_copy_false_of_device_memory_raises():
    d = mm.to_device(np.arange(4.0))
    with pytest.raises(ValueError):
        np.asarray(d, copy=False)


def test_asarray_with_dtype():
    d = mm.to_device(np.arange(5, dtype=np.int32))
    h = np.asarray(d, dtype=np.float64)
    H.assert_same(h, np.arange(5, dtype=np.float64))


# ------------------------------------------------------------ views of device memory

@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS)
def test_strided_views_of_device_arrays(dtype, rng):
    # integer-valued data: sums are exact in any order
    a = rng.integers(-1000, 1000, (6, 8)).astype(dtype)
    b = rng.integers(-1000, 1000, (8, 6)).astype(dtype)
    d, db = mm.to_device(a), mm.to_device(b)
    cases = [
        (H.reversed_view(d), a[::-1, ::-1]),
        (H.transposed_view(d), a.T),
        (H.view_of(d, shape=(3, 4), strides=(2 * d.strides[0], 2 * d.itemsize)), a[::2, ::2]),
        (H.view_of(d, shape=(6,), strides=(d.strides[0] + d.itemsize,)), np.diagonal(a)),
        (H.broadcast_view(H.view_of(d, shape=(1,), offset=5), (4, 3)), np.full((4, 3), a.flat[5])),
    ]
    for view, expected in cases:
        assert isinstance(view, mm.DeviceArray)
        H.assert_same(view.get(), expected)
        H.assert_same(np.asarray(view), expected)
        H.assert_same(mm.sum(view), np.sum(expected))
        with np.errstate(all="ignore"):
            H.assert_same(view + view, expected + expected)
            H.assert_same(mm.multiply(view, 3), expected * 3)
    # ops mixing views of different layouts
    H.assert_same(H.transposed_view(d) - db, a.T - b)
    H.assert_same(mm.add(H.reversed_view(d), H.transposed_view(db)), a[::-1, ::-1] + b.T)
    # a contiguous copy of a view is what to_device gives
    H.assert_same(mm.to_device(H.reversed_view(d)), a[::-1, ::-1])


# ------------------------------------------------------------ arithmetic

@pytest.mark.parametrize("dtype_b", DTYPES, ids=H.DTYPE_IDS)
@pytest.mark.parametrize("dtype_a", DTYPES, ids=H.DTYPE_IDS)
def test_binary_on_device_arrays(dtype_a, dtype_b, rng):
    a = H.values(dtype_a, (7, 9), rng, special=True)
    b = H.values(dtype_b, (7, 9), rng, special=True)
    da, db = mm.to_device(a), mm.to_device(b)
    for name, fn, ref in FUNCS:
        expected = np_ref(ref, a, b)
        r = fn(da, db)
        assert isinstance(r, mm.DeviceArray), name
        H.assert_same(r, expected, "%s(device, device): " % name)
        H.assert_same(fn(da, b), expected, "%s(device, numpy): " % name)
        H.assert_same(fn(a, db), expected, "%s(numpy, device): " % name)
        assert isinstance(fn(a, db), mm.DeviceArray)
    for sym, op, ref in OPERATORS:
        expected = np_ref(ref, a, b)
        r = op(da, db)
        assert isinstance(r, mm.DeviceArray), sym
        H.assert_same(r, expected, "device %s device: " % sym)
        r = op(da, b)
        assert isinstance(r, mm.DeviceArray), sym
        H.assert_same(r, expected, "device %s numpy: " % sym)
        r = op(a, db)  # NumPy calls the ufunc: DeviceArray.__array_ufunc__ runs it on the GPU
        assert isinstance(r, mm.DeviceArray), sym
        H.assert_same(r, expected, "numpy %s device: " % sym)
    # the inputs are untouched
    H.assert_same(da, a)
    H.assert_same(db, b)


SCALARS = [3, -2, 0.5, -1.75, 1e10, np.float32(1.5), np.float64(-2.25), np.int32(5), np.int64(-7)]


@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS)
def test_binary_with_scalars(dtype, rng):
    a = H.values(dtype, (50,), rng, nonzero=True)
    d = mm.to_device(a)
    for s in SCALARS:
        for sym, op, ref in OPERATORS:
            msg = "%s %s %r: " % (np.dtype(dtype).name, sym, s)
            r = op(d, s)
            assert isinstance(r, mm.DeviceArray), msg
            H.assert_same(r, np_ref(ref, a, s), "device " + msg)
            r = op(s, d)
            assert isinstance(r, mm.DeviceArray), msg
            H.assert_same(r, np_ref(ref, s, a), "reflected " + msg)
        for name, fn, ref in FUNCS:
            H.assert_same(fn(d, s), np_ref(ref, a, s), "%s(device, %r): " % (name, s))
            H.assert_same(fn(s, d), np_ref(ref, s, a), "%s(%r, device): " % (name, s))


@pytest.mark.parametrize("shapes", [((3, 1), (1, 4)), ((4,), (3, 4)), ((), (3, 4)), ((2, 1, 3), (4, 1)),
                                    ((1,), (5,)), ((0,), (1,)), ((3, 0), (3, 1)), ((1, 1), ())],
                         ids=str)
def test_broadcasting(shapes, rng):
    sa, sb = shapes
    a = H.values(np.float64, sa, rng)
    b = H.values(np.int32, sb, rng, nonzero=True)
    da, db = mm.to_device(a), mm.to_device(b)
    for name, fn, ref in FUNCS:
        expected = np_ref(ref, a, b)
        H.assert_same(fn(da, db), expected, name + ": ")
        H.assert_same(fn(db, da), np_ref(ref, b, a), name + " swapped: ")
        H.assert_same(fn(da, b), expected, name + " (device, host): ")
        H.assert_same(fn(a, db), expected, name + " (host, device): ")


def test_broadcast_mismatch_raises():
    da = mm.to_device(np.zeros((3, 2)))
    db = mm.to_device(np.zeros((4,)))
    for _, fn, _ in FUNCS:
        with pytest.raises(ValueError):
            fn(da, db)
    with pytest.raises(ValueError):
        da + db
    with pytest.raises(ValueError):
        da + np.zeros(5)


def test_unsupported_operands_raise_type_error():
    d = mm.to_device(np.arange(3.0))
    for bad in ["abc", None, np.zeros(3, np.float16), np.zeros(3, np.clongdouble), np.float16(1)]:
        with pytest.raises(TypeError):
            d + bad
        with pytest.raises(TypeError):
            mm.multiply(bad, d)


def test_special_values_bit_for_bit():
    with np.errstate(all="ignore"):
        _special_values_bit_for_bit()


def _special_values_bit_for_bit():
    f = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 5e-324, 1.7976931348623157e308, 3.0])
    g = np.array([1.0, -np.inf, -np.inf, 0.0, -0.0, 0.0, -0.0, 2.0, 1.7976931348623157e308, -0.0])
    for dtype in (np.float32, np.float64):
        a, b = f.astype(dtype), g.astype(dtype)
        da, db = mm.to_device(a), mm.to_device(b)
        for name, fn, ref in FUNCS:
            H.assert_same(fn(da, db), np_ref(ref, a, b), "%s %s: " % (np.dtype(dtype).name, name))
    ints = np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min, 0, -1, 7], np.int64)
    di = mm.to_device(ints)
    for name, fn, ref in FUNCS:
        H.assert_same(fn(di, di), np_ref(ref, ints, ints), "int64 " + name + ": ")
    i32 = np.array([2**31 - 1, -2**31, 0, -1, 3], np.int32)
    d32 = mm.to_device(i32)
    for name, fn, ref in FUNCS:
        H.assert_same(fn(d32, d32), np_ref(ref, i32, i32), "int32 " + name + ": ")


def test_random_mixed_operations():
    """Seeded fuzzing: random shapes (with broadcasting), dtypes, operand kinds
    (device array, view, NumPy array, scalar) and operations against NumPy."""
    rng = np.random.default_rng(20240601)
    for case in range(300):
        ndim = int(rng.integers(0, 4))
        full = tuple(int(n) for n in rng.integers(1, 6, ndim))

        def operand():
            kind = rng.choice(["device", "view", "host", "scalar"], p=[0.4, 0.2, 0.25, 0.15])
            dtype = DTYPES[int(rng.integers(0, 4))]
            if kind == "scalar":
                v = [2, -3, 0.25, np.float32(1.5), np.int32(4)][int(rng.integers(0, 5))]
                return v, v
            shape = tuple(n if rng.random() < 0.7 else 1 for n in full)[int(rng.integers(0, ndim + 1)):]
            x = H.values(dtype, shape, rng, nonzero=True)
            if kind == "host":
                return x, x
            d = mm.to_device(x)
            if kind == "view" and x.ndim and x.size > 1:
                return H.reversed_view(d), x[(slice(None, None, -1),) * x.ndim]
            return d, x

        (xa, ea), (xb, eb) = operand(), operand()
        name, fn, ref = FUNCS[int(rng.integers(0, 4))]
        expected = np_ref(ref, ea, eb)
        got = fn(xa, xb)
        on_device = any(isinstance(x, mm.DeviceArray) for x in (xa, xb))
        if on_device:
            assert isinstance(got, mm.DeviceArray), "case %d" % case
            H.assert_same(got, expected, "case %d %s(%r, %r): " % (case, name, ea, eb))


# ------------------------------------------------------------ out=


@pytest.mark.parametrize("n", [1, 257, 1_000_003])
@pytest.mark.parametrize("dtype", [np.dtype(np.int64), np.dtype(np.float64)], ids=["int64", "float64"])
def test_back_to_back_dependent_operations(n, dtype, rng):
    """Forty operations queued without a wait, each reading the one before (new
    results, in-place results, a reversed view, a sum at the end): the launches
    that overlap the previous kernel (sm_90) must still see its writes."""
    a = H.values(dtype, (n,), rng, nonzero=True)
    b = H.values(dtype, (n,), rng, nonzero=True)
    da, db = mm.to_device(a), mm.to_device(b)
    x, ex = da, a
    for step in range(40):
        kind = step % 4
        if kind == 0:
            x, ex = mm.add(x, db), np_ref(np.add, ex, b)
        elif kind == 1:
            x, ex = mm.multiply(x, da), np_ref(np.multiply, ex, a)
        elif kind == 2:
            x -= db
            ex = np_ref(np.subtract, ex, b)
        else:
            x, ex = mm.subtract(H.reversed_view(x), db), np_ref(np.subtract, ex[::-1], b)
    total = mm.sum(x)
    H.assert_same(x, ex)
    if dtype.kind == "i":
        assert int(total) == int(np_ref(np.sum, ex))
    else:
        assert math.isclose(float(total), float(np.sum(ex)), rel_tol=1e-9,
                            abs_tol=1e-9 * float(np.sum(np.abs(ex))))

@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS)
def test_out_device_array_same_dtype(dtype, rng):
    a = H.values(dtype, (6, 5), rng)
    b = H.values(dtype, (6, 5), rng, nonzero=True)
    da, db = mm.to_device(a), mm.to_device(b)
    for name, fn, ref in FUNCS:
        expected = np_ref(ref, a, b)
        out = mm.to_device(np.full(expected.shape, -7777, expected.dtype))  # poisoned
        ptr = out.ptr
        r = fn(da, db, out=out)
        assert r is out, name
        assert out.ptr == ptr
        H.assert_same(out, expected, name + ": ")


def test_back_to_back_without_overlapped_launches():
    """MYMODULE_NO_OVERLAP=1 (each kernel starts after the previous one ends):
    the same chains give the same results."""
    proc, where = H.run_python("""
        import numpy as np
        import myModule as mm
        rng = np.random.default_rng(5)
        a, b = rng.standard_normal(100_003), rng.standard_normal(100_003)
        da, db = mm.to_device(a), mm.to_device(b)
        x, ex = da, a
        for _ in range(20):
            x, ex = mm.multiply(mm.add(x, db), da), (ex + b) * a
        assert np.array_equal(x.get(), ex)
        assert abs(float(mm.sum(x)) - ex.sum()) <= 1e-9 * np.abs(ex).sum()
        print("ok")
    """, MYMODULE_NO_OVERLAP="1")
    assert proc.returncode == 0 and "ok" in proc.stdout, where


def test_out_device_array_with_casting(rng):
    a = H.values(np.float64, (40,), rng)
    b = H.values(np.float64, (40,), rng, nonzero=True)
    da, db = mm.to_device(a), mm.to_device(b)
    # float64 result into a float32 out: allowed by same_kind, rounded like NumPy
    out32 = mm.to_device(np.full(40, -7777, np.float32))
    for name, fn, ref in FUNCS:
        expected = np.full(40, -1, np.float32)
        np_ref(ref, a, b, out=expected)
        assert fn(da, db, out=out32) is out32
        H.assert_same(out32, expected, name + " -> float32: ")
    # int32 + int32 into an int64 out, and int results into a float64 out
    ia = H.values(np.int32, (40,), rng)
    ib = H.values(np.int32, (40,), rng, nonzero=True)
    dia, dib = mm.to_device(ia), mm.to_device(ib)
    out64 = mm.to_device(np.full(40, -7777, np.int64))
    assert mm.add(dia, dib, out=out64) is out64
    expected = np.full(40, -1, np.int64)
    np.add(ia, ib, out=expected)
    H.assert_same(out64, expected)
    outf = mm.to_device(np.full(40, -7777, np.float64))
    assert mm.multiply(dia, dib, out=outf) is outf
    expected = np.full(40, -1.0)
    np.multiply(ia, ib, out=expected)
    H.assert_same(outf, expected)
    # a float result into an int out is refused as NumPy refuses it, out untouched
    outi = mm.to_device(np.full(40, -7777, np.int32))
    with pytest.raises(TypeError):
        mm.add(da, db, out=outi)
    with pytest.raises(TypeError):
        mm.divide(dia, dib, out=outi)
    H.assert_same(outi, np.full(40, -7777, np.int32))


def test_out_broadcast_and_shape_errors(rng):
    a = H.values(np.float32, (3, 1), rng)
    b = H.values(np.float32, (1, 4), rng)
    da, db = mm.to_device(a), mm.to_device(b)
    out = mm.to_device(np.full((3, 4), np.nan, np.float32))
    assert mm.add(da, db, out=out) is out
    H.assert_same(out, a + b)
    # out bigger than the broadcast shape (the inputs broadcast to it)
    out3 = mm.to_device(np.full((2, 3, 4), np.nan, np.float32))
    mm.subtract(da, db, out=out3)
    H.assert_same(out3, np.broadcast_to(a - b, (2, 3, 4)))
    # out smaller than the result: refused
    small = mm.to_device(np.zeros((3, 1), np.float32))
    with pytest.raises(ValueError):
        mm.add(da, db, out=small)
    with pytest.raises(ValueError):
        mm.add(da, db, out=mm.to_device(np.zeros((4, 3), np.float32)))


@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS)
def test_out_aliasing_an_input(dtype, rng):
    a = H.values(dtype, (1000,), rng, nonzero=True)
    d = mm.to_device(a)
    assert mm.add(d, d, out=d) is d
    H.assert_same(d, a + a)
    d = mm.to_device(a)
    mm.multiply(d, 3, out=d)
    H.assert_same(d, np_ref(np.multiply, a, 3))
    d = mm.to_device(a)
    mm.subtract(d, d, out=d)
    H.assert_same(d, np.zeros_like(a))
    if np.dtype(dtype).kind == "f":
        d = mm.to_device(a)
        other = mm.to_device(a[::-1].copy())
        mm.divide(other, d, out=d)
        H.assert_same(d, a[::-1] / a)


def test_out_overlapping_but_not_identical(rng):
    """out is the reversed view of an input: the result is as if computed into a
    temporary first (NumPy's rule for overlapping out)."""
    a = H.values(np.float64, (4097,), rng)
    d = mm.to_device(a)
    mm.add(d, 1.0, out=H.reversed_view(d))
    expected = a.copy()
    np.add(expected, 1.0, out=expected[::-1])
    H.assert_same(d, expected)
    # out shifted by one element over the input
    a = H.values(np.float64, (1000,), rng)
    d = mm.to_device(a)
    src = H.view_of(d, shape=(999,), offset=0)
    dst = H.view_of(d, shape=(999,), offset=1)
    mm.multiply(src, 2.0, out=dst)
    expected = a.copy()
    np.multiply(expected[:-1], 2.0, out=expected[1:])
    H.assert_same(d, expected)


def test_out_numpy_array_with_device_inputs(rng):
    a = H.values(np.float64, (100,), rng)
    da = mm.to_device(a)
    out = np.full(100, np.nan)
    r = mm.add(da, da, out=out)
    assert r is out
    H.assert_same(out, a + a)


# ------------------------------------------------------------ sum and trace

@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("n", [0, 1, 31, 32, 33, 1023, 1024, 1025, 100_003])
def test_sum_ints_exact(dtype, n, rng):
    ii = np.iinfo(dtype)
    a = rng.integers(ii.min // 4 if dtype == np.int64 else ii.min,
                     ii.max // 4 if dtype == np.int64 else ii.max, n, dtype=dtype, endpoint=True)
    d = mm.to_device(a)
    s = mm.sum(d)
    assert isinstance(s, mm.DeviceArray) and s.shape == ()  # queued, read by int()/float()/get()
    expected = np.sum(a)
    assert np.asarray(s).dtype == np.int64 == expected.dtype
    assert int(s) == int(expected)


def test_sum_int32_accumulates_in_int64():
    a = np.full(100_000, 2**31 - 1, np.int32)
    s = mm.sum(mm.to_device(a))
    assert np.asarray(s).dtype == np.int64
    assert int(s) == (2**31 - 1) * 100_000
    b = np.full(3, -2**31, np.int32)
    assert int(mm.sum(mm.to_device(b))) == -3 * 2**31


@pytest.mark.parametrize("n", [1, 31, 32, 33, 1023, 1024, 1025, 10**7])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sum_floats_within_rounding(dtype, n, rng):
    a = (rng.standard_normal(n) * 10.0 ** rng.uniform(-2, 2, n)).astype(dtype)
    s = mm.sum(mm.to_device(a))
    assert isinstance(s, mm.DeviceArray) and s.shape == ()
    assert np.asarray(s).dtype == np.dtype(dtype)
    wide = a.astype(np.float64).tolist()
    exact = math.fsum(wide)
    scale = math.fsum(abs(v) for v in wide)
    rel = 1e-12 if dtype == np.float64 else 1e-6
    assert abs(float(s) - exact) <= rel * scale + 1e-300, (float(s), exact, scale)


def test_sum_special_and_empty():
    assert float(mm.sum(mm.to_device(np.array([1.0, np.inf, 2.0])))) == np.inf
    assert math.isnan(float(mm.sum(mm.to_device(np.array([1.0, np.nan, 2.0])))))
    assert math.isnan(float(mm.sum(mm.to_device(np.array([np.inf, -np.inf], np.float32)))))
    for dtype in DTYPES:
        s = mm.sum(mm.to_device(np.empty((0,), dtype)))
        H.assert_same(np.asarray(s), np.asarray(np.sum(np.empty((0,), dtype))))
    H.assert_same(np.asarray(mm.sum(mm.to_device(np.array(7, np.int32)))), np.asarray(np.int64(7)))


def test_sum_of_2d_and_views(rng):
    a = H.values(np.int64, (37, 41), rng)
    d = mm.to_device(a)
    assert int(mm.sum(d)) == int(np.sum(a))
    assert int(mm.sum(H.transposed_view(d))) == int(np.sum(a))
    assert int(mm.sum(H.reversed_view(d))) == int(np.sum(a))
    assert int(mm.sum(H.view_of(d, shape=(37,), strides=(d.strides[0],)))) == int(np.sum(a[:, 0]))


@pytest.mark.parametrize("shape", [(5, 5), (3, 7), (7, 3), (1, 1), (1, 6), (6, 1), (0, 0), (0, 3), (300, 200)],
                         ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS)
def test_trace_of_device_arrays(dtype, shape, rng):
    # integer-valued data: any summation order gives NumPy's value exactly
    a = rng.integers(-1000, 1000, shape).astype(dtype)
    d = mm.to_device(a)
    t = mm.trace(d)
    assert isinstance(t, np.generic)
    H.assert_same(np.asarray(t), np.asarray(np.trace(a)))
    if a.size:
        H.assert_same(np.asarray(mm.trace(H.transposed_view(d))), np.asarray(np.trace(a.T)))
        H.assert_same(np.asarray(mm.trace(H.reversed_view(d))), np.asarray(np.trace(a[::-1, ::-1])))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_trace_of_random_floats(dtype, rng):
    a = rng.standard_normal((500, 400)).astype(dtype)
    t = mm.trace(mm.to_device(a))
    assert np.asarray(t).dtype == np.dtype(dtype)
    diag = np.diagonal(a).astype(np.float64)
    rel = 1e-12 if dtype == np.float64 else 1e-6
    assert abs(float(t) - math.fsum(diag)) <= rel * float(np.sum(np.abs(diag)))


def test_trace_needs_2d():
    for shape in [(), (4,), (2, 2, 2)]:
        with pytest.raises(ValueError):
            mm.trace(mm.to_device(np.zeros(shape)))


# ------------------------------------------------------------ device="cpu" with device data

def test_device_cpu_with_device_array_raises():
    d = mm.to_device(np.arange(6.0).reshape(2, 3))
    for _, fn, _ in FUNCS:
        with pytest.raises(ValueError):
            fn(d, d, device="cpu")
        with pytest.raises(ValueError):
            fn(np.ones(3), d, device="cpu")
    with pytest.raises(ValueError):
        mm.vector_add_cpu(d, d)
    with pytest.raises(ValueError):
        mm.sum(d, device="cpu")
    with pytest.raises(ValueError):
        mm.trace(d, device="cpu")
    out = mm.to_device(np.zeros(3))
    with pytest.raises(ValueError):
        mm.add(np.ones(3), np.ones(3), out=out, device="cpu")
    # device="cuda" and "auto" with device data compute on its GPU
    H.assert_same(mm.add(d, d, device="cuda"), np.arange(6.0).reshape(2, 3) * 2)
    H.assert_same(mm.vector_add_cuda(d, d), np.arange(6.0).reshape(2, 3) * 2)
    H.assert_same(mm.vector_add(d, 1), np.arange(6.0).reshape(2, 3) + 1)
    assert float(mm.sum(d, device="cuda")) == 15.0


# ------------------------------------------------------------ unified memory

def _needs_managed():
    if not mm.device_info().get("managed_memory", True):
        pytest.skip("this GPU has no managed memory")


@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS)
def test_unified_memory_shared_with_numpy(dtype, rng):
    _needs_managed()
    a = H.values(dtype, (64, 33), rng)
    d = mm.to_device(a, unified=True)
    assert d.unified is True
    assert d.device == 0
    h = np.asarray(d)
    assert h.ctypes.data == d.ptr, "np.asarray of a unified DeviceArray must not copy"
    assert h.dtype == np.dtype(dtype) and h.shape == a.shape
    H.assert_same(h, a)
    H.assert_same(d.get(), a)
    # a GPU op writes into it through out=; NumPy sees the new values in place
    assert mm.add(d, d, out=d) is d
    h2 = np.asarray(d)
    assert h2.ctypes.data == d.ptr
    H.assert_same(h2, a + a)
    mm.synchronize()
    H.assert_same(h, a + a)
    # host writes through the view are seen by the GPU
    h[...] = 3
    total = mm.sum(d)
    assert int(round(float(total))) == 3 * a.size
    H.assert_same(d + 1, np.full(a.shape, 4, dtype))
    # the view keeps the memory alive after the DeviceArray name is gone
    del d, h2
    gc.collect()
    H.assert_same(h, np.full(a.shape, 3, dtype))


def test_unified_memory_accounting():
    _needs_managed()
    H.release_cached()
    before = H.memory_stats()
    d = mm.to_device(np.arange(1 << 20, dtype=np.float64), unified=True)
    during = H.memory_stats()
    assert during["bytes_in_use"] >= before["bytes_in_use"] + (8 << 20)
    assert during["allocations"] == before["allocations"] + 1
    h = np.asarray(d)
    del d
    gc.collect()
    assert H.memory_stats()["allocations"] == before["allocations"] + 1  # h holds it
    del h
    gc.collect()
    assert H.memory_stats() == before


def test_non_unified_has_no_buffer():
    d = mm.to_device(np.arange(4.0))
    with pytest.raises(BufferError):
        memoryview(d)


# ------------------------------------------------------------ past 2**31 elements

@pytest.mark.gpu_memory_alone
def test_float32_add_past_2_31_elements():
    n = 2**31 + 3
    need = 3 * 4 * n
    H.release_cached()
    if H.free_memory() < 40 * H.GiB:
        pytest.skip("needs 40 GB of free GPU memory (%.1f GB free)" % (H.free_memory() / H.GiB))
    z = mm.to_device(np.zeros(1, np.float32))
    ones = mm.add(H.broadcast_view(z, (n,)), 1.0)     # contiguous, written by one kernel
    assert ones.shape == (n,) and ones.dtype == np.float32 and ones.nbytes == 4 * n
    twos = mm.add(ones, ones)
    c = mm.add(ones, twos)
    assert isinstance(c, mm.DeviceArray) and c.shape == (n,) and c.dtype == np.float32
    assert H.memory_stats()["bytes_in_use"] >= need
    del ones
    for i in [0, 1, 2**31 - 2, 2**31 - 1, 2**31, 2**31 + 1, n - 2, n - 1]:
        assert H.element(c, i) == 3.0, "element %d" % i
        assert H.element(twos, i) == 2.0, "element %d of twos" % i
    # whole ranges: up to 2**31, and the last 8192 (across 2**31 to the end)
    H.assert_same(H.view_of(c, shape=(8192,), offset=2**31 - 8192).get(), np.full(8192, 3, np.float32))
    H.assert_same(H.view_of(c, shape=(8192,), offset=n - 8192).get(), np.full(8192, 3, np.float32))
    try:
        import cupy
    except Exception:  # noqa: BLE001 - cupy missing or unusable
        cupy = None
    if cupy is not None:
        cc = cupy.from_dlpack(c)
        assert cc.size == n
        assert bool((cc == 3).all())
        del cc
    s = mm.sum(c)
    assert np.asarray(s).dtype == np.float32
    assert abs(float(s) - 3.0 * n) <= 1e-6 * 3.0 * n
    # every element exactly 3: sum((c - 3)**2) is exactly 0
    mm.subtract(c, 3.0, out=c)
    mm.multiply(c, c, out=c)
    assert float(mm.sum(c)) == 0.0
    # the sum reads the elements past 2**31: mark two of them
    last = H.view_of(c, shape=(1,), offset=n - 1)
    mid = H.view_of(c, shape=(1,), offset=2**31)
    mm.add(last, 1.0, out=last)
    mm.add(mid, 0.5, out=mid)
    assert float(mm.sum(c)) == 1.5
    del c, twos, last, mid, z
    H.release_cached()


# ------------------------------------------------------------ the pool's accounting

@pytest.mark.gpu_memory_alone
def test_pool_accounting_returns_to_start():
    a = np.arange(4096, dtype=np.float64)
    d = mm.to_device(a)
    di = mm.to_device(np.arange(4096, dtype=np.int32))
    H.release_cached()
    start = H.memory_stats()
    free0 = H.free_memory()
    for i in range(10_000):
        d + d
        if i % 10 == 0:
            mm.subtract(d, di)
            mm.multiply(d, 2.0)
            d / di
            mm.sum(d)
            mm.to_device(a).get()
            mm.add(d, d, out=mm.to_device(a))
    mm.synchronize()
    gc.collect()
    assert H.memory_stats() == start
    # failing calls do not leak either
    bad = mm.to_device(np.zeros(3))
    del bad
    for _ in range(200):
        with pytest.raises(ValueError):
            mm.add(d, mm.to_device(np.zeros(3)))
        with pytest.raises(TypeError):
            mm.add(d, d, out=mm.to_device(np.zeros(4096, np.int32)))
    mm.synchronize()
    gc.collect()
    assert H.memory_stats() == start
    H.assert_same(d, a)
    H.release_cached()
    free1 = H.free_memory()
    assert free1 >= free0 - 64 * H.MiB, "GPU memory not returned: %d MiB less free" % (
        (free0 - free1) // H.MiB)


def test_pool_accounting_counts_live_arrays():
    H.release_cached()
    start = H.memory_stats()
    arrays = [mm.to_device(np.zeros(1000, np.float32)) for _ in range(10)]
    now = H.memory_stats()
    assert now["allocations"] == start["allocations"] + 10
    assert now["bytes_in_use"] >= start["bytes_in_use"] + 10 * 4000
    r = arrays[0] + arrays[1]
    assert H.memory_stats()["allocations"] == start["allocations"] + 11
    del arrays, r
    gc.collect()
    mm.synchronize()
    assert H.memory_stats() == start
