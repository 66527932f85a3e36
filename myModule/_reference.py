"""NumPy counterparts of the operations that are not NumPy functions themselves:
the CPU path of each, and the oracle the tests hold the GPU to."""
import numpy as np


def axpy(alpha, x, y, out=None):
    """``alpha * x + y`` as NumPy computes it (the product rounded, then the sum)."""
    return np.add(np.multiply(alpha, x), y, out=out)


def check_power(compute, base, exponent):
    """What NumPy refuses by value: integer powers with negative integer exponents
    (the GPU path of host data checks this before computing)."""
    if np.dtype(compute).kind in "biu" and np.any(np.asarray(exponent) < 0):
        raise ValueError("Integers to negative integer powers are not allowed.")
