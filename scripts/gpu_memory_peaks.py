"""Which tests were running when a GPU shared by the test shards filled up.

scripts/gpu_suite.sh samples every GPU's used memory while its shards run
(LOGS/gpu_memory.csv: nvidia-smi's `timestamp, index, memory.used, memory.total`,
MiB) and has each shard write its tests' start times (LOGS/timeline_I.txt, from
tests/conftest.py's MYMODULE_TEST_TIMELINE: `epoch-seconds nodeid` a line, `(end)`
last). This prints, for each GPU, its busiest spells (samples at or above a
fraction of its memory, or its highest samples where none reach it) and the test
each shard had under way then. A test named in several spells of several runs is
the one that holds the memory.

Usage: python3 scripts/gpu_memory_peaks.py LOGS [--fraction 0.9] [--spells 4]
"""
import argparse
import datetime
import glob
import os
import re
import sys


def read_samples(path):
    """[(epoch seconds, gpu index, used MiB, total MiB)] from nvidia-smi's CSV."""
    samples = []
    if not os.path.exists(path):
        return samples
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) != 4:
                continue
            try:
                when = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
                samples.append((when, int(parts[1]), int(parts[2]), int(parts[3])))
            except ValueError:
                continue  # a header or a line cut by the sampler's end
    return sorted(samples)


def read_timelines(logs):
    """{shard: [(epoch seconds, nodeid)]} from LOGS/timeline_I.txt, in time order."""
    timelines = {}
    for path in glob.glob(os.path.join(logs, "timeline_*.txt")):
        shard = int(re.search(r"timeline_(\d+)\.txt$", path).group(1))
        entries = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                when, _, nodeid = line.rstrip("\n").partition(" ")
                try:
                    entries.append((float(when), nodeid))
                except ValueError:
                    continue
        timelines[shard] = sorted(entries)
    return timelines


def running_at(entries, when):
    """The test a shard had started last at `when` (None before its first, or after its end)."""
    current = None
    for start, nodeid in entries:
        if start > when:
            break
        current = nodeid
    return None if current == "(end)" else current


def spells(samples, fraction, most):
    """A GPU's busiest spells: runs of consecutive samples at or above `fraction` of
    its memory (or, where none reach it, at or above its highest sample less 5%),
    the `most` highest first, each as (peak sample, first time, last time)."""
    if not samples:
        return []
    total = samples[0][3]
    threshold = fraction * total
    if all(s[2] < threshold for s in samples):
        threshold = max(s[2] for s in samples) * 0.95
    found, run = [], []
    for s in samples + [None]:
        if s is not None and s[2] >= threshold:
            run.append(s)
            continue
        if run:
            found.append((max(run, key=lambda r: r[2]), run[0][0], run[-1][0]))
            run = []
    found.sort(key=lambda spell: -spell[0][2])
    return found[:most]


def report(logs, fraction=0.9, most=4):
    lines = []
    samples = read_samples(os.path.join(logs, "gpu_memory.csv"))
    timelines = read_timelines(logs)
    if not samples:
        return ["GPU memory: no samples (nvidia-smi missing or the sampler did not run)"]
    for gpu in sorted({s[1] for s in samples}):
        mine = [s for s in samples if s[1] == gpu]
        total = mine[0][3]
        peak = max(s[2] for s in mine)
        lines.append("GPU %d: highest %.1f of %.1f GiB used while the shards ran" % (gpu, peak / 1024, total / 1024))
        for (when, _, used, _), first, last in spells(mine, fraction, most):
            stamp = datetime.datetime.fromtimestamp(when).strftime("%H:%M:%S.%f")[:-3]
            lines.append("  %.1f GiB at %s (%.1f s at that level); under way then:" %
                         (used / 1024, stamp, last - first))
            for shard in sorted(timelines):
                test = running_at(timelines[shard], when)
                if test is not None:
                    lines.append("    shard %d: %s" % (shard, test))
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs")
    ap.add_argument("--fraction", type=float, default=0.9)
    ap.add_argument("--spells", type=int, default=4)
    args = ap.parse_args(argv)
    print("\n".join(report(args.logs, args.fraction, args.spells)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
