"""Rows of the matrix product (issue 26): 8192 x 8192 @ 8192 x 8192, float32 and
float64, on arrays already on the GPU, beside cupy.matmul and torch.matmul (PyTorch
with TF32 off, its default for matmul, as myModule and CuPy compute in the inputs'
precision). Every contender multiplies the same standard normal values; timed as
the other GPU rows. No byte count: the target reads the ratio of times.

cases(b, libs) is called from bench/run.py's list of rows."""
import numpy as np

from harness.cases import Case, uploaded_pair_entry
from harness import targets

SIDE = 8192
CALLS = {"myModule": lambda m, x, y: m.matmul(x, y), "CuPy": lambda cp, x, y: cp.matmul(x, y),
         "PyTorch": lambda t, x, y: t.matmul(x, y)}


def _no_tf32(mod):
    if getattr(mod, "__name__", "") == "torch":
        mod.backends.cuda.matmul.allow_tf32 = False


COMPLEX_SIDE = 4096


def _entry(b, label, dtype, side=SIDE):
    def pair(rng):
        def one():
            x = rng.standard_normal((side, side)).astype(dtype)
            if np.dtype(dtype).kind == "c":
                x.imag = rng.standard_normal((side, side))
            return x
        return one(), one()
    return uploaded_pair_entry(b, label, "matmul:%s:%s:%d" % (label, np.dtype(dtype).name, side), pair,
                               CALLS[label], prepare=_no_tf32)


def cases(b, libs):
    out = []
    for dtype in (np.float32, np.float64):
        entries = {label: _entry(b, label, dtype) for label in CALLS}
        out.append(Case("matmul, %s, %d x %d @ %d x %d, on the GPU" % (np.dtype(dtype).name, SIDE, SIDE, SIDE, SIDE),
                        "matmul", None, entries, targets.of("matmul"),
                        note="%.2g flop a product" % (2 * SIDE ** 3)))
    entries = {label: _entry(b, label, np.complex64, COMPLEX_SIDE) for label in CALLS}
    out.append(Case("matmul, complex64, %d x %d @ %d x %d, on the GPU" % ((COMPLEX_SIDE,) * 4), "matmul", None,
                    entries, targets.of("complex"), note="%.2g real flop a product" % (8 * COMPLEX_SIDE ** 3)))
    return out
