"""The C floors of small calls, measured in the same run as the rows held to them:
bench/probes/launch_floor.cu (host clock per call) compiled with nvcc for the GPUs
present. Two floors: an empty kernel + cudaStreamSynchronize (the n = 1 rows) and a
kernel + an 8-byte copy into pinned memory + synchronize (a reduction returned as a
Python float). The rows' targets are ratios to these figures (bench/TARGETS.md),
never absolute times.

Two ways of timing them, both kept:
  * the probe as a program of its own, run once before the rows: each floor is a row
    of the table (informational);
  * the probe as a shared library loaded here (InProcess): a round of the floor's
    calls, timed in C, before each repeat of a row held to it and after the last
    (harness/timing.py, `paired`). The row's ratio divides by the median of those
    rounds. The floor moves by up to 10% between runs a minute apart on one host
    (bench/NOTES.md, sessions 24-32); rounds beside the row's own take that drift
    out of the ratio.
"""
import ctypes
import json
import os
import subprocess

from harness.table import fmt_time

PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "probes", "launch_floor.cu")


def compile_command(nvcc, out_path, shared=False):
    """nvcc for the GPUs of this machine (-arch=native): no PTX JIT in the timing.
    shared: the probe as a library (launch_floor_round), for InProcess."""
    library = ["-shared", "-Xcompiler", "-fPIC"] if shared else []
    return [nvcc, "-O3", "-std=c++17", "-arch=native"] + library + [PROBE, "-o", out_path]


def parse(stdout):
    """The probe's last JSON line, as a dict with 'status'."""
    lines = [line for line in stdout.strip().splitlines() if line.startswith("{")]
    if not lines:
        return {"status": "error", "why": "no JSON from the probe"}
    res = json.loads(lines[-1])
    if res.get("status") == "ok" and not (res.get("median_s", 0) > 0 and res.get("scalar_median_s", 0) > 0):
        return {"status": "error", "why": "a non-positive floor: %r" % (res,)}
    return res


def measure(cuda_path, build_dir, has_gpu):
    """{'status': 'ok', 'median_s': ...} or {'status': 'skipped'|'error', 'why': ...};
    with 'library', the probe built as a shared library, where that build worked."""
    if not has_gpu:
        return {"status": "skipped", "why": "no GPU"}
    nvcc = os.path.join(cuda_path, "bin", "nvcc")
    if not os.path.exists(nvcc):
        return {"status": "error", "why": "no nvcc at %s (CUDA_PATH)" % nvcc}
    os.makedirs(build_dir, exist_ok=True)
    exe = os.path.join(build_dir, "launch_floor")
    try:
        proc = subprocess.run(compile_command(nvcc, exe), capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            return {"status": "error", "why": "nvcc: " + (proc.stderr.strip().splitlines() or ["rc %d" % proc.returncode])[-1]}
        proc = subprocess.run([exe], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"status": "error", "why": "%s: %s" % (exc.__class__.__name__, exc)}
    res = parse(proc.stdout)
    if proc.returncode != 0 and res.get("status") == "ok":
        res = {"status": "error", "why": "rc %d" % proc.returncode}
    if res.get("status") == "ok":
        library = os.path.join(build_dir, "launch_floor.so")
        try:
            built = subprocess.run(compile_command(nvcc, library, shared=True), capture_output=True,
                                   text=True, timeout=300)
            if built.returncode == 0:
                res["library"] = library
        except (OSError, subprocess.TimeoutExpired):
            pass
    return res


class InProcess:
    """The floors timed in this process: round(ref, calls) runs `calls` calls of the
    floor named by ref ('launch-floor' or 'scalar-floor') in C and returns seconds a
    call."""
    KINDS = {"launch-floor": 0, "scalar-floor": 1}

    def __init__(self, library):
        self.lib = ctypes.CDLL(library)
        self.lib.launch_floor_round.restype = ctypes.c_double
        self.lib.launch_floor_round.argtypes = [ctypes.c_int, ctypes.c_int]

    def round(self, ref, calls):
        seconds = self.lib.launch_floor_round(self.KINDS[ref], int(calls))
        if not seconds > 0:
            raise RuntimeError("the C floor's round failed: CUDA error %d" % int(-seconds))
        return seconds


def in_process(floor):
    """An InProcess for a measured floor with its library, else None."""
    if floor.get("status") != "ok" or not floor.get("library"):
        return None
    try:
        return InProcess(floor["library"])
    except OSError:
        return None


def rows(floor):
    """The C floors themselves (informational: the small rows' targets divide by them)."""
    ok = floor.get("status") == "ok"
    out = []
    for key, case, serves in (
            ("median_s", "C floor: empty kernel launch + cudaStreamSynchronize, a process of its own",
             "the n = 1 rows, where no rounds of it were timed beside theirs"),
            ("scalar_median_s", "C floor: kernel + 8-byte copy into pinned memory + cudaStreamSynchronize, "
             "a process of its own", "the rows returning a Python float, where no rounds of it were "
             "timed beside theirs")):
        out.append({"case": case + " (bench/probes/launch_floor.cu)",
                    "cells": [fmt_time(floor[key]) if ok else floor.get("status", "skipped"), "-", "-", "-"],
                    "ratio": "median of %s rounds" % floor.get("rounds") if ok else (floor.get("why") or ""),
                    "target": "(the floor of %s)" % serves, "result": "info" if ok else "n/a", "evals": []})
    return out
