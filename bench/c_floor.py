"""The C floors of small calls, measured in the same run as the rows held to them:
bench/probes/launch_floor.cu (host clock per call) compiled with nvcc for the GPUs
present and run once. Two floors: an empty kernel + cudaStreamSynchronize (the
n = 1 rows) and a kernel + an 8-byte copy into pinned memory + synchronize (a
reduction returned as a Python float). The rows' targets are ratios to these
figures (bench/TARGETS.md), never absolute times; each floor is a row of its own
(informational).
"""
import json
import os
import subprocess

from harness.table import fmt_time

PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "probes", "launch_floor.cu")


def compile_command(nvcc, out_path):
    """nvcc for the GPUs of this machine (-arch=native): no PTX JIT in the timing."""
    return [nvcc, "-O3", "-std=c++17", "-arch=native", PROBE, "-o", out_path]


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
    """{'status': 'ok', 'median_s': ...} or {'status': 'skipped'|'error', 'why': ...}."""
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
    return res


def rows(floor):
    """The C floors themselves (informational: the small rows' targets divide by them)."""
    ok = floor.get("status") == "ok"
    out = []
    for key, case, serves in (
            ("median_s", "C floor: empty kernel launch + cudaStreamSynchronize", "the n = 1 rows"),
            ("scalar_median_s", "C floor: kernel + 8-byte copy into pinned memory + cudaStreamSynchronize",
             "the rows returning a Python float")):
        out.append({"case": case + " (bench/probes/launch_floor.cu)",
                    "cells": [fmt_time(floor[key]) if ok else floor.get("status", "skipped"), "-", "-", "-"],
                    "ratio": "median of %s rounds" % floor.get("rounds") if ok else (floor.get("why") or ""),
                    "target": "(the floor of %s)" % serves, "result": "info" if ok else "n/a", "evals": []})
    return out
