"""Zero-copy exchange with other GPU libraries (CuPy, PyTorch, Numba, a PyCUDA-like
object) through __cuda_array_interface__ and DLPack, both ways: values (NumPy is
the oracle), pointer equality, strided inputs, out= of another library's array,
stream ordering with non-blocking streams, lifetimes, and the DLPack protocol's
details. Needs a usable CUDA GPU; the CuPy/PyTorch/Numba tests skip without them.
"""
import ctypes
import gc
import math
import zlib

import numpy as np
import pytest

import gpu_helpers as H
from conftest import quick
from gpu_helpers import mm

pytestmark = [pytest.mark.gpu, H.requires_gpu]

FUNCS = [
    ("add", mm.add, np.add),
    ("subtract", mm.subtract, np.subtract),
    ("multiply", mm.multiply, np.multiply),
    ("divide", mm.divide, np.true_divide),
]
DTYPES = H.DTYPES
# The stream tests' sizes: long enough work that a missing wait shows in the plain
# run; under compute-sanitizer (quick mode) every kernel costs 10-100 times more and
# the checkers look for faults in the kernels, which small arrays reach as well.
N_BIG = quick(32 * 2**20, 2**20)          # elements of the arrays in the stream tests
REPS = quick(100, 3)
# sum(k % 1000 for k in range(N_BIG))
BIG_BASE = (N_BIG // 1000) * (999 * 1000 // 2) + (N_BIG % 1000) * (N_BIG % 1000 - 1) // 2


@pytest.fixture
def rng(request):
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture(scope="module")
def nbcuda():
    pytest.importorskip("numba")
    cuda = pytest.importorskip("numba.cuda")
    try:
        if not cuda.is_available():
            pytest.skip("numba.cuda finds no usable GPU")
        cuda.to_device(np.arange(3.0)).copy_to_host()
    except Exception as exc:  # noqa: BLE001
        pytest.skip("numba.cuda cannot use the GPU: %r" % (exc,))
    return cuda


def np_ref(fn, *args, **kw):
    with np.errstate(all="ignore"):
        return fn(*args, **kw)


def capsule_name(capsule):
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    return get_name(capsule)


TORCH_DTYPES = {"int32": "int32", "int64": "int64", "float32": "float32", "float64": "float64"}


def torch_dtype(torch, dtype):
    return getattr(torch, TORCH_DTYPES[np.dtype(dtype).name])


# ================================================================= CuPy

@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS)
def test_cupy_ops_equal_cupy_and_numpy(cp, dtype, rng):
    a = H.values(dtype, (33, 17), rng, special=True)
    b = H.values(dtype, (33, 17), rng, nonzero=True, special=True)
    x, y = cp.asarray(a), cp.asarray(b)
    cupy_ops = {"add": cp.add, "subtract": cp.subtract, "multiply": cp.multiply,
                "divide": cp.true_divide}
    for name, fn, ref in FUNCS:
        r = fn(x, y)
        assert isinstance(r, mm.DeviceArray), name
        expected = np_ref(ref, a, b)
        H.assert_same(r, expected, name + ": ")
        back = cp.from_dlpack(r)
        assert back.data.ptr == r.ptr
        theirs = cupy_ops[name](x, y)
        assert back.dtype == theirs.dtype, name
        assert bool(cp.array_equal(back, theirs, equal_nan=True)), name
        H.assert_same(back, expected, name + " via cupy: ")
    # operators and mixing with NumPy arrays, DeviceArrays and scalars
    d = mm.to_device(b)
    H.assert_same(mm.asarray(x) + y, np_ref(np.add, a, b))
    H.assert_same(mm.subtract(x, b), np_ref(np.subtract, a, b))
    H.assert_same(mm.multiply(a, y), np_ref(np.multiply, a, b))
    H.assert_same(mm.divide(x, d), np_ref(np.true_divide, a, b))
    H.assert_same(d - x, np_ref(np.subtract, b, a))
    H.assert_same(mm.add(x, 3), np_ref(np.add, a, 3))
    H.assert_same(mm.multiply(2.5, x), np_ref(np.multiply, 2.5, a))
    if np.dtype(dtype).kind == "i":
        assert int(mm.sum(x)) == int(np.sum(a))
    # the inputs are untouched
    H.assert_same(x, a)
    H.assert_same(y, b)


def test_cupy_zero_copy_both_ways(cp):
    x = cp.arange(24, dtype=cp.float64).reshape(4, 6)
    v = mm.asarray(x)
    assert isinstance(v, mm.DeviceArray)
    assert v.ptr == x.data.ptr
    assert v.shape == x.shape and v.strides == x.strides and v.dtype == x.dtype
    assert v.device == x.device.id
    v2 = mm.from_dlpack(x)
    assert v2.ptr == x.data.ptr and v2.shape == x.shape and v2.strides == x.strides
    # writes through cupy are seen through the views (same memory)
    x[1, 2] = 1000.0
    cp.cuda.get_current_stream().synchronize()
    assert v.get()[1, 2] == 1000.0 and v2.get()[1, 2] == 1000.0
    # ... and writes by myModule into the view are seen by cupy
    mm.add(v, 1.0, out=v)
    mm.synchronize()
    expected = np.arange(24.0).reshape(4, 6) + 1
    expected[1, 2] = 1001.0
    H.assert_same(x, expected)

    d = mm.to_device(np.arange(12, dtype=np.int32).reshape(3, 4))
    c1 = cp.from_dlpack(d)
    assert c1.data.ptr == d.ptr and c1.shape == (3, 4) and c1.dtype == cp.int32
    H.assert_same(c1, np.arange(12, dtype=np.int32).reshape(3, 4))
    c2 = cp.asarray(d)                          # through __cuda_array_interface__
    assert c2.data.ptr == d.ptr and c2.shape == (3, 4) and c2.dtype == cp.int32
    H.assert_same(c2, np.arange(12, dtype=np.int32).reshape(3, 4))
    cai = d.__cuda_array_interface__
    assert cai["version"] == 3 and cai["data"][0] == d.ptr and cai["shape"] == (3, 4)
    assert cai["typestr"] == "<i4" and "stream" in cai and cai["stream"] != 0
    # a transposed (non-contiguous) DeviceArray view exports its strides
    t = H.transposed_view(d)
    ct = cp.from_dlpack(t)
    assert ct.data.ptr == d.ptr and ct.strides == (4, 16)
    H.assert_same(ct, np.arange(12, dtype=np.int32).reshape(3, 4).T)
    assert t.__cuda_array_interface__["strides"] == (4, 16)
    H.assert_same(cp.asarray(t), np.arange(12, dtype=np.int32).reshape(3, 4).T)


def test_cupy_strided_inputs(cp, rng):
    a = H.values(np.float64, (10, 12), rng)
    b = H.values(np.float32, (10, 12), rng)
    x, y = cp.asarray(a), cp.asarray(b)
    cases = [
        (x[::2], y[1::2], a[::2], b[1::2]),
        (x[:, ::-1], y[::-1, :], a[:, ::-1], b[::-1, :]),
        (x.T, y.T, a.T, b.T),
        (x[1:8:3, 2:11:4], y[0:7:3, 0:9:4], a[1:8:3, 2:11:4], b[0:7:3, 0:9:4]),
        (x.ravel()[::3], y.ravel()[::-3], a.ravel()[::3], b.ravel()[::-3]),
    ]
    for xv, yv, av, bv in cases:
        view = mm.asarray(xv)
        assert view.ptr == xv.data.ptr and view.strides == xv.strides and view.shape == xv.shape
        H.assert_same(view, av)
        for name, fn, ref in FUNCS:
            H.assert_same(fn(xv, yv), np_ref(ref, av, bv), "%s %s: " % (name, xv.strides))
        s = mm.sum(xv)
        assert np.asarray(s).dtype == np.float64
        assert abs(float(s) - math.fsum(av.ravel().tolist())) <= 1e-12 * float(np.abs(av).sum())


def test_cupy_out(cp, rng):
    a = H.values(np.float64, (33, 17), rng)
    b = H.values(np.float64, (33, 17), rng, nonzero=True)
    x, y = cp.asarray(a), cp.asarray(b)
    for name, fn, ref in FUNCS:
        out = cp.full((33, 17), -7777.0)
        r = fn(x, y, out=out)
        assert r is out, name
        H.assert_same(out, np_ref(ref, a, b), name + ": ")
    # another dtype (same_kind cast), and host inputs with a GPU out
    out32 = cp.full((33, 17), -7777, cp.float32)
    assert mm.multiply(x, y, out=out32) is out32
    expected = np.full((33, 17), -1, np.float32)
    np.multiply(a, b, out=expected)
    H.assert_same(out32, expected)
    out = cp.full((33, 17), -7777.0)
    assert mm.subtract(a, b, out=out) is out
    H.assert_same(out, a - b)
    # a strided out: only its elements change
    full = cp.full((66, 17), -1.0)
    mm.add(x, y, out=full[::2])
    expected = np.full((66, 17), -1.0)
    expected[::2] = a + b
    H.assert_same(full, expected)
    # out aliasing a cupy input
    z = cp.asarray(a)
    assert mm.add(z, z, out=z) is z
    H.assert_same(z, a + a)
    # the cast rule is NumPy's
    outi = cp.full((33, 17), -7, cp.int32)
    with pytest.raises(TypeError):
        mm.add(x, y, out=outi)
    H.assert_same(outi, np.full((33, 17), -7, np.int32))


def test_cupy_empty_and_0d(cp):
    e = cp.empty((0,), cp.float32)
    d = mm.asarray(e)
    assert d.shape == (0,) and d.dtype == np.float32
    H.assert_same(mm.add(e, e), np.empty((0,), np.float32))
    s = cp.array(2.5)
    H.assert_same(mm.multiply(s, cp.arange(4.0)), np.arange(4.0) * 2.5)
    assert mm.asarray(s).shape == ()


class PyCudaLike:
    """Only __cuda_array_interface__, version 2, no 'stream' key (PyCUDA's GPUArray)."""

    def __init__(self, cupy_array, shape=None, strides=None):
        self._base = cupy_array
        self.__cuda_array_interface__ = {
            "shape": tuple(cupy_array.shape if shape is None else shape),
            "typestr": cupy_array.dtype.str,
            "data": (int(cupy_array.data.ptr), False),
            "strides": strides,
            "version": 2,
        }


def test_pycuda_like_object(cp, rng):
    a = H.values(np.float64, (1000,), rng)
    b = H.values(np.float64, (1000,), rng)
    x, y = cp.asarray(a), cp.asarray(b)
    cp.cuda.get_current_stream().synchronize()   # a v2 export promises no stream order
    px, py = PyCudaLike(x), PyCudaLike(y)
    assert "stream" not in px.__cuda_array_interface__
    assert not hasattr(px, "__dlpack__")
    assert mm.asarray(px).ptr == x.data.ptr
    for name, fn, ref in FUNCS:
        H.assert_same(fn(px, py), np_ref(ref, a, b), name + ": ")
    H.assert_same(mm.to_device(b) + px, b + a)
    H.assert_same(mm.add(mm.asarray(px), py), a + b)
    # strided: every other element
    ps = PyCudaLike(x, shape=(500,), strides=(16,))
    H.assert_same(mm.multiply(ps, 2.0), a[::2] * 2.0)
    # out= a PyCUDA-like object: the result is there when the call returns
    o = cp.full((1000,), -7777.0)
    cp.cuda.get_current_stream().synchronize()
    po = PyCudaLike(o)
    assert mm.add(px, py, out=po) is po
    H.assert_same(o, a + b)


def _cupy_long_work(cp, big):
    t = big
    for _ in range(4):
        t = (t * 3 + 1) % 1009
    return t


@pytest.mark.parametrize("how", ["sum", "add"])
def test_cupy_stream_import_without_sync(cp, how):
    """x is written on a non-blocking CuPy stream behind a queue of work; myModule
    reads it at once (inside `with stream:`): it must wait for the producer."""
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        big = cp.arange(N_BIG, dtype=cp.int64) % 1000
    s.synchronize()
    wrong = []
    for i in range(REPS):
        with s:
            _cupy_long_work(cp, big)
            x = big * 2 + i                       # written last on s
            if how == "sum":
                got = int(mm.sum(mm.asarray(x)))
            else:
                got = int(mm.sum(mm.add(x, x))) // 2
        expected = 2 * BIG_BASE + i * N_BIG
        if got != expected:
            wrong.append((i, got, expected))
    assert not wrong, "%d/%d wrong, e.g. %r" % (len(wrong), REPS, wrong[:3])


@pytest.mark.parametrize("how", ["dlpack", "cai"])
def test_cupy_stream_export_without_sync(cp, how):
    """d is computed by myModule (queued, not finished) and read at once by CuPy on
    another non-blocking stream, with no myModule.synchronize()."""
    big_d = mm.to_device(np.arange(N_BIG, dtype=np.int64) % 1000)
    s2 = cp.cuda.Stream(non_blocking=True)
    wrong = []
    for i in range(REPS):
        d = big_d
        for _ in range(3):
            d = mm.add(d, big_d)                  # queue of work: 4 * big
        d = mm.add(d, i)                          # written last
        with s2:
            y = cp.from_dlpack(d) if how == "dlpack" else cp.asarray(d)
            assert y.data.ptr == d.ptr
            got = int(cp.sum(y))
        expected = 4 * BIG_BASE + i * N_BIG
        if got != expected:
            wrong.append((i, got, expected))
    assert not wrong, "%d/%d wrong, e.g. %r" % (len(wrong), REPS, wrong[:3])


def test_cupy_temporary_input_freed_while_queued(cp):
    """A CuPy temporary passed to myModule is released when the call returns, while
    myModule's kernel may still be queued; CuPy reuses the memory at once. The
    result must still be right: the library keeps the producer's memory until
    its queued work is done (or orders the release after it)."""
    big = cp.arange(N_BIG, dtype=cp.int64) % 1000
    _check_temporary_input(big, lambda: cp.full(N_BIG, -1, cp.int64))


def _check_temporary_input(big, make_junk):
    """REPS times: keep the library's stream busy, pass the temporary `big + i`
    (it dies when add returns), then let the producer write fresh memory
    (`make_junk`, likely the same block): the sum must still be right."""
    big_d = mm.to_device(np.arange(N_BIG, dtype=np.int64) % 1000)
    wrong = []
    for i in range(REPS):
        busy = big_d
        for _ in range(3):
            busy = mm.add(busy, big_d)
        r = mm.add(big + i, 0)
        junk = make_junk()
        got = int(mm.sum(r))
        del junk, busy
        expected = BIG_BASE + i * N_BIG
        if got != expected:
            wrong.append((i, got, expected))
    assert not wrong, "%d/%d wrong, e.g. %r" % (len(wrong), REPS, wrong[:3])


def test_cupy_lifetimes(cp):
    n = 1 << 20
    expected = np.arange(n, dtype=np.float64) * 3
    # the producer is dropped: the DeviceArray keeps its memory
    x = cp.arange(n, dtype=cp.float64) * 3
    d = mm.asarray(x)
    ptr = x.data.ptr
    del x
    gc.collect()
    junk = [cp.full(n, -1.0) for _ in range(8)]
    assert d.ptr == ptr
    H.assert_same(d, expected)
    # from_dlpack of a temporary: the capsule's owner keeps it
    d2 = mm.from_dlpack(cp.arange(n, dtype=cp.float64) * 3)
    gc.collect()
    junk += [cp.full(n, -1.0) for _ in range(8)]
    H.assert_same(d2, expected)
    H.assert_same(d2 + d, expected * 2)
    del junk
    # the consumer outlives the DeviceArray it took through DLPack / the CAI
    H.release_cached()
    start = H.memory_stats()
    d3 = mm.to_device(expected)
    c = cp.from_dlpack(d3)
    c2 = cp.asarray(mm.add(d3, 0.0))
    del d3
    gc.collect()
    poison = [mm.to_device(np.full(n, -1.0)) for _ in range(4)]
    mm.synchronize()
    H.assert_same(c, expected)
    H.assert_same(c2, expected)
    del poison, c, c2
    gc.collect()
    mm.synchronize()
    assert H.memory_stats() == start, "DeviceArrays exported to CuPy were not released"


def test_cupy_unsupported_dtypes(cp):
    for dt in (cp.float16,):
        x = cp.zeros(4, dtype=dt)
        with pytest.raises(TypeError):
            mm.asarray(x)
        with pytest.raises(TypeError):
            mm.from_dlpack(x)
        with pytest.raises(TypeError):
            mm.add(x, x)


# ================================================================= PyTorch

@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS)
def test_torch_ops_equal_torch_and_numpy(torch, dtype, rng):
    a = H.values(dtype, (31, 9), rng, special=True)
    b = H.values(dtype, (31, 9), rng, nonzero=True, special=True)
    t, u = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    torch_ops = {"add": torch.add, "subtract": torch.sub, "multiply": torch.mul, "divide": torch.div}
    for name, fn, ref in FUNCS:
        r = fn(t, u)
        assert isinstance(r, mm.DeviceArray), name
        expected = np_ref(ref, a, b)
        H.assert_same(r, expected, name + ": ")
        back = torch.from_dlpack(r)
        assert back.data_ptr() == r.ptr and back.is_cuda
        H.assert_same(back, expected, name + " via torch: ")
        theirs = torch_ops[name](t, u)
        if theirs.dtype == back.dtype:            # torch divides ints into float32
            assert torch.equal(torch.nan_to_num(back), torch.nan_to_num(theirs)), name
    H.assert_same(mm.asarray(t) * u, np_ref(np.multiply, a, b))
    H.assert_same(mm.add(t, b), np_ref(np.add, a, b))
    H.assert_same(mm.subtract(1, t), np_ref(np.subtract, 1, a))
    H.assert_same(t.cpu().numpy(), a)


def test_torch_zero_copy_both_ways(torch):
    t = torch.arange(20, dtype=torch.float32, device="cuda").reshape(4, 5)
    v = mm.asarray(t)
    assert v.ptr == t.data_ptr()
    assert v.shape == (4, 5) and v.strides == (20, 4) and v.dtype == np.float32
    v2 = mm.from_dlpack(t)
    assert v2.ptr == t.data_ptr() and v2.shape == (4, 5) and v2.strides == (20, 4)
    d = mm.to_device(np.arange(6, dtype=np.int64).reshape(2, 3))
    back = torch.from_dlpack(d)
    assert back.data_ptr() == d.ptr and back.dtype == torch.int64 and tuple(back.shape) == (2, 3)
    assert back.device.type == "cuda" and back.device.index == 0
    H.assert_same(back, np.arange(6, dtype=np.int64).reshape(2, 3))
    # writes through torch are seen by myModule (same memory)
    back[1, 1] = 99
    torch.cuda.synchronize()
    assert d.get()[1, 1] == 99
    # a transposed DeviceArray view keeps its strides in torch
    tv = torch.from_dlpack(H.transposed_view(d))
    assert tv.data_ptr() == d.ptr and tv.stride() == (1, 3)
    expected = np.arange(6, dtype=np.int64).reshape(2, 3)
    expected[1, 1] = 99
    H.assert_same(tv, expected.T)


def test_torch_strided_inputs(torch, rng):
    a = H.values(np.float32, (8, 6), rng)
    b = H.values(np.float32, (6, 8), rng)
    t, u = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    tt = t.t()
    v = mm.asarray(tt)
    assert v.ptr == tt.data_ptr() and v.shape == (6, 8)
    assert v.strides == tuple(s * 4 for s in tt.stride())
    for name, fn, ref in FUNCS:
        H.assert_same(fn(tt, u), np_ref(ref, a.T, b), name + " t.t(): ")
        H.assert_same(fn(t[::2, 1:], u.t()[1::2, :5]), np_ref(ref, a[::2, 1:], b.T[1::2, :5]), name + ": ")
    H.assert_same(mm.from_dlpack(tt), a.T)


def test_torch_out(torch, rng):
    a = H.values(np.float64, (20, 7), rng)
    b = H.values(np.float64, (20, 7), rng, nonzero=True)
    t, u = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    for name, fn, ref in FUNCS:
        out = torch.full((20, 7), -7777.0, dtype=torch.float64, device="cuda")
        assert fn(t, u, out=out) is out, name
        H.assert_same(out, np_ref(ref, a, b), name + ": ")
    out = torch.full((7, 20), -7777.0, dtype=torch.float32, device="cuda").t()   # strided, float32
    assert mm.add(t, u, out=out) is out
    expected = np.full((20, 7), -1, np.float32)
    np.add(a, b, out=expected)
    H.assert_same(out, expected)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_cupy_and_torch_complex_arrays_are_shared(cp, torch, dtype):
    """Complex arrays cross by the CUDA array interface and DLPack without a copy, and
    come back as the same values."""
    x = cp.arange(6, dtype=dtype) * (1 - 2j)
    d = mm.asarray(x)
    assert d.dtype == np.dtype(dtype) and d.ptr == x.data.ptr
    np.testing.assert_array_equal(d.get(), cp.asnumpy(x))
    np.testing.assert_array_equal(mm.from_dlpack(x).get(), cp.asnumpy(x))
    back = cp.asarray(mm.multiply(d, 1j))
    np.testing.assert_array_equal(cp.asnumpy(back), cp.asnumpy(x) * 1j)
    t = torch.arange(6, device="cuda").to(getattr(torch, dtype)) * (1 - 2j)
    dt = mm.from_dlpack(t)
    assert dt.dtype == np.dtype(dtype) and dt.ptr == t.data_ptr()
    np.testing.assert_array_equal(dt.get(), t.cpu().numpy())
    np.testing.assert_array_equal(torch.from_dlpack(dt).cpu().numpy(), t.cpu().numpy())


@pytest.mark.parametrize("bad", ["float16", "bfloat16"])
def test_torch_unsupported_dtypes(torch, bad):
    t = torch.zeros(4, dtype=getattr(torch, bad), device="cuda")
    with pytest.raises(TypeError):
        mm.asarray(t)
    with pytest.raises(TypeError):
        mm.from_dlpack(t)
    with pytest.raises(TypeError):
        mm.add(t, t)


def test_torch_cpu_tensor(torch):
    t = torch.arange(5, dtype=torch.float32)
    with pytest.raises((BufferError, TypeError)):
        mm.from_dlpack(t)
    d = mm.asarray(t)                             # host data: copied to the GPU
    assert isinstance(d, mm.DeviceArray)
    H.assert_same(d, np.arange(5, dtype=np.float32))


def _torch_long_work(big):
    t = big
    for _ in range(4):
        t = (t * 3 + 1) % 1009
    return t


@pytest.mark.parametrize("importer", ["asarray", "from_dlpack"])
@pytest.mark.parametrize("where", ["default_stream", "side_stream"])
def test_torch_stream_import_without_sync(torch, importer, where):
    """x is written by PyTorch behind a queue of work (on its default stream, or a
    side stream made current), and read by myModule at once."""
    if where == "side_stream" and importer == "asarray":
        pytest.skip("torch's __cuda_array_interface__ (v2) cannot name a side stream")
    imp = getattr(mm, importer)
    big = torch.arange(N_BIG, dtype=torch.int64, device="cuda") % 1000
    torch.cuda.synchronize()
    stream = torch.cuda.Stream() if where == "side_stream" else torch.cuda.current_stream()
    wrong = []
    with torch.cuda.stream(stream):
        for i in range(REPS):
            _torch_long_work(big)
            x = big * 2 + i
            got = int(mm.sum(imp(x)))
            expected = 2 * BIG_BASE + i * N_BIG
            if got != expected:
                wrong.append((i, got, expected))
    assert not wrong, "%d/%d wrong, e.g. %r" % (len(wrong), REPS, wrong[:3])


def test_torch_stream_export_without_sync(torch):
    big_d = mm.to_device(np.arange(N_BIG, dtype=np.int64) % 1000)
    side = torch.cuda.Stream()
    wrong = []
    for i in range(REPS):
        d = big_d
        for _ in range(3):
            d = mm.add(d, big_d)
        d = mm.add(d, i)
        with torch.cuda.stream(side):
            y = torch.from_dlpack(d)
            assert y.data_ptr() == d.ptr
            got = int(y.sum())
        expected = 4 * BIG_BASE + i * N_BIG
        if got != expected:
            wrong.append((i, got, expected))
    assert not wrong, "%d/%d wrong, e.g. %r" % (len(wrong), REPS, wrong[:3])


def test_torch_temporary_input_freed_while_queued(torch):
    """As for CuPy: a PyTorch temporary handed to myModule is freed (and reused by
    PyTorch's caching allocator) while myModule's kernel may still be queued."""
    big = torch.arange(N_BIG, dtype=torch.int64, device="cuda") % 1000
    _check_temporary_input(big, lambda: torch.full((N_BIG,), -1, dtype=torch.int64, device="cuda"))


def test_torch_lifetimes(torch):
    n = 1 << 20
    expected = np.arange(n, dtype=np.float32) * 3
    t = torch.arange(n, dtype=torch.float32, device="cuda") * 3
    d = mm.asarray(t)
    del t
    gc.collect()
    junk = [torch.full((n,), -1.0, device="cuda") for _ in range(8)]
    H.assert_same(d, expected)
    d2 = mm.from_dlpack(torch.arange(n, dtype=torch.float32, device="cuda") * 3)
    gc.collect()
    junk += [torch.full((n,), -1.0, device="cuda") for _ in range(8)]
    H.assert_same(d2, expected)
    del junk
    H.release_cached()
    start = H.memory_stats()
    d3 = mm.to_device(expected)
    back = torch.from_dlpack(d3)
    del d3
    gc.collect()
    poison = [mm.to_device(np.full(n, -1.0, np.float32)) for _ in range(4)]
    mm.synchronize()
    H.assert_same(back, expected)
    del poison, back
    gc.collect()
    mm.synchronize()
    assert H.memory_stats() == start, "a DeviceArray exported to torch was not released"


# ================================================================= Numba

@pytest.mark.parametrize("dtype", DTYPES, ids=H.DTYPE_IDS)
def test_numba_arrays(nbcuda, dtype, rng):
    a = H.values(dtype, (40, 6), rng)
    b = H.values(dtype, (40, 6), rng, nonzero=True)
    da, db = nbcuda.to_device(a), nbcuda.to_device(b)
    v = mm.asarray(da)
    assert v.ptr == da.__cuda_array_interface__["data"][0]
    assert v.shape == a.shape and v.dtype == np.dtype(dtype)
    for name, fn, ref in FUNCS:
        r = fn(da, db)
        assert isinstance(r, mm.DeviceArray)
        expected = np_ref(ref, a, b)
        H.assert_same(r, expected, name + ": ")
        back = nbcuda.as_cuda_array(r)
        assert back.__cuda_array_interface__["data"][0] == r.ptr
        H.assert_same(back.copy_to_host(), expected, name + " via numba: ")
    # strided numba views (slices: numba's .T would compile a kernel)
    H.assert_same(mm.add(da[::2], db[1::2]), np_ref(np.add, a[::2], b[1::2]))
    H.assert_same(mm.multiply(da[:, ::2], 2), np_ref(np.multiply, a[:, ::2], 2))
    assert mm.asarray(da[:, ::2]).strides == (a.strides[0], 2 * a.itemsize)
    # out= a numba array
    out = nbcuda.to_device(np.full(a.shape, -7, dtype))
    assert mm.subtract(da, db, out=out) is out
    H.assert_same(out.copy_to_host(), np_ref(np.subtract, a, b))


# ================================================================= DLPack protocol

def test_dlpack_device_and_capsule_names():
    d = mm.to_device(np.arange(10.0))
    assert d.__dlpack_device__() == (2, 0)
    assert capsule_name(d.__dlpack__(max_version=(1, 0))) == b"dltensor_versioned"
    assert capsule_name(d.__dlpack__(max_version=(1, 3))) == b"dltensor_versioned"
    assert capsule_name(d.__dlpack__()) == b"dltensor"
    assert capsule_name(d.__dlpack__(stream=None)) == b"dltensor"
    assert capsule_name(d.__dlpack__(stream=1)) == b"dltensor"
    assert capsule_name(d.__dlpack__(stream=-1, max_version=(1, 0))) == b"dltensor_versioned"
    assert capsule_name(d.__dlpack__(max_version=(0, 8))) == b"dltensor"
    assert capsule_name(d.__dlpack__(dl_device=(2, 0), max_version=(1, 0))) == b"dltensor_versioned"
    with pytest.raises(BufferError):
        d.__dlpack__(dl_device=(1, 0))
    u = mm.to_device(np.arange(3.0), unified=True)
    assert u.__dlpack_device__() in ((2, 0), (13, 0))


def test_dlpack_unconsumed_capsules_release_the_array():
    H.release_cached()
    start = H.memory_stats()
    d = mm.to_device(np.arange(1000.0))
    caps = [d.__dlpack__() for _ in range(50)] + [d.__dlpack__(max_version=(1, 0)) for _ in range(50)]
    caps.append(d.__dlpack__(max_version=(1, 0), copy=True))
    del d
    gc.collect()
    assert H.memory_stats()["allocations"] > start["allocations"]   # the capsules hold it
    del caps
    gc.collect()
    mm.synchronize()
    assert H.memory_stats() == start


class DLPackProducer:
    """Forwards the DLPack protocol to a DeviceArray (so that from_dlpack cannot
    shortcut it), records the arguments it was called with, and can behave like
    an old producer (no max_version) or copy."""

    def __init__(self, d, legacy=False, copy=None):
        self.d, self.legacy, self.copy = d, legacy, copy
        self.calls, self.capsules = [], []

    def __dlpack_device__(self):
        return self.d.__dlpack_device__()

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls.append({"stream": stream, "max_version": max_version})
        if self.legacy and max_version is not None:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        kw = {"stream": stream}
        if max_version is not None:
            kw["max_version"] = max_version
        if self.copy:
            kw["copy"] = True
        cap = self.d.__dlpack__(**kw)
        self.capsules.append(cap)
        return cap


@pytest.mark.parametrize("legacy", [False, True], ids=["versioned", "legacy"])
@pytest.mark.parametrize("copy", [False, True], ids=["view", "copy"])
def test_dlpack_import_protocol(legacy, copy, rng):
    a = H.values(np.float32, (7, 5), rng)
    d = mm.to_device(a)
    p = DLPackProducer(d, legacy=legacy, copy=copy)
    v = mm.from_dlpack(p)
    assert isinstance(v, mm.DeviceArray)
    assert v.shape == (7, 5) and v.dtype == np.float32 and v.strides == (20, 4)
    if copy:
        assert v.ptr != d.ptr
    else:
        assert v.ptr == d.ptr
    H.assert_same(v, a)
    H.assert_same(v + d, a + a)
    # the stream passed is an int, never 0 (DLPack forbids 0 for CUDA)
    last = p.calls[-1]
    assert isinstance(last["stream"], int) and last["stream"] != 0
    if legacy:
        assert last["max_version"] is None
        assert capsule_name(p.capsules[-1]) == b"used_dltensor"
    else:
        assert tuple(last["max_version"])[0] >= 1
        assert capsule_name(p.capsules[-1]) == b"used_dltensor_versioned"
    # asarray of an object with only the DLPack protocol is a view too
    w = mm.asarray(DLPackProducer(d, legacy=legacy))
    assert w.ptr == d.ptr
    H.assert_same(w, a)
    # the view keeps the source alive
    del d, p
    gc.collect()
    H.assert_same(v, a)
    H.assert_same(w, a)


def test_from_dlpack_of_host_and_self():
    with pytest.raises(BufferError):
        mm.from_dlpack(np.arange(3.0))
    d = mm.to_device(np.arange(3.0))
    assert mm.from_dlpack(d) is d
    with pytest.raises((TypeError, AttributeError)):
        mm.from_dlpack([1.0, 2.0])
