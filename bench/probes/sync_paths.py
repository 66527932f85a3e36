"""Probe (session 22): where an n = 1 call + synchronize() spends the time above the
C floor on the Python side. The same add with different waits: the library's
synchronize() (it lets go of the GIL while it waits), the driver's
cuCtxSynchronize through ctypes with the GIL held (PyDLL) and let go (CDLL), and
the pieces alone. bench/NOTES.md records the outcome. Run from bench/probes with
the repository on PYTHONPATH."""
import ctypes

import numpy as np

import myModule as mm
from host_clock import per_call_us

held = ctypes.PyDLL("libcuda.so.1")     # calls keep the GIL
released = ctypes.CDLL("libcuda.so.1")  # calls let go of it
for lib in (held, released):
    lib.cuCtxSynchronize.restype = ctypes.c_int
    lib.cuCtxSynchronize.argtypes = []

d = mm.to_device(np.ones(1))
o = mm.to_device(np.ones(1))
e = mm.to_device(np.ones(0))
eo = mm.to_device(np.ones(0))
mm.synchronize()
# Session 31: the library's own stream, waited on through the driver with the GIL
# held and let go, against synchronize(), which lets go of it.
stream = ctypes.c_void_p(d.__cuda_array_interface__["stream"])
for lib in (held, released):
    lib.cuStreamSynchronize.restype = ctypes.c_int
    lib.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
assert held.cuCtxSynchronize() == 0 and released.cuCtxSynchronize() == 0
add, sync = mm.add, mm.synchronize
rows = [
    ("python call of a C function (_memory_stats)", mm._memory_stats),
    ("cuda_available()", mm.cuda_available),
    ("synchronize(), nothing queued", sync),
    ("cuCtxSynchronize, GIL held, nothing queued", held.cuCtxSynchronize),
    ("cuCtxSynchronize, GIL let go, nothing queued", released.cuCtxSynchronize),
    ("add(d, d, out=o), no sync", lambda: add(d, d, out=o)),
    ("add(d, d), no sync", lambda: add(d, d)),
    ("add(d, d, out=o) + synchronize()", lambda: (add(d, d, out=o), sync())),
    ("add(d, d) + synchronize()", lambda: (add(d, d), sync())),
    ("add(d, d, out=o) + cuCtxSynchronize, GIL held", lambda: (add(d, d, out=o), held.cuCtxSynchronize())),
    ("add(d, d, out=o) + cuCtxSynchronize, GIL let go", lambda: (add(d, d, out=o), released.cuCtxSynchronize())),
    ("add(d, d) + cuCtxSynchronize, GIL held", lambda: (add(d, d), held.cuCtxSynchronize())),
    ("cuStreamSynchronize(library stream), GIL held, nothing queued", lambda: held.cuStreamSynchronize(stream)),
    ("cuStreamSynchronize(library stream), GIL let go, nothing queued",
     lambda: released.cuStreamSynchronize(stream)),
    ("add(d, d) + cuStreamSynchronize, GIL held", lambda: (add(d, d), held.cuStreamSynchronize(stream))),
    ("add(d, d) + cuStreamSynchronize, GIL let go", lambda: (add(d, d), released.cuStreamSynchronize(stream))),
    ("add(e, e, out=eo), n = 0: the Python path, no launch", lambda: add(e, e, out=eo)),
    ("add(e, e), n = 0: and a result", lambda: add(e, e)),
    ("empty(1): an allocation, its object and its free", lambda: mm.empty(1)),
]
for rnd in range(2):
    for name, fn in rows:
        print("%-52s %8.2f us" % (name, per_call_us(fn, 20000)))
        mm.synchronize()
    print()
