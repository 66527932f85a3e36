// What a user's own kernel sees (user_ops/, VA_RAW_KERNEL): each array as a
// pointer with its dtype, shape, strides (bytes) and size, and the scalar
// parameters. The library allocates the output, moves host data, converts
// dtypes, queues the launch on its stream and checks it (docs/adding-a-kernel.md).
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
    // Element (i, j) of a 2-d array.
    template <typename T>
    __device__ T &at(int64_t i, int64_t j) const {
        return *reinterpret_cast<T *>(data + i * strides[0] + j * strides[1]);
    }
};

struct RawArgs {
    RawArray in[VA_MAX_INPUTS];
    RawArray out;
    double params[VA_MAX_PARAMS];
    int32_t nin;
};

}  // namespace va
