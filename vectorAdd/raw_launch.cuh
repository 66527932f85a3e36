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
    for (int k = 0; k < VA_MAX_PARAMS && c.params != nullptr; ++k) {
        args.params[k] = c.params[k];
        args.iparams[k] = c.iparams != nullptr ? c.iparams[k] : static_cast<int64_t>(c.params[k]);
    }
    const va_launch &l = c.launch;
    const int64_t bx = l.block[0] > 0 ? l.block[0] : 256;
    const int64_t by = l.block[1] > 0 ? l.block[1] : 1, bz = l.block[2] > 0 ? l.block[2] : 1;
    const int64_t gx = l.grid[0] > 0 ? l.grid[0] : std::max<int64_t>(1, (args.out.size + bx - 1) / bx);
    const int64_t gy = l.grid[1] > 0 ? l.grid[1] : 1, gz = l.grid[2] > 0 ? l.grid[2] : 1;
    if (bx * by * bz > 1024 || bz > 64 || gx > INT32_MAX || gy > 65535 || gz > 65535 || l.shared_bytes < 0)
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    if (args.out.size == 0 && l.grid[0] <= 0) return VA_SUCCESS;
    if (l.shared_bytes > 48 * 1024) {
        // Past 48 KiB a kernel must ask for its dynamic shared memory, up to the
        // device's opt-in limit.
        int limit = 0;
        VA_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, c.device));
        if (l.shared_bytes > limit) VA_FAIL(VA_ERROR_INVALID_VALUE);
        VA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(l.shared_bytes)));
    }
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy), static_cast<unsigned>(gz));
    config.blockDim = dim3(static_cast<unsigned>(bx), static_cast<unsigned>(by), static_cast<unsigned>(bz));
    config.dynamicSmemBytes = static_cast<size_t>(l.shared_bytes);
    config.stream = c.stream;
    VA_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, args));
    return VA_SUCCESS;
}

}  // namespace va
