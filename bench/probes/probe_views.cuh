// The views the C-API probes hand the library: a contiguous vector, and a 0-d
// result (one element).
#pragma once

#include "vectorAdd.h"

inline va_array va_vector(void *data, va_dtype dtype, int64_t n) {
    va_array v = {};
    v.data = data;
    v.dtype = dtype;
    v.ndim = 1;
    v.shape[0] = n;
    v.strides[0] = static_cast<int64_t>(va_dtype_size(dtype));
    return v;
}

inline va_array va_scalar_view(void *data, va_dtype dtype) {
    va_array v = {};
    v.data = data;
    v.dtype = dtype;
    return v;
}
