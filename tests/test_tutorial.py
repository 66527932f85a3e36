"""helloworld() and fib(n), the functions of the source tutorials."""
import io
import sys

import numpy as np
import pytest

import myModule


def fib_loop(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def test_helloworld_writes_to_sys_stdout(capsys):
    result = myModule.helloworld()
    assert result is None
    captured = capsys.readouterr()
    assert captured.out == "Hello World\n"
    assert captured.err == ""


def test_helloworld_follows_redirected_sys_stdout(monkeypatch):
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stdout", buf)
    assert myModule.helloworld() is None
    assert buf.getvalue() == "Hello World\n"


def test_helloworld_takes_no_arguments():
    with pytest.raises(TypeError):
        myModule.helloworld(1)


@pytest.mark.parametrize("n", [0, 1, 2, 10, 92, 93, 94, 95, 100, 1000])
def test_fib_exact(n):
    got = myModule.fib(n)
    assert type(got) is int
    assert got == fib_loop(n)


def test_fib_known_values():
    assert myModule.fib(0) == 0
    assert myModule.fib(1) == 1
    assert myModule.fib(2) == 1
    assert myModule.fib(10) == 55
    assert myModule.fib(93) == 12200160415121876738
    assert myModule.fib(94) == 19740274219868223167  # past 2**64: no wrap
    assert myModule.fib(100) == 354224848179261915075


def test_fib_consecutive_range():
    for n in range(0, 300):
        assert myModule.fib(n) == fib_loop(n), n


@pytest.mark.parametrize("n", [np.int64(10), np.int32(10), np.uint8(10)], ids=["int64", "int32", "uint8"])
def test_fib_accepts_numpy_integers(n):
    got = myModule.fib(n)
    assert got == 55 and type(got) is int


@pytest.mark.parametrize("bad", [1.5, 10.0, "3", None, [3], np.float64(3.0), 3 + 0j],
                         ids=["1.5", "10.0", "str", "None", "list", "np.float64", "complex"])
def test_fib_rejects_non_integers(bad):
    with pytest.raises(TypeError):
        myModule.fib(bad)


@pytest.mark.parametrize("bad", [-1, -100, np.int64(-1), -(2 ** 70)], ids=["-1", "-100", "np-1", "-2**70"])
def test_fib_rejects_negatives(bad):
    with pytest.raises(ValueError):
        myModule.fib(bad)


def test_fib_argument_count():
    with pytest.raises(TypeError):
        myModule.fib()
    with pytest.raises(TypeError):
        myModule.fib(1, 2)
