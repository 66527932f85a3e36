"""The pipeline's staging copy with non-temporal stores (vectorAdd/stream_copy.cu)
against memcpy, on the CPU: every misalignment of source and destination, sizes
around its 16-byte head and 64-byte body, nothing written outside the
destination. The GPU tests of host data (test_multi_gpu.py, test_elementwise.py)
run it inside the pipeline."""
import subprocess

from host_programs import build_program


def test_stream_copy_matches_memcpy(tmp_path):
    exe = build_program(tmp_path / "stream_copy_host", ["tests/stream_copy_host.cu", "vectorAdd/stream_copy.cu"])
    run = subprocess.run([exe], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
