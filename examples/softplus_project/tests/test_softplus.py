"""softplus_ops against its NumPy reference, installed from its wheel."""
import os

import numpy as np
import pytest

import myModule
import softplus_ops
from softplus_ops.reference import softplus as reference


def test_the_cpu_path_is_the_reference():
    x = np.array([-40.0, -1.0, -0.0, 0.0, 1.0, 30.0, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(softplus_ops.softplus(x, device="cpu"), reference(x))


# Skipped where there is no GPU, unless the run requires one (MYMODULE_REQUIRE_GPU=1,
# as myModule's own suite on a GPU machine): then its absence fails.
@pytest.mark.skipif(not myModule.cuda_available() and os.environ.get("MYMODULE_REQUIRE_GPU") != "1",
                    reason="no usable CUDA GPU")
def test_the_gpu_matches_the_reference():
    x = np.random.default_rng(0).standard_normal(1 << 20) * 10
    np.testing.assert_allclose(softplus_ops.softplus(x, device="cuda"), reference(x), rtol=1e-15)
    d = myModule.to_device(x.astype(np.float32))
    got = softplus_ops.softplus(d)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.get(), reference(x.astype(np.float32)), rtol=1e-6)
