"""Rows of the matrix product (issue 26): 8192 x 8192 @ 8192 x 8192, float32 and
float64, on arrays already on the GPU, beside cupy.matmul and torch.matmul (PyTorch
with TF32 off, its default for matmul, as myModule and CuPy compute in the inputs'
precision). Every contender multiplies the same standard normal values; timed as
the other GPU rows. No byte count: the target reads the ratio of times.

cases(b, libs) is called from bench/run.py's list of rows."""
import numpy as np

from harness.cases import Case, Entry
from harness.contenders import upload
from harness import targets

SIDE = 8192
CALLS = {"myModule": lambda m, x, y: m.matmul(x, y), "CuPy": lambda cp, x, y: cp.matmul(x, y),
         "PyTorch": lambda t, x, y: t.matmul(x, y)}


def _entry(b, label, dtype):
    def build():
        rng = np.random.default_rng(26)
        lib = b.libs[label]
        x = upload(lib, rng.standard_normal((SIDE, SIDE)).astype(dtype))
        y = upload(lib, rng.standard_normal((SIDE, SIDE)).astype(dtype))
        if label == "PyTorch":
            lib.mod.backends.cuda.matmul.allow_tf32 = False
        lib.sync()
        call = CALLS[label]
        return lambda: call(lib.mod, x, y)
    return Entry(build, "matmul:%s:%s:%d" % (label, np.dtype(dtype).name, SIDE), True, "gpu")


def cases(b, libs):
    out = []
    for dtype in (np.float32, np.float64):
        entries = {label: _entry(b, label, dtype) for label in CALLS}
        out.append(Case("matmul, %s, %d x %d @ %d x %d, on the GPU" % (np.dtype(dtype).name, SIDE, SIDE, SIDE, SIDE),
                        "matmul", None, entries, targets.of("matmul"),
                        note="%.2g flop a product" % (2 * SIDE ** 3)))
    return out
