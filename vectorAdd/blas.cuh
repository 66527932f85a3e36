// cuBLAS, loaded when an operation first needs it (dlopen), so that neither the
// library nor `import myModule` does: its functions, and a handle a device.
#pragma once

#include <cublas_api.h>

#include <mutex>

#include "vectorAdd.h"

namespace va {

// The cuBLAS functions the library calls.
struct BlasApi {
    cublasStatus_t (*create)(cublasHandle_t *);
    cublasStatus_t (*destroy)(cublasHandle_t);
    cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
    cublasStatus_t (*set_math_mode)(cublasHandle_t, cublasMath_t);
    cublasStatus_t (*sgemm_strided_batched)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                            const float *, const float *, int, long long, const float *, int,
                                            long long, const float *, float *, int, long long, int);
    cublasStatus_t (*dgemm_strided_batched)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                            const double *, const double *, int, long long, const double *, int,
                                            long long, const double *, double *, int, long long, int);
    cublasStatus_t (*cgemm_strided_batched)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                            const cuComplex *, const cuComplex *, int, long long,
                                            const cuComplex *, int, long long, const cuComplex *, cuComplex *,
                                            int, long long, int);
    cublasStatus_t (*zgemm_strided_batched)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                            const cuDoubleComplex *, const cuDoubleComplex *, int, long long,
                                            const cuDoubleComplex *, int, long long, const cuDoubleComplex *,
                                            cuDoubleComplex *, int, long long, int);
};

// A device's handle, held (locked) for one call: a handle is not to be used by two
// threads at once.
struct BlasHandle {
    const BlasApi *api = nullptr;
    cublasHandle_t handle = nullptr;
    std::unique_lock<std::mutex> lock;
};

// `device`'s handle with its stream set to `stream` (`device` current). The first call
// loads cuBLAS: VA_ERROR_LIBRARY_UNAVAILABLE, with the loader's reason, where it cannot.
va_status blas_handle(int device, cudaStream_t stream, BlasHandle *out);

// A cuBLAS status as the library's (recorded with its name).
va_status blas_status(cublasStatus_t status, const char *file, int line);

}  // namespace va

#define VA_BLAS_CHECK(call)                                                 \
    do {                                                                    \
        cublasStatus_t va_blas_st_ = (call);                                \
        if (va_blas_st_ != CUBLAS_STATUS_SUCCESS)                           \
            return ::va::blas_status(va_blas_st_, __FILE__, __LINE__);      \
    } while (0)
