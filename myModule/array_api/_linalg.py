"""Linear algebra functions of the standard's core: matmul is the library's
(``myModule.matmul``: cuBLAS for floats, loaded on first use); tensordot is one
matmul of the two arrays' contracted axes moved together and folded (a copy
where the moved axes are not contiguous); vecdot is a product and a sum along
the axis."""
import math
import operator

from .. import _core


def matmul(x1, x2, /):
    return _core.matmul(x1, x2)


def _contracted(axes, x1, x2):
    """The axes of x1 and of x2 that tensordot sums over, as two lists."""
    if isinstance(axes, tuple) and len(axes) == 2 and not isinstance(axes[0], int):
        first, second = axes
    elif isinstance(axes, (list, tuple)) and len(axes) == 2:
        first, second = axes
    else:
        count = operator.index(axes)
        if count < 0:
            raise ValueError("tensordot(): axes must be a non-negative integer, got %d" % count)
        if count > min(x1.ndim, x2.ndim):
            raise ValueError("tensordot(): axes=%d is more than the arrays have" % count)
        return list(range(x1.ndim - count, x1.ndim)), list(range(count))
    first = [first] if isinstance(first, int) else list(first)
    second = [second] if isinstance(second, int) else list(second)
    if len(first) != len(second):
        raise ValueError("tensordot(): the two sequences of axes differ in length")
    first = [_core._normalize_axis(a, x1.ndim) for a in first]
    second = [_core._normalize_axis(a, x2.ndim) for a in second]
    return first, second


def tensordot(x1, x2, /, *, axes=2):
    first, second = _contracted(axes, x1, x2)
    for a, b in zip(first, second):
        if x1.shape[a] != x2.shape[b]:
            raise ValueError("tensordot(): shape-mismatch for sum (axis %d of x1 has %d, axis %d of x2 has %d)"
                             % (a, x1.shape[a], b, x2.shape[b]))
    free1 = [d for d in range(x1.ndim) if d not in first]
    free2 = [d for d in range(x2.ndim) if d not in second]
    summed = math.prod(x1.shape[a] for a in first)
    left = _core.reshape(_core.permute_dims(x1, tuple(free1 + first)),
                         (math.prod(x1.shape[d] for d in free1), summed))
    right = _core.reshape(_core.permute_dims(x2, tuple(second + free2)),
                          (summed, math.prod(x2.shape[d] for d in free2)))
    return _core.reshape(_core.matmul(left, right),
                         tuple(x1.shape[d] for d in free1) + tuple(x2.shape[d] for d in free2))


def vecdot(x1, x2, /, *, axis=-1):
    """sum(x1 * x2, axis) in the dtype the two promote to (real dtypes: no conjugate)."""
    ndim = max(x1.ndim, x2.ndim)
    axis = _core._normalize_axis(axis, ndim)
    size1 = x1.shape[axis - ndim] if axis - ndim >= -x1.ndim else 1
    size2 = x2.shape[axis - ndim] if axis - ndim >= -x2.ndim else 1
    if size1 != size2:
        raise ValueError("vecdot(): x1 and x2 differ along the axis (%d and %d)" % (size1, size2))
    product = _core.multiply(x1, x2)
    return _core.sum(product, axis=axis, dtype=product.dtype)
