"""Rows for host data on every GPU of a host (issue 13): add of two host float64 arrays
and sum of one, n = 1e9, device="cuda", on GPU 0 alone (set_devices([0])) and on all
GPUs, beside the pinned-transfer bound measured in the same run.

The bound is what the transfers alone cost: 16 bytes up and 8 down per element for add,
8 up for sum, shared evenly among the GPUs, each GPU copying between a pinned host
buffer and its memory on two streams (up and down at once: PCIe is full duplex), all
GPUs at once. It is timed with CuPy (its own column), so the ratio CuPy/myModule time
is the fraction of the bound myModule reaches. The per-GPU and concurrent pinned H2D
and D2H bandwidths are rows of their own (informational).

add writes into a pinned result made once (as a large add's result is): without it
every call would pin 8 GB afresh, and that is not what the transfers cost.

The one-GPU and all-GPU rows run the same code on a one-GPU machine, yet a first run
(H200, --quick, 3 repeats) put them 40% apart: the host path's time moves by 20% or
more from one row to the next (staging memcpy bound by host memory). So every
myModule entry warms up both settings before it is timed, and takes REPEATS repeats;
bench/probes/host_pipeline.py times them in turn, round after round, with the
pipeline's per-stage trace.

bench/run.py calls cases(b, libs); the entries are timed as every host row (timeit_host).
"""
import re

import numpy as np

from harness.cases import Case, Entry
from harness import targets
from harness.targets import Target, time_of

ITEM = 8
N = 10**9
N_QUICK = 10**8
CHUNK = 1 << 30          # bytes per cudaMemcpyAsync of the bound (one pinned buffer a GPU)
REPEATS = 7              # per myModule entry, --quick or not (the host path is noisy)
PAGES_NOTE = "inputs on huge pages when made:"


def transfer_plan(total_bytes, ngpus, chunk=CHUNK):
    """Per GPU, the sizes of the copies that move its share of total_bytes."""
    share = -(-total_bytes // ngpus)
    sizes = [chunk] * (share // chunk)
    if share % chunk:
        sizes.append(share % chunk)
    return sizes


def huge_page_share(arrays):
    """The share of these arrays' bytes in mappings the kernel backs with transparent huge
    pages (/proc/self/smaps, AnonHugePages of every mapping an array overlaps), or None
    where that file can't be read. A condition of the row, kept beside it: the staging
    copy reads the inputs through the TLB, though session 34 found the same add at the
    same speed on 4 KiB and on huge pages (bench/probes/host_pages.py, bench/NOTES.md)."""
    spans = [(a.ctypes.data, a.ctypes.data + a.nbytes) for a in arrays]
    huge = 0
    try:
        with open("/proc/self/smaps") as f:
            lo = hi = None
            for line in f:
                head = re.match(r"([0-9a-f]+)-([0-9a-f]+) ", line)
                if head:
                    lo, hi = int(head.group(1), 16), int(head.group(2), 16)
                elif line.startswith("AnonHugePages:") and lo is not None:
                    if any(s < hi and lo < e for s, e in spans):
                        huge += int(line.split()[1]) * 1024
    except OSError:
        return None
    return min(huge / max(sum(e - s for s, e in spans), 1), 1.0)


class _Host:
    """The host arrays, made once for all rows (8 GB each at n = 1e9), and the share of
    the inputs on huge pages when they were made (huge_page_share)."""

    def __init__(self):
        self.n = None
        self.a = self.b = self.out = None
        self.huge = None

    def arrays(self, mm, n):
        if self.n != n:
            self.a = self.b = self.out = None
            self.a = np.arange(n, dtype=np.float64)
            self.b = np.full(n, 0.5)
            self.n = n
            self.huge = huge_page_share([self.a, self.b])
        if self.out is None:
            # The result of a host add is a pinned array of the library's.
            self.out = mm.add(self.a, self.b, device="cuda")
        return self.a, self.b, self.out


class _Pinned:
    """Per GPU: a pinned host buffer, device buffers up and down, a stream each way."""

    def __init__(self):
        self.per_gpu = {}

    def get(self, cp, gpu, nbytes):
        if gpu not in self.per_gpu:
            with cp.cuda.Device(gpu):
                self.per_gpu[gpu] = {
                    "host": cp.cuda.alloc_pinned_memory(nbytes),
                    "up": cp.cuda.alloc(nbytes), "down": cp.cuda.alloc(nbytes),
                    "s_up": cp.cuda.Stream(non_blocking=True),
                    "s_down": cp.cuda.Stream(non_blocking=True),
                }
        return self.per_gpu[gpu]


def _transfers(cp, pinned, gpus, up_bytes, down_bytes):
    """A call that moves up_bytes to and down_bytes from the GPUs, shared evenly, all at
    once, and waits for it."""
    rt = cp.cuda.runtime
    bufs = {g: pinned.get(cp, g, CHUNK) for g in gpus}
    ups = transfer_plan(up_bytes, len(gpus)) if up_bytes else []
    downs = transfer_plan(down_bytes, len(gpus)) if down_bytes else []

    def call():
        for g in gpus:
            buf = bufs[g]
            host = buf["host"].ptr
            with cp.cuda.Device(g):
                for size in ups:
                    rt.memcpyAsync(buf["up"].ptr, host, size, rt.memcpyHostToDevice, buf["s_up"].ptr)
                for size in downs:
                    rt.memcpyAsync(host, buf["down"].ptr, size, rt.memcpyDeviceToHost,
                                   buf["s_down"].ptr)
        for g in gpus:
            bufs[g]["s_up"].synchronize()
            bufs[g]["s_down"].synchronize()
    return call


def cases(b, libs):
    mm_lib, cp_lib = libs["myModule"], libs["CuPy"]
    n = N_QUICK if b.s.quick else N
    if not mm_lib.usable(True):
        return [Case("host data on every GPU", "multi-gpu", None, {},
                     note="no rows: %s" % mm_lib.reason(True))]
    mm = mm_lib.mod
    count = mm.device_count()
    every = list(range(count))
    host, pinned = _Host(), _Pinned()
    board = {}  # the one-GPU times, read by the all-GPU rows' targets
    host_cases = []  # their notes say the inputs' huge-page share, once the arrays are made

    def mm_entry(what, gpus):
        def build():
            a, b_, out = host.arrays(mm, n)
            if host.huge is not None:
                for case in host_cases:
                    if PAGES_NOTE not in case.note:
                        case.note += "; %s %.0f%%" % (PAGES_NOTE, 100 * host.huge)
            chosen = None if gpus is None else list(gpus)

            def make(devices):
                if what == "add":
                    def call():
                        mm.set_devices(devices)
                        return mm.add(a, b_, out=out, device="cuda")
                else:
                    def call():
                        mm.set_devices(devices)
                        return mm.sum(a, device="cuda")
                return call
            # Both settings warm (every GPU's pipeline, threads and pages touched)
            # whichever row runs first.
            for warm in (make([0]), make(None)):
                warm()
                warm()
            return make(chosen)
        return Entry(build, "multi-gpu:%s:%s:%d" % (what, gpus, n), True, "host",
                     repeats=REPEATS)

    def cp_entry(gpus, up, down):
        def build():
            return _transfers(cp_lib.mod, pinned, gpus, up, down)
        return Entry(build, "multi-gpu:pinned:%s:%d:%d" % (gpus, up, down), True, "host")

    def recording(key, target):
        """target, and the case's myModule time kept under key."""
        def ratio(results, ceiling):
            board[key] = time_of(results, "myModule")
            return target.ratio(results, ceiling)
        return Target(target.label, ratio, target.op, target.threshold, target.text)

    def speedup(key):
        def ratio(results, _ceiling):
            one, all_ = board.get(key), time_of(results, "myModule")
            return None if one is None or all_ is None else one / all_
        threshold, text = targets.threshold("two-gpus")
        return Target("1 GPU/%d GPUs time" % count, ratio, ">=", threshold, text)

    out = []
    # Pinned bandwidth, each GPU alone and all at once: informational.
    for direction, up, down in (("H2D", CHUNK * 4, 0), ("D2H", 0, CHUNK * 4)):
        for g in every:
            out.append(Case("pinned %s 4 GiB, GPU %d alone (CuPy memcpyAsync)" % (direction, g),
                            "multi-gpu", up + down, {"CuPy": cp_entry([g], up, down)},
                            note="one-way bytes"))
        if count > 1:
            out.append(Case("pinned %s 4 GiB a GPU, all %d GPUs at once" % (direction, count),
                            "multi-gpu", (up + down) * count,
                            {"CuPy": cp_entry(every, up * count, down * count)},
                            note="one-way bytes, all GPUs together"))
    label = "n = %s, device='cuda'" % ("1e9" if n == N else "1e8")
    for what, up, down in (("add", 16 * n, 8 * n), ("sum", 8 * n, 0)):
        moved = up + down
        title = ("add, NumPy in, pinned out=" if what == "add" else "sum, NumPy in")
        (one_gpu,) = targets.of("host-one-gpu")
        (fraction,) = targets.of("host-all-gpus")
        one = Case(
            "%s, %s, GPU 0 alone (set_devices([0])); CuPy: its pinned bound" % (title, label),
            "multi-gpu", moved,
            {"myModule": mm_entry(what, [0]), "CuPy": cp_entry([0], up, down)},
            [recording(what, one_gpu)],
            note="bound: %d B up%s per element on GPU 0" % (up // n, ", %d down" % (down // n) if down else ""))
        # On one GPU the all-GPU row is the same path as GPU 0 alone: it should cost
        # the same, and no speed-up is asked of it.
        all_gpu_targets = [fraction, speedup(what)] if count > 1 else [fraction]
        every_gpu = Case(
            "%s, %s, all %d GPUs; CuPy: their pinned bound" % (title, label, count),
            "multi-gpu", moved,
            {"myModule": mm_entry(what, None), "CuPy": cp_entry(every, up, down)},
            all_gpu_targets,
            note="bound: %d B up%s per element shared by %d GPUs, all at once"
                 % (up // n, ", %d down" % (down // n) if down else "", count))
        host_cases += [one, every_gpu]
        out += [one, every_gpu]
    return out
