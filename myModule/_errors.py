"""The exceptions myModule raises for CUDA failures.

Wrong kinds, dtypes, shapes and arguments raise TypeError and ValueError, as NumPy
would, before any CUDA call; these four are for CUDA itself.
"""


class CudaError(RuntimeError):
    """A CUDA call failed.

    Parameters
    ----------
    message : str
        What failed, starting with the CUDA error's name
        (``"cudaErrorX: text [file:line]"``).
    code : int, optional
        The ``cudaError_t`` value.
    name : str, optional
        Its name, such as ``"cudaErrorInvalidValue"``.

    Attributes
    ----------
    code : int
        The ``cudaError_t`` value (0 when not from a CUDA call).
    name : str
        The name of the CUDA error.

    See Also
    --------
    CudaUnavailableError, OutOfMemoryError, CudaFatalError : the specific cases.

    Examples
    --------
    >>> import myModule
    >>> err = myModule.CudaError("cudaErrorInvalidValue: invalid argument", 1,
    ...                          "cudaErrorInvalidValue")
    >>> err.code, err.name
    (1, 'cudaErrorInvalidValue')
    >>> isinstance(err, RuntimeError)
    True
    """

    def __init__(self, message, code=0, name=""):
        super().__init__(message)
        self.code = code
        self.name = name


class CudaUnavailableError(CudaError):
    """CUDA work was asked for, but there is no usable GPU or driver.

    Raised by ``device="cuda"`` and by the calls that only make sense on a GPU
    (`to_device`, `device_info`, ...). The message says why: "no NVIDIA driver
    found", a driver too old (with the minimum version), or no GPU visible.
    ``device="auto"`` never raises it: it computes on the CPU instead.

    See Also
    --------
    cuda_available : False in exactly the cases this is raised.
    show_config : prints the same reason.

    Examples
    --------
    >>> import numpy as np
    >>> import myModule
    >>> try:
    ...     result = myModule.add(np.ones(3), np.ones(3), device="cuda")
    ... except myModule.CudaUnavailableError as err:
    ...     result = myModule.add(np.ones(3), np.ones(3), device="cpu")
    >>> result
    array([2., 2., 2.])
    """


class OutOfMemoryError(CudaError, MemoryError):
    """GPU memory ran out, after the library released its cache and retried.

    Also a `MemoryError`. The next call works again once memory is freed.

    Parameters
    ----------
    message, code, name
        As for `CudaError`.
    bytes : int, optional
        The size of the request that failed.

    Attributes
    ----------
    bytes : int
        The size of the request that failed, in bytes.

    Examples
    --------
    >>> import myModule
    >>> err = myModule.OutOfMemoryError("cudaErrorMemoryAllocation: out of memory", 2,
    ...                                 "cudaErrorMemoryAllocation", bytes=1 << 40)
    >>> isinstance(err, MemoryError), err.bytes
    (True, 1099511627776)
    """

    def __init__(self, message, code=0, name="", bytes=0):
        super().__init__(message, code, name)
        self.bytes = bytes


class CudaFatalError(CudaError):
    """A sticky CUDA fault: the GPU context of this process is lost.

    An illegal address, a kernel assertion and the like leave the CUDA context
    unusable until the process exits; every later CUDA call raises this too
    (nothing crashes). Restart the process to use the GPU again; CPU work
    (``device="cpu"``) keeps working.

    See Also
    --------
    CudaError : the base class.
    """


class BuildError(RuntimeError):
    """Building an operation library failed (`load`, ``python -m myModule.build``).

    Raised when no CUDA toolkit is found (the message says how to point at one:
    ``CUDA_PATH`` or ``nvcc`` on ``PATH``) and when nvcc refuses a file (the
    message holds nvcc's diagnostics, which name the file and line).

    Attributes
    ----------
    command : list of str
        The nvcc command that failed (empty when nvcc was not found).
    output : str
        What nvcc printed.

    Examples
    --------
    >>> import myModule
    >>> err = myModule.BuildError("nvcc failed", command=["nvcc"], output="x.cu(3): error")
    >>> isinstance(err, RuntimeError), err.output
    (True, 'x.cu(3): error')
    """

    def __init__(self, message, command=(), output=""):
        super().__init__(message)
        self.command = list(command)
        self.output = output


class BuildWarning(UserWarning):
    """nvcc warned about a user's file while building an operation library.

    The warnings of your own file stay warnings (the library's ``-Werror`` is
    its own); they are reported with nvcc's text, which names your file and line.
    """
