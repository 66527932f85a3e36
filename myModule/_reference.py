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
