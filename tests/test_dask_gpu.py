"""myModule on Dask arrays of GPU chunks (DeviceArray, CuPy), DeviceArray through
distributed's serializers, and dask-cuda's LocalCUDACluster (one worker per GPU),
against NumPy on the same data."""
import pickle

import numpy as np
import pytest

import myModule as mm

from conftest import GPU_MARKS

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install 'dask[array]')")

pytestmark = GPU_MARKS + [pytest.mark.usefixtures("quiet_numpy")]


def device_chunks(a, chunks):
    """A Dask array of DeviceArray chunks holding `a`."""
    meta = mm.empty((0,) * a.ndim, dtype=a.dtype)
    return da.from_array(a, chunks=chunks).map_blocks(mm.asarray, dtype=a.dtype, meta=meta)


def host(x):
    if isinstance(x, mm.DeviceArray):
        return x.get()
    if type(x).__module__.startswith("cupy"):
        return x.get()
    return np.asarray(x)


@pytest.mark.host_threads  # scheduler="threads"
def test_device_chunks_elementwise_and_meta(rng):
    a = rng.random((300, 40))
    b = rng.random((40,)).astype(np.float32)
    x = device_chunks(a, (70, 16))
    y = mm.add(mm.multiply(x, b), 1.0)
    assert isinstance(y._meta, mm.DeviceArray) and y.dtype == np.float64
    got = y.compute(scheduler="threads")
    assert isinstance(got, mm.DeviceArray)  # the chunks joined by mm.concatenate
    np.testing.assert_array_equal(got.get(), a * b + 1.0)
    # Dask's operators on DeviceArray chunks call the DeviceArray's operators.
    z = (x * 2 - x).compute(scheduler="threads")
    np.testing.assert_array_equal(host(z), a * 2 - a)


@pytest.mark.host_threads  # scheduler="threads"
def test_devicearray_operator_with_dask_array(rng):
    a = rng.random(100)
    d = mm.to_device(a)
    x = da.from_array(a, chunks=30)
    for got in (d + x, mm.add(d, x)):
        assert isinstance(got, da.Array)
        np.testing.assert_array_equal(host(got.compute(scheduler="threads")), a + a)


@pytest.mark.host_threads  # scheduler="threads"
@pytest.mark.parametrize("name", ["sum", "prod", "max", "min"])
def test_device_chunks_reductions(rng, name):
    a = rng.random(10_000) + 0.5 if name != "prod" else rng.random(50) + 0.5
    x = device_chunks(a, 999 if name != "prod" else 7)
    got = getattr(mm, name)(x).compute(scheduler="threads")
    # A 0-d array on the GPU, as mm.sum of a DeviceArray: no partial result was read back.
    assert isinstance(got, mm.DeviceArray) and got.shape == () and got.dtype == np.float64
    np.testing.assert_allclose(got.get(), getattr(np, name)(a), rtol=1e-12)


@pytest.mark.host_threads  # scheduler="threads"
@pytest.mark.parametrize("name", ["sum", "max"])
def test_device_chunks_full_reduction_keepdims_and_dtype(rng, name):
    a = rng.integers(-1000, 1000, (300, 40)).astype(np.int32)
    x = device_chunks(a, (70, 16))
    got = getattr(mm, name)(x, keepdims=True).compute(scheduler="threads")
    want = getattr(np, name)(a, keepdims=True)
    assert isinstance(got, mm.DeviceArray) and got.shape == (1, 1) and got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)
    got = getattr(mm, name)(x, axis=(0, 1)).compute(scheduler="threads")
    assert got.shape == () and got.dtype == getattr(np, name)(a).dtype
    assert got.get()[()] == getattr(np, name)(a)


@pytest.mark.host_threads  # scheduler="threads"
def test_cupy_chunks_stay_cupy(rng):
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    a = rng.random((200, 30))
    x = da.from_array(a, chunks=(64, 30)).map_blocks(cupy.asarray, meta=cupy.empty((0, 0)))
    y = mm.subtract(mm.multiply(x, x), 0.5)
    assert isinstance(y._meta, cupy.ndarray)
    got = y.compute(scheduler="threads")
    assert isinstance(got, cupy.ndarray)
    np.testing.assert_array_equal(cupy.asnumpy(got), a * a - 0.5)
    total = mm.sum(x).compute(scheduler="threads")
    # A 0-d CuPy array, as Dask's own x.sum() of CuPy chunks gives.
    assert isinstance(total, cupy.ndarray) and total.shape == ()
    np.testing.assert_allclose(cupy.asnumpy(total), a.sum(), rtol=1e-12)


def test_dask_hooks_for_devicearray(rng):
    from dask.array.dispatch import concatenate_lookup, to_numpy_dispatch
    from dask.sizeof import sizeof
    import myModule.dask  # noqa: F401 (registers)
    a, b = rng.random((3, 4)), rng.random((2, 4))
    d = concatenate_lookup.dispatch(mm.DeviceArray)([mm.to_device(a), mm.to_device(b)], axis=0)
    np.testing.assert_array_equal(d.get(), np.concatenate([a, b]))
    assert sizeof(d) == d.nbytes == 5 * 4 * 8
    np.testing.assert_array_equal(to_numpy_dispatch(d), np.concatenate([a, b]))
    from dask.array.chunk_types import is_valid_chunk_type
    assert is_valid_chunk_type(mm.DeviceArray)


@pytest.mark.parametrize("family", ["cuda", "dask", "pickle"])
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_devicearray_serialization_round_trip(rng, family, layout):
    pytest.importorskip("distributed", reason="distributed is not installed")
    from distributed.protocol import deserialize, serialize
    import myModule.dask  # noqa: F401 (registers)
    a = rng.random((50, 6))
    d = mm.to_device(a)
    if layout == "strided":
        d, a = d[::2, ::-1], a[::2, ::-1]
    header, frames = serialize(d, serializers=(family,), on_error="raise")
    assert header["serializer"] == family
    if family == "cuda":
        assert all(hasattr(f, "__cuda_array_interface__") for f in frames)  # no host copy
    back = deserialize(header, frames, deserializers=(family,))
    assert isinstance(back, mm.DeviceArray)
    np.testing.assert_array_equal(back.get(), a)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(d)).get(), a)


@pytest.fixture(scope="module")
def cuda_client():
    pytest.importorskip("distributed", reason="distributed is not installed")
    dask_cuda = pytest.importorskip("dask_cuda", reason="dask-cuda is not installed "
                                    "(on the GPU machine: scripts/install_gpu_wheels.sh)")
    import distributed
    with dask_cuda.LocalCUDACluster(threads_per_worker=1, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        yield client


def test_local_cuda_cluster_one_worker_per_gpu(cuda_client, rng):
    workers = cuda_client.scheduler_info()["workers"]
    assert len(workers) == mm.device_count()
    a = rng.random((4000, 50))
    b = rng.random((4000, 50))
    # Chunks made on the workers from host pieces: DeviceArrays that move between
    # worker processes through the serializers registered by myModule.dask.
    x, y = device_chunks(a, (500, 50)), device_chunks(b, (800, 25))
    z = mm.multiply(mm.add(x, 1.0), y)
    got = cuda_client.compute(z).result(timeout=300)
    np.testing.assert_array_equal(host(got), (a + 1.0) * b)
    total = cuda_client.compute(mm.sum(z)).result(timeout=300)
    assert isinstance(total, mm.DeviceArray) and total.shape == ()
    np.testing.assert_allclose(total.get(), ((a + 1.0) * b).sum(), rtol=1e-12)


def test_tokenize_by_identity():
    """Dask's tokens for DeviceArrays come from the object, not from a host copy."""
    from dask.base import tokenize
    import myModule.dask  # noqa: F401 (registers)
    d = mm.to_device(np.arange(10.0))
    e = mm.to_device(np.arange(10.0))
    assert tokenize(d) == tokenize(d) != tokenize(e)
    assert tokenize(d[1:]) != tokenize(d)
