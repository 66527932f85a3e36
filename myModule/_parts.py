"""``real`` and ``imag`` as NumPy's: ``numpy.real`` and ``numpy.imag`` are no ufuncs but
``x.real`` and ``x.imag``, views of ``x`` where it has the part (every array's real
part, a complex array's imaginary one). So with no ``out=``, a DeviceArray's part is
its own view (``DeviceArray.real``, ``.imag``: no copy, and writing through it writes
the array), as NumPy's and CuPy's; everything else (``out=``, host data, a real array's
imaginary zeros) is the op table's operation of the same name (ops/real.cu,
ops/imag.cu)."""
import functools

from . import _core


def _with_view(name, has_part):
    op = getattr(_core, name)

    @functools.wraps(op)
    def part(a, /, out=None, device="auto"):
        if out is None and isinstance(a, _core.DeviceArray) and has_part(a):
            return getattr(a, name)
        return op(a, out=out, device=device)
    part.__doc__ = (op.__doc__ or "") + (
        "\n\nWith no out=, the %s part of a DeviceArray that has one is its view (a.%s), as "
        "numpy.%s of an ndarray." % (name, name, name))
    return part


def functions():
    """{name: function} for the parts the op table declares."""
    declared = {op["name"] for op in _core._op_table}
    rules = {"real": lambda a: True, "imag": lambda a: a.dtype.kind == "c"}
    return {name: _with_view(name, has) for name, has in rules.items() if name in declared}
