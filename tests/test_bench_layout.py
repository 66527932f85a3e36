"""bench/'s layout (issue 24): the harness (bench/harness/) imports no row module and not
bench/run.py, no module under bench/ reaches back into run.py, and run.py, the command
line, starts."""
import ast
import glob
import os
import subprocess
import sys

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench")
BENCH_MODULES = {os.path.basename(p)[:-3] for p in glob.glob(os.path.join(BENCH, "*.py"))}


def imported(path):
    """The top-level names of the modules a file imports (relative imports left out)."""
    names = set()
    for node in ast.walk(ast.parse(open(path).read())):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_the_harness_imports_no_row_module_and_not_run_py():
    for path in glob.glob(os.path.join(BENCH, "harness", "*.py")):
        assert not imported(path) & BENCH_MODULES, path


def test_no_bench_module_reaches_into_run_py():
    for path in glob.glob(os.path.join(BENCH, "*.py")) + glob.glob(os.path.join(BENCH, "harness", "*.py")):
        assert "run" not in imported(path), path
        assert "sys.modules" not in open(path).read(), path


def test_the_command_line_starts():
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "run.py"), "--help"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for option in ("--quick", "--out", "--filter", "--no-sweep"):
        assert option in proc.stdout
