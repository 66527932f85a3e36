"""floor_divide and remainder of floats, held to NumPy bit for bit over millions of
pairs (edge values, quotients near 2**52 / 2**23 where exact_fmod leaves fmod, and
near 2**50 / 2**21 where floor_divide leaves its one-division route), twice: on the CPU,
where their functors (ops/floor_divide.cu, ops/remainder.cu, __host__ __device__)
are compiled into a small host program (tests/divmod_host.cu), with no GPU; and on
the GPU through the library, where the device's own division, fma, trunc and fmod
run the same steps (an fma-based fmod once passed the first and failed the
second)."""
import subprocess

import numpy as np
import pytest

from conftest import GPU_MARKS
from host_programs import build_program


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    return build_program(tmp_path_factory.mktemp("divmod") / "divmod_host", ["tests/divmod_host.cu"])


def edge_values(dtype):
    f = np.finfo(dtype)
    base = [0.0, 1.0, 0.5, 1.5, 2.0, 3.0, 7.0, 0.1, 1e-3, 1e3, np.pi, 2.0 ** f.nmant, 2.0 ** (f.nmant + 1),
            2.0 ** f.nmant - 1, 2.0 ** (f.nmant - 1) + 0.5, float(f.max), float(f.tiny), float(f.smallest_subnormal),
            float(f.eps), 1 - float(f.epsneg), 1 + float(f.eps), np.inf, np.nan]
    v = np.array(base, dtype)
    return np.concatenate([v, -v])


def random_pairs(dtype, n, rng):
    """Pairs of every kind: mixed magnitudes, quotients around the 2**nmant switch
    and just below or above integers, edge values against everything."""
    f = np.finfo(dtype)
    sign = lambda k: rng.choice(np.array([-1.0, 1.0]), k)  # noqa: E731
    k = n // 4
    wide_a = sign(k) * 10.0 ** rng.uniform(-40 if dtype == np.float32 else -300, 38 if dtype == np.float32 else 300, k)
    wide_b = sign(k) * 10.0 ** rng.uniform(-40 if dtype == np.float32 else -300, 38 if dtype == np.float32 else 300, k)
    b = sign(k) * 10.0 ** rng.uniform(-6, 6, k)
    near = b * (2.0 ** rng.uniform(f.nmant - 3, f.nmant + 3, k)) * sign(k)
    b2 = sign(k) * 10.0 ** rng.uniform(-3, 3, k)
    integral = b2 * rng.integers(-1000, 1000, k).astype(float)
    integral = np.nextafter(integral.astype(dtype), rng.choice(np.array([-np.inf, np.inf]), k).astype(dtype))
    small_a = sign(k) * 10.0 ** rng.uniform(-3, 3, k)
    with np.errstate(all="ignore"):
        a = np.concatenate([wide_a, near, integral, small_a]).astype(dtype)
        d = np.concatenate([wide_b, b, b2, b2[::-1]]).astype(dtype)
    edges = edge_values(dtype)
    ea, eb = np.meshgrid(edges, edges)
    picks = rng.choice(edges, 2 * k)
    a = np.concatenate([a, ea.ravel(), picks[:k], a[:k]])
    d = np.concatenate([d, eb.ravel(), d[:k], picks[k:]])
    return a.astype(dtype), d.astype(dtype)


def bits(x):
    return x.view(np.uint32 if x.dtype == np.float32 else np.uint64)


def pairs_and_numpy(dtype):
    """The pairs both tests feed, and NumPy's results for them."""
    rng = np.random.default_rng(25)
    a, b = random_pairs(dtype, 2_000_000, rng)
    with np.errstate(all="ignore"):
        expected = {"floor_divide": np.floor_divide(a, b), "remainder": np.remainder(a, b)}
    return a, b, expected


def assert_bits_match(name, a, b, have, want):
    # NaN payloads may differ; any NaN matches any NaN.
    same = (bits(have) == bits(want)) | (np.isnan(have) & np.isnan(want))
    bad = np.flatnonzero(~same)
    assert bad.size == 0, "%s %s: %d of %d differ, e.g. %s" % (
        name, have.dtype.name, bad.size, a.size,
        [(a[i].hex() if hasattr(a[i], "hex") else a[i], b[i], have[i], want[i]) for i in bad[:5]])


FLOAT_DTYPES = pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])


@FLOAT_DTYPES
def test_float_floor_divide_and_remainder_are_numpys_bit_for_bit(program, dtype, tmp_path):
    a, b, expected = pairs_and_numpy(dtype)
    pairs = np.empty(2 * a.size, dtype)
    pairs[0::2], pairs[1::2] = a, b
    pairs.tofile(tmp_path / "in")
    proc = subprocess.run([program, "f32" if dtype == np.float32 else "f64", str(tmp_path / "in"),
                           str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    got = np.fromfile(tmp_path / "out", dtype)
    assert got.size == 2 * a.size
    assert_bits_match("floor_divide", a, b, got[:a.size], expected["floor_divide"])
    assert_bits_match("remainder", a, b, got[a.size:], expected["remainder"])


@pytest.mark.parametrize("name", ["floor_divide", "remainder"])
@FLOAT_DTYPES
@pytest.mark.parametrize("where", ["device arrays", "host arrays"])
@GPU_MARKS[0]
@GPU_MARKS[1]
def test_float_floor_divide_and_remainder_on_the_gpu_are_numpys_bit_for_bit(dtype, name, where):
    import myModule as mm
    a, b, expected = pairs_and_numpy(dtype)
    fn = getattr(mm, name)
    if where == "device arrays":
        have = fn(mm.to_device(a), mm.to_device(b)).get()
    else:
        have = fn(a, b, device="cuda")
    assert have.dtype == a.dtype
    assert_bits_match(name, a, b, have, expected[name])
