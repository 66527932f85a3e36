"""The order key (vectorAdd/order_key.cuh: an element's bits as an unsigned integer whose
order is NumPy's), which argsort and searchsorted compare on the GPU, checked here on
the host: the header is plain arithmetic, so a host compiler builds it with the device
qualifiers defined away. For every real dtype, values with duplicates, NaN of either
sign, +-0.0, +-inf and the extremes, the keys' stable argsort must be NumPy's stable
argsort (NaN last, -0.0 equal to 0.0, ties in input order). Runs without a GPU."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import myModule
from conftest import ALL_DTYPES

PROGRAM = r"""
#define __device__
#define __host__
#define __forceinline__ inline
#include "order_key.cuh"
#include <cstdio>
#include <cstring>
#include <vector>

template <typename U>
int keys(va::OrderKind kind, const std::vector<unsigned char> &in, FILE *out) {
    for (size_t at = 0; at + sizeof(U) <= in.size(); at += sizeof(U)) {
        U x;
        std::memcpy(&x, in.data() + at, sizeof(U));
        const unsigned long long key = va::order_key<U>(x, kind);
        if (std::fwrite(&key, sizeof key, 1, out) != 1) return 1;
    }
    return 0;
}

// order_key KIND WIDTH IN OUT: IN's elements of WIDTH bytes, their keys as uint64 to OUT.
int main(int argc, char **argv) {
    if (argc != 5) return 2;
    const va::OrderKind kind = argv[1][0] == 'f' ? va::OrderKind::floating
                             : argv[1][0] == 'i' ? va::OrderKind::signed_integer
                                                 : va::OrderKind::unsigned_integer;
    FILE *in = std::fopen(argv[3], "rb"), *out = std::fopen(argv[4], "wb");
    if (in == nullptr || out == nullptr) return 3;
    std::vector<unsigned char> bytes;
    for (int c; (c = std::fgetc(in)) != EOF;) bytes.push_back(static_cast<unsigned char>(c));
    int status = 4;
    switch (argv[2][0]) {
        case '1': status = keys<unsigned char>(kind, bytes, out); break;
        case '2': status = keys<unsigned short>(kind, bytes, out); break;
        case '4': status = keys<unsigned int>(kind, bytes, out); break;
        case '8': status = keys<unsigned long long>(kind, bytes, out); break;
    }
    std::fclose(in);
    return std::fclose(out) != 0 ? 5 : status;
}
"""


@pytest.fixture(scope="module")
def order_key_program(tmp_path_factory):
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.skip("no host C++ compiler to build the order key's check")
    include = myModule.get_include()
    assert os.path.isfile(os.path.join(include, "order_key.cuh")), include
    folder = tmp_path_factory.mktemp("order_key")
    source, program = folder / "order_key.cpp", folder / "order_key"
    source.write_text(PROGRAM)
    subprocess.run([compiler, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-I", include, str(source),
                    "-o", str(program)], check=True, capture_output=True, text=True)
    return program, folder


def values_of(dtype, rng):
    if dtype.kind == "b":
        return rng.random(500) < 0.5
    if dtype.kind in "iu":
        ii = np.iinfo(dtype)
        x = np.concatenate([rng.integers(ii.min, ii.max, 400, dtype=dtype, endpoint=True),
                            rng.integers(-3, 4, 100).astype(dtype)])
        x[:4] = [ii.min, ii.max, 0, 1]
        return x
    fi = np.finfo(dtype)
    x = np.concatenate([rng.standard_normal(300) * 10.0 ** rng.integers(-30, 30, 300),
                        rng.integers(-3, 4, 200)]).astype(dtype)
    x[:12] = [np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, fi.max, -fi.max, fi.tiny, -fi.tiny,
              fi.smallest_subnormal, -fi.smallest_subnormal]
    return rng.permutation(x)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=[d.name for d in ALL_DTYPES])
def test_order_keys_sort_as_numpy(order_key_program, dtype, rng):
    program, folder = order_key_program
    x = values_of(dtype, rng)
    data, keys = folder / ("%s.in" % dtype.name), folder / ("%s.keys" % dtype.name)
    x.tofile(data)
    kind = {"f": "f", "i": "i"}.get(dtype.kind, "u")
    subprocess.run([str(program), kind, str(dtype.itemsize), str(data), str(keys)], check=True)
    key = np.fromfile(keys, dtype=np.uint64)
    assert key.shape == x.shape
    np.testing.assert_array_equal(np.argsort(key, kind="stable"), np.argsort(x, kind="stable"))
    if dtype.kind == "f":
        assert len(set(key[np.isnan(x)].tolist())) == 1  # every NaN one key, whatever its sign
        assert key[x == 0].min() == key[x == 0].max()    # -0.0 == 0.0
