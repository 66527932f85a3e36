"""The pinned copy of a full reduction's 0-d result (vectorAdd/scalar_mirror.cuh).

float(mm.sum(d)) reads the sum from pinned memory the reduction's kernel wrote
besides the result, with no copy. These tests hold that path to two things:
- it is taken (myModule._core._testing_mirror_reads counts the reads it served)
  and gives the bytes the device holds, for every reduction of the op table;
- it is never taken once the bytes may have changed: a write through the library
  (out=, an in-place operator, item assignment, a view), a write by another
  library through an export (CuPy by __cuda_array_interface__, PyTorch by
  DLPack, a raw address from .ptr), another reduction, other threads.
"""
import threading

import numpy as np
import pytest

import gpu_helpers as H
import myModule as mm

pytestmark = H.requires_gpu

REDUCTIONS = [op for op in mm.ops if op["kind"] == "reduction"]
#: the reductions to a position keep the ordinary read (their kernels write one result)
UNMIRRORED_DOMAINS = {"index"}


def served():
    return mm._core._testing_mirror_reads()


def recomputed(fn, d):
    """The same reduction again, over axis 1 of d as one row (a result of shape (1,),
    not 0-d, so no pinned copy): the device's bytes by the ordinary read. Called
    after the read under test, which this reduction's launch would make stale."""
    return np.asarray(fn(d.reshape(1, -1), axis=1)).reshape(())


@pytest.fixture
def rng(request):
    return np.random.default_rng(abs(hash(request.node.name)) % 2**32)


def test_float_of_sum_is_read_from_the_copy(rng):
    x = rng.standard_normal(1000)
    d = mm.to_device(x)
    before = served()
    s = mm.sum(d)
    got = float(s)
    assert served() == before + 1
    # A second read, and a view's of the same bytes, nothing between: the copy serves.
    assert float(s) == got
    assert float(s.reshape(1)[0]) == got
    assert s.item() == got and type(s.item()) is float
    assert served() == before + 5
    assert got == float(recomputed(mm.sum, d))
    assert got == pytest.approx(float(np.sum(x)), rel=1e-12)


@pytest.mark.parametrize("name", [op["name"] for op in REDUCTIONS])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "int64", "bool", "uint8", "complex128"])
def test_every_reduction_reads_the_device_value(name, dtype, rng):
    op = next(op for op in REDUCTIONS if op["name"] == name)
    x = H.values(np.dtype(dtype), (3000,), rng, nonzero=True)
    d = mm.to_device(x)
    fn = getattr(mm, name)
    try:
        s = fn(d)
    except TypeError:
        pytest.skip("%s has no %s loop" % (name, dtype))
    assert s.ndim == 0
    before = served()
    got = np.asarray(s)
    assert served() == before + (0 if op["domain"] in UNMIRRORED_DOMAINS else 1)
    expected = recomputed(fn, d)
    # Bit for bit (one kernel, deterministic): a NaN's payload included.
    assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes(), (got, expected)


def sum_of(value, n=1000):
    return mm.sum(mm.to_device(np.full(n, value)))


@pytest.mark.parametrize("write", ["iadd", "out", "setitem", "view", "from_device", "reduction_out"])
def test_a_write_through_the_library_is_seen(write):
    s = sum_of(1.0)          # 1000.0, kept in the copy
    if write == "iadd":
        s += 1
        expected = 1001.0
    elif write == "out":
        mm.multiply(s, 3.0, out=s)
        expected = 3000.0
    elif write == "setitem":
        s[()] = 7.0
        expected = 7.0
    elif write == "view":
        v = s.reshape(1)
        v[0] = -2.5
        expected = -2.5
    elif write == "from_device":
        s[...] = mm.to_device(np.array(4.0))
        expected = 4.0
    else:
        mm.sum(mm.to_device(np.full(10, 2.0)), out=s)
        expected = 20.0
    before = served()
    assert float(s) == expected
    assert served() == before


def test_the_latest_reduction_only():
    s1 = sum_of(1.0)
    s2 = sum_of(2.0)
    before = served()
    assert float(s1) == 1000.0
    assert served() == before        # the copy holds s2's bytes, not s1's
    assert float(s2) == 2000.0


def test_a_write_by_cupy_through_the_interface_is_seen(cp):
    s = sum_of(1.0)
    c = cp.asarray(s)
    c[...] = 5.0
    cp.cuda.Device().synchronize()
    assert float(s) == 5.0


def test_a_write_by_pytorch_through_dlpack_is_seen(torch):
    s = sum_of(1.0)
    t = torch.from_dlpack(s)
    t.fill_(6.0)
    torch.cuda.synchronize()
    assert float(s) == 6.0


def test_a_write_through_the_raw_address_is_seen(cp):
    s = sum_of(1.0)
    src = np.array(9.0)
    # A raw address carries no stream: the writer waits for the library's work first,
    # or the sum's kernel, still queued, may land after the copy (session 38 saw 1000.0
    # with the GPU shared by six test processes).
    mm.synchronize()
    cp.cuda.runtime.memcpy(s.ptr, src.ctypes.data, 8, cp.cuda.runtime.memcpyHostToDevice)
    cp.cuda.Device().synchronize()
    assert float(s) == 9.0


def test_threads_each_read_their_own_sum():
    errors = []

    def work(k):
        d = mm.to_device(np.full(1000, float(k)))
        try:
            for _ in range(200):
                got = float(mm.sum(d))
                if got != 1000.0 * k:
                    errors.append((k, got))
                    return
        except Exception as exc:  # noqa: BLE001
            errors.append((k, exc))

    threads = [threading.Thread(target=work, args=(k + 1,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
