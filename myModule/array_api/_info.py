"""``__array_namespace_info__``: what the namespace supports, for array-api-compat and
the conformance suite. Devices are GPU indices, as ``DeviceArray.device`` returns them."""
from . import _dtypes

_NAMES = tuple(d.name for d in _dtypes._ALL)
_KIND_NAMES = {kind: tuple(d.name for d in dtypes) for kind, dtypes in _dtypes._KINDS.items()}
_KIND_NAMES[None] = _NAMES


class Info:
    __module__ = "myModule.array_api"

    def capabilities(self):
        # Boolean masks and nonzero() give arrays whose shape depends on the data.
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 32}

    def default_device(self):
        return 0

    def devices(self):
        from .. import _core
        return list(range(_core.device_count()))

    def default_dtypes(self, *, device=None):
        return {"real floating": _dtypes.float64, "complex floating": _dtypes.complex128,
                "integral": _dtypes.int64, "indexing": _dtypes.int64}

    def dtypes(self, *, device=None, kind=None):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        names = []
        for k in kinds:
            if k not in _KIND_NAMES:
                raise ValueError("unknown dtype kind %r" % (k,))
            names += [n for n in _KIND_NAMES[k] if n not in names]
        return {n: getattr(_dtypes, n) for n in names}


def __array_namespace_info__():
    return Info()
