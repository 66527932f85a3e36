"""The checks checked: every comparison the suite holds results to is fed the
wrong values of issue 28 and must refuse them (and take the right ones), and
MYMODULE_REQUIRE_GPU=1 must turn a GPU test's skip into a failure. No GPU
needed; a few seconds in all, so it runs in CI.

Wrong values: NaN where NumPy's result is finite, FLT_MAX/DBL_MAX where it is
inf, -x for x (2.0 for -2.0: the old int64 ULP distance wrapped to 0), a float32
sum at n = 1517 that dropped an element (the old bound let 134 of 200 pass),
-0.0 for 0.0 where NumPy's sign is defined.
"""
import os
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpu_helpers as H
import myModule
import test_ops
import test_reductions
import test_reductions_axis
from compare_floats import assert_complex_match, assert_floats_match, assert_sum_matches, ulp_distance
from conftest import ROOT, SANITIZER_TOOL, TEST_INSTALLED, assert_same_result

pytestmark = pytest.mark.usefixtures("quiet_numpy")

FLOATS = [np.float32, np.float64]
MAKE = shutil.which("make")
ULP_OP = next(op for op in myModule.ops if op["kind"] == "elementwise" and op["ulp"] > 0)
FLOOR_OP = next(op for op in myModule.ops if op["ulp_floor"] > 0)
SUM_OP = next(op for op in myModule.ops if op["name"] == "sum")
MEAN_OP = next(op for op in myModule.ops if op["name"] == "mean")


def refused(check, *args, **kwargs):
    """Whether check(*args, **kwargs) raised AssertionError."""
    try:
        check(*args, **kwargs)
    except AssertionError:
        return True
    return False


# Every checker of float results, as check(got, expected, x) for a full reduction
# or an elementwise result (x: the data a sum was taken over).
def _axis_check(name):
    return lambda g, e, x: test_reductions_axis.check(name, g, e, x, None, False)


ELEMENTWISE_CHECKS = {
    "compare_floats ulp=0": lambda g, e, x: assert_floats_match(g, e, ulp=0),
    "compare_floats ulp=4": lambda g, e, x: assert_floats_match(g, e, ulp=4),
    "compare_floats tol": lambda g, e, x: assert_floats_match(g, e, tol=1e-3 * np.abs(e.astype(np.float64)) + 1),
    "conftest.assert_same_result": lambda g, e, x: assert_same_result(g, e),
    "gpu_helpers.assert_same": lambda g, e, x: H.assert_same(g, e),
    "test_ops.assert_matches (ulp op)": lambda g, e, x: test_ops.assert_matches(ULP_OP, g, e),
    "test_ops.assert_matches (ulp_floor op)": lambda g, e, x: test_ops.assert_matches(FLOOR_OP, g, e),
}
SUM_CHECKS = {
    "compare_floats.assert_sum_matches": lambda g, e, x: assert_sum_matches(g, e, x),
    "test_reductions_axis.check sum": _axis_check("sum"),
    "test_ops.assert_reduction sum": lambda g, e, x: test_ops.assert_reduction(SUM_OP, g[()], e[()], x),
    "test_reductions.assert_sum_close": lambda g, e, x: test_reductions.assert_sum_close(g[()], x, e.dtype),
}
ALL_CHECKS = dict(ELEMENTWISE_CHECKS, **SUM_CHECKS)


def finite_data(dtype):
    return np.array([0.75, -2.0, 3.5, 1.25], dtype)


def wrong_values(dtype):
    """(what, got, expected, data) of results a check must refuse: 0-d, as a sum."""
    dtype = np.dtype(dtype)
    fi = np.finfo(dtype)
    x = finite_data(dtype)
    s = np.sum(x)
    big = np.array([fi.max, fi.max], dtype)
    neg_zero_data = np.array([-0.0, -0.0], dtype)   # NumPy 2 sums these to +0.0
    with np.errstate(over="ignore"):
        inf_sum = np.sum(big)
    assert inf_sum == np.inf and np.sum(neg_zero_data) == 0 and not np.signbit(np.sum(neg_zero_data))
    return [
        ("NaN for a finite result", dtype.type(np.nan), s, x),
        ("MAX for +inf", dtype.type(fi.max), inf_sum, big),
        ("-MAX for -inf", dtype.type(-fi.max), -inf_sum, -big),
        ("+inf for -inf", dtype.type(np.inf), -inf_sum, -big),
        ("-x for x", -s, s, x),
        ("-0.0 for 0.0", dtype.type(-0.0), np.sum(neg_zero_data), neg_zero_data),
    ]


@pytest.mark.parametrize("dtype", FLOATS, ids=["float32", "float64"])
@pytest.mark.parametrize("check", list(ALL_CHECKS), ids=list(ALL_CHECKS))
def test_every_check_refuses_the_wrong_values(check, dtype):
    fn = ALL_CHECKS[check]
    for what, got, expected, x in wrong_values(dtype):
        g, e = np.asarray(got), np.asarray(expected)
        assert not refused(fn, e.copy(), e, x), "%s refused NumPy's own value (%s)" % (check, what)
        assert refused(fn, g, e, x), "%s let %s pass: got %r, NumPy %r" % (check, what, got, expected)


@pytest.mark.parametrize("check", list(ELEMENTWISE_CHECKS), ids=list(ELEMENTWISE_CHECKS))
def test_elementwise_checks_refuse_one_wrong_element_among_right_ones(check):
    fn = ELEMENTWISE_CHECKS[check]
    for dtype in FLOATS:
        e = np.array([[1.0, -2.0, np.inf], [-np.inf, np.nan, 0.0]], dtype)
        fn(e.copy(), e, None)
        for index, wrong in (((0, 0), np.nan), ((0, 2), np.finfo(dtype).max), ((1, 0), -np.finfo(dtype).max),
                             ((0, 1), 2.0), ((1, 2), -0.0), ((1, 1), 1.0)):
            g = e.copy()
            g[index] = wrong
            assert refused(fn, g, e, None), "%s: %r at %s passed" % (check, wrong, index)


def test_ulp_distance_does_not_wrap():
    for dtype, bits in ((np.float32, 32), (np.float64, 64)):
        two, minus_two = np.array([2.0], dtype), np.array([-2.0], dtype)
        d = int(ulp_distance(two, minus_two)[0])
        assert d == 2 * int(two.view("u%d" % (bits // 8))[0]), d
        assert int(ulp_distance(np.array([-0.0], dtype), np.array([0.0], dtype))[0]) == 0
        assert int(ulp_distance(np.array([1.0], dtype), np.nextafter(np.array([1.0], dtype), 2))[0]) == 1
        fi = np.finfo(dtype)
        assert int(ulp_distance(np.array([fi.max], dtype), np.array([np.inf], dtype))[0]) == 1
        extremes = np.array([-np.inf, -fi.max], dtype), np.array([np.inf, fi.max], dtype)
        assert (ulp_distance(*extremes) >= np.uint64(2 ** (bits - 1))).all()


@pytest.mark.parametrize("check", list(SUM_CHECKS), ids=list(SUM_CHECKS))
def test_a_float32_sum_that_dropped_an_element_never_passes(check):
    """n = 1517 float32 values as the axis tests draw them (test_reductions_axis.values):
    a library-like sum (double accumulation, one rounding) of all but the last one
    must be refused in every trial, and the full sum taken."""
    fn = SUM_CHECKS[check]
    rng = np.random.default_rng(1517)
    dtype = np.dtype(np.float32)
    for _ in range(200):
        x = test_reductions_axis.values("sum", dtype, (1517,), rng)
        expected = np.asarray(np.sum(x))
        right = np.asarray(np.float32(np.sum(x.astype(np.float64))))
        dropped = np.asarray(np.float32(np.sum(x[:-1].astype(np.float64))))
        fn(right, expected, x)
        assert refused(fn, dropped, expected, x), "%s let a sum missing %r pass (%r for %r)" % (
            check, x[-1], dropped, expected)


def test_a_dropped_element_fails_along_an_axis_and_in_a_mean():
    rng = np.random.default_rng(28)
    x = test_reductions_axis.values("sum", np.dtype(np.float32), (4, 1517), rng)
    for name, mean in (("sum", False), ("mean", True)):
        expected = getattr(np, name)(x, axis=1)
        dropped = getattr(np, name)(x[:, :-1].astype(np.float64), axis=1).astype(np.float32)
        if mean:  # the mean of 1517 values, one of them dropped from the sum
            dropped = (np.sum(x[:, :-1].astype(np.float64), axis=1) / 1517).astype(np.float32)
        right = getattr(np, name)(x.astype(np.float64), axis=1).astype(np.float32)
        test_reductions_axis.check(name, right, expected, x, 1, False)
        assert refused(test_reductions_axis.check, name, dropped, expected, x, 1, False)
        op = MEAN_OP if mean else SUM_OP
        test_ops.assert_reduction(op, right[0], expected[0], x[0])
        assert refused(test_ops.assert_reduction, op, dropped[0], expected[0], x[0])


def test_axis_checks_refuse_nan_for_a_finite_sum_mean_or_prod():
    """test_reductions_axis.check's old `(err > tol) & ~special` let NaN through."""
    x = np.array([[0.75, 1.5, 1.25], [1.0, 0.5, 2.0]])
    for name in ("sum", "mean", "prod"):
        e = getattr(np, name)(x, axis=1)
        test_reductions_axis.check(name, e.copy(), e, x, 1, False)
        g = e.copy()
        g[1] = np.nan
        assert refused(test_reductions_axis.check, name, g, e, x, 1, False), name
        g = e.copy()
        g[0] = np.inf
        assert refused(test_reductions_axis.check, name, g, e, x, 1, False), name


# ------------------------------------------------------------------ MYMODULE_REQUIRE_GPU

TINY = '''
import pytest
import gpu_helpers as H
from conftest import GPU_MARKS, requires_gpu

def test_on_the_cpu():
    assert 1 + 1 == 2

@requires_gpu
def test_conftest_mark():
    pass

@H.requires_gpu
def test_gpu_helpers_mark():
    pass

@GPU_MARKS[0]
def test_marked_gpu_skipping_at_run_time():
    pytest.skip("no device for this")

def test_run_time_skip_naming_the_gpu():
    pytest.skip("every example here needs a GPU")

def test_unrelated_skip():
    pytest.skip("somepackage is not installed")
'''


def run_tiny(tmp_path, require):
    """The tiny test file above, in a fresh pytest with tests/conftest.py as a
    plugin and the GPU hidden (CUDA_VISIBLE_DEVICES=''), so that a GPU machine
    sees what this machine sees."""
    if SANITIZER_TOOL:
        pytest.skip("under compute-sanitizer, which follows this child process, CUDA_VISIBLE_DEVICES='' "
                    "does not hide the GPU (the child saw it); make test runs these two")
    path = tmp_path / "test_tiny_gpu.py"
    path.write_text(textwrap.dedent(TINY))
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", MYMODULE_REQUIRE_GPU=require)
    env.pop("MYMODULE_TEST_SHARD", None)  # make sanitize's share of this file is not the tiny file's
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "tests")] + (
        [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-p", "no:cacheprovider",
                           "-rA", str(path)], cwd=str(tmp_path), env=env, capture_output=True, text=True,
                          timeout=120)
    # pytest's summary line: the last line that counts outcomes (under make sanitize
    # the checker, following the child, prints its own summary after it).
    counted = [line for line in proc.stdout.splitlines()
               if re.search(r"\d+ (passed|skipped|failed|deselected|errors?)", line)]
    summary = counted[-1] if counted else ""
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (passed|skipped|failed|errors?)", summary)}
    return proc, counts


def test_require_gpu_turns_gpu_skips_into_failures(tmp_path):
    proc, counts = run_tiny(tmp_path, "1")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    failed = counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0)
    assert failed == 4 and counts.get("passed") == 1 and counts.get("skipped") == 1, (counts, out)
    assert "MYMODULE_REQUIRE_GPU=1" in out and "somepackage" in out


def test_without_the_switch_the_same_tests_skip(tmp_path):
    proc, counts = run_tiny(tmp_path, "0")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert counts == {"passed": 1, "skipped": 5}, (counts, out)


def test_make_sets_the_switch_where_nvidia_smi_lists_a_gpu(tmp_path):
    """The Makefile asks nvidia-smi, not myModule; a caller's own setting wins."""
    if TEST_INSTALLED:
        pytest.skip("the installed package is under test (make test-wheel: nothing but the venv on PATH); "
                    "the Makefile is the source tree's")
    assert MAKE, "make is not on PATH"
    fake = tmp_path / "nvidia-smi"
    fake.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)'\n")
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "MYMODULE_REQUIRE_GPU"}

    def setting(path_env, *extra):
        proc = subprocess.run([MAKE, "-n", "-C", ROOT, "test-c"] + list(extra), env=path_env,
                              capture_output=True, text=True, timeout=60)
        found = re.findall(r"MYMODULE_REQUIRE_GPU=(\d)", proc.stdout)
        assert found, proc.stdout[-2000:] + proc.stderr[-2000:]
        return found[0]

    with_gpu = dict(env, PATH=str(tmp_path) + os.pathsep + env.get("PATH", ""))
    assert setting(with_gpu) == "1"
    assert setting(with_gpu, "MYMODULE_REQUIRE_GPU=0") == "0"
    failing = tmp_path / "no-gpu"
    failing.mkdir()
    (failing / "nvidia-smi").write_text("#!/bin/sh\necho 'NVIDIA-SMI has failed' >&2\nexit 9\n")
    (failing / "nvidia-smi").chmod(0o755)
    assert setting(dict(env, PATH=str(failing) + os.pathsep + env.get("PATH", ""))) == "0"


@pytest.mark.parametrize("dtype", FLOATS, ids=["float32", "float64"])
def test_ulp_floor_counts_at_the_floor_and_no_further(dtype):
    # ULP of max(|result|, ulp_floor): near 0 an error of ulp ULP of the floor
    # passes and one of twice that does not; at and above the floor the result's
    # own ULP count, as for any op.
    floor, ulp = FLOOR_OP["ulp_floor"], FLOOR_OP["ulp"]
    step = np.spacing(dtype(floor))
    for e in (dtype(1e-3), dtype(-2.5e-4), dtype(0.0)):
        e = np.array([e], dtype)
        test_ops.assert_matches(FLOOR_OP, e + dtype(ulp) * step, e)
        assert refused(test_ops.assert_matches, FLOOR_OP, e + dtype(2 * ulp) * step, e)
    big = np.array([dtype(floor) * 1024], dtype)
    test_ops.assert_matches(FLOOR_OP, big + dtype(ulp) * np.spacing(big), big)
    assert refused(test_ops.assert_matches, FLOOR_OP, big + dtype(2 * ulp) * np.spacing(big), big)


def test_the_complex_comparison_can_fail():
    """assert_complex_match refuses what it must: a part past the bound, a NaN or an
    infinity where NumPy has none, a zero of the other sign where bit-identity is
    declared; and at a floor it admits an ULP of the floor, not more than the bound."""
    e = np.array([1 + 2j, 3 - 4j, 0j], np.complex128)
    assert_complex_match(e.copy(), e, 0)
    for bad in (np.array([1 + 2j, 3 - 4j, complex(-0.0, 0.0)]), np.array([1 + 2j, complex(3, np.nan), 0j]),
                e + np.array([0, 1e-15, 0])):
        with pytest.raises(AssertionError):
            assert_complex_match(bad, e, 0)
    near = e + np.array([3 * np.spacing(2.0), 0, 0])
    assert_complex_match(near, e, 4)
    with pytest.raises(AssertionError):
        assert_complex_match(e + np.array([5 * np.spacing(2.0), 0, 0]), e, 4)
    tiny = np.array([1e-20 + 1e-20j])
    assert_complex_match(tiny + 3 * np.spacing(1.0), tiny, 4, floor=1.0)
    with pytest.raises(AssertionError):
        assert_complex_match(tiny + 3 * np.spacing(1.0), tiny, 4)
    with pytest.raises(AssertionError):
        assert_complex_match(tiny + 5 * np.spacing(1.0), tiny, 4, floor=1.0)
    # bounded: a part past overflow may be inf or NaN, but never non-finite where
    # NumPy's is finite, nor finite where NumPy's is not
    over = np.array([complex(np.inf, 1.0)])
    assert_complex_match(np.array([complex(np.nan, 1.0)]), over, 4)
    for bad, want in ((complex(np.nan, 1.0), complex(2.0, 1.0)), (complex(2.0, 1.0), complex(np.inf, 1.0))):
        with pytest.raises(AssertionError):
            assert_complex_match(np.array([bad]), np.array([want]), 4)
