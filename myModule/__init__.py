"""myModule: CUDA kernels on NumPy arrays and on GPU arrays.

Host (NumPy) inputs run on the CPU or the GPUs (``device="auto" | "cpu" | "cuda" | N``;
``devices()`` and ``set_devices()`` say which GPUs ``"cuda"`` uses);
inputs already on a GPU (`DeviceArray`, CuPy, PyTorch, Numba, PyCUDA, anything with
``__cuda_array_interface__`` or ``__dlpack__``) run on the GPU that holds them.
Values, dtypes, broadcasting and errors are NumPy's. Every operation of the op table
(ops/ and user_ops/, one file each) is a function here; ``ops`` lists their declarations.

``show_config()`` prints the versions, the GPUs found, and why CUDA is unusable
when it is (``device="auto"`` then computes on the CPU). ``python -m myModule``
runs a self-check against NumPy. The user guide and API reference are built from
the source tree by ``make docs``; ``help(myModule.add)`` and the like describe each
function.

Examples
--------
>>> import numpy as np
>>> import myModule as mm
>>> mm.add(np.array([1.0, 2.0]), 3.0)
array([4., 5.])
>>> print(mm.sum(np.arange(10, dtype=np.int32)))
45
"""
from typing import TYPE_CHECKING

from ._errors import (BuildError, BuildWarning, CudaError, CudaFatalError, CudaUnavailableError,
                      OutOfMemoryError)
from . import _core, _errors, _reference
# NumPy dispatch (DeviceArray.__array_ufunc__/__array_function__ call it): imported
# now and handed over as the module itself, so that each dispatched call finds its
# function with one attribute lookup.
from . import _dispatch


class _OnFirstUse:
    """A module imported when the extension first reads from it (Dask and the array
    API namespace cost nothing to users who never reach them)."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attribute):
        import importlib
        return getattr(importlib.import_module(self._name), attribute)


# The extension calls the package only through what it is handed here (one way).
_core._install_hooks(errors=_errors, reference=_reference, dask=_OnFirstUse("myModule.dask"),
                     array_api=_OnFirstUse("myModule.array_api._array"),
                     dispatch=_dispatch)
from ._core import (
    DeviceArray,
    asarray,
    cuda_available,
    device_count,
    device_info,
    fib,
    from_dlpack,
    helloworld,
    synchronize,
    to_device,
    trace,
    vector_add,
    vector_add_cpu,
    vector_add_cuda,
)
from ._core import _memory_stats, _release_cached, _runtime_info, _testing_fault
from ._config import show_config
from ._devices import devices, set_devices

__version__ = "0.2.0"

#: The op table: one dict per declared operation (name, kind, nin, nparams,
#: args, reference, pyop, doc, domain, ulp, has_identity, results, fixed_inputs).
ops = _core._op_table

globals().update({_op["name"]: getattr(_core, _op["name"]) for _op in ops})
from . import _parts  # noqa: E402
globals().update(_parts.functions())  # real and imag: a DeviceArray's part is its view
if TYPE_CHECKING:  # what the line above adds, for mypy (_ops.pyi, written from the op table)
    from ._ops import *  # noqa: F401,F403

__all__ = sorted([
    "CudaError", "CudaFatalError", "CudaUnavailableError", "DeviceArray", "OutOfMemoryError",
    "__version__", "asarray", "cuda_available", "device_count", "device_info", "devices",
    "fib", "from_dlpack", "helloworld", "ops", "set_devices", "show_config",
    "synchronize", "to_device", "trace", "vector_add", "vector_add_cpu", "vector_add_cuda",
] + [_op["name"] for _op in ops])

# ---- arrays on a GPU: creation, indexing, shapes and types (issue 11) ----
from ._core import (  # noqa: E402
    arange, astype, broadcast_to, concatenate, copy, empty, empty_like, eye, full, full_like,
    linspace, nonzero, ones, ones_like, permute_dims, ravel, reshape, stack, transpose, zeros,
    zeros_like,
)

__all__ += [
    "arange", "astype", "broadcast_to", "concatenate", "copy", "empty", "empty_like", "eye", "full",
    "full_like", "linspace", "nonzero", "ones", "ones_like", "permute_dims", "ravel", "reshape",
    "stack", "transpose", "zeros", "zeros_like",
]
# The declared array functions (ext/array_functions.def): each is exported from
# its one declaration.
array_functions = tuple(_f for _f in _core._array_functions if _f["function"])
globals().update({_f["name"]: getattr(_core, _f["name"]) for _f in array_functions})
__all__ += [_f["name"] for _f in array_functions]
__all__.sort()

# ---- sorting and running sums and products (issue 26) ----
from ._core import argsort, cumprod, cumsum, cumulative_prod, cumulative_sum, searchsorted, sort  # noqa: E402

__all__ += ["argsort", "cumprod", "cumsum", "cumulative_prod", "cumulative_sum", "searchsorted", "sort"]
__all__.sort()

# ---- matrix products (issue 26): cuBLAS, loaded by the library on first use ----
from ._core import matmul  # noqa: E402

__all__ += ["matmul"]
__all__.sort()


def _point_at_wheel_cublas():
    """Where pip's nvidia-cublas wheel put libcublas.so.13, for the library's loader
    ($MYMODULE_CUBLAS, which a user's own setting overrides); nothing is loaded here."""
    import os
    import sys
    if os.environ.get("MYMODULE_CUBLAS"):
        return
    for entry in sys.path:
        for folder in ("cu13", "cublas"):
            path = os.path.join(entry or ".", "nvidia", folder, "lib", "libcublas.so.13")
            if os.path.isfile(path):
                os.environ["MYMODULE_CUBLAS"] = os.path.abspath(path)
                return


_point_at_wheel_cublas()

# ---- the user's own operations, built against the installed package (issue 23) ----
from .build import get_include  # noqa: E402
from ._load import load  # noqa: E402

__all__ += ["BuildError", "BuildWarning", "get_include", "load"]
__all__.sort()

