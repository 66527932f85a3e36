"""Print the LDSHARED that links the extension with g++.

sysconfig's LDSHARED names the C compiler (gcc, x86_64-linux-gnu-gcc, cc); the
extension is C++ and links a CUDA static library, so g++ must drive the link.
The flags after the compiler are kept as they are.
"""
import shlex
import sysconfig


def ldshared(cxx="g++"):
    words = shlex.split(sysconfig.get_config_var("LDSHARED") or "gcc -shared")
    return shlex.join([cxx] + words[1:])


if __name__ == "__main__":
    print(ldshared())
