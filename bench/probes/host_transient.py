"""Probe (session 33): whether the host-data rows of 1e9 elements are slow for a while
after their arrays are made (the rows GPU 0 alone / all GPUs ran the same path at 0.79x
and 0.98x of the pinned bound one after the other in session 33's make bench, and at
0.77x and 0.95x in session 32's). Makes the bench's arrays (np.arange and np.full of
1e9 float64, a pinned out=), then for about 40 s times add(a, b, out=out) and sum(a)
with device='cuda' in turn, and a NumPy copy of 800 MB of `a` (host memory speed), with
the time since the arrays were made and the kernel's count of transparent huge pages
(AnonHugePages). Run on the GPU machine from the repository root."""
import time

import numpy as np

import myModule as mm


def meminfo(*keys):
    values = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":", 1)
            if k in keys:
                values[k] = int(v.split()[0]) // 1024
    return " ".join("%s %d MiB" % (k, values.get(k, -1)) for k in keys)


def setting(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError as e:
        return "unreadable (%s)" % e.strerror


print("THP enabled:", setting("/sys/kernel/mm/transparent_hugepage/enabled"))
print("THP defrag:", setting("/sys/kernel/mm/transparent_hugepage/defrag"))
print("before:", meminfo("MemTotal", "MemFree", "AnonHugePages"))
n = 10**9
t0 = time.perf_counter()
a = np.arange(n, dtype=np.float64)
b = np.full(n, 0.5)
made = time.perf_counter()
print("arrays made in %.2f s: %s" % (made - t0, meminfo("MemTotal", "MemFree", "AnonHugePages")))
out = mm.add(a, b, device="cuda")
print("pinned out= made %.2f s after: %s" % (time.perf_counter() - made, meminfo("MemFree", "AnonHugePages")))
slice_a = a[: n // 10]
buf = np.empty_like(slice_a)
rows = []
while time.perf_counter() - made < 40:
    t1 = time.perf_counter()
    mm.add(a, b, out=out, device="cuda")
    t2 = time.perf_counter()
    mm.sum(a, device="cuda")
    t3 = time.perf_counter()
    np.copyto(buf, slice_a)
    t4 = time.perf_counter()
    rows.append((t1 - made, t2 - t1, t3 - t2, t4 - t3))
    if len(rows) % 8 == 1:
        print("%6.1f s: add %6.1f ms  sum %6.1f ms  copy 800 MB %5.1f GB/s  %s"
              % (t1 - made, (t2 - t1) * 1e3, (t3 - t2) * 1e3, 0.8 / (t4 - t3), meminfo("AnonHugePages")))
first, last = rows[: len(rows) // 4], rows[-len(rows) // 4:]
for name, part in (("first quarter", first), ("last quarter", last)):
    print("%s: add median %.1f ms, sum median %.1f ms, copy median %.1f GB/s"
          % (name, 1e3 * float(np.median([r[1] for r in part])), 1e3 * float(np.median([r[2] for r in part])),
             0.8 / float(np.median([r[3] for r in part]))))
