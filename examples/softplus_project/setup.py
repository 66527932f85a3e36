"""Builds the package with its CUDA operation: softplus.cu becomes
softplus_ops/_ops.so in the wheel, compiled against the installed myModule
(CUDA_ARCH picks the architectures; default: those myModule was built for)."""
from setuptools import setup
from setuptools.dist import Distribution

from myModule.build import build_py_with_ops


class BinaryDistribution(Distribution):
    """The wheel holds machine code: tag it for the platform, not py3-none-any."""

    def has_ext_modules(self):
        return True


setup(
    distclass=BinaryDistribution,
    cmdclass={"build_py": build_py_with_ops({"softplus_ops/_ops": ["softplus_ops/softplus.cu"]})},
)
