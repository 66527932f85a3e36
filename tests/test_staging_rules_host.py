"""The host pipeline's staging rules, computed by the library on the CPU (no GPU),
against this file's own reading of the CPU's cache and of the knobs it sets
(docs/SPEC.md, the host pipeline): the copy a call's staging ring gets
(non-temporal only where the ring outgrows the last-level cache), the elementwise
chunk for 1 to 4 GPUs staging at once (their rings within a quarter of the cache,
1 to 4 MiB in steps of 512 KiB), the workers a reduction takes (at most 8 unless
MYMODULE_HOST_WORKERS is set) and those an elementwise call takes (at most 8 on one
GPU, all where several GPUs stage at once or MYMODULE_HOST_WORKERS is set). The GPU tests (test_multi_gpu.py) check the same
rules through the pipeline's trace."""
import os
import subprocess

import pytest

from host_programs import build_program
from test_multi_gpu import (elementwise_chunk_oracle, elementwise_workers_oracle, last_level_cache_bytes,
                            staging_is_non_temporal)

MiB = 1 << 20
KNOBS = ("MYMODULE_HOST_WORKERS", "MYMODULE_STAGE_SLOTS", "MYMODULE_STAGE_COPY",
         "MYMODULE_STAGE_BLOCK_BYTES", "MYMODULE_CHUNK_BYTES")
SETTINGS = {
    "12 workers": {"MYMODULE_HOST_WORKERS": "12"},
    "8 workers, 4 slots": {"MYMODULE_HOST_WORKERS": "8", "MYMODULE_STAGE_SLOTS": "4"},
    "1 worker, 1 slot": {"MYMODULE_HOST_WORKERS": "1", "MYMODULE_STAGE_SLOTS": "1"},
    "16 workers": {"MYMODULE_HOST_WORKERS": "16"},
    "workers by the CPUs": {},
    "non-temporal asked": {"MYMODULE_HOST_WORKERS": "12", "MYMODULE_STAGE_COPY": "stream"},
    "memcpy asked": {"MYMODULE_HOST_WORKERS": "12", "MYMODULE_STAGE_COPY": "memcpy"},
    "memcpy in pieces, non-temporal asked": {"MYMODULE_STAGE_COPY": "stream",
                                             "MYMODULE_STAGE_BLOCK_BYTES": "65536"},
    "3 MiB chunks asked": {"MYMODULE_HOST_WORKERS": "12", "MYMODULE_CHUNK_BYTES": str(3 * MiB)},
}


@pytest.fixture(scope="module")
def rules_exe(tmp_path_factory):
    return build_program(tmp_path_factory.mktemp("rules") / "staging_rules_host",
                         ["tests/staging_rules_host.cu"], with_library=True)


def run_rules(exe, knobs):
    env = {k: v for k, v in os.environ.items() if k not in KNOBS}
    env.update(knobs)
    run = subprocess.run([exe], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = [line.split() for line in run.stdout.splitlines()]
    return {tuple(row[:-1]): int(row[-1]) for row in rows}


@pytest.mark.parametrize("knobs", list(SETTINGS.values()), ids=list(SETTINGS))
def test_staging_rules_follow_the_cache_and_the_knobs(rules_exe, knobs):
    got = run_rules(rules_exe, knobs)
    cache = last_level_cache_bytes()
    assert got[("cache",)] == cache, got[("cache",)]
    slots = int(knobs.get("MYMODULE_STAGE_SLOTS", 2))
    asked_workers = int(knobs.get("MYMODULE_HOST_WORKERS", 0))
    copy = knobs.get("MYMODULE_STAGE_COPY")
    for key, value in got.items():
        if key[0] == "stream":
            sharing, w, staged = map(int, key[1:])
            if "MYMODULE_STAGE_BLOCK_BYTES" in knobs:
                want = 0  # a memcpy in pieces was asked
            elif copy is not None:
                want = int(copy == "stream")
            else:
                want = int(staging_is_non_temporal(cache, sharing * w * slots * staged))
            assert value == want, (key, value, cache, knobs)
        elif key[0] == "chunk":
            sharing, w = int(key[1]), int(key[2])
            if "MYMODULE_CHUNK_BYTES" in knobs:
                want = int(knobs["MYMODULE_CHUNK_BYTES"])
            else:
                want = elementwise_chunk_oracle(cache, sharing, w, slots)
            assert value == want, (key, value, cache, knobs)
        elif key[0] == "reduce":
            w = int(key[1])
            assert value == (w if asked_workers else min(w, 8)), (key, value, knobs)
        elif key[0] == "elementwise":
            sharing, w = int(key[1]), int(key[2])
            assert value == elementwise_workers_oracle(w, sharing, bool(asked_workers)), (key, value, knobs)
    # Every rule was printed: 48 rings, 16 chunk sizes, 4 + 16 worker counts and the cache.
    assert len(got) == 48 + 16 + 4 + 16 + 1, sorted(got)


def test_a_larger_ring_never_turns_the_copy_back_to_memcpy(rules_exe):
    """Monotone in every factor: once a ring outgrows the cache, larger ones do too."""
    got = run_rules(rules_exe, {"MYMODULE_HOST_WORKERS": "12"})
    rings = sorted((s * w * b, v) for (kind, *rest), v in got.items() if kind == "stream"
                   for s, w, b in [map(int, rest)])
    values = [v for _, v in rings]
    assert values == sorted(values), rings
