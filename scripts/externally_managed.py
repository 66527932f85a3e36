"""Print "yes" when this Python refuses global installs (PEP 668), else nothing.

Debian's and Ubuntu's system Pythons carry an EXTERNALLY-MANAGED marker in the
standard library folder; pip then refuses to install outside a virtual
environment. Inside a virtual environment the marker does not apply.
"""
import os
import sys
import sysconfig


def externally_managed():
    if sys.prefix != sys.base_prefix:
        return False
    return os.path.isfile(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED"))


if __name__ == "__main__":
    if externally_managed():
        print("yes")
