"""The contenders (myModule, NumPy, CuPy, PyTorch): which can run here, how each
synchronises, and their spellings of the calls every row needs (binary ops, upload)."""
import gc

import numpy as np

from .timing import noop

COLUMNS = ("myModule", "NumPy", "CuPy", "PyTorch")


class Lib:
    """One contender: its module, whether it (and its GPU) can be used, and how to sync."""

    def __init__(self, label):
        self.label = label
        self.mod = None
        self.ok = False         # importable
        self.gpu = False        # a usable GPU
        self.why = ""
        self.version = None
        self.sync = noop

    def usable(self, needs_gpu):
        return self.ok and (self.gpu or not needs_gpu)

    def reason(self, needs_gpu):
        if not self.ok:
            return self.why or "not importable"
        if needs_gpu and not self.gpu:
            return self.why or "no usable GPU"
        return ""


def load_libs():
    libs = {}
    lib = Lib("NumPy")
    lib.mod, lib.ok, lib.version = np, True, np.__version__
    libs["NumPy"] = lib

    lib = Lib("myModule")
    try:
        import myModule as mm
        lib.mod, lib.ok, lib.version = mm, True, mm.__version__
        lib.gpu = bool(mm.cuda_available())
        if lib.gpu:
            lib.sync = mm.synchronize
        else:
            info = mm._runtime_info() if hasattr(mm, "_runtime_info") else {}
            lib.why = "no usable GPU (%s)" % info.get("error_name", "cuda_available() is False")
    except Exception as exc:  # noqa: BLE001 - report any import failure as a skip
        lib.why = "import failed: %s" % exc
    libs["myModule"] = lib

    lib = Lib("CuPy")
    try:
        import cupy as cp
        lib.mod, lib.ok, lib.version = cp, True, cp.__version__
        try:
            lib.gpu = cp.cuda.runtime.getDeviceCount() > 0
            if lib.gpu:
                dev = cp.cuda.Device()
                lib.sync = dev.synchronize
                cp.add(cp.ones(4), cp.ones(4))   # fail here, not in a case
                lib.sync()
        except Exception as exc:  # noqa: BLE001
            lib.gpu, lib.why = False, "no usable GPU: %s" % exc
    except Exception as exc:  # noqa: BLE001
        lib.why = "import failed: %s" % exc.__class__.__name__
    libs["CuPy"] = lib

    lib = Lib("PyTorch")
    try:
        import torch
        lib.mod, lib.ok, lib.version = torch, True, torch.__version__
        lib.gpu = bool(torch.cuda.is_available())
        if lib.gpu:
            lib.sync = torch.cuda.synchronize
        else:
            lib.why = "torch.cuda.is_available() is False"
    except Exception as exc:  # noqa: BLE001
        lib.why = "import failed: %s" % exc.__class__.__name__
    libs["PyTorch"] = lib
    return libs


def binop(lib, op):
    """The contender's function for add/subtract/multiply/divide."""
    if lib.label == "PyTorch":
        t = lib.mod
        return {"add": t.add, "subtract": t.sub, "multiply": t.mul, "divide": t.div}[op]
    if lib.label == "CuPy" and op == "divide":
        return lib.mod.true_divide
    if lib.label == "NumPy" and op == "divide":
        return np.true_divide
    return getattr(lib.mod, op)


def upload(lib, host):
    if lib.label == "myModule":
        return lib.mod.to_device(host)
    if lib.label == "CuPy":
        return lib.mod.asarray(host)
    if lib.label == "PyTorch":
        return lib.mod.from_numpy(host).cuda()
    return host


def release_gpu_memory(libs):
    gc.collect()
    for lib in libs.values():
        if not lib.gpu:
            continue
        try:
            lib.sync()
            if lib.label == "CuPy":
                lib.mod.get_default_memory_pool().free_all_blocks()
                lib.mod.get_default_pinned_memory_pool().free_all_blocks()
            elif lib.label == "PyTorch":
                lib.mod.cuda.empty_cache()
            elif lib.label == "myModule" and hasattr(lib.mod, "_release_cached"):
                lib.mod._release_cached()
        except Exception:  # noqa: BLE001 - freeing caches is best effort
            pass
