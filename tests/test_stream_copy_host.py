"""The pipeline's staging copy with non-temporal stores (vectorAdd/stream_copy.cu)
against memcpy, on the CPU: every misalignment of source and destination, sizes
around its 16-byte head and 64-byte body, nothing written outside the
destination. The GPU tests of host data (test_multi_gpu.py, test_elementwise.py)
run it inside the pipeline."""
import os
import shutil
import subprocess

import pytest

from conftest import ROOT
from myModule.build import tool_env

NVCC = shutil.which("nvcc") or os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"), "bin", "nvcc")


def test_stream_copy_matches_memcpy(tmp_path):
    if not os.path.exists(NVCC):
        pytest.skip("nvcc not found (CUDA_PATH)")
    exe = str(tmp_path / "stream_copy_host")
    vec = os.path.join(ROOT, "vectorAdd")
    proc = subprocess.run([NVCC, "-std=c++17", "-O2", "-Xcompiler", "-Wall,-Wextra,-Werror", "-I", vec,
                           os.path.join(ROOT, "tests", "stream_copy_host.cu"), os.path.join(vec, "stream_copy.cu"),
                           "-o", exe], capture_output=True, text=True, env=tool_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = subprocess.run([exe], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
