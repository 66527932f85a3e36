"""The benchmark's rows derived from the op table (bench/op_rows.py, bench/op_table_rows.py), checked
without a GPU: the contenders are NumPy-backed stand-ins for CuPy and PyTorch and
myModule's CPU path, so the inputs each row builds and the function each contender is
given are held to the NumPy reference of the declaration."""
import importlib
import io
import json
import os
import sys
import types
from contextlib import redirect_stdout

import numpy as np
import pytest

import myModule

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)

import c_floor  # noqa: E402
import first_call_rows  # noqa: E402
import op_rows  # noqa: E402
import op_table_rows  # noqa: E402
from harness import targets  # noqa: E402
from harness.builders import Builders  # noqa: E402
from harness.contenders import Lib  # noqa: E402
from harness.inputs import Data  # noqa: E402
from harness.runner import Runner  # noqa: E402
from harness.settings import Settings  # noqa: E402
from harness.table import fmt_time, table_rows  # noqa: E402

OPS = {d["name"]: d for d in myModule.ops}
N = 1000


def sources(n=N, seed=1):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(2 * n), rng.standard_normal(2 * n)]


# ---- input builders

def test_where_condition_is_bool_and_branches_are_independent_data():
    src = sources()
    params, (cond, x, y) = op_rows.host_inputs(OPS["where"], src, N)
    assert params == []
    assert cond.dtype == bool and 0.3 < cond.mean() < 0.7
    assert x.dtype == y.dtype == np.float64
    np.testing.assert_array_equal(cond, src[0][:N] > 0)
    np.testing.assert_array_equal(x, src[1][:N])
    np.testing.assert_array_equal(y, src[0][N:2 * N])


def test_axpy_gets_a_python_float_parameter_then_two_arrays():
    params, arrays = op_rows.host_inputs(OPS["axpy"], sources(), N)
    assert params == [2.0] and type(params[0]) is float
    assert len(arrays) == 2 and all(a.dtype == np.float64 and a.shape == (N,) for a in arrays)
    assert not np.array_equal(arrays[0], arrays[1])


@pytest.mark.parametrize("name", ["log", "sqrt", "power"])
def test_inputs_in_the_domain_give_finite_results(name):
    params, arrays = op_rows.host_inputs(OPS[name], sources(), N)
    assert arrays[0].min() >= 1.0
    if name == "power":
        assert arrays[1].min() < 0 < arrays[1].max()     # the exponent is left as drawn
    result = op_rows.reference(OPS[name])(*params, *arrays)
    assert np.isfinite(result).all()


def test_every_float64_operation_has_inputs_and_a_reference_result():
    src = sources()
    names = []
    for kind in ("elementwise", "reduction"):
        for decl in op_rows.ops_of(myModule.ops, kind):
            params, arrays = op_rows.host_inputs(decl, src, N)
            assert len(arrays) == decl["nin"] and len(params) == decl["nparams"]
            want = np.asarray(op_rows.reference(decl)(*params, *arrays))
            assert want.dtype == np.dtype(decl["results"]["float64"])
            names.append(decl["name"])
    assert {"where", "axpy", "power", "prod", "max", "min"} <= set(names)


def test_short_source_is_refused():
    with pytest.raises(ValueError):
        op_rows.materialize((0, 1, None), [np.zeros(10)], 6)


def test_bytes_moved_counts_each_input_and_the_result():
    assert op_rows.bytes_moved(OPS["where"], 10) == (1 + 8 + 8 + 8) * 10
    assert op_rows.bytes_moved(OPS["equal"], 10) == (8 + 8 + 1) * 10
    assert op_rows.bytes_moved(OPS["sqrt"], 10) == 16 * 10
    assert op_rows.bytes_moved(OPS["axpy"], 10) == 24 * 10
    assert op_rows.bytes_moved(OPS["prod"], 10) == 8 * 10


# ---- counterparts

class Namespace:
    def __init__(self, **fns):
        self.__dict__.update(fns)


def test_counterparts_by_name_with_torch_spellings():
    cupy = Namespace(true_divide=np.true_divide, maximum=np.maximum, equal=np.equal)
    torch = Namespace(eq=np.equal, equal=np.array_equal, pow=np.power, true_divide=np.true_divide)
    assert op_rows.counterpart("CuPy", cupy, OPS["divide"]) == (np.true_divide, None)
    assert op_rows.counterpart("CuPy", cupy, OPS["equal"]) == (np.equal, None)
    assert op_rows.counterpart("PyTorch", torch, OPS["equal"]) == (np.equal, None)
    assert op_rows.counterpart("PyTorch", torch, OPS["power"]) == (np.power, None)
    assert op_rows.counterpart("CuPy", cupy, OPS["axpy"]) == (None, "CuPy has no axpy")
    assert op_rows.counterpart("PyTorch", None, OPS["axpy"]) == (None, None)
    assert op_rows.counterpart("myModule", myModule, OPS["axpy"]) == (myModule.axpy, None)


def test_rows_cover_every_operation_but_the_classic_ones():
    libs = fake_libs()
    cases = op_table_rows.cases(Builders(libs, None, Settings(True)), libs)
    names = [c.name for c in cases]
    for d in op_rows.ops_of(myModule.ops, "elementwise"):
        row = "%s, device arrays, n = 2^26" % d["name"]
        assert (row in names) == (d["name"] not in op_rows.CLASSIC_BINOPS), row
    for d in op_rows.ops_of(myModule.ops, "reduction"):
        assert ("%s, device array, n = 1e8" % d["name"] in names) == (d["name"] != "sum")
    assert sum(n.startswith("axpy, device arrays, n = 1e8") for n in names) == 2


# ---- the rows end to end, on NumPy-backed contenders

class HostArray(np.ndarray):
    def cuda(self):
        return self


class FakeCupy:
    """NumPy under CuPy's names, with an ElementwiseKernel for z = a * x + y."""
    __version__ = "fake"

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def ElementwiseKernel(in_params, out_params, body, name):
        assert body == "z = a * x + y"
        return lambda a, x, y: a * x + y


class FakeTorch:
    """NumPy under torch's names (eq, ne, pow; add with alpha; no power, no equal ufunc)."""
    __version__ = "fake"
    eq, ne, pow = np.equal, np.not_equal, np.power

    def __getattr__(self, name):
        if name in ("power", "equal", "axpy"):
            raise AttributeError(name)
        return getattr(np, name)

    @staticmethod
    def add(a, b, alpha=1):
        return a + alpha * b

    @staticmethod
    def from_numpy(a):
        return a.view(HostArray)


def fake_libs():
    mm = Namespace(ops=myModule.ops, to_device=np.array,
                   **{d["name"]: getattr(myModule, d["name"]) for d in myModule.ops})
    libs = {}
    for label, mod in (("NumPy", np), ("myModule", mm), ("CuPy", FakeCupy()),
                       ("PyTorch", FakeTorch())):
        lib = Lib(label)
        lib.mod, lib.ok, lib.gpu = mod, True, True
        libs[label] = lib
    return libs


@pytest.fixture
def small_sizes(monkeypatch):
    monkeypatch.setattr(op_table_rows, "N_2_26", 2048)
    monkeypatch.setattr(op_table_rows, "N_1E8", 3000)


def test_rows_measure_every_contender_on_the_same_operation(small_sizes):
    libs = fake_libs()
    data = Data(libs, 2 * 3000, l2_bytes=1024)
    settings = Settings(True)
    settings.repeats_gpu, settings.min_time, settings.max_inner = 2, 1e-5, 2
    b = Builders(libs, data, settings)
    cases = op_table_rows.cases(b, libs)
    src = (data.A, data.B)
    for case in cases:
        for label, entry in case.entries.items():
            if entry.skip:
                continue
            got = entry.build()()
            name = case.name.split(",")[0]
            decl = OPS[name]
            n = op_table_rows.N_2_26 if case.group == "op-%d" % op_table_rows.N_2_26 else op_table_rows.N_1E8
            if case.group == "axpy":
                want = 2.0 * data.A[:n] + data.B[:n]
            else:
                params, host = op_rows.host_inputs(decl, src, n)
                want = op_rows.reference(decl)(*params, *host)
            assert op_rows.agrees(np.asarray(got), want), (case.name, label)
        data.clear()

    results = Runner(libs, data, settings).run_cases(cases, lambda msg: None)
    rows = table_rows(results, 1e12)
    by_name = {r["case"]: r for r in rows}
    for case, res in results:
        if "myModule" not in res:  # the informational row naming what is not covered (user kernels)
            continue
        assert res["myModule"]["status"] == "ok", case.name
        for label in ("CuPy", "PyTorch"):
            if res[label]["status"] == "skipped":
                # Only an operation the peer lacks (axpy, the softplus example) or one
                # whose peer computes nothing (torch.positive) skips it, and the row says so.
                name = case.name.split(",")[0]
                why = op_rows.TORCH_WITHOUT_WORK.get(name) if label == "PyTorch" else None
                assert case.group == "op-%d" % op_table_rows.N_2_26
                assert name in ("axpy", "softplus") or why, (name, label)
                why = why or "%s has no %s" % (label, name)
                assert res[label]["why"] == why
                assert why in by_name[case.name]["ratio"]
            else:
                assert res[label]["status"] == "ok", (case.name, label, res[label])
        if all(r["status"] == "ok" for r in res.values()):
            assert all(e["verdict"] in ("met", "missed") for e in by_name[case.name]["evals"])


# ---- first call of every operation in a fresh process

def test_first_call_child_times_and_checks_every_operation(monkeypatch):
    # The fake below is no package: the oracles' module (myModule._reference) must be
    # loaded before it stands in, whatever ran before this test (a shard may run it first).
    importlib.import_module("myModule._reference")
    fake = types.ModuleType("myModule")
    fake.ops, fake.to_device, fake.synchronize = myModule.ops, np.array, lambda: None
    fake.ones = np.ones
    for d in myModule.ops:
        setattr(fake, d["name"], getattr(myModule, d["name"]))
    monkeypatch.setitem(sys.modules, "myModule", fake)
    out = io.StringIO()
    with redirect_stdout(out):
        op_rows.first_call_child(n=256, warm_repeats=2)
    res = json.loads(out.getvalue())
    names = [r["name"] for r in res["ops"]]
    expected = [d["name"] for d in op_rows.ops_of(myModule.ops, "elementwise")] + \
        [d["name"] for d in op_rows.ops_of(myModule.ops, "reduction")]
    assert names == expected
    assert all(r["correct"] and r["first_s"] > 0 and r["warm_s"] > 0 for r in res["ops"])
    # the process's first call loads the module: its own row, left out of the others' worst
    assert [r["loads_module"] for r in res["ops"]] == [True] + [False] * (len(names) - 1)
    assert res["first_load"] == res["ops"][0] and res["first_load"]["name"] == expected[0]
    worst = op_rows.worst_first_call(res["ops"])
    assert worst is not res["ops"][0]
    assert op_rows.first_call_ratio(worst) == max(r["first_s"] / r["warm_s"] for r in res["ops"][1:])


def test_first_call_row_verdicts():
    ops = [{"name": "a", "first_s": 2e-3, "warm_s": 1.5e-3, "correct": True},
           {"name": "b", "first_s": 3e-3, "warm_s": 1e-5, "correct": True}]
    fc = {"status": "ok", "ops": ops, "worst": op_rows.worst_first_call(ops), "wrong": [],
          "skipped": []}
    row = first_call_rows.first_call_ops_row(fc)
    assert row["result"] == "missed" and row["cells"][0].startswith("worst b")
    ops[1]["first_s"] = 5e-4
    fc["worst"] = op_rows.worst_first_call(ops)
    assert first_call_rows.first_call_ops_row(fc)["result"] == "met"
    fc["wrong"] = ["a"]
    assert first_call_rows.first_call_ops_row(fc)["result"] == "missed"
    assert first_call_rows.first_call_ops_row({"status": "skipped", "why": "no GPU"})["result"] == "n/a"


def test_first_call_row_leaves_the_module_load_to_its_own_row():
    ops = [{"name": "a", "first_s": 40e-3, "warm_s": 1e-5, "correct": True, "loads_module": True},
           {"name": "b", "first_s": 2e-4, "warm_s": 1e-5, "correct": True, "loads_module": False}]
    fc = {"status": "ok", "ops": ops, "worst": op_rows.worst_first_call(ops), "wrong": [], "skipped": [],
          "first_load": ops[0]}
    assert fc["worst"]["name"] == "b"
    assert first_call_rows.first_call_ops_row(fc)["result"] == "met"          # 20x
    # the module load (first - warm) against CuPy's first call of the same run
    fc["cupy_first_s"] = 0.1
    load = first_call_rows.first_load_row(fc)
    assert load["result"] == "met" and load["evals"][0]["ratio"] == pytest.approx((40e-3 - 1e-5) / 0.1)
    assert load["evals"][0]["threshold"] == first_call_rows.FIRST_LOAD_PEER_RATIO
    fc["cupy_first_s"] = 0.05                                      # 0.8x CuPy's first call
    assert first_call_rows.first_load_row(fc)["result"] == "missed"
    fc["cupy_first_s"] = 0.1
    ops[0]["correct"] = False
    assert first_call_rows.first_load_row(fc)["result"] == "missed"
    ops[0]["correct"] = True
    fc["cupy_first_s"] = None                                       # no peer: no verdict
    assert first_call_rows.first_load_row(fc)["result"] == "n/a"
    ops[0]["correct"] = False                                       # a wrong result misses anyway
    assert first_call_rows.first_load_row(fc)["result"] == "missed"
    assert first_call_rows.first_load_row({"status": "skipped", "why": "no GPU"})["result"] == "n/a"
    assert first_call_rows.first_load_row({"status": "error", "why": "rc 1"})["result"] == "missed"


def test_first_call_targets_are_ratios_to_a_warm_call():
    """The same excess over a warm call meets or misses with the warm call's size:
    no absolute slack."""
    for warm, want in ((1e-3, "met"), (1e-6, "missed")):
        ops = [{"name": "load", "first_s": 1.0, "warm_s": 1.0, "correct": True, "loads_module": True},
               {"name": "x", "first_s": warm + 5e-4, "warm_s": warm, "correct": True, "loads_module": False}]
        fc = {"status": "ok", "ops": ops, "worst": op_rows.worst_first_call(ops), "wrong": [], "skipped": []}
        assert first_call_rows.first_call_ops_row(fc)["result"] == want, warm


def test_n1_rows_are_held_to_the_c_floor_of_the_same_run(monkeypatch):
    floor = {}
    monkeypatch.setattr(targets, "C_FLOOR", floor)
    target = targets.clause_target("<= 1.2x launch-floor time")
    results = {"myModule": {"median_s": 10e-6}}
    assert target.evaluate(results, None) == (None, "n/a")    # no floor measured: no verdict
    floor.update(status="ok", median_s=9e-6)
    value, verdict = target.evaluate(results, None)
    assert verdict == "met" and value == pytest.approx(10 / 9)
    floor["median_s"] = 8e-6
    assert target.evaluate(results, None)[1] == "missed"
    floor["scalar_median_s"] = 11e-6
    scalar = targets.clause_target("<= 1.2x scalar-floor time")
    assert scalar.evaluate({"myModule": {"median_s": 13e-6}}, None)[1] == "met"
    assert scalar.evaluate({"myModule": {"median_s": 14e-6}}, None)[1] == "missed"
    launch, scalar_row = c_floor.rows(dict(floor, rounds=31))
    assert launch["cells"][0] == fmt_time(8e-6) and launch["result"] == "info"
    assert scalar_row["cells"][0] == fmt_time(11e-6) and scalar_row["result"] == "info"
    assert [r["result"] for r in c_floor.rows({"status": "skipped", "why": "no GPU"})] == ["n/a", "n/a"]
    assert c_floor.parse('{"status": "ok", "median_s": 9e-6}')["status"] == "error"  # no scalar floor


def test_a_floor_timed_beside_the_rows_rounds_is_what_their_ratio_divides_by(monkeypatch):
    """A row held to a C floor: the floor's rounds run before each of our repeats and
    after the last, with as many calls; the ratio divides by their median, not by the
    figure of the floor's own process; the peers' entries and rows held to no floor
    time no rounds."""
    from harness.cases import Case, Entry
    from harness.timing import timeit_gpu
    asked = []

    def paired(calls):
        asked.append(calls)
        return [9e-6, 8e-6, 10e-6, 11e-6][len(asked) - 1]
    res = timeit_gpu(lambda: None, lambda: None, 3, inner=7, paired=paired)
    assert asked == [7, 7, 7, 7] and res["paired_floor_s"] == pytest.approx(9.5e-6)
    assert "paired_floor_s" not in timeit_gpu(lambda: None, lambda: None, 3, inner=7)

    monkeypatch.setattr(targets, "C_FLOOR", {"status": "ok", "median_s": 5e-6, "scalar_median_s": 6e-6})
    launch = targets.clause_target("<= 1.1x launch-floor time")
    assert launch.ref == "launch-floor"
    beside = {"myModule": {"median_s": 10e-6, "paired_floor_s": 9.5e-6, "paired_floor_ref": "launch-floor"}}
    value, verdict = launch.evaluate(beside, None)
    assert value == pytest.approx(10 / 9.5) and verdict == "met"
    # rounds of the other floor are not this clause's: the run's own figure serves
    other = {"myModule": dict(beside["myModule"], paired_floor_ref="scalar-floor")}
    assert launch.evaluate(other, None) == (pytest.approx(2.0), "missed")

    class Floors:
        def __init__(self):
            self.refs = []

        def round(self, ref, calls):
            self.refs.append(ref)
            return 1e-6
    libs = fake_libs()
    settings = Settings(True)
    settings.repeats_gpu, settings.min_time, settings.max_inner = 2, 1e-5, 2
    floors = Floors()
    runner = Runner(libs, Data(libs, 64, l2_bytes=1024), settings, floors)

    def entries(key):
        return {label: Entry(lambda: (lambda: None), "%s:%s" % (key, label), True, "gpu")
                for label in ("myModule", "CuPy", "PyTorch")}
    held = Case("held", "g", None, entries("held"), targets.of("elementwise-n1"))
    free = Case("free", "g", None, entries("free"), targets.of("elementwise-1e6"))
    assert targets.floor_ref(held) == "launch-floor" and targets.floor_ref(free) is None
    results = dict((case.name, res) for case, res in runner.run_cases([held, free], lambda msg: None))
    assert floors.refs == ["launch-floor"] * 3  # two repeats: a round before each and one after
    assert results["held"]["myModule"]["paired_floor_s"] == 1e-6
    assert all("paired_floor_s" not in results["held"][peer] for peer in ("CuPy", "PyTorch"))
    assert all("paired_floor_s" not in r for r in results["free"].values())
    row = table_rows([(held, results["held"])], None)[0]
    assert "launch-floor timed beside its rounds: %s" % fmt_time(1e-6) in row["ratio"]
    assert "-shared" in c_floor.compile_command("nvcc", "/tmp/x.so", shared=True)
    assert c_floor.in_process({"status": "ok", "median_s": 1e-5}) is None  # no library: the figure


def test_the_n1_rows_carry_the_floor_target_and_the_probe_is_there():
    src = open(os.path.join(BENCH, "peers_table_rows.py")).read()
    n1 = src[src.index('"%s, device arrays, n = 1, call + sync"'):]
    assert 'targets.of("elementwise-n1")' in n1[:300], "the n = 1 rows lost their floor target"
    assert all("launch-floor" in c for c in targets.table()["elementwise-n1"])
    assert all("scalar-floor" in c for c in targets.table()["sum-to-float"])
    assert os.path.exists(c_floor.PROBE)
    assert "-arch=native" in c_floor.compile_command("nvcc", "/tmp/x")  # no PTX JIT in the floor


def test_c_floor_probe_output_is_parsed_and_checked():
    ok = c_floor.parse('noise\n{"status": "ok", "median_s": 8.7e-06, "min_s": 8.5e-06, '
                       '"scalar_median_s": 1.1e-05, "rounds": 31}\n')
    assert ok["status"] == "ok" and ok["median_s"] == 8.7e-06 and ok["scalar_median_s"] == 1.1e-05
    assert c_floor.parse("")["status"] == "error"
    assert c_floor.parse('{"status": "ok", "median_s": 0}')["status"] == "error"
    assert c_floor.parse('{"status": "error", "why": "no device"}')["status"] == "error"
    assert c_floor.measure("/nonexistent", "/tmp", has_gpu=False)["status"] == "skipped"
    assert c_floor.measure("/nonexistent", "/tmp", has_gpu=True)["status"] == "error"


def test_the_slice_row_is_a_ratio_to_cupy():
    import array_rows
    stub = types.SimpleNamespace(libs={k: types.SimpleNamespace(mod=None) for k in ("myModule", "CuPy", "PyTorch")},
                                 data=None)
    case = next(c for c in array_rows.cases(stub, None) if "slice" in c.name)
    (target,) = case.targets
    assert target.evaluate({"myModule": {"median_s": 1e-6}}, None) == (None, "n/a")  # no peer: no verdict
    assert target.evaluate({"myModule": {"median_s": 1e-6}, "CuPy": {"median_s": 2e-6}}, None)[1] == "met"
    assert target.evaluate({"myModule": {"median_s": 1e-7}, "CuPy": {"median_s": 5e-8}}, None)[1] == "missed"


def test_no_absolute_time_thresholds_in_the_bench():
    """bench/TARGETS.md: ratios only. A threshold in seconds (a *_LIMIT_S or *_SLACK_S
    constant, as the slice's 2 us and the first call's 1 ms were) is refused."""
    import re
    for name in sorted(os.listdir(BENCH)):
        if name.endswith(".py"):
            text = open(os.path.join(BENCH, name)).read()
            assert not re.search(r"\b[A-Z_]*(LIMIT|SLACK)_S\b", text), name


def test_the_faster_peer_is_the_bar():
    target = targets.clause_target("<= 1.0x faster-peer time")
    results = {"myModule": {"median_s": 4.25e-4}, "CuPy": {"median_s": 8.49e-4}, "PyTorch": {"median_s": 4.07e-4}}
    assert target.ratio(results, None) == pytest.approx(4.25 / 4.07)   # PyTorch, not CuPy
    del results["PyTorch"]
    assert target.ratio(results, None) == pytest.approx(4.25 / 8.49)   # the one peer that ran
    del results["CuPy"]
    assert target.ratio(results, None) is None                       # no peer: no verdict


def test_the_sort_scan_rows_are_ratios_to_the_faster_peer():
    import sort_scan_rows
    stub = types.SimpleNamespace(libs={k: types.SimpleNamespace(mod=None) for k in ("myModule", "CuPy", "PyTorch")},
                                 data=None)
    rows = sort_scan_rows.cases(stub, None)
    assert [c.name.split(",")[0] for c in rows] == ["sort", "argsort (stable)", "cumulative_sum",
                                                         "unique_values", "searchsorted"]
    (target,) = rows[0].targets
    assert target.evaluate({"myModule": {"median_s": 1.0}}, None) == (None, "n/a")
    both = {"myModule": {"median_s": 1.0}, "CuPy": {"median_s": 2.0}, "PyTorch": {"median_s": 0.9}}
    assert target.evaluate(both, None)[1] == "missed"  # PyTorch, the faster peer, wins
    both["PyTorch"]["median_s"] = 1.5
    assert target.evaluate(both, None)[1] == "met"


def test_every_target_is_read_from_the_one_table():
    """The rows name keys of bench/TARGETS.md's table, every key is used, and no row
    module writes a threshold of its own (issue 25: one file of targets)."""
    import re
    table = targets.read_table()
    used = set()
    for name in os.listdir(BENCH):
        if not name.endswith(".py"):
            continue
        src = open(os.path.join(BENCH, name)).read()
        used |= set(re.findall(r'targets\.(?:of|threshold)\("([a-z0-9-]+)"', src))
        for call in ("time_ratio(", "faster_peer_ratio(", "floor_ratio(", "ceiling_fraction("):
            assert call not in src, "%s makes a target of its own: %s" % (name, call)
    import axis_rows
    import array_rows
    used |= {key for *_, key in axis_rows.ROWS} | {row[0] for row in array_rows.CREATION}
    assert used - set(table) == set(), "keys the rows name that TARGETS.md lacks"
    assert set(table) - used == set(), "targets no row is held to"


def test_target_clauses_and_the_faster_peer():
    t, = targets.of("op-table")
    assert t.text == "<= 1.05x faster-peer time"
    results = {"myModule": {"median_s": 10.0}, "CuPy": {"median_s": 12.0}, "PyTorch": {"median_s": 9.6}}
    assert t.evaluate(results, None) == (pytest.approx(10 / 9.6), "met")
    results["PyTorch"]["median_s"] = 9.0                       # the faster peer is the bar
    assert t.evaluate(results, None)[1] == "missed"
    del results["PyTorch"]                                     # absent: the other peer
    assert t.evaluate(results, None)[1] == "met"
    up, ceiling = targets.of("elementwise-large", nbytes=3e9)
    assert up.evaluate({"myModule": {"median_s": 1.0}, "CuPy": {"median_s": 1.0}}, None)[1] == "met"
    assert ceiling.evaluate({"myModule": {"median_s": 1.0}}, 3.2e9)[1] == "met"      # 94 %
    assert ceiling.evaluate({"myModule": {"median_s": 1.0}}, 3.5e9)[1] == "missed"   # 86 %
    for bad in ("<= 1x CuPy", "== 1.0x CuPy time", ">= 1.0x nobody time", ">= 90 % ceiling"):
        with pytest.raises(ValueError):
            targets.clause_target(bad, nbytes=1)


def test_a_malformed_targets_table_stops_the_bench(tmp_path):
    good = "%s\n| key | case | target |\n| --- | --- | --- |\n| `a` | x | <= 1.0x CuPy time |\n" % targets.TABLE_TITLE
    (tmp_path / "ok.md").write_text(good)
    assert targets.read_table(str(tmp_path / "ok.md")) == {"a": ["<= 1.0x CuPy time"]}
    for bad in (good + "| `a` | again | <= 1.0x CuPy time |\n",              # a key twice
                good.replace("<= 1.0x CuPy time", "<= one CuPy"),           # outside the grammar
                good.replace("| x |", "|"),                                 # a cell missing
                "no table here\n"):
        (tmp_path / "bad.md").write_text(bad)
        with pytest.raises(ValueError):
            targets.read_table(str(tmp_path / "bad.md"))


@pytest.mark.parametrize("gpus", [1, 2])
def test_multi_gpu_rows_are_made_for_one_and_for_several_gpus(gpus):
    """The rows of host data on every GPU are only made where myModule has a GPU: built
    here with a stand-in that claims `gpus`, so that a fault in making them shows
    without one (session 15 found the two-GPU rows raising on their first two-GPU run)."""
    import multi_gpu_rows
    libs = fake_libs()
    libs["myModule"].mod.device_count = lambda: gpus
    cases = multi_gpu_rows.cases(Builders(libs, None, Settings(True)), libs)
    held = {c.name: [t.label for t in c.targets] for c in cases if c.targets}
    alone = [name for name in held if "GPU 0 alone" in name]
    every = [name for name in held if "all %d GPUs" % gpus in name]
    assert len(alone) == len(every) == 2  # add and sum
    for name in every:
        # The speed-up over GPU 0 alone is asked only where there is more than one GPU.
        assert len(held[name]) == (2 if gpus > 1 else 1)
