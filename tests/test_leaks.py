"""Leaks: references, host memory and GPU memory.

- Reference counts of the inputs, of `out` and of the dtype objects are the same
  after 1,000 calls as before, for calls that succeed and for calls that raise
  TypeError/ValueError (bad dtypes, shapes, out=, device=), on device "cpu",
  "cuda" (GPU) and with DeviceArrays (GPU).
- Resident memory (/proc/self/statm) and the count of Python memory blocks
  (sys.getallocatedblocks) stay flat over 100,000 calls after 1,000 warm-up calls:
  on the CPU path, with device="cuda" and small host arrays (GPU), and with
  DeviceArrays (GPU, where myModule._memory_stats() must also return to its start).
- A module-scoped fixture checks that myModule._memory_stats() is back to where
  it started when this module is done (GPU only).
"""
import gc
import os
import sys

import numpy as np
import pytest

import myModule
from conftest import HAS_GPU, quick, requires_gpu

MiB = 1 << 20
REF_CALLS = quick(1000, 50)
RSS_CALLS = quick(100_000, 2000)
WARMUP_CALLS = quick(1000, 200)
RSS_SLACK_CPU = 8 * MiB
RSS_SLACK_GPU = 16 * MiB   # the CUDA driver may grow some internal tables once
BLOCKS_SLACK = 2000        # Python objects: a leak of one per call shows as ~100,000

gpu = [pytest.mark.gpu, requires_gpu]


def settle():
    gc.collect()
    if HAS_GPU:
        myModule.synchronize()
    gc.collect()


# The library's device memory returning to its start over this module is checked by
# conftest.py's gpu_memory_returns_to_start, as for every module.


# ---------------------------------------------------------------- helpers

def host_arrays():
    """Fresh host inputs; every one of them is watched by the refcount tests."""
    return {
        "a": np.linspace(-1.0, 1.0, 64),
        "b": np.arange(64, dtype=np.float64)[::-1],
        "f32": np.arange(64, dtype=np.float32),
        "i32": np.arange(1, 65, dtype=np.int32),
        "i64": np.arange(64, dtype=np.int64).reshape(8, 8),
        "m": np.arange(36.0).reshape(6, 6).T,
        "out": np.empty(64),
        "out_i32": np.empty(64, np.int32),
        "out_u8": np.empty(64, np.uint8),
        "out_short": np.empty(3),
        "short": np.ones(3),
        "int8": np.ones(64, np.float16),  # a dtype the library lacks (the key is historical)
        "m_int8": np.ones((4, 4), np.float16),
        "f16": np.ones(64, np.float16),
        "scalar": 2.5,
        "big_int": 2**40,
    }


DTYPE_OBJECTS = [np.dtype(t) for t in (np.int32, np.int64, np.float32, np.float64, np.bool_,
                                       np.uint8, np.float16)] + [np.float64, np.int32, np.ndarray]


def raising(call, exc):
    """call() must raise exc: the exception (and its traceback) is dropped here."""
    def run():
        try:
            call()
        except exc:
            return
        raise AssertionError("did not raise %s" % exc.__name__)
    return run


def assert_refcounts_stable(call, watched, n=REF_CALLS):
    for _ in range(20):  # lazy initialisation, caches
        call()
    settle()
    before = [sys.getrefcount(o) for o in watched]
    for _ in range(n):
        call()
    settle()
    after = [sys.getrefcount(o) for o in watched]
    changed = [(i, type(o).__name__, b, a) for i, (o, b, a) in enumerate(zip(watched, before, after))
               if a != b]
    assert not changed, "reference counts changed over %d calls (index, type, before, after): %s" % (
        n, changed)


# (id, call(A, device), exception raised or None)
HOST_CASES = [
    ("add", lambda A, dev: myModule.add(A["a"], A["b"], device=dev), None),
    ("add-out", lambda A, dev: myModule.add(A["a"], A["b"], out=A["out"], device=dev), None),
    ("add-out-cast", lambda A, dev: myModule.add(A["f32"], A["i32"], out=A["out"], device=dev), None),
    ("subtract-scalar", lambda A, dev: myModule.subtract(A["a"], A["scalar"], device=dev), None),
    ("multiply-promote", lambda A, dev: myModule.multiply(A["i32"], A["f32"], device=dev), None),
    ("divide-int", lambda A, dev: myModule.divide(A["i32"], A["i32"], device=dev), None),
    ("add-views", lambda A, dev: myModule.add(A["a"][::2], A["b"][1::2], device=dev), None),
    ("add-broadcast", lambda A, dev: myModule.add(A["i64"], A["i64"][0], device=dev), None),
    ("add-list", lambda A, dev: myModule.add([1.0, 2.0, 3.0], A["short"], device=dev), None),
    ("add-scalars", lambda A, dev: myModule.add(3, A["scalar"], device=dev), None),
    ("vector_add", lambda A, dev: (myModule.vector_add_cpu if dev == "cpu" else myModule.vector_add_cuda)(
        A["a"], A["b"]), None),
    ("sum", lambda A, dev: myModule.sum(A["a"], device=dev), None),
    ("sum-int", lambda A, dev: myModule.sum(A["i32"], device=dev), None),
    ("trace", lambda A, dev: myModule.trace(A["m"], device=dev), None),
    ("trace-int", lambda A, dev: myModule.trace(A["i64"], device=dev), None),
    ("add-int8", lambda A, dev: myModule.add(A["int8"], A["a"], device=dev), TypeError),
    ("add-float16", lambda A, dev: myModule.add(A["a"], A["f16"], device=dev), TypeError),
    ("add-shapes", lambda A, dev: myModule.add(A["a"], A["short"], device=dev), ValueError),
    ("add-out-shape", lambda A, dev: myModule.add(A["a"], A["b"], out=A["out_short"], device=dev), ValueError),
    ("add-out-cast-kind", lambda A, dev: myModule.add(A["a"], A["b"], out=A["out_i32"], device=dev), TypeError),
    ("add-out-dtype", lambda A, dev: myModule.add(A["a"], A["b"], out=A["out_u8"], device=dev), TypeError),
    ("add-overflow", lambda A, dev: myModule.add(A["i32"], A["big_int"], device=dev), OverflowError),
    ("add-str", lambda A, dev: myModule.add(A["a"], "x", device=dev), TypeError),
    ("add-bad-device", lambda A, dev: myModule.add(A["a"], A["b"], device="tpu"), ValueError),
    ("sum-int8", lambda A, dev: myModule.sum(A["int8"], device=dev), TypeError),
    ("trace-1d", lambda A, dev: myModule.trace(A["a"], device=dev), ValueError),
    ("trace-int8", lambda A, dev: myModule.trace(A["m_int8"], device=dev), TypeError),
]
HOST_IDS = [c[0] for c in HOST_CASES]
DEVICES = ["cpu", pytest.param("cuda", marks=gpu, id="cuda")]


def _host_refcount_check(device, case):
    _, fn, exc = case
    A = host_arrays()
    call = (lambda: fn(A, device)) if exc is None else raising(lambda: fn(A, device), exc)
    assert_refcounts_stable(call, list(A.values()) + DTYPE_OBJECTS + [device])


@pytest.mark.parametrize("case", HOST_CASES, ids=HOST_IDS)
@pytest.mark.parametrize("device", DEVICES)
def test_refcounts_host_inputs(device, case):
    _host_refcount_check(device, case)


# ---------------------------------------------------------------- device arrays

def device_arrays():
    A = host_arrays()
    D = {
        "d": myModule.to_device(A["a"]),
        "e": myModule.to_device(A["b"]),
        "di": myModule.to_device(A["i32"]),
        "dm": myModule.to_device(A["m"]),
        "dshort": myModule.to_device(A["short"]),
        "dout": myModule.to_device(A["out"]),
        "dout_i32": myModule.to_device(A["out_i32"]),
    }
    return A, D


DEVICE_CASES = [
    ("add", lambda A, D: D["d"] + D["e"], None),
    ("functions", lambda A, D: (myModule.subtract(D["d"], D["e"]), myModule.multiply(D["d"], D["di"]),
                                myModule.divide(D["di"], 3)), None),
    ("add-out", lambda A, D: myModule.add(D["d"], D["e"], out=D["dout"]), None),
    ("add-host-out", lambda A, D: myModule.add(D["d"], D["e"], out=A["out"]), None),
    ("add-host", lambda A, D: myModule.add(D["d"], A["b"]), None),
    ("add-scalar", lambda A, D: D["d"] + A["scalar"], None),
    ("sum", lambda A, D: myModule.sum(D["d"]), None),
    ("trace", lambda A, D: myModule.trace(D["dm"]), None),
    ("get", lambda A, D: D["d"].get(), None),
    ("asarray", lambda A, D: np.asarray(D["d"]), None),
    ("to_device", lambda A, D: myModule.to_device(A["a"]), None),
    ("to_device-view", lambda A, D: myModule.to_device(A["m"]), None),
    ("cai-dlpack", lambda A, D: (D["d"].__cuda_array_interface__, D["d"].__dlpack_device__()), None),
    ("shapes", lambda A, D: D["d"] + D["dshort"], ValueError),
    ("out-cast", lambda A, D: myModule.add(D["d"], D["e"], out=D["dout_i32"]), TypeError),
    ("device-cpu", lambda A, D: myModule.add(D["d"], D["e"], device="cpu"), ValueError),
    ("int8-host", lambda A, D: myModule.add(D["d"], A["int8"]), TypeError),
    ("sum-cpu", lambda A, D: myModule.sum(D["d"], device="cpu"), ValueError),
    ("trace-1d", lambda A, D: myModule.trace(D["d"]), ValueError),
    ("to_device-int8", lambda A, D: myModule.to_device(A["int8"]), TypeError),
    ("to_device-float16", lambda A, D: myModule.to_device(A["f16"]), TypeError),
]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("case", DEVICE_CASES, ids=[c[0] for c in DEVICE_CASES])
def test_refcounts_device_arrays(case):
    _, fn, exc = case
    A, D = device_arrays()
    call = (lambda: fn(A, D)) if exc is None else raising(lambda: fn(A, D), exc)
    assert_refcounts_stable(call, list(A.values()) + list(D.values()) + DTYPE_OBJECTS)


# ---------------------------------------------------------------- resident memory

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def assert_memory_flat(calls, total=RSS_CALLS, slack=RSS_SLACK_CPU, warmup=WARMUP_CALLS):
    """`total` calls, cycling through `calls`, after `warmup` calls of each:
    RSS grows by less than `slack` and the Python block count by < BLOCKS_SLACK."""
    for call in calls:
        for _ in range(warmup):
            call()
    settle()
    rss0, blocks0 = rss(), sys.getallocatedblocks()
    k = len(calls)
    rounds = max(1, total // k)
    for _ in range(rounds):
        for call in calls:
            call()
    settle()
    grown, blocks = rss() - rss0, sys.getallocatedblocks() - blocks0
    assert grown < slack, "resident memory grew by %.1f MiB over %d calls" % (grown / MiB, rounds * k)
    assert blocks < BLOCKS_SLACK, "%d more Python memory blocks after %d calls" % (blocks, rounds * k)


def _host_calls(A, device):
    calls = []
    for _, fn, exc in HOST_CASES:
        calls.append((lambda fn=fn: fn(A, device)) if exc is None
                     else raising(lambda fn=fn: fn(A, device), exc))
    return calls


# AddressSanitizer (make asan) keeps freed memory in quarantine: RSS grows by design.
under_asan = pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                                reason="resident memory is not meaningful under AddressSanitizer")


@under_asan
def test_rss_flat_cpu_path():
    A = host_arrays()
    # every case 100,000 times: a leak of a few bytes per call shows
    calls = _host_calls(A, "cpu")
    assert_memory_flat(calls, total=RSS_CALLS * len(calls))


@pytest.mark.gpu
@requires_gpu
def test_rss_flat_cuda_path_small_host_arrays():
    A = host_arrays()
    calls = _host_calls(A, "cuda")
    assert_memory_flat(calls, slack=RSS_SLACK_GPU)


@pytest.mark.gpu
@requires_gpu
def test_rss_and_gpu_memory_flat_device_arrays():
    A, D = device_arrays()
    d, e, di = D["d"], D["e"], D["di"]
    calls = [
        lambda: d + d,
        lambda: d + e,
        lambda: myModule.subtract(d, di),
        lambda: myModule.add(d, e, out=D["dout"]),
        lambda: d * 2.0,
        lambda: di / 3,
        raising(lambda: d + D["dshort"], ValueError),
        raising(lambda: myModule.add(d, A["int8"]), TypeError),
    ]
    settle()
    start = dict(myModule._memory_stats())
    assert_memory_flat(calls, slack=RSS_SLACK_GPU)
    settle()
    assert dict(myModule._memory_stats()) == start
    # results read back (waits, scalar results, copies) too
    calls = [
        lambda: myModule.sum(d),
        lambda: myModule.trace(D["dm"]),
        lambda: (d + e).get(),
        lambda: myModule.to_device(A["a"]),
    ]
    assert_memory_flat(calls, total=20_000, slack=RSS_SLACK_GPU)
    settle()
    assert dict(myModule._memory_stats()) == start


@pytest.mark.gpu
@requires_gpu
def test_synchronize_lets_go_of_chained_foreign_owners():
    """A view of a foreign array that holds a view of another foreign array, and so on
    down to a DeviceArray: each link's owner is let go once the GPU has passed a marker,
    and letting go of one drops the next link's view, whose own release waits on a
    marker recorded after the wait. synchronize() follows the chain to its end (it let
    go of one link per call, so the memory under a chain stayed held after it)."""
    import gpu_helpers as H
    settle()
    start = H.memory_stats()
    v = myModule.to_device(np.arange(1000.0))
    for _ in range(8):
        v = H.view_of(v)     # a DeviceArray whose owner (a CAIView) holds the previous one
    np.testing.assert_array_equal(v.get(), np.arange(1000.0))
    del v
    myModule.synchronize()
    assert H.memory_stats() == start
