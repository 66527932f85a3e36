"""The rows' inputs: random float64 data on the host, the device copies each contender
needs (cached until clear()), the sizes the rows use, and calls that rotate among input
sets so that small inputs do not sit in L2."""
import itertools
import math

import numpy as np

from .contenders import release_gpu_memory, upload

ITEM = 8                      # float64
SEED = 20240601
N_1E8 = 10**8
N_2_26 = 2**26
CEILING_ELEMS = 2**27         # 1 GiB of float64 copied device to device
TRANSFER_BYTES = 256 * 2**20


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
