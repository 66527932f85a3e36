"""The host-side cache of small device blocks (vectorAdd/small_block_cache.cuh) on the
CPU alone: tests/small_block_cache_host.cu runs 200000 random takes and keeps against a
plain model (the block of a class kept last comes out first; a full cache gives back its
oldest blocks until a new one fits; a block past its bounds is declined), then a cache
full of 4096 other classes under a loop of one new size, which gives back one block and
then reuses the same one. The GPU tests (tests/test.c's cache case, test_leaks.py) run
it inside the allocator."""
import subprocess

from host_programs import build_program


def test_small_block_cache_matches_its_model(tmp_path):
    exe = build_program(tmp_path / "small_block_cache_host", ["tests/small_block_cache_host.cu"])
    run = subprocess.run([exe], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stdout + run.stderr
