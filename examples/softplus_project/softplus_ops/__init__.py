"""softplus_ops: an example of a package that ships its own CUDA operation.

setup.py builds softplus.cu into _ops.so (myModule.build.build_py_with_ops); here
myModule loads it, which needs the NVIDIA driver only (no CUDA toolkit).
"""
import os

import myModule

_ops = myModule.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "_ops.so"))
softplus = _ops.log1pexp

__all__ = ["softplus"]
