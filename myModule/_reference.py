"""NumPy counterparts of the operations that are not NumPy functions themselves:
the CPU path of each, and the oracle the tests hold the GPU to."""
import numpy as np


def axpy(alpha, x, y, out=None):
    """``alpha * x + y`` as NumPy computes it (the product rounded, then the sum)."""
    return np.add(np.multiply(alpha, x), y, out=out)
