// Recording CUDA failures as va_status values, with the error's name and the
// place it was caught kept per thread for va_last_error().
#pragma once

#include <cuda_runtime.h>

#include "vectorAdd.h"

namespace va {

// Records a failed CUDA call: clears the runtime's last (non-sticky) error, keeps
// its name and file:line, classifies it (out of memory, sticky fault, no device,
// other) and returns the matching status. `bytes` is the request size for
// allocations, else 0.
va_status record_cuda(cudaError_t err, const char *file, int line, int64_t bytes = 0);

// Records a failure that is not a CUDA call (a bad argument, say).
va_status record_status(va_status status, const char *file, int line);

// Records a failure with its own name and text (both in static storage): a library
// that could not be loaded, and the loader's reason.
va_status record_message(va_status status, const char *name, const char *text, const char *file, int line);

// Makes `info` the calling thread's last error (a worker thread's failure
// reported by the thread that called the library).
void restore_error(const va_error_info &info);

// VA_SUCCESS when a driver and a GPU are present and no sticky fault has been
// seen; otherwise the status that says why, with its details recorded.
va_status usable();

// Makes sure `device` is a valid index (after usable()).
va_status check_device(int device);

// The GPUs the process sees, as usable() counted them once (after usable()): the
// count cannot change while the process runs, so every caller reads it here
// (va_device_count, va_synchronize) instead of asking the runtime again.
int probed_device_count();

}  // namespace va

#define VA_CUDA_CHECK(call)                                                 \
    do {                                                                    \
        cudaError_t va_err_ = (call);                                       \
        if (va_err_ != cudaSuccess)                                         \
            return ::va::record_cuda(va_err_, __FILE__, __LINE__);          \
    } while (0)

#define VA_CHECK(expr)                                                      \
    do {                                                                    \
        va_status va_st_ = (expr);                                          \
        if (va_st_ != VA_SUCCESS) return va_st_;                            \
    } while (0)

#define VA_FAIL(status) return ::va::record_status((status), __FILE__, __LINE__)

// Every kernel launch is followed by this: launch errors are returned at once.
#define VA_LAUNCH_CHECK() VA_CUDA_CHECK(cudaGetLastError())
