"""Install what building and testing myModule needs, when it is missing.

Offline machines (no network) that already have the packages pass untouched;
nothing is downloaded unless an import fails.
"""
import importlib
import os
import shutil
import subprocess
import sys

NEEDED = {"numpy": "numpy>=2.0", "setuptools": "setuptools>=64", "wheel": "wheel",
          "pytest": "pytest", "hypothesis": "hypothesis"}


# Oldest versions that will do: NumPy 1.x promotes `int32 array + 2**40` into
# int32 where NumPy 2 (which the GPU path follows) raises, and the extension
# refuses to load under it.
MINIMUM = {"numpy": (2, 0)}


def version_tuple(text):
    parts = []
    for piece in text.split(".")[:2]:
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def missing_packages():
    missing = []
    for module, requirement in NEEDED.items():
        try:
            imported = importlib.import_module(module)
        except ImportError:
            missing.append(requirement)
            continue
        if module in MINIMUM and version_tuple(getattr(imported, "__version__", "0")) < MINIMUM[module]:
            missing.append(requirement)
    return missing


def main():
    cuda = os.environ.get("CUDA_PATH", "/usr/local/cuda")
    if shutil.which(os.path.join(cuda, "bin", "nvcc")) is None:
        print("error: no nvcc at %s/bin: install the CUDA toolkit or set CUDA_PATH" % cuda,
              file=sys.stderr)
        return 1
    if shutil.which("g++") is None:
        print("error: g++ is needed to link the extension", file=sys.stderr)
        return 1
    missing = missing_packages()
    if missing:
        print("installing: " + " ".join(missing))
        subprocess.check_call([sys.executable, "-m", "pip", "install", "-q"] + missing)
    else:
        print("build and test dependencies present")
    return 0


if __name__ == "__main__":
    sys.exit(main())
