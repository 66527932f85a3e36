"""Without a usable GPU (CUDA_VISIBLE_DEVICES="" in a fresh interpreter), on any
machine: cuda_available() is False and never raises; device="cuda" and the
CUDA-only calls raise CudaUnavailableError with the CUDA code (100,
cudaErrorNoDevice, where a driver hides its GPUs; 35, cudaErrorInsufficientDriver,
where there is no driver); device="auto" computes on the CPU and equals NumPy,
also past the sizes where it would pick the GPU; show_config() says
"CUDA unusable" and why; nothing is printed; python -m myModule still passes.

On a machine with a usable GPU the hidden-GPU code must be exactly 100.
"""
import json
import os
import subprocess
import sys

import pytest

import myModule
from conftest import HAS_GPU

# Where the myModule under test lives (the in-place build or an installed one).
IMPORT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(myModule.__file__)))

CODE_NAMES = {100: "cudaErrorNoDevice", 35: "cudaErrorInsufficientDriver"}

PROBE = r'''
import io, json, sys, warnings
import numpy as np
import myModule as mm

r = {"problems": []}
def problem(msg):
    r["problems"].append(msg)

r["cuda_available"] = mm.cuda_available()
r["cuda_available_again"] = mm.cuda_available()
r["device_count"] = mm.device_count()
r["memory_stats"] = dict(mm._memory_stats())
info = mm._runtime_info()
r["runtime_info"] = {k: info[k] for k in ("cuda_available", "device_count", "error_code", "error_name")}

a = np.linspace(-3, 3, 1000)
b = np.arange(1000, dtype=np.int32)
m = np.arange(30.0).reshape(5, 6)
CUDA_CALLS = {
    "add": lambda: mm.add(a, b, device="cuda"),
    "subtract": lambda: mm.subtract(a, b, device="cuda"),
    "multiply": lambda: mm.multiply(a, 2.0, device="cuda"),
    "divide": lambda: mm.divide(b, b, device="cuda"),
    "add-scalars": lambda: mm.add(3, 3, device="cuda"),
    "add-out": lambda: mm.add(a, b, out=np.empty(1000), device="cuda"),
    "sum": lambda: mm.sum(a, device="cuda"),
    "trace": lambda: mm.trace(m, device="cuda"),
    "vector_add_cuda": lambda: mm.vector_add_cuda(a, a),
    "to_device": lambda: mm.to_device(a),
    "to_device-unified": lambda: mm.to_device(a, unified=True),
    "asarray": lambda: mm.asarray(a),
    "device_info": lambda: mm.device_info(0),
}
errors = {}
for name, call in CUDA_CALLS.items():
    try:
        call()
    except Exception as e:
        errors[name] = {
            "type": type(e).__name__, "code": getattr(e, "code", None),
            "name": getattr(e, "name", None), "message": str(e),
            "unavailable": isinstance(e, mm.CudaUnavailableError),
            "cuda_error": isinstance(e, mm.CudaError), "runtime_error": isinstance(e, RuntimeError),
        }
    else:
        errors[name] = None
r["errors"] = errors

# Argument errors still come first, as TypeError/ValueError.
for name, call, exc in [
    ("float16", lambda: mm.add(np.ones(3, np.float16), a[:3], device="cuda"), TypeError),
    ("shapes", lambda: mm.add(a, a[:3], device="cuda"), ValueError),
    ("trace-1d", lambda: mm.trace(a, device="cuda"), ValueError),
]:
    try:
        call()
        problem("%s: no exception" % name)
    except exc:
        pass
    except Exception as e:
        problem("%s: %r instead of %s" % (name, e, exc.__name__))

def same(got, expected, what):
    try:
        if isinstance(expected, np.generic):
            if not isinstance(got, np.generic):
                problem("%s: %r is not a NumPy scalar" % (what, type(got)))
        np.testing.assert_array_equal(np.asarray(got), np.asarray(expected), strict=True)
    except AssertionError as e:
        problem("%s: %s" % (what, str(e)[:300]))

rng = np.random.default_rng(7)
with np.errstate(all="ignore"):
    for n in (10, (1 << 21) + 3, (1 << 22) + 5):  # small, past the elementwise and sum thresholds
        x = rng.standard_normal(n)
        y = rng.integers(-50, 50, n).astype(np.int32)
        for fname, ref in (("add", np.add), ("subtract", np.subtract),
                           ("multiply", np.multiply), ("divide", np.true_divide)):
            fn = getattr(mm, fname)
            same(fn(x, y), ref(x, y), "%s n=%d default device" % (fname, n))
            same(fn(x, y, device="auto"), ref(x, y), "%s n=%d auto" % (fname, n))
            same(fn(y, 2.5, device="auto"), ref(y, 2.5), "%s n=%d auto scalar" % (fname, n))
        same(mm.vector_add(x, y), np.add(x, y), "vector_add n=%d" % n)
        out = np.empty(n)
        if mm.add(x, y, out=out) is not out:
            problem("add out= n=%d: out not returned" % n)
        same(out, np.add(x, y), "add out= n=%d" % n)
        s = mm.sum(y)
        same(s, np.sum(y), "sum int32 n=%d" % n)
        s = mm.sum(x, device="auto")
        if not isinstance(s, np.float64) or abs(float(s) - float(np.sum(x))) > 1e-12 * float(np.abs(x).sum()):
            problem("sum float64 n=%d: %r vs %r" % (n, s, np.sum(x)))
    big = rng.standard_normal((2000, 2100))
    same(mm.trace(big), np.trace(big), "trace")
    same(mm.trace(big, device="auto"), np.trace(big), "trace auto")
    same(mm.add(3, 3), np.add(3, 3), "add(3, 3)")
    same(mm.divide(999, 9), np.true_divide(999, 9), "divide(999, 9)")

buf = io.StringIO()
mm.show_config(file=buf)
r["show_config"] = buf.getvalue()
out = io.StringIO()
sys_stdout, sys.stdout = sys.stdout, out
try:
    mm.show_config()
finally:
    sys.stdout = sys_stdout
r["show_config_stdout"] = out.getvalue()
r["memory_stats_after"] = dict(mm._memory_stats())
r["cuda_available_end"] = mm.cuda_available()
print("JSON:" + json.dumps(r))
'''


def hidden_gpu_env(**extra):
    env = dict(os.environ)
    env["CUDA_VISIBLE_DEVICES"] = ""
    env.pop("MYMODULE_AUTO_THRESHOLD", None)
    env["PYTHONPATH"] = IMPORT_ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update(extra)
    return env


def run_probe(**extra_env):
    proc = subprocess.run([sys.executable, "-c", PROBE], cwd=IMPORT_ROOT, env=hidden_gpu_env(**extra_env),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, "probe failed (rc %d):\n%s\n%s" % (
        proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:])
    lines = proc.stdout.splitlines()
    assert lines and lines[-1].startswith("JSON:"), proc.stdout[-3000:]
    return json.loads(lines[-1][5:]), lines[:-1], proc.stderr


@pytest.fixture(scope="module")
def probe():
    return run_probe()


def expected_codes():
    # Where this interpreter sees a GPU, the driver is there: hiding its GPUs gives 100.
    return (100,) if HAS_GPU else (100, 35)


def test_module_under_test_is_the_one_the_probe_imports():
    code = "import myModule, os; print(os.path.realpath(myModule.__file__))"
    proc = subprocess.run([sys.executable, "-c", code], cwd=IMPORT_ROOT, env=hidden_gpu_env(),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == os.path.realpath(myModule.__file__)


def test_cuda_is_unavailable(probe):
    r, _, _ = probe
    assert r["cuda_available"] is False
    assert r["cuda_available_again"] is False
    assert r["cuda_available_end"] is False
    assert r["device_count"] == 0
    assert r["runtime_info"]["cuda_available"] is False
    assert r["runtime_info"]["error_code"] in expected_codes(), r["runtime_info"]
    assert r["runtime_info"]["error_name"] == CODE_NAMES[r["runtime_info"]["error_code"]]
    assert r["memory_stats"] == {"bytes_in_use": 0, "allocations": 0}
    assert r["memory_stats_after"] == {"bytes_in_use": 0, "allocations": 0}


def test_cuda_calls_raise_cuda_unavailable(probe):
    r, _, _ = probe
    codes = set()
    for name, err in r["errors"].items():
        assert err is not None, "%s did not raise without a GPU" % name
        assert err["type"] == "CudaUnavailableError", (name, err)
        assert err["unavailable"] and err["cuda_error"] and err["runtime_error"], (name, err)
        assert err["code"] in expected_codes(), (name, err)
        assert err["name"] == CODE_NAMES[err["code"]], (name, err)
        assert err["name"] in err["message"], (name, err)
        codes.add(err["code"])
    assert len(codes) == 1, "different codes for the same cause: %s" % r["errors"]
    assert codes == {r["runtime_info"]["error_code"]}


def test_argument_errors_and_auto_device_compute_on_cpu(probe):
    r, _, _ = probe
    assert r["problems"] == []


def test_show_config_says_why(probe):
    r, _, _ = probe
    code = r["runtime_info"]["error_code"]
    for text in (r["show_config"], r["show_config_stdout"]):
        assert "CUDA unusable" in text, text
        assert CODE_NAMES[code] in text, text
        assert "code %d" % code in text, text
    assert r["show_config"] == r["show_config_stdout"]


def test_nothing_printed(probe):
    _, other_lines, stderr = probe
    assert other_lines == [], "printed: %r" % other_lines[:10]
    assert stderr == "", "stderr: %r" % stderr[-2000:]


def test_auto_threshold_zero_still_computes_on_cpu():
    """MYMODULE_AUTO_THRESHOLD=0: even tiny arrays would go to the GPU; with none,
    device='auto' still computes on the CPU."""
    r, other, stderr = run_probe(MYMODULE_AUTO_THRESHOLD="0")
    assert r["problems"] == []
    assert other == [] and stderr == ""


def test_python_m_mymodule_passes_without_gpu():
    proc = subprocess.run([sys.executable, "-m", "myModule"], cwd=IMPORT_ROOT, env=hidden_gpu_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "CUDA unusable" in proc.stdout
