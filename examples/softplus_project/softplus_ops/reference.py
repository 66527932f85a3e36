"""The NumPy version of softplus: the CPU path of softplus_ops.softplus
(device="cpu", and "auto" for small host arrays) and the tests' oracle."""
import numpy as np


def softplus(x, out=None):
    x = np.asarray(x)
    if x.dtype.kind in "biu":
        x = x.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        result = np.where(x > 20, x + np.log1p(np.exp(-x)), np.log1p(np.exp(np.minimum(x, 20))))
    if out is not None:
        out[...] = result
        return out
    return result
