"""show_config(): what myModule was built with and what it finds at run time."""
import sys

import numpy

from . import _core


def _version(v):
    return "none" if not v else "%d.%d" % (v // 1000, (v % 1000) // 10)


def show_config(file=None):
    """Print the versions, the GPUs found, and why CUDA is unusable when it is.

    The first thing to run when a GPU is not used: where CUDA is unusable the
    reason is printed ("no NVIDIA driver found", a driver older than the
    minimum, no GPU visible), and that ``device="auto"`` computes on the CPU.

    Parameters
    ----------
    file : file-like, optional
        Where to write (anything with ``write``); `sys.stdout` by default.

    Returns
    -------
    None

    See Also
    --------
    cuda_available : whether a GPU can be used, as a bool.
    device_info : the same facts about one GPU, as a dict.
    numpy.show_config : NumPy's build information.

    Examples
    --------
    >>> import io
    >>> import myModule
    >>> buf = io.StringIO()
    >>> myModule.show_config(file=buf)
    >>> buf.getvalue().startswith("myModule " + myModule.__version__)
    True
    >>> ("CUDA unusable" in buf.getvalue()) == (not myModule.cuda_available())
    True
    """
    from . import __version__

    out = file if file is not None else sys.stdout
    info = _core._runtime_info()
    print("myModule %s" % __version__, file=out)
    print("  Python %s, NumPy %s" % (sys.version.split()[0], numpy.__version__), file=out)
    print("  CUDA runtime %s (linked statically), driver %s"
          % (_version(info["runtime_version"]), _version(info["driver_version"])), file=out)
    if not info["cuda_available"]:
        print("  CUDA unusable: %s (%s, code %d)"
              % (info["reason"], info["error_name"], info["error_code"]), file=out)
        print("  device='auto' computes on the CPU; device='cuda' raises CudaUnavailableError",
              file=out)
        return
    for d in range(info["device_count"]):
        di = _core.device_info(d)
        print("  GPU %d: %s, compute capability %d.%d, %d SMs, %.1f GiB (%.1f GiB free)"
              % (d, di["name"], di["compute_capability"][0], di["compute_capability"][1],
                 di["multiprocessors"], di["total_memory"] / 2**30, di["free_memory"] / 2**30),
              file=out)
    try:
        chosen = "GPUs %s" % ", ".join(str(d) for d in _core.devices())
    except ValueError as e:  # a malformed MYMODULE_DEVICES: say so, as operations will
        chosen = "none (%s)" % e
    print("  host arrays go to %s (MYMODULE_DEVICES, set_devices()); device='auto' sends them"
          " from the sizes where that beats NumPy" % chosen, file=out)
