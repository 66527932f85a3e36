"""A row of the table (Case) and one contender in it (Entry)."""
import math


class Entry:
    """One contender in one case: build() returns the no-argument callable to time.
    Entries with the same key are measured once and reused (cases and sweep)."""

    def __init__(self, build, key, needs_gpu, kind, sync_each=False, repeats=None, note="",
                 skip=None):
        self.build, self.key, self.needs_gpu = build, key, needs_gpu
        self.kind, self.sync_each, self.repeats, self.note = kind, sync_each, repeats, note
        self.skip = skip        # why this contender is not measured (it lacks the operation)


class Case:
    def __init__(self, name, group, nbytes, entries, targets=(), note=""):
        self.name, self.group, self.nbytes = name, group, nbytes
        self.entries, self.targets, self.note = entries, list(targets), note


def n_label(n):
    if n >= 1000 and n == 10 ** round(math.log10(n)):
        return "1e%d" % round(math.log10(n))
    if n >= 1024 and n & (n - 1) == 0:
        return "2^%d" % (n.bit_length() - 1)
    return str(n)


def uploaded_pair_entry(b, label, key, make_pair, call, prepare=None):
    """The Entry of `call(module, x, y)` on two host arrays that make_pair(rng) draws (a
    fixed seed: every contender gets the same values), uploaded to the contender's GPU
    before the timing; prepare(module), when given, runs first (PyTorch's TF32 switch)."""
    from .contenders import upload

    def build():
        import numpy as np
        lib = b.libs[label]
        if prepare is not None:
            prepare(lib.mod)
        x, y = (upload(lib, a) for a in make_pair(np.random.default_rng(26)))
        lib.sync()
        return lambda: call(lib.mod, x, y)
    return Entry(build, key, True, "gpu")

