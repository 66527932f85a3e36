// The views the C-API probes hand the library: a contiguous vector, a 0-d result
// (one element), and an n = 1 add planned once.
#pragma once

#include <cuda_runtime.h>

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

// An n = 1 float64 add of the library, planned once (va_elementwise_planned): the
// small call the C-API probes time. status != VA_SUCCESS where setting it up failed.
struct SmallAdd {
    void *a = nullptr, *o = nullptr;
    va_array in[2] = {}, out = {};
    va_elementwise_plan plan = {};
    va_status status = VA_SUCCESS;
};

inline void make_small_add(SmallAdd *s) {
    va_op add = 0;
    if ((s->status = va_malloc(0, 8, &s->a)) != VA_SUCCESS || (s->status = va_malloc(0, 8, &s->o)) != VA_SUCCESS ||
        (s->status = va_op_find("add", &add)) != VA_SUCCESS)
        return;
    if (cudaMemset(s->a, 0, 8) != cudaSuccess) {
        s->status = VA_ERROR_CUDA;
        return;
    }
    s->in[0] = s->in[1] = va_vector(s->a, VA_FLOAT64, 1);
    s->out = va_vector(s->o, VA_FLOAT64, 1);
    s->plan = {add, 2, s->in, nullptr, &s->out, VA_FLOAT64};
}
