"""Operations whose result is narrower than their input (float64 or int64 -> bool)
read four elements a thread in 32-byte packs where the views allow it, and one a
thread where they do not (session 23). Device views starting 0 to 5 elements into
their buffer (so 0, 8, ..., 40 bytes: packed, and not) and of lengths around the pack,
against NumPy, with NaN, inf, -0.0 and integer extremes among the values."""
import numpy as np
import pytest

import gpu_helpers as H
from conftest import GPU_MARKS
from gpu_helpers import mm

pytestmark = [GPU_MARKS[0], GPU_MARKS[1]]

UNARY = [("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite), ("signbit", np.signbit),
         ("logical_not", np.logical_not)]
BINARY = [("greater", np.greater), ("less_equal", np.less_equal), ("equal", np.equal),
          ("logical_and", np.logical_and)]
OFFSETS = [0, 1, 2, 3, 4, 5]
LENGTHS = [1, 3, 4, 5, 8, 1023, 4099]


def values(dtype, n, seed):
    rng = np.random.default_rng(seed)
    if dtype == np.float64:
        x = rng.standard_normal(n)
        specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 5e-324, -1.0])
    else:
        x = rng.integers(-5, 5, n).astype(dtype)
        info = np.iinfo(dtype)
        specials = np.array([info.min, info.max, 0, -1, 1], dtype)
    x[rng.integers(0, n, min(n, 3 * len(specials)))] = np.resize(specials, min(n, 3 * len(specials)))
    return x.astype(dtype)


def views(dtype, n, seed):
    """A host array of n elements and the same values as a device view `offset`
    elements into a buffer, for each offset."""
    host = values(dtype, n, seed)
    out = []
    for offset in OFFSETS:
        buf = np.zeros(n + offset, dtype)
        buf[offset:] = host
        out.append((offset, host, mm.to_device(buf)[offset:]))
    return out


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [np.float64, np.int64], ids=["float64", "int64"])
@pytest.mark.parametrize("name,ref", UNARY, ids=[u[0] for u in UNARY])
def test_unary_narrow_results_at_every_offset(name, ref, dtype, n):
    for offset, host, dev in views(dtype, n, seed=n):
        got = getattr(mm, name)(dev)
        assert got.dtype == np.bool_ and got.shape == (n,)
        np.testing.assert_array_equal(got.get(), ref(host), err_msg="offset %d" % offset)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [np.float64, np.int64], ids=["float64", "int64"])
@pytest.mark.parametrize("name,ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary_narrow_results_with_offset_views(name, ref, dtype, n):
    other = values(dtype, n, seed=n + 1)
    aligned = mm.to_device(other)
    for offset, host, dev in views(dtype, n, seed=n):
        for a, b, ha, hb in ((dev, aligned, host, other), (aligned, dev, other, host), (dev, dev, host, host)):
            got = getattr(mm, name)(a, b)
            assert got.dtype == np.bool_
            np.testing.assert_array_equal(got.get(), ref(ha, hb), err_msg="offset %d" % offset)


def test_a_narrow_result_into_an_offset_out():
    """out= itself 1 to 5 bools into its buffer: the packed store needs it aligned too."""
    x = values(np.float64, 1027, seed=3)
    d = mm.to_device(x)
    for offset in OFFSETS:
        buf = mm.to_device(np.ones(1027 + offset, np.bool_))
        out = buf[offset:]
        assert mm.isnan(d, out=out) is out
        np.testing.assert_array_equal(out.get(), np.isnan(x))
        assert H.element(buf, 0) == (True if offset else bool(np.isnan(x[0])))
