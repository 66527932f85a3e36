"""Helpers shared by the GPU test files (test_device_arrays.py, test_interop.py,
test_faults_gpu.py). Everything here imports and works without a GPU; the tests
that use it are skipped there.

- ``GPU``/``NO_GPU_REASON``/``requires_gpu``: whether CUDA is usable and why not.
- ``run_python(script, **env)``: a script in a fresh interpreter (crashes fail).
- ``private(name)``: a private function of myModule (``_memory_stats``,
  ``_release_cached``, ``_testing_fault``), from the package or from ``_core``.
- ``CAIView``: a bare object that exposes only ``__cuda_array_interface__`` (like
  PyCUDA's GPUArray), for views of any GPU memory with any strides/offset.
- ``view_of(d, ...)``: a zero-copy DeviceArray view of part of a DeviceArray
  (strided, reversed, transposed, broadcast, an element at an offset).
- ``to_host(x)``: a NumPy copy of a DeviceArray / CuPy / PyTorch / Numba array.
- ``assert_same(got, expected)``: dtype, shape and value bit for bit (NaN == NaN,
  the sign of zero checked).
- ``values(dtype, shape, rng, ...)``: random test data.
"""
import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# As conftest.py: the source tree only when no other build is under test (make
# asan tests build/asan, MYMODULE_TEST_INSTALLED=1 the installed package, and a
# fresh clone has no extension in the tree).
if (not os.environ.get("MYMODULE_TESTS_ROOT") and os.environ.get("MYMODULE_TEST_INSTALLED") != "1"
        and ROOT not in sys.path):
    sys.path.insert(0, ROOT)

import myModule as mm  # noqa: E402
from compare_floats import assert_floats_match  # noqa: E402


def _no_gpu_reason():
    try:
        info = mm._core._runtime_info()
        return "no usable CUDA GPU: %s (%s)" % (info.get("reason"), info.get("error_name"))
    except Exception as exc:  # pragma: no cover
        return "no usable CUDA GPU (%r)" % (exc,)


GPU = bool(mm.cuda_available())
NO_GPU_REASON = "" if GPU else _no_gpu_reason()
requires_gpu = pytest.mark.skipif(not GPU, reason=NO_GPU_REASON or "GPU present")

DTYPES = [np.dtype(t) for t in (np.int32, np.int64, np.float32, np.float64)]
DTYPE_IDS = [d.name for d in DTYPES]
MiB = 1 << 20
GiB = 1 << 30


def private(name):
    """myModule.<name>, falling back to myModule._core.<name>."""
    fn = getattr(mm, name, None)
    if fn is None:
        fn = getattr(mm._core, name)
    return fn


def run_python(script, timeout=180, **env_extra):
    """Runs `script` in a fresh interpreter that imports this myModule, with
    `env_extra` added to the environment; fails on a crash (a signal). Returns
    the CompletedProcess and its output for assertion messages."""
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(mm.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([package_root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.update(env_extra)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env,
                          capture_output=True, text=True, timeout=timeout)
    where = "\n--- stdout ---\n%s\n--- stderr ---\n%s" % (proc.stdout[-4000:], proc.stderr[-4000:])
    assert proc.returncode >= 0, "the subprocess was killed by signal %d (a crash)%s" % (
        -proc.returncode, where)
    return proc, where


def memory_stats():
    return dict(private("_memory_stats")())


def release_cached():
    gc.collect()
    mm.synchronize()
    private("_release_cached")()


def free_memory(device=0):
    return int(mm.device_info(device)["free_memory"])


def total_memory(device=0):
    return int(mm.device_info(device)["total_memory"])


# ---------------------------------------------------------------- views

_TYPESTR = {np.dtype(t): np.dtype(t).newbyteorder("<").str
            for t in (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                      np.uint64, np.float32, np.float64, np.complex64, np.complex128)}


class CAIView:
    """Exposes only ``__cuda_array_interface__``: version 2 without a ``stream``
    key by default (what PyCUDA's GPUArray exports). ``owner`` is kept alive."""

    def __init__(self, owner, ptr, shape, typestr, strides=None, version=2, stream=None,
                 with_stream_key=False, readonly=False):
        self.owner = owner
        cai = {"shape": tuple(int(s) for s in shape), "typestr": typestr,
               "data": (int(ptr), bool(readonly)), "version": version}
        cai["strides"] = None if strides is None else tuple(int(s) for s in strides)
        if with_stream_key:
            cai["stream"] = stream
        self._cai = cai

    @property
    def __cuda_array_interface__(self):
        return dict(self._cai)


def view_of(d, shape=None, strides=None, offset=0):
    """A DeviceArray view (through myModule.asarray) of DeviceArray `d`: `shape`,
    byte `strides` and an element `offset` from d's first element."""
    shape = d.shape if shape is None else tuple(shape)
    ptr = d.ptr + offset * d.itemsize
    v = mm.asarray(CAIView(d, ptr, shape, _TYPESTR[np.dtype(d.dtype)], strides))
    assert isinstance(v, mm.DeviceArray)
    assert v.ptr == ptr, "asarray of an array interface must not copy"
    return v


def element(d, index):
    """Element `index` (a flat C-order index) of a C-contiguous DeviceArray, read
    through a one-element view (DeviceArray has no indexing)."""
    return view_of(d, shape=(1,), strides=(d.itemsize,), offset=index).get()[0]


def reversed_view(d):
    """d[::-1, ::-1, ...] of a C-contiguous DeviceArray, as a view."""
    strides, offset, step = [], 0, d.itemsize
    for n in reversed(d.shape):
        strides.insert(0, -step)
        offset += (n - 1) * (step // d.itemsize)
        step *= n
    return view_of(d, shape=d.shape, strides=strides, offset=offset)


def transposed_view(d):
    """d.T of a C-contiguous 2-d DeviceArray, as a view."""
    assert d.ndim == 2
    return view_of(d, shape=d.shape[::-1], strides=d.strides[::-1])


def broadcast_view(d1, shape):
    """A 1-element DeviceArray broadcast to `shape` (all strides 0), as a view."""
    assert d1.size == 1
    return view_of(d1, shape=shape, strides=(0,) * len(shape))


# ---------------------------------------------------------------- values

def to_host(x):
    """A NumPy copy of x (DeviceArray, CuPy, PyTorch, Numba, NumPy, scalar)."""
    if isinstance(x, mm.DeviceArray):
        return x.get()
    mod = type(x).__module__ or ""
    if mod.startswith("cupy"):
        import cupy
        return cupy.asnumpy(x)
    if mod.startswith("torch"):
        return x.detach().cpu().numpy()
    if hasattr(x, "copy_to_host"):  # numba
        return x.copy_to_host()
    return np.asarray(x)


def assert_same(got, expected, msg=""):
    """got (any array, converted with to_host) equals expected (NumPy) in dtype,
    shape and value bit for bit; NaN equals NaN (any payload) and the sign of
    zero must match."""
    g = to_host(got)
    e = np.asarray(expected)
    assert g.dtype == e.dtype, "%sdtype %s, expected %s" % (msg, g.dtype, e.dtype)
    assert g.shape == e.shape, "%sshape %s, expected %s" % (msg, g.shape, e.shape)
    if e.dtype.kind == "f":
        assert_floats_match(g, e, ulp=0, msg=msg)
    else:
        if not np.array_equal(g, e):
            bad = np.flatnonzero((g != e).ravel())[:5]
            raise AssertionError("%svalues differ at %d place(s), e.g. flat %s: got %r, expected %r" % (
                msg, int(np.count_nonzero(g != e)), bad.tolist(), g.ravel()[bad], e.ravel()[bad]))


def values(dtype, shape, rng, nonzero=False, special=False):
    """Random values: ints in [-1000, 1000], floats normal with magnitudes from
    1e-3 to 1e3. `nonzero` avoids zeros (divisors); `special` mixes in NaN, +-inf,
    -0.0 and subnormals (floats) or the int extremes (ints)."""
    dtype = np.dtype(dtype)
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype.kind == "f":
        x = (rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3, n)).astype(dtype)
        if nonzero:
            x[x == 0] = 1
        if special and n >= 8:
            fi = np.finfo(dtype)
            sp = np.array([np.nan, np.inf, -np.inf, -0.0, fi.max, fi.smallest_subnormal,
                           -fi.tiny, 1.0], dtype=dtype)
            if nonzero:
                sp[3] = 1.0
            idx = rng.choice(n, size=min(n, 8), replace=False)
            x[idx] = sp[: len(idx)]
    else:
        x = rng.integers(-1000, 1001, n).astype(dtype)
        if nonzero:
            x[x == 0] = 1
        if special and n >= 4:
            ii = np.iinfo(dtype)
            idx = rng.choice(n, size=4, replace=False)
            x[idx] = np.array([ii.max, ii.min, -1, ii.max - 1], dtype=dtype)
    return x.reshape(shape)
