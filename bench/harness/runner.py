"""Measures the cases' entries (each entry key once: cases and sweeps share them) and
the sweeps behind the plot, and finds the streaming ceiling among the results."""
import time

from .contenders import COLUMNS
from .inputs import ITEM
from .targets import floor_ref
from .timing import timeit_gpu, timeit_host


class Runner:
    def __init__(self, libs, data, settings, floor=None):
        self.libs, self.data, self.s = libs, data, settings
        self.floor = floor  # c_floor.InProcess: the C floors timed in this process, or None
        self.memo = {}

    def measure(self, label, entry, floor=None):
        """Raw result dict for one entry ({'status': ...} when not measured). floor: the
        C floor ('launch-floor' or 'scalar-floor') whose rounds are timed beside the
        entry's repeats (a GPU entry, where this runner has the floors in process)."""
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
                    paired = None
                    if floor is not None and self.floor is not None:
                        def paired(calls, ref=floor):
                            return self.floor.round(ref, calls)
                    res = timeit_gpu(fn, lib.sync, entry.repeats or self.s.repeats_gpu,
                                     sync_each=entry.sync_each, min_time=self.s.min_time,
                                     max_inner=self.s.max_inner, paired=paired)
                    if paired is not None:
                        res["paired_floor_ref"] = floor
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
            ref = floor_ref(case)  # rows held to a C floor: ours timed beside its rounds
            results = {label: self.measure(label, case.entries[label], ref if label == "myModule" else None)
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
