"""Operations whose result is zeros whatever the input for some dtypes (imag of a
real array, isnan and isinf of integers and bool, signbit of unsigned integers and
bool) write it with a memset where the result is contiguous and compute it
elsewhere (session 24). Each such dtype, against NumPy: contiguous, offset into the
buffer, reversed, strided, 0-d, empty, broadcast into out=, and an out= holding
other values first (the memset must overwrite all of it and nothing beyond)."""
import numpy as np
import pytest

from conftest import GPU_MARKS
from gpu_helpers import mm

pytestmark = [GPU_MARKS[0], GPU_MARKS[1]]

INTEGERS = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
CASES = ([("imag", np.imag, d) for d in INTEGERS + ["float32", "float64"]] +
         [("isnan", np.isnan, d) for d in INTEGERS] + [("isinf", np.isinf, d) for d in INTEGERS] +
         [("signbit", np.signbit, d) for d in ["bool", "uint8", "uint16", "uint32", "uint64"]])


def values(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind == "f":
        x = rng.standard_normal(shape).astype(dtype)
        specials = np.array([-0.0, np.nan, -np.inf, np.inf], dtype)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
        specials = np.array([info.min, info.max], dtype)
    flat = x.reshape(-1)
    k = min(len(specials), flat.size)
    flat[:k] = specials[:k]
    return x


def check(got, want):
    got = got.get() if hasattr(got, "get") else got
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    # Bits, not values: imag's zeros are +0.0 as NumPy's.
    assert got.tobytes() == want.tobytes()


IDS = ["%s-%s" % (c[0], c[2]) for c in CASES]


@pytest.mark.parametrize("name,ref,dtype", CASES, ids=IDS)
@pytest.mark.parametrize("n", [1, 3, 4099])
def test_zero_result_contiguous_offset_reversed_strided(name, ref, dtype, n):
    host = values(dtype, 3 * n + 5, seed=n)
    dev = mm.to_device(host)
    for view in (slice(0, n), slice(1, n + 1), slice(5, 5 + n), slice(None, None, -1), slice(2, None, 3)):
        check(getattr(mm, name)(dev[view]), ref(host[view]))


@pytest.mark.parametrize("name,ref,dtype", CASES, ids=IDS)
def test_zero_result_zero_d_empty_and_two_d(name, ref, dtype):
    host = values(dtype, (7, 9), seed=1)
    dev = mm.to_device(host)
    check(getattr(mm, name)(dev[2, 3]), ref(host[2, 3]))
    check(getattr(mm, name)(dev[:0]), ref(host[:0]))
    check(getattr(mm, name)(dev), ref(host))
    check(getattr(mm, name)(dev.T), ref(host.T))


@pytest.mark.parametrize("name,ref,dtype", CASES, ids=IDS)
def test_zero_result_into_out_overwrites_exactly_its_elements(name, ref, dtype):
    host = values(dtype, 1000, seed=2)
    want = ref(host)
    guard = np.ones(1010, want.dtype)
    buf = mm.to_device(guard)
    getattr(mm, name)(mm.to_device(host), out=buf[3:1003])
    expected = guard.copy()
    expected[3:1003] = want
    check(buf, expected)
    # A broadcast input into a larger out.
    row = values(dtype, 17, seed=3)
    out = mm.to_device(np.ones((5, 17), want.dtype))
    getattr(mm, name)(mm.to_device(row), out=out)
    check(out, np.broadcast_to(ref(row), (5, 17)))
