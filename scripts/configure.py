"""Print the LDSHARED that links the extension with g++.

sysconfig's LDSHARED names the C compiler (gcc, x86_64-linux-gnu-gcc, cc); the
extension is C++ and links a CUDA static library, so g++ must drive the link.
The flags after the compiler are kept, except run paths (-Wl,-rpath,DIR): a
Python built with a shared libpython (pyenv's) names its own prefix there, the
extension loads nothing from it, and a wheel must not point at the build
machine's folders.
"""
import shlex
import sysconfig


def _is_rpath(word):
    return word.startswith(("-Wl,-rpath,", "-Wl,-rpath=", "-Wl,-R"))


def ldshared(cxx="g++"):
    words = shlex.split(sysconfig.get_config_var("LDSHARED") or "gcc -shared")
    return shlex.join([cxx] + [w for w in words[1:] if not _is_rpath(w)])


if __name__ == "__main__":
    print(ldshared())
