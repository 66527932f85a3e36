"""Build one-file operations into an operation library, outside the repository.

The files are the ones docs/adding-a-kernel.md teaches (``VA_ELEMENTWISE``,
``VA_REDUCTION``, ``VA_RAW_KERNEL``); they compile with nvcc against the headers
installed with the package (`get_include`) into one shared object, which
``myModule.load`` takes on any machine with the NVIDIA driver (no toolkit).

Command line::

    python -m myModule.build softplus.cu stencil.cu -o dist/ [--arch 80 90] [--name ops]

writes ``dist/ops.so`` (default name: the first file's stem). In a package of
your own, `build_py_with_ops` builds the operations into your wheel.
"""
import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

from . import _errors
from ._errors import BuildError

__all__ = ["BuildError", "build", "build_py_with_ops", "get_include", "nvcc_path",
           "parse_arch", "default_arch", "main"]

_ARCH_WORD = re.compile(r"^(?:sm_|compute_)?(\d{2,3})[a-z]?$")


def get_include():
    """The folder of the headers an operation file includes (``op_declare.cuh``,
    ``raw_kernel.cuh``, ...), installed with the package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")


def _version():
    from . import __version__

    return __version__


def nvcc_path():
    """The nvcc to build with: ``$CUDA_PATH/bin/nvcc`` (or ``$CUDA_HOME``), else
    the first on ``PATH``, else ``/usr/local/cuda/bin/nvcc``; BuildError when
    none of them is there."""
    tried = []
    for variable in ("CUDA_PATH", "CUDA_HOME"):
        root = os.environ.get(variable)
        if root:
            candidate = os.path.join(root, "bin", "nvcc")
            if os.access(candidate, os.X_OK):
                return candidate
            tried.append("%s=%s (no bin/nvcc)" % (variable, root))
    found = shutil.which("nvcc")
    if found:
        return found
    tried.append("nvcc on PATH")
    if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) and not any(
            os.environ.get(v) for v in ("CUDA_PATH", "CUDA_HOME")):
        return "/usr/local/cuda/bin/nvcc"
    tried.append("/usr/local/cuda/bin/nvcc")
    raise BuildError(
        "no CUDA toolkit found (looked at: %s). Building an operation needs nvcc, the CUDA "
        "toolkit's compiler (13.0 or newer): install the toolkit, then set CUDA_PATH to its "
        "folder (CUDA_PATH=/usr/local/cuda-13.0) or put its bin/ on PATH. A machine with only "
        "the driver can load an operation library built elsewhere with "
        "python -m myModule.build." % ", ".join(tried))


def tool_env():
    """The environment nvcc runs in: the caller's, with the system's tool folders
    after its PATH where the host compiler is not on it (nvcc runs g++ by name, and
    g++ runs as and ld by name: a clean environment or a virtual environment's bin
    alone has none of them)."""
    env = dict(os.environ)
    if shutil.which("g++") is None:
        env["PATH"] = os.pathsep.join(p for p in (env.get("PATH", ""), "/usr/local/bin", "/usr/bin", "/bin") if p)
    return env


def toolkit_identity(nvcc):
    """What identifies the toolkit in a cache key: its version.json where there
    is one (reading a file costs less than running nvcc), else nvcc --version."""
    root = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    try:
        with open(os.path.join(root, "version.json"), "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True)
        return out.stdout


def parse_arch(arch):
    """Architectures as CUDA_ARCH spells them: ``"90"``, ``"sm_90"``, ``90``,
    ``"80 90"``, ``"80,90"`` or a list of those; a sorted tuple of ints."""
    if isinstance(arch, bool):
        raise TypeError("arch must be an architecture such as '90', 'sm_90', 90 or a list, not bool")
    if isinstance(arch, int):
        words = [str(arch)]
    elif isinstance(arch, str):
        words = arch.replace(",", " ").split()
    elif isinstance(arch, (list, tuple)):
        words = []
        for item in arch:
            words.extend(str(a) for a in parse_arch(item))
    else:
        raise TypeError("arch must be a str, an int or a list of them, not %s" % type(arch).__name__)
    result = set()
    for word in words:
        m = _ARCH_WORD.match(word.strip())
        if m is None or int(m.group(1)) < 50:
            raise ValueError("not a GPU architecture: %r (examples: '90', 'sm_90', 90, '80 90')" % word)
        result.add(int(m.group(1)))
    if not result:
        raise ValueError("arch names no architecture")
    return tuple(sorted(result))


def default_arch():
    """The architectures of the GPUs present; with none, those the package was
    built for."""
    from . import _core

    try:
        count = _core.device_count() if _core.cuda_available() else 0
        present = {"%d%d" % _core.device_info(i)["compute_capability"] for i in range(count)}
    except _errors.CudaError:  # no usable GPU after all: the package's architectures
        present = set()
    if present:
        return parse_arch(sorted(present))
    return parse_arch(_core._runtime_info()["built_architectures"])


def _gencode(archs, ptx):
    flags = ["-gencode=arch=compute_%d,code=sm_%d" % (a, a) for a in archs]
    if ptx:
        flags.append("-gencode=arch=compute_%d,code=compute_%d" % (archs[-1], archs[-1]))
    return flags


def nvcc_command(nvcc, sources, output, archs, *, ptx=False, extra_cuda_cflags=(), version=None):
    """The one nvcc command that builds `sources` into the operation library
    `output`. The user's files keep their warnings as warnings (-Wall -Wextra,
    no -Werror); only the init symbols are exported, the static CUDA runtime
    inside stays private."""
    include = get_include()
    version = _version() if version is None else version
    dirs = []
    for s in sources:
        d = os.path.dirname(os.path.abspath(s))
        if d not in dirs:
            dirs.append(d)
    return ([nvcc, "-std=c++17", "-O3", "-shared", "-DVA_MODULE",
             '-DVA_MODULE_VERSION="%s"' % version]
            + _gencode(archs, ptx)
            + ["-Xcompiler", "-fPIC,-fvisibility=hidden,-Wall,-Wextra", "-cudart", "static",
               "-Xlinker", "--exclude-libs,ALL", "-I" + include]
            + ["-I" + d for d in dirs]
            + list(extra_cuda_cflags)
            + ["-o", output] + [os.path.abspath(s) for s in sources]
            + [os.path.join(include, "module_main.cu")])


def compile_library(sources, output, archs, *, ptx=False, extra_cuda_cflags=(), verbose=False,
                    version=None):
    """Runs nvcc; BuildError with its diagnostics when it fails. Returns what it
    printed (warnings), to be reported by the caller."""
    nvcc = nvcc_path()
    command = nvcc_command(nvcc, sources, output, archs, ptx=ptx,
                           extra_cuda_cflags=extra_cuda_cflags, version=version)
    if verbose:
        print(" ".join(command), flush=True)
    result = subprocess.run(command, capture_output=True, text=True, env=tool_env())
    printed = (result.stdout + result.stderr).strip()
    if verbose and printed:
        print(printed, flush=True)
    if result.returncode != 0:
        raise BuildError("nvcc could not build %s:\n%s" % (", ".join(sources), printed),
                         command=command, output=printed)
    return printed


def source_paths(sources):
    """`sources` (a path, or a list or tuple of paths) as a list of str: TypeError
    for anything else, before any file is read or any tool run."""
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    if not isinstance(sources, (list, tuple)):
        raise TypeError("sources must be a path or a list of paths, not %s" % type(sources).__name__)
    paths = []
    for s in sources:
        if not isinstance(s, (str, os.PathLike)):
            raise TypeError("sources must be paths (str or os.PathLike), not %s" % type(s).__name__)
        paths.append(os.fspath(s))
    if not paths or any(isinstance(p, bytes) for p in paths):
        raise ValueError("sources must name at least one file, as str paths")
    return paths


def check_flags(extra_cuda_cflags):
    """extra_cuda_cflags as a list of str (a lone str would be split into characters)."""
    if isinstance(extra_cuda_cflags, (str, bytes)) or not isinstance(extra_cuda_cflags, (list, tuple)):
        raise TypeError("extra_cuda_cflags must be a list of str, such as ['-DN=4']")
    if not all(isinstance(f, str) for f in extra_cuda_cflags):
        raise TypeError("extra_cuda_cflags must hold str only")
    return list(extra_cuda_cflags)


def _check_sources(sources):
    sources = source_paths(sources)
    for s in sources:
        if not os.path.isfile(s):
            raise FileNotFoundError("no such operation file: %s" % s)
    return sources


def check_name(name):
    """None, or a library name: a Python identifier (TypeError, ValueError)."""
    if name is not None and not isinstance(name, str):
        raise TypeError("name must be a str, not %s" % type(name).__name__)
    if name is not None and not name.isidentifier():
        raise ValueError("the operation library's name must be a Python identifier, not %r" % name)
    return name


def library_name(sources, name=None):
    """The library's name: `name`, else the first file's stem; a Python identifier."""
    name = check_name(name) or os.path.splitext(os.path.basename(os.fspath(sources[0])))[0]
    if not name.isidentifier():
        raise ValueError("the operation library's name must be a Python identifier, not %r" % name)
    return name


def build(sources, output_dir, *, name=None, arch=None, extra_cuda_cflags=(), verbose=False):
    """Builds `sources` into ``output_dir/<name>.so`` and returns its path.

    `arch` as for `load`; by default the architectures the package was built for
    plus PTX for later GPUs (a library to ship), or ``$CUDA_ARCH``."""
    sources = _check_sources(sources)
    name = library_name(sources, name)
    extra_cuda_cflags = check_flags(extra_cuda_cflags)
    if arch is None and os.environ.get("CUDA_ARCH"):
        arch = os.environ["CUDA_ARCH"]
    ptx = arch is None
    archs = parse_arch(arch) if arch is not None else default_arch_of_package()
    os.makedirs(output_dir, exist_ok=True)
    return compile_into(sources, os.path.join(output_dir, name + ".so"), archs, mode=0o755, ptx=ptx,
                        extra_cuda_cflags=extra_cuda_cflags, verbose=verbose)


def compile_into(sources, final, archs, *, mode, ptx=False, extra_cuda_cflags=(), verbose=False):
    """Builds into a temporary file beside `final`, then renames it into place: a
    process loading `final` at the same time sees a whole library or none, never
    half of one. nvcc's warnings about the user's files become BuildWarning."""
    import warnings

    from ._errors import BuildWarning

    fd, partial = tempfile.mkstemp(prefix=".%s-" % os.path.basename(final), suffix=".so",
                                   dir=os.path.dirname(final))
    os.close(fd)
    try:
        printed = compile_library(sources, partial, archs, ptx=ptx,
                                  extra_cuda_cflags=extra_cuda_cflags, verbose=verbose)
        os.chmod(partial, mode)
        os.replace(partial, final)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    if "warning" in printed and not verbose:
        warnings.warn(BuildWarning(printed), stacklevel=3)
    return final


def default_arch_of_package():
    from . import _core

    return parse_arch(_core._runtime_info()["built_architectures"])


def build_py_with_ops(libraries, arch=None, extra_cuda_cflags=()):
    """A setuptools ``build_py`` command that also builds operation libraries
    into your package, so that they ship in its wheel.

    `libraries` maps a library's path inside the package tree, without ``.so``,
    to its source files: ``{"softplus_ops/_ops": ["softplus_ops/softplus.cu"]}``.
    In setup.py::

        from myModule.build import build_py_with_ops
        setup(..., cmdclass={"build_py": build_py_with_ops({...})})

    and in the package, ``ops = myModule.load(os.path.join(here, "_ops.so"))``.
    The wheel then holds machine code (tag it for the platform: setup.py's
    ``distclass`` or a `has_ext_modules` override, as the example project does).
    """
    from setuptools.command.build_py import build_py

    class BuildPyWithOps(build_py):
        def run(self):
            super().run()
            for target, sources in libraries.items():
                output_dir = os.path.join(self.build_lib, os.path.dirname(target))
                path = build(sources, output_dir, name=os.path.basename(target), arch=arch,
                             extra_cuda_cflags=extra_cuda_cflags)
                print("built operation library %s" % path)

    return BuildPyWithOps


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m myModule.build",
        description="Build one-file operations into a library that myModule.load takes "
                    "on a machine with only the NVIDIA driver.")
    parser.add_argument("sources", nargs="+", help="operation files (.cu)")
    parser.add_argument("-o", "--output-dir", required=True, help="folder of the library")
    parser.add_argument("--arch", nargs="+", default=None,
                        help="architectures (90, sm_90, ...); default: the package's, plus PTX")
    parser.add_argument("--name", default=None, help="library name (default: first file's stem)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print the nvcc command")
    args = parser.parse_args(argv)
    try:
        path = build(args.sources, args.output_dir, name=args.name, arch=args.arch,
                     verbose=args.verbose)
    except (BuildError, ValueError, FileNotFoundError) as err:
        print("error: %s" % err, file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
