"""The GPUs that host (NumPy) data goes to: ``devices()`` and ``set_devices()``."""
from . import _core


def devices():
    """The GPUs that host arrays go to, as a list of indices.

    Operations on host arrays with ``device="cuda"`` (or ``"auto"`` above its
    threshold) run on these GPUs: large ones are shared out among all of them,
    smaller ones run on the first. By default every GPU of the machine; the
    environment variable ``MYMODULE_DEVICES`` (``"0,1"``), read at first use,
    or `set_devices` narrows the set. ``device=N`` or ``"cuda:N"`` on an
    operation names one GPU instead, in the set or not.

    Returns
    -------
    list of int
        The indices, in the order given; empty on a machine with no usable GPU.

    Raises
    ------
    ValueError
        When ``MYMODULE_DEVICES`` is malformed, repeats a GPU or names one past
        ``device_count()``.

    See Also
    --------
    set_devices : choose the set.
    device_count : how many GPUs the machine has.

    Examples
    --------
    >>> import myModule
    >>> myModule.set_devices(None)  # the default: MYMODULE_DEVICES, else all GPUs
    >>> import os
    >>> "MYMODULE_DEVICES" in os.environ or myModule.devices() == list(range(myModule.device_count()))
    True
    """
    return _core.devices()


def set_devices(devices):
    """Choose the GPUs that host arrays go to.

    Parameters
    ----------
    devices : sequence of int or None
        Distinct GPU indices below ``device_count()``: large host-array operations
        and reductions are shared out among them, smaller ones run on the first.
        ``None`` goes back to the default, ``MYMODULE_DEVICES`` when it is set
        (read again at the next use), else every GPU.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        For anything but a sequence of ints, or None.
    ValueError
        For an empty sequence, a repeated index, or one past ``device_count()``.

    See Also
    --------
    devices : the set in use.

    Examples
    --------
    >>> import myModule
    >>> myModule.set_devices([])
    Traceback (most recent call last):
    ...
    ValueError: set_devices() needs at least one GPU (None goes back to the default)
    >>> myModule.set_devices(None)
    """
    return _core.set_devices(devices)
