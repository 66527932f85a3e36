"""show_config(): what myModule was built with and what it finds at run time."""
import sys

import numpy

from . import _core


def _version(v):
    return "none" if not v else "%d.%d" % (v // 1000, (v % 1000) // 10)


def show_config(file=None):
    """Print versions, the GPUs found, and why CUDA is unusable when it is."""
    from . import __version__

    out = file if file is not None else sys.stdout
    info = _core._runtime_info()
    print("myModule %s" % __version__, file=out)
    print("  Python %s, NumPy %s" % (sys.version.split()[0], numpy.__version__), file=out)
    print("  CUDA runtime %s (linked statically), driver %s"
          % (_version(info["runtime_version"]), _version(info["driver_version"])), file=out)
    if not info["cuda_available"]:
        print("  CUDA unusable: %s (%s, code %d); device='auto' computes on the CPU"
              % (info["reason"], info["error_name"], info["error_code"]), file=out)
        return
    for d in range(info["device_count"]):
        di = _core.device_info(d)
        print("  GPU %d: %s, compute capability %d.%d, %d SMs, %.1f GiB (%.1f GiB free)"
              % (d, di["name"], di["compute_capability"][0], di["compute_capability"][1],
                 di["multiprocessors"], di["total_memory"] / 2**30, di["free_memory"] / 2**30),
              file=out)
