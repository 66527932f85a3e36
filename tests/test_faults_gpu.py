"""GPU failures: a sticky fault (CudaFatalError, in a subprocess, since it kills
CUDA for the rest of the process) and running out of GPU memory
(OutOfMemoryError, after the pool's cache was released; the next call works).
Needs a usable CUDA GPU.
"""
import gc

import numpy as np
import pytest

import gpu_helpers as H
from gpu_helpers import mm

pytestmark = [pytest.mark.gpu, H.requires_gpu]


FAULT_SCRIPT = r"""
import gc, io, sys
import numpy as np
import myModule as mm

fault = getattr(mm, "_testing_fault", None) or mm._core._testing_fault

def expect_fatal(what, fn):
    try:
        fn()
    except mm.CudaFatalError as e:
        assert isinstance(e, mm.CudaError) and isinstance(e, RuntimeError), what
        assert isinstance(e.name, str) and e.name.startswith("cudaError"), (what, e.name)
        assert str(e).startswith(e.name + ":"), (what, str(e))
        assert e.code != 0, (what, e.code)
        return e
    except BaseException as e:
        print("FAIL: %s raised %r, not CudaFatalError" % (what, e))
        sys.exit(3)
    print("FAIL: %s did not raise" % what)
    sys.exit(3)

d = mm.to_device(np.arange(10.0))
keep = mm.to_device(np.arange(5, dtype=np.int32))
assert (d + d).get()[3] == 6.0
assert mm.cuda_available() is True

e = expect_fatal("_testing_fault()", fault)
print("fault raised:", e)
expect_fatal("add(d, d)", lambda: mm.add(d, d))
expect_fatal("d + d", lambda: d + d)
expect_fatal("to_device", lambda: mm.to_device(np.ones(3)))
expect_fatal("d.get()", d.get)
expect_fatal("np.asarray(d)", lambda: np.asarray(d))
expect_fatal("sum(d)", lambda: mm.sum(d))
expect_fatal("trace", lambda: mm.trace(mm.asarray(np.eye(3))))
expect_fatal("synchronize()", mm.synchronize)
expect_fatal("device_info()", mm.device_info)
expect_fatal("add(..., device='cuda')", lambda: mm.add(np.ones(3), np.ones(3), device="cuda"))
expect_fatal("vector_add_cuda", lambda: mm.vector_add_cuda(np.ones(3), np.ones(3)))
expect_fatal("_testing_fault() again", fault)
expect_fatal("add(d, d) again", lambda: mm.add(d, d))

# never raises; CUDA is not usable any more
assert mm.cuda_available() is False, mm.cuda_available()
# host work still runs (device="auto" takes the CPU; MYMODULE_AUTO_THRESHOLD=0 here)
assert np.array_equal(mm.add(np.ones(5), np.ones(5)), np.full(5, 2.0))
assert np.array_equal(mm.vector_add(np.arange(4), 1), np.arange(4) + 1)
assert float(mm.sum(np.arange(10.0))) == 45.0
assert np.array_equal(mm.add(np.ones(5), np.ones(5), device="cpu"), np.full(5, 2.0))
assert mm.fib(90) == 2880067194370816120
out = io.StringIO()
mm.show_config(file=out)
assert out.getvalue()
# releasing device arrays after the fault must not crash; `keep` lives to exit
del d
gc.collect()
print("OK")
"""


def test_sticky_fault_raises_cuda_fatal_error_everywhere():
    proc, where = H.run_python(FAULT_SCRIPT, MYMODULE_AUTO_THRESHOLD="0")
    assert "FAIL" not in proc.stdout, where
    assert proc.returncode == 0, "exit status %d%s" % (proc.returncode, where)
    assert proc.stdout.rstrip().endswith("OK"), where


def test_sticky_fault_in_a_thread_reaches_the_main_thread():
    """The fault state is per process, not per thread."""
    script = r"""
    import sys, threading
    import numpy as np
    import myModule as mm
    fault = getattr(mm, "_testing_fault", None) or mm._core._testing_fault
    d = mm.to_device(np.arange(4.0))
    seen = []
    def worker():
        try:
            fault()
        except mm.CudaFatalError as e:
            seen.append(e)
    t = threading.Thread(target=worker)
    t.start(); t.join()
    assert len(seen) == 1, seen
    try:
        mm.add(d, d)
    except mm.CudaFatalError:
        print("OK")
        sys.exit(0)
    except BaseException as e:
        print("FAIL: main thread got %r" % (e,))
        sys.exit(3)
    print("FAIL: the main thread's call did not raise")
    sys.exit(3)
    """
    proc, where = H.run_python(script)
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith("OK"), where


# ------------------------------------------------------------ out of memory

def _check_oom(call, n_bytes):
    gc.collect()                     # earlier tracebacks may hold DeviceArrays in cycles
    mm.synchronize()
    before = H.memory_stats()
    with pytest.raises(mm.OutOfMemoryError) as info:
        call()
    e = info.value
    assert isinstance(e, MemoryError) and isinstance(e, mm.CudaError) and isinstance(e, RuntimeError)
    assert e.bytes >= n_bytes, (e.bytes, n_bytes)
    assert str(e.bytes) in str(e), "the message should name the bytes: %s" % e
    assert isinstance(e.name, str) and e.name.startswith("cudaError")
    assert str(e).startswith(e.name + ":"), str(e)
    assert e.code != 0
    del e, info                      # the traceback holds this frame
    gc.collect()
    mm.synchronize()
    assert H.memory_stats() == before, "a failed allocation changed the accounting"
    # the next calls work
    small = np.arange(1000.0)
    d = mm.to_device(small)
    H.assert_same(d + d, small * 2)
    assert float(mm.sum(d)) == float(np.sum(small))
    H.assert_same(mm.add(small, small, device="cuda"), small * 2)
    assert mm.cuda_available() is True


def test_out_of_memory_from_a_broadcast_view():
    """add() of two broadcast views (stride 0: no memory) whose result needs 1.5x
    the GPU's memory."""
    n = int(H.total_memory() * 1.5) // 8 + 1
    z = mm.to_device(np.zeros(1))
    view = H.broadcast_view(z, (n,))
    assert view.shape == (n,) and view.strides == (0,)
    _check_oom(lambda: mm.add(view, view), 8 * n)
    _check_oom(lambda: view * 2.0, 8 * n)
    # a float32 result: half the bytes per element, still too many
    n32 = int(H.total_memory() * 1.5) // 4 + 1
    zi = mm.to_device(np.zeros(1, np.float32))
    _check_oom(lambda: mm.subtract(H.broadcast_view(zi, (n32,)), 1.0), 4 * n32)


def test_out_of_memory_from_a_cupy_broadcast():
    cupy = pytest.importorskip("cupy")
    n = int(H.total_memory() * 1.5) // 8 + 1
    v = cupy.broadcast_to(cupy.zeros(1), (n,))
    assert v.strides == (0,)
    _check_oom(lambda: mm.add(v, v), 8 * n)


def test_out_of_memory_from_a_torch_expand():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA device")
    n = int(H.total_memory() * 1.5) // 8 + 1
    v = torch.zeros(1, dtype=torch.float64, device="cuda").expand(n)
    assert v.stride() == (0,)
    _check_oom(lambda: mm.multiply(v, v), 8 * n)


@pytest.mark.gpu_memory_alone
def test_cached_pool_memory_is_given_back_before_out_of_memory():
    """60% of the free memory is freed into the pool's cache; a request for 70%
    then needs that cache back: the library releases it and retries, no error."""
    H.release_cached()
    free0 = H.free_memory()
    if free0 < 4 * H.GiB:
        pytest.skip("needs 4 GiB of free GPU memory")
    z = mm.to_device(np.zeros(1))
    chunk = int(free0 * 0.1) // 8
    arrays = [mm.add(H.broadcast_view(z, (chunk,)), 1.0) for _ in range(6)]
    del arrays
    gc.collect()
    mm.synchronize()
    n = int(free0 * 0.7) // 8
    big = mm.add(H.broadcast_view(z, (n,)), 2.0)
    assert big.shape == (n,)
    assert H.element(big, 0) == 2.0 and H.element(big, n - 1) == 2.0
    del big
    H.release_cached()
    assert H.free_memory() >= free0 - 64 * H.MiB
