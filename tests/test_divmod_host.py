"""floor_divide and remainder of floats, held to NumPy bit for bit on the CPU:
their functors (ops/floor_divide.cu, ops/remainder.cu, __host__ __device__) are
compiled into a small host program (tests/divmod_host.cu), so their steps are
checked over millions of pairs, edge values and quotients near 2**52 / 2**23
included, with no GPU. The same functors run in the kernels (test_ops.py checks
those on a GPU, where the device's own fmod, division and floor are used)."""
import os
import shutil
import subprocess

import numpy as np
import pytest

from conftest import ROOT
from myModule.build import tool_env  # nvcc's host tools where PATH lacks them (make test-wheel)

NVCC = shutil.which("nvcc") or os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"), "bin", "nvcc")


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    if not os.path.exists(NVCC):
        pytest.skip("nvcc not found (CUDA_PATH)")
    exe = str(tmp_path_factory.mktemp("divmod") / "divmod_host")
    proc = subprocess.run([NVCC, "-std=c++17", "-O2", "-Xcompiler", "-Wall,-Wextra,-Werror",
                           "-I", os.path.join(ROOT, "vectorAdd"), os.path.join(ROOT, "tests", "divmod_host.cu"),
                           "-o", exe], capture_output=True, text=True, env=tool_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return exe


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


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_float_floor_divide_and_remainder_are_numpys_bit_for_bit(program, dtype, tmp_path):
    rng = np.random.default_rng(25)
    a, b = random_pairs(dtype, 2_000_000, rng)
    pairs = np.empty(2 * a.size, dtype)
    pairs[0::2], pairs[1::2] = a, b
    pairs.tofile(tmp_path / "in")
    proc = subprocess.run([program, "f32" if dtype == np.float32 else "f64", str(tmp_path / "in"),
                           str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    got = np.fromfile(tmp_path / "out", dtype)
    assert got.size == 2 * a.size
    with np.errstate(all="ignore"):
        expected = {"floor_divide": np.floor_divide(a, b), "remainder": np.remainder(a, b)}
    for name, want, have in (("floor_divide", expected["floor_divide"], got[:a.size]),
                             ("remainder", expected["remainder"], got[a.size:])):
        # NaN payloads may differ; any NaN matches any NaN.
        same = (bits(have) == bits(want)) | (np.isnan(have) & np.isnan(want))
        bad = np.flatnonzero(~same)
        assert bad.size == 0, "%s %s: %d of %d differ, e.g. %s" % (
            name, np.dtype(dtype).name, bad.size, a.size,
            [(a[i], b[i], have[i], want[i]) for i in bad[:5]])
