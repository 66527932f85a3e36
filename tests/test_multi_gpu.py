"""Host data on any GPU and on every GPU of a host (issue 13).

CPU-runnable: device= parsing (GPU indices, "cuda:N", the errors), the reading
of MYMODULE_DEVICES, set_devices() validation. On a GPU: device=0 and "cuda:0"
against NumPy; with two GPUs or more: results bit-identical between
set_devices([0]) and all GPUs around the sizes where work starts to be shared
out (MYMODULE_SPLIT_BYTES, 16 MiB a GPU by default), for contiguous, strided
and broadcast host inputs and out=; device arrays on another GPU refused."""
import os
import re

import numpy as np
import pytest

import myModule
from compare_floats import assert_sum_matches
from conftest import HAS_GPU, assert_same_result, requires_gpu

COUNT = myModule.device_count()
NEEDS_2 = pytest.mark.skipif(COUNT < 2, reason="needs 2 GPUs, found %d" % COUNT)
# Bytes a GPU's share must move at least (pipeline.cu's split_piece_bytes).
PIECE = int(os.environ.get("MYMODULE_SPLIT_BYTES") or 16 << 20)


@pytest.fixture
def default_devices(monkeypatch):
    """The device set and MYMODULE_DEVICES as the test found them, after it."""
    monkeypatch.delenv("MYMODULE_DEVICES", raising=False)
    myModule.set_devices(None)
    yield
    myModule.set_devices(None)


# ---- device= on the operations ----

OPERATIONS = [
    ("add", lambda device: myModule.add(np.ones(3), 2.0, device=device)),
    ("sum", lambda device: myModule.sum(np.ones(3), device=device)),
    ("trace", lambda device: myModule.trace(np.eye(3), device=device)),
]
OP_IDS = [name for name, _ in OPERATIONS]


@pytest.mark.parametrize("call", [c for _, c in OPERATIONS], ids=OP_IDS)
@pytest.mark.parametrize("device", [1.0, True, [0], b"cuda", object()],
                         ids=["float", "bool", "list", "bytes", "object"])
def test_device_of_another_kind_is_a_type_error(call, device):
    with pytest.raises(TypeError, match="device must be"):
        call(device)


@pytest.mark.parametrize("call", [c for _, c in OPERATIONS], ids=OP_IDS)
@pytest.mark.parametrize("device", ["cuda:", "cuda:x", "cuda:-1", "cuda:0 ", "CUDA:0", "cuda0", -1])
def test_malformed_device_is_a_value_error(call, device):
    with pytest.raises(ValueError, match="device must be"):
        call(device)


@pytest.mark.parametrize("call", [c for _, c in OPERATIONS], ids=OP_IDS)
@pytest.mark.parametrize("past", [0, 1, 10**30])
def test_index_past_the_gpus_says_how_many_there_are(call, past):
    index = COUNT + past
    for device in (index, "cuda:%d" % index if index < 10**9 else index, np.int64(min(index, 2**62))):
        with pytest.raises(ValueError, match="this machine has %d GPU" % COUNT):
            call(device)


@pytest.mark.parametrize("call", [c for _, c in OPERATIONS], ids=OP_IDS)
def test_host_work_on_the_cpu_takes_no_gpu(call):
    for device in ("cpu", "auto", None):
        result = call(device)
        assert float(result.ravel()[0] if isinstance(result, np.ndarray) else result) == 3.0


# ---- the set of GPUs ----

@pytest.mark.parametrize("text, count, expected", [
    ("0,1", 2, [0, 1]), (" 1 , 0 ", 2, [1, 0]), ("2", 3, [2]), ("", 3, [0, 1, 2]),
    ("  ", 2, [0, 1]), ("", 0, []), ("0,1,2,3", 4, [0, 1, 2, 3]),
])
def test_devices_variable_is_read_as_a_list_of_indices(text, count, expected):
    assert myModule._core._parse_devices(text, count) == expected


@pytest.mark.parametrize("text, count, message", [
    ("a", 2, "separated by commas"), ("0,,1", 2, "separated by commas"), ("1,", 2, "separated by commas"),
    ("-1", 2, "separated by commas"), ("0;1", 2, "separated by commas"), ("0 1", 2, "separated by commas"),
    ("0,0", 2, "listed twice"), ("2", 2, "past the 2 GPUs"), ("1", 1, "past the 1 GPU of"),
    ("0", 0, "past the 0 GPUs"), ("99999999999", 2, "separated by commas"),
])
def test_malformed_devices_variable_says_what_is_wrong(text, count, message):
    with pytest.raises(ValueError, match="MYMODULE_DEVICES='.*': .*" + message):
        myModule._core._parse_devices(text, count)


def test_devices_default_to_every_gpu(default_devices):
    assert myModule.devices() == list(range(COUNT))


def test_devices_variable_is_read_at_first_use(default_devices, monkeypatch):
    monkeypatch.setenv("MYMODULE_DEVICES", "0")
    myModule.set_devices(None)  # forget the set: the variable is read again
    if COUNT == 0:
        with pytest.raises(ValueError, match="past the 0 GPUs"):
            myModule.devices()
    else:
        assert myModule.devices() == [0]
    monkeypatch.setenv("MYMODULE_DEVICES", "zero")
    myModule.set_devices(None)
    with pytest.raises(ValueError, match="MYMODULE_DEVICES='zero'"):
        myModule.devices()


def test_malformed_devices_variable_fails_host_gpu_work_only(default_devices, monkeypatch):
    monkeypatch.setenv("MYMODULE_DEVICES", "0,x")
    myModule.set_devices(None)
    assert myModule.add(np.ones(2), 1.0, device="cpu").tolist() == [2.0, 2.0]
    if HAS_GPU:
        with pytest.raises(ValueError, match="MYMODULE_DEVICES"):
            myModule.add(np.ones(2), 1.0, device="cuda")
        # Naming a GPU needs no set.
        assert myModule.add(np.ones(2), 1.0, device=0).tolist() == [2.0, 2.0]


@pytest.mark.parametrize("value", [0, "0", b"0", 1.0, [True], [0.0], ["0"]])
def test_set_devices_takes_a_list_of_ints(default_devices, value):
    with pytest.raises(TypeError):
        myModule.set_devices(value)


@pytest.mark.parametrize("value, message", [
    ([], "at least one GPU"), ([-1], "GPU indices are >= 0"), ([COUNT], "past the %d GPU" % COUNT),
    ([0, COUNT + 5], "past the %d GPU" % COUNT),
])
def test_set_devices_refuses_what_is_not_a_set_of_gpus(default_devices, value, message):
    with pytest.raises(ValueError, match=message):
        myModule.set_devices(value)
    assert myModule.devices() == list(range(COUNT)), "a refused set leaves the set as it was"


@requires_gpu
def test_set_devices_refuses_a_repeated_gpu(default_devices):
    with pytest.raises(ValueError, match="listed twice"):
        myModule.set_devices([0, 0])


@pytest.mark.parametrize("kind", [list, tuple, np.array], ids=["list", "tuple", "ndarray"])
@requires_gpu
def test_set_devices_keeps_the_order_given(default_devices, kind):
    chosen = list(range(COUNT))[::-1]
    myModule.set_devices(kind(chosen))
    assert myModule.devices() == chosen


# ---- one GPU named ----

@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("device", [0, "cuda:0", np.int32(0)], ids=["int", "cuda:0", "np.int32"])
@pytest.mark.parametrize("n", [1000, 3 << 20])
def test_named_gpu_computes_numpys_values(device, n):
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    assert_same_result(myModule.add(a, b, device=device), np.add(a, b))
    assert_same_result(myModule.divide(a, b, device=device), np.divide(a, b))
    x = rng.integers(-1000, 1000, n, dtype=np.int64)
    assert_same_result(myModule.sum(x, device=device), np.sum(x))
    m = rng.standard_normal((300, 300))
    assert myModule.trace(m, device=device) == pytest.approx(np.trace(m), rel=1e-12)


@pytest.mark.gpu
@requires_gpu
def test_device_data_with_its_own_gpu_named_runs():
    d = myModule.to_device(np.arange(6.0), 0)
    assert myModule.add(d, d, device=0).get().tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    assert float(myModule.sum(d, device="cuda:0")) == 15.0
    assert float(myModule.trace(myModule.to_device(np.eye(4), 0), device=0)) == 4.0


@pytest.mark.gpu
@requires_gpu
def test_show_config_lists_the_gpus_host_data_goes_to(default_devices):
    import io
    buf = io.StringIO()
    myModule.show_config(file=buf)
    assert "host arrays go to GPUs %s" % ", ".join(map(str, range(COUNT))) in buf.getvalue()


# ---- two GPUs and more ----

@pytest.mark.gpu
@requires_gpu
@NEEDS_2
def test_device_data_on_another_gpu_than_named_is_a_value_error():
    d = myModule.to_device(np.arange(4.0), 0)
    with pytest.raises(ValueError, match="the data is on GPU 0.*asarray"):
        myModule.add(d, 1.0, device=1)
    with pytest.raises(ValueError, match="the data is on GPU 0"):
        myModule.sum(d, device="cuda:1")
    with pytest.raises(ValueError, match="the data is on GPU 0"):
        myModule.trace(myModule.to_device(np.eye(3), 0), device=1)


@pytest.mark.gpu
@requires_gpu
@NEEDS_2
def test_device_arrays_on_different_gpus_are_a_value_error_with_the_way_out():
    a = myModule.to_device(np.arange(4.0), 0)
    b = myModule.to_device(np.arange(4.0), 1)
    with pytest.raises(ValueError, match="different GPUs.*asarray"):
        myModule.add(a, b)
    moved = myModule.asarray(b, device=0)
    assert myModule.add(a, moved).get().tolist() == [0.0, 2.0, 4.0, 6.0]


@pytest.mark.gpu
@requires_gpu
@NEEDS_2
def test_host_data_goes_to_the_gpu_named():
    x = np.arange(1 << 22, dtype=np.float64)
    for d in range(COUNT):
        assert_same_result(myModule.multiply(x, 3.0, device=d), x * 3.0)
        assert_same_result(myModule.sum(x, device="cuda:%d" % d), np.float64(x.sum()))


def _one_and_all(fn):
    """fn() on GPU 0 alone and on every GPU (the set as found restored)."""
    myModule.set_devices([0])
    try:
        one = fn()
    finally:
        myModule.set_devices(None)
    return one, fn()


def _sizes(bytes_per_element):
    """Element counts around the sizes where 2 GPUs, then every GPU, share the work."""
    two = -(-2 * PIECE // bytes_per_element)
    every = -(-COUNT * PIECE // bytes_per_element)
    return sorted({two - 1, two, two + 1, two + 255, every + 1, 3 * every + 7})


BINARY = ["add", "subtract", "multiply", "divide"]
DTYPES = [np.float64, np.float32, np.int64, np.int32]


@pytest.mark.gpu
@requires_gpu
@NEEDS_2
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", BINARY)
def test_binary_on_every_gpu_equals_one_gpu_and_numpy(default_devices, name, dtype):
    rng = np.random.default_rng(7)
    itemsize = np.dtype(dtype).itemsize
    fn = getattr(myModule, name)
    for n in _sizes(3 * itemsize):
        a = (rng.standard_normal(n) * 100).astype(dtype)
        b = (rng.standard_normal(n) * 100).astype(dtype)
        if np.dtype(dtype).kind == "i":
            b[b == 0] = 1
        one, every = _one_and_all(lambda: fn(a, b, device="cuda"))
        assert_same_result(every, one)
        assert_same_result(every, getattr(np, "true_divide" if name == "divide" else name)(a, b))


@pytest.mark.gpu
@requires_gpu
@NEEDS_2
@pytest.mark.parametrize("dtype", DTYPES + [np.bool_], ids=lambda d: np.dtype(d).name)
def test_sum_on_every_gpu_is_bit_identical_to_one_gpu(default_devices, dtype):
    rng = np.random.default_rng(11)
    itemsize = np.dtype(dtype).itemsize
    for n in _sizes(itemsize):
        x = (rng.standard_normal(n) * 1000).astype(dtype)
        one, every = _one_and_all(lambda: myModule.sum(x, device="cuda"))
        assert_same_result(every, one)
        expected = np.sum(x)
        if np.dtype(dtype).kind == "f":
            assert_sum_matches(every, expected, x)  # NumPy's bits or within rounding of the exact sum
        else:
            assert_same_result(every, expected)


@pytest.mark.gpu
@requires_gpu
@NEEDS_2
def test_auto_above_its_threshold_shares_out_with_the_same_bits(default_devices):
    x = np.random.default_rng(3).standard_normal(_sizes(8)[-1])
    one, every = _one_and_all(lambda: myModule.sum(x))
    assert_same_result(every, one)
    assert_sum_matches(every, np.sum(x), x)  # and against an independent value, not only one GPU's
    one, every = _one_and_all(lambda: myModule.add(x, x[::-1]))
    assert_same_result(every, one)
    assert_same_result(every, x + x[::-1])


LAYOUTS = {
    # contiguous with a scalar (all broadcast)
    "scalar": lambda rng, n: (rng.standard_normal(n), 2.5),
    # strided views: the upload route for each GPU's share
    "strided": lambda rng, n: (rng.standard_normal(2 * n)[::2], rng.standard_normal(3 * n)[::3]),
    # reversed (negative strides)
    "reversed": lambda rng, n: (rng.standard_normal(n)[::-1], rng.standard_normal(n)),
    # a row broadcast along the rows of a 2-d array: shared out along axis 0
    "rows": lambda rng, n: (rng.standard_normal((n // 1000, 1000)), rng.standard_normal(1000)),
    # a column broadcast
    "columns": lambda rng, n: (rng.standard_normal((n // 1000, 1000)), rng.standard_normal((n // 1000, 1))),
    # Fortran order
    "fortran": lambda rng, n: (np.asfortranarray(rng.standard_normal((1000, n // 1000))),
                               rng.standard_normal((1000, n // 1000))),
}


@pytest.mark.gpu
@requires_gpu
@NEEDS_2
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_strided_and_broadcast_host_inputs_on_every_gpu(default_devices, layout):
    rng = np.random.default_rng(5)
    for n in _sizes(24)[1::2]:
        a, b = LAYOUTS[layout](rng, n)
        for name in ("add", "multiply"):
            fn = getattr(myModule, name)
            one, every = _one_and_all(lambda: fn(a, b, device="cuda"))
            assert_same_result(every, one)
            assert_same_result(every, getattr(np, name)(a, b))
        a = np.asarray(a)
        one, every = _one_and_all(lambda: myModule.sum(a, device="cuda"))
        assert_same_result(every, one)
        assert_sum_matches(every, np.sum(a), a)


@pytest.mark.gpu
@requires_gpu
@NEEDS_2
@pytest.mark.parametrize("out_kind", ["same", "float32", "strided", "aliased"])
def test_out_on_every_gpu(default_devices, out_kind):
    rng = np.random.default_rng(9)
    n = _sizes(24)[-1]
    a, b = rng.standard_normal(n), rng.standard_normal(n)

    def run():
        if out_kind == "same":
            out = np.empty(n)
        elif out_kind == "float32":
            out = np.empty(n, dtype=np.float32)
        elif out_kind == "strided":
            out = np.empty(2 * n)[::2]
        else:
            out = a.copy()
            result = myModule.subtract(out, b, out=out, device="cuda")
            assert result is out
            return out
        result = myModule.subtract(a, b, out=out, device="cuda")
        assert result is out
        return out

    one, every = _one_and_all(run)
    assert_same_result(every, one)
    expected = np.subtract(a, b).astype(one.dtype)
    assert_same_result(every, expected)


# ---- the pipeline's knobs and trace (MYMODULE_PIPELINE_TRACE and friends) ----

KNOBS = {
    "default": {},
    "chunk 1 MiB, memcpy in 256 KiB pieces": {"MYMODULE_CHUNK_BYTES": str(1 << 20),
                                              "MYMODULE_STAGE_BLOCK_BYTES": str(256 << 10)},
    "3 workers bound to the GPU's CPUs": {"MYMODULE_HOST_WORKERS": "3", "MYMODULE_BIND_WORKERS": "1"},
    "odd sizes": {"MYMODULE_CHUNK_BYTES": str(300000), "MYMODULE_STAGE_BLOCK_BYTES": "4097"},
    "one slot a worker": {"MYMODULE_STAGE_SLOTS": "1"},
    "4 slots, 5 workers": {"MYMODULE_STAGE_SLOTS": "4", "MYMODULE_HOST_WORKERS": "5"},
    "more slots than there are": {"MYMODULE_STAGE_SLOTS": "99"},
    "non-temporal staging asked": {"MYMODULE_STAGE_COPY": "stream"},
    "memcpy staging asked": {"MYMODULE_STAGE_COPY": "memcpy"},
    "worker threads started by every call": {"MYMODULE_PERSISTENT_WORKERS": "0"},
    "worker threads started by every call, 3 of them": {"MYMODULE_PERSISTENT_WORKERS": "0",
                                                        "MYMODULE_HOST_WORKERS": "3"},
}

KNOB_SCRIPT = """
import json
import numpy as np
import myModule as mm
n = 3 * 10**6 + 17   # 24 MB an input: the pipeline, and shared out on 2 GPUs
a = np.arange(n, dtype=np.float64)
b = np.linspace(-1.0, 1.0, n)
out = {}
for name, gpus in (("one", [0]), ("all", None)):
    mm.set_devices(gpus)
    out[name] = {"add_ok": bool(np.array_equal(mm.add(a, b, device="cuda"), a + b)),
                 "sum": float(mm.sum(a, device="cuda")),
                 "sum_b": mm.sum(b, device="cuda").tobytes().hex()}
print(json.dumps(out))
"""


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("knobs", list(KNOBS.values()), ids=list(KNOBS))
def test_pipeline_knobs_change_no_result_and_the_trace_says_where_time_went(knobs):
    import json

    from gpu_helpers import run_python
    proc, where = run_python(KNOB_SCRIPT, MYMODULE_PIPELINE_TRACE="1", **knobs)
    assert proc.returncode == 0, where
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    n = 3 * 10**6 + 17
    for name in ("one", "all"):
        assert got[name]["add_ok"], where
        assert got[name]["sum"] == float(n * (n - 1) // 2), where  # exact in float64
    # The chunking of a reduction depends on n alone: the same bits on any number of GPUs.
    assert got["one"]["sum_b"] == got["all"]["sum_b"], where
    b = np.linspace(-1.0, 1.0, n)  # and those bits against an independent value
    assert_sum_matches(np.frombuffer(bytes.fromhex(got["all"]["sum_b"]), np.float64)[0], np.sum(b), b)
    lines = [line for line in proc.stderr.splitlines() if line.startswith("[myModule pipeline]")]
    adds = [line for line in lines if "] GPU 0 add n=" in line]
    sums = [line for line in lines if "] GPU 0 sum n=" in line]
    assert adds and sums, where
    for line in adds + sums:
        for stage in ("start", "memcpy", "slot wait", "enqueue", "drain", "wall"):
            assert stage in line, line
    if "MYMODULE_HOST_WORKERS" in knobs:
        assert any("%s workers" % knobs["MYMODULE_HOST_WORKERS"] in line for line in adds), where
    # A chunk fills at most one pipeline buffer (64 KiB and 4 KiB multiples).
    buffer = max(int(knobs.get("MYMODULE_CHUNK_BYTES", 4 << 20)), 64 << 10) // 4096 * 4096
    for line in adds + sums:
        chunk = int(re.search(r"chunks of (\d+),", line).group(1))
        assert 0 < chunk <= buffer // 8, line
    copy = {"stream": "non-temporal staging", "memcpy": "memcpy staging"}.get(knobs.get("MYMODULE_STAGE_COPY"))
    if copy is not None:
        assert all(copy in line for line in adds + sums), where
    if knobs.get("MYMODULE_CHUNK_BYTES") == "300000":
        assert any("chunks of %d," % (buffer // 8) in line for line in adds), where
    if COUNT > 1:
        assert any(line.startswith("[myModule pipeline] split add") for line in lines), where
    # Which threads ran each call: those kept from the pipeline's start (the default,
    # from the first call on), or threads started for the call (the knob at 0).
    threads = [line for line in lines if re.match(r"\[myModule pipeline\] GPU \d+: \d+ workers on ", line)]
    assert threads, where
    kept = knobs.get("MYMODULE_PERSISTENT_WORKERS") != "0"
    want = "on kept threads" if kept else "on threads started for this call"
    assert all(line.endswith(want) for line in threads), where


def last_level_cache_bytes():
    """CPU 0's cache of the highest level, as /sys says (what lscpu shows); 0 if unknown."""
    best_level, size = 0, 0
    for index in range(8):
        base = "/sys/devices/system/cpu/cpu0/cache/index%d/" % index
        try:
            with open(base + "level") as f:
                level = int(f.read())
            with open(base + "size") as f:
                text = f.read().strip()
        except (OSError, ValueError):
            break
        if level > best_level:
            unit = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
            best_level, size = level, int(text.rstrip("KMGkmg")) * unit
    return size


def elementwise_chunk_oracle(cache, gpus, workers, slots=2):
    """The elementwise chunk in bytes (docs/SPEC.md): the staging rings of `gpus`
    GPUs (workers x slots x two buffers each) within a quarter of `cache`, 1 to 4 MiB
    in steps of 512 KiB."""
    step = 512 << 10
    fit = cache // 4 // (gpus * workers * slots * 2) // step * step
    return min(max(fit, 1 << 20), 4 << 20)


def elementwise_workers_oracle(workers, gpus, asked):
    """The workers an elementwise call on host data takes (docs/SPEC.md): at most 8 of
    a GPU's `workers` on one GPU, all of them where several GPUs stage at once or
    MYMODULE_HOST_WORKERS asked for them."""
    return workers if asked or gpus > 1 else min(workers, 8)


def pipeline_workers(knobs):
    """A GPU's pipeline workers: MYMODULE_HOST_WORKERS, else half the CPUs, 1 to 12."""
    asked = int(knobs.get("MYMODULE_HOST_WORKERS", 0) or 0)
    return min(asked, 16) if asked else max(1, min(12, (os.cpu_count() or 2) // 2))


def staging_is_non_temporal(cache, ring):
    """The copy rule (docs/SPEC.md): non-temporal stores only where the staging ring
    is larger than a known last-level cache."""
    return bool(cache) and ring > cache


def test_last_level_cache_reads_as_lscpu_shows_it():
    """The oracle of the chunk rule below reads a plausible size where /sys has one."""
    size = last_level_cache_bytes()
    if not os.path.exists("/sys/devices/system/cpu/cpu0/cache/index0/level"):
        assert size == 0
    else:
        assert size >= 1 << 16


@pytest.mark.gpu
@requires_gpu
def test_elementwise_chunks_keep_the_staging_ring_in_a_quarter_of_the_cache():
    """An elementwise call on host data stages in chunks as large as keep every
    worker's two slots of two pinned buffers, on every GPU staging at once, within a
    quarter of the CPU's last-level cache, 1 to 4 MiB in steps of 512 KiB
    (docs/SPEC.md): the chunk its trace reports, on one GPU and on all of them."""
    from gpu_helpers import run_python
    script = """
    import numpy as np
    import myModule as mm
    n = 1 << 26   # enough elements that every worker gets chunks of the largest size
    a = np.ones(n)
    for gpus in ([0], None):
        mm.set_devices(gpus)
        print(bool((mm.add(a, a, device="cuda") == 2.0).all()))
    """
    proc, where = run_python(script, MYMODULE_PIPELINE_TRACE="1", MYMODULE_CHUNK_BYTES="",
                             MYMODULE_STAGE_SLOTS="", MYMODULE_SPLIT_BYTES="")
    assert proc.returncode == 0 and proc.stdout.split() == ["True", "True"], where
    lines = [line for line in proc.stderr.splitlines() if "] GPU 0 add n=" in line]
    split = [line for line in proc.stderr.splitlines() if line.startswith("[myModule pipeline] split add")]
    sharing = int(re.search(r"over (\d+) GPUs", split[0]).group(1)) if split else 1
    assert len(lines) == 2 and sharing == COUNT, where  # 1.5 GiB: a piece for every GPU
    for line, gpus in zip(lines, (1, sharing)):
        found = re.search(r"chunks of (\d+), (\d+) workers", line)
        chunk, workers = int(found.group(1)), int(found.group(2))
        want = elementwise_chunk_oracle(last_level_cache_bytes(), gpus, workers)
        assert chunk * 8 == want, (line, gpus, last_level_cache_bytes())


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("knobs", [{}, {"MYMODULE_STAGE_SLOTS": "4", "MYMODULE_HOST_WORKERS": "16",
                                        "MYMODULE_CHUNK_BYTES": str(64 << 20)}],
                         ids=["default", "4 slots of 16 workers, 64 MiB chunks"])
def test_staging_copy_is_non_temporal_only_where_the_ring_outgrows_the_cache(knobs):
    """A call stages with non-temporal stores only where its staging ring (GPUs x
    workers x slots x the bytes a chunk stages) is larger than the CPU's last-level
    cache, and with a memcpy otherwise or where the cache is unknown (docs/SPEC.md):
    the copy its trace reports, for add (two inputs) and sum (one) on GPU 0. Both
    take at most 8 workers there by default."""
    from gpu_helpers import run_python
    script = """
    import numpy as np
    import myModule as mm
    n = 1 << 25
    a = np.ones(n)
    mm.set_devices([0])
    print(bool((mm.add(a, a, device="cuda") == 2.0).all()), float(mm.sum(a, device="cuda")))
    """
    slots = min(int(knobs.get("MYMODULE_STAGE_SLOTS", 2)), 4)
    proc, where = run_python(script, MYMODULE_PIPELINE_TRACE="1", MYMODULE_STAGE_COPY="",
                             **{"MYMODULE_CHUNK_BYTES": "", "MYMODULE_STAGE_SLOTS": "", **knobs})
    assert proc.returncode == 0 and proc.stdout.split() == ["True", str(float(1 << 25))], where
    cache = last_level_cache_bytes()
    workers_of = {}
    for what, inputs in (("add", 2), ("sum", 1)):
        line = next(line for line in proc.stderr.splitlines() if "] GPU 0 %s n=" % what in line)
        found = re.search(r"chunks of (\d+), (\d+) workers, (memcpy|non-temporal) staging", line)
        assert found, line
        chunk, workers = int(found.group(1)), int(found.group(2))
        workers_of[what] = workers
        ring = workers * slots * inputs * chunk * 8
        expected = "non-temporal" if staging_is_non_temporal(cache, ring) else "memcpy"
        assert found.group(3) == expected, (line, ring, cache)
    # On one GPU, add and sum each take at most 8 of the workers unless
    # MYMODULE_HOST_WORKERS asked for more (their chunks here leave none idle).
    asked = "MYMODULE_HOST_WORKERS" in knobs
    workers = pipeline_workers(knobs)
    assert workers_of["add"] == elementwise_workers_oracle(workers, 1, asked), (workers_of, where)
    assert workers_of["sum"] == (workers if asked else min(workers, 8)), (workers_of, where)


@pytest.mark.gpu
@requires_gpu
def test_which_worker_takes_a_chunk_changes_no_bit():
    """Workers claim chunks in turn as they come free, so which worker reduces which
    chunk differs from run to run and setting to setting; the partials are combined in
    chunk order, so the sum's bits may not."""
    import json

    from gpu_helpers import run_python
    settings = ({}, {"MYMODULE_HOST_WORKERS": "1"}, {"MYMODULE_STAGE_SLOTS": "1"},
                {"MYMODULE_HOST_WORKERS": "7", "MYMODULE_STAGE_SLOTS": "4"},
                {"MYMODULE_PERSISTENT_WORKERS": "0"})
    bits = set()
    for knobs in settings:
        proc, where = run_python(KNOB_SCRIPT, **knobs)
        assert proc.returncode == 0, where
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        assert got["one"]["add_ok"] and got["all"]["add_ok"], where
        bits.add(got["one"]["sum_b"])
        bits.add(got["all"]["sum_b"])
    assert len(bits) == 1, bits
