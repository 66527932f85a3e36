"""Bad inputs, the exception hierarchy, and configuration/introspection, with and
without a GPU.

SPEC 3, Errors: TypeError and ValueError for wrong kinds, dtypes, shapes and
arguments, "as NumPy would raise, before any CUDA call": so these are checked
on every device, "cuda" included, whether or not a GPU is present."""
import io
import os
import subprocess
import sys

import numpy as np
import pytest

import myModule
from conftest import requires_gpu, requires_no_gpu

pytestmark = pytest.mark.usefixtures("quiet_numpy")

SUPPORTED = r"int32.*int64.*float32.*float64"
ALL_DEVICES = ["auto", "cpu", "cuda"]

BINARY = {
    "add": lambda a, b, **kw: myModule.add(a, b, **kw),
    "subtract": lambda a, b, **kw: myModule.subtract(a, b, **kw),
    "multiply": lambda a, b, **kw: myModule.multiply(a, b, **kw),
    "divide": lambda a, b, **kw: myModule.divide(a, b, **kw),
}

BAD_OBJECTS = {
    "None": lambda: None,
    "str": lambda: "abc",
    "bytes": lambda: b"abc",
    "list-of-str": lambda: ["a", "b", "c"],
    "float16-array": lambda: np.ones(3, np.float16),
    "longdouble-array": lambda: np.ones(3, np.longdouble),
    "clongdouble-array": lambda: np.ones(3, np.clongdouble),
    "void-array": lambda: np.zeros(3, "V4"),
    "object-array": lambda: np.array([1, 2, 3], dtype=object),
    "str-array": lambda: np.array(["1", "2", "3"]),
    "datetime-array": lambda: np.array(["2020-01-01"] * 3, dtype="datetime64[D]"),
    "numpy-float16-scalar": lambda: np.float16(1.0),
    "numpy-clongdouble-scalar": lambda: np.clongdouble(1),
}


# ------------------------------------------------------------ dtypes and kinds

@pytest.mark.parametrize("bad", list(BAD_OBJECTS))
@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_rejects_unsupported_inputs(op, device, bad):
    good = np.ones(3)
    for args in ((BAD_OBJECTS[bad](), good), (good, BAD_OBJECTS[bad]())):
        with pytest.raises(TypeError, match=SUPPORTED):
            BINARY[op](*args, device=device)


@pytest.mark.parametrize("bad", list(BAD_OBJECTS))
@pytest.mark.parametrize("fn", ["vector_add", "vector_add_cpu", "vector_add_cuda"])
def test_vector_add_rejects_unsupported_inputs(fn, bad):
    f = getattr(myModule, fn)
    with pytest.raises(TypeError, match=SUPPORTED):
        f(BAD_OBJECTS[bad](), np.ones(3))
    with pytest.raises(TypeError, match=SUPPORTED):
        f(np.ones(3), BAD_OBJECTS[bad]())


@pytest.mark.parametrize("bad", list(BAD_OBJECTS))
@pytest.mark.parametrize("device", ALL_DEVICES)
def test_sum_rejects_unsupported_inputs(device, bad):
    with pytest.raises(TypeError, match=SUPPORTED):
        myModule.sum(BAD_OBJECTS[bad](), device=device)


@pytest.mark.parametrize("dtype", [np.clongdouble, np.float16, np.longdouble, object],
                         ids=["clongdouble", "float16", "longdouble", "object"])
@pytest.mark.parametrize("device", ALL_DEVICES)
def test_trace_rejects_unsupported_dtypes(device, dtype):
    with pytest.raises(TypeError, match=SUPPORTED):
        myModule.trace(np.ones((3, 3), dtype=dtype), device=device)
    for bad in (None, "abc"):
        with pytest.raises(TypeError):
            myModule.trace(bad, device=device)


@pytest.mark.parametrize("dtype", [np.clongdouble, np.float16, np.longdouble],
                         ids=["clongdouble", "float16", "longdouble"])
@pytest.mark.parametrize("device", ALL_DEVICES)
def test_out_of_unsupported_dtype_raises_type_error(device, dtype):
    out = np.zeros(3, dtype=dtype)
    with pytest.raises(TypeError, match=SUPPORTED):
        myModule.add(np.ones(3), np.ones(3), out=out, device=device)
    assert not out.any()


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_out_not_an_array_raises_type_error(device):
    for out in ([0.0, 0.0, 0.0], "abc", 3):
        with pytest.raises(TypeError):
            myModule.add(np.ones(3), np.ones(3), out=out, device=device)


# ------------------------------------------------------------ shapes and out (before any CUDA call)

SHAPE_MISMATCHES = [((3,), (4,)), ((2, 3), (3, 2)), ((5, 4), (5,)), ((0,), (2,))]


@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("op", list(BINARY))
def test_mismatched_shapes_raise_value_error(op, device):
    for sa, sb in SHAPE_MISMATCHES:
        with pytest.raises(ValueError):
            getattr(np, "true_divide" if op == "divide" else op)(np.ones(sa), np.ones(sb))
        with pytest.raises(ValueError):
            BINARY[op](np.ones(sa), np.ones(sb), device=device)


@pytest.mark.parametrize("fn", ["vector_add", "vector_add_cpu", "vector_add_cuda"])
def test_vector_add_mismatched_shapes_raise_value_error(fn):
    with pytest.raises(ValueError):
        getattr(myModule, fn)(np.ones(3), np.ones(4))


@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("op", list(BINARY))
def test_out_wrong_shape_raises_value_error_on_every_device(op, device):
    with pytest.raises(ValueError):
        BINARY[op](np.ones(5), np.ones(5), out=np.empty(4), device=device)


@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("op", list(BINARY))
def test_out_not_castable_raises_type_error_on_every_device(op, device):
    with pytest.raises(TypeError):
        BINARY[op](np.ones(5), np.ones(5), out=np.empty(5, np.int32), device=device)


# ------------------------------------------------------------ arguments

BAD_CALLS = {
    "add()": lambda: myModule.add(),
    "add(a)": lambda: myModule.add(np.ones(2)),
    "add(a,b,out,device)": lambda: myModule.add(np.ones(2), np.ones(2), None, "cpu"),
    "add(a,b,a=)": lambda: myModule.add(np.ones(2), np.ones(2), a=np.ones(2)),
    "subtract(a)": lambda: myModule.subtract(np.ones(2)),
    "multiply()": lambda: myModule.multiply(),
    "divide(a,b,c,d,e)": lambda: myModule.divide(1, 2, None, "cpu", 5),
    "vector_add(a)": lambda: myModule.vector_add(np.ones(2)),
    "vector_add(a,b,out,x)": lambda: myModule.vector_add(np.ones(2), np.ones(2), None, "cpu"),
    "vector_add_cpu()": lambda: myModule.vector_add_cpu(),
    "vector_add_cuda(a)": lambda: myModule.vector_add_cuda(np.ones(2)),
    "sum()": lambda: myModule.sum(),
    "sum(a,b)": lambda: myModule.sum(np.ones(2), np.ones(2)),
    "trace()": lambda: myModule.trace(),
    "trace(a,b)": lambda: myModule.trace(np.ones((2, 2)), 0),
    "fib()": lambda: myModule.fib(),
    "helloworld(1)": lambda: myModule.helloworld(1),
    "cuda_available(1)": lambda: myModule.cuda_available(1),
    "device_count(1)": lambda: myModule.device_count(1),
    "device_info(0,1)": lambda: myModule.device_info(0, 1),
    "to_device()": lambda: myModule.to_device(),
    "asarray()": lambda: myModule.asarray(),
    "synchronize(1)": lambda: myModule.synchronize(1),
}


@pytest.mark.parametrize("call", list(BAD_CALLS))
def test_wrong_argument_counts_raise_type_error(call):
    with pytest.raises(TypeError):
        BAD_CALLS[call]()


UNKNOWN_KEYWORDS = {
    "add(foo=)": lambda: myModule.add(np.ones(2), np.ones(2), foo=1),
    "add(dtype=)": lambda: myModule.add(np.ones(2), np.ones(2), dtype=np.float64),
    "subtract(where=)": lambda: myModule.subtract(np.ones(2), np.ones(2), where=True),
    "multiply(Device=)": lambda: myModule.multiply(np.ones(2), np.ones(2), Device="cpu"),
    "divide(casting=)": lambda: myModule.divide(np.ones(2), np.ones(2), casting="unsafe"),
    "vector_add(device=)": lambda: myModule.vector_add(np.ones(2), np.ones(2), device="cpu"),
    "vector_add_cpu(device=)": lambda: myModule.vector_add_cpu(np.ones(2), np.ones(2), device="cpu"),
    "vector_add_cuda(device=)": lambda: myModule.vector_add_cuda(np.ones(2), np.ones(2), device="cuda"),
    "sum(initial=)": lambda: myModule.sum(np.ones(2), initial=0),
    "max(dtype=)": lambda: myModule.max(np.ones(2), dtype=np.float64),
    "trace(offset=)": lambda: myModule.trace(np.ones((2, 2)), offset=1),
    "device_info(gpu=)": lambda: myModule.device_info(gpu=0),
    "to_device(stream=)": lambda: myModule.to_device(np.ones(2), stream=0),
}


@pytest.mark.parametrize("call", list(UNKNOWN_KEYWORDS))
def test_unknown_keywords_raise_type_error(call):
    with pytest.raises(TypeError):
        UNKNOWN_KEYWORDS[call]()


DEVICE_FUNCS = {
    "add": lambda **kw: myModule.add(np.ones(2), np.ones(2), **kw),
    "subtract": lambda **kw: myModule.subtract(np.ones(2), np.ones(2), **kw),
    "multiply": lambda **kw: myModule.multiply(np.ones(2), np.ones(2), **kw),
    "divide": lambda **kw: myModule.divide(np.ones(2), np.ones(2), **kw),
    "sum": lambda **kw: myModule.sum(np.ones(2), **kw),
    "trace": lambda **kw: myModule.trace(np.ones((2, 2)), **kw),
}


@pytest.mark.parametrize("value", ["tpu", "", "cpu:0", "cuda0", " cpu"])
@pytest.mark.parametrize("fn", list(DEVICE_FUNCS))
def test_unknown_device_name_raises_value_error(fn, value):
    with pytest.raises(ValueError):
        DEVICE_FUNCS[fn](device=value)


# An int is a GPU index since issue 13 (tests/test_multi_gpu.py); a bool is not.
@pytest.mark.parametrize("value", [1.5, b"cpu", ["cpu"], True], ids=["1.5", "bytes", "list", "True"])
@pytest.mark.parametrize("fn", list(DEVICE_FUNCS))
def test_device_of_wrong_type_raises_type_error(fn, value):
    with pytest.raises(TypeError):
        DEVICE_FUNCS[fn](device=value)


# ------------------------------------------------------------ exceptions

def test_exception_hierarchy():
    assert issubclass(myModule.CudaError, RuntimeError)
    assert issubclass(myModule.CudaUnavailableError, myModule.CudaError)
    assert issubclass(myModule.OutOfMemoryError, myModule.CudaError)
    assert issubclass(myModule.OutOfMemoryError, MemoryError)
    assert issubclass(myModule.CudaFatalError, myModule.CudaError)
    assert not issubclass(myModule.CudaUnavailableError, MemoryError)
    assert not issubclass(myModule.CudaFatalError, myModule.CudaUnavailableError)


def test_exceptions_carry_code_and_name():
    e = myModule.CudaError("cudaErrorInvalidValue: invalid argument", 1, "cudaErrorInvalidValue")
    assert e.code == 1 and e.name == "cudaErrorInvalidValue"
    assert str(e) == "cudaErrorInvalidValue: invalid argument"
    oom = myModule.OutOfMemoryError("cudaErrorMemoryAllocation: out of memory", 2,
                                    "cudaErrorMemoryAllocation", bytes=1 << 40)
    assert oom.code == 2 and oom.bytes == 1 << 40
    with pytest.raises(MemoryError):
        raise oom


def test_public_names():
    for name in ("add", "subtract", "multiply", "divide", "sum", "trace", "fib", "helloworld",
                 "vector_add", "vector_add_cpu", "vector_add_cuda", "DeviceArray", "to_device",
                 "asarray", "from_dlpack", "synchronize", "cuda_available", "device_count",
                 "device_info", "show_config", "CudaError", "CudaUnavailableError",
                 "OutOfMemoryError", "CudaFatalError", "__version__"):
        assert hasattr(myModule, name), name


def test_version_is_a_string():
    assert isinstance(myModule.__version__, str) and myModule.__version__


def test_cuda_available_is_a_bool_and_never_raises():
    for _ in range(3):
        assert isinstance(myModule.cuda_available(), bool)


def test_device_count_is_an_int():
    n = myModule.device_count()
    assert isinstance(n, int) and n >= 0
    assert (n > 0) == myModule.cuda_available()


def test_library_prints_nothing(capfd):
    myModule.add(np.ones(3), np.ones(3))
    myModule.sum(np.ones(3))
    myModule.trace(np.ones((3, 3)))
    myModule.fib(100)
    myModule.cuda_available()
    myModule.device_count()
    for call in (lambda: myModule.add(np.ones(3), np.ones(4)),
                 lambda: myModule.add(np.ones(3), np.ones(3), device="cuda"),
                 lambda: myModule.sum(np.ones(3), device="cuda"),
                 lambda: myModule.device_info()):
        try:
            call()
        except (TypeError, ValueError, myModule.CudaError):
            pass
    out, err = capfd.readouterr()
    assert out == "" and err == ""


# ------------------------------------------------------------ without a GPU

CUDA_CALLS = {
    "add": lambda: myModule.add(np.ones(3), np.ones(3), device="cuda"),
    "subtract": lambda: myModule.subtract(np.ones(3), 2, device="cuda"),
    "multiply": lambda: myModule.multiply(3, np.ones(3, np.int32), device="cuda"),
    "divide": lambda: myModule.divide(np.ones((2, 2)), np.ones(2), device="cuda"),
    "divide-scalars": lambda: myModule.divide(999, 9, device="cuda"),
    "add-out": lambda: myModule.add(np.ones(3), np.ones(3), out=np.empty(3), device="cuda"),
    "add-gpu-alias": lambda: myModule.add(np.ones(3), np.ones(3), device="gpu"),
    "sum": lambda: myModule.sum(np.ones(3), device="cuda"),
    "trace": lambda: myModule.trace(np.ones((3, 3)), device="cuda"),
    "vector_add_cuda": lambda: myModule.vector_add_cuda(np.ones(3), np.ones(3)),
    "device_info()": lambda: myModule.device_info(),
    "device_info(0)": lambda: myModule.device_info(0),
    "to_device": lambda: myModule.to_device(np.ones(3)),
    "to_device-unified": lambda: myModule.to_device(np.ones(3), unified=True),
    "asarray-host": lambda: myModule.asarray(np.ones(3)),
}


@requires_no_gpu
@pytest.mark.parametrize("call", list(CUDA_CALLS))
def test_cuda_work_without_gpu_raises_cuda_unavailable(call):
    with pytest.raises(myModule.CudaUnavailableError) as info:
        CUDA_CALLS[call]()
    e = info.value
    assert isinstance(e, myModule.CudaError) and isinstance(e, RuntimeError)
    assert e.code in (35, 100), e.code  # cudaErrorInsufficientDriver, cudaErrorNoDevice
    assert isinstance(e.name, str) and e.name.startswith("cudaError"), e.name
    assert e.name in str(e)  # says which


AUTO_CALLS = {
    "add": (lambda a, b: myModule.add(a, b), np.add),
    "add-auto": (lambda a, b: myModule.add(a, b, device="auto"), np.add),
    "subtract-auto": (lambda a, b: myModule.subtract(a, b, device="auto"), np.subtract),
    "multiply-auto": (lambda a, b: myModule.multiply(a, b, device="auto"), np.multiply),
    "divide-auto": (lambda a, b: myModule.divide(a, b, device="auto"), np.true_divide),
    "vector_add": (lambda a, b: myModule.vector_add(a, b), np.add),
}


@requires_no_gpu
@pytest.mark.parametrize("n", [7, 2 ** 21 + 1], ids=["small", "above-auto-threshold"])
@pytest.mark.parametrize("call", list(AUTO_CALLS))
def test_auto_without_gpu_computes_on_cpu(call, n):
    fn, ref = AUTO_CALLS[call]
    a = np.linspace(-3, 3, n)
    b = np.arange(n, dtype=np.int32)
    got = fn(a, b)
    expected = ref(a, b)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@requires_no_gpu
def test_auto_sum_without_gpu_computes_on_cpu():
    for n in (7, 2 ** 22 + 1):
        x = np.arange(n, dtype=np.int32)
        assert myModule.sum(x) == myModule.sum(x, device="auto") == np.sum(x)
    assert myModule.trace(np.eye(4), device="auto") == 4.0


@requires_no_gpu
def test_introspection_without_gpu(capsys):
    assert myModule.cuda_available() is False
    assert myModule.device_count() == 0
    info = myModule._core._runtime_info()
    assert info["cuda_available"] is False and info["reason"]
    myModule.show_config()
    out = capsys.readouterr().out
    assert any("CUDA unusable" in line for line in out.splitlines()), out
    buf = io.StringIO()
    myModule.show_config(file=buf)
    assert "CUDA unusable" in buf.getvalue()
    assert myModule.synchronize() is None


@requires_gpu
def test_introspection_with_gpu(capsys):
    assert myModule.cuda_available() is True
    assert myModule.device_count() >= 1
    info = myModule.device_info()
    for key in ("name", "compute_capability", "total_memory", "driver_version", "runtime_version"):
        assert key in info
    myModule.show_config()
    out = capsys.readouterr().out
    assert "CUDA unusable" not in out and "GPU 0" in out


# ------------------------------------------------------------ python -m myModule

def test_python_m_mymodule_self_check(tmp_path):
    # The package this suite imported (make asan's lives in build/asan, not in the
    # source tree), from a directory where `-m` cannot pick up another copy.
    import_root = os.path.dirname(os.path.dirname(os.path.abspath(myModule.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = import_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run([sys.executable, "-m", "myModule"], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=600)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "self-check passed" in output, output
    if not myModule.cuda_available():
        assert "CUDA unusable" in output, output


# ---- the messages that name the supported dtypes ----

SUPPORTED_DTYPE_NAMES = [d.name for d in myModule._core._supported_dtypes()]


@pytest.mark.parametrize("call", [
    pytest.param(lambda: myModule._core._op_dtypes("add", np.ones(2), np.float16(1)), id="unsupported-scalar"),
    pytest.param(lambda: myModule._core._op_dtypes("add", np.ones(2, np.float16), np.ones(2)),
                 id="unsupported-array"),
    pytest.param(lambda: myModule._core._op_dtypes("sqrt", np.ones(2, bool)), id="no-loop"),
    pytest.param(lambda: myModule.add(None, np.ones(2), device="cpu"), id="not-an-array"),
])
def test_dtype_messages_name_every_supported_dtype(call):
    """Every message that lists the supported dtypes lists all of them (bool was missing from
    two after it became supported: the lists were written by hand in four places)."""
    with pytest.raises(TypeError) as info:
        call()
    words = str(info.value).replace(",", " ").split()
    missing = [name for name in SUPPORTED_DTYPE_NAMES if name not in words]
    assert not missing, (missing, str(info.value))


def test_integer_domain_no_loop_names_numpy_function():
    with pytest.raises(TypeError, match=r"bitwise_and\(\) has no loop for the input types "
                                        r"\(float64, float64\): it takes bool and integers only, "
                                        r"as numpy\.bitwise_and"):
        myModule._core._op_dtypes("bitwise_and", np.ones(2), np.ones(2))
