"""Rows of the narrow integer dtypes (issue 26): add of two uint8 device arrays, n = 2^28
(256 MiB each, well past L2), beside CuPy and PyTorch on the same random bytes. Timed as
the other GPU rows; the bytes are those read and written (3n)."""
import numpy as np

from harness.cases import Case, uploaded_pair_entry
from harness import targets

N_UINT8 = 2**28
CALLS = {"myModule": lambda m, x, y: m.add(x, y), "CuPy": lambda cp, x, y: cp.add(x, y),
         "PyTorch": lambda t, x, y: t.add(x, y)}


def _entry(b, label, call):
    def pair(rng):
        return tuple(rng.integers(0, 256, N_UINT8, dtype=np.uint8) for _ in range(2))
    return uploaded_pair_entry(b, label, "dtype:add:uint8:%s:%d" % (label, N_UINT8), pair, call)


def cases(b, _libs):
    entries = {label: _entry(b, label, call) for label, call in CALLS.items()}
    nbytes = 3 * N_UINT8
    return [Case("add, uint8, device arrays, n = 2^28", "dtype", nbytes, entries,
                 targets.of("elementwise-uint8", nbytes), note="bytes read + written")]
