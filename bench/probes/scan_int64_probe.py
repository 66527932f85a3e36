"""Which step of cumsum(int64 -> float64) goes wrong on sm_90 (session 11): the
conversion alone, the scan of a converted copy, and the call itself, each compared
with NumPy, with the library's overlapped launches on and off (MYMODULE_NO_OVERLAP)."""
import numpy as np
import myModule as mm

rng = np.random.default_rng(11)
for n in (255, 4096, 1_048_579):
    x = rng.integers(-5, 6, size=n).astype(np.int64)
    d = mm.to_device(x)
    conv = d.astype(np.float64).get()
    want = np.cumsum(x.astype(np.float64))
    direct = mm.cumsum(d, dtype=np.float64).get()
    via = mm.cumsum(d.astype(np.float64)).get()
    i32 = mm.cumsum(mm.to_device(x.astype(np.int32)), dtype=np.float64).get()
    def bad(a):
        w = np.flatnonzero(a != want)
        return "ok" if w.size == 0 else "first wrong at %d of %d" % (w[0], n)
    print(n, "astype:", "ok" if np.array_equal(conv, x.astype(np.float64)) else "WRONG",
          "| cumsum(d, dtype=f8):", bad(direct), "| cumsum(astype):", bad(via), "| int32 in:", bad(i32))
