"""The tests' small programs (tests/*_host.cu, tests/pool_streams.cu) built with nvcc
against vectorAdd's headers, the warnings as errors, and where asked against the newest
built library (build/*/libvectoradd.a). A machine without nvcc, or without a built
library where one is needed, skips the test with the reason."""
import glob
import os
import shutil
import subprocess

import pytest

from conftest import ROOT
from myModule.build import tool_env  # nvcc's host tools where PATH lacks them (make test-wheel)

NVCC = shutil.which("nvcc") or os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"), "bin", "nvcc")
VECTORADD = os.path.join(ROOT, "vectorAdd")


def newest_library():
    """The most recently built libvectoradd.a, or a skip."""
    libraries = glob.glob(os.path.join(ROOT, "build", "*", "libvectoradd.a"))
    if not libraries:
        pytest.skip("no build/*/libvectoradd.a: `make lib` first")
    return max(libraries, key=os.path.getmtime)


def build_program(exe, sources, with_library=False):
    """Compiles sources (paths relative to the repository) into exe; returns exe."""
    if not os.path.exists(NVCC):
        pytest.skip("nvcc not found (CUDA_PATH)")
    command = [NVCC, "-std=c++17", "-O2", "-Xcompiler", "-Wall,-Wextra,-Werror", "-I", VECTORADD]
    command += [os.path.join(ROOT, s) for s in sources]
    if with_library:
        command += [newest_library(), "-ldl", "-lrt", "-lpthread"]
    proc = subprocess.run(command + ["-o", str(exe)], capture_output=True, text=True, env=tool_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return str(exe)
