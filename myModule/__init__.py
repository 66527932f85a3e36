"""myModule: CUDA kernels on NumPy arrays and on GPU arrays.

Host (NumPy) inputs run on the CPU or the GPU (``device="auto" | "cpu" | "cuda"``);
inputs already on a GPU (DeviceArray, CuPy, PyTorch, Numba, PyCUDA, anything with
``__cuda_array_interface__`` or ``__dlpack__``) run on the GPU that holds them.
See docs/SPEC.md for the contract.
"""
from ._errors import CudaError, CudaFatalError, CudaUnavailableError, OutOfMemoryError
from ._core import (
    DeviceArray,
    add,
    asarray,
    cuda_available,
    device_count,
    device_info,
    divide,
    fib,
    from_dlpack,
    helloworld,
    multiply,
    subtract,
    sum,
    synchronize,
    to_device,
    trace,
    vector_add,
    vector_add_cpu,
    vector_add_cuda,
)
from ._core import _memory_stats, _release_cached, _runtime_info, _testing_fault
from ._config import show_config

__version__ = "0.1.0"

__all__ = [
    "CudaError", "CudaFatalError", "CudaUnavailableError", "DeviceArray", "OutOfMemoryError",
    "__version__", "add", "asarray", "cuda_available", "device_count", "device_info", "divide",
    "fib", "from_dlpack", "helloworld", "multiply", "show_config", "subtract", "sum",
    "synchronize", "to_device", "trace", "vector_add", "vector_add_cpu", "vector_add_cuda",
]

# ---- arrays on a GPU: creation, indexing, shapes and types (issue 11) ----
# Kept as one block; asarray above is the same function (asarray(x, dtype=, device=)).
from ._core import (  # noqa: E402
    arange, astype, broadcast_to, concatenate, copy, empty, empty_like, expand_dims, eye, full,
    full_like, linspace, ones, ones_like, permute_dims, ravel, reshape, squeeze, stack, transpose,
    zeros, zeros_like,
)

__all__ += [
    "arange", "astype", "broadcast_to", "concatenate", "copy", "empty", "empty_like", "expand_dims",
    "eye", "full", "full_like", "linspace", "ones", "ones_like", "permute_dims", "ravel", "reshape",
    "squeeze", "stack", "transpose", "zeros", "zeros_like",
]
# ---- end of the issue 11 block ----
