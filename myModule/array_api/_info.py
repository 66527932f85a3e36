"""``__array_namespace_info__``: what the namespace supports, for array-api-compat and
the conformance suite. Devices are GPU indices, as ``DeviceArray.device`` returns them."""
from . import _dtypes

_NAMES = ("bool", "int32", "int64", "float32", "float64")
_KIND_NAMES = {
    None: _NAMES,
    "bool": ("bool",),
    "signed integer": ("int32", "int64"),
    "unsigned integer": (),
    "integral": ("int32", "int64"),
    "real floating": ("float32", "float64"),
    "complex floating": (),
    "numeric": ("int32", "int64", "float32", "float64"),
}


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
        return {"real floating": _dtypes.float64, "complex floating": None,
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
