"""Threads: every function is safe to call from several threads, and long waits
release the GIL (SPEC 3, Errors; SPEC 5, Errors and threads).

- 8 threads (ThreadPoolExecutor) each run add/subtract/multiply/divide/sum/trace
  many times on their own host arrays (device "cpu", and "cuda" on a GPU), on
  shared inputs with their own out= arrays, and on DeviceArrays made with
  to_device (GPU); every result equals the NumPy result computed serially
  beforehand (elementwise bit for bit; sums of floats within rounding).
- The GIL is released during long GPU calls (sum/add of host data with
  device="cuda", DeviceArray.get(), synchronize() and float() after queued work):
  a pure-Python counter thread keeps most of its speed while they run. The
  measurement itself is checked on the CPU: the
  counter nearly stops during a call that holds the GIL (builtins.sum), and keeps
  its speed during time.sleep.
- helloworld and fib work from threads.
"""
import builtins
import contextlib
import io
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import myModule
from conftest import assert_same_result, requires_gpu

N_THREADS = 8
gpu = [pytest.mark.gpu, requires_gpu]
DEVICES = ["cpu", pytest.param("cuda", marks=gpu, id="cuda")]

pytestmark = [pytest.mark.usefixtures("quiet_numpy"), pytest.mark.host_threads]

ELEMENTWISE = [
    ("add", myModule.add, np.add),
    ("subtract", myModule.subtract, np.subtract),
    ("multiply", myModule.multiply, np.multiply),
    ("divide", myModule.divide, np.true_divide),
]
RTOL = {np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-12}


def check_reduction(got, expected, x_used, what):
    if isinstance(got, myModule.DeviceArray):  # a device input's result stays there, 0-d
        assert got.shape == (), what
        got = got.get()[()]
    assert isinstance(got, np.generic), "%s: expected a NumPy scalar, got %r" % (what, got)
    assert got.dtype == expected.dtype, "%s: dtype %s, NumPy's %s" % (what, got.dtype, expected.dtype)
    if expected.dtype.kind != "f" or not np.isfinite(expected):
        np.testing.assert_array_equal(got, expected, strict=True, err_msg=what)
        return
    tol = RTOL[expected.dtype] * float(np.abs(np.asarray(x_used, np.float64)).sum())
    assert abs(float(got) - float(expected)) <= tol, "%s: got %r, NumPy %r" % (what, got, expected)


def thread_inputs(seed):
    """A thread's own inputs: every dtype, a few layouts and sizes, some specials."""
    rng = np.random.default_rng(seed)
    n = 1000 + 997 * seed
    f64 = rng.standard_normal(n)
    f64[:4] = [np.nan, np.inf, -0.0, -np.inf]
    f32 = rng.standard_normal(n).astype(np.float32)
    i32 = rng.integers(-2**31, 2**31, n, dtype=np.int32)
    i64 = rng.integers(-2**40, 2**40, n, dtype=np.int64)
    i64[0] = np.iinfo(np.int64).max
    m = rng.standard_normal((60 + seed, 50)).T          # transposed
    mi = rng.integers(-1000, 1000, (70, 70 + seed), dtype=np.int32)[::-1, ::2]
    pairs = [
        (f64, f64[::-1]),
        (f32, f64),
        (i32, i32[::-1].copy()),
        (i32, f32),
        (i64, 3),
        (f32, 0.5),
        (mi, mi[0]),                                     # broadcast
        (m, m[:, :1]),
    ]
    return pairs, [f64[4:], f32, i32, i64, mi, m], [m, mi, m[::2, ::-1]]


def expected_results(pairs, sums, traces):
    """The serial NumPy results, computed before any thread starts."""
    with np.errstate(all="ignore"):
        elementwise = [[ref(a, b) for _, _, ref in ELEMENTWISE] for a, b in pairs]
    return elementwise, [np.sum(x) for x in sums], [np.trace(x) for x in traces]


def run_ops(seed, iterations, prepare, finish, **kw):
    """One thread's work: `prepare` maps a host input to what the call takes (the
    array itself, or a DeviceArray), `finish` maps a result back to the host."""
    pairs, sums, traces = thread_inputs(seed)
    exp_el, exp_sums, exp_traces = expected_results(pairs, sums, traces)
    ready_pairs = [(prepare(a), prepare(b)) for a, b in pairs]
    ready_sums = [prepare(x) for x in sums]
    ready_traces = [prepare(x) for x in traces]
    checks = 0
    for it in range(iterations):
        for k, (a, b) in enumerate(ready_pairs):
            for j, (name, fn, _) in enumerate(ELEMENTWISE):
                got = finish(fn(a, b, **kw))
                assert_same_result(got, exp_el[k][j], check_type=False)
                checks += 1
        for k, x in enumerate(ready_sums):
            check_reduction(myModule.sum(x, **kw), exp_sums[k], sums[k], "sum #%d" % k)
            checks += 1
        for k, x in enumerate(ready_traces):
            check_reduction(myModule.trace(x, **kw), exp_traces[k], np.diagonal(traces[k]),
                            "trace #%d" % k)
            checks += 1
    return checks


def in_threads(fn, n=N_THREADS):
    """fn(i) in n threads at once (started together); their results, or the
    first failure re-raised."""
    barrier = threading.Barrier(n)

    def run(i):
        barrier.wait()
        with np.errstate(all="ignore"):  # errstate is per thread
            return fn(i)

    with ThreadPoolExecutor(max_workers=n) as pool:
        futures = [pool.submit(run, i) for i in range(n)]
        return [f.result() for f in futures]


def identity(x):
    return x


@pytest.mark.parametrize("device", DEVICES)
def test_threads_own_host_arrays(device):
    iterations = 30 if device == "cpu" else 10
    counts = in_threads(lambda i: run_ops(i, iterations, identity, identity,
                                          device=device))
    assert all(c > 0 for c in counts)


def test_threads_auto_device():
    """device='auto' (the default): results are NumPy's whichever side computed them."""
    in_threads(lambda i: run_ops(i, 10, identity, identity))


@pytest.mark.parametrize("device", DEVICES)
def test_threads_shared_inputs_own_out(device):
    rng = np.random.default_rng(1234)
    a = rng.standard_normal(50_000)
    b = rng.standard_normal(50_000).astype(np.float32)[::-1]
    a0, b0 = a.copy(), b.copy()
    with np.errstate(all="ignore"):
        expected = {name: ref(a, b) for name, _, ref in ELEMENTWISE}
    exp_sum = np.sum(a)

    def work(i):
        out = np.empty_like(a)
        for _ in range(20 if device == "cpu" else 8):
            for name, fn, _ in ELEMENTWISE:
                got = fn(a, b, out=out, device=device)
                assert got is out
                assert_same_result(out, expected[name])
            check_reduction(myModule.sum(a, device=device), exp_sum, a, "sum")
        return True

    assert all(in_threads(work))
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


@pytest.mark.gpu
@requires_gpu
def test_threads_device_arrays():
    def prepare(x):
        return myModule.to_device(x) if isinstance(x, np.ndarray) else x

    def finish(r):
        assert isinstance(r, myModule.DeviceArray), type(r)
        return r.get()

    counts = in_threads(lambda i: run_ops(i, 10, prepare, finish))
    assert all(c > 0 for c in counts)
    myModule.synchronize()


@pytest.mark.gpu
@requires_gpu
def test_threads_device_arrays_made_and_dropped():
    """Each thread uploads, computes, reads back and drops its arrays in a loop
    (the allocator and the stream shared by all threads)."""
    def work(i):
        rng = np.random.default_rng(100 + i)
        for k in range(50):
            x = rng.standard_normal(1000 + 37 * k + i)
            y = rng.integers(-100, 100, x.size).astype(np.int32)
            dx, dy = myModule.to_device(x), myModule.to_device(y)
            assert_same_result((dx * dy + dx).get(), x * y + x)
            assert_same_result((dx / dy).get(), x / y)
            check_reduction(myModule.sum(dx), np.sum(x), x, "sum")
            out = myModule.to_device(np.zeros_like(x))
            myModule.subtract(dx, dy, out=out)
            assert_same_result(out.get(), x - y)
        return True

    assert all(in_threads(work))
    myModule.synchronize()


def test_threads_helloworld_and_fib():
    def fib_exact(n):
        a, b = 0, 1
        for _ in range(n):
            a, b = b, a + b
        return a

    wanted = {n: fib_exact(n) for n in range(0, 400, 7)}
    calls_per_thread = 200
    buf = io.StringIO()

    def work(i):
        for k in range(calls_per_thread):
            assert myModule.helloworld() is None
            n = (7 * (i + k)) % 399
            n -= n % 7
            assert myModule.fib(n) == wanted[n]
        return True

    with contextlib.redirect_stdout(buf):
        assert all(in_threads(work))
    out = buf.getvalue()
    assert out == "Hello World\n" * (N_THREADS * calls_per_thread), (
        "%d 'Hello World' and %d newlines in %d characters" % (
            out.count("Hello World"), out.count("\n"), len(out)))


# ---------------------------------------------------------------- the GIL

class Spinner:
    """A pure-Python thread counting as fast as it can while it holds the GIL."""

    def __init__(self):
        self.count = 0
        self._stop = False
        self._thread = threading.Thread(target=self._spin, daemon=True)

    def _spin(self):
        while not self._stop:
            self.count += 1

    def __enter__(self):
        self._thread.start()
        time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        self._stop = True
        self._thread.join()

    def progress_during(self, call, seconds):
        """Counts per second while call() runs again and again for `seconds`."""
        c0, t0 = self.count, time.perf_counter()
        calls = 0
        while True:
            call()
            calls += 1
            elapsed = time.perf_counter() - t0
            if elapsed >= seconds:
                break
        return (self.count - c0) / elapsed, elapsed / calls


@contextlib.contextmanager
def short_switch_interval(seconds=0.001):
    """A short GIL switch interval: a call that holds the GIL gives the counter only
    about this much time per call."""
    import sys
    old = sys.getswitchinterval()
    sys.setswitchinterval(seconds)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def gil_fraction(call, seconds=1.0):
    """How fast the counter runs during call() as a fraction of its speed while
    the main thread sleeps; and the time per call."""
    with short_switch_interval(), Spinner() as spinner:
        free_rate, _ = spinner.progress_during(lambda: time.sleep(0.05), 0.3)
        busy_rate, per_call = spinner.progress_during(call, seconds)
    assert free_rate > 0
    return busy_rate / free_rate, per_call, free_rate


def test_gil_measurement_discriminates():
    """The measurement used below, on the CPU: builtins.sum over a range holds the
    GIL (the counter nearly stops); time.sleep releases it (full speed)."""
    held, per_call, rate = gil_fraction(lambda: builtins.sum(range(3_000_000)), 0.6)
    released, _, _ = gil_fraction(lambda: time.sleep(0.03), 0.3)
    assert per_call > 0.01, "the GIL-holding call is too short to measure (%.4f s)" % per_call
    assert held < 0.2, "a GIL-holding call let the counter run at %.0f%% of its speed" % (100 * held)
    assert released > 0.5, "time.sleep let the counter run at only %.0f%%" % (100 * released)


# A call must last this long for the counter to tell a held GIL from a released
# one (test_gil_measurement_discriminates: about 9% for 50 ms calls).
LONG_CALL_S = 0.04


def _sum_host(n):
    a = np.full(n, 0.5)
    expected = np.float64(n) * 0.5

    def call():
        assert myModule.sum(a, device="cuda") == expected
    return call


def _add_host(n):
    a = np.full(n, 1.5)
    b = np.full(n, 2.0)

    def call():
        r = myModule.add(a, b, device="cuda")
        assert r.shape == a.shape and r[0] == 3.5 and r[-1] == 3.5
    return call


def _get(n):
    d = myModule.to_device(np.full(n, 0.25))

    def call():
        r = d.get()
        assert r.shape == (n,) and r[-1] == 0.25
    return call


def _queued_then(wait):
    """Device work queued for a while (32 adds), then wait(o, n) waits for it."""
    def make(n):
        d = myModule.to_device(np.full(n, 0.25))
        o = myModule.empty_like(d)

        def call():
            for _ in range(32):
                myModule.add(d, d, out=o)
            wait(o, n)
        return call
    return make


def _synchronize(o, n):
    myModule.synchronize()
    assert float(o[-1]) == 0.5


def _float_of_sum(o, n):
    assert float(myModule.sum(o)) == 0.5 * n


def long_call(make, n, n_max, seconds=LONG_CALL_S):
    """make(n)'s call, n grown from `n` (at most to n_max) until one call takes
    `seconds`: faster machines move more data in the same time, so a fixed size
    would be too short to tell on some of them."""
    while True:
        call = make(n)
        call()  # warm-up: pinned staging buffers, the pool, the module
        t0 = time.perf_counter()
        call()
        took = time.perf_counter() - t0
        if took >= seconds or n >= n_max:
            return call
        # Aim 1.5x past the goal so that one more step is rarely needed.
        grow = max(2.0, 1.5 * seconds / max(took, 1e-6))
        n = int(min(n_max, n * grow))
        del call  # the last size's arrays go before the next are made


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("what, make, n, n_max", [
    ("sum-host", _sum_host, 10**8, 2 * 10**9),    # up to 16 GB of host input
    ("add-host", _add_host, 5 * 10**7, 5 * 10**8),  # up to 12 GB of host memory
    ("get", _get, 10**8, 10**9),                   # up to 8 GB each side
    ("synchronize", _queued_then(_synchronize), 10**7, 25 * 10**7),  # up to 4 GB of GPU memory
    ("float", _queued_then(_float_of_sum), 10**7, 25 * 10**7),
], ids=["sum-host", "add-host", "get", "synchronize", "float"])
def test_long_gpu_calls_release_the_gil(what, make, n, n_max):
    call = long_call(make, n, n_max)
    fraction, per_call, rate = gil_fraction(call, 1.0)
    assert per_call > 0.02, "a call took only %.4f s: too short to tell" % per_call
    assert fraction > 0.35, (
        "%s: a pure-Python thread ran at %.0f%% of its speed during %.3f s calls (%.0f counts/s "
        "alone): the GIL is held during the wait" % (what, 100 * fraction, per_call, rate))
