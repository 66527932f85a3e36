"""The first calls in a fresh process, each checked in a child process with PTX JIT
disabled (machine code for this GPU must be in the module), and their rows:
import + the first add; the process's first operation call (the CUDA module load)
against CuPy's first kernel with an empty cache; every later operation's first call
as a ratio to a warm call of the same operation (op_rows.first_call_child)."""
import json
import os
import subprocess
import sys
import tempfile

from harness import targets
from harness.table import fmt_time
import op_rows

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")

FIRST_LOAD = "first call in a fresh process, the CUDA module load included (n = %d, float64)" % \
    op_rows.FIRST_CALL_N
FIRST_CALL_OPS = "first call of every operation in a fresh process (n = %d, float64)" % \
    op_rows.FIRST_CALL_N
# The first call of every operation after the process's first: a ratio to a warm
# call of the same operation in the same child process (bench/TARGETS.md). The
# process's first call loads the library's CUDA module (one module per op bundle:
# the wheel's build has one); that load is held to CuPy's way to a first kernel,
# an NVRTC compile with an empty cache, measured in the same run.
FIRST_LOAD_PEER_RATIO, FIRST_LOAD_TARGET = targets.threshold("first-call-load")
FIRST_CALL_RATIO, FIRST_CALL_TARGET = targets.threshold("first-call-ops")


def first_call_check(libs):
    """Import + first add on the GPU in a fresh process, with PTX JIT disabled: works only
    when machine code for this GPU is in the module."""
    if not libs["myModule"].gpu:
        return {"status": "skipped", "why": libs["myModule"].reason(True)}
    code = ("import json, time\n"
            "t0 = time.perf_counter()\n"
            "import numpy as np, myModule as mm\n"
            "t1 = time.perf_counter()\n"
            "a = np.arange(1000.0)\n"
            "r = mm.add(mm.to_device(a), mm.to_device(a)).get()\n"
            "t2 = time.perf_counter()\n"
            "print(json.dumps({'import_s': t1 - t0, 'first_add_s': t2 - t1,"
            " 'correct': bool((r == a + a).all())}))\n")
    try:
        proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=no_jit_env(), timeout=120,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            tail = proc.stderr.strip().splitlines()[-1:]
            return {"status": "error", "why": tail[0] if tail else "rc %d" % proc.returncode,
                    "correct": False}
        res = json.loads(proc.stdout.strip().splitlines()[-1])
        res["status"] = "ok"
        return res
    except Exception as exc:  # noqa: BLE001
        return {"status": "error", "why": str(exc), "correct": False}


def no_jit_env():
    """The environment of a child that must find machine code for this GPU in the module."""
    return dict(os.environ, CUDA_DISABLE_PTX_JIT="1", CUDA_CACHE_DISABLE="1")


def first_call_ops_check(libs):
    """op_rows.first_call_child in a fresh process with PTX JIT disabled: per operation
    the first and a warm call, and the worst excess of a first call over its warm call."""
    if not libs["myModule"].gpu:
        return {"status": "skipped", "why": libs["myModule"].reason(True)}
    code = "import sys; sys.path.insert(0, %r); import op_rows; op_rows.first_call_child()" % BENCH
    try:
        proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=no_jit_env(),
                              timeout=300, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = proc.stderr.strip().splitlines()[-1:]
            return {"status": "error", "why": tail[0] if tail else "rc %d" % proc.returncode}
        res = json.loads(proc.stdout.strip().splitlines()[-1])
    except Exception as exc:  # noqa: BLE001
        return {"status": "error", "why": "%s: %s" % (exc.__class__.__name__, exc)}
    res["status"] = "ok"
    res["worst"] = op_rows.worst_first_call(res["ops"])
    res["cupy_first_s"] = cupy_first_call_s()
    res["wrong"] = [r["name"] for r in res["ops"] if not r["correct"]]
    return res


def cupy_first_call_s():
    """CuPy's first ElementwiseKernel call in a fresh process with an empty kernel
    cache (NVRTC), in seconds; None where CuPy is absent or fails."""
    with tempfile.TemporaryDirectory() as cache:
        try:
            proc = subprocess.run([sys.executable, "-c", op_rows.CUPY_FIRST_CALL_CODE], cwd=ROOT,
                                  env=dict(os.environ, CUPY_CACHE_DIR=cache), timeout=300,
                                  capture_output=True, text=True)
            return float(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else None
        except (subprocess.TimeoutExpired, ValueError, IndexError):
            return None


def first_call_row(fc):
    """The table row of first_call_check's result."""
    if fc.get("status") == "ok":
        cell = "import %s + first add %s" % (fmt_time(fc["import_s"]), fmt_time(fc["first_add_s"]))
        ratio = "PTX JIT disabled: result %s" % ("correct" if fc["correct"] else "WRONG")
        verdict = "met" if fc["correct"] else "missed"
    else:
        cell = fc.get("status", "skipped")
        ratio = "PTX JIT disabled: %s" % (fc.get("why") or "")
        verdict = "n/a" if fc.get("status") == "skipped" else "missed"
    return {"case": "first call in a fresh process (import + first add on the GPU)",
            "cells": [cell, "-", "-", "-"], "ratio": ratio,
            "target": "no run-time compilation", "result": verdict, "evals": []}


def _without_result(row, fc):
    """row, when the child was skipped, failed or timed no operation: the status in the
    myModule cell, the reason as the ratio."""
    row["cells"][0] = fc.get("status", "skipped")
    row["ratio"] = fc.get("why") or "no operations"
    row["result"] = "n/a" if fc.get("status") == "skipped" else "missed"
    return row


def first_call_ops_row(fc):
    """The table row of first_call_ops_check's result: every operation's first call
    after the module is loaded, as a ratio to its warm call."""
    row = {"case": FIRST_CALL_OPS, "cells": ["-", "-", "-", "-"], "evals": [],
           "target": "%s, every op; no PTX JIT" % FIRST_CALL_TARGET}
    w = fc.get("worst")
    if fc.get("status") != "ok" or not w:
        return _without_result(row, fc)
    ratio = op_rows.first_call_ratio(w)
    ok = ratio <= FIRST_CALL_RATIO and not fc["wrong"]
    row["cells"][0] = "worst %s: first %s, warm %s" % (w["name"], fmt_time(w["first_s"]),
                                                      fmt_time(w["warm_s"]))
    row["ratio"] = "worst first/warm %.1fx over %d ops; results %s%s" % (
        ratio, len(op_rows.after_load(fc["ops"])), "wrong: " + ", ".join(fc["wrong"]) if fc["wrong"]
        else "correct", ("; not covered: " + "; ".join(fc["skipped"])) if fc.get("skipped") else "")
    row["result"] = "met" if ok else "missed"
    row["evals"] = [{"label": "first/warm (worst)", "ratio": ratio, "op": "<=",
                     "threshold": FIRST_CALL_RATIO, "target": row["target"],
                     "verdict": row["result"]}]
    return row


def first_load_row(fc):
    """The table row of the process's first operation call: what it costs over a warm
    call of the same operation (the library's CUDA module load), against CuPy's
    first kernel call with an empty cache in the same run."""
    row = {"case": FIRST_LOAD, "cells": ["-", "-", "-", "-"], "evals": [],
           "target": "module load (first - warm) %s (CuPy: its first ElementwiseKernel call, "
                     "empty cache, NVRTC)" % FIRST_LOAD_TARGET}
    first = fc.get("first_load")
    if fc.get("status") != "ok" or not first:
        return _without_result(row, fc)
    load = first["first_s"] - first["warm_s"]
    peer = fc.get("cupy_first_s")
    row["cells"][0] = "%s: first %s (module load included), warm %s" % (
        first["name"], fmt_time(first["first_s"]), fmt_time(first["warm_s"]))
    if peer:
        row["cells"][2] = "first call %s" % fmt_time(peer)
    if not peer:
        row["ratio"] = "module load %s; CuPy's first call not measured here (CuPy absent or failed)" % \
            fmt_time(load)
        row["result"] = "missed" if not first["correct"] else "n/a"
        return row
    ratio = load / peer
    ok = ratio <= FIRST_LOAD_PEER_RATIO and first["correct"]
    row["ratio"] = "module load %s = %.2fx CuPy's first call; result %s" % (
        fmt_time(load), ratio, "correct" if first["correct"] else "WRONG")
    row["result"] = "met" if ok else "missed"
    row["evals"] = [{"label": "module load/CuPy first call", "ratio": ratio, "op": "<=",
                     "threshold": FIRST_LOAD_PEER_RATIO, "target": row["target"], "verdict": row["result"]}]
    return row
