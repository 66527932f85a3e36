#!/usr/bin/env python3
"""Side-by-side benchmark: myModule against NumPy (CPU), CuPy and PyTorch.

Runs every case of bench/TARGETS.md (peers table and targets table) in ONE process, plus
rows derived from the op table (myModule.ops, see bench/op_rows.py: every elementwise
operation at n = 2^26, axpy at n = 1e8 beside a CuPy ElementwiseKernel and 2.0 * x + y,
every reduction at n = 1e8, and the first call of every operation in a fresh process),
prints one table (case | myModule | NumPy | CuPy | PyTorch | ratio | target | result)
and writes, under --out (default bench/results):
  <gpu-slug>-<YYYY-MM-DD>.md   the table in Markdown with a header (GPU, versions, method)
  <gpu-slug>-<YYYY-MM-DD>.png  throughput against n for add (device arrays; NumPy in/out)
  latest.json                  every raw number
and copies the three files into $OUT when that is set.

Method (the same for every contender within a case):
  * GPU-resident cases: host perf_counter around a loop of `inner` calls followed by
    the contender's own synchronize (myModule.synchronize, CuPy device synchronize,
    torch.cuda.synchronize), divided by `inner`; `inner` is chosen so one repeat lasts
    >= MIN_TIME. "call + synchronize" cases synchronise after every call. (CUDA events
    are not used: myModule queues on its own stream, so an event on CuPy's or torch's
    stream would not bracket its work; a host clock around a synchronised loop is the
    one method that treats all contenders alike.)
  * Host (NumPy in / NumPy out) cases: perf_counter around the full call, median.
  * Warm-up excluded; median of repeats; random float64 data (standard normal);
    small inputs rotate among several input sets so that they do not sit in L2.
Usage: python3 bench/run.py [--quick] [--out DIR] [--filter REGEX] [--no-sweep]
"""
import argparse
import datetime
import gc
import itertools
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
for _p in (ROOT, BENCH):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import op_rows  # noqa: E402 - the op table's rows (needs BENCH on sys.path)
import array_api_rows  # noqa: E402 - the array API namespace's rows
import dispatch_rows  # noqa: E402 - NumPy dispatch rows
import multi_gpu_rows  # noqa: E402 - host data on every GPU
import axis_rows  # noqa: E402 - reductions over axes
import dask_rows  # noqa: E402 - Dask arrays
import array_rows  # noqa: E402 - creation and slicing of device arrays
import sort_scan_rows  # noqa: E402 - sort, argsort, cumulative_sum (issue 26)
import c_floor  # noqa: E402 - the C launch + sync floor of the n = 1 rows

COLUMNS = ("myModule", "NumPy", "CuPy", "PyTorch")
ITEM = 8                      # float64
SEED = 20240601
N_1E8 = 10**8
N_2_26 = 2**26
CEILING_ELEMS = 2**27         # 1 GiB of float64 copied device to device
TRANSFER_BYTES = 256 * 2**20


class Settings:
    def __init__(self, quick):
        self.quick = quick
        self.repeats_gpu = 5 if quick else 11
        self.repeats_host = 3 if quick else 5
        self.repeats_host_big = 2 if quick else 3     # NumPy/CuPy/torch at n = 1e8
        self.min_time = 2e-3 if quick else 5e-3       # seconds per repeat (loop total)
        self.max_inner = 20000
        if quick:
            self.sweep_dev = [2**k for k in (10, 14, 18, 22, 26)]
            self.sweep_host = [10**3, 10**5, 10**7, 10**8]
        else:
            self.sweep_dev = [2**k for k in range(10, 28)]
            self.sweep_host = [10**k for k in range(3, 9)]


# --------------------------------------------------------------------------- timing

def _noop():
    pass


def _calibrate(fn, sync, sync_each, min_time, max_inner):
    """Calls per repeat so that one repeat lasts >= min_time."""
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - t0)
        if best > min_time:
            return 1
    return int(min(max_inner, max(1, math.ceil(min_time / max(best, 1e-7)))))


def timeit_gpu(fn, sync, repeats, inner=None, sync_each=False, min_time=5e-3, max_inner=20000):
    """Median seconds per call of fn on the GPU: perf_counter around `inner` calls and
    one sync (or a sync after every call when sync_each). Warm-up excluded."""
    fn()
    sync()
    fn()
    sync()
    if inner is None:
        inner = _calibrate(fn, sync, sync_each, min_time, max_inner)
    times = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            sync()
            t0 = time.perf_counter()
            if sync_each:
                for _ in range(inner):
                    fn()
                    sync()
            else:
                for _ in range(inner):
                    fn()
                sync()
            times.append((time.perf_counter() - t0) / inner)
    finally:
        gc.enable()
    return {"median_s": statistics.median(times), "min_s": min(times), "times_s": times,
            "inner": inner, "repeats": repeats, "method": "host clock, sync %s" %
            ("after every call" if sync_each else "after the loop")}


def timeit_host(fn, repeats, inner=None, min_time=5e-3, max_inner=20000):
    """Median seconds per call of a synchronous host call (perf_counter around the full
    call). Tiny calls are looped so one repeat lasts >= min_time. Warm-up excluded."""
    fn()
    if inner is None:
        inner = _calibrate(fn, _noop, False, min_time, max_inner)
    times = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            times.append((time.perf_counter() - t0) / inner)
    finally:
        gc.enable()
    return {"median_s": statistics.median(times), "min_s": min(times), "times_s": times,
            "inner": inner, "repeats": repeats, "method": "host clock around the call"}


# --------------------------------------------------------------------------- contenders

class Lib:
    """One contender: its module, whether it (and its GPU) can be used, and how to sync."""

    def __init__(self, label):
        self.label = label
        self.mod = None
        self.ok = False         # importable
        self.gpu = False        # a usable GPU
        self.why = ""
        self.version = None
        self.sync = _noop

    def usable(self, needs_gpu):
        return self.ok and (self.gpu or not needs_gpu)

    def reason(self, needs_gpu):
        if not self.ok:
            return self.why or "not importable"
        if needs_gpu and not self.gpu:
            return self.why or "no usable GPU"
        return ""


def load_libs():
    libs = {}
    lib = Lib("NumPy")
    lib.mod, lib.ok, lib.version = np, True, np.__version__
    libs["NumPy"] = lib

    lib = Lib("myModule")
    try:
        import myModule as mm
        lib.mod, lib.ok, lib.version = mm, True, mm.__version__
        lib.gpu = bool(mm.cuda_available())
        if lib.gpu:
            lib.sync = mm.synchronize
        else:
            info = mm._runtime_info() if hasattr(mm, "_runtime_info") else {}
            lib.why = "no usable GPU (%s)" % info.get("error_name", "cuda_available() is False")
    except Exception as exc:  # noqa: BLE001 - report any import failure as a skip
        lib.why = "import failed: %s" % exc
    libs["myModule"] = lib

    lib = Lib("CuPy")
    try:
        import cupy as cp
        lib.mod, lib.ok, lib.version = cp, True, cp.__version__
        try:
            lib.gpu = cp.cuda.runtime.getDeviceCount() > 0
            if lib.gpu:
                dev = cp.cuda.Device()
                lib.sync = dev.synchronize
                cp.add(cp.ones(4), cp.ones(4))   # fail here, not in a case
                lib.sync()
        except Exception as exc:  # noqa: BLE001
            lib.gpu, lib.why = False, "no usable GPU: %s" % exc
    except Exception as exc:  # noqa: BLE001
        lib.why = "import failed: %s" % exc.__class__.__name__
    libs["CuPy"] = lib

    lib = Lib("PyTorch")
    try:
        import torch
        lib.mod, lib.ok, lib.version = torch, True, torch.__version__
        lib.gpu = bool(torch.cuda.is_available())
        if lib.gpu:
            lib.sync = torch.cuda.synchronize
        else:
            lib.why = "torch.cuda.is_available() is False"
    except Exception as exc:  # noqa: BLE001
        lib.why = "import failed: %s" % exc.__class__.__name__
    libs["PyTorch"] = lib
    return libs


def binop(lib, op):
    """The contender's function for add/subtract/multiply/divide."""
    if lib.label == "PyTorch":
        t = lib.mod
        return {"add": t.add, "subtract": t.sub, "multiply": t.mul, "divide": t.div}[op]
    if lib.label == "CuPy" and op == "divide":
        return lib.mod.true_divide
    if lib.label == "NumPy" and op == "divide":
        return np.true_divide
    return getattr(lib.mod, op)


def upload(lib, host):
    if lib.label == "myModule":
        return lib.mod.to_device(host)
    if lib.label == "CuPy":
        return lib.mod.asarray(host)
    if lib.label == "PyTorch":
        return lib.mod.from_numpy(host).cuda()
    return host


def release_gpu_memory(libs):
    gc.collect()
    for lib in libs.values():
        if not lib.gpu:
            continue
        try:
            lib.sync()
            if lib.label == "CuPy":
                lib.mod.get_default_memory_pool().free_all_blocks()
                lib.mod.get_default_pinned_memory_pool().free_all_blocks()
            elif lib.label == "PyTorch":
                lib.mod.cuda.empty_cache()
            elif lib.label == "myModule" and hasattr(lib.mod, "_release_cached"):
                lib.mod._release_cached()
        except Exception:  # noqa: BLE001 - freeing caches is best effort
            pass


# --------------------------------------------------------------------------- data

class Data:
    """Random host inputs (two big arrays; smaller inputs are slices of them) and the
    device copies each contender needs, cached until clear()."""

    def __init__(self, libs, n_max, l2_bytes):
        rng = np.random.default_rng(SEED)
        self.A = rng.standard_normal(n_max)
        self.B = rng.standard_normal(n_max)
        self.libs = libs
        self.l2_bytes = l2_bytes
        self.dev = {}

    def rotation(self, n):
        """Input sets to rotate among: enough that the inputs together exceed 2x L2."""
        per_set = 2 * n * ITEM
        if per_set >= 2 * self.l2_bytes:
            return 1
        return int(min(8, max(2, math.ceil(2 * self.l2_bytes / per_set)), len(self.A) // n))

    def host_sets(self, n, k=None):
        k = self.rotation(n) if k is None else k
        return [(self.A[i * n:(i + 1) * n], self.B[i * n:(i + 1) * n]) for i in range(k)]

    def matrix(self, side):
        return self.A[:side * side].reshape(side, side)

    def dev_sets(self, label, n, k=None):
        k = self.rotation(n) if k is None else k
        key = (label, n, k)
        if key not in self.dev:
            lib = self.libs[label]
            self.dev[key] = [(upload(lib, a), upload(lib, b)) for a, b in self.host_sets(n, k)]
            lib.sync()
        return self.dev[key]

    def dev_matrix(self, label, side):
        key = (label, "matrix", side)
        if key not in self.dev:
            self.dev[key] = upload(self.libs[label], self.matrix(side))
            self.libs[label].sync()
        return self.dev[key]

    def op_inputs(self, label, decl, n):
        """(params, arrays) for one operation of the op table on the contender's device;
        arrays with the same spec (source, block, transform) are built and uploaded once."""
        params, specs = op_rows.input_specs(decl)
        arrays = []
        for spec in specs:
            key = (label, "op-input", spec, n)
            if key not in self.dev:
                hkey = ("host", "op-input", spec, n)
                if hkey not in self.dev:
                    self.dev[hkey] = op_rows.materialize(spec, (self.A, self.B), n)
                self.dev[key] = upload(self.libs[label], self.dev[hkey])
            arrays.append(self.dev[key])
        self.libs[label].sync()
        return params, arrays

    def clear(self):
        self.dev.clear()
        release_gpu_memory(self.libs)


def rotating(fn, sets):
    """A no-argument call of fn over the input sets in turn (the same for every contender)."""
    if len(sets) == 1:
        x, y = sets[0]
        return lambda: fn(x, y)
    it = itertools.cycle(sets)
    return lambda: fn(*next(it))


def rotating1(fn, items):
    if len(items) == 1:
        x = items[0]
        return lambda: fn(x)
    it = itertools.cycle(items)
    return lambda: fn(next(it))


# --------------------------------------------------------------------------- cases

class Entry:
    """One contender in one case: build() returns the no-argument callable to time.
    Entries with the same key are measured once and reused (cases and sweep)."""

    def __init__(self, build, key, needs_gpu, kind, sync_each=False, repeats=None, note="",
                 skip=None):
        self.build, self.key, self.needs_gpu = build, key, needs_gpu
        self.kind, self.sync_each, self.repeats, self.note = kind, sync_each, repeats, note
        self.skip = skip        # why this contender is not measured (it lacks the operation)


class Target:
    """ratio(results, ceiling) -> float or None; met when `ratio op threshold`."""

    def __init__(self, label, ratio, op, threshold, text):
        self.label, self.ratio, self.op, self.threshold, self.text = label, ratio, op, threshold, text

    def evaluate(self, results, ceiling):
        try:
            value = self.ratio(results, ceiling)
        except (KeyError, TypeError, ZeroDivisionError):
            value = None
        if value is None:
            return None, "n/a"
        ok = value >= self.threshold if self.op == ">=" else value <= self.threshold
        return value, "met" if ok else "missed"


def _t(results, label):
    r = results.get(label)
    return r["median_s"] if r and "median_s" in r else None


def time_ratio(num, den, op, threshold, text):
    def ratio(results, _ceiling):
        a, b = _t(results, num), _t(results, den)
        return None if a is None or b is None else a / b
    return Target("%s/%s time" % (num, den), ratio, op, threshold, text)


def faster_peer_ratio(threshold, text, label="myModule", peers=("CuPy", "PyTorch")):
    """label's time over the faster of the peers that ran in this case (the bar of
    issue 25: the faster GPU peer of the same run)."""
    def ratio(results, _ceiling):
        t = _t(results, label)
        times = [p for p in (_t(results, peer) for peer in peers) if p is not None]
        return None if t is None or not times else t / min(times)
    return Target("%s/faster peer time" % label, ratio, "<=", threshold, text)


#: The C floor of a one-element call (c_floor.measure), filled in by main() in the
#: same run before the verdicts; the n = 1 rows' targets are ratios to it.
C_FLOOR = {}


def floor_ratio(label, threshold, text, floor=C_FLOOR):
    """label's time over the C launch + synchronize floor measured in this run."""
    def ratio(results, _ceiling):
        t, f = _t(results, label), floor.get("median_s")
        return None if t is None or not f else t / f
    return Target("%s/C floor time" % label, ratio, "<=", threshold, text)


def ceiling_fraction(label, nbytes, threshold, text):
    def ratio(results, ceiling):
        t = _t(results, label)
        if t is None or not ceiling:
            return None
        return nbytes / t / ceiling
    return Target("%s BW / ceiling" % label, ratio, ">=", threshold, text)


class Case:
    def __init__(self, name, group, nbytes, entries, targets=(), note=""):
        self.name, self.group, self.nbytes = name, group, nbytes
        self.entries, self.targets, self.note = entries, list(targets), note


def n_label(n):
    if n >= 1000 and n == 10 ** round(math.log10(n)):
        return "1e%d" % round(math.log10(n))
    if n >= 1024 and n & (n - 1) == 0:
        return "2^%d" % (n.bit_length() - 1)
    return str(n)


class Builders:
    """Entry factories shared by the case table and the sweeps."""

    def __init__(self, libs, data, settings):
        self.libs, self.data, self.s = libs, data, settings

    def dev_binop(self, label, op, n, sync_each=False):
        def build():
            return rotating(binop(self.libs[label], op), self.data.dev_sets(label, n))
        return Entry(build, "dev:%s:%s:%d:%d" % (op, label, n, sync_each), True, "gpu", sync_each)

    def host_add(self, label, n, device=None):
        lib = self.libs[label]
        big = n >= N_1E8 // 2
        repeats = self.s.repeats_host_big if big and label != "myModule" else None

        if label == "NumPy":
            def build():
                return rotating(np.add, self.data.host_sets(n))
        elif label == "myModule":
            def build():
                mm = lib.mod
                return rotating(lambda a, b: mm.add(a, b, device=device), self.data.host_sets(n))
        elif label == "CuPy":
            def build():
                cp = lib.mod
                return rotating(lambda a, b: cp.add(cp.asarray(a), cp.asarray(b)).get(),
                                self.data.host_sets(n))
        else:
            def build():
                torch = lib.mod
                return rotating(lambda a, b: torch.add(torch.from_numpy(a).cuda(),
                                                       torch.from_numpy(b).cuda()).cpu().numpy(),
                                self.data.host_sets(n))
        needs_gpu = label in ("CuPy", "PyTorch") or device == "cuda"
        return Entry(build, "host-add:%s:%s:%d" % (label, device, n), needs_gpu, "host",
                     repeats=repeats)

    def dev_sum(self, label, n, to_python, sync_each=False):
        return self.dev_reduce(label, "sum", n, to_python, sync_each)

    def dev_reduce(self, label, name, n, to_python=False, sync_each=False, fn=None):
        """A reduction over all elements of a device array: fn (default the contender's
        `name`), optionally turned into a Python float."""
        lib = self.libs[label]

        def build():
            total = fn or getattr(lib.mod, name)
            if not to_python:
                call = total
            elif label == "PyTorch":
                def call(x):
                    return total(x).item()
            else:
                def call(x):
                    return float(total(x))
            return rotating1(call, [x for x, _ in self.data.dev_sets(label, n)])
        return Entry(build, "dev-reduce:%s:%s:%d:%d:%d" % (name, label, n, to_python, sync_each),
                     True, "gpu", sync_each)

    def host_sum(self, label, n, device=None):
        lib = self.libs[label]

        def build():
            m = lib.mod
            if label == "NumPy":
                fn = np.sum
            elif label == "myModule":
                fn = m.sum if device is None else (lambda a: m.sum(a, device=device))
            elif label == "CuPy":
                def fn(a):
                    return float(m.sum(m.asarray(a)))
            else:
                def fn(a):
                    return m.from_numpy(a).cuda().sum().item()
            return rotating1(fn, [a for a, _ in self.data.host_sets(n)])
        needs_gpu = label in ("CuPy", "PyTorch") or device == "cuda"
        big = n >= N_1E8 // 2 and label != "myModule"
        return Entry(build, "host-sum:%s:%s:%d" % (label, device, n), needs_gpu, "host",
                     repeats=self.s.repeats_host_big if big else None)

    def dev_trace(self, label, side):
        lib = self.libs[label]

        def build():
            tr = lib.mod.trace
            x = self.data.dev_matrix(label, side)
            if label == "PyTorch":
                return lambda: tr(x).item()
            return lambda: float(tr(x))
        return Entry(build, "dev-trace:%s:%d" % (label, side), True, "gpu")

    def host_trace(self, label, side):
        lib = self.libs[label]

        def build():
            tr = lib.mod.trace
            a = self.data.matrix(side)
            return lambda: tr(a)
        return Entry(build, "host-trace:%s:%d" % (label, side), False, "host")

    # ---- the op table's operations (inputs and counterparts from the declaration)
    def dev_op(self, label, decl, n):
        """One elementwise operation of the op table on device arrays: the contender's
        function of the same name (op_rows.counterpart), or a skip saying it has none."""
        lib = self.libs[label]
        fn, why = op_rows.counterpart(label, lib.mod, decl)

        def build():
            params, arrays = self.data.op_inputs(label, decl, n)
            return lambda: fn(*params, *arrays)
        return Entry(build, "dev-op:%s:%s:%d" % (decl["name"], label, n), True, "gpu", skip=why)

    def dev_op_reduce(self, label, decl, n, sync_each=False):
        fn, why = op_rows.counterpart(label, self.libs[label].mod, decl)
        entry = self.dev_reduce(label, decl["name"], n, sync_each=sync_each, fn=fn)
        entry.skip = why
        return entry

    def dev_axpy(self, label, how, n):
        """alpha * x + y on device arrays, how: 'myModule' (axpy), 'kernel' (CuPy
        ElementwiseKernel, compiled and warmed in build(), outside the timing), 'fused'
        (torch.add(y, x, alpha=...)) or 'expression' (alpha * x + y, two kernels)."""
        lib = self.libs[label]
        alpha = op_rows.PARAM

        def build():
            m = lib.mod
            if how == "myModule":
                def fn(x, y):
                    return m.axpy(alpha, x, y)
            elif how == "kernel":
                kernel = m.ElementwiseKernel("float64 a, float64 x, float64 y", "float64 z",
                                             "z = a * x + y", "bench_axpy")
                kernel(alpha, *self.data.dev_sets(label, n)[0])
                lib.sync()

                def fn(x, y):
                    return kernel(alpha, x, y)
            elif how == "fused":
                def fn(x, y):
                    return m.add(y, x, alpha=alpha)
            else:
                def fn(x, y):
                    return alpha * x + y
            return rotating(fn, self.data.dev_sets(label, n))
        return Entry(build, "dev-axpy:%s:%s:%d" % (label, how, n), True, "gpu")

    # ---- transfers (informational) and the streaming ceiling
    def transfer(self, label, what):
        """what: h2d/d2h x pageable/pinned, or register. One-way bytes = TRANSFER_BYTES."""
        lib = self.libs[label]
        count = TRANSFER_BYTES // ITEM

        def build():
            host = np.ascontiguousarray(self.data.A[:count])
            if label == "myModule":
                mm = lib.mod
                if what == "h2d-pageable":
                    return lambda: mm.to_device(host)
                d = mm.to_device(host)
                return lambda: d.get()
            if label == "CuPy":
                cp = lib.mod
                rt = cp.cuda.runtime
                dev = cp.asarray(host)
                if what == "register":
                    return lambda: (rt.hostRegister(host.ctypes.data, TRANSFER_BYTES, 0),
                                    rt.hostUnregister(host.ctypes.data))
                if what.endswith("pinned"):
                    mem = cp.cuda.alloc_pinned_memory(TRANSFER_BYTES)
                    buf = np.frombuffer(mem, dtype=np.float64, count=count)
                    buf[...] = host
                else:
                    buf = np.empty_like(host)
                    buf[...] = host
                hptr, dptr = buf.ctypes.data, dev.data.ptr
                keep = (mem if what.endswith("pinned") else None, buf, dev)
                if what.startswith("h2d"):
                    return lambda: (keep, rt.memcpy(dptr, hptr, TRANSFER_BYTES,
                                                    rt.memcpyHostToDevice))
                return lambda: (keep, rt.memcpy(hptr, dptr, TRANSFER_BYTES,
                                                rt.memcpyDeviceToHost))
            torch = lib.mod
            dev = torch.from_numpy(host).cuda()
            hbuf = torch.from_numpy(host.copy())
            if what.endswith("pinned"):
                hbuf = hbuf.pin_memory()
            sync = torch.cuda.synchronize
            if what.startswith("h2d"):
                return lambda: (dev.copy_(hbuf), sync())
            return lambda: (hbuf.copy_(dev), sync())

        return Entry(build, "transfer:%s:%s" % (label, what), True, "host")

    def d2d_copy(self, label, how):
        lib = self.libs[label]

        def build():
            src = upload(lib, self.data.A[:CEILING_ELEMS])
            if label == "CuPy":
                cp = lib.mod
                dst = cp.empty_like(src)
                if how == "memcpy":
                    rt = cp.cuda.runtime
                    nbytes = src.nbytes

                    def fn():
                        rt.memcpyAsync(dst.data.ptr, src.data.ptr, nbytes,
                                       rt.memcpyDeviceToDevice, cp.cuda.get_current_stream().ptr)
                    return fn

                def kernel():
                    dst[...] = src
                return kernel
            dst = lib.mod.empty_like(src)
            return lambda: dst.copy_(src)
        return Entry(build, "d2d:%s:%s" % (label, how), True, "gpu")


def build_cases(b, libs):
    cases = []
    ceiling_bytes = 2 * CEILING_ELEMS * ITEM
    cases.append(Case("streaming ceiling: D2D copy 1 GiB, cudaMemcpyAsync / torch copy_", "ceiling",
                      ceiling_bytes, {"CuPy": b.d2d_copy("CuPy", "memcpy"),
                                      "PyTorch": b.d2d_copy("PyTorch", "copy_")},
                      note="bytes read + written"))
    cases.append(Case("streaming ceiling: D2D copy 1 GiB, copy kernel (dst[...] = src)", "ceiling",
                      ceiling_bytes, {"CuPy": b.d2d_copy("CuPy", "kernel")},
                      note="bytes read + written"))

    gpu_cols = ("myModule", "CuPy", "PyTorch")
    for n in (N_1E8, N_2_26):
        ops = ("add",) if n == N_1E8 else op_rows.CLASSIC_BINOPS
        for op in ops:
            nbytes = 3 * n * ITEM
            cases.append(Case(
                "%s, device arrays, n = %s" % (op, n_label(n)), "dev-%d" % n, nbytes,
                {c: b.dev_binop(c, op, n) for c in gpu_cols},
                [time_ratio("CuPy", "myModule", ">=", 1.0, ">= 1.0x CuPy throughput"),
                 ceiling_fraction("myModule", nbytes, 0.90, ">= 90% of streaming ceiling")]))
    for op in op_rows.CLASSIC_BINOPS:
        n = 10**6
        cases.append(Case("%s, device arrays, n = 1e6" % op, "dev-1e6", 3 * n * ITEM,
                          {c: b.dev_binop(c, op, n) for c in gpu_cols},
                          [time_ratio("myModule", "CuPy", "<=", 0.8, "<= 0.8x CuPy's time")]))
    # bench/TARGETS.md's peer figures for n = 1e6 (CuPy 18 us) and sum n = 1e8 (199 us) are
    # per-call synchronised times; the same cases timed that way, beside the loops above.
    n = 10**6
    cases.append(Case("add, device arrays, n = 1e6, call + sync", "dev-1e6", 3 * n * ITEM,
                      {c: b.dev_binop(c, "add", n, sync_each=True) for c in gpu_cols},
                      [time_ratio("myModule", "CuPy", "<=", 0.8, "<= 0.8x CuPy's time")]))
    for op in op_rows.CLASSIC_BINOPS:
        cases.append(Case("%s, device arrays, n = 1, call + sync" % op, "dev-1", None,
                          {c: b.dev_binop(c, op, 1, sync_each=True) for c in gpu_cols},
                          [floor_ratio("myModule", N1_FLOOR_RATIO,
                                       "<= %gx the C launch + sync floor of this run" % N1_FLOOR_RATIO),
                           time_ratio("myModule", "CuPy", "<=", 0.5, "<= 0.5x CuPy's time")]))

    for n in (N_1E8, 10**7):
        cases.append(Case(
            "add, NumPy in/out, n = %s, device='cuda'" % n_label(n), "host-%d" % n, 3 * n * ITEM,
            {"myModule": b.host_add("myModule", n, "cuda"), "NumPy": b.host_add("NumPy", n),
             "CuPy": b.host_add("CuPy", n), "PyTorch": b.host_add("PyTorch", n)},
            [time_ratio("NumPy", "myModule", ">=", 4.0, ">= 4x NumPy throughput"),
             time_ratio("CuPy", "myModule", ">=", 6.0, ">= 6x CuPy round trip")]))
    n = 1000
    trip = {"NumPy": b.host_add("NumPy", n), "CuPy": b.host_add("CuPy", n),
            "PyTorch": b.host_add("PyTorch", n)}
    cases.append(Case("add, NumPy in/out, n = 1000, device='auto'", "host-1000", 3 * n * ITEM,
                      dict(trip, myModule=b.host_add("myModule", n, "auto")),
                      [time_ratio("myModule", "NumPy", "<=", 1.5, "<= 1.5x NumPy's time")]))
    cases.append(Case("add, NumPy in/out, n = 1000, device='cuda'", "host-1000", 3 * n * ITEM,
                      dict(trip, myModule=b.host_add("myModule", n, "cuda")),
                      [time_ratio("myModule", "CuPy", "<=", 0.25, "<= 0.25x CuPy round trip")]))

    n = N_1E8
    cases.append(Case("sum, device array, n = 1e8", "dev-sum", n * ITEM,
                      {c: b.dev_sum(c, n, False) for c in gpu_cols},
                      [time_ratio("CuPy", "myModule", ">=", 1.0, ">= 1.0x CuPy throughput")]))
    cases.append(Case("sum, device array, n = 1e8, call + sync", "dev-sum", n * ITEM,
                      {c: b.dev_sum(c, n, False, sync_each=True) for c in gpu_cols},
                      [time_ratio("CuPy", "myModule", ">=", 1.0, ">= 1.0x CuPy throughput")]))
    cases.append(Case("sum, device array -> Python float, n = 1000", "dev-sum", None,
                      {c: b.dev_sum(c, 1000, True) for c in gpu_cols},
                      [time_ratio("myModule", "CuPy", "<=", 0.5, "<= 0.5x CuPy's time")]))
    host_sum_peers = {"NumPy": b.host_sum("NumPy", n), "CuPy": b.host_sum("CuPy", n),
                      "PyTorch": b.host_sum("PyTorch", n)}
    cases.append(Case("sum, NumPy in, n = 1e8, device default ('auto')", "host-sum", n * ITEM,
                      dict(host_sum_peers, myModule=b.host_sum("myModule", n)),
                      [time_ratio("NumPy", "myModule", ">=", 3.0, ">= 3x NumPy")]))
    cases.append(Case("sum, NumPy in, n = 1e8, device='cuda'", "host-sum", n * ITEM,
                      dict(host_sum_peers, myModule=b.host_sum("myModule", n, "cuda")),
                      [time_ratio("NumPy", "myModule", ">=", 3.0, ">= 3x NumPy")]))

    side = 4096
    cases.append(Case("trace, device 4096x4096 -> Python float", "trace", None,
                      {c: b.dev_trace(c, side) for c in gpu_cols},
                      [time_ratio("myModule", "CuPy", "<=", 0.3, "<= 0.3x CuPy's time")]))
    cases.append(Case("trace, NumPy 4096x4096", "trace", None,
                      {c: b.host_trace(c, side) for c in ("myModule", "NumPy")},
                      [time_ratio("myModule", "NumPy", "<=", 1.5, "<= 1.5x NumPy's time")]))

    cases += op_table_cases(b, libs)
    cases += dispatch_rows.cases(b, libs)
    cases += array_api_rows.cases(b, libs)
    cases += multi_gpu_rows.cases(b, libs)
    cases += axis_rows.cases(b, libs, sys.modules[__name__])
    cases += dask_rows.cases(b, libs)
    cases += array_rows.cases(b, libs, sys.modules[__name__])
    cases += sort_scan_rows.cases(b, libs, sys.modules[__name__])

    for what, title in (("h2d-pageable", "H2D pageable"), ("d2h-pageable", "D2H pageable"),
                        ("h2d-pinned", "H2D pinned"), ("d2h-pinned", "D2H pinned"),
                        ("register", "cudaHostRegister + Unregister")):
        entries = {c: b.transfer(c, what) for c in ("CuPy", "PyTorch")}
        if what == "register":
            del entries["PyTorch"]
        if what.endswith("pageable"):
            entries["myModule"] = b.transfer("myModule", what)
        cases.append(Case("transfer 256 MiB, %s (informational)" % title, "transfers",
                          TRANSFER_BYTES, entries,
                          note="one-way bytes" if what != "register" else ""))
    return cases


def op_table_cases(b, libs):
    """The rows derived from myModule.ops: every elementwise operation (but the four with
    rows above) at n = 2^26, axpy at n = 1e8 against its peers' spellings, and every
    reduction but sum at n = 1e8."""
    mm = libs["myModule"]
    if not mm.ok:
        return [Case("operations of the op table", "op-table", None, {},
                     note="no rows: %s" % mm.reason(False))]
    cases = []
    for decl in op_rows.ops_of(mm.mod.ops, "elementwise"):
        if decl["name"] not in op_rows.CLASSIC_BINOPS:
            cases.append(op_case(b, decl, N_2_26))
    if any(d["name"] == "axpy" for d in mm.mod.ops):
        cases += axpy_cases(b, N_1E8)
    for decl in op_rows.ops_of(mm.mod.ops, "reduction"):
        if decl["name"] != "sum":
            cases += reduction_cases(b, decl, N_1E8)
    skipped = op_rows.skipped_ops(mm.mod.ops)
    if skipped:
        cases.append(Case("operations of the op table without a row", "op-table", None, {},
                          note="; ".join(skipped)))
    return cases


def missing_note(entries):
    return "; ".join(e.skip for e in entries.values() if e.skip)


def op_case(b, decl, n):
    entries = {c: b.dev_op(c, decl, n) for c in ("myModule", "CuPy", "PyTorch")}
    return Case("%s, device arrays, n = %s" % (decl["name"], n_label(n)), "op-%d" % n,
                op_rows.bytes_moved(decl, n), entries,
                [time_ratio("myModule", "CuPy", "<=", 1.05, "<= 1.05x CuPy's time")],
                note=missing_note(entries))


def axpy_cases(b, n):
    """axpy(2.0, x, y) beside a CuPy ElementwiseKernel and torch's fused add (one pass),
    and beside the expression 2.0 * x + y (two passes); bytes: 24 per element."""
    nbytes = 3 * n * ITEM
    mine = b.dev_axpy("myModule", "myModule", n)
    return [
        Case("axpy, device arrays, n = %s, vs CuPy ElementwiseKernel" % n_label(n), "axpy",
             nbytes, {"myModule": mine, "CuPy": b.dev_axpy("CuPy", "kernel", n),
                      "PyTorch": b.dev_axpy("PyTorch", "fused", n)},
             [time_ratio("myModule", "CuPy", "<=", 1.02, "<= 1.02x ElementwiseKernel's time"),
              ceiling_fraction("myModule", nbytes, 0.95, ">= 95% of the copy ceiling")],
             note="PyTorch: torch.add(y, x, alpha=2.0)"),
        Case("axpy, device arrays, n = %s, vs CuPy 2.0 * x + y" % n_label(n), "axpy",
             nbytes, {"myModule": mine, "CuPy": b.dev_axpy("CuPy", "expression", n),
                      "PyTorch": b.dev_axpy("PyTorch", "expression", n)},
             [time_ratio("CuPy", "myModule", ">=", 1.8, ">= 1.8x faster than CuPy 2.0*x+y")],
             note="PyTorch: 2.0 * x + y"),
    ]


def reduction_cases(b, decl, n):
    cases = []
    for sync_each, suffix in ((False, ""), (True, ", call + sync")):
        entries = {c: b.dev_op_reduce(c, decl, n, sync_each) for c in ("myModule", "CuPy",
                                                                        "PyTorch")}
        cases.append(Case("%s, device array, n = %s%s" % (decl["name"], n_label(n), suffix),
                          "op-reduce", op_rows.bytes_moved(decl, n), entries,
                          [time_ratio("CuPy", "myModule", ">=", 1.0, ">= 1.0x CuPy throughput")],
                          note=missing_note(entries)))
    return cases


# --------------------------------------------------------------------------- running

class Runner:
    def __init__(self, libs, data, settings):
        self.libs, self.data, self.s = libs, data, settings
        self.memo = {}

    def measure(self, label, entry):
        """Raw result dict for one entry ({'status': ...} when not measured)."""
        if entry.key in self.memo:
            return self.memo[entry.key]
        lib = self.libs[label]
        if entry.skip:
            res = {"status": "skipped", "why": entry.skip}
        elif not lib.usable(entry.needs_gpu):
            res = {"status": "skipped", "why": lib.reason(entry.needs_gpu)}
        else:
            try:
                fn = entry.build()
                if entry.kind == "gpu":
                    res = timeit_gpu(fn, lib.sync, entry.repeats or self.s.repeats_gpu,
                                     sync_each=entry.sync_each, min_time=self.s.min_time,
                                     max_inner=self.s.max_inner)
                else:
                    res = timeit_host(fn, entry.repeats or self.s.repeats_host,
                                      min_time=self.s.min_time, max_inner=self.s.max_inner)
                res["status"] = "ok"
                del fn
            except Exception as exc:  # noqa: BLE001 - one failing contender must not stop the run
                res = {"status": "error", "why": "%s: %s" % (exc.__class__.__name__, exc)}
                try:
                    lib.sync()
                except Exception:  # noqa: BLE001
                    pass
        self.memo[entry.key] = res
        return res

    def run_cases(self, cases, log):
        group = None
        out = []
        for case in cases:
            if case.group != group:
                self.data.clear()
                group = case.group
            t0 = time.perf_counter()
            results = {label: self.measure(label, case.entries[label])
                       for label in COLUMNS if label in case.entries}
            out.append((case, results))
            log("  %-70s %6.1fs" % (case.name, time.perf_counter() - t0))
        self.data.clear()
        return out

    def sweep(self, builders, kind, ns, labels, log):
        """{label: [[n, seconds, GB/s], ...]} for add (device arrays or NumPy in/out)."""
        curves = {}
        for n in ns:
            for label, device in labels:
                entry = builders.dev_binop(label, "add", n) if kind == "dev" else \
                    builders.host_add(label, n, device)
                res = self.measure(label, entry)
                name = label if device in (None,) else "%s (device='%s')" % (label, device)
                if res.get("status") == "ok":
                    t = res["median_s"]
                    curves.setdefault(name, []).append([n, t, 3 * n * ITEM / t / 1e9])
            if kind == "dev":
                self.data.clear()
        log("  sweep %-64s done" % kind)
        return curves


def ceiling_from(case_results):
    """The best streaming bandwidth (bytes/s) among the ceiling rows."""
    best, source = None, None
    for case, results in case_results:
        if case.group != "ceiling":
            continue
        for label, res in results.items():
            if res.get("status") == "ok":
                bw = case.nbytes / res["median_s"]
                if best is None or bw > best:
                    best, source = bw, "%s, %s" % (label, case.name.split(", ", 1)[1])
    return best, source


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


FIRST_CALL_OPS = "first call of every operation in a fresh process (n = %d, float64)" % \
    op_rows.FIRST_CALL_N
# The first call of every operation after the process's first: a ratio to a warm
# call of the same operation in the same child process (bench/TARGETS.md). The
# process's first call loads the library's CUDA module (one module per op bundle:
# the wheel's build has one); that load is held to CuPy's way to a first kernel,
# an NVRTC compile with an empty cache, measured in the same run.
FIRST_LOAD_PEER_RATIO = 0.5
FIRST_CALL_RATIO = 100.0
# An n = 1 call + synchronize against the C floor (empty kernel + cudaStreamSynchronize).
N1_FLOOR_RATIO = 1.2


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


def first_call_ops_row(fc):
    """The table row of first_call_ops_check's result: every operation's first call
    after the module is loaded, as a ratio to its warm call."""
    row = {"case": FIRST_CALL_OPS, "cells": ["-", "-", "-", "-"], "evals": [],
           "target": "first call <= %gx a warm call of the same op, every op; no PTX JIT" % FIRST_CALL_RATIO}
    w = fc.get("worst")
    if fc.get("status") != "ok" or not w:
        row["cells"][0] = fc.get("status", "skipped")
        row["ratio"] = fc.get("why") or "no operations"
        row["result"] = "n/a" if fc.get("status") == "skipped" else "missed"
        return row
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


FIRST_LOAD = "first call in a fresh process, the CUDA module load included (n = %d, float64)" % \
    op_rows.FIRST_CALL_N


def first_load_row(fc):
    """The table row of the process's first operation call: what it costs over a warm
    call of the same operation (the library's CUDA module load), against CuPy's
    first kernel call with an empty cache in the same run."""
    row = {"case": FIRST_LOAD, "cells": ["-", "-", "-", "-"], "evals": [],
           "target": "module load (first - warm) <= %gx CuPy's first ElementwiseKernel call, "
                     "empty cache (NVRTC), same run" % FIRST_LOAD_PEER_RATIO}
    first = fc.get("first_load")
    if fc.get("status") != "ok" or not first:
        row["cells"][0] = fc.get("status", "skipped")
        row["ratio"] = fc.get("why") or "no operations"
        row["result"] = "n/a" if fc.get("status") == "skipped" else "missed"
        return row
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


def c_floor_row(floor):
    """The C floor itself (informational: the n = 1 rows' targets divide by it)."""
    ok = floor.get("status") == "ok"
    return {"case": "C floor: empty kernel launch + cudaStreamSynchronize (bench/probes/launch_floor.cu)",
            "cells": [fmt_time(floor["median_s"]) if ok else floor.get("status", "skipped"), "-", "-", "-"],
            "ratio": "median of %s rounds" % floor.get("rounds") if ok else (floor.get("why") or ""),
            "target": "(the floor of the n = 1 rows)", "result": "info" if ok else "n/a", "evals": []}


# --------------------------------------------------------------------------- formatting

def fmt_time(s):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if s >= scale or unit == "ns":
            v = s / scale
            return ("%.3g %s" % (v, unit)) if v < 1000 else ("%.0f %s" % (v, unit))
    return str(s)


def fmt_bw(bps):
    if bps >= 1e12:
        return "%.2f TB/s" % (bps / 1e12)
    if bps >= 1e9:
        return "%.3g GB/s" % (bps / 1e9)
    return "%.3g MB/s" % (bps / 1e6)


def fmt_cell(res, nbytes):
    if res is None:
        return "-"
    if res.get("status") == "skipped":
        return "skipped"
    if res.get("status") == "error":
        return "error"
    t = res["median_s"]
    return "%s (%s)" % (fmt_time(t), fmt_bw(nbytes / t)) if nbytes else fmt_time(t)


def table_rows(case_results, ceiling, first_call, first_call_ops=None, floor=None):
    rows = []
    for case, results in case_results:
        cells = [fmt_cell(results.get(c), case.nbytes) for c in COLUMNS]
        ratios, targets, verdicts, evals = [], [], [], []
        for tg in case.targets:
            value, verdict = tg.evaluate(results, ceiling)
            ratios.append("%s %s" % (tg.label, "n/a" if value is None else "%.2fx" % value))
            targets.append(tg.text)
            verdicts.append(verdict)
            evals.append({"label": tg.label, "ratio": value, "op": tg.op,
                          "threshold": tg.threshold, "target": tg.text, "verdict": verdict})
        if case.group == "ceiling":
            ratios.append(case.note)
            targets.append("ceiling = best: %s" % (fmt_bw(ceiling) if ceiling else "n/a"))
            verdicts.append("info")
        elif not case.targets:
            ratios.append(case.note)
            targets.append("(informational)")
            verdicts.append("info")
        elif case.note:
            ratios.append(case.note)
        rows.append({"case": case.name, "cells": cells, "ratio": "; ".join(ratios),
                     "target": "; ".join(targets), "result": "; ".join(verdicts),
                     "evals": evals})
    fc = first_call
    if fc.get("status") == "ok":
        cell = "import %s + first add %s" % (fmt_time(fc["import_s"]), fmt_time(fc["first_add_s"]))
        ratio = "PTX JIT disabled: result %s" % ("correct" if fc["correct"] else "WRONG")
        verdict = "met" if fc["correct"] else "missed"
    else:
        cell = fc.get("status", "skipped")
        ratio = "PTX JIT disabled: %s" % (fc.get("why") or "")
        verdict = "n/a" if fc.get("status") == "skipped" else "missed"
    rows.append({"case": "first call in a fresh process (import + first add on the GPU)",
                 "cells": [cell, "-", "-", "-"], "ratio": ratio,
                 "target": "no run-time compilation", "result": verdict, "evals": []})
    if first_call_ops is not None:
        rows.append(first_load_row(first_call_ops))
        rows.append(first_call_ops_row(first_call_ops))
    if floor is not None:
        rows.append(c_floor_row(floor))
    return rows


HEADERS = ("case",) + COLUMNS + ("ratio", "target", "result")


def text_table(rows):
    data = [[r["case"]] + r["cells"] + [r["ratio"], r["target"], r["result"]] for r in rows]
    widths = [max(len(h), *(len(d[i]) for d in data)) for i, h in enumerate(HEADERS)]
    line = "  ".join(h.ljust(w) for h, w in zip(HEADERS, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    for d in data:
        out.append("  ".join(x.ljust(w) for x, w in zip(d, widths)).rstrip())
    return "\n".join(out)


def md_table(rows):
    out = ["| " + " | ".join(HEADERS) + " |", "|" + " --- |" * len(HEADERS)]
    for r in rows:
        cells = [r["case"]] + r["cells"] + [r["ratio"], r["target"], r["result"]]
        out.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return "\n".join(out)


# --------------------------------------------------------------------------- environment

def _cuda_version(v):
    return "%d.%d" % (v // 1000, (v % 1000) // 10) if v else "none"


def environment(libs):
    env = {"date": datetime.date.today().isoformat(),
           "time": datetime.datetime.now().isoformat(timespec="seconds"),
           "python": sys.version.split()[0], "platform": platform.platform(),
           "cpu_count": os.cpu_count(),
           "cpu_affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
           "cpu_model": None, "versions": {c: libs[c].version for c in COLUMNS},
           "available": {c: {"import": libs[c].ok, "gpu": libs[c].gpu, "why": libs[c].why}
                         for c in COLUMNS},
           "gpu": None, "l2_cache_bytes": None}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    env["cpu_model"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mm, cp, torch = libs["myModule"], libs["CuPy"], libs["PyTorch"]
    if mm.ok:
        try:
            ri = mm.mod._runtime_info()
            env["mymodule_runtime"] = {k: ri[k] for k in ri}
            env["cuda_driver_api"] = _cuda_version(ri.get("driver_version", 0))
            env["cuda_runtime_mymodule"] = _cuda_version(ri.get("runtime_version", 0))
        except Exception:  # noqa: BLE001
            pass
    if mm.gpu:
        info = mm.mod.device_info(0)
        env["gpu"] = info["name"]
        env["gpu_info"] = info
        env["l2_cache_bytes"] = info.get("l2_cache_bytes")
    elif torch.gpu:
        env["gpu"] = torch.mod.cuda.get_device_name(0)
    elif cp.gpu:
        name = cp.mod.cuda.runtime.getDeviceProperties(0)["name"]
        env["gpu"] = name.decode() if isinstance(name, bytes) else name
    if cp.gpu:
        try:
            env["cuda_runtime_cupy"] = _cuda_version(cp.mod.cuda.runtime.runtimeGetVersion())
            env["cuda_driver_api"] = _cuda_version(cp.mod.cuda.runtime.driverGetVersion())
            if env["l2_cache_bytes"] is None:
                env["l2_cache_bytes"] = cp.mod.cuda.runtime.getDeviceProperties(0)["l2CacheSize"]
        except Exception:  # noqa: BLE001
            pass
    if torch.gpu:
        env["cuda_runtime_torch"] = torch.mod.version.cuda
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        if smi.returncode == 0:
            env["nvidia_smi"] = smi.stdout.strip()
            env["driver"] = smi.stdout.strip().splitlines()[0].split(",")[1].strip()
    except Exception:  # noqa: BLE001
        pass
    try:
        env["git"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                    capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                               text=True, timeout=10).stdout.strip()
        env["git_dirty"] = bool(dirty)
    except Exception:  # noqa: BLE001
        pass
    return env


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", (text or "no-gpu").lower()).strip("-") or "no-gpu"


def md_header(env, settings, ceiling, ceiling_source, elapsed):
    v = env["versions"]
    lines = ["# myModule side-by-side benchmark: %s" % (env["gpu"] or "no GPU"), "",
             "- date: %s; run took %.0f s%s" % (env["time"], elapsed,
                                                "; --quick" if settings.quick else ""),
             "- GPU: %s%s" % (env["gpu"] or "none",
                              (" (%s)" % env["nvidia_smi"]) if env.get("nvidia_smi") else ""),
             "- NVIDIA driver %s (CUDA driver API %s); CUDA runtime: myModule %s (static), "
             "CuPy %s, PyTorch %s" % (env.get("driver", "?"), env.get("cuda_driver_api", "?"),
                                      env.get("cuda_runtime_mymodule", "-"),
                                      env.get("cuda_runtime_cupy", "-"),
                                      env.get("cuda_runtime_torch", "-")),
             "- CPU: %s, %s cores (%s usable)" % (env.get("cpu_model"), env["cpu_count"],
                                                   env["cpu_affinity"]),
             "- Python %s; myModule %s; NumPy %s; CuPy %s; PyTorch %s; git %s%s" % (
                 env["python"], v["myModule"] or "-", v["NumPy"], v["CuPy"] or "absent",
                 v["PyTorch"] or "absent", env.get("git", "?"),
                 " (uncommitted changes)" if env.get("git_dirty") else ""),
             "- streaming ceiling (best D2D copy in this run, bytes read + written): %s%s" % (
                 fmt_bw(ceiling) if ceiling else "n/a",
                 (" (%s)" % ceiling_source) if ceiling_source else ""),
             "- method: float64 standard-normal data; median of %d repeats (GPU) / %d (host; "
             "%d for NumPy/CuPy/torch at n = 1e8); GPU cases: host clock around a loop of calls "
             "+ the contender's synchronize, each repeat >= %.0f ms; 'call + sync' cases sync after "
             "every call; inputs under 2x L2 rotate among up to 8 sets; warm-up excluded. "
             "Throughput counts bytes read + written (binary op: 3 x n x 8; sum: n x 8; "
             "op table rows: each input and the result at its dtype, e.g. a comparison writes "
             "1 byte, where reads a 1-byte condition; axpy: 24 bytes/element); "
             "transfers: one-way bytes, myModule to_device / get(), CuPy cudaMemcpy, "
             "PyTorch copy_ + synchronize." % (
                 settings.repeats_gpu, settings.repeats_host, settings.repeats_host_big,
                 settings.min_time * 1e3)]
    skipped = ["%s: %s" % (c, env["available"][c]["why"]) for c in COLUMNS
               if env["available"][c]["why"]]
    if skipped:
        lines.append("- not measured: " + "; ".join(skipped))
    return "\n".join(lines)


COLORS = {"myModule": "tab:red", "myModule (device='cuda')": "tab:red",
          "myModule (device='auto')": "tab:purple", "NumPy": "tab:green", "CuPy": "tab:blue",
          "PyTorch": "tab:orange"}


def plot(path, sweeps, ceiling, gpu_name):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as exc:  # noqa: BLE001
        return "matplotlib not available (%s)" % exc.__class__.__name__
    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    titles = {"dev": "add, device arrays (float64)", "host": "add, NumPy in / NumPy out (float64)"}
    for ax, kind in zip(axes, ("dev", "host")):
        curves = sweeps.get(kind, {})
        for name, pts in sorted(curves.items()):
            if pts:
                ax.plot([p[0] for p in pts], [p[2] for p in pts], marker="o", ms=3, label=name,
                        color=COLORS.get(name), ls="--" if "auto" in name else "-")
        if kind == "dev" and ceiling:
            ax.axhline(ceiling / 1e9, color="k", ls="--", lw=1, label="D2D copy ceiling")
            ax.axhline(0.9 * ceiling / 1e9, color="gray", ls=":", lw=1, label="90% of ceiling")
        ax.set_xscale("log", base=2 if kind == "dev" else 10)
        ax.set_yscale("log")
        ax.set_xlabel("n (elements)")
        ax.set_ylabel("GB/s (bytes read + written)")
        ax.set_title(titles[kind])
        ax.grid(True, which="both", alpha=0.3)
        if any(curves.values()):
            ax.legend(fontsize=8)
        else:
            ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center")
    fig.suptitle("myModule vs NumPy / CuPy / PyTorch on %s" % (gpu_name or "no GPU"))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


# --------------------------------------------------------------------------- main

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats, fewer sweep points")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"),
                    help="directory for the .md, .png and latest.json")
    ap.add_argument("--filter", default=None, help="only cases whose name matches this regex")
    ap.add_argument("--no-sweep", action="store_true", help="skip the sweeps behind the plot")
    args = ap.parse_args(argv)
    settings = Settings(args.quick)
    t_start = time.perf_counter()

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    libs = load_libs()
    for c in COLUMNS:
        log("%-9s %s" % (c, ("%s%s" % (libs[c].version, "" if libs[c].gpu or c == "NumPy"
                                       else " (no GPU: %s)" % libs[c].why))
                         if libs[c].ok else "absent (%s)" % libs[c].why))
    env = environment(libs)
    l2 = env.get("l2_cache_bytes") or 60 * 2**20
    n_max = max(N_1E8, CEILING_ELEMS, max(settings.sweep_dev), max(settings.sweep_host))
    t0 = time.perf_counter()
    data = Data(libs, n_max, l2)
    log("random inputs: 2 x %d float64 in %.1fs" % (n_max, time.perf_counter() - t0))

    runner = Runner(libs, data, settings)
    builders = Builders(libs, data, settings)
    cases = build_cases(builders, libs)
    if args.filter:
        cases = [c for c in cases if c.group == "ceiling" or re.search(args.filter, c.name)]
    # the C floor in the same run, before the rows held to it
    C_FLOOR.clear()
    C_FLOOR.update(c_floor.measure(os.environ.get("CUDA_PATH", "/usr/local/cuda"),
                                   os.path.join(ROOT, "build", "bench"), libs["myModule"].gpu))
    log("C floor (launch + sync): %s" % (fmt_time(C_FLOOR["median_s"]) if C_FLOOR.get("status") == "ok"
                                         else "%s: %s" % (C_FLOOR.get("status"), C_FLOOR.get("why"))))
    case_results = runner.run_cases(cases, log)
    ceiling, ceiling_source = ceiling_from(case_results)
    first_call = first_call_check(libs)
    first_call_ops = None
    if not args.filter or re.search(args.filter, FIRST_CALL_OPS):
        first_call_ops = first_call_ops_check(libs)

    sweeps = {}
    if not args.no_sweep:
        sweeps["dev"] = runner.sweep(builders, "dev", settings.sweep_dev,
                                     [("myModule", None), ("CuPy", None), ("PyTorch", None)], log)
        sweeps["host"] = runner.sweep(builders, "host", settings.sweep_host,
                                      [("NumPy", None), ("myModule", "cuda"), ("myModule", "auto"),
                                       ("CuPy", None), ("PyTorch", None)], log)
    del data, runner
    release_gpu_memory(libs)

    rows = table_rows(case_results, ceiling, first_call, first_call_ops, dict(C_FLOOR))
    elapsed = time.perf_counter() - t_start
    print(text_table(rows))
    print("\nstreaming ceiling: %s%s; run took %.1f s" % (
        fmt_bw(ceiling) if ceiling else "n/a", (" (%s)" % ceiling_source) if ceiling_source
        else "", elapsed))

    os.makedirs(args.out, exist_ok=True)
    stem = "%s-%s" % (slug(env["gpu"]), env["date"])
    md_path = os.path.join(args.out, stem + ".md")
    png_path = os.path.join(args.out, stem + ".png")
    json_path = os.path.join(args.out, "latest.json")
    with open(md_path, "w") as f:
        f.write(md_header(env, settings, ceiling, ceiling_source, elapsed) + "\n\n")
        f.write(md_table(rows) + "\n\n")
        f.write("![throughput against n](%s)\n" % os.path.basename(png_path))
    why_no_png = plot(png_path, sweeps, ceiling, env["gpu"])
    raw = {"env": env, "settings": vars(settings), "elapsed_s": elapsed,
           "ceiling_Bps": ceiling, "ceiling_source": ceiling_source, "first_call": first_call,
           "first_call_ops": first_call_ops, "c_floor": dict(C_FLOOR),
           "cases": [{"name": case.name, "group": case.group, "bytes": case.nbytes,
                      "results": results, "targets": row["evals"], "result": row["result"]}
                     for (case, results), row in zip(case_results, rows)],
           "sweeps": sweeps, "md": os.path.basename(md_path),
           "png": None if why_no_png else os.path.basename(png_path)}
    with open(json_path, "w") as f:
        json.dump(raw, f, indent=1, default=str)
    written = [md_path, json_path] + ([] if why_no_png else [png_path])
    print("wrote " + ", ".join(written) + (("; no PNG: " + why_no_png) if why_no_png else ""))
    out_env = os.environ.get("OUT")
    if out_env:
        os.makedirs(out_env, exist_ok=True)
        for p in written:
            if not os.path.exists(os.path.join(out_env, os.path.basename(p))) or \
                    not os.path.samefile(p, os.path.join(out_env, os.path.basename(p))):
                shutil.copy(p, out_env)
        print("copied to $OUT = %s" % out_env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
