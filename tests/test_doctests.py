"""The examples in the docstrings and in the user guide (docs/*.rst) run as
doctests, against the myModule under test (the in-place build, or the installed
package with MYMODULE_TEST_INSTALLED=1).

An example marked ``# doctest: +GPU`` needs a usable GPU. Each source is run
twice: "cpu" runs every example but those (they are what a machine without a GPU
shows), "gpu" runs them all and is skipped, with the reason, without a GPU.
"""
import doctest
import glob
import importlib
import io
import os

import pytest

import myModule
from conftest import GPU_MARKS, ROOT

GPU = doctest.register_optionflag("GPU")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

MODULES = ["myModule", "myModule._core", "myModule._config", "myModule._errors"]
GUIDE_PAGES = sorted(glob.glob(os.path.join(ROOT, "docs", "*.rst")))
MODES = ["cpu", pytest.param("gpu", marks=GPU_MARKS)]


def _run(tests, mode):
    """Runs the doctests (without the +GPU examples in "cpu" mode); fails with
    the doctest report. Returns (examples run, +GPU examples among all)."""
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    gpu_examples = 0
    for test in tests:
        for example in test.examples:
            if example.options.get(GPU):
                gpu_examples += 1
                if mode == "cpu":
                    example.options[doctest.SKIP] = True
        runner.run(test, out=out.write)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, out.getvalue()
    return results.attempted, gpu_examples


def _check(tests, mode):
    attempted, gpu_examples = _run(tests, mode)
    if mode == "gpu" and gpu_examples == 0:
        pytest.skip("no example here needs a GPU (the cpu run covered them all)")
    if attempted == 0:
        pytest.skip("every example here needs a GPU" if gpu_examples else "no examples here")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, mode):
    module = importlib.import_module(name)
    _check(doctest.DocTestFinder().find(module, name, globs={"myModule": myModule}), mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", GUIDE_PAGES, ids=[os.path.basename(p) for p in GUIDE_PAGES])
def test_user_guide_examples(path, mode):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    _check([doctest.DocTestParser().get_doctest(text, {}, os.path.basename(path), path, 0)], mode)


def test_the_gpu_flag_is_skipped_in_cpu_mode_only():
    parser = doctest.DocTestParser()
    make = lambda: parser.get_doctest(">>> 1 + 1  # doctest: +GPU\n2\n>>> 2\n2\n", {}, "flag", None, 0)
    assert _run([make()], "cpu") == (1, 1)
    assert _run([make()], "gpu") == (2, 1)
