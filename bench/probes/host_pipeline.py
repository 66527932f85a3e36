"""Probe: the host pipeline (issue 13) on GPU 0 alone and on all GPUs, under a few
settings of its knobs, each in a fresh process. Per setting: add of two host
float64 arrays into a pinned out= and sum of one, n elements, device="cuda", the
four cases timed in turn round after round (so that none of them gets a quieter
moment of the machine than another), median and best of the rounds. With --trace
the last round runs with MYMODULE_PIPELINE_TRACE=1 and its per-stage lines are
printed under the table (thread start, staging memcpy, slot waits, enqueue, drain;
the split among GPUs).

The knobs (read once per process): MYMODULE_CHUNK_BYTES (pipeline buffer, 4 MiB),
MYMODULE_STAGE_BLOCK_BYTES (the staging memcpy in pieces: 0 = one memcpy a chunk),
MYMODULE_HOST_WORKERS (worker threads a GPU: half the CPUs, at most 12),
MYMODULE_STAGE_COPY=stream or =memcpy (the staging copy with non-temporal stores, or a memcpy;
the default is non-temporal only where a call's staging ring outgrows the last-level cache),
MYMODULE_BIND_WORKERS=1 (worker threads bound to the CPUs local to their GPU),
MYMODULE_PERSISTENT_WORKERS=0 (worker threads started by every call, not kept between calls),
MYMODULE_STAGE_SLOTS (chunks a worker keeps in flight: 2, at most 4).

Run on the GPU machine:
    python3 bench/probes/host_pipeline.py --n 1e8 --trace
    python3 bench/probes/host_pipeline.py --n 1e9 --rounds 3 --configs default,chunk1m
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

MiB = 1 << 20
CONFIGS = {
    "default": {},
    "chunk1m": {"MYMODULE_CHUNK_BYTES": str(MiB)},
    "chunk16m": {"MYMODULE_CHUNK_BYTES": str(16 * MiB)},
    # Session 26, an H200 host (16 CPUs, L3 300 MiB): chunk sizes between.
    "chunk2m": {"MYMODULE_CHUNK_BYTES": str(2 * MiB)},
    "chunk1536k": {"MYMODULE_CHUNK_BYTES": str(3 * MiB // 2)},
    "chunk3m": {"MYMODULE_CHUNK_BYTES": str(3 * MiB)},
    "chunk6m": {"MYMODULE_CHUNK_BYTES": str(6 * MiB)},
    "chunk8m": {"MYMODULE_CHUNK_BYTES": str(8 * MiB)},
    "block256k": {"MYMODULE_STAGE_BLOCK_BYTES": str(256 << 10)},
    "chunk1m+block256k": {"MYMODULE_CHUNK_BYTES": str(MiB),
                          "MYMODULE_STAGE_BLOCK_BYTES": str(256 << 10)},
    "workers4": {"MYMODULE_HOST_WORKERS": "4"},
    "workers16": {"MYMODULE_HOST_WORKERS": "16"},
    "workers12": {"MYMODULE_HOST_WORKERS": "12"},
    # Session 40, a 32-CPU two-H200 host: fewer workers (and so larger chunks by the
    # rule) for add on one GPU, where 12 read 0.92-0.93x of the bound.
    "workers8": {"MYMODULE_HOST_WORKERS": "8"},
    "workers10": {"MYMODULE_HOST_WORKERS": "10"},
    "workers8+chunk3m": {"MYMODULE_HOST_WORKERS": "8", "MYMODULE_CHUNK_BYTES": str(3 * MiB)},
    "stream": {"MYMODULE_STAGE_COPY": "stream"},
    "memcpy": {"MYMODULE_STAGE_COPY": "memcpy"},
    "stream+workers16": {"MYMODULE_STAGE_COPY": "stream", "MYMODULE_HOST_WORKERS": "16"},
    "workers16+chunk16m": {"MYMODULE_HOST_WORKERS": "16", "MYMODULE_CHUNK_BYTES": str(16 * MiB)},
    "bind": {"MYMODULE_BIND_WORKERS": "1"},
    # Chunks a worker keeps in flight (session 25): its slots.
    "slots3": {"MYMODULE_STAGE_SLOTS": "3"},
    "slots4": {"MYMODULE_STAGE_SLOTS": "4"},
    "slots3+chunk2m": {"MYMODULE_STAGE_SLOTS": "3", "MYMODULE_CHUNK_BYTES": str(2 * MiB)},
    # A staging ring small enough to stay in the CPU's last-level cache (session 21):
    # ordinary stores, so the DMA engine may read the staged lines from the cache.
    "memcpy+chunk1m": {"MYMODULE_STAGE_COPY": "memcpy", "MYMODULE_CHUNK_BYTES": str(MiB)},
    "memcpy+chunk512k": {"MYMODULE_STAGE_COPY": "memcpy", "MYMODULE_CHUNK_BYTES": str(MiB // 2)},
    "memcpy+chunk256k": {"MYMODULE_STAGE_COPY": "memcpy", "MYMODULE_CHUNK_BYTES": str(MiB // 4)},
    "memcpy+chunk1m+workers12": {"MYMODULE_STAGE_COPY": "memcpy", "MYMODULE_CHUNK_BYTES": str(MiB),
                                 "MYMODULE_HOST_WORKERS": "12"},
    "memcpy+chunk2m": {"MYMODULE_STAGE_COPY": "memcpy", "MYMODULE_CHUNK_BYTES": str(2 * MiB)},
    "memcpy+chunk2m+workers12": {"MYMODULE_STAGE_COPY": "memcpy", "MYMODULE_CHUNK_BYTES": str(2 * MiB),
                                 "MYMODULE_HOST_WORKERS": "12"},
    "memcpy+workers12": {"MYMODULE_STAGE_COPY": "memcpy", "MYMODULE_HOST_WORKERS": "12"},
    # Session 28, the two-H200 host (32 CPUs, L3 300 MiB): the copy against the ring's size.
    "memcpy+workers8": {"MYMODULE_STAGE_COPY": "memcpy", "MYMODULE_HOST_WORKERS": "8"},
    "memcpy+workers16": {"MYMODULE_STAGE_COPY": "memcpy", "MYMODULE_HOST_WORKERS": "16"},
    "memcpy+slots3": {"MYMODULE_STAGE_COPY": "memcpy", "MYMODULE_STAGE_SLOTS": "3"},
    "memcpy+chunk4m": {"MYMODULE_STAGE_COPY": "memcpy", "MYMODULE_CHUNK_BYTES": str(4 * MiB)},
    "stream+chunk4m": {"MYMODULE_STAGE_COPY": "stream", "MYMODULE_CHUNK_BYTES": str(4 * MiB)},
    "memcpy+chunk1m+workers16": {"MYMODULE_STAGE_COPY": "memcpy", "MYMODULE_CHUNK_BYTES": str(MiB),
                                 "MYMODULE_HOST_WORKERS": "16"},
    # Session 29, an H200 host (16 CPUs): sum's copies made larger with the ring kept
    # (one slot a worker of twice the bytes).
    "slots1+chunk8m": {"MYMODULE_STAGE_SLOTS": "1", "MYMODULE_CHUNK_BYTES": str(8 * MiB)},
    "slots1+chunk6m": {"MYMODULE_STAGE_SLOTS": "1", "MYMODULE_CHUNK_BYTES": str(6 * MiB)},
    # Session 30: worker threads kept from call to call rather than started per call
    # (the default since session 31; "new" is the earlier way).
    "kept": {"MYMODULE_PERSISTENT_WORKERS": "1"},
    "new": {"MYMODULE_PERSISTENT_WORKERS": "0"},
}
CASES = ("add 1 GPU", "add all", "sum 1 GPU", "sum all")
BYTES_PER_ELEMENT = {"add": 24, "sum": 8}  # add: 16 up, 8 down; sum: 8 up


def child(n, rounds, trace):
    import numpy as np

    import myModule as mm

    a = np.arange(n, dtype=np.float64)
    b = np.full(n, 0.5)
    out = mm.add(a, b, device="cuda")  # a pinned array of the library's
    every = list(range(mm.device_count()))

    def case(name):
        gpus = [0] if name.endswith("1 GPU") else every
        if name.startswith("add"):
            return lambda: (mm.set_devices(gpus), mm.add(a, b, out=out, device="cuda"))[1]
        return lambda: (mm.set_devices(gpus), mm.sum(a, device="cuda"))[1]

    calls = {name: case(name) for name in CASES}
    for call in calls.values():  # warm-up: every pipeline, pool and thread
        call()
        call()
    sums = {name: calls[name]() for name in ("sum 1 GPU", "sum all")}
    times = {name: [] for name in CASES}
    for r in range(rounds):
        last = r == rounds - 1
        for name in CASES:
            if last and trace:
                sys.stderr.write("=== %s\n" % name)
                sys.stderr.flush()
            t0 = time.perf_counter()
            calls[name]()
            times[name].append(time.perf_counter() - t0)
    mm.set_devices(None)
    print(json.dumps({"times": times, "gpus": len(every), "cpus": os.cpu_count(),
                      "sum_identical": bool(sums["sum 1 GPU"] == sums["sum all"]),
                      "add_correct": bool(out[-1] == a[-1] + 0.5)}))


def run_config(name, env_extra, args):
    env = dict(os.environ)
    env.update(env_extra)
    if args.trace:
        env["MYMODULE_PIPELINE_TRACE"] = "1"
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--n", str(args.n),
           "--rounds", str(args.rounds)] + (["--trace"] if args.trace else [])
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        return None, "exit %d: %s" % (done.returncode, done.stderr.strip()[-2000:])
    result = json.loads(done.stdout.strip().splitlines()[-1])
    # The trace of the last round only: what follows the first marker of it.
    lines = done.stderr.splitlines()
    first = next((i for i, line in enumerate(lines) if line.startswith("=== ")), len(lines))
    return result, "\n".join(lines[first:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=float, default=1e8)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--configs", default="default,chunk1m,chunk16m,block256k,chunk1m+block256k,"
                                         "workers4,workers16,bind")
    ap.add_argument("--trace", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.n = int(args.n)
    if args.child:
        child(args.n, args.rounds, args.trace)
        return
    print("n = %d float64, %d rounds, median (best) ms and GB/s of the median; "
          "add: 24 B/element, sum: 8" % (args.n, args.rounds))
    header = "%-20s" % "setting" + "".join("%-28s" % c for c in CASES) + "all/1 add  all/1 sum"
    print(header)
    traces = []
    for name in args.configs.split(","):
        result, text = run_config(name, CONFIGS[name], args)
        if result is None:
            print("%-20s failed: %s" % (name, text))
            continue
        row, medians = "%-20s" % name, {}
        for case in CASES:
            t = result["times"][case]
            med = statistics.median(t)
            medians[case] = med
            gbs = BYTES_PER_ELEMENT[case.split()[0]] * args.n / med / 1e9
            row += "%-28s" % ("%.1f (%.1f) %.1f GB/s" % (med * 1e3, min(t) * 1e3, gbs))
        row += "%-11s%s" % ("%.2fx" % (medians["add 1 GPU"] / medians["add all"]),
                            "%.2fx" % (medians["sum 1 GPU"] / medians["sum all"]))
        if not result["sum_identical"] or not result["add_correct"]:
            row += "  WRONG: sum identical %s, add correct %s" % (result["sum_identical"],
                                                                 result["add_correct"])
        print(row)
        if text:
            traces.append("--- %s (%d GPUs, %d CPUs)\n%s" % (name, result["gpus"], result["cpus"], text))
    for t in traces:
        print(t)


if __name__ == "__main__":
    main()
