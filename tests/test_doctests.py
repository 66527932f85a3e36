"""The examples in the docstrings and in the user guide (docs/*.rst) run as
doctests, against the myModule under test (the in-place build, or the installed
package with MYMODULE_TEST_INSTALLED=1).

An example marked ``# doctest: +GPU`` needs a usable GPU: without one it is
skipped (the test reports how many were), never passed silently.
"""
import doctest
import glob
import importlib
import io
import os

import pytest

import myModule
from conftest import HAS_GPU, NO_GPU_REASON, ROOT

GPU = doctest.register_optionflag("GPU")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

MODULES = ["myModule", "myModule._core", "myModule._config", "myModule._errors"]
GUIDE_PAGES = sorted(glob.glob(os.path.join(ROOT, "docs", "*.rst")))


def _run(tests):
    """Runs the doctests; returns (examples run, GPU examples skipped, report)."""
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    skipped = 0
    for test in tests:
        for example in test.examples:
            if example.options.get(GPU) and not HAS_GPU:
                example.options[doctest.SKIP] = True
                skipped += 1
        runner.run(test, out=out.write)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, out.getvalue()
    return results.attempted, skipped


def _report(attempted, skipped):
    if attempted == 0 and skipped:
        pytest.skip("%d example(s) need a GPU: %s" % (skipped, NO_GPU_REASON))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    tests = doctest.DocTestFinder().find(module, name, globs={"myModule": myModule})
    _report(*_run(tests))


@pytest.mark.parametrize("path", GUIDE_PAGES, ids=[os.path.basename(p) for p in GUIDE_PAGES])
def test_user_guide_examples(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    test = doctest.DocTestParser().get_doctest(text, {}, os.path.basename(path), path, 0)
    _report(*_run([test]))


def test_the_gpu_flag_skips_only_without_a_gpu():
    parser = doctest.DocTestParser()
    test = parser.get_doctest(">>> 1 + 1  # doctest: +GPU\n2\n", {}, "flag", None, 0)
    attempted, skipped = _run([test])
    assert (attempted, skipped) == ((1, 0) if HAS_GPU else (0, 1))
