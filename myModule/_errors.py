"""The exceptions myModule raises for CUDA failures (see docs/SPEC.md, Errors)."""


class CudaError(RuntimeError):
    """A CUDA call failed. ``code`` is the cudaError_t value, ``name`` its name."""

    def __init__(self, message, code=0, name=""):
        super().__init__(message)
        self.code = code
        self.name = name


class CudaUnavailableError(CudaError):
    """CUDA work was asked for, but there is no usable GPU or driver."""


class OutOfMemoryError(CudaError, MemoryError):
    """GPU memory ran out, after the library released its cache and retried.
    ``bytes`` is the size of the request that failed."""

    def __init__(self, message, code=0, name="", bytes=0):
        super().__init__(message, code, name)
        self.bytes = bytes


class CudaFatalError(CudaError):
    """A sticky fault (illegal address and the like): the CUDA context is lost
    and every later CUDA call in this process raises this too; restart it."""
