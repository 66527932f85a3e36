"""What a user of the installed package relies on beyond the operations: the
version written once, the typing files, help() that points nowhere missing, and
a message that names the problem when there is no NVIDIA driver."""
import ast
import os
import re

import numpy as np
import pytest

import myModule
from conftest import ROOT, requires_no_gpu

PACKAGE = os.path.dirname(os.path.abspath(myModule.__file__))


def test_version_is_pep440_and_written_once():
    assert re.fullmatch(r"\d+\.\d+\.\d+([ab]\d+|rc\d+)?(\.dev\d+)?", myModule.__version__)
    pyproject = os.path.join(ROOT, "pyproject.toml")
    with open(pyproject, encoding="utf-8") as f:
        text = f.read()
    assert not re.search(r"^version\s*=\s*\"", text, re.M), "the version belongs in myModule/__init__.py only"


def test_installed_metadata_matches_the_package():
    from importlib import metadata
    try:
        dist = metadata.distribution("myModule")
    except metadata.PackageNotFoundError:
        pytest.skip("myModule is not installed (an in-place build is under test)")
    if not os.path.samefile(os.path.dirname(str(dist.locate_file("myModule/__init__.py"))), PACKAGE):
        pytest.skip("the installed myModule is not the one under test")
    assert dist.version == myModule.__version__
    assert "MIT" in (dist.metadata.get("License") or "") + " ".join(dist.metadata.get_all("Classifier") or [])


def test_typing_files_ship_with_the_package():
    assert os.path.isfile(os.path.join(PACKAGE, "py.typed"))
    assert os.path.isfile(os.path.join(PACKAGE, "_core.pyi"))


def test_stubs_cover_every_public_name_of_the_core():
    with open(os.path.join(PACKAGE, "_core.pyi"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    stubbed = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    stubbed |= {node.target.id for node in tree.body
                if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)}
    public = {name for name in dir(myModule._core) if not name.startswith("__")}
    # The op table's functions are made at import; the stub's __getattr__ covers them.
    assert "__getattr__" in stubbed
    public -= {op["name"] for op in myModule.ops}
    # The declared array functions' stubs are written from their declarations (_ops.pyi).
    public -= {f["name"] for f in myModule._core._array_functions}
    missing = sorted(public - stubbed)
    assert not missing, "myModule/_core.pyi lacks %s" % ", ".join(missing)


def test_help_points_at_nothing_that_is_not_installed():
    assert "SPEC.md" not in myModule.__doc__
    assert "docs/" not in myModule.__doc__


@requires_no_gpu
def test_without_a_driver_the_message_says_so():
    info = myModule._core._runtime_info()
    if info["driver_version"] != 0 or info["error_name"] != "cudaErrorInsufficientDriver":
        pytest.skip("a driver is installed here (%s): its GPU is unusable for another reason" % info["reason"])
    assert info["reason"].startswith("no NVIDIA driver found")
    assert ">= 580" in info["reason"] or info["runtime_version"] // 1000 != 13
    with pytest.raises(myModule.CudaUnavailableError, match="no NVIDIA driver found"):
        myModule.add(np.ones(2), np.ones(2), device="cuda")


def test_type_checkers_see_every_operation(tmp_path):
    """mypy on a user's script: the functions __init__ adds from the op table are
    declared to type checkers by the generated _ops.pyi."""
    import subprocess
    import sys

    pytest.importorskip("mypy", reason="mypy is not installed (scripts/ensure_deps.py installs it)")
    script = tmp_path / "use.py"
    names = sorted(op["name"] for op in myModule.ops)
    script.write_text("import myModule\n" + "".join("myModule.%s\n" % n for n in names) +
                      "myModule.load\nmyModule.get_include()\n")
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(myModule.__file__)))
    run = subprocess.run([sys.executable, "-m", "mypy", "--ignore-missing-imports", "--no-incremental",
                          str(script)], capture_output=True, text=True, cwd=str(tmp_path),
                         env=dict(os.environ, MYPYPATH=package_parent))
    assert run.returncode == 0, run.stdout + run.stderr
