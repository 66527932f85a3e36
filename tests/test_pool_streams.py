"""The host-side cache of small device blocks (vectorAdd/memory.cu) keeps and hands
out the library stream's blocks alone, so that a block freed on one stream while
work queued there still reads it is never refilled by work on another stream first
(the host pipeline's workers each queue on a stream of their own). tests/pool_streams.cu
holds a kernel on the first stream behind a host flag while the second stream refills
a block of the same size; the kernel must still read the first stream's bytes. It is
built here on every machine (CI too); it runs where there is a GPU."""
import os
import subprocess

import pytest

from conftest import requires_gpu
from host_programs import build_program

PAIRS = ("library-then-worker", "worker-then-library", "worker-then-worker", "library-then-library")


@pytest.fixture(scope="module")
def pool_exe(tmp_path_factory):
    return build_program(tmp_path_factory.mktemp("pool") / "pool_streams", ["tests/pool_streams.cu"],
                         with_library=True)


def test_pool_streams_program_builds(pool_exe):
    assert os.path.exists(pool_exe)


@pytest.mark.gpu
@requires_gpu
def test_a_block_freed_on_one_stream_is_not_refilled_from_another_first(pool_exe):
    run = subprocess.run([pool_exe], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    results = dict(line.split() for line in run.stdout.splitlines())
    assert sorted(results) == sorted(PAIRS), run.stdout
    assert all(r == "ok" for r in results.values()), run.stdout
