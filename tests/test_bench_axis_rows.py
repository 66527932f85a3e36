"""bench/axis_rows.py: the rows of reductions over axes build for every contender and
compute the same values (checked on host arrays with stand-ins for the GPU libraries:
no GPU needed)."""
import os
import sys

import numpy as np

import myModule

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench")
_path = list(sys.path)
sys.path.insert(0, BENCH)
import axis_rows  # noqa: E402
from harness import inputs  # noqa: E402
from harness.builders import Builders  # noqa: E402
from harness.contenders import Lib  # noqa: E402
from harness.settings import Settings  # noqa: E402
sys.path[:] = _path


class FakeTorch:
    """torch's spellings over NumPy arrays."""

    @staticmethod
    def sum(x, dim=None):
        return np.sum(x, axis=dim)

    @staticmethod
    def max(x):
        return np.max(x)

    @staticmethod
    def mean(x, dim=None):
        return np.mean(x, axis=dim)


def test_rows_compute_numpys_values(monkeypatch):
    side = 37
    monkeypatch.setattr(axis_rows, "SIDE", side)
    libs = {}
    for label, mod in (("myModule", myModule), ("NumPy", np), ("CuPy", np), ("PyTorch", FakeTorch())):
        lib = Lib(label)
        lib.mod, lib.ok, lib.gpu = mod, True, True
        libs[label] = lib
    data = inputs.Data(libs, side * side, l2_bytes=1024)
    monkeypatch.setattr(inputs, "upload", lambda lib, host: host)
    b = Builders(libs, data, Settings(True))
    cases = axis_rows.cases(b, libs)
    assert [c.name.split(",")[0] for c in cases] == [r[0] for r in axis_rows.ROWS]
    x = data.matrix(side)
    expected = [x.sum(axis=0), x.sum(axis=1), x.max(), x.mean(axis=1)]
    for case, want in zip(cases, expected):
        assert case.nbytes == side * side * inputs.ITEM
        assert set(case.entries) == {"myModule", "CuPy", "PyTorch", "NumPy"}
        assert case.targets and case.targets[-1].label == "myModule/faster-peer time"
        for label, entry in case.entries.items():
            got = np.asarray(entry.build()())
            np.testing.assert_allclose(got, want, rtol=1e-12, err_msg="%s %s" % (case.name, label))
