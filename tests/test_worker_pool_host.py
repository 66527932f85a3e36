"""The host pipeline's kept worker threads (the default; MYMODULE_PERSISTENT_WORKERS=0
starts them in every call instead; vectorAdd/worker_pool.cuh) on the CPU alone:
tests/worker_pool_host.cu runs the pool through 2000 runs of 1 to 8 tasks and checks
that each task runs once, on a thread of its own, that a run returns after all of them,
and that a run the pool cannot serve (more tasks than threads, a forked child) is
declined with nothing run. The GPU tests (test_multi_gpu.py) run the pipeline both
ways."""
import subprocess

import pytest

from host_programs import build_program


@pytest.fixture(scope="module")
def pool_exe(tmp_path_factory):
    return build_program(tmp_path_factory.mktemp("pool") / "worker_pool_host",
                         ["tests/worker_pool_host.cu"], with_library=True)


def test_kept_worker_threads_run_each_task_once_and_decline_what_they_cannot(pool_exe):
    run = subprocess.run([pool_exe], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stdout + run.stderr
