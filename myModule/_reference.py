"""NumPy counterparts of the operations that are not NumPy functions themselves:
the CPU path of each, and the oracle the tests hold the GPU to."""
import numpy as np


def axpy(alpha, x, y, out=None):
    """``alpha * x + y`` as NumPy computes it (the product rounded, then the sum),
    in one dtype for both steps: ``np.result_type(alpha, x, y)`` (NEP 50: a Python
    alpha is weak). That is NumPy's ``alpha * x + y`` whenever ``alpha * x`` already
    has that dtype (x float, or x and alpha integers); for a bool or integer x with
    a float alpha and a float32 y, NumPy's two steps would widen to float64."""
    dtype = np.result_type(alpha, x, y)
    result = np.add(np.multiply(alpha, x, dtype=dtype), y, dtype=dtype, out=out)
    # An array always, also 0-d (as numpy.where): axpy is a function, not a ufunc.
    return result if out is not None else np.asarray(result)


def check_power(compute, base, exponent):
    """What NumPy refuses by value: integer powers with negative integer exponents
    (the GPU path of host data checks this before computing)."""
    if np.dtype(compute).kind in "biu" and np.any(np.asarray(exponent) < 0):
        raise ValueError("Integers to negative integer powers are not allowed.")


def softplus(x, out=None):
    """``log(1 + exp(x))`` as user_ops/softplus.cu computes it (``x + log1p(exp(-x))``
    above 20, where exp(x) would lose the 1), in the dtype NumPy's float functions
    give (domain FLOAT: float16 for bool, int8 and uint8, float32 for int16 and
    uint16, float64 for wider integers)."""
    x = np.asarray(x)
    if x.dtype.kind in "biu":
        # NumPy's rule for a float function (np.sqrt): the smallest float the
        # input casts to safely (float16, which the library lacks, refuses bool,
        # int8 and uint8 there).
        x = x.astype(np.promote_types(x.dtype, np.float16))
    with np.errstate(over="ignore", invalid="ignore"):
        big = x + np.log1p(np.exp(-x))
        small = np.log1p(np.exp(np.minimum(x, x.dtype.type(20))))
    result = np.where(x > 20, big, small)
    if out is not None:
        out[...] = result
        return out
    return result


def count_nonzero(a, axis=None, out=None, keepdims=False):
    """``numpy.count_nonzero`` with the keywords of the library's other reductions:
    its counts as int64 (NumPy's are intp, a Python int for a full count), written
    into ``out=`` when given."""
    result = np.asarray(np.count_nonzero(a, axis=axis, keepdims=keepdims), dtype=np.int64)
    if out is not None:
        # As a ufunc reduction's out=: the result's own shape, never broadcast.
        if np.ndim(out) != result.ndim:
            raise ValueError("output parameter for reduction operation count_nonzero has the wrong "
                             "number of dimensions: Found %d but expected %d" % (np.ndim(out), result.ndim))
        np.copyto(out, result, casting="same_kind")
        return out
    return result[()] if result.ndim == 0 else result


#: NumPy's clip ufunc itself (not numpy.clip): Python scalars weak in every
#: position (NEP 50), and a ufunc's results (a NumPy scalar for scalars in), where
#: ``numpy.clip`` turns a Python scalar x into a strong int64/float64 array first
#: and drops an integer bound past x's dtype, which a ufunc of the table cannot
#: mirror.
clip = np._core.umath.clip  # type: ignore[attr-defined]  # private in the stubs


def _stable_unless_told(kind, stable):
    """The GPU's radix sort is stable whatever is asked; the CPU's sort is too
    unless a kind or stable=False says otherwise, so both sides give the same
    positions (NumPy's default quicksort would not)."""
    return True if kind is None and stable is None else stable


def sort(a, axis=-1, kind=None, order=None, descending=False, stable=None):
    """``numpy.sort`` with the array API's ``descending=``: a stable descending
    sort (equal elements keep their order; NaN first), NumPy having none of its
    own: the ascending stable sort of the reversed array, reversed back."""
    if not descending:
        return np.sort(a, axis=axis, kind=kind, order=order, stable=_stable_unless_told(kind, stable))
    if axis is None:
        a, axis = np.ravel(a), 0
    return np.flip(np.sort(np.flip(a, axis), axis=axis, kind="stable", order=order), axis)


def argsort(a, axis=-1, kind=None, order=None, descending=False, stable=None):
    """``numpy.argsort`` with ``descending=`` as `sort` has it: positions in the
    reversed array, counted back from the end."""
    if not descending:
        return np.argsort(a, axis=axis, kind=kind, order=order, stable=_stable_unless_told(kind, stable))
    if axis is None:
        a, axis = np.ravel(a), 0
    a = np.asarray(a)
    last = a.shape[axis] - 1 if a.ndim else 0
    flipped = np.argsort(np.flip(a, axis), axis=axis, kind="stable", order=order)
    return last - np.flip(flipped, axis)


searchsorted = np.searchsorted
matmul = np.matmul
cumsum = np.cumsum
cumprod = np.cumprod
cumulative_sum = np.cumulative_sum
cumulative_prod = np.cumulative_prod


def _part(take, x, out):
    """``take`` (numpy.real or numpy.imag) of x as an array: a Python scalar is taken as a
    0-d array first (NumPy's ``real(True)`` is the int 1, the Python bool's own ``.real``).
    A copy in native byte order, as every operation's result."""
    part = take(np.asarray(x))
    result = np.array(part, dtype=part.dtype.newbyteorder("="))
    if out is not None:
        np.copyto(out, result)
        return out
    return result


def real(x, out=None):
    """``numpy.real`` of an array (``_part``)."""
    return _part(np.real, x, out)


def imag(x, out=None):
    """``numpy.imag`` of an array (``_part``): zeros of x's dtype for real x."""
    return _part(np.imag, x, out)
