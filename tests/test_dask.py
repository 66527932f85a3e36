"""myModule on Dask arrays of NumPy chunks, computed by a distributed.LocalCluster
of two worker processes (one for the whole module), against NumPy on the same data."""
import importlib
import os
import subprocess
import sys

import numpy as np
import pytest

import myModule as mm

from conftest import ROOT

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install 'dask[array]')")
distributed = pytest.importorskip("distributed", reason="distributed is not installed")

pytestmark = pytest.mark.usefixtures("quiet_numpy")

#: Seconds a computation may take before the test fails rather than hangs (a worker
#: that cannot import what a task needs dies and is restarted, again and again).
TIMEOUT = 120


@pytest.fixture(scope="module")
def client():
    # Processes, not threads: chunks and tasks cross a real network stack (TCP on loopback).
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None, host="127.0.0.1",
                                  worker_dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


def numpy_of(name):
    """The declaration's reference: a NumPy function, or a NumPy composition of
    the package's own (myModule._reference.softplus)."""
    module, _, attr = [op for op in mm.ops if op["name"] == name][0]["reference"].rpartition(".")
    assert module in ("numpy", "myModule._reference")
    return getattr(importlib.import_module(module), attr)


def loop_dtype(name, preferred):
    """`preferred` where the operation computes in it, else the integer of its size
    (the bitwise operations have no float loop)."""
    loops = [op for op in mm.ops if op["name"] == name][0]["results"]
    if np.dtype(preferred).name in loops:
        return preferred
    return np.int64 if np.dtype(preferred).itemsize == 8 else np.int32


def positive(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        return (rng.random(shape) + 0.5).astype(dtype)
    return rng.integers(1, 50, size=shape).astype(dtype)


def assert_equal_numpy(got, expected):
    got = np.asarray(got)
    assert got.dtype == expected.dtype
    assert got.shape == np.shape(expected)
    np.testing.assert_allclose(got, expected, rtol=1e-12 if got.dtype.kind == "f" else 0)


BINARY = [op["name"] for op in mm.ops if op["kind"] == "elementwise" and op["nin"] == 2
          and op["nparams"] == 0 and op["reference"].startswith("numpy.")]
UNARY = [op["name"] for op in mm.ops if op["kind"] == "elementwise" and op["nin"] == 1
         and op["nparams"] == 0]


def test_import_myModule_does_not_import_dask():
    code = "import sys, myModule; myModule.add(1, 2); print('dask' in sys.modules)"
    # Run from the package's parent: `-c` puts the working directory first on the path,
    # and the repository root holds a myModule without its extension when the build
    # under test lives elsewhere (make asan's build/asan, an installed wheel).
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(mm.__file__)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=package_parent, env=dict(os.environ, PYTHONPATH=package_parent))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_operations_are_lazy_and_say_their_chunks():
    calls = []

    def source(block):
        calls.append(1)
        return block

    x = da.ones((6, 4), chunks=(3, 2), dtype=np.float32).map_blocks(source)
    calls.clear()  # map_blocks itself probes the function for its dtype and meta
    y = mm.add(mm.multiply(x, 2.0), x)
    s = mm.sum(y)
    assert isinstance(y, da.Array) and isinstance(s, da.Array)
    assert calls == []
    assert y.dtype == np.float32 and y.chunks == x.chunks
    assert type(y._meta) is np.ndarray and y._meta.dtype == np.float32
    assert type(s._meta) is np.ndarray and s.dtype == np.float32
    assert y.__dask_keys__()[0][0][0].startswith("mm-add")


@pytest.mark.parametrize("name", BINARY)
def test_binary_on_cluster(client, rng, name):
    dtype = loop_dtype(name, np.float64)
    a = positive(rng, (300, 70), dtype)
    b = positive(rng, (300, 70), dtype)
    x = da.from_array(a, chunks=(100, 30))
    y = da.from_array(b, chunks=(75, 70))  # other chunks: Dask aligns them
    assert_equal_numpy(client.compute(getattr(mm, name)(x, y)).result(timeout=TIMEOUT), numpy_of(name)(a, b))


@pytest.mark.parametrize("name", UNARY)
def test_unary_on_cluster(client, rng, name):
    a = positive(rng, (1000,), loop_dtype(name, np.float32))
    x = da.from_array(a, chunks=300)
    assert_equal_numpy(client.compute(getattr(mm, name)(x)).result(timeout=TIMEOUT), numpy_of(name)(a))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.bool_])
def test_dtypes_promote_as_numpy(client, rng, dtype):
    a = positive(rng, (40, 7), np.int64).astype(dtype)
    b = positive(rng, (40, 7), np.float32)
    x = da.from_array(a, chunks=(9, 4))
    for got, expected in [(mm.multiply(x, b), a * b), (mm.add(x, 3), a + 3),
                          (mm.less(x, 2), a < 2)]:
        assert got.dtype == expected.dtype
        assert_equal_numpy(client.compute(got).result(timeout=TIMEOUT), expected)


def test_broadcasting_numpy_and_scalars(client, rng):
    a = positive(rng, (60, 1, 5), np.float32)
    b = positive(rng, (8, 1), np.float32)
    c = positive(rng, (5,), np.float64)
    x = da.from_array(a, chunks=(25, 1, 2))
    y = da.from_array(b, chunks=(3, 1))
    got = mm.add(mm.multiply(x, y), c)  # dask * dask (broadcast), + NumPy array
    assert got.shape == (60, 8, 5)
    assert_equal_numpy(client.compute(got).result(timeout=TIMEOUT), a * b + c)
    weak = mm.subtract(x, 2.5)  # a Python float stays weak: float32
    assert weak.dtype == np.float32
    assert_equal_numpy(client.compute(weak).result(timeout=TIMEOUT), a - 2.5)
    strong = mm.add(x, np.float64(1))  # NumPy scalars keep their dtype
    assert_equal_numpy(client.compute(strong).result(timeout=TIMEOUT), a + np.float64(1))


def test_where_and_axpy(client, rng):
    a = positive(rng, (500,), np.float64)
    b = positive(rng, (500,), np.float64)
    x, y = da.from_array(a, chunks=128), da.from_array(b, chunks=200)
    got = mm.where(mm.greater(x, 1.0), x, y)
    assert_equal_numpy(client.compute(got).result(timeout=TIMEOUT), np.where(a > 1.0, a, b))
    got = mm.axpy(3.0, x, y=y)
    assert_equal_numpy(client.compute(got).result(timeout=TIMEOUT), 3.0 * a + b)


def test_dask_operators_with_myModule(client, rng):
    """Dask's own operators and myModule's functions in one graph."""
    a = positive(rng, (1000,), np.float64)
    x = da.from_array(a, chunks=256)
    got = mm.sqrt(x * 2 + 1) - x
    assert_equal_numpy(client.compute(got).result(timeout=TIMEOUT), np.sqrt(a * 2 + 1) - a)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64, np.bool_])
def test_full_reductions_on_cluster(client, rng, name, dtype):
    size = 40 if name == "prod" else 10_000
    a = positive(rng, (size,), np.int64)
    a = (a % 3 + 1 if name == "prod" else a).astype(dtype)
    x = da.from_array(a, chunks=7 if name == "prod" else 999)  # many chunks: a tree of combines
    got = getattr(mm, name)(x)
    expected = getattr(np, name)(a)
    assert got.dtype == expected.dtype and got.shape == ()
    value = client.compute(got).result(timeout=TIMEOUT)
    assert type(value) is type(expected)
    np.testing.assert_allclose(value, expected, rtol=1e-5 if a.dtype == np.float32 else 1e-12)


def test_full_reduction_of_nd_keepdims(client, rng):
    a = positive(rng, (30, 20, 6), np.float64)
    x = da.from_array(a, chunks=(7, 9, 4))
    got = mm.sum(x, keepdims=True)
    assert got.shape == (1, 1, 1)
    assert_equal_numpy(client.compute(got).result(timeout=TIMEOUT), np.sum(a, keepdims=True))
    assert_equal_numpy(client.compute(mm.max(x, axis=(0, 1, 2))).result(timeout=TIMEOUT), np.max(a))


# Reductions take axis= (docs/SPEC.md): tested, never detected and skipped.
@pytest.mark.parametrize("axis", [0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_axis_reductions_on_cluster(client, rng, axis, keepdims):
    a = positive(rng, (30, 20, 6), np.float64)
    x = da.from_array(a, chunks=(7, 9, 4))
    for name in ["sum", "max"]:
        got = getattr(mm, name)(x, axis=axis, keepdims=keepdims)
        expected = getattr(np, name)(a, axis=axis, keepdims=keepdims)
        assert got.shape == expected.shape
        assert_equal_numpy(client.compute(got).result(timeout=TIMEOUT), expected)


def test_device_cpu_passes_to_the_chunks(client, rng):
    a = positive(rng, (100,), np.float64)
    x = da.from_array(a, chunks=30)
    assert_equal_numpy(client.compute(mm.add(x, x, device="cpu")).result(timeout=TIMEOUT), a + a)
    assert_equal_numpy(client.compute(mm.sum(x, device="cpu")).result(timeout=TIMEOUT), np.sum(a))


def test_errors_at_graph_time():
    x = da.ones(10, dtype=np.int32, chunks=3)
    with pytest.raises(TypeError, match="out="):
        mm.add(x, x, out=x)
    with pytest.raises(TypeError, match="out="):
        mm.sum(x, out=np.empty(()))
    with pytest.raises(OverflowError):
        mm.add(x, 2**40)  # as NumPy 2 says, before anything runs
    with pytest.raises(ValueError):
        mm.add(x, da.ones(4, chunks=2))  # shapes that do not broadcast
    with pytest.raises(TypeError):
        mm.moving_average(da.ones(10, chunks=5))  # user kernels: map_blocks
    with pytest.raises(ValueError, match="no identity"):
        mm.max(da.ones(0, chunks=1))
    with pytest.raises(TypeError, match="Dask arrays"):
        import dask
        mm.add(dask.delayed(np.ones)(3), 1)


def test_numpy_inputs_still_compute_at_once():
    a = np.arange(5.0)
    assert type(mm.add(a, a)) is np.ndarray
    assert type(mm.sum(a)) is np.float64


# A second scheduler's HTTP server (health, metrics) finds the module's cluster on 8787.
@pytest.mark.filterwarnings("ignore:Port 8787 is already in use")
def test_bench_pipeline_small_equals_numpy(capsys):
    """bench/dask_pipeline.py, tried small on the CPU: its chunks made on the workers
    equal NumPy's recomputation of every chunk."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    try:
        import dask_pipeline
    finally:
        sys.path.pop(0)
    assert dask_pipeline.main(["--gb", "0.004", "--chunk", "100000", "--cpu",
                               "--check", "chunks", "--timeout", str(TIMEOUT)]) == 0
    assert "equal to NumPy's" in capsys.readouterr().out
    n = 12345678
    assert dask_pipeline.numpy_by_period(n) == pytest.approx(
        dask_pipeline.numpy_by_chunks(n, 1 << 20), rel=1e-12)
