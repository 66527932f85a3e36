"""myModule.array_api: the Python array API standard (2024.12) over DeviceArray.

``xp = d.__array_namespace__()`` (or ``import myModule.array_api as xp``) gives array
API code, and libraries written on array-api-compat, myModule's GPU arrays. The dtypes
are the library's (bool, int8 to int64, uint8 to uint64, float32, float64, complex64,
complex128); devices are
GPU indices.
What is here and what is not: docs/array-api.rst. Checked by data-apis/array-api-tests
(scripts/array_api_tests.sh; the known gaps are tests/array_api_xfails.txt).
"""
from .. import _core
from ._creation import (
    arange, asarray, empty, empty_like, eye, from_dlpack, full, full_like, linspace, meshgrid, ones,
    ones_like, tril, triu, zeros, zeros_like,
)
from ._dtypes import (  # noqa: A004
    bool, can_cast, complex64, complex128, finfo, float32, float64, iinfo, int8, int16, int32, int64, isdtype,
    result_type, uint8, uint16, uint32, uint64,
)
from ._elementwise import clip, functions as _elementwise_functions, round  # noqa: A004
from ._info import __array_namespace_info__
from ._manipulation import (
    astype, broadcast_arrays, broadcast_to, concat, diff, expand_dims, permute_dims, repeat,
    reshape, roll, squeeze, stack, take, take_along_axis, tile, unstack,
)
from ._linalg import matmul, tensordot, vecdot
from ._sets import unique_all, unique_counts, unique_inverse, unique_values
from ._sorting import argsort, searchsorted, sort
from ._statistical import (  # noqa: A004
    all, any, argmax, argmin, count_nonzero, cumulative_prod, cumulative_sum, max, mean, min, nonzero,
    prod, std, sum, var, where,
)

__array_api_version__ = "2024.12"

e = 2.718281828459045
inf = float("inf")
nan = float("nan")
newaxis = None
pi = 3.141592653589793

globals().update(_elementwise_functions)
# The declared array functions whose signature is the standard's (ext/array_functions.def).
globals().update({_f["array_api"]: getattr(_core, _f["name"]) for _f in _core._array_functions if _f["array_api"]})


def matrix_transpose(x, /):
    from ._array import matrix_transpose as mt
    return mt(x)


DeviceArray = _core.DeviceArray

__all__ = sorted(
    [name for name in globals() if not name.startswith("_") and name not in ("DeviceArray",)]
    + ["__array_api_version__", "__array_namespace_info__"]
)
