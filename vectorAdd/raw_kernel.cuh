// What a user's own kernel sees (VA_RAW_KERNEL, VA_RAW_KERNEL_TYPED): each
// array as a pointer with its dtype, shape, strides (bytes) and size, and the
// scalar parameters, as double and as int64. Part of the public API of
// myModule.get_include(): members are only ever added at the end. The library
// allocates the output, moves host data, converts dtypes, queues the launch on
// its stream and checks it (docs/adding-a-kernel.md).
#pragma once

#include <cstdint>

#include "vectorAdd.h"

namespace va {

struct RawArray {
    char *data;
    va_dtype dtype;
    int32_t ndim;
    int64_t size;  // elements
    int64_t shape[VA_MAX_NDIM];
    int64_t strides[VA_MAX_NDIM];  // bytes

    // Element i in C order (any strides).
    template <typename T>
    __device__ T &at(int64_t i) const {
        int64_t offset = 0;
        for (int d = ndim - 1; d >= 0; --d) {
            offset += (i % shape[d]) * strides[d];
            i /= shape[d];
        }
        return *reinterpret_cast<T *>(data + offset);
    }
    // Element (i, j) of a 2-d array, (i, j, k) of a 3-d one.
    template <typename T>
    __device__ T &at(int64_t i, int64_t j) const {
        return *reinterpret_cast<T *>(data + i * strides[0] + j * strides[1]);
    }
    template <typename T>
    __device__ T &at(int64_t i, int64_t j, int64_t k) const {
        return *reinterpret_cast<T *>(data + i * strides[0] + j * strides[1] + k * strides[2]);
    }
};

struct RawArgs {
    RawArray in[VA_MAX_INPUTS];
    RawArray out;
    double params[VA_MAX_PARAMS];
    int32_t nin;
    // The parameters as integers: exact for Python ints (params holds them
    // rounded to double), truncated for floats.
    int64_t iparams[VA_MAX_PARAMS];
};

}  // namespace va
