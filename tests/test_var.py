"""The array API's var and std over every axis of a DeviceArray, one pass on the GPU
(va_var: Welford within a batch, Chan's combination across), against NumPy's
two-pass var as the oracle (computed in float64 for float32 data: the library
accumulates in double): sizes around the batch and block edges, 0-d, empty and
large; strided, reversed, Fortran and misaligned views; NaN, inf, -0.0, data far
from zero; every correction, including none left; the same bits on every run."""
import numpy as np
import pytest

import myModule as mm
import myModule.array_api as xp
from conftest import GPU_MARKS

pytestmark = GPU_MARKS + [pytest.mark.usefixtures("quiet_numpy")]

# Packs a batch: 4 packs of 2 (float64) or 4 (float32) elements; 256 threads a block.
SIZES = [1, 2, 7, 8, 9, 255, 1024, 2047, 2048, 2049, 8191, 8192, 8193, 100_003, (1 << 22) + 5]


def oracle(a, correction=0.0):
    """NumPy's var in float64, rounded to a's dtype."""
    return np.asarray(np.var(a.astype(np.float64), ddof=correction)).astype(a.dtype)


def assert_var(got, a, correction=0.0, rtol=None):
    assert isinstance(got, mm.DeviceArray) and got.shape == () and got.dtype == a.dtype
    want = oracle(a, correction)
    rtol = rtol if rtol is not None else (1e-12 if a.dtype == np.float64 else 2e-7)
    np.testing.assert_allclose(got.get(), want, rtol=rtol, atol=0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", SIZES)
def test_var_of_every_size(rng, dtype, n):
    a = rng.normal(3.0, 2.0, n).astype(dtype)
    assert_var(xp.var(mm.to_device(a)), a)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_var_of_views(rng, dtype):
    a = rng.normal(-1.0, 5.0, (301, 67)).astype(dtype)
    d = mm.to_device(a)
    for view, host in ((d[::-1, ::2], a[::-1, ::2]), (d.T, a.T), (d[1:, 3:], a[1:, 3:]),
                       (d[:, 5], a[:, 5])):
        assert_var(xp.var(view), host)
    f = np.asfortranarray(a)
    assert_var(xp.var(mm.to_device(f)), f)
    # One element past an aligned start: the kernel of one element a pack.
    flat = mm.to_device(a.ravel())
    assert_var(xp.var(flat[1:]), a.ravel()[1:])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_var_of_0d_and_empty(dtype):
    assert_var(xp.var(mm.to_device(np.asarray(2.5, dtype=dtype))), np.asarray(2.5, dtype=dtype))
    got = xp.var(mm.to_device(np.zeros((0, 3), dtype=dtype)))
    assert got.dtype == dtype and np.isnan(got.get())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_var_of_special_values(rng, dtype):
    base = rng.normal(0, 1, 5000).astype(dtype)
    for value in (np.nan, np.inf, -np.inf):
        a = base.copy()
        a[1234] = value
        got = xp.var(mm.to_device(a)).get()
        assert np.isnan(got), (value, got)   # NumPy: nan for a NaN or an infinity
    a = np.array([-0.0, 0.0, -0.0], dtype=dtype)
    got = xp.var(mm.to_device(a)).get()
    assert got == 0 and not np.signbit(got)
    assert xp.var(mm.to_device(np.full(1000, 7.25, dtype=dtype))).get() == 0


def test_var_far_from_zero_is_accurate(rng):
    """Data with a mean 1e9 times its spread: a sum of squares would lose every digit;
    the moments keep NumPy's two-pass accuracy."""
    a = 1e9 + rng.normal(0, 1, 1 << 20)
    assert_var(xp.var(mm.to_device(a)), a, rtol=1e-9)
    a = np.concatenate([np.full(1 << 16, 1e8), rng.normal(0, 1, 1 << 16)])   # one big jump
    assert_var(xp.var(mm.to_device(a)), a, rtol=1e-11)


@pytest.mark.parametrize("correction", [0, 1, 2.5, 99, 100, 101])
def test_var_corrections_as_numpy(rng, correction):
    a = rng.normal(0, 1, 100)
    got = xp.var(mm.to_device(a), correction=correction).get()
    want = np.var(a, ddof=correction)    # n - ddof <= 0: inf (NumPy warns)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    got = xp.var(mm.to_device(np.full(10, 3.0)), correction=10).get()
    assert np.isnan(got) and np.isnan(np.var(np.full(10, 3.0), ddof=10))


def test_var_std_keepdims_and_axis_none_spelled_out(rng):
    a = rng.normal(0, 1, (40, 50, 3))
    d = mm.to_device(a)
    got = xp.var(d, axis=(0, 1, 2), keepdims=True, correction=1)
    assert got.shape == (1, 1, 1)
    np.testing.assert_allclose(got.get(), np.var(a, ddof=1, keepdims=True), rtol=1e-12)
    got = xp.std(d, axis=(2, 0, 1))
    assert got.shape == ()
    np.testing.assert_allclose(got.get(), np.std(a), rtol=1e-12)


def test_var_is_the_same_bits_every_run(rng):
    a = rng.normal(0, 1, 3_000_001)
    d = mm.to_device(a)
    first = xp.var(d).get()
    for _ in range(5):
        assert xp.var(d).get().tobytes() == first.tobytes()


def test_var_all_refuses_what_it_cannot_take():
    with pytest.raises(TypeError):
        mm._core._var_all(np.ones(3), 0.0)                  # host data: the array API's own path
    with pytest.raises(TypeError):
        mm._core._var_all(mm.to_device(np.arange(3)), 0.0)  # integers
    with pytest.raises(TypeError):
        mm._core._var_all(mm.to_device(np.ones(3)), "1")
