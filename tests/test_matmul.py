"""matmul (myModule.matmul, DeviceArray's @, np.matmul on DeviceArrays, the array API's
matmul, tensordot and vecdot) against NumPy as the oracle: every dtype (floats through
cuBLAS, bool and integers with the library's kernel: exact, integers wrapping), the
shapes of NumPy's rules (1-d operands, stacks broadcast against each other, empty
axes, sizes around tiles), layouts (transposed, strided, reversed: passed to cuBLAS as
they lie where it can read them, copied where not) and NumPy's errors. Host data is
NumPy's own call."""
import numpy as np
import pytest

import myModule as mm
import myModule.array_api as xp
from conftest import requires_gpu

pytestmark = pytest.mark.usefixtures("quiet_numpy")

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]

SHAPES = [
    ((1, 1), (1, 1)), ((3, 4), (4, 5)), ((64, 65), (65, 63)), ((257, 129), (129, 255)),
    ((7,), (7, 3)), ((4, 7), (7,)), ((7,), (7,)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 6)), ((0, 3), (3, 4)), ((3, 0), (0, 4)), ((2, 0, 3), (3, 2)), ((0,), (0,)),
]


def sample(dtype, shape, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.3
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        a = rng.integers(-1000, 1000, shape).astype(dtype)
        if a.size >= 2:
            a.flat[0], a.flat[-1] = info.max, info.min   # products that wrap
        return a
    return rng.standard_normal(shape).astype(dtype)


def check(got, want):
    assert isinstance(got, mm.DeviceArray)
    host = got.get()
    assert host.dtype == want.dtype and host.shape == want.shape
    if want.dtype.kind == "f":
        # Sums of k products in another order: the error of each is bounded by k ulp of the
        # sum of magnitudes.
        eps = np.finfo(want.dtype).eps
        np.testing.assert_allclose(host, want, rtol=0, atol=float(eps * 8 * max(1, np.abs(want).max(initial=0)) *
                                                                  max(1, want.shape[-1] if want.ndim else 1)))
    else:
        np.testing.assert_array_equal(host, want)


def on_gpu(test):
    return pytest.mark.gpu(requires_gpu(test))


@on_gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_matmul_matches_numpy(rng, dtype, shapes):
    a, b = sample(dtype, shapes[0], rng), sample(dtype, shapes[1], rng)
    with np.errstate(over="ignore"):
        want = np.matmul(a, b)
    got = mm.matmul(mm.to_device(a), mm.to_device(b))
    if want.ndim == 0:   # 1-d @ 1-d: a 0-d array on the GPU
        assert got.shape == () and got.dtype == want.dtype
        np.testing.assert_allclose(got.get(), want, rtol=1e-5 if dtype == np.float32 else 1e-12)
        return
    check(got, want)


@on_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_matmul_layouts(rng, dtype):
    a, b = sample(dtype, (40, 30), rng), sample(dtype, (30, 50), rng)
    da, db = mm.to_device(a), mm.to_device(b)
    af, bf = mm.to_device(np.asfortranarray(a)), mm.to_device(np.asfortranarray(b))
    cases = [
        (af, db, a, b), (da, bf, a, b), (af, bf, a, b),                          # column-major: as they lie
        (da[::2], db, a[::2], b), (da[:, ::-1], db[::-1], a[:, ::-1], b[::-1]),  # strided, reversed: copied
        (da[:, :20], db[:20], a[:, :20], b[:20]),                               # a row stride past the width
    ]
    with np.errstate(over="ignore"):
        for x, y, hx, hy in cases:
            check(mm.matmul(x, y), np.matmul(hx, hy))
        # A stack whose batch axes do not fold into one stride: broadcast, then copied.
        s, t = sample(dtype, (3, 1, 30, 4), rng), sample(dtype, (1, 2, 4, 6), rng)
        check(mm.matmul(mm.to_device(s)[:, :, ::3], mm.to_device(t)), np.matmul(s[:, :, ::3], t))
        # One matrix for a whole stack (batch stride 0), on either side.
        check(mm.matmul(mm.to_device(s), mm.to_device(t[0, 0])), np.matmul(s, t[0, 0]))


@on_gpu
def test_matmul_spellings_and_promotion(rng):
    a, b = rng.standard_normal((5, 6)), rng.standard_normal((6, 4)).astype(np.float32)
    da, db = mm.to_device(a), mm.to_device(b)
    want = np.matmul(a, b)                       # float64 @ float32 -> float64
    for got in (da @ db, np.matmul(da, db), xp.matmul(da, db), mm.matmul(da, b), a @ db, mm.matmul(a, db)):
        check(got, want)
    i = rng.integers(-5, 5, (6, 4)).astype(np.int32)
    check(da @ mm.to_device(i), np.matmul(a, i))


@on_gpu
def test_matmul_errors_as_numpy(rng):
    d = mm.to_device(rng.standard_normal((3, 4)))
    with pytest.raises(ValueError):
        mm.matmul(d, mm.to_device(rng.standard_normal((5, 2))))           # core dimensions differ
    with pytest.raises(ValueError):
        mm.matmul(mm.to_device(np.float64(2.0)), d)                       # 0-d
    with pytest.raises(ValueError):
        mm.matmul(mm.to_device(np.ones((2, 3, 4))), mm.to_device(np.ones((3, 4, 2))))  # stacks 2 and 3
    with pytest.raises(TypeError):
        d @ "text"


@on_gpu
@pytest.mark.parametrize("a_shape, b_shape, axes", [
    ((3, 4, 5), (2, 2), 0), ((3, 4, 5), (5, 2), 1), ((3, 4, 5), (4, 5, 2), 2),
    ((3, 4, 5), (5, 3, 4), ((0, 2), (1, 0))), ((3, 4, 5), (3, 2, 4), ([1], [2])),
    ((3, 4, 5), (5, 2), ((-1,), (0,))),
])
def test_tensordot_matches_numpy(rng, a_shape, b_shape, axes):
    a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    check(xp.tensordot(mm.to_device(a), mm.to_device(b), axes=axes), np.tensordot(a, b, axes=axes))


@on_gpu
def test_vecdot_matches_numpy(rng):
    a, b = rng.standard_normal((4, 6)), rng.standard_normal((6,))
    check(xp.vecdot(mm.to_device(a), mm.to_device(b)), np.vecdot(a, b))
    c = rng.integers(-9, 9, (5, 3)).astype(np.int32)
    check(xp.vecdot(mm.to_device(c), mm.to_device(c), axis=0), np.vecdot(c, c, axis=0))
    with pytest.raises(ValueError):
        xp.vecdot(mm.to_device(a), mm.to_device(rng.standard_normal(4)))


def test_matmul_of_host_data_is_numpys(rng):
    """Host operands: NumPy's own matmul (no GPU needed)."""
    for x, y in (((3, 4), (4, 2)), ((4,), (4, 2)), ((2, 3, 4), (4,)), ((4,), (4,))):
        a, b = rng.standard_normal(x), rng.standard_normal(y)
        got = mm.matmul(a, b)
        np.testing.assert_array_equal(got, np.matmul(a, b))
        assert type(got) is type(np.matmul(a, b))
    with pytest.raises(ValueError):
        mm.matmul(np.ones((3, 4)), np.ones((3, 4)))
    with pytest.raises(TypeError):
        mm.matmul(np.ones(3))
