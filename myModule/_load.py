"""myModule.load: one-file operations from the user's own folder, built against
the installed package, cached per user, and registered in the one op table."""
import hashlib
import os
import re
import stat
import tempfile
import threading
import types

from . import _core
from . import build as _build

# What this process has loaded: cache key or real path -> namespace, so that
# loading the same sources twice gives the same functions.
_loaded: "dict[str, types.ModuleType]" = {}
_lock = threading.Lock()
_INCLUDE = re.compile(rb'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def cache_dir():
    """The per-user cache folder: ``$MYMODULE_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/myModule``, else ``~/.cache/myModule``."""
    root = os.environ.get("MYMODULE_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "myModule")
    return root


def _private(path):
    """Whether `path` is ours alone: owned by this user, writable by no one else
    (loading a shared object runs its code)."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (st.st_uid == os.getuid() and not stat.S_ISLNK(st.st_mode)
            and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _private_folder():
    """The cache folder, created 0700; None when it is not private (another user's,
    or group- or world-writable): then nothing is cached or loaded from it."""
    root = cache_dir()
    try:
        os.makedirs(root, mode=0o700, exist_ok=True)
    except OSError:
        return None
    return root if _private(root) else None


def _digest_file(h, path, seen):
    """The file's bytes, and those of the quoted includes next to it that are not
    the library's (a user's own header changes the library too)."""
    real = os.path.realpath(path)
    if real in seen:
        return
    seen.add(real)
    with open(real, "rb") as f:
        data = f.read()
    h.update(real.encode() + b"\0" + data + b"\0")
    folder = os.path.dirname(real)
    for name in _INCLUDE.findall(data):
        candidate = os.path.join(folder, name.decode(errors="replace"))
        if os.path.isfile(candidate):
            _digest_file(h, candidate, seen)


def cache_key(sources, archs, ptx, extra_cuda_cflags, nvcc):
    h = hashlib.sha256()
    seen = set()
    for s in sources:
        _digest_file(h, s, seen)
    from . import __version__

    h.update(repr((__version__, archs, ptx, tuple(extra_cuda_cflags),
                   _build.toolkit_identity(nvcc))).encode())
    with open(os.path.join(_build.get_include(), "module_main.cu"), "rb") as f:
        h.update(f.read())
    return h.hexdigest()[:32]


def _namespace(name, path, entries):
    module = types.ModuleType(name, "Operations loaded by myModule.load from %s." % path)
    module.__file__ = path
    module.ops = tuple(entry for _, _, entry in entries)
    module.__all__ = [n for n, _, _ in entries]
    for n, fn, _ in entries:
        setattr(module, n, fn)
    return module


def _load_library(path, name):
    from . import __version__

    return _namespace(name, path, _core._load_module(path, __version__, name))


def load(sources, *, name=None, arch=None, build_directory=None, extra_cuda_cflags=(),
         verbose=False):
    """Build (or take from the cache) and load one-file operations.

    Parameters
    ----------
    sources : str or path or list of them
        Operation files (``.cu``, as docs/adding-a-kernel.md teaches; files
        written for ``user_ops/`` load unchanged), or one operation library
        (``.so``) built by ``python -m myModule.build``, which needs no toolkit.
    name : str, optional
        The namespace's name (default: the first file's stem).
    arch : str, int or list, optional
        GPU architectures, as CUDA_ARCH spells them (``"90"``, ``"sm_90"``, ``90``,
        ``["80", "90"]``); default: those of the GPUs present, or with none, the
        architectures myModule itself was built for.
    build_directory : str, optional
        Where to build and keep the library instead of the per-user cache
        (``$MYMODULE_CACHE_DIR``, else ``~/.cache/myModule``).
    extra_cuda_cflags : sequence of str
        More nvcc flags (``-DN=4``, ``-lineinfo``).
    verbose : bool
        Print the nvcc command and its output.

    Returns
    -------
    module
        A namespace with one function per declared operation (``ops`` lists the
        declarations). The functions behave as built-in operations: NumPy's
        dtypes and broadcasting, ``out=``, ``device=``, host, DeviceArray, CuPy or
        PyTorch inputs. Loading the same sources again returns the same namespace.

    Raises
    ------
    BuildError
        No nvcc found, or nvcc refused a file (its diagnostics name file and line).
    ValueError
        An operation's name is taken by a built-in or already loaded operation
        (nothing is replaced).
    ImportError
        A library built by another myModule version.
    """
    sources = _build.source_paths(sources)
    name = _build.check_name(name)
    extra_cuda_cflags = _build.check_flags(extra_cuda_cflags)
    if build_directory is not None and not isinstance(build_directory, (str, os.PathLike)):
        raise TypeError("build_directory must be a path or None")
    if len(sources) == 1 and sources[0].endswith(".so"):
        return _load_prebuilt(sources[0], name)
    if any(s.endswith(".so") for s in sources):
        raise ValueError("load takes operation files (.cu) or one built library (.so), not both")
    sources = _build._check_sources(sources)
    name = _build.library_name(sources, name)
    nvcc = _build.nvcc_path()
    ptx = False
    archs = _build.parse_arch(arch) if arch is not None else _build.default_arch()
    key = cache_key(sources, archs, ptx, extra_cuda_cflags, nvcc)
    with _lock:
        if key in _loaded:
            return _loaded[key]
        folder = build_directory if build_directory is not None else _private_folder()
        if folder is not None:
            os.makedirs(folder, mode=0o700, exist_ok=True)
        if folder is not None and not _private(folder):
            folder = None
        path = None if folder is None else os.path.join(folder, "%s-%s.so" % (name, key))
        if path is None or not (os.path.exists(path) and _private(path)):
            path = _build_into(sources, folder, name, key, archs, ptx, extra_cuda_cflags, verbose)
        module = _load_library(path, name)
        _loaded[key] = module
        return module


def _build_into(sources, folder, name, key, archs, ptx, extra_cuda_cflags, verbose):
    """Builds the library into the cache (atomically: build.compile_into); without
    a private folder, a fresh private one holds it unshared."""
    if folder is None:
        folder = tempfile.mkdtemp(prefix="myModule-ops-")
    return _build.compile_into(sources, os.path.join(folder, "%s-%s.so" % (name, key)), archs, mode=0o700,
                               ptx=ptx, extra_cuda_cflags=extra_cuda_cflags, verbose=verbose)


def _load_prebuilt(path, name):
    real = os.path.realpath(path)
    if not os.path.isfile(real):
        raise FileNotFoundError("no such operation library: %s" % path)
    if not _private(real) and os.stat(real).st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise ImportError("%s is writable by other users: loading it would run whatever they "
                          "put there; make it writable by its owner only (chmod go-w)" % path)
    if name is not None:
        name = _build.library_name([real], name)
    else:
        stem = os.path.splitext(os.path.basename(real))[0]
        name = stem if stem.isidentifier() else "ops"
    with _lock:
        if real in _loaded:
            return _loaded[real]
        module = _load_library(real, name)
        _loaded[real] = module
        return module
