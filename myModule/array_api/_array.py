"""DeviceArray's array API members (ext/array_api.cpp attaches them to the type)."""
from .. import _core

_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")


def array_namespace(x, /, *, api_version=None):
    if api_version is not None and api_version not in _VERSIONS:
        raise ValueError("myModule.array_api implements versions %s of the standard, not %r"
                         % (", ".join(_VERSIONS), api_version))
    from .. import array_api
    return array_api


def to_device(x, device, /, *, stream=None):
    # The library's stream orders all its work, so any stream the caller names is
    # already ordered with it after a synchronize; none is needed on one GPU.
    if stream is not None:
        _core.synchronize()
    if device == x.device:
        return x
    return _core.asarray(x, device=device)


def positive(x):
    return _core.positive(x)


def matrix_transpose(x):
    if x.ndim < 2:
        raise ValueError("mT needs at least two dimensions, got %d" % x.ndim)
    axes = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return _core.permute_dims(x, axes)
