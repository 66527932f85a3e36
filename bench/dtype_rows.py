"""Rows of the dtypes added for issue 26, beside CuPy and PyTorch on the same values:
add of two uint8 device arrays, n = 2^28 (256 MiB each, well past L2); multiply of two
complex64 and of two complex128 arrays and sum of a complex128 array, n = 2^26. Timed
as the other GPU rows; the bytes are those read and written."""
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


N_COMPLEX = 2**26
COMPLEX_CALLS = {
    "multiply": {"myModule": lambda m, x, y: m.multiply(x, y), "CuPy": lambda cp, x, y: cp.multiply(x, y),
                 "PyTorch": lambda t, x, y: t.mul(x, y)},
    "sum": {"myModule": lambda m, x, y: m.sum(x), "CuPy": lambda cp, x, y: cp.sum(x),
            "PyTorch": lambda t, x, y: t.sum(x)},
}


def _complex_entry(b, label, name, dtype):
    def pair(rng):
        def one():
            z = np.empty(N_COMPLEX, dtype)
            z.real, z.imag = rng.standard_normal((2, N_COMPLEX))
            return z
        return one(), one()
    key = "dtype:%s:%s:%s:%d" % (name, np.dtype(dtype).name, label, N_COMPLEX)
    return uploaded_pair_entry(b, label, key, pair, COMPLEX_CALLS[name][label])


def cases(b, _libs):
    entries = {label: _entry(b, label, call) for label, call in CALLS.items()}
    nbytes = 3 * N_UINT8
    out = [Case("add, uint8, device arrays, n = 2^28", "dtype", nbytes, entries,
                targets.of("elementwise-uint8", nbytes), note="bytes read + written")]
    for name, dtype in (("multiply", np.complex64), ("multiply", np.complex128), ("sum", np.complex128)):
        size = np.dtype(dtype).itemsize
        nbytes = (3 if name == "multiply" else 1) * size * N_COMPLEX
        entries = {label: _complex_entry(b, label, name, dtype) for label in COMPLEX_CALLS[name]}
        out.append(Case("%s, %s, device arrays, n = 2^26" % (name, np.dtype(dtype).name), "dtype", nbytes,
                        entries, targets.of("complex", nbytes), note="bytes read + written"))
    return out
