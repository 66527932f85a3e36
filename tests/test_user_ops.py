"""The tutorial's examples in user_ops/ (docs/adding-a-kernel.md), built by every
`make` and so by CI: heaviside (an elementwise operation in one file, also tested
by test_ops.py like every operation of the table) and moving_average (a user's
own __global__ kernel), against NumPy."""
import numpy as np
import pytest

import myModule
from conftest import GPU_MARKS, requires_gpu, requires_no_gpu


def moving_average_reference(x):
    x = np.asarray(x, dtype=np.float64)
    total = x.copy()
    count = np.ones_like(x)
    total[1:] += x[:-1]
    count[1:] += 1
    total[:-1] += x[1:]
    count[:-1] += 1
    return total / count


def test_the_examples_are_in_the_op_table():
    kinds = {op["name"]: op["kind"] for op in myModule.ops}
    assert kinds.get("heaviside") == "elementwise"
    assert kinds.get("moving_average") == "raw"
    assert "moving_average" in myModule.__all__


def test_heaviside_on_the_cpu_is_numpys():
    x, h = np.array([-1.5, 0.0, -0.0, 2.0, np.nan]), np.array([7.0, 0.5, 0.25, 3.0, 1.0])
    np.testing.assert_array_equal(myModule.heaviside(x, h, device="cpu"), np.heaviside(x, h))


@requires_no_gpu
def test_a_user_kernel_without_a_gpu_raises():
    with pytest.raises(myModule.CudaUnavailableError):
        myModule.moving_average(np.arange(5.0))


@pytest.mark.parametrize("bad, exc", [
    (dict(grid=0), ValueError), (dict(block=2048), ValueError), (dict(grid=1.5), TypeError),
    (dict(block=True), TypeError)])
def test_launch_shape_is_checked_before_cuda(bad, exc):
    with pytest.raises(exc):
        myModule.moving_average(np.arange(5.0), **bad)


def test_a_user_kernel_refuses_what_it_cannot_take():
    with pytest.raises(TypeError):
        myModule.moving_average(np.arange(3) + 1j)  # complex: not a dtype of the library
    with pytest.raises(TypeError):
        myModule.moving_average()


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("n", [1, 2, 3, 255, 256, 257, 100003])
def test_moving_average_on_host_and_device_data(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n)
    expected = moving_average_reference(x)
    got = myModule.moving_average(x)
    assert isinstance(got, np.ndarray) and got.dtype == np.float64
    np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0)
    d = myModule.to_device(x)
    got_d = myModule.moving_average(d)
    assert isinstance(got_d, myModule.DeviceArray)
    np.testing.assert_allclose(got_d.get(), expected, rtol=1e-15, atol=0)
    # Strided and reversed device views: the kernel reads through the strides.
    np.testing.assert_allclose(myModule.moving_average(d[::-1]).get(),
                               moving_average_reference(x[::-1]), rtol=1e-15, atol=0)
    np.testing.assert_allclose(myModule.moving_average(d[::2]).get(),
                               moving_average_reference(x[::2]), rtol=1e-15, atol=0)


@pytest.mark.gpu
@requires_gpu
def test_moving_average_converts_dtypes_and_writes_out():
    x = np.arange(10, dtype=np.int32)
    expected = moving_average_reference(x)
    np.testing.assert_allclose(myModule.moving_average(x), expected, rtol=1e-15)
    out = myModule.empty(10)
    assert myModule.moving_average(myModule.to_device(x), out=out) is out
    np.testing.assert_allclose(out.get(), expected, rtol=1e-15)
    host_out = np.empty(10)
    assert myModule.moving_average(x, out=host_out) is host_out
    np.testing.assert_allclose(host_out, expected, rtol=1e-15)
    with pytest.raises(TypeError):
        myModule.moving_average(x, out=myModule.empty(10, dtype=np.float32))
    # A launch shape the caller gives (more threads than elements is fine).
    np.testing.assert_allclose(myModule.moving_average(x, grid=4, block=32), expected, rtol=1e-15)
