"""scripts/gpu_memory_peaks.py (no GPU): from a sampled memory log and the shards'
timelines it names the tests under way when a GPU was fullest; and tests/conftest.py
writes a shard's timeline where MYMODULE_TEST_TIMELINE asks for one."""
import datetime
import importlib.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def peaks():
    spec = importlib.util.spec_from_file_location("gpu_memory_peaks",
                                                  os.path.join(ROOT, "scripts", "gpu_memory_peaks.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


T0 = datetime.datetime(2026, 11, 29, 20, 0, 0)


def stamp(seconds):
    return (T0 + datetime.timedelta(seconds=seconds)).strftime("%Y/%m/%d %H:%M:%S.%f")[:-3]


def epoch(seconds):
    return (T0 + datetime.timedelta(seconds=seconds)).timestamp()


def write_logs(path, memory, timelines):
    """memory: [(seconds, gpu, used MiB)], of 1000 MiB GPUs; timelines: {shard: [(seconds, nodeid)]}."""
    with open(path / "gpu_memory.csv", "w") as f:
        f.write("timestamp, index, memory.used [MiB], memory.total [MiB]\n")  # a header line is skipped
        for seconds, gpu, used in memory:
            f.write("%s, %d, %d, 1000\n" % (stamp(seconds), gpu, used))
        f.write("2026/11/29 20:0")  # the sampler killed mid-line
    for shard, entries in timelines.items():
        with open(path / ("timeline_%d.txt" % shard), "w") as f:
            for seconds, nodeid in entries:
                f.write("%.3f %s\n" % (epoch(seconds), nodeid))


def test_the_fullest_spell_names_each_shards_test_then(peaks, tmp_path):
    memory = [(t, 0, 100) for t in range(10)] + [(10, 0, 950), (11, 0, 990), (12, 0, 940)] + \
             [(t, 0, 100) for t in range(13, 20)] + [(t, 1, 50) for t in range(20)] + [(15, 1, 400)]
    timelines = {
        0: [(0, "tests/a.py::small"), (9.5, "tests/a.py::hog"), (12.5, "tests/a.py::after"), (30, "(end)")],
        1: [(1, "tests/b.py::one"), (10.5, "tests/b.py::oom_victim"), (19, "(end)")],
        2: [(0, "tests/c.py::done"), (5, "(end)")],
    }
    write_logs(tmp_path, memory, timelines)
    lines = peaks.report(str(tmp_path), fraction=0.9, most=4)
    text = "\n".join(lines)
    assert lines[0] == "GPU 0: highest 1.0 of 1.0 GiB used while the shards ran", text
    # one spell on GPU 0 (10-12 s), at its peak (11 s): shard 0's hog, shard 1's victim,
    # nothing of shard 2, which had ended
    assert "at 20:00:11.000 (2.0 s at that level)" in lines[1], text
    assert lines[2:4] == ["    shard 0: tests/a.py::hog", "    shard 1: tests/b.py::oom_victim"], text
    # GPU 1 never reaches 90%: its highest samples stand in
    gpu1 = lines.index("GPU 1: highest 0.4 of 1.0 GiB used while the shards ran")
    assert "at 20:00:15.000" in lines[gpu1 + 1], text
    assert lines[gpu1 + 2:] == ["    shard 0: tests/a.py::after", "    shard 1: tests/b.py::oom_victim"], text
    assert not any("shard 2" in line for line in lines), text


def test_spells_are_separate_runs_highest_first(peaks):
    samples = [(0, 0, 10, 100), (1, 0, 95, 100), (2, 0, 10, 100), (3, 0, 99, 100), (4, 0, 97, 100),
               (5, 0, 10, 100)]
    found = peaks.spells(samples, 0.9, 4)
    assert [(s[0][2], s[1], s[2]) for s in found] == [(99, 3, 4), (95, 1, 1)]
    assert peaks.spells(samples, 0.9, 1) == found[:1]
    assert peaks.spells([], 0.9, 4) == []


def test_no_samples_says_so(peaks, tmp_path):
    (tmp_path / "gpu_memory.csv").write_text("")
    assert peaks.report(str(tmp_path)) == [
        "GPU memory: no samples (nvidia-smi missing or the sampler did not run)"]
    (tmp_path / "gpu_memory.csv").unlink()
    assert peaks.main([str(tmp_path)]) == 0


def test_a_shard_writes_its_timeline(tmp_path):
    """tests/conftest.py appends `time nodeid` as each test starts, `(end)` last."""
    timeline = tmp_path / "timeline_0.txt"
    env = dict(os.environ, MYMODULE_TEST_TIMELINE=str(timeline))
    env.pop("MYMODULE_TEST_SHARD", None)
    target = "tests/test_gpu_memory_peaks.py::test_spells_are_separate_runs_highest_first"
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", target,
                          "tests/test_gpu_memory_peaks.py::test_no_samples_says_so"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = timeline.read_text().splitlines()
    ids = [line.partition(" ")[2] for line in lines]
    assert ids == [target, "tests/test_gpu_memory_peaks.py::test_no_samples_says_so", "(end)"], lines
    times = [float(line.partition(" ")[0]) for line in lines]
    assert times == sorted(times)
