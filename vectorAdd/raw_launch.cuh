// Launching a user's own kernel (VA_RAW_KERNEL) over checked device views:
// an ordinary launch on the library's stream (the kernel need not know about
// overlapped launches: the library's next kernel waits for it to finish).
#pragma once

#include <algorithm>

#include "error.cuh"
#include "op_registry.cuh"
#include "raw_kernel.cuh"

namespace va {

inline void describe_raw(const va_array &view, RawArray *out) {
    out->data = static_cast<char *>(view.data);
    out->dtype = view.dtype;
    out->ndim = view.ndim;
    out->size = 1;
    for (int d = 0; d < view.ndim; ++d) {
        out->shape[d] = view.shape[d];
        out->strides[d] = view.strides[d];
        out->size *= view.shape[d];
    }
}

inline va_status launch_raw(const RawCall &c, void (*kernel)(RawArgs)) {
    RawArgs args = {};
    args.nin = c.nin;
    for (int k = 0; k < c.nin; ++k) describe_raw(c.in[k], &args.in[k]);
    describe_raw(*c.out, &args.out);
    for (int k = 0; k < VA_MAX_PARAMS && c.params != nullptr; ++k) args.params[k] = c.params[k];
    const int64_t block = c.block > 0 ? c.block : 256;
    const int64_t grid = c.grid > 0 ? c.grid : std::max<int64_t>(1, (args.out.size + block - 1) / block);
    if (block > 1024 || grid > INT32_MAX) VA_FAIL(VA_ERROR_INVALID_VALUE);
    if (args.out.size == 0 && c.grid <= 0) return VA_SUCCESS;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(static_cast<unsigned>(grid));
    config.blockDim = dim3(static_cast<unsigned>(block));
    config.stream = c.stream;
    VA_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, args));
    return VA_SUCCESS;
}

}  // namespace va
