"""Build myModule: `make lib` builds the CUDA library (libvectoradd.a), then the
extension (myModule.c and ext/*.cpp, compiled as C++) is linked against it and
the static CUDA runtime by g++, with LDSHARED from scripts/configure.py."""
import glob
import os
import re
import shlex
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from configure import ldshared  # noqa: E402

CUDA_PATH = os.environ.get("CUDA_PATH", "/usr/local/cuda")
# What users compile their own operations against (myModule.get_include()):
# the library's headers and the operation library's main unit, copied into the
# package on every build so that an installed package carries them.
PUBLIC_HEADERS = sorted(glob.glob(os.path.join(ROOT, "vectorAdd", "*.cuh")) +
                        glob.glob(os.path.join(ROOT, "vectorAdd", "*.h")) +
                        [os.path.join(ROOT, "vectorAdd", "module_main.cu")])


def stage_headers():
    target = os.path.join(ROOT, "myModule", "include")
    os.makedirs(target, exist_ok=True)
    for source in PUBLIC_HEADERS:
        destination = os.path.join(target, os.path.basename(source))
        with open(source, "rb") as f:
            data = f.read()
        if not os.path.exists(destination) or open(destination, "rb").read() != data:
            with open(destination, "wb") as f:
                f.write(data)

LIBRARY = os.path.join("build", "libvectoradd.a")


def numpy_include():
    import numpy

    return numpy.get_include()


class BuildExt(build_ext):
    def finalize_options(self):
        super().finalize_options()
        self.include_dirs.append(numpy_include())

    def run(self):
        subprocess.check_call(["make", "-C", ROOT, "lib", "PYTHON=" + sys.executable])
        super().run()

    def build_extensions(self):
        # C++ by g++ for compiling and linking; flags meant for C only are dropped.
        c_only = {"-Wstrict-prototypes", "-Wdeclaration-after-statement", "-std=c99", "-std=c11"}
        compile_flags = [f for f in self.compiler.compiler_so[1:] if f not in c_only]
        self.compiler.set_executable("compiler_so", ["g++"] + compile_flags)
        self.compiler.set_executable("linker_so", shlex.split(ldshared("g++")))
        # One line a file, as the library build prints (pip shows it with -v).
        compile_one = self.compiler._compile

        def compile_and_say(obj, src, *args, **kwargs):
            print("  CXX   %s" % os.path.relpath(src, ROOT), flush=True)
            return compile_one(obj, src, *args, **kwargs)

        self.compiler._compile = compile_and_say
        super().build_extensions()


# make asan sets SANITIZE=address,undefined for a sanitized build of the host code.
SANITIZE = os.environ.get("SANITIZE", "")
SAN_FLAGS = ["-fsanitize=" + SANITIZE, "-fno-omit-frame-pointer"] if SANITIZE else []

extension = Extension(
    "myModule._core",
    sources=["myModule.c"] + sorted(glob.glob("ext/*.cpp")),
    depends=sorted(glob.glob("ext/*.h") + glob.glob("ext/*.def")) + ["vectorAdd/vectorAdd.h", LIBRARY],
    include_dirs=["vectorAdd", "."],
    extra_objects=[LIBRARY],
    library_dirs=[os.path.join(CUDA_PATH, "lib64")],
    libraries=["cudart_static", "dl", "rt", "pthread"],
    extra_compile_args=["-std=c++17", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden"] + SAN_FLAGS,
    # The library's va_* symbols and the static CUDA runtime's stay inside the
    # extension: it exports its module init only, so nothing else loaded in the
    # process (another extension, a user's operation library) can meet them.
    extra_link_args=SAN_FLAGS + ["-Wl,--exclude-libs,ALL"],
    language="c++",
)


# The op table's functions for type checkers (mypy cannot see the functions
# __init__ adds from the table at import): one stub each, written from the
# declarations of ops/ and user_ops/ into myModule/_ops.pyi.
DECLARATION = re.compile(
    r'VA_(ELEMENTWISE|REDUCTION|RAW_KERNEL)\(\s*(\w+)\s*,\s*\w+\s*,\s*(?:"([^"]*)"\s*,\s*(\d+))?')


# The array functions' declarations (ext/array_functions.def): name, forms, NumPy
# name, array API name, signature.
ARRAY_FUNCTION = re.compile(r'VA_ARRAY_FUNCTION\(\s*(\w+)\s*,\s*([A-Z_ |]+?)\s*,\s*"[^"]*"\s*,\s*"[^"]*"\s*,'
                            r'\s*"([^"]*)"')
STUB_TYPES = {"array": "Any", "axis": "SupportsIndex", "axes": "Union[SupportsIndex, Sequence[SupportsIndex]]",
              "new_axes": "Union[SupportsIndex, Sequence[SupportsIndex]]", "object": "Any"}


def array_function_stubs():
    """The module functions, and the methods as a class DeviceArray's stub derives from."""
    with open(os.path.join(ROOT, "ext", "array_functions.def")) as f:
        declarations = ARRAY_FUNCTION.findall(f.read())
    functions, methods = [], []
    for name, forms, signature in declarations:
        params = []
        for item in (part.strip() for part in signature.split(",")):
            if item in ("/", "*"):
                params.append(item)
                continue
            pname, _, rest = item.partition(":")
            kind, _, default = rest.partition("=")
            annotation = STUB_TYPES[kind.strip()]
            params.append("%s: %s" % (pname.strip(), "Optional[%s] = ..." % annotation if default else annotation))
        if "AF_FUNCTION" in forms:
            functions.append("def %s(%s) -> Any: ..." % (name, ", ".join(params)))
        if "AF_METHOD" in forms:
            methods.append("    def %s(self, %s) -> Any: ..." % (name, ", ".join(params[1:])))
    return ([""] + functions +
            ["", "", "class _ArrayFunctionMethods:"] + (methods or ["    pass"]))


def stage_op_stubs():
    lines = ['"""The op table\'s functions and the declared array functions, for type checkers',
             '(written by setup.py from the declarations of ops/, user_ops/ and',
             'ext/array_functions.def; __init__ adds the functions at import)."""',
             "from typing import Any, Optional, Sequence, SupportsIndex, Union", ""]
    for path in sorted(glob.glob(os.path.join(ROOT, "ops", "*.cu")) +
                       glob.glob(os.path.join(ROOT, "user_ops", "*.cu"))):
        with open(path) as f:
            for kind, name, args, nparams in DECLARATION.findall(f.read()):
                if kind == "REDUCTION":
                    lines.append("def %s(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, "
                                 "keepdims: bool = False, *, device: Any = 'auto') -> Any: ..." % name)
                    continue
                params = ", ".join("%s: Any" % a for a in args.split(",") if a)
                tail = "grid: Any = None, block: Any = None" if kind == "RAW_KERNEL" else "device: Any = 'auto'"
                lines.append("def %s(%s, /, out: Any = None, %s) -> Any: ..." % (name, params, tail))
    lines += array_function_stubs()
    text = "\n".join(lines) + "\n"
    target = os.path.join(ROOT, "myModule", "_ops.pyi")
    if not os.path.exists(target) or open(target).read() != text:
        with open(target, "w") as f:
            f.write(text)


stage_headers()
stage_op_stubs()
setup(ext_modules=[extension], cmdclass={"build_ext": BuildExt})
