"""Shared fixtures and helpers for the myModule test suite (NumPy is the oracle).

- ``requires_gpu``: skip mark for tests that need a usable CUDA GPU; the reason
  says why CUDA is unusable (from ``myModule._core._runtime_info()``). With
  ``MYMODULE_REQUIRE_GPU=1`` such a skip is a failure (pytest_runtest_makereport).
- ``DEVICES``: the ``device=`` values for host arrays, with ``"cuda"`` carrying
  ``requires_gpu`` (and the ``gpu`` marker), so ``-m "not gpu"`` deselects it.
- ``DTYPES``: int32, int64, float32, float64; ``DTYPE_PAIRS``: all 16 ordered pairs;
  ``ALL_DTYPES``: every dtype the library has (bool and eight integers included).
- ``make_layout(x, layout)``: an array of x's shape (and, except for
  "broadcast", x's values) with the memory layout asked for.
- ``random_values(dtype, shape, rng)``: random data with special values mixed in
  (NaN, +-inf, -0.0, subnormals, extremes for floats; iinfo min/max for ints).
- ``assert_same_result(got, expected)``: value (bit for bit, NaN == NaN, sign of
  zero checked), dtype, shape and scalar-vs-array kind.
- ``outcome(fn)``: the result of fn(), or the exception it raised, so that the
  library is held to raise where NumPy raises.
"""
import glob
import os
import re
import sys
import time
import zlib

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Which myModule is tested:
# - MYMODULE_TEST_INSTALLED=1: the installed package (a wheel in a virtual
#   environment, say); the source tree is taken off sys.path (`python -m pytest`
#   puts the cwd first) and the import is checked to come from elsewhere.
# - MYMODULE_TESTS_ROOT set: `make asan`'s sanitized build, put on the path by it.
# - otherwise the in-place build (make build) when there is one, whatever the cwd.
TEST_INSTALLED = os.environ.get("MYMODULE_TEST_INSTALLED") == "1"
if TEST_INSTALLED:
    sys.path[:] = [p for p in sys.path
                   if os.path.abspath(p or os.curdir) != ROOT]
elif (not os.environ.get("MYMODULE_TESTS_ROOT") and
        glob.glob(os.path.join(ROOT, "myModule", "_core*.so")) and ROOT not in sys.path):
    sys.path.insert(0, ROOT)

import myModule  # noqa: E402
from compare_floats import assert_floats_match  # noqa: E402

if TEST_INSTALLED and os.path.dirname(os.path.abspath(myModule.__file__)) == os.path.join(ROOT, "myModule"):
    raise RuntimeError("MYMODULE_TEST_INSTALLED=1, but myModule was imported from the source "
                       "tree (%s)" % myModule.__file__)


def _no_gpu_reason():
    try:
        info = myModule._core._runtime_info()
    except Exception as exc:  # pragma: no cover - the library promises not to raise here
        return "no usable CUDA GPU: _runtime_info() raised %r" % (exc,)
    return "no usable CUDA GPU: %s (%s, code %s)" % (
        info.get("reason"), info.get("error_name"), info.get("error_code"))


HAS_GPU = bool(myModule.cuda_available())
NO_GPU_REASON = "" if HAS_GPU else _no_gpu_reason()

requires_gpu = pytest.mark.skipif(not HAS_GPU, reason=NO_GPU_REASON or "a GPU is present")
#: For tests of what happens without a GPU: skipped where one is present.
requires_no_gpu = pytest.mark.skipif(
    HAS_GPU, reason="a usable CUDA GPU is present: this checks behaviour without one")

GPU_MARKS = [pytest.mark.gpu, requires_gpu]

#: MYMODULE_REQUIRE_GPU=1 (`make test` sets it where `nvidia-smi -L` lists a GPU;
#: the GPU machine's runs use it): a GPU test that would skip for want of a GPU
#: fails instead. Whether the GPU tests run then does not rest on
#: myModule.cuda_available() alone, the code under test: had it wrongly answered
#: False, thousands of tests would skip and the run would still pass.
REQUIRE_GPU = os.environ.get("MYMODULE_REQUIRE_GPU", "0").strip() not in ("", "0")
_GPU_WORDS = re.compile(r"GPU|CUDA", re.IGNORECASE)


def skipped_for_want_of_a_gpu(item, report):
    """Whether a skip `report` of `item` is one for want of a GPU: none is usable
    here, and the test is marked `gpu` or its skip reason names the GPU (the
    marks of conftest and gpu_helpers, and run-time skips such as 'every example
    here needs a GPU')."""
    if HAS_GPU or hasattr(report, "wasxfail"):
        return False
    if item.get_closest_marker("gpu") is not None:
        return True
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return bool(_GPU_WORDS.search(reason))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if REQUIRE_GPU and report.skipped and skipped_for_want_of_a_gpu(item, report):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        report.outcome = "failed"
        report.longrepr = "MYMODULE_REQUIRE_GPU=1, but this GPU test would have been skipped: %s" % reason

#: MYMODULE_TEST_QUICK=1 (make sanitize): fewer repetitions and examples, for
#: runs under compute-sanitizer where every kernel costs 10-100 times more.
QUICK = os.environ.get("MYMODULE_TEST_QUICK") == "1"


def quick(full, small):
    """`full`, or `small` in quick mode."""
    return small if QUICK else full

DEVICES = ["cpu", pytest.param("cuda", marks=GPU_MARKS, id="cuda")]

DTYPES = [np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.float32), np.dtype(np.float64)]
# Every dtype the library has, from its one list (the va_dtype enum): bool, the eight
# integers, the two floats (ALL_DTYPES: the real ones, which sorting and searching
# order), then complex64 and complex128. random_values draws each; the op table's
# suites (test_ops) take them all.
EVERY_DTYPE = list(myModule._core._supported_dtypes())
ALL_DTYPES = [d for d in EVERY_DTYPE if d.kind != "c"]
COMPLEX_DTYPES = [d for d in EVERY_DTYPE if d.kind == "c"]
# Where NumPy has complex loops and the library has none, by decision (docs/SPEC.md):
# the standard orders real numbers only, and PyTorch has no complex order either.
COMPLEX_REFUSED_BY_DECISION = {"clip", "max", "min", "argmax", "argmin"}
ALL_DTYPE_IDS = [d.name for d in ALL_DTYPES]
DTYPE_IDS = [d.name for d in DTYPES]
INT_DTYPES = DTYPES[:2]
FLOAT_DTYPES = DTYPES[2:]
DTYPE_PAIRS = [pytest.param(a, b, id="%s-%s" % (a.name, b.name)) for a in DTYPES for b in DTYPES]

LAYOUTS = ["C", "F", "strided", "reversed", "broadcast", "byteswapped", "misaligned"]


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a usable CUDA GPU (skipped with the reason where there is none)")
    config.addinivalue_line("markers", "host_threads: launches kernels from several host threads at once "
                            "(skipped under compute-sanitizer's racecheck, which cannot follow that)")
    config.addinivalue_line("markers", "gpu_memory_alone: compares the GPU's free memory before and after "
                            "(skipped in a sharded run, whose other processes allocate meanwhile: run "
                            "`pytest -m gpu_memory_alone` on its own)")


#: MYMODULE_SANITIZER_TOOL (set by scripts/sanitize.sh): the compute-sanitizer
#: tool this run is under, if any.
SANITIZER_TOOL = os.environ.get("MYMODULE_SANITIZER_TOOL", "")
#: racecheck (compute-sanitizer 2025.3) stops tracking launches when several host
#: threads launch kernels at once ("Internal Sanitizer Error: Detected a failure
#: to track a kernel launch", then a hang): eight threads of CuPy alone do it, with
#: no myModule loaded. Those tests launch the kernels the single-threaded tests
#: racecheck already; memcheck, initcheck and synccheck run them.
RACECHECK_SKIPS_HOST_THREADS = (
    "compute-sanitizer racecheck cannot follow kernel launches from several host threads "
    "(its own internal error, reproduced with CuPy alone); the same kernels are racechecked "
    "by the single-threaded tests")


#: MYMODULE_TEST_SHARD=i/n (make sanitize, SAN_SHARDS): only the tests whose id
#: hashes to i of n, so one slow file runs as n processes side by side.
SHARD = os.environ.get("MYMODULE_TEST_SHARD", "")
#: Shards run side by side on one GPU: a test that sizes a request from the GPU's
#: free memory, or checks it comes back, saw the other shards' allocations (an
#: H200, session 23: it passed alone, failed in four shards).
SHARDS_SHARE_GPU_MEMORY = ("reads the GPU's free memory, which the other shards of this run change "
                           "meanwhile; run `pytest -m gpu_memory_alone` without MYMODULE_TEST_SHARD")


def pytest_collection_modifyitems(config, items):
    if SANITIZER_TOOL == "racecheck":
        skip = pytest.mark.skip(reason=RACECHECK_SKIPS_HOST_THREADS)
        for item in items:
            if item.get_closest_marker("host_threads") is not None:
                item.add_marker(skip)
    if not SHARD:
        return
    alone = pytest.mark.skip(reason=SHARDS_SHARE_GPU_MEMORY)
    for item in items:
        if item.get_closest_marker("gpu_memory_alone") is not None:
            item.add_marker(alone)
    index, count = (int(part) for part in SHARD.split("/"))
    mine = [zlib.crc32(item.nodeid.encode()) % count == index for item in items]
    config.hook.pytest_deselected(items=[item for item, m in zip(items, mine) if not m])
    items[:] = [item for item, m in zip(items, mine) if m]


#: MYMODULE_TEST_TIMELINE=path: each test's start time and id, a line each, appended
#: to path. scripts/gpu_suite.sh gives every shard one and samples the GPUs' memory
#: beside them, so that scripts/gpu_memory_peaks.py can say which tests were running
#: when a GPU shared by the shards filled up (out-of-memory failures of small
#: requests in every sharded run since session 23, each passing alone).
_TIMELINE = os.environ.get("MYMODULE_TEST_TIMELINE", "")
_timeline_file = []


def pytest_runtest_logstart(nodeid, location):
    if not _TIMELINE:
        return
    if not _timeline_file:
        _timeline_file.append(open(_TIMELINE, "a", buffering=1, encoding="utf-8"))
    _timeline_file[0].write("%.3f %s\n" % (time.time(), nodeid))


def pytest_sessionfinish(session, exitstatus):
    if _timeline_file:
        _timeline_file[0].write("%.3f (end)\n" % time.time())
        _timeline_file.pop().close()


_interrupted = []


def pytest_keyboard_interrupt(excinfo):
    # A run stopped by Ctrl-C or SIGINT (scripts/gpu_suite.sh cuts a shard off that
    # way) tears its modules down with the interrupted test's arrays still referenced
    # from its frame: the memory check below would report them as a leak, and its
    # assertion would take the place of pytest's summary line (session 39).
    _interrupted.append(excinfo)


@pytest.fixture(scope="module", autouse=True)
def gpu_memory_returns_to_start():
    """After each test module, the library holds exactly the device memory it held
    before it: every DeviceArray a test made has been given back."""
    # make sanitize sets MYMODULE_SKIP_MEMORY_CHECK=1 only when the checker records
    # host backtraces (SAN_BACKTRACE=yes or host): then some DeviceArrays stayed
    # alive past their module (56 allocations over test_leaks, 18 over test_interop
    # under memcheck), and with device backtraces alone they did not, which points
    # at the references the checker's Python backtraces keep.
    if not HAS_GPU or os.environ.get("MYMODULE_SKIP_MEMORY_CHECK") == "1":
        yield
        return
    import gc
    gc.collect()
    myModule.synchronize()
    start = myModule._memory_stats()
    yield
    gc.collect()
    myModule.synchronize()
    end = myModule._memory_stats()
    if _interrupted:
        return
    assert end == start, "GPU memory held by the library changed over the module: %r -> %r" % (start, end)


@pytest.fixture(scope="module", autouse=True)
def shards_give_cached_memory_back():
    """In a sharded run, each module's end gives the GPU memory its process keeps
    cached (the library's pool, CuPy's and PyTorch's caching allocators) back to the
    driver: four shards each keeping their high-water marks ran an H200 out of memory
    for a few tests at once (session 24; the same tests passed alone)."""
    yield
    if not SHARD or not HAS_GPU:
        return
    import gc
    gc.collect()
    myModule.synchronize()
    myModule._release_cached()
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        cupy.get_default_memory_pool().free_all_blocks()
        cupy.get_default_pinned_memory_pool().free_all_blocks()
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        torch.cuda.empty_cache()


@pytest.fixture
def quiet_numpy():
    """NumPy's RuntimeWarnings (overflow, x/0, inf-inf) are expected in these
    tests, from the reference and the library alike. Used by a module with
    ``pytestmark = pytest.mark.usefixtures("quiet_numpy")``."""
    with np.errstate(all="ignore"):
        yield


@pytest.fixture
def rng(request):
    """A generator seeded from the test's id, so each test is reproducible."""
    import zlib
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


# ---------------------------------------------------------------- values

def float_specials(dtype):
    dtype = np.dtype(dtype)
    fi = np.finfo(dtype)
    return np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, fi.max, -fi.max, fi.tiny,
                     fi.smallest_subnormal, -fi.smallest_subnormal, fi.eps, 3.0],
                    dtype=dtype)


def int_specials(dtype):
    dtype = np.dtype(dtype)
    ii = np.iinfo(dtype)
    values = [ii.min, ii.max, ii.min + 1, ii.max - 1, 0, 1, 2, 7] + ([-1, -2] if ii.min < 0 else [])
    return np.array(values, dtype=dtype)


def specials(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.array([False, True])
    return float_specials(dtype) if dtype.kind == "f" else int_specials(dtype)


def random_values(dtype, shape, rng, special=True, fraction=0.2):
    """Random values of `dtype` and `shape`; with `special`, about `fraction` of
    them (and at least a few when there is room) replaced by special values."""
    dtype = np.dtype(dtype)
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype.kind == "c":
        # two real parts drawn apart, specials in either part: signed zeros, ones,
        # infinities and NaN. Not the finite extremes: their products overflow into inf
        # or NaN by the order of the operations, which NumPy's own loops differ in (its
        # contiguous multiply's FMA gives inf where its strided one gives inf - inf).
        part = np.dtype(dtype.char.lower())
        x = np.empty(n, dtype)
        sp = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan], part)
        for target in (x.real, x.imag):
            values = random_values(part, n, rng, special=False)
            if special:
                _put_specials(values, sp, rng, fraction)
            target[...] = values
        return x.reshape(shape)
    if dtype.kind == "f":
        mags = 10.0 ** rng.uniform(-3, 3, size=n)
        x = (rng.standard_normal(n) * mags).astype(dtype)
    elif dtype.kind == "b":
        x = rng.random(n) < 0.5
    else:
        ii = np.iinfo(dtype)
        x = rng.integers(ii.min, ii.max, size=n, endpoint=True, dtype=dtype)
    if special:
        _put_specials(x, specials(dtype), rng, fraction)
    return x.reshape(shape)


def _put_specials(x, sp, rng, fraction):
    """About `fraction` of flat `x` (at least a few when there is room) replaced by
    values drawn from `sp`, in place."""
    n = x.size
    if n == 0:
        return
    k = max(min(len(sp), n), int(n * fraction)) if n >= 4 else rng.integers(0, 2)
    if k:
        where = rng.choice(n, size=min(k, n), replace=False)
        x[where] = sp[rng.integers(0, len(sp), size=len(where))]


def sum_values(dtype, shape, rng):
    """Random data for sums: no specials; ints over their full range."""
    return random_values(dtype, shape, rng, special=False)


# ---------------------------------------------------------------- layouts

def make_layout(x, layout):
    """`x` (any array) rebuilt with a memory layout:
    C, F (Fortran), strided (a[::2] of a bigger buffer), reversed (negative
    strides), broadcast (np.broadcast_to of x[:1]: stride 0, values from x's first
    row), byteswapped (non-native byte order), misaligned (a view into a bytes
    buffer at offset 1). Values equal x's except for "broadcast"."""
    x = np.asarray(x)
    if layout == "C":
        return np.ascontiguousarray(x)
    if layout == "F":
        return np.asfortranarray(x)
    if layout == "strided":
        if x.ndim == 0:
            return x.copy()
        buf = np.empty((2 * x.shape[0],) + x.shape[1:], dtype=x.dtype)
        buf[::2] = x
        out = buf[::2]
        if x.ndim >= 2:  # every axis strided
            buf2 = np.empty((2 * x.shape[0], 3 * x.shape[1]) + x.shape[2:], dtype=x.dtype)
            buf2[::2, ::3] = x
            out = buf2[::2, ::3]
        return out
    if layout == "reversed":
        if x.ndim == 0:
            return x.copy()
        idx = tuple(slice(None, None, -1) for _ in range(x.ndim))
        return x[idx].copy()[idx]
    if layout == "broadcast":
        if x.ndim == 0 or x.shape[0] == 0:
            return np.broadcast_to(x, x.shape)
        return np.broadcast_to(x[:1], x.shape)
    if layout == "byteswapped":
        return x.astype(x.dtype.newbyteorder())
    if layout == "misaligned":
        buf = np.zeros(x.nbytes + x.itemsize + 1, dtype=np.uint8)
        view = buf[1:1 + x.nbytes].view(x.dtype).reshape(x.shape)
        view[...] = x
        if x.itemsize > 1 and x.size > 0:
            assert not view.flags.aligned
        return view
    raise ValueError("unknown layout %r" % (layout,))


def check_layout(a, layout):
    """Sanity checks that make_layout made what it says."""
    if a.size <= 1:
        return
    if layout == "F" and a.ndim >= 2:
        assert a.flags.f_contiguous and not a.flags.c_contiguous
    elif layout == "strided":
        assert not a.flags.c_contiguous
    elif layout == "reversed":
        assert any(s < 0 for s in a.strides)
    elif layout == "broadcast":
        assert 0 in a.strides
    elif layout == "byteswapped":
        assert not a.dtype.isnative
    elif layout == "misaligned":
        assert not a.flags.aligned


# ---------------------------------------------------------------- checking

class Raised:
    """What outcome() gives when the call raised."""

    def __init__(self, exc):
        self.exc = exc

    def __repr__(self):
        return "Raised(%s: %s)" % (type(self.exc).__name__, self.exc)


def outcome(fn):
    with np.errstate(all="ignore"):
        try:
            return fn()
        except Exception as exc:  # noqa: BLE001 - compared by the caller
            return Raised(exc)


def _base_exception_class(exc):
    """The builtin class NumPy's exception is (UFuncTypeError -> TypeError...)."""
    for cls in (OverflowError, ZeroDivisionError, TypeError, ValueError, MemoryError,
                ArithmeticError):
        if isinstance(exc, cls):
            return cls
    return type(exc)


def assert_same_result(got, expected, check_type=True):
    """got equals expected (NumPy's) in value, dtype, shape and kind."""
    if isinstance(expected, Raised):
        assert isinstance(got, Raised), "NumPy raised %r, myModule returned %r" % (expected, got)
        cls = _base_exception_class(expected.exc)
        assert isinstance(got.exc, cls), "NumPy raised %r, myModule raised %r" % (expected, got)
        return
    if isinstance(got, Raised):
        raise AssertionError("myModule raised %r, NumPy returned %r" % (got, expected)) from got.exc
    if check_type:
        if isinstance(expected, np.generic):
            assert isinstance(got, np.generic), \
                "expected a NumPy scalar (%s), got %s" % (type(expected).__name__, type(got).__name__)
        elif isinstance(expected, np.ndarray):
            assert isinstance(got, np.ndarray), "expected an ndarray, got %s" % type(got).__name__
    got_arr, exp_arr = np.asarray(got), np.asarray(expected)
    assert got_arr.dtype == exp_arr.dtype, "dtype %s, NumPy's %s" % (got_arr.dtype, exp_arr.dtype)
    assert got_arr.shape == exp_arr.shape, "shape %s, NumPy's %s" % (got_arr.shape, exp_arr.shape)
    if exp_arr.dtype.kind == "f":
        assert_floats_match(got_arr, exp_arr, ulp=0)  # bit for bit, NaN == NaN
    else:
        np.testing.assert_array_equal(got_arr, exp_arr, strict=True)


def exact_int_sum(x, dtype=np.int64):
    """The exact sum of bool or integer x, wrapped into the integer dtype of NumPy's
    result (int64, or uint64 for unsigned inputs) as np.sum wraps. Vectorised: below
    64 bits every value is under 2**32 in magnitude, so int64 sums fewer than 2**31 of
    them exactly; 64-bit values are summed as their high and low 32-bit halves, each
    exactly."""
    dtype = np.dtype(dtype)
    x = np.asarray(x).ravel()
    assert x.size < 2 ** 31 and x.dtype.kind in "biu", (x.size, x.dtype)
    if x.dtype.itemsize < 8:
        s = int(np.sum(x, dtype=np.int64))
    else:
        high, low = (x >> 32).astype(np.int64), (x & 0xFFFFFFFF).astype(np.int64)
        s = (int(np.sum(high)) << 32) + int(np.sum(low))
    bits = 8 * dtype.itemsize
    if dtype.kind == "u":
        return s % 2 ** bits
    assert dtype.kind == "i", dtype
    return ((s + 2 ** (bits - 1)) % 2 ** bits) - 2 ** (bits - 1)


@pytest.fixture(scope="module")
def cp():
    """CuPy on GPU 0, or a skip saying why not (tests of the zero-copy exchange)."""
    cupy = pytest.importorskip("cupy")
    try:
        cupy.cuda.runtime.getDeviceCount()
        cupy.cuda.Device(0).use()
        cupy.asnumpy(cupy.arange(3) + 1)
    except Exception as exc:  # noqa: BLE001
        pytest.skip("CuPy cannot use the GPU: %r" % (exc,))
    return cupy


@pytest.fixture(scope="module")
def torch():
    """PyTorch with CUDA, or a skip saying why not."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA device")
    return torch
